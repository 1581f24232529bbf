/* `pmusim trace`: inspect, dump, convert and generate trace files
 * (traces/FORMAT.md).  Usage errors exit 2, failures exit 1 with
 * "pmusim: FILE: message" on stderr. */
#include "cmds.h"
#include "pmusim/encoder.h"
#include "pmusim/trace.h"
#include "pmusim/tracegen.h"
#include "pmusim/uarch.h"
#include "pmusim/outfile.h"

#include <glib/gstdio.h>
#include <unistd.h>

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#define BATCH 4096

static const char *const trace_usage =
    "pmusim trace info [--strict] FILE\n"
    "pmusim trace dump [--strict] FILE\n"
    "pmusim trace convert IN OUT [--strict] [--to text|binary]\n"
    "                     [--from lackey [--cpu CPU] [--no-model | cache options]]\n"
    "pmusim trace gen --cpu CPU --records N [--workload loop|stream|mixed] [--seed S]\n"
    "                 [--threads T] [--hit-ratio R] [--to text|binary] OUT\n"
    "pmusim trace annotate [OPTIONS] IN OUT\n"
    "pmusim trace capture [OPTIONS] -- PROGRAM [ARGS...]\n"
    "'pmusim help trace SUBCOMMAND' describes each one.";

static void progress_line(uint64_t done, uint64_t total, void *user)
{
    const char *what = user;
    if (total)
        fprintf(stderr, "\r%s: %" PRIu64 " / %" PRIu64 " records (%3.0f%%)", what, done, total,
                100.0 * (double)done / (double)total);
    else
        fprintf(stderr, "\r%s: %" PRIu64 " records", what, done);
    if (total && done >= total)
        fputc('\n', stderr);
    fflush(stderr);
}

/* Output form: --to wins, else by extension (.txt is text). */
static gboolean pick_form(const char *cmd, const char *to, const char *out,
                          pmusim_trace_form_t *form, int *status)
{
    if (!to) {
        *form = g_str_has_suffix(out, ".txt") ? PMUSIM_TRACE_TEXT : PMUSIM_TRACE_BINARY;
        return TRUE;
    }
    if (!strcmp(to, "text")) {
        *form = PMUSIM_TRACE_TEXT;
    } else if (!strcmp(to, "binary")) {
        *form = PMUSIM_TRACE_BINARY;
    } else {
        *status = pmusim_cli_usage(cmd, "--to must be text or binary, not '%s'", to);
        return FALSE;
    }
    return TRUE;
}

/* --strict: a text trace without its end line is an error, not a warning
 * (traces/FORMAT.md §5). */
static gboolean opt_strict;
#define STRICT_ENTRY                                                                       \
    { "strict", 0, 0, G_OPTION_ARG_NONE, &opt_strict,                                      \
      "a text trace without its end line is an error (default: a warning)", NULL }

static pmusim_trace_reader_t *open_input(const char *path, GError **error)
{
    return pmusim_trace_reader_open_ex(path, opt_strict ? PMUSIM_TRACE_OPEN_STRICT : 0, error);
}

/* Parses the options of one subcommand; on failure sets *status. */
static gboolean parse_opts(const char *cmd, const char *params, GOptionEntry *entries,
                           const char *description, int *argc, char ***argv, int *status)
{
    GOptionContext *ctx = g_option_context_new(params);
    g_option_context_set_summary(ctx, trace_usage);
    if (description) /* else the examples of cli_util.c */
        g_option_context_set_description(ctx, description);
    if (entries)
        g_option_context_add_main_entries(ctx, entries, NULL);
    GError *error = NULL;
    gboolean ok = pmusim_cli_parse(ctx, cmd, argc, argv, &error);
    g_option_context_free(ctx);
    if (!ok) {
        *status = pmusim_cli_usage(cmd, "%s", error->message);
        g_error_free(error);
    }
    return ok;
}

static void free_opts_strings(GOptionEntry *entries)
{
    for (GOptionEntry *e = entries; e && e->long_name; e++)
        if (e->arg == G_OPTION_ARG_STRING || e->arg == G_OPTION_ARG_FILENAME)
            g_free(*(char **)e->arg_data);
}

