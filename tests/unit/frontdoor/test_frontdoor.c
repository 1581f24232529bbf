/* The OS front doors (pmusim/frontdoor.h) on small in-memory traces: sample
 * cycles, IPs, values and the registers left behind, computed by hand. */
#include <CUnit/CUnit.h>
#include <stdbool.h>
#include <string.h>
#include <unistd.h>
#include <glib/gstdio.h>
#include "pmusim/frontdoor.h"
#include "pmusim/tracegen.h"

#define W47 (UINT64_C(1) << 47)
#define W48 (UINT64_C(1) << 48)
#define W40 (UINT64_C(1) << 40)

/* IA-64 counter PMC: es, plm 0b1001 (levels 0 and 3), no oi (the front door
 * must set it). */
#define IA64_PMC(es) ((uint64_t)(es) << 8 | 0x9u)
#define ES_INST 0x08u
#define ES_CYCLES 0x12u
#define IA64_OI (UINT64_C(1) << 5)

/* x86: PERFEVTSEL with EN, USR, OS and no INT */
#define EVTSEL(ev, um) (UINT64_C(0x430000) | (uint64_t)(um) << 8 | (ev))
#define EVTSEL_INT (UINT64_C(1) << 20)
#define MSR_PMC0 0xc1u
#define MSR_EVTSEL0 0x186u
#define MSR_FIXED_CTR0 0x309u
#define MSR_FIXED_CTR_CTRL 0x38du
#define MSR_GLOBAL_STATUS 0x38eu
#define MSR_GLOBAL_CTRL 0x38fu
#define MSR_DEBUGCTL 0x1d9u

static pmusim_model_t *model(const char *name, uint32_t nthreads)
{
    GError *e = NULL;
    pmusim_model_t *m = pmusim_model_new(name, nthreads, &e);
    if (!m)
        fprintf(stderr, "%s: %s\n", name, e->message);
    g_clear_error(&e);
    CU_ASSERT_PTR_NOT_NULL_FATAL(m);
    return m;
}

static void wr(pmusim_model_t *m, pmusim_regspace_t s, uint32_t num, uint64_t v, uint32_t t)
{
    pmusim_regwrite_t w;
    memset(&w, 0, sizeof w);
    w.space = s;
    w.num = num;
    w.value = v;
    w.thread = t;
    GError *e = NULL;
    gboolean ok = m->ops->write_reg(m, &w, &e);
    if (!ok)
        fprintf(stderr, "write 0x%x: %s\n", num, e->message);
    g_clear_error(&e);
    CU_ASSERT_TRUE(ok);
}

static uint64_t rd(pmusim_model_t *m, pmusim_regspace_t s, uint32_t num, uint32_t t)
{
    uint64_t v = 0xdead;
    CU_ASSERT_TRUE(m->ops->read_reg(m, s, num, t, &v));
    return v;
}

static pmusim_rec_t insn(uint64_t cycle, uint32_t thread, uint64_t ip)
{
    pmusim_rec_t r;
    memset(&r, 0, sizeof r);
    r.kind = PMUSIM_REC_INSN;
    r.cycle = cycle;
    r.thread = (uint8_t)thread;
    r.plm = 3;
    r.ip = ip;
    r.unit = PMUSIM_UNIT_I;
    r.len = 4;
    return r;
}

static void run(pmusim_model_t *m, const pmusim_rec_t *r, size_t n)
{
    m->ops->consume(m, r, n);
    m->ops->finish(m);
}

static pmusim_frontdoor_t *frontdoor(pmusim_model_t *m)
{
    GError *e = NULL;
    pmusim_frontdoor_t *fd = pmusim_frontdoor_new(m, &e);
    CU_ASSERT_PTR_NULL(e);
    g_clear_error(&e);
    CU_ASSERT_PTR_NOT_NULL_FATAL(fd);
    return fd;
}

static void start(pmusim_frontdoor_t *fd)
{
    GError *e = NULL;
    gboolean ok = pmusim_frontdoor_start(fd, &e);
    if (!ok)
        fprintf(stderr, "start: %s\n", e->message);
    g_clear_error(&e);
    CU_ASSERT_TRUE_FATAL(ok);
}

static int add(pmusim_frontdoor_t *fd, uint32_t reg, uint64_t period, const char *label)
{
    GError *e = NULL;
    int k = period ? pmusim_frontdoor_add_sampling(fd, reg, period, label, &e)
                   : pmusim_frontdoor_add_counting(fd, reg, label, &e);
    if (k < 0)
        fprintf(stderr, "add: %s\n", e->message);
    g_clear_error(&e);
    CU_ASSERT_TRUE(k >= 0);
    return k;
}

/* 23 instructions, one per cycle, ip = base + 16 * i. */
static void linear(pmusim_rec_t *r, size_t n, uint64_t base)
{
    for (size_t i = 0; i < n; i++)
        r[i] = insn(i, 0, base + 16 * i);
}

/* ---- perfmon2 (IA-64) ---- */

