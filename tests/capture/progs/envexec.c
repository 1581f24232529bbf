/* The environment a program sees (docs/CAPTURE.md, "The guest's
 * environment"; tests/capture/env_test.sh):
 *
 *   envexec print                  prints its environ, one entry a line:
 *                                  its index, then the entry with '\\' and
 *                                  newlines escaped (so that every byte shows)
 *   envexec exec CASE PROG PRELOAD execs PROG print with the environment
 *                                  CASE (below), PRELOAD the LD_PRELOAD value
 *
 * Cases: plain (values with '=', a newline, an empty one, a name-less
 * entry, LD_PRELOAD, QEMU_* variables QEMU must not act on, and the
 * entries with commas last), mixed (an entry without '=', a name given
 * twice, a comma before a loader variable and inside one), empty (no
 * environment at all). */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

extern char **environ;

static int print_env(void)
{
    int n = 0;
    while (environ[n])
        n++;
    printf("%d entries\n", n);
    for (int i = 0; i < n; i++) {
        printf("%d ", i);
        for (const char *c = environ[i]; *c; c++) {
            if (*c == '\n')
                fputs("\\n", stdout);
            else if (*c == '\\')
                fputs("\\\\", stdout);
            else
                putchar(*c);
        }
        putchar('\n');
    }
    return 0;
}

int main(int argc, char **argv)
{
    if (argc == 2 && strcmp(argv[1], "print") == 0)
        return print_env();
    if (argc != 5 || strcmp(argv[1], "exec") != 0) {
        fprintf(stderr, "usage: envexec print | envexec exec CASE PROG PRELOAD\n");
        return 2;
    }
    char preload[4200];
    snprintf(preload, sizeof preload, "LD_PRELOAD=%s", argv[4]);
    char *plain[] = {"A=1", "EQ=a=b==c", "NL=line one\nline two", "EMPTY=", "=nameless",
                     preload, "QEMU_STRACE=1", "QEMU_SET_ENV=INJECTED=1", "QEMU_UNSET_ENV=A",
                     "B=2", "COMMA=x,y", "LAST=z,", NULL};
    char *mixed[] = {"A=1", "COMMA=x,y", preload, "NOEQUALS", "DUP=1", "DUP=2",
                     "LD_COMMA=a,b", "Z=2", NULL};
    char *empty[] = {NULL};
    char *const *env = strcmp(argv[2], "plain") == 0   ? plain
                       : strcmp(argv[2], "mixed") == 0 ? mixed
                       : strcmp(argv[2], "empty") == 0 ? empty
                                                       : NULL;
    if (!env) {
        fprintf(stderr, "envexec: no case %s\n", argv[2]);
        return 2;
    }
    char *args[] = {argv[3], "print", NULL};
    fflush(stdout);
    execve(argv[3], args, env);
    perror("envexec: execve");
    return 1;
}
