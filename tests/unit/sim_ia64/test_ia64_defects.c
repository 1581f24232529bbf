/* IA-64 models: the defects of issues 10 and 15, each with a hand-computed
 * case that failed before its fix (bounded work past cycle 2^64, the
 * PMC0 fr = 0 re-raise, CPU_CPL_CHANGES to or from, FP_OPS_RETIRED,
 * L1DTLB_TRANSFER, thread switches, retirements the thread state
 * contradicts, counters whose sources the trace lacks). */
#include "cu_main.h"
#include "ia64_priv.h"
#include "ia64_test.h"
#include "pmusim/tracegen.h"

#define OI (1u << 5)
#define MONT_ISM 0x2000000ull
#define ES_CYCLES 0x12u
#define ES_INST 0x08u
#define ES_FP_OPS 0x09u
#define ES_CPL 0x13u
#define ES_L1DTLB_TRANSFER 0xc0u
#define ES_TS_EVENTS 0x0cu

static uint64_t cfg(unsigned es, unsigned umask, unsigned plm, unsigned flags)
{
    return (uint64_t)plm | flags | (uint64_t)es << 8 | (uint64_t)umask << 16;
}

static uint64_t mont_cfg(unsigned es, unsigned umask, unsigned plm)
{
    return MONT_ISM | cfg(es, umask, plm, 0);
}

static pmusim_rec_t on(pmusim_rec_t r, uint8_t thread)
{
    r.thread = thread;
    return r;
}

static pmusim_rec_t mem(uint64_t cycle, bool store, bool fp, uint8_t tlb)
{
    pmusim_rec_t r = t_insn(cycle, 3);
    r.flags = PMUSIM_F_MEM | (fp ? PMUSIM_F_FP : 0);
    r.unit = PMUSIM_UNIT_M;
    r.mem.addr = 0x6000000000001000ull;
    r.mem.size = 8;
    r.mem.is_store = store;
    r.mem.level = PMUSIM_LVL_L1D;
    r.mem.tlb = tlb;
    return r;
}

static pmusim_counter_result_t result_of(pmusim_model_t *m, uint32_t thread, const char *reg)
{
    pmusim_report_t rep;
    pmusim_report_init(&rep);
    m->ops->report(m, &rep);
    pmusim_counter_result_t out;
    memset(&out, 0, sizeof out);
    for (guint i = 0; i < rep.counters->len; i++) {
        const pmusim_counter_result_t *c =
            &g_array_index(rep.counters, pmusim_counter_result_t, i);
        if (c->thread == thread && strcmp(c->reg, reg) == 0)
            out = *c;
    }
    pmusim_report_clear(&rep);
    CU_ASSERT_STRING_EQUAL(out.reg, reg);
    return out;
}

/* Issue 15: an IDLE reaching cycle 2^64 - 1 with a cycle counter that
 * does not interrupt.  PMD4 starts at 5 and counts cycles 0 .. 2^64 - 2,
 * i.e. 2^64 - 1 cycles: 5 + 2^64 - 1 = 2^64 + 4 = 2^17 wraps of 2^47 and 4
 * left.  The 2^17-th wrap is at cycle 2^64 - 6; the next would be past
 * 2^64 (it used to wrap around and loop forever).  The log keeps
 * PMUSIM_LOG_MAX entries, the rest of the 2^17 overflows are dropped. */
static void test_idle_to_end_of_time(void)
{
    pmusim_model_t *m = t_model("ita2", 1);
    PMC(m, 4, cfg(ES_CYCLES, 0, 8, 0));
    PMD(m, 4, 5);
    pmusim_rec_t r[] = {t_insn(0, 3), t_idle(1, UINT64_MAX - 1)};
    t_run(m, r, G_N_ELEMENTS(r));
    pmusim_counter_result_t c = result_of(m, 0, "PMD4");
    CU_ASSERT_EQUAL(c.overflows, UINT64_C(1) << 17);
    CU_ASSERT_EQUAL(c.value, 4);
    CU_ASSERT_EQUAL(RPMC(m, 0), 1u << 4); /* overflow bit, no freeze (oi = 0) */
    CU_ASSERT_EQUAL(m->log->len + m->log_dropped, UINT64_C(1) << 17);
    pmusim_report_t rep;
    pmusim_report_init(&rep);
    m->ops->report(m, &rep);
    CU_ASSERT_EQUAL(rep.cycles, UINT64_MAX);
    pmusim_report_clear(&rep);
    pmusim_model_free(m);

    /* the same with the IDLE's end overflowing 64 bits: saturates */
    m = t_model("ita2", 1);
    PMC(m, 4, cfg(ES_CYCLES, 0, 8, 0));
    pmusim_rec_t r2[] = {t_insn(0, 3), t_idle(7, UINT64_MAX)};
    t_run(m, r2, G_N_ELEMENTS(r2));
    /* cycles 0 .. 2^64 - 2: 2^64 - 1 = (2^17 - 1) * 2^47 + 2^47 - 1 */
    c = result_of(m, 0, "PMD4");
    CU_ASSERT_EQUAL(c.overflows, (UINT64_C(1) << 17) - 1);
    CU_ASSERT_EQUAL(c.value, CTR_MASK);
    pmusim_model_free(m);
}