static void test_ita2_inst_period5(void)
{
    pmusim_model_t *m = model("ita2", 1);
    wr(m, PMUSIM_REG_PMC, 4, IA64_PMC(ES_INST), 0);
    wr(m, PMUSIM_REG_PMC, 5, IA64_PMC(ES_CYCLES), 0);
    pmusim_frontdoor_t *fd = frontdoor(m);
    CU_ASSERT_EQUAL(pmusim_frontdoor_style(fd), PMUSIM_FRONTDOOR_PERFMON2);
    CU_ASSERT_EQUAL(add(fd, 4, 5, "IA64_INST_RETIRED"), 0);
    CU_ASSERT_EQUAL(add(fd, 5, 0, "CPU_CYCLES"), 1);
    start(fd);
    /* the front door turned oi on and loaded 2^47 - 5 */
    CU_ASSERT_EQUAL(rd(m, PMUSIM_REG_PMC, 4, 0) & IA64_OI, IA64_OI);
    CU_ASSERT_EQUAL(rd(m, PMUSIM_REG_PMC, 5, 0) & IA64_OI, IA64_OI);
    CU_ASSERT_EQUAL(rd(m, PMUSIM_REG_PMD, 4, 0), W47 - 5);

    pmusim_rec_t r[23];
    linear(r, 23, 0x4000000000010000ull);
    run(m, r, 23);
    /* the 5th, 10th, 15th, 20th instructions (cycles 4, 9, 14, 19) */
    CU_ASSERT_EQUAL_FATAL(pmusim_frontdoor_n_samples(fd), 4);
    for (unsigned j = 0; j < 4; j++) {
        const pmusim_sample_t *s = pmusim_frontdoor_sample(fd, j);
        uint64_t k = 5 * j + 4;
        CU_ASSERT_EQUAL(s->cycle, k);
        CU_ASSERT_EQUAL(s->ip, 0x4000000000010000ull + 16 * k);
        CU_ASSERT_EQUAL(s->thread, 0);
        CU_ASSERT_EQUAL(s->counter, 0);
        CU_ASSERT_EQUAL(s->reg, 4);
        CU_ASSERT_EQUAL(s->period, 5);
        CU_ASSERT_EQUAL(s->ovfl, UINT64_C(1) << 4); /* PMC0 bit 4: PMD4 */
        CU_ASSERT_EQUAL_FATAL(s->nvalues, 2);
        CU_ASSERT_EQUAL(s->values[0], 5 * (j + 1)); /* instructions so far */
        CU_ASSERT_EQUAL(s->values[1], k + 1);       /* cycles 0..k */
    }
    /* 23 = 4 * 5 + 3: the counter holds 2^47 - 5 + 3, unfrozen, no overflow bits */
    CU_ASSERT_EQUAL(rd(m, PMUSIM_REG_PMD, 4, 0), W47 - 2);
    CU_ASSERT_EQUAL(rd(m, PMUSIM_REG_PMC, 0, 0), 0);
    CU_ASSERT_EQUAL(pmusim_frontdoor_counter_total(fd, 0, 0), 23);
    CU_ASSERT_EQUAL(pmusim_frontdoor_counter_total(fd, 1, 0), 23);
    CU_ASSERT_EQUAL(pmusim_frontdoor_counter_samples(fd, 0, 0), 4);
    CU_ASSERT_EQUAL(pmusim_frontdoor_interrupts(fd), 4);
    CU_ASSERT_EQUAL(pmusim_frontdoor_spurious(fd), 0);
    CU_ASSERT_EQUAL(pmusim_frontdoor_dropped(fd), 0);
    CU_ASSERT_EQUAL(m->pmi_count, 4);
    pmusim_frontdoor_free(fd);
    CU_ASSERT_PTR_NULL(m->pmi_handler);
    pmusim_model_free(m);
}

static void test_ita2_two_per_cycle_residual(void)
{
    /* 2 instructions per cycle, period 5: the 5th and 6th retire together in
     * cycle 2, the counter wraps to 1 and the reload drops that 1 from the
     * hardware count (the next sample needs 5 more); the 64-bit total keeps
     * it.  The sample IP is the cycle's last retirement (the 6th). */
    pmusim_model_t *m = model("ita2", 1);
    wr(m, PMUSIM_REG_PMC, 4, IA64_PMC(ES_INST), 0);
    pmusim_frontdoor_t *fd = frontdoor(m);
    add(fd, 4, 5, "IA64_INST_RETIRED");
    start(fd);
    pmusim_rec_t r[10];
    for (unsigned i = 0; i < 10; i++)
        r[i] = insn(i / 2, 0, 0x1000 + 16 * i);
    run(m, r, 10);
    CU_ASSERT_EQUAL_FATAL(pmusim_frontdoor_n_samples(fd), 1);
    CU_ASSERT_EQUAL(pmusim_frontdoor_sample(fd, 0)->cycle, 2);
    CU_ASSERT_EQUAL(pmusim_frontdoor_sample(fd, 0)->ip, 0x1000 + 16 * 5);
    CU_ASSERT_EQUAL(pmusim_frontdoor_sample(fd, 0)->values[0], 6);
    CU_ASSERT_EQUAL(rd(m, PMUSIM_REG_PMD, 4, 0), W47 - 5 + 4);
    CU_ASSERT_EQUAL(pmusim_frontdoor_counter_total(fd, 0, 0), 10);
    pmusim_frontdoor_free(fd);
    pmusim_model_free(m);
}

