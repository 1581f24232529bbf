/* `pmusim trace annotate IN OUT [--cpu CPU] [--to text|binary] [uarch options]`:
 * runs a trace's instruction stream through the microarchitecture model
 * (include/pmusim/uarch.h, docs/UARCH.md) and writes the annotated trace.
 *
 * Kept from IN: ip, len, plm, thread, IA-64 slot/unit/encoding, the NOP /
 * predicated-off / IA-32 / FP flags, branch kind, direction and target, every
 * memory address, size and direction (INSN and MEM records), ALAT outcomes,
 * markers and symbols, an SMT thread's inactive stretches (THREAD records:
 * re-timed, annotate_thread()).  Recomputed: cycles, IDLE gaps, THREAD
 * switches (Montecito), cache levels, latencies, TLB outcomes, prediction, offcore
 * requests.  EVENT records: those a model made (the header's annotations
 * list "events") are dropped and made again; explicit ones of a trace
 * without an annotations key pass through.  Usage errors exit 2, failures 1. */
#include "cmds.h"
#include "pmusim/trace.h"
#include "pmusim/uarch.h"
#include "afeed.h"
#include "wqueue.h"

#include <inttypes.h>
#include <string.h>

static const char *const annotate_usage =
    "pmusim trace annotate IN OUT [--cpu CPU] [--to text|binary] [--I1=SIZE,ASSOC,LINE]\n"
    "                      [--D1=SIZE,ASSOC,LINE] [--L2=SIZE,ASSOC,LINE|none]\n"
    "                      [--LL=SIZE,ASSOC,LINE] [--numa=local|interleave]\n"
    "                      [--knm-memory=ddr|mcdram] [--stats]";

typedef struct annotate {
    pmusim_trace_writer_t *w;
    pmusim_wqueue_t *q;     /* the writer's thread (sim/cli/wqueue.h) */
    pmusim_uarch_t *u;
    uint32_t nthreads;
    uint32_t asleep;                        /* bit t: thread t sleeps (annotate_thread()) */
    uint64_t slept_at[PMUSIM_MAX_THREADS]; /* IN's cycle of a thread's THREAD inactive */
} annotate_t;

/* Thread t, asleep, wakes where IN made it active at `cycle` (for an
 * instruction of it that came without THREAD active, the caller passes one
 * cycle after IN's inactive): at the latest time of the other threads that
 * are awake, or, with none awake, after IN's stretch.  `asleep` mirrors
 * pmusim_uarch_sleeping() so that annotate_insns() tests one word per
 * instruction only while some thread sleeps. */
static gboolean annotate_wake(annotate_t *a, uint32_t t, uint64_t cycle, GError **error)
{
    a->asleep &= ~(1u << t);
    gboolean others = FALSE;
    uint64_t at = 0;
    for (uint32_t k = 0; k < a->nthreads; k++)
        if (k != t && !pmusim_uarch_sleeping(a->u, k)) {
            others = TRUE;
            at = MAX(at, pmusim_uarch_thread_time(a->u, k));
        }
    if (!others)
        at = pmusim_uarch_sleep_start(a->u, t) +
             (cycle > a->slept_at[t] ? cycle - a->slept_at[t] : 1);
    return pmusim_uarch_wake(a->u, t, at, error);
}

/* The model's pmusim_uarch_insns(), but an instruction of a thread that
 * sleeps (IN made it inactive and gave it an instruction without making it
 * active again: a hand-written trace) wakes it first. */
static gboolean annotate_insns(annotate_t *a, const pmusim_uarch_insn_t *in, size_t n,
                               GError **error)
{
    size_t i = 0;
    while (a->asleep && i < n) {
        size_t j = i;
        while (j < n && !((a->asleep >> in[j].thread) & 1))
            j++;
        if (j == n)
            break;
        if (!pmusim_uarch_insns(a->u, in + i, j - i, error) ||
            !annotate_wake(a, in[j].thread, a->slept_at[in[j].thread] + 1, error))
            return FALSE;
        i = j;
    }
    return pmusim_uarch_insns(a->u, in + i, n - i, error);
}