/* Copies every record and symbol of r to w; symbols keep their place because
 * a batch never extends past a symbol. */
static gboolean copy_trace(pmusim_trace_reader_t *r, pmusim_trace_writer_t *w, GError **error)
{
    pmusim_rec_t *recs = g_new(pmusim_rec_t, BATCH);
    guint nsym = 0;
    gboolean progress = pmusim_cli_show_progress();
    uint64_t next_progress = 1u << 20;
    gboolean ok = TRUE;
    for (;;) {
        gssize n = pmusim_trace_reader_next_batch(r, recs, BATCH, error);
        if (n < 0) {
            ok = FALSE;
            break;
        }
        const GArray *syms = pmusim_trace_reader_symbols(r);
        for (; ok && nsym < syms->len; nsym++) {
            const pmusim_symbol_t *s = &g_array_index(syms, pmusim_symbol_t, nsym);
            ok = pmusim_trace_writer_add_symbol(w, s->start, s->end, s->name, error);
        }
        if (!ok)
            break;
        if (n == 0)
            break;
        if (!pmusim_trace_writer_write(w, recs, (size_t)n, error)) {
            ok = FALSE;
            break;
        }
        uint64_t done = pmusim_trace_reader_records_read(r);
        if (progress && done >= next_progress) {
            progress_line(done, 0, "convert");
            next_progress = done + (1u << 20);
        }
    }
    if (progress && next_progress > (1u << 20))
        fputc('\n', stderr);
    g_free(recs);
    return ok;
}

/* Closes w: on success puts the output in place, on failure discards it
 * (the destination is never truncated or removed, traces/outfile.c). */
static int finish_writer(pmusim_trace_writer_t *w, gboolean ok, GError *error)
{
    if (!ok) {
        pmusim_trace_writer_abort(w);
    } else if (!pmusim_trace_writer_close(w, &error)) {
        ok = FALSE;
    }
    if (!ok) {
        int st = pmusim_cli_fail(error);
        g_clear_error(&error);
        return st;
    }
    return 0;
}

static int cmd_dump(int argc, char **argv)
{
    int status = 0;
    GOptionEntry entries[] = { STRICT_ENTRY, { NULL, 0, 0, 0, NULL, NULL, NULL } };
    if (!parse_opts("trace dump", "FILE", entries, NULL, &argc, &argv, &status))
        return status;
    if (argc != 3)
        return pmusim_cli_usage("trace dump", "expected exactly one FILE");
    GError *error = NULL;
    pmusim_trace_reader_t *r = open_input(argv[2], &error);
    if (!r) {
        status = pmusim_cli_fail(error);
        g_clear_error(&error);
        return status;
    }
    pmusim_trace_writer_t *w = pmusim_trace_writer_open("-", PMUSIM_TRACE_TEXT,
                                                        pmusim_trace_reader_header(r), &error);
    if (!w) {
        pmusim_trace_reader_free(r);
        status = pmusim_cli_fail(error);
        g_clear_error(&error);
        return status;
    }
    gboolean ok = copy_trace(r, w, &error);
    pmusim_trace_reader_free(r);
    return finish_writer(w, ok, error);
}

static int convert_lackey(const char *in, const char *out, pmusim_trace_form_t form,
                          const char *cpu_name)
{
    pmusim_cpu_t cpu = pmusim_cpu_from_name(cpu_name ? cpu_name : "wsm");
    if (pmusim_cpu_isa(cpu) != PMUSIM_ISA_X86_64)
        return pmusim_cli_usage("trace convert",
                                "--cpu must be an x86_64 model (wsm, wsm_dp, knm) for lackey");
    pmusim_trace_header_t h;
    pmusim_trace_header_init(&h, cpu, 1);
    pmusim_trace_header_set_meta(&h, "generator", "pmusim trace convert --from lackey");
    pmusim_trace_header_set_meta(&h, "program", in);
    /* lackey gives every access but no cache level, timing, branch kind or
     * prediction: the models must not read the placeholders as facts */
    pmusim_trace_header_set_annotations(&h, PMUSIM_ANN_ALLMEM);
    GError *error = NULL;
    const char *inputs[] = { in, NULL };
    pmusim_trace_writer_t *w = pmusim_trace_writer_open_checked(out, form, &h, inputs, &error);
    pmusim_trace_header_clear(&h);
    if (!w) {
        int st = pmusim_cli_fail(error);
        g_clear_error(&error);
        return st;
    }
    pmusim_lackey_stats_t st;
    gboolean ok = pmusim_trace_convert_lackey(in, w, &st, &error);
    if (ok && pmusim_cli_show_progress())
        fprintf(stderr,
                "lackey: %" PRIu64 " instructions, %" PRIu64 " accesses (%" PRIu64
                " beyond an instruction's first, as MEM records), %" PRIu64 " branches\n",
                st.instructions, st.accesses, st.extra_accesses, st.branches);
    return finish_writer(w, ok, error);
}

