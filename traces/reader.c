/* Trace reader: a streaming pull iterator over the binary form (zstd stream
 * of delta-coded records) or the text form, in constant memory: fixed-size
 * input and decompression buffers, no per-record allocation.  The binary
 * decoder mirrors enc_insn() in writer.c; FORMAT.md specifies both. */
#include "pmusim/trace.h"
#include "trace_priv.h"
#include "reader_feed.h"
#include "../sim/uarch/uarch_input.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <string.h>
#include <sys/stat.h>
#include <zstd.h>
#include <zstd_errors.h>

/* reader_feed.h: an IP-cache entry's record as the model's input, kept
 * beside the cache while the decoder feeds, so that a repeated instruction
 * is a copy and three stores; made again where the entry changes in what
 * the input holds.  As large as a cache entry, and allocated with the codec
 * (tr_codec_feed_t), so that an entry's template is at a constant distance
 * from it: an addressing mode, no register. */
typedef struct tr_feed_ent {
    pmusim_uarch_insn_t in;    /* thread and access are set per instruction */
    pmusim_uarch_access_t acc; /* addr is set per instruction */
    uint64_t acc_bytes;        /* in.naccess * sizeof acc: how far the accesses move on */
    const pmusim_rec_t *rtmpl; /* in.tmpl: the record template (feed_tmpl_new()) */
    uint8_t pad_[sizeof(tr_cache_ent_t) - sizeof(pmusim_uarch_insn_t) -
                 sizeof(pmusim_uarch_access_t) - sizeof(uint64_t) - sizeof(void *)];
} tr_feed_ent_t;
_Static_assert(sizeof(tr_feed_ent_t) == sizeof(tr_cache_ent_t),
               "a template is as large as its cache entry");

/* The codec as the reader allocates it: the templates follow it (touched
 * only by a reader that feeds). */
typedef struct tr_codec_feed {
    tr_codec_t codec;
    tr_feed_ent_t feed[TR_CACHE_SIZE];
} tr_codec_feed_t;

/* Record templates for the model (reader_feed.h: fd->model), one per
 * IP-cache entry, in.tmpl of the entry's template above, so that a repeated
 * instruction takes it with the copy of `in` at no cost.  The reader thread
 * hands batches to the model's thread while it decodes the next ones, so a
 * template that instructions in flight point at must not change when its
 * entry does: the entry gets another template and the old one joins a queue
 * of retired ones, stamped with the call that retired it, and is reused
 * only tmpl_lag calls later (by then the caller is done with the batches
 * that may point at it).  Against the alternatives: templates owned by the
 * batch (a copy per instruction, or per entry and batch with a test per
 * instruction) and double buffers (the same test) cost the fast path;
 * this costs only where the entry's input is made again (a new position or
 * a field mask: about 4 % of the instructions of a capture), and only a
 * call where the mask holds none of the template's fields (feed_ent_make()). */
typedef struct tr_tmpl {
    pmusim_rec_t rec;     /* in.tmpl points here */
    struct tr_tmpl *next; /* in the retired queue */
    uint64_t call;        /* the call (fd->calls) that retired it */
    gboolean live;        /* an entry's template */
} tr_tmpl_t;

#define TR_TMPL_CHUNK 256u

struct pmusim_feed_tmpls {
    tr_tmpl_t *head, *tail; /* retired, oldest first */
    GPtrArray *chunks;      /* of TR_TMPL_CHUNK templates each */
    unsigned used;          /* of the last chunk */
};

static void tmpl_retire(pmusim_trace_feed_t *fd, tr_tmpl_t *t)
{
    struct pmusim_feed_tmpls *ts = fd->tmpls;
    t->live = FALSE;
    t->call = fd->calls;
    t->next = NULL;
    if (ts->tail)
        ts->tail->next = t;
    else
        ts->head = t;
    ts->tail = t;
}

/* A template no instruction in flight points at. */
static tr_tmpl_t *tmpl_take(pmusim_trace_feed_t *fd)
{
    struct pmusim_feed_tmpls *ts = fd->tmpls;
    const uint64_t lag = fd->tmpl_lag ? fd->tmpl_lag : 1;
    tr_tmpl_t *t = ts->head;
    if (t && t->call + lag <= fd->calls) {
        ts->head = t->next;
        if (!ts->head)
            ts->tail = NULL;
        return t;
    }
    if (!ts->chunks->len || ts->used == TR_TMPL_CHUNK) {
        g_ptr_array_add(ts->chunks, g_new(tr_tmpl_t, TR_TMPL_CHUNK));
        ts->used = 0;
    }
    tr_tmpl_t *chunk = g_ptr_array_index(ts->chunks, ts->chunks->len - 1);
    return &chunk[ts->used++];
}

/* A new record template for the entry's input fe->in, the old one
 * (fe->rtmpl, NULL: none) retired. */
static G_GNUC_NO_INLINE void feed_tmpl_new(pmusim_trace_feed_t *fd, tr_feed_ent_t *fe)
{
    if (fe->rtmpl)
        tmpl_retire(fd, (tr_tmpl_t *)fe->rtmpl);
    tr_tmpl_t *t = tmpl_take(fd);
    pmusim_uarch_rec_template(fd->model, &fe->in, &t->rec);
    t->live = TRUE;
    fe->rtmpl = &t->rec;
}

/* Every template of the feed's that is an entry's: retired (the cache's
 * templates are made again for another reader, or after next_batch). */
static void feed_tmpl_retire_all(pmusim_trace_feed_t *fd)
{
    struct pmusim_feed_tmpls *ts = fd->tmpls;
    for (guint c = 0; c < ts->chunks->len; c++) {
        tr_tmpl_t *chunk = g_ptr_array_index(ts->chunks, c);
        unsigned n = c + 1 == ts->chunks->len ? ts->used : TR_TMPL_CHUNK;
        for (unsigned i = 0; i < n; i++)
            if (chunk[i].live)
                tmpl_retire(fd, &chunk[i]);
    }
}

void pmusim_trace_feed_clear(pmusim_trace_feed_t *f)
{
    if (!f->tmpls)
        return;
    g_ptr_array_free(f->tmpls->chunks, TRUE);
    g_free(f->tmpls);
    f->tmpls = NULL;
    f->tmpl_reader = NULL;
}

/* What made an entry's input template dirty (bin_decode_loop()'s fdirty). */
enum {
    FEED_DIRTY_INPUT = 1, /* a field mask: made again */
    /* a new position, or a field mask with one of the fields the record
     * template is made of (include/pmusim/uarch.h: ip, len, plm, fp, uops,
     * slot, unit, flags, insn): the record template too */
    FEED_DIRTY_TMPL = 3,
};
/* The field mask bits of those fields (TR_M_FLAGS: also when only the
 * memory, branch or offcore flag changed; a record decoded again after a
 * refill has its fields in the entry already, so comparing with the entry
 * would not tell) */
#define FEED_TMPL_MASK (TR_M_FLAGS | TR_M_PLM | TR_M_UNIT | TR_M_INSN | TR_M_LEN | TR_M_UOPS)

/* A template from its entry's record; `dirty`: FEED_DIRTY_*. */
static inline void feed_ent_make(tr_feed_ent_t *fe, const pmusim_rec_t *rec,
                                 pmusim_trace_feed_t *fd, unsigned dirty)
{
    uarch_input_insn(rec, 0, &fe->in, &fe->acc);
    fe->acc_bytes = fe->in.naccess * sizeof fe->acc;
    if (G_UNLIKELY(dirty == FEED_DIRTY_TMPL) && fd->model)
        feed_tmpl_new(fd, fe);
    fe->in.tmpl = fe->rtmpl;
}

/* Cache entry e's template. */
#define TR_FEED_ENT(e)                                                                  \
    ((tr_feed_ent_t *)((char *)(e) + (offsetof(tr_codec_feed_t, feed) -               \
                                      offsetof(tr_codec_feed_t, codec.cache))))

#define RAW_SIZE (128u * 1024u)
#define DBUF_SIZE (256u * 1024u)

struct pmusim_trace_reader {
    char *name;
    /* raw input: a file or a memory block */
    FILE *fp;
    gboolean own_fp;
    const uint8_t *raw;
    uint8_t *rawbuf;
    struct reader_bufs *bufs; /* where rawbuf, codec, zd and a block come from */
    size_t raw_pos, raw_len;
    uint64_t raw_off; /* file offset of raw[0] */
    gboolean raw_eof;

    gboolean binary;
    gboolean done;
    gboolean failed;
    pmusim_trace_header_t hdr;
    uint64_t nrec;
    uint64_t last_cycle;
    GArray *symbols;     /* of pmusim_symbol_t */
    GPtrArray *markers;  /* interned marker names, by index */
    GHashTable *marker_idx; /* text form: name -> index + 1 */
    size_t marker_bytes;
    uint64_t symbol_bytes;
    unsigned flags;         /* PMUSIM_TRACE_OPEN_* */
    char *warning;

    /* binary */
    ZSTD_DStream *zd;
    uint8_t *dbuf; /* what the decoder is shown: dbuf[0..dlen), in a block of the ring */
    size_t dpos, dlen;
    uint64_t doff; /* decompressed-stream offset of dbuf[0] */
    uint64_t wend; /* decompressed-stream offset where the refill window ends */
    gboolean zeof; /* the window reaches the end of the stream */
    gboolean frame_open;
    tr_codec_t *codec;
    gboolean ftmpl_valid;  /* the templates (tr_codec_feed_t) match the cache;
                            * cleared by next_batch */
    char errbuf[256];
    /* decompression: what ended the stream (bin_inflate()), for the error */
    int zerr_code;
    gboolean zerr_prefix; /* the message takes the stream position (bin_error()) */
    char *zerr_msg;
    unsigned refills;     /* refill windows; the thread starts on the second */
    int zq_mode;          /* ZQ_MODE_*, from PMUSIM_DECODE_THREAD */
    gboolean wide;        /* the decoder's AVX2 instance (rd_wide_of_env()) */
    struct zqueue *zq;    /* the decompression thread, or NULL */

    /* text */
    GString *line;
    uint64_t line_no;
    gboolean have_pending; /* `line` holds the first record line */
    gboolean seen_end;     /* the end line was read */
    pmusim_rec_t prev;     /* the last record (MEM records follow an INSN) */
    uint8_t cur_plm[PMUSIM_MAX_THREADS]; /* plm of each thread's last INSN */
};

static void symbol_clear(gpointer p)
{
    g_free(((pmusim_symbol_t *)p)->name);
}

/* ---- the large buffers, kept for the next reader ----
 * A reader needs about 700 KiB of buffers (raw input, zstd's context, the
 * blocks, the record cache).  Programs that open many small traces in
 * turn (`pmusim check` opens the trace of every case; the fuzz targets one
 * per input) spent most of their time getting fresh memory for them, so the
 * last reader freed leaves its buffers in one process-wide spare set that
 * the next reader takes whole.  Every buffer is initialised by its user as
 * if new (zstd's context is reset, the cache rebuilt), so nothing read
 * depends on it. */
typedef struct reader_bufs {
    uint8_t *raw;       /* RAW_SIZE */
    uint8_t *block;     /* a block of the ring (ZQ_PREFIX + ZQ_SLOT_SIZE), or NULL */
    tr_codec_t *codec;  /* not cleared */
    ZSTD_DStream *zd;
} reader_bufs_t;

static reader_bufs_t *spare_bufs;

static reader_bufs_t *bufs_take(void)
{
    reader_bufs_t *b = g_atomic_pointer_exchange(&spare_bufs, NULL);
    return b ? b : g_new0(reader_bufs_t, 1);
}

static void bufs_release(reader_bufs_t *b)
{
    if (!b)
        return;
    if (g_atomic_pointer_compare_and_exchange(&spare_bufs, NULL, b))
        return;
    g_free(b->raw);
    g_free(b->block);
    g_free(b->codec);
    if (b->zd)
        ZSTD_freeDStream(b->zd);
    g_free(b);
}

/* ---- raw input ---- */

static gboolean raw_fill(pmusim_trace_reader_t *r, GError **error)
{
    if (r->raw_eof || r->raw_pos < r->raw_len)
        return TRUE;
    r->raw_off += r->raw_len;
    r->raw_pos = r->raw_len = 0;
    size_t got = fread(r->rawbuf, 1, RAW_SIZE, r->fp);
    if (got == 0) {
        if (ferror(r->fp)) {
            g_set_error(error, PMUSIM_TRACE_ERROR, PMUSIM_TRACE_ERROR_IO, "%s: read failed: %s",
                        r->name, g_strerror(errno));
            return FALSE;
        }
        r->raw_eof = TRUE;
    }
    r->raw_len = got;
    return TRUE;
}

/* ---- errors ---- */

G_GNUC_PRINTF(4, 5)
static void bin_error(pmusim_trace_reader_t *r, GError **error, int code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *msg = g_strdup_vprintf(fmt, ap);
    va_end(ap);
    g_set_error(error, PMUSIM_TRACE_ERROR, code,
                "%s: byte %" PRIu64 " of the decompressed stream, record %" PRIu64 ": %s",
                r->name, r->doff + r->dpos, r->nrec, msg);
    g_free(msg);
    r->failed = TRUE;
}

G_GNUC_PRINTF(4, 5)
static void text_error(pmusim_trace_reader_t *r, GError **error, int code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *raw = g_strdup_vprintf(fmt, ap);
    va_end(ap);
    /* the words the message quotes are the input's bytes: those outside
     * printable ASCII as \xHH (as FORMAT.md §5 writes names), so that a
     * carriage return or an escape sequence cannot hide the file and line
     * on a terminal and the message stays UTF-8 */
    GString *msg = g_string_sized_new(strlen(raw));
    for (const unsigned char *p = (const unsigned char *)raw; *p; p++)
        if (*p >= 0x20 && *p < 0x7f)
            g_string_append_c(msg, (char)*p);
        else
            g_string_append_printf(msg, "\\x%02x", *p);
    g_free(raw);
    g_set_error(error, PMUSIM_TRACE_ERROR, code, "%s: line %" PRIu64 ", record %" PRIu64 ": %s",
                r->name, r->line_no, r->nrec, msg->str);
    g_string_free(msg, TRUE);
    r->failed = TRUE;
}

/* ---- binary: decompression ---- */

/* What ended a run of bin_inflate(): the output is full (more may follow),
 * the stream ended, or an error (zerr_*) was met. */
enum { ZQ_MORE, ZQ_EOF, ZQ_ERR };

G_GNUC_PRINTF(4, 5)
static int bin_inflate_error(pmusim_trace_reader_t *r, int code, gboolean prefix,
                             const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    g_free(r->zerr_msg);
    r->zerr_msg = g_strdup_vprintf(fmt, ap);
    va_end(ap);
    r->zerr_code = code;
    r->zerr_prefix = prefix;
    return ZQ_ERR;
}

/* Decompresses into out[*len..cap) until it is full, the input ends or an
 * error is met.  It touches only the raw input and the zstd state, which
 * belong to the decompression thread once that runs (bin_refill()). */
static int bin_inflate(pmusim_trace_reader_t *r, uint8_t *out, size_t cap, size_t *len)
{
    while (*len < cap) {
        GError *e = NULL;
        if (!raw_fill(r, &e)) {
            bin_inflate_error(r, e->code, FALSE, "%s", e->message);
            g_error_free(e);
            return ZQ_ERR;
        }
        ZSTD_inBuffer in = { r->raw + r->raw_pos, r->raw_len - r->raw_pos, 0 };
        if (r->raw_pos == r->raw_len) {
            if (!r->frame_open)
                return ZQ_EOF;
            /* all input is in, but zstd may still hold output that the last
             * call had no room for: only no progress means a cut frame */
            in = (ZSTD_inBuffer){ NULL, 0, 0 };
        }
        ZSTD_outBuffer o = { out + *len, cap - *len, 0 };
        size_t ret = ZSTD_decompressStream(r->zd, &o, &in);
        if (ZSTD_isError(ret)) {
            if (ZSTD_getErrorCode(ret) == ZSTD_error_frameParameter_windowTooLarge)
                /* a policy refusal, not damage: the data may be fine */
                return bin_inflate_error(
                    r, PMUSIM_TRACE_ERROR_LIMIT, TRUE,
                    "the zstd frame near file byte %" PRIu64 " needs a decompression "
                    "window above pmusim's limit of %u MiB (FORMAT.md §6); decompress it "
                    "with 'zstd -d --long=31' and compress it again without --long",
                    r->raw_off + r->raw_pos, (1u << TR_ZSTD_WINDOW_LOG_MAX) >> 20);
            return bin_inflate_error(r, PMUSIM_TRACE_ERROR_FORMAT, TRUE,
                                     "corrupt compressed data near file byte %" PRIu64 ": %s",
                                     r->raw_off + r->raw_pos, ZSTD_getErrorName(ret));
        }
        if (in.size == 0 && o.pos == 0)
            return bin_inflate_error(r, PMUSIM_TRACE_ERROR_TRUNCATED, TRUE,
                                     "the compressed stream ends inside a zstd frame (file "
                                     "truncated after %" PRIu64 " bytes)",
                                     r->raw_off + r->raw_len);
        if (in.pos == 0 && o.pos == 0)
            return bin_inflate_error(r, PMUSIM_TRACE_ERROR_FORMAT, TRUE,
                                     "compressed data makes no progress near file byte %" PRIu64,
                                     r->raw_off + r->raw_pos);
        r->raw_pos += in.pos;
        *len += o.pos;
        r->frame_open = ret != 0;
    }
    return ZQ_MORE;
}

