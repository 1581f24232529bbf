/* Unit tests for the microarchitecture model (include/pmusim/uarch.h).
 * Every expected count is derived by hand from the access pattern and the
 * geometry; the derivation is in the comment above each assertion. */
#include "cu_main.h"
#include "pmusim/uarch.h"
#include "rec_equal.h"

#include <string.h>

typedef struct collect {
    GArray *recs;
} collect_t;

static gboolean collect_sink(const pmusim_rec_t *recs, size_t n, void *user, GError **error)
{
    collect_t *c = user;
    g_array_append_vals(c->recs, recs, (guint)n);
    return TRUE;
}

static pmusim_uarch_t *model(pmusim_cpu_t cpu, uint32_t threads, const char *const *opts,
                             collect_t *c)
{
    pmusim_uarch_options_t o;
    pmusim_uarch_options_init(&o);
    for (; opts && *opts; opts++) {
        gboolean used = FALSE;
        GError *e = NULL;
        CU_ASSERT_TRUE_FATAL(pmusim_uarch_options_parse(&o, *opts, &used, &e));
        CU_ASSERT_TRUE(used);
    }
    c->recs = g_array_new(FALSE, FALSE, sizeof(pmusim_rec_t));
    GError *e = NULL;
    pmusim_uarch_t *u = pmusim_uarch_new(cpu, threads, &o, collect_sink, c, &e);
    CU_ASSERT_PTR_NOT_NULL_FATAL(u);
    return u;
}

static void done(pmusim_uarch_t *u, collect_t *c)
{
    pmusim_uarch_free(u);
    g_array_free(c->recs, TRUE);
}

/* One instruction at `ip` on `thread` with one access (size 0 = none),
 * its address depending on the load `dep` loads back (0 none). */
static void run(pmusim_uarch_t *u, uint32_t thread, uint64_t ip, uint64_t addr, uint32_t size,
                gboolean store, unsigned dep)
{
    pmusim_uarch_access_t a = { .addr = addr, .size = size, .is_store = (uint8_t)store,
                                .addr_dep = (uint8_t)dep };
    pmusim_uarch_insn_t in = { .ip = ip, .thread = (uint8_t)thread, .plm = 3, .len = 4,
                               .naccess = size ? 1 : 0, .access = &a };
    GError *e = NULL;
    CU_ASSERT_TRUE_FATAL(pmusim_uarch_insn(u, &in, &e));
}

static void finish(pmusim_uarch_t *u)
{
    GError *e = NULL;
    CU_ASSERT_TRUE_FATAL(pmusim_uarch_finish(u, &e));
}

static const pmusim_rec_t *rec(const collect_t *c, guint i)
{
    return &g_array_index(c->recs, pmusim_rec_t, i);
}

/* The n-th INSN record (0-based), or NULL. */
static const pmusim_rec_t *insn(const collect_t *c, guint n)
{
    for (guint i = 0; i < c->recs->len; i++)
        if (rec(c, i)->kind == PMUSIM_REC_INSN && n-- == 0)
            return rec(c, i);
    return NULL;
}

/* The level at which the caches found the line of r's access: a load
 * that hit a line fill buffer (PMUSIM_LVL_LFB) found it in the L1D, where
 * the model installs a line at its miss.  The cache tests below assert the
 * lookups; test_lfb_hits asserts the fill buffers. */
static unsigned lookup(const pmusim_rec_t *r)
{
    return r->mem.level == PMUSIM_LVL_LFB ? PMUSIM_LVL_L1D : r->mem.level;
}

static guint count_level(const collect_t *c, int min_level)
{
    guint k = 0;
    for (guint i = 0; i < c->recs->len; i++) {
        const pmusim_rec_t *r = rec(c, i);
        if ((r->kind == PMUSIM_REC_INSN && (r->flags & PMUSIM_F_MEM)) || r->kind == PMUSIM_REC_MEM)
            k += lookup(r) >= (unsigned)min_level;
    }
    return k;
}

static void assert_cycle_order(const collect_t *c)
{
    for (guint i = 1; i < c->recs->len; i++)
        CU_ASSERT_TRUE_FATAL(rec(c, i)->cycle >= rec(c, i - 1)->cycle);
}

/* A sequential stream of 8-byte loads over N bytes with 64-byte lines:
 * every 8th load opens a new line, so N/64 L1D misses; the lines were never
 * touched, so each misses L2 (256 KiB < N) and the 4 MB L3 as well. */
static void test_stream_misses_n_over_64(void)
{
    collect_t c;
    pmusim_uarch_t *u = model(PMUSIM_CPU_WSM, 1, NULL, &c);
    const uint64_t n = 1u << 20;
    for (uint64_t a = 0; a < n; a += 8)
        run(u, 0, 0x401000, 0x10000000 + a, 8, FALSE, FALSE);
    finish(u);
    pmusim_uarch_stats_t st;
    pmusim_uarch_get_stats(u, &st);
    CU_ASSERT_EQUAL(st.d1_access, n / 8);
    CU_ASSERT_EQUAL(st.d1_miss, n / 64);
    CU_ASSERT_EQUAL(count_level(&c, PMUSIM_LVL_L2), n / 64);
    CU_ASSERT_EQUAL(count_level(&c, PMUSIM_LVL_LOCAL_DRAM), n / 64);
    assert_cycle_order(&c);
    done(u, &c);
}

/* 16 KiB read ten times fits the 32 KiB L1D: only the 256 cold misses. */
static void test_fitting_set_misses_only_cold(void)
{
    collect_t c;
    pmusim_uarch_t *u = model(PMUSIM_CPU_WSM, 1, NULL, &c);
    for (int pass = 0; pass < 10; pass++)
        for (uint64_t a = 0; a < 16384; a += 8)
            run(u, 0, 0x401000, 0x20000000 + a, 8, FALSE, FALSE);
    finish(u);
    pmusim_uarch_stats_t st;
    pmusim_uarch_get_stats(u, &st);
    CU_ASSERT_EQUAL(st.d1_miss, 16384 / 64);
    CU_ASSERT_EQUAL(count_level(&c, PMUSIM_LVL_L2), 256);
    done(u, &c);
}

/* A pointer chase over a random cycle of lines spanning 8x the LL
 * (256 KiB LL, I1/D1 -> LL): the second lap finds each line last touched
 * 32768 steps earlier, after 8x the LL's capacity of other lines, so every
 * step misses the LL (>= 99 %); and the steps are dependent, so each costs
 * at least the DRAM latency. */
static void test_pointer_chase_misses_ll(void)
{
    static const char *const opts[] = { "--LL=262144,16,64", "--L2=none", NULL };
    collect_t c;
    pmusim_uarch_t *u = model(PMUSIM_CPU_WSM, 1, opts, &c);
    const uint32_t lines = 8 * 262144 / 64;
    uint32_t *next = g_new(uint32_t, lines);
    uint32_t *perm = g_new(uint32_t, lines);
    for (uint32_t i = 0; i < lines; i++)
        perm[i] = i;
    uint64_t s = 12345;
    for (uint32_t i = lines - 1; i > 0; i--) { /* Fisher-Yates with an LCG */
        s = s * 6364136223846793005u + 1442695040888963407u;
        uint32_t j = (uint32_t)((s >> 33) % (i + 1));
        uint32_t t = perm[i];
        perm[i] = perm[j];
        perm[j] = t;
    }
    for (uint32_t i = 0; i < lines; i++)
        next[perm[i]] = perm[(i + 1) % lines];
    uint32_t p = perm[0];
    for (uint32_t step = 0; step < 2 * lines; step++) {
        run(u, 0, 0x401000, 0x40000000 + (uint64_t)p * 64, 8, FALSE, TRUE);
        p = next[p];
    }
    finish(u);
    pmusim_uarch_stats_t st;
    pmusim_uarch_get_stats(u, &st);
    CU_ASSERT_TRUE(st.ll_miss * 100 >= (uint64_t)2 * lines * 99);
    CU_ASSERT_TRUE(st.cycles >= (uint64_t)2 * lines * 271);
    g_free(next);
    g_free(perm);
    done(u, &c);
}

/* Runs 8-byte loads at 0x50000000 + off[i] on a D1 of 2 sets x 2 ways
 * (64-byte lines: offsets 0x0, 0x80, 0x100 all map to set 0). */
static pmusim_uarch_t *run_two_way(const uint64_t *off, size_t n, collect_t *c)
{
    static const char *const opts[] = { "--D1=256,2,64", NULL };
    pmusim_uarch_t *u = model(PMUSIM_CPU_WSM, 1, opts, c);
    for (size_t i = 0; i < n; i++)
        run(u, 0, 0x401000, 0x50000000 + off[i], 8, FALSE, FALSE);
    finish(u);
    return u;
}

/* A B C A B C: with LRU and 2 ways each access evicts the next one needed,
 * so all 6 miss; A B A B A B: 2 cold misses, then hits. */
static void test_two_way_conflicts(void)
{
    static const uint64_t abc[] = { 0x0, 0x80, 0x100, 0x0, 0x80, 0x100 };
    static const uint64_t ab[] = { 0x0, 0x80, 0x0, 0x80, 0x0, 0x80 };
    collect_t c;
    pmusim_uarch_stats_t st;
    pmusim_uarch_t *u = run_two_way(abc, G_N_ELEMENTS(abc), &c);
    pmusim_uarch_get_stats(u, &st);
    CU_ASSERT_EQUAL(st.d1_miss, 6);
    done(u, &c);
    u = run_two_way(ab, G_N_ELEMENTS(ab), &c);
    pmusim_uarch_get_stats(u, &st);
    CU_ASSERT_EQUAL(st.d1_miss, 2);
    done(u, &c);
}

/* LRU order in a 2-way set: A B A C evicts B (A was used after B), so the
 * following A hits and B misses. */
static void test_lru_order(void)
{
    static const uint64_t seq[] = { 0x0, 0x80, 0x0, 0x100, 0x0, 0x80 };
    collect_t c;
    pmusim_uarch_t *u = run_two_way(seq, G_N_ELEMENTS(seq), &c);
    CU_ASSERT_EQUAL(lookup(insn(&c, 2)), PMUSIM_LVL_L1D); /* A again */
    CU_ASSERT_NOT_EQUAL(lookup(insn(&c, 3)), PMUSIM_LVL_L1D); /* C: cold */
    CU_ASSERT_EQUAL(lookup(insn(&c, 4)), PMUSIM_LVL_L1D); /* A survived */
    CU_ASSERT_NOT_EQUAL(lookup(insn(&c, 5)), PMUSIM_LVL_L1D); /* B was evicted */
    done(u, &c);
}

/* Accesses to the line of the previous access (the model's one-line filter
 * of its fast path) keep the LRU order, the dirty bit and inclusion exact.
 * 2-way sets of 2 (--D1=256,2,64): A A B A C A B: A's second access is an
 * MRU hit, B misses ([B A]), A hits in the second way and becomes MRU
 * ([A B]), C evicts B ([C A]), A hits, B misses (C B evicts nothing of
 * interest).  Loads A A, store A, loads B C: C evicts A, modified by the
 * store on the same line: one L1D M eviction (0x51/0x04).  An instruction
 * fetched from a line of A's set of the direct-mapped inclusive L3 (--LL=
 * 4096,1,64) evicts A there and so from the L1D: A's next load, on the
 * line of the previous access, goes to memory (the data's ITLB set is
 * not the fetched line's: the fast path runs that load).  An access
 * straddling B and the next line, then A A' C A: A is MRU when C comes. */
static void test_same_line_lru_dirty_inclusion(void)
{
    static const uint64_t seq[] = { 0x0, 0x0, 0x80, 0x0, 0x100, 0x0, 0x80 };
    collect_t c;
    pmusim_uarch_t *u = run_two_way(seq, G_N_ELEMENTS(seq), &c);
    CU_ASSERT_NOT_EQUAL(lookup(insn(&c, 0)), PMUSIM_LVL_L1D);
    CU_ASSERT_EQUAL(lookup(insn(&c, 1)), PMUSIM_LVL_L1D);
    CU_ASSERT_NOT_EQUAL(lookup(insn(&c, 2)), PMUSIM_LVL_L1D);
    CU_ASSERT_EQUAL(lookup(insn(&c, 3)), PMUSIM_LVL_L1D);
    CU_ASSERT_NOT_EQUAL(lookup(insn(&c, 4)), PMUSIM_LVL_L1D);
    CU_ASSERT_EQUAL(lookup(insn(&c, 5)), PMUSIM_LVL_L1D); /* A was MRU when C came */
    CU_ASSERT_NOT_EQUAL(lookup(insn(&c, 6)), PMUSIM_LVL_L1D); /* B was evicted */
    done(u, &c);

    static const char *const two[] = { "--D1=256,2,64", NULL };
    u = model(PMUSIM_CPU_WSM, 1, two, &c);
    run(u, 0, 0x401000, 0x50000000, 8, FALSE, FALSE);
    run(u, 0, 0x401000, 0x50000008, 8, FALSE, FALSE);
    run(u, 0, 0x401000, 0x50000010, 8, TRUE, FALSE);
    run(u, 0, 0x401000, 0x50000080, 8, FALSE, FALSE);
    run(u, 0, 0x401000, 0x50000100, 8, FALSE, FALSE);
    finish(u);
    uint64_t m_evict = 0;
    for (guint i = 0; i < c.recs->len; i++)
        if (rec(&c, i)->kind == PMUSIM_REC_EVENT && rec(&c, i)->ev_code == 0x51 &&
            rec(&c, i)->ev_umask == 0x04)
            m_evict += rec(&c, i)->n;
    CU_ASSERT_EQUAL(m_evict, 1);
    done(u, &c);

    static const char *const incl[] = { "--D1=1024,2,64", "--L2=2048,2,64", "--LL=4096,1,64",
                                        NULL };
    u = model(PMUSIM_CPU_WSM, 1, incl, &c);
    run(u, 0, 0x402040, 0x70000000, 8, FALSE, FALSE);
    run(u, 0, 0x402040, 0x70000000, 8, FALSE, FALSE);
    run(u, 0, 0x70001000, 0, 0, FALSE, FALSE);
    run(u, 0, 0x402040, 0x70000000, 8, FALSE, FALSE);
    finish(u);
    CU_ASSERT_EQUAL(lookup(insn(&c, 1)), PMUSIM_LVL_L1D);
    CU_ASSERT_EQUAL(lookup(insn(&c, 3)), PMUSIM_LVL_LOCAL_DRAM);
    done(u, &c);

    /* an access straddling B and the next line moves B in front of A */
    u = model(PMUSIM_CPU_WSM, 1, two, &c);
    run(u, 0, 0x401000, 0x50000000, 8, FALSE, FALSE);
    run(u, 0, 0x401000, 0x50000000, 8, FALSE, FALSE);
    run(u, 0, 0x401000, 0x50000080 + 60, 8, FALSE, FALSE);
    run(u, 0, 0x401000, 0x50000000, 8, FALSE, FALSE);
    run(u, 0, 0x401000, 0x50000100, 8, FALSE, FALSE);
    run(u, 0, 0x401000, 0x50000000, 8, FALSE, FALSE);
    finish(u);
    CU_ASSERT_EQUAL(lookup(insn(&c, 5)), PMUSIM_LVL_L1D); /* A was MRU when C came */
    done(u, &c);
}

/* Line fill buffers (docs/UARCH.md §1 "Line fill buffers"), wsm (10
 * buffers, 64-byte lines, L1D 4 cycles, DRAM 271 cycles on the one-socket
 * wsm, a DTLB walk 7 + 23 more).  Instructions of 4 bytes from 0x401000, all
 * in one fetch line, dispatch 4 a cycle (width 4), so instruction k
 * dispatches at d + k / 4; a load that starts before its line's fill is in
 * hits the fill buffer: level lfb, its latency the rest of the fill's. */
static void test_lfb_hits(void)
{
    /* (a) a miss, then an independent load to its line in the same cycle:
     * lfb with the miss's latency; a load whose address depends on it
     * starts when the fill is in: the L1D.  A load of a line whose fill
     * ended before it starts (line 2, after the dependent one): the L1D. */
    collect_t c;
    pmusim_uarch_t *u = model(PMUSIM_CPU_WSM, 1, NULL, &c);
    run(u, 0, 0x401000, 0x10000000, 8, FALSE, FALSE);
    run(u, 0, 0x401004, 0x10000008, 8, FALSE, FALSE);
    run(u, 0, 0x401008, 0x10000010, 8, FALSE, TRUE);
    finish(u);
    const uint32_t miss = 271 + 7 + 23; /* DRAM and the page's walk */
    CU_ASSERT_EQUAL(insn(&c, 0)->mem.level, PMUSIM_LVL_LOCAL_DRAM);
    CU_ASSERT_EQUAL(insn(&c, 0)->mem.latency, miss);
    CU_ASSERT_EQUAL(insn(&c, 1)->mem.level, PMUSIM_LVL_LFB);
    CU_ASSERT_EQUAL(insn(&c, 1)->mem.latency, miss);
    CU_ASSERT_EQUAL(insn(&c, 2)->mem.level, PMUSIM_LVL_L1D);
    CU_ASSERT_EQUAL(insn(&c, 2)->mem.latency, 4);
    done(u, &c);

    /* (b) a store's miss takes a buffer too (its read for ownership from
     * its dispatch): a load to its line in the same cycle waits for it; a
     * store to a line being filled stays l1d (only loads hit a buffer) */
    u = model(PMUSIM_CPU_WSM, 1, NULL, &c);
    run(u, 0, 0x401000, 0x10000000, 8, TRUE, FALSE);
    run(u, 0, 0x401004, 0x10000008, 8, FALSE, FALSE);
    run(u, 0, 0x401008, 0x10000010, 8, TRUE, FALSE);
    finish(u);
    CU_ASSERT_EQUAL(insn(&c, 0)->mem.level, PMUSIM_LVL_LOCAL_DRAM);
    CU_ASSERT_EQUAL(insn(&c, 1)->mem.level, PMUSIM_LVL_LFB);
    CU_ASSERT_EQUAL(insn(&c, 1)->mem.latency, miss);
    CU_ASSERT_EQUAL(insn(&c, 2)->mem.level, PMUSIM_LVL_L1D);
    done(u, &c);

    /* (c) eleven misses to lines 0-10 of one page (instructions 0-10;
     * line 0 walks: its fill ends at d + 301, lines 1-3 at d + 271, 4-7 at
     * d + 272, 8-9 at d + 273): the eleventh, dispatched at d + 2, finds
     * the ten buffers busy and waits for the first to be free, line 1's at
     * d + 271 (the lowest of 1-3): its latency 271 + 269 = 540.  Then a
     * load of line 0 (instruction 11, d + 2) hits its buffer with 299
     * cycles left; one of line 1 (instruction 12, d + 3), whose buffer
     * line 10 took, reads as the L1D hit the lookup found */
    u = model(PMUSIM_CPU_WSM, 1, NULL, &c);
    for (uint64_t k = 0; k < 11; k++)
        run(u, 0, 0x401000 + 4 * k, 0x10000000 + 64 * k, 8, FALSE, FALSE);
    run(u, 0, 0x40102c, 0x10000000, 8, FALSE, FALSE);
    run(u, 0, 0x401030, 0x10000040, 8, FALSE, FALSE);
    finish(u);
    for (guint k = 1; k < 10; k++) {
        CU_ASSERT_EQUAL(insn(&c, k)->mem.level, PMUSIM_LVL_LOCAL_DRAM);
        CU_ASSERT_EQUAL(insn(&c, k)->mem.latency, 271);
    }
    CU_ASSERT_EQUAL(insn(&c, 10)->mem.level, PMUSIM_LVL_LOCAL_DRAM);
    CU_ASSERT_EQUAL(insn(&c, 10)->mem.latency, 540);
    CU_ASSERT_EQUAL(insn(&c, 11)->mem.level, PMUSIM_LVL_LFB);
    CU_ASSERT_EQUAL(insn(&c, 11)->mem.latency, 299);
    CU_ASSERT_EQUAL(insn(&c, 12)->mem.level, PMUSIM_LVL_L1D);
    CU_ASSERT_EQUAL(insn(&c, 12)->mem.latency, 4);
    /* the first retires when its data come, at d + 301, the eleventh at
     * d + 542 (without the limit it would have retired 2 cycles after the
     * first, with lines 8-9) */
    CU_ASSERT_EQUAL(insn(&c, 10)->cycle - insn(&c, 0)->cycle, 542 - 301);
    done(u, &c);

    /* (d) Knights Mill has no fill-buffer model (no source for its count,
     * no event): the same pair as (a) reads l1d */
    u = model(PMUSIM_CPU_KNM, 1, NULL, &c);
    run(u, 0, 0x401000, 0x10000000, 8, FALSE, FALSE);
    run(u, 0, 0x401004, 0x10000008, 8, FALSE, FALSE);
    finish(u);
    CU_ASSERT_NOT_EQUAL(insn(&c, 0)->mem.level, PMUSIM_LVL_L1D);
    CU_ASSERT_EQUAL(insn(&c, 1)->mem.level, PMUSIM_LVL_L1D);
    done(u, &c);
}

/* An 8-byte load at offset 60 of a line touches two lines: one reference,
 * one miss (cachegrind's count), and both lines are then resident. */
static void test_straddling_access(void)
{
    collect_t c;
    pmusim_uarch_t *u = model(PMUSIM_CPU_WSM, 1, NULL, &c);
    run(u, 0, 0x401000, 0x60000000 + 60, 8, FALSE, FALSE);
    run(u, 0, 0x401000, 0x60000000, 8, FALSE, FALSE);
    run(u, 0, 0x401000, 0x60000000 + 64, 8, FALSE, FALSE);
    finish(u);
    pmusim_uarch_stats_t st;
    pmusim_uarch_get_stats(u, &st);
    CU_ASSERT_EQUAL(st.d1_access, 3);
    CU_ASSERT_EQUAL(st.d1_miss, 1);
    CU_ASSERT_EQUAL(lookup(insn(&c, 1)), PMUSIM_LVL_L1D);
    CU_ASSERT_EQUAL(lookup(insn(&c, 2)), PMUSIM_LVL_L1D);
    done(u, &c);
}

/* The model finished; its --stats totals. */
static pmusim_uarch_stats_t finish_stats(pmusim_uarch_t *u)
{
    finish(u);
    pmusim_uarch_stats_t st;
    pmusim_uarch_get_stats(u, &st);
    return st;
}

/* Three instructions (4 bytes, no access) at ip[] on `cpu` with `geo`:
 * the --stats I1 misses, LL references and LL misses expected. */
static void check_fetches(pmusim_cpu_t cpu, const char *const *geo, const uint64_t ip[3],
                          uint64_t i1, uint64_t ll_access, uint64_t ll_miss)
{
    collect_t c;
    pmusim_uarch_t *u = model(cpu, 1, geo, &c);
    for (int k = 0; k < 3; k++)
        run(u, 0, ip[k], 0, 0, FALSE, FALSE);
    const pmusim_uarch_stats_t st = finish_stats(u);
    CU_ASSERT_EQUAL(st.i1_miss, i1);
    CU_ASSERT_EQUAL(st.ll_access, ll_access);
    CU_ASSERT_EQUAL(st.ll_miss, ll_miss);
    done(u, &c);
}

/* An instruction across two lines is one I1 reference: cold, both lines
 * miss, and cachegrind counts one I1 miss, one LL reference, one LL miss
 * (cg_sim.c's straddling reference); the second line is then resident.  An
 * instruction whose first line is resident and second cold: one miss.
 * (Bytes 62..65 of 0x401000: lines 0x401000 and 0x401040; 0x401048
 * resident; 0x40107e: 0x401040 resident, 0x401080 cold.) */
static void test_straddling_fetch(void)
{
    static const char *const geo[] = { "--I1=32768,8,64", "--D1=32768,8,64",
                                       "--LL=4194304,16,64", "--L2=none", NULL };
    static const uint64_t ip[3] = { 0x401000 + 62, 0x401040 + 8, 0x401040 + 62 };
    check_fetches(PMUSIM_CPU_WSM, geo, ip, 2, 2, 2);
}

/* Knights Mill: the L2 is the last level, so a fetch that misses the L1I
 * and hits the L2 is an LL reference (cachegrind's "LL refs" = I1 misses +
 * D1 misses).  A direct-mapped 1 KiB L1I: A, B (same set, 1 KiB apart), A
 * again: 3 I1 misses, 3 LL references, 2 LL misses (A's second fetch hits). */
static void test_knm_fetch_ll_refs(void)
{
    static const char *const geo[] = { "--I1=1024,1,64", NULL };
    static const uint64_t ip[3] = { 0x401000, 0x401400, 0x401000 };
    check_fetches(PMUSIM_CPU_KNM, geo, ip, 3, 3, 2);
}

/* LL lines smaller than the L1D's (--D1=1024,1,128 --LL=65536,8,32, one
 * L1D set per KiB): a cold 8-byte load at 0x60000000 + 28 crosses the
 * 32-byte boundary inside its 128-byte L1D line, so both LL lines come in
 * (cachegrind references the LL with the access's bytes); after the L1D
 * line is evicted (a load 1 KiB on, same set), a load at + 32 misses the
 * L1D and hits the LL: 3 D1 misses, 2 LL misses. */
static void test_ll_line_smaller(void)
{
    static const char *const geo[] = { "--I1=32768,8,64", "--D1=1024,1,128",
                                       "--LL=65536,8,32", "--L2=none", NULL };
    collect_t c;
    pmusim_uarch_t *u = model(PMUSIM_CPU_KNM, 1, geo, &c);
    run(u, 0, 0x401000, 0x60000000 + 28, 8, FALSE, FALSE);
    run(u, 0, 0x401000, 0x60000000 + 1024, 8, FALSE, FALSE);
    run(u, 0, 0x401000, 0x60000000 + 32, 8, FALSE, FALSE);
    const pmusim_uarch_stats_t st = finish_stats(u);
    CU_ASSERT_EQUAL(st.d1_miss, 3);
    CU_ASSERT_EQUAL(insn(&c, 2)->mem.level, PMUSIM_LVL_L2); /* knm: the L2 is the LL */
    done(u, &c);
}

/* --L2=none follows cachegrind where an access crosses two L1D lines and
 * only one misses: the LL is referenced with all its bytes, also those in
 * the line that hit (cg_sim.c; the hardware fetches only the missing line).
 * --D1=1024,1,128 (8 sets), --LL=65536,8,32: a load at + 0 brings LL line
 * + 0 in; a 16-byte load at + 120 hits L1D line + 0 and misses + 128, so the
 * LL sees bytes 120..135: LL lines + 96 and + 128 come in; a load 1 KiB on
 * evicts L1D line + 0; a load at + 100 then misses the L1D and hits LL line
 * + 96.  Before 2026-11-28 the LL saw only bytes 128..135 and the last
 * load missed it (5 LL misses; sort on G6: +9 %, docs/CAPTURE.md). */
static void test_split_access_ll_whole(void)
{
    static const char *const geo[] = { "--I1=32768,8,64", "--D1=1024,1,128",
                                       "--LL=65536,8,32", "--L2=none", NULL };
    collect_t c;
    pmusim_uarch_t *u = model(PMUSIM_CPU_KNM, 1, geo, &c);
    run(u, 0, 0x401000, 0x60000000, 8, FALSE, FALSE);
    run(u, 0, 0x401000, 0x60000000 + 120, 16, FALSE, FALSE);
    run(u, 0, 0x401000, 0x60000000 + 1024, 8, FALSE, FALSE);
    run(u, 0, 0x401000, 0x60000000 + 100, 8, FALSE, FALSE);
    const pmusim_uarch_stats_t st = finish_stats(u);
    CU_ASSERT_EQUAL(st.d1_miss, 4);
    CU_ASSERT_EQUAL(st.ll_miss, 4); /* the first fetch and three loads */
    CU_ASSERT_EQUAL(insn(&c, 3)->mem.level, PMUSIM_LVL_L2); /* knm: the L2 is the LL */
    done(u, &c);
}

/* The same rule for a fetch (wsm, --L2=none, --I1=1024,1,64 direct-mapped,
 * --LL=65536,8,32): 0x401000 brings LL line 0x401000 in; an instruction at
 * 0x40103e (bytes 62..65) hits I1 line 0x401000 and misses 0x401040: the LL
 * sees bytes 62..65, lines 0x401020 and 0x401040; 0x401400 evicts I1 line
 * 0x401000; 0x401020 then misses the I1 and hits the LL: 4 I1 misses, 4 LL
 * references, 3 LL misses (4 before 2026-11-28). */
static void test_split_fetch_ll_whole(void)
{
    static const char *const geo[] = { "--I1=1024,1,64", "--D1=32768,8,64",
                                       "--LL=65536,8,32", "--L2=none", NULL };
    static const uint64_t ip[4] = { 0x401000, 0x40103e, 0x401400, 0x401020 };
    collect_t c;
    pmusim_uarch_t *u = model(PMUSIM_CPU_WSM, 1, geo, &c);
    for (int k = 0; k < 4; k++)
        run(u, 0, ip[k], 0, 0, FALSE, FALSE);
    const pmusim_uarch_stats_t st = finish_stats(u);
    CU_ASSERT_EQUAL(st.i1_miss, 4);
    CU_ASSERT_EQUAL(st.ll_access, 4);
    CU_ASSERT_EQUAL(st.ll_miss, 3);
    done(u, &c);
}

