/* The microarchitecture model (include/pmusim/uarch.h, docs/UARCH.md).
 *
 * Per instruction: the front end fetches its line through the ITLB and L1I
 * (a miss delays dispatch), the instruction dispatches at most `width` uops
 * per cycle and no earlier than the retirement of the instruction `window`
 * places before it (the reorder window), its memory accesses go through the
 * DTLB and the cache hierarchy and complete after their latency, a
 * mispredicted branch restarts the front end `mispredict_penalty` cycles
 * after it resolves, and the instruction retires in order, at most `width`
 * uops per cycle, once complete.  That is the interval model of Genbrugge,
 * Eyerman and Eeckhout (HPCA 2010): misses inside one window overlap, an
 * access whose address depends on the previous load waits for it.
 *
 * Threads: SMT threads (Westmere, Knights Mill) have their own timelines
 * and share the caches, TLBs and predictor tables; their records are merged
 * into cycle order through bounded per-thread queues.  Montecito threads
 * share one timeline and switch on events: the input's thread changes are
 * the switches, each costs `switch_penalty` cycles and is framed by THREAD
 * records, and an instruction that missed L3 retires when its thread comes
 * back (or when its data is back, if no switch happens). */
#include "uarch_input.h"
#include "uarch_priv.h"

#include <inttypes.h>
#include <string.h>

#define OUT_BATCH 1024u
/* records other than EVENT held per SMT thread while merging: the model's
 * EVENT records (a bounded number an instruction: MAX_INSN_EVENTS kinds,
 * and one per page walk, walk_records(), or divide, one_record()) do not
 * count, so that where a full queue forces the merge on (and clamps a
 * lagging thread) does not depend on which EVENT kinds the model writes */
#define QUEUE_CAP 2048u
/* ... while another thread's instruction in parts holds them back (a
 * string instruction's accesses); also the bound of every record a queue
 * holds, EVENT records included (a trace's own EVENT records are not
 * bounded per instruction): 6.8 MB at most */
#define OPEN_QUEUE_CAP 65536u
#define IDLE_MIN 8u           /* a retirement gap this long becomes an IDLE record */
#define RING_SIZE 256u        /* >= every CPU's window, power of two */
#define DEP_RING 64u          /* > PMUSIM_UARCH_MAX_DEP, power of two */
#define LSQ_RING 64u          /* >= every CPU's load and store buffer, power of two */
/* Store forwarding's filter (stfwd_note()): counts of the live stores per
 * 8-byte granule, hashed to this many buckets (a power of two; at most
 * LSQ_RING stores each count a bucket once: no uint8_t overflow) */
#define SF_BUCKETS 64u
/* EVENT kinds one instruction can hold: at least the kinds a CPU lists
 * that go through ev_add_cu() (wsm 49 since session 16's stall, divider
 * and microcode-sequencer kinds; mont 35; pmusim_uarch_new() checks), so
 * that ev_add_cu() never drops one */
#define MAX_INSN_EVENTS 56u
/* EVENT kinds a thread's sums hold; a new kind beyond them writes the sums
 * early (events_add()).  Fewer than MAX_INSN_EVENTS: each count searches
 * them (measured, docs/PERFORMANCE.md "L2 traffic and write-backs") */
#define THREAD_EVENTS 16u
/* A thread's EVENT counts are summed over at most this many cycles before
 * they become records, so a stream of misses does not become a stream of
 * EVENT records; a count lands at most this late (docs/UARCH.md). */
#define EVENT_SPAN 64u
/* The port counts (UOPS_EXECUTED, one record per port) are summed over at
 * most this many cycles: they grow with every instruction, so at
 * EVENT_SPAN they would write six records every 64 cycles (measured:
 * docs/PERFORMANCE.md, "Dispatch ports, the divider and the microcode
 * sequencer"); a port count lands at most this late. */
#define PORT_SPAN 1024u

typedef struct insn_event {
    uint16_t code, umask;
    uint64_t n;
} insn_event_t;

typedef struct uarch_thread {
    uint64_t disp_cycle, ret_cycle;
    uint32_t disp_used, ret_used;
    uint64_t fe_ready;         /* front end delivers again from this cycle */
    /* when the data of the thread's last DEP_RING loads are back (load
     * nload - k at [(nload - k) % DEP_RING]), for a load whose address
     * depends on one of them (pmusim_uarch_access_t.addr_dep, access_done()) */
    uint64_t load_done[DEP_RING];
    uint64_t nload;
    uint64_t last_ret;         /* retirement cycle of the last instruction */
    gboolean any;              /* retired something */
    gboolean started;          /* has had input */
    uint64_t n;                /* instructions so far */
    /* retirement cycles of the last instructions; UINT64_MAX before the
     * first RING_SIZE (then ring[(n - window) % RING_SIZE] + 1 is 0 while
     * n < window: no reorder-window stall, without testing n) */
    uint64_t ring[RING_SIZE];
    /* the same for the thread's last LSQ_RING loads and stores (an access
     * each; alloc_cycle()), and how many it has had */
    uint64_t ldq[LSQ_RING], stq[LSQ_RING];
    uint64_t nld, nst;
    /* the thread's last LSQ_RING stores as store forwarding sees them
     * (x86, stfwd_note()): their bytes [addr, end) and the cycle each
     * leaves the store buffer (its retirement + 1); nsf: stores so far;
     * sf_live: the first that had not left at the last load's check (the
     * stores [sf_live, nsf) are in sf_cnt: per 8-byte granule hashed to
     * SF_BUCKETS, how many of them write it) */
    struct uarch_sf { uint64_t addr, end, gone; } sf[LSQ_RING];
    uint64_t nsf, sf_live;
    uint8_t sf_cnt[SF_BUCKETS];
    uint64_t misp_ready;       /* fe_ready as the last misprediction set it */
    uint32_t hist;             /* global branch history (taken bits) */
    uint64_t ras[32];
    uint32_t ras_n, ras_top;
    uint64_t last_fetch_blk;
    /* insn_fast()'s test of the line fetched last: its first byte
     * (last_fetch_blk's), and the mask of the bits above a line's offset,
     * UINT64_MAX until the thread's first instruction has been fetched
     * (so that its first instruction takes the exact test) */
    uint64_t fetch_lo, fetch_mask;
    uint8_t plm;
    /* output queue (SMT merge; Montecito: the held L3-miss instruction) */
    pmusim_rec_t *q;
    uint32_t qhead, qlen, qcap; /* qcap: allocated (a power of 2, grown up to OPEN_QUEUE_CAP) */
    uint32_t qev;              /* EVENT records among the qlen */
    gboolean holding;          /* Montecito: this thread's records wait for a switch */
    uint64_t switched_in;      /* Montecito: cycle this thread got the pipeline */
    insn_event_t evacc[THREAD_EVENTS]; /* EVENT counts not yet written */
    unsigned nevacc;
    uint64_t evacc_since;      /* retirement cycle of the first counted one */
    uint64_t ev_due;           /* evacc_since + EVENT_SPAN, UINT64_MAX when nevacc is 0 */
    /* uops dispatched to each port so far (ports_count(), which picks the
     * least loaded port of a choice by them: so the binding does not
     * depend on when sums are written), and as far as written
     * (events_flush() writes the difference) */
    uint64_t port_n[6], port_w[6];
    uint64_t port_due;         /* the first unwritten count's cycle + PORT_SPAN; UINT64_MAX: none */
    uint64_t div_free;         /* the divider takes a new divide from this cycle */
    unsigned i1_hit_slot;      /* evacc[] entry of the L1I hits when last found (ifetch_hits_fast()) */
    uint64_t halt_ret;         /* last_ret as pmusim_uarch_halt() set it (UINT64_MAX: none) */
    gboolean sleeping;         /* pmusim_uarch_sleep() until pmusim_uarch_wake(): the merge
                                * does not wait for it */
    uint64_t sleep_from;       /* the cycle of its THREAD inactive record */
    /* the EVENT counts of this thread's open instruction (parts,
     * PMUSIM_UARCH_ACC_MORE): its accesses' counts wait here until it
     * ends, so that no EVENT record comes between its MEM records */
    insn_event_t oev[MAX_INSN_EVENTS];
    unsigned noev;
    /* The thread's open instruction (its parts): the cycle of its INSN
     * record, which its further MEM records take, its ip, and the thread's
     * n after its last part (another instruction of the thread moves n: the
     * open one has ended). */
    gboolean open;
    uint64_t open_cycle, open_ip, open_n;
    /* The loop stream detector (wsm; lsd_track()): the last taken backward
     * conditional branch and its target (the loop watched), the uops
     * since it while they matter (LSD_WATCH, LSD_STREAM; lsd_count()),
     * the state, and the uops it delivered in cycle lsd_cyc not yet
     * written (lsd_emit(); lsd_cyc UINT64_MAX: none) */
    uint64_t lsd_ip, lsd_tgt;
    uint64_t lsd_cyc;
    uint32_t lsd_body, lsd_n;
    uint8_t lsd_state, lsd_plm;
    /* The decoders (docs/UARCH.md §1 "Decoders"), written by fe_flush()
     * with the ports' sums: the thread's continuations (insn_cont(): n
     * counts them too), its instructions (n - fe_cont) when last written,
     * the instructions the detector streamed and the macro-fused pairs it
     * did not stream since (the decoded instructions are the rest: no
     * count per instruction) */
    uint64_t fe_cont, fe_n_w, fe_str, fe_fus;
} uarch_thread_t;

/* lsd_branch()'s states of a thread's loop stream detector */
enum {
    LSD_NONE = 0,   /* no loop watched */
    LSD_WATCH = 1,  /* a taken backward conditional branch seen: its next iteration is measured */
    LSD_STREAM = 2, /* an iteration fitted: the loop streams from the instruction queue */
    LSD_OVER = 4,   /* an iteration did not fit (counted once as LSD_OVERFLOW) */
    LSD_COUNTING = LSD_WATCH | LSD_STREAM /* the states that count uops (lsd_count()) */
};

/* A reservation station (docs/UARCH.md §1, "The reservation station";
 * rs_room()): the uops in it, as a binary min-heap by the cycle they
 * leave, a heap element for each instruction's uops (at most `size`
 * elements: each holds at least one of the `used` <= size entries). */
typedef struct uarch_rs {
    uint32_t size, used, n;
    /* the uops that leave at next_leave, kept out of the heap (the common
     * case: an instruction that waits for no load leaves the cycle after
     * its allocation; rs_enter()); next_uops 0: none.  They count in
     * `used`; the heap holds the others. */
    uint32_t next_uops;
    uint64_t next_leave;
    /* the heap; h[0].leave is UINT64_MAX while it is empty (n 0), so
     * that rs_room() needs no test of n */
    struct uarch_rs_ent { uint64_t leave; uint32_t uops; } h[UARCH_RS_MAX];
} uarch_rs_t;

struct pmusim_uarch {
    const uarch_cpu_cfg_t *cfg;
    uint32_t nthreads;
    gboolean merge;            /* SMT with more than one thread */
    uint32_t merge_last;       /* SMT merge: thread of the last record handed out (UINT32_MAX: none) */
    uint32_t share;            /* slots a uop costs: nthreads when merging, else 1 */
    uint32_t window;           /* reorder window of one thread: cfg->window / share */
    uint32_t lb, sb;           /* load / store buffer entries of one thread (0: not modelled) */
    /* the reservation stations, shared by the core's threads: [0] the one
     * of wsm or knm's integer ones, [1] knm's memory cluster's, [2] knm's
     * vector ones (size 0: none); modelled only for an input with the
     * "rsdep" annotation (rs_on, pmusim_uarch_header()) */
    gboolean rs_on;
    uarch_rs_t rs[3];
    /* the station of an instruction with accesses and of an FP one
     * (rs[1], rs[2] when they exist, else rs[0]; rs_pick_on()) */
    uarch_rs_t *rs_mem, *rs_fp;
    gboolean stfwd;            /* x86: store-forwarding blocks are marked (stfwd_note()) */
    /* PARTIAL_ADDRESS_ALIAS is written (the CPU has it; an input with
     * every access: pmusim_uarch_header()) */
    gboolean alias_on;
    /* NO_ALLOC_CYCLES:ALL or NOT_DELIVERED is written: every gap in a
     * thread's allocation goes through alloc_stalls() */
    gboolean alloc_gaps;
    gboolean soemt;            /* Montecito with more than one thread */
    gboolean numa_interleave, mcdram, no_l2;
    gboolean l3_inclusive; /* the CPU's rule, or --LL-inclusive, or not with --L2=none */
    /* --L2=none on x86: cachegrind's accounting (docs/UARCH.md §4): an
     * access or fetch across two L1 lines goes to the LL whole if either
     * line missed, a modified L1D victim is not written back, and a data
     * access is cut to cg_cut bytes (the smallest line of I1, D1 and LL;
     * UINT64_MAX without the rules) */
    gboolean cg_rules;
    uint64_t cg_cut;
    pmusim_uarch_geom_t g_l1i, g_l1d, g_l2, g_l2i, g_l3;
    uarch_cache_t l1i, l1d, l2, l2i, l3;
    gboolean has_l2, has_l2i, has_l3;
    /* IA-64 bus transactions are written (an L3 of 128-byte lines, the
     * bus's line: docs/UARCH.md §5) */
    gboolean bus_ev;
    /* cycles a thread's EVENT counts are summed over: EVENT_SPAN; 0 on
     * IA-64, whose model events all count at most one a cycle (maxincr 1,
     * encoder/data/ia64/): a sum of n in one record would count once
     * (docs/UARCH.md §5), so each instruction's counts are written at its
     * retirement */
    uint32_t ev_span;
    gboolean l1d_plain;        /* every data access goes through the L1D, stores allocate */
    gboolean front_p2;         /* the L1I, L1D, ITLB and DTLB have 2^k sets (insn_fast()) */
    uarch_cache_t dtlb, stlb, itlb, itlb2;
    gboolean has_itlb2;
    uarch_bpred_t bp;
    uarch_thread_t th[PMUSIM_MAX_THREADS];
    pmusim_uarch_sink_fn sink;
    void *user;
    pmusim_rec_t *out;         /* the batch being built: own_out or the buffer fn's */
    pmusim_rec_t *outp;        /* next record of the batch (out + the records in it) */
    pmusim_rec_t *out_end;     /* out + OUT_BATCH */
    pmusim_uarch_buffer_fn buffer; /* NULL: own_out */
    pmusim_rec_t *own_out; /* OUT_BATCH records, not cleared: every record is written whole */
    pmusim_rec_t scratch;      /* target of writes after a sink failure */
    GError *err;               /* first sink failure */
    uint64_t floor;            /* cycle of the last record handed out */
    int running;               /* Montecito: thread holding the pipeline, -1 before any */
    gboolean want_switch;
    uint64_t ts_pending_l3;    /* Montecito: the running thread has an L3-miss switch event */
    /* per-instruction scratch (its EVENT counts: iev at the end) */
    unsigned niev;
    gboolean oc_valid;
    pmusim_offcore_t oc;
    gboolean ifetch_oc_valid;  /* an instruction fetch left the core */
    pmusim_offcore_t ifetch_oc;
    gboolean l3_miss;
    pmusim_uarch_stats_t st;
    /* The data line the fast path found last as the most recent of its L1D
     * set, its page the most recent of its DTLB set (data_access_l1_mru()),
     * and that L1D tag; UINT64_MAX: none.  Only data_access(),
     * data_access_plain() and back_invalidate() change the order of a set
     * or remove a line (an MRU hit changes neither): they clear it. */
    uint64_t dline_blk;
    uint64_t *dline_tag;
    /* The fast path's one test for EVENT work after an instruction: at most
     * th[0].ev_due, 0 while the instruction has counts (u->niev) */
    uint64_t ev_gate;
    uint32_t nopen;      /* threads with an open instruction (parts, PMUSIM_UARCH_ACC_MORE) */
    uint64_t cont_parts; /* continuations run (each took a ring entry: not instructions) */
    /* the first four bytes (code, umask) of an insn_event_t of the L1I
     * hits; UINT32_MAX when the CPU has no such event (no entry has it) */
    uint32_t l1i_hit_key;
    uint64_t itlb_misses; /* ITLB lookups that missed (ifetch_l1()), so far */
    /* a data lookup of the current access hit a modified L2 line
     * (outer_access(); data_access_done() writes its state and clears it) */
    gboolean l2_data_m;
    /* the current instruction is locked (PMUSIM_F_LOCK): its loads at L2
     * are lock RFOs too; set around the accesses that leave the L1D
     * (insn_fast()) or all of them (insn_body()) */
    gboolean lock_ld;
    /* Dispatch ports (docs/UARCH.md §1.1): counted (cfg->ev.port), and
     * the rule of each compute uop by the instruction's FP/SIMD class and
     * operation kind (flag bits 7-13, port_rule_of()) */
    gboolean ports;
    uint8_t port_rule[128];
    /* (flags & PMUSIM_F_OPKIND_MASK) of a divide when the CPU has a
     * divider model, else a value no flags give; uops above ms_limit come
     * from the microcode sequencer (UINT32_MAX: not modelled) */
    uint32_t div_key, ms_limit;
    /* the loop stream detector's largest body in uops (cfg->lsd_uops; 0:
     * not modelled, the CPU has no LSD events) */
    uint32_t lsd_cap;
    /* the decoders' counts net of the detector are written (fe_flush()):
     * the CPU has them (fe_cpu) and the input has branch kinds (fe_on:
     * pmusim_uarch_header() clears it for a header without brkind), and
     * the pairs also its fused pairs (fe_fuse: opkind and fuse) */
    gboolean fe_cpu, fe_on, fe_fuse;
    /* (flags & PMUSIM_F_OPKIND_MASK) of the first instruction of a
     * macro-fused pair when the CPU fuses (docs/UARCH.md §1
     * "Macro-fusion"), else a value no flags give */
    uint32_t fuse_key;
    uint32_t div_busy;         /* the current instruction's divide: busy cycles (0: none) */
    insn_event_t iev[MAX_INSN_EVENTS]; /* the instruction's EVENT counts (niev) */
    /* Line fill buffers (docs/UARCH.md §1 "Line fill buffers"): the core's
     * lfb_n buffers, each with the line of the L1D miss that took it last
     * and the cycle that fill's data are in (0: never taken); lfb_until is
     * the latest of those cycles, so a load that starts at or after it
     * needs no look.  lfb_n 0 (no LFB model): lfb_until stays 0. */
    uint32_t lfb_n;
    uint64_t lfb_until;
    struct { uint64_t blk, ready; } lfb[UARCH_LFB_MAX];
};

/* ---- output ---- */

static void out_flush(pmusim_uarch_t *u)
{
    const size_t nout = (size_t)(u->outp - u->out);
    if (!nout || u->err)
        return;
    GError *e = NULL;
    if (!u->sink(u->out, nout, u->user, &e)) {
        if (!e)
            g_set_error(&e, PMUSIM_UARCH_ERROR, PMUSIM_UARCH_ERROR_SINK, "record sink failed");
        u->err = e;
    }
    u->st.records += nout;
    if (u->buffer) { /* the sink kept the full one */
        u->out = u->buffer(OUT_BATCH, u->user);
        u->out_end = u->out + OUT_BATCH;
    }
    u->outp = u->out;
}

static pmusim_rec_t *out_slot(pmusim_uarch_t *u)
{
    if (u->outp == u->out_end)
        out_flush(u);
    if (u->err)
        return &u->scratch;
    return u->outp++;
}

static void out_copy(pmusim_uarch_t *u, const pmusim_rec_t *r)
{
    *out_slot(u) = *r;
    if (r->cycle > u->floor)
        u->floor = r->cycle;
}

/* Lowest cycle a thread's future records can have. */
static uint64_t thread_lower_bound(const uarch_thread_t *t)
{
    uint64_t lb = t->any ? t->last_ret + 1 : 0;
    return lb < t->ret_cycle ? lb : t->ret_cycle;
}

/* SMT merge: hands out queued records in cycle order as long as no started
 * thread could still produce an earlier one; `force` hands out the earliest
 * record regardless (a queue is full: the lagging threads are clamped to it
 * when their input comes).  The MEM records of an instruction whose INSN
 * record is out come next, before any other thread's record of the same
 * cycle: the format wants them directly after it (FORMAT.md §4.3), and
 * their cycle is that of the record just handed out, so the order holds. */
static void merge_drain(pmusim_uarch_t *u, gboolean force)
{
    for (;;) {
        int best = -1;
        const uint32_t last = u->merge_last;
        if (last < u->nthreads && u->th[last].qlen &&
            u->th[last].q[u->th[last].qhead].kind == PMUSIM_REC_MEM) {
            best = (int)last;
        } else {
            uint64_t bc = UINT64_MAX;
            for (uint32_t i = 0; i < u->nthreads; i++) {
                const uarch_thread_t *t = &u->th[i];
                if (t->qlen && t->q[t->qhead].cycle < bc) {
                    bc = t->q[t->qhead].cycle;
                    best = (int)i;
                }
            }
            if (best < 0)
                return;
            /* an open instruction's records come first on a tie; no
             * other thread's record of its cycle or later goes out before
             * it ends (its MEM records still come, at its cycle:
             * FORMAT.md §4.3).  rec_slot() ends the others' before a
             * forced drain for a thread could stop here.  (A change of
             * best only lowers bc: the open threads passed stay passed.) */
            for (uint32_t i = 0; G_UNLIKELY(u->nopen) && i < u->nthreads; i++) {
                const uarch_thread_t *o = &u->th[i];
                if (!o->open || (int)i == best)
                    continue;
                if (o->qlen && o->q[o->qhead].cycle <= bc) {
                    best = (int)i;
                    bc = o->q[o->qhead].cycle;
                } else if (bc >= o->open_cycle) {
                    return;
                }
            }
            if (!force)
                for (uint32_t i = 0; i < u->nthreads; i++) {
                    const uarch_thread_t *t = &u->th[i];
                    if (t->started && !t->qlen && !t->sleeping && thread_lower_bound(t) < bc)
                        return;
                }
        }
        uarch_thread_t *t = &u->th[best];
        u->merge_last = (uint32_t)best;
        out_copy(u, &t->q[t->qhead]);
        t->qev -= t->q[t->qhead].kind == PMUSIM_REC_EVENT;
        t->qhead = (t->qhead + 1) & (t->qcap - 1);
        t->qlen--;
        if (force)
            return;
    }
}

static void insn_close(pmusim_uarch_t *u, uint32_t ti);

/* A zeroed record of kind/thread/plm at `cycle`: field by field, because
 * a compound literal or memset of the 104-byte record compiles to `rep
 * stos`, which costs more than the stores. */
static inline void rec_clear(pmusim_rec_t *r, uint64_t cycle, unsigned kind, uint32_t ti,
                             uint8_t plm)
{
    r->cycle = cycle;
    r->kind = (uint8_t)kind;
    r->thread = (uint8_t)ti;
    r->flags = 0;
    r->plm = plm;
    r->slot = r->unit = r->len = 0;
    r->ip = r->insn = r->n = 0;
    r->ev_code = r->ev_umask = 0;
    r->uops = 0;
    r->name = NULL;
    r->mem = (pmusim_mem_t){ 0 };
    r->br = (pmusim_branch_t){ 0 };
    r->oc = (pmusim_offcore_t){ 0 };
}

/* Doubles a thread's queue storage (its capacity stays QUEUE_CAP, or
 * OPEN_QUEUE_CAP behind an instruction in parts: the storage starts small
 * because most runs never fill it, and creating a model should not cost
 * 200 KiB per thread). */
static G_GNUC_NO_INLINE void queue_grow(uarch_thread_t *t)
{
    uint32_t cap = t->qcap ? 2 * t->qcap : 64;
    pmusim_rec_t *q = g_new(pmusim_rec_t, cap);
    for (uint32_t i = 0; i < t->qlen; i++)
        q[i] = t->q[(t->qhead + i) & (t->qcap - 1)];
    g_free(t->q);
    t->q = q;
    t->qhead = 0;
    t->qcap = cap;
}

/* Where the next record of thread `ti` at `cycle` goes (its queue when
 * merging or holding, else the output batch); the caller fills every
 * field, `kind` (an EVENT record does not count against QUEUE_CAP)
 * included. */
static inline pmusim_rec_t *rec_slot(pmusim_uarch_t *u, uint32_t ti, unsigned kind,
                                     uint64_t cycle)
{
    uarch_thread_t *t = &u->th[ti];
    pmusim_rec_t *r;
    if (u->merge || t->holding) {
        if (G_UNLIKELY(t->qlen - t->qev >= QUEUE_CAP || t->qlen >= OPEN_QUEUE_CAP) &&
            !(u->nopen > (uint32_t)t->open && t->qlen < OPEN_QUEUE_CAP)) {
            /* other threads' open instructions, which hold this queue's
             * records back, may do so up to OPEN_QUEUE_CAP records; then
             * they end here (their later parts run as instructions of their
             * own) */
            for (uint32_t i = 0; u->nopen && i < u->nthreads; i++)
                if (i != ti && u->th[i].open)
                    insn_close(u, i);
            while (t->qlen - t->qev >= QUEUE_CAP || t->qlen >= OPEN_QUEUE_CAP)
                merge_drain(u, TRUE);
        }
        if (G_UNLIKELY(t->qlen == t->qcap))
            queue_grow(t);
        r = &t->q[(t->qhead + t->qlen) & (t->qcap - 1)];
        t->qlen++;
        t->qev += kind == PMUSIM_REC_EVENT;
    } else {
        r = out_slot(u);
        if (cycle > u->floor)
            u->floor = cycle;
    }
    return r;
}

