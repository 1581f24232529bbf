/* Differential test of the x86 models' counting engine: random small traces
 * and random PERFEVTSEL / FIXED_CTR_CTRL programming, replayed through the
 * model and through a deliberately naive reference written here from the
 * rules of docs/sim-x86.md §3-4 (one loop iteration per cycle, no laziness,
 * no listener lists).  Counter values, wrap counts, overflow status and the
 * log (overflow / freeze / interrupt cycles) must agree exactly. */
#include <CUnit/CUnit.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "pmusim/sim.h"
#include "cu_main.h"

#define NGP_MAX 4
#define NCTR (NGP_MAX + 3)
#define NTH 4

typedef struct ref_ctr {
    bool gp, on;          /* gp: generic counter; on: programmed (local enable) */
    unsigned code, umask; /* generic: event */
    unsigned src;         /* 0 insn, 1 uops, 2 cycles, 3 explicit (0xa2/0x01) */
    unsigned plm_mask, cmask;
    bool inv, edge, any, intr;
    uint64_t value, max, wraps;
    uint64_t acc;
    bool prev;
} ref_ctr_t;

typedef struct ref {
    uint32_t nt, ngp, tpc;
    bool fuses; /* wsm, wsm_dp: a record of kind fused weighs one uop less */
    ref_ctr_t c[NTH][NCTR];
    uint64_t gctrl[NTH], status[NTH];
    bool freeze[NTH], active[NTH];
    unsigned plm[NTH];
    uint32_t pending;
    GString *log;
} ref_t;

static bool ref_enabled(const ref_t *r, uint32_t t, uint32_t s)
{
    const ref_ctr_t *c = &r->c[t][s];
    uint32_t bit = s < NGP_MAX ? s : 32 + (s - NGP_MAX);
    return c->on && c->plm_mask && ((r->gctrl[t] >> bit) & 1);
}

static void ref_add(ref_t *r, uint32_t t, uint32_t s, uint64_t n, uint64_t cycle)
{
    ref_ctr_t *c = &r->c[t][s];
    bool wrapped = false;
    while (n) {
        uint64_t room = c->max - c->value;
        if (n <= room) {
            c->value += n;
            break;
        }
        n -= room + 1;
        c->value = 0;
        c->wraps++;
        wrapped = true;
    }
    if (!wrapped)
        return;
    uint32_t bit = s < NGP_MAX ? s : 32 + (s - NGP_MAX);
    r->status[t] |= 1ull << bit;
    g_string_append_printf(r->log, "%" G_GUINT64_FORMAT " t%u ovf %u\n", cycle, t, bit);
    if (c->intr)
        r->pending |= 1u << t;
}

static void ref_pmis(ref_t *r, uint64_t cycle)
{
    for (uint32_t t = 0; t < r->nt; t++) {
        if (!(r->pending & (1u << t)))
            continue;
        if (r->freeze[t] && r->gctrl[t]) {
            r->gctrl[t] = 0;
            g_string_append_printf(r->log, "%" G_GUINT64_FORMAT " t%u freeze\n", cycle, t);
        }
        g_string_append_printf(r->log, "%" G_GUINT64_FORMAT " t%u pmi\n", cycle, t);
    }
    r->pending = 0;
    /* a disabled counter loses its edge history */
    for (uint32_t t = 0; t < r->nt; t++)
        for (uint32_t s = 0; s < NCTR; s++)
            if (!ref_enabled(r, t, s))
                r->c[t][s].prev = false;
}

static uint64_t ref_occ(const ref_ctr_t *c, const pmusim_rec_t *rec, bool r_fuses)
{
    if (rec->kind == PMUSIM_REC_INSN) {
        if (c->src == 0)
            return 1;
        if (c->src == 1) /* docs/trace-events-x86.md, "Macro-fusion" */
            return (rec->uops ? rec->uops : 1) -
                   (r_fuses && PMUSIM_REC_OPKIND(rec->flags) == PMUSIM_OPK_FUSED);
        return 0;
    }
    if (rec->kind == PMUSIM_REC_EVENT && c->src == 3 && rec->ev_code == 0xa2 &&
        rec->ev_umask == 0x01)
        return rec->n;
    return 0;
}

