/* Sampling benchmark (not run by CI: `meson test -C build --benchmark
 * sampling_vs_counting`).
 *
 *   bench-sampling [RECORDS] [DIR]
 *
 * For wsm and ita2 it generates a `mixed` trace of RECORDS records (default
 * 2e6) into DIR, then times a plain counting replay of two events against a
 * sampling replay of the same two events through the front door
 * (pmusim_frontdoor_replay, skid 1) at periods 10000 and 1000, best of 3
 * each, and prints the ratios.  Fails when sampling at period 10000 costs
 * more than 2x counting (issue 11, docs/SAMPLING.md "Performance"). */
#include "pmusim/frontdoor.h"
#include "pmusim/tracegen.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <glib/gstdio.h>

typedef struct {
    const char *cpu;
    const char *regs;
    uint32_t ctr[2]; /* the data registers to sample */
} bench_case_t;

static const bench_case_t cases[] = {
    /* INST_RETIRED:ANY_P on PMC0, UNHALTED_CORE_CYCLES on PMC1 */
    {"wsm", "IA32_PERFEVTSEL0 0x4300c0\nIA32_PERFEVTSEL1 0x43003c\nIA32_PERF_GLOBAL_CTRL 0x3\n",
     {0xc1, 0xc2}},
    /* IA64_INST_RETIRED on PMD4, CPU_CYCLES on PMD5 */
    {"ita2", "pmc4 0x082f\npmc5 0x122f\n", {4, 5}},
};

static double now(void)
{
    return (double)g_get_monotonic_time() / 1e6;
}

/* One replay of `path`: counting only (period 0) or sampling both counters
 * at `period`.  Returns the seconds taken, < 0 on error. */
static double run(const bench_case_t *c, const char *path, uint64_t period)
{
    GError *e = NULL;
    GArray *regs = pmusim_regs_new();
    pmusim_trace_reader_t *r = pmusim_trace_reader_open(path, &e);
    pmusim_model_t *m = r ? pmusim_model_new(c->cpu, 1, &e) : NULL;
    pmusim_frontdoor_t *fd = NULL;
    double t = -1;
    if (!m || !pmusim_regs_parse(c->regs, strlen(c->regs), "bench", regs, &e) ||
        !pmusim_model_write_regs(m, regs, &e))
        goto out;
    if (period) {
        fd = pmusim_frontdoor_new(m, &e);
        if (!fd || pmusim_frontdoor_add_sampling(fd, c->ctr[0], period, "a", &e) < 0 ||
            pmusim_frontdoor_add_sampling(fd, c->ctr[1], period, "b", &e) < 0 ||
            !pmusim_frontdoor_set_skid(fd, 1, &e) || !pmusim_frontdoor_start(fd, &e))
            goto out;
    }
    double t0 = now();
    gboolean ok = fd ? pmusim_frontdoor_replay(fd, r, NULL, NULL, &e)
                     : pmusim_replay(m, r, NULL, NULL, &e);
    if (ok)
        t = now() - t0;
out:
    if (e) {
        fprintf(stderr, "%s: %s\n", c->cpu, e->message);
        g_error_free(e);
    }
    pmusim_frontdoor_free(fd);
    pmusim_model_free(m);
    pmusim_trace_reader_free(r);
    g_array_free(regs, TRUE);
    return t;
}

static double best_of_3(const bench_case_t *c, const char *path, uint64_t period)
{
    double best = -1;
    for (int i = 0; i < 3; i++) {
        double t = run(c, path, period);
        if (t < 0)
            return -1;
        if (best < 0 || t < best)
            best = t;
    }
    return best;
}

int main(int argc, char **argv)
{
    uint64_t n = argc > 1 ? g_ascii_strtoull(argv[1], NULL, 10) : 2000000u;
    const char *dir = argc > 2 ? argv[2] : ".";
    int status = 0;
    for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
        const bench_case_t *c = &cases[i];
        char *path = g_strdup_printf("%s/bench-sampling-%s-%" G_GUINT64_FORMAT ".pmt", dir,
                                     c->cpu, (guint64)n);
        GError *e = NULL;
        if (!g_file_test(path, G_FILE_TEST_EXISTS)) {
            pmusim_gen_params_t p;
            pmusim_gen_params_init(&p, pmusim_cpu_from_name(c->cpu));
            p.workload = PMUSIM_GEN_MIXED;
            p.records = n;
            p.seed = 1;
            p.threads = 1;
            pmusim_trace_header_t h;
            pmusim_trace_writer_t *w = NULL;
            gboolean ok = pmusim_gen_header(&p, &h, &e) &&
                          (w = pmusim_trace_writer_open(path, PMUSIM_TRACE_BINARY, &h, &e)) &&
                          pmusim_gen_run(&p, w, &e);
            if (w)
                ok = pmusim_trace_writer_close(w, ok ? &e : NULL) && ok;
            pmusim_trace_header_clear(&h);
            if (!ok) {
                fprintf(stderr, "%s: %s\n", path, e ? e->message : "?");
                g_clear_error(&e);
                return 1;
            }
        }
        double count = best_of_3(c, path, 0), s10k = best_of_3(c, path, 10000),
               s1k = best_of_3(c, path, 1000);
        if (count <= 0 || s10k < 0 || s1k < 0)
            return 1;
        printf("%s, %" G_GUINT64_FORMAT " records: counting %.3f s, sampling -c 10000 %.3f s "
               "(%.2fx), -c 1000 %.3f s (%.2fx)\n",
               c->cpu, (guint64)n, count, s10k, s10k / count, s1k, s1k / count);
        if (s10k > 2 * count)
            status = 1;
        g_free(path);
    }
    return status;
}
