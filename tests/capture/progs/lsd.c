/* Loops of a known body for the loop stream detector's counts
 * (tests/capture/lsd_test.sh).
 *
 *   lsd N M: a loop of N iterations whose body is four one-uop
 *   instructions (two adds, dec, jnz: pinned by inline asm), then a loop
 *   of M iterations whose body is 32 (thirty adds, dec, jnz): more than
 *   the detector's 28 uops.
 *
 * With N = M = 0 the program does only the C library's start-up and exit:
 * the test subtracts that run's counts. */
#include <stdlib.h>

int main(int argc, char **argv)
{
    unsigned long n = argc > 1 ? strtoul(argv[1], NULL, 10) : 0;
    unsigned long m = argc > 2 ? strtoul(argv[2], NULL, 10) : 0;
    unsigned a = 0, b = 0;
    if (n) {
        unsigned long c = n;
        __asm__ volatile("1:\n\t"
                         "add $1, %[a]\n\t"
                         "add $3, %[b]\n\t"
                         "dec %[c]\n\t"
                         "jnz 1b"
                         : [a] "+r"(a), [b] "+r"(b), [c] "+r"(c));
    }
    if (m) {
        unsigned long c = m;
        __asm__ volatile("1:\n\t"
                         ".rept 30\n\t"
                         "add $1, %[a]\n\t"
                         ".endr\n\t"
                         "dec %[c]\n\t"
                         "jnz 1b"
                         : [a] "+r"(a), [c] "+r"(c));
    }
    return (int)((a + b) & 1);
}
