/* Golden cases for the IA-64 encoder (native face, so every option is
 * reachable): cases.txt lists requests and the exact register writes or
 * libpfm-3 error code they must give.
 *
 *   case NAME            starts a case
 *   pmu ita2|mont        PMU
 *   plm MASK             default privilege levels (default 0x8)
 *   events A,B,...       events (may be empty for free-running features)
 *   opt KEY=VALUE        encoder option (repeatable)
 *   error CODE           expected libpfm-3 error code, or:
 *   REG VALUE            expected register writes, in order (pmc4 0x1228, ibr0 0x4000, ...)
 *   end                  ends the case
 *
 * PMUSIM_GOLDEN_REGEN=FILE golden-enc-ia64 rewrites FILE with the current
 * results (regen mode, for reviewing changes; never run by CI). */
#include "cu_main.h"
#include "pmusim/encoder.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    char *name;
    int line;
    char *pmu;
    unsigned plm;
    GPtrArray *events;
    GArray *opts;           /* pmusim_encode_opt_t, strings owned by `strings` */
    GPtrArray *strings;
    int expect_error;       /* 0 = success */
    GString *expect_regs;   /* "reg value\n" lines */
} golden_case_t;

static GPtrArray *cases;
static const char *cases_path = CASES_FILE;

static void case_free(gpointer p)
{
    golden_case_t *c = p;
    g_free(c->name);
    g_free(c->pmu);
    g_ptr_array_unref(c->events);
    g_array_unref(c->opts);
    g_ptr_array_unref(c->strings);
    g_string_free(c->expect_regs, TRUE);
    g_free(c);
}

static gboolean load_cases(const char *path, GError **error)
{
    char *text;
    if (!g_file_get_contents(path, &text, NULL, error))
        return FALSE;
    cases = g_ptr_array_new_with_free_func(case_free);
    char **lines = g_strsplit(text, "\n", -1);
    golden_case_t *c = NULL;
    for (int i = 0; lines[i]; i++) {
        char *l = g_strstrip(lines[i]);
        if (!*l || *l == '#')
            continue;
        char *arg = strchr(l, ' ');
        if (arg)
            *arg++ = '\0';
        else
            arg = l + strlen(l);
        if (!strcmp(l, "case")) {
            c = g_new0(golden_case_t, 1);
            c->name = g_strdup(arg);
            c->line = i + 1;
            c->pmu = g_strdup("ita2");
            c->plm = 0x8;
            c->events = g_ptr_array_new_with_free_func(g_free);
            c->opts = g_array_new(FALSE, TRUE, sizeof(pmusim_encode_opt_t));
            c->strings = g_ptr_array_new_with_free_func(g_free);
            c->expect_regs = g_string_new(NULL);
        } else if (!c) {
            g_set_error(error, G_FILE_ERROR, G_FILE_ERROR_INVAL, "%s:%d: '%s' outside a case", path, i + 1, l);
            break;
        } else if (!strcmp(l, "pmu")) {
            g_free(c->pmu);
            c->pmu = g_strdup(arg);
        } else if (!strcmp(l, "plm")) {
            c->plm = (unsigned)strtoul(arg, NULL, 0);
        } else if (!strcmp(l, "events")) {
            char **ev = g_strsplit(arg, ",", -1);
            for (int k = 0; ev[k]; k++)
                if (*ev[k])
                    g_ptr_array_add(c->events, g_strdup(ev[k]));
            g_strfreev(ev);
        } else if (!strcmp(l, "opt")) {
            char *kv = g_strdup(arg), *eq = strchr(kv, '=');
            if (!eq) {
                g_set_error(error, G_FILE_ERROR, G_FILE_ERROR_INVAL, "%s:%d: expected opt KEY=VALUE", path, i + 1);
                g_free(kv);
                break;
            }
            *eq = '\0';
            g_ptr_array_add(c->strings, kv);
            pmusim_encode_opt_t o = { kv, eq + 1 };
            g_array_append_val(c->opts, o);
        } else if (!strcmp(l, "error")) {
            c->expect_error = (int)strtol(arg, NULL, 0);
        } else if (!strcmp(l, "end")) {
            g_ptr_array_add(cases, c);
            c = NULL;
        } else {
            g_string_append_printf(c->expect_regs, "%s %s\n", l, arg);
        }
    }
    g_strfreev(lines);
    g_free(text);
    if (c) {
        if (error && !*error)
            g_set_error(error, G_FILE_ERROR, G_FILE_ERROR_INVAL, "%s: case %s has no 'end'", path, c->name);
        case_free(c);
    }
    return error == NULL || *error == NULL;
}

