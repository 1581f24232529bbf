/* The perf and perf_raw PMUs of the libpfm-4 face, used the way libpfm-4's
 * examples (check_events, showevtinfo) and PAPI use the API: iterate the PMUs
 * with pfm_get_pmu_info(), their events with pfm_get_event_next(), read
 * event and attribute information, encode with pfm_get_os_event_encoding()
 * for PFM_OS_NONE and PFM_OS_PERF_EVENT(_EXT).  Every expected value was
 * worked out by hand from the kernel ABI (PERF_TYPE_*, config = cache id |
 * op << 8 | result << 16) and agrees with libpfm-4 4.13 (docs/compat-x86.md). */
#include "cu_main.h"

#include <perfmon/pfmlib.h>
#include <perfmon/pfmlib_perf_event.h>

#include <stdlib.h>
#include <string.h>

static void reinit(const char *force, const char *inactive, const char *disabled)
{
    pfm_terminate();
    if (force)
        setenv("LIBPFM_FORCE_PMU", force, 1);
    else
        unsetenv("LIBPFM_FORCE_PMU");
    if (inactive)
        setenv("LIBPFM_ENCODE_INACTIVE", inactive, 1);
    else
        unsetenv("LIBPFM_ENCODE_INACTIVE");
    if (disabled)
        setenv("LIBPFM_DISABLED_PMUS", disabled, 1);
    else
        unsetenv("LIBPFM_DISABLED_PMUS");
    CU_ASSERT_EQUAL_FATAL(pfm_initialize(), PFM_SUCCESS);
}

/* check_events / showevtinfo: every PMU the library knows */
static void test_pmu_iteration(void)
{
    reinit(NULL, NULL, NULL);
    char names[256] = "";
    int present = 0, total_events = 0;
    pfm_pmu_t i;
    pfm_for_all_pmus(i) {
        pfm_pmu_info_t pi;
        memset(&pi, 0, sizeof pi);
        pi.size = sizeof pi;
        if (pfm_get_pmu_info(i, &pi) != PFM_SUCCESS)
            continue;
        strcat(names, pi.name);
        strcat(names, pi.is_present ? "+ " : "- ");
        present += pi.is_present;
        total_events += pi.nevents;
    }
    /* by identifier: perf 51, wsm 52, wsm_dp 53, perf_raw 114, knl 203, knm 371 */
    CU_ASSERT_STRING_EQUAL(names, "perf+ wsm- wsm_dp- perf_raw+ knl- knm- ");
    CU_ASSERT_EQUAL(present, 2);
    CU_ASSERT_EQUAL(total_events, 82 + 92 + 92 + 1 + 31 + 31);

    pfm_pmu_info_t pi;
    memset(&pi, 0, sizeof pi);
    pi.size = sizeof pi;
    CU_ASSERT_EQUAL_FATAL(pfm_get_pmu_info(PFM_PMU_PERF_EVENT, &pi), PFM_SUCCESS);
    CU_ASSERT_STRING_EQUAL(pi.name, "perf");
    CU_ASSERT_STRING_EQUAL(pi.desc, "Linux perf_event generic events (hardware, software, cache)");
    CU_ASSERT_EQUAL(pi.pmu, PFM_PMU_PERF_EVENT);
    CU_ASSERT_EQUAL(pi.type, PFM_PMU_TYPE_OS_GENERIC);
    CU_ASSERT_EQUAL(pi.nevents, 82);
    CU_ASSERT_EQUAL(pi.first_event, 0x6600000); /* 51 << 21 */
    CU_ASSERT_EQUAL(pi.max_encoding, 1);
    CU_ASSERT_EQUAL(pi.num_cntrs, 0);
    CU_ASSERT_EQUAL(pi.num_fixed_cntrs, 0);
    CU_ASSERT_EQUAL(pi.is_present, 1);
    CU_ASSERT_EQUAL(pi.is_dfl, 0);
    CU_ASSERT_EQUAL(pi.size, sizeof pi);
    CU_ASSERT_EQUAL_FATAL(pfm_get_pmu_info(PFM_PMU_PERF_EVENT_RAW, &pi), PFM_SUCCESS);
    CU_ASSERT_STRING_EQUAL(pi.name, "perf_raw");
    CU_ASSERT_EQUAL(pi.type, PFM_PMU_TYPE_OS_GENERIC);
    CU_ASSERT_EQUAL(pi.nevents, 1);
    CU_ASSERT_EQUAL(pi.first_event, 0xe400000); /* 114 << 21 */
    CU_ASSERT_EQUAL(pi.is_present, 1);
    /* libpfm-4 4.13's PFM_PMU_MAX */
    CU_ASSERT_EQUAL(PFM_PMU_MAX, 517);
    CU_ASSERT_EQUAL(pfm_get_pmu_info((pfm_pmu_t)516, &pi), PFM_ERR_NOTSUPP);
    CU_ASSERT_EQUAL(pfm_get_pmu_info((pfm_pmu_t)517, &pi), PFM_ERR_INVAL);
}

