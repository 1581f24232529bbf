/* The x86 core-PMU engine shared by the Westmere, Westmere DP and Knights
 * Mill models.  What differs between the models is an x86_desc_t
 * (x86_models.c).  The counting rules, and the choices made where the
 * manuals are silent, are written down in docs/sim-x86.md; the section
 * numbers below refer to ../shared/reference/x86-pmu.md.
 *
 * Time.  Records arrive in non-decreasing cycle order.  `cur` is the open
 * cycle: the cycle of the records being processed.  A cycle is closed when a
 * record of a later cycle (or the end of the trace) arrives.  Increments that
 * depend on a whole cycle (cycle events, CMASK/INV/EDGE thresholds) are taken
 * at the close, with the thread state (active, privilege level) as it is at
 * the end of the cycle.  Increments from a record (INST_RETIRED, ...) happen
 * at the record.
 *
 * Counter classes, chosen when the registers are written (x86_ctr_compile):
 *   DIRECT       per-record source, no threshold: the record adds to the count
 *                (INST_RETIRED-like ones through the thread's per-privilege-level
 *                tally of INSN records, folded in when read or due to wrap).
 *   RATE         cycle source, no threshold: `rate` per cycle, accrued lazily
 *                (value + rate * (cycles since `since`)), so a cycle costs nothing.
 *   THRESH       CMASK/EDGE (INV) or a threshold on a cycle source: occurrences
 *                accumulate in `acc` during the open cycle and are compared at the
 *                close; in the cycles between two records the outcome is uniform
 *                and is accrued lazily like RATE (`gap_mode`).
 *   OUTSTANDING  requests in flight (knm average-latency mode, wsm
 *                OFFCORE_REQUESTS_OUTSTANDING): rate = requests in flight, which
 *                changes when a request starts (record) or ends (`rate_until`);
 *                with a threshold (wsm only, `out_thr`), rate = 1 in the cycles
 *                whose in-flight count meets it (EDGE: the first such cycle only),
 *                evaluated at each change (x86_out_update).
 * Lazy counters are brought up to date ("synced") before anything they depend
 * on changes.  `deadline` is the earliest point at which a lazy counter
 * overflows or changes its rate; nothing needs doing before it, which keeps the
 * per-record path to a compare and the listener loop.
 *
 * Ordering within a cycle: a PMI raised by a record is delivered after that
 * record; the freeze (IA32_DEBUGCTL.FREEZE_PERFMON_ON_PMI) and the handler's
 * writes apply to the following records and to the close of the cycle.  A
 * PMI raised at the close of cycle c is delivered after all counters took
 * their increments for c; its effects start at cycle c + 1. */
#include "x86_model.h"

#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#define X86_NEVER UINT64_MAX
/* A bit no PMUSIM_F_* uses, set on every record for the filter-listener
 * test: a filter that needs no flag (PEBS instruction counters) lists it. */
#define X86_F_ANY_RECORD 0x8000u
/* The flag bits of which an x87 (class 1) or mmx (class 2) record has one:
 * the listener test of FPMMX filters (x86_recompile()) */
#define X86_F_FPMMX_BITS ((unsigned)(PMUSIM_FPC_X87 | PMUSIM_FPC_MMX) << PMUSIM_F_FPCLASS_SHIFT)
_Static_assert((X86_F_FPMMX_BITS & PMUSIM_F_FPCLASS_MASK) == X86_F_FPMMX_BITS &&
                   PMUSIM_FPC_X87 == 1 && PMUSIM_FPC_MMX == 2,
               "x87 and mmx are the class values 1 and 2: bits 0 and 1 of the class");
/* The operation kind bits of the first INSN record of a macro-fused pair
 * (kind 10, fused), and the one of them (bit 3 of the kind: mul, div and
 * fused have it, no other valid kind) that sends a record to the fast
 * loop's rare branch when fused records weigh less there (fuse_loop) */
#define X86_F_FUSED_BITS ((unsigned)PMUSIM_OPK_FUSED << PMUSIM_F_OPKIND_SHIFT)
#define X86_F_FUSED_PROBE (8u << PMUSIM_F_OPKIND_SHIFT)
_Static_assert(PMUSIM_OPK_FUSED == 10 && (X86_F_FUSED_BITS & X86_F_FUSED_PROBE) &&
                   (X86_F_FUSED_PROBE & PMUSIM_F_OPKIND_MASK) == X86_F_FUSED_PROBE,
               "fused is kind 10: bit 3 of the kind is set");
#define X86_LISTENERS (X86_NCTR * X86_MAX_THREADS)
#define X86_CAPTURE_MAX 100000u
enum {
    X86_HIST_NONE = 0,
    X86_HIST_ANY = 1,
    X86_HIST_K1 = 2,
    X86_HIST_INSN = 3,
    X86_HIST_EDGE = 4,
    X86_HIST_GEN = 5,
    X86_HIST_K1X = 6,
    X86_HIST_TWO = 7,
    /* not a hist_mode: the X86_HIST_GEN set-ups whose groups are one group
     * without EDGE that every thread feeds (x86_consume_fast()), kept in
     * scalars */
    X86_HIST_GEN1 = 8,
    /* not a hist_mode either: X86_HIST_GEN1 with threshold 1, where a
     * record meets when it is the first of its cycle, so that the loop
     * keeps no occurrences (x86_grp_k1_occ()) */
    X86_HIST_GK1 = 9,
    /* not a hist_mode: X86_HIST_GEN1 of uops (X86_HIST_GEN1 is then of
     * instructions, whose occurrences in the open cycle are the INSN
     * records since the loop's cycle changed) */
    X86_HIST_GU1 = 10,
    /* not a hist_mode: X86_HIST_EDGE when every hgen listener counts
     * instructions with a threshold of 2 or more (x86_model_t.hist_insn_k2):
     * one occurrence per record, and a record that starts its thread's
     * cycle never meets */
    X86_HIST_EDGE_I = 11,
    /* not hist_modes: X86_HIST_ANY when every hgen listener counts uops
     * with a threshold of 2 or more (x86_model_t.hist_uops_k2), and
     * X86_HIST_TWO when every thread's are uops against 2 or more and
     * anything against 1 (hist_two1): a record that starts its thread's
     * cycle meets 2 or more when its uops do (max(uops, 1) >= k is uops >= k
     * for k >= 2), so the loop keeps its raw uops as the occurrences and
     * counts them as 1 when 0 only in a later record of the cycle and at the
     * end (x86_hist_occ()); the threads start before cycle cur0, so that
     * their first record is one that starts a cycle */
    X86_HIST_ANY_U = 12,
    X86_HIST_TWO_1 = 13,
    /* not a hist_mode: X86_HIST_EDGE when every hgen listener counts uops
     * with a threshold of 2 or more (hist_uops_k2), with raw uops as
     * X86_HIST_ANY_U */
    X86_HIST_EDGE_U = 14,
    /* not a hist_mode: X86_HIST_TWO when some thread's running count has
     * fmask (x86_model_t.hist_two_f): the fused record's step of the loop's
     * rare branch (x86_fast_fused_rec()) is in these variants alone, so that
     * X86_HIST_TWO's loop carries none of its code */
    X86_HIST_TWO_F = 15,
    /* not a hist_mode: X86_HIST_GEN when some group has fmask (x86_grps_t):
     * the fused record's step (x86_fast_grp_fused()) and the met test it
     * needs, (o0 < k) & (o1 >= k), in these variants alone (as a test in
     * X86_HIST_GEN's, its loop took 3 % more on a capture without `fuse`) */
    X86_HIST_GEN_F = 16,
};

typedef enum x86_ctr_class {
    X86_CLS_OFF = 0,
    X86_CLS_DIRECT,
    X86_CLS_RATE,
    X86_CLS_THRESH,
    X86_CLS_OUTSTANDING,
} x86_ctr_class_t;

/* A min-heap of cycles (x86_heap_push()): plain storage, so that a
 * request's start and end cost no library call (issue 12 item 2). */
typedef struct x86_heap {
    uint64_t *a;
    uint32_t n, cap;
} x86_heap_t;

typedef struct x86_ctr {
    /* read on every record */
    uint8_t src;      /* x86_src_kind_t */
    uint8_t cls;      /* x86_ctr_class_t */
    uint8_t plm_mask; /* bit r set: count at privilege level (ring) r */
    uint8_t nbits;
    uint16_t ev_key;  /* EXPLICIT: event select | umask << 8 */
    /* the umask bits counted from their own EVENT records (EVENT rows of
     * trace-events.csv, a model's trace): EXPLICIT or BITS (x86_ev_match()) */
    uint8_t ev_bits;
    /* a filter listener whose match is not one increment (x86_filt_step()):
     * FPMMX (a step of its transition state) or OUTSTANDING from a table
     * row (wsm 0x60: a request starts) */
    bool fstep;
    uint32_t lat_min; /* LDLAT: latency must be greater */
    /* UOPS on a model that fuses, under the "fuse" annotation:
     * PMUSIM_F_OPKIND_MASK, so that a record whose kind is fused weighs one
     * uop less (x86_uops_weight()); 0 otherwise */
    uint16_t fmask;
    /* FPMMX: the classes (bit per pmusim_fp_class_t) whose transitions
     * count; its filter matches every x87 and mmx record, which all move
     * the state */
    uint8_t fpmmx_occ;
    uint64_t value;   /* always < 2^width */
    uint64_t max;     /* 2^width - 1 */
    uint64_t acc;     /* THRESH: occurrences in the open cycle */
    uint64_t oc_msr;  /* OFFCORE/OUTSTANDING: the MSR value compiled in */
    x86_filter_t f;
    /* FPMMX: per hardware thread, the class (x87 or mmx) of the last such
     * INSN record this counter saw, 0 none yet (reset when programmed) */
    uint8_t fpmmx_last[PMUSIM_MAX_THREADS];
    /* lazy accrual */
    uint64_t since;      /* accrued up to here (exclusive) */
    uint64_t rate;       /* increments per cycle from `since` */
    uint64_t rate_until; /* rate changes at this point (X86_NEVER: not before an event) */
    /* x86_ctr_next_event() as last computed (x86_deadline_update(),
     * x86_deadline_refresh()); a sync does not move it */
    uint64_t next_ev;
    uint32_t ref_num, ref_den; /* increments per `rate` unit: reference ratio (RATE on REF), else 1/1 */
    uint64_t ref_frac;   /* reference ratio: remainder (in 1/ref_den) carried between syncs */
    x86_heap_t out_ends; /* OUTSTANDING: min-heap of request end cycles */
    uint64_t out_seg;    /* out_thr: the cycle the current stretch of one in-flight count starts */
    /* configuration */
    uint8_t thread, slot; /* slot < X86_MAX_GP: IA32_PMCslot; else fixed slot - X86_MAX_GP */
    uint8_t cmask;
    bool any, edge, inv, intr, pebs, ll;
    bool prev_cond; /* THRESH: condition of the previous cycle (EDGE); out_thr: of cycle out_seg - 1 */
    bool out_cond;  /* out_thr: condition of the stretch from out_seg */
    bool out_msr;   /* OUTSTANDING selected by MSR_OFFCORE_RSP_0 bit 38 (knm): no threshold */
    bool out_thr;   /* OUTSTANDING from a table row (wsm 0x60) with CMASK or EDGE */
    /* OUTSTANDING with out_thr from EVENT records the header's "evspan"
     * key lists: a record of n is one interval of n cycles from its cycle */
    bool span;
    bool obs_fired; /* THRESH: incremented at the last close (observe_cycles) */
    uint64_t obs_v; /* THRESH: occurrences compared at the last close (observe_cycles) */
    /* THRESH, inside x86_consume_fast() only: the cycle `acc` belongs to
     * (the closes after it are pending), its threshold with the gate folded
     * in, and its condition for a cycle without records */
    uint64_t thr_cycle;
    uint64_t thr_k;  /* condition of v occurrences: (v >= thr_k) != thr_inv (x86_thr_prepare) */
    bool thr_inv, thr_cond0;
    bool unit;      /* counted through the thread's INSN tallies (x86_units_sync) */
    uint32_t fold_n; /* x86_consume_fast(): threads whose records the loop adds to it (fold) */
    uint64_t unit_snap; /* unit: the tallies' sum over plm_mask already in `value` */
    bool programmed;
    bool restricted; /* event not countable on this counter (Intel's data): counts nothing */
    bool pebs_invalid; /* PEBS requested in a set-up the SDM calls invalid: overflows normally */
    /* programmed as a form (x86_form_find(): ARITH:DIV): counted from the
     * form's source, its CMASK/INV/EDGE consumed; NULL otherwise */
    const x86_evmap_t *form;
    bool pebs_armed;   /* PEBS: overflowed; the assist fires at the next qualifying event */
    /* a `once` event (x86_evmap_t.once): counts an instruction at most once;
     * once_id is the model's mem_insn it last counted or skipped */
    bool once;
    uint64_t once_id;
    uint64_t overflows;
    x86_filter_t fb[X86_MAX_BITS]; /* BITS: one filter per umask bit */
    char label[PMUSIM_REG_LABEL_MAX];
} x86_ctr_t;

/* The counters one thread's INSN records feed, per privilege level (so the
 * hot loop does not test USR/OS), split so that the common cases need no
 * dispatch: `filt` DIRECT counters of filter events (+1 per matching record;
 * skipped as a whole when the record has none of `filt_flags`), `gen`
 * everything else.  INST_RETIRED-like DIRECT counters of the thread itself
 * ("unit" counters) are not listed: the thread tallies its INSN records per
 * privilege level and the counters are brought up to date from the tallies
 * when read, reprogrammed, or when `unit_budget` says one may wrap. */
typedef struct x86_listeners {
    uint32_t n_filt, n_gen;
    uint32_t filt_flags;
    x86_ctr_t *filt[X86_LISTENERS];
    x86_ctr_t *gen[X86_LISTENERS];
    /* `gen` split for x86_consume_fast(): `hgen` the thresholded counts of
     * the thread's own instructions or uops that share one source, one
     * threshold (CMASK, 1 for 0) and EDGE or not, with or without INV (fed
     * from per-thread running counts, x86_hist_flush()), `tgen` the other
     * thresholded ones (another source, threshold or EDGE: closed one cycle
     * at a time, x86_thr_touch(); with AnyThread ones anywhere all go to
     * the running counts of groups, x86_grps_build(); with threshold 1
     * everywhere they join hgen, X86_HIST_K1X; without EDGE, two thresholds
     * of one occurrence count per thread, X86_HIST_TWO), `dgen` the direct
     * ones */
    uint32_t n_dgen, n_tgen, n_hgen;
    bool hgen_uops; /* the hgen listeners count uops (else instructions) */
    bool hgen_edge; /* the hgen listeners have EDGE (INV ones: falling edges), or none has */
    /* the hgen listeners' fmask (uops of which a fused record weighs one
     * less: the X86_HIST_ANY and X86_HIST_EDGE variants only,
     * x86_fast_hist_fused()), or 0 */
    uint16_t hgen_fmask;
    uint64_t hgen_k; /* their threshold */
    uint64_t hgen_k2; /* X86_HIST_TWO: the second threshold (hgen_k if none) */
    x86_ctr_t *dgen[X86_LISTENERS];
    x86_ctr_t *tgen[X86_LISTENERS];
    x86_ctr_t *hgen[X86_LISTENERS];
    /* for x86_consume_fast(): `fold` the direct counts of every INSN record
     * that are not unit counters (AnyThread INST_RETIRED and fixed counter
     * 0 with AnyThread, which count the core's records, and PEBS
     * INST_RETIRED, a filter listener matching every record): the loop
     * adds the records it took when it ends and never lets them wrap
     * (x86_fold_bound()); `ffilt` the other filter listeners, in `filt`
     * order, and the flags they need */
    uint32_t n_fold, n_ffilt, ffilt_flags;
    /* the wsm 0x60 counters (OUTSTANDING filter listeners), which
     * x86_consume_fast() leaves to the general path */
    uint32_t n_ofilt;
    x86_ctr_t *ofilt[X86_LISTENERS];
    /* the direct FP_MMX_TRANS counters (FPMMX filter listeners), which
     * x86_consume_fast() steps in its rare branch (x86_fast_fpmmx()) */
    uint32_t n_xfilt;
    x86_ctr_t *xfilt[X86_LISTENERS];
    x86_ctr_t *fold[X86_LISTENERS];
    x86_ctr_t *ffilt[X86_LISTENERS];
    /* the dgen and tgen listeners with fmask (uops of which a fused record
     * weighs one less): x86_fast_fused() */
    uint32_t n_fused;
    x86_ctr_t *fused[X86_LISTENERS];
} x86_listeners_t;

typedef struct x86_thread {
    uint64_t insn_seen;                 /* INSN records of this thread */
    uint64_t unit_due;                  /* insn_seen at which a unit counter may wrap */
    uint64_t plm_mark;                  /* insn_seen when `plm` was entered */
    uint64_t insn_tally[4];             /* INSN records per privilege level, up to plm_mark */
    x86_ctr_t *units[X86_NCTR];
    uint32_t n_units;
    x86_listeners_t lst[4];             /* indexed by privilege level */
    x86_ctr_t *ev_lst[X86_LISTENERS];   /* counters fed by this thread's EVENT records */
    uint32_t n_ev;
    x86_ctr_t ctr[X86_NCTR];
    uint64_t evtsel[X86_MAX_GP];
    uint64_t fixed_ctrl, global_ctrl, global_status, ovf_ctrl, debugctl, pebs_enable, ldlat;
    uint64_t ds_area;
    uint64_t offcore[2]; /* per thread (knm); on wsm only the core's first thread's copy is used */
    uint64_t last_ip;
    uint64_t pmi_cycle;  /* cycle of the latest PMI (observe_cycles) */
    uint8_t plm;
    bool active;
    bool frozen;         /* GLOBAL_CTRL cleared by FREEZE_PERFMON_ON_PMI, not rewritten since */
} x86_thread_t;

/* The groups of running counts of the X86_HIST_GEN variants of
 * x86_consume_fast() (x86_grps_build()). */
typedef struct x86_grps {
    uint32_t n;                                 /* groups */
    uint32_t n_of[X86_MAX_THREADS];             /* per thread: the groups it feeds */
    uint8_t of[X86_MAX_THREADS][X86_LISTENERS];
    uint32_t feed[X86_LISTENERS];               /* per group: the threads that feed it (bits) */
    uint32_t first[X86_LISTENERS], n_ctr[X86_LISTENERS]; /* its counters in ctr[] */
    bool edge[X86_LISTENERS];
    x86_ctr_t *ctr[X86_LISTENERS];
    uint64_t k[X86_LISTENERS];
    uint32_t wm[X86_LISTENERS];
    /* the counters' fmask (uops of which a fused record weighs one less,
     * x86_uops_weight()): the loop takes that one off in its rare branch
     * (x86_fast_grp_fused()), the flush from the records (x86_grp_weight()) */
    uint16_t fm[X86_LISTENERS];
    bool any_fm; /* some group has fmask (X86_HIST_GEN_F) */
} x86_grps_t;

typedef struct x86_model {
    pmusim_model_t base;
    const x86_desc_t *d;
    uint64_t cur;      /* open cycle */
    uint64_t now;      /* point from which a configuration change applies */
    uint64_t end;      /* trace end (exclusive) */
    uint64_t records;
    uint64_t deadline; /* earliest event of a lazy counter */
    uint32_t ref_num, ref_den; /* reference-clock cycles per core cycle (set_ref_ratio) */
    uint64_t fast_limit; /* a record cycle below this needs no x86_advance (0: always) */
    uint32_t pending_pmi; /* threads with a PMI to deliver */
    uint32_t n_armed;     /* PEBS counters waiting for their next qualifying event */
    bool has_gen;         /* some thread has listeners that need a dispatch (x86_recompile) */
    /* the thresholded counters are all ones x86_consume_fast() can feed and
     * close (x86_thresh_fast_ok()) */
    bool thresh_fast;
    /* the dispatched listeners are all instruction or uop counts, which
     * x86_consume_fast() feeds (x86_gen_fast_ok()) */
    bool gen_fast;
    /* some thread has dispatched listeners that x86_consume_fast() feeds
     * one at a time per record (dgen, tgen; hgen go to running counts, fold
     * ones are added at the end) */
    bool loop_gen;
    /* some thread has filter listeners that x86_consume_fast() feeds per
     * record (ffilt) */
    bool loop_filt;
    /* some thread has dispatched listeners of uops for which a fused
     * record weighs one less (fmask): such records take the fast loop's
     * rare branch (X86_F_FUSED_PROBE), which takes the one off
     * (x86_fast_fused()), so that the other records cost nothing more */
    bool fuse_loop;
    /* inside x86_consume_fast(): X86_F_FUSED_PROBE where the loop's 8-byte
     * record word holds it with fuse_loop, else 0 */
    uint64_t fast_probe;
    /* some thread has OUTSTANDING counters (filter listeners: knm's
     * average-latency mode, wsm 0x60): every offcore INSN record takes
     * x86_consume_fast()'s rare branch */
    bool loop_oc_stop;
    /* none of them has a threshold (out_thr): the rare branch starts their
     * requests (x86_fast_oc_start()) and the loop takes their ends
     * (x86_fast_out_ends()); else it leaves a record that starts one to
     * the general path (x86_filt_step()) */
    bool loop_oc_fast;
    /* inside x86_consume_fast(): what bounds the loop besides the deadline
     * (an observed window, the thresholded counters' room), X86_NEVER if
     * nothing (loop_oc_fast: the deadline moves while it runs) */
    uint64_t fast_hard;
    /* inside x86_consume_fast() (loop_oc_fast): the lazy counters other
     * than OUTSTANDING ones (their events do not move while it runs) and
     * the earliest of their events; the OUTSTANDING ones */
    uint64_t fast_other_ev;
    x86_ctr_t *outs[X86_LISTENERS];
    uint32_t n_outs;
    /* some thread has direct FP_MMX_TRANS counters: x87 and mmx INSN
     * records take the loop's rare branch, which steps them */
    bool loop_fpx_stop;
    /* how x86_consume_fast() keeps the running counts of the hgen
     * listeners: X86_HIST_NONE (no thread has hgen listeners), X86_HIST_K1
     * (all have threshold 1, x86_hist_flush1()), X86_HIST_GEN (some
     * AnyThread ones: groups, x86_grps_build()), X86_HIST_EDGE (EDGE beside
     * a threshold of 2 and up: the last met cycle), X86_HIST_K1X (threshold
     * 1 everywhere, but of several kinds on one thread: both k1 counts),
     * X86_HIST_TWO (no EDGE, two thresholds on a thread, served by one
     * occurrence count: x86_two_fits()), X86_HIST_INSN (all count
     * instructions: one occurrence per record), else X86_HIST_ANY */
    uint8_t hist_mode;
    /* every hgen listener counts instructions with a threshold of 2 or
     * more (X86_HIST_EDGE_I) */
    bool hist_insn_k2;
    /* every hgen listener counts uops against 2 or more (X86_HIST_ANY_U,
     * X86_HIST_EDGE_U) */
    bool hist_uops_k2;
    /* X86_HIST_TWO: every thread's running count is of uops, its thresholds
     * 1 and one of 2 or more (X86_HIST_TWO_1) */
    bool hist_two1;
    /* X86_HIST_TWO: some thread's running count has fmask (X86_HIST_TWO_F) */
    bool hist_two_f;
    /* X86_HIST_GEN: the groups built for the threads' listener sets
     * grps_lst (invalid after x86_recompile()) */
    bool grps_ok;
    /* x86_consume_fast(): the thresholded counters are as x86_thr_prepare()
     * leaves them at cycle thr_ready_cur (the last loop ended there and
     * nothing since has changed a gate, a configuration or a counter's
     * closes: x86_thr_unready()), so the next loop from that cycle skips
     * the preparation */
    bool thr_ready;
    uint64_t thr_ready_cur;
    const x86_listeners_t *grps_lst[X86_MAX_THREADS];
    x86_grps_t grps;
    uint32_t compiled_ann; /* trace annotations the counters were compiled for */
    uint32_t compiled_hdr; /* base.trace_header_sets when they were compiled ("evspan") */
    uint8_t core_active[X86_MAX_THREADS]; /* per core: active threads (x86_core_powered) */
    bool gap_mode;
    bool finished;
    /* PMUSIM_X86_GENERAL set when the model was made: every record takes
     * the general path (docs/sim-x86.md, "Checking the fast loop") */
    bool general_only;
    bool warned_order, warned_thread;
    /* The instruction MEM records belong to (x86_count_mem()): mem_insn
     * numbers the instructions with MEM records, mem_head is the INSN record
     * of the current one; last_rec the last record of the previous
     * x86_consume() call (have_last), whose MEM records may go on. */
    uint64_t mem_insn;
    pmusim_rec_t mem_head;
    pmusim_rec_t last_rec;
    bool have_last;
    x86_ctr_t *lazy[X86_LISTENERS];
    uint32_t n_lazy;
    x86_ctr_t *thresh[X86_LISTENERS];
    uint32_t n_thresh;
    GPtrArray *captures;
    uint64_t captures_dropped;
    uint64_t ev_seen[256 * 256 / 64]; /* bit code << 8 | umask: an EVENT record of it was read */
    /* observe_cycles: the window [obs_from, obs_to), the observer, and each
     * counter's value and wraps at the end of the previous cycle */
    pmusim_cycle_observer_fn obs_fn;
    void *obs_user;
    uint64_t obs_from, obs_to;
    uint64_t obs_value[X86_MAX_THREADS][X86_NCTR], obs_wraps[X86_MAX_THREADS][X86_NCTR];
    x86_thread_t th[X86_MAX_THREADS];
} x86_model_t;

static const char *const x86_level_names[PMUSIM_LVL_COUNT] = {
    [PMUSIM_LVL_L1D] = "L1D",
    [PMUSIM_LVL_L2] = "L2",
    [PMUSIM_LVL_L3] = "L3",
    [PMUSIM_LVL_LOCAL_DRAM] = "local-DRAM",
    [PMUSIM_LVL_REMOTE_DRAM] = "remote-DRAM",
    [PMUSIM_LVL_REMOTE_CACHE] = "remote-cache",
    [PMUSIM_LVL_LFB] = "LFB",
};

/* ---- small helpers ---- */

/* Sources that tick with the clock rather than with records. */
static inline bool x86_src_is_clock(uint8_t src)
{
    return src == X86_SRC_CYCLES || src == X86_SRC_REF;
}

/* a + b, saturated: cycle arithmetic near 2^64 must not wrap around */
static inline uint64_t x86_sat_add(uint64_t a, uint64_t b)
{
    return b > X86_NEVER - a ? X86_NEVER : a + b;
}

/* The occurrences of INSN record r for a UOPS counter of fmask (x86_ctr_t):
 * its uops, 0 counting as 1, less one for the first instruction of a
 * macro-fused pair (the pair's uop is its branch's: docs/trace-events-x86.md,
 * "Macro-fusion"); a CMP of one uop so weighs 0. */
static inline uint64_t x86_uops_weight(const pmusim_rec_t *r, uint16_t fmask)
{
    return (uint64_t)(r->uops ? r->uops : 1u) - ((r->flags & fmask) == X86_F_FUSED_BITS);
}

static inline x86_model_t *x86_of(pmusim_model_t *m)
{
    return (x86_model_t *)m;
}

static uint32_t x86_core_first(const x86_model_t *m, uint32_t t)
{
    return t - t % m->d->threads_per_core;
}

static uint64_t *x86_offcore_regs(x86_model_t *m, uint32_t t)
{
    return m->d->offcore_per_core ? m->th[x86_core_first(m, t)].offcore : m->th[t].offcore;
}

static uint64_t x86_gp_mask(const x86_desc_t *d)
{
    return (1ull << d->n_gp) - 1;
}

static uint64_t x86_global_valid(const x86_desc_t *d)
{
    return x86_gp_mask(d) | (0x7ull << 32);
}

static uint32_t x86_status_bit(const x86_ctr_t *c)
{
    return c->slot < X86_MAX_GP ? c->slot : 32u + (c->slot - X86_MAX_GP);
}

static void x86_ctr_name(const x86_ctr_t *c, char *buf, size_t len)
{
    if (c->slot < X86_MAX_GP)
        g_snprintf(buf, len, "IA32_PMC%u", c->slot);
    else
        g_snprintf(buf, len, "IA32_FIXED_CTR%u", c->slot - X86_MAX_GP);
}

static void x86_msr_name(const x86_desc_t *d, uint32_t num, char *buf, size_t len)
{
    if (num >= X86_MSR_PMC0 && num < X86_MSR_PMC0 + X86_MAX_GP)
        g_snprintf(buf, len, "IA32_PMC%u (0x%x)", num - X86_MSR_PMC0, num);
    else if (num >= X86_MSR_EVTSEL0 && num < X86_MSR_EVTSEL0 + X86_MAX_GP)
        g_snprintf(buf, len, "IA32_PERFEVTSEL%u (0x%x)", num - X86_MSR_EVTSEL0, num);
    else if (num >= X86_MSR_FIXED_CTR0 && num < X86_MSR_FIXED_CTR0 + X86_NUM_FIXED)
        g_snprintf(buf, len, "IA32_FIXED_CTR%u (0x%x)", num - X86_MSR_FIXED_CTR0, num);
    else {
        const char *n = NULL;
        switch (num) {
        case X86_MSR_OFFCORE_RSP0: n = "MSR_OFFCORE_RSP_0"; break;
        case X86_MSR_OFFCORE_RSP1: n = "MSR_OFFCORE_RSP_1"; break;
        case X86_MSR_DEBUGCTL: n = "IA32_DEBUGCTL"; break;
        case X86_MSR_FIXED_CTR_CTRL: n = "IA32_FIXED_CTR_CTRL"; break;
        case X86_MSR_GLOBAL_STATUS: n = "IA32_PERF_GLOBAL_STATUS"; break;
        case X86_MSR_GLOBAL_CTRL: n = "IA32_PERF_GLOBAL_CTRL"; break;
        case X86_MSR_GLOBAL_OVF_CTRL: n = "IA32_PERF_GLOBAL_OVF_CTRL"; break;
        case X86_MSR_PEBS_ENABLE: n = "IA32_PEBS_ENABLE"; break;
        case X86_MSR_PEBS_LD_LAT: n = "MSR_PEBS_LD_LAT_THRESHOLD"; break;
        case X86_MSR_DS_AREA: n = "IA32_DS_AREA"; break;
        default: break;
        }
        if (n)
            g_snprintf(buf, len, "%s (0x%x)", n, num);
        else
            g_snprintf(buf, len, "MSR 0x%x", num);
    }
    (void)d;
}

/* ---- outstanding-request heap (knm average-latency mode) ---- */

static __attribute__((noinline)) void x86_heap_grow(x86_heap_t *h)
{
    h->cap = h->cap ? 2 * h->cap : 16;
    h->a = g_renew(uint64_t, h->a, h->cap);
}

static inline void x86_heap_push(x86_heap_t *h, uint64_t v)
{
    if (G_UNLIKELY(h->n == h->cap))
        x86_heap_grow(h);
    uint64_t *a = h->a;
    uint32_t i = h->n++;
    a[i] = v;
    while (i > 0) {
        uint32_t p = (i - 1) / 2;
        if (a[p] <= a[i])
            break;
        uint64_t t = a[p];
        a[p] = a[i];
        a[i] = t;
        i = p;
    }
}

static inline void x86_heap_pop(x86_heap_t *h)
{
    uint64_t *a = h->a;
    const uint32_t n = --h->n;
    a[0] = a[n];
    uint32_t i = 0;
    for (;;) {
        uint32_t l = 2 * i + 1, r = l + 1, s = i;
        if (l < n && a[l] < a[s])
            s = l;
        if (r < n && a[r] < a[s])
            s = r;
        if (s == i)
            break;
        uint64_t t = a[s];
        a[s] = a[i];
        a[i] = t;
        i = s;
    }
}

static inline uint64_t x86_heap_min(const x86_heap_t *h)
{
    return h->n ? h->a[0] : X86_NEVER;
}

/* ---- overflow, PEBS, PMI ---- */

/* The IP of the instruction after record r, which a PEBS record holds (SDM
 * Vol. 3B §18.8.1.1: "the IP of the instruction following the one that
 * caused the event"): a taken branch's target, else ip + len.  A trace
 * without instruction lengths (len 0) gives the instruction's own IP
 * (docs/sim-x86.md §6). */
