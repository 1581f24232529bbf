/* pmusim record: sample a trace through an OS front door (perfmon2-style on
 * IA-64, perf_event-style on x86; pmusim/frontdoor.h) and print the samples
 * and a perf-report-like summary by symbol. */
#include "cmds.h"
#include "enc_args.h"
#include "pmusim/frontdoor.h"
#include "pmusim/sim.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define RECORD_DEFAULT_PERIOD 10000u
#define RECORD_DEFAULT_TOP 10u

/* x86 MSRs that name a counter (SDM Vol. 3B §18.2). */
enum {
    MSR_PMC0 = 0x0c1,
    MSR_EVTSEL0 = 0x186,
    MSR_FIXED_CTR0 = 0x309,
    X86_GP_MAX = 8,
    X86_FIXED_MAX = 3,
};

/* A counter the events landed on. */
typedef struct rec_ctr {
    uint32_t reg; /* data register: PMD number / MSR */
    char label[PMUSIM_REG_LABEL_MAX];
} rec_ctr_t;

/* Data register programmed by a labelled write, or FALSE.  IA-64: PMCn and
 * PMDn of a counter (Itanium 2 4..7, Montecito 4..15) -> PMDn; x86:
 * IA32_PERFEVTSELi and IA32_PMCi -> IA32_PMCi, IA32_FIXED_CTRk -> itself
 * (IA32_FIXED_CTR_CTRL's label names several events). */
static gboolean counter_of_write(const pmusim_model_ops_t *ops, const pmusim_regwrite_t *w,
                                 uint32_t *reg)
{
    if (!w->label[0])
        return FALSE;
    if (ops->isa == PMUSIM_ISA_IA64) {
        uint32_t last = ops->cpu == PMUSIM_CPU_ITA2 ? 7u : 15u;
        if ((w->space == PMUSIM_REG_PMC || w->space == PMUSIM_REG_PMD) && w->num >= 4 &&
            w->num <= last) {
            *reg = w->num;
            return TRUE;
        }
        return FALSE;
    }
    if (w->space != PMUSIM_REG_MSR)
        return FALSE;
    if (w->num >= MSR_EVTSEL0 && w->num < MSR_EVTSEL0 + X86_GP_MAX) {
        *reg = MSR_PMC0 + (w->num - MSR_EVTSEL0);
        return TRUE;
    }
    if ((w->num >= MSR_PMC0 && w->num < MSR_PMC0 + X86_GP_MAX) ||
        (w->num >= MSR_FIXED_CTR0 && w->num < MSR_FIXED_CTR0 + X86_FIXED_MAX)) {
        *reg = w->num;
        return TRUE;
    }
    return FALSE;
}

/* The counters of the labelled writes, in first-programmed order. */
static GArray *find_counters(const pmusim_model_ops_t *ops, const GArray *regs)
{
    GArray *out = g_array_new(FALSE, TRUE, sizeof(rec_ctr_t));
    for (guint i = 0; i < regs->len; i++) {
        const pmusim_regwrite_t *w = &g_array_index(regs, pmusim_regwrite_t, i);
        uint32_t reg;
        if (!counter_of_write(ops, w, &reg))
            continue;
        guint j;
        for (j = 0; j < out->len; j++)
            if (g_array_index(out, rec_ctr_t, j).reg == reg)
                break;
        if (j < out->len)
            continue;
        rec_ctr_t c = {.reg = reg};
        g_strlcpy(c.label, w->label, sizeof c.label);
        g_array_append_val(out, c);
    }
    return out;
}

/* ---- symbols ---- */

static gint symbol_cmp(gconstpointer a, gconstpointer b)
{
    const pmusim_symbol_t *x = a, *y = b;
    return x->start < y->start ? -1 : x->start > y->start ? 1 : 0;
}

/* The symbol holding ip in `syms` (sorted by start), or NULL.  Ranges may
 * nest or overlap: the closest start at or below ip that contains it. */
