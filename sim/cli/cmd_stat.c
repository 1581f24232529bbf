/* pmusim stat: count events over a trace the way `perf stat` prints them
 * (docs/STAT.md).
 *
 * Events (-e) are perf names or native strings, rows come in -e order with
 * the label as typed (canonical strings in CSV and JSON).  When the events
 * do not fit the counters together they are multiplexed as the Linux kernel
 * does (round-robin over groups, a rotation every --mux-interval cycles) and
 * every estimate is printed beside the exact count and the error. */
#include "cmds.h"
#include "enc_args.h"
#include "perfev.h"
#include "pmusim/outfile.h"
#include "pmusim/sim.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* The kernel rotates multiplexed groups every perf_event_mux_interval_ms
 * (default 1 ms, kernel/events/core.c PERF_CPU_HRTIMER); at the 1 GHz
 * simulated clock of docs/STAT.md that is 1,000,000 cycles. */
#define MUX_INTERVAL_DEFAULT 1000000u

typedef enum { ROW_OK, ROW_NOT_IN_TRACE, ROW_NOT_COUNTED } row_status_t;

typedef struct {
    char *typed;        /* as the user typed it (table label) */
    char *native;       /* the encoder's event string */
    char *canon;        /* the canonical string the encoder labels its writes with */
    guint group;
    const char *role;   /* perf generic name, for metrics */
    row_status_t status;
    char source[128];
    gboolean from_events; /* the source is the trace's EVENT records alone (pmusim_counter_result_t) */
    uint64_t value;     /* count, or scaled estimate when multiplexed */
    uint64_t raw;       /* multiplexed: counted while scheduled */
    uint64_t truth;     /* multiplexed: exact count */
    uint64_t last;      /* multiplexed: counter value at the previous rotation */
    uint64_t enabled, running; /* cycles */
    gboolean per_core;  /* the core's count on every thread (Montecito causal events) */
    int sel_code;       /* x86 general counter: event select (0 with !sel_plain: none) */
    uint32_t sel_umask; /* and unit mask */
    gboolean sel_plain; /* no cmask, inv, edge or any-thread: a plain count */
    uint32_t rsp_msr;   /* x86 offcore response event: MSR_OFFCORE_RSP_x written (0: none) */
    uint64_t rsp_val;   /* and its value */
} row_t;

typedef struct {
    char sep;           /* -x: 0 for the table */
    gboolean json, mux;
    uint64_t cycles, records;
    const char *trace, *pmu;
    uint32_t nthreads;
    int repeat;
    uint32_t ref_num, ref_den; /* --ref-ratio, 0: the model's default */
    gboolean stamped;   /* -I: rows start with the interval's end cycle */
    uint64_t stamp;
    gboolean per_thread; /* --per-thread: rows start with the thread */
    uint32_t thread;
    gboolean no_timing;  /* the trace has no timing: its cycles are placeholders */
} out_opts_t;

static void progress_cb(uint64_t records, void *user)
{
    (void)user;
    fprintf(stderr, "\rreplayed %" G_GUINT64_FORMAT " records", (guint64)records);
    fflush(stderr);
}

static char *group_digits(uint64_t v)
{
    char raw[32];
    g_snprintf(raw, sizeof raw, "%" G_GUINT64_FORMAT, (guint64)v);
    GString *s = g_string_new(NULL);
    size_t n = strlen(raw);
    for (size_t i = 0; i < n; i++) {
        if (i && (n - i) % 3 == 0)
            g_string_append_c(s, ',');
        g_string_append_c(s, raw[i]);
    }
    return g_string_free(s, FALSE);
}

/* ---- derived metrics (perf's shadow metrics, docs/STAT.md) ---- */

#define MAX_METRICS 6

typedef struct {
    double value;
    const char *unit;
    gboolean percent;
} metric_t;

static const row_t *find_role(const GArray *rows, const char *role)
{
    for (guint i = 0; i < rows->len; i++) {
        const row_t *r = &g_array_index(rows, row_t, i);
        if (r->role && strcmp(r->role, role) == 0 && r->status == ROW_OK)
            return r;
    }
    return NULL;
}

/* A counted row of plain x86 event select `code` / `umask`. */
static const row_t *find_sel(const GArray *rows, int code, uint32_t umask)
{
    for (guint i = 0; i < rows->len; i++) {
        const row_t *r = &g_array_index(rows, row_t, i);
        if (r->sel_code == code && r->sel_umask == umask && r->sel_plain && r->status == ROW_OK)
            return r;
    }
    return NULL;
}

/* Westmere: OFFCORE_REQUESTS_OUTSTANDING (0x60) adds the requests of a type
 * in flight every cycle, OFFCORE_REQUESTS (0xb0) counts them, so their ratio
 * is the average cycles a request spends offcore (docs/STAT.md). */
static const struct {
    uint32_t umask;
    const char *unit;
} offcore_types[] = {
    {0x01, "cycles per offcore demand data read"},
    {0x02, "cycles per offcore demand code read"},
    {0x04, "cycles per offcore demand RFO"},
    {0x08, "cycles per offcore read"},
};

/* Knights Mill: OFFCORE_RESPONSE_0 with OUTSTANDING (MSR_OFFCORE_RSP_0 bit
 * 38) adds the requests of its types in flight every cycle; an
 * OFFCORE_RESPONSE_1 row with the same request bits (15:0) and ANY_RESPONSE
 * (bit 16) as its only response bit counts them (docs/sim-x86.md). */
#define KNM_RSP_OUTSTANDING (UINT64_C(1) << 38)
#define KNM_RSP_REQUESTS UINT64_C(0xffff)
#define KNM_RSP_ANY_RESPONSE (UINT64_C(1) << 16)

static size_t knm_latency(const GArray *rows, const row_t *r, metric_t *out)
{
    if (r->rsp_msr != 0x1a6 || !(r->rsp_val & KNM_RSP_OUTSTANDING) || !r->sel_plain)
        return 0;
    uint64_t req = r->rsp_val & KNM_RSP_REQUESTS;
    for (guint i = 0; i < rows->len; i++) {
        const row_t *b = &g_array_index(rows, row_t, i);
        if (b->rsp_msr != 0x1a7 || !b->sel_plain || b->status != ROW_OK || !b->value ||
            (b->rsp_val & KNM_RSP_REQUESTS) != req ||
            (b->rsp_val & ~KNM_RSP_REQUESTS) != KNM_RSP_ANY_RESPONSE)
            continue;
        out->value = (double)r->value / (double)b->value;
        out->unit = req == 0x1   ? "cycles per offcore demand data read"
                    : req == 0x2 ? "cycles per offcore demand RFO"
                    : req == 0x4 ? "cycles per offcore demand code read"
                                 : "cycles per offcore request";
        out->percent = FALSE;
        return 1;
    }
    return 0;
}

/* Topdown level 1 (docs/STAT.md): the PMUs whose events allow it. */
static gboolean topdown_pmu(const char *pmu)
{
    return strcmp(pmu, "wsm") == 0 || strcmp(pmu, "wsm_dp") == 0;
}

#define TD_ISSUED_CODE 0x0e /* UOPS_ISSUED:ANY */
#define TD_ISSUED_UMASK 0x01
#define TD_RETIRED_CODE 0xc2 /* UOPS_RETIRED:RETIRE_SLOTS */
#define TD_RETIRED_UMASK 0x02
#define TD_WIDTH 4 /* issue slots a cycle */

/* Issued uops tell bad speculation only where they come from the trace's own
 * EVENT records (a producer that saw the wrong path): on a model's trace the
 * x86 model derives UOPS_ISSUED:ANY from the retired uops (issued = retired,
 * docs/trace-events-x86.md), so issued - retired is 0 by construction and
 * says nothing (docs/STAT.md, "Topdown level 1"). */
static gboolean topdown_issued_known(const row_t *issued)
{
    return issued->from_events;
}

/* Topdown level 1 beside the cycles row when cycles, UOPS_ISSUED:ANY and
 * UOPS_RETIRED:RETIRE_SLOTS were all counted: retiring, bad speculation and
 * the rest, which Westmere cannot split into frontend and backend bound. */
static size_t topdown_metrics(const GArray *rows, const row_t *cycles, metric_t *out)
{
    const row_t *issued = find_sel(rows, TD_ISSUED_CODE, TD_ISSUED_UMASK);
    const row_t *retired = find_sel(rows, TD_RETIRED_CODE, TD_RETIRED_UMASK);
    if (!issued || !retired || !cycles->value)
        return 0;
    double slots = (double)TD_WIDTH * (double)cycles->value;
    double ret = (double)retired->value / slots;
    double bad = issued->value > retired->value
                     ? (double)(issued->value - retired->value) / slots
                     : 0.0;
    ret = MIN(ret, 1.0);
    bad = MIN(bad, 1.0 - ret);
    out[0] = (metric_t){ret * 100.0, "retiring", TRUE};
    if (!topdown_issued_known(issued)) {
        out[1] = (metric_t){(1.0 - ret) * 100.0, "bad speculation + frontend + backend bound", TRUE};
        return 2;
    }
    out[1] = (metric_t){bad * 100.0, "bad speculation", TRUE};
    out[2] = (metric_t){(1.0 - ret - bad) * 100.0, "frontend + backend bound", TRUE};
    return 3;
}

/* --topdown without its metrics: say which count is missing (stderr). */
static void topdown_note(const GArray *rows)
{
    const row_t *c = find_role(rows, "cycles");
    const row_t *need[] = {c, find_sel(rows, TD_ISSUED_CODE, TD_ISSUED_UMASK),
                           find_sel(rows, TD_RETIRED_CODE, TD_RETIRED_UMASK)};
    static const char *names[] = {"cycles", "UOPS_ISSUED:ANY", "UOPS_RETIRED:RETIRE_SLOTS"};
    for (size_t k = 0; k < G_N_ELEMENTS(need); k++) {
        if (need[k])
            continue;
        const char *why = "not counted";
        for (guint i = 0; i < rows->len; i++) {
            const row_t *r = &g_array_index(rows, row_t, i);
            if (strcmp(r->typed, names[k]) == 0 && r->status == ROW_NOT_IN_TRACE)
                why = "<not in trace>";
        }
        fprintf(stderr, "pmusim stat: --topdown: %s is %s: no topdown metrics\n", names[k], why);
        return;
    }
    if (!c->value)
        fputs("pmusim stat: --topdown: no cycles counted: no topdown metrics\n", stderr);
    else if (!topdown_issued_known(need[1]))
        fputs("pmusim stat: --topdown: UOPS_ISSUED:ANY counts the retired uops on this trace (a "
              "model's trace holds no wrong-path uops): bad speculation is not known and is in "
              "the remainder\n",
              stderr);
}

