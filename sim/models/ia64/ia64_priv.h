/* Internal interface of the Itanium 2 (ita2) and Montecito (mont) PMU models.
 *
 * One implementation serves both CPUs; what differs (register numbers, write
 * masks, reset values, field positions of the matchers, thread count) is data
 * in ia64_desc_t.  Register layouts follow ../shared/reference/ia64-pmu.md
 * (cited as "ref §n"); overflow and freeze follow the SDM Vol.2 §7.2 excerpt
 * (../shared/seeds/003_*).  docs/sim-ia64.md describes the model choices.
 *
 * Time.  Records arrive in non-decreasing cycle order.  `cur` is the open
 * cycle: event occurrences of cycle `cur` accumulate in ia64_ctr_t.pending and
 * are applied (clamped to maxincr, compared with the threshold) when the
 * cycle closes, i.e. when a record of a later cycle arrives or at finish().
 * Cycle counters (CPU_CYCLES / CPU_OP_CYCLES_ALL) are lazy: they count one per
 * cycle while their enable condition holds, as value + (t - since); the
 * condition only changes on a register write, a freeze, a privilege-level or
 * instruction-set change of the owning thread, or a thread switch, and the
 * cycle of their next overflow is precomputed, so a gap of idle cycles costs
 * O(1).  All counters of a cycle are updated before that cycle's overflow
 * raises the freeze: a freeze at cycle X stops counting from cycle X+1.
 */
#ifndef PMUSIM_IA64_PRIV_H
#define PMUSIM_IA64_PRIV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include "pmusim/sim.h"

#define IA64_W 47u
#define IA64_CTR_MASK ((UINT64_C(1) << IA64_W) - 1)
#define IA64_CTR_WRAP (UINT64_C(1) << IA64_W)
#define IA64_NO_CYCLE UINT64_MAX
#define IA64_MAX_CTRS 16u /* PMD4..PMD15 on Montecito; index = PMD number */
#define IA64_NREGS 64u    /* PMC/PMD numbers 0..63 */
#define IA64_NDBG 8u      /* IBR0-7, DBR0-7 */
#define IA64_MAX_THREADS 2u
#define IA64_CP_PLANES 8u   /* deferred counts up to 255 per slot before a spill */
#define IA64_CP_CAP 255u
#define IA64_CYC_CAP 256u   /* masks kept per cycle before folding */
#define IA64_LOWINC 8u
#define IA64_ACC_MAX (UINT64_C(1) << 31)

/* Qualifier bits of an event (generated table). */
enum {
    IA64_Q_IARR = 1u << 0,  /* honours instruction-address ranges */
    IA64_Q_OPCM = 1u << 1,  /* honours opcode matching */
    IA64_Q_DARR = 1u << 2,  /* honours data-address ranges (PMC13/PMC41) */
    IA64_Q_MESI = 1u << 3,  /* Montecito MESI filter bits 30:27 */
    IA64_Q_IBRP1 = 1u << 4, /* prefetch event: code ranges through IBRP1 */
};

/* Montecito thread type, with self-floating resolved by the generator
 * (_SELF variants floating, the others causal; ref §12). */
typedef enum ia64_caf {
    IA64_CAF_ACTIVE = 0,
    IA64_CAF_FLOATING = 1,
    IA64_CAF_CAUSAL = 2,
} ia64_caf_t;

/* Where a counter's occurrences come from (docs/trace-events-ia64.md). */
typedef enum ia64_src {
    IA64_SRC_EVENT = 0,      /* only explicit PMUSIM_REC_EVENT records */
    IA64_SRC_CYCLES,         /* every cycle of [0, end) */
    IA64_SRC_INSN,           /* retired IA-64 instruction, tagged by channel umask&3 */
    IA64_SRC_INSN_IA32,      /* retired IA-32 instruction */
    IA64_SRC_ISA_TRANSITION, /* instruction set differs from the thread's previous one */
    IA64_SRC_CPL_CHANGE,     /* privilege level differs from the thread's previous one */
    IA64_SRC_NOP,
    IA64_SRC_PRED_OFF,
    IA64_SRC_FP_OP,
    IA64_SRC_LOAD,
    IA64_SRC_STORE,
    IA64_SRC_MISALIGNED_LOAD,
    IA64_SRC_MISALIGNED_STORE,
    IA64_SRC_MEMREF,
    IA64_SRC_L1D_READ,
    IA64_SRC_L1D_READ_MISS,
    IA64_SRC_L2_DATA_REF,
    IA64_SRC_L2_MISS,
    IA64_SRC_L3_REF,
    IA64_SRC_L3_MISS,
    IA64_SRC_L3_READ,
    IA64_SRC_L3_WRITE,
    IA64_SRC_DTLB_L2_HIT,
    IA64_SRC_DTLB_L2_MISS,
    IA64_SRC_DTLB_HPW,
    IA64_SRC_ALAT_CHECK,
    IA64_SRC_ALAT_FAIL,
    IA64_SRC_BR_MISPRED,
    IA64_SRC_BR_PATH,
    IA64_SRC_BR_BE_MISPRED,
    IA64_SRC_BRANCH_EVENT, /* BTB / ETB captures */
    IA64_SRC_DEAR_EVENT,   /* D-EAR captures */
    IA64_SRC_IEAR_EVENT,   /* I-EAR captures */
    IA64_SRC_THREAD_SWITCH, /* THREAD record making an inactive thread active */
    IA64_SRC_COUNT
} ia64_src_t;

typedef struct ia64_event_info {
    uint16_t key; /* es << 4 | umask */
    uint8_t maxincr;
    uint8_t qual; /* IA64_Q_* */
    uint8_t caf;  /* ia64_caf_t */
    uint8_t src;  /* ia64_src_t */
    const char *name;
} ia64_event_info_t;

