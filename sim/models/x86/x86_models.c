/* Per-model data of the x86 core-PMU models: descriptors, trace-event tables,
 * PEBS lists and the three ops structs.  The engine (x86_core.c) is shared.
 *
 * The trace-event tables say which events the trace fields can describe, and
 * how.  Every (event select, umask) not listed here is driven only by
 * explicit PMUSIM_REC_EVENT records.  docs/trace-events-x86.md is the prose
 * version of these tables; keep them in step.
 *
 * Event codes and umasks: ../shared/data/x86/{wsm,wsm_dp,knm}_events.csv. */
#include "x86_model.h"

#include <string.h>

#define LD 1u /* x86_filter_t.mem_dir bits */
#define ST 2u
#define LVL(l) (1u << (l))
#define TLB(t) (1u << (t))
#define BRK(k) (1u << (k))
#define MISP 2u  /* x86_filter_t.br_misp: mispredicted only */
#define TAKEN 2u /* x86_filter_t.br_taken: taken only */

/* Memory levels beyond the core's own L2 (L3 and everything off-chip) and
 * beyond the last-level cache (DRAM and other sockets). */
#define LVL_BEYOND_L2                                                                  \
    (LVL(PMUSIM_LVL_L3) | LVL(PMUSIM_LVL_LOCAL_DRAM) | LVL(PMUSIM_LVL_REMOTE_DRAM) | \
     LVL(PMUSIM_LVL_REMOTE_CACHE))
#define LVL_BEYOND_L3 \
    (LVL(PMUSIM_LVL_LOCAL_DRAM) | LVL(PMUSIM_LVL_REMOTE_DRAM) | LVL(PMUSIM_LVL_REMOTE_CACHE))
#define TLB_MISS (TLB(PMUSIM_TLB_L2_HIT) | TLB(PMUSIM_TLB_WALK) | TLB(PMUSIM_TLB_FAULT))

/* Westmere and Westmere DP: everything but MEM_UNCORE_RETIRED, whose umasks
 * differ by model (reference §6.3; x86_events_wsm*_uncore below). */
