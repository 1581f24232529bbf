/* Benchmark of the libpfm-4 face: pfm_initialize() time, then every
 * event x umask x modifier string of wsm, wsm_dp and knm (built through the
 * public attribute API) encoded repeatedly; prints strings/s with and without
 * the canonical string.  Not part of CI: `meson test --benchmark`.
 *
 *   bench-enc-x86 [SECONDS | xPASSES] [LIBRARY]
 *
 * SECONDS (default 2) is the time per measurement; xPASSES instead encodes
 * the corpus exactly PASSES times (deterministic: for callgrind).  With
 * LIBRARY (e.g. /usr/lib/x86_64-linux-gnu/libpfm.so.4) the same calls go to
 * that shared library, loaded with dlopen(), instead of pmusim's encoder:
 * the comparison with libpfm4 that docs/PERFORMANCE.md reports.
 * PMUSIM_BENCH_FSTR=0 (or 1) in the environment runs only the measurement
 * without (with) the canonical string, e.g. for callgrind per mode. */
#include <perfmon/pfmlib.h>

#include <dlfcn.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts); /* CPU time: the machine is shared */
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* the functions used, pmusim's or LIBRARY's */
static struct {
    pfm_err_t (*initialize)(void);
    pfm_err_t (*get_pmu_info)(pfm_pmu_t, pfm_pmu_info_t *);
    int (*get_event_next)(int);
    pfm_err_t (*get_event_info)(int, pfm_os_t, pfm_event_info_t *);
    pfm_err_t (*get_event_attr_info)(int, int, pfm_os_t, pfm_event_attr_info_t *);
    pfm_err_t (*get_os_event_encoding)(const char *, int, pfm_os_t, void *);
} api = { pfm_initialize, pfm_get_pmu_info, pfm_get_event_next, pfm_get_event_info,
          pfm_get_event_attr_info, pfm_get_os_event_encoding };

static void load(const char *lib)
{
    void *h = dlopen(lib, RTLD_NOW | RTLD_LOCAL | RTLD_DEEPBIND);
    if (!h) {
        fprintf(stderr, "bench-enc-x86: cannot load %s: %s\n", lib, dlerror());
        exit(1);
    }
    void *f[6];
    static const char *const names[6] = { "pfm_initialize", "pfm_get_pmu_info",
                                          "pfm_get_event_next", "pfm_get_event_info",
                                          "pfm_get_event_attr_info",
                                          "pfm_get_os_event_encoding" };
    for (int i = 0; i < 6; i++) {
        f[i] = dlsym(h, names[i]);
        if (!f[i]) {
            fprintf(stderr, "bench-enc-x86: %s has no %s\n", lib, names[i]);
            exit(1);
        }
    }
    /* (object pointers to function pointers: POSIX guarantees dlsym's) */
    memcpy(&api.initialize, &f[0], sizeof f[0]);
    memcpy(&api.get_pmu_info, &f[1], sizeof f[1]);
    memcpy(&api.get_event_next, &f[2], sizeof f[2]);
    memcpy(&api.get_event_info, &f[3], sizeof f[3]);
    memcpy(&api.get_event_attr_info, &f[4], sizeof f[4]);
    memcpy(&api.get_os_event_encoding, &f[5], sizeof f[5]);
}

static char **strs;
static size_t nstrs, cap;

static void add(const char *s)
{
    if (nstrs == cap) {
        cap = cap ? cap * 2 : 1024;
        strs = realloc(strs, cap * sizeof *strs);
        if (!strs)
            exit(2);
    }
    strs[nstrs++] = strdup(s);
}

