/* IA-64 PMU descriptors, event lookup and the libpfm-3 error texts. */
#include "ia64_priv.h"

#include <ctype.h>
#include <string.h>

const ia64_pmu_t ia64_pmu_ita2 = {
    .model = IA64_MODEL_ITA2,
    .pmu_type = PFMLIB_ITANIUM2_PMU,
    .pfm_name = "itanium2",
    .events = ia64_ita2_events,
    .by_name = ia64_ita2_by_name,
    .num_counters = PMU_ITA2_NUM_COUNTERS,
    .num_pmcs = PMU_ITA2_NUM_PMCS,
    .num_pmds = PMU_ITA2_NUM_PMDS,
};

const ia64_pmu_t ia64_pmu_mont = {
    .model = IA64_MODEL_MONT,
    .pmu_type = PFMLIB_MONTECITO_PMU,
    .pfm_name = "dual-core Itanium 2",
    .events = ia64_mont_events,
    .by_name = ia64_mont_by_name,
    .num_counters = PMU_MONT_NUM_COUNTERS,
    .num_pmcs = PMU_MONT_NUM_PMCS,
    .num_pmds = PMU_MONT_NUM_PMDS,
};

size_t ia64_nevents(const ia64_pmu_t *pmu)
{
    /* the counts live in the generated file; a constant initializer above
     * cannot read them */
    return pmu->model == IA64_MODEL_ITA2 ? ia64_ita2_nevents : ia64_mont_nevents;
}

/* Compare the first `len` bytes of `key` (any case) with table name `name`. */
static int name_cmp(const char *key, size_t len, const char *name)
{
    for (size_t i = 0; i < len; i++) {
        int a = toupper((unsigned char)key[i]), b = (unsigned char)name[i];
        if (b == 0)
            return 1;
        if (a != b)
            return a - b;
    }
    return name[len] == 0 ? 0 : -1;
}

int ia64_find_event(const ia64_pmu_t *pmu, const char *name, size_t len)
{
    size_t lo = 0, hi = ia64_nevents(pmu);
    if (!name)
        return -1;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        unsigned idx = pmu->by_name[mid];
        int c = name_cmp(name, len, pmu->events[idx].name);
        if (c == 0)
            return (int)idx;
        if (c < 0)
            hi = mid;
        else
            lo = mid + 1;
    }
    return -1;
}

unsigned ia64_num_masks(const ia64_pmu_t *pmu, unsigned idx)
{
    return (pmu->events[idx].qual & IA64_Q_MESI) ? 4 : 0;
}

/* Indexed by -code. */
static const char *const err_text[] = {
    "success",
    "not supported",
    "invalid parameters",
    "pfmlib not initialized",
    "event not found",
    "cannot assign events to counters",
    "buffer is full or too small",
    "event used more than once",
    "invalid model specific magic number",
    "invalid combination of model specific features",
    "incompatible event sets",
    "incompatible events combination",
    "too many events or unit masks",
    "code range too big",
    "empty code range",
    "invalid code range",
    "too many code ranges",
    "invalid data range",
    "too many data ranges",
    "not supported by host cpu",
    "code range is not bundle-aligned",
    "code range requires some flags in rr_flags",
    "invalid or missing unit mask",
    "out of memory",
};
_Static_assert(sizeof(err_text) / sizeof(err_text[0]) == 1 - PFMLIB_ERR_NOMEM,
               "one text per libpfm-3 error code");

const char *ia64_strerror(int code)
{
    if (code > 0 || code < PFMLIB_ERR_NOMEM)
        return "unknown error code";
    return err_text[-code];
}