static pmusim_rec_t *rec_new(pmusim_uarch_t *u, uint32_t ti, unsigned kind, uint64_t cycle)
{
    pmusim_rec_t *r = rec_slot(u, ti, kind, cycle);
    rec_clear(r, cycle, kind, ti, u->th[ti].plm);
    return r;
}

/* Notes n occurrences of (code, umask) for the current instruction; they
 * become one EVENT record per (code, umask) at its retirement. */
static void ev_add_cu(pmusim_uarch_t *u, uint16_t code, uint16_t umask, uint64_t n)
{
    if (!n)
        return;
    u->ev_gate = 0;
    for (unsigned i = 0; i < u->niev; i++)
        if (u->iev[i].code == code && u->iev[i].umask == umask) {
            u->iev[i].n += n;
            return;
        }
    if (u->niev < MAX_INSN_EVENTS)
        u->iev[u->niev++] = (insn_event_t){ code, umask, n };
}

static void ev_add(pmusim_uarch_t *u, const uarch_ev_t *ev, uint64_t n)
{
    if (ev->present)
        ev_add_cu(u, ev->code, ev->umask, n);
}

/* A page walk's cycles (docs/UARCH.md §3): one EVENT record of n =
 * lat_walk per walk, not summed, so that a threshold on the kind counts
 * walks in progress (the header's "evspan" key, pmusim_uarch_header()).
 * The walk is noted among the instruction's counts as a kind of its own,
 * the code with EV_WALK set and n the number of walks: it takes the path
 * of the other counts (u->iev, an open instruction's t->oev, one entry
 * per kind, as the summed walk cycles took), instructions without a walk
 * pay nothing, and events_add() writes its records (walk_records()).
 * EV_WALK is above every CPU's event codes (x86 0xff, the IA-64 facts'
 * 0x100; IA-64 has no walk-cycle kind). */
#define EV_WALK 0x8000u
static void walk_add(pmusim_uarch_t *u, const uarch_ev_t *ev)
{
    if (ev->present)
        ev_add_cu(u, (uint16_t)(ev->code | EV_WALK), ev->umask, 1);
}

/* The divider's busy cycles of an instruction in parts (insn_body()'s
 * `open`): one EVENT record of n = busy at the instruction's end, as a
 * divide of one part writes at its retirement, so that a threshold on the
 * kind counts busy intervals (the header's "evspan" key).  Noted among
 * the instruction's counts with EV_ONE set, n the busy cycles: the entry
 * waits in t->oev with the parts' other counts and events_add() writes it
 * as one record (one_record()); an instruction has one divide, so the
 * entry is never summed with another.  Above every CPU's codes, beside
 * EV_WALK. */
#define EV_ONE 0x4000u
static void div_add_open(pmusim_uarch_t *u, const uarch_ev_t *ev, uint32_t busy)
{
    if (ev->present)
        ev_add_cu(u, (uint16_t)(ev->code | EV_ONE), ev->umask, busy);
}

/* The EVENT counts of an x86 front-end resteer (a direct branch the BTB
 * did not know): BACLEAR(S), and knm's BACLEARS:COND for a conditional one
 * (docs/trace-events-x86.md). */
static inline void resteer_events(pmusim_uarch_t *u, const pmusim_uarch_insn_t *in)
{
    ev_add(u, &u->cfg->ev.baclear, 1);
    if (in->br == PMUSIM_UARCH_BR_COND)
        ev_add(u, &u->cfg->ev.baclear_cond, 1);
}

/* ---- dispatch ports (docs/UARCH.md §1.1) ---- */

/* Where a compute uop of an instruction goes, by the instruction's FP/SIMD
 * class and operation kind: a port (0..5), or the least loaded of p0, p1
 * and p5 (PORT_RULE_015) or of p0 and p5 (PORT_RULE_05).  Sources and the
 * model's choices: docs/UARCH.md §1.1 (Intel's optimization manual for
 * the roles of the ports, uarch.md §1.4; ZSim's Westmere port masks). */
enum { PORT_RULE_015 = 6, PORT_RULE_05 = 7 };
/* An x86 FP/SIMD class of floating point (x87, SSE scalar or packed FP). */
static inline gboolean fpc_is_fp(unsigned fpc)
{
    return fpc == PMUSIM_FPC_X87 || fpc == PMUSIM_FPC_SS || fpc == PMUSIM_FPC_SD ||
           fpc == PMUSIM_FPC_PS || fpc == PMUSIM_FPC_PD;
}

static uint8_t port_rule_of(unsigned fpc, unsigned opk)
{
    const gboolean fp = fpc_is_fp(fpc);
    switch (opk) {
    case PMUSIM_OPK_DIV: /* the divider */
        return 0;
    case PMUSIM_OPK_MUL: /* FP multiplier on p0, integer multiply on p1 */
        return fp ? 0 : 1;
    case PMUSIM_OPK_PACKED_MPY:
        return 1;
    case PMUSIM_OPK_PACK:
    case PMUSIM_OPK_UNPACK:
    case PMUSIM_OPK_SHUFFLE_MOVE:
    case PMUSIM_OPK_PACKED_ARITH:
    case PMUSIM_OPK_PACKED_SHIFT:
        return PORT_RULE_05;
    case PMUSIM_OPK_NONE:
        return fp ? 1 : PORT_RULE_015; /* the FP adder; integer ALUs */
    default: /* packed logical; kinds 10-15 (a reader refuses them) */
        return PORT_RULE_015;
    }
}

/* 1 for the first instruction of a macro-fused pair on a CPU that fuses
 * (docs/UARCH.md §1, "Macro-fusion"), else 0. */
static inline __attribute__((always_inline)) uint32_t insn_fused(const pmusim_uarch_t *u,
                                                                 const pmusim_uarch_insn_t *in)
{
    return (in->flags & PMUSIM_F_OPKIND_MASK) == u->fuse_key;
}

/* The dispatch and retirement slots of an x86 instruction: its fused
 * uops (0 = 1), one fewer for the first instruction of a macro-fused pair
 * on a CPU that fuses: the pair's one uop is its branch's, so a register
 * TEST or CMP takes none.  insn_fast() computes them once, with
 * insn_fused(), for the whole instruction. */
static inline __attribute__((always_inline)) uint32_t insn_slots(const pmusim_uarch_t *u,
                                                                 const pmusim_uarch_insn_t *in)
{
    return (in->uops ? in->uops : 1u) - insn_fused(u, in);
}

/* Counts the uops of an instruction of `uops` slots (insn_slots()), or of
 * a continuation's accesses (without `compute`; `uops` unused), by port,
 * in thread t's sums, retired at r: a load on p2, a store's address on p3
 * and its data on p4; the fused uops beyond one per access are compute
 * uops (at least one for a branch, on p5), each placed by its rule (the
 * least loaded port of a choice, ties to the lower number).  Sets the
 * thread's due cycle when its sums were empty. */
static inline __attribute__((always_inline)) void
ports_count(pmusim_uarch_t *u, uarch_thread_t *t, const pmusim_uarch_insn_t *in, uint32_t nld,
            uint32_t nst, gboolean br, gboolean compute, uint32_t uops, uint64_t r)
{
    t->port_n[2] += nld;
    t->port_n[3] += nst;
    t->port_n[4] += nst;
    if (compute) {
        uint32_t nc = uops > nld + nst ? uops - nld - nst : 0;
        if (br) {
            t->port_n[5]++;
            nc -= nc != 0;
        }
        const unsigned rule = u->port_rule[(in->flags >> PMUSIM_F_FPCLASS_SHIFT) & 127u];
        for (; nc; nc--) {
            unsigned p = rule;
            if (rule >= PORT_RULE_015) {
                p = rule == PORT_RULE_015 && t->port_n[1] < t->port_n[0] ? 1 : 0;
                if (t->port_n[5] < t->port_n[p])
                    p = 5;
            }
            t->port_n[p]++;
        }
    }
    if (t->port_due == UINT64_MAX) {
        t->port_due = r + PORT_SPAN;
        if (t == &u->th[0] && u->ev_gate > t->port_due)
            u->ev_gate = t->port_due;
    }
}
_Static_assert(PMUSIM_F_OPKIND_SHIFT == PMUSIM_F_FPCLASS_SHIFT + 3 &&
               PMUSIM_F_OPKIND_MASK >> PMUSIM_F_FPCLASS_SHIFT == 120u,
               "ports_count() indexes port_rule[] with the class and kind bits together");

/* ---- set-up ---- */

static const pmusim_uarch_geom_t *pick_geom(gboolean set, const pmusim_uarch_geom_t *opt,
                                            const pmusim_uarch_geom_t *def)
{
    return set ? opt : def;
}

pmusim_uarch_t *pmusim_uarch_new(pmusim_cpu_t cpu, uint32_t nthreads,
                                 const pmusim_uarch_options_t *o, pmusim_uarch_sink_fn sink,
                                 void *user, GError **error)
{
    const uarch_cpu_cfg_t *cfg = uarch_cpu_cfg(cpu);
    if (cfg) {
        /* uarch_events_t is uarch_ev_t members only (set_events_meta()) */
        const uarch_ev_t *ev = (const uarch_ev_t *)&cfg->ev;
        unsigned kinds = 0;
        for (size_t i = 0; i < sizeof cfg->ev / sizeof *ev; i++)
            kinds += ev[i].present != FALSE;
        /* the port counts and the decoders' (fe_flush()) have sums of
         * their own, the LOAD_DISPATCH kinds are never written: none goes
         * through ev_add_cu() */
        for (size_t k = 0; k < G_N_ELEMENTS(cfg->ev.port); k++)
            kinds -= cfg->ev.port[k].present != FALSE;
        kinds -= (cfg->ev.ld_rs_delayed.present != FALSE) + (cfg->ev.ld_mob.present != FALSE);
        kinds -= (cfg->ev.l1d_pf_req.present != FALSE) + (cfg->ev.l1d_pf_miss.present != FALSE) +
                 (cfg->ev.l1d_pf_trig.present != FALSE) +
                 (cfg->ev.l2_out_pf_clean.present != FALSE) +
                 (cfg->ev.l2_out_pf_dirty.present != FALSE);
        kinds -= (cfg->ev.dec_insts.present != FALSE) + (cfg->ev.iq_writes.present != FALSE) +
                 (cfg->ev.dec_fusions.present != FALSE);
        g_assert(kinds <= MAX_INSN_EVENTS);
    }
    pmusim_uarch_options_t none;
    if (!o) {
        pmusim_uarch_options_init(&none);
        o = &none;
    }
    if (!cfg) {
        g_set_error(error, PMUSIM_UARCH_ERROR, PMUSIM_UARCH_ERROR_OPTION,
                    "no microarchitecture model for CPU '%s' (expected ita2, mont, wsm, wsm_dp "
                    "or knm)", pmusim_cpu_name(cpu));
        return NULL;
    }
    if (nthreads < 1 || nthreads > cfg->max_threads) {
        g_set_error(error, PMUSIM_UARCH_ERROR, PMUSIM_UARCH_ERROR_OPTION,
                    "%s has 1..%u hardware threads per core, not %u", pmusim_cpu_name(cpu),
                    cfg->max_threads, nthreads);
        return NULL;
    }
    if (o->numa_interleave && cpu != PMUSIM_CPU_WSM_DP) {
        g_set_error(error, PMUSIM_UARCH_ERROR, PMUSIM_UARCH_ERROR_OPTION,
                    "--numa applies to wsm_dp only (the other CPUs have one socket)");
        return NULL;
    }
    if (o->knm_mcdram && cpu != PMUSIM_CPU_KNM) {
        g_set_error(error, PMUSIM_UARCH_ERROR, PMUSIM_UARCH_ERROR_OPTION,
                    "--knm-memory applies to knm only");
        return NULL;
    }
    gboolean has_l3 = cfg->l3.size != 0;
    if (!has_l3 && o->l2_set) {
        g_set_error(error, PMUSIM_UARCH_ERROR, PMUSIM_UARCH_ERROR_OPTION,
                    "--L2: %s has no intermediate level (its L2 is the last level: use --LL)",
                    pmusim_cpu_name(cpu));
        return NULL;
    }
    if (!has_l3 && o->ll_incl_set) {
        g_set_error(error, PMUSIM_UARCH_ERROR, PMUSIM_UARCH_ERROR_OPTION,
                    "--LL-inclusive: %s's last level (its L2) is not inclusive in the model "
                    "(it has no L3)",
                    pmusim_cpu_name(cpu));
        return NULL;
    }
    pmusim_uarch_t *u = g_new0(pmusim_uarch_t, 1);
    u->cfg = cfg;
    u->nthreads = nthreads;
    u->merge = !cfg->soemt && nthreads > 1;
    u->merge_last = UINT32_MAX;
    u->soemt = cfg->soemt && nthreads > 1;
    u->share = u->merge ? nthreads : 1;
    u->window = cfg->window / u->share;
    g_assert(u->window >= 1 && u->window <= RING_SIZE); /* what the ring relies on */
    /* Westmere halves the load and store buffers between two threads as
     * it does the ROB (uarch.md §1.4) */
    u->lb = cfg->lb_entries / u->share;
    g_assert(cfg->lfb_entries <= UARCH_LFB_MAX);
    u->lfb_n = cfg->lfb_entries; /* shared by the core's threads */
    u->sb = cfg->sb_entries / u->share;
    g_assert(cfg->lb_entries <= LSQ_RING && cfg->sb_entries <= LSQ_RING);
    g_assert((u->lb || !cfg->lb_entries) && (u->sb || !cfg->sb_entries));
    g_assert(cfg->rs_entries <= UARCH_RS_MAX && cfg->rs_mem_entries <= UARCH_RS_MAX &&
             cfg->rs_fp_entries <= UARCH_RS_MAX);
    u->rs[0].size = cfg->rs_entries;
    u->rs[1].size = cfg->rs_mem_entries;
    u->rs[2].size = cfg->rs_fp_entries;
    for (unsigned k = 0; k < 3; k++)
        u->rs[k].h[0].leave = UINT64_MAX; /* empty (rs_pop()) */
    u->rs_mem = u->rs[1].size ? &u->rs[1] : &u->rs[0];
    u->rs_fp = u->rs[2].size ? &u->rs[2] : &u->rs[0];
    u->alloc_gaps = cfg->ev.no_alloc_all.present || cfg->ev.not_delivered.present;
    u->numa_interleave = o->numa_interleave;
    u->mcdram = o->knm_mcdram;
    u->sink = sink;
    u->user = user;
    u->own_out = g_new(pmusim_rec_t, OUT_BATCH);
    u->out = u->outp = u->own_out;
    u->out_end = u->out + OUT_BATCH;
    u->running = -1;
    u->dline_blk = UINT64_MAX;
    u->ev_gate = UINT64_MAX; /* th[0].ev_due, below */
    u->g_l1i = *pick_geom(o->i1_set, &o->i1, &cfg->l1i);
    u->g_l1d = *pick_geom(o->d1_set, &o->d1, &cfg->l1d);
    if (has_l3) {
        u->g_l2 = *pick_geom(o->l2_set, &o->l2, &cfg->l2);
        u->g_l3 = *pick_geom(o->ll_set, &o->ll, &cfg->l3);
        u->no_l2 = o->no_l2;
    } else {
        u->g_l2 = *pick_geom(o->ll_set, &o->ll, &cfg->l2);
    }
    u->g_l2i = cfg->l2i;
    u->has_l2 = !u->no_l2;
    u->has_l3 = has_l3;
    u->l3_inclusive = o->ll_incl_set ? o->ll_incl : cfg->l3_inclusive && !u->no_l2;
    u->has_l2i = cfg->l2i.size && !u->no_l2;
    u->bus_ev = cfg->ia64 && has_l3 && u->g_l3.line == 128;
    u->ev_span = cfg->ia64 ? 0 : EVENT_SPAN;
    u->l1d_plain = !cfg->l1d_int_only && !cfg->l1d_write_through;
    u->cg_rules = o->no_l2 && u->l1d_plain;
    u->cg_cut = UINT64_MAX;
    if (u->cg_rules) {
        const pmusim_uarch_geom_t *ll = has_l3 ? &u->g_l3 : &u->g_l2;
        u->cg_cut = MIN(MIN(u->g_l1i.line, u->g_l1d.line), ll->line);
    }
    /* insn_fast() takes the L1D to be plain on x86 and not on IA-64 */
    g_assert(u->l1d_plain == !cfg->ia64);
    gboolean ok = uarch_cache_init(&u->l1i, &u->g_l1i) && uarch_cache_init(&u->l1d, &u->g_l1d) &&
                  (!u->has_l2 || uarch_cache_init(&u->l2, &u->g_l2)) &&
                  (!u->has_l3 || uarch_cache_init(&u->l3, &u->g_l3)) &&
                  (!u->has_l2i || uarch_cache_init(&u->l2i, &u->g_l2i)) &&
                  uarch_cache_init(&u->dtlb, &cfg->dtlb) && uarch_cache_init(&u->stlb, &cfg->stlb) &&
                  uarch_cache_init(&u->itlb, &cfg->itlb);
    u->has_itlb2 = cfg->itlb2.size != 0;
    /* ifetch_hits_fast() compares an EVENT sum's code and umask with this */
    const insn_event_t l1i_hit = { cfg->ev.l1i_hit.code, cfg->ev.l1i_hit.umask, 0 };
    u->l1i_hit_key = UINT32_MAX;
    if (cfg->ev.l1i_hit.present)
        memcpy(&u->l1i_hit_key, &l1i_hit, sizeof u->l1i_hit_key);
    /* insn_fast() also takes a line to lie within one 4 KiB page (the page
     * of the line fetched or read last is its TLB set's most recent):
     * lines of more than 4 KiB, which cachegrind accepts, take the general
     * body */
    u->front_p2 = ok && u->l1i.pow2 && u->l1d.pow2 && u->itlb.pow2 && u->dtlb.pow2 &&
                  u->l1i.line_bits <= 12 && u->l1d.line_bits <= 12;
    if (ok && u->has_itlb2)
        ok = uarch_cache_init(&u->itlb2, &cfg->itlb2);
    if (!ok) { /* a geometry the option parser would refuse, or no memory */
        g_set_error(error, PMUSIM_UARCH_ERROR, PMUSIM_UARCH_ERROR_OPTION,
                    "cannot build the caches of %s: the tags (8 bytes a line: %" PRIu64
                    " MiB for --I1, --D1, --L2 and --LL) do not fit in memory",
                    pmusim_cpu_name(cpu),
                    ((u->g_l1i.size / u->g_l1i.line) + (u->g_l1d.size / u->g_l1d.line) +
                     (u->has_l2 ? u->g_l2.size / u->g_l2.line : 0) +
                     (u->has_l3 ? u->g_l3.size / u->g_l3.line : 0)) * 8 >> 20);
        pmusim_uarch_free(u);
        return NULL;
    }
    uarch_bpred_init(&u->bp, cfg);
    u->ports = cfg->ev.port[0].present;
    for (unsigned i = 0; i < G_N_ELEMENTS(u->port_rule); i++)
        u->port_rule[i] = port_rule_of(i & 7u, i >> 3);
    u->div_key = cfg->lat_div_int ? (uint32_t)PMUSIM_OPK_DIV << PMUSIM_F_OPKIND_SHIFT : UINT32_MAX;
    u->ms_limit = cfg->ms_uops ? cfg->ms_uops : UINT32_MAX;
    u->lsd_cap = cfg->lsd_uops && cfg->ev.lsd_uops.present ? cfg->lsd_uops : 0;
    /* the decoders' counts ride on the ports' sums (fe_flush()) */
    u->fe_cpu = u->lsd_cap && u->ports && cfg->ev.dec_insts.present;
    u->fe_on = u->fe_fuse = u->fe_cpu;
    u->fuse_key = cfg->macro_fusion ? (uint32_t)PMUSIM_OPK_FUSED << PMUSIM_F_OPKIND_SHIFT : UINT32_MAX;
    u->stfwd = !cfg->ia64;
    u->alias_on = u->stfwd && cfg->ev.addr_alias.present;
    for (uint32_t i = 0; i < nthreads; i++) {
        uarch_thread_t *t = &u->th[i];
        t->last_fetch_blk = UINT64_MAX;
        t->fetch_mask = UINT64_MAX;
        t->ev_due = UINT64_MAX;
        t->lsd_cyc = UINT64_MAX;
        t->port_due = UINT64_MAX;
        t->halt_ret = UINT64_MAX;
        for (uint32_t k = 0; k < RING_SIZE; k++)
            t->ring[k] = UINT64_MAX;
        for (uint32_t k = 0; k < LSQ_RING; k++)
            t->ldq[k] = t->stq[k] = UINT64_MAX;
        t->misp_ready = UINT64_MAX;
        t->plm = 3;
        /* SMT threads run from cycle 0 together: none may be overtaken by
         * another's records until its queue fills (then it is clamped) */
        t->started = u->merge;
        if (u->merge || u->soemt)
            queue_grow(t);
    }
    return u;
}

void pmusim_uarch_free(pmusim_uarch_t *u)
{
    if (!u)
        return;
    uarch_cache_free(&u->l1i);
    uarch_cache_free(&u->l1d);
    uarch_cache_free(&u->l2);
    uarch_cache_free(&u->l2i);
    uarch_cache_free(&u->l3);
    uarch_cache_free(&u->dtlb);
    uarch_cache_free(&u->stlb);
    uarch_cache_free(&u->itlb);
    uarch_cache_free(&u->itlb2);
    uarch_bpred_free(&u->bp);
    for (uint32_t i = 0; i < PMUSIM_MAX_THREADS; i++)
        g_free(u->th[i].q);
    if (u->err)
        g_error_free(u->err);
    g_free(u->own_out);
    g_free(u);
}

void pmusim_uarch_set_buffer(pmusim_uarch_t *u, pmusim_uarch_buffer_fn fn)
{
    g_return_if_fail(u->outp == u->out);
    u->buffer = fn;
    u->out = u->outp = fn ? fn(OUT_BATCH, u->user) : u->own_out;
    u->out_end = u->out + OUT_BATCH;
}

static void set_geom_meta(pmusim_trace_header_t *h, const char *key, const pmusim_uarch_geom_t *g)
{
    char buf[80];
    g_snprintf(buf, sizeof buf, "%" PRIu64 ",%u,%u", g->size, g->assoc, g->line);
    pmusim_trace_header_set_meta(h, key, buf);
}

/* The header's "events" key (docs/UARCH.md section 6): every EVENT record
 * this configuration writes whenever its fact happens, so that a replay
 * tells "happened zero times" from "not modelled".  A level the
 * configuration lacks (--L2=none, no L3) writes none of its events. */
