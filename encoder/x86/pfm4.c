/* libpfm-4 face: perfmon/pfmlib.h and perfmon/pfmlib_perf_event.h on top of
 * the x86 encoder core (x86_encode.c).
 *
 * PMU activation follows libpfm-4's pfm_initialize(): a PMU is *active* when
 * detected on the host or forced with LIBPFM_FORCE_PMU.  pmusim never detects
 * its PMUs on the host (they are simulated), so without LIBPFM_FORCE_PMU all
 * are inactive: pfm_get_pmu_info() describes them with is_present = 0 and an
 * event string naming one ("wsm::...") is not found, exactly as libpfm-4
 * behaves on a machine without that CPU -- unless LIBPFM_ENCODE_INACTIVE=1,
 * which lets named inactive PMUs encode.  LIBPFM_FORCE_PMU=NAME activates the
 * first PMU whose name starts with NAME and stops there, so PMUs after it in
 * libpfm's order are not initialized (pfm_get_pmu_info() does not know
 * them).  LIBPFM_DISABLED_PMUS lists PMUs to skip.  See docs/compat-x86.md.
 *
 * After the x86 PMUs come libpfm-4's OS-generic PMUs perf and perf_raw
 * (pfm4_perf.c), which are always "detected" (their encodings do not depend
 * on the host).  An event string without "pmu::" is looked up on the active
 * x86 PMUs first, then on perf and perf_raw, as libpfm-4 walks its list.
 */
#include <perfmon/pfmlib.h>
#include <perfmon/pfmlib_perf_event.h>

#include "pfm4_perf.h"
#include "x86_priv.h"

#include <ctype.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define PMU_SHIFT 21       /* event index: PMU id in bits 30:21, table index below */
#define PMU_MASK 0x3ff
#define PIDX_MASK ((1 << PMU_SHIFT) - 1)
#define MAX_X86_PMUS 8

_Static_assert(PFM_SUCCESS == X86_OK && PFM_ERR_TOOSMALL == X86_ERR_TOOSMALL &&
                   PFM_ERR_FEATCOMB == X86_ERR_FEATCOMB && PFM_ERR_ATTR_SET == X86_ERR_ATTR_SET,
               "core error values must be libpfm-4's");
_Static_assert(PFM_PLM0 == X86_PLM0 && PFM_PLM3 == X86_PLM3 && PFM_PLMH == X86_PLMH,
               "privilege bits must be libpfm-4's");
_Static_assert((int)PFM_OS_PERF_EVENT == (int)X86_OS_PERF &&
                   (int)PFM_OS_PERF_EVENT_EXT == (int)X86_OS_PERF_EXT,
               "OS layers must be libpfm-4's");
_Static_assert(sizeof(pfm_pmu_encode_arg_t) == PFM_RAW_ENCODE_ABI0, "pfm_pmu_encode_arg_t ABI");
_Static_assert(sizeof(pfm_perf_encode_arg_t) == PFM_PERF_ENCODE_ABI0, "pfm_perf_encode_arg_t ABI");
_Static_assert(sizeof(pfm_pmu_info_t) == PFM_PMU_INFO_ABI0, "pfm_pmu_info_t ABI");
_Static_assert(sizeof(pfm_event_info_t) == PFM_EVENT_INFO_ABI0, "pfm_event_info_t ABI");
_Static_assert(sizeof(pfm_event_attr_info_t) == PFM_ATTR_INFO_ABI0, "pfm_event_attr_info_t ABI");

static struct {
    int initdone;
    int initret;
    int inactive;           /* LIBPFM_ENCODE_INACTIVE */
    const char *forced;     /* LIBPFM_FORCE_PMU */
    const char *disabled;   /* LIBPFM_DISABLED_PMUS */
    /* slots [0, MAX_X86_PMUS): the x86 PMUs; then perf and perf_raw */
    unsigned char init[MAX_X86_PMUS + PFM4_OS_NPMUS];   /* initialized: pfm_get_pmu_info() knows it */
    unsigned char active[MAX_X86_PMUS + PFM4_OS_NPMUS]; /* detected or forced */
} cfg;

_Static_assert(MAX_X86_PMUS >= 4, "room for the generated PMU list");
#define OS_SLOT(k) (MAX_X86_PMUS + (k))

/* OS PMU (PFM4_PERF_PMU, ...) with libpfm-4 identifier `id`, or -1. */
static int os_pmu_by_id(int id)
{
    for (int k = 0; k < PFM4_OS_NPMUS; k++)
        if (pmusim_x86_os_pmus[k].pfm_id == id)
            return k;
    return -1;
}

static int initialized(void)
{
    return cfg.initdone && cfg.initret == PFM_SUCCESS;
}

static int pmu_index(const x86_pmu_t *pmu)
{
    for (size_t i = 0; i < pmusim_x86_npmus && i < MAX_X86_PMUS; i++)
        if (pmusim_x86_pmus[i] == pmu)
            return (int)i;
    return -1;
}

