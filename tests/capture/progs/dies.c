/* dies MODE N: runs a loop of exactly 2N instructions (spin), then dies as
 * MODE says, for the capture test of a program that does not exit
 * (tests/capture/crash_test.sh, docs/CAPTURE.md "Ended early"):
 *   segv    a store to address 0 (SIGSEGV)
 *   abort   abort() (SIGABRT)
 *   kill    kill(getpid(), SIGKILL): under QEMU user mode the guest's pid is
 *           QEMU's, so QEMU itself is killed
 *   threads a second thread runs spin(N) too and then waits; once it has,
 *           the first dies of SIGSEGV (two guest threads with items unsent).
 *           The first waits for it on a semaphore, which blocks: a busy
 *           wait would add instructions that depend on the scheduling
 *   wait    prints "ready", then spins until it is killed from outside
 *   exit    exits normally (status 0)
 * N = 0 runs no loop: the start-up and the death alone. */
#include <pthread.h>
#include <semaphore.h>
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

static sem_t spun;
static long count;

static void *worker(void *arg)
{
    (void)arg;
    spin(count);
    sem_post(&spun);
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
        if (sem_init(&spun, 0, 0) != 0 || pthread_create(&t, NULL, worker, NULL) != 0)
            return 1;
        spin(count);
        while (sem_wait(&spun) != 0)
            ;
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
