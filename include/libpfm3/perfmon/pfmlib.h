/*
 * pmusim's libpfm-3 compatible API, generic part.
 *
 * A program written against libpfm-3 (the pfm_dispatch_events() generation)
 * compiles unchanged with `pkg-config --cflags pmusim-libpfm3`.  Names,
 * constants, error values and structure layouts follow libpfm-3; the text
 * and implementation are pmusim's own.  Only the IA-64 PMUs Itanium 2
 * (PFMLIB_ITANIUM2_PMU) and Montecito (PFMLIB_MONTECITO_PMU) are provided;
 * they are never detected on the host and must be chosen with
 * pfm_force_pmu() or the LIBPFM_FORCE_PMU environment variable
 * (see docs/compat-ia64.md).
 */
#ifndef PMUSIM_LIBPFM3_PFMLIB_H
#define PMUSIM_LIBPFM3_PFMLIB_H

#include <stdio.h>
#include <stddef.h>
#include <inttypes.h>

#include <perfmon/pfmlib_os.h>
#include <perfmon/pfmlib_comp.h>

#ifdef __cplusplus
extern "C" {
#endif

#define PFMLIB_VERSION          (3 << 16 | 2)
#define PFMLIB_MAJ_VERSION(v)   ((v) >> 16)
#define PFMLIB_MIN_VERSION(v)   ((v) & 0xffff)

/* Largest register numbers the library's bitmasks can describe. */
#define PFMLIB_MAX_PMCS 512
#define PFMLIB_MAX_PMDS 512

/* Privilege level mask bits (combine with |). */
#define PFM_PLM0 0x1
#define PFM_PLM1 0x2
#define PFM_PLM2 0x4
#define PFM_PLM3 0x8

typedef unsigned long pfmlib_regmask_bits_t;

#define PFMLIB_REG_MAX          PFMLIB_MAX_PMCS
#define __PFMLIB_REG_BV_BITS    (sizeof(pfmlib_regmask_bits_t) << 3)
#define PFMLIB_BVSIZE(x)        (((x) + (__PFMLIB_REG_BV_BITS) - 1) / __PFMLIB_REG_BV_BITS)
#define PFMLIB_REG_BV           PFMLIB_BVSIZE(PFMLIB_REG_MAX)

/* A set of register numbers. */
typedef struct {
    pfmlib_regmask_bits_t bits[PFMLIB_REG_BV];
} pfmlib_regmask_t;

#define PFMLIB_MAX_MASKS_PER_EVENT 48

/* One event to measure. */
typedef struct {
    unsigned int  event;       /* event index (pfm_find_event) */
    unsigned int  plm;         /* privilege levels; 0 = use pfp_dfl_plm */
    unsigned long flags;       /* per-event flags (none defined) */
    unsigned int  unit_masks[PFMLIB_MAX_MASKS_PER_EVENT]; /* unit-mask indices */
    unsigned int  num_masks;   /* entries used in unit_masks */
    unsigned long reserved[2];
} pfmlib_event_t;

/* One register to program. */
typedef struct {
    unsigned long long reg_value;
    unsigned long long reg_addr;
    unsigned int       reg_num;
    unsigned int       reg_reserved1;
    unsigned long      reg_alt_addr;
} pfmlib_reg_t;

/* Input of pfm_dispatch_events(). */
typedef struct {
    unsigned int     pfp_event_count;
    unsigned int     pfp_dfl_plm;       /* must not be 0 */
    unsigned int     pfp_flags;         /* PFMLIB_PFP_* */
    unsigned int     reserved1;
    pfmlib_event_t   pfp_events[PFMLIB_MAX_PMCS];
    pfmlib_regmask_t pfp_unavail_pmcs;  /* PMCs the library must not use */
    unsigned long    reserved[6];
} pfmlib_input_param_t;

#define PFMLIB_PFP_SYSTEMWIDE 0x1 /* the session is system-wide (sets the pm bits) */

/* Output of pfm_dispatch_events(). */
typedef struct {
    unsigned int  pfp_pmc_count;
    unsigned int  pfp_pmd_count;
    pfmlib_reg_t  pfp_pmcs[PFMLIB_MAX_PMCS];
    pfmlib_reg_t  pfp_pmds[PFMLIB_MAX_PMDS];
    unsigned long reserved[7];
} pfmlib_output_param_t;

typedef struct {
    unsigned int pfm_debug:1;
    unsigned int pfm_verbose:1;
    unsigned int pfm_reserved:30;
} pfmlib_options_t;

extern int pfm_set_options(pfmlib_options_t *opt);
extern int pfm_initialize(void);

extern int pfm_list_supported_pmus(int (*pf)(const char *fmt, ...));
extern int pfm_get_pmu_name(char *name, int maxlen);
extern int pfm_get_pmu_type(int *type);
extern int pfm_get_pmu_name_bytype(int type, char *name, size_t maxlen);
extern int pfm_is_pmu_supported(int type);
extern int pfm_force_pmu(int type);

extern int pfm_find_event(const char *str, unsigned int *idx);
extern int pfm_find_event_byname(const char *name, unsigned int *idx);
extern int pfm_find_event_bycode(int code, unsigned int *idx);
extern int pfm_find_event_bycode_next(int code, unsigned int start, unsigned int *next);
extern int pfm_find_event_mask(unsigned int event_idx, const char *str, unsigned int *mask_idx);
extern int pfm_find_full_event(const char *str, pfmlib_event_t *e);

extern int pfm_get_max_event_name_len(size_t *len);

extern int pfm_get_num_events(unsigned int *count);
extern int pfm_get_num_event_masks(unsigned int event_idx, unsigned int *count);
extern int pfm_get_event_name(unsigned int idx, char *name, size_t maxlen);
extern int pfm_get_full_event_name(pfmlib_event_t *e, char *name, size_t maxlen);
extern int pfm_get_event_code(unsigned int idx, int *code);
extern int pfm_get_event_mask_code(unsigned int idx, unsigned int mask_idx, unsigned int *code);
extern int pfm_get_event_counters(unsigned int idx, pfmlib_regmask_t *counters);
extern int pfm_get_event_description(unsigned int idx, char **str);
extern int pfm_get_event_code_counter(unsigned int idx, unsigned int cnt, int *code);
extern int pfm_get_event_mask_name(unsigned int event_idx, unsigned int mask_idx, char *name, size_t maxlen);
extern int pfm_get_event_mask_description(unsigned int event_idx, unsigned int mask_idx, char **desc);

extern int pfm_dispatch_events(pfmlib_input_param_t *p, void *model_in, pfmlib_output_param_t *q,
                               void *model_out);

extern int pfm_get_impl_pmcs(pfmlib_regmask_t *impl_pmcs);
extern int pfm_get_impl_pmds(pfmlib_regmask_t *impl_pmds);
extern int pfm_get_impl_counters(pfmlib_regmask_t *impl_counters);
extern int pfm_get_num_pmds(unsigned int *num);
extern int pfm_get_num_pmcs(unsigned int *num);
extern int pfm_get_num_counters(unsigned int *num);

extern int pfm_get_hw_counter_width(unsigned int *width);
extern int pfm_get_version(unsigned int *version);
extern char *pfm_strerror(int code);
extern int pfm_get_cycle_event(pfmlib_event_t *e);
extern int pfm_get_inst_retired_event(pfmlib_event_t *e);

/* PMU types (libpfm-3 numbering). */
#define PFMLIB_NO_PMU           0
#define PFMLIB_GEN_IA64_PMU     1
#define PFMLIB_ITANIUM_PMU      2
#define PFMLIB_ITANIUM2_PMU     3
#define PFMLIB_MONTECITO_PMU    4
#define PFMLIB_AMD64_PMU        16
#define PFMLIB_I386_P6_PMU      32
#define PFMLIB_PENTIUM4_PMU     33
#define PFMLIB_COREDUO_PMU      34
#define PFMLIB_I386_PM_PMU      35
#define PFMLIB_CORE_PMU         36
#define PFMLIB_INTEL_CORE_PMU   36
#define PFMLIB_INTEL_PPRO_PMU   37
#define PFMLIB_INTEL_PII_PMU    38
#define PFMLIB_GEN_IA32_PMU     63

/* Error codes (libpfm-3 values). */
#define PFMLIB_SUCCESS          0
#define PFMLIB_ERR_NOTSUPP      -1
#define PFMLIB_ERR_INVAL        -2
#define PFMLIB_ERR_NOINIT       -3
#define PFMLIB_ERR_NOTFOUND     -4
#define PFMLIB_ERR_NOASSIGN     -5
#define PFMLIB_ERR_FULL         -6
#define PFMLIB_ERR_EVTMANY      -7
#define PFMLIB_ERR_MAGIC        -8
#define PFMLIB_ERR_FEATCOMB     -9
#define PFMLIB_ERR_EVTSET       -10
#define PFMLIB_ERR_EVTINCOMP    -11
#define PFMLIB_ERR_TOOMANY      -12
#define PFMLIB_ERR_IRRTOOBIG    -13
#define PFMLIB_ERR_IRREMPTY     -14
#define PFMLIB_ERR_IRRINVAL     -15
#define PFMLIB_ERR_IRRTOOMANY   -16
#define PFMLIB_ERR_DRRINVAL     -17
#define PFMLIB_ERR_DRRTOOMANY   -18
#define PFMLIB_ERR_BADHOST      -19
#define PFMLIB_ERR_IRRALIGN     -20
#define PFMLIB_ERR_IRRFLAGS     -21
#define PFMLIB_ERR_UMASK        -22
#define PFMLIB_ERR_NOMEM        -23

#define __PFMLIB_REGMASK_EL(g)   ((g) / __PFMLIB_REG_BV_BITS)
#define __PFMLIB_REGMASK_MASK(g) (((pfmlib_regmask_bits_t)1) << ((g) % __PFMLIB_REG_BV_BITS))

static inline int pfm_regmask_isset(pfmlib_regmask_t *h, unsigned int b)
{
    if (b >= PFMLIB_REG_MAX)
        return 0;
    return (h->bits[__PFMLIB_REGMASK_EL(b)] & __PFMLIB_REGMASK_MASK(b)) != 0;
}

static inline int pfm_regmask_set(pfmlib_regmask_t *h, unsigned int b)
{
    if (b >= PFMLIB_REG_MAX)
        return PFMLIB_ERR_INVAL;
    h->bits[__PFMLIB_REGMASK_EL(b)] |= __PFMLIB_REGMASK_MASK(b);
    return PFMLIB_SUCCESS;
}

static inline int pfm_regmask_clr(pfmlib_regmask_t *h, unsigned int b)
{
    if (h == NULL || b >= PFMLIB_REG_MAX)
        return PFMLIB_ERR_INVAL;
    h->bits[__PFMLIB_REGMASK_EL(b)] &= ~__PFMLIB_REGMASK_MASK(b);
    return PFMLIB_SUCCESS;
}

static inline int pfm_regmask_weight(pfmlib_regmask_t *h, unsigned int *w)
{
    unsigned int n = 0;
    if (h == NULL || w == NULL)
        return PFMLIB_ERR_INVAL;
    for (unsigned int i = 0; i < PFMLIB_REG_BV; i++)
        n += (unsigned int)pfmlib_popcnt(h->bits[i]);
    *w = n;
    return PFMLIB_SUCCESS;
}

static inline int pfm_regmask_eq(pfmlib_regmask_t *h1, pfmlib_regmask_t *h2)
{
    if (h1 == NULL || h2 == NULL)
        return 0;
    for (unsigned int i = 0; i < PFMLIB_REG_BV; i++)
        if (h1->bits[i] != h2->bits[i])
            return 0;
    return 1;
}

static inline int pfm_regmask_and(pfmlib_regmask_t *dst, pfmlib_regmask_t *h1, pfmlib_regmask_t *h2)
{
    if (dst == NULL || h1 == NULL || h2 == NULL)
        return PFMLIB_ERR_INVAL;
    for (unsigned int i = 0; i < PFMLIB_REG_BV; i++)
        dst->bits[i] = h1->bits[i] & h2->bits[i];
    return PFMLIB_SUCCESS;
}

static inline int pfm_regmask_andnot(pfmlib_regmask_t *dst, pfmlib_regmask_t *h1, pfmlib_regmask_t *h2)
{
    if (dst == NULL || h1 == NULL || h2 == NULL)
        return PFMLIB_ERR_INVAL;
    for (unsigned int i = 0; i < PFMLIB_REG_BV; i++)
        dst->bits[i] = h1->bits[i] & ~h2->bits[i];
    return PFMLIB_SUCCESS;
}

static inline int pfm_regmask_or(pfmlib_regmask_t *dst, pfmlib_regmask_t *h1, pfmlib_regmask_t *h2)
{
    if (dst == NULL || h1 == NULL || h2 == NULL)
        return PFMLIB_ERR_INVAL;
    for (unsigned int i = 0; i < PFMLIB_REG_BV; i++)
        dst->bits[i] = h1->bits[i] | h2->bits[i];
    return PFMLIB_SUCCESS;
}

static inline int pfm_regmask_copy(pfmlib_regmask_t *dst, pfmlib_regmask_t *src)
{
    if (dst == NULL || src == NULL)
        return PFMLIB_ERR_INVAL;
    for (unsigned int i = 0; i < PFMLIB_REG_BV; i++)
        dst->bits[i] = src->bits[i];
    return PFMLIB_SUCCESS;
}

static inline int pfm_regmask_not(pfmlib_regmask_t *dst)
{
    if (dst == NULL)
        return PFMLIB_ERR_INVAL;
    for (unsigned int i = 0; i < PFMLIB_REG_BV; i++)
        dst->bits[i] = ~dst->bits[i];
    return PFMLIB_SUCCESS;
}

#ifdef __cplusplus
}
#endif
#endif
