/* pfm_dispatch_events() for the Itanium 2 and Montecito PMUs.
 *
 * Both PMUs share this file: the model-specific input structure is first
 * normalised into `struct req`, the counters, EARs, ranges, opcode matchers
 * and branch buffers are then programmed in libpfm-3's order (REF §11), and
 * the range results are copied back to the model output structure.
 *
 * Compatibility: return codes, PMC numbers/values, PMD lists, debug
 * registers and range offsets follow libpfm-3 bit for bit, except where
 * libpfm-3 is plainly wrong; every such place is marked "DEVIATION" here and
 * listed in docs/compat-ia64.md.
 */
#include "ia64_priv.h"

#include <math.h>
#include <string.h>
#include <threads.h>

#define MASK56 0x00ffffffffffffffULL

/* One range request/answer, identical for both PMUs. */
struct rr_in {
    unsigned flags;
    struct { unsigned plm; uint64_t start, end; } lim[4];
    bool used;
};

struct rr_out {
    unsigned nbr_used;
    struct { uint64_t soff, eoff; } info[4];
    struct { unsigned num; uint64_t value; } br[8];
};

struct ear_req {
    bool used;
    unsigned mode, ism, plm;
    uint64_t umask;
};

struct branch_req {   /* ita2 BTB or mont ETB */
    bool used;
    unsigned ds, tm, ptm, ppm, brt, plm;
};

struct opcm_req {
    bool used;
    uint64_t pmc_val;                 /* ita2: raw PMC8/PMC9 */
    unsigned m, i, f, b;              /* mont */
    uint64_t match, mask;             /* mont */
};

struct req {
    const ia64_pmu_t *pmu;
    bool param;                       /* a model input structure was given */
    struct { unsigned flags, thres, ism; } cnt[PMU_MONT_NUM_COUNTERS];
    struct opcm_req opcm[2];          /* ita2: PMC8, PMC9; mont: opcm1, opcm2 */
    struct ear_req iear, dear;
    struct branch_req branch;
    struct { bool used; unsigned plm, delay; } ipear;
    struct rr_in irange, drange;
    struct rr_out irr, drr;           /* results */
    pfmlib_input_param_t *inp;
    pfmlib_output_param_t *outp;
};

/* ------------------------------------------------------------------ */
/* small helpers                                                       */

static const ia64_event_t *evt(const struct req *r, unsigned i)
{
    return &r->pmu->events[r->inp->pfp_events[i].event];
}

static unsigned nevt(const struct req *r)
{
    return r->inp->pfp_event_count;
}

static bool is_ita2(const struct req *r)
{
    return r->pmu->model == IA64_MODEL_ITA2;
}

static bool is_ear_type(unsigned t)
{
    return t >= IA64_EVT_IEAR_TLB && t <= IA64_EVT_DEAR_ALAT;
}

static bool unavail(const struct req *r, unsigned pmc)
{
    return pfm_regmask_isset(&r->inp->pfp_unavail_pmcs, pmc);
}

static int add_pmc(struct req *r, unsigned num, uint64_t value)
{
    pfmlib_output_param_t *o = r->outp;
    if (o->pfp_pmc_count >= PFMLIB_MAX_PMCS)
        return PFMLIB_ERR_FULL;
    pfmlib_reg_t *pc = &o->pfp_pmcs[o->pfp_pmc_count++];
    memset(pc, 0, sizeof(*pc));
    pc->reg_num = num;
    pc->reg_value = value;
    pc->reg_addr = num;
    pc->reg_alt_addr = num;
    return PFMLIB_SUCCESS;
}

static void add_pmd(struct req *r, unsigned num)
{
    pfmlib_output_param_t *o = r->outp;
    if (o->pfp_pmd_count >= PFMLIB_MAX_PMDS)
        return;
    pfmlib_reg_t *pd = &o->pfp_pmds[o->pfp_pmd_count++];
    memset(pd, 0, sizeof(*pd));
    pd->reg_num = num;
    pd->reg_addr = num;
    pd->reg_alt_addr = num;
}

/* A privilege level mask: `plm` if set, else the default.  The hardware
 * field is 4 bits; libpfm-3 silently truncates wider values (DEVIATION:
 * we refuse them). */
static int pick_plm(const struct req *r, unsigned plm, unsigned *out)
{
    unsigned v = plm ? plm : r->inp->pfp_dfl_plm;
    if (v & ~0xfu)
        return PFMLIB_ERR_INVAL;
    *out = v;
    return PFMLIB_SUCCESS;
}

/* floor(log2(x)) the way libpfm-3's pfm_ia64_fls() computes it: from the
 * exponent of x converted to double, so values >= 2^53 may round up. */
static int ia64_fls(uint64_t x)
{
    return ilogb((double)x);
}

static uint64_t pow2(int p)
{
    return p >= 64 || p < 0 ? 0 : 1ULL << p;
}

static uint64_t align_down(uint64_t a, int p)
{
    return p >= 64 ? 0 : a & ~(pow2(p) - 1);
}

/* Odd debug register of a pair: 56-bit mask, plm in bits 59:56 (REF §10.1). */
static uint64_t dbr_mask(uint64_t mask, unsigned plm)
{
    return (mask & MASK56) | ((uint64_t)(plm & 0xf) << 56);
}

/* ------------------------------------------------------------------ */
/* input normalisation                                                 */

static void rr_from_ita2(struct rr_in *d, const pfmlib_ita2_input_rr_t *s)
{
    d->flags = s->rr_flags;
    d->used = s->rr_used != 0;
    for (int i = 0; i < 4; i++) {
        d->lim[i].plm = s->rr_limits[i].rr_plm;
        d->lim[i].start = s->rr_limits[i].rr_start;
        d->lim[i].end = s->rr_limits[i].rr_end;
    }
}

static void rr_from_mont(struct rr_in *d, const pfmlib_mont_input_rr_t *s)
{
    d->flags = s->rr_flags;
    d->used = s->rr_used != 0;
    for (int i = 0; i < 4; i++) {
        d->lim[i].plm = s->rr_limits[i].rr_plm;
        d->lim[i].start = s->rr_limits[i].rr_start;
        d->lim[i].end = s->rr_limits[i].rr_end;
    }
}

static void req_from_ita2(struct req *r, const pfmlib_ita2_input_param_t *p)
{
    for (int i = 0; i < PMU_ITA2_NUM_COUNTERS; i++) {
        r->cnt[i].flags = p->pfp_ita2_counters[i].flags;
        r->cnt[i].thres = p->pfp_ita2_counters[i].thres;
        r->cnt[i].ism = (unsigned)p->pfp_ita2_counters[i].ism;
    }
    r->opcm[0].used = p->pfp_ita2_pmc8.opcm_used != 0;
    r->opcm[0].pmc_val = p->pfp_ita2_pmc8.pmc_val;
    r->opcm[1].used = p->pfp_ita2_pmc9.opcm_used != 0;
    r->opcm[1].pmc_val = p->pfp_ita2_pmc9.pmc_val;
    const pfmlib_ita2_ear_t *e[2] = { &p->pfp_ita2_iear, &p->pfp_ita2_dear };
    struct ear_req *d[2] = { &r->iear, &r->dear };
    for (int i = 0; i < 2; i++) {
        d[i]->used = e[i]->ear_used != 0;
        d[i]->mode = (unsigned)e[i]->ear_mode;
        d[i]->ism = (unsigned)e[i]->ear_ism;
        d[i]->plm = e[i]->ear_plm;
        d[i]->umask = e[i]->ear_umask;
    }
    r->branch.used = p->pfp_ita2_btb.btb_used != 0;
    r->branch.ds = p->pfp_ita2_btb.btb_ds;
    r->branch.tm = p->pfp_ita2_btb.btb_tm;
    r->branch.ptm = p->pfp_ita2_btb.btb_ptm;
    r->branch.ppm = p->pfp_ita2_btb.btb_ppm;
    r->branch.brt = p->pfp_ita2_btb.btb_brt;
    r->branch.plm = p->pfp_ita2_btb.btb_plm;
    rr_from_ita2(&r->irange, &p->pfp_ita2_irange);
    rr_from_ita2(&r->drange, &p->pfp_ita2_drange);
}