static void run_branch(pmusim_uarch_t *u, uint64_t ip, unsigned kind, gboolean taken,
                       uint64_t target)
{
    pmusim_uarch_insn_t in = { .ip = ip, .plm = 3, .len = 2, .br = (uint8_t)kind,
                               .taken = (uint8_t)taken, .target = target };
    GError *e = NULL;
    CU_ASSERT_TRUE_FATAL(pmusim_uarch_insn(u, &in, &e));
}

/* The cycles statistic is the last retirement cycle + 1, also when the
 * fast path ran the instructions (one thread: it leaves the count to
 * pmusim_uarch_get_stats()), and a halt does not count: wsm, twelve
 * instructions on one line (all but the first on the fast path, four a
 * cycle), a halt of 100 cycles, one more instruction. */
static void test_stats_cycles(void)
{
    collect_t c;
    pmusim_uarch_t *u = model(PMUSIM_CPU_WSM, 1, NULL, &c);
    pmusim_uarch_stats_t st;
    for (unsigned i = 0; i < 12; i++)
        run(u, 0, 0x401000 + 4 * i, 0, 0, FALSE, FALSE);
    GError *e = NULL;
    CU_ASSERT_TRUE_FATAL(pmusim_uarch_finish(u, &e));
    CU_ASSERT_PTR_NOT_NULL_FATAL(insn(&c, 11));
    const uint64_t last = insn(&c, 11)->cycle;
    CU_ASSERT_TRUE(last > insn(&c, 0)->cycle); /* 4 a cycle: not the first's cycle */
    pmusim_uarch_get_stats(u, &st);
    CU_ASSERT_EQUAL(st.cycles, last + 1);
    CU_ASSERT_TRUE_FATAL(pmusim_uarch_halt(u, 0, 100, &e));
    pmusim_uarch_get_stats(u, &st);
    CU_ASSERT_EQUAL(st.cycles, last + 1); /* the halt retires nothing */
    run(u, 0, 0x401030, 0, 0, FALSE, FALSE);
    finish(u);
    CU_ASSERT_PTR_NOT_NULL_FATAL(insn(&c, 12));
    CU_ASSERT_TRUE(insn(&c, 12)->cycle > last + 100);
    pmusim_uarch_get_stats(u, &st);
    CU_ASSERT_EQUAL(st.cycles, insn(&c, 12)->cycle + 1);
    CU_ASSERT_EQUAL(st.insns, 13);
    done(u, &c);
}

/* pmusim_uarch_records() is the stats' record count, also while records
 * wait in the threads' queues (two wsm threads: the merge holds a thread's
 * records until the other's cycle passes them) and after the finish, when
 * it is the number of records the sink received. */
static void test_records_count(void)
{
    collect_t c;
    pmusim_uarch_t *u = model(PMUSIM_CPU_WSM, 2, NULL, &c);
    pmusim_uarch_stats_t st;
    gboolean waited = FALSE;
    for (unsigned i = 0; i < 40; i++) {
        run(u, i % 3 == 0 ? 1 : 0, 0x401000 + 4 * i, 0, 0, FALSE, FALSE);
        pmusim_uarch_get_stats(u, &st);
        CU_ASSERT_EQUAL(pmusim_uarch_records(u), st.records);
        waited |= st.records > c.recs->len;
    }
    CU_ASSERT_TRUE(waited); /* some records were still in the model */
    finish(u);
    pmusim_uarch_get_stats(u, &st);
    CU_ASSERT_EQUAL(pmusim_uarch_records(u), st.records);
    CU_ASSERT_EQUAL(st.records, c.recs->len);
    CU_ASSERT_EQUAL(st.insns, 40);
    done(u, &c);
}

/* A thread's EVENT counts are written once they span 64 cycles (EVENT_SPAN),
 * at the first retirement that far from the first count, also when the
 * fast path runs that instruction without counts of its own: wsm, the first
 * instruction's cold fetch counts L1I events at its retirement r0; 400 more
 * on its line, 4 a cycle with no counts, reach r0 + 64 (4 + 64 * 4 + ...). */
static void test_event_span_on_fast_path(void)
{
    collect_t c;
    pmusim_uarch_t *u = model(PMUSIM_CPU_WSM, 1, NULL, &c);
    for (unsigned i = 0; i < 400; i++)
        run(u, 0, 0x401000, 0, 0, FALSE, FALSE);
    finish(u);
    CU_ASSERT_PTR_NOT_NULL_FATAL(insn(&c, 399));
    const uint64_t r0 = insn(&c, 0)->cycle;
    CU_ASSERT_TRUE(insn(&c, 399)->cycle > r0 + 64);
    /* the port counts (0xb1) have a span of their own, 1024 cycles: here
     * written at the end; the decoders' (0xd0, 0x17) with them; the cold
     * fetch's ITLB walk (0x85/0x04) is a record of its own at r0, not
     * summed (test_walk_records) */
    guint ev = 0;
    for (guint i = 0; i < c.recs->len; i++)
        if (rec(&c, i)->kind == PMUSIM_REC_EVENT && rec(&c, i)->ev_code == 0x85 &&
            rec(&c, i)->ev_umask == 0x04) {
            CU_ASSERT_EQUAL(rec(&c, i)->cycle, r0);
            CU_ASSERT_EQUAL(rec(&c, i)->n, 23);
        } else if (rec(&c, i)->kind == PMUSIM_REC_EVENT && rec(&c, i)->ev_code != 0xb1 &&
            rec(&c, i)->ev_code != 0xd0 && rec(&c, i)->ev_code != 0x17) {
            CU_ASSERT_EQUAL(rec(&c, i)->cycle, r0 + 64);
            ev++;
        } else if (rec(&c, i)->kind == PMUSIM_REC_EVENT) {
            CU_ASSERT_EQUAL(rec(&c, i)->cycle, insn(&c, 399)->cycle);
        }
    CU_ASSERT_TRUE(ev > 0);
    assert_cycle_order(&c);
    done(u, &c);
}

/* The ITLB's LRU order when the fast path fetches a new line of the page
 * fetched last (it tests the L1I alone): wsm's ITLB has 32 sets of 4
 * (pages 32 apart share a set), its L1I 128 sets of 4.  P Q P R S T P, one
 * instruction each, all lines in distinct L1I sets: the second P finds its
 * page second in its ITLB set and makes it the most recent, so T evicts Q
 * and the last P (a new line of P, fetched by the general body) hits:
 * 5 ITLB misses (0x85/0x01), the cold ones.  The same with an instruction
 * crossing from page 0x400 into 0x401 in place of P, and a new line of
 * 0x401 last: 6 cold misses. */
static uint64_t itlb_misses(const uint64_t *ip, size_t n)
{
    collect_t c;
    pmusim_uarch_t *u = model(PMUSIM_CPU_WSM, 1, NULL, &c);
    for (size_t i = 0; i < n; i++)
        run(u, 0, ip[i], 0, 0, FALSE, FALSE);
    finish(u);
    uint64_t k = 0;
    for (guint i = 0; i < c.recs->len; i++)
        if (rec(&c, i)->kind == PMUSIM_REC_EVENT && rec(&c, i)->ev_code == 0x85 &&
            rec(&c, i)->ev_umask == 0x01)
            k += rec(&c, i)->n;
    done(u, &c);
    return k;
}

static void test_itlb_order_on_fast_path(void)
{
    static const uint64_t pqp[] = { 0x400000, 0x420040, 0x400000, 0x440080,
                                    0x460100, 0x480140, 0x400200 };
    static const uint64_t cross[] = { 0x400ffe, 0x421040, 0x400ffe, 0x441080,
                                      0x461100, 0x481140, 0x401200 };
    CU_ASSERT_EQUAL(itlb_misses(pqp, G_N_ELEMENTS(pqp)), 5);
    CU_ASSERT_EQUAL(itlb_misses(cross, G_N_ELEMENTS(cross)), 6);
}

/* L1I:HITS / ICACHE:HIT (0x80/0x01) and L1I:MISSES / ICACHE:MISSES
 * (0x80/0x02): the model looks a line up when an instruction starts in a
 * line other than the one its thread fetched last, and looks up the second
 * line of an instruction that crosses into one (docs/UARCH.md §1), on the
 * fast path and in the general body alike.  {hits, misses} of `n`
 * instructions at ip[i] of len[i] bytes. */
static uint64_t ev_sum(const collect_t *c, uint16_t code, uint16_t umask);

static void l1i_lookups(pmusim_cpu_t cpu, uint32_t threads, const char *const *opts,
                        const uint64_t *ip, const uint8_t *len, size_t n, uint64_t out[2])
{
    collect_t c;
    pmusim_uarch_t *u = model(cpu, threads, opts, &c);
    for (size_t i = 0; i < n; i++) {
        pmusim_uarch_insn_t in = { .ip = ip[i], .plm = 3, .len = len[i] };
        GError *e = NULL;
        CU_ASSERT_TRUE_FATAL(pmusim_uarch_insn(u, &in, &e));
    }
    finish(u);
    out[0] = ev_sum(&c, 0x80, 0x01);
    out[1] = ev_sum(&c, 0x80, 0x02);
    done(u, &c);
}

static void test_l1i_lookups(void)
{
    /* a loop of 64 four-byte instructions over the 4 lines from 0x401000,
     * 10 times: a lookup at each line's first instruction, 4 a pass (the
     * loop's jump back to the first line is one), 40 in all; the first pass
     * misses the 4 (cold), the other 36 hit (the lines stay: one per set) */
    enum { N = 640 };
    uint64_t ip[N];
    uint8_t len[N];
    for (size_t i = 0; i < N; i++) {
        ip[i] = 0x401000 + 4 * (i % 64);
        len[i] = 4;
    }
    static const pmusim_cpu_t cpus[] = { PMUSIM_CPU_WSM, PMUSIM_CPU_KNM };
    static const char *const none[] = { "--L2=none", NULL };
    uint64_t k[2];
    for (size_t j = 0; j < G_N_ELEMENTS(cpus); j++) {
        l1i_lookups(cpus[j], 1, NULL, ip, len, N, k);
        CU_ASSERT_EQUAL(k[0], 36);
        CU_ASSERT_EQUAL(k[1], 4);
    }
    /* lines crossed: X at 0x402000 (line L0, cold miss); Y at 0x40203e, 4
     * bytes into L1: L0 was fetched last, so L1 alone (cold miss); X again:
     * L0 (hit); Y: L1 (hit); W at 0x402080, L2 (cold miss); Y: L0 and L1
     * (2 hits).  4 hits, 3 misses, 7 lookups for 6 instructions; the same
     * with two threads (the SMT body, no fast path) and with --L2=none
     * (cachegrind's rule for an instruction across two lines) */
    static const uint64_t xy[] = { 0x402000, 0x40203e, 0x402000, 0x40203e, 0x402080, 0x40203e };
    static const uint8_t xylen[] = { 4, 4, 4, 4, 4, 4 };
    for (size_t j = 0; j < G_N_ELEMENTS(cpus); j++)
        for (uint32_t threads = 1; threads <= 2; threads++) {
            l1i_lookups(cpus[j], threads, NULL, xy, xylen, G_N_ELEMENTS(xy), k);
            CU_ASSERT_EQUAL(k[0], 4);
            CU_ASSERT_EQUAL(k[1], 3);
            l1i_lookups(cpus[j], threads, none, xy, xylen, G_N_ELEMENTS(xy), k);
            CU_ASSERT_EQUAL(k[0], 4);
            CU_ASSERT_EQUAL(k[1], 3);
        }
    /* hits that are not their set's most recent line (the general body's
     * lookup): A = 0x410000 and B = 0x412000 share wsm's L1I set (128 sets
     * of 64-byte lines: 8 KiB apart); A B A B A B: 2 cold misses, then each
     * finds its line second in the set: 4 hits */
    static const uint64_t ab[] = { 0x410000, 0x412000, 0x410000, 0x412000, 0x410000, 0x412000 };
    l1i_lookups(PMUSIM_CPU_WSM, 1, NULL, ab, xylen, G_N_ELEMENTS(ab), k);
    CU_ASSERT_EQUAL(k[0], 4);
    CU_ASSERT_EQUAL(k[1], 2);
}

/* Westmere's instruction fetches in its unified L2: L2_RQSTS:IFETCH_HIT
 * (0x24/0x10) and IFETCH_MISS (0x24/0x20).  A direct-mapped 1 KiB L1I: A
 * and B 1 KiB apart share its set; A B A: A and B miss L1I and L2 (2 L2
 * misses), A misses L1I again and hits L2 (1 L2 hit).  With --L2=none no
 * L2 request: none. */
static void test_l2_ifetch(void)
{
    static const char *const small[] = { "--I1=1024,1,64", NULL };
    static const char *const none[] = { "--I1=1024,1,64", "--L2=none", NULL };
    for (int k = 0; k < 2; k++) {
        collect_t c;
        pmusim_uarch_t *u = model(PMUSIM_CPU_WSM, 1, k ? none : small, &c);
        run(u, 0, 0x401000, 0, 0, FALSE, FALSE);
        run(u, 0, 0x401400, 0, 0, FALSE, FALSE);
        run(u, 0, 0x401000, 0, 0, FALSE, FALSE);
        finish(u);
        CU_ASSERT_EQUAL(ev_sum(&c, 0x80, 0x02), 3);
        CU_ASSERT_EQUAL(ev_sum(&c, 0x24, 0x20), k ? 0 : 2);
        CU_ASSERT_EQUAL(ev_sum(&c, 0x24, 0x10), k ? 0 : 1);
        done(u, &c);
    }
}

/* Westmere's L2 traffic, hand-counted (docs/UARCH.md §5).  L1D 1 KiB
 * 2-way (8 sets), L2 2 KiB direct-mapped (32 sets), the 4 MB L3 never
 * evicts.  Data lines L_k = B + 64k (B = 0x100000: L1D set k % 8, L2 set
 * k % 32); code lines C = 0x400000 (L2 set 0) and C16 = C + 1024 (L2 set
 * 16):
 *  1. at C (an L1I miss, an L2 instruction fetch that misses, a fill),
 *     stores to L_1 .. L_24: 24 RFO misses in L2 and 24 fills; each L1D set
 *     gets three lines, the third evicts the first (modified): 8 write-backs
 *     into L2 (L_1 .. L_8, which L2 holds: none in I state);
 *  2. an instruction at C16: an L2 instruction fetch that misses; L2 evicts
 *     L_16 (clean there, modified in L1D);
 *  3. a load of L_48 (L1D set 0, L2 set 16): L1D evicts L_16, whose
 *     write-back misses L2 (I state, an offcore write-back); L2 evicts C16;
 *  4. a load of L_33 (L1D set 1, L2 set 1): L1D evicts L_9 (modified, held
 *     by L2); L2 evicts L_1, modified since its write-back: a write-back
 *     to L3.
 * L2_TRANSACTIONS: LOAD 2, RFO 24 (fields), IFETCH 2, PREFETCH 0, L1D_WB
 * 10, FILL 24 + 2 + 2 = 28, WB 1; L2_LINES_OUT clean 2, dirty 1.  With
 * --L2=none: no L2 event. */
static void test_l2_traffic(void)
{
    static const char *const small[] = { "--D1=1024,2,64", "--L2=2048,1,64", NULL };
    static const char *const none[] = { "--D1=1024,2,64", "--L2=none", NULL };
    for (int k = 0; k < 2; k++) {
        collect_t c;
        pmusim_uarch_t *u = model(PMUSIM_CPU_WSM, 1, k ? none : small, &c);
        const uint64_t b = 0x100000, c16 = 0x400000 + 1024;
        for (uint64_t i = 1; i <= 24; i++)
            run(u, 0, 0x400000, b + 64 * i, 8, TRUE, FALSE);
        run(u, 0, c16, 0, 0, FALSE, FALSE);
        run(u, 0, c16, b + 64 * 48, 8, FALSE, FALSE);
        run(u, 0, c16, b + 64 * 33, 8, FALSE, FALSE);
        finish(u);
        CU_ASSERT_EQUAL(count_level(&c, PMUSIM_LVL_L2), 26);
        CU_ASSERT_EQUAL(count_level(&c, PMUSIM_LVL_L3), 26); /* every line is new */
        CU_ASSERT_EQUAL(ev_sum(&c, 0x51, 0x04), 10);          /* L1D:M_EVICT */
        const uint64_t l2 = k ? 0 : 1;
        CU_ASSERT_EQUAL(ev_sum(&c, 0x24, 0x20), l2 * 2);      /* L2_RQSTS:IFETCH_MISS */
        CU_ASSERT_EQUAL(ev_sum(&c, 0xf0, 0x04), l2 * 2);      /* L2_TRANSACTIONS:IFETCH */
        CU_ASSERT_EQUAL(ev_sum(&c, 0xf0, 0x08), 0);           /* :PREFETCH */
        CU_ASSERT_EQUAL(ev_sum(&c, 0xf0, 0x10), l2 * 10);     /* :L1D_WB */
        CU_ASSERT_EQUAL(ev_sum(&c, 0xf0, 0x20), l2 * 28);     /* :FILL */
        CU_ASSERT_EQUAL(ev_sum(&c, 0xf0, 0x40), l2 * 1);      /* :WB */
        CU_ASSERT_EQUAL(ev_sum(&c, 0xf1, 0x07), l2 * 28);     /* L2_LINES_IN:ANY */
        CU_ASSERT_EQUAL(ev_sum(&c, 0xf2, 0x01), l2 * 2);      /* L2_LINES_OUT:DEMAND_CLEAN */
        CU_ASSERT_EQUAL(ev_sum(&c, 0xf2, 0x02), l2 * 1);      /* :DEMAND_DIRTY */
        CU_ASSERT_EQUAL(ev_sum(&c, 0x28, 0x0f), l2 * 10);     /* L1D_WB_L2:MESI */
        CU_ASSERT_EQUAL(ev_sum(&c, 0x28, 0x01), l2 * 1);      /* :I_STATE */
        CU_ASSERT_EQUAL(ev_sum(&c, 0xb0, 0x40), l2 * 1);      /* OFFCORE_REQUESTS:L1D_WRITEBACK */
        done(u, &c);
    }
}

/* Memory records of loads (store FALSE) or stores at levels lo .. hi. */
static guint count_dir_level(const collect_t *c, gboolean store, int lo, int hi)
{
    guint k = 0;
    for (guint i = 0; i < c->recs->len; i++) {
        const pmusim_rec_t *r = rec(c, i);
        if (((r->kind == PMUSIM_REC_INSN && (r->flags & PMUSIM_F_MEM)) ||
             r->kind == PMUSIM_REC_MEM) &&
            !r->mem.is_store == !store && r->mem.level >= lo && r->mem.level <= hi)
            k++;
    }
    return k;
}

/* Westmere's L2 line states, hand-counted (docs/UARCH.md §5).  L1D 1 KiB
 * 2-way (8 sets), L2 2 KiB direct-mapped (32 sets), the L3 never evicts;
 * data lines L_k = B + 64k (L1D set k % 8, L2 set k % 32), code in L2 set
 * 31 (one fill).  L1D set 0 as [MRU, LRU], an L2 line E or M:
 *  1. st L_0, 2. st L_8: RFOs in I state, fills (E); [L_8 M, L_0 M];
 *  3. ld L_16: L1D writes L_0 back onto its E copy (WB E), now M in L2;
 *     the load misses L2 (I), a fill; [L_16, L_8 M];
 *  4. ld L_0: L_8 written back (WB E, now M); L_0 hits M (load M);
 *  5. st L_8: L_16 leaves clean; L_8 hits M (RFO M); [L_8 M, L_0];
 *  6. st L_16: L_0 leaves clean; L_16 hits E (RFO E): the RFO does not
 *     modify the L2 copy; [L_16 M, L_8 M];
 *  7. ld L_0: L_8 written back onto its M copy (WB M); L_0 hits M (load M).
 * L1D set 1: 8-10. ld L_1, L_9, L_17: three misses (I), L_1 leaves clean;
 *  11. ld L_1: hits its E copy (load E).
 * L1D set 2: 12. st L_2 (RFO I); 13. ld L_34 (I; L2 set 2 evicts L_2, clean
 *  there); 14. ld L_18 (I): L1D writes L_2 back, which L2 no longer holds
 *  (WB I).
 * Loads I 6, E 1, M 2 (= the 9 load records beyond L1D: MESI = I+S+E+M);
 * RFOs I 3, E 1, M 1 (5 store records beyond L1D); L1D write-backs I 1,
 * E 2, M 1 (MESI 4); L2 fills 10, all E; S states and prefetches 0.  With
 * --L2=none none of them. */
static void test_l2_line_states(void)
{
    static const char *const small[] = { "--D1=1024,2,64", "--L2=2048,1,64", NULL };
    static const char *const none[] = { "--D1=1024,2,64", "--L2=none", NULL };
    static const struct {
        unsigned k;
        gboolean store;
    } seq[] = { {0, TRUE},  {8, TRUE},  {16, FALSE}, {0, FALSE}, {8, TRUE},
                {16, TRUE}, {0, FALSE}, {1, FALSE},  {9, FALSE}, {17, FALSE},
                {1, FALSE}, {2, TRUE},  {34, FALSE}, {18, FALSE} };
    for (int k = 0; k < 2; k++) {
        collect_t c;
        pmusim_uarch_t *u = model(PMUSIM_CPU_WSM, 1, k ? none : small, &c);
        const uint64_t b = 0x100000, ip = 0x400000 + 64 * 31;
        for (size_t i = 0; i < G_N_ELEMENTS(seq); i++)
            run(u, 0, ip, b + 64 * seq[i].k, 8, seq[i].store, FALSE);
        finish(u);
        const uint64_t l2 = k ? 0 : 1;
        /* the records: loads / RFOs at L2 and beyond (the I states) */
        CU_ASSERT_EQUAL(count_dir_level(&c, FALSE, PMUSIM_LVL_L2, PMUSIM_LVL_L2), l2 * 3);
        CU_ASSERT_EQUAL(count_dir_level(&c, FALSE, PMUSIM_LVL_L3, 255), k ? 9 : 6);
        CU_ASSERT_EQUAL(count_dir_level(&c, TRUE, PMUSIM_LVL_L2, PMUSIM_LVL_L2), l2 * 2);
        CU_ASSERT_EQUAL(count_dir_level(&c, TRUE, PMUSIM_LVL_L3, 255), k ? 5 : 3);
        CU_ASSERT_EQUAL(ev_sum(&c, 0x26, 0x04), l2 * 1); /* L2_DATA_RQSTS:DEMAND_E_STATE */
        CU_ASSERT_EQUAL(ev_sum(&c, 0x26, 0x08), l2 * 2); /* :DEMAND_M_STATE */
        CU_ASSERT_EQUAL(ev_sum(&c, 0x27, 0x04), l2 * 1); /* L2_WRITE RFO E */
        CU_ASSERT_EQUAL(ev_sum(&c, 0x27, 0x08), l2 * 1); /* :RFO_M_STATE */
        CU_ASSERT_EQUAL(ev_sum(&c, 0x28, 0x01), l2 * 1); /* L1D_WB_L2:I_STATE */
        CU_ASSERT_EQUAL(ev_sum(&c, 0x28, 0x04), l2 * 2); /* :E_STATE */
        CU_ASSERT_EQUAL(ev_sum(&c, 0x28, 0x08), l2 * 1); /* :M_STATE */
        CU_ASSERT_EQUAL(ev_sum(&c, 0x28, 0x0f), l2 * 4); /* :MESI = I+S+E+M */
        CU_ASSERT_EQUAL(ev_sum(&c, 0x51, 0x04), 4);      /* L1D:M_EVICT */
        CU_ASSERT_EQUAL(ev_sum(&c, 0xf1, 0x07), l2 * 10); /* L2_LINES_IN:ANY */
        CU_ASSERT_EQUAL(ev_sum(&c, 0xf1, 0x04), l2 * 10); /* :E_STATE */
        CU_ASSERT_EQUAL(ev_sum(&c, 0xf2, 0x01), l2 * 1); /* L2_LINES_OUT:DEMAND_CLEAN */
        static const uint16_t never[][2] = { {0x26, 0x02}, {0x26, 0x10}, {0x26, 0x20},
                                             {0x26, 0x40}, {0x26, 0x80}, {0x27, 0x02},
                                             {0xf1, 0x02}, {0x28, 0x02} };
        for (size_t i = 0; i < G_N_ELEMENTS(never); i++)
            CU_ASSERT_EQUAL(ev_sum(&c, never[i][0], never[i][1]), 0);
        done(u, &c);
    }
}

/* A locked read-modify-write of 8 bytes at addr (PMUSIM_F_LOCK: a load,
 * then a store), or the same unlocked. */
static void run_rmw(pmusim_uarch_t *u, uint64_t ip, uint64_t addr, gboolean locked)
{
    pmusim_uarch_access_t a[2] = { { .addr = addr, .size = 8, .is_store = 0 },
                                   { .addr = addr, .size = 8, .is_store = 1 } };
    pmusim_uarch_insn_t in = { .ip = ip, .plm = 3, .len = 5, .naccess = 2, .access = a,
                               .flags = locked ? PMUSIM_F_LOCK : 0 };
    GError *e = NULL;
    CU_ASSERT_TRUE_FATAL(pmusim_uarch_insn(u, &in, &e));
}

/* A locked instruction's load is its lock RFO: at L2 its line's state is
 * an EVENT record, L2_WRITE:LOCK_M_STATE (0x27/0x80) or LOCK_E_STATE
 * (0x40), never LOCK_S_STATE (0x20), beside the load's own
 * L2_DATA_RQSTS:DEMAND_* state (docs/UARCH.md §5).  D1 1024,2,64 (8 sets
 * of 2), L2 2048,1,64 (32 lines, direct-mapped); lines b + 64 k:
 *   store 0 (line 0 dirty in L1D), loads 8, 16 (set 0: 16 evicts 0, whose
 *   write-back leaves L2's line 0 modified);
 *   locked 0: L1D miss, L2 hit modified  -> LOCK_M_STATE
 *   locked 8: L1D miss, L2 hit clean     -> LOCK_E_STATE
 *   locked 40: L2 miss (set 8)           -> no state record (the I state
 *                                           is its record's level)
 *   unlocked RMW of 16: L2 hit clean     -> DEMAND_E_STATE only.
 * The records keep the flag (PMUSIM_UARCH_PASS_FLAGS); with --L2=none
 * there are no L2 states at all. */
static void test_lock_rfo_states(void)
{
    static const char *const small[] = { "--D1=1024,2,64", "--L2=2048,1,64", NULL };
    static const char *const none[] = { "--D1=1024,2,64", "--L2=none", NULL };
    for (int k = 0; k < 2; k++) {
        collect_t c;
        pmusim_uarch_t *u = model(PMUSIM_CPU_WSM, 1, k ? none : small, &c);
        const uint64_t b = 0x100000, ip = 0x400000;
        run(u, 0, ip, b, 8, TRUE, FALSE);
        run(u, 0, ip + 4, b + 64 * 8, 8, FALSE, FALSE);
        run(u, 0, ip + 8, b + 64 * 16, 8, FALSE, FALSE);
        run_rmw(u, ip + 12, b, TRUE);
        run_rmw(u, ip + 17, b + 64 * 8, TRUE);
        run_rmw(u, ip + 22, b + 64 * 40, TRUE);
        run_rmw(u, ip + 27, b + 64 * 16, FALSE);
        finish(u);
        const uint64_t l2 = k ? 0 : 1;
        CU_ASSERT_EQUAL(ev_sum(&c, 0x27, 0x80), l2 * 1); /* L2_WRITE:LOCK_M_STATE */
        CU_ASSERT_EQUAL(ev_sum(&c, 0x27, 0x40), l2 * 1); /* :LOCK_E_STATE */
        CU_ASSERT_EQUAL(ev_sum(&c, 0x27, 0x20), 0);      /* :LOCK_S_STATE */
        CU_ASSERT_EQUAL(ev_sum(&c, 0x26, 0x08), l2 * 1); /* DEMAND_M_STATE: locked 0 */
        CU_ASSERT_EQUAL(ev_sum(&c, 0x26, 0x04), l2 * 2); /* DEMAND_E_STATE: locked 8, 16 */
        /* the INSN records: the three locked ones carry the flag */
        unsigned locked = 0, n = 0;
        for (guint i = 0; i < c.recs->len; i++)
            if (rec(&c, i)->kind == PMUSIM_REC_INSN) {
                locked += (rec(&c, i)->flags & PMUSIM_F_LOCK) != 0;
                n++;
            }
        CU_ASSERT_EQUAL(n, 7);
        CU_ASSERT_EQUAL(locked, 3);
        done(u, &c);
    }
}

/* One instruction at `ip` on `thread` with the accesses a[0, n). */
static void run_acc(pmusim_uarch_t *u, uint32_t thread, uint64_t ip,
                    const pmusim_uarch_access_t *a, uint32_t n)
{
    pmusim_uarch_insn_t in = { .ip = ip, .thread = (uint8_t)thread, .plm = 3, .len = 4,
                               .naccess = n, .access = a };
    GError *e = NULL;
    CU_ASSERT_TRUE_FATAL(pmusim_uarch_insn(u, &in, &e));
}

/* The INSN records of thread `ti` with PMUSIM_F_STFWD_BLOCK, as a bit
 * mask of their order on the thread (at most 64). */
static uint64_t stfwd_marks(const collect_t *c, uint8_t ti, unsigned *n)
{
    uint64_t mask = 0;
    *n = 0;
    for (guint i = 0; i < c->recs->len; i++) {
        const pmusim_rec_t *r = rec(c, i);
        if (r->kind != PMUSIM_REC_INSN || r->thread != ti)
            continue;
        if (r->flags & PMUSIM_F_STFWD_BLOCK)
            mask |= UINT64_C(1) << *n;
        (*n)++;
    }
    return mask;
}