static bool ref_thresholded(const ref_ctr_t *c)
{
    return c->cmask || c->edge;
}

static void ref_record(ref_t *r, const pmusim_rec_t *rec)
{
    uint32_t t = rec->thread;
    if (rec->kind == PMUSIM_REC_INSN || rec->kind == PMUSIM_REC_IDLE)
        r->plm[t] = rec->plm & 3;
    if (rec->kind == PMUSIM_REC_THREAD)
        r->active[t] = rec->n != 0;
    unsigned plm = rec->plm & 3;
    uint32_t first = t - t % r->tpc;
    for (uint32_t o = first; o < first + r->tpc && o < r->nt; o++) {
        for (uint32_t s = 0; s < NCTR; s++) {
            ref_ctr_t *c = &r->c[o][s];
            if (!ref_enabled(r, o, s) || c->src == 2 || (o != t && !c->any))
                continue;
            if (!((c->plm_mask >> plm) & 1))
                continue;
            uint64_t n = ref_occ(c, rec, r->fuses);
            if (!n)
                continue;
            if (ref_thresholded(c))
                c->acc += n;
            else
                ref_add(r, o, s, n, rec->cycle);
        }
    }
    ref_pmis(r, rec->cycle);
}

static void ref_end_cycle(ref_t *r, uint64_t cycle)
{
    for (uint32_t t = 0; t < r->nt; t++) {
        uint32_t first = t - t % r->tpc;
        for (uint32_t s = 0; s < NCTR; s++) {
            ref_ctr_t *c = &r->c[t][s];
            uint64_t acc = c->acc;
            c->acc = 0;
            if (!ref_enabled(r, t, s))
                continue;
            /* cycles: 1 when the thread (AnyThread: some thread of the core)
             * is active at a counted level; thresholds are gated by the core
             * being powered (some thread active) and the privilege level */
            uint64_t cyc = 0;
            bool powered = false, plm_ok = false;
            for (uint32_t o = first; o < first + r->tpc && o < r->nt; o++) {
                powered |= r->active[o];
                if (o != t && !c->any)
                    continue;
                bool lvl = (c->plm_mask >> r->plm[o]) & 1;
                plm_ok |= lvl;
                cyc |= r->active[o] && lvl;
            }
            bool gate = powered && plm_ok;
            if (!ref_thresholded(c)) {
                if (c->src == 2)
                    ref_add(r, t, s, cyc, cycle);
                continue;
            }
            uint64_t v = c->src == 2 ? cyc : acc;
            bool cond = gate && (c->cmask == 0 ? v >= 1 : c->inv ? v < c->cmask : v >= c->cmask);
            bool inc = c->edge ? cond && !c->prev : cond;
            c->prev = cond;
            if (inc)
                ref_add(r, t, s, 1, cycle);
        }
    }
    ref_pmis(r, cycle);
}

/* ---- random programming and traces ---- */

static const unsigned ev_code[4] = {0xc0, 0xc2, 0x3c, 0xa2};
static const unsigned ev_umask_wsm[4] = {0x01, 0x01, 0x00, 0x01};
static const unsigned ev_umask_knm[4] = {0x00, 0x10, 0x00, 0x01};

static void wr(pmusim_model_t *m, uint32_t num, uint64_t v, uint32_t t)
{
    pmusim_regwrite_t w;
    memset(&w, 0, sizeof w);
    w.space = PMUSIM_REG_MSR;
    w.num = num;
    w.value = v;
    w.thread = t;
    GError *e = NULL;
    gboolean ok = m->ops->write_reg(m, &w, &e);
    CU_ASSERT_TRUE(ok);
    if (!ok)
        fprintf(stderr, "%s\n", e->message);
    g_clear_error(&e);
}

static int cmp_lines(const void *x, const void *y)
{
    return g_strcmp0(*(char *const *)x, *(char *const *)y);
}

