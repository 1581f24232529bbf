/* pmusim stat: encode events (or load raw register writes), program a PMU
 * model with them, replay a trace and print the counts. */
#include "cmds.h"
#include "enc_args.h"
#include "pmusim/sim.h"

#include <stdio.h>
#include <string.h>

typedef enum { OUT_TABLE, OUT_JSON, OUT_CSV } out_fmt_t;

static void progress_cb(uint64_t records, void *user)
{
    (void)user;
    fprintf(stderr, "\rreplayed %" G_GUINT64_FORMAT " records", (guint64)records);
    fflush(stderr);
}

static char *group_digits(uint64_t v)
{
    char raw[32];
    g_snprintf(raw, sizeof raw, "%" G_GUINT64_FORMAT, (guint64)v);
    GString *s = g_string_new(NULL);
    size_t n = strlen(raw);
    for (size_t i = 0; i < n; i++) {
        if (i && (n - i) % 3 == 0)
            g_string_append_c(s, ',');
        g_string_append_c(s, raw[i]);
    }
    return g_string_free(s, FALSE);
}

static void csv_field(FILE *fp, const char *s)
{
    if (strpbrk(s, ",\"\n")) {
        fputc('"', fp);
        for (; *s; s++) {
            if (*s == '"')
                fputc('"', fp);
            fputc(*s, fp);
        }
        fputc('"', fp);
    } else {
        fputs(s, fp);
    }
}

/* Sum of each event over the threads, in first-seen order. */
typedef struct {
    const char *event;
    uint64_t value;
    unsigned threads;
} event_sum_t;

static GArray *sum_by_event(const GArray *counters)
{
    GArray *sums = g_array_new(FALSE, TRUE, sizeof(event_sum_t));
    for (guint i = 0; i < counters->len; i++) {
        const pmusim_counter_result_t *c = &g_array_index(counters, pmusim_counter_result_t, i);
        if (!c->enabled)
            continue;
        guint j;
        for (j = 0; j < sums->len; j++) {
            event_sum_t *s = &g_array_index(sums, event_sum_t, j);
            if (strcmp(s->event, c->event) == 0) {
                s->value += c->value;
                s->threads++;
                break;
            }
        }
        if (j == sums->len) {
            event_sum_t s = {.event = c->event, .value = c->value, .threads = 1};
            g_array_append_val(sums, s);
        }
    }
    return sums;
}

static void print_table(FILE *fp, const char *trace, const char *pmu, uint32_t nthreads,
                        const pmusim_report_t *r, gboolean verbose)
{
    fprintf(fp, "\n Performance counter stats for '%s' (PMU %s, %u hardware thread%s):\n\n",
            trace, pmu, nthreads, nthreads == 1 ? "" : "s");
    int width = 20; /* the event column fits the longest label */
    for (guint i = 0; i < r->counters->len; i++) {
        const pmusim_counter_result_t *c =
            &g_array_index(r->counters, pmusim_counter_result_t, i);
        if (c->enabled)
            width = MAX(width, (int)strlen(c->event));
    }
    for (guint i = 0; i < r->counters->len; i++) {
        const pmusim_counter_result_t *c =
            &g_array_index(r->counters, pmusim_counter_result_t, i);
        if (!c->enabled)
            continue;
        char *v = group_digits(c->value);
        fprintf(fp, "  %20s  %-*s  ", v, width, c->event[0] ? c->event : "(raw)");
        if (nthreads > 1)
            fprintf(fp, "%-15s thread %u", c->reg, c->thread);
        else
            fputs(c->reg, fp);
        if (c->overflows)
            fprintf(fp, "  (%" G_GUINT64_FORMAT " overflow%s)", (guint64)c->overflows,
                    c->overflows == 1 ? "" : "s");
        fputc('\n', fp);
        g_free(v);
    }
    if (nthreads > 1) {
        GArray *sums = sum_by_event(r->counters);
        fprintf(fp, "\n  summed over threads:\n");
        for (guint i = 0; i < sums->len; i++) {
            const event_sum_t *s = &g_array_index(sums, event_sum_t, i);
            char *v = group_digits(s->value);
            fprintf(fp, "  %20s  %s\n", v, s->event[0] ? s->event : "(raw)");
            g_free(v);
        }
        g_array_free(sums, TRUE);
    }
    char *cyc = group_digits(r->cycles), *rec = group_digits(r->records);
    fprintf(fp, "\n  %20s  cycles simulated\n  %20s  trace records\n", cyc, rec);
    g_free(cyc);
    g_free(rec);
    guint interrupts = 0, overflows = 0;
    for (guint i = 0; i < r->log->len; i++) {
        const pmusim_sim_event_t *e = &g_array_index(r->log, pmusim_sim_event_t, i);
        /* models log "interrupt" and "<register> overflow" / "overflow <register>" */
        if (g_str_has_prefix(e->what, "interrupt"))
            interrupts++;
        else if (strstr(e->what, "overflow"))
            overflows++;
    }
    if (interrupts || overflows)
        fprintf(fp, "  %20u  overflow%s, %u interrupt%s (see --verbose)\n", overflows,
                overflows == 1 ? "" : "s", interrupts, interrupts == 1 ? "" : "s");
    if (r->captures->len) {
        fprintf(fp, "\n  captured:\n");
        for (guint i = 0; i < r->captures->len; i++)
            fprintf(fp, "    %s\n", (const char *)g_ptr_array_index(r->captures, i));
    }
    if (verbose) {
        if (r->log->len) {
            fprintf(fp, "\n  event log:\n");
            for (guint i = 0; i < r->log->len; i++) {
                const pmusim_sim_event_t *e = &g_array_index(r->log, pmusim_sim_event_t, i);
                fprintf(fp, "    cycle %-14" G_GUINT64_FORMAT " thread %u  %s\n",
                        (guint64)e->cycle, e->thread, e->what);
            }
            if (r->log_dropped)
                fprintf(fp, "    (%" G_GUINT64_FORMAT " more not kept)\n",
                        (guint64)r->log_dropped);
        }
        if (r->diags->len) {
            fprintf(fp, "\n  register diagnostics:\n");
            for (guint i = 0; i < r->diags->len; i++)
                fprintf(fp, "    %s\n", (const char *)g_ptr_array_index(r->diags, i));
        }
    } else if (r->diags->len) {
        fprintf(fp, "\n  %u register diagnostic%s (see --verbose)\n", r->diags->len,
                r->diags->len == 1 ? "" : "s");
    }
    fputc('\n', fp);
}

