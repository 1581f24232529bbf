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

typedef struct fd_thread_state {
    uint64_t acc;     /* occurrences up to the last re-base */
    uint64_t base;    /* hardware value at the last re-base */
    uint64_t samples; /* samples taken, dropped ones included */
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
    if (c->period &&
        !fd_write(fd, fd_data_space(fd), c->reg, t, fd_reload_value(fd, c, c->period), c->label,
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
        .period = c->period,
        .ovfl = status,
        .thread = t,
        .counter = (uint32_t)k,
        .reg = c->reg,
        .nvalues = (uint32_t)fd->n,
        .flags = flags,
        .values = v,
    };
    g_array_append_val(fd->samples, smp);
}

/* Every overflowed counter of the session (status bits, plus `pebs`: the
 * PEBS counters found wrapped): account the wrap, sample and reload the
 * sampling ones. */
static bool fd_service(pmusim_frontdoor_t *fd, uint64_t cycle, uint32_t t, uint64_t status,
                       uint64_t pebs)
{
    uint64_t values[PMUSIM_FRONTDOOR_MAX_COUNTERS];
    fd_snapshot(fd, t, status | pebs, values);
    bool any = false;
    for (size_t k = 0; k < fd->n; k++) {
        fd_ctr_t *c = &fd->ctr[k];
        if (!fd_overflowed(c, status | pebs))
            continue;
        any = true;
        fd_thread_state_t *s = &c->th[t];
        s->acc = values[k];
        s->base = fd_hw(fd, c, t);
        if (!c->period)
            continue;
        s->samples++;
        fd_record(fd, c, k, cycle, t, status, fd_overflowed(c, pebs) ? PMUSIM_SAMPLE_PEBS : 0,
                  values);
        fd_write_irq(fd, fd_data_space(fd), c->reg, t, fd_reload_value(fd, c, c->period), c->label);
        s->base = fd_hw(fd, c, t);
    }
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
        return;
    }
    /* perf_event: GLOBAL_STATUS names the overflowed counters; reload them,
     * acknowledge through OVF_CTRL, re-enable if the PMI froze the PMU */
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
