/* Unit tests of the Westmere / Westmere DP / Knights Mill PMU models: small
 * in-memory traces with hand-computed expectations (the arithmetic is in the
 * comments next to each expectation). */
#include <CUnit/CUnit.h>
#include <stdbool.h>
#include <string.h>

#include "pmusim/sim.h"
#include "cu_main.h"

/* ---- helpers ---- */

#define EN (1ull << 22)
#define INT (1ull << 20)
#define USR (1ull << 16)
#define OS (1ull << 17)
#define EDGE (1ull << 18)
#define ANY (1ull << 21)
#define INV (1ull << 23)
#define CMASK(c) ((uint64_t)(c) << 24)
#define EVT(code, umask) ((uint64_t)(code) | ((uint64_t)(umask) << 8))

enum {
    PMC0 = 0xc1,
    EVTSEL0 = 0x186,
    RSP0 = 0x1a6,
    RSP1 = 0x1a7,
    DEBUGCTL = 0x1d9,
    FIXED0 = 0x309,
    FIXED_CTRL = 0x38d,
    STATUS = 0x38e,
    GCTRL = 0x38f,
    OVF = 0x390,
    PEBS_EN = 0x3f1,
    LDLAT = 0x3f6,
};

static pmusim_model_t *mk(const char *name, uint32_t nthreads)
{
    GError *e = NULL;
    pmusim_model_t *m = pmusim_model_new(name, nthreads, &e);
    CU_ASSERT_PTR_NOT_NULL_FATAL(m);
    CU_ASSERT_PTR_NULL(e);
    return m;
}

static gboolean wr_try(pmusim_model_t *m, uint32_t num, uint64_t v, uint32_t t, GError **e)
{
    pmusim_regwrite_t w;
    memset(&w, 0, sizeof w);
    w.space = PMUSIM_REG_MSR;
    w.num = num;
    w.value = v;
    w.thread = t;
    g_snprintf(w.label, sizeof w.label, "msr%x", num);
    return m->ops->write_reg(m, &w, e);
}

static void wr(pmusim_model_t *m, uint32_t num, uint64_t v, uint32_t t)
{
    GError *e = NULL;
    gboolean ok = wr_try(m, num, v, t, &e);
    if (!ok)
        fprintf(stderr, "unexpected write failure: %s\n", e ? e->message : "?");
    CU_ASSERT_TRUE(ok);
    g_clear_error(&e);
}

static uint64_t rd(pmusim_model_t *m, uint32_t num, uint32_t t)
{
    uint64_t v = 0xdeadbeef;
    CU_ASSERT_TRUE(m->ops->read_reg(m, PMUSIM_REG_MSR, num, t, &v));
    return v;
}

/* IA32_PMC0-3 of thread 0 hold a, b, c, d. */
static void expect_pmcs(pmusim_model_t *m, uint64_t a, uint64_t b, uint64_t c, uint64_t d)
{
    CU_ASSERT_EQUAL(rd(m, PMC0 + 0, 0), a);
    CU_ASSERT_EQUAL(rd(m, PMC0 + 1, 0), b);
    CU_ASSERT_EQUAL(rd(m, PMC0 + 2, 0), c);
    CU_ASSERT_EQUAL(rd(m, PMC0 + 3, 0), d);
}

static pmusim_rec_t insn(uint64_t cycle, uint8_t thread, uint8_t plm)
{
    pmusim_rec_t r;
    memset(&r, 0, sizeof r);
    r.kind = PMUSIM_REC_INSN;
    r.cycle = cycle;
    r.thread = thread;
    r.plm = plm;
    r.ip = 0x400000 + cycle * 4;
    r.len = 4;
    r.oc.snoop = PMUSIM_OFFCORE_NONE;
    return r;
}

static pmusim_rec_t uops(uint64_t cycle, uint8_t thread, uint32_t n)
{
    pmusim_rec_t r = insn(cycle, thread, 3);
    r.uops = n;
    return r;
}

static pmusim_rec_t idle(uint64_t cycle, uint8_t thread, uint64_t n)
{
    pmusim_rec_t r = insn(cycle, thread, 3);
    r.kind = PMUSIM_REC_IDLE;
    r.n = n;
    return r;
}

static pmusim_rec_t thread_state(uint64_t cycle, uint8_t thread, int active)
{
    pmusim_rec_t r = insn(cycle, thread, 3);
    r.kind = PMUSIM_REC_THREAD;
    r.n = (uint64_t)active;
    return r;
}

static pmusim_rec_t load(uint64_t cycle, uint32_t latency, uint8_t level)
{
    pmusim_rec_t r = insn(cycle, 0, 3);
    r.flags = PMUSIM_F_MEM;
    r.mem.addr = 0x10000 + cycle * 64;
    r.mem.latency = latency;
    r.mem.size = 8;
    r.mem.level = level;
    return r;
}

static pmusim_rec_t offcore(uint64_t cycle, uint8_t thread, uint8_t req, uint8_t sup,
                            uint8_t snoop, uint32_t latency)
{
    pmusim_rec_t r = insn(cycle, thread, 3);
    r.flags = PMUSIM_F_OFFCORE;
    r.oc.req = req;
    r.oc.supplier = sup;
    r.oc.snoop = snoop;
    r.oc.latency = latency;
    return r;
}

static void run(pmusim_model_t *m, const pmusim_rec_t *recs, size_t n)
{
    m->ops->consume(m, recs, n);
    m->ops->finish(m);
}

static size_t log_count(pmusim_model_t *m, const char *needle, uint64_t cycle, uint32_t thread)
{
    size_t k = 0;
    for (guint i = 0; i < m->log->len; i++) {
        const pmusim_sim_event_t *ev = &g_array_index(m->log, pmusim_sim_event_t, i);
        if (strstr(ev->what, needle) && ev->cycle == cycle && ev->thread == thread)
            k++;
    }
    return k;
}

/* ---- stage 1: basic counting ---- */

static void test_inst_retired_usr_os(void)
{
    pmusim_model_t *m = mk("wsm", 1);
    wr(m, EVTSEL0 + 0, EVT(0xc0, 0x01) | EN | USR, 0);
    wr(m, EVTSEL0 + 1, EVT(0xc0, 0x01) | EN | OS, 0);
    wr(m, EVTSEL0 + 2, EVT(0xc0, 0x01) | EN | USR | OS, 0);
    wr(m, EVTSEL0 + 3, EVT(0xc0, 0x01) | USR | OS, 0); /* EN clear */
    pmusim_rec_t t[8];
    for (int i = 0; i < 8; i++)
        t[i] = insn((uint64_t)i, 0, i < 5 ? 3 : 0); /* 5 user, 3 kernel */
    t[6].plm = 1;                                    /* ring 1 counts as "user" (CPL != 0) */
    run(m, t, 8);
    CU_ASSERT_EQUAL(rd(m, PMC0 + 0, 0), 6);
    CU_ASSERT_EQUAL(rd(m, PMC0 + 1, 0), 2);
    CU_ASSERT_EQUAL(rd(m, PMC0 + 2, 0), 8);
    CU_ASSERT_EQUAL(rd(m, PMC0 + 3, 0), 0);
    pmusim_report_t rep;
    pmusim_report_init(&rep);
    m->ops->report(m, &rep);
    CU_ASSERT_EQUAL(rep.counters->len, 7); /* 4 GP + 3 fixed */
    pmusim_counter_result_t *c0 = &g_array_index(rep.counters, pmusim_counter_result_t, 0);
    CU_ASSERT_STRING_EQUAL(c0->reg, "IA32_PMC0");
    CU_ASSERT_STRING_EQUAL(c0->event, "msr186");
    CU_ASSERT_EQUAL(c0->value, 6);
    CU_ASSERT_TRUE(c0->enabled);
    pmusim_counter_result_t *c3 = &g_array_index(rep.counters, pmusim_counter_result_t, 3);
    CU_ASSERT_FALSE(c3->enabled);
    pmusim_counter_result_t *f1 = &g_array_index(rep.counters, pmusim_counter_result_t, 5);
    CU_ASSERT_STRING_EQUAL(f1->reg, "IA32_FIXED_CTR1");
    CU_ASSERT_EQUAL(rep.cycles, 8);
    CU_ASSERT_EQUAL(rep.records, 8);
    pmusim_report_clear(&rep);
    pmusim_model_free(m);
}

static void test_cycles_gp_and_fixed(void)
{
    pmusim_model_t *m = mk("wsm", 1);
    wr(m, EVTSEL0, EVT(0x3c, 0x00) | EN | USR | OS, 0);
    wr(m, EVTSEL0 + 1, EVT(0x3c, 0x00) | EN | USR, 0);
    wr(m, FIXED_CTRL, 0x333, 0); /* all three fixed counters, all rings */
    wr(m, GCTRL, 0xfull | (0x7ull << 32), 0);
    /* cycles 0..2 user, 3 kernel, idle user 4..9 (inactive 5..7), end = 10 */
    pmusim_rec_t t[] = {
        insn(0, 0, 3), insn(1, 0, 3), insn(1, 0, 3), insn(2, 0, 3), insn(3, 0, 0),
        idle(4, 0, 6), thread_state(5, 0, 0), thread_state(8, 0, 1),
    };
    run(m, t, G_N_ELEMENTS(t));
    /* active cycles: 0,1,2,3,4,8,9 = 7 */
    CU_ASSERT_EQUAL(rd(m, PMC0, 0), 7);
    /* user-only: cycle 3 is ring 0 -> 6 */
    CU_ASSERT_EQUAL(rd(m, PMC0 + 1, 0), 6);
    CU_ASSERT_EQUAL(rd(m, FIXED0 + 0, 0), 5); /* instructions */
    CU_ASSERT_EQUAL(rd(m, FIXED0 + 1, 0), 7); /* unhalted core cycles */
    CU_ASSERT_EQUAL(rd(m, FIXED0 + 2, 0), 7); /* reference cycles = core cycles */
    pmusim_model_free(m);
}

static void test_fixed_ctrl_fields(void)
{
    pmusim_model_t *m = mk("wsm", 1);
    /* ctr0 ring 0 only (EN=1), ctr1 user only (EN=2), ctr2 off */
    wr(m, FIXED_CTRL, 0x021, 0);
    wr(m, GCTRL, 0x7ull << 32, 0); /* GP counters globally disabled */
    wr(m, EVTSEL0, EVT(0xc0, 0x01) | EN | USR | OS, 0);
    pmusim_rec_t t[] = {insn(0, 0, 0), insn(1, 0, 0), insn(2, 0, 3), insn(3, 0, 3),
                        insn(4, 0, 3)};
    run(m, t, G_N_ELEMENTS(t));
    CU_ASSERT_EQUAL(rd(m, FIXED0 + 0, 0), 2); /* kernel instructions */
    CU_ASSERT_EQUAL(rd(m, FIXED0 + 1, 0), 3); /* user cycles 2,3,4 */
    CU_ASSERT_EQUAL(rd(m, FIXED0 + 2, 0), 0);
    CU_ASSERT_EQUAL(rd(m, PMC0, 0), 0); /* GLOBAL_CTRL.EN_PMC0 = 0 */
    pmusim_model_free(m);
}

static void test_global_ctrl_reset_and_toggle(void)
{
    pmusim_model_t *m = mk("wsm", 1);
    /* power-up: GP enables set, fixed clear */
    CU_ASSERT_EQUAL(rd(m, GCTRL, 0), 0xf);
    wr(m, EVTSEL0, EVT(0xc0, 0x01) | EN | USR | OS, 0);
    wr(m, FIXED_CTRL, 0x3, 0);
    pmusim_rec_t a[] = {insn(0, 0, 3), insn(1, 0, 3)};
    m->ops->consume(m, a, 2);
    wr(m, GCTRL, 0, 0); /* stop everything */
    pmusim_rec_t b[] = {insn(2, 0, 3), insn(3, 0, 3)};
    m->ops->consume(m, b, 2);
    wr(m, GCTRL, 0x1ull | (1ull << 32), 0);
    pmusim_rec_t c[] = {insn(4, 0, 3)};
    run(m, c, 1);
    CU_ASSERT_EQUAL(rd(m, PMC0, 0), 3);      /* 0,1,4 */
    CU_ASSERT_EQUAL(rd(m, FIXED0, 0), 1);    /* only cycle 4: fixed needs its global bit */
    pmusim_model_free(m);
}

static void assert_gp_fault(pmusim_model_t *m, uint32_t num, uint64_t v, const char *needle)
{
    GError *e = NULL;
    CU_ASSERT_FALSE(wr_try(m, num, v, 0, &e));
    CU_ASSERT_PTR_NOT_NULL_FATAL(e);
    CU_ASSERT_EQUAL(e->domain, PMUSIM_SIM_ERROR);
    CU_ASSERT_EQUAL(e->code, PMUSIM_SIM_ERROR_REG);
    CU_ASSERT_PTR_NOT_NULL(strstr(e->message, needle));
    if (!strstr(e->message, needle))
        fprintf(stderr, "message '%s' lacks '%s'\n", e->message, needle);
    g_error_free(e);
}

static void test_reserved_bits_gp(void)
{
    pmusim_model_t *w = mk("wsm", 2);
    assert_gp_fault(w, EVTSEL0, 1ull << 32, "IA32_PERFEVTSEL0 (0x186): writing 0x100000000 sets reserved bits 0x100000000");
    assert_gp_fault(w, FIXED_CTRL, 1ull << 12, "reserved bits 0x1000");
    assert_gp_fault(w, GCTRL, 1ull << 4, "reserved bits 0x10");
    assert_gp_fault(w, GCTRL, 1ull << 35, "reserved bits");
    assert_gp_fault(w, OVF, 1ull << 40, "reserved bits");
    assert_gp_fault(w, STATUS, 0, "read-only");
    assert_gp_fault(w, RSP0, 1ull << 16, "MSR_OFFCORE_RSP_0 (0x1a6)");
    assert_gp_fault(w, PEBS_EN, 1ull << 4, "reserved bits 0x10");
    assert_gp_fault(w, LDLAT, 1ull << 16, "MSR_PEBS_LD_LAT_THRESHOLD");
    assert_gp_fault(w, 0x123, 0, "MSR 0x123: MSR not implemented");
    assert_gp_fault(w, DEBUGCTL, 1ull << 20, "IA32_DEBUGCTL");
    /* a refused write leaves the register as it was */
    CU_ASSERT_EQUAL(rd(w, EVTSEL0, 0), 0);
    CU_ASSERT_EQUAL(rd(w, GCTRL, 0), 0xf);
    /* OVF_CTRL accepts the OvfBuf/CondChgd bits */
    wr(w, OVF, (1ull << 62) | (1ull << 63) | 0xf | (0x7ull << 32), 0);
    pmusim_model_free(w);

    pmusim_model_t *k = mk("knm", 4);
    assert_gp_fault(k, PMC0 + 2, 0, "MSR not implemented");     /* only 2 GP counters */
    assert_gp_fault(k, EVTSEL0 + 2, 0, "MSR not implemented");
    assert_gp_fault(k, GCTRL, 0x4, "reserved bits 0x4");
    assert_gp_fault(k, LDLAT, 3, "MSR not implemented");        /* no load latency */
    assert_gp_fault(k, RSP1, 1ull << 38, "reserved bits 0x4000000000"); /* OUTSTANDING: RSP_0 only */
    assert_gp_fault(k, RSP0, 1ull << 8, "reserved bits 0x100");  /* PARTIAL_WRITES: RSP_1 only */
    assert_gp_fault(k, PEBS_EN, 0x2, "reserved bits 0x2");      /* PEBS on PMC0 only */
    wr(k, RSP0, (1ull << 38) | 1, 3);
    wr(k, RSP1, (1ull << 8) | (1ull << 16), 3);
    CU_ASSERT_EQUAL(rd(k, GCTRL, 0), 0x3);
    pmusim_model_free(k);

    /* non-MSR spaces do not exist */
    pmusim_model_t *d = mk("wsm_dp", 1);
    pmusim_regwrite_t pw;
    memset(&pw, 0, sizeof pw);
    pw.space = PMUSIM_REG_PMC;
    pw.num = 4;
    GError *e = NULL;
    CU_ASSERT_FALSE(d->ops->write_reg(d, &pw, &e));
    CU_ASSERT_PTR_NOT_NULL(e);
    g_clear_error(&e);
    pmusim_model_free(d);
}

static void test_counter_write_sign_extension(void)
{
    pmusim_model_t *m = mk("wsm", 1);
    wr(m, PMC0, 0x80000000ull, 0);
    CU_ASSERT_EQUAL(rd(m, PMC0, 0), 0xffff80000000ull); /* 48 bits */
    wr(m, PMC0, 0x7fffffffull, 0);
    CU_ASSERT_EQUAL(rd(m, PMC0, 0), 0x7fffffffull);
    /* fixed counters are written at full width (SDM §18.2.2): no sign
     * extension from bit 31; bits beyond the width are reserved (#GP) */
    wr(m, FIXED0 + 1, 0xfffffff0ull, 0);
    CU_ASSERT_EQUAL(rd(m, FIXED0 + 1, 0), 0xfffffff0ull);
    wr(m, FIXED0 + 2, 0xfffffffffff0ull, 0);
    CU_ASSERT_EQUAL(rd(m, FIXED0 + 2, 0), 0xfffffffffff0ull);
    GError *err = NULL;
    CU_ASSERT_FALSE(wr_try(m, FIXED0 + 2, 0x1000000000000ull, 0, &err));
    CU_ASSERT_TRUE(g_error_matches(err, PMUSIM_SIM_ERROR, PMUSIM_SIM_ERROR_REG));
    g_clear_error(&err);
    CU_ASSERT_EQUAL(rd(m, FIXED0 + 2, 0), 0xfffffffffff0ull); /* unchanged */
    /* upper bits are not loaded: diagnosed */
    guint nd = m->diags->len;
    wr(m, PMC0 + 1, 0x1200000005ull, 0);
    CU_ASSERT_EQUAL(rd(m, PMC0 + 1, 0), 5);
    CU_ASSERT_EQUAL(m->diags->len, nd + 1);
    pmusim_model_free(m);

    pmusim_model_t *k = mk("knm", 1);
    wr(k, PMC0, 0xfffffffeull, 0);
    CU_ASSERT_EQUAL(rd(k, PMC0, 0), 0xfffffffffeull); /* 40 bits */
    pmusim_model_free(k);
}

/* ---- stage 2: overflow, PMI, freeze ---- */

static void test_overflow_wrap_status_clear(void)
{
    pmusim_model_t *m = mk("wsm", 1);
    wr(m, EVTSEL0, EVT(0xc0, 0x01) | EN | USR | OS | INT, 0);
    wr(m, PMC0, (uint64_t)-3, 0); /* 2^48 - 3 */
    pmusim_rec_t t[5];
    for (int i = 0; i < 5; i++)
        t[i] = insn((uint64_t)(10 + i), 0, 3);
    run(m, t, 5);
    /* -3 + 5 = 2 after one wrap at the third record (cycle 12) */
    CU_ASSERT_EQUAL(rd(m, PMC0, 0), 2);
    CU_ASSERT_EQUAL(rd(m, STATUS, 0), 0x1);
    CU_ASSERT_EQUAL(log_count(m, "IA32_PMC0 overflow", 12, 0), 1);
    CU_ASSERT_EQUAL(log_count(m, "interrupt", 12, 0), 1);
    CU_ASSERT_EQUAL(m->pmi_count, 1);
    pmusim_report_t rep;
    pmusim_report_init(&rep);
    m->ops->report(m, &rep);
    CU_ASSERT_EQUAL(g_array_index(rep.counters, pmusim_counter_result_t, 0).overflows, 1);
    pmusim_report_clear(&rep);
    wr(m, OVF, 0x1, 0);
    CU_ASSERT_EQUAL(rd(m, STATUS, 0), 0);
    pmusim_model_free(m);
}

static void test_overflow_without_int_no_pmi(void)
{
    pmusim_model_t *m = mk("knm", 1);
    wr(m, EVTSEL0 + 1, EVT(0xc0, 0x00) | EN | USR | OS, 0);
    wr(m, PMC0 + 1, (uint64_t)-1, 0); /* 2^40 - 1 */
    pmusim_rec_t t[] = {insn(0, 0, 3), insn(0, 0, 3)};
    run(m, t, 2);
    CU_ASSERT_EQUAL(rd(m, PMC0 + 1, 0), 1);
    CU_ASSERT_EQUAL(rd(m, STATUS, 0), 0x2);
    CU_ASSERT_EQUAL(m->pmi_count, 0);
    pmusim_model_free(m);
}

static void test_cycle_counter_wrap_cycle(void)
{
    pmusim_model_t *m = mk("wsm", 1);
    wr(m, FIXED_CTRL, 0x3 << 4 | 0x8 << 4, 0); /* ctr1, all rings, PMI */
    wr(m, GCTRL, 1ull << 33, 0);
    wr(m, FIXED0 + 1, 0xfffffffffff6ull /* -10 at 48 bits */, 0);
    pmusim_rec_t t[] = {insn(0, 0, 3), idle(1, 0, 24)}; /* [0, 25) */
    run(m, t, 2);
    /* after cycle k the counter holds -10 + k + 1: it wraps in cycle 9 */
    CU_ASSERT_EQUAL(rd(m, FIXED0 + 1, 0), 15);
    CU_ASSERT_EQUAL(rd(m, STATUS, 0), 1ull << 33);
    CU_ASSERT_EQUAL(log_count(m, "IA32_FIXED_CTR1 overflow", 9, 0), 1);
    CU_ASSERT_EQUAL(log_count(m, "interrupt", 9, 0), 1);
    pmusim_model_free(m);
}

static void test_freeze_on_pmi(void)
{
    pmusim_model_t *m = mk("wsm", 1);
    wr(m, DEBUGCTL, 1ull << 12, 0);
    wr(m, EVTSEL0, EVT(0xc0, 0x01) | EN | USR | OS | INT, 0);
    wr(m, EVTSEL0 + 1, EVT(0xc0, 0x01) | EN | USR | OS, 0);
    wr(m, FIXED_CTRL, 0x30, 0);
    wr(m, GCTRL, 0x3ull | (1ull << 33), 0);
    wr(m, PMC0, (uint64_t)-2, 0);
    pmusim_rec_t t[] = {insn(0, 0, 3), insn(1, 0, 3), insn(1, 0, 3), insn(2, 0, 3),
                        insn(3, 0, 3)};
    run(m, t, G_N_ELEMENTS(t));
    /* PMC0 wraps at the second record (cycle 1); the PMI freezes all counters:
     * PMC1 saw records 1 and 2, the cycle counter only cycle 0 (the close of
     * cycle 1 comes after the freeze). */
    CU_ASSERT_EQUAL(rd(m, PMC0, 0), 0);
    CU_ASSERT_EQUAL(rd(m, PMC0 + 1, 0), 2);
    CU_ASSERT_EQUAL(rd(m, FIXED0 + 1, 0), 1);
    CU_ASSERT_EQUAL(rd(m, GCTRL, 0), 0);
    CU_ASSERT_EQUAL(log_count(m, "freeze", 1, 0), 1);
    pmusim_model_free(m);
}

typedef struct {
    int calls;
    uint64_t period;
} handler_state_t;

/* A sampling handler: clear the status, reload the counter, re-enable. */
static void sampling_handler(pmusim_model_t *m, uint64_t cycle, uint32_t thread, void *user)
{
    handler_state_t *h = user;
    (void)cycle;
    h->calls++;
    uint64_t st = rd(m, STATUS, thread);
    CU_ASSERT_EQUAL(st, 0x1);
    CU_ASSERT_EQUAL(rd(m, GCTRL, thread), 0); /* frozen */
    wr(m, OVF, st, thread);
    wr(m, PMC0, (uint64_t)0 - h->period, thread);
    wr(m, GCTRL, 0x1, thread);
}

static void test_pmi_handler_sampling(void)
{
    pmusim_model_t *m = mk("wsm", 1);
    handler_state_t h = {0, 4};
    pmusim_model_set_pmi_handler(m, sampling_handler, &h);
    wr(m, DEBUGCTL, 1ull << 12, 0);
    wr(m, EVTSEL0, EVT(0xc0, 0x01) | EN | USR | OS | INT, 0);
    wr(m, GCTRL, 0x1, 0);
    wr(m, PMC0, (uint64_t)-4, 0);
    pmusim_rec_t t[18];
    for (int i = 0; i < 18; i++)
        t[i] = insn((uint64_t)i, 0, 3);
    run(m, t, 18);
    /* one PMI every 4 instructions: at records 4, 8, 12, 16; 2 left */
    CU_ASSERT_EQUAL(h.calls, 4);
    CU_ASSERT_EQUAL(rd(m, PMC0, 0), (uint64_t)-2 & 0xffffffffffffull);
    CU_ASSERT_EQUAL(log_count(m, "interrupt", 15, 0), 1);
    pmusim_model_free(m);
}

/* ---- stage 2: edge / inv / cmask / any ---- */

/* Per-cycle uops: [2, 3, 0, 1, 0, 0] over [0, 6). */
static void uops_trace(pmusim_model_t *m)
{
    pmusim_rec_t t[] = {uops(0, 0, 1), uops(0, 0, 1), uops(1, 0, 3), uops(3, 0, 1),
                        idle(4, 0, 2)};
    run(m, t, G_N_ELEMENTS(t));
}

