/* Small helpers shared by the pmusim subcommands. */
#include "cmds.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int pmusim_cli_fail(const GError *error)
{
    fprintf(stderr, "pmusim: %s\n", error ? error->message : "unknown error");
    return 1;
}

int pmusim_cli_usage(const char *cmd, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *msg = g_strdup_vprintf(fmt, ap);
    va_end(ap);
    fprintf(stderr, "pmusim %s: %s\n(see 'pmusim %s --help')\n", cmd, msg, cmd);
    g_free(msg);
    return 2;
}

gboolean pmusim_cli_show_progress(void)
{
    return isatty(STDERR_FILENO) ? TRUE : FALSE;
}

void pmusim_cli_explain_regs(const pmusim_model_ops_t *ops, const GArray *regs, FILE *fp)
{
    GString *line = g_string_new(NULL);
    for (guint i = 0; i < regs->len; i++) {
        const pmusim_regwrite_t *w = &g_array_index(regs, pmusim_regwrite_t, i);
        const char *msr = w->space == PMUSIM_REG_MSR ? pmusim_msr_name(w->num) : NULL;
        if (msr)
            g_string_printf(line, "# %s", msr);
        else if (w->space == PMUSIM_REG_MSR)
            g_string_printf(line, "# msr 0x%x", w->num);
        else
            g_string_printf(line, "# %s%u", pmusim_regspace_name(w->space), w->num);
        if (w->thread != PMUSIM_THREAD_ALL)
            g_string_append_printf(line, " @%u", w->thread);
        g_string_append(line, ": ");
        if (!ops->describe_reg || !ops->describe_reg(w->space, w->num, w->value, line))
            g_string_append_printf(line, "0x%" G_GINT64_MODIFIER "x: not a register of %s",
                                   w->value, ops->name);
        fprintf(fp, "%s\n", line->str);
    }
    g_string_free(line, TRUE);
}

const char *pmusim_cli_default_events(const char *pmu)
{
    if (strcmp(pmu, "ita2") == 0)
        return "CPU_CYCLES,IA64_INST_RETIRED";
    if (strcmp(pmu, "mont") == 0)
        return "CPU_OP_CYCLES_ALL,IA64_INST_RETIRED";
    if (strcmp(pmu, "knm") == 0)
        return "knm::UNHALTED_CORE_CYCLES,knm::INSTRUCTION_RETIRED";
    if (strcmp(pmu, "wsm_dp") == 0)
        return "wsm_dp::UNHALTED_CORE_CYCLES,wsm_dp::INST_RETIRED:ANY_P";
    return "wsm::UNHALTED_CORE_CYCLES,wsm::INST_RETIRED:ANY_P";
}

/* Writes s as a JSON string literal (quotes, backslashes and control characters escaped). */
void pmusim_cli_json_string(FILE *fp, const char *s)
{
    /* JSON text is UTF-8 (RFC 8259 section 8.1): a byte that does not start a
     * valid sequence (a label or symbol read from a file) becomes U+FFFD */
    fputc('"', fp);
    const char *end = s + strlen(s);
    while (*s) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\') {
            fprintf(fp, "\\%c", c);
            s++;
        } else if (c < 0x20) {
            fprintf(fp, "\\u%04x", c);
            s++;
        } else if (c < 0x80) {
            fputc(c, fp);
            s++;
        } else {
            const char *next = g_utf8_find_next_char(s, end);
            gunichar u = g_utf8_get_char_validated(s, next ? next - s : end - s);
            if (u == (gunichar)-1 || u == (gunichar)-2 || !next) {
                fputs("\\ufffd", fp);
                s++;
            } else {
                fwrite(s, 1, (size_t)(next - s), fp);
                s = next;
            }
        }
    }
    fputc('"', fp);
}

