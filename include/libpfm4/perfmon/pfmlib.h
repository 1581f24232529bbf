/* pmusim's libpfm-4 compatible API (perfmon/pfmlib.h).
 *
 * Source and binary compatible with libpfm-4 4.13 for the PMUs pmusim
 * encodes: Intel Westmere (wsm), Westmere DP (wsm_dp), Knights Landing (knl)
 * and Knights Mill (knm), and libpfm-4's OS-generic perf (perf_event's
 * generic events) and perf_raw (rHEX) PMUs.  Names, numeric values, struct
 * layouts and field order are libpfm-4's (ABI sizes below); the
 * implementation is pmusim's own (encoder/x86/pfm4.c, pfm4_perf.c).
 * Differences are listed in docs/compat-x86.md.  Build with
 * `pkg-config --cflags --libs pmusim-libpfm4`; libpfm.so.4 users can load
 * pmusim's drop-in copy with LD_LIBRARY_PATH (README.md).
 */
#ifndef PMUSIM_LIBPFM4_PFMLIB_H
#define PMUSIM_LIBPFM4_PFMLIB_H

#include <sys/types.h>
#include <unistd.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

#define LIBPFM_VERSION (4 << 16 | 0)
#define PFM_MAJ_VERSION(v) ((v) >> 16)
#define PFM_MIN_VERSION(v) ((v) & 0xffff)
#define LIBPFM_ABI_VERSION 0

/* Privilege-level mask bits (dfl_plm). */
#define PFM_PLM0 0x01 /* ring 0: kernel */
#define PFM_PLM1 0x02
#define PFM_PLM2 0x04
#define PFM_PLM3 0x08 /* rings 1-3 on x86: user */
#define PFM_PLMH 0x10 /* hypervisor */

/* PMU identifiers: libpfm-4's values for the PMUs this library knows.  The
 * numbering is libpfm-4's, so the values are sparse. */
typedef enum {
    PFM_PMU_NONE = 0,
    PFM_PMU_PERF_EVENT = 51,      /* perf_events generic PMU ("perf") */
    PFM_PMU_INTEL_WSM = 52,     /* Intel Westmere single socket */
    PFM_PMU_INTEL_WSM_DP = 53,  /* Intel Westmere DP / EX */
    PFM_PMU_PERF_EVENT_RAW = 114, /* perf_events raw event syntax ("perf_raw") */
    PFM_PMU_INTEL_KNL = 203,    /* Intel Knights Landing */
    PFM_PMU_INTEL_KNM = 371,    /* Intel Knights Mill */
    PFM_PMU_MAX = 517           /* libpfm-4 4.13: one past its largest identifier */
} pfm_pmu_t;

typedef enum {
    PFM_PMU_TYPE_UNKNOWN = 0,
    PFM_PMU_TYPE_CORE,
    PFM_PMU_TYPE_UNCORE,
    PFM_PMU_TYPE_OS_GENERIC,
    PFM_PMU_TYPE_MAX
} pfm_pmu_type_t;

typedef enum {
    PFM_ATTR_NONE = 0,
    PFM_ATTR_UMASK,        /* unit mask */
    PFM_ATTR_MOD_BOOL,     /* boolean modifier */
    PFM_ATTR_MOD_INTEGER,  /* integer modifier */
    PFM_ATTR_RAW_UMASK,    /* raw umask (internal) */
    PFM_ATTR_MAX
} pfm_attr_t;

typedef enum {
    PFM_DTYPE_UNKNOWN = 0,
    PFM_DTYPE_UINT64,
    PFM_DTYPE_INT64,
    PFM_DTYPE_DOUBLE,
    PFM_DTYPE_FIXED,
    PFM_DTYPE_RATIO,
    PFM_DTYPE_CHAR8,
    PFM_DTYPE_MAX
} pfm_dtype_t;

typedef enum {
    PFM_ATTR_CTRL_UNKNOWN = 0,
    PFM_ATTR_CTRL_PMU,        /* a PMU register field */
    PFM_ATTR_CTRL_PERF_EVENT, /* a perf_event_attr field */
    PFM_ATTR_CTRL_MAX
} pfm_attr_ctrl_t;

typedef enum {
    PFM_OS_NONE = 0,        /* raw PMU encoding */
    PFM_OS_PERF_EVENT,      /* perf_event: PMU attributes + u, k, mg, mh */
    PFM_OS_PERF_EVENT_EXT,  /* perf_event: all perf_event attributes */
    PFM_OS_MAX,
} pfm_os_t;

typedef int pfm_err_t; /* PFM_SUCCESS or a PFM_ERR_* value */
typedef int os_err_t;

typedef struct {
    const char *name;
    const char *desc;
    size_t size;          /* sizeof this struct, for ABI checks */
    pfm_pmu_t pmu;
    pfm_pmu_type_t type;
    int nevents;
    int first_event;      /* opaque index of the first event */
    int max_encoding;     /* most codes one event encodes to */
    int num_cntrs;        /* generic counters */
    int num_fixed_cntrs;
    struct {
        unsigned int is_present : 1; /* active (detected or forced) */
        unsigned int is_dfl : 1;
        unsigned int reserved_bits : 30;
    };
} pfm_pmu_info_t;

