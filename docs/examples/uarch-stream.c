/* The program of docs/UARCH.md section 8 (validation against cachegrind):
 * 4 Mi longs written, summed twice, then 1 Mi steps of a linear
 * congruential generator reading a[x % N] when bit 16 of x is set. */
#include <stdio.h>
#include <stdlib.h>

#define N (4ul << 20)

int main(void)
{
    long *a = malloc(N * sizeof *a);
    if (!a)
        return 1;
    for (unsigned long i = 0; i < N; i++)
        a[i] = (long)i;
    long s = 0;
    for (int pass = 0; pass < 2; pass++)
        for (unsigned long i = 0; i < N; i++)
            s += a[i];
    unsigned long x = 1;
    for (unsigned long k = 0; k < (1ul << 20); k++) {
        x = x * 1103515245ul + 12345ul;
        if (x & (1ul << 16))
            s += a[x % N];
    }
    printf("%ld\n", s);
    free(a);
    return 0;
}
