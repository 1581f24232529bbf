/* Small helpers shared by the pmusim subcommands. */
#include "cmds.h"
#include "pmusim/encoder.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static unsigned cli_closed_std_fds;

/* A descriptor left closed would be the next one open() returns: the trace
 * pmusim writes would then be its stderr (messages inside the trace) or a
 * program's stdout.  Each closed one gets /dev/null opened the other way
 * round (write-only for stdin, read-only for stdout and stderr), so that
 * using it still fails with EBADF as a closed one does. */
void pmusim_cli_guard_std_fds(void)
{
    for (int fd = 0; fd <= 2; fd++) {
        if (fcntl(fd, F_GETFD) >= 0 || errno != EBADF)
            continue;
        int got = open("/dev/null", fd == 0 ? O_WRONLY : O_RDONLY);
        if (got == fd)
            cli_closed_std_fds |= 1u << fd;
        else if (got >= 0)
            close(got); /* another thread took it: cannot happen at start-up */
    }
}

unsigned pmusim_cli_closed_std_fds(void)
{
    return cli_closed_std_fds;
}

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


/* ------------------------------------------------------------ option parsing */

/* Examples shown at the end of each command's --help (docs/CLI.md). */
static const struct {
    const char *cmd, *text;
} examples[] = {
    {"stat", "Examples:\n"
             "  pmusim stat traces/samples/wsm_loop.txt\n"
             "  pmusim stat -e cycles,instructions,UOPS_RETIRED:ANY:c=1 traces/samples/wsm_loop.txt\n"
             "  pmusim stat -p ita2 -e IA64_INST_RETIRED --thres IA64_INST_RETIRED=2 traces/samples/ita2_loop.txt\n"
             "\nItanium encoder options (--thres, --irange, --dear, ...): pmusim stat --help-itanium"},
    {"record", "Examples:\n"
               "  pmusim record -e cycles -c 100 -o perf.data traces/samples/wsm_loop.txt\n"
               "  pmusim record -p ita2 -e CPU_CYCLES -c 500 traces/samples/ita2_loop.txt"},
    {"report", "Examples:\n"
               "  pmusim report perf.data"},
    {"script", "Examples:\n"
               "  pmusim script perf.data"},
    {"events", "Examples:\n"
               "  pmusim events --pmu wsm 'UOPS_*'\n"
               "  pmusim events wsm::UOPS_RETIRED:ANY:c=1\n"
               "  pmusim events --pmu ita2 --json\n"
               "  pmusim events --pmu knm --names"},
    {"encode", "Examples:\n"
               "  pmusim encode wsm::INST_RETIRED:ANY_P,wsm::UOPS_RETIRED:ANY:c=1\n"
               "  pmusim encode -p ita2 --explain-regs CPU_CYCLES\n"
               "  pmusim encode -p mont --thres IA64_INST_RETIRED=2 IA64_INST_RETIRED > inst.regs\n"
               "\nItanium encoder options (--thres, --irange, --dear, ...): pmusim encode --help-itanium"},
    {"check", "Examples:\n"
              "  pmusim check tests/golden/core/check/slices.ini\n"
              "  pmusim check --tap -j 2 tests/golden/core/check/slices.ini tests/golden/sim_ia64/samples.check\n"
              "  pmusim check --junit results.xml tests/golden/core/check/slices.ini"},
    {"trace info", "Examples:\n"
                   "  pmusim trace info traces/samples/mont_2threads.txt\n"
                   "  pmusim trace info --strict traces/samples/wsm_loop.txt"},
    {"trace dump", "Examples:\n"
                   "  pmusim trace dump traces/samples/ita2_loop.txt"},
    {"trace gen", "Examples:\n"
                  "  pmusim trace gen --cpu wsm --workload mixed --records 100000 mixed.pmt\n"
                  "  pmusim trace gen --cpu knm --threads 4 --hit-ratio 0.9 --records 1000 knm.txt"},
};

static GPtrArray *help_groups; /* GOptionGroup * shown by --help-NAME */

void pmusim_cli_register_group(GOptionGroup *group, const char *name)
{
    if (!help_groups)
        help_groups = g_ptr_array_new_with_free_func(g_free);
    g_ptr_array_add(help_groups, g_strdup(name));
    g_ptr_array_add(help_groups, group);
}

/* GLib's help text with the usage line as "pmusim CMD [OPTIONS] PARAMS". */
static char *help_text(GOptionContext *ctx, const char *cmd, gboolean main_only,
                       GOptionGroup *group)
{
    char *raw = g_option_context_get_help(ctx, main_only, group);
    GString *out = g_string_new(NULL);
    const char *line = strstr(raw, "Usage:\n");
    const char *rest = raw;
    if (line) {
        const char *start = line + strlen("Usage:\n");
        const char *eol = strchr(start, '\n');
        if (!eol)
            eol = start + strlen(start);
        const char *br = g_strstr_len(start, eol - start, "] ");
        g_string_append_len(out, raw, start - raw);
        g_string_append_printf(out, "  pmusim %s [OPTIONS]", cmd);
        if (br)
            g_string_append_len(out, br + 1, eol - (br + 1));
        rest = eol;
    }
    g_string_append(out, rest);
    g_free(raw);
    return g_string_free(out, FALSE);
}

static void set_examples(GOptionContext *ctx, const char *cmd)
{
    if (g_option_context_get_description(ctx))
        return;
    for (size_t i = 0; i < G_N_ELEMENTS(examples); i++)
        if (strcmp(examples[i].cmd, cmd) == 0)
            g_option_context_set_description(ctx, examples[i].text);
}

