/* Golden test of `pmusim trace`: runs the built tool and checks exit codes
 * (0 ok, 1 failure, 2 usage), messages and the files it writes.
 * Arguments: PMUSIM_EXE SOURCE_ROOT. */
#include "cu_main.h"

#include <glib.h>
#include <glib/gstdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static const char *exe, *root;
static char *dir;

/* Runs `pmusim ARGS...` (NULL-terminated); returns the exit status. */
static int run(char **out, char **err, ...)
{
    GPtrArray *argv = g_ptr_array_new();
    g_ptr_array_add(argv, (gpointer)exe);
    va_list ap;
    va_start(ap, err);
    const char *a;
    while ((a = va_arg(ap, const char *)))
        g_ptr_array_add(argv, (gpointer)a);
    va_end(ap);
    g_ptr_array_add(argv, NULL);
    char *o = NULL, *e = NULL;
    int status = -1;
    GError *error = NULL;
    if (!g_spawn_sync(NULL, (char **)argv->pdata, NULL, G_SPAWN_DEFAULT, NULL, NULL, &o, &e,
                      &status, &error)) {
        fprintf(stderr, "cannot run %s: %s\n", exe, error->message);
        g_error_free(error);
    }
    g_ptr_array_free(argv, TRUE);
    int code = -1;
    if (status != -1 && WIFEXITED(status))
        code = WEXITSTATUS(status);
    if (out)
        *out = o;
    else
        g_free(o);
    if (err)
        *err = e;
    else
        g_free(e);
    return code;
}

static char *in_dir(const char *name)
{
    return g_build_filename(dir, name, NULL);
}

static void test_usage(void)
{
    char *err = NULL;
    CU_ASSERT_EQUAL(run(NULL, &err, "trace", NULL), 2);
    CU_ASSERT(err && strstr(err, "expected a subcommand"));
    g_free(err);
    CU_ASSERT_EQUAL(run(NULL, NULL, "trace", "bogus", NULL), 2);
    CU_ASSERT_EQUAL(run(NULL, NULL, "trace", "info", NULL), 2);
    CU_ASSERT_EQUAL(run(NULL, NULL, "trace", "gen", "--cpu", "p4", "--records", "10", "x", NULL), 2);
    CU_ASSERT_EQUAL(run(NULL, NULL, "trace", "gen", "--cpu", "wsm", "--records", "0", "x", NULL), 2);
    CU_ASSERT_EQUAL(run(NULL, NULL, "trace", "gen", "--cpu", "wsm", "--records", "10",
                        "--hit-ratio", "1.5", "x", NULL), 2);
    /* issue 15: a true message for a count that is given but not usable */
    CU_ASSERT_EQUAL(run(NULL, &err, "trace", "gen", "--cpu", "wsm", "--records", "1e20", "x",
                        NULL), 2);
    CU_ASSERT(err && strstr(err, "--records must be a whole number") && strstr(err, "'1e20'"));
    g_free(err);
    CU_ASSERT_EQUAL(run(NULL, &err, "trace", "gen", "--cpu", "wsm", "--records", "-1", "x",
                        NULL), 2);
    CU_ASSERT(err && strstr(err, "not '-1'"));
    g_free(err);
    CU_ASSERT_EQUAL(run(NULL, NULL, "trace", "convert", "a", "b", "--to", "xml", NULL), 2);
    CU_ASSERT_EQUAL(run(NULL, NULL, "trace", "convert", "a", "b", "--from", "pin", NULL), 2);
    char *out = NULL;
    CU_ASSERT_EQUAL(run(&out, NULL, "trace", "--help", NULL), 0);
    CU_ASSERT(out && strstr(out, "pmusim trace gen"));
    g_free(out);
}