/* showevtinfo: every event of perf with its attributes, for each OS layer */
static void test_event_iteration(void)
{
    reinit(NULL, NULL, NULL);
    pfm_pmu_info_t pi;
    memset(&pi, 0, sizeof pi);
    pi.size = sizeof pi;
    CU_ASSERT_EQUAL_FATAL(pfm_get_pmu_info(PFM_PMU_PERF_EVENT, &pi), PFM_SUCCESS);
    int n = 0, nattrs[3] = { 0, 0, 0 }, aliases = 0, precise = 0, last = -1;
    for (int idx = pi.first_event; idx != -1; idx = pfm_get_event_next(idx)) {
        for (int os = PFM_OS_NONE; os <= PFM_OS_PERF_EVENT_EXT; os++) {
            pfm_event_info_t ei;
            memset(&ei, 0, sizeof ei);
            ei.size = sizeof ei;
            CU_ASSERT_EQUAL_FATAL(pfm_get_event_info(idx, (pfm_os_t)os, &ei), PFM_SUCCESS);
            CU_ASSERT_EQUAL(ei.idx, idx);
            CU_ASSERT_EQUAL(ei.pmu, PFM_PMU_PERF_EVENT);
            CU_ASSERT_EQUAL(ei.dtype, PFM_DTYPE_UINT64);
            nattrs[os] += ei.nattrs;
            for (int a = 0; a < ei.nattrs; a++) {
                pfm_event_attr_info_t ai;
                memset(&ai, 0, sizeof ai);
                ai.size = sizeof ai;
                CU_ASSERT_EQUAL(pfm_get_event_attr_info(idx, a, (pfm_os_t)os, &ai), PFM_SUCCESS);
                CU_ASSERT_EQUAL(ai.idx, a);
            }
            if (os == PFM_OS_NONE) {
                aliases += ei.equiv != NULL;
                precise += ei.is_precise;
            }
        }
        n++;
        last = idx;
    }
    CU_ASSERT_EQUAL(n, 82);
    CU_ASSERT_EQUAL(last, 0x6600000 + 81);
    /* PFM_OS_NONE: unit masks of the 7 cache events: 5 + 4 + 5 + 5 + 3 + 3 + 5 */
    CU_ASSERT_EQUAL(nattrs[PFM_OS_NONE], 30);
    /* + u k h mg mh (24 hardware, 39 cache events), u k mg mh (19 software) */
    CU_ASSERT_EQUAL(nattrs[PFM_OS_PERF_EVENT], 30 + (24 + 39) * 5 + 19 * 4);
    /* + u k h period freq precise excl mg mh cpu pinned; software: no h, precise */
    CU_ASSERT_EQUAL(nattrs[PFM_OS_PERF_EVENT_EXT], 30 + (24 + 39) * 11 + 19 * 9);
    CU_ASSERT_EQUAL(aliases, 82 - 10 - 8 - 7);
    CU_ASSERT_EQUAL(precise, 1);
    CU_ASSERT_EQUAL(pfm_get_event_next(0x6600000 + 81), -1);
    pfm_event_info_t ei;
    memset(&ei, 0, sizeof ei);
    ei.size = sizeof ei;
    CU_ASSERT_EQUAL(pfm_get_event_info(0x6600000 + 82, PFM_OS_NONE, &ei), PFM_ERR_INVAL);

    /* the first event, an alias and a cache alias */
    CU_ASSERT_EQUAL_FATAL(pfm_get_event_info(0x6600000, PFM_OS_NONE, &ei), PFM_SUCCESS);
    CU_ASSERT_STRING_EQUAL(ei.name, "PERF_COUNT_HW_CPU_CYCLES");
    CU_ASSERT_PTR_NULL(ei.equiv);
    CU_ASSERT_EQUAL(ei.code, 0);
    CU_ASSERT_EQUAL(ei.is_precise, 1);
    CU_ASSERT_EQUAL(ei.support_hw_smpl, 1);
    CU_ASSERT_EQUAL_FATAL(pfm_get_event_info(0x6600001, PFM_OS_PERF_EVENT, &ei), PFM_SUCCESS);
    CU_ASSERT_STRING_EQUAL(ei.name, "CYCLES");
    CU_ASSERT_STRING_EQUAL(ei.equiv, "PERF_COUNT_HW_CPU_CYCLES");
    CU_ASSERT_EQUAL(ei.nattrs, 5);
    CU_ASSERT_EQUAL(ei.is_precise, 0);
    int idx = pfm_find_event("perf::L1-DCACHE-STORE-MISSES");
    CU_ASSERT_EQUAL(idx, 0x6600000 + 43); /* the alias's target, PERF_COUNT_HW_CACHE_L1D */
    CU_ASSERT_EQUAL_FATAL(pfm_get_event_info(0x6600000 + 47, PFM_OS_NONE, &ei), PFM_SUCCESS);
    CU_ASSERT_STRING_EQUAL(ei.name, "L1-DCACHE-STORE-MISSES");
    CU_ASSERT_STRING_EQUAL(ei.equiv, "PERF_COUNT_HW_CACHE_L1D:WRITE:MISS");
    CU_ASSERT_EQUAL(ei.nattrs, 0);

    /* perf_raw's one pseudo event */
    CU_ASSERT_EQUAL_FATAL(pfm_get_event_info(0xe400000, PFM_OS_PERF_EVENT_EXT, &ei), PFM_SUCCESS);
    CU_ASSERT_STRING_EQUAL(ei.name, "r0000");
    CU_ASSERT_EQUAL(ei.pmu, PFM_PMU_PERF_EVENT_RAW);
    CU_ASSERT_EQUAL(ei.nattrs, 12); /* the 11 above and hw_smpl */
    CU_ASSERT_EQUAL(pfm_get_event_next(0xe400000), -1);
    pfm_event_attr_info_t ai;
    memset(&ai, 0, sizeof ai);
    ai.size = sizeof ai;
    CU_ASSERT_EQUAL_FATAL(pfm_get_event_attr_info(0xe400000, 11, PFM_OS_PERF_EVENT_EXT, &ai),
                          PFM_SUCCESS);
    CU_ASSERT_STRING_EQUAL(ai.name, "hw_smpl");
    CU_ASSERT_EQUAL(ai.type, PFM_ATTR_MOD_BOOL);
    CU_ASSERT_EQUAL(ai.ctrl, PFM_ATTR_CTRL_PERF_EVENT);
    CU_ASSERT_EQUAL(ai.code, 11);
    CU_ASSERT_EQUAL(pfm_get_event_attr_info(0xe400000, 0, PFM_OS_NONE, &ai), PFM_ERR_INVAL);
}

