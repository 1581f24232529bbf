/* pmusim events: a PMU's event list, one event's facts, where the simulator
 * takes each event from (--source), and the encoder options (--options). */
#include "cmds.h"
#include "pmusim/encoder.h"
#include "pmusim/sim.h"

#include <stdio.h>
#include <string.h>

static int list_sources(const pmusim_encoder_pmu_t *enc, FILE *fp)
{
    const pmusim_model_ops_t *ops = pmusim_model_find(enc->name);
    if (!enc->event_count || !enc->event_code) {
        fprintf(stderr, "pmusim: the %s encoder does not list event codes\n", enc->name);
        return 1;
    }
    size_t n = enc->event_count(), from_trace = 0;
    fprintf(fp, "%-48s %-6s %-6s %s\n", "event", "code", "umask", "source");
    for (size_t i = 0; i < n; i++) {
        const char *name = NULL;
        uint32_t code = 0, umask = 0;
        if (!enc->event_code(i, &name, &code, &umask))
            continue;
        const char *src = ops && ops->event_source ? ops->event_source(code, umask) : NULL;
        if (src)
            from_trace++;
        fprintf(fp, "%-48s 0x%-4x 0x%-4x %s\n", name, code, umask,
                src ? src : "explicit EVENT records");
    }
    fprintf(fp, "\n%zu of %zu events are derived from trace fields; the others count the "
                "trace's explicit EVENT records.\n",
            from_trace, n);
    return 0;
}

int pmusim_cmd_events(int argc, char **argv)
{
    char *pmu = NULL;
    gboolean source = FALSE, options = FALSE;
    const GOptionEntry entries[] = {
        {"pmu", 'p', 0, G_OPTION_ARG_STRING, &pmu, "PMU: ita2, mont, wsm, wsm_dp, knm", "NAME"},
        {"source", 's', 0, G_OPTION_ARG_NONE, &source,
         "say which events the simulator derives from trace fields", NULL},
        {"options", 0, 0, G_OPTION_ARG_NONE, &options, "list the PMU's encoder options", NULL},
        {NULL, 0, 0, 0, NULL, NULL, NULL},
    };
    GOptionContext *ctx = g_option_context_new("[EVENT]");
    g_option_context_set_summary(ctx, "List the events of a PMU, or print every fact about one.");
    g_option_context_add_main_entries(ctx, entries, NULL);
    GError *error = NULL;
    int status = 0;
    if (!g_option_context_parse(ctx, &argc, &argv, &error)) {
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
        status = pmusim_cli_usage("events", "unknown PMU '%s' (known: ita2, mont, wsm, wsm_dp, knm)",
                                  pmu);
        goto out;
    }
    if (options) {
        for (const char *const *h = enc->option_help; h && *h; h++)
            printf("%s\n", *h);
    } else if (source) {
        status = list_sources(enc, stdout);
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
