/* The libpfm-3 face of pmusim (include/libpfm3): the generic pfm_* calls and
 * the Itanium 2 / Montecito query functions, over the IA-64 encoder core.
 *
 * The IA-64 PMUs are never detected on the host: pfm_force_pmu() or the
 * LIBPFM_FORCE_PMU environment variable (read by pfm_initialize(); libpfm-3
 * PMU type numbers 3 / 4 or the names "itanium2" / "montecito") select one.
 * Like libpfm-3, the library counts as initialized as soon as a PMU is
 * current, so pfm_force_pmu() alone is enough.
 */
#include "ia64_priv.h"

#include <ctype.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* libpfm-3's "first counter" wildcard for pfm_get_event_code_counter(). */
#define PFMLIB_CNT_FIRST (~0u)

static const ia64_pmu_t *current;
static pfmlib_options_t options;

static const ia64_pmu_t *pmu_by_type(int type)
{
    if (type == PFMLIB_ITANIUM2_PMU)
        return &ia64_pmu_ita2;
    if (type == PFMLIB_MONTECITO_PMU)
        return &ia64_pmu_mont;
    return NULL;
}

/* LIBPFM_FORCE_PMU: a libpfm-3 PMU type number or one of our PMU names. */
static int forced_type(const char *s)
{
    static const struct { const char *name; int type; } names[] = {
        { "itanium2", PFMLIB_ITANIUM2_PMU }, { "ita2", PFMLIB_ITANIUM2_PMU },
        { "montecito", PFMLIB_MONTECITO_PMU }, { "mont", PFMLIB_MONTECITO_PMU },
    };
    if (!s || !*s)
        return PFMLIB_NO_PMU;
    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
        if (strcasecmp(s, names[i].name) == 0)
            return names[i].type;
    return atoi(s);
}

int pfm_initialize(void)
{
    const char *env = getenv("LIBPFM_FORCE_PMU");
    const ia64_pmu_t *p = pmu_by_type(forced_type(env));
    if (p) {
        current = p;
        return PFMLIB_SUCCESS;
    }
    /* No host detection: pmusim runs on x86 and only models IA-64 here.
     * A PMU chosen earlier with pfm_force_pmu() stays selected. */
    return current ? PFMLIB_SUCCESS : PFMLIB_ERR_NOTSUPP;
}

int pfm_set_options(pfmlib_options_t *opt)
{
    if (opt == NULL)
        return PFMLIB_ERR_INVAL;
    options = *opt;
    return PFMLIB_SUCCESS;
}

int pfm_force_pmu(int type)
{
    const ia64_pmu_t *p = pmu_by_type(type);
    if (!p)
        return PFMLIB_ERR_NOTSUPP;
    current = p;
    return PFMLIB_SUCCESS;
}

int pfm_list_supported_pmus(int (*pf)(const char *fmt, ...))
{
    if (pf == NULL)
        return PFMLIB_ERR_INVAL;
    (*pf)("supported PMU models: ");
    (*pf)("[%s] [%s] ", ia64_pmu_mont.pfm_name, ia64_pmu_ita2.pfm_name);
    (*pf)("\ndetected host PMU: %s\n", current ? current->pfm_name : "not detected yet");
    return PFMLIB_SUCCESS;
}

static int copy_name(char *dst, size_t maxlen, const char *src)
{
    strncpy(dst, src, maxlen - 1);
    dst[maxlen - 1] = '\0';
    return PFMLIB_SUCCESS;
}

int pfm_get_pmu_name(char *name, int maxlen)
{
    if (!current)
        return PFMLIB_ERR_NOINIT;
    if (name == NULL || maxlen < 1)
        return PFMLIB_ERR_INVAL;
    return copy_name(name, (size_t)maxlen, current->pfm_name);
}

int pfm_get_pmu_type(int *type)
{
    if (!current)
        return PFMLIB_ERR_NOINIT;
    if (type == NULL)
        return PFMLIB_ERR_INVAL;
    *type = current->pmu_type;
    return PFMLIB_SUCCESS;
}

