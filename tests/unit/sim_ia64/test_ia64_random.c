/* Randomised checks of the IA-64 counting machinery (signature cache,
 * bit-sliced deferred counts, exact closes) against a naive per-cycle
 * reference, and robustness against arbitrary registers and records.
 * Deterministic: fixed GLib random seeds. */
#include "cu_main.h"
#include "ia64_test.h"

/* The events the reference knows: es, maxincr, predicate. */
typedef struct {
    unsigned es, umask, maxincr;
} ref_event_t;

static const ref_event_t ref_events[] = {
    {0x08, 0, 6}, /* IA64_INST_RETIRED */
    {0xcd, 0, 4}, /* LOADS_RETIRED */
    {0xd1, 0, 2}, /* STORES_RETIRED */
    {0x50, 0, 6}, /* NOPS_RETIRED */
    {0xcb, 0, 1}, /* L2_MISSES */
    {0x5b, 0, 3}, /* BR_MISPRED_DETAIL_ALL_ALL_PRED */
};

static bool ref_occurs(unsigned ev, const pmusim_rec_t *r)
{
    bool mem = r->flags & PMUSIM_F_MEM;
    switch (ev) {
    case 0: return true;
    case 1: return mem && !r->mem.is_store;
    case 2: return mem && r->mem.is_store;
    case 3: return (r->flags & PMUSIM_F_NOP) != 0;
    case 4: return mem && r->mem.level >= PMUSIM_LVL_L3;
    default: return (r->flags & PMUSIM_F_BRANCH) != 0;
    }
}

typedef struct {
    unsigned ev, plm, thres;
    bool oi;
    uint64_t value, overflows;
    uint64_t first_ovf_cycle;
} ref_ctr_t;

static pmusim_rec_t random_rec(GRand *g, uint64_t cycle)
{
    pmusim_rec_t r = t_insn(cycle, g_rand_boolean(g) ? 3 : 0);
    if (g_rand_int_range(g, 0, 10) < 8)
        r.plm = 3;
    switch (g_rand_int_range(g, 0, 6)) {
    case 0:
    case 1:
        r.flags = PMUSIM_F_MEM;
        r.mem.is_store = g_rand_boolean(g);
        r.mem.level = (uint8_t)g_rand_int_range(g, 0, PMUSIM_LVL_LFB); /* IA-64 levels */
        r.mem.size = 8;
        r.mem.addr = 0x6000000000000000ull + 8 * (uint64_t)g_rand_int_range(g, 0, 1000);
        break;
    case 2:
        r.flags = PMUSIM_F_NOP;
        break;
    case 3:
        r.flags = PMUSIM_F_BRANCH;
        r.br.kind = (uint8_t)g_rand_int_range(g, 0, PMUSIM_BR_COUNT);
        r.br.taken = g_rand_boolean(g);
        r.br.dir_ok = g_rand_boolean(g);
        r.br.tgt_ok = 1;
        break;
    default:
        break;
    }
    return r;
}

