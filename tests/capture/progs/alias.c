/* 4 KiB aliasing for tests/capture/stfwd_test.sh: `alias N` runs two
 * phases of N store/load pairs on 4-byte words of a 4 KiB-aligned array,
 * each access through a volatile pointer so that the compiler keeps every
 * one:
 *   A  a store to word i, then a load of word i + 1024, 4 KiB further:
 *      the same address bits 11:0, another address (aliased: N)
 *   B  a store to word i of the second page, then a load of word i + 1
 *      of the same page, which no store has written yet: no store
 *      overlaps it, in full or modulo 4 KiB (none)
 * N = 0 runs none of them (the C library's own loads and stores). */
#include <stdint.h>
#include <stdlib.h>

static uint32_t words[3 * 1024] __attribute__((aligned(4096)));

int main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 0;
    if (n < 0 || n > 1000)
        return 2;
    volatile uint32_t *w = words;
    uint64_t s = 0;
    for (long i = 0; i < n; i++) { /* A */
        w[i] = (uint32_t)i;
        s += w[i + 1024];
    }
    for (long i = 0; i < n; i++) { /* B */
        w[2048 + i] = (uint32_t)i;
        s += w[2048 + i + 1];
    }
    volatile uint64_t sink = s;
    (void)sink;
    return 0;
}
