/* pmusim wave: the counters cycle by cycle, as a text waveform, a VCD file
 * (with a GTKWave save file) or an SVG timing diagram, for learning how a
 * PMU behaves.
 *
 * The row for cycle c shows what the model holds at the end of cycle c:
 * each counter's value, the event's occurrences in that cycle, what the
 * counter added, whether the threshold/inv condition held, whether the edge
 * detector fired, and the overflow, freeze and interrupt of that cycle.
 *
 * One replay: the model's observe_cycles op calls us back at the end of every
 * cycle of the window, IDLE gaps included (one row per cycle, each with its
 * own value).  Rows stop at the trace's last cycle and the output says so. */
#include "cmds.h"
#include "enc_args.h"
#include "pmusim/frontdoor.h"
#include "pmusim/outfile.h"
#include "pmusim/sim.h"
#include "wave_out.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#define WAVE_DEFAULT_CYCLES 32u
#define WAVE_MAX_CYCLES 1000000u  /* text and VCD stream: only the window's rows are kept */
#define WAVE_SVG_MAX_CYCLES 2000u /* a picture wider than this is unreadable */
#define WAVE_BATCH 4096u

/* A pending "instructions retired in cycle c" count, in cycle order. */
typedef struct wave_retired {
    uint64_t cycle;
    uint64_t n;
} wave_retired_t;

typedef struct wave_ctx {
    wave_out_t *out;            /* the writers (text, VCD, SVG) */
    GArray *sigs;               /* of wave_sig_t */
    GArray *pending;            /* of wave_retired_t, cycle order */
    guint pending_head;
    uint64_t from, to;          /* window [from, to) */
    uint64_t rows;              /* rows produced */
    uint64_t last_cycle;        /* cycle of the last row */
    pmusim_counter_probe_t *row; /* one row, per signal */
} wave_ctx_t;

/* Retired-instruction counts of a batch, for cycles of the window. */
static void wave_count_retired(wave_ctx_t *w, const pmusim_rec_t *recs, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        const pmusim_rec_t *r = &recs[i];
        if (r->kind != PMUSIM_REC_INSN || r->cycle < w->from || r->cycle >= w->to)
            continue;
        if (w->pending->len > w->pending_head) {
            wave_retired_t *last = &g_array_index(w->pending, wave_retired_t, w->pending->len - 1);
            if (last->cycle == r->cycle) {
                last->n++;
                continue;
            }
        }
        wave_retired_t e = {.cycle = r->cycle, .n = 1};
        g_array_append_val(w->pending, e);
    }
}

static uint64_t wave_take_retired(wave_ctx_t *w, uint64_t cycle)
{
    uint64_t n = 0;
    while (w->pending_head < w->pending->len) {
        wave_retired_t *e = &g_array_index(w->pending, wave_retired_t, w->pending_head);
        if (e->cycle > cycle)
            break;
        if (e->cycle == cycle)
            n = e->n;
        w->pending_head++;
    }
    if (w->pending_head == w->pending->len) {
        g_array_set_size(w->pending, 0);
        w->pending_head = 0;
    }
    return n;
}

static void wave_emit(wave_ctx_t *w, uint64_t cycle)
{
    uint64_t retired = wave_take_retired(w, cycle);
    wave_out_row(w->out, cycle, retired, w->row);
    w->rows++;
    w->last_cycle = cycle;
}

static void wave_observer(pmusim_model_t *m, uint64_t cycle, const pmusim_counter_probe_t *probes,
                          size_t n, void *user)
{
    wave_ctx_t *w = user;
    if (cycle < w->from || cycle >= w->to)
        return;
    for (guint i = 0; i < w->sigs->len; i++) {
        const wave_sig_t *s = &g_array_index(w->sigs, wave_sig_t, i);
        if (s->index < n)
            w->row[i] = probes[s->index];
        else
            memset(&w->row[i], 0, sizeof w->row[i]);
    }
    wave_emit(w, cycle);
}

/* The label a person typed, as far as the canonical one tells: without the
 * "pmu::" prefix and without modifiers left at their defaults. */