static void test_ita2_cycles_period_idle_gap(void)
{
    /* CPU_CYCLES every 10 cycles across an idle gap: interrupts at 9, 19, ... 99;
     * the IP is the only instruction's */
    pmusim_model_t *m = model("ita2", 1);
    wr(m, PMUSIM_REG_PMC, 4, IA64_PMC(ES_CYCLES), 0);
    pmusim_frontdoor_t *fd = frontdoor(m);
    add(fd, 4, 10, "CPU_CYCLES");
    start(fd);
    pmusim_rec_t r[2];
    r[0] = insn(0, 0, 0x7770);
    memset(&r[1], 0, sizeof r[1]);
    r[1].kind = PMUSIM_REC_IDLE;
    r[1].cycle = 1;
    r[1].n = 104; /* trace spans [0, 105) */
    run(m, r, 2);
    CU_ASSERT_EQUAL_FATAL(pmusim_frontdoor_n_samples(fd), 10);
    for (unsigned j = 0; j < 10; j++) {
        CU_ASSERT_EQUAL(pmusim_frontdoor_sample(fd, j)->cycle, 9 + 10 * j);
        CU_ASSERT_EQUAL(pmusim_frontdoor_sample(fd, j)->ip, 0x7770);
    }
    CU_ASSERT_EQUAL(pmusim_frontdoor_counter_total(fd, 0, 0), 105);
    CU_ASSERT_EQUAL(rd(m, PMUSIM_REG_PMD, 4, 0), W47 - 10 + 5);
    pmusim_frontdoor_free(fd);
    pmusim_model_free(m);
}

static void test_ita2_sample_limit(void)
{
    pmusim_model_t *m = model("ita2", 1);
    wr(m, PMUSIM_REG_PMC, 4, IA64_PMC(ES_INST), 0);
    pmusim_frontdoor_t *fd = frontdoor(m);
    add(fd, 4, 5, "IA64_INST_RETIRED");
    pmusim_frontdoor_set_sample_limit(fd, 2);
    start(fd);
    pmusim_rec_t r[23];
    linear(r, 23, 0x2000);
    run(m, r, 23);
    /* the buffer keeps 2, the counter is still reloaded every time */
    CU_ASSERT_EQUAL(pmusim_frontdoor_n_samples(fd), 2);
    CU_ASSERT_EQUAL(pmusim_frontdoor_dropped(fd), 2);
    CU_ASSERT_EQUAL(pmusim_frontdoor_counter_samples(fd, 0, 0), 4);
    CU_ASSERT_EQUAL(pmusim_frontdoor_counter_total(fd, 0, 0), 23);
    CU_ASSERT_PTR_NULL(pmusim_frontdoor_sample(fd, 2));
    pmusim_frontdoor_free(fd);
    pmusim_model_free(m);
}

static void test_mont_two_threads(void)
{
    /* each thread's PMC4 counts its own instructions; period 3.
     * thread 0: cycles 0..6 -> samples at cycles 2, 5; thread 1: cycles
     * 0..3 -> sample at cycle 2.  At cycle 2 thread 0 is served first. */
    pmusim_model_t *m = model("mont", 2);
    for (uint32_t t = 0; t < 2; t++)
        wr(m, PMUSIM_REG_PMC, 4, IA64_PMC(ES_INST), t);
    pmusim_frontdoor_t *fd = frontdoor(m);
    add(fd, 4, 3, "IA64_INST_RETIRED");
    start(fd);
    pmusim_rec_t r[11];
    size_t n = 0;
    for (unsigned c = 0; c < 7; c++) {
        r[n++] = insn(c, 0, 0x1000 + 16 * c);
        if (c < 4)
            r[n++] = insn(c, 1, 0x2000 + 16 * c);
    }
    run(m, r, n);
    CU_ASSERT_EQUAL_FATAL(pmusim_frontdoor_n_samples(fd), 3);
    const pmusim_sample_t *s0 = pmusim_frontdoor_sample(fd, 0), *s1 = pmusim_frontdoor_sample(fd, 1),
                          *s2 = pmusim_frontdoor_sample(fd, 2);
    CU_ASSERT_EQUAL(s0->cycle, 2);
    CU_ASSERT_EQUAL(s0->thread, 0);
    CU_ASSERT_EQUAL(s0->ip, 0x1020);
    CU_ASSERT_EQUAL(s1->cycle, 2);
    CU_ASSERT_EQUAL(s1->thread, 1);
    CU_ASSERT_EQUAL(s1->ip, 0x2020);
    CU_ASSERT_EQUAL(s2->cycle, 5);
    CU_ASSERT_EQUAL(s2->thread, 0);
    CU_ASSERT_EQUAL(s2->ip, 0x1050);
    CU_ASSERT_EQUAL(pmusim_frontdoor_counter_total(fd, 0, 0), 7);
    CU_ASSERT_EQUAL(pmusim_frontdoor_counter_total(fd, 0, 1), 4);
    CU_ASSERT_EQUAL(rd(m, PMUSIM_REG_PMD, 4, 0), W47 - 3 + 1);
    CU_ASSERT_EQUAL(rd(m, PMUSIM_REG_PMD, 4, 1), W47 - 3 + 1);
    CU_ASSERT_EQUAL(rd(m, PMUSIM_REG_PMC, 0, 0), 0);
    CU_ASSERT_EQUAL(rd(m, PMUSIM_REG_PMC, 0, 1), 0);
    pmusim_frontdoor_free(fd);
    pmusim_model_free(m);
}

