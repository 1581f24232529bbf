/* A loop with a data-dependent branch: for N pseudo-random values, the
 * branch "value is odd" is taken about half the time at random, so a
 * predictor mispredicts it about N/2 times; the loop branch itself is
 * predicted. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    size_t n = argc > 1 ? strtoull(argv[1], NULL, 10) : 1000000;
    uint64_t x = 2463534242u, odd = 0;
    for (size_t i = 0; i < n; i++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        if (x & 1) {
            /* an empty volatile asm in one arm keeps the compiler from
             * turning the branch into a conditional move */
            __asm__ volatile("");
            odd++;
        }
    }
    printf("%llu\n", (unsigned long long)odd);
    return 0;
}