/* `--from lackey` runs the converted stream through the microarchitecture
 * model, as `trace annotate` does (unless --no-model): lackey's log holds
 * addresses and instruction boundaries only.  The raw conversion goes to a
 * temporary file that annotate reads; cachegrind-spelled geometry options
 * (`uarch_args`) are handed to annotate. */
static int convert_lackey_modelled(const char *in, const char *out, const char *to,
                                   const char *cpu, GPtrArray *uarch_args)
{
    char *tmp = NULL;
    GError *error = NULL;
    if (strcmp(out, "-") != 0 && pmusim_outfile_same_file(in, out)) {
        fprintf(stderr, "pmusim: %s: refusing to write the output over the input %s (same file)\n",
                out, in);
        return 1;
    }
    int fd = g_file_open_tmp("pmusim-lackey-XXXXXX.pmt", &tmp, &error);
    if (fd < 0) {
        int st = pmusim_cli_fail(error);
        g_clear_error(&error);
        return st;
    }
    close(fd);
    int status = convert_lackey(in, tmp, PMUSIM_TRACE_BINARY, cpu);
    if (status == 0) {
        GPtrArray *av = g_ptr_array_new();
        g_ptr_array_add(av, (char *)"trace");
        g_ptr_array_add(av, (char *)"annotate");
        g_ptr_array_add(av, tmp);
        g_ptr_array_add(av, (char *)out);
        if (to) {
            g_ptr_array_add(av, (char *)"--to");
            g_ptr_array_add(av, (char *)to);
        }
        for (guint i = 0; i < uarch_args->len; i++)
            g_ptr_array_add(av, g_ptr_array_index(uarch_args, i));
        g_ptr_array_add(av, NULL);
        status = pmusim_cmd_trace_annotate((int)av->len - 1, (char **)av->pdata);
        g_ptr_array_free(av, TRUE);
    }
    g_unlink(tmp);
    g_free(tmp);
    return status;
}

/* Moves the microarchitecture options (--I1=..., --D1 ..., --L2=none ...)
 * out of argv, for `convert --from lackey`. */
static GPtrArray *take_uarch_args(int *argc, char **argv)
{
    static const char *const names[] = {"--I1", "--D1", "--L2", "--LL", "--numa", "--knm-memory"};
    GPtrArray *out = g_ptr_array_new();
    int k = 0;
    for (int i = 0; i < *argc; i++) {
        gboolean hit = FALSE;
        for (unsigned n = 0; n < G_N_ELEMENTS(names); n++) {
            size_t len = strlen(names[n]);
            if (strncmp(argv[i], names[n], len) == 0 && (argv[i][len] == '=' || !argv[i][len])) {
                hit = TRUE;
                g_ptr_array_add(out, argv[i]);
                if (!argv[i][len] && i + 1 < *argc)
                    g_ptr_array_add(out, argv[++i]);
            }
        }
        if (!hit)
            argv[k++] = argv[i];
    }
    *argc = k;
    argv[k] = NULL;
    return out;
}

