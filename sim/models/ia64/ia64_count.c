/* IA-64 counting: the consume() hot path, cycle closing, thresholds,
 * overflow, freeze and the PMU interrupt (SDM Vol.2 §7.2.1/7.2.2 excerpt in
 * ../shared/seeds/003_*; ref §1, §3.1).
 *
 * Per instruction record the work is: compare the cycle with the open one,
 * compare the privilege level / instruction set with the thread's previous
 * ones, look the record's signature up in the cache (the set of unqualified
 * counters it increments), keep that mask for the cycle and add it, bit
 * sliced, to the deferred planes: independent of the number of counters.
 * Closing a cycle costs nothing per counter unless a counter needs exact
 * treatment (thresholds, maxincr clamps, a possible overflow); see the
 * counting-state comment in ia64_priv.h. */
#include <string.h>
#include "ia64_priv.h"

#define IA64_PMI_REARM_MAX 64u
_Static_assert(IA64_SIG_SLOTS == 1u << 8, "signature cache indexed by 8 hash bits");

/* ---- lazy cycle counters ---- */

/* a + b, or IA64_NO_CYCLE when the sum does not fit 64 bits: an overflow
 * time past cycle 2^64 - 2 never comes (issue 15: a wrapped time would make
 * the idle-gap loop run forever). */
static inline uint64_t ia64_sat_add(uint64_t a, uint64_t b)
{
    uint64_t s;
    return __builtin_add_overflow(a, b, &s) || s == IA64_NO_CYCLE ? IA64_NO_CYCLE : s;
}

static bool ia64_lazy_should_run(const ia64_thread_t *th, const ia64_ctr_t *c)
{
    if (!c->enabled || th->frozen || c->thres != 0)
        return false;
    if (!((c->accept >> ((unsigned)th->ia32 << 2 | th->plm)) & 1))
        return false;
    return c->caf != IA64_CAF_ACTIVE || th->active;
}

void ia64_lazy_recompute_next(ia64_model_t *im)
{
    uint64_t next = IA64_NO_CYCLE;
    /* the lazy counters that run (run_bits: c->running of each counter;
     * issue 12: every Montecito thread switch starts or stops a cycle
     * counter of type active, and the scan of every counter of both
     * threads was most of the switch) */
    for (uint32_t t = 0; t < im->base.nthreads; t++)
        for (unsigned m = (unsigned)(im->th[t].lazy_bits & im->th[t].run_bits); m; m &= m - 1) {
            const ia64_ctr_t *c = &im->th[t].ctr[__builtin_ctz(m)];
            if (c->ovf_at < next)
                next = c->ovf_at;
        }
    im->next_lazy = next;
}

/* Bring thread t's lazy counters of `some` to `now` and re-decide whether they run.
 * next_lazy is recomputed only when a counter's running state or overflow
 * cycle changed (issue 12: a Montecito thread switch changes neither for a
 * counter that keeps running, whose overflow cycle stays where it was, and
 * the scan of every counter of every thread was most of its cost). */
static inline void ia64_lazy_update_some(ia64_model_t *im, uint32_t t, unsigned some)
{
    ia64_thread_t *th = &im->th[t];
    uint64_t now = im->now;
    bool changed = false;
    /* the counters that are lazy or running, in ascending order (a
     * Montecito THREAD record calls this; most configurations have none) */
    for (unsigned m = ((unsigned)th->lazy_bits | th->run_bits) & some; m; m &= m - 1) {
        const uint32_t i = (uint32_t)__builtin_ctz(m);
        ia64_ctr_t *c = &th->ctr[i];
        const bool was_running = c->running;
        const uint64_t was_ovf = c->ovf_at;
        if (c->running && now > c->since)
            c->value = (c->value + (now - c->since)) & IA64_CTR_MASK;
        c->since = now;
        c->running = c->lazy && ia64_lazy_should_run(th, c);
        th->run_bits = (uint16_t)((th->run_bits & ~(1u << i)) | (c->running ? 1u << i : 0u));
        /* the cycle whose increment carries out of bit 46 */
        c->ovf_at = c->running ? ia64_sat_add(now, IA64_CTR_WRAP - c->value - 1) : IA64_NO_CYCLE;
        changed |= c->running != was_running || c->ovf_at != was_ovf;
    }
    if (changed)
        ia64_lazy_recompute_next(im);
}

void ia64_lazy_update_thread(ia64_model_t *im, uint32_t t)
{
    ia64_lazy_update_some(im, t, ~0u);
}

/* ---- overflow, freeze, interrupt ---- */

/* pmusim_model_log() of one of the model's fixed texts followed by "PMD<reg>"
 * (reg < IA64_NREGS) when reg is not UINT32_MAX, without printf: every
 * interrupt logs an overflow and a freeze, and their formatting was a
 * tenth of the interrupt path (issue 12).  The same entry as
 * pmusim_model_log() makes (zero-padded text), under the same bound. */
static void ia64_log_fixed(ia64_model_t *im, uint64_t cycle, uint32_t t, const char *text,
                           size_t len, uint32_t reg)
{
    pmusim_model_t *m = &im->base;
    if (m->log->len >= PMUSIM_LOG_MAX) {
        m->log_dropped++;
        return;
    }
    pmusim_sim_event_t ev = {.cycle = cycle, .thread = t};
    _Static_assert(sizeof ev.what > 40, "the fixed texts fit");
    memcpy(ev.what, text, len);
    if (reg != UINT32_MAX) {
        memcpy(ev.what + len, "PMD", 3);
        len += 3;
        if (reg >= 10)
            ev.what[len++] = (char)('0' + reg / 10);
        ev.what[len] = (char)('0' + reg % 10);
    }
    g_array_append_val(m->log, ev);
}
#define IA64_LOG_FIXED(im, cycle, t, text, reg) \
    ia64_log_fixed((im), (cycle), (t), "" text, sizeof(text) - 1, (reg))

static void ia64_overflow(ia64_model_t *im, uint32_t t, uint32_t i, uint64_t cycle)
{
    ia64_thread_t *th = &im->th[t];
    ia64_ctr_t *c = &th->ctr[i];
    c->overflows++;
    im->obs_ovf |= UINT64_C(1) << (t << 4 | i);
    /* PMC0 bit i is the overflow bit of PMDi (SDM Table 7-7) */
    th->pmc[0] |= UINT64_C(1) << i;
    _Static_assert(IA64_MAX_CTRS <= 100, "two decimal digits");
    IA64_LOG_FIXED(im, cycle, t, "overflow ", i);
    if (c->ev)
        IA64_LOG_FIXED(im, cycle, t, "external notification ", i);
    if (c->oi) {
        th->ovf_pending_irq = true;
        im->irq_pending = true;
    }
}

static uint64_t ia64_oi_mask(const ia64_model_t *im, const ia64_thread_t *th)
{
    uint64_t mask = 0;
    for (uint32_t i = im->d->nctr_first; i <= im->d->nctr_last; i++)
        if (th->ctr[i].oi)
            mask |= UINT64_C(1) << i;
    return mask;
}

static void ia64_freeze(ia64_model_t *im, uint32_t t, uint64_t cycle)
{
    ia64_thread_t *th = &im->th[t];
    th->pmc[0] |= 1;
    if (!th->frozen) {
        IA64_LOG_FIXED(im, cycle, t, "freeze (PMC0.fr set): counting stops", UINT32_MAX);
        th->frozen = true;
        th->freeze_cycle = cycle;
        ia64_lazy_update_thread(im, t);
        ia64_classes_update(im);
    }
}

/* Raise the interrupts of the overflows detected in `cycle`: set PMC0.fr,
 * then call the engine, which logs and runs the OS handler.  Counting stops
 * from cycle `stop`: cycle + 1 for an overflow of `cycle` (all counters of
 * the cycle were updated before the freeze), the write's own time for an
 * interrupt re-raised by a PMC0 write.  The handler's writes take effect at
 * `stop`. */
static void ia64_raise_irqs(ia64_model_t *im, uint64_t cycle, uint64_t stop)
{
    uint64_t saved_now = im->now;
    bool saved_irq = im->in_irq;
    im->now = stop;
    im->in_irq = true;
    for (uint32_t t = 0; t < im->base.nthreads; t++) {
        ia64_thread_t *th = &im->th[t];
        if (!th->ovf_pending_irq)
            continue;
        th->ovf_pending_irq = false;
        ia64_freeze(im, t, cycle);
        /* the front door's sample IP: the thread's last retirement of the
         * cycle (tracked while a counter has oi = 1 and a handler was
         * installed before its PMC was written) */
        im->base.pmi_ip = th->last_ip;
        pmusim_model_pmi(&im->base, cycle, t);
    }
    im->in_irq = saved_irq;
    im->now = saved_now > stop ? saved_now : stop;
}

static void ia64_irq_drain(ia64_model_t *im, uint64_t cycle, uint64_t stop);

/* A write to PMC0 (freeze and overflow bits).  Clearing fr while an overflow
 * bit of a counter with oi=1 is still set raises one more interrupt (the SDM
 * excerpt: no further interrupt only if software clears the overflow bit
 * before or together with the freeze bit), provided PSR.up or PSR.pp is 1. */
void ia64_pmc0_written(ia64_model_t *im, uint32_t t, uint64_t old)
{
    ia64_thread_t *th = &im->th[t];
    /* PMC0 holds no routing input (ia64_route_rebuild()): only the freeze
     * bit, through the slot classes (stopped).  A write that leaves the
     * freeze as it was (the handler's first write: overflow bits cleared,
     * fr kept) changes no class either; with no open-cycle counts
     * (ia64_classes_update()'s only other work) it needs nothing. */
    const bool was_frozen = th->frozen;
    if (th->pmc[0] & 1) {
        if (!th->frozen) {
            th->frozen = true;
            th->freeze_cycle = im->now;
        }
        ia64_lazy_update_thread(im, t);
        if (!was_frozen || im->cmask)
            ia64_classes_update(im);
        return;
    }
    th->frozen = false;
    th->freeze_cycle = IA64_NO_CYCLE;
    ia64_lazy_update_thread(im, t);
    if (was_frozen || im->cmask)
        ia64_classes_update(im);
    if ((old & 1) && (th->pmc[0] & ia64_oi_mask(im, th)) && (th->psr_up || th->psr_pp)) {
        /* Taken at once: the freeze holds from the write's time `now` for
         * every counter (issue 10: raised as if at now - 1, the cycle
         * counter counted cycle `now` while the event counters stopped).
         * Worded without "overflow": no counter overflowed here. */
        pmusim_model_log(&im->base, im->now, t,
                         "freeze cleared with PMC0 bits 0x%" G_GINT64_MODIFIER "x still set: "
                         "interrupt re-raised",
                         th->pmc[0] & ia64_oi_mask(im, th));
        th->ovf_pending_irq = true;
        im->irq_pending = true;
        /* inside a handler the interrupt follows its return (ia64_irq_drain) */
        if (!im->in_irq)
            ia64_irq_drain(im, im->now, im->now);
    }
}

/* Lazy counters whose increment in `cycle` wraps them. */
static void ia64_lazy_overflow_at(ia64_model_t *im, uint64_t cycle)
{
    for (uint32_t t = 0; t < im->base.nthreads; t++) {
        ia64_thread_t *th = &im->th[t];
        for (uint32_t i = im->d->nctr_first; i <= im->d->nctr_last; i++) {
            ia64_ctr_t *c = &th->ctr[i];
            if (!c->running || c->ovf_at != cycle)
                continue;
            c->value = 0; /* 2^47 wraps to 0 */
            c->since = cycle + 1;
            c->ovf_at = ia64_sat_add(cycle, IA64_CTR_WRAP);
            ia64_overflow(im, t, i, cycle);
        }
    }
    ia64_lazy_recompute_next(im);
}

/* Deliver the pending interrupts of `cycle` (stop: ia64_raise_irqs()) and
 * those re-raised while a handler ran. */
static void ia64_irq_drain(ia64_model_t *im, uint64_t cycle, uint64_t stop)
{
    for (unsigned round = 0; round < IA64_PMI_REARM_MAX; round++) {
        if (!im->irq_pending)
            return;
        im->irq_pending = false;
        ia64_raise_irqs(im, cycle, stop);
    }
    pmusim_model_diag(&im->base, "%s: interrupt handler re-raised the PMU interrupt more than %u "
                                 "times at cycle %" G_GUINT64_FORMAT "; giving up",
                      im->d->ops->name, IA64_PMI_REARM_MAX, cycle);
    for (uint32_t t = 0; t < im->base.nthreads; t++)
        im->th[t].ovf_pending_irq = false;
    im->irq_pending = false;
}

/* ---- bit-sliced counts ---- */

static inline uint64_t ia64_gather(const uint64_t *planes, unsigned n, unsigned k)
{
    uint64_t v = 0;
    for (unsigned i = 0; i < n; i++)
        v |= ((planes[i] >> k) & 1) << i;
    return v;
}

/* Slot k's deferred count in cp, lp and the id counts (including the open
 * cycle's part). */
static inline uint64_t ia64_column(const ia64_model_t *im, unsigned k)
{
    uint64_t v = ia64_gather(im->cp, IA64_CP_PLANES, k) + ia64_gather(im->lp, im->lp_hi, k);
    for (uint32_t j = 1; j < im->nids; j++)
        if ((im->id_mask[j] >> k) & 1)
            v += im->id_cnt[j];
    return v;
}

/* Start a new signature-cache generation: every cached answer is stale.
 * The tag wraps after 2^23 generations; the cache is cleared then, and tag
 * 0 (which a cleared entry carries) is skipped. */
void ia64_sig_invalidate(ia64_model_t *im)
{
    im->sig_gen++;
    if ((im->sig_gen & IA64_GEN_MASK) == 0) {
        memset(im->sig_cache, 0, sizeof im->sig_cache);
        memset(im->dxtab, 0, sizeof im->dxtab);
        im->sig_gen++;
    }
    im->gen_tag = (uint64_t)(im->sig_gen & IA64_GEN_MASK) << IA64_GEN_SHIFT;
}

/* Add n to every slot of mask in the planes lp. */
static void ia64_lp_add(ia64_model_t *im, uint64_t mask, uint64_t n)
{
    for (unsigned b = 0; n >> b; b++) {
        if (!((n >> b) & 1))
            continue;
        uint64_t c = mask;
        unsigned j = b;
        while (c) {
            uint64_t carry = im->lp[j] & c;
            im->lp[j] ^= c;
            c = carry;
            j++;
        }
        if (j > im->lp_hi)
            im->lp_hi = j;
    }
}

/* Move the id counts into the bit planes (the columns do not change). */
static void ia64_ids_flush(ia64_model_t *im)
{
    for (uint32_t j = 1; j < im->nids; j++) {
        if (im->id_cnt[j] && im->id_mask[j])
            ia64_lp_add(im, im->id_mask[j], im->id_cnt[j]);
        im->id_cnt[j] = 0;
    }
}

/* The id of D mask dm, allocated on first use; a full table is flushed and
 * restarted (the signature cache is invalidated with it). */
static uint32_t ia64_id_of(ia64_model_t *im, uint64_t dm)
{
    if (!dm)
        return 0;
    if (im->nids == 0)
        im->nids = 1;
    for (uint32_t j = 1; j < im->nids; j++)
        if (im->id_mask[j] == dm)
            return j;
    if (im->nids == IA64_NIDS) {
        ia64_ids_flush(im);
        im->nids = 1;
        ia64_sig_invalidate(im);
    }
    im->id_mask[im->nids] = dm;
    im->id_cnt[im->nids] = 0;
    return im->nids++;
}

static void ia64_column_clear(ia64_model_t *im, unsigned k)
{
    uint64_t keep = ~(UINT64_C(1) << k);
    ia64_ids_flush(im);
    for (unsigned i = 0; i < IA64_CP_PLANES; i++)
        im->cp[i] &= keep;
    for (unsigned i = 0; i < im->lp_hi; i++)
        im->lp[i] &= keep;
}

/* Slot k's count in the open cycle (records with a mask). */
static inline uint64_t ia64_cycle_count(const ia64_model_t *im, unsigned k)
{
    uint64_t n = 0;
    for (uint32_t j = 0; j < im->cyc_n; j++)
        n += (im->cyc_masks[j] >> k) & 1;
    if (im->cyc_folded)
        n += im->cyc_d[k];
    return n;
}

/* Counter (t, i) as a read sees it: closed cycles only. */
uint64_t ia64_ctr_count(const ia64_model_t *im, uint32_t t, uint32_t i)
{
    unsigned k = t << 4 | i;
    uint64_t v = im->th[t].ctr[i].value;
    if ((im->dmask >> k) & 1)
        v += ia64_column(im, k) - ia64_cycle_count(im, k);
    else if ((im->e1mask >> k) & 1)
        v += ia64_column(im, k);
    return v;
}

/* The smallest of h over the D and maxincr-1 slots (min_headroom) and over
 * those of each thread's reach (lim_thr), each plus base (UINT64_MAX:
 * none). */
static inline void ia64_headroom_set(ia64_model_t *im, uint64_t base, bool exact)
{
    uint64_t min = UINT64_MAX, mt[IA64_MAX_THREADS] = {UINT64_MAX, UINT64_MAX};
    uint64_t m = im->dmask | im->e1mask;
    while (m) {
        unsigned k = (unsigned)__builtin_ctzll(m);
        m &= m - 1;
        uint64_t h = IA64_CTR_WRAP - (exact ? ia64_ctr_count(im, k >> 4, k & 15)
                                            : im->th[k >> 4].ctr[k & 15].value);
        if (h < min)
            min = h;
        for (uint32_t t = 0; t < IA64_MAX_THREADS; t++)
            if (((im->reach[t] >> k) & 1) && h < mt[t])
                mt[t] = h;
    }
    im->min_headroom = min == UINT64_MAX ? UINT64_MAX : base + min;
    for (uint32_t t = 0; t < IA64_MAX_THREADS; t++)
        im->lim_thr[t] = mt[t] == UINT64_MAX ? UINT64_MAX : base + mt[t];
}