static void run_one(GRand *g, unsigned round)
{
    /* configuration: 4 ita2 counters */
    ref_ctr_t rc[4];
    pmusim_model_t *m = t_model("ita2", 1);
    bool any_oi = false;
    for (unsigned k = 0; k < 4; k++) {
        ref_ctr_t *c = &rc[k];
        c->ev = (unsigned)g_rand_int_range(g, 0, G_N_ELEMENTS(ref_events));
        static const unsigned plms[] = {8, 9, 1, 15};
        c->plm = plms[g_rand_int_range(g, 0, 4)];
        c->thres = g_rand_int_range(g, 0, 3) == 0 ? (unsigned)g_rand_int_range(g, 1, 4) : 0;
        c->oi = g_rand_int_range(g, 0, 4) == 0;
        any_oi |= c->oi;
        c->value = g_rand_boolean(g) ? CTR_WRAP - (uint64_t)g_rand_int_range(g, 1, 3000)
                                     : (uint64_t)g_rand_int_range(g, 0, 1000);
        c->overflows = 0;
        c->first_ovf_cycle = UINT64_MAX;
        const ref_event_t *e = &ref_events[c->ev];
        uint64_t pmc = c->plm | (c->oi ? 0x20u : 0) | (uint64_t)e->es << 8 |
                       (uint64_t)e->umask << 16 | (uint64_t)c->thres << 20;
        PMC(m, 4 + k, pmc);
        PMD(m, 4 + k, c->value);
    }
    /* trace: random cycles, 0-8 records per cycle, sometimes 70 or 300 */
    size_t cap = 6000, n = 0;
    pmusim_rec_t *r = g_new(pmusim_rec_t, cap);
    uint64_t cycle = (uint64_t)g_rand_int_range(g, 0, 3);
    while (n < cap - 400) {
        int per = g_rand_int_range(g, 0, 9);
        int big = g_rand_int_range(g, 0, 200);
        if (big == 0)
            per = 70;
        else if (big == 1)
            per = 300;
        for (int k = 0; k < per; k++)
            r[n++] = random_rec(g, cycle);
        cycle += (uint64_t)g_rand_int_range(g, 1, 4);
    }
    /* reference: cycle by cycle */
    bool frozen = false;
    uint64_t freeze_at = UINT64_MAX;
    for (size_t i = 0; i < n;) {
        size_t j = i;
        uint64_t cyc = r[i].cycle;
        unsigned occ[4] = {0, 0, 0, 0};
        for (; j < n && r[j].cycle == cyc; j++)
            for (unsigned k = 0; k < 4; k++)
                if (((rc[k].plm >> r[j].plm) & 1) && ref_occurs(rc[k].ev, &r[j]))
                    occ[k]++;
        if (!frozen) {
            bool irq = false;
            for (unsigned k = 0; k < 4; k++) {
                unsigned x = occ[k];
                unsigned maxincr = ref_events[rc[k].ev].maxincr;
                if (x > maxincr)
                    x = maxincr;
                uint64_t add = rc[k].thres ? (x > rc[k].thres) : x;
                rc[k].value += add;
                if (rc[k].value >= CTR_WRAP) {
                    rc[k].value -= CTR_WRAP;
                    rc[k].overflows++;
                    if (rc[k].first_ovf_cycle == UINT64_MAX)
                        rc[k].first_ovf_cycle = cyc;
                    irq |= rc[k].oi;
                }
            }
            if (irq) {
                frozen = true;
                freeze_at = cyc;
            }
        }
        i = j;
    }
    /* model: in random batches, with reads in between */
    for (size_t i = 0; i < n;) {
        size_t len = (size_t)g_rand_int_range(g, 1, 700);
        if (len > n - i)
            len = n - i;
        m->ops->consume(m, r + i, len);
        i += len;
        uint64_t v;
        CU_ASSERT_TRUE(m->ops->read_reg(m, PMUSIM_REG_PMD, 4, 0, &v));
    }
    m->ops->finish(m);
    pmusim_report_t rep;
    pmusim_report_init(&rep);
    m->ops->report(m, &rep);
    for (unsigned k = 0; k < 4; k++) {
        const pmusim_counter_result_t *res = &g_array_index(rep.counters, pmusim_counter_result_t, k);
        if (res->value != rc[k].value || res->overflows != rc[k].overflows)
            fprintf(stderr, "round %u PMD%u ev %u plm %u thres %u oi %d: model %" G_GUINT64_FORMAT
                            "/%" G_GUINT64_FORMAT " reference %" G_GUINT64_FORMAT "/%"
                            G_GUINT64_FORMAT "\n",
                    round, 4 + k, rc[k].ev, rc[k].plm, rc[k].thres, rc[k].oi, res->value,
                    res->overflows, rc[k].value, rc[k].overflows);
        CU_ASSERT_EQUAL(res->value, rc[k].value);
        CU_ASSERT_EQUAL(res->overflows, rc[k].overflows);
        if (rc[k].first_ovf_cycle != UINT64_MAX) {
            char what[32];
            g_snprintf(what, sizeof what, "overflow PMD%u", 4 + k);
            CU_ASSERT_TRUE(t_log_count(m, rc[k].first_ovf_cycle, what) >= 1);
        }
    }
    CU_ASSERT_EQUAL(m->pmi_count, any_oi && frozen ? 1u : 0u);
    if (frozen)
        CU_ASSERT_EQUAL(t_log_count(m, freeze_at, "interrupt"), 1);
    pmusim_report_clear(&rep);
    g_free(r);
    pmusim_model_free(m);
}

