/* Unit tests of the x86 encoder: the libpfm-4 face (data-driven cases plus
 * API behaviour) and the native face (scheduling and MSR writes). */
#include "cu_main.h"
#include "cases_runner.h"

#include <perfmon/pfmlib.h>
#include <perfmon/pfmlib_perf_event.h>

#include "pmusim/encoder.h"

#include <glib.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#ifndef CASES_FILE
#error "CASES_FILE must name the case file"
#endif

/* The error domain, the PMU names and the suggestions of the native face
 * live in encoder/registry.c: this runner links the whole encoder library. */

static void reinit(const char *inactive, const char *force)
{
    pfm_terminate();
    if (inactive)
        g_setenv("LIBPFM_ENCODE_INACTIVE", inactive, TRUE);
    else
        g_unsetenv("LIBPFM_ENCODE_INACTIVE");
    if (force)
        g_setenv("LIBPFM_FORCE_PMU", force, TRUE);
    else
        g_unsetenv("LIBPFM_FORCE_PMU");
    g_unsetenv("LIBPFM_DISABLED_PMUS");
    CU_ASSERT_EQUAL_FATAL(pfm_initialize(), PFM_SUCCESS);
}

/* ------------------------------------------------------------ cases file */

static int cases_init(void)
{
    pfm_terminate();
    g_setenv("LIBPFM_ENCODE_INACTIVE", "1", TRUE);
    g_unsetenv("LIBPFM_FORCE_PMU");
    g_unsetenv("LIBPFM_DISABLED_PMUS");
    return pfm_initialize() == PFM_SUCCESS ? 0 : 1;
}

/* ------------------------------------------------------------ library API */

static void test_version_strerror(void)
{
    CU_ASSERT_EQUAL(pfm_get_version(), 4 << 16);
    CU_ASSERT_STRING_EQUAL(pfm_strerror(PFM_SUCCESS), "success");
    CU_ASSERT_STRING_EQUAL(pfm_strerror(PFM_ERR_NOTFOUND), "event not found");
    CU_ASSERT_STRING_EQUAL(pfm_strerror(PFM_ERR_TOOSMALL), "parameter is too small");
    CU_ASSERT_STRING_EQUAL(pfm_strerror(-13), "unknown error code");
    CU_ASSERT_STRING_EQUAL(pfm_strerror(1), "unknown error code");
}

static void test_not_initialized(void)
{
    pfm_terminate();
    uint64_t *codes = NULL;
    int count = 0;
    CU_ASSERT_EQUAL(pfm_find_event("wsm::INST_RETIRED"), PFM_ERR_NOINIT);
    CU_ASSERT_EQUAL(pfm_get_event_encoding("wsm::INST_RETIRED", 9, NULL, NULL, &codes, &count),
                    PFM_ERR_NOINIT);
    pfm_pmu_info_t pi = { .size = sizeof pi };
    CU_ASSERT_EQUAL(pfm_get_pmu_info(PFM_PMU_INTEL_WSM, &pi), PFM_ERR_NOINIT);
    CU_ASSERT_EQUAL(pfm_get_event_next(0), -1);
}

static void test_inactive_pmus(void)
{
    uint64_t *codes = NULL;
    int count = 0;
    reinit(NULL, NULL);
    /* none of these PMUs is the host's: named events are not found */
    CU_ASSERT_EQUAL(pfm_get_event_encoding("wsm::INST_RETIRED:ANY_P", 9, NULL, NULL, &codes, &count),
                    PFM_ERR_NOTFOUND);
    CU_ASSERT_PTR_NULL(codes);
    pfm_pmu_info_t pi;
    memset(&pi, 0, sizeof pi);
    pi.size = sizeof pi;
    CU_ASSERT_EQUAL_FATAL(pfm_get_pmu_info(PFM_PMU_INTEL_WSM, &pi), PFM_SUCCESS);
    CU_ASSERT_STRING_EQUAL(pi.name, "wsm");
    CU_ASSERT_EQUAL(pi.is_present, 0);
    CU_ASSERT_EQUAL(pi.nevents, 92);
    CU_ASSERT_EQUAL(pi.num_cntrs, 4);
    CU_ASSERT_EQUAL(pi.num_fixed_cntrs, 3);
    CU_ASSERT_EQUAL(pi.max_encoding, 2);
    CU_ASSERT_EQUAL(pi.type, PFM_PMU_TYPE_CORE);
    CU_ASSERT_EQUAL(pi.first_event, (52 << 21));
    CU_ASSERT_EQUAL_FATAL(pfm_get_pmu_info(PFM_PMU_INTEL_KNM, &pi), PFM_SUCCESS);
    CU_ASSERT_EQUAL(pi.num_cntrs, 2); /* hardware data, not the man page's 4 */
    CU_ASSERT_EQUAL(pi.nevents, 31);
    CU_ASSERT_EQUAL(pfm_get_pmu_info((pfm_pmu_t)7, &pi), PFM_ERR_NOTSUPP);
    CU_ASSERT_EQUAL(pfm_get_pmu_info(PFM_PMU_MAX, &pi), PFM_ERR_INVAL);
    CU_ASSERT_EQUAL(pfm_get_pmu_info(PFM_PMU_INTEL_WSM, NULL), PFM_ERR_INVAL);
    pi.size = 8; /* smaller than ABI0 */
    CU_ASSERT_EQUAL(pfm_get_pmu_info(PFM_PMU_INTEL_WSM, &pi), PFM_ERR_INVAL);

    reinit("1", NULL);
    CU_ASSERT_EQUAL(pfm_get_event_encoding("wsm::INST_RETIRED:ANY_P", 9, NULL, NULL, &codes, &count),
                    PFM_SUCCESS);
    CU_ASSERT_EQUAL(count, 1);
    CU_ASSERT_EQUAL(codes[0], 0x5301c0);
    free(codes);
    /* without a PMU prefix only active PMUs are searched */
    codes = NULL;
    count = 0;
    CU_ASSERT_EQUAL(pfm_get_event_encoding("INST_RETIRED:ANY_P", 9, NULL, NULL, &codes, &count),
                    PFM_ERR_NOTFOUND);
}

