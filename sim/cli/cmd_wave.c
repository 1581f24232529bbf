/* pmusim wave: the counters cycle by cycle, as a text waveform or a VCD file
 * for a waveform viewer (GTKWave), for learning how a PMU behaves.
 *
 * The value shown for cycle c is what a read of the counter returns at the
 * end of cycle c.  To get it exactly, whatever a model defers (threshold and
 * edge evaluation at cycle boundaries, lazy counting), every cycle of the
 * window is a separate run: a fresh model, the same register writes, the
 * trace's records up to cycle c plus an IDLE record that closes cycle c, then
 * finish() and a report.  That costs window x records, so the window is
 * bounded (WAVE_MAX_CYCLES cycles, WAVE_MAX_RECORDS records): this is a
 * teaching tool for small traces, not a replay path. */
#include "cmds.h"
#include "enc_args.h"
#include "pmusim/sim.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#define WAVE_DEFAULT_CYCLES 32u
#define WAVE_MAX_CYCLES 4096u
#define WAVE_MAX_RECORDS 200000u

/* One counter's values over the window (index = cycle - from). */
typedef struct wave_sig {
    char reg[24];
    char event[PMUSIM_REG_LABEL_MAX];
    uint32_t thread;
    uint64_t *values;
} wave_sig_t;

/* Runs the model over recs[0..n) closed at cycle `close`; fills *rep. */
static gboolean wave_run(const char *pmu, uint32_t nthreads, const GArray *regs,
                         const pmusim_rec_t *recs, size_t n, uint64_t close, pmusim_report_t *rep,
                         GError **error)
{
    pmusim_model_t *m = pmusim_model_new(pmu, nthreads, error);
    if (!m)
        return FALSE;
    if (!pmusim_model_write_regs(m, regs, error)) {
        pmusim_model_free(m);
        return FALSE;
    }
    if (n)
        m->ops->consume(m, recs, n);
    /* an IDLE record makes `close` the last cycle of the span even when no
     * instruction retires in it */
    pmusim_rec_t idle = {.cycle = close, .kind = PMUSIM_REC_IDLE, .n = 1};
    m->ops->consume(m, &idle, 1);
    m->ops->finish(m);
    pmusim_report_init(rep);
    pmusim_model_collect(m, rep);
    pmusim_model_free(m);
    return TRUE;
}

static void vcd_id(unsigned i, char out[8])
{
    /* identifiers from the printable range '!'..'~' */
    int k = 0;
    do {
        out[k++] = (char)('!' + i % 94);
        i /= 94;
    } while (i && k < 6);
    out[k] = '\0';
}

static void vcd_name(const wave_sig_t *s, gboolean threads, char *out, size_t len)
{
    char *name = g_strdup_printf("%s_%s", s->reg, s->event[0] ? s->event : "raw");
    if (threads) {
        char *t = g_strdup_printf("%s_t%u", name, s->thread);
        g_free(name);
        name = t;
    }
    /* VCD names are whitespace-free; keep them readable */
    for (char *p = name; *p; p++)
        if (!g_ascii_isalnum(*p) && *p != '_')
            *p = '_';
    g_strlcpy(out, name, len);
    g_free(name);
}

static void vcd_bits(FILE *fp, uint64_t v)
{
    fputc('b', fp);
    if (!v) {
        fputc('0', fp);
        return;
    }
    int top = 63;
    while (!(v >> top & 1))
        top--;
    for (int b = top; b >= 0; b--)
        fputc((v >> b & 1) ? '1' : '0', fp);
}