static void test_against_reference(void)
{
    GRand *g = g_rand_new_with_seed(20261121);
    for (unsigned round = 0; round < 300; round++)
        run_one(g, round);
    g_rand_free(g);
}

/* Montecito, two threads: events of each thread type, the `all` bit,
 * thread switches, per-thread freeze and the lazy cycle counter. */
typedef struct {
    unsigned es, maxincr, caf; /* caf: 0 active, 1 floating, 2 causal (cycles) */
} mref_event_t;

static const mref_event_t mref_events[] = {
    {0x08, 6, 0}, /* IA64_INST_RETIRED */
    {0xcd, 4, 0}, /* LOADS_RETIRED */
    {0xd1, 2, 0}, /* STORES_RETIRED */
    {0xcb, 1, 1}, /* L2D_MISSES (floating) */
    {0x12, 1, 2}, /* CPU_OP_CYCLES_ALL (causal, every cycle) */
};

static bool mref_occurs(unsigned ev, const pmusim_rec_t *r)
{
    bool mem = r->flags & PMUSIM_F_MEM;
    switch (ev) {
    case 0: return true;
    case 1: return mem && !r->mem.is_store;
    case 2: return mem && r->mem.is_store;
    default: return mem && r->mem.level >= PMUSIM_LVL_L3;
    }
}

