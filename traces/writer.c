/* Trace writer: binary (delta-coded, zstd-compressed) and canonical text
 * forms, as specified in traces/FORMAT.md.  The binary encoder mirrors the
 * decoder in reader.c: both keep a tr_codec_t and update it identically. */
#include "pmusim/trace.h"
#include "pmusim/outfile.h"
#include "trace_priv.h"

#include <errno.h>
#include <stddef.h>
#include <inttypes.h>
#include <string.h>
#include <zstd.h>

#define OBUF_FLUSH (128u * 1024u)
#define OBUF_SIZE (OBUF_FLUSH + 2 * TR_MAX_STRING + 256u)
/* The most bytes w_run() writes for one record: an INSN with a thread
 * select, every varint at its longest (10 bytes for 64 bits, 5 for 32, 3
 * for 16, 2 for the 14-bit field mask) and every optional part: 86. */
#define W_MAX_REC 96u
_Static_assert(OBUF_SIZE - OBUF_FLUSH >= W_MAX_REC, "output buffer without room past the mark");

/* The writer's IP cache predicts what the reader's (tr_cache_ent_t) does,
 * from the canonical form of the last INSN at a position hashing here, but
 * keeps it as a few 64-bit words read straight from the record: the usual
 * case (no static field differs) costs a few loads, ands and compares
 * instead of one compare per field.  Each word is the 8 bytes at one offset
 * of pmusim_rec_t (W_OFF_*); constant masks (WK_*, from offsetof and the
 * host's byte order) keep the fields and drop padding, and parts the flags
 * mark absent are zeroed as in tr_rec_normalize(). */
#define W_OFF_A offsetof(pmusim_rec_t, kind) /* kind thread flags plm slot unit len */
#define W_OFF_M offsetof(pmusim_rec_t, mem.latency) /* latency size is_store level tlb */
#define W_OFF_B offsetof(pmusim_rec_t, br.kind)     /* kind taken dir_ok tgt_ok detect */
#define W_OFF_O offsetof(pmusim_rec_t, oc)          /* latency req supplier snoop */
#define W_IN(off, f) (offsetof(pmusim_rec_t, f) >= (off) && \
                      offsetof(pmusim_rec_t, f) + sizeof(((pmusim_rec_t *)0)->f) <= (off) + 8)
_Static_assert(W_IN(W_OFF_A, flags) && W_IN(W_OFF_A, plm) && W_IN(W_OFF_A, unit) &&
                   W_IN(W_OFF_A, len),
               "pmusim_rec_t: flags..len not in one word");
_Static_assert(W_IN(W_OFF_M, mem.size) && W_IN(W_OFF_M, mem.is_store) &&
                   W_IN(W_OFF_M, mem.level) && W_IN(W_OFF_M, mem.tlb),
               "pmusim_rec_t: mem fields not in one word");
_Static_assert(W_IN(W_OFF_B, br.taken) && W_IN(W_OFF_B, br.dir_ok) &&
                   W_IN(W_OFF_B, br.tgt_ok) && W_IN(W_OFF_B, br.detect),
               "pmusim_rec_t: branch fields not in one word");
_Static_assert(W_IN(W_OFF_O, oc.req) && W_IN(W_OFF_O, oc.supplier) && W_IN(W_OFF_O, oc.snoop),
               "pmusim_rec_t: offcore fields not in one word");
_Static_assert(W_OFF_B + 8 <= sizeof(pmusim_rec_t) && W_OFF_O + 8 <= sizeof(pmusim_rec_t),
               "pmusim_rec_t: word past the end");

/* The mask of field f in the word at offset off: constant expressions. */
#define W_SZ(f) sizeof(((pmusim_rec_t *)0)->f)
#define W_ONES(f) (W_SZ(f) >= 8 ? ~UINT64_C(0) : (UINT64_C(1) << (8 * (W_SZ(f) & 7))) - 1)
#if G_BYTE_ORDER == G_LITTLE_ENDIAN
#define W_SHIFT(off, f) (8 * (offsetof(pmusim_rec_t, f) - (off)))
#else
#define W_SHIFT(off, f) (8 * ((off) + 8 - offsetof(pmusim_rec_t, f) - W_SZ(f)))
#endif
#define W_MASK(off, f) (W_ONES(f) << W_SHIFT(off, f))
#define WK_FLAGS W_MASK(W_OFF_A, flags)
#define WK_PLM W_MASK(W_OFF_A, plm)
#define WK_UNIT W_MASK(W_OFF_A, unit)
#define WK_LEN W_MASK(W_OFF_A, len)
#define WK_A (WK_FLAGS | WK_PLM | WK_UNIT | WK_LEN)
#define WK_MSTAT (W_MASK(W_OFF_M, mem.size) | W_MASK(W_OFF_M, mem.is_store))
#define WK_MDYN (W_MASK(W_OFF_M, mem.latency) | W_MASK(W_OFF_M, mem.level) | \
                 W_MASK(W_OFF_M, mem.tlb))
#define WK_BKIND W_MASK(W_OFF_B, br.kind)
#define WK_BDYN (W_MASK(W_OFF_B, br.taken) | W_MASK(W_OFF_B, br.dir_ok) | \
                 W_MASK(W_OFF_B, br.tgt_ok) | W_MASK(W_OFF_B, br.detect))
#define WK_OCLAT W_MASK(W_OFF_O, oc.latency)
#define WK_OCBITS (W_MASK(W_OFF_O, oc.req) | W_MASK(W_OFF_O, oc.supplier) | \
                   W_MASK(W_OFF_O, oc.snoop))
_Static_assert((WK_MSTAT | WK_MDYN) == ~UINT64_C(0),
               "pmusim_rec_t: the memory word has bytes that are no field");

/* What the flags keep of each word (the canonical form: parts the flags do
 * not mark present are 0), by the three presence bits: one load each
 * instead of deriving the masks. */
_Static_assert(PMUSIM_F_MEM == 1 && PMUSIM_F_BRANCH == 2 && PMUSIM_F_OFFCORE == 4,
               "presence flags not the three low bits");
typedef struct w_keep {
    uint64_t m;      /* memory word and address */
    uint64_t b;      /* branch word */
    uint64_t target; /* branch target */
    uint64_t o;      /* offcore word */
} w_keep_t;
#define W_KEEP(f) \
    [f] = { .m = ((f) & 1) ? ~UINT64_C(0) : 0, .b = ((f) & 2) ? (WK_BKIND | WK_BDYN) : 0, \
            .target = ((f) & 2) ? ~UINT64_C(0) : 0, .o = ((f) & 4) ? (WK_OCLAT | WK_OCBITS) : 0 }
static const w_keep_t w_keep[8] = { W_KEEP(0), W_KEEP(1), W_KEEP(2), W_KEEP(3),
                                    W_KEEP(4), W_KEEP(5), W_KEEP(6), W_KEEP(7) };

/* The byte-field checks of w_insn_ok() on whole words: for bytes y below
 * 0x80, y + (0x7f - lim) sets the byte's top bit exactly when y > lim and
 * does not carry; a byte of 0x80 or more sets it by itself (its carry
 * can only touch a byte that is then reported too, with the record
 * already bad).  W_LIM(off, f, lim) is field f's part of the addend, W_TOP
 * its top bit, W_SEL its byte. */
#define W_LIM(off, f, lim) ((uint64_t)(0x7fu - (lim)) << W_SHIFT(off, f))
#define W_TOP(off, f) (UINT64_C(0x80) << W_SHIFT(off, f))
#define W_SEL(off, f) (UINT64_C(0xff) << W_SHIFT(off, f))
#define W_OVER(y, add, top) ((((y) + (add)) | (y)) & (top))
#define WC_A_SEL (W_SEL(W_OFF_A, thread) | W_SEL(W_OFF_A, plm) | W_SEL(W_OFF_A, slot) | \
                  W_SEL(W_OFF_A, unit))
#define WC_A_TOP (W_TOP(W_OFF_A, thread) | W_TOP(W_OFF_A, plm) | W_TOP(W_OFF_A, slot) | \
                  W_TOP(W_OFF_A, unit))
/* the thread's limit is the header's (w->ok_add) */
#define WC_A_ADD(ia64) (W_LIM(W_OFF_A, plm, 3) | W_LIM(W_OFF_A, slot, (ia64) ? 2 : 0) | \
                        W_LIM(W_OFF_A, unit, PMUSIM_UNIT_LX))
#define WC_M_SEL (W_SEL(W_OFF_M, mem.is_store) | W_SEL(W_OFF_M, mem.level) | \
                  W_SEL(W_OFF_M, mem.tlb))
#define WC_M_TOP (W_TOP(W_OFF_M, mem.is_store) | W_TOP(W_OFF_M, mem.level) | \
                  W_TOP(W_OFF_M, mem.tlb))
