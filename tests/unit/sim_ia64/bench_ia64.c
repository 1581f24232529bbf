/* In-memory replay benchmark of the IA-64 models (meson benchmark, never
 * run by CI): a loop-like instruction stream, generated batch by batch into
 * a 1024-record buffer (memory independent of trace length), replayed with
 * 4 counters (ita2) and 12 counters (mont).  Prints the model-only rate
 * (generation time subtracted) and the total rate, per CPU second.
 *
 * With a trace file it also times a bare decode of the trace (reader only)
 * against decode + replay with the same counters; memory stays constant.
 *
 * usage: bench_ia64 [records]        (default 50,000,000)
 *        bench_ia64 --trace FILE     (an ia64 trace, e.g. from `pmusim trace gen`)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "pmusim/sim.h"

#define BATCH 1024u
#define MONT_ISM 0x2000000ull

static pmusim_rec_t tmpl[8];

static void make_template(void)
{
    memset(tmpl, 0, sizeof tmpl);
    for (unsigned k = 0; k < 8; k++) {
        tmpl[k].kind = PMUSIM_REC_INSN;
        tmpl[k].plm = 3;
        tmpl[k].ip = 0x4000000000001000ull + 0x10 * (k / 3);
        tmpl[k].slot = (uint8_t)(k % 3);
        tmpl[k].unit = PMUSIM_UNIT_I;
    }
    tmpl[0].flags = PMUSIM_F_MEM; /* load, L1D hit */
    tmpl[0].unit = PMUSIM_UNIT_M;
    tmpl[0].mem.addr = 0x6000000000000000ull;
    tmpl[0].mem.size = 8;
    tmpl[0].mem.latency = 1;
    tmpl[3].flags = PMUSIM_F_MEM; /* store */
    tmpl[3].mem = tmpl[0].mem;
    tmpl[3].mem.is_store = 1;
    tmpl[4].flags = PMUSIM_F_MEM; /* load, L2 */
    tmpl[4].mem = tmpl[0].mem;
    tmpl[4].mem.level = PMUSIM_LVL_L2;
    tmpl[4].mem.latency = 6;
    tmpl[5].flags = PMUSIM_F_NOP;
    tmpl[7].flags = PMUSIM_F_BRANCH;
    tmpl[7].unit = PMUSIM_UNIT_B;
    tmpl[7].br.taken = 1;
    tmpl[7].br.dir_ok = 1;
    tmpl[7].br.tgt_ok = 1;
    tmpl[7].br.target = 0x4000000000001000ull;
}

/* Record i retires in cycle i/2 (two instructions per cycle). */
static void fill(pmusim_rec_t *buf, uint64_t first, size_t n)
{
    for (size_t k = 0; k < n; k++) {
        uint64_t i = first + k;
        buf[k] = tmpl[i & 7];
        buf[k].cycle = i >> 1;
    }
}

/* Thread CPU time: the rate stays meaningful on a loaded machine. */
static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static double run(const char *pmu, const uint64_t *pmcs, unsigned npmc, uint64_t nrec,
                  double *total_rate, uint64_t *check)
{
    GError *e = NULL;
    pmusim_model_t *m = pmusim_model_new(pmu, 1, &e);
    if (!m) {
        fprintf(stderr, "bench: %s\n", e->message);
        exit(1);
    }
    for (unsigned k = 0; k < npmc; k++) {
        pmusim_regwrite_t w = {.space = PMUSIM_REG_PMC, .num = 4 + k, .value = pmcs[k]};
        m->ops->write_reg(m, &w, NULL);
    }
    pmusim_rec_t *buf = g_new(pmusim_rec_t, BATCH);
    double t0 = now_s();
    for (uint64_t i = 0; i < nrec; i += BATCH) {
        size_t n = nrec - i < BATCH ? (size_t)(nrec - i) : BATCH;
        fill(buf, i, n);
        m->ops->consume(m, buf, n);
    }
    m->ops->finish(m);
    double t1 = now_s();
    for (uint64_t i = 0; i < nrec; i += BATCH) {
        size_t n = nrec - i < BATCH ? (size_t)(nrec - i) : BATCH;
        fill(buf, i, n);
        __asm__ volatile("" : : "r"(buf) : "memory");
    }
    double t2 = now_s();
    uint64_t v = 0;
    m->ops->read_reg(m, PMUSIM_REG_PMD, 5, 0, &v);
    *check = v;
    g_free(buf);
    pmusim_model_free(m);
    *total_rate = (double)nrec / (t1 - t0);
    double model = (t1 - t0) - (t2 - t1);
    return model > 0 ? (double)nrec / model : 0;
}

/* Decode FILE; with pmcs, also replay it into a fresh model.  Returns CPU
 * seconds and the record count. */