/* Issue 10: PMC0 written with fr = 0 while an overflow bit of an oi = 1
 * counter is set, before the trace: the interrupt is taken at once, so the
 * PMU is frozen from cycle 0 for every counter, the cycle counter too, and
 * the log names no overflow (none happened). */
static void test_pmc0_rearm_before_trace(void)
{
    pmusim_model_t *m = t_model("ita2", 1);
    /* every level: before the first instruction the level is 0 */
    PMC(m, 4, cfg(ES_CYCLES, 0, 0xf, OI));
    PMC(m, 5, cfg(ES_INST, 0, 0xf, 0));
    PMC(m, 0, 0x11); /* frozen, PMD4 overflow bit */
    PMC(m, 0, 0x10); /* unfreeze, bit left set: re-raised */
    pmusim_rec_t r[] = {t_insn(0, 3), t_insn(1, 3), t_insn(2, 3)};
    t_run(m, r, G_N_ELEMENTS(r));
    CU_ASSERT_EQUAL(m->pmi_count, 1);
    CU_ASSERT_EQUAL(t_log_count(m, 0, "interrupt"), 1);
    CU_ASSERT_EQUAL(CNT(m, 4), 0); /* used to be 1: cycle 0 counted */
    CU_ASSERT_EQUAL(CNT(m, 5), 0);
    CU_ASSERT_EQUAL(RPMC(m, 0), 0x11);
    for (guint i = 0; i < m->log->len; i++)
        CU_ASSERT_PTR_NULL(strstr(g_array_index(m->log, pmusim_sim_event_t, i).what, "overflow"));
    pmusim_model_free(m);
}

/* CPU_CPL_CHANGES_LVLn counts changes to or from level n (libpfm3's
 * Montecito table).  Levels 3 -> 0 -> 3 -> 1 -> 3: four changes; LVL0
 * sees 3->0 and 0->3 (2), LVL1 3->1 and 1->3 (2), LVL3 all four, LVL2
 * none; ALL four. */
static void test_cpl_changes_to_or_from(void)
{
    pmusim_model_t *m = t_model("mont", 1);
    PMC(m, 4, mont_cfg(ES_CPL, 0x1, 0xf));
    PMC(m, 5, mont_cfg(ES_CPL, 0x2, 0xf));
    PMC(m, 6, mont_cfg(ES_CPL, 0x4, 0xf));
    PMC(m, 7, mont_cfg(ES_CPL, 0x8, 0xf));
    PMC(m, 8, mont_cfg(ES_CPL, 0xf, 0xf));
    pmusim_rec_t r[] = {t_insn(0, 3), t_insn(1, 0), t_insn(2, 3), t_insn(3, 1), t_insn(4, 3)};
    t_run(m, r, G_N_ELEMENTS(r));
    CU_ASSERT_EQUAL(CNT(m, 4), 2);
    CU_ASSERT_EQUAL(CNT(m, 5), 2);
    CU_ASSERT_EQUAL(CNT(m, 6), 0);
    CU_ASSERT_EQUAL(CNT(m, 7), 4);
    CU_ASSERT_EQUAL(CNT(m, 8), 4);
    pmusim_model_free(m);
}

/* FP_OPS_RETIRED counts FP operations, not FP loads and stores;
 * L1DTLB_TRANSFER counts L2DTLB hits of the accesses L1D_READS counts
 * (integer loads).  Records: an fma (F unit, fp flag), an FP load and an FP
 * store hitting the L2DTLB, an integer load and an integer store hitting
 * the L2DTLB.  FP ops: 1; transfers: 1 (the integer load). */
static void test_fp_ops_and_dtlb_transfer(void)
{
    for (int cpu = 0; cpu < 2; cpu++) {
        pmusim_model_t *m = t_model(cpu ? "mont" : "ita2", 1);
        uint64_t ism = cpu ? MONT_ISM : 0;
        PMC(m, 4, ism | cfg(ES_FP_OPS, 0, 8, 0));
        PMC(m, 5, ism | cfg(ES_L1DTLB_TRANSFER, 0, 8, 0));
        pmusim_rec_t fma = t_insn(0, 3);
        fma.flags = PMUSIM_F_FP;
        fma.unit = PMUSIM_UNIT_F;
        pmusim_rec_t r[] = {fma,
                            mem(1, false, true, PMUSIM_TLB_L2_HIT),
                            mem(2, true, true, PMUSIM_TLB_L2_HIT),
                            mem(3, false, false, PMUSIM_TLB_L2_HIT),
                            mem(4, true, false, PMUSIM_TLB_L2_HIT)};
        t_run(m, r, G_N_ELEMENTS(r));
        CU_ASSERT_EQUAL(CNT(m, 4), 1);
        CU_ASSERT_EQUAL(CNT(m, 5), 1);
        pmusim_model_free(m);
    }
}

