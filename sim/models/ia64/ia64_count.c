/* IA-64 counting: the consume() hot path, cycle closing, thresholds,
 * overflow, freeze and the PMU interrupt (SDM Vol.2 §7.2.1/7.2.2 excerpt in
 * ../shared/seeds/003_*; ref §1, §3.1).
 *
 * Per record the work is: compare the cycle with the open one, compare the
 * privilege level / instruction set with the thread's previous ones, then for
 * each source some counter subscribes to (usually one or two) evaluate a
 * small predicate and add to the subscribers' pending occurrences.  Closing a
 * cycle touches only counters that saw occurrences (a dirty bit mask) plus
 * the lazy cycle counters' precomputed overflow cycle.
 */
#include <string.h>
#include "ia64_priv.h"

#define IA64_PMI_REARM_MAX 64u

/* ---- lazy cycle counters ---- */

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
    for (uint32_t t = 0; t < im->base.nthreads; t++)
        for (uint32_t i = im->d->nctr_first; i <= im->d->nctr_last; i++) {
            const ia64_ctr_t *c = &im->th[t].ctr[i];
            if (c->lazy && c->running && c->ovf_at < next)
                next = c->ovf_at;
        }
    im->next_lazy = next;
}

/* Bring thread t's lazy counters to `now` and re-decide whether they run. */
void ia64_lazy_update_thread(ia64_model_t *im, uint32_t t)
{
    ia64_thread_t *th = &im->th[t];
    uint64_t now = im->now;
    bool any = false;
    for (uint32_t i = im->d->nctr_first; i <= im->d->nctr_last; i++) {
        ia64_ctr_t *c = &th->ctr[i];
        if (!c->lazy && !c->running)
            continue;
        any = true;
        if (c->running && now > c->since)
            c->value = (c->value + (now - c->since)) & IA64_CTR_MASK;
        c->since = now;
        c->running = c->lazy && ia64_lazy_should_run(th, c);
        /* the cycle whose increment carries out of bit 46 */
        c->ovf_at = c->running ? now + (IA64_CTR_WRAP - c->value) - 1 : IA64_NO_CYCLE;
    }
    if (any)
        ia64_lazy_recompute_next(im);
}

/* ---- overflow, freeze, interrupt ---- */

static void ia64_overflow(ia64_model_t *im, uint32_t t, uint32_t i, uint64_t cycle)
{
    ia64_thread_t *th = &im->th[t];
    ia64_ctr_t *c = &th->ctr[i];
    c->overflows++;
    /* PMC0 bit i is the overflow bit of PMDi (SDM Table 7-7) */
    th->pmc[0] |= UINT64_C(1) << i;
    pmusim_model_log(&im->base, cycle, t, "overflow PMD%u", i);
    if (c->ev)
        pmusim_model_log(&im->base, cycle, t, "external notification PMD%u", i);
    if (c->oi)
        th->ovf_pending_irq = true;
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
        th->frozen = true;
        th->freeze_cycle = cycle;
        ia64_lazy_update_thread(im, t);
    }
}

/* Raise the interrupts of the overflows detected in `cycle`: set PMC0.fr
 * (counting stops from cycle+1), then call the engine, which logs and runs
 * the OS handler.  The handler's register writes take effect at cycle+1. */
static void ia64_raise_irqs(ia64_model_t *im, uint64_t cycle)
{
    uint64_t saved_now = im->now;
    bool saved_irq = im->in_irq;
    im->now = cycle + 1;
    im->in_irq = true;
    for (uint32_t t = 0; t < im->base.nthreads; t++) {
        ia64_thread_t *th = &im->th[t];
        if (!th->ovf_pending_irq)
            continue;
        th->ovf_pending_irq = false;
        ia64_freeze(im, t, cycle);
        pmusim_model_pmi(&im->base, cycle, t);
    }
    im->in_irq = saved_irq;
    im->now = saved_now > cycle + 1 ? saved_now : cycle + 1;
}

static void ia64_irq_drain(ia64_model_t *im, uint64_t cycle);

/* A write to PMC0 (freeze and overflow bits).  Clearing fr while an overflow
 * bit of a counter with oi=1 is still set raises one more interrupt (the SDM
 * excerpt: no further interrupt only if software clears the overflow bit
 * before or together with the freeze bit), provided PSR.up or PSR.pp is 1. */