static int forced_match(const char *name)
{
    const char *comma = strchr(cfg.forced, ',');
    size_t l = comma ? (size_t)(comma - cfg.forced) : strlen(cfg.forced);
    return strncasecmp(name, cfg.forced, l) == 0;
}

static int disabled(const char *name)
{
    if (!cfg.disabled)
        return 0;
    char *buf = strdup(cfg.disabled), *save = NULL;
    int hit = 0;
    if (!buf)
        return 0;
    for (char *q = strtok_r(buf, ",", &save); q && !hit; q = strtok_r(NULL, ",", &save))
        hit = strstr(name, q) != NULL;
    free(buf);
    return hit;
}

static int env_digit(const char *var)
{
    const char *s = getenv(var);
    return (s && isdigit((unsigned char)*s)) ? *s - '0' : 0;
}

/* Initialize (and activate, if detected or forced) the PMU in `slot`; 1 when
 * it was the forced PMU: libpfm-4 initializes no PMU after that one. */
static int consider_pmu(const char *name, int detected, int slot)
{
    int found = cfg.forced ? forced_match(name) : detected;
    if (disabled(name))
        return 0;
    cfg.init[slot] = 1;
    if (!found)
        return 0;
    cfg.active[slot] = 1;
    return cfg.forced != NULL;
}

pfm_err_t pfm_initialize(void)
{
    if (cfg.initdone)
        return cfg.initret;
    memset(cfg.init, 0, sizeof cfg.init);
    memset(cfg.active, 0, sizeof cfg.active);
    cfg.inactive = env_digit("LIBPFM_ENCODE_INACTIVE");
    cfg.forced = getenv("LIBPFM_FORCE_PMU");
    cfg.disabled = getenv("LIBPFM_DISABLED_PMUS");
    /* libpfm-4's PMU order: the x86 PMUs, then perf and perf_raw */
    int stop = 0;
    for (size_t i = 0; i < pmusim_x86_npmus && i < MAX_X86_PMUS && !stop; i++)
        stop = consider_pmu(pmusim_x86_pmus[i]->name, 0, (int)i); /* never the host */
    for (int k = 0; k < PFM4_OS_NPMUS && !stop; k++)
        stop = consider_pmu(pmusim_x86_os_pmus[k].name, 1, OS_SLOT(k)); /* always "detected" */
    cfg.initdone = 1;
    cfg.initret = PFM_SUCCESS;
    return PFM_SUCCESS;
}

void pfm_terminate(void)
{
    if (!initialized())
        return;
    cfg.initdone = 0;
    memset(cfg.active, 0, sizeof cfg.active);
}

const char *pfm_strerror(int code)
{
    return pmusim_x86_strerror(code);
}

int pfm_get_version(void)
{
    return LIBPFM_VERSION;
}

/* Which PMUs an event string may use.  Without a "pmu::" prefix: active
 * PMUs only.  With one: an active PMU, or any PMU of the library when
 * LIBPFM_ENCODE_INACTIVE=1 -- even one left uninitialized by
 * LIBPFM_FORCE_PMU or disabled by LIBPFM_DISABLED_PMUS, as the installed
 * libpfm-4 4.13 does (it walks every PMU it knows; later revisions walk a list
 * of initialized PMUs only, docs/compat-x86.md). */
static int slot_usable(int slot, int named)
{
    if (slot < 0)
        return 0;
    if (cfg.active[slot])
        return 1;
    return named && cfg.inactive;
}

static int usable(const x86_pmu_t *pmu, int named, void *ctx)
{
    (void)ctx;
    return slot_usable(pmu_index(pmu), named);
}

static const x86_pmu_filter_t filter = { .usable = usable };

static int make_id_idx(int pfm_id, int pidx)
{
    return (pfm_id << PMU_SHIFT) | pidx;
}

static int make_idx(const x86_pmu_t *pmu, int pidx)
{
    return make_id_idx(pmu->pfm_id, pidx);
}

/* An event index decoded: an x86 PMU's event, or an OS PMU's (os >= 0). */
typedef struct {
    const x86_pmu_t *x86;
    int os;
    int pidx;
} evref_t;

static int decode_idx(int idx, evref_t *ref)
{
    if (!initialized() || idx < 0)
        return 0;
    int id = (idx >> PMU_SHIFT) & PMU_MASK;
    ref->pidx = idx & PIDX_MASK;
    ref->x86 = NULL;
    ref->os = os_pmu_by_id(id);
    if (ref->os >= 0)
        return cfg.init[OS_SLOT(ref->os)] && ref->pidx < pmusim_x86_os_pmus[ref->os].nevents;
    const x86_pmu_t *pmu = pmusim_x86_pmu_by_id(id);
    if (!pmu || !cfg.init[pmu_index(pmu)])
        return 0;
    if (ref->pidx >= pmu->table->nevents)
        return 0;
    ref->x86 = pmu;
    return 1;
}