/* Model fact records (docs/trace-events-ia64.md, "One EVENT record per
 * fact"): an EVENT record of code IA64_FACT_CODE, outside the 8-bit event
 * selects, stands for one fact of the microarchitecture model's traffic
 * below the L1 caches, umask = the fact (1..IA64_NFACTS-1); it counts once
 * for every event whose definition includes the fact, the keys of the
 * generated table (trace-facts.csv).  An EVENT record of an event select
 * counts for exactly its (es, umask), as in a trace written before. */
#define IA64_FACT_CODE 0x100u
#define IA64_NFACTS 16u
#define IA64_FACT_KEYS 12u

typedef struct ia64_fact {
    const char *name; /* NULL: no such fact on this CPU */
    uint8_t nkeys;
    uint16_t keys[IA64_FACT_KEYS]; /* es << 4 | umask */
} ia64_fact_t;

extern const ia64_fact_t ia64_facts_ita2[IA64_NFACTS];
extern const ia64_fact_t ia64_facts_mont[IA64_NFACTS];

extern const ia64_event_info_t ia64_events_ita2[];
extern const size_t ia64_events_ita2_count;
extern const ia64_event_info_t ia64_events_mont[];
extern const size_t ia64_events_mont_count;

/* ---- model description (data, one per CPU) ---- */

typedef enum ia64_regkind {
    IA64_RK_NONE = 0, /* not implemented */
    IA64_RK_PMC0,     /* freeze + overflow bits */
    IA64_RK_OVF_HI,   /* PMC1-3: overflow bits of PMD64+ (none implemented) */
    IA64_RK_CTR_CFG,  /* counter configuration */
    IA64_RK_OPC_MASK, /* ita2 PMC8/9 (whole matcher) / mont PMC32/34 */
    IA64_RK_OPC_MATCH,/* mont PMC33/35 */
    IA64_RK_OPC_IBR,  /* PMC15 / PMC36 */
    IA64_RK_IEAR,     /* PMC10 / PMC37 */
    IA64_RK_DEAR,     /* PMC11 / PMC40 */
    IA64_RK_BTB,      /* PMC12 / PMC39 */
    IA64_RK_IPEAR,    /* mont PMC42 */
    IA64_RK_DRANGE,   /* PMC13 / PMC41 */
    IA64_RK_IRANGE,   /* PMC14 / PMC38 */
    IA64_RK_CTR,      /* counter PMD */
    IA64_RK_DATA,     /* EAR / BTB / ETB data PMD */
} ia64_regkind_t;

typedef struct ia64_regdesc {
    uint8_t kind;      /* ia64_regkind_t */
    uint64_t reset;    /* power-up value */
    uint64_t writable; /* bits a write may change; the others keep `reset` */
} ia64_regdesc_t;

typedef struct ia64_desc {
    const pmusim_model_ops_t *ops;
    bool mont;
    uint32_t nctr_first, nctr_last; /* counter PMD/PMC numbers */
    ia64_regdesc_t pmc[IA64_NREGS];
    ia64_regdesc_t pmd[IA64_NREGS];
    /* register numbers of the capture units */
    uint32_t pmc_iear, pmc_dear, pmc_btb, pmc_ipear, pmc_drange, pmc_irange, pmc_opc_ibr;
    uint32_t pmc_opc[2];   /* matcher mask regs (PMC8/PMC9, PMC32/PMC34) */
    uint32_t pmd_iear_addr, pmd_iear_lat, pmd_dear_addr, pmd_dear_lat, pmd_dear_ip;
    uint32_t pmd_ring_first, ring_size, pmd_ring_index, pmd_ring_ext; /* ext: mont PMD39 */
    const ia64_event_info_t *events;
    size_t nevents;
    const ia64_fact_t *facts; /* IA64_NFACTS entries */
} ia64_desc_t;

extern const ia64_desc_t ia64_desc_ita2;
extern const ia64_desc_t ia64_desc_mont;

/* ---- compiled state ---- */

typedef struct ia64_ctr {
    /* register contents */
    uint64_t value; /* count bits 46:0 (lazy counters: as of `since`) */
    uint64_t overflows;
    /* decoded from the PMC when written */
    bool programmed;     /* PMC differs from its reset value */
    bool enabled;        /* can count at all (plm != 0, pm/PSR, ism != 3, ...) */
    bool lazy;           /* cycle counter handled by multiplication */
    bool oi, ev, all;
    uint8_t es, umask, thres, ism, caf, qual, chan, mesi;
    uint8_t src;
    uint8_t accept;      /* bit (ia32 << 2 | plm): plm and ism allow counting */
    uint32_t maxincr;
    bool clamp_reported;
    uint8_t qual_raw;    /* IA64_Q_* of the event */
    /* lazy cycle counting */
    bool running;
    uint64_t since;  /* value counts cycles < since */
    uint64_t ovf_at; /* cycle whose increment wraps the counter, or IA64_NO_CYCLE */
} ia64_ctr_t;

typedef struct ia64_range {
    uint64_t addr;
    uint64_t cmp; /* address bits compared: mask bits 55:0 plus 63:56 always */
    uint8_t plm;
} ia64_range_t;

typedef struct ia64_matcher {
    uint64_t mask;  /* don't-care bits of the (packed) instruction */
    uint64_t match;
    uint8_t units;  /* bit per pmusim unit class: 0 M, 1 I, 2 F, 3 B */
    bool inv, ig_ad;
    bool trivial;   /* matches every instruction */
} ia64_matcher_t;

