/* pmusim microarchitecture model: turns a functional instruction stream (what
 * a capture, a converter or a generator knows: IPs, branch outcomes, memory
 * addresses) into annotated trace records (cache level and latency, TLB
 * outcome, branch prediction, offcore request, uops, retirement cycles).
 *
 * The model is seen by the rest of pmusim only through the records it
 * produces (include/pmusim/trace.h).  Its parameters per CPU, their sources
 * and what it does not model are in docs/UARCH.md.
 *
 * Use:
 *   pmusim_uarch_options_t o;  pmusim_uarch_options_init(&o);
 *   pmusim_uarch_options_parse(&o, "--D1=32768,8,64", &error);   (zero or more)
 *   pmusim_uarch_t *u = pmusim_uarch_new(PMUSIM_CPU_WSM, 2, &o, sink, user, &error);
 *   pmusim_uarch_header(u, &hdr);            (annotations + geometry metadata)
 *   for each instruction: pmusim_uarch_insn(u, &insn, &error);
 *   pmusim_uarch_finish(u, &error);          (flushes every pending record)
 *   pmusim_uarch_free(u);
 *
 * Records reach `sink` in batches, in non-decreasing cycle order across all
 * threads.  Memory is constant: the model holds its cache/TLB/predictor
 * arrays and a bounded queue per thread, whatever the stream length. */
#ifndef PMUSIM_UARCH_H
#define PMUSIM_UARCH_H

#include <stddef.h>
#include <stdint.h>
#include <glib.h>

#include "pmusim/trace.h"

G_BEGIN_DECLS

/* ---- errors ---- */
#define PMUSIM_UARCH_ERROR (pmusim_uarch_error_quark())
GQuark pmusim_uarch_error_quark(void);
typedef enum {
    PMUSIM_UARCH_ERROR_OPTION, /* bad option or geometry (message names the option) */
    PMUSIM_UARCH_ERROR_INPUT,  /* bad instruction (thread out of range, too many accesses ...) */
    PMUSIM_UARCH_ERROR_SINK,   /* the sink callback failed (its error is forwarded) */
} pmusim_uarch_error_t;

/* ---- input: one executed instruction ---- */

/* Control-flow kind as a decoder sees it (finer than pmusim_br_kind_t). */
typedef enum pmusim_uarch_br {
    PMUSIM_UARCH_BR_NONE = 0,     /* not a branch */
    PMUSIM_UARCH_BR_COND = 1,     /* conditional direct */
    PMUSIM_UARCH_BR_JUMP = 2,     /* unconditional direct jump */
    PMUSIM_UARCH_BR_CALL = 3,     /* direct call */
    PMUSIM_UARCH_BR_RET = 4,      /* return */
    PMUSIM_UARCH_BR_IND_JUMP = 5, /* indirect jump */
    PMUSIM_UARCH_BR_IND_CALL = 6, /* indirect call */
    PMUSIM_UARCH_BR_COUNT_
} pmusim_uarch_br_t;

/* Floating-point / SIMD class (sets PMUSIM_F_FP; Itanium sends FP loads to L2). */
typedef enum pmusim_uarch_fp {
    PMUSIM_UARCH_FP_NONE = 0,
    PMUSIM_UARCH_FP_SCALAR = 1, /* x87 / scalar SSE / IA-64 F-unit */
    PMUSIM_UARCH_FP_SIMD = 2,   /* packed SSE/AVX */
    PMUSIM_UARCH_FP_COUNT_
} pmusim_uarch_fp_t;

typedef struct pmusim_uarch_access {
    uint64_t addr;
    uint32_t size;     /* bytes, >= 1; an access crossing a line touches both lines */
    uint8_t is_store;  /* 0 load, 1 store (a read-modify-write is two accesses) */
    uint8_t is_fp;     /* FP load/store (Itanium: served by L2, bypassing the L1D) */
    /* A load whose address depends on the data of an earlier load of the
     * same thread (pointer chasing): that load's distance back, in the
     * thread's loads (1 the previous load, 2 the one before ...; at most
     * PMUSIM_UARCH_MAX_DEP): the access cannot start before that load's
     * data are back.  0 when it depends on none, or on one farther back, or
     * it is unknown: the model then treats the access as independent
     * (docs/UARCH.md §1 step 3).  0 on a store (a store's address waits
     * for nothing in this model).  The model does not check the bound: a
     * producer must keep it (the trace reader refuses more). */
    uint8_t addr_dep;
    /* IA-64 ALAT outcome (pmusim_alat_outcome_t) of an ld.c/chk.a, copied to
     * mem.alat: the ALAT's contents depend on register numbers and
     * advanced loads that a functional address stream does not carry. */
    uint8_t alat;
} pmusim_uarch_access_t;