/* libpfm-4's struct versioning: size 0 means ABI0; smaller than ABI0 is an
 * error; a larger struct must have zeroes past the part we know. */
static size_t check_struct(const void *st, size_t usz, size_t refsz, size_t sz)
{
    if (usz == 0)
        usz = refsz;
    if (usz < refsz)
        return 0;
    if (usz > sz) {
        const char *p = (const char *)st + sz, *end = (const char *)st + usz;
        while (p != end)
            if (*p++)
                return 0;
    }
    return sz;
}

/* A parsed event string: on an x86 PMU (os_pmu < 0) or on perf/perf_raw. */
typedef struct {
    int os_pmu;
    x86_desc_t x;
    pfm4_os_desc_t o;
} parsed_t;

static int is_os_pmu_name(const char *s, size_t len)
{
    for (int k = 0; k < PFM4_OS_NPMUS; k++) {
        const char *n = pmusim_x86_os_pmus[k].name;
        if (strlen(n) == len && strncasecmp(n, s, len) == 0)
            return k;
    }
    return -1;
}

/* libpfm-4's search: a "pmu::" prefix names the PMU; without one the active
 * PMUs are tried in libpfm-4's order (the x86 PMUs, then perf, then
 * perf_raw) and the first that has the event name decides. */
static int parse_any(const char *str, x86_os_t os, parsed_t *p)
{
    p->os_pmu = -1;
    if (!str)
        return PFM_ERR_INVAL;
    /* "perf::" / "perf_raw::": only strings starting with p need the look
     * (the x86 strings of the hot path skip it) */
    if (str[0] == 'p' || str[0] == 'P') {
        const char *sep = strstr(str, "::");
        int k = sep ? is_os_pmu_name(str, (size_t)(sep - str)) : -1;
        if (k >= 0) {
            if (strpbrk(str, ", \t\n"))
                return PFM_ERR_INVAL;
            if (!slot_usable(OS_SLOT(k), 1))
                return PFM_ERR_NOTFOUND;
            p->os_pmu = k;
            return pmusim_x86_os_parse(k, sep + 2, os, &p->o);
        }
    }
    /* an x86 PMU's (the x86 parser refuses blanks and commas itself) */
    int r = pmusim_x86_parse(str, &filter, os, &p->x);
    if (r != PFM_ERR_NOTFOUND || strstr(str, "::"))
        return r;
    /* no prefix: perf, then perf_raw, if active */
    for (int k = 0; k < PFM4_OS_NPMUS; k++) {
        if (!slot_usable(OS_SLOT(k), 0))
            continue;
        p->os_pmu = k;
        r = pmusim_x86_os_parse(k, str, os, &p->o);
        if (r != PFM_ERR_NOTFOUND)
            return r;
    }
    p->os_pmu = -1;
    return PFM_ERR_NOTFOUND;
}

static int parsed_idx(const parsed_t *p)
{
    if (p->os_pmu >= 0)
        return make_id_idx(pmusim_x86_os_pmus[p->os_pmu].pfm_id, p->o.event);
    return make_idx(p->x.pmu, p->x.event);
}

int pfm_find_event(const char *str)
{
    parsed_t p;
    if (!initialized())
        return PFM_ERR_NOINIT;
    if (!str)
        return PFM_ERR_INVAL;
    int r = parse_any(str, X86_OS_NONE, &p);
    return r ? r : parsed_idx(&p);
}

int pfm_get_event_next(int idx)
{
    evref_t ref;
    if (!decode_idx(idx, &ref))
        return -1;
    if (ref.os >= 0) {
        const pfm4_os_pmu_t *op = &pmusim_x86_os_pmus[ref.os];
        return ref.pidx + 1 < op->nevents ? make_id_idx(op->pfm_id, ref.pidx + 1) : -1;
    }
    if (ref.pidx + 1 >= ref.x86->table->nevents)
        return -1;
    return make_idx(ref.x86, ref.pidx + 1);
}

int pfm_get_event_first(void)
{
    if (!initialized())
        return -1;
    for (size_t i = 0; i < pmusim_x86_npmus && i < MAX_X86_PMUS; i++)
        if (cfg.active[i] && pmusim_x86_pmus[i]->table->nevents)
            return make_idx(pmusim_x86_pmus[i], 0);
    for (int k = 0; k < PFM4_OS_NPMUS; k++)
        if (cfg.active[OS_SLOT(k)])
            return make_id_idx(pmusim_x86_os_pmus[k].pfm_id, 0);
    return -1;
}