/* A THREAD record of IN (an SMT CPU): the thread's inactive stretch (a
 * captured thread waiting in a system call, a generated halt) is kept in
 * its place in the instruction stream.  Inactive: the thread sleeps in the
 * model after its instructions so far.  Active: it wakes at the latest
 * time of the other threads that are awake, which have run everything
 * they ran before it in IN — the model's time of IN's wake; with none
 * awake, after as many cycles as IN's stretch lasted (docs/UARCH.md §2). */
static gboolean annotate_thread(annotate_t *a, const pmusim_rec_t *r, GError **error)
{
    const uint32_t t = r->thread;
    if (t >= a->nthreads)
        return TRUE; /* the instructions of such a thread fail in the model */
    if (!r->n) {
        if (pmusim_uarch_sleeping(a->u, t))
            return TRUE;
        a->slept_at[t] = r->cycle;
        a->asleep |= 1u << t;
        return pmusim_uarch_sleep(a->u, t, error);
    }
    if (!pmusim_uarch_sleeping(a->u, t))
        return TRUE;
    return annotate_wake(a, t, r->cycle, error);
}

static gboolean annotate_sink(const pmusim_rec_t *recs, size_t n, void *user, GError **error)
{
    annotate_t *a = user;
    return pmusim_wqueue_write(a->q, recs, n, error);
}

/* The model builds its batches in the writer queue's slots: no copy. */
static pmusim_rec_t *annotate_buffer(size_t n, void *user)
{
    annotate_t *a = user;
    return pmusim_wqueue_buffer(a->q, n);
}

/* One batch of the feed (sim/cli/afeed.h): the symbols the reader found,
 * then the instructions and pass-through records, in order. */
static gboolean annotate_batch(annotate_t *a, pmusim_afeed_batch_t *b, GError **error)
{
    if (b->err) {
        g_propagate_error(error, b->err);
        b->err = NULL;
        return FALSE;
    }
    if (b->nsyms && !pmusim_wqueue_sync(a->q, error)) /* the writer is the writer thread's until then */
        return FALSE;
    for (size_t i = 0; i < b->nsyms; i++)
        if (!pmusim_trace_writer_add_symbol(a->w, b->syms[i].start, b->syms[i].end,
                                            b->syms[i].name, error))
            return FALSE;
    size_t at = 0;
    for (size_t k = 0; k < b->npass; k++) {
        const pmusim_afeed_pass_t *p = &b->pass[k];
        if (!annotate_insns(a, b->insns + at, p->at - at, error) ||
            !(p->rec.kind == PMUSIM_REC_THREAD ? annotate_thread(a, &p->rec, error)
                                               : pmusim_uarch_passthrough(a->u, &p->rec, error)))
            return FALSE;
        at = p->at;
    }
    if (!annotate_insns(a, b->insns + at, b->ninsns - at, error))
        return FALSE;
    return TRUE;
}

/* The output header: IN's metadata without its old model description, the
 * model's annotations restricted to what IN's producer knew. */
