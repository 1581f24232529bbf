/* OS front doors: perfmon2-style sampling on the IA-64 models and
 * perf_event-style sampling on the x86 models (pmusim/frontdoor.h).
 *
 * The front door talks to a model only through its ops (read_reg /
 * write_reg) and the PMU interrupt handler, like a driver talks to the
 * hardware: every reload, acknowledgement and unfreeze is a register write
 * the model applies with its own rules.  The register sequences follow the
 * drivers' interrupt paths; docs/SAMPLING.md lists them step by step.
 *
 * 64-bit counts.  For each counter and thread the front door keeps `acc`
 * (occurrences up to the last time it wrote or re-based the counter) and
 * `base` (the hardware value at that time), so the count is
 * acc + (hw - base) mod 2^width.  When a counter's overflow bit is seen the
 * hardware has wrapped once: the occurrences since `base` are
 * 2^width - base + hw. */
#include "pmusim/frontdoor.h"

#include <stdbool.h>
#include <string.h>

G_DEFINE_QUARK(pmusim-frontdoor-error-quark, pmusim_frontdoor_error)

/* IA-64: counters are 47 bits wide (SDM Vol. 2 §7.2.1); PMC0 bit 0 is fr,
 * bits 63:4 the overflow bits of PMD4..63; PMCn bit 5 is oi. */
#define FD_IA64_WIDTH 47u
#define FD_IA64_PMC0_FR UINT64_C(1)
#define FD_IA64_PMC0_OVF (~UINT64_C(0xf))
#define FD_IA64_OI (UINT64_C(1) << 5)

/* x86 MSRs (SDM Vol. 3B §18.2, ../shared/reference/x86-pmu.md §2). */
enum {
    FD_MSR_PMC0 = 0x0c1,
    FD_MSR_EVTSEL0 = 0x186,
    FD_MSR_FIXED_CTR0 = 0x309,
    FD_MSR_FIXED_CTR_CTRL = 0x38d,
    FD_MSR_GLOBAL_STATUS = 0x38e,
    FD_MSR_GLOBAL_CTRL = 0x38f,
    FD_MSR_GLOBAL_OVF_CTRL = 0x390,
    FD_MSR_PEBS_ENABLE = 0x3f1,
};
#define FD_X86_MAX_GP 8u
#define FD_X86_NUM_FIXED 3u
#define FD_X86_EVTSEL_INT (UINT64_C(1) << 20)
#define FD_X86_FIXED_PMI(k) (UINT64_C(8) << (4u * (k))) /* FIXED_CTR_CTRL field k bit 3 */
#define FD_X86_STATUS_OVFBUF (UINT64_C(1) << 62)
/* Periods a 32-bit sign-extended counter write can load: -P for P <= 2^31. */
#define FD_X86_MAX_PERIOD (UINT64_C(1) << 31)

#define FD_VALUES_BLOCK 65536u /* uint64_t per values block */

/* IA-64 EAR data registers (ref ia64-pmu.md §6, §7): Itanium 2 / Montecito. */
typedef struct fd_ia64_ears {
    uint32_t iear_pmc, iear_addr, iear_lat;
    uint32_t dear_pmc, dear_addr, dear_lat, dear_ip;
} fd_ia64_ears_t;
static const fd_ia64_ears_t fd_ears_ita2 = {10, 0, 1, 11, 2, 3, 17};
static const fd_ia64_ears_t fd_ears_mont = {37, 34, 35, 40, 32, 33, 36};
#define FD_DEAR_IP_VALID (UINT64_C(1) << 3) /* PMD17 vl */

/* IA-64 branch buffers, ds = 0 layout: Itanium 2 BTB PMD8-15 with PMD16
 * (bbi 2:0, full 3, per entry j b1 at 4 + 4j and bruflush at 5 + 4j: ref
 * ia64-pmu.md §8); Montecito ETB PMD48-63 with PMD38 (ebi, full bit 5) and
 * the per-entry nibbles in PMD39 (§9). */
typedef struct fd_ia64_btb {
    uint32_t pmc, first, size, index, full_bit, ext;
    bool mont;
} fd_ia64_btb_t;
static const fd_ia64_btb_t fd_btb_ita2 = {12, 8, 8, 16, 3, 16, false};
static const fd_ia64_btb_t fd_btb_mont = {39, 48, 16, 38, 5, 39, true};
#define FD_BTB_DS (UINT64_C(1) << 7) /* PMC12 / PMC39 ds */

/* Recent instructions of a thread, for skids that end before the anchor is
 * known (instructions retired in the overflow cycle after the overflowing
 * one).  A power of two above PMUSIM_FRONTDOOR_MAX_SKID. */
#define FD_RING 128u
typedef struct fd_recent {
    uint64_t ip;
    uint64_t addr;
    uint32_t latency;
    uint8_t has_mem, level, store, tlb;
} fd_recent_t;

/* A sample waiting for the records after it: its anchor (the overflowing
 * instruction's place in the thread's instruction stream) and then the
 * instruction `skid` later. */
typedef struct fd_pending {
    size_t sample;   /* index in fd->samples */
    uint64_t cycle;  /* interrupt cycle */
    uint64_t ip;     /* overflow_ip */
    uint64_t cand;   /* ordinal of the last instruction of `cycle` at `ip`, 0: none yet */
    uint64_t target; /* ordinal of the sampled instruction, once anchored */
    bool anchored;
    bool want_mem;   /* PEBS load latency: take the anchor's memory access */
    uint32_t skid;
} fd_pending_t;

typedef struct fd_stream {
    uint64_t ord;            /* instructions of the thread seen by the front door */
    fd_recent_t recent[FD_RING];
    GArray *pending;         /* of fd_pending_t, FIFO from `head` */
    guint head;              /* first unresolved entry */
    guint anchor;            /* first entry without an anchor */
} fd_stream_t;

typedef struct fd_thread_state {
    uint64_t acc;     /* occurrences up to the last re-base */
    uint64_t base;    /* hardware value at the last re-base */
    uint64_t samples; /* samples taken, dropped ones included */
    uint64_t period;  /* the period loaded at the last reload */
    uint64_t freq_stamp; /* frequency mode: cycle of the last adjustment */
} fd_thread_state_t;

typedef struct fd_ctr {
    char label[PMUSIM_REG_LABEL_MAX];
    uint32_t reg;        /* data register: PMD number / MSR address */
    uint64_t period;     /* 0: counting */
    uint32_t status_bit; /* IA-64: PMC0 bit = PMD number; x86: i or 32 + k */
    bool fixed;          /* x86 fixed counter */
    uint32_t idx;        /* x86: PMCi index or fixed counter k */
    fd_thread_state_t th[PMUSIM_MAX_THREADS];
} fd_ctr_t;

