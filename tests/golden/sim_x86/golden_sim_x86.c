/* Golden cases for the x86 PMU models: each row of cases.txt names a model,
 * a trace (a file, or a generated one) and a register-write file; the runner
 * replays the trace and compares the report with expected/NAME.txt.
 *
 *     PMUSIM_SOURCE_ROOT=ROOT PMUSIM_GOLDEN_CASES=CASES golden-sim-x86
 *
 * (meson test sets both).  PMUSIM_GOLDEN_REGEN=1 rewrites the expected files
 * instead of comparing (never run by CI; review the diff). */
#include <CUnit/CUnit.h>
#include <glib/gstdio.h>
#include <string.h>

#include "pmusim/sim.h"
#include "pmusim/tracegen.h"
#include "cu_main.h"

typedef struct golden_case {
    char *name, *model, *trace, *regs;
    int line;
} golden_case_t;

static const char *g_root;
static char *g_dir; /* directory of the cases file */
static gboolean g_regen;
static GPtrArray *g_cases;

static void golden_case_free(gpointer p)
{
    golden_case_t *c = p;
    g_free(c->name);
    g_free(c->model);
    g_free(c->trace);
    g_free(c->regs);
    g_free(c);
}

/* Writes the generated trace "gen:WORKLOAD:RECORDS:SEED:THREADS" to a
 * temporary file; returns its path (to be removed by the caller). */
static char *golden_generate(const char *spec, pmusim_cpu_t cpu, GError **error)
{
    char **f = g_strsplit(spec, ":", -1);
    char *path = NULL;
    if (g_strv_length(f) != 5) {
        g_set_error(error, G_FILE_ERROR, G_FILE_ERROR_INVAL,
                    "'%s': expected gen:WORKLOAD:RECORDS:SEED:THREADS", spec);
        goto out;
    }
    pmusim_gen_params_t p;
    pmusim_gen_params_init(&p, cpu);
    if (!pmusim_gen_workload_from_name(f[1], &p.workload)) {
        g_set_error(error, G_FILE_ERROR, G_FILE_ERROR_INVAL, "'%s': unknown workload", spec);
        goto out;
    }
    p.records = g_ascii_strtoull(f[2], NULL, 10);
    p.seed = g_ascii_strtoull(f[3], NULL, 10);
    p.threads = (uint32_t)g_ascii_strtoull(f[4], NULL, 10);
    pmusim_trace_header_t h;
    if (!pmusim_gen_header(&p, &h, error))
        goto out;
    int fd = g_file_open_tmp("golden-sim-x86-XXXXXX.pmt", &path, error);
    if (fd < 0) {
        pmusim_trace_header_clear(&h);
        goto out;
    }
    close(fd);
    pmusim_trace_writer_t *w = pmusim_trace_writer_open(path, PMUSIM_TRACE_BINARY, &h, error);
    pmusim_trace_header_clear(&h);
    if (!w || !pmusim_gen_run(&p, w, error) || !pmusim_trace_writer_close(w, error)) {
        if (w && error && !*error)
            pmusim_trace_writer_close(w, NULL);
        g_unlink(path);
        g_free(path);
        path = NULL;
    }
out:
    g_strfreev(f);
    return path;
}

/* Runs one case and prints its report in the golden form. */
static char *golden_run(const golden_case_t *c, GError **error)
{
    const pmusim_model_ops_t *ops = pmusim_model_find(c->model);
    if (!ops) {
        g_set_error(error, G_FILE_ERROR, G_FILE_ERROR_INVAL, "unknown model '%s'", c->model);
        return NULL;
    }
    char *tmp = NULL, *trace_path;
    if (g_str_has_prefix(c->trace, "gen:")) {
        tmp = golden_generate(c->trace, ops->cpu, error);
        if (!tmp)
            return NULL;
        trace_path = g_strdup(tmp);
    } else {
        trace_path = g_build_filename(g_root, c->trace, NULL);
    }
    char *regs_path = g_build_filename(g_dir, "regs", c->regs, NULL);
    GString *out = NULL;
    pmusim_model_t *m = NULL;
    GArray *regs = pmusim_regs_new();
    pmusim_trace_reader_t *r = pmusim_trace_reader_open(trace_path, error);
    if (!r || !pmusim_regs_load(regs_path, regs, error))
        goto done;
    m = pmusim_model_new(c->model, pmusim_trace_reader_header(r)->nthreads, error);
    if (!m || !pmusim_model_write_regs(m, regs, error) ||
        !pmusim_replay(m, r, NULL, NULL, error))
        goto done;
    pmusim_report_t rep;
    pmusim_report_init(&rep);
    m->ops->report(m, &rep);
    out = g_string_new(NULL);
    g_string_append_printf(out, "# %s: model %s, trace %s, regs %s\n", c->name, c->model,
                           c->trace, c->regs);
    g_string_append_printf(out, "cycles %" G_GUINT64_FORMAT "\nrecords %" G_GUINT64_FORMAT "\n",
                           rep.cycles, rep.records);
    for (guint i = 0; i < rep.counters->len; i++) {
        const pmusim_counter_result_t *k = &g_array_index(rep.counters, pmusim_counter_result_t, i);
        if (!k->enabled && k->value == 0)
            continue;
        g_string_append_printf(out,
                               "counter t%u %-16s %14" G_GUINT64_FORMAT " ovf %" G_GUINT64_FORMAT
                               "  %s\n",
                               k->thread, k->reg, k->value, k->overflows, k->event);
        if (k->enabled)
            g_string_append_printf(out, "  source: %s%s\n", k->source,
                                   k->status == PMUSIM_COUNT_NOT_IN_TRACE ? " <not in trace>" : "");
    }
    g_string_append_printf(out, "captures %u\n", rep.captures->len);
    for (guint i = 0; i < rep.captures->len && i < 20; i++)
        g_string_append_printf(out, "  %s\n", (const char *)g_ptr_array_index(rep.captures, i));
    g_string_append_printf(out, "log %u (dropped %" G_GUINT64_FORMAT ")\n", rep.log->len,
                           rep.log_dropped);
    for (guint i = 0; i < rep.log->len && i < 40; i++) {
        const pmusim_sim_event_t *ev = &g_array_index(rep.log, pmusim_sim_event_t, i);
        g_string_append_printf(out, "  %" G_GUINT64_FORMAT " t%u %s\n", ev->cycle, ev->thread,
                               ev->what);
    }
    g_string_append_printf(out, "diags %u\n", rep.diags->len);
    for (guint i = 0; i < rep.diags->len; i++)
        g_string_append_printf(out, "  %s\n", (const char *)g_ptr_array_index(rep.diags, i));
    pmusim_report_clear(&rep);
done:
    if (r)
        pmusim_trace_reader_free(r);
    if (m)
        pmusim_model_free(m);
    g_array_free(regs, TRUE);
    if (tmp) {
        g_unlink(tmp);
        g_free(tmp);
    }
    g_free(trace_path);
    g_free(regs_path);
    return out ? g_string_free(out, FALSE) : NULL;
}