static const x86_evmap_t x86_events_wsm[] = {
    {.code = 0x3c, .umask = 0x00, .src = X86_SRC_CYCLES, .phrase = "active (unhalted) cycles"},
    {.code = 0x3c, .umask = 0x01, .src = X86_SRC_CYCLES,
     .phrase = "active cycles (reference clock = core clock)"},
    {.code = 0xc0, .umask = 0x00, .src = X86_SRC_INSN, .phrase = "INSN records"},
    {.code = 0xc0, .umask = 0x01, .src = X86_SRC_INSN, .phrase = "INSN records"},
    {.code = 0xec, .umask = 0x01, .src = X86_SRC_CYCLES, .phrase = "active (unhalted) cycles"},
    {.code = 0xc2, .umask = 0x01, .src = X86_SRC_UOPS, .phrase = "INSN records weighted by uops"},
    {.code = 0xc4, .umask = 0x00, .src = X86_SRC_FILTER, .f = {.need_flags = PMUSIM_F_BRANCH},
     .phrase = "branch records"},
    {.code = 0xc4, .umask = 0x04, .src = X86_SRC_FILTER, .f = {.need_flags = PMUSIM_F_BRANCH},
     .phrase = "branch records"},
    {.code = 0xc4, .umask = 0x01, .src = X86_SRC_FILTER, .bit = true,
     .f = {.need_flags = PMUSIM_F_BRANCH, .br_kind = BRK(PMUSIM_BR_COND)},
     .phrase = "branch records with br.kind == cond"},
    {.code = 0xc4, .umask = 0x02, .src = X86_SRC_FILTER, .bit = true,
     .f = {.need_flags = PMUSIM_F_BRANCH, .br_kind = BRK(PMUSIM_BR_CALL)},
     .phrase = "branch records with br.kind == call"},
    {.code = 0xc5, .umask = 0x00, .src = X86_SRC_FILTER,
     .f = {.need_flags = PMUSIM_F_BRANCH, .br_misp = MISP},
     .phrase = "mispredicted branch records (!dir_ok || !tgt_ok)"},
    {.code = 0xc5, .umask = 0x04, .src = X86_SRC_FILTER,
     .f = {.need_flags = PMUSIM_F_BRANCH, .br_misp = MISP},
     .phrase = "mispredicted branch records (!dir_ok || !tgt_ok)"},
    {.code = 0xc5, .umask = 0x01, .src = X86_SRC_FILTER, .bit = true,
     .f = {.need_flags = PMUSIM_F_BRANCH, .br_kind = BRK(PMUSIM_BR_COND), .br_misp = MISP},
     .phrase = "mispredicted branch records with br.kind == cond"},
    {.code = 0xc5, .umask = 0x02, .src = X86_SRC_FILTER, .bit = true,
     .f = {.need_flags = PMUSIM_F_BRANCH, .br_kind = BRK(PMUSIM_BR_CALL), .br_misp = MISP},
     .phrase = "mispredicted branch records with br.kind == call"},
    {.code = 0x0b, .umask = 0x01, .src = X86_SRC_FILTER, .bit = true,
     .f = {.need_flags = PMUSIM_F_MEM, .mem_dir = LD}, .phrase = "load records"},
    {.code = 0x0b, .umask = 0x02, .src = X86_SRC_FILTER, .bit = true,
     .f = {.need_flags = PMUSIM_F_MEM, .mem_dir = ST}, .phrase = "store records"},
    {.code = 0x0b, .umask = 0x10, .src = X86_SRC_LDLAT,
     .phrase = "load records with mem.latency > MSR_PEBS_LD_LAT_THRESHOLD"},
    {.code = 0x0c, .umask = 0x01, .src = X86_SRC_FILTER,
     .f = {.need_flags = PMUSIM_F_MEM, .mem_dir = ST, .tlb_mask = TLB_MISS},
     .phrase = "store records with mem.tlb != L1 hit"},
    {.code = 0xcb, .umask = 0x01, .src = X86_SRC_FILTER, .bit = true,
     .f = {.need_flags = PMUSIM_F_MEM, .mem_dir = LD, .lvl_mask = LVL(PMUSIM_LVL_L1D)},
     .phrase = "load records with mem.level == L1D"},
    {.code = 0xcb, .umask = 0x02, .src = X86_SRC_FILTER, .bit = true,
     .f = {.need_flags = PMUSIM_F_MEM, .mem_dir = LD, .lvl_mask = LVL(PMUSIM_LVL_L2)},
     .phrase = "load records with mem.level == L2"},
    {.code = 0xcb, .umask = 0x04, .src = X86_SRC_FILTER, .bit = true,
     .f = {.need_flags = PMUSIM_F_MEM, .mem_dir = LD, .lvl_mask = LVL(PMUSIM_LVL_L3)},
     .phrase = "load records with mem.level == L3"},
    {.code = 0xcb, .umask = 0x10, .src = X86_SRC_FILTER, .bit = true,
     .f = {.need_flags = PMUSIM_F_MEM, .mem_dir = LD, .lvl_mask = LVL_BEYOND_L3},
     .phrase = "load records with mem.level beyond L3 (DRAM, remote cache)"},
    {.code = 0xcb, .umask = 0x80, .src = X86_SRC_FILTER, .bit = true,
     .f = {.need_flags = PMUSIM_F_MEM, .mem_dir = LD, .tlb_mask = TLB_MISS},
     .phrase = "load records with mem.tlb != L1 hit"},
    {.code = 0x49, .umask = 0x01, .src = X86_SRC_FILTER, .bit = true,
     .f = {.need_flags = PMUSIM_F_MEM, .tlb_mask = TLB_MISS},
     .phrase = "memory records with mem.tlb != L1 hit"},
    {.code = 0x49, .umask = 0x02, .src = X86_SRC_FILTER, .bit = true,
     .f = {.need_flags = PMUSIM_F_MEM, .tlb_mask = TLB(PMUSIM_TLB_WALK)},
     .phrase = "memory records with mem.tlb == walk"},
    {.code = 0x49, .umask = 0x10, .src = X86_SRC_FILTER, .bit = true,
     .f = {.need_flags = PMUSIM_F_MEM, .tlb_mask = TLB(PMUSIM_TLB_L2_HIT)},
     .phrase = "memory records with mem.tlb == L2 hit"},
    {.code = 0x08, .umask = 0x01, .src = X86_SRC_FILTER, .bit = true,
     .f = {.need_flags = PMUSIM_F_MEM, .mem_dir = LD, .tlb_mask = TLB_MISS},
     .phrase = "load records with mem.tlb != L1 hit"},
    {.code = 0x08, .umask = 0x02, .src = X86_SRC_FILTER, .bit = true,
     .f = {.need_flags = PMUSIM_F_MEM, .mem_dir = LD, .tlb_mask = TLB(PMUSIM_TLB_WALK)},
     .phrase = "load records with mem.tlb == walk"},
    {.code = 0x08, .umask = 0x10, .src = X86_SRC_FILTER, .bit = true,
     .f = {.need_flags = PMUSIM_F_MEM, .mem_dir = LD, .tlb_mask = TLB(PMUSIM_TLB_L2_HIT)},
     .phrase = "load records with mem.tlb == L2 hit"},
    {.code = 0x24, .umask = 0x01, .src = X86_SRC_FILTER, .bit = true,
     .f = {.need_flags = PMUSIM_F_MEM, .mem_dir = LD, .lvl_mask = LVL(PMUSIM_LVL_L2)},
     .phrase = "load records with mem.level == L2"},
    {.code = 0x24, .umask = 0x02, .src = X86_SRC_FILTER, .bit = true,
     .f = {.need_flags = PMUSIM_F_MEM, .mem_dir = LD, .lvl_mask = LVL_BEYOND_L2},
     .phrase = "load records with mem.level beyond L2"},
    {.code = 0x24, .umask = 0x04, .src = X86_SRC_FILTER, .bit = true,
     .f = {.need_flags = PMUSIM_F_MEM, .mem_dir = ST, .lvl_mask = LVL(PMUSIM_LVL_L2)},
     .phrase = "store records with mem.level == L2"},
    {.code = 0x24, .umask = 0x08, .src = X86_SRC_FILTER, .bit = true,
     .f = {.need_flags = PMUSIM_F_MEM, .mem_dir = ST, .lvl_mask = LVL_BEYOND_L2},
     .phrase = "store records with mem.level beyond L2"},
    {.code = 0x2e, .umask = 0x4f, .src = X86_SRC_FILTER,
     .f = {.need_flags = PMUSIM_F_MEM, .lvl_mask = LVL_BEYOND_L2},
     .phrase = "memory records with mem.level beyond L2 (L3 references)"},
    {.code = 0x2e, .umask = 0x41, .src = X86_SRC_FILTER,
     .f = {.need_flags = PMUSIM_F_MEM, .lvl_mask = LVL_BEYOND_L3},
     .phrase = "memory records with mem.level beyond L3 (L3 misses)"},
    {.code = 0xb7, .umask = 0x01, .src = X86_SRC_OFFCORE,
     .phrase = "offcore records matching MSR_OFFCORE_RSP_0"},
    {.code = 0xbb, .umask = 0x01, .src = X86_SRC_OFFCORE,
     .phrase = "offcore records matching MSR_OFFCORE_RSP_1"},
};

