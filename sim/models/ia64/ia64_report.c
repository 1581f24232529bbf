/* IA-64 model results and the ops tables of both CPUs. */
#include <stdio.h>
#include <string.h>
#include "ia64_priv.h"

/* What each trace source reads (docs/trace-events-ia64.md has the detail). */
static const char *const ia64_src_phrase[] = {
    [IA64_SRC_EVENT] = NULL,
    [IA64_SRC_CYCLES] = "every cycle of the trace",
    [IA64_SRC_INSN] = "insn records (IA-64), tagged by IBR pair / opcode matcher",
    [IA64_SRC_INSN_IA32] = "insn records with flag ia32",
    [IA64_SRC_ISA_TRANSITION] = "insn records: ia32 flag differs from the previous insn",
    [IA64_SRC_CPL_CHANGE] = "insn records: plm differs from the previous insn",
    [IA64_SRC_NOP] = "insn records with flag nop",
    [IA64_SRC_PRED_OFF] = "insn records with flag pred_off",
    [IA64_SRC_FP_OP] = "insn records with flag fp",
    [IA64_SRC_LOAD] = "mem loads",
    [IA64_SRC_STORE] = "mem stores",
    [IA64_SRC_MISALIGNED_LOAD] = "mem loads with addr not a multiple of size",
    [IA64_SRC_MISALIGNED_STORE] = "mem stores with addr not a multiple of size",
    [IA64_SRC_MEMREF] = "mem loads and stores",
    [IA64_SRC_L1D_READ] = "mem integer loads (no fp flag)",
    [IA64_SRC_L1D_READ_MISS] = "mem integer loads with mem.level != L1D",
    [IA64_SRC_L2_DATA_REF] = "mem loads with mem.level != L1D, mem stores",
    [IA64_SRC_L2_MISS] = "mem accesses with mem.level >= L3",
    [IA64_SRC_L3_REF] = "mem accesses with mem.level >= L3",
    [IA64_SRC_L3_MISS] = "mem accesses with mem.level > L3",
    [IA64_SRC_L3_READ] = "mem loads with mem.level >= L3 (hit: == L3)",
    [IA64_SRC_L3_WRITE] = "mem stores with mem.level >= L3 (hit: == L3)",
    [IA64_SRC_DTLB_L2_HIT] = "mem.tlb == L2_HIT",
    [IA64_SRC_DTLB_L2_MISS] = "mem.tlb == WALK or FAULT",
    [IA64_SRC_DTLB_HPW] = "mem.tlb == WALK",
    [IA64_SRC_ALAT_CHECK] = "mem.alat != NONE",
    [IA64_SRC_ALAT_FAIL] = "mem.alat == MISS",
    [IA64_SRC_BR_MISPRED] = "br: kind, dir_ok, tgt_ok",
    [IA64_SRC_BR_PATH] = "br: kind, dir_ok, taken",
    [IA64_SRC_BR_BE_MISPRED] = "br.detect == BACKEND",
    [IA64_SRC_BRANCH_EVENT] = "branches captured by the BTB/ETB",
    [IA64_SRC_DEAR_EVENT] = "mem accesses captured by the D-EAR",
    [IA64_SRC_IEAR_EVENT] = "EVENT records es 0x43 captured by the I-EAR",
    [IA64_SRC_THREAD_SWITCH] = "THREAD records making an inactive thread active",
};
/* The header annotations (pmusim_trace_header_annotations()) a source's
 * fields need: without them the field holds no measurement. */
static const uint32_t ia64_src_needs[] = {
    /* without a timing model a cycle is a placeholder */
    [IA64_SRC_CYCLES] = PMUSIM_ANN_TIMING,
    [IA64_SRC_FP_OP] = PMUSIM_ANN_FP,
    [IA64_SRC_L1D_READ] = PMUSIM_ANN_FP,
    [IA64_SRC_L1D_READ_MISS] = PMUSIM_ANN_FP | PMUSIM_ANN_LEVELS,
    [IA64_SRC_L2_DATA_REF] = PMUSIM_ANN_LEVELS,
    [IA64_SRC_L2_MISS] = PMUSIM_ANN_LEVELS,
    [IA64_SRC_L3_REF] = PMUSIM_ANN_LEVELS,
    [IA64_SRC_L3_MISS] = PMUSIM_ANN_LEVELS,
    [IA64_SRC_L3_READ] = PMUSIM_ANN_LEVELS,
    [IA64_SRC_L3_WRITE] = PMUSIM_ANN_LEVELS,
    [IA64_SRC_DTLB_L2_HIT] = PMUSIM_ANN_TLB | PMUSIM_ANN_FP,
    [IA64_SRC_DTLB_L2_MISS] = PMUSIM_ANN_TLB,
    [IA64_SRC_DTLB_HPW] = PMUSIM_ANN_TLB,
    [IA64_SRC_ALAT_CHECK] = PMUSIM_ANN_ALAT,
    [IA64_SRC_ALAT_FAIL] = PMUSIM_ANN_ALAT,
    [IA64_SRC_BR_MISPRED] = PMUSIM_ANN_PRED | PMUSIM_ANN_BRKIND,
    [IA64_SRC_BR_PATH] = PMUSIM_ANN_PRED | PMUSIM_ANN_BRKIND,
    [IA64_SRC_BR_BE_MISPRED] = PMUSIM_ANN_PRED,
    [IA64_SRC_BRANCH_EVENT] = PMUSIM_ANN_PRED | PMUSIM_ANN_BRKIND,
    [IA64_SRC_DEAR_EVENT] = PMUSIM_ANN_LEVELS,
    [IA64_SRC_THREAD_SWITCH] = 0,
};
_Static_assert(sizeof ia64_src_needs / sizeof ia64_src_needs[0] == IA64_SRC_COUNT,
               "one annotation mask per trace source");