static void run_mont(GRand *g, unsigned round)
{
    pmusim_model_t *m = t_model("mont", 2);
    ref_ctr_t rc[2][4];
    bool all[2][4];
    for (unsigned t = 0; t < 2; t++)
        for (unsigned k = 0; k < 4; k++) {
            ref_ctr_t *c = &rc[t][k];
            c->ev = (unsigned)g_rand_int_range(g, 0, G_N_ELEMENTS(mref_events));
            static const unsigned plms[] = {8, 9, 1};
            c->plm = plms[g_rand_int_range(g, 0, 3)];
            c->thres = g_rand_int_range(g, 0, 4) == 0 ? 1 : 0;
            c->oi = g_rand_int_range(g, 0, 5) == 0;
            all[t][k] = g_rand_boolean(g);
            c->value = g_rand_boolean(g) ? CTR_WRAP - (uint64_t)g_rand_int_range(g, 1, 2000)
                                         : (uint64_t)g_rand_int_range(g, 0, 100);
            c->overflows = 0;
            c->first_ovf_cycle = UINT64_MAX;
            uint64_t pmc = 0x2000000 | c->plm | (c->oi ? 0x20u : 0) |
                           (uint64_t)mref_events[c->ev].es << 8 | (uint64_t)c->thres << 20 |
                           (all[t][k] ? 1ull << 26 : 0);
            t_write(m, PMUSIM_REG_PMC, 4 + k, pmc, t);
            t_write(m, PMUSIM_REG_PMD, 4 + k, c->value, t);
        }
    size_t cap = 3000, n = 0;
    pmusim_rec_t *r = g_new(pmusim_rec_t, cap);
    uint64_t cycle = (uint64_t)g_rand_int_range(g, 0, 4);
    while (n < cap - 20) {
        if (g_rand_int_range(g, 0, 30) == 0)
            r[n++] = t_thread(cycle, (uint8_t)g_rand_int_range(g, 0, 2), g_rand_boolean(g));
        int per = g_rand_int_range(g, 0, 7);
        for (int k = 0; k < per; k++) {
            r[n] = random_rec(g, cycle);
            r[n].thread = (uint8_t)g_rand_int_range(g, 0, 2);
            n++;
        }
        cycle += (uint64_t)g_rand_int_range(g, 1, 4);
    }
    uint64_t end = r[n - 1].cycle + 1;
    /* reference */
    bool active[2] = {true, true}, frozen[2] = {false, false};
    unsigned level[2] = {0, 0};
    size_t i = 0;
    for (uint64_t cyc = 0; cyc < end; cyc++) {
        unsigned occ[2][4];
        memset(occ, 0, sizeof occ);
        for (; i < n && r[i].cycle == cyc; i++) {
            const pmusim_rec_t *x = &r[i];
            unsigned t = x->thread;
            if (x->kind == PMUSIM_REC_THREAD) {
                active[t] = x->n != 0;
                continue;
            }
            level[t] = x->plm;
            for (unsigned u = 0; u < 2; u++)
                for (unsigned k = 0; k < 4; k++) {
                    const ref_ctr_t *c = &rc[u][k];
                    const mref_event_t *e = &mref_events[c->ev];
                    if (e->caf == 2 || frozen[u])
                        continue;
                    if (u != t && !all[u][k])
                        continue;
                    if (e->caf == 0 && !active[t])
                        continue;
                    if (((c->plm >> x->plm) & 1) && mref_occurs(c->ev, x))
                        occ[u][k]++;
                }
        }
        bool irq[2] = {false, false};
        for (unsigned u = 0; u < 2; u++) {
            if (frozen[u])
                continue;
            for (unsigned k = 0; k < 4; k++) {
                ref_ctr_t *c = &rc[u][k];
                const mref_event_t *e = &mref_events[c->ev];
                unsigned x = e->caf == 2 ? ((c->plm >> level[u]) & 1) : occ[u][k];
                if (x > e->maxincr)
                    x = e->maxincr;
                uint64_t add = c->thres ? (x > c->thres) : x;
                c->value += add;
                if (c->value >= CTR_WRAP) {
                    c->value -= CTR_WRAP;
                    c->overflows++;
                    if (c->first_ovf_cycle == UINT64_MAX)
                        c->first_ovf_cycle = cyc;
                    irq[u] |= c->oi;
                }
            }
        }
        for (unsigned u = 0; u < 2; u++)
            frozen[u] |= irq[u];
    }
    for (size_t b = 0; b < n;) {
        size_t len = (size_t)g_rand_int_range(g, 1, 500);
        if (len > n - b)
            len = n - b;
        m->ops->consume(m, r + b, len);
        b += len;
    }
    m->ops->finish(m);
    pmusim_report_t rep;
    pmusim_report_init(&rep);
    m->ops->report(m, &rep);
    for (unsigned t = 0; t < 2; t++)
        for (unsigned k = 0; k < 4; k++) {
            const pmusim_counter_result_t *res =
                &g_array_index(rep.counters, pmusim_counter_result_t, t * 12 + k);
            const ref_ctr_t *c = &rc[t][k];
            if (res->value != c->value || res->overflows != c->overflows)
                fprintf(stderr, "mont round %u thread %u PMD%u ev %u plm %u thres %u oi %d all %d: "
                                "model %" G_GUINT64_FORMAT "/%" G_GUINT64_FORMAT " reference %"
                                G_GUINT64_FORMAT "/%" G_GUINT64_FORMAT "\n",
                        round, t, 4 + k, c->ev, c->plm, c->thres, c->oi, all[t][k], res->value,
                        res->overflows, c->value, c->overflows);
            CU_ASSERT_EQUAL(res->value, c->value);
            CU_ASSERT_EQUAL(res->overflows, c->overflows);
        }
    pmusim_report_clear(&rep);
    g_free(r);
    pmusim_model_free(m);
}

static void test_mont_against_reference(void)
{
    GRand *g = g_rand_new_with_seed(9000);
    for (unsigned round = 0; round < 200; round++)
        run_mont(g, round);
    g_rand_free(g);
}

