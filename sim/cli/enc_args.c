/* Encoder options shared by `pmusim stat` and `pmusim encode`. */
#include "enc_args.h"
#include "cmds.h"
#include "perfev.h"

#include <string.h>

void pmusim_enc_args_add(GOptionContext *ctx, pmusim_enc_args_t *a)
{
    const GOptionEntry entries[] = {
        {"event", 'e', 0, G_OPTION_ARG_STRING_ARRAY, &a->events,
         "events to count (comma-separated; repeatable)", "EVENTS"},
        {"plm", 0, 0, G_OPTION_ARG_STRING, &a->plm,
         "default privilege levels: u, k, uk (default), or a PLM mask such as 0x8", "PLM"},
        {"opt", 'O', 0, G_OPTION_ARG_STRING_ARRAY, &a->opts,
         "PMU-specific encoder option (see 'pmusim events --pmu P --options')", "KEY=VALUE"},
        {NULL, 0, 0, 0, NULL, NULL, NULL},
    };
    /* The IA-64 encoder's options (libpfm-3 features) have their own group:
     * --help-itanium or --help-all show them, --help does not. */
    const GOptionEntry itanium[] = {
        {"thres", 0, 0, G_OPTION_ARG_STRING_ARRAY, &a->thres, "threshold of an event", "EVENT=N"},
        {"ism", 0, 0, G_OPTION_ARG_STRING_ARRAY, &a->ism, "instruction set (ita2)",
         "EVENT=ia32|ia64|both"},
        {"irange", 0, 0, G_OPTION_ARG_STRING_ARRAY, &a->irange, "code range restriction",
         "START-END"},
        {"drange", 0, 0, G_OPTION_ARG_STRING_ARRAY, &a->drange, "data range restriction",
         "START-END"},
        {"opcm", 0, 0, G_OPTION_ARG_STRING_ARRAY, &a->opcm,
         "the first opcode matcher: PMC8 value on ita2, opcm1 spec on mont", "SPEC"},
        {"opcm1", 0, 0, G_OPTION_ARG_STRING_ARRAY, &a->opcm1, "opcode matcher 1 (mont)", "SPEC"},
        {"opcm2", 0, 0, G_OPTION_ARG_STRING_ARRAY, &a->opcm2, "opcode matcher 2 (mont)", "SPEC"},
        {"pmc8", 0, 0, G_OPTION_ARG_STRING_ARRAY, &a->pmc8, "opcode matcher PMC8 value (ita2)",
         "VALUE"},
        {"pmc9", 0, 0, G_OPTION_ARG_STRING_ARRAY, &a->pmc9, "opcode matcher PMC9 value (ita2)",
         "VALUE"},
        {"dear", 0, 0, G_OPTION_ARG_STRING_ARRAY, &a->dear, "data EAR", "MODE[:UMASK]"},
        {"iear", 0, 0, G_OPTION_ARG_STRING_ARRAY, &a->iear, "instruction EAR", "MODE[:UMASK]"},
        {"btb", 0, 0, G_OPTION_ARG_STRING_ARRAY, &a->btb, "branch trace buffer (ita2)", "SPEC"},
        {"etb", 0, 0, G_OPTION_ARG_STRING_ARRAY, &a->etb, "execution trace buffer (mont)",
         "SPEC"},
        {"ipear", 0, 0, G_OPTION_ARG_STRING_ARRAY, &a->ipear, "IP-EAR (mont)", "SPEC"},
        {"no-qualcheck", 0, 0, G_OPTION_ARG_NONE, &a->no_qualcheck,
         "do not check that events support the qualifiers", NULL},
        {"rr-inv", 0, 0, G_OPTION_ARG_NONE, &a->rr_inv, "invert the code ranges", NULL},
        {"no-fine-mode", 0, 0, G_OPTION_ARG_NONE, &a->no_fine_mode,
         "never use fine-mode code ranges", NULL},
        {"systemwide", 0, 0, G_OPTION_ARG_NONE, &a->systemwide,
         "system-wide session (sets the pm bit)", NULL},
        {NULL, 0, 0, 0, NULL, NULL, NULL},
    };
    g_option_context_add_main_entries(ctx, entries, NULL);
    GOptionGroup *grp = g_option_group_new("itanium", "Itanium encoder options (ita2, mont):",
                                           "Show the Itanium encoder options", NULL, NULL);
    g_option_group_add_entries(grp, itanium);
    g_option_context_add_group(ctx, grp);
    pmusim_cli_register_group(grp, "itanium");
}