static void req_from_mont(struct req *r, const pfmlib_mont_input_param_t *p)
{
    for (int i = 0; i < PMU_MONT_NUM_COUNTERS; i++) {
        r->cnt[i].flags = p->pfp_mont_counters[i].flags;
        r->cnt[i].thres = p->pfp_mont_counters[i].thres;
        r->cnt[i].ism = 2;
    }
    const pfmlib_mont_opcm_t *o[2] = { &p->pfp_mont_opcm1, &p->pfp_mont_opcm2 };
    for (int i = 0; i < 2; i++) {
        r->opcm[i].used = o[i]->opcm_used != 0;
        r->opcm[i].m = o[i]->opcm_m;
        r->opcm[i].i = o[i]->opcm_i;
        r->opcm[i].f = o[i]->opcm_f;
        r->opcm[i].b = o[i]->opcm_b;
        r->opcm[i].match = o[i]->opcm_match;
        r->opcm[i].mask = o[i]->opcm_mask;
    }
    const pfmlib_mont_ear_t *e[2] = { &p->pfp_mont_iear, &p->pfp_mont_dear };
    struct ear_req *d[2] = { &r->iear, &r->dear };
    for (int i = 0; i < 2; i++) {
        d[i]->used = e[i]->ear_used != 0;
        d[i]->mode = (unsigned)e[i]->ear_mode;
        d[i]->ism = 2;
        d[i]->plm = e[i]->ear_plm;
        d[i]->umask = e[i]->ear_umask;
    }
    r->branch.used = p->pfp_mont_etb.etb_used != 0;
    r->branch.ds = 0; /* ds=1 is reserved on Montecito; libpfm-3 ignores etb_ds */
    r->branch.tm = p->pfp_mont_etb.etb_tm;
    r->branch.ptm = p->pfp_mont_etb.etb_ptm;
    r->branch.ppm = p->pfp_mont_etb.etb_ppm;
    r->branch.brt = p->pfp_mont_etb.etb_brt;
    r->branch.plm = p->pfp_mont_etb.etb_plm;
    r->ipear.used = p->pfp_mont_ipear.ipear_used != 0;
    r->ipear.plm = p->pfp_mont_ipear.ipear_plm;
    r->ipear.delay = p->pfp_mont_ipear.ipear_delay;
    rr_from_mont(&r->irange, &p->pfp_mont_irange);
    rr_from_mont(&r->drange, &p->pfp_mont_drange);
}

static void rr_to_out(const struct rr_out *s, unsigned *nbr, void *infos, pfmlib_reg_t *br)
{
    /* pfmlib_{ita2,mont}_output_rr_desc_t are both {soff, eoff}. */
    pfmlib_ita2_output_rr_desc_t *inf = infos;
    *nbr = s->nbr_used;
    for (int i = 0; i < 4; i++) {
        inf[i].rr_soff = s->info[i].soff;
        inf[i].rr_eoff = s->info[i].eoff;
    }
    for (unsigned i = 0; i < 8; i++) {
        memset(&br[i], 0, sizeof(br[i]));
        if (i < s->nbr_used) {
            br[i].reg_num = s->br[i].num;
            br[i].reg_value = s->br[i].value;
            br[i].reg_addr = s->br[i].num;
            br[i].reg_alt_addr = s->br[i].num;
        }
    }
}

_Static_assert(sizeof(pfmlib_ita2_output_rr_desc_t) == sizeof(pfmlib_mont_output_rr_desc_t),
               "range offset descriptors share a layout");

/* ------------------------------------------------------------------ */
/* event classification by event select code (libpfm-3 compares codes) */

static bool code_is(const struct req *r, unsigned i, uint8_t code)
{
    return evt(r, i)->code == code;
}

#define CODE_INST_RETIRED 0x08

/* Number of IA64_INST_RETIRED-family events; *mask gets bit n for umask n. */
static unsigned count_retired(const struct req *r, unsigned *mask)
{
    unsigned found = 0, m = 0;
    for (unsigned i = 0; i < nevt(r); i++) {
        if (!code_is(r, i, CODE_INST_RETIRED))
            continue;
        if (evt(r, i)->umask < 4)
            m |= 1u << evt(r, i)->umask;
        found++;
    }
    if (mask)
        *mask = m;
    return found;
}

static uint8_t code_of(const ia64_pmu_t *pmu, const char *name)
{
    int idx = ia64_find_event(pmu, name, strlen(name));
    return idx < 0 ? 0xff : pmu->events[idx].code;
}

/* Events the dispatch rules single out, resolved once per PMU (looking them
 * up by name on every dispatch cost a third of the run time). */
struct special {
    uint8_t cancel[3];        /* OzQ cancel families (ita2: 3, mont: 2 used) */
    unsigned ncancel;
    uint8_t prefetch[3];      /* prefetch events: IBRP1 only */
    uint8_t dual[4];          /* Montecito dual events */
    uint8_t cycles_qual;      /* Montecito CPU_OP_CYCLES_QUAL */
    int tagged[4];            /* IA64_TAGGED_INST_RETIRED_IBRPn_* indices */
};

static struct special specials[2];
static once_flag specials_once = ONCE_FLAG_INIT;

static void specials_init(void)
{
    static const char *const cancel[2][3] = {
        { "L2_OZQ_CANCELS0_ANY", "L2_OZQ_CANCELS1_REL", "L2_OZQ_CANCELS2_ACQ" },
        { "L2D_OZQ_CANCELS0_ACQ", "L2D_OZQ_CANCELS1_ANY", NULL },
    };
    static const char *const prefetch[2][3] = {
        { "L1I_PREFETCHES", "L1I_STRM_PREFETCHES", "L2_INST_PREFETCHES" },
        { "L1I_PREFETCHES", "L1I_STRM_PREFETCHES", "L2I_PREFETCHES" },
    };
    static const char *const dual[4] = { "ISB_BUNPAIRS_IN", "L1I_FETCH_RAB_HIT", "L1I_FETCH_ISB_HIT",
                                         "L1I_FILLS" };
    static const char *const tagged[2][4] = {
        { "IA64_TAGGED_INST_RETIRED_IBRP0_PMC8", "IA64_TAGGED_INST_RETIRED_IBRP1_PMC9",
          "IA64_TAGGED_INST_RETIRED_IBRP2_PMC8", "IA64_TAGGED_INST_RETIRED_IBRP3_PMC9" },
        { "IA64_TAGGED_INST_RETIRED_IBRP0_PMC32_33", "IA64_TAGGED_INST_RETIRED_IBRP1_PMC34_35",
          "IA64_TAGGED_INST_RETIRED_IBRP2_PMC32_33", "IA64_TAGGED_INST_RETIRED_IBRP3_PMC34_35" },
    };
    const ia64_pmu_t *pmus[2] = { &ia64_pmu_ita2, &ia64_pmu_mont };
    for (int m = 0; m < 2; m++) {
        struct special *sp = &specials[m];
        const ia64_pmu_t *pmu = pmus[m];
        sp->ncancel = 0;
        for (int k = 0; k < 3 && cancel[m][k]; k++)
            sp->cancel[sp->ncancel++] = code_of(pmu, cancel[m][k]);
        for (int k = 0; k < 3; k++)
            sp->prefetch[k] = code_of(pmu, prefetch[m][k]);
        for (int k = 0; k < 4; k++) {
            sp->dual[k] = code_of(pmu, dual[k]);
            sp->tagged[k] = ia64_find_event(pmu, tagged[m][k], strlen(tagged[m][k]));
        }
        sp->cycles_qual = m ? code_of(pmu, "CPU_OP_CYCLES_QUAL") : 0xff;
    }
}

