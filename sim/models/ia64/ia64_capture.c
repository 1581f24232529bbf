/* IA-64 capture units: D-EAR (PMC11 / PMC40), I-EAR (PMC10 / PMC37), the
 * Itanium 2 branch trace buffer (PMC12, PMD8-16), the Montecito execution
 * trace buffer (PMC39, PMD38/39/48-63) and IP-EAR (PMC42).  Layouts: ref §6
 * to §9.  Fields the sources leave open (EAR status encodings, IP-EAR early
 * freeze) are model choices written down in docs/sim-ia64.md.
 *
 * Every unit captures only while the thread's PMU is not frozen (the EAR /
 * buffer then holds the event that caused the overflow), except the IP-EAR,
 * which keeps recording for `delay` cycles after the freeze.
 */
#include <inttypes.h>
#include "ia64_priv.h"

#define IA64_IP_BUNDLE (~UINT64_C(0xf))

/* The BTB/ETB brt filter's branch classes (PMC12 / PMC39 bits 15:14): 1
 * IP-relative, 2 returns, 3 non-return indirect (an indirect br.call too) */
static const uint8_t ia64_brt_class[PMUSIM_BR_COUNT] = {
    [PMUSIM_BR_COND] = 1, [PMUSIM_BR_CALL] = 1, [PMUSIM_BR_RET] = 2, [PMUSIM_BR_IND] = 3,
    [PMUSIM_BR_IPREL] = 1, [PMUSIM_BR_ICALL] = 3};

static bool ia64_ism_ok(uint8_t ism, bool ia32)
{
    return ism == 0 || (ism == 1 && ia32) || (ism == 2 && !ia32);
}

