/* Pointer chase over a random cyclic permutation of N lines (argv[1] = N,
 * argv[2] = steps).  Each step loads the next line's address from the
 * current line: over a working set far larger than the LLC nearly every
 * step misses the LLC. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

struct line {
    struct line *next;
    char pad[56];
};

int main(int argc, char **argv)
{
    size_t n = argc > 1 ? strtoull(argv[1], NULL, 10) : (size_t)1 << 19;
    size_t steps = argc > 2 ? strtoull(argv[2], NULL, 10) : (size_t)1 << 20;
    struct line *l = aligned_alloc(64, n * sizeof *l);
    size_t *perm = malloc(n * sizeof *perm);
    if (!l || !perm)
        return 1;
    for (size_t i = 0; i < n; i++)
        perm[i] = i;
    uint64_t x = 88172645463325252ull; /* xorshift: the same permutation every run */
    for (size_t i = n - 1; i > 0; i--) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        size_t j = x % (i + 1), t = perm[i];
        perm[i] = perm[j], perm[j] = t;
    }
    for (size_t i = 0; i < n; i++)
        l[perm[i]].next = &l[perm[(i + 1) % n]];
    struct line *p = &l[perm[0]];
    for (size_t s = 0; s < steps; s++)
        p = p->next;
    printf("%p\n", (void *)p);
    return 0;
}
