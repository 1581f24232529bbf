/* Macro-fusion for tests/capture/fuse_test.sh: `fuse N` runs five loops of
 * N iterations each, written in assembly so that the compiler cannot change
 * the compare and the branch that end each iteration:
 *   A  inc; cmp reg, reg; jne       fuses (N pairs)
 *   B  dec; test reg, reg; jnz      fuses (N)
 *   C  dec; cmp reg, imm; jg        fuses (N: a signed condition after
 *                                   CMP, which Nehalem added)
 *   D  decq mem; cmpq imm, mem; jne does not fuse: memory against an
 *                                   immediate
 *   E  dec; cmp reg, [rip]; jne     does not fuse: a RIP-relative operand
 * (docs/UARCH.md §1, "Macro-fusion").  N = 0 runs none of them (the C
 * library's own pairs). */
#include <stdlib.h>

static long zero_q __attribute__((used)) = 0;

int main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 0;
    if (n < 0 || n > 100000)
        return 2;
    if (n == 0)
        return 0;
    long i = 0, c;
    __asm__ volatile("1:\n\tinc %0\n\tcmp %1, %0\n\tjne 1b" : "+r"(i) : "r"(n) : "cc"); /* A */
    c = n;
    __asm__ volatile("1:\n\tdec %0\n\ttest %0, %0\n\tjnz 1b" : "+r"(c) : : "cc"); /* B */
    c = n;
    __asm__ volatile("1:\n\tdec %0\n\tcmp $0, %0\n\tjg 1b" : "+r"(c) : : "cc"); /* C */
    volatile long m = n;
    __asm__ volatile("1:\n\tdecq (%0)\n\tcmpq $0, (%0)\n\tjne 1b" : : "r"(&m) : "cc", "memory"); /* D */
    c = n;
    __asm__ volatile("1:\n\tdec %0\n\tcmp zero_q(%%rip), %0\n\tjne 1b" : "+r"(c) : : "cc"); /* E */
    return 0;
}
