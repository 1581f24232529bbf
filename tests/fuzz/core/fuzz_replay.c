/* Fuzz target for the simulator's inputs taken together: a register file
 * (the --regs text form) and a trace (binary or text), replayed through a
 * PMU model, plainly or through the OS front door that samples.  Any bytes
 * must give counts or a clean GError: never a crash, a hang (every model
 * jumps over idle spans and counter wraps in closed form) or unbounded
 * memory.
 *
 * Input layout:
 *   byte 0     bits 2:0 the model: 0 ita2, 1 mont, 2 wsm, 3 wsm_dp, 4 knm,
 *              5-7 the trace's own CPU; bit 3: sample through the front
 *              door (the first counter the writes program, period from
 *              byte 1); bits 5:4: threads (1 + value, at most the model's);
 *              bit 6: timed writes replayed at their cycles
 *   byte 1     the sampling period's log2 (mod 32)
 *   then       the register file's text, up to a line "%%", then the trace.
 * Without a "%%" line the whole input after byte 1 is the trace and there
 * are no writes. */
#include "pmusim/frontdoor.h"
#include "pmusim/regs.h"
#include "pmusim/sim.h"
#include "pmusim/trace.h"

#include <stddef.h>
#include <stdint.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *const models[] = {"ita2", "mont", "wsm", "wsm_dp", "knm"};

/* The data register a configuration write programs, for the front door:
 * IA-64 PMCn with 4 <= n <= 15 -> PMDn; x86 IA32_PERFEVTSELi (0x186+i) ->
 * IA32_PMCi (0xc1+i); 0 when the write programs no counter. */
static uint32_t data_reg_of(const pmusim_regwrite_t *w)
{
    if (w->space == PMUSIM_REG_PMC && w->num >= 4 && w->num <= 15)
        return w->num;
    if (w->space == PMUSIM_REG_MSR && w->num >= 0x186 && w->num < 0x186 + 8)
        return 0xc1 + (w->num - 0x186);
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 2)
        return 0;
    uint8_t flags = data[0], plog = data[1] & 31;
    const char *text = (const char *)data + 2;
    size_t rest = size - 2, regs_len = 0;
    const uint8_t *trace = data + 2;
    size_t trace_len = rest;
    for (size_t i = 0; i + 3 <= rest; i++) {
        if ((i == 0 || text[i - 1] == '\n') && memcmp(text + i, "%%\n", 3) == 0) {
            regs_len = i;
            trace = data + 2 + i + 3;
            trace_len = rest - i - 3;
            break;
        }
    }

    GError *error = NULL;
    GArray *regs = pmusim_regs_new();
    if (regs_len && !pmusim_regs_parse(text, regs_len, "fuzz.regs", regs, &error)) {
        g_clear_error(&error);
        g_array_unref(regs);
        return 0;
    }
    pmusim_trace_reader_t *r = pmusim_trace_reader_open_memory_ex(trace, trace_len, "fuzz",
                                                                  PMUSIM_TRACE_OPEN_QUIET, &error);
    if (!r) {
        g_clear_error(&error);
        g_array_unref(regs);
        return 0;
    }
    const pmusim_trace_header_t *h = pmusim_trace_reader_header(r);
    const char *name = (flags & 7) < 5 ? models[flags & 7] : pmusim_cpu_name(h->cpu);
    uint32_t nthreads = 1 + ((flags >> 4) & 3);
    if (nthreads < h->nthreads)
        nthreads = h->nthreads;
    pmusim_model_t *m = name ? pmusim_model_new(name, nthreads, &error) : NULL;
    if (!m) {
        g_clear_error(&error);
        pmusim_trace_reader_free(r);
        g_array_unref(regs);
        return 0;
    }

    /* the writes before the trace now; timed ones at their cycles */
    GArray *now = pmusim_regs_new();
    gboolean timed = FALSE;
    for (guint i = 0; i < regs->len; i++) {
        const pmusim_regwrite_t *w = &g_array_index(regs, pmusim_regwrite_t, i);
        if (w->at_cycle == 0)
            g_array_append_val(now, *w);
        else
            timed = TRUE;
    }
    gboolean replay_timed = timed && (flags & 0x40) && !(flags & 8);
    /* pmusim_replay_timed() applies the writes of cycle 0 itself */
    gboolean ok = replay_timed || pmusim_model_write_regs(m, now, &error);
    g_clear_error(&error);
    if (ok && (flags & 8)) {
        pmusim_frontdoor_t *fd = pmusim_frontdoor_new(m, &error);
        uint32_t reg = 0;
        for (guint i = 0; i < now->len && !reg; i++)
            reg = data_reg_of(&g_array_index(now, pmusim_regwrite_t, i));
        if (fd && reg) {
            pmusim_frontdoor_set_interrupt_limit(fd, 256);
            pmusim_frontdoor_set_sample_limit(fd, 256);
            if (pmusim_frontdoor_add_sampling(fd, reg, (uint64_t)1 << plog, "fuzz", &error) >= 0 &&
                pmusim_frontdoor_set_skid(fd, plog & 3, &error) &&
                pmusim_frontdoor_start(fd, &error))
                pmusim_frontdoor_replay(fd, r, NULL, NULL, &error);
        }
        g_clear_error(&error);
        if (fd)
            pmusim_frontdoor_free(fd);
    } else if (ok) {
        if (replay_timed)
            pmusim_replay_timed(m, r, regs, NULL, NULL, &error);
        else
            pmusim_replay(m, r, NULL, NULL, &error);
        g_clear_error(&error);
    }
    pmusim_report_t rep;
    pmusim_report_init(&rep);
    pmusim_model_collect(m, &rep);
    pmusim_report_clear(&rep);
    pmusim_model_free(m);
    pmusim_trace_reader_free(r);
    g_array_unref(now);
    g_array_unref(regs);
    return 0;
}
