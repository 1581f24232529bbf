/* Private interface of pmusim's IA-64 encoder core (Itanium 2, Montecito).
 *
 * The core works on the libpfm-3 parameter structures (include/libpfm3), so
 * the libpfm-3 face is a thin layer over it and the native face
 * (pmusim/encoder.h) fills the same structures from its options.  Register
 * layouts are documented in ../shared/reference/ia64-pmu.md (cited as REF §n).
 */
#ifndef PMUSIM_IA64_PRIV_H
#define PMUSIM_IA64_PRIV_H

#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>

#include <perfmon/pfmlib.h>
#include <perfmon/pfmlib_itanium2.h>
#include <perfmon/pfmlib_montecito.h>

/* Event kinds, as numbered in the event data files (REF §3.3). */
enum ia64_evt_type {
    IA64_EVT_NORMAL = 0,
    IA64_EVT_BRANCH = 1,      /* BTB (Itanium 2) / ETB (Montecito) virtual event */
    IA64_EVT_IEAR_TLB = 2,
    IA64_EVT_IEAR_CACHE = 3,
    IA64_EVT_DEAR_TLB = 4,
    IA64_EVT_DEAR_CACHE = 5,
    IA64_EVT_DEAR_ALAT = 6,
};

/* Qualifier bits of ia64_event_t.qual. */
enum ia64_evt_qual {
    IA64_Q_IARR = 0x1,   /* honours code-range restriction */
    IA64_Q_OPCM = 0x2,   /* honours opcode matching */
    IA64_Q_DARR = 0x4,   /* honours data-range restriction */
    IA64_Q_ALL = 0x8,    /* Montecito: may count for both threads */
    IA64_Q_MESI = 0x10,  /* Montecito: takes the I/S/E/M unit masks */
};

typedef struct ia64_event {
    const char *name;
    const char *desc;
    uint8_t code;      /* event select (PMC.es) */
    uint8_t type;      /* enum ia64_evt_type */
    uint8_t caf;       /* Montecito thread type, PFMLIB_MONT_EVT_* */
    uint8_t maxincr;   /* occurrences per cycle; thresholds are 0..maxincr-1 */
    uint16_t umask;
    uint16_t counters; /* bit n: PMCn may count the event */
    uint8_t qual;      /* enum ia64_evt_qual */
    int8_t group;      /* 0 none, 1 L1(D), 2 L2(D) */
    int8_t set;        /* -1 when group is 0 */
} ia64_event_t;

/* Generated tables (ia64_tables.c), in libpfm-3 index order. */
extern const ia64_event_t ia64_ita2_events[];
extern const size_t ia64_ita2_nevents;
extern const uint16_t ia64_ita2_by_name[];
extern const ia64_event_t ia64_mont_events[];
extern const size_t ia64_mont_nevents;
extern const uint16_t ia64_mont_by_name[];

typedef enum { IA64_MODEL_ITA2, IA64_MODEL_MONT } ia64_model_t;

typedef struct ia64_pmu {
    ia64_model_t model;
    int pmu_type;               /* PFMLIB_ITANIUM2_PMU / PFMLIB_MONTECITO_PMU */
    const char *pfm_name;       /* libpfm-3's PMU name */
    const ia64_event_t *events;
    const uint16_t *by_name;
    unsigned num_counters;
    unsigned num_pmcs, num_pmds;
} ia64_pmu_t;

extern const ia64_pmu_t ia64_pmu_ita2;
extern const ia64_pmu_t ia64_pmu_mont;

/* Number of events of the PMU. */
size_t ia64_nevents(const ia64_pmu_t *pmu);

/* Look up an event by exact name (case-insensitive; `len` bytes of `name`).
 * Returns the index or -1. */
int ia64_find_event(const ia64_pmu_t *pmu, const char *name, size_t len);

/* Number of unit masks of event idx (Montecito MESI events: 4). */
unsigned ia64_num_masks(const ia64_pmu_t *pmu, unsigned idx);

/* The whole of pfm_dispatch_events() for one PMU, including the generic
 * argument checks.  model_in/model_out point to the PMU's
 * pfmlib_{ita2,mont}_{input,output}_param_t or are NULL. */
int ia64_dispatch(const ia64_pmu_t *pmu, pfmlib_input_param_t *inp, void *model_in,
                  pfmlib_output_param_t *outp, void *model_out);

/* Text of a libpfm-3 error code. */
const char *ia64_strerror(int code);

#endif