/* Store forwarding (docs/UARCH.md §1, "Store forwarding"): a load whose
 * bytes the youngest older store still in the store buffer overlaps
 * without containing them is marked PMUSIM_F_STFWD_BLOCK; a load inside
 * that store is forwarded, one no store overlaps is not marked, and a
 * store that has left the buffer (its retirement + 1 is not after the
 * load's dispatch: here a 100-cycle halt between them) blocks nothing.
 * Instruction 0 is a load missing every cache, so that no later one
 * retires (and no store leaves the buffer) before the halt.  The same on
 * wsm and knm (the same rule); numbering the INSN records:
 *   0 ld 8 @Z        a cold miss
 *   1 st 1 @A        2 ld 4 @A        blocked (1 of its 4 bytes stored)
 *   3 st 8 @B        4 ld 4 @B+2      forwarded (inside the store)
 *   5 st 4 @C        6 st 4 @C+4      7 ld 8 @C   blocked (two stores)
 *   8 st 8 @D        9 st 1 @D+3     10 ld 1 @D+3 forwarded (the youngest)
 *  11 ld 2 @D+2      blocked (the youngest over it, 1 byte at D+3, does
 *                    not hold D+2)
 *  12 ld 8 @E        no store there
 *  13 ld 8/st 8 @A   a read-modify-write: its load blocked by store 1
 *                    (1 byte); its own store comes after its load
 *  14 ld 1 @A+1      forwarded from 13's 8-byte store (the youngest)
 *  15 st 1 @F        halt 100 cycles  16 ld 4 @F  not blocked (it left)
 *  17 st 2 @G        18 ld 4 @G-2     blocked (bytes G-2 .. G+1)
 * marks 2, 7, 11, 13, 18.  Two SMT threads keep their own stores: thread
 * 1's 4-byte load of A after thread 0's byte store at A is not blocked,
 * thread 0's is.  IA-64 marks nothing. */
static void test_stfwd_blocks(void)
{
    const uint64_t A = 0x100000, B = 0x100100, C = 0x100200, D = 0x100300, E = 0x100400,
                   F = 0x100500, G = 0x100600, Z = 0x7000000, ip = 0x400000;
    static const pmusim_cpu_t cpus[] = { PMUSIM_CPU_WSM, PMUSIM_CPU_KNM };
    for (unsigned k = 0; k < G_N_ELEMENTS(cpus); k++) {
        collect_t c;
        pmusim_uarch_t *u = model(cpus[k], 1, NULL, &c);
        run(u, 0, ip, Z, 8, FALSE, FALSE);
        run(u, 0, ip + 4, A, 1, TRUE, FALSE);
        run(u, 0, ip + 8, A, 4, FALSE, FALSE);
        run(u, 0, ip + 12, B, 8, TRUE, FALSE);
        run(u, 0, ip + 16, B + 2, 4, FALSE, FALSE);
        run(u, 0, ip + 20, C, 4, TRUE, FALSE);
        run(u, 0, ip + 24, C + 4, 4, TRUE, FALSE);
        run(u, 0, ip + 28, C, 8, FALSE, FALSE);
        run(u, 0, ip + 32, D, 8, TRUE, FALSE);
        run(u, 0, ip + 36, D + 3, 1, TRUE, FALSE);
        run(u, 0, ip + 40, D + 3, 1, FALSE, FALSE);
        run(u, 0, ip + 44, D + 2, 2, FALSE, FALSE);
        run(u, 0, ip + 48, E, 8, FALSE, FALSE);
        const pmusim_uarch_access_t rmw[2] = { { .addr = A, .size = 8, .is_store = 0 },
                                               { .addr = A, .size = 8, .is_store = 1 } };
        run_acc(u, 0, ip + 52, rmw, 2);
        run(u, 0, ip + 56, A + 1, 1, FALSE, FALSE);
        run(u, 0, ip + 60, F, 1, TRUE, FALSE);
        GError *e = NULL;
        CU_ASSERT_TRUE_FATAL(pmusim_uarch_halt(u, 0, 100, &e));
        run(u, 0, ip + 64, F, 4, FALSE, FALSE);
        run(u, 0, ip + 68, G, 2, TRUE, FALSE);
        run(u, 0, ip + 72, G - 2, 4, FALSE, FALSE);
        finish(u);
        unsigned n;
        CU_ASSERT_EQUAL(stfwd_marks(&c, 0, &n),
                        (UINT64_C(1) << 2) | (UINT64_C(1) << 7) | (UINT64_C(1) << 11) |
                            (UINT64_C(1) << 13) | (UINT64_C(1) << 18));
        CU_ASSERT_EQUAL(n, 19);
        done(u, &c);
    }
    /* SMT: each thread its own store buffer */
    collect_t c;
    pmusim_uarch_t *u = model(PMUSIM_CPU_WSM, 2, NULL, &c);
    run(u, 0, ip, Z, 8, FALSE, FALSE);
    run(u, 1, ip + 0x1000, Z + 0x1000, 8, FALSE, FALSE);
    run(u, 0, ip + 4, A, 1, TRUE, FALSE);
    run(u, 1, ip + 0x1004, A, 4, FALSE, FALSE);
    run(u, 0, ip + 8, A, 4, FALSE, FALSE);
    finish(u);
    unsigned n0, n1;
    CU_ASSERT_EQUAL(stfwd_marks(&c, 0, &n0), 0x4);
    CU_ASSERT_EQUAL(stfwd_marks(&c, 1, &n1), 0);
    CU_ASSERT_EQUAL(n0, 3);
    CU_ASSERT_EQUAL(n1, 2);
    done(u, &c);
    /* Itanium: no store forwarding modelled */
    u = model(PMUSIM_CPU_ITA2, 1, NULL, &c);
    run(u, 0, ip, Z, 8, FALSE, FALSE);
    run(u, 0, ip + 16, A, 1, TRUE, FALSE);
    run(u, 0, ip + 32, A, 4, FALSE, FALSE);
    finish(u);
    CU_ASSERT_EQUAL(stfwd_marks(&c, 0, &n0), 0);
    CU_ASSERT_EQUAL(n0, 3);
    done(u, &c);
}

/* 4 KiB aliasing (docs/UARCH.md §1 "Store forwarding"): a load whose
 * bytes the youngest store still in the buffer that overlaps them modulo
 * 4 KiB (address bits 11:0) does not overlap in full counts one wsm
 * PARTIAL_ADDRESS_ALIAS 0x07/0x01.  Numbering the instructions (A, B, F,
 * H 4 KiB-distinct in bits 11:0; instruction 0 a cold miss, so that no
 * store leaves the buffer before the halt):
 *   0 ld 8 @Z               1 st 8 @A
 *   2 ld 8 @A+0x1000        aliased (1): same bits 11:0, another page
 *   3 ld 4 @A+0x2004        aliased (2): bytes 4-7 of the store's modulo 4 KiB
 *   4 ld 8 @A+0x1008        not: modulo 4 KiB it starts where the store ends
 *   5 ld 8 @A               not: the store itself (forwarded)
 *   6 st 4 @B               7 st 4 @B+0x1000
 *   8 ld 4 @B               aliased (3): the youngest match on bits 11:0
 *                           is store 7, not the store it reads (6)
 *   9 ld 4 @B+0x1000        not: the youngest match is its own store
 *  10 st 1 @F  halt 100    11 ld 4 @F+0x3000  not: the store has left
 *  12 st 8 @H+0xffc (across a page)  13 ld 4 @H+0x2000  aliased (4): the
 *                           store's last 4 bytes are 0x000-0x003 modulo 4 KiB
 * wsm and wsm_dp 4, in the header's events key; knm none (no such event).
 * An instruction in parts (a string instruction) checks no load. */
static void test_partial_alias(void)
{
    const uint64_t A = 0x100000, B = 0x100100, F = 0x100500, H = 0x100800, Z = 0x7000000,
                   ip = 0x400000;
    static const pmusim_cpu_t cpus[] = { PMUSIM_CPU_WSM, PMUSIM_CPU_WSM_DP, PMUSIM_CPU_KNM };
    for (unsigned k = 0; k < G_N_ELEMENTS(cpus); k++) {
        collect_t c;
        pmusim_uarch_t *u = model(cpus[k], 1, NULL, &c);
        run(u, 0, ip, Z, 8, FALSE, FALSE);
        run(u, 0, ip + 4, A, 8, TRUE, FALSE);
        run(u, 0, ip + 8, A + 0x1000, 8, FALSE, FALSE);
        run(u, 0, ip + 12, A + 0x2004, 4, FALSE, FALSE);
        run(u, 0, ip + 16, A + 0x1008, 8, FALSE, FALSE);
        run(u, 0, ip + 20, A, 8, FALSE, FALSE);
        run(u, 0, ip + 24, B, 4, TRUE, FALSE);
        run(u, 0, ip + 28, B + 0x1000, 4, TRUE, FALSE);
        run(u, 0, ip + 32, B, 4, FALSE, FALSE);
        run(u, 0, ip + 36, B + 0x1000, 4, FALSE, FALSE);
        run(u, 0, ip + 40, F, 1, TRUE, FALSE);
        GError *e = NULL;
        CU_ASSERT_TRUE_FATAL(pmusim_uarch_halt(u, 0, 100, &e));
        run(u, 0, ip + 44, F + 0x3000, 4, FALSE, FALSE);
        run(u, 0, ip + 48, H + 0xffc, 8, TRUE, FALSE);
        run(u, 0, ip + 52, H + 0x2000, 4, FALSE, FALSE);
        finish(u);
        const gboolean wsm = cpus[k] != PMUSIM_CPU_KNM;
        CU_ASSERT_EQUAL(ev_sum(&c, 0x07, 0x01), wsm ? 4 : 0);
        pmusim_trace_header_t h;
        pmusim_trace_header_init(&h, cpus[k], 1);
        pmusim_uarch_header(u, &h);
        const char *got = pmusim_trace_header_get_meta(&h, "events");
        CU_ASSERT_EQUAL(strstr(got, "0x07/0x01") != NULL, wsm);
        pmusim_trace_header_clear(&h);
        done(u, &c);
    }
}

/* Westmere's ITLB_MISS_RETIRED (0xc8/0x20): instructions whose fetch
 * missed the ITLB, once each.  An instruction at page 0x500, one of 4 bytes
 * at 0x600ffe across pages 0x600 and 0x601 (two ITLB misses, one
 * instruction), page 0x500 again (an ITLB hit): ITLB_MISSES:ANY 3,
 * ITLB_MISS_RETIRED 2, with or without --L2=none (cachegrind's rule for an
 * instruction across lines looks up both too). */
static void test_itlb_miss_retired(void)
{
    static const char *const none[] = { "--L2=none", NULL };
    static const uint64_t ip[] = { 0x500000, 0x600ffe, 0x500000 };
    for (int k = 0; k < 2; k++) {
        collect_t c;
        pmusim_uarch_t *u = model(PMUSIM_CPU_WSM, 1, k ? none : NULL, &c);
        for (size_t i = 0; i < G_N_ELEMENTS(ip); i++) {
            pmusim_uarch_insn_t in = { .ip = ip[i], .plm = 3, .len = 4 };
            GError *e = NULL;
            CU_ASSERT_TRUE_FATAL(pmusim_uarch_insn(u, &in, &e));
        }
        finish(u);
        CU_ASSERT_EQUAL(ev_sum(&c, 0x85, 0x01), 3);
        CU_ASSERT_EQUAL(ev_sum(&c, 0xc8, 0x20), 2);
        done(u, &c);
    }
}

/* The TLB walks' cycles (the walk latency the model charges, docs/UARCH.md
 * §3: wsm 23, knm 30 a walk) and Westmere's ITLB misses that hit the STLB.
 * wsm: code at pages P, P+32, P+64, P+96, P+128 (one ITLB set of 4: 32
 * sets; distinct STLB sets of 128): 5 walks, then P again: an ITLB miss
 * that hits the STLB.  Data: loads at pages D, D+16, .. D+64 (one DTLB set
 * of 4: 16 sets), 5 walks; D again: DTLB miss, STLB hit; a store at D+80:
 * a walk.  ITLB_MISSES:WALK_CYCLES 0x85/0x04 = 5 * 23, :STLB_HIT 0x85/0x10
 * = 1, DTLB_MISSES:WALK_CYCLES 0x49/0x04 = 6 * 23, DTLB_LOAD_MISSES:
 * WALK_CYCLES 0x08/0x04 = 5 * 23 (the MEM records' tlb = walk: 6).  knm
 * (DTLB 8 sets of 8, STLB 32 sets of 8): code at one page (1 walk), loads
 * at D, D+8, .. D+64 (9 walks, the 9th evicts D), D again (STLB hit), a
 * store at D+72 (a walk): PAGE_WALKS:D_SIDE_CYCLES 0x05/0x01 = 10 * 30,
 * I_SIDE_CYCLES 0x05/0x02 = 30. */
/* Loads at pages D + stride * k for k = 0 .. last (one DTLB set), at D
 * again, a store at D + stride * (last + 1); then the end of the run. */
static void dtlb_set_walks(pmusim_uarch_t *u, uint64_t stride, uint64_t last)
{
    const uint64_t d = 0x10000;
    for (uint64_t k = 0; k <= last; k++)
        run(u, 0, 0x400000, (d + stride * k) << 12, 8, FALSE, FALSE);
    run(u, 0, 0x400000, d << 12, 8, FALSE, FALSE);
    run(u, 0, 0x400000, (d + stride * (last + 1)) << 12, 8, TRUE, FALSE);
    finish(u);
}

static void test_walk_cycles(void)
{
    collect_t c;
    pmusim_uarch_t *u = model(PMUSIM_CPU_WSM, 1, NULL, &c);
    for (uint64_t k = 0; k <= 4; k++)
        run(u, 0, 0x400000 + (k * 32 << 12), 0, 0, FALSE, FALSE);
    run(u, 0, 0x400000, 0, 0, FALSE, FALSE);
    dtlb_set_walks(u, 16, 4);
    CU_ASSERT_EQUAL(ev_sum(&c, 0x85, 0x04), 5 * 23);
    CU_ASSERT_EQUAL(ev_sum(&c, 0x85, 0x10), 1);
    CU_ASSERT_EQUAL(ev_sum(&c, 0x85, 0x01), 6); /* ITLB_MISSES:ANY */
    CU_ASSERT_EQUAL(ev_sum(&c, 0x49, 0x04), 6 * 23);
    CU_ASSERT_EQUAL(ev_sum(&c, 0x08, 0x04), 5 * 23);
    guint walks = 0;
    for (guint i = 0; i < c.recs->len; i++)
        walks += rec(&c, i)->kind == PMUSIM_REC_INSN && (rec(&c, i)->flags & PMUSIM_F_MEM) &&
                 rec(&c, i)->mem.tlb == PMUSIM_TLB_WALK;
    CU_ASSERT_EQUAL(walks, 6);
    done(u, &c);

    u = model(PMUSIM_CPU_KNM, 1, NULL, &c);
    dtlb_set_walks(u, 8, 8);
    CU_ASSERT_EQUAL(ev_sum(&c, 0x05, 0x01), 10 * 30);
    CU_ASSERT_EQUAL(ev_sum(&c, 0x05, 0x02), 30);
    done(u, &c);
}

/* One EVENT record per page walk (docs/UARCH.md §3, "Walk records";
 * docs/trace-events-x86.md, "Exact thresholds on walk records"): n = the
 * walk latency (wsm 23, knm 30), at the retirement cycle of the walk's
 * instruction, directly after its records, never summed with another
 * walk's; the header lists the walk kinds in "evspan" (and still in
 * "evsum").  wsm, one thread, cold TLBs (DTLB 16 sets of 4, STLB 128 sets
 * of 4: pages D..D+5 take distinct sets, nothing is evicted):
 *   I0 0x400000: the code page's fetch walks (ITLB_MISSES:WALK_CYCLES
 *      0x85/0x04), its load at D walks (DTLB_MISSES:WALK_CYCLES 0x49/0x04
 *      and DTLB_LOAD_MISSES:WALK_CYCLES 0x08/0x04): three records;
 *   I1 0x400004: a load at D+1 and a store at D+2, both walk: 0x49/0x04
 *      twice, 0x08/0x04 once (the store is no load);
 *   I2 0x400008: a load at D+3: 0x49/0x04, 0x08/0x04;
 *   I3 0x40000c: a load at D again: the DTLB hits, no record;
 *   I4 0x400010 in two parts (ACC_MORE, then ACC_CONT), a load at D+4 and
 *      one at D+5: two walks of each data kind, written when it ends (I5
 *      starts), after the continuation's MEM record, not between;
 *   I5 0x400014: no access.
 * In all 0x85/0x04 1 record, 0x49/0x04 6, 0x08/0x04 5, each of n = 23;
 * summed they are the counts of test_walk_cycles's kind (unchanged). */
static void test_walk_records(void)
{
    const uint64_t d = 0x10000ull << 12, pg = 4096;
    static const uint64_t ip[6] = {0x400000, 0x400004, 0x400008, 0x40000c, 0x400010, 0x400014};
    /* per instruction: records of 0x85/0x04, 0x49/0x04, 0x08/0x04 */
    static const unsigned want[6][3] = {{1, 1, 1}, {0, 2, 1}, {0, 1, 1}, {0, 0, 0}, {0, 2, 2},
                                        {0, 0, 0}};
    static const uint16_t code[3] = {0x85, 0x49, 0x08};
    collect_t c;
    pmusim_uarch_t *u = model(PMUSIM_CPU_WSM, 1, NULL, &c);
    run(u, 0, ip[0], d, 8, FALSE, 0);
    pmusim_uarch_access_t two[2] = {{.addr = d + pg, .size = 8},
                                    {.addr = d + 2 * pg, .size = 8, .is_store = 1}};
    pmusim_uarch_insn_t in1 = {.ip = ip[1], .plm = 3, .len = 4, .naccess = 2, .access = two};
    GError *e = NULL;
    CU_ASSERT_TRUE_FATAL(pmusim_uarch_insn(u, &in1, &e));
    run(u, 0, ip[2], d + 3 * pg, 8, FALSE, 0);
    run(u, 0, ip[3], d, 8, FALSE, 0);
    pmusim_uarch_access_t p0 = {.addr = d + 4 * pg, .size = 8}, p1 = {.addr = d + 5 * pg, .size = 8};
    pmusim_uarch_insn_t in4 = {.ip = ip[4], .plm = 3, .len = 2, .uops = 2,
                               .naccess = 1 | PMUSIM_UARCH_ACC_MORE, .access = &p0};
    CU_ASSERT_TRUE_FATAL(pmusim_uarch_insn(u, &in4, &e));
    in4.naccess = 1 | PMUSIM_UARCH_ACC_CONT;
    in4.access = &p1;
    CU_ASSERT_TRUE_FATAL(pmusim_uarch_insn(u, &in4, &e));
    run(u, 0, ip[5], 0, 0, FALSE, 0);
    finish(u);
    assert_cycle_order(&c);
    unsigned got[6][3] = {{0}};
    int cur = -1;          /* the instruction whose records these are */
    uint64_t cur_cycle = 0;
    gboolean after_mem = FALSE; /* I4: its continuation's MEM record came */
    for (guint i = 0; i < c.recs->len; i++) {
        const pmusim_rec_t *r = rec(&c, i);
        if (r->kind == PMUSIM_REC_INSN) {
            cur = -1;
            for (int k = 0; k < 6; k++)
                if (r->ip == ip[k])
                    cur = k;
            CU_ASSERT_TRUE_FATAL(cur >= 0);
            cur_cycle = r->cycle;
            after_mem = FALSE;
        } else if (r->kind == PMUSIM_REC_MEM) {
            after_mem = TRUE;
        } else if (r->kind == PMUSIM_REC_EVENT && r->ev_umask == 0x04) {
            for (int k = 0; k < 3; k++) {
                if (r->ev_code != code[k])
                    continue;
                CU_ASSERT_EQUAL(r->n, 23);
                CU_ASSERT_EQUAL(r->cycle, cur_cycle);
                CU_ASSERT_TRUE_FATAL(cur >= 0);
                if (cur == 4)
                    CU_ASSERT_TRUE(after_mem);
                got[cur][k]++;
            }
        }
    }
    for (int i = 0; i < 6; i++)
        for (int k = 0; k < 3; k++)
            CU_ASSERT_EQUAL(got[i][k], want[i][k]);
    CU_ASSERT_EQUAL(ev_sum(&c, 0x49, 0x04), 6 * 23);
    CU_ASSERT_EQUAL(ev_sum(&c, 0x08, 0x04), 5 * 23);
    done(u, &c);

    /* knm (test_walk_cycles's run): 10 data walks, 1 code walk, n = 30 */
    u = model(PMUSIM_CPU_KNM, 1, NULL, &c);
    dtlb_set_walks(u, 8, 8);
    guint nd = 0, ni = 0;
    for (guint i = 0; i < c.recs->len; i++) {
        const pmusim_rec_t *r = rec(&c, i);
        if (r->kind != PMUSIM_REC_EVENT || r->ev_code != 0x05)
            continue;
        CU_ASSERT_EQUAL(r->n, 30);
        nd += r->ev_umask == 0x01;
        ni += r->ev_umask == 0x02;
    }
    CU_ASSERT_EQUAL(nd, 10);
    CU_ASSERT_EQUAL(ni, 1);
    done(u, &c);

    /* wsm, two SMT threads, each loading from 8 pages of its own: the
     * merged records in cycle order, 16 walk records of 23 */
    u = model(PMUSIM_CPU_WSM, 2, NULL, &c);
    for (uint64_t k = 0; k < 8; k++)
        for (uint32_t t = 0; t < 2; t++)
            run(u, t, 0x400000 + 4 * k, d + (16 * t + k) * pg, 8, FALSE, 0);
    finish(u);
    assert_cycle_order(&c);
    guint n49 = 0;
    for (guint i = 0; i < c.recs->len; i++) {
        const pmusim_rec_t *r = rec(&c, i);
        if (r->kind == PMUSIM_REC_EVENT && r->ev_code == 0x49 && r->ev_umask == 0x04) {
            CU_ASSERT_EQUAL(r->n, 23);
            n49++;
        }
    }
    CU_ASSERT_EQUAL(n49, 16);
    done(u, &c);

    /* the header: the walk kinds in evspan (with the divider's since
     * session 24, test_div_records), and in evsum; none on IA-64 */
    static const struct {
        pmusim_cpu_t cpu;
        const char *span;
    } hdr[] = {{PMUSIM_CPU_WSM, "0x85/0x04,0x49/0x04,0x08/0x04,0x14/0x01"},
               {PMUSIM_CPU_WSM_DP, "0x85/0x04,0x49/0x04,0x08/0x04,0x14/0x01"},
               {PMUSIM_CPU_KNM, "0x05/0x02,0x05/0x01,0xcd/0x01"},
               {PMUSIM_CPU_ITA2, NULL},
               {PMUSIM_CPU_MONT, NULL}};
    for (size_t k = 0; k < G_N_ELEMENTS(hdr); k++) {
        u = model(hdr[k].cpu, 1, NULL, &c);
        pmusim_trace_header_t h;
        pmusim_trace_header_init(&h, hdr[k].cpu, 1);
        pmusim_uarch_header(u, &h);
        const char *span = pmusim_trace_header_get_meta(&h, "evspan");
        if (!hdr[k].span) {
            CU_ASSERT_PTR_NULL(span);
        } else {
            CU_ASSERT_PTR_NOT_NULL_FATAL(span);
            CU_ASSERT_STRING_EQUAL(span, hdr[k].span);
            const char *sum = pmusim_trace_header_get_meta(&h, "evsum");
            gchar **pairs = g_strsplit(hdr[k].span, ",", -1);
            for (gchar **q = pairs; *q; q++)
                CU_ASSERT_PTR_NOT_NULL(strstr(sum, *q));
            g_strfreev(pairs);
        }
        pmusim_trace_header_clear(&h);
        done(u, &c);
    }
}

/* A loop branch taken 7 times then not taken, 200 times over: once the
 * 14-bit global history holds the 8-periodic pattern, gshare predicts every
 * outcome, so the last 100 loops have no misprediction. */
static void test_predictor_learns_loop(void)
{
    collect_t c;
    pmusim_uarch_t *u = model(PMUSIM_CPU_WSM, 1, NULL, &c);
    for (int loop = 0; loop < 200; loop++)
        for (int i = 0; i < 8; i++)
            run_branch(u, 0x401010, PMUSIM_UARCH_BR_COND, i < 7, 0x401000);
    finish(u);
    guint late_misses = 0, early_misses = 0;
    for (guint n = 0; n < 1600; n++) {
        const pmusim_rec_t *r = insn(&c, n);
        CU_ASSERT_EQUAL(r->br.kind, PMUSIM_BR_COND);
        if (!r->br.dir_ok)
            *(n >= 800 ? &late_misses : &early_misses) += 1;
    }
    CU_ASSERT_EQUAL(late_misses, 0);
    CU_ASSERT_TRUE(early_misses >= 1); /* it had to learn */
    done(u, &c);
}

/* Return stack of 16 (Westmere): 20 nested calls then 20 returns.  The
 * 16 innermost returns find their address; the stack wrapped, so the 4
 * outermost returns are mispredicted (tgt_ok = 0, detected in the back end). */
static void test_return_stack(void)
{
    collect_t c;
    pmusim_uarch_t *u = model(PMUSIM_CPU_WSM, 1, NULL, &c);
    for (int d = 0; d < 20; d++)
        run_branch(u, 0x402000 + d * 0x100, PMUSIM_UARCH_BR_CALL, TRUE, 0x402000 + (d + 1) * 0x100);
    for (int d = 19; d >= 0; d--)
        run_branch(u, 0x403000, PMUSIM_UARCH_BR_RET, TRUE, 0x402000 + d * 0x100 + 2);
    finish(u);
    guint bad = 0;
    for (guint n = 20; n < 40; n++) {
        const pmusim_rec_t *r = insn(&c, n);
        CU_ASSERT_EQUAL(r->br.kind, PMUSIM_BR_RET);
        if (!r->br.tgt_ok) {
            bad++;
            CU_ASSERT_EQUAL(r->br.detect, PMUSIM_BRD_BACKEND);
            CU_ASSERT_TRUE(n >= 36);
        }
    }
    CU_ASSERT_EQUAL(bad, 4);
    done(u, &c);
}

/* Three loads to new lines of one page, all to DRAM (wsm: 271 cycles,
 * STLB hit 7 + walk 23, uarch.md §1.2, §1.8).  Derivation:
 *   fetch: ITLB walk 30 + L1I miss to DRAM 271 -> dispatch at 301 (all three,
 *   width 4); load 0: DTLB walk 30 + 271 -> done 602, retires 602;
 *   load 1: same page (DTLB hit), done 301 + 271 = 572, retires in order 602;
 *   load 2 independent: done 572, retires 602 -- the misses overlapped;
 *   load 2 dependent on load 1: starts at 572, done 843, retires 843. */
static void test_overlap_independent_not_dependent(void)
{
    for (int dep = 0; dep < 2; dep++) {
        collect_t c;
        pmusim_uarch_t *u = model(PMUSIM_CPU_WSM, 1, NULL, &c);
        run(u, 0, 0x401000, 0x1000000, 8, FALSE, FALSE);
        run(u, 0, 0x401000, 0x1000040, 8, FALSE, FALSE);
        run(u, 0, 0x401000, 0x1000080, 8, FALSE, dep);
        finish(u);
        CU_ASSERT_EQUAL(insn(&c, 0)->mem.latency, 301);
        CU_ASSERT_EQUAL(insn(&c, 1)->mem.latency, 271);
        CU_ASSERT_EQUAL(insn(&c, 0)->cycle, 602);
        CU_ASSERT_EQUAL(insn(&c, 1)->cycle, 602);
        CU_ASSERT_EQUAL(insn(&c, 2)->cycle, dep ? 843 : 602);
        done(u, &c);
    }
}

/* The distance of addr_dep: the same three loads (latencies as in
 * test_overlap_independent_not_dependent), load 2 depending on the load
 * two back (load 0, done 602), not on the previous one (load 1, done 572):
 *   dep 2: load 2 starts at 602, done 602 + 271 = 873, retires 873;
 *   dep 1: starts at 572, done 843 (the test above);
 *   dep 0: independent, done 572, retires with load 0 at 602.
 * Then a fourth load at distance 3 (load 0 again, done 602) after a dep-2
 * load 2: it starts at 602 too, done 873, though load 2 (the previous
 * one) is back only at 873: it retires with load 2 at 873.  At distance
 * 1 it would wait for load 2: done 873 + 271 = 1144. */
static void test_dependence_distance(void)
{
    static const struct { unsigned dep2, dep3; uint64_t c2, c3; } cases[] = {
        { 2, 0, 873, 873 }, { 1, 0, 843, 843 }, { 0, 0, 602, 602 },
        { 2, 3, 873, 873 }, { 2, 1, 873, 1144 },
    };
    for (size_t k = 0; k < G_N_ELEMENTS(cases); k++) {
        collect_t c;
        pmusim_uarch_t *u = model(PMUSIM_CPU_WSM, 1, NULL, &c);
        run(u, 0, 0x401000, 0x1000000, 8, FALSE, 0);
        run(u, 0, 0x401000, 0x1000040, 8, FALSE, 0);
        run(u, 0, 0x401000, 0x1000080, 8, FALSE, cases[k].dep2);
        run(u, 0, 0x401000, 0x10000c0, 8, FALSE, cases[k].dep3);
        finish(u);
        CU_ASSERT_EQUAL(insn(&c, 0)->cycle, 602);
        CU_ASSERT_EQUAL(insn(&c, 1)->cycle, 602);
        CU_ASSERT_EQUAL(insn(&c, 2)->cycle, cases[k].c2);
        CU_ASSERT_EQUAL(insn(&c, 3)->cycle, cases[k].c3);
        done(u, &c);
    }
}