/* At most this many accesses per input.  An instruction with more (a long
 * string operation) comes in parts: inputs of the same instruction, one
 * after another on its thread, their `naccess` carrying these flags above
 * the count (PMUSIM_UARCH_ACC_COUNT):
 *   the first part  count | PMUSIM_UARCH_ACC_MORE
 *   middle parts    count | PMUSIM_UARCH_ACC_MORE | PMUSIM_UARCH_ACC_CONT
 *   the last part   count | PMUSIM_UARCH_ACC_CONT   (count may be 0)
 * The first part is the instruction (its INSN record, fetch, branch, uops);
 * a continuation adds MEM records of its accesses directly after the
 * instruction's others, at its retirement cycle, and no INSN record: one
 * instruction retires, with all its accesses (docs/UARCH.md, "Instructions
 * with more than 64 accesses").  Its accesses are timed as the instruction's
 * own, each part taking the instruction's uops again in dispatch and
 * retirement.  Between the parts only SMT inputs of other hardware threads
 * may come (their records wait; when one of their queues fills, the
 * instruction is ended early).  A continuation that finds its instruction
 * ended (another input of its thread ran in between, or it was ended early)
 * runs as an instruction of its own, as the parts of an older producer did,
 * and counts in pmusim_uarch_stats_t.split_parts. */
#define PMUSIM_UARCH_MAX_ACCESSES 64u
/* The farthest load an access's addr_dep names (above): the model keeps
 * the data-ready cycles of a thread's last 64 loads.  On Westmere farther
 * never matters: a load cannot allocate before the load its 48-entry load
 * buffer back has retired, data and all (docs/UARCH.md §3); Knights Mill
 * has no load buffer in the model, and a load 64 loads back, at least 64
 * instructions, is near the end of its 72-entry window (a limit, UARCH.md
 * §7). */
#define PMUSIM_UARCH_MAX_DEP 63u
#define PMUSIM_UARCH_ACC_MORE 0x80000000u  /* more accesses follow in the next part */
#define PMUSIM_UARCH_ACC_CONT 0x40000000u  /* a continuation of the part before */
#define PMUSIM_UARCH_ACC_COUNT 0x0000ffffu /* the count's bits */

/* The flags of pmusim_uarch_insn_t.flags the model copies into the INSN record. */
#define PMUSIM_UARCH_PASS_FLAGS                                                   \
    (PMUSIM_F_NOP | PMUSIM_F_PRED_OFF | PMUSIM_F_IA32 | PMUSIM_F_FPCLASS_MASK |                    \
     PMUSIM_F_OPKIND_MASK | PMUSIM_F_LOCK)