struct pmusim_frontdoor {
    pmusim_model_t *m;
    pmusim_frontdoor_style_t style;
    uint32_t width;
    uint64_t wrap, mask; /* 2^width, 2^width - 1 */
    fd_ctr_t ctr[PMUSIM_FRONTDOOR_MAX_COUNTERS];
    size_t n;
    bool started;
    uint64_t global_ctrl[PMUSIM_MAX_THREADS]; /* x86: enables to restore after a PMI */
    GArray *samples;                          /* of pmusim_sample_t */
    GPtrArray *blocks;                        /* uint64_t[FD_VALUES_BLOCK] each */
    size_t block_used;
    size_t limit;
    uint64_t dropped, interrupts, spurious;
    uint64_t irq_limit;
    bool stopped;
    uint64_t stop_cycle;
    uint32_t skid;
    uint64_t freq_hz, core_hz; /* frequency mode when freq_hz != 0 */
    const fd_ia64_ears_t *ears;         /* IA-64 */
    const fd_ia64_btb_t *btb;           /* IA-64 */
    GArray *branches;                   /* pmusim_branch_pair_t of the samples */
    fd_stream_t stream[PMUSIM_MAX_THREADS];
    bool replaying;                     /* in pmusim_frontdoor_replay(): samples wait for records */
    uint64_t npending;                  /* samples waiting, all threads */
};

/* ---- registers ---- */

static gboolean fd_read(const pmusim_frontdoor_t *fd, pmusim_regspace_t space, uint32_t num,
                        uint32_t thread, uint64_t *v)
{
    *v = 0;
    return fd->m->ops->read_reg(fd->m, space, num, thread, v);
}

static gboolean fd_write(pmusim_frontdoor_t *fd, pmusim_regspace_t space, uint32_t num,
                         uint32_t thread, uint64_t value, const char *label, GError **error)
{
    pmusim_regwrite_t w;
    memset(&w, 0, sizeof w);
    w.space = space;
    w.num = num;
    w.value = value;
    w.thread = thread;
    g_strlcpy(w.label, label ? label : "", sizeof w.label);
    GError *e = NULL;
    if (fd->m->ops->write_reg(fd->m, &w, &e))
        return TRUE;
    g_set_error(error, PMUSIM_FRONTDOOR_ERROR, PMUSIM_FRONTDOOR_ERROR_REG,
                "%s front door: writing %s 0x%x = 0x%" G_GINT64_MODIFIER "x on thread %u: %s",
                fd->m->ops->name, pmusim_regspace_name(space), num, (guint64)value, thread,
                e ? e->message : "refused");
    g_clear_error(&e);
    return FALSE;
}

/* A write from the interrupt handler: a refusal is a model diagnostic. */
static void fd_write_irq(pmusim_frontdoor_t *fd, pmusim_regspace_t space, uint32_t num,
                         uint32_t thread, uint64_t value, const char *label)
{
    GError *e = NULL;
    if (!fd_write(fd, space, num, thread, value, label, &e)) {
        pmusim_model_diag(fd->m, "%s (in the interrupt handler)", e->message);
        g_error_free(e);
    }
}

static pmusim_regspace_t fd_data_space(const pmusim_frontdoor_t *fd)
{
    return fd->style == PMUSIM_FRONTDOOR_PERFMON2 ? PMUSIM_REG_PMD : PMUSIM_REG_MSR;
}

static uint64_t fd_hw(const pmusim_frontdoor_t *fd, const fd_ctr_t *c, uint32_t t)
{
    uint64_t v;
    fd_read(fd, fd_data_space(fd), c->reg, t, &v);
    return v & fd->mask;
}

/* The value loaded to count `period` occurrences before the overflow. */
static uint64_t fd_reload_value(const pmusim_frontdoor_t *fd, const fd_ctr_t *c, uint64_t period)
{
    /* IA-64: bits 63:47 are ignored by the PMD.  x86 fixed counters are
     * written at full width (SDM Vol. 3B §18.2.2), so -P masked to the
     * counter width, as Linux writes it (issue 10). */
    if (fd->style == PMUSIM_FRONTDOOR_PERFMON2 || c->fixed)
        return (fd->wrap - period) & fd->mask;
    /* IA32_PMCi: -P as bits 31:0, which the counter sign-extends from bit
     * 31 into its upper bits (SDM §18.2.2: no full-width IA32_A_PMCi here) */
    return (UINT64_C(1) << 32) - period;
}

/* ---- creation ---- */

pmusim_frontdoor_t *pmusim_frontdoor_new(pmusim_model_t *m, GError **error)
{
    pmusim_frontdoor_style_t style;
    uint32_t width;
    switch (m->ops->isa) {
    case PMUSIM_ISA_IA64:
        style = PMUSIM_FRONTDOOR_PERFMON2;
        width = FD_IA64_WIDTH;
        break;
    case PMUSIM_ISA_X86_64:
        style = PMUSIM_FRONTDOOR_PERF_EVENT;
        /* what CPUID.0AH:EAX[23:16] reports on the model (docs/sim-x86.md §1) */
        width = m->ops->cpu == PMUSIM_CPU_KNM ? 40u : 48u;
        break;
    default:
        g_set_error(error, PMUSIM_FRONTDOOR_ERROR, PMUSIM_FRONTDOOR_ERROR_MODEL,
                    "no OS front door for the %s model (ISA %s)", m->ops->name,
                    pmusim_isa_name(m->ops->isa));
        return NULL;
    }
    if (m->nthreads > PMUSIM_MAX_THREADS) {
        g_set_error(error, PMUSIM_FRONTDOOR_ERROR, PMUSIM_FRONTDOOR_ERROR_MODEL,
                    "the %s model has %u threads; a front door handles at most %u",
                    m->ops->name, m->nthreads, PMUSIM_MAX_THREADS);
        return NULL;
    }
    pmusim_frontdoor_t *fd = g_new0(pmusim_frontdoor_t, 1);
    fd->m = m;
    fd->style = style;
    fd->width = width;
    fd->wrap = UINT64_C(1) << width;
    fd->mask = fd->wrap - 1;
    fd->samples = g_array_new(FALSE, TRUE, sizeof(pmusim_sample_t));
    fd->blocks = g_ptr_array_new_with_free_func(g_free);
    fd->block_used = FD_VALUES_BLOCK;
    fd->limit = PMUSIM_FRONTDOOR_DEFAULT_LIMIT;
    fd->irq_limit = PMUSIM_FRONTDOOR_DEFAULT_INTERRUPTS;
    if (style == PMUSIM_FRONTDOOR_PERFMON2) {
        fd->ears = m->ops->cpu == PMUSIM_CPU_MONT ? &fd_ears_mont : &fd_ears_ita2;
        fd->btb = m->ops->cpu == PMUSIM_CPU_MONT ? &fd_btb_mont : &fd_btb_ita2;
    }
    fd->branches = g_array_new(FALSE, TRUE, sizeof(pmusim_branch_pair_t));
    for (uint32_t t = 0; t < PMUSIM_MAX_THREADS; t++)
        fd->stream[t].pending = g_array_new(FALSE, TRUE, sizeof(fd_pending_t));
    return fd;
}

