/* Two threads, each summing its own array of N words. */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

static size_t n = 1 << 16;

static void *work(void *arg)
{
    uint64_t *a = malloc(n * sizeof *a), s = 0;
    for (size_t i = 0; i < n; i++)
        a[i] = i;
    for (size_t i = 0; i < n; i++)
        s += a[i];
    free(a);
    *(uint64_t *)arg = s;
    return NULL;
}

int main(int argc, char **argv)
{
    if (argc > 1)
        n = strtoull(argv[1], NULL, 10);
    pthread_t t;
    uint64_t r1 = 0, r2 = 0;
    if (pthread_create(&t, NULL, work, &r1) != 0)
        return 1;
    work(&r2);
    pthread_join(t, NULL);
    printf("%llu %llu\n", (unsigned long long)r1, (unsigned long long)r2);
    return 0;
}
