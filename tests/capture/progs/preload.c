/* A library for LD_PRELOAD (tests/capture/env_test.sh): its constructor
 * says which program loaded it, so that the test sees that the traced
 * program loads it and QEMU does not. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>

__attribute__((constructor)) static void preload_says(void)
{
    printf("preload: loaded by %s\n", program_invocation_short_name);
    fflush(stdout);
}