static void test_forced_pmu(void)
{
    char *fstr = NULL;
    uint64_t *codes = NULL;
    int count = 0, idx = -1;
    reinit(NULL, "wsm_dp");
    CU_ASSERT_EQUAL_FATAL(
        pfm_get_event_encoding("mem_uncore_retired:remote_dram", 9, &fstr, &idx, &codes, &count),
        PFM_SUCCESS);
    CU_ASSERT_EQUAL(codes[0], 0x53100f);
    CU_ASSERT_STRING_EQUAL(fstr, "wsm_dp::MEM_UNCORE_RETIRED:REMOTE_DRAM:k=1:u=1:e=0:i=0:c=0:t=0");
    CU_ASSERT_EQUAL(idx >> 21, 53);
    free(fstr);
    free(codes);
    pfm_pmu_info_t pi = { .size = sizeof pi };
    CU_ASSERT_EQUAL(pfm_get_pmu_info(PFM_PMU_INTEL_WSM_DP, &pi), PFM_SUCCESS);
    CU_ASSERT_EQUAL(pi.is_present, 1);
    CU_ASSERT_EQUAL(pfm_get_pmu_info(PFM_PMU_INTEL_WSM, &pi), PFM_SUCCESS);
    CU_ASSERT_EQUAL(pi.is_present, 0);
    /* libpfm-4 stops at the forced PMU: later ones are not initialized */
    CU_ASSERT_EQUAL(pfm_get_pmu_info(PFM_PMU_INTEL_KNM, &pi), PFM_ERR_NOTSUPP);
    codes = NULL;
    count = 0;
    CU_ASSERT_EQUAL(pfm_get_event_encoding("wsm::INST_RETIRED:ANY_P", 9, NULL, NULL, &codes, &count),
                    PFM_ERR_NOTFOUND);
    CU_ASSERT_EQUAL(pfm_get_event_first(), 53 << 21);
    /* LIBPFM_DISABLED_PMUS removes a PMU altogether */
    pfm_terminate();
    g_setenv("LIBPFM_DISABLED_PMUS", "knm", TRUE);
    g_unsetenv("LIBPFM_FORCE_PMU");
    pfm_initialize();
    CU_ASSERT_EQUAL(pfm_get_pmu_info(PFM_PMU_INTEL_KNM, &pi), PFM_ERR_NOTSUPP);
    CU_ASSERT_EQUAL(pfm_get_pmu_info(PFM_PMU_INTEL_KNL, &pi), PFM_SUCCESS);
    codes = NULL;
    count = 0;
    CU_ASSERT_EQUAL(pfm_get_event_encoding("knm::INST_RETIRED:ANY_P", 9, NULL, NULL, &codes, &count),
                    PFM_ERR_NOTFOUND);
    /* with LIBPFM_ENCODE_INACTIVE=1 a named PMU encodes even when disabled or
     * left uninitialized by a forced PMU (installed libpfm-4 4.13 does so) */
    pfm_terminate();
    g_setenv("LIBPFM_ENCODE_INACTIVE", "1", TRUE);
    pfm_initialize();
    CU_ASSERT_EQUAL(pfm_get_event_encoding("knm::INST_RETIRED:ANY_P", 9, NULL, NULL, &codes, &count),
                    PFM_SUCCESS);
    CU_ASSERT_EQUAL(count, 1);
    free(codes);
    reinit("1", "wsm");
    codes = NULL;
    count = 0;
    CU_ASSERT_EQUAL(pfm_get_pmu_info(PFM_PMU_INTEL_KNM, &pi), PFM_ERR_NOTSUPP);
    CU_ASSERT_EQUAL(pfm_get_event_encoding("knm::INST_RETIRED:ANY_P", 9, NULL, NULL, &codes, &count),
                    PFM_SUCCESS);
    free(codes);
    int kidx = pfm_find_event("knm::INST_RETIRED");
    CU_ASSERT(kidx >= 0);
    pfm_event_info_t ki = { .size = sizeof ki };
    CU_ASSERT_EQUAL(pfm_get_event_info(kidx, PFM_OS_NONE, &ki), PFM_ERR_INVAL);
    reinit("1", NULL);
}