void ia64_headroom_update(ia64_model_t *im)
{
    ia64_headroom_set(im, 0, false);
}

/* min_headroom made exact for the deferred counts of closed cycles,
 * which stay where they are: acc_recs plus the smallest 2^47 - (value +
 * deferred) of the D and maxincr-1 slots.  The close test acc_recs + v <
 * min_headroom then decides exactly what it decided after a materialize
 * (acc_recs 0, values including the deferred counts), without moving
 * counts and rebuilding planes each time the bound, which counts every
 * thread's records, is reached (issue 12: Montecito sampling reached it
 * about eight times per interrupt, one counter per thread).  The planes
 * still fill at most to IA64_ACC_MAX records (acc_recs is unchanged). */
static void ia64_headroom_refresh(ia64_model_t *im)
{
    ia64_headroom_set(im, im->acc_recs, true);
}

static void ia64_cp_spill(ia64_model_t *im);

/* Add 1 to every slot of mask in the deferred planes. */
static inline void ia64_cp_add(ia64_model_t *im, uint64_t mask)
{
    unsigned i = 0;
    do {
        uint64_t carry = im->cp[i] & mask;
        im->cp[i] ^= mask;
        mask = carry;
        i++;
    } while (mask);
    if (++im->cp_total == IA64_CP_CAP)
        ia64_cp_spill(im);
}

/* Move cp into lp (cp full). */
static void ia64_cp_spill(ia64_model_t *im)
{
    for (unsigned i = 0; i < IA64_CP_PLANES; i++) {
        uint64_t c = im->cp[i];
        unsigned j = i;
        while (c) {
            uint64_t carry = im->lp[j] & c;
            im->lp[j] ^= c;
            c = carry;
            j++;
        }
        if (j > im->lp_hi)
            im->lp_hi = j;
        im->cp[i] = 0;
    }
    im->cp_total = 0;
}

/* Add the deferred counts of closed cycles into the counters; the open
 * cycle's part stays deferred (in lp).  Reads see the same values before
 * and after. */
void ia64_materialize(ia64_model_t *im)
{
    uint64_t any = 0;
    ia64_ids_flush(im);
    for (unsigned i = 0; i < IA64_CP_PLANES; i++)
        any |= im->cp[i];
    for (unsigned i = 0; i < im->lp_hi; i++)
        any |= im->lp[i];
    uint64_t keep[IA64_MAX_THREADS * IA64_MAX_CTRS];
    uint64_t m = any;
    while (m) {
        unsigned k = (unsigned)__builtin_ctzll(m);
        m &= m - 1;
        uint64_t total = ia64_column(im, k);
        uint64_t open = ((im->dmask >> k) & 1) ? ia64_cycle_count(im, k) : 0;
        im->th[k >> 4].ctr[k & 15].value += total - open;
        keep[k] = open;
    }
    for (unsigned i = 0; i < IA64_CP_PLANES; i++)
        im->cp[i] = 0;
    for (unsigned i = 0; i < im->lp_hi; i++)
        im->lp[i] = 0;
    im->cp_total = 0;
    im->lp_hi = 0;
    m = any;
    while (m) {
        unsigned k = (unsigned)__builtin_ctzll(m);
        m &= m - 1;
        for (unsigned i = 0; keep[k] >> i; i++) {
            im->lp[i] |= ((keep[k] >> i) & 1) << k;
            if (i + 1 > im->lp_hi)
                im->lp_hi = i + 1;
        }
    }
    im->acc_recs = 0;
    ia64_headroom_update(im);
}

/* Forget slot (t, i)'s counts of the open cycle (its PMC was rewritten);
 * the caller materialised first. */
void ia64_slot_reset(ia64_model_t *im, uint32_t t, uint32_t i)
{
    unsigned k = t << 4 | i;
    uint64_t bit = UINT64_C(1) << k;
    ia64_column_clear(im, k);
    for (uint32_t j = 0; j < im->cyc_n; j++)
        im->cyc_masks[j] &= ~bit;
    im->cyc_d[k] = 0;
    im->cmask &= ~bit;
    im->q0 &= ~bit;
    im->q1 &= ~bit;
    im->qsat &= ~bit;
    im->pend[k] = 0;
    im->pmask &= ~bit;
}

/* Before the slot classes change: turn the open cycle's signature counts
 * into exact counts (pend), so no slot's counts depend on its old class. */
static void ia64_open_cycle_to_pend(ia64_model_t *im)
{
    ia64_materialize(im); /* the deferred planes now hold the open cycle only */
    uint64_t m = im->cmask;
    while (m) {
        unsigned k = (unsigned)__builtin_ctzll(m);
        m &= m - 1;
        uint64_t n = ia64_cycle_count(im, k);
        if (n) {
            im->pend[k] += n;
            im->pmask |= UINT64_C(1) << k;
        }
        im->cyc_d[k] = 0;
    }
    for (unsigned i = 0; i < IA64_CP_PLANES; i++)
        im->cp[i] = 0;
    for (unsigned i = 0; i < im->lp_hi; i++)
        im->lp[i] = 0;
    im->lp_hi = 0;
    im->cp_total = 0;
    im->cyc_n = 0;
    im->cyc_folded = false;
    im->cmask = 0;
    im->q0 = im->q1 = im->qsat = 0;
}

/* Classes of the counter slots after a configuration or freeze change. */
void ia64_classes_update(ia64_model_t *im)
{
    const ia64_desc_t *d = im->d;
    if (im->cmask)
        ia64_open_cycle_to_pend(im);
    im->dmask = im->e1mask = im->emask = im->stopped = 0;
    im->m2 = im->m3 = 0;
    for (unsigned v = 0; v < IA64_LOWINC; v++)
        im->lowinc[v] = 0;
    for (uint32_t t = 0; t < im->base.nthreads; t++) {
        const ia64_thread_t *th = &im->th[t];
        for (uint32_t i = d->nctr_first; i <= d->nctr_last; i++) {
            const ia64_ctr_t *c = &th->ctr[i];
            uint64_t bit = UINT64_C(1) << (t << 4 | i);
            if (!c->enabled || th->frozen)
                im->stopped |= bit;
            if (!c->enabled || c->lazy || c->qual || c->src == IA64_SRC_EVENT ||
                c->src == IA64_SRC_ISA_TRANSITION || c->src == IA64_SRC_CPL_CHANGE ||
                c->src == IA64_SRC_BRANCH_EVENT || c->src == IA64_SRC_DEAR_EVENT ||
                c->src == IA64_SRC_IEAR_EVENT || c->src == IA64_SRC_THREAD_SWITCH)
                continue;
            if (im->obs_fn) {
                im->emask |= bit; /* observed: every cycle exact */
            } else if (c->thres == 0 && c->maxincr >= 2) {
                im->dmask |= bit;
                for (unsigned v = 0; v < IA64_LOWINC; v++)
                    if (c->maxincr < v)
                        im->lowinc[v] |= bit;
                if (c->maxincr == 2)
                    im->m2 |= bit;
                else if (c->maxincr == 3)
                    im->m3 |= bit;
            } else if (c->thres == 0 && c->maxincr == 1) {
                im->e1mask |= bit;
            } else {
                im->emask |= bit;
            }
        }
    }
    im->vsafe = 0;
    while (im->vsafe + 1 < IA64_LOWINC && !(im->lowinc[im->vsafe + 1] & ~(im->m2 | im->m3)))
        im->vsafe++;
    im->vsafe_pk = 0;
    while (im->vsafe_pk + 1 < IA64_LOWINC && !im->lowinc[im->vsafe_pk + 1])
        im->vsafe_pk++;
    /* every D slot a cycle of fewer than IA64_LOWINC records can take past
     * its maxincr, the m2 | m3 slots with them when all fit */
    im->pk_slots = im->lowinc[IA64_LOWINC - 1];
    im->pk_lm = (im->m2 | im->m3) != 0 && __builtin_popcountll(im->pk_slots) <= 16;
    if (!im->pk_lm)
        im->pk_slots &= ~(im->m2 | im->m3);
    im->pk_ok = __builtin_popcountll(im->pk_slots) <= 16;
    im->pk_bias = 0;
    if (im->pk_ok) {
        unsigned j = 0;
        for (uint64_t m = im->pk_slots; m; m &= m - 1, j++) {
            unsigned k = (unsigned)__builtin_ctzll(m);
            im->pk_bias |= (uint64_t)(7u - im->th[k >> 4].ctr[k & 15].maxincr) << (4 * j);
        }
    }
    ia64_sig_invalidate(im); /* stopped slots leave the signature masks */
    ia64_headroom_update(im);
}

/* The packed per-cycle count increment of the records of mask m (pk_slots,
 * pk_ok). */
static uint64_t ia64_pk_of(const ia64_model_t *im, uint64_t m)
{
    if (!im->pk_ok)
        return 0;
    uint64_t pk = 0;
    unsigned j = 0;
    for (uint64_t s = im->pk_slots; s; s &= s - 1, j++)
        if (m & s & -s)
            pk |= UINT64_C(1) << (4 * j);
    return pk;
}
#define IA64_PK_HIGH UINT64_C(0x8888888888888888)

static uint64_t ia64_lowinc_slow(const ia64_model_t *im, uint32_t v)
{
    uint64_t mask = 0, m = im->dmask;
    while (m) {
        unsigned k = (unsigned)__builtin_ctzll(m);
        m &= m - 1;
        if (im->th[k >> 4].ctr[k & 15].maxincr < v)
            mask |= UINT64_C(1) << k;
    }
    return mask;
}

/* cyc_masks is full: count its masks per slot into cyc_d (D slots) or pend
 * (E slots) and start over. */
static void ia64_cyc_fold(ia64_model_t *im)
{
    uint64_t m = im->cmask;
    while (m) {
        unsigned k = (unsigned)__builtin_ctzll(m);
        m &= m - 1;
        uint64_t n = 0;
        for (uint32_t j = 0; j < im->cyc_n; j++)
            n += (im->cyc_masks[j] >> k) & 1;
        if ((im->dmask >> k) & 1) {
            im->cyc_d[k] += n;
        } else if (n) {
            im->pend[k] += n;
            im->pmask |= UINT64_C(1) << k;
        }
    }
    im->cyc_folded = true;
    im->cyc_n = 0;
}

/* Apply the occurrences of cycle x (see ia64_model_t): D slots whose count
 * can be neither clamped nor overflow in x stay deferred; the others are
 * applied exactly: maxincr clamp, threshold, carry out of bit 46.  Whether
 * a thread was frozen was decided when each record was consumed. */
static void ia64_close_counts(ia64_model_t *im, uint64_t x)
{
    uint32_t v = im->cyc_total;
    uint64_t cm = im->cmask, pm = im->pmask;
    uint64_t dcm = cm & im->dmask, e1c = cm & im->e1mask;
    uint64_t proc = pm | (cm & im->emask);
    if ((dcm | e1c) && im->acc_recs + v >= im->min_headroom) {
        ia64_headroom_refresh(im);
        if (im->acc_recs + v >= im->min_headroom)
            proc |= dcm | e1c;
    }
    if (dcm) {
        /* D slots whose maxincr is below the cycle's record count: exact
         * only if their own count in the cycle exceeds it */
        uint64_t risky = dcm & (v < IA64_LOWINC ? im->lowinc[v] : ia64_lowinc_slow(im, v));
        while (risky) {
            unsigned k = (unsigned)__builtin_ctzll(risky);
            risky &= risky - 1;
            if (ia64_cycle_count(im, k) > im->th[k >> 4].ctr[k & 15].maxincr)
                proc |= UINT64_C(1) << k;
        }
    }
    bool dchanged = false;
    uint64_t m = proc;
    while (m) {
        unsigned k = (unsigned)__builtin_ctzll(m);
        m &= m - 1;
        uint32_t t = k >> 4, i = k & 15;
        ia64_ctr_t *c = &im->th[t].ctr[i];
        uint64_t n = im->pend[k];
        uint64_t nk = ((cm >> k) & 1) ? ia64_cycle_count(im, k) : 0;
        n += nk;
        if (((im->dmask | im->e1mask) >> k) & 1) {
            /* fold the earlier deferred part in (D columns also hold this
             * cycle's nk, applied exactly below) */
            c->value += ia64_column(im, k) - (((im->dmask >> k) & 1) ? nk : 0);
            ia64_column_clear(im, k);
            dchanged = true;
        }
        im->obs_raw[k] = n;
        if (n > c->maxincr) {
            if (!c->clamp_reported) {
                c->clamp_reported = true;
                pmusim_model_diag(&im->base,
                                  "%s thread %u PMD%u: %" G_GUINT64_FORMAT " occurrences in cycle %"
                                  G_GUINT64_FORMAT " exceed maxincr %u; clamped (reported once "
                                  "per programming)",
                                  im->d->ops->name, t, i, n, x, c->maxincr);
            }
            n = c->maxincr;
        }
        uint64_t add = c->thres ? (n > c->thres) : n;
        im->obs_inc[k] = add;
        if (c->thres && n > c->thres)
            im->obs_cond |= UINT64_C(1) << k;
        if (!add)
            continue;
        c->value += add;
        if (c->value >= IA64_CTR_WRAP) {
            c->value &= IA64_CTR_MASK;
            ia64_overflow(im, t, i, x);
        }
    }
    /* maxincr-1 slots: one per cycle with an occurrence, deferred */
    uint64_t e1d = e1c & ~proc;
    if (e1d)
        ia64_cp_add(im, e1d);
    if (im->cyc_folded) {
        m = cm;
        while (m) {
            unsigned k = (unsigned)__builtin_ctzll(m);
            m &= m - 1;
            im->cyc_d[k] = 0;
        }
        im->cyc_folded = false;
    }
    im->cyc_n = 0;
    im->cyc_total = 0;
    im->cmask = 0;
    im->q0 = im->q1 = im->qsat = 0;
    m = pm;
    while (m) {
        unsigned k = (unsigned)__builtin_ctzll(m);
        m &= m - 1;
        im->pend[k] = 0;
    }
    im->pmask = 0;
    im->acc_recs += v;
    if (dchanged)
        ia64_headroom_update(im);
    if (im->acc_recs >= IA64_ACC_MAX)
        ia64_materialize(im);
}

/* Close cycle X: its occurrences, lazy overflows of X, then the freeze and
 * interrupts of X. */
static void ia64_close_cycle(ia64_model_t *im, uint64_t x)
{
    if (im->cmask | im->pmask)
        ia64_close_counts(im, x);
    if (im->next_lazy == x)
        ia64_lazy_overflow_at(im, x);
    if (im->irq_pending)
        ia64_irq_drain(im, x, ia64_sat_add(x, 1));
}

/* Every overflow of the running lazy counters before cycle `to` at once,
 * when that is all they do (issue 15: O(1) for any number of wraps): no
 * counter among them raises an interrupt (oi = 0) and the log is full, so
 * each overflow would only count, set its PMC0 bit and add to log_dropped.
 * FALSE (nothing done) when some overflow before `to` has oi = 1. */
static bool ia64_lazy_jump(ia64_model_t *im, uint64_t to)
{
    for (uint32_t t = 0; t < im->base.nthreads; t++)
        for (uint32_t i = im->d->nctr_first; i <= im->d->nctr_last; i++) {
            const ia64_ctr_t *c = &im->th[t].ctr[i];
            if (c->running && c->ovf_at < to && c->oi)
                return false;
        }
    for (uint32_t t = 0; t < im->base.nthreads; t++)
        for (uint32_t i = im->d->nctr_first; i <= im->d->nctr_last; i++) {
            ia64_ctr_t *c = &im->th[t].ctr[i];
            if (!c->running || c->ovf_at >= to)
                continue;
            /* overflows at ovf_at + j * 2^47 for j = 0 .. k-1, all < to */
            uint64_t k = (to - 1 - c->ovf_at) / IA64_CTR_WRAP + 1;
            uint64_t last = c->ovf_at + (k - 1) * IA64_CTR_WRAP;
            c->overflows += k;
            im->th[t].pmc[0] |= UINT64_C(1) << i;
            im->base.log_dropped += c->ev ? 2 * k : k;
            c->value = 0;
            c->since = last + 1;
            c->ovf_at = ia64_sat_add(last, IA64_CTR_WRAP);
        }
    ia64_lazy_recompute_next(im);
    return true;
}

/* ---- observe_cycles ---- */

/* Report cycle c to the observer.  `closed`: c's occurrences were just
 * applied (obs_raw, obs_inc, obs_cond, obs_ovf hold them); otherwise c is a
 * cycle without records (an idle cycle).  Called before the cycle's
 * interrupts run, so values are those at the end of c, before a handler's
 * writes (which take effect at c + 1). */
static void ia64_obs_emit(ia64_model_t *im, uint64_t c, bool closed)
{
    const ia64_desc_t *d = im->d;
    pmusim_counter_probe_t probes[IA64_MAX_SUBS];
    size_t n = 0;
    for (uint32_t t = 0; t < im->base.nthreads; t++) {
        const ia64_thread_t *th = &im->th[t];
        for (uint32_t i = d->nctr_first; i <= d->nctr_last; i++) {
            const ia64_ctr_t *ct = &th->ctr[i];
            unsigned k = t << 4 | i;
            pmusim_counter_probe_t *p = &probes[n++];
            memset(p, 0, sizeof *p);
            uint64_t v = ia64_ctr_count(im, t, i);
            p->overflow = closed && ((im->obs_ovf >> k) & 1);
            if (ct->lazy) {
                /* one occurrence per cycle; counted from `since` while running */
                bool counts = ct->running && ct->since <= c;
                if (counts && c + 1 > ct->since)
                    v += c + 1 - ct->since;
                p->raw = ct->enabled ? 1 : 0;
                p->increment = counts || p->overflow;
                p->cond = 1;
            } else {
                p->raw = closed ? im->obs_raw[k] : 0;
                p->increment = closed ? im->obs_inc[k] : 0;
                p->cond = ct->thres ? (closed && ((im->obs_cond >> k) & 1)) : 1;
            }
            p->value = v & IA64_CTR_MASK;
            p->frozen = th->frozen || th->ovf_pending_irq;
            p->interrupt = closed && th->ovf_pending_irq;
        }
    }
    im->obs_fn(&im->base, c, probes, n, im->obs_user);
    if (closed) {
        memset(im->obs_raw, 0, sizeof im->obs_raw);
        memset(im->obs_inc, 0, sizeof im->obs_inc);
        im->obs_cond = 0;
    }
}

