/* ALU operations on loaded data (tests/capture/rsdep_test.sh): R reads of
 * an array of N words (a power of two), the index stepping by a large odd
 * stride (argv[1] = N, argv[2] = R), each read followed by 16 ALU
 * operations.  argv[3] "dep": the operations add the word read into a sum
 * and go on with the sum, so each waits for the read's data; "indep": they
 * work on the index instead, and the word read is left unused.  The read
 * and the operations are inline assembly, so that the compiler keeps the
 * unused read and the 16 operations as they are. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define OPS16(r)                                                                             \
    "add $1, " r "\n\t xor $3, " r "\n\t add $5, " r "\n\t xor $7, " r "\n\t"                  \
    "add $9, " r "\n\t xor $11, " r "\n\t add $13, " r "\n\t xor $15, " r "\n\t"               \
    "add $17, " r "\n\t xor $19, " r "\n\t add $21, " r "\n\t xor $23, " r "\n\t"              \
    "add $25, " r "\n\t xor $27, " r "\n\t add $29, " r "\n\t xor $31, " r "\n\t"

int main(int argc, char **argv)
{
    size_t n = argc > 1 ? strtoull(argv[1], NULL, 10) : (size_t)1 << 22;
    size_t reads = argc > 2 ? strtoull(argv[2], NULL, 10) : (size_t)1 << 16;
    const int dep = argc > 3 && strcmp(argv[3], "dep") == 0;
    /* never written: the reads' values do not matter, and a loop of
     * stores to 32 MiB would leave the model's fill buffers busy for
     * millions of cycles after it (docs/UARCH.md §1, "Fill buffers") */
    uint64_t *a = calloc(n, sizeof *a);
    if (!a)
        return 1;
    uint64_t s = 0, t = 0, v;
    size_t k = 0;
    for (size_t i = 0; i < reads; i++) {
        k = (k + 1048583) & (n - 1); /* a prime stride: every read a new line and page */
        if (dep)
            __asm__ volatile("mov (%2), %1\n\t"
                             "add %1, %0\n\t" OPS16("%0")
                             : "+r"(s), "=&r"(v)
                             : "r"(a + k)
                             : "cc", "memory");
        else
            __asm__ volatile("mov (%2), %1\n\t"
                             "add %3, %0\n\t" OPS16("%0")
                             : "+r"(t), "=&r"(v)
                             : "r"(a + k), "r"(k)
                             : "cc", "memory");
    }
    printf("%llu %llu\n", (unsigned long long)s, (unsigned long long)t);
    return 0;
}
