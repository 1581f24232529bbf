/* Register-write lists and their text form (docs/REGS.md).
 *
 * One line per write:  REG [NUM] VALUE [@THREAD] [# LABEL]
 *   REG is pmcN, pmdN, ibrN, dbrN, "msr ADDR", or a known MSR name
 *   (IA32_PERFEVTSEL0 ...).  Numbers are decimal or 0x-hex.  Blank lines
 *   and lines starting with '#' are ignored.  "@cycle N" makes the writes
 *   after it apply before the records of cycle N (timed writes).  The text after '#' on a
 *   register line becomes the write's label (the event it programs).
 */
#include "pmusim/regs.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

G_DEFINE_QUARK(pmusim-regs-error-quark, pmusim_regs_error)

typedef struct {
    uint32_t addr;
    const char *name;
} msr_name_t;

/* Architectural and model-specific MSRs the x86 models implement
 * (../shared/reference/x86-pmu.md §2). */
static const msr_name_t msr_names[] = {
    {0x0c1, "IA32_PMC0"},        {0x0c2, "IA32_PMC1"},        {0x0c3, "IA32_PMC2"},
    {0x0c4, "IA32_PMC3"},        {0x186, "IA32_PERFEVTSEL0"}, {0x187, "IA32_PERFEVTSEL1"},
    {0x188, "IA32_PERFEVTSEL2"}, {0x189, "IA32_PERFEVTSEL3"}, {0x1a6, "MSR_OFFCORE_RSP_0"},
    {0x1a7, "MSR_OFFCORE_RSP_1"}, {0x1d9, "IA32_DEBUGCTL"},   {0x309, "IA32_FIXED_CTR0"},
    {0x30a, "IA32_FIXED_CTR1"},  {0x30b, "IA32_FIXED_CTR2"},  {0x345, "IA32_PERF_CAPABILITIES"},
    {0x38d, "IA32_FIXED_CTR_CTRL"}, {0x38e, "IA32_PERF_GLOBAL_STATUS"},
    {0x38f, "IA32_PERF_GLOBAL_CTRL"}, {0x390, "IA32_PERF_GLOBAL_OVF_CTRL"},
    {0x3f1, "IA32_PEBS_ENABLE"}, {0x3f6, "MSR_PEBS_LD_LAT_THRESHOLD"}, {0x600, "IA32_DS_AREA"},
};

const char *pmusim_msr_name(uint32_t addr)
{
    for (size_t i = 0; i < G_N_ELEMENTS(msr_names); i++)
        if (msr_names[i].addr == addr)
            return msr_names[i].name;
    return NULL;
}

static const char *const space_names[] = {
    [PMUSIM_REG_PMC] = "pmc", [PMUSIM_REG_PMD] = "pmd", [PMUSIM_REG_IBR] = "ibr",
    [PMUSIM_REG_DBR] = "dbr", [PMUSIM_REG_MSR] = "msr",
};

const char *pmusim_regspace_name(pmusim_regspace_t s)
{
    if ((unsigned)s < G_N_ELEMENTS(space_names))
        return space_names[s];
    return "?";
}

GArray *pmusim_regs_new(void)
{
    return g_array_new(FALSE, TRUE, sizeof(pmusim_regwrite_t));
}

void pmusim_regs_add(GArray *regs, pmusim_regspace_t space, uint32_t num, uint64_t value,
                     uint32_t thread, const char *label)
{
    pmusim_regwrite_t w = {.space = space, .num = num, .value = value, .thread = thread};
    if (label)
        g_strlcpy(w.label, label, sizeof w.label);
    g_array_append_val(regs, w);
}

/* Parses an unsigned number (decimal or 0x-hex) that must fill the whole token. */
static gboolean parse_u64(const char *tok, uint64_t *out)
{
    if (!tok || !*tok || *tok == '-' || *tok == '+')
        return FALSE;
    char *end = NULL;
    errno = 0;
    guint64 v = g_ascii_strtoull(tok, &end, 0);
    if (errno == ERANGE || end == tok || *end)
        return FALSE;
    *out = v;
    return TRUE;
}