static void ia64_obs_stop(ia64_model_t *im)
{
    im->obs_fn = NULL;
    ia64_classes_update(im); /* the deferred classes again */
}

/* Report the cycles [obs_next, upto) of the window as idle cycles. */
static void ia64_obs_idle(ia64_model_t *im, uint64_t upto)
{
    uint64_t c = im->obs_next > im->obs_from ? im->obs_next : im->obs_from;
    uint64_t end = upto < im->obs_to ? upto : im->obs_to;
    for (; c < end && im->obs_fn; c++)
        ia64_obs_emit(im, c, false);
    if (upto > im->obs_next)
        im->obs_next = upto;
}

/* Report closed cycle x (after its counts and lazy overflows, before its
 * interrupts); ends the observation after the window's last cycle. */
static void ia64_obs_closed(ia64_model_t *im, uint64_t x)
{
    ia64_obs_idle(im, x);
    if (x >= im->obs_from && x < im->obs_to && x >= im->obs_next)
        ia64_obs_emit(im, x, true);
    im->obs_ovf = 0;
    im->obs_next = ia64_sat_add(x, 1);
}

void ia64_observe_cycles(pmusim_model_t *m, uint64_t from, uint64_t to,
                         pmusim_cycle_observer_fn fn, void *user)
{
    ia64_model_t *im = ia64_model(m);
    ia64_unsuspend(im);
    ia64_materialize(im);
    im->obs_fn = from < to ? fn : NULL;
    im->obs_user = user;
    im->obs_from = from;
    im->obs_to = to;
    im->obs_next = im->cur;
    im->obs_ovf = im->obs_cond = 0;
    memset(im->obs_raw, 0, sizeof im->obs_raw);
    memset(im->obs_inc, 0, sizeof im->obs_inc);
    ia64_classes_update(im);
}

/* ia64_advance_slow() while observing: every cycle is closed exactly and
 * reported, idle cycles one by one within the window. */
static void ia64_advance_observed(ia64_model_t *im, uint64_t to)
{
    uint64_t x = im->cur;
    if (im->cmask | im->pmask)
        ia64_close_counts(im, x);
    if (im->next_lazy == x)
        ia64_lazy_overflow_at(im, x);
    ia64_obs_closed(im, x);
    if (im->irq_pending)
        ia64_irq_drain(im, x, ia64_sat_add(x, 1));
    while (im->next_lazy < to) {
        if (!im->obs_fn && im->base.log->len >= PMUSIM_LOG_MAX && ia64_lazy_jump(im, to))
            break;
        uint64_t y = im->next_lazy;
        if (im->obs_fn)
            ia64_obs_idle(im, y);
        ia64_lazy_overflow_at(im, y);
        if (im->obs_fn)
            ia64_obs_closed(im, y);
        if (im->irq_pending)
            ia64_irq_drain(im, y, ia64_sat_add(y, 1));
    }
    if (im->obs_fn)
        ia64_obs_idle(im, to);
    im->cur = to;
    im->now = to;
    if (im->obs_fn && im->obs_next >= im->obs_to)
        ia64_obs_stop(im);
}

/* Account everything before cycle `to` (> cur) and open `to`. */
static void ia64_advance_slow(ia64_model_t *im, uint64_t to)
{
    if (im->obs_fn) {
        ia64_advance_observed(im, to);
        return;
    }
    uint64_t x = im->cur;
    if (im->cmask || im->pmask || im->next_lazy <= x || im->irq_pending)
        ia64_close_cycle(im, x);
    /* idle cycles (x, to): only lazy counters can overflow there */
    while (im->next_lazy < to) {
        if (im->base.log->len >= PMUSIM_LOG_MAX && ia64_lazy_jump(im, to))
            break;
        uint64_t y = im->next_lazy;
        ia64_lazy_overflow_at(im, y);
        if (im->irq_pending)
            ia64_irq_drain(im, y, ia64_sat_add(y, 1));
    }
    im->cur = to;
    im->now = to;
}

/* The common case inline: only deferred counters saw occurrences, none can
 * be clamped or overflow, no interrupt or lazy overflow is due before `to`. */
static inline void ia64_advance(ia64_model_t *im, uint64_t to)
{
    uint64_t cm = im->cmask;
    uint32_t v = im->cyc_total;
    /* clamp needed: maxincr-2 slots counted >= 3, maxincr-3 slots >= 4,
     * others below the cycle's record count */
    uint64_t clamp = (im->m2 & (im->qsat | (im->q1 & im->q0))) | (im->m3 & im->qsat);
    if (!im->pmask && !im->obs_fn && !(cm & ~(im->dmask | im->e1mask)) && v < IA64_LOWINC &&
        !(cm & im->lowinc[v] & ~(im->m2 | im->m3)) && !clamp && !im->cyc_folded &&
        im->acc_recs + v < im->min_headroom && im->next_lazy >= to && !im->irq_pending &&
        im->acc_recs + v < IA64_ACC_MAX) {
        uint64_t e1 = cm & im->e1mask;
        if (e1)
            ia64_cp_add(im, e1);
        im->acc_recs += v;
        im->cyc_n = 0;
        im->cyc_total = 0;
        im->cmask = 0;
        im->q0 = im->q1 = im->qsat = 0;
        im->cur = to;
        im->now = to;
        return;
    }
    ia64_advance_slow(im, to);
}

/* ---- occurrences ---- */

static inline void ia64_hit(ia64_model_t *im, uint32_t t, ia64_src_t s, const pmusim_rec_t *r,
                            unsigned acc, uint64_t occ);

/* Per-counter umask checks of the sources whose umask refines the event
 * (docs/trace-events-ia64.md). */
static bool ia64_umask_pass(const ia64_ctr_t *c, const pmusim_rec_t *r, const ia64_thread_t *th)
{
    unsigned u = c->umask;
    switch ((ia64_src_t)c->src) {
    case IA64_SRC_CPL_CHANGE:
        /* Montecito LVLn: changes to or from level n (libpfm3's Montecito
         * table: "all changes to/from privilege level n"); Itanium 2 umask
         * 0: all.  th->prev_plm is the level left, r->plm the level entered. */
        return u == 0 || ((u >> (r->plm & 3)) & 1) || ((u >> (th->prev_plm & 3)) & 1);
    case IA64_SRC_L2_DATA_REF:
        /* bit 0 reads, bit 1 writes */
        return (u >> (r->mem.is_store ? 1 : 0)) & 1;
    case IA64_SRC_L3_READ:
    case IA64_SRC_L3_WRITE:
        /* bit 0 hit, bit 1 miss */
        return (u >> (r->mem.level == PMUSIM_LVL_L3 ? 0 : 1)) & 1;
    case IA64_SRC_ALAT_CHECK:
    case IA64_SRC_ALAT_FAIL:
        /* bit 0 integer, bit 1 floating point */
        return (u >> ((r->flags & PMUSIM_F_FP) ? 1 : 0)) & 1;
    case IA64_SRC_BR_MISPRED: {
        /* umask 3:2 branch class, 1:0 outcome (0 all, 1 correct, 2 wrong
         * path, 3 wrong target) */
        static const uint8_t klass[PMUSIM_BR_COUNT] = {
            [PMUSIM_BR_COND] = 1, [PMUSIM_BR_CALL] = 1, [PMUSIM_BR_RET] = 2,
            [PMUSIM_BR_IND] = 3, [PMUSIM_BR_IPREL] = 1, [PMUSIM_BR_ICALL] = 3};
        unsigned kc = u >> 2, oc = u & 3;
        if (kc && (r->br.kind >= PMUSIM_BR_COUNT || klass[r->br.kind] != kc))
            return false;
        bool wrong_path = !r->br.dir_ok;
        bool wrong_tgt = !wrong_path && r->br.taken && !r->br.tgt_ok;
        switch (oc) {
        case 1: return !wrong_path && !wrong_tgt;
        case 2: return wrong_path;
        case 3: return wrong_tgt;
        default: return true;
        }
    }
    case IA64_SRC_BR_PATH: {
        /* umask 3:2 branch class, bit 1 direction predicted correctly,
         * bit 0 taken */
        static const uint8_t klass[PMUSIM_BR_COUNT] = {
            [PMUSIM_BR_COND] = 1, [PMUSIM_BR_CALL] = 1, [PMUSIM_BR_RET] = 2,
            [PMUSIM_BR_IND] = 3, [PMUSIM_BR_IPREL] = 1, [PMUSIM_BR_ICALL] = 3};
        unsigned kc = u >> 2;
        if (kc && (r->br.kind >= PMUSIM_BR_COUNT || klass[r->br.kind] != kc))
            return false;
        return ((u >> 1) & 1) == (r->br.dir_ok ? 1u : 0u) && (u & 1) == (r->br.taken ? 1u : 0u);
    }
    default:
        return true;
    }
}

#define IA64_UMASK_DEP                                                                           \
    (UINT64_C(1) << IA64_SRC_CPL_CHANGE | UINT64_C(1) << IA64_SRC_L2_DATA_REF |                  \
     UINT64_C(1) << IA64_SRC_L3_READ | UINT64_C(1) << IA64_SRC_L3_WRITE |                        \
     UINT64_C(1) << IA64_SRC_ALAT_CHECK | UINT64_C(1) << IA64_SRC_ALAT_FAIL |                    \
     UINT64_C(1) << IA64_SRC_BR_MISPRED | UINT64_C(1) << IA64_SRC_BR_PATH)
_Static_assert(IA64_SRC_COUNT <= 64, "source bit masks fit 64 bits");

static inline bool ia64_src_umask_dependent(uint8_t s)
{
    return (IA64_UMASK_DEP >> s) & 1;
}

/* Thread t's record raises `occ` occurrences of source s; `refine`: s may
 * have umask refinements (ia64_umask_pass()). */
static inline __attribute__((always_inline)) void
ia64_hit_refine(ia64_model_t *im, uint32_t t, ia64_src_t s, const pmusim_rec_t *r, unsigned acc,
                uint64_t occ, const bool refine)
{
    const ia64_thread_t *src_th = &im->th[t];
    const ia64_sub_t *sub = im->sub[t][s];
    for (unsigned j = 0, n = im->nsub[t][s]; j < n; j++) {
        ia64_thread_t *th = &im->th[sub[j].thread];
        ia64_ctr_t *c = &th->ctr[sub[j].idx];
        if (!((c->accept >> acc) & 1) || th->frozen)
            continue;
        if (c->caf == IA64_CAF_ACTIVE && !src_th->active)
            continue;
        if (__builtin_expect(c->qual != 0, 0) && !ia64_qual_pass(im, src_th, c, r))
            continue;
        if (refine && ia64_src_umask_dependent(s) && !ia64_umask_pass(c, r, src_th))
            continue;
        im->pend[sub[j].thread << 4 | sub[j].idx] += occ;
        im->pmask |= UINT64_C(1) << (sub[j].thread << 4 | sub[j].idx);
    }
}

static inline void ia64_hit(ia64_model_t *im, uint32_t t, ia64_src_t s, const pmusim_rec_t *r,
                            unsigned acc, uint64_t occ)
{
    ia64_hit_refine(im, t, s, r, acc, occ, true);
}

/* Occurrences raised by a capture unit (BTB/ETB, EARs): sources without
 * umask refinements. */
_Static_assert(!((IA64_UMASK_DEP >> IA64_SRC_BRANCH_EVENT) & 1) &&
                   !((IA64_UMASK_DEP >> IA64_SRC_DEAR_EVENT) & 1) &&
                   !((IA64_UMASK_DEP >> IA64_SRC_IEAR_EVENT) & 1),
               "no capture source is refined by its umask");
void ia64_count_capture(ia64_model_t *im, uint32_t t, const pmusim_rec_t *r, ia64_src_t src)
{
    if (!im->nsub[t][src])
        return;
    const ia64_thread_t *th = &im->th[t];
    bool ia32 = r->kind == PMUSIM_REC_INSN ? (r->flags & PMUSIM_F_IA32) != 0 : th->ia32;
    unsigned acc = (unsigned)ia32 << 2 | (r->plm & 3u); /* EVENT: q.plm = thread's level */
    ia64_hit_refine(im, t, src, r, acc, 1, false);
}

static inline bool ia64_misaligned(const pmusim_mem_t *m)
{
    return m->size > 1 && (m->addr & (uint64_t)(m->size - 1)) != 0;
}

/* 1 if record r raises source s (umask refinements come later). */
static inline uint64_t ia64_src_occ(uint8_t s, const pmusim_rec_t *r)
{
    uint16_t f = r->flags;
    bool mem = f & PMUSIM_F_MEM;
    bool load = mem && !r->mem.is_store, store = mem && r->mem.is_store;
    switch ((ia64_src_t)s) {
    case IA64_SRC_INSN: return !(f & PMUSIM_F_IA32);
    case IA64_SRC_INSN_IA32: return (f & PMUSIM_F_IA32) != 0;
    case IA64_SRC_NOP: return (f & (PMUSIM_F_NOP | PMUSIM_F_IA32)) == PMUSIM_F_NOP;
    case IA64_SRC_PRED_OFF: return (f & (PMUSIM_F_PRED_OFF | PMUSIM_F_IA32)) == PMUSIM_F_PRED_OFF;
    /* FP loads and stores carry the fp flag too but are memory operations,
     * not FP operations (FP_OPS_RETIRED counts F-unit work: issue 10) */
    case IA64_SRC_FP_OP: return (f & (PMUSIM_F_FP | PMUSIM_F_PRED_OFF | PMUSIM_F_MEM)) == PMUSIM_F_FP;
    case IA64_SRC_LOAD: return load;
    case IA64_SRC_STORE: return store;
    case IA64_SRC_MISALIGNED_LOAD: return load && ia64_misaligned(&r->mem);
    case IA64_SRC_MISALIGNED_STORE: return store && ia64_misaligned(&r->mem);
    case IA64_SRC_MEMREF: return mem;
    case IA64_SRC_L1D_READ: return load && !(f & PMUSIM_F_FP);
    case IA64_SRC_L1D_READ_MISS: return load && !(f & PMUSIM_F_FP) && r->mem.level != PMUSIM_LVL_L1D;
    case IA64_SRC_L2_DATA_REF: return (load && r->mem.level != PMUSIM_LVL_L1D) || store;
    case IA64_SRC_L2_MISS:
    case IA64_SRC_L3_REF: return mem && r->mem.level >= PMUSIM_LVL_L3;
    case IA64_SRC_L3_MISS: return mem && r->mem.level > PMUSIM_LVL_L3;
    case IA64_SRC_L3_READ: return load && r->mem.level >= PMUSIM_LVL_L3;
    case IA64_SRC_L3_WRITE: return store && r->mem.level >= PMUSIM_LVL_L3;
    /* L1DTLB_TRANSFER: "for accesses counted in L1D_READS" (libpfm3 table
     * description): integer loads only, as IA64_SRC_L1D_READ */
    case IA64_SRC_DTLB_L2_HIT: return load && !(f & PMUSIM_F_FP) && r->mem.tlb == PMUSIM_TLB_L2_HIT;
    case IA64_SRC_DTLB_L2_MISS: return mem && r->mem.tlb >= PMUSIM_TLB_WALK;
    case IA64_SRC_DTLB_HPW: return mem && r->mem.tlb == PMUSIM_TLB_WALK;
    case IA64_SRC_ALAT_CHECK: return mem && r->mem.alat != PMUSIM_ALAT_NONE;
    case IA64_SRC_ALAT_FAIL: return mem && r->mem.alat == PMUSIM_ALAT_MISS;
    case IA64_SRC_BR_MISPRED:
    case IA64_SRC_BR_PATH: return (f & PMUSIM_F_BRANCH) != 0;
    case IA64_SRC_BR_BE_MISPRED:
        return (f & PMUSIM_F_BRANCH) && r->br.detect == PMUSIM_BRD_BACKEND;
    default: return 0;
    }
}

/* The record fields the unqualified trace sources, plm/ism checks, thread
 * types and umask refinements depend on, packed without loss: k1 holds the
 * flags that matter (bits 6:0), the thread's active state (9), the
 * misaligned bit (10), the privilege level (17:16) and the raw branch detect
 * byte (31:24); k2 the raw mem bytes is_store, level, tlb, alat (31:0, when
 * PMUSIM_F_MEM) and the raw branch bytes kind, taken, dir_ok, tgt_ok (63:32,
 * when PMUSIM_F_BRANCH).  Raw bytes keep the key exact for any value, so
 * every key can be cached.  k1 bits 63:32 are free for the cache's
 * generation tag; bits 3 (IA32) and 17:16 of k1 are the thread's
 * instruction state (IA64_KEY_STATE).  Flags and plm sit where a
 * little-endian load of the record's bytes flags, plm, slot puts them, so on
 * such hosts they take one load and one mask. */
