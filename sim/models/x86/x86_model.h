/* Internal interface of the x86 core-PMU models (Westmere, Westmere DP,
 * Knights Mill).  One engine (x86_core.c) serves the three models; what
 * differs between them is data: an x86_desc_t per model (x86_models.c) and
 * the trace-event tables (x86_models.c).  Facts and their sources:
 * ../shared/reference/x86-pmu.md; the behaviour chosen where the sources are
 * silent is written down in docs/sim-x86.md. */
#ifndef PMUSIM_SIM_X86_MODEL_H
#define PMUSIM_SIM_X86_MODEL_H

#include <stdbool.h>
#include <stdint.h>
#include "pmusim/sim.h"

#define X86_MAX_GP 4u      /* IA32_PMC0-3 on Westmere; Knights Mill has 2 */
#define X86_NUM_FIXED 3u   /* IA32_FIXED_CTR0-2 on all three */
#define X86_NCTR (X86_MAX_GP + X86_NUM_FIXED)
#define X86_FIXED_SLOT(k) (X86_MAX_GP + (k)) /* counter slot of IA32_FIXED_CTRk */
#define X86_MAX_THREADS 4u /* Knights Mill: 4 threads per core */
#define X86_MAX_BITS 8u    /* umask bits an OR-combinable event can decompose into */

/* MSR addresses (reference §2). */
enum {
    X86_MSR_PMC0 = 0x0c1,
    X86_MSR_EVTSEL0 = 0x186,
    X86_MSR_OFFCORE_RSP0 = 0x1a6,
    X86_MSR_OFFCORE_RSP1 = 0x1a7,
    X86_MSR_DEBUGCTL = 0x1d9,
    X86_MSR_FIXED_CTR0 = 0x309,
    X86_MSR_FIXED_CTR_CTRL = 0x38d,
    X86_MSR_GLOBAL_STATUS = 0x38e,
    X86_MSR_GLOBAL_CTRL = 0x38f,
    X86_MSR_GLOBAL_OVF_CTRL = 0x390,
    X86_MSR_PEBS_ENABLE = 0x3f1,
    X86_MSR_PEBS_LD_LAT = 0x3f6,
    X86_MSR_DS_AREA = 0x600,
};

/* IA32_PERFEVTSELx fields (reference §3). */
#define X86_EVTSEL_USR (1ull << 16)
#define X86_EVTSEL_OS (1ull << 17)
#define X86_EVTSEL_EDGE (1ull << 18)
#define X86_EVTSEL_PC (1ull << 19)
#define X86_EVTSEL_INT (1ull << 20)
#define X86_EVTSEL_ANY (1ull << 21)
#define X86_EVTSEL_EN (1ull << 22)
#define X86_EVTSEL_INV (1ull << 23)
#define X86_DEBUGCTL_FREEZE_PERFMON_ON_PMI (1ull << 12)
#define X86_STATUS_OVFBUF (1ull << 62)

/* Where a counter's occurrences come from. */
typedef enum x86_src_kind {
    X86_SRC_NONE = 0,    /* event the model cannot see: never counts */
    X86_SRC_EXPLICIT,    /* PMUSIM_REC_EVENT records with the same code/umask */
    X86_SRC_CYCLES,      /* one per cycle while the thread is active (unhalted) */
    X86_SRC_REF,         /* reference cycles while active: CYCLES at the reference ratio */
    X86_SRC_INSN,        /* one per INSN record */
    X86_SRC_UOPS,        /* rec.uops per INSN record (0 counts as 1; a fused pair's first: one less) */
    X86_SRC_FILTER,      /* one per INSN record matching a filter */
    X86_SRC_BITS,        /* one per INSN record matching any of several filters */
    X86_SRC_LDLAT,       /* loads slower than MSR_PEBS_LD_LAT_THRESHOLD */
    X86_SRC_OFFCORE,     /* offcore requests matching MSR_OFFCORE_RSP_x */
    X86_SRC_OUTSTANDING, /* knm average-latency mode: matching requests in flight */
    /* a table row only, one bit of an OR-combinable umask: the EVENT
     * records of that bit (L1I:READS = the HITS and MISSES records); a
     * counter of such bits gets ev_bits (x86_ctr_compile()) */
    X86_SRC_EVENT,
    /* an INSN record of class x87 or mmx whose class differs from the
     * thread's last such record's and is one of f.fp_class (FP_MMX_TRANS:
     * the instruction after a transition; docs/trace-events-x86.md) */
    X86_SRC_FPMMX,
} x86_src_kind_t;

/* Predicate on an INSN record.  A mask of 0 in a table means "any"; the
 * compiler turns it into all-ones so the hot path never tests for 0. */