/* Montecito switch-on-event trace: thread 0 runs, switches to thread 1 at
 * cycle 2, back to thread 0 at cycle 4.  THREAD_SWITCH_EVENTS_ALL counts
 * the switch on the thread switched to: 1 on each thread.  No diagnostic:
 * one thread retires per cycle and none while inactive. */
static void test_thread_switch_events(void)
{
    pmusim_model_t *m = t_model("mont", 2);
    /* all levels: thread 1 has retired nothing yet when it is switched to,
     * so its level is the reset level 0 */
    t_write(m, PMUSIM_REG_PMC, 4, mont_cfg(ES_TS_EVENTS, 0x7, 0xf), 0);
    t_write(m, PMUSIM_REG_PMC, 4, mont_cfg(ES_TS_EVENTS, 0x7, 0xf), 1);
    t_write(m, PMUSIM_REG_PMC, 5, mont_cfg(ES_INST, 0, 8), 0);
    t_write(m, PMUSIM_REG_PMC, 5, mont_cfg(ES_INST, 0, 8), 1);
    pmusim_rec_t r[] = {t_thread(0, 1, false), on(t_insn(0, 3), 0), on(t_insn(1, 3), 0),
                        t_thread(2, 0, false), t_thread(2, 1, true), on(t_insn(2, 3), 1),
                        on(t_insn(3, 3), 1), t_thread(4, 1, false), t_thread(4, 0, true),
                        on(t_insn(4, 3), 0)};
    t_run(m, r, G_N_ELEMENTS(r));
    CU_ASSERT_EQUAL(t_read(m, PMUSIM_REG_PMD, 4, 0) & CTR_MASK, 1);
    CU_ASSERT_EQUAL(t_read(m, PMUSIM_REG_PMD, 4, 1) & CTR_MASK, 1);
    CU_ASSERT_EQUAL(t_read(m, PMUSIM_REG_PMD, 5, 0) & CTR_MASK, 3);
    CU_ASSERT_EQUAL(t_read(m, PMUSIM_REG_PMD, 5, 1) & CTR_MASK, 2);
    CU_ASSERT_EQUAL(m->diags->len, 0);
    pmusim_model_free(m);
}

/* Two threads retiring in one cycle, and a retirement on an inactive
 * thread: each reported once, counted as before.  Enough records that the
 * fast path sees them first. */
static void test_retire_diagnostics(void)
{
    pmusim_model_t *m = t_model("mont", 2);
    t_write(m, PMUSIM_REG_PMC, 5, mont_cfg(ES_INST, 0, 8), 0);
    t_write(m, PMUSIM_REG_PMC, 5, mont_cfg(ES_INST, 0, 8), 1);
    pmusim_rec_t r[40];
    for (unsigned i = 0; i < 20; i++)
        r[i] = on(t_insn(i, 3), 0);
    r[20] = on(t_insn(19, 3), 1); /* same cycle as thread 0's last */
    r[21] = t_thread(20, 0, false);
    for (unsigned i = 22; i < 40; i++)
        r[i] = on(t_insn(i, 3), 0); /* thread 0 inactive */
    t_run(m, r, G_N_ELEMENTS(r));
    CU_ASSERT_TRUE(t_diag_has(m, "threads 0 and 1 both retire instructions in cycle 19;"));
    CU_ASSERT_TRUE(t_diag_has(m, "record 22 retires an instruction on thread 0 at cycle 22, which "
                                 "a THREAD record marked inactive"));
    CU_ASSERT_EQUAL(m->diags->len, 2);
    /* IA64_INST_RETIRED is an active event: the inactive thread's 18 are not counted */
    CU_ASSERT_EQUAL(t_read(m, PMUSIM_REG_PMD, 5, 0) & CTR_MASK, 20);
    CU_ASSERT_EQUAL(t_read(m, PMUSIM_REG_PMD, 5, 1) & CTR_MASK, 1);
    pmusim_model_free(m);

    /* the same when an instruction of a later cycle follows in the fast
     * path: the diagnostic names the cycle both retired in (the fast loop
     * named the next one), after both threads have retired before */
    m = t_model("mont", 2);
    t_write(m, PMUSIM_REG_PMC, 5, mont_cfg(ES_INST, 0, 8), 0);
    t_write(m, PMUSIM_REG_PMC, 5, mont_cfg(ES_INST, 0, 8), 1);
    pmusim_rec_t s[60];
    for (unsigned i = 0; i < 6; i++)
        s[i] = on(t_insn(i, 3), 1);
    for (unsigned i = 6; i < 41; i++)
        s[i] = on(t_insn(i, 3), 0);
    s[41] = on(t_insn(40, 3), 1); /* same cycle as thread 0's last */
    for (unsigned i = 42; i < 60; i++)
        s[i] = on(t_insn(i - 1, 3), 1);
    t_run(m, s, G_N_ELEMENTS(s));
    CU_ASSERT_TRUE(t_diag_has(m, "threads 0 and 1 both retire instructions in cycle 40;"));
    CU_ASSERT_EQUAL(m->diags->len, 1);
    CU_ASSERT_EQUAL(t_read(m, PMUSIM_REG_PMD, 5, 0) & CTR_MASK, 35);
    CU_ASSERT_EQUAL(t_read(m, PMUSIM_REG_PMD, 5, 1) & CTR_MASK, 25);
    pmusim_model_free(m);

    /* Itanium 2 has one thread: no such diagnostic */
    m = t_model("ita2", 1);
    pmusim_rec_t one[] = {t_insn(0, 3), t_insn(0, 3)};
    t_run(m, one, 2);
    CU_ASSERT_EQUAL(m->diags->len, 0);
    pmusim_model_free(m);
}