static gboolean write_vcd(const char *path, const GArray *sigs, const uint64_t *insns,
                          gboolean threads, uint64_t from, uint64_t ncyc, GError **error)
{
    FILE *fp = fopen(path, "w");
    if (!fp) {
        g_set_error(error, G_FILE_ERROR, g_file_error_from_errno(errno), "%s: %s", path,
                    g_strerror(errno));
        return FALSE;
    }
    fprintf(fp, "$comment pmusim wave: counter values at the end of each cycle $end\n");
    fprintf(fp, "$timescale 1ns $end\n$scope module pmu $end\n");
    char id[8], name[160];
    for (guint i = 0; i < sigs->len; i++) {
        const wave_sig_t *s = &g_array_index(sigs, wave_sig_t, i);
        vcd_id(i, id);
        vcd_name(s, threads, name, sizeof name);
        fprintf(fp, "$var wire 64 %s %s $end\n", id, name);
    }
    vcd_id(sigs->len, id);
    fprintf(fp, "$var wire 32 %s retired_in_cycle $end\n", id);
    fprintf(fp, "$upscope $end\n$enddefinitions $end\n");
    for (uint64_t k = 0; k < ncyc; k++) {
        fprintf(fp, "#%" G_GUINT64_FORMAT "\n", (guint64)(from + k));
        for (guint i = 0; i <= sigs->len; i++) {
            uint64_t v = i < sigs->len ? g_array_index(sigs, wave_sig_t, i).values[k] : insns[k];
            uint64_t prev = k == 0 ? ~v
                            : i < sigs->len ? g_array_index(sigs, wave_sig_t, i).values[k - 1]
                                            : insns[k - 1];
            if (v == prev)
                continue;
            vcd_id(i, id);
            vcd_bits(fp, v);
            fprintf(fp, " %s\n", id);
        }
    }
    fprintf(fp, "#%" G_GUINT64_FORMAT "\n", (guint64)(from + ncyc));
    if (fclose(fp) != 0) {
        g_set_error(error, G_FILE_ERROR, g_file_error_from_errno(errno), "%s: %s", path,
                    g_strerror(errno));
        return FALSE;
    }
    return TRUE;
}

static void print_wave(FILE *fp, const GArray *sigs, const uint64_t *insns,
                       const pmusim_report_t *last, gboolean threads, uint64_t from,
                       uint64_t ncyc)
{
    fprintf(fp, "counter values at the end of each cycle (a '*' marks a change)\n\n");
    for (guint i = 0; i < sigs->len; i++) {
        const wave_sig_t *s = &g_array_index(sigs, wave_sig_t, i);
        fprintf(fp, "  c%-2u %s", i, s->reg);
        if (threads)
            fprintf(fp, " thread %u", s->thread);
        fprintf(fp, "  %s\n", s->event[0] ? s->event : "(raw)");
    }
    fprintf(fp, "\n%10s %7s", "cycle", "retired");
    for (guint i = 0; i < sigs->len; i++) {
        char h[8];
        g_snprintf(h, sizeof h, "c%u", i);
        fprintf(fp, " %16s", h);
    }
    fprintf(fp, "  events\n");
    for (uint64_t k = 0; k < ncyc; k++) {
        uint64_t cycle = from + k;
        fprintf(fp, "%10" G_GUINT64_FORMAT " %7" G_GUINT64_FORMAT, (guint64)cycle,
                (guint64)insns[k]);
        for (guint i = 0; i < sigs->len; i++) {
            const wave_sig_t *s = &g_array_index(sigs, wave_sig_t, i);
            gboolean changed = k == 0 ? FALSE : s->values[k] != s->values[k - 1];
            fprintf(fp, " %15" G_GUINT64_FORMAT "%c", (guint64)s->values[k],
                    changed ? '*' : ' ');
        }
        /* overflows, freezes and interrupts of this cycle, from the last run */
        gboolean first = TRUE;
        for (guint e = 0; e < last->log->len; e++) {
            const pmusim_sim_event_t *ev = &g_array_index(last->log, pmusim_sim_event_t, e);
            if (ev->cycle != cycle)
                continue;
            if (threads)
                fprintf(fp, "%s[t%u] %s", first ? " " : "; ", ev->thread, ev->what);
            else
                fprintf(fp, "%s%s", first ? " " : "; ", ev->what);
            first = FALSE;
        }
        fputc('\n', fp);
    }
}

