/* Differential test of the perf and perf_raw PMUs: pmusim's libpfm-4 face
 * against the libpfm-4 shared library installed on the machine (libpfm.so.4,
 * loaded with dlopen; skipped when there is none, and in sanitizer builds,
 * which cannot load it with RTLD_DEEPBIND).
 *
 * With LIBPFM_FORCE_PMU=perf (so the host's own PMU plays no part) and
 * LIBPFM_ENCODE_INACTIVE=1:
 *   - pfm_get_pmu_info() of perf and perf_raw, pfm_get_event_info() and
 *     pfm_get_event_attr_info() of every perf event for the three OS layers:
 *     every field but the descriptions must be equal;
 *   - every string of perf_strings.txt through pfm_get_event_encoding(),
 *     PFM_OS_PERF_EVENT and PFM_OS_PERF_EVENT_EXT: return code, codes,
 *     index, perf_event_attr, cpu and canonical string must be equal.
 * Then with LIBPFM_FORCE_PMU=perf_raw, perf_raw's event and attributes. */
#include "cu_main.h"

#include <perfmon/pfmlib.h>
#include <perfmon/pfmlib_perf_event.h>

#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>

#ifndef STRINGS_FILE
#error "STRINGS_FILE must name the string list"
#endif

static struct {
    void *handle;
    int (*init)(void);
    void (*term)(void);
    int (*enc)(const char *, int, char **, int *, uint64_t **, int *);
    int (*os_enc)(const char *, int, pfm_os_t, void *);
    int (*pmu_info)(pfm_pmu_t, pfm_pmu_info_t *);
    int (*ev_info)(int, pfm_os_t, pfm_event_info_t *);
    int (*attr_info)(int, int, pfm_os_t, pfm_event_attr_info_t *);
    int (*next)(int);
} real;

static int streq(const char *a, const char *b)
{
    return (!a && !b) || (a && b && !strcmp(a, b));
}

static void reinit_both(const char *force)
{
    real.term();
    pfm_terminate();
    setenv("LIBPFM_ENCODE_INACTIVE", "1", 1);
    setenv("LIBPFM_FORCE_PMU", force, 1);
    unsetenv("LIBPFM_DISABLED_PMUS");
    CU_ASSERT_EQUAL_FATAL(real.init(), PFM_SUCCESS);
    CU_ASSERT_EQUAL_FATAL(pfm_initialize(), PFM_SUCCESS);
}

static int same_pmu(pfm_pmu_t id)
{
    pfm_pmu_info_t a, b;
    memset(&a, 0, sizeof a);
    memset(&b, 0, sizeof b);
    a.size = b.size = sizeof a;
    int r1 = real.pmu_info(id, &a), r2 = pfm_get_pmu_info(id, &b);
    int same = r1 == r2;
    if (same && r1 == PFM_SUCCESS)
        same = streq(a.name, b.name) && a.pmu == b.pmu &&
               a.type == b.type && a.nevents == b.nevents && a.first_event == b.first_event &&
               a.max_encoding == b.max_encoding && a.num_cntrs == b.num_cntrs &&
               a.num_fixed_cntrs == b.num_fixed_cntrs && a.is_present == b.is_present &&
               a.is_dfl == b.is_dfl;
    if (!same)
        fprintf(stderr,
                "pfm_get_pmu_info(%d): libpfm-4 %d %s type %d nevents %d first %#x max %d "
                "cntrs %d/%d present %d; pmusim %d %s type %d nevents %d first %#x max %d "
                "cntrs %d/%d present %d\n",
                (int)id, r1, a.name ? a.name : "-", a.type, a.nevents, a.first_event,
                a.max_encoding, a.num_cntrs, a.num_fixed_cntrs, a.is_present, r2,
                b.name ? b.name : "-", b.type, b.nevents, b.first_event, b.max_encoding,
                b.num_cntrs, b.num_fixed_cntrs, b.is_present);
    return same;
}

