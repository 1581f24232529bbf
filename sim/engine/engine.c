/* The simulation engine: model registry, register-write application and the
 * replay loop.  The engine knows a PMU only through pmusim_model_ops_t; it
 * pulls record batches from a trace reader and hands them to the model. */
#include "pmusim/sim.h"

#include <stdarg.h>
#include <string.h>

G_DEFINE_QUARK(pmusim-sim-error-quark, pmusim_sim_error)

/* Records per batch: large enough to amortise the reader and model calls,
 * small enough (256 x 104 bytes) that the batch the reader just wrote is
 * still in the L1 data cache when the model reads it (docs/PERFORMANCE.md). */
#define REPLAY_BATCH 256u
/* Diagnostics kept per model; beyond this they are counted, not stored. */
#define DIAG_MAX 1000u

static const pmusim_model_ops_t *const models[] = {
    &pmusim_model_ita2, &pmusim_model_mont, &pmusim_model_wsm,
    &pmusim_model_wsm_dp, &pmusim_model_knm, NULL,
};

const pmusim_model_ops_t *const *pmusim_model_list(void)
{
    return models;
}

const pmusim_model_ops_t *pmusim_model_find(const char *name)
{
    if (!name)
        return NULL;
    for (size_t i = 0; models[i]; i++)
        if (g_ascii_strcasecmp(models[i]->name, name) == 0)
            return models[i];
    return NULL;
}

void pmusim_model_base_init(pmusim_model_t *m, const pmusim_model_ops_t *ops, uint32_t nthreads)
{
    memset(m, 0, sizeof *m);
    m->ops = ops;
    m->nthreads = nthreads;
    m->trace_annotations = PMUSIM_ANN_ALL;
    m->diags = g_ptr_array_new_with_free_func(g_free);
    m->notes = g_ptr_array_new_with_free_func(g_free);
    m->log = g_array_new(FALSE, TRUE, sizeof(pmusim_sim_event_t));
}

void pmusim_model_base_clear(pmusim_model_t *m)
{
    if (m->diags)
        g_ptr_array_free(m->diags, TRUE);
    if (m->notes)
        g_ptr_array_free(m->notes, TRUE);
    m->notes = NULL;
    if (m->log)
        g_array_free(m->log, TRUE);
    m->diags = NULL;
    m->log = NULL;
}

void pmusim_model_note(pmusim_model_t *m, const char *fmt, ...)
{
    if (m->notes->len >= DIAG_MAX)
        return;
    va_list ap;
    va_start(ap, fmt);
    char *s = g_strdup_vprintf(fmt, ap);
    va_end(ap);
    for (guint i = 0; i < m->notes->len; i++)
        if (strcmp(g_ptr_array_index(m->notes, i), s) == 0) {
            g_free(s); /* the same fix-up on every thread is one note */
            return;
        }
    g_ptr_array_add(m->notes, s);
}

void pmusim_model_diag(pmusim_model_t *m, const char *fmt, ...)
{
    if (m->diags->len >= DIAG_MAX) {
        if (m->diags->len == DIAG_MAX)
            g_ptr_array_add(m->diags, g_strdup("further diagnostics suppressed"));
        return;
    }
    va_list ap;
    va_start(ap, fmt);
    g_ptr_array_add(m->diags, g_strdup_vprintf(fmt, ap));
    va_end(ap);
}

void pmusim_model_log(pmusim_model_t *m, uint64_t cycle, uint32_t thread, const char *fmt, ...)
{
    if (m->log->len >= PMUSIM_LOG_MAX) {
        m->log_dropped++;
        return;
    }
    pmusim_sim_event_t ev = {.cycle = cycle, .thread = thread};
    va_list ap;
    va_start(ap, fmt);
    g_vsnprintf(ev.what, sizeof ev.what, fmt, ap);
    va_end(ap);
    g_array_append_val(m->log, ev);
}

void pmusim_model_pmi(pmusim_model_t *m, uint64_t cycle, uint32_t thread)
{
    m->pmi_count++;
    pmusim_model_log(m, cycle, thread, "interrupt");
    if (m->pmi_handler)
        m->pmi_handler(m, cycle, thread, m->pmi_user);
}

void pmusim_model_set_pmi_handler(pmusim_model_t *m, pmusim_pmi_handler_fn fn, void *user)
{
    m->pmi_handler = fn;
    m->pmi_user = user;
    if (m->ops->pmi_handler_changed)
        m->ops->pmi_handler_changed(m);
}