static void fd_handler(pmusim_model_t *m, uint64_t cycle, uint32_t thread, void *user);

void pmusim_frontdoor_free(pmusim_frontdoor_t *fd)
{
    if (!fd)
        return;
    if (fd->m->pmi_handler == fd_handler && fd->m->pmi_user == fd)
        pmusim_model_set_pmi_handler(fd->m, NULL, NULL);
    g_array_free(fd->samples, TRUE);
    g_ptr_array_free(fd->blocks, TRUE);
    g_array_free(fd->branches, TRUE);
    for (uint32_t t = 0; t < PMUSIM_MAX_THREADS; t++)
        g_array_free(fd->stream[t].pending, TRUE);
    g_free(fd);
}

pmusim_frontdoor_style_t pmusim_frontdoor_style(const pmusim_frontdoor_t *fd)
{
    return fd->style;
}

void pmusim_frontdoor_reg_name(const pmusim_frontdoor_t *fd, uint32_t reg, char *buf, size_t len)
{
    const char *name = NULL;
    if (fd->style == PMUSIM_FRONTDOOR_PERFMON2) {
        g_snprintf(buf, len, "PMD%u", reg);
        return;
    }
    name = pmusim_msr_name(reg);
    if (name)
        g_strlcpy(buf, name, len);
    else
        g_snprintf(buf, len, "MSR 0x%x", reg);
}

/* Is `reg` a counter data register of the model?  Fills the status bit. */
static gboolean fd_counter_check(pmusim_frontdoor_t *fd, uint32_t reg, fd_ctr_t *c,
                                 GError **error)
{
    char name[32];
    pmusim_frontdoor_reg_name(fd, reg, name, sizeof name);
    uint64_t v;
    if (fd->style == PMUSIM_FRONTDOOR_PERFMON2) {
        /* counter PMDs: Itanium 2 PMD4-7, Montecito PMD4-15 (ref §2) */
        uint32_t last = fd->m->ops->cpu == PMUSIM_CPU_ITA2 ? 7u : 15u;
        if (reg < 4 || reg > last || !fd_read(fd, PMUSIM_REG_PMD, reg, 0, &v)) {
            g_set_error(error, PMUSIM_FRONTDOOR_ERROR, PMUSIM_FRONTDOOR_ERROR_COUNTER,
                        "%s is not a counter of the %s PMU (expected PMD4..PMD%u)", name,
                        fd->m->ops->name, last);
            return FALSE;
        }
        c->status_bit = reg;
        c->idx = reg;
    } else if (reg >= FD_MSR_PMC0 && reg < FD_MSR_PMC0 + FD_X86_MAX_GP &&
               fd_read(fd, PMUSIM_REG_MSR, reg, 0, &v)) {
        c->idx = reg - FD_MSR_PMC0;
        c->status_bit = c->idx;
    } else if (reg >= FD_MSR_FIXED_CTR0 && reg < FD_MSR_FIXED_CTR0 + FD_X86_NUM_FIXED &&
               fd_read(fd, PMUSIM_REG_MSR, reg, 0, &v)) {
        c->fixed = true;
        c->idx = reg - FD_MSR_FIXED_CTR0;
        c->status_bit = 32 + c->idx;
    } else {
        g_set_error(error, PMUSIM_FRONTDOOR_ERROR, PMUSIM_FRONTDOOR_ERROR_COUNTER,
                    "%s is not a counter of the %s PMU (expected IA32_PMCi or "
                    "IA32_FIXED_CTRk)",
                    name, fd->m->ops->name);
        return FALSE;
    }
    for (size_t k = 0; k < fd->n; k++)
        if (fd->ctr[k].reg == reg) {
            g_set_error(error, PMUSIM_FRONTDOOR_ERROR, PMUSIM_FRONTDOOR_ERROR_COUNTER,
                        "%s is already in the session (%s)", name,
                        fd->ctr[k].label[0] ? fd->ctr[k].label : "unlabelled");
            return FALSE;
        }
    return TRUE;
}

static int fd_add(pmusim_frontdoor_t *fd, uint32_t reg, uint64_t period, const char *label,
                  GError **error)
{
    if (fd->started) {
        g_set_error(error, PMUSIM_FRONTDOOR_ERROR, PMUSIM_FRONTDOOR_ERROR_STATE,
                    "counters must be added before the front door starts");
        return -1;
    }
    if (fd->n >= PMUSIM_FRONTDOOR_MAX_COUNTERS) {
        g_set_error(error, PMUSIM_FRONTDOOR_ERROR, PMUSIM_FRONTDOOR_ERROR_COUNTER,
                    "a session holds at most %u counters", PMUSIM_FRONTDOOR_MAX_COUNTERS);
        return -1;
    }
    fd_ctr_t c;
    memset(&c, 0, sizeof c);
    if (!fd_counter_check(fd, reg, &c, error))
        return -1;
    uint64_t max = fd->style == PMUSIM_FRONTDOOR_PERFMON2 ? fd->wrap : FD_X86_MAX_PERIOD;
    if (period > max) {
        char name[32];
        pmusim_frontdoor_reg_name(fd, reg, name, sizeof name);
        g_set_error(error, PMUSIM_FRONTDOOR_ERROR, PMUSIM_FRONTDOOR_ERROR_PERIOD,
                    "period %" G_GUINT64_FORMAT " of %s is too large: at most %" G_GUINT64_FORMAT
                    " on %s",
                    (guint64)period, name, (guint64)max,
                    fd->style == PMUSIM_FRONTDOOR_PERFMON2
                        ? "IA-64 (2^47, 47-bit counters)"
                        : "x86 (2^31, the reload is a 32-bit sign-extended write)");
        return -1;
    }
    c.reg = reg;
    c.period = period;
    g_strlcpy(c.label, label ? label : "", sizeof c.label);
    fd->ctr[fd->n] = c;
    return (int)fd->n++;
}

int pmusim_frontdoor_add_sampling(pmusim_frontdoor_t *fd, uint32_t reg, uint64_t period,
                                  const char *label, GError **error)
{
    if (period == 0) {
        g_set_error(error, PMUSIM_FRONTDOOR_ERROR, PMUSIM_FRONTDOOR_ERROR_PERIOD,
                    "a sampling period must be at least 1");
        return -1;
    }
    return fd_add(fd, reg, period, label, error);
}

int pmusim_frontdoor_add_counting(pmusim_frontdoor_t *fd, uint32_t reg, const char *label,
                                  GError **error)
{
    return fd_add(fd, reg, 0, label, error);
}

/* ---- start: what the driver does when the session is enabled ---- */

/* Turn the counter's interrupt on (perfmon forces oi = 1 on every counter
 * it manages, perf_event sets INT on every event) and load its period. */
