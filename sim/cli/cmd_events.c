/* pmusim events: a PMU's event list, one event's facts, where the simulator
 * takes each event from (--source), and the encoder options (--options). */
#include "cmds.h"
#include "pmusim/encoder.h"
#include "pmusim/sim.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One row of `events --source`, after the column header for the first (a
 * filter that matches nothing prints nothing on stdout); counts the rows
 * and those from trace fields. */
static void source_row(const pmusim_model_ops_t *ops, FILE *fp, const char *name,
                       const char *umask_name, uint32_t code, uint32_t umask, size_t *rows,
                       size_t *from_trace)
{
    if (!*rows)
        fprintf(fp, "%-48s %-6s %-6s %s\n", "event", "code", "umask", "source");
    const char *src = ops && ops->event_source ? ops->event_source(code, umask) : NULL;
    char *label = umask_name ? g_strdup_printf("%s:%s", name, umask_name) : g_strdup(name);
    fprintf(fp, "%-48s 0x%-4x 0x%-4x %s\n", label, code, umask & 0xff,
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

/* Is `s` a glob (shell wildcards)? */
static gboolean is_glob(const char *s)
{
    return strpbrk(s, "*?[") != NULL;
}

/* Case-insensitive glob match: both sides upper-cased (event names are ASCII). */
static gboolean glob_match(GPatternSpec *pat, const char *name)
{
    char *up = g_ascii_strup(name, -1);
    gboolean r = g_pattern_spec_match_string(pat, up);
    g_free(up);
    return r;
}

/* The event indices of `enc` matching `pat` (NULL: all). */
static GArray *matching_events(const pmusim_encoder_pmu_t *enc, GPatternSpec *pat)
{
    GArray *idx = g_array_new(FALSE, FALSE, sizeof(size_t));
    size_t n = enc->event_count ? enc->event_count() : 0;
    for (size_t i = 0; i < n; i++) {
        const char *name = NULL;
        if (!enc->event_code(i, &name, NULL, NULL) || !name)
            continue;
        if (!pat || glob_match(pat, name))
            g_array_append_val(idx, i);
    }
    return idx;
}

/* `events --json`: an array, one object per event and line. */
static void print_json(const pmusim_encoder_pmu_t *enc, const GArray *idx, FILE *fp)
{
    fprintf(fp, "[\n");
    for (guint k = 0; k < idx->len; k++) {
        size_t i = g_array_index(idx, size_t, k);
        const char *name = NULL, *uname = NULL;
        uint32_t code = 0, umask = 0, um = 0;
        enc->event_code(i, &name, &code, &umask);
        const char *desc = enc->event_desc ? enc->event_desc(i) : NULL;
        fprintf(fp, "{\"pmu\": ");
        pmusim_cli_json_string(fp, enc->name);
        fprintf(fp, ", \"name\": ");
        pmusim_cli_json_string(fp, name);
        fprintf(fp, ", \"code\": \"0x%02x\", \"umask\": \"0x%02x\", \"desc\": ", code, umask);
        pmusim_cli_json_string(fp, desc ? desc : "");
        fprintf(fp, ", \"umasks\": [");
        for (size_t j = 0; enc->event_umask && enc->event_umask(i, j, &uname, &um); j++) {
            fprintf(fp, "%s{\"name\": ", j ? ", " : "");
            pmusim_cli_json_string(fp, uname);
            fprintf(fp, ", \"umask\": \"0x%02x\"}", um & 0xff);
        }
        fprintf(fp, "]}%s\n", k + 1 < idx->len ? "," : "");
    }
    fprintf(fp, "]\n");
}

/* The list_events lines of `enc` whose event name matches `pat`. */
static void print_list(const pmusim_encoder_pmu_t *enc, GPatternSpec *pat, FILE *fp)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&buf, &len);
    enc->list_events(mem);
    fclose(mem);
    char **lines = g_strsplit(buf, "\n", -1);
    for (char **l = lines; *l; l++) {
        if (!**l)
            continue;
        const char *name = *l;
        if (strstr(name, "::") && strstr(name, "::") < strchr(name, ' '))
            name = strstr(name, "::") + 2;
        size_t n = strcspn(name, " \t");
        char *ev = g_strndup(name, n);
        if (glob_match(pat, ev))
            fprintf(fp, "%s\n", *l);
        g_free(ev);
    }
    g_strfreev(lines);
    free(buf);
}