void ia64_capture_compile(ia64_model_t *im, uint32_t t)
{
    const ia64_desc_t *d = im->d;
    ia64_thread_t *th = &im->th[t];
    uint64_t v;

    v = th->pmc[d->pmc_dear];
    th->dear_plm = (uint8_t)(v & 0xf);
    th->dear_mode = (uint8_t)((v >> 7) & 3);
    th->dear_umask = (uint8_t)((v >> 16) & 0xf);
    th->dear_ism = (uint8_t)((v >> 24) & 3);
    th->dear_on = th->dear_plm && (((v >> 6) & 1) ? th->psr_pp : th->psr_up) &&
                  th->dear_mode != 3 && th->dear_ism != 3;

    v = th->pmc[d->pmc_iear];
    th->iear_plm = (uint8_t)(v & 0xf);
    if ((v >> 13) & 1) {
        th->iear_mode = 1; /* cache mode: umask bits 12:5 */
        th->iear_umask = (uint16_t)((v >> 5) & 0xff);
    } else if (((v >> 12) & 1) == 0) {
        th->iear_mode = 2; /* TLB mode: umask bits 11:5 */
        th->iear_umask = (uint16_t)((v >> 5) & 0x7f);
    } else {
        th->iear_mode = 0; /* ct = 01: nothing monitored */
        th->iear_umask = 0;
    }
    th->iear_ism = d->mont ? 0 : (uint8_t)((v >> 14) & 3);
    th->iear_on = th->iear_plm && (((v >> 4) & 1) ? th->psr_pp : th->psr_up) && th->iear_mode &&
                  th->iear_ism != 3;

    v = th->pmc[d->pmc_btb];
    th->btb_plm = (uint8_t)(v & 0xf);
    th->btb_ds = (v >> 7) & 1;
    th->btb_tm = (uint8_t)((v >> 8) & 3);
    th->btb_ptm = (uint8_t)((v >> 10) & 3);
    th->btb_ppm = (uint8_t)((v >> 12) & 3);
    th->btb_brt = (uint8_t)((v >> 14) & 3);
    th->btb_on = th->btb_plm && (((v >> 6) & 1) ? th->psr_pp : th->psr_up);

    th->ipear_on = false;
    if (d->mont) {
        v = th->pmc[d->pmc_ipear];
        th->ipear_plm = (uint8_t)(v & 0xf);
        th->ipear_delay = (uint32_t)((v >> 11) & 0xff);
        th->ipear_on = th->ipear_plm && (((v >> 6) & 1) ? th->psr_pp : th->psr_up) &&
                       ((v >> 8) & 7) == 4;
        if (th->ipear_on && th->btb_on) {
            pmusim_model_diag(&im->base,
                              "mont thread %u: PMC39 (ETB) and PMC42 (IP-EAR) both enabled; they "
                              "share PMD38/39/48-63, the IP-EAR wins",
                              t);
            th->btb_on = false;
        }
        if (th->btb_on && th->btb_ds)
            pmusim_model_diag(&im->base, "mont thread %u PMC39: ds=1 is reserved on Montecito; "
                                         "entries are recorded in the ds=0 format", t);
    }

    /* the per-record tests of ia64_capture_insn() as masks (issue 12) */
    th->dear_acc = th->btb_acc = th->ipear_acc = 0;
    for (unsigned acc = 0; acc < 8; acc++) {
        bool ia32 = acc >> 2;
        unsigned plm = acc & 3;
        if (th->dear_on && ((th->dear_plm >> plm) & 1) && ia64_ism_ok(th->dear_ism, ia32))
            th->dear_acc |= (uint8_t)(1u << acc);
        if (th->btb_on && !ia32 && ((th->btb_plm >> plm) & 1))
            th->btb_acc |= (uint8_t)(1u << acc);
        if (th->ipear_on && !ia32 && ((th->ipear_plm >> plm) & 1))
            th->ipear_acc |= (uint8_t)(1u << acc);
    }
    th->btb_pass = 0;
    for (unsigned b = 0; b < 8; b++) {
        unsigned taken = b & 1, tgt_ok = (b >> 1) & 1, dir_ok = (b >> 2) & 1;
        if (((th->btb_tm >> taken) & 1) && ((th->btb_ptm >> tgt_ok) & 1) &&
            ((th->btb_ppm >> dir_ok) & 1))
            th->btb_pass |= (uint8_t)(1u << b);
    }
    th->dear_lat_min = UINT32_C(4) << th->dear_umask;
    /* ia64_btb_take()'s tests of a branch, for each packed index */
    for (unsigned p = 0; p < 256; p++) {
        const unsigned kind = p & 7, taken = (p >> 3) & 1, dir_ok = (p >> 4) & 1,
                       tgt_ok = (p >> 5) & 1, detect = p >> 6;
        const unsigned b = taken | tgt_ok << 1 | dir_ok << 2;
        const bool mispred = !dir_ok || (taken && !tgt_ok);
        const bool backend = mispred && detect == PMUSIM_BRD_BACKEND;
        unsigned o = ((th->btb_pass >> b) & 1) ? IA64_BTB_PASS : 0u;
        if (th->btb_brt && (kind >= PMUSIM_BR_COUNT || ia64_brt_class[kind] != th->btb_brt))
            o = 0;
        o |= (mispred && !backend ? IA64_BTB_MP : 0u) | (backend ? IA64_BTB_BACKEND : 0u) |
             (taken ? IA64_BTB_TAKEN : 0u);
        th->btb_tab[p] = (uint8_t)o;
    }
    th->btb_ip_mask = th->btb_ds && !d->mont ? UINT64_C(0x1fffffffff0) | UINT64_C(7) << 61
                                             : IA64_IP_BUNDLE;
}

/* ---- ring buffer (BTB / ETB / IP-EAR) ---- */

static uint32_t ia64_ring_index(const ia64_model_t *im, const ia64_thread_t *th)
{
    const ia64_desc_t *d = im->d;
    return (uint32_t)(th->pmd[d->pmd_ring_index] & (d->ring_size - 1));
}

static bool ia64_ring_full(const ia64_model_t *im, const ia64_thread_t *th)
{
    /* full: PMD16 bit 3 (ita2), PMD38 bit 5 (mont) */
    return (th->pmd[im->d->pmd_ring_index] >> (im->d->mont ? 5 : 3)) & 1;
}

/* Bit offset of entry j's extension nibble: ita2 PMD16 bits 4+4j; mont
 * PMD39 interleaved nibbles (ref §9.5). */
