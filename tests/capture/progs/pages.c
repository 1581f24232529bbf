/* A pointer chase over N pages (argv[1] = N) in a random cyclic order,
 * one 64-byte line at the start of each page, for S steps (argv[2], at
 * most N): each step loads the next page's address from the current one,
 * so each page is touched once by the chase and the steps are serial.
 * Over more pages than the second-level TLB maps (wsm 512, knm 256 pages
 * of 4 KiB) nearly every step walks. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

struct page {
    struct page *next;
    char pad[4096 - sizeof(struct page *)];
};

int main(int argc, char **argv)
{
    size_t n = argc > 1 ? strtoull(argv[1], NULL, 10) : 4096;
    size_t steps = argc > 2 ? strtoull(argv[2], NULL, 10) : n;
    if (steps > n)
        steps = n;
    struct page *p = aligned_alloc(4096, n * sizeof *p);
    size_t *perm = malloc(n * sizeof *perm);
    if (!p || !perm)
        return 1;
    for (size_t i = 0; i < n; i++)
        perm[i] = i;
    uint64_t x = 88172645463325252ull; /* xorshift: the same order every run */
    for (size_t i = n - 1; i > 0; i--) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        size_t j = x % (i + 1), t = perm[i];
        perm[i] = perm[j], perm[j] = t;
    }
    for (size_t i = 0; i < n; i++)
        p[perm[i]].next = &p[perm[(i + 1) % n]];
    struct page *q = &p[perm[0]];
    for (size_t s = 0; s < steps; s++)
        q = q->next;
    printf("%p\n", (void *)q);
    return 0;
}