static void test_mont_counter_range(void)
{
    /* Montecito counters PMD4..15; ita2 stops at PMD7 */
    pmusim_model_t *m = model("mont", 1);
    wr(m, PMUSIM_REG_PMC, 15, IA64_PMC(ES_INST), 0);
    pmusim_frontdoor_t *fd = frontdoor(m);
    add(fd, 15, 7, "IA64_INST_RETIRED");
    start(fd);
    pmusim_rec_t r[23];
    linear(r, 23, 0x8000);
    run(m, r, 23);
    CU_ASSERT_EQUAL_FATAL(pmusim_frontdoor_n_samples(fd), 3);
    CU_ASSERT_EQUAL(pmusim_frontdoor_sample(fd, 2)->cycle, 20);
    CU_ASSERT_EQUAL(pmusim_frontdoor_sample(fd, 2)->ip, 0x8000 + 16 * 20);
    CU_ASSERT_EQUAL(pmusim_frontdoor_sample(fd, 2)->ovfl, UINT64_C(1) << 15);
    CU_ASSERT_EQUAL(pmusim_frontdoor_counter_total(fd, 0, 0), 23);
    pmusim_frontdoor_free(fd);
    pmusim_model_free(m);
}

/* ---- perf_event (x86) ---- */

static void test_wsm_pmc0_period5_freeze(void)
{
    pmusim_model_t *m = model("wsm", 1);
    wr(m, PMUSIM_REG_MSR, MSR_EVTSEL0, EVTSEL(0xc0, 0x01), 0); /* INST_RETIRED:ANY_P */
    wr(m, PMUSIM_REG_MSR, MSR_FIXED_CTR_CTRL, 0x30, 0);         /* FIXED_CTR1 cycles, no PMI */
    wr(m, PMUSIM_REG_MSR, MSR_GLOBAL_CTRL, UINT64_C(0x200000001), 0);
    wr(m, PMUSIM_REG_MSR, MSR_DEBUGCTL, UINT64_C(1) << 12, 0); /* FREEZE_PERFMON_ON_PMI */
    pmusim_frontdoor_t *fd = frontdoor(m);
    CU_ASSERT_EQUAL(pmusim_frontdoor_style(fd), PMUSIM_FRONTDOOR_PERF_EVENT);
    add(fd, MSR_PMC0, 5, "INST_RETIRED:ANY_P");
    add(fd, MSR_FIXED_CTR0 + 1, 0, "UNHALTED_CORE_CYCLES");
    start(fd);
    /* INT on, PMI on for fixed counter 1, -5 loaded as 2^32 - 5 and sign-extended */
    CU_ASSERT_EQUAL(rd(m, PMUSIM_REG_MSR, MSR_EVTSEL0, 0), EVTSEL(0xc0, 0x01) | EVTSEL_INT);
    CU_ASSERT_EQUAL(rd(m, PMUSIM_REG_MSR, MSR_FIXED_CTR_CTRL, 0), 0xb0);
    CU_ASSERT_EQUAL(rd(m, PMUSIM_REG_MSR, MSR_PMC0, 0), W48 - 5);

    pmusim_rec_t r[23];
    linear(r, 23, 0x400100);
    run(m, r, 23);
    CU_ASSERT_EQUAL_FATAL(pmusim_frontdoor_n_samples(fd), 4);
    for (unsigned j = 0; j < 4; j++) {
        const pmusim_sample_t *s = pmusim_frontdoor_sample(fd, j);
        uint64_t k = 5 * j + 4;
        CU_ASSERT_EQUAL(s->cycle, k);
        CU_ASSERT_EQUAL(s->ip, 0x400100 + 16 * k);
        CU_ASSERT_EQUAL(s->reg, MSR_PMC0);
        CU_ASSERT_EQUAL(s->ovfl, 1); /* GLOBAL_STATUS bit 0 */
        CU_ASSERT_EQUAL(s->values[0], 5 * (j + 1));
        /* the PMI follows the record: cycles 0..k-1 closed, cycle k not yet */
        CU_ASSERT_EQUAL(s->values[1], k);
    }
    CU_ASSERT_EQUAL(rd(m, PMUSIM_REG_MSR, MSR_PMC0, 0), W48 - 2);
    CU_ASSERT_EQUAL(rd(m, PMUSIM_REG_MSR, MSR_GLOBAL_STATUS, 0), 0);
    CU_ASSERT_EQUAL(rd(m, PMUSIM_REG_MSR, MSR_GLOBAL_CTRL, 0), UINT64_C(0x200000001));
    CU_ASSERT_EQUAL(pmusim_frontdoor_counter_total(fd, 0, 0), 23);
    /* the freeze and the re-enable happen at the same point: no cycle lost */
    CU_ASSERT_EQUAL(pmusim_frontdoor_counter_total(fd, 1, 0), 23);
    CU_ASSERT_EQUAL(pmusim_frontdoor_interrupts(fd), 4);
    pmusim_frontdoor_free(fd);
    pmusim_model_free(m);
}