static gboolean fd_program(pmusim_frontdoor_t *fd, fd_ctr_t *c, uint32_t t, GError **error)
{
    uint64_t v;
    if (fd->style == PMUSIM_FRONTDOOR_PERFMON2) {
        /* rewritten even when oi is already set: the model decides then
         * whether to track interrupt IPs (a handler is installed) */
        fd_read(fd, PMUSIM_REG_PMC, c->reg, t, &v);
        if (!fd_write(fd, PMUSIM_REG_PMC, c->reg, t, v | FD_IA64_OI, c->label, error))
            return FALSE;
    } else if (!c->fixed) {
        fd_read(fd, PMUSIM_REG_MSR, FD_MSR_EVTSEL0 + c->idx, t, &v);
        if (!(v & FD_X86_EVTSEL_INT) &&
            !fd_write(fd, PMUSIM_REG_MSR, FD_MSR_EVTSEL0 + c->idx, t, v | FD_X86_EVTSEL_INT,
                      c->label, error))
            return FALSE;
    } else {
        fd_read(fd, PMUSIM_REG_MSR, FD_MSR_FIXED_CTR_CTRL, t, &v);
        if (!(v & FD_X86_FIXED_PMI(c->idx)) &&
            !fd_write(fd, PMUSIM_REG_MSR, FD_MSR_FIXED_CTR_CTRL, t, v | FD_X86_FIXED_PMI(c->idx),
                      c->label, error))
            return FALSE;
    }
    fd_thread_state_t *s = &c->th[t];
    /* frequency mode starts at a period of 1, as Linux does for attr.freq */
    s->period = fd->freq_hz ? 1 : c->period;
    s->freq_stamp = 0;
    if (c->period &&
        !fd_write(fd, fd_data_space(fd), c->reg, t, fd_reload_value(fd, c, s->period), c->label,
                  error))
        return FALSE;
    s->acc = 0;
    s->samples = 0;
    s->base = fd_hw(fd, c, t);
    return TRUE;
}

gboolean pmusim_frontdoor_start(pmusim_frontdoor_t *fd, GError **error)
{
    if (fd->started) {
        g_set_error(error, PMUSIM_FRONTDOOR_ERROR, PMUSIM_FRONTDOOR_ERROR_STATE,
                    "the front door is already started");
        return FALSE;
    }
    fd->started = true;
    /* installed first: the IA-64 models track the interrupt IP only for
     * counters whose PMC is written while a handler is installed */
    pmusim_model_set_pmi_handler(fd->m, fd_handler, fd);
    for (uint32_t t = 0; t < fd->m->nthreads; t++) {
        for (size_t k = 0; k < fd->n; k++)
            if (!fd_program(fd, &fd->ctr[k], t, error))
                return FALSE;
        if (fd->style == PMUSIM_FRONTDOOR_PERF_EVENT)
            fd_read(fd, PMUSIM_REG_MSR, FD_MSR_GLOBAL_CTRL, t, &fd->global_ctrl[t]);
    }
    return TRUE;
}

/* ---- the interrupt handler ---- */

static uint64_t *fd_values_alloc(pmusim_frontdoor_t *fd, size_t n)
{
    if (fd->block_used + n > FD_VALUES_BLOCK) {
        g_ptr_array_add(fd->blocks, g_new(uint64_t, FD_VALUES_BLOCK));
        fd->block_used = 0;
    }
    uint64_t *p = (uint64_t *)g_ptr_array_index(fd->blocks, fd->blocks->len - 1) + fd->block_used;
    fd->block_used += n;
    return p;
}

static bool fd_overflowed(const fd_ctr_t *c, uint64_t status)
{
    return (status >> c->status_bit) & 1;
}

/* The 64-bit counts of the session's counters on thread t, given the
 * overflow status the handler read. */
static void fd_snapshot(pmusim_frontdoor_t *fd, uint32_t t, uint64_t status, uint64_t *out)
{
    for (size_t k = 0; k < fd->n; k++) {
        const fd_ctr_t *c = &fd->ctr[k];
        const fd_thread_state_t *s = &c->th[t];
        uint64_t hw = fd_hw(fd, c, t);
        if (fd_overflowed(c, status))
            out[k] = s->acc + (fd->wrap - s->base) + hw;
        else
            out[k] = s->acc + ((hw - s->base) & fd->mask);
    }
}

/* IA-64: what the EARs hold, attached to every sample of the interrupt, as
 * perfmon's default sampling format records the EAR PMDs a session asks
 * for.  D-EAR (ref ia64-pmu.md §7): PMD2 address, PMD3 bits 12:0 latency
 * (cache mode) and 15:14 status (TLB mode: 1 L2 DTLB, 2 VHPT walk, 3
 * fault, as the model writes it), PMD17 bit 3 valid.  I-EAR (§6): PMD0
 * bits 63:5 code line, bits 1:0 status (0: nothing captured), PMD1 bits
 * 11:0 latency (cache mode, PMC10 bit 13). */
static void fd_ia64_ears(const pmusim_frontdoor_t *fd, uint32_t t, pmusim_sample_t *smp)
{
    const fd_ia64_ears_t *e = fd->ears;
    uint64_t pmc, v, lat;
    if (fd_read(fd, PMUSIM_REG_PMC, e->dear_pmc, t, &pmc) && (pmc & 0xf) &&
        fd_read(fd, PMUSIM_REG_PMD, e->dear_ip, t, &v) && (v & FD_DEAR_IP_VALID)) {
        fd_read(fd, PMUSIM_REG_PMD, e->dear_addr, t, &smp->addr);
        fd_read(fd, PMUSIM_REG_PMD, e->dear_lat, t, &lat);
        smp->flags |= PMUSIM_SAMPLE_ADDR;
        unsigned mode = (unsigned)((pmc >> 7) & 3);
        if (mode == 0) {
            smp->weight = lat & 0x1fff;
            smp->flags |= PMUSIM_SAMPLE_WEIGHT;
        } else if (mode == 1) {
            static const uint8_t tlb_of_stat[4] = {PMUSIM_SAMPLE_TLB_UNKNOWN, PMUSIM_TLB_L2_HIT,
                                                   PMUSIM_TLB_WALK, PMUSIM_TLB_FAULT};
            smp->mem_tlb = tlb_of_stat[(lat >> 14) & 3];
            smp->flags |= PMUSIM_SAMPLE_DSRC;
        }
        return;
    }
    if (fd_read(fd, PMUSIM_REG_PMC, e->iear_pmc, t, &pmc) && (pmc & 0xf) &&
        fd_read(fd, PMUSIM_REG_PMD, e->iear_addr, t, &v) && (v & 3)) {
        smp->addr = v & ~UINT64_C(0x1f);
        smp->flags |= PMUSIM_SAMPLE_ADDR | PMUSIM_SAMPLE_IEAR;
        if ((pmc >> 13) & 1) {
            fd_read(fd, PMUSIM_REG_PMD, e->iear_lat, t, &lat);
            smp->weight = lat & 0xfff;
            smp->flags |= PMUSIM_SAMPLE_WEIGHT;
        }
    }
}