static inline unsigned ia64_ring_ext_shift_mont(uint32_t j)
{
    return j < 8 ? 8 * j : 8 * (j - 8) + 4;
}

static unsigned ia64_ring_ext_shift(const ia64_model_t *im, uint32_t j)
{
    if (!im->d->mont)
        return 4 + 4 * j;
    return ia64_ring_ext_shift_mont(j);
}

/* Entry `data` with extension nibble `ext` at the ring's index, which
 * moves on (full once it wraps): the register numbers and layout of the
 * CPU (mont a constant where the caller knows it; on ita2 the extension
 * bits live in the index register, one read and one write of it). */
static inline __attribute__((always_inline)) void
ia64_ring_push_in(ia64_thread_t *th, const ia64_desc_t *d, const bool mont, uint64_t data,
                  unsigned ext)
{
    const uint32_t ri = d->pmd_ring_index;
    const uint64_t idx_mask = d->ring_size - 1;
    uint64_t idx = th->pmd[ri];
    const uint32_t j = (uint32_t)(idx & idx_mask);
    th->pmd[d->pmd_ring_first + j] = data;
    const uint32_t next = (uint32_t)((j + 1) & idx_mask);
    if (mont) {
        const unsigned sh = ia64_ring_ext_shift_mont(j);
        uint64_t *x = &th->pmd[d->pmd_ring_ext];
        *x = (*x & ~(UINT64_C(0xf) << sh)) | ((uint64_t)ext & 0xf) << sh;
        idx = (idx & ~idx_mask) | next | (next == 0 ? UINT64_C(1) << 5 : 0);
    } else {
        const unsigned sh = 4 + 4 * j;
        idx = (idx & ~(UINT64_C(0x3) << sh)) | ((uint64_t)ext & 0x3) << sh;
        idx = (idx & ~idx_mask) | next | (next == 0 ? UINT64_C(1) << 3 : 0);
    }
    th->pmd[ri] = idx;
}

static void ia64_ring_push(ia64_model_t *im, ia64_thread_t *th, uint64_t data, unsigned ext)
{
    ia64_ring_push_in(th, im->d, im->d->mont, data, ext);
}

/* A branch's BTB / ETB entries: the branch entry (ext: its extension
 * nibble) and, if taken, the target entry (extension 0): ia64_ring_push_in()
 * once or twice, with one read and one write of the index register
 * (issue 12: about 20 instructions of each taken branch less).  ring: the
 * ring's entry 0, idxp its index register, extp Montecito's extension
 * register (on Itanium 2 the extension bits are in the index register). */
static inline __attribute__((always_inline)) void
ia64_btb_push(uint64_t *const ring, uint64_t *const idxp, uint64_t *const extp,
              const uint64_t idx_mask, const bool mont, uint64_t branch, unsigned ext, bool taken,
              uint64_t target)
{
    uint64_t idx = *idxp;
    const uint32_t j = (uint32_t)(idx & idx_mask), j2 = (uint32_t)((j + 1) & idx_mask);
    /* the index after the entries; full once it wraps to 0 */
    const uint64_t n = (uint64_t)j + 1 + (taken ? 1 : 0);
    const uint64_t full = n > idx_mask ? (mont ? UINT64_C(1) << 5 : UINT64_C(1) << 3) : 0;
    ring[j] = branch;
    if (mont) {
        const unsigned sh = ia64_ring_ext_shift_mont(j);
        uint64_t xv = (*extp & ~(UINT64_C(0xf) << sh)) | ((uint64_t)ext & 0xf) << sh;
        if (taken) {
            ring[j2] = target;
            xv &= ~(UINT64_C(0xf) << ia64_ring_ext_shift_mont(j2));
        }
        *extp = xv;
    } else {
        const unsigned sh = 4 + 4 * j;
        idx = (idx & ~(UINT64_C(0x3) << sh)) | ((uint64_t)ext & 0x3) << sh;
        if (taken) {
            ring[j2] = target;
            idx &= ~(UINT64_C(0x3) << (4 + 4 * j2));
        }
    }
    *idxp = (idx & ~idx_mask) | (n & idx_mask) | full;
}

/* ---- per-instruction capture ---- */

