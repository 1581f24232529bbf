/* IA-64 PMU register file: descriptors of both CPUs, the write path (write
 * masks, forced bits, decoding into compiled state) and side-effect-free
 * reads.
 *
 * Ordering rules of a write (documented here, where they live):
 *   1. The write is masked: bits outside `writable` keep their reset value
 *      (the perfmon write checker, ref §13); a write that tried to change
 *      them is reported with pmusim_model_diag().
 *   2. Lazy cycle counters of the thread are brought up to date at the
 *      write's time (`now`) before anything is decoded, so the new
 *      configuration applies from cycle `now` on.
 *   3. The register is decoded (counter, qualifier or capture unit), then the
 *      routing tables are rebuilt.  Nothing is decoded per record.
 */
#include <string.h>
#include "ia64_priv.h"

#define IA64_PMC4_ENABLE (UINT64_C(1) << 23)

static const char *const ia64_space_names[] = {"PMC", "PMD", "IBR", "DBR", "MSR"};

/* ---- descriptors (ref §2) ---- */

#define RK(k, r, w) { .kind = (k), .reset = (r), .writable = (w) }

const ia64_desc_t ia64_desc_ita2 = {
    .ops = &pmusim_model_ita2,
    .mont = false,
    .nctr_first = 4,
    .nctr_last = 7,
    .pmc = {
        [0] = RK(IA64_RK_PMC0, 0, 0xf1),
        [1] = RK(IA64_RK_OVF_HI, 0, 0),
        [2] = RK(IA64_RK_OVF_HI, 0, 0),
        [3] = RK(IA64_RK_OVF_HI, 0, 0),
        [4] = RK(IA64_RK_CTR_CFG, 0x800000, 0x0fffff7f),
        [5] = RK(IA64_RK_CTR_CFG, 0, 0x0fffff7f),
        [6] = RK(IA64_RK_CTR_CFG, 0, 0x0fffff7f),
        [7] = RK(IA64_RK_CTR_CFG, 0, 0x0fffff7f),
        [8] = RK(IA64_RK_OPC_MASK, UINT64_C(0xffffffff3fffffff), UINT64_C(0xffffffff3ffffffb)),
        [9] = RK(IA64_RK_OPC_MASK, UINT64_C(0xffffffff3ffffffc), UINT64_C(0xffffffff3ffffffb)),
        [10] = RK(IA64_RK_IEAR, 0, 0xffff),
        [11] = RK(IA64_RK_DEAR, 0, 0x030f01cf),
        [12] = RK(IA64_RK_BTB, 0, 0xffff),
        [13] = RK(IA64_RK_DRANGE, UINT64_C(0x00002078fefefefe), UINT64_C(0x0001e00018181818)),
        [14] = RK(IA64_RK_IRANGE, UINT64_C(0x0db60db60db60db6), 0x2492),
        [15] = RK(IA64_RK_OPC_IBR, 0xfffffff0, 0xf),
    },
    .pmd = {
        [0] = RK(IA64_RK_DATA, 0, UINT64_MAX),
        [1] = RK(IA64_RK_DATA, 0, UINT64_MAX),
        [2] = RK(IA64_RK_DATA, 0, UINT64_MAX),
        [3] = RK(IA64_RK_DATA, 0, UINT64_MAX),
        [4] = RK(IA64_RK_CTR, 0, IA64_CTR_MASK),
        [5] = RK(IA64_RK_CTR, 0, IA64_CTR_MASK),
        [6] = RK(IA64_RK_CTR, 0, IA64_CTR_MASK),
        [7] = RK(IA64_RK_CTR, 0, IA64_CTR_MASK),
        [8] = RK(IA64_RK_DATA, 0, UINT64_MAX),
        [9] = RK(IA64_RK_DATA, 0, UINT64_MAX),
        [10] = RK(IA64_RK_DATA, 0, UINT64_MAX),
        [11] = RK(IA64_RK_DATA, 0, UINT64_MAX),
        [12] = RK(IA64_RK_DATA, 0, UINT64_MAX),
        [13] = RK(IA64_RK_DATA, 0, UINT64_MAX),
        [14] = RK(IA64_RK_DATA, 0, UINT64_MAX),
        [15] = RK(IA64_RK_DATA, 0, UINT64_MAX),
        [16] = RK(IA64_RK_DATA, 0, UINT64_C(0xfffffffff)),
        [17] = RK(IA64_RK_DATA, 0, UINT64_MAX),
    },
    .pmc_iear = 10, .pmc_dear = 11, .pmc_btb = 12, .pmc_ipear = 0,
    .pmc_drange = 13, .pmc_irange = 14, .pmc_opc_ibr = 15,
    .pmc_opc = {8, 9},
    .pmd_iear_addr = 0, .pmd_iear_lat = 1,
    .pmd_dear_addr = 2, .pmd_dear_lat = 3, .pmd_dear_ip = 17,
    .pmd_ring_first = 8, .ring_size = IA64_RING_ITA2, .pmd_ring_index = 16, .pmd_ring_ext = 0,
    .events = ia64_events_ita2,
    .facts = ia64_facts_ita2,
};