/* Is the IA-64 branch buffer programmed (a privilege level, ds = 0)? */
static bool fd_ia64_btb_on(const pmusim_frontdoor_t *fd, uint32_t t)
{
    uint64_t pmc;
    return fd->btb && fd_read(fd, PMUSIM_REG_PMC, fd->btb->pmc, t, &pmc) && (pmc & 0xf) &&
           !(pmc & FD_BTB_DS);
}

/* The BTB / ETB as perfmon's sampling format would hand it over, decoded
 * the way ref ia64-pmu.md §8.3 describes: valid entries (b | mp) from the
 * oldest (bbi when full, else 0); a branch entry (b = 1) is bundle + b1,
 * with its slot (3: not taken) and mp / bruflush; the target entry (b = 0)
 * that follows a taken branch is its target.  Pairs go most recent first,
 * as perf's branch stacks. */
static void fd_ia64_branches(pmusim_frontdoor_t *fd, uint32_t t, pmusim_sample_t *smp)
{
    const fd_ia64_btb_t *b = fd->btb;
    uint64_t idx = 0, ext = 0;
    fd_read(fd, PMUSIM_REG_PMD, b->index, t, &idx);
    fd_read(fd, PMUSIM_REG_PMD, b->ext, t, &ext);
    uint32_t next = (uint32_t)(idx & (b->size - 1));
    bool full = (idx >> b->full_bit) & 1;
    uint32_t oldest = full ? next : 0, n = full ? b->size : next;
    pmusim_branch_pair_t pairs[16];
    uint32_t np = 0;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t j = (oldest + i) & (b->size - 1);
        uint64_t v = 0;
        fd_read(fd, PMUSIM_REG_PMD, b->first + j, t, &v);
        unsigned bit = (unsigned)(v & 1), mp = (unsigned)((v >> 1) & 1);
        if (!bit && !mp)
            continue;
        unsigned sh = b->mont ? (j < 8 ? 8 * j : 8 * (j - 8) + 4) : 4 + 4 * j;
        unsigned nib = (unsigned)((ext >> sh) & 3);
        if (bit) {
            unsigned slot = (unsigned)((v >> 2) & 3);
            pairs[np++ % 16] = (pmusim_branch_pair_t){
                .from = (((v >> 4) + (nib & 1)) << 4) | (slot < 3 ? slot : 0),
                .taken = slot < 3,
                .mispred = mp ? 1 : (nib >> 1) ? 2 : 0,
            };
        } else if (np && pairs[(np - 1) % 16].taken && !pairs[(np - 1) % 16].to) {
            pairs[(np - 1) % 16].to = v & ~UINT64_C(0xf);
        }
    }
    np = MIN(np, 16u);
    smp->branch0 = fd->branches->len;
    smp->nbranches = np;
    for (uint32_t i = np; i-- > 0;)
        g_array_append_val(fd->branches, pairs[i]);
}

/* x86: is counter c a PEBS load-latency counter (IA32_PEBS_ENABLE bit
 * 32 + i, SDM §18.8.1.2)? */
static bool fd_x86_load_latency(const pmusim_frontdoor_t *fd, const fd_ctr_t *c, uint32_t t)
{
    uint64_t en;
    return fd->style == PMUSIM_FRONTDOOR_PERF_EVENT && !c->fixed &&
           fd_read(fd, PMUSIM_REG_MSR, FD_MSR_PEBS_ENABLE, t, &en) && ((en >> (32 + c->idx)) & 1);
}

static void fd_record(pmusim_frontdoor_t *fd, const fd_ctr_t *c, size_t k, uint64_t cycle,
                      uint32_t t, uint64_t status, uint32_t flags, const uint64_t *values)
{
    if (fd->samples->len >= fd->limit) {
        fd->dropped++;
        return;
    }
    uint64_t *v = fd_values_alloc(fd, fd->n);
    memcpy(v, values, fd->n * sizeof *v);
    pmusim_sample_t smp = {
        .cycle = cycle,
        .ip = fd->m->pmi_ip,
        .overflow_ip = fd->m->pmi_ip,
        .period = c->th[t].period,
        .mem_level = PMUSIM_LVL_COUNT,
        .mem_tlb = PMUSIM_SAMPLE_TLB_UNKNOWN,
        .ovfl = status,
        .thread = t,
        .counter = (uint32_t)k,
        .reg = c->reg,
        .nvalues = (uint32_t)fd->n,
        .flags = flags,
        .values = v,
    };
    if (fd->ears)
        fd_ia64_ears(fd, t, &smp);
    if (fd_ia64_btb_on(fd, t))
        fd_ia64_branches(fd, t, &smp);
    g_array_append_val(fd->samples, smp);
    /* the records after the interrupt complete the sample (skid, PEBS
     * load-latency data): pmusim_frontdoor_replay() */
    bool pebs = (flags & PMUSIM_SAMPLE_PEBS) != 0;
    fd_pending_t p = {
        .sample = fd->samples->len - 1,
        .cycle = cycle,
        .ip = smp.overflow_ip,
        .skid = pebs ? 0 : fd->skid,
        .want_mem = pebs && fd_x86_load_latency(fd, c, t),
    };
    if (fd->replaying && (p.skid || p.want_mem)) {
        g_array_append_val(fd->stream[t].pending, p);
        fd->npending++;
    }
}

/* ---- frequency mode (perf -F): Linux's period adaptation ---- */

__extension__ typedef unsigned __int128 fd_u128;

static uint64_t fd_cycles_to_ns(const pmusim_frontdoor_t *fd, uint64_t cycles)
{
    return (uint64_t)((fd_u128)cycles * 1000000000u / fd->core_hz);
}

/* perf_calculate_period(): the period that gives freq_hz samples a second
 * when `count` occurrences took `nsec`: count * 10^9 / (nsec * freq). */
static uint64_t fd_calculate_period(const pmusim_frontdoor_t *fd, uint64_t nsec, uint64_t count)
{
    fd_u128 q = (fd_u128)count * 1000000000u / ((fd_u128)nsec * fd->freq_hz);
    return q > INT64_MAX ? (uint64_t)INT64_MAX : (uint64_t)q;
}

/* perf_adjust_period(): move the period an eighth of the way (rounded up)
 * towards the computed one, never below 1; then our counters' own limit. */
