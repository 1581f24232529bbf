/* OS front doors: the sampling half of an operating system's PMU driver,
 * played against a pmusim model.
 *
 * A front door owns some of the model's counters.  It programs each
 * sampling counter so that it overflows after `period` occurrences, turns
 * on its interrupt (IA-64 PMC.oi, x86 PERFEVTSEL.INT / FIXED_CTR_CTRL.PMI),
 * installs the model's PMU interrupt handler and, on each interrupt, does
 * the register sequence of the real driver:
 *
 *   perfmon2 (IA-64, ita2/mont): read PMC0; for each overflowed counter
 *     record a sample (default sampling format: overflowed PMD, IP, cycle,
 *     thread, the 64-bit values of the session's other counters), write the
 *     PMD with 2^47 - period; write PMC0 with the overflow bits cleared and
 *     fr still set, then PMC0 = 0 (unfreeze).
 *   perf_event (x86, wsm/wsm_dp/knm): read IA32_PERF_GLOBAL_STATUS; for each
 *     overflowed counter record a sample and reload it with -period (a
 *     32-bit write the counter sign-extends); write the bits seen to
 *     IA32_PERF_GLOBAL_OVF_CTRL; rewrite IA32_PERF_GLOBAL_CTRL if
 *     FREEZE_PERFMON_ON_PMI cleared it.  PEBS counters (whose overflow sets
 *     OvfBuf instead of their own bit) are found by their wrapped value.
 *
 * Counting counters added to the session are virtualised to 64 bits the
 * same way the drivers do it (their interrupt is turned on too; an
 * overflow adds 2^width).  docs/SAMPLING.md describes the choices.
 */
#ifndef PMUSIM_FRONTDOOR_H
#define PMUSIM_FRONTDOOR_H

#include <stddef.h>
#include <stdint.h>
#include <glib.h>
#include "pmusim/sim.h"

G_BEGIN_DECLS

#define PMUSIM_FRONTDOOR_ERROR (pmusim_frontdoor_error_quark())
GQuark pmusim_frontdoor_error_quark(void);
typedef enum {
    PMUSIM_FRONTDOOR_ERROR_MODEL,   /* the model's ISA has no front door */
    PMUSIM_FRONTDOOR_ERROR_COUNTER, /* not a counter data register of the model, or used twice */
    PMUSIM_FRONTDOOR_ERROR_PERIOD,  /* period out of range for the counter */
    PMUSIM_FRONTDOOR_ERROR_STATE,   /* call out of order (add after start, start twice) */
    PMUSIM_FRONTDOOR_ERROR_REG,     /* the model refused a register write */
} pmusim_frontdoor_error_t;

typedef enum pmusim_frontdoor_style {
    PMUSIM_FRONTDOOR_PERFMON2 = 1,   /* IA-64 */
    PMUSIM_FRONTDOOR_PERF_EVENT = 2, /* x86 */
} pmusim_frontdoor_style_t;

/* At most this many counters per session (Montecito has 12 per thread). */
#define PMUSIM_FRONTDOOR_MAX_COUNTERS 16u
/* Default bound of the sample buffer (pmusim_frontdoor_set_sample_limit). */
#define PMUSIM_FRONTDOOR_DEFAULT_LIMIT 1000000u

/* Default bound of the interrupts a session takes
 * (pmusim_frontdoor_set_interrupt_limit). */
#define PMUSIM_FRONTDOOR_DEFAULT_INTERRUPTS 1000000u
/* Largest skid pmusim_frontdoor_set_skid() accepts (instructions). */
#define PMUSIM_FRONTDOOR_MAX_SKID 64u

/* pmusim_sample_t.flags */
enum {
    PMUSIM_SAMPLE_PEBS = 1u << 0,    /* x86: a PEBS counter (found through GLOBAL_STATUS.OvfBuf) */
    PMUSIM_SAMPLE_ADDR = 1u << 1,    /* `addr` holds a captured address */
    PMUSIM_SAMPLE_WEIGHT = 1u << 2,  /* `weight` holds a captured latency (cycles) */
    PMUSIM_SAMPLE_DSRC = 1u << 3,    /* `mem_level` / `mem_store` / `mem_tlb` are valid */
    PMUSIM_SAMPLE_IEAR = 1u << 4,    /* IA-64: `addr`/`weight` come from the I-EAR (code line) */
    PMUSIM_SAMPLE_SKID_CUT = 1u << 5, /* the trace ended before the skid was complete */
};

