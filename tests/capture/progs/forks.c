/* forks MODE N: a program that starts other processes, for the capture
 * test of a forking program (tests/capture/fork_test.sh, docs/CAPTURE.md
 * "A program that forks").  The parent runs a loop of exactly 2N
 * instructions (spin) besides what MODE does, and exits with status 42
 * when every child ended as it should (1 otherwise):
 *   fork    fork(); the child runs spin(N) too (not traced: it must not
 *           appear in the trace) and exits with status 7, which the
 *           parent checks
 *   vfork   vfork(); the child exits at once with status 5 (QEMU runs
 *           it as a fork)
 *   system  system("echo hi") (its output passes through)
 *   popen   popen("echo hi from popen", "r"), prints the line it reads
 *   spawn   posix_spawn("/bin/true")
 *   many    200 forks one after the other, child k exits with k % 100
 *   wide    200 forks at once: every child runs spin(N) and exits with
 *           k % 100, the parent starts them all, then waits for each
 *   thread  a second thread runs spin(N); while it runs, the main thread
 *           forks a child (status 9), then joins the thread: the total
 *           is 4N
 *   orphan  fork(); the parent does not wait, the child outlives it: it
 *           sleeps 20 s, then creates the file orphan.done (the capture
 *           must end with the parent, not wait for the child)
 *   late    fork(); the parent does not wait, the child outlives it: it
 *           sleeps 1 s, runs spin(N) and exits 0 (with --trace-children
 *           the capture waits for it)
 *   nest    fork(); the child forks a grandchild that runs spin(N) and
 *           exits with 7, checks it and exits with 6, which the parent
 *           checks
 *   dies    fork(); the child runs spin(N) and calls abort(); the parent
 *           checks that SIGABRT ended it
 *   diesid  dies, the parent waiting with waitid() instead of waitpid()
 *   exec    spin(N), then execs /bin/sh -c 'echo replaced; exit 42' (the
 *           shell runs natively: the capture ends at the execve)
 *   execfail  an execve that fails (no such file): the program goes on,
 *           and checks that errno is ENOENT
 *   execnoexec  an execve of ./noexec.txt, a file that is not executable
 *           (the test makes it): the program goes on, errno must be EACCES
 *   loop    nothing but the loop (2N), for the exec'd images below
 *   execself  spin(N), then execs ARGV0 loop N (relative path): the new
 *           image loops 2N and exits 42
 *   execchain  spin(N), then execs ARGV0 execself N: two execs, three
 *           images, each loops 2N
 *   execscript  spin(N), then execs ./loop.sh N, a #! script (the test
 *           makes it) whose line is "#!/ABS/forks script": the kernel
 *           runs /ABS/forks script ./loop.sh N, which is `loop N`
 *   execshell  spin(N), then execs ./shell.sh N, a /bin/sh script (the
 *           test makes it) that runs `exec ./forks loop N`
 *   execsig  ignores SIGINT, blocks SIGUSR1, then execs ARGV0 sigcheck N
 *   sigcheck  exits 42 only when SIGINT is ignored and SIGUSR1 blocked (as
 *           an execve leaves them)
 *   sysloop, popenloop, spawnloop  system("./forks loop N"),
 *           popen("./forks loop N", "r"), posix_spawn("./forks", {"forks",
 *           "loop", N}): the child must exit 42
 * N = 0 runs no loop: the start-up, the processes and the exit alone. */
#include <pthread.h>
#include <semaphore.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

/* 2 instructions per iteration (dec, jnz), none when n = 0 */
__attribute__((noinline)) static long spin(long n)
{
    if (n > 0)
        __asm__ volatile("1: dec %0\n\tjnz 1b" : "+r"(n));
    return n;
}

/* fork a child that exits with `status` after spin(n); wait for it: TRUE
 * when it did */