typedef struct ia64_thread {
    ia64_ctr_t ctr[IA64_MAX_CTRS];
    uint64_t pmc[IA64_NREGS];
    uint64_t pmd[IA64_NREGS]; /* data PMDs (counter PMDs live in ctr[]) */
    uint64_t ibr[IA64_NDBG], dbr[IA64_NDBG];
    char label[IA64_MAX_CTRS][PMUSIM_REG_LABEL_MAX]; /* label of each counter PMC write */
    /* PSR.up / PSR.pp of this thread: 1 by default (docs/sim-ia64.md) */
    bool psr_up, psr_pp;
    /* execution state from the trace */
    bool active;
    uint8_t plm;   /* privilege level of the most recent instruction */
    uint8_t prev_plm; /* the level before the most recent change (CPU_CPL_CHANGES) */
    bool ia32;     /* instruction set of the most recent instruction */
    bool seen_insn;
    uint64_t state_key;  /* plm and ia32 as in ia64_key()'s k1, | IA64_KEY_SEEN; 0 before the
                          * first instruction: one compare per record */
    /* the most recent instruction, for EVENT records (which carry no ip) */
    uint64_t last_ip, last_insn;
    uint8_t last_unit, last_slot;
    uint64_t last_retire_cycle;
    /* qualifiers (compiled) */
    ia64_range_t ibrp[4], dbrp[4];
    ia64_matcher_t opc[2];
    bool irange_ignore[4];
    bool fine;
    uint8_t opc_ignore; /* PMC15/PMC36 bits 3:0 */
    uint8_t dcfg[4];
    bool dena[4];
    bool dq_trivial;     /* PMC13/41 lets every access through */
    bool i_trivial[4];   /* channel k's address-range check always passes */
    bool o_trivial[4];   /* channel k's opcode check always passes */
    /* capture units (compiled) */
    bool dear_on, iear_on, btb_on, ipear_on;
    uint8_t dear_plm, dear_mode, dear_umask, dear_ism;
    uint8_t iear_plm, iear_mode, iear_ism;
    uint16_t iear_umask;
    uint8_t btb_plm, btb_tm, btb_ptm, btb_ppm, btb_brt;
    bool btb_ds;
    uint8_t ipear_plm;
    uint32_t ipear_delay;
    /* the same, compiled for ia64_capture_insn(): bit (ia32 << 2 | plm) set
     * when the unit is on and samples an instruction of that privilege
     * level and instruction set; the BTB/ETB filters (tm, ptm, ppm) as bit
     * (taken | tgt_ok << 1 | dir_ok << 2); the D-EAR cache-mode latency */
    uint8_t dear_acc, btb_acc, ipear_acc, btb_pass;
    uint32_t dear_lat_min;
    /* ia64_caprun_btb()'s outcome of a branch by its bytes packed as
     * ia64_br_index() packs them (IA64_BTB_*: issue 12, the filters, the
     * misprediction bits and the taken test from one look-up), and the
     * IP bits of its branch entry (ds on Itanium 2) */
    uint8_t btb_tab[256];
    uint64_t btb_ip_mask;
    uint64_t freeze_cycle; /* cycle the PMU froze (IP-EAR delay) */
    uint64_t ipear_last_cycle;
    uint16_t lazy_bits;   /* bit i: ctr[i].lazy (ia64_ctr_compile()) */
    uint16_t run_bits;    /* bit i: ctr[i].running (ia64_lazy_update_thread()) */
    uint16_t actv_bits;   /* bit i: ctr[i].caf == IA64_CAF_ACTIVE (ia64_ctr_compile()) */
    bool frozen;          /* PMC0.fr */
    bool ovf_pending_irq; /* overflow with oi=1 in the cycle being closed */
} ia64_thread_t;

typedef struct ia64_sub {
    uint8_t thread, idx;
} ia64_sub_t;

/* A subscriber whose qualification depends on the record's ip / encoding /
 * data address: evaluated per record, outside the signature cache. */
typedef struct ia64_qsub {
    uint8_t src, thread, idx;
} ia64_qsub_t;

/* Signature cache: the set of unqualified counters an instruction record
 * increments depends only on a few record fields, packed exactly (raw bytes,
 * no hashing loss) into two words by ia64_key(); the answer is computed once
 * per distinct key and configuration generation. */
#define IA64_SIG_SLOTS 256u /* indexed by the top 8 bits of a 64-bit hash */
#define IA64_DTAB_SLOTS 512u /* flags & 0xff, | 256 for a store (ia64_model_t.dtab) */
#define IA64_XTAB_SLOTS 4096u /* flags 6:4, mem or branch, packed bytes (ia64_model_t.xtab) */
typedef struct ia64_sig_entry {
    uint64_t k1, k2; /* the record key; k1 also holds the generation tag (gen_tag) */
    uint64_t pk;     /* +1 in the 4-bit field of each pk_slots slot of mask (ia64_pk_of()) */
    uint32_t mask;   /* bit thread*16+idx */
    uint16_t id;     /* deferred-count id of mask & dmask (ia64_model_t.id_mask) */
    uint8_t rare;    /* IA64_RARE_*: the record needs more than the common work (lm =
                      * mask & dmask & (m2 | m3): slots with a per-cycle clamp watch) */
    uint8_t inc;     /* mask != 0: the record goes into cyc_masks */
} ia64_sig_entry_t;
_Static_assert(sizeof(ia64_sig_entry_t) == 32, "a signature entry is 32 bytes");
enum {
    IA64_RARE_LM = 1u << 0,    /* lm != 0 */
    IA64_RARE_EXACT = 1u << 1, /* mask has slots outside dmask | e1mask */
    IA64_RARE_E1 = 1u << 2,    /* mask has e1mask slots (the fast loop's cm) */
};

_Static_assert(IA64_MAX_THREADS * IA64_MAX_CTRS <= 32, "counter slot masks fit 32 bits");
/* The generation tag occupies k1 bits 63:41 (ia64_key() uses 31:0). */
#define IA64_GEN_SHIFT 41u
#define IA64_GEN_MASK ((UINT32_C(1) << (64u - IA64_GEN_SHIFT)) - 1u)

