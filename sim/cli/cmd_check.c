/* pmusim check: regression tests of encodings and counts from a golden file.
 *
 * The file is a GKeyFile; every group is one case:
 *
 *   [ita2 cycles and instructions]
 *   pmu=ita2
 *   events=CPU_CYCLES;IA64_INST_RETIRED      (or regs=FILE, or both)
 *   options=thres=NOPS_RETIRED=1;           (encoder options, KEY=VALUE;...)
 *   plm=u
 *   expect-regs=FILE                         (the encoder's writes must equal FILE's)
 *   trace=traces/samples/ita2_loop.txt
 *   count.CPU_CYCLES=410                     (counter labelled CPU_CYCLES, summed over threads)
 *   count.PMD5=200                           (or by register name)
 *   overflows.PMD4=0
 *   error=20                                 (expect the encoder to fail with this code)
 *
 * Relative paths are taken from the golden file's folder.  Prints one line
 * per case; exit status 1 when any case fails. */
#include "cmds.h"
#include "enc_args.h"
#include "pmusim/encoder.h"
#include "pmusim/outfile.h"
#include "pmusim/sim.h"

#include <stdio.h>
#include <string.h>

static char *resolve(const char *dir, const char *path)
{
    return g_path_is_absolute(path) ? g_strdup(path) : g_build_filename(dir, path, NULL);
}

static gboolean regs_equal(const GArray *a, const GArray *b, GString *why)
{
    if (a->len != b->len) {
        g_string_append_printf(why, "%u register writes, expected %u", a->len, b->len);
        return FALSE;
    }
    for (guint i = 0; i < a->len; i++) {
        const pmusim_regwrite_t *x = &g_array_index(a, pmusim_regwrite_t, i);
        const pmusim_regwrite_t *y = &g_array_index(b, pmusim_regwrite_t, i);
        if (x->space != y->space || x->num != y->num || x->value != y->value ||
            x->thread != y->thread) {
            g_string_append_printf(why,
                                   "write #%u is %s%u=0x%" G_GINT64_MODIFIER
                                   "x, expected %s%u=0x%" G_GINT64_MODIFIER "x",
                                   i + 1, pmusim_regspace_name(x->space), x->num,
                                   (guint64)x->value, pmusim_regspace_name(y->space), y->num,
                                   (guint64)y->value);
            return FALSE;
        }
    }
    return TRUE;
}

/* TRUE when `label` names `key`: equal, or equal once the canonical
 * modifier tail of a libpfm-4 string (":k=1:u=1:e=0...", which a key-file key
 * cannot hold because of its '=') is removed. */
static gboolean label_matches(const char *label, const char *key)
{
    if (g_ascii_strcasecmp(label, key) == 0)
        return TRUE;
    const char *eq = strchr(label, '=');
    if (!eq)
        return FALSE;
    const char *cut = eq;
    while (cut > label && cut[-1] != ':')
        cut--;
    if (cut == label)
        return FALSE;
    size_t n = (size_t)(cut - 1 - label);
    return strlen(key) == n && g_ascii_strncasecmp(label, key, n) == 0;
}

/* Sums the counters whose label or register name is `key`. */
static gboolean find_counter(const pmusim_report_t *r, const char *key, uint64_t *value,
                             uint64_t *overflows)
{
    gboolean found = FALSE;
    *value = *overflows = 0;
    for (guint i = 0; i < r->counters->len; i++) {
        const pmusim_counter_result_t *c =
            &g_array_index(r->counters, pmusim_counter_result_t, i);
        if (!c->enabled)
            continue;
        if (label_matches(c->event, key) || g_ascii_strcasecmp(c->reg, key) == 0) {
            *value += c->value;
            *overflows += c->overflows;
            found = TRUE;
        }
    }
    return found;
}

/* What a count.NAME key could have named: the label (without its modifier
 * tail) and the register of every programmed counter, once each. */
