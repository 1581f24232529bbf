/* pmusim script: the samples of a perf.data file (pmusim record -o), one
 * line each, in the shape of `perf script -F comm,tid,time,event,ip,sym,
 * addr,period,weight,data_src,brstack` (docs/SAMPLING.md "pmusim script"). */
#include "cmds.h"
#include "../perfdata/perfdata.h"

#include <stdio.h>
#include <string.h>

int pmusim_cli_perf_open(int argc, char **argv, const char *cmd, const char *summary,
                         pd_file_t *f, pd_symbols_t *syms)
{
    const GOptionEntry entries[] = {{NULL, 0, 0, 0, NULL, NULL, NULL}};
    GOptionContext *ctx = g_option_context_new("FILE");
    g_option_context_set_summary(ctx, summary);
    g_option_context_add_main_entries(ctx, entries, NULL);
    GError *error = NULL;
    int status = 0;
    pd_file_init(f);
    if (!pmusim_cli_parse(ctx, cmd, &argc, &argv, &error))
        status = pmusim_cli_usage(cmd, "%s", error->message);
    else if (argc != 2)
        status = pmusim_cli_usage(cmd, "expected exactly one perf.data FILE");
    else if (!pd_file_read(f, argv[1], &error))
        status = pmusim_cli_fail(error);
    else
        pd_symbols_load(syms, f);
    g_clear_error(&error);
    g_option_context_free(ctx);
    return status;
}

int pmusim_cmd_script(int argc, char **argv)
{
    pd_file_t f = {0};
    pd_symbols_t syms = {0};
    int status = pmusim_cli_perf_open(
        argc, argv, "script",
        "Print every sample of a perf.data file written by 'pmusim record -o': command,\n"
        "tid, time (seconds of the simulated clock), period, event, IP and symbol, and\n"
        "what the capture units captured (address, latency, data source, branch stack).",
        &f, &syms);
    if (status)
        goto out;
    for (guint i = 0; i < f.samples->len; i++) {
        const pd_sample_t *s = &g_array_index(f.samples, pd_sample_t, i);
        const char *ev = pd_event_name(&f, s->id);
        char sym[200], src[96];
        pd_symbol_text(&syms, s->ip, sym, sizeof sym);
        printf("%16s %6u %6" G_GUINT64_FORMAT ".%09" G_GUINT64_FORMAT ": %10" G_GUINT64_FORMAT
               " %s:  %16" G_GINT64_MODIFIER "x %s",
               pd_comm_of(&f, s->tid), s->tid, (guint64)(s->time / 1000000000u),
               (guint64)(s->time % 1000000000u), (guint64)s->period, ev, (guint64)s->ip, sym);
        if (s->data_src != PD_DATA_SRC_NA && s->data_src != 0) { /* 0: no DATA_SRC field */
            pd_data_src_text(s->data_src, src, sizeof src);
            printf("  addr %16" G_GINT64_MODIFIER "x weight %" G_GUINT64_FORMAT " |%s|",
                   (guint64)s->addr, (guint64)s->weight, src);
        } else if (s->addr || s->weight) {
            printf("  addr %16" G_GINT64_MODIFIER "x weight %" G_GUINT64_FORMAT, (guint64)s->addr,
                   (guint64)s->weight);
        }
        for (uint32_t b = 0; b < s->nbranches; b++) {
            const pd_branch_t *br = &g_array_index(f.branches, pd_branch_t, s->branch0 + b);
            printf("%s0x%" G_GINT64_MODIFIER "x/0x%" G_GINT64_MODIFIER "x/%s",
                   b ? " " : "  brstack ", (guint64)br->from, (guint64)br->to,
                   (br->flags & PD_BRANCH_MISPRED) ? "M" : "P");
        }
        putchar('\n');
    }
    if (fflush(stdout) != 0 || ferror(stdout)) {
        fprintf(stderr, "pmusim: writing stdout failed\n");
        status = 1;
    }
out:
    pd_symbols_clear(&syms);
    pd_file_clear(&f);
    return status;
}