static const struct special *special_of(const struct req *r)
{
    call_once(&specials_once, specials_init);
    return &specials[is_ita2(r) ? 0 : 1];
}

/* ------------------------------------------------------------------ */
/* counters                                                            */

/* Itanium 2 placement rule (REF §4): all events on allowed, available
 * counters; an L1 event on PMC5 and an L2 event on PMC4 when the groups are
 * present; L2 umask agreement with the PMC4 event outside sets 1 and 2. */
static bool ita2_valid_assign(const struct req *r, const unsigned *as)
{
    unsigned cnt = nevt(r);
    bool l1 = false, l2 = false;
    for (unsigned i = 0; i < cnt; i++) {
        if (as[i] == 0 || unavail(r, as[i]))
            return false;
        l1 |= evt(r, i)->group == 1;
        l2 |= evt(r, i)->group == 2;
    }
    int pmc4_evt = -1;
    if (l1 || l2) {
        bool need5 = l1, need4 = l2;
        for (unsigned i = 0; i < cnt && (need4 || need5); i++) {
            if (need5 && as[i] == 5 && evt(r, i)->group == 1)
                need5 = false;
            if (need4 && as[i] == 4 && evt(r, i)->group == 2) {
                need4 = false;
                pmc4_evt = (int)i;
            }
        }
        if (need4 || need5)
            return false;
    }
    if (l2 && evt(r, (unsigned)pmc4_evt)->set != 1 && evt(r, (unsigned)pmc4_evt)->set != 2) {
        unsigned ref = evt(r, (unsigned)pmc4_evt)->umask;
        for (unsigned i = 0; i < cnt; i++) {
            unsigned u = evt(r, i)->umask;
            if (as[i] != 4 && evt(r, i)->group == 2 && u != 0 && u != ref)
                return false;
        }
    }
    return true;
}

/* libpfm-3 tries every ordered choice of distinct counters, in
 * lexicographic order, and keeps the first valid one. */
static bool ita2_search(const struct req *r, unsigned level, unsigned used, unsigned *as)
{
    unsigned cnt = nevt(r);
    if (level == cnt)
        return ita2_valid_assign(r, as);
    for (unsigned c = PMU_ITA2_FIRST_COUNTER; c < PMU_ITA2_FIRST_COUNTER + PMU_ITA2_NUM_COUNTERS; c++) {
        if (used & (1u << c))
            continue;
        as[level] = (evt(r, level)->counters & (1u << c)) ? c : 0;
        if (ita2_search(r, level + 1, used | (1u << c), as))
            return true;
    }
    return false;
}

static int ita2_check_groups(const struct req *r)
{
    unsigned cnt = nevt(r);
    for (unsigned i = 0; i < cnt; i++) {
        int g = evt(r, i)->group, s = evt(r, i)->set;
        if (g == 0)
            continue;
        unsigned ref = evt(r, i)->umask;
        for (unsigned j = i + 1; j < cnt; j++) {
            if (evt(r, j)->group != g)
                continue;
            if (evt(r, j)->set != s)
                return PFMLIB_ERR_EVTSET;
            if (g != 2 || s == 1 || s == 2)
                continue;
            unsigned u = evt(r, j)->umask;
            if (u && u != ref)
                return PFMLIB_ERR_NOASSIGN;
        }
    }
    return PFMLIB_SUCCESS;
}

/* At most one event of the OzQ cancel families (REF §4). */
static int check_cancel(const struct req *r)
{
    const struct special *sp = special_of(r);
    bool seen = false;
    for (unsigned i = 0; i < nevt(r); i++) {
        for (unsigned k = 0; k < sp->ncancel; k++) {
            if (evt(r, i)->code != sp->cancel[k])
                continue;
            if (seen)
                return PFMLIB_ERR_INVAL;
            seen = true;
        }
    }
    return PFMLIB_SUCCESS;
}

/* Montecito placement (REF §4): the last L1D event on PMC5, up to three
 * events of each of two L2D sets on PMC4/5/8 and PMC6/7/9, then events with
 * restricted counter masks, then the rest in ascending order. */
static int mont_assign(const struct req *r, unsigned *as)
{
    unsigned cnt = nevt(r);
    int l1d = -1;
    for (unsigned i = 0; i < cnt; i++) {
        if (evt(r, i)->group != 1)
            continue;
        l1d = (int)i;
        for (unsigned j = i + 1; j < cnt; j++)
            if (evt(r, j)->group == 1 && evt(r, j)->set != evt(r, i)->set)
                return PFMLIB_ERR_EVTSET;
    }
    /* DEVIATION: sets are compared as decoded from the data (true set
     * numbers); libpfm-3 reads them through a mis-declared bitfield and
     * treats L2D set 8 as set 0. */
    int s1 = -1, s2 = -1;
    uint32_t m1 = 0, m2 = 0;
    for (unsigned i = 0; i < cnt; i++) {
        if (evt(r, i)->group != 2)
            continue;
        int s = evt(r, i)->set;
        if (s == s1)
            m1 |= 1u << i;
        else if (s == s2)
            m2 |= 1u << i;
        else if (s1 == -1) {
            s1 = s;
            m1 |= 1u << i;
        } else if (s2 == -1) {
            s2 = s;
            m2 |= 1u << i;
        } else
            return PFMLIB_ERR_EVTSET;
    }
    int ret = check_cancel(r);
    if (ret != PFMLIB_SUCCESS)
        return ret;

    uint32_t avail = 0xfff0;
    for (unsigned c = 4; c < 16; c++)
        if (unavail(r, c))
            avail &= ~(1u << c);
    if (l1d >= 0) {
        if (!(avail & (1u << 5)))
            return PFMLIB_ERR_NOASSIGN;
        as[l1d] = 5;
        avail &= ~(1u << 5);
    }
    static const unsigned set1_cnt[] = { 4, 5, 8 }, set2_cnt[] = { 6, 7, 9 };
    unsigned p1 = 0, p2 = 0;
    uint32_t unplaced = 0; /* events still without a counter */
    for (unsigned i = 0; i < cnt; i++) {
        uint32_t bit = 1u << i;
        if (p1 < 3 && (m1 & bit)) {
            as[i] = set1_cnt[p1++];
        } else if (p2 < 3 && (m2 & bit)) {
            as[i] = set2_cnt[p2++];
        } else {
            if ((int)i != l1d)
                unplaced |= bit;
            continue;
        }
        if (!(avail & (1u << as[i])))
            return PFMLIB_ERR_NOASSIGN;
        avail &= ~(1u << as[i]);
    }
    for (unsigned i = 0; i < cnt; i++) {
        if (!(unplaced & (1u << i)) || evt(r, i)->counters == 0xfff0)
            continue;
        uint32_t cm = evt(r, i)->counters;
        unsigned c;
        for (c = 0; c < 16; c++)
            if ((cm & (1u << c)) && (avail & (1u << c)))
                break;
        if (c == 16)
            return PFMLIB_ERR_NOASSIGN;
        as[i] = c;
        avail &= ~(1u << c);
        unplaced &= ~(1u << i);
    }
    unsigned c = 0;
    for (unsigned i = 0; i < cnt; i++) {
        if (!(unplaced & (1u << i)))
            continue;
        while (c < 16 && !(avail & (1u << c)))
            c++;
        if (c == 16)
            return PFMLIB_ERR_NOASSIGN;
        as[i] = c++;
    }
    return PFMLIB_SUCCESS;
}

