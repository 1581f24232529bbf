/* pmusim synthetic trace generators and converters from other tools.
 *
 * Generators are deterministic (same parameters and seed give the same
 * records) and stream straight into a pmusim_trace_writer_t, so traces of
 * 1e9 records are produced in constant memory.  A generator makes only the
 * functional stream (IPs, branch outcomes, data addresses); the
 * microarchitecture model (include/pmusim/uarch.h) turns it into records,
 * as it does for captured programs. */
#ifndef PMUSIM_TRACEGEN_H
#define PMUSIM_TRACEGEN_H

#include "pmusim/trace.h"

G_BEGIN_DECLS

typedef enum pmusim_gen_workload {
    PMUSIM_GEN_LOOP = 0,   /* a small loop with branches over 4 KiB arrays (hit ratio 1) */
    PMUSIM_GEN_STREAM = 1, /* half the accesses stream over 256 MiB (hit ratio 0.5 by default) */
    PMUSIM_GEN_MIXED = 2,  /* loop + stream + calls, data-dependent trip counts, SMT halts
                              (THREAD off/on), markers and explicit event records */
} pmusim_gen_workload_t;

/* Called every 2^20 records and once at the end (e.g. for a progress line). */
typedef void (*pmusim_gen_progress_fn)(uint64_t done, uint64_t total, void *user);

typedef struct pmusim_gen_params {
    pmusim_cpu_t cpu;               /* sets the ISA */
    pmusim_gen_workload_t workload;
    uint64_t records;               /* exact number of records written, >= 1 (the model's
                                       output in cycle order, cut after that many) */
    uint64_t seed;
    uint32_t threads;               /* 1..the CPU's threads per core (ita2 1, mont/wsm/wsm_dp 2,
                                       knm 4, pmusim_uarch_max_threads()); 0 = that maximum */
    double hit_ratio;               /* fraction of data accesses to the small hot arrays (the rest
                                       stream through memory): about the L1D hit ratio the
                                       model finds, 0..1; < 0 = default */
    pmusim_gen_progress_fn progress;
    void *progress_data;
} pmusim_gen_params_t;

/* Defaults: workload loop, 1000 records, seed 1, default threads and hit ratio. */
void pmusim_gen_params_init(pmusim_gen_params_t *p, pmusim_cpu_t cpu);
const char *pmusim_gen_workload_name(pmusim_gen_workload_t w);
/* Returns FALSE if the name is unknown ("loop", "stream", "mixed"). */
gboolean pmusim_gen_workload_from_name(const char *name, pmusim_gen_workload_t *w);
uint32_t pmusim_gen_default_threads(pmusim_cpu_t cpu);

/* Fills *h (initialised here; clear it with pmusim_trace_header_clear) with
 * the header the generator's records need, including metadata generator,
 * workload, seed and hit_ratio.  FALSE with error for bad parameters. */
gboolean pmusim_gen_header(const pmusim_gen_params_t *p, pmusim_trace_header_t *h,
                           GError **error);
/* Writes p->records records (and the workload's symbols) to w, whose header
 * must come from pmusim_gen_header().  Does not close w. */
gboolean pmusim_gen_run(const pmusim_gen_params_t *p, pmusim_trace_writer_t *w, GError **error);

/* ---- Valgrind lackey converter ---- */
typedef struct pmusim_lackey_stats {
    uint64_t instructions;     /* "I" lines -> INSN records */
    uint64_t accesses;         /* data accesses (L, S: one each; M: a load and a store) */
    uint64_t extra_accesses;   /* 2nd and later accesses of one instruction: MEM records */
    uint64_t branches;         /* instructions followed by a non-sequential IP */
    uint64_t skipped_lines;    /* "==pid==" and blank lines, accesses before the first "I" */
} pmusim_lackey_stats_t;

/* Converts `valgrind --tool=lackey --trace-mem=yes` output (lines "I  addr,size",
 * " L addr,size", " S addr,size", " M addr,size") read from `path` ("-" = stdin)
 * into x86_64 records on thread 0 written to w: one INSN per instruction and
 * cycle holding its first access, a MEM record for each further access (M =
 * a load then a store of the same bytes); accesses are L1D hits of latency 4;
 * a non-sequential next IP makes the instruction a taken branch to it.  The
 * parser is strict and bounded (traces/FORMAT.md §6): errors name the line. */
gboolean pmusim_trace_convert_lackey(const char *path, pmusim_trace_writer_t *w,
                                     pmusim_lackey_stats_t *stats, GError **error);
/* The same from an open stream (not closed here); `name` is used in messages. */
gboolean pmusim_trace_convert_lackey_fp(FILE *fp, const char *name, pmusim_trace_writer_t *w,
                                        pmusim_lackey_stats_t *stats, GError **error);

G_END_DECLS
#endif
