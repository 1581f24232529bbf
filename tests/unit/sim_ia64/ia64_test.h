/* Helpers shared by the IA-64 model unit tests: build a model, write
 * registers, feed in-memory records, read registers back. */
#ifndef PMUSIM_IA64_TEST_H
#define PMUSIM_IA64_TEST_H

#include <CUnit/CUnit.h>
#include <stdbool.h>
#include <string.h>
#include "pmusim/sim.h"

#define CTR_WRAP (UINT64_C(1) << 47)
#define CTR_MASK (CTR_WRAP - 1)

static inline pmusim_model_t *t_model(const char *pmu, uint32_t nthreads)
{
    GError *e = NULL;
    pmusim_model_t *m = pmusim_model_new(pmu, nthreads, &e);
    if (!m)
        fprintf(stderr, "model %s: %s\n", pmu, e ? e->message : "?");
    g_clear_error(&e);
    CU_ASSERT_PTR_NOT_NULL_FATAL(m);
    return m;
}

static inline void t_write_l(pmusim_model_t *m, pmusim_regspace_t s, uint32_t num, uint64_t v,
                             uint32_t thread, const char *label)
{
    pmusim_regwrite_t w;
    memset(&w, 0, sizeof w);
    w.space = s;
    w.num = num;
    w.value = v;
    w.thread = thread;
    g_strlcpy(w.label, label ? label : "", sizeof w.label);
    GError *e = NULL;
    gboolean ok = m->ops->write_reg(m, &w, &e);
    if (!ok)
        fprintf(stderr, "write %u: %s\n", num, e ? e->message : "?");
    g_clear_error(&e);
    CU_ASSERT_TRUE(ok);
}

static inline void t_write(pmusim_model_t *m, pmusim_regspace_t s, uint32_t num, uint64_t v,
                           uint32_t thread)
{
    t_write_l(m, s, num, v, thread, NULL);
}

#define PMC(m, n, v) t_write((m), PMUSIM_REG_PMC, (n), (v), 0)
#define PMD(m, n, v) t_write((m), PMUSIM_REG_PMD, (n), (v), 0)

static inline uint64_t t_read(pmusim_model_t *m, pmusim_regspace_t s, uint32_t num, uint32_t thread)
{
    uint64_t v = 0xdeadbeef;
    CU_ASSERT_TRUE(m->ops->read_reg(m, s, num, thread, &v));
    return v;
}

#define RPMC(m, n) t_read((m), PMUSIM_REG_PMC, (n), 0)
#define RPMD(m, n) t_read((m), PMUSIM_REG_PMD, (n), 0)
/* counter value bits 46:0 */
#define CNT(m, n) (t_read((m), PMUSIM_REG_PMD, (n), 0) & CTR_MASK)

static inline pmusim_rec_t t_insn(uint64_t cycle, uint8_t plm)
{
    pmusim_rec_t r;
    memset(&r, 0, sizeof r);
    r.kind = PMUSIM_REC_INSN;
    r.cycle = cycle;
    r.plm = plm;
    r.ip = 0x4000000000001000ull;
    r.unit = PMUSIM_UNIT_I;
    return r;
}

static inline pmusim_rec_t t_idle(uint64_t cycle, uint64_t n)
{
    pmusim_rec_t r;
    memset(&r, 0, sizeof r);
    r.kind = PMUSIM_REC_IDLE;
    r.cycle = cycle;
    r.n = n;
    return r;
}

static inline pmusim_rec_t t_event(uint64_t cycle, uint16_t code, uint16_t umask, uint64_t n)
{
    pmusim_rec_t r;
    memset(&r, 0, sizeof r);
    r.kind = PMUSIM_REC_EVENT;
    r.cycle = cycle;
    r.ev_code = code;
    r.ev_umask = umask;
    r.n = n;
    r.plm = 3;
    return r;
}

static inline pmusim_rec_t t_thread(uint64_t cycle, uint8_t thread, bool active)
{
    pmusim_rec_t r;
    memset(&r, 0, sizeof r);
    r.kind = PMUSIM_REC_THREAD;
    r.cycle = cycle;
    r.thread = thread;
    r.n = active;
    return r;
}

static inline void t_run(pmusim_model_t *m, const pmusim_rec_t *recs, size_t n)
{
    m->ops->consume(m, recs, n);
    m->ops->finish(m);
}

/* Does the model log contain `what` at `cycle` (thread any)? */
static inline unsigned t_log_count(const pmusim_model_t *m, uint64_t cycle, const char *what)
{
    unsigned n = 0;
    for (guint i = 0; i < m->log->len; i++) {
        const pmusim_sim_event_t *ev = &g_array_index(m->log, pmusim_sim_event_t, i);
        if (ev->cycle == cycle && strcmp(ev->what, what) == 0)
            n++;
    }
    return n;
}

static inline bool t_diag_has(const pmusim_model_t *m, const char *needle)
{
    for (guint i = 0; i < m->diags->len; i++)
        if (strstr(g_ptr_array_index(m->diags, i), needle))
            return true;
    return false;
}

#endif
