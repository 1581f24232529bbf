/* Shared by tests/unit/trace/test_feed.c and tests/fuzz/trace/fuzz_feed.c:
 * the same bytes read by the ordinary decoder plus the records' conversion
 * (pmusim_uarch_insn_from_rec(), as `trace annotate` did before the feed)
 * and by the feed decoder (traces/reader_feed.h), each flattened into the
 * items the model would see, with the record counts and symbols after each
 * reader call and the error; feed_runs_equal() compares two runs. */
#ifndef PMUSIM_TEST_FEED_RUNS_H
#define PMUSIM_TEST_FEED_RUNS_H

#include "pmusim/trace.h"
#include "pmusim/uarch.h"
#include "../../traces/reader_feed.h"
#include "feed_open.h"
#include "rec_equal.h"

#include <glib.h>
#include <stdio.h>
#include <string.h>

/* One item of the model's input, flattened: an instruction with its
 * accesses, or a pass-through record; `call` is the reader call after
 * which it went to the model. */
typedef struct item {
    gboolean is_pass;
    pmusim_uarch_insn_t in; /* its accesses at `acc` in the run's accs */
    size_t acc;
    pmusim_rec_t rec;
    unsigned call;
} item_t;

typedef struct run {
    GArray *items;  /* of item_t */
    GArray *accs;   /* of pmusim_uarch_access_t */
    GArray *counts; /* gssize per call, then nsyms after it, alternating */
    uint64_t records_read;
    /* instructions of a feed with a model whose tmpl is not what
     * pmusim_uarch_rec_template() makes of them (0 for the records' way) */
    uint64_t tmpl_bad;
    int code;       /* -1: no error */
    char *message;
} run_t;

static void run_init(run_t *o)
{
    memset(o, 0, sizeof *o);
    o->items = g_array_new(FALSE, TRUE, sizeof(item_t));
    o->accs = g_array_new(FALSE, TRUE, sizeof(pmusim_uarch_access_t));
    o->counts = g_array_new(FALSE, FALSE, sizeof(gssize));
    o->code = -1;
}

static void run_clear(run_t *o)
{
    g_array_unref(o->items);
    g_array_unref(o->accs);
    g_array_unref(o->counts);
    g_free(o->message);
}

static void add_insn(run_t *o, const pmusim_uarch_insn_t *in, unsigned call)
{
    item_t it;
    memset(&it, 0, sizeof it);
    it.in = *in;
    it.acc = o->accs->len;
    g_array_append_vals(o->accs, in->access, in->naccess & PMUSIM_UARCH_ACC_COUNT);
    it.in.access = NULL;
    it.call = call;
    g_array_append_val(o->items, it);
}

static void add_pass(run_t *o, const pmusim_rec_t *r, unsigned call)
{
    item_t it;
    memset(&it, 0, sizeof it);
    it.is_pass = TRUE;
    it.rec = *r;
    if (r->name) /* the reader's, gone with it */
        it.rec.name = g_intern_string(r->name);
    it.call = call;
    g_array_append_val(o->items, it);
}

static void note_call(run_t *o, pmusim_trace_reader_t *r, gssize n)
{
    gssize s = (gssize)pmusim_trace_reader_symbols(r)->len;
    g_array_append_val(o->counts, n);
    g_array_append_val(o->counts, s);
}

/* the reader refused the input: the message is what both ways compare */
static void note_open_error(run_t *o, GError *e)
{
    o->code = e ? e->code : 0;
    o->message = g_strdup_printf("open: %s", e ? e->message : "?");
    g_clear_error(&e);
}

static void note_end(run_t *o, pmusim_trace_reader_t *r, GError *e)
{
    o->records_read = pmusim_trace_reader_records_read(r);
    if (e) {
        o->code = e->code;
        o->message = g_strdup(e->message);
        g_error_free(e);
    }
}