/* ---- binary: the decompression thread ----
 * zstd fills a ring of ZQ_SLOTS blocks of ZQ_SLOT_SIZE bytes, each with calls
 * of ZSTD_decompressStream() until the block is full, the input ends or an
 * error is met (bin_inflate()).  On a machine with two or more processors a
 * second thread fills the blocks ahead of the decoder; without it the
 * decoder fills them itself when it needs them.  The blocks, and so every
 * zstd call, are the same either way, and the end of the stream or an error
 * travels with the last block: records, errors and messages do not depend
 * on the thread (not even the "near file byte" of a zstd error, which is
 * the input position of the failing call).  The thread starts on the second
 * refill (below), so a trace that fits in one window never starts one.
 * PMUSIM_DECODE_THREAD=0 keeps zstd on the caller's thread; =always starts
 * the thread on the first refill (the tests run both ways).  Pipes and
 * terminals are read without the thread (see bin_open()).
 *
 * The decoder reads the blocks where zstd wrote them: the bytes of a record
 * cut by the end of a block are copied in front of the next block (into
 * its ZQ_PREFIX bytes), nothing else is copied.  What it is shown follows
 * the decoder that copied the blocks into a buffer of DBUF_SIZE bytes (and
 * whose records, errors and messages the tests keep): that one refilled its
 * buffer when a record ran past its end, and the refill reported the end of
 * the stream or an error if they came before DBUF_SIZE bytes from the first
 * unread byte.  So the decoder is shown no byte past that window's end
 * (r->wend), and when it reaches it, bin_refill() moves the window and
 * reports what that refill reported, at the same record. */
#define ZQ_SLOTS 4u
#define ZQ_SLOT_SIZE (128u * 1024u)
/* room for the unread end of the block before: a record cut by the block's
 * end, at most a SYMBOL or MARKER with its name (34 + 4096 bytes) or a
 * header string */
#define ZQ_PREFIX (8u * 1024u)
G_STATIC_ASSERT(ZQ_PREFIX > TR_MAX_STRING + 64);
enum { ZQ_MODE_OFF, ZQ_MODE_LAZY, ZQ_MODE_ALWAYS };

typedef struct zq_slot {
    uint8_t *base; /* ZQ_PREFIX + ZQ_SLOT_SIZE bytes, allocated on first use */
    uint8_t *buf;  /* base + ZQ_PREFIX: the block */
    size_t len;
    int end;       /* ZQ_MORE, or what follows the slot's bytes: ZQ_EOF / ZQ_ERR */
} zq_slot_t;

typedef struct zqueue {
    GThread *thread;         /* NULL: the decoder fills the blocks itself */
    GMutex lock;
    GCond cond;              /* a slot was filled or emptied, or stop */
    zq_slot_t slot[ZQ_SLOTS];
    unsigned head, count;    /* the oldest full slot (the decoder's), full slots */
    gboolean stop;
    /* decoder side */
    uint64_t off;            /* stream offset of slot[head].buf[0] */
} zqueue_t;

/* Fills one block; TRUE if more may follow. */
static gboolean zq_fill(pmusim_trace_reader_t *r, zq_slot_t *sl)
{
    if (!sl->base && r->bufs->block) {
        sl->base = r->bufs->block; /* the first block filled takes the spare one */
        r->bufs->block = NULL;
    } else if (!sl->base) {
        sl->base = g_malloc(ZQ_PREFIX + ZQ_SLOT_SIZE);
    }
    sl->buf = sl->base + ZQ_PREFIX;
    sl->len = 0;
    sl->end = bin_inflate(r, sl->buf, ZQ_SLOT_SIZE, &sl->len);
    return sl->end == ZQ_MORE;
}

static gpointer zq_main(gpointer data)
{
    pmusim_trace_reader_t *r = data;
    zqueue_t *z = r->zq;
    for (;;) {
        g_mutex_lock(&z->lock);
        while (z->count == ZQ_SLOTS && !z->stop)
            g_cond_wait(&z->cond, &z->lock);
        gboolean stop = z->stop;
        unsigned i = (z->head + z->count) % ZQ_SLOTS;
        g_mutex_unlock(&z->lock);
        if (stop)
            return NULL;
        gboolean more = zq_fill(r, &z->slot[i]);
        g_mutex_lock(&z->lock);
        z->count++;
        g_cond_broadcast(&z->cond);
        g_mutex_unlock(&z->lock);
        if (!more)
            return NULL;
    }
}

static zqueue_t *zq_new(void)
{
    zqueue_t *z = g_new0(zqueue_t, 1);
    g_mutex_init(&z->lock);
    g_cond_init(&z->cond);
    return z;
}

static int zq_mode_of_env(void)
{
    const char *env = g_getenv("PMUSIM_DECODE_THREAD");
    if (env && !strcmp(env, "0"))
        return ZQ_MODE_OFF;
    if (env && !strcmp(env, "always"))
        return ZQ_MODE_ALWAYS;
    return g_get_num_processors() < 2 ? ZQ_MODE_OFF : ZQ_MODE_LAZY;
}

/* The decoder's wide instance: the same code compiled for AVX2 (and BMI1/2
 * for its shifts and masks), chosen at run time where the host has them,
 * copies records in 32-byte pieces (gcc's tuning for generic x86-64 copies
 * a struct 16 bytes at a time even where AVX2 is enabled): the 104-byte
 * record in three pieces and 8 bytes instead of six and 8 bytes, the
 * model's 64-byte input in two, and gathers the 7-bit groups of a varint
 * of 3 to 8 bytes with one PEXT.  `wide` is a constant of each instance
 * (bin_decode_loop()); PMUSIM_DECODE_WIDE=0 keeps to the generic
 * instance (the tests run both). */
#if (defined(__x86_64__) || defined(__i386__)) && defined(__GNUC__)
#define RD_HAVE_WIDE 1
#define RD_WIDE_TARGET __attribute__((target("avx2,bmi,bmi2")))
#else
#define RD_HAVE_WIDE 0
#define RD_WIDE_TARGET
#endif

static gboolean rd_wide_of_env(void)
{
#if RD_HAVE_WIDE
    const char *env = g_getenv("PMUSIM_DECODE_WIDE");
    if (env && !strcmp(env, "0"))
        return FALSE;
    __builtin_cpu_init();
    /* not on AMD's Zen 1 and 2: their PEXT (rd_varint8()) is microcoded,
     * tens of cycles or more */
    return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("bmi") &&
           __builtin_cpu_supports("bmi2") && !__builtin_cpu_is("znver1") &&
           !__builtin_cpu_is("znver2");
#else
    return FALSE;
#endif
}

/* The last full slot ends the stream (no slot follows it). */
static gboolean zq_ended(const zqueue_t *z)
{
    return z->count && z->slot[(z->head + z->count - 1) % ZQ_SLOTS].end != ZQ_MORE;
}

/* Starts the thread, unless the stream has ended already (the last block
 * was filled); on failure the decoder goes on filling the blocks itself. */
static void zq_start(pmusim_trace_reader_t *r)
{
    zqueue_t *z = r->zq;
    r->zq_mode = ZQ_MODE_OFF; /* one attempt */
    if (zq_ended(z))
        return;
    z->thread = g_thread_try_new("pmusim-zstd", zq_main, r, NULL);
}

/* Stops the thread and frees the ring; one block goes back to `b`. */
static void zq_free(zqueue_t *z, reader_bufs_t *b)
{
    if (!z)
        return;
    if (z->thread) {
        g_mutex_lock(&z->lock);
        z->stop = TRUE;
        g_cond_broadcast(&z->cond);
        g_mutex_unlock(&z->lock);
        g_thread_join(z->thread);
    }
    for (unsigned i = 0; i < ZQ_SLOTS; i++) {
        if (b && !b->block)
            b->block = z->slot[i].base;
        else
            g_free(z->slot[i].base);
    }
    g_mutex_clear(&z->lock);
    g_cond_clear(&z->cond);
    g_free(z);
}

/* Makes slot head + k (k < ZQ_SLOTS - 1) full, waiting for the thread or
 * filling the slots up to it; FALSE if the stream ends in a slot before. */
static gboolean zq_ready(pmusim_trace_reader_t *r, unsigned k)
{
    zqueue_t *z = r->zq;
    if (z->thread) {
        g_mutex_lock(&z->lock);
        while (z->count <= k && !zq_ended(z))
            g_cond_wait(&z->cond, &z->lock);
        gboolean ok = z->count > k;
        g_mutex_unlock(&z->lock);
        return ok;
    }
    while (z->count <= k && !zq_ended(z)) {
        zq_fill(r, &z->slot[(z->head + z->count) % ZQ_SLOTS]); /* not a full one */
        z->count++;
    }
    return z->count > k;
}

/* The decoder is done with slot[head]: the thread may fill it again. */
static void zq_release(zqueue_t *z)
{
    if (z->thread)
        g_mutex_lock(&z->lock);
    z->off += z->slot[z->head].len;
    z->head = (z->head + 1) % ZQ_SLOTS;
    z->count--;
    if (z->thread) {
        g_cond_broadcast(&z->cond);
        g_mutex_unlock(&z->lock);
    }
}

/* The window of a refill at stream offset x: sets r->wend to x + DBUF_SIZE
 * or to the end of the stream if that comes first (strictly: a stream that
 * ends exactly there ends at the next refill), and returns what ends the
 * stream then (ZQ_EOF, ZQ_ERR with zerr_* set) or ZQ_MORE.  x is in
 * slot[head] or the bytes copied in front of it, so the window ends at most
 * two slots further. */
static int zq_window(pmusim_trace_reader_t *r, uint64_t x)
{
    zqueue_t *z = r->zq;
    uint64_t off = z->off;
    for (unsigned k = 0;; k++) {
        zq_ready(r, k); /* TRUE: the loop ends at the slot that ends the stream */
        const zq_slot_t *sl = &z->slot[(z->head + k) % ZQ_SLOTS];
        off += sl->len;
        if (sl->end != ZQ_MORE && off - x < DBUF_SIZE) {
            r->wend = off;
            return sl->end;
        }
        if (sl->end != ZQ_MORE || off - x >= DBUF_SIZE) {
            r->wend = x + DBUF_SIZE;
            return ZQ_MORE;
        }
    }
}

/* Reports what ended the decompression (zerr_*); FALSE. */
static gboolean bin_zerr(pmusim_trace_reader_t *r, GError **error)
{
    if (r->zerr_prefix) {
        bin_error(r, error, r->zerr_code, "%s", r->zerr_msg);
    } else {
        g_set_error(error, PMUSIM_TRACE_ERROR, r->zerr_code, "%s", r->zerr_msg);
        r->failed = TRUE;
    }
    return FALSE;
}

/* Shows the decoder more of the stream after dbuf[dpos..dlen): the rest of
 * the window in slot[head], or the next slot with the unread bytes copied
 * in front of it; at the end of the window, a new window first (see the
 * comment on the blocks above).  Shows nothing more only at the end of the
 * stream. */
static gboolean bin_refill(pmusim_trace_reader_t *r, GError **error)
{
    zqueue_t *z = r->zq;
    uint64_t x = r->doff + r->dpos;     /* the first unread byte */
    uint64_t shown = r->doff + r->dlen; /* after the last byte shown */
    if (!r->zeof && shown == r->wend) {
        if (r->zq_mode != ZQ_MODE_OFF && (r->zq_mode == ZQ_MODE_ALWAYS || ++r->refills >= 2))
            zq_start(r);
        int end = zq_window(r, x);
        if (end == ZQ_EOF)
            r->zeof = TRUE;
        if (end == ZQ_ERR)
            return bin_zerr(r, error);
    }
    zq_slot_t *sl = &z->slot[z->head]; /* full: zq_window() filled it */
    if (!r->dbuf) {
        r->dbuf = sl->buf; /* the first block */
        r->doff = z->off;
    }
    uint64_t send = z->off + sl->len;
    if (shown == send && send < r->wend) {
        /* the next slot exists: the window goes past this one */
        size_t rem = r->dlen - r->dpos;
        zq_ready(r, 1);
        zq_slot_t *next = &z->slot[(z->head + 1) % ZQ_SLOTS];
        memcpy(next->buf - rem, r->dbuf + r->dpos, rem);
        zq_release(z);
        sl = next;
        send = z->off + sl->len;
        r->dbuf = sl->buf - rem;
        r->doff = x;
        r->dpos = 0;
    }
    r->dlen = (size_t)(MIN(send, r->wend) - r->doff);
    return TRUE;
}

/* After the END record: how many bytes follow it in a refill's window
 * (the copying decoder's count, see above); FALSE with error set if that
 * refill met an error. */
static gboolean bin_after_end(pmusim_trace_reader_t *r, size_t *follow, GError **error)
{
    uint64_t x = r->doff + r->dpos;
    if (!r->zeof) {
        if (r->zq_mode != ZQ_MODE_OFF && (r->zq_mode == ZQ_MODE_ALWAYS || ++r->refills >= 2))
            zq_start(r);
        int end = zq_window(r, x);
        if (end == ZQ_EOF)
            r->zeof = TRUE;
        if (end == ZQ_ERR)
            return bin_zerr(r, error);
    }
    *follow = (size_t)(r->wend - x);
    return TRUE;
}

/* Makes at least `n` bytes available at dpos; FALSE with error set if the
 * stream ends first.  `what` names the expected item. */
static gboolean bin_need(pmusim_trace_reader_t *r, size_t n, const char *what, GError **error)
{
    while (r->dlen - r->dpos < n) {
        size_t had = r->dlen - r->dpos;
        if (!bin_refill(r, error))
            return FALSE;
        if (r->dlen - r->dpos == had) {
            bin_error(r, error, PMUSIM_TRACE_ERROR_TRUNCATED, "stream ends where %s was expected",
                      what);
            return FALSE;
        }
    }
    return TRUE;
}

static gboolean bin_varint(pmusim_trace_reader_t *r, uint64_t *v, const char *what,
                           GError **error)
{
    uint64_t x = 0;
    for (unsigned shift = 0;; shift += 7) {
        if (!bin_need(r, 1, what, error))
            return FALSE;
        uint8_t b = r->dbuf[r->dpos];
        if (shift > 63 || (shift == 63 && b > 1)) {
            bin_error(r, error, PMUSIM_TRACE_ERROR_FORMAT, "varint too long in %s", what);
            return FALSE;
        }
        r->dpos++;
        x |= (uint64_t)(b & 0x7f) << shift;
        if (!(b & 0x80))
            break;
    }
    *v = x;
    return TRUE;
}

static char *bin_string(pmusim_trace_reader_t *r, const char *what, gboolean allow_empty,
                        GError **error)
{
    uint64_t len;
    if (!bin_varint(r, &len, what, error))
        return NULL;
    if (len > TR_MAX_STRING || (!allow_empty && len == 0)) {
        bin_error(r, error, PMUSIM_TRACE_ERROR_LIMIT,
                  "%s has length %" PRIu64 ", expected %s..4096", what, len,
                  allow_empty ? "0" : "1");
        return NULL;
    }
    if (!bin_need(r, (size_t)len, what, error))
        return NULL;
    if (memchr(r->dbuf + r->dpos, 0, (size_t)len)) {
        bin_error(r, error, PMUSIM_TRACE_ERROR_FORMAT, "%s contains a NUL byte", what);
        return NULL;
    }
    char *s = g_strndup((const char *)r->dbuf + r->dpos, (gsize)len);
    r->dpos += (size_t)len;
    return s;
}