typedef enum {
    PFM_EVENT_INFO_SPEC_NA = 0,
    PFM_EVENT_INFO_SPEC_TRUE = 1,
    PFM_EVENT_INFO_SPEC_FALSE = 2,
} pfm_event_info_spec_t;

typedef struct {
    const char *name;
    const char *desc;
    const char *equiv;    /* alias target, or NULL */
    size_t size;
    uint64_t code;        /* event code from the table (not an encoding) */
    pfm_pmu_t pmu;
    pfm_dtype_t dtype;
    int idx;              /* opaque event index */
    int nattrs;           /* umasks + modifiers for the OS layer asked */
    int reserved;
    struct {
        unsigned int is_precise : 1;
        unsigned int is_speculative : 2;
        unsigned int support_hw_smpl : 1;
        unsigned int reserved_bits : 28;
    };
} pfm_event_info_t;

typedef struct {
    const char *name;
    const char *desc;
    const char *equiv;
    size_t size;
    uint64_t code;
    pfm_attr_t type;
    int idx;
    pfm_attr_ctrl_t ctrl;
    struct {
        unsigned int is_dfl : 1;
        unsigned int is_precise : 1;
        unsigned int is_speculative : 2;
        unsigned int support_hw_smpl : 1;
        unsigned int support_no_mods : 1; /* later libpfm-4: umask takes no modifiers; always 0 here */
        unsigned int reserved_bits : 26;
    };
    union {
        uint64_t dfl_val64;
        const char *dfl_str;
        int dfl_bool;
        int dfl_int;
    };
} pfm_event_attr_info_t;

/* Argument of pfm_get_os_event_encoding() with PFM_OS_NONE. */
typedef struct {
    uint64_t *codes;  /* in/out: codes array (allocated with malloc if NULL) */
    char **fstr;      /* out: canonical string (malloc), if not NULL */
    size_t size;      /* sizeof this struct */
    int count;        /* in/out: entries in codes */
    int idx;          /* out: event index */
} pfm_pmu_encode_arg_t;

#if defined(__LP64__) || defined(_LP64)
#define PFM_PMU_INFO_ABI0 56
#define PFM_EVENT_INFO_ABI0 64
#define PFM_ATTR_INFO_ABI0 64
#define PFM_RAW_ENCODE_ABI0 32
#else
#define PFM_PMU_INFO_ABI0 44
#define PFM_EVENT_INFO_ABI0 48
#define PFM_ATTR_INFO_ABI0 48
#define PFM_RAW_ENCODE_ABI0 20
#endif

/* library */
extern pfm_err_t pfm_initialize(void);
extern void pfm_terminate(void);
extern const char *pfm_strerror(int code);
extern int pfm_get_version(void);

/* PMUs */
extern pfm_err_t pfm_get_pmu_info(pfm_pmu_t pmu, pfm_pmu_info_t *output);

/* events */
extern int pfm_get_event_first(void); /* pmusim extension: first event of the first active PMU */
extern int pfm_get_event_next(int idx);
extern int pfm_find_event(const char *str);
extern pfm_err_t pfm_get_event_info(int idx, pfm_os_t os, pfm_event_info_t *output);

/* encodings */
extern pfm_err_t pfm_get_os_event_encoding(const char *str, int dfl_plm, pfm_os_t os, void *args);
extern pfm_err_t pfm_get_event_encoding(const char *str, int dfl_plm, char **fstr, int *idx,
                                        uint64_t **codes, int *count);

/* attributes */
extern pfm_err_t pfm_get_event_attr_info(int eidx, int aidx, pfm_os_t os,
                                         pfm_event_attr_info_t *output);

/* table self-check */
extern pfm_err_t pfm_pmu_validate(pfm_pmu_t pmu_id, FILE *fp);

/* error codes */
#define PFM_SUCCESS 0        /* success */
#define PFM_ERR_NOTSUPP -1   /* not supported */
#define PFM_ERR_INVAL -2     /* invalid parameters */
#define PFM_ERR_NOINIT -3    /* library not initialized */
#define PFM_ERR_NOTFOUND -4  /* event not found */
#define PFM_ERR_FEATCOMB -5  /* invalid combination of features */
#define PFM_ERR_UMASK -6     /* invalid or missing unit mask */
#define PFM_ERR_NOMEM -7     /* out of memory */
#define PFM_ERR_ATTR -8      /* invalid event attribute */
#define PFM_ERR_ATTR_VAL -9  /* invalid event attribute value */
#define PFM_ERR_ATTR_SET -10 /* attribute value already set */
#define PFM_ERR_TOOMANY -11  /* too many parameters */
#define PFM_ERR_TOOSMALL -12 /* parameter is too small */

/* iterators */
#define pfm_for_each_event_attr(x, z) for ((x) = 0; (x) < (z)->nattrs; (x) = (x) + 1)
#define pfm_for_all_pmus(x) for ((x) = PFM_PMU_NONE; (x) < PFM_PMU_MAX; (x)++)

#ifdef __cplusplus
}
#endif
#endif