pfm_err_t pfm_get_pmu_info(pfm_pmu_t pmuid, pfm_pmu_info_t *uinfo)
{
    pfm_pmu_info_t info;
    if (!initialized())
        return PFM_ERR_NOINIT;
    if ((unsigned)pmuid >= PFM_PMU_MAX)
        return PFM_ERR_INVAL;
    if (!uinfo)
        return PFM_ERR_INVAL;
    size_t sz = check_struct(uinfo, uinfo->size, PFM_PMU_INFO_ABI0, sizeof info);
    if (!sz)
        return PFM_ERR_INVAL;
    memset(&info, 0, sizeof info);
    int k = os_pmu_by_id((int)pmuid);
    if (k >= 0) {
        const pfm4_os_pmu_t *op = &pmusim_x86_os_pmus[k];
        if (!cfg.init[OS_SLOT(k)])
            return PFM_ERR_NOTSUPP;
        info.name = op->name;
        info.desc = op->desc;
        info.type = PFM_PMU_TYPE_OS_GENERIC;
        info.max_encoding = 1;
        info.first_event = make_id_idx(op->pfm_id, 0);
        info.nevents = op->nevents;
        info.is_present = cfg.active[OS_SLOT(k)];
    } else {
        const x86_pmu_t *pmu = pmusim_x86_pmu_by_id((int)pmuid);
        if (!pmu || !cfg.init[pmu_index(pmu)])
            return PFM_ERR_NOTSUPP;
        info.name = pmu->name;
        info.desc = pmu->desc;
        info.type = PFM_PMU_TYPE_CORE;
        info.max_encoding = pmu->max_encoding;
        info.num_cntrs = pmu->num_cntrs;
        info.num_fixed_cntrs = pmu->num_fixed_cntrs;
        info.first_event = pmu->table->nevents ? make_idx(pmu, 0) : -1;
        info.nevents = pmu->table->nevents;
        info.is_present = cfg.active[pmu_index(pmu)];
    }
    info.pmu = pmuid;
    info.size = sz;
    info.is_dfl = 0;
    memcpy(uinfo, &info, sz);
    return PFM_SUCCESS;
}

pfm_err_t pfm_get_event_info(int idx, pfm_os_t os, pfm_event_info_t *uinfo)
{
    pfm_event_info_t info;
    evref_t ref;
    if (!initialized())
        return PFM_ERR_NOINIT;
    if ((unsigned)os >= PFM_OS_MAX)
        return PFM_ERR_INVAL;
    if (!decode_idx(idx, &ref) || !uinfo)
        return PFM_ERR_INVAL;
    size_t sz = check_struct(uinfo, uinfo->size, PFM_EVENT_INFO_ABI0, sizeof info);
    if (!sz)
        return PFM_ERR_INVAL;
    memset(&info, 0, sizeof info);
    if (ref.os >= 0) {
        pfm4_os_event_t e;
        pfm4_os_pattrs_t pa;
        pmusim_x86_os_event(ref.os, ref.pidx, &e);
        pmusim_x86_os_pattrs(ref.os, ref.pidx, (x86_os_t)os, &pa);
        info.name = e.name;
        info.desc = e.desc;
        info.equiv = e.equiv;
        info.code = e.code;
        info.pmu = (pfm_pmu_t)pmusim_x86_os_pmus[ref.os].pfm_id;
        info.nattrs = pa.nu + pa.nos;
        info.is_precise = (unsigned)e.precise;
    } else {
        const x86_pmu_t *pmu = ref.x86;
        const x86_event_t *e = &pmu->table->events[ref.pidx];
        x86_desc_t d;
        pmusim_x86_desc_build_pattrs(&d, pmu, ref.pidx, (x86_os_t)os);
        info.name = e->name;
        info.desc = e->desc;
        info.equiv = e->equiv;
        info.code = e->code;
        info.pmu = (pfm_pmu_t)pmu->pfm_id;
        info.nattrs = x86_desc_npattrs(&d);
        info.is_precise = !!(e->flags & X86_EF_PEBS);
    }
    info.size = sz;
    info.dtype = PFM_DTYPE_UINT64;
    info.idx = idx;
    info.support_hw_smpl = info.is_precise;
    info.is_speculative = PFM_EVENT_INFO_SPEC_NA;
    memcpy(uinfo, &info, sz);
    return PFM_SUCCESS;
}

static void perf_attr_info(x86_perf_attr_t p, pfm_event_attr_info_t *a)
{
    a->name = pmusim_x86_perf_names[p];
    a->desc = pmusim_x86_perf_descs[p];
    a->code = (uint64_t)p;
    a->type = pmusim_x86_perf_is_bool(p) ? PFM_ATTR_MOD_BOOL : PFM_ATTR_MOD_INTEGER;
    a->ctrl = PFM_ATTR_CTRL_PERF_EVENT;
}