/* The D-EAR's test of a memory access and, when it takes it and the PMU
 * is not frozen, its capture (PMD2/3/17, PMD32/33/36); TRUE when taken
 * (an occurrence of DATA_EAR_EVENTS, frozen or not). */
static inline __attribute__((always_inline)) bool
ia64_dear_take(ia64_thread_t *th, const ia64_desc_t *d, const pmusim_rec_t *r)
{
    const pmusim_mem_t *mem = &r->mem;
    unsigned stat = 1;
    bool hit;
    switch (th->dear_mode) {
    case 0: /* L1D load misses with latency >= 4 << umask */
        hit = !mem->is_store && mem->level != PMUSIM_LVL_L1D && mem->latency >= th->dear_lat_min;
        break;
    case 1: { /* TLB: umask bit 1 L2 DTLB hit, bit 2 VHPT walk, bit 3 fault */
        static const uint8_t tlb_bit[PMUSIM_TLB_COUNT] = {
            [PMUSIM_TLB_L1_HIT] = 0, [PMUSIM_TLB_L2_HIT] = 0x2, [PMUSIM_TLB_WALK] = 0x4,
            [PMUSIM_TLB_FAULT] = 0x8};
        hit = mem->tlb < PMUSIM_TLB_COUNT && (th->dear_umask & tlb_bit[mem->tlb]);
        stat = mem->tlb < PMUSIM_TLB_COUNT ? mem->tlb : 0; /* 1 L2 hit, 2 walk, 3 fault */
        break;
    }
    default: /* ALAT: failed ld.c / chk.a */
        hit = mem->alat == PMUSIM_ALAT_MISS;
        break;
    }
    if (!hit)
        return false;
    if (!th->frozen) {
        uint64_t lat = th->dear_mode == 0 ? mem->latency : 0;
        th->pmd[d->pmd_dear_addr] = mem->addr;
        th->pmd[d->pmd_dear_lat] = (lat > 0x1fff ? 0x1fff | (UINT64_C(1) << 13) : lat) |
                                   (uint64_t)(stat & 3) << 14;
        th->pmd[d->pmd_dear_ip] = (r->ip & IA64_IP_BUNDLE) | (UINT64_C(1) << 3) | (r->slot & 3u);
    }
    return true;
}

static void ia64_dear_observe(ia64_model_t *im, uint32_t t, ia64_thread_t *th,
                              const pmusim_rec_t *r, unsigned acc)
{
    if (ia64_dear_take(th, im->d, r))
        ia64_count_capture_insn(im, t, r, IA64_SRC_DEAR_EVENT, acc);
}

/* The BTB/ETB's filters of a branch and, when they take it and the PMU is
 * not frozen, its entries; TRUE when taken (an occurrence of
 * BRANCH_EVENT / ETB_EVENT). */
static bool ia64_btb_take(ia64_thread_t *th, const ia64_desc_t *d, const pmusim_rec_t *r)
{
    const pmusim_branch_t *br = &r->br;
    unsigned b = (br->taken ? 1u : 0u) | (br->tgt_ok ? 2u : 0u) | (br->dir_ok ? 4u : 0u);
    if (!((th->btb_pass >> b) & 1)) /* tm, ptm, ppm */
        return false;
    if (th->btb_brt && (br->kind >= PMUSIM_BR_COUNT || ia64_brt_class[br->kind] != th->btb_brt))
        return false;
    if (!th->frozen) {
        bool mispred = !br->dir_ok || (br->taken && !br->tgt_ok);
        bool backend = mispred && br->detect == PMUSIM_BRD_BACKEND;
        uint64_t mp = mispred && !backend;
        uint64_t slot = br->taken ? (r->slot & 3u) : 3;
        uint64_t addr_bits;
        if (th->btb_ds && !d->mont)
            /* ds=1: address bits 40:4 in 40:4, 63:61 in 63:61; prediction
             * bits 60:41 are not modelled (0) */
            addr_bits = r->ip & (UINT64_C(0x1fffffffff0) | (UINT64_C(7) << 61));
        else
            addr_bits = r->ip & IA64_IP_BUNDLE;
        /* b=1: branch entry, mp = mispredicted (front end); b=0, mp=1:
         * target entry */
        const uint64_t be = addr_bits | slot << 2 | mp << 1 | 1;
        const uint64_t te = (br->target & IA64_IP_BUNDLE) | 2;
        ia64_btb_push(&th->pmd[d->pmd_ring_first], &th->pmd[d->pmd_ring_index],
                      &th->pmd[d->pmd_ring_ext], d->ring_size - 1, d->mont, be,
                      backend ? 2u : 0u, br->taken, te);
    }
    return true;
}