int pfm_get_pmu_name_bytype(int type, char *name, size_t maxlen)
{
    const ia64_pmu_t *p = pmu_by_type(type);
    if (name == NULL || maxlen < 1 || !p)
        return PFMLIB_ERR_INVAL;
    return copy_name(name, maxlen, p->pfm_name);
}

int pfm_is_pmu_supported(int type)
{
    if (!current)
        return PFMLIB_ERR_NOINIT;
    return pmu_by_type(type) ? PFMLIB_SUCCESS : PFMLIB_ERR_NOTSUPP;
}

/* ------------------------------------------------------------------ */
/* events                                                              */

static const ia64_event_t *event_at(unsigned idx)
{
    return &current->events[idx];
}

static unsigned nevents(void)
{
    return (unsigned)ia64_nevents(current);
}

int pfm_find_event_byname(const char *n, unsigned int *idx)
{
    if (!current)
        return PFMLIB_ERR_NOINIT;
    if (n == NULL || idx == NULL)
        return PFMLIB_ERR_INVAL;
    const char *colon = strchr(n, ':');
    size_t len = colon ? (size_t)(colon - n) : strlen(n);
    int i = ia64_find_event(current, n, len);
    if (i < 0)
        return PFMLIB_ERR_NOTFOUND;
    *idx = (unsigned)i;
    return PFMLIB_SUCCESS;
}

int pfm_find_event_bycode(int code, unsigned int *idx)
{
    if (!current)
        return PFMLIB_ERR_NOINIT;
    if (idx == NULL)
        return PFMLIB_ERR_INVAL;
    for (unsigned i = 0; i < nevents(); i++) {
        if (event_at(i)->code == code) {
            *idx = i;
            return PFMLIB_SUCCESS;
        }
    }
    return PFMLIB_ERR_NOTFOUND;
}

int pfm_find_event_bycode_next(int code, unsigned int i, unsigned int *next)
{
    if (!current)
        return PFMLIB_ERR_NOINIT;
    if (!next)
        return PFMLIB_ERR_INVAL;
    for (++i; i < nevents(); i++) {
        if (event_at(i)->code == code) {
            *next = i;
            return PFMLIB_SUCCESS;
        }
    }
    return PFMLIB_ERR_NOTFOUND;
}

int pfm_find_event(const char *v, unsigned int *ev)
{
    if (!current)
        return PFMLIB_ERR_NOINIT;
    if (v == NULL || ev == NULL)
        return PFMLIB_ERR_INVAL;
    if (isdigit((unsigned char)*v)) {
        char *end = NULL;
        unsigned long number = strtoul(v, &end, 0);
        if (*end != '\0')
            return PFMLIB_ERR_INVAL;
        if (number > INT_MAX)
            return PFMLIB_ERR_INVAL;
        return pfm_find_event_bycode((int)number, ev);
    }
    return pfm_find_event_byname(v, ev);
}

static const char *const mesi_names[4] = { "I", "S", "E", "M" };
static const char *const mesi_desc[4] = { "invalid", "shared", "exclusive", "modified" };

static int find_mask(unsigned ev, const char *str, unsigned *mask_idx)
{
    unsigned n = ia64_num_masks(current, ev);
    if (*str == '\0')
        return PFMLIB_ERR_UMASK;
    for (unsigned i = 0; i < n; i++) {
        if (strcasecmp(mesi_names[i], str) == 0) {
            *mask_idx = i;
            return PFMLIB_SUCCESS;
        }
    }
    char *end = NULL;
    unsigned long v = strtoul(str, &end, 0);
    if (v != ULONG_MAX && end && *end == '\0' && v < n) {
        *mask_idx = (unsigned)v;   /* Montecito unit-mask codes equal their index */
        return PFMLIB_SUCCESS;
    }
    return PFMLIB_ERR_UMASK;
}

int pfm_find_event_mask(unsigned int ev, const char *str, unsigned int *mask_idx)
{
    if (!current)
        return PFMLIB_ERR_NOINIT;
    if (str == NULL || mask_idx == NULL || ev >= nevents())
        return PFMLIB_ERR_INVAL;
    return find_mask(ev, str, mask_idx);
}