#define WC_M_ADD (W_LIM(W_OFF_M, mem.is_store, 1) | \
                  W_LIM(W_OFF_M, mem.level, PMUSIM_LVL_COUNT - 1) | \
                  W_LIM(W_OFF_M, mem.tlb, PMUSIM_TLB_COUNT - 1))
#define WC_B_SEL (W_SEL(W_OFF_B, br.kind) | W_SEL(W_OFF_B, br.taken) | W_SEL(W_OFF_B, br.dir_ok) | \
                  W_SEL(W_OFF_B, br.tgt_ok) | W_SEL(W_OFF_B, br.detect))
#define WC_B_TOP (W_TOP(W_OFF_B, br.kind) | W_TOP(W_OFF_B, br.taken) | W_TOP(W_OFF_B, br.dir_ok) | \
                  W_TOP(W_OFF_B, br.tgt_ok) | W_TOP(W_OFF_B, br.detect))
#define WC_B_ADD (W_LIM(W_OFF_B, br.kind, PMUSIM_BR_COUNT - 1) | W_LIM(W_OFF_B, br.taken, 1) | \
                  W_LIM(W_OFF_B, br.dir_ok, 1) | W_LIM(W_OFF_B, br.tgt_ok, 1) | \
                  W_LIM(W_OFF_B, br.detect, PMUSIM_BRD_COUNT - 1))
_Static_assert(W_SZ(thread) == 1 && W_SZ(plm) == 1 && W_SZ(slot) == 1 && W_SZ(unit) == 1 &&
                   W_SZ(mem.is_store) == 1 && W_SZ(mem.level) == 1 && W_SZ(mem.tlb) == 1 &&
                   W_SZ(br.kind) == 1 && W_SZ(br.taken) == 1 && W_SZ(br.dir_ok) == 1 &&
                   W_SZ(br.tgt_ok) == 1 && W_SZ(br.detect) == 1,
               "pmusim_rec_t: a checked field is not one byte");
_Static_assert(W_IN(W_OFF_A, thread) && W_IN(W_OFF_A, slot), "pmusim_rec_t: thread, slot");

/* The repeat test: an INSN whose bytes, the cycle, the thread, the memory
 * address and the padding aside, are those of the last record encoded at
 * its cache entry has the entry's canonical fields, static and dynamic,
 * and the same next position, so its record is the header byte, the cycle
 * delta, the position and the address only.  The test compares the
 * record's bytes [8, 56) and [64, 104) with a copy of the last one's as six
 * 16-byte vectors (GCC/Clang vector extension: SSE2 on x86-64); a record
 * that fails it (different bytes, or only different padding) is encoded
 * field by field as before, which gives the same bytes. */
typedef uint8_t w_v16 __attribute__((vector_size(16)));
#define W_NRAW 6
static const size_t w_raw_off[W_NRAW] = { 8, 24, 40, 64, 80, 88 };
/* The bytes of each vector the test ignores: the thread, the padding
 * after mem.rdep, br.dep and oc.snoop. */
_Static_assert(offsetof(pmusim_rec_t, thread) == 9 && offsetof(pmusim_rec_t, ip) == 16 &&
                   offsetof(pmusim_rec_t, mem.addr) == 56 &&
                   offsetof(pmusim_rec_t, mem.alat) == 72 &&
                   offsetof(pmusim_rec_t, mem.dep) == 73 &&
                   offsetof(pmusim_rec_t, mem.rdep) == 74 &&
                   offsetof(pmusim_rec_t, br.target) == 80 &&
                   offsetof(pmusim_rec_t, br.detect) == 92 &&
                   offsetof(pmusim_rec_t, br.dep) == 93 &&
                   offsetof(pmusim_rec_t, oc.snoop) == 102 && sizeof(pmusim_rec_t) == 104,
               "pmusim_rec_t: the repeat test's layout");
static const w_v16 w_raw_mask[W_NRAW] = {
    { 0xff, 0, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff },
    { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff },
    { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff },
    { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0, 0 }, /* 64..79 */
    { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0, 0 }, /* 80..95 */
    { 0xff, 0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0 },    /* 88..103 */
};

typedef struct w_ent {
    w_v16 raw[W_NRAW]; /* the last record's bytes at w_raw_off[] */
    uint64_t next;     /* its next position */
    struct w_ent *next_e; /* the entry of `next` (&went[tr_cache_index(next)]) */
    uint64_t mm;       /* its memory-part mask (W_PRESENT(flags, PMUSIM_F_MEM)) */
    uint64_t a, insn, m, addr, target, b, o;
    int64_t stride; /* between the last two addresses */
    uint32_t uops;
    uint8_t alat;
    uint8_t dep; /* mem.dep (a static field: TR_M_MEMDEP) */
    uint8_t bdep; /* br.dep (a static field: TR_M_BRDEP) */
    uint8_t rdep; /* mem.rdep (a static field: TR_M_RDEP; kept without the memory flag) */
} w_ent_t;

/* The three dependence distances (static fields, FORMAT.md §4.2): the
 * bytes of those mask `m` has, in mask order, and the entry's copy. */
static inline uint8_t *enc_deps(uint8_t *p, w_ent_t *e, uint64_t m, uint8_t dep, uint8_t bdep,
                                uint8_t rdep)
{
    if (m & TR_M_MEMDEP) *p++ = dep;
    if (m & TR_M_BRDEP) *p++ = bdep;
    if (m & TR_M_RDEP) *p++ = rdep;
    e->dep = dep;
    e->bdep = bdep;
    e->rdep = rdep;
    return p;
}

static inline w_v16 w_v16_at(const pmusim_rec_t *r, size_t off)
{
    w_v16 v;
    memcpy(&v, (const char *)r + off, sizeof v);
    return v;
}

static inline uint64_t w_word(const pmusim_rec_t *r, size_t off)
{
    uint64_t v;
    memcpy(&v, (const char *)r + off, sizeof v);
    return v;
}

struct pmusim_trace_writer {
    char *path;
    pmusim_outfile_t *out; /* atomic output (outfile.h); fp is its stream */
    FILE *fp;
    pmusim_trace_form_t form;
    pmusim_trace_header_t hdr;
    uint64_t nrec;
    uint64_t last_cycle;
    /* trusted writes: a record before the previous one's cycle (or a MEM
     * record off its instruction's) was seen in w_run(): the producer broke
     * the order, and the file would not read back */
    gboolean disorder;
    uint64_t ok_add;        /* binary: w_insn_ok()'s addend for the first word */
    gboolean failed;
    pmusim_rec_t prev;      /* the last record written (MEM records check and copy it) */
    uint8_t cur_plm[PMUSIM_MAX_THREADS]; /* plm of each thread's last INSN (text default) */
    uint64_t sym_bytes;     /* total bytes of symbol names */
    /* binary */
    ZSTD_CStream *zc;
    uint8_t *obuf;
    size_t olen;
    uint8_t *zout;
    size_t zcap;
    tr_codec_t *codec;      /* cycle, thread, next_pos (its cache is the reader's; see went) */
    struct w_ent *went;     /* the writer's IP cache, TR_CACHE_SIZE entries */
    /* each thread's predicted entry, &went[tr_cache_index(codec->next_pos[t])]:
     * an instruction at its predicted position finds its entry without
     * hashing the position (as the reader's tr_codec_t.next_ent) */
    struct w_ent *went_next[PMUSIM_MAX_THREADS];
    GHashTable *markers; /* name -> index + 1 */
    guint nsyms;
    /* text */
    GString *line;
};

static uint8_t *put_varint(uint8_t *p, uint64_t v)
{
    while (v >= 0x80) {
        *p++ = (uint8_t)(v | 0x80);
        v >>= 7;
    }
    *p++ = (uint8_t)v;
    return p;
}

static uint8_t *put_bytes(uint8_t *p, const char *s, size_t len)
{
    p = put_varint(p, len);
    memcpy(p, s, len);
    return p + len;
}

static gboolean w_io_error(pmusim_trace_writer_t *w, GError **error, const char *what)
{
    w->failed = TRUE;
    g_set_error(error, PMUSIM_TRACE_ERROR, PMUSIM_TRACE_ERROR_IO, "%s: %s: %s", w->path, what,
                g_strerror(errno));
    return FALSE;
}