/* the attributes of a generic cache event, in libpfm-4's order */
static void test_cache_attrs(void)
{
    static const struct {
        const char *name;
        uint64_t code;
        pfm_attr_t type;
        pfm_attr_ctrl_t ctrl;
    } want[] = {
        { "READ", 0x0, PFM_ATTR_UMASK, PFM_ATTR_CTRL_PMU },
        { "WRITE", 0x100, PFM_ATTR_UMASK, PFM_ATTR_CTRL_PMU },
        { "PREFETCH", 0x200, PFM_ATTR_UMASK, PFM_ATTR_CTRL_PMU },
        { "ACCESS", 0x0, PFM_ATTR_UMASK, PFM_ATTR_CTRL_PMU },
        { "MISS", 0x10000, PFM_ATTR_UMASK, PFM_ATTR_CTRL_PMU },
        { "u", 0, PFM_ATTR_MOD_BOOL, PFM_ATTR_CTRL_PERF_EVENT },
        { "k", 1, PFM_ATTR_MOD_BOOL, PFM_ATTR_CTRL_PERF_EVENT },
        { "h", 2, PFM_ATTR_MOD_BOOL, PFM_ATTR_CTRL_PERF_EVENT },
        { "period", 3, PFM_ATTR_MOD_INTEGER, PFM_ATTR_CTRL_PERF_EVENT },
        { "freq", 4, PFM_ATTR_MOD_INTEGER, PFM_ATTR_CTRL_PERF_EVENT },
        { "precise", 5, PFM_ATTR_MOD_INTEGER, PFM_ATTR_CTRL_PERF_EVENT },
        { "excl", 6, PFM_ATTR_MOD_BOOL, PFM_ATTR_CTRL_PERF_EVENT },
        { "mg", 7, PFM_ATTR_MOD_BOOL, PFM_ATTR_CTRL_PERF_EVENT },
        { "mh", 8, PFM_ATTR_MOD_BOOL, PFM_ATTR_CTRL_PERF_EVENT },
        { "cpu", 9, PFM_ATTR_MOD_INTEGER, PFM_ATTR_CTRL_PERF_EVENT },
        { "pinned", 10, PFM_ATTR_MOD_BOOL, PFM_ATTR_CTRL_PERF_EVENT },
    };
    reinit(NULL, NULL, NULL);
    int idx = pfm_find_event("perf::PERF_COUNT_HW_CACHE_L1D");
    CU_ASSERT_EQUAL_FATAL(idx, 0x6600000 + 43);
    pfm_event_info_t ei;
    memset(&ei, 0, sizeof ei);
    ei.size = sizeof ei;
    CU_ASSERT_EQUAL_FATAL(pfm_get_event_info(idx, PFM_OS_PERF_EVENT_EXT, &ei), PFM_SUCCESS);
    CU_ASSERT_EQUAL_FATAL(ei.nattrs, 16);
    for (int a = 0; a < 16; a++) {
        pfm_event_attr_info_t ai;
        memset(&ai, 0, sizeof ai);
        ai.size = sizeof ai;
        CU_ASSERT_EQUAL_FATAL(pfm_get_event_attr_info(idx, a, PFM_OS_PERF_EVENT_EXT, &ai),
                              PFM_SUCCESS);
        CU_ASSERT_STRING_EQUAL(ai.name, want[a].name);
        CU_ASSERT_EQUAL(ai.code, want[a].code);
        CU_ASSERT_EQUAL(ai.type, want[a].type);
        CU_ASSERT_EQUAL(ai.ctrl, want[a].ctrl);
        CU_ASSERT_EQUAL(ai.is_dfl, 0); /* libpfm-4 says 0 even for READ and MISS */
        CU_ASSERT_PTR_NOT_NULL(ai.desc);
    }
    pfm_event_attr_info_t ai;
    memset(&ai, 0, sizeof ai);
    ai.size = sizeof ai;
    CU_ASSERT_EQUAL(pfm_get_event_attr_info(idx, 16, PFM_OS_PERF_EVENT_EXT, &ai), PFM_ERR_INVAL);
    CU_ASSERT_EQUAL(pfm_get_event_attr_info(idx, 5, PFM_OS_NONE, &ai), PFM_ERR_INVAL);
    /* the instruction TLB only reads */
    idx = pfm_find_event("perf::PERF_COUNT_HW_CACHE_ITLB");
    CU_ASSERT_EQUAL_FATAL(pfm_get_event_info(idx, PFM_OS_NONE, &ei), PFM_SUCCESS);
    CU_ASSERT_EQUAL(ei.nattrs, 3);
    CU_ASSERT_EQUAL_FATAL(pfm_get_event_attr_info(idx, 1, PFM_OS_NONE, &ai), PFM_SUCCESS);
    CU_ASSERT_STRING_EQUAL(ai.name, "ACCESS");
}