/* Why a PMU has no topdown level 1 (docs/STAT.md). */
static const char *topdown_lacks(const char *pmu)
{
    if (strcmp(pmu, "knm") == 0)
        return "Knights Mill has no issued-uops event (only UOPS_RETIRED and the "
               "NO_ALLOC_CYCLES cycle breakdown), so bad speculation cannot be told from "
               "retiring: no topdown level 1 (docs/STAT.md)";
    return "Itanium issues in order and has no issued-versus-retired counts; its stall "
           "accounting is the BACK_END_BUBBLE events in cycles: no topdown level 1 "
           "(docs/STAT.md)";
}

/* The metrics printed beside row r: the ratio perf prints, then MPKI for
 * miss events when instructions were counted. */
static size_t row_metrics(const GArray *rows, const row_t *r, const char *pmu, metric_t *out)
{
    static const struct {
        const char *role, *base, *unit;
        gboolean percent;
    } ratios[] = {
        {"instructions", "cycles", "insn per cycle", FALSE},
        {"branch-misses", "branches", "of all branches", TRUE},
        {"cache-misses", "cache-references", "of all cache refs", TRUE},
        {"L1-dcache-load-misses", "L1-dcache-loads", "of all L1-dcache accesses", TRUE},
        {"LLC-load-misses", "LLC-loads", "of all LL-cache accesses", TRUE},
        {"stalled-cycles-frontend", "cycles", "frontend cycles idle", TRUE},
        {"stalled-cycles-backend", "cycles", "backend cycles idle", TRUE},
    };
    size_t n = 0;
    if (r->status != ROW_OK)
        return 0;
    if (r->sel_code == 0x60 && r->sel_plain) {
        for (size_t i = 0; i < G_N_ELEMENTS(offcore_types); i++) {
            const row_t *req = find_sel(rows, 0xb0, offcore_types[i].umask);
            if (r->sel_umask == offcore_types[i].umask && req && req->value) {
                out[n].value = (double)r->value / (double)req->value;
                out[n].unit = offcore_types[i].unit;
                out[n].percent = FALSE;
                n++;
            }
        }
    }
    if (strcmp(pmu, "knm") == 0)
        n += knm_latency(rows, r, out + n);
    if (!r->role)
        return n;
    if (strcmp(r->role, "cycles") == 0 && r == find_role(rows, "cycles") &&
        topdown_pmu(pmu))
        n += topdown_metrics(rows, r, out + n);
    for (size_t i = 0; i < G_N_ELEMENTS(ratios); i++) {
        if (strcmp(r->role, ratios[i].role) != 0)
            continue;
        const row_t *b = find_role(rows, ratios[i].base);
        if (b && b->value) {
            out[n].value = (double)r->value / (double)b->value * (ratios[i].percent ? 100.0 : 1.0);
            out[n].unit = ratios[i].unit;
            out[n].percent = ratios[i].percent;
            n++;
        }
    }
    static const struct {
        const char *role, *unit;
    } mpki[] = {
        {"L1-dcache-load-misses", "L1D MPKI"},
        {"LLC-load-misses", "LLC MPKI"},
        {"cache-misses", "LLC MPKI"},
        {"branch-misses", "branch MPKI"},
    };
    const row_t *insn = find_role(rows, "instructions");
    for (size_t i = 0; i < G_N_ELEMENTS(mpki) && insn && insn->value; i++) {
        if (strcmp(r->role, mpki[i].role) == 0) {
            out[n].value = (double)r->value * 1000.0 / (double)insn->value;
            out[n].unit = mpki[i].unit;
            out[n].percent = FALSE;
            n++;
        }
    }
    return n;
}

/* ---- printing ---- */

static const char *status_text(row_status_t s)
{
    return s == ROW_NOT_IN_TRACE ? "<not in trace>" : "<not counted>";
}

static double rel_error(const row_t *r)
{
    if (!r->truth)
        return r->value ? INFINITY : 0.0;
    return ((double)r->value - (double)r->truth) / (double)r->truth * 100.0;
}

static double pct_running(const row_t *r)
{
    return r->enabled ? (double)r->running * 100.0 / (double)r->enabled : 100.0;
}

static void print_table_row(FILE *fp, const GArray *rows, const row_t *r, const out_opts_t *o)
{
    metric_t m[MAX_METRICS];
    size_t nm = row_metrics(rows, r, o->pmu, m);
    GString *line = g_string_new(NULL), *pad = g_string_new(NULL);
    if (o->stamped)
        g_string_append_printf(line, "%16" G_GUINT64_FORMAT, (guint64)o->stamp);
    if (o->per_thread) {
        char t[24];
        g_snprintf(t, sizeof t, "thread-%u", o->thread);
        g_string_append_printf(line, "%12s", t);
    }
    g_string_append_printf(pad, "%*s", (int)line->len, "");
    if (r->status == ROW_OK) {
        char *v = group_digits(r->value);
        g_string_append_printf(line, "%18s      %-25s", v, r->typed);
        g_free(v);
    } else {
        g_string_append_printf(line, "%18s      %-25s", status_text(r->status), r->typed);
    }
    if (nm)
        g_string_append_printf(line, " # %7.2f%s %s", m[0].value, m[0].percent ? "%" : " ",
                               m[0].unit);
    if (o->mux && r->status == ROW_OK) {
        char *t = group_digits(r->truth);
        g_string_append_printf(line, "  (%.2f%%)  [exact %s, error %+.2f%%]", pct_running(r), t,
                               rel_error(r));
        g_free(t);
    }
    if (o->per_thread && r->per_core && r->status == ROW_OK)
        g_string_append(line, "  (per core: the core's count, on every thread)");
    while (line->len && line->str[line->len - 1] == ' ')
        g_string_truncate(line, line->len - 1);
    fprintf(fp, "%s\n", line->str);
    for (size_t i = 1; i < nm; i++)
        fprintf(fp, "%s%18s      %-25s # %7.2f%s %s\n", pad->str, "", "", m[i].value,
                m[i].percent ? "%" : " ", m[i].unit);
    g_string_free(line, TRUE);
    g_string_free(pad, TRUE);
}

static void print_csv_row(FILE *fp, const GArray *rows, const row_t *r, const out_opts_t *o)
{
    metric_t m[MAX_METRICS];
    size_t nm = row_metrics(rows, r, o->pmu, m);
    char s = o->sep;
    /* perf's -x order: [interval,] value, unit, event, run time, % running,
     * metric value, metric unit */
    char prefix[64] = "";
    if (o->stamped)
        g_snprintf(prefix, sizeof prefix, "%" G_GUINT64_FORMAT "%c", (guint64)o->stamp, s);
    if (o->per_thread) /* perf's --per-thread: the thread before the value */
        g_snprintf(prefix + strlen(prefix), sizeof prefix - strlen(prefix), "thread-%u%c",
                   o->thread, s);
    fputs(prefix, fp);
    if (r->status == ROW_OK)
        fprintf(fp, "%" G_GUINT64_FORMAT, (guint64)r->value);
    else
        fputs(status_text(r->status), fp);
    fprintf(fp, "%c%c%s%c%" G_GUINT64_FORMAT "%c%.2f%c", s, s, r->canon, s,
            (guint64)r->running, s, pct_running(r), s);
    if (nm)
        fprintf(fp, "%.2f%c%s", m[0].value, s, m[0].unit);
    else
        fputc(s, fp);
    if (o->mux) /* pmusim's columns after perf's: the exact count and the error */
        fprintf(fp, "%c%" G_GUINT64_FORMAT "%c%.2f", s, (guint64)r->truth, s, rel_error(r));
    if (o->per_thread) /* pmusim's column: the count is the core's */
        fprintf(fp, "%c%s", s, r->per_core && r->status == ROW_OK ? "per-core" : "");
    fputc('\n', fp);
    for (size_t i = 1; i < nm; i++)
        fprintf(fp, "%s%c%c%c%c%c%.2f%c%s\n", prefix, s, s, s, s, s, m[i].value, s, m[i].unit);
}

static void print_json_row(FILE *fp, const GArray *rows, const row_t *r, const out_opts_t *o)
{
    metric_t m[MAX_METRICS];
    size_t nm = row_metrics(rows, r, o->pmu, m);
    fputc('{', fp);
    if (o->stamped)
        fprintf(fp, "\"interval\" : %" G_GUINT64_FORMAT ", ", (guint64)o->stamp);
    if (o->per_thread)
        fprintf(fp, "\"thread\" : \"thread-%u\", ", o->thread);
    fputs("\"counter-value\" : ", fp);
    if (r->status == ROW_OK)
        fprintf(fp, "\"%" G_GUINT64_FORMAT ".000000\"", (guint64)r->value);
    else
        fputs("null", fp);
    fputs(", \"unit\" : \"\", \"event\" : ", fp);
    pmusim_cli_json_string(fp, r->canon);
    fprintf(fp, ", \"event-runtime\" : %" G_GUINT64_FORMAT ", \"pcnt-running\" : %.2f",
            (guint64)r->running, pct_running(r));
    if (nm) {
        fprintf(fp, ", \"metric-value\" : %.6f, \"metric-unit\" : ", m[0].value);
        pmusim_cli_json_string(fp, m[0].unit);
    }
    fprintf(fp, ", \"status\" : \"%s\"",
            r->status == ROW_OK ? "ok" : r->status == ROW_NOT_IN_TRACE ? "not-in-trace"
                                                                         : "not-counted");
    if (r->status == ROW_NOT_IN_TRACE) {
        fputs(", \"source\" : ", fp);
        pmusim_cli_json_string(fp, r->source);
    }
    if (o->per_thread && r->per_core && r->status == ROW_OK)
        fputs(", \"per-core\" : true", fp);
    if (o->mux && r->status == ROW_OK) {
        double e = rel_error(r);
        fprintf(fp, ", \"exact-value\" : %" G_GUINT64_FORMAT, (guint64)r->truth);
        if (isfinite(e))
            fprintf(fp, ", \"error-pcnt\" : %.2f", e);
    }
    fputs("}\n", fp);
    for (size_t i = 1; i < nm; i++) {
        fputc('{', fp);
        /* the row's interval and thread, so that a line read alone is placed */
        if (o->stamped)
            fprintf(fp, "\"interval\" : %" G_GUINT64_FORMAT ", ", (guint64)o->stamp);
        if (o->per_thread)
            fprintf(fp, "\"thread\" : \"thread-%u\", ", o->thread);
        fprintf(fp, "\"metric-value\" : %.6f, \"metric-unit\" : ", m[i].value);
        pmusim_cli_json_string(fp, m[i].unit);
        fputs("}\n", fp);
    }
}

