/* `pmusim trace annotate IN OUT [--cpu CPU] [--to text|binary] [uarch options]`:
 * runs a trace's instruction stream through the microarchitecture model
 * (include/pmusim/uarch.h, docs/UARCH.md) and writes the annotated trace.
 *
 * Kept from IN: ip, len, plm, thread, IA-64 slot/unit/encoding, the NOP /
 * predicated-off / IA-32 / FP flags, branch kind, direction and target, every
 * memory address, size and direction (INSN and MEM records), ALAT outcomes,
 * markers and symbols.  Recomputed: cycles, IDLE gaps, THREAD switches
 * (Montecito), cache levels, latencies, TLB outcomes, prediction, offcore
 * requests.  EVENT records: those a model made (the header's annotations
 * list "events") are dropped and made again; explicit ones of a trace
 * without an annotations key pass through.  Usage errors exit 2, failures 1. */
#include "cmds.h"
#include "pmusim/trace.h"
#include "pmusim/uarch.h"
#include "wqueue.h"

#include <inttypes.h>
#include <string.h>

#define ANNOTATE_BATCH 4096

static const char *const annotate_usage =
    "pmusim trace annotate IN OUT [--cpu CPU] [--to text|binary] [--I1=SIZE,ASSOC,LINE]\n"
    "                      [--D1=SIZE,ASSOC,LINE] [--L2=SIZE,ASSOC,LINE|none]\n"
    "                      [--LL=SIZE,ASSOC,LINE] [--numa=local|interleave]\n"
    "                      [--knm-memory=ddr|mcdram] [--stats]";

typedef struct annotate {
    pmusim_trace_writer_t *w;
    pmusim_wqueue_t *q;     /* the writer's thread (sim/cli/wqueue.h) */
    pmusim_uarch_t *u;
    pmusim_uarch_insn_t in;
    pmusim_uarch_access_t acc[PMUSIM_UARCH_MAX_ACCESSES];
    gboolean pending;
    uint64_t dropped_mem; /* MEM records beyond the per-instruction maximum */
} annotate_t;

static gboolean annotate_sink(const pmusim_rec_t *recs, size_t n, void *user, GError **error)
{
    annotate_t *a = user;
    return pmusim_wqueue_write(a->q, recs, n, error);
}

static gboolean flush_pending(annotate_t *a, GError **error)
{
    if (!a->pending)
        return TRUE;
    a->pending = FALSE;
    return pmusim_uarch_insn(a->u, &a->in, error);
}

/* Feeds one batch of input records to the model. */
static gboolean annotate_batch(annotate_t *a, const pmusim_rec_t *recs, size_t n,
                               gboolean pass_events, GError **error)
{
    for (size_t i = 0; i < n; i++) {
        const pmusim_rec_t *r = &recs[i];
        switch (r->kind) {
        case PMUSIM_REC_INSN:
            if (!flush_pending(a, error))
                return FALSE;
            pmusim_uarch_insn_from_rec(r, &a->in, a->acc);
            a->pending = TRUE;
            break;
        case PMUSIM_REC_MEM:
            if (a->pending && r->thread == a->in.thread) {
                if (!pmusim_uarch_insn_add_mem(&a->in, a->acc, r))
                    a->dropped_mem++;
            }
            break;
        case PMUSIM_REC_MARKER:
            if (!flush_pending(a, error) || !pmusim_uarch_passthrough(a->u, r, error))
                return FALSE;
            break;
        case PMUSIM_REC_EVENT:
            if (pass_events &&
                (!flush_pending(a, error) || !pmusim_uarch_passthrough(a->u, r, error)))
                return FALSE;
            break;
        default: /* IDLE, THREAD: the model makes its own */
            break;
        }
    }
    return TRUE;
}

/* The output header: IN's metadata without its old model description, the
 * model's annotations restricted to what IN's producer knew. */