/* Distinct D-class masks of instruction records, each with a deferred
 * count: a record adds 1 to its id's count instead of a bit-sliced add.
 * Id 0 is the empty mask (its count is never read).  When the table is full the counts move into the
 * bit planes (ia64_ids_flush()). */
#define IA64_NIDS 64u
_Static_assert(IA64_NIDS <= UINT16_MAX, "ids fit ia64_sig_entry_t.id");

/* Record parts an instruction record's signature must include, by the
 * sources with subscribers (ia64_key()): the flags, privilege level and
 * active state always. */
enum {
    IA64_NEED_MEM = 1u << 0, /* mem is_store, level, tlb, alat */
    IA64_NEED_MIS = 1u << 1, /* misaligned access */
    IA64_NEED_BR = 1u << 2,  /* branch kind, taken, dir_ok, tgt_ok, detect */
    IA64_NEED_ST = 1u << 3,  /* only whether a memory access is a store (part of
                              * IA64_NEED_MEM; ia64_route_rebuild() drops it there) */
};
static inline uint8_t ia64_key_need_of(uint8_t src)
{
    switch (src) {
    case IA64_SRC_INSN:
    case IA64_SRC_INSN_IA32:
    case IA64_SRC_NOP:
    case IA64_SRC_PRED_OFF:
    case IA64_SRC_FP_OP:
    case IA64_SRC_MEMREF:
        return 0; /* flags only */
    case IA64_SRC_MISALIGNED_LOAD:
    case IA64_SRC_MISALIGNED_STORE:
        return IA64_NEED_MEM | IA64_NEED_MIS;
    case IA64_SRC_LOAD:
    case IA64_SRC_STORE:
        return IA64_NEED_ST;
    case IA64_SRC_L1D_READ:
    case IA64_SRC_L1D_READ_MISS:
    case IA64_SRC_L2_DATA_REF:
    case IA64_SRC_L2_MISS:
    case IA64_SRC_L3_REF:
    case IA64_SRC_L3_MISS:
    case IA64_SRC_L3_READ:
    case IA64_SRC_L3_WRITE:
    case IA64_SRC_DTLB_L2_HIT:
    case IA64_SRC_DTLB_L2_MISS:
    case IA64_SRC_DTLB_HPW:
    case IA64_SRC_ALAT_CHECK:
    case IA64_SRC_ALAT_FAIL:
        return IA64_NEED_MEM;
    case IA64_SRC_BR_MISPRED:
    case IA64_SRC_BR_PATH:
    case IA64_SRC_BR_BE_MISPRED:
        return IA64_NEED_BR;
    default:
        return IA64_NEED_MEM | IA64_NEED_MIS | IA64_NEED_BR;
    }
}

#define IA64_MAX_SUBS (IA64_MAX_THREADS * IA64_MAX_CTRS)

/* The state of a one-thread run that ia64_lean_body() reads and updates
 * (ia64_consume_fast_body()'s locals of the same names; e1 = its
 * e1mask).  end2: the first record of the last cycle in [r, end) (or r),
 * before which every record's successor is readable; nempty: the records
 * consumed without a mask (inc 0), from which the caller finds the masks
 * of the cycles closed (issue 12: no record count per close). */
typedef struct {
    const pmusim_rec_t *end, *end2;
    uint64_t cur, pk, cm, next_lazy, pkb, dke, dtag, e1;
    size_t vlim, vmax, nempty;
    /* vfrom: at the lean function's return, the first of the open cycle's
     * entries it added (0 after a close, else v at its entry) */
    uint32_t v, t0, vfrom;
    unsigned rare_keep;
} ia64_lean_t;

/* A lean run (ia64_lean_entry()) that reached the end of an ia64_consume()
 * call's records and goes on with the next call's, the model's state left
 * as it was at the run's entry but for cur, now and the closes' counts
 * (issue 12: the entry and exit cost about 470 host instructions a
 * batch of 256 records).  ia64_lean_resume() continues it;
 * ia64_unsuspend() writes the state the run's exit would have written,
 * before anything else reads or changes the model. */
typedef struct {
    ia64_lean_t ls;
    uint64_t acc0;   /* the deferred masks at the entry, with its open cycle's */
    uint64_t cur0;   /* im->cur at the entry */
    uint64_t left;   /* records the run may still take (headroom) */
    uint64_t ret_cycle; /* the cycle of the run's last instruction record */
    uint64_t done;   /* records consumed */
    uint32_t tm;     /* retire_tmask of cur0 at the entry */
    uint32_t vfill;  /* cyc_masks holds the open cycle's masks below vfill */
    bool retired;    /* ret_cycle is set */
    bool pk_lm;
} ia64_lean_sus_t;