static void print_json(FILE *fp, const char *trace, const char *pmu, const pmusim_report_t *r)
{
    fprintf(fp, "{\n  \"trace\": ");
    pmusim_cli_json_string(fp, trace);
    fprintf(fp, ",\n  \"pmu\": ");
    pmusim_cli_json_string(fp, pmu);
    fprintf(fp, ",\n  \"cycles\": %" G_GUINT64_FORMAT ",\n  \"records\": %" G_GUINT64_FORMAT
                ",\n  \"counters\": [",
            (guint64)r->cycles, (guint64)r->records);
    gboolean first = TRUE;
    for (guint i = 0; i < r->counters->len; i++) {
        const pmusim_counter_result_t *c =
            &g_array_index(r->counters, pmusim_counter_result_t, i);
        if (!c->enabled)
            continue;
        fprintf(fp, "%s\n    {\"event\": ", first ? "" : ",");
        pmusim_cli_json_string(fp, c->event);
        fprintf(fp, ", \"reg\": ");
        pmusim_cli_json_string(fp, c->reg);
        fprintf(fp,
                ", \"thread\": %u, \"value\": %" G_GUINT64_FORMAT
                ", \"overflows\": %" G_GUINT64_FORMAT "}",
                c->thread, (guint64)c->value, (guint64)c->overflows);
        first = FALSE;
    }
    fprintf(fp, "\n  ],\n  \"log\": [");
    for (guint i = 0; i < r->log->len; i++) {
        const pmusim_sim_event_t *e = &g_array_index(r->log, pmusim_sim_event_t, i);
        fprintf(fp, "%s\n    {\"cycle\": %" G_GUINT64_FORMAT ", \"thread\": %u, \"what\": ",
                i ? "," : "", (guint64)e->cycle, e->thread);
        pmusim_cli_json_string(fp, e->what);
        fputc('}', fp);
    }
    fprintf(fp, "\n  ],\n  \"captures\": [");
    for (guint i = 0; i < r->captures->len; i++) {
        fprintf(fp, "%s\n    ", i ? "," : "");
        pmusim_cli_json_string(fp, g_ptr_array_index(r->captures, i));
    }
    fprintf(fp, "\n  ],\n  \"diagnostics\": [");
    for (guint i = 0; i < r->diags->len; i++) {
        fprintf(fp, "%s\n    ", i ? "," : "");
        pmusim_cli_json_string(fp, g_ptr_array_index(r->diags, i));
    }
    fprintf(fp, "\n  ]\n}\n");
}

static void print_csv(FILE *fp, const pmusim_report_t *r)
{
    fprintf(fp, "event,reg,thread,value,overflows\n");
    for (guint i = 0; i < r->counters->len; i++) {
        const pmusim_counter_result_t *c =
            &g_array_index(r->counters, pmusim_counter_result_t, i);
        if (!c->enabled)
            continue;
        csv_field(fp, c->event);
        fputc(',', fp);
        csv_field(fp, c->reg);
        fprintf(fp, ",%u,%" G_GUINT64_FORMAT ",%" G_GUINT64_FORMAT "\n", c->thread,
                (guint64)c->value, (guint64)c->overflows);
    }
}