static bool has_mask(const pfmlib_event_t *e, unsigned m)
{
    for (unsigned j = 0; j < e->num_masks; j++)
        if (e->unit_masks[j] == m)
            return true;
    return false;
}

/* A numeric unit mask that is not exactly a mask code stands for every mask
 * whose code bits it contains, as in libpfm-3.  The codes here are 0..3, so
 * an exact match always comes first and this only ever rejects values. */
static int add_numeric_masks(pfmlib_event_t *e, const char *str)
{
    unsigned n = ia64_num_masks(current, e->event), j = e->num_masks;
    unsigned long covered = 0;
    char *end = NULL;
    if (*str == '\0')
        return PFMLIB_ERR_UMASK;
    unsigned long v = strtoul(str, &end, 0);
    if (end && *end != '\0')
        return PFMLIB_ERR_UMASK;
    for (unsigned i = 0; i < n; i++) {
        if ((v & i) != i)
            continue;
        if (!has_mask(e, i)) {
            if (j == PFMLIB_MAX_MASKS_PER_EVENT)
                return PFMLIB_ERR_TOOMANY;
            e->unit_masks[j++] = i;
        }
        covered |= i;
    }
    if (v != covered) {
        for (unsigned i = e->num_masks; i < j; i++)
            e->unit_masks[i] = 0;
        return PFMLIB_ERR_UMASK;
    }
    e->num_masks = j;
    return PFMLIB_SUCCESS;
}

int pfm_find_full_event(const char *v, pfmlib_event_t *e)
{
    if (!current)
        return PFMLIB_ERR_NOINIT;
    if (v == NULL || e == NULL)
        return PFMLIB_ERR_INVAL;
    memset(e, 0, sizeof(*e));
    int ret = pfm_find_event_byname(v, &e->event);
    if (ret != PFMLIB_SUCCESS)
        return ret;
    unsigned n = ia64_num_masks(current, e->event);
    const char *p = strchr(v, ':');
    if (n == 0 && p == NULL)
        return PFMLIB_SUCCESS;
    if ((p && n == 0) || (n && p == NULL))
        return PFMLIB_ERR_UMASK;   /* MESI events have no default unit mask */
    p++;
    if (*p == '\0')
        return PFMLIB_ERR_UMASK;
    char buf[64];
    while (p) {
        const char *q = strchr(p, ':');
        size_t len = q ? (size_t)(q - p) : strlen(p);
        if (len >= sizeof(buf))
            return PFMLIB_ERR_UMASK;
        memcpy(buf, p, len);
        buf[len] = '\0';
        unsigned m;
        ret = find_mask(e->event, buf, &m);
        if (ret == PFMLIB_ERR_UMASK) {
            ret = add_numeric_masks(e, buf);
            if (ret != PFMLIB_SUCCESS)
                return ret;
        } else if (!has_mask(e, m)) {
            if (e->num_masks == PFMLIB_MAX_MASKS_PER_EVENT)
                return PFMLIB_ERR_TOOMANY;
            e->unit_masks[e->num_masks++] = m;
        }
        p = q ? q + 1 : NULL;
    }
    return PFMLIB_SUCCESS;
}

int pfm_get_max_event_name_len(size_t *len)
{
    if (!current)
        return PFMLIB_ERR_NOINIT;
    if (len == NULL)
        return PFMLIB_ERR_INVAL;
    size_t max = 0;
    for (unsigned i = 0; i < nevents(); i++) {
        size_t l = strlen(event_at(i)->name);
        if (ia64_num_masks(current, i))
            l += 4 * 2;  /* ":I:S:E:M" */
        if (l > max)
            max = l;
    }
    *len = max;
    return PFMLIB_SUCCESS;
}

int pfm_get_num_events(unsigned int *count)
{
    if (!current)
        return PFMLIB_ERR_NOINIT;
    if (count == NULL)
        return PFMLIB_ERR_INVAL;
    *count = nevents();
    return PFMLIB_SUCCESS;
}