/* Counter PMC value (REF §3.2). */
static int dispatch_counters(struct req *r)
{
    unsigned cnt = nevt(r);
    unsigned as[PMU_MONT_NUM_COUNTERS] = { 0 };
    pfmlib_event_t *e = r->inp->pfp_events;
    unsigned pm = r->inp->pfp_flags & PFMLIB_PFP_SYSTEMWIDE ? 1 : 0;
    int ret;

    if (cnt > r->pmu->num_counters)
        return PFMLIB_ERR_TOOMANY;
    if (is_ita2(r)) {
        ret = ita2_check_groups(r);
        if (ret == PFMLIB_SUCCESS)
            ret = check_cancel(r);
        if (ret == PFMLIB_SUCCESS && !ita2_search(r, 0, 0, as))
            ret = PFMLIB_ERR_NOASSIGN;
    } else {
        ret = mont_assign(r, as);
    }
    if (ret != PFMLIB_SUCCESS)
        return ret;

    for (unsigned j = 0; j < cnt; j++) {
        const ia64_event_t *ev = evt(r, j);
        unsigned thres = r->param ? r->cnt[j].thres : 0;
        unsigned plm;
        if (!is_ita2(r) && r->param && (r->cnt[j].flags & PFMLIB_MONT_FL_EVT_ALL_THRD))
            return PFMLIB_ERR_NOTSUPP;
        ret = pick_plm(r, e[j].plm, &plm);
        if (ret != PFMLIB_SUCCESS)
            return ret;
        /* DEVIATION: libpfm-3 truncates the threshold to the 3-bit field and
         * never checks it against maxincr. */
        if (thres >= ev->maxincr)
            return PFMLIB_ERR_INVAL;
        uint64_t v = plm | (uint64_t)pm << 6 | (uint64_t)ev->code << 8 | (uint64_t)thres << 20;
        if (!is_ear_type(ev->type))
            v |= (uint64_t)(ev->umask & 0xf) << 16;
        if (is_ita2(r)) {
            unsigned ism = r->param ? r->cnt[j].ism : PFMLIB_ITA2_ISM_BOTH;
            if (ism > 3) /* DEVIATION: 2-bit field, libpfm-3 truncates */
                return PFMLIB_ERR_INVAL;
            v |= 1u << 5 | (uint64_t)ism << 24;       /* oi=1 */
        } else {
            unsigned mesi = 0;
            if (ev->qual & IA64_Q_MESI) {
                for (unsigned k = 0; k < e[j].num_masks; k++)
                    mesi |= 1u << e[j].unit_masks[k];
                if (mesi == 0)
                    mesi = 0xf;
            }
            v |= 2ULL << 24 | (uint64_t)(mesi & 0xf) << 27;   /* oi=0, ism=IA-64 */
        }
        ret = add_pmc(r, as[j], v);
        if (ret != PFMLIB_SUCCESS)
            return ret;
        add_pmd(r, as[j]);
    }
    return PFMLIB_SUCCESS;
}

/* ------------------------------------------------------------------ */
/* EARs (REF §6, §7)                                                   */

static int ear_mode_of(unsigned type)
{
    switch (type) {
    case IA64_EVT_IEAR_TLB:
    case IA64_EVT_DEAR_TLB:
        return PFMLIB_ITA2_EAR_TLB_MODE;
    case IA64_EVT_IEAR_CACHE:
    case IA64_EVT_DEAR_CACHE:
        return PFMLIB_ITA2_EAR_CACHE_MODE;
    default:
        return PFMLIB_ITA2_EAR_ALAT_MODE;
    }
}

/* Find the first event of the given EAR side (instruction or data). */
static int first_ear(const struct req *r, bool data)
{
    for (unsigned i = 0; i < nevt(r); i++) {
        unsigned t = evt(r, i)->type;
        if (data ? (t >= IA64_EVT_DEAR_TLB && t <= IA64_EVT_DEAR_ALAT)
                 : (t == IA64_EVT_IEAR_TLB || t == IA64_EVT_IEAR_CACHE))
            return (int)i;
    }
    return -1;
}

/* The four methods: EAR event present or not x ear_used or not. */
static int ear_effective(const struct req *r, const struct ear_req *p, bool data, struct ear_req *out)
{
    if (p->used && r->param) {
        *out = *p;
        return 1;
    }
    int i = first_ear(r, data);
    if (i < 0)
        return 0;
    memset(out, 0, sizeof(*out));
    out->mode = (unsigned)ear_mode_of(evt(r, (unsigned)i)->type);
    out->umask = evt(r, (unsigned)i)->umask;
    out->ism = is_ita2(r) ? PFMLIB_ITA2_ISM_BOTH : 2;
    return 1;
}

static int dispatch_iear(struct req *r)
{
    struct ear_req p;
    if (!ear_effective(r, &r->iear, false, &p))
        return PFMLIB_SUCCESS;
    unsigned pm = r->inp->pfp_flags & PFMLIB_PFP_SYSTEMWIDE ? 1 : 0, plm;
    uint64_t v;
    if (p.mode == PFMLIB_ITA2_EAR_TLB_MODE) {
        if (p.umask > 0x7f)     /* DEVIATION: 7-bit field, libpfm-3 truncates */
            return PFMLIB_ERR_INVAL;
        v = p.umask << 5;
    } else if (p.mode == PFMLIB_ITA2_EAR_CACHE_MODE) {
        if (p.umask > 0xff)     /* DEVIATION: 8-bit field */
            return PFMLIB_ERR_INVAL;
        v = p.umask << 5 | 1u << 13;
    } else {
        return PFMLIB_ERR_INVAL;   /* ALAT mode exists only for the D-EAR */
    }
    int ret = pick_plm(r, p.plm, &plm);
    if (ret != PFMLIB_SUCCESS)
        return ret;
    v |= plm | pm << 4;
    if (is_ita2(r)) {
        if (p.ism > 3)
            return PFMLIB_ERR_INVAL;
        v |= (uint64_t)p.ism << 14;
    }
    unsigned pmc = is_ita2(r) ? 10 : 37;
    if (unavail(r, pmc))
        return PFMLIB_ERR_NOASSIGN;
    ret = add_pmc(r, pmc, v);
    if (ret != PFMLIB_SUCCESS)
        return ret;
    add_pmd(r, is_ita2(r) ? 0 : 34);
    add_pmd(r, is_ita2(r) ? 1 : 35);
    return PFMLIB_SUCCESS;
}

static int dispatch_dear(struct req *r)
{
    struct ear_req p;
    if (!ear_effective(r, &r->dear, true, &p))
        return PFMLIB_SUCCESS;
    if (p.mode > PFMLIB_ITA2_EAR_ALAT_MODE)
        return PFMLIB_ERR_INVAL;
    if (p.umask > 0xf)          /* DEVIATION: 4-bit field */
        return PFMLIB_ERR_INVAL;
    if (p.ism > 3)
        return PFMLIB_ERR_INVAL;
    unsigned pm = r->inp->pfp_flags & PFMLIB_PFP_SYSTEMWIDE ? 1 : 0, plm;
    int ret = pick_plm(r, p.plm, &plm);
    if (ret != PFMLIB_SUCCESS)
        return ret;
    uint64_t v = plm | pm << 6 | (uint64_t)p.mode << 7 | p.umask << 16 | (uint64_t)p.ism << 24;
    unsigned pmc = is_ita2(r) ? 11 : 40;
    if (unavail(r, pmc))
        return PFMLIB_ERR_NOASSIGN;
    ret = add_pmc(r, pmc, v);
    if (ret != PFMLIB_SUCCESS)
        return ret;
    static const unsigned ita2_pmds[] = { 2, 3, 17 }, mont_pmds[] = { 32, 33, 36 };
    for (int k = 0; k < 3; k++)
        add_pmd(r, is_ita2(r) ? ita2_pmds[k] : mont_pmds[k]);
    return PFMLIB_SUCCESS;
}

/* ------------------------------------------------------------------ */
/* range restriction (REF §10)                                         */

static int check_intervals(const struct rr_in *rr, bool code, unsigned *n)
{
    unsigned i;
    for (i = 0; i < 4; i++) {
        if (rr->lim[i].start == 0 && rr->lim[i].end == 0)
            break;
        if (rr->lim[i].start >= rr->lim[i].end)
            return PFMLIB_ERR_IRRINVAL;   /* libpfm-3 uses this code for data ranges too */
        if (code && ((rr->lim[i].start & 0xf) || (rr->lim[i].end & 0xf)))
            return PFMLIB_ERR_IRRALIGN;
        if (rr->lim[i].plm & ~0xfu)       /* DEVIATION: 4-bit field */
            return PFMLIB_ERR_INVAL;
    }
    *n = i;
    return PFMLIB_SUCCESS;
}

