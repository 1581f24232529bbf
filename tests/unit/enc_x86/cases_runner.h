/* Data-driven libpfm-4 encoding cases, shared by the unit and golden runners.
 *
 * A case file has one case per line (blank lines and '#' comments skipped),
 * tokens split like a shell command line (quotes for strings with blanks):
 *
 *     [plm=MASK] STRING RET [COUNT CODE0 [CODE1] [FSTR]]
 *
 * RET is a PFM_SUCCESS / PFM_ERR_* name; COUNT, the codes and FSTR are only
 * given (and then checked) for PFM_SUCCESS.  An FSTR of "-" is not checked.
 * Each case is registered as its own CUnit test named after its line, and
 * calls pfm_get_event_encoding() with dfl_plm MASK (default
 * PFM_PLM0|PFM_PLM3, as libpfm-4's validate_x86.c does) and checks the
 * return code, count, every code and the canonical string; on error it also
 * checks that fstr, codes and count were left untouched.  A failure names the
 * file and line.  Run with LIBPFM_ENCODE_INACTIVE=1 (set by the runner).
 */
#ifndef PMUSIM_TEST_CASES_RUNNER_H
#define PMUSIM_TEST_CASES_RUNNER_H

#include <perfmon/pfmlib.h>
#include <CUnit/Basic.h>
#include <glib.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

static const struct { const char *name; int value; } case_rets[] = {
    { "PFM_SUCCESS", PFM_SUCCESS }, { "PFM_ERR_NOTSUPP", PFM_ERR_NOTSUPP },
    { "PFM_ERR_INVAL", PFM_ERR_INVAL }, { "PFM_ERR_NOINIT", PFM_ERR_NOINIT },
    { "PFM_ERR_NOTFOUND", PFM_ERR_NOTFOUND }, { "PFM_ERR_FEATCOMB", PFM_ERR_FEATCOMB },
    { "PFM_ERR_UMASK", PFM_ERR_UMASK }, { "PFM_ERR_NOMEM", PFM_ERR_NOMEM },
    { "PFM_ERR_ATTR", PFM_ERR_ATTR }, { "PFM_ERR_ATTR_VAL", PFM_ERR_ATTR_VAL },
    { "PFM_ERR_ATTR_SET", PFM_ERR_ATTR_SET }, { "PFM_ERR_TOOMANY", PFM_ERR_TOOMANY },
    { "PFM_ERR_TOOSMALL", PFM_ERR_TOOSMALL },
};

static int case_ret_value(const char *s, int *v)
{
    for (size_t i = 0; i < sizeof case_rets / sizeof case_rets[0]; i++)
        if (strcmp(case_rets[i].name, s) == 0) {
            *v = case_rets[i].value;
            return 1;
        }
    return 0;
}

static void case_fail(const char *file, int line, const char *fmt, ...) G_GNUC_PRINTF(3, 4);
static void case_fail(const char *file, int line, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *msg = g_strdup_vprintf(fmt, ap);
    va_end(ap);
    char *full = g_strdup_printf("%s:%d: %s", file, line, msg);
    fprintf(stderr, "%s\n", full);
    CU_assertImplementation(CU_FALSE, (unsigned)line, full, file, "", CU_FALSE);
    g_free(full);
    g_free(msg);
}

typedef struct case_row {
    const char *file;
    int line;
    char *text; /* the case line */
} case_row_t;

static case_row_t *case_rows;
static size_t case_nrows, case_cursor;

static void case_rows_free(void)
{
    for (size_t i = 0; i < case_nrows; i++)
        g_free(case_rows[i].text);
    g_free(case_rows);
    case_rows = NULL;
    case_nrows = 0;
}