static void test_cmask_inv_edge(void)
{
    const uint64_t base = EVT(0xc2, 0x01) | EN | USR | OS;
    pmusim_model_t *m = mk("wsm", 1);
    wr(m, EVTSEL0 + 0, base | CMASK(2), 0);               /* v>=2: c0,c1 */
    wr(m, EVTSEL0 + 1, base | CMASK(2) | INV, 0);         /* v<2: c2..c5 */
    wr(m, EVTSEL0 + 2, base | CMASK(1) | EDGE, 0);        /* [1,1,0,1,0,0]: rises c0,c3 */
    wr(m, EVTSEL0 + 3, base | CMASK(1) | INV | EDGE, 0);  /* [0,0,1,0,1,1]: rises c2,c4 */
    uops_trace(m);
    CU_ASSERT_EQUAL(rd(m, PMC0 + 0, 0), 2);
    CU_ASSERT_EQUAL(rd(m, PMC0 + 1, 0), 4);
    CU_ASSERT_EQUAL(rd(m, PMC0 + 2, 0), 2);
    CU_ASSERT_EQUAL(rd(m, PMC0 + 3, 0), 2);
    pmusim_model_free(m);

    m = mk("wsm", 1);
    wr(m, EVTSEL0 + 0, base | CMASK(3), 0);  /* boundary: only c1 (v = 3) */
    wr(m, EVTSEL0 + 1, base | CMASK(4), 0);  /* never */
    wr(m, EVTSEL0 + 2, base | INV, 0);       /* INV inert at CMASK 0: sum = 6 */
    wr(m, EVTSEL0 + 3, base | CMASK(3) | INV, 0); /* v<3: all but c1 = 5 */
    uops_trace(m);
    expect_pmcs(m, 1, 0, 6, 5);
    pmusim_model_free(m);
}

static void test_thresh_long_gap_is_arithmetic(void)
{
    /* 10^12 idle cycles: must be O(1), not a loop over cycles */
    const uint64_t n = 1000000000000ull;
    pmusim_model_t *m = mk("wsm", 1);
    wr(m, EVTSEL0, EVT(0xc2, 0x01) | EN | USR | OS | CMASK(1) | INV, 0); /* stall cycles */
    wr(m, EVTSEL0 + 1, EVT(0xc2, 0x01) | EN | USR | OS | CMASK(1) | INV | EDGE, 0);
    wr(m, EVTSEL0 + 2, EVT(0x3c, 0x00) | EN | USR | OS | CMASK(1) | INV, 0); /* halted: 0 */
    pmusim_rec_t t[] = {uops(0, 0, 2), idle(1, 0, n), uops(n + 1, 0, 1), idle(n + 2, 0, 5)};
    run(m, t, G_N_ELEMENTS(t));
    CU_ASSERT_EQUAL(rd(m, PMC0, 0), n + 5);
    CU_ASSERT_EQUAL(rd(m, PMC0 + 1, 0), 2); /* two stall periods start */
    CU_ASSERT_EQUAL(rd(m, PMC0 + 2, 0), 0);
    pmusim_report_t rep;
    pmusim_report_init(&rep);
    m->ops->report(m, &rep);
    CU_ASSERT_EQUAL(rep.cycles, n + 7);
    pmusim_report_clear(&rep);
    pmusim_model_free(m);
}

/* 2^24 wraps of each of two counters in one IDLE gap up to cycle 2^64 - 1,
 * with PMIs but no handler: O(1), not a walk over the overflows (issue 15
 * item 3; the walk took seconds). */
static void test_many_wraps_in_a_gap_are_arithmetic(void)
{
    const uint64_t w40 = 1ull << 40;
    pmusim_model_t *m = mk("knm", 1);
    wr(m, FIXED_CTRL, 0xb << 4, 0); /* fixed ctr1: all rings, PMI */
    wr(m, EVTSEL0, EVT(0xc2, 0x10) | EN | USR | OS | INT | CMASK(1) | INV, 0); /* stalls */
    wr(m, GCTRL, 0x1ull | (1ull << 33), 0);
    wr(m, FIXED0 + 1, w40 - 5, 0);
    wr(m, PMC0, (uint64_t)-3, 0); /* sign-extended: 2^40 - 3 */
    pmusim_rec_t t[] = {insn(0, 0, 3), idle(1, 0, UINT64_MAX - 1)}; /* [0, 2^64 - 1) */
    run(m, t, G_N_ELEMENTS(t));
    /* fixed ctr1: 2^64 - 1 cycles from 2^40 - 5: (2^40 - 5 + 2^64 - 1) / 2^40
     * = 2^24 wraps, 2^40 - 6 left; wraps in cycles 4 + j * 2^40.
     * PMC0: stalls in cycles 1 .. 2^64 - 2 (cycle 0 retires one uop): 2^64 - 2
     * from 2^40 - 3: 2^24 wraps, 2^40 - 5 left; wraps in cycles 3 + j * 2^40. */
    CU_ASSERT_EQUAL(rd(m, FIXED0 + 1, 0), w40 - 6);
    CU_ASSERT_EQUAL(rd(m, PMC0, 0), w40 - 5);
    CU_ASSERT_EQUAL(rd(m, STATUS, 0), 0x1ull | (1ull << 33));
    pmusim_report_t rep;
    pmusim_report_init(&rep);
    m->ops->report(m, &rep);
    CU_ASSERT_EQUAL(g_array_index(rep.counters, pmusim_counter_result_t, 0).overflows, 1ull << 24);
    CU_ASSERT_EQUAL(g_array_index(rep.counters, pmusim_counter_result_t, 3).overflows, 1ull << 24);
    CU_ASSERT_EQUAL(rep.cycles, UINT64_MAX);
    pmusim_report_clear(&rep);
    /* the wraps never coincide: one PMI each */
    CU_ASSERT_EQUAL(m->pmi_count, 1ull << 25);
    CU_ASSERT_EQUAL(log_count(m, "IA32_PMC0 overflow", 3, 0), 1);
    CU_ASSERT_EQUAL(log_count(m, "IA32_FIXED_CTR1 overflow", 4, 0), 1);
    /* the first 64 overflows are logged one by one (32 of each, alternating),
     * the other 2^24 - 32 of each counter as one line at its last wrap:
     * PMC0 in cycle 3 + (2^24 - 1) 2^40, fixed ctr1 in 4 + (2^24 - 1) 2^40 */
    CU_ASSERT_EQUAL(log_count(m, "IA32_PMC0 overflow", 3 + 31 * w40, 0), 1);
    CU_ASSERT_EQUAL(log_count(m, "IA32_FIXED_CTR1 overflow", 4 + 31 * w40, 0), 1);
    CU_ASSERT_EQUAL(log_count(m, "IA32_PMC0 overflow", 3 + 32 * w40, 0), 0);
    CU_ASSERT_EQUAL(log_count(m, "IA32_PMC0 overflow (x16777184)", 3 + ((1ull << 24) - 1) * w40, 0),
                    1);
    CU_ASSERT_EQUAL(
        log_count(m, "IA32_FIXED_CTR1 overflow (x16777184)", 4 + ((1ull << 24) - 1) * w40, 0), 1);
    CU_ASSERT_EQUAL(log_count(m, "interrupt", 4 + ((1ull << 24) - 1) * w40, 0), 1);
    pmusim_model_free(m);
}

static void test_thresh_usr_os_gating(void)
{
    /* stall cycles counted in user mode only: kernel cycles do not count */
    pmusim_model_t *m = mk("wsm", 1);
    wr(m, EVTSEL0, EVT(0xc2, 0x01) | EN | USR | CMASK(1) | INV, 0);
    pmusim_rec_t t[] = {uops(0, 0, 1), insn(2, 0, 0), idle(3, 0, 2), uops(5, 0, 1),
                        idle(6, 0, 3)};
    t[2].plm = 0;
    /* cycles: 0 user v=1; 1 user v=0 (count); 2 kernel (the thread is in ring 0:
     * gated); 3,4 kernel idle (gated); 5 user v=1; 6,7,8 user idle (count 3).
     * Total 4. */
    run(m, t, G_N_ELEMENTS(t));
    CU_ASSERT_EQUAL(rd(m, PMC0, 0), 4);
    pmusim_model_free(m);
}

static void test_any_thread_wsm(void)
{
    const uint64_t base = EVT(0xc2, 0x01) | EN | USR | OS;
    pmusim_model_t *m = mk("wsm", 2);
    wr(m, EVTSEL0 + 0, base | CMASK(2) | ANY, 0); /* sum over both threads >= 2 */
    wr(m, EVTSEL0 + 1, base | CMASK(2), 0);       /* own thread only */
    wr(m, EVTSEL0 + 2, base | ANY, 0);            /* CMASK 0: sum of both */
    /* cycles in which at least one thread is active (SDM *_ANY cycle events) */
    wr(m, EVTSEL0 + 3, EVT(0x3c, 0x00) | EN | USR | OS | ANY, 0);
    /* cycle 0: t0 1 uop, t1 1 uop (sum 2); cycle 1: t0 1 uop; cycle 2: t1 2 uops;
     * t1 inactive from cycle 3; end = 5 */
    pmusim_rec_t t[] = {uops(0, 0, 1), uops(0, 1, 1), uops(1, 0, 1), uops(2, 1, 2),
                        thread_state(3, 1, 0), idle(3, 0, 2)};
    run(m, t, G_N_ELEMENTS(t));
    CU_ASSERT_EQUAL(rd(m, PMC0 + 0, 0), 2); /* cycles 0, 2 */
    CU_ASSERT_EQUAL(rd(m, PMC0 + 1, 0), 0); /* t0 never has 2 uops in a cycle */
    CU_ASSERT_EQUAL(rd(m, PMC0 + 2, 0), 5); /* 1+1+1+2 */
    CU_ASSERT_EQUAL(rd(m, PMC0 + 3, 0), 5); /* cycles 0-4: thread 0 is always active */
    pmusim_model_free(m);
}

/* TOTAL_CYCLES-style counting (UOPS_RETIRED:ANY:c=16:i=1) on a halted
 * thread: its counters keep counting while a sibling runs; they stop only
 * when every thread of the core is halted (issue 10). */
static void test_halted_thread_total_cycles(void)
{
    pmusim_model_t *m = mk("wsm", 2);
    wr(m, EVTSEL0, EVT(0xc2, 0x01) | EN | USR | OS | CMASK(16) | INV, 1);
    wr(m, EVTSEL0 + 1, EVT(0x3c, 0x00) | EN | USR | OS, 1); /* unhalted cycles of t1 */
    pmusim_rec_t t[] = {thread_state(0, 1, 0), insn(0, 0, 3), insn(1, 0, 3), insn(2, 0, 3),
                        insn(3, 0, 3), thread_state(4, 0, 0), idle(4, 0, 3)};
    run(m, t, G_N_ELEMENTS(t));
    /* cycles 0-3: thread 1 halted, thread 0 runs: the core is powered, 0 uops
     * < 16 on thread 1 counts 4; cycles 4-6: both halted, nothing counts */
    CU_ASSERT_EQUAL(rd(m, PMC0, 1), 4);
    CU_ASSERT_EQUAL(rd(m, PMC0 + 1, 1), 0);
    pmusim_model_free(m);
}

static void test_any_thread_knm(void)
{
    const uint64_t base = EVT(0xc2, 0x10) | EN | USR | OS;
    pmusim_model_t *m = mk("knm", 4);
    wr(m, EVTSEL0 + 0, base | CMASK(3) | ANY, 2);
    wr(m, EVTSEL0 + 1, base | CMASK(3) | ANY | INV, 2);
    wr(m, FIXED_CTRL, 0x7 << 4, 2); /* fixed ctr1 AnyThread: cycles with a thread active */
    wr(m, GCTRL, 0x3ull | (1ull << 33), 2);
    /* cycle 0: threads 0,1,3 one uop each (3); cycle 1: threads 0,2 (2);
     * cycle 2: all four (4); cycle 3: none.  Thread 3 halted from cycle 3. */
    pmusim_rec_t t[] = {uops(0, 0, 1), uops(0, 1, 1), uops(0, 3, 1), uops(1, 0, 1),
                        uops(1, 2, 1), uops(2, 0, 1), uops(2, 1, 1), uops(2, 2, 1),
                        uops(2, 3, 1), thread_state(3, 3, 0), idle(3, 0, 1)};
    run(m, t, G_N_ELEMENTS(t));
    CU_ASSERT_EQUAL(rd(m, PMC0 + 0, 2), 2); /* cycles 0, 2 */
    CU_ASSERT_EQUAL(rd(m, PMC0 + 1, 2), 2); /* cycles 1, 3 */
    CU_ASSERT_EQUAL(rd(m, FIXED0 + 1, 2), 4); /* cycles 0-3, not 4+4+4+3 thread-cycles */
    CU_ASSERT_EQUAL(rd(m, FIXED0 + 1, 0), 0); /* not programmed on thread 0 */
    pmusim_model_free(m);
}

/* ---- stage 2: explicit events ---- */

static pmusim_rec_t event(uint64_t cycle, uint16_t code, uint16_t umask, uint64_t n)
{
    pmusim_rec_t r = insn(cycle, 0, 3);
    r.kind = PMUSIM_REC_EVENT;
    r.ev_code = code;
    r.ev_umask = umask;
    r.n = n;
    return r;
}

static void test_explicit_events(void)
{
    pmusim_model_t *m = mk("wsm", 1);
    wr(m, EVTSEL0 + 0, EVT(0xa2, 0x01) | EN | USR | OS, 0);
    wr(m, EVTSEL0 + 1, EVT(0xa2, 0x01) | EN | USR | OS | CMASK(3), 0);
    wr(m, EVTSEL0 + 2, EVT(0xa2, 0x02) | EN | USR | OS, 0);
    wr(m, EVTSEL0 + 3, EVT(0xc0, 0x01) | EN | USR | OS, 0); /* trace-derived: EVENT ignored */
    pmusim_rec_t t[] = {event(0, 0xa2, 0x01, 2), event(0, 0xa2, 0x01, 2), event(1, 0xa2, 0x01, 2),
                        event(2, 0xa2, 0x02, 7), event(2, 0xc0, 0x01, 9)};
    run(m, t, G_N_ELEMENTS(t));
    CU_ASSERT_EQUAL(rd(m, PMC0 + 0, 0), 6);
    CU_ASSERT_EQUAL(rd(m, PMC0 + 1, 0), 1); /* cycle 0 has 4 >= 3 */
    CU_ASSERT_EQUAL(rd(m, PMC0 + 2, 0), 7);
    CU_ASSERT_EQUAL(rd(m, PMC0 + 3, 0), 0);
    pmusim_model_free(m);

    /* EVENT records count at their own privilege level (issue 10): a :u
     * counter ignores a ring-0 record, a :k counter takes it */
    m = mk("wsm", 1);
    wr(m, EVTSEL0 + 0, EVT(0xa2, 0x01) | EN | USR, 0);
    wr(m, EVTSEL0 + 1, EVT(0xa2, 0x01) | EN | OS, 0);
    pmusim_rec_t u[] = {event(0, 0xa2, 0x01, 2), event(1, 0xa2, 0x01, 5)};
    u[1].plm = 0;
    run(m, u, G_N_ELEMENTS(u));
    CU_ASSERT_EQUAL(rd(m, PMC0 + 0, 0), 2);
    CU_ASSERT_EQUAL(rd(m, PMC0 + 1, 0), 5);
    pmusim_model_free(m);
}

/* A model whose records all take the general path when `general`
 * (PMUSIM_X86_GENERAL, read when the model is made: docs/sim-x86.md,
 * "Checking the fast loop"), else the fast loop wherever it serves them. */
static pmusim_model_t *mk_path(const char *name, uint32_t nthreads, bool general)
{
    if (general)
        g_setenv("PMUSIM_X86_GENERAL", "1", TRUE);
    pmusim_model_t *m = mk(name, nthreads);
    g_unsetenv("PMUSIM_X86_GENERAL");
    return m;
}

/* ---- stage 2: offcore response ---- */

static void test_offcore_wsm(void)
{
    pmusim_model_t *m = mk("wsm", 2);
    wr(m, RSP0, 0x2001, 0); /* DMND_DATA_RD + LOCAL_DRAM */
    wr(m, RSP1, 0xffff, 1); /* ANY_REQUEST + ANY_RESPONSE (shared MSR: thread 1 writes) */
    CU_ASSERT_EQUAL(rd(m, RSP0, 1), 0x2001); /* shared by the core's two threads */
    CU_ASSERT_EQUAL(rd(m, RSP1, 0), 0xffff);
    wr(m, EVTSEL0 + 0, EVT(0xb7, 0x01) | EN | USR | OS, 0);
    wr(m, EVTSEL0 + 1, EVT(0xbb, 0x01) | EN | USR | OS, 0);
    wr(m, EVTSEL0 + 0, EVT(0xb7, 0x01) | EN | USR | OS, 1);
    pmusim_rec_t t[] = {
        offcore(0, 0, 0, 13, PMUSIM_OFFCORE_NONE, 100), /* match: data read, local DRAM */
        offcore(1, 0, 0, 14, PMUSIM_OFFCORE_NONE, 100), /* response mismatch (remote DRAM) */
        offcore(2, 0, 1, 13, PMUSIM_OFFCORE_NONE, 100), /* request mismatch (RFO) */
        offcore(3, 0, 0, 8, PMUSIM_OFFCORE_NONE, 100),  /* response mismatch (uncore hit) */
        offcore(4, 1, 0, 13, PMUSIM_OFFCORE_NONE, 100), /* match on thread 1 */
        insn(5, 0, 3),                                  /* no offcore: never counts */
    };
    run(m, t, G_N_ELEMENTS(t));
    CU_ASSERT_EQUAL(rd(m, PMC0, 0), 1);
    CU_ASSERT_EQUAL(rd(m, PMC0 + 1, 0), 4);
    CU_ASSERT_EQUAL(rd(m, PMC0, 1), 1);
    pmusim_model_free(m);
}

static void test_offcore_knm(void)
{
    pmusim_model_t *m = mk("knm", 2);
    const uint64_t ddr_near = (1ull << 23) | (1ull << 31);
    wr(m, RSP0, 0x1 | ddr_near, 0);          /* DMND_DATA_RD, DDR_NEAR */
    wr(m, RSP1, (1ull << 15) | (1ull << 16), 0); /* ANY_REQUEST, ANY_RESPONSE */
    CU_ASSERT_EQUAL(rd(m, RSP0, 1), 0);      /* per thread on knm */
    wr(m, EVTSEL0 + 0, EVT(0xb7, 0x01) | EN | USR | OS, 0);
    wr(m, EVTSEL0 + 1, EVT(0xb7, 0x02) | EN | USR | OS, 0);
    pmusim_rec_t t[] = {
        offcore(0, 0, 0, 23, 31, 50),                  /* supplier + snoop match */
        offcore(1, 0, 0, 23, 32, 50),                  /* snoop bit not in the MSR */
        offcore(2, 0, 0, 23, PMUSIM_OFFCORE_NONE, 50), /* no snoop in the record: supplier only */
        offcore(3, 0, 0, 21, 31, 50),                  /* supplier (MCDRAM) not in the MSR */
        offcore(4, 0, 1, 23, 31, 50),                  /* request (RFO) not in the MSR */
        offcore(5, 1, 0, 23, 31, 50),                  /* thread 1: its MSRs are zero */
    };
    run(m, t, G_N_ELEMENTS(t));
    CU_ASSERT_EQUAL(rd(m, PMC0, 0), 2);
    CU_ASSERT_EQUAL(rd(m, PMC0 + 1, 0), 5); /* ANY/ANY: every thread-0 request */
    pmusim_model_free(m);

    /* ANY_REQUEST with a specific response; a specific request with ANY_RESPONSE */
    m = mk("knm", 1);
    wr(m, RSP0, (1ull << 15) | (1ull << 22) | (1ull << 35), 0); /* L2_HIT_FAR_TILE_E_F */
    wr(m, RSP1, (1ull << 1) | (1ull << 16), 0);                 /* DMND_RFO, ANY_RESPONSE */
    wr(m, EVTSEL0 + 0, EVT(0xb7, 0x01) | EN | USR | OS, 0);
    wr(m, EVTSEL0 + 1, EVT(0xb7, 0x02) | EN | USR | OS, 0);
    pmusim_rec_t u[] = {
        offcore(0, 0, 0, 22, 35, 50),  /* RSP0 yes (any request), RSP1 no (data read) */
        offcore(1, 0, 1, 22, 35, 50),  /* RSP0 yes, RSP1 yes */
        offcore(2, 0, 1, 22, 36, 50),  /* RSP0 no (M state), RSP1 yes */
        offcore(3, 0, 13, 19, 35, 50), /* RSP0 no (near tile), RSP1 no */
    };
    run(m, u, G_N_ELEMENTS(u));
    CU_ASSERT_EQUAL(rd(m, PMC0, 0), 2);
    CU_ASSERT_EQUAL(rd(m, PMC0 + 1, 0), 2);
    pmusim_model_free(m);
}

/* OFFCORE_RESPONSE counters on the fast loop (filter listeners whose
 * condition is the MSR, session 18) and on the general path: the same
 * counts, hand-derived, direct and thresholded, with out-of-range request,
 * supplier and snoop numbers (the general path: mk_path()). */
static void test_offcore_fast_path(void)
{
    const uint8_t NONE = PMUSIM_OFFCORE_NONE;
    pmusim_rec_t w[] = {
        offcore(0, 0, 0, 13, NONE, 100), offcore(0, 0, 0, 13, NONE, 100), /* two matches */
        offcore(1, 0, 0, 14, NONE, 100),  /* remote DRAM: RSP1's ANY only */
        offcore(1, 0, 40, 13, NONE, 100), /* request bit 40: no MSR bit */
        offcore(2, 1, 0, 13, NONE, 100),  /* thread 1 */
        offcore(3, 0, 0, 13, NONE, 100), insn(4, 0, 3),
    };
    for (int general = 0; general < 2; general++) {
        pmusim_model_t *m = mk_path("wsm", 2, general);
        wr(m, RSP0, 0x2001, 0); /* DMND_DATA_RD + LOCAL_DRAM */
        wr(m, RSP1, 0xffff, 0); /* ANY_REQUEST + ANY_RESPONSE */
        wr(m, EVTSEL0 + 0, EVT(0xb7, 0x01) | EN | USR | OS, 0);
        wr(m, EVTSEL0 + 1, EVT(0xbb, 0x01) | EN | USR | OS | CMASK(1), 0);
        wr(m, EVTSEL0 + 2, EVT(0xb7, 0x01) | EN | USR | OS | CMASK(2), 0);
        run(m, w, G_N_ELEMENTS(w));
        CU_ASSERT_EQUAL(rd(m, PMC0 + 0, 0), 3); /* cycles 0, 0, 3 */
        CU_ASSERT_EQUAL(rd(m, PMC0 + 1, 0), 3); /* cycles 0, 1, 3 */
        CU_ASSERT_EQUAL(rd(m, PMC0 + 2, 0), 1); /* cycle 0 */
        pmusim_model_free(m);
    }
    const uint64_t any = (1ull << 15) | (1ull << 16), data_ddr = 1 | (1ull << 23) | (1ull << 31),
                   anyreq_ddr = (1ull << 15) | (1ull << 23) | (1ull << 31);
    pmusim_rec_t k[] = {
        offcore(0, 0, 0, 23, 31, 10), offcore(0, 0, 0, 23, NONE, 10), offcore(0, 1, 0, 23, 31, 10),
        offcore(1, 0, 40, 23, 31, 10), /* request bit 40: ANY_REQUEST only */
        offcore(1, 0, 0, 70, 31, 10),  /* supplier bit 70: ANY_RESPONSE only */
        offcore(2, 0, 0, 23, 50, 10),  /* snoop bit 50: ANY_RESPONSE only */
        offcore(2, 1, 1, 23, 31, 10), insn(3, 0, 3), offcore(4, 0, 0, 23, 31, 10), insn(5, 0, 3),
    };
    static const struct {
        uint64_t rsp1, mods, want;
    } cs[] = {
        {any, 0, 6},                 /* every thread-0 request */
        {data_ddr, 0, 3},            /* cycle 0 twice, cycle 4 */
        {data_ddr, CMASK(2), 1},     /* cycle 0 */
        {any, CMASK(1) | ANY, 4},    /* the core's cycles 0, 1, 2, 4 */
        {anyreq_ddr, 0, 4},          /* cycle 0 twice, request 40, cycle 4 */
    };
    for (size_t i = 0; i < G_N_ELEMENTS(cs); i++)
        for (int general = 0; general < 2; general++) {
            pmusim_model_t *m = mk_path("knm", 2, general);
            wr(m, RSP1, cs[i].rsp1, 0);
            wr(m, EVTSEL0 + 0, EVT(0xb7, 0x02) | EN | USR | OS | cs[i].mods, 0);
            run(m, k, G_N_ELEMENTS(k));
            CU_ASSERT_EQUAL(rd(m, PMC0, 0), cs[i].want);
            pmusim_model_free(m);
        }
}

static void test_knm_average_latency(void)
{
    pmusim_model_t *m = mk("knm", 1);
    wr(m, RSP0, 0x1 | (1ull << 38), 0);  /* DMND_DATA_RD + OUTSTANDING */
    wr(m, RSP1, 0x1 | (1ull << 16), 0);  /* DMND_DATA_RD + ANY_RESPONSE */
    wr(m, EVTSEL0 + 0, EVT(0xb7, 0x01) | EN | USR | OS, 0);
    wr(m, EVTSEL0 + 1, EVT(0xb7, 0x02) | EN | USR | OS, 0);
    /* requests: cycle 0 for 10 cycles, cycle 2 for 20, cycle 5 for 6 (overlapping);
     * an RFO (other request type) for 1000 cycles is ignored by both. */
    pmusim_rec_t t[] = {
        offcore(0, 0, 0, 23, 31, 10), offcore(2, 0, 0, 21, 31, 20), offcore(3, 0, 1, 23, 31, 1000),
        offcore(5, 0, 0, 17, 37, 6), idle(6, 0, 100),
    };
    run(m, t, G_N_ELEMENTS(t));
    uint64_t outstanding = rd(m, PMC0, 0), requests = rd(m, PMC0 + 1, 0);
    CU_ASSERT_EQUAL(outstanding, 10 + 20 + 6);
    CU_ASSERT_EQUAL(requests, 3);
    CU_ASSERT_EQUAL(outstanding / requests, 12); /* the average latency */
    pmusim_model_free(m);
}

