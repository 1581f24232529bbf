/* A REP string instruction: `rep movsb` of argv[1] bytes (at most 64 KiB)
 * run argv[2] times.  Whatever the byte count, each run retires one
 * instruction; each byte is one load and one store in QEMU (the accesses
 * the capture sees). */
#include <stdlib.h>

static char src[1 << 16], dst[1 << 16];

int main(int argc, char **argv)
{
    unsigned long n = argc > 1 ? strtoul(argv[1], NULL, 10) : 4096;
    unsigned long reps = argc > 2 ? strtoul(argv[2], NULL, 10) : 100;
    if (n > sizeof src)
        return 2;
    for (unsigned long i = 0; i < reps; i++) {
        void *d = dst, *s = src;
        unsigned long c = n;
        __asm__ volatile("rep movsb" : "+D"(d), "+S"(s), "+c"(c) : : "memory");
    }
    return 0;
}