static void list_counters(const pmusim_report_t *r, GString *why)
{
    GHashTable *seen = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
    const char *sep = " (counters:";
    for (guint i = 0; i < r->counters->len; i++) {
        const pmusim_counter_result_t *c =
            &g_array_index(r->counters, pmusim_counter_result_t, i);
        if (!c->enabled)
            continue;
        char *name = g_strdup(c->event[0] ? c->event : c->reg);
        char *eq = strchr(name, '=');
        if (eq) { /* "wsm::X:Y:k=1:..." -> "wsm::X:Y" */
            while (eq > name && eq[-1] != ':')
                eq--;
            if (eq > name + 1)
                eq[-1] = 0;
        }
        char *pair = g_strdup_printf("%s = %s", name, c->reg);
        g_free(name);
        if (g_hash_table_add(seen, pair)) {
            g_string_append_printf(why, "%s %s", sep, pair);
            sep = ",";
        }
    }
    g_string_append(why, *sep == ',' ? ")" : " (no counter is programmed)");
    g_hash_table_destroy(seen);
}

/* Where each key of a golden file is: GKeyFile keeps no line numbers, so
 * the text is indexed once when it is read ("group\nkey" -> line, "group"
 * -> the line of its [group] header; the last of duplicates, as GKeyFile
 * keeps the last value). */
typedef struct {
    const char *file;
    GHashTable *lines; /* char* -> GUINT_TO_POINTER(line) */
} check_src_t;

static GHashTable *index_lines(const char *text, gsize len)
{
    GHashTable *h = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
    char *group = NULL;
    unsigned line = 1;
    for (gsize pos = 0; pos < len; line++) {
        const char *nl = memchr(text + pos, '\n', len - pos);
        gsize end = nl ? (gsize)(nl - text) : len;
        char *l = g_strndup(text + pos, end - pos);
        char *t = g_strstrip(l);
        if (*t == '[') {
            char *close = strchr(t, ']');
            if (close) {
                g_free(group);
                group = g_strndup(t + 1, (gsize)(close - t - 1));
                g_hash_table_replace(h, g_strdup(group), GUINT_TO_POINTER(line));
            }
        } else if (*t && *t != '#' && group) {
            char *eq = strchr(t, '=');
            if (eq) {
                *eq = 0;
                g_hash_table_replace(h, g_strdup_printf("%s\n%s", group, g_strstrip(t)),
                                     GUINT_TO_POINTER(line));
            }
        }
        g_free(l);
        pos = end + 1;
    }
    g_free(group);
    return h;
}

/* The line GKeyFile refused: it parses line by line and stops at the
 * first bad one, without saying which, so a prefix of the first k lines
 * loads exactly when k is before that line: a binary search over k (only
 * after a failure, each step at most the 16 MiB a golden file may hold). */
static unsigned first_bad_line(const char *text, gsize len)
{
    GArray *ends = g_array_new(FALSE, FALSE, sizeof(gsize)); /* end of line k+1 */
    for (const char *p = text, *end = text + len; p < end;) {
        const char *nl = memchr(p, '\n', (gsize)(end - p));
        gsize e = nl ? (gsize)(nl - text) + 1 : len;
        g_array_append_val(ends, e);
        p = text + e;
    }
    guint lo = 1, hi = ends->len; /* the bad line is within lo..hi */
    GKeyFile *kf = g_key_file_new();
    while (lo < hi) {
        guint mid = lo + (hi - lo) / 2;
        if (g_key_file_load_from_data(kf, text, g_array_index(ends, gsize, mid - 1),
                                      G_KEY_FILE_NONE, NULL))
            lo = mid + 1;
        else
            hi = mid;
    }
    g_key_file_free(kf);
    g_array_free(ends, TRUE);
    return lo;
}

/* "FILE:LINE: " of a key (key NULL: of the group's header). */
static void at(GString *why, const check_src_t *src, const char *group, const char *key)
{
    if (!src || !src->lines)
        return;
    char *k = key ? g_strdup_printf("%s\n%s", group, key) : g_strdup(group);
    unsigned line = GPOINTER_TO_UINT(g_hash_table_lookup(src->lines, k));
    g_free(k);
    if (line)
        g_string_append_printf(why, "%s:%u: ", src->file, line);
}

/* A whole number up to max, decimal or 0x-hexadecimal, nothing around it. */
static gboolean parse_whole(const char *s, guint64 max, guint64 *v)
{
    gboolean hex = g_str_has_prefix(s, "0x") || g_str_has_prefix(s, "0X");
    /* a digit first: g_ascii_string_to_unsigned() takes a sign after "0x" */
    return g_ascii_isxdigit(s[hex ? 2 : 0]) &&
           g_ascii_string_to_unsigned(hex ? s + 2 : s, hex ? 16 : 10, 0, max, v, NULL);
}