static const x86_evmap_t x86_events_wsm_uncore[] = {
    /* MEM_UNCORE_RETIRED on model 37 (reference §6.3) */
    {.code = 0x0f, .umask = 0x08, .src = X86_SRC_FILTER, .bit = true,
     .f = {.need_flags = PMUSIM_F_MEM, .mem_dir = LD, .lvl_mask = LVL(PMUSIM_LVL_REMOTE_CACHE)},
     .phrase = "load records with mem.level == remote cache"},
    {.code = 0x0f, .umask = 0x10, .src = X86_SRC_FILTER, .bit = true,
     .f = {.need_flags = PMUSIM_F_MEM, .mem_dir = LD, .lvl_mask = LVL(PMUSIM_LVL_LOCAL_DRAM)},
     .phrase = "load records with mem.level == local DRAM"},
    {.code = 0x0f, .umask = 0x20, .src = X86_SRC_FILTER, .bit = true,
     .f = {.need_flags = PMUSIM_F_MEM, .mem_dir = LD, .lvl_mask = LVL(PMUSIM_LVL_REMOTE_DRAM)},
     .phrase = "load records with mem.level == remote DRAM"},
};

static const x86_evmap_t x86_events_wsm_dp_uncore[] = {
    /* MEM_UNCORE_RETIRED on models 44/47 (reference §6.3) */
    {.code = 0x0f, .umask = 0x08, .src = X86_SRC_FILTER, .bit = true,
     .f = {.need_flags = PMUSIM_F_MEM, .mem_dir = LD,
           .lvl_mask = LVL(PMUSIM_LVL_LOCAL_DRAM) | LVL(PMUSIM_LVL_REMOTE_CACHE)},
     .phrase = "load records with mem.level == local DRAM or remote cache"},
    {.code = 0x0f, .umask = 0x10, .src = X86_SRC_FILTER, .bit = true,
     .f = {.need_flags = PMUSIM_F_MEM, .mem_dir = LD, .lvl_mask = LVL(PMUSIM_LVL_REMOTE_DRAM)},
     .phrase = "load records with mem.level == remote DRAM"},
};