static const pmusim_symbol_t *symbol_find(const GArray *syms, uint64_t ip)
{
    guint lo = 0, hi = syms->len;
    while (lo < hi) {
        guint mid = lo + (hi - lo) / 2;
        if (g_array_index(syms, pmusim_symbol_t, mid).start <= ip)
            lo = mid + 1;
        else
            hi = mid;
    }
    for (guint i = lo; i-- > 0;) {
        const pmusim_symbol_t *s = &g_array_index(syms, pmusim_symbol_t, i);
        if (ip < s->end)
            return s;
        if (lo - i > 64) /* bounded backward scan for overlapping ranges */
            break;
    }
    return NULL;
}

/* ---- output ---- */

/* "name+0xoff", "name" or "[unknown]" */
static void symbol_text(const GArray *syms, uint64_t ip, char *buf, size_t len)
{
    const pmusim_symbol_t *s = symbol_find(syms, ip);
    if (!s)
        g_strlcpy(buf, "[unknown]", len);
    else if (ip == s->start)
        g_strlcpy(buf, s->name, len);
    else
        g_snprintf(buf, len, "%s+0x%" G_GINT64_MODIFIER "x", s->name, (guint64)(ip - s->start));
}

static void print_samples(FILE *fp, const pmusim_frontdoor_t *fd, const GArray *syms)
{
    fprintf(fp, "#%15s %6s  %-18s  %-32s %s\n", "cycle", "thread", "ip", "symbol", "event");
    for (size_t i = 0, n = pmusim_frontdoor_n_samples(fd); i < n; i++) {
        const pmusim_sample_t *s = pmusim_frontdoor_sample(fd, i);
        char sym[160];
        symbol_text(syms, s->ip, sym, sizeof sym);
        fprintf(fp, "%16" G_GUINT64_FORMAT " %6u  0x%016" G_GINT64_MODIFIER "x  %-32s %s%s\n",
                (guint64)s->cycle, s->thread, (guint64)s->ip, sym,
                pmusim_frontdoor_counter_label(fd, s->counter),
                (s->flags & PMUSIM_SAMPLE_PEBS) ? " (PEBS)" : "");
    }
}

/* One row of the summary: a symbol, or an IP outside every symbol. */
typedef struct hist_row {
    const char *symbol; /* NULL: by ip */
    uint64_t ip;
    uint64_t samples;
} hist_row_t;

static gint hist_cmp(gconstpointer a, gconstpointer b)
{
    const hist_row_t *x = a, *y = b;
    if (x->samples != y->samples)
        return x->samples > y->samples ? -1 : 1;
    if (x->symbol && y->symbol)
        return strcmp(x->symbol, y->symbol);
    if (!x->symbol != !y->symbol)
        return x->symbol ? -1 : 1;
    return x->ip < y->ip ? -1 : x->ip > y->ip ? 1 : 0;
}

/* Rows for counter k, sorted by samples (ties: name / ip). */
static GArray *histogram(const pmusim_frontdoor_t *fd, size_t k, const GArray *syms,
                         uint64_t *total)
{
    GHashTable *idx = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
    GArray *rows = g_array_new(FALSE, TRUE, sizeof(hist_row_t));
    *total = 0;
    for (size_t i = 0, n = pmusim_frontdoor_n_samples(fd); i < n; i++) {
        const pmusim_sample_t *s = pmusim_frontdoor_sample(fd, i);
        if (s->counter != k)
            continue;
        (*total)++;
        const pmusim_symbol_t *sym = symbol_find(syms, s->ip);
        char *key = sym ? g_strconcat("s:", sym->name, NULL)
                        : g_strdup_printf("i:%" G_GINT64_MODIFIER "x", (guint64)s->ip);
        gpointer at;
        if (g_hash_table_lookup_extended(idx, key, NULL, &at)) {
            g_array_index(rows, hist_row_t, GPOINTER_TO_UINT(at)).samples++;
            g_free(key);
        } else {
            hist_row_t r = {.symbol = sym ? sym->name : NULL, .ip = s->ip, .samples = 1};
            g_hash_table_insert(idx, key, GUINT_TO_POINTER(rows->len));
            g_array_append_val(rows, r);
        }
    }
    g_hash_table_destroy(idx);
    g_array_sort(rows, hist_cmp);
    return rows;
}

