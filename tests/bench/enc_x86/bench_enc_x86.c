/* Benchmark of the libpfm-4 face: pfm_initialize() time, then every
 * event x umask x modifier string of wsm, wsm_dp and knm (built through the
 * public attribute API) encoded repeatedly; prints strings/s with and without
 * the canonical string.  Not part of CI: `meson test --benchmark`. */
#include <perfmon/pfmlib.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
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
    if (pfm_get_pmu_info(pmu, &pi) != PFM_SUCCESS)
        exit(2);
    for (int e = pi.first_event; e != -1; e = pfm_get_event_next(e)) {
        pfm_event_info_t ei;
        memset(&ei, 0, sizeof ei);
        ei.size = sizeof ei;
        pfm_get_event_info(e, PFM_OS_NONE, &ei);
        int numasks = 0;
        for (int a = 0; a < ei.nattrs; a++) {
            pfm_event_attr_info_t ai;
            memset(&ai, 0, sizeof ai);
            ai.size = sizeof ai;
            pfm_get_event_attr_info(e, a, PFM_OS_NONE, &ai);
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
    double seconds = argc > 1 ? atof(argv[1]) : 2.0;
    setenv("LIBPFM_ENCODE_INACTIVE", "1", 1);
    double t0 = now();
    if (pfm_initialize() != PFM_SUCCESS)
        return 2;
    double init = now() - t0;
    build(PFM_PMU_INTEL_WSM);
    build(PFM_PMU_INTEL_WSM_DP);
    build(PFM_PMU_INTEL_KNM);

    size_t ok = 0;
    for (int with_fstr = 0; with_fstr < 2; with_fstr++) {
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
                if (pfm_get_os_event_encoding(strs[i], PFM_PLM0 | PFM_PLM3, PFM_OS_NONE, &arg) ==
                    PFM_SUCCESS)
                    ok++;
                free(fstr);
            }
            done += (long)nstrs;
            el = now() - start;
        } while (el < seconds);
        printf("enc_x86: %zu strings (%s fstr): %.0f strings/s\n", nstrs,
               with_fstr ? "with" : "without", (double)done / el);
    }
    printf("enc_x86: pfm_initialize %.1f us; %zu encodings succeeded\n", init * 1e6, ok);
    for (size_t i = 0; i < nstrs; i++)
        free(strs[i]);
    free(strs);
    return 0;
}