/* A count.NAME / overflows.NAME / error value: a whole number, decimal or
 * 0x-hexadecimal, nothing else (an invalid value is an error, never 0); an
 * error code (neg_ok) may have a '-' in front and must fit an int. */
static gboolean check_number(GKeyFile *kf, const char *group, const char *key, gboolean neg_ok,
                             uint64_t *out, gboolean *negative, const check_src_t *src,
                             GString *why)
{
    GError *e = NULL;
    char *vs = g_key_file_get_string(kf, group, key, &e);
    gboolean neg = neg_ok && vs && vs[0] == '-';
    guint64 max = !neg_ok ? G_MAXUINT64 : neg ? (guint64)G_MAXINT + 1 : (guint64)G_MAXINT;
    guint64 v = 0;
    gboolean ok = vs && parse_whole(vs + neg, max, &v);
    if (!ok) {
        at(why, src, group, key);
        g_string_append_printf(why, "%s: expected %s%s", key,
                               neg_ok ? "an error code (a whole number that fits an int, "
                                        "decimal or 0x hex, '-' allowed)"
                                      : "a whole number (decimal or 0x hex)",
                               e ? "; the value is not valid UTF-8" : "");
    }
    g_clear_error(&e);
    g_free(vs);
    *out = v;
    if (negative)
        *negative = neg;
    return ok;
}

/* Every key of a case must be one the format knows: a typo (cuont.X) would
 * otherwise pass without testing anything. */
static gboolean check_keys(GKeyFile *kf, const char *group, const check_src_t *src,
                           GString *why)
{
    static const char *const known[] = {"pmu", "events", "options", "plm", "regs",
                                        "expect-regs", "trace", "error", NULL};
    char **keys = g_key_file_get_keys(kf, group, NULL, NULL);
    gboolean ok = TRUE, tests = FALSE;
    for (char **k = keys; k && *k; k++) {
        gboolean good = g_str_has_prefix(*k, "count.") || g_str_has_prefix(*k, "overflows.");
        tests |= good || !strcmp(*k, "error") || !strcmp(*k, "expect-regs");
        for (unsigned i = 0; !good && known[i]; i++)
            good = !strcmp(*k, known[i]);
        if (!good) {
            if (!ok)
                g_string_append(why, "; ");
            at(why, src, group, *k);
            g_string_append_printf(why, "%sunknown key '%s' (known: pmu, events, options, plm, "
                                   "regs, expect-regs, trace, error, count.NAME, overflows.NAME)",
                                   "", *k);
            ok = FALSE;
        }
    }
    if (ok && !tests) {
        at(why, src, group, NULL);
        g_string_append(why, "the case checks nothing (no count., overflows., error or "
                             "expect-regs key)");
        ok = FALSE;
    }
    if (ok && !g_key_file_has_key(kf, group, "events", NULL) &&
        !g_key_file_has_key(kf, group, "regs", NULL)) {
        at(why, src, group, NULL);
        g_string_append(why, "the case programs nothing (no events or regs key)");
        ok = FALSE;
    }
    g_strfreev(keys);
    return ok;
}

