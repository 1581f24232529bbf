/* The two OS-generic PMUs of the libpfm-4 face: "perf" (the kernel's generic
 * perf_event events: hardware, software and hardware-cache) and "perf_raw"
 * (perf's rNNNN raw syntax).  Private to the libpfm-4 face (pfm4.c); the
 * tables and the parser are in pfm4_perf.c.  Behaviour follows libpfm-4 4.13
 * (docs/compat-x86.md, "perf and perf_raw"). */
#ifndef PMUSIM_PFM4_PERF_H
#define PMUSIM_PFM4_PERF_H

#include "x86_priv.h"

#define PFM4_PERF_PMU 0     /* "perf", libpfm-4 PFM_PMU_PERF_EVENT */
#define PFM4_PERF_RAW_PMU 1 /* "perf_raw", PFM_PMU_PERF_EVENT_RAW */
#define PFM4_OS_NPMUS 2

typedef struct pfm4_os_pmu {
    const char *name;
    const char *desc;
    int pfm_id;
    int nevents;
    int supported_plm; /* libpfm-4's PERF_PLM_ALL: PLM0 | PLM3 | PLMH */
} pfm4_os_pmu_t;
extern const pfm4_os_pmu_t pmusim_x86_os_pmus[PFM4_OS_NPMUS];

typedef struct pfm4_os_event {
    const char *name;
    const char *desc;
    const char *equiv; /* alias target ("EVENT[:UMASK:UMASK]"), or NULL */
    uint64_t code;     /* perf_event_attr.config before unit masks */
    int precise;       /* libpfm-4 flags it precise-capable */
} pfm4_os_event_t;

/* Event `ev` of OS PMU `pmu`; 0, or -1 when out of range. */
int pmusim_x86_os_event(int pmu, int ev, pfm4_os_event_t *out);

/* The attributes an event offers for an OS layer: unit masks first (attribute
 * index [0,nu)), then the perf_event attributes osattr[0..nos). */
typedef struct pfm4_os_pattrs {
    int nu;
    int nos;
    uint8_t osattr[X86_PERF_COUNT];
} pfm4_os_pattrs_t;
void pmusim_x86_os_pattrs(int pmu, int ev, x86_os_t os, pfm4_os_pattrs_t *pa);
/* Unit mask j (< nu) of event ev of "perf". */
void pmusim_x86_os_umask(int ev, int j, const char **name, const char **desc, uint64_t *code);

/* A parsed and encoded OS-PMU event string. */
typedef struct pfm4_os_desc {
    int pmu;
    int event;          /* event index (an alias's target) */
    uint32_t type;      /* perf_event_attr.type */
    uint64_t config;    /* perf_event_attr.config == codes[0] */
    pfm4_os_pattrs_t pa;
    int nattrs;
    x86_attr_t attrs[X86_MAX_ATTRS]; /* id: attribute index, as pa */
    char fstr[X86_FSTR_MAX];         /* canonical string without "pmu::" or OS attributes */
    char fstr_os[X86_FSTR_MAX];      /* the same for the perf_event layers */
} pfm4_os_desc_t;

/* Parse and encode `str` ("EVENT[:attr...]", no "pmu::") on OS PMU `pmu`:
 * PFM_ERR_NOTFOUND when the PMU has no such event, else the libpfm-4 error
 * of the attributes, or 0. */
int pmusim_x86_os_parse(int pmu, const char *str, x86_os_t os, pfm4_os_desc_t *d);

/* 0 if the by-name index of "perf" is sorted, -1 if not (table check). */
int pmusim_x86_os_check_order(void);

#endif