static void set_events_meta(const pmusim_uarch_t *u, pmusim_trace_header_t *h, gboolean brkind,
                            gboolean fuse)
{
    const uarch_events_t *ev = &u->cfg->ev;
    const gboolean wb_l2 = u->has_l2 && !u->cg_rules; /* l1d_filled() */
    const gboolean l2_wb = u->has_l2 && u->has_l3;    /* a modified L2 victim to L3 */
    const struct {
        const uarch_ev_t *e;
        gboolean happens;
    } kinds[] = {
        {&ev->l1d_repl, TRUE},        {&ev->l1d_m_evict, TRUE}, {&ev->l2_lines_in, u->has_l2},
        {&ev->l2_out_clean, u->has_l2}, {&ev->l2_out_dirty, u->has_l2}, {&ev->l2_out_any, u->has_l2},
        {&ev->l3_repl, u->has_l3},    {&ev->l1i_miss, TRUE},    {&ev->l1i_hit, TRUE},
        {&ev->l1i_fill, TRUE},
        {&ev->ifetch_ear, TRUE},      {&ev->itlb_miss, TRUE},   {&ev->itlb_walk, TRUE},
        {&ev->itlb_stlb_hit, TRUE},   {&ev->itlb_miss_ret, TRUE},
        {&ev->itlb_walk_cyc, TRUE},   {&ev->dtlb_walk_cyc, TRUE},
        {&ev->dtlb_ld_walk_cyc, TRUE},
        {&ev->l2_ifetch_hit, u->has_l2}, {&ev->l2_ifetch_miss, u->has_l2},
        {&ev->l2_pf_hit, u->has_l2},  {&ev->l2_pf_miss, u->has_l2},
        {&ev->l2_tr_ifetch, u->has_l2}, {&ev->l2_tr_pf, u->has_l2},
        /* write-backs into L2: none under cachegrind's rules (--L2=none) */
        {&ev->l2_tr_l1d_wb, wb_l2},   {&ev->l2_tr_fill, u->has_l2},
        {&ev->l2_tr_wb, u->has_l2 && u->has_l3}, {&ev->l1d_wb_l2, wb_l2},
        {&ev->l1d_wb_l2_miss, wb_l2}, {&ev->oc_l1d_wb, wb_l2},
        /* L2 line states: S and prefetches listed, never written */
        {&ev->l2_ld_e, u->has_l2},    {&ev->l2_ld_m, u->has_l2}, {&ev->l2_ld_s, u->has_l2},
        {&ev->l2_rfo_e, u->has_l2},   {&ev->l2_rfo_m, u->has_l2}, {&ev->l2_rfo_s, u->has_l2},
        {&ev->l2_lock_e, u->has_l2},  {&ev->l2_lock_m, u->has_l2}, {&ev->l2_lock_s, u->has_l2},
        {&ev->l2_pf_i, u->has_l2},    {&ev->l2_pf_s, u->has_l2}, {&ev->l2_pf_e, u->has_l2},
        {&ev->l2_pf_m, u->has_l2},    {&ev->l2_in_e, u->has_l2}, {&ev->l2_in_s, u->has_l2},
        {&ev->l1d_wb_l2_e, wb_l2},    {&ev->l1d_wb_l2_m, wb_l2}, {&ev->l1d_wb_l2_s, wb_l2},
        {&ev->baclear, TRUE},         {&ev->baclear_cond, TRUE},
        {&ev->rob_full, TRUE},        {&ev->misp_stall, TRUE},  {&ev->ts_l3miss, TRUE},
        {&ev->ts_timer, TRUE},
        /* allocation and front-end stalls (alloc_cycle()); BACLEARS:RETURN
         * listed, never written (the model resteers no return) */
        {&ev->lb_full, u->lb != 0},   {&ev->sb_full, u->sb != 0}, {&ev->res_stall_any, TRUE},
        {&ev->fetch_stall_cyc, TRUE}, {&ev->icache_fill_cyc, TRUE},
        {&ev->not_delivered, TRUE},   {&ev->no_alloc_all, TRUE}, {&ev->baclear_ret, TRUE},
        /* the reservation stations (rs_room()): an input with rsdep */
        {&ev->rs_full, u->rs_on},     {&ev->rs_full_mem, u->rs_on}, {&ev->rs_rat, u->rs_on},
        /* IA-64 below the L1 caches, model facts (outer_access(), l3_traffic()) */
        {&ev->f_l2_if_hit, u->has_l2}, {&ev->f_l2_if_miss, u->has_l2},
        {&ev->f_l3_if_hit, u->has_l3},
        {&ev->f_l3_if_miss, u->has_l3 && !u->bus_ev}, {&ev->f_l3_if_miss_bus, u->bus_ev},
        {&ev->f_l3_wb_hit, l2_wb},
        {&ev->f_l3_wb_miss, l2_wb && !u->bus_ev}, {&ev->f_l3_wb_miss_bus, l2_wb && u->bus_ev},
        {&ev->f_bus_rd_load, u->bus_ev}, {&ev->f_bus_rd_store, u->bus_ev},
        {&ev->f_bus_wb_victim, u->bus_ev},
        /* execution: ports, LOAD_DISPATCH's never-written kinds, the
         * divider, the microcode sequencer (ports_count(), insn_body()) */
        {&ev->port[0], TRUE},         {&ev->port[1], TRUE},     {&ev->port[2], TRUE},
        {&ev->port[3], TRUE},         {&ev->port[4], TRUE},     {&ev->port[5], TRUE},
        {&ev->ld_rs_delayed, TRUE},   {&ev->ld_mob, TRUE},      {&ev->div_busy, TRUE},
        {&ev->ms_uops, TRUE},         {&ev->ms_entry, TRUE},
        /* the loop stream detector (lsd_branch(), lsd_emit()): it needs
         * the conditional branches, which an input without branch kinds
         * (lackey's) does not tell from jumps */
        {&ev->lsd_uops, brkind},      {&ev->lsd_overflow, brkind},
        /* the decoders net of the detector (fe_flush()): the same need,
         * and the pairs the fused ones the input marks */
        {&ev->dec_insts, brkind && u->fe_cpu}, {&ev->iq_writes, brkind && u->fe_cpu},
        {&ev->dec_fusions, brkind && fuse && u->fe_cpu},
        /* 4 KiB aliasing (alias_event()): an input with every store */
        {&ev->addr_alias, u->alias_on},
        /* no prefetcher: listed, never written */
        {&ev->l1d_pf_req, TRUE},      {&ev->l1d_pf_miss, TRUE}, {&ev->l1d_pf_trig, TRUE},
        {&ev->l2_out_pf_clean, u->has_l2}, {&ev->l2_out_pf_dirty, u->has_l2},
    };
    /* a new member of uarch_events_t must be listed above */
    G_STATIC_ASSERT(sizeof(uarch_events_t) == G_N_ELEMENTS(kinds) * sizeof(uarch_ev_t));
    /* The "evsum" key: the kinds whose occurrences the model sums per
     * thread over up to EVENT_SPAN cycles (events_collect(); the ports over
     * PORT_SPAN cycles) or whose record holds an instruction's stall or
     * fill cycles, or a walk's, so that a threshold cannot be evaluated on
     * them (docs/trace-events-x86.md, "Thresholds on the model's EVENT
     * records"): all of them (the divider's record holds a divide's busy
     * cycles; ARITH:DIV, its c=1 i=1 e=1 form, counts from the divides'
     * INSN records) but LSD:UOPS, written one record per cycle (lsd_emit()),
     * so that LSD:ACTIVE and INACTIVE (UOPS with c=1, c=1 i=1) count
     * cycles.  The "evspan" key: the walk-cycle kinds, one record per walk
     * (walk_add()), and the divider's, one record per divide (insn_body(),
     * div_add_open()), each an interval of n cycles; they stay in "evsum" too,
     * as traces/FORMAT.md §2 asks of a producer, so that a reader built
     * before "evspan" reads a threshold on them as <not in trace>, not as
     * a threshold on one cycle's occurrences. */
    GString *s = g_string_new(NULL), *sum = g_string_new(NULL), *span = g_string_new(NULL);
    for (size_t i = 0; i < G_N_ELEMENTS(kinds); i++) {
        const uarch_ev_t *e = kinds[i].e;
        if (!e->present || !kinds[i].happens)
            continue;
        char pair[24];
        if (e == &ev->ifetch_ear) /* the umask is the fetch's ITLB outcome */
            g_snprintf(pair, sizeof pair, "0x%02x/*", e->code);
        else
            g_snprintf(pair, sizeof pair, "0x%02x/0x%02x", e->code, e->umask);
        g_string_append_printf(s, "%s%s", s->len ? "," : "", pair);
        if (e != &ev->lsd_uops)
            g_string_append_printf(sum, "%s%s", sum->len ? "," : "", pair);
        if (e == &ev->itlb_walk_cyc || e == &ev->dtlb_walk_cyc || e == &ev->dtlb_ld_walk_cyc ||
            e == &ev->div_busy)
            g_string_append_printf(span, "%s%s", span->len ? "," : "", pair);
    }
    pmusim_trace_header_set_meta(h, "events", s->str);
    if (sum->len)
        pmusim_trace_header_set_meta(h, "evsum", sum->str);
    if (span->len)
        pmusim_trace_header_set_meta(h, "evspan", span->str);
    g_string_free(s, TRUE);
    g_string_free(sum, TRUE);
    g_string_free(span, TRUE);
}

void pmusim_uarch_header(pmusim_uarch_t *u, pmusim_trace_header_t *h)
{
    /* the annotations the header claims before (a new header: all; trace
     * annotate: its input's) say whether the input has branch kinds, and
     * fused pairs (opkind with fuse); the decoders' counts are written only
     * for what the header claims (fe_flush()) */
    const uint32_t in_ann = pmusim_trace_header_annotations(h);
    const gboolean brkind = (in_ann & PMUSIM_ANN_BRKIND) != 0;
    const gboolean fuse = (in_ann & (PMUSIM_ANN_OPKIND | PMUSIM_ANN_FUSE)) ==
                          (PMUSIM_ANN_OPKIND | PMUSIM_ANN_FUSE);
    u->fe_on = u->fe_cpu && brkind;
    /* the reservation stations need every instruction's dependences */
    u->rs_on = u->cfg->rs_entries != 0 && (in_ann & PMUSIM_ANN_RSDEP) != 0;
    u->fe_fuse = u->fe_on && fuse;
    /* a store the input lacks could alias a load */
    u->alias_on = u->stfwd && u->cfg->ev.addr_alias.present && (in_ann & PMUSIM_ANN_ALLMEM) != 0;
    uint32_t mask = PMUSIM_ANN_LEVELS | PMUSIM_ANN_TLB | PMUSIM_ANN_PRED | PMUSIM_ANN_BRKIND |
                    PMUSIM_ANN_TIMING | PMUSIM_ANN_EVENTS | PMUSIM_ANN_ALLMEM | PMUSIM_ANN_FP;
    if (u->cfg->offcore != UARCH_OC_NONE)
        mask |= PMUSIM_ANN_OFFCORE | PMUSIM_ANN_UOPS;
    if (u->lfb_n)
        mask |= PMUSIM_ANN_LFB;
    /* x86: store-forwarding blocks (flag bit 15), which hold with every
     * access (allmem: trace annotate drops both for an input without it) */
    if (u->stfwd)
        mask |= PMUSIM_ANN_STFWD;
    pmusim_trace_header_set_annotations(h, mask);
    pmusim_trace_header_set_meta(h, "uarch", u->cfg->model);
    set_geom_meta(h, "uarch.I1", &u->g_l1i);
    set_geom_meta(h, "uarch.D1", &u->g_l1d);
    if (u->has_l2)
        set_geom_meta(h, "uarch.L2", &u->g_l2);
    if (u->has_l2i)
        set_geom_meta(h, "uarch.L2I", &u->g_l2i);
    set_geom_meta(h, "uarch.LL", u->has_l3 ? &u->g_l3 : &u->g_l2);
    set_events_meta(u, h, brkind, fuse);
}

/* ---- the memory hierarchy ---- */

/* Inclusive L3 (Westmere): a line leaving L3 leaves every inner cache. */
static void back_invalidate(pmusim_uarch_t *u, uint64_t l3blk)
{
    uint64_t base = l3blk << u->l3.line_bits;
    uint64_t len = UINT64_C(1) << u->l3.line_bits;
    uarch_cache_t *inner[] = { &u->l1d, &u->l1i, u->has_l2 ? &u->l2 : NULL };
    u->dline_blk = UINT64_MAX;
    for (size_t k = 0; k < G_N_ELEMENTS(inner); k++) {
        uarch_cache_t *c = inner[k];
        if (!c)
            continue;
        for (uint64_t a = base; a < base + len; a += UINT64_C(1) << c->line_bits)
            uarch_cache_invalidate(c, a >> c->line_bits, NULL);
    }
}

/* IA-64 (u->cfg->ia64): the model fact of one L3 lookup, `f` its result
 * (docs/UARCH.md §5): an instruction fetch's read (a data access's is in
 * its MEM record), or with `wb` a modified L2 victim's write; a miss of a
 * read fetches the line over the bus, with BRIL for a store (`store`: a
 * read for ownership) and BRL otherwise; a modified L3 victim, and a
 * write-back the L3 does not hold (the model allocates nothing for it),
 * are written to memory over the bus.  Each transaction moves one 128-byte
 * line (u->bus_ev).  One record per fact: the IA-64 models count it for
 * every event that includes it (sim/models/ia64/trace-facts.csv). */
static G_GNUC_NO_INLINE void l3_traffic(pmusim_uarch_t *u, const uarch_fill_t *f, gboolean ifetch,
                                        gboolean store, gboolean wb)
{
    const uarch_events_t *ev = &u->cfg->ev;
    const gboolean bus = u->bus_ev;
    if (ifetch)
        ev_add(u, f->hit ? &ev->f_l3_if_hit : bus ? &ev->f_l3_if_miss_bus : &ev->f_l3_if_miss, 1);
    else if (wb)
        ev_add(u, f->hit ? &ev->f_l3_wb_hit : bus ? &ev->f_l3_wb_miss_bus : &ev->f_l3_wb_miss, 1);
    else if (!f->hit && bus)
        ev_add(u, store ? &ev->f_bus_rd_store : &ev->f_bus_rd_load, 1);
    /* the modified victim of a fill (a write-back allocates nothing) */
    if (bus && !wb && !f->hit && f->evicted_dirty)
        ev_add(u, &ev->f_bus_wb_victim, 1);
}

/* Accesses the levels beyond L1 for byte address `a`; returns the level. */
static unsigned outer_access(pmusim_uarch_t *u, uint64_t a, gboolean dirty, gboolean ifetch)
{
    const uarch_cpu_cfg_t *cfg = u->cfg;
    uarch_fill_t f;
    uarch_cache_t *l2 = ifetch && u->has_l2i ? &u->l2i : u->has_l2 ? &u->l2 : NULL;
    if (l2) {
        uarch_cache_access(l2, a >> l2->line_bits, dirty, &f);
        if (ifetch && cfg->ia64) /* IA-64: an L1I miss's demand read, a model fact */
            ev_add(u, f.hit ? &cfg->ev.f_l2_if_hit : &cfg->ev.f_l2_if_miss, 1);
        else if (ifetch) { /* x86: code in the unified L2 */
            ev_add(u, f.hit ? &cfg->ev.l2_ifetch_hit : &cfg->ev.l2_ifetch_miss, 1);
            ev_add(u, &cfg->ev.l2_tr_ifetch, 1);
        }
        if (l2 != &u->l2i && !f.hit) {
            ev_add(u, &cfg->ev.l2_lines_in, 1);
            ev_add(u, &cfg->ev.l2_in_e, 1); /* one core: nobody shares the line */
            ev_add(u, &cfg->ev.l2_tr_fill, 1);
            if (f.evicted) {
                ev_add(u, f.evicted_dirty ? &cfg->ev.l2_out_dirty : &cfg->ev.l2_out_clean, 1);
                ev_add(u, &cfg->ev.l2_out_any, 1);
                if (f.evicted_dirty && u->has_l3) { /* write-back: hits the L3 copy */
                    ev_add(u, &cfg->ev.l2_tr_wb, 1);
                    const uarch_fill_t wb = {
                        .hit = uarch_cache_probe(
                            &u->l3, (f.victim << l2->line_bits) >> u->l3.line_bits, TRUE),
                    };
                    if (cfg->ia64)
                        l3_traffic(u, &wb, FALSE, FALSE, TRUE);
                }
            }
        }
        if (f.hit) {
            /* a data lookup passes dirty FALSE (l1d_missed()): the hit
             * line's dirty bit, now the MRU way's, is its state at lookup */
            if (!ifetch && l2 == &u->l2)
                u->l2_data_m |= uarch_cache_mru_dirty(l2, a >> l2->line_bits);
            return PMUSIM_LVL_L2;
        }
    }
    if (u->has_l3) {
        uarch_cache_access(&u->l3, a >> u->l3.line_bits, dirty && !l2, &f);
        if (cfg->ia64)
            l3_traffic(u, &f, ifetch, dirty, FALSE);
        if (!f.hit) {
            if (f.evicted) {
                ev_add(u, &cfg->ev.l3_repl, 1);
                if (u->l3_inclusive)
                    back_invalidate(u, f.victim);
            }
        }
        if (f.hit)
            return PMUSIM_LVL_L3;
    }
    if (u->numa_interleave && ((a >> 12) & 1))
        return PMUSIM_LVL_REMOTE_DRAM;
    return PMUSIM_LVL_LOCAL_DRAM;
}

/* The levels beyond L1 for the bytes [a, a + n) of one L1 line that
 * missed: one reference per line of the next level they touch, as
 * cachegrind references its LL with the bytes of the access.  That is
 * more than one only where the next level's lines are smaller than the
 * L1's (--LL=1048576,8,32 behind --D1=32768,8,128: an access across a
 * 32-byte boundary inside its 128-byte L1 line needs both 32-byte lines).
 * Returns the deepest level. */
static unsigned outer_range(pmusim_uarch_t *u, uint64_t a, uint64_t n, gboolean dirty,
                            gboolean ifetch)
{
    unsigned lvl = outer_access(u, a, dirty, ifetch);
    const uarch_cache_t *next = ifetch && u->has_l2i ? &u->l2i : u->has_l2 ? &u->l2 : &u->l3;
    const uint64_t last = (a + n - 1) >> next->line_bits;
    for (uint64_t b = (a >> next->line_bits) + 1; b <= last && b != 0; b++) {
        unsigned l = outer_access(u, b << next->line_bits, dirty, ifetch);
        if (l > lvl)
            lvl = l;
    }
    return lvl;
}

/* After an L1D miss (the line is in, `f` says what left): its events and
 * the write-back of a modified victim. */
static void l1d_filled(pmusim_uarch_t *u, const uarch_fill_t *f)
{
    const uarch_cpu_cfg_t *cfg = u->cfg;
    ev_add(u, &cfg->ev.l1d_repl, 1);
    if (f->evicted_dirty) {
        ev_add(u, &cfg->ev.l1d_m_evict, 1);
        /* the write-back refreshes the next level's copy; cachegrind
         * writes nothing back */
        uarch_cache_t *next = u->cg_rules ? NULL : u->has_l2 ? &u->l2 : u->has_l3 ? &u->l3 : NULL;
        if (!next)
            return;
        const uarch_probe_t was =
            uarch_cache_probe(next, (f->victim << u->l1d.line_bits) >> next->line_bits, TRUE);
        if (next != &u->l2)
            return;
        if (was == UARCH_PROBE_MISS) {
            /* the L2 does not hold the line (it is not inclusive of the
             * L1D): the write goes on beyond the core, and the model
             * allocates nothing for it */
            ev_add(u, &cfg->ev.l1d_wb_l2_miss, 1);
            ev_add(u, &cfg->ev.oc_l1d_wb, 1);
        }
        ev_add(u, &cfg->ev.l1d_wb_l2, 1);
        ev_add(u, &cfg->ev.l2_tr_l1d_wb, 1);
        if (was != UARCH_PROBE_MISS) /* the L2 line's state before: E clean, M modified */
            ev_add(u, was == UARCH_PROBE_DIRTY ? &cfg->ev.l1d_wb_l2_m : &cfg->ev.l1d_wb_l2_e, 1);
    }
}

/* After an L1D miss of the bytes [a, a + n) of one line: l1d_filled(), then
 * the levels beyond; returns the level. */
static unsigned l1d_missed(pmusim_uarch_t *u, uint64_t a, uint64_t n, const uarch_fill_t *f)
{
    l1d_filled(u, f);
    return outer_range(u, a, n, FALSE, FALSE);
}

/* The L1D lines first .. last of the bytes [a, a + n) under cachegrind's
 * rules (u->cg_rules; n is at most the smallest line, so they are one or
 * two): each line looked up, then, if either missed, the levels beyond
 * with every byte, also those of a line that hit (cg_sim.c references its
 * LL with the access, not with the missed line); returns the level. */
static unsigned data_lines_cg(pmusim_uarch_t *u, uint64_t a, uint64_t n, uint64_t first,
                              uint64_t last, gboolean store)
{
    gboolean missed = FALSE;
    for (uint64_t b = first; b <= last; b++) {
        uarch_fill_t f;
        uarch_cache_access(&u->l1d, b, store, &f);
        if (!f.hit) {
            missed = TRUE;
            l1d_filled(u, &f);
        }
    }
    return missed ? outer_range(u, a, n, FALSE, FALSE) : PMUSIM_LVL_L1D;
}

/* One data line, the bytes [a, a + n) of it: L1D then outward.  Itanium:
 * FP accesses bypass the L1D; integer stores write through without
 * allocating (uarch.md §3.1). */
static unsigned line_access(pmusim_uarch_t *u, uint64_t a, uint64_t n, gboolean store,
                            gboolean fp)
{
    const uarch_cpu_cfg_t *cfg = u->cfg;
    uint64_t blk = a >> u->l1d.line_bits;
    if (cfg->l1d_int_only && fp)
        return outer_access(u, a, store, FALSE);
    if (cfg->l1d_write_through && store) {
        gboolean hit = uarch_cache_probe(&u->l1d, blk, FALSE);
        unsigned lvl = outer_access(u, a, TRUE, FALSE); /* the write goes on to L2 */
        return hit ? PMUSIM_LVL_L1D : lvl;
    }
    uarch_fill_t f;
    const gboolean dirty = store && !cfg->l1d_write_through;
    if (uarch_cache_mru_hit(&u->l1d, blk, dirty))
        return PMUSIM_LVL_L1D;
    uarch_cache_access(&u->l1d, blk, dirty, &f);
    if (f.hit)
        return PMUSIM_LVL_L1D;
    return l1d_missed(u, a, n, &f);
}

static uint32_t level_latency(const pmusim_uarch_t *u, unsigned lvl, gboolean fp)
{
    const uarch_cpu_cfg_t *cfg = u->cfg;
    switch (lvl) {
    case PMUSIM_LVL_L1D: return cfg->lat_l1d;
    case PMUSIM_LVL_L2: return fp ? cfg->lat_l2_fp : cfg->lat_l2;
    case PMUSIM_LVL_L3: return cfg->lat_l3;
    case PMUSIM_LVL_REMOTE_DRAM: return cfg->lat_remote_dram;
    default: return u->mcdram ? cfg->lat_mcdram : cfg->lat_dram;
    }
}

/* The x86 offcore request of an access served at `lvl` (uarch.md §1.6,
 * §2.6; bit numbers of the CPU's MSR_OFFCORE_RSP layout, docs/UARCH.md). */
static void offcore_note(pmusim_uarch_t *u, unsigned lvl, unsigned req, uint32_t lat)
{
    pmusim_offcore_t oc = { .latency = lat ? lat : 1, .req = (uint8_t)req,
                            .snoop = PMUSIM_OFFCORE_NONE };
    switch (u->cfg->offcore) {
    case UARCH_OC_NONE:
        return;
    case UARCH_OC_WSM:
    case UARCH_OC_WSM_DP: {
        gboolean dp = u->cfg->offcore == UARCH_OC_WSM_DP;
        /* requests that miss L2 (with --L2=none: that miss L1) */
        if (lvl == PMUSIM_LVL_L1D || (lvl == PMUSIM_LVL_L2 && u->has_l2))
            return;
        if (lvl == PMUSIM_LVL_L3)
            oc.supplier = 8; /* UNCORE_HIT */
        else if (lvl == PMUSIM_LVL_REMOTE_DRAM)
            oc.supplier = 13; /* wsm_dp REMOTE_DRAM */
        else
            oc.supplier = dp ? 12 : 13; /* wsm_dp LOCAL_DRAM_AND_REMOTE_CACHE_HIT, wsm LOCAL_DRAM */
        break;
    }
    case UARCH_OC_KNM:
        /* the L2 sits in the tile, outside the core: every L1 miss is a request */
        if (lvl == PMUSIM_LVL_L1D)
            return;
        if (lvl == PMUSIM_LVL_L2) {
            oc.supplier = 26; /* L2_HIT_THIS_TILE_E */
        } else if (u->mcdram) {
            oc.supplier = 21; /* MCDRAM_NEAR = bits 21 + 31 */
            oc.snoop = 31;
        } else {
            oc.supplier = 23; /* DDR_NEAR = bits 23 + 31 */
            oc.snoop = 31;
        }
        break;
    }
    /* one offcore part per record: the instruction's first data request,
     * else its code fetch (docs/UARCH.md) */
    if (req == 2) {
        if (!u->ifetch_oc_valid) {
            u->ifetch_oc_valid = TRUE;
            u->ifetch_oc = oc;
        }
    } else if (!u->oc_valid) {
        u->oc_valid = TRUE;
        u->oc = oc;
    }
}

/* The ITLB and L1I part of fetching the line holding `ip`: adds the TLB's
 * cycles to *lat and its outcome to *tlb; FALSE (an L1I miss, counted
 * with its events) when the line must come from beyond. */
static gboolean ifetch_l1(pmusim_uarch_t *u, uint64_t ip, uint32_t *lat, unsigned *tlb)
{
    const uarch_cpu_cfg_t *cfg = u->cfg;
    uarch_fill_t f;
    *tlb = PMUSIM_TLB_L1_HIT;
    uarch_cache_access(&u->itlb, ip >> 12, FALSE, &f);
    if (!f.hit) {
        u->itlb_misses++;
        ev_add(u, &cfg->ev.itlb_miss, 1); /* IA-64: the model fact ITLB_L1_MISS */
        uarch_cache_t *second = u->has_itlb2 ? &u->itlb2 : &u->stlb;
        uarch_cache_access(second, ip >> 12, FALSE, &f);
        *lat += cfg->lat_stlb_hit;
        *tlb = PMUSIM_TLB_L2_HIT;
        if (!f.hit) {
            ev_add(u, &cfg->ev.itlb_walk, 1);
            /* the walk's cycles: the latency the model charges for it
             * (docs/UARCH.md §3, "walk extra") */
            walk_add(u, &cfg->ev.itlb_walk_cyc);
            *lat += cfg->lat_walk;
            *tlb = PMUSIM_TLB_WALK;
        } else {
            ev_add(u, &cfg->ev.itlb_stlb_hit, 1);
        }
    }
    uarch_cache_access(&u->l1i, ip >> u->l1i.line_bits, FALSE, &f);
    if (f.hit) {
        ev_add(u, &cfg->ev.l1i_hit, 1);
        return TRUE;
    }
    u->st.i1_miss++;
    ev_add(u, &cfg->ev.l1i_miss, 1);
    ev_add(u, &cfg->ev.l1i_fill, 1);
    return FALSE;
}

