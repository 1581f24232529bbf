/* Montecito: per-thread PMU state, the `all` bit, active / floating /
 * causal / self-floating events against the trace's thread state, MESI. */
#include "cu_main.h"
#include "ia64_test.h"

#define OI (1u << 5)
#define MONT_ISM 0x2000000ull
#define ALL (1ull << 26)

static uint64_t ctr(unsigned es, unsigned umask, unsigned plm)
{
    return MONT_ISM | plm | OI | (uint64_t)es << 8 | (uint64_t)umask << 16;
}

static pmusim_rec_t on(pmusim_rec_t r, uint8_t thread)
{
    r.thread = thread;
    return r;
}

static pmusim_rec_t load(uint64_t cycle, uint8_t thread, uint8_t level)
{
    pmusim_rec_t r = t_insn(cycle, 3);
    r.thread = thread;
    r.flags = PMUSIM_F_MEM;
    r.mem.addr = 0x6000000000001000ull;
    r.mem.size = 8;
    r.mem.level = level;
    r.mem.latency = 30;
    return r;
}

static void test_per_thread_and_all(void)
{
    pmusim_model_t *m = t_model("mont", 2);
    t_write(m, PMUSIM_REG_PMC, 4, ctr(0x08, 0, 8), 0);
    t_write(m, PMUSIM_REG_PMC, 4, ctr(0x08, 0, 8), 1);
    t_write(m, PMUSIM_REG_PMC, 5, ctr(0x08, 0, 8) | ALL, 0);
    pmusim_rec_t r[] = {on(t_insn(0, 3), 0), on(t_insn(0, 3), 1), on(t_insn(1, 3), 0),
                        on(t_insn(2, 3), 1), on(t_insn(3, 3), 0)};
    t_run(m, r, G_N_ELEMENTS(r));
    CU_ASSERT_EQUAL(t_read(m, PMUSIM_REG_PMD, 4, 0) & CTR_MASK, 3);
    CU_ASSERT_EQUAL(t_read(m, PMUSIM_REG_PMD, 4, 1) & CTR_MASK, 2);
    CU_ASSERT_EQUAL(t_read(m, PMUSIM_REG_PMD, 5, 0) & CTR_MASK, 5);
    CU_ASSERT_EQUAL(t_read(m, PMUSIM_REG_PMD, 5, 1) & CTR_MASK, 0);
    pmusim_model_free(m);
}

static void test_thread_types(void)
{
    pmusim_model_t *m = t_model("mont", 2);
    t_write(m, PMUSIM_REG_PMC, 4, ctr(0xcd, 0, 8), 1); /* LOADS_RETIRED: active */
    t_write(m, PMUSIM_REG_PMC, 5, ctr(0xcb, 0, 8), 1); /* L2D_MISSES: floating */
    t_write(m, PMUSIM_REG_PMC, 6, ctr(0x12, 0, 8), 1); /* CPU_OP_CYCLES_ALL: causal */
    t_write(m, PMUSIM_REG_PMC, 7, ctr(0x87, 3, 8), 0); /* BUS_ALL_ANY: causal */
    t_write(m, PMUSIM_REG_PMC, 8, ctr(0x87, 2, 8), 0); /* BUS_ALL_SELF: floating */
    t_write(m, PMUSIM_REG_PMC, 6, ctr(0x12, 0, 8), 0);
    pmusim_rec_t r[] = {
        on(t_insn(0, 3), 0),
        load(0, 1, PMUSIM_LVL_L3),
        load(1, 1, PMUSIM_LVL_L3),
        on(t_event(1, 0x87, 3, 1), 1), /* causal: counted by thread 0 */
        on(t_event(1, 0x87, 2, 1), 1), /* thread 1's own: not thread 0's */
        t_thread(2, 1, false),
        load(3, 1, PMUSIM_LVL_L3),     /* inactive: active event not counted */
        load(4, 1, PMUSIM_LVL_L3),
        on(t_event(4, 0x87, 2, 1), 0),
        t_thread(6, 1, true),
        load(7, 1, PMUSIM_LVL_L1D),
        t_idle(8, 2),
    };
    t_run(m, r, G_N_ELEMENTS(r));
    CU_ASSERT_EQUAL(t_read(m, PMUSIM_REG_PMD, 4, 1) & CTR_MASK, 3);
    CU_ASSERT_EQUAL(t_read(m, PMUSIM_REG_PMD, 5, 1) & CTR_MASK, 4);
    CU_ASSERT_EQUAL(t_read(m, PMUSIM_REG_PMD, 6, 1) & CTR_MASK, 10); /* causal: every cycle */
    CU_ASSERT_EQUAL(t_read(m, PMUSIM_REG_PMD, 6, 0) & CTR_MASK, 10);
    CU_ASSERT_EQUAL(t_read(m, PMUSIM_REG_PMD, 7, 0) & CTR_MASK, 1);
    CU_ASSERT_EQUAL(t_read(m, PMUSIM_REG_PMD, 8, 0) & CTR_MASK, 1);
    pmusim_model_free(m);
}