/* own: every programmed general-purpose counter counts instructions or
 * uops, half of them with a threshold: its own thread's (DIFF_OWN), or
 * with AnyThread on one in four (DIFF_OWN_ANY) the core's; DIFF_OWN_TWO:
 * all of the thread's own with a threshold, no EDGE, at most two
 * thresholds per thread (1 and one of 2 or 3), the higher one on one
 * source only (x86_two_fits()); DIFF_ANY1: three in four AnyThread ones
 * of the run's threshold and source, no EDGE, the others unthresholded;
 * DIFF_ANYU: every general-purpose one AnyThread on uops, threshold 0-3,
 * INV and EDGE at random (the groups of x86_grps_build(), with and without
 * EDGE), or in one run in four threshold 2 on every one, no EDGE, at both
 * privilege levels (one group that every thread feeds: X86_HIST_GU1) */
enum { DIFF_ALL = 0, DIFF_OWN = 1, DIFF_OWN_ANY = 2, DIFF_OWN_TWO = 3, DIFF_ANY1 = 4,
       DIFF_ANYU = 5 };
/* DIFF_FUSED (or-ed into the mode): one INSN record in three is the first
 * of a macro-fused pair (kind fused, the trace claiming every annotation,
 * so "fuse" too), which weighs one uop less on wsm and as much on knm */