void ia64_pmc0_written(ia64_model_t *im, uint32_t t, uint64_t old)
{
    ia64_thread_t *th = &im->th[t];
    if (th->pmc[0] & 1) {
        if (!th->frozen) {
            th->frozen = true;
            th->freeze_cycle = im->now;
        }
        ia64_lazy_update_thread(im, t);
        ia64_route_rebuild(im);
        return;
    }
    th->frozen = false;
    th->freeze_cycle = IA64_NO_CYCLE;
    ia64_lazy_update_thread(im, t);
    ia64_route_rebuild(im);
    if ((old & 1) && (th->pmc[0] & ia64_oi_mask(im, th)) && (th->psr_up || th->psr_pp)) {
        uint64_t cycle = im->now ? im->now - 1 : 0;
        pmusim_model_log(&im->base, cycle, t,
                         "freeze cleared with overflow bits 0x%" G_GINT64_MODIFIER "x still set",
                         th->pmc[0] & ia64_oi_mask(im, th));
        th->ovf_pending_irq = true;
        /* inside a handler the interrupt follows its return (ia64_irq_drain) */
        if (!im->in_irq)
            ia64_irq_drain(im, cycle);
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
            c->ovf_at = cycle + IA64_CTR_WRAP;
            ia64_overflow(im, t, i, cycle);
        }
    }
    ia64_lazy_recompute_next(im);
}

/* Deliver re-raised interrupts queued while a handler ran. */
static void ia64_irq_drain(ia64_model_t *im, uint64_t cycle)
{
    for (unsigned round = 0; round < IA64_PMI_REARM_MAX; round++) {
        bool any = false;
        for (uint32_t t = 0; t < im->base.nthreads; t++)
            any |= im->th[t].ovf_pending_irq;
        if (!any)
            return;
        ia64_raise_irqs(im, cycle);
    }
    pmusim_model_diag(&im->base, "%s: interrupt handler re-raised the PMU interrupt more than %u "
                                 "times at cycle %" G_GUINT64_FORMAT "; giving up",
                      im->d->ops->name, IA64_PMI_REARM_MAX, cycle);
    for (uint32_t t = 0; t < im->base.nthreads; t++)
        im->th[t].ovf_pending_irq = false;
}

/* Close cycle X: apply the pending occurrences (maxincr clamp, threshold),
 * lazy overflows of X, then the freeze and interrupts of X. */
static void ia64_close_cycle(ia64_model_t *im, uint64_t x)
{
    uint64_t bits = im->dirty;
    im->dirty = 0;
    while (bits) {
        unsigned k = (unsigned)__builtin_ctzll(bits);
        bits &= bits - 1;
        uint32_t t = k >> 4, i = k & 15;
        ia64_thread_t *th = &im->th[t];
        ia64_ctr_t *c = &th->ctr[i];
        uint64_t n = c->pending;
        c->pending = 0;
        if (th->frozen || !c->enabled)
            continue;
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
        if (!add)
            continue;
        c->value += add;
        if (c->value >= IA64_CTR_WRAP) {
            c->value &= IA64_CTR_MASK;
            ia64_overflow(im, t, i, x);
        }
    }
    if (im->next_lazy == x)
        ia64_lazy_overflow_at(im, x);
    ia64_irq_drain(im, x);
}

/* Account everything before cycle `to` (> cur) and open `to`. */
static void ia64_advance(ia64_model_t *im, uint64_t to)
{
    uint64_t x = im->cur;
    if (im->dirty || im->next_lazy <= x)
        ia64_close_cycle(im, x);
    /* idle cycles (x, to): only lazy counters can overflow there */
    while (im->next_lazy < to) {
        uint64_t y = im->next_lazy;
        ia64_lazy_overflow_at(im, y);
        ia64_irq_drain(im, y);
    }
    im->cur = to;
    im->now = to;
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
        /* Montecito LVLn: changes into level n; Itanium 2 umask 0: all */
        return u == 0 || ((u >> (r->plm & 3)) & 1);
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
            [PMUSIM_BR_IND] = 3, [PMUSIM_BR_IPREL] = 1};
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
            [PMUSIM_BR_IND] = 3, [PMUSIM_BR_IPREL] = 1};
        unsigned kc = u >> 2;
        if (kc && (r->br.kind >= PMUSIM_BR_COUNT || klass[r->br.kind] != kc))
            return false;
        return ((u >> 1) & 1) == (r->br.dir_ok ? 1u : 0u) && (u & 1) == (r->br.taken ? 1u : 0u);
    }
    default:
        (void)th;
        return true;
    }
}