#define MONT_CTR_CFG RK(IA64_RK_CTR_CFG, 0x2000000, 0x7c7fff7f)
#define MONT_CTR RK(IA64_RK_CTR, 0, IA64_CTR_MASK)
#define MONT_DATA RK(IA64_RK_DATA, 0, UINT64_MAX)

const ia64_desc_t ia64_desc_mont = {
    .ops = &pmusim_model_mont,
    .mont = true,
    .nctr_first = 4,
    .nctr_last = 15,
    .pmc = {
        [0] = RK(IA64_RK_PMC0, 0, 0xfff1),
        [1] = RK(IA64_RK_OVF_HI, 0, 0),
        [2] = RK(IA64_RK_OVF_HI, 0, 0),
        [3] = RK(IA64_RK_OVF_HI, 0, 0),
        [4] = MONT_CTR_CFG, [5] = MONT_CTR_CFG, [6] = MONT_CTR_CFG, [7] = MONT_CTR_CFG,
        [8] = MONT_CTR_CFG, [9] = MONT_CTR_CFG, [10] = MONT_CTR_CFG, [11] = MONT_CTR_CFG,
        [12] = MONT_CTR_CFG, [13] = MONT_CTR_CFG, [14] = MONT_CTR_CFG, [15] = MONT_CTR_CFG,
        [32] = RK(IA64_RK_OPC_MASK, UINT64_C(0x030f01ffffffffff), UINT64_C(0x030f01ffffffffff)),
        [33] = RK(IA64_RK_OPC_MATCH, 0, UINT64_C(0x1ffffffffff)),
        [34] = RK(IA64_RK_OPC_MASK, UINT64_C(0x000f01ffffffffff), UINT64_C(0x000f01ffffffffff)),
        [35] = RK(IA64_RK_OPC_MATCH, 0, UINT64_C(0x1ffffffffff)),
        [36] = RK(IA64_RK_OPC_IBR, 0xfffffff0, 0xf),
        [37] = RK(IA64_RK_IEAR, 0, 0x3fff),
        [38] = RK(IA64_RK_IRANGE, 0xdb6, 0x2492),
        [39] = RK(IA64_RK_BTB, 0, 0xffcf),
        [40] = RK(IA64_RK_DEAR, 0x2000000, 0x000f01cf),
        [41] = RK(IA64_RK_DRANGE, UINT64_C(0x00002078fefefefe), UINT64_C(0x0001e00018181818)),
        [42] = RK(IA64_RK_IPEAR, 0, 0x7ff4f),
    },
    .pmd = {
        [4] = MONT_CTR, [5] = MONT_CTR, [6] = MONT_CTR, [7] = MONT_CTR,
        [8] = MONT_CTR, [9] = MONT_CTR, [10] = MONT_CTR, [11] = MONT_CTR,
        [12] = MONT_CTR, [13] = MONT_CTR, [14] = MONT_CTR, [15] = MONT_CTR,
        [32] = MONT_DATA, [33] = MONT_DATA, [34] = MONT_DATA, [35] = MONT_DATA,
        [36] = MONT_DATA,
        /* PMD37: the kernel table marks it unimplemented (ref §2.2) */
        [38] = RK(IA64_RK_DATA, 0, 0x3f), [39] = MONT_DATA,
        [48] = MONT_DATA, [49] = MONT_DATA, [50] = MONT_DATA, [51] = MONT_DATA,
        [52] = MONT_DATA, [53] = MONT_DATA, [54] = MONT_DATA, [55] = MONT_DATA,
        [56] = MONT_DATA, [57] = MONT_DATA, [58] = MONT_DATA, [59] = MONT_DATA,
        [60] = MONT_DATA, [61] = MONT_DATA, [62] = MONT_DATA, [63] = MONT_DATA,
    },
    .pmc_iear = 37, .pmc_dear = 40, .pmc_btb = 39, .pmc_ipear = 42,
    .pmc_drange = 41, .pmc_irange = 38, .pmc_opc_ibr = 36,
    .pmc_opc = {32, 34},
    .pmd_iear_addr = 34, .pmd_iear_lat = 35,
    .pmd_dear_addr = 32, .pmd_dear_lat = 33, .pmd_dear_ip = 36,
    .pmd_ring_first = 48, .ring_size = IA64_RING_MONT, .pmd_ring_index = 38, .pmd_ring_ext = 39,
    .events = ia64_events_mont,
    .facts = ia64_facts_mont,
};

