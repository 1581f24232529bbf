/* IA-64 PMU models: register file, generic counters (plm, ev, oi, pm, es,
 * umask, thres, ism), overflow, freeze and interrupts, cycle by cycle.
 * Every expected value is computed by hand in the comment next to it. */
#include "cu_main.h"
#include "ia64_test.h"
#include "ia64_priv.h"

#define OI (1u << 5)
#define EV (1u << 4)
#define PM (1u << 6)
#define ES_CYCLES 0x12u
#define ES_INST 0x08u
#define ES_IA32_INST 0x59u

static uint64_t cfg(unsigned es, unsigned umask, unsigned plm, unsigned thres, unsigned ism,
                    unsigned flags)
{
    return (uint64_t)plm | flags | (uint64_t)es << 8 | (uint64_t)umask << 16 |
           (uint64_t)thres << 20 | (uint64_t)ism << 24;
}

/* ---- register file ---- */

static void test_reset_values(void)
{
    pmusim_model_t *m = t_model("ita2", 1);
    CU_ASSERT_EQUAL(RPMC(m, 0), 0);             /* model starts unfrozen (docs) */
    CU_ASSERT_EQUAL(RPMC(m, 4), 0x800000);      /* power-enable bit */
    CU_ASSERT_EQUAL(RPMC(m, 5), 0);
    CU_ASSERT_EQUAL(RPMC(m, 8), 0xffffffff3fffffffull);
    CU_ASSERT_EQUAL(RPMC(m, 9), 0xffffffff3ffffffcull);
    CU_ASSERT_EQUAL(RPMC(m, 13), 0x00002078fefefefeull);
    CU_ASSERT_EQUAL(RPMC(m, 14), 0x0db60db60db60db6ull);
    CU_ASSERT_EQUAL(RPMC(m, 15), 0xfffffff0ull);
    CU_ASSERT_EQUAL(RPMD(m, 17), 0);
    uint64_t v;
    CU_ASSERT_FALSE(m->ops->read_reg(m, PMUSIM_REG_PMC, 16, 0, &v));
    CU_ASSERT_FALSE(m->ops->read_reg(m, PMUSIM_REG_PMD, 18, 0, &v));
    CU_ASSERT_FALSE(m->ops->read_reg(m, PMUSIM_REG_IBR, 8, 0, &v));
    CU_ASSERT_FALSE(m->ops->read_reg(m, PMUSIM_REG_PMC, 4, 1, &v)); /* no thread 1 */
    pmusim_model_free(m);

    m = t_model("mont", 2);
    for (uint32_t n = 4; n <= 15; n++)
        CU_ASSERT_EQUAL(t_read(m, PMUSIM_REG_PMC, n, 1), 0x2000000);
    CU_ASSERT_EQUAL(RPMC(m, 32), 0x030f01ffffffffffull);
    CU_ASSERT_EQUAL(RPMC(m, 36), 0xfffffff0ull);
    CU_ASSERT_EQUAL(RPMC(m, 38), 0xdb6);
    CU_ASSERT_EQUAL(RPMC(m, 40), 0x2000000);
    CU_ASSERT_FALSE(m->ops->read_reg(m, PMUSIM_REG_PMC, 16, 0, &v));
    CU_ASSERT_FALSE(m->ops->read_reg(m, PMUSIM_REG_PMC, 43, 0, &v));
    CU_ASSERT_FALSE(m->ops->read_reg(m, PMUSIM_REG_PMD, 37, 0, &v)); /* kernel: unimplemented */
    CU_ASSERT_TRUE(m->ops->read_reg(m, PMUSIM_REG_PMD, 63, 1, &v));
    pmusim_model_free(m);
}

static void test_write_masks(void)
{
    pmusim_model_t *m = t_model("ita2", 1);
    PMC(m, 5, UINT64_MAX);
    CU_ASSERT_EQUAL(RPMC(m, 5), 0x0fffff7f); /* kernel writable mask, reset 0 elsewhere */
    CU_ASSERT_TRUE(t_diag_has(m, "PMC5"));
    guint nd = m->diags->len;
    PMC(m, 6, 0x1228);
    CU_ASSERT_EQUAL(RPMC(m, 6), 0x1228);
    CU_ASSERT_EQUAL(m->diags->len, nd); /* nothing to report */
    PMC(m, 4, 0x1228);                  /* perfmon forces bit 23 */
    CU_ASSERT_EQUAL(RPMC(m, 4), 0x801228);
    CU_ASSERT_FALSE(t_diag_has(m, "bit 23")); /* an expected fix-up: a note, not a diagnostic */
    CU_ASSERT_EQUAL(m->notes->len, 1);
    CU_ASSERT_PTR_NOT_NULL(strstr(g_ptr_array_index(m->notes, 0), "bit 23"));
    PMC(m, 8, 0);                       /* bit 2 forced to 1, bits 31:30 keep 0 */
    CU_ASSERT_EQUAL(RPMC(m, 8), 0x4);
    PMC(m, 15, 0x12345);
    CU_ASSERT_EQUAL(RPMC(m, 15), 0xfffffff5ull);
    /* PMC0: fr and overflow bits 7:4 only */
    PMC(m, 0, 0xffff);
    CU_ASSERT_EQUAL(RPMC(m, 0), 0xf1);
    PMC(m, 0, 0);
    /* unimplemented registers: ignored and reported */
    nd = m->diags->len;
    PMC(m, 16, 1);
    t_write(m, PMUSIM_REG_MSR, 0x186, 1, 0);
    t_write(m, PMUSIM_REG_DBR, 9, 1, 0);
    CU_ASSERT_EQUAL(m->diags->len, nd + 3);
    /* debug register enables are cleared as perfmon does */
    t_write(m, PMUSIM_REG_IBR, 1, 0x8f00000000000000ull, 0);
    CU_ASSERT_EQUAL(t_read(m, PMUSIM_REG_IBR, 1, 0), 0x0f00000000000000ull);
    t_write(m, PMUSIM_REG_DBR, 3, 0xcf00000000000000ull, 0);
    CU_ASSERT_EQUAL(t_read(m, PMUSIM_REG_DBR, 3, 0), 0x0f00000000000000ull);
    /* a thread that does not exist is an error */
    pmusim_regwrite_t w = {.space = PMUSIM_REG_PMC, .num = 4, .value = 0, .thread = 1};
    GError *e = NULL;
    CU_ASSERT_FALSE(m->ops->write_reg(m, &w, &e));
    CU_ASSERT_TRUE(e && e->code == PMUSIM_SIM_ERROR_REG);
    g_clear_error(&e);
    pmusim_model_free(m);

    m = t_model("mont", 1);
    PMC(m, 4, 0x1208); /* ism keeps its forced 0b10 */
    CU_ASSERT_EQUAL(RPMC(m, 4), 0x2001208);
    CU_ASSERT_TRUE(t_diag_has(m, "PMC4"));
    nd = m->diags->len;
    PMC(m, 5, 0x2001208);
    CU_ASSERT_EQUAL(m->diags->len, nd);
    PMC(m, 6, 0x00800000 | 0x2001208); /* bit 23 not writable on Montecito */
    CU_ASSERT_EQUAL(RPMC(m, 6), 0x2001208);
    PMC(m, 34, UINT64_MAX);            /* no inv / ig_ad on PMC34 */
    CU_ASSERT_EQUAL(RPMC(m, 34), 0x000f01ffffffffffull);
    pmusim_model_free(m);
}

static void test_pmd_read_write(void)
{
    pmusim_model_t *m = t_model("ita2", 1);
    PMD(m, 4, 0xffff800000000005ull); /* bits 63:47 ignored */
    CU_ASSERT_EQUAL(RPMD(m, 4), 5);
    PMD(m, 4, CTR_WRAP - 2); /* bit 46 set: bits 63:47 still read 0 */
    CU_ASSERT_EQUAL(RPMD(m, 4), 0x7ffffffffffeull);
    CU_ASSERT_EQUAL(RPMD(m, 4), 0x7ffffffffffeull); /* reads have no side effect */
    PMD(m, 16, UINT64_MAX);                             /* BTB index: 36 bits */
    CU_ASSERT_EQUAL(RPMD(m, 16), 0xfffffffffull);
    pmusim_model_free(m);
}

/* ---- counting ---- */