static int cmd_convert(int argc, char **argv)
{
    char *to = NULL, *from = NULL, *cpu = NULL;
    gboolean no_model = FALSE;
    GPtrArray *uarch_args = take_uarch_args(&argc, argv);
    GOptionEntry entries[] = {
        { "to", 0, 0, G_OPTION_ARG_STRING, &to, "output form (default: .txt -> text, else binary)",
          "text|binary" },
        { "from", 0, 0, G_OPTION_ARG_STRING, &from, "input is another tool's output", "lackey" },
        { "cpu", 0, 0, G_OPTION_ARG_STRING, &cpu, "CPU model for --from lackey (default wsm)",
          "CPU" },
        { "no-model", 0, 0, G_OPTION_ARG_NONE, &no_model,
          "--from lackey: keep lackey's facts only, without the microarchitecture model "
          "(no cache levels, timing or prediction)", NULL },
        STRICT_ENTRY,
        { NULL, 0, 0, 0, NULL, NULL, NULL },
    };
    int status = 0;
    pmusim_trace_form_t form = PMUSIM_TRACE_BINARY;
    /* the cache options are taken out of argv before GLib sees them: the
     * help lists them with the examples */
    char *description = g_strconcat(
        "With --from lackey, the cache options of 'pmusim trace annotate':\n",
        pmusim_uarch_options_help(), "\n"
        "Examples:\n"
        "  pmusim trace convert traces/samples/wsm_loop.txt loop.pmt\n"
        "  pmusim trace convert --from lackey --cpu wsm --D1=8192,2,64 \\\n"
        "      tests/unit/trace/data/lackey_true.log true.pmt", NULL);
    gboolean parsed = parse_opts("trace convert", "IN OUT", entries, description, &argc, &argv,
                                 &status);
    g_free(description);
    if (!parsed)
        goto out;
    if (argc != 4) {
        status = pmusim_cli_usage("trace convert", "expected IN and OUT");
        goto out;
    }
    if (!pick_form("trace convert", to, argv[3], &form, &status))
        goto out;
    if (from) {
        if (strcmp(from, "lackey") != 0)
            status = pmusim_cli_usage("trace convert", "--from knows only 'lackey', not '%s'",
                                      from);
        else if (no_model && uarch_args->len)
            status = pmusim_cli_usage("trace convert", "--no-model takes no cache options");
        else if (no_model)
            status = convert_lackey(argv[2], argv[3], form, cpu);
        else
            status = convert_lackey_modelled(argv[2], argv[3], to, cpu ? cpu : "wsm", uarch_args);
        goto out;
    }
    if (uarch_args->len) {
        status = pmusim_cli_usage("trace convert", "cache options go with --from lackey "
                                  "(or use 'pmusim trace annotate')");
        goto out;
    }
    if (cpu) {
        status = pmusim_cli_usage("trace convert", "--cpu goes with --from lackey");
        goto out;
    }
    GError *error = NULL;
    pmusim_trace_reader_t *r = open_input(argv[2], &error);
    if (!r) {
        status = pmusim_cli_fail(error);
        g_clear_error(&error);
        goto out;
    }
    const char *inputs[] = { argv[2], NULL };
    pmusim_trace_writer_t *w = pmusim_trace_writer_open_checked(
        argv[3], form, pmusim_trace_reader_header(r), inputs, &error);
    if (!w) {
        pmusim_trace_reader_free(r);
        status = pmusim_cli_fail(error);
        g_clear_error(&error);
        goto out;
    }
    gboolean ok = copy_trace(r, w, &error);
    pmusim_trace_reader_free(r);
    status = finish_writer(w, ok, error);
out:
    g_ptr_array_free(uarch_args, TRUE);
    free_opts_strings(entries);
    return status;
}

static gboolean parse_u64_arg(const char *s, uint64_t *v)
{
    if (!s)
        return FALSE;
    if (g_ascii_string_to_unsigned(s, 10, 0, UINT64_MAX, v, NULL))
        return TRUE;
    /* also 1e8-style counts: any whole number below 2^64, in decimal (not
     * strtod's hex, "inf", or blanks) */
    if (strspn(s, "0123456789.eE+") != strlen(s))
        return FALSE;
    char *end;
    double d = g_ascii_strtod(s, &end);
    if (*end || end == s || !(d >= 0 && d < 18446744073709551616.0) || d != (double)(uint64_t)d)
        return FALSE;
    *v = (uint64_t)d;
    return TRUE;
}

