/* Private interface of the x86 (Westmere / Knights Mill) encoder core.
 *
 * The tables are generated at build time by gen_tables.py from
 * encoder/data/x86/ (CSV files); this header only declares their shape and the core
 * entry points shared by the native face (x86_native.c) and the libpfm-4 face
 * (pfm4.c).  No GLib here: the libpfm-4 face must not need it.
 */
#ifndef PMUSIM_X86_PRIV_H
#define PMUSIM_X86_PRIV_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* libpfm-4 error values (perfmon/pfmlib.h of libpfm-4); duplicated here so the
 * core does not depend on the public header's include root. */
enum {
    X86_OK = 0,
    X86_ERR_NOTSUPP = -1,
    X86_ERR_INVAL = -2,
    X86_ERR_NOINIT = -3,
    X86_ERR_NOTFOUND = -4,
    X86_ERR_FEATCOMB = -5,
    X86_ERR_UMASK = -6,
    X86_ERR_NOMEM = -7,
    X86_ERR_ATTR = -8,
    X86_ERR_ATTR_VAL = -9,
    X86_ERR_ATTR_SET = -10,
    X86_ERR_TOOMANY = -11,
    X86_ERR_TOOSMALL = -12,
};
#define X86_NERR 13
/* Message of error `code` (0 or negative), libpfm-4's wording. */
const char *pmusim_x86_strerror(int code);

/* Event-level modifiers in libpfm-4's attribute order (after the umasks). */
typedef enum {
    X86_MOD_K = 0,   /* PERFEVTSEL bit 17 (OS) */
    X86_MOD_U = 1,   /* bit 16 (USR) */
    X86_MOD_E = 2,   /* bit 18 (edge) */
    X86_MOD_I = 3,   /* bit 23 (invert) */
    X86_MOD_C = 4,   /* bits 31:24 (counter mask) */
    X86_MOD_T = 5,   /* bit 21 (AnyThread) */
    X86_MOD_LDLAT = 6, /* MSR_PEBS_LD_LAT_THRESHOLD, second code */
    X86_MOD_COUNT = 7
} x86_mod_t;
#define X86_MODBIT(m) (1u << (m))
extern const char *const pmusim_x86_mod_names[X86_MOD_COUNT];
extern const char *const pmusim_x86_mod_descs[X86_MOD_COUNT];
int pmusim_x86_mod_is_bool(x86_mod_t m);

/* Event flags */
#define X86_EF_PEBS 0x1u     /* precise-capable */
#define X86_EF_OFFCORE 0x2u  /* OFFCORE_RESPONSE: umasks go to the extra MSR */
#define X86_EF_FIXED 0x4u    /* fixed-counter only pseudo event */
/* Umask flags */
#define X86_UF_NCOMBO 0x01u         /* no other umask of the same group */
#define X86_UF_DFL 0x02u            /* default of its group */
#define X86_UF_PEBS 0x04u
#define X86_UF_LDLAT 0x08u          /* load-latency umask (second code = ldlat) */
#define X86_UF_EXCL_GRP_GT 0x10u    /* forbids umasks of higher groups */
#define X86_UF_EXCL_GRP_BUT_0 0x20u /* only group 0 and its own group allowed */
#define X86_UF_GRP_DFL_NONE 0x40u   /* its group may stay empty */

/* PMU flags */
#define X86_PF_RAW_UMASK 0x1u /* EVENT:0xNN accepted */
#define X86_PF_ECMASK 0x2u    /* edge needs cmask >= 1 */
#define X86_PF_ANY_FIXED_ONLY 0x4u /* AnyThread only on the fixed counters (knl/knm) */

/* Privilege levels (libpfm PFM_PLM*) */
#define X86_PLM0 0x01
#define X86_PLM1 0x02
#define X86_PLM2 0x04
#define X86_PLM3 0x08
#define X86_PLMH 0x10
#define X86_PLM_ALL (X86_PLM0 | X86_PLM1 | X86_PLM2 | X86_PLM3 | X86_PLMH)

/* PERFEVTSEL bits (SDM Vol. 3B 18.2.1.1, reference/x86-pmu.md section 3) */
#define X86_SEL_USR (1ull << 16)
#define X86_SEL_OS (1ull << 17)
#define X86_SEL_EDGE (1ull << 18)
#define X86_SEL_INT (1ull << 20)
#define X86_SEL_ANY (1ull << 21)
#define X86_SEL_EN (1ull << 22)
#define X86_SEL_INV (1ull << 23)
#define X86_SEL_CMASK_SHIFT 24

