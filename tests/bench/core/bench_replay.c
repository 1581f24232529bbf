/* Replay benchmark (not run by CI: `meson test -C build --benchmark`).
 *
 *   bench-replay [RECORDS] [DIR]
 *
 * For ita2 (4 counters), mont (12 counters) and wsm (4 generic + 3 fixed
 * counters) it generates a loop-like trace of RECORDS records (default 1e8)
 * into DIR (kept for the next run), then prints bytes/record, the bare decode
 * rate, the counting-replay rate, the replay/decode time ratio and the peak
 * resident memory (which must not grow with RECORDS). */
#include "pmusim/sim.h"
#include "pmusim/tracegen.h"

#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <string.h>
#include <sys/stat.h>
#include <glib/gstdio.h>

typedef struct {
    const char *cpu;
    const char *regs; /* register writes in the --regs text form */
} bench_case_t;

static const bench_case_t cases[] = {
    {"ita2",
     /* CPU_CYCLES, IA64_INST_RETIRED, NOPS_RETIRED, LOADS_RETIRED; all levels */
     "pmc4 0x122f\npmc5 0x082f\npmc6 0x502f\npmc7 0xcd2f\n"},
    {"mont",
     /* 12 counters: CPU_OP_CYCLES_ALL, IA64_INST_RETIRED, NOPS_RETIRED,
      * BR_MISPRED_DETAIL_ALL_ALL_PRED, BR_MISPRED_DETAIL_ALL_CORRECT_PRED,
      * L2D_MISSES, L3_MISSES, BACK_END_BUBBLE_ALL, PREDICATE_SQUASHED_RETIRED,
      * FP_OPS_RETIRED, L1I_READS, LOADS_RETIRED; ism=2 as the kernel forces */
     "pmc4 0x200122f\npmc5 0x200082f\npmc6 0x200502f\npmc7 0x2005b2f\n"
     "pmc8 0x2015b2f\npmc9 0x200cb2f\npmc10 0x200dc2f\npmc11 0x200002f\n"
     "pmc12 0x200512f\npmc13 0x200092f\npmc14 0x200402f\npmc15 0x200cd2f\n"},
    {"wsm",
     /* INST_RETIRED:ANY_P, UNHALTED_CORE_CYCLES, BR_INST_RETIRED:ALL_BRANCHES,
      * MEM_INST_RETIRED:LOADS on PMC0-3; the 3 fixed counters; all enabled */
     "IA32_PERFEVTSEL0 0x4301c0\nIA32_PERFEVTSEL1 0x43003c\n"
     "IA32_PERFEVTSEL2 0x4300c4\nIA32_PERFEVTSEL3 0x43010b\n"
     "IA32_FIXED_CTR_CTRL 0x333\nIA32_PERF_GLOBAL_CTRL 0x70000000f\n"},
};

static double now(void)
{
    return (double)g_get_monotonic_time() / 1e6;
}

static long peak_rss_kb(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return ru.ru_maxrss;
}

static gboolean ensure_trace(const char *cpu, uint64_t n, const char *path, GError **error)
{
    if (g_file_test(path, G_FILE_TEST_EXISTS))
        return TRUE;
    pmusim_gen_params_t p;
    pmusim_gen_params_init(&p, pmusim_cpu_from_name(cpu));
    p.workload = PMUSIM_GEN_LOOP;
    p.records = n;
    p.seed = 42;
    p.threads = 1;
    pmusim_trace_header_t h;
    if (!pmusim_gen_header(&p, &h, error))
        return FALSE;
    char *tmp = g_strconcat(path, ".part", NULL);
    double t0 = now();
    pmusim_trace_writer_t *w = pmusim_trace_writer_open(tmp, PMUSIM_TRACE_BINARY, &h, error);
    pmusim_trace_header_clear(&h);
    gboolean ok = w && pmusim_gen_run(&p, w, error);
    if (w)
        ok = pmusim_trace_writer_close(w, ok ? error : NULL) && ok;
    if (ok)
        ok = g_rename(tmp, path) == 0;
    printf("  generated %s in %.1f s\n", path, now() - t0);
    g_free(tmp);
    return ok;
}

static gboolean bench(const bench_case_t *c, uint64_t n, const char *dir)
{
    GError *e = NULL;
    char *path = g_strdup_printf("%s/bench-%s-%" G_GUINT64_FORMAT ".pmt", dir, c->cpu, (guint64)n);
    printf("%s:\n", c->cpu);
    if (!ensure_trace(c->cpu, n, path, &e))
        goto fail;
    GStatBuf st;
    g_stat(path, &st);

    /* bare decode */
    pmusim_trace_reader_t *r = pmusim_trace_reader_open(path, &e);
    if (!r)
        goto fail;
    pmusim_rec_t *batch = g_new(pmusim_rec_t, 1024);
    uint64_t got = 0;
    double t0 = now();
    for (;;) {
        gssize k = pmusim_trace_reader_next_batch(r, batch, 1024, &e);
        if (k < 0)
            goto fail;
        if (k == 0)
            break;
        got += (uint64_t)k;
    }
    double t_decode = now() - t0;
    pmusim_trace_reader_free(r);
    g_free(batch);

    /* counting replay */
    r = pmusim_trace_reader_open(path, &e);
    pmusim_model_t *m = r ? pmusim_model_new(c->cpu, 1, &e) : NULL;
    GArray *regs = pmusim_regs_new();
    if (!m || !pmusim_regs_parse(c->regs, strlen(c->regs), "bench", regs, &e) ||
        !pmusim_model_write_regs(m, regs, &e))
        goto fail;
    t0 = now();
    if (!pmusim_replay(m, r, NULL, NULL, &e))
        goto fail;
    double t_replay = now() - t0;
    pmusim_report_t rep;
    pmusim_report_init(&rep);
    pmusim_model_collect(m, &rep);
    uint64_t first = rep.counters->len ? g_array_index(rep.counters, pmusim_counter_result_t, 0).value : 0;
    pmusim_report_clear(&rep);
    pmusim_model_free(m);
    pmusim_trace_reader_free(r);
    g_array_free(regs, TRUE);

    printf("  records            %" G_GUINT64_FORMAT "\n", (guint64)got);
    printf("  bytes/record       %.5f\n", (double)st.st_size / (double)got);
    printf("  decode             %.1f M records/s\n", (double)got / t_decode / 1e6);
    printf("  counting replay    %.1f M records/s\n", (double)got / t_replay / 1e6);
    printf("  replay/decode time %.2f\n", t_replay / t_decode);
    printf("  first counter      %" G_GUINT64_FORMAT "\n", (guint64)first);
    printf("  peak RSS           %ld KiB\n", peak_rss_kb());
    g_free(path);
    return TRUE;
fail:
    fprintf(stderr, "bench-replay: %s: %s\n", c->cpu, e ? e->message : "failed");
    g_clear_error(&e);
    g_free(path);
    return FALSE;
}

int main(int argc, char **argv)
{
    uint64_t n = argc > 1 ? g_ascii_strtoull(argv[1], NULL, 0) : 100000000u;
    const char *dir = argc > 2 ? argv[2] : ".";
    if (n == 0) {
        fprintf(stderr, "usage: bench-replay [RECORDS] [DIR]\n");
        return 2;
    }
    int status = 0;
    for (size_t i = 0; i < G_N_ELEMENTS(cases); i++)
        if (!bench(&cases[i], n, dir))
            status = 1;
    return status;
}
