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

#include "cu_main.h"
#include "feed_runs.h"
#include "tmp_trace.h"

#include <CUnit/Basic.h>
#include <glib/gstdio.h>
#include <string.h>
#include <unistd.h>
#include <zstd.h>

/* The model's side of a model made only for its record templates. */
static gboolean no_sink(const pmusim_rec_t *recs, size_t n, void *user, GError **error)
{
    (void)recs, (void)n, (void)user, (void)error;
    return TRUE;
}

static pmusim_uarch_t *tmpl_model(pmusim_cpu_t cpu)
{
    GError *e = NULL;
    pmusim_uarch_t *u = pmusim_uarch_new(cpu, 1, NULL, no_sink, NULL, &e);
    CU_ASSERT_PTR_NOT_NULL_FATAL(u);
    return u;
}

/* Both ways, several batch sizes (`all`: also 1 and 64) and both EVENT
 * settings, the feed once more with record templates for `model` (every
 * instruction's template checked); returns the number of instructions the
 * input made (the same both ways). */
static size_t compare_ways(const void *data, size_t len, const char *what, gboolean all,
                           const pmusim_uarch_t *model)
{
    static const size_t batches[] = { 3, 4096, 1, 64 };
    size_t ninsns = 0;
    for (unsigned b = 0; b < (all ? G_N_ELEMENTS(batches) : 2); b++) {
        for (int pe = 0; pe < 4; pe++) { /* PASS_EVENTS, PASS_THREADS */
            run_t x, y, z;
            run_init(&x);
            run_init(&y);
            run_init(&z);
            read_records(data, len, batches[b], pe, &x);
            read_feed(data, len, batches[b], pe, NULL, &y);
            /* with templates: once per input (batches of 4,096, EVENT records
             * passed), the other settings being the feed's own */
            gboolean tmpl = b == 1 && pe == PASS_EVENTS;
            if (tmpl)
                read_feed(data, len, batches[b], pe, model, &z);
            gboolean same = feed_runs_equal(&x, &y);
            gboolean same_tmpl = !tmpl || feed_runs_equal(&x, &z);
            if (!same_tmpl)
                fprintf(stderr, "%s, batch %zu, events %d, templates: %" G_GUINT64_FORMAT
                        " bad, %u/%u items\n", what, batches[b], pe, z.tmpl_bad, x.items->len,
                        z.items->len);
            CU_ASSERT(same_tmpl);
            size_t insns = 0;
            for (guint i = 0; i < x.items->len; i++)
                insns += !g_array_index(x.items, item_t, i).is_pass;
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
            run_clear(&z);
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
    pmusim_trace_writer_t *w = tmp_writer(&h, &path);
    pmusim_trace_header_clear(&h);
    CU_ASSERT(pmusim_gen_run(&p, w, &e));
    return close_to_bytes(w, path);
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
static size_t compare_damaged(GBytes *trace, const char *what, const pmusim_uarch_t *model)
{
    gsize zlen;
    const void *zd = g_bytes_get_data(trace, &zlen);
    size_t ninsns = compare_ways(zd, zlen, what, TRUE, model);
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
        compare_ways(p, l, name, FALSE, model);
        g_bytes_unref(z);
        g_free(name);
        guint8 *c = g_memdup2(d, len);
        for (unsigned v = 0; v < G_N_ELEMENTS(vals); v++) {
            c[off] = vals[v];
            name = g_strdup_printf("%s byte %zu = 0x%02x", what, off, vals[v]);
            z = zcompress(c, len);
            p = g_bytes_get_data(z, &l);
            compare_ways(p, l, name, FALSE, model);
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
            pmusim_uarch_t *u = tmpl_model(cpus[c]);
            size_t n = compare_damaged(t, what, u);
            pmusim_uarch_free(u);
            CU_ASSERT(n > 1000); /* most of the 3000 records are instructions */
            g_free(what);
            g_bytes_unref(t);
        }
    }
}

/* Generated traces of 2 threads up to the CPU's most (the decoder's
 * repeat loop takes the thread switches between repeated records): the
 * feed as the ordinary decoder, every batch size. */
static void test_feed_threads(void)
{
    static const pmusim_cpu_t cpus[] = { PMUSIM_CPU_WSM, PMUSIM_CPU_KNM, PMUSIM_CPU_MONT };
    static const pmusim_gen_workload_t wls[] = { PMUSIM_GEN_LOOP, PMUSIM_GEN_MIXED };
    for (unsigned c = 0; c < G_N_ELEMENTS(cpus); c++) {
        for (unsigned w = 0; w < G_N_ELEMENTS(wls); w++) {
            for (uint32_t nt = 2; nt <= pmusim_gen_default_threads(cpus[c]); nt++) {
                GBytes *t = gen_bytes(cpus[c], wls[w], 6000, nt);
                char *what = g_strdup_printf("cpu %d workload %s, %u threads", cpus[c],
                                             pmusim_gen_workload_name(wls[w]), nt);
                gsize len;
                const void *d = g_bytes_get_data(t, &len);
                pmusim_uarch_t *u = tmpl_model(cpus[c]);
                size_t n = compare_ways(d, len, what, TRUE, u);
                pmusim_uarch_free(u);
                CU_ASSERT(n > 3000);
                g_free(what);
                g_bytes_unref(t);
            }
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
    pmusim_uarch_t *u = tmpl_model(PMUSIM_CPU_WSM);
    CU_ASSERT_EQUAL(compare_ways(p, l, "v1", TRUE, u), 1);
    pmusim_uarch_free(u);
    run_t y;
    run_init(&y);
    read_feed(p, l, 4096, TRUE, NULL, &y);
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

/* Instructions with more MEM records than a model input holds (a capture's
 * string instruction: 150, 128 and 65 accesses, on two threads, between
 * ordinary ones): both ways make the same parts at every batch size
 * (PMUSIM_UARCH_ACC_MORE / _CONT, include/pmusim/uarch.h), none dropped:
 * 64 | MORE, 64 | MORE | CONT, 22 | CONT for the first. */
static void test_feed_long_instructions(void)
{
    pmusim_trace_header_t h;
    pmusim_trace_header_init(&h, PMUSIM_CPU_WSM, 2);
    char *path = NULL;
    pmusim_trace_writer_t *w = tmp_writer(&h, &path);
    pmusim_trace_header_clear(&h);
    GError *e = NULL;
    static const uint32_t lens[] = { 150, 1, 128, 0, 65 };
    uint64_t cycle = 1;
    for (unsigned k = 0; k < G_N_ELEMENTS(lens); k++, cycle += 3) {
        pmusim_rec_t r;
        memset(&r, 0, sizeof r);
        r.kind = PMUSIM_REC_INSN;
        r.cycle = cycle;
        r.thread = (uint8_t)(k & 1);
        r.plm = 3;
        r.len = 2;
        r.ip = 0x401000 + 2 * k;
        if (lens[k]) {
            r.flags = PMUSIM_F_MEM;
            r.mem.addr = 0x7000 + 0x1000 * k;
            r.mem.size = 1;
            r.mem.is_store = k == 2;
        }
        CU_ASSERT_TRUE_FATAL(pmusim_trace_writer_write(w, &r, 1, &e));
        for (uint32_t i = 1; i < lens[k]; i++) {
            r.kind = PMUSIM_REC_MEM;
            r.mem.addr += 8;
            CU_ASSERT_TRUE_FATAL(pmusim_trace_writer_write(w, &r, 1, &e));
        }
    }
    GBytes *bytes = close_to_bytes(w, path);
    gsize len;
    const void *data = g_bytes_get_data(bytes, &len);
    pmusim_uarch_t *u = tmpl_model(PMUSIM_CPU_WSM);
    /* 3 + 1 + 2 + 1 + 2 inputs */
    CU_ASSERT_EQUAL(compare_ways(data, len, "long instructions", TRUE, u), 9);
    pmusim_uarch_free(u);
    run_t y;
    run_init(&y);
    read_feed(data, len, 3, FALSE, NULL, &y);
    static const uint32_t want[] = {
        64 | PMUSIM_UARCH_ACC_MORE, 64 | PMUSIM_UARCH_ACC_MORE | PMUSIM_UARCH_ACC_CONT,
        22 | PMUSIM_UARCH_ACC_CONT, 1, 64 | PMUSIM_UARCH_ACC_MORE, 64 | PMUSIM_UARCH_ACC_CONT,
        0, 64 | PMUSIM_UARCH_ACC_MORE, 1 | PMUSIM_UARCH_ACC_CONT,
    };
    CU_ASSERT_EQUAL_FATAL(y.items->len, G_N_ELEMENTS(want));
    CU_ASSERT_EQUAL(y.code, -1);
    for (guint i = 0; i < y.items->len; i++) {
        const item_t *it = &g_array_index(y.items, item_t, i);
        CU_ASSERT_EQUAL(it->in.naccess, want[i]);
    }
    /* the 150 accesses in order: the third part's last is the 150th */
    const item_t *p3 = &g_array_index(y.items, item_t, 2);
    CU_ASSERT_EQUAL(g_array_index(y.accs, pmusim_uarch_access_t, p3->acc + 21).addr,
                    0x7000 + 8 * 149);
    CU_ASSERT_EQUAL(p3->in.ip, 0x401000);
    run_clear(&y);
    g_bytes_unref(bytes);
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
    PMUSIM_ADD_TEST(s, test_feed_threads);
    PMUSIM_ADD_TEST(s, test_feed_v1);
    PMUSIM_ADD_TEST(s, test_feed_long_instructions);
    PMUSIM_ADD_TEST(s, test_feed_text_refused);
}
