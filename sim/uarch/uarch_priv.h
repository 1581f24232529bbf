/* Internals of the microarchitecture model (include/pmusim/uarch.h).
 *
 * Shape (docs/UARCH.md): caches and TLBs are one small set-associative LRU
 * structure (uarch_cache_t, after cachegrind's cg_sim.c: tags of a set in LRU
 * order, most recent first); the branch predictor is a gshare direction table,
 * a BTB and a return stack per thread; the timing is an interval model
 * (Genbrugge et al., HPCA 2010) with a dispatch width, a reorder window whose
 * misses overlap, and penalties.  A CPU is a row of data (uarch_cpu_cfg_t). */
#ifndef PMUSIM_UARCH_PRIV_H
#define PMUSIM_UARCH_PRIV_H

#include "pmusim/uarch.h"

/* How offcore requests are described (x86 MSR_OFFCORE_RSP layouts). */
typedef enum uarch_offcore_kind {
    UARCH_OC_NONE = 0, /* Itanium: no offcore facility */
    UARCH_OC_WSM,      /* Westmere 06_25: L2 misses; LOCAL_DRAM = bit 13 */
    UARCH_OC_WSM_DP,   /* Westmere DP 06_2C/2F (libpfm4 names): local DRAM bit 12, remote 13 */
    UARCH_OC_KNM,      /* Knights Mill: L1 misses; supplier + snoop bits */
} uarch_offcore_kind_t;

/* One EVENT record the model emits: a (code, umask) of the CPU's tables. */
typedef struct uarch_ev {
    uint16_t code, umask;
    gboolean present; /* FALSE (the zero value): the CPU has no such event */
} uarch_ev_t;