static void wave_short_label(const char *label, char *out, size_t len)
{
    const char *p = strstr(label, "::");
    p = p ? p + 2 : label;
    gchar **parts = g_strsplit(p, ":", -1);
    gboolean k1 = FALSE, u1 = FALSE;
    for (gchar **q = parts; *q; q++) {
        if (strcmp(*q, "k=1") == 0)
            k1 = TRUE;
        if (strcmp(*q, "u=1") == 0)
            u1 = TRUE;
    }
    GString *s = g_string_new(NULL);
    for (gchar **q = parts; *q; q++) {
        const char *eq = strchr(*q, '=');
        gboolean is_mod = eq && q != parts;
        if (is_mod && strcmp(eq, "=0") == 0)
            continue;
        if (is_mod && k1 && u1 && (strcmp(*q, "k=1") == 0 || strcmp(*q, "u=1") == 0))
            continue;
        g_string_append_printf(s, "%s%s", s->len ? ":" : "", *q);
    }
    g_strlcpy(out, s->len ? s->str : "(raw)", len);
    g_string_free(s, TRUE);
    g_strfreev(parts);
}

/* A model of `pmu` programmed with `regs`, or NULL with error. */
static pmusim_model_t *wave_model(const char *pmu, uint32_t nthreads, const GArray *regs,
                                  GError **error)
{
    pmusim_model_t *m = pmusim_model_new(pmu, nthreads, error);
    if (m && !pmusim_model_write_regs(m, regs, error)) {
        pmusim_model_free(m);
        return NULL;
    }
    return m;
}

/* The counters to show, from a report of a model programmed with `regs`. */
static gboolean wave_list_signals(const char *pmu, uint32_t nthreads, const GArray *regs,
                                  GArray *sigs, GError **error)
{
    pmusim_model_t *m = wave_model(pmu, nthreads, regs, error);
    if (!m)
        return FALSE;
    pmusim_report_t rep;
    pmusim_report_init(&rep);
    pmusim_model_collect(m, &rep);
    for (guint i = 0; i < rep.counters->len; i++) {
        const pmusim_counter_result_t *cr = &g_array_index(rep.counters, pmusim_counter_result_t, i);
        if (!cr->enabled)
            continue;
        wave_sig_t s = {.thread = cr->thread, .index = i};
        g_strlcpy(s.reg, cr->reg, sizeof s.reg);
        g_strlcpy(s.event, cr->event, sizeof s.event);
        wave_short_label(cr->event[0] ? cr->event : "", s.label, sizeof s.label);
        g_array_append_val(sigs, s);
    }
    pmusim_report_clear(&rep);
    pmusim_model_free(m);
    return TRUE;
}

/* One replay, observed at every cycle of the window. */
static gboolean wave_observe(wave_ctx_t *w, pmusim_model_t *m, pmusim_trace_reader_t *reader,
                             GError **error)
{
    const pmusim_trace_header_t *h = pmusim_trace_reader_header(reader);
    pmusim_model_set_trace_header(m, h);
    m->ops->observe_cycles(m, w->from, w->to, wave_observer, w);
    pmusim_rec_t *batch = g_new(pmusim_rec_t, WAVE_BATCH);
    gboolean ok = TRUE;
    for (;;) {
        gssize n = pmusim_trace_reader_next_batch(reader, batch, WAVE_BATCH, error);
        if (n < 0) {
            ok = FALSE;
            break;
        }
        if (n == 0)
            break;
        wave_count_retired(w, batch, (size_t)n);
        m->ops->consume(m, batch, (size_t)n);
        /* records past the window can change nothing in it */
        if (batch[n - 1].cycle >= w->to)
            break;
    }
    g_free(batch);
    if (ok)
        m->ops->finish(m);
    return ok;
}

/* The front door's name for a counter's data register ("PMD4" -> 4,
 * "IA32_PMC1" -> 0xc2, "IA32_FIXED_CTR0" -> 0x309), from its report name. */