/* A branch on a load's data (pmusim_uarch_insn_t.br_dep): a load to DRAM
 * (wsm: ITLB walk 30 + L1I miss 271, so it dispatches at 301; DTLB walk 30
 * + 271: its data are back at 602), then a branch at distance 1 (that
 * load), then a plain instruction at the branch's target, in the same line.
 *   mispredicted (a first indirect jump: the BTB knows no target; a first
 *   taken conditional branch: the direction tables start at not taken):
 *   with the dependence it executes at 602 and resolves at 603, the front
 *   end restarts 17 cycles (the penalty) later, 620: the next instruction
 *   dispatches then and retires at 621, 301 + 1 + 17 + 1 after the load
 *   dispatched.  Without it (br_dep 0) the branch resolves at dispatch + 1
 *   = 302, the front end restarts at 319, and the next instruction retires
 *   in order with the load at 602.
 *   predicted (a first not-taken conditional branch): nothing waits for
 *   its resolution; 602 either way.
 * The records hold the distance (br.dep); a direct jump's is 0. */
static void test_branch_dependence(void)
{
    static const struct {
        unsigned kind;
        gboolean taken;
        unsigned dep;
        gboolean misp;
        uint64_t next;
    } cases[] = {
        { PMUSIM_UARCH_BR_IND_JUMP, TRUE, 1, TRUE, 621 },
        { PMUSIM_UARCH_BR_IND_JUMP, TRUE, 0, TRUE, 602 },
        { PMUSIM_UARCH_BR_COND, TRUE, 1, TRUE, 621 },
        { PMUSIM_UARCH_BR_COND, TRUE, 0, TRUE, 602 },
        { PMUSIM_UARCH_BR_COND, FALSE, 1, FALSE, 602 },
        { PMUSIM_UARCH_BR_JUMP, TRUE, 1, FALSE, 602 },
    };
    for (size_t k = 0; k < G_N_ELEMENTS(cases); k++) {
        collect_t c;
        pmusim_uarch_t *u = model(PMUSIM_CPU_WSM, 1, NULL, &c);
        run(u, 0, 0x401000, 0x1000000, 8, FALSE, 0);
        pmusim_uarch_insn_t in = { .ip = 0x401004, .plm = 3, .len = 2,
                                   .br = (uint8_t)cases[k].kind, .taken = (uint8_t)cases[k].taken,
                                   .target = cases[k].taken ? 0x401010 : 0,
                                   .br_dep = (uint8_t)cases[k].dep };
        GError *e = NULL;
        CU_ASSERT_TRUE_FATAL(pmusim_uarch_insn(u, &in, &e));
        run(u, 0, cases[k].taken ? 0x401010 : 0x401006, 0, 0, FALSE, 0);
        finish(u);
        CU_ASSERT_EQUAL(insn(&c, 0)->cycle, 602);
        const pmusim_rec_t *b = insn(&c, 1);
        CU_ASSERT_EQUAL(b->cycle, 602);
        CU_ASSERT_EQUAL(b->br.detect == PMUSIM_BRD_BACKEND, cases[k].misp);
        CU_ASSERT_EQUAL(b->br.dep, cases[k].kind == PMUSIM_UARCH_BR_JUMP ? 0 : cases[k].dep);
        CU_ASSERT_EQUAL(insn(&c, 2)->cycle, cases[k].next);
        done(u, &c);
    }
}

/* A model of `cpu` told its input has every annotation but, with
 * rsdep FALSE, the "rsdep" one (pmusim_uarch_header()). */
static pmusim_uarch_t *model_rs(pmusim_cpu_t cpu, gboolean rsdep, collect_t *c)
{
    pmusim_uarch_t *u = model(cpu, 1, NULL, c);
    pmusim_trace_header_t h;
    pmusim_trace_header_init(&h, cpu, 1);
    pmusim_trace_header_set_annotations(&h, rsdep ? PMUSIM_ANN_ALL
                                                  : PMUSIM_ANN_ALL & ~PMUSIM_ANN_RSDEP);
    pmusim_uarch_header(u, &h);
    pmusim_trace_header_clear(&h);
    return u;
}

/* An instruction at `ip` without accesses whose sources hold the data of
 * the load `rdep` loads back (pmusim_uarch_insn_t.rdep). */
static void run_alu(pmusim_uarch_t *u, uint64_t ip, unsigned rdep)
{
    pmusim_uarch_insn_t in = { .ip = ip, .plm = 3, .len = 4, .rdep = (uint8_t)rdep };
    GError *e = NULL;
    CU_ASSERT_TRUE_FATAL(pmusim_uarch_insn(u, &in, &e));
}

/* The reservation station (docs/UARCH.md §1): wsm, 36 entries.  Load A to
 * DRAM (fetch: ITLB walk 30 + L1I miss 271, so it allocates at 301; DTLB
 * walk 30 + 271: data at 602, as in test_overlap_independent_not_dependent),
 * then N one-uop ALU operations on A's data (rdep 1), then load B to
 * another line of A's page (DTLB hit: 271 cycles), all at one IP.
 * Instruction i allocates at 301 + i / 4 (4 wide), so operation 36 at 310;
 * A leaves the station at 302, each operation at 602.
 *   N = 36: the station holds the 36 operations; B, the 37th entry, could
 *   allocate at 310 (slot 1) but waits for the first entries to leave, at
 *   602: RESOURCE_STALLS:RS_FULL and ANY 602 - 310 = 292.  B's data are
 *   back at 602 + 271 = 873, where it retires.
 *   N = 35: B is the 36th entry: it allocates at 310, its data are back at
 *   581, and it retires in order behind operation 35 at 602 + 36 / 4 =
 *   611; no stall.
 *   N = 36 without the dependence (rdep 0: each leaves the cycle after
 *   allocation), or without the input's rsdep annotation (no station
 *   modelled): 611, no stall.
 * The operations' records hold rdep (B's, a load's, is 0).
 * Knights Mill (its integer stations: 24 entries; 2 wide; the ITLB's and
 * DTLB's misses cost an STLB hit 7 + a walk 30, DRAM 200: A allocates at
 * 237, its data are back at 237 + 37 + 200 = 474): N = 25 operations,
 * instruction i at 237 + i / 2: operation 25 could allocate at 249 (slot
 * 1) and waits for A's data: RS_FULL_STALL:ANY and NO_ALLOC_CYCLES:RAT_STALL
 * 474 - 249 = 225; B allocates with it at 474 (the memory cluster's
 * station is another), its data are back at 674, where it retires.
 * N = 24: B allocates at 249, data at 449, and retires behind operation 24
 * at 474 + 25 / 2 = 486.  Then A and 13 loads whose addresses depend on A
 * (addr_dep 1, 2, ... 13: each on A): they wait in the memory cluster's
 * station, 12 entries; the 13th, instruction 13 at 237 + 13 / 2 = 243,
 * waits for the first to leave, at 474: RS_FULL_STALL:MEC, ANY and
 * RAT_STALL 231. */
static void test_reservation_station(void)
{
    static const struct {
        pmusim_cpu_t cpu;
        unsigned n, rdep;
        gboolean ann;
        uint64_t b, full;
    } cases[] = {
        { PMUSIM_CPU_WSM, 36, 1, TRUE, 873, 292 }, { PMUSIM_CPU_WSM, 35, 1, TRUE, 611, 0 },
        { PMUSIM_CPU_WSM, 36, 0, TRUE, 611, 0 },   { PMUSIM_CPU_WSM, 36, 1, FALSE, 611, 0 },
        { PMUSIM_CPU_KNM, 25, 1, TRUE, 674, 225 }, { PMUSIM_CPU_KNM, 24, 1, TRUE, 486, 0 },
    };
    for (size_t k = 0; k < G_N_ELEMENTS(cases); k++) {
        collect_t c;
        const gboolean wsm = cases[k].cpu == PMUSIM_CPU_WSM;
        pmusim_uarch_t *u = model_rs(cases[k].cpu, cases[k].ann, &c);
        run(u, 0, 0x401000, 0x1000000, 8, FALSE, 0);
        for (unsigned i = 0; i < cases[k].n; i++)
            run_alu(u, 0x401000, cases[k].rdep);
        run(u, 0, 0x401000, 0x1000040, 8, FALSE, 0);
        finish(u);
        CU_ASSERT_EQUAL(insn(&c, 0)->cycle, wsm ? 602 : 474);
        CU_ASSERT_EQUAL(insn(&c, cases[k].n + 1)->cycle, cases[k].b);
        CU_ASSERT_EQUAL(insn(&c, 1)->mem.rdep, cases[k].rdep);
        CU_ASSERT_EQUAL(insn(&c, cases[k].n + 1)->mem.rdep, 0);
        if (wsm) {
            CU_ASSERT_EQUAL(ev_sum(&c, 0xa2, 0x04), cases[k].full); /* RESOURCE_STALLS:RS_FULL */
            CU_ASSERT_EQUAL(ev_sum(&c, 0xa2, 0x01), cases[k].full); /* ANY */
        } else {
            CU_ASSERT_EQUAL(ev_sum(&c, 0xcb, 0x1f), cases[k].full); /* RS_FULL_STALL:ANY */
            CU_ASSERT_EQUAL(ev_sum(&c, 0xca, 0x20), cases[k].full); /* NO_ALLOC_CYCLES:RAT_STALL */
            CU_ASSERT_EQUAL(ev_sum(&c, 0xcb, 0x01), 0);             /* RS_FULL_STALL:MEC */
        }
        done(u, &c);
    }
    collect_t c;
    pmusim_uarch_t *u = model_rs(PMUSIM_CPU_KNM, TRUE, &c);
    run(u, 0, 0x401000, 0x1000000, 8, FALSE, 0);
    for (unsigned i = 1; i <= 13; i++)
        run(u, 0, 0x401000, 0x1000000 + 64 * i, 8, FALSE, i);
    finish(u);
    CU_ASSERT_EQUAL(ev_sum(&c, 0xcb, 0x01), 231);
    CU_ASSERT_EQUAL(ev_sum(&c, 0xcb, 0x1f), 231);
    CU_ASSERT_EQUAL(ev_sum(&c, 0xca, 0x20), 231);
    done(u, &c);
}

/* The station's count of the uops leaving the next cycle when an SMT
 * thread allocates at an earlier cycle than the count's (rs_enter(): the
 * old count moves into the heap and leaves at its own cycle).  wsm, two
 * threads (each uop takes two of the four slots: two instructions a
 * cycle), the station's 36 entries shared:
 *   P, thread 0 at 0x401000: ITLB walk 30 + L1I miss 271, allocates at
 *   301 and leaves the station at 302 (the count of 302);
 *   Q, thread 1 at the same line (now in the L1I and the ITLB): allocates
 *   at 0, leaves at 1: P's count of 302 moves into the heap;
 *   L, thread 1, a load at 0x801000 (another page: ITLB walk and L1I miss
 *   again, 301): allocates at 301, its data (DTLB walk 30 + DRAM 271) back
 *   at 602; then 36 one-uop operations on L's data (rdep 1), which stay in
 *   the station until 602: operation k allocates at 301 + (k + 1) / 2, the
 *   36th at 319, when P (302), Q and L (302) have left: 35 entries in use,
 *   room for it.  No RESOURCE_STALLS:RS_FULL.  (Had P's count been lost
 *   instead of moved, its entry would stay taken: the 36th operation would
 *   wait until 602, RS_FULL 283.)  L retires at 602, the operations two a
 *   cycle after it: the 36th at 602 + 36 / 2 = 620. */
static void test_reservation_station_smt(void)
{
    collect_t c;
    pmusim_uarch_t *u = model(PMUSIM_CPU_WSM, 2, NULL, &c);
    pmusim_trace_header_t h;
    pmusim_trace_header_init(&h, PMUSIM_CPU_WSM, 2);
    pmusim_trace_header_set_annotations(&h, PMUSIM_ANN_ALL);
    pmusim_uarch_header(u, &h);
    pmusim_trace_header_clear(&h);
    run(u, 0, 0x401000, 0, 0, FALSE, 0);
    run(u, 1, 0x401000, 0, 0, FALSE, 0);
    run(u, 1, 0x801000, 0x1000000, 8, FALSE, 0);
    for (unsigned i = 0; i < 36; i++) {
        pmusim_uarch_insn_t in = { .ip = 0x801000, .thread = 1, .plm = 3, .len = 4, .rdep = 1 };
        GError *e = NULL;
        CU_ASSERT_TRUE_FATAL(pmusim_uarch_insn(u, &in, &e));
    }
    finish(u);
    CU_ASSERT_EQUAL(ev_sum(&c, 0xa2, 0x04), 0); /* RESOURCE_STALLS:RS_FULL */
    CU_ASSERT_EQUAL(ev_sum(&c, 0xa2, 0x01), 0); /* ANY */
    const pmusim_rec_t *l = NULL, *last = NULL;
    for (guint i = 0; i < c.recs->len; i++) {
        const pmusim_rec_t *r = rec(&c, i);
        if (r->kind != PMUSIM_REC_INSN || r->thread != 1)
            continue;
        if (r->flags & PMUSIM_F_MEM)
            l = r;
        last = r;
    }
    CU_ASSERT_PTR_NOT_NULL_FATAL(l);
    CU_ASSERT_EQUAL(l->cycle, 602);
    CU_ASSERT_EQUAL(last->cycle, 620);
    CU_ASSERT_EQUAL(last->mem.rdep, 1);
    done(u, &c);
}

/* 1000 one-uop instructions without memory at one IP: after the first
 * fetch, `width` retire per cycle, so the last retires 999 / width cycles
 * after the first (wsm 4 wide: 249; knm 2 wide: 499) and no cycle holds
 * more than `width`. */
static void test_ipc_bounded_by_width(void)
{
    static const struct { pmusim_cpu_t cpu; guint width, span; } cases[] = {
        { PMUSIM_CPU_WSM, 4, 249 },
        { PMUSIM_CPU_KNM, 2, 499 },
    };
    for (size_t k = 0; k < G_N_ELEMENTS(cases); k++) {
        collect_t c;
        pmusim_uarch_t *u = model(cases[k].cpu, 1, NULL, &c);
        for (int i = 0; i < 1000; i++)
            run(u, 0, 0x401000, 0, 0, FALSE, FALSE);
        finish(u);
        CU_ASSERT_EQUAL(insn(&c, 999)->cycle - insn(&c, 0)->cycle, cases[k].span);
        guint same = 1;
        for (guint n = 1; n < 1000; n++) {
            same = insn(&c, n)->cycle == insn(&c, n - 1)->cycle ? same + 1 : 1;
            CU_ASSERT_TRUE(same <= cases[k].width);
        }
        done(u, &c);
    }
    /* SMT shares the width: 4 Knights Mill threads of 250 such instructions
     * each retire at most 2 per cycle together, so after their first
     * instruction each thread retires one every 2 cycles: 249 * 2 = 498 */
    collect_t c;
    pmusim_uarch_t *u = model(PMUSIM_CPU_KNM, 4, NULL, &c);
    for (int i = 0; i < 1000; i++)
        run(u, (uint32_t)(i % 4), 0x401000 + (uint64_t)(i % 4) * 0x100000, 0, 0, FALSE, FALSE);
    finish(u);
    assert_cycle_order(&c);
    CU_ASSERT_EQUAL(insn(&c, 999)->cycle - insn(&c, 0)->cycle, 498);
    guint same = 1;
    for (guint n = 1; n < 1000; n++) {
        same = insn(&c, n)->cycle == insn(&c, n - 1)->cycle ? same + 1 : 1;
        CU_ASSERT_TRUE(same <= 4); /* the first cycle holds the 4 threads' first */
    }
    done(u, &c);
}

/* Westmere's L3 is inclusive: a line evicted from L3 leaves L1D too.
 * D1 1 KiB, L2 2 KiB, LL 4 KiB direct-mapped: A = 0 and B = 4096 share the
 * LL set, so B evicts A from the LL and the next A misses L1D. */
static void test_inclusive_l3_back_invalidates(void)
{
    static const char *const opts[] = { "--D1=1024,2,64", "--L2=2048,2,64", "--LL=4096,1,64",
                                        NULL };
    collect_t c;
    pmusim_uarch_t *u = model(PMUSIM_CPU_WSM, 1, opts, &c);
    run(u, 0, 0x401000, 0x70000000, 8, FALSE, FALSE);
    run(u, 0, 0x401000, 0x70001000, 8, FALSE, FALSE);
    run(u, 0, 0x401000, 0x70000000, 8, FALSE, FALSE);
    finish(u);
    CU_ASSERT_EQUAL(insn(&c, 2)->mem.level, PMUSIM_LVL_LOCAL_DRAM);
    done(u, &c);
}

/* The header's "events" key lists the EVENT records of docs/UARCH.md
 * section 5 the configuration writes: Westmere's L2 evictions with its L2,
 * none of them under --L2=none; Itanium 2's I-EAR record with any umask;
 * Montecito's L2I reads and thread switches besides; Westmere's and Knights
 * Mill's L1I hits (0x80/0x01) beside their misses (0x80/0x02) and their
 * walk cycles (0x85/0x04, 0x49/0x04, 0x08/0x04; 0x05/0x02, 0x05/0x01),
 * Westmere's ITLB misses hitting the STLB (0x85/0x10) and, with its L2,
 * its L2 instruction fetches (0x24/0x10, 0x24/0x20) and L2 prefetch
 * requests (0x24/0x40, 0x24/0x80: listed, never written, no prefetcher),
 * its L2 transactions (0xf0/0x04 .. 0x40) and L1D write-backs (0x28/0x0f,
 * 0x28/0x01, 0xb0/0x40), its L2 line states (0x26, 0x27, 0xf1/0x04 and
 * 0x02, 0x28/0x04 .. 0x02: the S and prefetch ones never written), none of
 * which --L2=none writes. */
/* ... and the IA-64 traffic below the L1 caches as model facts
 * (test_ia64_below_l1()): the first-level ITLB miss among the fetch's
 * kinds, the L2 fetch reads and L3 fetch hits, with a 128-byte L3 line the
 * misses with their bus transactions and the data accesses' bus facts */
#define IA64_FACTS_ITA2 "0xdf/0x00,0x41/0x00,0x43/*,0x100/0x01,0x47/0x02,0x100/0x02,0x100/0x03"
#define IA64_FACTS_MONT                                                                      \
    "0xdf/0x00,0x41/0x00,0x43/*,0x100/0x01,0x47/0x02,0x0c/0x01,0x0c/0x02,0x100/0x02,"        \
    "0x100/0x03"
#define IA64_FACTS_BUS                                                                       \
    "0x100/0x04,0x100/0x06,0x100/0x07,0x100/0x09,0x100/0x0a,0x100/0x0b,0x100/0x0c"
#define IA64_FACTS_NOBUS "0x100/0x04,0x100/0x05,0x100/0x07,0x100/0x08"
/* Westmere's execution kinds: UOPS_EXECUTED:PORT0..5, LOAD_DISPATCH:RS_DELAYED
 * and MOB (never written), ARITH:CYCLES_DIV_BUSY, UOPS_DECODED:MS */
#define WSM_EXEC                                                                             \
    "0xb1/0x01,0xb1/0x02,0xb1/0x04,0xb1/0x08,0xb1/0x10,0xb1/0x20,0x13/0x02,0x13/0x04,"       \
    "0x14/0x01,0xd1/0x02"
/* the loop stream detector's pairs (lsd_track()), and the decoders'
 * counts net of it (fe_flush()): instructions, instruction-queue writes,
 * fused pairs */
#define WSM_LSD ",0xa8/0x01,0x20/0x01,0xd0/0x01,0x17/0x01,0xa6/0x01"
/* 4 KiB aliasing (alias_event()): an input with every access */
#define WSM_ALIAS ",0x07/0x01"
/* no prefetcher: L1D_PREFETCH's three umasks, L2_LINES_OUT:PREFETCH_* (with an L2) */
#define WSM_PF_L1 ",0x4e/0x01,0x4e/0x02,0x4e/0x04"
#define WSM_PF_L2 ",0xf2/0x04,0xf2/0x08"

static void test_header_events(void)
{
    static const char *const none[] = { "--L2=none", NULL };
    static const struct {
        pmusim_cpu_t cpu;
        const char *const *opts;
        const char *want;
    } cases[] = {
        { PMUSIM_CPU_WSM, NULL,
          "0x51/0x04,0xf1/0x07,0xf2/0x01,0xf2/0x02,0xf2/0x0f,0x80/0x02,0x80/0x01,0x85/0x01,"
          "0x85/0x02,0x85/0x10,0xc8/0x20,0x85/0x04,0x49/0x04,0x08/0x04,0x24/0x10,0x24/0x20,"
          "0x24/0x40,"
          "0x24/0x80,0xf0/0x04,0xf0/0x08,0xf0/0x10,0xf0/0x20,0xf0/0x40,0x28/0x0f,0x28/0x01,"
          "0xb0/0x40,0x26/0x04,0x26/0x08,0x26/0x02,0x27/0x04,0x27/0x08,0x27/0x02,"
          "0x27/0x40,0x27/0x80,0x27/0x20,0x26/0x10,"
          "0x26/0x20,0x26/0x40,0x26/0x80,0xf1/0x04,0xf1/0x02,0x28/0x04,0x28/0x08,0x28/0x02,"
          "0xe6/0x01,0xa2/0x10,0xa2/0x02,0xa2/0x08,0xa2/0x01,0x80/0x04,0xa2/0x04," WSM_EXEC
          WSM_LSD WSM_ALIAS WSM_PF_L1 WSM_PF_L2 },
        { PMUSIM_CPU_WSM, none,
          "0x51/0x04,0x80/0x02,0x80/0x01,0x85/0x01,0x85/0x02,0x85/0x10,0xc8/0x20,0x85/0x04,"
          "0x49/0x04,0x08/0x04,0xe6/0x01,0xa2/0x10,0xa2/0x02,0xa2/0x08,0xa2/0x01,0x80/0x04,"
          "0xa2/0x04," WSM_EXEC WSM_LSD WSM_ALIAS WSM_PF_L1 },
        { PMUSIM_CPU_KNM, NULL,
          "0x80/0x02,0x80/0x01,0x05/0x02,0x05/0x01,0xe6/0x01,0xe6/0x10,0xca/0x01,0xca/0x04,"
          "0x86/0x04,0xca/0x90,0xca/0x7f,0xe6/0x08,0xcb/0x1f,0xcb/0x01,0xca/0x20,0xcd/0x01,"
          "0xc2/0x01,0xe7/0x01" },
        { PMUSIM_CPU_ITA2, NULL, IA64_FACTS_ITA2 "," IA64_FACTS_BUS },
        { PMUSIM_CPU_MONT, NULL, IA64_FACTS_MONT "," IA64_FACTS_BUS },
    };
    for (size_t k = 0; k < G_N_ELEMENTS(cases); k++) {
        collect_t c;
        pmusim_uarch_t *u = model(cases[k].cpu, 1, cases[k].opts, &c);
        pmusim_trace_header_t h;
        pmusim_trace_header_init(&h, cases[k].cpu, 1);
        pmusim_uarch_header(u, &h);
        const char *got = pmusim_trace_header_get_meta(&h, "events");
        CU_ASSERT_PTR_NOT_NULL_FATAL(got);
        CU_ASSERT_STRING_EQUAL(got, cases[k].want);
        /* LSD:UOPS is one record per cycle, not a sum: not in evsum (so
         * LSD:ACTIVE and INACTIVE, its c=1 forms, count); LSD_OVERFLOW is */
        const char *sum = pmusim_trace_header_get_meta(&h, "evsum");
        if (cases[k].cpu == PMUSIM_CPU_WSM) {
            CU_ASSERT_PTR_NULL(strstr(sum, "0xa8/0x01"));
            CU_ASSERT_PTR_NOT_NULL(strstr(sum, "0x20/0x01"));
        }
        pmusim_trace_header_clear(&h);
        done(u, &c);
    }
    /* an input without branch kinds (trace annotate of a lackey trace
     * sets its input's annotations first): no conditional branch, no loop
     * the detector can find, its events are not listed (<not in trace>) */
    collect_t c;
    pmusim_uarch_t *u = model(PMUSIM_CPU_WSM, 1, NULL, &c);
    pmusim_trace_header_t h;
    pmusim_trace_header_init(&h, PMUSIM_CPU_WSM, 1);
    pmusim_trace_header_set_annotations(&h, PMUSIM_ANN_LEVELS);
    pmusim_uarch_header(u, &h);
    const char *got = pmusim_trace_header_get_meta(&h, "events");
    CU_ASSERT_PTR_NULL(strstr(got, "0xa8/0x01"));
    CU_ASSERT_PTR_NULL(strstr(got, "0x20/0x01"));
    CU_ASSERT_PTR_NULL(strstr(got, "0xd0/0x01"));
    CU_ASSERT_PTR_NULL(strstr(got, "0x17/0x01"));
    CU_ASSERT_PTR_NULL(strstr(got, "0xa6/0x01"));
    CU_ASSERT_PTR_NOT_NULL(strstr(got, "0xd1/0x02"));
    /* nor PARTIAL_ADDRESS_ALIAS: a store the input lacks could alias */
    CU_ASSERT_PTR_NULL(strstr(got, "0x07/0x01"));
    pmusim_trace_header_clear(&h);
    done(u, &c);
    /* branch kinds without fused pairs (opkind but no fuse: a capture of
     * session 19): the decoded instructions, not the pairs */
    u = model(PMUSIM_CPU_WSM, 1, NULL, &c);
    pmusim_trace_header_init(&h, PMUSIM_CPU_WSM, 1);
    pmusim_trace_header_set_annotations(&h, PMUSIM_ANN_BRKIND | PMUSIM_ANN_OPKIND);
    pmusim_uarch_header(u, &h);
    got = pmusim_trace_header_get_meta(&h, "events");
    CU_ASSERT_PTR_NOT_NULL(strstr(got, "0xa8/0x01,0x20/0x01,0xd0/0x01,0x17/0x01"));
    CU_ASSERT_PTR_NULL(strstr(got, "0xa6/0x01"));
    /* summed: in evsum */
    CU_ASSERT_PTR_NOT_NULL(strstr(pmusim_trace_header_get_meta(&h, "evsum"), "0xd0/0x01,0x17/0x01"));
    pmusim_trace_header_clear(&h);
    done(u, &c);
}

/* --L2=none is cachegrind's hierarchy, I1/D1 -> LL, whose LL is not
 * inclusive: the same A B A as above (D1 1 KiB 2-way, LL 4 KiB direct-
 * mapped) with --L2=none: B evicts A from the LL only, and the third
 * access hits the L1D.  --LL-inclusive=yes brings Westmere's rule back
 * (the third access goes to memory), --LL-inclusive=no takes it away with
 * an L2 (the third access hits the L1D); knm has no L3 and refuses it. */
static void test_ll_inclusive_option(void)
{
    static const char *const none[] = { "--D1=1024,2,64", "--L2=none", "--LL=4096,1,64", NULL };
    static const char *const none_yes[] = { "--D1=1024,2,64", "--L2=none", "--LL=4096,1,64",
                                            "--LL-inclusive=yes", NULL };
    static const char *const l2_no[] = { "--D1=1024,2,64", "--L2=2048,2,64", "--LL=4096,1,64",
                                         "--LL-inclusive=no", NULL };
    static const struct {
        const char *const *opts;
        pmusim_mem_level_t third;
    } cases[] = {
        { none, PMUSIM_LVL_L1D },
        { none_yes, PMUSIM_LVL_LOCAL_DRAM },
        { l2_no, PMUSIM_LVL_L1D },
    };
    for (size_t k = 0; k < G_N_ELEMENTS(cases); k++) {
        collect_t c;
        pmusim_uarch_t *u = model(PMUSIM_CPU_WSM, 1, cases[k].opts, &c);
        run(u, 0, 0x401000, 0x70000000, 8, FALSE, FALSE);
        run(u, 0, 0x401000, 0x70001000, 8, FALSE, FALSE);
        run(u, 0, 0x401000, 0x70000000, 8, FALSE, FALSE);
        finish(u);
        CU_ASSERT_EQUAL(lookup(insn(&c, 1)), PMUSIM_LVL_LOCAL_DRAM);
        CU_ASSERT_EQUAL(lookup(insn(&c, 2)), cases[k].third);
        done(u, &c);
    }
    pmusim_uarch_options_t o;
    pmusim_uarch_options_init(&o);
    gboolean consumed = FALSE;
    GError *e = NULL;
    CU_ASSERT_FALSE(pmusim_uarch_options_parse(&o, "--LL-inclusive=maybe", &consumed, &e));
    CU_ASSERT_TRUE(consumed);
    CU_ASSERT_PTR_NOT_NULL_FATAL(e);
    CU_ASSERT_STRING_EQUAL(e->message, "--LL-inclusive=maybe: expected no or yes");
    g_clear_error(&e);
    CU_ASSERT_TRUE(pmusim_uarch_options_parse(&o, "--LL-inclusive=yes", &consumed, &e));
    pmusim_uarch_t *k = pmusim_uarch_new(PMUSIM_CPU_KNM, 1, &o, NULL, NULL, &e);
    CU_ASSERT_PTR_NULL(k);
    CU_ASSERT_PTR_NOT_NULL_FATAL(e);
    CU_ASSERT_STRING_EQUAL(e->message, "--LL-inclusive: knm's last level (its L2) is not "
                                       "inclusive in the model (it has no L3)");
    g_clear_error(&e);
}