static void test_knm_outstanding_read_midway(void)
{
    pmusim_model_t *m = mk("knm", 1);
    wr(m, RSP0, (1ull << 15) | (1ull << 38), 0); /* ANY_REQUEST + OUTSTANDING */
    wr(m, EVTSEL0, EVT(0xb7, 0x01) | EN | USR | OS, 0);
    pmusim_rec_t a[] = {offcore(0, 0, 0, 23, 31, 4), offcore(1, 0, 2, 23, 31, 4)};
    m->ops->consume(m, a, 2);
    pmusim_rec_t b[] = {insn(3, 0, 3)};
    m->ops->consume(m, b, 1);
    /* synced to cycle 3 (open): cycles 0 (1), 1 (2), 2 (2) = 5 */
    CU_ASSERT_EQUAL(rd(m, PMC0, 0), 5);
    m->ops->finish(m);
    /* the trace ends at cycle 4: cycle 3 has both in flight -> 7 */
    CU_ASSERT_EQUAL(rd(m, PMC0, 0), 7);
    pmusim_model_free(m);
}

/* knm's average-latency mode on the fast loop (issue 12 item 2): the loop
 * starts the requests (overlapping ones, one in the cycle another ends)
 * and takes their ends between records; the same counts on the general
 * path (mk_path()), read between batches, beside a second thread with its
 * own requests and beside a thresholded counter (the loop then defers the
 * cycles' closes).  A wrap inside a gap between records goes to the
 * general path, which logs it at its cycle. */
static void test_knm_average_latency_fast_path(void)
{
    /* thread 0's demand data reads (request 0): cycles 1-5, 3-4, 4-13, 9,
     * 14-16; an RFO (request 1) at cycle 3 does not match.  In flight per
     * cycle: 0 1 1 2 3 2 1 1 1 2 1 1 1 1 1 1 1 (cycles 0-16), 0 after:
     * 10 in cycles 0-6, 18 in 0-13, 21 in all.  Thread 1's: cycles 2-5,
     * 6-8 (4 + 1 = 5 in cycles 0-6, 7 in all). */
    pmusim_rec_t a[] = {
        insn(0, 0, 3), offcore(1, 0, 0, 23, 31, 5), insn(2, 0, 3), offcore(2, 1, 0, 23, 31, 4),
        offcore(3, 0, 0, 23, 31, 2), offcore(3, 0, 1, 23, 31, 100), offcore(4, 0, 0, 23, 31, 10),
        offcore(6, 1, 0, 23, 31, 3), insn(7, 0, 3),
    };
    pmusim_rec_t b[] = {
        insn(8, 0, 3), offcore(9, 0, 0, 23, 31, 1), insn(10, 1, 3), insn(12, 0, 3),
        offcore(14, 0, 0, 23, 31, 3),
    };
    pmusim_rec_t c[] = {insn(20, 0, 3)};
    for (int variant = 0; variant < 3; variant++)
        for (int general = 0; general < 2; general++) {
            const uint32_t nth = variant == 1 ? 2 : 1;
            pmusim_model_t *m = mk_path("knm", nth, general);
            for (uint32_t t = 0; t < nth; t++) {
                wr(m, RSP0, 0x1 | (1ull << 38), t); /* DMND_DATA_RD + OUTSTANDING */
                wr(m, EVTSEL0, EVT(0xb7, 0x01) | EN | USR | OS, t);
            }
            /* variant 2: INST_RETIRED with CMASK 1, thresholded */
            if (variant == 2)
                wr(m, EVTSEL0 + 1, EVT(0xc0, 0x00) | EN | USR | OS | CMASK(1), 0);
            /* the second thread's records only where it exists */
            pmusim_rec_t a1[G_N_ELEMENTS(a)], b1[G_N_ELEMENTS(b)];
            size_t na = 0, nb = 0;
            for (size_t i = 0; i < G_N_ELEMENTS(a); i++)
                if (a[i].thread < nth)
                    a1[na++] = a[i];
            for (size_t i = 0; i < G_N_ELEMENTS(b); i++)
                if (b[i].thread < nth)
                    b1[nb++] = b[i];
            m->ops->consume(m, a1, na);
            CU_ASSERT_EQUAL(rd(m, PMC0, 0), 10); /* cycles 0-6 */
            if (nth == 2)
                CU_ASSERT_EQUAL(rd(m, PMC0, 1), 5);
            m->ops->consume(m, b1, nb);
            CU_ASSERT_EQUAL(rd(m, PMC0, 0), 18); /* cycles 0-13 */
            m->ops->consume(m, c, G_N_ELEMENTS(c));
            m->ops->finish(m);
            CU_ASSERT_EQUAL(rd(m, PMC0, 0), 21);
            if (nth == 2)
                CU_ASSERT_EQUAL(rd(m, PMC0, 1), 7);
            /* thread 0 retires in cycles 0-4, 7, 8, 9, 12, 14, 20 */
            if (variant == 2)
                CU_ASSERT_EQUAL(rd(m, PMC0 + 1, 0), 11);
            CU_ASSERT_EQUAL(rd(m, STATUS, 0), 0);
            pmusim_model_free(m);
        }
    /* 2^40 - 8 (bit 31 sign-extended into the 40-bit counter): cycles 1-4
     * add 7, the 8th increment is in cycle 5, in the gap between the
     * records of cycles 4 and 7, where two requests end: 21 - 8 = 13; its
     * interrupt is delivered in that cycle too */
    for (int general = 0; general < 2; general++) {
        pmusim_model_t *m = mk_path("knm", 1, general);
        wr(m, RSP0, 0x1 | (1ull << 38), 0);
        wr(m, PMC0, 0xfffffff8, 0);
        wr(m, EVTSEL0, EVT(0xb7, 0x01) | EN | USR | OS | INT, 0);
        pmusim_rec_t t[G_N_ELEMENTS(a) + G_N_ELEMENTS(b) + G_N_ELEMENTS(c)];
        size_t n = 0;
        for (size_t i = 0; i < G_N_ELEMENTS(a); i++)
            if (a[i].thread == 0)
                t[n++] = a[i];
        for (size_t i = 0; i < G_N_ELEMENTS(b); i++)
            if (b[i].thread == 0)
                t[n++] = b[i];
        t[n++] = c[0];
        run(m, t, n);
        CU_ASSERT_EQUAL(rd(m, PMC0, 0), 13);
        CU_ASSERT_EQUAL(rd(m, STATUS, 0), 1);
        CU_ASSERT_EQUAL(log_count(m, "IA32_PMC0 overflow", 5, 0), 1);
        CU_ASSERT_EQUAL(log_count(m, "interrupt", 5, 0), 1);
        CU_ASSERT_EQUAL(m->log->len, 2);
        pmusim_model_free(m);
    }
}

/* ---- sources, status, restrictions (issue 10) ---- */

static pmusim_rec_t branch(uint64_t cycle, uint8_t kind, int taken, int ok)
{
    pmusim_rec_t r = insn(cycle, 0, 3);
    r.flags = PMUSIM_F_BRANCH;
    r.br.kind = kind;
    r.br.taken = (uint8_t)taken;
    r.br.dir_ok = (uint8_t)ok;
    r.br.tgt_ok = 1;
    return r;
}


static const pmusim_counter_result_t *result(const pmusim_report_t *rep, const char *reg,
                                             uint32_t thread)
{
    for (guint i = 0; i < rep->counters->len; i++) {
        const pmusim_counter_result_t *k =
            &g_array_index(rep->counters, pmusim_counter_result_t, i);
        if (strcmp(k->reg, reg) == 0 && k->thread == thread)
            return k;
    }
    CU_FAIL("no such counter");
    return &g_array_index(rep->counters, pmusim_counter_result_t, 0);
}

/* ---- wsm OFFCORE_REQUESTS_OUTSTANDING (0x60): requests in flight ---- */

/* Demand data reads (oc.req 0) in flight per cycle, [cycle, cycle + latency):
 *   A [2,7), B [4,10), C [4,5), G [10,12) (abuts B), D [15,18)
 *   cycle: 0 1 2 3 4 5 6 7 8 9 10 11 12-14 15 16 17 18-29
 *   count: 0 0 1 1 3 2 2 1 1 1  1  1   0    1  1  1   0     (sum 17)
 * plus a demand RFO (oc.req 1) [3,103), cut at the trace's end 30, and a
 * data prefetch (oc.req 4) [20,22), which only ANY_READ counts. */
static const pmusim_rec_t *occ_trace(size_t *n)
{
    static pmusim_rec_t t[8];
    pmusim_rec_t r[] = {
        offcore(2, 0, 0, 8, 0, 5),  offcore(3, 0, 1, 8, 0, 100), offcore(4, 0, 0, 8, 0, 6),
        offcore(4, 0, 0, 8, 0, 1),  offcore(10, 0, 0, 8, 0, 2),  offcore(15, 0, 0, 8, 0, 3),
        offcore(20, 0, 4, 8, 0, 2), idle(22, 0, 8),
    };
    _Static_assert(G_N_ELEMENTS(r) == G_N_ELEMENTS(t), "sizes");
    memcpy(t, r, sizeof r);
    *n = G_N_ELEMENTS(t);
    return t;
}

/* IA32_PMC0 of a one-thread wsm model programmed with sel over occ_trace(). */
static uint64_t occ_count(uint64_t sel)
{
    pmusim_model_t *m = mk("wsm", 1);
    wr(m, EVTSEL0, sel | EN | USR | OS, 0);
    size_t n;
    const pmusim_rec_t *t = occ_trace(&n);
    run(m, t, n);
    uint64_t v = rd(m, PMC0, 0);
    pmusim_model_free(m);
    return v;
}

static void test_wsm_outstanding_sums_and_thresholds(void)
{
    /* the sums: A 5 + B 6 + C 1 + G 2 + D 3; the RFO up to the end; reads */
    CU_ASSERT_EQUAL(occ_count(EVT(0x60, 0x01)), 17);
    CU_ASSERT_EQUAL(occ_count(EVT(0x60, 0x04)), 27);
    CU_ASSERT_EQUAL(occ_count(EVT(0x60, 0x02)), 0);
    CU_ASSERT_EQUAL(occ_count(EVT(0x60, 0x08)), 17 + 2);
    /* READ_DATA_NOT_EMPTY (c=1): cycles 2-11 and 15-17 */
    CU_ASSERT_EQUAL(occ_count(EVT(0x60, 0x01) | CMASK(1)), 10 + 3);
    CU_ASSERT_EQUAL(occ_count(EVT(0x60, 0x08) | CMASK(1)), 10 + 3 + 2);
    CU_ASSERT_EQUAL(occ_count(EVT(0x60, 0x04) | CMASK(1)), 27);
    /* c=2: cycles 4-6; c=3: cycle 4; c=2:i: the other 27 of the 30 cycles */
    CU_ASSERT_EQUAL(occ_count(EVT(0x60, 0x01) | CMASK(2)), 3);
    CU_ASSERT_EQUAL(occ_count(EVT(0x60, 0x01) | CMASK(3)), 1);
    CU_ASSERT_EQUAL(occ_count(EVT(0x60, 0x01) | CMASK(2) | INV), 27);
    /* EDGE: stretches of >= 1 start at 2 and 15 (G abuts B: no edge at
     * 10); of >= 2 at 4; INV at CMASK 0 is inert (the plain sum) */
    CU_ASSERT_EQUAL(occ_count(EVT(0x60, 0x01) | CMASK(1) | EDGE), 2);
    CU_ASSERT_EQUAL(occ_count(EVT(0x60, 0x01) | CMASK(2) | EDGE), 1);
    CU_ASSERT_EQUAL(occ_count(EVT(0x60, 0x01) | EDGE), 2); /* EDGE at CMASK 0: threshold 1 */
    CU_ASSERT_EQUAL(occ_count(EVT(0x60, 0x01) | INV), 17);
    /* falling edges (c=1:i:e): the stretches of none start at 0, 12, 18 */
    CU_ASSERT_EQUAL(occ_count(EVT(0x60, 0x01) | CMASK(1) | INV | EDGE), 3);
}

static void test_wsm_outstanding_pmc0_only(void)
{
    pmusim_model_t *m = mk("wsm", 1);
    wr(m, EVTSEL0 + 1, EVT(0x60, 0x01) | EN | USR | OS, 0);
    size_t n;
    const pmusim_rec_t *t = occ_trace(&n);
    run(m, t, n);
    CU_ASSERT_EQUAL(rd(m, PMC0 + 1, 0), 0);
    pmusim_report_t rep;
    pmusim_report_init(&rep);
    m->ops->report(m, &rep);
    const pmusim_counter_result_t *k = result(&rep, "IA32_PMC1", 0);
    CU_ASSERT_PTR_NOT_NULL_FATAL(k);
    CU_ASSERT_EQUAL(k->status, PMUSIM_COUNT_NOT_IN_TRACE);
    pmusim_report_clear(&rep);
    pmusim_model_free(m);
}

typedef struct {
    int calls;
    uint64_t cycle;
    uint64_t ip;
} occ_sample_t;

static void occ_handler(pmusim_model_t *m, uint64_t cycle, uint32_t thread, void *user)
{
    occ_sample_t *s = user;
    s->calls++;
    s->cycle = cycle;
    s->ip = m->pmi_ip;
    wr(m, OVF, rd(m, STATUS, thread), thread);
}

/* An overflow inside a stretch of cycles lands on its cycle: the sum
 * reaches 10 in cycle 7 (1, 2, 5, 7, 9, 10), NOT_EMPTY 5 in cycle 6. */
static void test_wsm_outstanding_overflow_cycle(void)
{
    const uint64_t sels[] = {EVT(0x60, 0x01), EVT(0x60, 0x01) | CMASK(1)};
    const uint64_t period[] = {10, 5}, cycle[] = {7, 6}, left[] = {7, 8};
    for (int i = 0; i < 2; i++) {
        pmusim_model_t *m = mk("wsm", 1);
        occ_sample_t s = {0, 0, 0};
        pmusim_model_set_pmi_handler(m, occ_handler, &s);
        wr(m, EVTSEL0, sels[i] | EN | USR | OS | INT, 0);
        wr(m, PMC0, ((uint64_t)1 << 48) - period[i], 0);
        size_t n;
        const pmusim_rec_t *t = occ_trace(&n);
        run(m, t, n);
        CU_ASSERT_EQUAL(s.calls, 1);
        CU_ASSERT_EQUAL(s.cycle, cycle[i]);
        CU_ASSERT_EQUAL(s.ip, 0x400000 + 4 * 4); /* the last retirement by then: cycle 4 */
        CU_ASSERT_EQUAL(log_count(m, "IA32_PMC0 overflow", cycle[i], 0), 1);
        CU_ASSERT_EQUAL(rd(m, PMC0, 0), left[i]); /* 17 - 10, 13 - 5 */
        pmusim_model_free(m);
    }
}

/* occ_trace() with a plain INSN record in every cycle 0-21 after that
 * cycle's own records, replayed with sel on PMC0; with `general` every
 * record takes the general path (mk_path()), else the fast loop takes the plain records and the
 * 0x60 starts between them (issue 12 item 2).  Returns PMC0 and sets
 * *wraps to its overflow log entries at `cycle`. */
static uint64_t occ_count_filled(uint64_t sel, bool general, uint64_t preset, uint64_t cycle,
                                 size_t *wraps)
{
    pmusim_model_t *m = mk_path("wsm", 1, general);
    wr(m, EVTSEL0, sel | EN | USR | OS, 0);
    if (preset)
        wr(m, PMC0, preset, 0);
    size_t n, k = 0;
    const pmusim_rec_t *t = occ_trace(&n);
    pmusim_rec_t all[40];
    for (uint64_t c = 0; c < 22; c++) {
        for (size_t i = 0; i < n; i++)
            if (t[i].cycle == c)
                all[k++] = t[i];
        all[k++] = insn(c, 0, 3);
    }
    all[k++] = t[n - 1]; /* the IDLE of cycle 22 */
    CU_ASSERT_FATAL(k <= G_N_ELEMENTS(all));
    run(m, all, k);
    uint64_t v = rd(m, PMC0, 0);
    *wraps = log_count(m, "IA32_PMC0 overflow", cycle, 0);
    pmusim_model_free(m);
    return v;
}

/* The fast loop starts 0x60 requests between plain records and stops at
 * their ends: the sums, thresholds and edges of
 * test_wsm_outstanding_sums_and_thresholds, and an overflow's cycle, the
 * same on both paths. */
static void test_wsm_outstanding_fast_path(void)
{
    const uint64_t sels[] = {EVT(0x60, 0x01), EVT(0x60, 0x01) | CMASK(1),
                             EVT(0x60, 0x01) | CMASK(2) | INV, EVT(0x60, 0x01) | CMASK(1) | EDGE,
                             EVT(0x60, 0x08) | CMASK(1), EVT(0x60, 0x01) | CMASK(1) | INV | EDGE};
    const uint64_t want[] = {17, 13, 27, 2, 15, 3};
    size_t w;
    for (size_t i = 0; i < G_N_ELEMENTS(sels); i++) {
        CU_ASSERT_EQUAL(occ_count_filled(sels[i], false, 0, 0, &w), want[i]);
        CU_ASSERT_EQUAL(occ_count_filled(sels[i], true, 0, 0, &w), want[i]);
    }
    /* 10 to go: the sum reaches it in cycle 7 (1+1+3+2+2+1 over cycles
     * 2-7), 7 left (17 - 10) */
    const uint64_t preset = ((uint64_t)1 << 48) - 10;
    for (int general = 0; general < 2; general++) {
        CU_ASSERT_EQUAL(occ_count_filled(EVT(0x60, 0x01), general, preset, 7, &w), 7);
        CU_ASSERT_EQUAL(w, 1);
    }
}

/* SMT: each thread's requests are its own; AnyThread adds the sibling's
 * (thread 0: [2,7); thread 1: [5,9) and an RFO). */
static void test_wsm_outstanding_threads(void)
{
    pmusim_model_t *m = mk("wsm", 2);
    wr(m, EVTSEL0, EVT(0x60, 0x01) | EN | USR | OS, 0);
    wr(m, EVTSEL0, EVT(0x60, 0x01) | EN | USR | OS, 1);
    pmusim_rec_t t[] = {offcore(2, 0, 0, 8, 0, 5), offcore(5, 1, 0, 8, 0, 4),
                        offcore(5, 1, 1, 8, 0, 4), idle(9, 0, 3)};
    run(m, t, G_N_ELEMENTS(t));
    CU_ASSERT_EQUAL(rd(m, PMC0, 0), 5);
    CU_ASSERT_EQUAL(rd(m, PMC0, 1), 4);
    pmusim_model_free(m);

    const uint64_t sels[] = {ANY, ANY | CMASK(1), ANY | CMASK(2), CMASK(1)};
    const uint64_t want[] = {5 + 4, 7, 2, 5}; /* cycles 2-8 with one; 5-6 with two */
    for (int i = 0; i < 4; i++) {
        m = mk("wsm", 2);
        wr(m, EVTSEL0, EVT(0x60, 0x01) | sels[i] | EN | USR | OS, 0);
        run(m, t, G_N_ELEMENTS(t));
        CU_ASSERT_EQUAL(rd(m, PMC0, 0), want[i]);
        pmusim_model_free(m);
    }
}

/* The report status of counter `reg` of thread 0, the model's as it is now. */
static pmusim_count_status_t status_of(pmusim_model_t *m, const char *reg)
{
    pmusim_report_t rep;
    pmusim_report_init(&rep);
    m->ops->report(m, &rep);
    const pmusim_count_status_t st = result(&rep, reg, 0)->status;
    pmusim_report_clear(&rep);
    return st;
}

static gboolean diag_has(const pmusim_report_t *rep, const char *needle)
{
    for (guint i = 0; i < rep->diags->len; i++)
        if (strstr(g_ptr_array_index(rep->diags, i), needle))
            return TRUE;
    return FALSE;
}

static void test_not_in_trace_status(void)
{
    pmusim_model_t *m = mk("wsm", 1);
    /* a producer without a cache model: no "levels" annotation */
    m->trace_annotations = PMUSIM_ANN_ALL & ~PMUSIM_ANN_LEVELS;
    wr(m, EVTSEL0 + 0, EVT(0xcb, 0x02) | EN | USR | OS, 0); /* MEM_LOAD_RETIRED:L2_HIT */
    /* RESOURCE_STALLS:ANY inverted: EVENT-only, none in the trace: never "every cycle" */
    wr(m, EVTSEL0 + 1, EVT(0xa2, 0x01) | EN | USR | OS | CMASK(1) | INV, 0);
    wr(m, EVTSEL0 + 2, EVT(0xa2, 0x02) | EN | USR | OS, 0); /* EVENT records present */
    wr(m, EVTSEL0 + 3, EVT(0xc0, 0x01) | EN | USR | OS, 0); /* INST_RETIRED: always there */
    pmusim_rec_t t[] = {load(0, 5, PMUSIM_LVL_L2), event(1, 0xa2, 0x02, 3), insn(2, 0, 3)};
    run(m, t, G_N_ELEMENTS(t));
    pmusim_report_t rep;
    pmusim_report_init(&rep);
    m->ops->report(m, &rep);
    const pmusim_counter_result_t *k = result(&rep, "IA32_PMC0", 0);
    CU_ASSERT_EQUAL(k->status, PMUSIM_COUNT_NOT_IN_TRACE);
    CU_ASSERT_STRING_EQUAL(k->source, "load records with mem.level == L2; the trace lacks levels");
    k = result(&rep, "IA32_PMC1", 0);
    CU_ASSERT_EQUAL(k->status, PMUSIM_COUNT_NOT_IN_TRACE);
    CU_ASSERT_STRING_EQUAL(k->source, "EVENT records 0xa2/0x01");
    k = result(&rep, "IA32_PMC2", 0);
    CU_ASSERT_EQUAL(k->status, PMUSIM_COUNT_OK);
    CU_ASSERT_EQUAL(k->value, 3);
    CU_ASSERT_STRING_EQUAL(k->source, "EVENT records 0xa2/0x02");
    k = result(&rep, "IA32_PMC3", 0);
    CU_ASSERT_EQUAL(k->status, PMUSIM_COUNT_OK);
    CU_ASSERT_EQUAL(k->value, 2);
    CU_ASSERT_STRING_EQUAL(k->source, "INSN records");
    pmusim_report_clear(&rep);
    pmusim_model_free(m);
}

/* The header's "events" key: an EVENT-only event the producer lists counted
 * a real zero when no record of it came; one it does not list stays
 * <not in trace>; a trace without the key behaves as before. */
static void test_declared_events(void)
{
    for (int with_key = 0; with_key < 2; with_key++) {
        pmusim_model_t *m = mk("wsm", 1);
        pmusim_trace_header_t h;
        pmusim_trace_header_init(&h, PMUSIM_CPU_WSM, 1);
        pmusim_trace_header_set_annotations(&h, PMUSIM_ANN_ALL);
        if (with_key) /* two listed pairs, a malformed entry, an any-umask pair */
            pmusim_trace_header_set_meta(&h, "events", "0xf2/0x02, 0xa2/0x10,0x51/x4,0x80/*");
        pmusim_model_set_trace_header(m, &h);
        pmusim_trace_header_clear(&h);
        wr(m, EVTSEL0 + 0, EVT(0xf2, 0x02) | EN | USR | OS, 0); /* L2_LINES_OUT:DEMAND_DIRTY */
        wr(m, EVTSEL0 + 1, EVT(0xa2, 0x10) | EN | USR | OS, 0); /* RESOURCE_STALLS:ROB_FULL */
        wr(m, EVTSEL0 + 2, EVT(0x51, 0x04) | EN | USR | OS, 0); /* L1D:M_EVICT: malformed */
        wr(m, EVTSEL0 + 3, EVT(0x80, 0x04) | EN | USR | OS, 0); /* L1I:CYCLES_STALLED */
        pmusim_rec_t t[] = {event(1, 0xa2, 0x10, 3), insn(2, 0, 3)};
        run(m, t, G_N_ELEMENTS(t));
        pmusim_report_t rep;
        pmusim_report_init(&rep);
        m->ops->report(m, &rep);
        const pmusim_counter_result_t *k = result(&rep, "IA32_PMC0", 0);
        CU_ASSERT_EQUAL(k->status, with_key ? PMUSIM_COUNT_OK : PMUSIM_COUNT_NOT_IN_TRACE);
        CU_ASSERT_EQUAL(k->value, 0);
        k = result(&rep, "IA32_PMC1", 0);
        CU_ASSERT_EQUAL(k->status, PMUSIM_COUNT_OK);
        CU_ASSERT_EQUAL(k->value, 3);
        k = result(&rep, "IA32_PMC2", 0);
        CU_ASSERT_EQUAL(k->status, PMUSIM_COUNT_NOT_IN_TRACE);
        k = result(&rep, "IA32_PMC3", 0);
        CU_ASSERT_EQUAL(k->status, with_key ? PMUSIM_COUNT_OK : PMUSIM_COUNT_NOT_IN_TRACE);
        CU_ASSERT_EQUAL(k->value, 0);
        pmusim_report_clear(&rep);
        pmusim_model_free(m);
    }
}

/* The header's "evsum" key: a threshold on EVENT records that sum several
 * cycles' occurrences reads <not in trace> (a record of 5 stall cycles
 * compared with CMASK 1 would count 1), the unthresholded count and an
 * unlisted key's threshold stay counted.  Without the key the record is
 * one cycle's occurrences, as before: RESOURCE_STALLS:ANY:c=1 counts 1.
 * PMC2 is PORT015_STALL_CYCLES (0xb1/0x40 c=1 i=1: ports 0, 1, 5 from
 * their own records on an annotated trace), PMC3 L1I:HITS with c=1, whose
 * records the key does not list: the record of 3 counts 1. */
