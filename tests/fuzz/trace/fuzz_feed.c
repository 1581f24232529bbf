/* Fuzz target for the feed decoder (traces/reader_feed.h, `trace
 * annotate`'s input): any bytes read by pmusim_trace_reader_next_feed()
 * must give exactly what the ordinary decoder plus the records' conversion
 * gives (tests/common/feed_runs.h): the same instructions and accesses, the
 * same pass-through records in the same places, the same record counts and
 * symbols per call, the same error at the same record, and record
 * templates equal to the model's own.  A difference
 * aborts, which the fuzzer reports.  The batch size and whether EVENT
 * records pass through come from a hash of the input, so a reproducer
 * always takes the same path. */
#include "feed_runs.h"
#include "raw_stream.h"

#include <stdint.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static gboolean no_sink(const pmusim_rec_t *recs, size_t n, void *user, GError **error)
{
    (void)recs, (void)n, (void)user, (void)error;
    return TRUE;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    void *packed;
    if (!fuzz_unpack_raw(&data, &size, &packed))
        return 0;
    /* text traces have no feed decoder (`trace annotate` converts their records) */
    pmusim_trace_reader_t *r =
        pmusim_trace_reader_open_memory_ex(data, size, "t", PMUSIM_TRACE_OPEN_QUIET, NULL);
    gboolean binary = r && pmusim_trace_reader_is_binary(r);
    pmusim_trace_reader_free(r);
    if (!binary) {
        g_free(packed);
        return 0;
    }
    guint hash = 2166136261u; /* FNV-1a */
    for (size_t i = 0; i < size; i++)
        hash = (hash ^ data[i]) * 16777619u;
    static const size_t batches[] = { 1, 3, 64, 4096 };
    size_t batch = batches[hash % G_N_ELEMENTS(batches)];
    int pass_events = (int)((hash >> 8) & 1) | (int)((hash >> 10) & 1) << 1; /* feed_runs.h */
    run_t x, y;
    run_init(&x);
    run_init(&y);
    read_records(data, size, batch, pass_events, &x);
    /* half the inputs with record templates (of a wsm model: each is
     * checked against pmusim_uarch_rec_template() of the same model) */
    static pmusim_uarch_t *model;
    if (!model)
        model = pmusim_uarch_new(PMUSIM_CPU_WSM, 1, NULL, no_sink, NULL, NULL);
    read_feed(data, size, batch, pass_events, (hash >> 9) & 1 ? model : NULL, &y);
    if (!feed_runs_equal(&x, &y)) {
        fprintf(stderr, "feed decoder differs (batch %zu, events %d): %u/%u items, %u/%u calls, "
                "%" G_GUINT64_FORMAT "/%" G_GUINT64_FORMAT " records, [%s] / [%s]\n",
                batch, pass_events, x.items->len, y.items->len, x.counts->len, y.counts->len,
                x.records_read, y.records_read, x.message ? x.message : "",
                y.message ? y.message : "");
        abort();
    }
    run_clear(&x);
    run_clear(&y);
    g_free(packed);
    return 0;
}