/* The Itanium-only options given on the command line, as "--name" (NULL if none). */
static const char *itanium_option_given(const pmusim_enc_args_t *a)
{
    const struct {
        const char *name;
        char **v;
    } arr[] = {
        {"--thres", a->thres}, {"--ism", a->ism},     {"--irange", a->irange},
        {"--drange", a->drange}, {"--opcm", a->opcm}, {"--opcm1", a->opcm1},
        {"--opcm2", a->opcm2}, {"--pmc8", a->pmc8},   {"--pmc9", a->pmc9},
        {"--dear", a->dear},   {"--iear", a->iear},   {"--btb", a->btb},
        {"--etb", a->etb},     {"--ipear", a->ipear},
    };
    for (size_t i = 0; i < G_N_ELEMENTS(arr); i++)
        if (arr[i].v && arr[i].v[0])
            return arr[i].name;
    if (a->no_qualcheck)
        return "--no-qualcheck";
    if (a->rr_inv)
        return "--rr-inv";
    if (a->no_fine_mode)
        return "--no-fine-mode";
    if (a->systemwide)
        return "--systemwide";
    return NULL;
}

gboolean pmusim_plm_parse(const char *s, unsigned *plm)
{
    if (g_ascii_strcasecmp(s, "u") == 0)
        *plm = PMUSIM_PLM3;
    else if (g_ascii_strcasecmp(s, "k") == 0)
        *plm = PMUSIM_PLM0;
    else if (g_ascii_strcasecmp(s, "uk") == 0 || g_ascii_strcasecmp(s, "ku") == 0)
        *plm = PMUSIM_PLM0 | PMUSIM_PLM3;
    else {
        /* a digit first: g_ascii_strtoull would skip blanks and negate */
        char *end = NULL;
        guint64 v = g_ascii_isdigit(s[0]) ? g_ascii_strtoull(s, &end, 0) : 0;
        if (v == 0 || *end || v > 0xf)
            return FALSE;
        *plm = (unsigned)v;
    }
    return TRUE;
}

gboolean pmusim_enc_args_plm(const pmusim_enc_args_t *a, unsigned *plm, GError **error)
{
    *plm = PMUSIM_PLM0 | PMUSIM_PLM3; /* like perf stat: user and kernel */
    if (!a->plm || pmusim_plm_parse(a->plm, plm))
        return TRUE;
    g_set_error(error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                "--plm: expected " PMUSIM_PLM_EXPECTED ", got '%s'", a->plm);
    return FALSE;
}

gboolean pmusim_enc_args_translate(const char *pmu, char **events, GError **error)
{
    for (char **e = events; e && *e; e++) {
        char *native = pmusim_perfev_translate(pmu, *e, error);
        if (!native)
            return FALSE;
        g_free(*e);
        *e = native;
    }
    return TRUE;
}

char **pmusim_enc_args_event_list(const pmusim_enc_args_t *a)
{
    GPtrArray *out = g_ptr_array_new();
    GArray *groups = g_array_new(FALSE, FALSE, sizeof(guint));
    gboolean split = pmusim_perfev_split(a->events, out, groups, NULL);
    g_array_free(groups, TRUE);
    if (split) {
        g_ptr_array_add(out, NULL);
        return (char **)g_ptr_array_free(out, FALSE);
    }
    /* not perf's syntax: plain comma split, the encoder names what is wrong */
    g_ptr_array_set_free_func(out, g_free);
    g_ptr_array_set_size(out, 0);
    g_ptr_array_set_free_func(out, NULL);
    for (char **e = a->events; e && *e; e++) {
        char **parts = g_strsplit(*e, ",", -1);
        for (char **p = parts; *p; p++) {
            char *t = g_strstrip(g_strdup(*p));
            if (*t)
                g_ptr_array_add(out, t);
            else
                g_free(t);
        }
        g_strfreev(parts);
    }
    g_ptr_array_add(out, NULL);
    return (char **)g_ptr_array_free(out, FALSE);
}

char *pmusim_enc_args_pmu_from_events(char **events)
{
    if (!events || !events[0])
        return NULL;
    const char *sep = strstr(events[0], "::");
    if (!sep)
        return NULL;
    return g_strndup(events[0], (gsize)(sep - events[0]));
}

/* An unknown event name may be a misspelt perf name (instructons): the
 * hint of "EV: event not found on P (...)" is worked out again with perf's
 * generic names among the candidates (libpfm-3 and -4 both use -4 for
 * "not found"). */
