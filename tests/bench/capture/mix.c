/* The capture benchmark's program (scripts/bench-capture.sh): a fixed mix of
 * array walks, a hash table and a sort, about 50 M x86-64 instructions at
 * -O2 with the default scale.  Usage: mix [SCALE]; SCALE (default 21) sets
 * the number of rounds, so the instruction count grows with it linearly
 * and the data stays the same size.  Prints a checksum so the compiler
 * keeps every part. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define ARRAY_N (1u << 16)   /* 64 K uint32 = 256 KiB: misses L1, fits L2/L3 */
#define HASH_N (1u << 14)    /* slots of the open-addressing table */
#define SORT_N 4096u

static uint32_t arr[ARRAY_N];
static uint64_t hkeys[HASH_N];
static uint32_t hvals[HASH_N];
static uint32_t sortbuf[SORT_N];

static uint32_t rng_state = 12345u;
static uint32_t rng(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 17;
    rng_state ^= rng_state << 5;
    return rng_state;
}

/* sequential and strided walks */
static uint64_t walks(void)
{
    uint64_t s = 0;
    for (uint32_t i = 0; i < ARRAY_N; i++)
        s += arr[i];
    for (uint32_t i = 0; i < ARRAY_N; i += 16)
        arr[i] += (uint32_t)s;
    return s;
}

/* open addressing with linear probing: inserts then lookups */
static uint64_t hashing(uint32_t n)
{
    uint64_t found = 0;
    for (uint32_t i = 0; i < n; i++) {
        uint64_t k = (uint64_t)rng() | 1u;
        uint32_t h = (uint32_t)((k * 0x9e3779b97f4a7c15ull) >> 50) & (HASH_N - 1);
        while (hkeys[h] && hkeys[h] != k)
            h = (h + 1) & (HASH_N - 1);
        hkeys[h] = k;
        hvals[h]++;
    }
    for (uint32_t i = 0; i < n; i++) {
        uint64_t k = (uint64_t)rng() | 1u;
        uint32_t h = (uint32_t)((k * 0x9e3779b97f4a7c15ull) >> 50) & (HASH_N - 1);
        uint32_t probes = 0;
        while (hkeys[h] && hkeys[h] != k && probes++ < 8)
            h = (h + 1) & (HASH_N - 1);
        found += hvals[h];
    }
    for (uint32_t i = 0; i < HASH_N; i++)
        hkeys[i] = 0;
    return found;
}

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

static uint64_t sorting(void)
{
    for (uint32_t i = 0; i < SORT_N; i++)
        sortbuf[i] = rng();
    qsort(sortbuf, SORT_N, sizeof sortbuf[0], cmp_u32);
    return sortbuf[SORT_N / 2];
}

int main(int argc, char **argv)
{
    long scale = argc > 1 ? strtol(argv[1], NULL, 10) : 21;
    for (uint32_t i = 0; i < ARRAY_N; i++)
        arr[i] = i * 2654435761u;
    uint64_t sum = 0;
    for (long r = 0; r < scale; r++) {
        sum += walks();
        sum += hashing(HASH_N / 2);
        sum += sorting();
    }
    printf("%llu\n", (unsigned long long)sum);
    return 0;
}