enum { DIFF_FUSED = 8 };
static void diff_one(const char *model, uint32_t nt, GRand *g, int iter, bool long_run, int mode)
{
    const int own = mode & ~DIFF_FUSED;
    const bool fused = mode & DIFF_FUSED;
    const bool knm = strcmp(model, "knm") == 0;
    ref_t r;
    memset(&r, 0, sizeof r);
    r.nt = nt;
    r.ngp = knm ? 2 : 4;
    r.tpc = knm ? 4 : 2;
    r.fuses = fused && !knm;
    r.log = g_string_new(NULL);
    uint64_t max = knm ? (1ull << 40) - 1 : (1ull << 48) - 1;
    GError *e = NULL;
    pmusim_model_t *m = pmusim_model_new(model, nt, &e);
    CU_ASSERT_PTR_NOT_NULL_FATAL(m);
    if (fused)
        m->trace_annotations = PMUSIM_ANN_ALL;
    /* DIFF_ANY1: the run's one threshold and source of its AnyThread counts */
    const unsigned a1_k = own == DIFF_ANY1 ? (unsigned)g_rand_int_range(g, 1, 4) : 0;
    const unsigned a1_src = own == DIFF_ANY1 ? (unsigned)g_rand_int_range(g, 0, 2) : 0;
    /* DIFF_ANYU: the runs of one group */
    const bool au_one = own == DIFF_ANYU && g_rand_int_range(g, 0, 4) == 0;

    for (uint32_t t = 0; t < nt; t++) {
        /* DIFF_OWN_TWO: the thread's higher threshold and its source (the
         * other modes draw nothing here, so their runs stay as they were) */
        const unsigned hi = own == DIFF_OWN_TWO ? (unsigned)g_rand_int_range(g, 2, 4) : 0;
        const unsigned hi_src = own == DIFF_OWN_TWO ? (unsigned)g_rand_int_range(g, 0, 2) : 0;
        r.active[t] = true;
        r.plm[t] = 3;
        r.freeze[t] = g_rand_boolean(g);
        if (r.freeze[t])
            wr(m, 0x1d9, 1ull << 12, t);
        uint64_t fixed_ctrl = 0;
        for (uint32_t s = 0; s < NCTR; s++) {
            ref_ctr_t *c = &r.c[t][s];
            c->max = max;
            c->gp = s < NGP_MAX;
            if (c->gp && s >= r.ngp)
                continue;
            c->on = g_rand_int_range(g, 0, 4) != 0;
            unsigned plm = (unsigned)g_rand_int_range(g, 1, 4); /* 1 os, 2 usr, 3 both */
            if (au_one && c->gp)
                plm = 3;
            c->plm_mask = ((plm & 1) ? 1u : 0u) | ((plm & 2) ? 0xeu : 0u);
            c->any = g_rand_int_range(g, 0, 4) == 0 &&
                     !((own == DIFF_OWN || own == DIFF_OWN_TWO) && c->gp);
            c->intr = g_rand_boolean(g);
            if (c->gp) {
                unsigned k = (unsigned)g_rand_int_range(g, 0, 4) & (own ? 1u : 3u);
                c->src = k;
                c->code = ev_code[k];
                c->umask = knm ? ev_umask_knm[k] : ev_umask_wsm[k];
                if (own == DIFF_ANY1) {
                    /* three in four: AnyThread, the run's threshold and
                     * source, INV or not, no EDGE; the others unthresholded */
                    c->any = g_rand_int_range(g, 0, 4) != 0;
                    if (c->any) {
                        c->src = a1_src;
                        c->code = ev_code[a1_src];
                        c->umask = knm ? ev_umask_knm[a1_src] : ev_umask_wsm[a1_src];
                        c->cmask = a1_k;
                        c->inv = g_rand_boolean(g);
                    }
                } else if (own == DIFF_ANYU) {
                    c->any = true;
                    c->src = 1;
                    c->code = ev_code[1];
                    c->umask = knm ? ev_umask_knm[1] : ev_umask_wsm[1];
                    c->cmask = au_one ? 2 : (unsigned)g_rand_int_range(g, 0, 4);
                    c->inv = g_rand_boolean(g);
                    c->edge = !au_one && g_rand_int_range(g, 0, 3) == 0;
                } else if (own == DIFF_OWN_TWO) {
                    const unsigned pick = (unsigned)g_rand_int_range(g, 0, k == hi_src ? 3 : 2);
                    c->cmask = pick == 2 ? hi : pick;
                    c->inv = g_rand_boolean(g);
                } else if (g_rand_boolean(g)) {
                    c->cmask = (unsigned)g_rand_int_range(g, 0, 4);
                    c->inv = g_rand_boolean(g);
                    c->edge = g_rand_int_range(g, 0, 3) == 0;
                }
                uint64_t sel = c->code | (c->umask << 8) | ((plm & 2) ? 1ull << 16 : 0) |
                               ((plm & 1) ? 1ull << 17 : 0) | (c->edge ? 1ull << 18 : 0) |
                               (c->intr ? 1ull << 20 : 0) | (c->any ? 1ull << 21 : 0) |
                               (c->on ? 1ull << 22 : 0) | (c->inv ? 1ull << 23 : 0) |
                               ((uint64_t)c->cmask << 24);
                wr(m, 0x186 + s, sel, t);
            } else {
                uint32_t k = s - NGP_MAX;
                c->src = k == 0 ? 0 : 2;
                uint64_t field = (c->on ? plm : 0) | (c->any ? 4u : 0) | (c->intr ? 8u : 0);
                if (!c->on)
                    c->plm_mask = 0;
                fixed_ctrl |= field << (4 * k);
            }
            /* start a few increments below the wrap */
            uint32_t k = (uint32_t)g_rand_int_range(g, 1, long_run ? 3000 : 40);
            c->value = max - k + 1;
            wr(m, c->gp ? 0xc1 + s : 0x309 + (s - NGP_MAX), ((uint64_t)0 - k) & max, t);
        }
        wr(m, 0x38d, fixed_ctrl, t);
        r.gctrl[t] = ((1ull << r.ngp) - 1) | (7ull << 32);
        if (g_rand_int_range(g, 0, 4) == 0)
            r.gctrl[t] &= ~(1ull << g_rand_int_range(g, 0, (gint32)r.ngp));
        wr(m, 0x38f, r.gctrl[t], t);
    }

    /* the trace */
    GArray *recs = g_array_new(FALSE, TRUE, sizeof(pmusim_rec_t));
    uint64_t cycle = 0, end = 0;
    int n = long_run ? g_rand_int_range(g, 1000, 4000) : g_rand_int_range(g, 20, 200);
    for (int i = 0; i < n; i++) {
        if (g_rand_int_range(g, 0, 3) == 0)
            cycle += (uint64_t)g_rand_int_range(g, 1, g_rand_boolean(g) ? 6 : 40);
        pmusim_rec_t rec;
        memset(&rec, 0, sizeof rec);
        rec.cycle = cycle;
        rec.thread = (uint8_t)g_rand_int_range(g, 0, (gint32)nt);
        rec.plm = g_rand_int_range(g, 0, 5) == 0 ? 0 : 3;
        rec.ip = 0x1000 + (uint64_t)i;
        rec.oc.snoop = PMUSIM_OFFCORE_NONE;
        int kind = g_rand_int_range(g, 0, 20);
        if (kind < 15) {
            rec.kind = PMUSIM_REC_INSN;
            rec.uops = (uint32_t)g_rand_int_range(g, 0, 4);
            if (fused && g_rand_int_range(g, 0, 3) == 0)
                rec.flags = (uint16_t)(PMUSIM_OPK_FUSED << PMUSIM_F_OPKIND_SHIFT);
        } else if (kind < 17) {
            rec.kind = PMUSIM_REC_EVENT;
            rec.ev_code = 0xa2;
            rec.ev_umask = 0x01;
            rec.n = (uint64_t)g_rand_int_range(g, 1, 4);
        } else if (kind < 19) {
            rec.kind = PMUSIM_REC_THREAD;
            rec.n = (uint64_t)g_rand_boolean(g);
        } else {
            rec.kind = PMUSIM_REC_IDLE;
            rec.n = (uint64_t)g_rand_int_range(g, 1, 60);
        }
        g_array_append_val(recs, rec);
        uint64_t e1 = rec.kind == PMUSIM_REC_IDLE ? cycle + rec.n : cycle + 1;
        if (e1 > end)
            end = e1;
    }

    /* reference: cycle by cycle */
    guint ri = 0;
    for (uint64_t c = 0; c < end; c++) {
        while (ri < recs->len && g_array_index(recs, pmusim_rec_t, ri).cycle == c)
            ref_record(&r, &g_array_index(recs, pmusim_rec_t, ri++));
        ref_end_cycle(&r, c);
    }

    /* model, in random batch sizes */
    for (guint i = 0; i < recs->len;) {
        guint k = (guint)g_rand_int_range(g, 1, long_run ? 700 : 40);
        if (k > recs->len - i)
            k = recs->len - i;
        m->ops->consume(m, &g_array_index(recs, pmusim_rec_t, i), k);
        i += k;
    }
    m->ops->finish(m);

    GString *got = g_string_new(NULL);
    for (guint i = 0; i < m->log->len; i++) {
        const pmusim_sim_event_t *ev = &g_array_index(m->log, pmusim_sim_event_t, i);
        unsigned idx;
        if (sscanf(ev->what, "IA32_PMC%u", &idx) == 1)
            g_string_append_printf(got, "%" G_GUINT64_FORMAT " t%u ovf %u\n", ev->cycle,
                                   ev->thread, idx);
        else if (sscanf(ev->what, "IA32_FIXED_CTR%u", &idx) == 1)
            g_string_append_printf(got, "%" G_GUINT64_FORMAT " t%u ovf %u\n", ev->cycle,
                                   ev->thread, 32 + idx);
        else if (strstr(ev->what, "freeze"))
            g_string_append_printf(got, "%" G_GUINT64_FORMAT " t%u freeze\n", ev->cycle,
                                   ev->thread);
        else if (strcmp(ev->what, "interrupt") == 0)
            g_string_append_printf(got, "%" G_GUINT64_FORMAT " t%u pmi\n", ev->cycle,
                                   ev->thread);
    }
    /* the model logs overflows of one batch in counter order, the reference
     * in its own order: compare as sorted line sets per cycle */
    char **a = g_strsplit(r.log->str, "\n", -1), **b = g_strsplit(got->str, "\n", -1);
    qsort(a, g_strv_length(a), sizeof *a, cmp_lines);
    qsort(b, g_strv_length(b), sizeof *b, cmp_lines);
    char *ja = g_strjoinv("\n", a), *jb = g_strjoinv("\n", b);
    bool same = strcmp(ja, jb) == 0;

    pmusim_report_t rep;
    pmusim_report_init(&rep);
    m->ops->report(m, &rep);
    for (guint i = 0; i < rep.counters->len; i++) {
        const pmusim_counter_result_t *k = &g_array_index(rep.counters, pmusim_counter_result_t, i);
        uint32_t s = strncmp(k->reg, "IA32_PMC", 8) == 0 ? (uint32_t)atoi(k->reg + 8)
                                                         : NGP_MAX + (uint32_t)atoi(k->reg + 14);
        const ref_ctr_t *c = &r.c[k->thread][s];
        if (k->value != c->value || k->overflows != c->wraps) {
            same = false;
            fprintf(stderr, "%s iter %d: t%u %s model %" G_GUINT64_FORMAT "/%" G_GUINT64_FORMAT
                    " reference %" G_GUINT64_FORMAT "/%" G_GUINT64_FORMAT
                    " (src %u cmask %u inv %d edge %d any %d)\n",
                    model, iter, k->thread, k->reg, k->value, k->overflows, c->value, c->wraps,
                    c->src, c->cmask, c->inv, c->edge, c->any);
        }
    }
    for (uint32_t t = 0; t < nt; t++) {
        uint64_t st = 0;
        CU_ASSERT_TRUE(m->ops->read_reg(m, PMUSIM_REG_MSR, 0x38e, t, &st));
        if (st != r.status[t]) {
            same = false;
            fprintf(stderr, "%s iter %d: t%u status 0x%" G_GINT64_MODIFIER "x vs 0x%" G_GINT64_MODIFIER "x\n",
                    model, iter, t, (guint64)st, (guint64)r.status[t]);
        }
    }
    if (strcmp(ja, jb) != 0)
        fprintf(stderr, "%s iter %d: log differs\nreference:\n%s\nmodel:\n%s\n", model, iter, ja,
                jb);
    CU_ASSERT_TRUE(same);
    pmusim_report_clear(&rep);
    g_free(ja);
    g_free(jb);
    g_strfreev(a);
    g_strfreev(b);
    g_string_free(got, TRUE);
    g_string_free(r.log, TRUE);
    g_array_free(recs, TRUE);
    pmusim_model_free(m);
}