/* Itanium: the L1D holds integer data only, FP loads are served by L2
 * (latency 6, uarch.md §3.1), integer loads of the same line hit L1D. */
static void test_itanium_fp_loads_from_l2(void)
{
    collect_t c;
    pmusim_uarch_t *u = model(PMUSIM_CPU_ITA2, 1, NULL, &c);
    pmusim_uarch_access_t a = { .addr = 0x80000000, .size = 8 };
    pmusim_uarch_insn_t in = { .ip = 0x4000000000010000, .plm = 3, .naccess = 1, .access = &a };
    GError *e = NULL;
    CU_ASSERT_TRUE(pmusim_uarch_insn(u, &in, &e)); /* integer load: fills L1D */
    CU_ASSERT_TRUE(pmusim_uarch_insn(u, &in, &e)); /* hits L1D */
    in.fp = PMUSIM_UARCH_FP_SCALAR;
    CU_ASSERT_TRUE(pmusim_uarch_insn(u, &in, &e)); /* FP load: L2 */
    finish(u);
    CU_ASSERT_EQUAL(insn(&c, 1)->mem.level, PMUSIM_LVL_L1D);
    CU_ASSERT_EQUAL(insn(&c, 1)->mem.latency, 1);
    CU_ASSERT_EQUAL(insn(&c, 2)->mem.level, PMUSIM_LVL_L2);
    CU_ASSERT_EQUAL(insn(&c, 2)->mem.latency, 6);
    CU_ASSERT_TRUE(insn(&c, 2)->flags & PMUSIM_F_FP);
    done(u, &c);
}

/* IA-64 traffic below the L1 caches (docs/UARCH.md §5), counted by hand
 * on a tiny geometry: L2 8 sets of one 128-byte line, L3 4 sets of one
 * (--L2=1024,1,128 --LL=512,1,128; non-inclusive).  Code at one ip (L2
 * and L3 set 0): one L1I miss, which misses L2 (L2I on mont) and L3.
 * Data blocks a .. (a = 0x80000080 >> 7: L2 set 1, L3 set 1), stores
 * write through to L2, which allocates them modified:
 *   1 store a      L2 miss; L3 miss: BRIL
 *   2 store a+8    L2 evicts a (modified): written into L3, hits; L3 miss
 *                  evicts a (now modified): bus write-back; BRIL
 *   3 store a+16   L2 evicts a+8: hits L3; L3 evicts a+8: write-back; BRIL
 *   4 load a+4     (L2 set 5, L3 set 1) L2 miss; L3 evicts a+16 (clean); BRL
 *   5 store a+24   L2 evicts a+16, which L3 no longer holds: an L2
 *                  write-back missing L3, written to memory; L3 evicts
 *                  a+4 (clean); BRIL
 * Fetch: L2/L2I demand read 1, L3 fetch read miss 1.  L2 write-backs into
 * L3: hits 2, misses 1.  Bus: BRL 2 (the fetch, the load), BRIL 4, data
 * reads 5, write-backs 3, transactions 9.  L3_REFERENCES' and L3_MISSES'
 * EVENT part: the fetch and the write-backs, 4 and 2 (the data accesses'
 * part is their MEM records').  With a 64-byte L3 line no bus event is
 * written (the bus moves 128-byte lines) nor listed.  One model fact record
 * per fact (docs/trace-events-ia64.md, "One EVENT record per fact"): the
 * fetch's L3 miss with its BRL is one, each write-back one (the one missing
 * L3 with its bus write), each data access's bus read one, each modified L3
 * victim one. */
static void test_ia64_below_l1(void)
{
    static const char *const tiny[] = { "--L2=1024,1,128", "--LL=512,1,128", NULL };
    static const char *const ll64[] = { "--L2=1024,1,128", "--LL=512,1,64", NULL };
    static const pmusim_cpu_t cpus[] = { PMUSIM_CPU_ITA2, PMUSIM_CPU_MONT, PMUSIM_CPU_ITA2 };
    for (size_t k = 0; k < G_N_ELEMENTS(cpus); k++) {
        const gboolean mont = cpus[k] == PMUSIM_CPU_MONT, bus = k < 2;
        collect_t c;
        pmusim_uarch_t *u = model(cpus[k], 1, bus ? tiny : ll64, &c);
        const uint64_t ip = 0x4000000000010000, a = 0x80000080;
        static const struct {
            uint64_t blk;
            gboolean store;
        } seq[] = { { 0, TRUE }, { 8, TRUE }, { 16, TRUE }, { 4, FALSE }, { 24, TRUE } };
        for (size_t i = 0; i < G_N_ELEMENTS(seq); i++)
            run(u, 0, ip, a + (seq[i].blk << 7), 8, seq[i].store, FALSE);
        finish(u);
        for (guint i = 0; i < 5; i++)
            CU_ASSERT_EQUAL(insn(&c, i)->mem.level, PMUSIM_LVL_LOCAL_DRAM);
        /* one model fact record each (EVENT code 0x100, umask the fact of
         * sim/models/ia64/trace-facts.csv) */
        CU_ASSERT_EQUAL(ev_sum(&c, 0x100, 0x01), 1); /* ITLB_L1_MISS */
        CU_ASSERT_EQUAL(ev_sum(&c, 0x100, 0x02), 0); /* L2_IFETCH_HIT */
        CU_ASSERT_EQUAL(ev_sum(&c, 0x100, 0x03), 1); /* L2_IFETCH_MISS */
        CU_ASSERT_EQUAL(ev_sum(&c, 0x100, 0x04), 0); /* L3_IFETCH_HIT */
        const uint64_t b = bus ? 1 : 0;
        CU_ASSERT_EQUAL(ev_sum(&c, 0x100, 0x05), 1 - b); /* L3_IFETCH_MISS */
        CU_ASSERT_EQUAL(ev_sum(&c, 0x100, 0x06), b);     /* L3_IFETCH_MISS_BUS (BRL) */
        CU_ASSERT_EQUAL(ev_sum(&c, 0x100, 0x07), 2);     /* L3_WB_HIT */
        CU_ASSERT_EQUAL(ev_sum(&c, 0x100, 0x08), 1 - b); /* L3_WB_MISS */
        CU_ASSERT_EQUAL(ev_sum(&c, 0x100, 0x09), b);     /* L3_WB_MISS_BUS (a write-back) */
        CU_ASSERT_EQUAL(ev_sum(&c, 0x100, 0x0a), b);     /* BUS_READ_LOAD (BRL) */
        CU_ASSERT_EQUAL(ev_sum(&c, 0x100, 0x0b), b * 4); /* BUS_READ_STORE (BRIL) */
        CU_ASSERT_EQUAL(ev_sum(&c, 0x100, 0x0c), b * 2); /* BUS_WB_VICTIM: steps 2, 3 */
        CU_ASSERT_EQUAL(ev_sum(&c, 0xdf, 0x00), 4); /* L3_LINES_REPLACED: steps 2-5 */
        CU_ASSERT_EQUAL(ev_sum(&c, 0x47, 0x02), 1); /* ITLB_MISSES_FETCH_L2ITLB: cold, a walk */
        /* no copies under the including events (session 15 wrote them) */
        static const uint16_t copies[][2] = {
            { 0x47, 0x01 }, { 0x47, 0x03 }, { 0x42, 0x00 }, { 0x78, 0x05 }, { 0x78, 0x09 },
            { 0x78, 0x0d }, { 0xdd, 0x02 }, { 0xdd, 0x0f }, { 0xde, 0x09 }, { 0xde, 0x0f },
            { 0xdb, 0x00 }, { 0xdc, 0x00 }, { 0x8b, 0x0a }, { 0x87, 0x02 }, { 0x8a, 0x0e },
        };
        for (size_t i = 0; i < G_N_ELEMENTS(copies); i++)
            CU_ASSERT_EQUAL(ev_sum(&c, copies[i][0], copies[i][1]), 0);
        pmusim_trace_header_t h;
        pmusim_trace_header_init(&h, cpus[k], 1);
        pmusim_uarch_header(u, &h);
        const char *ev = pmusim_trace_header_get_meta(&h, "events");
        CU_ASSERT_PTR_NOT_NULL_FATAL(ev);
        CU_ASSERT_STRING_EQUAL(ev, bus ? (mont ? IA64_FACTS_MONT "," IA64_FACTS_BUS
                                               : IA64_FACTS_ITA2 "," IA64_FACTS_BUS)
                                       : IA64_FACTS_ITA2 "," IA64_FACTS_NOBUS);
        pmusim_trace_header_clear(&h);
        done(u, &c);
    }
}

/* Montecito: thread 0 misses L3, the model asks for a switch, thread 1
 * runs; at most one thread retires in any cycle, THREAD records frame the
 * switch, and the held miss of thread 0 retires after it is switched back. */
static void test_montecito_switch_on_event(void)
{
    collect_t c;
    pmusim_uarch_t *u = model(PMUSIM_CPU_MONT, 2, NULL, &c);
    run(u, 0, 0x4000000000010000, 0, 0, FALSE, FALSE);
    CU_ASSERT_FALSE(pmusim_uarch_switch_wanted(u));
    run(u, 0, 0x4000000000010000, 0x90000000, 8, FALSE, FALSE); /* L3 miss */
    CU_ASSERT_TRUE(pmusim_uarch_switch_wanted(u));
    for (int i = 0; i < 20; i++)
        run(u, 1, 0x4000000000020000, 0, 0, FALSE, FALSE);
    run(u, 0, 0x4000000000010010, 0, 0, FALSE, FALSE);
    finish(u);
    assert_cycle_order(&c);
    guint threads = 0, ts = 0;
    int last_thread = -1;
    uint64_t last_cycle = UINT64_MAX;
    for (guint i = 0; i < c.recs->len; i++) {
        const pmusim_rec_t *r = rec(&c, i);
        if (r->kind == PMUSIM_REC_THREAD)
            threads++;
        if (r->kind == PMUSIM_REC_EVENT && r->ev_code == 0x0c && r->ev_umask == 0x01)
            ts++;
        if (r->kind == PMUSIM_REC_INSN) {
            if (r->cycle == last_cycle)
                CU_ASSERT_EQUAL(r->thread, last_thread);
            last_cycle = r->cycle;
            last_thread = r->thread;
        }
    }
    /* park thread 1 at cycle 0, 0 -> 1, and 1 -> 0: 1 + 2 + 2 */
    CU_ASSERT_EQUAL(threads, 5);
    CU_ASSERT_EQUAL(ts, 1);
    /* the miss (second INSN of thread 0) retires after thread 1's 20 */
    const pmusim_rec_t *miss = NULL;
    for (guint i = 0; i < c.recs->len; i++)
        if (rec(&c, i)->kind == PMUSIM_REC_INSN && rec(&c, i)->mem.addr == 0x90000000)
            miss = rec(&c, i);
    CU_ASSERT_PTR_NOT_NULL_FATAL(miss);
    CU_ASSERT_TRUE(miss->cycle > insn(&c, 20)->cycle);
    done(u, &c);
}

/* Two SMT threads with different stalls come out merged in cycle order. */
/* A MARKER passed through on a Montecito thread whose L3-missing load is
 * held (its records wait for a switch) comes after that load's records,
 * not at the thread's last retirement before it: the stream stays in
 * cycle order, with or without a switch before the load retires. */
static void test_montecito_marker_after_held(void)
{
    for (int sw = 0; sw < 2; sw++) {
        collect_t c;
        pmusim_uarch_t *u = model(PMUSIM_CPU_MONT, 2, NULL, &c);
        run(u, 0, 0x4000000000010000, 0, 0, FALSE, FALSE);
        run(u, 0, 0x4000000000010000, 0x90000000, 8, FALSE, FALSE); /* L3 miss: held */
        pmusim_rec_t mk;
        memset(&mk, 0, sizeof mk);
        mk.kind = PMUSIM_REC_MARKER;
        mk.plm = 3;
        mk.name = "here";
        GError *e = NULL;
        CU_ASSERT_TRUE_FATAL(pmusim_uarch_passthrough(u, &mk, &e));
        for (int i = 0; sw && i < 5; i++)
            run(u, 1, 0x4000000000020000, 0, 0, FALSE, FALSE);
        run(u, 0, 0x4000000000010010, 0, 0, FALSE, FALSE);
        finish(u);
        assert_cycle_order(&c);
        guint miss = UINT_MAX, marker = UINT_MAX;
        for (guint i = 0; i < c.recs->len; i++) {
            if (rec(&c, i)->kind == PMUSIM_REC_INSN && rec(&c, i)->mem.addr == 0x90000000)
                miss = i;
            if (rec(&c, i)->kind == PMUSIM_REC_MARKER)
                marker = i;
        }
        CU_ASSERT_FATAL(miss != UINT_MAX && marker != UINT_MAX);
        CU_ASSERT(marker > miss);
        CU_ASSERT(rec(&c, marker)->cycle >= rec(&c, miss)->cycle);
        done(u, &c);
    }
}

static void test_smt_merge_in_cycle_order(void)
{
    collect_t c;
    pmusim_uarch_t *u = model(PMUSIM_CPU_WSM, 2, NULL, &c);
    for (int i = 0; i < 5000; i++) {
        run(u, 0, 0x401000, 0x10000000 + (uint64_t)i * 64, 8, FALSE, TRUE);
        run(u, 1, 0x501000, 0x20000000 + (uint64_t)(i % 64) * 8, 8, FALSE, FALSE);
    }
    finish(u);
    assert_cycle_order(&c);
    pmusim_uarch_stats_t st;
    pmusim_uarch_get_stats(u, &st);
    CU_ASSERT_EQUAL(st.insns, 10000);
    guint n = 0;
    for (guint i = 0; i < c.recs->len; i++)
        n += rec(&c, i)->kind == PMUSIM_REC_INSN;
    CU_ASSERT_EQUAL(n, 10000);
    done(u, &c);
}

/* An instruction's MEM records come directly after its INSN record (FORMAT.md
 * §4.3) also when SMT threads are merged: threads of 2 (wsm) and 4 (knm)
 * take turns in bursts of 80 instructions, half of them with 57 or 64
 * accesses (the model's maximum), the others 0-2, some far apart (misses)
 * and some on one line.  A burst is longer than a thread's merge queue
 * (2,048 records), so the running thread's records are forced out while the
 * others wait, and the next thread's first instruction is clamped to the
 * cycle of a long instruction whose MEM records are half out.  Each MEM
 * record must follow an INSN or MEM record of its thread and cycle. */
static void test_smt_merge_mem_follows_insn(void)
{
    static const struct { pmusim_cpu_t cpu; uint32_t threads; } cfgs[] = {
        { PMUSIM_CPU_WSM, 2 }, { PMUSIM_CPU_KNM, 4 }, { PMUSIM_CPU_KNM, 2 },
    };
    for (size_t k = 0; k < G_N_ELEMENTS(cfgs); k++) {
        collect_t c;
        pmusim_uarch_t *u = model(cfgs[k].cpu, cfgs[k].threads, NULL, &c);
        uint64_t x = 12345 + k;
        pmusim_uarch_access_t acc[PMUSIM_UARCH_MAX_ACCESSES];
        guint mems = 0;
        for (int i = 0; i < 4000; i++) {
            x = x * 6364136223846793005u + 1442695040888963407u;
            const uint32_t t = (uint32_t)(i / 80) % cfgs[k].threads;
            const uint32_t r = (uint32_t)(x >> 40) & 15;
            /* 1 in 2: a long instruction; else 0, 1 or 2 accesses */
            const uint32_t na = r < 8 ? PMUSIM_UARCH_MAX_ACCESSES - (r & 1) * 7 : r % 3;
            for (uint32_t j = 0; j < na; j++) {
                x = x * 6364136223846793005u + 1442695040888963407u;
                acc[j] = (pmusim_uarch_access_t){
                    .addr = (x >> 33) & 1 ? 0x7fff0000 + ((x >> 20) & 0xfff)
                                          : (x >> 8) & 0xffffffffff8u,
                    .size = 1u << ((x >> 50) & 3),
                    .is_store = (uint8_t)((x >> 55) & 1),
                };
            }
            pmusim_uarch_insn_t in = { .ip = 0x401000 + 16 * (uint64_t)(i % 64) + 0x100000 * t,
                                       .thread = (uint8_t)t, .plm = 3, .len = 5,
                                       .naccess = na, .access = acc };
            GError *e = NULL;
            CU_ASSERT_TRUE_FATAL(pmusim_uarch_insn(u, &in, &e));
        }
        finish(u);
        assert_cycle_order(&c);
        guint bad = 0;
        for (guint i = 0; i < c.recs->len; i++) {
            const pmusim_rec_t *m = rec(&c, i);
            if (m->kind != PMUSIM_REC_MEM)
                continue;
            mems++;
            const pmusim_rec_t *p = i ? rec(&c, i - 1) : NULL;
            if (!p || (p->kind != PMUSIM_REC_INSN && p->kind != PMUSIM_REC_MEM) ||
                p->thread != m->thread || p->cycle != m->cycle)
                bad++;
        }
        /* half the instructions make 57 or 64 accesses: 4,000 x 30 MEM records */
        CU_ASSERT_TRUE(mems > 100000);
        CU_ASSERT_EQUAL(bad, 0);
        done(u, &c);
    }
}

/* A thread's merge queue holds up to 2,048 records other than EVENT records
 * while another started thread has given nothing (uarch.c, QUEUE_CAP);
 * beyond, the earliest go out and the silent thread's first instruction is
 * clamped to their cycle.  EVENT records (here the trace's own, passed
 * through) do not count, so where that happens does not depend on which
 * EVENT kinds the model writes.  Thread 0 runs n instructions on one line
 * (about 1.5 a cycle here), each followed by k EVENT records, then thread 1
 * runs one, whose cold fetch (I1, ITLB walk, L2, L3, DRAM) retires it near
 * cycle 300 when nothing holds it.  2,000 instructions with 5 EVENT records
 * each (12,000 records, 2,000 not EVENT): nothing is forced out, thread 1
 * retires before cycle 500 (the cap counting every record forced about 10,000
 * out and clamped it to cycle 1,131); 6,000 without: about 4,000 go
 * out, thread 1 is clamped beyond cycle 2,000. */
static void test_smt_queue_cap_events(void)
{
    for (int big = 0; big < 2; big++) {
        collect_t c;
        pmusim_uarch_t *u = model(PMUSIM_CPU_WSM, 2, NULL, &c);
        const int n = big ? 6000 : 2000, k = big ? 0 : 5;
        GError *e = NULL;
        for (int i = 0; i < n; i++) {
            pmusim_uarch_insn_t in = { .ip = 0x401000 + 4 * (uint64_t)(i % 8), .thread = 0,
                                       .plm = 3, .len = 4 };
            CU_ASSERT_TRUE_FATAL(pmusim_uarch_insn(u, &in, &e));
            for (int j = 0; j < k; j++) {
                pmusim_rec_t ev;
                memset(&ev, 0, sizeof ev);
                ev.kind = PMUSIM_REC_EVENT;
                ev.plm = 3;
                ev.ev_code = 0x3c;
                ev.n = 1;
                CU_ASSERT_TRUE_FATAL(pmusim_uarch_passthrough(u, &ev, &e));
            }
        }
        pmusim_uarch_insn_t in1 = { .ip = 0x501000, .thread = 1, .plm = 3, .len = 4 };
        CU_ASSERT_TRUE_FATAL(pmusim_uarch_insn(u, &in1, &e));
        finish(u);
        assert_cycle_order(&c);
        uint64_t t1 = UINT64_MAX;
        guint evs = 0;
        for (guint i = 0; i < c.recs->len; i++) {
            const pmusim_rec_t *r = rec(&c, i);
            if (r->kind == PMUSIM_REC_INSN && r->thread == 1)
                t1 = r->cycle;
            evs += r->kind == PMUSIM_REC_EVENT && r->ev_code == 0x3c;
        }
        CU_ASSERT_EQUAL(evs, (guint)(n * k));
        if (big) {
            CU_ASSERT_TRUE(t1 > 2000 && t1 != UINT64_MAX);
        } else {
            CU_ASSERT_TRUE(t1 < 500);
        }
        done(u, &c);
    }
}

/* Which SMT thread a producer steps next (trace gen): thread 1 halts 5,000
 * cycles, then both run 6,000 instructions on 8 hot lines (about 1.5 a
 * cycle each once warm).  Taking turns, thread 1's records wait for thread
 * 0, which is 5,000 cycles behind: after 2,048 of them its queue is full,
 * they go out and thread 0 is moved up to them, and so on (measured: 1,985
 * instructions moved up, 5,958 cycles in all; pmusim_uarch_stats_t.moved_up).
 * Stepping the thread whose next instruction dispatches first
 * (pmusim_uarch_thread_time()) runs thread 0 alone until cycle 5,000:
 * nothing is moved up. */
static void test_smt_step_earliest(void)
{
    for (int turns = 0; turns < 2; turns++) {
        collect_t c;
        pmusim_uarch_t *u = model(PMUSIM_CPU_WSM, 2, NULL, &c);
        GError *e = NULL;
        CU_ASSERT_TRUE_FATAL(pmusim_uarch_halt(u, 1, 5000, &e));
        CU_ASSERT_EQUAL(pmusim_uarch_thread_time(u, 1), 5001);
        CU_ASSERT_EQUAL(pmusim_uarch_thread_time(u, 0), 0);
        int left[2] = { 6000, 6000 };
        unsigned cur = 0;
        while (left[0] || left[1]) {
            if (turns) {
                cur = left[1 - cur] ? 1 - cur : cur;
            } else {
                uint64_t t0 = pmusim_uarch_thread_time(u, 0), t1 = pmusim_uarch_thread_time(u, 1);
                cur = !left[0] ? 1 : !left[1] ? 0 : t1 < t0 ? 1 : 0;
            }
            run(u, cur, (cur ? 0x501000 : 0x401000) + 4 * (uint64_t)(left[cur] % 128), 0, 0,
                FALSE, FALSE);
            left[cur]--;
        }
        finish(u);
        assert_cycle_order(&c);
        pmusim_uarch_stats_t st;
        pmusim_uarch_get_stats(u, &st);
        if (turns) {
            CU_ASSERT_TRUE(st.moved_up >= 1);
            CU_ASSERT_TRUE(st.moved_up_cycles > 2000);
        } else {
            CU_ASSERT_EQUAL(st.moved_up, 0);
            CU_ASSERT_EQUAL(st.moved_up_cycles, 0);
        }
        uint64_t first1 = UINT64_MAX;
        for (guint i = 0; i < c.recs->len; i++)
            if (rec(&c, i)->kind == PMUSIM_REC_INSN && rec(&c, i)->thread == 1 &&
                first1 == UINT64_MAX)
                first1 = rec(&c, i)->cycle;
        CU_ASSERT_TRUE(first1 > 5000);
        done(u, &c);
    }
}

/* Allocation waits for a load buffer entry (wsm: 48, uarch.md §1.4; an
 * entry frees the cycle after its load retires).  60 loads at one IP, the
 * first to a new line of a new page, the others to that line.
 * Derivation (latencies as in test_overlap_independent_not_dependent):
 *   fetch 301 (ITLB walk 30 + L1I miss to DRAM 271): loads 0-47 allocate
 *   4 a cycle in 301..312, so 48 entries are taken; load 0 (DTLB walk 30 +
 *   DRAM 271) retires at 602, loads 1-3 with it, then 4 a cycle (load k at
 *   602 + k / 4).  Load 48 could allocate at 313 (312 is full) but waits
 *   for load 0's entry, free at 603: 290 cycles of RESOURCE_STALLS:LOAD, and
 *   of ANY.  Loads 49-51 take loads 1-3's (free at 603) in 603; load 52
 *   needs load 4's, free at 604, the first cycle with a slot for it: no
 *   more stalls (and the window of 128 is never full: ROB_FULL 0).  The
 *   last load retires as without the buffer: 48-51 after 44-47 (613) at
 *   614, 56-59 at 616.
 * And a store buffer entry (32): the same load, then 35 stores to its line
 * (L1D hits, done the cycle after allocation, retired in order behind the
 * load: instruction i at 602 + i / 4).  Instruction 33, the 33rd store,
 * could allocate at 309 (32-35 share the cycle) and waits for the first
 * store's (instruction 1's) entry, free at 603: 294 cycles of
 * RESOURCE_STALLS:STORE and ANY; 34 and 35 take those of instructions 2
 * and 3 in 603. */
static void test_alloc_load_store_buffers(void)
{
    collect_t c;
    pmusim_uarch_t *u = model(PMUSIM_CPU_WSM, 1, NULL, &c);
    for (int k = 0; k < 60; k++)
        run(u, 0, 0x401000, 0x1000000, 8, FALSE, FALSE);
    finish(u);
    CU_ASSERT_EQUAL(insn(&c, 0)->cycle, 602);
    CU_ASSERT_EQUAL(insn(&c, 47)->cycle, 613);
    CU_ASSERT_EQUAL(insn(&c, 59)->cycle, 616);
    CU_ASSERT_EQUAL(ev_sum(&c, 0xa2, 0x02), 290); /* RESOURCE_STALLS:LOAD */
    CU_ASSERT_EQUAL(ev_sum(&c, 0xa2, 0x01), 290); /* RESOURCE_STALLS:ANY */
    CU_ASSERT_EQUAL(ev_sum(&c, 0xa2, 0x08), 0);   /* RESOURCE_STALLS:STORE */
    CU_ASSERT_EQUAL(ev_sum(&c, 0xa2, 0x10), 0);   /* RESOURCE_STALLS:ROB_FULL */
    /* L1I:CYCLES_STALLED: the first fetch's ITLB walk and L1I miss */
    CU_ASSERT_EQUAL(ev_sum(&c, 0x80, 0x04), 301);
    done(u, &c);

    u = model(PMUSIM_CPU_WSM, 1, NULL, &c);
    run(u, 0, 0x401000, 0x1000000, 8, FALSE, FALSE);
    for (int k = 1; k <= 35; k++)
        run(u, 0, 0x401000, 0x1000000, 8, TRUE, FALSE);
    finish(u);
    CU_ASSERT_EQUAL(insn(&c, 35)->cycle, 610);
    CU_ASSERT_EQUAL(ev_sum(&c, 0xa2, 0x08), 294);
    CU_ASSERT_EQUAL(ev_sum(&c, 0xa2, 0x01), 294);
    CU_ASSERT_EQUAL(ev_sum(&c, 0xa2, 0x02), 0);
    done(u, &c);
}

/* Westmere halves the load and store buffers between two SMT threads, as
 * it does the ROB (uarch.md §1.4: 24 load and 16 store entries a thread,
 * against 48 and 32 on one).  Each thread runs the stream of
 * test_alloc_load_store_buffers on its own code page and data page (thread
 * t: ip 0x401000 + t * 0x100000, data 0x1000000 + t * 0x1000000), the
 * threads' instructions given alternately: a load to a new line of a new
 * page, then `n` more loads or `n` stores to that line.
 * Derivation, per thread (the two are alike and share no line or page):
 *   fetch 301 (ITLB walk 30 + L1I miss to DRAM 271); under SMT a uop costs
 *   2 of the 4 dispatch slots (uarch.md §1.4), so instruction k allocates
 *   at 301 + k / 2 when nothing else holds it.  Instruction 0 (DTLB walk
 *   30 + DRAM 271) retires at 602, the stores and loads behind it no
 *   earlier: the first entries free at 603.
 *   Stores, n = 17: the 17th store (instruction 17) could allocate at
 *   301 + 8 = 309, but the 16 entries hold stores 1-16; it waits for
 *   store 1's, free at 603: 294 cycles of RESOURCE_STALLS:STORE and ANY a
 *   thread, 588 for the two.  On one thread (32 entries) 17 stores fit: 0.
 *   Loads, n = 24: load 24 (instruction 24) could allocate at 301 + 12 =
 *   313; the 24 entries hold loads 0-23: it waits for load 0's, free at
 *   603: 290 cycles of RESOURCE_STALLS:LOAD and ANY a thread, 580 for two.
 *   On one thread (48 entries) 25 loads fit: 0.
 * Without the halving (u->lb, u->sb the whole buffers under SMT) the two
 * threads' counts are 0 as well: checked by that mutation. */
static void smt_buffers_run(uint32_t threads, gboolean store, int n, uint64_t ev[4])
{
    collect_t c;
    pmusim_uarch_t *u = model(PMUSIM_CPU_WSM, threads, NULL, &c);
    for (int k = 0; k <= n; k++)
        for (uint32_t t = 0; t < threads; t++)
            run(u, t, 0x401000 + t * 0x100000, 0x1000000 + t * 0x1000000, 8, k && store, FALSE);
    finish(u);
    ev[0] = ev_sum(&c, 0xa2, 0x02); /* RESOURCE_STALLS:LOAD */
    ev[1] = ev_sum(&c, 0xa2, 0x08); /* RESOURCE_STALLS:STORE */
    ev[2] = ev_sum(&c, 0xa2, 0x01); /* RESOURCE_STALLS:ANY */
    ev[3] = ev_sum(&c, 0xa2, 0x10); /* RESOURCE_STALLS:ROB_FULL */
    done(u, &c);
}

/* The stream of `n` stores (or loads) after the first load stalls each of
 * two threads `stall` cycles on its buffer (ev[full]) and on ANY, and
 * neither one thread (the whole buffer) nor two with one access fewer. */