/* After an L1I miss: the levels beyond for the instruction's bytes [ip, ip
 * + n), their statistics and records; returns `lat` plus their cycles. */
static uint32_t ifetch_beyond(pmusim_uarch_t *u, uint64_t ip, uint64_t n, uint32_t lat,
                              unsigned tlb)
{
    const uarch_cpu_cfg_t *cfg = u->cfg;
    unsigned lvl = outer_range(u, ip, n, FALSE, TRUE);
    uint32_t l = lvl == PMUSIM_LVL_L2 ? (u->has_l2i ? cfg->lat_l2i : cfg->lat_l2)
                                      : level_latency(u, lvl, FALSE);
    lat += l;
    /* the cycles the front end waits for the fill (knm FETCH_STALL) */
    ev_add(u, &cfg->ev.icache_fill_cyc, l);
    if (lvl != PMUSIM_LVL_L2 || !u->has_l3) /* knm: the L2 is the LL */
        u->st.ll_access++;
    if (lvl > PMUSIM_LVL_L3 || (!u->has_l3 && lvl > PMUSIM_LVL_L2))
        u->st.ll_miss++;
    /* IA-64 I-EAR fetch record (docs/trace-events-ia64.md): umask = ITLB
     * outcome, n = fetch latency */
    if (cfg->ev.ifetch_ear.present)
        ev_add_cu(u, cfg->ev.ifetch_ear.code, (uint16_t)tlb, lat);
    offcore_note(u, lvl, 2, l); /* DMND_IFETCH / DMND_CODE_RD */
    return lat;
}

/* Instruction fetch of the line holding `ip`, for the instruction's bytes
 * [ip, ip + n) in it: cycles beyond an L1I hit. */
static uint32_t ifetch(pmusim_uarch_t *u, uint64_t ip, uint64_t n)
{
    uint32_t lat = 0;
    unsigned tlb;
    if (ifetch_l1(u, ip, &lat, &tlb))
        return lat;
    return ifetch_beyond(u, ip, n, lat, tlb);
}

/* TRUE when ifetch() would find the page and the line as the most recent
 * of their ITLB and L1I sets: it would cost nothing and change nothing but
 * count the lookup's L1I hit, which it counts. */
static inline gboolean ifetch_mru(pmusim_uarch_t *u, uint64_t ip)
{
    if (!(uarch_cache_mru_hit(&u->itlb, ip >> 12, FALSE) &&
          uarch_cache_mru_hit(&u->l1i, ip >> u->l1i.line_bits, FALSE)))
        return FALSE;
    ev_add(u, &u->cfg->ev.l1i_hit, 1);
    return TRUE;
}

/* ifetch_hits_fast() when the thread's EVENT sums have no L1I-hit entry
 * where it looked. */
static G_GNUC_NO_INLINE void ifetch_hits_slow(pmusim_uarch_t *u, uarch_thread_t *t, uint64_t n)
{
    const uarch_ev_t *ev = &u->cfg->ev.l1i_hit;
    if (!ev->present)
        return;
    unsigned k;
    for (k = 0; k < t->nevacc; k++)
        if (t->evacc[k].code == ev->code && t->evacc[k].umask == ev->umask)
            break;
    if (k == t->nevacc) {
        ev_add_cu(u, ev->code, ev->umask, n);
        return;
    }
    t->i1_hit_slot = k;
    t->evacc[k].n += n;
}

/* insn_fast()'s L1I hits (n lines, each the most recent of its set): added
 * straight to thread t's EVENT sums when these hold an L1I-hit count
 * already, which is what events_collect() would do with them at the end of
 * the instruction (no sums are written in between, and the entry exists:
 * the records come out the same), else noted as the instruction's count
 * (ev_add_cu()).  Spares most new lines the instruction's pass through
 * events_collect() (docs/PERFORMANCE.md, "Events from a capture: the model's
 * fetch and TLB facts"). */
G_STATIC_ASSERT(offsetof(insn_event_t, code) == 0 && offsetof(insn_event_t, umask) == 2);
static inline __attribute__((always_inline)) void ifetch_hits_fast(pmusim_uarch_t *u,
                                                                   uarch_thread_t *t, uint64_t n)
{
    const unsigned k = t->i1_hit_slot; /* below THREAD_EVENTS */
    uint32_t key;
    memcpy(&key, &t->evacc[k], sizeof key);
    if (G_LIKELY(k < t->nevacc && key == u->l1i_hit_key))
        t->evacc[k].n += n;
    else
        ifetch_hits_slow(u, t, n);
}

/* One data access: TLB, then every line it touches (an access straddling
 * lines accesses each, as cachegrind does; the deepest level serves it). */
/* The DTLB (then the STLB) lookup of a data access at `addr` (a store or
 * a load): sets m->tlb, returns the cycles it adds. */
static inline uint32_t dtlb_access(pmusim_uarch_t *u, uint64_t addr, gboolean store,
                                   pmusim_mem_t *m)
{
    const uarch_cpu_cfg_t *cfg = u->cfg;
    uarch_fill_t f;
    uint32_t tlb_lat = 0;
    m->tlb = PMUSIM_TLB_L1_HIT;
    f.hit = uarch_cache_hit2(&u->dtlb, addr >> 12, FALSE);
    if (!f.hit)
        uarch_cache_access(&u->dtlb, addr >> 12, FALSE, &f);
    if (!f.hit) {
        uarch_cache_access(&u->stlb, addr >> 12, FALSE, &f);
        tlb_lat = cfg->lat_stlb_hit;
        m->tlb = PMUSIM_TLB_L2_HIT;
        if (!f.hit) {
            tlb_lat += cfg->lat_walk;
            m->tlb = PMUSIM_TLB_WALK;
            /* the walk's cycles, the latency charged (docs/UARCH.md §3);
             * the walks themselves are MEM records' tlb = walk */
            walk_add(u, &cfg->ev.dtlb_walk_cyc);
            if (!store)
                walk_add(u, &cfg->ev.dtlb_ld_walk_cyc);
        }
    }
    return tlb_lat;
}

/* data_access() after the lines: the statistics, the rest of *m, the
 * offcore part; `lvl` is the deepest level that served a line. */
/* The record's mem.dep of an access: its addr_dep, a load's only, within
 * what a trace holds (FORMAT.md §3). */
static inline uint8_t access_dep(const pmusim_uarch_access_t *acc)
{
    return acc->is_store || acc->addr_dep > PMUSIM_MEM_MAX_DEP ? 0 : acc->addr_dep;
}

static inline void data_access_done(pmusim_uarch_t *u, const pmusim_uarch_access_t *acc,
                                    gboolean store, gboolean afp, uint64_t size, unsigned lvl,
                                    uint32_t tlb_lat, pmusim_mem_t *m)
{
    /* cachegrind's counting: one reference, a miss if any of its lines missed */
    u->st.d1_access++;
    if (lvl != PMUSIM_LVL_L1D) {
        if (lvl == PMUSIM_LVL_L2 && u->has_l2) {
            /* the state of the line(s) the demand request found in L2
             * (one request a MEM record, as L2_RQSTS counts them): M if a
             * line was modified there, else E; beyond L2 it is I, the
             * record's level (docs/UARCH.md §5) */
            const uarch_events_t *ev = &u->cfg->ev;
            ev_add(u, store ? (u->l2_data_m ? &ev->l2_rfo_m : &ev->l2_rfo_e)
                            : (u->l2_data_m ? &ev->l2_ld_m : &ev->l2_ld_e), 1);
            /* a locked instruction's load is also its lock RFO
             * (docs/UARCH.md §5, "Locked instructions") */
            if (G_UNLIKELY(u->lock_ld) && !store)
                ev_add(u, u->l2_data_m ? &ev->l2_lock_m : &ev->l2_lock_e, 1);
        }
        u->l2_data_m = FALSE;
        u->st.d1_miss++;
        if (lvl > PMUSIM_LVL_L2 && u->has_l2 && u->has_l3)
            u->st.l2_miss++;
        if (lvl != PMUSIM_LVL_L2 || !u->has_l3)
            u->st.ll_access++;
        if (lvl > PMUSIM_LVL_L3 || (!u->has_l3 && lvl > PMUSIM_LVL_L2))
            u->st.ll_miss++;
    }
    if (lvl > PMUSIM_LVL_L3)
        u->l3_miss = TRUE;
    m->addr = acc->addr;
    m->size = (uint8_t)(size > 255 ? 255 : size);
    m->is_store = store;
    m->level = (uint8_t)lvl;
    m->latency = level_latency(u, lvl, afp) + tlb_lat;
    m->alat = acc->alat < PMUSIM_ALAT_COUNT ? acc->alat : 0;
    m->dep = access_dep(acc);
    offcore_note(u, lvl, store ? 1 : 0, m->latency); /* DMND_RFO : DMND_DATA_RD */
}

static void data_access(pmusim_uarch_t *u, const pmusim_uarch_access_t *acc, gboolean fp,
                        pmusim_mem_t *m)
{
    u->dline_blk = UINT64_MAX;
    const uint32_t tlb_lat = dtlb_access(u, acc->addr, acc->is_store != 0, m);
    gboolean store = acc->is_store != 0;
    gboolean afp = fp || acc->is_fp;
    uint64_t size = acc->size ? acc->size : 1;
    const uint64_t n = MIN(size, u->cg_cut); /* the bytes looked up */
    uint64_t first = acc->addr >> u->l1d.line_bits;
    uint64_t last = (acc->addr + n - 1) >> u->l1d.line_bits;
    if (last < first) /* wraps past 2^64 */
        last = first;
    unsigned lvl = 0;
    if (u->cg_rules) {
        lvl = data_lines_cg(u, acc->addr, n, first, last, store);
    } else {
        for (uint64_t b = first; b <= last; b++) {
            /* the access's bytes in line b */
            const uint64_t from = b == first ? acc->addr : b << u->l1d.line_bits;
            const uint64_t to = b == last ? acc->addr + n - 1 : ((b + 1) << u->l1d.line_bits) - 1;
            unsigned l = line_access(u, from, to < from ? 1 : to - from + 1, store, afp);
            if (l > lvl)
                lvl = l;
        }
    }
    data_access_done(u, acc, store, afp, size, lvl, tlb_lat, m);
}

/* data_access() on a CPU whose L1D serves every access and allocates on
 * stores (x86: u->l1d_plain), an access inside one line without the
 * general code: the same lookups in the same order.  An L1D hit has no
 * events and no offcore part (offcore_note() returns at once for it on
 * every x86 layout). */
static G_GNUC_NO_INLINE void data_access_plain(pmusim_uarch_t *u, const pmusim_uarch_access_t *acc,
                                               gboolean fp, pmusim_mem_t *m)
{
    const uint64_t addr = acc->addr;
    const uint64_t size = acc->size ? acc->size : 1;
    const uint64_t end = addr + size - 1;
    if (G_UNLIKELY(end < addr || ((addr ^ end) >> u->l1d.line_bits) != 0)) {
        data_access(u, acc, fp, m);
        return;
    }
    u->dline_blk = UINT64_MAX;
    const uint32_t tlb_lat = dtlb_access(u, addr, acc->is_store != 0, m);
    const gboolean store = acc->is_store != 0;
    const uint64_t blk = addr >> u->l1d.line_bits;
    unsigned lvl = PMUSIM_LVL_L1D;
    if (!uarch_cache_hit2(&u->l1d, blk, store)) {
        uarch_fill_t f;
        uarch_cache_access(&u->l1d, blk, store, &f);
        if (!f.hit)
            lvl = l1d_missed(u, addr, MIN(size, u->cg_cut), &f);
    }
    if (G_LIKELY(lvl == PMUSIM_LVL_L1D)) {
        u->st.d1_access++;
        m->addr = addr;
        m->size = (uint8_t)(size > 255 ? 255 : size);
        m->is_store = store;
        m->level = PMUSIM_LVL_L1D;
        m->latency = u->cfg->lat_l1d + tlb_lat;
        m->alat = acc->alat < PMUSIM_ALAT_COUNT ? acc->alat : 0;
        m->dep = access_dep(acc);
        return;
    }
    data_access_done(u, acc, store, fp || acc->is_fp, size, lvl, tlb_lat, m);
}

/* The common case of data_access() without its work: an access inside one
 * line whose page is its DTLB set's most recent and whose line is its L1D
 * set's most recent, on a CPU whose L1D serves every access (x86).  FALSE
 * changes nothing but the dirty bit data_access() would set first anyway:
 * call data_access(). */
static inline gboolean data_access_l1_mru(pmusim_uarch_t *u, const pmusim_uarch_access_t *acc,
                                          pmusim_mem_t *m, const gboolean plain, const gboolean p2)
{
    if (!plain)
        return FALSE;
    const uint64_t addr = acc->addr;
    const uint64_t size = acc->size ? acc->size : 1;
    const uint64_t end = addr + size - 1;
    const unsigned lb = u->l1d.line_bits;
    if (end < addr || ((addr ^ end) >> lb) != 0)
        return FALSE;
    const uint64_t blk = addr >> lb;
    if (p2 && blk == u->dline_blk) {
        /* the line of the fast path's last hit: still the most recent of
         * its L1D set, its page of its DTLB set (u->dline_blk) */
        *u->dline_tag |= (uint64_t)(acc->is_store != 0);
    } else if (p2) {
        if (!uarch_cache_mru_hit_p2(&u->dtlb, addr >> 12, FALSE))
            return FALSE;
        uint64_t *const w0 = &u->l1d.tags[(blk & u->l1d.set_mask) * u->l1d.assoc];
        if ((*w0 | 1) != ((blk << 1) | 1))
            return FALSE;
        *w0 |= (uint64_t)(acc->is_store != 0);
        u->dline_blk = blk;
        u->dline_tag = w0;
    } else if (!uarch_cache_mru_hit(&u->dtlb, addr >> 12, FALSE) ||
               !uarch_cache_mru_hit(&u->l1d, blk, acc->is_store != 0)) {
        return FALSE;
    }
    u->st.d1_access++;
    *m = (pmusim_mem_t){
        .addr = addr,
        .latency = u->cfg->lat_l1d,
        .size = (uint8_t)(size > 255 ? 255 : size),
        .is_store = acc->is_store != 0,
        .level = PMUSIM_LVL_L1D,
        .tlb = PMUSIM_TLB_L1_HIT,
        .alat = acc->alat < PMUSIM_ALAT_COUNT ? acc->alat : 0,
        .dep = access_dep(acc),
    };
    return TRUE;
}

/* ---- branch prediction ---- */

enum { BR_OK = 0, BR_RESTEER = 1, BR_MISPREDICT = 2 };

static const uint8_t br_kind_of[PMUSIM_UARCH_BR_COUNT_] = {
    [PMUSIM_UARCH_BR_COND] = PMUSIM_BR_COND,     [PMUSIM_UARCH_BR_JUMP] = PMUSIM_BR_IPREL,
    [PMUSIM_UARCH_BR_CALL] = PMUSIM_BR_CALL,     [PMUSIM_UARCH_BR_RET] = PMUSIM_BR_RET,
    [PMUSIM_UARCH_BR_IND_JUMP] = PMUSIM_BR_IND,  [PMUSIM_UARCH_BR_IND_CALL] = PMUSIM_BR_ICALL,
};

/* The BTB's verdict on a taken branch to `target` (trained either way). */
static inline __attribute__((always_inline)) gboolean
btb_right(pmusim_uarch_t *u, uint64_t ip, uint64_t target)
{
    uint64_t pred_tgt = 0;
    return uarch_btb_lookup_update(&u->bp, ip, target, &pred_tgt) && pred_tgt == target;
}

/* A call's return address (the next instruction; IA-64: the next bundle)
 * onto the return stack. */
static inline void ras_push(pmusim_uarch_t *u, uarch_thread_t *t, const pmusim_uarch_insn_t *in,
                            const gboolean ia64)
{
    const uint64_t ret = in->ip + (ia64 ? 16 : (in->len ? in->len : 1));
    const uint32_t depth = u->cfg->ras_depth;
    t->ras_top = t->ras_top + 1 == depth ? 0 : t->ras_top + 1;
    t->ras[t->ras_top] = ret;
    if (t->ras_n < depth)
        t->ras_n++;
}

/* Predicts and trains; fills *b and returns BR_OK, BR_RESTEER (a direct
 * branch the BTB did not know: the decoder redirects fetch) or
 * BR_MISPREDICT (wrong direction or indirect/return target: resolved at
 * execution).  One case per kind, inline (`ia64` a constant of the
 * caller): the direction table for a conditional branch, the BTB for a
 * taken one but a return, the return stack for calls and returns. */
static inline __attribute__((always_inline)) int
branch_predict(pmusim_uarch_t *u, uarch_thread_t *t, const pmusim_uarch_insn_t *in,
               pmusim_branch_t *b, const gboolean ia64)
{
    const unsigned k = in->br;
    uint8_t taken = 1, dir_ok = 1, tgt_ok = 1;
    int res = BR_OK;
    switch (k) {
    case PMUSIM_UARCH_BR_COND: {
        taken = in->taken != 0;
        u->st.cond_branches++;
        const gboolean pred = uarch_bpred_direction(&u->bp, in->ip, t->hist, taken);
        t->hist = (t->hist << 1) | (uint32_t)taken;
        if (pred != taken) {
            dir_ok = 0;
            res = BR_MISPREDICT;
        }
        if (taken && !btb_right(u, in->ip, in->target) && res == BR_OK)
            res = BR_RESTEER;
        break;
    }
    case PMUSIM_UARCH_BR_CALL:
        ras_push(u, t, in, ia64);
        /* fall through */
    case PMUSIM_UARCH_BR_JUMP:
        if (!btb_right(u, in->ip, in->target))
            res = BR_RESTEER;
        break;
    case PMUSIM_UARCH_BR_IND_CALL:
        ras_push(u, t, in, ia64);
        /* fall through */
    case PMUSIM_UARCH_BR_IND_JUMP:
        if (!btb_right(u, in->ip, in->target)) {
            tgt_ok = 0;
            res = BR_MISPREDICT;
        }
        break;
    case PMUSIM_UARCH_BR_RET: {
        const gboolean ok = t->ras_n && t->ras[t->ras_top] == in->target;
        if (t->ras_n) {
            t->ras_top = t->ras_top ? t->ras_top - 1 : u->cfg->ras_depth - 1;
            t->ras_n--;
        }
        if (!ok) {
            tgt_ok = 0;
            res = BR_MISPREDICT;
        }
        break;
    }
    default:
        break;
    }
    uint8_t detect = PMUSIM_BRD_NONE;
    if (res == BR_MISPREDICT) {
        detect = PMUSIM_BRD_BACKEND;
        u->st.mispredicts++;
    } else if (res == BR_RESTEER && ia64) {
        /* Itanium's BTB/ETB records mark a branch the front end redirected
         * as mispredicted (mp bit, ia64-pmu.md §8.2): a front-end detection */
        tgt_ok = 0;
        detect = PMUSIM_BRD_FRONTEND;
    }
    b->target = in->target;
    b->kind = br_kind_of[k];
    b->taken = taken;
    b->dir_ok = dir_ok;
    b->tgt_ok = tgt_ok;
    b->detect = detect;
    /* the dependence on a load of a conditional or indirect branch, x86
     * (pmusim_uarch_insn_t.br_dep; direct jumps and calls have none) */
    b->dep = !ia64 && k != PMUSIM_UARCH_BR_JUMP && k != PMUSIM_UARCH_BR_CALL &&
                     in->br_dep <= PMUSIM_BR_MAX_DEP
                 ? in->br_dep
                 : 0;
    return res;
}

/* When a mispredicted branch that completes at c resolves: at c, or, if
 * its condition or target depends on the load b->dep loads back (1 the
 * newest so far, its own included), one cycle after that load's data are
 * back, when it executes (docs/UARCH.md §1 step 4: a misprediction is
 * found at execution).  The front end restarts mispredict_penalty cycles
 * later. */
/* The INSN record's mem.rdep of an instruction with nacc accesses (isbr:
 * a branch): its rdep, on x86 and an instruction that is neither a load
 * nor a branch (FORMAT.md §2; within PMUSIM_MEM_MAX_DEP), else 0.  isbr is
 * a constant of most of insn_fast()'s copies (the branch copy's is 0). */
static inline __attribute__((always_inline)) uint8_t
rec_rdep(const pmusim_uarch_insn_t *in, uint32_t nacc, gboolean isbr, gboolean ia64)
{
    if (ia64 || isbr || (nacc && !in->access[0].is_store))
        return 0;
    const uint8_t r = in->rdep;
    return r <= PMUSIM_MEM_MAX_DEP ? r : 0;
}

static inline uint64_t branch_resolved(const uarch_thread_t *t, const pmusim_branch_t *b,
                                       uint64_t c)
{
    if (G_LIKELY(!b->dep))
        return c;
    /* the ring's slots hold 0 before the thread's first loads */
    const uint64_t src = t->load_done[(t->nload - b->dep) & (DEP_RING - 1)] + 1;
    return src > c ? src : c;
}

/* ---- EVENT records ---- */

/* Writes a thread's summed EVENT counts at `cycle` (straight to the output
 * when `direct`, else through rec_new). */
static pmusim_rec_t *rec_out(pmusim_uarch_t *u, uint32_t ti, unsigned kind, uint64_t cycle);

/* The fast path's gate (u->ev_gate) when the instruction has no counts:
 * the earlier of thread 0's due cycles. */
static inline uint64_t ev_gate_of(const pmusim_uarch_t *u)
{
    return MIN(u->th[0].ev_due, u->th[0].port_due);
}

static void events_flush(pmusim_uarch_t *u, uint32_t ti, uint64_t cycle, gboolean direct)
{
    uarch_thread_t *t = &u->th[ti];
    for (unsigned i = 0; i < t->nevacc; i++) {
        pmusim_rec_t *e = direct ? rec_out(u, ti, PMUSIM_REC_EVENT, cycle)
                                 : rec_new(u, ti, PMUSIM_REC_EVENT, cycle);
        e->ev_code = t->evacc[i].code;
        e->ev_umask = t->evacc[i].umask;
        e->n = t->evacc[i].n;
    }
    t->nevacc = 0;
    t->ev_due = UINT64_MAX;
    u->ev_gate = u->niev ? 0 : ev_gate_of(u);
}

/* Writes a thread's port counts since the last time at `cycle`, one
 * record per port that has any (as events_flush()). */
static void fe_flush(pmusim_uarch_t *u, uint32_t ti, uint64_t cycle, gboolean direct);

static void ports_flush(pmusim_uarch_t *u, uint32_t ti, uint64_t cycle, gboolean direct)
{
    uarch_thread_t *t = &u->th[ti];
    if (u->fe_cpu) /* the decoders' sums with the ports' */
        fe_flush(u, ti, cycle, direct);
    for (unsigned k = 0; k < G_N_ELEMENTS(t->port_n); k++) {
        if (t->port_n[k] == t->port_w[k])
            continue;
        pmusim_rec_t *e = direct ? rec_out(u, ti, PMUSIM_REC_EVENT, cycle)
                                 : rec_new(u, ti, PMUSIM_REC_EVENT, cycle);
        e->ev_code = u->cfg->ev.port[k].code;
        e->ev_umask = u->cfg->ev.port[k].umask;
        e->n = t->port_n[k] - t->port_w[k];
        t->port_w[k] = t->port_n[k];
    }
    t->port_due = UINT64_MAX;
    u->ev_gate = u->niev ? 0 : ev_gate_of(u);
}

/* The records of e->n page walks (an EV_WALK entry, walk_add()) of an
 * instruction retired at r: one each, n = lat_walk, at r (the model
 * writes an instruction's records at its retirement, in cycle order: the
 * walk's own start is earlier than records written already;
 * docs/trace-events-x86.md, "Exact thresholds on walk records"). */
static G_GNUC_NO_INLINE void walk_records(pmusim_uarch_t *u, uint32_t ti, uint64_t r,
                                          const insn_event_t *e)
{
    for (uint64_t k = 0; k < e->n; k++) {
        pmusim_rec_t *w = rec_new(u, ti, PMUSIM_REC_EVENT, r);
        w->ev_code = (uint16_t)(e->code & ~EV_WALK);
        w->ev_umask = e->umask;
        w->n = u->cfg->lat_walk;
    }
}

/* The record of an EV_ONE entry (div_add_open()): one of n, at r, the
 * instruction in parts' end. */
static G_GNUC_NO_INLINE void one_record(pmusim_uarch_t *u, uint32_t ti, uint64_t r,
                                        const insn_event_t *e)
{
    pmusim_rec_t *w = rec_new(u, ti, PMUSIM_REC_EVENT, r);
    w->ev_code = (uint16_t)(e->code & ~EV_ONE);
    w->ev_umask = e->umask;
    w->n = e->n;
}

/* Adds n counts of an instruction retired at r to thread ti's sums (its
 * walks: their records, walk_records(); a divide of an instruction in
 * parts: its record, one_record()). */