/* ---- event table lookup ---- */

const ia64_event_info_t *ia64_event_find(const ia64_desc_t *d, uint32_t es, uint32_t umask)
{
    const ia64_event_info_t *tab = d->mont ? ia64_events_mont : ia64_events_ita2;
    size_t lo = 0, hi = d->mont ? ia64_events_mont_count : ia64_events_ita2_count;
    uint32_t key = (es & 0xffu) << 4 | (umask & 0xfu);
    if (es > 0xff || umask > 0xf)
        return NULL;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (tab[mid].key == key)
            return &tab[mid];
        if (tab[mid].key < key)
            lo = mid + 1;
        else
            hi = mid;
    }
    return NULL;
}

/* ---- counters ---- */

/* Decode a counter PMC (ref §3).  The one place deciding whether and what a
 * counter counts, apart from the per-record plm/ism/thread/qualifier checks
 * that ia64_count.c applies through the compiled fields. */
static void ia64_ctr_compile(ia64_model_t *im, uint32_t t, uint32_t i)
{
    ia64_thread_t *th = &im->th[t];
    ia64_ctr_t *c = &th->ctr[i];
    const ia64_desc_t *d = im->d;
    uint64_t v = th->pmc[i];
    uint8_t plm = (uint8_t)(v & 0xf);
    bool pm = (v >> 6) & 1;

    c->programmed = v != d->pmc[i].reset;
    c->ev = (v >> 4) & 1;
    c->oi = (v >> 5) & 1;
    c->es = (uint8_t)(v >> 8);
    c->umask = (uint8_t)((v >> 16) & 0xf);
    c->thres = (uint8_t)((v >> 20) & 0x7);
    c->ism = (uint8_t)((v >> 24) & 0x3);
    c->all = d->mont && ((v >> 26) & 1);
    c->mesi = d->mont ? (uint8_t)((v >> 27) & 0xf) : 0;
    c->clamp_reported = false;

    const ia64_event_info_t *ev = ia64_event_find(d, c->es, c->umask);
    if (ev) {
        c->src = ev->src;
        c->maxincr = ev->maxincr;
        c->qual_raw = ev->qual;
        c->caf = d->mont ? ev->caf : IA64_CAF_ACTIVE;
    } else {
        c->src = IA64_SRC_EVENT;
        c->maxincr = UINT32_MAX;
        c->qual_raw = 0;
        c->caf = IA64_CAF_ACTIVE;
        if (c->programmed && plm)
            pmusim_model_diag(&im->base,
                              "%s thread %u PMC%u: es 0x%02x umask 0x%x is not a %s event; "
                              "the counter counts explicit EVENT records only",
                              d->ops->name, t, i, c->es, c->umask, d->ops->name);
    }
    if (c->src == IA64_SRC_INSN)
        c->chan = c->umask & 3;
    else
        c->chan = (c->qual_raw & IA64_Q_IBRP1) ? 1 : 0;
    if (ev && c->programmed && plm && c->thres >= ev->maxincr)
        pmusim_model_diag(&im->base,
                          "%s thread %u PMC%u: threshold %u is above maxincr-1 = %u of %s; "
                          "the counter can never count",
                          d->ops->name, t, i, c->thres, ev->maxincr - 1u, ev->name);

    /* plm = 0 disables the monitor (SDM Table 7-4); pm selects PSR.pp or
     * PSR.up; ism = 3 counts nothing (ref §3.1); a MESI event with no MESI
     * bit selects no line state. */
    c->enabled = plm != 0 && (pm ? th->psr_pp : th->psr_up) && c->ism != 3 &&
                 !((c->qual_raw & IA64_Q_MESI) && c->mesi == 0);
    if (!d->mont && !(th->pmc[4] & IA64_PMC4_ENABLE))
        c->enabled = false;
    c->accept = 0;
    for (unsigned ia32 = 0; ia32 < 2; ia32++) {
        /* ism: 0 both, 1 IA-32 only, 2 IA-64 only */
        bool set_ok = c->ism == 0 || (c->ism == 1 && ia32) || (c->ism == 2 && !ia32);
        for (unsigned p = 0; p < 4; p++)
            if (set_ok && ((plm >> p) & 1))
                c->accept |= (uint8_t)(1u << (ia32 << 2 | p));
    }
    c->lazy = c->src == IA64_SRC_CYCLES;
    th->lazy_bits = (uint16_t)((th->lazy_bits & ~(1u << i)) | (c->lazy ? 1u << i : 0u));
    th->actv_bits = (uint16_t)((th->actv_bits & ~(1u << i)) |
                               (c->caf == IA64_CAF_ACTIVE ? 1u << i : 0u));
}