static void fd_adjust_period(const pmusim_frontdoor_t *fd, fd_thread_state_t *s, uint64_t nsec,
                             uint64_t count)
{
    int64_t want = (int64_t)fd_calculate_period(fd, nsec, count);
    int64_t delta = (want - (int64_t)s->period + 7) / 8; /* truncates toward 0 like s64 / */
    int64_t next = (int64_t)s->period + delta;
    if (next < 1)
        next = 1;
    uint64_t max = fd->style == PMUSIM_FRONTDOOR_PERFMON2 ? fd->wrap - 1 : FD_X86_MAX_PERIOD;
    s->period = (uint64_t)next > max ? max : (uint64_t)next;
}

/* At a sample of a frequency-mode counter: Linux adapts the period in the
 * overflow path from the time since the last sample when it is below two
 * ticks, and otherwise at the next timer tick from the count over the tick;
 * both estimate the event rate, which here is taken over the time since the
 * last adjustment (docs/SAMPLING.md "Frequency mode"). */
static void fd_freq_sample(const pmusim_frontdoor_t *fd, fd_thread_state_t *s, uint64_t cycle)
{
    uint64_t now = fd_cycles_to_ns(fd, cycle), then = fd_cycles_to_ns(fd, s->freq_stamp);
    if (now <= then)
        return; /* several samples in one nanosecond: Linux's delta > 0 test */
    fd_adjust_period(fd, s, now - then, s->period);
    s->freq_stamp = cycle;
}

/* ---- servicing ---- */

/* Every overflowed counter of the session (status bits, plus `pebs`: the
 * PEBS counters found wrapped): account the wrap, sample and reload the
 * sampling ones. */
static bool fd_service(pmusim_frontdoor_t *fd, uint64_t cycle, uint32_t t, uint64_t status,
                       uint64_t pebs)
{
    uint64_t values[PMUSIM_FRONTDOOR_MAX_COUNTERS];
    fd_snapshot(fd, t, status | pebs, values);
    bool any = false, sampled = false;
    for (size_t k = 0; k < fd->n; k++) {
        fd_ctr_t *c = &fd->ctr[k];
        if (!fd_overflowed(c, status | pebs))
            continue;
        any = true;
        fd_thread_state_t *s = &c->th[t];
        s->acc = values[k];
        s->base = fd_hw(fd, c, t);
        if (!c->period || fd->stopped)
            continue;
        s->samples++;
        fd_record(fd, c, k, cycle, t, status, fd_overflowed(c, pebs) ? PMUSIM_SAMPLE_PEBS : 0,
                  values);
        if (fd->freq_hz)
            fd_freq_sample(fd, s, cycle);
        fd_write_irq(fd, fd_data_space(fd), c->reg, t, fd_reload_value(fd, c, s->period),
                     c->label);
        s->base = fd_hw(fd, c, t);
        sampled = true;
    }
    /* the branch buffer starts again after a sample, as the libpfm3 BTB
     * example asks perfmon to reset PMD16 (ref §8.3), so each sample holds
     * the branches since the previous one */
    if (sampled && fd_ia64_btb_on(fd, t))
        fd_write_irq(fd, PMUSIM_REG_PMD, fd->btb->index, t, 0, NULL);
    return any;
}

/* A PEBS assist clears the counter's own status bit and sets OvfBuf
 * instead (docs/sim-x86.md §6), as the DS buffer's records would tell the
 * driver which counter it was: with OvfBuf set, the PEBS-enabled counters of
 * the session that wrapped since they were last loaded (value below the
 * loaded one: a period is below 2^31, far from a second wrap). */
static uint64_t fd_pebs_wrapped(const pmusim_frontdoor_t *fd, uint32_t t, uint64_t status)
{
    uint64_t pebs_en, out = 0;
    if (!(status & FD_X86_STATUS_OVFBUF) ||
        !fd_read(fd, PMUSIM_REG_MSR, FD_MSR_PEBS_ENABLE, t, &pebs_en))
        return 0;
    for (size_t k = 0; k < fd->n; k++) {
        const fd_ctr_t *c = &fd->ctr[k];
        if (c->fixed || !((pebs_en >> c->idx) & 1) || fd_overflowed(c, status))
            continue;
        if (fd_hw(fd, c, t) < c->th[t].base)
            out |= UINT64_C(1) << c->status_bit;
    }
    return out;
}

/* The interrupt limit is reached: the sampling counters restart from 0
 * and from now on are serviced like counting counters (their interrupt
 * only accounts a wrap, once per 2^width occurrences), so the rest of the
 * trace costs at most span / 2^width interrupts and is still counted
 * exactly. */
static void fd_stop(pmusim_frontdoor_t *fd, uint64_t cycle)
{
    fd->stopped = true;
    fd->stop_cycle = cycle;
    for (uint32_t t = 0; t < fd->m->nthreads; t++)
        for (size_t k = 0; k < fd->n; k++) {
            fd_ctr_t *c = &fd->ctr[k];
            fd_thread_state_t *s = &c->th[t];
            if (!c->period)
                continue;
            uint64_t hw = fd_hw(fd, c, t);
            s->acc += (hw - s->base) & fd->mask;
            fd_write_irq(fd, fd_data_space(fd), c->reg, t, 0, c->label);
            s->base = fd_hw(fd, c, t);
        }
}

static void fd_handler(pmusim_model_t *m, uint64_t cycle, uint32_t thread, void *user)
{
    pmusim_frontdoor_t *fd = user;
    (void)m;
    fd->interrupts++;
    uint64_t status;
    if (fd->style == PMUSIM_FRONTDOOR_PERFMON2) {
        /* perfmon: PMC0 names the overflowed PMDs; reset them, clear the
         * overflow bits with fr still set, then clear fr (the SDM: no new
         * interrupt when the overflow bits are cleared before or with fr) */
        uint64_t pmc0;
        fd_read(fd, PMUSIM_REG_PMC, 0, thread, &pmc0);
        status = pmc0 & FD_IA64_PMC0_OVF;
        if (!fd_service(fd, cycle, thread, status, 0))
            fd->spurious++;
        fd_write_irq(fd, PMUSIM_REG_PMC, 0, thread, (pmc0 & ~FD_IA64_PMC0_OVF) | FD_IA64_PMC0_FR,
                     NULL);
        fd_write_irq(fd, PMUSIM_REG_PMC, 0, thread, 0, NULL);
    } else {
        /* perf_event: GLOBAL_STATUS names the overflowed counters; reload
         * them, acknowledge through OVF_CTRL, re-enable if the PMI froze the
         * PMU */
        fd_read(fd, PMUSIM_REG_MSR, FD_MSR_GLOBAL_STATUS, thread, &status);
        if (!fd_service(fd, cycle, thread, status, fd_pebs_wrapped(fd, thread, status)))
            fd->spurious++;
        if (status)
            fd_write_irq(fd, PMUSIM_REG_MSR, FD_MSR_GLOBAL_OVF_CTRL, thread, status, NULL);
        uint64_t ctrl;
        fd_read(fd, PMUSIM_REG_MSR, FD_MSR_GLOBAL_CTRL, thread, &ctrl);
        if (ctrl != fd->global_ctrl[thread])
            fd_write_irq(fd, PMUSIM_REG_MSR, FD_MSR_GLOBAL_CTRL, thread, fd->global_ctrl[thread],
                         NULL);
    }
    if (!fd->stopped && fd->interrupts >= fd->irq_limit)
        fd_stop(fd, cycle);
}

