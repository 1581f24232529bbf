/* Differential golden test: pmusim's libpfm-4 face against the real
 * libpfm-4 shared library, when one is installed (libpfm.so.4; skipped
 * otherwise, and in sanitizer builds, which cannot load it with
 * RTLD_DEEPBIND).
 *
 * Every string of libpfm4_strings.txt (all pmu::EVENT and pmu::EVENT:UMASK
 * strings of wsm, wsm_dp, knl, knm plus 2500 checked combinations and
 * mutations; the documented deviations of docs/compat-x86.md are not in it)
 * is encoded by both with LIBPFM_ENCODE_INACTIVE=1, for PFM_OS_NONE and
 * PFM_OS_PERF_EVENT_EXT; return code, codes, count, perf_event_attr fields and
 * canonical strings must be equal.  One CUnit test per input file; each
 * difference is reported with its line. */
#include "cu_main.h"

#include <perfmon/pfmlib.h>
#include <perfmon/pfmlib_perf_event.h>

#include <dlfcn.h>
#include <glib.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#ifndef STRINGS_FILE
#error "STRINGS_FILE must name the string list"
#endif

typedef int (*init_fn)(void);
typedef int (*enc_fn)(const char *, int, char **, int *, uint64_t **, int *);
typedef int (*os_enc_fn)(const char *, int, pfm_os_t, void *);

static struct {
    void *handle;
    init_fn init;
    enc_fn enc;
    os_enc_fn os_enc;
} real;

static void compare_line(int line, const char *s)
{
    char *f1 = NULL, *f2 = NULL;
    uint64_t *c1 = NULL, *c2 = NULL;
    int n1 = 0, n2 = 0;
    int r1 = real.enc(s, PFM_PLM0 | PFM_PLM3, &f1, NULL, &c1, &n1);
    int r2 = pfm_get_event_encoding(s, PFM_PLM0 | PFM_PLM3, &f2, NULL, &c2, &n2);
    int same = r1 == r2 && n1 == n2 && ((!f1 && !f2) || (f1 && f2 && !strcmp(f1, f2)));
    for (int i = 0; same && i < n1; i++)
        same = c1[i] == c2[i];
    if (!same)
        fprintf(stderr, "%s:%d: '%s': libpfm-4 %d %s, pmusim %d %s\n", STRINGS_FILE, line, s, r1,
                f1 ? f1 : "-", r2, f2 ? f2 : "-");
    CU_ASSERT(same);
    free(f1);
    free(f2);
    free(c1);
    free(c2);

    struct perf_event_attr a1, a2;
    pfm_perf_encode_arg_t g1, g2;
    memset(&a1, 0, sizeof a1);
    memset(&a2, 0, sizeof a2);
    a1.size = a2.size = sizeof a1;
    memset(&g1, 0, sizeof g1);
    memset(&g2, 0, sizeof g2);
    g1.size = g2.size = sizeof g1;
    g1.attr = &a1;
    g2.attr = &a2;
    f1 = f2 = NULL;
    g1.fstr = &f1;
    g2.fstr = &f2;
    r1 = real.os_enc(s, PFM_PLM0 | PFM_PLM3, PFM_OS_PERF_EVENT_EXT, &g1);
    r2 = pfm_get_os_event_encoding(s, PFM_PLM0 | PFM_PLM3, PFM_OS_PERF_EVENT_EXT, &g2);
    same = r1 == r2 && memcmp(&a1, &a2, sizeof a1) == 0 && g1.idx == g2.idx &&
           g1.cpu == g2.cpu && ((!f1 && !f2) || (f1 && f2 && !strcmp(f1, f2)));
    if (!same)
        fprintf(stderr, "%s:%d: '%s' (perf_event): libpfm-4 %d %s, pmusim %d %s\n", STRINGS_FILE,
                line, s, r1, f1 ? f1 : "-", r2, f2 ? f2 : "-");
    CU_ASSERT(same);
    free(f1);
    free(f2);
}

static void test_strings(void)
{
    char *text = NULL;
    CU_ASSERT_FATAL(g_file_get_contents(STRINGS_FILE, &text, NULL, NULL));
    char **lines = g_strsplit(text, "\n", -1);
    int n = 0;
    for (int i = 0; lines[i]; i++) {
        if (!lines[i][0])
            continue;
        compare_line(i + 1, lines[i]);
        n++;
    }
    CU_ASSERT(n > 3000);
    printf("\n  %d strings compared with %s\n", n, "libpfm.so.4");
    g_strfreev(lines);
    g_free(text);
}

static int suite_init(void)
{
    setenv("LIBPFM_ENCODE_INACTIVE", "1", 1);
    /* strings without a pmu:: prefix go to the forced PMU in both libraries,
     * whatever the host (or valgrind's emulated CPUID) is */
    setenv("LIBPFM_FORCE_PMU", "wsm", 1);
    unsetenv("LIBPFM_DISABLED_PMUS");
    return real.init() == PFM_SUCCESS && pfm_initialize() == PFM_SUCCESS ? 0 : 1;
}

#if defined(__SANITIZE_ADDRESS__)
#define SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SANITIZED 1
#endif
#endif
#ifndef SANITIZED
#define SANITIZED 0
#endif

static void register_suites(void)
{
    if (SANITIZED) {
        printf("skipped: sanitizer build cannot load libpfm.so.4 with RTLD_DEEPBIND\n");
        exit(77);
    }
    /* DEEPBIND: the real library must call its own pfm_* functions, not the
     * ones of pmusim linked into this program */
    real.handle = dlopen("libpfm.so.4", RTLD_NOW | RTLD_LOCAL | RTLD_DEEPBIND);
    if (!real.handle) {
        printf("skipped: no libpfm-4 to compare with (%s)\n", dlerror());
        exit(77);
    }
    real.init = (init_fn)dlsym(real.handle, "pfm_initialize");
    real.enc = (enc_fn)dlsym(real.handle, "pfm_get_event_encoding");
    real.os_enc = (os_enc_fn)dlsym(real.handle, "pfm_get_os_event_encoding");
    if (!real.init || !real.enc || !real.os_enc) {
        printf("skipped: libpfm.so.4 lacks the encoding API\n");
        exit(77);
    }
    CU_pSuite s = CU_add_suite("vs_libpfm4", suite_init, NULL);
    PMUSIM_ADD_TEST(s, test_strings);
}