static void events_add(pmusim_uarch_t *u, uint32_t ti, uint64_t r, const insn_event_t *ev,
                       unsigned n)
{
    uarch_thread_t *t = &u->th[ti];
    for (unsigned i = 0; i < n; i++) {
        const insn_event_t *e = &ev[i];
        if (G_UNLIKELY(e->code & (EV_WALK | EV_ONE))) {
            if (e->code & EV_ONE)
                one_record(u, ti, r, e);
            else
                walk_records(u, ti, r, e);
            continue;
        }
        unsigned k;
        for (k = 0; k < t->nevacc; k++)
            if (t->evacc[k].code == e->code && t->evacc[k].umask == e->umask)
                break;
        if (k == t->nevacc) {
            if (t->nevacc == THREAD_EVENTS)
                events_flush(u, ti, r, FALSE);
            if (!t->nevacc) {
                t->evacc_since = r;
                t->ev_due = r + u->ev_span;
            }
            k = t->nevacc++;
            t->evacc[k] = (insn_event_t){ e->code, e->umask, 0 };
        }
        t->evacc[k].n += e->n;
    }
}

/* Adds the current instruction's counts to its thread's sums; writes the
 * sums once they span EVENT_SPAN cycles. */
static void events_collect(pmusim_uarch_t *u, uint32_t ti, uint64_t r)
{
    uarch_thread_t *t = &u->th[ti];
    events_add(u, ti, r, u->iev, u->niev);
    u->niev = 0; /* empty between instructions (insn_fast()) */
    if (r >= t->ev_due)
        events_flush(u, ti, r, FALSE);
    u->ev_gate = ev_gate_of(u);
}

/* A part of the open instruction ran: its counts join the instruction's
 * (t->oev), written when it ends (insn_close()). */
static void events_stash(pmusim_uarch_t *u, uarch_thread_t *t)
{
    for (unsigned i = 0; i < u->niev; i++) {
        const insn_event_t *e = &u->iev[i];
        unsigned k = 0;
        while (k < t->noev && (t->oev[k].code != e->code || t->oev[k].umask != e->umask))
            k++;
        if (k == t->noev) {
            if (k == MAX_INSN_EVENTS)
                continue; /* as ev_add_cu() drops a kind beyond them */
            t->oev[t->noev++] = (insn_event_t){ e->code, e->umask, 0 };
        }
        t->oev[k].n += e->n;
    }
    u->niev = 0;
}

/* Ends thread ti's open instruction, if any: its counts become the
 * thread's (at its last retirement, the INSN record's cycle unless an
 * instruction ran after it), and the records the open rule of
 * merge_drain() held back go out. */
static void insn_close(pmusim_uarch_t *u, uint32_t ti)
{
    uarch_thread_t *t = &u->th[ti];
    if (!t->open)
        return;
    t->open = FALSE;
    u->nopen--;
    const uint64_t r = t->last_ret;
    events_add(u, ti, r, t->oev, t->noev);
    t->noev = 0;
    if (r >= t->ev_due)
        events_flush(u, ti, r, FALSE);
    if (r >= t->port_due)
        ports_flush(u, ti, r, FALSE);
    u->ev_gate = u->niev ? 0 : ev_gate_of(u);
    if (u->merge)
        merge_drain(u, FALSE);
}

/* Ends every open instruction. */
static void insn_close_all(pmusim_uarch_t *u)
{
    for (uint32_t i = 0; u->nopen && i < u->nthreads; i++)
        insn_close(u, i);
}

/* ---- the loop stream detector (docs/UARCH.md §1 "Loop stream detector") ---- */

/* Writes thread ti's LSD:UOPS of cycle lsd_cyc: one record per cycle in
 * which the detector delivered uops, not summed, so that a counter's
 * CMASK/INV compares one cycle's uops (LSD:ACTIVE = UOPS with c=1,
 * INACTIVE with c=1 i=1).  Called before any record of a later cycle of
 * the thread (its next instruction's, a halt's, the end's). */
static G_GNUC_NO_INLINE void lsd_emit(pmusim_uarch_t *u, uint32_t ti)
{
    uarch_thread_t *t = &u->th[ti];
    const uint8_t plm = t->plm;
    t->plm = t->lsd_plm; /* the ring of the streamed instructions */
    pmusim_rec_t *e = rec_new(u, ti, PMUSIM_REC_EVENT, MAX(t->lsd_cyc, u->floor));
    t->plm = plm;
    e->ev_code = u->cfg->ev.lsd_uops.code;
    e->ev_umask = u->cfg->ev.lsd_uops.umask;
    e->n = t->lsd_n;
    t->lsd_n = 0;
    t->lsd_cyc = UINT64_MAX;
}

/* lsd_emit() of thread 0 of one thread into `e`, a record of the output
 * batch that the caller took (insn_fast(): no call of the sink, no queue;
 * the same record, and the floor moved as rec_new() moves it). */
static G_GNUC_NO_INLINE void lsd_emit_at(pmusim_uarch_t *u, pmusim_rec_t *e)
{
    uarch_thread_t *t = &u->th[0];
    const uint64_t cycle = MAX(t->lsd_cyc, u->floor);
    u->floor = cycle;
    rec_clear(e, cycle, PMUSIM_REC_EVENT, 0, t->lsd_plm);
    e->ev_code = u->cfg->ev.lsd_uops.code;
    e->ev_umask = u->cfg->ev.lsd_uops.umask;
    e->n = t->lsd_n;
    t->lsd_n = 0;
    t->lsd_cyc = UINT64_MAX;
}

/* The thread stops (halt, sleep) or the input ends: its pending LSD:UOPS
 * go out, and the loop it streamed, if any, ends. */
static void lsd_end(pmusim_uarch_t *u, uint32_t ti)
{
    if (u->th[ti].lsd_n)
        lsd_emit(u, ti);
    u->th[ti].lsd_state = LSD_NONE;
}

/* A branch retired on thread t (misp: mispredicted): a taken backward
 * conditional branch ends an iteration of the loop it closes (the uops
 * since the previous one), and the detector streams the loop after one
 * iteration measured that fits in lsd_cap uops, or counts one
 * LSD_OVERFLOW for the loop if it does not; the same branch not taken
 * (the loop's exit) or a misprediction of another branch ends the
 * stream.  Rules and sources: docs/UARCH.md §1. */
static G_GNUC_NO_INLINE void lsd_branch(pmusim_uarch_t *u, uarch_thread_t *t,
                                        const pmusim_uarch_insn_t *in, gboolean misp)
{
    if (in->br == PMUSIM_UARCH_BR_COND && in->taken && in->target <= in->ip) {
        if (in->ip == t->lsd_ip && in->target == t->lsd_tgt && t->lsd_state != LSD_NONE) {
            if (t->lsd_state == LSD_WATCH) {
                if (t->lsd_body <= u->lsd_cap) {
                    t->lsd_state = LSD_STREAM;
                } else {
                    t->lsd_state = LSD_OVER;
                    ev_add(u, &u->cfg->ev.lsd_overflow, 1);
                }
            }
            /* LSD_STREAM: the branch the stream assumes taken (whatever
             * the predictor said); LSD_OVER: counted once per loop */
        } else {
            t->lsd_ip = in->ip;
            t->lsd_tgt = in->target;
            t->lsd_state = LSD_WATCH;
        }
        t->lsd_body = 0;
    } else if (in->ip == t->lsd_ip && in->br == PMUSIM_UARCH_BR_COND) {
        if (t->lsd_state != LSD_NONE)
            t->lsd_state = LSD_NONE; /* the loop's exit */
    } else if (t->lsd_state == LSD_STREAM && misp) {
        t->lsd_state = LSD_NONE;
    }
}

/* Whether lsd_branch() has anything to do for this branch: a taken
 * backward one, the watched loop's, or any while a loop streams (a
 * misprediction ends it). */
static inline gboolean lsd_branch_matters(const uarch_thread_t *t, const pmusim_uarch_insn_t *in)
{
    return (in->taken && in->target <= in->ip) || in->ip == t->lsd_ip ||
           t->lsd_state == LSD_STREAM;
}

/* An instruction of `uops` retired at r while a loop is measured or
 * streams (after the instruction's records; any pending LSD:UOPS record
 * of an earlier cycle went out before them): its uops join the
 * iteration's; while streaming they count as the detector's, unless the
 * iteration is now longer than the loop's (the stream is not the loop's
 * any more).  `fused`: the instruction is the first of a macro-fused pair
 * (1, else 0).  Inline: most instructions of a loop that streams come
 * here (2.05 M of the 2.68 M of the mix 1 capture; as a call it cost 64 M
 * host instructions, docs/PERFORMANCE.md, seventh pass). */
static inline __attribute__((always_inline)) void
lsd_count(pmusim_uarch_t *u, uarch_thread_t *t, const pmusim_uarch_insn_t *in, uint64_t r,
          uint32_t uops, uint32_t fused)
{
    if (t->lsd_body <= u->lsd_cap) /* beyond, the count no longer matters (no overflow) */
        t->lsd_body += uops;
    if (t->lsd_state != LSD_STREAM)
        return;
    if (t->lsd_body > u->lsd_cap) {
        t->lsd_state = LSD_NONE;
        return;
    }
    if (!t->lsd_n) {
        t->lsd_cyc = r;
        t->lsd_plm = in->plm & 3;
    }
    t->lsd_n += uops;
    /* streamed: not decoded (lsd_track() counted a pair as decoded) */
    t->fe_str++;
    t->fe_fus -= fused;
}

/* The detector's work for an instruction of `uops` retired at r (`fused`:
 * lsd_count()), after its records and before its EVENT counts are
 * collected (an LSD_OVERFLOW is one of them). */
static inline __attribute__((always_inline)) void
lsd_track(pmusim_uarch_t *u, uarch_thread_t *t, const pmusim_uarch_insn_t *in, uint64_t r,
          uint32_t uops, uint32_t fused, gboolean isbr, const pmusim_branch_t *b)
{
    /* a pair decoded unless lsd_count() finds it streamed */
    t->fe_fus += fused;
    if (t->lsd_state & LSD_COUNTING)
        lsd_count(u, t, in, r, uops, fused);
    if (isbr && lsd_branch_matters(t, in))
        lsd_branch(u, t, in, !(b->dir_ok && b->tgt_ok));
}

/* Writes thread ti's decoders' counts since the last time at `cycle`
 * (docs/UARCH.md §1 "Decoders"): the instructions retired that the
 * detector did not stream, as MACRO_INSTS:DECODED and as
 * INST_QUEUE_WRITES (predecode wrote each into the instruction queue
 * before the decoders took it; a streamed loop is not fetched again), and
 * the macro-fused pairs among them, MACRO_INSTS_FUSIONS_DECODED.  Summed
 * like the ports' counts, whose flush writes them (every retired
 * instruction has a port count, so a count waits at most PORT_SPAN
 * cycles); nothing for an input without branch kinds, and no pairs for
 * one without fused pairs (u->fe_on, u->fe_fuse). */
static void fe_flush(pmusim_uarch_t *u, uint32_t ti, uint64_t cycle, gboolean direct)
{
    uarch_thread_t *t = &u->th[ti];
    const uarch_events_t *ev = &u->cfg->ev;
    const uint64_t n = t->n - t->fe_cont, dec = n - t->fe_n_w - t->fe_str;
    const struct {
        const uarch_ev_t *e;
        uint64_t n;
    } w[] = {
        {&ev->dec_insts, u->fe_on ? dec : 0},
        {&ev->iq_writes, u->fe_on ? dec : 0},
        {&ev->dec_fusions, u->fe_fuse ? t->fe_fus : 0},
    };
    t->fe_n_w = n;
    t->fe_str = t->fe_fus = 0;
    for (size_t k = 0; k < G_N_ELEMENTS(w); k++) {
        if (!w[k].n)
            continue;
        pmusim_rec_t *e = direct ? rec_out(u, ti, PMUSIM_REC_EVENT, cycle)
                                 : rec_new(u, ti, PMUSIM_REC_EVENT, cycle);
        e->ev_code = w[k].e->code;
        e->ev_umask = w[k].e->umask;
        e->n = w[k].n;
    }
}

/* ---- Montecito thread switching ---- */

/* A record straight to the output (never into a thread's queue). */
static pmusim_rec_t *rec_out(pmusim_uarch_t *u, uint32_t ti, unsigned kind, uint64_t cycle)
{
    pmusim_rec_t *r = out_slot(u);
    rec_clear(r, cycle, kind, ti, u->th[ti].plm);
    if (cycle > u->floor)
        u->floor = cycle;
    return r;
}

/* Hands out the records a thread held back, no earlier than `at`. */
static void release_held(pmusim_uarch_t *u, uint32_t ti, uint64_t at)
{
    uarch_thread_t *t = &u->th[ti];
    t->holding = FALSE;
    for (uint32_t i = 0; i < t->qlen; i++) {
        pmusim_rec_t *r = &t->q[(t->qhead + i) & (t->qcap - 1)];
        if (r->cycle < at)
            r->cycle = at;
        if (r->cycle > t->last_ret)
            t->last_ret = r->cycle;
        if (r->cycle > t->ret_cycle) { /* retimed: it takes a retirement slot there */
            t->ret_cycle = r->cycle;
            t->ret_used = 0;
        }
        if (r->kind == PMUSIM_REC_INSN && r->cycle == t->ret_cycle && at)
            t->ret_used++;
        out_copy(u, r);
    }
    t->qhead = t->qlen = t->qev = 0;
}

static void mont_schedule(pmusim_uarch_t *u, uint32_t ti)
{
    uarch_thread_t *t = &u->th[ti];
    if (u->running < 0) { /* every thread starts active (FORMAT.md §1): park the others */
        for (uint32_t i = 0; i < u->nthreads; i++)
            if (i != ti)
                rec_out(u, i, PMUSIM_REC_THREAD, 0)->n = 0;
        u->running = (int)ti;
        return;
    }
    if ((uint32_t)u->running == ti) {
        if (t->holding) /* no switch came: the miss is simply waited for */
            release_held(u, ti, 0);
        return;
    }
    uarch_thread_t *r = &u->th[u->running];
    uint64_t s = u->floor + 1;
    events_flush(u, (uint32_t)u->running, s, TRUE);
    const uarch_ev_t *why = r->holding ? &u->cfg->ev.ts_l3miss
                          : u->want_switch ? &u->cfg->ev.ts_timer : NULL;
    if (why && why->present) {
        pmusim_rec_t *e = rec_out(u, (uint32_t)u->running, PMUSIM_REC_EVENT, s);
        e->ev_code = why->code;
        e->ev_umask = why->umask;
        e->n = 1;
    }
    rec_out(u, (uint32_t)u->running, PMUSIM_REC_THREAD, s)->n = 0;
    uint64_t in_at = s + u->cfg->switch_penalty;
    rec_out(u, ti, PMUSIM_REC_THREAD, in_at)->n = 1;
    u->running = (int)ti;
    u->want_switch = FALSE;
    t->switched_in = in_at;
    if (t->disp_cycle < in_at) {
        t->disp_cycle = in_at;
        t->disp_used = 0;
    }
    if (t->fe_ready < in_at)
        t->fe_ready = in_at;
    if (t->ret_cycle < in_at) {
        t->ret_cycle = in_at;
        t->ret_used = 0;
    }
    if (t->last_ret < in_at - 1) /* no IDLE across the time it was switched out */
        t->last_ret = in_at - 1;
    if (t->holding)
        release_held(u, ti, in_at);
}

gboolean pmusim_uarch_switch_wanted(const pmusim_uarch_t *u)
{
    return u->soemt && u->want_switch;
}

/* ---- one instruction ---- */

static gboolean take_error(pmusim_uarch_t *u, GError **error)
{
    if (!u->err)
        return TRUE;
    g_propagate_error(error, u->err);
    u->err = NULL;
    u->sink = NULL;
    return FALSE;
}

/* Takes `uops` slots of a `w`-wide stage (dispatch or retirement) no
 * earlier than cycle `at`; returns the cycle the instruction starts in.  An
 * instruction of more uops than the width spills into the cycles after it
 * (*cycle is then the last of them).  One of no slots (the first of a
 * macro-fused pair: insn_slots()) needs a free one all the same, the slot
 * its pair's uop takes with the branch after it: it does not stay in a
 * full cycle. */
static inline uint64_t take_slots(uint64_t *cycle, uint32_t *used, uint64_t at, uint32_t uops,
                                  uint32_t w)
{
    uint32_t u0 = *used;
    if (at > *cycle) {
        *cycle = at;
        u0 = 0;
    }
    uint32_t nu = u0 + uops;
    if (G_LIKELY(nu < w || (nu == w && uops))) { /* room in this cycle (the common case) */
        *used = nu;
        return *cycle;
    }
    if (u0) { /* the next cycle */
        (*cycle)++;
        nu = uops;
    }
    const uint64_t start = *cycle;
    while (nu > w) { /* more uops than the width: the cycles after it */
        (*cycle)++;
        nu -= w;
    }
    *used = nu;
    return start;
}

/* An INSN record's fields after its head (cycle to len): the same for
 * rec_insn_fill() and rec_insn_head(). */
static inline void rec_insn_tail(pmusim_rec_t *rec, const pmusim_uarch_insn_t *in, gboolean ia64)
{
    rec->ip = in->ip;
    rec->insn = in->insn;
    rec->n = 0;
    rec->ev_code = 0;
    rec->ev_umask = 0;
    rec->uops = ia64 ? 0 : in->uops;
    rec->name = NULL;
}

/* The fields of an INSN record that the fast path and insn_body() fill
 * alike (all but mem, br and oc), each stored once (a compound literal
 * became a block clear, `rep stos`, and then the stores). */
static inline void rec_insn_fill(pmusim_rec_t *rec, uint64_t r, uint32_t ti, uint16_t flags,
                                 uint8_t plm, const pmusim_uarch_insn_t *in, gboolean ia64)
{
    rec->cycle = r;
    rec->kind = PMUSIM_REC_INSN;
    rec->thread = (uint8_t)ti;
    rec->flags = flags;
    rec->plm = plm;
    rec->slot = in->slot;
    rec->unit = in->unit;
    rec->len = in->len;
    rec_insn_tail(rec, in, ia64);
}

/* A record of the running thread straight into the output batch (no
 * merge queue, no held records), every field written once. */
static inline pmusim_rec_t *rec_direct(pmusim_uarch_t *u, uint64_t cycle)
{
    if (u->outp == u->out_end)
        out_flush(u);
    if (cycle > u->floor)
        u->floor = cycle;
    if (G_UNLIKELY(u->err))
        return &u->scratch;
    return u->outp++;
}

/* rec_insn_fill() of thread 0 with the eight bytes from kind to len as one
 * store (little-endian hosts). */
_Static_assert(offsetof(pmusim_rec_t, kind) == 8 && offsetof(pmusim_rec_t, thread) == 9 &&
               offsetof(pmusim_rec_t, flags) == 10 && offsetof(pmusim_rec_t, plm) == 12 &&
               offsetof(pmusim_rec_t, slot) == 13 && offsetof(pmusim_rec_t, unit) == 14 &&
               offsetof(pmusim_rec_t, len) == 15 &&
               offsetof(pmusim_uarch_insn_t, unit) == offsetof(pmusim_uarch_insn_t, slot) + 1,
               "rec_insn_head() writes these bytes");
static inline void rec_insn_head(pmusim_rec_t *rec, uint64_t r, uint16_t flags, uint8_t plm,
                                 const pmusim_uarch_insn_t *in, gboolean ia64)
{
    if (G_BYTE_ORDER != G_LITTLE_ENDIAN) {
        rec_insn_fill(rec, r, 0, flags, plm, in, ia64);
        return;
    }
    uint16_t su;
    memcpy(&su, &in->slot, sizeof su);
    const uint64_t head = PMUSIM_REC_INSN | (uint64_t)flags << 16 | (uint64_t)plm << 32 |
                          (uint64_t)su << 40 | (uint64_t)in->len << 56;
    rec->cycle = r;
    memcpy(&rec->kind, &head, sizeof head);
    rec_insn_tail(rec, in, ia64);
}

/* What insn_fast() did: nothing (take the general body), the
 * instruction, the instruction with a call of the sink (u->err may be set).
 * Its INSN records leave u->floor as it is: with one thread the floor of
 * the records handed out is max(u->floor, th[0].last_ret), what every
 * reader of the floor on that configuration takes already (passthrough,
 * halt, finish) or cannot tell apart (ret_cycle is never below it there). */
enum { FAST_NO = 0, FAST_DONE = 1, FAST_DONE_CALLED = 2 };

/* Where the one-thread loop of pmusim_uarch_insns() writes its next INSN
 * record and where the batch ends, kept in locals over the loop instead of
 * u->outp (read, tested, written per record): cursor_sync() before
 * anything else writes records or reads u->outp, cursor_load() after. */
typedef struct out_cursor {
    pmusim_rec_t *p, *end;
} out_cursor_t;

static inline void cursor_sync(pmusim_uarch_t *u, const out_cursor_t *cur)
{
    if (cur)
        u->outp = cur->p;
}

static inline void cursor_load(const pmusim_uarch_t *u, out_cursor_t *cur)
{
    if (cur) {
        cur->p = u->outp;
        cur->end = u->out_end;
    }
}

/* ---- line fill buffers (docs/UARCH.md §1 "Line fill buffers") ----
 *
 * An access that missed the L1D takes a fill buffer for its line until its
 * data are in, `start` + its latency (a load from when it starts, a store's
 * read for ownership from its dispatch), waiting for one when all are busy
 * (lfb_fill()); a later load that finds the line in the L1D (the model
 * installs a line at its miss) while that fill is still on its way hits
 * the fill buffer, not the L1D: its level is PMUSIM_LVL_LFB and its data
 * come when the fill's do (lfb_hit()). */
static G_GNUC_NO_INLINE void lfb_fill(pmusim_uarch_t *u, uint64_t addr, uint64_t start,
                                      pmusim_mem_t *m, gboolean store)
{
    /* the buffer that is free first: the one whose fill ends first (the
     * lowest of equals) */
    uint32_t b = 0;
    for (uint32_t i = 1; i < u->lfb_n; i++)
        if (u->lfb[i].ready < u->lfb[b].ready)
            b = i;
    const uint32_t lat = m->latency;
    uint64_t from = start;
    if (u->lfb[b].ready > start) {
        /* every buffer is busy: the miss waits for one (a load's data come
         * that much later; a store's read for ownership waits, the store
         * itself does not) */
        from = u->lfb[b].ready;
        if (!store)
            m->latency = (uint32_t)MIN((uint64_t)lat + (from - start), UINT32_MAX);
    }
    u->lfb[b].blk = addr >> u->l1d.line_bits;
    u->lfb[b].ready = from + lat;
    if (u->lfb[b].ready > u->lfb_until)
        u->lfb_until = u->lfb[b].ready;
}

static G_GNUC_NO_INLINE void lfb_hit(pmusim_uarch_t *u, uint64_t addr, uint64_t start,
                                     pmusim_mem_t *m)
{
    const uint64_t blk = addr >> u->l1d.line_bits;
    for (uint32_t i = 0; i < u->lfb_n; i++) {
        if (u->lfb[i].blk == blk && u->lfb[i].ready > start) {
            m->level = PMUSIM_LVL_LFB;
            if (u->lfb[i].ready - start > m->latency)
                m->latency = (uint32_t)MIN(u->lfb[i].ready - start, UINT32_MAX);
            return;
        }
    }
}

/* The fill buffers' part of access a's result *m, the access starting at
 * `start` (a load) or dispatched then (a store). */
static inline __attribute__((always_inline)) void
lfb_note(pmusim_uarch_t *u, const pmusim_uarch_access_t *a, uint64_t start, pmusim_mem_t *m)
{
    if (G_LIKELY(m->level == PMUSIM_LVL_L1D)) {
        if (G_UNLIKELY(start < u->lfb_until) && !a->is_store)
            lfb_hit(u, a->addr, start, m);
    } else if (u->lfb_n) {
        lfb_fill(u, a->addr, start, m, a->is_store != 0);
    }
}

/* Access a of an instruction dispatched at d, its lookup's result in *m:
 * the fill buffers' part of it (lfb_note()), and for a load when its data
 * are back.  A load starts at dispatch, or, if its address depends on the
 * load addr_dep loads back in the thread (1 the previous one), when that
 * load's data are back (docs/UARCH.md §1 step 3); a store completes at
 * dispatch + 1 (c).  Returns when the instruction's loads are back, at
 * least c. */
static inline __attribute__((always_inline)) uint64_t
access_done(pmusim_uarch_t *u, uarch_thread_t *t, const pmusim_uarch_access_t *a, uint64_t d,
            pmusim_mem_t *m, uint64_t c)
{
    if (a->is_store) {
        lfb_note(u, a, d, m);
        return c;
    }
    uint64_t start = d;
    if (G_UNLIKELY(a->addr_dep)) {
        /* the ring's slots hold 0 before the thread's first loads */
        const uint64_t src = t->load_done[(t->nload - a->addr_dep) & (DEP_RING - 1)];
        start = src > d ? src : d;
    }
    lfb_note(u, a, start, m);
    const uint64_t done = start + m->latency;
    t->load_done[t->nload++ & (DEP_RING - 1)] = done;
    return done > c ? done : c;
}