static unsigned fine_bits(const struct req *r)
{
    return is_ita2(r) ? 12 : 16;
}

/* DEVIATION: libpfm-3 builds the fine-mode page mask as a 32-bit constant,
 * so address bits 63:32 are ignored by the page test and missing from the
 * mask registers; we use the full 56-bit mask. */
static uint64_t fine_mask(const struct req *r)
{
    return ~(pow2((int)fine_bits(r)) - 1) & MASK56;
}

static bool fine_possible(const struct req *r, const struct rr_in *rr, unsigned n)
{
    uint64_t m = ~(pow2((int)fine_bits(r)) - 1);
    for (unsigned i = 0; i < n; i++)
        if ((rr->lim[i].start & m) != (rr->lim[i].end & m))
            return false;
    return true;
}

static void put_br(struct rr_out *o, unsigned num, uint64_t value)
{
    o->br[o->nbr_used].num = num;
    o->br[o->nbr_used].value = value;
    o->nbr_used++;
}

/* Fine mode: range i uses pair base+i for its lower bound and pair base+i+2
 * for its (inclusive) upper bound.  Both CPUs only see 2-bundle granules
 * (Itanium 2 erratum, always present on family 0x1f). */
static int compute_fine(const struct req *r, const struct rr_in *rr, unsigned n, unsigned *base,
                        struct rr_out *o)
{
    if (n > 2)
        return PFMLIB_ERR_IRRTOOMANY;
    unsigned reg = *base;
    for (unsigned i = 0; i < n; i++, reg += 2) {
        unsigned plm;
        int ret = pick_plm(r, rr->lim[i].plm, &plm);
        if (ret != PFMLIB_SUCCESS)
            return ret;
        uint64_t lo = align_down(rr->lim[i].start, 5);
        uint64_t hi = rr->lim[i].end - 0x10;
        if ((hi & 0x1f) == 0)
            hi += 0x10;
        /* DEVIATION: libpfm-3 writes every range's offsets to rr_infos[0]. */
        o->info[i].soff = rr->lim[i].start - lo;
        o->info[i].eoff = hi - rr->lim[i].end + 0x10;
        uint64_t mask = dbr_mask(fine_mask(r), plm);
        put_br(o, reg, lo);
        put_br(o, reg + 1, mask);
        put_br(o, reg + 4, hi);
        put_br(o, reg + 5, mask);
    }
    *base = reg;
    return PFMLIB_SUCCESS;
}

/* One pair covering [start, end) with a naturally aligned power of two. */
static int compute_single(const struct req *r, const struct rr_in *rr, unsigned base, struct rr_out *o)
{
    uint64_t start = rr->lim[0].start, end = rr->lim[0].end, size = end - start;
    int l = ia64_fls(size), m = l;
    if (size & (pow2(l) - 1)) {
        if (l > 62)
            return PFMLIB_ERR_IRRTOOBIG;
        m++;
    }
    uint64_t ps = 0, pe = 0;
    for (; m < 64; m++) {
        ps = align_down(start, m);
        pe = ps + pow2(m);
        if (pe >= end)
            break;
    }
    if (m == 64)
        return PFMLIB_ERR_IRRINVAL;
    unsigned plm;
    int ret = pick_plm(r, rr->lim[0].plm, &plm);
    if (ret != PFMLIB_SUCCESS)
        return ret;
    put_br(o, base, ps);
    put_br(o, base + 1, dbr_mask(~(pow2(m) - 1), plm));
    o->info[0].soff = start - ps;
    o->info[0].eoff = pe - end;
    return PFMLIB_SUCCESS;
}

/* Recursive split of [start, end) over up to `nbr` pairs (REF §10.5). */
static int cover(uint64_t start, uint64_t end, int nbr, int dir, unsigned *reg, unsigned plm,
                 struct rr_out *o)
{
    if (nbr < 1 || end <= start)
        return PFMLIB_SUCCESS;
    uint64_t size = end - start;
    int p2 = ia64_fls(size);
    uint64_t c = align_down(end, p2), base;
    if (c - pow2(p2) >= start) {
        base = c - pow2(p2);
    } else {
        p2--;
        base = (c + pow2(p2) <= end) ? c : c - pow2(p2);
    }
    uint64_t lsz = base - start, rsz = end - base - pow2(p2);
    if (dir == 0 && lsz != 0 && nbr == 1) {
        p2++;
        base = end - pow2(p2);
    } else if (dir == 1 && rsz != 0 && nbr == 1) {
        p2++;
        base = start;
    }
    if (p2 >= 64)
        return PFMLIB_ERR_INVAL;   /* only for ranges near 2^64 bytes */
    lsz = base - start;
    rsz = end - base - pow2(p2);
    put_br(o, *reg, base);
    put_br(o, *reg + 1, dbr_mask(~(pow2(p2) - 1), plm));
    *reg += 2;
    nbr--;
    if (nbr) {
        int l = nbr >> 1, rr = nbr >> 1;
        if (nbr & 1) {
            if (lsz > rsz)
                l++;
            else
                rr++;
        }
        int ret = cover(start, base, l, 0, reg, plm, o);
        if (ret == PFMLIB_SUCCESS)
            ret = cover(base + pow2(p2), end, rr, 1, reg, plm, o);
        return ret;
    }
    return PFMLIB_SUCCESS;
}

static int compute_normal(const struct req *r, const struct rr_in *rr, unsigned n, unsigned base,
                          struct rr_out *o)
{
    unsigned reg = base, i;
    unsigned first = o->nbr_used;
    for (i = 0; i < n; i++) {
        if (o->nbr_used - first == 8)
            break;
        unsigned prev = o->nbr_used, plm;
        int ret = pick_plm(r, rr->lim[i].plm, &plm);
        if (ret != PFMLIB_SUCCESS)
            return ret;
        ret = cover(rr->lim[i].start, rr->lim[i].end, 4 - (int)(reg >> 1), 0, &reg, plm, o);
        if (ret != PFMLIB_SUCCESS)
            return ret;
        o->info[i].soff = o->info[i].eoff = 0;
        for (unsigned j = prev; j < o->nbr_used; j += 2) {
            uint64_t sz = (~(o->br[j + 1].value & MASK56) + 1) & MASK56;
            uint64_t rend = o->br[j].value + sz;
            if (o->br[j].value <= rr->lim[i].start)
                o->info[i].soff = rr->lim[i].start - o->br[j].value;
            if (rend >= rr->lim[i].end)
                o->info[i].eoff = rend - rr->lim[i].end;
        }
    }
    if (o->nbr_used - first == 8 && i < n)
        return PFMLIB_ERR_TOOMANY;
    return PFMLIB_SUCCESS;
}

/* Prefetch events that only IBRP1 can constrain (REF §10.6). */
static unsigned count_prefetch(const struct req *r)
{
    const struct special *sp = special_of(r);
    unsigned found = 0;
    for (unsigned i = 0; i < nevt(r); i++)
        for (int k = 0; k < 3; k++)
            found += evt(r, i)->code == sp->prefetch[k];
    return found;
}