typedef struct ia64_model {
    pmusim_model_t base;
    const ia64_desc_t *d;
    ia64_thread_t th[IA64_MAX_THREADS];
    /* routing of trace-derived occurrences: for a record of thread t and a
     * source s, sub[t][s] lists the counters that may receive it */
    uint8_t nsub[IA64_MAX_THREADS][IA64_SRC_COUNT];
    ia64_sub_t sub[IA64_MAX_THREADS][IA64_SRC_COUNT][IA64_MAX_SUBS];
    /* the distinct insn-record sources with subscribers, per thread */
    uint8_t nsrcs[IA64_MAX_THREADS];
    uint8_t srcs[IA64_MAX_THREADS][IA64_SRC_COUNT];
    /* The counters of a capture source (BRANCH_EVENT, DEAR_EVENT,
     * IEAR_EVENT: index src - IA64_SRC_BRANCH_EVENT) of thread t, as slot
     * masks by the record's ia32 << 2 | plm: cap_any those of any thread
     * type, cap_act those counting only while thread t is active (type
     * active).  cap_exact: some subscriber is qualified, the masks do not
     * apply (ia64_count_capture()). */
    uint32_t cap_any[IA64_MAX_THREADS][3][8], cap_act[IA64_MAX_THREADS][3][8];
    bool cap_exact[IA64_MAX_THREADS][3];
    uint8_t nqsub[IA64_MAX_THREADS];
    ia64_qsub_t qsub[IA64_MAX_THREADS][IA64_MAX_SUBS];
    uint32_t sig_gen;  /* change only through ia64_sig_invalidate() */
    uint64_t gen_tag;  /* (sig_gen & IA64_GEN_MASK) << IA64_GEN_SHIFT, never 0 */
    ia64_sig_entry_t sig_cache[IA64_MAX_THREADS][IA64_SIG_SLOTS];
    /* A second, direct-mapped copy of the signatures of the one-thread fast
     * loop (ia64_consume_fast_body()), indexed by what the key of a record
     * holds in a run of one state (privilege level, instruction set,
     * active): the low byte of its flags, plus 256 for a store when only
     * the store bit is needed (IA64_NEED_ST).  Records whose key has mem or
     * branch bytes use xtab (below) or sig_cache.  An entry's k1 is the run's tag
     * (gen_tag | state bits | active bit: ia64_dtab_tag()) for an entry the
     * loop adds without a test (rare 0, mask not empty), the tag | 1 for a
     * rare entry and the tag | 2 for an empty mask; anything else is a miss
     * (issue 12: the key, slot hash and key compare of every record).
     * dxtab[t] holds thread t's dtab, then its xtab (below): the lean
     * loop reaches both from one pointer (issue 12: the second one was
     * reloaded from the stack at every record of xtab). */
    /* The same for the records whose key holds their mem bytes (a memory
     * access, not a branch, under IA64_NEED_MEM without IA64_NEED_MIS) or
     * their branch bytes (a branch, not a memory access, under
     * IA64_NEED_BR), when each byte is within the bits its field needs
     * (ia64_xtab_index()): flags bits 6:4 (NOP, PRED_OFF, FP) << 9, the
     * branch bit << 8, and the bytes packed into 8 bits.  Tagged as dtab;
     * other records take sig_cache (issue 12: Montecito's benchmark
     * events, BR_MISPRED_DETAIL, L2D_MISSES, L3_MISSES, put a third of the
     * records of its loop trace through the hashed cache). */
    ia64_sig_entry_t dxtab[IA64_MAX_THREADS][IA64_DTAB_SLOTS + IA64_XTAB_SLOTS];
    /* Per thread, its records' one signature when every signature source
     * of the thread is IA64_SRC_INSN / IA64_SRC_INSN_IA32: in a run of one
     * privilege level and instruction set every record then has the same
     * mask (ia64_const_sig(); issue 12: sampling IA64_INST_RETIRED).
     * Valid for csig_state (state_key | active << 9) in generation
     * csig_gen; csig_ok false: the masks depend on the record. */
    ia64_sig_entry_t csig[IA64_MAX_THREADS];
    uint64_t csig_state[IA64_MAX_THREADS];
    uint32_t csig_gen[IA64_MAX_THREADS];
    bool csig_ok[IA64_MAX_THREADS];
    uint8_t key_need;             /* IA64_NEED_* of the subscribed sources */
    bool sig_none;                /* no thread has such a source: every signature is empty */
    uint32_t nids;                /* ids in use, >= 1 */
    uint64_t id_mask[IA64_NIDS];  /* D slots of the id's records */
    uint64_t id_cnt[IA64_NIDS];   /* records deferred under the id (part of the columns) */
    /* Counting state.  Counter slot k = thread*16+idx.
     *
     * Instruction records increment the unqualified counters of their
     * signature's mask.  The masks of the open cycle are kept in cyc_masks
     * (a slot's count in the cycle = the number of masks with its bit).
     * For the D class (thres = 0, maxincr >= 2) the increments also go, bit
     * sliced, into the planes cp (8 planes, spilled into the 32 planes lp
     * every IA64_CP_CAP records): plane i holds bit i of every slot's
     * deferred count, so a record costs the same for 1 or 24 counters and a
     * cycle close costs nothing per counter unless the cycle's count of a
     * D counter could exceed its maxincr, a D counter could overflow in the
     * cycle (acc_recs bounds every deferred count, min_headroom is the
     * smallest 2^47 - value of the D counters), or the counter is frozen.
     * Other counters (E class: thresholds, maxincr 1) are applied exactly at
     * each close from cyc_masks.  Explicit EVENT records, capture units and
     * qualified counters add to pend[k] (exact).  Reads add the deferred
     * columns without the open cycle's part; writes materialise first. */
    uint64_t cp[IA64_CP_PLANES];
    uint32_t cp_total;  /* records added to cp since the last spill */
    uint64_t lp[32];
    unsigned lp_hi;
    uint64_t acc_recs;  /* records of closed cycles deferred since the last materialise */
    uint64_t min_headroom;
    /* The same bound on acc_recs + v over the slots thread t's instruction
     * records can add to (reach[t]: the subscribers of its signature
     * sources), for a run of thread t alone (ia64_consume_fast()): the
     * other slots do not grow in it.  With one sampling counter per
     * Montecito thread the other thread's counter no longer stops the run
     * (issue 12). */
    uint64_t reach[IA64_MAX_THREADS];
    uint64_t lim_thr[IA64_MAX_THREADS];
    uint64_t cyc_masks[IA64_CYC_CAP];
    uint32_t cyc_n;      /* masks in cyc_masks */
    uint32_t cyc_total;  /* records with a mask in the open cycle */
    bool cyc_folded;     /* cyc_d holds counts of masks folded out of cyc_masks */
    uint64_t cyc_d[IA64_MAX_THREADS * IA64_MAX_CTRS];
    uint64_t cmask, pmask; /* slots with mask / pend counts in the open cycle */
    uint64_t pend[IA64_MAX_THREADS * IA64_MAX_CTRS];
    uint64_t dmask;      /* D class slots */
    uint32_t vsafe;      /* largest record count of a cycle no D slot outside m2 | m3 can
                          * exceed its maxincr with (< IA64_LOWINC) */
    uint64_t e1mask;     /* thres 0, maxincr 1: +1 per cycle with an occurrence, deferred
                          * as one add of the cycle's mask (closed cycles only in cp) */
    uint64_t emask;      /* other signature-driven slots: exact every cycle */
    uint64_t lowinc[IA64_LOWINC]; /* D slots with maxincr < v */
    /* D slots with maxincr 2 / 3 and their per-cycle counts in 2-bit
     * saturating bit planes (q0 bit 0, q1 bit 1, qsat: reached 4), so a
     * cycle close can tell exactly whether they need clamping */
    uint64_t m2, m3, q0, q1, qsat;
    /* The other D slots that a cycle of fewer than IA64_LOWINC records can
     * take past their maxincr (maxincr 4..6), each given a 4-bit field of
     * a packed per-cycle count (field j: the j-th lowest slot of
     * pk_slots; pk_ok: at most 16 of them).  The fast loop adds a record's
     * ia64_sig_entry_t.pk and tests a cycle of v < IA64_LOWINC records,
     * whose counts are at most v, for a clamp with one add of pk_bias
     * (7 - maxincr per field) and a mask of the fields' bit 3 (issue 12:
     * the per-slot count over the cycle's masks cost 9 instructions per
     * record on the ita2 loop trace). */
    uint64_t pk_slots, pk_bias;
    bool pk_ok;
    /* pk_slots holds the m2 | m3 slots too (at most 16 slots in all): the
     * fast loop tests their clamp by the packed counts as well, in cycles
     * of v > vsafe_pk records, and leaves the q planes alone (it computes
     * them for the open cycle when it stops), so a record of an m2 / m3
     * slot is a common record there (issue 12: Montecito's
     * BR_MISPRED_DETAIL, maxincr 3, made every branch record of its
     * benchmark set a rare one) */
    bool pk_lm;
    uint32_t vsafe_pk;   /* largest record count of a cycle no D slot can exceed its
                          * maxincr with (<= vsafe) */
    /* the packed counts of the open cycle when the fast loop last left it:
     * valid while it is cycle pk_open_cycle with pk_open_v records in
     * generation pk_open_gen */
    uint64_t pk_open, pk_open_cycle;
    uint32_t pk_open_v, pk_open_gen;
    /* for the fast loop's one-thread runs (ia64_lean_body()): an end of
     * the records of the ia64_consume() call under way (NULL at its
     * start) and the first record of that end's last cycle, found once
     * per call (issue 12: a Montecito thread switch starts a run) */
    const pmusim_rec_t *lean_end, *lean_end2;
    /* ia64_lean_body()'s open cycle: the entries of the records it added,
     * whose masks go into cyc_masks when it returns (issue 12: a pointer
     * store a record instead of a mask's load and store) */
    const struct ia64_sig_entry *lean_ents[IA64_CYC_CAP];
    bool lean_sus;         /* sus holds a suspended lean run */
    ia64_lean_sus_t sus;
    uint64_t stopped;    /* slots that do not count now: disabled or frozen */
    bool any_event_ctr; /* some counter could take explicit EVENT records */
    uint64_t ev_es[256 / 64]; /* bit es: an enabled counter that is not lazy has event select es */
    /* fact_slots[t][f]: the counter slots (u << 4 | i) that a fact record
     * f of thread t can count for, as ia64_on_event() would test an EVENT
     * record of each including (es, umask) by thread t: enabled, not lazy,
     * and u == t, all or causal; the rest (frozen, plm / instruction set,
     * active thread, qualifiers) is per record.  Built with ev_es
     * (ia64_route_rebuild()). */
    uint32_t fact_slots[IA64_MAX_THREADS][IA64_NFACTS];
    bool capture_any;   /* some thread has an EAR/BTB/ETB/IP-EAR on */
    bool track_last;    /* EVENT records need the last instruction's ip/insn */
    bool insn_slow;     /* track_last || capture_any */
    /* time */
    uint64_t cur;        /* open cycle */
    uint64_t now;        /* first cycle not yet accounted (write time) */
    uint64_t end;        /* exclusive end of the trace so far */
    uint64_t next_lazy;  /* min ovf_at over running lazy counters */
    uint64_t records;
    bool started, finished;
    bool order_reported;
    bool thread_reported;
    bool inactive_reported; /* a retirement on a thread the trace marked inactive */
    bool two_retire_reported; /* mont: two threads retired in one cycle */
    uint64_t retire_cycle;  /* cycle of the latest instruction record (IA64_NO_CYCLE: none) */
    uint32_t retire_tmask;  /* threads that retired in it: bit t - 1 set by t + 1 (mont: 3 = both) */
    /* observe_cycles (pmusim wave): while obs_fn is set every slot is
     * counted exactly (emask), the fast paths are off, and each cycle of
     * [obs_from, obs_to) is reported once, in order; obs_next is the first
     * cycle not yet reported.  Per slot, what the cycle being closed did. */
    pmusim_cycle_observer_fn obs_fn;
    void *obs_user;
    uint64_t obs_from, obs_to, obs_next;
    uint64_t obs_raw[IA64_MAX_SUBS], obs_inc[IA64_MAX_SUBS];
    uint64_t obs_cond;  /* slots whose threshold condition held */
    uint64_t obs_ovf;   /* slots that wrapped */
    /* EVENT records seen, bit es << 4 | umask (report(): <not in trace>) */
    uint64_t ev_seen[256 * 16 / 64];
    uint32_t fact_seen; /* bit f: a fact record f (report(): the events that count it) */
    bool in_irq;         /* an interrupt handler is running */
    bool irq_pending;    /* some thread has ovf_pending_irq */
} ia64_model_t;