/* ---- allocation (docs/UARCH.md §1 step 2, "Allocation stalls") ----
 *
 * An instruction allocates, not before d0 (the front end has delivered it
 * and the dispatch stage has a slot), once its reorder-window entry is free
 * (rob_free, the retirement of the instruction `window` places back, + 1)
 * and, on a CPU with load and store buffers (u->lb, u->sb), once there is
 * an entry for each of its loads and stores: entry j of the loads frees when
 * the load u->lb places back retires (+ 1), as the window's does.  The
 * buffers are rings of the last LSQ_RING loads' and stores' retirement
 * cycles, UINT64_MAX before the first ones (+ 1 is 0: free, with no count
 * to test), like the window's ring.  An instruction with more loads than
 * the buffer has entries (a string instruction's part of 64) waits for all
 * of them. */

/* The counts of an allocation that waited (d > d0) or came after a gap in
 * the thread's allocation (d > t->disp_cycle + 1, on a CPU that counts
 * those): the cycles it waited for each resource and for any (Westmere
 * RESOURCE_STALLS:ROB_FULL, LOAD, STORE, ANY; Knights Mill
 * NO_ALLOC_CYCLES:ROB_FULL), from the first cycle whose dispatch slots
 * could have taken its `uops` (not the cycle before, already full: it
 * allocated), and the cycles the thread allocated nothing
 * (NO_ALLOC_CYCLES:ALL) and those of them it waited for the front end other
 * than after a misprediction (NOT_DELIVERED; MISPREDICTS counts those). */
static G_GNUC_NO_INLINE void alloc_stalls(pmusim_uarch_t *u, const uarch_thread_t *t, uint64_t d0,
                                          uint64_t rob_free, uint64_t lb_free, uint64_t sb_free,
                                          uint64_t rs_free, const uarch_rs_t *rs, uint64_t d,
                                          uint32_t uops)
{
    const uarch_events_t *ev = &u->cfg->ev;
    /* take_slots(): a partly used cycle without room goes on to the next */
    const uint64_t slot = t->disp_cycle + (t->disp_used && t->disp_used + uops > u->cfg->width);
    const uint64_t from = d0 > slot ? d0 : slot;
    if (rob_free > from)
        ev_add(u, &ev->rob_full, rob_free - from);
    if (lb_free > from)
        ev_add(u, &ev->lb_full, lb_free - from);
    if (sb_free > from)
        ev_add(u, &ev->sb_full, sb_free - from);
    if (rs_free > from) {
        ev_add(u, &ev->rs_full, rs_free - from);
        ev_add(u, &ev->rs_rat, rs_free - from);
        if (rs == &u->rs[1])
            ev_add(u, &ev->rs_full_mem, rs_free - from);
    }
    if (d > from)
        ev_add(u, &ev->res_stall_any, d - from);
    if (u->alloc_gaps && d > t->disp_cycle + 1) {
        ev_add(u, &ev->no_alloc_all, d - t->disp_cycle - 1);
        if (t->fe_ready > t->disp_cycle + 1 && t->fe_ready != t->misp_ready)
            ev_add(u, &ev->not_delivered, t->fe_ready - t->disp_cycle - 1);
    }
}

/* ---- the reservation stations (docs/UARCH.md §1, "The reservation
 * station") ----
 *
 * An instruction's uops take entries of its station from allocation until
 * they leave for execution: the cycle after allocation, or, for an
 * instruction that waits for a load's data (pmusim_uarch_insn_t.rdep, a
 * load's addr_dep), once those data are back.  They leave out of order, so
 * a station is a heap by leaving cycle; an instruction that finds too few
 * free entries waits at allocation (alloc_cycle()) for the ones that leave
 * first.  The stations are the core's: the threads of an SMT merge share
 * them, each taking the entries free at its own allocation cycle. */

/* The station of an instruction with nacc accesses (NULL: none modelled):
 * knm's memory cluster takes the instructions with accesses, its vector
 * stations the FP ones, the integer stations the rest; wsm has one. */
static inline uarch_rs_t *rs_pick(pmusim_uarch_t *u, const pmusim_uarch_insn_t *in, uint32_t nacc)
{
    if (G_LIKELY(!u->rs_on))
        return NULL;
    if (nacc && u->rs[1].size)
        return &u->rs[1];
    if (in->fp != PMUSIM_UARCH_FP_NONE && u->rs[2].size)
        return &u->rs[2];
    return &u->rs[0];
}

/* rs_pick() where a station is modelled (u->rs_on, insn_fast()'s copy
 * with the station): never NULL, which the compiler is told, so that
 * alloc_cycle()'s test of it goes (docs/PERFORMANCE.md, eighth pass). */
static inline __attribute__((always_inline)) uarch_rs_t *
rs_pick_on(pmusim_uarch_t *u, const pmusim_uarch_insn_t *in, uint32_t nacc)
{
    uarch_rs_t *const rs = nacc ? u->rs_mem : in->fp != PMUSIM_UARCH_FP_NONE ? u->rs_fp : &u->rs[0];
    if (rs == NULL)
        __builtin_unreachable();
    return rs;
}

static void rs_pop(uarch_rs_t *rs)
{
    rs->used -= rs->h[0].uops;
    const struct uarch_rs_ent last = rs->h[--rs->n];
    uint32_t i = 0;
    for (;;) {
        uint32_t c = 2 * i + 1;
        if (c >= rs->n)
            break;
        if (c + 1 < rs->n && rs->h[c + 1].leave < rs->h[c].leave)
            c++;
        if (last.leave <= rs->h[c].leave)
            break;
        rs->h[i] = rs->h[c];
        i = c;
    }
    rs->h[i] = last;
    if (!rs->n)
        rs->h[0].leave = UINT64_MAX; /* empty: rs_room()'s one test */
}

/* The first cycle from d on at which `uops` entries of the station are
 * free (an instruction with more uops than the station has entries waits
 * for all of them); the uops that left by then are taken out. */
static uint64_t rs_room_slow(uarch_rs_t *rs, uint64_t d, uint32_t uops)
{
    if (uops > rs->size)
        uops = rs->size;
    for (;;) {
        if (rs->next_uops && rs->next_leave <= d) {
            rs->used -= rs->next_uops;
            rs->next_uops = 0;
        }
        while (rs->n && rs->h[0].leave <= d)
            rs_pop(rs);
        if (rs->used + uops <= rs->size)
            return d;
        /* something is in: the station is not empty (used > 0); with
         * nothing in, used would exceed size, which rs_enter() does not
         * test (its test cost 34-36 M host instructions on mix1 wsm,
         * docs/PERFORMANCE.md, eighth pass): stop here instead of looping */
        g_assert(rs->n || rs->next_uops);
        d = rs->n ? rs->h[0].leave : UINT64_MAX;
        if (rs->next_uops && rs->next_leave < d)
            d = rs->next_leave;
    }
}

/* rs_room_slow()'s common case inline: the uops that left by d are the
 * next cycle's gathered ones at most, and there is room. */
static inline __attribute__((always_inline)) uint64_t rs_room(uarch_rs_t *rs, uint64_t d,
                                                              uint32_t uops)
{
    if (rs->next_uops && rs->next_leave <= d) {
        rs->used -= rs->next_uops;
        rs->next_uops = 0;
    }
    if (rs->h[0].leave > d && rs->used + MIN(uops, rs->size) <= rs->size)
        return d;
    return rs_room_slow(rs, d, uops);
}

/* Puts `uops` entries leaving at `leave` into the heap. */
static G_GNUC_NO_INLINE void rs_push(uarch_rs_t *rs, uint64_t leave, uint32_t uops)
{
    g_assert(rs->n < UARCH_RS_MAX);
    uint32_t i = rs->n++;
    while (i && rs->h[(i - 1) / 2].leave > leave) {
        rs->h[i] = rs->h[(i - 1) / 2];
        i = (i - 1) / 2;
    }
    rs->h[i] = (struct uarch_rs_ent){ leave, uops };
}

/* An instruction allocated at d takes `uops` entries until it leaves: the
 * cycle after d, or when the data of the load it waits for are back (the
 * thread's ring of load data cycles, before the instruction's own loads
 * enter it, access_done()). */
static inline __attribute__((always_inline)) void
rs_enter(uarch_rs_t *rs, const uarch_thread_t *t, const pmusim_uarch_insn_t *in,
         const pmusim_uarch_access_t *acc, uint32_t nacc, uint64_t d, uint32_t uops)
{
    uint64_t leave = d + 1;
    if (in->rdep) {
        const uint64_t src = t->load_done[(t->nload - in->rdep) & (DEP_RING - 1)];
        leave = src > leave ? src : leave;
    }
    if (nacc && !acc[0].is_store && acc[0].addr_dep) {
        const uint64_t src = t->load_done[(t->nload - acc[0].addr_dep) & (DEP_RING - 1)];
        leave = src > leave ? src : leave;
    }
    if (uops > rs->size)
        uops = rs->size;
    /* rs_room() made the room at d or before and nothing entered since
     * (used + uops <= size; not tested here: rs_room_slow() stops if it
     * ever were not) */
    rs->used += uops;
    /* Entries with the same leaving cycle leave together (rs_room() takes
     * out all those leaving by a cycle), so they may share one element:
     * the ones leaving the next cycle gather in next_uops, and go to the
     * heap as one element only if another next cycle comes while they
     * are in (an SMT thread allocating earlier than the last one). */
    if (leave == d + 1) {
        if (rs->next_uops && rs->next_leave != leave)
            rs_push(rs, rs->next_leave, rs->next_uops);
        else if (rs->next_uops) {
            rs->next_uops += uops;
            return;
        }
        rs->next_leave = leave;
        rs->next_uops = uops;
        return;
    }
    rs_push(rs, leave, uops);
}

/* The cycle an instruction of `uops` slots (dispatch's) with accesses
 * acc[0, nacc) allocates at (above); rs: its reservation station (NULL:
 * none), where it takes rs_uops entries. */
static inline __attribute__((always_inline)) uint64_t
alloc_cycle(pmusim_uarch_t *u, const uarch_thread_t *t, uint64_t d0, uint64_t rob_free,
            const pmusim_uarch_access_t *acc, uint32_t nacc, uint32_t uops, uarch_rs_t *rs,
            uint32_t rs_uops)
{
    uint64_t lb_free = 0, sb_free = 0;
    if (nacc && u->lb) {
        uint32_t nl = 0;
        for (uint32_t k = 0; k < nacc; k++)
            nl += !acc[k].is_store;
        const uint32_t ns = nacc - nl;
        if (nl)
            lb_free = t->ldq[(t->nld + MIN(nl, u->lb) - 1 - u->lb) & (LSQ_RING - 1)] + 1;
        if (ns)
            sb_free = t->stq[(t->nst + MIN(ns, u->sb) - 1 - u->sb) & (LSQ_RING - 1)] + 1;
    }
    uint64_t d = d0 > rob_free ? d0 : rob_free;
    d = d > lb_free ? d : lb_free;
    d = d > sb_free ? d : sb_free;
    uint64_t rs_free = 0;
    if (G_UNLIKELY(rs != NULL)) {
        const uint64_t at = rs_room(rs, d, rs_uops);
        if (at > d)
            d = rs_free = at;
    }
    if (G_UNLIKELY(d > d0 || (u->alloc_gaps && d > t->disp_cycle + 1)))
        alloc_stalls(u, t, d0, rob_free, lb_free, sb_free, rs_free, rs, d, uops);
    return d;
}

/* The load and store buffer entries of an instruction retiring in cycle
 * `ret` (the window ring's value) free after it. */
static inline __attribute__((always_inline)) void
alloc_retire(const pmusim_uarch_t *u, uarch_thread_t *t, const pmusim_uarch_access_t *acc,
             uint32_t nacc, uint64_t ret)
{
    if (!nacc || !u->lb)
        return;
    for (uint32_t k = 0; k < nacc; k++) {
        if (acc[k].is_store)
            t->stq[t->nst++ & (LSQ_RING - 1)] = ret;
        else
            t->ldq[t->nld++ & (LSQ_RING - 1)] = ret;
    }
}

/* ---- store forwarding (docs/UARCH.md §1, "Store forwarding") ----
 *
 * A store stays in the store buffer, where a younger load can take its
 * data, until the cycle after it retires (the cycle its store-buffer entry
 * frees, alloc_retire(); the commit to the L1D after retirement is not
 * modelled).  A load dispatched at d sees the older stores of its thread
 * that are still there; the youngest of them that overlaps the load
 * forwards its data if the load's bytes lie wholly inside it, and blocks
 * the load otherwise (Intel's optimization manual, the store-forwarding
 * size rule: the bytes loaded must be a subset of the bytes stored).  The
 * thread retires in order, so the stores' leaving cycles grow with their
 * age: the ones still there are the youngest, [sf_live, nsf) of the ring
 * once the load's check has let the others leave.  On a CPU with a store
 * buffer they are at most its entries (a store allocated only once the
 * one u->sb places back had left); the ring keeps LSQ_RING, which bounds
 * them on Knights Mill (no size). */
static inline gboolean stfwd_blocked(const uarch_thread_t *t, uint64_t addr, uint64_t end)
{
    /* [sf_live, nsf): the stores still there at d (stfwd_note()) */
    const uint64_t n = t->nsf - t->sf_live; /* <= LSQ_RING */
    for (uint64_t i = 1; i <= n; i++) {
        const struct uarch_sf *s = &t->sf[(t->nsf - i) & (LSQ_RING - 1)];
        if (s->addr < end && addr < s->end)
            return !(s->addr <= addr && end <= s->end);
    }
    return FALSE;
}

/* The filter that spares most loads the search: each live store counts
 * once in the bucket of each 8-byte granule it writes (at most
 * SF_BUCKETS granules: a wider store counts in every bucket once), and a
 * load whose granules' buckets are all 0 overlaps no live store. */
static inline void stfwd_count(uarch_thread_t *t, uint64_t addr, uint64_t end, int by)
{
    const uint64_t first = addr >> 3;
    uint64_t last = (end - 1) >> 3;
    if (last - first >= SF_BUCKETS)
        last = first + SF_BUCKETS - 1;
    for (uint64_t g = first; g <= last; g++)
        t->sf_cnt[g & (SF_BUCKETS - 1)] = (uint8_t)(t->sf_cnt[g & (SF_BUCKETS - 1)] + by);
}

static inline gboolean stfwd_maybe(const uarch_thread_t *t, uint64_t addr, uint64_t end)
{
    const uint64_t first = addr >> 3;
    uint64_t last = (end - 1) >> 3;
    if (last - first >= SF_BUCKETS)
        return TRUE;
    for (uint64_t g = first; g <= last; g++)
        if (t->sf_cnt[g & (SF_BUCKETS - 1)])
            return TRUE;
    return FALSE;
}

/* 4 KiB aliasing (docs/UARCH.md §1 "Store forwarding"): the youngest live
 * store whose bytes overlap the load's [addr, end) in their address bits
 * 11:0 (the two ranges taken modulo 4 KiB) is the one the load is matched
 * to on those bits; the load is aliased when that store's bytes do not
 * overlap its own (a store that does is the one it forwards from or is
 * blocked by).  A store that overlaps modulo 4 KiB writes a granule of
 * the load's bucket, so stfwd_maybe() lets every such load through. */
static inline gboolean stfwd_alias(const uarch_thread_t *t, uint64_t addr, uint64_t end)
{
    const uint64_t n = t->nsf - t->sf_live; /* <= LSQ_RING */
    for (uint64_t i = 1; i <= n; i++) {
        const struct uarch_sf *s = &t->sf[(t->nsf - i) & (LSQ_RING - 1)];
        if (((s->addr - addr) & 4095u) < end - addr || ((addr - s->addr) & 4095u) < s->end - s->addr)
            return !(s->addr < end && addr < s->end);
    }
    return FALSE;
}

/* The record site of 4 KiB aliasing: the instruction whose load
 * stfwd_note() found aliased counts one PARTIAL_ADDRESS_ALIAS (summed with
 * its other counts; no delay: docs/UARCH.md §7).  Only a load the granule
 * filter lets through comes here: the others pay nothing. */
static G_GNUC_NO_INLINE void alias_event(pmusim_uarch_t *u, const uarch_thread_t *t,
                                          uint64_t addr, uint64_t end)
{
    if (u->alias_on && stfwd_alias(t, addr, end))
        ev_add(u, &u->cfg->ev.addr_alias, 1);
}

/* The oldest live store leaves the filter. */
static inline void stfwd_leave(uarch_thread_t *t)
{
    const struct uarch_sf *s = &t->sf[t->sf_live++ & (LSQ_RING - 1)];
    stfwd_count(t, s->addr, s->end, -1);
}

/* An instruction (or a part of one: `first` FALSE) dispatched at d and
 * retiring at ret with accesses acc[0, n): PMUSIM_F_STFWD_BLOCK when its
 * first access is a load that a store cannot forward to (the INSN record's
 * memory part, the only one the flag describes), then its stores enter the
 * ring (an instruction's own stores come after its first access).  The
 * stores that have left by a load's dispatch leave the filter at its
 * check (the thread dispatches in order, so d only grows); a store that
 * would overwrite a live one's slot makes that one leave first. */
static inline __attribute__((always_inline)) uint16_t
stfwd_note(pmusim_uarch_t *u, uarch_thread_t *t, const pmusim_uarch_access_t *acc, uint32_t n,
           uint64_t d, uint64_t ret, const gboolean first)
{
    uint16_t f = 0;
    if (first && !acc[0].is_store && t->sf_live != t->nsf) {
        while (t->sf_live != t->nsf && t->sf[t->sf_live & (LSQ_RING - 1)].gone <= d)
            stfwd_leave(t);
        const uint64_t a = acc[0].addr, e = a + (acc[0].size ? acc[0].size : 1u);
        if (t->sf_live != t->nsf && stfwd_maybe(t, a, e)) {
            if (stfwd_blocked(t, a, e))
                f = PMUSIM_F_STFWD_BLOCK;
            alias_event(u, t, a, e);
        }
    }
    for (uint32_t k = 0; k < n; k++)
        if (acc[k].is_store) {
            if (t->nsf - t->sf_live == LSQ_RING)
                stfwd_leave(t);
            struct uarch_sf *s = &t->sf[t->nsf++ & (LSQ_RING - 1)];
            s->addr = acc[k].addr;
            s->end = acc[k].addr + (acc[k].size ? acc[k].size : 1u);
            s->gone = ret + 1;
            stfwd_count(t, s->addr, s->end, 1);
        }
    return f;
}

/* The common instruction of one thread (no SMT merge, no Montecito
 * switching) without the general body's work: the lines it occupies are
 * the one fetched last or the most recent of their ITLB and L1I sets (a
 * fetch that costs nothing, nor events, nor an offcore part) and it has at
 * most one access.  Everything else insn_body() does for it is done here
 * the same way in the same order: a full reorder window (its ROB_FULL
 * count), the access (inline when its page and line are the most recent
 * of their DTLB and L1D sets, else data_access(), which may add EVENT
 * counts and an offcore part), a branch (predicted and trained; a
 * misprediction or a resteer moves the front end and adds its count),
 * retirement, the records and the EVENT sums.  FAST_NO, before anything has
 * changed: take the general body.  Inlined in the loop of insn_one(),
 * whose general body is a call (docs/PERFORMANCE.md, "The model: cost per
 * instruction").  An L3 miss matters only to Montecito switching, which
 * never comes here. */
/* What insn_fast() knows of its instruction's shape (a constant of each
 * inlined copy, so that a copy tests only what it does not know): nothing
 * (SH_ANY), no access and no branch (SH_PLAIN), no access and a branch
 * (SH_BRANCH), one access (SH_ACCESS). */
enum { SH_ANY = 0, SH_PLAIN = 1, SH_BRANCH = 2, SH_ACCESS = 3 };
/* `no_rs` TRUE: no reservation station is modelled (!u->rs_on, an input
 * without "rsdep"; IA-64): a copy without the station's tests, which
 * pmusim_uarch_insns() picks once per batch (docs/PERFORMANCE.md, seventh
 * pass); FALSE: one is (u->rs_on), a copy that does not test for it (eighth
 * pass; pmusim_uarch_insn() passes !u->rs_on, not a constant)
 */
#define SH_NACC                                                                                    \
    (shape == SH_PLAIN || shape == SH_BRANCH ? 0u : shape == SH_ACCESS ? 1u : in->naccess)
#define SH_ISBR                                                                                    \
    (shape == SH_PLAIN ? FALSE : shape == SH_BRANCH ? TRUE : in->br != PMUSIM_UARCH_BR_NONE)