static int cmd_gen(int argc, char **argv)
{
    char *cpu = NULL, *workload = NULL, *records = NULL, *seed = NULL, *threads = NULL,
         *hit = NULL, *to = NULL;
    GOptionEntry entries[] = {
        { "cpu", 0, 0, G_OPTION_ARG_STRING, &cpu, "CPU model (sets the ISA)",
          "ita2|mont|wsm|wsm_dp|knm" },
        { "workload", 0, 0, G_OPTION_ARG_STRING, &workload, "workload kind (default loop)",
          "loop|stream|mixed" },
        { "records", 0, 0, G_OPTION_ARG_STRING, &records, "number of records", "N" },
        { "seed", 0, 0, G_OPTION_ARG_STRING, &seed, "random seed (default 1)", "S" },
        { "threads", 0, 0, G_OPTION_ARG_STRING, &threads, "hardware threads (default: CPU's)",
          "T" },
        { "hit-ratio", 0, 0, G_OPTION_ARG_STRING, &hit, "fraction of L1D hits, 0..1", "R" },
        { "to", 0, 0, G_OPTION_ARG_STRING, &to, "output form (default: .txt -> text, else binary)",
          "text|binary" },
        { NULL, 0, 0, 0, NULL, NULL, NULL },
    };
    int status = 0;
    pmusim_gen_params_t p;
    pmusim_trace_form_t form = PMUSIM_TRACE_BINARY;
    if (!parse_opts("trace gen", "OUT", entries, NULL, &argc, &argv, &status))
        goto out;
    if (argc != 3) {
        status = pmusim_cli_usage("trace gen", "expected exactly one OUT file");
        goto out;
    }
    if (!cpu || pmusim_cpu_isa(pmusim_cpu_from_name(cpu)) == PMUSIM_ISA_NONE) {
        status = pmusim_cli_usage("trace gen", "--cpu must be ita2, mont, wsm, wsm_dp or knm");
        goto out;
    }
    pmusim_gen_params_init(&p, pmusim_cpu_from_name(cpu));
    if (workload && !pmusim_gen_workload_from_name(workload, &p.workload)) {
        status = pmusim_cli_usage("trace gen", "--workload must be loop, stream or mixed");
        goto out;
    }
    uint64_t v;
    if (!records) {
        status = pmusim_cli_usage("trace gen", "--records N is required (N >= 1)");
        goto out;
    }
    if (!parse_u64_arg(records, &p.records) || p.records < 1) {
        status = pmusim_cli_usage("trace gen",
                                  "--records must be a whole number from 1 to 2^64-1 (e.g. "
                                  "1000000 or 1e6), not '%s'", records);
        goto out;
    }
    if (seed && !parse_u64_arg(seed, &p.seed)) {
        status = pmusim_cli_usage("trace gen", "--seed must be a whole number from 0 to "
                                  "2^64-1, not '%s'", seed);
        goto out;
    }
    if (threads) {
        if (!parse_u64_arg(threads, &v) || v < 1 || v > PMUSIM_MAX_THREADS) {
            status = pmusim_cli_usage("trace gen", "--threads must be 1..8, not '%s'", threads);
            goto out;
        }
        p.threads = (uint32_t)v;
    }
    if (hit) {
        char *end;
        p.hit_ratio = g_ascii_strtod(hit, &end);
        if (*end || end == hit || !(p.hit_ratio >= 0 && p.hit_ratio <= 1)) {
            status = pmusim_cli_usage("trace gen", "--hit-ratio must be a number within 0..1");
            goto out;
        }
    }
    if (!pick_form("trace gen", to, argv[2], &form, &status))
        goto out;
    if (pmusim_cli_show_progress()) {
        p.progress = progress_line;
        p.progress_data = (void *)"gen";
    }
    GError *error = NULL;
    pmusim_trace_header_t h;
    if (!pmusim_gen_header(&p, &h, &error)) {
        status = pmusim_cli_usage("trace gen", "%s", error->message);
        g_clear_error(&error);
        goto out;
    }
    pmusim_trace_writer_t *w = pmusim_trace_writer_open(argv[2], form, &h, &error);
    pmusim_trace_header_clear(&h);
    if (!w) {
        status = pmusim_cli_fail(error);
        g_clear_error(&error);
        goto out;
    }
    gboolean ok = pmusim_gen_run(&p, w, &error);
    status = finish_writer(w, ok, error);
out:
    free_opts_strings(entries);
    return status;
}