#define IA64_KEY_STATE UINT64_C(0x30008)
#define IA64_KEY_SEEN (UINT64_C(1) << 63)
_Static_assert(offsetof(pmusim_rec_t, plm) == offsetof(pmusim_rec_t, flags) + 2 &&
                   offsetof(pmusim_rec_t, slot) == offsetof(pmusim_rec_t, flags) + 3,
               "flags, plm, slot are 4 adjacent bytes");
static inline uint64_t ia64_key_flags_plm(const pmusim_rec_t *r)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    uint32_t w;
    memcpy(&w, &r->flags, sizeof w);
    return w & UINT32_C(0x3007b);
#else
    return (uint64_t)(r->flags & 0x7bu) | (uint64_t)(r->plm & 3) << 16;
#endif
}

/* The low byte of a record's flags (one byte load on little-endian hosts). */
static inline unsigned ia64_flags_lo(const pmusim_rec_t *r)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    uint8_t b;
    memcpy(&b, &r->flags, sizeof b);
    return b;
#else
    return r->flags & 0xffu;
#endif
}

static inline void ia64_key(const pmusim_rec_t *r, bool active, unsigned need, uint64_t *k1,
                            uint64_t *k2)
{
    const uint32_t f = r->flags;
    uint64_t a = ia64_key_flags_plm(r) | (uint64_t)active << 9, b = 0;
    /* IA64_NEED_ST alone: the store bit in k1's bit 2 (PMUSIM_F_OFFCORE,
     * never part of the key), k2 stays 0 */
    if ((f & PMUSIM_F_MEM) && (need & IA64_NEED_ST))
        a |= (uint64_t)(r->mem.is_store != 0) << 2;
    if ((f & PMUSIM_F_MEM) && (need & IA64_NEED_MEM)) {
        uint32_t w;
        memcpy(&w, &r->mem.is_store, sizeof w);
        _Static_assert(offsetof(pmusim_mem_t, alat) == offsetof(pmusim_mem_t, is_store) + 3,
                       "is_store, level, tlb, alat are adjacent bytes");
        b = w;
        if (need & IA64_NEED_MIS)
            a |= (uint64_t)ia64_misaligned(&r->mem) << 10;
    }
    if ((f & PMUSIM_F_BRANCH) && (need & IA64_NEED_BR)) {
        uint32_t w;
        memcpy(&w, &r->br.kind, sizeof w);
        _Static_assert(offsetof(pmusim_branch_t, tgt_ok) == offsetof(pmusim_branch_t, kind) + 3,
                       "kind, taken, dir_ok, tgt_ok are adjacent bytes");
        b |= (uint64_t)w << 32;
        a |= (uint64_t)r->br.detect << 24;
    }
    *k1 = a;
    *k2 = b;
}

/* The cache slot of a key.  The active bit is left out (both states share a
 * slot pair), so the fast path can add it together with the generation tag. */
#define IA64_KEY_ACTIVE (UINT64_C(1) << 9)
static inline unsigned ia64_key_slot(uint64_t k1, uint64_t k2, unsigned need)
{
    if (!(need & (IA64_NEED_MEM | IA64_NEED_BR)))
        /* k2 is 0 and k1 holds the flags (bits 6:0) and plm (17:16):
         * no hash needed (issue 12: the ita2 benchmark set, whose loads
         * count by the store bit alone) */
        return (unsigned)((k1 ^ (k1 >> 10)) & (IA64_SIG_SLOTS - 1));
    k1 &= ~IA64_KEY_ACTIVE;
    return (unsigned)((((k2 * UINT64_C(0xff51afd7ed558ccd)) ^ k1) * UINT64_C(0x9E3779B97F4A7C15)) >>
                      (64 - 8));
}

/* Unqualified counters an instruction record of thread t increments. */
static uint64_t ia64_sig_mask(const ia64_model_t *im, uint32_t t, const pmusim_rec_t *r)
{
    const ia64_thread_t *src_th = &im->th[t];
    unsigned acc = ((r->flags & PMUSIM_F_IA32) ? 4u : 0u) | (r->plm & 3u);
    uint64_t mask = 0;
    for (unsigned j = 0, ns = im->nsrcs[t]; j < ns; j++) {
        uint8_t s = im->srcs[t][j];
        if (!ia64_src_occ(s, r))
            continue;
        const ia64_sub_t *sub = im->sub[t][s];
        for (unsigned k = 0, n = im->nsub[t][s]; k < n; k++) {
            const ia64_ctr_t *c = &im->th[sub[k].thread].ctr[sub[k].idx];
            unsigned slot = sub[k].thread << 4 | sub[k].idx;
            if (c->qual || !((c->accept >> acc) & 1) || ((im->stopped >> slot) & 1))
                continue;
            if (c->caf == IA64_CAF_ACTIVE && !src_th->active)
                continue;
            if (ia64_src_umask_dependent(s) && !ia64_umask_pass(c, r, src_th))
                continue;
            mask |= UINT64_C(1) << slot;
        }
    }
    return mask;
}

/* Signature-cache miss in the key's primary slot: the cache is two-way
 * (slots s and s ^ 1), so two keys that hash alike do not evict each other.
 * Fills the primary slot (its valid old content moves to the other). */
static __attribute__((noinline)) const ia64_sig_entry_t *
ia64_sig_miss(ia64_model_t *im, uint32_t t, const pmusim_rec_t *r, uint64_t k1, uint64_t k2,
              unsigned slot)
{
    ia64_sig_entry_t *e0 = &im->sig_cache[t][slot], *e1 = &im->sig_cache[t][slot ^ 1u];
    if (e1->k1 == (k1 | im->gen_tag) && e1->k2 == k2)
        return e1;
    uint64_t mask = ia64_sig_mask(im, t, r);
    uint32_t id = ia64_id_of(im, mask & im->dmask); /* may start a generation */
    if ((e0->k1 >> IA64_GEN_SHIFT) == (im->gen_tag >> IA64_GEN_SHIFT))
        *e1 = *e0;
    e0->k1 = k1 | im->gen_tag;
    e0->k2 = k2;
    e0->mask = (uint32_t)mask;
    e0->id = (uint16_t)id;
    e0->inc = mask != 0;
    e0->pk = ia64_pk_of(im, mask);
    e0->rare = (uint8_t)(((mask & im->dmask & (im->m2 | im->m3)) ? IA64_RARE_LM : 0u) |
                         ((mask & ~(im->dmask | im->e1mask)) ? IA64_RARE_EXACT : 0u) |
                         ((mask & im->e1mask) ? IA64_RARE_E1 : 0u));
    return e0;
}

/* Qualified counters (ranges, opcode matchers): evaluated per record. */
static void ia64_qualified_insn(ia64_model_t *im, uint32_t t, const pmusim_rec_t *r)
{
    const ia64_thread_t *src_th = &im->th[t];
    unsigned acc = ((r->flags & PMUSIM_F_IA32) ? 4u : 0u) | (r->plm & 3u);
    for (unsigned j = 0, n = im->nqsub[t]; j < n; j++) {
        ia64_qsub_t q = im->qsub[t][j];
        const ia64_ctr_t *c = &im->th[q.thread].ctr[q.idx];
        if (!ia64_src_occ(q.src, r) || !((c->accept >> acc) & 1) || im->th[q.thread].frozen)
            continue;
        if (c->caf == IA64_CAF_ACTIVE && !src_th->active)
            continue;
        if (ia64_src_umask_dependent(q.src) && !ia64_umask_pass(c, r, src_th))
            continue;
        if (!ia64_qual_pass(im, src_th, c, r))
            continue;
        im->pend[q.thread << 4 | q.idx]++;
        im->pmask |= UINT64_C(1) << (q.thread << 4 | q.idx);
    }
}

/* The privilege level or instruction set of thread t changes with record r. */
static void ia64_state_change(ia64_model_t *im, uint32_t t, const pmusim_rec_t *r, uint8_t plm,
                              bool ia32)
{
    ia64_thread_t *th = &im->th[t];
    bool cpl = th->seen_insn && plm != th->plm;
    bool isa = th->seen_insn && ia32 != th->ia32;
    if (cpl)
        th->prev_plm = th->plm;
    th->plm = plm;
    th->ia32 = ia32;
    th->seen_insn = true;
    th->state_key = ((uint64_t)ia32 << 3 | (uint64_t)plm << 16) | IA64_KEY_SEEN;
    ia64_lazy_update_thread(im, t);
    unsigned acc = (unsigned)ia32 << 2 | plm;
    if (cpl && im->nsub[t][IA64_SRC_CPL_CHANGE])
        ia64_hit(im, t, IA64_SRC_CPL_CHANGE, r, acc, 1);
    if (isa && im->nsub[t][IA64_SRC_ISA_TRANSITION])
        ia64_hit(im, t, IA64_SRC_ISA_TRANSITION, r, acc, 1);
}

/* EVENT record r with the privilege level, ip and encoding of the
 * thread's most recent instruction. */
static inline void ia64_event_as_insn(pmusim_rec_t *q, const pmusim_rec_t *r,
                                      const ia64_thread_t *src_th)
{
    *q = *r;
    q->plm = src_th->plm;
    q->ip = src_th->last_ip;
    q->insn = src_th->last_insn;
    q->unit = src_th->last_unit;
    q->slot = src_th->last_slot;
}

/* A model fact record (IA64_FACT_CODE, umask = the fact): n occurrences
 * for each counter of an event whose definition includes the fact, with
 * the tests ia64_on_event() makes of an EVENT record of that event (the
 * static ones in fact_slots: one look-up when no counter takes it).  An
 * unknown fact counts for nothing, as an EVENT record no counter selects. */
static void ia64_on_fact(ia64_model_t *im, uint32_t t, const pmusim_rec_t *r)
{
    const uint32_t f = r->ev_umask;
    if (f >= IA64_NFACTS || !im->d->facts[f].name)
        return;
    im->fact_seen |= UINT32_C(1) << f;
    uint32_t slots = im->fact_slots[t][f];
    if (!slots || r->n == 0)
        return;
    const ia64_thread_t *src_th = &im->th[t];
    pmusim_rec_t q;
    ia64_event_as_insn(&q, r, src_th);
    const unsigned acc = (unsigned)src_th->ia32 << 2 | src_th->plm;
    do {
        const unsigned b = (unsigned)__builtin_ctz(slots);
        slots &= slots - 1;
        const uint32_t u = b >> 4, i = b & 15u;
        const ia64_ctr_t *c = &im->th[u].ctr[i];
        if (im->th[u].frozen || !((c->accept >> acc) & 1) ||
            (c->caf == IA64_CAF_ACTIVE && !src_th->active) ||
            (c->qual && !ia64_qual_pass(im, src_th, c, &q)))
            continue;
        im->pend[b] += r->n;
        im->pmask |= UINT64_C(1) << b;
    } while (slots);
}

/* An EVENT record carries only code, umask and n (traces/FORMAT.md): it is
 * attributed to the thread's most recent instruction (privilege level,
 * instruction set, ip and encoding for the qualifiers). */
static void ia64_on_event(ia64_model_t *im, uint32_t t, const pmusim_rec_t *r)
{
    const ia64_desc_t *d = im->d;
    const ia64_thread_t *src_th = &im->th[t];
    if (r->ev_code == IA64_FACT_CODE) {
        ia64_on_fact(im, t, r);
        return;
    }
    uint32_t seen = (uint32_t)(r->ev_code & 0xff) << 4 | (r->ev_umask & 0xf);
    if (r->ev_code <= 0xff)
        im->ev_seen[seen / 64] |= UINT64_C(1) << (seen % 64);
    /* the record as the thread's most recent instruction (built only
     * where used: issue 12, most EVENT records of a Montecito trace return
     * at the event-select test below) */
    pmusim_rec_t q;
    if (r->ev_code == 0x43) {
        ia64_event_as_insn(&q, r, src_th);
        /* instruction-fetch descriptor for the I-EAR (docs/trace-events-ia64.md) */
        if (ia64_capture_iear(im, t, &q))
            ia64_count_capture(im, t, &q, IA64_SRC_IEAR_EVENT);
        return;
    }
    if (!im->any_event_ctr || r->n == 0)
        return;
    /* no counter of the record's event select (issue 12: every thread
     * switch of a Montecito trace has an EVENT record, and the scan of
     * both threads' counters was most of its cost) */
    if (r->ev_code > 0xff || !((im->ev_es[r->ev_code >> 6] >> (r->ev_code & 63)) & 1))
        return;
    ia64_event_as_insn(&q, r, src_th);
    uint32_t umask = r->ev_umask & 0xf, state = (r->ev_umask >> 4) & 0xf;
    unsigned acc = (unsigned)src_th->ia32 << 2 | src_th->plm;
    for (uint32_t u = 0; u < im->base.nthreads; u++) {
        ia64_thread_t *th = &im->th[u];
        if (th->frozen)
            continue;
        for (uint32_t i = d->nctr_first; i <= d->nctr_last; i++) {
            ia64_ctr_t *c = &th->ctr[i];
            if (!c->enabled || c->lazy || c->es != r->ev_code || c->umask != umask)
                continue;
            if (u != t && !c->all && c->caf != IA64_CAF_CAUSAL)
                continue;
            if (!((c->accept >> acc) & 1))
                continue;
            if (c->caf == IA64_CAF_ACTIVE && !src_th->active)
                continue;
            if ((c->qual_raw & IA64_Q_MESI) && state && !(state & c->mesi))
                continue;
            if (c->qual && !ia64_qual_pass(im, src_th, c, &q))
                continue;
            im->pend[u << 4 | i] += r->n;
            im->pmask |= UINT64_C(1) << (u << 4 | i);
        }
    }
}

/* A MEM record (format v2): a further memory access of the thread's
 * previous instruction.  It raises the memory sources (loads, stores, data
 * references, cache and DTLB levels, ALAT) like an instruction's own
 * access, never an instruction source; its fields other than mem, plm and
 * ip carry nothing (traces/FORMAT.md), so it is an integer access.  The
 * D-EAR does not sample it (docs/trace-events-ia64.md). */
static void ia64_on_mem(ia64_model_t *im, uint32_t t, const pmusim_rec_t *r)
{
    pmusim_rec_t q = *r;
    q.flags = PMUSIM_F_MEM;
    unsigned acc = (unsigned)im->th[t].ia32 << 2 | (r->plm & 3u);
    for (unsigned j = 0, ns = im->nsrcs[t]; j < ns; j++) {
        uint8_t s = im->srcs[t][j];
        if (s != IA64_SRC_MEMREF && !(ia64_key_need_of(s) & (IA64_NEED_MEM | IA64_NEED_ST)))
            continue;
        if (ia64_src_occ(s, &q))
            ia64_hit(im, t, (ia64_src_t)s, &q, acc, 1);
    }
}

static void ia64_on_thread(ia64_model_t *im, uint32_t t, const pmusim_rec_t *r)
{
    ia64_thread_t *th = &im->th[t];
    bool active = r->n != 0;
    if (active == th->active)
        return;
    th->active = active;
    /* the new state holds from this cycle on.  Only the counters of type
     * active can start or stop (issue 12: two THREAD records at every
     * Montecito switch each brought every lazy counter of the thread to
     * `now`): a lazy counter of another type runs as the last full update
     * decided (every other input of ia64_lazy_should_run() makes one when
     * it changes), and while it keeps running value + (now - since) and
     * ovf_at stay what such an update would leave. */
    ia64_lazy_update_some(im, t, th->actv_bits);
    /* THREAD_SWITCH_EVENTS_ALL: a switch to thread t, counted by the
     * thread switched to (docs/trace-events-ia64.md) */
    if (active && im->nsub[t][IA64_SRC_THREAD_SWITCH])
        ia64_hit(im, t, IA64_SRC_THREAD_SWITCH, r, (unsigned)th->ia32 << 2 | th->plm, 1);
}

/* Records the trace's own thread state contradicts, each reported once
 * and counted as given (never silently dropped): a retirement on a thread
 * a THREAD record marked inactive (events of type active do not count it),
 * and on Montecito both threads retiring in one cycle, although
 * switch-on-event multithreading gives the pipeline to one thread at a time
 * (ref §12; uarch.md §4.2). */
static __attribute__((noinline)) void ia64_inactive_report(ia64_model_t *im, uint32_t t,
                                                           const pmusim_rec_t *r, uint64_t index)
{
    im->inactive_reported = true;
    pmusim_model_diag(&im->base,
                      "%s: record %" G_GUINT64_FORMAT " retires an instruction on thread %u at "
                      "cycle %" G_GUINT64_FORMAT ", which a THREAD record marked inactive; "
                      "events of type active do not count it (reported once)",
                      im->d->ops->name, index, t, r->cycle);
}

static __attribute__((noinline)) void ia64_two_retire_report(ia64_model_t *im, uint64_t cycle)
{
    im->two_retire_reported = true;
    pmusim_model_diag(&im->base,
                      "%s: threads 0 and 1 both retire instructions in cycle %" G_GUINT64_FORMAT
                      "; Montecito switches threads on events and retires from one thread per "
                      "cycle: the trace is not a switch-on-event trace (reported once)",
                      im->d->ops->name, cycle);
}

static inline uint64_t ia64_or_masks(const uint64_t *masks, uint32_t v)
{
    uint64_t m = 0;
    for (uint32_t j = 0; j < v; j++)
        m |= masks[j];
    return m;
}

/* Whether ia64_consume_fast() may run: no per-record qualification, no
 * observed window, and the open cycle's masks all in cyc_masks (unfolded,
 * and not moved to pend by a class change, which leaves cyc_total counting
 * them).  Captures and last-instruction tracking run inside the fast loop. */
static inline bool ia64_fast_ok(const ia64_model_t *im)
{
    if (im->cyc_folded || im->cyc_n != im->cyc_total || im->obs_fn)
        return false;
    for (uint32_t t = 0; t < im->base.nthreads; t++)
        if (im->nqsub[t])
            return false;
    return true;
}