static void test_cycles_and_insts(void)
{
    pmusim_model_t *m = t_model("ita2", 1);
    PMC(m, 4, cfg(ES_CYCLES, 0, 8, 0, 0, OI));
    PMC(m, 5, cfg(ES_INST, 0, 8, 0, 0, OI));
    PMC(m, 6, cfg(ES_CYCLES, 0, 1, 0, 0, OI)); /* kernel cycles */
    PMC(m, 7, cfg(ES_INST, 0, 0x9, 0, 0, OI)); /* user + kernel */
    /* cycles 0-4 user, 5-7 kernel, 8 user, idle to 12 -> user [0,5)+[8,12) =
     * 9 cycles, kernel [5,8) = 3 cycles; 2 user insns in cycle 0 */
    pmusim_rec_t r[] = {t_insn(0, 3), t_insn(0, 3), t_insn(2, 3), t_insn(5, 0),
                        t_insn(7, 0), t_insn(8, 3), t_idle(9, 3)};
    t_run(m, r, G_N_ELEMENTS(r));
    CU_ASSERT_EQUAL(CNT(m, 4), 9);
    CU_ASSERT_EQUAL(CNT(m, 5), 4);
    CU_ASSERT_EQUAL(CNT(m, 6), 3);
    CU_ASSERT_EQUAL(CNT(m, 7), 6);
    pmusim_report_t rep;
    pmusim_report_init(&rep);
    m->ops->report(m, &rep);
    CU_ASSERT_EQUAL(rep.cycles, 12);
    CU_ASSERT_EQUAL(rep.records, 7);
    CU_ASSERT_EQUAL(rep.counters->len, 4);
    const pmusim_counter_result_t *c0 = &g_array_index(rep.counters, pmusim_counter_result_t, 0);
    CU_ASSERT_STRING_EQUAL(c0->reg, "PMD4");
    CU_ASSERT_STRING_EQUAL(c0->event, "CPU_CYCLES");
    CU_ASSERT_EQUAL(c0->value, 9);
    CU_ASSERT_TRUE(c0->enabled);
    pmusim_report_clear(&rep);
    pmusim_model_free(m);

    /* a gap of a million idle cycles, cycles before the first insn at PL 0 */
    m = t_model("ita2", 1);
    PMC(m, 4, cfg(ES_CYCLES, 0, 8, 0, 0, OI));
    PMC(m, 5, cfg(ES_CYCLES, 0, 1, 0, 0, OI));
    pmusim_rec_t g[] = {t_insn(10, 3), t_insn(1000010, 3)};
    t_run(m, g, 2);
    CU_ASSERT_EQUAL(CNT(m, 4), 1000001);
    CU_ASSERT_EQUAL(CNT(m, 5), 10);
    pmusim_model_free(m);
}

static void test_label_in_report(void)
{
    pmusim_model_t *m = t_model("mont", 1);
    t_write_l(m, PMUSIM_REG_PMC, 9, 0x2001208, 0, "CPU_OP_CYCLES_ALL");
    pmusim_rec_t r[] = {t_insn(0, 3), t_insn(4, 3)};
    t_run(m, r, 2);
    pmusim_report_t rep;
    pmusim_report_init(&rep);
    m->ops->report(m, &rep);
    CU_ASSERT_EQUAL(rep.counters->len, 12);
    const pmusim_counter_result_t *c = &g_array_index(rep.counters, pmusim_counter_result_t, 5);
    CU_ASSERT_STRING_EQUAL(c->reg, "PMD9");
    CU_ASSERT_STRING_EQUAL(c->event, "CPU_OP_CYCLES_ALL");
    CU_ASSERT_EQUAL(c->value, 5);
    CU_ASSERT_TRUE(c->enabled);
    CU_ASSERT_FALSE(g_array_index(rep.counters, pmusim_counter_result_t, 0).enabled);
    pmusim_report_clear(&rep);
    pmusim_model_free(m);
}

/* Per-cycle instruction counts 3, 1, 6, 2, 7 (7 > maxincr 6: clamped), 0, 4. */
static const unsigned per_cycle[] = {3, 1, 6, 2, 7, 0, 4};

static size_t thres_trace(pmusim_rec_t *r)
{
    size_t n = 0;
    for (unsigned c = 0; c < G_N_ELEMENTS(per_cycle); c++)
        for (unsigned k = 0; k < per_cycle[c]; k++)
            r[n++] = t_insn(c, 3);
    return n;
}

static void test_threshold_boundaries(void)
{
    /* counts 1 in each cycle where occurrences > thres; clamped 7 -> 6:
     * thres 0: 3+1+6+2+6+0+4 = 22; 1: {3,6,2,6,4} = 5; 2: {3,6,6,4} = 4;
     * 3: {6,6,4} = 3; 4: {6,6} = 2; 5: {6,6} = 2; 6, 7: 0 */
    static const uint64_t expect[8] = {22, 5, 4, 3, 2, 2, 0, 0};
    pmusim_rec_t r[64];
    size_t n = thres_trace(r);
    for (unsigned base = 0; base < 8; base += 4) {
        pmusim_model_t *m = t_model("ita2", 1);
        for (unsigned k = 0; k < 4; k++)
            PMC(m, 4 + k, cfg(ES_INST, 0, 8, base + k, 0, OI));
        t_run(m, r, n);
        for (unsigned k = 0; k < 4; k++)
            CU_ASSERT_EQUAL(CNT(m, 4 + k), expect[base + k]);
        CU_ASSERT_TRUE(t_diag_has(m, "exceed maxincr 6"));
        if (base == 4)
            CU_ASSERT_TRUE(t_diag_has(m, "threshold 6 is above maxincr-1"));
        pmusim_model_free(m);
    }
    /* Montecito: the same on PMC4..PMC11 at once */
    pmusim_model_t *m = t_model("mont", 1);
    for (unsigned k = 0; k < 8; k++)
        PMC(m, 4 + k, 0x2000000 | cfg(ES_INST, 0, 8, k, 0, 0));
    t_run(m, r, n);
    for (unsigned k = 0; k < 8; k++)
        CU_ASSERT_EQUAL(CNT(m, 4 + k), expect[k]);
    pmusim_model_free(m);
}

static void test_explicit_events(void)
{
    pmusim_model_t *m = t_model("ita2", 1);
    PMC(m, 4, cfg(0x87, 0x3, 8, 0, 0, OI));  /* BUS_ALL_ANY, maxincr 1 */
    PMC(m, 5, cfg(0x9b, 0x0, 8, 0, 0, OI));  /* BUS_BRQ_LIVE_REQ_LO, maxincr 7 */
    PMC(m, 6, cfg(0x9b, 0x0, 8, 3, 0, OI));  /* ... occurrences > 3 */
    PMC(m, 7, cfg(0x87, 0x3, 1, 0, 0, OI));  /* BUS_ALL_ANY at PL 0 only */
    /* EVENT records take the privilege level of the thread's last insn.
     * cycle 1: 1 bus + 2 + 3 = 5 brq; cycle 2: 3 bus (clamp 1); cycle 4:
     * 7 brq; cycle 5: 1 bus after a PL 0 insn */
    pmusim_rec_t r[] = {t_insn(0, 3), t_event(1, 0x87, 3, 1), t_event(1, 0x9b, 0, 2),
                        t_event(1, 0x9b, 0, 3), t_event(2, 0x87, 3, 3), t_event(4, 0x9b, 0, 7),
                        t_insn(5, 0), t_event(5, 0x87, 3, 1),
                        t_event(5, 0x87, 1, 1) /* other umask */};
    t_run(m, r, G_N_ELEMENTS(r));
    CU_ASSERT_EQUAL(CNT(m, 4), 2);
    CU_ASSERT_EQUAL(CNT(m, 5), 12);
    CU_ASSERT_EQUAL(CNT(m, 6), 2);
    CU_ASSERT_EQUAL(CNT(m, 7), 1);
    pmusim_model_free(m);
}

static void test_ism(void)
{
    pmusim_model_t *m = t_model("ita2", 1);
    PMC(m, 4, cfg(ES_CYCLES, 0, 8, 0, 1, OI));      /* IA-32 cycles only */
    PMC(m, 5, cfg(ES_IA32_INST, 0, 8, 0, 0, OI));   /* IA32_INST_RETIRED */
    PMC(m, 6, cfg(ES_INST, 0, 8, 0, 2, OI));        /* IA-64 insts */
    PMC(m, 7, cfg(0x07, 0, 8, 0, 0, OI));           /* IA32_ISA_TRANSITIONS */
    /* cycles 0-3 IA-64, 4-6 IA-32, 7-9 IA-64 (end 10) */
    pmusim_rec_t r[] = {t_insn(0, 3), t_insn(3, 3), t_insn(4, 3), t_insn(5, 3),
                        t_insn(6, 3), t_insn(7, 3), t_insn(9, 3)};
    for (int k = 2; k <= 4; k++)
        r[k].flags = PMUSIM_F_IA32;
    t_run(m, r, G_N_ELEMENTS(r));
    CU_ASSERT_EQUAL(CNT(m, 4), 3);
    CU_ASSERT_EQUAL(CNT(m, 5), 3);
    CU_ASSERT_EQUAL(CNT(m, 6), 4);
    CU_ASSERT_EQUAL(CNT(m, 7), 2);
    pmusim_model_free(m);

    m = t_model("ita2", 1);
    PMC(m, 4, cfg(ES_IA32_INST, 0, 8, 0, 2, OI)); /* IA-32 insts counted in IA-64 mode only: 0 */
    PMC(m, 5, cfg(ES_INST, 0, 8, 0, 3, OI));      /* ism 3: nothing */
    PMC(m, 6, cfg(ES_INST, 0, 8, 0, 0, OI));
    t_run(m, r, G_N_ELEMENTS(r));
    CU_ASSERT_EQUAL(CNT(m, 4), 0);
    CU_ASSERT_EQUAL(CNT(m, 5), 0);
    CU_ASSERT_EQUAL(CNT(m, 6), 4);
    pmusim_model_free(m);
}