/* PFM_OS_NONE: one code, the perf_event config */
static void check_raw(const char *s, int ret, uint64_t code, const char *fstr, int idx)
{
    pfm_pmu_encode_arg_t arg;
    char *f = NULL;
    memset(&arg, 0, sizeof arg);
    arg.size = sizeof arg;
    arg.fstr = &f;
    int r = pfm_get_os_event_encoding(s, PFM_PLM0 | PFM_PLM3, PFM_OS_NONE, &arg);
    if (r != ret)
        fprintf(stderr, "%s: %d, want %d\n", s, r, ret);
    CU_ASSERT_EQUAL(r, ret);
    if (r == PFM_SUCCESS && ret == PFM_SUCCESS) {
        CU_ASSERT_EQUAL(arg.count, 1);
        CU_ASSERT_EQUAL(arg.codes[0], code);
        CU_ASSERT_EQUAL(arg.idx, idx);
        CU_ASSERT_PTR_NOT_NULL_FATAL(f);
        if (strcmp(f, fstr))
            fprintf(stderr, "%s: %s, want %s\n", s, f, fstr);
        CU_ASSERT_STRING_EQUAL(f, fstr);
    }
    free(arg.codes);
    free(f);
}

static void test_encode_none(void)
{
    reinit(NULL, NULL, NULL);
    check_raw("perf::CYCLES", 0, 0, "perf::PERF_COUNT_HW_CPU_CYCLES", 0x6600000);
    check_raw("cycles", 0, 0, "perf::PERF_COUNT_HW_CPU_CYCLES", 0x6600000);
    check_raw("PERF::instructions", 0, 1, "perf::PERF_COUNT_HW_INSTRUCTIONS", 0x6600003);
    check_raw("perf::BRANCHES", 0, 4, "perf::PERF_COUNT_HW_BRANCH_INSTRUCTIONS", 0x6600009);
    check_raw("perf::REF-CYCLES", 0, 9, "perf::PERF_COUNT_HW_REF_CPU_CYCLES", 0x6600016);
    check_raw("perf::STALLED-CYCLES-BACKEND", 0, 8, "perf::PERF_COUNT_HW_STALLED_CYCLES_BACKEND",
              0x6600013);
    check_raw("perf::CS", 0, 3, "perf::PERF_COUNT_SW_CONTEXT_SWITCHES", 0x660001f);
    check_raw("perf::MAJOR-FAULTS", 0, 6, "perf::PERF_COUNT_SW_PAGE_FAULTS_MAJ", 0x6600027);
    check_raw("perf::CGROUP-SWITCHES", 0, 11, "perf::PERF_COUNT_SW_CGROUP_SWITCHES", 0x6600029);
    /* cache: id | op << 8 | result << 16, READ and MISS by default */
    check_raw("perf::PERF_COUNT_HW_CACHE_L1D", 0, 0x10000, "perf::PERF_COUNT_HW_CACHE_L1D:READ:MISS",
              0x660002b);
    check_raw("perf::PERF_COUNT_HW_CACHE_DTLB:WRITE", 0, 0x10103,
              "perf::PERF_COUNT_HW_CACHE_DTLB:WRITE:MISS", 0x660003e);
    check_raw("perf::PERF_COUNT_HW_CACHE_NODE:ACCESS:PREFETCH", 0, 0x206,
              "perf::PERF_COUNT_HW_CACHE_NODE:PREFETCH:ACCESS", 0x660004b);
    check_raw("perf::LLC-STORE-MISSES", 0, 0x10102, "perf::PERF_COUNT_HW_CACHE_LL:WRITE:MISS",
              0x6600037);
    check_raw("perf::BRANCH-LOADS", 0, 0x5, "perf::PERF_COUNT_HW_CACHE_BPU:READ:ACCESS", 0x6600048);
    check_raw("perf::L1-ICACHE-PREFETCH-MISSES", 0, 0x10201,
              "perf::PERF_COUNT_HW_CACHE_L1I:PREFETCH:MISS", 0x6600032);
    check_raw("perf::PERF_COUNT_HW_CACHE_L1D:READ:READ:MISS", 0, 0x10000,
              "perf::PERF_COUNT_HW_CACHE_L1D:READ:MISS", 0x660002b);
    /* perf_raw: the number, printed back in lower case without leading zeroes */
    check_raw("perf_raw::r1a2B", 0, 0x1a2b, "perf_raw::r1a2b", 0xe400000);
    check_raw("r0000c0", 0, 0xc0, "perf_raw::rc0", 0xe400000);
    check_raw("perf_raw::rfffffffffffffffe", 0, 0xfffffffffffffffeull,
              "perf_raw::rfffffffffffffffe", 0xe400000);
    /* errors */
    check_raw("perf::NOSUCH", PFM_ERR_NOTFOUND, 0, NULL, 0);
    check_raw("perf::", PFM_ERR_NOTFOUND, 0, NULL, 0);
    check_raw("perf::ALIGNMENT-FAULTS", PFM_ERR_NOTFOUND, 0, NULL, 0); /* not in 4.13 */
    check_raw("perf::CYCLES:u", PFM_ERR_ATTR, 0, NULL, 0); /* no u/k without perf_event */
    check_raw("perf::CYCLES:READ", PFM_ERR_ATTR, 0, NULL, 0);
    check_raw("perf::CYCLES:", PFM_ERR_ATTR, 0, NULL, 0);
    check_raw("perf::PERF_COUNT_HW_CACHE_ITLB:WRITE", PFM_ERR_ATTR, 0, NULL, 0);
    check_raw("perf::PERF_COUNT_HW_CACHE_L1D:READ:WRITE", PFM_ERR_UMASK, 0, NULL, 0);
    check_raw("perf::L1-DCACHE-LOADS:MISS", PFM_ERR_UMASK, 0, NULL, 0);
    check_raw("perf::CYCLES u", PFM_ERR_INVAL, 0, NULL, 0);
    check_raw("perf_raw::R12", PFM_ERR_NOTFOUND, 0, NULL, 0);
    check_raw("perf_raw::r12g", PFM_ERR_NOTFOUND, 0, NULL, 0);
    check_raw("perf_raw::rffffffffffffffff", PFM_ERR_NOTFOUND, 0, NULL, 0);
    check_raw("perf_raw::r10000000000000000", PFM_ERR_NOTFOUND, 0, NULL, 0);
    check_raw("perf_raw::r12:u", PFM_ERR_ATTR, 0, NULL, 0);

    /* pfm_get_event_encoding() on the same path, caller's array too small */
    uint64_t one = 0, *codes = &one;
    int count = 0;
    CU_ASSERT_EQUAL(pfm_get_event_encoding("perf::CYCLES", 9, NULL, NULL, &codes, &count),
                    PFM_ERR_INVAL);
    count = 1;
    one = 7;
    CU_ASSERT_EQUAL(pfm_get_event_encoding("perf::INSTRUCTIONS", 9, NULL, NULL, &codes, &count),
                    PFM_SUCCESS);
    CU_ASSERT_EQUAL(one, 1);
    CU_ASSERT_EQUAL(count, 1);
}