static void smt_buffers_expect(gboolean store, int n, uint64_t stall)
{
    const unsigned full = store ? 1 : 0, other = store ? 0 : 1;
    uint64_t ev[4];
    smt_buffers_run(2, store, n, ev);
    CU_ASSERT_EQUAL(ev[full], 2 * stall);
    CU_ASSERT_EQUAL(ev[2], 2 * stall);
    CU_ASSERT_EQUAL(ev[other], 0);
    CU_ASSERT_EQUAL(ev[3], 0);
    smt_buffers_run(1, store, n, ev);
    CU_ASSERT_EQUAL(ev[full], 0);
    CU_ASSERT_EQUAL(ev[2], 0);
    smt_buffers_run(2, store, n - 1, ev);
    CU_ASSERT_EQUAL(ev[full], 0);
}

static void test_smt_halves_load_store_buffers(void)
{
    smt_buffers_expect(TRUE, 17, 294);
    smt_buffers_expect(FALSE, 24, 290);
}

/* Knights Mill's cycles without allocation (uarch.md §2.1, §2.2: ITLB
 * walk 7 + 30, DDR 200).  Derivation: instruction 0 at 0x401000: its
 * fetch (37 + 200) makes allocation wait to 237, 236 cycles after cycle 0
 * with none; instruction 1 at 0x401040 (same page, new line: L1I miss to
 * DDR, 200) waits from 237 to 437: 199 more.  Both are the front end's
 * (NOT_DELIVERED 435; FETCH_STALL:ICACHE_FILL_PENDING_CYCLES the two fills,
 * 400).  Instruction 2, a taken conditional branch in the same line, is
 * mispredicted (counters start weakly not taken): allocated at 437, done at
 * 438, the front end delivers again at 438 + 12; instruction 3 waits from
 * 437 to 450, 12 cycles without allocation that NO_ALLOC_CYCLES:ALL counts
 * (447) and NOT_DELIVERED does not (MISPREDICTS: the penalty, 12). */
static void test_alloc_knm_no_alloc(void)
{
    collect_t c;
    pmusim_uarch_t *u = model(PMUSIM_CPU_KNM, 1, NULL, &c);
    run(u, 0, 0x401000, 0, 0, FALSE, FALSE);
    run(u, 0, 0x401040, 0, 0, FALSE, FALSE);
    run_branch(u, 0x401044, PMUSIM_UARCH_BR_COND, TRUE, 0x401048);
    run(u, 0, 0x401048, 0, 0, FALSE, FALSE);
    finish(u);
    CU_ASSERT_EQUAL(insn(&c, 1)->cycle, 438);
    CU_ASSERT_FALSE(insn(&c, 2)->br.dir_ok);
    CU_ASSERT_EQUAL(insn(&c, 3)->cycle, 451);
    CU_ASSERT_EQUAL(ev_sum(&c, 0xca, 0x7f), 447); /* NO_ALLOC_CYCLES:ALL */
    CU_ASSERT_EQUAL(ev_sum(&c, 0xca, 0x90), 435); /* NO_ALLOC_CYCLES:NOT_DELIVERED */
    CU_ASSERT_EQUAL(ev_sum(&c, 0xca, 0x04), 12);  /* NO_ALLOC_CYCLES:MISPREDICTS */
    CU_ASSERT_EQUAL(ev_sum(&c, 0x86, 0x04), 400); /* FETCH_STALL:ICACHE_FILL_PENDING_CYCLES */
    CU_ASSERT_EQUAL(ev_sum(&c, 0xca, 0x01), 0);   /* NO_ALLOC_CYCLES:ROB_FULL */
    CU_ASSERT_EQUAL(ev_sum(&c, 0xe6, 0x08), 0);   /* BACLEARS:RETURN: never written */
    done(u, &c);
}

/* A front-end resteer (a taken direct branch the BTB does not know,
 * branch_predict()) counts BACLEARS:ALL, and on Knights Mill BACLEARS:COND
 * too when the branch is conditional (Intel: "front end resteers for
 * conditional branches").  4,096 always-taken conditional branches, 64
 * bytes apart, run 8 times: more than the BTB holds, so every one the
 * direction table predicts taken resteers on a BTB miss (the first pass
 * mispredicts some instead: 28,659-30,714 of 32,768); then the same with
 * direct jumps, all 32,768 resteers, which count ALL only.  Westmere has no COND
 * umask: no 0xe6/0x10 record. */
static void test_baclears_cond(void)
{
    static const pmusim_cpu_t cpus[] = { PMUSIM_CPU_KNM, PMUSIM_CPU_WSM };
    for (size_t k = 0; k < G_N_ELEMENTS(cpus); k++) {
        for (int jump = 0; jump < 2; jump++) {
            collect_t c;
            pmusim_uarch_t *u = model(cpus[k], 1, NULL, &c);
            GError *e = NULL;
            for (int pass = 0; pass < 8; pass++)
                for (uint64_t i = 0; i < 4096; i++) {
                    const uint64_t ip = 0x400000 + 64 * i;
                    pmusim_uarch_insn_t in = {
                        .ip = ip, .thread = 0, .plm = 3, .len = 2,
                        .br = jump ? PMUSIM_UARCH_BR_JUMP : PMUSIM_UARCH_BR_COND,
                        .taken = 1, .target = i == 4095 ? 0x400000 : ip + 64,
                    };
                    CU_ASSERT_TRUE_FATAL(pmusim_uarch_insn(u, &in, &e));
                }
            finish(u);
            const uint64_t all = ev_sum(&c, 0xe6, 0x01), cond = ev_sum(&c, 0xe6, 0x10);
            /* jumps: the BTB never knows one (an LRU BTB cycled over more
             * branches than it holds); conditional branches: every pass
             * after the first's direction mispredictions */
            if (jump) {
                CU_ASSERT_EQUAL(all, 8 * 4096);
            } else {
                CU_ASSERT_TRUE(all > 6 * 4096 && all < 8 * 4096);
            }
            if (cpus[k] == PMUSIM_CPU_KNM && !jump) {
                CU_ASSERT_EQUAL(cond, all);
            } else {
                CU_ASSERT_EQUAL(cond, 0);
            }
            done(u, &c);
        }
    }
}

static void test_options(void)
{
    pmusim_uarch_options_t o;
    pmusim_uarch_options_init(&o);
    gboolean used;
    GError *e = NULL;
    CU_ASSERT_TRUE(pmusim_uarch_options_parse(&o, "--D1=65536,2,64", &used, &e));
    CU_ASSERT_TRUE(used && o.d1_set && o.d1.size == 65536 && o.d1.assoc == 2 && o.d1.line == 64);
    CU_ASSERT_TRUE(pmusim_uarch_options_parse(&o, "--records=5", &used, &e));
    CU_ASSERT_FALSE(used);
    CU_ASSERT_TRUE(pmusim_uarch_options_parse(&o, "--L2=none", &used, &e));
    CU_ASSERT_TRUE(used && o.no_l2);
    /* what cachegrind (valgrind 3.19) accepts, each tried on it: white
     * space and a sign before a number, 16-byte lines, 16384 ways (fully
     * associative), 2^29-byte lines, 12 ways with 2^k sets, one set of two
     * lines, 3 ways of 2^23 sets (1.5 GiB) */
    static const char *const good[] = {
        "--D1=  32768,+8, 64", "--D1=32768,8,16",       "--LL=1048576,16384,64",
        "--LL=1073741824,2,536870912", "--LL=3145728,12,64", "--D1=128,1,64",
        "--I1=1610612736,3,64",
    };
    static const struct { uint64_t size; uint32_t assoc, line; } good_geom[] = {
        { 32768, 8, 64 }, { 32768, 8, 16 }, { 1048576, 16384, 64 }, { 1073741824, 2, 536870912 },
        { 3145728, 12, 64 }, { 128, 1, 64 }, { 1610612736, 3, 64 },
    };
    G_STATIC_ASSERT(G_N_ELEMENTS(good) == G_N_ELEMENTS(good_geom));
    for (size_t i = 0; i < G_N_ELEMENTS(good); i++) {
        pmusim_uarch_options_init(&o);
        CU_ASSERT_TRUE(pmusim_uarch_options_parse(&o, good[i], &used, &e));
        const pmusim_uarch_geom_t *g = good[i][2] == 'D' ? &o.d1 : good[i][2] == 'L' ? &o.ll : &o.i1;
        CU_ASSERT_TRUE(used && g->size == good_geom[i].size && g->assoc == good_geom[i].assoc &&
                       g->line == good_geom[i].line);
        g_clear_error(&e);
    }
    static const char *const bad[] = {
        "--D1=1000,8,64",   /* not a multiple of 8 * 64 */
        "--D1=32768,8,8",   /* cachegrind: "Cache line size is too small" */
        "--D1=64,1,64",     /* cachegrind: "Cache size <= line size" */
        "--D1=2147483648,8,64", /* cachegrind: "... too large and overflowed" */
        "--D1=99999999999999999999999,8,64",
        "--D1=-32768,-8,64", /* a negative size (sets 64, size <= line) */
        "--D1=32768,8,64,", /* a fourth field */
        "--D1=32768,8, ",   /* white space only */
        "--D1=32768,+,64",  /* a sign without digits */
        "--D1=,8,64",       /* an empty field (cachegrind: size 0) */
        "--D1=32768,8,0",   /* line 0 */
        "--D1=32768,8,48",  /* line not a power of two */
        "--LL=12582912,16,64", /* 12288 sets: cachegrind refuses it too */
        "--I1=32768,0,64",  /* no ways */
        "--I1=32k,8,64",    /* not a number */
        "--I1=32768,8",     /* two fields */
        "--numa=far",
    };
    for (size_t i = 0; i < G_N_ELEMENTS(bad); i++) {
        CU_ASSERT_FALSE(pmusim_uarch_options_parse(&o, bad[i], &used, &e));
        CU_ASSERT_PTR_NOT_NULL_FATAL(e);
        CU_ASSERT_EQUAL(e->code, PMUSIM_UARCH_ERROR_OPTION);
        g_clear_error(&e);
    }
    /* argv form: options removed, the rest kept in order */
    char a0[] = "annotate", a1[] = "--D1", a2[] = "16384,4,64", a3[] = "in", a4[] = "--L2=none",
         a5[] = "out";
    char *argv[] = { a0, a1, a2, a3, a4, a5, NULL };
    int argc = 6;
    pmusim_uarch_options_init(&o);
    CU_ASSERT_TRUE(pmusim_uarch_options_parse_argv(&o, &argc, argv, &e));
    CU_ASSERT_EQUAL(argc, 3);
    CU_ASSERT_STRING_EQUAL(argv[1], "in");
    CU_ASSERT_STRING_EQUAL(argv[2], "out");
    CU_ASSERT_TRUE(o.d1_set && o.d1.size == 16384 && o.no_l2);
    /* the model refuses what the CPU cannot do */
    CU_ASSERT_PTR_NULL(pmusim_uarch_new(PMUSIM_CPU_WSM, 3, NULL, collect_sink, NULL, &e));
    CU_ASSERT_EQUAL(e->code, PMUSIM_UARCH_ERROR_OPTION);
    g_clear_error(&e);
    pmusim_uarch_options_init(&o);
    o.numa_interleave = TRUE;
    CU_ASSERT_PTR_NULL(pmusim_uarch_new(PMUSIM_CPU_WSM, 1, &o, collect_sink, NULL, &e));
    g_clear_error(&e);
    CU_ASSERT_EQUAL(pmusim_uarch_max_threads(PMUSIM_CPU_KNM), 4);
    CU_ASSERT_EQUAL(pmusim_uarch_max_threads(PMUSIM_CPU_ITA2), 1);
}

/* wsm_dp with --numa=interleave: odd 4 KiB pages live on the other socket,
 * so a cold load there is remote DRAM with offcore supplier bit 13
 * (REMOTE_DRAM), an even page local DRAM with bit 12; knm L1 misses that
 * hit L2 are offcore requests supplied by this tile's L2 (bit 26). */
static void test_offcore_and_remote(void)
{
    static const char *const opts[] = { "--numa=interleave", NULL };
    collect_t c;
    pmusim_uarch_t *u = model(PMUSIM_CPU_WSM_DP, 1, opts, &c);
    run(u, 0, 0x401000, 0x10000000, 8, FALSE, FALSE);
    run(u, 0, 0x401000, 0x10001000, 8, TRUE, FALSE);
    finish(u);
    CU_ASSERT_EQUAL(insn(&c, 0)->mem.level, PMUSIM_LVL_LOCAL_DRAM);
    CU_ASSERT_EQUAL(insn(&c, 0)->oc.supplier, 12);
    CU_ASSERT_EQUAL(insn(&c, 0)->oc.req, 0);
    CU_ASSERT_EQUAL(insn(&c, 1)->mem.level, PMUSIM_LVL_REMOTE_DRAM);
    CU_ASSERT_EQUAL(insn(&c, 1)->oc.supplier, 13);
    CU_ASSERT_EQUAL(insn(&c, 1)->oc.req, 1);
    CU_ASSERT_EQUAL(insn(&c, 1)->oc.snoop, PMUSIM_OFFCORE_NONE);
    done(u, &c);

    u = model(PMUSIM_CPU_KNM, 1, NULL, &c);
    for (uint64_t a = 0; a < 2 * 32768; a += 64) /* 64 KiB: twice the L1D */
        run(u, 0, 0x401000, 0x10000000 + a, 8, FALSE, FALSE);
    run(u, 0, 0x401000, 0x10000000, 8, FALSE, FALSE);
    finish(u);
    const pmusim_rec_t *r = insn(&c, 1024);
    CU_ASSERT_EQUAL(r->mem.level, PMUSIM_LVL_L2);
    CU_ASSERT_TRUE(r->flags & PMUSIM_F_OFFCORE);
    CU_ASSERT_EQUAL(r->oc.supplier, 26);
    CU_ASSERT_EQUAL(insn(&c, 0)->oc.supplier, 23); /* DDR_NEAR = 23 + 31 */
    CU_ASSERT_EQUAL(insn(&c, 0)->oc.snoop, 31);
    done(u, &c);
}

/* EVENT records: 64 KiB of 8-byte stores on wsm touch 1024 new lines, each
 * missing L1D and L2, and the one code line misses L1I and L2, so
 * L2_LINES_IN:ANY (0xf1/0x07) adds up to 1025; the
 * stores dirty every line, and 1024 lines pass through a 512-line L1D, so
 * the last 512 fills each evict a modified line: L1D:M_EVICT (0x51/0x04)
 * adds up to 512.  L1D:REPL is derived by the PMU model from the levels
 * (docs/trace-events-x86.md), so the uarch model writes no record for it. */
/* The occurrences the EVENT records of (code, umask) add up to. */
static uint64_t ev_sum(const collect_t *c, uint16_t code, uint16_t umask)
{
    uint64_t n = 0;
    for (guint i = 0; i < c->recs->len; i++) {
        const pmusim_rec_t *r = rec(c, i);
        if (r->kind == PMUSIM_REC_EVENT && r->ev_code == code && r->ev_umask == umask)
            n += r->n;
    }
    return n;
}

/* A wsm model after 8-byte stores from 0x10000000 every `step` bytes of `len`. */
static pmusim_uarch_t *wsm_stores(uint64_t len, uint64_t step, collect_t *c)
{
    pmusim_uarch_t *u = model(PMUSIM_CPU_WSM, 1, NULL, c);
    for (uint64_t a = 0; a < len; a += step)
        run(u, 0, 0x401000, 0x10000000 + a, 8, TRUE, FALSE);
    finish(u);
    return u;
}

static void test_replacement_events(void)
{
    collect_t c;
    pmusim_uarch_t *u = wsm_stores(65536, 8, &c);
    CU_ASSERT_EQUAL(ev_sum(&c, 0xf1, 0x07), 65536 / 64 + 1); /* L2_LINES_IN:ANY */
    CU_ASSERT_EQUAL(ev_sum(&c, 0x51, 0x04), 512);            /* L1D:M_EVICT */
    CU_ASSERT_EQUAL(ev_sum(&c, 0x51, 0x01), 0);              /* L1D:REPL */
    done(u, &c);
}

/* L2_LINES_OUT:ANY (0xf2/0x0f) is every L2 eviction, the sum of its
 * DEMAND_CLEAN and DEMAND_DIRTY records (the model has no prefetcher).
 * Stores over 512 KiB: 8,192 data lines and the code line into Westmere's
 * 256 KiB 8-way L2 (512 sets of 8): 16 lines in each set, 17 in the code
 * line's, so 511 * 8 + 9 = 4,097 evictions. */
static void test_l2_lines_out_any(void)
{
    collect_t c;
    pmusim_uarch_t *u = wsm_stores(524288, 64, &c);
    uint64_t any = ev_sum(&c, 0xf2, 0x0f);
    CU_ASSERT_EQUAL(any, 4097);
    CU_ASSERT_EQUAL(ev_sum(&c, 0xf2, 0x01) + ev_sum(&c, 0xf2, 0x02), any);
    done(u, &c);
}

/* pmusim_uarch_set_buffer(): the model builds each batch in the buffer the
 * fn gave, hands that very buffer to the sink, asks for the next one after
 * every batch, and the records are those of the model's own buffer. */
typedef struct pool {
    pmusim_rec_t *buf[3];
    unsigned next, calls, sinks;
    gboolean all_given; /* every sink call got the last buffer handed out */
    GArray *recs;
} pool_t;

static pmusim_rec_t *pool_buffer(size_t n, void *user)
{
    pool_t *p = user;
    CU_ASSERT_EQUAL(n, 1024);
    p->calls++;
    pmusim_rec_t *b = p->buf[p->next];
    p->next = (p->next + 1) % 3;
    return b;
}

static gboolean pool_sink(const pmusim_rec_t *recs, size_t n, void *user, GError **error)
{
    pool_t *p = user;
    p->sinks++;
    if (recs != p->buf[(p->next + 2) % 3])
        p->all_given = FALSE;
    g_array_append_vals(p->recs, recs, (guint)n);
    return TRUE;
}

static void test_batches_in_callers_buffer(void)
{
    collect_t c;
    pmusim_uarch_t *own = model(PMUSIM_CPU_WSM, 1, NULL, &c);
    pool_t p = { .all_given = TRUE };
    for (unsigned i = 0; i < 3; i++)
        p.buf[i] = g_new(pmusim_rec_t, 1024);
    p.recs = g_array_new(FALSE, FALSE, sizeof(pmusim_rec_t));
    GError *e = NULL;
    pmusim_uarch_t *u = pmusim_uarch_new(PMUSIM_CPU_WSM, 1, NULL, pool_sink, &p, &e);
    CU_ASSERT_PTR_NOT_NULL_FATAL(u);
    pmusim_uarch_set_buffer(u, pool_buffer);
    CU_ASSERT_EQUAL(p.calls, 1);
    /* 5000 loads striding 64 bytes: 5000 INSN records plus the model's
     * IDLE and EVENT records, several batches of 1024 */
    for (unsigned i = 0; i < 5000; i++) {
        run(own, 0, 0x1000 + 4 * (i % 16), 0x100000 + 64 * (uint64_t)i, 8, FALSE, FALSE);
        run(u, 0, 0x1000 + 4 * (i % 16), 0x100000 + 64 * (uint64_t)i, 8, FALSE, FALSE);
    }
    finish(own);
    finish(u);
    CU_ASSERT_TRUE(c.recs->len > 5000);
    CU_ASSERT_EQUAL(p.recs->len, c.recs->len);
    CU_ASSERT_EQUAL(memcmp(p.recs->data, c.recs->data, c.recs->len * sizeof(pmusim_rec_t)), 0);
    /* full batches of 1024, then the rest at finish(); one buffer at
     * set-up and one after every batch */
    CU_ASSERT_EQUAL(p.sinks, (c.recs->len + 1023) / 1024);
    CU_ASSERT_EQUAL(p.calls, p.sinks + 1);
    CU_ASSERT_TRUE(p.all_given);
    pmusim_uarch_free(u);
    for (unsigned i = 0; i < 3; i++)
        g_free(p.buf[i]);
    g_array_free(p.recs, TRUE);
    done(own, &c);
}

/* pmusim_uarch_insns(): the same records as one call per instruction; a
 * bad instruction stops the batch after the ones before it ran. */
static void test_insns_batch(void)
{
    collect_t c1, cn;
    pmusim_uarch_t *one = model(PMUSIM_CPU_WSM, 2, NULL, &c1);
    pmusim_uarch_t *many = model(PMUSIM_CPU_WSM, 2, NULL, &cn);
    pmusim_uarch_access_t acc[3000];
    pmusim_uarch_insn_t in[3000];
    for (unsigned i = 0; i < 3000; i++) {
        acc[i] = (pmusim_uarch_access_t){ .addr = 0x200000 + 72 * (uint64_t)i, .size = 8,
                                          .is_store = (uint8_t)(i % 3 == 0) };
        in[i] = (pmusim_uarch_insn_t){ .ip = 0x1000 + 4 * (i % 40), .thread = (uint8_t)(i % 2),
                                       .plm = 3, .len = 4, .naccess = i % 4 ? 1 : 0,
                                       .access = &acc[i],
                                       .br = i % 40 == 39 ? PMUSIM_UARCH_BR_COND : 0,
                                       .taken = 1, .target = 0x1000 };
    }
    GError *e = NULL;
    for (unsigned i = 0; i < 3000; i++)
        CU_ASSERT_TRUE_FATAL(pmusim_uarch_insn(one, &in[i], &e));
    CU_ASSERT_TRUE(pmusim_uarch_insns(many, in, 0, &e));
    CU_ASSERT_TRUE_FATAL(pmusim_uarch_insns(many, in, 1000, &e));
    CU_ASSERT_TRUE_FATAL(pmusim_uarch_insns(many, in + 1000, 2000, &e));
    finish(one);
    finish(many);
    CU_ASSERT_TRUE(c1.recs->len >= 3000);
    CU_ASSERT_EQUAL(cn.recs->len, c1.recs->len);
    CU_ASSERT_EQUAL(memcmp(cn.recs->data, c1.recs->data, c1.recs->len * sizeof(pmusim_rec_t)), 0);
    done(one, &c1);
    done(many, &cn);

    /* thread 2 of a 2-thread model at index 3 */
    pmusim_uarch_t *u = model(PMUSIM_CPU_WSM, 2, NULL, &cn);
    in[3].thread = 2;
    CU_ASSERT_FALSE(pmusim_uarch_insns(u, in, 10, &e));
    CU_ASSERT_PTR_NOT_NULL_FATAL(e);
    CU_ASSERT_STRING_EQUAL(e->message, "instruction at ip 0x100c: thread out of range");
    g_clear_error(&e);
    pmusim_uarch_stats_t st;
    pmusim_uarch_get_stats(u, &st);
    CU_ASSERT_EQUAL(st.insns, 3);
    done(u, &cn);
}

/* Record templates (pmusim_uarch_insn_t.tmpl): the same records as without
 * them, on x86 (uops kept) and IA-64 (uops 0), one thread (the fast path)
 * and two (templates unused). */
static void test_rec_template(void)
{
    static const struct { pmusim_cpu_t cpu; uint32_t threads; } cfgs[] = {
        { PMUSIM_CPU_WSM, 1 }, { PMUSIM_CPU_ITA2, 1 }, { PMUSIM_CPU_KNM, 1 },
        { PMUSIM_CPU_WSM, 2 },
    };
    enum { N = 3000 };
    pmusim_uarch_access_t *acc = g_new0(pmusim_uarch_access_t, N);
    pmusim_uarch_insn_t *in = g_new0(pmusim_uarch_insn_t, N);
    pmusim_rec_t *tm = g_new(pmusim_rec_t, N);
    for (size_t k = 0; k < G_N_ELEMENTS(cfgs); k++) {
        collect_t c0, c1;
        pmusim_uarch_t *plain = model(cfgs[k].cpu, cfgs[k].threads, NULL, &c0);
        pmusim_uarch_t *tmpl = model(cfgs[k].cpu, cfgs[k].threads, NULL, &c1);
        for (unsigned i = 0; i < N; i++) {
            /* 8 KiB of data: L1D hits after the first pass, most on the
             * most recent line of their set */
            acc[i] = (pmusim_uarch_access_t){ .addr = 0x200000 + 8 * (uint64_t)(i % 1024),
                                              .size = 8, .is_store = (uint8_t)(i % 3 == 0) };
            in[i] = (pmusim_uarch_insn_t){
                .ip = 0x1000 + 4 * (i % 40), .thread = (uint8_t)(i % cfgs[k].threads),
                .plm = (uint8_t)(i % 11 == 0 ? 0 : 3), .len = 4,
                .uops = (uint16_t)(1 + i % 3), .fp = (uint8_t)(i % 5 == 0),
                .flags = (uint16_t)(i % 7 == 0 ? PMUSIM_F_NOP : 0), .slot = (uint8_t)(i % 3),
                .insn = i, .naccess = i % 4 ? 1 : 0, .access = &acc[i],
                .br = i % 40 == 39 ? PMUSIM_UARCH_BR_COND : 0, .taken = 1, .target = 0x1000 };
        }
        GError *e = NULL;
        CU_ASSERT_TRUE_FATAL(pmusim_uarch_insns(plain, in, N, &e));
        for (unsigned i = 0; i < N; i++) {
            pmusim_uarch_rec_template(tmpl, &in[i], &tm[i]);
            in[i].tmpl = &tm[i];
        }
        CU_ASSERT_EQUAL(tm[0].kind, PMUSIM_REC_INSN);
        CU_ASSERT_EQUAL(tm[0].plm, 0);
        CU_ASSERT_EQUAL(tm[0].flags, PMUSIM_F_NOP | PMUSIM_F_FP);
        CU_ASSERT_EQUAL(tm[1].uops, cfgs[k].cpu == PMUSIM_CPU_ITA2 ? 0 : 2);
        CU_ASSERT_TRUE_FATAL(pmusim_uarch_insns(tmpl, in, N, &e));
        finish(plain);
        finish(tmpl);
        CU_ASSERT_TRUE(c0.recs->len >= N);
        CU_ASSERT_EQUAL_FATAL(c1.recs->len, c0.recs->len);
        guint same = 0;
        for (guint i = 0; i < c0.recs->len; i++)
            same += pmusim_test_rec_equal(rec(&c0, i), rec(&c1, i));
        CU_ASSERT_EQUAL(same, c0.recs->len);
        done(plain, &c0);
        done(tmpl, &c1);
    }
    g_free(acc);
    g_free(in);
    g_free(tm);
}

/* The privilege level of the records that are not a templated INSN
 * record (IDLE, THREAD, EVENT): the instruction's, also when the batch
 * loop sets the thread's only when such a record comes and after its last
 * instruction (one thread, templates: the fast path). */
static void test_batch_plm(void)
{
    collect_t c;
    pmusim_uarch_t *u = model(PMUSIM_CPU_WSM, 1, NULL, &c);
    pmusim_uarch_access_t a = { .addr = 0x900000, .size = 8 };
    pmusim_uarch_insn_t in[4];
    pmusim_rec_t tm[4];
    for (unsigned i = 0; i < 4; i++) {
        /* one line: after the first (general body), the fast path */
        in[i] = (pmusim_uarch_insn_t){ .ip = 0x1000 + 4 * i, .len = 4,
                                       .plm = (uint8_t)(i == 1 ? 0 : i == 3 ? 2 : 3) };
        if (i == 1) { /* a load from DRAM: an IDLE record before its INSN record */
            in[i].naccess = 1;
            in[i].access = &a;
        }
        pmusim_uarch_rec_template(u, &in[i], &tm[i]);
        in[i].tmpl = &tm[i];
    }
    GError *e = NULL;
    CU_ASSERT_TRUE_FATAL(pmusim_uarch_insns(u, in, 4, &e));
    /* THREAD records: the last instruction's level (2) */
    CU_ASSERT_TRUE_FATAL(pmusim_uarch_halt(u, 0, 100, &e));
    /* a batch that fails on its second instruction: the first ran (3) */
    pmusim_uarch_insn_t two[2] = { in[2], in[2] };
    two[1].thread = 1;
    CU_ASSERT_FALSE(pmusim_uarch_insns(u, two, 2, &e));
    CU_ASSERT_PTR_NOT_NULL_FATAL(e);
    g_clear_error(&e);
    CU_ASSERT_TRUE_FATAL(pmusim_uarch_halt(u, 0, 100, &e));
    finish(u);
    guint idle = 0, thr = 0;
    uint8_t thr_plm[4] = { 9, 9, 9, 9 };
    for (guint i = 0; i < c.recs->len; i++) {
        const pmusim_rec_t *r = rec(&c, i);
        if (r->kind == PMUSIM_REC_IDLE) {
            idle++;
            CU_ASSERT_EQUAL(r->plm, 0);
            CU_ASSERT_PTR_NOT_NULL_FATAL(insn(&c, 1));
            CU_ASSERT_EQUAL(rec(&c, i + 1)->ip, 0x1004);
        } else if (r->kind == PMUSIM_REC_THREAD && thr < 4) {
            thr_plm[thr++] = r->plm;
        }
    }
    CU_ASSERT_EQUAL(idle, 1);
    CU_ASSERT_EQUAL(thr, 4);
    CU_ASSERT_EQUAL(thr_plm[0], 2);
    CU_ASSERT_EQUAL(thr_plm[1], 2);
    CU_ASSERT_EQUAL(thr_plm[2], 3);
    CU_ASSERT_EQUAL(thr_plm[3], 3);
    done(u, &c);
}

/* ---- instructions in parts (PMUSIM_UARCH_ACC_MORE / _CONT) ---- */