static gboolean w_zflush(pmusim_trace_writer_t *w, ZSTD_EndDirective mode, GError **error)
{
    ZSTD_inBuffer in = { w->obuf, w->olen, 0 };
    for (;;) {
        ZSTD_outBuffer out = { w->zout, w->zcap, 0 };
        size_t rem = ZSTD_compressStream2(w->zc, &out, &in, mode);
        if (ZSTD_isError(rem)) {
            w->failed = TRUE;
            g_set_error(error, PMUSIM_TRACE_ERROR, PMUSIM_TRACE_ERROR_IO,
                        "%s: compression failed: %s", w->path, ZSTD_getErrorName(rem));
            return FALSE;
        }
        if (out.pos && fwrite(w->zout, 1, out.pos, w->fp) != out.pos)
            return w_io_error(w, error, "write failed");
        gboolean done = mode == ZSTD_e_continue ? in.pos == in.size : rem == 0;
        if (done)
            break;
    }
    w->olen = 0;
    return TRUE;
}

static gboolean w_text_header(pmusim_trace_writer_t *w, GError **error)
{
    GString *s = w->line;
    g_string_printf(s, "%s %u\nisa %s\ncpu %s\nthreads %u\nflags 0x%x\n", TR_TEXT_MAGIC,
                    PMUSIM_TRACE_VERSION, pmusim_isa_name(w->hdr.isa), pmusim_cpu_name(w->hdr.cpu),
                    w->hdr.nthreads, w->hdr.flags);
    for (guint i = 0; i < w->hdr.meta_keys->len; i++) {
        g_string_append(s, "meta ");
        tr_escape(s, g_ptr_array_index(w->hdr.meta_keys, i), FALSE);
        const char *v = g_ptr_array_index(w->hdr.meta_values, i);
        if (*v) {
            g_string_append_c(s, ' ');
            tr_escape(s, v, TRUE);
        }
        g_string_append_c(s, '\n');
    }
    if (fwrite(s->str, 1, s->len, w->fp) != s->len)
        return w_io_error(w, error, "write failed");
    return TRUE;
}

static void w_bin_header(pmusim_trace_writer_t *w)
{
    uint8_t *p = w->obuf;
    memcpy(p, TR_MAGIC, TR_MAGIC_LEN);
    p += TR_MAGIC_LEN;
    p = put_varint(p, PMUSIM_TRACE_VERSION);
    *p++ = (uint8_t)w->hdr.isa;
    *p++ = (uint8_t)w->hdr.cpu;
    p = put_varint(p, w->hdr.nthreads);
    p = put_varint(p, w->hdr.flags);
    p = put_varint(p, w->hdr.meta_keys->len);
    w->olen = (size_t)(p - w->obuf);
    /* metadata may be up to 256 * 2 * 4 KiB: flush as we go */
    for (guint i = 0; i < w->hdr.meta_keys->len; i++) {
        const char *k = g_ptr_array_index(w->hdr.meta_keys, i);
        const char *v = g_ptr_array_index(w->hdr.meta_values, i);
        p = w->obuf + w->olen;
        p = put_bytes(p, k, strlen(k));
        p = put_bytes(p, v, strlen(v));
        w->olen = (size_t)(p - w->obuf);
        if (w->olen >= OBUF_FLUSH)
            w_zflush(w, ZSTD_e_continue, NULL);
    }
}

pmusim_trace_writer_t *pmusim_trace_writer_open(const char *path, pmusim_trace_form_t form,
                                                const pmusim_trace_header_t *hdr, GError **error)
{
    return pmusim_trace_writer_open_checked(path, form, hdr, NULL, error);
}

pmusim_trace_writer_t *pmusim_trace_writer_open_checked(const char *path,
                                                        pmusim_trace_form_t form,
                                                        const pmusim_trace_header_t *hdr,
                                                        const char *const *inputs, GError **error)
{
    pmusim_trace_header_t h = *hdr;
    /* a header read from an older version is written in the current one */
    h.version = PMUSIM_TRACE_VERSION;
    const char *bad = tr_header_check(&h);
    if (bad) {
        g_set_error(error, PMUSIM_TRACE_ERROR, PMUSIM_TRACE_ERROR_FORMAT, "%s: bad header: %s",
                    path, bad);
        return NULL;
    }
    GError *oerr = NULL;
    pmusim_outfile_t *out = pmusim_outfile_open(path, inputs, &oerr);
    if (!out) {
        /* keep the trace library's one error domain for its callers */
        g_set_error_literal(error, PMUSIM_TRACE_ERROR, PMUSIM_TRACE_ERROR_IO, oerr->message);
        g_error_free(oerr);
        return NULL;
    }
    pmusim_trace_writer_t *w = g_new0(pmusim_trace_writer_t, 1);
    w->path = g_strdup(path);
    w->form = form;
    tr_header_copy(&w->hdr, &h);
    w->out = out;
    w->fp = pmusim_outfile_fp(out);
    w->line = g_string_sized_new(512);
    if (form == PMUSIM_TRACE_TEXT) {
        if (!w_text_header(w, error)) {
            pmusim_trace_writer_close(w, NULL);
            return NULL;
        }
        return w;
    }
    w->zc = ZSTD_createCStream();
    /* Level 1 (zstd's "fast" strategy, a 32 KiB hash table): against level
     * 3 (double-fast, 768 KiB of tables) the compressor misses a 1 MiB
     * cache a tenth as often and takes half the CPU time per record (2-13 %
     * fewer instructions), for files 5-10 % larger (docs/PERFORMANCE.md,
     * "zstd: level, frames and literals").  The reader takes any level. */
    ZSTD_CCtx_setParameter(w->zc, ZSTD_c_compressionLevel, 1);
    ZSTD_CCtx_setParameter(w->zc, ZSTD_c_windowLog, 22);
    ZSTD_CCtx_setParameter(w->zc, ZSTD_c_checksumFlag, 1);
    w->obuf = g_malloc(OBUF_SIZE);
    w->zcap = ZSTD_CStreamOutSize();
    w->zout = g_malloc(w->zcap);
    w->codec = g_new0(tr_codec_t, 1);
    w->codec->ia64 = w->hdr.isa == PMUSIM_ISA_IA64;
    /* 16-byte aligned for the vectors of w_ent_t */
    w->went = g_aligned_alloc0(TR_CACHE_SIZE, sizeof(w_ent_t), 16);
    /* next_pos starts at 0 for every thread */
    for (size_t i = 0; i < TR_CACHE_SIZE; i++)
        w->went[i].next_e = &w->went[tr_cache_index(0)];
    for (size_t t = 0; t < PMUSIM_MAX_THREADS; t++)
        w->went_next[t] = &w->went[tr_cache_index(0)];
    w->ok_add = WC_A_ADD(w->codec->ia64) | W_LIM(W_OFF_A, thread, w->hdr.nthreads - 1);
    w->markers = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
    w_bin_header(w);
    return w;
}

uint64_t pmusim_trace_writer_records_written(const pmusim_trace_writer_t *w)
{
    return w->nrec;
}

gboolean pmusim_trace_writer_add_symbol(pmusim_trace_writer_t *w, uint64_t start, uint64_t end,
                                        const char *name, GError **error)
{
    const char *bad = NULL;
    if (w->failed)
        bad = "writer already failed";
    else if (start >= end)
        bad = "symbol range empty (start must be below end)";
    else if (!name || !*name || strlen(name) > TR_MAX_STRING)
        bad = "symbol name empty or longer than 4096 bytes";
    gboolean limit = !bad && (w->nsyms >= TR_MAX_SYMBOLS ||
                              w->sym_bytes + strlen(name) > TR_MAX_SYMBOL_BYTES);
    if (limit)
        bad = "more than 1048576 symbols or 64 MiB of symbol names";
    if (bad) {
        g_set_error(error, PMUSIM_TRACE_ERROR,
                    limit ? PMUSIM_TRACE_ERROR_LIMIT : PMUSIM_TRACE_ERROR_FORMAT,
                    "%s: symbol %u: %s", w->path, w->nsyms, bad);
        return FALSE;
    }
    w->nsyms++;
    w->sym_bytes += strlen(name);
    if (w->form == PMUSIM_TRACE_TEXT) {
        GString *s = w->line;
        g_string_printf(s, "symbol 0x%" PRIx64 " 0x%" PRIx64 " ", start, end);
        tr_escape(s, name, TRUE);
        g_string_append_c(s, '\n');
        if (fwrite(s->str, 1, s->len, w->fp) != s->len)
            return w_io_error(w, error, "write failed");
        return TRUE;
    }
    uint8_t *p = w->obuf + w->olen;
    *p++ = TR_OP_SYMBOL;
    p = put_varint(p, start);
    p = put_varint(p, end - start);
    p = put_bytes(p, name, strlen(name));
    w->olen = (size_t)(p - w->obuf);
    if (w->olen >= OBUF_FLUSH)
        return w_zflush(w, ZSTD_e_continue, error);
    return TRUE;
}

/* ---- binary records ---- */