static uint64_t counter_total(const pmusim_frontdoor_t *fd, size_t k, uint32_t nthreads)
{
    uint64_t sum = 0;
    for (uint32_t t = 0; t < nthreads; t++)
        sum += pmusim_frontdoor_counter_total(fd, k, t);
    return sum;
}

static uint64_t counter_samples(const pmusim_frontdoor_t *fd, size_t k, uint32_t nthreads)
{
    uint64_t sum = 0;
    for (uint32_t t = 0; t < nthreads; t++)
        sum += pmusim_frontdoor_counter_samples(fd, k, t);
    return sum;
}

static void print_summary(FILE *fp, const char *trace, const char *pmu,
                          const pmusim_frontdoor_t *fd, const GArray *syms, uint32_t nthreads,
                          unsigned top)
{
    fprintf(fp, "# pmusim record: %s, PMU %s (%s front door), %u hardware thread%s\n", trace, pmu,
            pmusim_frontdoor_style(fd) == PMUSIM_FRONTDOOR_PERFMON2 ? "perfmon2" : "perf_event",
            nthreads, nthreads == 1 ? "" : "s");
    for (size_t k = 0; k < pmusim_frontdoor_n_counters(fd); k++) {
        char reg[32];
        pmusim_frontdoor_reg_name(fd, pmusim_frontdoor_counter_reg(fd, k), reg, sizeof reg);
        uint64_t kept;
        GArray *rows = histogram(fd, k, syms, &kept);
        uint64_t taken = counter_samples(fd, k, nthreads);
        char kept_note[48] = "";
        if (kept != taken)
            g_snprintf(kept_note, sizeof kept_note, " (%" G_GUINT64_FORMAT " kept)", (guint64)kept);
        fprintf(fp,
                "#\n# Samples: %" G_GUINT64_FORMAT "%s of event '%s' (%s, period %" G_GUINT64_FORMAT
                "), %" G_GUINT64_FORMAT " occurrences counted\n",
                (guint64)taken, kept_note, pmusim_frontdoor_counter_label(fd, k), reg,
                (guint64)pmusim_frontdoor_counter_period(fd, k),
                (guint64)counter_total(fd, k, nthreads));
        if (rows->len)
            fprintf(fp, "# Overhead  Samples  Symbol\n");
        for (guint i = 0; i < rows->len && i < top; i++) {
            const hist_row_t *r = &g_array_index(rows, hist_row_t, i);
            double pct = 100.0 * (double)r->samples / (double)kept;
            if (r->symbol)
                fprintf(fp, "%9.2f%%  %7" G_GUINT64_FORMAT "  %s\n", pct, (guint64)r->samples,
                        r->symbol);
            else
                fprintf(fp, "%9.2f%%  %7" G_GUINT64_FORMAT "  [0x%016" G_GINT64_MODIFIER "x]\n",
                        pct, (guint64)r->samples, (guint64)r->ip);
        }
        if (rows->len > top)
            fprintf(fp, "# (%u more)\n", rows->len - top);
        g_array_free(rows, TRUE);
    }
    fprintf(fp, "#\n# %" G_GUINT64_FORMAT " interrupts, %zu samples kept, %" G_GUINT64_FORMAT
                " dropped (sample limit)\n",
            (guint64)pmusim_frontdoor_interrupts(fd), pmusim_frontdoor_n_samples(fd),
            (guint64)pmusim_frontdoor_dropped(fd));
}