int pfm_get_num_event_masks(unsigned int ev, unsigned int *count)
{
    if (!current)
        return PFMLIB_ERR_NOINIT;
    if (ev >= nevents() || count == NULL)
        return PFMLIB_ERR_INVAL;
    *count = ia64_num_masks(current, ev);
    return PFMLIB_SUCCESS;
}

int pfm_get_event_name(unsigned int i, char *name, size_t maxlen)
{
    if (!current)
        return PFMLIB_ERR_NOINIT;
    if (i >= nevents() || name == NULL || maxlen < 1)
        return PFMLIB_ERR_INVAL;
    size_t l = strlen(event_at(i)->name);
    if (maxlen - 1 < l)
        return PFMLIB_ERR_INVAL;
    memcpy(name, event_at(i)->name, l + 1);
    return PFMLIB_SUCCESS;
}

int pfm_get_full_event_name(pfmlib_event_t *e, char *name, size_t maxlen)
{
    if (!current)
        return PFMLIB_ERR_NOINIT;
    if (e == NULL || name == NULL || maxlen < 1)
        return PFMLIB_ERR_INVAL;
    if (e->event >= nevents())
        return PFMLIB_ERR_INVAL;
    unsigned n = ia64_num_masks(current, e->event);
    if (e->num_masks > PFMLIB_MAX_MASKS_PER_EVENT || (n == 0 && e->num_masks) || (n && !e->num_masks))
        return PFMLIB_ERR_UMASK;
    for (unsigned j = 0; j < e->num_masks; j++)
        if (e->unit_masks[j] >= n)
            return PFMLIB_ERR_UMASK;
    *name = '\0';
    size_t l = strlen(event_at(e->event)->name);
    if (l > maxlen - 1)
        return PFMLIB_ERR_FULL;
    strcpy(name, event_at(e->event)->name);
    size_t room = maxlen - (l + 1);
    for (unsigned j = 0; j < e->num_masks; j++) {
        const char *m = mesi_names[e->unit_masks[j]];
        size_t ml = strlen(m);
        if (ml > room - 1 || room == 0)
            return PFMLIB_ERR_FULL;
        strcat(name, ":");
        strcat(name, m);
        room -= ml + 1;
    }
    return PFMLIB_SUCCESS;
}

int pfm_get_event_code(unsigned int i, int *code)
{
    if (!current)
        return PFMLIB_ERR_NOINIT;
    if (i >= nevents() || code == NULL)
        return PFMLIB_ERR_INVAL;
    *code = event_at(i)->code;
    return PFMLIB_SUCCESS;
}

int pfm_get_event_code_counter(unsigned int i, unsigned int cnt, int *code)
{
    if (!current)
        return PFMLIB_ERR_NOINIT;
    if (i >= nevents() || code == NULL)
        return PFMLIB_ERR_INVAL;
    unsigned last = PMU_ITA2_FIRST_COUNTER + current->num_counters - 1;
    if (cnt != PFMLIB_CNT_FIRST && (cnt < 4 || cnt > last))
        return PFMLIB_ERR_INVAL;
    *code = event_at(i)->code;
    return PFMLIB_SUCCESS;
}

int pfm_get_event_mask_code(unsigned int ev, unsigned int mask, unsigned int *code)
{
    if (!current)
        return PFMLIB_ERR_NOINIT;
    if (ev >= nevents() || code == NULL)
        return PFMLIB_ERR_INVAL;
    if (current->model == IA64_MODEL_ITA2) {
        *code = 0;
        return PFMLIB_SUCCESS;
    }
    if (mask >= ia64_num_masks(current, ev))
        return PFMLIB_ERR_INVAL;
    *code = mask;
    return PFMLIB_SUCCESS;
}

int pfm_get_event_counters(unsigned int i, pfmlib_regmask_t *counters)
{
    if (!current)
        return PFMLIB_ERR_NOINIT;
    if (i >= nevents() || counters == NULL)
        return PFMLIB_ERR_INVAL;
    memset(counters, 0, sizeof(*counters));
    for (unsigned b = 0; b < 16; b++)
        if (event_at(i)->counters & (1u << b))
            pfm_regmask_set(counters, b);
    return PFMLIB_SUCCESS;
}