static double trace_pass(const char *path, const char *pmu, const uint64_t *pmcs, unsigned npmc,
                         uint64_t *nrec, uint64_t *check)
{
    GError *e = NULL;
    pmusim_trace_reader_t *r = pmusim_trace_reader_open(path, &e);
    if (!r) {
        fprintf(stderr, "bench: %s\n", e->message);
        exit(2);
    }
    pmusim_model_t *m = NULL;
    if (pmu) {
        m = pmusim_model_new(pmu, pmusim_trace_reader_header(r)->nthreads, &e);
        if (!m) {
            fprintf(stderr, "bench: %s\n", e->message);
            exit(2);
        }
        for (unsigned k = 0; k < npmc; k++) {
            pmusim_regwrite_t w = {.space = PMUSIM_REG_PMC, .num = 4 + k, .value = pmcs[k]};
            m->ops->write_reg(m, &w, NULL);
        }
    }
    pmusim_rec_t *buf = g_new(pmusim_rec_t, BATCH);
    uint64_t n = 0;
    double t0 = now_s();
    for (;;) {
        gssize got = pmusim_trace_reader_next_batch(r, buf, BATCH, &e);
        if (got < 0) {
            fprintf(stderr, "bench: %s\n", e->message);
            exit(2);
        }
        if (got == 0)
            break;
        if (m)
            m->ops->consume(m, buf, (size_t)got);
        n += (uint64_t)got;
    }
    if (m)
        m->ops->finish(m);
    double t = now_s() - t0;
    *nrec = n;
    *check = 0;
    if (m) {
        m->ops->read_reg(m, PMUSIM_REG_PMD, 5, 0, check);
        pmusim_model_free(m);
    }
    g_free(buf);
    pmusim_trace_reader_free(r);
    return t;
}

int main(int argc, char **argv)
{
    uint64_t nrec = argc > 1 ? strtoull(argv[1], NULL, 10) : 50000000ull;
    make_template();
    if (argc > 2 && strcmp(argv[1], "--trace") == 0) {
        const uint64_t ita2_t[] = {0x1228, 0x0828, 0xcd28, 0x5b28};
        uint64_t mont_t[12];
        const uint64_t mont_raw[] = {0x1228, 0x0828, 0xcd28, 0xd128, 0x5028, 0x5128,
                                     0x5b28, 0x35428, 0xcb28, 0xdb28, 0xc328, 0xc728};
        for (unsigned k = 0; k < 12; k++)
            mont_t[k] = mont_raw[k] | MONT_ISM;
        uint64_t n, check;
        double dec = trace_pass(argv[2], NULL, NULL, 0, &n, &check);
        printf("decode only: %.2f s CPU, %" G_GUINT64_FORMAT " records, %.1f M records/s\n", dec,
               n, (double)n / dec / 1e6);
        GError *e = NULL;
        pmusim_trace_reader_t *r = pmusim_trace_reader_open(argv[2], &e);
        uint32_t nth = r ? pmusim_trace_reader_header(r)->nthreads : 1;
        if (r)
            pmusim_trace_reader_free(r);
        g_clear_error(&e);
        if (nth == 1) {
            double t4 = trace_pass(argv[2], "ita2", ita2_t, 4, &n, &check);
            printf("decode + ita2, 4 counters: %.2f s CPU (%.2fx decode), IA64_INST_RETIRED = %"
                   G_GUINT64_FORMAT "\n", t4, t4 / dec,
                   (uint64_t)(check & ((UINT64_C(1) << 47) - 1)));
        }
        double t12 = trace_pass(argv[2], "mont", mont_t, 12, &n, &check);
        printf("decode + mont, 12 counters: %.2f s CPU (%.2fx decode), IA64_INST_RETIRED = %"
               G_GUINT64_FORMAT "\n", t12, t12 / dec, (uint64_t)(check & ((UINT64_C(1) << 47) - 1)));
        return 0;
    }
    /* CPU_CYCLES, IA64_INST_RETIRED, LOADS_RETIRED, BR_MISPRED_DETAIL_ALL_ALL_PRED */
    const uint64_t ita2[] = {0x1228, 0x0828, 0xcd28, 0x5b28};
    /* CPU_OP_CYCLES_ALL, IA64_INST_RETIRED, LOADS_RETIRED, STORES_RETIRED,
     * NOPS_RETIRED, PREDICATE_SQUASHED_RETIRED, BR_MISPRED_DETAIL,
     * BR_PATH_PRED_ALL_OKPRED_TAKEN, L2D_MISSES, L3_REFERENCES,
     * DATA_REFERENCES_SET0, L1D_READ_MISSES_ALL */
    const uint64_t mont[] = {0x1228, 0x0828, 0xcd28, 0xd128, 0x5028, 0x5128,
                             0x5b28, 0x35428, 0xcb28, 0xdb28, 0xc328, 0xc728};
    uint64_t mont_pmc[12];
    for (unsigned k = 0; k < 12; k++)
        mont_pmc[k] = mont[k] | MONT_ISM;
    double total, rate;
    uint64_t check;
    rate = run("ita2", ita2, 4, nrec, &total, &check);
    printf("ita2, 4 counters: %.1f M records/s (model only), %.1f M records/s with generation "
           "(IA64_INST_RETIRED = %" G_GUINT64_FORMAT ")\n", rate / 1e6, total / 1e6, check);
    int ok = check == nrec;
    rate = run("mont", mont_pmc, 12, nrec, &total, &check);
    printf("mont, 12 counters: %.1f M records/s (model only), %.1f M records/s with generation "
           "(IA64_INST_RETIRED = %" G_GUINT64_FORMAT ")\n", rate / 1e6, total / 1e6, check);
    ok &= check == nrec;
    return ok ? 0 : 1;
}