static inline ia64_model_t *ia64_model(pmusim_model_t *m)
{
    return (ia64_model_t *)m;
}

/* ia64_regs.c */
pmusim_model_t *ia64_model_create(const ia64_desc_t *d, uint32_t nthreads, GError **error);
void ia64_model_destroy(pmusim_model_t *m);
gboolean ia64_write_reg(pmusim_model_t *m, const pmusim_regwrite_t *w, GError **error);
gboolean ia64_read_reg(pmusim_model_t *m, pmusim_regspace_t space, uint32_t num, uint32_t thread,
                       uint64_t *value);
void ia64_route_rebuild(ia64_model_t *im);
uint64_t ia64_ctr_read(const ia64_model_t *im, uint32_t t, uint32_t i);
void ia64_classes_update(ia64_model_t *im);
/* Test hook: PSR.up / PSR.pp of a thread (default 1/1). */
void ia64_model_set_psr(pmusim_model_t *m, uint32_t thread, bool up, bool pp);

/* ia64_count.c */
void ia64_consume(pmusim_model_t *m, const pmusim_rec_t *recs, size_t n);
void ia64_finish(pmusim_model_t *m);
void ia64_lazy_update_thread(ia64_model_t *im, uint32_t t);
void ia64_lazy_recompute_next(ia64_model_t *im);
void ia64_pmc0_written(ia64_model_t *im, uint32_t t, uint64_t old);
void ia64_count_capture(ia64_model_t *im, uint32_t t, const pmusim_rec_t *r, ia64_src_t src);
_Static_assert(IA64_SRC_DEAR_EVENT == IA64_SRC_BRANCH_EVENT + 1 &&
                   IA64_SRC_IEAR_EVENT == IA64_SRC_BRANCH_EVENT + 2,
               "the capture sources index cap_any / cap_act");