/* Effective qualification of every counter of thread t after a change of the
 * counters or of the qualifier registers: only non-trivial checks remain. */
static void ia64_ctr_qual_refresh(ia64_model_t *im, uint32_t t)
{
    ia64_thread_t *th = &im->th[t];
    for (uint32_t i = im->d->nctr_first; i <= im->d->nctr_last; i++) {
        ia64_ctr_t *c = &th->ctr[i];
        c->qual = 0;
        if (c->qual_raw & IA64_Q_DARR) {
            if (!th->dq_trivial)
                c->qual = IA64_Q_DARR;
        } else {
            if ((c->qual_raw & IA64_Q_IARR) && !th->i_trivial[c->chan])
                c->qual |= IA64_Q_IARR;
            if ((c->qual_raw & IA64_Q_OPCM) && !th->o_trivial[c->chan])
                c->qual |= IA64_Q_OPCM;
        }
    }
}

/* The counter slots each fact record of each thread can count for
 * (ia64_model_t.fact_slots): decoded here, when a register changes, so
 * that a fact record costs one look-up when no counter takes it. */
static void ia64_fact_rebuild(ia64_model_t *im)
{
    const ia64_desc_t *d = im->d;
    const uint32_t nth = im->base.nthreads;
    memset(im->fact_slots, 0, sizeof im->fact_slots);
    for (uint32_t f = 1; f < IA64_NFACTS; f++) {
        const ia64_fact_t *fa = &d->facts[f];
        for (uint32_t u = 0; u < nth; u++)
            for (uint32_t i = d->nctr_first; i <= d->nctr_last; i++) {
                const ia64_ctr_t *c = &im->th[u].ctr[i];
                if (!c->enabled || c->lazy)
                    continue;
                const uint32_t key = (uint32_t)c->es << 4 | c->umask;
                bool in = false;
                for (unsigned k = 0; k < fa->nkeys; k++)
                    in |= fa->keys[k] == key;
                if (!in)
                    continue;
                for (uint32_t t = 0; t < nth; t++)
                    if (t == u || c->all || c->caf == IA64_CAF_CAUSAL)
                        im->fact_slots[t][f] |= UINT32_C(1) << (u << 4 | i);
            }
    }
}

/* Rebuild the per-source subscriber lists (who receives thread t's
 * occurrences of source s).  Called after every configuration change. */