/* One branch of an IA-64 BTB / ETB read with a sample (ds = 0 layout, ref
 * ia64-pmu.md §8, §9): source (bundle address | slot) and target. */
typedef struct pmusim_branch_pair {
    uint64_t from;
    uint64_t to;      /* 0: not taken, or no target entry followed */
    uint8_t taken;
    uint8_t mispred;  /* 0 predicted, 1 front end (mp), 2 back end (bruflush) */
} pmusim_branch_pair_t;

/* `mem_tlb` when no TLB outcome is known. */
#define PMUSIM_SAMPLE_TLB_UNKNOWN 0xffu

/* One sample: an overflow of a sampling counter seen by the interrupt
 * handler. */
typedef struct pmusim_sample {
    uint64_t cycle;     /* cycle of the interrupt */
    /* the sampled IP: `skid` instructions of the thread after overflow_ip
     * (pmusim_frontdoor_set_skid; PEBS samples have none) */
    uint64_t ip;
    uint64_t overflow_ip; /* the model's pmi_ip: last retired instruction of the thread */
    uint64_t period;    /* the period this sample stands for (frequency mode: the one used) */
    uint64_t addr;      /* PMUSIM_SAMPLE_ADDR: D-EAR / PEBS load-latency data address,
                           I-EAR code line address */
    uint64_t weight;    /* PMUSIM_SAMPLE_WEIGHT: latency in cycles */
    uint8_t mem_level;  /* PMUSIM_SAMPLE_DSRC: pmusim_mem_level_t, PMUSIM_LVL_COUNT: unknown */
    uint8_t mem_store;  /* PMUSIM_SAMPLE_DSRC: 1 store, 0 load */
    uint8_t mem_tlb;    /* PMUSIM_SAMPLE_DSRC: pmusim_tlb_outcome_t or PMUSIM_SAMPLE_TLB_UNKNOWN */
    uint8_t skid;       /* instructions between overflow_ip and ip */
    uint32_t nbranches; /* IA-64 BTB/ETB: pmusim_frontdoor_sample_branches() */
    uint32_t branch0;   /* (its first pair in the front door's list) */
    uint64_t ovfl;      /* overflow status read (IA-64 PMC0 bits 63:4, x86 GLOBAL_STATUS) */
    uint32_t thread;
    uint32_t counter;   /* index returned by pmusim_frontdoor_add_sampling() */
    uint32_t reg;       /* its data register: PMD number or MSR address */
    uint32_t nvalues;   /* = pmusim_frontdoor_n_counters() at the sample */
    uint32_t flags;     /* PMUSIM_SAMPLE_* */
    /* 64-bit count of every counter of the session on this thread, index =
     * counter index, as read by the handler before any reload: valid while
     * the front door lives */
    const uint64_t *values;
} pmusim_sample_t;

typedef struct pmusim_frontdoor pmusim_frontdoor_t;

/* A front door for `m`, style chosen from the model's ISA.  It does not
 * touch the model until pmusim_frontdoor_start(). */
pmusim_frontdoor_t *pmusim_frontdoor_new(pmusim_model_t *m, GError **error);
/* Uninstalls the handler (if still installed) and frees everything. */
void pmusim_frontdoor_free(pmusim_frontdoor_t *fd);
pmusim_frontdoor_style_t pmusim_frontdoor_style(const pmusim_frontdoor_t *fd);

/* Add a sampling counter: `reg` is its data register (IA-64: PMD number
 * 4..15; x86: IA32_PMCi or IA32_FIXED_CTRk MSR address), `period` >= 1
 * (IA-64: < 2^47; x86: < 2^31, what a 32-bit sign-extended write can
 * load).  `label` names its event in samples (may be NULL).  On every
 * thread of the model.  Returns the counter index, or -1 with error. */
int pmusim_frontdoor_add_sampling(pmusim_frontdoor_t *fd, uint32_t reg, uint64_t period,
                                  const char *label, GError **error);
/* Add a counting counter: read into every sample, virtualised to 64 bits. */
int pmusim_frontdoor_add_counting(pmusim_frontdoor_t *fd, uint32_t reg, const char *label,
                                  GError **error);
/* Program the counters (the configuration registers must already select
 * their events), turn their interrupts on and install the handler.  Call
 * after the session's register writes and before the replay. */