/* The slots of capture source cs (src - IA64_SRC_BRANCH_EVENT) of thread
 * t that count an occurrence of an instruction record with acc (its
 * ia32 << 2 | plm) through the compiled masks, without cap_exact: every
 * subscriber that accepts the record's privilege level and instruction
 * set, is not stopped (its thread frozen: the subscribers are enabled
 * counters), and of type active only while thread t is. */
static inline uint64_t ia64_capture_slots(const ia64_model_t *im, uint32_t t, unsigned cs,
                                          unsigned acc)
{
    uint64_t m = im->cap_any[t][cs][acc];
    if (im->th[t].active)
        m |= im->cap_act[t][cs][acc];
    return m & ~im->stopped;
}
/* one occurrence in the open cycle on each slot of m (pend) */
static inline void ia64_pend_add(ia64_model_t *im, uint64_t m)
{
    im->pmask |= m;
    while (m) {
        unsigned k = (unsigned)__builtin_ctzll(m);
        m &= m - 1;
        im->pend[k]++;
    }
}
/* ia64_count_capture() of an instruction record (acc: its ia32 << 2 | plm)
 * through the compiled masks */
static inline void ia64_count_capture_insn(ia64_model_t *im, uint32_t t, const pmusim_rec_t *r,
                                           ia64_src_t src, unsigned acc)
{
    const unsigned cs = (unsigned)src - IA64_SRC_BRANCH_EVENT;
    if (__builtin_expect(im->cap_exact[t][cs], 0)) {
        ia64_count_capture(im, t, r, src);
        return;
    }
    ia64_pend_add(im, ia64_capture_slots(im, t, cs, acc));
}
void ia64_materialize(ia64_model_t *im);
/* min_headroom again after a counter value changed (the classes did not) */
void ia64_headroom_update(ia64_model_t *im);
uint64_t ia64_ctr_count(const ia64_model_t *im, uint32_t t, uint32_t i);
void ia64_slot_reset(ia64_model_t *im, uint32_t t, uint32_t i);
void ia64_sig_invalidate(ia64_model_t *im);
void ia64_observe_cycles(pmusim_model_t *m, uint64_t from, uint64_t to,
                         pmusim_cycle_observer_fn fn, void *user);

/* ia64_qual.c */
void ia64_qual_compile(ia64_model_t *im, uint32_t t);
bool ia64_qual_pass(const ia64_model_t *im, const ia64_thread_t *th, const ia64_ctr_t *c,
                    const pmusim_rec_t *r);

/* The bytes kind, taken, dir_ok, tgt_ok, detect of a record's branch as a
 * little-endian word (bits 39:0; one load and a byte on little-endian
 * hosts). */
static inline uint64_t ia64_br_word(const pmusim_rec_t *r)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    uint32_t w;
    memcpy(&w, &r->br.kind, sizeof w);
    return (uint64_t)w | (uint64_t)r->br.detect << 32;
#else
    return (uint64_t)r->br.kind | (uint64_t)r->br.taken << 8 | (uint64_t)r->br.dir_ok << 16 |
           (uint64_t)r->br.tgt_ok << 24 | (uint64_t)r->br.detect << 32;
#endif
}

/* Those fields (kind 3 bits, taken 1, dir_ok 1, tgt_ok 1, detect 2: every
 * value of traces/FORMAT.md's enumerations) packed into 8 bits by one
 * multiply: kind in bits 2:0, taken 3, dir_ok 4, tgt_ok 5, detect 7:6
 * (each field lands in bits 63:56 of the product without carries from the
 * partial products below); a word with bits outside IA64_XBR_RANGE has no
 * index. */
