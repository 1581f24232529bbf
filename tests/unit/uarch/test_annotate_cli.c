/* `pmusim trace annotate` and `trace gen` through the command: exit codes,
 * messages, the refusal to overwrite the input, and what the output holds.
 * Environment: PMUSIM_EXE (the command), PMUSIM_SOURCE_ROOT. */
#include "cu_main.h"
#include "pmusim/trace.h"

#include <glib/gstdio.h>
#include <string.h>

static const char *pmusim_path, *source_root;
static char *tmpdir;

/* Runs pmusim with `first` (if not NULL) and the arguments of `ap`
 * (NULL-terminated); returns the exit status, its standard output in *out
 * and its standard error in *err (each caller freed; NULL: not kept). */
static int spawn_pmusim(char **out, char **err, const char *first, va_list ap)
{
    GPtrArray *argv = g_ptr_array_new();
    g_ptr_array_add(argv, (gpointer)pmusim_path);
    if (first)
        g_ptr_array_add(argv, (gpointer)first);
    for (const char *a; (a = va_arg(ap, const char *));)
        g_ptr_array_add(argv, (gpointer)a);
    g_ptr_array_add(argv, NULL);
    int status = -1;
    GError *e = NULL;
    char *o = NULL;
    gboolean ok = g_spawn_sync(NULL, (char **)argv->pdata, NULL,
                               err ? G_SPAWN_DEFAULT : G_SPAWN_STDERR_TO_DEV_NULL, NULL, NULL, &o,
                               err, &status, &e);
    g_ptr_array_free(argv, TRUE);
    if (out)
        *out = o;
    else
        g_free(o);
    CU_ASSERT_TRUE_FATAL(ok);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* Runs pmusim with the NULL-terminated arguments; returns the exit status
 * and the standard error (caller frees). */
static int run_pmusim(char **err, ...)
{
    va_list ap;
    va_start(ap, err);
    const int status = spawn_pmusim(NULL, err, NULL, ap);
    va_end(ap);
    return status;
}

static char *sample(const char *name)
{
    return g_build_filename(source_root, "traces", "samples", name, NULL);
}

static char *tmp(const char *name)
{
    return g_build_filename(tmpdir, name, NULL);
}

static void test_bad_options_are_usage_errors(void)
{
    char *in = sample("wsm_loop.txt"), *out = tmp("o.txt"), *err = NULL;
    CU_ASSERT_EQUAL(run_pmusim(&err, "trace", "annotate", in, out, "--D1=1000,8,64", NULL), 2);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "--D1=1000,8,64"));
    g_free(err);
    CU_ASSERT_EQUAL(run_pmusim(&err, "trace", "annotate", in, out, "--LL=4096,1,0", NULL), 2);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "line size must be > 0"));
    g_free(err);
    /* knm has no intermediate level */
    CU_ASSERT_EQUAL(run_pmusim(&err, "trace", "annotate", in, out, "--cpu", "knm",
                               "--L2=65536,8,64", NULL), 2);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "use --LL"));
    g_free(err);
    char *ia64 = sample("ita2_loop.txt");
    CU_ASSERT_EQUAL(run_pmusim(&err, "trace", "annotate", ia64, out, "--cpu", "wsm", NULL), 2);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "cannot run on wsm"));
    g_free(err);
    CU_ASSERT_FALSE(g_file_test(out, G_FILE_TEST_EXISTS)); /* nothing was written */
    g_free(ia64);
    g_free(in);
    g_free(out);
}

static void test_input_is_never_the_output(void)
{
    char *in = sample("wsm_loop.txt"), *copy = tmp("same.txt"), *err = NULL, *before = NULL,
         *after = NULL;
    gsize n1, n2;
    CU_ASSERT_TRUE_FATAL(g_file_get_contents(in, &before, &n1, NULL));
    CU_ASSERT_TRUE_FATAL(g_file_set_contents(copy, before, (gssize)n1, NULL));
    CU_ASSERT_EQUAL(run_pmusim(&err, "trace", "annotate", copy, copy, NULL), 1);
    CU_ASSERT_TRUE_FATAL(g_file_get_contents(copy, &after, &n2, NULL));
    CU_ASSERT_TRUE(n1 == n2 && memcmp(before, after, n1) == 0);
    g_free(err);
    g_free(before);
    g_free(after);
    g_unlink(copy);
    g_free(copy);
    g_free(in);
}

/* The sample's instructions come out annotated for wsm_dp: same number of
 * INSN records, header naming the model and its annotations. */