static void test_wsm_fixed_and_gp_cycles(void)
{
    /* FIXED_CTR0 (instructions) period 4 and a GP cycle counter period 10 on
     * 10 instructions at cycles 0..9 and an idle gap to cycle 30 */
    pmusim_model_t *m = model("wsm", 1);
    wr(m, PMUSIM_REG_MSR, MSR_EVTSEL0, EVTSEL(0x3c, 0x00), 0); /* UNHALTED_CORE_CYCLES */
    wr(m, PMUSIM_REG_MSR, MSR_FIXED_CTR_CTRL, 0x3, 0);
    wr(m, PMUSIM_REG_MSR, MSR_GLOBAL_CTRL, UINT64_C(0x100000001), 0);
    pmusim_frontdoor_t *fd = frontdoor(m);
    add(fd, MSR_FIXED_CTR0, 4, "INSTRUCTION_RETIRED");
    add(fd, MSR_PMC0, 10, "UNHALTED_CORE_CYCLES");
    start(fd);
    pmusim_rec_t r[11];
    linear(r, 10, 0x500000);
    memset(&r[10], 0, sizeof r[10]);
    r[10].kind = PMUSIM_REC_IDLE;
    r[10].cycle = 10;
    r[10].n = 20; /* [0, 30) */
    r[10].plm = 3;
    run(m, r, 11);
    /* instructions: the 4th and 8th (cycles 3, 7); cycles: 9, 19, 29 */
    uint64_t want_cycle[] = {3, 7, 9, 19, 29};
    uint32_t want_ctr[] = {0, 0, 1, 1, 1};
    uint64_t want_ip[] = {0x500030, 0x500070, 0x500090, 0x500090, 0x500090};
    uint64_t want_ovfl[] = {UINT64_C(1) << 32, UINT64_C(1) << 32, 1, 1, 1};
    CU_ASSERT_EQUAL_FATAL(pmusim_frontdoor_n_samples(fd), 5);
    for (unsigned j = 0; j < 5; j++) {
        const pmusim_sample_t *s = pmusim_frontdoor_sample(fd, j);
        CU_ASSERT_EQUAL(s->cycle, want_cycle[j]);
        CU_ASSERT_EQUAL(s->counter, want_ctr[j]);
        CU_ASSERT_EQUAL(s->ip, want_ip[j]);
        CU_ASSERT_EQUAL(s->ovfl, want_ovfl[j]);
    }
    CU_ASSERT_EQUAL(pmusim_frontdoor_counter_total(fd, 0, 0), 10);
    CU_ASSERT_EQUAL(pmusim_frontdoor_counter_total(fd, 1, 0), 30);
    CU_ASSERT_EQUAL(rd(m, PMUSIM_REG_MSR, MSR_FIXED_CTR0, 0), W48 - 4 + 2);
    CU_ASSERT_EQUAL(rd(m, PMUSIM_REG_MSR, MSR_PMC0, 0), W48 - 10);
    pmusim_frontdoor_free(fd);
    pmusim_model_free(m);
}