/* A cycle of v >= vlim records may still close in the fast loop when no
 * slot's own count in it exceeds its maxincr: what ia64_close_counts()
 * checks for its risky slots, which then stay deferred (issue 12: two
 * Montecito threads, or bursts of retirements, made every such cycle leave
 * the fast loop).  The maxincr-2/3 slots are tested by the q planes. */
static inline bool ia64_fast_close_ok(const ia64_model_t *im, uint64_t cm, uint32_t v,
                                      bool closable)
{
    if (!closable || v >= IA64_LOWINC)
        return false;
    uint64_t risky = cm & im->lowinc[v] & ~(im->m2 | im->m3);
    while (risky) {
        unsigned k = (unsigned)__builtin_ctzll(risky);
        risky &= risky - 1;
        uint32_t n = 0;
        for (uint32_t j = 0; j < v; j++)
            n += (uint32_t)((im->cyc_masks[j] >> k) & 1);
        if (n > im->th[k >> 4].ctr[k & 15].maxincr)
            return false;
    }
    return true;
}

/* Close the open cycle's capture counts (pend: D-EAR, BTB/ETB occurrences
 * the fast loop's captures raised) the way ia64_close_counts() would, when
 * that is all they need: no slot's count exceeds its maxincr (no clamp
 * diagnostic) and none carries out of bit 46 (no overflow, log or
 * interrupt).  All or nothing: FALSE leaves the state unchanged for the
 * general path.  Only while nobody observes cycles (obs_raw / obs_inc are
 * reset when an observation starts, so they need no update here). */
static inline bool ia64_fast_close_pend(ia64_model_t *im)
{
    /* one pass that adds as it tests, and takes the adds back when a slot
     * fails (rare; issue 12: a pass to test and one to add cost about 20
     * instructions of each close with captured counts) */
    uint64_t m = im->pmask;
    while (m) {
        unsigned k = (unsigned)__builtin_ctzll(m);
        m &= m - 1;
        ia64_ctr_t *c = &im->th[k >> 4].ctr[k & 15];
        const uint64_t n = im->pend[k];
        const uint64_t add = c->thres ? (n > c->thres) : n;
        if (n > c->maxincr || c->value + add >= IA64_CTR_WRAP) {
            uint64_t done = im->pmask & ~(m | UINT64_C(1) << k);
            while (done) {
                unsigned j = (unsigned)__builtin_ctzll(done);
                done &= done - 1;
                ia64_ctr_t *cj = &im->th[j >> 4].ctr[j & 15];
                const uint64_t nj = im->pend[j];
                cj->value -= cj->thres ? (nj > cj->thres) : nj;
            }
            return false;
        }
        c->value += add;
    }
    m = im->pmask;
    while (m) {
        unsigned k = (unsigned)__builtin_ctzll(m);
        m &= m - 1;
        im->pend[k] = 0;
    }
    im->pmask = 0;
    return true;
}

/* The bytes kind..len of a record (kind, thread, flags, plm, slot 0, unit
 * 0, len 0) as one word, in the host's byte order: what a memcpy of a
 * record's 8 bytes from its kind gives. */
_Static_assert(offsetof(pmusim_rec_t, thread) == offsetof(pmusim_rec_t, kind) + 1 &&
                   offsetof(pmusim_rec_t, flags) == offsetof(pmusim_rec_t, kind) + 2 &&
                   offsetof(pmusim_rec_t, plm) == offsetof(pmusim_rec_t, kind) + 4 &&
                   offsetof(pmusim_rec_t, len) == offsetof(pmusim_rec_t, kind) + 7,
               "kind, thread, flags, plm, slot, unit, len are 8 adjacent bytes");
static inline uint64_t ia64_rec_word(uint8_t kind, uint8_t thread, uint16_t flags, uint8_t plm)
{
    unsigned char b[8] = {0};
    b[0] = kind;
    b[1] = thread;
    memcpy(&b[2], &flags, sizeof flags);
    b[4] = plm;
    uint64_t w;
    memcpy(&w, b, sizeof w);
    return w;
}

/* The bytes is_store, level, tlb, alat of a record's memory access as a
 * little-endian word (one load on little-endian hosts); its branch's:
 * ia64_br_word() (ia64_priv.h). */
static inline uint32_t ia64_mem_word(const pmusim_rec_t *r)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    uint32_t w;
    memcpy(&w, &r->mem.is_store, sizeof w);
    return w;
#else
    return (uint32_t)r->mem.is_store | (uint32_t)r->mem.level << 8 | (uint32_t)r->mem.tlb << 16 |
           (uint32_t)r->mem.alat << 24;
#endif
}

/* Fields of those words within these bits (is_store 1 bit, level 3, tlb 2,
 * alat 2; kind 3, taken 1, dir_ok 1, tgt_ok 1, detect 2: every value of
 * traces/FORMAT.md's enumerations) are packed into 8 bits by one multiply:
 * each field's bits land in bits 63:56 of the product, in distinct places
 * and without carries from the partial products below (mem: is_store at
 * 56, tlb 57, level 59, alat 62; branch: kind 56, taken 59, dir_ok 60,
 * tgt_ok 61, detect 62; IA64_XBR_RANGE and IA64_XBR_MUL are in
 * ia64_priv.h, ia64_capture.c packs them too).  test_ia64_counters.c
 * checks that every value in range gets its own index. */
#define IA64_XMEM_RANGE UINT32_C(0x03030701)
#define IA64_XMEM_MUL (UINT64_C(1) << 56 | UINT64_C(1) << 51 | UINT64_C(1) << 41 | UINT64_C(1) << 38)

/* The index in ia64_model_t.xtab of an instruction record with flags'
 * low byte ix, a memory access (not a branch) whose key holds its mem
 * bytes, in *xi: false when one of them is out of range (sig_cache). */
static inline bool ia64_xtab_index_mem(const pmusim_rec_t *r, size_t ix, size_t *xi)
{
    const uint32_t w = ia64_mem_word(r);
    if (w & ~IA64_XMEM_RANGE)
        return false;
    _Static_assert(PMUSIM_F_NOP == 1u << 4 && PMUSIM_F_PRED_OFF == 1u << 5 &&
                       PMUSIM_F_FP == 1u << 6,
                   "flags 6:4 are NOP, PRED_OFF, FP");
    *xi = (ix & 0x70u) << 5 | (size_t)(((uint64_t)w * IA64_XMEM_MUL) >> 56);
    return true;
}

/* The same for a branch (not a memory access) whose key holds its branch
 * bytes. */
static inline bool ia64_xtab_index_br(const pmusim_rec_t *r, size_t ix, size_t *xi)
{
    const uint64_t x = ia64_br_word(r);
    if (x & ~IA64_XBR_RANGE)
        return false;
    *xi = (ix & 0x70u) << 5 | ia64_br_index(x) | 256u;
    return true;
}

/* The index in ia64_model_t.xtab of an instruction record with flags'
 * low byte ix, whose key (under need) holds its mem or its branch bytes;
 * -1 when it has none of them in range, both, or a misaligned access in
 * its key (those take sig_cache). */
static inline int ia64_xtab_index(const pmusim_rec_t *r, unsigned ix, unsigned need)
{
    const unsigned mb = ix & (PMUSIM_F_MEM | PMUSIM_F_BRANCH);
    size_t xi;
    if (mb == PMUSIM_F_MEM && (need & IA64_NEED_MEM) && !(need & IA64_NEED_MIS))
        return ia64_xtab_index_mem(r, ix, &xi) ? (int)xi : -1;
    if (mb == PMUSIM_F_BRANCH && (need & IA64_NEED_BR))
        return ia64_xtab_index_br(r, ix, &xi) ? (int)xi : -1;
    return -1;
}

/* lean_end2 for the end `end` of a fast loop's run from r: the first record
 * of the last cycle before end (or r: every record from r on is of one
 * cycle, as after any later r of this ia64_consume() call), found once per
 * end. */
static inline void ia64_lean_end2(ia64_model_t *im, const pmusim_rec_t *r,
                                  const pmusim_rec_t *end)
{
    if (im->lean_end != end) {
        const pmusim_rec_t *e2 = end - 1;
        while (e2 > r && e2[-1].cycle == e2->cycle)
            e2--;
        im->lean_end = end;
        im->lean_end2 = e2;
    }
}

/* The counting state a fast loop leaves for the general path: the open
 * cycle cur (was cur0 at entry) with the v masks in cyc_masks, its slots
 * outside them (cm) and packed counts (pk), the records deferred (acc),
 * and the q planes (with pk_lm: those of the open cycle's masks, which
 * the loop left alone). */
static inline __attribute__((always_inline)) void
ia64_fast_leave(ia64_model_t *im, const bool pk_lm, const uint64_t lmask, const uint64_t cm,
                const uint64_t pk, const uint32_t v, const uint64_t acc, uint64_t q0, uint64_t q1,
                uint64_t qsat, const uint64_t cur, const uint64_t cur0)
{
    if (pk_lm) {
        /* the q planes of the open cycle, for the general path */
        q0 = q1 = qsat = 0;
        if (lmask)
            for (uint32_t j = 0; j < v; j++) {
                const uint64_t lm = im->cyc_masks[j] & lmask;
                const uint64_t c0 = q0 & lm;
                q0 ^= lm;
                qsat |= q1 & c0;
                q1 ^= c0;
            }
    }
    im->cmask = cm | ia64_or_masks(im->cyc_masks, v);
    im->pk_open = pk;
    im->pk_open_cycle = cur;
    im->pk_open_v = v;
    im->pk_open_gen = im->sig_gen;
    im->q0 = q0;
    im->q1 = q1;
    im->qsat = qsat;
    im->acc_recs = acc;
    im->cyc_n = v;
    im->cyc_total = v;
    if (cur != cur0)
        im->cur = im->now = cur;
}

/* An EVENT record of thread t that no counter takes, marked seen as
 * ia64_on_event() marks it: true (the lean loop consumes it as a record
 * with an empty mask); false leaves it to ia64_on_event().  No capture
 * unit looks at an EVENT record but the I-EAR's fetch records (0x43),
 * which go to the general path (the lean loop and the capture loop of
 * ia64_consume_fast_body() alike).
 * Issue 12: the model's fact records, about one in ten records of a
 * memory-bound trace, each stopped the lean loop (its exit and entry cost
 * some 250 instructions). */
static inline bool ia64_event_quiet(ia64_model_t *im, const pmusim_rec_t *r, uint32_t t)
{
    const uint32_t code = r->ev_code;
    if (code == IA64_FACT_CODE) {
        const uint32_t f = r->ev_umask;
        if (f >= IA64_NFACTS || (im->fact_slots[t][f] && r->n))
            return false;
        if (im->d->facts[f].name)
            im->fact_seen |= UINT32_C(1) << f;
        return true;
    }
    if (code > 0xff)
        return true; /* (counted by nothing, not marked) */
    if (code == 0x43 ||
        (im->any_event_ctr && r->n && ((im->ev_es[code >> 6] >> (code & 63)) & 1)))
        return false;
    const uint32_t seen = code << 4 | (r->ev_umask & 0xfu);
    im->ev_seen[seen / 64] |= UINT64_C(1) << (seen % 64);
    return true;
}

/* Whether thread t0 retired in cycle cur according to the records [first,
 * r) a one-thread run consumed: its last instruction record is of cur (the
 * EVENT records the lean loop takes are no retirement). */
static inline bool ia64_run_retired_in(const pmusim_rec_t *first, const pmusim_rec_t *r,
                                       uint64_t cur)
{
    while (r > first && r[-1].kind != PMUSIM_REC_INSN)
        r--;
    return r > first && r[-1].cycle == cur;
}

/* One record of ia64_lean_body(): false when it leaves the record to the
 * full loop, else the record consumed (pk, p, s->cm updated; the entry of
 * a record with a mask goes to *p).  dkmh: dkm with the flags whose
 * records take xtab (hflags), so that one compare finds the records of
 * dtab (issue 12: a second test of the flags' byte on every record). */
static inline __attribute__((always_inline)) bool
ia64_lean_rec(ia64_model_t *im, ia64_lean_t *s, const pmusim_rec_t *r, const unsigned need,
              ia64_sig_entry_t *const dtab0, const uint64_t dkmh_x,
              const uint64_t dkmh, const uint64_t dke, const uint64_t dtag, uint64_t *pk,
              size_t *v)
{
    uint64_t w;
    memcpy(&w, &r->kind, sizeof w);
    /* x: the bytes that differ from dke's; only hflags ones for a record
     * of xtab (dke has none of them).  The other tests read the record
     * again (issue 12: w kept for them cost a register copy a record) */
    const uint64_t x = (w & dkmh) ^ dke;
    const ia64_sig_entry_t *d;
    if (__builtin_expect(x == 0, 1)) {
        /* (a size_t: no zero extension of the index) */
        size_t ix = ia64_flags_lo(r);
        if ((need & IA64_NEED_ST) && (ix & PMUSIM_F_MEM))
            ix |= (size_t)(r->mem.is_store != 0) << 8;
        d = &dtab0[ix];
    } else if (x & ~dkmh_x) {
        /* an EVENT record of the run's thread that counts nothing: an
         * empty mask (eke: kind and thread bytes) */
        if (r->kind != PMUSIM_REC_EVENT || r->thread != s->t0 ||
            !ia64_event_quiet(im, r, r->thread))
            return false;
        s->nempty++;
        return true;
    } else {
        /* x tells which of mem and branch the record has (issue 12: a
         * second test of the flags for it) */
        size_t xi;
        if ((need & IA64_NEED_MEM) && !(need & IA64_NEED_MIS) &&
            x == ia64_rec_word(0, 0, PMUSIM_F_MEM, 0)) {
            if (!ia64_xtab_index_mem(r, ia64_flags_lo(r), &xi))
                return false;
        } else if ((need & IA64_NEED_BR) && x == ia64_rec_word(0, 0, PMUSIM_F_BRANCH, 0)) {
            if (!ia64_xtab_index_br(r, ia64_flags_lo(r), &xi))
                return false;
        } else {
            return false;
        }
        /* (xtab follows dtab: ia64_model_t.dxtab) */
        d = &dtab0[IA64_DTAB_SLOTS + xi];
    }
    if (__builtin_expect(d->k1 != dtag, 0)) {
        if (d->k1 == (dtag | 1) && (d->rare & s->rare_keep) == IA64_RARE_E1) {
            /* (IA64_RARE_E1: the mask is not empty, inc 1) */
            s->cm |= d->mask;
        } else if (d->k1 == (dtag | 2)) { /* an empty mask */
            s->nempty++;
            return true;
        } else {
            return false;
        }
    }
    *pk += d->pk;
    im->lean_ents[(*v)++] = d;
    im->id_cnt[d->id]++;
    return true;
}

/* The common records and closes of ia64_consume_fast_body() for a run of
 * thread t0 with signatures and no per-record side work (single, !nosig,
 * !slow), in a function of its own: only what they read is live, so it
 * stays in registers (issue 12: in the full loop the end, cycle, record
 * word and table pointers were reloaded from the stack every record).
 * Entered with no rare record since the last close (dirty false: cm and
 * the q planes are 0).  Consumes the records whose direct-table entry
 * (dtab, xtab) is a plain one (tag dtag), an empty mask (dtag | 2) or a
 * rare one whose only rare bit the full loop keeps (rare_keep: without
 * pk_lm IA64_RARE_LM counts) is IA64_RARE_E1: its mask goes to cm as in
 * the full loop, where it would set dirty (cm != 0 stands for dirty
 * here), and the q planes need nothing (under pk_lm the full loop leaves
 * them alone; without it the mask has no m2 | m3 slot of dmask); and
 * closes a cycle when the full loop's test passes without
 * ia64_fast_close_ok() (pk_ok, or fewer than vlim records: v < vlim),
 * clearing cm the way the full loop's close does.  Returns the first
 * record it leaves to the full loop (a record of another thread, kind or
 * state, another rare entry, a miss, a close it does not take, or end),
 * with the state as the full loop would have left it (dirty: cm != 0).
 * Before end2 the loop tests the end at the closes only (a cycle starts
 * at end2); the records of the last cycle, from end2, are consumed by a
 * second loop without a cycle test (issue 12: a compare and branch less
 * per record). */
static inline __attribute__((always_inline)) const pmusim_rec_t *
ia64_lean_body(ia64_model_t *im, ia64_lean_t *s, const pmusim_rec_t *r, const unsigned need,
               ia64_sig_entry_t *const dtab0)
{
    const pmusim_rec_t *const end = s->end, *const end2 = s->end2;
    const unsigned hflags = ((need & (IA64_NEED_MEM | IA64_NEED_MIS)) ? PMUSIM_F_MEM : 0u) |
                            ((need & IA64_NEED_BR) ? PMUSIM_F_BRANCH : 0u);
    const uint64_t dkmh = ia64_rec_word(0xff, 0xff, (uint16_t)(PMUSIM_F_IA32 | hflags), 3),
                   dkmh_x = ia64_rec_word(0, 0, (uint16_t)hflags, 0), dke = s->dke,
                   dtag = s->dtag;
    uint64_t cur = s->cur, pk = s->pk;
    /* the open cycle's entries in lean_ents (issue 12: an index, whose
     * base is im, and not a pointer, whose base was reloaded at each
     * close); one flat loop over the records, the close out of line
     * (issue 12: a loop per cycle made gcc copy the loop's values between
     * registers every record) */
    size_t v = s->v;
    if (r < end2) {
        for (;;) {
            /* r < end2, r->cycle == cur */
            if (!ia64_lean_rec(im, s, r, need, dtab0, dkmh_x, dkmh, dke, dtag, &pk, &v))
                goto out;
            ++r; /* (r <= end2 < end) */
            if (__builtin_expect(r->cycle != cur, 0)) {
                /* ia64_consume_fast_body()'s close, without its
                 * ia64_fast_close_ok() fallback */
                const uint64_t c = r->cycle;
                if (c > s->next_lazy || c < cur ||
                    (v >= s->vlim && (v >= s->vmax || ((pk + s->pkb) & IA64_PK_HIGH))))
                    goto out;
                const uint64_t cm = s->cm;
                if (cm) {
                    const uint64_t e1 = cm & s->e1;
                    if (e1)
                        ia64_cp_add(im, e1);
                    s->cm = 0;
                }
                v = 0;
                s->v = 0; /* (the open cycle's entries start at 0) */
                pk = 0;
                cur = c;
                if (r >= end2)
                    break;
            }
        }
    }
    /* the last cycle: r->cycle == cur up to end */
    do {
        if (!ia64_lean_rec(im, s, r, need, dtab0, dkmh_x, dkmh, dke, dtag, &pk, &v))
            goto out;
    } while (++r < end);
out:;
    /* the open cycle's entries added here: from 0 when a cycle closed
     * (s->v is read here: no register holds it in the loop); their masks
     * go to cyc_masks when the run is left (ia64_lean_leave()) */
    s->vfrom = s->v;
    s->cur = cur;
    s->pk = pk;
    s->v = (uint32_t)v;
    return r;
}