/* ---- the records after a sample: skid and PEBS load-latency data ---- */

static void fd_resolve(pmusim_frontdoor_t *fd, const fd_stream_t *st, const fd_pending_t *p)
{
    pmusim_sample_t *smp = &g_array_index(fd->samples, pmusim_sample_t, p->sample);
    if (p->skid == 0 && !p->cand)
        return; /* the overflowing instruction is not in the records seen */
    const fd_recent_t *rc = &st->recent[p->target & (FD_RING - 1)];
    smp->ip = rc->ip;
    smp->skid = (uint8_t)p->skid;
    if (p->want_mem && rc->has_mem) {
        smp->addr = rc->addr;
        smp->weight = rc->latency;
        smp->mem_level = rc->level;
        smp->mem_store = rc->store;
        smp->mem_tlb = rc->tlb;
        smp->flags |= PMUSIM_SAMPLE_ADDR | PMUSIM_SAMPLE_WEIGHT | PMUSIM_SAMPLE_DSRC;
    }
}

/* One instruction record of the stream's thread, the st->ord-th. */
static void fd_stream_insn(pmusim_frontdoor_t *fd, fd_stream_t *st, const pmusim_rec_t *r)
{
    GArray *q = st->pending;
    /* anchoring: the entries of the interrupt cycle remember its last
     * instruction at their overflow IP; a later cycle fixes the anchor */
    for (guint j = st->anchor; j < q->len; j++) {
        fd_pending_t *p = &g_array_index(q, fd_pending_t, j);
        if (r->cycle < p->cycle)
            break;
        if (r->cycle == p->cycle) {
            if (r->ip == p->ip)
                p->cand = st->ord;
            continue;
        }
        p->target = (p->cand ? p->cand : st->ord - 1) + p->skid;
        p->anchored = true;
        st->anchor = j + 1;
    }
    /* resolution, in order: the sampled instruction is this one or a
     * recent one (a skid ending inside the interrupt cycle) */
    while (st->head < st->anchor) {
        const fd_pending_t *p = &g_array_index(q, fd_pending_t, st->head);
        if (p->target > st->ord)
            break;
        fd_resolve(fd, st, p);
        st->head++;
        fd->npending--;
    }
    if (st->head == q->len) {
        g_array_set_size(q, 0);
        st->head = st->anchor = 0;
    }
}

/* The first cycle from which the thread's records matter to its waiting
 * samples: none waits, UINT64_MAX; one is anchored (its skid counts every
 * later instruction), 0; else the interrupt cycle of the first one not
 * anchored.  Earlier records can neither anchor nor complete a sample, and
 * nothing reads what they would leave behind (the thread's instruction
 * ordinals are only compared with each other, and its ring is read only at
 * instructions counted from a sample's interrupt cycle on). */
static uint64_t fd_stream_from(const fd_stream_t *st)
{
    if (st->head == st->pending->len)
        return UINT64_MAX;
    if (st->head < st->anchor)
        return 0;
    return g_array_index(st->pending, fd_pending_t, st->anchor).cycle;
}

/* The first record from r on at cycle `from` or later: a binary search, as
 * records are in non-decreasing cycle order (traces/FORMAT.md). */
static const pmusim_rec_t *fd_skip_to(const pmusim_rec_t *r, const pmusim_rec_t *end,
                                      uint64_t from)
{
    size_t lo = 0, hi = (size_t)(end - r);
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (r[mid].cycle < from)
            lo = mid + 1;
        else
            hi = mid;
    }
    return r + lo;
}

/* The batch's records for the waiting samples, until none waits any more
 * (a sample taken later walks its own batch): per thread, only the
 * instructions from fd_stream_from() on, jumping over the records before
 * the earliest such cycle of all threads. */
static void fd_observe(pmusim_frontdoor_t *fd, const pmusim_rec_t *recs, size_t n)
{
    /* from[t]: fd_stream_from() of thread t; indexed by any record's thread
     * byte (UINT64_MAX beyond the threads: never looked at) */
    uint64_t from[256];
    memset(from, 0xff, sizeof from);
    uint64_t first = UINT64_MAX;
    uint32_t left = 0; /* threads with a waiting sample */
    for (uint32_t t = 0; t < PMUSIM_MAX_THREADS; t++) {
        from[t] = fd_stream_from(&fd->stream[t]);
        first = MIN(first, from[t]);
        left += from[t] != UINT64_MAX;
    }
    if (!left)
        return;
    const pmusim_rec_t *end = recs + n;
    for (const pmusim_rec_t *r = fd_skip_to(recs, end, first); r < end;) {
        if (r->kind != PMUSIM_REC_INSN || r->cycle < from[r->thread]) {
            r++;
            continue;
        }
        fd_stream_t *st = &fd->stream[r->thread];
        st->ord++;
        fd_recent_t *rc = &st->recent[st->ord & (FD_RING - 1)];
        rc->ip = r->ip;
        rc->has_mem = (r->flags & PMUSIM_F_MEM) != 0;
        if (rc->has_mem) {
            rc->addr = r->mem.addr;
            rc->latency = r->mem.latency;
            rc->level = r->mem.level;
            rc->store = r->mem.is_store;
            rc->tlb = r->mem.tlb;
        }
        fd_stream_insn(fd, st, r);
        uint64_t f = fd_stream_from(st), now = r->cycle;
        from[r->thread] = f;
        r++;
        if (f == UINT64_MAX && !--left)
            break;
        if (f > now) {
            /* the thread waits for a later cycle: so may all */
            first = UINT64_MAX;
            for (uint32_t t = 0; t < PMUSIM_MAX_THREADS; t++)
                first = MIN(first, from[t]);
            if (first > now)
                r = fd_skip_to(r, end, first);
        }
    }
}

/* End of trace: samples whose skid did not complete take the thread's last
 * instruction after their anchor (or keep the overflowing one). */
static void fd_observe_end(pmusim_frontdoor_t *fd)
{
    for (uint32_t t = 0; t < PMUSIM_MAX_THREADS; t++) {
        fd_stream_t *st = &fd->stream[t];
        for (guint j = st->head; j < st->pending->len; j++) {
            fd_pending_t *p = &g_array_index(st->pending, fd_pending_t, j);
            pmusim_sample_t *smp = &g_array_index(fd->samples, pmusim_sample_t, p->sample);
            uint64_t a = p->anchored ? p->target - p->skid : (p->cand ? p->cand : st->ord);
            if (p->want_mem && p->cand) {
                fd_pending_t at = *p;
                at.skid = 0;
                at.target = p->cand;
                fd_resolve(fd, st, &at);
            }
            if (st->ord > a && st->ord - a < FD_RING) {
                smp->ip = st->recent[st->ord & (FD_RING - 1)].ip;
                smp->skid = (uint8_t)(st->ord - a);
            }
            if (p->skid)
                smp->flags |= PMUSIM_SAMPLE_SKID_CUT;
        }
        g_array_set_size(st->pending, 0);
        st->head = st->anchor = 0;
    }
    fd->npending = 0;
}