static void test_pm_psr(void)
{
    pmusim_rec_t r[] = {t_insn(0, 3), t_insn(1, 3), t_insn(2, 3)};
    pmusim_model_t *m = t_model("ita2", 1);
    PMC(m, 4, cfg(ES_INST, 0, 8, 0, 0, OI));      /* user monitor: PSR.up */
    PMC(m, 5, cfg(ES_INST, 0, 8, 0, 0, OI | PM)); /* privileged monitor: PSR.pp */
    ia64_model_set_psr(m, 0, false, true);
    t_run(m, r, 3);
    CU_ASSERT_EQUAL(CNT(m, 4), 0);
    CU_ASSERT_EQUAL(CNT(m, 5), 3);
    pmusim_model_free(m);

    m = t_model("ita2", 1);
    PMC(m, 4, cfg(ES_INST, 0, 8, 0, 0, OI));
    PMC(m, 5, cfg(ES_INST, 0, 8, 0, 0, OI | PM));
    PMC(m, 6, cfg(ES_INST, 0, 0, 0, 0, OI)); /* plm 0 disables */
    t_run(m, r, 3);                          /* default PSR.up = PSR.pp = 1 */
    CU_ASSERT_EQUAL(CNT(m, 4), 3);
    CU_ASSERT_EQUAL(CNT(m, 5), 3);
    CU_ASSERT_EQUAL(CNT(m, 6), 0);
    pmusim_model_free(m);
}

/* ---- overflow, freeze, interrupts ---- */

static void test_overflow_oi_freeze(void)
{
    pmusim_model_t *m = t_model("ita2", 1);
    PMC(m, 4, cfg(ES_INST, 0, 8, 0, 0, OI));
    PMC(m, 5, cfg(ES_CYCLES, 0, 8, 0, 0, OI));
    PMD(m, 4, CTR_WRAP - 3);
    pmusim_rec_t r[10];
    for (int c = 0; c < 10; c++)
        r[c] = t_insn((uint64_t)c, 3);
    t_run(m, r, 10);
    /* cycle 0 -> 2^47-2, 1 -> 2^47-1, 2 -> carry out: overflow + freeze at 2 */
    CU_ASSERT_EQUAL(CNT(m, 4), 0);
    CU_ASSERT_EQUAL(RPMC(m, 0), 0x11);
    CU_ASSERT_EQUAL(CNT(m, 5), 3); /* cycles 0, 1, 2 */
    CU_ASSERT_EQUAL(m->pmi_count, 1);
    CU_ASSERT_EQUAL(t_log_count(m, 2, "overflow PMD4"), 1);
    CU_ASSERT_EQUAL(t_log_count(m, 2, "interrupt"), 1);
    CU_ASSERT_EQUAL(t_log_count(m, 2, "freeze (PMC0.fr set): counting stops"), 1);
    CU_ASSERT_EQUAL(m->log->len, 3);
    pmusim_report_t rep;
    pmusim_report_init(&rep);
    m->ops->report(m, &rep);
    CU_ASSERT_EQUAL(g_array_index(rep.counters, pmusim_counter_result_t, 0).overflows, 1);
    pmusim_report_clear(&rep);
    pmusim_model_free(m);
}

static void test_overflow_no_oi(void)
{
    pmusim_model_t *m = t_model("ita2", 1);
    PMC(m, 4, cfg(ES_INST, 0, 8, 0, 0, EV)); /* oi = 0, ev = 1 */
    PMC(m, 5, cfg(ES_CYCLES, 0, 8, 0, 0, 0));
    PMD(m, 4, CTR_WRAP - 1);
    PMD(m, 5, CTR_WRAP - 2);
    pmusim_rec_t r[5];
    for (int c = 0; c < 5; c++)
        r[c] = t_insn((uint64_t)c, 3);
    t_run(m, r, 5);
    /* wrap from 2^47-1 at cycle 0, then 4 more; cycles wrap at cycle 1 */
    CU_ASSERT_EQUAL(CNT(m, 4), 4);
    CU_ASSERT_EQUAL(CNT(m, 5), 3);
    CU_ASSERT_EQUAL(RPMC(m, 0), 0x30); /* overflow bits only, not frozen */
    CU_ASSERT_EQUAL(m->pmi_count, 0);
    CU_ASSERT_EQUAL(t_log_count(m, 0, "overflow PMD4"), 1);
    CU_ASSERT_EQUAL(t_log_count(m, 0, "external notification PMD4"), 1);
    CU_ASSERT_EQUAL(t_log_count(m, 1, "overflow PMD5"), 1);
    pmusim_model_free(m);
}

static void test_lazy_overflow_in_gap(void)
{
    pmusim_model_t *m = t_model("ita2", 1);
    PMC(m, 4, cfg(ES_CYCLES, 0, 8, 0, 0, OI));
    PMC(m, 5, cfg(ES_INST, 0, 8, 0, 0, OI));
    PMD(m, 4, CTR_WRAP - 100);
    pmusim_rec_t r[] = {t_insn(0, 3), t_insn(1000, 3)};
    t_run(m, r, 2);
    /* the 100th cycle (cycle 99) carries out; frozen from 100 on */
    CU_ASSERT_EQUAL(t_log_count(m, 99, "overflow PMD4"), 1);
    CU_ASSERT_EQUAL(t_log_count(m, 99, "interrupt"), 1);
    CU_ASSERT_EQUAL(CNT(m, 4), 0);
    CU_ASSERT_EQUAL(CNT(m, 5), 1); /* the insn at cycle 1000 is not counted */
    CU_ASSERT_EQUAL(RPMC(m, 0), 0x11);
    pmusim_model_free(m);
}

typedef struct {
    uint64_t cycles[32];
    unsigned n;
    uint64_t reload;
    uint32_t pmd;
    bool clear_fr_only_once;
} handler_ctx_t;

static void reload_handler(pmusim_model_t *m, uint64_t cycle, uint32_t thread, void *user)
{
    handler_ctx_t *h = user;
    if (h->n < G_N_ELEMENTS(h->cycles))
        h->cycles[h->n] = cycle;
    h->n++;
    if (h->clear_fr_only_once && h->n == 1) {
        /* clears the freeze bit but leaves the overflow bit: re-raised */
        t_write(m, PMUSIM_REG_PMC, 0, RPMC(m, 0) & ~1ull, thread);
        return;
    }
    t_write(m, PMUSIM_REG_PMD, h->pmd, h->reload, thread);
    t_write(m, PMUSIM_REG_PMC, 0, 0, thread);
}

static void test_handler_reload_cycles(void)
{
    /* sampling every 10 cycles: interrupts at 9, 19, ..., 99 */
    pmusim_model_t *m = t_model("ita2", 1);
    handler_ctx_t h = {.reload = CTR_WRAP - 10, .pmd = 4};
    pmusim_model_set_pmi_handler(m, reload_handler, &h);
    PMC(m, 4, cfg(ES_CYCLES, 0, 8, 0, 0, OI));
    PMD(m, 4, CTR_WRAP - 10);
    pmusim_rec_t r[] = {t_insn(0, 3), t_idle(1, 99)};
    t_run(m, r, 2);
    CU_ASSERT_EQUAL(h.n, 10);
    for (unsigned k = 0; k < 10 && k < h.n; k++)
        CU_ASSERT_EQUAL(h.cycles[k], 9 + 10 * k);
    CU_ASSERT_EQUAL(CNT(m, 4), CTR_WRAP - 10);
    pmusim_model_free(m);

    /* event counter: every 4th instruction, 3 instructions per cycle */
    m = t_model("ita2", 1);
    h = (handler_ctx_t){.reload = CTR_WRAP - 4, .pmd = 5};
    pmusim_model_set_pmi_handler(m, reload_handler, &h);
    PMC(m, 5, cfg(ES_INST, 0, 8, 0, 0, OI));
    PMD(m, 5, CTR_WRAP - 4);
    pmusim_rec_t r3[12];
    for (int k = 0; k < 12; k++)
        r3[k] = t_insn((uint64_t)(k / 3), 3);
    t_run(m, r3, 12);
    /* cycle 0: 3 (-1); cycle 1: +3 wraps -> 2^47-4 reload, the 2
     * instructions past the wrap are lost with the reload; cycle 2 -> -1;
     * cycle 3 wraps again */
    CU_ASSERT_EQUAL(h.n, 2);
    CU_ASSERT_EQUAL(h.cycles[0], 1);
    CU_ASSERT_EQUAL(h.cycles[1], 3);
    pmusim_model_free(m);
}