int pfm_get_event_description(unsigned int i, char **str)
{
    if (!current)
        return PFMLIB_ERR_NOINIT;
    if (i >= nevents() || str == NULL)
        return PFMLIB_ERR_INVAL;
    *str = strdup(event_at(i)->desc);
    return *str ? PFMLIB_SUCCESS : PFMLIB_ERR_NOMEM;
}

int pfm_get_event_mask_name(unsigned int ev, unsigned int mask, char *name, size_t maxlen)
{
    if (!current)
        return PFMLIB_ERR_NOINIT;
    if (ev >= nevents() || name == NULL || maxlen < 1)
        return PFMLIB_ERR_INVAL;
    unsigned n = ia64_num_masks(current, ev);
    if (n == 0)
        return PFMLIB_ERR_NOTSUPP;
    if (mask >= n)
        return PFMLIB_ERR_INVAL;
    if (strlen(mesi_names[mask]) >= maxlen - 1)
        return PFMLIB_ERR_FULL;
    strcpy(name, mesi_names[mask]);
    return PFMLIB_SUCCESS;
}

int pfm_get_event_mask_description(unsigned int ev, unsigned int mask, char **desc)
{
    if (!current)
        return PFMLIB_ERR_NOINIT;
    if (ev >= nevents() || desc == NULL)
        return PFMLIB_ERR_INVAL;
    if (current->model == IA64_MODEL_ITA2) {
        *desc = strdup("no description available");
        return *desc ? PFMLIB_SUCCESS : PFMLIB_ERR_NOMEM;
    }
    if (mask >= ia64_num_masks(current, ev))
        return PFMLIB_ERR_INVAL;
    *desc = strdup(mesi_desc[mask]);
    return *desc ? PFMLIB_SUCCESS : PFMLIB_ERR_NOMEM;
}

int pfm_dispatch_events(pfmlib_input_param_t *inp, void *model_in, pfmlib_output_param_t *outp,
                        void *model_out)
{
    if (!current)
        return PFMLIB_ERR_NOINIT;
    return ia64_dispatch(current, inp, model_in, outp, model_out);
}

/* ------------------------------------------------------------------ */
/* registers                                                           */

int pfm_get_impl_pmcs(pfmlib_regmask_t *impl)
{
    if (!current)
        return PFMLIB_ERR_NOINIT;
    if (impl == NULL)
        return PFMLIB_ERR_INVAL;
    memset(impl, 0, sizeof(*impl));
    for (unsigned i = 0; i < 16; i++)
        pfm_regmask_set(impl, i);
    if (current->model == IA64_MODEL_MONT)
        for (unsigned i = 32; i < 43; i++)
            pfm_regmask_set(impl, i);
    return PFMLIB_SUCCESS;
}

int pfm_get_impl_pmds(pfmlib_regmask_t *impl)
{
    if (!current)
        return PFMLIB_ERR_NOINIT;
    if (impl == NULL)
        return PFMLIB_ERR_INVAL;
    memset(impl, 0, sizeof(*impl));
    if (current->model == IA64_MODEL_ITA2) {
        for (unsigned i = 0; i < PMU_ITA2_NUM_PMDS; i++)
            pfm_regmask_set(impl, i);
    } else {
        for (unsigned i = 4; i < 16; i++)
            pfm_regmask_set(impl, i);
        for (unsigned i = 32; i < 40; i++)
            pfm_regmask_set(impl, i);
        for (unsigned i = 48; i < 64; i++)
            pfm_regmask_set(impl, i);
    }
    return PFMLIB_SUCCESS;
}

int pfm_get_impl_counters(pfmlib_regmask_t *impl)
{
    if (!current)
        return PFMLIB_ERR_NOINIT;
    if (impl == NULL)
        return PFMLIB_ERR_INVAL;
    memset(impl, 0, sizeof(*impl));
    for (unsigned i = 4; i < 4 + current->num_counters; i++)
        pfm_regmask_set(impl, i);
    return PFMLIB_SUCCESS;
}

