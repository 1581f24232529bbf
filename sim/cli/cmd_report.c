/* pmusim report: read a perf.data file written by `pmusim record -o` and
 * print, per event and symbol, perf report's overhead and sample count, the
 * sampled estimate (the sum of the samples' periods), the exact count of
 * the ground-truth replay record stored in the file, and the estimate's
 * error.  No trace is needed: record stores the trace's symbols and the
 * exact counts in its private section (docs/SAMPLING.md "pmusim report"). */
#include "cmds.h"
#include "../perfdata/perfdata.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct report_row {
    char *symbol;
    uint64_t samples, estimate;
} report_row_t;

static gint report_row_cmp(gconstpointer a, gconstpointer b)
{
    const report_row_t *x = a, *y = b;
    if (x->samples != y->samples)
        return x->samples > y->samples ? -1 : 1;
    return strcmp(x->symbol, y->symbol);
}

/* The truth section's exact count of (event id, symbol), or -1 when the
 * file has none. */
typedef struct report_truth {
    GHashTable *exact; /* "id\tsymbol" -> uint64_t* */
    GHashTable *total; /* "id" -> uint64_t* */
    char *missing;     /* why there is no truth, or NULL */
} report_truth_t;

static void report_truth_load(report_truth_t *t, const pd_file_t *f)
{
    t->exact = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
    t->total = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
    t->missing = NULL;
    if (!f->truth->len) {
        t->missing =
            g_strdup("the file has no pmusim truth section (not written by pmusim record)");
        return;
    }
    char **lines = g_strsplit(f->truth->str, "\n", -1);
    for (char **l = lines; *l; l++) {
        char **fld = g_strsplit(*l, "\t", 4);
        guint n = g_strv_length(fld);
        uint64_t *v = g_new(uint64_t, 1);
        if (n == 4 && strcmp(fld[0], "exact") == 0) {
            *v = g_ascii_strtoull(fld[3], NULL, 10);
            g_hash_table_replace(t->exact, g_strconcat(fld[1], "\t", fld[2], NULL), v);
        } else if (n == 3 && strcmp(fld[0], "total") == 0) {
            *v = g_ascii_strtoull(fld[2], NULL, 10);
            g_hash_table_replace(t->total, g_strdup(fld[1]), v);
        } else {
            g_free(v);
            if (n == 2 && strcmp(fld[0], "no-truth") == 0 && !t->missing)
                t->missing = g_strdup(fld[1]);
        }
        g_strfreev(fld);
    }
    g_strfreev(lines);
}

static void report_truth_clear(report_truth_t *t)
{
    if (t->exact)
        g_hash_table_destroy(t->exact);
    if (t->total)
        g_hash_table_destroy(t->total);
    g_free(t->missing);
}

static gboolean report_truth_get(const report_truth_t *t, uint64_t id, const char *symbol,
                                 uint64_t *out)
{
    if (t->missing)
        return FALSE;
    char *key = symbol ? g_strdup_printf("%" G_GUINT64_FORMAT "\t%s", (guint64)id, symbol)
                       : g_strdup_printf("%" G_GUINT64_FORMAT, (guint64)id);
    const uint64_t *v = g_hash_table_lookup(symbol ? t->exact : t->total, key);
    g_free(key);
    *out = v ? *v : 0;
    return TRUE;
}

static gboolean report_has_row(const GArray *rows, const char *name)
{
    for (guint i = 0; i < rows->len; i++)
        if (strcmp(g_array_index(rows, report_row_t, i).symbol, name) == 0)
            return TRUE;
    return FALSE;
}

static gint report_exact_cmp(gconstpointer a, gconstpointer b, gpointer user)
{
    const report_truth_t *t = ((gpointer *)user)[0];
    uint64_t id = *(const uint64_t *)((gpointer *)user)[1], ex = 0, ey = 0;
    const char *x = *(const char *const *)a, *y = *(const char *const *)b;
    report_truth_get(t, id, x, &ex);
    report_truth_get(t, id, y, &ey);
    return ex != ey ? (ex > ey ? -1 : 1) : strcmp(x, y);
}