static void test_wsm_pebs_counter(void)
{
    /* a PEBS-enabled counter overflows into OvfBuf, not its status bit: the
     * front door finds it wrapped, samples it and reloads it.  The overflow
     * only arms PEBS; the assist (and the PMI) come at the next instruction
     * (SDM Vol. 3B §18.8.1.1), which has counted too: loaded at -5, records
     * 0-4 wrap it at 4, record 5 fires the assist and the reload; then 6-10
     * wrap, 11 fires, 12-16, 17, and 18-22 wrap at 22 with no record left
     * to fire the assist: 3 samples, at cycles 5, 11, 17. */
    pmusim_model_t *m = model("wsm", 1);
    wr(m, PMUSIM_REG_MSR, MSR_EVTSEL0, EVTSEL(0xc0, 0x01), 0);
    wr(m, PMUSIM_REG_MSR, 0x3f1, 1, 0); /* IA32_PEBS_ENABLE: PEBS_EN_PMC0 */
    wr(m, PMUSIM_REG_MSR, MSR_GLOBAL_CTRL, 1, 0);
    pmusim_frontdoor_t *fd = frontdoor(m);
    add(fd, MSR_PMC0, 5, "INST_RETIRED:ANY_P");
    start(fd);
    pmusim_rec_t r[23];
    linear(r, 23, 0x600000);
    run(m, r, 23);
    CU_ASSERT_EQUAL_FATAL(pmusim_frontdoor_n_samples(fd), 3);
    for (unsigned j = 0; j < 3; j++) {
        const pmusim_sample_t *s = pmusim_frontdoor_sample(fd, j);
        CU_ASSERT_EQUAL(s->cycle, 6 * j + 5);
        CU_ASSERT_EQUAL(s->ip, 0x600000 + 16 * (6 * j + 5));
        CU_ASSERT_EQUAL(s->ovfl, UINT64_C(1) << 62);
        CU_ASSERT_EQUAL(s->flags, PMUSIM_SAMPLE_PEBS);
    }
    CU_ASSERT_EQUAL(pmusim_frontdoor_spurious(fd), 0);
    CU_ASSERT_EQUAL(pmusim_frontdoor_counter_total(fd, 0, 0), 23);
    CU_ASSERT_EQUAL(rd(m, PMUSIM_REG_MSR, MSR_PMC0, 0), 0); /* wrapped at 22, armed */
    CU_ASSERT_EQUAL(rd(m, PMUSIM_REG_MSR, MSR_GLOBAL_STATUS, 0), 0);
    pmusim_report_t rep;
    pmusim_report_init(&rep);
    pmusim_model_collect(m, &rep);
    CU_ASSERT_EQUAL(rep.captures->len, 3); /* the model's PEBS records */
    pmusim_report_clear(&rep);
    pmusim_frontdoor_free(fd);
    pmusim_model_free(m);
}

static void test_knm_40bit(void)
{
    pmusim_model_t *m = model("knm", 1);
    wr(m, PMUSIM_REG_MSR, MSR_FIXED_CTR_CTRL, 0x3, 0);
    wr(m, PMUSIM_REG_MSR, MSR_GLOBAL_CTRL, UINT64_C(0x100000000), 0);
    pmusim_frontdoor_t *fd = frontdoor(m);
    add(fd, MSR_FIXED_CTR0, 3, "INSTRUCTION_RETIRED");
    start(fd);
    CU_ASSERT_EQUAL(rd(m, PMUSIM_REG_MSR, MSR_FIXED_CTR0, 0), W40 - 3);
    pmusim_rec_t r[7];
    linear(r, 7, 0x100);
    run(m, r, 7);
    CU_ASSERT_EQUAL_FATAL(pmusim_frontdoor_n_samples(fd), 2);
    CU_ASSERT_EQUAL(pmusim_frontdoor_sample(fd, 0)->ip, 0x120);
    CU_ASSERT_EQUAL(pmusim_frontdoor_sample(fd, 1)->ip, 0x150);
    CU_ASSERT_EQUAL(rd(m, PMUSIM_REG_MSR, MSR_FIXED_CTR0, 0), W40 - 2);
    CU_ASSERT_EQUAL(pmusim_frontdoor_counter_total(fd, 0, 0), 7);
    pmusim_frontdoor_free(fd);
    pmusim_model_free(m);
}

/* ---- against a plain replay: sampling must not change the counts ---- */

static char *gen_trace(pmusim_cpu_t cpu, uint64_t records, uint64_t seed)
{
    pmusim_gen_params_t p;
    pmusim_gen_params_init(&p, cpu);
    p.workload = PMUSIM_GEN_MIXED;
    p.records = records;
    p.seed = seed;
    GError *e = NULL;
    char *path = NULL;
    int fdesc = g_file_open_tmp("pmusim-fd-XXXXXX.pmt", &path, &e);
    CU_ASSERT_TRUE_FATAL(fdesc >= 0);
    close(fdesc);
    pmusim_trace_header_t h;
    CU_ASSERT_TRUE_FATAL(pmusim_gen_header(&p, &h, &e));
    pmusim_trace_writer_t *w = pmusim_trace_writer_open(path, PMUSIM_TRACE_BINARY, &h, &e);
    CU_ASSERT_PTR_NOT_NULL_FATAL(w);
    CU_ASSERT_TRUE(pmusim_gen_run(&p, w, &e));
    CU_ASSERT_TRUE(pmusim_trace_writer_close(w, &e));
    pmusim_trace_header_clear(&h);
    g_clear_error(&e);
    return path;
}

static uint32_t replay_file(pmusim_model_t *m, const char *path)
{
    GError *e = NULL;
    pmusim_trace_reader_t *r = pmusim_trace_reader_open(path, &e);
    CU_ASSERT_PTR_NOT_NULL_FATAL(r);
    uint32_t nthreads = pmusim_trace_reader_header(r)->nthreads;
    gboolean ok = pmusim_replay(m, r, NULL, NULL, &e);
    if (!ok)
        fprintf(stderr, "replay: %s\n", e->message);
    CU_ASSERT_TRUE(ok);
    g_clear_error(&e);
    pmusim_trace_reader_free(r);
    return nthreads;
}

typedef struct {
    pmusim_regspace_t space;
    uint32_t num;
    uint64_t value;
} cfg_write_t;

typedef struct {
    uint32_t reg;
    uint64_t period; /* 0: counting */
} cfg_ctr_t;