gboolean pmusim_model_set_ref_ratio(pmusim_model_t *m, uint32_t num, uint32_t den, GError **error)
{
    if (!m->ops->set_ref_ratio) {
        g_set_error(error, PMUSIM_SIM_ERROR, PMUSIM_SIM_ERROR_MISMATCH,
                    "model %s has no reference clock ratio", m->ops->name);
        return FALSE;
    }
    if (num == 0 || den == 0) {
        g_set_error(error, PMUSIM_SIM_ERROR, PMUSIM_SIM_ERROR_MISMATCH,
                    "reference clock ratio %u/%u: both terms must be at least 1", num, den);
        return FALSE;
    }
    m->ops->set_ref_ratio(m, num, den);
    return TRUE;
}

pmusim_model_t *pmusim_model_new(const char *name, uint32_t nthreads, GError **error)
{
    const pmusim_model_ops_t *ops = pmusim_model_find(name);
    if (!ops || !ops->create) {
        g_set_error(error, PMUSIM_SIM_ERROR, PMUSIM_SIM_ERROR_NO_MODEL,
                    "no PMU model named '%s' (known: ita2, mont, wsm, wsm_dp, knm)",
                    name ? name : "(null)");
        return NULL;
    }
    if (nthreads == 0 || nthreads > ops->max_threads) {
        g_set_error(error, PMUSIM_SIM_ERROR, PMUSIM_SIM_ERROR_MISMATCH,
                    "model %s supports 1..%u hardware threads, not %u", ops->name,
                    ops->max_threads, nthreads);
        return NULL;
    }
    return ops->create(nthreads, error);
}

void pmusim_model_free(pmusim_model_t *m)
{
    if (m)
        m->ops->destroy(m);
}

gboolean pmusim_model_write_regs(pmusim_model_t *m, const GArray *regs, GError **error)
{
    for (guint i = 0; i < regs->len; i++) {
        pmusim_regwrite_t w = g_array_index(regs, pmusim_regwrite_t, i);
        uint32_t first = w.thread, last = w.thread;
        if (w.thread == PMUSIM_THREAD_ALL) {
            first = 0;
            last = m->nthreads - 1;
        } else if (w.thread >= m->nthreads) {
            g_set_error(error, PMUSIM_SIM_ERROR, PMUSIM_SIM_ERROR_REG,
                        "write #%u (%s%u): thread %u does not exist (the model has %u)", i + 1,
                        pmusim_regspace_name(w.space), w.num, w.thread, m->nthreads);
            return FALSE;
        }
        for (uint32_t t = first; t <= last; t++) {
            w.thread = t;
            GError *e = NULL;
            if (!m->ops->write_reg(m, &w, &e)) {
                g_set_error(error, PMUSIM_SIM_ERROR, e ? e->code : PMUSIM_SIM_ERROR_REG,
                            "write #%u (%s 0x%x = 0x%" G_GINT64_MODIFIER "x, thread %u): %s",
                            i + 1, pmusim_regspace_name(w.space), w.num, (guint64)w.value, t,
                            e ? e->message : "refused");
                g_clear_error(&e);
                return FALSE;
            }
        }
    }
    return TRUE;
}

gboolean pmusim_replay(pmusim_model_t *m, pmusim_trace_reader_t *r, pmusim_progress_fn progress,
                       void *user, GError **error)
{
    const pmusim_trace_header_t *h = pmusim_trace_reader_header(r);
    if (h->isa != m->ops->isa) {
        g_set_error(error, PMUSIM_SIM_ERROR, PMUSIM_SIM_ERROR_MISMATCH,
                    "trace is for %s (%s) but the %s model is %s", pmusim_isa_name(h->isa),
                    pmusim_cpu_name(h->cpu), m->ops->name, pmusim_isa_name(m->ops->isa));
        return FALSE;
    }
    if (h->nthreads > m->nthreads) {
        g_set_error(error, PMUSIM_SIM_ERROR, PMUSIM_SIM_ERROR_MISMATCH,
                    "trace has %u hardware threads but the model was built with %u",
                    h->nthreads, m->nthreads);
        return FALSE;
    }
    m->trace_annotations = pmusim_trace_header_annotations(h);
    pmusim_rec_t *batch = g_new(pmusim_rec_t, REPLAY_BATCH);
    uint64_t total = 0, next_progress = 1u << 24;
    gboolean ok = TRUE;
    for (;;) {
        gssize n = pmusim_trace_reader_next_batch(r, batch, REPLAY_BATCH, error);
        if (n < 0) {
            ok = FALSE;
            break;
        }
        if (n == 0)
            break;
        m->ops->consume(m, batch, (size_t)n);
        total += (uint64_t)n;
        if (progress && total >= next_progress) {
            progress(total, user);
            next_progress = total + (1u << 24);
        }
    }
    g_free(batch);
    if (ok)
        m->ops->finish(m);
    if (progress)
        progress(total, user);
    return ok;
}