int pmusim_cmd_events(int argc, char **argv)
{
    char *pmu = NULL;
    gboolean source = FALSE, options = FALSE, names = FALSE, json = FALSE;
    const GOptionEntry entries[] = {
        {"pmu", 'p', 0, G_OPTION_ARG_STRING, &pmu, "PMU: ita2, mont, wsm, wsm_dp, knm", "NAME"},
        {"source", 's', 0, G_OPTION_ARG_NONE, &source,
         "say where the simulator takes each (event, unit mask) from: trace fields or "
         "explicit EVENT records; with EVENT or EVENT:UMASK, only those", NULL},
        {"options", 0, 0, G_OPTION_ARG_NONE, &options, "list the PMU's encoder options", NULL},
        {"names", 'n', 0, G_OPTION_ARG_NONE, &names,
         "print only the event names, one a line (without --pmu: every PMU's, as pmu::NAME)",
         NULL},
        {"json", 'j', 0, G_OPTION_ARG_NONE, &json,
         "print the events as a JSON array, one object per event with its unit masks", NULL},
        {NULL, 0, 0, 0, NULL, NULL, NULL},
    };
    GOptionContext *ctx = g_option_context_new("[EVENT | 'GLOB' | EVENTSTRING]");
    g_option_context_set_summary(ctx,
        "List the events of a PMU, or print every fact about one.  A GLOB ('UOPS_*',\n"
        "case-insensitive) lists the matching events; a full event string with unit\n"
        "masks and modifiers (wsm::UOPS_RETIRED:ANY:c=1) prints the event's facts and\n"
        "its encoding.");
    g_option_context_add_main_entries(ctx, entries, NULL);
    GError *error = NULL;
    int status = 0;
    GPatternSpec *pat = NULL;
    if (!pmusim_cli_parse(ctx, "events", &argc, &argv, &error)) {
        status = pmusim_cli_usage("events", "%s", error->message);
        goto out;
    }
    if (argc > 2) {
        status = pmusim_cli_usage("events", "at most one EVENT");
        goto out;
    }
    const char *arg = argc == 2 ? argv[1] : NULL;
    if (!pmu && arg && strstr(arg, "::")) {
        pmu = g_strndup(arg, (gsize)(strstr(arg, "::") - arg));
        arg = strstr(arg, "::") + 2;
    }
    if (arg && is_glob(arg)) {
        char *up = g_ascii_strup(strstr(arg, "::") ? strstr(arg, "::") + 2 : arg, -1);
        pat = g_pattern_spec_new(up);
        g_free(up);
    }
    if (!pmu && names) {
        /* every PMU's names, for shell completion of pmu::EVENT */
        const pmusim_encoder_pmu_t *const *l = pmusim_encoder_list();
        for (size_t i = 0; l[i]; i++) {
            GArray *idx = matching_events(l[i], pat);
            for (guint k = 0; k < idx->len; k++) {
                const char *name = NULL;
                l[i]->event_code(g_array_index(idx, size_t, k), &name, NULL, NULL);
                printf("%s::%s\n", l[i]->name, name);
            }
            g_array_free(idx, TRUE);
        }
        goto out;
    }
    if (!pmu) {
        if (arg) {
            status = pmusim_cli_usage("events", "say which PMU: --pmu NAME or a 'pmu::' prefix");
            goto out;
        }
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
        status = list_sources(enc, arg, stdout);
    } else if (names || json || pat) {
        GArray *idx = NULL;
        if (arg && !pat) { /* one event by name */
            idx = g_array_new(FALSE, FALSE, sizeof(size_t));
            GArray *all = matching_events(enc, NULL);
            const char *want = strstr(arg, "::") ? strstr(arg, "::") + 2 : arg;
            for (guint k = 0; k < all->len; k++) {
                const char *name = NULL;
                enc->event_code(g_array_index(all, size_t, k), &name, NULL, NULL);
                if (g_ascii_strcasecmp(name, want) == 0)
                    g_array_append_val(idx, g_array_index(all, size_t, k));
            }
            g_array_free(all, TRUE);
            if (!idx->len) {
                char *hint = pmusim_encoder_event_hint(enc, want);
                fprintf(stderr, "pmusim: %s: event not found on %s%s%s%s\n", want, enc->name,
                        hint ? " (" : "", hint ? hint : "", hint ? ")" : "");
                g_free(hint);
                status = 1;
            }
        } else {
            idx = matching_events(enc, pat);
            if (pat && !idx->len) {
                fprintf(stderr, "pmusim: '%s': no event matches on %s\n", arg, enc->name);
                status = 1;
            }
        }
        if (!status && json)
            print_json(enc, idx, stdout);
        else if (!status && names)
            for (guint k = 0; k < idx->len; k++) {
                const char *name = NULL;
                enc->event_code(g_array_index(idx, size_t, k), &name, NULL, NULL);
                printf("%s\n", name);
            }
        else if (!status && enc->list_events)
            print_list(enc, pat, stdout);
        g_array_free(idx, TRUE);
    } else if (arg) {
        /* EVENT, or a full event string: the event's facts, then its encoding */
        const char *base = strstr(arg, "::") ? strstr(arg, "::") + 2 : arg;
        gboolean full = strpbrk(base, ":.") != NULL;
        char *name = g_strndup(base, strcspn(base, ":."));
        if (!enc->show_event || !enc->show_event(full ? name : argv[1], stdout, &error)) {
            if (!error)
                g_set_error(&error, PMUSIM_ENCODER_ERROR, 1, "%s: cannot describe events",
                            enc->name);
            status = pmusim_cli_fail(error);
        } else if (full && enc->explain) {
            printf("#-----------------------------\nEncoding of %s:\n", argv[1]);
            fflush(stdout);
            if (!enc->explain(argv[1], PMUSIM_PLM0 | PMUSIM_PLM3, stdout, &error))
                status = pmusim_cli_fail(error);
        }
        g_free(name);
    } else if (enc->list_events) {
        enc->list_events(stdout);
    }
out:
    if (pat)
        g_pattern_spec_free(pat);
    if (error)
        g_error_free(error);
    g_free(pmu);
    g_option_context_free(ctx);
    return status;
}
