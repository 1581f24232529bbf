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

void pmusim_model_set_trace_header(pmusim_model_t *m, const pmusim_trace_header_t *h)
{
    m->trace_annotations = pmusim_trace_header_annotations(h);
    if (m->trace_events)
        g_array_free(m->trace_events, TRUE);
    m->trace_events = pmusim_trace_header_declared_events(h);
    if (m->trace_evsum)
        g_array_free(m->trace_evsum, TRUE);
    m->trace_evsum = pmusim_trace_header_summed_events(h);
    if (m->trace_evspan)
        g_array_free(m->trace_evspan, TRUE);
    m->trace_evspan = pmusim_trace_header_span_events(h);
    m->trace_header_sets++;
}

void pmusim_model_base_clear(pmusim_model_t *m)
{
    if (m->trace_events)
        g_array_free(m->trace_events, TRUE);
    m->trace_events = NULL;
    if (m->trace_evsum)
        g_array_free(m->trace_evsum, TRUE);
    m->trace_evsum = NULL;
    if (m->trace_evspan)
        g_array_free(m->trace_evspan, TRUE);
    m->trace_evspan = NULL;
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

/* Applies write i of regs (PMUSIM_THREAD_ALL expanded). */
static gboolean apply_write(pmusim_model_t *m, const GArray *regs, guint i, GError **error)
{
    {
        pmusim_regwrite_t w = g_array_index(regs, pmusim_regwrite_t, i);
        uint32_t first = w.thread, last = w.thread;
        if (w.thread == PMUSIM_THREAD_ALL) {
            first = 0;
            last = m->nthreads - 1;
        } else if (w.thread >= m->nthreads) {
            g_set_error(error, PMUSIM_SIM_ERROR, PMUSIM_SIM_ERROR_REG,
                        "write #%u (%s 0x%x): thread %u does not exist (the model has %u)", i + 1,
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

gboolean pmusim_model_write_regs(pmusim_model_t *m, const GArray *regs, GError **error)
{
    for (guint i = 0; i < regs->len; i++) {
        const pmusim_regwrite_t *w = &g_array_index(regs, pmusim_regwrite_t, i);
        if (w->at_cycle) {
            /* applying it now would count what the user meant to exclude */
            g_set_error(error, PMUSIM_SIM_ERROR, PMUSIM_SIM_ERROR_REG,
                        "write #%u (%s 0x%x) is timed (@cycle %" G_GUINT64_FORMAT
                        "): only 'pmusim stat' applies timed writes",
                        i + 1, pmusim_regspace_name(w->space), w->num, (guint64)w->at_cycle);
            return FALSE;
        }
        if (!apply_write(m, regs, i, error))
            return FALSE;
    }
    return TRUE;
}

static gboolean replay_check(pmusim_model_t *m, const pmusim_trace_header_t *h, GError **error)
{
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
    pmusim_model_set_trace_header(m, h);
    return TRUE;
}

static void consume_all(pmusim_model_t *const *ms, size_t nmodels, const pmusim_rec_t *recs,
                        size_t n)
{
    if (n)
        for (size_t k = 0; k < nmodels; k++)
            ms[k]->ops->consume(ms[k], recs, n);
}

/* Brings every model to the start of cycle `stop` before a stop's callback
 * reads or writes registers: models count lazily and close a cycle only when
 * a record of a later cycle arrives, so they are given a nameless MARKER
 * record at `stop` (models count nothing for markers). */
static void reach(pmusim_model_t *const *ms, size_t nmodels, uint64_t stop)
{
    pmusim_rec_t mark = {.cycle = stop, .kind = PMUSIM_REC_MARKER, .name = ""};
    consume_all(ms, nmodels, &mark, 1);
}

/* Index of the first record of recs[0..n) at or after `stop` (records are in
 * cycle order): a binary search, so stops cost nothing per record. */
static size_t first_at(const pmusim_rec_t *recs, size_t n, uint64_t stop)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (recs[mid].cycle < stop)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

gboolean pmusim_replay_stops_multi(pmusim_model_t *const *ms, size_t nmodels,
                                   pmusim_trace_reader_t *r, uint64_t first, pmusim_stop_fn fn,
                                   void *user, pmusim_progress_fn progress, void *puser,
                                   GError **error)
{
    const pmusim_trace_header_t *h = pmusim_trace_reader_header(r);
    for (size_t k = 0; k < nmodels; k++)
        if (!replay_check(ms[k], h, error))
            return FALSE;
    pmusim_rec_t *batch = g_new(pmusim_rec_t, REPLAY_BATCH);
    uint64_t total = 0, next_progress = 1u << 24, stop = fn ? first : G_MAXUINT64;
    gboolean ok = TRUE;
    while (ok) {
        gssize got = pmusim_trace_reader_next_batch(r, batch, REPLAY_BATCH, error);
        if (got < 0) {
            ok = FALSE;
            break;
        }
        if (got == 0)
            break;
        size_t n = (size_t)got, done = 0;
        while (ok && done < n) {
            size_t upto = stop == G_MAXUINT64 ? n : done + first_at(batch + done, n - done, stop);
            /* an IDLE before the stop that reaches past it is cut in two at the stop */
            pmusim_rec_t *last = upto > done ? &batch[upto - 1] : NULL;
            pmusim_rec_t tail;
            gboolean split = last && last->kind == PMUSIM_REC_IDLE && stop != G_MAXUINT64 &&
                             last->n > stop - last->cycle;
            if (split) {
                tail = *last;
                tail.cycle = stop;
                tail.n = last->n - (stop - last->cycle);
                last->n = stop - last->cycle;
            }
            consume_all(ms, nmodels, batch + done, upto - done);
            done = upto;
            if (done == n && !split)
                break; /* the stop lies in a later batch */
            uint64_t next = G_MAXUINT64;
            reach(ms, nmodels, stop);
            ok = fn(ms[0], stop, &next, user, error);
            if (ok && next <= stop) {
                g_set_error(error, PMUSIM_SIM_ERROR, PMUSIM_SIM_ERROR_REG,
                            "internal: stop at cycle %" G_GUINT64_FORMAT " asked for cycle %"
                            G_GUINT64_FORMAT, (guint64)stop, (guint64)next);
                ok = FALSE;
            }
            stop = next;
            if (ok && split) {
                /* the rest of the IDLE may cross further stops: replay it as a batch of one */
                while (ok && stop != G_MAXUINT64 && tail.n > stop - tail.cycle) {
                    pmusim_rec_t head = tail;
                    head.n = stop - tail.cycle;
                    consume_all(ms, nmodels, &head, 1);
                    tail.n -= head.n;
                    tail.cycle = stop;
                    next = G_MAXUINT64;
                    reach(ms, nmodels, stop);
                    ok = fn(ms[0], stop, &next, user, error);
                    stop = ok && next > stop ? next : G_MAXUINT64;
                }
                if (ok)
                    consume_all(ms, nmodels, &tail, 1);
            }
        }
        total += (uint64_t)n;
        if (progress && total >= next_progress) {
            progress(total, puser);
            next_progress = total + (1u << 24);
        }
    }
    g_free(batch);
    if (ok)
        for (size_t k = 0; k < nmodels; k++)
            ms[k]->ops->finish(ms[k]);
    if (progress)
        progress(total, puser);
    return ok;
}

gboolean pmusim_replay_stops(pmusim_model_t *m, pmusim_trace_reader_t *r, uint64_t first,
                             pmusim_stop_fn fn, void *user, pmusim_progress_fn progress,
                             void *puser, GError **error)
{
    return pmusim_replay_stops_multi(&m, 1, r, first, fn, user, progress, puser, error);
}

gboolean pmusim_replay(pmusim_model_t *m, pmusim_trace_reader_t *r, pmusim_progress_fn progress,
                       void *user, GError **error)
{
    return pmusim_replay_stops(m, r, G_MAXUINT64, NULL, NULL, progress, user, error);
}

/* Timed writes: the stop callback applies the writes of one cycle. */
typedef struct {
    const GArray *regs;
    GArray *order; /* guint indices of timed writes, by cycle then list order */
    guint next;
    pmusim_stop_fn extra; /* the caller's own stops (stat -I), or NULL */
    void *extra_user;
    uint64_t extra_next;
} timed_state_t;

static gint cmp_timed(gconstpointer a, gconstpointer b, gpointer user)
{
    const GArray *regs = user;
    guint ia = *(const guint *)a, ib = *(const guint *)b;
    uint64_t ca = g_array_index(regs, pmusim_regwrite_t, ia).at_cycle;
    uint64_t cb = g_array_index(regs, pmusim_regwrite_t, ib).at_cycle;
    if (ca != cb)
        return ca < cb ? -1 : 1;
    return ia < ib ? -1 : ia > ib;
}

static uint64_t timed_next(const timed_state_t *st)
{
    return st->next < st->order->len
               ? g_array_index(st->regs, pmusim_regwrite_t,
                               g_array_index(st->order, guint, st->next)).at_cycle
               : G_MAXUINT64;
}

static gboolean timed_stop(pmusim_model_t *m, uint64_t cycle, uint64_t *next, void *user,
                           GError **error)
{
    timed_state_t *st = user;
    /* the caller's stop first: it sees cycles < `cycle` counted with the
     * registers as they were, before this cycle's writes */
    if (st->extra && st->extra_next == cycle) {
        uint64_t n = G_MAXUINT64;
        if (!st->extra(m, cycle, &n, st->extra_user, error))
            return FALSE;
        st->extra_next = n;
    }
    while (st->next < st->order->len) {
        guint i = g_array_index(st->order, guint, st->next);
        if (g_array_index(st->regs, pmusim_regwrite_t, i).at_cycle > cycle)
            break;
        if (!apply_write(m, st->regs, i, error)) {
            g_prefix_error(error, "at cycle %" G_GUINT64_FORMAT ": ", (guint64)cycle);
            return FALSE;
        }
        st->next++;
    }
    *next = MIN(timed_next(st), st->extra ? st->extra_next : G_MAXUINT64);
    return TRUE;
}

gboolean pmusim_replay_timed(pmusim_model_t *m, pmusim_trace_reader_t *r, const GArray *regs,
                             pmusim_progress_fn progress, void *user, GError **error)
{
    return pmusim_replay_timed_stops(m, r, regs, G_MAXUINT64, NULL, NULL, progress, user, error);
}

gboolean pmusim_replay_timed_stops(pmusim_model_t *m, pmusim_trace_reader_t *r,
                                   const GArray *regs, uint64_t first, pmusim_stop_fn fn,
                                   void *fn_user, pmusim_progress_fn progress, void *user,
                                   GError **error)
{
    timed_state_t st = {.regs = regs, .order = g_array_new(FALSE, FALSE, sizeof(guint)),
                        .extra = fn, .extra_user = fn_user, .extra_next = fn ? first : G_MAXUINT64};
    gboolean ok = TRUE;
    for (guint i = 0; ok && i < regs->len; i++) {
        if (g_array_index(regs, pmusim_regwrite_t, i).at_cycle)
            g_array_append_val(st.order, i);
        else
            ok = apply_write(m, regs, i, error);
    }
    if (ok) {
        g_array_sort_with_data(st.order, cmp_timed, (gpointer)regs);
        uint64_t start = MIN(timed_next(&st), st.extra_next);
        ok = pmusim_replay_stops(m, r, start, start != G_MAXUINT64 ? timed_stop : NULL, &st,
                                 progress, user, error);
    }
    g_array_free(st.order, TRUE);
    return ok;
}