typedef struct {
    const char *str;
    pfm_os_t os;
    int ret;
    uint32_t type;
    uint64_t config;
    unsigned xu, xk, xh, xg, xhost, precise, freq, pinned, excl;
    uint64_t period;
    int cpu;
    const char *fstr;
} perf_case_t;

#define ERRC(s, os, r) { s, os, r, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, NULL }

static void check_perf(const perf_case_t *c)
{
    struct perf_event_attr attr;
    pfm_perf_encode_arg_t arg;
    char *f = NULL;
    memset(&attr, 0, sizeof attr);
    memset(&arg, 0, sizeof arg);
    attr.size = sizeof attr;
    arg.size = sizeof arg;
    arg.attr = &attr;
    arg.fstr = &f;
    int r = pfm_get_os_event_encoding(c->str, PFM_PLM0 | PFM_PLM3, c->os, &arg);
    if (r != c->ret)
        fprintf(stderr, "%s (os %d): %d, want %d\n", c->str, (int)c->os, r, c->ret);
    CU_ASSERT_EQUAL(r, c->ret);
    if (r == PFM_SUCCESS && c->ret == PFM_SUCCESS) {
        CU_ASSERT_EQUAL(attr.type, c->type);
        CU_ASSERT_EQUAL(attr.config, c->config);
        CU_ASSERT_EQUAL(attr.config1, 0);
        CU_ASSERT_EQUAL(attr.exclude_user, c->xu);
        CU_ASSERT_EQUAL(attr.exclude_kernel, c->xk);
        CU_ASSERT_EQUAL(attr.exclude_hv, c->xh);
        CU_ASSERT_EQUAL(attr.exclude_guest, c->xg);
        CU_ASSERT_EQUAL(attr.exclude_host, c->xhost);
        CU_ASSERT_EQUAL(attr.precise_ip, c->precise);
        CU_ASSERT_EQUAL(attr.freq, c->freq);
        CU_ASSERT_EQUAL(attr.pinned, c->pinned);
        CU_ASSERT_EQUAL(attr.exclusive, c->excl);
        CU_ASSERT_EQUAL(attr.sample_period, c->period);
        CU_ASSERT_EQUAL(attr.size, sizeof attr);
        CU_ASSERT_EQUAL(arg.cpu, c->cpu);
        CU_ASSERT_PTR_NOT_NULL_FATAL(f);
        if (strcmp(f, c->fstr))
            fprintf(stderr, "%s: %s\n   want %s\n", c->str, f, c->fstr);
        CU_ASSERT_STRING_EQUAL(f, c->fstr);
    }
    free(f);
}