/* Sources and <not in trace>: an EVENT-only event with no EVENT record of
 * its es and umask, an EVENT-only event with one, a threshold on an absent
 * source, a trace-derived event whose annotation the header lacks, and one
 * whose annotation is present. */
static void test_not_in_trace(void)
{
    pmusim_model_t *m = t_model("ita2", 1);
    m->trace_annotations = PMUSIM_ANN_ALL & ~PMUSIM_ANN_TLB;
    PMC(m, 4, cfg(0x00, 0, 8, 0));                    /* BACK_END_BUBBLE_ALL: EVENT only */
    PMC(m, 5, cfg(0x00, 0, 8, 0) | (1u << 20));       /* the same, threshold 1 */
    PMC(m, 6, cfg(ES_L1DTLB_TRANSFER, 0, 8, 0));      /* needs the tlb annotation */
    PMC(m, 7, cfg(ES_INST, 0, 8, 0));
    pmusim_rec_t r[] = {t_insn(0, 3), t_event(0, 0x01, 0, 2), t_insn(1, 3)};
    t_run(m, r, G_N_ELEMENTS(r));
    pmusim_counter_result_t c = result_of(m, 0, "PMD4");
    CU_ASSERT_EQUAL(c.status, PMUSIM_COUNT_NOT_IN_TRACE);
    CU_ASSERT_STRING_EQUAL(c.source, "EVENT records es 0x00 umask 0x0");
    c = result_of(m, 0, "PMD5");
    CU_ASSERT_EQUAL(c.status, PMUSIM_COUNT_NOT_IN_TRACE);
    c = result_of(m, 0, "PMD6");
    CU_ASSERT_EQUAL(c.status, PMUSIM_COUNT_NOT_IN_TRACE);
    CU_ASSERT_PTR_NOT_NULL(strstr(c.source, "the trace lacks tlb"));
    c = result_of(m, 0, "PMD7");
    CU_ASSERT_EQUAL(c.status, PMUSIM_COUNT_OK);
    CU_ASSERT_EQUAL(c.value, 2);
    CU_ASSERT_PTR_NOT_NULL(strstr(c.source, "insn records"));
    pmusim_model_free(m);

    /* with an EVENT record of es 0x00 the bubble counter is a measurement */
    m = t_model("ita2", 1);
    PMC(m, 4, cfg(0x00, 0, 8, 0));
    pmusim_rec_t r2[] = {t_insn(0, 3), t_event(0, 0x00, 0, 1), t_insn(1, 3)};
    t_run(m, r2, G_N_ELEMENTS(r2));
    c = result_of(m, 0, "PMD4");
    CU_ASSERT_EQUAL(c.status, PMUSIM_COUNT_OK);
    CU_ASSERT_EQUAL(c.value, 1);
    pmusim_model_free(m);
}

/* The header's "events" key: L3_LINES_REPLACED (es 0xdf) listed by the
 * producer and absent from the trace is a real zero; the I-EAR event listed
 * as "0x43/" + any umask likewise; an unlisted EVENT-only event stays
 * <not in trace>. */
static void test_declared_events_ia64(void)
{
    pmusim_model_t *m = t_model("ita2", 1);
    pmusim_trace_header_t h;
    pmusim_trace_header_init(&h, PMUSIM_CPU_ITA2, 1);
    pmusim_trace_header_set_meta(&h, "events", "0xdf/0x00,0x43/*");
    pmusim_model_set_trace_header(m, &h);
    pmusim_trace_header_clear(&h);
    PMC(m, 4, cfg(0xdf, 0, 8, 0)); /* L3_LINES_REPLACED: EVENT only, listed */
    PMC(m, 5, cfg(0x00, 0, 8, 0)); /* BACK_END_BUBBLE_ALL: EVENT only, not listed */
    pmusim_rec_t r[] = {t_insn(0, 3), t_insn(1, 3)};
    t_run(m, r, G_N_ELEMENTS(r));
    pmusim_counter_result_t c = result_of(m, 0, "PMD4");
    CU_ASSERT_EQUAL(c.status, PMUSIM_COUNT_OK);
    CU_ASSERT_EQUAL(c.value, 0);
    c = result_of(m, 0, "PMD5");
    CU_ASSERT_EQUAL(c.status, PMUSIM_COUNT_NOT_IN_TRACE);
    pmusim_model_free(m);
}