static void test_gen_convert_dump(void)
{
    char *bin = in_dir("g.bin"), *txt = in_dir("g.txt"), *bin2 = in_dir("g2.bin");
    CU_ASSERT_EQUAL(run(NULL, NULL, "trace", "gen", "--cpu", "knm", "--workload", "mixed",
                        "--records", "3000", "--seed", "9", "--threads", "3", bin, NULL), 0);
    char *out = NULL;
    CU_ASSERT_EQUAL(run(&out, NULL, "trace", "info", bin, NULL), 0);
    CU_ASSERT(out && strstr(out, "(binary)") && strstr(out, "records: 3000\n") &&
              strstr(out, "cpu: knm\n") && strstr(out, "threads: 3\n") &&
              strstr(out, "meta seed: 9\n") && strstr(out, "symbols: 6\n"));
    g_free(out);
    CU_ASSERT_EQUAL(run(NULL, NULL, "trace", "convert", bin, txt, NULL), 0); /* .txt: text */
    CU_ASSERT_EQUAL(run(NULL, NULL, "trace", "convert", txt, bin2, NULL), 0);
    char *dump = NULL, *text = NULL;
    CU_ASSERT_EQUAL(run(&dump, NULL, "trace", "dump", bin2, NULL), 0);
    CU_ASSERT_FATAL(g_file_get_contents(txt, &text, NULL, NULL));
    CU_ASSERT(dump && g_str_has_prefix(text, "pmusim-trace 2\n") && strcmp(dump, text) == 0);
    g_free(dump);
    g_free(text);
    /* --to text overrides the extension */
    CU_ASSERT_EQUAL(run(NULL, NULL, "trace", "gen", "--cpu", "ita2", "--records", "10", "--to",
                        "text", bin2, NULL), 0);
    CU_ASSERT(g_file_get_contents(bin2, &text, NULL, NULL) &&
              g_str_has_prefix(text, "pmusim-trace 2\nisa ia64\n"));
    g_free(text);
    g_unlink(bin);
    g_unlink(txt);
    g_unlink(bin2);
    g_free(bin);
    g_free(txt);
    g_free(bin2);
}

static void test_failures(void)
{
    char *err = NULL;
    CU_ASSERT_EQUAL(run(NULL, &err, "trace", "info", "/nonexistent/t.bin", NULL), 1);
    CU_ASSERT(err && g_str_has_prefix(err, "pmusim: /nonexistent/t.bin: cannot open"));
    g_free(err);
    /* a truncated binary: exit 1, the message says where, and no output is left */
    char *bin = in_dir("t.bin"), *cut = in_dir("cut.bin"), *out = in_dir("cut.txt");
    CU_ASSERT_EQUAL(run(NULL, NULL, "trace", "gen", "--cpu", "wsm", "--workload", "stream",
                        "--records", "20000", bin, NULL), 0);
    char *data = NULL;
    gsize len = 0;
    CU_ASSERT_FATAL(g_file_get_contents(bin, &data, &len, NULL));
    CU_ASSERT_FATAL(g_file_set_contents(cut, data, (gssize)(len / 2), NULL));
    CU_ASSERT_EQUAL(run(NULL, &err, "trace", "convert", cut, out, NULL), 1);
    CU_ASSERT(err && strstr(err, "cut.bin: byte ") && strstr(err, "truncated"));
    CU_ASSERT_FALSE(g_file_test(out, G_FILE_TEST_EXISTS));
    g_free(err);
    g_free(data);
    g_unlink(bin);
    g_unlink(cut);
    g_free(bin);
    g_free(cut);
    g_free(out);
}

