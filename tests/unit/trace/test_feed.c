/* The decoder that writes the model's input (traces/reader_feed.h, used by
 * `trace annotate`) against the ordinary one: the same bytes read both ways,
 * in batches of the same size, give the same record counts per call, the
 * same symbols after each call, the same instructions (every field and
 * access, as pmusim_uarch_insn_from_rec() and pmusim_uarch_insn_add_mem()
 * make them from the records), the same pass-through records in the same
 * places, and the same error (code, message, records read).  Inputs:
 * generated traces of the five CPUs, a version 1 stream, and damaged
 * copies of them (cut, or one byte changed, in the decompressed stream). */
#include "pmusim/trace.h"
#include "pmusim/tracegen.h"
#include "pmusim/uarch.h"
#include "../../../traces/reader_feed.h"

#include "cu_main.h"
#include "rec_equal.h"

#include <CUnit/Basic.h>
#include <glib/gstdio.h>
#include <string.h>
#include <unistd.h>
#include <zstd.h>

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
    uint64_t dropped, records_read;
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
    g_array_append_vals(o->accs, in->access, in->naccess);
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

static void note_end(run_t *o, pmusim_trace_reader_t *r, GError *e)
{
    o->records_read = pmusim_trace_reader_records_read(r);
    if (e) {
        o->code = e->code;
        o->message = g_strdup(e->message);
        g_error_free(e);
    }
}

/* The ordinary decoder and the records' conversion, as `trace annotate`
 * did before the feed: an instruction goes to the model when the next
 * INSN, MARKER or passed EVENT comes, or at the end. */