/* Instruction `ip` (2 uops) on `thread` with the n accesses acc: in parts
 * of 64, or (pieces) as one instruction per 64 accesses, as producers did
 * before parts existed. */
static void run_long(pmusim_uarch_t *u, uint32_t thread, uint64_t ip,
                     const pmusim_uarch_access_t *acc, uint32_t n, gboolean pieces)
{
    for (uint32_t k = 0; k < n;) {
        const uint32_t m = MIN(n - k, PMUSIM_UARCH_MAX_ACCESSES);
        uint32_t flags = 0;
        if (!pieces)
            flags = (k ? PMUSIM_UARCH_ACC_CONT : 0) | (k + m < n ? PMUSIM_UARCH_ACC_MORE : 0);
        pmusim_uarch_insn_t in = { .ip = ip, .thread = (uint8_t)thread, .plm = 3, .len = 2,
                                   .uops = 2, .naccess = m | flags, .access = acc + k };
        GError *e = NULL;
        CU_ASSERT_TRUE_FATAL(pmusim_uarch_insn(u, &in, &e));
        k += m;
    }
}

/* Loads of one byte from n lines 64 bytes apart from `base`. */
static pmusim_uarch_access_t *line_loads(uint64_t base, uint32_t n)
{
    pmusim_uarch_access_t *a = g_new0(pmusim_uarch_access_t, n);
    for (uint32_t i = 0; i < n; i++)
        a[i] = (pmusim_uarch_access_t){ .addr = base + 64 * (uint64_t)i, .size = 1 };
    return a;
}

/* Each MEM record directly after an INSN or MEM record of its thread and
 * cycle (FORMAT.md §4.3); returns how many break it. */
static guint mem_misplaced(const collect_t *c)
{
    guint bad = 0;
    for (guint i = 0; i < c->recs->len; i++) {
        const pmusim_rec_t *m = rec(c, i);
        if (m->kind != PMUSIM_REC_MEM)
            continue;
        const pmusim_rec_t *p = i ? rec(c, i - 1) : NULL;
        bad += !p || (p->kind != PMUSIM_REC_INSN && p->kind != PMUSIM_REC_MEM) ||
               p->thread != m->thread || p->cycle != m->cycle;
    }
    return bad;
}

static guint kind_count(const collect_t *c, unsigned kind, int thread)
{
    guint k = 0;
    for (guint i = 0; i < c->recs->len; i++)
        k += rec(c, i)->kind == kind && (thread < 0 || rec(c, i)->thread == thread);
    return k;
}

/* A string instruction with 200 accesses (loads from 200 new lines) between
 * two plain instructions of its code line, given in parts of 64, 64, 64
 * and 8: one INSN record and 199 MEM records of its ip, all at its cycle
 * and before any EVENT record; 3 instructions.  Its work is timed as the
 * four pieces of older producers were (each part takes its 2 uops again),
 * so the cycles and the line fills are theirs: L2_LINES_IN:ANY (0xf1/0x07)
 * = the code line + 200 data lines = 201. */
static void test_parts_one_instruction(void)
{
    pmusim_uarch_access_t *acc = line_loads(0x10000000, 200);
    pmusim_uarch_stats_t st[2];
    uint64_t lines_in[2];
    for (int pieces = 0; pieces < 2; pieces++) {
        collect_t c;
        pmusim_uarch_t *u = model(PMUSIM_CPU_WSM, 1, NULL, &c);
        run(u, 0, 0x401000, 0, 0, FALSE, FALSE);
        run_long(u, 0, 0x401004, acc, 200, pieces);
        run(u, 0, 0x401008, 0, 0, FALSE, FALSE);
        finish(u);
        pmusim_uarch_get_stats(u, &st[pieces]);
        lines_in[pieces] = ev_sum(&c, 0xf1, 0x07);
        if (!pieces) {
            CU_ASSERT_EQUAL(kind_count(&c, PMUSIM_REC_INSN, -1), 3);
            CU_ASSERT_EQUAL(kind_count(&c, PMUSIM_REC_MEM, -1), 199);
            CU_ASSERT_EQUAL(mem_misplaced(&c), 0);
            CU_ASSERT_EQUAL(st[0].insns, 3);
            CU_ASSERT_EQUAL(st[0].split_parts, 0);
            /* the first EVENT record after the long instruction's INSN
             * record (the first instruction's ITLB walk record precedes
             * it: test_walk_records) */
            guint last_mem = 0, first_ev = UINT_MAX, k = 0;
            gboolean seen = FALSE;
            for (guint i = 0; i < c.recs->len; i++) {
                const pmusim_rec_t *r = rec(&c, i);
                seen |= r->kind == PMUSIM_REC_INSN && r->ip == 0x401004;
                if (r->kind == PMUSIM_REC_MEM) {
                    last_mem = i;
                    CU_ASSERT_EQUAL(r->ip, 0x401004);
                    CU_ASSERT_EQUAL(r->mem.addr, 0x10000000 + 64 * (uint64_t)++k);
                } else if (r->kind == PMUSIM_REC_EVENT && seen && first_ev == UINT_MAX) {
                    first_ev = i;
                }
            }
            CU_ASSERT(first_ev > last_mem);
            CU_ASSERT_EQUAL(insn(&c, 1)->mem.addr, 0x10000000);
        } else {
            CU_ASSERT_EQUAL(kind_count(&c, PMUSIM_REC_INSN, -1), 6);
            CU_ASSERT_EQUAL(st[1].insns, 6);
        }
        done(u, &c);
    }
    CU_ASSERT_EQUAL(lines_in[0], 201);
    CU_ASSERT_EQUAL(lines_in[1], 201);
    CU_ASSERT_EQUAL(st[0].cycles, st[1].cycles);
    CU_ASSERT_EQUAL(st[0].d1_miss, 200);
    CU_ASSERT_EQUAL(st[0].d1_access, st[1].d1_access);
    g_free(acc);
}

/* Parts through pmusim_uarch_insns() (the batch loop, as `trace annotate`
 * gives them) make the records of one call per part, on one thread and on
 * two merged ones. */
static void test_parts_batch(void)
{
    for (uint32_t threads = 1; threads <= 2; threads++) {
        pmusim_uarch_access_t *acc = line_loads(0x20000000, 130);
        pmusim_uarch_insn_t in[8];
        uint32_t n = 0;
        for (int rep = 0; rep < 2; rep++) {
            in[n++] = (pmusim_uarch_insn_t){ .ip = 0x401000, .thread = 0, .plm = 3, .len = 4 };
            for (uint32_t k = 0; k < 130; k += 64)
                in[n++] = (pmusim_uarch_insn_t){
                    .ip = 0x401004, .thread = (uint8_t)(threads - 1), .plm = 3, .len = 2,
                    .uops = 2, .access = acc + k,
                    .naccess = MIN(130 - k, 64) | (k ? PMUSIM_UARCH_ACC_CONT : 0) |
                               (k + 64 < 130 ? PMUSIM_UARCH_ACC_MORE : 0) };
        }
        collect_t a, b;
        pmusim_uarch_t *one = model(PMUSIM_CPU_WSM, threads, NULL, &a);
        pmusim_uarch_t *many = model(PMUSIM_CPU_WSM, threads, NULL, &b);
        GError *e = NULL;
        for (uint32_t i = 0; i < n; i++)
            CU_ASSERT_TRUE_FATAL(pmusim_uarch_insn(one, &in[i], &e));
        CU_ASSERT_TRUE_FATAL(pmusim_uarch_insns(many, in, n, &e));
        finish(one);
        finish(many);
        CU_ASSERT_EQUAL(kind_count(&b, PMUSIM_REC_INSN, -1), 4);
        CU_ASSERT_EQUAL(kind_count(&b, PMUSIM_REC_MEM, -1), 2 * 129);
        CU_ASSERT_EQUAL(mem_misplaced(&b), 0);
        CU_ASSERT_EQUAL_FATAL(a.recs->len, b.recs->len);
        for (guint i = 0; i < a.recs->len; i++)
            CU_ASSERT_TRUE(pmusim_test_rec_equal(rec(&a, i), rec(&b, i)));
        done(one, &a);
        done(many, &b);
        g_free(acc);
    }
}

/* SMT threads run between the parts of a thread's instruction: their
 * records wait (none of the instruction's cycle or later comes between its
 * MEM records), and it stays one instruction.  When the waiting records
 * fill a thread's queue (65,536 records behind an instruction in parts:
 * 70,000 instructions of thread 1 after each of the first two parts), the
 * instruction ends early and the next part is an instruction of its own,
 * twice (split_parts 2: three INSN records, 189 MEM records).
 * On one thread, an instruction between the parts ends it too; an empty
 * last part of an ended instruction makes nothing. */
static void test_parts_interleaved(void)
{
    pmusim_uarch_access_t *acc = line_loads(0x30000000, 192);
    for (int overflow = 0; overflow < 2; overflow++) {
        collect_t c;
        pmusim_uarch_t *u = model(PMUSIM_CPU_WSM, 2, NULL, &c);
        const int between = overflow ? 70000 : 3000; /* 3,000: beyond the 2,048 of a queue */
        GError *e = NULL;
        for (uint32_t k = 0; k < 192; k += 64) {
            pmusim_uarch_insn_t in = {
                .ip = 0x401004, .thread = 0, .plm = 3, .len = 2, .uops = 2, .access = acc + k,
                .naccess = 64u | (k ? PMUSIM_UARCH_ACC_CONT : 0) |
                           (k < 128 ? PMUSIM_UARCH_ACC_MORE : 0) };
            CU_ASSERT_TRUE_FATAL(pmusim_uarch_insn(u, &in, &e));
            for (int i = 0; k < 128 && i < between; i++)
                run(u, 1, 0x501000 + 4 * (uint64_t)(i % 16), 0, 0, FALSE, FALSE);
        }
        finish(u);
        assert_cycle_order(&c);
        pmusim_uarch_stats_t st;
        pmusim_uarch_get_stats(u, &st);
        CU_ASSERT_EQUAL(mem_misplaced(&c), 0);
        CU_ASSERT_EQUAL(kind_count(&c, PMUSIM_REC_MEM, 0), overflow ? 189 : 191);
        CU_ASSERT_EQUAL(kind_count(&c, PMUSIM_REC_INSN, 0), overflow ? 3 : 1);
        CU_ASSERT_EQUAL(kind_count(&c, PMUSIM_REC_INSN, 1), 2 * between);
        CU_ASSERT_EQUAL(st.split_parts, overflow ? 2 : 0);
        CU_ASSERT_EQUAL(st.insns, 2 * between + (overflow ? 3 : 1));
        done(u, &c);
    }
    /* one thread: a plain instruction between two parts ends the first */
    collect_t c;
    pmusim_uarch_t *u = model(PMUSIM_CPU_WSM, 1, NULL, &c);
    GError *e = NULL;
    pmusim_uarch_insn_t p = { .ip = 0x401004, .plm = 3, .len = 2, .uops = 2, .access = acc,
                              .naccess = 64 | PMUSIM_UARCH_ACC_MORE };
    CU_ASSERT_TRUE_FATAL(pmusim_uarch_insn(u, &p, &e));
    run(u, 0, 0x401008, 0, 0, FALSE, FALSE);
    p.access = acc + 64;
    p.naccess = 64 | PMUSIM_UARCH_ACC_CONT;
    CU_ASSERT_TRUE_FATAL(pmusim_uarch_insn(u, &p, &e));
    p.naccess = PMUSIM_UARCH_ACC_CONT; /* ends an instruction that ended */
    CU_ASSERT_TRUE_FATAL(pmusim_uarch_insn(u, &p, &e));
    finish(u);
    pmusim_uarch_stats_t st;
    pmusim_uarch_get_stats(u, &st);
    CU_ASSERT_EQUAL(st.split_parts, 1);
    CU_ASSERT_EQUAL(st.insns, 3);
    CU_ASSERT_EQUAL(kind_count(&c, PMUSIM_REC_INSN, -1), 3);
    CU_ASSERT_EQUAL(kind_count(&c, PMUSIM_REC_MEM, -1), 126);
    CU_ASSERT_EQUAL(mem_misplaced(&c), 0);
    done(u, &c);
    g_free(acc);
}

/* Two SMT threads each in the middle of an instruction in parts, their
 * parts alternating (two string instructions at once): each stays one
 * instruction with its 191 MEM records together (the later one's wait for
 * the earlier one's end), none split. */
static void test_parts_two_threads(void)
{
    pmusim_uarch_access_t *acc = line_loads(0x50000000, 2 * 192);
    collect_t c;
    pmusim_uarch_t *u = model(PMUSIM_CPU_WSM, 2, NULL, &c);
    GError *e = NULL;
    for (uint32_t k = 0; k < 192; k += 64)
        for (uint32_t t = 0; t < 2; t++) {
            pmusim_uarch_insn_t in = {
                .ip = 0x401004 + 0x1000 * (uint64_t)t, .thread = (uint8_t)t, .plm = 3, .len = 2,
                .uops = 2, .access = acc + 192 * t + k,
                .naccess = 64u | (k ? PMUSIM_UARCH_ACC_CONT : 0) |
                           (k < 128 ? PMUSIM_UARCH_ACC_MORE : 0) };
            CU_ASSERT_TRUE_FATAL(pmusim_uarch_insn(u, &in, &e));
        }
    run(u, 0, 0x401008, 0, 0, FALSE, FALSE);
    run(u, 1, 0x402008, 0, 0, FALSE, FALSE);
    finish(u);
    assert_cycle_order(&c);
    pmusim_uarch_stats_t st;
    pmusim_uarch_get_stats(u, &st);
    CU_ASSERT_EQUAL(mem_misplaced(&c), 0);
    for (int t = 0; t < 2; t++) {
        CU_ASSERT_EQUAL(kind_count(&c, PMUSIM_REC_INSN, t), 2);
        CU_ASSERT_EQUAL(kind_count(&c, PMUSIM_REC_MEM, t), 191);
    }
    CU_ASSERT_EQUAL(st.split_parts, 0);
    CU_ASSERT_EQUAL(st.insns, 4);
    done(u, &c);
    g_free(acc);
}

/* A part of more than 64 accesses, or with other bits above the count, is
 * refused like any instruction with too many. */
static void test_parts_bad(void)
{
    pmusim_uarch_access_t *acc = line_loads(0x40000000, 65);
    static const uint32_t bad[] = { 65 | PMUSIM_UARCH_ACC_MORE, 65 | PMUSIM_UARCH_ACC_CONT,
                                    1 | 0x10000u | PMUSIM_UARCH_ACC_MORE, 1 | 0x20000000u };
    for (size_t k = 0; k < G_N_ELEMENTS(bad); k++) {
        collect_t c;
        pmusim_uarch_t *u = model(PMUSIM_CPU_WSM, 1, NULL, &c);
        pmusim_uarch_insn_t in = { .ip = 0x401000, .plm = 3, .len = 2, .access = acc,
                                   .naccess = bad[k] };
        GError *e = NULL;
        CU_ASSERT_FALSE(pmusim_uarch_insn(u, &in, &e));
        CU_ASSERT_TRUE(g_error_matches(e, PMUSIM_UARCH_ERROR, PMUSIM_UARCH_ERROR_INPUT));
        CU_ASSERT_PTR_NOT_NULL(e && strstr(e->message, "more than 64 memory accesses"));
        g_clear_error(&e);
        CU_ASSERT_FALSE(pmusim_uarch_insns(u, &in, 1, &e));
        CU_ASSERT_TRUE(g_error_matches(e, PMUSIM_UARCH_ERROR, PMUSIM_UARCH_ERROR_INPUT));
        g_clear_error(&e);
        done(u, &c);
    }
    g_free(acc);
}

/* Dispatch ports, the divider and the microcode sequencer
 * (docs/UARCH.md §1.1), hand-counted.  One instruction of each kind, in one
 * 64-byte line, no branch taken; p0, p1, p5 are chosen least loaded by the
 * running totals (ties to the lower number), so the write-out of the sums
 * does not matter:
 *    #  instruction            uops  accesses  compute uops -> (p0 p1 p5) after
 *    1  integer op                1  -         p0 (tie)      1 0 0
 *    2  integer op                1  -         p1            1 1 0
 *    3  integer op                1  -         p5            1 1 1
 *    4  load (mov r, [m])         1  ld        none (p2)
 *    5  load-op (add r, [m])      2  ld        p0 (tie)      2 1 1  (p2)
 *    6  store (mov [m], r)        1  st        none (p3, p4)
 *    7  RMW (add [m], r)          3  ld st     p1            2 2 1  (p2, p3, p4)
 *    8  conditional branch        1  -         p5 (branch)   2 2 2
 *    9  mulsd                     1  -         p0 (FP mul)   3 2 2
 *   10  imul                      1  -         p1            3 3 2
 *   11  addsd (sd, no kind)       1  -         p1 (FP add)   3 4 2
 *   12  pshufd (vi, shuffle)      1  -         p0|p5 -> p5   3 4 3
 *   13  div (integer)             1  -         p0 (divider)  4 4 3
 *   14  divsd                     1  -         p0 (divider)  5 4 3
 *   15  6 uops (microcoded)       6  -         p5 p1 p5 p0 p1 p5 -> 6 6 6
 * So p0 6, p1 6, p5 6, p2 3, p3 2, p4 2 (PORT015 18, PORT234 7); the divider
 * busy 23 (div) and 7 (divsd) cycles, two records; UOPS_DECODED:MS 6 (more
 * than 4 uops). */
static void test_ports_divider_ms(void)
{
    enum { VI = PMUSIM_FPC_VI << PMUSIM_F_FPCLASS_SHIFT, SD = PMUSIM_FPC_SD << PMUSIM_F_FPCLASS_SHIFT,
           MUL = PMUSIM_OPK_MUL << PMUSIM_F_OPKIND_SHIFT, DIV = PMUSIM_OPK_DIV << PMUSIM_F_OPKIND_SHIFT,
           SHUF = PMUSIM_OPK_SHUFFLE_MOVE << PMUSIM_F_OPKIND_SHIFT };
    static const struct {
        uint16_t uops, flags;
        uint8_t ld, st, br;
    } seq[] = {
        { 1, 0, 0, 0, 0 },  { 1, 0, 0, 0, 0 },        { 1, 0, 0, 0, 0 },      { 1, 0, 1, 0, 0 },
        { 2, 0, 1, 0, 0 },  { 1, 0, 0, 1, 0 },        { 3, 0, 1, 1, 0 },      { 1, 0, 0, 0, 1 },
        { 1, SD | MUL, 0, 0, 0 }, { 1, MUL, 0, 0, 0 }, { 1, SD, 0, 0, 0 },    { 1, VI | SHUF, 0, 0, 0 },
        { 1, DIV, 0, 0, 0 }, { 1, SD | DIV, 0, 0, 0 }, { 6, 0, 0, 0, 0 },
    };
    /* one instruction per call (pmusim_uarch_insn()) and all in one batch
     * (pmusim_uarch_insns(): the fast path) count alike */
    for (int batch = 0; batch < 2; batch++) {
        collect_t c;
        pmusim_uarch_t *u = model(PMUSIM_CPU_WSM, 1, NULL, &c);
        pmusim_uarch_access_t acc[G_N_ELEMENTS(seq)][2];
        pmusim_uarch_insn_t in[G_N_ELEMENTS(seq)];
        for (size_t i = 0; i < G_N_ELEMENTS(seq); i++) {
            uint32_t n = 0;
            if (seq[i].ld)
                acc[i][n++] = (pmusim_uarch_access_t){ .addr = 0x20000000 + 64 * i, .size = 8 };
            if (seq[i].st)
                acc[i][n++] = (pmusim_uarch_access_t){ .addr = 0x20000000 + 64 * i, .size = 8,
                                                       .is_store = 1 };
            in[i] = (pmusim_uarch_insn_t){ .ip = 0x400000 + 4 * i, .plm = 3, .len = 4,
                                           .uops = seq[i].uops, .flags = seq[i].flags,
                                           .naccess = n, .access = acc[i],
                                           .br = seq[i].br ? PMUSIM_UARCH_BR_COND : 0,
                                           .target = 0x400100 };
        }
        GError *e = NULL;
        if (batch) {
            CU_ASSERT_TRUE_FATAL(pmusim_uarch_insns(u, in, G_N_ELEMENTS(in), &e));
        } else {
            for (size_t i = 0; i < G_N_ELEMENTS(in); i++)
                CU_ASSERT_TRUE_FATAL(pmusim_uarch_insn(u, &in[i], &e));
        }
        finish(u);
        CU_ASSERT_EQUAL(ev_sum(&c, 0xb1, 0x01), 6);
        CU_ASSERT_EQUAL(ev_sum(&c, 0xb1, 0x02), 6);
        CU_ASSERT_EQUAL(ev_sum(&c, 0xb1, 0x04), 3);
        CU_ASSERT_EQUAL(ev_sum(&c, 0xb1, 0x08), 2);
        CU_ASSERT_EQUAL(ev_sum(&c, 0xb1, 0x10), 2);
        CU_ASSERT_EQUAL(ev_sum(&c, 0xb1, 0x20), 6);
        CU_ASSERT_EQUAL(ev_sum(&c, 0x13, 0x02) + ev_sum(&c, 0x13, 0x04), 0);
        CU_ASSERT_EQUAL(ev_sum(&c, 0x14, 0x01), 23 + 7);
        CU_ASSERT_EQUAL(ev_sum(&c, 0xd1, 0x02), 6);
        guint div_recs = 0;
        for (guint i = 0; i < c.recs->len; i++)
            div_recs += rec(&c, i)->kind == PMUSIM_REC_EVENT && rec(&c, i)->ev_code == 0x14;
        CU_ASSERT_EQUAL(div_recs, 2);
        assert_cycle_order(&c);
        done(u, &c);
    }
}

/* The loop stream detector (docs/UARCH.md §1 "Loop stream detector").
 * A loop of `body` one-uop instructions at 0x400000 + 4 i whose last one
 * is a conditional branch back to 0x400000, run `iters` times (taken
 * iters - 1 times, then not taken), `times` times in a row with three
 * plain instructions after each; `call` puts a call to a function of
 * `callee` one-uop instructions (its return included) before the branch
 * (call and return count in the body: the body is every uop between two
 * executions of the branch).  One call per instruction or one batch (the
 * fast path). */
/* lsd_loop(): mark the instruction before the loop's branch as the first
 * of a macro-fused pair (operation kind fused) */
static gboolean lsd_loop_fused;

static void lsd_loop(collect_t *c, pmusim_cpu_t cpu, uint32_t body, uint32_t iters, uint32_t times,
                     uint32_t callee, gboolean batch)
{
    pmusim_uarch_t *u = model(cpu, 1, NULL, c);
    GArray *a = g_array_new(FALSE, TRUE, sizeof(pmusim_uarch_insn_t));
    for (uint32_t k = 0; k < times; k++) {
        for (uint32_t it = 0; it < iters; it++) {
            for (uint32_t i = 0; i < body; i++) {
                pmusim_uarch_insn_t in = { .ip = 0x400000 + 4 * i, .plm = 3, .len = 4, .uops = 1 };
                if (callee && i == body - 2) {
                    in.br = PMUSIM_UARCH_BR_CALL;
                    in.taken = 1;
                    in.target = 0x500000;
                    g_array_append_val(a, in);
                    for (uint32_t f = 0; f < callee; f++) {
                        pmusim_uarch_insn_t fi = { .ip = 0x500000 + 4 * f, .plm = 3, .len = 4,
                                                   .uops = 1 };
                        if (f == callee - 1) {
                            fi.br = PMUSIM_UARCH_BR_RET;
                            fi.taken = 1;
                            fi.target = in.ip + 4;
                        }
                        g_array_append_val(a, fi);
                    }
                    continue;
                }
                if (i == body - 1) {
                    in.br = PMUSIM_UARCH_BR_COND;
                    in.taken = it + 1 < iters;
                    in.target = 0x400000;
                }
                if (lsd_loop_fused && i == body - 2)
                    in.flags = PMUSIM_OPK_FUSED << PMUSIM_F_OPKIND_SHIFT;
                g_array_append_val(a, in);
            }
        }
        for (uint32_t i = 0; i < 3; i++) {
            pmusim_uarch_insn_t in = { .ip = 0x400000 + 4 * body + 4 * i, .plm = 3, .len = 4,
                                       .uops = 1 };
            g_array_append_val(a, in);
        }
    }
    GError *e = NULL;
    if (batch) {
        CU_ASSERT_TRUE_FATAL(pmusim_uarch_insns(u, (pmusim_uarch_insn_t *)a->data, a->len, &e));
    } else {
        for (guint i = 0; i < a->len; i++)
            CU_ASSERT_TRUE_FATAL(pmusim_uarch_insn(u, &g_array_index(a, pmusim_uarch_insn_t, i), &e));
    }
    finish(u);
    pmusim_uarch_free(u);
    g_array_free(a, TRUE);
    assert_cycle_order(c);
}

/* LSD:UOPS records: how many, and whether each is alone in its cycle. */
static guint lsd_records(const collect_t *c)
{
    guint n = 0;
    uint64_t last = UINT64_MAX;
    for (guint i = 0; i < c->recs->len; i++) {
        const pmusim_rec_t *r = rec(c, i);
        if (r->kind == PMUSIM_REC_EVENT && r->ev_code == 0xa8 && r->ev_umask == 0x01) {
            CU_ASSERT_NOT_EQUAL(r->cycle, last); /* one record per cycle */
            last = r->cycle;
            n++;
        }
    }
    return n;
}

static void test_lsd(void)
{
    for (int batch = 0; batch < 2; batch++) {
        collect_t c;
        /* 4 uops (3 plain + the branch), 10 iterations: the branch taken
         * twice ends iteration 2, measured from its target with 4 <= 28
         * uops, so iterations 3..10 stream, the exit's branch included:
         * 8 x 4 = 32 uops.  Each iteration is 4 uops aligned on the
         * 4-wide retirement (the loop starts a cycle; a misprediction's
         * restart starts one too), so one cycle each: 8 active cycles,
         * 8 records of 4.  Twice in a row: the exit ends the stream, the
         * second run needs its two iterations again: 64 uops, 16 cycles. */
        lsd_loop(&c, PMUSIM_CPU_WSM, 4, 10, 2, 0, batch);
        CU_ASSERT_EQUAL(ev_sum(&c, 0xa8, 0x01), 64);
        CU_ASSERT_EQUAL(lsd_records(&c), 16);
        CU_ASSERT_EQUAL(ev_sum(&c, 0x20, 0x01), 0);
        g_array_free(c.recs, TRUE);
        /* 28 uops: fits, 3 of 5 iterations stream, 84 uops */
        lsd_loop(&c, PMUSIM_CPU_WSM, 28, 5, 1, 0, batch);
        CU_ASSERT_EQUAL(ev_sum(&c, 0xa8, 0x01), 3 * 28);
        CU_ASSERT_EQUAL(ev_sum(&c, 0x20, 0x01), 0);
        g_array_free(c.recs, TRUE);
        /* 29 uops: too large; one LSD_OVERFLOW per run of the loop (two
         * runs), nothing streams */
        lsd_loop(&c, PMUSIM_CPU_WSM, 29, 5, 2, 0, batch);
        CU_ASSERT_EQUAL(ev_sum(&c, 0xa8, 0x01), 0);
        CU_ASSERT_EQUAL(lsd_records(&c), 0);
        CU_ASSERT_EQUAL(ev_sum(&c, 0x20, 0x01), 2);
        g_array_free(c.recs, TRUE);
        /* a call in the body: 4 + a callee of 3 (its return included) = 7
         * uops streams (no source excludes calls: docs/UARCH.md), 8 x 7;
         * a callee of 25 makes 29: overflow */
        lsd_loop(&c, PMUSIM_CPU_WSM, 4, 10, 1, 3, batch);
        CU_ASSERT_EQUAL(ev_sum(&c, 0xa8, 0x01), 8 * 7);
        g_array_free(c.recs, TRUE);
        lsd_loop(&c, PMUSIM_CPU_WSM, 4, 10, 1, 25, batch);
        CU_ASSERT_EQUAL(ev_sum(&c, 0xa8, 0x01), 0);
        CU_ASSERT_EQUAL(ev_sum(&c, 0x20, 0x01), 1);
        g_array_free(c.recs, TRUE);
        /* knm: no LSD events (Intel's Knights Landing data has none) */
        lsd_loop(&c, PMUSIM_CPU_KNM, 4, 10, 1, 0, batch);
        CU_ASSERT_EQUAL(lsd_records(&c), 0);
        g_array_free(c.recs, TRUE);
    }
}

/* The decoders' counts net of the loop stream detector (docs/UARCH.md §1
 * "Decoders"): MACRO_INSTS:DECODED and INST_QUEUE_WRITES count the
 * retired instructions the detector did not stream,
 * MACRO_INSTS_FUSIONS_DECODED the fused pairs among them.  Hand-counted
 * from test_lsd's loops (a loop of N iterations streams N - 2): */