static void annotate_header(const pmusim_trace_header_t *src, pmusim_cpu_t cpu,
                            const pmusim_uarch_t *u, pmusim_trace_header_t *h)
{
    pmusim_trace_header_init(h, cpu, src->nthreads);
    h->flags = src->flags;
    for (guint i = 0; i < src->meta_keys->len; i++) {
        const char *k = g_ptr_array_index(src->meta_keys, i);
        if (!strcmp(k, "annotations") || !strcmp(k, "uarch") || g_str_has_prefix(k, "uarch."))
            continue;
        pmusim_trace_header_set_meta(h, k, g_ptr_array_index(src->meta_values, i));
    }
    pmusim_trace_header_set_meta(h, "annotated-by", "pmusim trace annotate");
    pmusim_uarch_header(u, h);
    /* what only the input can know: branch kinds, every access, FP, uops,
     * ALAT outcomes, symbols */
    const uint32_t from_input = PMUSIM_ANN_BRKIND | PMUSIM_ANN_ALLMEM | PMUSIM_ANN_FP |
                                PMUSIM_ANN_SYMBOLS |
                                (pmusim_cpu_isa(cpu) == PMUSIM_ISA_IA64 ? PMUSIM_ANN_ALAT
                                                                        : PMUSIM_ANN_UOPS);
    uint32_t have = pmusim_trace_header_annotations(src);
    uint32_t model = pmusim_trace_header_annotations(h);
    pmusim_trace_header_set_annotations(h, (model & ~from_input) | (have & from_input));
}

static int annotate_fail(GError *error)
{
    int st = pmusim_cli_fail(error);
    g_error_free(error);
    return st;
}