_Static_assert(sizeof ia64_src_phrase / sizeof ia64_src_phrase[0] == IA64_SRC_COUNT,
               "one phrase per trace source");

static const char *ia64_event_source(const ia64_desc_t *d, uint32_t code, uint32_t umask)
{
    /* The EAR events' table umasks configure the EAR, not the counter
     * (which uses umask 0): every L1I_EAR_* / DATA_EAR_* event counts the
     * EAR's captures. */
    if (code == 0x43)
        return ia64_src_phrase[IA64_SRC_IEAR_EVENT];
    if (code == 0xc8)
        return ia64_src_phrase[IA64_SRC_DEAR_EVENT];
    const ia64_event_info_t *ev = ia64_event_find(d, code, umask);
    return ev ? ia64_src_phrase[ev->src] : NULL;
}

const char *ia64_event_source_ita2(uint32_t code, uint32_t umask)
{
    return ia64_event_source(&ia64_desc_ita2, code, umask);
}

const char *ia64_event_source_mont(uint32_t code, uint32_t umask)
{
    return ia64_event_source(&ia64_desc_mont, code, umask);
}

static bool ia64_ev_seen(const ia64_model_t *im, uint32_t es, uint32_t umask)
{
    uint32_t key = (es & 0xff) << 4 | (umask & 0xf);
    return (im->ev_seen[key / 64] >> (key % 64)) & 1;
}

/* An EVENT-only event (es, umask) is in the trace through model fact
 * records: some fact whose list includes it has a record, or the header's
 * "events" key lists it (docs/trace-events-ia64.md, "One EVENT record per
 * fact"). */
static bool ia64_fact_in_trace(const ia64_model_t *im, uint32_t es, uint32_t umask)
{
    const uint32_t key = (es & 0xff) << 4 | (umask & 0xf);
    for (uint32_t f = 1; f < IA64_NFACTS; f++) {
        const ia64_fact_t *fa = &im->d->facts[f];
        bool in = false;
        for (unsigned k = 0; k < fa->nkeys; k++)
            in |= fa->keys[k] == key;
        if (in && (((im->fact_seen >> f) & 1) ||
                   pmusim_declared_events_has(im->base.trace_events, IA64_FACT_CODE, f)))
            return true;
    }
    return false;
}

/* res->source: what drives counter (t, i) as programmed at the end;
 * res->status NOT_IN_TRACE when the trace cannot hold it: an EVENT-only
 * event with no EVENT record of its es and umask, the I-EAR event with no
 * EVENT record es 0x43 (either not listed in the header's "events" key; an
 * event that model fact records count is there when one of its facts is), or
 * fields whose annotation the header lacks.  A
 * threshold on an absent source is absent too (docs/trace-events-ia64.md). */
static void ia64_counter_source(const ia64_model_t *im, const ia64_ctr_t *c,
                                pmusim_counter_result_t *res)
{
    res->status = PMUSIM_COUNT_OK;
    if (c->src == IA64_SRC_EVENT) {
        res->from_events = TRUE;
        g_snprintf(res->source, sizeof res->source, "EVENT records es 0x%02x umask 0x%x", c->es,
                   c->umask);
        if (!ia64_ev_seen(im, c->es, c->umask) &&
            !pmusim_declared_events_has(im->base.trace_events, c->es, c->umask) &&
            !ia64_fact_in_trace(im, c->es, c->umask))
            res->status = PMUSIM_COUNT_NOT_IN_TRACE;
        return;
    }
    bool absent = false;
    if (c->src == IA64_SRC_IEAR_EVENT &&
        !pmusim_declared_events_has(im->base.trace_events, 0x43, PMUSIM_EVENT_ANY_UMASK)) {
        absent = true;
        for (uint32_t u = 0; u < 16; u++)
            if (ia64_ev_seen(im, 0x43, u))
                absent = false;
    }
    const char *phrase = ia64_src_phrase[c->src];
    uint32_t missing = ia64_src_needs[c->src] & ~im->base.trace_annotations;
    GString *g = g_string_new(phrase);
    if (absent)
        g_string_append(g, "; the trace has none");
    if (missing) {
        g_string_append(g, "; the trace lacks");
        for (uint32_t b = 0; b < PMUSIM_ANN_COUNT_; b++)
            if ((missing >> b) & 1)
                g_string_append_printf(g, " %s", pmusim_annotation_name(1u << b));
    }
    g_strlcpy(res->source, g->str, sizeof res->source);
    g_string_free(g, TRUE);
    if (absent || missing)
        res->status = PMUSIM_COUNT_NOT_IN_TRACE;
}