static void test_cycles_per_thread_plm(void)
{
    /* each thread's cycles follow that thread's last privilege level */
    pmusim_model_t *m = t_model("mont", 2);
    t_write(m, PMUSIM_REG_PMC, 4, ctr(0x12, 0, 8), 0);
    t_write(m, PMUSIM_REG_PMC, 4, ctr(0x12, 0, 8), 1);
    pmusim_rec_t r[] = {on(t_insn(0, 3), 0), on(t_insn(0, 0), 1), on(t_insn(4, 3), 1),
                        on(t_insn(6, 0), 0), t_idle(7, 3)};
    t_run(m, r, G_N_ELEMENTS(r));
    CU_ASSERT_EQUAL(t_read(m, PMUSIM_REG_PMD, 4, 0) & CTR_MASK, 6);  /* [0,6) */
    CU_ASSERT_EQUAL(t_read(m, PMUSIM_REG_PMD, 4, 1) & CTR_MASK, 6);  /* [4,10) */
    pmusim_model_free(m);
}

static void test_freeze_per_thread(void)
{
    pmusim_model_t *m = t_model("mont", 2);
    t_write(m, PMUSIM_REG_PMC, 4, ctr(0x08, 0, 8), 0);
    t_write(m, PMUSIM_REG_PMC, 4, ctr(0x08, 0, 8), 1);
    t_write(m, PMUSIM_REG_PMD, 4, CTR_WRAP - 1, 0);
    pmusim_rec_t r[] = {on(t_insn(0, 3), 0), on(t_insn(0, 3), 1), on(t_insn(1, 3), 0),
                        on(t_insn(1, 3), 1), on(t_insn(2, 3), 1)};
    t_run(m, r, G_N_ELEMENTS(r));
    CU_ASSERT_EQUAL(t_read(m, PMUSIM_REG_PMC, 0, 0), 0x11);
    CU_ASSERT_EQUAL(t_read(m, PMUSIM_REG_PMC, 0, 1), 0);
    CU_ASSERT_EQUAL(t_read(m, PMUSIM_REG_PMD, 4, 0) & CTR_MASK, 0);
    CU_ASSERT_EQUAL(t_read(m, PMUSIM_REG_PMD, 4, 1) & CTR_MASK, 3);
    CU_ASSERT_EQUAL(m->pmi_count, 1);
    CU_ASSERT_EQUAL(m->log->len, 3); /* overflow, freeze, interrupt: all thread 0 */
    for (guint i = 0; i < m->log->len; i++)
        CU_ASSERT_EQUAL(g_array_index(m->log, pmusim_sim_event_t, i).thread, 0);
    pmusim_model_free(m);
}