typedef struct x86_filter {
    uint16_t need_flags;   /* PMUSIM_F_* the record must carry */
    uint32_t mem_dir;      /* bit 0 loads, bit 1 stores */
    uint32_t lvl_mask;     /* bit per pmusim_mem_level_t */
    uint32_t tlb_mask;     /* bit per pmusim_tlb_outcome_t */
    uint32_t br_kind;      /* bit per pmusim_br_kind_t */
    uint32_t br_taken;     /* bit 0 not taken, bit 1 taken */
    uint32_t fp_class;     /* bit per pmusim_fp_class_t (the flags' FP/SIMD class) */
    uint32_t op_kind;      /* bit per pmusim_op_kind_t (the flags' operation kind) */
    uint32_t br_misp;      /* bit 0 predicted correctly, bit 1 mispredicted */
    uint32_t oc_req;       /* bit per offcore request bit (oc.req) */
    uint32_t lat_ge;       /* mem.latency must be at least this (load latency: threshold + 1) */
    /* bit 0: the access stays within one 64-byte line, bit 1: its bytes
     * cross one (a line split, x86_mem_split()) */
    uint32_t split;
    /* an OFFCORE_RESPONSE counter's condition (x86_ctr_compile(); no table
     * row has it): 1 + the x86_oc_layout_t of the MSR value oc_msr, which
     * replaces the oc_req test; 0 for the table's rows */
    uint8_t oc_by_msr;
    uint64_t oc_msr;
    /* a unit mask of several field-derived bits (X86_SRC_BITS): the
     * record matches when it matches one of any_of[0, n_any) (the
     * counter's own per-bit filters); 0 for the table's rows */
    uint32_t n_any;
    const struct x86_filter *any_of;
} x86_filter_t;

/* One trace-derived event of a model's table (generated from
 * trace-events.csv by gen_x86_events.py, sorted by code, umask). */
typedef struct x86_evmap {
    uint8_t code;
    uint8_t umask;
    uint8_t src;           /* x86_src_kind_t */
    bool bit;              /* one bit of an OR-combinable umask (MEM_LOAD_RETIRED ...) */
    x86_filter_t f;
    uint32_t needs;        /* PMUSIM_ANN_* the trace must carry for the count to mean anything */
    bool events_first;     /* with PMUSIM_ANN_EVENTS the trace's EVENT records count it instead */
    bool model_only;       /* a trace without an annotations key counts its EVENT records instead */
    /* counts instructions: an instruction's INSN and MEM records together
     * count at most once (MEM_INST_RETIRED:LOADS, "instructions retired
     * which contain a load") */
    bool once;
    /* on a trace with an annotations key the umask counts as this one, each
     * of whose bits has a bit row (L2_TRANSACTIONS:ANY = 0x7f); 0: none */
    uint8_t sum_umask;
    /* a form (x86_forms_*): the CMASK/INV/EDGE bits of IA32_PERFEVTSELx
     * (31:24, 23, 18) with which (code, umask) is this row's event, counted
     * from its source instead of the threshold (ARITH:DIV); 0 in the main
     * table */
    uint32_t mods;
    const char *name;      /* as trace-events.csv names it */
    const char *phrase;    /* for ops->event_source() */
} x86_evmap_t;

/* An event that cannot use every general-purpose counter (Intel's event
 * data, counter-restrictions.csv). */
typedef struct x86_restriction {
    uint8_t code;
    uint8_t umask;
    uint32_t counters;       /* bit n: IA32_PMCn allowed */
    const char *intel_event; /* Intel's name, for the diagnostic */
} x86_restriction_t;

/* The generated tables (x86_events.c). */
extern const x86_evmap_t x86_events_wsm[], x86_events_wsm_dp[], x86_events_knm[];
extern const size_t x86_n_events_wsm, x86_n_events_wsm_dp, x86_n_events_knm;
extern const x86_evmap_t x86_forms_wsm[], x86_forms_wsm_dp[], x86_forms_knm[];
extern const size_t x86_n_forms_wsm, x86_n_forms_wsm_dp, x86_n_forms_knm;
extern const x86_restriction_t x86_restrictions_wsm[], x86_restrictions_wsm_dp[],
    x86_restrictions_knm[];
extern const size_t x86_n_restrictions_wsm, x86_n_restrictions_wsm_dp, x86_n_restrictions_knm;

/* A PEBS-capable event (reference §6.2). */
typedef struct x86_pebs_event {
    uint8_t code;
    uint8_t umask;
    bool any_umask;
} x86_pebs_event_t;

/* How MSR_OFFCORE_RSP_x matches a trace offcore record (docs/sim-x86.md). */
typedef enum x86_oc_layout {
    X86_OC_WSM, /* request bits 7:0, response bits 15:8 */
    X86_OC_KNM, /* request bits 15:0 (15 = any), 16 = any response, supplier+snoop bits, 38 = outstanding */
} x86_oc_layout_t;