static gboolean bin_open(pmusim_trace_reader_t *r, GError **error)
{
    r->zq_mode = zq_mode_of_env();
    r->wide = rd_wide_of_env();
    /* only regular files and memory: the thread may sit in a read of a pipe
     * or terminal that pmusim_trace_reader_free() would then wait for */
    struct stat st;
    if (r->fp && (fstat(fileno(r->fp), &st) != 0 || !S_ISREG(st.st_mode)))
        r->zq_mode = ZQ_MODE_OFF;
    r->zq = zq_new();
    reader_bufs_t *b = r->bufs ? r->bufs : (r->bufs = bufs_take());
    if (b->zd)
        ZSTD_DCtx_reset(b->zd, ZSTD_reset_session_and_parameters);
    else
        b->zd = ZSTD_createDStream();
    r->zd = b->zd;
    ZSTD_DCtx_setParameter(r->zd, ZSTD_d_windowLogMax, TR_ZSTD_WINDOW_LOG_MAX);
    if (!b->codec) {
        tr_codec_feed_t *cf = g_new(tr_codec_feed_t, 1);
        b->codec = &cf->codec;
    }
    r->codec = b->codec;
    /* as new: everything up to the cache zero, the cache as set below */
    memset(r->codec, 0, offsetof(tr_codec_t, cache));
    memset(&r->codec->cache[0], 0, sizeof r->codec->cache[0]);
    /* an impossible position, with the successor the decoder would compute
     * for a zero record there (x86: ip + len = the same), so that the first
     * use of an entry takes the full path */
    tr_cache_ent_t *ent = r->codec->cache;
    ent[0].pos = ent[0].next = UINT64_MAX;
    ent[0].next_ent = &ent[tr_cache_index(UINT64_MAX)];
    /* what the writer's all-zero entry means at that position: an x86
     * instruction at 2^64-1 with every static field 0 (IA-64 never gets
     * there: slot 15 is not a position) */
    ent[0].rec.kind = PMUSIM_REC_INSN;
    ent[0].rec.ip = UINT64_MAX;
    /* the other entries as copies of the first, doubling the copied run:
     * ten copies instead of a loop over 1,024 entries at every open (it
     * showed in the fuzz targets, which open a trace per input) */
    for (unsigned done = 1; done < TR_CACHE_SIZE; done *= 2)
        memcpy(&ent[done], &ent[0], sizeof ent[0] * MIN(done, TR_CACHE_SIZE - done));
    for (unsigned t = 0; t < PMUSIM_MAX_THREADS; t++)
        r->codec->next_ent[t] = &ent[tr_cache_index(0)]; /* next_pos[t] is 0 */
    if (!bin_need(r, TR_MAGIC_LEN, "the magic \"" TR_MAGIC "\"", error))
        return FALSE;
    if (memcmp(r->dbuf, TR_MAGIC, TR_MAGIC_LEN) != 0) {
        bin_error(r, error, PMUSIM_TRACE_ERROR_FORMAT,
                  "expected the magic \"" TR_MAGIC "\" at the start of the decompressed stream");
        return FALSE;
    }
    r->dpos = TR_MAGIC_LEN;
    uint64_t v, nthreads, flags, nmeta;
    if (!bin_varint(r, &v, "the version", error))
        return FALSE;
    if (v < PMUSIM_TRACE_VERSION_MIN || v > PMUSIM_TRACE_VERSION) {
        r->dpos = TR_MAGIC_LEN; /* the message names the field's first byte */
        bin_error(r, error, PMUSIM_TRACE_ERROR_VERSION,
                  "unsupported version %" PRIu64 ", expected %u..%u", v,
                  PMUSIM_TRACE_VERSION_MIN, PMUSIM_TRACE_VERSION);
        return FALSE;
    }
    if (!bin_need(r, 2, "ISA and CPU bytes", error))
        return FALSE;
    size_t fields = r->dpos; /* ISA, CPU, threads, flags: checked together */
    uint8_t isa = r->dbuf[r->dpos], cpu = r->dbuf[r->dpos + 1];
    r->dpos += 2;
    if (!bin_varint(r, &nthreads, "the thread count", error) ||
        !bin_varint(r, &flags, "the header flags", error) ||
        !bin_varint(r, &nmeta, "the metadata count", error))
        return FALSE;
    pmusim_trace_header_init(&r->hdr, PMUSIM_CPU_NONE, 1);
    r->hdr.version = (uint32_t)v;
    r->codec->version = (unsigned)v;
    r->hdr.isa = isa;
    r->hdr.cpu = cpu;
    r->hdr.nthreads = nthreads > PMUSIM_MAX_THREADS ? 0 : (uint32_t)nthreads;
    r->hdr.flags = (uint32_t)flags;
    const char *bad = tr_header_check(&r->hdr);
    if (!bad && flags > UINT32_MAX)
        bad = "header flags wider than 32 bits";
    if (bad) {
        r->dpos = fields;
        bin_error(r, error, PMUSIM_TRACE_ERROR_FORMAT, "bad header: %s", bad);
        return FALSE;
    }
    if (nmeta > TR_MAX_META) {
        bin_error(r, error, PMUSIM_TRACE_ERROR_LIMIT,
                  "%" PRIu64 " metadata entries, at most %u allowed", nmeta, TR_MAX_META);
        return FALSE;
    }
    for (uint64_t i = 0; i < nmeta; i++) {
        char *k = bin_string(r, "a metadata key", FALSE, error);
        if (!k)
            return FALSE;
        char *val = bin_string(r, "a metadata value", TRUE, error);
        if (!val) {
            g_free(k);
            return FALSE;
        }
        g_ptr_array_add(r->hdr.meta_keys, k);
        g_ptr_array_add(r->hdr.meta_values, val);
    }
    r->codec->ia64 = r->hdr.isa == PMUSIM_ISA_IA64;
    return TRUE;
}

/* ---- binary: the record decoder (hot path) ---- */

/* DR_SLACK: the unchecked loop stopped RD_SLACK bytes before the end of what
 * it is shown */
enum { DR_FULL, DR_NEED, DR_ERR, DR_END, DR_SLACK };

/* The longest record without a string is an INSN with every part: 10
 * varints, each read for at most 11 bytes (the 11th shows a varint longer
 * than 64 bits), and 12 single bytes, 122 bytes; a one-load varint reads up
 * to 7 bytes past its end; a MARKER or SYMBOL before its name is shorter.
 * While more than RD_SLACK bytes are left to it, a record cannot run past
 * its end, and the decoder reads without a check per byte (`chk` clear in
 * the macros below); a name checks its own length. */
#define RD_SLACK 160u

#define RD_BYTE(v)                       \
    do {                                 \
        if (chk && G_UNLIKELY(q >= end)) \
            goto need;                   \
        (v) = *q++;                      \
    } while (0)

/* Up to 8 bytes of a varint at once, where 8 bytes are there to load: the
 * terminator is the first byte with bit 7 clear, and the 7-bit groups are
 * packed together by three shift-and-mask steps; longer varints (57 bits
 * and more) and the last bytes of the buffer take the byte loop, which also
 * does the checks.  Stream addresses and latencies make most multi-byte
 * varints, and the byte loop cost about 50 instructions for each. */
G_ALWAYS_INLINE static inline uint64_t rd_varint8(uint64_t w, uint64_t stop, unsigned *len,
                                                 const gboolean wide)
{
#if RD_HAVE_WIDE
    if (wide) {
        /* BMI2: the bytes up to the stop byte, their low 7 bits gathered */
        *len = ((unsigned)__builtin_ctzll(stop) >> 3) + 1;
        uint64_t x = w & (stop ^ (stop - 1)), v;
        /* inline: the intrinsic cannot be inlined into this generic helper */
        __asm__("pext %2, %1, %0" : "=r"(v) : "r"(x), "r"(UINT64_C(0x7f7f7f7f7f7f7f7f)));
        return v;
    }
#endif
    /* stop: bit 7 of every byte whose bit 7 is clear (non-zero) */
    *len = ((unsigned)__builtin_ctzll(stop) >> 3) + 1;
    uint64_t x = w & (stop ^ (stop - 1)) & UINT64_C(0x7f7f7f7f7f7f7f7f);
    x = (x & UINT64_C(0x007f007f007f007f)) | ((x & UINT64_C(0x7f007f007f007f00)) >> 1);
    x = (x & UINT64_C(0x00003fff00003fff)) | ((x & UINT64_C(0x3fff00003fff0000)) >> 2);
    return (x & UINT64_C(0x000000000fffffff)) | ((x & UINT64_C(0x0fffffff00000000)) >> 4);
}

/* tr_unzigzag(), always inlined: the four instances of the decoder loop made
 * the compiler call it out of line */
G_ALWAYS_INLINE static inline int64_t rd_unzigzag(uint64_t v)
{
    return (int64_t)(v >> 1) ^ -(int64_t)(v & 1);
}

static inline uint64_t rd_load64(const uint8_t *q)
{
    uint64_t w;
    memcpy(&w, q, sizeof w);
    return GUINT64_FROM_LE(w);
}

#define RD_VARINT(v)                                               \
    do {                                                           \
        if (chk && G_UNLIKELY(q >= end))                           \
            goto need;                                             \
        uint64_t v_ = *q++;                                        \
        if (G_UNLIKELY(v_ & 0x80)) {                               \
            if (!chk || G_LIKELY(end - q >= 7)) {                  \
                if (*q < 0x80) { /* two bytes: latencies, masks */ \
                    (v) = (v_ & 0x7f) | (uint64_t)*q++ << 7;       \
                    break;                                         \
                }                                                  \
                uint64_t w_ = rd_load64(q - 1);                    \
                uint64_t s_ = ~w_ & UINT64_C(0x8080808080808080);  \
                if (G_LIKELY(s_ != 0)) {                           \
                    unsigned l_;                                   \
                    (v) = rd_varint8(w_, s_, &l_, wide);           \
                    q += l_ - 1;                                   \
                    break;                                         \
                }                                                  \
            }                                                      \
            v_ &= 0x7f;                                            \
            for (unsigned s_ = 7;; s_ += 7) {                      \
                if (chk && G_UNLIKELY(q >= end))                   \
                    goto need;                                     \
                uint64_t b_ = *q++;                                \
                if (G_UNLIKELY(s_ > 63 || (s_ == 63 && b_ > 1)))   \
                    BAD("varint longer than 64 bits");             \
                v_ |= (b_ & 0x7f) << s_;                           \
                if (!(b_ & 0x80))                                  \
                    break;                                         \
            }                                                      \
        }                                                          \
        (v) = v_;                                                  \
    } while (0)

/* RD_VARINT() for a field that is often 3 bytes or more (a memory
 * address's delta): in the wide unchecked loop the 8 bytes at q at once,
 * whatever the length, without testing the first bytes one by one */
#define RD_VARINT_LONG(v)                                              \
    do {                                                               \
        if (RD_HAVE_WIDE && wide && !chk) {                            \
            uint64_t w_ = rd_load64(q);                                \
            uint64_t s_ = ~w_ & UINT64_C(0x8080808080808080);          \
            if (G_LIKELY(s_ != 0)) {                                   \
                unsigned l_;                                           \
                (v) = rd_varint8(w_, s_, &l_, wide);                   \
                q += l_;                                               \
                break;                                                 \
            }                                                          \
        }                                                              \
        RD_VARINT(v);                                                  \
    } while (0)

/* 32 bytes at any alignment; only the wide instance uses it (inlined into
 * an AVX2 function, one load or store each) */
typedef uint8_t rd_v32 __attribute__((vector_size(32), aligned(1), may_alias));
G_STATIC_ASSERT(sizeof(pmusim_rec_t) == 104);
G_STATIC_ASSERT(sizeof(pmusim_uarch_insn_t) == 64);

/* *d = *s */
G_ALWAYS_INLINE static inline void rd_rec_copy(pmusim_rec_t *d, const pmusim_rec_t *s,
                                               const gboolean wide)
{
    if (!wide) {
        *d = *s;
        return;
    }
    const char *sp = (const char *)s;
    char *dp = (char *)d;
    rd_v32 a = *(const rd_v32 *)sp, b = *(const rd_v32 *)(sp + 32),
           c = *(const rd_v32 *)(sp + 64);
    uint64_t x;
    memcpy(&x, sp + 96, sizeof x);
    *(rd_v32 *)dp = a;
    *(rd_v32 *)(dp + 32) = b;
    *(rd_v32 *)(dp + 64) = c;
    memcpy(dp + 96, &x, sizeof x);
}

/* a record of zeros (`zero`: a static one, for the generic instance) */
G_ALWAYS_INLINE static inline void rd_rec_zero(pmusim_rec_t *d, const pmusim_rec_t *zero,
                                               const gboolean wide)
{
    if (!wide) {
        *d = *zero;
        return;
    }
    char *dp = (char *)d;
    const rd_v32 z = { 0 };
    const uint64_t x = 0;
    *(rd_v32 *)dp = z;
    *(rd_v32 *)(dp + 32) = z;
    *(rd_v32 *)(dp + 64) = z;
    memcpy(dp + 96, &x, sizeof x);
}

/* *d = *s for the model's input */
G_ALWAYS_INLINE static inline void rd_insn_copy(pmusim_uarch_insn_t *d,
                                                const pmusim_uarch_insn_t *s, const gboolean wide)
{
    if (!wide) {
        *d = *s;
        return;
    }
    const char *sp = (const char *)s;
    char *dp = (char *)d;
    rd_v32 a = *(const rd_v32 *)sp, b = *(const rd_v32 *)(sp + 32);
    *(rd_v32 *)dp = a;
    *(rd_v32 *)(dp + 32) = b;
}

/* Non-zero when any field of a record's memory part other than the
 * address is, of its branch part, of its offcore part: 8-byte loads with
 * the padding masked off instead of a load per field */
G_STATIC_ASSERT(offsetof(pmusim_mem_t, latency) == 8 && offsetof(pmusim_mem_t, size) == 12 &&
                offsetof(pmusim_mem_t, is_store) == 13 && offsetof(pmusim_mem_t, level) == 14 &&
                offsetof(pmusim_mem_t, tlb) == 15 && offsetof(pmusim_mem_t, alat) == 16 &&
                offsetof(pmusim_mem_t, dep) == 17);
G_STATIC_ASSERT(offsetof(pmusim_branch_t, kind) == 8 && offsetof(pmusim_branch_t, taken) == 9 &&
                offsetof(pmusim_branch_t, dir_ok) == 10 &&
                offsetof(pmusim_branch_t, tgt_ok) == 11 &&
                offsetof(pmusim_branch_t, detect) == 12 && offsetof(pmusim_branch_t, dep) == 13 &&
                sizeof(pmusim_branch_t) == 16);
G_STATIC_ASSERT(offsetof(pmusim_offcore_t, req) == 4 && offsetof(pmusim_offcore_t, supplier) == 5 &&
                offsetof(pmusim_offcore_t, snoop) == 6 && sizeof(pmusim_offcore_t) == 8);
G_ALWAYS_INLINE static inline uint64_t rd_mem_rest(const pmusim_rec_t *o)
{
    return rd_load64((const uint8_t *)&o->mem.latency) | o->mem.alat | o->mem.dep;
}
G_ALWAYS_INLINE static inline uint64_t rd_br_any(const pmusim_rec_t *o)
{
    return o->br.target | (rd_load64((const uint8_t *)&o->br.kind) & UINT64_C(0xffffffffffff));
}
G_ALWAYS_INLINE static inline uint64_t rd_oc_any(const pmusim_rec_t *o)
{
    return rd_load64((const uint8_t *)&o->oc.latency) & UINT64_C(0x00ffffffffffffff);
}

/* An INSN's memory outcome byte (FORMAT.md: level in bits 0-2, tlb in 3-4,
 * alat in 5-7): valid when the level is below PMUSIM_LVL_COUNT (IA-64:
 * below PMUSIM_LVL_LFB, an x86 level) and the alat outcome below
 * PMUSIM_ALAT_COUNT, i.e. the byte is below 0x60 and bit b of 0x7f7f...
 * (IA-64 0x3f3f...) is set (one bit test instead of two fields) */
