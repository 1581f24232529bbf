/* Known numbers of each operation kind per iteration, for the capture's
 * operation kinds (docs/CAPTURE.md "Decoding") and the x87/MMX transitions
 * (docs/trace-events-x86.md).  Each of the N iterations runs, in inline
 * assembly the compiler cannot change, in this order:
 *   MMX (class mmx, SIMD_INT_64):
 *     pack 1 (packsswb), unpack 2 (punpcklbw, punpckhwd),
 *     packed_arith 3 (paddw, psubb, pcmpeqd),
 *     packed_logical 4 (pand, por, pxor, pandn), packed_mpy 1 (pmullw),
 *     packed_shift 2 (psllw, psrlq), shuffle_move 2 (movq mm-mm, pshufw),
 *     and emms (an MMX instruction of no kind)
 *   SSE2 integer (class vi, SIMD_INT_128):
 *     pack 2 (packssdw, packuswb), unpack 1 (punpcklqdq),
 *     packed_arith 1 (paddq), packed_logical 2 (pxor, por),
 *     packed_mpy 3 (pmullw, pmuludq, pmaddwd), packed_shift 1 (pslldq),
 *     shuffle_move 4 (pshufd, movdqa xmm-xmm, movd r32-xmm, pextrw);
 *     a movdqu load and a movdqu store: no kind (no SIMD operation)
 *   mul 3 (imul r64, mulsd, mulps), div 3 (div r32, divsd, sqrtpd)
 *   x87 (class x87): fld1, fld1, fmul (mul), fdiv (div), fsqrt (div),
 *     fstp, fstp: mul 1, div 2 more
 * so mul 4 and div 5 in all; one transition from MMX to x87 (the x87 block)
 * and one from x87 to MMX (the next iteration's MMX block, or the emms
 * after the loop).  Run with N = 0000 (as many digits as N) for the
 * start-up counts. */
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    long n = argc > 1 ? strtol(argv[1], NULL, 10) : 1000;
    unsigned char buf[16] = { 1 };
    for (long i = 0; i < n; i++) {
        __asm__ volatile("packsswb %%mm1, %%mm0\n\t"
                         "punpcklbw %%mm1, %%mm0\n\t"
                         "punpckhwd %%mm1, %%mm0\n\t"
                         "paddw %%mm1, %%mm0\n\t"
                         "psubb %%mm1, %%mm0\n\t"
                         "pcmpeqd %%mm1, %%mm0\n\t"
                         "pand %%mm1, %%mm0\n\t"
                         "por %%mm1, %%mm0\n\t"
                         "pxor %%mm1, %%mm0\n\t"
                         "pandn %%mm1, %%mm0\n\t"
                         "pmullw %%mm1, %%mm0\n\t"
                         "psllw $1, %%mm0\n\t"
                         "psrlq $2, %%mm0\n\t"
                         "movq %%mm0, %%mm2\n\t"
                         "pshufw $0x1b, %%mm1, %%mm2\n\t"
                         "emms\n\t"
                         "packssdw %%xmm9, %%xmm8\n\t"
                         "packuswb %%xmm9, %%xmm8\n\t"
                         "punpcklqdq %%xmm9, %%xmm8\n\t"
                         "paddq %%xmm9, %%xmm8\n\t"
                         "pxor %%xmm9, %%xmm8\n\t"
                         "por %%xmm9, %%xmm8\n\t"
                         "pmullw %%xmm9, %%xmm8\n\t"
                         "pmuludq %%xmm9, %%xmm8\n\t"
                         "pmaddwd %%xmm9, %%xmm8\n\t"
                         "pslldq $1, %%xmm8\n\t"
                         "pshufd $0x1b, %%xmm9, %%xmm8\n\t"
                         "movdqa %%xmm8, %%xmm10\n\t"
                         "movd %%ecx, %%xmm11\n\t"
                         "pextrw $0, %%xmm8, %%eax\n\t"
                         "movdqu %1, %%xmm10\n\t"
                         "movdqu %%xmm10, %1\n\t"
                         "imul %%rcx, %%rax\n\t"
                         "mulsd %%xmm1, %%xmm0\n\t"
                         "mulps %%xmm3, %%xmm2\n\t"
                         "mov $7, %%eax\n\t"
                         "xor %%edx, %%edx\n\t"
                         "mov $3, %%ecx\n\t"
                         "div %%ecx\n\t"
                         "divsd %%xmm1, %%xmm0\n\t"
                         "sqrtpd %%xmm3, %%xmm2\n\t"
                         "fld1\n\t"
                         "fld1\n\t"
                         "fmul %%st(1), %%st(0)\n\t"
                         "fdiv %%st(1), %%st(0)\n\t"
                         "fsqrt\n\t"
                         "fstp %%st(0)\n\t"
                         "fstp %%st(0)\n\t"
                         : "+r"(i), "+m"(buf)
                         :
                         : "memory", "rax", "rcx", "rdx", "xmm0", "xmm2", "xmm8", "xmm10", "xmm11",
                           "mm0", "mm2", "st", "st(1)");
    }
    __asm__ volatile("emms");
    puts("done"); /* the same output for every N */
    return 0;
}