#define IA64_LEAN(name, need)                                                                      \
    static __attribute__((noinline)) const pmusim_rec_t *name(                                     \
        ia64_model_t *im, ia64_lean_t *s, const pmusim_rec_t *r, ia64_sig_entry_t *dtab0)         \
    {                                                                                              \
        return ia64_lean_body(im, s, r, need, dtab0);                                             \
    }
IA64_LEAN(ia64_lean_0, 0)
IA64_LEAN(ia64_lean_m, IA64_NEED_MEM)
IA64_LEAN(ia64_lean_s, IA64_NEED_ST)
IA64_LEAN(ia64_lean_sb, IA64_NEED_ST | IA64_NEED_BR)
IA64_LEAN(ia64_lean_b, IA64_NEED_BR)
IA64_LEAN(ia64_lean_mb, IA64_NEED_MEM | IA64_NEED_BR)
IA64_LEAN(ia64_lean_all, IA64_NEED_MEM | IA64_NEED_MIS | IA64_NEED_BR)
#undef IA64_LEAN

/* ia64_lean_body() for the configuration need (a constant where called). */
static inline __attribute__((always_inline)) const pmusim_rec_t *
ia64_lean(ia64_model_t *im, ia64_lean_t *s, const pmusim_rec_t *r, const unsigned need,
          ia64_sig_entry_t *dtab0)
{
    switch (need) {
    case 0:
        return ia64_lean_0(im, s, r, dtab0);
    case IA64_NEED_MEM:
        return ia64_lean_m(im, s, r, dtab0);
    case IA64_NEED_ST:
        return ia64_lean_s(im, s, r, dtab0);
    case IA64_NEED_ST | IA64_NEED_BR:
        return ia64_lean_sb(im, s, r, dtab0);
    case IA64_NEED_BR:
        return ia64_lean_b(im, s, r, dtab0);
    case IA64_NEED_MEM | IA64_NEED_BR:
        return ia64_lean_mb(im, s, r, dtab0);
    default:
        return ia64_lean_all(im, s, r, dtab0);
    }
}

/* The per-record work of ia64_consume_fast_body() past its last break:
 * the record is consumed.  Thread t's last instruction is stored when the
 * loop ends (single: the last record consumed), as nothing reads it inside;
 * the capture units of a run of one thread are called with their tests of
 * the state done (cap_flags, cap_all) and the run's look-ups in cr, others
 * through ia64_capture_insn(). */
static inline __attribute__((always_inline)) void
ia64_fast_side(ia64_model_t *im, const pmusim_rec_t *r, const uint32_t t, const uint32_t t0,
               const bool single, const bool track, const bool capture, const unsigned cap_flags,
               const bool cap_all, ia64_caprun_t *cr, const pmusim_rec_t **last)
{
    if (track && !single)
        last[t] = r;
    if (capture && single) {
        const unsigned fc = r->flags & cap_flags;
        /* (most records have neither: one test for them, issue 12) */
        if (__builtin_expect(fc != 0, 0)) {
            if (fc & PMUSIM_F_MEM)
                ia64_caprun_dear(cr, r);
            if (fc & PMUSIM_F_BRANCH)
                ia64_caprun_btb(cr, r);
        }
        if (cap_all)
            ia64_capture_ipear(im, t0, r);
    } else if (capture && (cap_all || (r->flags & cap_flags))) {
        ia64_capture_insn(im, t, r);
    }
}

/* The common case of ia64_consume() with the counting state in locals:
 * instruction records whose thread keeps its privilege level and instruction
 * set, and cycle closes that ia64_advance() would take its inline path for
 * (the same test, on the same state, but with vsafe standing for the lowinc
 * test).  Stops at the first record it cannot handle completely and returns
 * its index; the state is then exactly as if the general path had consumed
 * the records before it.  Nothing it skips can change while it runs: the
 * classes, headroom, lazy deadline and pending work change only in the
 * general path (a signature miss may start a cache generation, which only
 * the local gen_tag follows).  ia64_fast_ok() holds, so cyc_n equals
 * cyc_total.  cap_ok false: an instance for runs without capture units
 * (capture_any false), which leaves their code out. */
static inline __attribute__((always_inline)) size_t
ia64_consume_fast_body(ia64_model_t *im, const pmusim_rec_t *recs, size_t k, size_t n,
                       const unsigned need, const bool single, const bool slow, const bool nosig,
                       const uint32_t t0, const ia64_sig_entry_t *const csig, const bool cap_ok)
{
    const uint32_t nth = im->base.nthreads;
    const uint64_t e1mask = im->e1mask, m2 = im->m2, m3 = im->m3;
    const uint64_t lmask = im->dmask & (m2 | m3);
    /* nosig: the mask and packed increment of every record (in locals: the
     * loop's stores through im could alias csig) */
    const uint64_t cmask0 = nosig ? csig->mask : 0, cpk0 = nosig ? csig->pk : 0;
    /* pk_lm: the m2 | m3 slots' clamps tested by the packed counts, the q
     * planes left alone (their rare bit IA64_RARE_LM ignored) */
    const bool pk_lm = im->pk_lm;
    const unsigned rare_keep = pk_lm ? ~(unsigned)IA64_RARE_LM : ~0u;
    const uint32_t vsafe = pk_lm ? im->vsafe_pk : im->vsafe;
    const uint64_t next_lazy = im->next_lazy;
    uint64_t gen_tag = im->gen_tag;
    /* per thread: the k1 bits of its active state, the state bits its
     * instruction records must carry (an impossible value before the
     * first), its signature cache */
    uint64_t act[IA64_MAX_THREADS] = {0}, st[IA64_MAX_THREADS] = {0}, tag[IA64_MAX_THREADS] = {0};
    const ia64_sig_entry_t *cache[IA64_MAX_THREADS] = {NULL};
    /* (single: thread t0's only) */
    for (uint32_t t = single ? t0 : 0; t < (single ? t0 + 1 : nth); t++) {
        act[t] = im->th[t].active ? IA64_KEY_ACTIVE : 0;
        tag[t] = gen_tag | act[t];
        st[t] = im->th[t].state_key ? im->th[t].state_key & IA64_KEY_STATE : UINT64_MAX;
        /* an inactive thread's retirements go to the general path until
         * reported (ia64_retire_check()) */
        if (!act[t] && !im->inactive_reported)
            st[t] = UINT64_MAX;
        cache[t] = im->sig_cache[t];
    }
    /* single: every record of the run is thread t0's (its key state, tag
     * and cache in registers) */
    const uint64_t st0 = st[t0], act0 = act[t0];
    uint64_t tag0 = tag[t0];
    const ia64_sig_entry_t *const cache0 = cache[t0];
    /* the thread of the open cycle's retirements, IA64_MAX_THREADS if none;
     * a second thread's retirement stops the loop until reported (mont) */
    bool watch_two = !single && im->d->mont && !im->two_retire_reported;
    /* threads retiring in the open cycle (t + 1 or'ed: 3 = both) */
    uint32_t tm = im->retire_cycle == im->cur ? im->retire_tmask : 0;
    const uint64_t cur0 = im->cur;
    /* cm: the open cycle's slots from before the loop (im->cmask) and the
     * e1mask slots of its records (IA64_RARE_E1), what a close here reads;
     * the others are in cyc_masks[0, v), or'ed where needed (issue 12: an
     * or per record less) */
    uint64_t cur = cur0, cm = im->cmask, q0 = im->q0, q1 = im->q1, qsat = im->qsat;
    uint64_t acc = im->acc_recs;
    uint32_t v = im->cyc_total;
    /* Whether the open cycle can close here (ia64_advance()'s inline
     * path): not with pending exact work or an interrupt, nor with slots
     * outside dmask | e1mask (the fast path's records add none:
     * IA64_RARE_EXACT).  The low-maxincr clamp is tested at the close. */
    const bool closable = !im->pmask && !im->irq_pending && !(cm & ~(im->dmask | e1mask));
    /* a run of one Montecito thread: only the slots its records reach,
     * if the open cycle has no counts of others (another thread's
     * retirements before the run) */
    const uint64_t head = single && nth > 1 && !(cm & ~im->reach[t0]) ? im->lim_thr[t0]
                                                                     : im->min_headroom;
    const uint64_t lim = !closable ? UINT64_MAX : head < IA64_ACC_MAX ? head : IA64_ACC_MAX;
    /* a cycle with v records closes here only if v < vlim, or if v <
     * vmax and its packed counts show no clamp (pk_ok), or if
     * ia64_fast_close_ok() says so */
    const uint32_t vlim = closable ? vsafe + 1 : 0;
    const uint32_t vmax = closable ? IA64_LOWINC : 0;
    const bool pk_ok = im->pk_ok;
    const uint64_t pk_bias = im->pk_bias, pkb = pk_ok ? pk_bias : IA64_PK_HIGH;
    /* dirty: cm or the q planes may be non-zero (a record with rare set
     * since the last close, or cmask at entry), what a close must clear
     * (with signatures: the common records set neither) */
    bool dirty = cm || q0 || q1 || qsat;
    uint64_t pk = 0;
    if (pk_ok && v) {
        if (im->pk_open_cycle == cur0 && im->pk_open_v == v && im->pk_open_gen == im->sig_gen)
            pk = im->pk_open;
        else
            for (uint32_t j = 0; j < v; j++)
                pk += ia64_pk_of(im, im->cyc_masks[j]);
    }
    /* last-instruction tracking and capture units (ia64_consume()'s
     * insn_slow work); a capture's count goes to pend, which a close here
     * must then leave to the general path */
    const bool track = im->track_last, capture = cap_ok && im->capture_any;
    /* the record flags a capture unit looks at (ia64_capture_insn()): the
     * D-EARs memory accesses, the BTB/ETBs branches, an IP-EAR every
     * instruction; other records skip the call */
    uint16_t cap_flags = 0;
    bool cap_all = false;
    ia64_caprun_t cr;
    /* the run keeps thread t0's privilege level and instruction set (st0) */
    const unsigned a0 = ((st0 & PMUSIM_F_IA32) ? 4u : 0u) | (unsigned)((st0 >> 16) & 3u);
    if (single) {
        /* the units that sample them, as ia64_capture_insn() tests */
        const ia64_thread_t *th = &im->th[t0];
        cap_flags = (uint16_t)((((th->dear_acc >> a0) & 1) ? PMUSIM_F_MEM : 0) |
                               (((th->btb_acc >> a0) & 1) ? PMUSIM_F_BRANCH : 0));
        cap_all = (th->ipear_acc >> a0) & 1;
    } else {
        for (uint32_t t = 0; t < nth; t++) {
            cap_flags |= (uint16_t)((im->th[t].dear_on ? PMUSIM_F_MEM : 0) |
                                    (im->th[t].btb_on ? PMUSIM_F_BRANCH : 0));
            cap_all |= im->th[t].ipear_on;
        }
    }
    /* acc + v grows by at most one per record: stop before it could reach
     * lim (the close test of ia64_advance()), and before cyc_masks could
     * fill (end; when the loop reaches it, the records of the cycle then
     * open get the rest of cyc_masks: issue 12, a batch of 256 records
     * took two loop entries) */
    if (acc + v >= lim)
        return k;
    if (n - k > lim - acc - v)
        n = k + (size_t)(lim - acc - v);
    /* (here, not where cap_flags is set: issue 12, gcc then computes those
     * after the return above too, about 25 instructions of each sampling
     * run that returns there) */
    if (slow && single && cap_flags)
        ia64_caprun_init(&cr, im, t0, a0);
    /* single: the record bytes kind..len that carry the kind, thread,
     * instruction set and privilege level (dkm), and their value for
     * thread t0's instruction records in state st0 (dke; an impossible
     * value when st0 is); with signatures, the direct table's tag of the state
     * (dtag, ia64_model_t.dtab) and the record flags whose key bytes it
     * does not hold (hflags: those records take xtab when
     * ia64_xtab_index() has an index for them, else sig_cache) */
    uint64_t dkm = 0, dke = 0, dst0 = 0, dtag = 0;
    /* the bytes kind and thread of thread t0's EVENT records (ekm, eke): one
     * no counter takes is consumed as an empty mask (ia64_event_quiet();
     * issue 12: each stopped the capture loop, about one record in ten of
     * a memory-bound trace) */
    const uint64_t ekm = ia64_rec_word(0xff, 0xff, 0, 0);
    const uint64_t eke = ia64_rec_word(PMUSIM_REC_EVENT, (uint8_t)t0, 0, 0);
    size_t nquiet = 0; /* the EVENT records consumed so */
    unsigned hflags = 0;
    ia64_sig_entry_t *const dtab0 = im->dxtab[t0], *const xtab0 = dtab0 + IA64_DTAB_SLOTS;
    if (single) {
        /* (nosig too: issue 12, one compare where the kind and thread and
         * then the state were tested) */
        dkm = ia64_rec_word(0xff, 0xff, PMUSIM_F_IA32, 3);
        dke = ia64_rec_word(PMUSIM_REC_INSN, (uint8_t)t0, (uint16_t)(st0 & PMUSIM_F_IA32),
                            (uint8_t)((st0 >> 16) & 3u));
        if (st0 == UINT64_MAX)
            dke = ~dkm;
    }
    if (single && !nosig) {
        dst0 = st0 & IA64_KEY_STATE;
        dtag = tag0 | dst0;
        hflags = ((need & (IA64_NEED_MEM | IA64_NEED_MIS)) ? PMUSIM_F_MEM : 0u) |
                 ((need & IA64_NEED_BR) ? PMUSIM_F_BRANCH : 0u);
    }
    const pmusim_rec_t *r = recs + k, *const end_n = recs + n;
    /* No cycle may reach IA64_CYC_CAP masks before end.  Up to
     * IA64_CYC_CAP records (the engine's batches) that leave the open
     * cycle before its masks could fill need no bound: every later cycle
     * starts at r + 1 or after (issue 12: with the open cycle of the last
     * batch, v > 0, the bound r + IA64_CYC_CAP - v split most batches
     * into two runs of the loop and of the lean function). */
    const pmusim_rec_t *end = n - k > IA64_CYC_CAP - v ? r + (IA64_CYC_CAP - v) : end_n;
    if (end != end_n && n - k <= IA64_CYC_CAP && end[-1].cycle != cur)
        end = end_n;
    /* per thread, the last record consumed here (track) */
    const pmusim_rec_t *last[IA64_MAX_THREADS] = {NULL};
    for (;;) {
        while (r < end) {
            const uint64_t c = r->cycle;
            if (c != cur) {
                /* ia64_advance()'s inline test (pkb: without pk_ok the
                 * packed test always fails, pk being 0) */
                if (c > next_lazy || c < cur ||
                    (!pk_lm && (nosig || dirty) && (q1 | qsat) &&
                     ((m2 & (qsat | (q1 & q0))) | (m3 & qsat))) ||
                    (v >= vlim && (v >= vmax || ((pk + pkb) & IA64_PK_HIGH)) &&
                     (pk_ok ||
                      !ia64_fast_close_ok(im, cm | ia64_or_masks(im->cyc_masks, v), v, closable))))
                    goto out;
                /* the captures' counts (pend) of the closing cycle: last, as it
                 * changes the state (closable held at entry, so pend holds only
                 * what this loop's captures added) */
                if (slow && im->pmask && !ia64_fast_close_pend(im))
                    goto out;
                if (nosig || dirty) {
                    uint64_t e1 = cm & e1mask;
                    if (e1)
                        ia64_cp_add(im, e1);
                    cm = 0;
                    q0 = q1 = qsat = 0;
                    dirty = false;
                }
                acc += v;
                v = 0;
                pk = 0;
                /* the cycle both threads retired in: the one closing */
                if (watch_two && tm == 3) {
                    ia64_two_retire_report(im, cur);
                    watch_two = false;
                }
                cur = c;
                if (!single)
                    tm = 0;
            }
            /* a run of thread t0 with signatures and no side work: its
             * common records and closes in ia64_lean_body(), while it
             * takes them */
            if (single && !nosig && !slow && !dirty) {
                ia64_lean_end2(im, r, end);
                ia64_lean_t ls = {.end = end,
                                  .end2 = im->lean_end2,
                                  .cur = cur,
                                  .pk = pk,
                                  .cm = 0,
                                  .next_lazy = next_lazy,
                                  .pkb = pkb,
                                  .dke = dke,
                                  .t0 = t0,
                                  .dtag = dtag,
                                  .e1 = e1mask,
                                  .vlim = vlim,
                                  .vmax = vmax,
                                  .nempty = 0,
                                  .v = v,
                                  .rare_keep = rare_keep};
                const pmusim_rec_t *const r_in = r;
                r = ia64_lean(im, &ls, r, need, dtab0);
                /* the open cycle's masks it added, for this loop */
                for (uint32_t j = ls.vfrom; j < ls.v; j++)
                    im->cyc_masks[j] = im->lean_ents[j]->mask;
                cur = ls.cur;
                pk = ls.pk;
                /* the masks of the cycles it closed: those it was given
                 * (v) and added, less those of the open cycle */
                acc += v + ((size_t)(r - r_in) - ls.nempty) - ls.v;
                v = ls.v;
                cm = ls.cm;
                dirty = cm != 0;
                if (r >= end || r->cycle != cur)
                    continue;
            }
            /* the records of cycle cur */
            do {
                const uint32_t t = single ? t0 : r->thread;
                const ia64_sig_entry_t *e = NULL;
                if (single && !nosig) {
                    /* kind, thread, instruction set and privilege level: one
                     * compare of the record's bytes kind..len */
                    uint64_t w;
                    memcpy(&w, &r->kind, sizeof w);
                    if ((w & dkm) != dke) {
                        /* an EVENT record of t0 that counts nothing: an
                         * empty mask, as in the lean loop */
                        if ((w & ekm) != eke || !ia64_event_quiet(im, r, t0))
                            goto out;
                        nquiet++;
                        continue;
                    }
                    unsigned ix = ia64_flags_lo(r);
                    ia64_sig_entry_t *d = NULL;
                    if (!(ix & hflags)) {
                        /* the key is the flags' low byte (and the store bit) */
                        if ((need & IA64_NEED_ST) && (ix & PMUSIM_F_MEM))
                            ix |= (unsigned)(r->mem.is_store != 0) << 8;
                        d = &dtab0[ix];
                    } else if (need & (IA64_NEED_MEM | IA64_NEED_BR)) {
                        /* the flags with the mem or branch bytes, packed */
                        const int xi = ia64_xtab_index(r, ix, need);
                        if (xi >= 0)
                            d = &xtab0[xi];
                    }
                    if (d) {
                        if (__builtin_expect(d->k1 == dtag, 1)) {
                            /* rare 0, inc 1 */
                            if (slow)
                                ia64_fast_side(im, r, t0, t0, true, track, capture, cap_flags,
                                               cap_all, &cr, last);
                            pk += d->pk;
                            im->cyc_masks[v++] = d->mask;
                            im->id_cnt[d->id]++; /* +1 on every D slot of the mask */
                            continue;
                        }
                        if (d->k1 == (dtag | 2)) {
                            /* an empty mask: nothing to add */
                            if (slow)
                                ia64_fast_side(im, r, t0, t0, true, track, capture, cap_flags,
                                               cap_all, &cr, last);
                            continue;
                        }
                        if (d->k1 != (dtag | 1)) {
                            /* a miss: the entry of sig_cache, copied */
                            uint64_t k1, k2 = 0;
                            ia64_key(r, false, need, &k1, &k2);
                            const unsigned slot = ia64_key_slot(k1, k2, need);
                            e = &cache0[slot];
                            if (e->k1 != (k1 | tag0) ||
                                ((need & (IA64_NEED_MEM | IA64_NEED_BR)) && e->k2 != k2)) {
                                e = ia64_sig_miss(im, t0, r, k1 | act0, k2, slot);
                                gen_tag = im->gen_tag;
                                tag0 = gen_tag | act0;
                                dtag = tag0 | dst0;
                            }
                            *d = *e;
                            d->k1 = dtag | ((e->rare & rare_keep) ? 1u : e->inc ? 0u : 2u);
                        }
                        e = d;
                    } else {
                        uint64_t k1, k2 = 0;
                        ia64_key(r, false, need, &k1, &k2);
                        const unsigned slot = ia64_key_slot(k1, k2, need);
                        e = &cache0[slot];
                        if (__builtin_expect(e->k1 != (k1 | tag0) ||
                                                 ((need & (IA64_NEED_MEM | IA64_NEED_BR)) &&
                                                  e->k2 != k2),
                                             0)) {
                            e = ia64_sig_miss(im, t0, r, k1 | act0, k2, slot);
                            gen_tag = im->gen_tag;
                            tag0 = gen_tag | act0;
                            dtag = tag0 | dst0;
                        }
                    }
                } else if (single) {
                    /* nosig: kind, thread, instruction set and privilege
                     * level as above */
                    uint64_t w;
                    memcpy(&w, &r->kind, sizeof w);
                    if ((w & dkm) != dke) {
                        if ((w & ekm) != eke || !ia64_event_quiet(im, r, t0))
                            goto out;
                        nquiet++;
                        continue;
                    }
                } else {
                    if (t >= nth || r->kind != PMUSIM_REC_INSN) {
                        if (t >= nth || r->kind != PMUSIM_REC_EVENT || !ia64_event_quiet(im, r, t))
                            goto out;
                        nquiet++;
                        continue;
                    }
                    uint64_t k1, k2 = 0;
                    if (nosig)
                        k1 = ia64_key_flags_plm(r); /* only the state bits are looked at */
                    else
                        ia64_key(r, false, need, &k1, &k2);
                    if ((k1 & IA64_KEY_STATE) != st[t])
                        goto out;
                    tm |= t + 1;
                    if (!nosig) {
                        const unsigned slot = ia64_key_slot(k1, k2, need);
                        e = &cache[t][slot];
                        /* tag[t]: the generation tag and the thread's active bit */
                        /* (no k2 without mem or branch bytes: every entry of the
                         * generation was made with this need) */
                        if (__builtin_expect(e->k1 != (k1 | tag[t]) ||
                                                 ((need & (IA64_NEED_MEM | IA64_NEED_BR)) &&
                                                  e->k2 != k2),
                                             0)) {
                            e = ia64_sig_miss(im, t, r, k1 | act[t], k2, slot);
                            gen_tag = im->gen_tag;
                            for (uint32_t u = 0; u < nth; u++)
                                tag[u] = gen_tag | act[u];
                        }
                    }
                }
                /* nosig: the constant signature csig (rare 0) */
                const unsigned rare = nosig ? 0 : e->rare & rare_keep;
                if (rare) {
                    if (rare & IA64_RARE_EXACT)
                        goto out;
                    dirty = true;
                    if (rare & IA64_RARE_E1)
                        cm |= e->mask;
                    if (!pk_lm) {
                        /* 2-bit saturating per-cycle count of the low-maxincr slots */
                        const uint64_t lm = e->mask & lmask;
                        const uint64_t c0 = q0 & lm;
                        q0 ^= lm;
                        qsat |= q1 & c0;
                        q1 ^= c0;
                    }
                }
                if (slow)
                    ia64_fast_side(im, r, t, t0, single, track, capture, cap_flags, cap_all, &cr,
                                   last);
                if (nosig) {
                    if (cmask0) {
                        cm |= cmask0;
                        pk += cpk0;
                        im->cyc_masks[v++] = cmask0;
                    }
                } else {
                    /* without a branch: an empty mask adds nothing but its store
                     * past cyc_n (v < IA64_CYC_CAP: the loop's bound) and a count
                     * of id 0, which nothing reads */
                    const uint64_t mask = e->mask;
                    pk += e->pk;
                    im->cyc_masks[v] = mask;
                    v += e->inc;
                    im->id_cnt[e->id]++; /* +1 on every D slot of the mask */
                }
            } while (++r < end && r->cycle == cur);
        }
        if (end == end_n || v >= IA64_CYC_CAP)
            break;
        end = (size_t)(end_n - r) > IA64_CYC_CAP - v ? r + (IA64_CYC_CAP - v) : end_n;
    }
out:
    /* the run's captured branches into the BTB/ETB (cap_flags: cr is set) */
    if (slow && single && cap_flags && cr.nb)
        ia64_caprun_flush(&cr);
    /* nosig: every instruction record consumed has the mask cmask0 */
    if (nosig && cmask0)
        im->id_cnt[csig->id] += (uint64_t)(r - (recs + k)) - nquiet;
    if (slow && track) {
        if (single) {
            /* the run's last instruction record (the quiet EVENT records
             * consumed after it are none) */
            const pmusim_rec_t *q = r;
            while (q > recs + k && q[-1].kind != PMUSIM_REC_INSN)
                q--;
            if (q > recs + k)
                last[t0] = q - 1;
        }
        for (uint32_t u = 0; u < nth; u++) {
            if (!last[u])
                continue;
            ia64_thread_t *th = &im->th[u];
            th->last_ip = last[u]->ip;
            th->last_insn = last[u]->insn;
            th->last_unit = last[u]->unit;
            th->last_slot = last[u]->slot;
        }
    }
    ia64_fast_leave(im, pk_lm, lmask, cm, pk, v, acc, q0, q1, qsat, cur, cur0);
    /* (one thread: nothing to compare a retirement's thread with) */
    if (!single) {
        im->retire_cycle = cur;
        im->retire_tmask = tm;
    } else if (nth > 1) {
        /* a run of thread t0 (ia64_consume_fast() started it with no other
         * thread's retirement in the open cycle, or with none to report) */
        im->retire_cycle = cur;
        /* t0 retired in cur if the last record consumed is of cur (a
         * close makes the record that stops the loop open a cycle) */
        im->retire_tmask = (cur == cur0 ? tm : 0) |
                           (ia64_run_retired_in(recs + k, r, cur) ? t0 + 1 : 0);
    }
    return (size_t)(r - recs);
}