static uint64_t x86_ip_after(const pmusim_rec_t *r)
{
    if (r->kind == PMUSIM_REC_INSN && (r->flags & PMUSIM_F_BRANCH) && r->br.taken)
        return r->br.target;
    return r->ip + r->len;
}

static void x86_capture(x86_model_t *m, const x86_ctr_t *c, uint64_t cycle,
                        const pmusim_rec_t *r)
{
    if (m->captures->len >= X86_CAPTURE_MAX) {
        m->captures_dropped++;
        return;
    }
    char name[24];
    x86_ctr_name(c, name, sizeof name);
    uint64_t ip = r ? x86_ip_after(r) : m->th[c->thread].last_ip;
    if (c->ll && r && (r->flags & PMUSIM_F_MEM)) {
        const char *lvl = r->mem.level < PMUSIM_LVL_COUNT ? x86_level_names[r->mem.level] : "?";
        g_ptr_array_add(m->captures,
                        g_strdup_printf("PEBS-LL cycle=%" PRIu64 " thread=%u %s ip=0x%" PRIx64
                                        " addr=0x%" PRIx64 " latency=%u source=%s",
                                        cycle, c->thread, name, ip, r->mem.addr,
                                        r->mem.latency, lvl));
    } else {
        g_ptr_array_add(m->captures,
                        g_strdup_printf("PEBS cycle=%" PRIu64 " thread=%u %s ip=0x%" PRIx64,
                                        cycle, c->thread, name, ip));
    }
}

/* The PEBS assist of an armed counter c at the qualifying record r (SDM
 * Vol. 3B §18.8.1.1): the record is written (r's data: for load latency,
 * that later load), OvfBuf is set as with a one-record buffer threshold
 * (reference §5), and with INT a PMI is raised. */
static void x86_pebs_assist(x86_model_t *m, x86_ctr_t *c, const pmusim_rec_t *r)
{
    char name[24];
    x86_ctr_name(c, name, sizeof name);
    c->pebs_armed = false;
    m->n_armed--;
    m->th[c->thread].global_status |= X86_STATUS_OVFBUF;
    x86_capture(m, c, m->cur, r);
    pmusim_model_log(&m->base, m->cur, c->thread, "%s PEBS assist: record written", name);
    if (c->intr)
        m->pending_pmi |= 1u << c->thread;
}

/* Counter c wrapped `wraps` times at `cycle` (r: the record that caused it,
 * or NULL for a cycle increment).  A PEBS-enabled counter sets no overflow
 * bit and raises no PMI: the overflow arms PEBS, and the assist fires at
 * the next qualifying event (SDM Vol. 3B §18.8.1.1; x86_pebs_assist). */
/* The log entry "<counter> <text>" (x86_ctr_name()'s name) without
 * printf: a sampling run logs an overflow per interrupt, and formatting
 * it was about 1,000 instructions (issue 12).  The same entry as
 * pmusim_model_log() makes (zero-padded text), under the same bound. */
static void x86_log_ctr(x86_model_t *m, const x86_ctr_t *c, uint64_t cycle, const char *text,
                        size_t len)
{
    pmusim_model_t *b = &m->base;
    if (b->log->len >= PMUSIM_LOG_MAX) {
        b->log_dropped++;
        return;
    }
    pmusim_sim_event_t ev = {.cycle = cycle, .thread = c->thread};
    _Static_assert(X86_NCTR <= 10, "one digit");
    _Static_assert(sizeof ev.what > 40, "the texts fit");
    size_t n;
    if (c->slot < X86_MAX_GP) {
        memcpy(ev.what, "IA32_PMC", 8);
        ev.what[8] = (char)('0' + c->slot);
        n = 9;
    } else {
        memcpy(ev.what, "IA32_FIXED_CTR", 14);
        ev.what[14] = (char)('0' + (c->slot - X86_MAX_GP));
        n = 15;
    }
    ev.what[n++] = ' ';
    memcpy(ev.what + n, text, len);
    g_array_append_val(b->log, ev);
}
#define X86_LOG_CTR(m, c, cycle, text) x86_log_ctr((m), (c), (cycle), "" text, sizeof(text) - 1)

static void x86_overflow(x86_model_t *m, x86_ctr_t *c, uint64_t cycle, uint64_t wraps,
                         const pmusim_rec_t *r)
{
    x86_thread_t *th = &m->th[c->thread];
    c->overflows += wraps;
    if (c->pebs) {
        m->n_armed += !c->pebs_armed;
        c->pebs_armed = true;
        X86_LOG_CTR(m, c, cycle, "overflow: PEBS armed");
        return;
    } else {
        th->global_status |= 1ull << x86_status_bit(c);
        if (wraps > 1) {
            char name[24];
            x86_ctr_name(c, name, sizeof name);
            pmusim_model_log(&m->base, cycle, c->thread, "%s overflow (x%" PRIu64 ")", name,
                             wraps);
        } else {
            X86_LOG_CTR(m, c, cycle, "overflow");
        }
    }
    if (c->intr)
        m->pending_pmi |= 1u << c->thread;
}

/* Adds n increments taken at `cycle`. */
static void x86_ctr_add(x86_model_t *m, x86_ctr_t *c, uint64_t n, uint64_t cycle,
                        const pmusim_rec_t *r)
{
    uint64_t room = c->max - c->value;
    if (n <= room) {
        c->value += n;
        return;
    }
    n -= room + 1; /* the first wrap leaves the counter at 0 */
    uint64_t wraps = 1 + n / (c->max + 1);
    c->value = n % (c->max + 1);
    x86_overflow(m, c, cycle, wraps, r);
}

/* Hot-path variant: value already incremented past max. */
static void x86_ctr_wrapped(x86_model_t *m, x86_ctr_t *c, uint64_t cycle, const pmusim_rec_t *r)
{
    uint64_t wraps = c->value / (c->max + 1);
    c->value &= c->max;
    x86_overflow(m, c, cycle, wraps, r);
}

/* ---- unit counters (INST_RETIRED-like, fed by the thread's own records) ---- */

static uint64_t x86_tally(const x86_thread_t *th, const x86_ctr_t *c)
{
    uint64_t s = 0;
    for (unsigned p = 0; p < 4; p++)
        if ((c->plm_mask >> p) & 1)
            s += th->insn_tally[p] + (p == th->plm ? th->insn_seen - th->plm_mark : 0);
    return s;
}

/* The thread changes privilege level: close the tally of the old one. */
static void x86_tally_plm(x86_thread_t *th, uint8_t plm)
{
    th->insn_tally[th->plm] += th->insn_seen - th->plm_mark;
    th->plm_mark = th->insn_seen;
    th->plm = plm;
}

/* Folds the tallies into the thread's unit counters; r is the record being
 * counted when one of them may wrap (NULL at other sync points, where no
 * wrap is pending). */
static void x86_units_sync(x86_model_t *m, x86_thread_t *th, const pmusim_rec_t *r)
{
    uint64_t budget = X86_NEVER;
    for (uint32_t k = 0; k < th->n_units; k++) {
        x86_ctr_t *c = th->units[k];
        uint64_t tally = x86_tally(th, c);
        uint64_t delta = tally - c->unit_snap;
        c->unit_snap = tally;
        if (delta)
            x86_ctr_add(m, c, delta, m->cur, r);
        uint64_t room = c->max - c->value + 1;
        if (room < budget)
            budget = room;
    }
    th->unit_due = x86_sat_add(th->insn_seen, budget);
}

static void x86_units_sync_all(x86_model_t *m)
{
    for (uint32_t t = 0; t < m->base.nthreads; t++)
        if (m->th[t].n_units)
            x86_units_sync(m, &m->th[t], NULL);
}

/* ---- lazy accrual ---- */

__extension__ typedef unsigned __int128 x86_u128;

/* Increments of lazy counter c over `cycles` cycles from `since`: rate x
 * cycles, scaled by the reference ratio for reference-clock counters with
 * the remainder carried in ref_frac (*frac: the new remainder).  128-bit:
 * a span may reach 2^64 cycles. */
static x86_u128 x86_lazy_incs(const x86_ctr_t *c, uint64_t cycles, uint64_t *frac)
{
    x86_u128 n = (x86_u128)c->rate * cycles;
    if (c->ref_num == c->ref_den) {
        *frac = c->ref_frac;
        return n;
    }
    x86_u128 t = n * c->ref_num + c->ref_frac;
    *frac = (uint64_t)(t % c->ref_den);
    return t / c->ref_den;
}

/* The fewest cycles from `since` in which c (rate > 0) takes at least
 * `incs` increments: the inverse of x86_lazy_incs. */
static x86_u128 x86_lazy_cycles_for(const x86_ctr_t *c, x86_u128 incs)
{
    /* core-cycle counters (ratio 1/1, no remainder) and fewer than 2^63
     * increments: the same in 64 bits, without __udivti3 */
    if (c->ref_num == 1 && c->ref_den == 1 && incs < ((x86_u128)1 << 63)) {
        const uint64_t need = (uint64_t)incs > c->ref_frac ? (uint64_t)incs - c->ref_frac : 0;
        return c->rate == 1 ? need : (need + c->rate - 1) / c->rate;
    }
    x86_u128 need = incs * c->ref_den;
    need = need > c->ref_frac ? need - c->ref_frac : 0;
    x86_u128 units = (need + c->ref_num - 1) / c->ref_num;
    return (units + c->rate - 1) / c->rate;
}

static uint64_t x86_u128_sat(x86_u128 v)
{
    return v > UINT64_MAX ? UINT64_MAX : (uint64_t)v;
}

/* Lazy counter c accrues up to `to`. */
static inline void x86_ctr_sync(x86_model_t *m, x86_ctr_t *c, uint64_t to)
{
    if (to <= c->since)
        return;
    uint64_t stop = to < c->rate_until ? to : c->rate_until;
    if (c->rate && stop > c->since) {
        uint64_t frac;
        uint64_t n = x86_u128_sat(x86_lazy_incs(c, stop - c->since, &frac));
        c->ref_frac = frac;
        if (n)
            x86_ctr_add(m, c, n, stop - 1, NULL);
    }
    c->since = to;
}

static void x86_sync_to(x86_model_t *m, uint64_t to)
{
    for (uint32_t i = 0; i < m->n_lazy; i++)
        x86_ctr_sync(m, m->lazy[i], to);
}

static uint64_t x86_ctr_next_event(const x86_ctr_t *c)
{
    uint64_t ev = c->rate_until;
    if (c->rate) {
        uint64_t ov = x86_sat_add(
            c->since, x86_u128_sat(x86_lazy_cycles_for(c, (x86_u128)c->max - c->value + 1)));
        if (ov < ev)
            ev = ov;
    }
    return ev;
}

/* Sets the deadline and the fast path's limit that follows from it. */
static void x86_deadline_set(x86_model_t *m, uint64_t dl)
{
    m->deadline = dl;
    m->fast_limit = m->n_thresh && !m->thresh_fast ? 0 : dl;
    /* an observed window: every cycle boundary in it goes through x86_advance */
    if (m->obs_fn && m->cur < m->obs_to && m->obs_from < m->fast_limit)
        m->fast_limit = m->obs_from;
}

static void x86_deadline_update(x86_model_t *m)
{
    uint64_t dl = X86_NEVER;
    for (uint32_t i = 0; i < m->n_lazy; i++) {
        x86_ctr_t *c = m->lazy[i];
        c->next_ev = x86_ctr_next_event(c);
        if (c->next_ev < dl)
            dl = c->next_ev;
    }
    x86_deadline_set(m, dl);
}

/* x86_deadline_update() after x86_run_events() handled point T: only the
 * counters whose event was due by T changed (a rate change, a wrap); the
 * others' events stay where they were computed, as a sync (the only thing
 * T did to them) moves value and `since` together (x86_lazy_cycles_for()
 * is the exact inverse of x86_lazy_incs()).  Issue 12 item 2: with a wsm
 * 0x60 counter every request's end is such a point. */
static void x86_deadline_refresh(x86_model_t *m, uint64_t T)
{
    uint64_t dl = X86_NEVER;
    for (uint32_t i = 0; i < m->n_lazy; i++) {
        x86_ctr_t *c = m->lazy[i];
        if (c->next_ev <= T)
            c->next_ev = x86_ctr_next_event(c);
        if (c->next_ev < dl)
            dl = c->next_ev;
    }
    x86_deadline_set(m, dl);
}

static inline bool x86_plm_ok(const x86_ctr_t *c, const x86_thread_t *th)
{
    return (c->plm_mask >> th->plm) & 1;
}

/* Whether the core of thread t is powered: at least one of its threads is
 * unhalted.  A halted thread's counters keep counting while a sibling runs;
 * the core's counters stop only when every thread is halted (docs/sim-x86.md,
 * "cycle gating"; issue 10). */
static inline bool x86_core_powered(const x86_model_t *m, uint32_t t)
{
    return m->core_active[t / m->d->threads_per_core] != 0;
}

/* Thread t becomes active or halted. */
static void x86_thread_set_active(x86_model_t *m, uint32_t t, bool active)
{
    m->th[t].active = active;
    if (active)
        m->core_active[t / m->d->threads_per_core]++;
    else
        m->core_active[t / m->d->threads_per_core]--;
}

/* Cycle-source occurrences of counter c in one cycle: 1 when its thread is
 * active at a privilege level c counts.  With AnyThread, 1 when at least one
 * thread of the core qualifies: the SDM's *_ANY cycle events (e.g.
 * CPU_CLK_UNHALTED.THREAD_ANY, SDM Vol. 3B §18.2.3 "AnyThread") count cycles
 * in which any thread is unhalted, not the sum over threads. */
static uint64_t x86_cycle_v(const x86_model_t *m, const x86_ctr_t *c)
{
    if (!c->any) {
        const x86_thread_t *th = &m->th[c->thread];
        return th->active && x86_plm_ok(c, th);
    }
    uint32_t first = x86_core_first(m, c->thread);
    for (uint32_t s = first; s < first + m->d->threads_per_core && s < m->base.nthreads; s++)
        if (m->th[s].active && x86_plm_ok(c, &m->th[s]))
            return 1;
    return 0;
}

/* Whether a thresholded counter may count in a cycle at all: the core is
 * powered (some thread unhalted) and its thread (with AnyThread: some thread
 * of the core) is at a privilege level it counts.  A halted thread keeps its
 * last privilege level (docs/sim-x86.md, "cycle gating"). */
static inline bool x86_gate(const x86_model_t *m, const x86_ctr_t *c)
{
    if (!x86_core_powered(m, c->thread))
        return false;
    if (!c->any)
        return x86_plm_ok(c, &m->th[c->thread]);
    uint32_t first = x86_core_first(m, c->thread);
    for (uint32_t s = first; s < first + m->d->threads_per_core && s < m->base.nthreads; s++)
        if (x86_plm_ok(c, &m->th[s]))
            return true;
    return false;
}

static inline bool x86_thresh_cond(const x86_ctr_t *c, uint64_t v)
{
    if (c->cmask == 0)
        return v >= 1; /* only reached with EDGE: rising edges of "any occurrence" */
    return c->inv ? v < c->cmask : v >= c->cmask;
}

/* An OUTSTANDING counter's rate from point T on (synced up to T): the
 * requests that ended by T leave the heap; without a threshold the rate is
 * the requests in flight.  With one (out_thr) the in-flight count is the
 * cycle's occurrences v of docs/sim-x86.md §3: 1 per cycle while the gate
 * is open and v meets CMASK (INV: is below it), with EDGE only in the
 * first cycle of such a stretch.  Every change of v or of the gate comes
 * through here (a request's start or end, x86_rates_update()), so the
 * condition holds for the whole stretch since the previous call; calls
 * within one cycle (several requests starting in it) keep the previous
 * cycle's condition for EDGE. */
static void x86_out_update(x86_model_t *m, x86_ctr_t *c, uint64_t T)
{
    while (x86_heap_min(&c->out_ends) <= T)
        x86_heap_pop(&c->out_ends);
    const uint64_t end = x86_heap_min(&c->out_ends);
    if (!c->out_thr) {
        c->rate = c->out_ends.n;
        c->rate_until = end;
        return;
    }
    if (T != c->out_seg) {
        c->prev_cond = c->out_cond;
        c->out_seg = T;
    }
    const bool cond = x86_gate(m, c) && x86_thresh_cond(c, c->out_ends.n);
    c->out_cond = cond;
    const bool inc = c->edge ? cond && !c->prev_cond : cond;
    c->rate = inc;
    /* an EDGE increment lasts one cycle: the next one compares again */
    c->rate_until = inc && c->edge && T + 1 < end ? T + 1 : end;
}

/* Recomputes every lazy counter's rate from the current state; the counters
 * are synced to `now` first so the new rates apply from there. */
static void x86_rates_update(x86_model_t *m)
{
    x86_sync_to(m, m->now);
    for (uint32_t i = 0; i < m->n_lazy; i++) {
        x86_ctr_t *c = m->lazy[i];
        c->since = m->now;
        switch (c->cls) {
        case X86_CLS_RATE:
            c->rate = x86_cycle_v(m, c);
            c->rate_until = X86_NEVER;
            break;
        case X86_CLS_OUTSTANDING:
            x86_out_update(m, c, m->now);
            break;
        case X86_CLS_THRESH: {
            if (!m->gap_mode) {
                c->rate = 0;
                c->rate_until = X86_NEVER;
                break;
            }
            /* a pending EDGE one-shot at `now` survives a second update */
            if (c->edge && c->rate == 1 && c->rate_until == m->now + 1)
                break;
            uint64_t v = x86_src_is_clock(c->src) ? x86_cycle_v(m, c) : 0;
            bool cond = x86_gate(m, c) && x86_thresh_cond(c, v);
            if (c->edge) {
                bool rise = cond && !c->prev_cond;
                c->rate = rise;
                c->rate_until = rise ? m->now + 1 : X86_NEVER;
            } else {
                c->rate = cond;
                c->rate_until = X86_NEVER;
            }
            c->prev_cond = cond;
            break;
        }
        default:
            c->rate = 0;
            c->rate_until = X86_NEVER;
            break;
        }
    }
    x86_deadline_update(m);
}

/* ---- compiling the registers into counters ---- */

static bool x86_pebs_capable(const x86_desc_t *d, uint8_t code, uint8_t umask)
{
    for (size_t i = 0; i < d->n_pebs; i++)
        if (d->pebs[i].code == code && (d->pebs[i].any_umask || d->pebs[i].umask == umask))
            return true;
    return false;
}

static uint32_t x86_all_ones(uint32_t mask)
{
    return mask ? mask : UINT32_MAX;
}

/* A table filter ready for the hot path: "any" masks become all-ones. */
static x86_filter_t x86_filter_norm(x86_filter_t f)
{
    f.mem_dir = x86_all_ones(f.mem_dir);
    f.lvl_mask = x86_all_ones(f.lvl_mask);
    f.tlb_mask = x86_all_ones(f.tlb_mask);
    f.br_kind = x86_all_ones(f.br_kind);
    f.br_taken = x86_all_ones(f.br_taken);
    f.split = x86_all_ones(f.split);
    f.fp_class = x86_all_ones(f.fp_class);
    f.op_kind = x86_all_ones(f.op_kind);
    f.br_misp = x86_all_ones(f.br_misp);
    f.oc_req = x86_all_ones(f.oc_req);
    return f;
}

/* Whether the trace comes from a producer that emits EVENT records for
 * facts such as cache replacements (the "events" annotation), which then
 * count the `ev` rows of trace-events.csv.  A trace claiming every
 * annotation (no annotations key: hand-written or older) counts them from
 * the fields (docs/trace-events-x86.md). */
static bool x86_events_producer(const x86_model_t *m)
{
    uint32_t ann = m->base.trace_annotations;
    return (ann & PMUSIM_ANN_EVENTS) && ann != PMUSIM_ANN_ALL;
}

/* x86_event_lookup() for this model's trace: a row with a sum_umask
 * (L2_TRANSACTIONS:ANY) stands for that umask's bits on a trace with an
 * annotations key (a model's, which writes their EVENT records); a trace
 * without one counts the row itself. */
static size_t x86_event_lookup_model(const x86_model_t *m, uint8_t code, uint8_t umask,
                                     const x86_evmap_t *hits[X86_MAX_BITS])
{
    size_t n = x86_event_lookup(m->d, code, umask, hits);
    if (n == 1 && hits[0]->sum_umask && m->base.trace_annotations != PMUSIM_ANN_ALL)
        n = x86_event_lookup(m->d, code, hits[0]->sum_umask, hits);
    return n;
}

/* Whether the header's "evspan" key lists counter c's EVENT records: its
 * own (code, umask), or, for a umask whose bits are each counted from
 * their EVENT records (c->ev_bits: knm PAGE_WALKS:WALKS, 0x05/0x03 of the
 * D-side 0x01 and I-side 0x02 walks), every one of those bits' pairs, so
 * that each record is an interval and the threshold sees the walks of
 * both in progress (docs/trace-events-x86.md, "Exact thresholds on walk
 * records"). */
static bool x86_span_listed(const x86_model_t *m, const x86_ctr_t *c, uint8_t code, uint8_t umask)
{
    const GArray *sp = m->base.trace_evspan;
    if (!c->ev_bits)
        return pmusim_declared_events_has(sp, code, umask);
    for (unsigned b = 0; b < 8; b++)
        if (((c->ev_bits >> b) & 1) && !pmusim_declared_events_has(sp, code, 1u << b))
            return false;
    return true;
}
static void x86_ctr_compile(x86_model_t *m, uint32_t t, uint32_t slot)
{
    const x86_desc_t *d = m->d;
    x86_thread_t *th = &m->th[t];
    x86_ctr_t *c = &th->ctr[slot];
    uint8_t old_cls = c->cls;
    bool local_en, global_en;
    uint8_t code = 0, umask = 0;

    c->src = X86_SRC_NONE;
    c->nbits = 0;
    c->unit = false;
    memset(&c->f, 0, sizeof c->f);
    if (slot < X86_MAX_GP) {
        uint64_t sel = th->evtsel[slot];
        code = sel & 0xff;
        umask = (sel >> 8) & 0xff;
        c->plm_mask = (uint8_t)(((sel & X86_EVTSEL_OS) ? 0x1 : 0) | ((sel & X86_EVTSEL_USR) ? 0xe : 0));
        c->edge = sel & X86_EVTSEL_EDGE;
        c->inv = sel & X86_EVTSEL_INV;
        c->any = sel & X86_EVTSEL_ANY;
        c->intr = sel & X86_EVTSEL_INT;
        c->cmask = (uint8_t)(sel >> 24);
        /* a form: the event the encoding names, from its own source
         * (docs/trace-events-x86.md, "Forms") */
        c->form = x86_form_find(d, (uint8_t)(sel & 0xff), (uint8_t)((sel >> 8) & 0xff),
                                (uint32_t)(sel & X86_FORM_MODS));
        if (c->form) {
            c->cmask = 0;
            c->edge = c->inv = false;
        }
        local_en = (sel & X86_EVTSEL_EN) && c->plm_mask;
        global_en = (th->global_ctrl >> slot) & 1;
        c->pebs = ((th->pebs_enable >> slot) & 1) && x86_pebs_capable(d, code, umask);
        /* SDM Vol. 3B §18.8.1.1 (and the PEBS notes of later cores): PEBS
         * events are only valid with AnyThread, Edge, Invert and CMask all
         * zero.  Choice: no assist, the counter overflows normally. */
        c->pebs_invalid = c->pebs && (sel & (X86_EVTSEL_ANY | X86_EVTSEL_EDGE | X86_EVTSEL_INV |
                                             (0xffull << 24)));
        if (c->pebs_invalid)
            c->pebs = false;
        const x86_restriction_t *rs = x86_restriction_find(d, code, umask);
        c->restricted = rs && !((rs->counters >> slot) & 1);
    } else {
        uint32_t k = slot - X86_MAX_GP;
        uint32_t field = (th->fixed_ctrl >> (4 * k)) & 0xf;
        c->plm_mask = (uint8_t)(((field & 1) ? 0x1 : 0) | ((field & 2) ? 0xe : 0));
        c->any = field & 4;
        c->intr = field & 8;
        c->edge = c->inv = false;
        c->cmask = 0;
        c->form = NULL;
        c->pebs = c->pebs_invalid = c->restricted = false;
        local_en = c->plm_mask != 0;
        global_en = (th->global_ctrl >> (32 + k)) & 1;
        /* reference §4.2: instructions retired, core cycles, reference cycles */
        c->src = k == 0 ? X86_SRC_INSN : k == 1 ? X86_SRC_CYCLES : X86_SRC_REF;
    }
    c->programmed = c->programmed || local_en;
    c->ll = false;
    if (!c->pebs && c->pebs_armed) {
        c->pebs_armed = false;
        m->n_armed--;
    }

    c->once = false;
    c->ev_bits = 0;
    c->out_msr = false;
    memset(c->fpmmx_last, 0, sizeof c->fpmmx_last);
    if (slot < X86_MAX_GP) {
        const x86_evmap_t *hits[X86_MAX_BITS];
        size_t n;
        if (c->form) {
            c->src = c->form->src;
            c->f = c->form->f;
            c->once = c->form->once;
        } else if (code == d->oc_code[0] && umask == d->oc_umask[0]) {
            c->oc_msr = x86_offcore_regs(m, t)[0];
            c->out_msr = d->oc_layout == X86_OC_KNM && (c->oc_msr >> 38) & 1;
            c->src = c->out_msr ? X86_SRC_OUTSTANDING : X86_SRC_OFFCORE;
        } else if (code == d->oc_code[1] && umask == d->oc_umask[1]) {
            c->oc_msr = x86_offcore_regs(m, t)[1];
            c->src = X86_SRC_OFFCORE;
        } else if ((n = x86_event_lookup_model(m, code, umask, hits)) > 0 &&
                   !(hits[0]->events_first && x86_events_producer(m)) &&
                   !(hits[0]->model_only && m->base.trace_annotations == PMUSIM_ANN_ALL)) {
            /* the umask's bits counted from EVENT records (EVENT rows) */
            uint8_t evb = 0;
            for (size_t b = 0; b < n; b++)
                if (hits[b]->src == X86_SRC_EVENT)
                    evb |= hits[b]->umask;
            c->ev_key = (uint16_t)(code | (umask << 8));
            if (n == 1 && !evb) {
                c->src = hits[0]->src;
                c->f = hits[0]->f;
                c->once = hits[0]->once;
            } else if (evb && (n == 1 || m->base.trace_annotations == PMUSIM_ANN_ALL)) {
                /* one EVENT bit: its records, as any unlisted umask; several
                 * bits on a trace without an annotations key (hand-written):
                 * the records of exactly this umask, whose author means them
                 * (docs/trace-events-x86.md, "Unit masks that OR EVENT-only
                 * bits") */
                c->src = X86_SRC_EXPLICIT;
            } else if (n == (size_t)__builtin_popcount(evb)) {
                c->src = X86_SRC_EXPLICIT; /* every bit from its EVENT records */
                c->ev_bits = evb;
            } else {
                /* the trace-derived bits from the fields, the others (if
                 * any) from their EVENT records: a record adds to at most
                 * one side, so nothing counts twice */
                c->src = X86_SRC_BITS;
                c->once = false;
                c->ev_bits = evb;
                uint16_t need = UINT16_MAX;
                for (size_t b = 0; b < n; b++) {
                    if (hits[b]->src == X86_SRC_EVENT)
                        continue;
                    c->fb[c->nbits++] = x86_filter_norm(hits[b]->f);
                    c->once |= hits[b]->once; /* the umask's bits count instructions */
                    need &= hits[b]->f.need_flags;
                }
                /* one filter for the filter listeners (and the fast loop):
                 * any of the bits' filters, the flags they all need first */
                c->f.need_flags = c->nbits ? need : 0;
                c->f.n_any = c->nbits;
                c->f.any_of = c->fb;
            }
        } else {
            c->src = X86_SRC_EXPLICIT;
            c->ev_key = (uint16_t)(code | (umask << 8));
        }
        if (c->src == X86_SRC_LDLAT) {
            c->lat_min = (uint32_t)th->ldlat;
            c->ll = c->pebs && ((th->pebs_enable >> (32 + slot)) & 1);
            /* the same condition as a filter, so that the filter listeners
             * (and the fast loop) can serve it */
            c->f.need_flags = PMUSIM_F_MEM;
            c->f.mem_dir = 1u; /* loads */
            c->f.lat_ge = c->lat_min + 1;
        }
    }
    if (c->src == X86_SRC_OFFCORE || c->out_msr) {
        /* the MSR as a filter condition, so that the filter listeners (and
         * the fast loop) serve it: issue 12 item 2.  knm's average-latency
         * mode matches the request bits only (x86_oc_req_match()): the
         * same MSR with ANY_RESPONSE (bit 16) */
        c->f.need_flags = PMUSIM_F_OFFCORE;
        c->f.oc_by_msr = (uint8_t)(1u + d->oc_layout);
        c->f.oc_msr = c->out_msr ? c->oc_msr | (1ull << 16) : c->oc_msr;
    }
    c->f = x86_filter_norm(c->f);

    bool thresholded = c->cmask != 0 || c->edge;
    /* a threshold on EVENT records the header's "evspan" key lists: each
     * record is an interval of n cycles (a page walk), and the count is
     * that of intervals in progress per cycle, as requests in flight
     * (docs/trace-events-x86.md, "Exact thresholds on walk records") */
    c->span = thresholded && c->src == X86_SRC_EXPLICIT && x86_span_listed(m, c, code, umask);
    if (!(local_en && global_en) || c->restricted || slot >= X86_MAX_GP + X86_NUM_FIXED ||
        (slot < X86_MAX_GP && slot >= d->n_gp))
        c->cls = X86_CLS_OFF;
    else if (c->src == X86_SRC_OUTSTANDING || c->span)
        c->cls = X86_CLS_OUTSTANDING;
    else if (x86_src_is_clock(c->src))
        c->cls = thresholded ? X86_CLS_THRESH : X86_CLS_RATE;
    else
        c->cls = thresholded ? X86_CLS_THRESH : X86_CLS_DIRECT;

    if (c->cls != X86_CLS_OUTSTANDING)
        c->out_ends.n = 0;
    /* a threshold on requests in flight: wsm 0x60 only (knm's
     * average-latency mode takes none, docs/sim-x86.md §5) */
    bool out_thr = c->cls == X86_CLS_OUTSTANDING && !c->out_msr && thresholded;
    if (c->cls != X86_CLS_THRESH && !(out_thr && c->out_thr && c->cls == old_cls)) {
        c->acc = 0;
        c->prev_cond = c->out_cond = false;
        c->out_seg = m->now;
    }
    c->out_thr = out_thr;
    /* issue 12 item 2: the direct FPMMX counts and wsm's 0x60 requests are
     * filter listeners (x86_recompile()), served by the fast loop: the
     * FPMMX filter matches both classes, the counted ones kept apart */
    c->fpmmx_occ = c->src == X86_SRC_FPMMX ? (uint8_t)c->f.fp_class : 0;
    /* macro-fusion: on a model that fuses, under the annotation (a trace
     * without it has no record of kind fused: traces/FORMAT.md §2) */
    c->fmask = c->src == X86_SRC_UOPS && d->fuses &&
                       (m->base.trace_annotations & PMUSIM_ANN_FUSE)
                   ? (uint16_t)PMUSIM_F_OPKIND_MASK
                   : 0;
    c->fstep = (c->src == X86_SRC_FPMMX &&
                (c->cls == X86_CLS_DIRECT || c->cls == X86_CLS_THRESH) && !c->pebs) ||
               c->cls == X86_CLS_OUTSTANDING;
    if (c->fstep && c->src == X86_SRC_FPMMX)
        c->f.fp_class = (1u << PMUSIM_FPC_X87) | (1u << PMUSIM_FPC_MMX);
    if (c->cls != old_cls || c->cls == X86_CLS_OFF) {
        c->rate = 0;
        c->rate_until = X86_NEVER;
        c->ref_frac = 0;
    }
    /* reference cycles tick at the reference ratio (docs/sim-x86.md §3);
     * a threshold on them compares per core cycle */
    bool ref = c->cls == X86_CLS_RATE && c->src == X86_SRC_REF;
    c->ref_num = ref ? m->ref_num : 1;
    c->ref_den = ref ? m->ref_den : 1;
    c->since = m->now;
}

static bool x86_is_record_src(uint8_t src)
{
    return !x86_src_is_clock(src) && src != X86_SRC_NONE;
}