G_STATIC_ASSERT(PMUSIM_LVL_COUNT == 7 && PMUSIM_LVL_LFB == 6 && PMUSIM_ALAT_COUNT == 3);
G_ALWAYS_INLINE static inline gboolean rd_memdyn_ok(unsigned b, const gboolean ia64)
{
    const uint64_t ok = ia64 ? UINT64_C(0x3f3f3f3f3f3f3f3f) : UINT64_C(0x7f7f7f7f7f7f7f7f);
    return b < (PMUSIM_ALAT_COUNT << 5) && ((ok >> (b & 63)) & 1);
}
/* its level and tlb placed as in the 8-byte word at mem.latency */
G_STATIC_ASSERT(offsetof(pmusim_mem_t, level) == 14 && offsetof(pmusim_mem_t, tlb) == 15);
G_ALWAYS_INLINE static inline uint64_t rd_memdyn_lt(unsigned b, const gboolean wide)
{
#if RD_HAVE_WIDE
    if (wide) {
        uint64_t x;
        __asm__("pdep %2, %1, %0" : "=r"(x) : "r"((uint64_t)b), "r"(UINT64_C(0x0307000000000000)));
        return x;
    }
#endif
    return (uint64_t)(b & 7) << 48 | (uint64_t)((b >> 3) & 3) << 56;
}

/* IDLE and EVENT: the plm byte of version 2, or version 1's default */
#define RD_PLM(v)                                   \
    do {                                            \
        if (c->version >= 2) {                      \
            RD_BYTE(v);                             \
            if ((v) > 3)                            \
                BAD("privilege level above 3");     \
        } else {                                    \
            (v) = feed ? feed_thread_plm(c, fd->insns, fi, t)      \
                       : bin_thread_plm(c, recs, (size_t)(w - recs), t); \
        }                                           \
    } while (0)

#define BAD(msg)          \
    do {                  \
        errmsg = (msg);   \
        goto bad;         \
    } while (0)

/* Version 1 streams carry no plm in IDLE and EVENT: the thread's current
 * level, i.e. its last INSN's, in this batch or before it. */
static unsigned bin_thread_plm(const tr_codec_t *c, const pmusim_rec_t *recs, size_t n,
                               unsigned t)
{
    while (n-- > 0)
        if (recs[n].kind == PMUSIM_REC_INSN && recs[n].thread == t)
            return recs[n].plm;
    return c->cur_plm[t];
}

/* bin_thread_plm() for the decoder that feeds (reader_feed.h): its
 * instructions since the start of the batch, insns[0] possibly the last one
 * of the batch before (its level is already the thread's there) */
static unsigned feed_thread_plm(const tr_codec_t *c, const pmusim_uarch_insn_t *insns,
                                const pmusim_uarch_insn_t *end, unsigned t)
{
    while (end-- > insns)
        if (end->thread == t)
            return end->plm;
    return c->cur_plm[t];
}

/* After a batch: what the next batch needs from this one (the previous
 * record for MEM, each thread's level for version 1 IDLE/EVENT). */
static void bin_batch_done(tr_codec_t *c, const pmusim_rec_t *recs, size_t n, unsigned nthreads)
{
    if (n == 0)
        return;
    c->prev = recs[n - 1];
    c->have_prev = TRUE;
    if (c->version >= 2)
        return;
    unsigned seen = 0, all = (1u << nthreads) - 1;
    while (n-- > 0 && seen != all) {
        const pmusim_rec_t *x = &recs[n];
        if (x->kind == PMUSIM_REC_INSN && !(seen & (1u << x->thread))) {
            seen |= 1u << x->thread;
            c->cur_plm[x->thread] = x->plm;
        }
    }
}

/* Decodes records from dbuf into recs[*np..max).  Codec state is kept in
 * locals and written back on exit so that stores into recs cannot force
 * reloads.  A record is committed only once it was read completely, so a
 * DR_NEED return can be retried after a refill.  Four instances: `ia64`
 * and `chk` are constants (bin_decode()), so the x86 loop has no slot or
 * bundle logic, and the unchecked one (`chk` clear) reads the bytes of a
 * record without a bounds check each, stopping with DR_SLACK where fewer
 * than RD_SLACK bytes are left. */