static void test_annotate_sample(void)
{
    char *in = sample("wsm_loop.txt"), *out = tmp("a.txt"), *err = NULL;
    CU_ASSERT_EQUAL(run_pmusim(&err, "trace", "annotate", in, out, "--cpu", "wsm_dp", NULL), 0);
    g_free(err);
    uint64_t insns[2] = { 0, 0 };
    const char *paths[2] = { in, out };
    for (int k = 0; k < 2; k++) {
        GError *e = NULL;
        pmusim_trace_reader_t *r = pmusim_trace_reader_open(paths[k], &e);
        CU_ASSERT_PTR_NOT_NULL_FATAL(r);
        if (k == 1) {
            const pmusim_trace_header_t *h = pmusim_trace_reader_header(r);
            CU_ASSERT_EQUAL(h->cpu, PMUSIM_CPU_WSM_DP);
            uint32_t ann = pmusim_trace_header_annotations(h);
            CU_ASSERT_TRUE((ann & PMUSIM_ANN_LEVELS) && (ann & PMUSIM_ANN_TIMING) &&
                           (ann & PMUSIM_ANN_OFFCORE));
            CU_ASSERT_STRING_EQUAL(pmusim_trace_header_get_meta(h, "uarch.D1"), "32768,8,64");
        }
        pmusim_rec_t recs[256];
        gssize n;
        uint64_t last = 0;
        while ((n = pmusim_trace_reader_next_batch(r, recs, 256, &e)) > 0)
            for (gssize i = 0; i < n; i++) {
                insns[k] += recs[i].kind == PMUSIM_REC_INSN;
                CU_ASSERT_TRUE(recs[i].cycle >= last);
                last = recs[i].cycle;
            }
        CU_ASSERT_EQUAL(n, 0);
        pmusim_trace_reader_free(r);
    }
    CU_ASSERT_TRUE(insns[0] > 0);
    CU_ASSERT_EQUAL(insns[0], insns[1]);
    g_unlink(out);
    g_free(out);
    g_free(in);
}

/* Standard output of pmusim with the NULL-terminated arguments, which must
 * exit 0 (caller frees). */
static char *pmusim_stdout(const char *first, ...)
{
    char *out = NULL;
    va_list ap;
    va_start(ap, first);
    CU_ASSERT_EQUAL(spawn_pmusim(&out, NULL, first, ap), 0);
    va_end(ap);
    return out;
}

/* The allocation stalls of test_alloc_load_store_buffers (test_uarch.c,
 * where they are derived) through `trace annotate` and `stat` by name: 60
 * loads at one IP of one line after a first miss wait 290 cycles for a
 * load buffer entry (RESOURCE_STALLS:LOAD and ANY), the first fetch 301
 * (L1I:CYCLES_STALLED); the trace, without an annotations key, claims
 * rsdep (no instruction waits for a load's data), so the reservation
 * station is modelled and RS_FULL is 0 (the loads leave it the cycle
 * after allocation); with a key that does not claim rsdep it is not
 * modelled and RS_FULL is <not in trace>; on knm the trace's one fill is
 * 200 cycles of FETCH_STALL:ICACHE_FILL_PENDING_CYCLES. */
static void test_stall_events_by_name(void)
{
    char *in = tmp("loads.txt"), *out = tmp("loads.pmt"), *err = NULL;
    char *csv;
    for (int ann = 0; ann < 2; ann++) {
        GString *t = g_string_new("pmusim-trace 2\nisa x86_64\ncpu wsm\nthreads 1\nflags 0x0\n");
        if (ann)
            g_string_append(t, "meta annotations allmem,brkind\n");
        for (int k = 0; k < 60; k++)
            g_string_append_printf(
                t, "%d 0 insn ip=0x401000 len=4 plm=3 mem=ld addr=0x1000000 size=8\n", k);
        g_string_append(t, "end 60\n");
        CU_ASSERT_TRUE_FATAL(g_file_set_contents(in, t->str, (gssize)t->len, NULL));
        g_string_free(t, TRUE);
        CU_ASSERT_EQUAL(run_pmusim(&err, "trace", "annotate", in, out, "--cpu", "wsm", NULL), 0);
        g_free(err);
        csv = pmusim_stdout("stat", "-x,", "-e",
                            "RESOURCE_STALLS:LOAD,RESOURCE_STALLS:ANY,L1I:CYCLES_STALLED,"
                            "RESOURCE_STALLS:STORE",
                            out, NULL);
        CU_ASSERT_TRUE(g_str_has_prefix(csv, "290,,wsm::RESOURCE_STALLS:LOAD:k=1"));
        CU_ASSERT_PTR_NOT_NULL(strstr(csv, "\n290,,wsm::RESOURCE_STALLS:ANY:k=1"));
        CU_ASSERT_PTR_NOT_NULL(strstr(csv, "\n301,,wsm::L1I:CYCLES_STALLED:k=1"));
        CU_ASSERT_PTR_NOT_NULL(strstr(csv, "\n0,,wsm::RESOURCE_STALLS:STORE:k=1"));
        g_free(csv);
        /* on its own: the four events above take the four counters */
        csv = pmusim_stdout("stat", "-x,", "-e", "RESOURCE_STALLS:RS_FULL", out, NULL);
        CU_ASSERT_TRUE(g_str_has_prefix(csv, ann ? "<not in trace>,,wsm::RESOURCE_STALLS:RS_FULL:k=1"
                                                 : "0,,wsm::RESOURCE_STALLS:RS_FULL:k=1"));
        g_free(csv);
    }
    CU_ASSERT_EQUAL(run_pmusim(&err, "trace", "annotate", in, out, "--cpu", "knm", NULL), 0);
    g_free(err);
    csv = pmusim_stdout("stat", "-x,", "-e",
                        "FETCH_STALL:ICACHE_FILL_PENDING_CYCLES,BACLEARS:RETURN", out, NULL);
    CU_ASSERT_TRUE(g_str_has_prefix(csv, "200,,knm::FETCH_STALL:ICACHE_FILL_PENDING_CYCLES:k=1"));
    CU_ASSERT_PTR_NOT_NULL(strstr(csv, "\n0,,knm::BACLEARS:RETURN:k=1"));
    g_free(csv);
    g_unlink(in);
    g_unlink(out);
    g_free(in);
    g_free(out);
}

