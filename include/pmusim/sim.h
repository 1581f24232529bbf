/* The simulator engine and the one interface every PMU model implements.
 *
 * Flow: register writes (pmusim/regs.h) -> model->ops->write_reg();
 *       trace records (pmusim/trace.h) -> model->ops->consume() in batches;
 *       results -> model->ops->report().
 * The engine pulls batches from a trace reader and hands them to the model;
 * a model never does file I/O.  See docs/ARCHITECTURE.md.
 */
#ifndef PMUSIM_SIM_H
#define PMUSIM_SIM_H

#include <stdint.h>
#include <stdio.h>
#include <glib.h>
#include "pmusim/regs.h"
#include "pmusim/trace.h"

G_BEGIN_DECLS

#define PMUSIM_SIM_ERROR (pmusim_sim_error_quark())
GQuark pmusim_sim_error_quark(void);
typedef enum {
    PMUSIM_SIM_ERROR_NO_MODEL,  /* unknown PMU name */
    PMUSIM_SIM_ERROR_MISMATCH,  /* trace ISA/threads do not fit the model */
    PMUSIM_SIM_ERROR_REG,       /* register write the hardware refuses (#GP on x86) */
} pmusim_sim_error_t;

typedef struct pmusim_model pmusim_model_t;

/* Whether a counter's value is a measurement. */
typedef enum pmusim_count_status {
    PMUSIM_COUNT_OK = 0,           /* counted from what the trace holds */
    PMUSIM_COUNT_NOT_IN_TRACE = 1, /* its sources are absent from the trace: the value means nothing */
} pmusim_count_status_t;

/* One counter's result. */
typedef struct pmusim_counter_result {
    char reg[24];                     /* data register name: "PMD4", "IA32_PMC0", "IA32_FIXED_CTR1" */
    char event[PMUSIM_REG_LABEL_MAX]; /* label of the write that programmed it, or raw description */
    uint32_t thread;
    uint64_t value;                   /* final register value (as a read returns it) */
    uint64_t overflows;               /* number of wraps */
    gboolean enabled;                 /* was programmed to count something */
    pmusim_count_status_t status;     /* PMUSIM_COUNT_NOT_IN_TRACE: print "<not in trace>" */
    char source[128];                 /* the trace fields/records that drive it (event_source) */
    gboolean per_core;                /* every thread's counter counts the core's events (Montecito
                                       * causal events, .all): a sum over threads double counts */
    gboolean from_events;             /* counted from the trace's EVENT records alone: its producer's
                                       * own counts, no other record's fields (a hand-written trace's
                                       * UOPS_ISSUED, where a model's trace derives it from retirement) */
} pmusim_counter_result_t;

/* What a model shows of one counter at the end of one cycle (pmusim wave). */
typedef struct pmusim_counter_probe {
    uint64_t value;      /* as a read returns it, at the end of the cycle */
    uint64_t raw;        /* occurrences of the event in this cycle, before threshold/inv/edge */
    uint64_t increment;  /* what the counter added in this cycle */
    uint8_t conditioned; /* a threshold, inv or edge is programmed (cond/edge are meaningful) */
    uint8_t cond;        /* the threshold/inv condition held (1 when none is programmed) */
    uint8_t edge;        /* the edge detector fired */
    uint8_t overflow;    /* the counter wrapped in this cycle */
    uint8_t frozen;      /* counting is frozen (IA-64 PMC0.fr, x86 global ctrl cleared by freeze) */
    uint8_t interrupt;   /* a PMU interrupt was raised in this cycle */
} pmusim_counter_probe_t;

/* Called at the end of every cycle of an observed window, one probe per
 * counter in the order report() lists its counters. */
typedef void (*pmusim_cycle_observer_fn)(pmusim_model_t *m, uint64_t cycle,
                                         const pmusim_counter_probe_t *probes, size_t n,
                                         void *user);

/* A time-stamped occurrence: overflow, interrupt, freeze, PEBS record ... */
typedef struct pmusim_sim_event {
    uint64_t cycle;
    uint32_t thread;
    char what[120];
} pmusim_sim_event_t;