/* Whether x86_consume_fast() can serve the thresholded counters (issue 12:
 * a CMASK on one counter sent every record through the general path): each
 * counts occurrences that the fast loop feeds (a filter, instructions or
 * uops: listeners) or that do not change while it runs (a cycle source:
 * the threads' activity and privilege levels are fixed there; EVENT
 * records, which end the loop; nothing).  AnyThread changes only which
 * records feed it and the gate, which is fixed too.  Offcore counters and
 * unit masks of several field-derived bits are filter listeners since
 * session 18 (their MSR, their bits' filters, are filter conditions).
 * PEBS is invalid with a threshold (x86_ctr_compile). */
static bool x86_thresh_fast_ok(const x86_model_t *m)
{
    /* every source is served since session 18, and no thresholded counter
     * has PEBS (x86_ctr_compile() drops it with CMASK, EDGE or INV) */
    return m->n_thresh != 0;
}

/* Whether x86_consume_fast() can feed the dispatched listeners: direct
 * instruction and uop counts (AnyThread ones, and uops, which are not
 * tallied as unit counters), and thresholded ones when x86_thresh_fast_ok()
 * holds.  Other sources need x86_count_gen()'s dispatch. */
static bool x86_gen_fast_ok(const x86_model_t *m)
{
    for (uint32_t t = 0; t < m->base.nthreads; t++)
        for (unsigned p = 0; p < 4; p++) {
            const x86_listeners_t *l = &m->th[t].lst[p];
            for (uint32_t k = 0; k < l->n_gen; k++) {
                const x86_ctr_t *c = l->gen[k];
                if ((c->src != X86_SRC_INSN && c->src != X86_SRC_UOPS) || c->pebs)
                    return false;
                if (c->cls != X86_CLS_DIRECT && !(c->cls == X86_CLS_THRESH && m->thresh_fast))
                    return false;
            }
        }
    return true;
}

/* Re-derives every counter from the registers.  Called on every write that
 * changes what or whether something counts; never per record. */
/* X86_HIST_TWO: whether the thresholded counts of listener set l (hgen
 * and tgen; a tgen one is there for another source, threshold or EDGE) are
 * all of the thread's own instructions or uops without EDGE, with at most
 * two thresholds, and those above 1 all of one source: a cycle has one
 * instruction or more exactly when it has one uop or more (a record's uops
 * count at least 1), so one occurrence count of that source serves both.
 * Uop counts with fmask (a fused record weighs one less, 0 for a CMP of one
 * uop) fit only when all are such, of one fmask (instruction counts have
 * none): a cycle may then have instructions and no uop.  If so and uops / k / k2 are given, sets them
 * (the source, the thresholds; k2 = k if only one). */
static bool x86_two_fits(const x86_listeners_t *l, bool *uops, uint64_t *k, uint64_t *k2)
{
    uint64_t ka = 0, kb = 0;
    int src = -1; /* of the thresholds above 1 */
    const uint16_t fm = l->n_hgen ? l->hgen[0]->fmask : l->n_tgen ? l->tgen[0]->fmask : 0;
    for (uint32_t j = 0; j < l->n_hgen + l->n_tgen; j++) {
        const x86_ctr_t *c = j < l->n_hgen ? l->hgen[j] : l->tgen[j - l->n_hgen];
        if (c->edge || c->any || c->cls != X86_CLS_THRESH || c->fmask != fm ||
            (c->src != X86_SRC_INSN && c->src != X86_SRC_UOPS))
            return false;
        const uint64_t hk = c->cmask ? c->cmask : 1;
        if (hk > 1) {
            if (src >= 0 && src != c->src)
                return false;
            src = c->src;
        }
        if (!ka || ka == hk)
            ka = hk;
        else if (!kb || kb == hk)
            kb = hk;
        else
            return false;
    }
    if (uops) {
        *uops = src == X86_SRC_UOPS;
        *k = ka;
        *k2 = kb ? kb : ka;
    }
    return true;
}

/* Anything but x86_consume_fast() that may change what x86_thr_prepare()
 * folds in (gates, configuration) or the counters' pending closes. */
static inline void x86_thr_unready(x86_model_t *m)
{
    m->thr_ready = false;
}

/* Moves the FPMMX counters of list[0..n) to its end, keeping the order of
 * the others and theirs; returns the number of the others. */
static uint32_t x86_listeners_last_fpmmx(x86_ctr_t **list, uint32_t n)
{
    x86_ctr_t *fp[X86_LISTENERS];
    uint32_t k = 0, nfp = 0;
    for (uint32_t i = 0; i < n; i++) {
        if (list[i]->src == X86_SRC_FPMMX)
            fp[nfp++] = list[i];
        else
            list[k++] = list[i];
    }
    memcpy(list + k, fp, nfp * sizeof fp[0]);
    return k;
}

static void x86_recompile(x86_model_t *m)
{
    x86_thr_unready(m);
    m->compiled_ann = m->base.trace_annotations;
    m->compiled_hdr = m->base.trace_header_sets;
    x86_units_sync_all(m);
    x86_sync_to(m, m->now);
    uint32_t nt = m->base.nthreads;
    for (uint32_t t = 0; t < nt; t++) {
        bool ll = false;
        for (uint32_t s = 0; s < X86_NCTR; s++) {
            x86_ctr_compile(m, t, s);
            ll = ll || m->th[t].ctr[s].ll;
        }
        /* SDM Vol. 3B §18.8.1.2: with load latency enabled no other PEBS
         * event may be programmed.  Choice: the others take no assist and
         * overflow normally (diagnosed by x86_check_counter). */
        for (uint32_t s = 0; ll && s < X86_MAX_GP; s++) {
            x86_ctr_t *c = &m->th[t].ctr[s];
            if (c->pebs && !c->ll) {
                c->pebs = false;
                c->pebs_invalid = true;
            }
        }
    }
    m->n_lazy = m->n_thresh = 0;
    for (uint32_t t = 0; t < nt; t++) {
        m->th[t].n_ev = m->th[t].n_units = 0;
        for (uint32_t p = 0; p < 4; p++) {
            x86_listeners_t *l = &m->th[t].lst[p];
            l->n_filt = l->n_gen = l->filt_flags = l->n_dgen = l->n_tgen = l->n_hgen = 0;
            l->n_fold = l->n_ffilt = l->ffilt_flags = l->n_ofilt = l->n_xfilt = 0;
            l->n_fused = 0;
            l->hgen_fmask = 0;
        }
    }
    for (uint32_t t = 0; t < nt; t++) {
        for (uint32_t s = 0; s < X86_NCTR; s++) {
            x86_ctr_t *c = &m->th[t].ctr[s];
            if (c->cls == X86_CLS_OFF)
                continue;
            if (c->cls != X86_CLS_DIRECT)
                m->lazy[m->n_lazy++] = c;
            if (c->cls == X86_CLS_THRESH)
                m->thresh[m->n_thresh++] = c;
            /* PEBS counters take the dispatching path, where an armed
             * counter's next qualifying record fires the assist */
            c->unit = c->cls == X86_CLS_DIRECT && c->src == X86_SRC_INSN && !c->any && !c->pebs;
            if (c->unit) {
                x86_thread_t *th = &m->th[t];
                th->units[th->n_units++] = c;
                c->unit_snap = x86_tally(th, c);
                continue;
            }
            if (!x86_is_record_src(c->src))
                continue;
            uint32_t first = x86_core_first(m, t), last = first + m->d->threads_per_core;
            for (uint32_t r = first; r < last && r < nt; r++) {
                /* AnyThread: a sibling's records count too (knm's
                 * average-latency mode: own requests only) */
                if (r != t && (!c->any || c->out_msr))
                    continue;
                x86_thread_t *rt = &m->th[r];
                if (c->src == X86_SRC_EXPLICIT || c->ev_bits)
                    rt->ev_lst[rt->n_ev++] = c; /* BITS: its EVENT bits too */
                if (c->src == X86_SRC_EXPLICIT)
                    continue;
                for (uint32_t p = 0; p < 4; p++) {
                    x86_listeners_t *l = &rt->lst[p];
                    if (!((c->plm_mask >> p) & 1))
                        continue;
                    /* filter listeners: filter events, load latency (as a
                     * filter), and PEBS instruction counters (a filter that
                     * matches every INSN record) */
                    if (((c->cls == X86_CLS_DIRECT || c->cls == X86_CLS_THRESH) &&
                         (c->src == X86_SRC_FILTER || c->src == X86_SRC_LDLAT ||
                          ((c->src == X86_SRC_OFFCORE || c->src == X86_SRC_BITS) && !c->pebs) ||
                          (c->src == X86_SRC_INSN && c->pebs))) ||
                        c->fstep) {
                        /* the flags a matching record has (a filter
                         * needing none must see every record; FPMMX:
                         * x87 and mmx classes have bit 7 or 8 set) */
                        const uint32_t fl = c->src == X86_SRC_FPMMX ? X86_F_FPMMX_BITS
                                            : c->f.need_flags ? c->f.need_flags
                                                              : X86_F_ANY_RECORD;
                        l->filt[l->n_filt++] = c;
                        l->filt_flags |= fl;
                        if (c->src == X86_SRC_INSN && c->cls == X86_CLS_DIRECT) {
                            l->fold[l->n_fold++] = c;
                        } else if (c->src == X86_SRC_OUTSTANDING) {
                            l->ofilt[l->n_ofilt++] = c;
                        } else if (c->src == X86_SRC_FPMMX) {
                            l->xfilt[l->n_xfilt++] = c;
                        } else {
                            l->ffilt[l->n_ffilt++] = c;
                            l->ffilt_flags |= fl;
                        }
                    } else {
                        l->gen[l->n_gen++] = c;
                        const uint64_t hk = c->cmask ? c->cmask : 1; /* x86_thr_prepare() */
                        /* uops of which a fused record weighs 0 (fmask)
                         * too: the X86_HIST_ANY and X86_HIST_EDGE variants
                         * take that weight (x86_fast_hist_fused()) */
                        const bool own = c->cls == X86_CLS_THRESH && r == t && !c->any &&
                                         (c->src == X86_SRC_INSN || c->src == X86_SRC_UOPS);
                        const bool uops = c->src == X86_SRC_UOPS;
                        if (own && l->n_hgen &&
                            (l->hgen_uops != uops || l->hgen_k != hk || l->hgen_edge != c->edge)) {
                            l->tgen[l->n_tgen++] = c; /* a second source, threshold or kind */
                        } else if (own) {
                            l->hgen_uops = uops;
                            l->hgen_k = hk;
                            l->hgen_edge = c->edge;
                            l->hgen_fmask = c->fmask;
                            l->hgen[l->n_hgen++] = c;
                        } else if (c->cls == X86_CLS_THRESH) {
                            l->tgen[l->n_tgen++] = c;
                        } else if (c->src == X86_SRC_INSN) {
                            l->fold[l->n_fold++] = c;
                        } else {
                            l->dgen[l->n_dgen++] = c;
                        }
                    }
                }
            }
        }
    }
    /* the FPMMX filter listeners last in filt (a stable partition): the
     * general path takes their wraps after the other filters' */
    m->loop_oc_stop = m->loop_fpx_stop = false;
    bool oc_thr = false;
    for (uint32_t t = 0; t < nt; t++)
        for (uint32_t p = 0; p < 4; p++) {
            x86_listeners_t *l = &m->th[t].lst[p];
            x86_listeners_last_fpmmx(l->filt, l->n_filt);
            m->loop_oc_stop = m->loop_oc_stop || l->n_ofilt;
            m->loop_fpx_stop = m->loop_fpx_stop || l->n_xfilt;
            for (uint32_t j = 0; j < l->n_ofilt; j++)
                oc_thr = oc_thr || l->ofilt[j]->out_thr;
        }
    m->loop_oc_fast = m->loop_oc_stop && !oc_thr;
    m->n_outs = 0;
    for (uint32_t i = 0; i < m->n_lazy; i++)
        if (m->lazy[i]->cls == X86_CLS_OUTSTANDING)
            m->outs[m->n_outs++] = m->lazy[i];
    for (uint32_t t = 0; t < nt; t++)
        x86_units_sync(m, &m->th[t], NULL); /* computes the budgets */
    /* AnyThread thresholded counts need the X86_HIST_GEN variants (groups
     * fed by several threads, x86_grps_build()); EDGE counts beside a
     * threshold of 2 and up the X86_HIST_EDGE ones (the last met cycle) */
    bool any_h = false, all_k1 = true, all_insn = true, any_edge = false, any_any = false;
    bool any_fm = false; /* hgen listeners of uops with fmask */
    uint64_t min_k = UINT64_MAX;
    bool all_uops = true;
    for (uint32_t t = 0; t < nt; t++)
        for (unsigned p = 0; p < 4; p++) {
            const x86_listeners_t *l = &m->th[t].lst[p];
            any_h = any_h || l->n_hgen;
            all_k1 = all_k1 && (!l->n_hgen || l->hgen_k == 1);
            all_insn = all_insn && (!l->n_hgen || !l->hgen_uops);
            min_k = l->n_hgen && l->hgen_k < min_k ? l->hgen_k : min_k;
            all_uops = all_uops && (!l->n_hgen || l->hgen_uops);
            any_edge = any_edge || (l->n_hgen && l->hgen_edge);
            any_fm = any_fm || (l->n_hgen && l->hgen_fmask);
            for (uint32_t j = 0; j < l->n_tgen; j++)
                any_any = any_any || l->tgen[j]->any;
        }
    /* a fused record weighs 0 in the running counts of hgen listeners with
     * fmask: the k1 variants and the raw-uops ones (X86_HIST_ANY_U,
     * X86_HIST_EDGE_U) take every record as an occurrence at least, the
     * X86_HIST_ANY and X86_HIST_EDGE ones not (x86_fast_hist_fused()) */
    all_k1 = all_k1 && !any_fm;
    all_uops = all_uops && !any_fm;
    m->hist_mode = any_any               ? X86_HIST_GEN
                   : !any_h              ? X86_HIST_NONE
                   : all_k1              ? X86_HIST_K1
                   : any_edge            ? X86_HIST_EDGE
                   : all_insn            ? X86_HIST_INSN
                                         : X86_HIST_ANY;
    m->hist_insn_k2 = all_insn && min_k >= 2;
    m->hist_uops_k2 = all_uops && min_k >= 2;
    /* threshold 1 everywhere, with other kinds of threshold-1 counts
     * (the other source, EDGE or not) on a thread: they join its hgen
     * listeners, and the X86_HIST_K1X variants keep both k1 counts */
    bool k1x = m->hist_mode == X86_HIST_K1, any_t = false;
    for (uint32_t t = 0; k1x && t < nt; t++)
        for (unsigned p = 0; p < 4; p++) {
            const x86_listeners_t *l = &m->th[t].lst[p];
            for (uint32_t j = 0; j < l->n_tgen; j++) /* own ones (not any_any) */
                k1x = k1x && l->tgen[j]->cmask <= 1 && !l->tgen[j]->fmask;
            any_t = any_t || l->n_tgen;
        }
    if (k1x && any_t) {
        m->hist_mode = X86_HIST_K1X;
        for (uint32_t t = 0; t < nt; t++)
            for (unsigned p = 0; p < 4; p++) {
                x86_listeners_t *l = &m->th[t].lst[p];
                for (uint32_t j = 0; j < l->n_tgen; j++)
                    l->hgen[l->n_hgen++] = l->tgen[j];
                l->n_tgen = 0;
            }
    }
    /* other thresholds beside the hgen ones, none with EDGE: when each
     * thread's fit two thresholds of one occurrence count (x86_two_fits()),
     * they join its hgen listeners and the X86_HIST_TWO variants keep two
     * met counts */
    bool two = m->hist_mode == X86_HIST_ANY || m->hist_mode == X86_HIST_INSN ||
               m->hist_mode == X86_HIST_K1;
    bool two_t = false;
    for (uint32_t t = 0; two && t < nt; t++)
        for (unsigned p = 0; two && p < 4; p++) {
            const x86_listeners_t *l = &m->th[t].lst[p];
            two = x86_two_fits(l, NULL, NULL, NULL);
            two_t = two_t || l->n_tgen;
        }
    m->hist_two1 = two && two_t;
    m->hist_two_f = false;
    if (two && two_t) {
        m->hist_mode = X86_HIST_TWO;
        for (uint32_t t = 0; t < nt; t++)
            for (unsigned p = 0; p < 4; p++) {
                x86_listeners_t *l = &m->th[t].lst[p];
                if (!l->n_hgen)
                    continue;
                x86_two_fits(l, &l->hgen_uops, &l->hgen_k, &l->hgen_k2);
                if (l->hgen_k > l->hgen_k2) { /* the lower one first (either serves) */
                    const uint64_t k1 = l->hgen_k2;
                    l->hgen_k2 = l->hgen_k;
                    l->hgen_k = k1;
                }
                /* the raw-uops form takes every record as one uop at least */
                m->hist_two1 = m->hist_two1 && l->hgen_uops && l->hgen_k == 1 &&
                               l->hgen_k2 >= 2 && !l->hgen_fmask;
                m->hist_two_f = m->hist_two_f || l->hgen_fmask;
                for (uint32_t j = 0; j < l->n_tgen; j++)
                    l->hgen[l->n_hgen++] = l->tgen[j];
                l->n_tgen = 0;
            }
    }
    m->has_gen = m->loop_gen = m->loop_filt = m->fuse_loop = false;
    for (uint32_t t = 0; t < nt; t++)
        for (unsigned p = 0; p < 4; p++) {
            x86_listeners_t *l = &m->th[t].lst[p];
            m->has_gen = m->has_gen || l->n_gen;
            for (uint32_t j = 0; j < l->n_gen; j++)
                m->fuse_loop = m->fuse_loop || l->gen[j]->fmask;
            /* the X86_HIST_GEN variants take a fused record's uop off the
             * running counts of groups (x86_fast_grp_fused()), not off the
             * tgen listeners, which they feed from those */
            const uint32_t nfl = l->n_dgen + (m->hist_mode == X86_HIST_GEN ? 0 : l->n_tgen);
            for (uint32_t j = 0; j < nfl; j++) {
                x86_ctr_t *c = j < l->n_dgen ? l->dgen[j] : l->tgen[j - l->n_dgen];
                if (c->fmask)
                    l->fused[l->n_fused++] = c;
            }
            /* the X86_HIST_GEN variants feed the tgen listeners from groups */
            m->loop_gen = m->loop_gen || l->n_dgen || (l->n_tgen && m->hist_mode != X86_HIST_GEN);
            m->loop_filt = m->loop_filt || l->n_ffilt;
        }
    m->thresh_fast = x86_thresh_fast_ok(m);
    m->gen_fast = x86_gen_fast_ok(m);
    m->grps_ok = false;
    x86_rates_update(m);
}

/* ---- the cycle machinery ---- */

static void x86_raise_pending(x86_model_t *m, uint64_t cycle)
{
    while (m->pending_pmi) {
        uint32_t mask = m->pending_pmi;
        m->pending_pmi = 0;
        for (uint32_t t = 0; t < m->base.nthreads; t++) {
            if (!(mask & (1u << t)))
                continue;
            x86_thread_t *th = &m->th[t];
            /* SDM Vol. 3B §18 (IA32_DEBUGCTL): with FREEZE_PERFMON_ON_PMI a PMI
             * request clears the enable bits of IA32_PERF_GLOBAL_CTRL. */
            th->pmi_cycle = cycle;
            if ((th->debugctl & X86_DEBUGCTL_FREEZE_PERFMON_ON_PMI) && th->global_ctrl) {
                th->global_ctrl = 0;
                th->frozen = true;
                pmusim_model_log(&m->base, cycle, t,
                                 "freeze on PMI: IA32_PERF_GLOBAL_CTRL cleared");
                x86_recompile(m);
            }
            m->base.pmi_ip = th->last_ip; /* the front door's sample IP */
            pmusim_model_pmi(&m->base, cycle, t);
        }
    }
}

/* Whether the overflows of the lazy counters up to a rate change can be
 * taken in closed form: nobody observes the individual interrupts (no
 * handler installed), none of them freezes counting, and no PEBS counter
 * writes a record per overflow. */
static bool x86_wraps_collapsible(const x86_model_t *m)
{
    if (m->base.pmi_handler)
        return false;
    for (uint32_t i = 0; i < m->n_lazy; i++) {
        const x86_ctr_t *c = m->lazy[i];
        if (!c->rate)
            continue;
        const x86_thread_t *th = &m->th[c->thread];
        if (c->pebs || (c->intr && (th->debugctl & X86_DEBUGCTL_FREEZE_PERFMON_ON_PMI) &&
                        th->global_ctrl))
            return false;
    }
    return true;
}

typedef struct x86_wrap_run {
    x86_ctr_t *c;
    uint64_t wraps;
    uint64_t last; /* cycle of the last wrap */
} x86_wrap_run_t;

/* Takes every overflow of the lazy counters in [now, horizon) at once, in
 * O(counters) whatever the number of wraps (issue 15 item 3): each counter's
 * wraps W and the cycle of the last one follow from value + rate x cycles;
 * the log gets one line per counter, `overflow (xW)` at the last wrap's
 * cycle, in cycle order, and one `interrupt` line for its W PMIs (pmi_count
 * counts all W).  No rate changes before `horizon`. */
static void x86_collapse_wraps(x86_model_t *m, uint64_t horizon)
{
    x86_wrap_run_t runs[X86_LISTENERS];
    uint32_t n = 0;
    for (uint32_t i = 0; i < m->n_lazy; i++) {
        x86_ctr_t *c = m->lazy[i];
        if (horizon <= c->since)
            continue;
        const x86_u128 modulus = (x86_u128)c->max + 1;
        uint64_t frac;
        x86_u128 total = (x86_u128)c->value + x86_lazy_incs(c, horizon - c->since, &frac);
        x86_u128 wraps = total / modulus;
        if (wraps) {
            /* the cycle in which the increments reach wraps x modulus - value */
            x86_u128 cycles = x86_lazy_cycles_for(c, wraps * modulus - c->value);
            runs[n].c = c;
            runs[n].wraps = x86_u128_sat(wraps);
            runs[n].last = c->since + (uint64_t)cycles - 1;
            n++;
        }
        c->value = (uint64_t)(total % modulus);
        c->ref_frac = frac;
        c->since = horizon;
    }
    for (uint32_t i = 1; i < n; i++) /* insertion sort by cycle: n is small */
        for (uint32_t j = i; j > 0 && runs[j].last < runs[j - 1].last; j--) {
            x86_wrap_run_t t = runs[j];
            runs[j] = runs[j - 1];
            runs[j - 1] = t;
        }
    for (uint32_t i = 0; i < n; i++) {
        x86_overflow(m, runs[i].c, runs[i].last, runs[i].wraps, NULL);
        if (runs[i].c->intr) {
            m->base.pmi_count += runs[i].wraps - 1;
            x86_raise_pending(m, runs[i].last);
        }
    }
}

/* Overflows handled one by one in one move before the rest are collapsed. */
#define X86_WRAP_WALK_MAX 64u

/* Moves time to `target`, handling in order each overflow or rate change of
 * a lazy counter on the way; after X86_WRAP_WALK_MAX of them, the overflows
 * up to the next rate change are taken at once when nothing observes them
 * one by one (x86_collapse_wraps). */
static void x86_run_events(x86_model_t *m, uint64_t target)
{
    uint32_t walked = 0;
    while (m->deadline <= target && m->deadline != X86_NEVER) {
        if (++walked > X86_WRAP_WALK_MAX && x86_wraps_collapsible(m)) {
            uint64_t horizon = target;
            for (uint32_t i = 0; i < m->n_lazy; i++)
                if (m->lazy[i]->rate_until < horizon)
                    horizon = m->lazy[i]->rate_until;
            if (horizon > m->now) {
                x86_collapse_wraps(m, horizon);
                m->now = horizon;
                x86_deadline_update(m);
                walked = 0;
                continue;
            }
        }
        uint64_t T = m->deadline;
        /* the counters due by T (a rate change, a wrap); the others stay
         * lazy, their events where they were (x86_deadline_refresh()) */
        for (uint32_t i = 0; i < m->n_lazy; i++)
            if (m->lazy[i]->next_ev <= T)
                x86_ctr_sync(m, m->lazy[i], T);
        m->now = T;
        for (uint32_t i = 0; i < m->n_lazy; i++) {
            x86_ctr_t *c = m->lazy[i];
            if (c->rate_until > T)
                continue;
            if (c->cls == X86_CLS_OUTSTANDING) {
                x86_out_update(m, c, T);
            } else {
                c->rate = 0;
                c->rate_until = X86_NEVER;
            }
        }
        x86_raise_pending(m, T - 1);
        x86_deadline_refresh(m, T);
    }
    /* nothing happens before the deadline: the counters stay lazy */
    m->now = target;
}

/* Closes the open cycle: the thresholded counters compare its occurrences,
 * the lazy counters run to its end, and its PMIs are delivered.  Time stays
 * at the cycle; the caller moves it. */
static void x86_close_cycle(x86_model_t *m)
{
    uint64_t cur = m->cur;
    for (uint32_t i = 0; i < m->n_thresh; i++) {
        x86_ctr_t *c = m->thresh[i];
        uint64_t v = x86_src_is_clock(c->src) ? x86_cycle_v(m, c) : c->acc;
        c->acc = 0;
        bool cond = x86_gate(m, c) && x86_thresh_cond(c, v);
        bool inc = c->edge ? cond && !c->prev_cond : cond;
        c->prev_cond = cond;
        c->obs_v = v;
        c->obs_fired = inc;
        if (inc)
            x86_ctr_add(m, c, 1, cur, NULL);
    }
    if (m->deadline <= cur + 1)
        x86_run_events(m, cur + 1);
    else
        m->now = cur + 1; /* nothing lazy happens in this cycle */
    if (m->pending_pmi)
        x86_raise_pending(m, cur);
}

/* Gaps of at most this many cycles are closed one cycle at a time when
 * thresholded counters exist: cheaper than switching the lazy counters to
 * gap mode and back (two rate recomputations), with the same outcome. */
#define X86_SHORT_GAP 8u

/* Closes the open cycle and moves time to `c2` (> cur). */
static void x86_advance_span(x86_model_t *m, uint64_t c2)
{
    if (m->n_thresh && c2 - m->cur <= X86_SHORT_GAP) {
        while (m->cur + 1 < c2) {
            x86_close_cycle(m);
            m->cur = m->now = m->cur + 1;
        }
    }
    uint64_t cur = m->cur;
    x86_close_cycle(m);
    if (c2 > cur + 1) {
        if (m->n_thresh) {
            m->gap_mode = true;
            x86_rates_update(m);
        }
        x86_run_events(m, c2);
        if (m->gap_mode) {
            m->gap_mode = false;
            x86_rates_update(m);
        }
    }
    m->cur = m->now = c2;
}

/* Current value of a counter including what is accrued lazily. */
static uint64_t x86_ctr_peek(const x86_model_t *m, const x86_ctr_t *c)
{
    uint64_t v = c->value;
    if (c->unit) /* no wrap is pending: the budget would have triggered it */
        v += x86_tally(&m->th[c->thread], c) - c->unit_snap;
    if (c->cls != X86_CLS_OFF && c->cls != X86_CLS_DIRECT && m->now > c->since && c->rate) {
        uint64_t stop = m->now < c->rate_until ? m->now : c->rate_until;
        uint64_t frac;
        if (stop > c->since)
            v += (uint64_t)x86_lazy_incs(c, stop - c->since, &frac); /* no wrap is pending */
    }
    return v & c->max;
}

/* ---- per-cycle observation (pmusim wave) ---- */

/* The counters in report() order: per thread, IA32_PMC0.. then the fixed. */
static x86_ctr_t *x86_report_ctr(x86_model_t *m, uint32_t t, uint32_t k)
{
    return &m->th[t].ctr[k < m->d->n_gp ? k : X86_FIXED_SLOT(k - m->d->n_gp)];
}

static void x86_obs_snapshot(x86_model_t *m)
{
    for (uint32_t t = 0; t < m->base.nthreads; t++)
        for (uint32_t k = 0; k < m->d->n_gp + X86_NUM_FIXED; k++) {
            const x86_ctr_t *c = x86_report_ctr(m, t, k);
            m->obs_value[t][k] = x86_ctr_peek(m, c);
            m->obs_wraps[t][k] = c->overflows;
        }
}

/* Cycle `cycle` has just been closed: one probe per counter to the observer. */
static void x86_obs_emit(x86_model_t *m, uint64_t cycle)
{
    pmusim_counter_probe_t probes[X86_MAX_THREADS * X86_NCTR];
    size_t n = 0;
    for (uint32_t t = 0; t < m->base.nthreads; t++) {
        const x86_thread_t *th = &m->th[t];
        for (uint32_t k = 0; k < m->d->n_gp + X86_NUM_FIXED; k++) {
            const x86_ctr_t *c = x86_report_ctr(m, t, k);
            pmusim_counter_probe_t *p = &probes[n++];
            memset(p, 0, sizeof *p);
            p->value = x86_ctr_peek(m, c);
            uint64_t wraps = c->overflows - m->obs_wraps[t][k];
            p->increment = wraps * (c->max + 1) + p->value - m->obs_value[t][k];
            p->overflow = wraps != 0;
            bool thresholded = c->cls == X86_CLS_THRESH;
            p->conditioned = thresholded;
            p->cond = thresholded ? c->prev_cond : 1;
            p->edge = thresholded && c->edge && c->obs_fired;
            p->raw = thresholded ? c->obs_v : p->increment;
            p->frozen = th->frozen;
            p->interrupt = th->pmi_cycle == cycle;
            m->obs_value[t][k] = p->value;
            m->obs_wraps[t][k] = c->overflows;
        }
    }
    m->obs_fn(&m->base, cycle, probes, n, m->obs_user);
}

/* x86_advance_span() one cycle at a time through the observed window (the
 * cycles before and after it keep their O(1) gaps). */
static void x86_advance(x86_model_t *m, uint64_t c2)
{
    x86_thr_unready(m);
    if (G_LIKELY(!m->obs_fn || m->cur >= m->obs_to || c2 < m->obs_from)) {
        x86_advance_span(m, c2);
        return;
    }
    while (m->cur < c2) {
        uint64_t cycle = m->cur;
        if (cycle < m->obs_from) {
            x86_advance_span(m, m->obs_from); /* closes `cycle`, skips to the window */
            x86_obs_snapshot(m);
        } else if (cycle < m->obs_to) {
            x86_advance_span(m, cycle + 1);
            x86_obs_emit(m, cycle);
            if (cycle + 1 == m->obs_to)
                x86_deadline_update(m); /* the fast path may resume */
        } else {
            x86_advance_span(m, c2);
        }
    }
}

void x86_observe_cycles(pmusim_model_t *base, uint64_t from, uint64_t to,
                        pmusim_cycle_observer_fn fn, void *user)
{
    x86_model_t *m = x86_of(base);
    x86_thr_unready(m);
    m->obs_fn = fn;
    m->obs_user = user;
    m->obs_from = from > m->cur ? from : m->cur;
    m->obs_to = to;
    if (m->obs_from == m->cur)
        x86_obs_snapshot(m);
    x86_deadline_update(m);
}

static void x86_state_changed(x86_model_t *m)
{
    if (m->n_lazy)
        x86_rates_update(m);
}

/* ---- the hot path ---- */

/* The data cache line of both Westmere and Knights Mill (docs/trace-events-x86.md,
 * "Line splits"). */
#define X86_LINE_BYTES 64u

/* 1 when the bytes of memory part m, [addr, addr + size), lie in two (or
 * more) 64-byte lines: a line split. */
static inline unsigned x86_mem_split(const pmusim_mem_t *m)
{
    return (unsigned)(m->addr & (X86_LINE_BYTES - 1)) + m->size > X86_LINE_BYTES;
}

/* Request-type part of the offcore match (docs/sim-x86.md, offcore):
 * offcore record r's request bit in MSR_OFFCORE_RSP value msr of layout
 * `layout`. */
static inline bool x86_oc_req_bits(unsigned layout, uint64_t msr, const pmusim_rec_t *r)
{
    if (!(r->flags & PMUSIM_F_OFFCORE))
        return false;
    if (layout == X86_OC_WSM)
        return r->oc.req < 8 && ((msr >> r->oc.req) & 1);
    return ((msr >> 15) & 1) || (r->oc.req < 15 && ((msr >> r->oc.req) & 1));
}

/* Whether offcore record r matches MSR_OFFCORE_RSP value msr of layout
 * `layout` (request, supplier and snoop bits). */
