/* Record templates of the feed decoder (traces/reader_feed.h: fd->model,
 * fd->tmpl_lag): a template that instructions of a batch in flight point at
 * stays unchanged until the caller is done with that batch, although its
 * IP-cache entry was replaced since.  The input makes the decoder replace
 * entries all the time, some a few instructions after their template was
 * handed out (thrash_trace()); the instructions of the last `hold` calls
 * are kept as `trace annotate`'s reader thread keeps its batches in flight
 * (sim/cli/afeed.c: the instruction still open at the end of a call moves
 * to the next one; the oldest batch is given back before the next call
 * starts), each with a copy of its template as it was when decoded, and
 * after every call each kept template must still be that copy.  With hold
 * = tmpl_lag nothing may differ, and templates must be reused (or the test
 * would prove nothing); with hold = tmpl_lag + 1 some must differ: the test
 * notices a reuse one call too early. */
#include "pmusim/trace.h"
#include "pmusim/uarch.h"
#include "../../../traces/reader_feed.h"
#include "../../../traces/trace_priv.h" /* tr_cache_index(), TR_CACHE_SIZE */

#include "cu_main.h"
#include "feed_open.h"
#include "tmp_trace.h"

#include <CUnit/Basic.h>
#include <glib/gstdio.h>
#include <string.h>
#include <unistd.h>

#define NINSNS 60000u
#define NIPS 3001u

static gboolean no_sink(const pmusim_rec_t *recs, size_t n, void *user, GError **error)
{
    (void)recs, (void)n, (void)user, (void)error;
    return TRUE;
}

/* A wsm trace of NINSNS instructions, every address with its own length,
 * uops and FP flag, some with a memory access, in three parts: addresses
 * drawn at random from pairs that share an IP-cache entry (tr_cache_index()),
 * on 4 entries, then on 64 (an entry's template replaced a few or some tens
 * of instructions after it was used), then NIPS addresses in an order that
 * revisits them (every entry replaced all the time), then 8 addresses whose
 * length, uops, level and FP flag change (templates made again without a
 * new position). */
static GBytes *thrash_trace(void)
{
    /* two addresses per entry, for the entries that get two first */
    uint64_t pair[64][2];
    unsigned npair = 0;
    uint64_t first[TR_CACHE_SIZE] = { 0 };
    for (uint64_t j = 1; npair < 64; j++) {
        uint64_t ip = 0x400000u + 16u * j;
        unsigned x = tr_cache_index(ip);
        if (!first[x]) {
            first[x] = ip;
        } else if (first[x] != UINT64_MAX) {
            pair[npair][0] = first[x];
            pair[npair][1] = ip;
            npair++;
            first[x] = UINT64_MAX;
        }
    }
    pmusim_trace_header_t h;
    pmusim_trace_header_init(&h, PMUSIM_CPU_WSM, 1);
    char *path = NULL;
    pmusim_trace_writer_t *w = tmp_writer(&h, &path);
    pmusim_trace_header_clear(&h);
    GError *e = NULL;
    uint32_t rnd = 1;
    for (unsigned i = 0; i < NINSNS; i++) {
        rnd = rnd * 1103515245u + 12345u;
        uint64_t ip;
        if (i < NINSNS / 4)
            ip = pair[(rnd >> 16) % 4][(rnd >> 24) & 1];
        else if (i < 2 * NINSNS / 4)
            ip = pair[(rnd >> 16) % 64][(rnd >> 24) & 1];
        else if (i < 3 * NINSNS / 4)
            ip = 0x400000u + 16u * (((uint64_t)i * 7919u) % NIPS);
        else /* the same 8 addresses, their fields changing */
            ip = pair[(rnd >> 16) % 8][0];
        unsigned k = i < 3 * NINSNS / 4 ? (unsigned)(ip >> 4) : (rnd >> 20);
        pmusim_rec_t r;
        memset(&r, 0, sizeof r);
        r.kind = PMUSIM_REC_INSN;
        r.cycle = i;
        r.plm = i < 3 * NINSNS / 4 ? 3 : (uint8_t)(k % 4);
        r.ip = ip;
        r.len = (uint8_t)(1 + k % 15);
        r.uops = 1 + k % 4;
        if (k % 5 == 0)
            r.flags |= PMUSIM_F_FP;
        if (k % 3 == 0) {
            r.flags |= PMUSIM_F_MEM;
            r.mem.addr = 0x10000000u + 8u * i;
            r.mem.size = 8;
        }
        CU_ASSERT_FATAL(pmusim_trace_writer_write(w, &r, 1, &e));
    }
    return close_to_bytes(w, path);
}