/* A reader of the bytes, or NULL with the error noted in o. */
static pmusim_trace_reader_t *open_run(const void *data, size_t len, run_t *o)
{
    GError *e = NULL;
    pmusim_trace_reader_t *r =
        pmusim_trace_reader_open_memory_ex(data, len, "t", PMUSIM_TRACE_OPEN_QUIET, &e);
    if (!r)
        note_open_error(o, e);
    return r;
}

/* What passes through besides MARKER records: bit 0 EVENT, bit 1 THREAD
 * records (pmusim_trace_feed_t's pass_events, pass_threads). */
enum { PASS_EVENTS = 1, PASS_THREADS = 2 };

/* The ordinary decoder and the records' conversion, as `trace annotate`
 * did before the feed: an instruction goes to the model when the next
 * INSN, MARKER or passed EVENT or THREAD comes, or at the end. */
static void read_records(const void *data, size_t len, size_t batch, int pass_kinds, run_t *o)
{
    GError *e = NULL;
    pmusim_trace_reader_t *r = open_run(data, len, o);
    if (!r)
        return;
    pmusim_rec_t *recs = g_new(pmusim_rec_t, batch);
    pmusim_uarch_insn_t in;
    pmusim_uarch_access_t acc[PMUSIM_UARCH_MAX_ACCESSES];
    gboolean open = FALSE;
    unsigned call = 0;
    gssize n;
    while ((n = pmusim_trace_reader_next_batch(r, recs, batch, &e)) > 0) {
        note_call(o, r, n);
        for (gssize i = 0; i < n; i++) {
            const pmusim_rec_t *x = &recs[i];
            gboolean pass = x->kind == PMUSIM_REC_MARKER ||
                            (x->kind == PMUSIM_REC_EVENT && (pass_kinds & PASS_EVENTS)) ||
                            (x->kind == PMUSIM_REC_THREAD && (pass_kinds & PASS_THREADS));
            if ((x->kind == PMUSIM_REC_INSN || pass) && open) {
                add_insn(o, &in, call);
                open = FALSE;
            }
            if (x->kind == PMUSIM_REC_INSN) {
                pmusim_uarch_insn_from_rec(x, &in, acc);
                open = TRUE;
            } else if (x->kind == PMUSIM_REC_MEM && open && x->thread == in.thread) {
                if (!pmusim_uarch_insn_add_mem(&in, acc, x)) {
                    /* a long instruction: a part, and its continuation */
                    in.naccess |= PMUSIM_UARCH_ACC_MORE;
                    add_insn(o, &in, call);
                    in.naccess = PMUSIM_UARCH_ACC_CONT;
                    pmusim_uarch_insn_add_mem(&in, acc, x);
                }
            } else if (pass) {
                add_pass(o, x, call);
            }
        }
        call++;
    }
    if (n == 0) {
        note_call(o, r, 0);
        if (open)
            add_insn(o, &in, call);
    }
    note_end(o, r, e);
    g_free(recs);
    pmusim_trace_reader_free(r);
}

/* An instruction of the feed: its template checked against the model's
 * own (none without a model), then kept without it. */
static void add_feed_insn(run_t *o, const pmusim_uarch_t *model, const pmusim_uarch_insn_t *in,
                          unsigned call)
{
    pmusim_uarch_insn_t x = *in;
    if (!model) {
        o->tmpl_bad += x.tmpl != NULL;
    } else if (!x.tmpl) {
        o->tmpl_bad++;
    } else {
        pmusim_rec_t t;
        pmusim_uarch_rec_template(model, &x, &t);
        o->tmpl_bad += memcmp(&t, x.tmpl, sizeof t) != 0;
    }
    x.tmpl = NULL;
    add_insn(o, &x, call);
}

/* The feed decoder, its last instruction kept aside while it may take
 * more MEM records (as sim/cli/afeed.c does); with record templates for
 * `model` (NULL: none). */