static inline bool x86_oc_msr_match(unsigned layout, uint64_t msr, const pmusim_rec_t *r)
{
    if (!x86_oc_req_bits(layout, msr, r))
        return false;
    uint8_t sup = r->oc.supplier;
    if (layout == X86_OC_WSM)
        return sup >= 8 && sup < 16 && ((msr >> sup) & 1);
    if ((msr >> 16) & 1) /* ANY_RESPONSE */
        return true;
    if (!(sup > 16 && sup < 38 && ((msr >> sup) & 1)))
        return false;
    return r->oc.snoop == PMUSIM_OFFCORE_NONE || (r->oc.snoop < 38 && ((msr >> r->oc.snoop) & 1));
}

static inline bool x86_filter_match1(const x86_filter_t *f, const pmusim_rec_t *r)
{
    if ((r->flags & f->need_flags) != f->need_flags)
        return false;
    if (f->need_flags & PMUSIM_F_MEM) {
        if (r->mem.level >= 32 || r->mem.tlb >= 32)
            return false;
        if (!((f->mem_dir >> (r->mem.is_store != 0)) & 1) || !((f->lvl_mask >> r->mem.level) & 1) ||
            !((f->tlb_mask >> r->mem.tlb) & 1) || r->mem.latency < f->lat_ge)
            return false;
        /* only the split rows (RECYCLEQ:LD/ST_SPLITS) have a condition on
         * it: the others pay one test */
        if (G_UNLIKELY(f->split != UINT32_MAX) && !((f->split >> x86_mem_split(&r->mem)) & 1))
            return false;
    }
    if (f->need_flags & PMUSIM_F_OFFCORE) {
        /* an OFFCORE_RESPONSE counter's MSR, or a table row's request bits */
        if (G_UNLIKELY(f->oc_by_msr)) {
            if (!x86_oc_msr_match(f->oc_by_msr - 1u, f->oc_msr, r))
                return false;
        } else if (r->oc.req >= 32 || !((f->oc_req >> r->oc.req) & 1)) {
            return false;
        }
    }
    if (f->need_flags & PMUSIM_F_BRANCH) {
        if (r->br.kind >= 32)
            return false;
        unsigned misp = !(r->br.dir_ok && r->br.tgt_ok);
        if (!((f->br_kind >> r->br.kind) & 1) || !((f->br_taken >> (r->br.taken != 0)) & 1) ||
            !((f->br_misp >> misp) & 1))
            return false;
    }
    /* FP/SIMD class and operation kind conditions: only FILTER rows with
     * fpc= or opk= and no part (need_flags 0) have them
     * (gen_x86_events.py), so the others pass them in one test, after
     * their own */
    return f->need_flags || ((f->fp_class >> PMUSIM_REC_FPCLASS(r->flags)) &
                             (f->op_kind >> PMUSIM_REC_OPKIND(r->flags)) & 1);
}

/* x86_filter_match1(), or for a counter of several field-derived unit-mask
 * bits (n_any) whether one of its bits' filters matches: the counter's
 * own condition is the flags all of them need, tested first. */
static inline bool x86_filter_match(const x86_filter_t *f, const pmusim_rec_t *r)
{
    if (G_LIKELY(!f->n_any))
        return x86_filter_match1(f, r);
    if ((r->flags & f->need_flags) != f->need_flags)
        return false;
    for (uint32_t b = 0; b < f->n_any; b++)
        if (x86_filter_match1(&f->any_of[b], r))
            return true;
    return false;
}

static inline bool x86_oc_req_match(const x86_model_t *m, uint64_t msr, const pmusim_rec_t *r)
{
    return x86_oc_req_bits(m->d->oc_layout, msr, r);
}

static inline bool x86_oc_match(const x86_model_t *m, uint64_t msr, const pmusim_rec_t *r)
{
    return x86_oc_msr_match(m->d->oc_layout, msr, r);
}

/* x86_ctr_next_event() of an OUTSTANDING counter, whose increments are
 * core cycles (ratio 1/1: x86_lazy_cycles_for()'s 64-bit case; fewer than
 * 2^48 increments to a wrap), inline. */
static inline uint64_t x86_out_next_event(const x86_ctr_t *c)
{
    uint64_t ev = c->rate_until;
    if (c->rate) {
        const uint64_t incs = c->max - c->value + 1;
        const uint64_t need = incs > c->ref_frac ? incs - c->ref_frac : 0;
        const uint64_t ov =
            x86_sat_add(c->since, c->rate == 1 ? need : (need + c->rate - 1) / c->rate);
        if (ov < ev)
            ev = ov;
    }
    return ev;
}

/* OUTSTANDING counter c: record r, in the open cycle `cur` (before every
 * lazy event: c's sync to it takes no wrap), starts a request; returns c's
 * next event. */
static inline uint64_t x86_outstanding_push(x86_model_t *m, x86_ctr_t *c, const pmusim_rec_t *r,
                                           uint64_t cur)
{
    x86_ctr_sync(m, c, cur); /* the others' rates do not change */
    /* an "evspan" EVENT record of n: n cycles (n >= 1, x86_count_event()) */
    uint64_t lat = c->span ? r->n : r->oc.latency ? r->oc.latency : 1;
    x86_heap_push(&c->out_ends, x86_sat_add(cur, lat));
    x86_out_update(m, c, cur);
    c->next_ev = x86_out_next_event(c);
    return c->next_ev;
}

static void x86_outstanding_start(x86_model_t *m, x86_ctr_t *c, const pmusim_rec_t *r)
{
    /* only c changed: the deadline can only come closer through it.  If
     * its own event moved later (INV: a start ends a stretch) the deadline
     * stays early, where x86_run_events() finds nothing due and computes
     * it again: the same counts, one sync more (issue 12 item 2: the full
     * x86_deadline_update() per start was half the replay's cost with a
     * 0x60 counter) */
    const uint64_t ev = x86_outstanding_push(m, c, r, m->now);
    if (ev < m->deadline)
        x86_deadline_set(m, ev);
}

/* Whether counter c's filter (FILTER: one, BITS: any of its bits) holds for r. */
static inline bool x86_ctr_match(const x86_ctr_t *c, const pmusim_rec_t *r)
{
    /* FILTER, or BITS: its filter is any of its bits' (x86_ctr_compile()) */
    return x86_filter_match(&c->f, r);
}

/* A MEM record matching the `once` counter c: true when it is the first
 * record of its instruction to do so (neither the INSN record, mem_head,
 * nor an earlier MEM record matched), so that c counts the instruction. */
static bool x86_once_first(x86_model_t *m, x86_ctr_t *c)
{
    if (c->once_id == m->mem_insn)
        return false;
    c->once_id = m->mem_insn;
    return !x86_ctr_match(c, &m->mem_head);
}

/* FPMMX counter c and an x87 or mmx INSN record r: 1 when r is a
 * transition that c counts (an x87 or MMX instruction after one of the
 * other on its thread; docs/trace-events-x86.md, FP_MMX_TRANS); r's class
 * becomes the thread's last. */
static inline uint64_t x86_fpmmx_step(x86_ctr_t *c, const pmusim_rec_t *r)
{
    const unsigned cls = PMUSIM_REC_FPCLASS(r->flags);
    uint8_t *last = &c->fpmmx_last[r->thread % PMUSIM_MAX_THREADS];
    const uint64_t occ = *last && *last != cls && ((c->fpmmx_occ >> cls) & 1);
    *last = (uint8_t)cls;
    return occ;
}

/* A filter listener with fstep matched INSN record r (in the open cycle,
 * m->cur and m->now): an FPMMX counter steps its state and counts a
 * transition, a 0x60 counter starts a request (x86_outstanding_start()).
 * Returns whether the counter wrapped (it is left past max for
 * x86_ctr_wrapped()). */
static __attribute__((noinline)) bool x86_filt_step(x86_model_t *m, x86_ctr_t *c,
                                                    const pmusim_rec_t *r)
{
    if (c->src == X86_SRC_OUTSTANDING) {
        x86_outstanding_start(m, c, r);
        return false;
    }
    const uint64_t occ = x86_fpmmx_step(c, r);
    if (c->cls == X86_CLS_THRESH) {
        c->acc += occ; /* compared at the cycle's close */
        return false;
    }
    c->value += occ;
    return c->value > c->max;
}

/* The listeners that need a dispatch on their source (kept out of line so
 * that the common path of x86_consume stays small). */
static __attribute__((noinline)) void x86_count_gen(x86_model_t *m, const x86_listeners_t *l,
                                                    const pmusim_rec_t *r)
{
    for (uint32_t k = 0; k < l->n_gen; k++) {
        x86_ctr_t *c = l->gen[k];
        uint64_t occ;
        if (r->kind != PMUSIM_REC_INSN && (c->src == X86_SRC_INSN || c->src == X86_SRC_UOPS))
            continue; /* a MEM record is not an instruction */
        switch (c->src) {
        case X86_SRC_INSN:
            occ = 1;
            break;
        case X86_SRC_UOPS:
            occ = x86_uops_weight(r, c->fmask);
            break;
        case X86_SRC_FILTER:
        case X86_SRC_BITS:
            occ = x86_ctr_match(c, r) &&
                  (!c->once || r->kind != PMUSIM_REC_MEM || x86_once_first(m, c));
            break;
        case X86_SRC_LDLAT:
            occ = (r->flags & PMUSIM_F_MEM) && !r->mem.is_store && r->mem.latency > c->lat_min;
            break;
        case X86_SRC_OFFCORE:
            occ = x86_oc_match(m, c->oc_msr, r);
            break;
        case X86_SRC_OUTSTANDING:
            /* knm: the request bits of MSR_OFFCORE_RSP_0; wsm 0x60: its row's filter */
            if (c->out_msr ? x86_oc_req_match(m, c->oc_msr, r) : x86_filter_match(&c->f, r))
                x86_outstanding_start(m, c, r);
            continue;
        case X86_SRC_FPMMX: {
            const unsigned cls = PMUSIM_REC_FPCLASS(r->flags);
            if (r->kind != PMUSIM_REC_INSN || (cls != PMUSIM_FPC_X87 && cls != PMUSIM_FPC_MMX))
                continue;
            occ = x86_fpmmx_step(c, r);
            break;
        }
        default:
            occ = 0;
            break;
        }
        if (!occ)
            continue;
        if (G_UNLIKELY(c->pebs_armed))
            x86_pebs_assist(m, c, r);
        if (c->cls == X86_CLS_DIRECT) {
            c->value += occ;
            if (c->value > c->max)
                x86_ctr_wrapped(m, c, m->cur, r);
        } else {
            c->acc += occ;
        }
    }
}

/* Whether an EVENT record of `key` (code | umask << 8) counts on counter c
 * (EXPLICIT, or BITS with EVENT bits): the same key, or, when some umask
 * bits come from EVENT rows (c->ev_bits), the same code and a umask of one
 * of those bits.  A record of the whole umask does not count then: a model
 * writes one per bit, so it would count twice (docs/trace-events-x86.md). */
static inline bool x86_ev_match(const x86_ctr_t *c, uint16_t key)
{
    if (!c->ev_bits)
        return c->ev_key == key;
    const unsigned um = key >> 8;
    return (key & 0xff) == (c->ev_key & 0xff) && um && !(um & (um - 1)) && (um & c->ev_bits);
}

static void x86_count_event(x86_model_t *m, x86_thread_t *th, const pmusim_rec_t *r)
{
    if (r->ev_code > 0xff || r->ev_umask > 0xff)
        return;
    uint16_t key = (uint16_t)(r->ev_code | (r->ev_umask << 8));
    const unsigned plm = r->plm & 3; /* the ring the occurrences happened in */
    m->ev_seen[key / 64] |= 1ull << (key % 64);
    for (uint32_t k = 0; k < th->n_ev; k++) {
        x86_ctr_t *c = th->ev_lst[k];
        if (!x86_ev_match(c, key) || !((c->plm_mask >> plm) & 1))
            continue;
        if (G_UNLIKELY(c->pebs_armed) && r->n)
            x86_pebs_assist(m, c, r);
        if (c->cls == X86_CLS_DIRECT) {
            x86_ctr_add(m, c, r->n, m->cur, r);
        } else if (c->span) {
            if (r->n) /* one interval from this cycle (x86_outstanding_push()) */
                x86_outstanding_start(m, c, r);
        } else {
            c->acc += r->n;
        }
    }
}

/* A filter listener's record matched: an armed PEBS counter takes its
 * assist first (this is its next qualifying event), then the count. */
static inline void x86_filt_count(x86_model_t *m, x86_ctr_t *ct, const pmusim_rec_t *r)
{
    if (G_UNLIKELY(ct->fstep)) { /* no PEBS (x86_ctr_compile()) */
        if (x86_filt_step(m, ct, r))
            x86_ctr_wrapped(m, ct, m->cur, r);
        return;
    }
    if (G_UNLIKELY(ct->pebs_armed))
        x86_pebs_assist(m, ct, r);
    if (ct->cls == X86_CLS_THRESH)
        ct->acc++; /* compared at the cycle's close */
    else if (G_UNLIKELY(++ct->value > ct->max))
        x86_ctr_wrapped(m, ct, m->cur, r);
}

/* A further memory access of the thread's last instruction (format v2 MEM
 * record): it feeds every memory event (loads, stores, misses, latency) but
 * no instruction or uop count; the record's `flags` are not meaningful, so
 * it is matched as a record holding only `mem`. */
static void x86_count_mem(x86_model_t *m, const x86_thread_t *th, const pmusim_rec_t *r)
{
    pmusim_rec_t mr = *r;
    mr.flags = PMUSIM_F_MEM;
    const x86_listeners_t *l = &th->lst[r->plm & 3];
    if (l->filt_flags & PMUSIM_F_MEM) {
        for (uint32_t k = 0; k < l->n_filt; k++) {
            x86_ctr_t *ct = l->filt[k];
            if ((ct->f.need_flags & PMUSIM_F_MEM) && x86_filter_match(&ct->f, &mr) &&
                (!ct->once || x86_once_first(m, ct)))
                x86_filt_count(m, ct, &mr);
        }
    }
    if (l->n_gen)
        x86_count_gen(m, l, &mr);
}

/* Whether x86_consume_fast() may run: no thread has listeners that need a
 * dispatch on their source, and no PMI waits for delivery. */
static inline bool x86_fast_ok(const x86_model_t *m)
{
    /* thresholded counters or dispatched listeners the fast loop cannot
     * serve: the general path does */
    return (m->thresh_fast || !m->n_thresh) && (m->gen_fast || !m->has_gen) && !m->pending_pmi &&
           !m->general_only &&
           !m->n_armed;
}

_Static_assert(X86_LISTENERS <= 32, "a listener index fits a 32-bit mask");

/* The wraps of x86_consume_fast(), in listener order. */
static __attribute__((noinline)) void x86_fast_wraps(x86_model_t *m, const x86_listeners_t *l,
                                                     uint32_t wrapped, uint32_t gwrapped,
                                                     const pmusim_rec_t *r)
{
    while (wrapped) {
        unsigned j = (unsigned)__builtin_ctz(wrapped);
        wrapped &= wrapped - 1;
        x86_ctr_wrapped(m, l->ffilt[j], m->cur, r);
    }
    while (gwrapped) {
        unsigned j = (unsigned)__builtin_ctz(gwrapped);
        gwrapped &= gwrapped - 1;
        x86_ctr_wrapped(m, l->dgen[j], m->cur, r);
    }
}

/* The common case of x86_consume() with the open cycle in a local: INSN
 * records of a thread that stays at its privilege level, whose unit
 * counters cannot wrap, counted by filter listeners only, in cycles below
 * fast_limit (nothing lazy happens before it).  Returns the index of the
 * first record it did not consume; it also stops right after a record whose
 * counter wrapped, so the caller delivers the PMI between records as the
 * general path does. */
/* With thresholded counters (x86_thresh_fast_ok()), inside
 * x86_consume_fast(): makes the pending closes of c, those of the cycles
 * thr_cycle .. cur - 1, as x86_advance_span() makes them with nothing lazy
 * due (one cycle at a time for a gap of up to X86_SHORT_GAP cycles, in gap
 * mode beyond: the same outcome), in closed form: the first compares the
 * occurrences gathered (acc), the others those of a cycle without records,
 * whose condition is thr_cond0.  Gate and threshold are folded into
 * thr_k and thr_inv when the loop starts (the condition of v occurrences
 * is (v >= thr_k) != thr_inv; x86_thr_prepare()).  A counter's closes are
 * made when it next counts, or when the loop ends, so that a cycle change
 * costs nothing; the loop takes no more cycles than the least room below a
 * wrap of these counters (each close adds at most 1), so no close wraps,
 * and gate and condition do not change while it runs (no privilege level
 * or activity change).  obs_v and obs_fired are left alone: only
 * x86_obs_emit() reads them, right after x86_close_cycle() set them. */
static inline __attribute__((always_inline)) void x86_thr_touch(x86_ctr_t *c, uint64_t cur)
{
    if (G_LIKELY(c->thr_cycle == cur))
        return;
    const uint64_t span = cur - c->thr_cycle;
    const bool cond1 = (c->acc >= c->thr_k) != c->thr_inv;
    const bool inc1 = c->edge ? cond1 && !c->prev_cond : cond1;
    if (G_LIKELY(span == 1)) {
        c->value += inc1;
        c->prev_cond = cond1;
    } else {
        const bool cond0 = c->thr_cond0;
        /* with EDGE a rising edge at most at the second close */
        c->value += (uint64_t)inc1 + (c->edge ? (uint64_t)(cond0 && !cond1) : cond0 ? span - 1 : 0);
        c->prev_cond = cond0;
    }
    c->acc = 0;
    c->thr_cycle = cur;
}

/* At the start of x86_consume_fast(): thresholded counter c's gate and
 * threshold as x86_thr_touch() tests them.  A cycle source's occurrences
 * are the same in every cycle of the loop, so its condition is a constant. */
static void x86_thr_prepare(const x86_model_t *m, x86_ctr_t *c, uint64_t cur)
{
    const bool gate = x86_gate(m, c);
    c->thr_cycle = cur;
    if (x86_src_is_clock(c->src)) {
        c->thr_cond0 = gate && x86_thresh_cond(c, x86_cycle_v(m, c));
        c->thr_k = 0; /* (v >= 0) != !cond0: cond0 whatever v */
        c->thr_inv = !c->thr_cond0;
    } else if (!gate) {
        c->thr_cond0 = false;
        c->thr_k = UINT64_MAX; /* acc never reaches it */
        c->thr_inv = false;
    } else {
        c->thr_cond0 = x86_thresh_cond(c, 0);
        c->thr_k = c->cmask ? c->cmask : 1; /* x86_thresh_cond() */
        c->thr_inv = c->cmask && c->inv;
    }
}

/* The least room below a wrap of the thresholded counters. */
static uint64_t x86_thresh_room(const x86_model_t *m)
{
    uint64_t room = UINT64_MAX;
    for (uint32_t i = 0; i < m->n_thresh; i++)
        if (m->thresh[i]->max - m->thresh[i]->value < room)
            room = m->thresh[i]->max - m->thresh[i]->value;
    return room;
}

/* At the end of x86_consume_fast(): every thresholded counter's pending
 * closes, up to the open cycle cur. */
static void x86_thr_flush(x86_model_t *m, uint64_t cur)
{
    for (uint32_t i = 0; i < m->n_thresh; i++)
        x86_thr_touch(m->thresh[i], cur);
}

/* Inside x86_consume_fast(), per thread with hgen listeners (x86_listeners_t):
 * instead of closing each counter at each of its cycles (x86_thr_touch()),
 * the loop keeps running counts for the thread, updated without a branch
 * at each of its INSN records: the loop takes the records in cycle order
 * (it ends at a record whose cycle is below the open one), so a thread's
 * records of one cycle are consecutive among its own and its open cycle
 * changes only forward.  `occ` holds the occurrences (instructions, or
 * uops: the hgen listeners of a thread share one source) of its open cycle
 * `cyc`; a cycle meets the threshold k at the record that takes `occ` from
 * below k to k or more (`met` counts those cycles).  A count without EDGE
 * adds one per cycle whose occurrences meet its condition: the met cycles,
 * or with INV all the others, empty ones included.  The counts are made at
 * the end (x86_hist_flush()), which takes out again the loop's part of
 * cycle cur0 (whose occurrences before the loop each counter holds in
 * `acc`) and the open cycle, so that the loop needs no test for them.
 * EDGE counts (`lim` 1) count instead the met cycles whose previous cycle
 * did not meet: the k1 variants keep the cycle of the previous record
 * (x86_hist_flush1()), the X86_HIST_EDGE ones the last met cycle
 * (x86_hist_flush_edge()), the X86_HIST_GEN ones that of each group
 * (x86_grps_t); with INV an EDGE count is that of the falling edges of the
 * met cycles, which follows from the rising ones and the first and last
 * cycles (x86_hist_edge()). */
typedef struct x86_hist {
    uint64_t cyc;   /* the thread's open cycle (k1: of its previous record) */
    uint64_t occ;   /* its occurrences so far (not k1) */
    uint64_t k;     /* the threshold (hgen_k; no hgen listener: never met) */
    uint64_t met;   /* cycles that met k (k1: see x86_hist_flush1()) */
    uint64_t k2;    /* X86_HIST_TWO: the second threshold (hgen_k2) */
    uint64_t met2;  /* X86_HIST_TWO: cycles that met k2 */
    uint32_t wmask; /* UINT32_MAX: the occurrences are uops (hgen_uops), 0: instructions */
    uint16_t fmask; /* hgen_fmask: a fused record weighs one less (x86_uops_weight()) */
    bool edge;      /* hgen_edge: `met` counts rising edges (k1 only) */
} x86_hist_t;

/* Occurrences of INSN record r for the running counts: its uops (0 counts
 * as 1) with wmask all-ones, else 1. */
static inline uint64_t x86_hist_weight(const pmusim_rec_t *r, uint32_t wmask)
{
    const uint64_t w = r->uops & wmask;
    return w + (w == 0);
}

/* x86_hist_weight() for the closes of the X86_HIST_ANY and X86_HIST_EDGE
 * variants (x86_hist_flush(), x86_hist_flush_edge()), whose running counts
 * may be of uops with fmask: a fused record's weight one less. */
static inline uint64_t x86_hist_weight_f(const pmusim_rec_t *r, const x86_hist_t *h)
{
    return x86_hist_weight(r, h->wmask) - ((r->flags & h->fmask) == X86_F_FUSED_BITS);
}

/* The uops of INSN record r (0 counting as 1) for the closes of the
 * X86_HIST_TWO variants (x86_hist_flush2(), x86_two_ends()), whose uop
 * counts may have fmask: a fused record one less. */
static inline uint64_t x86_hist_uops_f(const pmusim_rec_t *r, const x86_hist_t *h)
{
    return x86_hist_weight(r, UINT32_MAX) - ((r->flags & h->fmask) == X86_F_FUSED_BITS);
}

/* At the start of x86_consume_fast(): thread's running counts for its
 * hgen listeners l, at cycle cur0. */
static void x86_hist_init(x86_hist_t *h, const x86_listeners_t *l, uint64_t cur0)
{
    h->cyc = cur0;
    h->occ = 0;
    h->k = l->n_hgen ? l->hgen_k : UINT64_MAX;
    h->k2 = l->n_hgen ? l->hgen_k2 : UINT64_MAX;
    h->met = h->met2 = 0;
    h->wmask = l->hgen_uops ? UINT32_MAX : 0;
    h->fmask = l->n_hgen ? l->hgen_fmask : 0;
    h->edge = l->n_hgen && l->hgen_edge;
}

/* At the end of x86_consume_fast(), for a group of hgen counters with EDGE
 * (x86_hist_flush(), x86_hist_flush1()): counter c's count of cycles cur0
 * + 1 .. end - 1 from `edges`, the rising edges of the met cycles the loop
 * counted (it counts none at cycle cur0 + 1, whose previous cycle cur0 it
 * cannot judge), `met1` (cycle cur0 + 1 is closed and met) and `met_e1`
 * (cycle end - 1 is after cur0 and met); after0: cycle end - 1 is after
 * cur0.  x86_thr_touch() has closed cycle cur0 and left its condition in
 * prev_cond; c's gate is open (the condition is "met" != thr_inv).  An INV
 * count counts the rising edges of the cycles that do not meet, that is the
 * falling edges of the met ones: over cycles a .. b, the rising edges less
 * the falling ones of a condition are its value in b less that in a - 1. */
static inline void x86_hist_edge(x86_ctr_t *c, uint64_t edges, bool met1, bool met_e1,
                                 bool after0)
{
    const bool met0 = c->prev_cond != c->thr_inv; /* cycle cur0 met */
    const uint64_t rise = edges + (met1 && !met0);
    if (!c->thr_inv)
        c->value += rise;
    else if (after0)
        c->value += rise - met_e1 + met0;
    if (after0)
        c->prev_cond = met_e1 != c->thr_inv;
}

/* At the end of x86_consume_fast() (records recs[k0..k) taken, from cycle
 * cur0 to the open cycle `end`): the closes of thread t's hgen counters.
 * Cycle cur0 still open (the thread has no record in a later cycle): its
 * occurrences go to `acc` and x86_thr_flush() makes the closes.  Else cycle
 * cur0 (its occurrences in the loop, counted again from the records, plus
 * `acc`) is closed through x86_thr_touch(), and the cycles from cur0 + 1 to
 * end - 1 from the running counts: without the loop's part of cycle cur0
 * (counted as met if its occurrences in the loop reached k), and without
 * cycle `end` if it met.  The counters are left at cycle `end` with its
 * occurrences so far in `acc`, as x86_thr_touch() leaves them
 * (x86_thr_flush() then has nothing to do for them).  A counter whose gate
 * is closed (thr_k is not k, x86_thr_prepare()) counts nothing after cycle
 * cur0. */
static __attribute__((noinline)) void x86_hist_flush(x86_hist_t *h, const x86_listeners_t *l,
                                                     const pmusim_rec_t *recs, size_t k0,
                                                     size_t k, uint32_t t, uint64_t cur0,
                                                     uint64_t end)
{
    if (h->cyc == cur0) {
        for (uint32_t j = 0; j < l->n_hgen; j++)
            l->hgen[j]->acc += h->occ;
        return;
    }
    uint64_t occ0 = 0;
    for (size_t i = k0; i < k && recs[i].cycle == cur0; i++)
        if (recs[i].kind == PMUSIM_REC_INSN && recs[i].thread == t)
            occ0 += x86_hist_weight_f(&recs[i], h);
    const uint64_t kk = h->k;
    const bool open = h->cyc == end;
    const uint64_t met = h->met - (occ0 >= kk) - (open && h->occ >= kk);
    for (uint32_t j = 0; j < l->n_hgen; j++) {
        x86_ctr_t *c = l->hgen[j];
        c->acc += occ0;
        x86_thr_touch(c, cur0 + 1);
        if (c->thr_k == kk) /* else its gate is closed */
            c->value += c->thr_inv ? (end - cur0 - 1) - met : met;
        c->thr_cycle = end;
        c->acc = open ? h->occ : 0;
    }
}

/* x86_hist_flush() with EDGE (the X86_HIST_EDGE variants): the loop
 * counted no edge at cycles cur0 and cur0 + 1 (its last met cycle starts
 * at cur0), so cycle `end` counted one if it met and cycle end - 1, after
 * cur0, did not (the occurrences of both counted again backwards from the
 * last record), and x86_hist_edge() adds cycle cur0 + 1's. */
static __attribute__((noinline)) void x86_hist_flush_edge(x86_hist_t *h,
                                                          const x86_listeners_t *l,
                                                          const pmusim_rec_t *recs, size_t k0,
                                                          size_t k, uint32_t t, uint64_t cur0,
                                                          uint64_t end)
{
    if (h->cyc == cur0) {
        for (uint32_t j = 0; j < l->n_hgen; j++)
            l->hgen[j]->acc += h->occ;
        return;
    }
    uint64_t occ0 = 0, occ1 = 0; /* cycles cur0 and cur0 + 1 */
    for (size_t i = k0; i < k && recs[i].cycle - cur0 < 2; i++)
        if (recs[i].kind == PMUSIM_REC_INSN && recs[i].thread == t) {
            if (recs[i].cycle == cur0)
                occ0 += x86_hist_weight_f(&recs[i], h);
            else
                occ1 += x86_hist_weight_f(&recs[i], h);
        }
    const uint64_t kk = h->k;
    const bool open = h->cyc == end, after0 = end - 1 != cur0;
    uint64_t occ_e1 = !open && h->cyc == end - 1 ? h->occ : 0; /* cycle end - 1 */
    if (open)
        for (size_t i = k; i > k0 && recs[i - 1].cycle + 1 >= end; i--) {
            const pmusim_rec_t *r = &recs[i - 1];
            if (r->kind == PMUSIM_REC_INSN && r->thread == t && r->cycle != end)
                occ_e1 += x86_hist_weight_f(r, h);
        }
    const bool met_end = open && h->occ >= kk, met_e1 = after0 && occ_e1 >= kk;
    const bool met1 = cur0 + 1 != end && occ1 >= kk;
    const uint64_t edges = h->met - (met_end && after0 && !met_e1);
    for (uint32_t j = 0; j < l->n_hgen; j++) {
        x86_ctr_t *c = l->hgen[j];
        c->acc += occ0;
        x86_thr_touch(c, cur0 + 1); /* prev_cond: the condition of cycle cur0 */
        if (c->thr_k == kk) /* else its gate is closed */
            x86_hist_edge(c, edges, met1, met_e1, after0);
        c->thr_cycle = end;
        c->acc = open ? h->occ : 0;
    }
}

/* The X86_HIST_GEN variants of x86_consume_fast() (x86_grps_t, kept in the
 * model): running counts per group of thresholded counts of instructions or uops that the same
 * threads feed (a thread's own counters; with AnyThread the threads of
 * the core at a privilege level the counter counts) with the same source,
 * threshold and EDGE or not, so that one thread may feed several groups
 * (two thresholds, or its own counts and a sibling's AnyThread ones).
 * Built when the loop starts from the threads' hgen and tgen listeners at
 * their privilege levels, which do not change while it runs.  Per group
 * the loop keeps (in its own arrays, which nothing else may alias) the open
 * cycle `cyc` of its records, their occurrences `occ` in it, the cycles
 * that met the threshold (with EDGE, `lim` 1, those whose previous cycle
 * did not: `last` is the last met cycle, from cur0 so that none is counted
 * at cycle cur0 + 1, without EDGE from cur0 - 1) in `met`. */

_Static_assert(X86_LISTENERS <= 256 && X86_MAX_THREADS <= 32,
               "a group index fits a uint8_t, a thread a bit of x86_grps_t.feed");

/* At the start of the X86_HIST_GEN variants: the groups of the counters
 * the threads' listeners lst[0..nth) feed with running counts. */
static __attribute__((noinline)) void x86_grps_build(x86_grps_t *gr,
                                                     const x86_listeners_t *const *lst,
                                                     uint32_t nth)
{
    x86_ctr_t *cs[X86_LISTENERS];
    uint32_t feed[X86_LISTENERS], gid[X86_LISTENERS], nc = 0;
    for (uint32_t t = 0; t < nth; t++) {
        const x86_listeners_t *l = lst[t];
        for (uint32_t j = 0; j < l->n_hgen + l->n_tgen; j++) {
            x86_ctr_t *c = j < l->n_hgen ? l->hgen[j] : l->tgen[j - l->n_hgen];
            uint32_t i = 0;
            while (i < nc && cs[i] != c)
                i++;
            if (i == nc) {
                cs[nc] = c;
                feed[nc++] = 0;
            }
            feed[i] |= 1u << t;
        }
    }
    gr->n = 0;
    gr->any_fm = false;
    for (uint32_t i = 0; i < nc; i++) {
        const x86_ctr_t *c = cs[i];
        const uint64_t k = c->cmask ? c->cmask : 1; /* x86_thr_prepare() */
        const uint32_t wm = c->src == X86_SRC_UOPS ? UINT32_MAX : 0;
        uint32_t g = 0;
        while (g < gr->n && !(gr->feed[g] == feed[i] && gr->k[g] == k && gr->wm[g] == wm &&
                              gr->edge[g] == c->edge && gr->fm[g] == c->fmask))
            g++;
        if (g == gr->n) {
            gr->feed[g] = feed[i];
            gr->k[g] = k;
            gr->wm[g] = wm;
            gr->fm[g] = c->fmask;
            gr->any_fm = gr->any_fm || c->fmask;
            gr->edge[g] = c->edge;
            gr->n_ctr[g] = 0;
            gr->n++;
        }
        gid[i] = g;
        gr->n_ctr[g]++;
    }
    for (uint32_t g = 0, f = 0; g < gr->n; g++) {
        gr->first[g] = f;
        f += gr->n_ctr[g];
        gr->n_ctr[g] = 0;
    }
    for (uint32_t i = 0; i < nc; i++)
        gr->ctr[gr->first[gid[i]] + gr->n_ctr[gid[i]]++] = cs[i];
    for (uint32_t t = 0; t < nth; t++) {
        gr->n_of[t] = 0;
        for (uint32_t g = 0; g < gr->n; g++)
            if ((gr->feed[g] >> t) & 1)
                gr->of[t][gr->n_of[t]++] = (uint8_t)g;
    }
}