/* The header's "evsum" key on IA-64 traces (docs/trace-events-ia64.md,
 * "Thresholds and the evsum key"): the microarchitecture model lists every
 * pair of its "events" key there, but every event that counts such a
 * pair, by its es and umask or as a fact (code 0x100), has maxincr 1, so
 * its only valid threshold is 0 and the IA-64 engine need not read the
 * key.  Checked on the headers `trace gen` writes for both CPUs; then a
 * threshold of 1 on L3_LINES_REPLACED (es 0xdf, a listed pair) counts 0
 * with the "can never count" diagnostic, and no threshold counts both
 * records, with and without the key. */
static void check_evsum_maxincr(pmusim_cpu_t cpu, const ia64_desc_t *d,
                                const ia64_event_info_t *evs, size_t nevs)
{
    pmusim_gen_params_t p;
    pmusim_gen_params_init(&p, cpu);
    pmusim_trace_header_t h;
    GError *err = NULL;
    CU_ASSERT_TRUE_FATAL(pmusim_gen_header(&p, &h, &err));
    GArray *sum = pmusim_trace_header_summed_events(&h);
    CU_ASSERT_PTR_NOT_NULL_FATAL(sum);
    CU_ASSERT_TRUE(sum->len >= 10);
    unsigned checked = 0;
    for (guint i = 0; i < sum->len; i++) {
        const uint32_t key = g_array_index(sum, uint32_t, i);
        const uint32_t code = key >> 16, umask = key & 0xffffu;
        unsigned found = 0;
        if (code == IA64_FACT_CODE) {
            CU_ASSERT_TRUE_FATAL(umask < IA64_NFACTS);
            const ia64_fact_t *f = &d->facts[umask];
            CU_ASSERT_PTR_NOT_NULL(f->name);
            for (unsigned j = 0; j < f->nkeys; j++, found++) {
                const ia64_event_info_t *e = ia64_event_find(d, f->keys[j] >> 4, f->keys[j] & 15);
                CU_ASSERT_PTR_NOT_NULL_FATAL(e);
                CU_ASSERT_EQUAL(e->maxincr, 1);
            }
        } else {
            for (size_t j = 0; j < nevs; j++)
                if ((evs[j].key >> 4) == code &&
                    (umask == PMUSIM_EVENT_ANY_UMASK || (evs[j].key & 15u) == umask)) {
                    CU_ASSERT_EQUAL(evs[j].maxincr, 1);
                    found++;
                }
        }
        CU_ASSERT_TRUE(found > 0);
        checked += found;
    }
    CU_ASSERT_TRUE(checked > sum->len);
    g_array_free(sum, TRUE);
    pmusim_trace_header_clear(&h);
}

static void test_evsum_ia64(void)
{
    check_evsum_maxincr(PMUSIM_CPU_ITA2, &ia64_desc_ita2, ia64_events_ita2,
                        ia64_events_ita2_count);
    check_evsum_maxincr(PMUSIM_CPU_MONT, &ia64_desc_mont, ia64_events_mont,
                        ia64_events_mont_count);
    for (int with_key = 0; with_key < 2; with_key++) {
        pmusim_model_t *m = t_model("ita2", 1);
        pmusim_trace_header_t h;
        pmusim_trace_header_init(&h, PMUSIM_CPU_ITA2, 1);
        pmusim_trace_header_set_meta(&h, "events", "0xdf/0x00");
        if (with_key)
            pmusim_trace_header_set_meta(&h, "evsum", "0xdf/0x00");
        pmusim_model_set_trace_header(m, &h);
        pmusim_trace_header_clear(&h);
        PMC(m, 4, cfg(0xdf, 0, 8, 1u << 20)); /* thres 1 */
        PMC(m, 5, cfg(0xdf, 0, 8, 0));
        CU_ASSERT_TRUE(t_diag_has(m, "can never count"));
        pmusim_rec_t r[] = {t_insn(0, 3), t_event(0, 0xdf, 0, 1), t_insn(1, 3),
                            t_event(1, 0xdf, 0, 1), t_insn(2, 3)};
        t_run(m, r, G_N_ELEMENTS(r));
        pmusim_counter_result_t c = result_of(m, 0, "PMD4");
        CU_ASSERT_EQUAL(c.status, PMUSIM_COUNT_OK);
        CU_ASSERT_EQUAL(c.value, 0);
        c = result_of(m, 0, "PMD5");
        CU_ASSERT_EQUAL(c.status, PMUSIM_COUNT_OK);
        CU_ASSERT_EQUAL(c.value, 2);
        pmusim_model_free(m);
    }
}