static int get_num(unsigned *num, unsigned value)
{
    if (!current)
        return PFMLIB_ERR_NOINIT;
    if (num == NULL)
        return PFMLIB_ERR_INVAL;
    *num = value;
    return PFMLIB_SUCCESS;
}

int pfm_get_num_pmcs(unsigned int *num)
{
    return get_num(num, current ? current->num_pmcs : 0);
}

int pfm_get_num_pmds(unsigned int *num)
{
    return get_num(num, current ? current->num_pmds : 0);
}

int pfm_get_num_counters(unsigned int *num)
{
    return get_num(num, current ? current->num_counters : 0);
}

int pfm_get_hw_counter_width(unsigned int *width)
{
    return get_num(width, PMU_ITA2_COUNTER_WIDTH);
}

int pfm_get_version(unsigned int *version)
{
    if (version == NULL)
        return PFMLIB_ERR_INVAL;
    *version = PFMLIB_VERSION;
    return PFMLIB_SUCCESS;
}

char *pfm_strerror(int code)
{
    /* libpfm-3 returns a non-const pointer to a constant string. */
    return (char *)(uintptr_t)ia64_strerror(code);
}

static int named_event(pfmlib_event_t *e, const char *name)
{
    if (!current)
        return PFMLIB_ERR_NOINIT;
    if (e == NULL)
        return PFMLIB_ERR_INVAL;
    memset(e, 0, sizeof(*e));
    e->event = (unsigned)ia64_find_event(current, name, strlen(name));
    return PFMLIB_SUCCESS;
}

int pfm_get_cycle_event(pfmlib_event_t *e)
{
    return named_event(e, current && current->model == IA64_MODEL_MONT ? "CPU_OP_CYCLES_ALL" : "CPU_CYCLES");
}

int pfm_get_inst_retired_event(pfmlib_event_t *e)
{
    return named_event(e, "IA64_INST_RETIRED");
}

/* ------------------------------------------------------------------ */
/* model-specific queries: like libpfm-3 they read the PMU's table      */
/* directly and do not need pfm_initialize()                           */

static const ia64_event_t *ev_of(const ia64_pmu_t *pmu, unsigned i)
{
    return i < ia64_nevents(pmu) ? &pmu->events[i] : NULL;
}

static int type_is(const ia64_pmu_t *pmu, unsigned i, unsigned lo, unsigned hi)
{
    const ia64_event_t *e = ev_of(pmu, i);
    return e && e->type >= lo && e->type <= hi;
}

static int qual_is(const ia64_pmu_t *pmu, unsigned i, unsigned q)
{
    const ia64_event_t *e = ev_of(pmu, i);
    return e && (e->qual & q) != 0;
}

static int get_ear_mode(const ia64_pmu_t *pmu, unsigned i, int *mode)
{
    const ia64_event_t *e = ev_of(pmu, i);
    if (!e || mode == NULL || e->type < IA64_EVT_IEAR_TLB)
        return PFMLIB_ERR_INVAL;
    if (e->type == IA64_EVT_IEAR_TLB || e->type == IA64_EVT_DEAR_TLB)
        *mode = PFMLIB_ITA2_EAR_TLB_MODE;
    else if (e->type == IA64_EVT_IEAR_CACHE || e->type == IA64_EVT_DEAR_CACHE)
        *mode = PFMLIB_ITA2_EAR_CACHE_MODE;
    else
        *mode = PFMLIB_ITA2_EAR_ALAT_MODE;
    return PFMLIB_SUCCESS;
}

static int get_maxincr(const ia64_pmu_t *pmu, unsigned i, unsigned *maxincr)
{
    const ia64_event_t *e = ev_of(pmu, i);
    if (!e || maxincr == NULL)
        return PFMLIB_ERR_INVAL;
    *maxincr = e->maxincr;
    return PFMLIB_SUCCESS;
}

static int get_umask(const ia64_pmu_t *pmu, unsigned i, unsigned long *umask)
{
    const ia64_event_t *e = ev_of(pmu, i);
    if (!e || umask == NULL)
        return PFMLIB_ERR_INVAL;
    *umask = e->umask;
    return PFMLIB_SUCCESS;
}