/* Knights Mill: the L2 is the last-level cache; BR_*_RETIRED umasks are
 * "clear the bits of what to exclude" patterns, so they are exact entries,
 * not OR-combinable bits. */
static const x86_evmap_t x86_events_knm[] = {
    {.code = 0x3c, .umask = 0x00, .src = X86_SRC_CYCLES, .phrase = "active (unhalted) cycles"},
    {.code = 0x3c, .umask = 0x02, .src = X86_SRC_CYCLES,
     .phrase = "active cycles (reference clock = core clock)"},
    {.code = 0xc0, .umask = 0x00, .src = X86_SRC_INSN, .phrase = "INSN records"},
    {.code = 0xc2, .umask = 0x10, .src = X86_SRC_UOPS, .phrase = "INSN records weighted by uops"},
    {.code = 0xc4, .umask = 0x00, .src = X86_SRC_FILTER, .f = {.need_flags = PMUSIM_F_BRANCH},
     .phrase = "branch records"},
    {.code = 0xc4, .umask = 0x7e, .src = X86_SRC_FILTER,
     .f = {.need_flags = PMUSIM_F_BRANCH, .br_kind = BRK(PMUSIM_BR_COND)},
     .phrase = "branch records with br.kind == cond"},
    {.code = 0xc4, .umask = 0xfe, .src = X86_SRC_FILTER,
     .f = {.need_flags = PMUSIM_F_BRANCH, .br_kind = BRK(PMUSIM_BR_COND), .br_taken = TAKEN},
     .phrase = "taken branch records with br.kind == cond"},
    {.code = 0xc4, .umask = 0xf9, .src = X86_SRC_FILTER,
     .f = {.need_flags = PMUSIM_F_BRANCH, .br_kind = BRK(PMUSIM_BR_CALL)},
     .phrase = "branch records with br.kind == call"},
    {.code = 0xc4, .umask = 0xf7, .src = X86_SRC_FILTER,
     .f = {.need_flags = PMUSIM_F_BRANCH, .br_kind = BRK(PMUSIM_BR_RET)},
     .phrase = "branch records with br.kind == ret"},
    {.code = 0xc4, .umask = 0xeb, .src = X86_SRC_FILTER,
     .f = {.need_flags = PMUSIM_F_BRANCH, .br_kind = BRK(PMUSIM_BR_IND)},
     .phrase = "branch records with br.kind == indirect"},
    {.code = 0xc5, .umask = 0x00, .src = X86_SRC_FILTER,
     .f = {.need_flags = PMUSIM_F_BRANCH, .br_misp = MISP},
     .phrase = "mispredicted branch records (!dir_ok || !tgt_ok)"},
    {.code = 0xc5, .umask = 0x7e, .src = X86_SRC_FILTER,
     .f = {.need_flags = PMUSIM_F_BRANCH, .br_kind = BRK(PMUSIM_BR_COND), .br_misp = MISP},
     .phrase = "mispredicted branch records with br.kind == cond"},
    {.code = 0xc5, .umask = 0xfe, .src = X86_SRC_FILTER,
     .f = {.need_flags = PMUSIM_F_BRANCH, .br_kind = BRK(PMUSIM_BR_COND), .br_taken = TAKEN,
           .br_misp = MISP},
     .phrase = "mispredicted taken branch records with br.kind == cond"},
    {.code = 0xc5, .umask = 0xf9, .src = X86_SRC_FILTER,
     .f = {.need_flags = PMUSIM_F_BRANCH, .br_kind = BRK(PMUSIM_BR_CALL), .br_misp = MISP},
     .phrase = "mispredicted branch records with br.kind == call"},
    {.code = 0xc5, .umask = 0xf7, .src = X86_SRC_FILTER,
     .f = {.need_flags = PMUSIM_F_BRANCH, .br_kind = BRK(PMUSIM_BR_RET), .br_misp = MISP},
     .phrase = "mispredicted branch records with br.kind == ret"},
    {.code = 0xc5, .umask = 0xeb, .src = X86_SRC_FILTER,
     .f = {.need_flags = PMUSIM_F_BRANCH, .br_kind = BRK(PMUSIM_BR_IND), .br_misp = MISP},
     .phrase = "mispredicted branch records with br.kind == indirect"},
    /* MEM_UOPS_RETIRED: one count per memory record (the trace has one
     * memory access per instruction) */
    {.code = 0x04, .umask = 0x01, .src = X86_SRC_FILTER, .bit = true,
     .f = {.need_flags = PMUSIM_F_MEM, .mem_dir = LD,
           .lvl_mask = LVL(PMUSIM_LVL_L2) | LVL_BEYOND_L2},
     .phrase = "load records with mem.level beyond L1D"},
    {.code = 0x04, .umask = 0x02, .src = X86_SRC_FILTER, .bit = true,
     .f = {.need_flags = PMUSIM_F_MEM, .mem_dir = LD, .lvl_mask = LVL(PMUSIM_LVL_L2)},
     .phrase = "load records with mem.level == L2"},
    {.code = 0x04, .umask = 0x04, .src = X86_SRC_FILTER, .bit = true,
     .f = {.need_flags = PMUSIM_F_MEM, .mem_dir = LD, .lvl_mask = LVL_BEYOND_L2},
     .phrase = "load records with mem.level beyond L2"},
    {.code = 0x04, .umask = 0x08, .src = X86_SRC_FILTER, .bit = true,
     .f = {.need_flags = PMUSIM_F_MEM, .mem_dir = LD,
           .tlb_mask = TLB(PMUSIM_TLB_WALK) | TLB(PMUSIM_TLB_FAULT)},
     .phrase = "load records with mem.tlb == walk or fault"},
    {.code = 0x04, .umask = 0x10, .src = X86_SRC_FILTER, .bit = true,
     .f = {.need_flags = PMUSIM_F_MEM, .mem_dir = LD, .tlb_mask = TLB_MISS},
     .phrase = "load records with mem.tlb != L1 hit"},
    {.code = 0x04, .umask = 0x40, .src = X86_SRC_FILTER, .bit = true,
     .f = {.need_flags = PMUSIM_F_MEM, .mem_dir = LD}, .phrase = "load records"},
    {.code = 0x04, .umask = 0x80, .src = X86_SRC_FILTER, .bit = true,
     .f = {.need_flags = PMUSIM_F_MEM, .mem_dir = ST}, .phrase = "store records"},
    {.code = 0x2e, .umask = 0x4f, .src = X86_SRC_FILTER,
     .f = {.need_flags = PMUSIM_F_MEM, .lvl_mask = LVL(PMUSIM_LVL_L2) | LVL_BEYOND_L2},
     .phrase = "memory records with mem.level beyond L1D (L2 references)"},
    {.code = 0x2e, .umask = 0x41, .src = X86_SRC_FILTER,
     .f = {.need_flags = PMUSIM_F_MEM, .lvl_mask = LVL_BEYOND_L2},
     .phrase = "memory records with mem.level beyond L2 (L2 misses)"},
    {.code = 0xb7, .umask = 0x01, .src = X86_SRC_OFFCORE,
     .phrase = "offcore records matching MSR_OFFCORE_RSP_0 (OUTSTANDING: requests in flight)"},
    {.code = 0xb7, .umask = 0x02, .src = X86_SRC_OFFCORE,
     .phrase = "offcore records matching MSR_OFFCORE_RSP_1"},
};

