/* Golden tests of the pmusim command: a manifest lists cases (name, expected
 * exit status, arguments); each case's stdout must equal expected/NAME.out,
 * and its stderr expected/NAME.err when that file exists (every case that
 * expects a failure has one: the message is part of the behaviour).
 *
 *   golden-cli PMUSIM MANIFEST SOURCE_ROOT [--regen]
 *
 * Commands run with SOURCE_ROOT as working directory, so arguments name
 * files relative to the project root.  --regen rewrites the expected files
 * (never run by CI; review the diff before committing). */
#include <CUnit/Basic.h>
#include <glib.h>
#include <stdio.h>
#include <string.h>

static const char *pmusim, *manifest, *root;
static gboolean regen;

typedef struct {
    char *name;
    int status;
    char *args;
    unsigned line;
} golden_case_t;

static GPtrArray *load_cases(void)
{
    char *text = NULL;
    GError *e = NULL;
    if (!g_file_get_contents(manifest, &text, NULL, &e)) {
        fprintf(stderr, "%s\n", e->message);
        return NULL;
    }
    GPtrArray *cases = g_ptr_array_new();
    char **lines = g_strsplit(text, "\n", -1);
    for (unsigned i = 0; lines[i]; i++) {
        char *l = g_strstrip(lines[i]);
        if (!*l || *l == '#')
            continue;
        char **f = g_strsplit(l, "|", 3);
        if (g_strv_length(f) != 3) {
            fprintf(stderr, "%s:%u: expected 'name | status | args'\n", manifest, i + 1);
            g_strfreev(f);
            continue;
        }
        golden_case_t *c = g_new0(golden_case_t, 1);
        c->name = g_strdup(g_strstrip(f[0]));
        c->status = atoi(g_strstrip(f[1]));
        c->args = g_strdup(g_strstrip(f[2]));
        c->line = i + 1;
        g_ptr_array_add(cases, c);
        g_strfreev(f);
    }
    g_strfreev(lines);
    g_free(text);
    return cases;
}

static void test_golden_cases(void)
{
    GPtrArray *cases = load_cases();
    CU_ASSERT_PTR_NOT_NULL_FATAL(cases);
    CU_ASSERT(cases->len > 0);
    char *dir = g_path_get_dirname(manifest);
    for (guint i = 0; i < cases->len; i++) {
        golden_case_t *c = g_ptr_array_index(cases, i);
        char **argv = NULL;
        GError *e = NULL;
        char *cmd = g_strdup_printf("'%s' %s", pmusim, c->args);
        if (!g_shell_parse_argv(cmd, NULL, &argv, &e)) {
            fprintf(stderr, "%s:%u: %s\n", manifest, c->line, e->message);
            CU_FAIL("bad manifest line");
            g_clear_error(&e);
            g_free(cmd);
            continue;
        }
        char *out = NULL, *err = NULL;
        int wait = 0;
        gboolean ran = g_spawn_sync(root, argv, NULL, G_SPAWN_DEFAULT, NULL, NULL, &out, &err,
                                    &wait, &e);
        CU_ASSERT_TRUE(ran);
        int status = ran && WIFEXITED(wait) ? WEXITSTATUS(wait) : -1;
        char *expected_path = g_strdup_printf("%s/expected/%s.out", dir, c->name);
        char *err_path = g_strdup_printf("%s/expected/%s.err", dir, c->name);
        if (regen) {
            g_file_set_contents(expected_path, out ? out : "", -1, NULL);
            if (c->status != 0 || g_file_test(err_path, G_FILE_TEST_EXISTS))
                g_file_set_contents(err_path, err ? err : "", -1, NULL);
        } else {
            char *expected = NULL, *expected_err = NULL;
            gboolean have = g_file_get_contents(expected_path, &expected, NULL, NULL);
            gboolean same = have && out && strcmp(expected, out) == 0;
            gboolean have_err = g_file_get_contents(err_path, &expected_err, NULL, NULL);
            gboolean same_err = !have_err || (err && strcmp(expected_err, err) == 0);
            if (status != c->status || !same || !same_err) {
                fprintf(stderr,
                        "\ngolden case '%s' (%s:%u): exit %d (expected %d), stdout %s %s, "
                        "stderr %s\n--- stderr:\n%s\n--- stdout:\n%s\n",
                        c->name, manifest, c->line, status, c->status,
                        have ? (same ? "matches" : "differs from") : "has no", expected_path,
                        have_err ? (same_err ? "matches" : "differs from its .err")
                                 : "not compared",
                        err ? err : "", out ? out : "");
            }
            CU_ASSERT_EQUAL(status, c->status);
            CU_ASSERT_TRUE(same);
            CU_ASSERT_TRUE(same_err);
            /* a failure case without its message on file tests only half of it */
            if (c->status != 0 && !have_err)
                fprintf(stderr, "golden case '%s': no %s (run --regen and review)\n", c->name,
                        err_path);
            CU_ASSERT_TRUE(c->status == 0 || have_err);
            g_free(expected);
            g_free(expected_err);
        }
        g_free(expected_path);
        g_free(err_path);
        g_free(out);
        g_free(err);
        g_strfreev(argv);
        g_free(cmd);
        g_clear_error(&e);
    }
    g_free(dir);
    for (guint i = 0; i < cases->len; i++) {
        golden_case_t *c = g_ptr_array_index(cases, i);
        g_free(c->name);
        g_free(c->args);
        g_free(c);
    }
    g_ptr_array_free(cases, TRUE);
}

int main(int argc, char **argv)
{
    if (argc < 4) {
        fprintf(stderr, "usage: %s PMUSIM MANIFEST SOURCE_ROOT [--regen]\n", argv[0]);
        return 2;
    }
    pmusim = argv[1];
    manifest = argv[2];
    root = argv[3];
    regen = argc > 4 && strcmp(argv[4], "--regen") == 0;
    if (CU_initialize_registry() != CUE_SUCCESS)
        return 2;
    CU_pSuite s = CU_add_suite("golden-cli", NULL, NULL);
    CU_add_test(s, "cases", test_golden_cases);
    CU_basic_set_mode(CU_BRM_VERBOSE);
    CU_basic_run_tests();
    unsigned failures = CU_get_number_of_failures();
    CU_cleanup_registry();
    return failures ? 1 : 0;
}
