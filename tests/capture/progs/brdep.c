/* A branch on loaded data (tests/capture/brdep_test.sh): R reads of an
 * array of N words (a power of two) at xorshift indexes (argv[1] = N,
 * argv[2] = R), each followed by a conditional branch on bit 0 of the word
 * read.  argv[3]
 * "random": the words hold a multiplicative hash of their index, so the
 * branch goes either way at random; "even": every word is even, so it is
 * never taken.  The test and the branch are inline assembly, so that the
 * compiler cannot turn them into a conditional move or an add of the bit. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
    size_t n = argc > 1 ? strtoull(argv[1], NULL, 10) : (size_t)1 << 22;
    size_t reads = argc > 2 ? strtoull(argv[2], NULL, 10) : (size_t)1 << 16;
    const int random = argc > 3 && strcmp(argv[3], "random") == 0;
    uint64_t *a = malloc(n * sizeof *a);
    if (!a)
        return 1;
    for (size_t i = 0; i < n; i++)
        a[i] = random ? (i * 0x9e3779b97f4a7c15ull) >> 32 : i << 1;
    uint64_t x = 88172645463325252ull, s = 0;
    for (size_t i = 0; i < reads; i++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        const uint64_t v = a[x & (n - 1)];
        __asm__ volatile("test $1, %1\n\t"
                         "jz 1f\n\t"
                         "inc %0\n"
                         "1:"
                         : "+r"(s)
                         : "r"(v)
                         : "cc");
    }
    printf("%llu\n", (unsigned long long)s);
    return 0;
}