static void read_feed(const void *data, size_t len, size_t batch, int pass_kinds,
                      const pmusim_uarch_t *model, run_t *o)
{
    GError *e = NULL;
    pmusim_trace_reader_t *r = open_run(data, len, o);
    if (!r)
        return;
    pmusim_trace_feed_t f;
    memset(&f, 0, sizeof f);
    f.pass_events = (pass_kinds & PASS_EVENTS) != 0;
    f.pass_threads = (pass_kinds & PASS_THREADS) != 0;
    f.model = model;
    f.tmpl_lag = 1; /* each call's instructions are checked before the next */
    f.insns = g_new(pmusim_uarch_insn_t, batch + 1);
    f.acc = g_new(pmusim_uarch_access_t, batch + 1 + PMUSIM_UARCH_MAX_ACCESSES);
    f.pass = g_new(pmusim_feed_pass_t, batch);
    feed_aside_t aside = {0};
    unsigned call = 0;
    gssize n;
    for (;;) {
        feed_aside_begin(&f, &aside);
        n = pmusim_trace_reader_next_feed(r, &f, batch, &e);
        if (n < 0)
            break;
        note_call(o, r, n);
        const size_t keep = feed_aside_end(&f, n, &aside); /* the last one waits */
        size_t at = 0;
        for (size_t k = 0; k < f.npass; k++) {
            for (; at < f.pass[k].at; at++)
                add_feed_insn(o, model, &f.insns[at], call);
            add_pass(o, &f.pass[k].rec, call);
        }
        for (; at < f.ninsns - keep; at++)
            add_feed_insn(o, model, &f.insns[at], call);
        if (n == 0)
            break;
        call++;
    }
    note_end(o, r, e);
    pmusim_trace_feed_clear(&f);
    g_free(f.insns);
    g_free(f.acc);
    g_free(f.pass);
    pmusim_trace_reader_free(r);
}

static gboolean insn_equal(const run_t *ra, const item_t *a, const run_t *rb, const item_t *b)
{
    const pmusim_uarch_insn_t *x = &a->in, *y = &b->in;
    if (x->ip != y->ip || x->thread != y->thread || x->plm != y->plm || x->len != y->len ||
        x->br != y->br || x->taken != y->taken || x->fp != y->fp || x->uops != y->uops ||
        x->target != y->target || x->naccess != y->naccess || x->slot != y->slot ||
        x->unit != y->unit || x->flags != y->flags || x->insn != y->insn || x->tmpl || y->tmpl)
        return FALSE;
    for (uint32_t i = 0; i < (x->naccess & PMUSIM_UARCH_ACC_COUNT); i++) {
        const pmusim_uarch_access_t *p = &g_array_index(ra->accs, pmusim_uarch_access_t, a->acc + i);
        const pmusim_uarch_access_t *q = &g_array_index(rb->accs, pmusim_uarch_access_t, b->acc + i);
        if (p->addr != q->addr || p->size != q->size || p->is_store != q->is_store ||
            p->is_fp != q->is_fp || p->addr_dep != q->addr_dep || p->alat != q->alat)
            return FALSE;
    }
    return TRUE;
}

/* Whether two runs gave the same model input, calls, symbols and error. */
static gboolean feed_runs_equal(const run_t *x, const run_t *y)
{
    gboolean same = x->items->len == y->items->len && x->counts->len == y->counts->len &&
                    (x->counts->len == 0 || /* memcmp() wants pointers even for 0 bytes */
                     !memcmp(x->counts->data, y->counts->data, x->counts->len * sizeof(gssize))) &&
                    x->records_read == y->records_read &&
                    x->tmpl_bad == y->tmpl_bad &&
                    x->code == y->code && !g_strcmp0(x->message, y->message);
    for (guint i = 0; same && i < x->items->len; i++) {
        const item_t *p = &g_array_index(x->items, item_t, i);
        const item_t *q = &g_array_index(y->items, item_t, i);
        same = p->is_pass == q->is_pass && p->call == q->call &&
               (p->is_pass ? pmusim_test_rec_equal(&p->rec, &q->rec) : insn_equal(x, p, y, q));
    }
    return same;
}

#endif