static gboolean run_case(GKeyFile *kf, const char *group, const char *dir,
                         const check_src_t *src, GString *why)
{
    GError *e = NULL;
    gboolean ok = FALSE;
    if (!check_keys(kf, group, src, why))
        return FALSE;
    uint64_t error_abs = 0;
    gboolean error_neg = FALSE;
    gboolean want_error = g_key_file_has_key(kf, group, "error", NULL);
    if (want_error && !check_number(kf, group, "error", TRUE, &error_abs, &error_neg, src, why))
        return FALSE;
    int error_code = (int)(error_neg ? -(int64_t)error_abs : (int64_t)error_abs);
    char *plm_s = g_key_file_get_string(kf, group, "plm", NULL);
    unsigned plm = PMUSIM_PLM0 | PMUSIM_PLM3;
    guint64 mask = 0;
    /* any mask is passed on: the encoder's refusal of one is an error= case */
    gboolean plm_ok = !plm_s || pmusim_plm_parse(plm_s, &plm);
    if (!plm_ok && parse_whole(plm_s, G_MAXUINT, &mask)) {
        plm = (unsigned)mask;
        plm_ok = TRUE;
    }
    if (!plm_ok) {
        at(why, src, group, "plm");
        g_string_append_printf(why, "plm: expected u, k, uk or a mask (decimal or 0x hex), "
                                    "got '%s'", plm_s);
    }
    g_free(plm_s);
    if (!plm_ok)
        return FALSE;
    char *pmu = g_key_file_get_string(kf, group, "pmu", NULL);
    char **events = g_key_file_get_string_list(kf, group, "events", NULL, NULL);
    char **options = g_key_file_get_string_list(kf, group, "options", NULL, NULL);
    char *regs_file = g_key_file_get_string(kf, group, "regs", NULL);
    char *expect_regs = g_key_file_get_string(kf, group, "expect-regs", NULL);
    char *trace = g_key_file_get_string(kf, group, "trace", NULL);
    GArray *regs = pmusim_regs_new();
    GArray *opts = g_array_new(FALSE, TRUE, sizeof(pmusim_encode_opt_t));
    GPtrArray *keep = g_ptr_array_new_with_free_func(g_free);
    pmusim_trace_reader_t *reader = NULL;
    pmusim_model_t *model = NULL;
    char **keys = NULL;

    if (!pmu) {
        g_string_append(why, "no 'pmu' key");
        goto out;
    }
    const pmusim_encoder_pmu_t *enc = pmusim_encoder_find(pmu);
    if (enc) { /* an alias (westmere, itanium2, ...) names the model too */
        g_free(pmu);
        pmu = g_strdup(enc->name);
    }
    for (char **o = options; o && *o; o++) {
        const char *eq = strchr(*o, '=');
        char *key = eq ? g_strndup(*o, (gsize)(eq - *o)) : g_strdup(*o);
        g_ptr_array_add(keep, key);
        pmusim_encode_opt_t opt = {.key = key, .value = eq ? eq + 1 : "1"};
        g_array_append_val(opts, opt);
    }
    if (events && events[0]) {
        if (!enc || !enc->encode) {
            g_string_append_printf(why, "no encoder for PMU '%s'", pmu);
            goto out;
        }
        gboolean enc_ok = enc->encode((const char *const *)events, g_strv_length(events),
                                      (const pmusim_encode_opt_t *)(void *)opts->data, opts->len,
                                      plm, regs, &e);
        if (want_error) {
            if (enc_ok)
                g_string_append_printf(why, "encoding succeeded, expected error %d",
                                       error_code);
            else if (e->code != error_code)
                g_string_append_printf(why, "error %d (%s), expected %d", e->code, e->message,
                                       error_code);
            else
                ok = TRUE;
            goto out;
        }
        if (!enc_ok) {
            g_string_append_printf(why, "encoding failed: %s", e->message);
            goto out;
        }
    }
    if (expect_regs) {
        char *p = resolve(dir, expect_regs);
        GArray *want = pmusim_regs_new();
        gboolean loaded = pmusim_regs_load(p, want, &e);
        g_free(p);
        gboolean same = loaded && regs_equal(regs, want, why);
        g_array_free(want, TRUE);
        if (!loaded) {
            g_string_append(why, e->message);
            goto out;
        }
        if (!same)
            goto out;
    }
    if (regs_file) {
        char *p = resolve(dir, regs_file);
        gboolean loaded = pmusim_regs_load(p, regs, &e);
        g_free(p);
        if (!loaded) {
            g_string_append(why, e->message);
            goto out;
        }
    }
    if (trace) {
        char *p = resolve(dir, trace);
        reader = pmusim_trace_reader_open(p, &e);
        g_free(p);
        if (!reader) {
            g_string_append(why, e->message);
            goto out;
        }
        const pmusim_trace_header_t *h = pmusim_trace_reader_header(reader);
        model = pmusim_model_new(pmu, MAX(h->nthreads, 1u), &e);
        if (!model || !pmusim_model_write_regs(model, regs, &e) ||
            !pmusim_replay(model, reader, NULL, NULL, &e)) {
            g_string_append(why, e->message);
            goto out;
        }
        pmusim_report_t rep;
        pmusim_report_init(&rep);
        pmusim_model_collect(model, &rep);
        keys = g_key_file_get_keys(kf, group, NULL, NULL);
        gboolean all = TRUE;
        for (char **k = keys; k && *k; k++) {
            gboolean is_count = g_str_has_prefix(*k, "count.");
            gboolean is_ovf = g_str_has_prefix(*k, "overflows.");
            if (!is_count && !is_ovf)
                continue;
            const char *name = strchr(*k, '.') + 1;
            uint64_t want, v, ovf;
            if (!all)
                g_string_append(why, "; ");
            gsize mark = why->len;
            if (!check_number(kf, group, *k, FALSE, &want, NULL, src, why)) {
                all = FALSE;
                continue;
            }
            if (!find_counter(&rep, name, &v, &ovf)) {
                at(why, src, group, *k);
                g_string_append_printf(why, "no counter '%s'", name);
                list_counters(&rep, why);
                all = FALSE;
            } else if ((is_count ? v : ovf) != want) {
                at(why, src, group, *k);
                g_string_append_printf(why, "%s = %" G_GUINT64_FORMAT ", expected %" G_GUINT64_FORMAT,
                                       *k, (guint64)(is_count ? v : ovf), (guint64)want);
                all = FALSE;
            } else if (!all) {
                g_string_truncate(why, mark - 2); /* no "; " without a problem after it */
            }
        }
        pmusim_report_clear(&rep);
        ok = all;
    } else {
        ok = TRUE;
    }
out:
    g_clear_error(&e);
    g_strfreev(keys);
    pmusim_model_free(model);
    if (reader)
        pmusim_trace_reader_free(reader);
    g_array_free(regs, TRUE);
    g_array_free(opts, TRUE);
    g_ptr_array_free(keep, TRUE);
    g_free(pmu);
    g_strfreev(events);
    g_strfreev(options);
    g_free(regs_file);
    g_free(expect_regs);
    g_free(trace);
    return ok;
}