static void test_evsum_thresholds(void)
{
    for (int with_key = 0; with_key < 2; with_key++) {
        pmusim_model_t *m = mk("wsm", 1);
        pmusim_trace_header_t h;
        pmusim_trace_header_init(&h, PMUSIM_CPU_WSM, 1);
        /* a model's annotations (no ALAT on x86): PORT015 then sums ports
         * 0, 1 and 5, all written by the producer (no record of 1 and 5) */
        pmusim_trace_header_set_annotations(&h, PMUSIM_ANN_ALL & ~PMUSIM_ANN_ALAT);
        pmusim_trace_header_set_meta(&h, "events", "0xa2/0x01,0xb1/0x01,0xb1/0x02,0xb1/0x20");
        if (with_key)
            pmusim_trace_header_set_meta(&h, "evsum", "0xa2/0x01,0xb1/0x01,0xb1/0x02,0xb1/0x20");
        pmusim_model_set_trace_header(m, &h);
        pmusim_trace_header_clear(&h);
        wr(m, EVTSEL0 + 0, EVT(0xa2, 0x01) | CMASK(1) | EN | USR | OS, 0);
        wr(m, EVTSEL0 + 1, EVT(0xa2, 0x01) | EN | USR | OS, 0);
        wr(m, EVTSEL0 + 2, EVT(0xb1, 0x40) | CMASK(1) | INV | EN | USR | OS, 0);
        wr(m, EVTSEL0 + 3, EVT(0x80, 0x01) | CMASK(1) | EN | USR | OS, 0);
        pmusim_rec_t t[] = {event(1, 0xa2, 0x01, 5), event(1, 0xb1, 0x01, 4),
                            event(4, 0x80, 0x01, 3), insn(9, 0, 3)};
        run(m, t, G_N_ELEMENTS(t));
        pmusim_report_t rep;
        pmusim_report_init(&rep);
        m->ops->report(m, &rep);
        const pmusim_counter_result_t *k = result(&rep, "IA32_PMC0", 0);
        CU_ASSERT_EQUAL(k->status, with_key ? PMUSIM_COUNT_NOT_IN_TRACE : PMUSIM_COUNT_OK);
        CU_ASSERT_EQUAL(k->value, 1);
        CU_ASSERT_EQUAL(strstr(k->source, "evsum") != NULL, with_key);
        k = result(&rep, "IA32_PMC1", 0);
        CU_ASSERT_EQUAL(k->status, PMUSIM_COUNT_OK);
        CU_ASSERT_EQUAL(k->value, 5);
        k = result(&rep, "IA32_PMC2", 0);
        CU_ASSERT_EQUAL(k->status, with_key ? PMUSIM_COUNT_NOT_IN_TRACE : PMUSIM_COUNT_OK);
        CU_ASSERT_PTR_NOT_NULL(strstr(k->source, "0xb1/0x01 + 0xb1/0x02 + 0xb1/0x20"));
        k = result(&rep, "IA32_PMC3", 0);
        CU_ASSERT_EQUAL(k->status, PMUSIM_COUNT_OK);
        CU_ASSERT_EQUAL(k->value, 1);
        pmusim_report_clear(&rep);
        pmusim_model_free(m);
    }
}

/* The header's "evspan" key: an EVENT record of n of a listed pair is one
 * interval of n cycles (a page walk), placed from the record's cycle on,
 * and a CMASK/INV/EDGE counts the intervals in progress per cycle, as
 * requests in flight.  DTLB_MISSES:WALK_CYCLES (0x49/0x04) with INSN
 * records at cycles 0 and 39 (40 cycles).  Case 0, walks apart: 3 cycles
 * at 5 ([5, 8)) and 4 at 20 ([20, 24)): plain 7, c=1 7, c=1 e=1 2 (one
 * per walk), c=1 i=1 33, c=2 0.  Case 1, abutting: 3 at 5 and 2 at 8
 * ([8, 10)): plain 5, c=1 5, EDGE 1 (the in-progress count never drops to
 * 0), i=1 35, c=2 0.  Case 2, overlapping: 3 at 5 and 4 at 6 ([6, 10)):
 * plain 7, c=1 5, EDGE 1, i=1 35, c=2 2 (cycles 6 and 7).  Case 3, the
 * key absent (the pair in evsum only): the thresholded ones read
 * <not in trace>, the plain count 7 as before. */
static void test_evspan_walks(void)
{
    static const uint64_t at[4][2] = {{5, 20}, {5, 8}, {5, 6}, {5, 20}};
    static const uint64_t len[4][2] = {{3, 4}, {3, 2}, {3, 4}, {3, 4}};
    static const uint64_t want[4][5] = {
        {7, 7, 2, 33, 0}, {5, 5, 1, 35, 0}, {7, 5, 1, 35, 2}, {7, 0, 0, 0, 0}};
    for (int v = 0; v < 4; v++) {
        pmusim_model_t *m = mk("wsm", 1);
        pmusim_trace_header_t h;
        pmusim_trace_header_init(&h, PMUSIM_CPU_WSM, 1);
        pmusim_trace_header_set_annotations(&h, PMUSIM_ANN_ALL & ~PMUSIM_ANN_ALAT);
        pmusim_trace_header_set_meta(&h, "events", "0x49/0x04");
        pmusim_trace_header_set_meta(&h, "evsum", "0x49/0x04");
        if (v < 3)
            pmusim_trace_header_set_meta(&h, "evspan", "0x49/0x04");
        pmusim_model_set_trace_header(m, &h);
        pmusim_trace_header_clear(&h);
        wr(m, EVTSEL0 + 0, EVT(0x49, 0x04) | EN | USR | OS, 0);
        wr(m, EVTSEL0 + 1, EVT(0x49, 0x04) | CMASK(1) | EN | USR | OS, 0);
        wr(m, EVTSEL0 + 2, EVT(0x49, 0x04) | CMASK(1) | EDGE | EN | USR | OS, 0);
        wr(m, EVTSEL0 + 3, EVT(0x49, 0x04) | CMASK(1) | INV | EN | USR | OS, 0);
        pmusim_rec_t t[] = {insn(0, 0, 3), event(at[v][0], 0x49, 0x04, len[v][0]),
                            event(at[v][1], 0x49, 0x04, len[v][1]), insn(39, 0, 3)};
        run(m, t, G_N_ELEMENTS(t));
        pmusim_report_t rep;
        pmusim_report_init(&rep);
        m->ops->report(m, &rep);
        CU_ASSERT_EQUAL(rep.cycles, 40);
        static const char *const reg[4] = {"IA32_PMC0", "IA32_PMC1", "IA32_PMC2", "IA32_PMC3"};
        for (int k = 0; k < 4; k++) {
            const pmusim_counter_result_t *r = result(&rep, reg[k], 0);
            CU_ASSERT_EQUAL(r->status, v == 3 && k ? PMUSIM_COUNT_NOT_IN_TRACE : PMUSIM_COUNT_OK);
            if (v < 3 || !k)
                CU_ASSERT_EQUAL(r->value, want[v][k]);
        }
        pmusim_report_clear(&rep);
        pmusim_model_free(m);
        /* c=2: two walks in progress */
        m = mk("wsm", 1);
        pmusim_trace_header_init(&h, PMUSIM_CPU_WSM, 1);
        pmusim_trace_header_set_annotations(&h, PMUSIM_ANN_ALL & ~PMUSIM_ANN_ALAT);
        if (v < 3)
            pmusim_trace_header_set_meta(&h, "evspan", "0x49/0x04");
        pmusim_model_set_trace_header(m, &h);
        pmusim_trace_header_clear(&h);
        wr(m, EVTSEL0 + 0, EVT(0x49, 0x04) | CMASK(2) | EN | USR | OS, 0);
        run(m, t, G_N_ELEMENTS(t));
        pmusim_report_init(&rep);
        m->ops->report(m, &rep);
        if (v < 3)
            CU_ASSERT_EQUAL(result(&rep, "IA32_PMC0", 0)->value, want[v][4]);
        pmusim_report_clear(&rep);
        pmusim_model_free(m);
    }
}

/* knm PAGE_WALKS:WALKS and CYCLES with a threshold: the umask 0x03 is the
 * D-side (0x01) and I-side (0x02) walks' EVENT bits, so a threshold is an
 * interval count only when `evspan` lists both pairs (x86_span_listed()).
 * INSN records at cycles 0 and 39.  Case 0, a D-side walk of 3 at 5
 * ([5, 8)) and an I-side one of 4 at 20 ([20, 24)): WALKS (c=1 e=1) 2,
 * CYCLES:c=1 7.  Case 1, the I-side walk at 6 ([6, 10)), overlapping:
 * WALKS 1, c=1 5 (cycles 5-9).  Case 2, `evspan` lists the D side only:
 * both read <not in trace> (the pairs are in `evsum`).  The plain CYCLES
 * count is 7 in every case. */
static void test_evspan_walk_bits(void)
{
    static const uint64_t i_at[3] = {20, 6, 20};
    static const uint64_t want[2][3] = {{2, 7, 7}, {1, 5, 7}};
    for (int v = 0; v < 3; v++) {
        for (int plain = 0; plain < 2; plain++) {
            pmusim_model_t *m = mk("knm", 1);
            pmusim_trace_header_t h;
            pmusim_trace_header_init(&h, PMUSIM_CPU_KNM, 1);
            pmusim_trace_header_set_annotations(&h, PMUSIM_ANN_ALL & ~PMUSIM_ANN_ALAT);
            pmusim_trace_header_set_meta(&h, "events", "0x05/0x01,0x05/0x02");
            pmusim_trace_header_set_meta(&h, "evsum", "0x05/0x01,0x05/0x02");
            pmusim_trace_header_set_meta(&h, "evspan", v < 2 ? "0x05/0x01,0x05/0x02" : "0x05/0x01");
            pmusim_model_set_trace_header(m, &h);
            pmusim_trace_header_clear(&h);
            if (plain) {
                wr(m, EVTSEL0 + 0, EVT(0x05, 0x03) | EN | USR | OS, 0);
            } else {
                wr(m, EVTSEL0 + 0, EVT(0x05, 0x03) | CMASK(1) | EDGE | EN | USR | OS, 0);
                wr(m, EVTSEL0 + 1, EVT(0x05, 0x03) | CMASK(1) | EN | USR | OS, 0);
            }
            pmusim_rec_t t[] = {insn(0, 0, 3), event(5, 0x05, 0x01, 3),
                                event(i_at[v], 0x05, 0x02, 4), insn(39, 0, 3)};
            run(m, t, G_N_ELEMENTS(t));
            pmusim_report_t rep;
            pmusim_report_init(&rep);
            m->ops->report(m, &rep);
            if (plain) {
                const pmusim_counter_result_t *r = result(&rep, "IA32_PMC0", 0);
                CU_ASSERT_EQUAL(r->status, PMUSIM_COUNT_OK);
                CU_ASSERT_EQUAL(r->value, 7);
            } else {
                for (int k = 0; k < 2; k++) {
                    const pmusim_counter_result_t *r = result(&rep, k ? "IA32_PMC1" : "IA32_PMC0", 0);
                    CU_ASSERT_EQUAL(r->status, v < 2 ? PMUSIM_COUNT_OK : PMUSIM_COUNT_NOT_IN_TRACE);
                    if (v < 2)
                        CU_ASSERT_EQUAL(r->value, want[v][k]);
                }
            }
            pmusim_report_clear(&rep);
            pmusim_model_free(m);
        }
    }
}

/* The loop stream detector's records (docs/trace-events-x86.md, "The loop
 * stream detector"): the model writes LSD:UOPS one record per cycle in
 * which the detector delivered uops (listed in `events`, not in `evsum`)
 * and LSD_OVERFLOW summed (in both).  Ten cycles with an INSN record at
 * each of 0..9; LSD:UOPS at cycles 2 (4 uops), 3 (4), 4 (2) and 7 (3):
 * UOPS 13; ACTIVE (UOPS c=1) the 4 cycles with a record; INACTIVE (c=1
 * i=1) the other 6 of the 10 cycles (no uops delivered, whether or not
 * anything was there to deliver); LSD_OVERFLOW 1 + 1 = 2.  Without the
 * `events` key the four read <not in trace> on a trace with no such
 * records (a capture before the detector: nothing says it was modelled),
 * and count their records on a trace that has them (a hand-written one).
 * Were LSD:UOPS summed (listed in `evsum`), ACTIVE and INACTIVE would read
 * <not in trace> (the threshold compares one cycle's occurrences). */
static void test_lsd_records(void)
{
    for (int with_key = 0; with_key < 3; with_key++) {
        for (int with_recs = 0; with_recs < 2; with_recs++) {
            pmusim_model_t *m = mk("wsm", 1);
            pmusim_trace_header_t h;
            pmusim_trace_header_init(&h, PMUSIM_CPU_WSM, 1);
            pmusim_trace_header_set_annotations(&h, PMUSIM_ANN_ALL & ~PMUSIM_ANN_ALAT);
            if (with_key) {
                pmusim_trace_header_set_meta(&h, "events", "0xa8/0x01,0x20/0x01");
                pmusim_trace_header_set_meta(&h, "evsum",
                                             with_key == 2 ? "0xa8/0x01,0x20/0x01" : "0x20/0x01");
            }
            pmusim_model_set_trace_header(m, &h);
            pmusim_trace_header_clear(&h);
            wr(m, EVTSEL0 + 0, EVT(0xa8, 0x01) | EN | USR | OS, 0);             /* LSD:UOPS */
            wr(m, EVTSEL0 + 1, EVT(0xa8, 0x01) | CMASK(1) | EN | USR | OS, 0);  /* LSD:ACTIVE */
            wr(m, EVTSEL0 + 2, EVT(0xa8, 0x01) | CMASK(1) | INV | EN | USR | OS, 0); /* INACTIVE */
            wr(m, EVTSEL0 + 3, EVT(0x20, 0x01) | EN | USR | OS, 0);             /* LSD_OVERFLOW */
            pmusim_rec_t t[32];
            size_t n = 0;
            static const uint64_t lsd_n[10] = {0, 0, 4, 4, 2, 0, 0, 3, 0, 0};
            for (uint64_t cy = 0; cy < 10; cy++) {
                t[n++] = insn(cy, 0, 3);
                if (with_recs && lsd_n[cy])
                    t[n++] = event(cy, 0xa8, 0x01, lsd_n[cy]);
                if (with_recs && (cy == 1 || cy == 8))
                    t[n++] = event(cy, 0x20, 0x01, 1);
            }
            run(m, t, n);
            pmusim_report_t rep;
            pmusim_report_init(&rep);
            m->ops->report(m, &rep);
            CU_ASSERT_EQUAL(rep.cycles, 10);
            static const uint64_t want[4] = {13, 4, 6, 2};
            static const uint64_t want_norecs[4] = {0, 0, 10, 0};
            static const char *const pmc[4] = {"IA32_PMC0", "IA32_PMC1", "IA32_PMC2", "IA32_PMC3"};
            for (int k = 0; k < 4; k++) {
                const pmusim_counter_result_t *c = result(&rep, pmc[k], 0);
                if ((!with_key && !with_recs) || (with_key == 2 && (k == 1 || k == 2))) {
                    CU_ASSERT_EQUAL(c->status, PMUSIM_COUNT_NOT_IN_TRACE);
                } else {
                    CU_ASSERT_EQUAL(c->status, PMUSIM_COUNT_OK);
                    CU_ASSERT_EQUAL(c->value, with_recs ? want[k] : want_norecs[k]);
                }
            }
            pmusim_report_clear(&rep);
            pmusim_model_free(m);
        }
    }
}

/* Forms (trace-events.csv): ARITH:DIV is CYCLES_DIV_BUSY with c=1 i=1
 * e=1 (libpfm's table) and counts the divide INSN records (operation kind
 * div), here 3 (two in adjacent cycles, one at ring 0: 2 with USR only),
 * not the edges of the divider's busy records; plain CYCLES_DIV_BUSY counts
 * those records (23 + 23 + 7); c=1 i=1 without e=1 is no form: a threshold
 * on the summed records, <not in trace>.  knm PAGE_WALKS:D_SIDE_WALKS
 * (D_SIDE_CYCLES with e=1 c=1) counts the memory records of a walk: 2 of 3
 * loads. */
static void test_forms(void)
{
    pmusim_model_t *m = mk("wsm", 1);
    pmusim_trace_header_t h;
    pmusim_trace_header_init(&h, PMUSIM_CPU_WSM, 1);
    pmusim_trace_header_set_annotations(&h, PMUSIM_ANN_ALL & ~PMUSIM_ANN_ALAT);
    pmusim_trace_header_set_meta(&h, "events", "0x14/0x01");
    pmusim_trace_header_set_meta(&h, "evsum", "0x14/0x01");
    pmusim_model_set_trace_header(m, &h);
    pmusim_trace_header_clear(&h);
    const uint64_t div_form = EVT(0x14, 0x01) | CMASK(1) | INV | EDGE | EN;
    wr(m, EVTSEL0 + 0, div_form | USR | OS, 0);
    wr(m, EVTSEL0 + 1, EVT(0x14, 0x01) | EN | USR | OS, 0);
    wr(m, EVTSEL0 + 2, EVT(0x14, 0x01) | CMASK(1) | INV | EN | USR | OS, 0);
    wr(m, EVTSEL0 + 3, div_form | USR, 0);
    pmusim_rec_t t[8];
    size_t n = 0;
    const uint64_t at[] = {1, 2, 10};
    for (int k = 0; k < 3; k++) {
        t[n] = insn(at[k], 0, k == 2 ? 0 : 3);
        t[n++].flags = (uint32_t)PMUSIM_OPK_DIV << PMUSIM_F_OPKIND_SHIFT;
        t[n++] = event(at[k], 0x14, 0x01, k == 1 ? 7 : 23);
    }
    t[n++] = insn(11, 0, 3);
    t[n++] = insn(12, 0, 3);
    run(m, t, n);
    pmusim_report_t rep;
    pmusim_report_init(&rep);
    m->ops->report(m, &rep);
    const pmusim_counter_result_t *k = result(&rep, "IA32_PMC0", 0);
    CU_ASSERT_EQUAL(k->status, PMUSIM_COUNT_OK);
    CU_ASSERT_EQUAL(k->value, 3);
    CU_ASSERT_PTR_NOT_NULL(strstr(k->source, "operation kind div"));
    k = result(&rep, "IA32_PMC1", 0);
    CU_ASSERT_EQUAL(k->status, PMUSIM_COUNT_OK);
    CU_ASSERT_EQUAL(k->value, 53);
    CU_ASSERT_EQUAL(result(&rep, "IA32_PMC2", 0)->status, PMUSIM_COUNT_NOT_IN_TRACE);
    CU_ASSERT_EQUAL(result(&rep, "IA32_PMC3", 0)->value, 2);
    pmusim_report_clear(&rep);
    pmusim_model_free(m);

    m = mk("knm", 1);
    wr(m, EVTSEL0 + 0, EVT(0x05, 0x01) | CMASK(1) | EDGE | EN | USR | OS, 0);
    pmusim_rec_t w[3];
    for (int j = 0; j < 3; j++) {
        w[j] = load((uint64_t)j + 1, 4, PMUSIM_LVL_L1D);
        w[j].mem.tlb = j == 1 ? PMUSIM_TLB_L1_HIT : PMUSIM_TLB_WALK;
    }
    run(m, w, 3);
    CU_ASSERT_EQUAL(rd(m, PMC0, 0), 2);
    pmusim_model_free(m);
}

/* MEM_INST_RETIRED:LOADS / STORES count instructions ("instructions
 * retired which contain a load", Intel's description): an instruction's
 * INSN record and MEM records count at most once, while
 * MEM_LOAD_RETIRED:L1D_HIT counts every load record.  Four instructions:
 * A (load, then MEM load, MEM store), B (store, then MEM load, MEM load),
 * C (no access), D (load): LOADS 3 (A, B, D), STORES 2 (A, B), L1D_HIT 5,
 * LOADS|STORES (umask 0x03, two bits) 3 (A, B, D).  The same fed a record
 * per call (a MEM record's instruction then starts in the call before) and
 * with the instructions on thread 1 of two. */
static void test_mem_inst_once(void)
{
    for (int mode = 0; mode < 3; mode++) {
        const uint8_t th = mode == 2;
        pmusim_model_t *m = mk("wsm", th ? 2 : 1);
        wr(m, EVTSEL0 + 0, EVT(0x0b, 0x01) | EN | USR | OS, th); /* MEM_INST_RETIRED:LOADS */
        wr(m, EVTSEL0 + 1, EVT(0x0b, 0x02) | EN | USR | OS, th); /* MEM_INST_RETIRED:STORES */
        wr(m, EVTSEL0 + 2, EVT(0xcb, 0x01) | EN | USR | OS, th); /* MEM_LOAD_RETIRED:L1D_HIT */
        wr(m, EVTSEL0 + 3, EVT(0x0b, 0x03) | EN | USR | OS, th); /* LOADS | STORES */
        pmusim_rec_t t[9];
        size_t n = 0;
        for (int k = 0; k < 4; k++) {
            pmusim_rec_t a = load((uint64_t)k + 1, 4, PMUSIM_LVL_L1D);
            a.thread = th;
            if (k == 2) { /* C: no access */
                a.flags = 0;
                memset(&a.mem, 0, sizeof a.mem);
            }
            a.mem.is_store = k == 1;
            t[n++] = a;
            for (int j = 0; j < 2 && k < 2; j++) {
                pmusim_rec_t x = a;
                x.kind = PMUSIM_REC_MEM;
                x.mem.addr += 8 * ((uint64_t)j + 1);
                x.mem.is_store = k == 0 && j == 1;
                t[n++] = x;
            }
        }
        CU_ASSERT_EQUAL_FATAL(n, 8);
        if (mode == 1) {
            for (size_t i = 0; i < n; i++)
                m->ops->consume(m, &t[i], 1);
            m->ops->finish(m);
        } else {
            run(m, t, n);
        }
        CU_ASSERT_EQUAL(rd(m, PMC0 + 0, th), 3);
        CU_ASSERT_EQUAL(rd(m, PMC0 + 1, th), 2);
        CU_ASSERT_EQUAL(rd(m, PMC0 + 2, th), 5);
        CU_ASSERT_EQUAL(rd(m, PMC0 + 3, th), 3);
        pmusim_model_free(m);
    }
}

/* Events whose unit masks the trace fields hold (issue 10): derived. */
static void test_derived_events_wsm(void)
{
    pmusim_model_t *m = mk("wsm", 1);
    wr(m, EVTSEL0 + 0, EVT(0x51, 0x01) | EN | USR | OS, 0); /* L1D:REPL */
    wr(m, EVTSEL0 + 1, EVT(0xf0, 0x80) | EN | USR | OS, 0); /* L2_TRANSACTIONS:ANY */
    wr(m, EVTSEL0 + 2, EVT(0x88, 0x7f) | EN | USR | OS, 0); /* BR_INST_EXEC:ANY */
    wr(m, EVTSEL0 + 3, EVT(0xb0, 0x01) | EN | USR | OS, 0); /* OFFCORE_REQUESTS:DEMAND_READ_DATA */
    pmusim_rec_t t[] = {load(0, 5, PMUSIM_LVL_L1D), load(1, 12, PMUSIM_LVL_L2),
                        load(2, 40, PMUSIM_LVL_L3),  branch(3, PMUSIM_BR_COND, 1, 1),
                        branch(4, PMUSIM_BR_RET, 1, 1), offcore(5, 0, 0, 8, PMUSIM_OFFCORE_NONE, 9),
                        offcore(6, 0, 1, 8, PMUSIM_OFFCORE_NONE, 9)};
    t[2].mem.is_store = 1;
    run(m, t, G_N_ELEMENTS(t));
    CU_ASSERT_EQUAL(rd(m, PMC0 + 0, 0), 2); /* the L2 load and the L3 store miss L1D */
    CU_ASSERT_EQUAL(rd(m, PMC0 + 1, 0), 2); /* the same two reach L2 */
    CU_ASSERT_EQUAL(rd(m, PMC0 + 2, 0), 2); /* two branches */
    CU_ASSERT_EQUAL(rd(m, PMC0 + 3, 0), 1); /* oc.req 0 (demand data read), not 1 (RFO) */
    pmusim_model_free(m);

    m = mk("wsm", 1);
    wr(m, EVTSEL0 + 0, EVT(0xc2, 0x02) | EN | USR | OS, 0); /* UOPS_RETIRED:RETIRE_SLOTS */
    wr(m, EVTSEL0 + 1, EVT(0x88, 0x41) | EN | USR | OS, 0); /* BR_INST_EXEC: COND | TAKEN */
    pmusim_rec_t u[] = {uops(0, 0, 3), uops(1, 0, 0), branch(2, PMUSIM_BR_COND, 0, 1),
                        branch(3, PMUSIM_BR_IND, 1, 1), branch(4, PMUSIM_BR_IND, 0, 1)};
    run(m, u, G_N_ELEMENTS(u));
    CU_ASSERT_EQUAL(rd(m, PMC0 + 0, 0), 3 + 1 + 3); /* uops 0 counts as 1 */
    CU_ASSERT_EQUAL(rd(m, PMC0 + 1, 0), 2);         /* cond not taken; ind taken */
    pmusim_model_free(m);
}

/* Executed, decoded and issued counts as the retired ones (the trace holds
 * no wrong path), and L1D:M_REPL as the store misses (2026-11-28).  Seven
 * records: a mispredicted taken cond, a mispredicted indirect jump, a
 * correct return, a mispredicted call (uops 0: 1), a store missing to L2,
 * a store hitting L1D, a load missing to L3. */