static void test_events_and_attrs(void)
{
    reinit("1", NULL);
    int a = pfm_find_event("wsm::LLC_MISSES");
    int b = pfm_find_event("wsm::L3_LAT_CACHE");
    CU_ASSERT(a >= 0);
    /* an alias finds its target, one level only (as libpfm-4): LLC_MISSES
     * names L3_LAT_CACHE, itself an alias of LONGEST_LAT_CACHE */
    pfm_event_info_t ia = { .size = sizeof ia }, ib = { .size = sizeof ib };
    CU_ASSERT_EQUAL_FATAL(pfm_get_event_info(a, PFM_OS_NONE, &ia), PFM_SUCCESS);
    CU_ASSERT_EQUAL_FATAL(pfm_get_event_info(b, PFM_OS_NONE, &ib), PFM_SUCCESS);
    CU_ASSERT_STRING_EQUAL(ia.name, "L3_LAT_CACHE");
    CU_ASSERT_STRING_EQUAL(ia.equiv, "LONGEST_LAT_CACHE");
    CU_ASSERT_STRING_EQUAL(ib.name, "LONGEST_LAT_CACHE");
    CU_ASSERT_EQUAL(a & 0x1fffff, 28);
    CU_ASSERT_EQUAL(pfm_find_event("wsm::NO_SUCH_EVENT"), PFM_ERR_NOTFOUND);
    CU_ASSERT_EQUAL(pfm_find_event(NULL), PFM_ERR_INVAL);

    /* iterate the knm table */
    pfm_pmu_info_t pi = { .size = sizeof pi };
    CU_ASSERT_EQUAL_FATAL(pfm_get_pmu_info(PFM_PMU_INTEL_KNM, &pi), PFM_SUCCESS);
    int n = 0;
    for (int i = pi.first_event; i != -1; i = pfm_get_event_next(i))
        n++;
    CU_ASSERT_EQUAL(n, 31);

    int ev = pfm_find_event("wsm::INST_RETIRED");
    pfm_event_info_t ei;
    memset(&ei, 0, sizeof ei);
    ei.size = sizeof ei;
    CU_ASSERT_EQUAL_FATAL(pfm_get_event_info(ev, PFM_OS_NONE, &ei), PFM_SUCCESS);
    CU_ASSERT_STRING_EQUAL(ei.name, "INST_RETIRED");
    CU_ASSERT_EQUAL(ei.code, 0xc0);
    CU_ASSERT_EQUAL(ei.pmu, PFM_PMU_INTEL_WSM);
    CU_ASSERT_EQUAL(ei.is_precise, 1);
    CU_ASSERT_EQUAL(ei.dtype, PFM_DTYPE_UINT64);
    const int nattrs = ei.nattrs;
    int numasks = 0, nmods = 0, ndfl = 0;
    for (int i = 0; i < nattrs; i++) {
        pfm_event_attr_info_t ai;
        memset(&ai, 0, sizeof ai);
        ai.size = sizeof ai;
        CU_ASSERT_EQUAL_FATAL(pfm_get_event_attr_info(ev, i, PFM_OS_NONE, &ai), PFM_SUCCESS);
        CU_ASSERT_EQUAL(ai.idx, i);
        CU_ASSERT_EQUAL(ai.ctrl, PFM_ATTR_CTRL_PMU);
        if (ai.type == PFM_ATTR_UMASK) {
            numasks++;
            ndfl += ai.is_dfl;
            CU_ASSERT(nmods == 0); /* umasks come first */
        } else {
            nmods++;
        }
        if (i == nattrs - 1) {
            CU_ASSERT_STRING_EQUAL(ai.name, "t");
            CU_ASSERT_EQUAL(ai.type, PFM_ATTR_MOD_BOOL);
        }
    }
    CU_ASSERT_EQUAL(nmods, 6); /* k u e i c t */
    CU_ASSERT_EQUAL(ndfl, 1);
    pfm_event_attr_info_t ai = { .size = sizeof ai };
    CU_ASSERT_EQUAL(pfm_get_event_attr_info(ev, nattrs, PFM_OS_NONE, &ai), PFM_ERR_INVAL);
    CU_ASSERT_EQUAL(pfm_get_event_attr_info(ev, -1, PFM_OS_NONE, &ai), PFM_ERR_INVAL);
    CU_ASSERT_EQUAL(pfm_get_event_attr_info(ev, nattrs - 3, PFM_OS_NONE, &ai), PFM_SUCCESS);
    CU_ASSERT_STRING_EQUAL(ai.name, "i");
    /* under perf_event: u/k become perf attributes, mg/mh are added */
    CU_ASSERT_EQUAL_FATAL(pfm_get_event_info(ev, PFM_OS_PERF_EVENT, &ei), PFM_SUCCESS);
    CU_ASSERT_EQUAL(ei.nattrs, numasks + 4 + 4);
    CU_ASSERT_EQUAL(pfm_get_event_attr_info(ev, numasks + 4, PFM_OS_PERF_EVENT, &ai), PFM_SUCCESS);
    CU_ASSERT_STRING_EQUAL(ai.name, "u");
    CU_ASSERT_EQUAL(ai.ctrl, PFM_ATTR_CTRL_PERF_EVENT);
    CU_ASSERT_EQUAL(pfm_get_event_info(-5, PFM_OS_NONE, &ei), PFM_ERR_INVAL);
    CU_ASSERT_EQUAL(pfm_get_event_info(ev, PFM_OS_MAX, &ei), PFM_ERR_INVAL);

    /* every event and every umask of every PMU encodes alone */
    const pfm_pmu_t all[] = { PFM_PMU_INTEL_WSM, PFM_PMU_INTEL_WSM_DP, PFM_PMU_INTEL_KNL,
                              PFM_PMU_INTEL_KNM };
    for (size_t i = 0; i < 4; i++)
        CU_ASSERT_EQUAL(pfm_pmu_validate(all[i], stderr), PFM_SUCCESS);
}

static void test_encoding_arguments(void)
{
    reinit("1", NULL);
    uint64_t buf[1] = { 0 }, *codes = buf;
    int count = 1;
    /* an offcore event needs two codes */
    CU_ASSERT_EQUAL(pfm_get_event_encoding("wsm::offcore_response_0", 9, NULL, NULL, &codes, &count),
                    PFM_ERR_TOOSMALL);
    count = 0;
    CU_ASSERT_EQUAL(pfm_get_event_encoding("wsm::inst_retired", 9, NULL, NULL, &codes, &count),
                    PFM_ERR_INVAL);
    codes = NULL;
    CU_ASSERT_EQUAL(pfm_get_event_encoding(NULL, 9, NULL, NULL, &codes, &count), PFM_ERR_INVAL);
    CU_ASSERT_EQUAL(pfm_get_event_encoding("wsm::inst_retired", 9, NULL, NULL, NULL, &count),
                    PFM_ERR_INVAL);
    pfm_pmu_encode_arg_t arg;
    memset(&arg, 0, sizeof arg);
    arg.size = 8;
    CU_ASSERT_EQUAL(pfm_get_os_event_encoding("wsm::inst_retired", 9, PFM_OS_NONE, &arg),
                    PFM_ERR_INVAL);
    arg.size = sizeof arg;
    CU_ASSERT_EQUAL(pfm_get_os_event_encoding("wsm::inst_retired", 9, PFM_OS_MAX, &arg),
                    PFM_ERR_NOTSUPP);
    CU_ASSERT_EQUAL(pfm_get_os_event_encoding("wsm::inst_retired", 0x40, PFM_OS_NONE, &arg),
                    PFM_ERR_INVAL);
    CU_ASSERT_EQUAL(pfm_get_os_event_encoding("wsm::inst_retired", 9, PFM_OS_NONE, NULL),
                    PFM_ERR_INVAL);
    CU_ASSERT_EQUAL(pfm_get_os_event_encoding("wsm::inst_retired", 9, PFM_OS_NONE, &arg),
                    PFM_SUCCESS);
    CU_ASSERT_EQUAL(arg.count, 1);
    CU_ASSERT_EQUAL(arg.codes[0], 0x5301c0);
    free(arg.codes);
}