/* Thread t's one signature in its current state (privilege level,
 * instruction set, active), or NULL when its masks depend on the record:
 * some signature source of the thread other than IA64_SRC_INSN /
 * IA64_SRC_INSN_IA32 (which every instruction of a state raises or none
 * does), no instruction seen yet, or a mask the fast loop would leave
 * (exact slots) or watch per record (maxincr 2 / 3).  With no source at
 * all (sig_none) the mask is empty. */
static __attribute__((noinline)) const ia64_sig_entry_t *
ia64_const_sig_new(ia64_model_t *im, uint32_t t, uint64_t state)
{
    const ia64_thread_t *th = &im->th[t];
    bool ok = th->state_key != 0;
    for (unsigned j = 0, ns = im->nsrcs[t]; ok && j < ns; j++)
        ok = im->srcs[t][j] == IA64_SRC_INSN || im->srcs[t][j] == IA64_SRC_INSN_IA32;
    uint64_t mask = 0;
    if (ok) {
        pmusim_rec_t z;
        memset(&z, 0, sizeof z);
        z.kind = PMUSIM_REC_INSN;
        z.thread = (uint8_t)t;
        z.flags = (uint16_t)(th->state_key & PMUSIM_F_IA32);
        z.plm = (uint8_t)((th->state_key >> 16) & 3u);
        mask = ia64_sig_mask(im, t, &z);
        ok = !(mask & ~(im->dmask | im->e1mask)) && !(mask & im->dmask & (im->m2 | im->m3));
    }
    ia64_sig_entry_t *cs = &im->csig[t];
    memset(cs, 0, sizeof *cs);
    if (ok) {
        cs->mask = (uint32_t)mask;
        cs->inc = mask != 0;
        cs->id = (uint16_t)ia64_id_of(im, mask & im->dmask); /* may start a generation */
        cs->pk = ia64_pk_of(im, mask);
    }
    im->csig_gen[t] = im->sig_gen;
    im->csig_state[t] = state;
    im->csig_ok[t] = ok;
    return ok ? cs : NULL;
}

/* (the look-up inline, the computation not: issue 12, every run of a
 * Montecito thread asks, and the answer is almost always the last one) */
static inline const ia64_sig_entry_t *ia64_const_sig(ia64_model_t *im, uint32_t t)
{
    const ia64_thread_t *th = &im->th[t];
    const uint64_t state = th->state_key | (th->active ? IA64_KEY_ACTIVE : 0);
    if (im->csig_gen[t] == im->sig_gen && im->csig_state[t] == state)
        return im->csig_ok[t] ? &im->csig[t] : NULL;
    return ia64_const_sig_new(im, t, state);
}

/* The exit of a lean run (im->sus): the state ia64_consume_fast_body()
 * would leave (ia64_fast_leave(), and on Montecito the retirements of the
 * open cycle). */
static void ia64_lean_leave(ia64_model_t *im)
{
    const ia64_lean_sus_t *const sus = &im->sus;
    const ia64_lean_t *const ls = &sus->ls;
    im->lean_sus = false;
    /* the open cycle's masks not in cyc_masks yet (issue 12: once per
     * run, not at every return of the lean function) */
    for (uint32_t j = sus->vfill; j < ls->v; j++)
        im->cyc_masks[j] = im->lean_ents[j]->mask;
    /* the masks of the cycles it closed: those it was given and added,
     * less those of the open cycle */
    const uint64_t acc = sus->acc0 + (sus->done - ls->nempty) - ls->v;
    ia64_fast_leave(im, sus->pk_lm, im->dmask & (im->m2 | im->m3), ls->cm, ls->pk, ls->v, acc,
                    im->q0, im->q1, im->qsat, ls->cur, sus->cur0);
    if (im->base.nthreads > 1) {
        /* as ia64_consume_fast_body() leaves a run of t0 */
        im->retire_cycle = ls->cur;
        im->retire_tmask = (ls->cur == sus->cur0 ? sus->tm : 0) |
                           (sus->retired && sus->ret_cycle == ls->cur ? ls->t0 + 1 : 0);
    }
}

void ia64_lean_flush(ia64_model_t *im)
{
    ia64_lean_leave(im);
}

/* The lean function on [r, end_n) of recs[0, n) with im->sus set up: the
 * run is suspended when it took every record of the call (end_n = recs +
 * n), else left.  Returns the first record not consumed. */
static inline __attribute__((always_inline)) size_t
ia64_lean_run(ia64_model_t *im, const pmusim_rec_t *recs, const pmusim_rec_t *r,
              const pmusim_rec_t *end_n, size_t n)
{
    ia64_lean_sus_t *const sus = &im->sus;
    const pmusim_rec_t *const r_in = r;
    r = ia64_lean(im, &sus->ls, r, im->key_need, im->dxtab[sus->ls.t0]);
    const size_t took = (size_t)(r - r_in);
    if (sus->ls.vfrom < sus->vfill)
        sus->vfill = sus->ls.vfrom;
    sus->done += took;
    sus->left -= took;
    /* the run's last instruction record (the EVENT records the lean loop
     * takes are no retirement) */
    const pmusim_rec_t *q = r;
    while (q > r_in && q[-1].kind != PMUSIM_REC_INSN)
        q--;
    if (q > r_in) {
        sus->retired = true;
        sus->ret_cycle = q[-1].cycle;
    }
    if (r == end_n && end_n == recs + n && sus->left) {
        im->lean_sus = true;
        /* (ia64_consume() reads cur for the trace's end) */
        im->cur = im->now = sus->ls.cur;
    } else {
        ia64_lean_leave(im);
    }
    return (size_t)(r - recs);
}

/* A suspended lean run (im->lean_sus) on the records of a new
 * ia64_consume() call from recs[0], a record of its thread: the entry's
 * close and bounds of ia64_lean_entry() on the run's state.  Returns the
 * first record not consumed; 0 with the run left when it cannot go on. */
static size_t ia64_lean_resume(ia64_model_t *im, const pmusim_rec_t *recs, size_t n)
{
    ia64_lean_sus_t *const sus = &im->sus;
    ia64_lean_t *const ls = &sus->ls;
    const pmusim_rec_t *r = recs;
    uint32_t v = ls->v;
    if (r->cycle != ls->cur) {
        /* the lean function's close */
        const uint64_t c = r->cycle;
        if (c > ls->next_lazy || c < ls->cur ||
            (v >= ls->vlim && (v >= IA64_LOWINC || ((ls->pk + ls->pkb) & IA64_PK_HIGH)))) {
            ia64_lean_leave(im);
            return 0;
        }
        if (ls->cm & ls->e1)
            ia64_cp_add(im, ls->cm & ls->e1);
        ls->cm = 0;
        /* (the closed cycle's masks are among the records done) */
        ls->v = v = 0;
        sus->vfill = 0;
        ls->pk = 0;
        ls->cur = c;
    }
    if (n > sus->left)
        n = (size_t)sus->left;
    /* no cycle may reach IA64_CYC_CAP masks before end (as in
     * ia64_lean_entry()) */
    const pmusim_rec_t *const end_n = recs + n;
    const pmusim_rec_t *end = n > IA64_CYC_CAP - v ? r + (IA64_CYC_CAP - v) : end_n;
    if (end != end_n && n <= IA64_CYC_CAP && end[-1].cycle != ls->cur)
        end = end_n;
    ia64_lean_end2(im, r, end);
    ls->end = end;
    ls->end2 = im->lean_end2;
    return ia64_lean_run(im, recs, r, end_n, n);
}

/* A run of thread t0 with signatures and no per-record side work (not
 * insn_slow) from recs[k], in ia64_lean_body() from the start: what
 * ia64_consume_fast_body() would do with it, with only the state the lean
 * function reads computed (issue 12: the general loop's entry and exit
 * cost about 570 instructions, paid at every engine batch and every
 * Montecito thread switch; the records of the open cycle it was entered
 * with, which it took one by one, are the lean function's too).  The
 * record at k may open a cycle: closed here with the lean function's test.
 * Returns the first record not consumed, with the state exact; k itself
 * when the run's state is not one the lean function takes (no instruction
 * seen, an inactive thread not yet reported, one signature for every
 * record, a cycle that cannot close in a fast loop: capture counts, an
 * interrupt, exact slots; the q planes in use without pk_lm). */