static void test_diff_wsm(void)
{
    GRand *g = g_rand_new_with_seed(20261121);
    for (int i = 0; i < 400; i++)
        diff_one("wsm", 1 + (uint32_t)(i % 2), g, i, false, DIFF_ALL);
    g_rand_free(g);
}

static void test_diff_knm(void)
{
    GRand *g = g_rand_new_with_seed(133);
    for (int i = 0; i < 400; i++)
        diff_one("knm", 1 + (uint32_t)(i % 4), g, i, false, DIFF_ALL);
    g_rand_free(g);
}

/* n long runs (diff_one with long batches), alternately wsm with 1-2 threads
 * and knm with 1-4, from one seed. */
static void diff_runs(guint32 seed, int n, int mode)
{
    GRand *g = g_rand_new_with_seed(seed);
    for (int i = 0; i < n; i++)
        diff_one(i % 2 ? "knm" : "wsm", 1 + (uint32_t)(i % (i % 2 ? 4 : 2)), g, i, true, mode);
    g_rand_free(g);
}

/* Longer traces, counters further from a wrap and replay batches of up to
 * 700 records: the fast loop runs over many cycles (thresholded counts
 * from its per-cycle histograms, dispatched listeners, EVENT and IDLE
 * records inside the loop) between the wraps. */