int pmusim_cmd_stat(int argc, char **argv)
{
    pmusim_enc_args_t ea = {0};
    char *pmu_opt = NULL, **regs_files = NULL;
    gboolean json = FALSE, csv = FALSE, verbose = FALSE, show_regs = FALSE, explain = FALSE;
    const GOptionEntry entries[] = {
        {"pmu", 'p', 0, G_OPTION_ARG_STRING, &pmu_opt,
         "PMU model: ita2, mont, wsm, wsm_dp, knm (default: the trace's CPU)", "NAME"},
        {"regs", 'r', 0, G_OPTION_ARG_FILENAME_ARRAY, &regs_files,
         "raw register writes to apply (docs/REGS.md); repeatable", "FILE"},
        {"json", 0, 0, G_OPTION_ARG_NONE, &json, "print JSON", NULL},
        {"csv", 0, 0, G_OPTION_ARG_NONE, &csv, "print CSV", NULL},
        {"verbose", 'v', 0, G_OPTION_ARG_NONE, &verbose,
         "also print the overflow/interrupt log and register diagnostics", NULL},
        {"show-regs", 0, 0, G_OPTION_ARG_NONE, &show_regs,
         "print the register writes before replaying", NULL},
        {"explain", 0, 0, G_OPTION_ARG_NONE, &explain,
         "decode each register write field by field before the counts", NULL},
        {NULL, 0, 0, 0, NULL, NULL, NULL},
    };
    GOptionContext *ctx = g_option_context_new("TRACE");
    g_option_context_set_summary(ctx,
        "Program a PMU model with encoded events (-e) and/or raw register writes (--regs),\n"
        "replay TRACE through it and print the counts.  Without -e and --regs a default\n"
        "event set (cycles and retired instructions) is used.");
    g_option_context_add_main_entries(ctx, entries, NULL);
    pmusim_enc_args_add(ctx, &ea);
    GError *error = NULL;
    int status = 0;
    pmusim_run_setup_t run = {0};
    pmusim_model_t *model = NULL;

    if (!g_option_context_parse(ctx, &argc, &argv, &error)) {
        status = pmusim_cli_usage("stat", "%s", error->message);
        goto out;
    }
    if (argc != 2) {
        status = pmusim_cli_usage("stat", "expected exactly one TRACE file");
        goto out;
    }
    if (json && csv) {
        status = pmusim_cli_usage("stat", "--json and --csv exclude each other");
        goto out;
    }
    const char *trace = argv[1];
    status = pmusim_run_setup(&run, &ea, "stat", trace, pmu_opt, regs_files, TRUE);
    if (status)
        goto out;
    pmusim_trace_reader_t *reader = run.reader;
    const pmusim_model_ops_t *ops = run.ops;
    const GArray *regs = run.regs;
    const pmusim_trace_header_t *h = pmusim_trace_reader_header(reader);
    if (show_regs)
        pmusim_regs_print(regs, stderr);
    if (explain) /* on stderr when stdout carries JSON or CSV */
        pmusim_cli_explain_regs(ops, regs, json || csv ? stderr : stdout);
    model = pmusim_model_new(ops->name, MAX(h->nthreads, 1u), &error);
    if (!model || !pmusim_model_write_regs(model, regs, &error)) {
        status = pmusim_cli_fail(error);
        goto out;
    }
    gboolean progress = pmusim_cli_show_progress() && !json && !csv;
    if (!pmusim_replay(model, reader, progress ? progress_cb : NULL, NULL, &error)) {
        if (progress)
            fputc('\n', stderr);
        /* reader errors name the file already; engine errors do not */
        if (error->domain == PMUSIM_SIM_ERROR)
            g_prefix_error(&error, "%s: ", trace);
        status = pmusim_cli_fail(error);
        goto out;
    }
    if (progress)
        fputc('\n', stderr);
    pmusim_report_t rep;
    pmusim_report_init(&rep);
    pmusim_model_collect(model, &rep);
    if (!rep.records)
        rep.records = pmusim_trace_reader_records_read(reader);
    if (json)
        print_json(stdout, trace, ops->name, &rep);
    else if (csv)
        print_csv(stdout, &rep);
    else
        print_table(stdout, trace, ops->name, model->nthreads, &rep, verbose);
    pmusim_report_clear(&rep);
out:
    if (error)
        g_error_free(error);
    pmusim_model_free(model);
    pmusim_run_setup_clear(&run);
    g_strfreev(regs_files);
    g_free(pmu_opt);
    pmusim_enc_args_clear(&ea);
    g_option_context_free(ctx);
    return status;
}