gboolean pmusim_frontdoor_start(pmusim_frontdoor_t *fd, GError **error);

/* Keep at most `max` samples; further ones are counted as dropped (the
 * counters are still reloaded, as a driver whose buffer is full does). */
void pmusim_frontdoor_set_sample_limit(pmusim_frontdoor_t *fd, size_t max);
/* Take at most `max` samples' worth of interrupts (default
 * PMUSIM_FRONTDOOR_DEFAULT_INTERRUPTS): the handler that takes the last one
 * restarts the sampling counters from 0 and from then on only accounts
 * their wraps (one interrupt per 2^width occurrences), so the rest of the
 * trace is counted, not sampled (pmusim_frontdoor_stopped()).  Bounds the
 * work of a trace whose cycle span holds far more periods than anyone
 * wants samples. */
void pmusim_frontdoor_set_interrupt_limit(pmusim_frontdoor_t *fd, uint64_t max);
/* TRUE once the interrupt limit stopped sampling; *cycle: when. */
gboolean pmusim_frontdoor_stopped(const pmusim_frontdoor_t *fd, uint64_t *cycle);
/* Skid: the sampled IP is the `insns`-th instruction the thread retires
 * after the overflowing one (0: that one; at most PMUSIM_FRONTDOOR_MAX_SKID).
 * PEBS samples are precise and get none.  Applied by
 * pmusim_frontdoor_replay(), which sees the records; docs/SAMPLING.md. */
gboolean pmusim_frontdoor_set_skid(pmusim_frontdoor_t *fd, uint32_t insns, GError **error);
/* Frequency mode for every sampling counter (perf -F): the period starts at
 * 1 and adapts after each sample as Linux's perf_adjust_period() does, on a
 * simulated clock of `core_hz` cycles per second (docs/SAMPLING.md).  Call
 * before pmusim_frontdoor_start(). */
gboolean pmusim_frontdoor_set_frequency(pmusim_frontdoor_t *fd, uint64_t sample_hz,
                                        uint64_t core_hz, GError **error);
/* pmusim_replay() for a sampling session: the same checks and batches, and
 * after each batch the front door looks at its records to complete the
 * skid and the PEBS load-latency data of the samples it took in it. */
gboolean pmusim_frontdoor_replay(pmusim_frontdoor_t *fd, pmusim_trace_reader_t *r,
                                 pmusim_progress_fn progress, void *user, GError **error);

size_t pmusim_frontdoor_n_samples(const pmusim_frontdoor_t *fd);
const pmusim_sample_t *pmusim_frontdoor_sample(const pmusim_frontdoor_t *fd, size_t i);
/* The branch pairs read with sample s (most recent first; *n of them). */
const pmusim_branch_pair_t *pmusim_frontdoor_sample_branches(const pmusim_frontdoor_t *fd,
                                                             const pmusim_sample_t *s, size_t *n);
uint64_t pmusim_frontdoor_dropped(const pmusim_frontdoor_t *fd);
/* Interrupts handled, and those in which no counter of the session had
 * overflowed. */
uint64_t pmusim_frontdoor_interrupts(const pmusim_frontdoor_t *fd);
uint64_t pmusim_frontdoor_spurious(const pmusim_frontdoor_t *fd);

size_t pmusim_frontdoor_n_counters(const pmusim_frontdoor_t *fd);
const char *pmusim_frontdoor_counter_label(const pmusim_frontdoor_t *fd, size_t k);
uint32_t pmusim_frontdoor_counter_reg(const pmusim_frontdoor_t *fd, size_t k);
uint64_t pmusim_frontdoor_counter_period(const pmusim_frontdoor_t *fd, size_t k); /* 0: counting */
/* Samples taken by counter k on `thread`, dropped ones included. */
uint64_t pmusim_frontdoor_counter_samples(const pmusim_frontdoor_t *fd, size_t k,
                                          uint32_t thread);
/* Occurrences counter k has counted on `thread` since start (64 bits,
 * across reloads and wraps; reads the model). */
uint64_t pmusim_frontdoor_counter_total(const pmusim_frontdoor_t *fd, size_t k, uint32_t thread);
/* Printable name of a counter data register: "PMD5", "IA32_PMC0". */
void pmusim_frontdoor_reg_name(const pmusim_frontdoor_t *fd, uint32_t reg, char *buf,
                               size_t len);

G_END_DECLS
#endif