void ia64_report(pmusim_model_t *m, pmusim_report_t *r)
{
    ia64_model_t *im = ia64_model(m);
    ia64_unsuspend(im);
    const ia64_desc_t *d = im->d;
    for (uint32_t t = 0; t < m->nthreads; t++) {
        for (uint32_t i = d->nctr_first; i <= d->nctr_last; i++) {
            const ia64_ctr_t *c = &im->th[t].ctr[i];
            pmusim_counter_result_t res;
            memset(&res, 0, sizeof res);
            g_snprintf(res.reg, sizeof res.reg, "PMD%u", i);
            if (im->th[t].label[i][0]) {
                g_strlcpy(res.event, im->th[t].label[i], sizeof res.event);
            } else if (c->programmed) {
                const ia64_event_info_t *ev = ia64_event_find(d, c->es, c->umask);
                if (ev)
                    g_strlcpy(res.event, ev->name, sizeof res.event);
                else
                    g_snprintf(res.event, sizeof res.event, "es=0x%02x umask=0x%x", c->es, c->umask);
            }
            res.thread = t;
            res.value = ia64_ctr_read(im, t, i) & IA64_CTR_MASK;
            res.overflows = c->overflows;
            res.enabled = c->programmed && c->enabled;
            /* Montecito: a causal event or one with .all set counts the core's
             * occurrences on every thread's counter (ref §12) */
            res.per_core = d->mont && m->nthreads > 1 && (c->all || c->caf == IA64_CAF_CAUSAL);
            if (c->programmed)
                ia64_counter_source(im, c, &res);
            g_array_append_val(r->counters, res);
        }
    }
    ia64_capture_report(im, r);
    for (guint i = 0; i < m->diags->len; i++)
        g_ptr_array_add(r->diags, g_strdup(g_ptr_array_index(m->diags, i)));
    g_array_append_vals(r->log, m->log->data, m->log->len);
    r->log_dropped = m->log_dropped;
    r->cycles = im->finished ? im->end : im->now;
    r->records = im->records;
}

/* The handler decides whether the hot path tracks each thread's last IP
 * (for pmi_ip): recompile the routing when it changes. */
static void ia64_pmi_handler_changed(pmusim_model_t *m)
{
    ia64_unsuspend((ia64_model_t *)m);
    ia64_route_rebuild((ia64_model_t *)m);
}

static pmusim_model_t *ia64_create_ita2(uint32_t nthreads, GError **error)
{
    return ia64_model_create(&ia64_desc_ita2, nthreads, error);
}

static pmusim_model_t *ia64_create_mont(uint32_t nthreads, GError **error)
{
    return ia64_model_create(&ia64_desc_mont, nthreads, error);
}

const pmusim_model_ops_t pmusim_model_ita2 = {
    .name = "ita2",
    .isa = PMUSIM_ISA_IA64,
    .cpu = PMUSIM_CPU_ITA2,
    .max_threads = 1,
    .create = ia64_create_ita2,
    .destroy = ia64_model_destroy,
    .write_reg = ia64_write_reg,
    .read_reg = ia64_read_reg,
    .consume = ia64_consume,
    .finish = ia64_finish,
    .report = ia64_report,
    .event_source = ia64_event_source_ita2,
    .describe_reg = ia64_describe_reg_ita2,
    .pmi_handler_changed = ia64_pmi_handler_changed,
    .observe_cycles = ia64_observe_cycles,
};

const pmusim_model_ops_t pmusim_model_mont = {
    .name = "mont",
    .isa = PMUSIM_ISA_IA64,
    .cpu = PMUSIM_CPU_MONT,
    .max_threads = 2,
    .create = ia64_create_mont,
    .destroy = ia64_model_destroy,
    .write_reg = ia64_write_reg,
    .read_reg = ia64_read_reg,
    .consume = ia64_consume,
    .finish = ia64_finish,
    .report = ia64_report,
    .event_source = ia64_event_source_mont,
    .describe_reg = ia64_describe_reg_mont,
    .pmi_handler_changed = ia64_pmi_handler_changed,
    .observe_cycles = ia64_observe_cycles,
};