static gboolean wave_counter_reg(const char *name, uint32_t *reg)
{
    static const struct {
        const char *prefix;
        uint32_t base;
    } forms[] = {{"PMD", 0}, {"IA32_PMC", 0xc1}, {"IA32_FIXED_CTR", 0x309}};
    for (unsigned i = 0; i < G_N_ELEMENTS(forms); i++) {
        size_t n = strlen(forms[i].prefix);
        if (strncmp(name, forms[i].prefix, n) == 0 && g_ascii_isdigit(name[n])) {
            *reg = forms[i].base + (uint32_t)g_ascii_strtoull(name + n, NULL, 10);
            return TRUE;
        }
    }
    return FALSE;
}

/* -c PERIOD: the first counter samples through the OS front door (as
 * `pmusim record -c`), so its interrupts and reloads show in the wave. */
static pmusim_frontdoor_t *wave_sampling(pmusim_model_t *m, const GArray *sigs, gint64 period,
                                         GError **error)
{
    const wave_sig_t *s = &g_array_index(sigs, wave_sig_t, 0);
    uint32_t reg;
    if (!wave_counter_reg(s->reg, &reg)) {
        g_set_error(error, PMUSIM_FRONTDOOR_ERROR, PMUSIM_FRONTDOOR_ERROR_COUNTER,
                    "%s cannot sample (not a counter data register)", s->reg);
        return NULL;
    }
    pmusim_frontdoor_t *fd = pmusim_frontdoor_new(m, error);
    if (fd && (pmusim_frontdoor_add_sampling(fd, reg, (uint64_t)period, s->label, error) < 0 ||
               !pmusim_frontdoor_start(fd, error))) {
        pmusim_frontdoor_free(fd);
        return NULL;
    }
    return fd;
}

static void wave_print_samples(FILE *fp, const pmusim_frontdoor_t *fd, uint64_t from,
                               uint64_t to)
{
    size_t n = pmusim_frontdoor_n_samples(fd), shown = 0;
    for (size_t i = 0; i < n; i++) {
        const pmusim_sample_t *smp = pmusim_frontdoor_sample(fd, i);
        if (smp->cycle < from || smp->cycle >= to)
            continue;
        if (!shown++)
            fprintf(fp, "\nsamples taken in the window (interrupt cycle, thread, sampled IP):\n");
        fprintf(fp, "  cycle %" G_GUINT64_FORMAT "  thread %u  ip 0x%" G_GINT64_MODIFIER "x\n",
                (guint64)smp->cycle, smp->thread, (guint64)smp->ip);
    }
    if (!shown)
        fprintf(fp, "\nno sample was taken in the window\n");
}

/* Two output paths that name one file: the same spelling ("-" included),
 * the same path once made absolute and tidied, or one existing file. */
static gboolean wave_same_output(const char *a, const char *b)
{
    if (strcmp(a, b) == 0)
        return TRUE;
    if (strcmp(a, "-") == 0 || strcmp(b, "-") == 0)
        return FALSE;
    char *ca = g_canonicalize_filename(a, NULL), *cb = g_canonicalize_filename(b, NULL);
    gboolean same = strcmp(ca, cb) == 0 || pmusim_outfile_same_file(a, b);
    g_free(ca);
    g_free(cb);
    return same;
}