static uint64_t seen_pmi_ip;
static void ip_handler(pmusim_model_t *m, uint64_t cycle, uint32_t thread, void *user)
{
    seen_pmi_ip = m->pmi_ip;
    t_write(m, PMUSIM_REG_PMC, 0, 0, thread);
}

static void test_pmi_ip_handler_installed_late(void)
{
    /* the counter is programmed BEFORE the handler is installed: the model
     * must still report the IP of the instruction that overflowed it */
    pmusim_model_t *m = t_model("ita2", 1);
    PMC(m, 4, cfg(ES_INST, 0, 8, 0, 0, OI));
    PMD(m, 4, CTR_WRAP - 3);
    seen_pmi_ip = 0;
    pmusim_model_set_pmi_handler(m, ip_handler, NULL);
    pmusim_rec_t r[5];
    for (int k = 0; k < 5; k++) {
        r[k] = t_insn((uint64_t)k, 3);
        r[k].ip = 0x4000000000002000ull + 0x10u * (unsigned)k;
    }
    t_run(m, r, 5);
    CU_ASSERT_EQUAL(m->pmi_count, 1);
    /* the third instruction (cycle 2) carries the counter out of bit 46 */
    CU_ASSERT_EQUAL(seen_pmi_ip, 0x4000000000002020ull);
    pmusim_model_free(m);
}

static void test_rearm_when_freeze_cleared_alone(void)
{
    pmusim_model_t *m = t_model("ita2", 1);
    handler_ctx_t h = {.reload = 0, .pmd = 4, .clear_fr_only_once = true};
    pmusim_model_set_pmi_handler(m, reload_handler, &h);
    PMC(m, 4, cfg(ES_INST, 0, 8, 0, 0, OI));
    PMD(m, 4, CTR_WRAP - 1);
    pmusim_rec_t r[] = {t_insn(0, 3), t_insn(1, 3), t_insn(2, 3)};
    t_run(m, r, 3);
    /* first handler leaves PMC0.bit4: second interrupt in the same cycle */
    CU_ASSERT_EQUAL(h.n, 2);
    CU_ASSERT_EQUAL(h.cycles[0], 0);
    CU_ASSERT_EQUAL(h.cycles[1], 0);
    CU_ASSERT_EQUAL(m->pmi_count, 2);
    CU_ASSERT_EQUAL(CNT(m, 4), 2); /* reloaded to 0, then cycles 1 and 2 */
    CU_ASSERT_EQUAL(RPMC(m, 0), 0);
    pmusim_model_free(m);
}

static void test_software_freeze(void)
{
    pmusim_model_t *m = t_model("ita2", 1);
    PMC(m, 4, cfg(ES_INST, 0, 8, 0, 0, OI));
    PMC(m, 5, cfg(ES_CYCLES, 0, 8, 0, 0, OI));
    PMC(m, 0, 1);
    pmusim_rec_t a[] = {t_insn(0, 3), t_insn(1, 3)};
    m->ops->consume(m, a, 2);
    /* unfreeze between consume() calls, cycle 1 open: records consumed from
     * now on count (cycles 2, 3), cycle counting restarts at cycle 1 */
    PMC(m, 0, 0);
    pmusim_rec_t b[] = {t_insn(2, 3), t_insn(3, 3)};
    t_run(m, b, 2);
    CU_ASSERT_EQUAL(CNT(m, 4), 2);
    CU_ASSERT_EQUAL(CNT(m, 5), 3);
    CU_ASSERT_EQUAL(m->pmi_count, 0);
    pmusim_model_free(m);
}

static void test_rest_reads_and_writes(void)
{
    pmusim_model_t *m = t_model("ita2", 1);
    PMC(m, 4, cfg(ES_INST, 0, 8, 0, 0, OI)); /* deferred class */
    PMC(m, 5, cfg(ES_INST, 0, 8, 1, 0, OI)); /* exact class (threshold) */
    pmusim_rec_t a[] = {t_insn(0, 3), t_insn(0, 3), t_insn(1, 3), t_insn(1, 3)};
    m->ops->consume(m, a, 4);
    /* cycle 1 is open: a read sees cycle 0 only */
    CU_ASSERT_EQUAL(CNT(m, 4), 2);
    CU_ASSERT_EQUAL(CNT(m, 5), 1);
    CU_ASSERT_EQUAL(CNT(m, 4), 2);
    /* a PMD write while cycle 1 is open: cycle 1's records add to it */
    PMD(m, 4, 100);
    /* freezing now keeps the records already consumed, drops later ones */
    PMC(m, 0, 1);
    pmusim_rec_t b[] = {t_insn(1, 3), t_insn(2, 3)};
    t_run(m, b, 2);
    CU_ASSERT_EQUAL(CNT(m, 4), 102);
    CU_ASSERT_EQUAL(CNT(m, 5), 2);
    pmusim_model_free(m);
}

/* Configuration changes between consume() calls while a cycle is open
 * keep the counts of the records already consumed. */
static void test_reclassify_open_cycle(void)
{
    pmusim_model_t *m = t_model("ita2", 1);
    PMC(m, 5, cfg(ES_INST, 0, 8, 0, 0, OI)); /* deferred class */
    PMC(m, 6, cfg(0xcd, 0, 8, 0, 0, OI));    /* LOADS_RETIRED, deferred */
    pmusim_rec_t a[] = {t_insn(0, 3), t_insn(1, 3), t_insn(1, 3)};
    a[1].flags = a[2].flags = PMUSIM_F_MEM;
    a[1].mem.size = a[2].mem.size = 8;
    m->ops->consume(m, a, 3);
    /* PMC4 rewrite recompiles every ita2 counter; a code range makes
     * IA64_INST_RETIRED qualified (it leaves the signature path) */
    PMC(m, 4, cfg(ES_CYCLES, 0, 8, 0, 0, OI));
    t_write(m, PMUSIM_REG_IBR, 0, 0x4000000000001000ull, 0);
    t_write(m, PMUSIM_REG_IBR, 1, (0xfull << 56) | 0x00fffffffffff000ull, 0);
    PMC(m, 14, 0x0db60db60db60db6ull & ~2ull);
    PMC(m, 8, 0xffffffff3ffffffcull);
    pmusim_rec_t b[] = {t_insn(1, 3), t_insn(2, 3), t_insn(2, 3)};
    b[0].ip = b[1].ip = 0x4000000000009000ull; /* outside the range */
    b[2].ip = 0x4000000000001000ull;           /* inside */
    t_run(m, b, 3);
    /* cycle 0: 1, cycle 1: the 2 consumed before the change (the one after
     * is outside), cycle 2: 1 inside */
    CU_ASSERT_EQUAL(CNT(m, 5), 4);
    CU_ASSERT_EQUAL(CNT(m, 6), 2);
    pmusim_model_free(m);
}

/* More records in one cycle than the per-cycle mask buffer and the
 * deferred planes hold: 300 instructions in cycle 1, maxincr 6 clamps. */