#define IA64_XBR_RANGE UINT64_C(0x0301010107)
#define IA64_XBR_MUL                                                                               \
    (UINT64_C(1) << 56 | UINT64_C(1) << 51 | UINT64_C(1) << 44 | UINT64_C(1) << 37 |               \
     UINT64_C(1) << 30)
static inline unsigned ia64_br_index(uint64_t x)
{
    return (unsigned)((x * IA64_XBR_MUL) >> 56);
}

/* ia64_thread_t.btb_tab bits */
enum {
    IA64_BTB_PASS = 1u << 0,    /* the unit's tm, ptm, ppm and brt filters take it */
    IA64_BTB_MP = 1u << 1,      /* mispredicted, found in the front end (bit 1 of the entry) */
    IA64_BTB_BACKEND = 1u << 2, /* mispredicted, found in the back end (extension 2) */
    IA64_BTB_TAKEN = 1u << 3,
};

/* ia64_capture.c */
void ia64_capture_compile(ia64_model_t *im, uint32_t t);
void ia64_capture_insn(ia64_model_t *im, uint32_t t, const pmusim_rec_t *r);
/* Its D-EAR and BTB/ETB units for a fast loop's run of one thread
 * (ia64_consume_fast_body()): what they read of the model, fixed for the
 * run, looked up once (ia64_caprun_init()).  Nothing of it changes inside
 * the run: the freeze, the stopped slots, the thread's active state,
 * privilege level and instruction set (acc) change only in the general
 * path (issue 12: the look-ups, the thread's and the ring's addresses
 * were about 40 instructions of each captured branch).
 *
 * The branches the BTB/ETB takes in the run are logged (the record and
 * its btb_tab outcome) and written to the ring by ia64_caprun_flush(),
 * which the run calls before it returns: only the last ring_size entries
 * stay in the ring, at most ring_size branches (issue 12: the ring's
 * index, extension bits and entries were about 60 instructions of each
 * captured branch, of which the loop traces capture one in 9 records).
 * Nothing reads the ring inside a run: its registers are read, reported
 * and written by the general path only. */
#define IA64_RING_ITA2 8u  /* Itanium 2 BTB: PMD8-15 (ref §8.2) */
#define IA64_RING_MONT 16u /* Montecito ETB: PMD48-63 (ref §9.4) */
#define IA64_RING_MAX 16u  /* the largest */
_Static_assert(IA64_RING_ITA2 <= IA64_RING_MAX && IA64_RING_MONT <= IA64_RING_MAX &&
                   !(IA64_RING_ITA2 & (IA64_RING_ITA2 - 1)) &&
                   !(IA64_RING_MONT & (IA64_RING_MONT - 1)),
               "ring sizes: powers of two the branch log covers");
typedef struct ia64_caprun {
    ia64_model_t *im;
    ia64_thread_t *th;
    uint64_t *ring;               /* the ring's entry 0 (PMD8 / PMD48) */
    uint64_t *ring_idx, *ring_ext; /* its index (PMD16 / PMD38), mont extension (PMD39) */
    const uint8_t *btb_tab;       /* th->btb_tab */
    uint64_t btb_ip_mask;
    /* ia64_capture_slots() of each unit: cap_exact does not hold in a fast
     * loop (a qualified subscriber of a capture source is one of nqsub,
     * which ia64_fast_ok() excludes) */
    uint64_t btb_slots, dear_slots;
    uint32_t idx_mask;
    bool mont, frozen;
    /* the log: branch i of the run at blog[i % IA64_RING_MAX], nb
     * branches with nent ring entries (a taken branch has two) */
    uint64_t nb, nent;
    struct ia64_caprun_br {
        const pmusim_rec_t *r;
        unsigned o; /* btb_tab's outcome (IA64_BTB_*) */
    } blog[IA64_RING_MAX];
} ia64_caprun_t;
void ia64_caprun_init(ia64_caprun_t *cr, ia64_model_t *im, uint32_t t, unsigned acc);
/* the unit's step for a record of the run with a memory access / a branch
 * (the caller has checked the unit's dear_acc / btb_acc against acc) */
void ia64_caprun_dear(const ia64_caprun_t *cr, const pmusim_rec_t *r);
void ia64_caprun_btb(ia64_caprun_t *cr, const pmusim_rec_t *r);
/* the logged branches into the ring (while their records are valid) */
void ia64_caprun_flush(ia64_caprun_t *cr);
void ia64_capture_ipear(ia64_model_t *im, uint32_t t, const pmusim_rec_t *r);
bool ia64_capture_iear(ia64_model_t *im, uint32_t t, const pmusim_rec_t *r);
void ia64_capture_report(ia64_model_t *im, pmusim_report_t *rep);

/* The state a suspended lean run (ia64_lean_sus_t) defers, written:
 * every ops entry but consume() calls ia64_unsuspend() first. */
void ia64_lean_flush(ia64_model_t *im);
static inline void ia64_unsuspend(ia64_model_t *im)
{
    if (im->lean_sus)
        ia64_lean_flush(im);
}

/* ia64_report.c */
void ia64_report(pmusim_model_t *m, pmusim_report_t *r);
const char *ia64_event_source_ita2(uint32_t code, uint32_t umask);
const char *ia64_event_source_mont(uint32_t code, uint32_t umask);
const ia64_event_info_t *ia64_event_find(const ia64_desc_t *d, uint32_t es, uint32_t umask);

/* ia64_explain.c: ops->describe_reg of the two CPUs */
gboolean ia64_describe_reg_ita2(pmusim_regspace_t space, uint32_t num, uint64_t value,
                                GString *out);
gboolean ia64_describe_reg_mont(pmusim_regspace_t space, uint32_t num, uint64_t value,
                                GString *out);

#endif