typedef struct trace_stats {
    uint64_t kinds[PMUSIM_REC_MEM + 1];
    uint64_t insn_thread[PMUSIM_MAX_THREADS];
    uint64_t idle_cycles;
    /* the span is [0, last + 1) when `any`: kept as the last cycle so that a
     * record at cycle 2^64-1 (span 2^64, one more than uint64_t holds) is exact */
    gboolean any;
    uint64_t last;
    uint64_t loads[PMUSIM_LVL_COUNT], stores[PMUSIM_LVL_COUNT];
    uint64_t dep_loads, dep_prev; /* loads with mem.dep, and with 1 (the previous load) */
    uint64_t branches, taken, mispred, offcore, event_occ;
} trace_stats_t;

static void stats_add(trace_stats_t *s, const pmusim_rec_t *r, size_t n)
{
    for (size_t i = 0; i < n; i++, r++) {
        s->kinds[r->kind]++;
        /* IDLE n >= 1 and cycle + n <= 2^64 - 1 (the reader checks both) */
        uint64_t last = r->cycle + (r->kind == PMUSIM_REC_IDLE ? r->n - 1 : 0);
        if (!s->any || last > s->last)
            s->last = last;
        s->any = TRUE;
        switch (r->kind) {
        case PMUSIM_REC_INSN:
            s->insn_thread[r->thread]++;
            if (r->flags & PMUSIM_F_MEM) {
                (r->mem.is_store ? s->stores : s->loads)[r->mem.level]++;
                s->dep_loads += r->mem.dep != 0;
                s->dep_prev += r->mem.dep == 1;
            }
            if (r->flags & PMUSIM_F_BRANCH) {
                s->branches++;
                s->taken += r->br.taken;
                s->mispred += !r->br.dir_ok || !r->br.tgt_ok;
            }
            s->offcore += (r->flags & PMUSIM_F_OFFCORE) != 0;
            break;
        case PMUSIM_REC_MEM:
            (r->mem.is_store ? s->stores : s->loads)[r->mem.level]++;
            s->dep_loads += r->mem.dep != 0;
            s->dep_prev += r->mem.dep == 1;
            break;
        case PMUSIM_REC_IDLE: s->idle_cycles += r->n; break;
        case PMUSIM_REC_EVENT: s->event_occ += r->n; break;
        default: break;
        }
    }
}