static void test_many_records_per_cycle(void)
{
    pmusim_model_t *m = t_model("mont", 1);
    PMC(m, 4, 0x2000000 | cfg(ES_INST, 0, 8, 0, 0, 0)); /* maxincr 6 */
    PMC(m, 5, 0x2000000 | cfg(0x50, 0, 8, 0, 0, 0));    /* NOPS_RETIRED, maxincr 6 */
    PMC(m, 6, 0x2000000 | cfg(0xcd, 0, 8, 2, 0, 0));    /* LOADS_RETIRED > 2 */
    static pmusim_rec_t r[400];
    size_t n = 0;
    for (int k = 0; k < 50; k++)
        r[n++] = t_insn(0, 3);
    for (int k = 0; k < 300; k++) {
        r[n] = t_insn(1, 3);
        r[n].flags = k % 2 ? PMUSIM_F_NOP : PMUSIM_F_MEM;
        r[n].mem.size = 8;
        n++;
    }
    for (int k = 0; k < 5; k++)
        r[n++] = t_insn(2, 3);
    t_run(m, r, n);
    /* clamped to 6, 6, 5 */
    CU_ASSERT_EQUAL(CNT(m, 4), 17);
    CU_ASSERT_EQUAL(CNT(m, 5), 6);
    CU_ASSERT_EQUAL(CNT(m, 6), 1);
    pmusim_model_free(m);

    /* 2000 cycles of 5 instructions: the deferred planes spill many times */
    m = t_model("ita2", 1);
    PMC(m, 4, cfg(ES_INST, 0, 8, 0, 0, OI));
    PMD(m, 4, CTR_WRAP - 9999);
    static pmusim_rec_t s[10000];
    for (int k = 0; k < 10000; k++)
        s[k] = t_insn((uint64_t)(k / 5), 3);
    t_run(m, s, 10000);
    /* the 9999th instruction (cycle 1999) wraps: overflow at 1999 */
    CU_ASSERT_EQUAL(t_log_count(m, 1999, "overflow PMD4"), 1);
    CU_ASSERT_EQUAL(CNT(m, 4), 1); /* the 10000th, same cycle */
    pmusim_model_free(m);
}

static void test_event_source(void)
{
    const pmusim_model_ops_t *ita2 = pmusim_model_find("ita2");
    const pmusim_model_ops_t *mont = pmusim_model_find("mont");
    CU_ASSERT_PTR_NOT_NULL(ita2->event_source(0x12, 0));
    CU_ASSERT_PTR_NOT_NULL(ita2->event_source(0x08, 2));
    CU_ASSERT_PTR_NOT_NULL(ita2->event_source(0xc8, 0));
    CU_ASSERT_PTR_NOT_NULL(ita2->event_source(0xc8, 0xa)); /* DATA_EAR_CACHE_LAT4096 */
    CU_ASSERT_PTR_NOT_NULL(mont->event_source(0x43, 0xff)); /* L1I_EAR_CACHE_LAT4 */
    CU_ASSERT_PTR_NULL(ita2->event_source(0x87, 3)); /* BUS_ALL_ANY: explicit only */
    CU_ASSERT_PTR_NULL(ita2->event_source(0x300, 0));
    CU_ASSERT_PTR_NOT_NULL(mont->event_source(0x12, 0));
    CU_ASSERT_PTR_NULL(mont->event_source(0x12, 1)); /* CPU_OP_CYCLES_QUAL */
    CU_ASSERT_PTR_NOT_NULL(mont->event_source(0xdd, 0x9));
    CU_ASSERT_PTR_NULL(mont->event_source(0x59, 0)); /* no IA32_INST_RETIRED on mont */
}

static void test_bad_create(void)
{
    GError *e = NULL;
    CU_ASSERT_PTR_NULL(pmusim_model_new("ita2", 2, &e));
    CU_ASSERT_TRUE(e != NULL);
    g_clear_error(&e);
    CU_ASSERT_PTR_NULL(pmusim_model_ita2.create(2, &e));
    CU_ASSERT_TRUE(e && e->code == PMUSIM_SIM_ERROR_MISMATCH);
    g_clear_error(&e);
    CU_ASSERT_PTR_NULL(pmusim_model_mont.create(3, &e));
    g_clear_error(&e);
}

static void test_record_errors(void)
{
    pmusim_model_t *m = t_model("ita2", 1);
    PMC(m, 4, cfg(ES_INST, 0, 8, 0, 0, OI));
    pmusim_rec_t r[] = {t_insn(5, 3), t_insn(3, 3), t_insn(6, 3)};
    r[2].thread = 3;
    t_run(m, r, 3);
    CU_ASSERT_EQUAL(CNT(m, 4), 2); /* out-of-order record counted in cycle 5 */
    CU_ASSERT_TRUE(t_diag_has(m, "is before cycle 5"));
    CU_ASSERT_TRUE(t_diag_has(m, "names thread 3"));
    pmusim_model_free(m);
}

/* Montecito counters whose signature needs each byte of a memory access
 * (is_store, level, tlb, alat) and of a branch (kind, taken, dir_ok,
 * tgt_ok, detect): every value of each, shuffled into cycles of 1-12
 * records, counted by the fast loop (its direct table of packed mem and
 * branch bytes, and the maxincr-2/3 clamps tested by the packed counts)
 * and by an observed model (every cycle exact, no fast path): the counts
 * are the same, and the exact ones add up. */
static void noop_observer(pmusim_model_t *m, uint64_t cycle, const pmusim_counter_probe_t *p,
                          size_t n, void *user)
{
    (void)m;
    (void)cycle;
    (void)p;
    (void)n;
    (void)user;
}

static void test_mem_branch_bytes(void)
{
    static const struct {
        unsigned es, umask;
    } evs[2][12] = {{
        {0xcd, 0}, /* LOADS_RETIRED: is_store */
        {0xd1, 0}, /* STORES_RETIRED, maxincr 2 */
        {0xcb, 0}, /* L2D_MISSES: level */
        {0xdc, 0}, /* L3_MISSES: level */
        {0xc0, 0}, /* L1DTLB_TRANSFER: tlb */
        {0xc1, 0}, /* L2DTLB_MISSES: tlb */
        {0x57, 3}, /* INST_FAILED_CHKA_LDC_ALAT_ALL: alat */
        {0x56, 3}, /* INST_CHKA_LDC_ALAT_ALL: alat */
        {0x5b, 1}, /* BR_MISPRED_DETAIL_ALL_CORRECT_PRED, maxincr 3: dir_ok, tgt_ok */
        {0x5b, 4}, /* BR_MISPRED_DETAIL_IPREL_ALL_PRED: kind */
        {0x54, 1}, /* BR_PATH_PRED_ALL_MISPRED_TAKEN: taken, dir_ok */
        {0x61, 0}, /* BE_BR_MISPRED_DETAIL_ANY: detect */
    }, {
        {0x50, 0}, /* NOPS_RETIRED: flags */
        {0x09, 0}, /* FP_OPS_RETIRED: flags */
        {0x51, 0}, /* PREDICATE_SQUASHED_RETIRED: flags */
        {0x08, 0}, /* IA64_INST_RETIRED */
        {0xcd, 0}, /* LOADS_RETIRED */
        {0xd1, 0}, /* STORES_RETIRED */
        {0x5b, 2}, /* BR_MISPRED_DETAIL_ALL_WRONG_PATH */
        {0x5b, 3}, /* BR_MISPRED_DETAIL_ALL_WRONG_TARGET */
        {0x5b, 8}, /* BR_MISPRED_DETAIL_RETURN_ALL_PRED */
        {0x54, 0}, /* BR_PATH_PRED_ALL_MISPRED_NOTTAKEN */
        {0x54, 3}, /* BR_PATH_PRED_ALL_OKPRED_TAKEN */
        {0xc1, 0}, /* L2DTLB_MISSES */
    }};
    static pmusim_rec_t one[512], r[3 * 512];
    size_t n1 = 0;
    for (unsigned st = 0; st < 2; st++)
        for (unsigned lv = 0; lv < PMUSIM_LVL_LFB; lv++) /* the IA-64 levels */
            for (unsigned tl = 0; tl < PMUSIM_TLB_COUNT; tl++)
                for (unsigned al = 0; al < PMUSIM_ALAT_COUNT; al++) {
                    pmusim_rec_t *q = &one[n1++];
                    *q = t_insn(0, 3);
                    q->flags = (uint16_t)(PMUSIM_F_MEM | (al == 2 ? PMUSIM_F_FP : 0) |
                                          (tl == 3 ? PMUSIM_F_PRED_OFF : 0));
                    q->mem.size = 8;
                    q->mem.addr = 0x6000000000000000ull;
                    q->mem.is_store = (uint8_t)st;
                    q->mem.level = (uint8_t)lv;
                    q->mem.tlb = (uint8_t)tl;
                    q->mem.alat = (uint8_t)al;
                }
    /* the five kinds before icall (test_icall_class has it), so that the
     * observed counts below stay those of this record set */
    for (unsigned kd = 0; kd <= PMUSIM_BR_IPREL; kd++)
        for (unsigned tk = 0; tk < 2; tk++)
            for (unsigned dk = 0; dk < 2; dk++)
                for (unsigned tg = 0; tg < 2; tg++)
                    for (unsigned de = 0; de < PMUSIM_BRD_COUNT; de++) {
                        pmusim_rec_t *q = &one[n1++];
                        *q = t_insn(0, 3);
                        q->flags = (uint16_t)(PMUSIM_F_BRANCH | (de == 1 ? PMUSIM_F_NOP : 0) |
                                              (kd == 4 && !tk ? PMUSIM_F_PRED_OFF : 0) |
                                              (tk && !tg ? PMUSIM_F_FP : 0));
                        q->br.kind = (uint8_t)kd;
                        q->br.taken = (uint8_t)tk;
                        q->br.dir_ok = (uint8_t)dk;
                        q->br.tgt_ok = (uint8_t)tg;
                        q->br.detect = (uint8_t)de;
                    }
    CU_ASSERT_EQUAL_FATAL(n1, 2 * 6 * 4 * 3 + 5 * 2 * 2 * 2 * 3);
    /* three shuffled copies, in cycles of 1-12 records */
    GRand *g = g_rand_new_with_seed(1127);
    size_t n = 0;
    for (unsigned rep = 0; rep < 3; rep++)
        for (size_t k = 0; k < n1; k++) {
            r[n] = one[k];
            /* the second copy: the same bytes with another FP or PRED_OFF flag */
            if (rep == 1)
                r[n].flags ^= (r[n].flags & PMUSIM_F_MEM) ? PMUSIM_F_PRED_OFF : PMUSIM_F_FP;
            n++;
        }
    for (size_t k = n - 1; k > 0; k--) {
        size_t j = (size_t)g_rand_int_range(g, 0, (gint32)k + 1);
        pmusim_rec_t x = r[k];
        r[k] = r[j];
        r[j] = x;
    }
    uint64_t cycle = 10;
    for (size_t k = 0; k < n;) {
        size_t per = (size_t)g_rand_int_range(g, 1, 13);
        for (size_t j = 0; j < per && k < n; j++)
            r[k++].cycle = cycle;
        cycle += (uint64_t)g_rand_int_range(g, 1, 3);
    }
    g_rand_free(g);
    uint64_t fast[2][12], exact[2][12];
    for (unsigned pass = 0; pass < 4; pass++) {
        const unsigned set = pass / 2, ex = pass % 2;
        pmusim_model_t *m = t_model("mont", 1);
        for (unsigned k = 0; k < 12; k++)
            PMC(m, 4 + k, 0x2000000 | cfg(evs[set][k].es, evs[set][k].umask, 8, 0, 0, 0));
        if (ex)
            m->ops->observe_cycles(m, 0, UINT64_MAX, noop_observer, NULL);
        /* in batches of 100 records: the fast loop stops and starts again */
        for (size_t k = 0; k < n; k += 100)
            m->ops->consume(m, r + k, n - k < 100 ? n - k : 100);
        m->ops->finish(m);
        for (unsigned k = 0; k < 12; k++)
            (ex ? exact : fast)[set][k] = CNT(m, 4 + k);
        pmusim_model_free(m);
    }
    for (unsigned k = 0; k < 24; k++) {
        if (fast[k / 12][k % 12] != exact[k / 12][k % 12])
            fprintf(stderr, "set %u PMC%u: fast %" G_GUINT64_FORMAT " exact %" G_GUINT64_FORMAT "\n",
                    k / 12, 4 + k % 12, fast[k / 12][k % 12], exact[k / 12][k % 12]);
        CU_ASSERT_EQUAL(fast[k / 12][k % 12], exact[k / 12][k % 12]);
    }
    /* the observed model's counts (loads: 3 x 72 records, clamped to 4 a
     * cycle; stores clamped to 2; instructions: 3 x 192, clamped to 6) */
    static const uint64_t want[2][12] = {{209, 157, 97, 86, 31, 210, 77, 176, 127, 197, 90, 78},
                                         {120, 138, 216, 563, 209, 157, 166, 45, 72, 86, 89, 210}};
    for (unsigned k = 0; k < 24; k++) {
        if (exact[k / 12][k % 12] != want[k / 12][k % 12])
            fprintf(stderr, "want set %u PMC%u: %" G_GUINT64_FORMAT "\n", k / 12, 4 + k % 12,
                    exact[k / 12][k % 12]);
        CU_ASSERT_EQUAL(exact[k / 12][k % 12], want[k / 12][k % 12]);
    }
}

