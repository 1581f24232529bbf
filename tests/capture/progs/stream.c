/* Sequential stream: sums N 8-byte words once (argv[1] = N, default 4 Mi).
 * Each 64-byte line holds 8 words, so a cold pass misses about N/8 times in
 * the L1D and, over a working set larger than the last level, in the LLC. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    size_t n = argc > 1 ? strtoull(argv[1], NULL, 10) : (size_t)4 << 20;
    uint64_t *a = malloc(n * sizeof *a);
    if (!a)
        return 1;
    for (size_t i = 0; i < n; i++)
        a[i] = i;
    uint64_t s = 0;
    for (size_t i = 0; i < n; i++)
        s += a[i];
    printf("%llu\n", (unsigned long long)s);
    free(a);
    return 0;
}