/* One call's instructions as handed on, with their templates' contents. */
typedef struct held {
    GArray *tmpl; /* of const pmusim_rec_t *: where each instruction points */
    GArray *copy; /* of pmusim_rec_t: what it pointed at then */
} held_t;

typedef struct result {
    unsigned changed;  /* kept templates that changed while held */
    unsigned reused;   /* templates seen at an address another one had */
    unsigned bad;      /* templates not pmusim_uarch_rec_template()'s */
    unsigned ninsns;
} result_t;

static void hold_insn(held_t *h, const pmusim_uarch_t *u, const pmusim_uarch_insn_t *in,
                      GHashTable *seen, result_t *res)
{
    pmusim_rec_t t;
    pmusim_uarch_rec_template(u, in, &t);
    if (!in->tmpl || memcmp(in->tmpl, &t, sizeof t)) {
        res->bad++;
        return;
    }
    /* an address that held another template before: reused */
    pmusim_rec_t *before = g_hash_table_lookup(seen, in->tmpl);
    if (!before) {
        g_hash_table_insert(seen, (gpointer)in->tmpl, g_memdup2(&t, sizeof t));
    } else if (memcmp(before, &t, sizeof t)) {
        res->reused++;
        memcpy(before, &t, sizeof t);
    }
    g_array_append_val(h->tmpl, in->tmpl);
    g_array_append_val(h->copy, t);
    res->ninsns++;
}

/* Feeds the trace in calls of `batch` records with tmpl_lag = lag, `hold`
 * calls in flight: the instructions of the hold - 1 calls before each call
 * are kept while it runs. */
static result_t run_held(GBytes *trace, size_t batch, unsigned lag, unsigned hold)
{
    result_t res = { 0, 0, 0, 0 };
    GError *e = NULL;
    gsize len;
    const void *data = g_bytes_get_data(trace, &len);
    pmusim_trace_reader_t *r = pmusim_trace_reader_open_memory(data, len, "t", &e);
    CU_ASSERT_PTR_NOT_NULL_FATAL(r);
    pmusim_uarch_t *u = pmusim_uarch_new(PMUSIM_CPU_WSM, 1, NULL, no_sink, NULL, &e);
    CU_ASSERT_PTR_NOT_NULL_FATAL(u);
    pmusim_trace_feed_t f;
    memset(&f, 0, sizeof f);
    f.model = u;
    f.tmpl_lag = lag;
    f.insns = g_new(pmusim_uarch_insn_t, batch + 1);
    f.acc = g_new(pmusim_uarch_access_t, batch + 1 + PMUSIM_UARCH_MAX_ACCESSES);
    f.pass = g_new(pmusim_feed_pass_t, batch);
    held_t *ring = g_new0(held_t, hold);
    for (unsigned i = 0; i < hold; i++) {
        ring[i].tmpl = g_array_new(FALSE, FALSE, sizeof(const pmusim_rec_t *));
        ring[i].copy = g_array_new(FALSE, FALSE, sizeof(pmusim_rec_t));
    }
    GHashTable *seen = g_hash_table_new_full(g_direct_hash, g_direct_equal, NULL, g_free);
    feed_aside_t aside = {0};
    unsigned call = 0;
    for (;; call++) {
        feed_aside_begin(&f, &aside);
        /* the oldest call held is done before this one (afeed_main()
         * fills a slot the model gave back) */
        g_array_set_size(ring[call % hold].tmpl, 0);
        g_array_set_size(ring[call % hold].copy, 0);
        gssize n = pmusim_trace_reader_next_feed(r, &f, batch, &e);
        CU_ASSERT_FATAL(n >= 0);
        /* the calls still held: their templates as they were (the oldest,
         * call - hold, is given back: this call is the hold-th in flight) */
        for (unsigned i = 0; i < hold; i++)
            for (guint j = 0; j < ring[i].tmpl->len; j++)
                res.changed += memcmp(g_array_index(ring[i].tmpl, const pmusim_rec_t *, j),
                                      &g_array_index(ring[i].copy, pmusim_rec_t, j),
                                      sizeof(pmusim_rec_t)) != 0;
        held_t *h = &ring[call % hold];
        const size_t keep = feed_aside_end(&f, n, &aside);
        for (size_t i = 0; i < f.ninsns - keep; i++)
            hold_insn(h, u, &f.insns[i], seen, &res);
        if (n == 0)
            break;
    }
    g_hash_table_destroy(seen);
    for (unsigned i = 0; i < hold; i++) {
        g_array_unref(ring[i].tmpl);
        g_array_unref(ring[i].copy);
    }
    g_free(ring);
    pmusim_trace_feed_clear(&f);
    g_free(f.insns);
    g_free(f.acc);
    g_free(f.pass);
    pmusim_uarch_free(u);
    pmusim_trace_reader_free(r);
    return res;
}