/* PEBS-capable events (reference §6.2). */
static const x86_pebs_event_t x86_pebs_wsm[] = {
    {.code = 0x0b, .any_umask = true}, {.code = 0x0c, .any_umask = true},
    {.code = 0x0f, .any_umask = true}, {.code = 0xc0, .any_umask = true},
    {.code = 0xc2, .any_umask = true}, {.code = 0xc4, .any_umask = true},
    {.code = 0xc5, .any_umask = true}, {.code = 0xc7, .any_umask = true},
    {.code = 0xc8, .umask = 0x20},     {.code = 0xcb, .any_umask = true},
    {.code = 0xf7, .any_umask = true},
};

static const x86_pebs_event_t x86_pebs_knm[] = {
    {.code = 0xc0, .any_umask = true}, {.code = 0xc4, .any_umask = true},
    {.code = 0xc5, .any_umask = true}, {.code = 0x04, .umask = 0x02},
    {.code = 0x04, .umask = 0x04},     {.code = 0x04, .umask = 0x08},
    {.code = 0x04, .umask = 0x20},     {.code = 0x03, .umask = 0x01},
    {.code = 0x03, .umask = 0x08},
};

/* The entry for exactly (code, umask) in the family table or the model's own
 * table, or NULL. */
static const x86_evmap_t *x86_event_find(const x86_desc_t *d, uint8_t code, uint8_t umask,
                                         bool bit_only)
{
    const x86_evmap_t *tabs[2] = {d->events, d->model_events};
    size_t lens[2] = {d->n_events, d->n_model_events};
    for (size_t t = 0; t < 2; t++)
        for (size_t i = 0; i < lens[t]; i++)
            if (tabs[t][i].code == code && tabs[t][i].umask == umask &&
                (!bit_only || tabs[t][i].bit))
                return &tabs[t][i];
    return NULL;
}