static void print_json(FILE *fp, const char *trace, const char *pmu, const pmusim_frontdoor_t *fd,
                       const GArray *syms, uint32_t nthreads)
{
    fprintf(fp, "{\n  \"trace\": ");
    pmusim_cli_json_string(fp, trace);
    fprintf(fp, ",\n  \"pmu\": ");
    pmusim_cli_json_string(fp, pmu);
    fprintf(fp, ",\n  \"frontdoor\": \"%s\",\n  \"events\": [",
            pmusim_frontdoor_style(fd) == PMUSIM_FRONTDOOR_PERFMON2 ? "perfmon2" : "perf_event");
    for (size_t k = 0; k < pmusim_frontdoor_n_counters(fd); k++) {
        char reg[32];
        pmusim_frontdoor_reg_name(fd, pmusim_frontdoor_counter_reg(fd, k), reg, sizeof reg);
        fprintf(fp, "%s\n    {\"event\": ", k ? "," : "");
        pmusim_cli_json_string(fp, pmusim_frontdoor_counter_label(fd, k));
        fprintf(fp, ", \"reg\": ");
        pmusim_cli_json_string(fp, reg);
        fprintf(fp,
                ", \"period\": %" G_GUINT64_FORMAT ", \"samples\": %" G_GUINT64_FORMAT
                ", \"count\": %" G_GUINT64_FORMAT "}",
                (guint64)pmusim_frontdoor_counter_period(fd, k),
                (guint64)counter_samples(fd, k, nthreads), (guint64)counter_total(fd, k, nthreads));
    }
    fprintf(fp, "\n  ],\n  \"interrupts\": %" G_GUINT64_FORMAT ",\n  \"dropped\": %" G_GUINT64_FORMAT
                ",\n  \"samples\": [",
            (guint64)pmusim_frontdoor_interrupts(fd), (guint64)pmusim_frontdoor_dropped(fd));
    for (size_t i = 0, n = pmusim_frontdoor_n_samples(fd); i < n; i++) {
        const pmusim_sample_t *s = pmusim_frontdoor_sample(fd, i);
        char sym[160];
        symbol_text(syms, s->ip, sym, sizeof sym);
        fprintf(fp,
                "%s\n    {\"cycle\": %" G_GUINT64_FORMAT ", \"thread\": %u, \"ip\": \"0x%"
                G_GINT64_MODIFIER "x\", \"symbol\": ",
                i ? "," : "", (guint64)s->cycle, s->thread, (guint64)s->ip);
        pmusim_cli_json_string(fp, sym);
        fprintf(fp, ", \"counter\": %u, \"pebs\": %s, \"values\": [", s->counter,
                (s->flags & PMUSIM_SAMPLE_PEBS) ? "true" : "false");
        for (uint32_t v = 0; v < s->nvalues; v++)
            fprintf(fp, "%s%" G_GUINT64_FORMAT, v ? ", " : "", (guint64)s->values[v]);
        fprintf(fp, "]}");
    }
    fprintf(fp, "\n  ]\n}\n");
}

static void progress_cb(uint64_t records, void *user)
{
    (void)user;
    fprintf(stderr, "\rreplayed %" G_GUINT64_FORMAT " records", (guint64)records);
    fflush(stderr);
}

static gboolean parse_u64(const char *s, uint64_t *out)
{
    char *end = NULL;
    if (!s || !*s || *s == '-')
        return FALSE;
    errno = 0;
    guint64 v = g_ascii_strtoull(s, &end, 0);
    if (errno || end == s || *end)
        return FALSE;
    *out = v;
    return TRUE;
}

