/* pmusim encode: events -> register writes, printed in the --regs format
 * that `pmusim stat --regs` reads back. */
#include "cmds.h"
#include "enc_args.h"

#include <stdio.h>
#include <stdlib.h>

int pmusim_cmd_encode(int argc, char **argv)
{
    pmusim_enc_args_t ea = {0};
    char *pmu = NULL;
    gboolean regs_only = FALSE, explain_regs = FALSE;
    const GOptionEntry entries[] = {
        {"pmu", 'p', 0, G_OPTION_ARG_STRING, &pmu,
         "PMU: ita2, mont, wsm, wsm_dp, knm (default: the events' pmu:: prefix)", "NAME"},
        {"regs-only", 0, 0, G_OPTION_ARG_NONE, &regs_only,
         "print only the register writes (no explanation)", NULL},
        {"explain-regs", 0, 0, G_OPTION_ARG_NONE, &explain_regs,
         "after the writes, decode each one field by field ('# REG: ...' lines)", NULL},
        {NULL, 0, 0, 0, NULL, NULL, NULL},
    };
    GOptionContext *ctx = g_option_context_new("[EVENT[,EVENT...]]...");
    g_option_context_set_summary(ctx,
        "Encode events into the register writes that program them, in the text form\n"
        "that 'pmusim stat --regs' reads (docs/REGS.md).  Explanations are '#' comments.");
    g_option_context_add_main_entries(ctx, entries, NULL);
    pmusim_enc_args_add(ctx, &ea);
    GError *error = NULL;
    int status = 0;
    GArray *regs = pmusim_regs_new();
    GString *expl = g_string_new(NULL); /* the explanations (# lines) */
    char **events = NULL;
    if (!pmusim_cli_parse(ctx, "encode", &argc, &argv, &error)) {
        status = pmusim_cli_usage("encode", "%s", error->message);
        goto out;
    }
    /* Positional arguments are events too. */
    {
        GPtrArray *all = g_ptr_array_new();
        for (char **e = ea.events; e && *e; e++)
            g_ptr_array_add(all, g_strdup(*e));
        for (int i = 1; i < argc; i++)
            g_ptr_array_add(all, g_strdup(argv[i]));
        g_ptr_array_add(all, NULL);
        g_strfreev(ea.events);
        ea.events = (char **)g_ptr_array_free(all, FALSE);
    }
    events = pmusim_enc_args_event_list(&ea);
    if (!events[0]) {
        status = pmusim_cli_usage("encode", "no event given");
        goto out;
    }
    if (!pmu)
        pmu = pmusim_enc_args_pmu_from_events(events);
    if (!pmu) {
        status = pmusim_cli_usage("encode", "say which PMU: --pmu NAME or a 'pmu::' prefix");
        goto out;
    }
    const pmusim_encoder_pmu_t *enc = pmusim_encoder_find(pmu);
    if (!enc) {
        status = pmusim_cli_unknown_pmu("encode", pmu);
        goto out;
    }
    if (!pmusim_enc_args_translate(enc->name, events, &error)) { /* perf names */
        status = pmusim_cli_fail(error);
        goto out;
    }
    if (!regs_only && enc->explain) {
        unsigned plm;
        if (!pmusim_enc_args_plm(&ea, &plm, &error)) {
            status = pmusim_cli_usage("encode", "%s", error->message);
            goto out;
        }
        /* Explanations become '#' comments so that the whole output stays a
         * valid --regs file; they are printed once the encoding succeeded
         * (an option it refuses must leave stdout empty) */
        for (char **e = events; *e; e++) {
            char *buf = NULL;
            size_t len = 0;
            FILE *mem = open_memstream(&buf, &len);
            gboolean ok = enc->explain(*e, plm, mem, &error);
            fclose(mem);
            if (ok) {
                char **lines = g_strsplit(buf, "\n", -1);
                for (char **l = lines; *l; l++)
                    if (**l || l[1])
                        g_string_append_printf(expl, "# %s\n", *l);
                g_strfreev(lines);
            }
            free(buf);
            if (!ok) {
                status = pmusim_cli_fail(error);
                goto out;
            }
        }
    }
    if (!pmusim_enc_args_encode(&ea, enc, events, regs, &error)) {
        status = pmusim_cli_fail(error);
        goto out;
    }
    fputs(expl->str, stdout);
    if (!regs_only)
        printf("# register writes (pmusim stat --regs FILE)\n");
    pmusim_regs_print(regs, stdout);
    if (explain_regs) {
        const pmusim_model_ops_t *ops = pmusim_model_find(enc->name);
        if (ops)
            pmusim_cli_explain_regs(ops, regs, stdout);
    }
out:
    g_string_free(expl, TRUE);
    if (error)
        g_error_free(error);
    g_array_free(regs, TRUE);
    g_strfreev(events);
    g_free(pmu);
    pmusim_enc_args_clear(&ea);
    g_option_context_free(ctx);
    return status;
}
