/* Random 8-byte reads over an array of N words (argv[1] = N, argv[2] =
 * reads): with the array much larger than the L1D, nearly every read misses
 * the L1D. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    size_t n = argc > 1 ? strtoull(argv[1], NULL, 10) : (size_t)1 << 20;
    size_t reads = argc > 2 ? strtoull(argv[2], NULL, 10) : (size_t)1 << 20;
    uint64_t *a = calloc(n, sizeof *a);
    if (!a)
        return 1;
    uint64_t x = 88172645463325252ull, s = 0;
    for (size_t i = 0; i < reads; i++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        s += a[x % n];
    }
    printf("%llu\n", (unsigned long long)s);
    return 0;
}
