/* zstd settings on a trace's own bytes (docs/PERFORMANCE.md, "zstd: level,
 * frames and literals"; not run by CI).
 *
 *   bench-zstd FILE [SETTING...] [--passes N] [--only compress|decompress]
 *
 * Decompresses the binary trace FILE in memory, counts its records with the
 * trace reader, then for each SETTING (default: level=3 and level=1)
 * compresses the stream as traces/writer.c does (ZSTD_compressStream2() over
 * 128 KiB pieces, ZSTD_e_continue and a final ZSTD_e_end) and decompresses
 * the result as traces/reader.c does (128 KiB of input at a time into
 * 128 KiB blocks with ZSTD_decompressStream()), or frame by frame with one
 * ZSTD_decompressDCtx() into the block (oneshot=1, for frames=1).  A
 * SETTING is a comma-separated list of
 *   level=N        compression level (negative: zstd's fast levels)
 *   wlog=N         windowLog (default 22, the writer's)
 *   checksum=0|1   content checksum (default 1)
 *   literals=0     ZSTD_c_literalCompressionMode = ZSTD_ps_disable
 *   frames=1       a frame per 128 KiB piece, its content size pledged
 *   oneshot=1      decompress each frame in one call into the block
 * Prints one line per setting: compressed bytes per record and the rates
 * (M records/s of the thread's CPU time, best of N passes, default 5).
 * --only runs one side once, for
 *   valgrind --tool=callgrind --toggle-collect=ZSTD_compressStream2 ...
 *   valgrind --tool=callgrind --toggle-collect=bench_decompress ...
 * which count zstd's instructions alone (bench_decompress() calls nothing
 * else; the reader that counts the records also calls
 * ZSTD_decompressStream(), so that name would count it too). */
#define ZSTD_STATIC_LINKING_ONLY /* ZSTD_c_literalCompressionMode */
#include "pmusim/trace.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <zstd.h>

#define PIECE (128u * 1024u)

typedef struct setting {
    const char *text;
    int level, wlog, checksum, literals, frames, oneshot;
} setting_t;

static double cpu_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static gboolean parse_setting(const char *text, setting_t *s)
{
    *s = (setting_t){ .text = text, .level = 3, .wlog = 22, .checksum = 1, .literals = 1 };
    gchar **kv = g_strsplit(text, ",", -1);
    gboolean ok = TRUE;
    for (gchar **p = kv; *p && ok; p++) {
        int v;
        char key[16];
        if (sscanf(*p, "%15[a-z]=%d", key, &v) != 2)
            ok = FALSE;
        else if (!strcmp(key, "level"))
            s->level = v;
        else if (!strcmp(key, "wlog"))
            s->wlog = v;
        else if (!strcmp(key, "checksum"))
            s->checksum = v;
        else if (!strcmp(key, "literals"))
            s->literals = v;
        else if (!strcmp(key, "frames"))
            s->frames = v;
        else if (!strcmp(key, "oneshot"))
            s->oneshot = v;
        else
            ok = FALSE;
    }
    g_strfreev(kv);
    return ok && (!s->oneshot || s->frames);
}

/* The whole decompressed stream of FILE. */
static GByteArray *inflate_file(const char *path)
{
    gchar *data;
    gsize len;
    if (!g_file_get_contents(path, &data, &len, NULL))
        return NULL;
    GByteArray *out = g_byte_array_new();
    ZSTD_DCtx *d = ZSTD_createDCtx();
    uint8_t *blk = g_malloc(PIECE);
    ZSTD_inBuffer in = { data, len, 0 };
    size_t ret = 1;
    while (in.pos < in.size || ret != 0) {
        ZSTD_outBuffer o = { blk, PIECE, 0 };
        ret = ZSTD_decompressStream(d, &o, &in);
        if (ZSTD_isError(ret) || (o.pos == 0 && in.pos == in.size && ret != 0)) {
            g_byte_array_free(out, TRUE);
            out = NULL;
            break;
        }
        g_byte_array_append(out, blk, (guint)o.pos);
    }
    ZSTD_freeDCtx(d);
    g_free(blk);
    g_free(data);
    return out;
}