int pmusim_cmd_trace_annotate(int argc, char **argv)
{
    GError *error = NULL;
    pmusim_uarch_options_t uo;
    pmusim_uarch_options_init(&uo);
    if (!pmusim_uarch_options_parse_argv(&uo, &argc, argv, &error)) {
        int st = pmusim_cli_usage("trace annotate", "%s", error->message);
        g_error_free(error);
        return st;
    }
    char *cpu_name = NULL, *to = NULL;
    gboolean stats = FALSE;
    GOptionEntry entries[] = {
        { "cpu", 0, 0, G_OPTION_ARG_STRING, &cpu_name, "CPU model (default: the trace's)",
          "CPU" },
        { "to", 0, 0, G_OPTION_ARG_STRING, &to, "output form (default: .txt -> text, else binary)",
          "text|binary" },
        { "stats", 0, 0, G_OPTION_ARG_NONE, &stats, "print the model's totals on stderr", NULL },
        { NULL, 0, 0, 0, NULL, NULL, NULL },
    };
    GOptionContext *ctx = g_option_context_new("IN OUT");
    g_option_context_set_summary(ctx, annotate_usage);
    g_option_context_set_description(ctx, pmusim_uarch_options_help());
    g_option_context_add_main_entries(ctx, entries, NULL);
    gboolean parsed = pmusim_cli_parse(ctx, "trace annotate", &argc, &argv, &error);
    g_option_context_free(ctx);
    int status = 0;
    pmusim_trace_reader_t *r = NULL;
    annotate_t a;
    memset(&a, 0, sizeof a);
    if (!parsed) {
        status = pmusim_cli_usage("trace annotate", "%s", error->message);
        g_clear_error(&error);
        goto out;
    }
    if (argc != 4) {
        status = pmusim_cli_usage("trace annotate", "expected IN and OUT");
        goto out;
    }
    const char *in_path = argv[2], *out_path = argv[3];
    pmusim_trace_form_t form = g_str_has_suffix(out_path, ".txt") ? PMUSIM_TRACE_TEXT
                                                                 : PMUSIM_TRACE_BINARY;
    if (to && strcmp(to, "text") && strcmp(to, "binary")) {
        status = pmusim_cli_usage("trace annotate", "--to must be text or binary, not '%s'", to);
        goto out;
    }
    if (to)
        form = !strcmp(to, "text") ? PMUSIM_TRACE_TEXT : PMUSIM_TRACE_BINARY;
    pmusim_cpu_t cpu = cpu_name ? pmusim_cpu_from_name(cpu_name) : PMUSIM_CPU_NONE;
    if (cpu_name && cpu == PMUSIM_CPU_NONE) {
        status = pmusim_cli_usage("trace annotate",
                                  "--cpu must be ita2, mont, wsm, wsm_dp or knm, not '%s'",
                                  cpu_name);
        goto out;
    }
    r = pmusim_trace_reader_open(in_path, &error);
    if (!r) {
        status = annotate_fail(error);
        goto out;
    }
    const pmusim_trace_header_t *src = pmusim_trace_reader_header(r);
    if (cpu == PMUSIM_CPU_NONE)
        cpu = src->cpu;
    if (pmusim_cpu_isa(cpu) == PMUSIM_ISA_NONE) {
        status = pmusim_cli_usage("trace annotate", "%s: the trace names no CPU: give --cpu",
                                  in_path);
        goto out;
    }
    if (pmusim_cpu_isa(cpu) != src->isa) {
        status = pmusim_cli_usage("trace annotate",
                                  "%s: an %s trace cannot run on %s (an %s CPU)", in_path,
                                  pmusim_isa_name(src->isa), pmusim_cpu_name(cpu),
                                  pmusim_isa_name(pmusim_cpu_isa(cpu)));
        goto out;
    }
    a.u = pmusim_uarch_new(cpu, src->nthreads ? src->nthreads : 1, &uo, annotate_sink, &a,
                           &error);
    if (!a.u) { /* a geometry or thread count this CPU cannot have: a usage error */
        status = pmusim_cli_usage("trace annotate", "%s: %s", in_path, error->message);
        g_error_free(error);
        goto out;
    }
    /* model-made EVENT records are made again; a trace without an
     * annotations key holds explicit ones its author meant */
    gboolean pass_events = pmusim_trace_header_get_meta(src, "annotations") == NULL;
    pmusim_trace_header_t h;
    annotate_header(src, cpu, a.u, &h);
    const char *inputs[] = { in_path, NULL };
    a.w = pmusim_trace_writer_open_checked(out_path, form, &h, inputs, &error);
    pmusim_trace_header_clear(&h);
    if (!a.w) {
        status = annotate_fail(error);
        goto out;
    }
    a.q = pmusim_wqueue_new(a.w);
    pmusim_rec_t *recs = g_new(pmusim_rec_t, ANNOTATE_BATCH);
    guint nsym = 0;
    gboolean ok = TRUE;
    for (;;) {
        gssize n = pmusim_trace_reader_next_batch(r, recs, ANNOTATE_BATCH, &error);
        if (n < 0) {
            ok = FALSE;
            break;
        }
        const GArray *syms = pmusim_trace_reader_symbols(r);
        if (nsym < syms->len) /* the writer is the writer thread's until then */
            ok = pmusim_wqueue_sync(a.q, &error);
        for (; ok && nsym < syms->len; nsym++) {
            const pmusim_symbol_t *s = &g_array_index(syms, pmusim_symbol_t, nsym);
            ok = pmusim_trace_writer_add_symbol(a.w, s->start, s->end, s->name, &error);
        }
        if (!ok || n == 0)
            break;
        if (!annotate_batch(&a, recs, (size_t)n, pass_events, &error)) {
            ok = FALSE;
            break;
        }
    }
    g_free(recs);
    if (ok)
        ok = flush_pending(&a, &error) && pmusim_uarch_finish(a.u, &error) &&
             pmusim_wqueue_sync(a.q, &error);
    pmusim_wqueue_free(a.q);
    a.q = NULL;
    if (!ok) {
        pmusim_trace_writer_abort(a.w);
        status = annotate_fail(error);
        goto out;
    }
    if (!pmusim_trace_writer_close(a.w, &error)) {
        status = annotate_fail(error);
        goto out;
    }
    if (stats || a.dropped_mem) {
        pmusim_uarch_stats_t st;
        pmusim_uarch_get_stats(a.u, &st);
        if (stats)
            fprintf(stderr,
                    "annotate: %" PRIu64 " instructions, %" PRIu64 " records, %" PRIu64
                    " cycles; D1 %" PRIu64 " refs %" PRIu64 " misses; LL %" PRIu64
                    " refs %" PRIu64 " misses; I1 %" PRIu64 " misses; %" PRIu64
                    " conditional branches, %" PRIu64 " mispredicted\n",
                    st.insns, st.records, st.cycles, st.d1_access, st.d1_miss, st.ll_access,
                    st.ll_miss, st.i1_miss, st.cond_branches, st.mispredicts);
        if (a.dropped_mem)
            fprintf(stderr, "pmusim: %s: %" PRIu64 " MEM records beyond %u per instruction "
                    "were not modelled\n", in_path, a.dropped_mem, PMUSIM_UARCH_MAX_ACCESSES);
    }
out:
    pmusim_wqueue_free(a.q);
    pmusim_uarch_free(a.u);
    pmusim_trace_reader_free(r);
    g_free(cpu_name);
    g_free(to);
    return status;
}