/* Issue 15 item 1: outputs never destroy inputs and appear whole or not at all. */
static void test_outputs_safe(void)
{
    char *txt = in_dir("keep.txt"), *lnk = in_dir("keep-link.txt"), *bad = in_dir("bad.pmt"),
         *prev = in_dir("prev.pmt");
    char *sample = g_build_filename(root, "traces", "samples", "wsm_loop.txt", NULL);
    char *orig = NULL, *now = NULL, *err = NULL;
    CU_ASSERT_FATAL(g_file_get_contents(sample, &orig, NULL, NULL));
    CU_ASSERT_FATAL(g_file_set_contents(txt, orig, -1, NULL));
    CU_ASSERT_FATAL(symlink(txt, lnk) == 0);
    /* convert X X, and X through a link: refused, X unchanged */
    CU_ASSERT_EQUAL(run(NULL, &err, "trace", "convert", txt, txt, NULL), 1);
    CU_ASSERT(err && strstr(err, "refusing to write the output over the input"));
    g_free(err);
    CU_ASSERT_EQUAL(run(NULL, NULL, "trace", "convert", txt, lnk, NULL), 1);
    CU_ASSERT_EQUAL(run(NULL, NULL, "trace", "convert", "--from", "lackey", txt, lnk, NULL), 1);
    CU_ASSERT(g_file_get_contents(txt, &now, NULL, NULL) && strcmp(now, orig) == 0);
    g_free(now);
    /* a corrupt input leaves an existing output as it was (and /dev/null exists) */
    CU_ASSERT_FATAL(g_file_set_contents(bad, "garbage\n", -1, NULL));
    CU_ASSERT_FATAL(g_file_set_contents(prev, "previous", -1, NULL));
    CU_ASSERT_EQUAL(run(NULL, NULL, "trace", "convert", bad, prev, NULL), 1);
    CU_ASSERT(g_file_get_contents(prev, &now, NULL, NULL) && strcmp(now, "previous") == 0);
    g_free(now);
    CU_ASSERT_EQUAL(run(NULL, NULL, "trace", "convert", bad, "/dev/null", NULL), 1);
    CU_ASSERT(g_file_test("/dev/null", G_FILE_TEST_EXISTS));
    /* a failed write is exit 1 with the reason, for files and for stdout */
    if (g_file_test("/dev/full", G_FILE_TEST_EXISTS)) {
        CU_ASSERT_EQUAL(run(NULL, &err, "trace", "convert", txt, "/dev/full", NULL), 1);
        CU_ASSERT(err && strstr(err, "/dev/full: write failed: "));
        g_free(err);
        char *cmd = g_strdup_printf("'%s' trace info '%s' > /dev/full", exe, txt);
        char *argv[] = { "/bin/sh", "-c", cmd, NULL };
        int status = -1;
        CU_ASSERT(g_spawn_sync(NULL, argv, NULL, G_SPAWN_DEFAULT, NULL, NULL, NULL, &err,
                               &status, NULL));
        CU_ASSERT(WIFEXITED(status) && WEXITSTATUS(status) == 1);
        CU_ASSERT(err && strstr(err, "pmusim: write error on standard output: "));
        g_free(err);
        g_free(cmd);
    }
    g_unlink(txt);
    g_unlink(lnk);
    g_unlink(bad);
    g_unlink(prev);
    g_free(txt);
    g_free(lnk);
    g_free(bad);
    g_free(prev);
    g_free(sample);
    g_free(orig);
}

/* trace info is exact at the top of the cycle range; --strict turns the
 * missing end line from a warning into an error */
static void test_info_edges(void)
{
    char *t = in_dir("top.txt"), *out = NULL, *err = NULL;
    CU_ASSERT_FATAL(g_file_set_contents(
        t, "pmusim-trace 2\ncpu wsm\n18446744073709551615 0 insn ip=0x1 len=1\n", -1, NULL));
    CU_ASSERT_EQUAL(run(&out, &err, "trace", "info", t, NULL), 0);
    CU_ASSERT(out && strstr(out, "cycles: 18446744073709551616 (span [0, 18446744073709551616))"));
    CU_ASSERT(err && strstr(err, "pmusim: warning: ") && strstr(err, "top.txt: line 3: ") &&
              strstr(err, "without its end line"));
    g_free(out);
    g_free(err);
    CU_ASSERT_EQUAL(run(&out, &err, "trace", "info", "--strict", t, NULL), 1);
    CU_ASSERT(err && strstr(err, "without its end line 'end COUNT' (truncated?)"));
    g_free(out);
    g_free(err);
    CU_ASSERT_FATAL(g_file_set_contents(t,
                                        "pmusim-trace 2\ncpu wsm\n"
                                        "18446744073709551614 0 idle n=1\nend 1\n",
                                        -1, NULL));
    CU_ASSERT_EQUAL(run(&out, &err, "trace", "info", "--strict", t, NULL), 0);
    CU_ASSERT(out && strstr(out, "cycles: 18446744073709551615 ("));
    CU_ASSERT(err && !*err);
    g_free(out);
    g_free(err);
    g_unlink(t);
    g_free(t);
}