static void ia64_btb_observe(ia64_model_t *im, uint32_t t, ia64_thread_t *th,
                             const pmusim_rec_t *r, unsigned acc)
{
    if (ia64_btb_take(th, im->d, r))
        ia64_count_capture_insn(im, t, r, IA64_SRC_BRANCH_EVENT, acc);
}

static void ia64_ipear_observe(ia64_model_t *im, ia64_thread_t *th, const pmusim_rec_t *r)
{
    uint64_t elapsed = th->ipear_last_cycle == IA64_NO_CYCLE ? 0 : r->cycle - th->ipear_last_cycle;
    uint64_t cyc = elapsed > 63 ? 63 : elapsed;
    bool flush = (r->flags & PMUSIM_F_BRANCH) && r->br.detect == PMUSIM_BRD_BACKEND;
    uint64_t data;
    unsigned ext = (unsigned)((cyc >> 4) & 3) | (flush ? 4u : 0u);
    if (th->frozen) {
        if (th->freeze_cycle == IA64_NO_CYCLE || r->cycle > th->freeze_cycle + th->ipear_delay)
            return;
        /* early-freeze entry: remaining delay in 7:0, IP bits 63:12 in 59:8 */
        uint64_t left = th->freeze_cycle + th->ipear_delay - r->cycle;
        data = (left & 0xff) | ((r->ip >> 12) & ((UINT64_C(1) << 52) - 1)) << 8;
        ext |= 8;
    } else {
        data = (r->ip >> 4) & ((UINT64_C(1) << 60) - 1);
    }
    data |= (cyc & 0xf) << 60;
    th->ipear_last_cycle = r->cycle;
    ia64_ring_push(im, th, data, ext);
}

void ia64_caprun_init(ia64_caprun_t *cr, ia64_model_t *im, uint32_t t, unsigned acc)
{
    const ia64_desc_t *d = im->d;
    ia64_thread_t *th = &im->th[t];
    cr->im = im;
    cr->th = th;
    cr->ring = &th->pmd[d->pmd_ring_first];
    cr->ring_idx = &th->pmd[d->pmd_ring_index];
    cr->ring_ext = &th->pmd[d->pmd_ring_ext];
    cr->btb_tab = th->btb_tab;
    cr->btb_ip_mask = th->btb_ip_mask;
    cr->idx_mask = d->ring_size - 1;
    cr->mont = d->mont;
    cr->frozen = th->frozen;
    cr->btb_slots = ia64_capture_slots(im, t, IA64_SRC_BRANCH_EVENT - IA64_SRC_BRANCH_EVENT, acc);
    cr->dear_slots = ia64_capture_slots(im, t, IA64_SRC_DEAR_EVENT - IA64_SRC_BRANCH_EVENT, acc);
    cr->nb = cr->nent = 0;
}

void ia64_caprun_dear(const ia64_caprun_t *cr, const pmusim_rec_t *r)
{
    if (ia64_dear_take(cr->th, cr->im->d, r))
        ia64_pend_add(cr->im, cr->dear_slots);
}

_Static_assert(IA64_BTB_MP == 1u << 1, "IA64_BTB_MP is the entry's mp bit (bit 1)");

/* The logged branches' entries: the last ones, as many as fill the ring
 * (or all), from the index where they start, as ia64_btb_push() would
 * write them one branch at a time but with the index and extension
 * registers read and written once (issue 12: a Montecito run of the mixed
 * trace ends with about 6 branches to write).  The entries of the
 * branches before them are all overwritten: those only moved the index
 * on, and a wrap of theirs (the full bit) is one of the last ones' too,
 * whose ring_size or more entries pass the ring's end. */