size_t x86_event_lookup(const x86_desc_t *d, uint8_t code, uint8_t umask,
                        const x86_evmap_t *out[X86_MAX_BITS])
{
    const x86_evmap_t *e = x86_event_find(d, code, umask, false);
    if (e) {
        out[0] = e;
        return 1;
    }
    /* An OR-combinable umask: every set bit must have a bit entry. */
    size_t n = 0;
    for (unsigned b = 0; b < 8; b++) {
        if (!(umask & (1u << b)))
            continue;
        const x86_evmap_t *hit = x86_event_find(d, code, (uint8_t)(1u << b), true);
        if (!hit)
            return 0;
        out[n++] = hit;
    }
    return n;
}

const char *x86_event_source(const x86_desc_t *d, uint32_t code, uint32_t umask)
{
    if (code > 0xff || umask > 0xff)
        return NULL;
    /* libpfm's pseudo encoding 0x0300 of UNHALTED_REFERENCE_CYCLES: an event
     * that exists only on IA32_FIXED_CTR2 (reference §4.2) */
    if (code == 0x00 && umask == 0x03)
        return "active cycles, on IA32_FIXED_CTR2 only";
    const x86_evmap_t *hits[X86_MAX_BITS];
    size_t n = x86_event_lookup(d, (uint8_t)code, (uint8_t)umask, hits);
    if (n == 0)
        return NULL;
    if (n == 1)
        return hits[0]->phrase;
    return "records matching any of the umask bits' conditions (see docs/trace-events-x86.md)";
}