static void report_event(const pd_file_t *f, const pd_event_t *e, const pd_symbols_t *syms,
                         const report_truth_t *truth)
{
    GHashTable *idx = g_hash_table_new(g_str_hash, g_str_equal);
    GArray *rows = g_array_new(FALSE, TRUE, sizeof(report_row_t));
    uint64_t nsamples = 0, estimate = 0;
    for (guint i = 0; i < f->samples->len; i++) {
        const pd_sample_t *s = &g_array_index(f->samples, pd_sample_t, i);
        if (s->id != e->id)
            continue;
        nsamples++;
        estimate += s->period;
        const pd_symbol_t *y = pd_symbol_find(syms, s->ip);
        char ipname[32];
        g_snprintf(ipname, sizeof ipname, "[0x%016" G_GINT64_MODIFIER "x]", (guint64)s->ip);
        /* record's rows: the symbol, or the IP outside every symbol */
        const char *name = y ? y->name : ipname;
        gpointer at;
        if (g_hash_table_lookup_extended(idx, name, NULL, &at)) {
            report_row_t *r = &g_array_index(rows, report_row_t, GPOINTER_TO_UINT(at));
            r->samples++;
            r->estimate += s->period;
        } else {
            report_row_t r = {g_strdup(name), 1, s->period};
            g_array_append_val(rows, r);
            g_hash_table_insert(idx, r.symbol, GUINT_TO_POINTER(rows->len - 1));
        }
    }
    g_hash_table_destroy(idx);
    g_array_sort(rows, report_row_cmp);
    uint64_t total;
    printf("# Samples: %" G_GUINT64_FORMAT " of event '%s'\n", (guint64)nsamples, e->name);
    printf("# Event count (estimate): %" G_GUINT64_FORMAT, (guint64)estimate);
    if (report_truth_get(truth, e->id, NULL, &total)) {
        char err[32];
        pd_error_text(estimate, total, err, sizeof err);
        printf(", exact %" G_GUINT64_FORMAT ", error %s", (guint64)total, err);
    }
    printf("\n#\n# Overhead  Samples  %12s  %12s  %8s  Symbol\n", "Estimate", "Exact", "Error");
    for (guint i = 0; i < rows->len; i++) {
        const report_row_t *r = &g_array_index(rows, report_row_t, i);
        uint64_t exact;
        char ex[24] = "-", err[32] = "-";
        if (report_truth_get(truth, e->id, r->symbol, &exact)) {
            g_snprintf(ex, sizeof ex, "%" G_GUINT64_FORMAT, (guint64)exact);
            pd_error_text(r->estimate, exact, err, sizeof err);
        }
        printf("%9.2f%%  %7" G_GUINT64_FORMAT "  %12" G_GUINT64_FORMAT "  %12s  %8s  %s\n",
               100.0 * (double)r->samples / (double)nsamples, (guint64)r->samples,
               (guint64)r->estimate, ex, err, r->symbol);
    }
    if (!truth->missing) {
        /* rows the truth knows and no sample hit, most counted first */
        GPtrArray *miss = g_ptr_array_new_with_free_func(g_free);
        char *prefix = g_strdup_printf("%" G_GUINT64_FORMAT "\t", (guint64)e->id);
        GHashTableIter it;
        gpointer key, val;
        g_hash_table_iter_init(&it, truth->exact);
        while (g_hash_table_iter_next(&it, &key, &val)) {
            const char *name = (const char *)key + strlen(prefix);
            if (g_str_has_prefix(key, prefix) && *(const uint64_t *)val &&
                !report_has_row(rows, name))
                g_ptr_array_add(miss, g_strdup(name));
        }
        uint64_t id = e->id;
        gpointer ctx[2] = {(gpointer)truth, &id};
        g_ptr_array_sort_with_data(miss, report_exact_cmp, ctx);
        for (guint i = 0; i < miss->len; i++) {
            const char *name = g_ptr_array_index(miss, i);
            uint64_t exact = 0;
            report_truth_get(truth, e->id, name, &exact);
            printf("%9.2f%%  %7d  %12d  %12" G_GUINT64_FORMAT "  %8s  %s\n", 0.0, 0, 0,
                   (guint64)exact, "-100.00%", name);
        }
        g_free(prefix);
        g_ptr_array_free(miss, TRUE);
    }
    for (guint i = 0; i < rows->len; i++)
        g_free(g_array_index(rows, report_row_t, i).symbol);
    g_array_free(rows, TRUE);
    printf("#\n");
}

int pmusim_cmd_report(int argc, char **argv)
{
    pd_file_t f = {0};
    pd_symbols_t syms = {0};
    report_truth_t truth = {0};
    int status = pmusim_cli_perf_open(
        argc, argv, "report",
        "Read a perf.data file written by 'pmusim record -o' and print, for every event\n"
        "and symbol, the samples, the estimate (sum of their periods), the exact count of\n"
        "the trace (the ground-truth replay record stores in the file) and the error.",
        &f, &syms);
    if (status)
        goto out;
    report_truth_load(&truth, &f);
    printf("# pmusim report: %s, %u event%s, %u samples\n#\n", argv[argc - 1], f.events->len,
           f.events->len == 1 ? "" : "s", f.samples->len);
    for (guint k = 0; k < f.events->len; k++)
        report_event(&f, &g_array_index(f.events, pd_event_t, k), &syms, &truth);
    if (truth.missing)
        printf("# exact counts not available: %s\n", truth.missing);
    if (fflush(stdout) != 0 || ferror(stdout)) {
        fprintf(stderr, "pmusim: writing stdout failed\n");
        status = 1;
    }
out:
    report_truth_clear(&truth);
    pd_symbols_clear(&syms);
    pd_file_clear(&f);
    return status;
}