/* The facts the model turns into EVENT records (docs/UARCH.md, events). */
typedef struct uarch_events {
    uarch_ev_t l1d_repl;      /* an L1D line filled */
    uarch_ev_t l1d_m_evict;   /* a modified L1D line evicted */
    uarch_ev_t l2_lines_in;   /* an L2 (L2D) line filled */
    uarch_ev_t l2_out_clean;  /* L2 evicted a clean line */
    uarch_ev_t l2_out_dirty;  /* L2 evicted a modified line */
    uarch_ev_t l2_out_any;    /* L2 evicted a line (clean or modified; no prefetcher) */
    uarch_ev_t l3_repl;       /* L3 replaced a line */
    uarch_ev_t l1i_miss;      /* an instruction fetch missed L1I */
    uarch_ev_t l1i_hit;       /* an instruction fetch hit L1I (x86: HITS; READS = HITS | MISSES) */
    uarch_ev_t l1i_fill;      /* an L1I line filled */
    uarch_ev_t ifetch_ear;    /* IA-64 I-EAR fetch record: umask = ITLB outcome, n = latency */
    uarch_ev_t itlb_miss;     /* first-level ITLB miss */
    uarch_ev_t itlb_walk;     /* ITLB miss that needed a walk (x86) / missed L2 ITLB (IA-64) */
    uarch_ev_t itlb_stlb_hit; /* x86 ITLB miss that hit the second-level TLB */
    /* x86 an instruction whose fetch missed the ITLB (once, however many
     * of its lines' lookups missed; every instruction retires: no wrong path) */
    uarch_ev_t itlb_miss_ret;
    uarch_ev_t itlb_walk_cyc; /* cycles of instruction-side walks (n = lat_walk per walk) */
    uarch_ev_t dtlb_walk_cyc; /* cycles of data-side walks, loads and stores (n = lat_walk) */
    uarch_ev_t dtlb_ld_walk_cyc; /* cycles of data-side walks of loads (n = lat_walk) */
    uarch_ev_t l2_ifetch_hit; /* x86: an instruction fetch hit the (unified) L2 */
    uarch_ev_t l2_ifetch_miss; /* x86: an instruction fetch missed the L2 */
    /* x86 L2 prefetch requests, hit / miss: never written (the model has no
     * prefetcher), listed in the header's events key so that a replay
     * counts them 0 (L2_RQSTS:REFERENCES includes their bits) */
    uarch_ev_t l2_pf_hit, l2_pf_miss;
    /* x86 L2 transactions (Westmere L2_TRANSACTIONS): an L1I miss's lookup,
     * a prefetch (never: no prefetcher), a modified L1D line written into
     * L2, a line filled into L2, a modified L2 line written to L3 */
    uarch_ev_t l2_tr_ifetch, l2_tr_pf, l2_tr_l1d_wb, l2_tr_fill, l2_tr_wb;
    /* x86 modified L1D victims written into L2: every one (L1D_WB_L2:MESI),
     * those whose line L2 does not hold (I_STATE), and these as requests
     * leaving the core (OFFCORE_REQUESTS:L1D_WRITEBACK) */
    uarch_ev_t l1d_wb_l2, l1d_wb_l2_miss, oc_l1d_wb;
    /* x86 L2 line states (docs/UARCH.md §5).  One core: a line the L2
     * holds is M (its dirty bit: an L1D write-back modified it) or E, never
     * S; no prefetcher.  The S and prefetch kinds are listed in the events
     * key and never written; the I state of a demand request is its MEM
     * record's level (beyond L2).  A demand load's (L2_DATA_RQSTS:DEMAND_*)
     * and an RFO's (L2_WRITE:RFO_*; E has no name) state at its L2 lookup,
     * one a MEM record at level L2: */
    uarch_ev_t l2_ld_e, l2_ld_m, l2_ld_s, l2_rfo_e, l2_rfo_m, l2_rfo_s;
    /* a locked instruction's load (PMUSIM_F_LOCK) at its L2 lookup: a lock
     * RFO finding the line in E, M (S: never; L2_WRITE:LOCK_*_STATE) */
    uarch_ev_t l2_lock_e, l2_lock_m, l2_lock_s;
    /* L2 data prefetches in I, S, E, M state (never) */
    uarch_ev_t l2_pf_i, l2_pf_s, l2_pf_e, l2_pf_m;
    /* a line filled into L2 in E state (every fill: nobody else holds
     * it), in S state (never) */
    uarch_ev_t l2_in_e, l2_in_s;
    /* the state of the L2 line an L1D write-back lands on: E, M, S (never) */
    uarch_ev_t l1d_wb_l2_e, l1d_wb_l2_m, l1d_wb_l2_s;
    uarch_ev_t baclear;       /* x86 front-end resteer of a direct branch missing the BTB */
    uarch_ev_t baclear_cond;  /* ... of a conditional one (knm BACLEARS:COND) */
    uarch_ev_t rob_full;      /* cycles dispatch waited for the reorder window (n = cycles) */
    uarch_ev_t misp_stall;    /* cycles allocation waited for a mispredicted branch (n = cycles) */
    /* allocation and front-end stalls (docs/UARCH.md §1 step 2, "Allocation
     * stalls"; alloc_cycle() in uarch.c): cycles allocation waited for a
     * load buffer entry, a store buffer entry, any of these or the window
     * (wsm RESOURCE_STALLS:LOAD, STORE, ANY); cycles the front end waited
     * for an instruction fetch's ITLB and L1I miss (wsm L1I:CYCLES_STALLED)
     * or for an L1I fill only (knm FETCH_STALL:ICACHE_FILL_PENDING_CYCLES);
     * cycles without allocation waiting for the front end, not after a
     * misprediction (knm NO_ALLOC_CYCLES:NOT_DELIVERED), and for any reason
     * (NO_ALLOC_CYCLES:ALL); a return the front end resteers (knm
     * BACLEARS:RETURN: listed, never written, as the model predicts every
     * return from its return stack at fetch) */
    uarch_ev_t lb_full, sb_full, res_stall_any, fetch_stall_cyc, icache_fill_cyc;
    uarch_ev_t not_delivered, no_alloc_all, baclear_ret;
    /* cycles allocation waited for a reservation station entry (any
     * station: wsm RESOURCE_STALLS:RS_FULL, knm RS_FULL_STALL:ANY; also
     * knm NO_ALLOC_CYCLES:RAT_STALL), for the memory cluster's (knm
     * RS_FULL_STALL:MEC); written only for an input with the "rsdep"
     * annotation (docs/UARCH.md §1, "The reservation station") */
    uarch_ev_t rs_full, rs_full_mem, rs_rat;
    uarch_ev_t ts_l3miss;     /* Montecito thread switch on an L3 miss */
    uarch_ev_t ts_timer;      /* Montecito thread switch on time-out */
    /* IA-64 traffic below the L1 caches (docs/UARCH.md §5, ita2/mont
     * columns), one model fact record each: EVENT code 0x100, umask the
     * fact, which the IA-64 models count for every event that includes it
     * (sim/models/ia64/trace-facts.csv; docs/trace-events-ia64.md).  An L1I
     * miss's demand read of the L2 (ita2) or L2I (mont), hit / miss: */
    uarch_ev_t f_l2_if_hit, f_l2_if_miss;
    /* an instruction fetch's (demand) read of the L3: hit, miss, and a miss
     * whose line the bus brings (BRL; the model writes bus transactions
     * with 128-byte L3 lines only, u->bus_ev) */
    uarch_ev_t f_l3_if_hit, f_l3_if_miss, f_l3_if_miss_bus;
    /* a modified L2 victim written into the L3: hit, miss, and a miss
     * written to memory over the bus */
    uarch_ev_t f_l3_wb_hit, f_l3_wb_miss, f_l3_wb_miss_bus;
    /* bus transactions of the data accesses (whose L3 lookups their MEM
     * records give): a load's L3 miss read with BRL, a store's with BRIL;
     * and a modified L3 victim written to memory (any L3 fill) */
    uarch_ev_t f_bus_rd_load, f_bus_rd_store, f_bus_wb_victim;
    /* x86 execution (docs/UARCH.md §1.1, "Dispatch ports, the divider and
     * the microcode sequencer"): uops dispatched to port k (Westmere
     * UOPS_EXECUTED, umask 1 << k; summed like the other counts) */
    uarch_ev_t port[6];
    /* loads dispatched late from the RS, or from the MOB: never (no
     * blocked loads); listed so that LOAD_DISPATCH:ANY counts */
    uarch_ev_t ld_rs_delayed, ld_mob;
    /* the divider's busy cycles, one record per divide (not summed: a
     * counter with c=1 i=1 e=1, ARITH:DIV, counts the busy periods) */
    uarch_ev_t div_busy;
    /* uops from the microcode sequencer (an instruction of more fused
     * uops than ms_uops), and the sequencer's entries (one such
     * instruction) */
    uarch_ev_t ms_uops, ms_entry;
    /* the loop stream detector (docs/UARCH.md §1 "Loop stream detector"):
     * uops it delivered, one record per cycle (not summed, so that LSD's
     * c=1 forms ACTIVE and INACTIVE count cycles), and loops too large to
     * stream (summed) */
    uarch_ev_t lsd_uops, lsd_overflow;
    /* the decoders' work net of the detector (docs/UARCH.md §1
     * "Decoders"): instructions decoded, the same instructions written to
     * the instruction queue by predecode, macro-fused pairs decoded (each
     * summed with the ports' counts, fe_flush()) */
    uarch_ev_t dec_insts, iq_writes, dec_fusions;
    /* a load (an instruction's first access) whose bytes the youngest
     * store still in the store buffer that overlaps them modulo 4 KiB
     * (bits 11:0) does not overlap in full: wsm PARTIAL_ADDRESS_ALIAS,
     * counted, not timed (stfwd_alias(), docs/UARCH.md §1 "Store
     * forwarding") */
    uarch_ev_t addr_alias;
    /* the L1D prefetcher's requests, misses and triggers, and L2 lines
     * evicted by a prefetch, clean or dirty: never (no prefetcher); listed
     * so that they read 0, as L2_RQSTS:PREFETCH_* (docs/trace-events-x86.md,
     * "What a capture leaves <not in trace>, session 24") */
    uarch_ev_t l1d_pf_req, l1d_pf_miss, l1d_pf_trig, l2_out_pf_clean, l2_out_pf_dirty;
} uarch_events_t;