static void build(pfm_pmu_t pmu)
{
    static const char *const mods[] = { "", ":u", ":k", ":c=1", ":e:c=1", ":i:c=1", ":t" };
    pfm_pmu_info_t pi;
    memset(&pi, 0, sizeof pi);
    pi.size = sizeof pi;
    if (api.get_pmu_info(pmu, &pi) != PFM_SUCCESS)
        exit(2);
    for (int e = pi.first_event; e != -1; e = api.get_event_next(e)) {
        pfm_event_info_t ei;
        memset(&ei, 0, sizeof ei);
        ei.size = sizeof ei;
        api.get_event_info(e, PFM_OS_NONE, &ei);
        int numasks = 0;
        for (int a = 0; a < ei.nattrs; a++) {
            pfm_event_attr_info_t ai;
            memset(&ai, 0, sizeof ai);
            ai.size = sizeof ai;
            api.get_event_attr_info(e, a, PFM_OS_NONE, &ai);
            if (ai.type != PFM_ATTR_UMASK)
                continue;
            numasks++;
            for (size_t m = 0; m < sizeof mods / sizeof mods[0]; m++) {
                char buf[256];
                snprintf(buf, sizeof buf, "%s::%s:%s%s", pi.name, ei.name, ai.name, mods[m]);
                add(buf);
            }
        }
        if (!numasks)
            for (size_t m = 0; m < sizeof mods / sizeof mods[0]; m++) {
                char buf[256];
                snprintf(buf, sizeof buf, "%s::%s%s", pi.name, ei.name, mods[m]);
                add(buf);
            }
    }
}

int main(int argc, char **argv)
{
    double seconds = 2.0;
    long passes = 0;
    if (argc > 1 && argv[1][0] == 'x')
        passes = atol(argv[1] + 1);
    else if (argc > 1)
        seconds = atof(argv[1]);
    setenv("LIBPFM_ENCODE_INACTIVE", "1", 1);
    /* the corpus always comes from pmusim's tables, so that both libraries
     * encode the same strings */
    double t0 = now();
    if (api.initialize() != PFM_SUCCESS)
        return 2;
    double init = now() - t0;
    build(PFM_PMU_INTEL_WSM);
    build(PFM_PMU_INTEL_WSM_DP);
    build(PFM_PMU_INTEL_KNM);
    if (argc > 2) {
        load(argv[2]);
        t0 = now();
        if (api.initialize() != PFM_SUCCESS)
            return 2;
        init = now() - t0;
    }

    size_t ok = 0;
    int fstr_lo = 0, fstr_hi = 2;
    const char *only = getenv("PMUSIM_BENCH_FSTR");
    if (only && *only) {
        fstr_lo = atoi(only) ? 1 : 0;
        fstr_hi = fstr_lo + 1;
    }
    for (int with_fstr = fstr_lo; with_fstr < fstr_hi; with_fstr++) {
        uint64_t codes[2];
        long done = 0;
        double start = now(), el;
        do {
            for (size_t i = 0; i < nstrs; i++) {
                pfm_pmu_encode_arg_t arg;
                char *fstr = NULL;
                memset(&arg, 0, sizeof arg);
                arg.size = sizeof arg;
                arg.codes = codes;
                arg.count = 2;
                arg.fstr = with_fstr ? &fstr : NULL;
                if (api.get_os_event_encoding(strs[i], PFM_PLM0 | PFM_PLM3, PFM_OS_NONE, &arg) ==
                    PFM_SUCCESS && done == 0 && with_fstr == fstr_lo)
                    ok++;
                free(fstr);
            }
            done += (long)nstrs;
            el = now() - start;
        } while (passes ? done < passes * (long)nstrs : el < seconds);
        printf("enc_x86: %zu strings (%s fstr): %.0f strings/s\n", nstrs,
               with_fstr ? "with" : "without", (double)done / el);
    }
    printf("enc_x86: pfm_initialize %.1f us; %zu of the %zu strings encode (%s)\n", init * 1e6, ok,
           nstrs, argc > 2 ? argv[2] : "pmusim");
    for (size_t i = 0; i < nstrs; i++)
        free(strs[i]);
    free(strs);
    return 0;
}