/* Field f of the word at offset off, v (as W_MASK places it). */
#define W_FIELD(v, off, f) (((v) >> W_SHIFT(off, f)) & W_ONES(f))
/* All ones if flags f have the presence bit `bit`, else 0. */
#define W_PRESENT(f, bit) (-(uint64_t)(((f) / (bit)) & 1u))

/* The field mask and the fields of a record whose static fields differ
 * from its cache entry `e`, and the entry's new static words. */
G_ALWAYS_INLINE static inline uint8_t *enc_fields(w_ent_t *e, uint8_t *p, const pmusim_rec_t *r)
{
    unsigned f = r->flags;
    uint64_t mm = W_PRESENT(f, PMUSIM_F_MEM);
    uint64_t bm = W_PRESENT(f, PMUSIM_F_BRANCH);
    uint64_t om = W_PRESENT(f, PMUSIM_F_OFFCORE);
    uint64_t wa = w_word(r, W_OFF_A) & WK_A;
    uint64_t wm = w_word(r, W_OFF_M) & mm;
    uint64_t target = r->br.target & bm;
    uint64_t wb = w_word(r, W_OFF_B) & (WK_BKIND | WK_BDYN) & bm;
    uint64_t wo = w_word(r, W_OFF_O) & (WK_OCLAT | WK_OCBITS) & om;
    uint64_t xa = wa ^ e->a, xm = wm ^ e->m, xb = wb ^ e->b, xo = wo ^ e->o;
    const uint8_t dep = (uint8_t)(r->mem.dep & mm);
    const uint8_t bdep = (uint8_t)(r->br.dep & bm);
    const uint8_t rdep = r->mem.rdep;
    unsigned m = ((xa & WK_FLAGS) ? TR_M_FLAGS : 0) | ((xa & WK_PLM) ? TR_M_PLM : 0) |
                 (dep != e->dep ? TR_M_MEMDEP : 0) | (bdep != e->bdep ? TR_M_BRDEP : 0) |
                 (rdep != e->rdep ? TR_M_RDEP : 0) |
                 ((xa & WK_UNIT) ? TR_M_UNIT : 0) | ((xa & WK_LEN) ? TR_M_LEN : 0) |
                 (r->insn != e->insn ? TR_M_INSN : 0) | (r->uops != e->uops ? TR_M_UOPS : 0) |
                 ((xm & WK_MSTAT) ? TR_M_MEMSTATIC : 0) |
                 ((xb & WK_BKIND) ? TR_M_BRKIND : 0) | (target != e->target ? TR_M_BRTARGET : 0) |
                 ((xo & WK_OCLAT) ? TR_M_OCLAT : 0) | ((xo & WK_OCBITS) ? TR_M_OCBITS : 0);
    p = put_varint(p, m);
    if (m & TR_M_FLAGS) p = put_varint(p, f);
    if (m & TR_M_PLM) *p++ = r->plm;
    if (m & TR_M_UNIT) *p++ = r->unit;
    if (m & TR_M_INSN) p = put_varint(p, r->insn);
    if (m & TR_M_LEN) *p++ = r->len;
    if (m & TR_M_UOPS) p = put_varint(p, r->uops);
    if (m & TR_M_MEMSTATIC) {
        *p++ = (uint8_t)(r->mem.size & mm);
        *p++ = (uint8_t)(r->mem.is_store & mm);
    }
    if (m & TR_M_BRKIND) *p++ = (uint8_t)(r->br.kind & bm);
    if (m & TR_M_BRTARGET) p = put_varint(p, tr_zigzag((int64_t)(target - r->ip)));
    if (m & TR_M_OCLAT) p = put_varint(p, r->oc.latency & om);
    if (m & TR_M_OCBITS) {
        *p++ = (uint8_t)(r->oc.req & om);
        *p++ = (uint8_t)(r->oc.supplier & om);
        *p++ = (uint8_t)(r->oc.snoop & om);
    }
    p = enc_deps(p, e, m, dep, bdep, rdep);
    e->a = wa;
    e->insn = r->insn;
    e->uops = r->uops;
    e->target = target;
    e->o = wo;
    return p;
}

/* What follows the field mask in an INSN record (header byte at o, bits so
 * far h, output at p): the memory part's dynamic fields and address, the
 * branch outcome; then the entry's dynamic state and the thread's next
 * position and predicted entry.  wm, wb and target are the record's
 * canonical words. */
G_ALWAYS_INLINE static inline uint8_t *enc_tail(w_ent_t *went, w_ent_t **went_next, w_ent_t *e,
                                                uint64_t *next_pos, const gboolean ia64,
                                                uint8_t *o, uint8_t *p, unsigned h,
                                                const pmusim_rec_t *r, uint64_t mm, uint64_t wm,
                                                uint64_t wb, uint64_t xb, uint64_t target)
{
    uint64_t xm = wm ^ e->m;
    uint8_t alat = (uint8_t)(r->mem.alat & mm);
    if ((xm & WK_MDYN) | (uint8_t)(alat ^ e->alat)) {
        h |= TR_H_MEMDYN;
        *p++ = (uint8_t)(W_FIELD(wm, W_OFF_M, mem.level) | W_FIELD(wm, W_OFF_M, mem.tlb) << 3 |
                         (unsigned)alat << 5);
        p = put_varint(p, W_FIELD(wm, W_OFF_M, mem.latency));
        e->alat = alat;
    }
    e->m = wm;
    uint64_t addr = r->mem.addr & mm;
    uint64_t apred = e->addr + (uint64_t)e->stride;
    if (addr != apred) {
        h |= TR_H_MEMADDR;
        p = put_varint(p, tr_zigzag((int64_t)(addr - apred)));
    }
    if (xb & WK_BDYN) {
        h |= TR_H_BRDYN;
        *p++ = (uint8_t)(W_FIELD(wb, W_OFF_B, br.taken) | W_FIELD(wb, W_OFF_B, br.dir_ok) << 1 |
                         W_FIELD(wb, W_OFF_B, br.tgt_ok) << 2 |
                         W_FIELD(wb, W_OFF_B, br.detect) << 3);
    }
    e->b = wb;
    *o = (uint8_t)h;
    e->stride = (int64_t)(addr - e->addr);
    e->addr = addr;
    /* tr_next_pos() of the canonical record: a taken branch goes to its
     * target (wb and target are 0 without a branch part) */
    uint64_t ip = r->ip, fall;
    if (ia64) {
        unsigned last = r->unit == PMUSIM_UNIT_LX ? 2u : r->slot;
        fall = last >= 2 ? ip + 16 : (ip | (last + 1));
    } else {
        fall = ip + r->len;
    }
    uint64_t next = (wb & W_MASK(W_OFF_B, br.taken)) ? target : fall;
    next_pos[r->thread] = next;
    e->next = next;
    e->next_e = &went[tr_cache_index(next)];
    went_next[r->thread] = e->next_e;
    e->mm = mm;
    for (unsigned i = 0; i < W_NRAW; i++)
        e->raw[i] = w_v16_at(r, w_raw_off[i]);
    return p;
}

/* enc_insn() after the position for a record whose static fields differ
 * from its entry: out of line, so that the usual case makes no call and
 * keeps its values in registers. */
G_NO_INLINE static uint8_t *enc_insn_fields(w_ent_t *went, w_ent_t **went_next, w_ent_t *e,
                                            uint64_t *next_pos, gboolean ia64,
                                            uint8_t *o, uint8_t *p, unsigned h,
                                            const pmusim_rec_t *r)
{
    unsigned f = r->flags;
    uint64_t mm = W_PRESENT(f, PMUSIM_F_MEM);
    uint64_t bm = W_PRESENT(f, PMUSIM_F_BRANCH);
    uint64_t wm = w_word(r, W_OFF_M) & mm;
    uint64_t wb = w_word(r, W_OFF_B) & (WK_BKIND | WK_BDYN) & bm;
    uint64_t xb = wb ^ e->b;
    p = enc_fields(e, p, r);
    return ia64 ? enc_tail(went, went_next, e, next_pos, TRUE, o, p, h | TR_H_FIELDS, r, mm, wm,
                           wb, xb, r->br.target & bm)
                : enc_tail(went, went_next, e, next_pos, FALSE, o, p, h | TR_H_FIELDS, r, mm, wm,
                           wb, xb, r->br.target & bm);
}

/* Encodes INSN r after a record at cycle `cycle`; the caller sets the
 * codec's cycle to r's.  `ia64` is a constant where it is inlined. */