/* DEVIATION (Montecito): libpfm-3 decodes group/set through a bitfield
 * layout that does not match its own table (ungrouped events report group
 * 7, sets come out doubled); we return the documented values. */
static int get_group(const ia64_pmu_t *pmu, unsigned i, int *grp)
{
    const ia64_event_t *e = ev_of(pmu, i);
    if (!e || grp == NULL)
        return PFMLIB_ERR_INVAL;
    *grp = e->group;
    return PFMLIB_SUCCESS;
}

static int get_set(const ia64_pmu_t *pmu, unsigned i, int *set)
{
    const ia64_event_t *e = ev_of(pmu, i);
    if (!e || set == NULL)
        return PFMLIB_ERR_INVAL;
    *set = e->set;
    return PFMLIB_SUCCESS;
}

static int is_fine(pfmlib_output_param_t *outp, unsigned nbr_used, unsigned pmc)
{
    if (outp == NULL || outp->pfp_pmc_count >= PFMLIB_MAX_PMCS || nbr_used == 0)
        return 0;
    for (unsigned i = 0; i < outp->pfp_pmc_count; i++)
        if (outp->pfp_pmcs[i].reg_num == pmc)
            return (outp->pfp_pmcs[i].reg_value >> 13) & 1;
    return 0;
}

#define ITA2 (&ia64_pmu_ita2)
#define MONT (&ia64_pmu_mont)

int pfm_ita2_is_ear(unsigned int i) { return type_is(ITA2, i, IA64_EVT_IEAR_TLB, IA64_EVT_DEAR_ALAT); }
int pfm_ita2_is_dear(unsigned int i) { return type_is(ITA2, i, IA64_EVT_DEAR_TLB, IA64_EVT_DEAR_ALAT); }
int pfm_ita2_is_dear_tlb(unsigned int i) { return type_is(ITA2, i, IA64_EVT_DEAR_TLB, IA64_EVT_DEAR_TLB); }
int pfm_ita2_is_dear_cache(unsigned int i) { return type_is(ITA2, i, IA64_EVT_DEAR_CACHE, IA64_EVT_DEAR_CACHE); }
int pfm_ita2_is_dear_alat(unsigned int i) { return type_is(ITA2, i, IA64_EVT_DEAR_ALAT, IA64_EVT_DEAR_ALAT); }
int pfm_ita2_is_iear(unsigned int i) { return type_is(ITA2, i, IA64_EVT_IEAR_TLB, IA64_EVT_IEAR_CACHE); }
int pfm_ita2_is_iear_tlb(unsigned int i) { return type_is(ITA2, i, IA64_EVT_IEAR_TLB, IA64_EVT_IEAR_TLB); }
int pfm_ita2_is_iear_cache(unsigned int i) { return type_is(ITA2, i, IA64_EVT_IEAR_CACHE, IA64_EVT_IEAR_CACHE); }
int pfm_ita2_is_btb(unsigned int i) { return type_is(ITA2, i, IA64_EVT_BRANCH, IA64_EVT_BRANCH); }
int pfm_ita2_support_opcm(unsigned int i) { return qual_is(ITA2, i, IA64_Q_OPCM); }
int pfm_ita2_support_iarr(unsigned int i) { return qual_is(ITA2, i, IA64_Q_IARR); }
int pfm_ita2_support_darr(unsigned int i) { return qual_is(ITA2, i, IA64_Q_DARR); }

int pfm_ita2_get_ear_mode(unsigned int i, pfmlib_ita2_ear_mode_t *m)
{
    int mode;
    if (m == NULL)
        return PFMLIB_ERR_INVAL;
    int ret = get_ear_mode(ITA2, i, &mode);
    if (ret == PFMLIB_SUCCESS)
        *m = (pfmlib_ita2_ear_mode_t)mode;
    return ret;
}

int pfm_ita2_irange_is_fine(pfmlib_output_param_t *outp, pfmlib_ita2_output_param_t *mod_out)
{
    return mod_out ? is_fine(outp, mod_out->pfp_ita2_irange.rr_nbr_used, 14) : 0;
}