static uint64_t count_records(const char *path)
{
    GError *e = NULL;
    pmusim_trace_reader_t *r = pmusim_trace_reader_open(path, &e);
    if (!r) {
        g_clear_error(&e);
        return 0;
    }
    pmusim_rec_t *batch = g_new(pmusim_rec_t, 1024);
    uint64_t n = 0;
    gssize k;
    while ((k = pmusim_trace_reader_next_batch(r, batch, 1024, &e)) > 0)
        n += (uint64_t)k;
    g_clear_error(&e);
    g_free(batch);
    pmusim_trace_reader_free(r);
    return k == 0 ? n : 0;
}

/* Compresses raw into *out the writer's way; FALSE on a zstd error. */
static gboolean compress(ZSTD_CCtx *z, const setting_t *s, const GByteArray *raw,
                         GByteArray *out)
{
    ZSTD_CCtx_reset(z, ZSTD_reset_session_and_parameters);
    size_t e = ZSTD_CCtx_setParameter(z, ZSTD_c_compressionLevel, s->level);
    e = ZSTD_isError(e) ? e : ZSTD_CCtx_setParameter(z, ZSTD_c_windowLog, s->wlog);
    e = ZSTD_isError(e) ? e : ZSTD_CCtx_setParameter(z, ZSTD_c_checksumFlag, s->checksum);
    if (!ZSTD_isError(e) && !s->literals)
        e = ZSTD_CCtx_setParameter(z, ZSTD_c_literalCompressionMode, ZSTD_ps_disable);
    if (ZSTD_isError(e)) {
        fprintf(stderr, "bench-zstd: %s: %s\n", s->text, ZSTD_getErrorName(e));
        return FALSE;
    }
    static uint8_t *buf; /* the writer's size */
    size_t cap = ZSTD_CStreamOutSize();
    if (!buf)
        buf = g_malloc(cap);
    g_byte_array_set_size(out, 0);
    for (size_t p = 0; p < raw->len; p += PIECE) {
        size_t k = MIN(PIECE, raw->len - p);
        gboolean last = p + k >= raw->len;
        ZSTD_EndDirective mode = s->frames || last ? ZSTD_e_end : ZSTD_e_continue;
        if (s->frames)
            ZSTD_CCtx_setPledgedSrcSize(z, k);
        ZSTD_inBuffer in = { raw->data + p, k, 0 };
        for (;;) {
            ZSTD_outBuffer o = { buf, cap, 0 };
            size_t rem = ZSTD_compressStream2(z, &o, &in, mode);
            if (ZSTD_isError(rem)) {
                fprintf(stderr, "bench-zstd: %s: %s\n", s->text, ZSTD_getErrorName(rem));
                return FALSE;
            }
            g_byte_array_append(out, buf, (guint)o.pos);
            if (mode == ZSTD_e_continue ? in.pos == in.size : rem == 0)
                break;
        }
    }
    return TRUE;
}

/* Decompresses c the reader's way (or frame by frame); the bytes out. */
G_GNUC_NO_INLINE size_t bench_decompress(ZSTD_DCtx *d, const setting_t *s, const GByteArray *c,
                                         uint8_t *blk);
G_GNUC_NO_INLINE size_t bench_decompress(ZSTD_DCtx *d, const setting_t *s, const GByteArray *c, uint8_t *blk)
{
    size_t total = 0;
    if (s->oneshot) {
        for (size_t p = 0; p < c->len;) {
            size_t fs = ZSTD_findFrameCompressedSize(c->data + p, c->len - p);
            size_t got = ZSTD_isError(fs) ? fs : ZSTD_decompressDCtx(d, blk, PIECE, c->data + p, fs);
            if (ZSTD_isError(got))
                return 0;
            total += got;
            p += fs;
        }
        return total;
    }
    ZSTD_DCtx_reset(d, ZSTD_reset_session_and_parameters);
    size_t len = 0, ret = 0;
    for (size_t p = 0; p < c->len; p += PIECE) {
        ZSTD_inBuffer in = { c->data + p, MIN(PIECE, c->len - p), 0 };
        while (in.pos < in.size) {
            ZSTD_outBuffer o = { blk + len, PIECE - len, 0 };
            ret = ZSTD_decompressStream(d, &o, &in);
            if (ZSTD_isError(ret))
                return 0;
            len += o.pos;
            if (len == PIECE)
                total += len, len = 0;
        }
    }
    /* what zstd still holds after the last input */
    for (;;) {
        ZSTD_inBuffer in = { NULL, 0, 0 };
        ZSTD_outBuffer o = { blk + len, PIECE - len, 0 };
        ret = ZSTD_decompressStream(d, &o, &in);
        if (ZSTD_isError(ret))
            return 0;
        len += o.pos;
        if (len < PIECE)
            break;
        total += len, len = 0;
    }
    return total + len;
}