G_ALWAYS_INLINE static inline int bin_decode_loop(pmusim_trace_reader_t *r, pmusim_rec_t *recs,
                                                  pmusim_trace_feed_t *fd, size_t *np, size_t max,
                                                  const gboolean ia64, const gboolean chk,
                                                  const gboolean feed, const gboolean wide)
{
    tr_codec_t *c = r->codec;
    const uint8_t *p = r->dbuf + r->dpos;
    const uint8_t *const end = r->dbuf + r->dlen;
    /* the unchecked loop stops here (only read when !chk) */
    const uint8_t *const lim = chk ? end : end - RD_SLACK;
    /* the unchecked loop tests only this: before it, neither lim nor wend
     * can be reached, because every record is at least one byte */
    const uint8_t *plim = p;
    const unsigned nthreads = r->hdr.nthreads;
    uint64_t cycle = c->cycle;
    unsigned t = c->thread;
    uint64_t npos = c->next_pos[t];
    tr_cache_ent_t *ne = c->next_ent[t]; /* &c->cache[tr_cache_index(npos)] */
    pmusim_rec_t *w = feed ? NULL : recs + *np; /* the next record to write */
    pmusim_rec_t *const wend = feed ? NULL : recs + max;
    /* `feed` (reader_feed.h): no records; k counts them, fi and fa are where
     * the next instruction and access go, fi[-1] takes MEM records while fi
     * is not fclosed (fi after the last pass-through record).  Records other
     * than INSN are written whole: fprev is the last of them, and it is the
     * last record while k is kprev; once k has moved on, the last record is
     * the INSN of fi[-1].  So an instruction stores nothing for this
     * bookkeeping. */
    size_t k = *np;
    pmusim_uarch_insn_t *fi = feed ? fd->insns + fd->ninsns : NULL;
    pmusim_uarch_access_t *fa = feed ? fd->acc + fd->nacc : NULL;
    const pmusim_uarch_insn_t *fclosed = feed ? fd->closed : NULL;
    const pmusim_rec_t *fprev = feed ? fd->prev : NULL;
    size_t kprev = feed ? fd->kprev : 0;
    const char *errmsg = NULL;
    int status = DR_FULL;

/* records written so far in the batch, room left, full */
#define W_DONE (feed ? k : (size_t)(w - recs))
#define W_LEFT (feed ? max - k : (size_t)(wend - w))
#define W_FULL (feed ? k >= max : w >= wend)
/* feed: an INSN record committed in cache entry e_ becomes an instruction */
#define FEED_ENT(e_) TR_FEED_ENT(e_)
#define FEED_INSN(e_, fe_)                            \
    do {                                              \
        rd_insn_copy(fi, &(fe_)->in, wide);           \
        fi->thread = (uint8_t)t;                      \
        fi->access = fa;                              \
        *fa = (fe_)->acc;                             \
        fa->addr = (e_)->rec.mem.addr;                \
        fa = (pmusim_uarch_access_t *)((char *)fa + (fe_)->acc_bytes); \
        fi++;                                         \
        k++;                                          \
    } while (0)
/* feed: any other record, committed in *o_ */
#define FEED_REC(o_)     \
    do {                 \
        fprev = (o_);    \
        kprev = ++k;     \
    } while (0)

    /* the record being read, and its header byte */
    const uint8_t *q;
    unsigned h;
    for (;;) {
        q = p;
        if (chk) {
            if (W_FULL)
                break;
        } else if (G_UNLIKELY(q >= plim)) {
            if (W_FULL)
                break;
            if (q >= lim) {
                status = DR_SLACK;
                goto out;
            }
            plim = (size_t)(lim - q) < W_LEFT ? lim : q + W_LEFT;
        }
        RD_BYTE(h);
        if (G_LIKELY(h < 3)) {
            /* the common case of a loop: the record equals its cache entry
             * except for the cycle and a stride-predicted address */
            tr_cache_ent_t *e = ne;
            if (G_LIKELY(e->pos == npos)) {
                /* The repeat loop: records that equal their entry, one
                 * after the other, and the thread switches between them,
                 * without going back to the loop's top (a loop of its own
                 * lets the compiler keep its few variables in registers).
                 * A header byte it does not take or an entry that does not
                 * match go on to the general path; the end of the bytes
                 * it may read (plim) to the loop's top; the checked loop
                 * takes one record at a time. */
                for (;;) {
                    if (feed) {
                        e->rec.mem.addr += (uint64_t)e->fast_stride;
                        cycle += h;
                        FEED_INSN(e, FEED_ENT(e));
                    } else {
                        pmusim_rec_t *o = w;
                        /* copy first, then patch: updating the entry's
                         * address before the copy would make the 16-byte
                         * loads of the copy wait for an 8-byte store they
                         * cannot forward from */
                        uint64_t addr = e->rec.mem.addr + (uint64_t)e->fast_stride;
                        rd_rec_copy(o, &e->rec, wide);
                        e->rec.mem.addr = addr;
                        o->mem.addr = addr;
                        cycle += h;
                        o->cycle = cycle;
                        o->thread = (uint8_t)t;
                        w++;
                    }
                    npos = e->next;
                    ne = e->next_ent;
                    p = q;
                    /* q < plim: a header byte to read, and room for its
                     * record (a thread switch writes none) */
                    if (chk || G_UNLIKELY(q >= plim))
                        break;
                    h = *q++;
                    if (G_UNLIKELY(h >= 3)) {
                        /* a thread switch (a number too high: the general path's error) */
                        if (h - TR_OP_THREAD_SEL >= nthreads)
                            goto general;
                        c->next_pos[t] = npos;
                        c->next_ent[t] = ne;
                        t = h - TR_OP_THREAD_SEL;
                        npos = c->next_pos[t];
                        ne = c->next_ent[t];
                        p = q;
                        if (G_UNLIKELY(q >= plim))
                            break;
                        h = *q++;
                        if (h >= 3)
                            goto general;
                    }
                    e = ne;
                    if (G_UNLIKELY(e->pos != npos))
                        goto general;
                }
                continue;
            }
        }
    general:
        if (G_LIKELY(h < 0x80)) {
            uint64_t cyc = cycle + (h & TR_H_CYC_MASK);
            if (G_UNLIKELY((h & TR_H_CYC_MASK) == 3)) {
                uint64_t d;
                RD_VARINT(d);
                cyc = cycle + d;
                if (cyc < cycle)
                    BAD("cycle delta overflows 64 bits");
            }
            uint64_t pos = npos;
            tr_cache_ent_t *e = ne;
            if (h & TR_H_POS) {
                uint64_t v;
                RD_VARINT(v);
                pos += (uint64_t)rd_unzigzag(v);
                e = &c->cache[tr_cache_index(pos)];
            }
            /* feed: decoded in place, in the entry (SETF then stores twice
             * to one place) */
            pmusim_rec_t *o = feed ? &e->rec : w;
            if (!feed)
                rd_rec_copy(o, &e->rec, wide);
            gboolean flags_changed = FALSE;
            /* feed: the entry's template is to be made again at the commit
             * (the dynamic parts it holds, taken and alat, are patched where
             * they are decoded, like the entry) */
            unsigned fdirty = 0; /* FEED_DIRTY_* */
            /* Each decoded field goes to the record and to its cache entry
             * (SETF), so the entry never has to be copied back from the
             * record: a bulk copy right after byte-sized stores would stall
             * on store forwarding.  A record that turns out incomplete
             * (goto need) leaves a partly updated entry; that is harmless
             * because the retry decodes the same bytes against the same
             * static values, and an error ends the reader. */
#define SETF(field, value) (o->field = e->rec.field = (value))
            if (G_UNLIKELY(h & TR_H_FIELDS)) {
                uint64_t m, v;
                unsigned b;
                RD_VARINT(m);
                if (m & ~(uint64_t)TR_M_ALL)
                    BAD("unknown bits in the field mask");
                fdirty = (m & FEED_TMPL_MASK) ? FEED_DIRTY_TMPL : FEED_DIRTY_INPUT;
                if (m & TR_M_FLAGS) {
                    RD_VARINT(v);
                    if (v > 0xffff)
                        BAD("instruction flags wider than 16 bits");
                    if (PMUSIM_REC_OPKIND(v) >= PMUSIM_OPK_COUNT)
                        BAD("unknown operation kind (flag bits 10-13 above 10)");
                    SETF(flags, (uint16_t)v);
                    flags_changed = TRUE;
                }
                /* the parts a stream changes least, skipped at once (the
                 * common masks are the flags and the offcore part) */
                if (m & (TR_M_PLM | TR_M_UNIT | TR_M_INSN | TR_M_LEN | TR_M_UOPS |
                         TR_M_MEMSTATIC | TR_M_BRKIND | TR_M_BRTARGET)) {
                    if (m & TR_M_PLM) {
                        RD_BYTE(b);
                        if (b > 3)
                            BAD("privilege level above 3");
                        SETF(plm, (uint8_t)b);
                    }
                    if (m & TR_M_UNIT) {
                        RD_BYTE(b);
                        if (b > PMUSIM_UNIT_LX)
                            BAD("unknown IA-64 unit type");
                        SETF(unit, (uint8_t)b);
                    }
                    if (m & TR_M_INSN) {
                        RD_VARINT(v);
                        if (v >> 41)
                            BAD("IA-64 encoding wider than 41 bits");
                        SETF(insn, v);
                    }
                    if (m & TR_M_LEN) {
                        RD_BYTE(b);
                        SETF(len, (uint8_t)b);
                    }
                    if (m & TR_M_UOPS) {
                        RD_VARINT(v);
                        if (v > UINT32_MAX)
                            BAD("uops wider than 32 bits");
                        SETF(uops, (uint32_t)v);
                    }
                    if (m & TR_M_MEMSTATIC) {
                        unsigned size;
                        RD_BYTE(size);
                        RD_BYTE(b);
                        if (b > 1)
                            BAD("memory store flag not 0 or 1");
                        if (!(o->flags & PMUSIM_F_MEM) && (size | b))
                            BAD("memory fields on an instruction without the memory flag");
                        SETF(mem.size, (uint8_t)size);
                        SETF(mem.is_store, (uint8_t)b);
                    }
                    if (m & TR_M_BRKIND) {
                        RD_BYTE(b);
                        if (b >= PMUSIM_BR_COUNT)
                            BAD("unknown branch kind");
                        if (!(o->flags & PMUSIM_F_BRANCH) && b)
                            BAD("branch fields on an instruction without the branch flag");
                        SETF(br.kind, (uint8_t)b);
                    }
                    if (m & TR_M_BRTARGET) {
                        RD_VARINT(v);
                        SETF(br.target, (pos & (ia64 ? ~UINT64_C(15) : ~UINT64_C(0))) +
                                            (uint64_t)rd_unzigzag(v));
                        if (!(o->flags & PMUSIM_F_BRANCH) && o->br.target)
                            BAD("branch fields on an instruction without the branch flag");
                    }
                }
                if (m & TR_M_OCLAT) {
                    RD_VARINT(v);
                    if (v > UINT32_MAX)
                        BAD("offcore latency wider than 32 bits");
                    if (!(o->flags & PMUSIM_F_OFFCORE) && v)
                        BAD("offcore fields on an instruction without the offcore flag");
                    SETF(oc.latency, (uint32_t)v);
                }
                if (m & TR_M_OCBITS) {
                    unsigned req, sup;
                    RD_BYTE(req);
                    RD_BYTE(sup);
                    RD_BYTE(b);
                    if (!(o->flags & PMUSIM_F_OFFCORE) && (req | sup | b))
                        BAD("offcore fields on an instruction without the offcore flag");
                    SETF(oc.req, (uint8_t)req);
                    SETF(oc.supplier, (uint8_t)sup);
                    SETF(oc.snoop, (uint8_t)b);
                }
                if (G_UNLIKELY(m & TR_M_MEMDEP)) {
                    RD_BYTE(b);
                    if (b > PMUSIM_MEM_MAX_DEP)
                        BAD("memory dep above 63");
                    if (b && ia64)
                        BAD("memory dep (a load's address dependence) on IA-64: x86 only");
                    if (!(o->flags & PMUSIM_F_MEM) && b)
                        BAD("memory fields on an instruction without the memory flag");
                    SETF(mem.dep, (uint8_t)b);
                }
                if (G_UNLIKELY(o->mem.dep && o->mem.is_store))
                    BAD("memory dep (a load's address dependence) on a store");
                if (G_UNLIKELY(m & TR_M_BRDEP)) {
                    RD_BYTE(b);
                    if (!(o->flags & PMUSIM_F_BRANCH) && b)
                        BAD("branch fields on an instruction without the branch flag");
                    SETF(br.dep, (uint8_t)b);
                }
                if (G_UNLIKELY(o->br.dep)) {
                    const char *bad = tr_br_dep_check(ia64, o->br.kind, o->br.dep);
                    if (bad)
                        BAD(bad);
                }
                if (G_UNLIKELY(m & TR_M_RDEP)) {
                    RD_BYTE(b);
                    SETF(mem.rdep, (uint8_t)b);
                }
                if (G_UNLIKELY(o->mem.rdep)) {
                    const char *bad = tr_rdep_check(ia64, o->flags, o->mem.is_store, o->mem.rdep);
                    if (bad)
                        BAD(bad);
                }
            }
            if (G_UNLIKELY(h & TR_H_MEMDYN)) {
                unsigned b;
                uint64_t v;
                RD_BYTE(b);
                if (G_UNLIKELY(!rd_memdyn_ok(b, ia64)))
                    BAD("unknown memory level or ALAT outcome");
                RD_VARINT(v);
                if (v > UINT32_MAX)
                    BAD("memory latency wider than 32 bits");
                if (!(o->flags & PMUSIM_F_MEM) && (b | v))
                    BAD("memory fields on an instruction without the memory flag");
                if (feed) /* the template follows the entry */
                    FEED_ENT(e)->acc.alat = (uint8_t)(b >> 5);
                /* latency, level and tlb in one 8-byte word with the
                 * entry's size and is_store */
                uint64_t mw = (rd_load64((const uint8_t *)&e->rec.mem.latency) &
                               UINT64_C(0x0000ffff00000000)) |
                              v | rd_memdyn_lt(b, wide);
                memcpy(&e->rec.mem.latency, &mw, sizeof mw);
                if (!feed)
                    memcpy(&o->mem.latency, &mw, sizeof mw);
                SETF(mem.alat, (uint8_t)(b >> 5));
            }
            uint64_t addr = e->rec.mem.addr + (uint64_t)e->stride;
            if (h & TR_H_MEMADDR) {
                uint64_t v;
                RD_VARINT_LONG(v);
                addr += (uint64_t)rd_unzigzag(v);
            }
            if (G_UNLIKELY(h & TR_H_BRDYN)) {
                unsigned b;
                RD_BYTE(b);
                if (b >= (PMUSIM_BRD_COUNT << 3))
                    BAD("bad branch outcome byte");
                if (!(o->flags & PMUSIM_F_BRANCH) && b)
                    BAD("branch fields on an instruction without the branch flag");
                if (feed) /* the template follows the entry (uarch_input_insn()) */
                    FEED_ENT(e)->in.taken = !(o->flags & PMUSIM_F_BRANCH)     ? 0
                                            : o->br.kind == PMUSIM_BR_COND ? (uint8_t)(b & 1)
                                                                           : 1;
                SETF(br.taken, b & 1);
                SETF(br.dir_ok, (b >> 1) & 1);
                SETF(br.tgt_ok, (b >> 2) & 1);
                SETF(br.detect, (uint8_t)(b >> 3));
            }
            uint64_t ip = pos;
            unsigned slot = 0;
            if (ia64) {
                if (G_UNLIKELY((pos & 15) > 2))
                    BAD("IA-64 slot above 2");
                ip = pos & ~UINT64_C(15);
                slot = (unsigned)(pos & 15);
            }
            /* one canonical form (FORMAT.md §3): parts whose flag is clear are 0.
             * Every committed entry is canonical, so the decoded parts are
             * checked where they are decoded (below and in the blocks above),
             * and the whole record only when its flags changed. */
            if (G_UNLIKELY(!(o->flags & PMUSIM_F_MEM) && addr))
                BAD("memory address on an instruction without the memory flag");
            if (G_UNLIKELY(flags_changed)) {
                unsigned f = o->flags;
                if (!(f & PMUSIM_F_MEM) && rd_mem_rest(o))
                    BAD("memory fields on an instruction without the memory flag");
                if (!(f & PMUSIM_F_BRANCH) && rd_br_any(o))
                    BAD("branch fields on an instruction without the branch flag");
                if (!(f & PMUSIM_F_OFFCORE) && rd_oc_any(o))
                    BAD("offcore fields on an instruction without the offcore flag");
            }
            /* commit */
            if (!feed) {
                o->cycle = cyc;
                o->thread = (uint8_t)t;
            }
            e->stride = (int64_t)(addr - e->rec.mem.addr);
            e->fast_stride = (o->flags & PMUSIM_F_MEM) ? e->stride : 0;
            SETF(mem.addr, addr);
            /* an entry at its position holds the record's kind, ip and
             * slot; its successor's cache index is computed again only
             * when the successor moved */
            if (G_UNLIKELY(h & (TR_H_FIELDS | TR_H_BRDYN)) || e->pos != pos) {
                if (e->pos != pos) {
                    if (feed)
                        fdirty = FEED_DIRTY_TMPL;
                    SETF(kind, PMUSIM_REC_INSN);
                    SETF(ip, ip);
                    SETF(slot, (uint8_t)slot);
                    e->pos = pos;
                }
                uint64_t nx = tr_next_pos(ia64, o);
                if (nx != e->next) {
                    e->next = nx;
                    e->next_ent = &c->cache[tr_cache_index(nx)];
                }
            }
#undef SETF
            npos = e->next;
            ne = e->next_ent;
            cycle = cyc;
            if (feed) {
                tr_feed_ent_t *fe = FEED_ENT(e);
                if (fdirty)
                    feed_ent_make(fe, &e->rec, fd, fdirty);
                FEED_INSN(e, fe);
            } else {
                w++;
            }
            p = q;
            continue;
        }
        if (h < TR_OP_THREAD_SEL + 8) {
            if (h - TR_OP_THREAD_SEL >= nthreads)
                BAD("thread number not below the header's thread count");
            c->next_pos[t] = npos;
            c->next_ent[t] = ne;
            t = h - TR_OP_THREAD_SEL;
            npos = c->next_pos[t];
            ne = c->next_ent[t];
            p = q;
            continue;
        }
        static const pmusim_rec_t zero;
        uint64_t d, v;
        switch (h) {
        case TR_OP_IDLE: {
            RD_VARINT(d);
            RD_VARINT(v);
            uint64_t cyc = cycle + d;
            if (cyc < cycle || cyc + v < cyc)
                BAD("IDLE cycles overflow 64 bits");
            if (v == 0)
                BAD("IDLE with 0 cycles");
            unsigned plm;
            RD_PLM(plm);
            pmusim_rec_t *o = feed ? &fd->scratch : w;
            rd_rec_zero(o, &zero, wide);
            o->plm = (uint8_t)plm;
            o->kind = PMUSIM_REC_IDLE;
            o->cycle = cycle = cyc;
            o->thread = (uint8_t)t;
            o->n = v;
            if (feed)
                FEED_REC(o);
            else
                w++;
            break;
        }
        case TR_OP_THREADSTATE: {
            unsigned b;
            RD_VARINT(d);
            RD_BYTE(b);
            if (cycle + d < cycle)
                BAD("cycle delta overflows 64 bits");
            if (b > 1)
                BAD("THREAD state not 0 or 1");
            pmusim_rec_t *o = !feed ? w : fd->pass_threads ? &fd->pass[fd->npass].rec : &fd->scratch;
            rd_rec_zero(o, &zero, wide);
            o->kind = PMUSIM_REC_THREAD;
            o->cycle = cycle = cycle + d;
            o->thread = (uint8_t)t;
            o->n = b;
            if (feed) {
                if (fd->pass_threads) {
                    fd->pass[fd->npass++].at = (size_t)(fi - fd->insns);
                    fclosed = fi;
                }
                FEED_REC(o);
            } else {
                w++;
            }
            break;
        }
        case TR_OP_EVENT: {
            uint64_t code, umask;
            RD_VARINT(d);
            RD_VARINT(code);
            RD_VARINT(umask);
            RD_VARINT(v);
            if (cycle + d < cycle)
                BAD("cycle delta overflows 64 bits");
            if (code > 0xffff || umask > 0xffff)
                BAD("event code or umask wider than 16 bits");
            unsigned plm;
            RD_PLM(plm);
            pmusim_rec_t *o = !feed ? w : fd->pass_events ? &fd->pass[fd->npass].rec : &fd->scratch;
            rd_rec_zero(o, &zero, wide);
            o->plm = (uint8_t)plm;
            o->kind = PMUSIM_REC_EVENT;
            o->cycle = cycle = cycle + d;
            o->thread = (uint8_t)t;
            o->ev_code = (uint16_t)code;
            o->ev_umask = (uint16_t)umask;
            o->n = v;
            if (feed) {
                if (fd->pass_events) {
                    fd->pass[fd->npass++].at = (size_t)(fi - fd->insns);
                    fclosed = fi;
                }
                FEED_REC(o);
            } else {
                w++;
            }
            break;
        }
        case TR_OP_MEM:
        case TR_OP_MEMDEP: {
            unsigned b, size, dep = 0;
            uint64_t lat, da;
            if (c->version < 2)
                BAD(h == TR_OP_MEM ? "MEM record (0x96) in a version 1 stream"
                                   : "MEM record (0x97) in a version 1 stream");
            RD_BYTE(b);
            RD_BYTE(size);
            if (h == TR_OP_MEMDEP) {
                /* since session 20: a load's address dependence */
                RD_BYTE(dep);
                if (dep > PMUSIM_MEM_MAX_DEP)
                    BAD("memory dep above 63");
                if (dep == 0) /* FORMAT.md §4: 1-63; without one it is a 0x96 */
                    BAD("MEM record 0x97 with dep 0 (its dep is 1-63; a MEM record without one is 0x96)");
                if (dep && ia64)
                    BAD("memory dep (a load's address dependence) on IA-64: x86 only");
                if (dep && (b & 1))
                    BAD("memory dep (a load's address dependence) on a store");
            }
            RD_VARINT(lat);
            RD_VARINT_LONG(da);
            if (((b >> 1) & 7) >= tr_level_limit(ia64) ||
                (b >> 6) >= PMUSIM_ALAT_COUNT)
                BAD("unknown memory level or ALAT outcome");
            if (lat > UINT32_MAX)
                BAD("memory latency wider than 32 bits");
            if (feed) {
                /* the previous record: the INSN of fi[-1] (k moved on since
                 * fprev) or fprev; tested as below */
                const pmusim_uarch_insn_t *pi = k != kprev ? fi - 1 : NULL;
                unsigned pt, ok;
                uint8_t pplm;
                uint64_t pip, paddr;
                if (pi) {
                    pt = pi->thread;
                    ok = pi->naccess != 0;
                    pplm = pi->plm;
                    pip = pi->ip;
                    paddr = ok ? pi->access[0].addr : 0;
                } else {
                    const pmusim_rec_t *x = fprev ? fprev : &zero;
                    pt = x->thread;
                    ok = fprev && (x->kind == PMUSIM_REC_MEM ||
                                   (x->kind == PMUSIM_REC_INSN && (x->flags & PMUSIM_F_MEM)));
                    pplm = x->plm;
                    pip = x->ip;
                    paddr = x->mem.addr;
                }
                if (G_UNLIKELY(!ok || pt != t)) {
                    pmusim_rec_t m, pv;
                    memset(&m, 0, sizeof m);
                    m.kind = PMUSIM_REC_MEM;
                    m.cycle = cycle;
                    m.thread = (uint8_t)t;
                    if (pi) {
                        memset(&pv, 0, sizeof pv);
                        pv.kind = PMUSIM_REC_INSN;
                        pv.thread = (uint8_t)pt;
                        pv.flags = ok ? PMUSIM_F_MEM : 0;
                    } else if (fprev) {
                        pv = *fprev;
                    }
                    pv.cycle = cycle; /* as every record's (see above) */
                    BAD(tr_mem_follows(pi || fprev ? &pv : NULL, &m));
                }
                paddr += (uint64_t)rd_unzigzag(da);
                /* what a MEM record after this one reads of it, no more:
                 * this record goes nowhere else (also not to c->prev whole) */
                pmusim_rec_t *o = &fd->scratch;
                o->kind = PMUSIM_REC_MEM;
                o->thread = (uint8_t)t;
                o->flags = PMUSIM_F_MEM;
                o->plm = pplm;
                o->ip = pip;
                o->mem.addr = paddr;
                /* pmusim_uarch_insn_add_mem(): one more access of fi[-1],
                 * whose accesses are the last ones; beyond
                 * PMUSIM_UARCH_MAX_ACCESSES, of a continuation of it */
                if (fi != fclosed) {
                    pmusim_uarch_insn_t *in = fi - 1;
                    if (G_UNLIKELY((in->naccess & PMUSIM_UARCH_ACC_COUNT) ==
                                   PMUSIM_UARCH_MAX_ACCESSES)) {
                        in->naccess |= PMUSIM_UARCH_ACC_MORE;
                        *fi = *in;
                        fi->naccess = PMUSIM_UARCH_ACC_CONT;
                        fi->access = fa;
                        in = fi++;
                    }
                    fa->addr = paddr;
                    fa->size = size ? size : 1;
                    fa->is_store = (uint8_t)(b & 1);
                    fa->is_fp = in->fp != PMUSIM_UARCH_FP_NONE;
                    fa->addr_dep = (uint8_t)dep;
                    fa->alat = (uint8_t)(b >> 6);
                    fa++;
                    in->naccess++;
                }
                FEED_REC(o);
                break;
            }
            const pmusim_rec_t *prev = w > recs ? w - 1 : c->have_prev ? &c->prev : NULL;
            /* what tr_mem_follows() accepts, tested here; it words the refusal */
            if (G_UNLIKELY(!prev || prev->thread != t || prev->cycle != cycle ||
                           !(prev->kind == PMUSIM_REC_MEM ||
                             (prev->kind == PMUSIM_REC_INSN && (prev->flags & PMUSIM_F_MEM))))) {
                pmusim_rec_t m;
                memset(&m, 0, sizeof m);
                m.kind = PMUSIM_REC_MEM;
                m.cycle = cycle;
                m.thread = (uint8_t)t;
                BAD(tr_mem_follows(prev, &m));
            }
            pmusim_rec_t *o = w;
            rd_rec_zero(o, &zero, wide);
            o->kind = PMUSIM_REC_MEM;
            o->cycle = cycle;
            o->thread = (uint8_t)t;
            o->flags = PMUSIM_F_MEM;
            o->plm = prev->plm;
            o->ip = prev->ip;
            o->mem.is_store = b & 1;
            o->mem.level = (uint8_t)((b >> 1) & 7);
            o->mem.tlb = (uint8_t)((b >> 4) & 3);
            o->mem.alat = (uint8_t)(b >> 6);
            o->mem.dep = (uint8_t)dep;
            o->mem.size = (uint8_t)size;
            o->mem.latency = (uint32_t)lat;
            o->mem.addr = prev->mem.addr + (uint64_t)rd_unzigzag(da);
            w++;
            break;
        }
        case TR_OP_MARKER: {
            uint64_t idx, len = 0;
            RD_VARINT(d);
            RD_VARINT(idx);
            if (cycle + d < cycle)
                BAD("cycle delta overflows 64 bits");
            if (idx > r->markers->len)
                BAD("marker name index refers to a name not yet defined");
            if (idx == r->markers->len) {
                RD_VARINT(len);
                if (len == 0 || len > TR_MAX_STRING)
                    BAD("marker name length not 1..4096");
                if ((uint64_t)(end - q) < len)
                    goto need;
                if (r->markers->len >= TR_MAX_MARKER_NAMES ||
                    r->marker_bytes + len > TR_MAX_MARKER_BYTES)
                    BAD("more than 65536 marker names or 16 MiB of marker names");
                if (memchr(q, 0, (size_t)len))
                    BAD("marker name contains a NUL byte");
                g_ptr_array_add(r->markers, g_strndup((const char *)q, (gsize)len));
                r->marker_bytes += len;
                q += len;
            }
            pmusim_rec_t *o = feed ? &fd->pass[fd->npass].rec : w;
            rd_rec_zero(o, &zero, wide);
            o->kind = PMUSIM_REC_MARKER;
            o->cycle = cycle = cycle + d;
            o->thread = (uint8_t)t;
            o->name = g_ptr_array_index(r->markers, idx);
            if (feed) {
                fd->pass[fd->npass++].at = (size_t)(fi - fd->insns);
                fclosed = fi;
                FEED_REC(o);
            } else {
                w++;
            }
            break;
        }
        case TR_OP_SYMBOL: {
            uint64_t start, size, len;
            /* a batch ends before a symbol, so the symbols a caller sees after a
             * call all precede the records of that call (converters rely on it) */
            if (W_DONE > 0) /* recs is the start of the caller's batch */
                goto out;
            RD_VARINT(start);
            RD_VARINT(size);
            RD_VARINT(len);
            if (size == 0 || start + size < start)
                BAD("symbol range empty or beyond 2^64");
            if (len == 0 || len > TR_MAX_STRING)
                BAD("symbol name length not 1..4096");
            if ((uint64_t)(end - q) < len)
                goto need;
            if (r->symbols->len >= TR_MAX_SYMBOLS ||
                r->symbol_bytes + len > TR_MAX_SYMBOL_BYTES)
                BAD("more than 1048576 symbols or 64 MiB of symbol names");
            if (memchr(q, 0, (size_t)len))
                BAD("symbol name contains a NUL byte");
            pmusim_symbol_t s = { start, start + size, g_strndup((const char *)q, (gsize)len) };
            g_array_append_val(r->symbols, s);
            r->symbol_bytes += len;
            q += len;
            break;
        }
        case TR_OP_END:
            RD_VARINT(v);
            if (v != r->nrec + (uint64_t)W_DONE) {
                g_snprintf(r->errbuf, sizeof r->errbuf,
                           "END record says %" PRIu64 " records but the stream has %" PRIu64, v,
                           r->nrec + (uint64_t)W_DONE);
                errmsg = r->errbuf;
                goto bad;
            }
            p = q;
            status = DR_END;
            goto out;
        default:
            g_snprintf(r->errbuf, sizeof r->errbuf,
                       "unknown record header byte 0x%02x (expected an instruction byte "
                       "0x00-0x7f or an operation 0x80-0x87, 0x90-0x97)", h);
            errmsg = r->errbuf;
            goto bad;
        }
        p = q;
        continue;
    need:
        status = DR_NEED;
        goto out;
    bad:
        status = DR_ERR;
        goto out;
    }
out:
    c->cycle = cycle;
    c->thread = t;
    c->next_pos[t] = npos;
    c->next_ent[t] = ne;
    r->dpos = (size_t)(p - r->dbuf);
    if (feed) {
        *np = k;
        fd->ninsns = (size_t)(fi - fd->insns);
        fd->nacc = (size_t)(fa - fd->acc);
        fd->closed = fclosed;
        fd->open = fi != fclosed;
        fd->prev = fprev;
        fd->kprev = kprev;
    } else {
        *np = (size_t)(w - recs);
    }
    if (status == DR_ERR && errmsg != r->errbuf)
        g_strlcpy(r->errbuf, errmsg, sizeof r->errbuf);
    return status;
#undef W_DONE
#undef W_LEFT
#undef W_FULL
#undef FEED_INSN
#undef FEED_REC
#undef FEED_ENT
}