static inline bool ia64_src_umask_dependent(uint8_t s)
{
    return s == IA64_SRC_CPL_CHANGE || s == IA64_SRC_L2_DATA_REF || s == IA64_SRC_L3_READ ||
           s == IA64_SRC_L3_WRITE || s == IA64_SRC_ALAT_CHECK || s == IA64_SRC_ALAT_FAIL ||
           s == IA64_SRC_BR_MISPRED || s == IA64_SRC_BR_PATH;
}

/* Thread t's record raises `occ` occurrences of source s. */
static inline void ia64_hit(ia64_model_t *im, uint32_t t, ia64_src_t s, const pmusim_rec_t *r,
                            unsigned acc, uint64_t occ)
{
    const ia64_thread_t *src_th = &im->th[t];
    const ia64_sub_t *sub = im->sub[t][s];
    for (unsigned j = 0, n = im->nsub[t][s]; j < n; j++) {
        ia64_thread_t *th = &im->th[sub[j].thread];
        ia64_ctr_t *c = &th->ctr[sub[j].idx];
        if (!((c->accept >> acc) & 1))
            continue;
        if (c->caf == IA64_CAF_ACTIVE && !src_th->active)
            continue;
        if (__builtin_expect(c->qual != 0, 0) && !ia64_qual_pass(im, src_th, c, r))
            continue;
        if (ia64_src_umask_dependent(s) && !ia64_umask_pass(c, r, src_th))
            continue;
        c->pending += occ;
        im->dirty |= UINT64_C(1) << (sub[j].thread << 4 | sub[j].idx);
    }
}

/* Occurrences raised by a capture unit (BTB/ETB, EARs). */
void ia64_count_capture(ia64_model_t *im, uint32_t t, const pmusim_rec_t *r, ia64_src_t src)
{
    const ia64_thread_t *th = &im->th[t];
    bool ia32 = r->kind == PMUSIM_REC_INSN ? (r->flags & PMUSIM_F_IA32) != 0 : th->ia32;
    unsigned acc = (unsigned)ia32 << 2 | (r->plm & 3u); /* EVENT: q.plm = thread's level */
    if (im->nsub[t][src])
        ia64_hit(im, t, src, r, acc, 1);
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
    case IA64_SRC_FP_OP: return (f & PMUSIM_F_FP) != 0 && !(f & PMUSIM_F_PRED_OFF);
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
    case IA64_SRC_DTLB_L2_HIT: return mem && r->mem.tlb == PMUSIM_TLB_L2_HIT;
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

/* The privilege level or instruction set of thread t changes with record r. */
static void ia64_state_change(ia64_model_t *im, uint32_t t, const pmusim_rec_t *r, uint8_t plm,
                              bool ia32)
{
    ia64_thread_t *th = &im->th[t];
    bool cpl = th->seen_insn && plm != th->plm;
    bool isa = th->seen_insn && ia32 != th->ia32;
    th->plm = plm;
    th->ia32 = ia32;
    th->seen_insn = true;
    ia64_lazy_update_thread(im, t);
    unsigned acc = (unsigned)ia32 << 2 | plm;
    if (cpl && im->nsub[t][IA64_SRC_CPL_CHANGE])
        ia64_hit(im, t, IA64_SRC_CPL_CHANGE, r, acc, 1);
    if (isa && im->nsub[t][IA64_SRC_ISA_TRANSITION])
        ia64_hit(im, t, IA64_SRC_ISA_TRANSITION, r, acc, 1);
}

/* An EVENT record carries only code, umask and n (traces/FORMAT.md): it is
 * attributed to the thread's most recent instruction (privilege level,
 * instruction set, ip and encoding for the qualifiers). */
static void ia64_on_event(ia64_model_t *im, uint32_t t, const pmusim_rec_t *r)
{
    const ia64_desc_t *d = im->d;
    const ia64_thread_t *src_th = &im->th[t];
    pmusim_rec_t q = *r;
    q.plm = src_th->plm;
    q.ip = src_th->last_ip;
    q.insn = src_th->last_insn;
    q.unit = src_th->last_unit;
    q.slot = src_th->last_slot;
    if (r->ev_code == 0x43) {
        /* instruction-fetch descriptor for the I-EAR (docs/trace-events-ia64.md) */
        if (ia64_capture_iear(im, t, &q))
            ia64_count_capture(im, t, &q, IA64_SRC_IEAR_EVENT);
        return;
    }
    if (!im->any_event_ctr || r->n == 0)
        return;
    uint32_t umask = r->ev_umask & 0xf, state = (r->ev_umask >> 4) & 0xf;
    unsigned acc = (unsigned)src_th->ia32 << 2 | src_th->plm;
    for (uint32_t u = 0; u < im->base.nthreads; u++) {
        ia64_thread_t *th = &im->th[u];
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
            c->pending += r->n;
            im->dirty |= UINT64_C(1) << (u << 4 | i);
        }
    }
}