/* Reads a text trace's records of thread `th` and kind `kind` into cyc
 * (up to max); returns how many there were. */
static size_t cycles_of(const char *path, uint8_t th, unsigned kind, uint64_t *cyc, size_t max)
{
    GError *e = NULL;
    pmusim_trace_reader_t *r = pmusim_trace_reader_open(path, &e);
    CU_ASSERT_PTR_NOT_NULL_FATAL(r);
    pmusim_rec_t recs[256];
    gssize n;
    size_t k = 0;
    while ((n = pmusim_trace_reader_next_batch(r, recs, 256, &e)) > 0)
        for (gssize i = 0; i < n; i++)
            if (recs[i].thread == th && recs[i].kind == kind) {
                if (k < max)
                    cyc[k] = recs[i].cycle;
                k++;
            }
    CU_ASSERT_EQUAL(n, 0);
    pmusim_trace_reader_free(r);
    return k;
}

/* Text trace `text` written to `in`, annotated for wsm into `out`: thread
 * 0's two INSN records' cycles in insn[2], its two THREAD records' in
 * st[2] (each must have exactly two). */
static void annotate_thread0(const char *in, const char *out, const char *text, uint64_t insn[2],
                             uint64_t st[2])
{
    char *err = NULL;
    CU_ASSERT_TRUE_FATAL(g_file_set_contents(in, text, -1, NULL));
    CU_ASSERT_EQUAL(run_pmusim(&err, "trace", "annotate", in, out, "--cpu", "wsm", NULL), 0);
    g_free(err);
    CU_ASSERT_EQUAL_FATAL(cycles_of(out, 0, PMUSIM_REC_INSN, insn, 2), 2);
    CU_ASSERT_EQUAL_FATAL(cycles_of(out, 0, PMUSIM_REC_THREAD, st, 2), 2);
}

/* A thread's inactive stretch (THREAD records: a captured thread waiting in
 * a system call) keeps its place in the instruction stream: thread 1 runs
 * one instruction, sleeps while thread 0 runs 200, then runs one more.
 * Annotated, thread 1 wakes at thread 0's time after those 200 (the cycle
 * of its 200th INSN record: the next dispatch of a thread that retires an
 * instruction a cycle) and its instruction follows one cycle later; before,
 * the stretch was dropped and both instructions of thread 1 retired in one
 * cycle, ahead of thread 0's.  Alone (one thread, nobody to wake it), the
 * stretch lasts what it lasted in IN: 1,000 cycles. */