/* The long option names a context knows, read from its full help text: the
 * lines "  -x, --name=ARG  text" and "  --name  text" (never a "--word" in a
 * description). */
static GPtrArray *long_options(GOptionContext *ctx)
{
    GPtrArray *names = g_ptr_array_new_with_free_func(g_free);
    char *help = g_option_context_get_help(ctx, FALSE, NULL);
    char **lines = g_strsplit(help, "\n", -1);
    for (char **l = lines; *l; l++) {
        const char *p = *l;
        if (p[0] != ' ')
            continue;
        while (*p == ' ')
            p++;
        if (p[0] == '-' && p[1] && p[1] != '-' && p[2] == ',' && p[3] == ' ')
            p += 4;
        if (p[0] != '-' || p[1] != '-')
            continue;
        p += 2;
        size_t n = 0;
        while (g_ascii_isalnum(p[n]) || p[n] == '-' || p[n] == '_')
            n++;
        if (n)
            g_ptr_array_add(names, g_strndup(p, n));
    }
    g_strfreev(lines);
    g_free(help);
    return names;
}

/* Every command's output to stdout is checked here once: a full disk or a
 * closed pipe must not end in exit status 0 with a truncated output
 * (`pmusim encode ... > my.regs`).  Files pmusim opens itself are checked by
 * traces/outfile.c.  The help that pmusim_cli_parse() prints and exits
 * after is checked too. */
const char **pmusim_cli_inputs(const char *trace, char **regs_files)
{
    guint n = regs_files ? g_strv_length(regs_files) : 0;
    const char **inputs = g_new0(const char *, n + 2);
    inputs[0] = trace;
    for (guint i = 0; i < n; i++)
        inputs[i + 1] = regs_files[i];
    return inputs;
}

int pmusim_cli_check_stdout(int status)
{
    errno = 0;
    if (fflush(stdout) != 0 || ferror(stdout)) {
        fprintf(stderr, "pmusim: write error on standard output: %s\n",
                errno ? g_strerror(errno) : "I/O error");
        return status ? status : 1;
    }
    return status;
}

gboolean pmusim_cli_parse(GOptionContext *ctx, const char *cmd, int *argc, char ***argv,
                          GError **error)
{
    set_examples(ctx, cmd);
    /* --help, -h, -?, --help-all, --help-GROUP are answered here so that the
     * usage line names the command as it is typed */
    for (int i = 1; i < *argc; i++) {
        const char *a = (*argv)[i];
        if (strcmp(a, "--") == 0)
            break;
        gboolean main_only = TRUE;
        GOptionGroup *group = NULL;
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0 || strcmp(a, "-?") == 0) {
            main_only = TRUE;
        } else if (strcmp(a, "--help-all") == 0) {
            main_only = FALSE;
        } else if (g_str_has_prefix(a, "--help-") && help_groups) {
            for (guint k = 0; k + 1 < help_groups->len && !group; k += 2)
                if (strcmp(a + 7, g_ptr_array_index(help_groups, k)) == 0)
                    group = g_ptr_array_index(help_groups, k + 1);
            if (!group)
                continue;
            main_only = FALSE;
        } else {
            continue;
        }
        char *text = help_text(ctx, cmd, main_only, group);
        fputs(text, stdout);
        g_free(text);
        exit(pmusim_cli_check_stdout(0));
    }
    GError *err = NULL;
    if (g_option_context_parse(ctx, argc, argv, &err))
        return TRUE;
    if (g_error_matches(err, G_OPTION_ERROR, G_OPTION_ERROR_UNKNOWN_OPTION)) {
        /* "Unknown option --evnt": suggest the closest long option */
        const char *opt = strrchr(err->message, ' ');
        opt = opt ? opt + 1 : err->message;
        if (g_str_has_prefix(opt, "--")) {
            char *word = g_strdup(opt + 2);
            char *eq = strchr(word, '=');
            if (eq)
                *eq = '\0';
            GPtrArray *names = long_options(ctx);
            char *dym = pmusim_suggest_text(word, (const char *const *)names->pdata, names->len);
            if (dym) {
                /* "did you mean a or b?" with the dashes back */
                GString *s = g_string_new(NULL);
                const char *out[3];
                size_t n = pmusim_suggest(word, (const char *const *)names->pdata, names->len, out,
                                          3);
                for (size_t k = 0; k < n; k++)
                    g_string_append_printf(s, "%s--%s", k == 0 ? "" : k + 1 == n ? " or " : ", ",
                                           out[k]);
                char *m = g_strdup_printf("%s (did you mean %s?)", err->message, s->str);
                g_free(err->message);
                err->message = m;
                g_string_free(s, TRUE);
            }
            g_free(dym);
            g_ptr_array_free(names, TRUE);
            g_free(word);
        }
    }
    g_propagate_error(error, err);
    return FALSE;
}

int pmusim_cli_unknown_pmu(const char *cmd, const char *pmu)
{
    const char *const *names = pmusim_encoder_pmu_names(TRUE);
    char *dym = pmusim_suggest_text(pmu, names, g_strv_length((char **)names));
    int r = pmusim_cli_usage(cmd, "unknown PMU '%s' (%s%sknown: ita2, mont, wsm, wsm_dp, knm)",
                             pmu, dym ? dym : "", dym ? " " : "");
    g_free(dym);
    return r;
}