/* A lean run suspended at the end of a consume() call (issue 12, h-mont3):
 * reads between the calls see the closed cycles, as after a run that was
 * left.  ita2 LOADS_RETIRED and IA64_INST_RETIRED, 150 cycles of an
 * instruction and a load, given in calls of 101, 99 and 100 records: the
 * first ends in cycle 50's instruction, the second (a lean run from its
 * start, suspended at its end) in cycle 99's load, so the open cycle at
 * the read has other masks than at the run's entry.  After the calls
 * loads 50, 99 and instructions 100, 198 (the open cycle is not counted
 * yet).  Again with PMD5 written to 1000 while the run is suspended (no
 * read before it): the open cycle 99 and the next 49 add to it, 1100
 * after the third call (loads 149); after finish() loads 150,
 * instructions 1102. */
static pmusim_model_t *loads_insts_model(void)
{
    pmusim_model_t *m = t_model("ita2", 1);
    PMC(m, 4, cfg(0xcd, 0, 8, 0));
    PMC(m, 5, cfg(ES_INST, 0, 8, 0));
    return m;
}

static void test_lean_suspended_reads(void)
{
    pmusim_model_t *m = loads_insts_model();
    pmusim_rec_t r[300];
    for (unsigned j = 0; j < 300; j++)
        r[j] = (j & 1) ? mem(j / 2, false, false, PMUSIM_TLB_L1_HIT) : t_insn(j / 2, 3);
    m->ops->consume(m, r, 101);
    CU_ASSERT_EQUAL(CNT(m, 4), 50);
    CU_ASSERT_EQUAL(CNT(m, 5), 100);
    m->ops->consume(m, r + 101, 99);
    CU_ASSERT_TRUE(ia64_model(m)->lean_sus);
    CU_ASSERT_EQUAL(CNT(m, 4), 99);
    CU_ASSERT_EQUAL(CNT(m, 5), 198);
    m->ops->finish(m);
    pmusim_model_free(m);

    /* the same with the write while the run is suspended */
    m = loads_insts_model();
    m->ops->consume(m, r, 101);
    m->ops->consume(m, r + 101, 99);
    CU_ASSERT_TRUE(ia64_model(m)->lean_sus);
    PMD(m, 5, 1000);
    CU_ASSERT_EQUAL(CNT(m, 4), 99);
    CU_ASSERT_EQUAL(CNT(m, 5), 1000);
    m->ops->consume(m, r + 200, 100);
    CU_ASSERT_EQUAL(CNT(m, 4), 149);
    CU_ASSERT_EQUAL(CNT(m, 5), 1100);
    m->ops->finish(m);
    CU_ASSERT_EQUAL(CNT(m, 4), 150);
    CU_ASSERT_EQUAL(CNT(m, 5), 1102);
    pmusim_model_free(m);
}

/* The fast loop closes a cycle of more records than some counter's maxincr
 * when that counter's own count stays within it, and leaves a cycle that
 * needs the clamp to the general path.  ita2 LOADS_RETIRED (maxincr 4) and
 * IA64_INST_RETIRED (maxincr 6): 300 cycles of one load, a cycle of 4 loads
 * and a nop (5 records, loads 4: no clamp), a cycle of 5 loads (clamped to
 * 4, one diagnostic), then 10 more single loads.  Loads 300 + 4 + 4 + 10 =
 * 318, instructions 300 + 5 + 5 + 10 = 320. */
static void test_fast_close_many_records(void)
{
    pmusim_model_t *m = t_model("ita2", 1);
    PMC(m, 4, cfg(0xcd, 0, 8, 0));
    PMC(m, 5, cfg(ES_INST, 0, 8, 0));
    pmusim_rec_t r[320];
    size_t n = 0;
    uint64_t c = 0;
    for (; c < 300; c++)
        r[n++] = mem(c, false, false, PMUSIM_TLB_L1_HIT);
    for (unsigned j = 0; j < 4; j++)
        r[n++] = mem(c, false, false, PMUSIM_TLB_L1_HIT);
    r[n] = t_insn(c, 3);
    r[n++].flags = PMUSIM_F_NOP;
    c++;
    for (unsigned j = 0; j < 5; j++)
        r[n++] = mem(c, false, false, PMUSIM_TLB_L1_HIT);
    for (c++; n < 320; c++)
        r[n++] = mem(c, false, false, PMUSIM_TLB_L1_HIT);
    t_run(m, r, n);
    CU_ASSERT_EQUAL(CNT(m, 4), 318);
    CU_ASSERT_EQUAL(CNT(m, 5), 320);
    CU_ASSERT_EQUAL(m->diags->len, 1); /* the clamp (the PMC4 enable bit is a note) */
    CU_ASSERT_EQUAL(m->notes->len, 1);
    CU_ASSERT_TRUE(t_diag_has(m, "5 occurrences in cycle 301 exceed maxincr 4"));
    pmusim_model_free(m);
}