static void test_decoded(void)
{
    for (int batch = 0; batch < 2; batch++) {
        collect_t c;
        /* 4 instructions, 10 iterations, twice, 3 plain after each run:
         * 86 retired, 2 x 8 x 4 = 64 streamed: 2 x (8 + 3) = 22 decoded */
        lsd_loop(&c, PMUSIM_CPU_WSM, 4, 10, 2, 0, batch);
        CU_ASSERT_EQUAL(ev_sum(&c, 0xd0, 0x01), 22);
        CU_ASSERT_EQUAL(ev_sum(&c, 0x17, 0x01), 22);
        CU_ASSERT_EQUAL(ev_sum(&c, 0xa6, 0x01), 0); /* no pair */
        g_array_free(c.recs, TRUE);
        /* 40 more iterations stream: not one instruction more decoded */
        lsd_loop(&c, PMUSIM_CPU_WSM, 4, 50, 2, 0, batch);
        CU_ASSERT_EQUAL(ev_sum(&c, 0xd0, 0x01), 22);
        g_array_free(c.recs, TRUE);
        /* 29 uops: nothing streams, every instruction decoded: 2 x (5 x
         * 29 + 3) */
        lsd_loop(&c, PMUSIM_CPU_WSM, 29, 5, 2, 0, batch);
        CU_ASSERT_EQUAL(ev_sum(&c, 0xd0, 0x01), 2 * (5 * 29 + 3));
        CU_ASSERT_EQUAL(ev_sum(&c, 0x17, 0x01), 2 * (5 * 29 + 3));
        g_array_free(c.recs, TRUE);
        /* a call of 3 in the body: 7 instructions an iteration, 8 of 10
         * streamed: 2 x 7 + 3 */
        lsd_loop(&c, PMUSIM_CPU_WSM, 4, 10, 1, 3, batch);
        CU_ASSERT_EQUAL(ev_sum(&c, 0xd0, 0x01), 2 * 7 + 3);
        g_array_free(c.recs, TRUE);
        /* a fused CMP before the branch: 10 pairs retired, the first two
         * iterations' decoded (the pair is one uop: 3 an iteration, it
         * streams as before) */
        lsd_loop_fused = TRUE;
        lsd_loop(&c, PMUSIM_CPU_WSM, 4, 10, 1, 0, batch);
        lsd_loop_fused = FALSE;
        CU_ASSERT_EQUAL(ev_sum(&c, 0xa6, 0x01), 2);
        CU_ASSERT_EQUAL(ev_sum(&c, 0xd0, 0x01), 2 * 4 + 3);
        CU_ASSERT_EQUAL(ev_sum(&c, 0xa8, 0x01), 8 * 3);
        g_array_free(c.recs, TRUE);
        /* knm: no such events */
        lsd_loop(&c, PMUSIM_CPU_KNM, 4, 10, 1, 0, batch);
        CU_ASSERT_EQUAL(ev_sum(&c, 0xd0, 0x01) + ev_sum(&c, 0x17, 0x01), 0);
        g_array_free(c.recs, TRUE);
    }
}

/* Nested loops: an inner loop of 4 instructions and 5 iterations (3
 * stream, the detector then watches the outer branch), two outer
 * instructions and the outer branch back to the inner loop's start, 4
 * outer iterations: the inner branch's next taken execution takes the
 * detector back, so the outer loop (23 uops) is never measured; each
 * outer iteration decodes 8 inner and 3 outer instructions: 4 x 11 = 44
 * of 92 retired.  An input without branch kinds (the header says so):
 * no record at all. */
static void nested_insn(pmusim_uarch_t *u, uint64_t ip, gboolean br, gboolean taken)
{
    pmusim_uarch_insn_t in = { .ip = ip, .plm = 3, .len = 4, .uops = 1 };
    if (br) { /* a conditional branch back to the inner loop's start */
        in.br = PMUSIM_UARCH_BR_COND;
        in.taken = taken;
        in.target = 0x400000;
    }
    GError *e = NULL;
    CU_ASSERT_TRUE_FATAL(pmusim_uarch_insn(u, &in, &e));
}

static void test_decoded_nested(void)
{
    for (int brkind = 1; brkind >= 0; brkind--) {
        collect_t c;
        pmusim_uarch_t *u = model(PMUSIM_CPU_WSM, 1, NULL, &c);
        pmusim_trace_header_t h;
        pmusim_trace_header_init(&h, PMUSIM_CPU_WSM, 1);
        pmusim_trace_header_set_annotations(&h, brkind ? PMUSIM_ANN_ALL
                                                       : PMUSIM_ANN_ALL & ~PMUSIM_ANN_BRKIND);
        pmusim_uarch_header(u, &h);
        pmusim_trace_header_clear(&h);
        uint64_t retired = 0;
        for (uint32_t o = 0; o < 4; o++) {
            /* ips 0x400000.. (inner, its branch the 4th), then 0x400010.. */
            for (uint32_t it = 0; it < 5; it++)
                for (uint32_t i = 0; i < 4; i++, retired++)
                    nested_insn(u, 0x400000 + 4 * i, i == 3, it + 1 < 5);
            for (uint32_t i = 0; i < 3; i++, retired++)
                nested_insn(u, 0x400010 + 4 * i, i == 2, o + 1 < 4);
        }
        finish(u);
        CU_ASSERT_EQUAL(retired, 92);
        CU_ASSERT_EQUAL(ev_sum(&c, 0xa8, 0x01), 4 * 3 * 4);
        CU_ASSERT_EQUAL(ev_sum(&c, 0xd0, 0x01), brkind ? 4 * 11 : 0);
        CU_ASSERT_EQUAL(ev_sum(&c, 0x17, 0x01), brkind ? 4 * 11 : 0);
        assert_cycle_order(&c);
        done(u, &c);
    }
}

/* Two SMT threads, each its own detector (docs/UARCH.md §1: no source
 * splits the queue): the same 4-uop loop of 10 iterations on both,
 * instruction by instruction interleaved: 8 iterations stream on each,
 * 32 uops a thread, the records in cycle order through the merge. */
static void test_lsd_smt(void)
{
    collect_t c;
    pmusim_uarch_t *u = model(PMUSIM_CPU_WSM, 2, NULL, &c);
    for (uint32_t it = 0; it < 10; it++)
        for (uint32_t i = 0; i < 4; i++)
            for (uint8_t th = 0; th < 2; th++) {
                pmusim_uarch_insn_t in = { .ip = 0x400000 + 0x1000 * th + 4 * i, .thread = th,
                                           .plm = 3, .len = 4, .uops = 1 };
                if (i == 3) {
                    in.br = PMUSIM_UARCH_BR_COND;
                    in.taken = it + 1 < 10;
                    in.target = 0x400000 + 0x1000 * th;
                }
                GError *e = NULL;
                CU_ASSERT_TRUE_FATAL(pmusim_uarch_insn(u, &in, &e));
            }
    finish(u);
    assert_cycle_order(&c);
    uint64_t per[2] = { 0, 0 }, dec[2] = { 0, 0 };
    for (guint i = 0; i < c.recs->len; i++) {
        const pmusim_rec_t *r = rec(&c, i);
        if (r->kind == PMUSIM_REC_EVENT && r->ev_code == 0xa8)
            per[r->thread] += r->n;
        if (r->kind == PMUSIM_REC_EVENT && r->ev_code == 0xd0)
            dec[r->thread] += r->n;
    }
    CU_ASSERT_EQUAL(per[0], 32);
    CU_ASSERT_EQUAL(per[1], 32);
    /* the decoders' counts, each thread its own: 2 of 10 iterations
     * decoded, 8 instructions a thread */
    CU_ASSERT_EQUAL(dec[0], 8);
    CU_ASSERT_EQUAL(dec[1], 8);
    done(u, &c);
}

/* Macro-fusion (docs/UARCH.md §1, "Macro-fusion"): 1000 pairs of a
 * register CMP (operation kind fused on the fused runs) and a not-taken
 * Jcc.  On Westmere a fused pair takes one slot of the 4-wide dispatch and
 * retirement: after the warm-up 8 instructions (4 pairs, a CMP first)
 * retire per cycle, so the 1600 instructions from the 401st (a CMP) to the
 * 2000th lie in 1600 / 8 = 200 cycles, a span of 199; unmarked, each
 * instruction takes a slot: 1600 / 4 = 400 cycles, span 399.  The pair's
 * uop is its branch's, on port 5: 1000 uops there, none on port 0
 * (unmarked: the 1000 CMPs go to the least loaded of 0, 1 and 5, which the
 * branches keep busy: 500 on port 0, 500 on port 1).  Knights Mill does
 * not fuse (no source says its core does): 2 slots per cycle either way,
 * 800 cycles, span 799.  Once one instruction per call, once in one batch
 * (the fast path). */
static void test_macro_fusion(void)
{
    static const struct { pmusim_cpu_t cpu; uint16_t kind; uint64_t span, p5, p0; } cases[] = {
        { PMUSIM_CPU_WSM, PMUSIM_OPK_FUSED, 199, 1000, 0 },
        { PMUSIM_CPU_WSM_DP, PMUSIM_OPK_FUSED, 199, 1000, 0 },
        { PMUSIM_CPU_WSM, PMUSIM_OPK_NONE, 399, 1000, 500 },
        { PMUSIM_CPU_KNM, PMUSIM_OPK_FUSED, 799, 0, 0 },
        { PMUSIM_CPU_KNM, PMUSIM_OPK_NONE, 799, 0, 0 },
    };
    enum { PAIRS = 1000 };
    for (size_t k = 0; k < G_N_ELEMENTS(cases); k++) {
        for (int batch = 0; batch < 2; batch++) {
            collect_t c;
            pmusim_uarch_t *u = model(cases[k].cpu, 1, NULL, &c);
            pmusim_uarch_insn_t *in = g_new0(pmusim_uarch_insn_t, 2 * PAIRS);
            for (size_t i = 0; i < PAIRS; i++) {
                in[2 * i] = (pmusim_uarch_insn_t){ .ip = 0x401000, .plm = 3, .len = 3, .uops = 1,
                                                   .flags = (uint16_t)(cases[k].kind
                                                                       << PMUSIM_F_OPKIND_SHIFT) };
                in[2 * i + 1] = (pmusim_uarch_insn_t){ .ip = 0x401003, .plm = 3, .len = 2, .uops = 1,
                                                       .br = PMUSIM_UARCH_BR_COND, .taken = 0,
                                                       .target = 0x401000 };
            }
            GError *e = NULL;
            if (batch) {
                CU_ASSERT_TRUE_FATAL(pmusim_uarch_insns(u, in, 2 * PAIRS, &e));
            } else {
                for (size_t i = 0; i < 2 * PAIRS; i++)
                    CU_ASSERT_TRUE_FATAL(pmusim_uarch_insn(u, &in[i], &e));
            }
            finish(u);
            CU_ASSERT_EQUAL(insn(&c, 2 * PAIRS - 1)->cycle - insn(&c, 400)->cycle, cases[k].span);
            /* the records keep the kind and the uops */
            CU_ASSERT_EQUAL(PMUSIM_REC_OPKIND(insn(&c, 0)->flags), cases[k].kind);
            CU_ASSERT_EQUAL(insn(&c, 0)->uops, 1);
            CU_ASSERT_EQUAL(ev_sum(&c, 0xb1, 0x20), cases[k].p5);
            CU_ASSERT_EQUAL(ev_sum(&c, 0xb1, 0x01), cases[k].p0);
            assert_cycle_order(&c);
            g_free(in);
            done(u, &c);
        }
    }
}

/* The divider's timing: it is unpipelined, so two divides in a row take
 * their latencies one after the other, and a divide's instruction
 * completes with its result.  Warm loop of plain one-uop instructions in
 * one line (no misses after the first pass), then: div, div (integer, 23
 * cycles each), plain, divsd, divsd (7 each).  The first div dispatches at
 * d and retires at d + 23, the second starts when the divider is free and
 * retires at d + 46; the plain instruction after them retires with the
 * second (in order, within the width); the two divsd retire 7 and 14
 * cycles after the second div at the earliest (they start at its end).
 * knm takes the same latencies (docs/UARCH.md §1.1) and writes
 * CYCLES_DIV_BUSY:ALL. */
/* Once one instruction per call (pmusim_uarch_insn()), once in one batch
 * (pmusim_uarch_insns(), whose fast path has a copy per CPU kind that tells
 * a divide by the port rule's lookup on wsm and by the kind's bits on knm:
 * docs/PERFORMANCE.md, h-aspeed2). */
static void test_divider_timing(void)
{
    const pmusim_cpu_t cpus[] = { PMUSIM_CPU_WSM, PMUSIM_CPU_KNM };
    for (size_t k = 0; k < 2 * G_N_ELEMENTS(cpus); k++) {
        const gboolean batch = k >= G_N_ELEMENTS(cpus);
        collect_t c;
        pmusim_uarch_t *u = model(cpus[k % G_N_ELEMENTS(cpus)], 1, NULL, &c);
        GError *e = NULL;
        const uint16_t div = PMUSIM_OPK_DIV << PMUSIM_F_OPKIND_SHIFT;
        const uint16_t sd = PMUSIM_FPC_SD << PMUSIM_F_FPCLASS_SHIFT;
        const uint16_t flags[5] = { div, div, 0, sd | div, sd | div };
        pmusim_uarch_insn_t ins[24 + 5];
        for (uint64_t i = 0; i < G_N_ELEMENTS(ins); i++)
            ins[i] = (pmusim_uarch_insn_t){ .ip = 0x400000 + 4 * (i < 24 ? i % 8 : i - 16),
                                            .plm = 3, .len = 4, .uops = i < 24 ? 0 : 1,
                                            .flags = i < 24 ? 0 : flags[i - 24] };
        if (batch) {
            CU_ASSERT_TRUE_FATAL(pmusim_uarch_insns(u, ins, G_N_ELEMENTS(ins), &e));
        } else {
            for (uint64_t i = 0; i < G_N_ELEMENTS(ins); i++)
                CU_ASSERT_TRUE_FATAL(pmusim_uarch_insn(u, &ins[i], &e));
        }
        finish(u);
        const pmusim_rec_t *warm = insn(&c, 23);
        const pmusim_rec_t *d1 = insn(&c, 24), *d2 = insn(&c, 25), *p = insn(&c, 26);
        const pmusim_rec_t *f1 = insn(&c, 27), *f2 = insn(&c, 28);
        CU_ASSERT_PTR_NOT_NULL_FATAL(f2);
        /* the first div dispatches in the cycle after the warm loop's last
         * retirement at the latest: it retires 23 cycles after dispatch */
        CU_ASSERT_TRUE(d1->cycle >= warm->cycle + 1 && d1->cycle <= warm->cycle + 23 + 1);
        CU_ASSERT_EQUAL(d2->cycle, d1->cycle + 23);
        CU_ASSERT_EQUAL(p->cycle, d2->cycle);
        CU_ASSERT_EQUAL(f1->cycle, d2->cycle + 7);
        CU_ASSERT_EQUAL(f2->cycle, d2->cycle + 14);
        const pmusim_cpu_t cpu = cpus[k % G_N_ELEMENTS(cpus)];
        const uint16_t code = cpu == PMUSIM_CPU_WSM ? 0x14 : 0xcd;
        CU_ASSERT_EQUAL(ev_sum(&c, code, 0x01), 23 + 23 + 7 + 7);
        if (cpu == PMUSIM_CPU_KNM) /* no port kinds on knm */
            CU_ASSERT_EQUAL(ev_sum(&c, 0xb1, 0x01), 0);
        done(u, &c);
    }
}

/* The divider's records as intervals (the header's "evspan" key;
 * docs/trace-events-x86.md, "Exact thresholds on divider records"): one
 * EVENT record per divide, n = its busy cycles, at its INSN record's
 * cycle (its retirement), also for a divide in an instruction in parts,
 * whose record comes at the instruction's end, after its MEM records.
 * On wsm and knm (width w = 4, 2; the same latencies, docs/UARCH.md §1.1),
 * after a warm loop of plain one-uop instructions in one line:
 *   D1, D2  div, div: back to back; D1 retires at its completion, D2
 *           starts when D1's busy cycles end and retires 23 later: its
 *           interval [D1 + 23, D1 + 46) abuts D1's [D1, D1 + 23)
 *   F       divsd, back to back after D2: 7 cycles, at D2 + 7, inside
 *           D2's interval (a shorter divide after a longer one: the
 *           intervals overlap where the busy periods abut)
 *   P1..P200 plain: they retire in order after F, F's cycle holding w - 1
 *           of them, each later cycle w: P_k at ret(k) = F + ceil((k - (w -
 *           1)) / w)
 *   D3      div (instruction 227, counting the warm loop's from 0): it
 *           waits for the reorder window (128, 72 entries: docs/UARCH.md
 *           §1), the retirement of instruction 227 - window = P_(201 -
 *           window), so it dispatches and starts at ret(201 - window) + 1
 *           (wsm: F + 19, knm: F + 65); it completes 23 later but retires
 *           with P200 at ret(200) (wsm F + 50, knm F + 100): apart from D2
 *           (D3 > D2 + 23), and its interval lies 31 (wsm) / 35 (knm)
 *           cycles after its busy cycles, not 23
 *   PA, PB  div, each in two parts (a store, then a continuation's
 *           store): they dispatch right after D3 and their divides follow
 *           D3's back to back, completing at D3's start + 46 and + 69,
 *           where they retire: PA's interval begins 8 (wsm) / 12 (knm)
 *           cycles before D3's ends (a divide retired after its
 *           completion overlaps the next); each record after its
 *           continuation's MEM record.
 * Six records: 23, 23, 7, 23, 23, 23.  Before session 24 the parts'
 * busy cycles joined the thread's 64-cycle sums: one record of 46, at a
 * later cycle. */
static void test_div_records(void)
{
    const pmusim_cpu_t cpus[] = { PMUSIM_CPU_WSM, PMUSIM_CPU_KNM };
    const uint16_t div = PMUSIM_OPK_DIV << PMUSIM_F_OPKIND_SHIFT;
    const uint16_t sd = PMUSIM_FPC_SD << PMUSIM_F_FPCLASS_SHIFT;
    for (size_t k = 0; k < G_N_ELEMENTS(cpus); k++) {
        const uint16_t code = cpus[k] == PMUSIM_CPU_WSM ? 0x14 : 0xcd;
        const uint64_t w = cpus[k] == PMUSIM_CPU_WSM ? 4 : 2;
        const uint64_t window = cpus[k] == PMUSIM_CPU_WSM ? 128 : 72;
        collect_t c;
        pmusim_uarch_t *u = model(cpus[k], 1, NULL, &c);
        GError *e = NULL;
        pmusim_uarch_insn_t in = { .plm = 3, .len = 4, .uops = 1 };
        for (uint64_t i = 0; i < 24; i++) {
            in.ip = 0x400000 + 4 * (i % 8);
            CU_ASSERT_TRUE_FATAL(pmusim_uarch_insn(u, &in, &e));
        }
        static const uint64_t dip[4] = { 0x400020, 0x400024, 0x400028, 0x40002c };
        for (int i = 0; i < 3; i++) {
            in.ip = dip[i];
            in.flags = i < 2 ? div : (uint16_t)(sd | div);
            CU_ASSERT_TRUE_FATAL(pmusim_uarch_insn(u, &in, &e));
        }
        in.flags = 0;
        for (uint64_t i = 0; i < 200; i++) {
            in.ip = 0x400000 + 4 * (i % 8);
            CU_ASSERT_TRUE_FATAL(pmusim_uarch_insn(u, &in, &e));
        }
        in.ip = dip[3];
        in.flags = div;
        CU_ASSERT_TRUE_FATAL(pmusim_uarch_insn(u, &in, &e));
        for (uint64_t i = 0; i < 2; i++) {
            pmusim_uarch_access_t a0 = { .addr = 0x10000000 + 128 * i, .size = 4, .is_store = 1 };
            pmusim_uarch_access_t a1 = { .addr = 0x10000040 + 128 * i, .size = 4, .is_store = 1 };
            pmusim_uarch_insn_t p = { .ip = 0x400030 + 4 * i, .plm = 3, .len = 4, .uops = 2,
                                      .flags = div, .naccess = 1 | PMUSIM_UARCH_ACC_MORE,
                                      .access = &a0 };
            CU_ASSERT_TRUE_FATAL(pmusim_uarch_insn(u, &p, &e));
            p.naccess = 1 | PMUSIM_UARCH_ACC_CONT;
            p.access = &a1;
            CU_ASSERT_TRUE_FATAL(pmusim_uarch_insn(u, &p, &e));
        }
        in.ip = 0x400000;
        in.flags = 0;
        CU_ASSERT_TRUE_FATAL(pmusim_uarch_insn(u, &in, &e));
        finish(u);
        assert_cycle_order(&c);
        /* the divide records: their cycle, n, and the INSN record they
         * follow (its ip, cycle; whether a MEM record came between) */
        struct { uint64_t cycle, n, ip, insn_cycle; gboolean after_mem; } got[8];
        guint ngot = 0;
        uint64_t cur_ip = 0, cur_cycle = 0;
        gboolean after_mem = FALSE;
        for (guint i = 0; i < c.recs->len; i++) {
            const pmusim_rec_t *r = rec(&c, i);
            if (r->kind == PMUSIM_REC_INSN) {
                cur_ip = r->ip;
                cur_cycle = r->cycle;
                after_mem = FALSE;
            } else if (r->kind == PMUSIM_REC_MEM) {
                after_mem = TRUE;
            } else if (r->kind == PMUSIM_REC_EVENT && r->ev_code == code && r->ev_umask == 0x01) {
                CU_ASSERT_TRUE_FATAL(ngot < G_N_ELEMENTS(got));
                got[ngot].cycle = r->cycle;
                got[ngot].n = r->n;
                got[ngot].ip = cur_ip;
                got[ngot].insn_cycle = cur_cycle;
                got[ngot].after_mem = after_mem;
                ngot++;
            }
        }
        CU_ASSERT_EQUAL_FATAL(ngot, 6);
        static const uint64_t want_n[6] = { 23, 23, 7, 23, 23, 23 };
        static const uint64_t want_ip[6] = { 0x400020, 0x400024, 0x400028,
                                             0x40002c, 0x400030, 0x400034 };
        for (guint i = 0; i < 6; i++) {
            CU_ASSERT_EQUAL(got[i].n, want_n[i]);
            CU_ASSERT_EQUAL(got[i].ip, want_ip[i]);
            CU_ASSERT_EQUAL(got[i].cycle, got[i].insn_cycle);
            CU_ASSERT_EQUAL(got[i].after_mem, i >= 4);
        }
        const uint64_t d1 = got[0].cycle, d2 = got[1].cycle, f = got[2].cycle, d3 = got[3].cycle;
        CU_ASSERT_EQUAL(d2, d1 + 23); /* abut */
        CU_ASSERT_EQUAL(f, d2 + 7);   /* inside D2's */
        /* ret(k), the cycle the k-th plain instruction retires in: F's
         * cycle holds F and w - 1 of them, each later one w */
#define DIV_RET(k) (f + ((k) - (w - 1) + w - 1) / w)
        CU_ASSERT_EQUAL(d3, DIV_RET(200));
        CU_ASSERT_TRUE(d3 > d2 + 23); /* apart */
        const uint64_t d3_disp = DIV_RET(201 - window) + 1;
        CU_ASSERT_EQUAL(got[4].cycle, d3_disp + 46);
        CU_ASSERT_EQUAL(got[5].cycle, d3_disp + 69);
        CU_ASSERT_TRUE(got[4].cycle < d3 + 23); /* D3's and PA's overlap */
#undef DIV_RET
        CU_ASSERT_EQUAL(ev_sum(&c, code, 0x01), 5 * 23 + 7);
        done(u, &c);

        /* the header: the divider's pair in evspan, after the walks', and
         * in evsum */
        u = model(cpus[k], 1, NULL, &c);
        pmusim_trace_header_t h;
        pmusim_trace_header_init(&h, cpus[k], 1);
        pmusim_uarch_header(u, &h);
        const char *span = pmusim_trace_header_get_meta(&h, "evspan");
        const char *sum = pmusim_trace_header_get_meta(&h, "evsum");
        CU_ASSERT_PTR_NOT_NULL_FATAL(span);
        CU_ASSERT_PTR_NOT_NULL_FATAL(sum);
        CU_ASSERT_STRING_EQUAL(span, cpus[k] == PMUSIM_CPU_WSM
                                         ? "0x85/0x04,0x49/0x04,0x08/0x04,0x14/0x01"
                                         : "0x05/0x02,0x05/0x01,0xcd/0x01");
        CU_ASSERT_PTR_NOT_NULL(strstr(sum, cpus[k] == PMUSIM_CPU_WSM ? "0x14/0x01" : "0xcd/0x01"));
        pmusim_trace_header_clear(&h);
        done(u, &c);
    }
}

static void register_suites(void)
{
    CU_pSuite s = CU_add_suite("caches", NULL, NULL);
    PMUSIM_ADD_TEST(s, test_stream_misses_n_over_64);
    PMUSIM_ADD_TEST(s, test_fitting_set_misses_only_cold);
    PMUSIM_ADD_TEST(s, test_pointer_chase_misses_ll);
    PMUSIM_ADD_TEST(s, test_two_way_conflicts);
    PMUSIM_ADD_TEST(s, test_lru_order);
    PMUSIM_ADD_TEST(s, test_same_line_lru_dirty_inclusion);
    PMUSIM_ADD_TEST(s, test_itlb_order_on_fast_path);
    PMUSIM_ADD_TEST(s, test_straddling_access);
    PMUSIM_ADD_TEST(s, test_lfb_hits);
    PMUSIM_ADD_TEST(s, test_straddling_fetch);
    PMUSIM_ADD_TEST(s, test_knm_fetch_ll_refs);
    PMUSIM_ADD_TEST(s, test_ll_line_smaller);
    PMUSIM_ADD_TEST(s, test_split_access_ll_whole);
    PMUSIM_ADD_TEST(s, test_split_fetch_ll_whole);
    PMUSIM_ADD_TEST(s, test_inclusive_l3_back_invalidates);
    PMUSIM_ADD_TEST(s, test_ll_inclusive_option);
    PMUSIM_ADD_TEST(s, test_header_events);
    PMUSIM_ADD_TEST(s, test_decoded);
    PMUSIM_ADD_TEST(s, test_decoded_nested);
    PMUSIM_ADD_TEST(s, test_ports_divider_ms);
    PMUSIM_ADD_TEST(s, test_divider_timing);
    PMUSIM_ADD_TEST(s, test_div_records);
    PMUSIM_ADD_TEST(s, test_lsd);
    PMUSIM_ADD_TEST(s, test_lsd_smt);
    PMUSIM_ADD_TEST(s, test_macro_fusion);
    PMUSIM_ADD_TEST(s, test_l1i_lookups);
    PMUSIM_ADD_TEST(s, test_walk_cycles);
    PMUSIM_ADD_TEST(s, test_walk_records);
    PMUSIM_ADD_TEST(s, test_l2_ifetch);
    PMUSIM_ADD_TEST(s, test_l2_traffic);
    PMUSIM_ADD_TEST(s, test_l2_line_states);
    PMUSIM_ADD_TEST(s, test_lock_rfo_states);
    PMUSIM_ADD_TEST(s, test_stfwd_blocks);
    PMUSIM_ADD_TEST(s, test_partial_alias);
    PMUSIM_ADD_TEST(s, test_itlb_miss_retired);
    PMUSIM_ADD_TEST(s, test_itanium_fp_loads_from_l2);
    PMUSIM_ADD_TEST(s, test_ia64_below_l1);
    PMUSIM_ADD_TEST(s, test_offcore_and_remote);
    PMUSIM_ADD_TEST(s, test_replacement_events);
    PMUSIM_ADD_TEST(s, test_l2_lines_out_any);
    s = CU_add_suite("prediction", NULL, NULL);
    PMUSIM_ADD_TEST(s, test_predictor_learns_loop);
    PMUSIM_ADD_TEST(s, test_return_stack);
    s = CU_add_suite("timing", NULL, NULL);
    PMUSIM_ADD_TEST(s, test_overlap_independent_not_dependent);
    PMUSIM_ADD_TEST(s, test_dependence_distance);
    PMUSIM_ADD_TEST(s, test_branch_dependence);
    PMUSIM_ADD_TEST(s, test_reservation_station);
    PMUSIM_ADD_TEST(s, test_reservation_station_smt);
    PMUSIM_ADD_TEST(s, test_ipc_bounded_by_width);
    PMUSIM_ADD_TEST(s, test_stats_cycles);
    PMUSIM_ADD_TEST(s, test_records_count);
    PMUSIM_ADD_TEST(s, test_event_span_on_fast_path);
    PMUSIM_ADD_TEST(s, test_montecito_switch_on_event);
    PMUSIM_ADD_TEST(s, test_montecito_marker_after_held);
    PMUSIM_ADD_TEST(s, test_smt_merge_in_cycle_order);
    PMUSIM_ADD_TEST(s, test_smt_merge_mem_follows_insn);
    PMUSIM_ADD_TEST(s, test_smt_queue_cap_events);
    PMUSIM_ADD_TEST(s, test_smt_step_earliest);
    PMUSIM_ADD_TEST(s, test_baclears_cond);
    PMUSIM_ADD_TEST(s, test_alloc_load_store_buffers);
    PMUSIM_ADD_TEST(s, test_smt_halves_load_store_buffers);
    PMUSIM_ADD_TEST(s, test_alloc_knm_no_alloc);
    PMUSIM_ADD_TEST(s, test_parts_one_instruction);
    PMUSIM_ADD_TEST(s, test_parts_batch);
    PMUSIM_ADD_TEST(s, test_parts_interleaved);
    PMUSIM_ADD_TEST(s, test_parts_two_threads);
    PMUSIM_ADD_TEST(s, test_parts_bad);
    s = CU_add_suite("options", NULL, NULL);
    PMUSIM_ADD_TEST(s, test_options);
    PMUSIM_ADD_TEST(s, test_batches_in_callers_buffer);
    PMUSIM_ADD_TEST(s, test_insns_batch);
    PMUSIM_ADD_TEST(s, test_rec_template);
    PMUSIM_ADD_TEST(s, test_batch_plm);
}
