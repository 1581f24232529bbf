/* pmusim record: sample a trace through an OS front door (perfmon2-style on
 * IA-64, perf_event-style on x86; pmusim/frontdoor.h), print the samples
 * and a perf-report-like summary by symbol with the exact count beside each
 * estimate, and write perf.data (-o) for perf report / script / mem report
 * and pmusim report / script.  docs/SAMPLING.md. */
#include "cmds.h"
#include "enc_args.h"
#include "pmusim/frontdoor.h"
#include "pmusim/outfile.h"
#include "pmusim/sim.h"
#include "../perfdata/perfdata.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <glib/gstdio.h>

#define RECORD_DEFAULT_PERIOD 10000u
#define RECORD_DEFAULT_TOP 10u
/* Default skid (instructions between the overflowing instruction and the
 * sampled IP) of a non-precise sample.  Intel documents no number; VTune's
 * guide shows events landing "one or two instructions away", and an
 * interrupt is taken at the next instruction boundary at the earliest, so
 * 1 on every model (docs/SAMPLING.md "Skid"); --skid changes it. */
#define RECORD_DEFAULT_SKID 1u
/* perf.data process id of the traced program when the trace names none
 * (metadata "pid"); thread t is tid pid + t. */
#define RECORD_DEFAULT_PID 1000u

/* x86 MSRs that name a counter (SDM Vol. 3B §18.2). */
enum {
    MSR_PMC0 = 0x0c1,
    MSR_EVTSEL0 = 0x186,
    MSR_FIXED_CTR0 = 0x309,
    MSR_PEBS_ENABLE = 0x3f1,
    X86_GP_MAX = 8,
    X86_FIXED_MAX = 3,
};

/* A counter the events landed on. */
typedef struct rec_ctr {
    uint32_t reg; /* data register: PMD number / MSR */
    char label[PMUSIM_REG_LABEL_MAX];
} rec_ctr_t;

/* Data register programmed by a labelled write, or FALSE.  IA-64: PMCn and
 * PMDn of a counter (Itanium 2 4..7, Montecito 4..15) -> PMDn; x86:
 * IA32_PERFEVTSELi and IA32_PMCi -> IA32_PMCi, IA32_FIXED_CTRk -> itself
 * (IA32_FIXED_CTR_CTRL's label names several events). */
static gboolean counter_of_write(const pmusim_model_ops_t *ops, const pmusim_regwrite_t *w,
                                 uint32_t *reg)
{
    if (!w->label[0])
        return FALSE;
    if (ops->isa == PMUSIM_ISA_IA64) {
        uint32_t last = ops->cpu == PMUSIM_CPU_ITA2 ? 7u : 15u;
        if ((w->space == PMUSIM_REG_PMC || w->space == PMUSIM_REG_PMD) && w->num >= 4 &&
            w->num <= last) {
            *reg = w->num;
            return TRUE;
        }
        return FALSE;
    }
    if (w->space != PMUSIM_REG_MSR)
        return FALSE;
    if (w->num >= MSR_EVTSEL0 && w->num < MSR_EVTSEL0 + X86_GP_MAX) {
        *reg = MSR_PMC0 + (w->num - MSR_EVTSEL0);
        return TRUE;
    }
    if ((w->num >= MSR_PMC0 && w->num < MSR_PMC0 + X86_GP_MAX) ||
        (w->num >= MSR_FIXED_CTR0 && w->num < MSR_FIXED_CTR0 + X86_FIXED_MAX)) {
        *reg = w->num;
        return TRUE;
    }
    return FALSE;
}

/* The counters of the labelled writes, in first-programmed order. */
static GArray *find_counters(const pmusim_model_ops_t *ops, const GArray *regs)
{
    GArray *out = g_array_new(FALSE, TRUE, sizeof(rec_ctr_t));
    for (guint i = 0; i < regs->len; i++) {
        const pmusim_regwrite_t *w = &g_array_index(regs, pmusim_regwrite_t, i);
        uint32_t reg;
        if (!counter_of_write(ops, w, &reg))
            continue;
        guint j;
        for (j = 0; j < out->len; j++)
            if (g_array_index(out, rec_ctr_t, j).reg == reg)
                break;
        if (j < out->len)
            continue;
        rec_ctr_t c = {.reg = reg};
        g_strlcpy(c.label, w->label, sizeof c.label);
        g_array_append_val(out, c);
    }
    return out;
}

/* ---- symbols ---- */

/* ---- the simulated clock ---- */

/* Core clock of each model's reference SKU (../shared/reference/uarch.md,
 * "Reference SKUs"): sample times in perf.data and frequency mode (-F)
 * run on it. */
static uint64_t record_core_hz(pmusim_cpu_t cpu)
{
    switch (cpu) {
    case PMUSIM_CPU_ITA2: return UINT64_C(1500000000); /* Itanium 2 6M, 1.5 GHz */
    case PMUSIM_CPU_MONT: return UINT64_C(1600000000); /* Itanium 2 9050, 1.6 GHz */
    case PMUSIM_CPU_KNM: return UINT64_C(1500000000);  /* Xeon Phi 7295, 1.5 GHz */
    default: return UINT64_C(2660000000);              /* Xeon X5650, 2.66 GHz (wsm, wsm_dp) */
    }
}

static uint64_t record_cycles_to_ns(uint64_t cycles, uint64_t hz)
{
    __extension__ unsigned __int128 ns = (unsigned __int128)cycles * 1000000000u / hz;
    return ns > UINT64_MAX ? UINT64_MAX : (uint64_t)ns;
}

/* ---- ground truth: every occurrence attributed, no skid ---- */

/* The summary row of an IP: its symbol, or "[0x...]" outside every one. */
static void row_name(const pd_symbols_t *syms, uint64_t ip, char *buf, size_t len)
{
    const pd_symbol_t *s = pd_symbol_find(syms, ip);
    if (s)
        g_strlcpy(buf, s->name, len);
    else
        g_snprintf(buf, len, "[0x%016" G_GINT64_MODIFIER "x]", (guint64)ip);
}

/* occurrences before a thread's first instruction (its cycles, say) */
#define UNATTRIBUTED "[before the first instruction]"

/* Exact counts of each counter by symbol (what a profiler with neither
 * sampling error nor skid would attribute: truth_replay()). */
typedef struct truth {
    /* per counter: symbol name, or "[0x...]" for an IP outside every
     * symbol (the summary's rows) -> uint64_t* */
    GHashTable **by_symbol;
    uint64_t *total;        /* per counter, occurrences counted */
    /* per counter and thread: the 64-bit count at the last attribution */
    uint64_t (*last)[PMUSIM_MAX_THREADS];
    size_t n;
    gboolean done;          /* FALSE: not computed (why in `note`) */
    char note[160];
    const pd_symbols_t *syms;
} truth_t;

static void truth_init(truth_t *t, size_t n, const pd_symbols_t *syms)
{
    memset(t, 0, sizeof *t);
    t->n = n;
    t->syms = syms;
    t->by_symbol = g_new0(GHashTable *, n);
    t->total = g_new0(uint64_t, n);
    t->last = g_malloc0(n * sizeof *t->last);
    for (size_t k = 0; k < n; k++)
        t->by_symbol[k] = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
}