/* Every parameter of one CPU; the values and their sources are the table
 * in uarch_cfg.c and docs/UARCH.md. */
typedef struct uarch_cpu_cfg {
    pmusim_cpu_t cpu;
    const char *model;          /* "Xeon X5650 (Westmere-EP)" ... */
    uint32_t max_threads;
    gboolean soemt;             /* Montecito switch-on-event threads */
    gboolean ia64;
    pmusim_uarch_geom_t l1i, l1d, l2, l2i, l3;
    gboolean l1d_int_only;      /* FP loads/stores bypass L1D (Itanium) */
    gboolean l1d_write_through; /* stores do not allocate, lines never dirty (Itanium) */
    gboolean l3_inclusive;      /* L3 evictions invalidate the inner levels */
    uint32_t lat_l1d, lat_l2, lat_l2_fp, lat_l2i, lat_l3, lat_dram, lat_remote_dram;
    uint32_t lat_mcdram;        /* knm --knm-memory=mcdram */
    pmusim_uarch_geom_t dtlb, stlb, itlb, itlb2; /* size = entries * 4096, line = 4096 */
    uint32_t lat_stlb_hit, lat_walk;
    uint32_t bp_log2_entries, bp_hist_bits, btb_entries, btb_assoc, ras_depth;
    uint32_t mispredict_penalty, resteer_penalty;
    uint32_t width;             /* dispatch = retire width, fused uops (IA-64: instructions) */
    uint32_t window;            /* reorder window (IA-64: stall-on-use distance, E) */
    /* load and store buffer entries (0: not modelled); an entry is taken
     * at allocation and freed when its instruction retires */
    uint32_t lb_entries, sb_entries;
    /* reservation station entries (uops; 0: not modelled): the one station
     * (wsm), or the integer stations' (knm), and on knm the memory
     * cluster's (instructions with accesses) and the vector stations' (FP
     * instructions); 0 there: those instructions take rs_entries too.  An
     * entry is taken at allocation and freed when its uop leaves for
     * execution.  Each at most UARCH_RS_MAX. */
    uint32_t rs_entries, rs_mem_entries, rs_fp_entries;
    /* line fill buffers of the core, at most UARCH_LFB_MAX (0: not
     * modelled, every L1D lookup that finds its line is an L1D hit) */
    uint32_t lfb_entries;
    uint32_t switch_penalty, switch_quantum; /* Montecito */
    /* cycles a divide keeps the (unpipelined) divider busy, integer and
     * FP (x87, SSE scalar and packed); 0: no divider model (IA-64) */
    uint32_t lat_div_int, lat_div_fp;
    /* an instruction of more fused uops comes from the microcode
     * sequencer (MSROM); 0: not modelled (IA-64) */
    uint32_t ms_uops;
    /* uops of the largest loop body the loop stream detector streams (the
     * instruction queue's entries); 0: not modelled */
    uint32_t lsd_uops;
    /* the decoders fuse a TEST or CMP and its Jcc into one uop (the pairs
     * the trace marks with operation kind fused) */
    gboolean macro_fusion;
    uarch_offcore_kind_t offcore;
    uarch_events_t ev;
} uarch_cpu_cfg_t;