/* The occurrences of INSN record r for the running count of a group of
 * weight mask wm and fmask fm (x86_grps_t): x86_hist_weight(), a fused
 * record one less when fm is set. */
static inline uint64_t x86_grp_weight(const pmusim_rec_t *r, uint32_t wm, uint16_t fm)
{
    return x86_hist_weight(r, wm) - ((r->flags & fm) == X86_F_FUSED_BITS);
}

/* At the end of the X86_HIST_GEN variants: group g's closes, as
 * x86_hist_flush() makes them for one thread (the occurrences of cycles
 * cur0 and with EDGE cur0 + 1, end - 1 and end counted again from the
 * records of the threads that feed it).  With EDGE the loop counted no
 * edge at cycles cur0 and cur0 + 1, so cycle `end` counted one if it met
 * and cycle end - 1, after cur0, did not, and x86_hist_edge() adds cycle
 * cur0 + 1's. */
static __attribute__((noinline)) void x86_grp_flush(const x86_grps_t *gr, uint32_t g,
                                                    uint64_t cyc, uint64_t occ, uint64_t gmet,
                                                    const pmusim_rec_t *recs, size_t k0,
                                                    size_t k, uint64_t cur0, uint64_t end)
{
    x86_ctr_t *const *cs = &gr->ctr[gr->first[g]];
    const uint32_t nc = gr->n_ctr[g], feed = gr->feed[g], wm = gr->wm[g];
    const uint16_t fm = gr->fm[g];
    if (cyc == cur0) {
        for (uint32_t j = 0; j < nc; j++)
            cs[j]->acc += occ;
        return;
    }
    const bool edge = gr->edge[g];
    uint64_t occ0 = 0, occ1 = 0; /* cycles cur0 and (EDGE) cur0 + 1 */
    for (size_t i = k0; i < k && recs[i].cycle - cur0 <= (uint64_t)edge; i++)
        if (recs[i].kind == PMUSIM_REC_INSN && ((feed >> recs[i].thread) & 1)) {
            if (recs[i].cycle == cur0)
                occ0 += x86_grp_weight(&recs[i], wm, fm);
            else
                occ1 += x86_grp_weight(&recs[i], wm, fm);
        }
    const uint64_t kk = gr->k[g];
    const bool open = cyc == end, after0 = end - 1 != cur0;
    uint64_t occ_e1 = !open && cyc == end - 1 ? occ : 0; /* cycle end - 1 */
    if (open && edge)
        for (size_t i = k; i > k0 && recs[i - 1].cycle + 1 >= end; i--) {
            const pmusim_rec_t *r = &recs[i - 1];
            if (r->kind == PMUSIM_REC_INSN && ((feed >> r->thread) & 1) && r->cycle != end)
                occ_e1 += x86_grp_weight(r, wm, fm);
        }
    const bool met_end = open && occ >= kk, met_e1 = after0 && occ_e1 >= kk;
    const bool met1 = cur0 + 1 != end && occ1 >= kk;
    const uint64_t met = gmet - (occ0 >= kk) - met_end;          /* without EDGE */
    const uint64_t edges = gmet - (met_end && after0 && !met_e1); /* with EDGE */
    for (uint32_t j = 0; j < nc; j++) {
        x86_ctr_t *c = cs[j];
        c->acc += occ0;
        x86_thr_touch(c, cur0 + 1); /* prev_cond: the condition of cycle cur0 */
        if (c->thr_k == kk && edge) /* else its gate is closed */
            x86_hist_edge(c, edges, met1, met_e1, after0);
        else if (c->thr_k == kk)
            c->value += c->thr_inv ? (end - cur0 - 1) - met : met;
        c->thr_cycle = end;
        c->acc = open ? occ : 0;
    }
}

/* For x86_grp_flush() after the X86_HIST_GK1 variants, which keep the
 * cycle of the group's last record (cur0 - 1 before the first) and no
 * occurrences: that cycle, cur0 when there was no record, and its
 * occurrences counted again from the records of the one group's threads
 * (every thread's INSN records the loop took); the others pass theirs. */
static inline uint64_t x86_grp_cyc(uint64_t cyc, uint64_t cur0, unsigned hmode)
{
    return hmode == X86_HIST_GK1 && cyc == cur0 - 1 ? cur0 : cyc;
}

static inline uint64_t x86_grp_occ(const x86_grps_t *gr, uint64_t cyc, uint64_t occ,
                                   const pmusim_rec_t *recs, size_t k0, size_t k,
                                   uint64_t cur0, unsigned hmode)
{
    if (hmode != X86_HIST_GK1)
        return occ;
    if (cyc == cur0 - 1)
        return 0;
    /* records the loop took that are not INSN may follow in later cycles */
    uint64_t o = 0;
    for (size_t i = k; i > k0 && recs[i - 1].cycle >= cyc; i--)
        if (recs[i - 1].cycle == cyc && recs[i - 1].kind == PMUSIM_REC_INSN &&
            ((gr->feed[0] >> recs[i - 1].thread) & 1))
            o += x86_hist_weight(&recs[i - 1], gr->wm[0]);
    return o;
}

/* The k1 variants of x86_consume_fast(): every thread with hgen listeners
 * has threshold 1, and those of a thread have all EDGE or none.  A cycle
 * meets threshold 1 when the thread has a record in it, whatever the
 * weights, so the loop keeps no occurrences: per thread the cycle of its
 * previous record (`cyc`, from cur0) and in `met` the number of its
 * records whose cycle is more than `lim` past that one: 0 without EDGE (a
 * cycle after cur0 with records), 1 with EDGE (a cycle whose previous
 * cycle has no record of the thread, an edge unless that cycle is cur0). */
/* x86_hist_flush() for the k1 variants: the occurrences of cycles cur0,
 * cur0 + 1 (forward) and end - 1, end (backward) are counted again from
 * the records.  Without EDGE the count is `met` less the open cycle `end`;
 * with EDGE `met` less the open cycle's edge (when cycle end - 1, after
 * cur0, has no record) plus cycle cur0 + 1's when it has records, is
 * closed and cycle cur0 did not meet (the loop never counts it: the thread
 * starts at cycle cur0), or with INV the falling edges (x86_hist_edge()). */
/* For x86_hist_flush1(): per thread, the occurrences of its INSN records
 * in cycles cur0 and `end` as instructions [0] and as uops [1] (X86_HIST_K1X:
 * a thread's counters may count either), its records in cycle cur0 + 1,
 * and whether it has one in cycle end - 1; counted again from the records
 * the loop took, recs[k0..k) (in cycle order), in one pass forward and one
 * backward for every thread. */
typedef struct x86_k1_ends {
    uint64_t occ0[2], occ1, occ_end[2];
    bool rec_e1;
} x86_k1_ends_t;

static __attribute__((noinline)) void x86_k1_ends(const pmusim_rec_t *recs, size_t k0, size_t k,
                                                  uint64_t cur0, uint64_t end, uint32_t nth,
                                                  x86_k1_ends_t *e)
{
    memset(e, 0, nth * sizeof e[0]);
    for (size_t i = k0; i < k && recs[i].cycle - cur0 < 2; i++)
        if (recs[i].kind == PMUSIM_REC_INSN) {
            x86_k1_ends_t *et = &e[recs[i].thread];
            if (recs[i].cycle == cur0) {
                et->occ0[0]++;
                et->occ0[1] += x86_hist_weight(&recs[i], UINT32_MAX);
            } else {
                et->occ1++;
            }
        }
    for (size_t i = k; i > k0 && recs[i - 1].cycle + 1 >= end; i--) {
        const pmusim_rec_t *r = &recs[i - 1];
        if (r->kind == PMUSIM_REC_INSN) {
            x86_k1_ends_t *et = &e[r->thread];
            if (r->cycle == end) {
                et->occ_end[0]++;
                et->occ_end[1] += x86_hist_weight(r, UINT32_MAX);
            } else {
                et->rec_e1 = true;
            }
        }
    }
}

static __attribute__((noinline)) void x86_hist_flush1(x86_hist_t *h, const x86_listeners_t *l,
                                                      const x86_k1_ends_t *e, uint64_t cur0,
                                                      uint64_t end, uint64_t met_a, uint64_t met_e)
{
    const uint64_t *occ0 = e->occ0, occ1 = e->occ1;
    if (h->cyc == cur0) {
        for (uint32_t j = 0; j < l->n_hgen; j++)
            l->hgen[j]->acc += occ0[l->hgen[j]->src == X86_SRC_UOPS];
        return;
    }
    const bool open = h->cyc == end;
    /* the thread's last record is in cycle h->cyc (< end when not open), so
     * it has one in cycle end - 1 exactly when the backward pass found one;
     * not open, it has none in cycle `end` */
    const uint64_t *occ_end = e->occ_end;
    const bool rec_before_end = e->rec_e1; /* cycle end - 1 has records */
    const uint64_t after0 = end - 1 != cur0; /* cycle end - 1 is after cur0 */
    const uint64_t met = met_a - open;                                   /* without EDGE */
    const uint64_t edges = met_e - (open & after0 & !rec_before_end); /* with EDGE */
    const bool rec1 = (cur0 + 1 != end) & (occ1 != 0); /* cycle cur0 + 1 closed, records */
    for (uint32_t j = 0; j < l->n_hgen; j++) {
        x86_ctr_t *c = l->hgen[j];
        const bool u = c->src == X86_SRC_UOPS;
        c->acc += occ0[u];
        x86_thr_touch(c, cur0 + 1); /* prev_cond: the condition of cycle cur0 */
        if (c->thr_k == 1 && c->edge) {
            x86_hist_edge(c, edges, rec1, after0 && rec_before_end, after0);
        } else if (c->thr_k == 1) {
            c->value += c->thr_inv ? (end - cur0 - 1) - met : met;
        } /* else its gate is closed: x86_thr_touch() left prev_cond false */
        c->thr_cycle = end;
        c->acc = occ_end[u];
    }
}

/* Before x86_hist_flush2() (the X86_HIST_TWO variants, cycle `end` after
 * cur0): every thread's instructions and uops (0 as 1; a fused record one
 * less when its running count hs[t] has fmask) in cycle `end`, in
 * e[t].occ_end, from one pass backward for all threads (the loop's last
 * cycle holds a record of each of knm's four threads). */
static __attribute__((noinline)) void x86_two_ends(const pmusim_rec_t *recs, size_t k0, size_t k,
                                                   uint64_t end, uint32_t nth, x86_k1_ends_t *e,
                                                   const x86_hist_t *hs)
{
    for (uint32_t t = 0; t < nth; t++)
        e[t].occ_end[0] = e[t].occ_end[1] = 0;
    for (size_t i = k; i > k0 && recs[i - 1].cycle == end; i--) {
        const pmusim_rec_t *r = &recs[i - 1];
        if (r->kind == PMUSIM_REC_INSN && r->thread < nth) {
            e[r->thread].occ_end[0]++;
            e[r->thread].occ_end[1] += x86_hist_uops_f(r, &hs[r->thread]);
        }
    }
}

/* x86_hist_flush() for the X86_HIST_TWO variants: the thread's counters
 * count instructions or uops against one of two thresholds k and k2, met
 * by the occurrences of the running count's source (wmask); a counter of
 * the other source has threshold 1, met by a cycle with records either
 * way, but its `acc` holds its own source's occurrences, so those of
 * cycles cur0 (counted again here) and `end` (occ_end, x86_two_ends()) are
 * counted again from the records for both. */
static __attribute__((noinline)) void x86_hist_flush2(x86_hist_t *h, const x86_listeners_t *l,
                                                      const pmusim_rec_t *recs, size_t k0,
                                                      size_t k, uint32_t t, uint64_t cur0,
                                                      uint64_t end, const uint64_t *occ_end)
{
    /* cycle cur0 in the loop: instructions [0], uops [1] (with fmask, all
     * the counters count uops: x86_two_fits()) */
    uint64_t occ0[2] = {0, 0};
    for (size_t i = k0; i < k && recs[i].cycle == cur0; i++)
        if (recs[i].kind == PMUSIM_REC_INSN && recs[i].thread == t) {
            occ0[0]++;
            occ0[1] += x86_hist_uops_f(&recs[i], h);
        }
    if (h->cyc == cur0) {
        for (uint32_t j = 0; j < l->n_hgen; j++)
            l->hgen[j]->acc += occ0[l->hgen[j]->src == X86_SRC_UOPS];
        return;
    }
    const bool open = h->cyc == end; /* else occ_end is 0, 0 */
    const uint64_t o0 = occ0[h->wmask != 0]; /* in the running count's source */
    const uint64_t met = h->met - (o0 >= h->k) - (open && h->occ >= h->k);
    const uint64_t met2 = h->met2 - (o0 >= h->k2) - (open && h->occ >= h->k2);
    for (uint32_t j = 0; j < l->n_hgen; j++) {
        x86_ctr_t *c = l->hgen[j];
        const bool u = c->src == X86_SRC_UOPS;
        c->acc += occ0[u];
        x86_thr_touch(c, cur0 + 1);
        if (c->thr_k == h->k || c->thr_k == h->k2) { /* else its gate is closed */
            const uint64_t mc = c->thr_k == h->k ? met : met2;
            c->value += c->thr_inv ? (end - cur0 - 1) - mc : mc;
        }
        c->thr_cycle = end;
        c->acc = occ_end[u];
    }
}

/* x86_hist_flush() or with k1 x86_hist_flush1(), with the loop's cyc, occ
 * and met of the thread back in h. */
static inline void x86_hist_flush_any(x86_hist_t *h, uint64_t cyc, uint64_t occ, uint64_t met,
                                      uint64_t met2, unsigned hmode, const x86_k1_ends_t *ke,
                                      const x86_listeners_t *l,
                                      const pmusim_rec_t *recs, size_t k0, size_t k, uint32_t t,
                                      uint64_t cur0, uint64_t end)
{
    h->cyc = cyc;
    h->occ = occ;
    h->met = met;
    if (hmode == X86_HIST_K1X) /* met: records past their cycle's start, met2: edges */
        x86_hist_flush1(h, l, &ke[t], cur0, end, met, met2);
    else if (hmode == X86_HIST_TWO || hmode == X86_HIST_TWO_F ||
             hmode == X86_HIST_TWO_1) { /* met2: the cycles that met k2 */
        h->met2 = met2;
        x86_hist_flush2(h, l, recs, k0, k, t, cur0, end, ke[t].occ_end);
    }
    else if (hmode == X86_HIST_K1) /* met: the one kind the thread has */
        x86_hist_flush1(h, l, &ke[t], cur0, end, met, met);
    else if (h->edge)
        x86_hist_flush_edge(h, l, recs, k0, k, t, cur0, end);
    else
        x86_hist_flush(h, l, recs, k0, k, t, cur0, end);
}

/* The occurrences of a thread's open cycle from the loop's h_occ: the
 * several-thread X86_HIST_INSN variants keep there the thread's records
 * before that cycle (`seen` less them are its occurrences). */
static inline uint64_t x86_hist_occ(uint64_t h_occ, uint64_t seen, bool single, unsigned hmode)
{
    if (hmode == X86_HIST_ANY_U || hmode == X86_HIST_TWO_1 || hmode == X86_HIST_EDGE_U)
        /* raw uops; no record: 0 */
        return seen ? h_occ + (h_occ == 0) : 0;
    return hmode == X86_HIST_INSN && !single ? seen - h_occ : h_occ;
}

/* The met count (of the first threshold) from the loop's: X86_HIST_ANY_U
 * keeps those of a cycle's first record and of the others apart,
 * X86_HIST_TWO_1 the records that do not start a cycle, X86_HIST_K1X
 * (records past their previous one's cycle) the others. */
static inline uint64_t x86_hist_met(uint64_t h_met, uint64_t h_mets, uint64_t h_same,
                                    uint64_t seen, unsigned hmode)
{
    if (hmode == X86_HIST_ANY_U)
        return h_met + h_mets;
    if (hmode == X86_HIST_K1X) /* h_met: records in their previous one's cycle */
        return seen - h_met;
    return hmode == X86_HIST_TWO_1 ? seen - h_same : h_met;
}

/* The second met count from the loop's: X86_HIST_K1X keeps the records in
 * their previous one's cycle or the next (not edges), X86_HIST_TWO_1 those
 * of a cycle's first record and of the others apart. */
static inline uint64_t x86_hist_met2(uint64_t h_met2, uint64_t h_mets, uint64_t seen,
                                     unsigned hmode)
{
    if (hmode == X86_HIST_K1X)
        return seen - h_met2;
    return hmode == X86_HIST_TWO_1 ? h_met2 + h_mets : h_met2;
}

/* The thread's open cycle from the loop's h_cyc: X86_HIST_ANY_U and
 * X86_HIST_TWO_1 start it before cycle cur0, the others at cur0. */
static inline uint64_t x86_hist_cyc(uint64_t h_cyc, uint64_t seen, uint64_t cur0, unsigned hmode)
{
    return (hmode == X86_HIST_ANY_U || hmode == X86_HIST_TWO_1 || hmode == X86_HIST_EDGE_U) &&
                   !seen
               ? cur0
               : h_cyc;
}

/* Inside x86_consume_fast(): a record other than an INSN that the general
 * path would only note, taken in the loop (the mixed and stream traces
 * have one in 10 to 20; ending the loop at each cost more than the loop
 * saves): a MARKER; an EVENT of a thread whose counters count no EVENT
 * records (x86_count_event() would only note that it was seen); an IDLE
 * that keeps its thread's privilege level (only the end of the trace
 * moves).  Returns false for the general path. */
static inline bool x86_fast_other(x86_model_t *m, const pmusim_rec_t *r, uint32_t nth,
                                  const unsigned *plm_of, uint64_t cur)
{
    if (r->thread >= nth)
        return false;
    switch (r->kind) {
    case PMUSIM_REC_MARKER:
        return true;
    case PMUSIM_REC_EVENT:
        if (r->ev_code <= 0xff && r->ev_umask <= 0xff) {
            uint16_t key = (uint16_t)(r->ev_code | (r->ev_umask << 8));
            /* a record one of the thread's EVENT listeners takes goes to
             * the general path (x86_count_event()); any other only marks
             * its key seen, as there (a model's trace has many EVENT
             * records that no counter takes) */
            const x86_thread_t *th = &m->th[r->thread];
            for (uint32_t k = 0; k < th->n_ev; k++)
                if (x86_ev_match(th->ev_lst[k], key))
                    return false;
            m->ev_seen[key / 64] |= 1ull << (key % 64);
        }
        return true;
    case PMUSIM_REC_IDLE:
        if ((r->plm & 3u) != plm_of[r->thread])
            return false;
        if (x86_sat_add(cur, r->n) > m->end)
            m->end = x86_sat_add(cur, r->n);
        return true;
    default:
        return false;
    }
}

/* Inside x86_consume_fast(): whether offcore INSN record r starts a
 * request of a 0x60 counter of listener set l (the general path's
 * x86_filt_step() does it). */
static inline bool x86_fast_oc_starts(const x86_listeners_t *l, const pmusim_rec_t *r)
{
    for (uint32_t j = 0; j < l->n_ofilt; j++)
        if (x86_filter_match(&l->ofilt[j]->f, r))
            return true;
    return false;
}

/* Inside x86_consume_fast() (loop_oc_fast), offcore INSN record r of
 * listener set l's thread in the loop's cycle cur: the requests it starts
 * of l's OUTSTANDING counters, as the general path's x86_filt_step()
 * starts them (cur is below every lazy event, so no sync wraps); the
 * deadline comes closer as there (x86_outstanding_start()).  Returns the
 * loop's new limit (fast_hard, the deadline); x86_consume_fast() sets
 * fast_limit from the deadline when the loop ends. */
static __attribute__((noinline)) uint64_t x86_fast_oc_start(x86_model_t *m,
                                                            const x86_listeners_t *l,
                                                            const pmusim_rec_t *r, uint64_t cur)
{
    for (uint32_t j = 0; j < l->n_ofilt; j++) {
        x86_ctr_t *c = l->ofilt[j];
        if (x86_filter_match(&c->f, r)) {
            const uint64_t ev = x86_outstanding_push(m, c, r, cur);
            if (ev < m->deadline)
                m->deadline = ev;
        }
    }
    return m->deadline < m->fast_hard ? m->deadline : m->fast_hard;
}

/* Inside x86_consume_fast() (loop_oc_fast): a record in cycle c (past the
 * loop's cycle) is at or past the deadline.  When every lazy event up to c
 * is the end of a request of an OUTSTANDING counter without a threshold (a
 * change of its rate, the requests in flight) and no lazy counter wraps in
 * a cycle before c, takes those events in order as x86_run_events() takes
 * them, and returns the loop's new limit (fast_hard, the deadline: past
 * c); else changes nothing and returns 0 (the general path takes the whole
 * gap, its wraps and their interrupts, as before; also outside
 * loop_oc_fast and at fast_hard).  The test: in the gap a due counter's rate can only fall (no
 * request starts without a record), so rate x (c - since) bounds its
 * increments; the others' events are after c.  The rates of these counters
 * depend on nothing else (no gate), so the cycles' closes of the
 * thresholded counters, which the loop defers, may come after them.
 * m->deadline follows; x86_consume_fast() sets fast_limit from it when
 * the loop ends. */
static __attribute__((noinline)) uint64_t x86_fast_out_ends(x86_model_t *m, uint64_t c)
{
    if (!m->loop_oc_fast || c >= m->fast_hard || c >= m->fast_other_ev)
        return 0;
    for (uint32_t i = 0; i < m->n_outs; i++) {
        const x86_ctr_t *x = m->outs[i];
        if (x->next_ev <= c &&
            (x->out_thr || (x86_u128)x->rate * (c - x->since) > x->max - x->value))
            return 0;
    }
    /* each counter's events in turn: they are independent (no wrap, no
     * gate), so the state is the one x86_run_events() leaves */
    uint64_t dl = m->fast_other_ev;
    for (uint32_t i = 0; i < m->n_outs; i++) {
        x86_ctr_t *x = m->outs[i];
        while (x->next_ev <= c) {
            const uint64_t T = x->next_ev;
            x86_ctr_sync(m, x, T);
            if (x->rate_until <= T)
                x86_out_update(m, x, T);
            x->next_ev = x86_out_next_event(x);
        }
        if (x->next_ev < dl)
            dl = x->next_ev;
    }
    m->deadline = dl;
    return dl < m->fast_hard ? dl : m->fast_hard;
}

/* Inside x86_consume_fast(), INSN record r of listener set l's thread in
 * cycle cur: steps l's FP_MMX_TRANS counters (x86_fpmmx_step(); a record
 * of another class than x87 or mmx, or of the thread's last one, changes
 * nothing); a thresholded one gathers its transitions for the cycle's
 * close, as a thresholded filter listener does (x86_thr_touch(); the loop
 * runs with thresholded counters only when it prepared them).  Returns
 * false, having changed nothing, when a direct one would wrap: the general
 * path takes the record and the overflow. */
static inline bool x86_fast_fpmmx(const x86_listeners_t *l, const pmusim_rec_t *r, uint64_t cur)
{
    const unsigned cls = PMUSIM_REC_FPCLASS(r->flags), th = r->thread % PMUSIM_MAX_THREADS;
    if (cls != PMUSIM_FPC_X87 && cls != PMUSIM_FPC_MMX)
        return true;
    for (uint32_t j = 0; j < l->n_xfilt; j++) {
        const x86_ctr_t *c = l->xfilt[j];
        if (c->cls == X86_CLS_DIRECT && c->value == c->max && c->fpmmx_last[th] &&
            c->fpmmx_last[th] != cls && ((c->fpmmx_occ >> cls) & 1))
            return false;
    }
    for (uint32_t j = 0; j < l->n_xfilt; j++) {
        x86_ctr_t *c = l->xfilt[j];
        if (c->cls == X86_CLS_THRESH) {
            x86_thr_touch(c, cur);
            c->acc += x86_fpmmx_step(c, r);
        } else {
            c->value += x86_fpmmx_step(c, r);
        }
    }
    return true;
}

/* Inside x86_consume_fast() (fuse_loop), before it takes INSN record r of
 * kind fused with listeners l in cycle cur: the one uop less of r for each
 * dispatched uop count with fmask (x86_uops_weight()), taken off before
 * the loop adds r's uops, 1 or more, so that a count's value or `acc`
 * (after the pending closes of a thresholded one: x86_thr_touch()) goes
 * below its old value only until then, modulo 2^64, and the wrap test
 * after the add sees the weight's sum. */
static inline void x86_fast_fused(const x86_listeners_t *l, uint64_t cur)
{
    for (uint32_t j = 0, nf = l->n_fused; j < nf; j++) {
        x86_ctr_t *c = l->fused[j];
        if (c->cls == X86_CLS_DIRECT) {
            c->value--;
        } else {
            x86_thr_touch(c, cur);
            c->acc--;
        }
    }
}

/* Inside the X86_HIST_ANY, X86_HIST_EDGE and X86_HIST_TWO_F variants of x86_consume_fast()
 * (fuse_loop), before the loop's step of the running count of a thread
 * whose hgen listeners have fmask takes INSN record r of kind fused in
 * cycle cur: that step adds r's full weight w (x86_hist_weight(), 1 or
 * more) to the cycle's occurrences o0 so far (0 in a new cycle) in the
 * branch of a cycle already open, so the cycle is opened here and its
 * occurrences set to o0 - 1, modulo 2^64, which makes the step's sum
 * o0 + w - 1, r's weight one less.  Its met test (o0 - 1 < k <= o0 + w - 1)
 * then differs from the true one (o0 < k <= o0 + w - 1) by the difference
 * taken off `met` here (X86_HIST_ANY, X86_HIST_TWO_F; the latter's second
 * met count by x86_fast_fused_rec()); with EDGE the met step is made here
 * (h_last: the last met cycle) and the step's own one, when it comes
 * (o0 = k), finds h_last at cur and adds nothing. */
static inline void x86_fast_hist_fused(const pmusim_rec_t *r, uint64_t cur, bool edge,
                                       uint64_t *cyc, uint64_t *occ, uint64_t *met,
                                       uint64_t *last, uint64_t k, uint64_t lim)
{
    const uint64_t o0 = *cyc == cur ? *occ : 0;
    *cyc = cur;
    *occ = o0 - 1;
    if (!edge) {
        *met += (uint64_t)(o0 < k) - (uint64_t)(o0 - 1 < k);
        return;
    }
    const uint64_t o1 = o0 + x86_hist_weight(r, UINT32_MAX) - 1;
    if (o0 < k && o1 >= k) {
        *met += cur - *last > lim;
        *last = cur;
    }
}

/* The running counts of the groups of the X86_HIST_GEN variants inside
 * x86_consume_fast() (its arrays, x86_grps_t): for x86_fast_grp_fused(),
 * the groups a thread feeds (`of`, n; group 0 alone in X86_HIST_GU1). */
typedef struct x86_grp_run {
    const x86_grps_t *gr;
    const uint8_t *of;
    uint32_t n;
    uint64_t *cyc, *occ, *met, *last;
    const uint64_t *k, *lim;
    const uint32_t *wm;
} x86_grp_run_t;

/* x86_fast_hist_fused() for the groups of the X86_HIST_GEN and
 * X86_HIST_GU1 variants that thread's INSN record r of kind fused feeds in
 * cycle cur, those with fmask: the cycle is opened here and its
 * occurrences o0 so far set to o0 - 1, modulo 2^64, so that the loop's
 * step, which adds r's full weight w, leaves o0 + w - 1.  X86_HIST_GU1's
 * step counts the met cycles as (o0 < k) - (o1 < k): the difference of
 * its met test from the true one is taken off `met` here.  The
 * X86_HIST_GEN step's met test is (o0 < k) & (o1 >= k), to which o0 - 1
 * is all ones (nothing met) when o0 is 0: the met step (with EDGE, `last`
 * and `lim`) is made here, and the step's own one, when it comes, finds
 * `last` at cur and adds nothing (a met test true at o0 = k comes after
 * the cycle met, `last` at cur too). */
static inline __attribute__((always_inline)) void
x86_fast_grp_fused(const pmusim_rec_t *r, uint64_t cur, unsigned hmode, const x86_grp_run_t *gs)
{
    for (uint32_t j = 0; j < gs->n; j++) {
        const uint32_t g = hmode == X86_HIST_GU1 ? 0 : gs->of[j];
        if (!gs->gr->fm[g])
            continue;
        const uint64_t k = gs->k[g], o0 = gs->cyc[g] == cur ? gs->occ[g] : 0;
        if (hmode == X86_HIST_GU1) {
            gs->met[g] += (uint64_t)(o0 < k) - (uint64_t)(o0 - 1 < k);
        } else if (o0 < k && o0 + x86_hist_weight(r, gs->wm[g]) - 1 >= k) {
            gs->met[g] += cur - gs->last[g] > gs->lim[g];
            gs->last[g] = cur;
        }
        gs->cyc[g] = cur;
        gs->occ[g] = o0 - 1;
    }
}

/* Inside x86_consume_fast() (fuse_loop), at both places of its rare branch
 * where it takes an INSN record r of kind fused of a thread (the short path
 * at its head; after the FP_MMX_TRANS step or beside a request's start):
 * r's uop off the counts (x86_fast_fused()) and, in the X86_HIST_ANY,
 * X86_HIST_EDGE and X86_HIST_TWO_F variants when the thread's running count h
 * has fmask, off that count (x86_fast_hist_fused()); in the X86_HIST_GEN
 * and X86_HIST_GU1 ones off the running counts of the groups gs with
 * fmask that the thread feeds (x86_fast_grp_fused()).  full: the thread may take no more
 * records (seen = room); then nothing changes and false is returned, so
 * that the loop stops before r as at `take`.  The kind is tested by the
 * caller: with the test in here the single-thread X86_HIST_ANY loop took
 * 18,700 instructions more on the kinds capture (callgrind, gcc -O3). */
static inline __attribute__((always_inline)) bool
x86_fast_fused_rec(const pmusim_rec_t *r, uint64_t cur, const x86_listeners_t *l, bool full,
                   bool thr, unsigned hmode, const x86_hist_t *h, uint64_t *cyc, uint64_t *occ,
                   uint64_t *met, uint64_t *last, uint64_t k, uint64_t lim, uint64_t *met2,
                   uint64_t k2, const x86_grp_run_t *gs)
{
    if (full)
        return false;
    x86_fast_fused(l, cur);
    if (thr && (hmode == X86_HIST_GEN_F || hmode == X86_HIST_GU1))
        x86_fast_grp_fused(r, cur, hmode, gs);
    if (thr && (hmode == X86_HIST_ANY || hmode == X86_HIST_EDGE || hmode == X86_HIST_TWO_F) &&
        h->fmask) {
        if (hmode == X86_HIST_TWO_F) { /* as x86_fast_hist_fused() for threshold k2 */
            const uint64_t o0 = *cyc == cur ? *occ : 0;
            *met2 += (uint64_t)(o0 < k2) - (uint64_t)(o0 - 1 < k2);
        }
        x86_fast_hist_fused(r, cur, hmode == X86_HIST_EDGE, cyc, occ, met, last, k, lim);
    }
    return true;
}

/* At the start of x86_consume_fast(): the fold listeners of the threads'
 * listener sets lst[0..nth) take one increment per INSN record of each
 * thread that feeds them; room[t] (the thread's INSN records the loop may
 * take) is lowered so that none of them reaches a wrap: a counter fed by f
 * threads gives each a 1/f share of its room, so the wrapping record (and
 * its overflow, in listener order) is left to the general path. */