/* What a model reports after (or during) a replay. */
typedef struct pmusim_report {
    GArray *counters;    /* of pmusim_counter_result_t */
    GArray *log;         /* of pmusim_sim_event_t, in cycle order (bounded: see log_dropped) */
    uint64_t log_dropped;
    GPtrArray *captures; /* of char*: decoded EAR / BTB / ETB / PEBS contents, one line each */
    GPtrArray *diags;    /* of char*: reserved-bit and ignored-write reports */
    uint64_t cycles;     /* cycles simulated */
    uint64_t records;    /* trace records consumed */
    GPtrArray *notes;    /* of char*: expected, documented fix-ups (pmusim_model_note) */
} pmusim_report_t;

void pmusim_report_init(pmusim_report_t *r);
void pmusim_report_clear(pmusim_report_t *r);

typedef struct pmusim_model_ops {
    const char *name;          /* "ita2", "mont", "wsm", "wsm_dp", "knm" */
    pmusim_isa_t isa;
    pmusim_cpu_t cpu;
    uint32_t max_threads;      /* hardware threads the model supports */
    /* Allocate a model for `nthreads` hardware threads, in power-up state. */
    pmusim_model_t *(*create)(uint32_t nthreads, GError **error);
    void (*destroy)(pmusim_model_t *m);
    /* Apply one register write exactly as the hardware would (write masks,
     * ignored/forced bits).  Anything the architecture ignores or forces is
     * reported through pmusim_model_diag(); a write the hardware faults on
     * returns FALSE with PMUSIM_SIM_ERROR_REG.  thread is never PMUSIM_THREAD_ALL. */
    gboolean (*write_reg)(pmusim_model_t *m, const pmusim_regwrite_t *w, GError **error);
    /* Side-effect-free read; FALSE if the register is not implemented. */
    gboolean (*read_reg)(pmusim_model_t *m, pmusim_regspace_t space, uint32_t num, uint32_t thread,
                         uint64_t *value);
    /* The hot path: consume records in cycle order. */
    void (*consume)(pmusim_model_t *m, const pmusim_rec_t *recs, size_t n);
    /* End of trace: close the last cycle. */
    void (*finish)(pmusim_model_t *m);
    /* Fill counters, captures and the log. */
    void (*report)(pmusim_model_t *m, pmusim_report_t *r);
    /* Where the model gets event (code, umask) from: a short phrase naming the
     * trace fields ("insn records", "mem.level == L2") or NULL when only
     * explicit EVENT records drive it.  Used by `pmusim events --source`.
     * x86: bits 23:8 of umask may hold the unit mask's modifier bits (the
     * encoder's event_umask()): a form such as ARITH:DIV has a source of
     * its own. */
    const char *(*event_source)(uint32_t code, uint32_t umask);
    /* Explain mode: appends to `out` a one-line, field-by-field description
     * of writing `value` to register (space, num) on this model, in words
     * ("counter config for PMD4: plm=0x8 (level 3) ..."; no register name
     * prefix, no newline).  FALSE (nothing appended) when the model does not
     * implement the register.  Pure: needs no model instance.  NULL when the
     * model has no explain mode. */
    gboolean (*describe_reg)(pmusim_regspace_t space, uint32_t num, uint64_t value, GString *out);
    /* Optional: called after pmusim_model_set_pmi_handler() changed the
     * handler, so a model that compiles "is anyone listening" into its hot
     * path (e.g. tracking the last retired IP for pmi_ip) can recompile. */
    void (*pmi_handler_changed)(pmusim_model_t *m);
    /* Optional (pmusim wave): from the next consume() on, call fn at the end
     * of every cycle c with from <= c < to, IDLE gaps included (one call per
     * cycle, with that cycle's own values), in a single replay.  Cycles after
     * the trace's last one are not reported. */
    void (*observe_cycles)(pmusim_model_t *m, uint64_t from, uint64_t to,
                           pmusim_cycle_observer_fn fn, void *user);
    /* Optional: reference-clock cycles per core cycle, num/den (x86:
     * reference-cycle events and IA32_FIXED_CTR2), applied from the next
     * record on.  NULL when the model has no reference clock. */
    void (*set_ref_ratio)(pmusim_model_t *m, uint32_t num, uint32_t den);
} pmusim_model_ops_t;