pfm_err_t pfm_get_event_attr_info(int idx, int aidx, pfm_os_t os, pfm_event_attr_info_t *uinfo)
{
    evref_t ref;
    if (!initialized())
        return PFM_ERR_NOINIT;
    if (aidx < 0)
        return PFM_ERR_INVAL;
    if ((unsigned)os >= PFM_OS_MAX)
        return PFM_ERR_INVAL;
    if (!decode_idx(idx, &ref) || !uinfo)
        return PFM_ERR_INVAL;
    size_t sz = check_struct(uinfo, uinfo->size, PFM_ATTR_INFO_ABI0, sizeof *uinfo);
    if (!sz)
        return PFM_ERR_INVAL;
    pfm_event_attr_info_t a;
    memset(&a, 0, sizeof a);
    if (ref.os >= 0) {
        pfm4_os_pattrs_t pa;
        pmusim_x86_os_pattrs(ref.os, ref.pidx, (x86_os_t)os, &pa);
        if (aidx >= pa.nu + pa.nos)
            return PFM_ERR_INVAL;
        if (aidx < pa.nu) {
            pmusim_x86_os_umask(ref.pidx, aidx, &a.name, &a.desc, &a.code);
            a.type = PFM_ATTR_UMASK;
            a.ctrl = PFM_ATTR_CTRL_PMU;
            /* libpfm-4 reports is_dfl = 0 for READ and MISS too */
        } else {
            perf_attr_info((x86_perf_attr_t)pa.osattr[aidx - pa.nu], &a);
        }
    } else {
        const x86_pmu_t *pmu = ref.x86;
        int pidx = ref.pidx;
        x86_desc_t d;
        pmusim_x86_desc_build_pattrs(&d, pmu, pidx, (x86_os_t)os);
        if (aidx >= x86_desc_npattrs(&d))
            return PFM_ERR_INVAL;
        if (aidx < d.nu) {
            const x86_umask_t *um = x86_um(pmu, pidx, d.umask[aidx]);
            a.name = um->name;
            a.desc = um->desc;
            a.equiv = um->equiv;
            a.code = um->ucode >> 8;
            a.type = PFM_ATTR_UMASK;
            a.ctrl = PFM_ATTR_CTRL_PMU;
            a.is_dfl = !!(um->flags & X86_UF_DFL);
            a.is_precise = !!(um->flags & X86_UF_PEBS);
            a.support_hw_smpl = a.is_precise;
        } else if (aidx < d.nu + d.nmods) {
            x86_mod_t m = (x86_mod_t)d.mod[aidx - d.nu];
            a.name = pmusim_x86_mod_names[m];
            a.desc = pmusim_x86_mod_descs[m];
            a.code = (uint64_t)m;
            a.type = pmusim_x86_mod_is_bool(m) ? PFM_ATTR_MOD_BOOL : PFM_ATTR_MOD_INTEGER;
            a.ctrl = PFM_ATTR_CTRL_PMU;
        } else {
            perf_attr_info((x86_perf_attr_t)d.osattr[aidx - d.nu - d.nmods], &a);
        }
    }
    a.size = sz;
    a.idx = aidx;
    a.is_speculative = PFM_EVENT_INFO_SPEC_NA;
    memcpy(uinfo, &a, sz < sizeof a ? sz : sizeof a);
    return PFM_SUCCESS;
}

/* "pmu::" + base (+ nothing else): the canonical string, malloc'ed. */
static int build_fstr_n(const char *pmu_name, const char *base, size_t fl, char **fstr)
{
    if (!fstr)
        return PFM_SUCCESS;
    size_t pl = 0;
    while (pmu_name[pl]) /* (a few letters: no strlen() call) */
        pl++;
    char *s = malloc(pl + 2 + fl + 1);
    if (!s)
        return PFM_ERR_NOMEM;
    for (size_t i = 0; i < pl; i++)
        s[i] = pmu_name[i];
    s[pl] = ':';
    s[pl + 1] = ':';
    memcpy(s + pl + 2, base, fl + 1);
    *fstr = s;
    return PFM_SUCCESS;
}

static int build_fstr(const char *pmu_name, const char *base, char **fstr)
{
    return build_fstr_n(pmu_name, base, strlen(base), fstr);
}

static int encode_raw(const char *str, int dfl_plm, pfm_pmu_encode_arg_t *uarg)
{
    pfm_pmu_encode_arg_t arg;
    parsed_t p;
    size_t sz = check_struct(uarg, uarg->size, PFM_RAW_ENCODE_ABI0, sizeof arg);
    if (!sz)
        return PFM_ERR_INVAL;
    memset(&arg, 0, sizeof arg);
    memcpy(&arg, uarg, sz);
    int r = parse_any(str, X86_OS_NONE, &p);
    if (r)
        return r;
    const uint64_t *codes;
    int count;
    const char *pmu_name, *base;
    size_t blen;
    if (p.os_pmu >= 0) {
        codes = &p.o.config;
        count = 1;
        pmu_name = pmusim_x86_os_pmus[p.os_pmu].name;
        base = p.o.fstr;
        blen = strlen(base);
    } else {
        p.x.no_fstr = arg.fstr == NULL; /* (not asked for: not built) */
        r = pmusim_x86_encode(&p.x, dfl_plm);
        if (r)
            return r;
        codes = p.x.codes;
        count = p.x.count;
        pmu_name = p.x.pmu->name;
        base = p.x.fstr;
        blen = p.x.flen;
    }
    arg.idx = parsed_idx(&p);
    int allocated = 0;
    if (arg.codes == NULL) {
        arg.codes = malloc(sizeof(uint64_t) * (size_t)count);
        if (!arg.codes)
            return PFM_ERR_NOMEM;
        allocated = 1;
    } else if (arg.count < count) {
        return PFM_ERR_TOOSMALL;
    }
    arg.count = count;
    for (int i = 0; i < count; i++)
        arg.codes[i] = codes[i];
    if (arg.fstr) {
        r = build_fstr_n(pmu_name, base, blen, arg.fstr);
        if (r) {
            if (allocated)
                free(arg.codes);
            return r;
        }
    }
    memcpy(uarg, &arg, sz);
    return PFM_SUCCESS;
}