void ia64_route_rebuild(ia64_model_t *im)
{
    const ia64_desc_t *d = im->d;
    uint32_t nth = im->base.nthreads;
    memset(im->nsub, 0, sizeof im->nsub);
    im->any_event_ctr = false;
    memset(im->ev_es, 0, sizeof im->ev_es);
    im->capture_any = false;
    im->track_last = false;
    for (uint32_t t = 0; t < nth; t++) {
        ia64_ctr_qual_refresh(im, t);
        const ia64_thread_t *th = &im->th[t];
        if (th->dear_on || th->btb_on || th->ipear_on)
            im->capture_any = true;
        if (th->iear_on)
            im->track_last = true;
        for (uint32_t i = d->nctr_first; i <= d->nctr_last; i++)
            if (th->ctr[i].enabled &&
                (th->ctr[i].qual || (th->ctr[i].oi && im->base.pmi_handler)))
                im->track_last = true; /* oi + handler: the interrupt reports the last ip */
    }
    im->insn_slow = im->track_last || im->capture_any;
    for (uint32_t u = 0; u < nth; u++) {
        for (uint32_t i = d->nctr_first; i <= d->nctr_last; i++) {
            const ia64_ctr_t *c = &im->th[u].ctr[i];
            if (!c->enabled)
                continue;
            im->any_event_ctr = true;
            if (!c->lazy)
                im->ev_es[c->es >> 6] |= UINT64_C(1) << (c->es & 63);
            if (c->lazy || c->src == IA64_SRC_EVENT)
                continue;
            for (uint32_t t = 0; t < nth; t++) {
                if (t != u && !c->all && c->caf != IA64_CAF_CAUSAL)
                    continue;
                uint8_t *n = &im->nsub[t][c->src];
                im->sub[t][c->src][*n] = (ia64_sub_t){.thread = (uint8_t)u, .idx = (uint8_t)i};
                (*n)++;
            }
        }
    }
    for (uint32_t t = 0; t < nth; t++) {
        im->nqsub[t] = 0;
        for (uint32_t s = IA64_SRC_INSN; s < IA64_SRC_COUNT; s++)
            for (unsigned j = 0; j < im->nsub[t][s]; j++) {
                ia64_sub_t sb = im->sub[t][s][j];
                if (im->th[sb.thread].ctr[sb.idx].qual)
                    im->qsub[t][im->nqsub[t]++] =
                        (ia64_qsub_t){.src = (uint8_t)s, .thread = sb.thread, .idx = sb.idx};
            }
    }
    for (uint32_t t = 0; t < nth; t++)
        for (unsigned cs = 0; cs < 3; cs++) {
            uint32_t s = IA64_SRC_BRANCH_EVENT + cs;
            im->cap_exact[t][cs] = false;
            for (unsigned acc = 0; acc < 8; acc++)
                im->cap_any[t][cs][acc] = im->cap_act[t][cs][acc] = 0;
            for (unsigned j = 0; j < im->nsub[t][s]; j++) {
                ia64_sub_t sb = im->sub[t][s][j];
                const ia64_ctr_t *c = &im->th[sb.thread].ctr[sb.idx];
                uint32_t bit = UINT32_C(1) << (sb.thread << 4 | sb.idx);
                if (c->qual)
                    im->cap_exact[t][cs] = true;
                for (unsigned acc = 0; acc < 8; acc++)
                    if ((c->accept >> acc) & 1) {
                        if (c->caf == IA64_CAF_ACTIVE)
                            im->cap_act[t][cs][acc] |= bit;
                        else
                            im->cap_any[t][cs][acc] |= bit;
                    }
            }
        }
    ia64_fact_rebuild(im);
    ia64_sig_invalidate(im);
    for (uint32_t t = 0; t < nth; t++) {
        im->nsrcs[t] = 0;
        for (uint32_t s = IA64_SRC_INSN; s < IA64_SRC_COUNT; s++) {
            /* sources raised outside the per-record predicate loop */
            if (s == IA64_SRC_ISA_TRANSITION || s == IA64_SRC_CPL_CHANGE ||
                s == IA64_SRC_BRANCH_EVENT || s == IA64_SRC_DEAR_EVENT || s == IA64_SRC_IEAR_EVENT ||
                s == IA64_SRC_THREAD_SWITCH)
                continue;
            if (im->nsub[t][s])
                im->srcs[t][im->nsrcs[t]++] = (uint8_t)s;
        }
    }
    im->key_need = 0;
    im->sig_none = true;
    for (uint32_t t = 0; t < nth; t++)
        im->sig_none &= im->nsrcs[t] == 0;
    for (uint32_t t = 0; t < nth; t++)
        for (unsigned j = 0; j < im->nsrcs[t]; j++)
            im->key_need |= ia64_key_need_of(im->srcs[t][j]);
    if (im->key_need & IA64_NEED_MEM)
        im->key_need &= (uint8_t)~IA64_NEED_ST;
    for (uint32_t t = 0; t < IA64_MAX_THREADS; t++) {
        im->reach[t] = 0;
        for (unsigned j = 0; t < nth && j < im->nsrcs[t]; j++) {
            const uint8_t s = im->srcs[t][j];
            for (unsigned q = 0; q < im->nsub[t][s]; q++)
                im->reach[t] |= UINT64_C(1) << (im->sub[t][s][q].thread << 4 | im->sub[t][s][q].idx);
        }
    }
    ia64_classes_update(im); /* the headroom by thread with the new reach */
}