static void test_diff_long(void)
{
    diff_runs(20261126, 60, DIFF_ALL);
}

/* As test_diff_long, with thresholded counts of each thread's own
 * instructions and uops on every counter it programs: the fast loop's
 * running counts (threshold 1 with and without EDGE, higher thresholds,
 * INV, several on one thread, closed gates at other privilege levels)
 * across its batches and wraps. */
static void test_diff_own(void)
{
    diff_runs(20261127, 60, DIFF_OWN);
}

/* As test_diff_own, with AnyThread on about one counter in four: the fast
 * loop's groups of running counts (x86_grps_build()) fed by several
 * threads, beside each thread's own thresholds, EDGE and INV. */
static void test_diff_own_any(void)
{
    diff_runs(20261128, 200, DIFF_OWN_ANY);
}

/* As test_diff_own, with every counter of a thread on its own instructions
 * or uops against threshold 1 or one higher threshold of one source, INV or
 * not, no EDGE: the X86_HIST_TWO running counts (two thresholds from one
 * occurrence count, x86_hist_flush2()) across batches and wraps. */
static void test_diff_own_two(void)
{
    diff_runs(20261129, 120, DIFF_OWN_TWO);
}

/* As test_diff_own_any, with every thresholded count an AnyThread one of
 * one threshold (1 to 3) and source per run, without EDGE: mostly one
 * group that every thread feeds (the X86_HIST_GEN1 and, with threshold 1,
 * X86_HIST_GK1 variants, whose flush counts the last cycle's occurrences
 * again), else the general groups (a thread at another privilege level). */