int pmusim_cmd_wave(int argc, char **argv)
{
    pmusim_enc_args_t ea = {0};
    char *pmu_opt = NULL, **regs_files = NULL, *vcd = NULL, *gtkw = NULL, *svg = NULL;
    gint64 from = 0, ncycles = WAVE_DEFAULT_CYCLES, period = 0;
    const GOptionEntry entries[] = {
        {"pmu", 'p', 0, G_OPTION_ARG_STRING, &pmu_opt,
         "PMU model: ita2, mont, wsm, wsm_dp, knm (default: the trace's CPU)", "NAME"},
        {"regs", 'r', 0, G_OPTION_ARG_FILENAME_ARRAY, &regs_files,
         "raw register writes to apply (docs/REGS.md); repeatable", "FILE"},
        {"from", 0, 0, G_OPTION_ARG_INT64, &from, "first cycle shown (default 0)", "CYCLE"},
        {"cycles", 'n', 0, G_OPTION_ARG_INT64, &ncycles,
         "number of cycles shown (default 32, at most 1000000)", "N"},
        {"vcd", 0, 0, G_OPTION_ARG_FILENAME, &vcd,
         "also write a VCD file for a waveform viewer (GTKWave)", "FILE"},
        {"gtkw", 0, 0, G_OPTION_ARG_FILENAME, &gtkw,
         "with --vcd: also write a GTKWave save file that opens with every signal shown", "FILE"},
        {"count", 'c', 0, G_OPTION_ARG_INT64, &period,
         "sample the first event every N occurrences through the OS front door, as "
         "'pmusim record -c N' does, and list the samples of the window", "N"},
        {"svg", 0, 0, G_OPTION_ARG_FILENAME, &svg,
         "also draw an SVG timing diagram (at most 2000 cycles)", "FILE"},
        {NULL, 0, 0, 0, NULL, NULL, NULL},
    };
    GOptionContext *ctx = g_option_context_new("TRACE");
    g_option_context_set_summary(ctx,
        "Show the counters cycle by cycle over a window of a trace: each counter's value\n"
        "at the end of the cycle, the event's occurrences in it, whether the threshold\n"
        "condition held and the edge detector fired, and the overflows, freezes and\n"
        "interrupts of the cycle.  Events (-e) and --regs as for 'pmusim stat'; without\n"
        "them the default event set is used.");
    g_option_context_set_description(ctx,
        "Examples:\n"
        "  pmusim wave --from 6 -n 6 --regs tests/golden/core/check/ita2_overflow.regs \\\n"
        "      traces/samples/ita2_loop.txt\n"
        "  pmusim wave -n 8 -e wsm::UOPS_RETIRED:ANY:c=2:e=1 --vcd e.vcd --gtkw e.gtkw \\\n"
        "      traces/samples/wsm_loop.txt\n"
        "  pmusim wave -n 40 --svg overflow.svg traces/samples/ita2_loop.txt\n");
    g_option_context_add_main_entries(ctx, entries, NULL);
    pmusim_enc_args_add(ctx, &ea);
    GError *error = NULL;
    int status = 0;
    pmusim_run_setup_t run = {0};
    wave_ctx_t w = {0};
    w.sigs = g_array_new(FALSE, TRUE, sizeof(wave_sig_t));
    w.pending = g_array_new(FALSE, FALSE, sizeof(wave_retired_t));
    pmusim_model_t *m = NULL;
    pmusim_frontdoor_t *fd = NULL;

    if (!pmusim_cli_parse(ctx, "wave", &argc, &argv, &error)) {
        status = pmusim_cli_usage("wave", "%s", error->message);
        goto out;
    }
    if (argc != 2) {
        status = pmusim_cli_usage("wave", "expected exactly one TRACE file");
        goto out;
    }
    if (from < 0 || ncycles < 1 || ncycles > WAVE_MAX_CYCLES) {
        status = pmusim_cli_usage("wave", "--from must be >= 0 and --cycles 1..%u",
                                  WAVE_MAX_CYCLES);
        goto out;
    }
    if (svg && ncycles > WAVE_SVG_MAX_CYCLES) {
        status = pmusim_cli_usage("wave", "--svg draws at most %u cycles (asked for %" G_GINT64_FORMAT ")",
                                  WAVE_SVG_MAX_CYCLES, ncycles);
        goto out;
    }
    if (period < 0) {
        status = pmusim_cli_usage("wave", "-c needs a period >= 1");
        goto out;
    }
    if (gtkw && !vcd) {
        status = pmusim_cli_usage("wave", "--gtkw needs --vcd (the save file names the VCD)");
        goto out;
    }
    /* each output a file of its own (the second would replace the first),
     * at most one on standard output, and the table then on standard
     * error, as with 'record -o -' */
    const char *outs[] = {vcd, gtkw, svg}, *opt_names[] = {"--vcd", "--gtkw", "--svg"};
    FILE *text = stdout;
    for (unsigned i = 0; i < G_N_ELEMENTS(outs) && !status; i++) {
        if (outs[i] && strcmp(outs[i], "-") == 0)
            text = stderr;
        for (unsigned j = 0; outs[i] && j < i && !status; j++)
            if (outs[j] && wave_same_output(outs[i], outs[j]))
                status = pmusim_cli_usage("wave", "%s and %s both write '%s'", opt_names[j],
                                          opt_names[i], outs[i]);
    }
    if (status)
        goto out;
    const char *trace = argv[1];
    status = pmusim_run_setup(&run, &ea, "wave", trace, pmu_opt, regs_files, TRUE);
    if (status)
        goto out;
    const pmusim_model_ops_t *ops = run.ops;
    const pmusim_trace_header_t *h = pmusim_trace_reader_header(run.reader);
    if (h->isa != ops->isa) {
        g_set_error(&error, PMUSIM_SIM_ERROR, PMUSIM_SIM_ERROR_MISMATCH,
                    "%s: trace is for %s but the %s model is %s", trace, pmusim_isa_name(h->isa),
                    ops->name, pmusim_isa_name(ops->isa));
        status = pmusim_cli_fail(error);
        goto out;
    }
    uint32_t nthreads = MAX(h->nthreads, 1u);
    if (!wave_list_signals(ops->name, nthreads, run.regs, w.sigs, &error)) {
        status = pmusim_cli_fail(error);
        goto out;
    }
    w.from = (uint64_t)from;
    w.to = w.from + (uint64_t)ncycles;
    w.row = g_new0(pmusim_counter_probe_t, w.sigs->len + 1);

    /* the model and the sampling first: a setup error prints nothing */
    gboolean ok;
    if (!w.sigs->len) {
        g_set_error(&error, PMUSIM_SIM_ERROR, PMUSIM_SIM_ERROR_REG,
                    "no counter is programmed: nothing to show");
        ok = FALSE;
    } else if (!ops->observe_cycles) {
        g_set_error(&error, PMUSIM_SIM_ERROR, PMUSIM_SIM_ERROR_MISMATCH,
                    "the %s model cannot be observed cycle by cycle", ops->name);
        ok = FALSE;
    } else {
        m = wave_model(ops->name, nthreads, run.regs, &error);
        ok = m && (!period || (fd = wave_sampling(m, w.sigs, period, &error)));
    }
    if (!ok) {
        status = pmusim_cli_fail(error);
        goto out;
    }
    const char **inputs = pmusim_cli_inputs(trace, regs_files);
    wave_out_opts_t oo = {.text = text, .vcd_path = vcd, .gtkw_path = gtkw, .svg_path = svg,
                          .trace = trace, .inputs = inputs, .pmu = ops->name,
                          .threads = nthreads > 1, .from = w.from, .ncycles = (uint64_t)ncycles};
    w.out = wave_out_open(&oo, w.sigs, &error);
    g_free(inputs);
    if (!w.out) {
        status = pmusim_cli_fail(error);
        goto out;
    }
    ok = wave_observe(&w, m, run.reader, &error);
    if (!ok) {
        wave_out_abort(w.out);
        w.out = NULL;
        status = pmusim_cli_fail(error);
        goto out;
    }
    if (!wave_out_close(w.out, w.rows, w.last_cycle, w.rows < (uint64_t)ncycles, &error)) {
        w.out = NULL;
        status = pmusim_cli_fail(error);
        goto out;
    }
    w.out = NULL;
    if (fd)
        wave_print_samples(text, fd, w.from, w.to);
out:
    pmusim_frontdoor_free(fd);
    if (w.out)
        wave_out_abort(w.out);
    pmusim_model_free(m);
    g_free(w.row);
    g_array_free(w.sigs, TRUE);
    g_array_free(w.pending, TRUE);
    if (error)
        g_error_free(error);
    pmusim_run_setup_clear(&run);
    g_strfreev(regs_files);
    g_free(pmu_opt);
    g_free(vcd);
    g_free(gtkw);
    g_free(svg);
    pmusim_enc_args_clear(&ea);
    g_option_context_free(ctx);
    return status;
}