static int perf_encode(const char *s, pfm_os_t os, struct perf_event_attr *attr, char **fstr)
{
    pfm_perf_encode_arg_t arg;
    memset(&arg, 0, sizeof arg);
    arg.size = sizeof arg;
    arg.attr = attr;
    arg.fstr = fstr;
    return pfm_get_os_event_encoding(s, PFM_PLM0 | PFM_PLM3, os, &arg);
}

static void test_perf_event(void)
{
    reinit("1", NULL);
    struct perf_event_attr attr;
    char *fstr = NULL;
    memset(&attr, 0, sizeof attr);
    attr.size = sizeof attr;
    CU_ASSERT_EQUAL_FATAL(perf_encode("wsm::offcore_response_0:any_data:local_dram:u",
                                      PFM_OS_PERF_EVENT, &attr, &fstr),
                          PFM_SUCCESS);
    CU_ASSERT_EQUAL(attr.type, PERF_TYPE_RAW);
    CU_ASSERT_EQUAL(attr.config, 0x1b7);
    CU_ASSERT_EQUAL(attr.config1, 0x2033);
    CU_ASSERT_EQUAL(attr.exclude_user, 0);
    CU_ASSERT_EQUAL(attr.exclude_kernel, 1);
    CU_ASSERT_EQUAL(attr.exclude_hv, 0);
    CU_ASSERT_EQUAL(attr.exclude_guest, 1);
    CU_ASSERT_EQUAL(attr.exclude_host, 0);
    CU_ASSERT_EQUAL(attr.size, sizeof attr);
    CU_ASSERT_STRING_EQUAL(fstr, "wsm::OFFCORE_RESPONSE_0:DMND_DATA_RD:DMND_RFO:PF_DATA_RD:PF_RFO:"
                                 "LOCAL_DRAM:e=0:i=0:c=0:t=0:u=1:k=0:mg=0:mh=1");
    free(fstr);
    fstr = NULL;

    /* the PMU-level u/k do not exist under perf_event; e/c still do */
    memset(&attr, 0, sizeof attr);
    CU_ASSERT_EQUAL(perf_encode("wsm::inst_retired:any_p:c=2:e", PFM_OS_PERF_EVENT, &attr, NULL),
                    PFM_SUCCESS);
    CU_ASSERT_EQUAL(attr.config, 0x20401c0);
    CU_ASSERT_EQUAL(attr.exclude_user, 0);
    CU_ASSERT_EQUAL(attr.exclude_kernel, 0);

    memset(&attr, 0, sizeof attr);
    CU_ASSERT_EQUAL(perf_encode("wsm::mem_inst_retired:latency_above_threshold:ldlat=64:precise=2",
                                PFM_OS_PERF_EVENT_EXT, &attr, &fstr),
                    PFM_SUCCESS);
    CU_ASSERT_EQUAL(attr.config, 0x100b);
    CU_ASSERT_EQUAL(attr.config1, 64);
    CU_ASSERT_EQUAL(attr.precise_ip, 2);
    CU_ASSERT_STRING_EQUAL(fstr, "wsm::MEM_INST_RETIRED:LATENCY_ABOVE_THRESHOLD:e=0:i=0:c=0:t=0:"
                                 "ldlat=64:u=1:k=1:precise=2:excl=0:mg=0:mh=1");
    free(fstr);
    fstr = NULL;

    memset(&attr, 0, sizeof attr);
    CU_ASSERT_EQUAL(perf_encode("knm::unhalted_core_cycles:period=1000:k", PFM_OS_PERF_EVENT_EXT,
                                &attr, NULL),
                    PFM_SUCCESS);
    CU_ASSERT_EQUAL(attr.sample_period, 1000);
    CU_ASSERT_EQUAL(attr.exclude_user, 1);
    CU_ASSERT_EQUAL(attr.config, 0x3c);
    /* precise only exists on precise-capable events */
    CU_ASSERT_EQUAL(perf_encode("knm::unhalted_core_cycles:precise=1", PFM_OS_PERF_EVENT_EXT, &attr,
                                NULL),
                    PFM_ERR_ATTR);
    memset(&attr, 0, sizeof attr);
    CU_ASSERT_EQUAL(perf_encode("wsm::inst_retired:period=10:freq=10", PFM_OS_PERF_EVENT_EXT, &attr,
                                NULL),
                    PFM_ERR_ATTR_VAL);
    /* sampling attributes are PFM_OS_PERF_EVENT_EXT only */
    CU_ASSERT_EQUAL(perf_encode("wsm::inst_retired:period=10", PFM_OS_PERF_EVENT, &attr, NULL),
                    PFM_ERR_ATTR);
    CU_ASSERT_EQUAL(perf_encode("wsm::inst_retired:u=0:u=1", PFM_OS_PERF_EVENT, &attr, NULL),
                    PFM_ERR_ATTR_SET);
    int idx = -1;
    memset(&attr, 0, sizeof attr);
    CU_ASSERT_EQUAL(pfm_get_perf_event_encoding("wsm::inst_retired:k", PFM_PLM3, &attr, NULL, &idx),
                    PFM_SUCCESS);
    CU_ASSERT_EQUAL(attr.exclude_user, 1);
    CU_ASSERT_EQUAL(idx, pfm_find_event("wsm::inst_retired"));
}

/* ------------------------------------------------------------ native face */

static GArray *native_encode(const pmusim_encoder_pmu_t *p, const char *const *ev, size_t n,
                             const pmusim_encode_opt_t *opts, size_t nopts, GError **err)
{
    GArray *regs = g_array_new(FALSE, TRUE, sizeof(pmusim_regwrite_t));
    if (!p->encode(ev, n, opts, nopts, PMUSIM_PLM0 | PMUSIM_PLM3, regs, err)) {
        g_array_free(regs, TRUE);
        return NULL;
    }
    return regs;
}

typedef struct { uint32_t msr; uint64_t value; } want_t;