static void annotate_header(const pmusim_trace_header_t *src, pmusim_cpu_t cpu,
                            pmusim_uarch_t *u, pmusim_trace_header_t *h)
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
    /* the input's annotations first: the model lists the events it can
     * make of them (the loop stream detector's need branch kinds) */
    pmusim_trace_header_set_annotations(h, pmusim_trace_header_annotations(src));
    pmusim_uarch_header(u, h);
    /* what only the input can know: branch and call kinds, every access,
     * FP and its class, operation kinds, fused pairs, locks, uops, loads'
     * address dependences, branches' and other instructions' dependences,
     * ALAT outcomes, symbols */
    const uint32_t from_input = PMUSIM_ANN_BRKIND | PMUSIM_ANN_ALLMEM | PMUSIM_ANN_FP |
                                PMUSIM_ANN_SYMBOLS | PMUSIM_ANN_CALLKIND | PMUSIM_ANN_FPCLASS |
                                PMUSIM_ANN_OPKIND | PMUSIM_ANN_LOCK | PMUSIM_ANN_FUSE |
                                (pmusim_cpu_isa(cpu) == PMUSIM_ISA_IA64
                                     ? PMUSIM_ANN_ALAT
                                     : PMUSIM_ANN_UOPS | PMUSIM_ANN_DEP | PMUSIM_ANN_BRDEP |
                                           PMUSIM_ANN_RSDEP);
    uint32_t have = pmusim_trace_header_annotations(src);
    uint32_t model = pmusim_trace_header_annotations(h);
    /* the model's store-forwarding blocks need every store and load: an
     * input without allmem (a missing store cannot block) has none */
    if (!(have & PMUSIM_ANN_ALLMEM))
        model &= ~PMUSIM_ANN_STFWD;
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
    char *description = g_strconcat(pmusim_uarch_options_help(), "\n"
        "Examples:\n"
        "  pmusim trace annotate traces/samples/wsm_loop.txt loop.pmt --stats\n"
        "  pmusim trace annotate --cpu wsm_dp --numa=interleave --D1=8192,2,64 --L2=none \\\n"
        "      traces/samples/wsm_loop.txt small.pmt", NULL);
    g_option_context_set_description(ctx, description);
    g_option_context_add_main_entries(ctx, entries, NULL);
    gboolean parsed = pmusim_cli_parse(ctx, "trace annotate", &argc, &argv, &error);
    g_option_context_free(ctx);
    g_free(description);
    int status = 0;
    pmusim_trace_reader_t *r = NULL;
    pmusim_afeed_t *feed = NULL;
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
    pmusim_uarch_set_buffer(a.u, annotate_buffer);
    /* an SMT CPU keeps IN's inactive stretches; Montecito's THREAD records
     * are the model's own thread switches, made again */
    a.nthreads = src->nthreads ? src->nthreads : 1;
    const gboolean pass_threads = cpu != PMUSIM_CPU_ITA2 && cpu != PMUSIM_CPU_MONT;
    feed = pmusim_afeed_new(r, pass_events, pass_threads, a.u);
    gboolean ok = TRUE;
    for (;;) {
        pmusim_afeed_batch_t *b = pmusim_afeed_next(feed);
        ok = annotate_batch(&a, b, &error);
        if (!ok || b->end)
            break;
    }
    if (ok)
        ok = pmusim_uarch_finish(a.u, &error) && pmusim_wqueue_sync(a.q, &error);
    pmusim_afeed_free(feed);
    feed = NULL;
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
    if (stats) {
        pmusim_uarch_stats_t st;
        pmusim_uarch_get_stats(a.u, &st);
        fprintf(stderr,
                "annotate: %" PRIu64 " instructions, %" PRIu64 " records, %" PRIu64
                " cycles; D1 %" PRIu64 " refs %" PRIu64 " misses; LL %" PRIu64
                " refs %" PRIu64 " misses; I1 %" PRIu64 " misses; %" PRIu64
                " conditional branches, %" PRIu64 " mispredicted\n",
                st.insns, st.records, st.cycles, st.d1_access, st.d1_miss, st.ll_access,
                st.ll_miss, st.i1_miss, st.cond_branches, st.mispredicts);
        if (st.moved_up)
            fprintf(stderr,
                    "annotate: %" PRIu64 " instructions of a thread that fell behind were "
                    "moved up by %" PRIu64 " cycles in all (docs/UARCH.md, section 2)\n",
                    st.moved_up, st.moved_up_cycles);
    }
out:
    pmusim_afeed_free(feed); /* before the writer's thread: a failure may leave both running */
    pmusim_wqueue_free(a.q);
    pmusim_uarch_free(a.u);
    pmusim_trace_reader_free(r);
    g_free(cpu_name);
    g_free(to);
    return status;
}