static void test_derived_exec_issue_wsm(void)
{
    pmusim_model_t *m = mk("wsm", 1);
    wr(m, EVTSEL0 + 0, EVT(0x89, 0x7f) | EN | USR | OS, 0); /* BR_MISP_EXEC:ANY */
    wr(m, EVTSEL0 + 1, EVT(0x89, 0x07) | EN | USR | OS, 0); /* BR_MISP_EXEC:NON_CALLS */
    wr(m, EVTSEL0 + 2, EVT(0xe0, 0x01) | EN | USR | OS, 0); /* BR_INST_DECODED */
    pmusim_rec_t t[] = {branch(0, PMUSIM_BR_COND, 1, 0), branch(1, PMUSIM_BR_IND, 1, 0),
                        branch(2, PMUSIM_BR_RET, 1, 1),  branch(3, PMUSIM_BR_CALL, 1, 0),
                        load(4, 12, PMUSIM_LVL_L2),      load(5, 4, PMUSIM_LVL_L1D),
                        load(6, 40, PMUSIM_LVL_L3)};
    t[4].mem.is_store = 1;
    t[5].mem.is_store = 1;
    t[4].uops = 3;
    run(m, t, G_N_ELEMENTS(t));
    CU_ASSERT_EQUAL(rd(m, PMC0 + 0, 0), 3); /* cond, ind, call */
    CU_ASSERT_EQUAL(rd(m, PMC0 + 1, 0), 2); /* cond, ind: not the call */
    CU_ASSERT_EQUAL(rd(m, PMC0 + 2, 0), 4); /* the four branches */
    pmusim_model_free(m);

    /* UOPS_ISSUED:ANY: from the uops on a model's trace (an annotations
     * key), from the EVENT records on a hand-written one (no key) */
    for (int model_trace = 0; model_trace < 2; model_trace++) {
        m = mk("wsm", 1);
        if (model_trace)
            m->trace_annotations = PMUSIM_ANN_ALL & ~PMUSIM_ANN_SYMBOLS;
        /* L1D events count on IA32_PMC0-1 only (counter-restrictions.csv) */
        wr(m, EVTSEL0 + 0, EVT(0x51, 0x02) | EN | USR | OS, 0); /* L1D:M_REPL */
        wr(m, EVTSEL0 + 2, EVT(0x0e, 0x01) | EN | USR | OS, 0); /* UOPS_ISSUED:ANY */
        pmusim_rec_t e[G_N_ELEMENTS(t) + 1];
        memcpy(e, t, sizeof t);
        e[G_N_ELEMENTS(t)] = event(6, 0x0e, 0x01, 20);
        run(m, e, G_N_ELEMENTS(e));
        CU_ASSERT_EQUAL(rd(m, PMC0 + 0, 0), 1); /* the store missing to L2 */
        /* six of 1 uop (0 counts as 1), one of 3; or the EVENT record's 20 */
        CU_ASSERT_EQUAL(rd(m, PMC0 + 2, 0), model_trace ? 6 + 3 : 20);
        pmusim_model_free(m);
    }
}

/* Executed/decoded branches (issue 9 item 2): the trace holds no wrong
 * path, so they count the retired records; demand L2 data/RFO requests. */
static void test_exec_as_retired_wsm(void)
{
    pmusim_model_t *m = mk("wsm", 1);
    wr(m, EVTSEL0 + 0, EVT(0x89, 0x7f) | EN | USR | OS, 0); /* BR_MISP_EXEC:ANY */
    wr(m, EVTSEL0 + 1, EVT(0x89, 0x41) | EN | USR | OS, 0); /* BR_MISP_EXEC: COND | TAKEN */
    wr(m, EVTSEL0 + 2, EVT(0x89, 0x30) | EN | USR | OS, 0); /* BR_MISP_EXEC:NEAR_CALLS */
    wr(m, EVTSEL0 + 3, EVT(0xe0, 0x01) | EN | USR | OS, 0); /* BR_INST_DECODED */
    /* mispredicted: the cond not taken, the ret taken, the call taken;
     * predicted: an ind taken and a cond taken */
    pmusim_rec_t t[] = {branch(0, PMUSIM_BR_COND, 0, 0), branch(1, PMUSIM_BR_RET, 1, 0),
                        branch(2, PMUSIM_BR_CALL, 1, 0), branch(3, PMUSIM_BR_IND, 1, 1),
                        branch(4, PMUSIM_BR_COND, 1, 1), insn(5, 0, 3)};
    run(m, t, G_N_ELEMENTS(t));
    CU_ASSERT_EQUAL(rd(m, PMC0 + 0, 0), 3); /* cond, ret, call */
    CU_ASSERT_EQUAL(rd(m, PMC0 + 1, 0), 3); /* the cond (COND bit), ret and call (TAKEN bit) */
    CU_ASSERT_EQUAL(rd(m, PMC0 + 2, 0), 1); /* the call */
    CU_ASSERT_EQUAL(rd(m, PMC0 + 3, 0), 5); /* five branches, not the plain insn */
    pmusim_model_free(m);


    /* demand loads and RFOs by their L2 outcome (L2_DATA_RQSTS, L2_WRITE) */
    m = mk("wsm", 1);
    wr(m, EVTSEL0 + 0, EVT(0x26, 0x01) | EN | USR | OS, 0); /* L2_DATA_RQSTS:DEMAND_I_STATE */
    wr(m, EVTSEL0 + 1, EVT(0x26, 0x0f) | EN | USR | OS, 0); /* L2_DATA_RQSTS:DEMAND_MESI */
    wr(m, EVTSEL0 + 2, EVT(0x27, 0x0e) | EN | USR | OS, 0); /* L2_WRITE:RFO_HIT */
    wr(m, EVTSEL0 + 3, EVT(0x27, 0x0f) | EN | USR | OS, 0); /* L2_WRITE:RFO_MESI */
    pmusim_rec_t v[] = {load(0, 4, PMUSIM_LVL_L1D), load(1, 12, PMUSIM_LVL_L2),
                        load(2, 40, PMUSIM_LVL_L3), load(3, 12, PMUSIM_LVL_L2),
                        load(4, 200, PMUSIM_LVL_LOCAL_DRAM), load(5, 4, PMUSIM_LVL_L1D)};
    v[3].mem.is_store = v[4].mem.is_store = v[5].mem.is_store = 1;
    run(m, v, G_N_ELEMENTS(v));
    CU_ASSERT_EQUAL(rd(m, PMC0 + 0, 0), 1); /* the L3 load */
    CU_ASSERT_EQUAL(rd(m, PMC0 + 1, 0), 2); /* the L2 and L3 loads */
    CU_ASSERT_EQUAL(rd(m, PMC0 + 2, 0), 1); /* the L2 store */
    CU_ASSERT_EQUAL(rd(m, PMC0 + 3, 0), 2); /* the L2 and DRAM stores, not the L1D one */
    pmusim_model_free(m);
}

/* L1D:REPL from a producer that emits it as EVENT records (a cache model:
 * "events" annotation) counts those records, not the fields. */
static void test_events_first_rows(void)
{
    pmusim_model_t *m = mk("wsm", 1);
    wr(m, EVTSEL0 + 0, EVT(0x51, 0x01) | EN | USR | OS, 0); /* L1D:REPL */
    m->trace_annotations = PMUSIM_ANN_LEVELS | PMUSIM_ANN_ALLMEM | PMUSIM_ANN_EVENTS;
    pmusim_rec_t t[] = {load(0, 12, PMUSIM_LVL_L2), event(1, 0x51, 0x01, 3)};
    run(m, t, G_N_ELEMENTS(t));
    /* L1D:REPL comes from the fields (the uarch model emits no EVENT record
     * for it, docs/UARCH.md section 5): the L2 load, not the EVENT record */
    CU_ASSERT_EQUAL(rd(m, PMC0, 0), 1);
    CU_ASSERT_EQUAL(status_of(m, "IA32_PMC0"), PMUSIM_COUNT_OK);
    pmusim_model_free(m);
}

/* EVENT bit rows (trace-events.csv; EVBITS rows before session 14):
 * L1I:READS (0x80/0x03) on a model's
 * trace counts the EVENT records of L1I:HITS (0x01) and L1I:MISSES (0x02),
 * which the model writes one per lookup, and not a record of 0x03 (it would
 * count twice); a trace without an annotations key (hand-written) keeps
 * counting its records of exactly 0x03.  Records: HITS 7 (ring 3), HITS 5
 * (ring 0), MISSES 2, READS 100, CYCLES_STALLED (0x04) 50.
 *   model's: READS 7 + 5 + 2 = 14, READS :u 7 + 2 = 9, HITS 12, MISSES 2;
 *   hand-written: READS 100, READS :u 100, HITS 12, MISSES 2.
 * Knights Mill's ICACHE:ACCESSES alike.  A model's trace whose "events"
 * key lists the misses alone (a capture before L1I:HITS) reads READS as
 * <not in trace>: the hits are not there to add. */
static void test_evbits_rows(void)
{
    static const char *const pmus[] = {"wsm", "knm"};
    for (size_t p = 0; p < G_N_ELEMENTS(pmus); p++)
        for (int mode = 0; mode < 3; mode++) {
            const gboolean knm = p == 1;
            pmusim_model_t *m = mk(pmus[p], 1);
            pmusim_trace_header_t h;
            pmusim_trace_header_init(&h, knm ? PMUSIM_CPU_KNM : PMUSIM_CPU_WSM, 1);
            /* mode 0: no annotations key (every annotation); 1: a model's
             * trace listing both; 2: a model's trace listing the misses */
            pmusim_trace_header_set_annotations(
                &h, mode ? PMUSIM_ANN_ALL & ~PMUSIM_ANN_SYMBOLS : PMUSIM_ANN_ALL);
            if (mode)
                pmusim_trace_header_set_meta(&h, "events",
                                             mode == 1 ? "0x80/0x02,0x80/0x01" : "0x80/0x02");
            pmusim_model_set_trace_header(m, &h);
            pmusim_trace_header_clear(&h);
            wr(m, EVTSEL0 + 0, EVT(0x80, 0x03) | EN | USR | OS, 0); /* READS / ACCESSES */
            wr(m, EVTSEL0 + 1, EVT(0x80, 0x03) | EN | USR, 0);
            pmusim_rec_t t[] = {event(0, 0x80, 0x01, 7), event(1, 0x80, 0x01, 5),
                                event(2, 0x80, 0x02, 2), event(3, 0x80, 0x03, 100),
                                event(4, 0x80, 0x04, 50), insn(5, 0, 3)};
            t[1].plm = 0;
            if (mode == 2) /* no hits: the misses alone */
                t[0].ev_umask = t[1].ev_umask = 0x02;
            run(m, t, G_N_ELEMENTS(t));
            const uint64_t want0[] = {100, 14, 7 + 5 + 2}, want1[] = {100, 9, 7 + 2};
            CU_ASSERT_EQUAL(rd(m, PMC0 + 0, 0), want0[mode]);
            CU_ASSERT_EQUAL(rd(m, PMC0 + 1, 0), want1[mode]);
            pmusim_report_t rep;
            pmusim_report_init(&rep);
            m->ops->report(m, &rep);
            const pmusim_counter_result_t *k = result(&rep, "IA32_PMC0", 0);
            CU_ASSERT_EQUAL(k->status, mode == 2 ? PMUSIM_COUNT_NOT_IN_TRACE : PMUSIM_COUNT_OK);
            CU_ASSERT_STRING_EQUAL(k->source, mode ? "EVENT records 0x80/0x01 + 0x80/0x02 (one per "
                                                     "umask bit)"
                                                   : "EVENT records 0x80/0x03");
            pmusim_report_clear(&rep);
            pmusim_model_free(m);
        }
    /* the single bits stay plain EVENT-only events on a model's trace */
    pmusim_model_t *m = mk("wsm", 1);
    m->trace_annotations = PMUSIM_ANN_ALL & ~PMUSIM_ANN_SYMBOLS;
    wr(m, EVTSEL0 + 0, EVT(0x80, 0x01) | EN | USR | OS, 0); /* L1I:HITS */
    wr(m, EVTSEL0 + 1, EVT(0x80, 0x02) | EN | USR | OS, 0); /* L1I:MISSES */
    pmusim_rec_t t[] = {event(0, 0x80, 0x01, 7), event(2, 0x80, 0x02, 2),
                        event(3, 0x80, 0x03, 100)};
    run(m, t, G_N_ELEMENTS(t));
    CU_ASSERT_EQUAL(rd(m, PMC0 + 0, 0), 7);
    CU_ASSERT_EQUAL(rd(m, PMC0 + 1, 0), 2);
    pmusim_model_free(m);
    /* knm PAGE_WALKS:CYCLES (0x05/0x03) = D_SIDE_CYCLES (0x01) + I_SIDE_CYCLES
     * (0x02) on a model's trace: 300 + 30 */
    m = mk("knm", 1);
    m->trace_annotations = PMUSIM_ANN_ALL & ~PMUSIM_ANN_SYMBOLS;
    wr(m, EVTSEL0 + 0, EVT(0x05, 0x03) | EN | USR | OS, 0);
    pmusim_rec_t w[] = {event(0, 0x05, 0x01, 300), event(2, 0x05, 0x02, 30)};
    run(m, w, G_N_ELEMENTS(w));
    CU_ASSERT_EQUAL(rd(m, PMC0 + 0, 0), 330);
    pmusim_model_free(m);
    /* wsm L2_RQSTS:IFETCHES (0x24/0x30) = IFETCH_HIT (0x10) + IFETCH_MISS
     * (0x20); LD_HIT (0x01), a trace-derived bit of the same event, is not
     * added: 4 + 6 */
    m = mk("wsm", 1);
    m->trace_annotations = PMUSIM_ANN_ALL & ~PMUSIM_ANN_SYMBOLS;
    wr(m, EVTSEL0 + 0, EVT(0x24, 0x30) | EN | USR | OS, 0);
    pmusim_rec_t f[] = {event(0, 0x24, 0x10, 4), event(2, 0x24, 0x20, 6), event(3, 0x24, 0x01, 9),
                        load(4, 10, PMUSIM_LVL_L2)};
    run(m, f, G_N_ELEMENTS(f));
    CU_ASSERT_EQUAL(rd(m, PMC0 + 0, 0), 10);
    pmusim_model_free(m);
}

/* Unit masks whose bits have different sources (docs/trace-events-x86.md,
 * "Unit masks that OR EVENT-only bits"): on a model's trace each bit of
 * L2_RQSTS counts from its own source, LD_HIT/LD_MISS/RFO_HIT/RFO_MISS from
 * the MEM fields, IFETCH_* and PREFETCH_* from their EVENT records; EVENT
 * records of a field-derived bit (0x01) or of a whole umask (0xff) add
 * nothing.  A trace without an annotations key counts the EVENT records of
 * exactly the umask. */
static void test_mixed_event_bits(void)
{
    /* umask, then the count on a model's trace and on a hand-written one */
    static const struct {
        uint8_t umask;
        uint64_t model, hand;
    } cases[] = {
        /* loads: 2 L2 hits, 1 L3; stores: 1 L2 hit, 2 DRAM; ifetch 4 hits,
         * 6 misses; no prefetch record */
        {0xff, 2 + 1 + 1 + 2 + 4 + 6, 1000}, /* REFERENCES */
        {0xaa, 1 + 2 + 6, 0},                /* MISS */
        {0x03, 2 + 1, 2 + 1},                /* LOADS: fields on both */
        {0x0c, 1 + 2, 1 + 2},                /* RFOS */
        {0x30, 4 + 6, 0},                    /* IFETCHES */
        {0xc0, 0, 0},                        /* PREFETCHES */
        {0x11, 2 + 4, 70},                   /* LD_HIT | IFETCH_HIT */
        {0x10, 4, 4},                        /* IFETCH_HIT alone: its records */
    };
    for (int run_no = 0; run_no < 4; run_no++) {
        const int hand = run_no & 1;
        const size_t base = run_no < 2 ? 0 : 4; /* four counters a run */
        pmusim_model_t *m = mk("wsm", 1);
        pmusim_trace_header_t h;
        pmusim_trace_header_init(&h, PMUSIM_CPU_WSM, 1);
        pmusim_trace_header_set_annotations(&h, hand ? PMUSIM_ANN_ALL
                                                     : PMUSIM_ANN_ALL & ~PMUSIM_ANN_SYMBOLS);
        if (!hand) /* a model's: the prefetch bits listed, never written */
            pmusim_trace_header_set_meta(&h, "events",
                                         "0x24/0x10,0x24/0x20,0x24/0x40,0x24/0x80");
        pmusim_model_set_trace_header(m, &h);
        pmusim_trace_header_clear(&h);
        for (uint32_t i = 0; i < 4; i++)
            wr(m, EVTSEL0 + i, EVT(0x24, cases[base + i].umask) | EN | USR | OS, 0);
        pmusim_rec_t st[3];
        for (int k = 0; k < 3; k++) {
            st[k] = load((uint64_t)(20 + k), 10, k ? PMUSIM_LVL_LOCAL_DRAM : PMUSIM_LVL_L2);
            st[k].mem.is_store = 1;
        }
        pmusim_rec_t t[] = {load(0, 10, PMUSIM_LVL_L2),   load(1, 10, PMUSIM_LVL_L2),
                            load(2, 40, PMUSIM_LVL_L3),   load(3, 4, PMUSIM_LVL_L1D),
                            event(4, 0x24, 0x10, 4),      event(5, 0x24, 0x20, 6),
                            event(6, 0x24, 0x01, 9),      event(7, 0x24, 0xff, 1000),
                            event(8, 0x24, 0x11, 70),     st[0], st[1], st[2]};
        run(m, t, G_N_ELEMENTS(t));
        for (uint32_t i = 0; i < 4; i++)
            CU_ASSERT_EQUAL(rd(m, PMC0 + i, 0), hand ? cases[base + i].hand : cases[base + i].model);
        if (base == 0) {
            pmusim_report_t rep;
            pmusim_report_init(&rep);
            m->ops->report(m, &rep);
            /* REFERENCES: in the trace on both (the model's lists the
             * prefetch bits); MISS on the hand-written one: no 0x24/0xaa
             * record */
            CU_ASSERT_EQUAL(result(&rep, "IA32_PMC0", 0)->status, PMUSIM_COUNT_OK);
            CU_ASSERT_EQUAL(result(&rep, "IA32_PMC1", 0)->status,
                            hand ? PMUSIM_COUNT_NOT_IN_TRACE : PMUSIM_COUNT_OK);
            if (!hand)
                CU_ASSERT_STRING_EQUAL(result(&rep, "IA32_PMC1", 0)->source,
                                       "each umask bit from its records, fields or EVENT "
                                       "(docs/trace-events-x86.md); EVENT records 0x24/0x20 + "
                                       "0x24/0x80");
            pmusim_report_clear(&rep);
        }
        pmusim_model_free(m);
    }
    /* L2_TRANSACTIONS:ANY (0xf0/0x80): on a model's trace the sum of the
     * seven other bits, LOAD and RFO from the fields (2 + 1 memory records
     * beyond L1D), IFETCH .. WB from their EVENT records (3 + 5 + 7 + 11);
     * a record of 0x80 itself adds nothing there.  A hand-written trace:
     * the fields alone, as before (the row's FILTER), 3. */
    for (int hand = 0; hand < 2; hand++) {
        pmusim_model_t *m = mk("wsm", 1);
        if (!hand)
            m->trace_annotations = PMUSIM_ANN_ALL & ~PMUSIM_ANN_SYMBOLS;
        wr(m, EVTSEL0 + 0, EVT(0xf0, 0x80) | EN | USR | OS, 0);
        pmusim_rec_t st = load(3, 40, PMUSIM_LVL_L3);
        st.mem.is_store = 1;
        pmusim_rec_t t[] = {load(0, 10, PMUSIM_LVL_L2), load(1, 4, PMUSIM_LVL_L1D),
                            load(2, 200, PMUSIM_LVL_LOCAL_DRAM), st,
                            event(4, 0xf0, 0x04, 3), event(5, 0xf0, 0x10, 5),
                            event(6, 0xf0, 0x20, 7), event(7, 0xf0, 0x40, 11),
                            event(8, 0xf0, 0x80, 1000), event(9, 0xf0, 0x01, 500)};
        run(m, t, G_N_ELEMENTS(t));
        CU_ASSERT_EQUAL(rd(m, PMC0 + 0, 0), hand ? 3 : 3 + 3 + 5 + 7 + 11);
        pmusim_model_free(m);
    }
    /* a model's trace whose events key lacks the prefetch bits (a capture
     * made before session 14): REFERENCES reads <not in trace> */
    pmusim_model_t *m = mk("wsm", 1);
    pmusim_trace_header_t h;
    pmusim_trace_header_init(&h, PMUSIM_CPU_WSM, 1);
    pmusim_trace_header_set_annotations(&h, PMUSIM_ANN_ALL & ~PMUSIM_ANN_SYMBOLS);
    pmusim_trace_header_set_meta(&h, "events", "0x24/0x10,0x24/0x20");
    pmusim_model_set_trace_header(m, &h);
    pmusim_trace_header_clear(&h);
    wr(m, EVTSEL0 + 0, EVT(0x24, 0xff) | EN | USR | OS, 0);
    pmusim_rec_t t[] = {load(0, 10, PMUSIM_LVL_L2)};
    run(m, t, G_N_ELEMENTS(t));
    CU_ASSERT_EQUAL(rd(m, PMC0 + 0, 0), 1);
    CU_ASSERT_EQUAL(status_of(m, "IA32_PMC0"), PMUSIM_COUNT_NOT_IN_TRACE);
    pmusim_model_free(m);
}

/* Westmere's L2 line states (session 15): L2_DATA_RQSTS and L2_WRITE unit
 * masks whose I bit comes from the fields (a load / store record beyond L2)
 * and whose S, E, M and prefetch bits from EVENT records.  Records: loads
 * at L2, L1D, DRAM, L3, stores at L3, L2; EVENT records 0x26/0x04 x3, /0x08
 * x5, /0x02 x7, /0x40 x11, /0xff x1000, /0x01 x500 (the I bit's: nothing on
 * a model's trace), 0x27/0x04 x13, /0x08 x17, /0x0c x2000.
 *  L2_DATA_RQSTS:ANY 0xff: a model's trace 2 + 3 + 5 + 7 + 11, a
 *    hand-written one its 1000;
 *  PREFETCH_MESI 0xf0: 11, hand 0;
 *  DEMAND_MESI 0x0f: its own row, loads beyond L1D on both: 3;
 *  L2_WRITE 0x0c (E | M): 13 + 17, hand 2000. */
static void test_l2_state_bits(void)
{
    static const struct {
        uint8_t code, umask;
        uint64_t model, hand;
    } cases[] = {
        {0x26, 0xff, 2 + 3 + 5 + 7 + 11, 1000},
        {0x26, 0xf0, 11, 0},
        {0x26, 0x0f, 3, 3},
        {0x27, 0x0c, 13 + 17, 2000},
    };
    for (int hand = 0; hand < 2; hand++) {
        pmusim_model_t *m = mk("wsm", 1);
        if (!hand)
            m->trace_annotations = PMUSIM_ANN_ALL & ~PMUSIM_ANN_SYMBOLS;
        for (uint32_t i = 0; i < G_N_ELEMENTS(cases); i++)
            wr(m, EVTSEL0 + i, EVT(cases[i].code, cases[i].umask) | EN | USR | OS, 0);
        pmusim_rec_t st[2] = {load(4, 40, PMUSIM_LVL_L3), load(5, 10, PMUSIM_LVL_L2)};
        st[0].mem.is_store = st[1].mem.is_store = 1;
        pmusim_rec_t t[] = {load(0, 10, PMUSIM_LVL_L2),
                            load(1, 4, PMUSIM_LVL_L1D),
                            load(2, 200, PMUSIM_LVL_LOCAL_DRAM),
                            load(3, 40, PMUSIM_LVL_L3),
                            st[0],
                            st[1],
                            event(6, 0x26, 0x04, 3),
                            event(7, 0x26, 0x08, 5),
                            event(8, 0x26, 0x02, 7),
                            event(9, 0x26, 0x40, 11),
                            event(10, 0x26, 0xff, 1000),
                            event(11, 0x26, 0x01, 500),
                            event(12, 0x27, 0x04, 13),
                            event(13, 0x27, 0x08, 17),
                            event(14, 0x27, 0x0c, 2000)};
        run(m, t, G_N_ELEMENTS(t));
        for (uint32_t i = 0; i < G_N_ELEMENTS(cases); i++)
            CU_ASSERT_EQUAL(rd(m, PMC0 + i, 0), hand ? cases[i].hand : cases[i].model);
        pmusim_model_free(m);
    }
}

/* Thresholds on filter events (fed by the filter loop's per-cycle tally),
 * MEM records included. */
static void test_thresholded_filter_events(void)
{
    pmusim_model_t *m = mk("wsm", 1);
    wr(m, EVTSEL0 + 0, EVT(0xc4, 0x00) | EN | USR | OS | CMASK(1) | INV, 0); /* no branch */
    wr(m, EVTSEL0 + 1, EVT(0xcb, 0x01) | EN | USR | OS | CMASK(2), 0); /* >= 2 L1D hits */
    pmusim_rec_t t[] = {branch(0, PMUSIM_BR_COND, 1, 1), insn(1, 0, 3),
                        load(2, 4, PMUSIM_LVL_L1D), load(2, 4, PMUSIM_LVL_L1D),
                        branch(3, PMUSIM_BR_COND, 0, 1), idle(4, 0, 2)};
    t[3].kind = PMUSIM_REC_MEM; /* the load of cycle 2 reads twice */
    run(m, t, G_N_ELEMENTS(t));
    /* no branch in cycles 1, 2, 4, 5; two L1D loads in cycle 2 only */
    CU_ASSERT_EQUAL(rd(m, PMC0 + 0, 0), 4);
    CU_ASSERT_EQUAL(rd(m, PMC0 + 1, 0), 1);
    pmusim_model_free(m);
}