static inline __attribute__((always_inline)) int
insn_fast(pmusim_uarch_t *u, uarch_thread_t *t, const pmusim_uarch_insn_t *in, const gboolean ia64,
          const unsigned lb, const uint32_t w, const uint64_t window, out_cursor_t *cur,
          pmusim_mem_t *const mems, const int shape, const gboolean no_rs)
{
    /* mems: NULL, at most one access (the loop's inlined body); else room
     * for in->naccess results (insn_multi_one()) */
    const gboolean multi = mems != NULL;
    /* u->cfg read where it is used, on the rare paths: a local would be
     * kept on the stack over the whole body */
    /* a divide (the divider's timing and record) and a microcoded
     * instruction take the general body */
    const uint32_t opk = in->flags & PMUSIM_F_OPKIND_MASK;
    if (!ia64 && G_UNLIKELY(opk == u->div_key || in->uops > u->ms_limit))
        return FAST_NO;
    /* in->naccess <= 1 (insn_check_one()) unless multi */
    /* The instruction lies in the line fetched last when the offsets of
     * its first and last bytes from that line's start are both below the
     * line size (an ip below the line wraps to a large offset; x86 takes
     * a length of 0 as 1, which the exact test below sorts out); one test
     * of both, as fetch_mask is ~(line size - 1) (all ones until this
     * test first passed on the thread) */
    const uint64_t fx = in->ip - t->fetch_lo;
    const uint64_t fxe = fx + (ia64 ? (in->len ? in->len - 1u : 0u) : (uint64_t)in->len - 1u);
    if (G_UNLIKELY((fx | fxe) & t->fetch_mask)) {
        const uint64_t blk = in->ip >> lb;
        const uint64_t eblk = (in->ip + (in->len ? in->len - 1u : 0u)) >> lb;
        if (blk != t->last_fetch_blk || eblk != blk) {
            /* new lines: free when each is the most recent of its ITLB and L1I
             * sets (the general body's fetch would change nothing but
             * last_fetch_blk, which is set here the same way).  A thread's
             * first instruction comes here (last_fetch_blk starts as no
             * block): the general body runs it, so that below t->any holds */
            if (G_UNLIKELY(!t->any))
                return FAST_NO;
            /* the page of the line fetched last is the most recent of its
             * ITLB set (only the fetch of a new line, which sets
             * last_fetch_blk, changes the ITLB): a line of that page needs
             * the L1I test alone */
            if (blk != t->last_fetch_blk &&
                !(((in->ip >> 12) == ((t->last_fetch_blk << lb) >> 12) ||
                   uarch_cache_mru_hit_p2(&u->itlb, in->ip >> 12, FALSE)) &&
                  uarch_cache_mru_hit_p2(&u->l1i, blk, FALSE)))
                return FAST_NO;
            if (eblk != blk &&
                !((((eblk << lb) >> 12) == (in->ip >> 12) ||
                   uarch_cache_mru_hit_p2(&u->itlb, (eblk << lb) >> 12, FALSE)) &&
                  uarch_cache_mru_hit_p2(&u->l1i, eblk, FALSE)))
                return FAST_NO;
            /* each line looked up hit (docs/UARCH.md §1: a lookup per new
             * line); one when the instruction lies in one line, which is new */
            ifetch_hits_fast(u, t, 1 + (eblk - blk) - (blk == t->last_fetch_blk));
            t->last_fetch_blk = eblk;
            t->fetch_lo = eblk << lb;
        }
        t->fetch_mask = ~(((uint64_t)1 << lb) - 1u);
    }
    /* from here on the instruction stays on the fast path: its EVENT
     * counts go to u->iev, empty between instructions (events_collect()) */
    gboolean oc = FALSE;
    uint32_t mstores = 0; /* multi: the stores among the accesses */
    uint64_t d = t->fe_ready > t->disp_cycle ? t->fe_ready : t->disp_cycle;
    /* a free entry in the reorder window (no test of t->n: the ring), and
     * in the load and store buffers */
    const uint64_t free_at = t->ring[(t->n - window) & (RING_SIZE - 1)] + 1;
    uarch_rs_t *const rs = ia64 || no_rs ? NULL : rs_pick_on(u, in, SH_NACC);
    /* the slots (insn_slots()), once for the instruction */
    const uint32_t fused = ia64 ? 0u : opk == u->fuse_key;
    const uint32_t uops = ia64 ? 1u : (in->uops ? in->uops : 1u) - fused;
    d = alloc_cycle(u, t, d, free_at, in->access, SH_NACC, uops, rs, uops);
    pmusim_mem_t m;
    /* u->l1d_plain is !ia64 (pmusim_uarch_new()) */
    if (!multi && SH_NACC && !data_access_l1_mru(u, &in->access[0], &m, !ia64, TRUE)) {
        /* the whole lookup, as insn_body() makes it */
        u->oc_valid = FALSE;
        memset(&m, 0, sizeof m);
        /* a locked load's L2 lookup is a lock RFO (data_access_done());
         * set only here, where a lookup left L1, so a hit pays nothing */
        u->lock_ld = (in->flags & PMUSIM_F_LOCK) != 0;
        if (ia64)
            data_access(u, &in->access[0], in->fp != PMUSIM_UARCH_FP_NONE, &m);
        else
            data_access_plain(u, &in->access[0], in->fp != PMUSIM_UARCH_FP_NONE, &m);
        u->lock_ld = FALSE;
        oc = u->oc_valid;
    }
    d = take_slots(&t->disp_cycle, &t->disp_used, d, uops, w);
    if (!ia64 && !no_rs)
        rs_enter(rs, t, in, in->access, SH_NACC, d, uops);
    uint64_t c = d + 1;
    if (!multi && SH_NACC)
        c = access_done(u, t, &in->access[0], d, &m, c);
    if (multi) {
        /* every access after dispatch, as insn_body() makes them; the
         * first one that takes the whole lookup starts the offcore part
         * (the first data request's) */
        gboolean slow = FALSE;
        for (uint32_t k = 0; k < in->naccess; k++) {
            const pmusim_uarch_access_t *a = &in->access[k];
            mstores += a->is_store;
            if (!data_access_l1_mru(u, a, &mems[k], !ia64, TRUE)) {
                if (!slow) {
                    u->oc_valid = FALSE;
                    slow = TRUE;
                }
                memset(&mems[k], 0, sizeof mems[k]);
                u->lock_ld = (in->flags & PMUSIM_F_LOCK) != 0; /* as above */
                if (ia64)
                    data_access(u, a, in->fp != PMUSIM_UARCH_FP_NONE, &mems[k]);
                else
                    data_access_plain(u, a, in->fp != PMUSIM_UARCH_FP_NONE, &mems[k]);
                u->lock_ld = FALSE;
            }
            c = access_done(u, t, a, d, &mems[k], c);
        }
        oc = slow && u->oc_valid;
    }
    /* a branch: predicted and trained as in insn_body(); a misprediction
     * or a resteer moves the front end and counts its EVENT (the only
     * count such an instruction can have) */
    pmusim_branch_t br;
    if (SH_ISBR) {
        memset(&br, 0, sizeof br);
        int res = branch_predict(u, t, in, &br, ia64);
        if (G_UNLIKELY(res != BR_OK)) {
            if (res == BR_MISPREDICT) {
                uint64_t again = branch_resolved(t, &br, c) + u->cfg->mispredict_penalty;
                if (again > t->fe_ready)
                    t->fe_ready = t->misp_ready = again;
                ev_add(u, &u->cfg->ev.misp_stall, u->cfg->mispredict_penalty);
            } else {
                uint64_t again = d + u->cfg->resteer_penalty;
                if (again > t->fe_ready)
                    t->fe_ready = again;
                if (!ia64)
                    resteer_events(u, in);
            }
        }
    }
    const uint64_t r = take_slots(&t->ret_cycle, &t->ret_used, c, uops, w);
    t->ring[t->n & (RING_SIZE - 1)] = t->ret_cycle;
    t->n++;
    alloc_retire(u, t, in->access, SH_NACC, t->ret_cycle);
    /* x86 (u->stfwd is !ia64): a store-forwarding block of its load */
    const uint16_t sfb =
        !ia64 && SH_NACC ? stfwd_note(u, t, in->access, SH_NACC, d, t->ret_cycle, TRUE) : 0u;
    if (!ia64 && u->ports) {
        const uint32_t nst = multi ? mstores : SH_NACC ? in->access[0].is_store : 0u;
        ports_count(u, t, in, (multi ? in->naccess : SH_NACC) - nst, nst, SH_ISBR, TRUE, uops, r);
    }
    const uint32_t ti = 0; /* insn_check_one() */
    /* the sink runs (and may fail: u->err) only in the rare cases, which
     * say so in `called` */
    gboolean called = FALSE;
    /* the loop stream detector's record of an earlier cycle goes out
     * before this instruction's records (UINT64_MAX: none waits; the
     * detector follows the instruction below, lsd_track()) */
    if (G_UNLIKELY(r > t->lsd_cyc)) {
        if (cur && G_LIKELY(cur->p != cur->end)) {
            lsd_emit_at(u, cur->p++); /* room in the batch: no sink call */
        } else {
            cursor_sync(u, cur);
            lsd_emit(u, ti);
            cursor_load(u, cur);
            called = TRUE;
        }
    }
    if (G_UNLIKELY(r > t->last_ret + IDLE_MIN)) { /* t->any (above) */
        t->plm = in->plm & 3; /* the batch loop sets it only here (insn_one()) */
        cursor_sync(u, cur);
        rec_new(u, ti, PMUSIM_REC_IDLE, t->last_ret + 1)->n = r - (t->last_ret + 1);
        cursor_load(u, cur);
        called = TRUE;
    }
    pmusim_rec_t *rec;
    if (cur) {
        if (G_UNLIKELY(cur->p == cur->end)) {
            cursor_sync(u, cur);
            out_flush(u);
            cursor_load(u, cur);
            called = TRUE;
        }
        rec = G_UNLIKELY(called) && u->err ? &u->scratch : cur->p++;
    } else {
        if (G_UNLIKELY(u->outp == u->out_end)) {
            out_flush(u);
            called = TRUE;
        }
        rec = G_UNLIKELY(called) && u->err ? &u->scratch : u->outp++;
    }
    if (in->tmpl) {
        /* the static part, kind to name, in one copy
         * (pmusim_uarch_rec_template(): thread 0, the flags the input
         * gives and FP; mem, br and oc zero, written here instead) */
        memcpy(&rec->kind, &in->tmpl->kind, offsetof(pmusim_rec_t, mem) - offsetof(pmusim_rec_t, kind));
        rec->cycle = r;
        if (SH_NACC || SH_ISBR)
            rec->flags |= (SH_NACC ? PMUSIM_F_MEM : 0) | (SH_ISBR ? PMUSIM_F_BRANCH : 0) |
                          (oc ? PMUSIM_F_OFFCORE : 0) | sfb;
        if (SH_NACC)
            rec->mem = multi ? mems[0] : m;
        else
            rec->mem = (pmusim_mem_t){ 0 };
        rec->mem.rdep = rec_rdep(in, SH_NACC, SH_ISBR, ia64);
        if (SH_ISBR)
            rec->br = br;
        else
            rec->br = (pmusim_branch_t){ 0 };
        if (G_UNLIKELY(oc))
            rec->oc = u->oc;
        else
            rec->oc = (pmusim_offcore_t){ 0 };
    } else {
        uint16_t flags = (in->flags & PMUSIM_UARCH_PASS_FLAGS) | sfb;
        if (in->fp != PMUSIM_UARCH_FP_NONE)
            flags |= PMUSIM_F_FP;
        if (SH_NACC)
            flags |= PMUSIM_F_MEM;
        if (SH_ISBR)
            flags |= PMUSIM_F_BRANCH;
        if (G_UNLIKELY(oc))
            flags |= PMUSIM_F_OFFCORE;
        rec_insn_head(rec, r, flags, in->plm & 3, in, ia64);
        if (SH_NACC)
            rec->mem = multi ? mems[0] : m;
        else
            rec->mem = (pmusim_mem_t){ 0 };
        rec->mem.rdep = rec_rdep(in, SH_NACC, SH_ISBR, ia64);
        if (SH_ISBR)
            rec->br = br;
        else
            rec->br = (pmusim_branch_t){ 0 };
        if (G_UNLIKELY(oc))
            rec->oc = u->oc;
        else
            rec->oc = (pmusim_offcore_t){ 0 };
    }
    /* the further accesses' MEM records, as insn_body() writes them */
    for (uint32_t k = 1; multi && k < in->naccess; k++) {
        pmusim_rec_t *mr;
        if (G_UNLIKELY(u->outp == u->out_end)) {
            out_flush(u);
            called = TRUE;
        }
        mr = G_UNLIKELY(called) && u->err ? &u->scratch : u->outp++;
        rec_clear(mr, r, PMUSIM_REC_MEM, ti, t->plm);
        mr->ip = in->ip;
        mr->mem = mems[k];
    }
    if (!ia64 && u->lsd_cap)
        lsd_track(u, t, in, r, uops, fused, SH_ISBR, &br);
    /* u->niev || r >= t->ev_due implies r >= u->ev_gate */
    if (G_UNLIKELY(r >= u->ev_gate)) {
        if (u->niev || r >= t->ev_due || r >= t->port_due) {
            t->plm = in->plm & 3;
            cursor_sync(u, cur);
            if (u->niev)
                events_collect(u, ti, r);
            else if (r >= t->ev_due)
                events_flush(u, ti, r, FALSE); /* what events_collect() does with no new count */
            if (r >= t->port_due)
                ports_flush(u, ti, r, FALSE);
            cursor_load(u, cur);
            called = TRUE;
        } else {
            u->ev_gate = ev_gate_of(u); /* the instruction had no counts */
        }
    }
    t->last_ret = r; /* t->any holds already */
    /* one thread retires in order: r is the largest retirement cycle yet,
     * u->st.cycles is max(itself, r + 1) when read (stats_cycles()) */
    return called ? FAST_DONE_CALLED : FAST_DONE;
}

/* The data accesses acc[0, n) of an instruction dispatched at d, results
 * in mem[]; returns when its loads are back (at least c). */
static inline __attribute__((always_inline)) uint64_t
accesses_run(pmusim_uarch_t *u, uarch_thread_t *t, const pmusim_uarch_access_t *acc, uint32_t n,
             gboolean fp, uint64_t d, uint64_t c, pmusim_mem_t *mem, gboolean *load_l3_miss)
{
    for (uint32_t k = 0; k < n; k++) {
        const pmusim_uarch_access_t *a = &acc[k];
        u->l3_miss = FALSE;
        if (!data_access_l1_mru(u, a, &mem[k], u->l1d_plain, FALSE)) {
            memset(&mem[k], 0, sizeof mem[k]);
            if (u->l1d_plain)
                data_access_plain(u, a, fp, &mem[k]);
            else
                data_access(u, a, fp, &mem[k]);
        }
        c = access_done(u, t, a, d, &mem[k], c);
        if (!a->is_store)
            *load_l3_miss |= u->l3_miss;
    }
    return c;
}

/* ports_count() of the first n accesses of `in`. */
static void ports_count_all(pmusim_uarch_t *u, uarch_thread_t *t, const pmusim_uarch_insn_t *in,
                            uint32_t n, gboolean br, gboolean compute, uint32_t uops, uint64_t r)
{
    uint32_t nst = 0;
    for (uint32_t k = 0; k < n; k++)
        nst += in->access[k].is_store != 0;
    ports_count(u, t, in, n - nst, nst, br, compute, uops, r);
}

/* A divide dispatched at d whose other work completes at c: it starts
 * when the thread's divider is free (unpipelined: busy for its whole
 * latency, integer or FP by the instruction's class), and the instruction
 * completes no earlier than its result (docs/UARCH.md §1.1).  Returns the
 * completion; *busy the busy cycles. */
static uint64_t divide(pmusim_uarch_t *u, uarch_thread_t *t, const pmusim_uarch_insn_t *in,
                       uint64_t d, uint64_t c, uint32_t *busy)
{
    *busy = fpc_is_fp(PMUSIM_REC_FPCLASS(in->flags)) ? u->cfg->lat_div_fp : u->cfg->lat_div_int;
    const uint64_t start = t->div_free > d ? t->div_free : d;
    t->div_free = start + *busy;
    return t->div_free > c ? t->div_free : c;
}

/* One instruction; `merge` and `soemt` are u->merge and u->soemt as
 * constants, so each configuration gets a body without the others' tests
 * (docs/UARCH.md, speed).  `open`: the first part of an instruction whose
 * accesses continue (PMUSIM_UARCH_ACC_MORE): it stays open (t->open),
 * its counts wait in t->oev. */
static inline __attribute__((always_inline)) gboolean
insn_body(pmusim_uarch_t *u, const pmusim_uarch_insn_t *in, GError **error, const gboolean merge,
          const gboolean soemt, const gboolean open)
{
    const uarch_cpu_cfg_t *cfg = u->cfg;
    /* one thread (neither merging nor switching) is thread 0: insn_check()
     * let only in->thread < u->nthreads == 1 through */
    const uint32_t ti = merge || soemt ? in->thread : 0;
    /* an instruction of the open one's thread ends it; SMT threads may run
     * beside it (merge_drain() holds their records); Montecito's switches
     * write records of other threads: every open one ends */
    if (G_UNLIKELY(u->nopen)) {
        if (merge)
            insn_close(u, ti);
        else
            insn_close_all(u);
    }
    uarch_thread_t *t = &u->th[ti];
    t->plm = in->plm & 3;
    if (soemt)
        mont_schedule(u, ti);
    if (merge) /* only the SMT merge asks */
        t->started = TRUE;
    if (t->ret_cycle < u->floor) { /* a thread behind records already handed out */
        if (t->any) { /* not a thread's first instruction: that starts where the others are */
            u->st.moved_up++;
            u->st.moved_up_cycles += u->floor - t->ret_cycle;
        }
        t->ret_cycle = u->floor;
        t->ret_used = 0;
    }
    u->niev = 0;
    u->oc_valid = u->ifetch_oc_valid = FALSE;
    u->l3_miss = FALSE;
    /* SMT threads split the width and the window statically: a uop of one
     * of n threads costs n slots of the core's `width` per cycle, and each
     * thread has window / n entries (Intel halves the ROB between two
     * threads, uarch.md §1.4; dispatch sharing is dynamic on the real
     * machine, docs/UARCH.md); u->share and u->window hold them */
    const uint32_t w = cfg->width;
    const uint32_t window = u->window;
    uint32_t uops = (cfg->ia64 ? 1 : insn_slots(u, in)) * (merge ? u->share : 1);

    /* front end: fetch each new line the instruction occupies */
    uint64_t blk = in->ip >> u->l1i.line_bits;
    uint64_t eblk = (in->ip + (in->len ? in->len - 1u : 0u)) >> u->l1i.line_bits;
    if (G_UNLIKELY(blk != t->last_fetch_blk || eblk != blk)) {
        uint32_t lat = 0;
        const uint64_t i1 = u->st.i1_miss, lla = u->st.ll_access, llm = u->st.ll_miss;
        const uint64_t itlb_misses = u->itlb_misses;
        const uint64_t end = in->ip + (in->len ? in->len - 1u : 0u); /* its last byte */
        if (eblk != blk && u->cg_rules) {
            /* cachegrind's rule: both lines, then, if either missed, the
             * LL with the whole instruction (data_lines_cg()) */
            unsigned tlb = PMUSIM_TLB_L1_HIT;
            gboolean missed = FALSE;
            if (blk != t->last_fetch_blk && !ifetch_mru(u, in->ip))
                missed = !ifetch_l1(u, in->ip, &lat, &tlb);
            if (!ifetch_mru(u, eblk << u->l1i.line_bits))
                missed |= !ifetch_l1(u, eblk << u->l1i.line_bits, &lat, &tlb);
            if (missed) {
                u->st.i1_miss = i1 + 1;
                lat = ifetch_beyond(u, in->ip, end - in->ip + 1, lat, tlb);
            }
        } else if (blk != t->last_fetch_blk && !ifetch_mru(u, in->ip))
            lat += ifetch(u, in->ip,
                          (eblk != blk ? ((blk + 1) << u->l1i.line_bits) - 1 : end) - in->ip + 1);
        if (eblk != blk && !u->cg_rules && !ifetch_mru(u, eblk << u->l1i.line_bits)) {
            lat += ifetch(u, eblk << u->l1i.line_bits, end - (eblk << u->l1i.line_bits) + 1);
            /* an instruction across two lines is one I1 reference, a miss
             * if either line missed, and at most one LL reference and one
             * LL miss: cachegrind's counting, as for a data access
             * (docs/UARCH.md §1); the EVENT records count each line, as
             * the hardware's fetch does */
            u->st.i1_miss = MIN(u->st.i1_miss, i1 + 1);
            u->st.ll_access = MIN(u->st.ll_access, lla + 1);
            u->st.ll_miss = MIN(u->st.ll_miss, llm + 1);
        }
        t->last_fetch_blk = eblk;
        t->fetch_lo = eblk << u->l1i.line_bits; /* insn_fast() */
        /* ITLB_MISS_RETIRED: the instruction once, even when both its
         * lines' pages missed (ITLB_MISSES:ANY counts each) */
        if (u->itlb_misses != itlb_misses)
            ev_add(u, &cfg->ev.itlb_miss_ret, 1);
        if (lat) {
            uint64_t from = t->fe_ready > t->disp_cycle ? t->fe_ready : t->disp_cycle;
            t->fe_ready = from + lat;
            /* ITLB and L1I misses, as the front end waits for them (wsm
             * L1I:CYCLES_STALLED) */
            ev_add(u, &cfg->ev.fetch_stall_cyc, lat);
        }
    }

    /* dispatch: front end ready, a free slot in the reorder window */
    uint64_t d = t->fe_ready > t->disp_cycle ? t->fe_ready : t->disp_cycle;
    uarch_rs_t *const rs = cfg->ia64 ? NULL : rs_pick(u, in, in->naccess);
    const uint32_t rs_uops = cfg->ia64 ? 1 : insn_slots(u, in);
    d = alloc_cycle(u, t, d, t->ring[(t->n - window) & (RING_SIZE - 1)] + 1, in->access,
                    in->naccess, uops, rs, rs_uops);
    d = take_slots(&t->disp_cycle, &t->disp_used, d, uops, w);
    if (G_UNLIKELY(rs != NULL))
        rs_enter(rs, t, in, in->access, in->naccess, d, rs_uops);

    /* execution: memory accesses complete after their latency */
    pmusim_mem_t mem[PMUSIM_UARCH_MAX_ACCESSES];
    gboolean fp = in->fp != PMUSIM_UARCH_FP_NONE;
    gboolean load_l3_miss = FALSE;
    u->lock_ld = (in->flags & PMUSIM_F_LOCK) != 0; /* data_access_done() */
    uint64_t c = accesses_run(u, t, in->access, in->naccess, fp, d, d + 1, mem, &load_l3_miss);
    u->lock_ld = FALSE;
    /* a divide, the microcode sequencer (docs/UARCH.md §1.1) */
    uint32_t div_busy = 0;
    if (G_UNLIKELY((in->flags & PMUSIM_F_OPKIND_MASK) == u->div_key))
        c = divide(u, t, in, d, c, &div_busy);
    if (G_UNLIKELY(in->uops > u->ms_limit)) {
        ev_add(u, &cfg->ev.ms_uops, in->uops);
        ev_add(u, &cfg->ev.ms_entry, 1);
    }

    /* branches: a misprediction restarts the front end after resolution */
    pmusim_branch_t br;
    if (in->br != PMUSIM_UARCH_BR_NONE) {
        memset(&br, 0, sizeof br);
        int res = branch_predict(u, t, in, &br, cfg->ia64);
        if (res == BR_MISPREDICT) {
            uint64_t again = branch_resolved(t, &br, c) + cfg->mispredict_penalty;
            if (again > t->fe_ready)
                t->fe_ready = t->misp_ready = again;
            ev_add(u, &cfg->ev.misp_stall, cfg->mispredict_penalty);
        } else if (res == BR_RESTEER) {
            uint64_t again = d + cfg->resteer_penalty;
            if (again > t->fe_ready)
                t->fe_ready = again;
            if (!cfg->ia64)
                resteer_events(u, in);
        }
    }

    /* retirement: in order, `width` uops per cycle */
    const uint64_t r = take_slots(&t->ret_cycle, &t->ret_used, c, uops, w);
    t->ring[t->n & (RING_SIZE - 1)] = t->ret_cycle;
    t->n++;
    alloc_retire(u, t, in->access, in->naccess, t->ret_cycle);
    const uint16_t sfb =
        u->stfwd && in->naccess ? stfwd_note(u, t, in->access, in->naccess, d, t->ret_cycle, TRUE)
                                : 0u;
    if (u->ports)
        ports_count_all(u, t, in, in->naccess, in->br != PMUSIM_UARCH_BR_NONE, TRUE,
                        insn_slots(u, in), r);

    /* records (an open instruction is not held: its parts' records follow
     * its INSN record at its cycle) */
    if (r > t->lsd_cyc) /* the detector's record of an earlier cycle */
        lsd_emit(u, ti);
    gboolean hold = soemt && load_l3_miss && !open;
    if (!hold && t->any && r > t->last_ret + IDLE_MIN) {
        uint64_t from = t->last_ret + 1;
        if (merge && from < u->floor)
            from = u->floor;
        if (r > from)
            rec_new(u, ti, PMUSIM_REC_IDLE, from)->n = r - from;
    }
    if (hold) {
        t->holding = TRUE;
        u->want_switch = TRUE;
    }
    uint16_t flags = (in->flags & PMUSIM_UARCH_PASS_FLAGS) | sfb;
    if (fp)
        flags |= PMUSIM_F_FP;
    if (in->naccess)
        flags |= PMUSIM_F_MEM;
    if (in->br != PMUSIM_UARCH_BR_NONE)
        flags |= PMUSIM_F_BRANCH;
    if (u->oc_valid || u->ifetch_oc_valid)
        flags |= PMUSIM_F_OFFCORE;
    pmusim_rec_t *rec = merge || (soemt && t->holding) ? rec_slot(u, ti, PMUSIM_REC_INSN, r)
                                                               : rec_direct(u, r);
    rec_insn_fill(rec, r, ti, flags, t->plm, in, cfg->ia64);
    if (in->naccess)
        rec->mem = mem[0];
    else
        rec->mem = (pmusim_mem_t){ 0 };
    rec->mem.rdep = rec_rdep(in, in->naccess, in->br != PMUSIM_UARCH_BR_NONE, cfg->ia64);
    if (in->br != PMUSIM_UARCH_BR_NONE)
        rec->br = br;
    else
        rec->br = (pmusim_branch_t){ 0 };
    if (flags & PMUSIM_F_OFFCORE)
        rec->oc = u->oc_valid ? u->oc : u->ifetch_oc;
    else
        rec->oc = (pmusim_offcore_t){ 0 };
    for (uint32_t k = 1; k < in->naccess; k++) {
        pmusim_rec_t *m = rec_new(u, ti, PMUSIM_REC_MEM, r);
        m->ip = in->ip;
        m->mem = mem[k];
    }
    if (u->lsd_cap) /* the loop stream detector, as insn_fast() */
        lsd_track(u, t, in, r, insn_slots(u, in), insn_fused(u, in),
                  in->br != PMUSIM_UARCH_BR_NONE, &br);
    if (G_UNLIKELY(div_busy)) {
        /* a record of its own (not summed), after the instruction's
         * records: an interval of the header's "evspan" key; an open
         * instruction's counts wait (events_stash()), its record too, to
         * its end (div_add_open()) */
        if (open) {
            div_add_open(u, &cfg->ev.div_busy, div_busy);
        } else {
            pmusim_rec_t *e = rec_new(u, ti, PMUSIM_REC_EVENT, r);
            e->ev_code = cfg->ev.div_busy.code;
            e->ev_umask = cfg->ev.div_busy.umask;
            e->n = div_busy;
        }
    }
    if (open) {
        events_stash(u, t);
        t->open = TRUE;
        u->nopen++;
        t->open_cycle = r;
        t->open_ip = in->ip;
        t->open_n = t->n;
    } else {
        if (u->niev || r >= t->ev_due)
            events_collect(u, ti, r); /* else it would add nothing and write nothing */
        if (r >= t->port_due)
            ports_flush(u, ti, r, FALSE);
    }
    if (!hold) {
        t->last_ret = r;
    }
    t->any = TRUE;
    if (r + 1 > u->st.cycles)
        u->st.cycles = r + 1;
    if (soemt && !u->want_switch && cfg->switch_quantum &&
        r >= t->switched_in + cfg->switch_quantum)
        u->want_switch = TRUE;
    if (merge)
        merge_drain(u, FALSE);
    return take_error(u, error);
}

/* The checks of pmusim_uarch_insn()'s input. */
static inline gboolean insn_check(const pmusim_uarch_t *u, const pmusim_uarch_insn_t *in,
                                  GError **error, const gboolean one)
{
    if (G_UNLIKELY(in->thread >= (one ? 1u : u->nthreads)) ||
        G_UNLIKELY(in->naccess > PMUSIM_UARCH_MAX_ACCESSES) ||
        G_UNLIKELY(in->br >= PMUSIM_UARCH_BR_COUNT_) ||
        G_UNLIKELY(in->fp >= PMUSIM_UARCH_FP_COUNT_) ||
        G_UNLIKELY(in->naccess && !in->access)) {
        g_set_error(error, PMUSIM_UARCH_ERROR, PMUSIM_UARCH_ERROR_INPUT,
                    "instruction at ip 0x%" PRIx64 ": %s", in->ip,
                    in->thread >= u->nthreads ? "thread out of range"
                    : in->naccess > PMUSIM_UARCH_MAX_ACCESSES ? "more than 64 memory accesses"
                    : in->br >= PMUSIM_UARCH_BR_COUNT_ ? "unknown branch kind"
                    : in->fp >= PMUSIM_UARCH_FP_COUNT_ ? "unknown FP class"
                                                       : "accesses missing");
        return FALSE;
    }
    return TRUE;
}