/* Run one case line; returns 1 if it was a case. */
static int run_case_line(const char *path, int line, const char *l)
{
    GError *err = NULL;
    int argc = 0;
    char **argv = NULL;
    if (!g_shell_parse_argv(l, &argc, &argv, &err)) {
        case_fail(path, line, "bad case line: %s", err->message);
        g_clear_error(&err);
        return 0;
    }
    int a = 0, plm = PFM_PLM0 | PFM_PLM3, want_ret;
    if (a < argc && g_str_has_prefix(argv[a], "plm="))
        plm = (int)strtol(argv[a++] + 4, NULL, 0);
    if (argc - a < 2 || !case_ret_value(argv[a + 1], &want_ret)) {
        case_fail(path, line, "expected: [plm=M] STRING RET [COUNT CODES... [FSTR]]");
        g_strfreev(argv);
        return 0;
    }
    const char *str = argv[a];
    a += 2;
    char *fstr = NULL;
    uint64_t *codes = NULL;
    int count = 0, idx = -1;
    int ret = pfm_get_event_encoding(str, plm, &fstr, &idx, &codes, &count);
    CU_ASSERT(1); /* count the case even when it passes */
    if (ret != want_ret) {
        case_fail(path, line, "%s: ret %d (%s), expected %s", str, ret, pfm_strerror(ret),
                  argv[a - 1]);
    } else if (ret != PFM_SUCCESS) {
        if (fstr || codes || count)
            case_fail(path, line, "%s: outputs touched on error", str);
    } else {
        int want_count = a < argc ? atoi(argv[a++]) : -1;
        if (want_count >= 0 && count != want_count)
            case_fail(path, line, "%s: count %d, expected %d", str, count, want_count);
        for (int i = 0; i < want_count && i < count; i++) {
            if (a >= argc) {
                case_fail(path, line, "missing expected code %d", i);
                break;
            }
            uint64_t want = g_ascii_strtoull(argv[a++], NULL, 0);
            if (codes[i] != want)
                case_fail(path, line, "%s: codes[%d] = 0x%" PRIx64 ", expected 0x%" PRIx64, str,
                          i, codes[i], want);
        }
        if (a < argc && strcmp(argv[a], "-") != 0 && (!fstr || strcmp(fstr, argv[a]) != 0))
            case_fail(path, line, "%s: fstr '%s', expected '%s'", str, fstr ? fstr : "(null)",
                      argv[a]);
        if (idx < 0)
            case_fail(path, line, "%s: no event index", str);
    }
    /* without fstr the encoder skips the canonical string: the same return
     * value, index, count and codes */
    uint64_t *codes2 = NULL;
    int count2 = 0, idx2 = -1;
    int ret2 = pfm_get_event_encoding(str, plm, NULL, &idx2, &codes2, &count2);
    if (ret2 != ret || (ret == PFM_SUCCESS &&
                        (idx2 != idx || count2 != count ||
                         memcmp(codes2, codes, sizeof(uint64_t) * (size_t)count) != 0)))
        case_fail(path, line, "%s: without fstr: ret %d, idx %d, count %d (with fstr: %d, %d, %d)",
                  str, ret2, idx2, count2, ret, idx, count);
    free(codes2);
    free(fstr);
    free(codes);
    g_strfreev(argv);
    return 1;
}

/* Every registered row test calls this; rows run in registration order. */
static void test_case_row(void)
{
    if (case_cursor >= case_nrows) {
        CU_FAIL("case rows out of step");
        return;
    }
    const case_row_t *r = &case_rows[case_cursor++];
    run_case_line(r->file, r->line, r->text);
    if (case_cursor == case_nrows)
        case_rows_free();
}

/* Register one CUnit test per case line of `path` in suite `s` (the test
 * name is "LINE: STRING"); returns the number of rows. */
static size_t register_case_file(CU_pSuite s, const char *path)
{
    char *text = NULL;
    GError *err = NULL;
    if (!g_file_get_contents(path, &text, NULL, &err)) {
        fprintf(stderr, "%s: cannot read: %s\n", path, err->message);
        g_error_free(err);
        return 0;
    }
    char **lines = g_strsplit(text, "\n", -1);
    size_t n0 = case_nrows;
    for (int ln = 0; lines[ln]; ln++) {
        char *l = g_strstrip(lines[ln]);
        if (!*l || *l == '#')
            continue;
        case_rows = g_renew(case_row_t, case_rows, case_nrows + 1);
        case_rows[case_nrows].file = path;
        case_rows[case_nrows].line = ln + 1;
        case_rows[case_nrows].text = g_strdup(l);
        char name[128];
        g_snprintf(name, sizeof name, "line %d: %.100s", ln + 1, l);
        CU_add_test(s, name, test_case_row);
        case_nrows++;
    }
    g_strfreev(lines);
    g_free(text);
    return case_nrows - n0;
}

#endif