int pfm_ita2_get_event_maxincr(unsigned int i, unsigned int *maxincr) { return get_maxincr(ITA2, i, maxincr); }
int pfm_ita2_get_event_umask(unsigned int i, unsigned long *umask) { return get_umask(ITA2, i, umask); }
int pfm_ita2_get_event_group(unsigned int i, int *grp) { return get_group(ITA2, i, grp); }
int pfm_ita2_get_event_set(unsigned int i, int *set) { return get_set(ITA2, i, set); }

int pfm_mont_is_ear(unsigned int i) { return type_is(MONT, i, IA64_EVT_IEAR_TLB, IA64_EVT_DEAR_ALAT); }
int pfm_mont_is_dear(unsigned int i) { return type_is(MONT, i, IA64_EVT_DEAR_TLB, IA64_EVT_DEAR_ALAT); }
int pfm_mont_is_dear_tlb(unsigned int i) { return type_is(MONT, i, IA64_EVT_DEAR_TLB, IA64_EVT_DEAR_TLB); }
int pfm_mont_is_dear_cache(unsigned int i) { return type_is(MONT, i, IA64_EVT_DEAR_CACHE, IA64_EVT_DEAR_CACHE); }
int pfm_mont_is_dear_alat(unsigned int i) { return type_is(MONT, i, IA64_EVT_DEAR_ALAT, IA64_EVT_DEAR_ALAT); }
int pfm_mont_is_iear(unsigned int i) { return type_is(MONT, i, IA64_EVT_IEAR_TLB, IA64_EVT_IEAR_CACHE); }
int pfm_mont_is_iear_tlb(unsigned int i) { return type_is(MONT, i, IA64_EVT_IEAR_TLB, IA64_EVT_IEAR_TLB); }
int pfm_mont_is_iear_cache(unsigned int i) { return type_is(MONT, i, IA64_EVT_IEAR_CACHE, IA64_EVT_IEAR_CACHE); }
int pfm_mont_is_etb(unsigned int i) { return type_is(MONT, i, IA64_EVT_BRANCH, IA64_EVT_BRANCH); }
int pfm_mont_support_opcm(unsigned int i) { return qual_is(MONT, i, IA64_Q_OPCM); }
int pfm_mont_support_iarr(unsigned int i) { return qual_is(MONT, i, IA64_Q_IARR); }
int pfm_mont_support_darr(unsigned int i) { return qual_is(MONT, i, IA64_Q_DARR); }
int pfm_mont_support_all(unsigned int i) { return qual_is(MONT, i, IA64_Q_ALL); }

int pfm_mont_get_ear_mode(unsigned int i, pfmlib_mont_ear_mode_t *m)
{
    int mode;
    if (m == NULL)
        return PFMLIB_ERR_INVAL;
    int ret = get_ear_mode(MONT, i, &mode);
    if (ret == PFMLIB_SUCCESS)
        *m = (pfmlib_mont_ear_mode_t)mode;
    return ret;
}

int pfm_mont_irange_is_fine(pfmlib_output_param_t *outp, pfmlib_mont_output_param_t *mod_out)
{
    return mod_out ? is_fine(outp, mod_out->pfp_mont_irange.rr_nbr_used, 38) : 0;
}

int pfm_mont_get_event_maxincr(unsigned int i, unsigned int *maxincr) { return get_maxincr(MONT, i, maxincr); }
int pfm_mont_get_event_umask(unsigned int i, unsigned long *umask) { return get_umask(MONT, i, umask); }
int pfm_mont_get_event_group(unsigned int i, int *grp) { return get_group(MONT, i, grp); }
int pfm_mont_get_event_set(unsigned int i, int *set) { return get_set(MONT, i, set); }

int pfm_mont_get_event_type(unsigned int i, int *type)
{
    const ia64_event_t *e = ev_of(MONT, i);
    if (!e || type == NULL)
        return PFMLIB_ERR_INVAL;
    *type = e->caf;
    return PFMLIB_SUCCESS;
}