int main(int argc, char **argv)
{
    unsigned passes = 5;
    const char *only = NULL, *path = NULL;
    GPtrArray *texts = g_ptr_array_new();
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--passes") && i + 1 < argc)
            passes = (unsigned)atoi(argv[++i]);
        else if (!strcmp(argv[i], "--only") && i + 1 < argc)
            only = argv[++i];
        else if (!path)
            path = argv[i];
        else
            g_ptr_array_add(texts, argv[i]);
    }
    if (!path || passes < 1 || passes > 100 ||
        (only && strcmp(only, "compress") && strcmp(only, "decompress"))) {
        fprintf(stderr, "usage: bench-zstd FILE [SETTING...] [--passes N] "
                        "[--only compress|decompress]\n");
        return 2;
    }
    if (!texts->len) {
        g_ptr_array_add(texts, "level=3");
        g_ptr_array_add(texts, "level=1");
    }
    if (only)
        passes = 1;
    GByteArray *raw = inflate_file(path);
    uint64_t nrec = count_records(path);
    if (!raw || !nrec) {
        fprintf(stderr, "bench-zstd: %s: not a readable binary trace\n", path);
        return 1;
    }
    ZSTD_CCtx *z = ZSTD_createCCtx();
    ZSTD_DCtx *d = ZSTD_createDCtx();
    GByteArray *c = g_byte_array_new();
    uint8_t *blk = g_malloc(PIECE);
    int rc = 0;
    for (guint t = 0; t < texts->len && !rc; t++) {
        setting_t s;
        if (!parse_setting(g_ptr_array_index(texts, t), &s)) {
            fprintf(stderr, "bench-zstd: bad setting '%s'\n", (char *)g_ptr_array_index(texts, t));
            rc = 2;
            break;
        }
        double tc = 1e9, td = 1e9;
        for (unsigned i = 0; i < passes && (!only || !strcmp(only, "compress")); i++) {
            double t0 = cpu_now();
            if (!compress(z, &s, raw, c)) {
                rc = 1;
                break;
            }
            tc = MIN(tc, cpu_now() - t0);
        }
        if (only && !strcmp(only, "decompress") && !compress(z, &s, raw, c))
            rc = 1;
        for (unsigned i = 0; !rc && i < passes && (!only || !strcmp(only, "decompress")); i++) {
            double t0 = cpu_now();
            if (bench_decompress(d, &s, c, blk) != raw->len) {
                fprintf(stderr, "bench-zstd: %s: decompression failed\n", s.text);
                rc = 1;
            }
            td = MIN(td, cpu_now() - t0);
        }
        if (!rc)
            printf("%s records=%" G_GUINT64_FORMAT " stream_bytes=%u bytes=%u bytes/record=%.3f "
                   "compress=%.1f decompress=%.1f\n",
                   s.text, (guint64)nrec, raw->len, c->len, (double)c->len / (double)nrec,
                   tc < 1e9 ? (double)nrec / tc / 1e6 : 0.0,
                   td < 1e9 ? (double)nrec / td / 1e6 : 0.0);
    }
    g_free(blk);
    g_byte_array_free(c, TRUE);
    g_byte_array_free(raw, TRUE);
    ZSTD_freeCCtx(z);
    ZSTD_freeDCtx(d);
    g_ptr_array_free(texts, TRUE);
    return rc;
}