static void test_encode_perf(void)
{
    static const perf_case_t cases[] = {
        { "perf::CYCLES", PFM_OS_PERF_EVENT, 0, PERF_TYPE_HARDWARE, 0, 0, 0, 1, 1, 0, 0, 0, 0, 0, 0, -1,
          "perf::PERF_COUNT_HW_CPU_CYCLES:u=1:k=1:h=0:mg=0:mh=1" },
        { "perf::CYCLES", PFM_OS_PERF_EVENT_EXT, 0, PERF_TYPE_HARDWARE, 0, 0, 0, 1, 1, 0, 0, 0, 0, 0, 0, -1,
          "perf::PERF_COUNT_HW_CPU_CYCLES:u=1:k=1:h=0:precise=0:excl=0:mg=0:mh=1" },
        /* u alone: kernel excluded; h alone: both excluded, hypervisor counted */
        { "perf::CYCLES:u", PFM_OS_PERF_EVENT, 0, 0, 0, 0, 1, 1, 1, 0, 0, 0, 0, 0, 0, -1,
          "perf::PERF_COUNT_HW_CPU_CYCLES:u=1:k=0:h=0:mg=0:mh=1" },
        { "perf::CYCLES:h", PFM_OS_PERF_EVENT, 0, 0, 0, 1, 1, 0, 1, 0, 0, 0, 0, 0, 0, -1,
          "perf::PERF_COUNT_HW_CPU_CYCLES:u=0:k=0:h=1:mg=0:mh=1" },
        { "perf::CYCLES:mg", PFM_OS_PERF_EVENT, 0, 0, 0, 0, 0, 1, 0, 1, 0, 0, 0, 0, 0, -1,
          "perf::PERF_COUNT_HW_CPU_CYCLES:u=1:k=1:h=0:mg=1:mh=0" },
        /* sampling controls are PFM_OS_PERF_EVENT_EXT only */
        ERRC("perf::CYCLES:precise=2", PFM_OS_PERF_EVENT, PFM_ERR_ATTR),
        { "perf::CYCLES:precise=2", PFM_OS_PERF_EVENT_EXT, 0, 0, 0, 0, 0, 1, 1, 0, 2, 0, 0, 0, 0, -1,
          "perf::PERF_COUNT_HW_CPU_CYCLES:u=1:k=1:h=0:precise=2:excl=0:mg=0:mh=1" },
        ERRC("perf::CYCLES:precise=4", PFM_OS_PERF_EVENT_EXT, PFM_ERR_ATTR_VAL),
        /* period and freq share a field: the canonical string shows both */
        { "perf::INSTRUCTIONS:u:period=1000", PFM_OS_PERF_EVENT_EXT, 0, 0, 1, 0, 1, 1, 1, 0, 0, 0, 0, 0,
          1000, -1,
          "perf::PERF_COUNT_HW_INSTRUCTIONS:u=1:k=0:h=0:period=1000:freq=1000:precise=0:excl=0:mg=0:mh=1" },
        { "perf::CYCLES:freq=100", PFM_OS_PERF_EVENT_EXT, 0, 0, 0, 0, 0, 1, 1, 0, 0, 1, 0, 0, 100, -1,
          "perf::PERF_COUNT_HW_CPU_CYCLES:u=1:k=1:h=0:period=100:freq=100:precise=0:excl=0:mg=0:mh=1" },
        ERRC("perf::CYCLES:period=10:freq=10", PFM_OS_PERF_EVENT_EXT, PFM_ERR_ATTR_VAL),
        ERRC("perf::CYCLES:period=0", PFM_OS_PERF_EVENT_EXT, PFM_ERR_ATTR_VAL),
        { "perf::CYCLES:cpu=3:pinned:excl", PFM_OS_PERF_EVENT_EXT, 0, 0, 0, 0, 0, 1, 1, 0, 0, 0, 1, 1, 0,
          3, "perf::PERF_COUNT_HW_CPU_CYCLES:u=1:k=1:h=0:precise=0:excl=1:mg=0:mh=1" },
        ERRC("perf::CYCLES:hw_smpl", PFM_OS_PERF_EVENT_EXT, PFM_ERR_ATTR),
        ERRC("perf::CYCLES:u=1:u=0", PFM_OS_PERF_EVENT, PFM_ERR_ATTR_SET),
        ERRC("perf::CYCLES:u=2", PFM_OS_PERF_EVENT, PFM_ERR_ATTR_VAL),
        /* software events: no h, no precise */
        { "perf::TASK-CLOCK", PFM_OS_PERF_EVENT_EXT, 0, PERF_TYPE_SOFTWARE, 1, 0, 0, 1, 1, 0, 0, 0, 0, 0, 0,
          -1, "perf::PERF_COUNT_SW_TASK_CLOCK:u=1:k=1:excl=0:mg=0:mh=1" },
        ERRC("perf::CPU-CLOCK:h", PFM_OS_PERF_EVENT, PFM_ERR_ATTR),
        ERRC("perf::PAGE-FAULTS:precise=1", PFM_OS_PERF_EVENT_EXT, PFM_ERR_ATTR),
        /* hardware cache */
        { "perf::DTLB-LOAD-MISSES:k", PFM_OS_PERF_EVENT, 0, PERF_TYPE_HW_CACHE, 0x10003, 1, 0, 1, 1, 0,
          0, 0, 0, 0, 0, -1, "perf::PERF_COUNT_HW_CACHE_DTLB:READ:MISS:u=0:k=1:h=0:mg=0:mh=1" },
        { "PERF_COUNT_HW_CACHE_NODE:write:access:u=0", PFM_OS_PERF_EVENT, 0, PERF_TYPE_HW_CACHE, 0x106, 1,
          1, 1, 1, 0, 0, 0, 0, 0, 0, -1,
          "perf::PERF_COUNT_HW_CACHE_NODE:WRITE:ACCESS:u=0:k=0:h=0:mg=0:mh=1" },
        /* perf_raw: libpfm-4 leaves the event out of the perf_event string */
        { "perf_raw::r1234:k", PFM_OS_PERF_EVENT_EXT, 0, PERF_TYPE_RAW, 0x1234, 1, 0, 1, 1, 0, 0, 0, 0,
          0, 0, -1, "perf_raw:::u=0:k=1:h=0:precise=0:excl=0:mg=0:mh=1:hw_smpl=0" },
        { "r1234:hw_smpl", PFM_OS_PERF_EVENT_EXT, 0, PERF_TYPE_RAW, 0x1234, 0, 0, 1, 1, 0, 1, 0, 0, 0, 0,
          -1, "perf_raw:::u=1:k=1:h=0:precise=1:excl=0:mg=0:mh=1:hw_smpl=1" },
        ERRC("perf_raw::r1234:hw_smpl", PFM_OS_PERF_EVENT, PFM_ERR_ATTR),
    };
    reinit(NULL, NULL, NULL);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        check_perf(&cases[i]);

    /* the older entry point: PFM_OS_PERF_EVENT_EXT into a perf_event_attr */
    struct perf_event_attr attr;
    memset(&attr, 0, sizeof attr);
    attr.size = sizeof attr;
    char *f = NULL;
    int idx = -1;
    CU_ASSERT_EQUAL(pfm_get_perf_event_encoding("perf::BRANCH-MISSES:k=0", PFM_PLM3, &attr, &f, &idx),
                    PFM_SUCCESS);
    CU_ASSERT_EQUAL(attr.type, PERF_TYPE_HARDWARE);
    CU_ASSERT_EQUAL(attr.config, 5);
    CU_ASSERT_EQUAL(attr.exclude_kernel, 1);
    CU_ASSERT_EQUAL(attr.exclude_user, 1);
    CU_ASSERT_EQUAL(idx, 0x660000c);
    CU_ASSERT_STRING_EQUAL(f, "perf::PERF_COUNT_HW_BRANCH_MISSES:u=0:k=0:h=0:precise=0:excl=0:mg=0:mh=1");
    free(f);
}