G_ALWAYS_INLINE static inline uint8_t *enc_insn(w_ent_t *went, w_ent_t **went_next,
                                                uint64_t *next_pos,
                                                const gboolean ia64, uint64_t cycle, uint8_t *o,
                                                const pmusim_rec_t *r, unsigned *disorder)
{
    uint8_t *p = o + 1;
    unsigned h = 0;
    uint64_t d = r->cycle - cycle;
    if (d < 3) {
        h |= (unsigned)d;
    } else {
        /* a record before the last one's cycle wraps around: tested only
         * here, off the common deltas (w_run()'s trusted order check) */
        *disorder |= (int64_t)d < 0;
        h |= 3;
        p = put_varint(p, d);
    }
    uint64_t pos = ia64 ? r->ip | r->slot : r->ip;
    uint64_t pred = next_pos[r->thread];
    w_ent_t *e = went_next[r->thread];
    if (pos != pred) {
        h |= TR_H_POS;
        p = put_varint(p, tr_zigzag((int64_t)(pos - pred)));
        e = &went[tr_cache_index(pos)];
    }
    /* the canonical words (the memory word is all fields: WK_MSTAT |
     * WK_MDYN covers it) */
    w_v16 x = ((w_v16_at(r, w_raw_off[0]) ^ e->raw[0]) & w_raw_mask[0]) |
              (w_v16_at(r, w_raw_off[1]) ^ e->raw[1]) | (w_v16_at(r, w_raw_off[2]) ^ e->raw[2]) |
              ((w_v16_at(r, w_raw_off[3]) ^ e->raw[3]) & w_raw_mask[3]) |
              ((w_v16_at(r, w_raw_off[4]) ^ e->raw[4]) & w_raw_mask[4]) |
              ((w_v16_at(r, w_raw_off[5]) ^ e->raw[5]) & w_raw_mask[5]);
    uint64_t xlo, xhi;
    memcpy(&xlo, &x, 8);
    memcpy(&xhi, (const char *)&x + 8, 8);
    if (G_LIKELY(!(xlo | xhi))) {
        /* a repeat: enc_tail() with no field, memory or branch change */
        uint64_t addr = r->mem.addr & e->mm;
        uint64_t apred = e->addr + (uint64_t)e->stride;
        if (addr != apred) {
            h |= TR_H_MEMADDR;
            p = put_varint(p, tr_zigzag((int64_t)(addr - apred)));
        }
        *o = (uint8_t)h;
        e->stride = (int64_t)(addr - e->addr);
        e->addr = addr;
        next_pos[r->thread] = e->next;
        went_next[r->thread] = e->next_e;
        return p;
    }
    const w_keep_t *k = &w_keep[r->flags & 7u];
    uint64_t mm = k->m;
    uint64_t wm = w_word(r, W_OFF_M) & mm;
    uint64_t wb = w_word(r, W_OFF_B) & k->b;
    uint64_t target = r->br.target & k->target;
    uint64_t xb = wb ^ e->b;
    uint64_t diff = ((w_word(r, W_OFF_A) & WK_A) ^ e->a) | (r->insn ^ e->insn) |
                    (uint64_t)(r->uops ^ e->uops) | ((wm ^ e->m) & WK_MSTAT) |
                    (xb & WK_BKIND) | ((w_word(r, W_OFF_O) & k->o) ^ e->o);
    /* the three dependence fields: distances that change from one run of
     * an instruction to the next (docs/CAPTURE.md, "Dependences of other
     * instructions"), the usual reason for a field mask in a capture */
    const uint8_t dep = (uint8_t)(r->mem.dep & mm);
    const uint8_t bdep = (uint8_t)(r->br.dep & k->target);
    const uint8_t rdep = r->mem.rdep;
    unsigned xd = (unsigned)(dep ^ e->dep) | (unsigned)(bdep ^ e->bdep) |
                  (unsigned)(rdep ^ e->rdep);
    uint64_t xt = target ^ e->target;
    if (G_UNLIKELY(diff | xt | xd)) {
        if (diff)
            return enc_insn_fields(went, went_next, e, next_pos, ia64, o, p, h, r);
        /* only the branch target (an indirect branch, or another branch
         * at this entry) or the dependence fields differ: the mask in two
         * bytes (every bit of it is at least 0x80), then the fields in
         * enc_fields()'s order */
        _Static_assert(TR_M_BRTARGET >= 0x80 && TR_M_MEMDEP >= 0x80 && TR_M_BRDEP >= 0x80 &&
                           TR_M_RDEP >= 0x80 && TR_M_BRTARGET < TR_M_MEMDEP &&
                           TR_M_MEMDEP < TR_M_BRDEP && TR_M_BRDEP < TR_M_RDEP &&
                           TR_M_RDEP < 0x4000,
                       "mask width and field order");
        unsigned m = (xt ? TR_M_BRTARGET : 0) | (dep != e->dep ? TR_M_MEMDEP : 0) |
                     (bdep != e->bdep ? TR_M_BRDEP : 0) | (rdep != e->rdep ? TR_M_RDEP : 0);
        h |= TR_H_FIELDS;
        p[0] = (uint8_t)((m & 0x7fu) | 0x80u);
        p[1] = (uint8_t)(m >> 7);
        p += 2;
        if (xt) {
            p = put_varint(p, tr_zigzag((int64_t)(target - r->ip)));
            e->target = target;
        }
        p = enc_deps(p, e, m, dep, bdep, rdep);
    }
    return enc_tail(went, went_next, e, next_pos, ia64, o, p, h, r, mm, wm, wb, xb, target);
}

static gboolean w_bin_rec(pmusim_trace_writer_t *w, const pmusim_rec_t *r, GError **error)
{
    tr_codec_t *c = w->codec;
    uint8_t *p = w->obuf + w->olen;
    if (r->thread != c->thread) {
        *p++ = (uint8_t)(TR_OP_THREAD_SEL | r->thread);
        c->thread = r->thread;
    }
    if (r->kind == PMUSIM_REC_INSN) {
        unsigned checked = 0; /* w_rec_bad() tested the order */
        p = enc_insn(w->went, w->went_next, c->next_pos, c->ia64, c->cycle, p, r, &checked);
        c->cycle = r->cycle;
    } else {
        uint64_t d = r->cycle - c->cycle;
        c->cycle = r->cycle;
        switch (r->kind) {
        case PMUSIM_REC_IDLE:
            *p++ = TR_OP_IDLE;
            p = put_varint(p, d);
            p = put_varint(p, r->n);
            *p++ = r->plm; /* v2 */
            break;
        case PMUSIM_REC_MEM:
            /* same thread and cycle as the INSN before it: no delta, no select */
            *p++ = r->mem.dep ? TR_OP_MEMDEP : TR_OP_MEM;
            *p++ = tr_mem_byte(&r->mem);
            *p++ = r->mem.size;
            if (r->mem.dep)
                *p++ = r->mem.dep;
            p = put_varint(p, r->mem.latency);
            p = put_varint(p, tr_zigzag((int64_t)(r->mem.addr - w->prev.mem.addr)));
            break;
        case PMUSIM_REC_THREAD:
            *p++ = TR_OP_THREADSTATE;
            p = put_varint(p, d);
            *p++ = (uint8_t)r->n;
            break;
        case PMUSIM_REC_EVENT:
            *p++ = TR_OP_EVENT;
            p = put_varint(p, d);
            p = put_varint(p, r->ev_code);
            p = put_varint(p, r->ev_umask);
            p = put_varint(p, r->n);
            *p++ = r->plm; /* v2 */
            break;
        default: { /* MARKER */
            *p++ = TR_OP_MARKER;
            p = put_varint(p, d);
            gpointer idx = g_hash_table_lookup(w->markers, r->name);
            if (idx) {
                p = put_varint(p, GPOINTER_TO_UINT(idx) - 1);
            } else {
                guint n = g_hash_table_size(w->markers);
                if (n >= TR_MAX_MARKER_NAMES) {
                    w->failed = TRUE;
                    g_set_error(error, PMUSIM_TRACE_ERROR, PMUSIM_TRACE_ERROR_LIMIT,
                                "%s: record %" PRIu64 ": more than %u distinct marker names",
                                w->path, w->nrec, TR_MAX_MARKER_NAMES);
                    return FALSE;
                }
                g_hash_table_insert(w->markers, g_strdup(r->name), GUINT_TO_POINTER(n + 1));
                p = put_varint(p, n);
                p = put_bytes(p, r->name, strlen(r->name));
            }
            break;
        }
        }
    }
    w->olen = (size_t)(p - w->obuf);
    if (w->olen >= OBUF_FLUSH)
        return w_zflush(w, ZSTD_e_continue, error);
    return TRUE;
}

/* ---- text records (canonical form, FORMAT.md "Text form") ----
 *
 * A record's line is built in a stack buffer by the small appenders below,
 * not by printf: `trace dump` and `trace convert --to text` spent about
 * 8,400 host instructions a record in g_string_append_printf's vasprintf,
 * malloc and free (session 23, callgrind).  A line without a MARKER's name
 * is bounded: every literal below (272 bytes), every number at its widest
 * (20 decimal or 16 hex digits) and every table name at 16 bytes (the
 * longest, traces/names.c, is 14) add up to 936 even with all the kinds'
 * branches at once, so TEXT_LINE_MAX holds any line. */