/* A further memory access (MEM record) is a load or store, not an
 * instruction. */
static void test_mem_records(void)
{
    pmusim_model_t *m = mk("wsm", 1);
    wr(m, EVTSEL0 + 0, EVT(0x0b, 0x01) | EN | USR | OS, 0); /* MEM_INST_RETIRED:LOADS */
    wr(m, EVTSEL0 + 1, EVT(0x0b, 0x02) | EN | USR | OS, 0); /* MEM_INST_RETIRED:STORES */
    wr(m, EVTSEL0 + 2, EVT(0xc0, 0x01) | EN | USR | OS, 0); /* INST_RETIRED */
    wr(m, EVTSEL0 + 3, EVT(0xc2, 0x01) | EN | USR | OS, 0); /* UOPS_RETIRED */
    pmusim_rec_t t[] = {load(0, 5, PMUSIM_LVL_L1D), load(0, 5, PMUSIM_LVL_L1D),
                        load(1, 5, PMUSIM_LVL_L1D)};
    t[1].kind = PMUSIM_REC_MEM; /* the first instruction also stores */
    t[1].flags = 0;
    t[1].mem.is_store = 1;
    run(m, t, G_N_ELEMENTS(t));
    expect_pmcs(m, 2, 1, 2, 2);
    pmusim_model_free(m);
}

/* A memory part at addr of size bytes, load or store (INSN record, or a
 * further part: MEM record). */
static pmusim_rec_t mem_part(uint64_t cycle, uint8_t kind, uint64_t addr, uint8_t size,
                             int store)
{
    pmusim_rec_t r = load(cycle, 4, PMUSIM_LVL_L1D);
    r.kind = kind;
    r.flags = kind == PMUSIM_REC_MEM ? 0 : PMUSIM_F_MEM;
    r.mem.addr = addr;
    r.mem.size = size;
    r.mem.is_store = (uint8_t)store;
    return r;
}

/* knm RECYCLEQ:LD_SPLITS / ST_SPLITS: loads / stores whose bytes cross a
 * 64-byte line, one per memory part (docs/trace-events-x86.md, "Line
 * splits"). */
static void test_line_splits_knm(void)
{
    const uint8_t I = PMUSIM_REC_INSN, M = PMUSIM_REC_MEM;
    pmusim_rec_t t[] = {
        mem_part(1, I, 0x1000, 8, 0),  /* offset 0 + 8: within */
        mem_part(2, I, 0x1038, 8, 0),  /* 56 + 8 = 64: ends at the line's end, within */
        mem_part(3, I, 0x1039, 8, 0),  /* 57 + 8 = 65: split load */
        mem_part(4, I, 0x107f, 2, 1),  /* 63 + 2 = 65: split store */
        mem_part(4, M, 0x10c0, 64, 0), /* 0 + 64: a whole line, within */
        mem_part(5, I, 0x1130, 32, 0), /* 48 + 32 = 80: split load */
        mem_part(5, M, 0x1121, 32, 0), /* 33 + 32 = 65: its second part splits too */
        mem_part(6, I, 0x2000, 16, 1), /* within */
        mem_part(6, M, 0x203c, 8, 1),  /* 60 + 8 = 68: split store (MEM part) */
        insn(7, 0, 3),                 /* no memory part */
        mem_part(8, I, 0x3ffc, 0, 0),  /* size 0 (unknown): never a split */
    };
    for (int pass = 0; pass < 2; pass++) {
        pmusim_model_t *m = mk("knm", 1);
        if (pass == 0) { /* split loads, split stores */
            wr(m, EVTSEL0 + 0, EVT(0x03, 0x08) | EN | USR | OS, 0);
            wr(m, EVTSEL0 + 1, EVT(0x03, 0x04) | EN | USR | OS, 0);
        } else { /* split loads beside every load (MEM_UOPS_RETIRED:ALL_LOADS) */
            wr(m, EVTSEL0 + 0, EVT(0x03, 0x08) | EN | USR | OS, 0);
            wr(m, EVTSEL0 + 1, EVT(0x04, 0x40) | EN | USR | OS, 0);
        }
        run(m, t, G_N_ELEMENTS(t));
        /* loads split at cycles 3, 5 and 5 (MEM); stores at 4 and 6 (MEM);
         * loads: cycles 1, 2, 3, 4 (MEM), 5, 5 (MEM), 8 */
        CU_ASSERT_EQUAL(rd(m, PMC0 + 0, 0), 3);
        CU_ASSERT_EQUAL(rd(m, PMC0 + 1, 0), pass == 0 ? 2 : 7);
        pmusim_model_free(m);
    }
}

/* A memory part at `level` (locked: flag bit 14 on the INSN record). */
static pmusim_rec_t lock_part(uint64_t cycle, uint8_t kind, uint64_t addr, int store,
                              unsigned level, int locked)
{
    pmusim_rec_t r = mem_part(cycle, kind, addr, 8, store);
    r.mem.level = (uint8_t)level;
    if (locked)
        r.flags |= PMUSIM_F_LOCK;
    return r;
}

/* Locked instructions (docs/trace-events-x86.md, "Locked instructions"):
 * the INSN record's memory part is the locked load, counted once per
 * instruction (its MEM store part is not locked); wsm L2_WRITE:LOCK_I_STATE
 * (0x27/0x10), LOCK_HIT (0xe0), LOCK_MESI (0xf0), SQ_MISC:SPLIT_LOCK
 * (0xf4/0x10), knm RECYCLEQ:LOCK (0x03/0x10); without the "lock"
 * annotation each reads <not in trace>. */
static void test_locked_insns(void)
{
    const uint8_t I = PMUSIM_REC_INSN, M = PMUSIM_REC_MEM;
    const unsigned L1 = PMUSIM_LVL_L1D, L2 = PMUSIM_LVL_L2, D = PMUSIM_LVL_LOCAL_DRAM;
    pmusim_rec_t t[] = {
        lock_part(1, I, 0x1000, 0, L2, 1), /* lock xadd: hits L2 */
        lock_part(1, M, 0x1000, 1, L1, 0),
        lock_part(2, I, 0x203c, 0, D, 1),  /* a split lock missing L2 */
        lock_part(2, M, 0x203c, 1, L1, 0),
        lock_part(3, I, 0x3000, 0, L2, 0), /* a plain load at L2 */
        lock_part(4, I, 0x4000, 0, L1, 1), /* xchg: hits L1D */
        lock_part(4, M, 0x4000, 1, L2, 0), /* a store part at L2: not a lock RFO */
        lock_part(5, I, 0x503c, 1, D, 0),  /* a plain split store */
        lock_part(6, I, 0x603c, 0, L1, 0), /* a plain split load */
    };
    for (int ann = 0; ann < 2; ann++) {
        pmusim_model_t *m = mk("wsm", 1);
        m->trace_annotations = ann ? PMUSIM_ANN_ALL : PMUSIM_ANN_ALL & ~PMUSIM_ANN_LOCK;
        wr(m, EVTSEL0 + 0, EVT(0x27, 0x10) | EN | USR | OS, 0);
        wr(m, EVTSEL0 + 1, EVT(0x27, 0xe0) | EN | USR | OS, 0);
        wr(m, EVTSEL0 + 2, EVT(0x27, 0xf0) | EN | USR | OS, 0);
        wr(m, EVTSEL0 + 3, EVT(0xf4, 0x10) | EN | USR | OS, 0);
        run(m, t, G_N_ELEMENTS(t));
        pmusim_report_t rep;
        pmusim_report_init(&rep);
        m->ops->report(m, &rep);
        static const char *const pmc[] = { "IA32_PMC0", "IA32_PMC1", "IA32_PMC2", "IA32_PMC3" };
        const uint64_t want[] = { 1, 1, 2, 1 };
        for (unsigned k = 0; k < 4; k++) {
            const pmusim_counter_result_t *r = result(&rep, pmc[k], 0);
            CU_ASSERT_EQUAL(r->status, ann ? PMUSIM_COUNT_OK : PMUSIM_COUNT_NOT_IN_TRACE);
            if (ann) {
                CU_ASSERT_EQUAL(r->value, want[k]);
            } else {
                CU_ASSERT_PTR_NOT_NULL(strstr(r->source, "the trace lacks lock"));
            }
        }
        pmusim_report_clear(&rep);
        pmusim_model_free(m);
    }
    pmusim_model_t *m = mk("knm", 1);
    wr(m, EVTSEL0 + 0, EVT(0x03, 0x10) | EN | USR | OS, 0); /* RECYCLEQ:LOCK */
    wr(m, EVTSEL0 + 1, EVT(0x03, 0x08) | EN | USR | OS, 0); /* RECYCLEQ:LD_SPLITS beside it */
    run(m, t, G_N_ELEMENTS(t));
    CU_ASSERT_EQUAL(rd(m, PMC0 + 0, 0), 3);
    CU_ASSERT_EQUAL(rd(m, PMC0 + 1, 0), 2);
    pmusim_model_free(m);
}

/* Line fill buffers (docs/trace-events-x86.md, "Line fill buffers"): wsm
 * MEM_LOAD_RETIRED:HIT_LFB (0xcb/0x40) counts the loads at level lfb,
 * L1D_HIT (0xcb/0x01) those at l1d, neither the stores; on the fast loop
 * and the general path.  Without the "lfb" annotation both read <not in
 * trace> (an older model's l1d loads hold its fill-buffer hits), L2_HIT
 * (0xcb/0x02) still counts. */
static void test_lfb_hits(void)
{
    const uint8_t I = PMUSIM_REC_INSN, M = PMUSIM_REC_MEM;
    const unsigned L1 = PMUSIM_LVL_L1D, L2 = PMUSIM_LVL_L2, F = PMUSIM_LVL_LFB;
    pmusim_rec_t t[] = {
        lock_part(1, I, 0x1000, 0, L2, 0), /* the miss */
        lock_part(2, I, 0x1008, 0, F, 0),  /* fill-buffer hits */
        lock_part(2, I, 0x1010, 0, F, 0),
        lock_part(3, I, 0x1018, 1, F, 0),  /* a store at lfb: not a load */
        lock_part(4, I, 0x1020, 0, L1, 0), /* after the fill */
        lock_part(5, I, 0x2000, 1, L1, 0), /* a store, then */
        lock_part(5, M, 0x2000, 0, F, 0),  /* a further (load) part at lfb */
    };
    for (int ann = 0; ann < 2; ann++)
        for (int general = 0; general < 2; general++) {
            pmusim_model_t *m = mk_path("wsm", 1, general);
            m->trace_annotations = ann ? PMUSIM_ANN_ALL : PMUSIM_ANN_ALL & ~PMUSIM_ANN_LFB;
            wr(m, EVTSEL0 + 0, EVT(0xcb, 0x40) | EN | USR | OS, 0);
            wr(m, EVTSEL0 + 1, EVT(0xcb, 0x01) | EN | USR | OS, 0);
            wr(m, EVTSEL0 + 2, EVT(0xcb, 0x02) | EN | USR | OS, 0);
            wr(m, EVTSEL0 + 3, EVT(0xcb, 0x41) | EN | USR | OS, 0); /* L1D_HIT | HIT_LFB */
            run(m, t, G_N_ELEMENTS(t));
            pmusim_report_t rep;
            pmusim_report_init(&rep);
            m->ops->report(m, &rep);
            static const char *const pmc[] = { "IA32_PMC0", "IA32_PMC1", "IA32_PMC2",
                                               "IA32_PMC3" };
            const uint64_t want[] = { 3, 1, 1, 4 };
            for (unsigned k = 0; k < 4; k++) {
                const pmusim_counter_result_t *r = result(&rep, pmc[k], 0);
                if (ann || k == 2) {
                    CU_ASSERT_EQUAL(r->status, PMUSIM_COUNT_OK);
                    CU_ASSERT_EQUAL(r->value, want[k]);
                } else {
                    CU_ASSERT_EQUAL(r->status, PMUSIM_COUNT_NOT_IN_TRACE);
                    CU_ASSERT_PTR_NOT_NULL(strstr(r->source, "the trace lacks lfb"));
                }
            }
            pmusim_report_clear(&rep);
            pmusim_model_free(m);
        }
}

/* A memory part of `size` bytes, the INSN record's marked a
 * store-forwarding block (flag bit 15) when `blocked`. */
static pmusim_rec_t stfwd_part(uint64_t cycle, uint8_t kind, uint64_t addr, uint8_t size,
                               int store, int blocked)
{
    pmusim_rec_t r = mem_part(cycle, kind, addr, size, store);
    if (blocked)
        r.flags |= PMUSIM_F_STFWD_BLOCK;
    return r;
}

/* PMC0 of `pmu` counting `evt` with PEBS, preset to wrap at its first
 * count, over the records t: exactly one PEBS record, `want`, and the
 * counter at 1 after it (the count that fired the assist). */
static void check_one_pebs(const char *pmu, uint64_t evt, const pmusim_rec_t *t, size_t n,
                           const char *want)
{
    pmusim_model_t *m = mk(pmu, 1);
    wr(m, EVTSEL0 + 0, evt | EN | USR | OS, 0);
    wr(m, PMC0 + 0, (uint64_t)-1, 0);
    wr(m, PEBS_EN, 0x1, 0);
    run(m, t, n);
    pmusim_report_t rep;
    pmusim_report_init(&rep);
    m->ops->report(m, &rep);
    CU_ASSERT_EQUAL_FATAL(rep.captures->len, 1);
    CU_ASSERT_STRING_EQUAL(g_ptr_array_index(rep.captures, 0), want);
    CU_ASSERT_EQUAL(rd(m, PMC0 + 0, 0), 1);
    pmusim_report_clear(&rep);
    pmusim_model_free(m);
}

/* Store-forwarding blocks (docs/trace-events-x86.md, "Store-forwarding
 * blocks"): INSN records whose load carries flag bit 15, once per
 * instruction; a MEM record (no flags of its own) and a store never count.
 * wsm LOAD_BLOCK:OVERLAP_STORE (0x03/0x02), knm
 * RECYCLEQ:LD_BLOCK_ST_FORWARD (0x03/0x01), each `<not in trace>` without
 * the "stfwd" annotation; knm's is PEBS-capable on PMC0: armed when it
 * wraps, the assist fires at its next count, the next blocked load's INSN
 * record (SDM: the next qualifying event), whose following IP it holds. */
static void test_stfwd_blocks(void)
{
    const uint8_t I = PMUSIM_REC_INSN, M = PMUSIM_REC_MEM;
    pmusim_rec_t t[] = {
        stfwd_part(1, I, 0x1000, 1, 1, 0), /* a byte store */
        stfwd_part(2, I, 0x1000, 4, 0, 1), /* a 4-byte load over it: blocked */
        stfwd_part(3, I, 0x2000, 8, 0, 1), /* a read-modify-write's blocked load */
        stfwd_part(3, M, 0x2000, 8, 1, 0), /* ... and its store */
        stfwd_part(3, M, 0x3000, 4, 0, 0), /* a further load part: not the INSN's */
        stfwd_part(4, I, 0x4000, 8, 1, 1), /* a store with the flag: not a load */
        stfwd_part(5, I, 0x5000, 4, 0, 0), /* a plain load */
        stfwd_part(6, I, 0x6000, 4, 0, 0),
    };
    static const struct { const char *pmu; uint8_t code, umask; } ev[] = {
        { "wsm", 0x03, 0x02 }, { "wsm_dp", 0x03, 0x02 }, { "knm", 0x03, 0x01 } };
    for (unsigned k = 0; k < G_N_ELEMENTS(ev); k++)
        for (int ann = 0; ann < 2; ann++) {
            pmusim_model_t *m = mk(ev[k].pmu, 1);
            m->trace_annotations = ann ? PMUSIM_ANN_ALL : PMUSIM_ANN_ALL & ~PMUSIM_ANN_STFWD;
            wr(m, EVTSEL0 + 0, EVT(ev[k].code, ev[k].umask) | EN | USR | OS, 0);
            run(m, t, G_N_ELEMENTS(t));
            pmusim_report_t rep;
            pmusim_report_init(&rep);
            m->ops->report(m, &rep);
            const pmusim_counter_result_t *r = result(&rep, "IA32_PMC0", 0);
            CU_ASSERT_EQUAL(r->status, ann ? PMUSIM_COUNT_OK : PMUSIM_COUNT_NOT_IN_TRACE);
            if (ann) {
                CU_ASSERT_EQUAL(r->value, 2);
            } else {
                CU_ASSERT_PTR_NOT_NULL(strstr(r->source, "the trace lacks stfwd"));
            }
            pmusim_report_clear(&rep);
            pmusim_model_free(m);
        }
    /* armed at the first blocked load (cycle 2), the assist at the next
     * (cycle 3, the read-modify-write): the IP after it, 0x40000c + 4 */
    check_one_pebs("knm", EVT(0x03, 0x01), t, G_N_ELEMENTS(t),
                   "PEBS cycle=3 thread=0 IA32_PMC0 ip=0x400010");
}

/* An INSN record at `cycle`, ip 0x401000 + 8 * cycle + `at`: the first
 * of a macro-fused pair (fused), a conditional branch (br) or a plain one;
 * load: with a memory part. */
static pmusim_rec_t fuse_part(uint64_t cycle, unsigned at, int fused, int br, int load)
{
    pmusim_rec_t r = load ? mem_part(cycle, PMUSIM_REC_INSN, 0x1000 + 64 * cycle, 4, 0)
                          : insn(cycle, 0, 3);
    r.ip = 0x401000 + 8 * cycle + at;
    r.len = at ? 2 : 3;
    if (fused)
        r.flags |= PMUSIM_OPK_FUSED << PMUSIM_F_OPKIND_SHIFT;
    if (br) {
        r.flags |= PMUSIM_F_BRANCH;
        r.br.kind = PMUSIM_BR_COND;
        r.br.target = 0x401000;
    }
    return r;
}

/* Macro-fusion (docs/trace-events-x86.md, "Macro-fusion"): wsm and wsm_dp
 * UOPS_RETIRED:MACRO_FUSED (0xc2/0x04) and MACRO_INSTS_FUSIONS_DECODED
 * (0xa6/0x01) count the INSN records of operation kind fused, one per pair
 * (2 here: a register and a memory form; an unmarked CMP-Jcc and a plain
 * instruction do not count).  Without the "fuse" annotation, or with
 * "opkind" alone (a trace of before session 20, whose CMPs are unmarked),
 * both read <not in trace>.  MACRO_FUSED is PEBS-capable: armed when PMC0
 * wraps at the first pair, the assist fires at the second (cycle 2), with
 * the IP after its record, 0x401010 + 3. */
static void test_macro_fused(void)
{
    pmusim_rec_t t[] = {
        fuse_part(1, 0, 1, 0, 0), fuse_part(1, 3, 0, 1, 0), /* cmp reg, reg; jne */
        fuse_part(2, 0, 1, 0, 1), fuse_part(2, 3, 0, 1, 0), /* cmp reg, [mem]; jb */
        fuse_part(3, 0, 0, 0, 0), fuse_part(3, 3, 0, 1, 0), /* cmp [mem], imm; jne: unmarked */
        fuse_part(4, 0, 0, 0, 0),
    };
    static const uint32_t anns[] = { PMUSIM_ANN_ALL, PMUSIM_ANN_ALL & ~PMUSIM_ANN_FUSE,
                                     PMUSIM_ANN_BRKIND | PMUSIM_ANN_OPKIND };
    static const char *const pmus[] = { "wsm", "wsm_dp" };
    for (unsigned k = 0; k < G_N_ELEMENTS(pmus); k++)
        for (unsigned a = 0; a < G_N_ELEMENTS(anns); a++) {
            pmusim_model_t *m = mk(pmus[k], 1);
            m->trace_annotations = anns[a];
            wr(m, EVTSEL0 + 0, EVT(0xc2, 0x04) | EN | USR | OS, 0);
            wr(m, EVTSEL0 + 1, EVT(0xa6, 0x01) | EN | USR | OS, 0);
            run(m, t, G_N_ELEMENTS(t));
            pmusim_report_t rep;
            pmusim_report_init(&rep);
            m->ops->report(m, &rep);
            static const char *const pmc[] = { "IA32_PMC0", "IA32_PMC1" };
            for (unsigned c = 0; c < 2; c++) {
                const pmusim_counter_result_t *r = result(&rep, pmc[c], 0);
                CU_ASSERT_EQUAL(r->status, a ? PMUSIM_COUNT_NOT_IN_TRACE : PMUSIM_COUNT_OK);
                if (a == 1 && c == 1) {
                    /* a model's trace (events): the decoded pairs are its
                     * EVENT records, none here (test_decoded_records) */
                    CU_ASSERT_PTR_NOT_NULL(strstr(r->source, "0xa6/0x01"));
                } else if (a) {
                    CU_ASSERT_PTR_NOT_NULL(strstr(r->source, "the trace lacks fuse"));
                } else {
                    CU_ASSERT_EQUAL(r->value, 2);
                }
            }
            pmusim_report_clear(&rep);
            pmusim_model_free(m);
        }
    check_one_pebs("wsm", EVT(0xc2, 0x04), t, G_N_ELEMENTS(t),
                   "PEBS cycle=2 thread=0 IA32_PMC0 ip=0x401013");
}

/* The decoders' counts (docs/trace-events-x86.md, "Decoded
 * instructions"): the model writes MACRO_INSTS:DECODED (0xd0/0x01),
 * INST_QUEUE_WRITES (0x17/0x01) and MACRO_INSTS_FUSIONS_DECODED
 * (0xa6/0x01) as summed EVENT records of the instructions and pairs the
 * loop stream detector did not stream.  test_macro_fused's seven records
 * (two fused pairs) with EVENT records of 5 decoded instructions and 1
 * decoded pair: on a model's trace (annotations with events; the key
 * lists the three) DECODED 5, INST_QUEUE_WRITES 5, FUSIONS_DECODED 1 (the
 * records, not the 2 fused INSN records: the row is `ev`), MACRO_FUSED 2;
 * the same without the records: 0, 0, 0, 2; without the key and records
 * (a capture of session 20): <not in trace> for the three; a hand-written
 * trace (no annotations key) with the records: 5, 5, and FUSIONS_DECODED
 * from its fields, 2. */
static void test_decoded_records(void)
{
    pmusim_rec_t base[] = {
        fuse_part(1, 0, 1, 0, 0), fuse_part(1, 3, 0, 1, 0), fuse_part(2, 0, 1, 0, 1),
        fuse_part(2, 3, 0, 1, 0), fuse_part(3, 0, 0, 0, 0), fuse_part(3, 3, 0, 1, 0),
        fuse_part(4, 0, 0, 0, 0),
    };
    enum { MODEL_KEY, MODEL_NO_RECS, MODEL_NO_KEY, HAND };
    for (int v = MODEL_KEY; v <= HAND; v++) {
        pmusim_rec_t t[G_N_ELEMENTS(base) + 3];
        size_t n = 0;
        for (size_t i = 0; i < G_N_ELEMENTS(base); i++)
            t[n++] = base[i];
        if (v == MODEL_KEY || v == HAND) {
            t[n++] = event(4, 0xd0, 0x01, 5);
            t[n++] = event(4, 0x17, 0x01, 5);
            t[n++] = event(4, 0xa6, 0x01, 1);
        }
        pmusim_model_t *m = mk("wsm", 1);
        pmusim_trace_header_t h;
        pmusim_trace_header_init(&h, PMUSIM_CPU_WSM, 1);
        if (v != HAND)
            pmusim_trace_header_set_annotations(&h, PMUSIM_ANN_ALL & ~PMUSIM_ANN_ALAT);
        if (v == MODEL_KEY || v == MODEL_NO_RECS) {
            pmusim_trace_header_set_meta(&h, "events", "0xd0/0x01,0x17/0x01,0xa6/0x01");
            pmusim_trace_header_set_meta(&h, "evsum", "0xd0/0x01,0x17/0x01,0xa6/0x01");
        }
        pmusim_model_set_trace_header(m, &h);
        pmusim_trace_header_clear(&h);
        wr(m, EVTSEL0 + 0, EVT(0xd0, 0x01) | EN | USR | OS, 0); /* MACRO_INSTS:DECODED */
        wr(m, EVTSEL0 + 1, EVT(0x17, 0x01) | EN | USR | OS, 0); /* INST_QUEUE_WRITES */
        wr(m, EVTSEL0 + 2, EVT(0xa6, 0x01) | EN | USR | OS, 0); /* FUSIONS_DECODED */
        wr(m, EVTSEL0 + 3, EVT(0xc2, 0x04) | EN | USR | OS, 0); /* UOPS_RETIRED:MACRO_FUSED */
        run(m, t, n);
        pmusim_report_t rep;
        pmusim_report_init(&rep);
        m->ops->report(m, &rep);
        static const uint64_t want[4][4] = {
            { 5, 5, 1, 2 }, { 0, 0, 0, 2 }, { 0, 0, 0, 2 }, { 5, 5, 2, 2 },
        };
        static const char *const pmc[4] = { "IA32_PMC0", "IA32_PMC1", "IA32_PMC2", "IA32_PMC3" };
        for (int k = 0; k < 4; k++) {
            const pmusim_counter_result_t *c = result(&rep, pmc[k], 0);
            if (v == MODEL_NO_KEY && k < 3) {
                CU_ASSERT_EQUAL(c->status, PMUSIM_COUNT_NOT_IN_TRACE);
            } else {
                CU_ASSERT_EQUAL(c->status, PMUSIM_COUNT_OK);
                CU_ASSERT_EQUAL(c->value, want[v][k]);
            }
        }
        pmusim_report_clear(&rep);
        pmusim_model_free(m);
    }
}