/* The perf_event attributes of one encoding request: which the event offers
 * (osattr[0..nos), in canonical-string order) and which the string set
 * (attrs whose id is in [base, base + nos)). */
typedef struct {
    int nos;
    const uint8_t *osattr;
    int base;
    int nattrs;
    const x86_attr_t *attrs;
    int supported_plm;
} os_attrs_t;

/* Apply the perf_event attributes to *attr (privilege levels from u/k/h or
 * dfl_plm, sampling, guest/host) and append ":name=value" for each offered
 * attribute to f (X86_FSTR_MAX bytes) when f is not NULL. */
static int apply_os_attrs(const os_attrs_t *o, int dfl_plm, struct perf_event_attr *attr,
                          int *cpu_out, char *f)
{
    int plm = 0, has_plm = 0, vmx_plm = 0, has_vmx = 0, cpu = -1, pinned = 0;
    for (int k = 0; k < o->nattrs; k++) {
        int id = o->attrs[k].id;
        if (id < o->base || id >= o->base + o->nos)
            continue;
        uint64_t v = o->attrs[k].ival;
        switch ((x86_perf_attr_t)o->osattr[id - o->base]) {
        case X86_PERF_U:
            if (v)
                plm |= PFM_PLM3;
            has_plm = 1;
            break;
        case X86_PERF_K:
            if (v)
                plm |= PFM_PLM0;
            has_plm = 1;
            break;
        case X86_PERF_H:
            if (v)
                plm |= PFM_PLMH;
            has_plm = 1;
            break;
        case X86_PERF_PERIOD:
            if (!v || attr->freq)
                return PFM_ERR_ATTR_VAL;
            attr->sample_period = v;
            break;
        case X86_PERF_FREQ:
            if (!v || attr->sample_period)
                return PFM_ERR_ATTR_VAL;
            attr->sample_freq = v;
            attr->freq = 1;
            break;
        case X86_PERF_PRECISE:
            if (v > 3)
                return PFM_ERR_ATTR_VAL;
            attr->precise_ip = v & 3;
            break;
        case X86_PERF_EXCL:
            if (v && !attr->exclusive)
                attr->exclusive = 1;
            break;
        case X86_PERF_MG:
            vmx_plm |= PFM_PLM3; /* libpfm-4 sets it whatever the value */
            has_vmx = 1;
            break;
        case X86_PERF_MH:
            vmx_plm |= PFM_PLM0;
            has_vmx = 1;
            break;
        case X86_PERF_CPU:
            if (v >= INT_MAX)
                return PFM_ERR_ATTR_VAL;
            cpu = (int)v;
            break;
        case X86_PERF_PINNED:
            pinned = !!v;
            break;
        case X86_PERF_HW_SMPL:
            attr->precise_ip = !!v;
            break;
        case X86_PERF_COUNT:
            break;
        }
    }
    if (!has_plm)
        plm = dfl_plm;
    if (!has_vmx)
        vmx_plm = PFM_PLM0; /* exclude guests by default */
    const int unsupported = ~o->supported_plm & (PFM_PLM0 | PFM_PLM1 | PFM_PLM2 | PFM_PLM3 | PFM_PLMH);
    plm |= unsupported;
    vmx_plm |= unsupported;
    attr->exclude_user = !(plm & PFM_PLM3);
    attr->exclude_kernel = !(plm & PFM_PLM0);
    attr->exclude_hv = !(plm & PFM_PLMH);
    attr->exclude_guest = !(vmx_plm & PFM_PLM3);
    attr->exclude_host = !(vmx_plm & PFM_PLM0);
    attr->pinned = (unsigned)pinned;
    *cpu_out = cpu;

    if (!f)
        return PFM_SUCCESS;
    for (int j = 0; j < o->nos; j++) {
        char tmp[64] = "";
        const char *nm = pmusim_x86_perf_names[o->osattr[j]];
        switch ((x86_perf_attr_t)o->osattr[j]) {
        case X86_PERF_K:
            snprintf(tmp, sizeof tmp, ":%s=%d", nm, !!(plm & PFM_PLM0));
            break;
        case X86_PERF_U:
            snprintf(tmp, sizeof tmp, ":%s=%d", nm, !!(plm & PFM_PLM3));
            break;
        case X86_PERF_H:
            snprintf(tmp, sizeof tmp, ":%s=%d", nm, !!(plm & PFM_PLMH));
            break;
        case X86_PERF_PRECISE:
        case X86_PERF_HW_SMPL:
            snprintf(tmp, sizeof tmp, ":%s=%d", nm, (int)attr->precise_ip);
            break;
        case X86_PERF_PERIOD:
        case X86_PERF_FREQ:
            /* period and freq share one field of perf_event_attr */
            if (attr->sample_period)
                snprintf(tmp, sizeof tmp, ":%s=%llu", nm, (unsigned long long)attr->sample_period);
            break;
        case X86_PERF_MG:
            snprintf(tmp, sizeof tmp, ":%s=%d", nm, !attr->exclude_guest);
            break;
        case X86_PERF_MH:
            snprintf(tmp, sizeof tmp, ":%s=%d", nm, !attr->exclude_host);
            break;
        case X86_PERF_EXCL:
            snprintf(tmp, sizeof tmp, ":%s=%d", nm, (int)attr->exclusive);
            break;
        default:
            break;
        }
        size_t len = strlen(f);
        snprintf(f + len, X86_FSTR_MAX - len, "%s", tmp);
    }
    return PFM_SUCCESS;
}