/* An indirect br.call (kind icall, session 14) is in BR_MISPRED_DETAIL's
 * non-return indirect class (umask 3:2 = 3) with the indirect jumps, not in
 * the IP-relative class of direct calls; fast loop and observed model
 * alike.  3 icall, 2 ind, 4 call records, one a cycle. */
static void test_icall_class(void)
{
    static const uint8_t kinds[] = { PMUSIM_BR_ICALL, PMUSIM_BR_CALL, PMUSIM_BR_IND,
                                     PMUSIM_BR_CALL,  PMUSIM_BR_ICALL, PMUSIM_BR_CALL,
                                     PMUSIM_BR_IND,   PMUSIM_BR_ICALL, PMUSIM_BR_CALL };
    pmusim_rec_t r[G_N_ELEMENTS(kinds)];
    for (unsigned i = 0; i < G_N_ELEMENTS(kinds); i++) {
        r[i] = t_insn(10 + i, 3);
        r[i].flags |= PMUSIM_F_BRANCH;
        r[i].br.kind = kinds[i];
        r[i].br.taken = r[i].br.dir_ok = r[i].br.tgt_ok = 1;
    }
    for (unsigned ex = 0; ex < 2; ex++) {
        pmusim_model_t *m = t_model("mont", 1);
        PMC(m, 4, 0x2000000 | cfg(0x5b, 0xc, 8, 0, 0, 0)); /* indirect class, all */
        PMC(m, 5, 0x2000000 | cfg(0x5b, 0x4, 8, 0, 0, 0)); /* IP-relative class, all */
        PMC(m, 6, 0x2000000 | cfg(0x5b, 0x0, 8, 0, 0, 0)); /* every branch */
        if (ex)
            m->ops->observe_cycles(m, 0, UINT64_MAX, noop_observer, NULL);
        m->ops->consume(m, r, G_N_ELEMENTS(r));
        m->ops->finish(m);
        CU_ASSERT_EQUAL(CNT(m, 4), 5);
        CU_ASSERT_EQUAL(CNT(m, 5), 4);
        CU_ASSERT_EQUAL(CNT(m, 6), 9);
        pmusim_model_free(m);
    }
}

/* A record whose mask has both an E1 slot (thres 0, maxincr 1) and a
 * maxincr-2/3 slot, when the packed counts cannot hold the low-maxincr
 * slots (more than 16 of them: two Montecito threads of 12 counters), so
 * the q planes must count the maxincr-3 slot per cycle (issue 12: the
 * fast loop's lean function takes E1 records only when nothing else of
 * their rare bits counts there).  Thread 0: BR_MISPRED_DETAIL_ALL_ALL_PRED
 * (maxincr 3), BE_BR_MISPRED_DETAIL_ANY (maxincr 1) and 10 x
 * IA64_INST_RETIRED (maxincr 6); thread 1: 12 x IA64_INST_RETIRED.  A run
 * of thread 0's branches, detected (so both count), in cycles of 1-6:
 * BR_MISPRED_DETAIL clamps a cycle at 3, BE_BR_MISPRED_DETAIL counts 1 a
 * cycle, the fast loop as the observed model. */
static void test_e1_lm_without_pk(void)
{
    static pmusim_rec_t r[600];
    size_t n = 0;
    uint64_t cycle = 10;
    for (unsigned c = 0; n + 6 <= G_N_ELEMENTS(r); c++) {
        const unsigned per = 1 + (c * 7 + c / 5) % 6;
        for (unsigned j = 0; j < per; j++) {
            pmusim_rec_t *q = &r[n++];
            *q = t_insn(cycle, 3);
            q->unit = PMUSIM_UNIT_B;
            q->flags = PMUSIM_F_BRANCH;
            q->br.kind = (uint8_t)(j % 2);
            q->br.taken = 1;
            q->br.dir_ok = (uint8_t)(c % 2);
            q->br.tgt_ok = 1;
            q->br.detect = PMUSIM_BRD_BACKEND;
        }
        cycle += 1 + c % 2;
    }
    uint64_t got[2][3];
    for (unsigned ex = 0; ex < 2; ex++) {
        pmusim_model_t *m = t_model("mont", 2);
        t_write(m, PMUSIM_REG_PMC, 4, 0x2000000 | cfg(0x5b, 0, 8, 0, 0, 0), 0);
        t_write(m, PMUSIM_REG_PMC, 5, 0x2000000 | cfg(0x61, 0, 8, 0, 0, 0), 0);
        for (unsigned k = 6; k < 16; k++)
            t_write(m, PMUSIM_REG_PMC, k, 0x2000000 | cfg(ES_INST, 0, 8, 0, 0, 0), 0);
        for (unsigned k = 4; k < 16; k++)
            t_write(m, PMUSIM_REG_PMC, k, 0x2000000 | cfg(ES_INST, 0, 8, 0, 0, 0), 1);
        if (ex)
            m->ops->observe_cycles(m, 0, UINT64_MAX, noop_observer, NULL);
        for (size_t k = 0; k < n; k += 100)
            m->ops->consume(m, r + k, n - k < 100 ? n - k : 100);
        m->ops->finish(m);
        got[ex][0] = CNT(m, 4);
        got[ex][1] = CNT(m, 5);
        got[ex][2] = CNT(m, 6);
        pmusim_model_free(m);
    }
    /* 595 branches in 199 cycles: clamped at 3 a cycle 477, one a cycle
     * 199, every one 595 (the observed model's counts) */
    static const uint64_t want[3] = {477, 199, 595};
    CU_ASSERT_EQUAL_FATAL(n, 595);
    for (unsigned k = 0; k < 3; k++) {
        CU_ASSERT_EQUAL(got[0][k], got[1][k]);
        CU_ASSERT_EQUAL(got[1][k], want[k]);
    }
}