static void x86_fold_bound(const x86_listeners_t *const *lst, uint32_t nth, uint64_t *room)
{
    for (uint32_t t = 0; t < nth; t++)
        for (uint32_t j = 0; j < lst[t]->n_fold; j++)
            lst[t]->fold[j]->fold_n = 0;
    for (uint32_t t = 0; t < nth; t++)
        for (uint32_t j = 0; j < lst[t]->n_fold; j++)
            lst[t]->fold[j]->fold_n++;
    for (uint32_t t = 0; t < nth; t++)
        for (uint32_t j = 0; j < lst[t]->n_fold; j++) {
            const x86_ctr_t *c = lst[t]->fold[j];
            const uint64_t share = (c->max - c->value) / c->fold_n;
            if (share < room[t])
                room[t] = share;
        }
}

/* At the end of x86_consume_fast(): a thread's `seen` INSN records taken
 * go to its fold listeners. */
static inline void x86_fold_add(const x86_listeners_t *l, uint64_t seen)
{
    for (uint32_t j = 0; j < l->n_fold; j++)
        l->fold[j]->value += seen;
}

/* Single thread, at the end of x86_consume_fast(): the INSN records taken
 * in recs[k0..k) (all but n_other of them) and the last one's ip. */
static inline void x86_fast_single_tally(const pmusim_rec_t *recs, size_t k0, size_t k,
                                         size_t n_other, uint64_t *seen, uint64_t *last_ip)
{
    *seen = k - k0 - n_other;
    for (size_t i = k; i > k0; i--)
        if (recs[i - 1].kind == PMUSIM_REC_INSN) {
            *last_ip = recs[i - 1].ip;
            break;
        }
}

/* gcc -O3 (the release build) cannot see that the per-thread arrays of
 * x86_consume_fast_body() (h_cyc, h_occ, h_met, hs, ke, ...) are read only
 * for the threads whose flag set them (hm[], the thresholded and
 * outstanding listeners), and warns "may be used uninitialized" in every
 * variant; clearing them would cost 0.4-0.6 % of a plain replay
 * (docs/PERFORMANCE.md, h-knmavg).  The warning is off for the fast loop
 * alone, so that `scripts/bench.sh`'s -Dwerror release build succeeds. */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
/* x86_fast_fused_rec() of record r of thread t with the loop's state:
 * the two fused sites of the rare branch below */
#define X86_FAST_FUSED_REC()                                                                 \
    x86_fast_fused_rec(r, cur, lst[t], !single && seen[t] == room[t], thr, hmode,            \
                       &hs[t & (X86_MAX_THREADS - 1)], &h_cyc[t], &h_occ[t], &h_met[t],      \
                       &h_last[t], h_k[t], h_lim[t], two ? &h_met2[t] : NULL,               \
                       two ? h_k2[t] : 0,                                                    \
                       &(const x86_grp_run_t){gr, g_of[t & (X86_MAX_THREADS - 1)],           \
                                              hmode == X86_HIST_GEN_F ? g_n[t] : 1, g_cyc,   \
                                              g_occ, g_met, g_last, g_k, g_lim, g_wm})
static inline __attribute__((always_inline)) size_t
x86_consume_fast_body(x86_model_t *m, const pmusim_rec_t *recs, size_t k, size_t n,
                      const bool single, const bool thr, const bool gen, const bool filt,
                      const unsigned hmode)
{
    const uint32_t nth = single ? 1 : m->base.nthreads;
    const uint64_t cur0 = m->cur;
    uint64_t fast_limit = m->fast_limit;
    /* loop_oc_fast: the loop starts and ends OUTSTANDING counters'
     * requests (x86_fast_oc_start(), x86_fast_out_ends()), which move the
     * deadline; fast_hard is what bounds it besides the deadline (read in
     * those rare branches only, so that the loop keeps its registers) */
    m->fast_hard = fast_limit < m->deadline ? fast_limit : X86_NEVER;
    if (m->loop_oc_fast) {
        uint64_t oev = X86_NEVER;
        for (uint32_t i = 0; i < m->n_lazy; i++)
            if (m->lazy[i]->cls != X86_CLS_OUTSTANDING && m->lazy[i]->next_ev < oev)
                oev = m->lazy[i]->next_ev;
        m->fast_other_ev = oev;
    }
    uint64_t cur = cur0;
    const size_t k0 = k;
    size_t n_other = 0; /* single thread: records taken that are not INSN (x86_fast_other) */
    /* per thread, fixed while this runs: its privilege level, the listeners
     * of that level, and how many INSN records it may take before a unit
     * counter could wrap; then the records taken and the last one's ip
     * (single thread: every record taken is one of its INSN records, so
     * these follow from k) */
    unsigned plm_of[X86_MAX_THREADS];
    const x86_listeners_t *lst[X86_MAX_THREADS] = {NULL};
    uint64_t room[X86_MAX_THREADS], seen[X86_MAX_THREADS], last_ip[X86_MAX_THREADS];
    /* thresholded counters: per thread, the running counts of its hgen listeners */
    bool hm[X86_MAX_THREADS] = {false};
    x86_hist_t hs[X86_MAX_THREADS];
    x86_k1_ends_t ke[X86_MAX_THREADS]; /* the k1 and X86_HIST_TWO variants' flush (x86_k1_ends(), x86_two_ends()) */
    /* inside the loop, every thread's (those without hgen listeners never
     * meet k) cyc, occ, met, k and wmask of hs[] apart, and for the k1
     * variants its `lim`; the X86_HIST_GEN variants keep groups instead */
    uint64_t h_cyc[X86_MAX_THREADS], h_occ[X86_MAX_THREADS], h_met[X86_MAX_THREADS];
    uint64_t h_k[X86_MAX_THREADS], h_lim[X86_MAX_THREADS], h_last[X86_MAX_THREADS];
    uint64_t h_met2[X86_MAX_THREADS]; /* X86_HIST_K1X: records not edges (x86_hist_met2()); X86_HIST_TWO: k2's */
    uint64_t h_k2[X86_MAX_THREADS];   /* X86_HIST_TWO: the second threshold */
    /* X86_HIST_ANY_U, X86_HIST_TWO_1: the cycles that met (k2) at a record
     * that does not start its thread's cycle */
    uint64_t h_mets[X86_MAX_THREADS];
    /* X86_HIST_TWO_1: the thread's records that do not start its cycle
     * (the others start the cycles that met threshold 1) */
    uint64_t h_same[X86_MAX_THREADS];
    /* X86_HIST_GEN: the groups, and per thread the groups it feeds and per
     * group the running counts apart */
    const x86_grps_t *gr = &m->grps;
    const bool grp1 = hmode == X86_HIST_GEN1 || hmode == X86_HIST_GK1 || hmode == X86_HIST_GU1;
    const bool grp = hmode == X86_HIST_GEN || hmode == X86_HIST_GEN_F || grp1;
    /* X86_HIST_TWO: its second met count and threshold for
     * x86_fast_fused_rec() (none passed in the other variants) */
    const bool two = hmode == X86_HIST_TWO || hmode == X86_HIST_TWO_F;
    /* X86_HIST_GEN1 (instructions): the one group's occurrences in the
     * loop's open cycle `cur` (reset when it changes: every INSN record the
     * loop takes feeds the group), its met count and threshold */
    uint64_t g1_occ = 0, g1_met = 0, g1_k = grp1 ? m->grps.k[0] : 0;
    const uint32_t ngrp = grp1 ? 1 : gr->n;
    uint8_t g_of[X86_MAX_THREADS][X86_LISTENERS];
    uint32_t g_n[X86_MAX_THREADS], g_wm[X86_LISTENERS];
    uint64_t g_cyc[X86_LISTENERS], g_occ[X86_LISTENERS], g_met[X86_LISTENERS];
    uint64_t g_last[X86_LISTENERS], g_k[X86_LISTENERS], g_lim[X86_LISTENERS];
    uint32_t h_wm[X86_MAX_THREADS];
    for (uint32_t t = 0; t < nth; t++) {
        const x86_thread_t *th = &m->th[t];
        plm_of[t] = th->plm;
        lst[t] = &th->lst[th->plm];
        room[t] = th->unit_due - th->insn_seen - 1; /* unit_due > insn_seen */
        seen[t] = 0;
        last_ip[t] = th->last_ip;
    }
    x86_fold_bound(lst, nth, room);
    if (single && n - k > room[0])
        n = k + (size_t)room[0];
    if (thr) {
        /* thresholded counters: their gates and conditions for an empty
         * cycle; at most `troom` cycle closes (x86_thr_touch()) */
        /* not ready (thr_ready); the X86_HIST_K1 variants prepare every
         * time: with the test their loop took an instruction more per
         * record on wsm (x86_fast_n_thr_k1_f, c1 76.8 against 75.7) */
        if (hmode == X86_HIST_K1 || !m->thr_ready || m->thr_ready_cur != cur0)
            for (uint32_t i = 0; i < m->n_thresh; i++)
                x86_thr_prepare(m, m->thresh[i], cur0);
        if (grp) {
            /* the groups are built (x86_consume_fast(), x86_grps_ready()) */
            for (uint32_t g = 0; g < ngrp; g++) {
                /* X86_HIST_GK1: a record in cycle cur0 is the first of its
                 * cycle in this loop, as the others count it */
                g_cyc[g] = hmode == X86_HIST_GK1 ? cur0 - 1 : cur0;
                g_occ[g] = 0;
                g_met[g] = 0;
                g_k[g] = gr->k[g];
                g_wm[g] = gr->wm[g];
                g_lim[g] = gr->edge[g];
                g_last[g] = cur0 - 1 + g_lim[g];
            }
            for (uint32_t t = 0; !grp1 && t < nth; t++) {
                g_n[t] = gr->n_of[t];
                for (uint32_t j = 0; j < g_n[t]; j++)
                    g_of[t][j] = gr->of[t][j];
            }
        }
        for (uint32_t t = 0; !grp && t < nth; t++) {
            hm[t] = lst[t]->n_hgen != 0;
            x86_hist_init(&hs[t], lst[t], cur0);
            h_cyc[t] = hs[t].cyc;
            h_occ[t] = hs[t].occ;
            h_met[t] = hs[t].met;
            h_k[t] = hs[t].k;
            h_wm[t] = hs[t].wmask;
            h_lim[t] = hs[t].edge;
            h_met2[t] = 0;
            /* X86_HIST_K1X: 2, read from memory so that `d < 2` in its step
             * is a compare and an add with carry (as a constant gcc makes it
             * `d <= 1` and a set and an add) */
            h_k2[t] = hmode == X86_HIST_K1X ? 2 : hs[t].k2;
            /* X86_HIST_EDGE: the last met cycle; with EDGE cycle cur0 (no
             * edge counted at cur0 + 1), else before it */
            if (hmode == X86_HIST_EDGE || hmode == X86_HIST_EDGE_I || hmode == X86_HIST_EDGE_U)
                h_last[t] = cur0 - 1 + h_lim[t];
            h_mets[t] = h_same[t] = 0;
            if (hmode == X86_HIST_ANY_U || hmode == X86_HIST_TWO_1 || hmode == X86_HIST_EDGE_U)
                h_cyc[t] = cur0 - 1; /* x86_hist_cyc() */
        }
        const uint64_t troom = x86_thresh_room(m);
        if (troom < UINT64_MAX - cur0 && cur0 + troom + 1 < fast_limit)
            fast_limit = cur0 + troom + 1;
        if (troom < UINT64_MAX - cur0 && cur0 + troom + 1 < m->fast_hard)
            m->fast_hard = cur0 + troom + 1;
    }
    /* the 8 bytes of a record from `kind` on hold kind, thread and plm:
     * `ktp_mask` keeps those (plm's two low bits), `ktp[t & 3]` is what
     * they hold in an INSN record of thread t at its privilege level
     * (endian neutral); threads beyond nth get a value no masked word
     * equals */
    _Static_assert(offsetof(pmusim_rec_t, plm) - offsetof(pmusim_rec_t, kind) < 8 &&
                       offsetof(pmusim_rec_t, slot) - offsetof(pmusim_rec_t, kind) < 8 &&
                       offsetof(pmusim_rec_t, kind) + 8 <= offsetof(pmusim_rec_t, ip),
                   "kind, thread, plm and slot are in the 8 bytes from kind, before ip");
    _Static_assert((X86_MAX_THREADS & (X86_MAX_THREADS - 1)) == 0, "a power of two");
    uint64_t ktp_mask, ktp[X86_MAX_THREADS], ktp_oc = 0;
    {
        pmusim_rec_t z;
        memset(&z, 0, sizeof z);
        z.kind = 0xff;
        z.thread = 0xff;
        z.plm = 3;
        /* 0x60 counters: an offcore INSN record (its flag set where every
         * ktp[] has it clear) ends the loop (loop_oc_stop) */
        /* fuse_loop: a record of kind mul, div or fused (x86_fast_fused()) */
        z.flags = (uint16_t)((m->loop_oc_stop ? PMUSIM_F_OFFCORE : 0) |
                             (m->loop_fpx_stop ? X86_F_FPMMX_BITS : 0) |
                             (m->fuse_loop ? X86_F_FUSED_PROBE : 0));
        memcpy(&ktp_mask, &z.kind, sizeof ktp_mask);
        memset(&z, 0, sizeof z);
        z.flags = (uint16_t)(PMUSIM_F_OFFCORE | X86_F_FPMMX_BITS | X86_F_FUSED_PROBE);
        memcpy(&ktp_oc, &z.kind, sizeof ktp_oc);
        /* in the model, so that the loop keeps no register for it */
        memset(&z, 0, sizeof z);
        z.flags = (uint16_t)(m->fuse_loop ? X86_F_FUSED_PROBE : 0);
        memcpy(&m->fast_probe, &z.kind, sizeof m->fast_probe);
        for (uint32_t t = 0; t < X86_MAX_THREADS; t++) {
            memset(&z, 0, sizeof z);
            z.kind = PMUSIM_REC_INSN;
            z.thread = (uint8_t)t;
            if (t < nth)
                z.plm = (uint8_t)plm_of[t];
            else
                z.slot = 1; /* outside the mask */
            memcpy(&ktp[t], &z.kind, sizeof ktp[t]);
        }
    }
    for (; k < n; k++) {
        const pmusim_rec_t *r = &recs[k];
        const uint64_t c = r->cycle;
        if (c != cur) {
            /* at the limit, requests' ends the loop takes (fast_limit 0:
             * not those, the general path) */
            if (c < cur || (c >= fast_limit && (fast_limit = x86_fast_out_ends(m, c)) == 0))
                break;
            cur = c;
            if (hmode == X86_HIST_GEN1)
                g1_occ = 0;
        }
        const uint32_t t = single ? 0 : r->thread;
        uint64_t ktpw;
        memcpy(&ktpw, &r->kind, sizeof ktpw);
        if (G_UNLIKELY((ktpw & ktp_mask) != ktp[t & (X86_MAX_THREADS - 1)])) {
            /* an INSN record of the thread at another privilege level ends
             * the loop; the others x86_fast_other() takes or not */
            if (r->kind == PMUSIM_REC_INSN && r->thread < nth) {
                /* fuse_loop: an INSN record of the thread whose only masked bit
                 * is X86_F_FUSED_PROBE (kind mul, div or fused): a fused one's
                 * uop off (x86_fast_fused_rec()), then taken as any */
                if ((ktpw & ktp_mask & ~m->fast_probe) == ktp[t & (X86_MAX_THREADS - 1)]) {
                    if ((r->flags & PMUSIM_F_OPKIND_MASK) == X86_F_FUSED_BITS &&
                        !X86_FAST_FUSED_REC())
                        break;
                    goto take;
                }
                /* an offcore record (loop_oc_stop) starts the requests of
                 * the OUTSTANDING counters of its thread it matches, here
                 * (loop_oc_fast) once the record is surely taken (room;
                 * FP_MMX_TRANS), else on the general path; an x87 or mmx
                 * one (loop_fpx_stop) steps the FP_MMX_TRANS counters
                 * first (an SSE class one sets a bit too: no step) */
                const bool oc = r->flags & PMUSIM_F_OFFCORE;
                if ((ktpw & ktp_mask & ~ktp_oc) != ktp[t & (X86_MAX_THREADS - 1)] ||
                    (oc && (m->loop_oc_fast ? !single && seen[t] == room[t]
                                            : x86_fast_oc_starts(lst[t], r))) ||
                    !x86_fast_fpmmx(lst[t], r, cur))
                    break;
                /* fuse_loop: a fused record's uop off, as above (here one
                 * with another masked bit: offcore, x87 or mmx) */
                if (m->fuse_loop && (r->flags & PMUSIM_F_OPKIND_MASK) == X86_F_FUSED_BITS &&
                    !X86_FAST_FUSED_REC())
                    break;
                if (oc && m->loop_oc_fast)
                    fast_limit = x86_fast_oc_start(m, lst[t], r, cur);
                goto take;
            }
            if (!x86_fast_other(m, r, nth, plm_of, cur))
                break;
            if (single)
                n_other++;
            continue;
        }
    take:
        if (!single) {
            if (seen[t] == room[t])
                break;
            seen[t]++;
            last_ip[t] = r->ip;
        }
        const x86_listeners_t *l = lst[t];
        /* an overflow touches only the counter's own state, the status
         * and the log, so the wraps can follow the increments */
        uint32_t wrapped = 0, gwrapped = 0;
        if (filt && ((r->flags | X86_F_ANY_RECORD) & l->ffilt_flags)) {
            for (uint32_t j = 0, nf = l->n_ffilt; j < nf; j++) {
                x86_ctr_t *ct = l->ffilt[j];
                if (x86_filter_match(&ct->f, r)) {
                    if (thr && ct->cls == X86_CLS_THRESH) {
                        x86_thr_touch(ct, cur);
                        ct->acc++; /* compared at the cycle's close */
                    }
                    else
                        wrapped |= (uint32_t)(++ct->value > ct->max) << j;
                }
            }
        }
        /* dispatched listeners: instruction / uop counts, direct or
         * thresholded (x86_gen_fast_ok()), after the filter listeners as in
         * x86_consume(); first those with running counts */
        if (thr && hmode == X86_HIST_K1) {
            const uint64_t d = cur - h_cyc[t];
            h_cyc[t] = cur;
            h_met[t] += d > h_lim[t];
        } else if (thr && hmode == X86_HIST_K1X) {
            /* both counts of the k1 variants, as their complements among
             * the thread's records (x86_hist_met()): records in the cycle
             * of the previous one, and in that cycle or the next (a compare
             * and an add with carry each) */
            const uint64_t d = cur - h_cyc[t];
            h_cyc[t] = cur;
            h_met[t] += d < 1;
            h_met2[t] += d < h_k2[t];
        } else if (thr && hmode == X86_HIST_INSN && !single) {
            /* one occurrence per record: the record that makes it k; the
             * thread's records so far, seen[t], less h_occ[t], those before
             * its cycle, are the occurrences (x86_hist_occ()) */
            const uint64_t s0 = cur == h_cyc[t] ? h_occ[t] : seen[t] - 1;
            h_met[t] += seen[t] - s0 == h_k[t];
            h_occ[t] = s0;
            h_cyc[t] = cur;
        } else if (thr && hmode == X86_HIST_INSN) {
            /* one occurrence per record: the record that makes it k */
            const uint64_t o1 = (h_occ[t] & ((uint64_t)0 - (uint64_t)(cur == h_cyc[t]))) + 1;
            h_met[t] += o1 == h_k[t];
            h_occ[t] = o1;
            h_cyc[t] = cur;
        } else if (thr && hmode == X86_HIST_ANY) {
            /* o0: the occurrences of the thread's cycle `cur` before r; the
             * cycle test is a branch (as X86_HIST_EDGE's) */
            const uint64_t kt = h_k[t], w = x86_hist_weight(r, h_wm[t]);
            if (G_LIKELY(cur != h_cyc[t])) {
                h_cyc[t] = cur;
                h_occ[t] = w;
                h_met[t] += w >= kt;
            } else {
                const uint64_t o0 = h_occ[t], o1 = o0 + w;
                h_met[t] += (uint64_t)(o0 < kt) - (uint64_t)(o1 < kt); /* o0 < kt <= o1 */
                h_occ[t] = o1;
            }
        } else if (thr && hmode == X86_HIST_EDGE_U) {
            /* X86_HIST_EDGE with raw uops as X86_HIST_ANY_U */
            const uint64_t u = r->uops;
            if (G_LIKELY(cur != h_cyc[t])) {
                h_cyc[t] = cur;
                h_occ[t] = u;
                if (u >= h_k[t]) {
                    h_met[t] += cur - h_last[t] > h_lim[t];
                    h_last[t] = cur;
                }
            } else {
                const uint64_t kt = h_k[t];
                const uint64_t o0 = h_occ[t] + (h_occ[t] == 0), o1 = o0 + u + (u == 0);
                h_occ[t] = o1;
                if ((o0 < kt) & (o1 >= kt)) {
                    h_met[t] += cur - h_last[t] > h_lim[t];
                    h_last[t] = cur;
                }
            }
        } else if (thr && (hmode == X86_HIST_ANY_U || hmode == X86_HIST_TWO_1)) {
            /* X86_HIST_ANY / X86_HIST_TWO with raw uops as the occurrences of
             * a cycle's first record (thresholds of 2 or more; X86_HIST_TWO_1:
             * the other is 1, met by the first record) */
            const uint64_t u = r->uops;
            if (G_LIKELY(cur != h_cyc[t])) {
                h_cyc[t] = cur;
                h_occ[t] = u;
                if (hmode == X86_HIST_TWO_1) {
                    h_met2[t] += u >= h_k2[t]; /* threshold 1: seen[t] less h_same[t] */
                } else {
                    h_met[t] += u >= h_k[t];
                }
            } else {
                /* its met cycles apart (h_mets), which leaves the other
                 * path one add */
                const uint64_t kt = hmode == X86_HIST_TWO_1 ? h_k2[t] : h_k[t];
                const uint64_t o0 = h_occ[t] + (h_occ[t] == 0), o1 = o0 + u + (u == 0);
                h_mets[t] += (uint64_t)(o0 < kt) - (uint64_t)(o1 < kt);
                h_occ[t] = o1;
                if (hmode == X86_HIST_TWO_1)
                    h_same[t]++;
            }
        } else if (thr && two) {
            /* as X86_HIST_ANY, for two thresholds of one occurrence count */
            const uint64_t kt = h_k[t], k2 = h_k2[t], w = x86_hist_weight(r, h_wm[t]);
            if (G_LIKELY(cur != h_cyc[t])) {
                h_cyc[t] = cur;
                h_occ[t] = w;
                h_met[t] += w >= kt;
                h_met2[t] += w >= k2;
            } else {
                const uint64_t o0 = h_occ[t], o1 = o0 + w;
                h_met[t] += (uint64_t)(o0 < kt) - (uint64_t)(o1 < kt);
                h_met2[t] += (uint64_t)(o0 < k2) - (uint64_t)(o1 < k2);
                h_occ[t] = o1;
            }
        } else if (thr && (hmode == X86_HIST_EDGE || hmode == X86_HIST_EDGE_I)) {
            /* as X86_HIST_ANY; with EDGE (lim 1) a met cycle counts only
             * when the previous cycle did not meet.  The cycle test is a
             * branch: on knm a thread has at most one record per cycle, so
             * its cycle changes at each, and the record that starts it
             * meets when its own occurrences do (X86_HIST_EDGE_I: never,
             * every threshold is 2 or more); the met one too (rare with
             * instructions) */
            const uint64_t w = hmode == X86_HIST_EDGE_I ? 1 : x86_hist_weight(r, h_wm[t]);
            if (G_LIKELY(cur != h_cyc[t])) {
                h_cyc[t] = cur;
                h_occ[t] = w;
                if (hmode == X86_HIST_EDGE && w >= h_k[t]) {
                    h_met[t] += cur - h_last[t] > h_lim[t];
                    h_last[t] = cur;
                }
            } else {
                const uint64_t kt = h_k[t], o0 = h_occ[t], o1 = o0 + w;
                h_occ[t] = o1;
                if ((o0 < kt) & (o1 >= kt)) {
                    h_met[t] += cur - h_last[t] > h_lim[t];
                    h_last[t] = cur;
                }
            }
        } else if (thr && grp) {
            /* as X86_HIST_ANY for each group the thread feeds; with EDGE
             * (lim 1) a met cycle counts only when the previous cycle did
             * not meet.  X86_HIST_GEN1: the one group, without EDGE, which
             * every thread feeds (its state in registers) */
            for (uint32_t j = 0, ng = grp1 ? 1 : g_n[t]; hmode == X86_HIST_GK1 && j < ng; j++) {
                g_met[0] += cur != g_cyc[0];
                g_cyc[0] = cur;
            }
            if (hmode == X86_HIST_GEN1) /* instructions: one occurrence per record */
                g1_met += ++g1_occ == g1_k;
            for (uint32_t j = 0, ng = grp1 ? 1 : g_n[t];
                 hmode != X86_HIST_GK1 && hmode != X86_HIST_GEN1 && j < ng; j++) {
                const uint32_t g = grp1 ? 0 : g_of[t][j];
                const uint64_t kt = g_k[g];
                const uint64_t w = x86_hist_weight(r, g_wm[g]);
                const uint64_t o0 = cur == g_cyc[g] ? g_occ[g] : 0;
                const uint64_t o1 = o0 + w;
                if (hmode == X86_HIST_GU1) {
                    g_met[g] += (uint64_t)(o0 < kt) - (uint64_t)(o1 < kt); /* o0 < kt <= o1 */
                } else {
                    /* X86_HIST_GEN_F: as a test rather than a difference
                     * (after a fused record's x86_fast_grp_fused() o0 may
                     * be all ones) */
                    const uint64_t met = hmode == X86_HIST_GEN_F
                                             ? (uint64_t)(o0 < kt) & (uint64_t)(o1 >= kt)
                                             : (uint64_t)(o0 < kt) - (uint64_t)(o1 < kt);
                    g_met[g] += met & (uint64_t)(cur - g_last[g] > g_lim[g]);
                    g_last[g] = met ? cur : g_last[g];
                }
                g_occ[g] = o1;
                g_cyc[g] = cur;
            }
        }
        if (gen) {
            if (thr && !grp) {
                for (uint32_t j = 0, ng = l->n_tgen; j < ng; j++) {
                    x86_ctr_t *ct = l->tgen[j];
                    x86_thr_touch(ct, cur);
                    ct->acc += ct->src == X86_SRC_UOPS && r->uops ? r->uops : 1;
                }
            }
            for (uint32_t j = 0, ng = l->n_dgen; j < ng; j++) {
                x86_ctr_t *ct = l->dgen[j];
                ct->value += ct->src == X86_SRC_UOPS && r->uops ? r->uops : 1;
                gwrapped |= (uint32_t)(ct->value > ct->max) << j;
            }
        }
        if (G_UNLIKELY(wrapped | gwrapped)) {
            k++;
            m->cur = m->now = cur;
            if (single)
                x86_fast_single_tally(recs, k0, k, n_other, &seen[0], &last_ip[0]);
            for (uint32_t u = 0; u < nth; u++) {
                m->th[u].insn_seen += seen[u];
                m->th[u].last_ip = last_ip[u];
                x86_fold_add(lst[u], seen[u]);
            }
            if (thr) {
                if (hmode == X86_HIST_K1 || hmode == X86_HIST_K1X)
                    x86_k1_ends(recs, k0, k, cur0, cur, nth, ke);
                else if ((two || hmode == X86_HIST_TWO_1) && cur != cur0)
                    x86_two_ends(recs, k0, k, cur, nth, ke, hs);
                for (uint32_t u = 0; u < nth; u++)
                    if (hm[u])
                        x86_hist_flush_any(&hs[u], x86_hist_cyc(h_cyc[u], seen[u], cur0, hmode),
                                           x86_hist_occ(h_occ[u], seen[u], single, hmode),
                                           x86_hist_met(h_met[u], h_mets[u], h_same[u], seen[u], hmode),
                                           x86_hist_met2(h_met2[u], h_mets[u], seen[u], hmode),
                                           hmode, ke, lst[u], recs, k0, k, u,
                                           cur0, cur);
                if (hmode == X86_HIST_GEN1) /* the group's last cycle is the loop's */
                    x86_grp_flush(gr, 0, cur, g1_occ, g1_met, recs, k0, k, cur0, cur);
                for (uint32_t g = 0; grp && hmode != X86_HIST_GEN1 && g < ngrp; g++)
                    x86_grp_flush(gr, g, x86_grp_cyc(g_cyc[g], cur0, hmode),
                                  x86_grp_occ(gr, g_cyc[g], g_occ[g], recs, k0, k, cur0, hmode),
                                  g_met[g], recs, k0, k, cur0, cur);
                x86_thr_flush(m, cur);
                m->thr_ready = true; /* every thresholded counter at cycle cur */
                m->thr_ready_cur = cur;
            }
            x86_fast_wraps(m, l, wrapped, gwrapped, r);
            return k;
        }
    }
    if (cur != cur0)
        m->cur = m->now = cur;
    if (thr) {
        if (hmode == X86_HIST_K1 || hmode == X86_HIST_K1X)
            x86_k1_ends(recs, k0, k, cur0, cur, nth, ke);
        else if ((two || hmode == X86_HIST_TWO_1) && cur != cur0)
            x86_two_ends(recs, k0, k, cur, nth, ke, hs); /* x86_hist_flush2() */
        for (uint32_t u = 0; u < nth; u++)
            if (hm[u])
                x86_hist_flush_any(&hs[u], x86_hist_cyc(h_cyc[u], seen[u], cur0, hmode),
                                   x86_hist_occ(h_occ[u], seen[u], single, hmode),
                                   x86_hist_met(h_met[u], h_mets[u], h_same[u], seen[u], hmode),
                                   x86_hist_met2(h_met2[u], h_mets[u], seen[u], hmode), hmode,
                                   ke, lst[u], recs, k0, k, u, cur0, cur);
        if (hmode == X86_HIST_GEN1) /* the group's last cycle is the loop's */
            x86_grp_flush(gr, 0, cur, g1_occ, g1_met, recs, k0, k, cur0, cur);
        for (uint32_t g = 0; grp && hmode != X86_HIST_GEN1 && g < ngrp; g++)
            x86_grp_flush(gr, g, x86_grp_cyc(g_cyc[g], cur0, hmode),
                          x86_grp_occ(gr, g_cyc[g], g_occ[g], recs, k0, k, cur0, hmode), g_met[g],
                          recs, k0, k, cur0, cur);
        x86_thr_flush(m, cur);
        m->thr_ready = true; /* every thresholded counter at cycle cur */
        m->thr_ready_cur = cur;
    }
    if (single && k > k0)
        x86_fast_single_tally(recs, k0, k, n_other, &seen[0], &last_ip[0]);
    for (uint32_t t = 0; t < nth; t++) {
        m->th[t].insn_seen += seen[t];
        m->th[t].last_ip = last_ip[t];
        x86_fold_add(lst[t], seen[t]);
    }
    return k;
}
#undef X86_FAST_FUSED_REC

/* One out-of-line function per specialisation, so that each is compiled
 * (inlined, registers allocated) on its own. */
#define X86_FAST_VARIANT(name, single, thr, gen, filt, hmode)                                   \
    static __attribute__((noinline)) size_t name(x86_model_t *m, const pmusim_rec_t *recs,     \
                                                 size_t k, size_t n)                           \
    {                                                                                          \
        return x86_consume_fast_body(m, recs, k, n, single, thr, gen, filt, hmode);            \
    }