static int encode_perf(const char *str, int dfl_plm, x86_os_t os, pfm_perf_encode_arg_t *uarg)
{
    pfm_perf_encode_arg_t arg;
    struct perf_event_attr attr;
    parsed_t p;
    size_t sz = check_struct(uarg, uarg->size, PFM_PERF_ENCODE_ABI0, sizeof arg);
    if (!sz)
        return PFM_ERR_INVAL;
    memcpy(&arg, uarg, sz);
    if (!arg.attr)
        return PFM_ERR_INVAL;
    /* work on a copy of the caller's struct, of the caller's size */
    memset(&attr, 0, sizeof attr);
    uint32_t orig_sz = arg.attr->size;
    size_t asz = orig_sz == 0 ? PERF_ATTR_SIZE_VER0
                              : (orig_sz < sizeof attr ? orig_sz : sizeof attr);
    memcpy(&attr, arg.attr, asz);
    attr.size = sizeof attr;

    int r = parse_any(str, os, &p);
    if (r)
        return r;
    os_attrs_t o;
    char *f;
    const char *pmu_name;
    if (p.os_pmu >= 0) {
        attr.type = p.o.type;
        attr.config = p.o.config;
        o = (os_attrs_t){ .nos = p.o.pa.nos, .osattr = p.o.pa.osattr, .base = p.o.pa.nu,
                          .nattrs = p.o.nattrs, .attrs = p.o.attrs,
                          .supported_plm = pmusim_x86_os_pmus[p.os_pmu].supported_plm };
        f = p.o.fstr_os;
        pmu_name = pmusim_x86_os_pmus[p.os_pmu].name;
    } else {
        x86_desc_t *d = &p.x;
        r = pmusim_x86_encode(d, dfl_plm);
        if (r)
            return r;
        /* the kernel owns EN, INT and the privilege bits */
        attr.type = PERF_TYPE_RAW;
        attr.config = d->codes[0] & ~(X86_SEL_EN | X86_SEL_INT | X86_SEL_OS | X86_SEL_USR);
        if (d->count > 1)
            attr.config1 = d->codes[1];
        o = (os_attrs_t){ .nos = d->nos, .osattr = d->osattr, .base = d->nu + d->nmods,
                          .nattrs = d->nattrs, .attrs = d->attrs,
                          .supported_plm = d->pmu->supported_plm };
        f = d->fstr;
        pmu_name = d->pmu->name;
    }
    int cpu;
    r = apply_os_attrs(&o, dfl_plm, &attr, &cpu, arg.fstr ? f : NULL);
    if (r)
        return r;

    arg.idx = parsed_idx(&p);
    arg.cpu = cpu;
    memcpy(arg.attr, &attr, asz);
    arg.attr->size = orig_sz;

    if (arg.fstr) {
        r = build_fstr(pmu_name, f, arg.fstr);
        if (r)
            return r;
    }
    memcpy(uarg, &arg, sz);
    return PFM_SUCCESS;
}

pfm_err_t pfm_get_os_event_encoding(const char *str, int dfl_plm, pfm_os_t os, void *args)
{
    if (!initialized())
        return PFM_ERR_NOINIT;
    if (!(args && str))
        return PFM_ERR_INVAL;
    if (dfl_plm & ~(PFM_PLM0 | PFM_PLM1 | PFM_PLM2 | PFM_PLM3 | PFM_PLMH))
        return PFM_ERR_INVAL;
    switch (os) {
    case PFM_OS_NONE:
        return encode_raw(str, dfl_plm, args);
    case PFM_OS_PERF_EVENT:
    case PFM_OS_PERF_EVENT_EXT:
        return encode_perf(str, dfl_plm, (x86_os_t)os, args);
    default:
        return PFM_ERR_NOTSUPP;
    }
}