static int mont_prefetch(const struct req *r, unsigned *count, unsigned *base, bool *dup)
{
    const uint8_t *dcodes = special_of(r)->dual;
    unsigned flags = r->irange.flags & (PFMLIB_MONT_IRR_DEMAND_FETCH | PFMLIB_MONT_IRR_PREFETCH_MATCH);
    unsigned found = count_prefetch(r), ibrp0 = 0, ibrp1 = found;
    for (unsigned i = 0; i < nevt(r); i++) {
        for (int k = 0; k < 4; k++) {
            if (evt(r, i)->code != dcodes[k])
                continue;
            found++;
            if (flags == 0)
                return PFMLIB_ERR_IRRFLAGS;
            ibrp0 += (flags & PFMLIB_MONT_IRR_DEMAND_FETCH) != 0;
            ibrp1 += (flags & PFMLIB_MONT_IRR_PREFETCH_MATCH) != 0;
        }
    }
    *count = found;
    *dup = false;
    if (found) {
        *base = ibrp0 ? 0 : 2;
        *dup = ibrp0 && ibrp1;
    }
    return PFMLIB_SUCCESS;
}

static int dispatch_irange(struct req *r, bool have_out)
{
    if (!r->param || !r->irange.used)
        return PFMLIB_SUCCESS;
    if (!have_out)
        return PFMLIB_ERR_INVAL;
    const struct rr_in *irr = &r->irange;
    struct rr_out *o = &r->irr;
    unsigned n, retired_mask;
    int ret = check_intervals(irr, true, &n);
    if (ret != PFMLIB_SUCCESS)
        return ret;
    if (n < 1)
        return PFMLIB_ERR_IRRINVAL;
    unsigned retired = count_retired(r, &retired_mask);
    bool retired_only = retired == nevt(r);
    bool fine = (irr->flags & PFMLIB_ITA2_RR_NO_FINE_MODE) ? false : fine_possible(r, irr, n);

    if (!fine && !retired_only && n > 1)
        return PFMLIB_ERR_IRRTOOMANY;
    if (n > 2 && fine)
        return PFMLIB_ERR_IRRTOOMANY;

    unsigned base = 0, prefetch = 0;
    bool dup = false;
    if (is_ita2(r)) {
        prefetch = count_prefetch(r);
        base = prefetch ? 2 : 0;
    } else {
        ret = mont_prefetch(r, &prefetch, &base, &dup);
        if (ret != PFMLIB_SUCCESS)
            return ret;
        if ((base > 0 || dup)) {
            uint8_t qc = special_of(r)->cycles_qual;
            for (unsigned i = 0; i < nevt(r); i++)
                if (evt(r, i)->code == qc)
                    return PFMLIB_ERR_FEATCOMB;
        }
    }
    if (!fine) {
        if (retired_only) {
            ret = compute_normal(r, irr, n, is_ita2(r) ? 0 : base, o);
        } else {
            if (is_ita2(r) ? (prefetch && prefetch + retired != nevt(r)) : (prefetch + retired != nevt(r)))
                return PFMLIB_ERR_FEATCOMB;
            ret = compute_single(r, irr, base, o);
            /* DEVIATION: libpfm-3 writes the duplicate for Montecito dual
             * events to IBRP0 again; it belongs in IBRP1. */
            if (ret == PFMLIB_SUCCESS && dup)
                ret = compute_single(r, irr, base + 2, o);
        }
    } else {
        if (prefetch && n != 1)
            return PFMLIB_ERR_IRRTOOMANY;
        ret = compute_fine(r, irr, n, &base, o);
        if (ret == PFMLIB_SUCCESS && dup)
            ret = compute_fine(r, irr, n, &base, o);
    }
    if (ret != PFMLIB_SUCCESS)
        return ret == PFMLIB_ERR_TOOMANY ? PFMLIB_ERR_IRRTOOMANY : ret;

    /* PMC14 / PMC38 (REF §10.2): clear the "ignore" bit of every pair whose
     * address register was written. */
    uint64_t v = 0xdb6;
    for (unsigned i = 0; i < o->nbr_used; i++) {
        switch (o->br[i].num) {
        case 0: v &= ~(1ULL << 1); break;
        case 2: v &= ~(1ULL << 4); break;
        case 4: v &= ~(1ULL << 7); break;
        case 6: v &= ~(1ULL << 10); break;
        default: break;
        }
    }
    if (is_ita2(r) && retired_only && (r->opcm[0].used || r->opcm[1].used)) {
        /* PMC8 qualifies IBRP0/2, PMC9 IBRP1/3 only. */
        for (unsigned i = 0; i < o->nbr_used; i++) {
            unsigned num = o->br[i].num;
            if (((num == 0 || num == 4) && r->opcm[1].used) || ((num == 2 || num == 6) && r->opcm[0].used))
                return PFMLIB_ERR_FEATCOMB;
        }
    }
    if (fine) {
        v |= 1ULL << 13;
    } else if (retired_only) {
        static const unsigned bit[4] = { 1, 4, 7, 10 };
        for (int k = 0; k < 4; k++)
            if (!(retired_mask & (1u << k)) && !(v & (1ULL << bit[k])))
                return PFMLIB_ERR_IRRINVAL;
    }
    unsigned pmc = is_ita2(r) ? 14 : 38;
    if (unavail(r, pmc))
        return PFMLIB_ERR_NOASSIGN;
    return add_pmc(r, pmc, v);
}

/* PMC13 / PMC41 constraint codes indexed by (I<<2 | O<<1 | D) (REF §10.3). */
static const unsigned iod_tab[8] = { 3, 2, 3, 0, 1, 0, 1, 0 };

static int dispatch_drange(struct req *r, bool have_out)
{
    if (!r->param || (!r->drange.used && !r->irange.used))
        return PFMLIB_SUCCESS;
    enum { DR = 1, OP = 2, IR = 4 };
    unsigned iod[4] = { 0, 0, 0, 0 };
    unsigned d8 = r->opcm[0].used ? OP : 0, d9 = r->opcm[1].used ? OP : 0;
    const unsigned dfl[4] = { d8, d9, d8, d9 };

    if (r->drange.used) {
        if (!have_out)
            return PFMLIB_ERR_INVAL;
        unsigned n;
        int ret = check_intervals(&r->drange, false, &n);
        if (ret != PFMLIB_SUCCESS)
            return ret;
        if (n < 1)
            return PFMLIB_ERR_DRRINVAL;
        ret = compute_normal(r, &r->drange, n, 0, &r->drr);
        if (ret != PFMLIB_SUCCESS)
            return ret == PFMLIB_ERR_TOOMANY ? PFMLIB_ERR_DRRTOOMANY : ret;
        for (unsigned i = 0; i < r->drr.nbr_used; i++) {
            unsigned num = r->drr.br[i].num;
            if (!(num & 1))
                iod[num / 2] |= DR | dfl[num / 2];
        }
    }
    if (r->irange.used) {
        if (!have_out)
            return PFMLIB_ERR_INVAL;
        unsigned ipmc = is_ita2(r) ? 14 : 38;
        bool fine = false;
        for (unsigned i = 0; i < r->outp->pfp_pmc_count; i++) {
            if (r->outp->pfp_pmcs[i].reg_num == ipmc) {
                fine = (r->outp->pfp_pmcs[i].reg_value >> 13) & 1;
                break;
            }
        }
        /* In fine mode only the lower-bound pairs (0, 1) count as used:
         * the hardware pairs IBRP2/3 with them. */
        for (unsigned i = 0; i < r->irr.nbr_used; i++) {
            unsigned num = r->irr.br[i].num;
            if (num == 0 || num == 2 || (!fine && (num == 4 || num == 6)))
                iod[num / 2] |= IR | dfl[num / 2];
        }
    }
    uint64_t v = 0x2078fefefefeULL;
    static const unsigned cfg_shift[4] = { 3, 11, 19, 27 };
    for (int k = 0; k < 4; k++) {
        v &= ~(3ULL << cfg_shift[k]);
        v |= (uint64_t)iod_tab[iod[k]] << cfg_shift[k];
        v &= ~(1ULL << (45 + k));
        v |= (uint64_t)(iod[k] ? 1 : 0) << (45 + k);
    }
    unsigned pmc = is_ita2(r) ? 13 : 41;
    if (unavail(r, pmc))
        return PFMLIB_ERR_NOASSIGN;
    return add_pmc(r, pmc, v);
}