/* LIBPFM_FORCE_PMU, LIBPFM_ENCODE_INACTIVE and LIBPFM_DISABLED_PMUS */
static void test_activation(void)
{
    pfm_pmu_info_t pi;
    memset(&pi, 0, sizeof pi);
    pi.size = sizeof pi;
    /* perf comes after the x86 PMUs in libpfm-4's order: forcing wsm leaves
     * it uninitialized */
    reinit("wsm", NULL, NULL);
    CU_ASSERT_EQUAL(pfm_get_pmu_info(PFM_PMU_PERF_EVENT, &pi), PFM_ERR_NOTSUPP);
    CU_ASSERT_EQUAL(pfm_get_pmu_info(PFM_PMU_PERF_EVENT_RAW, &pi), PFM_ERR_NOTSUPP);
    CU_ASSERT_EQUAL(pfm_find_event("perf::CYCLES"), PFM_ERR_NOTFOUND);
    CU_ASSERT_EQUAL(pfm_find_event("CYCLES"), PFM_ERR_NOTFOUND);
    CU_ASSERT_EQUAL(pfm_find_event("INST_RETIRED:ANY_P"), (52 << 21) + 18);
    reinit("wsm", "1", NULL);
    CU_ASSERT_EQUAL(pfm_find_event("perf::CYCLES"), 0x6600000);
    CU_ASSERT_EQUAL(pfm_find_event("perf_raw::r12"), 0xe400000);
    CU_ASSERT_EQUAL(pfm_find_event("CYCLES"), PFM_ERR_NOTFOUND); /* no prefix: active PMUs only */
    /* forcing perf: the x86 PMUs are known but absent, perf_raw is not initialized */
    reinit("perf", NULL, NULL);
    CU_ASSERT_EQUAL(pfm_get_pmu_info(PFM_PMU_PERF_EVENT, &pi), PFM_SUCCESS);
    CU_ASSERT_EQUAL(pi.is_present, 1);
    CU_ASSERT_EQUAL(pfm_get_pmu_info(PFM_PMU_INTEL_WSM, &pi), PFM_SUCCESS);
    CU_ASSERT_EQUAL(pi.is_present, 0);
    CU_ASSERT_EQUAL(pfm_get_pmu_info(PFM_PMU_PERF_EVENT_RAW, &pi), PFM_ERR_NOTSUPP);
    CU_ASSERT_EQUAL(pfm_find_event("r12"), PFM_ERR_NOTFOUND);
    CU_ASSERT_EQUAL(pfm_get_event_first(), 0x6600000);
    reinit("perf_raw", NULL, NULL);
    CU_ASSERT_EQUAL(pfm_get_pmu_info(PFM_PMU_PERF_EVENT, &pi), PFM_SUCCESS);
    CU_ASSERT_EQUAL(pi.is_present, 0);
    CU_ASSERT_EQUAL(pfm_find_event("CYCLES"), PFM_ERR_NOTFOUND);
    CU_ASSERT_EQUAL(pfm_find_event("r12"), 0xe400000);
    /* disabled */
    reinit(NULL, NULL, "perf_raw");
    CU_ASSERT_EQUAL(pfm_get_pmu_info(PFM_PMU_PERF_EVENT_RAW, &pi), PFM_ERR_NOTSUPP);
    CU_ASSERT_EQUAL(pfm_get_pmu_info(PFM_PMU_PERF_EVENT, &pi), PFM_SUCCESS);
    CU_ASSERT_EQUAL(pfm_find_event("r12"), PFM_ERR_NOTFOUND);
    /* forcing knm: its events without prefix, perf's not at all */
    reinit("knm", NULL, NULL);
    CU_ASSERT_EQUAL(pfm_find_event("INSTRUCTION_RETIRED") >> 21, 371);
    CU_ASSERT_EQUAL(pfm_find_event("INSTRUCTIONS"), PFM_ERR_NOTFOUND);
    reinit(NULL, NULL, NULL);
    CU_ASSERT_EQUAL(pfm_find_event("INSTRUCTIONS"), 0x6600003);
    CU_ASSERT_EQUAL(pfm_get_event_first(), 0x6600000);
    CU_ASSERT_EQUAL(pfm_pmu_validate(PFM_PMU_PERF_EVENT, stderr), PFM_SUCCESS);
    CU_ASSERT_EQUAL(pfm_pmu_validate(PFM_PMU_PERF_EVENT_RAW, stderr), PFM_SUCCESS);
    pfm_terminate();
    CU_ASSERT_EQUAL(pfm_find_event("perf::CYCLES"), PFM_ERR_NOINIT);
    CU_ASSERT_EQUAL(pfm_get_pmu_info(PFM_PMU_PERF_EVENT, &pi), PFM_ERR_NOINIT);
}

static void register_suites(void)
{
    CU_pSuite s = CU_add_suite("pfm4_perf", NULL, NULL);
    PMUSIM_ADD_TEST(s, test_pmu_iteration);
    PMUSIM_ADD_TEST(s, test_event_iteration);
    PMUSIM_ADD_TEST(s, test_cache_attrs);
    PMUSIM_ADD_TEST(s, test_encode_none);
    PMUSIM_ADD_TEST(s, test_encode_perf);
    PMUSIM_ADD_TEST(s, test_activation);
}