static void print_row(FILE *fp, const GArray *rows, const row_t *r, const out_opts_t *o)
{
    if (o->json)
        print_json_row(fp, rows, r, o);
    else if (o->sep)
        print_csv_row(fp, rows, r, o);
    else
        print_table_row(fp, rows, r, o);
}

/* The rows, or with `per` (--per-thread: one GArray of rows per hardware
 * thread) each row once per thread, event by event as perf prints them. */
static void print_rows(FILE *fp, const GArray *rows, const GPtrArray *per, const out_opts_t *o)
{
    if (!o->sep && !o->json) {
        fprintf(fp, "\n Performance counter stats for '%s' (PMU %s, %u hardware thread%s",
                o->trace, o->pmu, o->nthreads, o->nthreads == 1 ? "" : "s");
        if (per)
            fputs(", per thread", fp);
        if (o->repeat > 1)
            fprintf(fp, ", %d runs", o->repeat);
        fputs("):\n\n", fp);
    }
    for (guint i = 0; i < rows->len; i++) {
        if (!per) {
            print_row(fp, rows, &g_array_index(rows, row_t, i), o);
            continue;
        }
        out_opts_t ot = *o;
        ot.per_thread = TRUE;
        for (guint t = 0; t < per->len; t++) {
            const GArray *trows = g_ptr_array_index(per, t);
            ot.thread = t;
            print_row(fp, trows, &g_array_index(trows, row_t, i), &ot);
        }
    }
    if (o->sep || o->json)
        return;
    char *cyc = group_digits(o->cycles), *rec = group_digits(o->records);
    fprintf(fp, "\n%18s      cycles simulated%s\n%18s      trace records\n", cyc,
            o->no_timing ? " (placeholders: the trace has no timing)" : "",
            rec);
    g_free(cyc);
    g_free(rec);
    if (o->repeat > 1)
        fputs("\n  A replay is deterministic: every run gives these counts (no variance).\n",
              fp);
    if (o->mux)
        fputs("\n  Multiplexed: (x%) is the share of cycles the event was counted; the "
              "estimate is\n  scaled by enabled/running, the exact count comes from its own "
              "counter.\n", fp);
}

/* The log, captures and diagnostics of a plain run (table only). */
static void print_details(FILE *fp, const pmusim_report_t *r, gboolean verbose)
{
    guint interrupts = 0, overflows = 0;
    for (guint i = 0; i < r->log->len; i++) {
        const pmusim_sim_event_t *e = &g_array_index(r->log, pmusim_sim_event_t, i);
        /* models log "interrupt" and "<register> overflow" / "overflow <register>" */
        if (g_str_has_prefix(e->what, "interrupt"))
            interrupts++;
        else if (strstr(e->what, "overflow"))
            overflows++;
    }
    if (interrupts || overflows)
        fprintf(fp, "%18u      overflow%s, %u interrupt%s (see --verbose)\n", overflows,
                overflows == 1 ? "" : "s", interrupts, interrupts == 1 ? "" : "s");
    if (r->captures->len) {
        fprintf(fp, "\n  captured:\n");
        for (guint i = 0; i < r->captures->len; i++)
            fprintf(fp, "    %s\n", (const char *)g_ptr_array_index(r->captures, i));
    }
    if (verbose) {
        if (r->log->len) {
            fprintf(fp, "\n  event log:\n");
            for (guint i = 0; i < r->log->len; i++) {
                const pmusim_sim_event_t *e = &g_array_index(r->log, pmusim_sim_event_t, i);
                fprintf(fp, "    cycle %-14" G_GUINT64_FORMAT " thread %u  %s\n",
                        (guint64)e->cycle, e->thread, e->what);
            }
            if (r->log_dropped)
                fprintf(fp, "    (%" G_GUINT64_FORMAT " more not kept)\n",
                        (guint64)r->log_dropped);
        }
        if (r->diags->len) {
            fprintf(fp, "\n  register diagnostics:\n");
            for (guint i = 0; i < r->diags->len; i++)
                fprintf(fp, "    %s\n", (const char *)g_ptr_array_index(r->diags, i));
        }
        /* expected, documented fix-ups: shown on request, never counted as
         * diagnostics */
        if (r->notes && r->notes->len) {
            fprintf(fp, "\n  notes (expected fix-ups):\n");
            for (guint i = 0; i < r->notes->len; i++)
                fprintf(fp, "    %s\n", (const char *)g_ptr_array_index(r->notes, i));
        }
    } else if (r->diags->len) {
        fprintf(fp, "\n  %u register diagnostic%s (see --verbose)\n", r->diags->len,
                r->diags->len == 1 ? "" : "s");
    }
    fputc('\n', fp);
}

/* --explain: where the <not in trace> counters would get their counts. */
static void print_explain_sources(FILE *fp, const GArray *rows)
{
    for (guint i = 0; i < rows->len; i++) {
        const row_t *r = &g_array_index(rows, row_t, i);
        if (r->status == ROW_NOT_IN_TRACE)
            fprintf(fp, "# %s: <not in trace>: counts %s, which this trace does not hold\n",
                    r->typed, r->source[0] ? r->source : "explicit EVENT records only");
    }
}

/* ---- --dump-regs: every architectural PMU register at the end ---- */

static void dump_one(FILE *fp, gboolean json, pmusim_model_t *m, pmusim_regspace_t space,
                     uint32_t num, const char *name, gboolean *first)
{
    GString *desc = g_string_new(NULL);
    for (uint32_t t = 0; t < m->nthreads; t++) {
        uint64_t v;
        if (!m->ops->read_reg(m, space, num, t, &v))
            continue;
        g_string_truncate(desc, 0);
        if (m->ops->describe_reg)
            m->ops->describe_reg(space, num, v, desc);
        if (json) {
            fputs(*first ? "" : "", fp);
            fputs("{\"register\" : ", fp);
            pmusim_cli_json_string(fp, name);
            fprintf(fp, ", \"thread\" : %u, \"value\" : \"0x%" G_GINT64_MODIFIER
                        "x\", \"decoded\" : ", t, (guint64)v);
            pmusim_cli_json_string(fp, desc->str);
            fputs("}\n", fp);
        } else {
            fprintf(fp, "  %-26s", name);
            if (m->nthreads > 1)
                fprintf(fp, " @%u", t);
            fprintf(fp, " 0x%016" G_GINT64_MODIFIER "x  %s\n", (guint64)v, desc->str);
        }
        *first = FALSE;
    }
    g_string_free(desc, TRUE);
}

static void dump_regs(FILE *fp, gboolean json, pmusim_model_t *m)
{
    gboolean first = TRUE;
    if (!json)
        fputs("\n  final register state:\n", fp);
    if (m->ops->isa == PMUSIM_ISA_X86_64) {
        static const uint32_t msrs[] = {0x0c1, 0x0c2, 0x0c3, 0x0c4, 0x186, 0x187, 0x188, 0x189,
                                        0x1a6, 0x1a7, 0x1d9, 0x309, 0x30a, 0x30b, 0x345, 0x38d,
                                        0x38e, 0x38f, 0x390, 0x3f1, 0x3f6, 0x600};
        for (size_t i = 0; i < G_N_ELEMENTS(msrs); i++)
            dump_one(fp, json, m, PMUSIM_REG_MSR, msrs[i], pmusim_msr_name(msrs[i]), &first);
    } else {
        static const pmusim_regspace_t spaces[] = {PMUSIM_REG_PMC, PMUSIM_REG_PMD};
        for (size_t s = 0; s < G_N_ELEMENTS(spaces); s++)
            for (uint32_t n = 0; n < 256; n++) {
                char name[16];
                g_snprintf(name, sizeof name, "%s%u", pmusim_regspace_name(spaces[s]), n);
                dump_one(fp, json, m, spaces[s], n, name, &first);
            }
    }
}

/* ---- rows from a plain run ---- */

/* The label the encoder gives the writes of `native` encoded alone. */
static char *canonical_label(const pmusim_enc_args_t *ea, const char *pmu, const char *native,
                             GArray **regs_out, GError **error)
{
    GArray *regs = pmusim_regs_new();
    char *one[] = {(char *)native, NULL};
    if (!pmusim_enc_args_build_regs(ea, pmu, one, NULL, regs, error)) {
        g_array_free(regs, TRUE);
        return NULL;
    }
    char *label = NULL;
    for (guint i = 0; i < regs->len && !label; i++) {
        const pmusim_regwrite_t *w = &g_array_index(regs, pmusim_regwrite_t, i);
        if (w->label[0])
            label = g_strdup(w->label);
    }
    if (regs_out)
        *regs_out = regs;
    else
        g_array_free(regs, TRUE);
    return label ? label : g_strdup(native);
}

/* Appends the row of one event as typed: its native string, canonical label,
 * perf role and (x86 general counters) event select. */