/* Thread 0's branches (detected) in cycles of `per` records from cycle
 * *cycle on, the last cycle `last` records long, into r[0, n). */
static void lean_branches(pmusim_rec_t *r, size_t n, unsigned per, unsigned last,
                          uint64_t *cycle)
{
    for (size_t k = 0; k < n; k++) {
        r[k] = t_insn(*cycle, 3);
        r[k].unit = PMUSIM_UNIT_B;
        r[k].flags = PMUSIM_F_BRANCH;
        r[k].br.kind = (uint8_t)(k % 2);
        r[k].br.taken = 1;
        r[k].br.dir_ok = 1;
        r[k].br.tgt_ok = 1;
        r[k].br.detect = PMUSIM_BRD_BACKEND;
        if (k + 1 < n - last + (last != 0) && (k + 1) % per == 0)
            (*cycle)++;
    }
    (*cycle)++;
}

/* The one-thread fast loop's lean function across batches (issue 12: it
 * finds the first record of the last cycle before the batch's end once
 * per batch, and adds the masks of the cycles it closes to the headroom's
 * record count from the records it consumed).  Montecito, one thread:
 * BR_MISPRED_DETAIL_ALL_ALL_PRED (maxincr 3), BE_BR_MISPRED_DETAIL_ANY
 * (one a cycle) and IA64_INST_RETIRED.  First two batches of 256 records
 * in the same buffer: cycles of 2 with a last cycle of 6, then cycles of
 * 2 throughout (the second batch's last cycle starts later: counted as
 * one cycle from where the first batch's did, its 3 cycles would count 1
 * and 3).  Then IA64_INST_RETIRED 5,000 records before its overflow, in
 * batches of 99 records (cycles of 2, so a batch starts with the last
 * one's open cycle): the fast loop stops before the overflow (in batches
 * whose open cycle it was given), which the general path then finds in
 * the cycle it happens (no interrupt: its last-IP tracking would keep the
 * lean function out).  Each against the observed model (no fast path)
 * and the exact counts. */
static void test_lean_batches(void)
{
    static pmusim_rec_t buf[256], many[12000];
    uint64_t got[2][2][3], pmi[2], ovf[2];
    for (unsigned ex = 0; ex < 2; ex++) {
        pmusim_model_t *m = t_model("mont", 1);
        PMC(m, 4, 0x2000000 | cfg(0x5b, 0, 8, 0, 0, 0));
        PMC(m, 5, 0x2000000 | cfg(0x61, 0, 8, 0, 0, 0));
        PMC(m, 6, 0x2000000 | cfg(ES_INST, 0, 8, 0, 0, 0));
        if (ex)
            m->ops->observe_cycles(m, 0, UINT64_MAX, noop_observer, NULL);
        uint64_t cycle = 10;
        lean_branches(buf, 256, 2, 6, &cycle);
        m->ops->consume(m, buf, 256);
        lean_branches(buf, 256, 2, 0, &cycle);
        m->ops->consume(m, buf, 256);
        m->ops->finish(m);
        for (unsigned k = 0; k < 3; k++)
            got[ex][0][k] = CNT(m, 4 + k);
        pmusim_model_free(m);
        m = t_model("mont", 1);
        PMC(m, 4, 0x2000000 | cfg(0x5b, 0, 8, 0, 0, 0));
        PMC(m, 5, 0x2000000 | cfg(0x61, 0, 8, 0, 0, 0));
        PMC(m, 6, 0x2000000 | cfg(ES_INST, 0, 8, 0, 0, EV));
        PMD(m, 6, CTR_WRAP - 5000);
        if (ex)
            m->ops->observe_cycles(m, 0, UINT64_MAX, noop_observer, NULL);
        cycle = 10;
        lean_branches(many, G_N_ELEMENTS(many), 2, 0, &cycle);
        for (size_t k = 0; k < G_N_ELEMENTS(many); k += 99)
            m->ops->consume(m, many + k, G_N_ELEMENTS(many) - k < 99 ? G_N_ELEMENTS(many) - k : 99);
        m->ops->finish(m);
        for (unsigned k = 0; k < 3; k++)
            got[ex][1][k] = CNT(m, 4 + k);
        pmi[ex] = m->pmi_count;
        ovf[ex] = t_log_count(m, 2509, "overflow PMD6");
        pmusim_model_free(m);
    }
    /* 512 branches: 125 cycles of 2 and one of 6 (clamped at 3), 128 of 2;
     * 12,000 branches in 6,000 cycles, IA64_INST_RETIRED past its overflow
     * by 7,000, which its 5,000th branch (cycle 2,509) made */
    static const uint64_t want[2][3] = {{509, 254, 512}, {12000, 6000, 7000}};
    for (unsigned j = 0; j < 2; j++)
        for (unsigned k = 0; k < 3; k++) {
            CU_ASSERT_EQUAL(got[0][j][k], got[1][j][k]);
            CU_ASSERT_EQUAL(got[1][j][k], want[j][k]);
        }
    for (unsigned ex = 0; ex < 2; ex++) {
        CU_ASSERT_EQUAL(pmi[ex], 0);
        CU_ASSERT_EQUAL(ovf[ex], 1);
    }
}

/* The headroom's record count (acc_recs) after the lean function's runs
 * (issue 12: the caller adds the masks it gave the lean function and
 * those it added, less the open cycle's; too few would let a later entry
 * of the fast loop close the overflow's cycle as a deferred one, and the
 * overflow be missed there).  Montecito, one thread:
 * BR_MISPRED_DETAIL_ALL_ALL_PRED (maxincr 3) and IA64_INST_RETIRED 5,000
 * records before its overflow; no maxincr-1 event, whose records would
 * keep the rest of their cycle out of the lean function.  12,000 branches
 * in cycles of 3, in batches of 1,200: the loop's IA64_CYC_CAP-record
 * stretches end inside a cycle, and the next gives the lean function that
 * cycle's masks (v > 0: test_lean_batches' batches of 99 never do).  The
 * 5,000th branch is in cycle 10 + 4,999 / 3 = 1,676: the overflow there,
 * once, in the fast loop as in the observed model. */
static void test_lean_acc(void)
{
    static pmusim_rec_t r[12000];
    uint64_t got[2][2], ovf[2], late[2];
    uint64_t cycle = 10;
    lean_branches(r, G_N_ELEMENTS(r), 3, 0, &cycle);
    CU_ASSERT_EQUAL_FATAL(r[4999].cycle, 1676);
    CU_ASSERT_EQUAL_FATAL(cycle, 4010);
    for (unsigned ex = 0; ex < 2; ex++) {
        pmusim_model_t *m = t_model("mont", 1);
        PMC(m, 4, 0x2000000 | cfg(0x5b, 0, 8, 0, 0, 0));
        PMC(m, 6, 0x2000000 | cfg(ES_INST, 0, 8, 0, 0, EV));
        PMD(m, 6, CTR_WRAP - 5000);
        if (ex)
            m->ops->observe_cycles(m, 0, UINT64_MAX, noop_observer, NULL);
        for (size_t k = 0; k < G_N_ELEMENTS(r); k += 1200)
            m->ops->consume(m, r + k, 1200);
        m->ops->finish(m);
        got[ex][0] = CNT(m, 4);
        got[ex][1] = CNT(m, 6);
        ovf[ex] = t_log_count(m, 1676, "overflow PMD6");
        late[ex] = 0;
        for (uint64_t c = 1677; c < cycle; c++)
            late[ex] += t_log_count(m, c, "overflow PMD6");
        pmusim_model_free(m);
    }
    for (unsigned ex = 0; ex < 2; ex++) {
        /* 3 branches a cycle (within maxincr 3); 7,000 past the overflow */
        CU_ASSERT_EQUAL(got[ex][0], 12000);
        CU_ASSERT_EQUAL(got[ex][1], 7000);
        CU_ASSERT_EQUAL(ovf[ex], 1);
        CU_ASSERT_EQUAL(late[ex], 0);
    }
}