pfm_err_t pfm_get_event_encoding(const char *str, int dfl_plm, char **fstr, int *idx,
                                 uint64_t **codes, int *count)
{
    pfm_pmu_encode_arg_t arg;
    if (!(str && codes && count))
        return PFM_ERR_INVAL;
    if ((*codes && !*count) || (!*codes && *count))
        return PFM_ERR_INVAL;
    memset(&arg, 0, sizeof arg);
    arg.fstr = fstr;
    arg.codes = *codes;
    arg.count = *count;
    arg.size = sizeof arg;
    int r = pfm_get_os_event_encoding(str, dfl_plm, PFM_OS_NONE, &arg);
    if (r != PFM_SUCCESS)
        return r;
    *codes = arg.codes;
    *count = arg.count;
    if (idx)
        *idx = arg.idx;
    return PFM_SUCCESS;
}

pfm_err_t pfm_get_perf_event_encoding(const char *str, int dfl_plm, struct perf_event_attr *attr,
                                      char **fstr, int *idx)
{
    pfm_perf_encode_arg_t arg;
    if (!initialized())
        return PFM_ERR_NOINIT;
    if (!(attr && str))
        return PFM_ERR_INVAL;
    if (dfl_plm & ~(PFM_PLM0 | PFM_PLM1 | PFM_PLM2 | PFM_PLM3 | PFM_PLMH))
        return PFM_ERR_INVAL;
    memset(&arg, 0, sizeof arg);
    arg.attr = attr;
    arg.fstr = fstr;
    int r = pfm_get_os_event_encoding(str, dfl_plm, PFM_OS_PERF_EVENT_EXT, &arg);
    if (r != PFM_SUCCESS)
        return r;
    if (idx)
        *idx = arg.idx;
    return PFM_SUCCESS;
}

/* Encode every event and every umask alone, as libpfm-4's validation does. */
pfm_err_t pfm_pmu_validate(pfm_pmu_t pmu_id, FILE *fp)
{
    if (!fp)
        return PFM_ERR_INVAL;
    int k = os_pmu_by_id((int)pmu_id);
    if (k >= 0) {
        /* perf: every event alone; perf_raw: its one pseudo event */
        const pfm4_os_pmu_t *op = &pmusim_x86_os_pmus[k];
        if (!initialized() || !cfg.init[OS_SLOT(k)]) {
            fprintf(fp, "pmu: %s :: initialization failed\n", op->name);
            return PFM_ERR_INVAL;
        }
        int ret = PFM_SUCCESS;
        if (k == PFM4_PERF_PMU && pmusim_x86_os_check_order()) {
            fprintf(fp, "pmu: %s :: name index out of order\n", op->name);
            ret = PFM_ERR_INVAL;
        }
        for (int ev = 0; ev < op->nevents; ev++) {
            pfm4_os_event_t e;
            pfm4_os_desc_t d;
            pmusim_x86_os_event(k, ev, &e);
            int r = pmusim_x86_os_parse(k, e.name, X86_OS_NONE, &d);
            if (r) {
                fprintf(fp, "cannot encode event %s::%s : %s\n", op->name, e.name,
                        pmusim_x86_strerror(r));
                ret = r;
            }
        }
        return ret;
    }
    const x86_pmu_t *pmu = pmusim_x86_pmu_by_id((int)pmu_id);
    if (!pmu || !initialized() || !cfg.init[pmu_index(pmu)]) {
        if (pmu)
            fprintf(fp, "pmu: %s :: initialization failed\n", pmu->name);
        return PFM_ERR_INVAL;
    }
    int ret = PFM_SUCCESS;
    const x86_table_t *t = pmu->table;
    for (int ev = 0; ev < t->nevents; ev++) {
        x86_desc_t d;
        pmusim_x86_desc_build_pattrs(&d, pmu, ev, X86_OS_NONE);
        int ok = 0;
        for (int j = 0; j <= d.nu; j++) {
            char buf[X86_FSTR_MAX];
            if (j < d.nu)
                snprintf(buf, sizeof buf, "%s:%s", t->events[ev].name,
                         x86_um(pmu, ev, d.umask[j])->name);
            else if (ok)
                break;
            else
                snprintf(buf, sizeof buf, "%s", t->events[ev].name);
            x86_desc_t e;
            int r = pmusim_x86_encode_str(pmu, buf, PFM_PLM0 | PFM_PLM3, &e);
            if (r) {
                fprintf(fp, "cannot encode event %s::%s : %s\n", pmu->name, buf,
                        pmusim_x86_strerror(r));
                ret = r;
            } else {
                ok++;
            }
        }
    }
    return ret;
}