/* An OS front door's interrupt handler (perfmon2-style or perf_event-style):
 * called synchronously, between records, when the model raises a PMU
 * interrupt; it may read and write registers of `m` (clear the freeze bit,
 * reload counters, record a sample). */
typedef void (*pmusim_pmi_handler_fn)(pmusim_model_t *m, uint64_t cycle, uint32_t thread,
                                      void *user);

/* Every model struct starts with this. */
struct pmusim_model {
    const pmusim_model_ops_t *ops;
    uint32_t nthreads;
    pmusim_pmi_handler_fn pmi_handler; /* NULL: interrupts are only logged */
    void *pmi_user;
    uint64_t pmi_count;
    GPtrArray *diags;          /* char*, reported by pmusim_model_diag */
    GArray *log;               /* pmusim_sim_event_t */
    uint64_t log_dropped;
    /* Set by the model right before each pmusim_model_pmi(): the IP of the
     * interrupted thread's most recent retired instruction (for an overflow
     * caused by an instruction record, that instruction), 0 before its first
     * one.  OS front doors (pmusim/frontdoor.h) record it in their samples. */
    uint64_t pmi_ip;
    /* What the trace's producer filled in (pmusim_trace_header_annotations()),
     * set by pmusim_replay() before the first record; PMUSIM_ANN_ALL until
     * then.  report() marks counters whose sources are absent. */
    uint32_t trace_annotations;
    /* The header's "events" key (pmusim_trace_header_declared_events()):
     * the EVENT records the producer writes whenever their fact happens, so
     * an EVENT-only counter of one of them with no record counted a real
     * zero; NULL when the key is absent.  Set with trace_annotations. */
    GArray *trace_events;
    /* The header's "evsum" key (pmusim_trace_header_summed_events()): EVENT
     * records that sum occurrences of several cycles, on which a threshold
     * cannot be evaluated; NULL when absent.  Set with trace_annotations. */
    GArray *trace_evsum;
    /* The header's "evspan" key (pmusim_trace_header_span_events()): EVENT
     * records of one interval of n cycles each; NULL when absent.  Set with
     * trace_annotations, which also counts trace_header_sets up. */
    GArray *trace_evspan;
    uint32_t trace_header_sets;
    GPtrArray *notes;          /* char*, reported by pmusim_model_note */
};

#define PMUSIM_LOG_MAX 100000u

void pmusim_model_base_init(pmusim_model_t *m, const pmusim_model_ops_t *ops, uint32_t nthreads);
/* Sets trace_annotations, trace_events, trace_evsum and trace_evspan from the trace's header (before
 * the first record of a replay). */
void pmusim_model_set_trace_header(pmusim_model_t *m, const pmusim_trace_header_t *h);
void pmusim_model_base_clear(pmusim_model_t *m);
void pmusim_model_diag(pmusim_model_t *m, const char *fmt, ...) G_GNUC_PRINTF(2, 3);
/* An expected fix-up the documentation describes (perfmon forcing PMC4
 * bit 23 on Itanium 2): a note, not a diagnostic of a wrong write. */
void pmusim_model_note(pmusim_model_t *m, const char *fmt, ...) G_GNUC_PRINTF(2, 3);
void pmusim_model_log(pmusim_model_t *m, uint64_t cycle, uint32_t thread, const char *fmt, ...)
    G_GNUC_PRINTF(4, 5);
/* A model calls this when it raises a PMU interrupt (IA-64: overflow with
 * oi=1; x86: overflow with INT=1 -> PMI).  Logs "interrupt" and runs the
 * installed handler, if any. */
void pmusim_model_pmi(pmusim_model_t *m, uint64_t cycle, uint32_t thread);
void pmusim_model_set_pmi_handler(pmusim_model_t *m, pmusim_pmi_handler_fn fn, void *user);
/* Sets the reference-clock ratio (ops->set_ref_ratio): FALSE with an error
 * when the model has none or num or den is 0. */