#define UARCH_LFB_MAX 16
#define UARCH_RS_MAX 64

/* NULL when the CPU has no model. */
const uarch_cpu_cfg_t *uarch_cpu_cfg(pmusim_cpu_t cpu);

/* ---- set-associative LRU structure (caches and TLBs) ---- */
#define UARCH_TAG_EMPTY UINT64_MAX
typedef struct uarch_cache {
    uint64_t *tags;      /* sets * assoc entries, each (block << 1) | dirty, MRU first */
    uint32_t assoc, sets;
    uint32_t line_bits;  /* log2 of the block size */
    uint64_t set_mask;   /* sets - 1 when sets is a power of two */
    gboolean pow2;
} uarch_cache_t;

/* Result of one block access. */
typedef struct uarch_fill {
    gboolean hit;
    gboolean evicted;      /* a valid block was replaced */
    gboolean evicted_dirty;
    uint64_t victim;       /* block number of the replaced block */
} uarch_fill_t;

/* The common case inline: `blk` is its set's most recently used block
 * (marked dirty when `dirty`).  FALSE says nothing: call uarch_cache_access(). */
static inline gboolean uarch_cache_mru_hit(uarch_cache_t *c, uint64_t blk, gboolean dirty)
{
    uint64_t s = c->pow2 ? (blk & c->set_mask) : (blk % c->sets);
    uint64_t *w0 = &c->tags[s * c->assoc];
    if ((*w0 | 1) != ((blk << 1) | 1))
        return FALSE;
    *w0 |= (uint64_t)(dirty != 0);
    return TRUE;
}

/* uarch_cache_mru_hit() of a cache whose number of sets is a power of two. */
static inline gboolean uarch_cache_mru_hit_p2(uarch_cache_t *c, uint64_t blk, gboolean dirty)
{
    uint64_t s = blk & c->set_mask;
    uint64_t *w0 = &c->tags[s * c->assoc];
    if ((*w0 | 1) != ((blk << 1) | 1))
        return FALSE;
    *w0 |= (uint64_t)(dirty != 0);
    return TRUE;
}

/* uarch_cache_access() of a block that is its set's most recent or second
 * most recent one (a hit), inline; FALSE when it is neither, having changed
 * nothing: call uarch_cache_access(). */
static inline gboolean uarch_cache_hit2(uarch_cache_t *c, uint64_t blk, gboolean dirty)
{
    uint64_t s = c->pow2 ? (blk & c->set_mask) : (blk % c->sets);
    uint64_t *w0 = &c->tags[s * c->assoc];
    const uint64_t key = (blk << 1) | 1;
    if ((w0[0] | 1) == key) {
        w0[0] |= (uint64_t)(dirty != 0);
        return TRUE;
    }
    if (c->assoc < 2 || (w0[1] | 1) != key || w0[1] == UARCH_TAG_EMPTY)
        return FALSE;
    const uint64_t moving = w0[1] | (uint64_t)(dirty != 0);
    w0[1] = w0[0];
    w0[0] = moving;
    return TRUE;
}

