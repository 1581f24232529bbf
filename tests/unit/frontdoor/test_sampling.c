/* Sampling beyond the register sequences (pmusim/frontdoor.h, sim/perfdata):
 * skid, frequency mode, the interrupt bound, EAR data in samples, the full
 * width reload of fixed counters, and the perf.data writer and reader.
 * Every expected number is computed by hand in the comments. */
#include <CUnit/CUnit.h>
#include <string.h>
#include "pmusim/frontdoor.h"
#include "../../../sim/perfdata/perfdata.h"

#define MSR_PMC0 0xc1u
#define MSR_EVTSEL0 0x186u
#define MSR_FIXED_CTR0 0x309u
#define MSR_FIXED_CTR_CTRL 0x38du
#define MSR_GLOBAL_CTRL 0x38fu
/* PERFEVTSEL: INST_RETIRED.ANY_P (0xc0/0x00) with EN, USR, OS */
#define EVTSEL_INST UINT64_C(0x4300c0)
#define IA64_PMC(es) ((uint64_t)(es) << 8 | 0x9u)

static pmusim_model_t *model(const char *name)
{
    pmusim_model_t *m = pmusim_model_new(name, 1, NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(m);
    return m;
}

static void wr(pmusim_model_t *m, pmusim_regspace_t s, uint32_t num, uint64_t v)
{
    pmusim_regwrite_t w;
    memset(&w, 0, sizeof w);
    w.space = s;
    w.num = num;
    w.value = v;
    CU_ASSERT_TRUE(m->ops->write_reg(m, &w, NULL));
}

static pmusim_frontdoor_t *session(pmusim_model_t *m, uint32_t reg, uint64_t period)
{
    pmusim_frontdoor_t *fd = pmusim_frontdoor_new(m, NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(fd);
    CU_ASSERT_EQUAL(pmusim_frontdoor_add_sampling(fd, reg, period, "ev", NULL), 0);
    return fd;
}

/* Replays a text trace held in `text` through the front door. */
static void replay_text(pmusim_frontdoor_t *fd, const char *text)
{
    GError *e = NULL;
    CU_ASSERT_TRUE_FATAL(pmusim_frontdoor_start(fd, &e));
    pmusim_trace_reader_t *r = pmusim_trace_reader_open_memory(text, strlen(text), "test", &e);
    if (!r)
        fprintf(stderr, "%s\n", e->message);
    CU_ASSERT_PTR_NOT_NULL_FATAL(r);
    gboolean ok = pmusim_frontdoor_replay(fd, r, NULL, NULL, &e);
    if (!ok)
        fprintf(stderr, "%s\n", e->message);
    CU_ASSERT_TRUE(ok);
    g_clear_error(&e);
    pmusim_trace_reader_free(r);
}

/* n x86 instructions, `per` per cycle, ip = 0x1000 + 4 i. */
static char *x86_trace(unsigned n, unsigned per)
{
    GString *s = g_string_new("pmusim-trace 1\nisa x86_64\ncpu wsm\nthreads 1\n");
    for (unsigned i = 0; i < n; i++)
        g_string_append_printf(s, "%u 0 insn ip=0x%x len=4 plm=3\n", i / per, 0x1000 + 4 * i);
    g_string_append_printf(s, "end %u\n", n);
    return g_string_free(s, FALSE);
}

static pmusim_model_t *wsm_inst(void)
{
    pmusim_model_t *m = model("wsm");
    wr(m, PMUSIM_REG_MSR, MSR_EVTSEL0, EVTSEL_INST);
    wr(m, PMUSIM_REG_MSR, MSR_GLOBAL_CTRL, 1);
    return m;
}

/* ---- skid ---- */

static void test_skid_one_per_cycle(void)
{
    /* period 5, skid 2: the 5th instruction (i = 4, ip 0x1010) overflows;
     * the sample lands two instructions later, i = 6 (0x1018); the next
     * at i = 9 (0x1024) -> i = 11 (0x102c).  12 instructions. */
    pmusim_model_t *m = wsm_inst();
    pmusim_frontdoor_t *fd = session(m, MSR_PMC0, 5);
    CU_ASSERT_TRUE(pmusim_frontdoor_set_skid(fd, 2, NULL));
    char *t = x86_trace(12, 1);
    replay_text(fd, t);
    CU_ASSERT_EQUAL_FATAL(pmusim_frontdoor_n_samples(fd), 2);
    const pmusim_sample_t *s0 = pmusim_frontdoor_sample(fd, 0);
    const pmusim_sample_t *s1 = pmusim_frontdoor_sample(fd, 1);
    CU_ASSERT_EQUAL(s0->overflow_ip, 0x1010);
    CU_ASSERT_EQUAL(s0->ip, 0x1018);
    CU_ASSERT_EQUAL(s0->skid, 2);
    CU_ASSERT_EQUAL(s1->overflow_ip, 0x1024);
    CU_ASSERT_EQUAL(s1->ip, 0x102c);
    CU_ASSERT_EQUAL(s1->flags & PMUSIM_SAMPLE_SKID_CUT, 0);
    g_free(t);
    pmusim_frontdoor_free(fd);
    pmusim_model_free(m);
}

static void test_skid_inside_cycle_and_cut(void)
{
    /* two instructions per cycle, period 3, skid 1.  The 3rd (i = 2, first
     * of cycle 1) overflows; the PMI follows its record, and the next
     * instruction is i = 3 in the same cycle (0x100c).  The 6th (i = 5,
     * 0x1014) -> i = 6 (0x1018).  The 9th (i = 8) -> i = 9 (0x1024).  With
     * 10 instructions the 9th's skid completes; a 12th would not exist:
     * period 3 over 10 instructions gives 3 samples. */
    pmusim_model_t *m = wsm_inst();
    pmusim_frontdoor_t *fd = session(m, MSR_PMC0, 3);
    CU_ASSERT_TRUE(pmusim_frontdoor_set_skid(fd, 1, NULL));
    char *t = x86_trace(10, 2);
    replay_text(fd, t);
    CU_ASSERT_EQUAL_FATAL(pmusim_frontdoor_n_samples(fd), 3);
    CU_ASSERT_EQUAL(pmusim_frontdoor_sample(fd, 0)->ip, 0x100c);
    CU_ASSERT_EQUAL(pmusim_frontdoor_sample(fd, 1)->ip, 0x1018);
    CU_ASSERT_EQUAL(pmusim_frontdoor_sample(fd, 2)->ip, 0x1024);
    g_free(t);
    pmusim_frontdoor_free(fd);
    pmusim_model_free(m);

    /* skid 3 on the last overflow of a 10-instruction trace: the 9th
     * (i = 8) has only i = 9 after it: ip 0x1024, skid 1, marked cut */
    m = wsm_inst();
    fd = session(m, MSR_PMC0, 9);
    CU_ASSERT_TRUE(pmusim_frontdoor_set_skid(fd, 3, NULL));
    t = x86_trace(10, 1);
    replay_text(fd, t);
    CU_ASSERT_EQUAL_FATAL(pmusim_frontdoor_n_samples(fd), 1);
    const pmusim_sample_t *s = pmusim_frontdoor_sample(fd, 0);
    CU_ASSERT_EQUAL(s->overflow_ip, 0x1020);
    CU_ASSERT_EQUAL(s->ip, 0x1024);
    CU_ASSERT_EQUAL(s->skid, 1);
    CU_ASSERT_NOT_EQUAL(s->flags & PMUSIM_SAMPLE_SKID_CUT, 0);
    g_free(t);
    pmusim_frontdoor_free(fd);
    pmusim_model_free(m);
}

static void test_skid_across_batches(void)
{
    /* The front door replays in batches of 1024 records.  One instruction
     * per cycle, period 1023, skid 2: the 1023rd instruction (i = 1022, ip
     * 0x1000 + 4 * 1022 = 0x1ff8) overflows at the end of the first batch,
     * and its sample lands on i = 1024 (0x2000), the first record of the
     * second batch; the 2046th (i = 2045, 0x2ff4) lands on i = 2047
     * (0x2ffc), the last record of the second batch.  3000 instructions:
     * 2 samples, none cut. */
    pmusim_model_t *m = wsm_inst();
    pmusim_frontdoor_t *fd = session(m, MSR_PMC0, 1023);
    CU_ASSERT_TRUE(pmusim_frontdoor_set_skid(fd, 2, NULL));
    char *t = x86_trace(3000, 1);
    replay_text(fd, t);
    CU_ASSERT_EQUAL_FATAL(pmusim_frontdoor_n_samples(fd), 2);
    const pmusim_sample_t *s0 = pmusim_frontdoor_sample(fd, 0);
    const pmusim_sample_t *s1 = pmusim_frontdoor_sample(fd, 1);
    CU_ASSERT_EQUAL(s0->overflow_ip, 0x1ff8);
    CU_ASSERT_EQUAL(s0->ip, 0x2000);
    CU_ASSERT_EQUAL(s0->skid, 2);
    CU_ASSERT_EQUAL(s1->overflow_ip, 0x2ff4);
    CU_ASSERT_EQUAL(s1->ip, 0x2ffc);
    CU_ASSERT_EQUAL(s1->skid, 2);
    CU_ASSERT_EQUAL((s0->flags | s1->flags) & PMUSIM_SAMPLE_SKID_CUT, 0);
    g_free(t);
    pmusim_frontdoor_free(fd);
    pmusim_model_free(m);
}

static void test_skid_ia64_bundles(void)
{
    /* ita2, one bundle (3 slots, one ip) per cycle, bundle c at 0x4000 +
     * 16 c, 5 cycles.  IA64_INST_RETIRED period 4, skid 2.  The 4th
     * instruction is slot 0 of cycle 1; the handler runs at the end of
     * cycle 1 (the reload drops the residual 2), its IP is the cycle's last
     * retirement (slot 2, the 6th instruction); two later: cycle 2 slot 1,
     * ip 0x4020.  4 more: instructions 7-9 (cycle 2) and 10 (cycle 3 slot
     * 0): overflow in cycle 3, anchor its slot 2 (12th), sample the 14th:
     * cycle 4 slot 1, ip 0x4040.  Cycle 4's 3 do not reach 4 again. */
    pmusim_model_t *m = model("ita2");
    wr(m, PMUSIM_REG_PMC, 4, IA64_PMC(0x08));
    pmusim_frontdoor_t *fd = session(m, 4, 4);
    CU_ASSERT_TRUE(pmusim_frontdoor_set_skid(fd, 2, NULL));
    GString *s = g_string_new("pmusim-trace 1\nisa ia64\ncpu ita2\nthreads 1\n");
    for (unsigned c = 0; c < 5; c++)
        for (unsigned slot = 0; slot < 3; slot++)
            g_string_append_printf(s, "%u 0 insn ip=0x%x slot=%u unit=I plm=3\n", c,
                                   0x4000 + 16 * c, slot);
    g_string_append(s, "end 15\n");
    replay_text(fd, s->str);
    CU_ASSERT_EQUAL_FATAL(pmusim_frontdoor_n_samples(fd), 2);
    CU_ASSERT_EQUAL(pmusim_frontdoor_sample(fd, 0)->cycle, 1);
    CU_ASSERT_EQUAL(pmusim_frontdoor_sample(fd, 0)->overflow_ip, 0x4010);
    CU_ASSERT_EQUAL(pmusim_frontdoor_sample(fd, 0)->ip, 0x4020);
    CU_ASSERT_EQUAL(pmusim_frontdoor_sample(fd, 1)->cycle, 3);
    CU_ASSERT_EQUAL(pmusim_frontdoor_sample(fd, 1)->ip, 0x4040);
    g_string_free(s, TRUE);
    pmusim_frontdoor_free(fd);
    pmusim_model_free(m);
}

/* ---- frequency mode ---- */

static void test_frequency_mode(void)
{
    /* A 1 GHz clock (1 cycle = 1 ns), one instruction per cycle, -F 10^8:
     * the ideal period is 10.  Linux starts at 1 and moves an eighth of the
     * way, rounded up: want = period_used * 10^9 / (ns since last * 10^8).
     *   sample at cycle 0: no time elapsed, period stays 1
     *   cycle 1: 1 ns for 1 -> want 10, 1 + (9 + 7) / 8 = 3
     *   cycle 4: 3 ns for 3 -> want 10, 3 + (7 + 7) / 8 = 4
     *   cycle 8 -> 5, 13 -> 6, 19 -> 7, 26 -> 8, 34 -> 9, 43 -> 10,
     *   cycle 53: (0 + 7) / 8 = 0, stays 10; 63, 73 ...
     * Each sample carries the period it stands for. */
    static const uint64_t cycles[] = {0, 1, 4, 8, 13, 19, 26, 34, 43, 53, 63, 73};
    static const uint64_t periods[] = {1, 1, 3, 4, 5, 6, 7, 8, 9, 10, 10, 10};
    pmusim_model_t *m = wsm_inst();
    pmusim_frontdoor_t *fd = session(m, MSR_PMC0, 1);
    CU_ASSERT_TRUE(pmusim_frontdoor_set_frequency(fd, 100000000u, 1000000000u, NULL));
    CU_ASSERT_TRUE(pmusim_frontdoor_set_skid(fd, 0, NULL));
    char *t = x86_trace(80, 1);
    replay_text(fd, t);
    CU_ASSERT_EQUAL_FATAL(pmusim_frontdoor_n_samples(fd), G_N_ELEMENTS(cycles));
    uint64_t sum = 0;
    for (size_t i = 0; i < G_N_ELEMENTS(cycles); i++) {
        const pmusim_sample_t *s = pmusim_frontdoor_sample(fd, i);
        CU_ASSERT_EQUAL(s->cycle, cycles[i]);
        CU_ASSERT_EQUAL(s->period, periods[i]);
        CU_ASSERT_EQUAL(s->ip, 0x1000 + 4 * cycles[i]);
        sum += s->period;
    }
    CU_ASSERT_EQUAL(sum, 74); /* the samples stand for instructions 1..74 */
    GError *e = NULL;
    CU_ASSERT_FALSE(pmusim_frontdoor_set_frequency(fd, 5, 1000, &e)); /* started */
    CU_ASSERT_TRUE(g_error_matches(e, PMUSIM_FRONTDOOR_ERROR, PMUSIM_FRONTDOOR_ERROR_STATE));
    g_clear_error(&e);
    g_free(t);
    pmusim_frontdoor_free(fd);
    pmusim_model_free(m);
}

/* ---- the interrupt bound (issue 15) ---- */

static void test_interrupt_limit(void)
{
    /* period 1 over 20 instructions with a limit of 5: samples at cycles
     * 0..4, then the counter restarts from 0 and counts the other 15
     * without an interrupt; the total stays exact. */
    pmusim_model_t *m = wsm_inst();
    pmusim_frontdoor_t *fd = session(m, MSR_PMC0, 1);
    pmusim_frontdoor_set_interrupt_limit(fd, 5);
    char *t = x86_trace(20, 1);
    replay_text(fd, t);
    uint64_t at = 0;
    CU_ASSERT_TRUE(pmusim_frontdoor_stopped(fd, &at));
    CU_ASSERT_EQUAL(at, 4);
    CU_ASSERT_EQUAL(pmusim_frontdoor_n_samples(fd), 5);
    CU_ASSERT_EQUAL(pmusim_frontdoor_interrupts(fd), 5);
    CU_ASSERT_EQUAL(pmusim_frontdoor_counter_total(fd, 0, 0), 20);
    uint64_t v = 0;
    CU_ASSERT_TRUE(m->ops->read_reg(m, PMUSIM_REG_MSR, MSR_PMC0, 0, &v));
    CU_ASSERT_EQUAL(v, 15);
    g_free(t);
    pmusim_frontdoor_free(fd);
    pmusim_model_free(m);
}

/* ---- fixed counters: -P at full width (SDM §18.2.2, issue 10) ---- */

static const pmusim_model_ops_t *real_ops;
static uint64_t last_fixed0_write;

static gboolean spy_write(pmusim_model_t *m, const pmusim_regwrite_t *w, GError **error)
{
    if (w->space == PMUSIM_REG_MSR && w->num == MSR_FIXED_CTR0)
        last_fixed0_write = w->value;
    return real_ops->write_reg(m, w, error);
}

static void test_fixed_reload_full_width(void)
{
    /* Linux writes a fixed counter with -P masked to the counter width
     * (48 bits on wsm): 2^48 - 7, not the 32-bit 2^32 - 7 of IA32_PMCi. */
    pmusim_model_t *m = model("wsm");
    real_ops = m->ops;
    pmusim_model_ops_t spy = *m->ops;
    spy.write_reg = spy_write;
    m->ops = &spy;
    wr(m, PMUSIM_REG_MSR, MSR_FIXED_CTR_CTRL, 0x3); /* FIXED_CTR0: OS + USR */
    wr(m, PMUSIM_REG_MSR, MSR_GLOBAL_CTRL, UINT64_C(1) << 32);
    pmusim_frontdoor_t *fd = session(m, MSR_FIXED_CTR0, 7);
    char *t = x86_trace(15, 1);
    replay_text(fd, t);
    CU_ASSERT_EQUAL(last_fixed0_write, (UINT64_C(1) << 48) - 7);
    /* instructions 7 and 14 (cycles 6, 13) */
    CU_ASSERT_EQUAL_FATAL(pmusim_frontdoor_n_samples(fd), 2);
    CU_ASSERT_EQUAL(pmusim_frontdoor_sample(fd, 1)->cycle, 13);
    g_free(t);
    pmusim_frontdoor_free(fd);
    m->ops = real_ops;
    pmusim_model_free(m);
}

/* ---- D-EAR data in IA-64 samples ---- */

static void test_dear_sample(void)
{
    /* ita2: D-EAR in cache mode, latency >= 4 (PMC11 = plm level 3), and
     * PMD4 counting DATA_EAR_EVENTS (0xc8) with period 2.  Cycles 0..5 each
     * retire a load; those of cycles 1, 3, 4 miss L1D (latencies 9, 12,
     * 30): the 2nd capture (cycle 3, address 0x6000030, latency 12) is the
     * sample's. */
    pmusim_model_t *m = model("ita2");
    wr(m, PMUSIM_REG_PMC, 11, 0x8);
    wr(m, PMUSIM_REG_PMC, 4, IA64_PMC(0xc8));
    pmusim_frontdoor_t *fd = session(m, 4, 2);
    CU_ASSERT_TRUE(pmusim_frontdoor_set_skid(fd, 0, NULL));
    static const char *const lvl[] = {"l1d", "l2", "l1d", "l2", "l3", "l1d"};
    static const unsigned lat[] = {1, 9, 1, 12, 30, 1};
    GString *s = g_string_new("pmusim-trace 1\nisa ia64\ncpu ita2\nthreads 1\n");
    for (unsigned c = 0; c < 6; c++)
        g_string_append_printf(s,
                               "%u 0 insn ip=0x%x slot=0 unit=M plm=3 mem=ld addr=0x%x size=8 "
                               "lvl=%s lat=%u tlb=l1\n",
                               c, 0x4000 + 16 * c, 0x6000000 + 16 * c, lvl[c], lat[c]);
    g_string_append(s, "end 6\n");
    replay_text(fd, s->str);
    CU_ASSERT_EQUAL_FATAL(pmusim_frontdoor_n_samples(fd), 1);
    const pmusim_sample_t *smp = pmusim_frontdoor_sample(fd, 0);
    CU_ASSERT_EQUAL(smp->cycle, 3);
    CU_ASSERT_EQUAL(smp->flags & (PMUSIM_SAMPLE_ADDR | PMUSIM_SAMPLE_WEIGHT),
                    PMUSIM_SAMPLE_ADDR | PMUSIM_SAMPLE_WEIGHT);
    CU_ASSERT_EQUAL(smp->addr, 0x6000030);
    CU_ASSERT_EQUAL(smp->weight, 12);
    g_string_free(s, TRUE);
    pmusim_frontdoor_free(fd);
    pmusim_model_free(m);
}

/* ---- perf.data ---- */

static void test_perfdata_round_trip(void)
{
    pd_file_t f, g;
    pd_file_init(&f);
    pd_event_t e = {.name = "cycles", .type = PD_TYPE_HARDWARE, .config = 0, .period = 4000,
                    .freq = TRUE, .id = 7};
    g_array_append_val(f.events, e);
    pd_file_add_comm(&f, 42, 43, "prog");
    pd_file_add_mmap(&f, 42, 42, 0x400000, 0x1000, 0, "/bin/prog");
    pd_sample_t s = {.id = 7, .ip = 0x400123, .pid = 42, .tid = 43, .time = 99, .addr = 0x7f00,
                     .period = 4000, .weight = 12,
                     .data_src = pd_data_src(PMUSIM_LVL_L3, FALSE, PMUSIM_TLB_L1_HIT)};
    g_array_append_val(f.samples, s);
    g_string_append(f.truth, "symbol\t400100\t400200\tmain\n");
    GBytes *b = pd_file_serialise(&f);
    gsize n;
    const uint8_t *p = g_bytes_get_data(b, &n);
    /* the data section follows the header (104), one attribute entry (144)
     * and its id (8); it holds COMM (8 + 8 + 8 + 24), MMAP (8 + 32 + 16 +
     * 24) and SAMPLE (8 + 64): 200 bytes */
    CU_ASSERT_EQUAL(p[0], 'P');
    CU_ASSERT_EQUAL(memcmp(p, "PERFILE2", 8), 0);
    CU_ASSERT_EQUAL(p[40] | p[41] << 8, 104 + 144 + 8); /* data offset */
    CU_ASSERT_EQUAL(p[48] | p[49] << 8, 48 + 80 + 72);  /* data size */
    pd_file_init(&g);
    GError *err = NULL;
    CU_ASSERT_TRUE_FATAL(pd_file_parse(&g, p, n, "mem", &err));
    CU_ASSERT_EQUAL_FATAL(g.events->len, 1);
    const pd_event_t *ge = &g_array_index(g.events, pd_event_t, 0);
    CU_ASSERT_STRING_EQUAL(ge->name, "cycles");
    CU_ASSERT_EQUAL(ge->id, 7);
    CU_ASSERT_TRUE(ge->freq);
    CU_ASSERT_EQUAL(ge->period, 4000);
    CU_ASSERT_EQUAL_FATAL(g.samples->len, 1);
    const pd_sample_t *gs = &g_array_index(g.samples, pd_sample_t, 0);
    CU_ASSERT_EQUAL(gs->ip, 0x400123);
    CU_ASSERT_EQUAL(gs->tid, 43);
    CU_ASSERT_EQUAL(gs->addr, 0x7f00);
    CU_ASSERT_EQUAL(gs->weight, 12);
    CU_ASSERT_EQUAL(gs->data_src, s.data_src);
    CU_ASSERT_STRING_EQUAL(g_array_index(g.comms, pd_comm_t, 0).comm, "prog");
    CU_ASSERT_STRING_EQUAL(g_array_index(g.mmaps, pd_mmap_t, 0).filename, "/bin/prog");
    CU_ASSERT_STRING_EQUAL(g.truth->str, f.truth->str);
    char txt[96];
    pd_data_src_text(gs->data_src, txt, sizeof txt);
    CU_ASSERT_STRING_EQUAL(txt, "load L3 hit");
    /* a cut file: the data section runs past the end */
    pd_file_t h;
    pd_file_init(&h);
    CU_ASSERT_FALSE(pd_file_parse(&h, p, 300, "cut", &err));
    CU_ASSERT_STRING_EQUAL(err->message,
                           "cut: the data section at byte 256 (200 bytes) runs past the end of "
                           "the file (300 bytes)");
    g_clear_error(&err);
    CU_ASSERT_FALSE(pd_file_parse(&h, (const uint8_t *)"PERFILE1", 8, "x", &err));
    CU_ASSERT_TRUE(g_error_matches(err, PD_ERROR, PD_ERROR_FORMAT));
    g_clear_error(&err);
    pd_file_clear(&h);
    pd_file_clear(&g);
    pd_file_clear(&f);
    g_bytes_unref(b);
}

static void test_data_src_bits(void)
{
    /* union perf_mem_data_src: op LOAD 0x2 (bits 4:0); lvl HIT|L1 = 0xa
     * << 5; snoop NA 1 << 19; lock NA 1 << 24; dtlb HIT|L1 = 0xa << 26;
     * lvl_num L1 = 1 << 33 */
    CU_ASSERT_EQUAL(pd_data_src(PMUSIM_LVL_L1D, FALSE, PMUSIM_TLB_L1_HIT),
                    UINT64_C(0x2) | UINT64_C(0xa) << 5 | UINT64_C(1) << 19 | UINT64_C(1) << 24 |
                        UINT64_C(0xa) << 26 | UINT64_C(1) << 33);
    /* store to remote DRAM after a page walk: STORE 0x4; HIT|REM_RAM1
     * 0x102; dtlb MISS|WK 0x24; lvl_num RAM 0xd; remote bit 37 */
    CU_ASSERT_EQUAL(pd_data_src(PMUSIM_LVL_REMOTE_DRAM, TRUE, PMUSIM_TLB_WALK),
                    UINT64_C(0x4) | UINT64_C(0x102) << 5 | UINT64_C(1) << 19 |
                        UINT64_C(1) << 24 | UINT64_C(0x24) << 26 | UINT64_C(0xd) << 33 |
                        UINT64_C(1) << 37);
    /* a load that hit a line fill buffer (session 19): HIT|LFB 0x12;
     * lvl_num LFB 0xc (perf_event.h PERF_MEM_LVL_LFB, PERF_MEM_LVLNUM_LFB) */
    CU_ASSERT_EQUAL(pd_data_src(PMUSIM_LVL_LFB, FALSE, PMUSIM_TLB_L1_HIT),
                    UINT64_C(0x2) | UINT64_C(0x12) << 5 | UINT64_C(1) << 19 | UINT64_C(1) << 24 |
                        UINT64_C(0xa) << 26 | UINT64_C(0xc) << 33);
    char txt[128];
    pd_data_src_text(pd_data_src(PMUSIM_LVL_LFB, FALSE, PMUSIM_TLB_L1_HIT), txt, sizeof txt);
    CU_ASSERT_STRING_EQUAL(txt, "load LFB hit");
}

static void test_symbols_any_nesting(void)
{
    /* 100 nested ranges s_i = [i, 1000 - i): the innermost holding ip wins */
    pd_symbols_t t;
    pd_symbols_init(&t);
    for (unsigned i = 0; i < 100; i++) {
        char name[16];
        g_snprintf(name, sizeof name, "s_%u", i);
        pd_symbols_add(&t, i, 1000 - i, name);
    }
    pd_symbols_finish(&t);
    CU_ASSERT_STRING_EQUAL(pd_symbol_find(&t, 500)->name, "s_99");
    CU_ASSERT_STRING_EQUAL(pd_symbol_find(&t, 50)->name, "s_50");
    CU_ASSERT_STRING_EQUAL(pd_symbol_find(&t, 999)->name, "s_0");
    CU_ASSERT_PTR_NULL(pd_symbol_find(&t, 1000));
    pd_symbols_clear(&t);
    /* an outer range behind 70 small ones that end before ip (issue 15:
     * record gave up after 64) */
    pd_symbols_init(&t);
    pd_symbols_add(&t, 0, 10000, "outer");
    for (unsigned i = 1; i <= 70; i++)
        pd_symbols_add(&t, 10 * i, 10 * i + 5, "inner");
    pd_symbols_finish(&t);
    CU_ASSERT_STRING_EQUAL(pd_symbol_find(&t, 9995)->name, "outer");
    CU_ASSERT_STRING_EQUAL(pd_symbol_find(&t, 702)->name, "inner");
    char buf[64];
    pd_symbol_text(&t, 9995, buf, sizeof buf);
    CU_ASSERT_STRING_EQUAL(buf, "outer+0x270b");
    pd_symbols_clear(&t);
}

static void le(uint8_t *p, uint64_t v, unsigned n)
{
    for (unsigned i = 0; i < n; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

static void test_perfdata_plain_perf_file(void)
{
    /* The shape `perf record -e task-clock` writes for one event: a VER8
     * attribute (136 bytes + ids section), sample_type IP | TID | PERIOD
     * (no ID, no IDENTIFIER: the samples are the one event's), its id 42,
     * COMM twice for one thread (exec renames it), one sample. */
    uint8_t f[104 + 152 + 8 + 2 * 32 + 32] = {0};
    le(f, UINT64_C(0x32454c4946524550), 8);
    le(f + 8, 104, 8);
    le(f + 16, 152, 8);           /* attr_size */
    le(f + 24, 104, 8);           /* attrs */
    le(f + 32, 152, 8);
    le(f + 40, 264, 8);           /* data */
    le(f + 48, 2 * 32 + 32, 8);
    uint8_t *a = f + 104;
    le(a, 1, 4);                  /* PERF_TYPE_SOFTWARE */
    le(a + 4, 136, 4);
    le(a + 16, 4000, 8);          /* sample_period */
    le(a + 24, 0x103, 8);         /* IP | TID | PERIOD */
    le(a + 136, 256, 8);          /* ids */
    le(a + 144, 8, 8);
    le(f + 256, 42, 8);
    uint8_t *d = f + 264;
    for (int k = 0; k < 2; k++, d += 32) {
        le(d, 3, 4);              /* PERF_RECORD_COMM */
        le(d + 6, 32, 2);
        le(d + 8, 7, 4);
        le(d + 12, 7, 4);
        memcpy(d + 16, k ? "ls" : "perf-exec", k ? 3 : 10);
    }
    le(d, 9, 4);                  /* PERF_RECORD_SAMPLE */
    le(d + 6, 32, 2);
    le(d + 8, 0x401234, 8);
    le(d + 16, 7 | UINT64_C(7) << 32, 8);
    le(d + 24, 4000, 8);
    pd_file_t pf;
    pd_file_init(&pf);
    GError *e = NULL;
    CU_ASSERT_TRUE_FATAL(pd_file_parse(&pf, f, sizeof f, "perf", &e));
    CU_ASSERT_EQUAL_FATAL(pf.samples->len, 1);
    const pd_sample_t *smp = &g_array_index(pf.samples, pd_sample_t, 0);
    CU_ASSERT_EQUAL(smp->ip, 0x401234);
    CU_ASSERT_EQUAL(smp->period, 4000);
    CU_ASSERT_EQUAL(smp->id, 42); /* the one event's, though the sample names none */
    CU_ASSERT_EQUAL(smp->data_src, 0);
    CU_ASSERT_STRING_EQUAL(pd_comm_of(&pf, 7), "ls");
    CU_ASSERT_STRING_EQUAL(pd_event_name(&pf, smp->id), "type 0x0");
    pd_file_clear(&pf);
}

static void register_suites(void);
#include "cu_main.h"

static void register_suites(void)
{
    CU_pSuite s = CU_add_suite("sampling_skid", NULL, NULL);
    PMUSIM_ADD_TEST(s, test_skid_one_per_cycle);
    PMUSIM_ADD_TEST(s, test_skid_inside_cycle_and_cut);
    PMUSIM_ADD_TEST(s, test_skid_across_batches);
    PMUSIM_ADD_TEST(s, test_skid_ia64_bundles);
    s = CU_add_suite("sampling_modes", NULL, NULL);
    PMUSIM_ADD_TEST(s, test_frequency_mode);
    PMUSIM_ADD_TEST(s, test_interrupt_limit);
    PMUSIM_ADD_TEST(s, test_fixed_reload_full_width);
    PMUSIM_ADD_TEST(s, test_dear_sample);
    s = CU_add_suite("perfdata", NULL, NULL);
    PMUSIM_ADD_TEST(s, test_perfdata_round_trip);
    PMUSIM_ADD_TEST(s, test_data_src_bits);
    PMUSIM_ADD_TEST(s, test_symbols_any_nesting);
    PMUSIM_ADD_TEST(s, test_perfdata_plain_perf_file);
}