/* every event of PMU `id`, every attribute, three OS layers */
static int compare_events(pfm_pmu_t id)
{
    pfm_pmu_info_t pi;
    memset(&pi, 0, sizeof pi);
    pi.size = sizeof pi;
    if (pfm_get_pmu_info(id, &pi) != PFM_SUCCESS)
        return 0;
    int n = 0;
    for (int idx = pi.first_event; idx != -1; idx = pfm_get_event_next(idx)) {
        CU_ASSERT_EQUAL(real.next(idx), pfm_get_event_next(idx));
        for (int os = PFM_OS_NONE; os < PFM_OS_MAX; os++) {
            pfm_event_info_t a, b;
            memset(&a, 0, sizeof a);
            memset(&b, 0, sizeof b);
            a.size = b.size = sizeof a;
            int r1 = real.ev_info(idx, (pfm_os_t)os, &a), r2 = pfm_get_event_info(idx, (pfm_os_t)os, &b);
            int same = r1 == r2 && r1 == PFM_SUCCESS && streq(a.name, b.name) &&
                       streq(a.equiv, b.equiv) && a.code == b.code && a.pmu == b.pmu &&
                       a.dtype == b.dtype && a.idx == b.idx && a.nattrs == b.nattrs &&
                       a.is_precise == b.is_precise && a.is_speculative == b.is_speculative &&
                       a.support_hw_smpl == b.support_hw_smpl;
            if (!same) {
                fprintf(stderr, "event %#x os %d: libpfm-4 %d %s, pmusim %d %s\n", idx, os, r1,
                        a.name ? a.name : "-", r2, b.name ? b.name : "-");
                CU_FAIL("event info differs");
                continue;
            }
            for (int k = 0; k <= a.nattrs; k++) { /* one past the end too */
                pfm_event_attr_info_t x, y;
                memset(&x, 0, sizeof x);
                memset(&y, 0, sizeof y);
                x.size = y.size = sizeof x;
                r1 = real.attr_info(idx, k, (pfm_os_t)os, &x);
                r2 = pfm_get_event_attr_info(idx, k, (pfm_os_t)os, &y);
                same = r1 == r2;
                if (same && r1 == PFM_SUCCESS)
                    same = streq(x.name, y.name) && streq(x.equiv, y.equiv) && x.code == y.code &&
                           x.type == y.type && x.idx == y.idx && x.ctrl == y.ctrl &&
                           x.is_dfl == y.is_dfl && x.is_precise == y.is_precise &&
                           x.is_speculative == y.is_speculative &&
                           x.support_hw_smpl == y.support_hw_smpl && x.dfl_val64 == y.dfl_val64;
                if (!same) {
                    fprintf(stderr, "event %s attr %d os %d: libpfm-4 %d %s, pmusim %d %s\n", a.name,
                            k, os, r1, x.name ? x.name : "-", r2, y.name ? y.name : "-");
                    CU_FAIL("attribute info differs");
                }
            }
        }
        n++;
    }
    return n;
}

static void compare_string(int line, const char *s)
{
    char *f1 = NULL, *f2 = NULL;
    uint64_t *c1 = NULL, *c2 = NULL;
    int n1 = 0, n2 = 0, i1 = -1, i2 = -1;
    int r1 = real.enc(s, PFM_PLM0 | PFM_PLM3, &f1, &i1, &c1, &n1);
    int r2 = pfm_get_event_encoding(s, PFM_PLM0 | PFM_PLM3, &f2, &i2, &c2, &n2);
    int same = r1 == r2 && n1 == n2 && i1 == i2 && streq(f1, f2);
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

    for (int os = PFM_OS_PERF_EVENT; os <= PFM_OS_PERF_EVENT_EXT; os++) {
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
        r1 = real.os_enc(s, PFM_PLM0 | PFM_PLM3, (pfm_os_t)os, &g1);
        r2 = pfm_get_os_event_encoding(s, PFM_PLM0 | PFM_PLM3, (pfm_os_t)os, &g2);
        same = r1 == r2 && memcmp(&a1, &a2, sizeof a1) == 0 && g1.idx == g2.idx &&
               g1.cpu == g2.cpu && g1.flags == g2.flags && streq(f1, f2);
        if (!same)
            fprintf(stderr, "%s:%d: '%s' (os %d): libpfm-4 %d %s, pmusim %d %s\n", STRINGS_FILE,
                    line, s, os, r1, f1 ? f1 : "-", r2, f2 ? f2 : "-");
        CU_ASSERT(same);
        free(f1);
        free(f2);
    }
}