static void test_mesi(void)
{
    pmusim_rec_t r[] = {load(0, 0, PMUSIM_LVL_L3), load(1, 0, PMUSIM_LVL_LOCAL_DRAM),
                        load(2, 0, PMUSIM_LVL_L3),
                        t_event(3, 0xdd, 0x9 | 0x80, 1),  /* M state */
                        t_event(4, 0xdd, 0x9 | 0x10, 1),  /* I state */
                        t_event(5, 0xdd, 0x9, 1)};        /* state unspecified */
    pmusim_model_t *m = t_model("mont", 1);
    PMC(m, 4, ctr(0xdd, 0x9, 8) | 0xfull << 27); /* L3_READS_DATA_READ_HIT, all states */
    PMC(m, 5, ctr(0xdd, 0x9, 8));                /* no MESI bit: nothing */
    PMC(m, 6, ctr(0xdd, 0x9, 8) | 0x8ull << 27); /* M only */
    PMC(m, 7, ctr(0xdd, 0xa, 8) | 0xfull << 27); /* ..._MISS */
    t_run(m, r, G_N_ELEMENTS(r));
    CU_ASSERT_EQUAL(CNT(m, 4), 5);
    CU_ASSERT_EQUAL(CNT(m, 5), 0);
    CU_ASSERT_EQUAL(CNT(m, 6), 4);
    CU_ASSERT_EQUAL(CNT(m, 7), 1);
    pmusim_model_free(m);
}

/* Lazy cycle counters at THREAD records (issue 12: a THREAD record brings
 * only the counters of type active to its cycle).  Itanium 2 CPU_CYCLES
 * (type active) stops while a THREAD record marks the thread inactive:
 * cycles 0 .. 30 less 10 .. 24 = 16.  Montecito CPU_OP_CYCLES_ALL
 * (causal) runs through the switches: thread 0's 9 at cycle 9 (0 .. 8)
 * and 22 at the end (0 .. 21); thread 1's from its first instruction
 * (before it the thread has no privilege level the counter accepts,
 * as test_cycles_per_thread_plm), 0 at cycle 9 and 12 at the end
 * (10 .. 21). */
static void test_cycles_at_thread_records(void)
{
    pmusim_model_t *m = t_model("ita2", 1);
    PMC(m, 4, (uint64_t)0x12 << 8 | 8);
    pmusim_rec_t r[] = {t_insn(0, 3), t_thread(10, 0, false), t_thread(25, 0, true), t_insn(30, 3)};
    t_run(m, r, G_N_ELEMENTS(r));
    CU_ASSERT_EQUAL(CNT(m, 4), 16);
    pmusim_model_free(m);

    m = t_model("mont", 2);
    t_write(m, PMUSIM_REG_PMC, 4, ctr(0x12, 0, 8), 0);
    t_write(m, PMUSIM_REG_PMC, 4, ctr(0x12, 0, 8), 1);
    pmusim_rec_t s[] = {on(t_insn(0, 3), 0), t_thread(4, 0, false), t_thread(9, 1, true),
                        on(t_insn(10, 3), 1), t_thread(14, 1, false), t_thread(20, 0, true),
                        on(t_insn(21, 3), 0)};
    m->ops->consume(m, s, 3);
    CU_ASSERT_EQUAL(t_read(m, PMUSIM_REG_PMD, 4, 0) & CTR_MASK, 9);
    CU_ASSERT_EQUAL(t_read(m, PMUSIM_REG_PMD, 4, 1) & CTR_MASK, 0);
    t_run(m, s + 3, G_N_ELEMENTS(s) - 3);
    CU_ASSERT_EQUAL(t_read(m, PMUSIM_REG_PMD, 4, 0) & CTR_MASK, 22);
    CU_ASSERT_EQUAL(t_read(m, PMUSIM_REG_PMD, 4, 1) & CTR_MASK, 12);
    pmusim_model_free(m);
}

static void register_suites(void)
{
    CU_pSuite s = CU_add_suite("ia64_threads", NULL, NULL);
    PMUSIM_ADD_TEST(s, test_per_thread_and_all);
    PMUSIM_ADD_TEST(s, test_thread_types);
    PMUSIM_ADD_TEST(s, test_cycles_per_thread_plm);
    PMUSIM_ADD_TEST(s, test_freeze_per_thread);
    PMUSIM_ADD_TEST(s, test_mesi);
    PMUSIM_ADD_TEST(s, test_cycles_at_thread_records);
}