static void test_samples_and_lackey(void)
{
    char *sample = g_build_filename(root, "traces", "samples", "wsm_loop.txt", NULL);
    char *out = NULL;
    CU_ASSERT_EQUAL(run(&out, NULL, "trace", "info", sample, NULL), 0);
    CU_ASSERT(out && strstr(out, "instructions thread 0: 200\n") &&
              strstr(out, "cycles: 200 (span [0, 200))\n") &&
              strstr(out, "loads: l1d=18 l2=0 l3=2 ") &&
              strstr(out, "branches: 20 (taken 19, mispredicted 1)\n") &&
              strstr(out, "offcore requests: 2\n") && strstr(out, "0x401000-0x401022 sum_loop"));
    g_free(out);
    char *log = g_build_filename(root, "tests", "unit", "trace", "data", "lackey_true.log", NULL);
    char *bin = in_dir("lk.bin");
    CU_ASSERT_EQUAL(run(NULL, NULL, "trace", "convert", "--from", "lackey", "--no-model", log, bin,
                        "--cpu", "wsm", NULL), 0);
    CU_ASSERT_EQUAL(run(&out, NULL, "trace", "info", bin, NULL), 0);
    /* 246 instructions + 7 MEM records (the stores of the 7 M lines) */
    CU_ASSERT(out && strstr(out, "records: 253\n") && strstr(out, "cpu: wsm\n") &&
              strstr(out, "  mem: 7\n") && strstr(out, "loads: l1d=36 ") &&
              strstr(out, "stores: l1d=39 ") && strstr(out, "meta annotations: allmem\n"));
    g_free(out);
    /* through the microarchitecture model (the default): same instructions
     * and accesses, levels and timing from the model */
    CU_ASSERT_EQUAL(run(NULL, NULL, "trace", "convert", "--from", "lackey", log, bin, "--cpu",
                        "wsm", "--D1=1024,2,64", NULL), 0);
    CU_ASSERT_EQUAL(run(&out, NULL, "trace", "info", bin, NULL), 0);
    CU_ASSERT(out && strstr(out, "instructions thread 0: 246\n") && strstr(out, "  mem: 7\n") &&
              strstr(out, "meta uarch.D1: 1024,2,64\n") &&
              strstr(out, "meta annotations: levels,tlb,pred,offcore,timing,events,allmem,lfb,stfwd\n"));
    g_free(out);
    CU_ASSERT_EQUAL(run(NULL, NULL, "trace", "convert", "--from", "lackey", log, bin, "--cpu",
                        "mont", NULL), 2);
    CU_ASSERT_EQUAL(run(NULL, NULL, "trace", "convert", "--from", "lackey", "--no-model",
                        "--D1=1024,2,64", log, bin, NULL), 2);
    g_unlink(bin);
    g_free(bin);
    g_free(log);
    g_free(sample);
}

static void register_suites(void)
{
    exe = g_getenv("PMUSIM_EXE");
    root = g_getenv("PMUSIM_SOURCE_ROOT");
    if (!exe || !root) {
        fprintf(stderr, "PMUSIM_EXE and PMUSIM_SOURCE_ROOT must be set\n");
        return;
    }
    dir = g_dir_make_tmp("pmusim-cli-XXXXXX", NULL);
    CU_pSuite s = CU_add_suite("trace-cli", NULL, NULL);
    PMUSIM_ADD_TEST(s, test_usage);
    PMUSIM_ADD_TEST(s, test_gen_convert_dump);
    PMUSIM_ADD_TEST(s, test_failures);
    PMUSIM_ADD_TEST(s, test_samples_and_lackey);
    PMUSIM_ADD_TEST(s, test_outputs_safe);
    PMUSIM_ADD_TEST(s, test_info_edges);
}