G_ALWAYS_INLINE static inline int bin_decode_isa(pmusim_trace_reader_t *r, pmusim_rec_t *recs,
                                                 pmusim_trace_feed_t *fd, size_t *np, size_t max,
                                                 const gboolean ia64, const gboolean feed,
                                                 const gboolean wide)
{
    if (r->dlen - r->dpos > RD_SLACK) {
        int st = bin_decode_loop(r, recs, fd, np, max, ia64, FALSE, feed, wide);
        if (st != DR_SLACK)
            return st;
    }
    return bin_decode_loop(r, recs, fd, np, max, ia64, TRUE, feed, wide);
}

#if RD_HAVE_WIDE
/* the wide instances (rd_wide_of_env()) */
static G_GNUC_NO_INLINE RD_WIDE_TARGET int bin_decode_wide(pmusim_trace_reader_t *r,
                                                           pmusim_rec_t *recs, size_t *np,
                                                           size_t max)
{
    return r->codec->ia64 ? bin_decode_isa(r, recs, NULL, np, max, TRUE, FALSE, TRUE)
                          : bin_decode_isa(r, recs, NULL, np, max, FALSE, FALSE, TRUE);
}

static G_GNUC_NO_INLINE RD_WIDE_TARGET int bin_decode_feed_wide(pmusim_trace_reader_t *r,
                                                                pmusim_trace_feed_t *fd,
                                                                size_t *np, size_t max)
{
    return r->codec->ia64 ? bin_decode_isa(r, NULL, fd, np, max, TRUE, TRUE, TRUE)
                          : bin_decode_isa(r, NULL, fd, np, max, FALSE, TRUE, TRUE);
}
#endif

static int bin_decode(pmusim_trace_reader_t *r, pmusim_rec_t *recs, size_t *np, size_t max)
{
#if RD_HAVE_WIDE
    if (r->wide)
        return bin_decode_wide(r, recs, np, max);
#endif
    return r->codec->ia64 ? bin_decode_isa(r, recs, NULL, np, max, TRUE, FALSE, FALSE)
                          : bin_decode_isa(r, recs, NULL, np, max, FALSE, FALSE, FALSE);
}

/* The same decoder writing the model's input (reader_feed.h). */
static int bin_decode_feed(pmusim_trace_reader_t *r, pmusim_trace_feed_t *fd, size_t *np,
                           size_t max)
{
#if RD_HAVE_WIDE
    if (r->wide)
        return bin_decode_feed_wide(r, fd, np, max);
#endif
    return r->codec->ia64 ? bin_decode_isa(r, NULL, fd, np, max, TRUE, TRUE, FALSE)
                          : bin_decode_isa(r, NULL, fd, np, max, FALSE, TRUE, FALSE);
}

/* One batch of up to `max` records: into recs, or with `feed` into *fd. */
G_ALWAYS_INLINE static inline gssize bin_next(pmusim_trace_reader_t *r, pmusim_rec_t *recs,
                                              pmusim_trace_feed_t *fd, size_t max,
                                              GError **error, const gboolean feed)
{
    size_t n = 0;
    if (feed) {
        if (!r->ftmpl_valid || fd->tmpl_reader != r) {
            /* first feed call, or records read since, or another reader
             * was fed last: the entries' templates are not this feed's
             * for this reader's cache */
            if (fd->model && !fd->tmpls) {
                fd->tmpls = g_new0(struct pmusim_feed_tmpls, 1);
                fd->tmpls->chunks = g_ptr_array_new_with_free_func(g_free);
            }
            if (fd->tmpls)
                feed_tmpl_retire_all(fd);
            for (unsigned i = 0; i < TR_CACHE_SIZE; i++) {
                tr_cache_ent_t *e = &r->codec->cache[i];
                TR_FEED_ENT(e)->rtmpl = NULL; /* none of this feed's for this reader */
                feed_ent_make(TR_FEED_ENT(e), &e->rec, fd, FEED_DIRTY_TMPL);
            }
            r->ftmpl_valid = TRUE;
            fd->tmpl_reader = r;
        }
        fd->prev = r->codec->have_prev ? &r->codec->prev : NULL;
        fd->kprev = 0;
        /* open: the caller's fd->insns[0], which is fi[-1] at the start */
        fd->closed = fd->open ? NULL : fd->insns + fd->ninsns;
    }
    while (n < max) {
        size_t before = n;
        int st = feed ? bin_decode_feed(r, fd, &n, max) : bin_decode(r, recs, &n, max);
        if (st == DR_FULL)
            break;
        if (st == DR_ERR) {
            r->nrec += n;
            char *msg = g_strdup(r->errbuf);
            bin_error(r, error, PMUSIM_TRACE_ERROR_FORMAT, "%s", msg);
            g_free(msg);
            return -1;
        }
        if (st == DR_END) {
            r->done = TRUE;
            /* nothing may follow END */
            size_t follow = 0;
            if (!bin_after_end(r, &follow, error)) {
                r->nrec += n;
                return -1;
            }
            if (follow) {
                r->nrec += n;
                bin_error(r, error, PMUSIM_TRACE_ERROR_FORMAT,
                          "%zu bytes follow the END record, expected the end of the stream",
                          follow);
                return -1;
            }
            break;
        }
        /* DR_NEED */
        size_t avail = r->dlen - r->dpos;
        if (!bin_refill(r, error)) {
            r->nrec += n;
            return -1;
        }
        if (r->zeof && r->dlen - r->dpos == avail && n == before) {
            r->nrec += n;
            if (avail == 0)
                bin_error(r, error, PMUSIM_TRACE_ERROR_TRUNCATED,
                          "stream ends without an END record (truncated trace?)");
            else
                bin_error(r, error, PMUSIM_TRACE_ERROR_TRUNCATED,
                          "stream ends inside a record (%zu bytes left, expected more)", avail);
            return -1;
        }
    }
    r->nrec += n;
    if (!feed) {
        bin_batch_done(r->codec, recs, n, r->hdr.nthreads);
    } else if (n) {
        /* what the next batch needs (bin_batch_done()): the last record,
         * whole (each thread's level is kept as it goes, for RD_PLM) */
        tr_codec_t *c = r->codec;
        pmusim_rec_t last;
        if (fd->kprev == n) {
            last = *fd->prev;
        } else { /* an INSN: what a MEM record takes of it */
            const pmusim_uarch_insn_t *pi = &fd->insns[fd->ninsns - 1];
            memset(&last, 0, sizeof last);
            last.kind = PMUSIM_REC_INSN;
            last.thread = pi->thread;
            last.plm = pi->plm;
            last.ip = pi->ip;
            if (pi->naccess) {
                last.flags = PMUSIM_F_MEM;
                last.mem.addr = pi->access[0].addr;
            }
        }
        last.cycle = c->cycle;
        if (c->version < 2) /* each thread's level (bin_batch_done()) */
            for (size_t i = 0; i < fd->ninsns; i++)
                c->cur_plm[fd->insns[i].thread] = fd->insns[i].plm;
        c->prev = last;
        c->have_prev = TRUE;
    }
    return (gssize)n;
}

static gssize bin_next_batch(pmusim_trace_reader_t *r, pmusim_rec_t *recs, size_t max,
                             GError **error)
{
    return bin_next(r, recs, NULL, max, error, FALSE);
}

/* ---- text form ---- */

/* Reads the next line (without its end-of-line) into r->line; FALSE at the
 * end of input (error unset) or on error (error set). */
static gboolean text_getline(pmusim_trace_reader_t *r, GError **error)
{
    g_string_truncate(r->line, 0);
    gboolean any = FALSE;
    for (;;) {
        if (!raw_fill(r, error)) {
            r->failed = TRUE;
            return FALSE;
        }
        if (r->raw_pos == r->raw_len)
            break;
        any = TRUE;
        const uint8_t *s = r->raw + r->raw_pos;
        size_t avail = r->raw_len - r->raw_pos;
        const uint8_t *nl = memchr(s, '\n', avail);
        size_t take = nl ? (size_t)(nl - s) : avail;
        if (r->line->len + take > TR_MAX_LINE) {
            r->line_no++;
            text_error(r, error, PMUSIM_TRACE_ERROR_LIMIT, "line longer than %u bytes",
                       TR_MAX_LINE);
            return FALSE;
        }
        g_string_append_len(r->line, (const char *)s, (gssize)take);
        r->raw_pos += take + (nl ? 1 : 0);
        if (nl)
            break;
    }
    if (!any)
        return FALSE;
    r->line_no++;
    if (memchr(r->line->str, 0, r->line->len)) {
        text_error(r, error, PMUSIM_TRACE_ERROR_FORMAT, "NUL byte in a text trace");
        return FALSE;
    }
    if (r->line->len && r->line->str[r->line->len - 1] == '\r')
        g_string_truncate(r->line, r->line->len - 1);
    return TRUE;
}

/* A blank line or a comment (first non-blank character '#'). */
static gboolean text_is_blank(const char *s)
{
    while (*s == ' ' || *s == '\t')
        s++;
    return *s == 0 || *s == '#';
}

/* Decimal, or hexadecimal with 0x.  Only ERANGE says the number failed:
 * errno is not cleared by a successful call, and g_ascii_strtoull() may
 * leave it set by the one-time set-up of its C locale (a contended
 * g_once wait returns EAGAIN when several threads make their first call
 * at once, as `pmusim check -j N` does), so "errno != 0" would refuse a
 * valid number.  The other parsers of numbers test ERANGE the same way. */
static gboolean parse_u64(const char *s, size_t len, uint64_t *v)
{
    char buf[32];
    if (len == 0 || len >= sizeof buf)
        return FALSE;
    memcpy(buf, s, len);
    buf[len] = 0;
    int base = 10;
    const char *digits = buf;
    if (len > 2 && buf[0] == '0' && (buf[1] == 'x' || buf[1] == 'X')) {
        base = 16;
        digits = buf + 2;
    }
    if (!g_ascii_isxdigit(*digits))
        return FALSE;
    char *endp;
    errno = 0;
    *v = g_ascii_strtoull(digits, &endp, base);
    return errno != ERANGE && *endp == 0;
}

typedef struct {
    const char *s;
    size_t len;
} tok_t;

#define MAX_TOKS 48

static unsigned tokenize(const char *s, tok_t *toks, unsigned max)
{
    unsigned n = 0;
    while (*s) {
        while (*s == ' ' || *s == '\t')
            s++;
        if (!*s)
            break;
        const char *b = s;
        while (*s && *s != ' ' && *s != '\t')
            s++;
        if (n == max)
            return max + 1;
        toks[n++] = (tok_t){ b, (size_t)(s - b) };
    }
    return n;
}

static gboolean tok_is(const tok_t *t, const char *word)
{
    return strlen(word) == t->len && g_ascii_strncasecmp(t->s, word, t->len) == 0;
}

static int name_index(const char *const *names, unsigned n, const char *s, size_t len)
{
    for (unsigned i = 0; i < n; i++)
        if (strlen(names[i]) == len && g_ascii_strncasecmp(names[i], s, len) == 0)
            return (int)i;
    return -1;
}

/* Rest of a line after token `t`, trimmed and unescaped; NULL if malformed. */
static char *rest_of_line(const tok_t *t)
{
    const char *s = t->s;
    size_t len = strlen(s);
    while (len && (s[len - 1] == ' ' || s[len - 1] == '\t'))
        len--;
    return tr_unescape(s, len);
}

static const char *text_intern(pmusim_trace_reader_t *r, char *name, GError **error)
{
    gpointer idx = g_hash_table_lookup(r->marker_idx, name);
    if (idx) {
        g_free(name);
        return g_ptr_array_index(r->markers, GPOINTER_TO_UINT(idx) - 1);
    }
    size_t len = strlen(name);
    if (r->markers->len >= TR_MAX_MARKER_NAMES || r->marker_bytes + len > TR_MAX_MARKER_BYTES) {
        g_free(name);
        text_error(r, error, PMUSIM_TRACE_ERROR_LIMIT,
                   "more than 65536 marker names or 16 MiB of marker names");
        return NULL;
    }
    g_ptr_array_add(r->markers, name);
    r->marker_bytes += len;
    g_hash_table_insert(r->marker_idx, name, GUINT_TO_POINTER(r->markers->len));
    return name;
}