/* The general body with the configuration read at run time, for the
 * parts of an instruction (rare: no constant copies of it). */
static G_GNUC_NO_INLINE gboolean insn_body_rt(pmusim_uarch_t *u, const pmusim_uarch_insn_t *in,
                                              GError **error, gboolean open)
{
    return insn_body(u, in, error, u->merge, u->soemt, open);
}

/* A continuation of the open instruction `in` (its n accesses, in->naccess
 * without the flags): dispatched and retired as the instruction's own work
 * (its uops again, a reorder-window entry, the loads' latency), written as
 * MEM records at the instruction's cycle, directly after its others. */
static G_GNUC_NO_INLINE void insn_cont(pmusim_uarch_t *u, uint32_t ti,
                                       const pmusim_uarch_insn_t *in, uint32_t n)
{
    const uarch_cpu_cfg_t *cfg = u->cfg;
    uarch_thread_t *t = &u->th[ti];
    t->plm = in->plm & 3;
    u->niev = 0;
    const uint32_t w = cfg->width;
    const uint32_t uops = (cfg->ia64 ? 1 : insn_slots(u, in)) * (u->merge ? u->share : 1);
    uint64_t d = t->fe_ready > t->disp_cycle ? t->fe_ready : t->disp_cycle;
    uarch_rs_t *const rs = cfg->ia64 ? NULL : rs_pick(u, in, n);
    const uint32_t rs_uops = cfg->ia64 ? 1 : insn_slots(u, in);
    d = alloc_cycle(u, t, d, t->ring[(t->n - u->window) & (RING_SIZE - 1)] + 1, in->access, n,
                    uops, rs, rs_uops);
    d = take_slots(&t->disp_cycle, &t->disp_used, d, uops, w);
    if (G_UNLIKELY(rs != NULL))
        rs_enter(rs, t, in, in->access, n, d, rs_uops);
    pmusim_mem_t mem[PMUSIM_UARCH_MAX_ACCESSES];
    gboolean l3 = FALSE;
    const uint64_t c = accesses_run(u, t, in->access, n, in->fp != PMUSIM_UARCH_FP_NONE, d, d + 1,
                                    mem, &l3);
    const uint64_t r = take_slots(&t->ret_cycle, &t->ret_used, c, uops, w);
    t->ring[t->n & (RING_SIZE - 1)] = t->ret_cycle;
    t->n++;
    alloc_retire(u, t, in->access, n, t->ret_cycle);
    if (u->stfwd) /* the part's stores; its loads are not the INSN record's */
        stfwd_note(u, t, in->access, n, d, t->ret_cycle, FALSE);
    u->cont_parts++;
    t->fe_cont++; /* not an instruction (fe_flush()) */
    if (u->ports) /* the accesses' uops; its sums are not written before it ends */
        ports_count_all(u, t, in, n, FALSE, FALSE, 0, r);
    t->open_n = t->n;
    for (uint32_t k = 0; k < n; k++) {
        pmusim_rec_t *m = rec_new(u, ti, PMUSIM_REC_MEM, t->open_cycle);
        m->ip = in->ip;
        m->mem = mem[k];
    }
    events_stash(u, t);
    if (r + 1 > u->st.cycles)
        u->st.cycles = r + 1;
    if (u->merge)
        merge_drain(u, FALSE);
}

/* An input whose naccess carries part flags (PMUSIM_UARCH_ACC_MORE/CONT). */
static G_GNUC_NO_INLINE gboolean insn_part(pmusim_uarch_t *u, const pmusim_uarch_insn_t *in,
                                           GError **error)
{
    const uint32_t parts = in->naccess & (PMUSIM_UARCH_ACC_MORE | PMUSIM_UARCH_ACC_CONT);
    pmusim_uarch_insn_t x = *in;
    x.naccess = in->naccess & ~parts; /* other bits above the count: "more than 64" */
    if (!insn_check(u, &x, error, FALSE))
        return FALSE;
    const uint32_t ti = u->merge || u->soemt ? x.thread : 0;
    const uarch_thread_t *t = &u->th[ti];
    if ((parts & PMUSIM_UARCH_ACC_CONT) && t->open && t->open_ip == x.ip && t->n == t->open_n) {
        if (x.naccess)
            insn_cont(u, ti, &x, x.naccess);
        if (!(parts & PMUSIM_UARCH_ACC_MORE))
            insn_close(u, ti);
        return take_error(u, error);
    }
    /* an instruction of its own: the first part, or a continuation whose
     * instruction has ended; an open one of the thread ends (one whose
     * thread ran another instruction since: insn_body() would end it too,
     * but an empty last part does not run) */
    if (u->merge)
        insn_close(u, ti);
    else
        insn_close_all(u);
    if (parts & PMUSIM_UARCH_ACC_CONT) {
        if (!x.naccess)
            return TRUE; /* the end of an instruction that ended already */
        u->st.split_parts++;
    }
    return insn_body_rt(u, &x, error, (parts & PMUSIM_UARCH_ACC_MORE) != 0);
}

/* n instructions of one configuration: the body inlined in the loop. */
static inline __attribute__((always_inline)) gboolean
insns_run(pmusim_uarch_t *u, const pmusim_uarch_insn_t *in, size_t n, GError **error,
          const gboolean merge, const gboolean soemt)
{
    for (const pmusim_uarch_insn_t *end = in + n; in < end; in++)
        if (G_UNLIKELY(in->naccess > PMUSIM_UARCH_MAX_ACCESSES)) {
            if (!insn_part(u, in, error))
                return FALSE;
        } else if (!insn_check(u, in, error, !merge && !soemt) ||
                   !insn_body(u, in, error, merge, soemt, FALSE)) {
            return FALSE;
        }
    return TRUE;
}

/* The general body of one thread, out of line: the loop around the inlined
 * fast path (insn_one()) keeps its values in registers. */
static G_GNUC_NO_INLINE gboolean insn_general_one(pmusim_uarch_t *u, const pmusim_uarch_insn_t *in,
                                                  GError **error)
{
    return insn_body(u, in, error, FALSE, FALSE, FALSE);
}

/* insn_check() of one thread: thread 0, a known branch kind and FP class,
 * and at most one access (insn_fast() takes no more); FALSE: insn_check()
 * says what is wrong, if anything, and the general body runs the
 * instruction.  Three byte compares: the earlier single test of the 8
 * bytes from thread to uops (an add and masks) took 1.2 M more host
 * instructions on annotate wsm (docs/PERFORMANCE.md, h-um4). */
static inline gboolean insn_check_one(const pmusim_uarch_insn_t *in)
{
    return in->thread == 0 && in->br < PMUSIM_UARCH_BR_COUNT_ && in->fp < PMUSIM_UARCH_FP_COUNT_ &&
           (!in->naccess || (in->naccess == 1 && in->access));
}

/* insn_fast() of an instruction with several accesses (out of line: the
 * loop's inlined body keeps its registers); NULL cursor (u->outp). */
static G_GNUC_NO_INLINE int insn_multi_one(pmusim_uarch_t *u, const pmusim_uarch_insn_t *in,
                                           const gboolean ia64, const unsigned lb, const uint32_t w,
                                           const uint64_t window)
{
    pmusim_mem_t mems[PMUSIM_UARCH_MAX_ACCESSES];
    if (ia64)
        return insn_fast(u, &u->th[0], in, TRUE, lb, w, window, NULL, mems, SH_ANY, TRUE);
    if (!u->rs_on)
        return insn_fast(u, &u->th[0], in, FALSE, lb, w, window, NULL, mems, SH_ANY, TRUE);
    return insn_fast(u, &u->th[0], in, FALSE, lb, w, window, NULL, mems, SH_ANY, FALSE);
}

/* One instruction of one thread: the fast path, else the general body.
 * insn_body()'s clamp of ret_cycle to the floor cannot fire with one
 * thread (rec_direct_one()). */
static inline __attribute__((always_inline)) gboolean
insn_one(pmusim_uarch_t *u, const pmusim_uarch_insn_t *in, GError **error, const gboolean ia64,
         const unsigned lb, const uint32_t w, const uint64_t window, out_cursor_t *cur,
         const gboolean no_rs)
{
    gboolean ok;
    uarch_thread_t *t = &u->th[0];
    int f;
    if (G_UNLIKELY(!insn_check_one(in))) {
        cursor_sync(u, cur);
        if (G_UNLIKELY(in->naccess > PMUSIM_UARCH_MAX_ACCESSES)) {
            ok = insn_part(u, in, error);
            cursor_load(u, cur);
            return ok;
        }
        if (!insn_check(u, in, error, TRUE)) {
            cursor_load(u, cur);
            return FALSE;
        }
        /* valid: more than one access */
        t->plm = in->plm & 3;
        f = insn_multi_one(u, in, ia64, lb, w, window);
        if (f == FAST_NO)
            f = insn_general_one(u, in, error) ? FAST_DONE : FAST_NO;
        else if (f == FAST_DONE_CALLED)
            f = take_error(u, error) ? FAST_DONE : FAST_NO;
        cursor_load(u, cur);
        return f == FAST_DONE;
    }
    /* the thread's privilege level, which its records other than the
     * templated INSN ones take: the batch loop sets it after its last
     * instruction, insn_fast() before any other record, the general body
     * itself */
    if (!cur)
        t->plm = in->plm & 3;
    if (in->naccess)
        f = insn_fast(u, t, in, ia64, lb, w, window, cur, NULL, SH_ACCESS, no_rs);
    else if (in->br == PMUSIM_UARCH_BR_NONE)
        f = insn_fast(u, t, in, ia64, lb, w, window, cur, NULL, SH_PLAIN, no_rs);
    else
        f = insn_fast(u, t, in, ia64, lb, w, window, cur, NULL, SH_BRANCH, no_rs);
    if (G_LIKELY(f == FAST_DONE))
        return TRUE;
    if (f == FAST_DONE_CALLED)
        return take_error(u, error);
    cursor_sync(u, cur);
    ok = insn_general_one(u, in, error);
    cursor_load(u, cur);
    return ok;
}

gboolean pmusim_uarch_insns(pmusim_uarch_t *u, const pmusim_uarch_insn_t *in, size_t n,
                            GError **error)
{
    if (G_UNLIKELY(!u->sink)) {
        if (!n)
            return TRUE;
        g_set_error(error, PMUSIM_UARCH_ERROR, PMUSIM_UARCH_ERROR_SINK,
                    "the model stopped after a sink failure");
        return FALSE;
    }
    if (u->merge)
        return insns_run(u, in, n, error, TRUE, FALSE);
    if (u->soemt)
        return insns_run(u, in, n, error, FALSE, TRUE);
    if (G_UNLIKELY(!u->front_p2))
        return insns_run(u, in, n, error, FALSE, FALSE);
    /* read once: the loop's stores to records may alias the model */
    const unsigned lb = u->l1i.line_bits;
    const uint32_t w = u->cfg->width;
    const uint64_t window = u->window;
    out_cursor_t cur;
    cursor_load(u, &cur);
    gboolean ok = TRUE;
    const pmusim_uarch_insn_t *const start = in, *const end = in + n;
    if (u->cfg->ia64) {
        for (; in < end; in++)
            if (!insn_one(u, in, error, TRUE, lb, w, window, &cur, TRUE)) {
                ok = FALSE;
                break;
            }
    } else if (!u->rs_on) { /* no station: a copy without its tests */
        for (; in < end; in++)
            if (!insn_one(u, in, error, FALSE, lb, w, window, &cur, TRUE)) {
                ok = FALSE;
                break;
            }
    } else {
        for (; in < end; in++)
            if (!insn_one(u, in, error, FALSE, lb, w, window, &cur, FALSE)) {
                ok = FALSE;
                break;
            }
    }
    cursor_sync(u, &cur);
    /* the privilege level of the last instruction run (insn_one()); a
     * failure of the sink ends the model, one of the input leaves the
     * instruction unrun */
    if (in > start)
        u->th[0].plm = in[-1].plm & 3;
    return ok;
}

/* One instruction without the batch loop (the capture's path: one call per
 * instruction; through pmusim_uarch_insns(u, in, 1, error) it cost 10 more
 * host instructions each). */
gboolean pmusim_uarch_insn(pmusim_uarch_t *u, const pmusim_uarch_insn_t *in, GError **error)
{
    if (G_UNLIKELY(!u->sink)) {
        g_set_error(error, PMUSIM_UARCH_ERROR, PMUSIM_UARCH_ERROR_SINK,
                    "the model stopped after a sink failure");
        return FALSE;
    }
    if (G_UNLIKELY(in->naccess > PMUSIM_UARCH_MAX_ACCESSES))
        return insn_part(u, in, error);
    if (u->merge)
        return insn_check(u, in, error, FALSE) && insn_body(u, in, error, TRUE, FALSE, FALSE);
    if (u->soemt)
        return insn_check(u, in, error, FALSE) && insn_body(u, in, error, FALSE, TRUE, FALSE);
    if (G_UNLIKELY(!u->front_p2))
        return insn_check(u, in, error, TRUE) && insn_body(u, in, error, FALSE, FALSE, FALSE);
    /* no_rs read from the model here (insn_fast(): FALSE means a station) */
    return insn_one(u, in, error, u->cfg->ia64, u->l1i.line_bits, u->cfg->width, u->window, NULL,
                    !u->rs_on);
}

gboolean pmusim_uarch_passthrough(pmusim_uarch_t *u, const pmusim_rec_t *rec, GError **error)
{
    if (!u->sink) {
        g_set_error(error, PMUSIM_UARCH_ERROR, PMUSIM_UARCH_ERROR_SINK,
                    "the model stopped after a sink failure");
        return FALSE;
    }
    if (rec->thread >= u->nthreads ||
        (rec->kind != PMUSIM_REC_MARKER && rec->kind != PMUSIM_REC_EVENT)) {
        g_set_error(error, PMUSIM_UARCH_ERROR, PMUSIM_UARCH_ERROR_INPUT,
                    "record at cycle %" PRIu64 ": only MARKER and EVENT records of threads "
                    "0..%u pass through the model", rec->cycle, u->nthreads - 1);
        return FALSE;
    }
    /* a record between an instruction's parts would split its MEM records */
    if (u->merge)
        insn_close(u, rec->thread);
    else
        insn_close_all(u);
    uarch_thread_t *t = &u->th[rec->thread];
    uint64_t cycle = t->any ? t->last_ret : t->ret_cycle;
    if (cycle < u->floor && !(u->soemt && t->holding))
        cycle = u->floor;
    if (u->soemt && t->holding && t->qlen) {
        /* after the held instruction (whose retirement last_ret does not
         * hold yet): the queue goes out in order, retimed only forwards */
        const pmusim_rec_t *held = &t->q[(t->qhead + t->qlen - 1) & (t->qcap - 1)];
        if (cycle < held->cycle)
            cycle = held->cycle;
    }
    pmusim_rec_t *r = rec_new(u, rec->thread, rec->kind, cycle);
    r->plm = rec->plm;
    r->name = rec->name;
    r->ev_code = rec->ev_code;
    r->ev_umask = rec->ev_umask;
    r->n = rec->n;
    if (u->merge)
        merge_drain(u, FALSE);
    return take_error(u, error);
}

gboolean pmusim_uarch_finish(pmusim_uarch_t *u, GError **error)
{
    if (!u->sink) {
        g_set_error(error, PMUSIM_UARCH_ERROR, PMUSIM_UARCH_ERROR_SINK,
                    "the model stopped after a sink failure");
        return FALSE;
    }
    insn_close_all(u);
    if (u->soemt) {
        /* a thread switched out with a held L3 miss comes back to retire it */
        for (uint32_t i = 0; i < u->nthreads; i++)
            if (u->th[i].holding)
                mont_schedule(u, i);
        if (u->running >= 0 && u->th[u->running].holding)
            release_held(u, (uint32_t)u->running, 0);
    }
    for (uint32_t i = 0; i < u->nthreads; i++) {
        lsd_end(u, i);
        const uarch_thread_t *t = &u->th[i];
        uint64_t at = t->last_ret > u->floor ? t->last_ret : u->floor;
        if (t->nevacc)
            events_flush(u, i, at, u->soemt);
        if (t->port_due != UINT64_MAX)
            ports_flush(u, i, at, u->soemt);
    }
    if (u->merge) {
        for (uint32_t i = 0; i < u->nthreads; i++)
            u->th[i].started = FALSE; /* no more input: nothing can come earlier */
        merge_drain(u, FALSE);
    }
    out_flush(u);
    return take_error(u, error);
}

/* u->st.cycles with the fast path's instructions (insn_fast() leaves it
 * as it is): one thread neither merged nor switched retires in order, its
 * last_ret is its last retirement unless pmusim_uarch_halt() set it (a
 * later instruction retires after the halt, beyond halt_ret). */
static uint64_t stats_cycles(const pmusim_uarch_t *u)
{
    const uarch_thread_t *t = &u->th[0];
    if (!u->merge && !u->soemt && t->any && t->last_ret != t->halt_ret &&
        t->last_ret + 1 > u->st.cycles)
        return t->last_ret + 1;
    return u->st.cycles;
}

void pmusim_uarch_get_stats(const pmusim_uarch_t *u, pmusim_uarch_stats_t *st)
{
    *st = u->st;
    st->cycles = stats_cycles(u);
    st->records += (uint64_t)(u->outp - u->out);
    /* every instruction counts once in its thread's n, and so does every
     * continuation of one */
    st->insns = 0;
    for (uint32_t i = 0; i < u->nthreads; i++) {
        st->records += u->th[i].qlen;
        st->insns += u->th[i].n;
    }
    st->insns -= u->cont_parts;
}

uint64_t pmusim_uarch_records(const pmusim_uarch_t *u)
{
    uint64_t n = u->st.records + (uint64_t)(u->outp - u->out);
    for (uint32_t i = 0; i < u->nthreads; i++)
        n += u->th[i].qlen;
    return n;
}

uint64_t pmusim_uarch_thread_time(const pmusim_uarch_t *u, uint32_t thread)
{
    const uarch_thread_t *t = &u->th[thread < u->nthreads ? thread : 0];
    uint64_t at = t->fe_ready > t->disp_cycle ? t->fe_ready : t->disp_cycle;
    /* a thread that has not run starts where the records handed out are */
    return !t->started && at < u->floor ? u->floor : at;
}

/* The cycle a halt of thread t starts at: after its last retirement, not
 * before the records handed out. */
static uint64_t halt_from(const pmusim_uarch_t *u, const uarch_thread_t *t)
{
    uint64_t from = (t->any ? t->last_ret : t->ret_cycle) + 1;
    return from < u->floor ? u->floor : from;
}

/* Thread `thread` is active again at cycle `back` after a halt or a
 * sleep: THREAD active, and its next instruction comes after it. */
static void thread_back(pmusim_uarch_t *u, uint32_t thread, uint64_t back)
{
    uarch_thread_t *t = &u->th[thread];
    rec_new(u, thread, PMUSIM_REC_THREAD, back)->n = 1;
    t->disp_cycle = t->fe_ready = t->ret_cycle = back;
    t->disp_used = t->ret_used = 0;
    t->last_ret = back - 1; /* no IDLE record over the halt */
    t->halt_ret = back - 1;
    t->any = TRUE;
}

gboolean pmusim_uarch_halt(pmusim_uarch_t *u, uint32_t thread, uint64_t cycles, GError **error)
{
    if (u->soemt || thread >= u->nthreads || !cycles) {
        g_set_error(error, PMUSIM_UARCH_ERROR, PMUSIM_UARCH_ERROR_INPUT,
                    "halt of thread %u for %" PRIu64 " cycles: %s", thread, cycles,
                    u->soemt ? "Montecito threads are switched by the model"
                    : thread >= u->nthreads ? "thread out of range" : "no cycles");
        return FALSE;
    }
    insn_close(u, thread); /* halt: not for Montecito (above) */
    uarch_thread_t *t = &u->th[thread];
    u->st.cycles = stats_cycles(u); /* before last_ret changes */
    const uint64_t from = halt_from(u, t);
    lsd_end(u, thread);
    if (t->nevacc)
        events_flush(u, thread, from, FALSE);
    if (t->port_due != UINT64_MAX)
        ports_flush(u, thread, from, FALSE);
    rec_new(u, thread, PMUSIM_REC_THREAD, from)->n = 0;
    thread_back(u, thread, from + cycles);
    t->started = TRUE;
    if (u->merge)
        merge_drain(u, FALSE);
    return take_error(u, error);
}

static gboolean sleep_check(pmusim_uarch_t *u, uint32_t thread, const char *what, GError **error)
{
    if (!u->soemt && thread < u->nthreads)
        return TRUE;
    g_set_error(error, PMUSIM_UARCH_ERROR, PMUSIM_UARCH_ERROR_INPUT, "%s of thread %u: %s", what,
                thread, u->soemt ? "Montecito threads are switched by the model"
                                 : "thread out of range");
    return FALSE;
}

gboolean pmusim_uarch_sleep(pmusim_uarch_t *u, uint32_t thread, GError **error)
{
    if (!sleep_check(u, thread, "sleep", error))
        return FALSE;
    uarch_thread_t *t = &u->th[thread];
    if (t->sleeping)
        return TRUE;
    insn_close(u, thread);
    u->st.cycles = stats_cycles(u);
    const uint64_t from = halt_from(u, t);
    lsd_end(u, thread);
    if (t->nevacc)
        events_flush(u, thread, from, FALSE);
    rec_new(u, thread, PMUSIM_REC_THREAD, from)->n = 0;
    t->sleeping = TRUE;
    t->sleep_from = from;
    t->started = TRUE;
    if (u->merge)
        merge_drain(u, FALSE);
    return take_error(u, error);
}

gboolean pmusim_uarch_wake(pmusim_uarch_t *u, uint32_t thread, uint64_t cycle, GError **error)
{
    if (!sleep_check(u, thread, "wake", error))
        return FALSE;
    uarch_thread_t *t = &u->th[thread];
    if (!t->sleeping)
        return TRUE;
    uint64_t back = cycle > t->sleep_from ? cycle : t->sleep_from + 1;
    if (back < u->floor)
        back = u->floor;
    thread_back(u, thread, back);
    t->sleeping = FALSE;
    if (u->merge)
        merge_drain(u, FALSE);
    return take_error(u, error);
}

gboolean pmusim_uarch_sleeping(const pmusim_uarch_t *u, uint32_t thread)
{
    return thread < u->nthreads && u->th[thread].sleeping;
}

uint64_t pmusim_uarch_sleep_start(const pmusim_uarch_t *u, uint32_t thread)
{
    return pmusim_uarch_sleeping(u, thread) ? u->th[thread].sleep_from : 0;
}

void pmusim_uarch_rec_template(const pmusim_uarch_t *u, const pmusim_uarch_insn_t *in,
                               pmusim_rec_t *tmpl)
{
    /* what insn_fast() writes for an instruction without accesses, the
     * cycle and thread aside */
    uint16_t flags = in->flags & PMUSIM_UARCH_PASS_FLAGS;
    if (in->fp != PMUSIM_UARCH_FP_NONE)
        flags |= PMUSIM_F_FP;
    memset(tmpl, 0, sizeof *tmpl);
    rec_insn_fill(tmpl, 0, 0, flags, in->plm & 3, in, u->cfg->ia64);
}

/* ---- records -> input ---- */

static void access_from_mem(const pmusim_mem_t *m, gboolean fp, pmusim_uarch_access_t *a)
{
    memset(a, 0, sizeof *a);
    a->addr = m->addr;
    a->size = m->size ? m->size : 1;
    a->is_store = m->is_store ? 1 : 0;
    a->is_fp = (uint8_t)fp;
    a->addr_dep = m->is_store ? 0 : m->dep;
    a->alat = m->alat;
}

void pmusim_uarch_insn_from_rec(const pmusim_rec_t *r, pmusim_uarch_insn_t *in,
                                pmusim_uarch_access_t *acc)
{
    /* the decoder's conversion of a canonical record (uarch_input.h), and
     * for any other what it may assume made true: a store flag other than
     * 0 or 1, a branch target without the branch flag (acc[0] is written
     * also without a memory part: the callers have room for it) */
    uarch_input_insn(r, r->thread, in, acc);
    acc[0].is_store = r->mem.is_store != 0;
    if (!(r->flags & PMUSIM_F_BRANCH))
        in->target = 0;
}

gboolean pmusim_uarch_insn_add_mem(pmusim_uarch_insn_t *in, pmusim_uarch_access_t *acc,
                                   const pmusim_rec_t *mem_rec)
{
    const uint32_t k = in->naccess & PMUSIM_UARCH_ACC_COUNT;
    if (k >= PMUSIM_UARCH_MAX_ACCESSES)
        return FALSE;
    access_from_mem(&mem_rec->mem, in->fp != PMUSIM_UARCH_FP_NONE, &acc[k]);
    in->access = acc;
    in->naccess++; /* the count is the low bits: the part flags stay */
    return TRUE;
}