/* An INSN record of `n` uops at `cycle` on thread 0, the first of a
 * macro-fused pair when fused (operation kind 10). */
static pmusim_rec_t fuse_uops(uint64_t cycle, uint32_t n, int fused)
{
    pmusim_rec_t r = uops(cycle, 0, n);
    if (fused)
        r.flags |= PMUSIM_OPK_FUSED << PMUSIM_F_OPKIND_SHIFT;
    return r;
}

/* Macro-fusion in the uop counts (docs/trace-events-x86.md, "Macro-fusion"):
 * on wsm and wsm_dp UOPS_RETIRED:ANY (0xc2/0x01), RETIRE_SLOTS (0xc2/0x02)
 * and UOPS_ISSUED:ANY (0x0e/0x01) weigh the first record of a fused pair
 * one uop less (the pair's uop is its branch's), records of one cycle
 * summing.  The records (F: fused first), uops, and each cycle's sum with
 * "fuse" / with the marks cleared (a trace without the annotation has no
 * kind 10: traces/FORMAT.md §2):
 *   cycle 1: F cmp 1, jne 1            0+1 = 1 / 2
 *   cycle 2: F cmp reg,[mem] 2, jb 1   1+1 = 2 / 3
 *   cycle 3: F cmp 1 (its jcc next)    0     / 1
 *   cycle 4: jne 1, add 3              1+3 = 4 / 4
 *   cycle 5: F cmp, uops 0 (as 1)      0     / 1
 *   cycle 6: jcc 1                     1     / 1
 *   cycle 7: none                      0     / 0
 *   cycle 8: an instruction of 2       2     / 2
 * and cycle 0, before the first record, 0.  Sums 10 / 14 (14 uops less 4
 * pairs); c=1: cycles 1 2 4 6 8 = 5 / 1-6 and 8 = 7; c=2: cycles 2 4 8 =
 * 3 / 1 2 4 8 = 4; c=1 inv: cycles 0 3 5 7 = 4 / 0 7 = 2; c=1 edge: rising
 * at 1 4 6 8 = 4 / 1 8 = 2; c=1 inv edge (cycles of no uop after one with
 * some; cycle 0 after none before the trace, which counts): 0 3 5 7 = 4 /
 * 0 7 = 2; c=3: cycle 4 = 1 / 2 4 = 2.  Both paths (the fast loop's rare branch, the general one).  knm does not
 * fuse: UOPS_RETIRED:ALL (0xc2/0x10) is 14 with the marks. */
static void test_fused_uops(void)
{
    pmusim_rec_t t[] = {
        fuse_uops(1, 1, 1), fuse_uops(1, 1, 0), fuse_uops(2, 2, 1), fuse_uops(2, 1, 0),
        fuse_uops(3, 1, 1), fuse_uops(4, 1, 0), fuse_uops(4, 3, 0), fuse_uops(5, 0, 1),
        fuse_uops(6, 1, 0), fuse_uops(8, 2, 0),
    };
    pmusim_rec_t plain[G_N_ELEMENTS(t)];
    for (unsigned i = 0; i < G_N_ELEMENTS(t); i++) {
        plain[i] = t[i];
        plain[i].flags = 0;
    }
    /* a model's trace (an annotations key): with and without "fuse" */
    const uint32_t with = PMUSIM_ANN_ALL & ~PMUSIM_ANN_STFWD;
    const uint32_t without = PMUSIM_ANN_ALL & ~PMUSIM_ANN_FUSE;
    static const char *const pmus[] = { "wsm", "wsm_dp" };
    for (unsigned k = 0; k < G_N_ELEMENTS(pmus); k++)
        for (int general = 0; general < 2; general++)
            for (int f = 0; f < 2; f++) {
                const pmusim_rec_t *tr = f ? t : plain;
                pmusim_model_t *m = mk_path(pmus[k], 1, general);
                m->trace_annotations = f ? with : without;
                wr(m, EVTSEL0 + 0, EVT(0xc2, 0x01) | EN | USR | OS, 0);
                wr(m, EVTSEL0 + 1, EVT(0xc2, 0x02) | EN | USR | OS, 0);
                wr(m, EVTSEL0 + 2, EVT(0x0e, 0x01) | EN | USR | OS, 0);
                wr(m, EVTSEL0 + 3, EVT(0xc2, 0x01) | EN | USR | OS | CMASK(1), 0);
                run(m, tr, G_N_ELEMENTS(t));
                if (f)
                    expect_pmcs(m, 10, 10, 10, 5);
                else
                    expect_pmcs(m, 14, 14, 14, 7);
                pmusim_model_free(m);

                m = mk_path(pmus[k], 1, general);
                m->trace_annotations = f ? with : without;
                wr(m, EVTSEL0 + 0, EVT(0xc2, 0x02) | EN | USR | OS | CMASK(2), 0);
                wr(m, EVTSEL0 + 1, EVT(0xc2, 0x01) | EN | USR | OS | CMASK(1) | INV, 0);
                wr(m, EVTSEL0 + 2, EVT(0x0e, 0x01) | EN | USR | OS | CMASK(1) | EDGE, 0);
                wr(m, EVTSEL0 + 3, EVT(0xc2, 0x01) | EN | USR | OS | CMASK(1) | INV | EDGE, 0);
                run(m, tr, G_N_ELEMENTS(t));
                if (f)
                    expect_pmcs(m, 3, 4, 4, 4);
                else
                    expect_pmcs(m, 4, 2, 2, 2);
                pmusim_model_free(m);

                m = mk_path(pmus[k], 1, general);
                m->trace_annotations = f ? with : without;
                wr(m, EVTSEL0 + 0, EVT(0x0e, 0x01) | EN | USR | OS | CMASK(3), 0);
                run(m, tr, G_N_ELEMENTS(t));
                CU_ASSERT_EQUAL(rd(m, PMC0 + 0, 0), f ? 1 : 2);
                pmusim_model_free(m);

                /* two thresholds of uops on the thread (the X86_HIST_TWO
                 * running count, not its raw-uops form); c=2 inv: the 9
                 * cycles 0-8 less c=2's */
                m = mk_path(pmus[k], 1, general);
                m->trace_annotations = f ? with : without;
                wr(m, EVTSEL0 + 0, EVT(0xc2, 0x01) | EN | USR | OS | CMASK(2), 0);
                wr(m, EVTSEL0 + 1, EVT(0xc2, 0x02) | EN | USR | OS | CMASK(1) | INV, 0);
                wr(m, EVTSEL0 + 2, EVT(0x0e, 0x01) | EN | USR | OS | CMASK(1), 0);
                wr(m, EVTSEL0 + 3, EVT(0x0e, 0x01) | EN | USR | OS | CMASK(2) | INV, 0);
                run(m, tr, G_N_ELEMENTS(t));
                if (f)
                    expect_pmcs(m, 3, 4, 5, 6);
                else
                    expect_pmcs(m, 4, 2, 7, 5);
                pmusim_model_free(m);
            }
    pmusim_model_t *m = mk("knm", 1);
    m->trace_annotations = with;
    wr(m, EVTSEL0 + 0, EVT(0xc2, 0x10) | EN | USR | OS, 0);
    run(m, t, G_N_ELEMENTS(t));
    CU_ASSERT_EQUAL(rd(m, PMC0 + 0, 0), 14);
    pmusim_model_free(m);
}

/* fuse_uops() with the flags `fl` added (an FP/SIMD class, PMUSIM_F_OFFCORE)
 * and, for an offcore one, a demand data read (oc.req 0) from the L3 of
 * `lat` cycles. */
static pmusim_rec_t fuse_flags(uint64_t cycle, int fused, uint16_t fl, uint32_t lat)
{
    pmusim_rec_t r = fuse_uops(cycle, 1, fused);
    r.flags |= fl;
    if (fl & PMUSIM_F_OFFCORE) {
        r.oc.req = 0;
        r.oc.supplier = 8;
        r.oc.snoop = 0;
        r.oc.latency = lat;
    }
    return r;
}

/* The fused weight in a thread's running counts (x86_fast_hist_fused())
 * when the fused record carries another bit of the fast loop's record-word
 * mask: an x87 or mmx class with FP_MMX_TRANS programmed (loop_fpx_stop),
 * or PMUSIM_F_OFFCORE with OFFCORE_REQUESTS_OUTSTANDING (loop_oc_stop).
 * Such a record misses the short path at the head of the rare branch and
 * takes its second fused site, after the FP_MMX_TRANS step or beside the
 * request's start.  Every record has one uop; F: fused first (weight 0).
 *   FP:      cycle 1 x87, 2 F x87, 3 mmx, 4 F x87, 5 none
 *            FP_MMX_TRANS:ANY 2 (to mmx at 3, to fp at 4); UOPS_RETIRED:ANY
 *            3 (5 less 2 pairs); c=1: cycles 1 3 5 = 3; c=1 inv: 0 2 4 = 3;
 *            c=1 edge: rising at 1 3 5 = 3; c=1 inv edge: 0 2 4 = 3
 *   offcore: cycle 1 F read [1,3), 2 plain, 3 F read [3,4), 4 plain
 *            0x60/0x01 2 + 1 = 3; UOPS_RETIRED:ANY 2; c=1: 2 4 = 2; c=1
 *            inv: 0 1 3 = 3; c=1 edge: 2 4 = 2; c=1 inv edge: 0 3 = 2
 * (without the weight in the running counts: c=1 5 / 4, inv 1 / 1, edge 1,
 * inv edge 1).  Counters: PMC0 the FP or offcore event, PMC1 UOPS_RETIRED:ANY,
 * PMC2 UOPS_RETIRED:ANY c=1 (edge), PMC3 UOPS_ISSUED:ANY c=1 inv (edge):
 * the X86_HIST_ANY running count, with EDGE the X86_HIST_EDGE one.  Both
 * paths give the same counts. */
static void test_fused_rare_flags(void)
{
    const uint16_t X = PMUSIM_FPC_X87 << PMUSIM_F_FPCLASS_SHIFT,
                   M = PMUSIM_FPC_MMX << PMUSIM_F_FPCLASS_SHIFT, O = PMUSIM_F_OFFCORE;
    const pmusim_rec_t fp[] = {fuse_flags(1, 0, X, 0), fuse_flags(2, 1, X, 0),
                               fuse_flags(3, 0, M, 0), fuse_flags(4, 1, X, 0),
                               fuse_flags(5, 0, 0, 0)};
    const pmusim_rec_t oc[] = {fuse_flags(1, 1, O, 2), fuse_flags(2, 0, 0, 0),
                               fuse_flags(3, 1, O, 1), fuse_flags(4, 0, 0, 0)};
    for (int general = 0; general < 2; general++)
        for (int o = 0; o < 2; o++)
            for (int edge = 0; edge < 2; edge++) {
                pmusim_model_t *m = mk_path("wsm", 1, general);
                m->trace_annotations = PMUSIM_ANN_ALL & ~PMUSIM_ANN_STFWD;
                const uint64_t e = edge ? EDGE : 0;
                wr(m, EVTSEL0 + 0, (o ? EVT(0x60, 0x01) : EVT(0xcc, 0x03)) | EN | USR | OS, 0);
                wr(m, EVTSEL0 + 1, EVT(0xc2, 0x01) | EN | USR | OS, 0);
                wr(m, EVTSEL0 + 2, EVT(0xc2, 0x01) | EN | USR | OS | CMASK(1) | e, 0);
                wr(m, EVTSEL0 + 3, EVT(0x0e, 0x01) | EN | USR | OS | CMASK(1) | INV | e, 0);
                if (o)
                    run(m, oc, G_N_ELEMENTS(oc));
                else
                    run(m, fp, G_N_ELEMENTS(fp));
                if (o && edge)
                    expect_pmcs(m, 3, 2, 2, 2);
                else if (o)
                    expect_pmcs(m, 3, 2, 2, 3);
                else
                    expect_pmcs(m, 2, 3, 3, 3);
                pmusim_model_free(m);
            }
}

/* x86_hist_flush_edge() counts the occurrences of cycle end - 1 again from
 * the records when the loop stops inside cycle `end`: here the loop stops
 * before the record that wraps INST_RETIRED (PMC1, INT, freeze on PMI:
 * IA32_DEBUGCTL bit 12), the second of cycle 3.  Records of one uop:
 * cycle 1 one, 2 a fused first one (weight 0), 3 two.  UOPS_RETIRED:ANY
 * c=1 edge (PMC0) meets at 1 and 3 and rises at both, but the freeze in
 * cycle 3 stops it before cycle 3 closes (docs/sim-x86.md §3: a counter
 * disabled in a cycle does not count it), so 1.  Were cycle 2 counted as
 * met (its fused record weighing 1), the loop's rise at cycle 3 would be
 * taken for a continued one and kept: 2.  With INV (PMC2, UOPS_ISSUED:ANY
 * c=1 inv edge) the cycles that do not meet rise at 0 and 2: 2, with
 * cycle 2 counted as met only 0's, 1. */
static void test_fused_edge_loop_end(void)
{
    const pmusim_rec_t t[] = {fuse_uops(1, 1, 0), fuse_uops(2, 1, 1), fuse_uops(3, 1, 0),
                              fuse_uops(3, 1, 0)};
    for (int general = 0; general < 2; general++) {
        pmusim_model_t *m = mk_path("wsm", 1, general);
        m->trace_annotations = PMUSIM_ANN_ALL & ~PMUSIM_ANN_STFWD;
        wr(m, DEBUGCTL, 1ull << 12, 0);
        wr(m, EVTSEL0 + 0, EVT(0xc2, 0x01) | EN | USR | OS | CMASK(1) | EDGE, 0);
        wr(m, EVTSEL0 + 1, EVT(0xc0, 0x01) | EN | USR | OS | INT, 0);
        wr(m, EVTSEL0 + 2, EVT(0x0e, 0x01) | EN | USR | OS | CMASK(1) | INV | EDGE, 0);
        wr(m, PMC0 + 1, ((uint64_t)1 << 48) - 4, 0); /* the 4th record wraps it */
        run(m, t, G_N_ELEMENTS(t));
        CU_ASSERT_EQUAL(log_count(m, "IA32_PMC1 overflow", 3, 0), 1);
        CU_ASSERT_EQUAL(rd(m, PMC0 + 0, 0), 1);
        CU_ASSERT_EQUAL(rd(m, PMC0 + 1, 0), 0);
        CU_ASSERT_EQUAL(rd(m, PMC0 + 2, 0), 2);
        pmusim_model_free(m);
    }
}

/* An INSN record of FP/SIMD class cls (PMUSIM_FPC_*) on thread t. */
static pmusim_rec_t fpc(uint64_t cycle, uint8_t t, unsigned cls)
{
    pmusim_rec_t r = insn(cycle, t, 3);
    r.flags = (uint16_t)(cls << PMUSIM_F_FPCLASS_SHIFT);
    return r;
}

/* FP_MMX_TRANS (0xcc) from the fast loop and from the general path
 * (mk_path()): TO_FP (0x01), TO_MMX
 * (0x02), ANY (0x03) on PMC0-2 of thread 0, PMC0 preset 1 below its wrap
 * with INT; thread 1's records interleaved, counted by thread 0's AnyThread
 * ANY on PMC1 of a second run. */
static void test_fpmmx_fast_path(void)
{
    const unsigned X = PMUSIM_FPC_X87, M = PMUSIM_FPC_MMX, N = PMUSIM_FPC_NONE,
                   S = PMUSIM_FPC_SS;
    /* thread 0: x87 x87 mmx(to mmx) - mmx x87(to fp) ss mmx(to mmx) x87(to fp);
     * thread 1: mmx x87 (a shared state would see x87 x87 mmx mmx x87 ...) */
    pmusim_rec_t t[] = {fpc(1, 0, X), fpc(1, 1, M), fpc(2, 0, X), fpc(2, 1, X), fpc(3, 0, M),
                        fpc(4, 0, N), fpc(5, 0, M), fpc(6, 0, X), fpc(7, 0, S), fpc(8, 0, M),
                        fpc(9, 0, X), insn(10, 0, 3)};
    for (int general = 0; general < 2; general++) {
        pmusim_model_t *m = mk_path("wsm", 2, general);
        wr(m, EVTSEL0 + 0, EVT(0xcc, 0x01) | EN | USR | OS | INT, 0);
        wr(m, EVTSEL0 + 1, EVT(0xcc, 0x02) | EN | USR | OS, 0);
        wr(m, EVTSEL0 + 2, EVT(0xcc, 0x03) | EN | USR | OS, 0);
        wr(m, PMC0, ((uint64_t)1 << 48) - 1, 0);
        run(m, t, G_N_ELEMENTS(t));
        /* to fp at cycles 6 and 9: the first wraps PMC0 (at cycle 6) */
        CU_ASSERT_EQUAL(rd(m, PMC0 + 0, 0), 1);
        CU_ASSERT_EQUAL(log_count(m, "IA32_PMC0 overflow", 6, 0), 1);
        CU_ASSERT_EQUAL(rd(m, STATUS, 0) & 1, 1);
        CU_ASSERT_EQUAL(rd(m, PMC0 + 1, 0), 2); /* to mmx at 3 and 8 */
        CU_ASSERT_EQUAL(rd(m, PMC0 + 2, 0), 4);
        pmusim_model_free(m);

        m = mk_path("wsm", 2, general);
        wr(m, EVTSEL0 + 1, EVT(0xcc, 0x03) | EN | USR | OS | ANY, 0);
        run(m, t, G_N_ELEMENTS(t));
        CU_ASSERT_EQUAL(rd(m, PMC0 + 1, 0), 4 + 1); /* thread 1: to fp at 2 */
        pmusim_model_free(m);
    }
}

/* Thresholded FP_MMX_TRANS:ANY (0xcc/0x03) on the fast loop and on the
 * general path (mk_path()): the
 * same counts.  Thread 0: x87 (1), mmx (2: a transition), none (3), x87
 * and mmx (5: two), x87 (6: one), x87 (7), mmx (8: one), ss (9); thread 1:
 * mmx (5), x87 (8: one).  Thread 0's transitions per cycle 2:1 5:2 6:1
 * 8:1, the core's 2:1 5:2 6:1 8:2: c=1 4, c=2 1, c=1 edge 3 (rising at 2,
 * 5, 8), AnyThread c=2 2 (cycles 5 and 8); c=1 inv is compared between the
 * two paths. */
static void test_fpmmx_thresholds(void)
{
    const unsigned X = PMUSIM_FPC_X87, M = PMUSIM_FPC_MMX, N = PMUSIM_FPC_NONE,
                   S = PMUSIM_FPC_SS;
    pmusim_rec_t t[] = {fpc(1, 0, X), fpc(2, 0, M), fpc(3, 0, N), fpc(5, 0, X), fpc(5, 0, M),
                        fpc(5, 1, M), fpc(6, 0, X), fpc(7, 0, X), fpc(8, 0, M), fpc(8, 1, X),
                        fpc(9, 0, S), insn(12, 0, 3)};
    uint64_t inv[2];
    for (int general = 0; general < 2; general++) {
        pmusim_model_t *m = mk_path("wsm", 2, general);
        wr(m, EVTSEL0 + 0, EVT(0xcc, 0x03) | EN | USR | OS | CMASK(1), 0);
        wr(m, EVTSEL0 + 1, EVT(0xcc, 0x03) | EN | USR | OS | CMASK(2), 0);
        wr(m, EVTSEL0 + 2, EVT(0xcc, 0x03) | EN | USR | OS | CMASK(1) | EDGE, 0);
        run(m, t, G_N_ELEMENTS(t));
        CU_ASSERT_EQUAL(rd(m, PMC0 + 0, 0), 4);
        CU_ASSERT_EQUAL(rd(m, PMC0 + 1, 0), 1);
        CU_ASSERT_EQUAL(rd(m, PMC0 + 2, 0), 3);
        pmusim_model_free(m);

        m = mk_path("wsm", 2, general);
        wr(m, EVTSEL0 + 0, EVT(0xcc, 0x03) | EN | USR | OS | CMASK(1) | INV, 0);
        wr(m, EVTSEL0 + 1, EVT(0xcc, 0x03) | EN | USR | OS | CMASK(2) | ANY, 0);
        run(m, t, G_N_ELEMENTS(t));
        inv[general] = rd(m, PMC0 + 0, 0);
        CU_ASSERT_EQUAL(rd(m, PMC0 + 1, 0), 2);
        pmusim_model_free(m);
    }
    CU_ASSERT_EQUAL(inv[0], inv[1]);
    CU_ASSERT(inv[0] > 0);
}

/* Counter restrictions from Intel's event data. */
static void test_counter_restrictions(void)
{
    pmusim_model_t *m = mk("wsm", 1);
    guint nd = m->diags->len;
    wr(m, EVTSEL0 + 1, EVT(0x51, 0x01) | EN | USR | OS, 0); /* L1D:REPL on PMC1: allowed */
    CU_ASSERT_EQUAL(m->diags->len, nd);
    wr(m, EVTSEL0 + 2, EVT(0x51, 0x01) | EN | USR | OS, 0); /* on PMC2: PMC0-1 only */
    wr(m, EVTSEL0 + 0, EVT(0x0b, 0x10) | EN | USR | OS, 0); /* load latency: PMC3 only */
    wr(m, LDLAT, 3, 0);
    pmusim_rec_t t[] = {load(0, 50, PMUSIM_LVL_L2)};
    run(m, t, 1);
    pmusim_report_t rep;
    pmusim_report_init(&rep);
    m->ops->report(m, &rep);
    CU_ASSERT_EQUAL(result(&rep, "IA32_PMC1", 0)->value, 1);
    CU_ASSERT_EQUAL(result(&rep, "IA32_PMC1", 0)->status, PMUSIM_COUNT_OK);
    CU_ASSERT_EQUAL(result(&rep, "IA32_PMC2", 0)->value, 0);
    CU_ASSERT_EQUAL(result(&rep, "IA32_PMC2", 0)->status, PMUSIM_COUNT_NOT_IN_TRACE);
    CU_ASSERT_EQUAL(result(&rep, "IA32_PMC0", 0)->value, 0);
    CU_ASSERT_EQUAL(result(&rep, "IA32_PMC0", 0)->status, PMUSIM_COUNT_NOT_IN_TRACE);
    CU_ASSERT_TRUE(diag_has(&rep, "IA32_PERFEVTSEL2 thread 0: event 0x51/0x01 (L1D.REPL) counts "
                                  "only on IA32_PMC0, IA32_PMC1 (Intel's event data); IA32_PMC2 "
                                  "counts nothing"));
    CU_ASSERT_TRUE(diag_has(&rep, "counts only on IA32_PMC3"));
    pmusim_report_clear(&rep);
    /* --explain says so too */
    GString *ex = g_string_new(NULL);
    CU_ASSERT_TRUE(m->ops->describe_reg(PMUSIM_REG_MSR, EVTSEL0 + 2,
                                        EVT(0x51, 0x01) | EN | USR | OS, ex));
    CU_ASSERT_PTR_NOT_NULL(strstr(ex->str, "L1D.REPL counts only on counters 0x3 (Intel's event "
                                           "data): PMC2 counts nothing"));
    g_string_free(ex, TRUE);
    pmusim_model_free(m);
}

/* PEBS set-ups the SDM calls invalid: diagnosed, the counter overflows
 * normally (no assist). */
static void test_invalid_pebs_setups(void)
{
    pmusim_model_t *m = mk("wsm", 1);
    wr(m, EVTSEL0 + 0, EVT(0xc0, 0x01) | EN | USR | OS | CMASK(1), 0);
    wr(m, PMC0, (uint64_t)-1, 0);
    wr(m, PEBS_EN, 0x1, 0);
    pmusim_rec_t t[] = {insn(0, 0, 3), insn(1, 0, 3)};
    run(m, t, 2);
    pmusim_report_t rep;
    pmusim_report_init(&rep);
    m->ops->report(m, &rep);
    CU_ASSERT_EQUAL(rep.captures->len, 0);
    CU_ASSERT_EQUAL(rd(m, STATUS, 0), 0x1); /* Ovf_PMC0, not OvfBuf */
    CU_ASSERT_TRUE(diag_has(&rep, "PEBS on PMC0 with AnyThread, EDGE, INV or CMASK set is "
                                  "invalid (SDM Vol. 3B §18.8.1.1)"));
    pmusim_report_clear(&rep);
    pmusim_model_free(m);

    /* load latency on PMC3 and another PEBS event on PMC0 */
    m = mk("wsm", 1);
    wr(m, LDLAT, 3, 0);
    wr(m, EVTSEL0 + 3, EVT(0x0b, 0x10) | EN | USR | OS, 0);
    wr(m, EVTSEL0 + 0, EVT(0xc0, 0x01) | EN | USR | OS, 0);
    wr(m, PMC0, (uint64_t)-1, 0);
    wr(m, PEBS_EN, 0x9ull | (1ull << 35), 0);
    pmusim_rec_t u[] = {insn(0, 0, 3)};
    run(m, u, 1);
    pmusim_report_init(&rep);
    m->ops->report(m, &rep);
    CU_ASSERT_EQUAL(rep.captures->len, 0);
    CU_ASSERT_EQUAL(rd(m, STATUS, 0), 0x1);
    CU_ASSERT_TRUE(diag_has(&rep, "PEBS on PMC0 beside load latency is invalid"));
    pmusim_report_clear(&rep);
    pmusim_model_free(m);
}

/* Knights Mill 0x3C umask 0x01 is CPU_CLK_UNHALTED.REF in Intel's event
 * data; libpfm4's umask 0x02 keeps working. */