static void golden_test(void)
{
    /* CUnit gives no per-test argument: the test name selects the case */
    const char *name = CU_get_current_test()->pName;
    const golden_case_t *c = NULL;
    for (guint i = 0; i < g_cases->len; i++)
        if (strcmp(((golden_case_t *)g_ptr_array_index(g_cases, i))->name, name) == 0)
            c = g_ptr_array_index(g_cases, i);
    CU_ASSERT_PTR_NOT_NULL_FATAL(c);
    GError *error = NULL;
    char *got = golden_run(c, &error);
    if (!got)
        fprintf(stderr, "cases.txt:%d: %s: %s\n", c->line, c->name,
                error ? error->message : "failed");
    CU_ASSERT_PTR_NOT_NULL_FATAL(got);
    char *exp_path = g_strdup_printf("%s/expected/%s.txt", g_dir, c->name);
    if (g_regen) {
        CU_ASSERT_TRUE(g_file_set_contents(exp_path, got, -1, NULL));
    } else {
        char *want = NULL;
        if (!g_file_get_contents(exp_path, &want, NULL, NULL)) {
            fprintf(stderr, "%s: missing (run with --regen)\n", exp_path);
            CU_FAIL("expected file missing");
        } else if (strcmp(want, got) != 0) {
            fprintf(stderr, "cases.txt:%d: %s differs from %s; got:\n%s\n", c->line, c->name,
                    exp_path, got);
            CU_FAIL("report differs from the golden file");
        }
        g_free(want);
    }
    g_free(exp_path);
    g_free(got);
}

static gboolean golden_load(const char *path, GError **error)
{
    char *text;
    if (!g_file_get_contents(path, &text, NULL, error))
        return FALSE;
    char **lines = g_strsplit(text, "\n", -1);
    gboolean ok = TRUE;
    for (int i = 0; lines[i] && ok; i++) {
        char *l = g_strstrip(lines[i]);
        if (!*l || *l == '#')
            continue;
        char **f = g_strsplit(l, "|", -1);
        if (g_strv_length(f) != 4) {
            g_set_error(error, G_FILE_ERROR, G_FILE_ERROR_INVAL,
                        "%s:%d: expected NAME | MODEL | TRACE | REGS", path, i + 1);
            ok = FALSE;
        } else {
            golden_case_t *c = g_new0(golden_case_t, 1);
            c->name = g_strdup(g_strstrip(f[0]));
            c->model = g_strdup(g_strstrip(f[1]));
            c->trace = g_strdup(g_strstrip(f[2]));
            c->regs = g_strdup(g_strstrip(f[3]));
            c->line = i + 1;
            g_ptr_array_add(g_cases, c);
        }
        g_strfreev(f);
    }
    g_strfreev(lines);
    g_free(text);
    return ok;
}

static void register_suites(void)
{
    g_cases = g_ptr_array_new_with_free_func(golden_case_free);
    const char *cases = g_getenv("PMUSIM_GOLDEN_CASES");
    g_root = g_getenv("PMUSIM_SOURCE_ROOT");
    if (!cases || !g_root) {
        fprintf(stderr, "golden-sim-x86: set PMUSIM_SOURCE_ROOT and PMUSIM_GOLDEN_CASES\n");
        exit(2);
    }
    g_dir = g_path_get_dirname(cases);
    g_regen = g_strcmp0(g_getenv("PMUSIM_GOLDEN_REGEN"), "1") == 0;
    GError *e = NULL;
    if (!golden_load(cases, &e)) {
        fprintf(stderr, "golden-sim-x86: %s\n", e->message);
        exit(2);
    }
    CU_pSuite s = CU_add_suite("sim_x86_golden", NULL, NULL);
    for (guint i = 0; i < g_cases->len; i++)
        CU_add_test(s, ((golden_case_t *)g_ptr_array_index(g_cases, i))->name, golden_test);
}