static int cmd_info(int argc, char **argv)
{
    int status = 0;
    GOptionEntry entries[] = { STRICT_ENTRY, { NULL, 0, 0, 0, NULL, NULL, NULL } };
    if (!parse_opts("trace info", "FILE", entries, NULL, &argc, &argv, &status))
        return status;
    if (argc != 3)
        return pmusim_cli_usage("trace info", "expected exactly one FILE");
    GError *error = NULL;
    pmusim_trace_reader_t *r = open_input(argv[2], &error);
    if (!r) {
        status = pmusim_cli_fail(error);
        g_clear_error(&error);
        return status;
    }
    pmusim_rec_t *recs = g_new(pmusim_rec_t, BATCH);
    trace_stats_t s;
    memset(&s, 0, sizeof s);
    gssize n;
    while ((n = pmusim_trace_reader_next_batch(r, recs, BATCH, &error)) > 0)
        stats_add(&s, recs, (size_t)n);
    g_free(recs);
    if (n < 0) {
        pmusim_trace_reader_free(r);
        status = pmusim_cli_fail(error);
        g_clear_error(&error);
        return status;
    }
    const pmusim_trace_header_t *h = pmusim_trace_reader_header(r);
    printf("file: %s (%s)\n", argv[2], pmusim_trace_reader_is_binary(r) ? "binary" : "text");
    printf("version: %u\nisa: %s\ncpu: %s\nthreads: %u\nflags: 0x%x\n", h->version,
           pmusim_isa_name(h->isa), pmusim_cpu_name(h->cpu), h->nthreads, h->flags);
    for (guint i = 0; i < h->meta_keys->len; i++)
        printf("meta %s: %s\n", (char *)g_ptr_array_index(h->meta_keys, i),
               (char *)g_ptr_array_index(h->meta_values, i));
    printf("records: %" PRIu64 "\n", pmusim_trace_reader_records_read(r));
    for (unsigned k = PMUSIM_REC_INSN; k <= PMUSIM_REC_MEM; k++)
        printf("  %s: %" PRIu64 "\n", pmusim_rec_kind_name(k), s.kinds[k]);
    for (unsigned t = 0; t < h->nthreads; t++)
        printf("instructions thread %u: %" PRIu64 "\n", t, s.insn_thread[t]);
    char span[32];
    if (!s.any)
        g_strlcpy(span, "0", sizeof span);
    else if (s.last == UINT64_MAX)
        g_strlcpy(span, "18446744073709551616", sizeof span); /* 2^64 */
    else
        g_snprintf(span, sizeof span, "%" PRIu64, s.last + 1);
    printf("cycles: %s (span [0, %s))\n", span, span);
    printf("idle cycles (IDLE records): %" PRIu64 "\n", s.idle_cycles);
    for (int st = 0; st < 2; st++) {
        printf("%s:", st ? "stores" : "loads");
        /* lfb, a line fill buffer, is an x86 level */
        const unsigned nl = h->isa == PMUSIM_ISA_IA64 ? PMUSIM_LVL_LFB : PMUSIM_LVL_COUNT;
        for (unsigned l = 0; l < nl; l++)
            printf(" %s=%" PRIu64, pmusim_mem_level_name(l), (st ? s.stores : s.loads)[l]);
        printf("\n");
    }
    /* only for a trace that has them (the `dep` annotation, a capture's):
     * the output of every other trace stays as it was */
    if (s.dep_loads)
        printf("loads whose address depends on an earlier load: %" PRIu64
               " (on the previous load: %" PRIu64 ")\n", s.dep_loads, s.dep_prev);
    printf("branches: %" PRIu64 " (taken %" PRIu64 ", mispredicted %" PRIu64 ")\n", s.branches,
           s.taken, s.mispred);
    printf("offcore requests: %" PRIu64 "\nevent occurrences: %" PRIu64 "\n", s.offcore,
           s.event_occ);
    const GArray *syms = pmusim_trace_reader_symbols(r);
    printf("symbols: %u\n", syms->len);
    for (guint i = 0; i < syms->len; i++) {
        const pmusim_symbol_t *sym = &g_array_index(syms, pmusim_symbol_t, i);
        printf("  0x%" PRIx64 "-0x%" PRIx64 " %s\n", sym->start, sym->end, sym->name);
    }
    pmusim_trace_reader_free(r);
    return 0;
}

int pmusim_cmd_trace(int argc, char **argv)
{
    /* every form of help the other commands take (the completion script
     * reads `pmusim CMD --help-all`) */
    if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") ||
        !strcmp(argv[1], "-?") || !strcmp(argv[1], "--help-all")) {
        if (argc >= 2) {
            printf("%s\n", trace_usage);
            return 0;
        }
        return pmusim_cli_usage("trace", "expected a subcommand: info, dump, convert, gen, "
                                         "annotate, capture");
    }
    const char *sub = argv[1];
    if (!strcmp(sub, "info"))
        return cmd_info(argc, argv);
    if (!strcmp(sub, "dump"))
        return cmd_dump(argc, argv);
    if (!strcmp(sub, "convert"))
        return cmd_convert(argc, argv);
    if (!strcmp(sub, "gen"))
        return cmd_gen(argc, argv);
    if (!strcmp(sub, "annotate")) return pmusim_cmd_trace_annotate(argc, argv);
    if (!strcmp(sub, "capture")) return pmusim_cmd_trace_capture(argc, argv);
    static const char *const subs[] = {"info", "dump", "convert", "gen", "annotate", "capture"};
    char *dym = pmusim_suggest_text(sub, subs, G_N_ELEMENTS(subs));
    int r = pmusim_cli_usage("trace", "unknown subcommand '%s' (%s%sexpected info, dump, convert, "
                             "gen, annotate, capture)", sub, dym ? dym : "", dym ? " " : "");
    g_free(dym);
    return r;
}