/* The final register state a `stat --dump-regs` prints: PMC0 with its
 * freeze and overflow bits read back after the replay and decoded by
 * describe_reg.  PMD5 IA64_INST_RETIRED with oi from 2^47 - 2 wraps in
 * cycle 1 (one instruction per cycle): PMC0 = fr | bit 5 = 0x21. */
static void test_final_register_state(void)
{
    pmusim_model_t *m = t_model("ita2", 1);
    PMC(m, 5, cfg(ES_INST, 0, 8, OI));
    PMD(m, 5, CTR_WRAP - 2);
    pmusim_rec_t r[] = {t_insn(0, 3), t_insn(1, 3), t_insn(2, 3)};
    t_run(m, r, G_N_ELEMENTS(r));
    uint64_t pmc0 = RPMC(m, 0);
    CU_ASSERT_EQUAL(pmc0, 0x21);
    GString *g = g_string_new(NULL);
    CU_ASSERT_TRUE(m->ops->describe_reg(PMUSIM_REG_PMC, 0, pmc0, g));
    CU_ASSERT_STRING_EQUAL(g->str, "freeze/overflow status: fr=1 (frozen) overflow=PMD5");
    g_string_truncate(g, 0);
    /* the BTB index register reads back and decodes too */
    CU_ASSERT_TRUE(m->ops->describe_reg(PMUSIM_REG_PMD, 16, RPMD(m, 16), g));
    CU_ASSERT_PTR_NOT_NULL(strstr(g->str, "BTB index"));
    g_string_free(g, TRUE);
    pmusim_model_free(m);
}

/* MEM records: further accesses of the previous instruction count as
 * memory references, never as instructions.  An integer load with a MEM
 * load and a MEM store, then a plain instruction: LOADS_RETIRED 2,
 * STORES_RETIRED 1, DATA_REFERENCES_SET0 3, IA64_INST_RETIRED 2. */
static void test_mem_records(void)
{
    pmusim_model_t *m = t_model("ita2", 1);
    PMC(m, 4, cfg(0xcd, 0, 8, 0));
    PMC(m, 5, cfg(0xd1, 0, 8, 0));
    PMC(m, 6, cfg(0xc3, 0, 8, 0));
    PMC(m, 7, cfg(ES_INST, 0, 8, 0));
    pmusim_rec_t a = mem(0, false, false, PMUSIM_TLB_L1_HIT);
    pmusim_rec_t b = a, c = a;
    b.kind = c.kind = PMUSIM_REC_MEM;
    b.flags = c.flags = 0;
    c.mem.is_store = 1;
    pmusim_rec_t r[] = {a, b, c, t_insn(1, 3)};
    t_run(m, r, G_N_ELEMENTS(r));
    CU_ASSERT_EQUAL(CNT(m, 4), 2);
    CU_ASSERT_EQUAL(CNT(m, 5), 1);
    CU_ASSERT_EQUAL(CNT(m, 6), 3);
    CU_ASSERT_EQUAL(CNT(m, 7), 2);
    pmusim_model_free(m);
}

/* ---- observe_cycles ---- */

typedef struct obs_rows {
    unsigned n;
    uint64_t cycle[16];
    pmusim_counter_probe_t p[16][3];
} obs_rows_t;

static void obs_collect(pmusim_model_t *m, uint64_t cycle, const pmusim_counter_probe_t *probes,
                        size_t n, void *user)
{
    (void)m;
    obs_rows_t *rows = user;
    CU_ASSERT_EQUAL_FATAL(n, 4); /* ita2: PMD4..PMD7 */
    CU_ASSERT_FATAL(rows->n < 16);
    rows->cycle[rows->n] = cycle;
    memcpy(rows->p[rows->n], probes, 3 * sizeof *probes);
    rows->n++;
}

#define PROBE(row, j, v, raw_, inc, cond_, ovf, fr, irq)                                          \
    do {                                                                                         \
        const pmusim_counter_probe_t *p_ = &rows.p[row][j];                                      \
        CU_ASSERT_EQUAL(p_->value, (v));                                                         \
        CU_ASSERT_EQUAL(p_->raw, (raw_));                                                        \
        CU_ASSERT_EQUAL(p_->increment, (inc));                                                   \
        CU_ASSERT_EQUAL(p_->cond, (cond_));                                                      \
        CU_ASSERT_EQUAL(p_->overflow, (ovf));                                                    \
        CU_ASSERT_EQUAL(p_->frozen, (fr));                                                       \
        CU_ASSERT_EQUAL(p_->interrupt, (irq));                                                   \
    } while (0)

/* One call per cycle, IDLE gap included.  PMD4 CPU_CYCLES with oi from
 * 2^47 - 6: cycles 0..5 bring it to 2^47 = 0 in cycle 5 (overflow,
 * interrupt, freeze from cycle 6).  PMD5 IA64_INST_RETIRED threshold 1
 * (+1 in cycles with 2 or more), PMD6 IA64_INST_RETIRED.  Records: 1 insn
 * in cycle 0, 2 in cycle 1, IDLE 2..4, 3 in cycle 5, 1 in cycle 6 (frozen:
 * not seen).  Window [0, 7): 7 rows. */