static void test_diff_any1(void)
{
    diff_runs(20261130, 160, DIFF_ANY1);
}

/* The modes above with one INSN record in three of kind fused
 * (DIFF_FUSED): on wsm the uop counts weigh it one less (a CMP of one uop
 * or of none: 0), directly and against thresholds, INV and EDGE, in every
 * set-up of the fast loop (its rare branch, x86_fast_fused(); thresholded
 * uop counts in running counts, x86_fast_hist_fused(), or as tgen
 * listeners; AnyThread ones in the running counts of groups,
 * x86_fast_grp_fused(), also in two-thread wsm runs of AnyThread uop
 * counts alone, DIFF_ANYU), on knm as much as any record. */
static void test_diff_fused(void)
{
    GRand *g = g_rand_new_with_seed(20261129);
    for (int i = 0; i < 200; i++)
        diff_one(i % 2 ? "knm" : "wsm", 1 + (uint32_t)(i % (i % 2 ? 4 : 2)), g, i, false,
                 DIFF_ALL | DIFF_FUSED);
    g_rand_free(g);
    diff_runs(20261201, 40, DIFF_ALL | DIFF_FUSED);
    diff_runs(20261202, 40, DIFF_OWN | DIFF_FUSED);
    diff_runs(20261203, 80, DIFF_OWN_ANY | DIFF_FUSED);
    diff_runs(20261204, 60, DIFF_OWN_TWO | DIFF_FUSED);
    diff_runs(20261205, 60, DIFF_ANY1 | DIFF_FUSED);
    /* AnyThread uop counts of two wsm threads (x86_fast_grp_fused()),
     * fused records on both */
    GRand *g2 = g_rand_new_with_seed(20261206);
    for (int i = 0; i < 160; i++)
        diff_one("wsm", 2, g2, i, true, DIFF_ANYU | DIFF_FUSED);
    g_rand_free(g2);
}

static void register_suites(void)
{
    CU_pSuite s = CU_add_suite("sim_x86_diff", NULL, NULL);
    PMUSIM_ADD_TEST(s, test_diff_wsm);
    PMUSIM_ADD_TEST(s, test_diff_knm);
    PMUSIM_ADD_TEST(s, test_diff_long);
    PMUSIM_ADD_TEST(s, test_diff_own);
    PMUSIM_ADD_TEST(s, test_diff_own_any);
    PMUSIM_ADD_TEST(s, test_diff_own_two);
    PMUSIM_ADD_TEST(s, test_diff_any1);
    PMUSIM_ADD_TEST(s, test_diff_fused);
}