static void ia64_on_thread(ia64_model_t *im, uint32_t t, const pmusim_rec_t *r)
{
    ia64_thread_t *th = &im->th[t];
    bool active = r->n != 0;
    if (active == th->active)
        return;
    th->active = active;
    /* the new state holds from this cycle on */
    ia64_lazy_update_thread(im, t);
}

void ia64_consume(pmusim_model_t *m, const pmusim_rec_t *recs, size_t n)
{
    ia64_model_t *im = ia64_model(m);
    const uint32_t nth = m->nthreads;
    im->started = true;
    for (size_t k = 0; k < n; k++) {
        const pmusim_rec_t *r = &recs[k];
        if (__builtin_expect(r->cycle != im->cur, 0)) {
            if (r->cycle > im->cur) {
                ia64_advance(im, r->cycle);
            } else if (!im->order_reported) {
                im->order_reported = true;
                pmusim_model_diag(m, "%s: record %" G_GUINT64_FORMAT " at cycle %" G_GUINT64_FORMAT
                                     " is before cycle %" G_GUINT64_FORMAT "; counted in the later "
                                     "cycle (reported once)",
                                  im->d->ops->name, im->records, r->cycle, im->cur);
            }
        }
        im->records++;
        uint32_t t = r->thread;
        if (__builtin_expect(t >= nth, 0)) {
            pmusim_model_diag(m, "%s: record %" G_GUINT64_FORMAT " names thread %u, the model has %u; "
                                 "ignored",
                              im->d->ops->name, im->records - 1, t, nth);
            continue;
        }
        uint64_t last = im->cur + 1;
        switch (r->kind) {
        case PMUSIM_REC_INSN: {
            ia64_thread_t *th = &im->th[t];
            uint8_t plm = r->plm & 3;
            bool ia32 = (r->flags & PMUSIM_F_IA32) != 0;
            if (__builtin_expect(plm != th->plm || ia32 != th->ia32 || !th->seen_insn, 0))
                ia64_state_change(im, t, r, plm, ia32);
            if (__builtin_expect(im->track_last, 0)) {
                th->last_ip = r->ip;
                th->last_insn = r->insn;
                th->last_unit = r->unit;
                th->last_slot = r->slot;
            }
            if (__builtin_expect(im->capture_any, 0))
                ia64_capture_insn(im, t, r);
            unsigned acc = (unsigned)ia32 << 2 | plm;
            const uint8_t *srcs = im->srcs[t];
            for (unsigned j = 0, ns = im->nsrcs[t]; j < ns; j++) {
                uint8_t s = srcs[j];
                if (ia64_src_occ(s, r))
                    ia64_hit(im, t, (ia64_src_t)s, r, acc, 1);
            }
            break;
        }
        case PMUSIM_REC_EVENT:
            ia64_on_event(im, t, r);
            break;
        case PMUSIM_REC_IDLE:
            if (r->n && r->cycle + r->n > last)
                last = r->cycle + r->n;
            break;
        case PMUSIM_REC_THREAD:
            ia64_on_thread(im, t, r);
            break;
        default:
            break;
        }
        if (last > im->end)
            im->end = last;
    }
}

void ia64_finish(pmusim_model_t *m)
{
    ia64_model_t *im = ia64_model(m);
    if (im->finished)
        return;
    im->finished = true;
    if (!im->started || im->end == 0)
        return;
    ia64_advance(im, im->end);
    for (uint32_t t = 0; t < m->nthreads; t++)
        ia64_lazy_update_thread(im, t);
}