static void test_knm_ref_cycles_encodings(void)
{
    pmusim_model_t *m = mk("knm", 1);
    wr(m, EVTSEL0 + 0, EVT(0x3c, 0x01) | EN | USR | OS, 0);
    wr(m, EVTSEL0 + 1, EVT(0x3c, 0x02) | EN | USR | OS, 0);
    pmusim_rec_t t[] = {insn(0, 0, 3), idle(1, 0, 9)};
    run(m, t, 2);
    CU_ASSERT_EQUAL(rd(m, PMC0 + 0, 0), 10);
    CU_ASSERT_EQUAL(rd(m, PMC0 + 1, 0), 10);
    pmusim_model_free(m);
}

/* Reference cycles (fixed counter 2, CPU_CLK_UNHALTED:REF_P) tick at the
 * settable reference ratio; core cycles do not. */
static void test_ref_ratio(void)
{
    pmusim_model_t *m = mk("wsm", 1);
    GError *err = NULL;
    CU_ASSERT_FALSE(pmusim_model_set_ref_ratio(m, 0, 3, &err));
    g_clear_error(&err);
    CU_ASSERT_TRUE(pmusim_model_set_ref_ratio(m, 2, 3, &err));
    wr(m, FIXED_CTRL, 0xbb0, 0); /* ctr1 cycles, ctr2 reference cycles, both with PMI */
    wr(m, EVTSEL0, EVT(0x3c, 0x01) | EN | USR | OS, 0); /* REF_P */
    wr(m, GCTRL, 0x1ull | (3ull << 33), 0);
    wr(m, FIXED0 + 2, 0xfffffffffffeull, 0); /* 2 reference cycles before the wrap */
    pmusim_rec_t t[] = {insn(0, 0, 3), idle(1, 0, 9)};
    run(m, t, 2);
    /* 10 core cycles = 20/3 reference cycles: 6 counted, 2/3 carried; fixed
     * ctr2 reaches 2^48 after 2 reference cycles = 3 core cycles (2/3, 4/3,
     * 6/3): it wraps in cycle 2 and holds 4 */
    CU_ASSERT_EQUAL(rd(m, FIXED0 + 1, 0), 10);
    CU_ASSERT_EQUAL(rd(m, PMC0, 0), 6);
    CU_ASSERT_EQUAL(rd(m, FIXED0 + 2, 0), 4);
    CU_ASSERT_EQUAL(log_count(m, "IA32_FIXED_CTR2 overflow", 2, 0), 1);
    CU_ASSERT_EQUAL(log_count(m, "interrupt", 2, 0), 1);
    pmusim_model_free(m);
}

/* observe_cycles: one call per cycle of the window, IDLE gap included. */
typedef struct obs_log {
    uint64_t cycles[16];
    pmusim_counter_probe_t probes[16][7];
    size_t n, nprobes;
} obs_log_t;

static void obs_collect(pmusim_model_t *m, uint64_t cycle, const pmusim_counter_probe_t *p,
                        size_t n, void *user)
{
    obs_log_t *o = user;
    (void)m;
    if (o->n < 16 && n <= 7) {
        o->cycles[o->n] = cycle;
        memcpy(o->probes[o->n], p, n * sizeof *p);
        o->nprobes = n;
    }
    o->n++;
}

static void expect_probe(const pmusim_counter_probe_t *p, uint64_t value, uint64_t raw,
                         uint64_t inc, int conditioned, int cond, int ovf, int intr)
{
    CU_ASSERT_EQUAL(p->value, value);
    CU_ASSERT_EQUAL(p->raw, raw);
    CU_ASSERT_EQUAL(p->increment, inc);
    CU_ASSERT_EQUAL(p->conditioned, conditioned);
    CU_ASSERT_EQUAL(p->cond, cond);
    CU_ASSERT_EQUAL(p->overflow, ovf);
    CU_ASSERT_EQUAL(p->interrupt, intr);
    CU_ASSERT_EQUAL(p->frozen, 0);
}

static void test_observe_cycles(void)
{
    pmusim_model_t *m = mk("wsm", 1);
    wr(m, EVTSEL0 + 0, EVT(0xc0, 0x01) | EN | USR | OS, 0);                 /* instructions */
    wr(m, EVTSEL0 + 1, EVT(0xc2, 0x01) | EN | USR | OS | CMASK(1) | INV, 0); /* stall cycles */
    wr(m, FIXED_CTRL, 0xb0, 0); /* fixed ctr1: cycles, PMI */
    wr(m, GCTRL, 0x3ull | (1ull << 33), 0);
    wr(m, FIXED0 + 1, 0xfffffffffffdull, 0); /* -3 */
    obs_log_t o = {0};
    m->ops->observe_cycles(m, 1, 6, obs_collect, &o);
    pmusim_rec_t t[] = {insn(0, 0, 3), insn(0, 0, 3), insn(1, 0, 3), idle(2, 0, 3),
                        insn(5, 0, 3)};
    run(m, t, G_N_ELEMENTS(t));
    /* window [1, 6): cycles 1-5 (2-4 are the IDLE gap), 7 probes each
     * (PMC0-3, FIXED_CTR0-2).  Instructions: 2 in cycle 0, 1 in 1, 1 in 5.
     * Stalls (uops < 1): cycles 2, 3, 4.  Fixed ctr1 from -3: -3 + k + 1
     * after cycle k: wraps in cycle 2 with a PMI. */
    CU_ASSERT_EQUAL_FATAL(o.n, 5);
    CU_ASSERT_EQUAL(o.nprobes, 7);
    for (size_t i = 0; i < 5; i++)
        CU_ASSERT_EQUAL(o.cycles[i], i + 1);
    const uint64_t w48 = 1ull << 48;
    /* cycle 1 */
    expect_probe(&o.probes[0][0], 3, 1, 1, 0, 1, 0, 0);
    expect_probe(&o.probes[0][1], 0, 1, 0, 1, 0, 0, 0);
    expect_probe(&o.probes[0][5], w48 - 1, 1, 1, 0, 1, 0, 0);
    /* cycle 2: the first gap cycle; the PMI is the thread's: every probe
     * of thread 0 shows it */
    expect_probe(&o.probes[1][0], 3, 0, 0, 0, 1, 0, 1);
    expect_probe(&o.probes[1][1], 1, 0, 1, 1, 1, 0, 1);
    expect_probe(&o.probes[1][5], 0, 1, 1, 0, 1, 1, 1);
    /* cycles 3, 4 */
    expect_probe(&o.probes[2][1], 2, 0, 1, 1, 1, 0, 0);
    expect_probe(&o.probes[2][5], 1, 1, 1, 0, 1, 0, 0);
    expect_probe(&o.probes[3][1], 3, 0, 1, 1, 1, 0, 0);
    /* cycle 5 */
    expect_probe(&o.probes[4][0], 4, 1, 1, 0, 1, 0, 0);
    expect_probe(&o.probes[4][1], 3, 1, 0, 1, 0, 0, 0);
    expect_probe(&o.probes[4][5], 3, 1, 1, 0, 1, 0, 0);
    /* observation changes no count */
    CU_ASSERT_EQUAL(rd(m, PMC0, 0), 4);
    CU_ASSERT_EQUAL(rd(m, PMC0 + 1, 0), 3);
    CU_ASSERT_EQUAL(rd(m, FIXED0 + 1, 0), 3);
    pmusim_model_free(m);
}

/* ---- stage 2: PEBS ---- */

static void test_pebs_load_latency(void)
{
    pmusim_model_t *m = mk("wsm", 1);
    /* load latency runs on IA32_PMC3 only (Intel's event data) */
    wr(m, LDLAT, 20, 0);
    wr(m, PEBS_EN, 0x8ull | (1ull << 35), 0);
    wr(m, EVTSEL0 + 3, EVT(0x0b, 0x10) | EN | USR | OS | INT, 0);
    wr(m, PMC0 + 3, (uint64_t)-2, 0);
    pmusim_rec_t t[] = {load(0, 30, PMUSIM_LVL_L3), load(1, 10, PMUSIM_LVL_L1D),
                        load(2, 20, PMUSIM_LVL_L2), load(3, 50, PMUSIM_LVL_LOCAL_DRAM),
                        load(4, 90, PMUSIM_LVL_REMOTE_DRAM), load(5, 60, PMUSIM_LVL_L3)};
    t[4].mem.is_store = 1; /* a store never counts */
    run(m, t, G_N_ELEMENTS(t));
    /* qualifying (latency > 20): cycle 0 (-> -1), cycle 3 (-> wrap: PEBS
     * armed, no record yet), cycle 5: the next qualifying load fires the
     * assist (SDM §18.8.1.1); it counts too (-> 1).  The record holds that
     * later load and the IP of the instruction after it (0x400014 + 4). */
    CU_ASSERT_EQUAL(rd(m, PMC0 + 3, 0), 1);
    CU_ASSERT_EQUAL(rd(m, STATUS, 0), 1ull << 62); /* OvfBuf, not Ovf_PMC3 */
    pmusim_report_t rep;
    pmusim_report_init(&rep);
    m->ops->report(m, &rep);
    CU_ASSERT_EQUAL_FATAL(rep.captures->len, 1);
    CU_ASSERT_STRING_EQUAL(g_ptr_array_index(rep.captures, 0),
                           "PEBS-LL cycle=5 thread=0 IA32_PMC3 ip=0x400018 addr=0x10140 "
                           "latency=60 source=L3");
    CU_ASSERT_EQUAL(m->pmi_count, 1);
    CU_ASSERT_EQUAL(log_count(m, "IA32_PMC3 overflow: PEBS armed", 3, 0), 1);
    CU_ASSERT_EQUAL(log_count(m, "interrupt", 5, 0), 1);
    pmusim_report_clear(&rep);
    pmusim_model_free(m);
}

static void test_pebs_ip_and_non_pebs_event(void)
{
    pmusim_model_t *m = mk("wsm", 1);
    wr(m, PEBS_EN, 0x3, 0);
    wr(m, EVTSEL0 + 0, EVT(0xc0, 0x01) | EN | USR | OS, 0); /* PEBS-capable */
    wr(m, EVTSEL0 + 1, EVT(0x3c, 0x00) | EN | USR | OS, 0); /* not PEBS-capable */
    wr(m, PMC0 + 0, (uint64_t)-2, 0);
    wr(m, PMC0 + 1, (uint64_t)-2, 0);
    wr(m, EVTSEL0 + 2, EVT(0xc4, 0x00) | EN | USR | OS, 0); /* all branches, PEBS */
    wr(m, PMC0 + 2, (uint64_t)-1, 0);
    wr(m, PEBS_EN, 0x7, 0);
    pmusim_rec_t t[] = {insn(0, 0, 3), insn(1, 0, 3), insn(2, 0, 3),
                        branch(3, PMUSIM_BR_IND, 1, 1), branch(4, PMUSIM_BR_COND, 1, 1)};
    t[3].br.target = 0x500000;
    t[4].br.target = 0x600000;
    run(m, t, G_N_ELEMENTS(t));
    pmusim_report_t rep;
    pmusim_report_init(&rep);
    m->ops->report(m, &rep);
    /* PMC0 wraps at the instruction of cycle 1 (armed); the next retired
     * instruction (cycle 2) fires the assist, whose record holds the IP of
     * the instruction after it: 0x400008 + 4.  PMC2 wraps at the branch of
     * cycle 3; the taken branch of cycle 4 fires its assist: the next
     * instruction is the branch target. */
    CU_ASSERT_EQUAL_FATAL(rep.captures->len, 2);
    CU_ASSERT_STRING_EQUAL(g_ptr_array_index(rep.captures, 0),
                           "PEBS cycle=2 thread=0 IA32_PMC0 ip=0x40000c");
    CU_ASSERT_STRING_EQUAL(g_ptr_array_index(rep.captures, 1),
                           "PEBS cycle=4 thread=0 IA32_PMC2 ip=0x600000");
    /* the cycles counter overflowed normally in cycle 1 */
    CU_ASSERT_EQUAL(rd(m, STATUS, 0), (1ull << 62) | 0x2);
    gboolean said = FALSE;
    for (guint i = 0; i < rep.diags->len; i++)
        said |= strstr(g_ptr_array_index(rep.diags, i),
                       "PMC1's event 0x3c/0x00 is not PEBS-capable") != NULL;
    CU_ASSERT_TRUE(said);
    CU_ASSERT_EQUAL(log_count(m, "IA32_PMC1 overflow", 1, 0), 1);
    pmusim_report_clear(&rep);
    pmusim_model_free(m);
}

/* Counts that the fast loop adds from the records it took (AnyThread
 * INST_RETIRED, fed by both threads, and PEBS INST_RETIRED) wrap at the
 * exact record, as one record at a time would: the loop leaves the
 * wrapping record to the general path (issue 12). */
static void test_folded_counts_wrap_at_the_record(void)
{
    pmusim_model_t *m = mk("wsm", 2);
    wr(m, EVTSEL0 + 0, EVT(0xc0, 0x01) | EN | USR | OS | ANY | INT, 0);
    wr(m, PMC0 + 0, (uint64_t)-5, 0);
    wr(m, EVTSEL0 + 1, EVT(0xc0, 0x01) | EN | USR | OS, 1);
    wr(m, PMC0 + 1, (uint64_t)-3, 1);
    wr(m, PEBS_EN, 0x2, 1);
    /* 40 instructions, one a cycle, threads 0 and 1 in turn */
    pmusim_rec_t t[40];
    for (unsigned i = 0; i < G_N_ELEMENTS(t); i++)
        t[i] = insn(i, (uint8_t)(i % 2), 3);
    run(m, t, G_N_ELEMENTS(t));
    /* thread 0's PMC0 counts both threads: the 5th instruction (cycle 4)
     * wraps it */
    CU_ASSERT_EQUAL(log_count(m, "IA32_PMC0 overflow", 4, 0), 1);
    CU_ASSERT_EQUAL(log_count(m, "interrupt", 4, 0), 1);
    CU_ASSERT_EQUAL(rd(m, PMC0 + 0, 0), 35);
    CU_ASSERT_EQUAL(rd(m, STATUS, 0), 0x1);
    /* thread 1's PMC1 wraps at its 3rd instruction (cycle 5) and the 4th
     * (cycle 7) takes the assist: the next IP is 0x40001c + 4 */
    CU_ASSERT_EQUAL(log_count(m, "IA32_PMC1 overflow: PEBS armed", 5, 1), 1);
    CU_ASSERT_EQUAL(rd(m, PMC0 + 1, 1), 17);
    CU_ASSERT_EQUAL(rd(m, STATUS, 1), 1ull << 62);
    pmusim_report_t rep;
    pmusim_report_init(&rep);
    m->ops->report(m, &rep);
    CU_ASSERT_EQUAL_FATAL(rep.captures->len, 1);
    CU_ASSERT_STRING_EQUAL(g_ptr_array_index(rep.captures, 0),
                           "PEBS cycle=7 thread=1 IA32_PMC1 ip=0x400020");
    pmusim_report_clear(&rep);
    pmusim_model_free(m);
}

/* ---- stage 3: trace-derived events ---- */


static void test_branch_and_memory_events(void)
{
    pmusim_model_t *m = mk("wsm", 1);
    wr(m, EVTSEL0 + 0, EVT(0xc4, 0x00) | EN | USR | OS, 0); /* all branches */
    wr(m, EVTSEL0 + 1, EVT(0xc5, 0x01) | EN | USR | OS, 0); /* mispredicted conditional */
    wr(m, EVTSEL0 + 2, EVT(0xcb, 0x06) | EN | USR | OS, 0); /* L2_HIT | L3_UNSHARED_HIT */
    wr(m, EVTSEL0 + 3, EVT(0x0f, 0x10) | EN | USR | OS, 0); /* wsm: LOCAL_DRAM */
    pmusim_rec_t t[] = {
        branch(0, PMUSIM_BR_COND, 1, 0), branch(1, PMUSIM_BR_COND, 0, 1),
        branch(2, PMUSIM_BR_CALL, 1, 0), load(3, 5, PMUSIM_LVL_L2), load(4, 5, PMUSIM_LVL_L3),
        load(5, 5, PMUSIM_LVL_L1D), load(6, 5, PMUSIM_LVL_LOCAL_DRAM),
        load(7, 5, PMUSIM_LVL_REMOTE_DRAM),
    };
    run(m, t, G_N_ELEMENTS(t));
    CU_ASSERT_EQUAL(rd(m, PMC0 + 0, 0), 3);
    CU_ASSERT_EQUAL(rd(m, PMC0 + 1, 0), 1);
    CU_ASSERT_EQUAL(rd(m, PMC0 + 2, 0), 2);
    CU_ASSERT_EQUAL(rd(m, PMC0 + 3, 0), 1);
    pmusim_model_free(m);

    /* the same umask means REMOTE_DRAM on Westmere DP (reference §6.3) */
    m = mk("wsm_dp", 1);
    wr(m, EVTSEL0, EVT(0x0f, 0x10) | EN | USR | OS, 0);
    run(m, t, G_N_ELEMENTS(t));
    CU_ASSERT_EQUAL(rd(m, PMC0, 0), 1);
    pmusim_model_free(m);
}

static void test_event_source(void)
{
    const pmusim_model_ops_t *w = &pmusim_model_wsm, *k = &pmusim_model_knm;
    CU_ASSERT_PTR_NOT_NULL(w->event_source(0xc0, 0x01));
    CU_ASSERT_PTR_NOT_NULL(w->event_source(0x3c, 0x00));
    CU_ASSERT_PTR_NOT_NULL(w->event_source(0xcb, 0x03)); /* OR of two bits */
    CU_ASSERT_PTR_NULL(w->event_source(0xcb, 0x20));     /* no trace field for it */
    CU_ASSERT_PTR_NULL(w->event_source(0xa2, 0x01));
    CU_ASSERT_PTR_NOT_NULL(k->event_source(0xb7, 0x02));
    CU_ASSERT_PTR_NULL(k->event_source(0xbb, 0x01)); /* Westmere's RSP_1 code */
    CU_ASSERT_PTR_NULL(w->event_source(0x1c0, 0x01));
    CU_ASSERT_STRING_EQUAL(k->event_source(0x00, 0x03), "active cycles, on IA32_FIXED_CTR2 only");
    CU_ASSERT_STRING_EQUAL(pmusim_model_wsm_dp.event_source(0x0f, 0x10),
                           "load records with mem.level == remote DRAM");
}

static void test_bad_input(void)
{
    GError *e = NULL;
    CU_ASSERT_PTR_NULL(pmusim_model_wsm.create(3, &e));
    CU_ASSERT_PTR_NOT_NULL(e);
    g_clear_error(&e);
    CU_ASSERT_PTR_NULL(pmusim_model_knm.create(0, &e));
    g_clear_error(&e);
    pmusim_model_t *m = mk("wsm", 1);
    wr(m, EVTSEL0, EVT(0xc0, 0x01) | EN | USR | OS, 0);
    pmusim_rec_t t[] = {insn(5, 0, 3), insn(3, 0, 3), insn(6, 1, 3), insn(7, 0, 200)};
    run(m, t, G_N_ELEMENTS(t));
    CU_ASSERT_EQUAL(rd(m, PMC0, 0), 3); /* out-of-order counted, bad thread ignored */
    CU_ASSERT_TRUE(m->diags->len >= 2);
    uint64_t v;
    CU_ASSERT_FALSE(m->ops->read_reg(m, PMUSIM_REG_MSR, 0x123, 0, &v));
    CU_ASSERT_FALSE(m->ops->read_reg(m, PMUSIM_REG_MSR, PMC0, 1, &v));
    pmusim_model_free(m);

    /* a hostile IDLE reaching the end of time: saturates, no hang */
    m = mk("wsm", 1);
    wr(m, FIXED_CTRL, 0x30, 0);
    wr(m, GCTRL, 1ull << 33, 0);
    pmusim_rec_t h[] = {idle(0, 0, UINT64_MAX)};
    run(m, h, 1);
    /* 2^64 - 1 cycles: 65535 wraps of the 48-bit counter, 2^48 - 1 left */
    CU_ASSERT_EQUAL(rd(m, FIXED0 + 1, 0), 0xffffffffffffull);
    pmusim_report_t rep;
    pmusim_report_init(&rep);
    m->ops->report(m, &rep);
    CU_ASSERT_EQUAL(g_array_index(rep.counters, pmusim_counter_result_t, 5).overflows, 65535);
    pmusim_report_clear(&rep);
    pmusim_model_free(m);
}

static void register_suites(void)
{
    CU_pSuite s = CU_add_suite("sim_x86_basic", NULL, NULL);
    PMUSIM_ADD_TEST(s, test_inst_retired_usr_os);
    PMUSIM_ADD_TEST(s, test_cycles_gp_and_fixed);
    PMUSIM_ADD_TEST(s, test_fixed_ctrl_fields);
    PMUSIM_ADD_TEST(s, test_global_ctrl_reset_and_toggle);
    PMUSIM_ADD_TEST(s, test_reserved_bits_gp);
    PMUSIM_ADD_TEST(s, test_counter_write_sign_extension);
    s = CU_add_suite("sim_x86_overflow", NULL, NULL);
    PMUSIM_ADD_TEST(s, test_overflow_wrap_status_clear);
    PMUSIM_ADD_TEST(s, test_overflow_without_int_no_pmi);
    PMUSIM_ADD_TEST(s, test_cycle_counter_wrap_cycle);
    PMUSIM_ADD_TEST(s, test_freeze_on_pmi);
    PMUSIM_ADD_TEST(s, test_pmi_handler_sampling);
    s = CU_add_suite("sim_x86_evtsel", NULL, NULL);
    PMUSIM_ADD_TEST(s, test_cmask_inv_edge);
    PMUSIM_ADD_TEST(s, test_thresh_long_gap_is_arithmetic);
    PMUSIM_ADD_TEST(s, test_many_wraps_in_a_gap_are_arithmetic);
    PMUSIM_ADD_TEST(s, test_thresh_usr_os_gating);
    PMUSIM_ADD_TEST(s, test_any_thread_wsm);
    PMUSIM_ADD_TEST(s, test_any_thread_knm);
    PMUSIM_ADD_TEST(s, test_halted_thread_total_cycles);
    PMUSIM_ADD_TEST(s, test_not_in_trace_status);
    PMUSIM_ADD_TEST(s, test_declared_events);
    PMUSIM_ADD_TEST(s, test_evsum_thresholds);
    PMUSIM_ADD_TEST(s, test_evspan_walks);
    PMUSIM_ADD_TEST(s, test_evspan_walk_bits);
    PMUSIM_ADD_TEST(s, test_lsd_records);
    PMUSIM_ADD_TEST(s, test_forms);
    PMUSIM_ADD_TEST(s, test_mem_inst_once);
    PMUSIM_ADD_TEST(s, test_derived_exec_issue_wsm);
    PMUSIM_ADD_TEST(s, test_derived_events_wsm);
    PMUSIM_ADD_TEST(s, test_exec_as_retired_wsm);
    PMUSIM_ADD_TEST(s, test_mem_records);
    PMUSIM_ADD_TEST(s, test_line_splits_knm);
    PMUSIM_ADD_TEST(s, test_locked_insns);
    PMUSIM_ADD_TEST(s, test_lfb_hits);
    PMUSIM_ADD_TEST(s, test_stfwd_blocks);
    PMUSIM_ADD_TEST(s, test_macro_fused);
    PMUSIM_ADD_TEST(s, test_decoded_records);
    PMUSIM_ADD_TEST(s, test_fused_uops);
    PMUSIM_ADD_TEST(s, test_fused_rare_flags);
    PMUSIM_ADD_TEST(s, test_fused_edge_loop_end);
    PMUSIM_ADD_TEST(s, test_fpmmx_fast_path);
    PMUSIM_ADD_TEST(s, test_fpmmx_thresholds);
    PMUSIM_ADD_TEST(s, test_events_first_rows);
    PMUSIM_ADD_TEST(s, test_evbits_rows);
    PMUSIM_ADD_TEST(s, test_mixed_event_bits);
    PMUSIM_ADD_TEST(s, test_l2_state_bits);
    PMUSIM_ADD_TEST(s, test_thresholded_filter_events);
    PMUSIM_ADD_TEST(s, test_counter_restrictions);
    PMUSIM_ADD_TEST(s, test_invalid_pebs_setups);
    PMUSIM_ADD_TEST(s, test_knm_ref_cycles_encodings);
    PMUSIM_ADD_TEST(s, test_ref_ratio);
    PMUSIM_ADD_TEST(s, test_observe_cycles);
    PMUSIM_ADD_TEST(s, test_explicit_events);
    s = CU_add_suite("sim_x86_offcore_pebs", NULL, NULL);
    PMUSIM_ADD_TEST(s, test_offcore_wsm);
    PMUSIM_ADD_TEST(s, test_offcore_knm);
    PMUSIM_ADD_TEST(s, test_offcore_fast_path);
    PMUSIM_ADD_TEST(s, test_knm_average_latency);
    PMUSIM_ADD_TEST(s, test_knm_outstanding_read_midway);
    PMUSIM_ADD_TEST(s, test_knm_average_latency_fast_path);
    PMUSIM_ADD_TEST(s, test_wsm_outstanding_sums_and_thresholds);
    PMUSIM_ADD_TEST(s, test_wsm_outstanding_pmc0_only);
    PMUSIM_ADD_TEST(s, test_wsm_outstanding_overflow_cycle);
    PMUSIM_ADD_TEST(s, test_wsm_outstanding_threads);
    PMUSIM_ADD_TEST(s, test_wsm_outstanding_fast_path);
    PMUSIM_ADD_TEST(s, test_pebs_load_latency);
    PMUSIM_ADD_TEST(s, test_pebs_ip_and_non_pebs_event);
    PMUSIM_ADD_TEST(s, test_folded_counts_wrap_at_the_record);
    s = CU_add_suite("sim_x86_events", NULL, NULL);
    PMUSIM_ADD_TEST(s, test_branch_and_memory_events);
    PMUSIM_ADD_TEST(s, test_event_source);
    PMUSIM_ADD_TEST(s, test_bad_input);
}