typedef struct x86_desc {
    const pmusim_model_ops_t *ops;
    uint32_t n_gp;
    uint32_t threads_per_core;
    uint32_t gp_width;
    uint32_t fixed_width;
    uint64_t fixed_ctrl_valid;
    uint64_t ovf_ctrl_extra;     /* status bits above the counters that OVF_CTRL may clear */
    uint64_t debugctl_valid;
    uint64_t pebs_enable_valid;
    bool has_ldlat;              /* MSR_PEBS_LD_LAT_THRESHOLD exists */
    /* the decoders macro-fuse (docs/UARCH.md §1 "Macro-fusion"): under the
     * "fuse" annotation the first INSN record of a fused pair weighs one
     * uop less in the UOPS rows (docs/trace-events-x86.md, "Macro-fusion") */
    bool fuses;
    uint32_t ref_num, ref_den;   /* default reference-clock cycles per core cycle */
    bool offcore_per_core;       /* Westmere: RSP_0/1 shared by the two threads */
    x86_oc_layout_t oc_layout;
    uint64_t oc_valid[2];        /* writable bits of MSR_OFFCORE_RSP_0/1 */
    uint8_t oc_code[2];          /* PERFEVTSEL event/umask selecting RSP_0/1 */
    uint8_t oc_umask[2];
    uint8_t ldlat_code, ldlat_umask;
    const x86_evmap_t *events;       /* trace-derived events, sorted by (code, umask) */
    const size_t *n_events;
    const x86_evmap_t *forms;        /* trace-derived forms (x86_evmap_t.mods) */
    const size_t *n_forms;
    const x86_restriction_t *restrictions; /* sorted by (code, umask) */
    const size_t *n_restrictions;
    const x86_pebs_event_t *pebs;
    size_t n_pebs;
} x86_desc_t;

extern const x86_desc_t x86_desc_wsm;
extern const x86_desc_t x86_desc_wsm_dp;
extern const x86_desc_t x86_desc_knm;

/* Engine entry points shared by the three ops structs (x86_core.c). */
pmusim_model_t *x86_create(const x86_desc_t *d, uint32_t nthreads, GError **error);
void x86_destroy(pmusim_model_t *m);
gboolean x86_write_reg(pmusim_model_t *m, const pmusim_regwrite_t *w, GError **error);
gboolean x86_read_reg(pmusim_model_t *m, pmusim_regspace_t space, uint32_t num, uint32_t thread,
                      uint64_t *value);
void x86_consume(pmusim_model_t *m, const pmusim_rec_t *recs, size_t n);
void x86_finish(pmusim_model_t *m);
void x86_report(pmusim_model_t *m, pmusim_report_t *r);
void x86_set_ref_ratio(pmusim_model_t *m, uint32_t num, uint32_t den);
void x86_observe_cycles(pmusim_model_t *m, uint64_t from, uint64_t to,
                        pmusim_cycle_observer_fn fn, void *user);
const char *x86_event_source(const x86_desc_t *d, uint32_t code, uint32_t umask);
/* The restriction of (code, umask) on d, or NULL when every counter may count it. */
const x86_restriction_t *x86_restriction_find(const x86_desc_t *d, uint8_t code, uint8_t umask);
/* The annotations (PMUSIM_ANN_*) the trace must carry for (code, umask). */
uint32_t x86_event_needs(const x86_desc_t *d, uint8_t code, uint8_t umask);
/* The form of (code, umask) programmed with the CMASK/INV/EDGE bits `mods`
 * (IA32_PERFEVTSELx & X86_FORM_MODS), or NULL. */
#define X86_FORM_MODS 0xff840000ull
const x86_evmap_t *x86_form_find(const x86_desc_t *d, uint8_t code, uint8_t umask,
                                 uint32_t mods);
/* Looks (code, umask) up in d's table: exact entry, else an OR of bit entries.
 * Returns the number of entries written to out (0: not trace-derived). */
size_t x86_event_lookup(const x86_desc_t *d, uint8_t code, uint8_t umask,
                        const x86_evmap_t *out[X86_MAX_BITS]);

/* Explain mode (x86_explain.c): ops->describe_reg of the three models. */
gboolean x86_describe_reg_wsm(pmusim_regspace_t space, uint32_t num, uint64_t value, GString *out);
gboolean x86_describe_reg_wsm_dp(pmusim_regspace_t space, uint32_t num, uint64_t value,
                                 GString *out);
gboolean x86_describe_reg_knm(pmusim_regspace_t space, uint32_t num, uint64_t value, GString *out);

#endif