int pmusim_cmd_record(int argc, char **argv)
{
    pmusim_enc_args_t ea = {0};
    char *pmu_opt = NULL, **regs_files = NULL, *out_path = NULL, *period_s = NULL,
         *limit_s = NULL;
    gint top = (gint)RECORD_DEFAULT_TOP;
    gboolean json = FALSE, summary_only = FALSE;
    const GOptionEntry entries[] = {
        {"pmu", 'p', 0, G_OPTION_ARG_STRING, &pmu_opt,
         "PMU model: ita2, mont, wsm, wsm_dp, knm (default: the events' pmu:: prefix, else the "
         "trace's CPU)",
         "NAME"},
        {"count", 'c', 0, G_OPTION_ARG_STRING, &period_s,
         "sampling period: a sample every N occurrences of each event (default 10000)", "N"},
        {"regs", 'r', 0, G_OPTION_ARG_FILENAME_ARRAY, &regs_files,
         "raw register writes to apply after the encoded events (docs/REGS.md); labelled "
         "counter writes are sampled too; repeatable",
         "FILE"},
        {"output", 'o', 0, G_OPTION_ARG_FILENAME, &out_path,
         "write the samples (or the JSON) to FILE instead of stdout", "FILE"},
        {"json", 0, 0, G_OPTION_ARG_NONE, &json, "print JSON (events, samples)", NULL},
        {"top", 0, 0, G_OPTION_ARG_INT, &top, "summary rows per event (default 10)", "N"},
        {"summary", 's', 0, G_OPTION_ARG_NONE, &summary_only,
         "print only the summary, not every sample", NULL},
        {"limit", 0, 0, G_OPTION_ARG_STRING, &limit_s,
         "keep at most N samples; the rest are counted as dropped (default 1000000)", "N"},
        {NULL, 0, 0, 0, NULL, NULL, NULL},
    };
    GOptionContext *ctx = g_option_context_new("TRACE");
    g_option_context_set_summary(ctx,
        "Encode the events (-e), program a PMU model, let an OS front door sample them\n"
        "(perfmon2-style on ita2/mont, perf_event-style on wsm/wsm_dp/knm: each counter\n"
        "overflows every -c occurrences and the interrupt handler records cycle, thread\n"
        "and IP), replay TRACE and print the samples and a summary by symbol.");
    g_option_context_add_main_entries(ctx, entries, NULL);
    pmusim_enc_args_add(ctx, &ea);
    GError *error = NULL;
    int status = 0;
    pmusim_run_setup_t run = {0};
    pmusim_model_t *model = NULL;
    pmusim_frontdoor_t *fd = NULL;
    GArray *ctrs = NULL, *syms = NULL;
    char **events = NULL;
    FILE *out = stdout;
    uint64_t period = RECORD_DEFAULT_PERIOD, limit = PMUSIM_FRONTDOOR_DEFAULT_LIMIT;

    if (!g_option_context_parse(ctx, &argc, &argv, &error)) {
        status = pmusim_cli_usage("record", "%s", error->message);
        goto out;
    }
    if (argc != 2) {
        status = pmusim_cli_usage("record", "expected exactly one TRACE file");
        goto out;
    }
    if (period_s && (!parse_u64(period_s, &period) || period == 0)) {
        status = pmusim_cli_usage("record", "-c: expected a period >= 1, got '%s'", period_s);
        goto out;
    }
    if (limit_s && !parse_u64(limit_s, &limit)) {
        status = pmusim_cli_usage("record", "--limit: expected a number, got '%s'", limit_s);
        goto out;
    }
    if (top < 0) {
        status = pmusim_cli_usage("record", "--top: expected a number >= 0, got %d", top);
        goto out;
    }
    events = pmusim_enc_args_event_list(&ea);
    if (!events[0] && !regs_files) {
        status = pmusim_cli_usage("record", "nothing to sample: give events with -e (or "
                                            "labelled counter writes with --regs)");
        goto out;
    }
    const char *trace = argv[1];
    status = pmusim_run_setup(&run, &ea, "record", trace, pmu_opt, regs_files, FALSE);
    if (status)
        goto out;
    pmusim_trace_reader_t *reader = run.reader;
    const pmusim_model_ops_t *ops = run.ops;
    GArray *regs = run.regs;
    const pmusim_trace_header_t *h = pmusim_trace_reader_header(reader);
    ctrs = find_counters(ops, regs);
    if (!ctrs->len) {
        g_set_error(&error, PMUSIM_FRONTDOOR_ERROR, PMUSIM_FRONTDOOR_ERROR_COUNTER,
                    "no counter to sample: none of the %u register writes is a labelled "
                    "write programming a counter of the %s PMU",
                    regs->len, ops->name);
        status = pmusim_cli_fail(error);
        goto out;
    }
    model = pmusim_model_new(ops->name, MAX(h->nthreads, 1u), &error);
    if (!model || !pmusim_model_write_regs(model, regs, &error)) {
        status = pmusim_cli_fail(error);
        goto out;
    }
    fd = pmusim_frontdoor_new(model, &error);
    if (!fd) {
        status = pmusim_cli_fail(error);
        goto out;
    }
    pmusim_frontdoor_set_sample_limit(fd, (size_t)MIN(limit, (uint64_t)G_MAXSIZE));
    for (guint i = 0; i < ctrs->len; i++) {
        const rec_ctr_t *c = &g_array_index(ctrs, rec_ctr_t, i);
        if (pmusim_frontdoor_add_sampling(fd, c->reg, period, c->label, &error) < 0) {
            g_prefix_error(&error, "event '%s': ", c->label);
            status = pmusim_cli_fail(error);
            goto out;
        }
    }
    if (!pmusim_frontdoor_start(fd, &error)) {
        status = pmusim_cli_fail(error);
        goto out;
    }
    if (out_path && !(out = fopen(out_path, "w"))) {
        out = stdout;
        fprintf(stderr, "pmusim: %s: cannot open for writing: %s\n", out_path,
                g_strerror(errno));
        status = 1;
        goto out;
    }
    gboolean progress = pmusim_cli_show_progress();
    if (!pmusim_replay(model, reader, progress ? progress_cb : NULL, NULL, &error)) {
        if (progress)
            fputc('\n', stderr);
        if (error->domain == PMUSIM_SIM_ERROR)
            g_prefix_error(&error, "%s: ", trace);
        status = pmusim_cli_fail(error);
        goto out;
    }
    if (progress)
        fputc('\n', stderr);
    /* all symbols are known once the reader reached the end */
    syms = g_array_new(FALSE, TRUE, sizeof(pmusim_symbol_t));
    const GArray *tsyms = pmusim_trace_reader_symbols(reader);
    if (tsyms && tsyms->len)
        g_array_append_vals(syms, tsyms->data, tsyms->len);
    g_array_sort(syms, symbol_cmp);
    if (json) {
        print_json(out, trace, ops->name, fd, syms, model->nthreads);
    } else {
        if (!summary_only)
            print_samples(out, fd, syms);
        if (out != stdout && !summary_only)
            fprintf(stderr, "pmusim: %zu samples written to %s\n", pmusim_frontdoor_n_samples(fd),
                    out_path);
        if (out == stdout && !summary_only)
            fputc('\n', stdout);
        print_summary(stdout, trace, ops->name, fd, syms, model->nthreads, (unsigned)top);
    }
    if (out != stdout && fclose(out) != 0) {
        fprintf(stderr, "pmusim: %s: write failed: %s\n", out_path, g_strerror(errno));
        status = 1;
    }
    out = stdout;
out:
    if (out != stdout)
        fclose(out);
    if (error)
        g_error_free(error);
    pmusim_frontdoor_free(fd);
    pmusim_model_free(model);
    pmusim_run_setup_clear(&run);
    if (ctrs)
        g_array_free(ctrs, TRUE);
    if (syms)
        g_array_free(syms, TRUE);
    g_strfreev(events);
    g_strfreev(regs_files);
    g_free(pmu_opt);
    g_free(out_path);
    g_free(period_s);
    g_free(limit_s);
    pmusim_enc_args_clear(&ea);
    g_option_context_free(ctx);
    return status;
}