/* Run one case: returns the error code (0 on success) and the writes as
 * "reg value" lines. */
static int run_case(const golden_case_t *c, GString *got)
{
    const pmusim_encoder_pmu_t *pmu = !strcmp(c->pmu, "mont") ? &pmusim_encoder_mont : &pmusim_encoder_ita2;
    GArray *regs = pmusim_regs_new();
    GError *error = NULL;
    int code = 0;
    if (!pmu->encode((const char *const *)c->events->pdata, c->events->len, (const pmusim_encode_opt_t *)c->opts->data,
                     c->opts->len, c->plm, regs, &error)) {
        code = error ? error->code : 1;
        g_clear_error(&error);
    } else {
        for (guint i = 0; i < regs->len; i++) {
            const pmusim_regwrite_t *w = &g_array_index(regs, pmusim_regwrite_t, i);
            g_string_append_printf(got, "%s%u 0x%" PRIx64 "\n", pmusim_regspace_name(w->space), w->num, w->value);
        }
    }
    g_array_unref(regs);
    return code;
}

static void test_golden_cases(void)
{
    CU_ASSERT_FATAL(cases != NULL && cases->len > 0);
    for (guint i = 0; i < cases->len; i++) {
        const golden_case_t *c = g_ptr_array_index(cases, i);
        GString *got = g_string_new(NULL);
        int code = run_case(c, got);
        gboolean ok = code == c->expect_error && (code != 0 || !strcmp(got->str, c->expect_regs->str));
        if (!ok)
            fprintf(stderr, "%s:%d: case %s: got %d\n%s, expected %d\n%s", cases_path, c->line, c->name, code,
                    got->str, c->expect_error, c->expect_regs->str);
        CU_ASSERT(ok);
        g_string_free(got, TRUE);
    }
}

static int regen(const char *path)
{
    GError *error = NULL;
    if (!load_cases(path, &error)) {
        fprintf(stderr, "golden-enc-ia64: %s\n", error->message);
        return 1;
    }
    GString *out = g_string_new("# IA-64 encoder golden cases (format: tests/golden/enc_ia64/golden_enc_ia64.c)\n");
    for (guint i = 0; i < cases->len; i++) {
        const golden_case_t *c = g_ptr_array_index(cases, i);
        GString *got = g_string_new(NULL);
        int code = run_case(c, got);
        g_string_append_printf(out, "\ncase %s\npmu %s\nplm 0x%x\nevents ", c->name, c->pmu, c->plm);
        for (guint k = 0; k < c->events->len; k++)
            g_string_append_printf(out, "%s%s", k ? "," : "", (char *)c->events->pdata[k]);
        g_string_append_c(out, '\n');
        for (guint k = 0; k < c->opts->len; k++) {
            const pmusim_encode_opt_t *o = &g_array_index(c->opts, pmusim_encode_opt_t, k);
            g_string_append_printf(out, "opt %s=%s\n", o->key, o->value);
        }
        if (code)
            g_string_append_printf(out, "error %d\n", code);
        else
            g_string_append(out, got->str);
        g_string_append(out, "end\n");
        g_string_free(got, TRUE);
    }
    gboolean ok = g_file_set_contents(path, out->str, -1, &error);
    g_string_free(out, TRUE);
    if (!ok) {
        fprintf(stderr, "golden-enc-ia64: %s\n", error->message);
        return 1;
    }
    return 0;
}

static void register_suites(void)
{
    GError *error = NULL;
    const char *regen_file = g_getenv("PMUSIM_GOLDEN_REGEN");
    if (regen_file)
        exit(regen(*regen_file ? regen_file : cases_path));
    if (!load_cases(cases_path, &error)) {
        fprintf(stderr, "golden-enc-ia64: %s\n", error->message);
        g_clear_error(&error);
    }
    CU_pSuite s = CU_add_suite("golden_enc_ia64", NULL, NULL);
    PMUSIM_ADD_TEST(s, test_golden_cases);
}
