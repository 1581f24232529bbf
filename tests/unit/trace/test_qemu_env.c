/* Unit tests of the plan that gives a program under qemu-x86_64 its
 * environment (traces/capture/qemu_env.h, docs/CAPTURE.md "The guest's
 * environment").  Each case is checked by what QEMU 7.2 would build from
 * the plan, simulated here as QEMU does it (a list holding a name once,
 * each name set put in front; its own environment first, entries without
 * '=' left out, then the -E options), against the environment derived by
 * hand; tests/capture/env_test.sh checks the same against QEMU itself. */
#include "../../../traces/capture/qemu_env.h"

#include "cu_main.h"

#include <CUnit/Basic.h>
#include <glib.h>
#include <string.h>

/* QEMU's list: set NAME=VALUE (an entry without '=' is refused) */
static void list_set(GPtrArray *list, const char *entry)
{
    const char *eq = strchr(entry, '=');
    if (!eq)
        return;
    size_t n = (size_t)(eq - entry) + 1;
    for (guint i = 0; i < list->len; i++)
        if (strncmp(g_ptr_array_index(list, i), entry, n) == 0) {
            g_ptr_array_remove_index(list, i);
            break;
        }
    g_ptr_array_insert(list, 0, (gpointer)entry);
}

/* The guest's environment from the plan, "|"-joined */
static char *guest_env(const qemu_env_plan_t *p)
{
    GPtrArray *list = g_ptr_array_new();
    for (char **h = p->host; *h; h++)
        list_set(list, *h);
    for (size_t i = 0; i < p->nargs; i += 2) {
        CU_ASSERT_STRING_EQUAL(p->args[i], "-E");
        CU_ASSERT_PTR_NULL(strchr(p->args[i + 1], ','));
        CU_ASSERT_PTR_NOT_NULL(strchr(p->args[i + 1], '='));
        list_set(list, p->args[i + 1]);
    }
    g_ptr_array_add(list, NULL);
    char *s = g_strjoinv("|", (char **)list->pdata);
    g_ptr_array_free(list, TRUE);
    return s;
}

static void check(char *const *env, const char *want, guint nhost, const char *note)
{
    qemu_env_plan_t p;
    CU_ASSERT_EQUAL_FATAL(qemu_env_plan(env, &p), 0);
    char *got = guest_env(&p);
    CU_ASSERT_STRING_EQUAL(got, want);
    CU_ASSERT_EQUAL(g_strv_length(p.host), nhost);
    CU_ASSERT_PTR_NULL(p.args[p.nargs]);
    if (note) {
        CU_ASSERT_STRING_EQUAL(p.note ? p.note : "(none)", note);
    } else {
        CU_ASSERT_PTR_NULL(p.note);
    }
    for (char **h = p.host; *h; h++) /* QEMU's own: nothing it reads */
        CU_ASSERT_FALSE(qemu_env_host_reads(*h));
    g_free(got);
    qemu_env_plan_free(&p);
}

/* Exact: every entry by -E, QEMU's own environment empty; with commas
 * only at the end, those through QEMU's own environment, order kept. */
static void test_qemu_env_exact(void)
{
    char *none[] = {NULL};
    check(none, "", 0, NULL);
    check(NULL, "", 0, NULL);
    char *plain[] = {"A=1", "EQ=a=b==c", "NL=x\ny", "EMPTY=", "=nameless", "LD_PRELOAD=/l.so",
                     "QEMU_STRACE=1", "QEMU_SET_ENV=X=1", "B=2", NULL};
    check(plain, "A=1|EQ=a=b==c|NL=x\ny|EMPTY=|=nameless|LD_PRELOAD=/l.so|QEMU_STRACE=1|"
                 "QEMU_SET_ENV=X=1|B=2", 0, NULL);
    char *commas[] = {"A=1", "C=x,y", "D=2", "E,F=3", NULL};
    check(commas, "A=1|C=x,y|D=2|E,F=3", 3, NULL);
    char *clean[] = {"LC_ALL=C", "PATH=/usr/bin:/bin", NULL};
    check(clean, "LC_ALL=C|PATH=/usr/bin:/bin", 0, NULL);
}

/* What -E cannot carry: said in the note, the rest as derived by hand. */
static void test_qemu_env_lossy(void)
{
    char *noeq[] = {"A=1", "NOEQ", "B=2", NULL};
    check(noeq, "A=1|B=2", 0, "NOEQ: no '=': QEMU passes no such entry, left out");
    char *twice[] = {"D=1", "A=1", "D=2", NULL};
    check(twice, "D=1|A=1", 0, "D: set again: QEMU holds a name once, the first is kept");
    char *moved[] = {"A=1", "C=x,y", "LD_BIND_NOW=1", "MALLOC_X=1", "Z=2", NULL};
    check(moved, "A=1|LD_BIND_NOW=1|MALLOC_X=1|C=x,y|Z=2", 2,
          "LD_BIND_NOW: moved before the entries from the first one with a comma (QEMU's -E "
          "puts it first); MALLOC_X: moved before the entries from the first one with a comma "
          "(QEMU's -E puts it first)");
    char *lost[] = {"A=1", "G_DEBUG=a,b", "QEMU_LOG=in_asm", NULL};
    check(lost, "A=1|QEMU_LOG=in_asm", 0,
          "G_DEBUG: its entry has a comma (which QEMU's -E splits at) and the host QEMU "
          "process reads this name: left out");
}

/* The note stops at about 2,000 bytes with "; ...". */
static void test_qemu_env_note_bound(void)
{
    char *env[201];
    for (int i = 0; i < 200; i++)
        env[i] = g_strdup_printf("NOEQ%03d", i);
    env[200] = NULL;
    qemu_env_plan_t p;
    CU_ASSERT_EQUAL_FATAL(qemu_env_plan(env, &p), 0);
    CU_ASSERT_EQUAL(p.nargs, 0);
    CU_ASSERT_PTR_NOT_NULL_FATAL(p.note);
    size_t n = strlen(p.note);
    CU_ASSERT_TRUE(n >= 2000 && n < 2100);
    CU_ASSERT_TRUE(g_str_has_suffix(p.note, "; ..."));
    CU_ASSERT_PTR_NOT_NULL(strstr(p.note, "NOEQ000: no '='"));
    CU_ASSERT_PTR_NULL(strstr(p.note, "NOEQ199"));
    qemu_env_plan_free(&p);
    for (int i = 0; i < 200; i++)
        g_free(env[i]);
}

static void register_suites(void)
{
    CU_pSuite suite = CU_add_suite("qemu_env", NULL, NULL);
    CU_add_test(suite, "exact: -E last first, commas at the end through QEMU's own",
                test_qemu_env_exact);
    CU_add_test(suite, "what -E cannot carry: the note", test_qemu_env_lossy);
    CU_add_test(suite, "the note's bound", test_qemu_env_note_bound);
}