typedef struct pmusim_uarch_insn {
    uint64_t ip;       /* x86: linear IP; IA-64: bundle address */
    uint8_t thread;    /* hardware thread, < nthreads */
    uint8_t plm;       /* privilege level 0..3 */
    uint8_t len;       /* x86 instruction length in bytes (IA-64: 0) */
    uint8_t br;        /* pmusim_uarch_br_t */
    uint8_t taken;     /* branch taken (always 1 for unconditional kinds) */
    uint8_t fp;        /* pmusim_uarch_fp_t */
    uint16_t uops;     /* fused uops (x86; 0 = 1); IA-64: 0 */
    uint64_t target;   /* branch target when taken */
    uint32_t naccess;  /* entries in `access`, <= PMUSIM_UARCH_MAX_ACCESSES, | the part flags above */
    const pmusim_uarch_access_t *access;
    /* Passed through to the INSN record unchanged: IA-64 slot/unit/encoding
     * and the flags the model cannot know (PMUSIM_UARCH_PASS_FLAGS: NOP,
     * PRED_OFF, IA32 and the x86 FP/SIMD class; MEM/BRANCH/OFFCORE/FP are
     * set by the model, and PMUSIM_F_STFWD_BLOCK on x86). */
    uint8_t slot, unit;
    uint16_t flags;
    /* A conditional or indirect branch whose condition (flags) or target
     * register depends on the data of an earlier load of the same thread:
     * that load's distance back in the thread's loads, counting the
     * instruction's own (1 the newest load so far; at most
     * PMUSIM_UARCH_MAX_DEP): the branch resolves no earlier than that load's
     * data are back (docs/UARCH.md §1 step 4).  0 none or unknown; the model
     * ignores it on other kinds and on IA-64 and does not check the bound. */
    uint8_t br_dep;
    /* An instruction that is neither a load nor a branch (an ALU operation,
     * a store) one of whose source registers or flags holds the data of an
     * earlier load of the same thread: that load's distance back in the
     * thread's loads (1 the newest load so far; at most
     * PMUSIM_UARCH_MAX_DEP, the trace's mem.rdep): its uops leave the
     * reservation station no earlier than that load's data are back
     * (docs/UARCH.md §1 step 2, "The reservation station").  0 none or
     * unknown.  The model reads it only when pmusim_uarch_header() saw the
     * "rsdep" annotation, and does not check the bound. */
    uint8_t rdep;
    uint64_t insn;
    /* Optional, NULL for none: the instruction's record template, made by
     * pmusim_uarch_rec_template() from this instruction's ip, len, plm, fp,
     * uops, slot, unit, flags and insn (which must not have changed since;
     * the thread, the branch outcome and the accesses may).  A producer
     * that runs the same instruction many times (the capture's table of
     * translated blocks) makes it once: the model then copies it into the
     * INSN record instead of writing the record field by field.  The
     * records are the same either way. */
    const pmusim_rec_t *tmpl;
} pmusim_uarch_insn_t;

/* ---- configuration ---- */

typedef struct pmusim_uarch_geom {
    uint64_t size;   /* bytes; 0 = the level is absent */
    uint32_t assoc;  /* ways */
    uint32_t line;   /* bytes */
} pmusim_uarch_geom_t;

/* Overrides of a CPU's defaults, as parsed from command-line options.  A
 * geometry with set == FALSE keeps the CPU's value. */
typedef struct pmusim_uarch_options {
    gboolean i1_set, d1_set, ll_set, l2_set;
    pmusim_uarch_geom_t i1, d1, ll, l2; /* l2.size == 0 with l2_set: "--L2=none" */
    gboolean no_l2;                     /* --L2=none: I1/D1 -> LL as in cachegrind */
    gboolean numa_interleave;           /* wsm_dp --numa=interleave: odd 4 KiB pages live on socket 1 */
    gboolean knm_mcdram;                /* knm --knm-memory=mcdram: data in MCDRAM (flat mode) */
    /* --LL-inclusive=yes|no (ll_incl_set): whether an LL victim leaves the
     * inner levels.  Unset: the CPU's rule (Westmere's L3 inclusive), except
     * with --L2=none, which is cachegrind's hierarchy and so not inclusive. */
    gboolean ll_incl_set, ll_incl;
} pmusim_uarch_options_t;

void pmusim_uarch_options_init(pmusim_uarch_options_t *o);
/* Parses one option "--I1=SIZE,ASSOC,LINE", "--D1=...", "--LL=...",
 * "--L2=SIZE,ASSOC,LINE", "--L2=none", "--numa=local|interleave",
 * "--knm-memory=ddr|mcdram", "--LL-inclusive=yes|no".
 * Returns TRUE and sets *consumed when `arg` is one of them; FALSE with an
 * error naming the option when its value is bad (size, assoc and line > 0,
 * line a power of two, size a multiple of assoc*line, number of sets a power
 * of two — the rules cachegrind applies).  *consumed = FALSE and TRUE for
 * an argument that is not a uarch option. */
gboolean pmusim_uarch_options_parse(pmusim_uarch_options_t *o, const char *arg,
                                    gboolean *consumed, GError **error);
/* Removes every uarch option from argv (also the two-word form
 * "--D1 32768,8,64"), parsing each; FALSE on the first bad one. */