/* The lean function's entry at an engine batch (ia64_lean_entry()) with
 * the open cycle's 256 masks (IA64_CYC_CAP, the most cyc_masks holds):
 * ita2, IA64_INST_RETIRED (maxincr 6) and NOPS_RETIRED (a second source,
 * so the records take the signature loops), cycles 0-4 of 2 records, cycle
 * 5 of 300, cycles 6-55 of 2; the first batch ends at the 256th record of
 * cycle 5 (record 266).  Counts 10 + 6 (clamped) + 100 = 116, the clamp
 * reported, NOPS 0.  Entering the lean function there took a record past
 * cyc_masks (h-ia64k's entry failed test_ia64_random that way). */
static void test_lean_entry_full_cycle(void)
{
    static pmusim_rec_t r[410];
    size_t n = 0;
    for (uint64_t c = 0; c < 56; c++)
        for (unsigned j = 0; j < (c == 5 ? 300u : 2u); j++)
            r[n++] = t_insn(c, 3);
    CU_ASSERT_EQUAL_FATAL(n, G_N_ELEMENTS(r));
    CU_ASSERT_EQUAL_FATAL(r[265].cycle, 5);
    CU_ASSERT_EQUAL_FATAL(r[310].cycle, 6);
    pmusim_model_t *m = t_model("ita2", 1);
    PMC(m, 4, cfg(ES_INST, 0, 8, 0, 0, 0));
    PMC(m, 5, cfg(0x50, 0, 8, 0, 0, 0));
    m->ops->consume(m, r, 266);
    m->ops->consume(m, r + 266, n - 266);
    m->ops->finish(m);
    CU_ASSERT_EQUAL(CNT(m, 4), 116);
    CU_ASSERT_EQUAL(CNT(m, 5), 0);
    CU_ASSERT_TRUE(t_diag_has(m, "300 occurrences in cycle 5 exceed maxincr 6"));
    pmusim_model_free(m);
}

/* The retirements a Montecito run consumed by ia64_lean_entry() leaves:
 * thread 0 retires 2 instructions a cycle in cycles 0-19, thread 1 one in
 * cycle 19 (not a switch-on-event trace), in batches of 21 and 20 records:
 * the second batch's run of thread 0 is the lean entry's (IA64_INST_RETIRED
 * and NOPS_RETIRED on both threads: the signature loops), and it stops at
 * thread 1's record in the cycle it leaves open.  Counts 40 and 1; the two
 * retirements reported in cycle 19 (without the entry's retirement state the
 * next run saw no retirement of thread 0 there). */
static void test_lean_entry_retire(void)
{
    pmusim_rec_t r[41];
    for (unsigned i = 0; i < 40; i++)
        r[i] = t_insn(i / 2, 3);
    r[40] = t_insn(19, 3);
    r[40].thread = 1;
    pmusim_model_t *m = t_model("mont", 2);
    for (uint32_t t = 0; t < 2; t++) {
        t_write(m, PMUSIM_REG_PMC, 4, 0x2000000 | cfg(ES_INST, 0, 8, 0, 0, 0), t);
        t_write(m, PMUSIM_REG_PMC, 5, 0x2000000 | cfg(0x50, 0, 8, 0, 0, 0), t);
    }
    m->ops->consume(m, r, 21);
    m->ops->consume(m, r + 21, 20);
    m->ops->finish(m);
    CU_ASSERT_EQUAL(CNT(m, 4), 40);
    CU_ASSERT_EQUAL(t_read(m, PMUSIM_REG_PMD, 4, 1) & CTR_MASK, 1);
    CU_ASSERT_TRUE(t_diag_has(m, "threads 0 and 1 both retire instructions in cycle 19;"));
    pmusim_model_free(m);
}

/* The one-thread fast loop's constant signature across changes of the
 * privilege level (issue 12: its cached answer is looked up inline).  IA64_INST_RETIRED at PL 3 only: runs of 60
 * instructions at PL 3, 0, 3, 0, 3, each long enough for the fast loop
 * (the later ones after the signatures' first generations), count 180
 * (the PL 0 runs none); with both levels 300. */
static void test_const_sig_state(void)
{
    static pmusim_rec_t r[300];
    for (unsigned k = 0; k < 300; k++)
        r[k] = t_insn(k, (k / 60) % 2 ? 0 : 3);
    pmusim_model_t *m = t_model("ita2", 1);
    PMC(m, 4, cfg(ES_INST, 0, 8, 0, 0, 0));
    PMC(m, 5, cfg(ES_INST, 0, 9, 0, 0, 0));
    t_run(m, r, G_N_ELEMENTS(r));
    CU_ASSERT_EQUAL(CNT(m, 4), 180);
    CU_ASSERT_EQUAL(CNT(m, 5), 300);
    pmusim_model_free(m);
    /* one counter alone (the signature of one source) */
    m = t_model("ita2", 1);
    PMC(m, 4, cfg(ES_INST, 0, 8, 0, 0, 0));
    t_run(m, r, G_N_ELEMENTS(r));
    CU_ASSERT_EQUAL(CNT(m, 4), 180);
    pmusim_model_free(m);
    /* the cached signature of one state asked for in another: the first
     * record sets the state (PL 3) before PMC4 is written, and the write
     * starts a signature generation, so the fast loop's first run computes
     * and caches the PL-3 signature; the PL-0 run after it is in the same
     * generation (without the look-up's state test it would be counted
     * under the PL-3 mask, by PMC4 too) */
    m = t_model("ita2", 1);
    PMC(m, 5, cfg(ES_INST, 0, 9, 0, 0, 0));
    m->ops->consume(m, r, 1);
    PMC(m, 4, cfg(ES_INST, 0, 8, 0, 0, 0));
    t_run(m, r + 1, G_N_ELEMENTS(r) - 1);
    CU_ASSERT_EQUAL(CNT(m, 4), 179);
    CU_ASSERT_EQUAL(CNT(m, 5), 300);
    pmusim_model_free(m);
}

static void register_suites(void)
{
    CU_pSuite s = CU_add_suite("ia64_regs", NULL, NULL);
    PMUSIM_ADD_TEST(s, test_reset_values);
    PMUSIM_ADD_TEST(s, test_write_masks);
    PMUSIM_ADD_TEST(s, test_pmd_read_write);
    PMUSIM_ADD_TEST(s, test_bad_create);
    PMUSIM_ADD_TEST(s, test_event_source);
    s = CU_add_suite("ia64_counters", NULL, NULL);
    PMUSIM_ADD_TEST(s, test_cycles_and_insts);
    PMUSIM_ADD_TEST(s, test_label_in_report);
    PMUSIM_ADD_TEST(s, test_threshold_boundaries);
    PMUSIM_ADD_TEST(s, test_explicit_events);
    PMUSIM_ADD_TEST(s, test_const_sig_state);
    PMUSIM_ADD_TEST(s, test_e1_lm_without_pk);
    PMUSIM_ADD_TEST(s, test_lean_batches);
    PMUSIM_ADD_TEST(s, test_lean_acc);
    PMUSIM_ADD_TEST(s, test_lean_entry_full_cycle);
    PMUSIM_ADD_TEST(s, test_lean_entry_retire);
    PMUSIM_ADD_TEST(s, test_ism);
    PMUSIM_ADD_TEST(s, test_pm_psr);
    PMUSIM_ADD_TEST(s, test_record_errors);
    PMUSIM_ADD_TEST(s, test_rest_reads_and_writes);
    PMUSIM_ADD_TEST(s, test_many_records_per_cycle);
    PMUSIM_ADD_TEST(s, test_reclassify_open_cycle);
    PMUSIM_ADD_TEST(s, test_mem_branch_bytes);
    PMUSIM_ADD_TEST(s, test_icall_class);
    s = CU_add_suite("ia64_overflow", NULL, NULL);
    PMUSIM_ADD_TEST(s, test_overflow_oi_freeze);
    PMUSIM_ADD_TEST(s, test_overflow_no_oi);
    PMUSIM_ADD_TEST(s, test_lazy_overflow_in_gap);
    PMUSIM_ADD_TEST(s, test_handler_reload_cycles);
    PMUSIM_ADD_TEST(s, test_rearm_when_freeze_cleared_alone);
    PMUSIM_ADD_TEST(s, test_pmi_ip_handler_installed_late);
    PMUSIM_ADD_TEST(s, test_software_freeze);
}