static void perf_name_hint(const pmusim_encoder_pmu_t *enc, GError *error)
{
    if (error->domain != PMUSIM_ENCODER_ERROR || error->code != -4)
        return;
    char *tail = g_strdup_printf(": event not found on %s", enc->name);
    const char *at = strstr(error->message, tail);
    if (at && at > error->message) {
        char *ev = g_strndup(error->message, (gsize)(at - error->message));
        if (!strpbrk(ev, ":/.")) {
            char *list = pmusim_perfev_generic_list(enc->name);
            char **generic = g_strsplit(list ? list : "", ",", -1);
            for (char **g = generic; *g; g++)
                g_strstrip(*g);
            /* the whole hint again only when a perf name is a candidate at all */
            const char *best[1];
            if (pmusim_suggest(ev, (const char *const *)generic, g_strv_length(generic), best,
                               1)) {
                char *hint = pmusim_encoder_event_hint_ex(enc, ev, (const char *const *)generic,
                                                          g_strv_length(generic));
                char *m = g_strdup_printf("%s%s%s%s%s", ev, tail, hint ? " (" : "",
                                          hint ? hint : "", hint ? ")" : "");
                g_free(error->message);
                error->message = m;
                g_free(hint);
            }
            g_strfreev(generic);
            g_free(list);
        }
        g_free(ev);
    }
    g_free(tail);
}

static void add_opts(GArray *opts, const char *key, char **values)
{
    for (char **v = values; v && *v; v++) {
        pmusim_encode_opt_t o = {.key = key, .value = *v};
        g_array_append_val(opts, o);
    }
}

gboolean pmusim_enc_args_encode(const pmusim_enc_args_t *a, const pmusim_encoder_pmu_t *enc,
                                char **events, GArray *regs, GError **error)
{
    unsigned plm;
    if (!pmusim_enc_args_plm(a, &plm, error))
        return FALSE;
    if (!enc->encode) {
        g_set_error(error, PMUSIM_ENCODER_ERROR, 1, "the %s encoder cannot encode events yet",
                    enc->name);
        return FALSE;
    }
    const char *ita = enc->isa != PMUSIM_ISA_IA64 ? itanium_option_given(a) : NULL;
    if (ita) {
        if (strcmp(ita, "--thres") == 0)
            g_set_error(error, PMUSIM_ENCODER_ERROR, -2,
                        "--thres is an Itanium encoder option; on x86 use the :c=N modifier "
                        "(counter mask), e.g. -e UOPS_RETIRED:ANY:c=2");
        else
            g_set_error(error, PMUSIM_ENCODER_ERROR, -2,
                        "%s is an Itanium encoder option; the %s encoder takes only -O "
                        "thread=N (pmusim events --pmu %s --options)",
                        ita, enc->name, enc->name);
        return FALSE;
    }
    GArray *opts = g_array_new(FALSE, TRUE, sizeof(pmusim_encode_opt_t));
    GPtrArray *keep = g_ptr_array_new_with_free_func(g_free);
    for (char **o = a->opts; o && *o; o++) {
        const char *eq = strchr(*o, '=');
        char *key = eq ? g_strndup(*o, (gsize)(eq - *o)) : g_strdup(*o);
        g_ptr_array_add(keep, key);
        pmusim_encode_opt_t opt = {.key = key, .value = eq ? eq + 1 : "1"};
        g_array_append_val(opts, opt);
    }
    add_opts(opts, "thres", a->thres);
    add_opts(opts, "ism", a->ism);
    add_opts(opts, "irange", a->irange);
    add_opts(opts, "drange", a->drange);
    add_opts(opts, strcmp(enc->name, "ita2") == 0 ? "pmc8" : "opcm1", a->opcm);
    add_opts(opts, "opcm1", a->opcm1);
    add_opts(opts, "opcm2", a->opcm2);
    add_opts(opts, "pmc8", a->pmc8);
    add_opts(opts, "pmc9", a->pmc9);
    add_opts(opts, "dear", a->dear);
    add_opts(opts, "iear", a->iear);
    add_opts(opts, "btb", a->btb);
    add_opts(opts, "etb", a->etb);
    add_opts(opts, "ipear", a->ipear);
    static char *one[] = {"1", NULL};
    if (a->no_qualcheck)
        add_opts(opts, "no_qualcheck", one);
    if (a->rr_inv)
        add_opts(opts, "rr_inv", one);
    if (a->no_fine_mode)
        add_opts(opts, "no_fine_mode", one);
    if (a->systemwide)
        add_opts(opts, "systemwide", one);
    size_t nev = events ? g_strv_length(events) : 0;
    gboolean ok = enc->encode((const char *const *)events, nev,
                              (const pmusim_encode_opt_t *)(void *)opts->data, opts->len, plm,
                              regs, error);
    g_array_free(opts, TRUE);
    g_ptr_array_free(keep, TRUE);
    if (!ok && error && *error)
        perf_name_hint(enc, *error);
    return ok;
}