gboolean pmusim_uarch_options_parse_argv(pmusim_uarch_options_t *o, int *argc, char **argv,
                                         GError **error);
/* The usage lines of the options above, for --help texts. */
const char *pmusim_uarch_options_help(void);

/* ---- the model ---- */

/* Receives records in cycle order; FALSE with error stops the model. */
typedef gboolean (*pmusim_uarch_sink_fn)(const pmusim_rec_t *recs, size_t n, void *user,
                                         GError **error);

typedef struct pmusim_uarch pmusim_uarch_t;

/* A model of `cpu` (ita2, mont, wsm, wsm_dp, knm) with `nthreads` hardware
 * threads (1..the CPU's threads per core: ita2 1, mont 2, wsm/wsm_dp 2, knm
 * 4).  `o` may be NULL (defaults).  NULL with error for a bad set-up. */
pmusim_uarch_t *pmusim_uarch_new(pmusim_cpu_t cpu, uint32_t nthreads,
                                 const pmusim_uarch_options_t *o, pmusim_uarch_sink_fn sink,
                                 void *user, GError **error);
/* Where the model builds its batches of records, so that a sink that keeps
 * them (a queue to a writer thread) need not copy them: `fn` returns a
 * buffer of at least `n` records; the model fills it and hands it to the
 * sink (the `recs` argument is that buffer), then asks `fn` for the next
 * one, also after the last batch.  `fn` gets the sink's `user`; it cannot
 * fail.  Call before the first record; NULL: the model's own buffer (the
 * default, the sink must then copy what it keeps). */
typedef pmusim_rec_t *(*pmusim_uarch_buffer_fn)(size_t n, void *user);
void pmusim_uarch_set_buffer(pmusim_uarch_t *u, pmusim_uarch_buffer_fn fn);
/* The most threads the CPU's models can replay on one core. */
uint32_t pmusim_uarch_max_threads(pmusim_cpu_t cpu);
/* Sets the header's "annotations" key to what this model fills, and
 * metadata "uarch" (model name) and "uarch.I1"/"uarch.D1"/"uarch.L2"/
 * "uarch.L2I"/"uarch.LL" (SIZE,ASSOC,LINE) for the geometry in use.  The
 * annotations `h` claims before the call are the input's: the model then
 * writes only the counts that input supports (the decoders' counts need
 * branch kinds, docs/UARCH.md §1 "Decoders"), so call it before the first
 * instruction. */
void pmusim_uarch_header(pmusim_uarch_t *u, pmusim_trace_header_t *h);
/* Runs one instruction: emits its INSN record (with the first access in
 * `mem`), one MEM record per further access, and any IDLE, EVENT and THREAD
 * records it causes.  Records may be held back until other threads catch up. */
gboolean pmusim_uarch_insn(pmusim_uarch_t *u, const pmusim_uarch_insn_t *in, GError **error);
/* in[0], ..., in[n - 1] as n calls of pmusim_uarch_insn() (the loop
 * inside the model: fewer calls per instruction); stops at the first
 * failure, the instructions before it having run.  n = 0 does nothing. */
gboolean pmusim_uarch_insns(pmusim_uarch_t *u, const pmusim_uarch_insn_t *in, size_t n,
                            GError **error);
/* Fills *tmpl with what every INSN record of `in` shares on this model
 * (kind, plm, flags the model cannot know, FP, slot, unit, len, ip, insn,
 * uops; zero elsewhere), for pmusim_uarch_insn_t.tmpl.  It reads only the
 * model's configuration, which is fixed at creation: another thread may call
 * it while the model runs (`trace annotate`'s reader thread does). */
void pmusim_uarch_rec_template(const pmusim_uarch_t *u, const pmusim_uarch_insn_t *in,
                               pmusim_rec_t *tmpl);
/* Passes a record the model does not produce (MARKER; EVENT records of a
 * source trace) through at the thread's current cycle. */
gboolean pmusim_uarch_passthrough(pmusim_uarch_t *u, const pmusim_rec_t *rec, GError **error);
/* An SMT thread halts for `cycles` cycles after its last retirement: THREAD
 * records (inactive, then active again) frame the gap and the thread's next
 * instruction comes after it.  Not for Montecito, whose threads the model
 * switches itself (FALSE with error). */