/* Replays the trace into a plain model and into one with a front door:
 * every counter's 64-bit total equals the plain count; on x86 (no
 * residuals: each occurrence adds 1) samples = total / period exactly. */
static void compare_with_plain(const char *pmu, pmusim_cpu_t cpu, uint32_t nthreads,
                               const cfg_write_t *w, size_t nw, const cfg_ctr_t *c, size_t nc,
                               bool exact_samples)
{
    char *path = gen_trace(cpu, 200000, 7);
    pmusim_model_t *a = model(pmu, nthreads), *b = model(pmu, nthreads);
    for (uint32_t t = 0; t < nthreads; t++)
        for (size_t i = 0; i < nw; i++) {
            wr(a, w[i].space, w[i].num, w[i].value, t);
            wr(b, w[i].space, w[i].num, w[i].value, t);
        }
    pmusim_frontdoor_t *fd = frontdoor(b);
    for (size_t k = 0; k < nc; k++)
        add(fd, c[k].reg, c[k].period, NULL);
    start(fd);
    replay_file(a, path);
    replay_file(b, path);
    pmusim_regspace_t data = pmusim_frontdoor_style(fd) == PMUSIM_FRONTDOOR_PERFMON2
                                 ? PMUSIM_REG_PMD
                                 : PMUSIM_REG_MSR;
    uint64_t samples = 0;
    for (uint32_t t = 0; t < nthreads; t++)
        for (size_t k = 0; k < nc; k++) {
            uint64_t plain = rd(a, data, c[k].reg, t);
            uint64_t total = pmusim_frontdoor_counter_total(fd, k, t);
            CU_ASSERT_EQUAL(total, plain);
            CU_ASSERT_TRUE(plain > 0);
            uint64_t n = pmusim_frontdoor_counter_samples(fd, k, t);
            samples += n;
            if (c[k].period && exact_samples)
                CU_ASSERT_EQUAL(n, plain / c[k].period);
            if (c[k].period)
                CU_ASSERT_TRUE(n > 0 && n <= plain / c[k].period);
            if (!c[k].period)
                CU_ASSERT_EQUAL(n, 0);
        }
    CU_ASSERT_EQUAL(pmusim_frontdoor_n_samples(fd), samples);
    /* a sample stands for at least one period of its own counter; its IP
     * is the thread's last retired instruction, none (0) only before the
     * thread's first retirement (counter 0 counts instructions in every
     * set-up here; generated traces start with cold misses, so cycle
     * counters can overflow before that) */
    for (size_t i = 0; i < pmusim_frontdoor_n_samples(fd); i++) {
        const pmusim_sample_t *s = pmusim_frontdoor_sample(fd, i);
        CU_ASSERT_TRUE(s->values[s->counter] >= s->period);
        CU_ASSERT_TRUE(s->ip != 0 || s->values[0] == 0);
    }
    pmusim_frontdoor_free(fd);
    pmusim_model_free(a);
    pmusim_model_free(b);
    g_unlink(path);
    g_free(path);
}

static void test_wsm_matches_plain_replay(void)
{
    const cfg_write_t w[] = {
        {PMUSIM_REG_MSR, MSR_EVTSEL0, EVTSEL(0xc0, 0x01) | EVTSEL_INT},
        {PMUSIM_REG_MSR, MSR_EVTSEL0 + 1, EVTSEL(0x3c, 0x00)},
        {PMUSIM_REG_MSR, MSR_EVTSEL0 + 2, EVTSEL(0x0b, 0x01)}, /* MEM_INST_RETIRED:LOADS */
        {PMUSIM_REG_MSR, MSR_FIXED_CTR_CTRL, 0x33},
        {PMUSIM_REG_MSR, MSR_GLOBAL_CTRL, UINT64_C(0x300000007)},
    };
    const cfg_ctr_t c[] = {
        {MSR_PMC0, 1009}, {MSR_PMC0 + 1, 997}, {MSR_PMC0 + 2, 0}, {MSR_FIXED_CTR0, 1013},
        {MSR_FIXED_CTR0 + 1, 0},
    };
    compare_with_plain("wsm", PMUSIM_CPU_WSM, 2, w, G_N_ELEMENTS(w), c, G_N_ELEMENTS(c), true);
    /* the same with FREEZE_PERFMON_ON_PMI: the handler's re-enable loses nothing */
    const cfg_write_t wf[] = {
        {PMUSIM_REG_MSR, MSR_EVTSEL0, EVTSEL(0xc0, 0x01)},
        {PMUSIM_REG_MSR, MSR_EVTSEL0 + 1, EVTSEL(0x3c, 0x00)},
        {PMUSIM_REG_MSR, MSR_GLOBAL_CTRL, UINT64_C(0x3)},
        {PMUSIM_REG_MSR, MSR_DEBUGCTL, UINT64_C(1) << 12},
    };
    const cfg_ctr_t cf[] = {{MSR_PMC0, 501}, {MSR_PMC0 + 1, 0}};
    compare_with_plain("wsm", PMUSIM_CPU_WSM, 2, wf, G_N_ELEMENTS(wf), cf, G_N_ELEMENTS(cf), true);
}