/* One case of a run: where it comes from and, once run, its outcome. */
typedef struct {
    GKeyFile *kf;     /* NULL: the file could not be read (why says so) */
    const check_src_t *src; /* its lines */
    const char *file; /* the golden file, as given */
    char *group;
    char *dir;
    gboolean ok;
    GString *why;
} check_case_t;

static void run_one(gpointer data, gpointer user)
{
    (void)user;
    check_case_t *c = data;
    if (c->kf)
        c->ok = run_case(c->kf, c->group, c->dir, c->src, c->why);
}

/* A YAML double-quoted scalar. */
static void yaml_string(FILE *fp, const char *s)
{
    fputc('"', fp);
    for (; *s; s++) {
        unsigned char ch = (unsigned char)*s;
        if (ch == '"' || ch == '\\')
            fprintf(fp, "\\%c", ch);
        else if (ch == '\n')
            fputs("\\n", fp);
        else if (ch < 0x20)
            fprintf(fp, "\\x%02x", ch);
        else
            fputc(ch, fp);
    }
    fputc('"', fp);
}

/* TAP version 13: plan, one line per case, a YAML block on failures. */
static void print_tap(const GPtrArray *cases, FILE *fp)
{
    fprintf(fp, "TAP version 13\n1..%u\n", cases->len);
    for (guint i = 0; i < cases->len; i++) {
        const check_case_t *c = g_ptr_array_index(cases, i);
        /* '#' starts a TAP directive: escape it in the description */
        GString *name = g_string_new(NULL);
        for (const char *p = c->group; *p; p++) {
            if (*p == '#' || *p == '\\')
                g_string_append_c(name, '\\');
            g_string_append_c(name, *p == '\n' ? ' ' : *p);
        }
        fprintf(fp, "%sok %u - %s\n", c->ok ? "" : "not ", i + 1, name->str);
        g_string_free(name, TRUE);
        if (!c->ok) {
            fprintf(fp, "  ---\n  message: ");
            yaml_string(fp, c->why->str);
            fprintf(fp, "\n  file: ");
            yaml_string(fp, c->file);
            fprintf(fp, "\n  ...\n");
        }
    }
}

/* XML text and attribute values: & < > " ' escaped; control characters
 * other than tab and newline are not allowed in XML 1.0 and become '?'. */
static void xml_escaped(FILE *fp, const char *s)
{
    for (; *s; s++) {
        unsigned char ch = (unsigned char)*s;
        switch (ch) {
        case '&': fputs("&amp;", fp); break;
        case '<': fputs("&lt;", fp); break;
        case '>': fputs("&gt;", fp); break;
        case '"': fputs("&quot;", fp); break;
        case '\'': fputs("&apos;", fp); break;
        default:
            fputc(ch < 0x20 && ch != '\t' && ch != '\n' ? '?' : ch, fp);
        }
    }
}