X86_FAST_VARIANT(x86_fast_1, true, false, false, false, X86_HIST_NONE)
X86_FAST_VARIANT(x86_fast_n, false, false, false, false, X86_HIST_NONE)
X86_FAST_VARIANT(x86_fast_1_thr, true, true, false, false, X86_HIST_NONE)
X86_FAST_VARIANT(x86_fast_n_thr, false, true, false, false, X86_HIST_NONE)
X86_FAST_VARIANT(x86_fast_1_gen, true, false, true, false, X86_HIST_NONE)
X86_FAST_VARIANT(x86_fast_n_gen, false, false, true, false, X86_HIST_NONE)
X86_FAST_VARIANT(x86_fast_1_thr_gen, true, true, true, false, X86_HIST_NONE)
X86_FAST_VARIANT(x86_fast_n_thr_gen, false, true, true, false, X86_HIST_NONE)
X86_FAST_VARIANT(x86_fast_1_f, true, false, false, true, X86_HIST_NONE)
X86_FAST_VARIANT(x86_fast_n_f, false, false, false, true, X86_HIST_NONE)
X86_FAST_VARIANT(x86_fast_1_thr_f, true, true, false, true, X86_HIST_NONE)
X86_FAST_VARIANT(x86_fast_n_thr_f, false, true, false, true, X86_HIST_NONE)
X86_FAST_VARIANT(x86_fast_1_gen_f, true, false, true, true, X86_HIST_NONE)
X86_FAST_VARIANT(x86_fast_n_gen_f, false, false, true, true, X86_HIST_NONE)
X86_FAST_VARIANT(x86_fast_1_thr_gen_f, true, true, true, true, X86_HIST_NONE)
X86_FAST_VARIANT(x86_fast_n_thr_gen_f, false, true, true, true, X86_HIST_NONE)
X86_FAST_VARIANT(x86_fast_1_thr_h, true, true, false, false, X86_HIST_ANY)
X86_FAST_VARIANT(x86_fast_n_thr_h, false, true, false, false, X86_HIST_ANY)
X86_FAST_VARIANT(x86_fast_1_thr_h_gen, true, true, true, false, X86_HIST_ANY)
X86_FAST_VARIANT(x86_fast_n_thr_h_gen, false, true, true, false, X86_HIST_ANY)
X86_FAST_VARIANT(x86_fast_1_thr_h_f, true, true, false, true, X86_HIST_ANY)
X86_FAST_VARIANT(x86_fast_n_thr_h_f, false, true, false, true, X86_HIST_ANY)
X86_FAST_VARIANT(x86_fast_1_thr_h_gen_f, true, true, true, true, X86_HIST_ANY)
X86_FAST_VARIANT(x86_fast_n_thr_h_gen_f, false, true, true, true, X86_HIST_ANY)
X86_FAST_VARIANT(x86_fast_1_thr_i, true, true, false, false, X86_HIST_INSN)
X86_FAST_VARIANT(x86_fast_n_thr_i, false, true, false, false, X86_HIST_INSN)
X86_FAST_VARIANT(x86_fast_1_thr_i_gen, true, true, true, false, X86_HIST_INSN)
X86_FAST_VARIANT(x86_fast_n_thr_i_gen, false, true, true, false, X86_HIST_INSN)
X86_FAST_VARIANT(x86_fast_1_thr_i_f, true, true, false, true, X86_HIST_INSN)
X86_FAST_VARIANT(x86_fast_n_thr_i_f, false, true, false, true, X86_HIST_INSN)
X86_FAST_VARIANT(x86_fast_1_thr_i_gen_f, true, true, true, true, X86_HIST_INSN)
X86_FAST_VARIANT(x86_fast_n_thr_i_gen_f, false, true, true, true, X86_HIST_INSN)
X86_FAST_VARIANT(x86_fast_1_thr_k1, true, true, false, false, X86_HIST_K1)
X86_FAST_VARIANT(x86_fast_n_thr_k1, false, true, false, false, X86_HIST_K1)
X86_FAST_VARIANT(x86_fast_1_thr_k1_gen, true, true, true, false, X86_HIST_K1)
X86_FAST_VARIANT(x86_fast_n_thr_k1_gen, false, true, true, false, X86_HIST_K1)
X86_FAST_VARIANT(x86_fast_1_thr_k1_f, true, true, false, true, X86_HIST_K1)
X86_FAST_VARIANT(x86_fast_n_thr_k1_f, false, true, false, true, X86_HIST_K1)
X86_FAST_VARIANT(x86_fast_1_thr_k1_gen_f, true, true, true, true, X86_HIST_K1)
X86_FAST_VARIANT(x86_fast_n_thr_k1_gen_f, false, true, true, true, X86_HIST_K1)
/* X86_HIST_EDGE: a single-thread form too, since threshold-1 EDGE uop
 * counts with fmask (a capture under `fuse`) take it instead of the k1
 * variants (x86_fast_n_thr_e took 8.71 M instructions for the kinds
 * capture's E4 set, docs/PERFORMANCE.md "Thresholded uop counts ... third
 * pass") */
X86_FAST_VARIANT(x86_fast_1_thr_e, true, true, false, false, X86_HIST_EDGE)
X86_FAST_VARIANT(x86_fast_1_thr_e_gen, true, true, true, false, X86_HIST_EDGE)
X86_FAST_VARIANT(x86_fast_1_thr_e_f, true, true, false, true, X86_HIST_EDGE)
X86_FAST_VARIANT(x86_fast_1_thr_e_gen_f, true, true, true, true, X86_HIST_EDGE)
/* X86_HIST_GEN, X86_HIST_K1X and X86_HIST_TWO (rare set-ups): no
 * single-thread form, the table sends one thread to the general one */
X86_FAST_VARIANT(x86_fast_n_thr_e, false, true, false, false, X86_HIST_EDGE)
X86_FAST_VARIANT(x86_fast_n_thr_e_gen, false, true, true, false, X86_HIST_EDGE)
X86_FAST_VARIANT(x86_fast_n_thr_e_f, false, true, false, true, X86_HIST_EDGE)
X86_FAST_VARIANT(x86_fast_n_thr_e_gen_f, false, true, true, true, X86_HIST_EDGE)
X86_FAST_VARIANT(x86_fast_n_thr_g, false, true, false, false, X86_HIST_GEN)
X86_FAST_VARIANT(x86_fast_n_thr_g_gen, false, true, true, false, X86_HIST_GEN)
X86_FAST_VARIANT(x86_fast_n_thr_g_f, false, true, false, true, X86_HIST_GEN)
X86_FAST_VARIANT(x86_fast_n_thr_g_gen_f, false, true, true, true, X86_HIST_GEN)
X86_FAST_VARIANT(x86_fast_n_thr_gf, false, true, false, false, X86_HIST_GEN_F)
X86_FAST_VARIANT(x86_fast_n_thr_gf_gen, false, true, true, false, X86_HIST_GEN_F)
X86_FAST_VARIANT(x86_fast_n_thr_gf_f, false, true, false, true, X86_HIST_GEN_F)
X86_FAST_VARIANT(x86_fast_n_thr_gf_gen_f, false, true, true, true, X86_HIST_GEN_F)
X86_FAST_VARIANT(x86_fast_n_thr_g1, false, true, false, false, X86_HIST_GEN1)
X86_FAST_VARIANT(x86_fast_n_thr_g1_gen, false, true, true, false, X86_HIST_GEN1)
X86_FAST_VARIANT(x86_fast_n_thr_g1_f, false, true, false, true, X86_HIST_GEN1)
X86_FAST_VARIANT(x86_fast_n_thr_g1_gen_f, false, true, true, true, X86_HIST_GEN1)
X86_FAST_VARIANT(x86_fast_n_thr_gu1, false, true, false, false, X86_HIST_GU1)
X86_FAST_VARIANT(x86_fast_n_thr_gu1_gen, false, true, true, false, X86_HIST_GU1)
X86_FAST_VARIANT(x86_fast_n_thr_gu1_f, false, true, false, true, X86_HIST_GU1)
X86_FAST_VARIANT(x86_fast_n_thr_gu1_gen_f, false, true, true, true, X86_HIST_GU1)
X86_FAST_VARIANT(x86_fast_n_thr_ei, false, true, false, false, X86_HIST_EDGE_I)
X86_FAST_VARIANT(x86_fast_n_thr_ei_gen, false, true, true, false, X86_HIST_EDGE_I)
X86_FAST_VARIANT(x86_fast_n_thr_ei_f, false, true, false, true, X86_HIST_EDGE_I)
X86_FAST_VARIANT(x86_fast_n_thr_ei_gen_f, false, true, true, true, X86_HIST_EDGE_I)
X86_FAST_VARIANT(x86_fast_n_thr_hu, false, true, false, false, X86_HIST_ANY_U)
X86_FAST_VARIANT(x86_fast_n_thr_hu_gen, false, true, true, false, X86_HIST_ANY_U)
X86_FAST_VARIANT(x86_fast_n_thr_hu_f, false, true, false, true, X86_HIST_ANY_U)
X86_FAST_VARIANT(x86_fast_n_thr_hu_gen_f, false, true, true, true, X86_HIST_ANY_U)
X86_FAST_VARIANT(x86_fast_n_thr_two1, false, true, false, false, X86_HIST_TWO_1)
X86_FAST_VARIANT(x86_fast_n_thr_two1_gen, false, true, true, false, X86_HIST_TWO_1)
X86_FAST_VARIANT(x86_fast_n_thr_two1_f, false, true, false, true, X86_HIST_TWO_1)
X86_FAST_VARIANT(x86_fast_n_thr_two1_gen_f, false, true, true, true, X86_HIST_TWO_1)
X86_FAST_VARIANT(x86_fast_n_thr_eu, false, true, false, false, X86_HIST_EDGE_U)
X86_FAST_VARIANT(x86_fast_n_thr_eu_gen, false, true, true, false, X86_HIST_EDGE_U)
X86_FAST_VARIANT(x86_fast_n_thr_eu_f, false, true, false, true, X86_HIST_EDGE_U)
X86_FAST_VARIANT(x86_fast_n_thr_eu_gen_f, false, true, true, true, X86_HIST_EDGE_U)
X86_FAST_VARIANT(x86_fast_n_thr_gk1, false, true, false, false, X86_HIST_GK1)
X86_FAST_VARIANT(x86_fast_n_thr_gk1_gen, false, true, true, false, X86_HIST_GK1)
X86_FAST_VARIANT(x86_fast_n_thr_gk1_f, false, true, false, true, X86_HIST_GK1)
X86_FAST_VARIANT(x86_fast_n_thr_gk1_gen_f, false, true, true, true, X86_HIST_GK1)
X86_FAST_VARIANT(x86_fast_n_thr_k1x, false, true, false, false, X86_HIST_K1X)
X86_FAST_VARIANT(x86_fast_n_thr_k1x_gen, false, true, true, false, X86_HIST_K1X)
X86_FAST_VARIANT(x86_fast_n_thr_k1x_f, false, true, false, true, X86_HIST_K1X)
X86_FAST_VARIANT(x86_fast_n_thr_k1x_gen_f, false, true, true, true, X86_HIST_K1X)
X86_FAST_VARIANT(x86_fast_n_thr_two, false, true, false, false, X86_HIST_TWO)
X86_FAST_VARIANT(x86_fast_n_thr_two_gen, false, true, true, false, X86_HIST_TWO)
X86_FAST_VARIANT(x86_fast_n_thr_two_f, false, true, false, true, X86_HIST_TWO)
X86_FAST_VARIANT(x86_fast_n_thr_two_gen_f, false, true, true, true, X86_HIST_TWO)
X86_FAST_VARIANT(x86_fast_n_thr_twof, false, true, false, false, X86_HIST_TWO_F)
X86_FAST_VARIANT(x86_fast_n_thr_twof_gen, false, true, true, false, X86_HIST_TWO_F)
X86_FAST_VARIANT(x86_fast_n_thr_twof_f, false, true, false, true, X86_HIST_TWO_F)
X86_FAST_VARIANT(x86_fast_n_thr_twof_gen_f, false, true, true, true, X86_HIST_TWO_F)
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif
#undef X86_FAST_VARIANT

typedef size_t (*x86_fast_fn)(x86_model_t *m, const pmusim_rec_t *recs, size_t k, size_t n);

/* x86_consume_fast_body() specialised for one thread (whose INSN count and
 * last ip follow from the records taken), for thresholded counters, for
 * dispatched listeners fed per record, for filter listeners and for the
 * running counts of hgen listeners (X86_HIST_*, only with thresholded
 * counters); indexed by X86_FAST_INDEX() */
#define X86_FAST_INDEX(single, thr, gen, filt, hmode)                                            \
    ((unsigned)(single) | (unsigned)(thr) << 1 | (unsigned)(gen) << 2 | (unsigned)(filt) << 3 | \
     (unsigned)(hmode) << 4)
static const x86_fast_fn x86_fast_variants[(X86_HIST_GEN_F + 1) << 4] = {
    [X86_FAST_INDEX(1, 0, 0, 0, X86_HIST_NONE)] = x86_fast_1,
    [X86_FAST_INDEX(0, 0, 0, 0, X86_HIST_NONE)] = x86_fast_n,
    [X86_FAST_INDEX(1, 1, 0, 0, X86_HIST_NONE)] = x86_fast_1_thr,
    [X86_FAST_INDEX(0, 1, 0, 0, X86_HIST_NONE)] = x86_fast_n_thr,
    [X86_FAST_INDEX(1, 0, 1, 0, X86_HIST_NONE)] = x86_fast_1_gen,
    [X86_FAST_INDEX(0, 0, 1, 0, X86_HIST_NONE)] = x86_fast_n_gen,
    [X86_FAST_INDEX(1, 1, 1, 0, X86_HIST_NONE)] = x86_fast_1_thr_gen,
    [X86_FAST_INDEX(0, 1, 1, 0, X86_HIST_NONE)] = x86_fast_n_thr_gen,
    [X86_FAST_INDEX(1, 0, 0, 1, X86_HIST_NONE)] = x86_fast_1_f,
    [X86_FAST_INDEX(0, 0, 0, 1, X86_HIST_NONE)] = x86_fast_n_f,
    [X86_FAST_INDEX(1, 1, 0, 1, X86_HIST_NONE)] = x86_fast_1_thr_f,
    [X86_FAST_INDEX(0, 1, 0, 1, X86_HIST_NONE)] = x86_fast_n_thr_f,
    [X86_FAST_INDEX(1, 0, 1, 1, X86_HIST_NONE)] = x86_fast_1_gen_f,
    [X86_FAST_INDEX(0, 0, 1, 1, X86_HIST_NONE)] = x86_fast_n_gen_f,
    [X86_FAST_INDEX(1, 1, 1, 1, X86_HIST_NONE)] = x86_fast_1_thr_gen_f,
    [X86_FAST_INDEX(0, 1, 1, 1, X86_HIST_NONE)] = x86_fast_n_thr_gen_f,
    [X86_FAST_INDEX(1, 1, 0, 0, X86_HIST_ANY)] = x86_fast_1_thr_h,
    [X86_FAST_INDEX(0, 1, 0, 0, X86_HIST_ANY)] = x86_fast_n_thr_h,
    [X86_FAST_INDEX(1, 1, 1, 0, X86_HIST_ANY)] = x86_fast_1_thr_h_gen,
    [X86_FAST_INDEX(0, 1, 1, 0, X86_HIST_ANY)] = x86_fast_n_thr_h_gen,
    [X86_FAST_INDEX(1, 1, 0, 1, X86_HIST_ANY)] = x86_fast_1_thr_h_f,
    [X86_FAST_INDEX(0, 1, 0, 1, X86_HIST_ANY)] = x86_fast_n_thr_h_f,
    [X86_FAST_INDEX(1, 1, 1, 1, X86_HIST_ANY)] = x86_fast_1_thr_h_gen_f,
    [X86_FAST_INDEX(0, 1, 1, 1, X86_HIST_ANY)] = x86_fast_n_thr_h_gen_f,
    [X86_FAST_INDEX(1, 1, 0, 0, X86_HIST_INSN)] = x86_fast_1_thr_i,
    [X86_FAST_INDEX(0, 1, 0, 0, X86_HIST_INSN)] = x86_fast_n_thr_i,
    [X86_FAST_INDEX(1, 1, 1, 0, X86_HIST_INSN)] = x86_fast_1_thr_i_gen,
    [X86_FAST_INDEX(0, 1, 1, 0, X86_HIST_INSN)] = x86_fast_n_thr_i_gen,
    [X86_FAST_INDEX(1, 1, 0, 1, X86_HIST_INSN)] = x86_fast_1_thr_i_f,
    [X86_FAST_INDEX(0, 1, 0, 1, X86_HIST_INSN)] = x86_fast_n_thr_i_f,
    [X86_FAST_INDEX(1, 1, 1, 1, X86_HIST_INSN)] = x86_fast_1_thr_i_gen_f,
    [X86_FAST_INDEX(0, 1, 1, 1, X86_HIST_INSN)] = x86_fast_n_thr_i_gen_f,
    [X86_FAST_INDEX(1, 1, 0, 0, X86_HIST_K1)] = x86_fast_1_thr_k1,
    [X86_FAST_INDEX(0, 1, 0, 0, X86_HIST_K1)] = x86_fast_n_thr_k1,
    [X86_FAST_INDEX(1, 1, 1, 0, X86_HIST_K1)] = x86_fast_1_thr_k1_gen,
    [X86_FAST_INDEX(0, 1, 1, 0, X86_HIST_K1)] = x86_fast_n_thr_k1_gen,
    [X86_FAST_INDEX(1, 1, 0, 1, X86_HIST_K1)] = x86_fast_1_thr_k1_f,
    [X86_FAST_INDEX(0, 1, 0, 1, X86_HIST_K1)] = x86_fast_n_thr_k1_f,
    [X86_FAST_INDEX(1, 1, 1, 1, X86_HIST_K1)] = x86_fast_1_thr_k1_gen_f,
    [X86_FAST_INDEX(0, 1, 1, 1, X86_HIST_K1)] = x86_fast_n_thr_k1_gen_f,
    [X86_FAST_INDEX(1, 1, 0, 0, X86_HIST_EDGE)] = x86_fast_1_thr_e,
    [X86_FAST_INDEX(0, 1, 0, 0, X86_HIST_EDGE)] = x86_fast_n_thr_e,
    [X86_FAST_INDEX(1, 1, 1, 0, X86_HIST_EDGE)] = x86_fast_1_thr_e_gen,
    [X86_FAST_INDEX(0, 1, 1, 0, X86_HIST_EDGE)] = x86_fast_n_thr_e_gen,
    [X86_FAST_INDEX(1, 1, 0, 1, X86_HIST_EDGE)] = x86_fast_1_thr_e_f,
    [X86_FAST_INDEX(0, 1, 0, 1, X86_HIST_EDGE)] = x86_fast_n_thr_e_f,
    [X86_FAST_INDEX(1, 1, 1, 1, X86_HIST_EDGE)] = x86_fast_1_thr_e_gen_f,
    [X86_FAST_INDEX(0, 1, 1, 1, X86_HIST_EDGE)] = x86_fast_n_thr_e_gen_f,
    [X86_FAST_INDEX(1, 1, 0, 0, X86_HIST_GEN)] = x86_fast_n_thr_g,
    [X86_FAST_INDEX(0, 1, 0, 0, X86_HIST_GEN)] = x86_fast_n_thr_g,
    [X86_FAST_INDEX(1, 1, 1, 0, X86_HIST_GEN)] = x86_fast_n_thr_g_gen,
    [X86_FAST_INDEX(0, 1, 1, 0, X86_HIST_GEN)] = x86_fast_n_thr_g_gen,
    [X86_FAST_INDEX(1, 1, 0, 1, X86_HIST_GEN)] = x86_fast_n_thr_g_f,
    [X86_FAST_INDEX(0, 1, 0, 1, X86_HIST_GEN)] = x86_fast_n_thr_g_f,
    [X86_FAST_INDEX(1, 1, 1, 1, X86_HIST_GEN)] = x86_fast_n_thr_g_gen_f,
    [X86_FAST_INDEX(0, 1, 1, 1, X86_HIST_GEN)] = x86_fast_n_thr_g_gen_f,
    [X86_FAST_INDEX(1, 1, 0, 0, X86_HIST_GEN_F)] = x86_fast_n_thr_gf,
    [X86_FAST_INDEX(0, 1, 0, 0, X86_HIST_GEN_F)] = x86_fast_n_thr_gf,
    [X86_FAST_INDEX(1, 1, 1, 0, X86_HIST_GEN_F)] = x86_fast_n_thr_gf_gen,
    [X86_FAST_INDEX(0, 1, 1, 0, X86_HIST_GEN_F)] = x86_fast_n_thr_gf_gen,
    [X86_FAST_INDEX(1, 1, 0, 1, X86_HIST_GEN_F)] = x86_fast_n_thr_gf_f,
    [X86_FAST_INDEX(0, 1, 0, 1, X86_HIST_GEN_F)] = x86_fast_n_thr_gf_f,
    [X86_FAST_INDEX(1, 1, 1, 1, X86_HIST_GEN_F)] = x86_fast_n_thr_gf_gen_f,
    [X86_FAST_INDEX(0, 1, 1, 1, X86_HIST_GEN_F)] = x86_fast_n_thr_gf_gen_f,
    [X86_FAST_INDEX(1, 1, 0, 0, X86_HIST_GEN1)] = x86_fast_n_thr_g1,
    [X86_FAST_INDEX(0, 1, 0, 0, X86_HIST_GEN1)] = x86_fast_n_thr_g1,
    [X86_FAST_INDEX(1, 1, 1, 0, X86_HIST_GEN1)] = x86_fast_n_thr_g1_gen,
    [X86_FAST_INDEX(0, 1, 1, 0, X86_HIST_GEN1)] = x86_fast_n_thr_g1_gen,
    [X86_FAST_INDEX(1, 1, 0, 1, X86_HIST_GEN1)] = x86_fast_n_thr_g1_f,
    [X86_FAST_INDEX(0, 1, 0, 1, X86_HIST_GEN1)] = x86_fast_n_thr_g1_f,
    [X86_FAST_INDEX(1, 1, 1, 1, X86_HIST_GEN1)] = x86_fast_n_thr_g1_gen_f,
    [X86_FAST_INDEX(0, 1, 1, 1, X86_HIST_GEN1)] = x86_fast_n_thr_g1_gen_f,
    [X86_FAST_INDEX(1, 1, 0, 0, X86_HIST_GK1)] = x86_fast_n_thr_gk1,
    [X86_FAST_INDEX(0, 1, 0, 0, X86_HIST_GK1)] = x86_fast_n_thr_gk1,
    [X86_FAST_INDEX(1, 1, 1, 0, X86_HIST_GK1)] = x86_fast_n_thr_gk1_gen,
    [X86_FAST_INDEX(0, 1, 1, 0, X86_HIST_GK1)] = x86_fast_n_thr_gk1_gen,
    [X86_FAST_INDEX(1, 1, 0, 1, X86_HIST_GK1)] = x86_fast_n_thr_gk1_f,
    [X86_FAST_INDEX(0, 1, 0, 1, X86_HIST_GK1)] = x86_fast_n_thr_gk1_f,
    [X86_FAST_INDEX(1, 1, 1, 1, X86_HIST_GK1)] = x86_fast_n_thr_gk1_gen_f,
    [X86_FAST_INDEX(0, 1, 1, 1, X86_HIST_GK1)] = x86_fast_n_thr_gk1_gen_f,
    [X86_FAST_INDEX(1, 1, 0, 0, X86_HIST_GU1)] = x86_fast_n_thr_gu1,
    [X86_FAST_INDEX(0, 1, 0, 0, X86_HIST_GU1)] = x86_fast_n_thr_gu1,
    [X86_FAST_INDEX(1, 1, 0, 1, X86_HIST_GU1)] = x86_fast_n_thr_gu1_f,
    [X86_FAST_INDEX(0, 1, 0, 1, X86_HIST_GU1)] = x86_fast_n_thr_gu1_f,
    [X86_FAST_INDEX(1, 1, 1, 0, X86_HIST_GU1)] = x86_fast_n_thr_gu1_gen,
    [X86_FAST_INDEX(0, 1, 1, 0, X86_HIST_GU1)] = x86_fast_n_thr_gu1_gen,
    [X86_FAST_INDEX(1, 1, 1, 1, X86_HIST_GU1)] = x86_fast_n_thr_gu1_gen_f,
    [X86_FAST_INDEX(0, 1, 1, 1, X86_HIST_GU1)] = x86_fast_n_thr_gu1_gen_f,
    [X86_FAST_INDEX(1, 1, 0, 0, X86_HIST_EDGE_I)] = x86_fast_n_thr_ei,
    [X86_FAST_INDEX(0, 1, 0, 0, X86_HIST_EDGE_I)] = x86_fast_n_thr_ei,
    [X86_FAST_INDEX(1, 1, 0, 1, X86_HIST_EDGE_I)] = x86_fast_n_thr_ei_f,
    [X86_FAST_INDEX(0, 1, 0, 1, X86_HIST_EDGE_I)] = x86_fast_n_thr_ei_f,
    [X86_FAST_INDEX(1, 1, 1, 0, X86_HIST_EDGE_I)] = x86_fast_n_thr_ei_gen,
    [X86_FAST_INDEX(0, 1, 1, 0, X86_HIST_EDGE_I)] = x86_fast_n_thr_ei_gen,
    [X86_FAST_INDEX(1, 1, 1, 1, X86_HIST_EDGE_I)] = x86_fast_n_thr_ei_gen_f,
    [X86_FAST_INDEX(0, 1, 1, 1, X86_HIST_EDGE_I)] = x86_fast_n_thr_ei_gen_f,
    [X86_FAST_INDEX(1, 1, 0, 0, X86_HIST_ANY_U)] = x86_fast_n_thr_hu,
    [X86_FAST_INDEX(0, 1, 0, 0, X86_HIST_ANY_U)] = x86_fast_n_thr_hu,
    [X86_FAST_INDEX(1, 1, 0, 1, X86_HIST_ANY_U)] = x86_fast_n_thr_hu_f,
    [X86_FAST_INDEX(0, 1, 0, 1, X86_HIST_ANY_U)] = x86_fast_n_thr_hu_f,
    [X86_FAST_INDEX(1, 1, 1, 0, X86_HIST_ANY_U)] = x86_fast_n_thr_hu_gen,
    [X86_FAST_INDEX(0, 1, 1, 0, X86_HIST_ANY_U)] = x86_fast_n_thr_hu_gen,
    [X86_FAST_INDEX(1, 1, 1, 1, X86_HIST_ANY_U)] = x86_fast_n_thr_hu_gen_f,
    [X86_FAST_INDEX(0, 1, 1, 1, X86_HIST_ANY_U)] = x86_fast_n_thr_hu_gen_f,
    [X86_FAST_INDEX(1, 1, 0, 0, X86_HIST_TWO_1)] = x86_fast_n_thr_two1,
    [X86_FAST_INDEX(0, 1, 0, 0, X86_HIST_TWO_1)] = x86_fast_n_thr_two1,
    [X86_FAST_INDEX(1, 1, 0, 1, X86_HIST_TWO_1)] = x86_fast_n_thr_two1_f,
    [X86_FAST_INDEX(0, 1, 0, 1, X86_HIST_TWO_1)] = x86_fast_n_thr_two1_f,
    [X86_FAST_INDEX(1, 1, 1, 0, X86_HIST_TWO_1)] = x86_fast_n_thr_two1_gen,
    [X86_FAST_INDEX(0, 1, 1, 0, X86_HIST_TWO_1)] = x86_fast_n_thr_two1_gen,
    [X86_FAST_INDEX(1, 1, 1, 1, X86_HIST_TWO_1)] = x86_fast_n_thr_two1_gen_f,
    [X86_FAST_INDEX(0, 1, 1, 1, X86_HIST_TWO_1)] = x86_fast_n_thr_two1_gen_f,
    [X86_FAST_INDEX(1, 1, 0, 0, X86_HIST_EDGE_U)] = x86_fast_n_thr_eu,
    [X86_FAST_INDEX(0, 1, 0, 0, X86_HIST_EDGE_U)] = x86_fast_n_thr_eu,
    [X86_FAST_INDEX(1, 1, 0, 1, X86_HIST_EDGE_U)] = x86_fast_n_thr_eu_f,
    [X86_FAST_INDEX(0, 1, 0, 1, X86_HIST_EDGE_U)] = x86_fast_n_thr_eu_f,
    [X86_FAST_INDEX(1, 1, 1, 0, X86_HIST_EDGE_U)] = x86_fast_n_thr_eu_gen,
    [X86_FAST_INDEX(0, 1, 1, 0, X86_HIST_EDGE_U)] = x86_fast_n_thr_eu_gen,
    [X86_FAST_INDEX(1, 1, 1, 1, X86_HIST_EDGE_U)] = x86_fast_n_thr_eu_gen_f,
    [X86_FAST_INDEX(0, 1, 1, 1, X86_HIST_EDGE_U)] = x86_fast_n_thr_eu_gen_f,
    [X86_FAST_INDEX(1, 1, 0, 0, X86_HIST_K1X)] = x86_fast_n_thr_k1x,
    [X86_FAST_INDEX(0, 1, 0, 0, X86_HIST_K1X)] = x86_fast_n_thr_k1x,
    [X86_FAST_INDEX(1, 1, 1, 0, X86_HIST_K1X)] = x86_fast_n_thr_k1x_gen,
    [X86_FAST_INDEX(0, 1, 1, 0, X86_HIST_K1X)] = x86_fast_n_thr_k1x_gen,
    [X86_FAST_INDEX(1, 1, 0, 1, X86_HIST_K1X)] = x86_fast_n_thr_k1x_f,
    [X86_FAST_INDEX(0, 1, 0, 1, X86_HIST_K1X)] = x86_fast_n_thr_k1x_f,
    [X86_FAST_INDEX(1, 1, 1, 1, X86_HIST_K1X)] = x86_fast_n_thr_k1x_gen_f,
    [X86_FAST_INDEX(0, 1, 1, 1, X86_HIST_K1X)] = x86_fast_n_thr_k1x_gen_f,
    [X86_FAST_INDEX(1, 1, 0, 0, X86_HIST_TWO)] = x86_fast_n_thr_two,
    [X86_FAST_INDEX(0, 1, 0, 0, X86_HIST_TWO)] = x86_fast_n_thr_two,
    [X86_FAST_INDEX(1, 1, 1, 0, X86_HIST_TWO)] = x86_fast_n_thr_two_gen,
    [X86_FAST_INDEX(0, 1, 1, 0, X86_HIST_TWO)] = x86_fast_n_thr_two_gen,
    [X86_FAST_INDEX(1, 1, 0, 1, X86_HIST_TWO)] = x86_fast_n_thr_two_f,
    [X86_FAST_INDEX(0, 1, 0, 1, X86_HIST_TWO)] = x86_fast_n_thr_two_f,
    [X86_FAST_INDEX(1, 1, 1, 1, X86_HIST_TWO)] = x86_fast_n_thr_two_gen_f,
    [X86_FAST_INDEX(0, 1, 1, 1, X86_HIST_TWO)] = x86_fast_n_thr_two_gen_f,
    [X86_FAST_INDEX(1, 1, 0, 0, X86_HIST_TWO_F)] = x86_fast_n_thr_twof,
    [X86_FAST_INDEX(0, 1, 0, 0, X86_HIST_TWO_F)] = x86_fast_n_thr_twof,
    [X86_FAST_INDEX(1, 1, 1, 0, X86_HIST_TWO_F)] = x86_fast_n_thr_twof_gen,
    [X86_FAST_INDEX(0, 1, 1, 0, X86_HIST_TWO_F)] = x86_fast_n_thr_twof_gen,
    [X86_FAST_INDEX(1, 1, 0, 1, X86_HIST_TWO_F)] = x86_fast_n_thr_twof_f,
    [X86_FAST_INDEX(0, 1, 0, 1, X86_HIST_TWO_F)] = x86_fast_n_thr_twof_f,
    [X86_FAST_INDEX(1, 1, 1, 1, X86_HIST_TWO_F)] = x86_fast_n_thr_twof_gen_f,
    [X86_FAST_INDEX(0, 1, 1, 1, X86_HIST_TWO_F)] = x86_fast_n_thr_twof_gen_f,
};

/* Before the X86_HIST_GEN variants: the groups of the threads' listener
 * sets at their privilege levels (which do not change while the loop
 * runs), built again when those sets changed; the variants for them:
 * X86_HIST_GEN1 (X86_HIST_GK1 with threshold 1) when they are one group
 * without EDGE that every thread feeds, else X86_HIST_GEN (X86_HIST_GEN_F
 * when some group has fmask). */
static unsigned x86_grps_ready(x86_model_t *m)
{
    const uint32_t nth = m->base.nthreads;
    const x86_listeners_t *lst[X86_MAX_THREADS];
    for (uint32_t t = 0; t < nth; t++)
        lst[t] = &m->th[t].lst[m->th[t].plm];
    if (!m->grps_ok || memcmp(m->grps_lst, lst, nth * sizeof lst[0]) != 0) {
        x86_grps_build(&m->grps, lst, nth);
        memcpy(m->grps_lst, lst, nth * sizeof lst[0]);
        m->grps_ok = true;
    }
    if (m->grps.n != 1 || m->grps.edge[0] ||
        m->grps.feed[0] != (uint32_t)((UINT64_C(1) << nth) - 1))
        return m->grps.any_fm ? X86_HIST_GEN_F : X86_HIST_GEN;
    /* X86_HIST_GK1 takes every record as an occurrence: not with fmask (a
     * fused record of one uop weighs 0), which X86_HIST_GU1 serves */
    return m->grps.k[0] == 1 && !m->grps.fm[0] ? X86_HIST_GK1
           : m->grps.wm[0]                      ? X86_HIST_GU1
                                                : X86_HIST_GEN1;
}