static __attribute__((noinline)) size_t ia64_lean_entry(ia64_model_t *im, const pmusim_rec_t *recs,
                                                        size_t k, size_t n, const uint32_t t0)
{
    const size_t n_in = n;
    const ia64_thread_t *th = &im->th[t0];
    const bool pk_lm = im->pk_lm;
    uint64_t cm = im->cmask;
    const uint64_t e1mask = im->e1mask;
    if (!th->state_key || (!th->active && !im->inactive_reported) || im->pmask ||
        im->irq_pending || (cm & ~(im->dmask | e1mask)) ||
        (!pk_lm && (im->q0 | im->q1 | im->qsat)) || ia64_const_sig(im, t0))
        return k;
    const uint32_t nth = im->base.nthreads;
    const uint64_t head = nth > 1 && !(cm & ~im->reach[t0]) ? im->lim_thr[t0] : im->min_headroom;
    const uint64_t lim = head < IA64_ACC_MAX ? head : IA64_ACC_MAX;
    uint64_t acc = im->acc_recs;
    uint32_t v = im->cyc_total;
    /* (a full cyc_masks: the lean function takes at least one record, the
     * general loop none, ia64_consume() folds it) */
    if (acc + v >= lim || v >= IA64_CYC_CAP)
        return k;
    const uint64_t budget = lim - acc - v;
    if (n - k > budget)
        n = k + (size_t)budget;
    const uint32_t vlim = (pk_lm ? im->vsafe_pk : im->vsafe) + 1;
    const uint64_t pkb = im->pk_ok ? im->pk_bias : IA64_PK_HIGH, next_lazy = im->next_lazy;
    const uint64_t cur0 = im->cur;
    const uint32_t tm = im->retire_cycle == cur0 ? im->retire_tmask : 0;
    /* the open cycle's packed counts: those the last loop or record left
     * (the general loop recounts them otherwise) */
    if (im->pk_ok && v &&
        (im->pk_open_cycle != cur0 || im->pk_open_v != v || im->pk_open_gen != im->sig_gen))
        return k;
    uint64_t pk = im->pk_ok && v ? im->pk_open : 0, cur = cur0;
    const pmusim_rec_t *r = recs + k;
    if (r->cycle != cur) {
        /* the lean function's close */
        const uint64_t c = r->cycle;
        if (c > next_lazy || c < cur ||
            (v >= vlim && (v >= IA64_LOWINC || ((pk + pkb) & IA64_PK_HIGH))))
            return k;
        if (cm & e1mask)
            ia64_cp_add(im, cm & e1mask);
        cm = 0;
        acc += v;
        v = 0;
        pk = 0;
        cur = c;
    }
    /* no cycle may reach IA64_CYC_CAP masks before end (as in
     * ia64_consume_fast_body()) */
    const pmusim_rec_t *const end_n = recs + n;
    const pmusim_rec_t *end = n - k > IA64_CYC_CAP - v ? r + (IA64_CYC_CAP - v) : end_n;
    if (end != end_n && n - k <= IA64_CYC_CAP && end[-1].cycle != cur)
        end = end_n;
    ia64_lean_end2(im, r, end);
    const uint64_t st0 = th->state_key & IA64_KEY_STATE;
    ia64_lean_sus_t *const sus = &im->sus;
    sus->ls = (ia64_lean_t){.end = end,
                            .end2 = im->lean_end2,
                            .cur = cur,
                            .pk = pk,
                            .cm = cm,
                            .next_lazy = next_lazy,
                            .pkb = pkb,
                            .dke = ia64_rec_word(PMUSIM_REC_INSN, (uint8_t)t0,
                                                 (uint16_t)(st0 & PMUSIM_F_IA32),
                                                 (uint8_t)((st0 >> 16) & 3u)),
                            .t0 = t0,
                            .dtag = im->gen_tag | (th->active ? IA64_KEY_ACTIVE : 0) | st0,
                            .e1 = e1mask,
                            .vlim = vlim,
                            .vmax = IA64_LOWINC,
                            .nempty = 0,
                            .v = v,
                            .rare_keep = pk_lm ? ~(unsigned)IA64_RARE_LM : ~0u};
    sus->acc0 = acc + v;
    sus->cur0 = cur0;
    sus->left = budget;
    sus->done = 0;
    sus->tm = tm;
    sus->vfill = v;
    sus->retired = false;
    sus->pk_lm = pk_lm;
    return ia64_lean_run(im, recs, r, end_n, n_in);
}

/* The one-thread loops without per-record side work from recs[k]:
 * ia64_lean_entry(), and the general one-thread loop from the record it
 * stops at if that is another instruction of thread t0 (a rare or new
 * signature, a state change, a close it does not take). */
static size_t ia64_consume_fast_one(ia64_model_t *im, const pmusim_rec_t *recs, size_t k,
                                    size_t n, uint32_t t0);
static inline size_t ia64_consume_fast_run(ia64_model_t *im, const pmusim_rec_t *recs, size_t k,
                                           size_t n, uint32_t t0)
{
    const size_t j = ia64_lean_entry(im, recs, k, n, t0);
    if (j < n && recs[j].kind == PMUSIM_REC_INSN && recs[j].thread == t0)
        return ia64_consume_fast_one(im, recs, j, n, t0);
    return j;
}

/* ia64_consume_fast_body() specialised for each record part the key may
 * need, so the per-record key has no tests of the configuration, for a
 * single hardware thread, and for the per-record capture / last-IP work
 * (`slow`), so plain counting pays nothing for it.  With no trace source
 * subscribed (sig_none: captures, cycle counters, EVENT-record counters
 * only) every signature is the empty mask, and `nosig` leaves out the key,
 * its cache and the masks (issue 12: the captures' configurations). */
static inline __attribute__((always_inline)) size_t
ia64_consume_fast_need(ia64_model_t *im, const pmusim_rec_t *recs, size_t k, size_t n,
                       const bool single, const bool slow, const uint32_t t0)
{
    static const ia64_sig_entry_t none = {0};
    if (single) {
        const ia64_sig_entry_t *cs = ia64_const_sig(im, t0);
        /* (the runs of sampling alone without the capture units' code:
         * issue 12, it cost them up to 0.25 instructions a record) */
        if (cs && slow && !im->capture_any)
            return ia64_consume_fast_body(im, recs, k, n, 0, true, true, true, t0, cs, false);
        if (cs)
            return ia64_consume_fast_body(im, recs, k, n, 0, true, slow, true, t0, cs, true);
    } else if (slow && im->sig_none) {
        return ia64_consume_fast_body(im, recs, k, n, 0, false, true, true, t0, &none, true);
    }
    switch (im->key_need) {
    case 0:
        return ia64_consume_fast_body(im, recs, k, n, 0, single, slow, false, t0, &none, true);
    case IA64_NEED_MEM:
        return ia64_consume_fast_body(im, recs, k, n, IA64_NEED_MEM, single, slow, false, t0,
                                      &none, true);
    case IA64_NEED_ST:
        return ia64_consume_fast_body(im, recs, k, n, IA64_NEED_ST, single, slow, false, t0,
                                      &none, true);
    case IA64_NEED_ST | IA64_NEED_BR:
        return ia64_consume_fast_body(im, recs, k, n, IA64_NEED_ST | IA64_NEED_BR, single, slow,
                                      false, t0, &none, true);
    case IA64_NEED_BR:
        return ia64_consume_fast_body(im, recs, k, n, IA64_NEED_BR, single, slow, false, t0,
                                      &none, true);
    case IA64_NEED_MEM | IA64_NEED_BR:
        return ia64_consume_fast_body(im, recs, k, n, IA64_NEED_MEM | IA64_NEED_BR, single, slow,
                                      false, t0, &none, true);
    default:
        return ia64_consume_fast_body(im, recs, k, n, IA64_NEED_MEM | IA64_NEED_MIS | IA64_NEED_BR,
                                      single, slow, false, t0, &none, true);
    }
}

/* A Montecito run of one thread shorter than this that ends at another
 * thread's instruction hands the records to the two-thread loop: threads
 * retiring in turn without THREAD records would otherwise restart the
 * loop every few records. */
#define IA64_RUN_MIN 16u

/* The one-thread loops without per-record side work (counting) in a
 * function of their own: compiled with the others, their code changed
 * with the capture loops' (issue 12: a change to the capture step cost
 * the Montecito stream count 0.8 instructions per record). */
static __attribute__((noinline)) size_t ia64_consume_fast_one(ia64_model_t *im,
                                                             const pmusim_rec_t *recs, size_t k,
                                                             size_t n, uint32_t t0)
{
    return ia64_consume_fast_need(im, recs, k, n, true, false, t0);
}

static __attribute__((noinline)) size_t ia64_consume_fast(ia64_model_t *im, const pmusim_rec_t *recs,
                                                         size_t k, size_t n)
{
    const uint32_t nth = im->base.nthreads;
    if (nth == 1)
        return im->insn_slow ? ia64_consume_fast_need(im, recs, k, n, true, true, 0)
                             : ia64_consume_fast_run(im, recs, k, n, 0);
    /* Montecito: the records of one thread at a time, with the one-thread
     * loop (a switch-on-event trace changes threads at THREAD records,
     * which end the loop anyway; issue 12: the per-record thread lookups
     * of the two-thread loop).  Not when the open cycle has another
     * thread's retirement yet to be reported (the two-thread loop reports
     * it). */
    while (k < n) {
        const uint32_t t0 = recs[k].thread;
        if (t0 >= nth || recs[k].kind != PMUSIM_REC_INSN)
            return k;
        if (im->d->mont && !im->two_retire_reported && im->retire_cycle == im->cur &&
            (im->retire_tmask & ~(t0 + 1)))
            break;
        const size_t j = im->insn_slow ? ia64_consume_fast_need(im, recs, k, n, true, true, t0)
                                       : ia64_consume_fast_run(im, recs, k, n, t0);
        if (j == n || recs[j].kind != PMUSIM_REC_INSN || recs[j].thread == t0 ||
            recs[j].thread >= nth)
            return j;
        /* stopped at another thread's instruction */
        const bool short_run = j - k < IA64_RUN_MIN;
        k = j;
        if (short_run)
            break;
    }
    if (k == n)
        return k;
    return im->insn_slow ? ia64_consume_fast_need(im, recs, k, n, false, true, 0)
                         : ia64_consume_fast_need(im, recs, k, n, false, false, 0);
}

/* ia64_consume() from recs[kr] (the records before it consumed by a
 * suspended lean run). */
static __attribute__((noinline)) void ia64_consume_from(ia64_model_t *im, const pmusim_rec_t *recs,
                                                       size_t n, size_t kr)
{
    pmusim_model_t *const m = &im->base;
    const uint32_t nth = m->nthreads;
    const uint64_t first_record = im->records;
    im->started = true;
    im->records += n;
    im->lean_end = NULL; /* (recs may be a new batch in the same buffer) */
    /* When the fast loop stops at once (a configuration whose records all
     * need the general path, e.g. a threshold on every instruction), its
     * entry would cost more than it saves: retry only after `skip` records,
     * doubling while it keeps failing. */
    unsigned skip = 0, backoff = 0;
    for (size_t k = kr; k < n; k++) {
        if (skip) {
            skip--;
        } else if (recs[k].kind == PMUSIM_REC_INSN && ia64_fast_ok(im)) {
            /* (the fast loop takes instruction records only: other kinds
             * do not start it, nor count as a failed entry; issue 12: a
             * Montecito thread switch, EVENT + THREAD + THREAD, made the
             * back-off skip the new thread's first instructions) */
            size_t k0 = k;
            k = ia64_consume_fast(im, recs, k, n);
            if (k == n)
                break;
            if (k == k0) {
                backoff = backoff ? (backoff < 64 ? 2 * backoff : 64) : 1;
                skip = backoff;
            } else {
                backoff = 0;
            }
        }
        const pmusim_rec_t *r = &recs[k];
        if (__builtin_expect(r->cycle != im->cur, 0)) {
            if (r->cycle > im->cur) {
                ia64_advance(im, r->cycle);
            } else if (!im->order_reported) {
                im->order_reported = true;
                pmusim_model_diag(m, "%s: record %" G_GUINT64_FORMAT " at cycle %" G_GUINT64_FORMAT
                                     " is before cycle %" G_GUINT64_FORMAT "; counted in the later "
                                     "cycle (reported once)",
                                  im->d->ops->name, first_record + k, r->cycle, im->cur);
            }
        }
        uint32_t t = r->thread;
        if (__builtin_expect(t >= nth, 0)) {
            if (!im->thread_reported) {
                im->thread_reported = true;
                pmusim_model_diag(m, "%s: record %" G_GUINT64_FORMAT " names thread %u, the model "
                                     "has %u; such records are ignored (reported once)",
                                  im->d->ops->name, first_record + k, t, nth);
            }
            continue;
        }
        switch (r->kind) {
        case PMUSIM_REC_INSN: {
            ia64_thread_t *th = &im->th[t];
            if (__builtin_expect(!th->active, 0) && !im->inactive_reported)
                ia64_inactive_report(im, t, r, first_record + k);
            if (r->cycle != im->retire_cycle) {
                /* (the fast loop may have left a cycle of both threads) */
                if (im->retire_tmask == 3 && im->d->mont && !im->two_retire_reported)
                    ia64_two_retire_report(im, im->retire_cycle);
                im->retire_cycle = r->cycle;
                im->retire_tmask = 0;
            }
            im->retire_tmask |= t + 1;
            if (__builtin_expect(im->retire_tmask == 3, 0) && im->d->mont &&
                !im->two_retire_reported)
                ia64_two_retire_report(im, r->cycle);
            uint64_t k1, k2;
            ia64_key(r, th->active, im->key_need, &k1, &k2);
            if (__builtin_expect(((k1 & IA64_KEY_STATE) | IA64_KEY_SEEN) != th->state_key, 0))
                ia64_state_change(im, t, r, r->plm & 3, (r->flags & PMUSIM_F_IA32) != 0);
            if (__builtin_expect(im->insn_slow, 0)) {
                if (im->track_last) {
                    th->last_ip = r->ip;
                    th->last_insn = r->insn;
                    th->last_unit = r->unit;
                    th->last_slot = r->slot;
                }
                if (im->capture_any)
                    ia64_capture_insn(im, t, r);
            }
            const unsigned slot = ia64_key_slot(k1, k2, im->key_need);
            const ia64_sig_entry_t *e = &im->sig_cache[t][slot];
            if (__builtin_expect(e->k1 != (k1 | im->gen_tag) || e->k2 != k2, 0))
                e = ia64_sig_miss(im, t, r, k1, k2, slot);
            uint64_t mask = e->mask;
            if (mask) {
                im->cmask |= mask;
                if (__builtin_expect(im->cyc_n == IA64_CYC_CAP, 0))
                    ia64_cyc_fold(im);
                /* the fast loop's packed counts of the open cycle stay
                 * valid with this record's (issue 12: a loop entry after
                 * a record of the general path recounted the cycle) */
                if (im->pk_open_cycle == im->cur && im->pk_open_v == im->cyc_n &&
                    im->pk_open_gen == im->sig_gen) {
                    im->pk_open += e->pk;
                    im->pk_open_v++;
                }
                im->cyc_masks[im->cyc_n++] = mask;
                im->cyc_total++;
                im->id_cnt[e->id]++; /* +1 on every D slot of the mask */
                uint64_t lm = mask & im->dmask & (im->m2 | im->m3);
                if (e->rare & IA64_RARE_LM) {
                    /* 2-bit saturating per-cycle count of the low-maxincr slots */
                    uint64_t c0 = im->q0 & lm;
                    im->q0 ^= lm;
                    im->qsat |= im->q1 & c0;
                    im->q1 ^= c0;
                }
            }
            if (__builtin_expect(im->nqsub[t] != 0, 0))
                ia64_qualified_insn(im, t, r);
            break;
        }
        case PMUSIM_REC_EVENT:
            ia64_on_event(im, t, r);
            break;
        case PMUSIM_REC_IDLE:
            /* saturating: an IDLE reaching past 2^64 - 1 ends the time line there */
            if (r->n && ia64_sat_add(r->cycle, r->n) > im->end)
                im->end = ia64_sat_add(r->cycle, r->n);
            break;
        case PMUSIM_REC_THREAD:
            ia64_on_thread(im, t, r);
            break;
        case PMUSIM_REC_MEM:
            ia64_on_mem(im, t, r);
            break;
        default:
            break;
        }
    }
    if (n && ia64_sat_add(im->cur, 1) > im->end)
        im->end = ia64_sat_add(im->cur, 1); /* a trace spans [0, max(cycle + 1, idle end)) */
}

void ia64_consume(pmusim_model_t *m, const pmusim_rec_t *recs, size_t n)
{
    ia64_model_t *im = ia64_model(m);
    if (im->lean_sus) {
        /* a lean run suspended at the end of the last call goes on with a
         * record of its thread (issue 12: in a function of its own, the
         * general path's entry cost about 20 instructions a call) */
        if (n && recs[0].kind == PMUSIM_REC_INSN && recs[0].thread == im->sus.ls.t0) {
            im->lean_end = NULL; /* (recs may be a new batch in the same buffer) */
            const size_t k = ia64_lean_resume(im, recs, n);
            if (k < n) {
                ia64_consume_from(im, recs, n, k);
                return;
            }
            im->records += n;
            if (ia64_sat_add(im->cur, 1) > im->end)
                im->end = ia64_sat_add(im->cur, 1);
            return;
        }
        ia64_lean_leave(im);
    }
    ia64_consume_from(im, recs, n, 0);
}

void ia64_finish(pmusim_model_t *m)
{
    ia64_model_t *im = ia64_model(m);
    ia64_unsuspend(im);
    if (im->finished)
        return;
    im->finished = true;
    if (im->retire_tmask == 3 && im->d->mont && !im->two_retire_reported)
        ia64_two_retire_report(im, im->retire_cycle);
    if (!im->started || im->end == 0)
        return;
    ia64_advance(im, im->end);
    for (uint32_t t = 0; t < m->nthreads; t++)
        ia64_lazy_update_thread(im, t);
}