void ia64_caprun_flush(ia64_caprun_t *cr)
{
    const uint64_t nb = cr->nb, mask = cr->idx_mask, size = mask + 1;
    /* (the log holds the last IA64_RING_MAX >= size branches, each with at
     * least one entry) */
    uint64_t i = nb, tail = 0;
    while (i > 0 && tail < size) {
        i--;
        tail += (cr->blog[i % IA64_RING_MAX].o & IA64_BTB_TAKEN) ? 2 : 1;
    }
    uint64_t idx = *cr->ring_idx;
    const uint64_t j0 = ((idx & mask) + cr->nent - tail) & mask;
    /* the extension bits: ita2 2 bits of the index register per entry,
     * mont a nibble of the extension register (ia64_ring_ext_shift()) */
    const bool mont = cr->mont;
    uint64_t xv = mont ? *cr->ring_ext : idx;
    const uint64_t xm = mont ? 0xf : 0x3;
    uint64_t j = j0;
    for (; i < nb; i++) {
        const pmusim_rec_t *r = cr->blog[i % IA64_RING_MAX].r;
        const unsigned o = cr->blog[i % IA64_RING_MAX].o;
        const bool taken = o & IA64_BTB_TAKEN;
        const uint64_t slot = taken ? (r->slot & 3u) : 3;
        unsigned sh = mont ? ia64_ring_ext_shift_mont((uint32_t)j) : 4 + 4 * (unsigned)j;
        cr->ring[j] = (r->ip & cr->btb_ip_mask) | slot << 2 | (o & IA64_BTB_MP) | 1;
        xv = (xv & ~(xm << sh)) | (uint64_t)((o & IA64_BTB_BACKEND) ? 2u : 0u) << sh;
        j = (j + 1) & mask;
        if (taken) {
            sh = mont ? ia64_ring_ext_shift_mont((uint32_t)j) : 4 + 4 * (unsigned)j;
            cr->ring[j] = (r->br.target & IA64_IP_BUNDLE) | 2;
            xv &= ~(xm << sh);
            j = (j + 1) & mask;
        }
    }
    if (mont)
        *cr->ring_ext = xv;
    else
        idx = xv;
    /* full once the index wrapped (it passed entry size - 1) */
    const uint64_t full = j0 + tail >= size ? (mont ? UINT64_C(1) << 5 : UINT64_C(1) << 3) : 0;
    *cr->ring_idx = (idx & ~mask) | j | full;
    cr->nb = cr->nent = 0;
}

/* branch bytes out of btb_tab's range: entries at once, after the
 * logged ones (kept out of ia64_caprun_btb(), whose registers it would
 * take) */
static __attribute__((noinline)) void ia64_caprun_btb_wide(ia64_caprun_t *cr,
                                                          const pmusim_rec_t *r)
{
    ia64_caprun_flush(cr);
    if (ia64_btb_take(cr->th, cr->im->d, r))
        ia64_pend_add(cr->im, cr->btb_slots);
}

/* (ia64_btb_take() with its tests from btb_tab: issue 12, about 30
 * instructions of each branch) */
void ia64_caprun_btb(ia64_caprun_t *cr, const pmusim_rec_t *r)
{
    const uint64_t x = ia64_br_word(r);
    if (__builtin_expect((x & ~IA64_XBR_RANGE) != 0, 0)) {
        ia64_caprun_btb_wide(cr, r);
        return;
    }
    const unsigned o = cr->btb_tab[ia64_br_index(x)];
    if (!(o & IA64_BTB_PASS))
        return;
    if (!cr->frozen) {
        struct ia64_caprun_br *b = &cr->blog[cr->nb % IA64_RING_MAX];
        b->r = r;
        b->o = o;
        cr->nb++;
        cr->nent += (o & IA64_BTB_TAKEN) ? 2 : 1;
    }
    ia64_pend_add(cr->im, cr->btb_slots);
}

void ia64_capture_ipear(ia64_model_t *im, uint32_t t, const pmusim_rec_t *r)
{
    ia64_ipear_observe(im, &im->th[t], r);
}