static void test_ia64_matches_plain_replay(void)
{
    const cfg_write_t w[] = {
        {PMUSIM_REG_PMC, 4, IA64_PMC(ES_INST)},
        {PMUSIM_REG_PMC, 5, IA64_PMC(ES_CYCLES)},
        {PMUSIM_REG_PMC, 6, IA64_PMC(0xcd)}, /* LOADS_RETIRED */
    };
    const cfg_ctr_t c[] = {{4, 101}, {5, 97}, {6, 0}};
    compare_with_plain("ita2", PMUSIM_CPU_ITA2, 1, w, G_N_ELEMENTS(w), c, G_N_ELEMENTS(c), false);
    compare_with_plain("mont", PMUSIM_CPU_MONT, 2, w, G_N_ELEMENTS(w), c, G_N_ELEMENTS(c), false);
}

/* ---- errors ---- */

static void expect_add_error(pmusim_frontdoor_t *fd, uint32_t reg, uint64_t period, int code)
{
    GError *e = NULL;
    int k = pmusim_frontdoor_add_sampling(fd, reg, period, "X", &e);
    CU_ASSERT_EQUAL(k, -1);
    CU_ASSERT_PTR_NOT_NULL_FATAL(e);
    CU_ASSERT_TRUE(g_error_matches(e, PMUSIM_FRONTDOOR_ERROR, code));
    g_error_free(e);
}

static void test_errors(void)
{
    pmusim_model_t *m = model("ita2", 1);
    pmusim_frontdoor_t *fd = frontdoor(m);
    expect_add_error(fd, 8, 5, PMUSIM_FRONTDOOR_ERROR_COUNTER); /* ita2 PMD8: BTB data */
    expect_add_error(fd, 3, 5, PMUSIM_FRONTDOOR_ERROR_COUNTER);
    expect_add_error(fd, 4, 0, PMUSIM_FRONTDOOR_ERROR_PERIOD);
    expect_add_error(fd, 4, W47 + 1, PMUSIM_FRONTDOOR_ERROR_PERIOD);
    CU_ASSERT_EQUAL(add(fd, 4, W47, "max"), 0);
    expect_add_error(fd, 4, 5, PMUSIM_FRONTDOOR_ERROR_COUNTER); /* twice */
    start(fd);
    expect_add_error(fd, 5, 5, PMUSIM_FRONTDOOR_ERROR_STATE);
    GError *e = NULL;
    CU_ASSERT_FALSE(pmusim_frontdoor_start(fd, &e));
    CU_ASSERT_TRUE(g_error_matches(e, PMUSIM_FRONTDOOR_ERROR, PMUSIM_FRONTDOOR_ERROR_STATE));
    g_clear_error(&e);
    pmusim_frontdoor_free(fd);
    pmusim_model_free(m);

    m = model("knm", 1);
    fd = frontdoor(m);
    expect_add_error(fd, MSR_PMC0 + 2, 5, PMUSIM_FRONTDOOR_ERROR_COUNTER); /* knm: 2 GP */
    expect_add_error(fd, MSR_EVTSEL0, 5, PMUSIM_FRONTDOOR_ERROR_COUNTER);
    expect_add_error(fd, MSR_PMC0, (UINT64_C(1) << 31) + 1, PMUSIM_FRONTDOOR_ERROR_PERIOD);
    CU_ASSERT_EQUAL(add(fd, MSR_PMC0 + 1, UINT64_C(1) << 31, "max"), 0);
    pmusim_frontdoor_free(fd);
    pmusim_model_free(m);
}

static void register_suites(void);
#include "cu_main.h"

static void register_suites(void)
{
    CU_pSuite s = CU_add_suite("frontdoor_perfmon2", NULL, NULL);
    PMUSIM_ADD_TEST(s, test_ita2_inst_period5);
    PMUSIM_ADD_TEST(s, test_ita2_two_per_cycle_residual);
    PMUSIM_ADD_TEST(s, test_ita2_cycles_period_idle_gap);
    PMUSIM_ADD_TEST(s, test_ita2_sample_limit);
    PMUSIM_ADD_TEST(s, test_mont_two_threads);
    PMUSIM_ADD_TEST(s, test_mont_counter_range);
    s = CU_add_suite("frontdoor_perf_event", NULL, NULL);
    PMUSIM_ADD_TEST(s, test_wsm_pmc0_period5_freeze);
    PMUSIM_ADD_TEST(s, test_wsm_fixed_and_gp_cycles);
    PMUSIM_ADD_TEST(s, test_wsm_pebs_counter);
    PMUSIM_ADD_TEST(s, test_knm_40bit);
    s = CU_add_suite("frontdoor_vs_plain_replay", NULL, NULL);
    PMUSIM_ADD_TEST(s, test_wsm_matches_plain_replay);
    PMUSIM_ADD_TEST(s, test_ia64_matches_plain_replay);
    s = CU_add_suite("frontdoor_errors", NULL, NULL);
    PMUSIM_ADD_TEST(s, test_errors);
}