static void check_writes(GArray *regs, const want_t *w, size_t n)
{
    CU_ASSERT_PTR_NOT_NULL_FATAL(regs);
    CU_ASSERT_EQUAL(regs->len, n);
    for (size_t i = 0; i < n && i < regs->len; i++) {
        const pmusim_regwrite_t *r = &g_array_index(regs, pmusim_regwrite_t, i);
        CU_ASSERT_EQUAL(r->space, PMUSIM_REG_MSR);
        if (r->num != w[i].msr || r->value != w[i].value)
            fprintf(stderr, "write %zu: msr 0x%x 0x%" PRIx64 ", expected msr 0x%x 0x%" PRIx64 "\n",
                    i, r->num, r->value, w[i].msr, w[i].value);
        CU_ASSERT_EQUAL(r->num, w[i].msr);
        CU_ASSERT_EQUAL(r->value, w[i].value);
    }
}

static void test_native_basic(void)
{
    const char *ev1[] = { "wsm::INST_RETIRED:ANY_P" };
    GArray *r = native_encode(&pmusim_encoder_wsm, ev1, 1, NULL, 0, NULL);
    const want_t w1[] = { { 0x186, 0x5301c0 }, { 0xc1, 0 }, { 0x38f, 0x1 } };
    check_writes(r, w1, 3);
    CU_ASSERT_STRING_EQUAL(g_array_index(r, pmusim_regwrite_t, 0).label,
                           "wsm::INST_RETIRED:ANY_P:k=1:u=1:e=0:i=0:c=0:t=0");
    CU_ASSERT_EQUAL(g_array_index(r, pmusim_regwrite_t, 0).thread, PMUSIM_THREAD_ALL);
    g_array_free(r, TRUE);

    /* fixed counters: EN from u/k (1 ring 0, 2 ring > 0), AnyThread, PMI */
    const char *ev2[] = { "wsm::UNHALTED_CORE_CYCLES", "wsm::INSTRUCTIONS_RETIRED:u",
                          "wsm::UNHALTED_REFERENCE_CYCLES:k:t" };
    r = native_encode(&pmusim_encoder_wsm, ev2, 3, NULL, 0, NULL);
    /* FIXED_CTR_CTRL is read-modify-written once per fixed event, each write
     * labelled with the event whose 4-bit block it adds */
    const want_t w2[] = { { 0x309, 0 }, { 0x38d, 0xa }, { 0x30a, 0 }, { 0x38d, 0xba },
                          { 0x30b, 0 }, { 0x38d, 0xdba }, { 0x38f, 0x700000000ull } };
    check_writes(r, w2, 7);
    if (r && r->len == 7) {
        CU_ASSERT_STRING_EQUAL(g_array_index(r, pmusim_regwrite_t, 1).label,
                               "wsm::INSTRUCTION_RETIRED:k=0:u=1:e=0:i=0:c=0:t=0");
        CU_ASSERT_STRING_EQUAL(g_array_index(r, pmusim_regwrite_t, 3).label,
                               "wsm::UNHALTED_CORE_CYCLES:k=1:u=1:e=0:i=0:c=0:t=0");
    }
    g_array_free(r, TRUE);

    /* a second instructions event and a cmask'ed one use generic counters */
    const char *ev3[] = { "wsm::INSTRUCTION_RETIRED", "wsm::INSTRUCTION_RETIRED:u",
                          "wsm::UNHALTED_CORE_CYCLES:c=1" };
    r = native_encode(&pmusim_encoder_wsm, ev3, 3, NULL, 0, NULL);
    const want_t w3[] = { { 0x186, 0x153003c }, { 0xc1, 0 }, { 0x187, 0x5100c0 }, { 0xc2, 0 },
                          { 0x309, 0 }, { 0x38d, 0xb }, { 0x38f, 0x100000003ull } };
    check_writes(r, w3, 7);
    g_array_free(r, TRUE);
}

/* Intel's counter restrictions (sim/models/x86/counter-restrictions.csv):
 * load latency counts on IA32_PMC3 only, which libpfm-4's table (counters
 * 0-3) does not say; the native face places events by Intel's data. */