typedef struct x86_umask {
    const char *name;
    const char *desc;
    const char *equiv;  /* alias: expansion "A:B:c=1" or NULL */
    uint64_t ucode;     /* register bits 63:8 in place (umask at 15:8) */
    uint8_t grpid;
    uint8_t flags;      /* X86_UF_* */
    uint8_t modhw;      /* X86_MODBIT() set of hard-wired modifiers */
    uint8_t models;     /* 0: every PMU of the table, else x86_pmu_t.model_bit set */
} x86_umask_t;

typedef struct x86_event {
    const char *name;
    const char *desc;
    const char *equiv;  /* alias: "EVENT[:umask...]" or NULL */
    uint32_t code;      /* bits 7:0 event select, 15:8 hard-wired umask */
    uint64_t cntmsk;    /* bit n: IA32_PMCn, bit 32+k: IA32_FIXED_CTRk */
    uint8_t modmsk;     /* X86_MODBIT() set of modifiers offered */
    uint8_t flags;      /* X86_EF_* */
    uint8_t ngrp;
    uint16_t first_umask; /* index into the table's umask array */
    uint16_t numasks;     /* all umasks of the table row (every model) */
} x86_event_t;

typedef struct x86_table {
    const char *name;
    const x86_event_t *events;
    uint16_t nevents;
    const x86_umask_t *umasks;
    const uint16_t *by_name; /* event indices sorted by lower-case name */
} x86_table_t;

/* An (event select, umask) that Intel's event lists allow on fewer general-
 * purpose counters than the table's counter mask says (generated from
 * sim/models/x86/counter-restrictions.csv; libpfm-4's tables do not have it:
 * MEM_INST_RETIRED:LATENCY_ABOVE_THRESHOLD is PMC3 only there). */
typedef struct x86_restrict {
    uint8_t code;
    uint8_t umask;
    uint32_t counters; /* bit n: IA32_PMCn may count it */
} x86_restrict_t;

typedef struct x86_pmu {
    const char *name;
    const char *desc;
    int pfm_id;         /* libpfm-4 pfm_pmu_t value */
    const x86_table_t *table;
    uint8_t model_bit;
    int num_cntrs;
    int num_fixed_cntrs;
    int max_encoding;
    unsigned flags;     /* X86_PF_* */
    int supported_plm;
    int cpu_family;
    const int *cpu_models; /* 0-terminated */
    int raw_umask_bits;
    int raw_umask_bits_offcore;
    const x86_restrict_t *restricts; /* sorted by (code, umask); NULL when none */
    int n_restricts;
} x86_pmu_t;

/* Generated (x86_tables.c): every PMU, in libpfm-4's PMU order. */
extern const x86_pmu_t *const pmusim_x86_pmus[];
extern const size_t pmusim_x86_npmus;
const x86_pmu_t *pmusim_x86_pmu_by_name(const char *name);
const x86_pmu_t *pmusim_x86_pmu_by_id(int pfm_id);

/* ---- parsing and encoding (x86_encode.c) ---- */

#define X86_MAX_ATTRS 64   /* as libpfm-4 PFMLIB_MAX_ATTRS */
#define X86_MAX_UMASKS 64  /* visible umasks of one event (knm offcore: 35) */
#define X86_FSTR_MAX 256   /* as libpfm-4 PFMLIB_EVT_MAX_NAME_LEN */

/* OS layer of an encoding request (libpfm-4 pfm_os_t): perf_event adds its
 * own attributes (u, k, mg, mh, period, ...) and takes u/k from the PMU. */
typedef enum { X86_OS_NONE = 0, X86_OS_PERF = 1, X86_OS_PERF_EXT = 2 } x86_os_t;

/* perf_event attributes, libpfm-4 numbering (code of the attribute) */
typedef enum {
    X86_PERF_U = 0, X86_PERF_K, X86_PERF_H, X86_PERF_PERIOD, X86_PERF_FREQ, X86_PERF_PRECISE,
    X86_PERF_EXCL, X86_PERF_MG, X86_PERF_MH, X86_PERF_CPU, X86_PERF_PINNED, X86_PERF_HW_SMPL,
    X86_PERF_COUNT
} x86_perf_attr_t;
extern const char *const pmusim_x86_perf_names[X86_PERF_COUNT];
extern const char *const pmusim_x86_perf_descs[X86_PERF_COUNT];
int pmusim_x86_perf_is_bool(x86_perf_attr_t a);

typedef struct x86_attr {
    int id;        /* pattr index: [0,nu) umask, then modifiers, then OS attrs, then raw */
    uint64_t ival;
} x86_attr_t;

/* The next ':'- or '.'-separated token of *sp (cut in place; *sp NULL after
 * the last), or NULL when none is left. */
static inline char *pmusim_x86_split(char **sp)
{
    char *tok = *sp;
    if (!tok)
        return NULL;
    char *end = tok + strcspn(tok, ":."); /* (vectorised in libc) */
    if (*end) {
        *end = '\0';
        *sp = end + 1;
    } else {
        *sp = NULL;
    }
    return tok;
}