static gboolean text_symbol(pmusim_trace_reader_t *r, const tok_t *toks, unsigned nt,
                            GError **error)
{
    uint64_t start, end;
    if (nt < 4 || !parse_u64(toks[1].s, toks[1].len, &start) ||
        !parse_u64(toks[2].s, toks[2].len, &end)) {
        text_error(r, error, PMUSIM_TRACE_ERROR_FORMAT,
                   "expected 'symbol START END NAME' with numeric START and END");
        return FALSE;
    }
    char *name = rest_of_line(&toks[3]);
    const char *bad = NULL;
    if (!name)
        bad = "malformed \\x escape in the symbol name";
    else if (start >= end)
        bad = "symbol range empty (START must be below END)";
    else if (!*name || strlen(name) > TR_MAX_STRING)
        bad = "symbol name empty or longer than 4096 bytes";
    gboolean limit = !bad && (r->symbols->len >= TR_MAX_SYMBOLS ||
                              r->symbol_bytes + strlen(name) > TR_MAX_SYMBOL_BYTES);
    if (limit)
        bad = "more than 1048576 symbols or 64 MiB of symbol names";
    if (bad) {
        g_free(name);
        text_error(r, error, limit ? PMUSIM_TRACE_ERROR_LIMIT : PMUSIM_TRACE_ERROR_FORMAT, "%s",
                   bad);
        return FALSE;
    }
    r->symbol_bytes += strlen(name);
    pmusim_symbol_t s = { start, end, name };
    g_array_append_val(r->symbols, s);
    return TRUE;
}

#define TBAD(...)                                                          \
    do {                                                                   \
        text_error(r, error, PMUSIM_TRACE_ERROR_FORMAT, __VA_ARGS__);      \
        return FALSE;                                                      \
    } while (0)

/* The keys of an INSN record, or with `mem_only` those of a MEM record
 * (mem= and the memory keys). */
static gboolean text_insn(pmusim_trace_reader_t *r, pmusim_rec_t *o, const tok_t *toks,
                          unsigned nt, gboolean mem_only, GError **error)
{
    gboolean have_ip = FALSE, mem_keys = FALSE, br_keys = FALSE;
    o->oc.snoop = PMUSIM_OFFCORE_NONE;
    for (unsigned i = 3; i < nt; i++) {
        const tok_t *t = &toks[i];
        const char *eq = memchr(t->s, '=', t->len);
        if (mem_only) {
            static const char *const mem_key_names[] = { "mem", "addr", "size", "lvl",
                                                         "lat", "tlb", "alat", "dep" };
            size_t kl = eq ? (size_t)(eq - t->s) : t->len;
            if (!eq || name_index(mem_key_names, G_N_ELEMENTS(mem_key_names), t->s, kl) < 0)
                TBAD("unexpected '%.*s' in a mem record (expected mem=ld|st addr= size= lvl= "
                     "lat= tlb= alat= dep=)", (int)t->len, t->s);
        }
        if (!eq) {
            static const struct { const char *w; unsigned f; } words[] = {
                { "ia32", PMUSIM_F_IA32 }, { "nop", PMUSIM_F_NOP },
                { "predoff", PMUSIM_F_PRED_OFF }, { "fp", PMUSIM_F_FP },
                { "lock", PMUSIM_F_LOCK }, { "stfwd", PMUSIM_F_STFWD_BLOCK },
            };
            unsigned k;
            for (k = 0; k < G_N_ELEMENTS(words); k++)
                if (tok_is(t, words[k].w))
                    break;
            if (k == G_N_ELEMENTS(words))
                TBAD("unknown word '%.*s' (expected key=value, ia32, nop, predoff, fp, lock or stfwd)",
                     (int)t->len, t->s);
            o->flags |= words[k].f;
            continue;
        }
        size_t kl = (size_t)(eq - t->s);
        const char *vs = eq + 1;
        size_t vl = t->len - kl - 1;
        char key[16];
        if (kl == 0 || kl >= sizeof key)
            TBAD("bad key in '%.*s'", (int)t->len, t->s);
        for (size_t j = 0; j < kl; j++)
            key[j] = g_ascii_tolower(t->s[j]);
        key[kl] = 0;
        uint64_t v = 0;
        int idx = -1;
        gboolean numeric = parse_u64(vs, vl, &v);
#define NEED_NUM(maxv)                                                                  \
    do {                                                                                \
        if (!numeric || v > (maxv))                                                     \
            TBAD("%s= expects a number up to %" PRIu64 ", got '%.*s'", key,             \
                 (uint64_t)(maxv), (int)vl, vs);                                        \
    } while (0)
#define NEED_NAME(tab, n)                                                               \
    do {                                                                                \
        idx = numeric && v < (n) ? (int)v : name_index(tab, n, vs, vl);                 \
        if (idx < 0)                                                                    \
            TBAD("unknown %s= value '%.*s'", key, (int)vl, vs);                         \
    } while (0)
        if (!strcmp(key, "ip")) {
            NEED_NUM(UINT64_MAX);
            o->ip = v;
            have_ip = TRUE;
        } else if (!strcmp(key, "slot")) {
            NEED_NUM(2);
            o->slot = (uint8_t)v;
        } else if (!strcmp(key, "unit")) {
            NEED_NAME(tr_unit_names, PMUSIM_UNIT_LX + 1);
            o->unit = (uint8_t)idx;
        } else if (!strcmp(key, "enc")) {
            NEED_NUM((UINT64_C(1) << 41) - 1);
            o->insn = v;
        } else if (!strcmp(key, "len")) {
            NEED_NUM(255);
            o->len = (uint8_t)v;
        } else if (!strcmp(key, "uops")) {
            NEED_NUM(UINT32_MAX);
            o->uops = (uint32_t)v;
        } else if (!strcmp(key, "plm")) {
            NEED_NUM(3);
            o->plm = (uint8_t)v;
        } else if (!strcmp(key, "xflags")) {
            NEED_NUM(0xffff);
            o->flags |= (uint16_t)v;
        } else if (!strcmp(key, "fpc")) {
            NEED_NAME(tr_fpclass_names, PMUSIM_FPC_COUNT);
            o->flags = (uint16_t)((o->flags & ~PMUSIM_F_FPCLASS_MASK) |
                                  ((unsigned)idx << PMUSIM_F_FPCLASS_SHIFT));
        } else if (!strcmp(key, "opk")) {
            NEED_NAME(tr_opkind_names, PMUSIM_OPK_COUNT);
            o->flags = (uint16_t)((o->flags & ~PMUSIM_F_OPKIND_MASK) |
                                  ((unsigned)idx << PMUSIM_F_OPKIND_SHIFT));
        } else if (!strcmp(key, "mem")) {
            static const char *const ls[] = { "ld", "st" };
            NEED_NAME(ls, 2);
            o->flags |= PMUSIM_F_MEM;
            o->mem.is_store = (uint8_t)idx;
        } else if (!strcmp(key, "addr")) {
            NEED_NUM(UINT64_MAX);
            o->mem.addr = v;
            mem_keys = TRUE;
        } else if (!strcmp(key, "size")) {
            NEED_NUM(255);
            o->mem.size = (uint8_t)v;
            mem_keys = TRUE;
        } else if (!strcmp(key, "lvl")) {
            NEED_NAME(tr_level_names, PMUSIM_LVL_COUNT);
            o->mem.level = (uint8_t)idx;
            mem_keys = TRUE;
        } else if (!strcmp(key, "lat")) {
            NEED_NUM(UINT32_MAX);
            o->mem.latency = (uint32_t)v;
            mem_keys = TRUE;
        } else if (!strcmp(key, "tlb")) {
            NEED_NAME(tr_tlb_names, PMUSIM_TLB_COUNT);
            o->mem.tlb = (uint8_t)idx;
            mem_keys = TRUE;
        } else if (!strcmp(key, "alat")) {
            NEED_NAME(tr_alat_names, PMUSIM_ALAT_COUNT);
            o->mem.alat = (uint8_t)idx;
            mem_keys = TRUE;
        } else if (!strcmp(key, "dep")) {
            NEED_NUM(255); /* tr_rec_check() says what is allowed */
            o->mem.dep = (uint8_t)v;
            mem_keys = TRUE;
        } else if (!strcmp(key, "br")) {
            NEED_NAME(tr_brkind_names, PMUSIM_BR_COUNT);
            o->flags |= PMUSIM_F_BRANCH;
            o->br.kind = (uint8_t)idx;
        } else if (!strcmp(key, "taken")) {
            NEED_NUM(1);
            o->br.taken = (uint8_t)v;
            br_keys = TRUE;
        } else if (!strcmp(key, "target")) {
            NEED_NUM(UINT64_MAX);
            o->br.target = v;
            br_keys = TRUE;
        } else if (!strcmp(key, "dir") || !strcmp(key, "tgt")) {
            static const char *const ok[] = { "miss", "ok" };
            NEED_NAME(ok, 2);
            if (key[0] == 'd')
                o->br.dir_ok = (uint8_t)idx;
            else
                o->br.tgt_ok = (uint8_t)idx;
            br_keys = TRUE;
        } else if (!strcmp(key, "det")) {
            NEED_NAME(tr_detect_names, PMUSIM_BRD_COUNT);
            o->br.detect = (uint8_t)idx;
            br_keys = TRUE;
        } else if (!strcmp(key, "rdep")) {
            NEED_NUM(255); /* tr_rec_check() says what is allowed */
            o->mem.rdep = (uint8_t)v;
        } else if (!strcmp(key, "bdep")) {
            NEED_NUM(255); /* tr_rec_check() says what is allowed */
            o->br.dep = (uint8_t)v;
            br_keys = TRUE;
        } else if (!strcmp(key, "oc.req")) {
            NEED_NUM(255);
            o->oc.req = (uint8_t)v;
            o->flags |= PMUSIM_F_OFFCORE;
        } else if (!strcmp(key, "oc.sup")) {
            NEED_NUM(255);
            o->oc.supplier = (uint8_t)v;
            o->flags |= PMUSIM_F_OFFCORE;
        } else if (!strcmp(key, "oc.snoop")) {
            if (vl == 4 && g_ascii_strncasecmp(vs, "none", 4) == 0)
                v = PMUSIM_OFFCORE_NONE;
            else
                NEED_NUM(254);
            o->oc.snoop = (uint8_t)v;
            o->flags |= PMUSIM_F_OFFCORE;
        } else if (!strcmp(key, "oc.lat")) {
            NEED_NUM(UINT32_MAX);
            o->oc.latency = (uint32_t)v;
            o->flags |= PMUSIM_F_OFFCORE;
        } else {
            TBAD("unknown key '%s'", key);
        }
#undef NEED_NUM
#undef NEED_NAME
    }
    if (mem_only) {
        if (!(o->flags & PMUSIM_F_MEM))
            TBAD("mem record without mem=ld|st");
        return TRUE;
    }
    if (!have_ip)
        TBAD("instruction without ip=");
    if (mem_keys && !(o->flags & PMUSIM_F_MEM))
        TBAD("memory keys (addr, size, lvl, lat, tlb, alat, dep) without mem=ld|st");
    if (br_keys && !(o->flags & PMUSIM_F_BRANCH))
        TBAD("branch keys (taken, target, dir, tgt, det, bdep) without br=KIND");
    if (!(o->flags & PMUSIM_F_OFFCORE))
        o->oc.snoop = 0;
    return TRUE;
}

/* Parses r->line (a record, a symbol or a blank/comment line) into *o.
 * Returns 1 for a record, 2 for a symbol, 0 for a blank line, -1 on error. */
static int text_parse_line(pmusim_trace_reader_t *r, pmusim_rec_t *o, GError **error)
{
    const char *s = r->line->str;
    if (text_is_blank(s))
        return 0;
    tok_t toks[MAX_TOKS];
    unsigned nt = tokenize(s, toks, MAX_TOKS);
    if (nt > MAX_TOKS) {
        text_error(r, error, PMUSIM_TRACE_ERROR_FORMAT, "more than %u fields", MAX_TOKS);
        return -1;
    }
    if (tok_is(&toks[0], "symbol"))
        return text_symbol(r, toks, nt, error) ? 2 : -1;
    memset(o, 0, sizeof *o);
    uint64_t cycle, thread;
    if (nt < 3 || !parse_u64(toks[0].s, toks[0].len, &cycle) ||
        !parse_u64(toks[1].s, toks[1].len, &thread)) {
        text_error(r, error, PMUSIM_TRACE_ERROR_FORMAT,
                   "expected 'CYCLE THREAD KIND ...' or 'symbol START END NAME'");
        return -1;
    }
    if (thread >= r->hdr.nthreads) {
        text_error(r, error, PMUSIM_TRACE_ERROR_FORMAT,
                   "thread %" PRIu64 " not below the header's thread count %u", thread,
                   r->hdr.nthreads);
        return -1;
    }
    if (cycle < r->last_cycle) {
        text_error(r, error, PMUSIM_TRACE_ERROR_FORMAT,
                   "cycle %" PRIu64 " is below the previous record's cycle %" PRIu64
                   " (records must be in non-decreasing cycle order)",
                   cycle, r->last_cycle);
        return -1;
    }
    o->cycle = cycle;
    o->thread = (uint8_t)thread;
    int kind = name_index(tr_kind_names, TR_KIND_MAX + 1, toks[2].s, toks[2].len);
    if (kind <= 0) {
        text_error(r, error, PMUSIM_TRACE_ERROR_FORMAT,
                   "unknown record kind '%.*s' (expected insn, mem, idle, thread, event, "
                   "marker)",
                   (int)toks[2].len, toks[2].s);
        return -1;
    }
    o->kind = (uint8_t)kind;
    switch (kind) {
    case PMUSIM_REC_INSN:
        if (!text_insn(r, o, toks, nt, FALSE, error))
            return -1;
        break;
    case PMUSIM_REC_MEM: {
        if (!text_insn(r, o, toks, nt, TRUE, error))
            return -1;
        const char *why = tr_mem_follows(r->nrec ? &r->prev : NULL, o);
        if (why) {
            text_error(r, error, PMUSIM_TRACE_ERROR_FORMAT, "%s", why);
            return -1;
        }
        break;
    }
    case PMUSIM_REC_IDLE:
    case PMUSIM_REC_EVENT:
        o->plm = r->cur_plm[thread]; /* the default: the thread's current level */
        for (unsigned i = 3; i < nt; i++) {
            const tok_t *t = &toks[i];
            uint64_t v;
            const char *eq = memchr(t->s, '=', t->len);
            size_t kl = eq ? (size_t)(eq - t->s) : 0;
            if (!eq || !parse_u64(eq + 1, t->len - kl - 1, &v)) {
                text_error(r, error, PMUSIM_TRACE_ERROR_FORMAT,
                           "expected key=NUMBER, got '%.*s'", (int)t->len, t->s);
                return -1;
            }
            if (kl == 1 && t->s[0] == 'n') {
                o->n = v;
            } else if (kl == 3 && !memcmp(t->s, "plm", 3) && v <= 3) {
                o->plm = (uint8_t)v;
            } else if (kind == PMUSIM_REC_EVENT && kl == 4 && !memcmp(t->s, "code", 4) &&
                       v <= 0xffff) {
                o->ev_code = (uint16_t)v;
            } else if (kind == PMUSIM_REC_EVENT && kl == 5 && !memcmp(t->s, "umask", 5) &&
                       v <= 0xffff) {
                o->ev_umask = (uint16_t)v;
            } else {
                text_error(r, error, PMUSIM_TRACE_ERROR_FORMAT,
                           "unexpected '%.*s' (idle takes n= and plm=0..3; event takes "
                           "code=, umask= (16 bits), n= and plm=0..3)",
                           (int)t->len, t->s);
                return -1;
            }
        }
        break;
    case PMUSIM_REC_THREAD:
        if (nt != 4 || !(tok_is(&toks[3], "active") || tok_is(&toks[3], "inactive") ||
                         tok_is(&toks[3], "1") || tok_is(&toks[3], "0"))) {
            text_error(r, error, PMUSIM_TRACE_ERROR_FORMAT,
                       "expected 'thread active' or 'thread inactive'");
            return -1;
        }
        o->n = tok_is(&toks[3], "active") || tok_is(&toks[3], "1");
        break;
    default: { /* marker */
        if (nt < 4) {
            text_error(r, error, PMUSIM_TRACE_ERROR_FORMAT, "marker without a name");
            return -1;
        }
        char *name = rest_of_line(&toks[3]);
        if (!name || !*name || strlen(name) > TR_MAX_STRING) {
            g_free(name);
            text_error(r, error, PMUSIM_TRACE_ERROR_FORMAT,
                       "marker name malformed (bad \\x escape) or longer than 4096 bytes");
            return -1;
        }
        o->name = text_intern(r, name, error);
        if (!o->name)
            return -1;
        break;
    }
    }
    const char *bad = tr_rec_check(&r->hdr, o);
    if (bad) {
        text_error(r, error, PMUSIM_TRACE_ERROR_FORMAT, "%s", bad);
        return -1;
    }
    tr_rec_normalize(o, &r->prev); /* the same canonical form as the binary decoder */
    if (o->kind == PMUSIM_REC_INSN)
        r->cur_plm[o->thread] = o->plm;
    r->prev = *o;
    r->last_cycle = cycle;
    return 1;
}