void ia64_capture_insn(ia64_model_t *im, uint32_t t, const pmusim_rec_t *r)
{
    ia64_thread_t *th = &im->th[t];
    const unsigned f = r->flags;
    const unsigned acc = ((f & PMUSIM_F_IA32) ? 4u : 0u) | (r->plm & 3u);
    if ((f & PMUSIM_F_MEM) && ((th->dear_acc >> acc) & 1))
        ia64_dear_observe(im, t, th, r, acc);
    if ((f & PMUSIM_F_BRANCH) && ((th->btb_acc >> acc) & 1))
        ia64_btb_observe(im, t, th, r, acc);
    if ((th->ipear_acc >> acc) & 1)
        ia64_ipear_observe(im, th, r);
}

/* EVENT record with code 0x43: one instruction fetch for the I-EAR
 * (docs/trace-events-ia64.md): umask bits 1:0 = ITLB outcome
 * (pmusim_tlb_outcome_t), bit 2 = served by the RAB; n = fetch latency in
 * cycles; the address is the bundle of the thread's most recent instruction
 * (r->ip as set by the caller). */
bool ia64_capture_iear(ia64_model_t *im, uint32_t t, const pmusim_rec_t *r)
{
    ia64_thread_t *th = &im->th[t];
    if (!th->iear_on || !((th->iear_plm >> (r->plm & 3u)) & 1) ||
        !ia64_ism_ok(th->iear_ism, th->ia32))
        return false;
    uint32_t lat = r->n > UINT32_MAX ? UINT32_MAX : (uint32_t)r->n;
    bool rab = (r->ev_umask >> 2) & 1;
    unsigned tlb = r->ev_umask & 3;
    unsigned stat = 1;
    bool hit;
    if (th->iear_mode == 1) {
        uint16_t u = th->iear_umask;
        if (u == 0x00) {
            hit = rab;
        } else if (u == 0x40) {
            hit = !rab;
        } else {
            /* latency bins [4,8) [8,16) [16,32) [32,128) [128,256)
             * [256,1024) [1024,4096) [4096,inf) <-> umask bits 0..7 */
            static const uint32_t lo[8] = {4, 8, 16, 32, 128, 256, 1024, 4096};
            int bin = -1;
            for (int b = 7; b >= 0; b--)
                if (lat >= lo[b]) {
                    bin = b;
                    break;
                }
            hit = !rab && bin >= 0 && ((u >> bin) & 1);
        }
    } else {
        static const uint8_t tlb_bit[PMUSIM_TLB_COUNT] = {
            [PMUSIM_TLB_L1_HIT] = 0, [PMUSIM_TLB_L2_HIT] = 0x1, [PMUSIM_TLB_WALK] = 0x2,
            [PMUSIM_TLB_FAULT] = 0x4};
        hit = (th->iear_umask & tlb_bit[tlb]) != 0;
        stat = tlb;
        lat = 0;
    }
    if (!hit)
        return false;
    if (!th->frozen) {
        const ia64_desc_t *d = im->d;
        th->pmd[d->pmd_iear_addr] = (r->ip & ~UINT64_C(0x1f)) | (stat & 3u);
        th->pmd[d->pmd_iear_lat] = lat > 0xfff ? 0xfff | (UINT64_C(1) << 12) : lat;
    }
    return true;
}

/* ---- report ---- */