/* Current count of counter (t, i) as a read returns it: bits 46:0
 * including the deferred and lazy parts; bits 63:47 read as 0.  The SDM
 * allows either sign extension or zeros in the unimplemented bits (ref §1);
 * the project's specification (issue "Simulator: the Itanium 2 and
 * Montecito PMU models") asks for zeros, see docs/sim-ia64.md.  No side
 * effects. */
uint64_t ia64_ctr_read(const ia64_model_t *im, uint32_t t, uint32_t i)
{
    const ia64_ctr_t *c = &im->th[t].ctr[i];
    uint64_t v = ia64_ctr_count(im, t, i);
    if (c->lazy && c->running && im->now > c->since)
        v += im->now - c->since;
    return v & IA64_CTR_MASK;
}

/* ---- create / destroy ---- */

static void ia64_thread_reset(ia64_model_t *im, uint32_t t)
{
    const ia64_desc_t *d = im->d;
    ia64_thread_t *th = &im->th[t];
    memset(th, 0, sizeof *th);
    th->psr_up = th->psr_pp = true;
    th->active = true;
    th->plm = 0; /* architectural reset privilege level until the first instruction */
    for (uint32_t n = 0; n < IA64_NREGS; n++) {
        th->pmc[n] = d->pmc[n].reset;
        th->pmd[n] = d->pmd[n].reset;
    }
    for (uint32_t i = d->nctr_first; i <= d->nctr_last; i++) {
        th->ctr[i].ovf_at = IA64_NO_CYCLE;
        ia64_ctr_compile(im, t, i);
    }
    th->frozen = th->pmc[0] & 1;
    th->freeze_cycle = IA64_NO_CYCLE;
    th->ipear_last_cycle = IA64_NO_CYCLE;
    ia64_qual_compile(im, t);
    ia64_capture_compile(im, t);
}

pmusim_model_t *ia64_model_create(const ia64_desc_t *d, uint32_t nthreads, GError **error)
{
    if (nthreads == 0 || nthreads > d->ops->max_threads) {
        g_set_error(error, PMUSIM_SIM_ERROR, PMUSIM_SIM_ERROR_MISMATCH,
                    "%s: %u hardware threads requested, the PMU model supports 1 to %u",
                    d->ops->name, nthreads, d->ops->max_threads);
        return NULL;
    }
    ia64_model_t *im = g_new0(ia64_model_t, 1);
    pmusim_model_base_init(&im->base, d->ops, nthreads);
    im->d = d;
    for (uint32_t t = 0; t < nthreads; t++)
        ia64_thread_reset(im, t);
    im->next_lazy = IA64_NO_CYCLE;
    im->retire_cycle = IA64_NO_CYCLE;
    for (uint32_t t = 0; t < nthreads; t++)
        ia64_lazy_update_thread(im, t);
    ia64_route_rebuild(im);
    return &im->base;
}

void ia64_model_destroy(pmusim_model_t *m)
{
    if (!m)
        return;
    pmusim_model_base_clear(m);
    g_free(ia64_model(m));
}

void ia64_model_set_psr(pmusim_model_t *m, uint32_t thread, bool up, bool pp)
{
    ia64_model_t *im = ia64_model(m);
    if (thread >= m->nthreads)
        return;
    ia64_thread_t *th = &im->th[thread];
    ia64_materialize(im);
    th->psr_up = up;
    th->psr_pp = pp;
    for (uint32_t i = im->d->nctr_first; i <= im->d->nctr_last; i++)
        ia64_ctr_compile(im, thread, i);
    ia64_lazy_update_thread(im, thread);
    ia64_route_rebuild(im);
}

/* ---- writes ---- */

static uint64_t ia64_apply_mask(ia64_model_t *im, uint32_t t, const char *space, uint32_t num,
                                const ia64_regdesc_t *rd, uint64_t value)
{
    uint64_t kept = (value ^ rd->reset) & ~rd->writable;
    if (kept)
        pmusim_model_diag(&im->base,
                          "%s thread %u %s%u: write 0x%016" G_GINT64_MODIFIER "x tried to change "
                          "non-writable bits 0x%016" G_GINT64_MODIFIER "x; they keep their reset "
                          "value",
                          im->d->ops->name, t, space, num, value, kept);
    return (value & rd->writable) | (rd->reset & ~rd->writable);
}