/* strcasecmp() == 0 in the C locale, inlined: names are ASCII. */
static inline int pmusim_x86_lower(int c)
{
    return (c >= 'A' && c <= 'Z') ? c + ('a' - 'A') : c;
}

static inline int pmusim_x86_name_eq(const char *a, const char *b)
{
    for (;; a++, b++) {
        int x = pmusim_x86_lower((unsigned char)*a), y = pmusim_x86_lower((unsigned char)*b);
        if (x != y)
            return 0;
        if (!x)
            return 1;
    }
}

/* An attribute's value as libpfm-4's parser reads it: v NULL for a bare
 * "name" (allowed for booleans only), booleans one of y/t/1/n/f/0, integers
 * strtoull base 0 filling the string.  X86_OK or X86_ERR_ATTR_VAL. */
int pmusim_x86_attr_value(const char *v, int is_bool, uint64_t *ival);
/* Drops exact duplicate attributes (libpfm-4's walk, see x86_encode.c);
 * one attribute with two values is X86_ERR_ATTR_SET. */
int pmusim_x86_attrs_sanitize(x86_attr_t *attrs, int *nattrs);

struct x86_names; /* lookup data of a PMU (x86_encode.c) */

typedef struct x86_desc {
    const x86_pmu_t *pmu;
    const struct x86_names *names; /* set with the pattrs; NULL: plain loops */
    int event;                     /* table index of the encoded event */
    int nu;                        /* visible umasks of `event` */
    uint16_t umask[X86_MAX_UMASKS];/* their table indices, pattr order */
    int nmods;
    uint8_t mod[X86_MOD_COUNT];    /* pattr nu+j is modifier mod[j] */
    x86_os_t os;
    int nos;
    uint8_t osattr[X86_PERF_COUNT];/* pattr nu+nmods+j is perf attribute osattr[j] */
    uint64_t raw;                  /* raw umask value (pattr npattrs) */
    int no_fstr;                   /* 1: pmusim_x86_encode() leaves fstr empty */
    uint64_t idseen[2];            /* parse: attribute ids met (bit id) */
    int iddup;                     /* parse: an id met twice (or >= 128) */
    int nattrs;
    x86_attr_t attrs[X86_MAX_ATTRS];
    int count;
    uint64_t codes[2];
    unsigned ldlat;                /* ldlat value used (0 if none) */
    size_t flen;                   /* strlen(fstr) */
    char fstr[X86_FSTR_MAX];       /* canonical string without "pmu::" */
} x86_desc_t;

static inline int x86_desc_npattrs(const x86_desc_t *d) { return d->nu + d->nmods + d->nos; }

/* Which PMUs a string without (or with) a "pmu::" prefix may name. */
typedef struct x86_pmu_filter {
    /* called for each PMU in order; return 1 if `pmu` may be used.
     * `named` says whether the string had a pmu:: prefix (already matched). */
    int (*usable)(const x86_pmu_t *pmu, int named, void *ctx);
    void *ctx;
} x86_pmu_filter_t;

/* Attributes of event `ev` on `pmu` for OS layer `os`: visible umasks, PMU
 * modifiers (without u/k under perf_event), perf_event attributes. */
void pmusim_x86_desc_build_pattrs(x86_desc_t *d, const x86_pmu_t *pmu, int ev, x86_os_t os);
/* Is the event precise-capable (event flag or any visible umask)? */
int pmusim_x86_event_has_pebs(const x86_pmu_t *pmu, int ev);
int pmusim_x86_umask_visible(const x86_pmu_t *pmu, const x86_umask_t *um);
/* Find an event by name (case-insensitive) in a PMU's table; -1 if none. */
int pmusim_x86_find_event(const x86_pmu_t *pmu, const char *name);

/* Parse `str` as libpfm-4 does for OS layer `os`; fills d (attrs, event, pmu). */
int pmusim_x86_parse(const char *str, const x86_pmu_filter_t *filter, x86_os_t os, x86_desc_t *d);
/* Encode a parsed event (pfm_intel_x86_encode_gen semantics). */
int pmusim_x86_encode(x86_desc_t *d, int dfl_plm);
/* Both, for one PMU only (a "pmu::" prefix must name it). */
int pmusim_x86_encode_str(const x86_pmu_t *pmu, const char *str, int dfl_plm, x86_desc_t *d);

/* Does the umask at table index `ui` of event `ev` have flag f? */
static inline const x86_umask_t *x86_um(const x86_pmu_t *pmu, int ev, int ui)
{
    return &pmu->table->umasks[pmu->table->events[ev].first_umask + ui];
}

#endif