static gboolean add_row(GArray *rows, const pmusim_enc_args_t *ea, const char *pmu,
                        const char *typed, guint group, GError **error)
{
    row_t r = {.typed = g_strdup(typed), .group = group};
    GArray *regs = NULL;
    r.native = pmusim_perfev_translate(pmu, r.typed, error);
    if (r.native)
        r.canon = canonical_label(ea, pmu, r.native, &regs, error);
    if (!r.canon) {
        g_free(r.typed);
        g_free(r.native);
        return FALSE;
    }
    r.role = pmusim_perfev_role(pmu, r.typed, r.native);
    for (guint i = 0; i < regs->len; i++) {
        const pmusim_regwrite_t *w = &g_array_index(regs, pmusim_regwrite_t, i);
        /* IA32_PERFEVTSELx (SDM Vol. 3B 18.2.1): event 7:0, umask 15:8,
         * edge 18, any 21, inv 23, cmask 31:24 */
        if (w->space == PMUSIM_REG_MSR && w->num >= 0x186 && w->num <= 0x18d) {
            r.sel_code = (int)(w->value & 0xff);
            r.sel_umask = (uint32_t)((w->value >> 8) & 0xff);
            r.sel_plain = (w->value & (UINT64_C(0xff) << 24 | 1u << 23 | 1u << 21 | 1u << 18)) == 0;
        }
        if (w->space == PMUSIM_REG_MSR && (w->num == 0x1a6 || w->num == 0x1a7)) {
            r.rsp_msr = w->num;
            r.rsp_val = w->value;
        }
    }
    g_array_free(regs, TRUE);
    g_array_append_val(rows, r);
    return TRUE;
}

/* A row's source: what drives the counter that counts it. */
static void row_take_source(row_t *r, const pmusim_counter_result_t *cr)
{
    g_strlcpy(r->source, cr->source, sizeof r->source);
    r->from_events = cr->from_events;
}

/* Fills value/status of each row from the counters labelled with its
 * canonical string, summed over threads (perf aggregates threads), except
 * per-core counts (Montecito causal events), which every thread sees.  The n-th
 * row with a given label takes the n-th counter set with it. */
static void rows_from_report(GArray *rows, const pmusim_report_t *rep, int thread)
{
    for (guint i = 0; i < rows->len; i++) {
        row_t *r = &g_array_index(rows, row_t, i);
        guint nth = 0;
        for (guint j = 0; j < i; j++)
            nth += strcmp(g_array_index(rows, row_t, j).canon, r->canon) == 0;
        gboolean found = FALSE;
        r->status = ROW_NOT_COUNTED;
        /* counters of one event are listed thread by thread: count occurrences per thread */
        for (uint32_t t = 0; t < 64; t++) {
            guint seen = 0;
            if (thread >= 0 && t != (uint32_t)thread)
                continue;
            for (guint c = 0; c < rep->counters->len; c++) {
                const pmusim_counter_result_t *cr =
                    &g_array_index(rep->counters, pmusim_counter_result_t, c);
                if (!cr->enabled || cr->thread != t || strcmp(cr->event, r->canon) != 0)
                    continue;
                if (seen++ != nth)
                    continue;
                found = TRUE;
                if (!r->source[0]) /* what drives it (topdown asks; printed when <not in trace>) */
                    row_take_source(r, cr);
                r->per_core |= cr->per_core;
                /* a per-core count is on every thread's counter: the core's
                 * count is one of them (the largest), not their sum */
                if (cr->per_core)
                    r->value = MAX(r->value, cr->value);
                else
                    r->value += cr->value;
                if (cr->status == PMUSIM_COUNT_NOT_IN_TRACE) {
                    r->status = ROW_NOT_IN_TRACE;
                    row_take_source(r, cr);
                }
            }
        }
        if (found && r->status != ROW_NOT_IN_TRACE)
            r->status = ROW_OK;
        r->enabled = r->running = rep->cycles;
    }
}

/* Rows for a run programmed by register files only: one per labelled counter. */
static void rows_from_counters(GArray *rows, const pmusim_report_t *rep, int thread)
{
    for (guint c = 0; c < rep->counters->len; c++) {
        const pmusim_counter_result_t *cr =
            &g_array_index(rep->counters, pmusim_counter_result_t, c);
        if (!cr->enabled)
            continue;
        char *label = cr->event[0] ? g_strdup(cr->event) : g_strdup_printf("(raw %s)", cr->reg);
        gboolean dup = FALSE;
        for (guint i = 0; i < rows->len && !dup; i++)
            dup = strcmp(g_array_index(rows, row_t, i).canon, label) == 0;
        if (dup) {
            g_free(label);
            continue;
        }
        row_t r = {.typed = g_strdup(label), .native = g_strdup(label), .canon = label};
        g_array_append_val(rows, r);
    }
    for (guint i = 0; i < rows->len; i++) {
        row_t *r = &g_array_index(rows, row_t, i);
        r->status = ROW_NOT_COUNTED;
        for (guint c = 0; c < rep->counters->len; c++) {
            const pmusim_counter_result_t *cr =
                &g_array_index(rep->counters, pmusim_counter_result_t, c);
            char raw[40];
            g_snprintf(raw, sizeof raw, "(raw %s)", cr->reg);
            if (!cr->enabled || strcmp(cr->event[0] ? cr->event : raw, r->canon) != 0 ||
                (thread >= 0 && cr->thread != (uint32_t)thread))
                continue;
            r->per_core |= cr->per_core;
            if (!r->source[0])
                row_take_source(r, cr);
            r->value = cr->per_core ? MAX(r->value, cr->value) : r->value + cr->value;
            if (r->status != ROW_NOT_IN_TRACE)
                r->status = ROW_OK;
            if (cr->status == PMUSIM_COUNT_NOT_IN_TRACE) {
                r->status = ROW_NOT_IN_TRACE;
                row_take_source(r, cr);
            }
        }
        r->enabled = r->running = rep->cycles;
    }
}

/* ---- multiplexing ---- */

typedef struct {
    GArray *regs;         /* the group's writes, encoded alone */
    GArray *data_regs;    /* per row of the group: data register (pmusim_regwrite_t) */
    GArray *row_index;    /* guint: rows of this group */
    gboolean active;
    guint bin;            /* the model instance that counts it */
} mux_group_t;

/* Groups that fit the counters together share one model instance: the
 * ground truth needs as many replays as the counters are short, not one per
 * group (docs/STAT.md "Performance"). */
typedef struct {
    GArray *group_ids;    /* guint */
    GArray *regs;
    pmusim_model_t *model;
} mux_bin_t;

typedef struct {
    GArray *rows;
    mux_group_t *groups;
    guint ngroups;
    mux_bin_t *bins;
    guint nbins;
    GArray *order;        /* guint group ids: the kernel's flexible list, rotated */
    const pmusim_enc_args_t *ea;
    const char *pmu;
    uint64_t interval, window_start;
    uint64_t next_rot;    /* the next rotation */
    uint64_t print_every, next_print; /* -I: interval length and the next end */
    row_t *snap;          /* -I: each row's accounts at the previous interval end */
    guint nthr;           /* --per-thread: threads (0: aggregated only) */
    uint64_t *traw, *tlast; /* --per-thread: [row * nthr + thread] raw / last reads */
    uint64_t *tsnap_raw, *tsnap_last; /* and at the previous interval end */
    FILE *fp;
    out_opts_t *oo;
    GHashTable *fits;     /* order key -> active mask (guint64 as pointer-free string) */
} mux_state_t;

/* Is the data register of a counter: IA-64 PMD, x86 IA32_PMCx / IA32_FIXED_CTRx. */
static gboolean is_data_reg(const pmusim_regwrite_t *w)
{
    if (w->space == PMUSIM_REG_PMD)
        return TRUE;
    return w->space == PMUSIM_REG_MSR &&
           ((w->num >= 0x0c1 && w->num <= 0x0c8) || (w->num >= 0x309 && w->num <= 0x30b));
}

/* The count of a data register over the threads it was written for: their
 * sum, or for a per-core count (every thread's counter counts the core's
 * events) the core's count, the largest of them, as rows_from_report does. */
static uint64_t read_sum(pmusim_model_t *m, const pmusim_regwrite_t *w, gboolean per_core)
{
    uint64_t sum = 0;
    for (uint32_t t = 0; t < m->nthreads; t++) {
        if (w->thread != PMUSIM_THREAD_ALL && w->thread != t)
            continue;
        uint64_t v = 0;
        if (m->ops->read_reg(m, w->space, w->num, t, &v))
            sum = per_core ? MAX(sum, v) : sum + v;
    }
    return sum;
}

/* Do these groups fit the counters together?  The encoder decides, exactly as
 * it decides for one -e list. */
static gboolean groups_fit(mux_state_t *st, const guint *ids, guint n)
{
    GPtrArray *evs = g_ptr_array_new();
    for (guint k = 0; k < n; k++) {
        const mux_group_t *g = &st->groups[ids[k]];
        for (guint j = 0; j < g->row_index->len; j++)
            g_ptr_array_add(evs, g_array_index(st->rows, row_t,
                                               g_array_index(g->row_index, guint, j)).native);
    }
    g_ptr_array_add(evs, NULL);
    GArray *regs = pmusim_regs_new();
    gboolean ok = pmusim_enc_args_build_regs(st->ea, st->pmu, (char **)evs->pdata, NULL, regs,
                                             NULL);
    g_array_free(regs, TRUE);
    g_ptr_array_free(evs, TRUE);
    return ok;
}

/* The kernel's flexible scheduling: walk the list in order and put groups on
 * until the first one that does not fit; the rest wait for a rotation. */