static void ia64_write_pmc(ia64_model_t *im, uint32_t t, uint32_t num, uint64_t value,
                           const char *label)
{
    const ia64_desc_t *d = im->d;
    const ia64_regdesc_t *rd = &d->pmc[num];
    ia64_thread_t *th = &im->th[t];
    uint64_t v = ia64_apply_mask(im, t, "PMC", num, rd, value);

    if (rd->kind == IA64_RK_CTR_CFG && !d->mont && num == 4 && !(v & IA64_PMC4_ENABLE)) {
        /* perfmon forces the Itanium 2 PMC4 power-enable bit (ref §13 step 4):
         * libpfm-3 leaves it to the kernel, so every encoding from libpfm
         * meets this fix-up: a note, not a diagnostic (one for all threads) */
        (void)t;
        pmusim_model_note(&im->base,
                          "ita2 PMC4: bit 23 (PMU enable) written as 0; set to 1 as the perfmon "
                          "write path does (libpfm-3 leaves it to the kernel)");
        v |= IA64_PMC4_ENABLE;
    }
    uint64_t old = th->pmc[num];
    /* counts up to `now` belong to the old configuration */
    ia64_materialize(im);
    ia64_lazy_update_thread(im, t);
    th->pmc[num] = v;
    switch ((ia64_regkind_t)rd->kind) {
    case IA64_RK_PMC0:
        ia64_pmc0_written(im, t, old);
        return;
    case IA64_RK_OVF_HI:
        return;
    case IA64_RK_CTR_CFG:
        if (!d->mont && num == 4) {
            for (uint32_t i = d->nctr_first; i <= d->nctr_last; i++)
                ia64_ctr_compile(im, t, i);
        } else {
            ia64_ctr_compile(im, t, num);
        }
        g_strlcpy(th->label[num], label, sizeof th->label[num]);
        ia64_slot_reset(im, t, num);
        break;
    case IA64_RK_OPC_MASK:
    case IA64_RK_OPC_MATCH:
    case IA64_RK_OPC_IBR:
    case IA64_RK_DRANGE:
    case IA64_RK_IRANGE:
        ia64_qual_compile(im, t);
        break;
    case IA64_RK_IEAR:
    case IA64_RK_DEAR:
    case IA64_RK_BTB:
    case IA64_RK_IPEAR:
        ia64_capture_compile(im, t);
        break;
    default:
        break;
    }
    ia64_lazy_update_thread(im, t);
    ia64_route_rebuild(im);
}

static void ia64_write_pmd(ia64_model_t *im, uint32_t t, uint32_t num, uint64_t value)
{
    const ia64_regdesc_t *rd = &im->d->pmd[num];
    ia64_thread_t *th = &im->th[t];
    if (rd->kind == IA64_RK_CTR) {
        /* bits 63:47 are ignored on writes (SDM Table 7-3): no diag, software
         * routinely writes sign-extended reload values */
        ia64_materialize(im);
        ia64_lazy_update_thread(im, t);
        th->ctr[num].value = value & IA64_CTR_MASK;
        ia64_lazy_update_thread(im, t);
        /* a value is no input of the classes, only of the headroom of the
         * deferred slots; open-cycle counts still take the class change's
         * path (ia64_classes_update() moves them to pend) as before.  The
         * front door reloads a counter at every sample (issue 12). */
        if (im->cmask)
            ia64_classes_update(im);
        else
            ia64_headroom_update(im);
        return;
    }
    th->pmd[num] = ia64_apply_mask(im, t, "PMD", num, rd, value);
}

static void ia64_write_dbg(ia64_model_t *im, uint32_t t, bool ibr, uint32_t num, uint64_t value)
{
    ia64_thread_t *th = &im->th[t];
    if (num & 1) {
        /* perfmon clears the breakpoint enables so no debug fault is raised
         * (ref §13 step 5); the PMU still uses the match */
        uint64_t fault_bits = ibr ? UINT64_C(1) << 63 : UINT64_C(3) << 62;
        if (value & fault_bits) {
            pmusim_model_diag(&im->base,
                              "%s thread %u %s%u: breakpoint enable bits 0x%016" G_GINT64_MODIFIER
                              "x cleared as the perfmon write path does",
                              im->d->ops->name, t, ibr ? "IBR" : "DBR", num, value & fault_bits);
            value &= ~fault_bits;
        }
    }
    ia64_materialize(im);
    ia64_lazy_update_thread(im, t);
    if (ibr)
        th->ibr[num] = value;
    else
        th->dbr[num] = value;
    ia64_qual_compile(im, t);
    ia64_lazy_update_thread(im, t);
    ia64_route_rebuild(im);
}