gboolean pmusim_model_set_ref_ratio(pmusim_model_t *m, uint32_t num, uint32_t den, GError **error);

/* ---- registry ---- */
/* Defined by sim/models/ia64 and sim/models/x86. */
extern const pmusim_model_ops_t pmusim_model_ita2;
extern const pmusim_model_ops_t pmusim_model_mont;
extern const pmusim_model_ops_t pmusim_model_wsm;
extern const pmusim_model_ops_t pmusim_model_wsm_dp;
extern const pmusim_model_ops_t pmusim_model_knm;

const pmusim_model_ops_t *pmusim_model_find(const char *name);
const pmusim_model_ops_t *const *pmusim_model_list(void); /* NULL-terminated */

/* ---- engine ---- */
pmusim_model_t *pmusim_model_new(const char *name, uint32_t nthreads, GError **error);
void pmusim_model_free(pmusim_model_t *m);
/* Applies each write (PMUSIM_THREAD_ALL is expanded to every thread). */
gboolean pmusim_model_write_regs(pmusim_model_t *m, const GArray *regs, GError **error);

/* Calls ops->report() and adds the base diagnostics and log (when the
 * model did not add them itself).  r must be pmusim_report_init()ed. */
void pmusim_model_collect(pmusim_model_t *m, pmusim_report_t *r);

typedef void (*pmusim_progress_fn)(uint64_t records, void *user);
/* Replays the whole trace into the model; checks ISA and thread count. */
gboolean pmusim_replay(pmusim_model_t *m, pmusim_trace_reader_t *r, pmusim_progress_fn progress,
                       void *user, GError **error);

/* A stop of pmusim_replay_stops(): called between records, before the first
 * record of cycle `cycle` (IDLE records spanning it are split there), with
 * the model's state as it is at the end of cycle - 1.  It may read and write
 * registers, and sets *next to the next stop cycle (> cycle; G_MAXUINT64:
 * none).  FALSE with an error stops the replay. */
typedef gboolean (*pmusim_stop_fn)(pmusim_model_t *m, uint64_t cycle, uint64_t *next, void *user,
                                   GError **error);

/* pmusim_replay() with stops: `fn` is called at cycle `first` (G_MAXUINT64:
 * never) and then at each cycle it asks for, as long as the trace has records
 * at or after it.  Used for timed register writes, intervals (stat -I) and
 * multiplexing.  The batch is split at each stop, never copied per record. */
gboolean pmusim_replay_stops(pmusim_model_t *m, pmusim_trace_reader_t *r, uint64_t first,
                             pmusim_stop_fn fn, void *user, pmusim_progress_fn progress,
                             void *puser, GError **error);

/* The same, over several models fed from one read of the trace (stat's
 * multiplexing replays every group and the truth at once): each batch goes
 * to every model, `fn` is called with models[0] and must handle them all. */
gboolean pmusim_replay_stops_multi(pmusim_model_t *const *models, size_t nmodels,
                                   pmusim_trace_reader_t *r, uint64_t first, pmusim_stop_fn fn,
                                   void *user, pmusim_progress_fn progress, void *puser,
                                   GError **error);

/* Applies the writes of `regs` with at_cycle == 0 now, and replays the
 * trace applying the others before the records of their cycle (in list
 * order within a cycle).  Writes for cycles after the trace's last record
 * are never applied. */
gboolean pmusim_replay_timed(pmusim_model_t *m, pmusim_trace_reader_t *r, const GArray *regs,
                             pmusim_progress_fn progress, void *user, GError **error);

/* pmusim_replay_timed() with the caller's own stops as well (stat -I): `fn`
 * at cycle `first` and then where it asks, called before the timed writes of
 * the same cycle. */
gboolean pmusim_replay_timed_stops(pmusim_model_t *m, pmusim_trace_reader_t *r,
                                   const GArray *regs, uint64_t first, pmusim_stop_fn fn,
                                   void *fn_user, pmusim_progress_fn progress, void *user,
                                   GError **error);

G_END_DECLS
#endif