/* ------------------------------------------------------------------ */
/* opcode matchers (REF §5)                                            */

static bool has_event(const struct req *r, int idx)
{
    for (unsigned i = 0; i < nevt(r); i++)
        if ((int)r->inp->pfp_events[i].event == idx)
            return true;
    return false;
}

/* Channel bits of PMC15/PMC36: a matcher constrains both of its IBR pairs
 * unless exactly one of its two tagged events is measured. */
static uint64_t opcm_channels(const struct req *r, uint64_t v, int first, int second, unsigned bit_first,
                              unsigned bit_second)
{
    bool h1 = has_event(r, first), h2 = has_event(r, second);
    if (h1 || !h2)
        v &= ~(1ULL << bit_first);
    if (h2 || !h1)
        v &= ~(1ULL << bit_second);
    return v;
}

static int ita2_opcm(struct req *r, bool have_out)
{
    if (!r->param)
        return PFMLIB_SUCCESS;
    uint64_t pmc15 = 0xffffffffULL;
    if (r->irange.used && !have_out)
        return PFMLIB_ERR_INVAL;
    int ret;
    if (r->opcm[0].used || (r->irange.used && r->irr.nbr_used != 0)) {
        uint64_t v = r->opcm[0].used ? r->opcm[0].pmc_val : 0xffffffff3fffffffULL;
        v &= ~3ULL;
        if (r->irange.used)
            v |= (r->irange.flags & PFMLIB_ITA2_RR_INV) ? 2 : 0;   /* ig_ad=0, inv */
        else
            v |= 1;                                               /* ig_ad=1 */
        v |= 1ULL << 2;
        if (unavail(r, 8))
            return PFMLIB_ERR_NOASSIGN;
        if ((ret = add_pmc(r, 8, v)) != PFMLIB_SUCCESS)
            return ret;
        if (r->opcm[0].used)
            pmc15 = opcm_channels(r, pmc15, special_of(r)->tagged[0], special_of(r)->tagged[2], 0, 2);
    }
    if (r->opcm[1].used) {
        if (count_retired(r, NULL) != nevt(r))
            return PFMLIB_ERR_FEATCOMB;
        uint64_t v = (r->opcm[1].pmc_val & ~3ULL) | 1 | 1ULL << 2;
        if (unavail(r, 9))
            return PFMLIB_ERR_NOASSIGN;
        if ((ret = add_pmc(r, 9, v)) != PFMLIB_SUCCESS)
            return ret;
        pmc15 = opcm_channels(r, pmc15, special_of(r)->tagged[1], special_of(r)->tagged[3], 1, 3);
    }
    if (unavail(r, 15))
        return PFMLIB_ERR_NOASSIGN;
    return add_pmc(r, 15, pmc15);
}

/* PMC32/PMC34 mask register: 41-bit mask, slot bits 51:48. */
static int mont_mask_reg(const struct opcm_req *o, uint64_t base, uint64_t *v)
{
    /* DEVIATION: libpfm-3 truncates the 41-bit fields and 1-bit slot flags. */
    if ((o->mask >> 41) || (o->match >> 41) || o->m > 1 || o->i > 1 || o->f > 1 || o->b > 1)
        return PFMLIB_ERR_INVAL;
    base &= ~((1ULL << 41) - 1) & ~(0xfULL << 48);
    *v = base | o->mask | (uint64_t)o->b << 48 | (uint64_t)o->f << 49 | (uint64_t)o->i << 50 |
         (uint64_t)o->m << 51;
    return PFMLIB_SUCCESS;
}

static int mont_opcm(struct req *r)
{
    if (!r->param)
        return PFMLIB_SUCCESS;
    bool u1 = r->opcm[0].used, u2 = r->opcm[1].used;
    if (!u1 && !u2 && !r->irange.used)
        return PFMLIB_SUCCESS;
    int ret;
    if (u1 || (r->irange.used && r->irr.nbr_used)) {
        uint64_t v = 0x030f01ffffffffffULL;
        if (u1 && (ret = mont_mask_reg(&r->opcm[0], v, &v)) != PFMLIB_SUCCESS)
            return ret;
        v &= ~(3ULL << 56);
        if (r->irange.used)
            v |= (uint64_t)((r->irange.flags & PFMLIB_MONT_RR_INV) ? 1 : 0) << 56;
        else
            v |= 1ULL << 57;
        if (unavail(r, 32))
            return PFMLIB_ERR_NOASSIGN;
        if ((ret = add_pmc(r, 32, v)) != PFMLIB_SUCCESS)
            return ret;
        if (u1) {
            if (unavail(r, 33))
                return PFMLIB_ERR_NOASSIGN;
            if ((ret = add_pmc(r, 33, r->opcm[0].match)) != PFMLIB_SUCCESS)
                return ret;
        }
    }
    if (u2) {
        uint64_t v;
        if ((ret = mont_mask_reg(&r->opcm[1], 0x01ffffffffffULL, &v)) != PFMLIB_SUCCESS)
            return ret;
        if (unavail(r, 34) || unavail(r, 35))
            return PFMLIB_ERR_NOASSIGN;
        if ((ret = add_pmc(r, 34, v)) != PFMLIB_SUCCESS)
            return ret;
        if ((ret = add_pmc(r, 35, r->opcm[1].match)) != PFMLIB_SUCCESS)
            return ret;
    }
    /* PMC36 would only be written if it differed from its default
     * 0xfffffff0; clearing channel bits that are already clear never makes
     * it differ, so (like libpfm-3) it is never emitted. */
    return PFMLIB_SUCCESS;
}

/* ------------------------------------------------------------------ */
/* BTB / ETB (REF §8, §9) and IP-EAR                                   */

static int dispatch_branch(struct req *r)
{
    bool found = false, bad_dear = false;
    for (unsigned i = 0; i < nevt(r); i++) {
        unsigned t = evt(r, i)->type;
        found |= t == IA64_EVT_BRANCH;
        bad_dear |= t == IA64_EVT_DEAR_TLB || t == IA64_EVT_DEAR_ALAT;
    }
    bool has_param = r->param && r->branch.used;
    if (!bad_dear && r->param && r->dear.used &&
        (r->dear.mode == PFMLIB_ITA2_EAR_TLB_MODE || r->dear.mode == PFMLIB_ITA2_EAR_ALAT_MODE))
        bad_dear = true;
    if (!found && !has_param && !bad_dear)
        return PFMLIB_SUCCESS;
    uint64_t v = 0;
    if (has_param || found) {
        struct branch_req b = { .tm = 3, .ptm = 3, .ppm = 3 };
        if (has_param)
            b = r->branch;
        /* DEVIATION: libpfm-3 masks these fields to their width silently. */
        if (b.ds > 1 || b.tm > 3 || b.ptm > 3 || b.ppm > 3 || b.brt > 3)
            return PFMLIB_ERR_INVAL;
        unsigned plm;
        int ret = pick_plm(r, b.plm, &plm);
        if (ret != PFMLIB_SUCCESS)
            return ret;
        unsigned pm = r->inp->pfp_flags & PFMLIB_PFP_SYSTEMWIDE ? 1 : 0;
        v = plm | pm << 6 | b.ds << 7 | b.tm << 8 | b.ptm << 10 | b.ppm << 12 | b.brt << 14;
    }
    /* A D-EAR in TLB or ALAT mode needs the branch buffer off (REF §7). */
    if (bad_dear && v != 0)
        return PFMLIB_ERR_EVTINCOMP;
    unsigned pmc = is_ita2(r) ? 12 : 39;
    if (unavail(r, pmc))
        return PFMLIB_ERR_NOASSIGN;
    int ret = add_pmc(r, pmc, v);
    if (ret != PFMLIB_SUCCESS)
        return ret;
    if (found || has_param) {
        if (is_ita2(r)) {
            for (unsigned i = 8; i < 17; i++)
                add_pmd(r, i);
        } else {
            add_pmd(r, 38);
            add_pmd(r, 39);
            for (unsigned i = 48; i < 64; i++)
                add_pmd(r, i);
        }
    }
    return PFMLIB_SUCCESS;
}