static void mux_schedule(mux_state_t *st)
{
    GString *key = g_string_new(NULL);
    for (guint k = 0; k < st->order->len; k++)
        g_string_append_printf(key, "%u,", g_array_index(st->order, guint, k));
    gpointer cached = g_hash_table_lookup(st->fits, key->str);
    guint nactive;
    if (cached) {
        nactive = GPOINTER_TO_UINT(cached) - 1;
        g_string_free(key, TRUE);
    } else {
        nactive = 0;
        while (nactive < st->order->len &&
               groups_fit(st, (const guint *)(void *)st->order->data, nactive + 1))
            nactive++;
        g_hash_table_insert(st->fits, g_string_free(key, FALSE), GUINT_TO_POINTER(nactive + 1));
    }
    for (guint g = 0; g < st->ngroups; g++)
        st->groups[g].active = FALSE;
    for (guint k = 0; k < nactive; k++)
        st->groups[g_array_index(st->order, guint, k)].active = TRUE;
}

/* Close the window [window_start, cycle): active groups add what their
 * counters counted in it. */
static void mux_account(mux_state_t *st, uint64_t cycle)
{
    uint64_t len = cycle - st->window_start;
    for (guint g = 0; g < st->ngroups; g++) {
        mux_group_t *grp = &st->groups[g];
        for (guint j = 0; j < grp->row_index->len; j++) {
            row_t *r = &g_array_index(st->rows, row_t, g_array_index(grp->row_index, guint, j));
            uint64_t now = read_sum(st->bins[grp->bin].model,
                                    &g_array_index(grp->data_regs, pmusim_regwrite_t, j),
                                    r->per_core);
            r->enabled += len;
            if (grp->active) {
                r->raw += now - r->last;
                r->running += len;
            }
            r->last = now;
            guint ri = g_array_index(grp->row_index, guint, j);
            const pmusim_regwrite_t *w = &g_array_index(grp->data_regs, pmusim_regwrite_t, j);
            for (guint t = 0; t < st->nthr; t++) { /* --per-thread */
                uint64_t v = 0;
                pmusim_model_t *m = st->bins[grp->bin].model;
                if (w->thread == PMUSIM_THREAD_ALL || w->thread == t)
                    m->ops->read_reg(m, w->space, w->num, t, &v);
                if (grp->active)
                    st->traw[ri * st->nthr + t] += v - st->tlast[ri * st->nthr + t];
                st->tlast[ri * st->nthr + t] = v;
            }
        }
    }
    st->window_start = cycle;
}

/* --per-thread with multiplexing: thread t's rows, from `agg` (the
 * aggregated rows of the same span: status, enabled, running) and the
 * thread's raw and exact counts since `snap_raw` / `snap_last` (NULL: the
 * start). */
static GArray *mux_thread_rows(const mux_state_t *st, const GArray *agg, guint t,
                               const uint64_t *snap_raw, const uint64_t *snap_last)
{
    GArray *set = g_array_new(FALSE, TRUE, sizeof(row_t));
    for (guint i = 0; i < agg->len; i++) {
        row_t r = g_array_index(agg, row_t, i);
        guint k = i * st->nthr + t;
        uint64_t raw = st->traw[k] - (snap_raw ? snap_raw[k] : 0);
        uint64_t last = st->tlast[k], before = snap_last ? snap_last[k] : 0;
        r.truth = last >= before ? last - before : last;
        r.value = r.running ? (uint64_t)((double)raw * (double)r.enabled / (double)r.running + 0.5)
                            : 0;
        g_array_append_val(set, r);
    }
    return set;
}

/* The table's column header of -I (with --per-thread a thread column). */
static void interval_header(FILE *fp, gboolean per_thread)
{
    fprintf(fp, "#           cycle%s             counts      events\n",
            per_thread ? "      thread" : "");
}

/* Status and source of each row from the model instance that counts it. */
static void mux_statuses(mux_state_t *st, uint64_t *cycles)
{
    GArray *rows = st->rows;
    pmusim_report_t rep;
    for (guint b = 0; b < st->nbins; b++) {
        pmusim_report_init(&rep);
        pmusim_model_collect(st->bins[b].model, &rep);
        if (b == 0 && cycles)
            *cycles = rep.cycles;
        GArray *grows = g_array_new(FALSE, TRUE, sizeof(row_t));
        GArray *which = g_array_new(FALSE, FALSE, sizeof(guint));
        for (guint i = 0; i < rows->len; i++) {
            row_t copy = g_array_index(rows, row_t, i);
            if (st->groups[copy.group].bin != b)
                continue;
            copy.value = 0;
            g_array_append_val(grows, copy);
            g_array_append_val(which, i);
        }
        rows_from_report(grows, &rep, -1);
        for (guint j = 0; j < grows->len; j++) {
            row_t *r = &g_array_index(rows, row_t, g_array_index(which, guint, j));
            const row_t *c = &g_array_index(grows, row_t, j);
            r->status = c->status;
            g_strlcpy(r->source, c->source, sizeof r->source);
            r->from_events = c->from_events;
        }
        g_array_free(grows, TRUE);
        g_array_free(which, TRUE);
        pmusim_report_clear(&rep);
    }
}

/* perf's scaling of a multiplexed count: raw x enabled / running, rounded. */
static uint64_t mux_scale(uint64_t raw, uint64_t enabled, uint64_t running)
{
    return (uint64_t)((double)raw * (double)enabled / (double)running + 0.5);
}

/* -I with multiplexing: the interval ending at `cycle`, every row's estimate
 * from what it counted in its windows of the interval, scaled by the
 * interval's enabled / running cycles, beside the exact count of the
 * interval.  Windows were closed at `cycle` by mux_account. */
static void mux_print_interval(mux_state_t *st, uint64_t cycle)
{
    out_opts_t *oo = st->oo;
    mux_statuses(st, NULL);
    if (!oo->sep && !oo->json && !oo->stamped)
        interval_header(st->fp, st->oo->per_thread || st->nthr);
    oo->stamped = TRUE;
    oo->stamp = cycle;
    oo->mux = TRUE;
    GArray *irows = g_array_new(FALSE, TRUE, sizeof(row_t));
    for (guint i = 0; i < st->rows->len; i++) {
        row_t r = g_array_index(st->rows, row_t, i);
        const row_t *sn = &st->snap[i];
        r.enabled -= sn->enabled;
        r.running -= sn->running;
        r.truth = r.last >= sn->last ? r.last - sn->last : r.last;
        r.value = r.running ? mux_scale(r.raw - sn->raw, r.enabled, r.running) : 0;
        if (!r.running && r.status == ROW_OK)
            r.status = ROW_NOT_COUNTED;
        g_array_append_val(irows, r);
    }
    if (!st->nthr) {
        for (guint i = 0; i < irows->len; i++)
            print_row(st->fp, irows, &g_array_index(irows, row_t, i), oo);
    } else {
        GPtrArray *sets = g_ptr_array_new();
        for (guint t = 0; t < st->nthr; t++)
            g_ptr_array_add(sets, mux_thread_rows(st, irows, t, st->tsnap_raw, st->tsnap_last));
        out_opts_t ot = *oo;
        ot.per_thread = TRUE;
        for (guint i = 0; i < irows->len; i++)
            for (guint t = 0; t < st->nthr; t++) {
                const GArray *set = g_ptr_array_index(sets, t);
                ot.thread = t;
                print_row(st->fp, set, &g_array_index(set, row_t, i), &ot);
            }
        for (guint t = 0; t < st->nthr; t++)
            g_array_free(g_ptr_array_index(sets, t), TRUE);
        g_ptr_array_free(sets, TRUE);
        memcpy(st->tsnap_raw, st->traw, sizeof(uint64_t) * st->rows->len * st->nthr);
        memcpy(st->tsnap_last, st->tlast, sizeof(uint64_t) * st->rows->len * st->nthr);
    }
    g_array_free(irows, TRUE);
    for (guint i = 0; i < st->rows->len; i++)
        st->snap[i] = g_array_index(st->rows, row_t, i);
}

static gboolean mux_stop(pmusim_model_t *m, uint64_t cycle, uint64_t *next, void *user,
                         GError **error)
{
    (void)m;
    (void)error;
    mux_state_t *st = user;
    mux_account(st, cycle);
    /* an interval that ends where a rotation happens counts the windows
     * before the rotation */
    if (st->print_every && cycle == st->next_print) {
        mux_print_interval(st, cycle);
        st->next_print += st->print_every;
    }
    if (cycle == st->next_rot) {
        /* rotate: the first active group goes to the end of the list */
        for (guint k = 0; k < st->order->len; k++) {
            guint id = g_array_index(st->order, guint, k);
            if (st->groups[id].active) {
                g_array_remove_index(st->order, k);
                g_array_append_val(st->order, id);
                break;
            }
        }
        mux_schedule(st);
        st->next_rot += st->interval;
    }
    *next = MIN(st->next_rot, st->print_every ? st->next_print : G_MAXUINT64);
    return TRUE;
}

static void mux_clear(mux_state_t *st)
{
    for (guint g = 0; g < st->ngroups; g++) {
        mux_group_t *grp = &st->groups[g];
        if (grp->regs)
            g_array_free(grp->regs, TRUE);
        if (grp->data_regs)
            g_array_free(grp->data_regs, TRUE);
        if (grp->row_index)
            g_array_free(grp->row_index, TRUE);
    }
    for (guint b = 0; b < st->nbins; b++) {
        g_array_free(st->bins[b].group_ids, TRUE);
        if (st->bins[b].regs)
            g_array_free(st->bins[b].regs, TRUE);
        pmusim_model_free(st->bins[b].model);
    }
    g_free(st->bins);
    g_free(st->groups);
    g_free(st->snap);
    g_free(st->traw);
    g_free(st->tlast);
    g_free(st->tsnap_raw);
    g_free(st->tsnap_last);
    if (st->order)
        g_array_free(st->order, TRUE);
    if (st->fits)
        g_hash_table_destroy(st->fits);
    memset(st, 0, sizeof *st);
}

/* More events than counters: one model per group counts the group alone
 * (its exact count, the ground truth); the kernel's rotation decides in which
 * windows each group would have been on the hardware, and only those windows
 * add to its estimate.  One read of the trace feeds every model. */