static inline size_t x86_consume_fast(x86_model_t *m, const pmusim_rec_t *recs, size_t k,
                                      size_t n)
{
    unsigned hmode = m->thresh_fast ? m->hist_mode : X86_HIST_NONE;
    if (hmode == X86_HIST_GEN)
        hmode = x86_grps_ready(m);
    else if (hmode == X86_HIST_EDGE && m->hist_insn_k2)
        hmode = X86_HIST_EDGE_I;
    else if (hmode == X86_HIST_EDGE && m->hist_uops_k2)
        hmode = X86_HIST_EDGE_U;
    else if (hmode == X86_HIST_ANY && m->hist_uops_k2)
        hmode = X86_HIST_ANY_U;
    else if (hmode == X86_HIST_TWO && m->hist_two1)
        hmode = X86_HIST_TWO_1;
    else if (hmode == X86_HIST_TWO && m->hist_two_f)
        hmode = X86_HIST_TWO_F;
    const unsigned v =
        X86_FAST_INDEX(m->base.nthreads == 1, m->thresh_fast, m->loop_gen, m->loop_filt, hmode);
    const size_t end = x86_fast_variants[v](m, recs, k, n);
    /* the loop's requests (loop_oc_fast) moved the deadline: the limit
     * follows, at the loop's last cycle (x86_deadline_set()) */
    if (m->loop_oc_fast)
        x86_deadline_set(m, m->deadline);
    return end;
}

void x86_consume(pmusim_model_t *base, const pmusim_rec_t *recs, size_t n)
{
    x86_model_t *m = x86_of(base);
    if (m->finished) {
        pmusim_model_diag(base, "%zu records after the end of the trace ignored", n);
        return;
    }
    if (G_UNLIKELY(m->compiled_ann != base->trace_annotations ||
                   m->compiled_hdr != base->trace_header_sets))
        x86_recompile(m); /* pmusim_replay() has read the trace header */
    for (size_t i = 0; i < n; i++) {
        if (x86_fast_ok(m)) {
            i = x86_consume_fast(m, recs, i, n);
            if (G_UNLIKELY(m->pending_pmi))
                x86_raise_pending(m, m->cur); /* after the record that raised it */
            if (i == n)
                break;
        }
        x86_thr_unready(m); /* the general path takes record i */
        const pmusim_rec_t *r = &recs[i];
        uint64_t c = r->cycle;
        if (c != m->cur) {
            if (G_LIKELY(c > m->cur)) {
                if (c >= m->fast_limit || m->n_thresh)
                    x86_advance(m, c);
                else
                    m->cur = m->now = c;
            } else if (!m->warned_order) {
                m->warned_order = true;
                pmusim_model_diag(base,
                                  "record %" PRIu64 ": cycle %" PRIu64 " is before cycle %" PRIu64
                                  " of an earlier record; counted in cycle %" PRIu64,
                                  m->records + i, c, m->cur, m->cur);
            }
        }
        if (G_UNLIKELY(r->thread >= base->nthreads)) {
            if (!m->warned_thread) {
                m->warned_thread = true;
                pmusim_model_diag(base, "record %" PRIu64 ": thread %u does not exist; ignored",
                                  m->records + i, r->thread);
            }
            continue;
        }
        x86_thread_t *th = &m->th[r->thread];
        if (G_LIKELY(r->kind == PMUSIM_REC_INSN)) {
            const unsigned plm = r->plm & 3, flags = r->flags;
            if (G_UNLIKELY(plm != th->plm)) {
                x86_tally_plm(th, (uint8_t)plm);
                x86_state_changed(m);
            }
            th->last_ip = r->ip;
            if (G_UNLIKELY(++th->insn_seen == th->unit_due))
                x86_units_sync(m, th, r);
            const x86_listeners_t *l = &th->lst[plm];
            if ((flags | X86_F_ANY_RECORD) & l->filt_flags) {
                const uint32_t nf = l->n_filt;
                for (uint32_t k = 0; k < nf; k++) {
                    x86_ctr_t *ct = l->filt[k];
                    if (x86_filter_match(&ct->f, r))
                        x86_filt_count(m, ct, r);
                }
            }
            if (l->n_gen)
                x86_count_gen(m, l, r);
            if (G_UNLIKELY(m->pending_pmi))
                x86_raise_pending(m, m->cur);
            continue;
        }
        switch (r->kind) {
        case PMUSIM_REC_IDLE:
            if ((r->plm & 3) != th->plm) {
                x86_tally_plm(th, r->plm & 3);
                x86_state_changed(m);
            }
            if (x86_sat_add(m->cur, r->n) > m->end)
                m->end = x86_sat_add(m->cur, r->n);
            break;
        case PMUSIM_REC_THREAD:
            if (th->active != (r->n != 0)) {
                x86_thread_set_active(m, r->thread, r->n != 0);
                x86_state_changed(m);
            }
            break;
        case PMUSIM_REC_EVENT:
            x86_count_event(m, th, r);
            break;
        case PMUSIM_REC_MEM: {
            /* the first MEM record of an instruction follows its INSN
             * record (FORMAT.md §4.3; in the last call at a batch's start) */
            const pmusim_rec_t *p = i ? &recs[i - 1] : m->have_last ? &m->last_rec : NULL;
            if (p && p->kind == PMUSIM_REC_INSN) {
                m->mem_insn++;
                m->mem_head = *p;
            }
            x86_count_mem(m, th, r);
            break;
        }
        default:
            break;
        }
        if (G_UNLIKELY(m->pending_pmi))
            x86_raise_pending(m, m->cur);
    }
    m->records += n;
    if (n && x86_sat_add(m->cur, 1) > m->end) /* the last record's cycle is in the trace */
        m->end = x86_sat_add(m->cur, 1);
    if (n) {
        m->last_rec = recs[n - 1];
        m->have_last = true;
    }
}

void x86_finish(pmusim_model_t *base)
{
    x86_model_t *m = x86_of(base);
    x86_thr_unready(m);
    if (m->finished)
        return;
    if (m->end > m->cur)
        x86_advance(m, m->end);
    x86_units_sync_all(m);
    x86_sync_to(m, m->now);
    m->finished = true;
}

/* ---- registers ---- */

static gboolean x86_gp_fault(GError **error, const x86_desc_t *d, const pmusim_regwrite_t *w,
                             const char *why, uint64_t bad)
{
    char name[48];
    x86_msr_name(d, w->num, name, sizeof name);
    if (bad)
        g_set_error(error, PMUSIM_SIM_ERROR, PMUSIM_SIM_ERROR_REG,
                    "%s: writing 0x%" PRIx64 " sets reserved bits 0x%" PRIx64
                    " (#GP on %s)",
                    name, w->value, bad, d->ops->name);
    else
        g_set_error(error, PMUSIM_SIM_ERROR, PMUSIM_SIM_ERROR_REG, "%s: %s (#GP on %s)", name,
                    why, d->ops->name);
    return FALSE;
}

/* IA32_PMCx writes load bits 31:0 and sign-extend bit 31 into the upper
 * implemented bits (reference §3: no full-width IA32_A_PMCx on these CPUs).
 * IA32_FIXED_CTRx are written at full width: SDM Vol. 3B §18.2.2 ("bits
 * beyond the width of the fixed-function counter are reserved and must be
 * written as zeros"; the caller refuses them with #GP). */
static void x86_ctr_write(x86_model_t *m, x86_ctr_t *c, const pmusim_regwrite_t *w)
{
    uint64_t ext = c->slot >= X86_MAX_GP ? w->value : (uint64_t)(int64_t)(int32_t)(uint32_t)w->value;
    if (c->slot < X86_MAX_GP && (w->value >> 32) != 0 && (w->value >> 32) != (ext >> 32)) {
        char name[24];
        x86_ctr_name(c, name, sizeof name);
        pmusim_model_diag(&m->base,
                          "%s thread %u: bits 63:32 of 0x%" PRIx64
                          " ignored (the counter loads bits 31:0 sign-extended)",
                          name, w->thread, w->value);
    }
    x86_units_sync_all(m);
    x86_sync_to(m, m->now);
    c->value = ext & c->max;
    c->ref_frac = 0;
    c->since = m->now;
    if (c->unit)
        x86_units_sync(m, &m->th[c->thread], NULL); /* new budget */
    x86_deadline_update(m);
}

/* Programming the hardware accepts but that does not do what it seems to:
 * reported once per write, never refused. */
static void x86_check_counter(x86_model_t *m, uint32_t t, uint32_t i)
{
    const x86_thread_t *th = &m->th[t];
    const x86_ctr_t *c = &th->ctr[i];
    uint64_t sel = th->evtsel[i];
    if (!(sel & X86_EVTSEL_EN))
        return;
    if ((sel & X86_EVTSEL_INV) && !(sel & X86_EVTSEL_EDGE) && !(sel >> 24))
        pmusim_model_diag(&m->base,
                          "IA32_PERFEVTSEL%u thread %u = 0x%" PRIx64
                          ": INV without CMASK has no effect",
                          i, t, sel);
    if ((sel & X86_EVTSEL_EDGE) && !(sel >> 24))
        pmusim_model_diag(&m->base,
                          "IA32_PERFEVTSEL%u thread %u = 0x%" PRIx64
                          ": EDGE without CMASK, counted as CMASK 1",
                          i, t, sel);
    if (c->restricted) {
        const x86_restriction_t *rs =
            x86_restriction_find(m->d, (uint8_t)(sel & 0xff), (uint8_t)((sel >> 8) & 0xff));
        GString *cs = g_string_new(NULL);
        for (uint32_t k = 0; k < X86_MAX_GP; k++)
            if ((rs->counters >> k) & 1)
                g_string_append_printf(cs, "%sIA32_PMC%u", cs->len ? ", " : "", k);
        pmusim_model_diag(&m->base,
                          "IA32_PERFEVTSEL%u thread %u: event 0x%02x/0x%02x (%s) counts only on "
                          "%s (Intel's event data); IA32_PMC%u counts nothing",
                          i, t, (unsigned)(sel & 0xff), (unsigned)((sel >> 8) & 0xff),
                          rs->intel_event, cs->str, i);
        g_string_free(cs, TRUE);
    }
    if (c->pebs_invalid && (sel & (X86_EVTSEL_ANY | X86_EVTSEL_EDGE | X86_EVTSEL_INV |
                                   (0xffull << 24))))
        pmusim_model_diag(&m->base,
                          "IA32_PEBS_ENABLE thread %u: PEBS on PMC%u with AnyThread, EDGE, INV "
                          "or CMASK set is invalid (SDM Vol. 3B §18.8.1.1); it overflows "
                          "normally",
                          t, i);
    else if (c->pebs_invalid)
        pmusim_model_diag(&m->base,
                          "IA32_PEBS_ENABLE thread %u: PEBS on PMC%u beside load latency is "
                          "invalid (SDM Vol. 3B §18.8.1.2); it overflows normally",
                          t, i);
    else if (((th->pebs_enable >> i) & 1) && !c->pebs)
        pmusim_model_diag(&m->base,
                          "IA32_PEBS_ENABLE thread %u: PMC%u's event 0x%02x/0x%02x is not "
                          "PEBS-capable; it overflows normally",
                          t, i, (unsigned)(sel & 0xff), (unsigned)((sel >> 8) & 0xff));
    if (c->src == X86_SRC_LDLAT && (sel & (X86_EVTSEL_INV | (0xffull << 24))))
        pmusim_model_diag(&m->base,
                          "IA32_PERFEVTSEL%u thread %u: the SDM requires CMASK = INV = 0 for "
                          "load latency (applied as programmed)",
                          i, t);
    if (c->out_msr && (sel & (X86_EVTSEL_EDGE | (0xffull << 24))))
        pmusim_model_diag(&m->base,
                          "IA32_PERFEVTSEL%u thread %u: CMASK/EDGE are not applied to "
                          "OUTSTANDING counts",
                          i, t);
}

gboolean x86_write_reg(pmusim_model_t *base, const pmusim_regwrite_t *w, GError **error)
{
    x86_model_t *m = x86_of(base);
    const x86_desc_t *d = m->d;
    x86_thr_unready(m);
    if (w->space != PMUSIM_REG_MSR) {
        g_set_error(error, PMUSIM_SIM_ERROR, PMUSIM_SIM_ERROR_REG,
                    "%s %u: the %s model has only MSRs", pmusim_regspace_name(w->space), w->num,
                    d->ops->name);
        return FALSE;
    }
    if (w->thread >= base->nthreads) {
        g_set_error(error, PMUSIM_SIM_ERROR, PMUSIM_SIM_ERROR_REG,
                    "MSR 0x%x: thread %u does not exist (the model has %u)", w->num, w->thread,
                    base->nthreads);
        return FALSE;
    }
    x86_thread_t *th = &m->th[w->thread];
    uint32_t num = w->num;
    uint64_t v = w->value;

    if (num >= X86_MSR_PMC0 && num < X86_MSR_PMC0 + d->n_gp) {
        x86_ctr_write(m, &th->ctr[num - X86_MSR_PMC0], w);
        return TRUE;
    }
    if (num >= X86_MSR_FIXED_CTR0 && num < X86_MSR_FIXED_CTR0 + X86_NUM_FIXED) {
        x86_ctr_t *c = &th->ctr[X86_FIXED_SLOT(num - X86_MSR_FIXED_CTR0)];
        if (v & ~c->max)
            return x86_gp_fault(error, d, w, NULL, v & ~c->max);
        x86_ctr_write(m, c, w);
        return TRUE;
    }
    if (num >= X86_MSR_EVTSEL0 && num < X86_MSR_EVTSEL0 + d->n_gp) {
        uint32_t i = num - X86_MSR_EVTSEL0;
        if (v >> 32)
            return x86_gp_fault(error, d, w, NULL, v & ~0xffffffffull);
        th->evtsel[i] = v;
        x86_ctr_t *c = &th->ctr[i];
        g_strlcpy(c->label, w->label, sizeof c->label);
        c->acc = 0;
        c->prev_cond = false;
        x86_recompile(m);
        x86_check_counter(m, w->thread, i);
        return TRUE;
    }
    switch (num) {
    case X86_MSR_FIXED_CTR_CTRL: {
        if (v & ~d->fixed_ctrl_valid)
            return x86_gp_fault(error, d, w, NULL, v & ~d->fixed_ctrl_valid);
        for (uint32_t k = 0; k < X86_NUM_FIXED; k++) {
            uint64_t nf = (v >> (4 * k)) & 0xf, of = (th->fixed_ctrl >> (4 * k)) & 0xf;
            if (nf != of && (nf & 3))
                g_strlcpy(th->ctr[X86_FIXED_SLOT(k)].label, w->label,
                          sizeof th->ctr[0].label);
        }
        th->fixed_ctrl = v;
        x86_recompile(m);
        return TRUE;
    }
    case X86_MSR_GLOBAL_CTRL:
        if (v & ~x86_global_valid(d))
            return x86_gp_fault(error, d, w, NULL, v & ~x86_global_valid(d));
        th->global_ctrl = v;
        th->frozen = false;
        x86_recompile(m);
        return TRUE;
    case X86_MSR_GLOBAL_STATUS:
        return x86_gp_fault(error, d, w, "read-only register", 0);
    case X86_MSR_GLOBAL_OVF_CTRL: {
        uint64_t valid = x86_global_valid(d) | d->ovf_ctrl_extra;
        if (v & ~valid)
            return x86_gp_fault(error, d, w, NULL, v & ~valid);
        th->ovf_ctrl = v;
        th->global_status &= ~v;
        return TRUE;
    }
    case X86_MSR_OFFCORE_RSP0:
    case X86_MSR_OFFCORE_RSP1: {
        uint32_t k = num - X86_MSR_OFFCORE_RSP0;
        if (v & ~d->oc_valid[k])
            return x86_gp_fault(error, d, w, NULL, v & ~d->oc_valid[k]);
        x86_offcore_regs(m, w->thread)[k] = v;
        x86_recompile(m);
        return TRUE;
    }
    case X86_MSR_PEBS_ENABLE:
        if (v & ~d->pebs_enable_valid)
            return x86_gp_fault(error, d, w, NULL, v & ~d->pebs_enable_valid);
        th->pebs_enable = v;
        x86_recompile(m);
        for (uint32_t i = 0; i < d->n_gp; i++)
            if ((v >> i) & 1)
                x86_check_counter(m, w->thread, i);
        return TRUE;
    case X86_MSR_PEBS_LD_LAT:
        if (!d->has_ldlat)
            break;
        if (v & ~0xffffull)
            return x86_gp_fault(error, d, w, NULL, v & ~0xffffull);
        if (v < 3)
            pmusim_model_diag(base,
                              "MSR_PEBS_LD_LAT_THRESHOLD thread %u = %" PRIu64
                              ": below the minimum of 3 the SDM documents",
                              w->thread, v);
        th->ldlat = v;
        x86_recompile(m);
        return TRUE;
    case X86_MSR_DS_AREA:
        /* kept for reads; PEBS records go to the report, not to memory */
        th->ds_area = v;
        return TRUE;
    case X86_MSR_DEBUGCTL:
        if (v & ~d->debugctl_valid)
            return x86_gp_fault(error, d, w, NULL, v & ~d->debugctl_valid);
        if (v & ~X86_DEBUGCTL_FREEZE_PERFMON_ON_PMI)
            pmusim_model_diag(base,
                              "IA32_DEBUGCTL thread %u = 0x%" PRIx64
                              ": only FREEZE_PERFMON_ON_PMI (bit 12) is modelled",
                              w->thread, v);
        th->debugctl = v;
        return TRUE;
    default:
        break;
    }
    return x86_gp_fault(error, d, w, "MSR not implemented", 0);
}

gboolean x86_read_reg(pmusim_model_t *base, pmusim_regspace_t space, uint32_t num,
                      uint32_t thread, uint64_t *value)
{
    x86_model_t *m = x86_of(base);
    const x86_desc_t *d = m->d;
    if (space != PMUSIM_REG_MSR || thread >= base->nthreads)
        return FALSE;
    const x86_thread_t *th = &m->th[thread];
    if (num >= X86_MSR_PMC0 && num < X86_MSR_PMC0 + d->n_gp) {
        *value = x86_ctr_peek(m, &th->ctr[num - X86_MSR_PMC0]);
        return TRUE;
    }
    if (num >= X86_MSR_FIXED_CTR0 && num < X86_MSR_FIXED_CTR0 + X86_NUM_FIXED) {
        *value = x86_ctr_peek(m, &th->ctr[X86_FIXED_SLOT(num - X86_MSR_FIXED_CTR0)]);
        return TRUE;
    }
    if (num >= X86_MSR_EVTSEL0 && num < X86_MSR_EVTSEL0 + d->n_gp) {
        *value = th->evtsel[num - X86_MSR_EVTSEL0];
        return TRUE;
    }
    switch (num) {
    case X86_MSR_FIXED_CTR_CTRL: *value = th->fixed_ctrl; return TRUE;
    case X86_MSR_GLOBAL_CTRL: *value = th->global_ctrl; return TRUE;
    case X86_MSR_GLOBAL_STATUS: *value = th->global_status; return TRUE;
    case X86_MSR_GLOBAL_OVF_CTRL: *value = th->ovf_ctrl; return TRUE;
    case X86_MSR_OFFCORE_RSP0:
    case X86_MSR_OFFCORE_RSP1:
        *value = x86_offcore_regs(m, thread)[num - X86_MSR_OFFCORE_RSP0];
        return TRUE;
    case X86_MSR_PEBS_ENABLE: *value = th->pebs_enable; return TRUE;
    case X86_MSR_PEBS_LD_LAT:
        if (!d->has_ldlat)
            return FALSE;
        *value = th->ldlat;
        return TRUE;
    case X86_MSR_DEBUGCTL: *value = th->debugctl; return TRUE;
    case X86_MSR_DS_AREA: *value = th->ds_area; return TRUE;
    default: return FALSE;
    }
}

void x86_set_ref_ratio(pmusim_model_t *base, uint32_t num, uint32_t den)
{
    x86_model_t *m = x86_of(base);
    x86_sync_to(m, m->now); /* what was accrued keeps the old ratio */
    m->ref_num = num;
    m->ref_den = den;
    x86_recompile(m);
}

/* ---- life cycle and report ---- */

pmusim_model_t *x86_create(const x86_desc_t *d, uint32_t nthreads, GError **error)
{
    if (nthreads == 0 || nthreads > d->ops->max_threads || nthreads > X86_MAX_THREADS) {
        g_set_error(error, PMUSIM_SIM_ERROR, PMUSIM_SIM_ERROR_MISMATCH,
                    "model %s supports 1..%u hardware threads, not %u", d->ops->name,
                    d->ops->max_threads, nthreads);
        return NULL;
    }
    x86_model_t *m = g_new0(x86_model_t, 1);
    pmusim_model_base_init(&m->base, d->ops, nthreads);
    m->d = d;
    const char *gen_only = g_getenv("PMUSIM_X86_GENERAL");
    m->general_only = gen_only && *gen_only && strcmp(gen_only, "0") != 0;
    m->deadline = X86_NEVER;
    m->ref_num = d->ref_num;
    m->ref_den = d->ref_den;
    m->captures = g_ptr_array_new_with_free_func(g_free);
    for (uint32_t t = 0; t < nthreads; t++) {
        x86_thread_t *th = &m->th[t];
        x86_thread_set_active(m, t, true);
        th->pmi_cycle = X86_NEVER;
        th->plm = 3; /* until the thread's first record says otherwise */
        /* Power-up: the GP enables are set for compatibility with version 1
         * software, the fixed enables clear (docs/sim-x86.md). */
        th->global_ctrl = x86_gp_mask(d);
        for (uint32_t s = 0; s < X86_NCTR; s++) {
            x86_ctr_t *c = &th->ctr[s];
            uint32_t width = s < X86_MAX_GP ? d->gp_width : d->fixed_width;
            c->max = (1ull << width) - 1;
            c->thread = (uint8_t)t;
            c->slot = (uint8_t)s;
            c->rate_until = X86_NEVER;
        }
    }
    x86_recompile(m);
    return &m->base;
}

void x86_destroy(pmusim_model_t *base)
{
    x86_model_t *m = x86_of(base);
    for (uint32_t t = 0; t < X86_MAX_THREADS; t++)
        for (uint32_t s = 0; s < X86_NCTR; s++)
            g_free(m->th[t].ctr[s].out_ends.a);
    g_ptr_array_free(m->captures, TRUE);
    pmusim_model_base_clear(base);
    g_free(m);
}

/* Appends the EVENT keys of c->ev_bits (" 0xCC/0xUU + ...") to g and sets
 * res->status to PMUSIM_COUNT_NOT_IN_TRACE unless the records of every bit
 * are in the trace or its "events" key: a capture with L1I:MISSES alone
 * (made before session 13) cannot give L1I:READS. */
static void x86_ev_bits_source(const x86_model_t *m, const x86_ctr_t *c, uint8_t code,
                               GString *g, pmusim_counter_result_t *res)
{
    const char *sep = " ";
    for (unsigned b = 0; b < 8; b++) {
        const unsigned um = 1u << b;
        if (!(c->ev_bits & um))
            continue;
        const uint16_t key = (uint16_t)(code | (um << 8));
        g_string_append_printf(g, "%s0x%02x/0x%02x", sep, code, um);
        sep = " + ";
        if (!((m->ev_seen[key / 64] >> (key % 64)) & 1) &&
            !pmusim_declared_events_has(m->base.trace_events, code, um))
            res->status = PMUSIM_COUNT_NOT_IN_TRACE;
    }
}

/* Fills res->source with what drives counter c as it is programmed at the
 * end, and res->status with PMUSIM_COUNT_NOT_IN_TRACE when the trace cannot
 * hold it: an EVENT-only event with no EVENT record of its code and umask
 * in the trace that the header's "events" key does not list either, a trace-derived event whose fields the trace's producer did
 * not fill (header annotations), or an event the counter cannot count
 * (Intel's counter restrictions).  Thresholds and INV do not change this: a
 * condition on an absent source is absent too (docs/trace-events-x86.md). */
static void x86_counter_source_of(const x86_model_t *m, const x86_ctr_t *c,
                                  pmusim_counter_result_t *res)
{
    const x86_thread_t *th = &m->th[c->thread];
    const char *phrase = NULL;
    uint32_t needs = 0;
    res->status = PMUSIM_COUNT_OK;
    if (c->slot >= X86_MAX_GP) {
        static const char *const fixed[X86_NUM_FIXED] = {
            "INSN records", "active (unhalted) cycles", "reference cycles while active"};
        g_strlcpy(res->source, fixed[c->slot - X86_MAX_GP], sizeof res->source);
        /* the cycle counters mean nothing on a trace without timing (a
         * lackey conversion with --no-model: one instruction a cycle) */
        if (c->slot > X86_MAX_GP && !(m->base.trace_annotations & PMUSIM_ANN_TIMING)) {
            g_strlcat(res->source, "; the trace lacks timing", sizeof res->source);
            res->status = PMUSIM_COUNT_NOT_IN_TRACE;
        }
        return;
    }
    uint64_t sel = th->evtsel[c->slot];
    uint8_t code = (uint8_t)(sel & 0xff), umask = (uint8_t)((sel >> 8) & 0xff);
    if (c->restricted) {
        const x86_restriction_t *rs = x86_restriction_find(m->d, code, umask);
        g_snprintf(res->source, sizeof res->source,
                   "none: %s is not countable on IA32_PMC%u (Intel's event data)",
                   rs->intel_event, c->slot);
        res->status = PMUSIM_COUNT_NOT_IN_TRACE;
        return;
    }
    switch (c->src) {
    case X86_SRC_EXPLICIT: {
        res->from_events = TRUE;
        if (c->ev_bits) {
            GString *g = g_string_new("EVENT records");
            x86_ev_bits_source(m, c, code, g, res);
            g_string_append(g, " (one per umask bit)");
            g_strlcpy(res->source, g->str, sizeof res->source);
            g_string_free(g, TRUE);
            return;
        }
        uint16_t key = c->ev_key;
        g_snprintf(res->source, sizeof res->source, "EVENT records 0x%02x/0x%02x", code, umask);
        if (!((m->ev_seen[key / 64] >> (key % 64)) & 1) &&
            !pmusim_declared_events_has(m->base.trace_events, code, umask))
            res->status = PMUSIM_COUNT_NOT_IN_TRACE;
        return;
    }
    case X86_SRC_OFFCORE:
    case X86_SRC_OUTSTANDING:
        if (!c->out_msr && c->src == X86_SRC_OUTSTANDING) { /* wsm 0x60: a table row */
            phrase = x86_event_source(m->d, code, umask);
            needs = x86_event_needs(m->d, code, umask);
            break;
        }
        phrase = c->src == X86_SRC_OUTSTANDING
                     ? "offcore requests in flight matching MSR_OFFCORE_RSP_0"
                     : "offcore records matching MSR_OFFCORE_RSP_x";
        needs = PMUSIM_ANN_OFFCORE;
        break;
    default:
        phrase = c->form ? c->form->phrase : x86_event_source(m->d, code, umask);
        needs = c->form ? c->form->needs : x86_event_needs(m->d, code, umask);
        break;
    }
    uint32_t missing = needs & ~m->base.trace_annotations;
    if (!missing && !c->ev_bits) {
        g_strlcpy(res->source, phrase ? phrase : "?", sizeof res->source);
        return;
    }
    GString *g = g_string_new(phrase);
    if (c->ev_bits) { /* BITS with EVENT bits: name them */
        g_string_append(g, "; EVENT records");
        x86_ev_bits_source(m, c, code, g, res);
    }
    if (!missing) {
        g_strlcpy(res->source, g->str, sizeof res->source);
        g_string_free(g, TRUE);
        return;
    }
    g_string_append(g, "; the trace lacks");
    for (uint32_t b = 0; b < PMUSIM_ANN_COUNT_; b++)
        if ((missing >> b) & 1)
            g_string_append_printf(g, " %s", pmusim_annotation_name(1u << b));
    g_strlcpy(res->source, g->str, sizeof res->source);
    g_string_free(g, TRUE);
    res->status = PMUSIM_COUNT_NOT_IN_TRACE;
}

/* Whether counter c counts EVENT records that the header's "evsum" key
 * says sum occurrences of several cycles: its own (code, umask), or one
 * of its EVENT bits. */
static bool x86_ev_summed(const x86_model_t *m, const x86_ctr_t *c, uint8_t code, uint8_t umask)
{
    const GArray *sum = m->base.trace_evsum;
    if (!sum || (c->src != X86_SRC_EXPLICIT && !c->ev_bits) || c->span)
        return false; /* "evspan" wins over "evsum" */
    if (c->src == X86_SRC_EXPLICIT && !c->ev_bits)
        return pmusim_declared_events_has(sum, code, umask);
    for (unsigned b = 0; b < 8; b++)
        if (((c->ev_bits >> b) & 1) && pmusim_declared_events_has(sum, code, 1u << b))
            return true;
    return false;
}

/* x86_counter_source_of(), and a threshold (CMASK, or EDGE, which counts
 * as CMASK 1) on EVENT records that sum several cycles' occurrences
 * (a model's trace: its stall cycles, walk cycles or port uops) is
 * <not in trace>: the engine compares one cycle's occurrences with CMASK,
 * and a sum of n from n cycles would be compared as one cycle's n
 * (docs/trace-events-x86.md, "Thresholds on the model's EVENT records"). */
static void x86_counter_source(const x86_model_t *m, const x86_ctr_t *c,
                               pmusim_counter_result_t *res)
{
    x86_counter_source_of(m, c, res);
    if (c->slot >= X86_MAX_GP || c->restricted || !(c->cmask || c->edge))
        return;
    const uint64_t sel = m->th[c->thread].evtsel[c->slot];
    if (!x86_ev_summed(m, c, (uint8_t)(sel & 0xff), (uint8_t)((sel >> 8) & 0xff)))
        return;
    g_strlcat(res->source,
              "; records sum cycles (evsum): no CMASK/EDGE",
              sizeof res->source);
    res->status = PMUSIM_COUNT_NOT_IN_TRACE;
}

static void x86_report_counter(const x86_model_t *m, const x86_ctr_t *c, pmusim_report_t *r)
{
    pmusim_counter_result_t res;
    memset(&res, 0, sizeof res);
    x86_ctr_name(c, res.reg, sizeof res.reg);
    const x86_thread_t *th = &m->th[c->thread];
    if (c->label[0])
        g_strlcpy(res.event, c->label, sizeof res.event);
    else if (c->slot < X86_MAX_GP && th->evtsel[c->slot])
        g_snprintf(res.event, sizeof res.event, "evtsel 0x%" PRIx64, th->evtsel[c->slot]);
    else if (c->slot >= X86_MAX_GP && c->programmed)
        g_snprintf(res.event, sizeof res.event, "fixed ctrl 0x%" PRIx64,
                   (th->fixed_ctrl >> (4 * (c->slot - X86_MAX_GP))) & 0xf);
    res.thread = c->thread;
    res.value = x86_ctr_peek(m, c);
    res.overflows = c->overflows;
    res.enabled = c->programmed;
    if (c->programmed)
        x86_counter_source(m, c, &res);
    g_array_append_val(r->counters, res);
}

void x86_report(pmusim_model_t *base, pmusim_report_t *r)
{
    x86_model_t *m = x86_of(base);
    for (uint32_t t = 0; t < base->nthreads; t++) {
        for (uint32_t i = 0; i < m->d->n_gp; i++)
            x86_report_counter(m, &m->th[t].ctr[i], r);
        for (uint32_t k = 0; k < X86_NUM_FIXED; k++)
            x86_report_counter(m, &m->th[t].ctr[X86_FIXED_SLOT(k)], r);
    }
    for (guint i = 0; i < m->captures->len; i++)
        g_ptr_array_add(r->captures, g_strdup(g_ptr_array_index(m->captures, i)));
    for (guint i = 0; i < base->diags->len; i++)
        g_ptr_array_add(r->diags, g_strdup(g_ptr_array_index(base->diags, i)));
    if (m->captures_dropped)
        g_ptr_array_add(r->diags, g_strdup_printf("%" PRIu64 " PEBS records dropped (limit %u)",
                                                  m->captures_dropped, X86_CAPTURE_MAX));
    g_array_append_vals(r->log, base->log->data, base->log->len);
    r->log_dropped = base->log_dropped;
    r->cycles = m->finished ? m->end : m->now;
    r->records = m->records;
}