gboolean pmusim_uarch_halt(pmusim_uarch_t *u, uint32_t thread, uint64_t cycles, GError **error);
/* An SMT thread halts for a time not known yet (a captured thread waits in
 * a system call): THREAD inactive where pmusim_uarch_halt() would start,
 * and the SMT merge no longer waits for the thread; pmusim_uarch_wake()
 * ends it with THREAD active at `cycle` (at least one cycle later, not
 * before the records handed out), and the thread's next instruction comes
 * after it.  No instruction may be given to a sleeping thread.  Not for
 * Montecito (FALSE with error).  Sleeping twice or waking a thread that
 * does not sleep does nothing. */
gboolean pmusim_uarch_sleep(pmusim_uarch_t *u, uint32_t thread, GError **error);
gboolean pmusim_uarch_wake(pmusim_uarch_t *u, uint32_t thread, uint64_t cycle, GError **error);
gboolean pmusim_uarch_sleeping(const pmusim_uarch_t *u, uint32_t thread);
/* The cycle of a sleeping thread's THREAD inactive record (0: not asleep). */
uint64_t pmusim_uarch_sleep_start(const pmusim_uarch_t *u, uint32_t thread);
/* Montecito: TRUE when the thread that ran last has a pending switch
 * event (an L3 miss, or its time slice expired), so that a generator that
 * chooses the next thread switches now.  Always FALSE on other CPUs. */
gboolean pmusim_uarch_switch_wanted(const pmusim_uarch_t *u);
/* Flushes every held record to the sink.  Call once at the end. */
gboolean pmusim_uarch_finish(pmusim_uarch_t *u, GError **error);
void pmusim_uarch_free(pmusim_uarch_t *u);

/* Totals so far (for reports and tests). */
typedef struct pmusim_uarch_stats {
    uint64_t insns;
    uint64_t records; /* produced so far: handed to the sink or waiting in the model */
    uint64_t i1_miss, d1_access, d1_miss, l2_miss, ll_access, ll_miss;
    uint64_t cond_branches, mispredicts;
    uint64_t cycles; /* last retirement cycle + 1 */
    /* continuations run as instructions of their own (their instruction
     * had ended: see PMUSIM_UARCH_ACC_CONT) */
    uint64_t split_parts;
    /* SMT: instructions of a thread that was behind the records already
     * handed out (its queue or another's was full, docs/UARCH.md §2),
     * moved up to them, and the cycles they were moved by in all (a
     * thread's first instruction, which starts there, is not counted) */
    uint64_t moved_up, moved_up_cycles;
} pmusim_uarch_stats_t;
void pmusim_uarch_get_stats(const pmusim_uarch_t *u, pmusim_uarch_stats_t *st);
/* The stats' `records` alone, without the rest's cost (trace gen asks once per
 * generated instruction). */
uint64_t pmusim_uarch_records(const pmusim_uarch_t *u);
/* The earliest cycle at which `thread`'s next instruction can dispatch (its
 * front end and dispatch slots; a halt moves it; a thread that has not run
 * yet starts at the last record handed out).  A producer that chooses
 * which SMT thread runs next (trace gen) takes the earliest, so that the
 * threads' accesses reach the shared caches in time order and none falls
 * behind the records already handed out. */
uint64_t pmusim_uarch_thread_time(const pmusim_uarch_t *u, uint32_t thread);

/* Records -> model input: fills *in (and up to PMUSIM_UARCH_MAX_ACCESSES
 * entries of acc) from an INSN record and the MEM records that follow it,
 * keeping what a functional trace knows (ip, len, plm, thread, branch kind,
 * taken, target, addresses, FP flag, IA-64 slot/unit/encoding) and dropping
 * every annotation.  Used by `trace annotate` and converters. */
void pmusim_uarch_insn_from_rec(const pmusim_rec_t *r, pmusim_uarch_insn_t *in,
                                pmusim_uarch_access_t *acc);
/* Appends a MEM record's access to *in (FALSE when it already holds the
 * maximum: the caller starts a continuation, PMUSIM_UARCH_ACC_CONT). */
gboolean pmusim_uarch_insn_add_mem(pmusim_uarch_insn_t *in, pmusim_uarch_access_t *acc,
                                   const pmusim_rec_t *mem_rec);

G_END_DECLS
#endif