/* ---- model descriptors (reference §1, §2, §5, §6, §8) ---- */

/* IA32_DEBUGCTL bits accepted: LBR, BTF (1:0), TR, BTS, BTINT, BTS_OFF_OS,
 * BTS_OFF_USR, FREEZE_LBRS_ON_PMI, FREEZE_PERFMON_ON_PMI, bit 13 (uncore PMI
 * enable on Nehalem-family) and FREEZE_WHILE_SMM (14:6).  Only bit 12 has an
 * effect in the model. */
#define X86_DEBUGCTL_VALID 0x7fc3ull

const x86_desc_t x86_desc_wsm = {
    .ops = &pmusim_model_wsm,
    .n_gp = 4,
    .threads_per_core = 2,
    .gp_width = 48,    /* SDM §18.8.1 (CPUID.0AH:EAX[23:16] = 48 on Nehalem/Westmere) */
    .fixed_width = 48, /* chosen: same as GP, docs/sim-x86.md */
    .fixed_ctrl_valid = 0xfff,
    .ovf_ctrl_extra = (1ull << 61) | (1ull << 62) | (1ull << 63),
    .debugctl_valid = X86_DEBUGCTL_VALID,
    .pebs_enable_valid = 0xfull | (0xfull << 32), /* PEBS_EN_PMC0-3, LL_EN_PMC0-3 */
    .has_ldlat = true,
    .offcore_per_core = true,
    .oc_layout = X86_OC_WSM,
    .oc_valid = {0xffff, 0xffff},
    .oc_code = {0xb7, 0xbb},
    .oc_umask = {0x01, 0x01},
    .ldlat_code = 0x0b,
    .ldlat_umask = 0x10,
    .events = x86_events_wsm,
    .n_events = G_N_ELEMENTS(x86_events_wsm),
    .model_events = x86_events_wsm_uncore,
    .n_model_events = G_N_ELEMENTS(x86_events_wsm_uncore),
    .pebs = x86_pebs_wsm,
    .n_pebs = G_N_ELEMENTS(x86_pebs_wsm),
};

const x86_desc_t x86_desc_wsm_dp = {
    .ops = &pmusim_model_wsm_dp,
    .n_gp = 4,
    .threads_per_core = 2,
    .gp_width = 48,
    .fixed_width = 48,
    .fixed_ctrl_valid = 0xfff,
    .ovf_ctrl_extra = (1ull << 61) | (1ull << 62) | (1ull << 63),
    .debugctl_valid = X86_DEBUGCTL_VALID,
    .pebs_enable_valid = 0xfull | (0xfull << 32),
    .has_ldlat = true,
    .offcore_per_core = true,
    .oc_layout = X86_OC_WSM,
    .oc_valid = {0xffff, 0xffff},
    .oc_code = {0xb7, 0xbb},
    .oc_umask = {0x01, 0x01},
    .ldlat_code = 0x0b,
    .ldlat_umask = 0x10,
    .events = x86_events_wsm,
    .n_events = G_N_ELEMENTS(x86_events_wsm),
    .model_events = x86_events_wsm_dp_uncore,
    .n_model_events = G_N_ELEMENTS(x86_events_wsm_dp_uncore),
    .pebs = x86_pebs_wsm,
    .n_pebs = G_N_ELEMENTS(x86_pebs_wsm),
};