static void test_annotate_keeps_sleeps(void)
{
    char *in = tmp("sleep.txt"), *out = tmp("sleep.out.txt"), *err = NULL;
    GString *t = g_string_new("pmusim-trace 2\nisa x86_64\ncpu wsm\nthreads 2\nflags 0x0\n"
                              "0 1 insn ip=0x500000 len=2 plm=3\n"
                              "1 0 insn ip=0x401000 len=2 plm=3\n1 1 thread inactive\n");
    for (int k = 2; k <= 200; k++)
        g_string_append_printf(t, "%d 0 insn ip=0x401000 len=2 plm=3\n", k);
    g_string_append(t, "200 1 thread active\n201 1 insn ip=0x500002 len=2 plm=3\n");
    for (int k = 201; k < 400; k++)
        g_string_append_printf(t, "%d 0 insn ip=0x401000 len=2 plm=3\n", k);
    g_string_append(t, "end 403\n");
    CU_ASSERT_TRUE_FATAL(g_file_set_contents(in, t->str, (gssize)t->len, NULL));
    g_string_free(t, TRUE);
    uint64_t t0[400], t1[2], st[4];
    /* from the text trace (the record reader), then again from the binary
     * output of a first pass (the binary decoder's feed) */
    char *mid = tmp("sleep.pmt");
    for (int pass = 0; pass < 2; pass++) {
        CU_ASSERT_EQUAL(run_pmusim(&err, "trace", "annotate", pass ? mid : in, pass ? out : mid,
                                   "--cpu", "wsm", NULL),
                        0);
        g_free(err);
        const char *o = pass ? out : mid;
        CU_ASSERT_EQUAL_FATAL(cycles_of(o, 0, PMUSIM_REC_INSN, t0, 400), 399);
        CU_ASSERT_EQUAL_FATAL(cycles_of(o, 1, PMUSIM_REC_INSN, t1, 2), 2);
        CU_ASSERT_EQUAL_FATAL(cycles_of(o, 1, PMUSIM_REC_THREAD, st, 4), 2);
        CU_ASSERT_TRUE(st[0] > t1[0]);   /* inactive after its first instruction */
        CU_ASSERT_EQUAL(st[1], t0[199]); /* active at thread 0's time after 200 */
        CU_ASSERT_EQUAL(t1[1], st[1] + 1); /* its next instruction */
    }
    g_unlink(mid);
    g_free(mid);

    annotate_thread0(in, out, "pmusim-trace 2\nisa x86_64\ncpu wsm\nthreads 1\nflags 0x0\n"
                              "0 0 insn ip=0x500000 len=2 plm=3\n1 0 thread inactive\n"
                              "1001 0 thread active\n1002 0 insn ip=0x500002 len=2 plm=3\n"
                              "end 4\n",
                     t1, st);
    CU_ASSERT_EQUAL(st[1] - st[0], 1000);
    CU_ASSERT_EQUAL(t1[1], st[1] + 1);

    /* hand-written: inactive, then an instruction without THREAD active:
     * the instruction wakes it (the model takes none from a sleeper) */
    annotate_thread0(in, out, "pmusim-trace 2\nisa x86_64\ncpu wsm\nthreads 2\nflags 0x0\n"
                              "0 0 insn ip=0x500000 len=2 plm=3\n1 0 thread inactive\n"
                              "2 0 insn ip=0x500002 len=2 plm=3\n3 1 insn ip=0x600000 len=2 plm=3\n"
                              "end 4\n",
                     t1, st);
    CU_ASSERT_TRUE(st[0] < st[1] && st[1] < t1[1]);
    g_unlink(in);
    g_unlink(out);
    g_free(in);
    g_free(out);
}

/* issue 15: a trace no model of the CPU can replay is refused */
static void test_gen_refuses_thread_counts(void)
{
    char *out = tmp("g.pmt"), *err = NULL;
    CU_ASSERT_EQUAL(run_pmusim(&err, "trace", "gen", "--cpu", "wsm", "--threads", "3",
                               "--records", "10", out, NULL), 2);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "1..2 hardware threads"));
    g_free(err);
    CU_ASSERT_EQUAL(run_pmusim(&err, "trace", "gen", "--cpu", "ita2", "--threads", "2",
                               "--records", "10", out, NULL), 2);
    g_free(err);
    CU_ASSERT_EQUAL(run_pmusim(&err, "trace", "gen", "--cpu", "knm", "--threads", "4",
                               "--records", "10", out, NULL), 0);
    g_free(err);
    g_unlink(out);
    g_free(out);
}

/* The paths come from the environment the meson test sets (cu_main.h's
 * main() takes no arguments). */
static int annotate_cli_setup(void)
{
    pmusim_path = g_getenv("PMUSIM_EXE");
    source_root = g_getenv("PMUSIM_SOURCE_ROOT");
    tmpdir = g_dir_make_tmp("pmusim-annotate-XXXXXX", NULL);
    return pmusim_path && source_root && tmpdir ? 0 : 1;
}

static int annotate_cli_cleanup(void)
{
    if (tmpdir)
        g_rmdir(tmpdir);
    g_free(tmpdir);
    return 0;
}

static void register_suites(void)
{
    CU_pSuite s = CU_add_suite("annotate_cli", annotate_cli_setup, annotate_cli_cleanup);
    PMUSIM_ADD_TEST(s, test_bad_options_are_usage_errors);
    PMUSIM_ADD_TEST(s, test_input_is_never_the_output);
    PMUSIM_ADD_TEST(s, test_annotate_sample);
    PMUSIM_ADD_TEST(s, test_gen_refuses_thread_counts);
    PMUSIM_ADD_TEST(s, test_stall_events_by_name);
    PMUSIM_ADD_TEST(s, test_annotate_keeps_sleeps);
}