/* JUnit XML: one testsuite per golden file, one testcase per case. */
static void print_junit(const GPtrArray *cases, FILE *fp)
{
    guint failures = 0;
    for (guint i = 0; i < cases->len; i++)
        failures += !((const check_case_t *)g_ptr_array_index(cases, i))->ok;
    fprintf(fp, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    fprintf(fp, "<testsuites name=\"pmusim check\" tests=\"%u\" failures=\"%u\">\n", cases->len,
            failures);
    for (guint i = 0; i < cases->len;) {
        const check_case_t *first = g_ptr_array_index(cases, i);
        guint j = i, nfail = 0;
        for (; j < cases->len; j++) {
            const check_case_t *c = g_ptr_array_index(cases, j);
            if (strcmp(c->file, first->file) != 0)
                break;
            nfail += !c->ok;
        }
        fprintf(fp, "  <testsuite name=\"");
        xml_escaped(fp, first->file);
        fprintf(fp, "\" tests=\"%u\" failures=\"%u\" errors=\"0\">\n", j - i, nfail);
        for (guint k = i; k < j; k++) {
            const check_case_t *c = g_ptr_array_index(cases, k);
            fprintf(fp, "    <testcase classname=\"");
            xml_escaped(fp, c->file);
            fprintf(fp, "\" name=\"");
            xml_escaped(fp, c->group);
            if (c->ok) {
                fprintf(fp, "\"/>\n");
                continue;
            }
            fprintf(fp, "\">\n      <failure message=\"");
            xml_escaped(fp, c->why->str);
            fprintf(fp, "\">");
            xml_escaped(fp, c->why->str);
            fprintf(fp, "</failure>\n    </testcase>\n");
        }
        fprintf(fp, "  </testsuite>\n");
        i = j;
    }
    fprintf(fp, "</testsuites>\n");
}

static void free_src(gpointer data)
{
    check_src_t *src = data;
    g_hash_table_destroy(src->lines);
    g_free(src);
}

static void free_case(gpointer data)
{
    check_case_t *c = data;
    g_free(c->group);
    g_free(c->dir);
    g_string_free(c->why, TRUE);
    g_free(c);
}

int pmusim_cmd_check(int argc, char **argv)
{
    gboolean tap = FALSE;
    char *junit = NULL;
    int jobs = 1;
    const GOptionEntry entries[] = {
        {"tap", 0, 0, G_OPTION_ARG_NONE, &tap,
         "print TAP version 13 (plan, ok/not ok lines, YAML block on failures)", NULL},
        {"junit", 0, 0, G_OPTION_ARG_FILENAME, &junit,
         "also write the results as JUnit XML to FILE (whole or not at all)", "FILE"},
        {"jobs", 'j', 0, G_OPTION_ARG_INT, &jobs,
         "run N cases at a time (output in case order, as with -j 1)", "N"},
        {NULL, 0, 0, 0, NULL, NULL, NULL},
    };
    GOptionContext *ctx = g_option_context_new("GOLDEN-FILE...");
    g_option_context_set_summary(ctx,
        "Regression-test encodings and counts: every group of each golden file is a case\n"
        "(pmu, events or regs, options, expect-regs, trace, count.LABEL=N, error=CODE).\n"
        "See docs/CHECK.md.");
    g_option_context_add_main_entries(ctx, entries, NULL);
    GError *error = NULL;
    int status = 0;
    if (!pmusim_cli_parse(ctx, "check", &argc, &argv, &error)) {
        status = pmusim_cli_usage("check", "%s", error->message);
        g_error_free(error);
        g_option_context_free(ctx);
        g_free(junit);
        return status;
    }
    g_option_context_free(ctx);
    if (argc < 2) {
        g_free(junit);
        return pmusim_cli_usage("check", "no golden file given");
    }
    if (jobs < 1 || jobs > 64) {
        g_free(junit);
        return pmusim_cli_usage("check", "-j: expected 1..64 jobs, got %d", jobs);
    }
    pmusim_outfile_t *jout = NULL;
    if (junit) {
        jout = pmusim_outfile_open(junit, (const char *const *)argv + 1, &error);
        if (!jout) {
            status = pmusim_cli_fail(error);
            g_error_free(error);
            g_free(junit);
            return status;
        }
    }
    GPtrArray *cases = g_ptr_array_new_with_free_func(free_case);
    GPtrArray *files = g_ptr_array_new_with_free_func((GDestroyNotify)g_key_file_free);
    GPtrArray *srcs = g_ptr_array_new_with_free_func(free_src);
    for (int i = 1; i < argc; i++) {
        GKeyFile *kf = g_key_file_new();
        char *text = NULL;
        gsize text_len = 0;
        gboolean loaded = pmusim_read_file_bounded(argv[i], PMUSIM_REGS_MAX_FILE, &text,
                                                   &text_len, &error);
        if (loaded && !g_key_file_load_from_data(kf, text, text_len, G_KEY_FILE_NONE, &error))
            g_prefix_error(&error, "%s:%u: ", argv[i], first_bad_line(text, text_len));
        check_src_t *src = NULL;
        if (!error) {
            src = g_new0(check_src_t, 1);
            src->file = argv[i];
            src->lines = index_lines(text, text_len);
            g_ptr_array_add(srcs, src);
        }
        g_free(text);
        if (error) {
            fprintf(stderr, "pmusim: %s\n", error->message);
            check_case_t *c = g_new0(check_case_t, 1);
            c->file = argv[i];
            c->group = g_strdup_printf("(file) %s", argv[i]);
            c->why = g_string_new(error->message);
            g_ptr_array_add(cases, c);
            g_clear_error(&error);
            g_key_file_free(kf);
            status = 1;
            continue;
        }
        g_ptr_array_add(files, kf);
        char **groups = g_key_file_get_groups(kf, NULL);
        if (!groups[0]) {
            /* a file without a case would pass while testing nothing */
            fprintf(stderr, "pmusim: %s: no case ([name] group) in the file\n", argv[i]);
            check_case_t *c = g_new0(check_case_t, 1);
            c->file = argv[i];
            c->group = g_strdup_printf("(file) %s", argv[i]);
            c->why = g_string_new("no case ([name] group) in the file");
            g_ptr_array_add(cases, c);
            status = 1;
        }
        for (char **g = groups; *g; g++) {
            check_case_t *c = g_new0(check_case_t, 1);
            c->kf = kf;
            c->src = src;
            c->file = argv[i];
            c->group = g_strdup(*g);
            c->dir = g_path_get_dirname(argv[i]);
            c->why = g_string_new(NULL);
            g_ptr_array_add(cases, c);
        }
        g_strfreev(groups);
    }
    /* the cases only read their key file; each builds its own encoder
     * request, model and trace reader */
    if (jobs > 1 && cases->len > 1) {
        GThreadPool *pool = g_thread_pool_new(run_one, NULL, jobs, TRUE, NULL);
        for (guint i = 0; i < cases->len; i++)
            g_thread_pool_push(pool, g_ptr_array_index(cases, i), NULL);
        g_thread_pool_free(pool, FALSE, TRUE);
    } else {
        for (guint i = 0; i < cases->len; i++)
            run_one(g_ptr_array_index(cases, i), NULL);
    }
    unsigned passed = 0, failed = 0;
    /* --junit -: the XML alone on standard output, the report beside it */
    FILE *rep = junit && strcmp(junit, "-") == 0 ? stderr : stdout;
    if (tap)
        print_tap(cases, rep);
    for (guint i = 0; i < cases->len; i++) {
        const check_case_t *c = g_ptr_array_index(cases, i);
        if (!c->kf && !tap)
            continue; /* said on stderr already; TAP counts it as a failed case */
        if (c->ok)
            passed++;
        else
            failed++;
        if (tap)
            continue;
        if (c->ok)
            fprintf(rep, "ok    %s\n", c->group);
        else
            fprintf(rep, "FAIL  %s: %s\n", c->group, c->why->str);
    }
    if (tap)
        fprintf(rep, "# %u passed, %u failed\n", passed, failed);
    else
        fprintf(rep, "%u passed, %u failed\n", passed, failed);
    if (jout) {
        print_junit(cases, pmusim_outfile_fp(jout));
        if (!pmusim_outfile_commit(jout, &error)) {
            status = pmusim_cli_fail(error);
            g_clear_error(&error);
        }
    }
    g_ptr_array_free(cases, TRUE);
    g_ptr_array_free(files, TRUE);
    g_ptr_array_free(srcs, TRUE);
    g_free(junit);
    return failed || status ? 1 : 0;
}
