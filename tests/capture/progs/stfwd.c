/* Store-forwarding blocks for tests/capture/stfwd_test.sh: `stfwd N` runs
 * three phases of N store/load pairs, each access through a volatile
 * pointer so that the compiler keeps every one:
 *   A  a byte store, then a 4-byte load of the same address: the load
 *      needs 3 bytes the store does not hold, so it cannot take the
 *      store's data (blocked: N)
 *   B  an 8-byte store, then a 4-byte load of its bytes 2..5: inside the
 *      store, forwarded (none)
 *   C  a 4-byte store at word i of an array of 4-byte words, then a
 *      4-byte load of word i + 1, which only the next iteration stores:
 *      no older store overlaps it (none)
 * N = 0 runs none of them (the C library's own loads and stores). */
#include <stdint.h>
#include <stdlib.h>

static unsigned char buf[64] __attribute__((aligned(64)));
static uint32_t words[1001];

int main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 0;
    if (n < 0 || n > 1000)
        return 2;
    volatile uint8_t *b1 = (volatile uint8_t *)&buf[0];
    volatile uint32_t *b4 = (volatile uint32_t *)&buf[0];
    volatile uint64_t *c8 = (volatile uint64_t *)&buf[16];
    volatile uint32_t *c4 = (volatile uint32_t *)&buf[18];
    volatile uint32_t *w = words;
    uint64_t s = 0;
    for (long i = 0; i < n; i++) { /* A */
        *b1 = (uint8_t)i;
        s += *b4;
    }
    for (long i = 0; i < n; i++) { /* B */
        *c8 = (uint64_t)i;
        s += *c4;
    }
    for (long i = 0; i < n; i++) { /* C */
        w[i] = (uint32_t)i;
        s += w[i + 1];
    }
    volatile uint64_t sink = s;
    (void)sink;
    return 0;
}