gboolean pmusim_enc_args_build_regs(const pmusim_enc_args_t *a, const char *pmu, char **events,
                                    char **regs_files, GArray *regs, GError **error)
{
    if (events && events[0]) {
        const pmusim_encoder_pmu_t *enc = pmusim_encoder_find(pmu);
        if (!enc) {
            g_set_error(error, PMUSIM_ENCODER_ERROR, 1, "no encoder for PMU %s", pmu);
            return FALSE;
        }
        if (!pmusim_enc_args_encode(a, enc, events, regs, error))
            return FALSE;
    }
    for (char **f = regs_files; f && *f; f++)
        if (!pmusim_regs_load(*f, regs, error))
            return FALSE;
    return TRUE;
}

void pmusim_enc_args_clear(pmusim_enc_args_t *a)
{
    char ***arrays[] = {&a->events, &a->opts, &a->thres, &a->ism, &a->irange, &a->drange,
                        &a->opcm, &a->opcm1, &a->opcm2, &a->pmc8, &a->pmc9,
                        &a->dear,   &a->iear, &a->btb,   &a->etb, &a->ipear};
    for (size_t i = 0; i < G_N_ELEMENTS(arrays); i++) {
        g_strfreev(*arrays[i]);
        *arrays[i] = NULL;
    }
    g_free(a->plm);
    a->plm = NULL;
}

int pmusim_run_setup(pmusim_run_setup_t *run, const pmusim_enc_args_t *a, const char *cmd,
                     const char *trace, const char *pmu_opt, char **regs_files,
                     gboolean defaults)
{
    GError *error = NULL;
    int status = 0;
    char *pmu = NULL;
    run->regs = pmusim_regs_new();
    /* perf's event syntax: cpu/.../ terms and {groups} (sim/cli/perfev.c) */
    GPtrArray *evs = g_ptr_array_new();
    GArray *groups = g_array_new(FALSE, FALSE, sizeof(guint));
    gboolean split_ok = pmusim_perfev_split(a->events, evs, groups, &error);
    g_ptr_array_add(evs, NULL);
    run->events = (char **)g_ptr_array_free(evs, FALSE);
    g_array_free(groups, TRUE);
    if (!split_ok) {
        status = pmusim_cli_usage(cmd, "%s", error->message);
        goto out;
    }
    run->reader = pmusim_trace_reader_open(trace, &error);
    if (!run->reader) {
        status = pmusim_cli_fail(error);
        goto out;
    }
    const pmusim_trace_header_t *h = pmusim_trace_reader_header(run->reader);
    pmu = pmu_opt ? g_strdup(pmu_opt) : pmusim_enc_args_pmu_from_events(run->events);
    if (!pmu && h->cpu == PMUSIM_CPU_NONE) {
        status = pmusim_cli_usage(cmd, "%s: the trace names no CPU ('cpu none'): choose the "
                                  "model with -p (ita2, mont, wsm, wsm_dp, knm)", trace);
        goto out;
    }
    if (!pmu)
        pmu = g_strdup(pmusim_cpu_name(h->cpu));
    {
        const char *canon = pmusim_encoder_canonical_name(pmu); /* aliases: westmere, ... */
        run->ops = pmusim_model_find(canon ? canon : pmu);
    }
    if (!run->ops) {
        status = pmusim_cli_unknown_pmu(cmd, pmu);
        goto out;
    }
    {
        /* a trace of one CPU replayed on another model of the same ISA is
         * allowed (the fields mean the same), but say so */
        const char *tcpu = pmusim_cpu_name(h->cpu);
        const pmusim_encoder_pmu_t *te = pmusim_encoder_find(tcpu);
        const pmusim_encoder_pmu_t *me = pmusim_encoder_find(run->ops->name);
        if (te && me && te != me && te->isa == me->isa)
            fprintf(stderr, "pmusim %s: note: %s was recorded on %s; counting it with the %s "
                    "model\n", cmd, trace, te->name, me->name);
    }
    if (defaults && !run->events[0] && !regs_files) {
        g_strfreev(run->events);
        run->events = g_strsplit(pmusim_cli_default_events(run->ops->name), ",", -1);
    }
    if (!pmusim_enc_args_translate(run->ops->name, run->events, &error)) {
        status = pmusim_cli_fail(error);
        goto out;
    }
    if (!pmusim_enc_args_build_regs(a, run->ops->name, run->events, regs_files, run->regs,
                                    &error))
        status = pmusim_cli_fail(error);
out:
    g_clear_error(&error);
    g_free(pmu);
    return status;
}

void pmusim_run_setup_clear(pmusim_run_setup_t *run)
{
    if (run->reader)
        pmusim_trace_reader_free(run->reader);
    if (run->regs)
        g_array_free(run->regs, TRUE);
    g_strfreev(run->events);
    memset(run, 0, sizeof *run);
}
