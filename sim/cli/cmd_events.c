/* pmusim events: a PMU's event list, one event's facts, where the simulator
 * takes each event from (--source), and the encoder options (--options). */
#include "cmds.h"
#include "pmusim/encoder.h"
#include "pmusim/sim.h"

#include <stdio.h>
#include <string.h>

/* One row of `events --source`; counts the rows and those from trace fields. */
static void source_row(const pmusim_model_ops_t *ops, FILE *fp, const char *name,
                       const char *umask_name, uint32_t code, uint32_t umask, size_t *rows,
                       size_t *from_trace)
{
    const char *src = ops && ops->event_source ? ops->event_source(code, umask) : NULL;
    char *label = umask_name ? g_strdup_printf("%s:%s", name, umask_name) : g_strdup(name);
    fprintf(fp, "%-48s 0x%-4x 0x%-4x %s\n", label, code, umask,
            src ? src : "explicit EVENT records only");
    g_free(label);
    (*rows)++;
    if (src)
        (*from_trace)++;
}

/* Where the simulator takes each (event, unit mask) from; `filter` is NULL,
 * EVENT or EVENT:UMASK (case-insensitive). */
static int list_sources(const pmusim_encoder_pmu_t *enc, const char *filter, FILE *fp)
{
    const pmusim_model_ops_t *ops = pmusim_model_find(enc->name);
    if (!enc->event_count || !enc->event_code) {
        fprintf(stderr, "pmusim: the %s encoder does not list event codes\n", enc->name);
        return 1;
    }
    char *want_ev = NULL, *want_um = NULL;
    if (filter) {
        const char *f = strstr(filter, "::") ? strstr(filter, "::") + 2 : filter;
        const char *colon = strchr(f, ':');
        want_ev = colon ? g_strndup(f, (gsize)(colon - f)) : g_strdup(f);
        want_um = colon ? g_strdup(colon + 1) : NULL;
    }
    size_t n = enc->event_count(), rows = 0, from_trace = 0;
    fprintf(fp, "%-48s %-6s %-6s %s\n", "event", "code", "umask", "source");
    for (size_t i = 0; i < n; i++) {
        const char *name = NULL, *uname = NULL;
        uint32_t code = 0, umask = 0, um = 0;
        if (!enc->event_code(i, &name, &code, &umask))
            continue;
        if (want_ev && g_ascii_strcasecmp(name, want_ev) != 0)
            continue;
        size_t j = 0;
        for (; enc->event_umask && enc->event_umask(i, j, &uname, &um); j++) {
            if (want_um && g_ascii_strcasecmp(uname, want_um) != 0)
                continue;
            source_row(ops, fp, name, uname, code, umask | um, &rows, &from_trace);
        }
        if (j == 0 && !want_um) /* an event without unit masks */
            source_row(ops, fp, name, NULL, code, umask, &rows, &from_trace);
    }
    int status = 0;
    if (filter && !rows) {
        fprintf(stderr, "pmusim: %s: no such event%s on %s\n", filter, want_um ? " or unit mask" : "",
                enc->name);
        status = 1;
    } else {
        fprintf(fp, "\n%zu of %zu (event, unit mask) rows are derived from trace fields; the "
                    "others count the trace's explicit EVENT records.\n",
                from_trace, rows);
    }
    g_free(want_ev);
    g_free(want_um);
    return status;
}

int pmusim_cmd_events(int argc, char **argv)
{
    char *pmu = NULL;
    gboolean source = FALSE, options = FALSE;
    const GOptionEntry entries[] = {
        {"pmu", 'p', 0, G_OPTION_ARG_STRING, &pmu, "PMU: ita2, mont, wsm, wsm_dp, knm", "NAME"},
        {"source", 's', 0, G_OPTION_ARG_NONE, &source,
         "say where the simulator takes each (event, unit mask) from: trace fields or "
         "explicit EVENT records; with EVENT or EVENT:UMASK, only those", NULL},
        {"options", 0, 0, G_OPTION_ARG_NONE, &options, "list the PMU's encoder options", NULL},
        {NULL, 0, 0, 0, NULL, NULL, NULL},
    };
    GOptionContext *ctx = g_option_context_new("[EVENT]");
    g_option_context_set_summary(ctx, "List the events of a PMU, or print every fact about one.");
    g_option_context_add_main_entries(ctx, entries, NULL);
    GError *error = NULL;
    int status = 0;
    if (!pmusim_cli_parse(ctx, "events", &argc, &argv, &error)) {
        status = pmusim_cli_usage("events", "%s", error->message);
        goto out;
    }
    if (argc > 2) {
        status = pmusim_cli_usage("events", "at most one EVENT");
        goto out;
    }
    if (!pmu && argc == 2 && strstr(argv[1], "::"))
        pmu = g_strndup(argv[1], (gsize)(strstr(argv[1], "::") - argv[1]));
    if (!pmu) {
        const pmusim_encoder_pmu_t *const *l = pmusim_encoder_list();
        printf("PMUs (use --pmu NAME):\n");
        for (size_t i = 0; l[i]; i++)
            printf("  %-8s %s\n", l[i]->name, l[i]->desc ? l[i]->desc : "");
        goto out;
    }
    const pmusim_encoder_pmu_t *enc = pmusim_encoder_find(pmu);
    if (!enc) {
        status = pmusim_cli_unknown_pmu("events", pmu);
        goto out;
    }
    if (options) {
        for (const char *const *h = enc->option_help; h && *h; h++)
            printf("%s\n", *h);
    } else if (source) {
        status = list_sources(enc, argc == 2 ? argv[1] : NULL, stdout);
    } else if (argc == 2) {
        if (!enc->show_event || !enc->show_event(argv[1], stdout, &error)) {
            if (!error)
                g_set_error(&error, PMUSIM_ENCODER_ERROR, 1, "%s: cannot describe events",
                            enc->name);
            status = pmusim_cli_fail(error);
        }
    } else if (enc->list_events) {
        enc->list_events(stdout);
    }
out:
    if (error)
        g_error_free(error);
    g_free(pmu);
    g_option_context_free(ctx);
    return status;
}