static void test_perf_info(void)
{
    reinit_both("perf");
    CU_ASSERT(same_pmu(PFM_PMU_PERF_EVENT));
    CU_ASSERT(same_pmu(PFM_PMU_PERF_EVENT_RAW)); /* not initialized in either */
    CU_ASSERT(same_pmu(PFM_PMU_INTEL_WSM));
    CU_ASSERT_EQUAL(compare_events(PFM_PMU_PERF_EVENT), 82);
}

/* last: libpfm-4 4.13's pfm_terminate() leaves the PMUs it activated active
 * (perf stays present after forcing perf_raw; docs/compat-x86.md P7), so
 * only perf_raw is compared after this re-initialization */
static void test_perf_raw_info(void)
{
    reinit_both("perf_raw");
    CU_ASSERT(same_pmu(PFM_PMU_PERF_EVENT_RAW));
    CU_ASSERT_EQUAL(compare_events(PFM_PMU_PERF_EVENT_RAW), 1);
}

static void test_strings(void)
{
    reinit_both("perf");
    FILE *f = fopen(STRINGS_FILE, "r");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    char buf[1024];
    int line = 0, n = 0;
    while (fgets(buf, sizeof buf, f)) {
        line++;
        buf[strcspn(buf, "\n")] = '\0';
        if (!buf[0] || buf[0] == '#')
            continue;
        compare_string(line, buf);
        n++;
    }
    fclose(f);
    CU_ASSERT(n > 4000);
    printf("\n  %d strings compared with libpfm.so.4\n", n);
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
    /* DEEPBIND: the real library must call its own pfm_* functions */
    real.handle = dlopen("libpfm.so.4", RTLD_NOW | RTLD_LOCAL | RTLD_DEEPBIND);
    if (!real.handle) {
        printf("skipped: no libpfm-4 to compare with (%s)\n", dlerror());
        exit(77);
    }
    if (dlsym(real.handle, "pfm_get_event_first")) {
        printf("skipped: the libpfm.so.4 found is pmusim's drop-in, not libpfm-4\n");
        exit(77);
    }
    *(void **)&real.init = dlsym(real.handle, "pfm_initialize");
    *(void **)&real.term = dlsym(real.handle, "pfm_terminate");
    *(void **)&real.enc = dlsym(real.handle, "pfm_get_event_encoding");
    *(void **)&real.os_enc = dlsym(real.handle, "pfm_get_os_event_encoding");
    *(void **)&real.pmu_info = dlsym(real.handle, "pfm_get_pmu_info");
    *(void **)&real.ev_info = dlsym(real.handle, "pfm_get_event_info");
    *(void **)&real.attr_info = dlsym(real.handle, "pfm_get_event_attr_info");
    *(void **)&real.next = dlsym(real.handle, "pfm_get_event_next");
    if (!real.init || !real.term || !real.enc || !real.os_enc || !real.pmu_info ||
        !real.ev_info || !real.attr_info || !real.next) {
        printf("skipped: libpfm.so.4 lacks part of the libpfm-4 API\n");
        exit(77);
    }
    /* a libpfm-4 without the perf PMU (not Linux, or too old) says nothing */
    setenv("LIBPFM_FORCE_PMU", "perf", 1);
    setenv("LIBPFM_ENCODE_INACTIVE", "1", 1);
    pfm_pmu_info_t pi;
    memset(&pi, 0, sizeof pi);
    pi.size = sizeof pi;
    if (real.init() != PFM_SUCCESS || real.pmu_info(PFM_PMU_PERF_EVENT, &pi) != PFM_SUCCESS ||
        !pi.name || strcmp(pi.name, "perf")) {
        printf("skipped: this libpfm.so.4 has no perf PMU at id %d\n", PFM_PMU_PERF_EVENT);
        exit(77);
    }
    CU_pSuite s = CU_add_suite("perf_vs_libpfm4", NULL, NULL);
    PMUSIM_ADD_TEST(s, test_strings);
    PMUSIM_ADD_TEST(s, test_perf_info);
    PMUSIM_ADD_TEST(s, test_perf_raw_info);
}
