/* Fuzz target for the trace reader: any bytes, binary or text, must give
 * records or a clean GError, never a crash, hang or unbounded allocation. */
#include "pmusim/trace.h"

#include <stddef.h>
#include <stdint.h>
#include <zstd.h>

/* An input starting with this byte is a decompressed stream: the target
 * compresses the rest first, so that mutations reach the record decoder
 * instead of dying in zstd's checksum. */
#define RAW_STREAM_PREFIX 0xB0

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    GError *error = NULL;
    void *packed = NULL;
    if (size > 0 && data[0] == RAW_STREAM_PREFIX) {
        size_t cap = ZSTD_compressBound(size - 1);
        packed = g_malloc(cap);
        size_t n = ZSTD_compress(packed, cap, data + 1, size - 1, 1);
        if (ZSTD_isError(n)) {
            g_free(packed);
            return 0;
        }
        data = packed;
        size = n;
    }
    pmusim_trace_reader_t *r = pmusim_trace_reader_open_memory(data, size, "fuzz", &error);
    if (!r) {
        g_clear_error(&error);
        g_free(packed);
        return 0;
    }
    const pmusim_trace_header_t *h = pmusim_trace_reader_header(r);
    uint64_t sum = h->nthreads;
    pmusim_rec_t recs[64];
    gssize n;
    while ((n = pmusim_trace_reader_next_batch(r, recs, G_N_ELEMENTS(recs), &error)) > 0)
        for (gssize i = 0; i < n; i++) {
            sum += recs[i].cycle + recs[i].thread;
            if (recs[i].kind == PMUSIM_REC_MARKER)
                sum += (uint8_t)recs[i].name[0]; /* names must be valid */
        }
    g_clear_error(&error);
    const GArray *syms = pmusim_trace_reader_symbols(r);
    for (guint i = 0; i < syms->len; i++)
        sum += (uint8_t)g_array_index(syms, pmusim_symbol_t, i).name[0];
    pmusim_trace_reader_free(r);
    g_free(packed);
    return sum == UINT64_MAX; /* keeps the reads alive; always 0 in practice */
}