static void test_native_restrictions(void)
{
    /* alone: PERFEVTSEL3, PMC3, and PEBS_EN_PMC3 + LL_EN_PMC3 */
    const char *ll[] = { "wsm::MEM_INST_RETIRED:LATENCY_ABOVE_THRESHOLD" };
    GArray *r = native_encode(&pmusim_encoder_wsm, ll, 1, NULL, 0, NULL);
    const want_t w1[] = { { 0x3f6, 3 }, { 0x189, 0x53100b }, { 0xc4, 0 },
                          { 0x3f1, 0x800000008ull }, { 0x38f, 0x8 } };
    check_writes(r, w1, 5);
    g_array_free(r, TRUE);
    /* first in -e order, with the PMC0-1 events and an unrestricted one: each
     * on a counter that counts it, the unrestricted one on what is left (the
     * greedy walk by libpfm's masks put load latency on PMC2) */
    const char *mix[] = { "wsm::MEM_INST_RETIRED:LATENCY_ABOVE_THRESHOLD:ldlat=10",
                          "wsm::UOPS_RETIRED:ANY", "wsm::L1D:REPL", "wsm::L1D:M_REPL" };
    r = native_encode(&pmusim_encoder_wsm, mix, 4, NULL, 0, NULL);
    const want_t w2[] = { { 0x3f6, 10 },      { 0x186, 0x530151 }, { 0xc1, 0 },
                          { 0x187, 0x530251 }, { 0xc2, 0 },       { 0x188, 0x5301c2 },
                          { 0xc3, 0 },       { 0x189, 0x53100b }, { 0xc4, 0 },
                          { 0x3f1, 0x800000008ull }, { 0x38f, 0xf } };
    check_writes(r, w2, 11);
    g_array_free(r, TRUE);
    /* wsm_dp has the same restriction; a raw unit mask of the same code too */
    const char *dp[] = { "wsm_dp::MEM_INST_RETIRED:0x10", "wsm_dp::INST_RETIRED:ANY_P" };
    r = native_encode(&pmusim_encoder_wsm_dp, dp, 2, NULL, 0, NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(r);
    CU_ASSERT_EQUAL(g_array_index(r, pmusim_regwrite_t, 0).num, 0x186);
    CU_ASSERT_EQUAL(g_array_index(r, pmusim_regwrite_t, 0).value, 0x5301c0);
    CU_ASSERT_EQUAL(g_array_index(r, pmusim_regwrite_t, 2).num, 0x189);
    CU_ASSERT_EQUAL(g_array_index(r, pmusim_regwrite_t, 2).value & 0xffff, 0x100b);
    g_array_free(r, TRUE);
    /* two load-latency events need PMC3 both: no placement, though four
     * counters are free; the error names the holder */
    GError *err = NULL;
    const char *two[] = { "wsm::MEM_INST_RETIRED:LATENCY_ABOVE_THRESHOLD",
                          "wsm::MEM_INST_RETIRED:LATENCY_ABOVE_THRESHOLD:u" };
    CU_ASSERT_PTR_NULL(native_encode(&pmusim_encoder_wsm, two, 2, NULL, 0, &err));
    CU_ASSERT_EQUAL(err ? err->code : 0, PFM_ERR_TOOMANY);
    CU_ASSERT(err && strstr(err->message, "MEM_INST_RETIRED:LATENCY_ABOVE_THRESHOLD (PMC3)"));
    g_clear_error(&err);
    /* PMC0-only plus two PMC0-1 events: three events, no placement */
    const char *pmc01[] = { "wsm::L1D:REPL", "wsm::L1D:M_REPL",
                            "wsm::OFFCORE_REQUESTS_OUTSTANDING:ANY_READ" };
    CU_ASSERT_PTR_NULL(native_encode(&pmusim_encoder_wsm, pmc01, 3, NULL, 0, &err));
    CU_ASSERT_EQUAL(err ? err->code : 0, PFM_ERR_TOOMANY);
    g_clear_error(&err);
}

static void test_native_constraints(void)
{
    /* OFFCORE_REQUESTS_OUTSTANDING may only use PMC0: scheduled first */
    const char *ev[] = { "wsm::INST_RETIRED:ANY_P", "wsm::OFFCORE_REQUESTS_OUTSTANDING:ANY_READ" };
    GArray *r = native_encode(&pmusim_encoder_wsm, ev, 2, NULL, 0, NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(r);
    CU_ASSERT_EQUAL(g_array_index(r, pmusim_regwrite_t, 0).num, 0x186);
    CU_ASSERT_EQUAL(g_array_index(r, pmusim_regwrite_t, 0).value & 0xff, 0x60);
    CU_ASSERT_EQUAL(g_array_index(r, pmusim_regwrite_t, 2).num, 0x187);
    CU_ASSERT_EQUAL(g_array_index(r, pmusim_regwrite_t, 2).value, 0x5301c0);
    g_array_free(r, TRUE);

    /* too many events for the counters */
    GError *err = NULL;
    const char *five[] = { "wsm::INST_RETIRED:ANY_P", "wsm::UOPS_RETIRED:ANY", "wsm::BR_INST_RETIRED",
                           "wsm::BR_MISP_RETIRED:NEAR_CALL", "wsm::ARITH:DIV" };
    CU_ASSERT_PTR_NULL(native_encode(&pmusim_encoder_wsm, five, 5, NULL, 0, &err));
    CU_ASSERT_PTR_NOT_NULL_FATAL(err);
    CU_ASSERT_EQUAL(err->domain, PMUSIM_ENCODER_ERROR);
    CU_ASSERT_EQUAL(err->code, PFM_ERR_TOOMANY);
    g_clear_error(&err);
    const char *three[] = { "knm::UOPS_RETIRED", "knm::BR_INST_RETIRED", "knm::BR_MISP_RETIRED" };
    CU_ASSERT_PTR_NULL(native_encode(&pmusim_encoder_knm, three, 3, NULL, 0, &err));
    CU_ASSERT_EQUAL(err ? err->code : 0, PFM_ERR_TOOMANY);
    g_clear_error(&err);
    const char *two_ref[] = { "knm::UNHALTED_REFERENCE_CYCLES", "knm::UNHALTED_REFERENCE_CYCLES:u" };
    CU_ASSERT_PTR_NULL(native_encode(&pmusim_encoder_knm, two_ref, 2, NULL, 0, &err));
    CU_ASSERT_EQUAL(err ? err->code : 0, PFM_ERR_TOOMANY);
    g_clear_error(&err);
    /* knm: AnyThread only on a fixed counter (knm seed) */
    const char *knm_t[] = { "knm::INSTRUCTIONS_RETIRED:t" };
    GArray *rt = native_encode(&pmusim_encoder_knm, knm_t, 1, NULL, 0, NULL);
    const want_t wt[] = { { 0x309, 0 }, { 0x38d, 0xf }, { 0x38f, 0x100000000ull } };
    check_writes(rt, wt, 3);
    g_array_free(rt, TRUE);
    /* the t event is the more constrained one: it gets FIXED_CTR0 */
    const char *knm_t2[] = { "knm::INSTRUCTIONS_RETIRED", "knm::INSTRUCTIONS_RETIRED:t" };
    rt = native_encode(&pmusim_encoder_knm, knm_t2, 2, NULL, 0, NULL);
    const want_t wt2[] = { { 0x186, 0x5300c0 }, { 0xc1, 0 }, { 0x309, 0 }, { 0x38d, 0xf },
                           { 0x38f, 0x100000001ull } };
    check_writes(rt, wt2, 5);
    g_array_free(rt, TRUE);
    const char *knm_t3[] = { "knm::INSTRUCTIONS_RETIRED:t", "knm::INSTRUCTIONS_RETIRED:t:u" };
    CU_ASSERT_PTR_NULL(native_encode(&pmusim_encoder_knm, knm_t3, 2, NULL, 0, &err));
    CU_ASSERT_EQUAL(err ? err->code : 0, PFM_ERR_TOOMANY);
    CU_ASSERT(err && strstr(err->message, "AnyThread") != NULL);
    g_clear_error(&err);
    /* wsm: AnyThread on a generic counter is fine */
    const char *wsm_t[] = { "wsm::INSTRUCTIONS_RETIRED", "wsm::INSTRUCTIONS_RETIRED:t" };
    rt = native_encode(&pmusim_encoder_wsm, wsm_t, 2, NULL, 0, NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(rt);
    CU_ASSERT_EQUAL(g_array_index(rt, pmusim_regwrite_t, 0).value, 0x7300c0);
    g_array_free(rt, TRUE);
    /* an encoding error keeps libpfm's code */
    const char *bad[] = { "wsm::INST_RETIRED:ANY_P:c=300" };
    CU_ASSERT_PTR_NULL(native_encode(&pmusim_encoder_wsm, bad, 1, NULL, 0, &err));
    CU_ASSERT_EQUAL(err ? err->code : 0, PFM_ERR_ATTR_VAL);
    CU_ASSERT(err && strstr(err->message, "c=300") != NULL);
    g_clear_error(&err);
    const char *other_pmu[] = { "knm::INST_RETIRED:ANY_P" };
    CU_ASSERT_PTR_NULL(native_encode(&pmusim_encoder_wsm, other_pmu, 1, NULL, 0, &err));
    CU_ASSERT_EQUAL(err ? err->code : 0, PFM_ERR_NOTFOUND);
    g_clear_error(&err);
}

static void test_native_extra_regs(void)
{
    /* two OFFCORE_RESPONSE_0 with different values: the second moves to RSP_1 */
    const char *ev[] = { "wsm::OFFCORE_RESPONSE_0:ANY_DATA:LOCAL_DRAM",
                         "wsm::OFFCORE_RESPONSE_0:DMND_RFO:REMOTE_DRAM" };
    GArray *r = native_encode(&pmusim_encoder_wsm, ev, 2, NULL, 0, NULL);
    const want_t w[] = { { 0x1a6, 0x2033 }, { 0x1a7, 0x4002 }, { 0x186, 0x5301b7 }, { 0xc1, 0 },
                         { 0x187, 0x5301bb }, { 0xc2, 0 }, { 0x38f, 0x3 } };
    check_writes(r, w, 7);
    g_array_free(r, TRUE);

    GError *err = NULL;
    const char *three[] = { "wsm::OFFCORE_RESPONSE_0:WB", "wsm::OFFCORE_RESPONSE_1:OTHER",
                            "wsm::OFFCORE_RESPONSE_0:PF_RFO" };
    CU_ASSERT_PTR_NULL(native_encode(&pmusim_encoder_wsm, three, 3, NULL, 0, &err));
    CU_ASSERT_EQUAL(err ? err->code : 0, PFM_ERR_FEATCOMB);
    g_clear_error(&err);

    /* knm: umask 0x02 selects RSP_1; PARTIAL_WRITES is RSP_1 only (Linux) */
    const char *knm[] = { "knm::OFFCORE_RESPONSE_1:PARTIAL_WRITES" };
    r = native_encode(&pmusim_encoder_knm, knm, 1, NULL, 0, NULL);
    const want_t wk[] = { { 0x1a7, 0x10100 }, { 0x186, 0x5302b7 }, { 0xc1, 0 }, { 0x38f, 0x1 } };
    check_writes(r, wk, 4);
    g_array_free(r, TRUE);
    const char *knm_bad[] = { "knm::OFFCORE_RESPONSE_0:PARTIAL_WRITES" };
    CU_ASSERT_PTR_NULL(native_encode(&pmusim_encoder_knm, knm_bad, 1, NULL, 0, &err));
    CU_ASSERT_EQUAL(err ? err->code : 0, PFM_ERR_FEATCOMB);
    g_clear_error(&err);

    /* load latency: threshold MSR plus PEBS_EN and LL_EN of the counter,
     * IA32_PMC3 (Intel's restriction, test_native_restrictions) */
    const char *ll[] = { "wsm::INST_RETIRED:ANY_P",
                         "wsm::MEM_INST_RETIRED:LATENCY_ABOVE_THRESHOLD:ldlat=32" };
    r = native_encode(&pmusim_encoder_wsm, ll, 2, NULL, 0, NULL);
    const want_t wl[] = { { 0x3f6, 32 }, { 0x186, 0x5301c0 }, { 0xc1, 0 }, { 0x189, 0x53100b },
                          { 0xc4, 0 }, { 0x3f1, 0x800000008ull }, { 0x38f, 0x9 } };
    check_writes(r, wl, 7);
    g_array_free(r, TRUE);
    const char *ll2[] = { "wsm::MEM_INST_RETIRED:LATENCY_ABOVE_THRESHOLD:ldlat=32",
                          "wsm::MEM_INST_RETIRED:LATENCY_ABOVE_THRESHOLD" };
    CU_ASSERT_PTR_NULL(native_encode(&pmusim_encoder_wsm, ll2, 2, NULL, 0, &err));
    CU_ASSERT_EQUAL(err ? err->code : 0, PFM_ERR_FEATCOMB);
    g_clear_error(&err);
}

static void test_native_options(void)
{
    const char *ev[] = { "wsm::INST_RETIRED:ANY_P" };
    const pmusim_encode_opt_t opt[] = { { "thread", "1" } };
    GArray *r = native_encode(&pmusim_encoder_wsm, ev, 1, opt, 1, NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(r);
    for (guint i = 0; i < r->len; i++)
        CU_ASSERT_EQUAL(g_array_index(r, pmusim_regwrite_t, i).thread, 1);
    g_array_free(r, TRUE);
    GError *err = NULL;
    const pmusim_encode_opt_t bad[] = { { "bogus", "1" } };
    CU_ASSERT_PTR_NULL(native_encode(&pmusim_encoder_wsm, ev, 1, bad, 1, &err));
    CU_ASSERT_EQUAL(err ? err->code : 0, PFM_ERR_INVAL);
    g_clear_error(&err);
    const pmusim_encode_opt_t badn[] = { { "thread", "x" } };
    CU_ASSERT_PTR_NULL(native_encode(&pmusim_encoder_wsm, ev, 1, badn, 1, &err));
    CU_ASSERT_EQUAL(err ? err->code : 0, PFM_ERR_INVAL);
    g_clear_error(&err);
    CU_ASSERT_PTR_NOT_NULL(pmusim_encoder_wsm.option_help);
    CU_ASSERT_PTR_NOT_NULL(pmusim_encoder_wsm.option_help[0]);
}

static char *capture(gboolean (*fn)(const pmusim_encoder_pmu_t *, FILE *, const char *, GError **),
                     const pmusim_encoder_pmu_t *p, const char *arg, GError **err, gboolean *ok)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *fp = open_memstream(&buf, &len);
    *ok = fn(p, fp, arg, err);
    fclose(fp);
    return buf;
}

static gboolean do_explain(const pmusim_encoder_pmu_t *p, FILE *fp, const char *a, GError **e)
{
    return p->explain(a, PMUSIM_PLM0 | PMUSIM_PLM3, fp, e);
}
static gboolean do_show(const pmusim_encoder_pmu_t *p, FILE *fp, const char *a, GError **e)
{
    return p->show_event(a, fp, e);
}
static gboolean do_list(const pmusim_encoder_pmu_t *p, FILE *fp, const char *a, GError **e)
{
    (void)a;
    (void)e;
    p->list_events(fp);
    return TRUE;
}

static void test_native_tools(void)
{
    gboolean ok;
    GError *err = NULL;
    char *s = capture(do_explain, &pmusim_encoder_wsm,
                      "wsm::offcore_response_0:any_data:local_dram:u", &err, &ok);
    CU_ASSERT(ok);
    CU_ASSERT_PTR_NOT_NULL(strstr(s, "Codes          : 0x5101b7 0x2033"));
    CU_ASSERT_PTR_NOT_NULL(strstr(s, "cpu/event=0xb7,umask=0x1,offcore_rsp=0x2033/u"));
    CU_ASSERT_PTR_NOT_NULL(strstr(s, "msr 0x1a6 0x2033"));
    CU_ASSERT_PTR_NOT_NULL(strstr(s, "msr 0x186 0x5101b7"));
    free(s);
    s = capture(do_show, &pmusim_encoder_wsm_dp, "OFFCORE_RESPONSE_0", &err, &ok);
    CU_ASSERT(ok);
    CU_ASSERT_PTR_NOT_NULL(strstr(s, "[OTHER_LLC_MISS]"));
    CU_ASSERT_PTR_NULL(strstr(s, "[REMOTE_CACHE_FWD]")); /* wsm only */
    CU_ASSERT_PTR_NOT_NULL(strstr(s, "[default]"));
    free(s);
    /* Intel's restriction shows where it is narrower than the table's mask:
     * on the load-latency umask, not on LOADS, not on L1D (table mask 0x3) */
    s = capture(do_show, &pmusim_encoder_wsm, "MEM_INST_RETIRED", &err, &ok);
    CU_ASSERT(ok);
    CU_ASSERT_PTR_NOT_NULL(strstr(s, "[ldlat] [counts on PMC3 only, Intel's data] Loads slower"));
    CU_ASSERT_EQUAL(s ? g_strstr_len(s, -1, "only, Intel's data") == g_strrstr(s, "only, Intel's data")
                      : 0, TRUE);
    free(s);
    s = capture(do_show, &pmusim_encoder_wsm, "L1D", &err, &ok);
    CU_ASSERT(ok);
    CU_ASSERT_PTR_NULL(strstr(s, "Intel's data"));
    free(s);
    s = capture(do_show, &pmusim_encoder_knm, "knm::nosuch", &err, &ok);
    CU_ASSERT(!ok);
    CU_ASSERT_EQUAL(err ? err->code : 0, PFM_ERR_NOTFOUND);
    g_clear_error(&err);
    free(s);
    s = capture(do_list, &pmusim_encoder_knm, NULL, &err, &ok);
    int lines = 0;
    for (const char *c = s; *c; c++)
        lines += *c == '\n';
    CU_ASSERT_EQUAL(lines, 31);
    free(s);
    CU_ASSERT_EQUAL(pmusim_encoder_wsm.event_count(), 92);
    CU_ASSERT_EQUAL(pmusim_encoder_knm.event_count(), 31);
    const char *name;
    uint32_t code, umask;
    CU_ASSERT(pmusim_encoder_wsm.event_code(3, &name, &code, &umask));
    CU_ASSERT_STRING_EQUAL(name, "UNHALTED_REFERENCE_CYCLES");
    CU_ASSERT_EQUAL(code, 0x00);
    CU_ASSERT_EQUAL(umask, 0x03);
    CU_ASSERT(!pmusim_encoder_wsm.event_code(92, &name, &code, &umask));
    CU_ASSERT_STRING_EQUAL(pmusim_encoder_wsm_dp.name, "wsm_dp");
}

static void register_suites(void)
{
    CU_pSuite s = CU_add_suite("pfm4_cases", cases_init, NULL);
    if (register_case_file(s, CASES_FILE) < 100)
        fprintf(stderr, "%s: too few cases\n", CASES_FILE);
    s = CU_add_suite("pfm4_api", NULL, NULL);
    PMUSIM_ADD_TEST(s, test_version_strerror);
    PMUSIM_ADD_TEST(s, test_not_initialized);
    PMUSIM_ADD_TEST(s, test_inactive_pmus);
    PMUSIM_ADD_TEST(s, test_forced_pmu);
    PMUSIM_ADD_TEST(s, test_events_and_attrs);
    PMUSIM_ADD_TEST(s, test_encoding_arguments);
    PMUSIM_ADD_TEST(s, test_perf_event);
    s = CU_add_suite("native", NULL, NULL);
    PMUSIM_ADD_TEST(s, test_native_basic);
    PMUSIM_ADD_TEST(s, test_native_constraints);
    PMUSIM_ADD_TEST(s, test_native_restrictions);
    PMUSIM_ADD_TEST(s, test_native_extra_regs);
    PMUSIM_ADD_TEST(s, test_native_options);
    PMUSIM_ADD_TEST(s, test_native_tools);
}