gboolean ia64_write_reg(pmusim_model_t *m, const pmusim_regwrite_t *w, GError **error)
{
    ia64_model_t *im = ia64_model(m);
    ia64_unsuspend(im);
    const char *name = im->d->ops->name;
    if (w->thread >= m->nthreads) {
        g_set_error(error, PMUSIM_SIM_ERROR, PMUSIM_SIM_ERROR_REG,
                    "%s: write of %s%u for hardware thread %u, the model has %u thread(s)", name,
                    w->space <= PMUSIM_REG_MSR ? ia64_space_names[w->space] : "?", w->num,
                    w->thread, m->nthreads);
        return FALSE;
    }
    switch (w->space) {
    case PMUSIM_REG_PMC:
        if (w->num < IA64_NREGS && im->d->pmc[w->num].kind != IA64_RK_NONE) {
            ia64_write_pmc(im, w->thread, w->num, w->value, w->label);
            return TRUE;
        }
        break;
    case PMUSIM_REG_PMD:
        if (w->num < IA64_NREGS && im->d->pmd[w->num].kind != IA64_RK_NONE) {
            ia64_write_pmd(im, w->thread, w->num, w->value);
            return TRUE;
        }
        break;
    case PMUSIM_REG_IBR:
    case PMUSIM_REG_DBR:
        if (w->num < IA64_NDBG) {
            ia64_write_dbg(im, w->thread, w->space == PMUSIM_REG_IBR, w->num, w->value);
            return TRUE;
        }
        break;
    default:
        break;
    }
    pmusim_model_diag(m, "%s thread %u: write of unimplemented register %s%u = 0x%" G_GINT64_MODIFIER
                         "x ignored",
                      name, w->thread, w->space <= PMUSIM_REG_MSR ? ia64_space_names[w->space] : "?",
                      w->num, w->value);
    return TRUE;
}

/* ---- reads (no side effects on the registers: a suspended lean run's
 * deferred bookkeeping is written first, which changes no value) ---- */

static gboolean ia64_read_reg_sus(pmusim_model_t *m, pmusim_regspace_t space, uint32_t num,
                                  uint32_t thread, uint64_t *value);

gboolean ia64_read_reg(pmusim_model_t *m, pmusim_regspace_t space, uint32_t num, uint32_t thread,
                       uint64_t *value)
{
    const ia64_model_t *im = ia64_model(m);
    /* (a tail call: no call before the reads, whose registers the front
     * door's reads at every interrupt would otherwise save; issue 12) */
    if (__builtin_expect(im->lean_sus, 0))
        return ia64_read_reg_sus(m, space, num, thread, value);
    if (thread >= m->nthreads)
        return FALSE;
    const ia64_thread_t *th = &im->th[thread];
    switch (space) {
    case PMUSIM_REG_PMC:
        if (num >= IA64_NREGS || im->d->pmc[num].kind == IA64_RK_NONE)
            return FALSE;
        *value = th->pmc[num];
        return TRUE;
    case PMUSIM_REG_PMD:
        if (num >= IA64_NREGS || im->d->pmd[num].kind == IA64_RK_NONE)
            return FALSE;
        if (im->d->pmd[num].kind == IA64_RK_CTR)
            *value = ia64_ctr_read(im, thread, num);
        else
            *value = th->pmd[num];
        return TRUE;
    case PMUSIM_REG_IBR:
        if (num >= IA64_NDBG)
            return FALSE;
        *value = th->ibr[num];
        return TRUE;
    case PMUSIM_REG_DBR:
        if (num >= IA64_NDBG)
            return FALSE;
        *value = th->dbr[num];
        return TRUE;
    default:
        return FALSE;
    }
}

/* ia64_read_reg() with a suspended lean run: its state written first. */
static __attribute__((noinline, cold)) gboolean ia64_read_reg_sus(pmusim_model_t *m,
                                                                 pmusim_regspace_t space,
                                                                 uint32_t num, uint32_t thread,
                                                                 uint64_t *value)
{
    ia64_lean_flush(ia64_model(m));
    return ia64_read_reg(m, space, num, thread, value);
}
