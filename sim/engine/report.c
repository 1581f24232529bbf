/* The result container every model fills. */
#include "pmusim/sim.h"

void pmusim_report_init(pmusim_report_t *r)
{
    r->counters = g_array_new(FALSE, TRUE, sizeof(pmusim_counter_result_t));
    r->log = g_array_new(FALSE, TRUE, sizeof(pmusim_sim_event_t));
    r->log_dropped = 0;
    r->captures = g_ptr_array_new_with_free_func(g_free);
    r->diags = g_ptr_array_new_with_free_func(g_free);
    r->notes = g_ptr_array_new_with_free_func(g_free);
    r->cycles = 0;
    r->records = 0;
}

void pmusim_report_clear(pmusim_report_t *r)
{
    if (r->counters)
        g_array_free(r->counters, TRUE);
    if (r->log)
        g_array_free(r->log, TRUE);
    if (r->captures)
        g_ptr_array_free(r->captures, TRUE);
    if (r->diags)
        g_ptr_array_free(r->diags, TRUE);
    if (r->notes)
        g_ptr_array_free(r->notes, TRUE);
    r->notes = NULL;
    r->counters = NULL;
    r->log = NULL;
    r->captures = NULL;
    r->diags = NULL;
}

void pmusim_model_collect(pmusim_model_t *m, pmusim_report_t *r)
{
    m->ops->report(m, r);
    if (r->diags->len == 0)
        for (guint i = 0; i < m->diags->len; i++)
            g_ptr_array_add(r->diags, g_strdup(g_ptr_array_index(m->diags, i)));
    if (r->notes->len == 0)
        for (guint i = 0; i < m->notes->len; i++)
            g_ptr_array_add(r->notes, g_strdup(g_ptr_array_index(m->notes, i)));
    if (r->log->len == 0) {
        g_array_append_vals(r->log, m->log->data, m->log->len);
        r->log_dropped = m->log_dropped;
    }
}
