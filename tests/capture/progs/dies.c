/* dies MODE N: runs a loop of exactly 2N instructions (spin), then dies as
 * MODE says, for the capture test of a program that does not exit
 * (tests/capture/crash_test.sh, docs/CAPTURE.md "Ended early"):
 *   segv    a store to address 0 (SIGSEGV)
 *   abort   abort() (SIGABRT)
 *   kill    kill(getpid(), SIGKILL): under QEMU user mode the guest's pid is
 *           QEMU's, so QEMU itself is killed
 *   threads a second thread runs spin(N) too and then waits; once it has,
 *           the first dies of SIGSEGV (two guest threads with items unsent)
 *   wait    prints "ready", then spins until it is killed from outside
 *   exit    exits normally (status 0)
 * N = 0 runs no loop: the start-up and the death alone. */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* 2 instructions per iteration (dec, jnz), none when n = 0 */
__attribute__((noinline)) static long spin(long n)
{
    if (n > 0)
        __asm__ volatile("1: dec %0\n\tjnz 1b" : "+r"(n));
    return n;
}

static volatile int spun;
static long count;

static void *worker(void *arg)
{
    (void)arg;
    spin(count);
    __atomic_store_n(&spun, 1, __ATOMIC_RELEASE);
    for (;;)
        pause();
    return NULL;
}

int main(int argc, char **argv)
{
    if (argc != 3)
        return 2;
    const char *mode = argv[1];
    count = atol(argv[2]);
    if (strcmp(mode, "threads") == 0) {
        pthread_t t;
        if (pthread_create(&t, NULL, worker, NULL) != 0)
            return 1;
        spin(count);
        while (!__atomic_load_n(&spun, __ATOMIC_ACQUIRE))
            sched_yield();
        *(volatile int *)0 = 1;
    }
    spin(count);
    if (strcmp(mode, "segv") == 0)
        *(volatile int *)0 = 1;
    else if (strcmp(mode, "abort") == 0)
        abort();
    else if (strcmp(mode, "kill") == 0)
        kill(getpid(), SIGKILL);
    else if (strcmp(mode, "wait") == 0) {
        printf("ready\n");
        fflush(stdout);
        for (;;)
            spin(1000000);
    }
    return strcmp(mode, "exit") == 0 ? 0 : 2;
}