static gboolean parse_line(char *line, const char *name, unsigned lineno, uint64_t at_cycle,
                           GArray *out, GError **error)
{
    char *label = NULL;
    char *hash = strchr(line, '#');
    if (hash) {
        *hash = '\0';
        label = g_strstrip(hash + 1);
    }
    char *toks[6];
    int nt = 0;
    char *save = NULL;
    for (char *t = strtok_r(line, " \t\r=", &save); t; t = strtok_r(NULL, " \t\r=", &save)) {
        if (nt == G_N_ELEMENTS(toks)) {
            g_set_error(error, PMUSIM_REGS_ERROR, PMUSIM_REGS_ERROR_PARSE,
                        "%s:%u: too many fields (expected REG [NUM] VALUE [@THREAD])", name,
                        lineno);
            return FALSE;
        }
        toks[nt++] = t;
    }
    if (nt == 0)
        return TRUE;

    pmusim_regwrite_t w = {.thread = PMUSIM_THREAD_ALL, .at_cycle = at_cycle};
    int i = 0;
    const char *reg = toks[i++];
    static const struct {
        const char *prefix;
        pmusim_regspace_t space;
        uint32_t max;
    } spaces[] = {
        {"pmc", PMUSIM_REG_PMC, 255}, {"pmd", PMUSIM_REG_PMD, 255},
        {"ibr", PMUSIM_REG_IBR, 15},  {"dbr", PMUSIM_REG_DBR, 15},
    };
    gboolean found = FALSE;
    if (g_ascii_strcasecmp(reg, "msr") == 0) {
        uint64_t addr;
        if (i >= nt || !parse_u64(toks[i], &addr) || addr > 0xffffffffu) {
            g_set_error(error, PMUSIM_REGS_ERROR, PMUSIM_REGS_ERROR_PARSE,
                        "%s:%u: 'msr' needs an address (e.g. msr 0x186 0x43003c)", name, lineno);
            return FALSE;
        }
        i++;
        w.space = PMUSIM_REG_MSR;
        w.num = (uint32_t)addr;
        found = TRUE;
    }
    for (size_t s = 0; !found && s < G_N_ELEMENTS(spaces); s++) {
        size_t pl = strlen(spaces[s].prefix);
        uint64_t n;
        if (g_ascii_strncasecmp(reg, spaces[s].prefix, pl) == 0 && parse_u64(reg + pl, &n)) {
            if (n > spaces[s].max || (reg[pl] == '0' && reg[pl + 1])) {
                g_set_error(error, PMUSIM_REGS_ERROR, PMUSIM_REGS_ERROR_PARSE,
                            "%s:%u: register number in '%s' out of range (0..%u, decimal)", name,
                            lineno, reg, spaces[s].max);
                return FALSE;
            }
            w.space = spaces[s].space;
            w.num = (uint32_t)n;
            found = TRUE;
        }
    }
    for (size_t s = 0; !found && s < G_N_ELEMENTS(msr_names); s++) {
        if (g_ascii_strcasecmp(reg, msr_names[s].name) == 0) {
            w.space = PMUSIM_REG_MSR;
            w.num = msr_names[s].addr;
            found = TRUE;
        }
    }
    if (!found) {
        g_set_error(error, PMUSIM_REGS_ERROR, PMUSIM_REGS_ERROR_PARSE,
                    "%s:%u: unknown register '%s' (expected pmcN, pmdN, ibrN, dbrN, "
                    "'msr ADDR' or an MSR name such as IA32_PERFEVTSEL0)",
                    name, lineno, reg);
        return FALSE;
    }
    if (i >= nt || !parse_u64(toks[i], &w.value)) {
        g_set_error(error, PMUSIM_REGS_ERROR, PMUSIM_REGS_ERROR_PARSE,
                    "%s:%u: expected a 64-bit value after '%s', got '%s'", name, lineno, reg,
                    i < nt ? toks[i] : "end of line");
        return FALSE;
    }
    i++;
    if (i < nt) {
        uint64_t th;
        if (toks[i][0] != '@' || !parse_u64(toks[i] + 1, &th) || th >= PMUSIM_THREAD_ALL) {
            g_set_error(error, PMUSIM_REGS_ERROR, PMUSIM_REGS_ERROR_PARSE,
                        "%s:%u: expected '@THREAD' or '# label' after the value, got '%s'", name,
                        lineno, toks[i]);
            return FALSE;
        }
        w.thread = (uint32_t)th;
        i++;
    }
    if (i < nt) {
        g_set_error(error, PMUSIM_REGS_ERROR, PMUSIM_REGS_ERROR_PARSE,
                    "%s:%u: unexpected '%s' at end of line", name, lineno, toks[i]);
        return FALSE;
    }
    if (label)
        g_strlcpy(w.label, label, sizeof w.label);
    g_array_append_val(out, w);
    return TRUE;
}

/* "@cycle N [# comment]": the writes that follow apply before the records of
 * cycle N.  Cycles never go back, so a file reads in time order. */
static gboolean parse_at_cycle(char *line, const char *name, unsigned lineno, uint64_t *at_cycle,
                               GError **error)
{
    char *hash = strchr(line, '#');
    if (hash)
        *hash = '\0';
    uint64_t c;
    gboolean spaced = line[6] == ' ' || line[6] == '\t' || line[6] == '\0';
    char *arg = g_strstrip(line + 6);
    if (!spaced) {
        g_set_error(error, PMUSIM_REGS_ERROR, PMUSIM_REGS_ERROR_PARSE,
                    "%s:%u: expected '@cycle N'", name, lineno);
        return FALSE;
    }
    if (!parse_u64(arg, &c)) {
        g_set_error(error, PMUSIM_REGS_ERROR, PMUSIM_REGS_ERROR_PARSE,
                    "%s:%u: '@cycle' needs a cycle number (decimal or 0x-hex), got '%s'", name,
                    lineno, *arg ? arg : "end of line");
        return FALSE;
    }
    if (c < *at_cycle) {
        g_set_error(error, PMUSIM_REGS_ERROR, PMUSIM_REGS_ERROR_PARSE,
                    "%s:%u: '@cycle %" G_GUINT64_FORMAT "' goes back in time (the previous was "
                    "@cycle %" G_GUINT64_FORMAT ")", name, lineno, (guint64)c,
                    (guint64)*at_cycle);
        return FALSE;
    }
    *at_cycle = c;
    return TRUE;
}