#define TEXT_LINE_MAX 1024

static inline char *put_s(char *p, const char *s)
{
    size_t n = strlen(s);
    memcpy(p, s, n);
    return p + n;
}

/* a literal of known length */
#define PUT_LIT(p, lit) (memcpy((p), (lit), sizeof(lit) - 1), (p) + sizeof(lit) - 1)

static inline char *put_u(char *p, uint64_t v)
{
    char t[20];
    int n = 0;
    do {
        t[n++] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    while (n)
        *p++ = t[--n];
    return p;
}

/* lower-case hex without 0x, at least `width` digits (zero-padded) */
static inline char *put_x(char *p, uint64_t v, int width)
{
    static const char hex[] = "0123456789abcdef";
    char t[16];
    int n = 0;
    do {
        t[n++] = hex[v & 15];
        v >>= 4;
    } while (v);
    while (n < width)
        t[n++] = '0';
    while (n)
        *p++ = t[--n];
    return p;
}

static char *fmt_mem(char *p, const pmusim_mem_t *m)
{
    p = PUT_LIT(p, " mem=");
    p = put_s(p, m->is_store ? "st" : "ld");
    p = PUT_LIT(p, " addr=0x");
    p = put_x(p, m->addr, 1);
    p = PUT_LIT(p, " size=");
    p = put_u(p, m->size);
    p = PUT_LIT(p, " lvl=");
    p = put_s(p, tr_level_names[m->level]);
    p = PUT_LIT(p, " lat=");
    p = put_u(p, m->latency);
    p = PUT_LIT(p, " tlb=");
    p = put_s(p, tr_tlb_names[m->tlb]);
    if (m->alat) {
        p = PUT_LIT(p, " alat=");
        p = put_s(p, tr_alat_names[m->alat]);
    }
    if (m->dep) {
        p = PUT_LIT(p, " dep=");
        p = put_u(p, m->dep);
    }
    return p;
}

static char *fmt_insn(char *p, gboolean ia64, const pmusim_rec_t *r)
{
    p = PUT_LIT(p, " ip=0x");
    p = put_x(p, r->ip, 1);
    if (ia64 || r->slot) {
        p = PUT_LIT(p, " slot=");
        p = put_u(p, r->slot);
    }
    if (ia64 || r->unit) {
        p = PUT_LIT(p, " unit=");
        p = put_s(p, tr_unit_names[r->unit]);
    }
    if (ia64 || r->insn) {
        p = PUT_LIT(p, " enc=0x");
        p = put_x(p, r->insn, 11);
    }
    if (!ia64 || r->len) {
        p = PUT_LIT(p, " len=");
        p = put_u(p, r->len);
    }
    if (r->uops) {
        p = PUT_LIT(p, " uops=");
        p = put_u(p, r->uops);
    }
    p = PUT_LIT(p, " plm=");
    p = put_u(p, r->plm);
    if (r->flags & PMUSIM_F_IA32)
        p = PUT_LIT(p, " ia32");
    if (r->flags & PMUSIM_F_NOP)
        p = PUT_LIT(p, " nop");
    if (r->flags & PMUSIM_F_PRED_OFF)
        p = PUT_LIT(p, " predoff");
    if (r->flags & PMUSIM_F_FP)
        p = PUT_LIT(p, " fp");
    if (r->flags & PMUSIM_F_FPCLASS_MASK) {
        p = PUT_LIT(p, " fpc=");
        p = put_s(p, tr_fpclass_names[PMUSIM_REC_FPCLASS(r->flags)]);
    }
    if ((r->flags & PMUSIM_F_OPKIND_MASK) && PMUSIM_REC_OPKIND(r->flags) < PMUSIM_OPK_COUNT) {
        p = PUT_LIT(p, " opk=");
        p = put_s(p, tr_opkind_names[PMUSIM_REC_OPKIND(r->flags)]);
    }
    if (r->flags & PMUSIM_F_LOCK)
        p = PUT_LIT(p, " lock");
    if (r->flags & PMUSIM_F_STFWD_BLOCK)
        p = PUT_LIT(p, " stfwd");
    /* every bit has a name since session 19 (bit 15, stfwd): xflags= stays
     * a key the reader takes, the writer no longer needs it */
    const unsigned xf = r->flags & ~(0x7fu | PMUSIM_F_FPCLASS_MASK | PMUSIM_F_OPKIND_MASK |
                                     PMUSIM_F_LOCK | PMUSIM_F_STFWD_BLOCK);
    if (xf) {
        p = PUT_LIT(p, " xflags=0x");
        p = put_x(p, xf, 1);
    }
    if (r->flags & PMUSIM_F_MEM)
        p = fmt_mem(p, &r->mem);
    if (r->flags & PMUSIM_F_BRANCH) {
        p = PUT_LIT(p, " br=");
        p = put_s(p, tr_brkind_names[r->br.kind]);
        p = PUT_LIT(p, " taken=");
        p = put_u(p, r->br.taken);
        p = PUT_LIT(p, " target=0x");
        p = put_x(p, r->br.target, 1);
        p = PUT_LIT(p, " dir=");
        p = put_s(p, r->br.dir_ok ? "ok" : "miss");
        p = PUT_LIT(p, " tgt=");
        p = put_s(p, r->br.tgt_ok ? "ok" : "miss");
        p = PUT_LIT(p, " det=");
        p = put_s(p, tr_detect_names[r->br.detect]);
        if (r->br.dep) {
            p = PUT_LIT(p, " bdep=");
            p = put_u(p, r->br.dep);
        }
    }
    if (r->mem.rdep) {
        p = PUT_LIT(p, " rdep=");
        p = put_u(p, r->mem.rdep);
    }
    if (r->flags & PMUSIM_F_OFFCORE) {
        p = PUT_LIT(p, " oc.req=");
        p = put_u(p, r->oc.req);
        p = PUT_LIT(p, " oc.sup=");
        p = put_u(p, r->oc.supplier);
        if (r->oc.snoop == PMUSIM_OFFCORE_NONE) {
            p = PUT_LIT(p, " oc.snoop=none");
        } else {
            p = PUT_LIT(p, " oc.snoop=");
            p = put_u(p, r->oc.snoop);
        }
        p = PUT_LIT(p, " oc.lat=");
        p = put_u(p, r->oc.latency);
    }
    return p;
}

static gboolean w_text_rec(pmusim_trace_writer_t *w, const pmusim_rec_t *r, GError **error)
{
    char buf[TEXT_LINE_MAX];
    char *p = buf;
    p = put_u(p, r->cycle);
    *p++ = ' ';
    p = put_u(p, r->thread);
    *p++ = ' ';
    p = put_s(p, tr_kind_names[r->kind]);
    switch (r->kind) {
    case PMUSIM_REC_INSN:
        p = fmt_insn(p, w->hdr.isa == PMUSIM_ISA_IA64, r);
        w->cur_plm[r->thread] = r->plm;
        break;
    case PMUSIM_REC_MEM: p = fmt_mem(p, &r->mem); break;
    case PMUSIM_REC_IDLE:
        p = PUT_LIT(p, " n=");
        p = put_u(p, r->n);
        break;
    case PMUSIM_REC_THREAD: p = r->n ? PUT_LIT(p, " active") : PUT_LIT(p, " inactive"); break;
    case PMUSIM_REC_EVENT:
        p = PUT_LIT(p, " code=0x");
        p = put_x(p, r->ev_code, 1);
        p = PUT_LIT(p, " umask=0x");
        p = put_x(p, r->ev_umask, 1);
        p = PUT_LIT(p, " n=");
        p = put_u(p, r->n);
        break;
    default: {
        /* a name of any length (a MARKER's text): the GString */
        GString *s = w->line;
        g_string_truncate(s, 0);
        g_string_append_len(s, buf, p - buf);
        g_string_append_c(s, ' ');
        tr_escape(s, r->name, TRUE);
        g_string_append_c(s, '\n');
        if (fwrite(s->str, 1, s->len, w->fp) != s->len)
            return w_io_error(w, error, "write failed");
        return TRUE;
    }
    }
    /* IDLE and EVENT: plm only where it differs from the default, the
     * thread's current level (FORMAT.md §3) */
    if ((r->kind == PMUSIM_REC_IDLE || r->kind == PMUSIM_REC_EVENT) &&
        r->plm != w->cur_plm[r->thread]) {
        p = PUT_LIT(p, " plm=");
        p = put_u(p, r->plm);
    }
    *p++ = '\n';
    g_assert((size_t)(p - buf) <= sizeof buf);
    if (fwrite(buf, 1, (size_t)(p - buf), w->fp) != (size_t)(p - buf))
        return w_io_error(w, error, "write failed");
    return TRUE;
}

/* The previous record as the checks and the MEM encoding see it: the fields
 * they use of its canonical form (tr_rec_normalize()). */
static inline void w_note_prev(pmusim_trace_writer_t *w, const pmusim_rec_t *r)
{
    pmusim_rec_t *p = &w->prev;
    p->kind = r->kind;
    p->thread = r->thread;
    p->cycle = r->cycle;
    switch (r->kind) {
    case PMUSIM_REC_INSN:
        p->flags = r->flags;
        p->ip = r->ip;
        p->plm = r->plm;
        p->mem.addr = (r->flags & PMUSIM_F_MEM) ? r->mem.addr : 0;
        break;
    case PMUSIM_REC_MEM: /* ip and plm stay its instruction's */
        p->flags = PMUSIM_F_MEM;
        p->mem.addr = r->mem.addr;
        break;
    default:
        p->flags = 0;
        p->ip = 0;
        p->plm = r->kind == PMUSIM_REC_IDLE || r->kind == PMUSIM_REC_EVENT ? r->plm : 0;
        p->mem.addr = 0;
        break;
    }
}

/* TRUE if `r`, an INSN after a record at cycle `last_cycle`, passes the
 * checks of w_rec_bad() (tr_rec_check() and the cycle order): the byte
 * fields a word at a time (W_OVER), the memory and branch parts only when
 * present, as there.  w->ok_add holds the addend of the first word for the
 * header's thread count. */
G_ALWAYS_INLINE static inline gboolean w_insn_ok(const pmusim_trace_writer_t *w,
                                                 const pmusim_rec_t *r, const gboolean ia64,
                                                 uint64_t last_cycle)
{
    uint64_t ya = w_word(r, W_OFF_A) & WC_A_SEL;
    uint64_t bad = W_OVER(ya, w->ok_add, WC_A_TOP) | (r->insn >> 41) | (r->cycle < last_cycle) |
                   ((r->flags & PMUSIM_F_OPKIND_MASK) >= (PMUSIM_OPK_COUNT << PMUSIM_F_OPKIND_SHIFT));
    if (r->flags & PMUSIM_F_MEM) {
        uint64_t ym = w_word(r, W_OFF_M) & WC_M_SEL;
        bad |= W_OVER(ym, WC_M_ADD, WC_M_TOP) | (r->mem.alat >= PMUSIM_ALAT_COUNT) |
               (r->mem.dep && (ia64 | r->mem.is_store | (r->mem.dep > PMUSIM_MEM_MAX_DEP)));
        if (ia64) /* WC_M_TOP bounds the level by PMUSIM_LVL_COUNT; lfb is x86's */
            bad |= r->mem.level >= tr_level_limit(TRUE);
    }
    if (r->flags & PMUSIM_F_BRANCH) {
        uint64_t yb = w_word(r, W_OFF_B) & WC_B_SEL;
        bad |= W_OVER(yb, WC_B_ADD, WC_B_TOP) |
               (r->br.dep && tr_br_dep_check(ia64, r->br.kind, r->br.dep) != NULL);
    }
    if (G_UNLIKELY(r->mem.rdep))
        bad |= tr_rdep_check(ia64, r->flags, r->mem.is_store, r->mem.rdep) != NULL;
    if (ia64)
        bad |= r->ip & 15;
    return !bad;
}

/* TRUE if the memory part `m` of a MEM record passes tr_mem_check(). */
static inline gboolean w_mem_ok(const pmusim_mem_t *m, const gboolean ia64)
{
    return !((m->level >= tr_level_limit(ia64)) |
             (m->tlb >= PMUSIM_TLB_COUNT) | (m->alat >= PMUSIM_ALAT_COUNT) | (m->is_store > 1) |
             (m->dep && (ia64 | m->is_store | (m->dep > PMUSIM_MEM_MAX_DEP))) | (m->rdep != 0));
}

/* NULL or what is wrong with the next record (FORMAT.md: everything the
 * reader refuses). */
static const char *w_rec_bad(const pmusim_trace_writer_t *w, const pmusim_rec_t *r)
{
    const char *bad = tr_rec_check(&w->hdr, r);
    if (!bad && r->cycle < w->last_cycle)
        bad = "cycle below the previous record's (records must be in non-decreasing cycle "
              "order)";
    if (!bad && r->kind == PMUSIM_REC_MEM)
        bad = tr_mem_follows(w->nrec ? &w->prev : NULL, r);
    return bad;
}

/* Encodes a run of INSN, MEM, IDLE, EVENT and THREAD records of the binary
 * form, from recs[0], up to n records; returns how many it wrote.  It stops
 * before a MARKER (or a record of no known kind) and, unless `trusted`,
 * before a record it cannot show to be valid (the general path in w_write()
 * then encodes it or says what is wrong), and after the record that fills
 * the output buffer.  The codec state lives in
 * locals (the output bytes may alias anything the compiler cannot see
 * through) and is written back at the end: the same state, prev included,
 * as the general path leaves after the same records.  `ia64` and `trusted`
 * are constants in each of the four instantiations below. */
G_ALWAYS_INLINE static inline size_t w_run(pmusim_trace_writer_t *w, const pmusim_rec_t *recs,
                                           size_t n, const gboolean ia64, const gboolean trusted)
{
    tr_codec_t *c = w->codec;
    w_ent_t *went = w->went;
    w_ent_t **went_next = w->went_next;
    uint64_t *next_pos = c->next_pos;
    uint64_t cycle = c->cycle;
    unsigned thread = c->thread;
    uint8_t *p = w->obuf + w->olen;
    uint8_t *const lim = w->obuf + OBUF_FLUSH;
    const pmusim_rec_t *r = recs, *const end = recs + n;
    /* trusted: the order is the producer's promise, tested at the cost of
     * an OR per record and reported after the run (w_write()) */
    unsigned disorder = 0;
    /* In chunks of records that cannot reach the flush mark before their
     * last one (W_MAX_REC bytes each at most), so that only a chunk's end
     * compares with it: the run ends after the same record as with a test
     * after each. */
    while (r < end) {
        size_t room = (size_t)(lim - p) / W_MAX_REC;
        const pmusim_rec_t *stop = room == 0 ? r + 1 : room < (size_t)(end - r) ? r + room : end;
        for (; r < stop; r++) {
            if (r->kind == PMUSIM_REC_INSN) {
                if (!trusted && !w_insn_ok(w, r, ia64, cycle))
                    goto out;
                if (r->thread != thread) {
                    *p++ = (uint8_t)(TR_OP_THREAD_SEL | r->thread);
                    thread = r->thread;
                }
                p = enc_insn(went, went_next, next_pos, ia64, cycle, p, r, &disorder);
                cycle = r->cycle;
            } else if (r->kind == PMUSIM_REC_MEM) {
                /* the record before it, as tr_mem_follows() and the address
                 * delta see it: an INSN with a memory part or a MEM (its thread
                 * and cycle are the codec's) */
                const pmusim_rec_t *q = r > recs ? r - 1 : &w->prev;
                if (!trusted && !((r > recs || w->nrec) &&
                                  ((q->kind == PMUSIM_REC_INSN && (q->flags & PMUSIM_F_MEM)) ||
                                   q->kind == PMUSIM_REC_MEM) &&
                                  r->thread == thread && r->cycle == cycle && w_mem_ok(&r->mem, ia64)))
                    goto out;
                if (trusted)
                    disorder |= (r->cycle != cycle) | (r->thread != thread);
                uint64_t base = q->kind == PMUSIM_REC_MEM || (q->kind == PMUSIM_REC_INSN &&
                                                              (q->flags & PMUSIM_F_MEM))
                                    ? q->mem.addr
                                    : 0;
                /* as w_bin_rec() */
                if (r->thread != thread) {
                    *p++ = (uint8_t)(TR_OP_THREAD_SEL | r->thread);
                    thread = r->thread;
                }
                cycle = r->cycle;
                *p++ = r->mem.dep ? TR_OP_MEMDEP : TR_OP_MEM;
                *p++ = tr_mem_byte(&r->mem);
                *p++ = r->mem.size;
                if (r->mem.dep)
                    *p++ = r->mem.dep;
                p = put_varint(p, r->mem.latency);
                p = put_varint(p, tr_zigzag((int64_t)(r->mem.addr - base)));
            } else if (r->kind == PMUSIM_REC_IDLE || r->kind == PMUSIM_REC_EVENT ||
                       r->kind == PMUSIM_REC_THREAD) {
                /* the checks of tr_rec_check() and the cycle order */
                if (!trusted &&
                    ((r->thread >= w->hdr.nthreads) | (r->cycle < cycle) |
                     (r->kind == PMUSIM_REC_THREAD ? r->n > 1
                      : (r->plm > 3) | (r->kind == PMUSIM_REC_IDLE &&
                                        (r->n == 0 || r->cycle + r->n < r->cycle)))))
                    goto out;
                if (trusted)
                    disorder |= r->cycle < cycle;
                /* as w_bin_rec() */
                if (r->thread != thread) {
                    *p++ = (uint8_t)(TR_OP_THREAD_SEL | r->thread);
                    thread = r->thread;
                }
                uint64_t d = r->cycle - cycle;
                cycle = r->cycle;
                if (r->kind == PMUSIM_REC_IDLE) {
                    *p++ = TR_OP_IDLE;
                    p = put_varint(p, d);
                    p = put_varint(p, r->n);
                    *p++ = r->plm;
                } else if (r->kind == PMUSIM_REC_EVENT) {
                    *p++ = TR_OP_EVENT;
                    p = put_varint(p, d);
                    p = put_varint(p, r->ev_code);
                    p = put_varint(p, r->ev_umask);
                    p = put_varint(p, r->n);
                    *p++ = r->plm;
                } else {
                    *p++ = TR_OP_THREADSTATE;
                    p = put_varint(p, d);
                    *p++ = (uint8_t)r->n;
                }
            } else {
                goto out; /* MARKER: w_bin_rec() */
            }
        }
        if (p >= lim)
            break;
    }
out:;
    size_t done = (size_t)(r - recs);
    if (trusted && disorder)
        w->disorder = TRUE;
    if (done) {
        c->cycle = cycle;
        c->thread = thread;
        w->olen = (size_t)(p - w->obuf);
        w->nrec += done;
        w->last_cycle = cycle;
        /* prev as w_note_prev() of every record leaves it: the last record
         * that is no MEM, then the MEM records after it (which keep its ip
         * and plm) */
        const pmusim_rec_t *q = r - 1;
        while (q > recs && q->kind == PMUSIM_REC_MEM)
            q--;
        if (q->kind != PMUSIM_REC_MEM)
            w_note_prev(w, q);
        if (q != r - 1 || q->kind == PMUSIM_REC_MEM)
            w_note_prev(w, r - 1);
    }
    return done;
}

G_NO_INLINE static size_t w_run_x86(pmusim_trace_writer_t *w, const pmusim_rec_t *recs, size_t n)
{
    return w_run(w, recs, n, FALSE, FALSE);
}

G_NO_INLINE static size_t w_run_ia64(pmusim_trace_writer_t *w, const pmusim_rec_t *recs, size_t n)
{
    return w_run(w, recs, n, TRUE, FALSE);
}

G_NO_INLINE static size_t w_run_x86_trusted(pmusim_trace_writer_t *w, const pmusim_rec_t *recs,
                                           size_t n)
{
    return w_run(w, recs, n, FALSE, TRUE);
}

G_NO_INLINE static size_t w_run_ia64_trusted(pmusim_trace_writer_t *w, const pmusim_rec_t *recs,
                                            size_t n)
{
    return w_run(w, recs, n, TRUE, TRUE);
}

/* A trusted producer's records broke the order (w->disorder): the writer
 * fails, so that the output is not kept (an internal error: the reader
 * would refuse the file). */
static gboolean w_disorder(pmusim_trace_writer_t *w, GError **error)
{
    w->failed = TRUE;
    g_set_error(error, PMUSIM_TRACE_ERROR, PMUSIM_TRACE_ERROR_FORMAT,
                "%s: near record %" PRIu64 ": the producer wrote records out of cycle order, "
                "or a MEM record off its instruction's thread or cycle (an internal error: "
                "please report it)",
                w->path, w->nrec);
    return FALSE;
}

static gboolean w_write(pmusim_trace_writer_t *w, const pmusim_rec_t *recs, size_t n,
                        gboolean trusted, GError **error)
{
    if (w->failed) {
        g_set_error(error, PMUSIM_TRACE_ERROR, PMUSIM_TRACE_ERROR_IO,
                    "%s: writer already failed", w->path);
        return FALSE;
    }
    gboolean text = w->form == PMUSIM_TRACE_TEXT;
    for (size_t i = 0; i < n; i++) {
        const pmusim_rec_t *r = &recs[i];
        if (!text && r->kind != PMUSIM_REC_MARKER) {
            gboolean ia64 = w->codec->ia64;
            size_t done = trusted ? (ia64 ? w_run_ia64_trusted(w, r, n - i)
                                          : w_run_x86_trusted(w, r, n - i))
                                  : (ia64 ? w_run_ia64(w, r, n - i) : w_run_x86(w, r, n - i));
            if (G_UNLIKELY(w->disorder))
                return w_disorder(w, error);
            if (done) {
                i += done;
                if (w->olen >= OBUF_FLUSH && !w_zflush(w, ZSTD_e_continue, error))
                    return FALSE;
                if (i >= n)
                    break;
                r = &recs[i];
            }
        }
        if (trusted && r->cycle < w->last_cycle) {
            w->disorder = TRUE;
            return w_disorder(w, error);
        }
        if (!trusted) {
            const char *bad = w_rec_bad(w, r);
            if (bad) {
                w->failed = TRUE;
                g_set_error(error, PMUSIM_TRACE_ERROR, PMUSIM_TRACE_ERROR_FORMAT,
                            "%s: record %" PRIu64 " (cycle %" PRIu64 "): %s", w->path, w->nrec,
                            r->cycle, bad);
                return FALSE;
            }
        }
        gboolean ok;
        if (text) {
            pmusim_rec_t c = *r;
            tr_rec_normalize(&c, &w->prev);
            ok = w_text_rec(w, &c, error);
        } else {
            /* the binary encoder reads only what the canonical form keeps */
            ok = w_bin_rec(w, r, error);
        }
        if (!ok)
            return FALSE;
        w_note_prev(w, r);
        w->last_cycle = r->cycle;
        w->nrec++;
    }
    return TRUE;
}

gboolean pmusim_trace_writer_write(pmusim_trace_writer_t *w, const pmusim_rec_t *recs, size_t n,
                                   GError **error)
{
    return w_write(w, recs, n, FALSE, error);
}

gboolean pmusim_trace_writer_write_trusted(pmusim_trace_writer_t *w, const pmusim_rec_t *recs,
                                           size_t n, GError **error)
{
    return w_write(w, recs, n, TRUE, error);
}

/* Ends the trace: END (binary) or the end line (text), then flushes. */
static gboolean w_finish(pmusim_trace_writer_t *w, GError **error)
{
    if (w->form == PMUSIM_TRACE_BINARY) {
        uint8_t *p = w->obuf + w->olen;
        *p++ = TR_OP_END;
        p = put_varint(p, w->nrec);
        w->olen = (size_t)(p - w->obuf);
        return w_zflush(w, ZSTD_e_end, error);
    }
    /* text: the end line makes a cut at a line end detectable (FORMAT.md §5) */
    if (fprintf(w->fp, "end %" PRIu64 "\n", w->nrec) < 0)
        return w_io_error(w, error, "write failed");
    return TRUE;
}

static void w_free(pmusim_trace_writer_t *w)
{
    if (w->zc)
        ZSTD_freeCStream(w->zc);
    g_free(w->obuf);
    g_free(w->zout);
    g_free(w->codec);
    g_aligned_free(w->went);
    if (w->markers)
        g_hash_table_destroy(w->markers);
    g_string_free(w->line, TRUE);
    pmusim_trace_header_clear(&w->hdr);
    g_free(w->path);
    g_free(w);
}

void pmusim_trace_writer_abort(pmusim_trace_writer_t *w)
{
    if (!w)
        return;
    pmusim_outfile_abort(w->out);
    w_free(w);
}

gboolean pmusim_trace_writer_close(pmusim_trace_writer_t *w, GError **error)
{
    gboolean ok = !w->failed;
    GError *e = NULL;
    if (ok)
        ok = w_finish(w, &e);
    if (ok) {
        GError *oerr = NULL;
        ok = pmusim_outfile_commit(w->out, &oerr);
        if (!ok) {
            g_set_error_literal(&e, PMUSIM_TRACE_ERROR, PMUSIM_TRACE_ERROR_IO, oerr->message);
            g_error_free(oerr);
        }
    } else {
        pmusim_outfile_abort(w->out);
    }
    if (e)
        g_propagate_error(error, e);
    else if (!ok)
        g_set_error(error, PMUSIM_TRACE_ERROR, PMUSIM_TRACE_ERROR_IO,
                    "%s: not completed after an earlier error (output discarded)", w->path);
    w_free(w);
    return ok;
}