static int run_multiplexed(mux_state_t *st, GArray *rows, const pmusim_enc_args_t *ea,
                           const pmusim_model_ops_t *ops, pmusim_trace_reader_t *reader,
                           uint64_t interval, uint64_t print_every, FILE *fp,
                           char **regs_files, const GError *fit_error, gboolean progress,
                           gboolean show_regs, gboolean per_thread, GPtrArray **per,
                           out_opts_t *oo)
{
    GError *error = NULL;
    if (regs_files) {
        /* ill-defined, not missing (docs/STAT.md): the schedule owns the
         * counters and reprograms them at every rotation */
        fprintf(stderr, "pmusim: %s\npmusim: the -e events need multiplexing, which does not "
                        "combine with --regs: the schedule reprograms the counters at every "
                        "rotation, as the kernel does, so register writes (timed or not) "
                        "would be overwritten or would overwrite a group's counter "
                        "(docs/STAT.md)\n", fit_error->message);
        return 1;
    }
    st->rows = rows;
    st->ea = ea;
    st->pmu = ops->name;
    st->interval = interval;
    st->fits = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
    st->order = g_array_new(FALSE, FALSE, sizeof(guint));
    /* groups in -e order (group numbers from perfev_split may skip) */
    GArray *ids = g_array_new(FALSE, FALSE, sizeof(guint));
    for (guint i = 0; i < rows->len; i++) {
        guint g = g_array_index(rows, row_t, i).group, k;
        for (k = 0; k < ids->len && g_array_index(ids, guint, k) != g; k++)
            ;
        if (k == ids->len)
            g_array_append_val(ids, g);
        g_array_index(rows, row_t, i).group = k;
    }
    st->ngroups = ids->len;
    g_array_free(ids, TRUE);
    st->groups = g_new0(mux_group_t, st->ngroups);
    for (guint g = 0; g < st->ngroups; g++) {
        mux_group_t *grp = &st->groups[g];
        grp->row_index = g_array_new(FALSE, FALSE, sizeof(guint));
        grp->data_regs = g_array_new(FALSE, TRUE, sizeof(pmusim_regwrite_t));
        grp->regs = pmusim_regs_new();
        GPtrArray *evs = g_ptr_array_new();
        GString *names = g_string_new(NULL);
        for (guint i = 0; i < rows->len; i++) {
            row_t *r = &g_array_index(rows, row_t, i);
            if (r->group != g)
                continue;
            g_array_append_val(grp->row_index, i);
            g_ptr_array_add(evs, r->native);
            g_string_append_printf(names, "%s%s", names->len ? "," : "", r->typed);
        }
        g_ptr_array_add(evs, NULL);
        gboolean ok = pmusim_enc_args_build_regs(ea, ops->name, (char **)evs->pdata, NULL,
                                                 grp->regs, &error);
        g_ptr_array_free(evs, TRUE);
        if (!ok) {
            /* perf's answer to a group the PMU can never schedule: the
             * group's perf_event_open() fails with EINVAL */
            fprintf(stderr, "pmusim: group {%s} does not fit the counters of %s: "
                            "perf_event_open would fail with 22 (Invalid argument)\n"
                            "pmusim: (%s)\n", names->str, ops->name, error->message);
            g_string_free(names, TRUE);
            g_clear_error(&error);
            return 1;
        }
        g_string_free(names, TRUE);
        g_array_append_val(st->order, g);
    }
    /* pack the groups into as few model instances as fit (first fit, in -e
     * order); an event twice in one instance would share its label */
    st->bins = g_new0(mux_bin_t, st->ngroups);
    for (guint g = 0; g < st->ngroups; g++) {
        guint b;
        for (b = 0; b < st->nbins; b++) {
            GArray *members = st->bins[b].group_ids;
            gboolean clash = FALSE;
            for (guint k = 0; k < members->len && !clash; k++) {
                const mux_group_t *o = &st->groups[g_array_index(members, guint, k)];
                for (guint x = 0; x < o->row_index->len && !clash; x++)
                    for (guint y = 0; y < st->groups[g].row_index->len && !clash; y++)
                        clash = strcmp(g_array_index(rows, row_t,
                                           g_array_index(o->row_index, guint, x)).canon,
                                       g_array_index(rows, row_t,
                                           g_array_index(st->groups[g].row_index, guint,
                                                         y)).canon) == 0;
            }
            if (clash)
                continue;
            g_array_append_val(members, g);
            if (groups_fit(st, (const guint *)(void *)members->data, members->len))
                break;
            g_array_set_size(members, members->len - 1);
        }
        if (b == st->nbins) {
            st->bins[b].group_ids = g_array_new(FALSE, FALSE, sizeof(guint));
            g_array_append_val(st->bins[b].group_ids, g);
            st->nbins++;
        }
        st->groups[g].bin = b;
    }
    for (guint b = 0; b < st->nbins; b++) {
        mux_bin_t *bin = &st->bins[b];
        GPtrArray *evs = g_ptr_array_new();
        for (guint k = 0; k < bin->group_ids->len; k++) {
            const mux_group_t *grp = &st->groups[g_array_index(bin->group_ids, guint, k)];
            for (guint j = 0; j < grp->row_index->len; j++)
                g_ptr_array_add(evs, g_array_index(rows, row_t,
                                                   g_array_index(grp->row_index, guint, j)).native);
        }
        g_ptr_array_add(evs, NULL);
        bin->regs = pmusim_regs_new();
        gboolean ok = pmusim_enc_args_build_regs(ea, ops->name, (char **)evs->pdata, NULL,
                                                 bin->regs, &error);
        g_ptr_array_free(evs, TRUE);
        if (!ok)
            return pmusim_cli_fail(error);
        if (show_regs) {
            fprintf(stderr, "# model instance %u of the multiplexed replay\n", b);
            pmusim_regs_print(bin->regs, stderr);
        }
        bin->model = pmusim_model_new(ops->name, oo->nthreads, &error);
        if (!bin->model ||
            (oo->ref_num &&
             !pmusim_model_set_ref_ratio(bin->model, oo->ref_num, oo->ref_den, &error)) ||
            !pmusim_model_write_regs(bin->model, bin->regs, &error))
            return pmusim_cli_fail(error);
    }
    for (guint g = 0; g < st->ngroups; g++) {
        mux_group_t *grp = &st->groups[g];
        const GArray *bregs = st->bins[grp->bin].regs;
        for (guint j = 0; j < grp->row_index->len; j++) {
            const row_t *r = &g_array_index(rows, row_t, g_array_index(grp->row_index, guint, j));
            pmusim_regwrite_t d = {.space = PMUSIM_REG_PMD, .num = G_MAXUINT32};
            for (guint w = 0; w < bregs->len; w++) {
                const pmusim_regwrite_t *rw = &g_array_index(bregs, pmusim_regwrite_t, w);
                if (is_data_reg(rw) && strcmp(rw->label, r->canon) == 0) {
                    d = *rw;
                    break;
                }
            }
            g_array_append_val(grp->data_regs, d);
        }
    }
    /* which rows are per-core counts: the model says so in its counter
     * results from the configuration alone, before any record */
    for (guint b = 0; b < st->nbins; b++) {
        pmusim_report_t pre;
        pmusim_report_init(&pre);
        pmusim_model_collect(st->bins[b].model, &pre);
        for (guint i = 0; i < rows->len; i++) {
            row_t *r = &g_array_index(rows, row_t, i);
            if (st->groups[r->group].bin != b)
                continue;
            for (guint c = 0; c < pre.counters->len; c++) {
                const pmusim_counter_result_t *cr =
                    &g_array_index(pre.counters, pmusim_counter_result_t, c);
                if (cr->enabled && cr->per_core && strcmp(cr->event, r->canon) == 0)
                    r->per_core = TRUE;
            }
        }
        pmusim_report_clear(&pre);
    }
    mux_schedule(st);
    st->next_rot = interval;
    st->print_every = print_every;
    st->next_print = print_every;
    st->fp = fp;
    st->oo = oo;
    st->snap = g_new0(row_t, rows->len);
    if (per_thread) {
        st->nthr = oo->nthreads;
        st->traw = g_new0(uint64_t, rows->len * st->nthr);
        st->tlast = g_new0(uint64_t, rows->len * st->nthr);
        st->tsnap_raw = g_new0(uint64_t, rows->len * st->nthr);
        st->tsnap_last = g_new0(uint64_t, rows->len * st->nthr);
    }
    pmusim_model_t **models = g_new(pmusim_model_t *, st->nbins);
    for (guint b = 0; b < st->nbins; b++)
        models[b] = st->bins[b].model;
    gboolean ok = pmusim_replay_stops_multi(models, st->nbins, reader,
                                            MIN(interval, print_every ? print_every : G_MAXUINT64),
                                            mux_stop, st, progress ? progress_cb : NULL, NULL,
                                            &error);
    g_free(models);
    if (progress)
        fputc('\n', stderr);
    if (!ok) {
        if (error->domain == PMUSIM_SIM_ERROR)
            g_prefix_error(&error, "%s: ", oo->trace);
        return pmusim_cli_fail(error);
    }
    mux_statuses(st, &oo->cycles);
    oo->records = pmusim_trace_reader_records_read(reader);
    mux_account(st, MAX(oo->cycles, st->window_start));
    if (print_every) { /* the last, possibly shorter, interval */
        if (oo->cycles > oo->stamp || !oo->stamped)
            mux_print_interval(st, MAX(oo->cycles, st->window_start));
        return 0;
    }
    for (guint i = 0; i < rows->len; i++) {
        row_t *r = &g_array_index(rows, row_t, i);
        r->truth = r->last;
        /* perf's scaling: count * time_enabled / time_running, rounded */
        if (!r->running) {
            if (r->status == ROW_OK)
                r->status = ROW_NOT_COUNTED;
        } else {
            r->value = mux_scale(r->raw, r->enabled, r->running);
        }
    }
    if (per_thread) {
        *per = g_ptr_array_new();
        for (guint t = 0; t < st->nthr; t++)
            g_ptr_array_add(*per, mux_thread_rows(st, rows, t, NULL, NULL));
    }
    oo->mux = TRUE;
    return 0;
}

/* ---- -I: counts per interval of cycles ---- */