const x86_desc_t x86_desc_knm = {
    .ops = &pmusim_model_knm,
    .n_gp = 2,              /* reference §1.1 */
    .threads_per_core = 4,
    .gp_width = 40,         /* chosen (reference: unverified), docs/sim-x86.md */
    .fixed_width = 40,
    .fixed_ctrl_valid = 0xfff,
    .ovf_ctrl_extra = (1ull << 62) | (1ull << 63),
    .debugctl_valid = X86_DEBUGCTL_VALID,
    .pebs_enable_valid = 0x1, /* PEBS on PMC0 only (reference §6.1) */
    .has_ldlat = false,
    .offcore_per_core = false,
    .oc_layout = X86_OC_KNM,
    .oc_valid = {0x799ffbb6e7ull, 0x399ffbffe7ull}, /* reference §8.3 kernel masks */
    .oc_code = {0xb7, 0xb7},
    .oc_umask = {0x01, 0x02},
    .events = x86_events_knm,
    .n_events = G_N_ELEMENTS(x86_events_knm),
    .pebs = x86_pebs_knm,
    .n_pebs = G_N_ELEMENTS(x86_pebs_knm),
};

/* ---- ops ---- */

static pmusim_model_t *wsm_create(uint32_t nthreads, GError **error)
{
    return x86_create(&x86_desc_wsm, nthreads, error);
}

static pmusim_model_t *wsm_dp_create(uint32_t nthreads, GError **error)
{
    return x86_create(&x86_desc_wsm_dp, nthreads, error);
}

static pmusim_model_t *knm_create(uint32_t nthreads, GError **error)
{
    return x86_create(&x86_desc_knm, nthreads, error);
}

static const char *wsm_event_source(uint32_t code, uint32_t umask)
{
    return x86_event_source(&x86_desc_wsm, code, umask);
}

static const char *wsm_dp_event_source(uint32_t code, uint32_t umask)
{
    return x86_event_source(&x86_desc_wsm_dp, code, umask);
}

static const char *knm_event_source(uint32_t code, uint32_t umask)
{
    return x86_event_source(&x86_desc_knm, code, umask);
}

const pmusim_model_ops_t pmusim_model_wsm = {
    .name = "wsm",
    .isa = PMUSIM_ISA_X86_64,
    .cpu = PMUSIM_CPU_WSM,
    .max_threads = 2,
    .create = wsm_create,
    .destroy = x86_destroy,
    .write_reg = x86_write_reg,
    .read_reg = x86_read_reg,
    .consume = x86_consume,
    .finish = x86_finish,
    .report = x86_report,
    .event_source = wsm_event_source,
    .describe_reg = x86_describe_reg_wsm,
};

const pmusim_model_ops_t pmusim_model_wsm_dp = {
    .name = "wsm_dp",
    .isa = PMUSIM_ISA_X86_64,
    .cpu = PMUSIM_CPU_WSM_DP,
    .max_threads = 2,
    .create = wsm_dp_create,
    .destroy = x86_destroy,
    .write_reg = x86_write_reg,
    .read_reg = x86_read_reg,
    .consume = x86_consume,
    .finish = x86_finish,
    .report = x86_report,
    .event_source = wsm_dp_event_source,
    .describe_reg = x86_describe_reg_wsm_dp,
};

const pmusim_model_ops_t pmusim_model_knm = {
    .name = "knm",
    .isa = PMUSIM_ISA_X86_64,
    .cpu = PMUSIM_CPU_KNM,
    .max_threads = 4,
    .create = knm_create,
    .destroy = x86_destroy,
    .write_reg = x86_write_reg,
    .read_reg = x86_read_reg,
    .consume = x86_consume,
    .finish = x86_finish,
    .report = x86_report,
    .event_source = knm_event_source,
    .describe_reg = x86_describe_reg_knm,
};
