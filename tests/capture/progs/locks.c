/* Locked instructions for tests/capture/locks_test.sh: `locks N` runs five
 * phases of N locked instructions each, every one pinned by inline asm so
 * that the compiler neither merges nor drops them:
 *   A  lock xadd to N new lines of array a (64-byte stride): each misses
 *      every cache (the lines were never touched)
 *   B  lock xadd to the same N lines again: N = 1000 lines (64 KB) do not
 *      fit the 32 KB L1D, and a sequential pass evicts each line before it
 *      comes back (LRU), so each misses L1D and hits L2, which holds the
 *      line modified (its L1D copy was written back dirty)
 *   C  plain loads of N new lines of array b, then lock xadd to them: each
 *      misses L1D and hits L2 clean
 *   D  lock xadd to one 8-byte word that crosses a 64-byte line
 *   E  xchg with one word in memory, which locks without a prefix
 * N = 0 runs none of them (the C library's own locked instructions). */
#include <stdint.h>
#include <stdlib.h>

#define LINE 64
static unsigned char a[1000 * LINE] __attribute__((aligned(LINE)));
static unsigned char b[1000 * LINE] __attribute__((aligned(LINE)));
static unsigned char split[2 * LINE] __attribute__((aligned(LINE)));

static inline void lock_add(unsigned char *p)
{
    uint64_t v = 1;
    __asm__ volatile("lock xaddq %0, %1" : "+r"(v), "+m"(*(uint64_t *)p) : : "memory");
}

int main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 0;
    if (n < 0 || n > 1000)
        return 2;
    for (long i = 0; i < n; i++) /* A */
        lock_add(&a[i * LINE]);
    for (long i = 0; i < n; i++) /* B */
        lock_add(&a[i * LINE]);
    uint64_t s = 0;
    for (long i = 0; i < n; i++) /* C: the loads */
        s += *(volatile uint64_t *)&b[i * LINE];
    for (long i = 0; i < n; i++) /* C: the locks */
        lock_add(&b[i * LINE]);
    for (long i = 0; i < n; i++) /* D: bytes 60..67, two lines */
        lock_add(&split[LINE - 4]);
    for (long i = 0; i < n; i++) { /* E */
        uint64_t v = (uint64_t)i;
        __asm__ volatile("xchgq %0, %1" : "+r"(v), "+m"(*(uint64_t *)&split[0]) : : "memory");
        s += v;
    }
    volatile uint64_t sink = s;
    (void)sink;
    return 0;
}