typedef struct {
    GArray *rows;
    gboolean from_counters; /* rows come from the counters (-R only) */
    GArray *prev;           /* uint64_t per row: cumulative value at the last print */
    FILE *fp;
    out_opts_t *oo;
    uint64_t interval;
} interval_state_t;

static void interval_print(interval_state_t *st, pmusim_model_t *m, uint64_t cycle)
{
    pmusim_report_t rep;
    pmusim_report_init(&rep);
    pmusim_model_collect(m, &rep);
    if (st->from_counters && !st->rows->len)
        rows_from_counters(st->rows, &rep, -1);
    /* one set of rows, or with --per-thread one per thread: each row holds
     * its interval's count while the set is printed, so that the metrics are
     * per interval (and per thread) too */
    guint nsets = st->oo->per_thread ? st->oo->nthreads : 1, nrows = st->rows->len;
    GPtrArray *sets = g_ptr_array_new();
    for (guint k = 0; k < nsets; k++) {
        GArray *set = g_array_new(FALSE, TRUE, sizeof(row_t));
        for (guint i = 0; i < nrows; i++) {
            row_t c = g_array_index(st->rows, row_t, i);
            c.value = 0;
            c.per_core = FALSE;
            g_array_append_val(set, c);
        }
        rows_from_report(set, &rep, st->oo->per_thread ? (int)k : -1);
        g_ptr_array_add(sets, set);
    }
    pmusim_report_clear(&rep);
    gboolean first = st->prev->len == 0;
    if (!st->oo->sep && !st->oo->json && first)
        interval_header(st->fp, st->oo->per_thread);
    uint64_t start = st->oo->stamp;
    st->oo->stamped = TRUE;
    st->oo->stamp = cycle;
    if (first)
        g_array_set_size(st->prev, nsets * nrows); /* zeroed: a clearing GArray */
    for (guint k = 0; k < nsets; k++) {
        GArray *set = g_ptr_array_index(sets, k);
        for (guint i = 0; i < nrows; i++) {
            row_t *r = &g_array_index(set, row_t, i);
            uint64_t *before = &g_array_index(st->prev, uint64_t, k * nrows + i);
            uint64_t total = r->value;
            /* a counter a timed write set lower starts again from its new value */
            r->value = total >= *before ? total - *before : total;
            r->enabled = r->running = cycle - start;
            *before = total;
        }
    }
    out_opts_t ot = *st->oo;
    for (guint i = 0; i < nrows; i++)
        for (guint k = 0; k < nsets; k++) {
            GArray *set = g_ptr_array_index(sets, k);
            ot.thread = k;
            print_row(st->fp, set, &g_array_index(set, row_t, i), &ot);
        }
    for (guint k = 0; k < nsets; k++)
        g_array_free(g_ptr_array_index(sets, k), TRUE);
    g_ptr_array_free(sets, TRUE);
}

static gboolean interval_stop(pmusim_model_t *m, uint64_t cycle, uint64_t *next, void *user,
                              GError **error)
{
    (void)error;
    interval_state_t *st = user;
    interval_print(st, m, cycle);
    *next = cycle + st->interval;
    return TRUE;
}

/* ---- the command ---- */