/* Whether block `blk`, its set's most recent (a hit just made it so), is
 * modified. */
static inline gboolean uarch_cache_mru_dirty(const uarch_cache_t *c, uint64_t blk)
{
    uint64_t s = c->pow2 ? (blk & c->set_mask) : (blk % c->sets);
    return c->tags[s * c->assoc] & 1;
}

gboolean uarch_cache_init(uarch_cache_t *c, const pmusim_uarch_geom_t *g);
void uarch_cache_free(uarch_cache_t *c);
/* Looks block `blk` up; a hit becomes MRU, a miss is inserted as MRU
 * (evicting the LRU way).  `dirty` marks the block modified. */
void uarch_cache_access(uarch_cache_t *c, uint64_t blk, gboolean dirty, uarch_fill_t *f);
/* What uarch_cache_probe() found: nothing, a clean or a modified block
 * (its state before this lookup's `dirty`); UARCH_PROBE_MISS is 0. */
typedef enum uarch_probe {
    UARCH_PROBE_MISS = 0,
    UARCH_PROBE_CLEAN,
    UARCH_PROBE_DIRTY,
} uarch_probe_t;
/* Looks up without inserting (a hit still becomes MRU). */
uarch_probe_t uarch_cache_probe(uarch_cache_t *c, uint64_t blk, gboolean dirty);
/* Removes the block if present; returns TRUE if it was dirty. */
gboolean uarch_cache_invalidate(uarch_cache_t *c, uint64_t blk, gboolean *was_present);

/* ---- branch prediction ---- */
typedef struct uarch_btb_entry {
    uint64_t ip, target; /* ip = UINT64_MAX: empty */
} uarch_btb_entry_t;

typedef struct uarch_bpred {
    uint8_t *ctr;        /* 2-bit counters */
    uint32_t ctr_mask;
    uint32_t hist_mask;
    uarch_btb_entry_t *btb; /* sets * assoc, MRU first */
    uint32_t btb_sets, btb_assoc;
    uint32_t btb_set_mask; /* btb_sets - 1 (a power of two on every CPU) */
} uarch_bpred_t;

gboolean uarch_bpred_init(uarch_bpred_t *b, const uarch_cpu_cfg_t *cfg);
void uarch_bpred_free(uarch_bpred_t *b);

/* Direction, gshare (McFarling 1993): the IP xor the global history
 * indexes a table of 2-bit saturating counters.  Predicts with history
 * `hist`, then trains with `taken`; returns the prediction.  Inline: it
 * runs for every conditional branch. */
static inline gboolean uarch_bpred_direction(uarch_bpred_t *b, uint64_t ip, uint32_t hist,
                                             gboolean taken)
{
    uint32_t i = ((uint32_t)(ip ^ (ip >> 13)) ^ (hist & b->hist_mask)) & b->ctr_mask;
    uint8_t c = b->ctr[i];
    gboolean pred = c >= 2;
    if (taken && c < 3)
        b->ctr[i] = c + 1;
    else if (!taken && c > 0)
        b->ctr[i] = c - 1;
    return pred;
}

/* The BTB set of ip. */
static inline uarch_btb_entry_t *uarch_btb_set(const uarch_bpred_t *b, uint64_t ip)
{
    return &b->btb[((uint32_t)(ip ^ (ip >> 11)) & b->btb_set_mask) * b->btb_assoc];
}

/* uarch_btb_lookup_update() when ip is not its set's most recent entry. */
gboolean uarch_btb_lookup_update_slow(uarch_bpred_t *b, uarch_btb_entry_t *set, uint64_t ip,
                                      uint64_t target, uint64_t *predicted);

/* BTB: the predicted target of ip (FALSE when absent); then records target
 * as its set's most recent entry.  The common case, ip the most recent
 * entry of its set, inline. */
static inline gboolean uarch_btb_lookup_update(uarch_bpred_t *b, uint64_t ip, uint64_t target,
                                               uint64_t *predicted)
{
    uarch_btb_entry_t *set = uarch_btb_set(b, ip);
    if (G_LIKELY(set[0].ip == ip)) {
        *predicted = set[0].target;
        set[0].target = target;
        return TRUE;
    }
    return uarch_btb_lookup_update_slow(b, set, ip, target, predicted);
}

#endif