int pmusim_cmd_wave(int argc, char **argv)
{
    pmusim_enc_args_t ea = {0};
    char *pmu_opt = NULL, **regs_files = NULL, *vcd = NULL;
    gint64 from = 0, ncycles = WAVE_DEFAULT_CYCLES;
    const GOptionEntry entries[] = {
        {"pmu", 'p', 0, G_OPTION_ARG_STRING, &pmu_opt,
         "PMU model: ita2, mont, wsm, wsm_dp, knm (default: the trace's CPU)", "NAME"},
        {"regs", 'r', 0, G_OPTION_ARG_FILENAME_ARRAY, &regs_files,
         "raw register writes to apply (docs/REGS.md); repeatable", "FILE"},
        {"from", 0, 0, G_OPTION_ARG_INT64, &from, "first cycle shown (default 0)", "CYCLE"},
        {"cycles", 'n', 0, G_OPTION_ARG_INT64, &ncycles, "number of cycles shown (default 32, at most 4096)",
         "N"},
        {"vcd", 0, 0, G_OPTION_ARG_FILENAME, &vcd,
         "also write a VCD file for a waveform viewer", "FILE"},
        {NULL, 0, 0, 0, NULL, NULL, NULL},
    };
    GOptionContext *ctx = g_option_context_new("TRACE");
    g_option_context_set_summary(ctx,
        "Show the counters cycle by cycle (values at the end of each cycle) over a window\n"
        "of a small trace, with the overflows and interrupts of each cycle.  Events (-e)\n"
        "and --regs as for 'pmusim stat'; without them the default event set is used.");
    g_option_context_add_main_entries(ctx, entries, NULL);
    pmusim_enc_args_add(ctx, &ea);
    GError *error = NULL;
    int status = 0;
    pmusim_run_setup_t run = {0};
    GArray *recs = g_array_new(FALSE, TRUE, sizeof(pmusim_rec_t));
    GArray *sigs = g_array_new(FALSE, TRUE, sizeof(wave_sig_t));
    uint64_t *insns = NULL;
    pmusim_report_t last = {0};

    if (!g_option_context_parse(ctx, &argc, &argv, &error)) {
        status = pmusim_cli_usage("wave", "%s", error->message);
        goto out;
    }
    if (argc != 2) {
        status = pmusim_cli_usage("wave", "expected exactly one TRACE file");
        goto out;
    }
    if (from < 0 || ncycles < 1 || ncycles > WAVE_MAX_CYCLES) {
        status = pmusim_cli_usage("wave", "--from must be >= 0 and --cycles 1..%u", WAVE_MAX_CYCLES);
        goto out;
    }
    const char *trace = argv[1];
    status = pmusim_run_setup(&run, &ea, "wave", trace, pmu_opt, regs_files, TRUE);
    if (status)
        goto out;
    pmusim_trace_reader_t *reader = run.reader;
    const pmusim_model_ops_t *ops = run.ops;
    const GArray *regs = run.regs;
    const pmusim_trace_header_t *h = pmusim_trace_reader_header(reader);
    if (h->isa != ops->isa) {
        g_set_error(&error, PMUSIM_SIM_ERROR, PMUSIM_SIM_ERROR_MISMATCH,
                    "%s: trace is for %s but the %s model is %s", trace, pmusim_isa_name(h->isa),
                    ops->name, pmusim_isa_name(ops->isa));
        status = pmusim_cli_fail(error);
        goto out;
    }

    /* the records of cycles < from + ncycles, bounded */
    uint64_t end = (uint64_t)from + (uint64_t)ncycles;
    pmusim_rec_t batch[256];
    gboolean done = FALSE;
    while (!done) {
        gssize n = pmusim_trace_reader_next_batch(reader, batch, G_N_ELEMENTS(batch), &error);
        if (n < 0) {
            status = pmusim_cli_fail(error);
            goto out;
        }
        if (n == 0)
            break;
        for (gssize i = 0; i < n; i++) {
            if (batch[i].cycle >= end) {
                done = TRUE;
                break;
            }
            if (recs->len >= WAVE_MAX_RECORDS) {
                g_set_error(&error, PMUSIM_SIM_ERROR, PMUSIM_SIM_ERROR_MISMATCH,
                            "%s: more than %u records before cycle %" G_GUINT64_FORMAT
                            ": choose a smaller window (--from/--cycles)",
                            trace, WAVE_MAX_RECORDS, (guint64)end);
                status = pmusim_cli_fail(error);
                goto out;
            }
            g_array_append_val(recs, batch[i]);
        }
    }

    uint32_t nthreads = MAX(h->nthreads, 1u);
    insns = g_new0(uint64_t, (gsize)ncycles);
    for (guint i = 0; i < recs->len; i++) {
        const pmusim_rec_t *r = &g_array_index(recs, pmusim_rec_t, i);
        if (r->kind == PMUSIM_REC_INSN && r->cycle >= (uint64_t)from)
            insns[r->cycle - (uint64_t)from]++;
    }
    size_t upto = 0; /* records with cycle <= c */
    const pmusim_rec_t *all = (const pmusim_rec_t *)(void *)recs->data;
    for (uint64_t k = 0; k < (uint64_t)ncycles; k++) {
        uint64_t c = (uint64_t)from + k;
        while (upto < recs->len && all[upto].cycle <= c)
            upto++;
        pmusim_report_t rep;
        if (!wave_run(ops->name, nthreads, regs, all, upto, c, &rep, &error)) {
            status = pmusim_cli_fail(error);
            goto out;
        }
        if (k == 0) {
            for (guint i = 0; i < rep.counters->len; i++) {
                const pmusim_counter_result_t *cr =
                    &g_array_index(rep.counters, pmusim_counter_result_t, i);
                if (!cr->enabled)
                    continue;
                wave_sig_t s = {.thread = cr->thread,
                                .values = g_new0(uint64_t, (gsize)ncycles)};
                g_strlcpy(s.reg, cr->reg, sizeof s.reg);
                g_strlcpy(s.event, cr->event, sizeof s.event);
                g_array_append_val(sigs, s);
            }
        }
        /* counters are matched by (register, thread): the set programmed does
         * not change from one run to the next */
        for (guint i = 0; i < sigs->len; i++) {
            wave_sig_t *s = &g_array_index(sigs, wave_sig_t, i);
            for (guint j = 0; j < rep.counters->len; j++) {
                const pmusim_counter_result_t *cr =
                    &g_array_index(rep.counters, pmusim_counter_result_t, j);
                if (cr->thread == s->thread && strcmp(cr->reg, s->reg) == 0)
                    s->values[k] = cr->value;
            }
        }
        if (k + 1 == (uint64_t)ncycles)
            last = rep;
        else
            pmusim_report_clear(&rep);
    }
    gboolean threads = nthreads > 1;
    if (vcd && !write_vcd(vcd, sigs, insns, threads, (uint64_t)from, (uint64_t)ncycles, &error)) {
        status = pmusim_cli_fail(error);
        goto out;
    }
    print_wave(stdout, sigs, insns, &last, threads, (uint64_t)from, (uint64_t)ncycles);
out:
    if (last.counters)
        pmusim_report_clear(&last);
    for (guint i = 0; i < sigs->len; i++)
        g_free(g_array_index(sigs, wave_sig_t, i).values);
    g_array_free(sigs, TRUE);
    g_array_free(recs, TRUE);
    g_free(insns);
    if (error)
        g_error_free(error);
    pmusim_run_setup_clear(&run);
    g_strfreev(regs_files);
    g_free(pmu_opt);
    g_free(vcd);
    pmusim_enc_args_clear(&ea);
    g_option_context_free(ctx);
    return status;
}
