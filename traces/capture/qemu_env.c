/* The environment of a program under qemu-x86_64: qemu_env.h,
 * docs/CAPTURE.md ("The guest's environment"). */
#include "qemu_env.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* what the plan does with an entry */
enum { ENV_E, ENV_HOST, ENV_NO_EQ, ENV_TWICE, ENV_LOST, ENV_MOVED };

static size_t name_len(const char *s)
{
    return strcspn(s, "=");
}

static int host_reads_prefix(const char *s, size_t n, const char *prefix)
{
    size_t p = strlen(prefix);
    return n >= p && memcmp(s, prefix, p) == 0;
}

int qemu_env_host_reads(const char *entry)
{
    size_t n = name_len(entry);
    return host_reads_prefix(entry, n, "LD_") || host_reads_prefix(entry, n, "QEMU_") ||
           host_reads_prefix(entry, n, "MALLOC_") || host_reads_prefix(entry, n, "G_") ||
           (n == 14 && memcmp(entry, "GLIBC_TUNABLES", 14) == 0);
}

/* qsort_r of entry indexes by name, then by index: the first of equal
 * names is the one getenv() finds */
static int by_name(const void *a, const void *b, void *envp)
{
    char *const *env = envp;
    size_t i = *(const size_t *)a, j = *(const size_t *)b;
    const char *x = env[i], *y = env[j];
    size_t nx = name_len(x), ny = name_len(y);
    int c = memcmp(x, y, nx < ny ? nx : ny);
    if (c == 0 && nx != ny)
        c = nx < ny ? -1 : 1;
    return c ? c : i < j ? -1 : i > j ? 1 : 0;
}

/* One part of the note: "NAME: why" (NAME cut at 60 bytes; the note at
 * about 2,000: an EXECVE chunk's text is at most 4,096). */
#define NOTE_MAX 2000

static void note_add(char **note, size_t *len, const char *entry, const char *why)
{
    size_t n = name_len(entry);
    char *more = NULL;
    int k;
    if (*len < NOTE_MAX)
        k = asprintf(&more, "%s%.*s%s: %s", *len ? "; " : "", n > 60 ? 60 : (int)n, entry,
                     n > 60 ? "..." : "", why);
    else if (strcmp(*note + *len - 5, "; ...") != 0)
        k = asprintf(&more, "; ...");
    else
        return;
    if (k < 0)
        return;
    char *bigger = realloc(*note, *len + (size_t)k + 1);
    if (bigger) {
        memcpy(bigger + *len, more, (size_t)k + 1);
        *note = bigger;
        *len += (size_t)k;
    }
    free(more);
}

int qemu_env_plan(char *const *env, qemu_env_plan_t *plan)
{
    memset(plan, 0, sizeof *plan);
    size_t n = 0;
    while (env && env[n])
        n++;
    unsigned char *how = calloc(n + 1, 1);
    size_t *order = malloc((n + 1) * sizeof *order);
    plan->args = calloc(2 * n + 1, sizeof *plan->args);
    plan->host = calloc(n + 1, sizeof *plan->host);
    if (!how || !order || !plan->args || !plan->host) {
        free(how);
        free(order);
        qemu_env_plan_free(plan);
        return -1;
    }
    /* entries QEMU cannot hold: no '=' (dropped from its own environment,
     * fatal in -E), and a name given again (it keeps one) */
    size_t m = 0;
    for (size_t i = 0; i < n; i++) {
        if (!strchr(env[i], '='))
            how[i] = ENV_NO_EQ;
        else
            order[m++] = i;
    }
    qsort_r(order, m, sizeof *order, by_name, (void *)env);
    for (size_t k = 1; k < m; k++)
        if (name_len(env[order[k]]) == name_len(env[order[k - 1]]) &&
            memcmp(env[order[k]], env[order[k - 1]], name_len(env[order[k]])) == 0)
            how[order[k]] = ENV_TWICE;
    /* up to the first entry with a comma: -E; from it on, QEMU's own
     * environment for names the host process does not read, -E for the
     * others (they then come before those: moved), lost if both */
    int suffix = 0, host_before = 0;
    for (size_t i = 0; i < n; i++) {
        if (how[i] != ENV_E)
            continue;
        int comma = strchr(env[i], ',') != NULL;
        suffix |= comma;
        if (!suffix)
            continue;
        if (!qemu_env_host_reads(env[i])) {
            how[i] = ENV_HOST;
            host_before = 1;
        } else if (comma) {
            how[i] = ENV_LOST;
        } else if (host_before) {
            how[i] = ENV_MOVED;
        }
    }
    /* -E last first: each goes to the front of QEMU's list; the host's
     * environment likewise reversed */
    size_t nh = 0;
    size_t len = 0;
    for (size_t r = n; r-- > 0;) {
        if (how[r] == ENV_E || how[r] == ENV_MOVED) {
            plan->args[plan->nargs++] = (char *)"-E";
            plan->args[plan->nargs++] = env[r];
        } else if (how[r] == ENV_HOST) {
            plan->host[nh++] = env[r];
        }
    }
    for (size_t i = 0; i < n; i++) {
        static const char *const why[] = {
            [ENV_NO_EQ] = "no '=': QEMU passes no such entry, left out",
            [ENV_TWICE] = "set again: QEMU holds a name once, the first is kept",
            [ENV_LOST] = "its entry has a comma (which QEMU's -E splits at) and the host "
                         "QEMU process reads this name: left out",
            [ENV_MOVED] = "moved before the entries from the first one with a comma (QEMU's -E "
                          "puts it first)",
        };
        if (how[i] != ENV_E && how[i] != ENV_HOST)
            note_add(&plan->note, &len, env[i], why[how[i]]);
    }
    free(how);
    free(order);
    return 0;
}

void qemu_env_plan_free(qemu_env_plan_t *plan)
{
    free(plan->args);
    free(plan->host);
    free(plan->note);
    memset(plan, 0, sizeof *plan);
}
