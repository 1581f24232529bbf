/* The trace fuzz targets' input convention: an input starting with
 * RAW_STREAM_PREFIX is a decompressed stream that the target compresses
 * first, so that mutations reach the record decoder instead of dying in
 * zstd's checksum. */
#ifndef PMUSIM_FUZZ_RAW_STREAM_H
#define PMUSIM_FUZZ_RAW_STREAM_H

#include <glib.h>
#include <stdint.h>
#include <zstd.h>

#define RAW_STREAM_PREFIX 0xB0

/* Replaces the input (data, size) by the compressed stream for a prefixed input and
 * returns the buffer to g_free() (NULL for other inputs); FALSE when zstd
 * fails (the input is skipped). */
static inline gboolean fuzz_unpack_raw(const uint8_t **data, size_t *size, void **packed)
{
    *packed = NULL;
    if (*size == 0 || (*data)[0] != RAW_STREAM_PREFIX)
        return TRUE;
    static ZSTD_CCtx *cctx; /* one for the process: creating it per input dominated */
    if (!cctx)
        cctx = ZSTD_createCCtx();
    size_t cap = ZSTD_compressBound(*size - 1);
    void *out = g_malloc(cap);
    size_t n = ZSTD_compressCCtx(cctx, out, cap, *data + 1, *size - 1, 1);
    if (ZSTD_isError(n)) {
        g_free(out);
        return FALSE;
    }
    *packed = out;
    *data = out;
    *size = n;
    return TRUE;
}

#endif