static void read_records(const void *data, size_t len, size_t batch, gboolean pass_events,
                         run_t *o)
{
    GError *e = NULL;
    pmusim_trace_reader_t *r = pmusim_trace_reader_open_memory(data, len, "t", &e);
    CU_ASSERT_PTR_NOT_NULL_FATAL(r);
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
                            (x->kind == PMUSIM_REC_EVENT && pass_events);
            if ((x->kind == PMUSIM_REC_INSN || pass) && open) {
                add_insn(o, &in, call);
                open = FALSE;
            }
            if (x->kind == PMUSIM_REC_INSN) {
                pmusim_uarch_insn_from_rec(x, &in, acc);
                open = TRUE;
            } else if (x->kind == PMUSIM_REC_MEM && open && x->thread == in.thread) {
                if (!pmusim_uarch_insn_add_mem(&in, acc, x))
                    o->dropped++;
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

/* The feed decoder, its last instruction kept aside while it may take
 * more MEM records (as sim/cli/afeed.c does). */
static void read_feed(const void *data, size_t len, size_t batch, gboolean pass_events,
                      run_t *o)
{
    GError *e = NULL;
    pmusim_trace_reader_t *r = pmusim_trace_reader_open_memory(data, len, "t", &e);
    CU_ASSERT_PTR_NOT_NULL_FATAL(r);
    pmusim_trace_feed_t f;
    memset(&f, 0, sizeof f);
    f.pass_events = pass_events;
    f.insns = g_new(pmusim_uarch_insn_t, batch + 1);
    f.acc = g_new(pmusim_uarch_access_t, batch + 1 + PMUSIM_UARCH_MAX_ACCESSES);
    f.pass = g_new(pmusim_feed_pass_t, batch);
    pmusim_uarch_insn_t aside;
    pmusim_uarch_access_t aside_acc[PMUSIM_UARCH_MAX_ACCESSES];
    gboolean open = FALSE;
    unsigned call = 0;
    gssize n;
    for (;;) {
        f.ninsns = f.nacc = f.npass = 0;
        f.open = open;
        if (open) {
            f.insns[0] = aside;
            f.insns[0].access = f.acc;
            memcpy(f.acc, aside_acc, aside.naccess * sizeof *aside_acc);
            f.ninsns = 1;
            f.nacc = aside.naccess;
        }
        n = pmusim_trace_reader_next_feed(r, &f, batch, &e);
        if (n < 0)
            break;
        note_call(o, r, n);
        size_t keep = n > 0 && f.open ? 1 : 0; /* the last one waits */
        size_t at = 0;
        for (size_t k = 0; k < f.npass; k++) {
            for (; at < f.pass[k].at; at++)
                add_insn(o, &f.insns[at], call);
            add_pass(o, &f.pass[k].rec, call);
        }
        for (; at < f.ninsns - keep; at++)
            add_insn(o, &f.insns[at], call);
        open = keep != 0;
        if (open) {
            aside = f.insns[f.ninsns - 1];
            memcpy(aside_acc, aside.access, aside.naccess * sizeof *aside_acc);
        }
        if (n == 0)
            break;
        call++;
    }
    o->dropped = f.dropped_mem;
    note_end(o, r, e);
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
    for (uint32_t i = 0; i < x->naccess; i++) {
        const pmusim_uarch_access_t *p = &g_array_index(ra->accs, pmusim_uarch_access_t, a->acc + i);
        const pmusim_uarch_access_t *q = &g_array_index(rb->accs, pmusim_uarch_access_t, b->acc + i);
        if (p->addr != q->addr || p->size != q->size || p->is_store != q->is_store ||
            p->is_fp != q->is_fp || p->addr_dep != q->addr_dep || p->alat != q->alat)
            return FALSE;
    }
    return TRUE;
}

/* Both ways, several batch sizes (`all`: also 1 and 64) and both EVENT
 * settings; returns the number of instructions the input made (the same
 * both ways). */
static size_t compare_ways(const void *data, size_t len, const char *what, gboolean all)
{
    static const size_t batches[] = { 3, 4096, 1, 64 };
    size_t ninsns = 0;
    for (unsigned b = 0; b < (all ? G_N_ELEMENTS(batches) : 2); b++) {
        for (int pe = 0; pe < 2; pe++) {
            run_t x, y;
            run_init(&x);
            run_init(&y);
            read_records(data, len, batches[b], pe, &x);
            read_feed(data, len, batches[b], pe, &y);
            gboolean same = x.items->len == y.items->len && x.counts->len == y.counts->len &&
                            !memcmp(x.counts->data, y.counts->data,
                                    x.counts->len * sizeof(gssize)) &&
                            x.dropped == y.dropped && x.records_read == y.records_read &&
                            x.code == y.code && !g_strcmp0(x.message, y.message);
            size_t insns = 0;
            for (guint i = 0; same && i < x.items->len; i++) {
                const item_t *p = &g_array_index(x.items, item_t, i);
                const item_t *q = &g_array_index(y.items, item_t, i);
                same = p->is_pass == q->is_pass && p->call == q->call &&
                       (p->is_pass ? pmusim_test_rec_equal(&p->rec, &q->rec)
                                   : insn_equal(&x, p, &y, q));
                insns += !p->is_pass;
            }
            if (!same)
                fprintf(stderr, "%s, batch %zu, events %d: %u/%u items, %u/%u calls, "
                        "%" G_GUINT64_FORMAT "/%" G_GUINT64_FORMAT " records, [%s] / [%s]\n",
                        what, batches[b], pe, x.items->len, y.items->len, x.counts->len,
                        y.counts->len, x.records_read, y.records_read,
                        x.message ? x.message : "", y.message ? y.message : "");
            CU_ASSERT(same);
            ninsns = insns;
            run_clear(&x);
            run_clear(&y);
        }
    }
    return ninsns;
}

static GBytes *gen_bytes(pmusim_cpu_t cpu, pmusim_gen_workload_t wl, uint64_t n, uint32_t threads)
{
    pmusim_gen_params_t p;
    pmusim_gen_params_init(&p, cpu);
    p.workload = wl;
    p.records = n;
    p.seed = 7;
    p.threads = threads;
    pmusim_trace_header_t h;
    GError *e = NULL;
    CU_ASSERT_FATAL(pmusim_gen_header(&p, &h, &e));
    char *path = NULL;
    int fd = g_file_open_tmp("pmusim-feed-XXXXXX", &path, NULL);
    CU_ASSERT_FATAL(fd >= 0);
    close(fd);
    pmusim_trace_writer_t *w = pmusim_trace_writer_open(path, PMUSIM_TRACE_BINARY, &h, &e);
    pmusim_trace_header_clear(&h);
    CU_ASSERT_PTR_NOT_NULL_FATAL(w);
    CU_ASSERT(pmusim_gen_run(&p, w, &e));
    CU_ASSERT(pmusim_trace_writer_close(w, &e));
    gchar *data;
    gsize len;
    CU_ASSERT_FATAL(g_file_get_contents(path, &data, &len, NULL));
    g_unlink(path);
    g_free(path);
    return g_bytes_new_take(data, len);
}

static GBytes *zcompress(const void *raw, size_t len)
{
    size_t cap = ZSTD_compressBound(len);
    void *out = g_malloc(cap);
    size_t z = ZSTD_compress(out, cap, raw, len, 1);
    CU_ASSERT_FATAL(!ZSTD_isError(z));
    return g_bytes_new_take(out, z);
}

static GBytes *zdecompress(GBytes *b)
{
    gsize len;
    const void *d = g_bytes_get_data(b, &len);
    ZSTD_DStream *zd = ZSTD_createDStream();
    GByteArray *out = g_byte_array_new();
    guint8 buf[65536];
    ZSTD_inBuffer in = { d, len, 0 };
    while (in.pos < in.size) {
        ZSTD_outBuffer o = { buf, sizeof buf, 0 };
        size_t rc = ZSTD_decompressStream(zd, &o, &in);
        CU_ASSERT_FATAL(!ZSTD_isError(rc));
        g_byte_array_append(out, buf, o.pos);
    }
    ZSTD_freeDStream(zd);
    return g_byte_array_free_to_bytes(out);
}

/* The trace as it is, then cut and with one byte changed at offsets spread
 * over its decompressed stream. */
static size_t compare_damaged(GBytes *trace, const char *what)
{
    gsize zlen;
    const void *zd = g_bytes_get_data(trace, &zlen);
    size_t ninsns = compare_ways(zd, zlen, what, TRUE);
    GBytes *raw = zdecompress(trace);
    gsize len;
    const guint8 *d = g_bytes_get_data(raw, &len);
    static const guint8 vals[] = { 0x00, 0x03, 0x7f, 0x80, 0x92, 0x93, 0x96, 0xff };
    for (unsigned k = 1; k <= 9; k++) {
        size_t off = 20 + (len - 21) * k / 10;
        char *name = g_strdup_printf("%s cut at %zu", what, off);
        GBytes *z = zcompress(d, off);
        gsize l;
        const void *p = g_bytes_get_data(z, &l);
        compare_ways(p, l, name, FALSE);
        g_bytes_unref(z);
        g_free(name);
        guint8 *c = g_memdup2(d, len);
        for (unsigned v = 0; v < G_N_ELEMENTS(vals); v++) {
            c[off] = vals[v];
            name = g_strdup_printf("%s byte %zu = 0x%02x", what, off, vals[v]);
            z = zcompress(c, len);
            p = g_bytes_get_data(z, &l);
            compare_ways(p, l, name, FALSE);
            g_bytes_unref(z);
            g_free(name);
        }
        g_free(c);
    }
    g_bytes_unref(raw);
    return ninsns;
}

static void test_feed_generated(void)
{
    static const pmusim_cpu_t cpus[] = { PMUSIM_CPU_ITA2, PMUSIM_CPU_MONT, PMUSIM_CPU_WSM,
                                         PMUSIM_CPU_WSM_DP, PMUSIM_CPU_KNM };
    static const pmusim_gen_workload_t wls[] = { PMUSIM_GEN_LOOP, PMUSIM_GEN_STREAM,
                                                 PMUSIM_GEN_MIXED };
    for (unsigned c = 0; c < G_N_ELEMENTS(cpus); c++) {
        for (unsigned w = 0; w < G_N_ELEMENTS(wls); w++) {
            GBytes *t = gen_bytes(cpus[c], wls[w], 3000, 0);
            char *what = g_strdup_printf("cpu %d workload %s", cpus[c],
                                         pmusim_gen_workload_name(wls[w]));
            size_t n = compare_damaged(t, what);
            CU_ASSERT(n > 1000); /* most of the 3000 records are instructions */
            g_free(what);
            g_bytes_unref(t);
        }
    }
}

/* Version 1 (no plm in IDLE and EVENT: the thread's last INSN's) with an
 * EVENT passed through at plm 3, the level of thread 1's instruction. */
static void test_feed_v1(void)
{
    static const guint8 v1bin[] = {
        'P', 'M', 'U', 'T', 'R', 'A', 'C', 'E', 0x01, 0x02, 0x03, 0x02, 0x00, 0x00,
        0x81,                         /* thread 1 */
        0x0c, 0x20, 0x12, 0x03, 0x01, /* INSN: POS 0x10, fields plm=3 len=1 */
        0x92, 0x01, 0x3c, 0x00, 0x02, /* EVENT +1 code 0x3c umask 0 n=2 (thread 1) */
        0x90, 0x01, 0x05,             /* IDLE +1 n=5 (thread 1) */
        0x80, 0x92, 0x00, 0x3c, 0x01, 0x01, /* EVENT (thread 0) */
        0x95, 0x04,
    };
    GBytes *z = zcompress(v1bin, sizeof v1bin);
    gsize l;
    const void *p = g_bytes_get_data(z, &l);
    CU_ASSERT_EQUAL(compare_ways(p, l, "v1", TRUE), 1);
    run_t y;
    run_init(&y);
    read_feed(p, l, 4096, TRUE, &y);
    CU_ASSERT_EQUAL_FATAL(y.items->len, 3);
    CU_ASSERT_EQUAL(y.code, -1);
    const item_t *ev1 = &g_array_index(y.items, item_t, 1);
    const item_t *ev0 = &g_array_index(y.items, item_t, 2);
    CU_ASSERT(ev1->is_pass && ev1->rec.kind == PMUSIM_REC_EVENT && ev1->rec.plm == 3 &&
              ev1->rec.thread == 1 && ev1->rec.n == 2);
    CU_ASSERT(ev0->is_pass && ev0->rec.plm == 0 && ev0->rec.thread == 0 &&
              ev0->rec.ev_umask == 1);
    run_clear(&y);
    g_bytes_unref(z);
}

static void test_feed_text_refused(void)
{
    const char *text = "pmusim-trace 2\ncpu wsm\n0 0 insn ip=0x1 len=1\nend 1\n";
    GError *e = NULL;
    pmusim_trace_reader_t *r = pmusim_trace_reader_open_memory(text, strlen(text), "t", &e);
    CU_ASSERT_PTR_NOT_NULL_FATAL(r);
    pmusim_trace_feed_t f;
    memset(&f, 0, sizeof f);
    CU_ASSERT_EQUAL(pmusim_trace_reader_next_feed(r, &f, 16, &e), -1);
    CU_ASSERT(e && strstr(e->message, "not a binary trace"));
    g_clear_error(&e);
    pmusim_trace_reader_free(r);
}

static void register_suites(void)
{
    CU_pSuite s = CU_add_suite("feed", NULL, NULL);
    PMUSIM_ADD_TEST(s, test_feed_generated);
    PMUSIM_ADD_TEST(s, test_feed_v1);
    PMUSIM_ADD_TEST(s, test_feed_text_refused);
}