static int dispatch_ipear(struct req *r)
{
    if (!r->param || !r->ipear.used)
        return PFMLIB_SUCCESS;
    if (r->branch.used)
        return PFMLIB_ERR_FEATCOMB;
    for (unsigned i = 0; i < nevt(r); i++)
        if (evt(r, i)->type == IA64_EVT_BRANCH)
            return PFMLIB_ERR_FEATCOMB;
    if (r->ipear.delay > 0xff)   /* DEVIATION: 8-bit field, libpfm-3 truncates */
        return PFMLIB_ERR_INVAL;
    unsigned plm;
    int ret = pick_plm(r, r->ipear.plm, &plm);
    if (ret != PFMLIB_SUCCESS)
        return ret;
    unsigned pm = r->inp->pfp_flags & PFMLIB_PFP_SYSTEMWIDE ? 1 : 0;
    uint64_t v = plm | pm << 6 | 4u << 8 | (uint64_t)r->ipear.delay << 11;
    if (unavail(r, 42))
        return PFMLIB_ERR_NOASSIGN;
    if ((ret = add_pmc(r, 42, v)) != PFMLIB_SUCCESS)
        return ret;
    add_pmd(r, 38);
    add_pmd(r, 39);
    for (unsigned i = 48; i < 64; i++)
        add_pmd(r, i);
    return PFMLIB_SUCCESS;
}

/* ------------------------------------------------------------------ */
/* entry point                                                         */

static int check_qualifiers(const struct req *r)
{
    bool opcm = r->opcm[0].used || r->opcm[1].used;
    for (unsigned i = 0; i < nevt(r); i++) {
        if (r->cnt[i].flags & PFMLIB_ITA2_FL_EVT_NO_QUALCHECK)
            continue;
        unsigned q = evt(r, i)->qual;
        if ((r->irange.used && !(q & IA64_Q_IARR)) || (r->drange.used && !(q & IA64_Q_DARR)) ||
            (opcm && !(q & IA64_Q_OPCM)))
            return PFMLIB_ERR_FEATCOMB;
    }
    return PFMLIB_SUCCESS;
}

static int check_range_plm(const struct req *r)
{
    if (!r->drange.used && !r->irange.used)
        return PFMLIB_SUCCESS;
    for (unsigned i = 0; i < nevt(r); i++) {
        unsigned plm = r->inp->pfp_events[i].plm;
        if (plm && plm != r->inp->pfp_dfl_plm)
            return PFMLIB_ERR_FEATCOMB;
    }
    return PFMLIB_SUCCESS;
}

static int check_event(const ia64_pmu_t *pmu, const pfmlib_event_t *e)
{
    if (e->event >= ia64_nevents(pmu))
        return PFMLIB_ERR_INVAL;
    unsigned n = ia64_num_masks(pmu, e->event);
    if (e->num_masks > PFMLIB_MAX_MASKS_PER_EVENT)
        return PFMLIB_ERR_UMASK;
    if (n == 0 && e->num_masks)
        return PFMLIB_ERR_UMASK;
    for (unsigned j = 0; j < e->num_masks; j++)
        if (e->unit_masks[j] >= n)
            return PFMLIB_ERR_UMASK;
    /* No default unit mask is defined for the MESI events: one is required. */
    if (n && e->num_masks == 0)
        return PFMLIB_ERR_UMASK;
    return PFMLIB_SUCCESS;
}

int ia64_dispatch(const ia64_pmu_t *pmu, pfmlib_input_param_t *inp, void *model_in,
                  pfmlib_output_param_t *outp, void *model_out)
{
    if (!inp && !model_in)
        return PFMLIB_ERR_INVAL;
    if (!outp && !model_out)
        return PFMLIB_ERR_INVAL;
    /* libpfm-3 dereferences both generic structures unconditionally. */
    if (!inp || !outp)
        return PFMLIB_ERR_INVAL;
    if (inp->pfp_dfl_plm == 0)
        return PFMLIB_ERR_INVAL;
    if (inp->pfp_event_count >= PFMLIB_MAX_PMCS)
        return PFMLIB_ERR_INVAL;
    if (inp->pfp_event_count > pmu->num_counters)
        return PFMLIB_ERR_NOASSIGN;
    for (unsigned i = 0; i < inp->pfp_event_count; i++) {
        int ret = check_event(pmu, &inp->pfp_events[i]);
        if (ret != PFMLIB_SUCCESS)
            return ret;
    }
    /* The caller may read the two counts and the entries below them; every
     * entry appended is written whole (add_pmc(), add_pmd()).  libpfm-3
     * 3.x cleared the whole 32 KiB structure here, which was 95% of a
     * request's instructions (docs/PERFORMANCE.md "Encoders"); the entries
     * past the counts keep what the caller left there (docs/compat-ia64.md,
     * "The output structure"). */
    outp->pfp_pmc_count = 0;
    outp->pfp_pmd_count = 0;
    memset(outp->reserved, 0, sizeof(outp->reserved));

    if (model_out && !model_in)
        return PFMLIB_ERR_INVAL;

    struct req req;
    struct req *r = &req;
    memset(r, 0, sizeof(*r));
    r->pmu = pmu;
    r->inp = inp;
    r->outp = outp;
    if (model_in) {
        r->param = true;
        if (pmu->model == IA64_MODEL_ITA2)
            req_from_ita2(r, model_in);
        else
            req_from_mont(r, model_in);
    }
    bool have_out = model_out != NULL;

    int ret = PFMLIB_SUCCESS;
    if (r->param) {
        if (check_qualifiers(r) != PFMLIB_SUCCESS || check_range_plm(r) != PFMLIB_SUCCESS)
            ret = PFMLIB_ERR_FEATCOMB;
    }
    if (ret == PFMLIB_SUCCESS)
        ret = dispatch_counters(r);
    if (ret == PFMLIB_SUCCESS)
        ret = dispatch_iear(r);
    if (ret == PFMLIB_SUCCESS)
        ret = dispatch_dear(r);
    if (ret == PFMLIB_SUCCESS)
        ret = dispatch_irange(r, have_out);
    if (ret == PFMLIB_SUCCESS)
        ret = dispatch_drange(r, have_out);
    if (ret == PFMLIB_SUCCESS)
        ret = is_ita2(r) ? ita2_opcm(r, have_out) : mont_opcm(r);
    if (ret == PFMLIB_SUCCESS)
        ret = dispatch_branch(r);
    if (ret == PFMLIB_SUCCESS && !is_ita2(r))
        ret = dispatch_ipear(r);

    /* The range results are written even on failure, as libpfm-3 fills the
     * model output as it goes. */
    if (model_out) {
        if (pmu->model == IA64_MODEL_ITA2) {
            pfmlib_ita2_output_param_t *mo = model_out;
            if (r->irange.used)
                rr_to_out(&r->irr, &mo->pfp_ita2_irange.rr_nbr_used, mo->pfp_ita2_irange.rr_infos,
                          mo->pfp_ita2_irange.rr_br);
            if (r->drange.used)
                rr_to_out(&r->drr, &mo->pfp_ita2_drange.rr_nbr_used, mo->pfp_ita2_drange.rr_infos,
                          mo->pfp_ita2_drange.rr_br);
        } else {
            pfmlib_mont_output_param_t *mo = model_out;
            if (r->irange.used)
                rr_to_out(&r->irr, &mo->pfp_mont_irange.rr_nbr_used, mo->pfp_mont_irange.rr_infos,
                          mo->pfp_mont_irange.rr_br);
            if (r->drange.used)
                rr_to_out(&r->drr, &mo->pfp_mont_drange.rr_nbr_used, mo->pfp_mont_drange.rr_infos,
                          mo->pfp_mont_drange.rr_br);
        }
    }
    return ret;
}