int pmusim_cmd_stat(int argc, char **argv)
{
    pmusim_enc_args_t ea = {0};
    char *pmu_opt = NULL, **regs_files = NULL, *sep_opt = NULL, *out_path = NULL,
         *ref_opt = NULL;
    uint32_t ref_num = 0, ref_den = 0;
    gboolean json = FALSE, csv = FALSE, verbose = FALSE, show_regs = FALSE, explain = FALSE,
             dump = FALSE, topdown = FALSE, per_thread = FALSE;
    gint repeat = 1;
    gint64 mux_interval = MUX_INTERVAL_DEFAULT, interval = 0;
    const GOptionEntry entries[] = {
        {"pmu", 'p', 0, G_OPTION_ARG_STRING, &pmu_opt,
         "PMU model: ita2, mont, wsm, wsm_dp, knm (default: the trace's CPU)", "NAME"},
        {"regs", 'R', 0, G_OPTION_ARG_FILENAME_ARRAY, &regs_files,
         "raw register writes to apply, '@cycle N' for timed ones (docs/REGS.md); repeatable",
         "FILE"},
        {"field-separator", 'x', 0, G_OPTION_ARG_STRING, &sep_opt,
         "print perf's CSV form with this separator", "SEP"},
        {"json", 'j', 0, G_OPTION_ARG_NONE, &json, "print perf's JSON form (one object a line)",
         NULL},
        {"csv", 0, 0, G_OPTION_ARG_NONE, &csv, "the same as -x ,", NULL},
        {"output", 'o', 0, G_OPTION_ARG_FILENAME, &out_path,
         "write the counts to FILE (whole or not at all)", "FILE"},
        {"repeat", 'r', 0, G_OPTION_ARG_INT, &repeat,
         "runs to report (a replay is deterministic: counted once, no variance)", "N"},
        {"interval-print", 'I', 0, G_OPTION_ARG_INT64, &interval,
         "print the counts of every interval of N cycles (perf: milliseconds)", "N"},
        {"mux-interval", 0, 0, G_OPTION_ARG_INT64, &mux_interval,
         "multiplexing rotation interval in cycles (default 1000000)", "CYCLES"},
        {"ref-ratio", 0, 0, G_OPTION_ARG_STRING, &ref_opt,
         "reference cycles per core cycle for ref-cycles (x86 models; docs/sim-x86.md)",
         "NUM/DEN"},
        {"topdown", 0, 0, G_OPTION_ARG_NONE, &topdown,
         "topdown level 1 (wsm, wsm_dp): adds the events it needs", NULL},
        {"per-thread", 0, 0, G_OPTION_ARG_NONE, &per_thread,
         "one row per hardware thread of the model", NULL},
        {"dump-regs", 0, 0, G_OPTION_ARG_NONE, &dump,
         "print the final value of every PMU register, decoded", NULL},
        {"verbose", 'v', 0, G_OPTION_ARG_NONE, &verbose,
         "also print the overflow/interrupt log and register diagnostics", NULL},
        {"show-regs", 0, 0, G_OPTION_ARG_NONE, &show_regs,
         "print the register writes before replaying", NULL},
        {"explain", 0, 0, G_OPTION_ARG_NONE, &explain,
         "decode each register write field by field, and name the sources of <not in trace>",
         NULL},
        {NULL, 0, 0, 0, NULL, NULL, NULL},
    };
    GOptionContext *ctx = g_option_context_new("TRACE");
    g_option_context_set_summary(ctx,
        "Program a PMU model with events (-e: perf names such as cycles, r01c0,\n"
        "cpu/event=0xc0,umask=0x1/, {groups}, or native strings) and/or raw register\n"
        "writes (--regs), replay TRACE through it and print the counts as perf stat\n"
        "does.  Events that do not fit the counters are multiplexed, and each estimate\n"
        "is printed beside its exact count (docs/STAT.md).");
    g_option_context_add_main_entries(ctx, entries, NULL);
    pmusim_enc_args_add(ctx, &ea);
    GError *error = NULL;
    int status = 0;
    pmusim_run_setup_t run = {0};
    pmusim_model_t *model = NULL;
    GArray *rows = g_array_new(FALSE, TRUE, sizeof(row_t));
    GPtrArray *typed = g_ptr_array_new_with_free_func(g_free);
    GArray *groups = g_array_new(FALSE, FALSE, sizeof(guint));
    mux_state_t mux = {0};
    pmusim_outfile_t *out = NULL;
    pmusim_report_t rep;
    gboolean have_rep = FALSE;
    char *pmu = NULL;
    GArray *regs = NULL;
    GPtrArray *keep_args = NULL;
    char **keep_argv = NULL;
    GPtrArray *per = NULL; /* --per-thread: rows per thread */

    /* perf users write the separator attached ("-x,"): GOption reads that
     * as a cluster of short options, so split it */
    GPtrArray *args = g_ptr_array_new_with_free_func(g_free);
    for (int i = 0; i < argc; i++) {
        if (g_str_has_prefix(argv[i], "-x") && argv[i][2]) {
            g_ptr_array_add(args, g_strdup("-x"));
            g_ptr_array_add(args, g_strdup(argv[i] + 2));
        } else {
            g_ptr_array_add(args, g_strdup(argv[i]));
        }
    }
    int nargs = (int)args->len;
    g_ptr_array_add(args, NULL);
    char **argv_copy = g_memdup2(args->pdata, sizeof(char *) * args->len);
    /* GOption moves the pointers of argv_copy; the strings stay owned by args */
    keep_argv = argv_copy;
    keep_args = args;
    gboolean parsed = pmusim_cli_parse(ctx, "stat", &nargs, &argv_copy, &error);
    argc = nargs;
    argv = argv_copy;
    if (!parsed) {
        status = pmusim_cli_usage("stat", "%s", error->message);
        goto out;
    }
    if (argc != 2) {
        status = pmusim_cli_usage("stat", "expected exactly one TRACE file");
        goto out;
    }
    if (csv && !sep_opt)
        sep_opt = g_strdup(",");
    if (sep_opt && strlen(sep_opt) != 1) {
        status = pmusim_cli_usage("stat", "-x takes one separator character, got '%s'", sep_opt);
        goto out;
    }
    if (json && sep_opt) {
        status = pmusim_cli_usage("stat", "-j and -x exclude each other");
        goto out;
    }
    if (ref_opt) {
        char *slash = strchr(ref_opt, '/');
        guint64 n = 0, d = 1;
        char *head = slash ? g_strndup(ref_opt, (gsize)(slash - ref_opt)) : g_strdup(ref_opt);
        gboolean ok = g_ascii_string_to_unsigned(head, 10, 1, G_MAXUINT32, &n, NULL);
        g_free(head);
        if (ok && slash)
            ok = g_ascii_string_to_unsigned(slash + 1, 10, 1, G_MAXUINT32, &d, NULL);
        if (!ok) {
            status = pmusim_cli_usage("stat", "--ref-ratio takes NUM/DEN (e.g. 133/2930), "
                                              "got '%s'", ref_opt);
            goto out;
        }
        ref_num = (uint32_t)n;
        ref_den = (uint32_t)d;
    }
    if (interval < 0) {
        status = pmusim_cli_usage("stat", "-I takes a number of cycles >= 1");
        goto out;
    }
    if (repeat < 1 || mux_interval < 1) {
        status = pmusim_cli_usage("stat", "-r and --mux-interval take a number >= 1");
        goto out;
    }
    const char *trace = argv[1];
    if (!pmusim_perfev_split(ea.events, typed, groups, &error)) {
        status = pmusim_cli_usage("stat", "%s", error->message);
        goto out;
    }
    /* open the trace and load --regs files; the events are encoded here */
    {
        char **keep = ea.events;
        ea.events = NULL;
        g_ptr_array_add(typed, NULL);
        pmu = pmu_opt ? g_strdup(pmu_opt)
                      : pmusim_enc_args_pmu_from_events((char **)typed->pdata);
        g_ptr_array_remove_index(typed, typed->len - 1);
        status = pmusim_run_setup(&run, &ea, "stat", trace, pmu ? pmu : NULL, regs_files, FALSE);
        ea.events = keep;
        if (status)
            goto out;
    }
    pmusim_trace_reader_t *reader = run.reader;
    const pmusim_model_ops_t *ops = run.ops;
    const pmusim_trace_header_t *h = pmusim_trace_reader_header(reader);
    if (topdown && !topdown_pmu(ops->name)) {
        fprintf(stderr, "pmusim stat: --topdown: %s\n", topdown_lacks(ops->name));
        status = 1;
        goto out;
    }
    if (!typed->len && !regs_files && !topdown) {
        char **d = g_strsplit(pmusim_cli_default_events(ops->name), ",", -1);
        for (char **e = d; *e; e++) {
            guint g = typed->len;
            g_ptr_array_add(typed, g_strdup(*e));
            g_array_append_val(groups, g);
        }
        g_strfreev(d);
    }
    /* one row per event, in -e order */
    guint next_group = 0;
    for (guint i = 0; i < typed->len; i++) {
        guint g = g_array_index(groups, guint, i);
        next_group = MAX(next_group, g + 1);
        if (!add_row(rows, &ea, ops->name, g_ptr_array_index(typed, i), g, &error)) {
            status = pmusim_cli_fail(error);
            goto out;
        }
    }
    /* --topdown: the events its metrics need that -e did not name, as perf
     * adds them, in one group of their own */
    if (topdown) {
        static const struct {
            const char *typed;
            int code;
            uint32_t umask;
        } need[] = {{"cycles", -1, 0},
                    {"UOPS_ISSUED:ANY", TD_ISSUED_CODE, TD_ISSUED_UMASK},
                    {"UOPS_RETIRED:RETIRE_SLOTS", TD_RETIRED_CODE, TD_RETIRED_UMASK}};
        guint have = rows->len;
        for (size_t k = 0; k < G_N_ELEMENTS(need); k++) {
            gboolean found = FALSE;
            for (guint i = 0; i < have && !found; i++) {
                const row_t *r = &g_array_index(rows, row_t, i);
                found = need[k].code < 0 ? r->role && strcmp(r->role, "cycles") == 0
                                         : r->sel_plain && r->sel_code == need[k].code &&
                                               r->sel_umask == need[k].umask;
            }
            if (!found && !add_row(rows, &ea, ops->name, need[k].typed, next_group, &error)) {
                status = pmusim_cli_fail(error);
                goto out;
            }
        }
    }
    regs = pmusim_regs_new();
    GError *fit_error = NULL;
    gboolean fits = TRUE;
    if (rows->len) {
        GPtrArray *natives = g_ptr_array_new();
        for (guint i = 0; i < rows->len; i++)
            g_ptr_array_add(natives, g_array_index(rows, row_t, i).native);
        g_ptr_array_add(natives, NULL);
        fits = pmusim_enc_args_build_regs(&ea, ops->name, (char **)natives->pdata, NULL, regs,
                                          &fit_error);
        g_ptr_array_free(natives, TRUE);
    }
    out_opts_t oo = {.sep = sep_opt ? sep_opt[0] : 0, .json = json, .trace = trace,
                     .pmu = ops->name, .nthreads = MAX(h->nthreads, 1u), .repeat = repeat,
                     .ref_num = ref_num, .ref_den = ref_den};
    gboolean progress = pmusim_cli_show_progress() && !json && !sep_opt;
    FILE *info = json || sep_opt ? stderr : stdout; /* --show-regs, --explain */
    {
        const char **inputs = pmusim_cli_inputs(trace, regs_files);
        out = pmusim_outfile_open(out_path ? out_path : "-", inputs, &error);
        g_free(inputs);
        if (!out) {
            status = pmusim_cli_fail(error);
            goto out;
        }
    }
    FILE *fp = pmusim_outfile_fp(out);
    gboolean regs_only = !rows->len; /* rows come from the -R counters */
    oo.per_thread = per_thread && interval; /* -I prints per thread itself */
    interval_state_t ist = {.rows = rows, .from_counters = !rows->len, .fp = fp, .oo = &oo,
                            .interval = (uint64_t)interval};
    if (fits) {
        g_clear_error(&fit_error);
        g_array_append_vals(regs, run.regs->data, run.regs->len);
        if (show_regs)
            pmusim_regs_print(regs, stderr);
        if (explain)
            pmusim_cli_explain_regs(ops, regs, info);
        model = pmusim_model_new(ops->name, oo.nthreads, &error);
        ist.prev = g_array_new(FALSE, TRUE, sizeof(uint64_t));
        gboolean ok = model && (!ref_num ||
                                pmusim_model_set_ref_ratio(model, ref_num, ref_den, &error)) &&
                      pmusim_replay_timed_stops(
                                   model, reader, regs, interval ? (uint64_t)interval : G_MAXUINT64,
                                   interval ? interval_stop : NULL, &ist,
                                   progress ? progress_cb : NULL, NULL, &error);
        if (ok && interval) { /* the last, possibly shorter, interval */
            pmusim_report_t end;
            pmusim_report_init(&end);
            pmusim_model_collect(model, &end);
            if (end.cycles > oo.stamp || !ist.prev->len)
                interval_print(&ist, model, end.cycles);
            pmusim_report_clear(&end);
        }
        g_array_free(ist.prev, TRUE);
        if (!ok) {
            if (progress)
                fputc('\n', stderr);
            if (error->domain == PMUSIM_SIM_ERROR) /* reader errors name the file already */
                g_prefix_error(&error, "%s: ", trace);
            status = pmusim_cli_fail(error);
            goto out;
        }
        if (interval)
            goto commit; /* perf -I prints the intervals only */
        pmusim_report_init(&rep);
        have_rep = TRUE;
        pmusim_model_collect(model, &rep);
        /* the reader's count: a replay with stops also hands the model
         * split IDLE records and markers */
        rep.records = pmusim_trace_reader_records_read(reader);
        if (rows->len)
            rows_from_report(rows, &rep, -1);
        else
            rows_from_counters(rows, &rep, -1);
        if (per_thread) {
            per = g_ptr_array_new();
            for (uint32_t t = 0; t < oo.nthreads; t++) {
                /* the same rows (strings shared), counted on thread t only */
                GArray *trows = g_array_new(FALSE, TRUE, sizeof(row_t));
                for (guint i = 0; i < rows->len; i++) {
                    row_t c = g_array_index(rows, row_t, i);
                    c.value = 0;
                    c.per_core = FALSE;
                    g_array_append_val(trows, c);
                }
                if (rows->len && regs_only)
                    rows_from_counters(trows, &rep, (int)t);
                else
                    rows_from_report(trows, &rep, (int)t);
                g_ptr_array_add(per, trows);
            }
        }
        oo.cycles = rep.cycles;
        oo.records = rep.records;
        oo.no_timing = !(model->trace_annotations & PMUSIM_ANN_TIMING);
    } else {
        status = run_multiplexed(&mux, rows, &ea, ops, reader, (uint64_t)mux_interval,
                                 (uint64_t)interval, fp, regs_files, fit_error, progress,
                                 show_regs, per_thread, &per, &oo);
        g_clear_error(&fit_error);
        if (status)
            goto out;
        if (interval)
            goto commit; /* perf -I prints the intervals only */
        if (dump)
            fputs("pmusim stat: --dump-regs shows one model's registers: not with "
                  "multiplexing\n", stderr);
        dump = FALSE;
    }
    if (explain)
        print_explain_sources(info, rows);
    if (topdown)
        topdown_note(rows);
    print_rows(fp, rows, per, &oo);
    if (have_rep && !json && !sep_opt)
        print_details(fp, &rep, verbose);
    if (dump)
        dump_regs(fp, json, model);
commit:
    if (!pmusim_outfile_commit(out, &error)) {
        out = NULL;
        status = pmusim_cli_fail(error);
        goto out;
    }
    out = NULL;
out:
    pmusim_outfile_abort(out);
    if (have_rep)
        pmusim_report_clear(&rep);
    mux_clear(&mux);
    for (guint i = 0; i < rows->len; i++) {
        row_t *r = &g_array_index(rows, row_t, i);
        g_free(r->typed);
        g_free(r->native);
        g_free(r->canon);
    }
    if (per) {
        for (guint t = 0; t < per->len; t++)
            g_array_free(g_ptr_array_index(per, t), TRUE);
        g_ptr_array_free(per, TRUE);
    }
    g_array_free(rows, TRUE);
    if (regs)
        g_array_free(regs, TRUE);
    g_ptr_array_free(typed, TRUE);
    g_array_free(groups, TRUE);
    if (error)
        g_error_free(error);
    pmusim_model_free(model);
    pmusim_run_setup_clear(&run);
    g_strfreev(regs_files);
    g_free(pmu_opt);
    g_free(pmu);
    g_free(sep_opt);
    g_free(out_path);
    g_free(ref_opt);
    pmusim_enc_args_clear(&ea);
    g_option_context_free(ctx);
    g_free(keep_argv);
    if (keep_args)
        g_ptr_array_free(keep_args, TRUE);
    return status;
}