gboolean pmusim_regs_parse(const char *text, gsize len, const char *name, GArray *out,
                           GError **error)
{
    guint before = out->len;
    unsigned lineno = 0;
    uint64_t at_cycle = 0; /* "@cycle N" lines move it forward */
    gsize pos = 0;
    while (pos < len) {
        gsize end = pos;
        while (end < len && text[end] != '\n')
            end++;
        lineno++;
        if (memchr(text + pos, '\0', end - pos)) {
            g_set_error(error, PMUSIM_REGS_ERROR, PMUSIM_REGS_ERROR_PARSE,
                        "%s:%u: NUL byte in a text register file", name, lineno);
            g_array_set_size(out, before);
            return FALSE;
        }
        char *line = g_strndup(text + pos, end - pos);
        char *trimmed = g_strstrip(line);
        gboolean ok = TRUE;
        if (g_ascii_strncasecmp(trimmed, "@cycle", 6) == 0)
            ok = parse_at_cycle(trimmed, name, lineno, &at_cycle, error);
        else if (*trimmed && *trimmed != '#')
            ok = parse_line(trimmed, name, lineno, at_cycle, out, error);
        g_free(line);
        if (!ok) {
            g_array_set_size(out, before);
            return FALSE;
        }
        pos = end + 1;
    }
    return TRUE;
}

gboolean pmusim_read_file_bounded(const char *path, gsize max, char **text, gsize *len,
                                  GError **error)
{
    FILE *fp = fopen(path, "rb");
    if (!fp) {
        g_set_error(error, PMUSIM_REGS_ERROR, PMUSIM_REGS_ERROR_IO, "%s: cannot open: %s", path,
                    g_strerror(errno));
        return FALSE;
    }
    GString *buf = g_string_sized_new(4096);
    char chunk[65536];
    gboolean ok = TRUE;
    for (;;) {
        size_t n = fread(chunk, 1, sizeof chunk, fp);
        if (n > 0) {
            if (buf->len + n > max) {
                g_set_error(error, PMUSIM_REGS_ERROR, PMUSIM_REGS_ERROR_IO,
                            "%s: larger than the limit of %" G_GSIZE_FORMAT " bytes for a file "
                            "read whole", path, max);
                ok = FALSE;
                break;
            }
            g_string_append_len(buf, chunk, (gssize)n);
        }
        if (n < sizeof chunk) {
            if (ferror(fp)) {
                g_set_error(error, PMUSIM_REGS_ERROR, PMUSIM_REGS_ERROR_IO, "%s: read error: %s",
                            path, g_strerror(errno));
                ok = FALSE;
            }
            break;
        }
    }
    fclose(fp);
    if (!ok) {
        g_string_free(buf, TRUE);
        return FALSE;
    }
    *len = buf->len;
    *text = g_string_free(buf, FALSE);
    return TRUE;
}

gboolean pmusim_regs_load(const char *path, GArray *out, GError **error)
{
    char *text = NULL;
    gsize len = 0;
    if (!pmusim_read_file_bounded(path, PMUSIM_REGS_MAX_FILE, &text, &len, error))
        return FALSE;
    gboolean ok = pmusim_regs_parse(text, len, path, out, error);
    g_free(text);
    return ok;
}

void pmusim_regs_print(const GArray *regs, FILE *fp)
{
    uint64_t at_cycle = 0;
    for (guint i = 0; i < regs->len; i++) {
        const pmusim_regwrite_t *w = &g_array_index(regs, pmusim_regwrite_t, i);
        if (w->at_cycle != at_cycle) {
            at_cycle = w->at_cycle;
            fprintf(fp, "@cycle %" G_GUINT64_FORMAT "\n", (guint64)at_cycle);
        }
        char reg[32];
        if (w->space == PMUSIM_REG_MSR) {
            const char *n = pmusim_msr_name(w->num);
            if (n)
                g_strlcpy(reg, n, sizeof reg);
            else
                g_snprintf(reg, sizeof reg, "msr 0x%x", w->num);
        } else {
            g_snprintf(reg, sizeof reg, "%s%u", pmusim_regspace_name(w->space), w->num);
        }
        fprintf(fp, "%-26s 0x%016" G_GINT64_MODIFIER "x", reg, (guint64)w->value);
        if (w->thread != PMUSIM_THREAD_ALL)
            fprintf(fp, " @%u", w->thread);
        if (w->label[0])
            fprintf(fp, "  # %s", w->label);
        fputc('\n', fp);
    }
}