static gboolean text_open(pmusim_trace_reader_t *r, GError **error)
{
    r->line = g_string_sized_new(256);
    pmusim_trace_header_init(&r->hdr, PMUSIM_CPU_NONE, 1);
    r->hdr.isa = PMUSIM_ISA_NONE;
    gboolean have_magic = FALSE;
    for (;;) {
        if (!text_getline(r, error)) {
            if (r->failed)
                return FALSE;
            if (!have_magic) {
                text_error(r, error, PMUSIM_TRACE_ERROR_FORMAT,
                           "empty input: expected a zstd-compressed binary trace or a text "
                           "trace starting with '" TR_TEXT_MAGIC " 2'");
                return FALSE;
            }
            break;
        }
        const char *s = r->line->str;
        if (text_is_blank(s))
            continue;
        tok_t toks[MAX_TOKS];
        unsigned nt = tokenize(s, toks, MAX_TOKS);
        uint64_t v;
        if (!have_magic) {
            if (!tok_is(&toks[0], TR_TEXT_MAGIC) || nt != 2) {
                text_error(r, error, PMUSIM_TRACE_ERROR_FORMAT,
                           "not a pmusim trace: expected a zstd-compressed binary trace or a "
                           "text trace starting with '" TR_TEXT_MAGIC " 2'");
                return FALSE;
            }
            if (!parse_u64(toks[1].s, toks[1].len, &v) || v < PMUSIM_TRACE_VERSION_MIN ||
                v > PMUSIM_TRACE_VERSION) {
                text_error(r, error, PMUSIM_TRACE_ERROR_VERSION,
                           "unsupported version '%.*s', expected %u..%u", (int)toks[1].len,
                           toks[1].s, PMUSIM_TRACE_VERSION_MIN, PMUSIM_TRACE_VERSION);
                return FALSE;
            }
            r->hdr.version = (uint32_t)v;
            have_magic = TRUE;
            continue;
        }
        if (nt > MAX_TOKS)
            nt = MAX_TOKS;
        if (tok_is(&toks[0], "isa") && nt == 2) {
            if (tok_is(&toks[1], "ia64"))
                r->hdr.isa = PMUSIM_ISA_IA64;
            else if (tok_is(&toks[1], "x86_64"))
                r->hdr.isa = PMUSIM_ISA_X86_64;
            else {
                text_error(r, error, PMUSIM_TRACE_ERROR_FORMAT,
                           "unknown ISA '%.*s' (expected ia64 or x86_64)", (int)toks[1].len,
                           toks[1].s);
                return FALSE;
            }
        } else if (tok_is(&toks[0], "cpu") && nt == 2) {
            char *name = g_strndup(toks[1].s, toks[1].len);
            r->hdr.cpu = tok_is(&toks[1], "none") ? PMUSIM_CPU_NONE : pmusim_cpu_from_name(name);
            g_free(name);
            if (r->hdr.cpu == PMUSIM_CPU_NONE && !tok_is(&toks[1], "none")) {
                text_error(r, error, PMUSIM_TRACE_ERROR_FORMAT,
                           "unknown CPU '%.*s' (expected ita2, mont, wsm, wsm_dp, knm or none)",
                           (int)toks[1].len, toks[1].s);
                return FALSE;
            }
        } else if (tok_is(&toks[0], "threads") && nt == 2) {
            if (!parse_u64(toks[1].s, toks[1].len, &v) || v < 1 || v > PMUSIM_MAX_THREADS) {
                text_error(r, error, PMUSIM_TRACE_ERROR_FORMAT, "threads must be 1..8");
                return FALSE;
            }
            r->hdr.nthreads = (uint32_t)v;
        } else if (tok_is(&toks[0], "flags") && nt == 2) {
            if (!parse_u64(toks[1].s, toks[1].len, &v) || v > UINT32_MAX) {
                text_error(r, error, PMUSIM_TRACE_ERROR_FORMAT, "flags must be a 32-bit number");
                return FALSE;
            }
            r->hdr.flags = (uint32_t)v;
        } else if (tok_is(&toks[0], "meta") && nt >= 2) {
            if (r->hdr.meta_keys->len >= TR_MAX_META) {
                text_error(r, error, PMUSIM_TRACE_ERROR_LIMIT,
                           "more than %u metadata entries", TR_MAX_META);
                return FALSE;
            }
            char *k = tr_unescape(toks[1].s, toks[1].len);
            char *val = nt > 2 ? rest_of_line(&toks[2]) : g_strdup("");
            if (!k || !val || !*k || strlen(k) > TR_MAX_STRING || strlen(val) > TR_MAX_STRING) {
                g_free(k);
                g_free(val);
                text_error(r, error, PMUSIM_TRACE_ERROR_FORMAT,
                           "metadata key or value malformed (bad \\x escape), empty key, or "
                           "longer than 4096 bytes");
                return FALSE;
            }
            g_ptr_array_add(r->hdr.meta_keys, k);
            g_ptr_array_add(r->hdr.meta_values, val);
        } else if (tok_is(&toks[0], "isa") || tok_is(&toks[0], "cpu") ||
                   tok_is(&toks[0], "threads") || tok_is(&toks[0], "flags") ||
                   tok_is(&toks[0], "meta")) {
            /* no record starts so: say what the header line lacks here,
             * not "expected 'CYCLE THREAD KIND'" at the first read */
            text_error(r, error, PMUSIM_TRACE_ERROR_FORMAT,
                       "header line '%.*s' needs %s", (int)toks[0].len, toks[0].s,
                       tok_is(&toks[0], "meta") ? "a key (meta KEY [VALUE])"
                                                : "exactly one value");
            return FALSE;
        } else {
            r->have_pending = TRUE; /* the first record or symbol line */
            break;
        }
    }
    if (r->hdr.isa == PMUSIM_ISA_NONE)
        r->hdr.isa = pmusim_cpu_isa(r->hdr.cpu);
    const char *bad = tr_header_check(&r->hdr);
    if (bad) {
        text_error(r, error, PMUSIM_TRACE_ERROR_FORMAT, "bad header: %s", bad);
        return FALSE;
    }
    return TRUE;
}

static void reader_warn(pmusim_trace_reader_t *r, char *msg)
{
    g_free(r->warning);
    r->warning = msg;
    if (!(r->flags & PMUSIM_TRACE_OPEN_QUIET))
        fprintf(stderr, "pmusim: warning: %s\n", msg);
}

/* The end line "end COUNT" (FORMAT.md §5): COUNT must be the number of
 * records, and only blank and comment lines may follow. */
static gboolean text_end_line(pmusim_trace_reader_t *r, GError **error)
{
    tok_t toks[3];
    unsigned nt = tokenize(r->line->str, toks, 2);
    uint64_t v;
    if (nt != 2 || !parse_u64(toks[1].s, toks[1].len, &v)) {
        text_error(r, error, PMUSIM_TRACE_ERROR_FORMAT, "expected 'end COUNT' (the record count)");
        return FALSE;
    }
    if (v != r->nrec) {
        text_error(r, error, PMUSIM_TRACE_ERROR_FORMAT,
                   "the end line says %" PRIu64 " records but the trace has %" PRIu64, v,
                   r->nrec);
        return FALSE;
    }
    for (;;) {
        if (!text_getline(r, error))
            return !r->failed;
        if (!text_is_blank(r->line->str)) {
            text_error(r, error, PMUSIM_TRACE_ERROR_FORMAT,
                       "content after the end line (only blank and comment lines may follow)");
            return FALSE;
        }
    }
}

static gssize text_next_batch(pmusim_trace_reader_t *r, pmusim_rec_t *recs, size_t max,
                              GError **error)
{
    size_t n = 0;
    while (n < max) {
        if (r->have_pending) {
            r->have_pending = FALSE;
        } else if (!text_getline(r, error)) {
            if (r->failed)
                return -1;
            r->done = TRUE;
            /* a text trace cut at a line end would otherwise read as a
             * complete, shorter one */
            const char *what = "the text trace ends without its end line 'end COUNT' "
                               "(truncated?";
            if (r->flags & PMUSIM_TRACE_OPEN_STRICT) {
                text_error(r, error, PMUSIM_TRACE_ERROR_TRUNCATED, "%s)", what);
                return -1;
            }
            reader_warn(r, g_strdup_printf("%s: line %" PRIu64 ": %s hand-written traces may "
                                           "omit it; --strict makes this an error)",
                                           r->name, r->line_no, what));
            break;
        }
        const char *ls = r->line->str + strspn(r->line->str, " \t");
        if (g_ascii_strncasecmp(ls, "end", 3) == 0 && (ls[3] == ' ' || ls[3] == '\t' || !ls[3])) {
            if (!text_end_line(r, error))
                return -1;
            r->done = TRUE;
            r->seen_end = TRUE;
            break;
        }
        if (n > 0 && g_ascii_strncasecmp(ls, "symbol", 6) == 0) {
            r->have_pending = TRUE; /* end the batch before a symbol (see bin_decode) */
            break;
        }
        int st = text_parse_line(r, &recs[n], error);
        if (st < 0)
            return -1;
        if (st == 1) {
            n++;
            r->nrec++;
        }
    }
    return (gssize)n;
}

/* ---- public API ---- */

static pmusim_trace_reader_t *reader_new(const char *name)
{
    pmusim_trace_reader_t *r = g_new0(pmusim_trace_reader_t, 1);
    r->name = g_strdup(name);
    r->symbols = g_array_new(FALSE, FALSE, sizeof(pmusim_symbol_t));
    g_array_set_clear_func(r->symbols, symbol_clear);
    r->markers = g_ptr_array_new_with_free_func(g_free);
    r->marker_idx = g_hash_table_new(g_str_hash, g_str_equal);
    return r;
}

static pmusim_trace_reader_t *reader_start(pmusim_trace_reader_t *r, GError **error)
{
    static const uint8_t zstd_magic[4] = { 0x28, 0xb5, 0x2f, 0xfd };
    if (!raw_fill(r, error)) {
        pmusim_trace_reader_free(r);
        return NULL;
    }
    /* a file's first read returns at least 4 bytes unless the file is shorter;
     * a zstd stream starts with a frame (magic 28 b5 2f fd) or a skippable
     * frame (magic 0x184D2A50..5F, little-endian: 5? 2a 4d 18, RFC 8878 §3.1.2) */
    const uint8_t *m = r->raw + r->raw_pos;
    r->binary = r->raw_len - r->raw_pos >= 4 &&
                (memcmp(m, zstd_magic, 4) == 0 ||
                 ((m[0] & 0xf0) == 0x50 && m[1] == 0x2a && m[2] == 0x4d && m[3] == 0x18));
    gboolean ok = r->binary ? bin_open(r, error) : text_open(r, error);
    if (!ok) {
        pmusim_trace_reader_free(r);
        return NULL;
    }
    return r;
}

static unsigned effective_flags(unsigned flags)
{
    const char *env = g_getenv("PMUSIM_TRACE_STRICT");
    if (env && strcmp(env, "1") == 0)
        flags |= PMUSIM_TRACE_OPEN_STRICT;
    return flags;
}

pmusim_trace_reader_t *pmusim_trace_reader_open(const char *path, GError **error)
{
    return pmusim_trace_reader_open_ex(path, 0, error);
}

pmusim_trace_reader_t *pmusim_trace_reader_open_memory(const void *data, size_t len,
                                                       const char *name, GError **error)
{
    return pmusim_trace_reader_open_memory_ex(data, len, name, 0, error);
}

const char *pmusim_trace_reader_warning(const pmusim_trace_reader_t *r)
{
    return r->warning;
}

pmusim_trace_reader_t *pmusim_trace_reader_open_ex(const char *path, unsigned flags,
                                                   GError **error)
{
    pmusim_trace_reader_t *r = reader_new(path);
    r->flags = effective_flags(flags);
    if (strcmp(path, "-") == 0) {
        r->fp = stdin;
    } else {
        r->fp = fopen(path, "rb");
        if (!r->fp) {
            g_set_error(error, PMUSIM_TRACE_ERROR, PMUSIM_TRACE_ERROR_IO, "%s: cannot open: %s",
                        path, g_strerror(errno));
            pmusim_trace_reader_free(r);
            return NULL;
        }
        r->own_fp = TRUE;
    }
    r->bufs = bufs_take();
    if (!r->bufs->raw)
        r->bufs->raw = g_malloc(RAW_SIZE);
    r->rawbuf = r->bufs->raw;
    r->raw = r->rawbuf;
    /* fill fully at first so the form can be detected from 4 bytes */
    size_t got = fread(r->rawbuf, 1, RAW_SIZE, r->fp);
    if (got == 0 && ferror(r->fp)) {
        g_set_error(error, PMUSIM_TRACE_ERROR, PMUSIM_TRACE_ERROR_IO, "%s: read failed: %s", path,
                    g_strerror(errno));
        pmusim_trace_reader_free(r);
        return NULL;
    }
    r->raw_len = got;
    r->raw_eof = got == 0;
    return reader_start(r, error);
}

pmusim_trace_reader_t *pmusim_trace_reader_open_memory_ex(const void *data, size_t len,
                                                          const char *name, unsigned flags,
                                                          GError **error)
{
    pmusim_trace_reader_t *r = reader_new(name ? name : "<memory>");
    r->flags = effective_flags(flags);
    r->raw = data;
    r->raw_len = len;
    r->raw_eof = TRUE;
    return reader_start(r, error);
}

const pmusim_trace_header_t *pmusim_trace_reader_header(const pmusim_trace_reader_t *r)
{
    return &r->hdr;
}

/* What both entry points answer before decoding: -1 (with error) when the
 * reader failed before, 0 when it is done or nothing is asked, 1 to go on. */
static int reader_go(pmusim_trace_reader_t *r, size_t max, GError **error)
{
    if (r->failed) {
        g_set_error(error, PMUSIM_TRACE_ERROR, PMUSIM_TRACE_ERROR_FORMAT,
                    "%s: the reader already failed", r->name);
        return -1;
    }
    return r->done || max == 0 ? 0 : 1;
}

gssize pmusim_trace_reader_next_batch(pmusim_trace_reader_t *r, pmusim_rec_t *recs, size_t max,
                                      GError **error)
{
    const int go = reader_go(r, max, error);
    if (go <= 0)
        return go;
    r->ftmpl_valid = FALSE; /* the feed's templates do not follow these records */
    return r->binary ? bin_next_batch(r, recs, max, error) : text_next_batch(r, recs, max, error);
}

gssize pmusim_trace_reader_next_feed(pmusim_trace_reader_t *r, pmusim_trace_feed_t *f,
                                     size_t max, GError **error)
{
    f->calls++; /* the templates' clock (tmpl_lag) */
    if (!r->binary) {
        g_set_error(error, PMUSIM_TRACE_ERROR, PMUSIM_TRACE_ERROR_FORMAT,
                    "%s: not a binary trace (no decoder to the model's input)", r->name);
        return -1;
    }
    const int go = reader_go(r, max, error);
    if (go <= 0)
        return go;
    return bin_next(r, NULL, f, max, error, TRUE);
}

const GArray *pmusim_trace_reader_symbols(const pmusim_trace_reader_t *r)
{
    return r->symbols;
}

uint64_t pmusim_trace_reader_records_read(const pmusim_trace_reader_t *r)
{
    return r->nrec;
}

gboolean pmusim_trace_reader_is_binary(const pmusim_trace_reader_t *r)
{
    return r->binary;
}

void pmusim_trace_reader_free(pmusim_trace_reader_t *r)
{
    if (!r)
        return;
    zq_free(r->zq, r->bufs); /* first: the thread reads the input */
    if (r->own_fp)
        fclose(r->fp);
    bufs_release(r->bufs); /* rawbuf, zd, codec */
    g_free(r->zerr_msg);
    if (r->line)
        g_string_free(r->line, TRUE);
    pmusim_trace_header_clear(&r->hdr);
    g_array_unref(r->symbols);
    g_hash_table_destroy(r->marker_idx);
    g_ptr_array_unref(r->markers);
    g_free(r->warning);
    g_free(r->name);
    g_free(r);
}