/* Arbitrary register writes and records: no crash, reads stay defined. */
static void test_garbage(void)
{
    GRand *g = g_rand_new_with_seed(7);
    const char *pmus[] = {"ita2", "mont"};
    for (unsigned round = 0; round < 60; round++) {
        const char *pmu = pmus[round & 1];
        uint32_t nth = round & 1 ? 2 : 1;
        pmusim_model_t *m = t_model(pmu, nth);
        for (int w = 0; w < 80; w++) {
            pmusim_regwrite_t rw;
            memset(&rw, 0, sizeof rw);
            rw.space = (pmusim_regspace_t)g_rand_int_range(g, 0, 5);
            rw.num = (uint32_t)g_rand_int_range(g, 0, 300);
            if (g_rand_boolean(g))
                rw.num &= 63;
            rw.value = ((uint64_t)g_rand_int(g) << 32) | g_rand_int(g);
            if (g_rand_boolean(g) && rw.space == PMUSIM_REG_PMC)
                rw.value &= 0xffffff; /* more plausible counter configs */
            rw.thread = (uint32_t)g_rand_int_range(g, 0, (gint32)nth);
            CU_ASSERT_TRUE(m->ops->write_reg(m, &rw, NULL));
        }
        pmusim_rec_t r[500];
        uint64_t cycle = 0;
        for (int k = 0; k < 500; k++) {
            memset(&r[k], 0, sizeof r[k]);
            r[k].cycle = cycle;
            cycle += (uint64_t)g_rand_int_range(g, 0, 3) * (g_rand_int_range(g, 0, 50) ? 1 : 100000);
            r[k].kind = (uint8_t)g_rand_int_range(g, 0, 7);
            r[k].thread = (uint8_t)g_rand_int_range(g, 0, 3);
            r[k].flags = (uint16_t)g_rand_int(g);
            r[k].plm = (uint8_t)g_rand_int_range(g, 0, 256);
            r[k].slot = (uint8_t)g_rand_int_range(g, 0, 256);
            r[k].unit = (uint8_t)g_rand_int_range(g, 0, 256);
            r[k].ip = ((uint64_t)g_rand_int(g) << 32) | g_rand_int(g);
            r[k].insn = ((uint64_t)g_rand_int(g) << 32) | g_rand_int(g);
            r[k].n = (uint64_t)g_rand_int_range(g, 0, 5000);
            r[k].ev_code = (uint16_t)g_rand_int_range(g, 0, 0x200);
            r[k].ev_umask = (uint16_t)g_rand_int(g);
            r[k].mem.addr = ((uint64_t)g_rand_int(g) << 32) | g_rand_int(g);
            r[k].mem.latency = g_rand_int(g);
            r[k].mem.size = (uint8_t)g_rand_int_range(g, 0, 256);
            r[k].mem.is_store = (uint8_t)g_rand_int_range(g, 0, 256);
            r[k].mem.level = (uint8_t)g_rand_int_range(g, 0, 256);
            r[k].mem.tlb = (uint8_t)g_rand_int_range(g, 0, 256);
            r[k].mem.alat = (uint8_t)g_rand_int_range(g, 0, 256);
            r[k].br.kind = (uint8_t)g_rand_int_range(g, 0, 256);
            r[k].br.taken = (uint8_t)g_rand_int_range(g, 0, 256);
            r[k].br.dir_ok = (uint8_t)g_rand_int_range(g, 0, 256);
            r[k].br.tgt_ok = (uint8_t)g_rand_int_range(g, 0, 256);
            r[k].br.detect = (uint8_t)g_rand_int_range(g, 0, 256);
            r[k].br.target = ((uint64_t)g_rand_int(g) << 32) | g_rand_int(g);
        }
        t_run(m, r, 500);
        for (uint32_t t = 0; t < nth; t++)
            for (uint32_t num = 0; num < 64; num++) {
                uint64_t v;
                uint32_t last_ctr = round & 1 ? 15 : 7;
                if (m->ops->read_reg(m, PMUSIM_REG_PMD, num, t, &v) && num >= 4 && num <= last_ctr) {
                    /* bits 63:47 read 0 */
                    CU_ASSERT_EQUAL(v >> 47, 0u);
                }
            }
        pmusim_report_t rep;
        pmusim_report_init(&rep);
        m->ops->report(m, &rep);
        pmusim_report_clear(&rep);
        pmusim_model_free(m);
    }
    g_rand_free(g);
}

static void register_suites(void)
{
    CU_pSuite s = CU_add_suite("ia64_random", NULL, NULL);
    PMUSIM_ADD_TEST(s, test_against_reference);
    PMUSIM_ADD_TEST(s, test_mont_against_reference);
    PMUSIM_ADD_TEST(s, test_garbage);
}
