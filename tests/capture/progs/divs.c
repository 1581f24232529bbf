/* A known number of integer divides and string copies for the capture's
 * divider and microcode counts (tests/capture/divs_test.sh).
 *
 *   divs N LEN: N times one `div r32` (pinned by inline asm, so the
 *   compiler neither removes nor adds divides), each on the previous
 *   quotient's register chain; then one `rep movsb` of LEN bytes.
 *
 * With N = 0 and LEN = 0 the program does only the C library's start-up
 * and exit: the test subtracts that run's counts. */
#include <stdlib.h>
#include <string.h>

static unsigned char src[1 << 16], dst[1 << 16];

int main(int argc, char **argv)
{
    unsigned long n = argc > 1 ? strtoul(argv[1], NULL, 10) : 0;
    unsigned long len = argc > 2 ? strtoul(argv[2], NULL, 10) : 0;
    if (len > sizeof src)
        len = sizeof src;
    unsigned q = 1000003u;
    for (unsigned long i = 0; i < n; i++) {
        unsigned hi = 0, d = 7u;
        __asm__ volatile("div %[d]" : "+a"(q), "+d"(hi) : [d] "r"(d));
        q += 1000003u;
    }
    if (len) {
        void *s = src, *t = dst;
        unsigned long c = len;
        __asm__ volatile("rep movsb" : "+D"(t), "+S"(s), "+c"(c) : : "memory");
    }
    return (int)(q & 1) & (dst[0] != 0);
}