static void test_tmpl_in_flight(void)
{
    GBytes *t = thrash_trace();
    static const struct {
        size_t batch;
        unsigned lag;
    } runs[] = { { 4096, 4 }, { 64, 1 }, { 64, 2 }, { 64, 4 }, { 1, 4 }, { 333, 3 } };
    for (unsigned k = 0; k < G_N_ELEMENTS(runs); k++) {
        result_t ok = run_held(t, runs[k].batch, runs[k].lag, runs[k].lag);
        result_t early = run_held(t, runs[k].batch, runs[k].lag, runs[k].lag + 1);
        fprintf(stderr, "batch %zu lag %u: %u instructions, %u templates reused, %u changed in "
                "flight; held one call longer: %u changed\n", runs[k].batch, runs[k].lag,
                ok.ninsns, ok.reused, ok.changed, early.changed);
        CU_ASSERT_EQUAL(ok.ninsns, NINSNS);
        CU_ASSERT_EQUAL(ok.bad, 0);
        CU_ASSERT_EQUAL(ok.changed, 0);
        CU_ASSERT(ok.reused > 1000);
        CU_ASSERT_EQUAL(early.bad, 0);
        CU_ASSERT(early.changed > 0);
    }
    g_bytes_unref(t);
}

/* The cache's templates made again: after records were read with
 * next_batch, and for another reader fed through the same feed (whose
 * entries hold templates of the first, or none). */
static void test_tmpl_remade(void)
{
    GBytes *t = thrash_trace();
    gsize len;
    const void *data = g_bytes_get_data(t, &len);
    GError *e = NULL;
    pmusim_uarch_t *u = pmusim_uarch_new(PMUSIM_CPU_WSM, 1, NULL, no_sink, NULL, &e);
    CU_ASSERT_PTR_NOT_NULL_FATAL(u);
    pmusim_trace_feed_t f;
    memset(&f, 0, sizeof f);
    f.model = u;
    f.tmpl_lag = 2;
    const size_t batch = 500;
    f.insns = g_new(pmusim_uarch_insn_t, batch + 1);
    f.acc = g_new(pmusim_uarch_access_t, batch + 1 + PMUSIM_UARCH_MAX_ACCESSES);
    f.pass = g_new(pmusim_feed_pass_t, batch);
    pmusim_rec_t *recs = g_new(pmusim_rec_t, batch);
    pmusim_trace_reader_t *rd[2];
    for (unsigned i = 0; i < 2; i++) {
        rd[i] = pmusim_trace_reader_open_memory(data, len, "t", &e);
        CU_ASSERT_PTR_NOT_NULL_FATAL(rd[i]);
    }
    unsigned bad = 0, ninsns = 0;
    for (unsigned call = 0; call < 24; call++) {
        pmusim_trace_reader_t *r = rd[(call / 3) % 2]; /* three calls each, in turn */
        if (call % 7 == 6) /* records the feed's templates do not follow */
            CU_ASSERT(pmusim_trace_reader_next_batch(r, recs, 100, &e) == 100);
        f.ninsns = f.nacc = f.npass = 0;
        f.open = FALSE;
        gssize n = pmusim_trace_reader_next_feed(r, &f, batch, &e);
        CU_ASSERT_FATAL(n > 0);
        for (size_t i = 0; i < f.ninsns; i++) {
            pmusim_rec_t tm;
            pmusim_uarch_rec_template(u, &f.insns[i], &tm);
            bad += !f.insns[i].tmpl || memcmp(&tm, f.insns[i].tmpl, sizeof tm);
            ninsns++;
        }
    }
    CU_ASSERT_EQUAL(bad, 0);
    CU_ASSERT(ninsns > 10000);
    pmusim_trace_feed_clear(&f);
    CU_ASSERT_PTR_NULL(f.tmpls);
    for (unsigned i = 0; i < 2; i++)
        pmusim_trace_reader_free(rd[i]);
    g_free(recs);
    g_free(f.insns);
    g_free(f.acc);
    g_free(f.pass);
    pmusim_uarch_free(u);
    g_bytes_unref(t);
}

static void register_suites(void)
{
    CU_pSuite s = CU_add_suite("feed-tmpl", NULL, NULL);
    PMUSIM_ADD_TEST(s, test_tmpl_in_flight);
    PMUSIM_ADD_TEST(s, test_tmpl_remade);
}
