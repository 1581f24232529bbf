/* In-memory replay benchmark of the x86 models (a meson benchmark, never run
 * by CI): a loop-like trace (16-instruction body, about 2 instructions per
 * cycle, loads and a loop branch) replayed with all 4 (knm: 2) generic and 3
 * fixed counters enabled.  Only the consume() calls are timed; shifting the
 * template's cycles between passes is not.
 *
 *     bench-sim-x86 [MODEL [MILLION_RECORDS [thresh]]]
 *
 * "thresh" adds CMASK/INV to two counters (the per-cycle path).  The rate is
 * computed from the process's CPU time, so that other load on a shared
 * machine distorts it less than wall time would. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "pmusim/sim.h"

#define TEMPLATE 65536u

static double cpu_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void wr(pmusim_model_t *m, uint32_t num, uint64_t v)
{
    pmusim_regwrite_t w;
    memset(&w, 0, sizeof w);
    w.space = PMUSIM_REG_MSR;
    w.num = num;
    w.value = v;
    GError *e = NULL;
    if (!m->ops->write_reg(m, &w, &e)) {
        fprintf(stderr, "bench-sim-x86: %s\n", e->message);
        exit(1);
    }
}

int main(int argc, char **argv)
{
    const char *model = argc > 1 ? argv[1] : "wsm";
    uint64_t million = argc > 2 ? strtoull(argv[2], NULL, 10) : 200;
    int thresh = argc > 3 && strcmp(argv[3], "thresh") == 0;
    GError *e = NULL;
    pmusim_model_t *m = pmusim_model_new(model, 1, &e);
    if (!m) {
        fprintf(stderr, "bench-sim-x86: %s\n", e->message);
        return 2;
    }
    const int knm = strcmp(model, "knm") == 0;
    const uint64_t en = (1ull << 22) | (3ull << 16);
    const uint64_t ev[4] = {0xc0 | (knm ? 0 : 0x100), 0x3c, 0xc4, knm ? 0x0204 : 0x02cb};
    uint32_t ngp = knm ? 2 : 4;
    for (uint32_t i = 0; i < ngp; i++)
        wr(m, 0x186 + i, ev[i] | en | (thresh && i < 2 ? (1ull << 24) | (1ull << 23) : 0));
    wr(m, 0x38d, 0x333);
    wr(m, 0x38f, ((1ull << ngp) - 1) | (7ull << 32));

    pmusim_rec_t *t = calloc(TEMPLATE, sizeof *t);
    for (uint32_t i = 0; i < TEMPLATE; i++) {
        pmusim_rec_t *r = &t[i];
        r->kind = PMUSIM_REC_INSN;
        r->cycle = i / 2;
        r->plm = 3;
        r->ip = 0x401000 + (i % 16) * 4;
        r->len = 4;
        r->uops = 1;
        r->oc.snoop = PMUSIM_OFFCORE_NONE;
        if (i % 16 == 3 || i % 16 == 9) {
            r->flags = PMUSIM_F_MEM;
            r->mem.addr = 0x800000 + (uint64_t)i * 8;
            r->mem.latency = 4;
            r->mem.level = (i % 64 == 3) ? PMUSIM_LVL_L2 : PMUSIM_LVL_L1D;
        }
        if (i % 16 == 15) {
            r->flags = PMUSIM_F_BRANCH;
            r->br.kind = PMUSIM_BR_COND;
            r->br.taken = 1;
            r->br.dir_ok = r->br.tgt_ok = 1;
            r->br.target = 0x401000;
        }
    }
    uint64_t total = million * 1000000ull, done = 0, span = TEMPLATE / 2;
    double secs = 0;
    while (done < total) {
        uint64_t n = total - done < TEMPLATE ? total - done : TEMPLATE;
        double t0 = cpu_seconds();
        m->ops->consume(m, t, n);
        secs += cpu_seconds() - t0;
        done += n;
        for (uint32_t i = 0; i < TEMPLATE; i++)
            t[i].cycle += span;
    }
    m->ops->finish(m);
    uint64_t v = 0;
    m->ops->read_reg(m, PMUSIM_REG_MSR, 0xc1, 0, &v);
    printf("%s%s: %" G_GUINT64_FORMAT " records in %.3f s CPU = %.1f M records/s (PMC0 = %" G_GUINT64_FORMAT
           ")\n",
           model, thresh ? " (thresholds)" : "", done, secs, (double)done / secs / 1e6, v);
    free(t);
    pmusim_model_free(m);
    return 0;
}
