/* Known numbers of direct and indirect calls and of x87, MMX, scalar and
 * packed SSE instructions per iteration, for the capture's branch kinds
 * and FP/SIMD classes (docs/CAPTURE.md "Decoding").  Each of the N
 * iterations runs, in inline assembly the compiler cannot change:
 *   2 direct calls (call leaf) and 3 indirect calls (call *%reg), 5 returns;
 *   x87: fld1, fadd st(0), st(0), fstp st(0)     3 instructions
 *   MMX: pxor mm0, mm0; paddd mm0, mm0            2 (emms after the loop)
 *   SSE scalar single: addss, mulss               2
 *   SSE scalar double: addsd                      1
 *   SSE packed single: addps, mulps, addps        3
 *   SSE packed double: addpd, addpd               2
 *   SSE packed integer: paddd, pxor               2
 * The leaf is 'ret' alone.  Run with N = 0000 (as many digits as N) for the
 * start-up counts. */
#include <stdio.h>
#include <stdlib.h>

void kinds_leaf(void);
__asm__(".text\n.globl kinds_leaf\n.type kinds_leaf, @function\nkinds_leaf:\n\tret\n"
        ".size kinds_leaf, .-kinds_leaf\n");

int main(int argc, char **argv)
{
    long n = argc > 1 ? strtol(argv[1], NULL, 10) : 1000;
    void (*volatile fn)(void) = kinds_leaf;
    void (*f)(void) = fn;
    for (long i = 0; i < n; i++) {
        __asm__ volatile("call kinds_leaf\n\t"
                         "call kinds_leaf\n\t"
                         "call *%0\n\t"
                         "call *%0\n\t"
                         "call *%0\n\t"
                         "fld1\n\t"
                         "fadd %%st(0), %%st(0)\n\t"
                         "fstp %%st(0)\n\t"
                         "pxor %%mm0, %%mm0\n\t"
                         "paddd %%mm0, %%mm0\n\t"
                         "addss %%xmm1, %%xmm0\n\t"
                         "mulss %%xmm1, %%xmm0\n\t"
                         "addsd %%xmm3, %%xmm2\n\t"
                         "addps %%xmm5, %%xmm4\n\t"
                         "mulps %%xmm5, %%xmm4\n\t"
                         "addps %%xmm5, %%xmm4\n\t"
                         "addpd %%xmm7, %%xmm6\n\t"
                         "addpd %%xmm7, %%xmm6\n\t"
                         "paddd %%xmm9, %%xmm8\n\t"
                         "pxor %%xmm9, %%xmm9\n\t"
                         :
                         : "r"(f)
                         : "memory", "xmm0", "xmm2", "xmm4", "xmm6", "xmm8", "xmm9", "mm0",
                           "st", "rax", "rcx", "rdx", "rsi", "rdi", "r8", "r9", "r10", "r11");
    }
    __asm__ volatile("emms");
    puts("done"); /* the same output for every N: printf's digits would run other
                   * SSE code in the C library */
    return 0;
}