#define FD_REPLAY_BATCH 1024u

gboolean pmusim_frontdoor_replay(pmusim_frontdoor_t *fd, pmusim_trace_reader_t *r,
                                 pmusim_progress_fn progress, void *user, GError **error)
{
    pmusim_model_t *m = fd->m;
    const pmusim_trace_header_t *h = pmusim_trace_reader_header(r);
    if (h->isa != m->ops->isa || h->nthreads > m->nthreads) {
        /* the engine's checks and messages */
        return pmusim_replay(m, r, progress, user, error);
    }
    pmusim_model_set_trace_header(m, h);
    fd->replaying = true;
    pmusim_rec_t *batch = g_new(pmusim_rec_t, FD_REPLAY_BATCH);
    uint64_t total = 0, next_progress = 1u << 24;
    gboolean ok = TRUE;
    for (;;) {
        gssize n = pmusim_trace_reader_next_batch(r, batch, FD_REPLAY_BATCH, error);
        if (n < 0) {
            ok = FALSE;
            break;
        }
        if (n == 0)
            break;
        m->ops->consume(m, batch, (size_t)n);
        /* the records are looked at only while some sample waits for them
         * (from an earlier batch or taken in this one) */
        if (fd->npending)
            fd_observe(fd, batch, (size_t)n);
        total += (uint64_t)n;
        if (progress && total >= next_progress) {
            progress(total, user);
            next_progress = total + (1u << 24);
        }
    }
    g_free(batch);
    if (ok) {
        m->ops->finish(m);
        fd_observe_end(fd);
    }
    fd->replaying = false;
    if (progress)
        progress(total, user);
    return ok;
}

/* ---- results ---- */

void pmusim_frontdoor_set_sample_limit(pmusim_frontdoor_t *fd, size_t max)
{
    fd->limit = max;
}

size_t pmusim_frontdoor_n_samples(const pmusim_frontdoor_t *fd)
{
    return fd->samples->len;
}

const pmusim_sample_t *pmusim_frontdoor_sample(const pmusim_frontdoor_t *fd, size_t i)
{
    if (i >= fd->samples->len)
        return NULL;
    return &g_array_index(fd->samples, pmusim_sample_t, i);
}

uint64_t pmusim_frontdoor_dropped(const pmusim_frontdoor_t *fd)
{
    return fd->dropped;
}

uint64_t pmusim_frontdoor_interrupts(const pmusim_frontdoor_t *fd)
{
    return fd->interrupts;
}

uint64_t pmusim_frontdoor_spurious(const pmusim_frontdoor_t *fd)
{
    return fd->spurious;
}

size_t pmusim_frontdoor_n_counters(const pmusim_frontdoor_t *fd)
{
    return fd->n;
}

const char *pmusim_frontdoor_counter_label(const pmusim_frontdoor_t *fd, size_t k)
{
    return k < fd->n ? fd->ctr[k].label : NULL;
}

uint32_t pmusim_frontdoor_counter_reg(const pmusim_frontdoor_t *fd, size_t k)
{
    return k < fd->n ? fd->ctr[k].reg : 0;
}

uint64_t pmusim_frontdoor_counter_period(const pmusim_frontdoor_t *fd, size_t k)
{
    return k < fd->n ? fd->ctr[k].period : 0;
}

uint64_t pmusim_frontdoor_counter_samples(const pmusim_frontdoor_t *fd, size_t k,
                                          uint32_t thread)
{
    if (k >= fd->n || thread >= PMUSIM_MAX_THREADS)
        return 0;
    return fd->ctr[k].th[thread].samples;
}

uint64_t pmusim_frontdoor_counter_total(const pmusim_frontdoor_t *fd, size_t k, uint32_t thread)
{
    if (k >= fd->n || thread >= fd->m->nthreads || !fd->started)
        return 0;
    const fd_ctr_t *c = &fd->ctr[k];
    uint64_t hw = fd_hw(fd, c, thread); /* reads have no side effects */
    return c->th[thread].acc + ((hw - c->th[thread].base) & fd->mask);
}

void pmusim_frontdoor_set_interrupt_limit(pmusim_frontdoor_t *fd, uint64_t max)
{
    fd->irq_limit = max;
}

gboolean pmusim_frontdoor_stopped(const pmusim_frontdoor_t *fd, uint64_t *cycle)
{
    if (cycle)
        *cycle = fd->stop_cycle;
    return fd->stopped;
}

gboolean pmusim_frontdoor_set_skid(pmusim_frontdoor_t *fd, uint32_t insns, GError **error)
{
    if (insns > PMUSIM_FRONTDOOR_MAX_SKID) {
        g_set_error(error, PMUSIM_FRONTDOOR_ERROR, PMUSIM_FRONTDOOR_ERROR_PERIOD,
                    "skid %u is too large: at most %u instructions", insns,
                    PMUSIM_FRONTDOOR_MAX_SKID);
        return FALSE;
    }
    fd->skid = insns;
    return TRUE;
}

gboolean pmusim_frontdoor_set_frequency(pmusim_frontdoor_t *fd, uint64_t sample_hz,
                                        uint64_t core_hz, GError **error)
{
    if (fd->started) {
        g_set_error(error, PMUSIM_FRONTDOOR_ERROR, PMUSIM_FRONTDOOR_ERROR_STATE,
                    "frequency mode must be set before the front door starts");
        return FALSE;
    }
    if (!sample_hz || !core_hz || sample_hz > core_hz) {
        g_set_error(error, PMUSIM_FRONTDOOR_ERROR, PMUSIM_FRONTDOOR_ERROR_PERIOD,
                    "frequency %" G_GUINT64_FORMAT " Hz: expected 1 .. the core clock (%"
                    G_GUINT64_FORMAT " Hz)",
                    (guint64)sample_hz, (guint64)core_hz);
        return FALSE;
    }
    fd->freq_hz = sample_hz;
    fd->core_hz = core_hz;
    return TRUE;
}


const pmusim_branch_pair_t *pmusim_frontdoor_sample_branches(const pmusim_frontdoor_t *fd,
                                                             const pmusim_sample_t *s, size_t *n)
{
    *n = s->nbranches;
    if (!s->nbranches || s->branch0 + s->nbranches > fd->branches->len)
        return NULL;
    return &g_array_index(fd->branches, pmusim_branch_pair_t, s->branch0);
}