static void test_observe_cycles(void)
{
    pmusim_model_t *m = t_model("ita2", 1);
    CU_ASSERT_PTR_NOT_NULL_FATAL(m->ops->observe_cycles);
    PMC(m, 4, cfg(ES_CYCLES, 0, 8, OI));
    PMC(m, 5, cfg(ES_INST, 0, 8, 0) | 1u << 20);
    PMC(m, 6, cfg(ES_INST, 0, 8, 0));
    const uint64_t W = CTR_WRAP;
    PMD(m, 4, W - 6);
    obs_rows_t rows = {0};
    m->ops->observe_cycles(m, 0, 7, obs_collect, &rows);
    pmusim_rec_t r[] = {t_insn(0, 3), t_insn(1, 3), t_insn(1, 3), t_idle(2, 3),
                        t_insn(5, 3), t_insn(5, 3), t_insn(5, 3), t_insn(6, 3)};
    t_run(m, r, G_N_ELEMENTS(r));
    CU_ASSERT_EQUAL_FATAL(rows.n, 7);
    for (unsigned c = 0; c < 7; c++)
        CU_ASSERT_EQUAL(rows.cycle[c], c);
    /*          row j value   raw inc cond ovf fr irq */
    PROBE(0, 0, W - 5, 1, 1, 1, 0, 0, 0);
    PROBE(0, 1, 0, 1, 0, 0, 0, 0, 0);
    PROBE(0, 2, 1, 1, 1, 1, 0, 0, 0);
    PROBE(1, 0, W - 4, 1, 1, 1, 0, 0, 0);
    PROBE(1, 1, 1, 2, 1, 1, 0, 0, 0);
    PROBE(1, 2, 3, 2, 2, 1, 0, 0, 0);
    for (unsigned c = 2; c <= 4; c++) { /* the IDLE gap: each cycle its own value */
        PROBE(c, 0, W - 5 + c, 1, 1, 1, 0, 0, 0);
        PROBE(c, 1, 1, 0, 0, 0, 0, 0, 0);
        PROBE(c, 2, 3, 0, 0, 1, 0, 0, 0);
    }
    PROBE(5, 0, 0, 1, 1, 1, 1, 1, 1);
    PROBE(5, 1, 2, 3, 1, 1, 0, 1, 1);
    PROBE(5, 2, 6, 3, 3, 1, 0, 1, 1);
    PROBE(6, 0, 0, 1, 0, 1, 0, 1, 0);
    PROBE(6, 1, 2, 0, 0, 0, 0, 1, 0);
    PROBE(6, 2, 6, 0, 0, 1, 0, 1, 0);
    CU_ASSERT_EQUAL(CNT(m, 6), 6);
    pmusim_model_free(m);

    /* a window in the middle, and counting after it like an unobserved run */
    m = t_model("ita2", 1);
    PMC(m, 6, cfg(ES_INST, 0, 8, 0));
    obs_rows_t mid = {0};
    m->ops->observe_cycles(m, 3, 5, obs_collect, &mid);
    t_run(m, r, G_N_ELEMENTS(r));
    CU_ASSERT_EQUAL(mid.n, 2);
    CU_ASSERT_EQUAL(mid.cycle[0], 3);
    CU_ASSERT_EQUAL(mid.cycle[1], 4);
    CU_ASSERT_EQUAL(mid.p[0][2].value, 3);
    CU_ASSERT_EQUAL(CNT(m, 6), 7);
    pmusim_model_free(m);
}

static void register_suites(void)
{
    CU_pSuite s = CU_add_suite("ia64_defects", NULL, NULL);
    PMUSIM_ADD_TEST(s, test_idle_to_end_of_time);
    PMUSIM_ADD_TEST(s, test_pmc0_rearm_before_trace);
    PMUSIM_ADD_TEST(s, test_cpl_changes_to_or_from);
    PMUSIM_ADD_TEST(s, test_fp_ops_and_dtlb_transfer);
    PMUSIM_ADD_TEST(s, test_thread_switch_events);
    PMUSIM_ADD_TEST(s, test_retire_diagnostics);
    PMUSIM_ADD_TEST(s, test_not_in_trace);
    PMUSIM_ADD_TEST(s, test_declared_events_ia64);
    PMUSIM_ADD_TEST(s, test_evsum_ia64);
    PMUSIM_ADD_TEST(s, test_lean_suspended_reads);
    PMUSIM_ADD_TEST(s, test_fast_close_many_records);
    PMUSIM_ADD_TEST(s, test_final_register_state);
    PMUSIM_ADD_TEST(s, test_mem_records);
    s = CU_add_suite("ia64_observe", NULL, NULL);
    PMUSIM_ADD_TEST(s, test_observe_cycles);
}