static void truth_clear(truth_t *t)
{
    for (size_t k = 0; k < t->n; k++)
        g_hash_table_destroy(t->by_symbol[k]);
    g_free(t->by_symbol);
    g_free(t->total);
    g_free(t->last);
}

static void truth_add(truth_t *t, size_t k, const char *sym, uint64_t n)
{
    uint64_t *c = g_hash_table_lookup(t->by_symbol[k], sym);
    if (!c) {
        c = g_new0(uint64_t, 1);
        g_hash_table_insert(t->by_symbol[k], g_strdup(sym), c);
    }
    *c += n;
}

static uint64_t truth_get(const truth_t *t, size_t k, const char *sym)
{
    const uint64_t *c = g_hash_table_lookup(t->by_symbol[k], sym);
    return c ? *c : 0;
}

static gint name_cmp(gconstpointer a, gconstpointer b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* The rows the truth knows for counter k, by name (the names belong to the
 * truth). */
static GPtrArray *truth_rows(const truth_t *t, size_t k)
{
    GPtrArray *names = g_ptr_array_new();
    GHashTableIter it;
    gpointer key, val;
    g_hash_table_iter_init(&it, t->by_symbol[k]);
    while (g_hash_table_iter_next(&it, &key, &val))
        g_ptr_array_add(names, key);
    g_ptr_array_sort(names, name_cmp);
    return names;
}

/* The counts of the session's counters on every thread, 64-bit. */
static void truth_read(const pmusim_frontdoor_t *fd, size_t n, uint32_t nthreads,
                       uint64_t now[][PMUSIM_MAX_THREADS])
{
    for (size_t k = 0; k < n; k++)
        for (uint32_t t = 0; t < nthreads; t++)
            now[k][t] = pmusim_frontdoor_counter_total(fd, k, t);
}

/* What each thread counted since the last read goes to the row of its
 * current instruction. */
static void truth_attribute(truth_t *t, const pmusim_frontdoor_t *fd, uint32_t nthreads,
                            char cur[][160])
{
    uint64_t now[PMUSIM_FRONTDOOR_MAX_COUNTERS][PMUSIM_MAX_THREADS];
    truth_read(fd, t->n, nthreads, now);
    for (size_t k = 0; k < t->n; k++)
        for (uint32_t th = 0; th < nthreads; th++)
            if (now[k][th] != t->last[k][th]) {
                truth_add(t, k, cur[th], now[k][th] - t->last[k][th]);
                t->last[k][th] = now[k][th];
            }
}

/* A second replay of the same trace and registers with the counters only
 * counting (64-bit, through the front door), cut where a thread's
 * instruction leaves its row (symbol, or IP outside every symbol): what
 * each counter counted on each thread before that cycle goes to the
 * thread's old row.  So instruction-driven x86 events count for their own
 * instruction, IA-64 events (counted per cycle) for the cycle's row, and a
 * cycle in which a thread changes row for the new row
 * (docs/SAMPLING.md "Ground truth").  One model call per run of records in
 * one row: a loop costs about what a plain replay does. */
static void truth_replay(truth_t *t, const char *trace, const pmusim_model_ops_t *ops,
                         uint32_t nthreads, const GArray *regs, const GArray *ctrs)
{
    GError *e = NULL;
    pmusim_model_t *m = NULL;
    pmusim_frontdoor_t *fd = NULL;
    pmusim_trace_reader_t *r = NULL;
    if (strcmp(trace, "-") == 0) {
        g_strlcpy(t->note, "the trace came from stdin and cannot be read twice", sizeof t->note);
        return;
    }
    gboolean ok = (r = pmusim_trace_reader_open(trace, &e)) &&
                  (m = pmusim_model_new(ops->name, nthreads, &e)) &&
                  pmusim_model_write_regs(m, regs, &e) && (fd = pmusim_frontdoor_new(m, &e));
    for (guint i = 0; ok && i < ctrs->len; i++) {
        const rec_ctr_t *c = &g_array_index(ctrs, rec_ctr_t, i);
        ok = pmusim_frontdoor_add_counting(fd, c->reg, c->label, &e) >= 0;
    }
    ok = ok && pmusim_frontdoor_start(fd, &e);
    if (ok)
        pmusim_model_set_trace_header(m, pmusim_trace_reader_header(r));
    char cur[PMUSIM_MAX_THREADS][160];
    uint64_t lo[PMUSIM_MAX_THREADS], hi[PMUSIM_MAX_THREADS]; /* cur's symbol range */
    for (uint32_t th = 0; th < PMUSIM_MAX_THREADS; th++) {
        g_strlcpy(cur[th], UNATTRIBUTED, sizeof cur[th]);
        lo[th] = 1;
        hi[th] = 0;
    }
    enum { TRUTH_BATCH = 1024 };
    pmusim_rec_t *batch = g_new(pmusim_rec_t, TRUTH_BATCH);
    while (ok) {
        gssize n = pmusim_trace_reader_next_batch(r, batch, TRUTH_BATCH, &e);
        if (n <= 0) {
            ok = n == 0;
            break;
        }
        size_t from = 0;
        for (size_t i = 0; i < (size_t)n; i++) {
            const pmusim_rec_t *rec = &batch[i];
            uint32_t th = rec->thread < PMUSIM_MAX_THREADS ? rec->thread : 0;
            if (rec->kind != PMUSIM_REC_INSN || (rec->ip >= lo[th] && rec->ip < hi[th]))
                continue;
            const pd_symbol_t *sym = pd_symbol_find(t->syms, rec->ip);
            if (sym && strcmp(cur[th], sym->name) == 0) {
                lo[th] = sym->start;
                hi[th] = sym->end;
                continue;
            }
            /* thread th changes row: what was counted before this cycle
             * is its old row's.  A marker of this cycle makes every model
             * close the cycles before it (IA-64 counts a cycle when it
             * ends) without counting anything itself. */
            m->ops->consume(m, batch + from, i - from);
            from = i;
            pmusim_rec_t mark = {.kind = PMUSIM_REC_MARKER, .cycle = rec->cycle,
                                 .thread = rec->thread, .name = ""};
            m->ops->consume(m, &mark, 1);
            truth_attribute(t, fd, nthreads, cur);
            row_name(t->syms, rec->ip, cur[th], sizeof cur[th]);
            lo[th] = sym ? sym->start : rec->ip;
            hi[th] = sym ? sym->end : rec->ip + 1;
        }
        m->ops->consume(m, batch + from, (size_t)n - from);
    }
    g_free(batch);
    if (ok) {
        m->ops->finish(m);
        truth_attribute(t, fd, nthreads, cur);
        t->done = TRUE;
        for (size_t k = 0; k < t->n; k++)
            for (uint32_t th = 0; th < nthreads; th++)
                t->total[k] += t->last[k][th];
    } else {
        g_snprintf(t->note, sizeof t->note, "the ground-truth replay failed: %s",
                   e ? e->message : "?");
    }
    g_clear_error(&e);
    pmusim_frontdoor_free(fd);
    pmusim_model_free(m);
    pmusim_trace_reader_free(r);
}

/* ---- output ---- */

/* " addr=0x... weight=N" and friends: what the capture units captured. */
static void capture_text(const pmusim_frontdoor_t *fd, const pmusim_sample_t *s, char *buf,
                         size_t len)
{
    GString *g = g_string_new(NULL);
    size_t nbr;
    const pmusim_branch_pair_t *br = pmusim_frontdoor_sample_branches(fd, s, &nbr);
    for (size_t i = 0; i < nbr; i++) {
        g_string_append_printf(g, "%s0x%" G_GINT64_MODIFIER "x", i ? "," : " branches=",
                               (guint64)br[i].from);
        if (br[i].taken)
            g_string_append_printf(g, "->0x%" G_GINT64_MODIFIER "x", (guint64)br[i].to);
        else
            g_string_append(g, "(not taken)");
        if (br[i].mispred)
            g_string_append(g, br[i].mispred == 1 ? "/M" : "/MB");
    }
    if (s->skid)
        g_string_append_printf(g, " skid=%u", s->skid);
    if (s->flags & PMUSIM_SAMPLE_SKID_CUT)
        g_string_append(g, " (skid cut: no later instruction on the thread)");
    if (s->flags & PMUSIM_SAMPLE_ADDR)
        g_string_append_printf(g, " %s=0x%" G_GINT64_MODIFIER "x",
                               (s->flags & PMUSIM_SAMPLE_IEAR) ? "iaddr" : "addr",
                               (guint64)s->addr);
    if (s->flags & PMUSIM_SAMPLE_WEIGHT)
        g_string_append_printf(g, " latency=%" G_GUINT64_FORMAT, (guint64)s->weight);
    if ((s->flags & PMUSIM_SAMPLE_DSRC) && s->mem_level < PMUSIM_LVL_COUNT)
        g_string_append_printf(g, " source=%s", pmusim_mem_level_name(s->mem_level));
    if ((s->flags & PMUSIM_SAMPLE_DSRC) && s->mem_tlb != PMUSIM_SAMPLE_TLB_UNKNOWN) {
        static const char *const tlb[PMUSIM_TLB_COUNT] = {"l1", "l2", "walk", "fault"};
        g_string_append_printf(g, " tlb=%s", s->mem_tlb < PMUSIM_TLB_COUNT ? tlb[s->mem_tlb] : "?");
    }
    g_strlcpy(buf, g->str, len);
    g_string_free(g, TRUE);
}

static void print_samples(FILE *fp, const pmusim_frontdoor_t *fd, const pd_symbols_t *syms)
{
    fprintf(fp, "#%15s %6s  %-18s  %-32s %s\n", "cycle", "thread", "ip", "symbol", "event");
    for (size_t i = 0, n = pmusim_frontdoor_n_samples(fd); i < n; i++) {
        const pmusim_sample_t *s = pmusim_frontdoor_sample(fd, i);
        char sym[160], cap[1024];
        pd_symbol_text(syms, s->ip, sym, sizeof sym);
        capture_text(fd, s, cap, sizeof cap);
        fprintf(fp, "%16" G_GUINT64_FORMAT " %6u  0x%016" G_GINT64_MODIFIER "x  %-32s %s%s%s\n",
                (guint64)s->cycle, s->thread, (guint64)s->ip, sym,
                pmusim_frontdoor_counter_label(fd, s->counter),
                (s->flags & PMUSIM_SAMPLE_PEBS) ? " (PEBS)" : "", cap);
    }
}

/* One row of the summary: a symbol, or an IP outside every symbol. */
typedef struct hist_row {
    const char *symbol; /* NULL: by ip */
    uint64_t ip;
    uint64_t samples;
    uint64_t estimate; /* sum of the samples' periods */
} hist_row_t;

static gint hist_cmp(gconstpointer a, gconstpointer b)
{
    const hist_row_t *x = a, *y = b;
    if (x->samples != y->samples)
        return x->samples > y->samples ? -1 : 1;
    if (x->symbol && y->symbol)
        return strcmp(x->symbol, y->symbol);
    if (!x->symbol != !y->symbol)
        return x->symbol ? -1 : 1;
    return x->ip < y->ip ? -1 : x->ip > y->ip ? 1 : 0;
}

/* Rows for counter k, sorted by samples (ties: name / ip). */
static GArray *histogram(const pmusim_frontdoor_t *fd, size_t k, const pd_symbols_t *syms,
                         uint64_t *total)
{
    GHashTable *idx = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
    GArray *rows = g_array_new(FALSE, TRUE, sizeof(hist_row_t));
    *total = 0;
    for (size_t i = 0, n = pmusim_frontdoor_n_samples(fd); i < n; i++) {
        const pmusim_sample_t *s = pmusim_frontdoor_sample(fd, i);
        if (s->counter != k)
            continue;
        (*total)++;
        const pd_symbol_t *sym = pd_symbol_find(syms, s->ip);
        char *key = sym ? g_strconcat("s:", sym->name, NULL)
                        : g_strdup_printf("i:%" G_GINT64_MODIFIER "x", (guint64)s->ip);
        gpointer at;
        if (g_hash_table_lookup_extended(idx, key, NULL, &at)) {
            hist_row_t *r = &g_array_index(rows, hist_row_t, GPOINTER_TO_UINT(at));
            r->samples++;
            r->estimate += s->period;
            g_free(key);
        } else {
            hist_row_t r = {.symbol = sym ? sym->name : NULL, .ip = s->ip, .samples = 1,
                            .estimate = s->period};
            g_hash_table_insert(idx, key, GUINT_TO_POINTER(rows->len));
            g_array_append_val(rows, r);
        }
    }
    g_hash_table_destroy(idx);
    g_array_sort(rows, hist_cmp);
    return rows;
}

static uint64_t counter_total(const pmusim_frontdoor_t *fd, size_t k, uint32_t nthreads)
{
    uint64_t sum = 0;
    for (uint32_t t = 0; t < nthreads; t++)
        sum += pmusim_frontdoor_counter_total(fd, k, t);
    return sum;
}

static uint64_t counter_samples(const pmusim_frontdoor_t *fd, size_t k, uint32_t nthreads)
{
    uint64_t sum = 0;
    for (uint32_t t = 0; t < nthreads; t++)
        sum += pmusim_frontdoor_counter_samples(fd, k, t);
    return sum;
}

static gint exact_cmp(gconstpointer a, gconstpointer b, gpointer user)
{
    const truth_t *t = ((const truth_t *const *)user)[0];
    size_t k = GPOINTER_TO_SIZE(((gpointer *)user)[1]);
    const char *x = *(const char *const *)a, *y = *(const char *const *)b;
    uint64_t ex = truth_get(t, k, x), ey = truth_get(t, k, y);
    return ex != ey ? (ex > ey ? -1 : 1) : strcmp(x, y);
}

/* The rows the truth knows and no sample hit: what sampling missed
 * entirely (most counted first). */
static void print_unsampled(FILE *fp, const truth_t *truth, size_t k, const GArray *rows,
                            const pd_symbols_t *syms, unsigned top)
{
    GHashTable *seen = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
    for (guint i = 0; i < rows->len; i++) {
        char name[160];
        row_name(syms, g_array_index(rows, hist_row_t, i).ip, name, sizeof name);
        g_hash_table_add(seen, g_strdup(name));
    }
    GPtrArray *miss = g_ptr_array_new();
    GHashTableIter it;
    gpointer key, val;
    g_hash_table_iter_init(&it, truth->by_symbol[k]);
    while (g_hash_table_iter_next(&it, &key, &val))
        if (*(const uint64_t *)val && !g_hash_table_contains(seen, key))
            g_ptr_array_add(miss, key);
    gpointer ctx[2] = {(gpointer)truth, GSIZE_TO_POINTER(k)};
    g_ptr_array_sort_with_data(miss, exact_cmp, ctx);
    for (guint i = 0; i < miss->len && i < top; i++) {
        const char *name = g_ptr_array_index(miss, i);
        fprintf(fp, "%9.2f%%  %7d  %12d  %12" G_GUINT64_FORMAT "  %8s  %s\n", 0.0, 0, 0,
                (guint64)truth_get(truth, k, name), "-100.00%", name);
    }
    if (miss->len > top)
        fprintf(fp, "# (%u more not sampled)\n", miss->len - top);
    g_ptr_array_free(miss, TRUE);
    g_hash_table_destroy(seen);
}

/* "period N", or "frequency F Hz" in frequency mode (freq != 0). */
static void period_text(const pmusim_frontdoor_t *fd, size_t k, uint64_t freq, char *buf,
                        size_t len)
{
    if (freq)
        g_snprintf(buf, len, "frequency %" G_GUINT64_FORMAT " Hz", (guint64)freq);
    else
        g_snprintf(buf, len, "period %" G_GUINT64_FORMAT,
                   (guint64)pmusim_frontdoor_counter_period(fd, k));
}

static void print_summary(FILE *fp, const char *trace, const char *pmu,
                          const pmusim_frontdoor_t *fd, const pd_symbols_t *syms, uint32_t nthreads,
                          unsigned top, const truth_t *truth, uint64_t freq)
{
    fprintf(fp, "# pmusim record: %s, PMU %s (%s front door), %u hardware thread%s\n", trace, pmu,
            pmusim_frontdoor_style(fd) == PMUSIM_FRONTDOOR_PERFMON2 ? "perfmon2" : "perf_event",
            nthreads, nthreads == 1 ? "" : "s");
    for (size_t k = 0; k < pmusim_frontdoor_n_counters(fd); k++) {
        char reg[32];
        pmusim_frontdoor_reg_name(fd, pmusim_frontdoor_counter_reg(fd, k), reg, sizeof reg);
        uint64_t kept;
        GArray *rows = histogram(fd, k, syms, &kept);
        uint64_t taken = counter_samples(fd, k, nthreads);
        char kept_note[48] = "", period[48];
        if (kept != taken)
            g_snprintf(kept_note, sizeof kept_note, " (%" G_GUINT64_FORMAT " kept)", (guint64)kept);
        period_text(fd, k, freq, period, sizeof period);
        fprintf(fp,
                "#\n# Samples: %" G_GUINT64_FORMAT "%s of event '%s' (%s, %s), %" G_GUINT64_FORMAT
                " occurrences counted\n",
                (guint64)taken, kept_note, pmusim_frontdoor_counter_label(fd, k), reg, period,
                (guint64)counter_total(fd, k, nthreads));
        if (rows->len && truth && truth->done)
            fprintf(fp, "# Overhead  Samples  %12s  %12s  %8s  Symbol\n", "Estimate", "Exact",
                    "Error");
        else if (rows->len)
            fprintf(fp, "# Overhead  Samples  Symbol\n");
        for (guint i = 0; i < rows->len && i < top; i++) {
            const hist_row_t *r = &g_array_index(rows, hist_row_t, i);
            double pct = 100.0 * (double)r->samples / (double)kept;
            char name[160];
            row_name(syms, r->ip, name, sizeof name);
            if (truth && truth->done) {
                uint64_t exact = truth_get(truth, k, name);
                char err[32];
                pd_error_text(r->estimate, exact, err, sizeof err);
                fprintf(fp,
                        "%9.2f%%  %7" G_GUINT64_FORMAT "  %12" G_GUINT64_FORMAT
                        "  %12" G_GUINT64_FORMAT "  %8s  %s\n",
                        pct, (guint64)r->samples, (guint64)r->estimate, (guint64)exact, err,
                        name);
            } else {
                fprintf(fp, "%9.2f%%  %7" G_GUINT64_FORMAT "  %s\n", pct, (guint64)r->samples,
                        name);
            }
        }
        if (rows->len > top)
            fprintf(fp, "# (%u more)\n", rows->len - top);
        if (truth && truth->done)
            print_unsampled(fp, truth, k, rows, syms, top);
        g_array_free(rows, TRUE);
    }
    fprintf(fp, "#\n# %" G_GUINT64_FORMAT " interrupts, %zu samples kept, %" G_GUINT64_FORMAT
                " dropped (sample limit)\n",
            (guint64)pmusim_frontdoor_interrupts(fd), pmusim_frontdoor_n_samples(fd),
            (guint64)pmusim_frontdoor_dropped(fd));
    uint64_t stop;
    if (pmusim_frontdoor_stopped(fd, &stop))
        fprintf(fp,
                "# sampling stopped at cycle %" G_GUINT64_FORMAT
                ": interrupt limit reached (--max-interrupts); the rest was counted\n",
                (guint64)stop);
    if (truth && !truth->done && truth->note[0])
        fprintf(fp, "# exact counts by symbol not available: %s\n", truth->note);
}

static void print_json(FILE *fp, const char *trace, const char *pmu, const pmusim_frontdoor_t *fd,
                       const pd_symbols_t *syms, uint32_t nthreads, uint64_t freq,
                       const truth_t *truth)
{
    fprintf(fp, "{\n  \"trace\": ");
    pmusim_cli_json_string(fp, trace);
    fprintf(fp, ",\n  \"pmu\": ");
    pmusim_cli_json_string(fp, pmu);
    fprintf(fp, ",\n  \"frontdoor\": \"%s\",\n  \"events\": [",
            pmusim_frontdoor_style(fd) == PMUSIM_FRONTDOOR_PERFMON2 ? "perfmon2" : "perf_event");
    for (size_t k = 0; k < pmusim_frontdoor_n_counters(fd); k++) {
        char reg[32];
        pmusim_frontdoor_reg_name(fd, pmusim_frontdoor_counter_reg(fd, k), reg, sizeof reg);
        fprintf(fp, "%s\n    {\"event\": ", k ? "," : "");
        pmusim_cli_json_string(fp, pmusim_frontdoor_counter_label(fd, k));
        fprintf(fp, ", \"reg\": ");
        pmusim_cli_json_string(fp, reg);
        if (freq)
            fprintf(fp, ", \"period\": null, \"frequency\": %" G_GUINT64_FORMAT, (guint64)freq);
        else
            fprintf(fp, ", \"period\": %" G_GUINT64_FORMAT,
                    (guint64)pmusim_frontdoor_counter_period(fd, k));
        fprintf(fp, ", \"samples\": %" G_GUINT64_FORMAT ", \"count\": %" G_GUINT64_FORMAT,
                (guint64)counter_samples(fd, k, nthreads), (guint64)counter_total(fd, k, nthreads));
        /* the ground truth by row (null without it) */
        fprintf(fp, ", \"exact\": ");
        if (!truth->done) {
            fprintf(fp, "null}");
            continue;
        }
        GPtrArray *names = truth_rows(truth, k);
        fprintf(fp, "{");
        for (guint i = 0; i < names->len; i++) {
            const char *name = g_ptr_array_index(names, i);
            fprintf(fp, "%s", i ? ", " : "");
            pmusim_cli_json_string(fp, name);
            fprintf(fp, ": %" G_GUINT64_FORMAT, (guint64)truth_get(truth, k, name));
        }
        fprintf(fp, "}}");
        g_ptr_array_free(names, TRUE);
    }
    uint64_t stop = 0;
    gboolean stopped = pmusim_frontdoor_stopped(fd, &stop);
    fprintf(fp,
            "\n  ],\n  \"interrupts\": %" G_GUINT64_FORMAT ",\n  \"dropped\": %" G_GUINT64_FORMAT
                ",\n  \"stopped_at_cycle\": ",
            (guint64)pmusim_frontdoor_interrupts(fd), (guint64)pmusim_frontdoor_dropped(fd));
    if (stopped)
        fprintf(fp, "%" G_GUINT64_FORMAT, (guint64)stop);
    else
        fprintf(fp, "null");
    fprintf(fp, ",\n  \"samples\": [");
    for (size_t i = 0, n = pmusim_frontdoor_n_samples(fd); i < n; i++) {
        const pmusim_sample_t *s = pmusim_frontdoor_sample(fd, i);
        char sym[160];
        pd_symbol_text(syms, s->ip, sym, sizeof sym);
        fprintf(fp,
                "%s\n    {\"cycle\": %" G_GUINT64_FORMAT ", \"thread\": %u, \"ip\": \"0x%"
                G_GINT64_MODIFIER "x\", \"symbol\": ",
                i ? "," : "", (guint64)s->cycle, s->thread, (guint64)s->ip);
        pmusim_cli_json_string(fp, sym);
        fprintf(fp, ", \"overflow_ip\": \"0x%" G_GINT64_MODIFIER "x\", \"skid\": %u, \"period\": %"
                    G_GUINT64_FORMAT,
                (guint64)s->overflow_ip, s->skid, (guint64)s->period);
        if (s->flags & PMUSIM_SAMPLE_ADDR)
            fprintf(fp, ", \"addr\": \"0x%" G_GINT64_MODIFIER "x\"", (guint64)s->addr);
        if (s->flags & PMUSIM_SAMPLE_WEIGHT)
            fprintf(fp, ", \"latency\": %" G_GUINT64_FORMAT, (guint64)s->weight);
        if ((s->flags & PMUSIM_SAMPLE_DSRC) && s->mem_level < PMUSIM_LVL_COUNT)
            fprintf(fp, ", \"source\": \"%s\"", pmusim_mem_level_name(s->mem_level));
        size_t nbr;
        const pmusim_branch_pair_t *br = pmusim_frontdoor_sample_branches(fd, s, &nbr);
        if (nbr) {
            fprintf(fp, ", \"branches\": [");
            for (size_t b = 0; b < nbr; b++)
                fprintf(fp,
                        "%s{\"from\": \"0x%" G_GINT64_MODIFIER "x\", \"to\": \"0x%"
                        G_GINT64_MODIFIER "x\", \"taken\": %s, \"mispredicted\": \"%s\"}",
                        b ? ", " : "", (guint64)br[b].from, (guint64)br[b].to,
                        br[b].taken ? "true" : "false",
                        br[b].mispred == 1 ? "front end" : br[b].mispred == 2 ? "back end" : "no");
            fprintf(fp, "]");
        }
        fprintf(fp, ", \"counter\": %u, \"pebs\": %s, \"values\": [", s->counter,
                (s->flags & PMUSIM_SAMPLE_PEBS) ? "true" : "false");
        for (uint32_t v = 0; v < s->nvalues; v++)
            fprintf(fp, "%s%" G_GUINT64_FORMAT, v ? ", " : "", (guint64)s->values[v]);
        fprintf(fp, "]}");
    }
    fprintf(fp, "\n  ]\n}\n");
}

/* ---- perf.data ---- */

/* The perf_event attribute of counter k: x86 GP counters as raw events
 * (PERFEVTSEL bits perf's raw config holds: event, umask, edge, any, inv,
 * cmask), fixed counters as the generic events they count (instructions,
 * cycles, ref-cycles: PERF_COUNT_HW_* 1, 0, 9), IA-64 counters as raw PMC
 * values. */
static void perf_attr_of(pmusim_model_t *m, const pmusim_frontdoor_t *fd, size_t k,
                         pd_event_t *e)
{
    uint32_t reg = pmusim_frontdoor_counter_reg(fd, k);
    uint64_t v = 0;
    e->type = PD_TYPE_RAW;
    if (m->ops->isa == PMUSIM_ISA_IA64) {
        m->ops->read_reg(m, PMUSIM_REG_PMC, reg, 0, &v);
        e->config = v;
    } else if (reg >= MSR_FIXED_CTR0 && reg < MSR_FIXED_CTR0 + X86_FIXED_MAX) {
        static const uint64_t hw[X86_FIXED_MAX] = {1, 0, 9};
        e->type = PD_TYPE_HARDWARE;
        e->config = hw[reg - MSR_FIXED_CTR0];
    } else {
        m->ops->read_reg(m, PMUSIM_REG_MSR, MSR_EVTSEL0 + (reg - MSR_PMC0), 0, &v);
        e->config = v & UINT64_C(0xffa4ffff);
        uint64_t pebs = 0;
        if (m->ops->read_reg(m, PMUSIM_REG_MSR, MSR_PEBS_ENABLE, 0, &pebs) &&
            ((pebs >> (reg - MSR_PMC0)) & 1))
            e->precise = 2;
    }
}

/* Text safe for the truth section's tab-separated lines. */
static char *truth_field(const char *s)
{
    char *c = g_strdup(s);
    for (char *p = c; *p; p++)
        if (*p == '\t' || *p == '\n' || *p == '\r')
            *p = ' ';
    return c;
}

static void truth_text(GString *out, const char *trace, const pmusim_frontdoor_t *fd,
                       const truth_t *truth, const pd_symbols_t *syms, const pd_file_t *f)
{
    char *tr = truth_field(trace);
    g_string_append_printf(out, "pmusim-truth\t1\ntrace\t%s\n", tr);
    g_free(tr);
    for (guint i = 0; i < syms->syms->len; i++) {
        const pd_symbol_t *s = &g_array_index(syms->syms, pd_symbol_t, i);
        char *n = truth_field(s->name);
        g_string_append_printf(out,
                               "symbol\t%" G_GINT64_MODIFIER "x\t%" G_GINT64_MODIFIER "x\t%s\n",
                               (guint64)s->start, (guint64)s->end, n);
        g_free(n);
    }
    if (!truth->done) {
        char *n = truth_field(truth->note);
        g_string_append_printf(out, "no-truth\t%s\n", n);
        g_free(n);
        return;
    }
    for (size_t k = 0; k < pmusim_frontdoor_n_counters(fd); k++) {
        uint64_t id = g_array_index(f->events, pd_event_t, k).id;
        g_string_append_printf(out, "total\t%" G_GUINT64_FORMAT "\t%" G_GUINT64_FORMAT "\n",
                               (guint64)id, (guint64)truth->total[k]);
        GPtrArray *names = truth_rows(truth, k);
        for (guint i = 0; i < names->len; i++) {
            const char *name = g_ptr_array_index(names, i);
            char *n = truth_field(name);
            g_string_append_printf(out, "exact\t%" G_GUINT64_FORMAT "\t%s\t%" G_GUINT64_FORMAT "\n",
                                   (guint64)id, n, (guint64)truth_get(truth, k, name));
            g_free(n);
        }
        g_ptr_array_free(names, TRUE);
    }
}

/* The traced program's mapping: the executable PT_LOAD segment of the ELF
 * file the trace's "program" metadata names (its addresses are the
 * trace's: a fixed-address executable, or "load_base" added for a
 * position-independent one), else an anonymous mapping over the symbols. */
static uint64_t le_bytes(const uint8_t *p, unsigned n)
{
    uint64_t v = 0;
    while (n--)
        v = v << 8 | p[n];
    return v;
}

static gboolean elf_text_segment(const char *path, uint64_t base, uint64_t *start, uint64_t *len,
                                 uint64_t *pgoff)
{
    gchar *d = NULL;
    gsize n = 0;
    GStatBuf st;
    if (g_stat(path, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size > (1 << 30) ||
        !g_file_get_contents(path, &d, &n, NULL))
        return FALSE;
    const uint8_t *p = (const uint8_t *)d;
    gboolean ok = FALSE;
    /* ELF64 little-endian: e_phoff at 32, e_phentsize at 54, e_phnum at 56;
     * program header: p_type 0, p_flags 4, p_offset 8, p_vaddr 16, p_memsz 40 */
    if (n >= 64 && memcmp(p, "\177ELF", 4) == 0 && p[4] == 2 && p[5] == 1) {
        uint64_t phoff = le_bytes(p + 32, 8), phent = le_bytes(p + 54, 2);
        uint64_t phnum = le_bytes(p + 56, 2);
        for (uint64_t i = 0; i < phnum && phent >= 56 && phoff <= n && (i + 1) * phent <= n - phoff;
             i++) {
            const uint8_t *ph = p + phoff + i * phent;
            if (le_bytes(ph, 4) != 1 || !(le_bytes(ph + 4, 4) & 1))
                continue; /* not PT_LOAD with PF_X */
            uint64_t off = le_bytes(ph + 8, 8), va = le_bytes(ph + 16, 8);
            uint64_t msz = le_bytes(ph + 40, 8), skew = va & 0xfff;
            *start = base + va - skew;
            *len = (msz + skew + 0xfff) & ~UINT64_C(0xfff);
            *pgoff = off - (off & 0xfff);
            ok = TRUE;
            break;
        }
    }
    g_free(d);
    return ok;
}

static void perf_side_band(pd_file_t *f, const pmusim_trace_header_t *h, const char *trace,
                           const pd_symbols_t *syms, uint32_t pid, uint32_t nthreads)
{
    const char *prog = pmusim_trace_header_get_meta(h, "program");
    char *comm = g_path_get_basename(prog && *prog ? prog : trace);
    for (uint32_t t = 0; t < nthreads; t++)
        pd_file_add_comm(f, pid, pid + t, comm);
    g_free(comm);
    const char *base_s = pmusim_trace_header_get_meta(h, "load_base");
    uint64_t base = base_s ? g_ascii_strtoull(base_s, NULL, 0) : 0;
    uint64_t start, len, pgoff;
    if (prog && g_path_is_absolute(prog) && elf_text_segment(prog, base, &start, &len, &pgoff)) {
        pd_file_add_mmap(f, pid, pid, start, len, pgoff, prog);
        return;
    }
    if (!syms->syms->len)
        return;
    uint64_t lo = UINT64_MAX, hi = 0;
    for (guint i = 0; i < syms->syms->len; i++) {
        const pd_symbol_t *s = &g_array_index(syms->syms, pd_symbol_t, i);
        lo = MIN(lo, s->start);
        hi = MAX(hi, s->end);
    }
    if (hi > lo)
        pd_file_add_mmap(f, pid, pid, lo, hi - lo, 0, "//anon");
}

/* Writes the perf.data image into `out` (pmusim/outfile.h: renamed into
 * place by its commit, so the file appears whole or not at all). */
static gboolean write_perf_data(pmusim_outfile_t *out, const char *trace, pmusim_model_t *m,
                                const pmusim_frontdoor_t *fd, const pmusim_trace_header_t *h,
                                const pd_symbols_t *syms, const truth_t *truth, uint64_t freq,
                                GError **error)
{
    pd_file_t f;
    pd_file_init(&f);
    uint64_t hz = record_core_hz(m->ops->cpu);
    const char *pid_s = pmusim_trace_header_get_meta(h, "pid");
    uint64_t pid = pid_s ? g_ascii_strtoull(pid_s, NULL, 10) : 0;
    if (!pid || pid > G_MAXINT32 - PMUSIM_MAX_THREADS)
        pid = RECORD_DEFAULT_PID;
    for (size_t k = 0; k < pmusim_frontdoor_n_counters(fd); k++) {
        pd_event_t e = {0};
        g_strlcpy(e.name, pmusim_frontdoor_counter_label(fd, k), sizeof e.name);
        perf_attr_of(m, fd, k, &e);
        e.freq = freq != 0;
        e.period = freq ? freq : pmusim_frontdoor_counter_period(fd, k);
        e.id = 100 + k;
        g_array_append_val(f.events, e);
    }
    perf_side_band(&f, h, trace, syms, (uint32_t)pid, m->nthreads);
    for (size_t i = 0, n = pmusim_frontdoor_n_samples(fd); i < n; i++) {
        const pmusim_sample_t *s = pmusim_frontdoor_sample(fd, i);
        gboolean data = (s->flags & (PMUSIM_SAMPLE_ADDR | PMUSIM_SAMPLE_DSRC)) &&
                        !(s->flags & PMUSIM_SAMPLE_IEAR);
        pd_sample_t ps = {
            .id = 100 + s->counter,
            .ip = s->ip,
            .pid = (uint32_t)pid,
            .tid = (uint32_t)pid + s->thread,
            .time = record_cycles_to_ns(s->cycle, hz),
            .addr = (s->flags & PMUSIM_SAMPLE_ADDR) ? s->addr : 0,
            .period = s->period,
            .weight = (s->flags & PMUSIM_SAMPLE_WEIGHT) ? s->weight : 0,
            .data_src = data ? pd_data_src((s->flags & PMUSIM_SAMPLE_DSRC) ? s->mem_level
                                                                            : PMUSIM_LVL_COUNT,
                                           s->mem_store, s->mem_tlb)
                             : PD_DATA_SRC_NA,
        };
        /* the taken branches of the BTB / ETB, as an LBR stack holds them */
        pd_branch_t br[PD_MAX_BRANCHES];
        size_t nbr = 0, npairs;
        const pmusim_branch_pair_t *pairs = pmusim_frontdoor_sample_branches(fd, s, &npairs);
        for (size_t b = 0; b < npairs && nbr < PD_MAX_BRANCHES; b++)
            if (pairs[b].taken)
                br[nbr++] = (pd_branch_t){pairs[b].from, pairs[b].to,
                                          pairs[b].mispred ? PD_BRANCH_MISPRED
                                                           : PD_BRANCH_PREDICTED};
        pd_file_add_sample(&f, &ps, br, nbr);
    }
    truth_text(f.truth, trace, fd, truth, syms, &f);
    GBytes *bytes = pd_file_serialise(&f);
    gsize n;
    const void *data = g_bytes_get_data(bytes, &n);
    gboolean ok = fwrite(data, 1, n, pmusim_outfile_fp(out)) == n;
    if (!ok)
        g_set_error(error, PMUSIM_OUTFILE_ERROR, PMUSIM_OUTFILE_ERROR_IO, "%s: write failed: %s",
                    pmusim_outfile_path(out), g_strerror(errno));
    g_bytes_unref(bytes);
    pd_file_clear(&f);
    return ok;
}

static void progress_cb(uint64_t records, void *user)
{
    (void)user;
    fprintf(stderr, "\rreplayed %" G_GUINT64_FORMAT " records", (guint64)records);
    fflush(stderr);
}

static gboolean parse_u64(const char *s, uint64_t *out)
{
    char *end = NULL;
    if (!s || !*s || *s == '-')
        return FALSE;
    errno = 0;
    guint64 v = g_ascii_strtoull(s, &end, 0);
    if (errno == ERANGE || end == s || *end)
        return FALSE;
    *out = v;
    return TRUE;
}

int pmusim_cmd_record(int argc, char **argv)
{
    pmusim_enc_args_t ea = {0};
    char *pmu_opt = NULL, **regs_files = NULL, *out_path = NULL, *period_s = NULL,
         *limit_s = NULL, *freq_s = NULL, *skid_s = NULL, *irq_s = NULL;
    gint top = (gint)RECORD_DEFAULT_TOP;
    gboolean json = FALSE, summary_only = FALSE, no_truth = FALSE;
    const GOptionEntry entries[] = {
        {"pmu", 'p', 0, G_OPTION_ARG_STRING, &pmu_opt,
         "PMU model: ita2, mont, wsm, wsm_dp, knm (default: the events' pmu:: prefix, else the "
         "trace's CPU)",
         "NAME"},
        {"count", 'c', 0, G_OPTION_ARG_STRING, &period_s,
         "sampling period: a sample every N occurrences of each event (default 10000)", "N"},
        {"freq", 'F', 0, G_OPTION_ARG_STRING, &freq_s,
         "frequency mode: aim at HZ samples per simulated second, adapting the period as Linux "
         "does (the model's core clock: docs/SAMPLING.md)",
         "HZ"},
        {"skid", 0, 0, G_OPTION_ARG_STRING, &skid_s,
         "instructions between the overflowing instruction and the sampled IP (default 1; "
         "PEBS samples have none)",
         "N"},
        {"max-interrupts", 0, 0, G_OPTION_ARG_STRING, &irq_s,
         "take at most N interrupts, then count the rest of the trace without sampling "
         "(default 1000000)",
         "N"},
        {"regs", 'r', 0, G_OPTION_ARG_FILENAME_ARRAY, &regs_files,
         "raw register writes to apply after the encoded events (docs/REGS.md); labelled "
         "counter writes are sampled too; repeatable",
         "FILE"},
        {"output", 'o', 0, G_OPTION_ARG_FILENAME, &out_path,
         "write perf.data to FILE (perf report / script / mem report, pmusim report / script)",
         "FILE"},
        {"json", 0, 0, G_OPTION_ARG_NONE, &json, "print JSON (events, samples)", NULL},
        {"top", 0, 0, G_OPTION_ARG_INT, &top, "summary rows per event (default 10)", "N"},
        {"summary", 's', 0, G_OPTION_ARG_NONE, &summary_only,
         "print only the summary, not every sample", NULL},
        {"no-truth", 0, 0, G_OPTION_ARG_NONE, &no_truth,
         "skip the ground-truth replay (exact counts by symbol)", NULL},
        {"limit", 0, 0, G_OPTION_ARG_STRING, &limit_s,
         "keep at most N samples; the rest are counted as dropped (default 1000000)", "N"},
        {NULL, 0, 0, 0, NULL, NULL, NULL},
    };
    GOptionContext *ctx = g_option_context_new("TRACE");
    g_option_context_set_summary(ctx,
        "Encode the events (-e), program a PMU model, let an OS front door sample them\n"
        "(perfmon2-style on ita2/mont, perf_event-style on wsm/wsm_dp/knm: each counter\n"
        "overflows every -c occurrences, or at -F samples per second, and the interrupt\n"
        "handler records cycle, thread, IP and what the EARs / PEBS captured), replay TRACE\n"
        "and print the samples and a summary by symbol, each estimate beside the exact\n"
        "count from a second replay.  -o writes perf.data.");
    g_option_context_add_main_entries(ctx, entries, NULL);
    pmusim_enc_args_add(ctx, &ea);
    GError *error = NULL;
    int status = 0;
    pmusim_run_setup_t run = {0};
    pmusim_model_t *model = NULL;
    pmusim_frontdoor_t *fd = NULL;
    GArray *ctrs = NULL;
    pd_symbols_t syms = {0};
    char **events = NULL;
    truth_t truth;
    gboolean truth_ready = FALSE;
    pmusim_outfile_t *out = NULL;
    uint64_t period = RECORD_DEFAULT_PERIOD, limit = PMUSIM_FRONTDOOR_DEFAULT_LIMIT, freq = 0,
             skid = RECORD_DEFAULT_SKID, max_irq = PMUSIM_FRONTDOOR_DEFAULT_INTERRUPTS;

    if (!pmusim_cli_parse(ctx, "record", &argc, &argv, &error)) {
        status = pmusim_cli_usage("record", "%s", error->message);
        goto out;
    }
    if (argc != 2) {
        status = pmusim_cli_usage("record", "expected exactly one TRACE file");
        goto out;
    }
    if (period_s && (!parse_u64(period_s, &period) || period == 0)) {
        status = pmusim_cli_usage("record", "-c: expected a period >= 1, got '%s'", period_s);
        goto out;
    }
    if (freq_s && (!parse_u64(freq_s, &freq) || freq == 0)) {
        status = pmusim_cli_usage("record", "-F: expected a frequency >= 1 (Hz), got '%s'",
                                  freq_s);
        goto out;
    }
    if (freq_s && period_s) {
        status = pmusim_cli_usage("record", "-c and -F exclude each other");
        goto out;
    }
    if (skid_s && (!parse_u64(skid_s, &skid) || skid > PMUSIM_FRONTDOOR_MAX_SKID)) {
        status = pmusim_cli_usage("record", "--skid: expected 0..%u instructions, got '%s'",
                                  PMUSIM_FRONTDOOR_MAX_SKID, skid_s);
        goto out;
    }
    if (irq_s && (!parse_u64(irq_s, &max_irq) || max_irq == 0)) {
        status = pmusim_cli_usage("record", "--max-interrupts: expected a number >= 1, got '%s'",
                                  irq_s);
        goto out;
    }
    if (limit_s && !parse_u64(limit_s, &limit)) {
        status = pmusim_cli_usage("record", "--limit: expected a number, got '%s'", limit_s);
        goto out;
    }
    if (top < 0) {
        status = pmusim_cli_usage("record", "--top: expected a number >= 0, got %d", top);
        goto out;
    }
    events = pmusim_enc_args_event_list(&ea);
    if (!events[0] && !regs_files) {
        status = pmusim_cli_usage("record", "nothing to sample: give events with -e (or "
                                            "labelled counter writes with --regs)");
        goto out;
    }
    const char *trace = argv[1];
    /* the output first: refused (same file as the trace, a directory ...)
     * before any work; committed only once everything is written */
    const char **inputs = pmusim_cli_inputs(trace, regs_files);
    out = out_path ? pmusim_outfile_open(out_path, inputs, &error) : NULL;
    g_free(inputs);
    if (out_path && !out) {
        status = pmusim_cli_fail(error);
        goto out;
    }
    status = pmusim_run_setup(&run, &ea, "record", trace, pmu_opt, regs_files, FALSE);
    if (status)
        goto out;
    pmusim_trace_reader_t *reader = run.reader;
    const pmusim_model_ops_t *ops = run.ops;
    GArray *regs = run.regs;
    const pmusim_trace_header_t *h = pmusim_trace_reader_header(reader);
    ctrs = find_counters(ops, regs);
    if (!ctrs->len) {
        g_set_error(&error, PMUSIM_FRONTDOOR_ERROR, PMUSIM_FRONTDOOR_ERROR_COUNTER,
                    "no counter to sample: none of the %u register writes is a labelled "
                    "write programming a counter of the %s PMU",
                    regs->len, ops->name);
        status = pmusim_cli_fail(error);
        goto out;
    }
    model = pmusim_model_new(ops->name, MAX(h->nthreads, 1u), &error);
    if (!model || !pmusim_model_write_regs(model, regs, &error)) {
        status = pmusim_cli_fail(error);
        goto out;
    }
    fd = pmusim_frontdoor_new(model, &error);
    if (!fd || !pmusim_frontdoor_set_skid(fd, (uint32_t)skid, &error) ||
        (freq && !pmusim_frontdoor_set_frequency(fd, freq, record_core_hz(ops->cpu), &error))) {
        status = pmusim_cli_fail(error);
        goto out;
    }
    pmusim_frontdoor_set_sample_limit(fd, (size_t)MIN(limit, (uint64_t)G_MAXSIZE));
    pmusim_frontdoor_set_interrupt_limit(fd, max_irq);
    for (guint i = 0; i < ctrs->len; i++) {
        const rec_ctr_t *c = &g_array_index(ctrs, rec_ctr_t, i);
        if (pmusim_frontdoor_add_sampling(fd, c->reg, period, c->label, &error) < 0) {
            g_prefix_error(&error, "event '%s': ", c->label);
            status = pmusim_cli_fail(error);
            goto out;
        }
    }
    if (!pmusim_frontdoor_start(fd, &error)) {
        status = pmusim_cli_fail(error);
        goto out;
    }
    gboolean progress = pmusim_cli_show_progress();
    if (!pmusim_frontdoor_replay(fd, reader, progress ? progress_cb : NULL, NULL, &error)) {
        if (progress)
            fputc('\n', stderr);
        if (error->domain == PMUSIM_SIM_ERROR)
            g_prefix_error(&error, "%s: ", trace);
        status = pmusim_cli_fail(error);
        goto out;
    }
    if (progress)
        fputc('\n', stderr);
    /* all symbols are known once the reader reached the end */
    pd_symbols_init(&syms);
    const GArray *tsyms = pmusim_trace_reader_symbols(reader);
    for (guint i = 0; tsyms && i < tsyms->len; i++) {
        const pmusim_symbol_t *y = &g_array_index(tsyms, pmusim_symbol_t, i);
        pd_symbols_add(&syms, y->start, y->end, y->name);
    }
    pd_symbols_finish(&syms);
    truth_init(&truth, ctrs->len, &syms);
    truth_ready = TRUE;
    if (no_truth)
        g_strlcpy(truth.note, "--no-truth", sizeof truth.note);
    else
        truth_replay(&truth, trace, ops, model->nthreads, regs, ctrs);
    if (out_path) {
        gboolean ok = write_perf_data(out, trace, model, fd, h, &syms, &truth, freq, &error);
        if (ok) {
            ok = pmusim_outfile_commit(out, &error);
            out = NULL;
        }
        if (!ok) {
            status = pmusim_cli_fail(error);
            goto out;
        }
    }
    /* with -o - the perf.data stream owns stdout (as perf record -o -) */
    FILE *txt = out_path && strcmp(out_path, "-") == 0 ? stderr : stdout;
    if (json) {
        print_json(txt, trace, ops->name, fd, &syms, model->nthreads, freq, &truth);
    } else {
        if (!summary_only) {
            print_samples(txt, fd, &syms);
            fputc('\n', txt);
        }
        print_summary(txt, trace, ops->name, fd, &syms, model->nthreads, (unsigned)top, &truth,
                      freq);
    }
    if (out_path)
        fprintf(stderr, "pmusim: %zu samples written to %s\n", pmusim_frontdoor_n_samples(fd),
                out_path);
    if (fflush(stdout) != 0 || ferror(stdout)) {
        fprintf(stderr, "pmusim: writing stdout failed: %s\n", g_strerror(errno));
        status = 1;
    }
out:
    pmusim_outfile_abort(out);
    if (error)
        g_error_free(error);
    if (truth_ready)
        truth_clear(&truth);
    pmusim_frontdoor_free(fd);
    pmusim_model_free(model);
    pmusim_run_setup_clear(&run);
    if (ctrs)
        g_array_free(ctrs, TRUE);
    pd_symbols_clear(&syms);
    g_strfreev(events);
    g_strfreev(regs_files);
    g_free(pmu_opt);
    g_free(out_path);
    g_free(period_s);
    g_free(limit_s);
    g_free(freq_s);
    g_free(skid_s);
    g_free(irq_s);
    pmusim_enc_args_clear(&ea);
    g_option_context_free(ctx);
    return status;
}