static void ia64_report_ring(ia64_model_t *im, uint32_t t, pmusim_report_t *rep)
{
    const ia64_desc_t *d = im->d;
    ia64_thread_t *th = &im->th[t];
    uint32_t idx = ia64_ring_index(im, th);
    bool full = ia64_ring_full(im, th);
    uint32_t n = full ? d->ring_size : idx, first = full ? idx : 0;
    bool ipear = d->mont && th->ipear_on;
    const char *unit = ipear ? "IP-EAR" : d->mont ? "ETB" : "BTB";
    uint32_t ext_reg = d->mont ? d->pmd_ring_ext : d->pmd_ring_index;
    for (uint32_t k = 0; k < n; k++) {
        uint32_t j = (first + k) & (d->ring_size - 1);
        uint32_t reg = d->pmd_ring_first + j;
        uint64_t e = th->pmd[reg];
        unsigned ext = (unsigned)((th->pmd[ext_reg] >> ia64_ring_ext_shift(im, j)) & 0xf);
        char *line;
        if (ipear) {
            uint64_t cyc = (e >> 60) | (uint64_t)(ext & 3) << 4;
            if (ext & 8)
                line = g_strdup_printf("thread %u %s[%u] PMD%u: ip 0x%016" PRIx64 " cycles %" PRIu64
                                       "%s early-freeze delay-left %" PRIu64,
                                       t, unit, k, reg, ((e >> 8) & ((UINT64_C(1) << 52) - 1)) << 12,
                                       cyc, (ext & 4) ? " flush" : "", e & 0xff);
            else
                line = g_strdup_printf("thread %u %s[%u] PMD%u: ip 0x%016" PRIx64 " cycles %" PRIu64
                                       "%s",
                                       t, unit, k, reg, (e & ((UINT64_C(1) << 60) - 1)) << 4, cyc,
                                       (ext & 4) ? " flush" : "");
        } else {
            unsigned b = e & 1, mp = (e >> 1) & 1, slot = (unsigned)((e >> 2) & 3);
            if (!b && !mp)
                continue; /* invalid entry */
            if (b) {
                const char *outcome = mp ? "mispredicted (front end)"
                                      : (ext & 2) ? "mispredicted (back end)" : "predicted";
                if (slot < 3)
                    line = g_strdup_printf("thread %u %s[%u] PMD%u: branch 0x%016" PRIx64
                                           " slot %u taken %s",
                                           t, unit, k, reg, e & IA64_IP_BUNDLE, slot, outcome);
                else
                    line = g_strdup_printf("thread %u %s[%u] PMD%u: branch 0x%016" PRIx64
                                           " not-taken %s",
                                           t, unit, k, reg, e & IA64_IP_BUNDLE, outcome);
            } else {
                line = g_strdup_printf("thread %u %s[%u] PMD%u: target 0x%016" PRIx64, t, unit, k,
                                       reg, e & IA64_IP_BUNDLE);
            }
        }
        g_ptr_array_add(rep->captures, line);
    }
}

void ia64_capture_report(ia64_model_t *im, pmusim_report_t *rep)
{
    const ia64_desc_t *d = im->d;
    for (uint32_t t = 0; t < im->base.nthreads; t++) {
        ia64_thread_t *th = &im->th[t];
        uint64_t ip = th->pmd[d->pmd_dear_ip];
        if ((th->dear_on || ip) && (ip >> 3) & 1) {
            static const char *const modes[] = {"cache", "tlb", "alat", "off"};
            uint64_t lat = th->pmd[d->pmd_dear_lat];
            g_ptr_array_add(rep->captures,
                            g_strdup_printf("thread %u D-EAR PMD%u/%u/%u: mode %s addr 0x%016" PRIx64
                                            " latency %" PRIu64 "%s stat %u ip 0x%016" PRIx64
                                            " slot %u",
                                            t, d->pmd_dear_addr, d->pmd_dear_lat, d->pmd_dear_ip,
                                            modes[th->dear_mode & 3], th->pmd[d->pmd_dear_addr],
                                            lat & 0x1fff, (lat >> 13) & 1 ? "+" : "",
                                            (unsigned)((lat >> 14) & 3), ip & IA64_IP_BUNDLE,
                                            (unsigned)(ip & 3)));
        }
        uint64_t ia = th->pmd[d->pmd_iear_addr];
        if (ia & 3) {
            uint64_t lat = th->pmd[d->pmd_iear_lat];
            g_ptr_array_add(rep->captures,
                            g_strdup_printf("thread %u I-EAR PMD%u/%u: mode %s line 0x%016" PRIx64
                                            " latency %" PRIu64 "%s stat %u",
                                            t, d->pmd_iear_addr, d->pmd_iear_lat,
                                            th->iear_mode == 2 ? "tlb" : "cache",
                                            ia & ~UINT64_C(0x1f), lat & 0xfff,
                                            (lat >> 12) & 1 ? "+" : "", (unsigned)(ia & 3)));
        }
        ia64_report_ring(im, t, rep);
    }
}