static int fork_and_check(long n, int status)
{
    pid_t p = fork();
    if (p < 0)
        return 0;
    if (p == 0) {
        spin(n);
        _exit(status);
    }
    int st;
    while (waitpid(p, &st, 0) < 0)
        ;
    return WIFEXITED(st) && WEXITSTATUS(st) == status;
}

static sem_t started;
static long count;

static void *worker(void *arg)
{
    (void)arg;
    sem_post(&started);
    spin(count);
    return NULL;
}

int main(int argc, char **argv)
{
    /* a #! script's interpreter: forks script SCRIPT N (execscript) */
    if (argc == 4 && strcmp(argv[1], "script") == 0) {
        argv[1] = "loop";
        argv[2] = argv[3];
        argc = 3;
    }
    if (argc != 3)
        return 2;
    const char *mode = argv[1];
    long n = atol(argv[2]);
    int ok = 0;
    if (strcmp(mode, "fork") == 0) {
        ok = fork_and_check(n, 7);
    } else if (strcmp(mode, "vfork") == 0) {
        pid_t p = vfork();
        if (p == 0)
            _exit(5);
        int st;
        ok = p > 0 && waitpid(p, &st, 0) == p && WIFEXITED(st) && WEXITSTATUS(st) == 5;
    } else if (strcmp(mode, "system") == 0) {
        fflush(stdout);
        int st = system("echo hi");
        ok = st != -1 && WIFEXITED(st) && WEXITSTATUS(st) == 0;
    } else if (strcmp(mode, "popen") == 0) {
        FILE *fp = popen("echo hi from popen", "r");
        char line[64] = "";
        if (fp && fgets(line, sizeof line, fp)) {
            fputs(line, stdout);
            ok = strcmp(line, "hi from popen\n") == 0;
        }
        if (fp && pclose(fp) != 0)
            ok = 0;
    } else if (strcmp(mode, "spawn") == 0) {
        pid_t p;
        char *args[] = {"true", NULL};
        int st;
        ok = posix_spawn(&p, "/bin/true", NULL, NULL, args, environ) == 0 &&
             waitpid(p, &st, 0) == p && WIFEXITED(st) && WEXITSTATUS(st) == 0;
    } else if (strcmp(mode, "many") == 0) {
        ok = 1;
        for (int k = 0; k < 200; k++)
            ok &= fork_and_check(0, k % 100);
    } else if (strcmp(mode, "wide") == 0) {
        pid_t kids[200];
        ok = 1;
        for (int k = 0; k < 200; k++) {
            kids[k] = fork();
            if (kids[k] == 0) {
                spin(n);
                _exit(k % 100);
            }
            ok &= kids[k] > 0;
        }
        for (int k = 0; k < 200; k++) {
            int st;
            ok &= kids[k] > 0 && waitpid(kids[k], &st, 0) == kids[k] && WIFEXITED(st) &&
                  WEXITSTATUS(st) == k % 100;
        }
    } else if (strcmp(mode, "thread") == 0) {
        pthread_t t;
        count = n;
        if (sem_init(&started, 0, 0) != 0 || pthread_create(&t, NULL, worker, NULL) != 0)
            return 1;
        while (sem_wait(&started) != 0)
            ;
        ok = fork_and_check(0, 9);
        ok &= pthread_join(t, NULL) == 0;
    } else if (strcmp(mode, "orphan") == 0) {
        pid_t p = fork();
        if (p == 0) {
            sleep(20);
            int fd = open("orphan.done", O_WRONLY | O_CREAT, 0644);
            _exit(fd >= 0 ? 0 : 1);
        }
        ok = p > 0;
    } else if (strcmp(mode, "late") == 0) {
        pid_t p = fork();
        if (p == 0) {
            sleep(1);
            spin(n);
            _exit(0);
        }
        ok = p > 0;
    } else if (strcmp(mode, "nest") == 0) {
        pid_t p = fork();
        if (p == 0)
            _exit(fork_and_check(n, 7) ? 6 : 1);
        int st;
        ok = p > 0 && waitpid(p, &st, 0) == p && WIFEXITED(st) && WEXITSTATUS(st) == 6;
    } else if (strcmp(mode, "dies") == 0) {
        pid_t p = fork();
        if (p == 0) {
            spin(n);
            abort();
        }
        int st;
        ok = p > 0 && waitpid(p, &st, 0) == p && WIFSIGNALED(st) && WTERMSIG(st) == SIGABRT;
    } else if (strcmp(mode, "diesid") == 0) {
        pid_t p = fork();
        if (p == 0) {
            spin(n);
            abort();
        }
        siginfo_t si;
        memset(&si, 0, sizeof si);
        ok = p > 0 && waitid(P_PID, (id_t)p, &si, WEXITED) == 0 && si.si_pid == p &&
             (si.si_code == CLD_KILLED || si.si_code == CLD_DUMPED) && si.si_status == SIGABRT;
    } else if (strcmp(mode, "exec") == 0) {
        spin(n);
        fflush(stdout);
        execl("/bin/sh", "sh", "-c", "echo replaced; exit 42", (char *)0);
        return 1;
    } else if (strcmp(mode, "execfail") == 0) {
        execl("/nonexistent/program", "program", (char *)0);
        ok = errno == ENOENT; /* it returned, with the kernel's error */
    } else if (strcmp(mode, "execnoexec") == 0) {
        execl("./noexec.txt", "noexec.txt", (char *)0);
        ok = errno == EACCES;
    } else if (strcmp(mode, "loop") == 0) {
        ok = 1;
    } else if (strcmp(mode, "execself") == 0 || strcmp(mode, "execchain") == 0) {
        spin(n);
        fflush(stdout);
        execl(argv[0], "forks", mode[4] == 's' ? "loop" : "execself", argv[2], (char *)0);
        return 1;
    } else if (strcmp(mode, "execsig") == 0) {
        sigset_t set;
        sigemptyset(&set);
        sigaddset(&set, SIGUSR1);
        signal(SIGINT, SIG_IGN);
        sigprocmask(SIG_BLOCK, &set, NULL);
        execl(argv[0], "forks", "sigcheck", argv[2], (char *)0);
        return 1;
    } else if (strcmp(mode, "sigcheck") == 0) {
        struct sigaction sa;
        sigset_t cur;
        ok = sigaction(SIGINT, NULL, &sa) == 0 && sa.sa_handler == SIG_IGN &&
             sigprocmask(SIG_BLOCK, NULL, &cur) == 0 && sigismember(&cur, SIGUSR1) == 1;
    } else if (strcmp(mode, "execscript") == 0 || strcmp(mode, "execshell") == 0) {
        spin(n);
        fflush(stdout);
        const char *script = mode[4] == 's' && mode[5] == 'c' ? "./loop.sh" : "./shell.sh";
        execl(script, script + 2, argv[2], (char *)0);
        return 1;
    } else if (strcmp(mode, "sysloop") == 0 || strcmp(mode, "popenloop") == 0) {
        char cmd[64];
        snprintf(cmd, sizeof cmd, "./forks loop %.20s", argv[2]); /* N as given */
        fflush(stdout);
        if (mode[0] == 's') {
            int st = system(cmd);
            ok = st != -1 && WIFEXITED(st) && WEXITSTATUS(st) == 42;
        } else {
            FILE *fp = popen(cmd, "r");
            int st = fp ? pclose(fp) : -1;
            ok = st != -1 && WIFEXITED(st) && WEXITSTATUS(st) == 42;
        }
    } else if (strcmp(mode, "spawnloop") == 0) {
        pid_t p;
        char *args[] = {"forks", "loop", argv[2], NULL};
        int st;
        ok = posix_spawn(&p, "./forks", NULL, NULL, args, environ) == 0 &&
             waitpid(p, &st, 0) == p && WIFEXITED(st) && WEXITSTATUS(st) == 42;
    } else {
        return 2;
    }
    spin(n);
    fflush(stdout);
    return ok ? 42 : 1;
}
