/* Trace writer: binary (delta-coded, zstd-compressed) and canonical text
 * forms, as specified in traces/FORMAT.md.  The binary encoder mirrors the
 * decoder in reader.c: both keep a tr_codec_t and update it identically. */
#include "pmusim/trace.h"
#include "pmusim/outfile.h"
#include "trace_priv.h"

#include <errno.h>
#include <inttypes.h>
#include <string.h>
#include <zstd.h>

#define OBUF_FLUSH (128u * 1024u)
#define OBUF_SIZE (OBUF_FLUSH + 2 * TR_MAX_STRING + 256u)

struct pmusim_trace_writer {
    char *path;
    pmusim_outfile_t *out; /* atomic output (outfile.h); fp is its stream */
    FILE *fp;
    pmusim_trace_form_t form;
    pmusim_trace_header_t hdr;
    uint64_t nrec;
    uint64_t last_cycle;
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
    tr_codec_t *codec;
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
    ZSTD_CCtx_setParameter(w->zc, ZSTD_c_compressionLevel, 3);
    ZSTD_CCtx_setParameter(w->zc, ZSTD_c_windowLog, 22);
    ZSTD_CCtx_setParameter(w->zc, ZSTD_c_checksumFlag, 1);
    w->obuf = g_malloc(OBUF_SIZE);
    w->zcap = ZSTD_CStreamOutSize();
    w->zout = g_malloc(w->zcap);
    w->codec = g_new0(tr_codec_t, 1);
    w->codec->ia64 = w->hdr.isa == PMUSIM_ISA_IA64;
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

static uint8_t *enc_insn(tr_codec_t *c, uint8_t *o, const pmusim_rec_t *r)
{
    uint8_t *p = o + 1;
    unsigned h = 0;
    uint64_t d = r->cycle - c->cycle;
    if (d < 3) {
        h |= (unsigned)d;
    } else {
        h |= 3;
        p = put_varint(p, d);
    }
    uint64_t pos = tr_pos(c->ia64, r);
    uint64_t pred = c->next_pos[r->thread];
    if (pos != pred) {
        h |= TR_H_POS;
        p = put_varint(p, tr_zigzag((int64_t)(pos - pred)));
    }
    tr_cache_ent_t *e = &c->cache[tr_cache_index(pos)];
    const pmusim_rec_t *b = &e->rec;
    unsigned m = 0;
    if (r->flags != b->flags) m |= TR_M_FLAGS;
    if (r->plm != b->plm) m |= TR_M_PLM;
    if (r->unit != b->unit) m |= TR_M_UNIT;
    if (r->insn != b->insn) m |= TR_M_INSN;
    if (r->len != b->len) m |= TR_M_LEN;
    if (r->uops != b->uops) m |= TR_M_UOPS;
    if (r->mem.size != b->mem.size || r->mem.is_store != b->mem.is_store) m |= TR_M_MEMSTATIC;
    if (r->br.kind != b->br.kind) m |= TR_M_BRKIND;
    if (r->br.target != b->br.target) m |= TR_M_BRTARGET;
    if (r->oc.latency != b->oc.latency) m |= TR_M_OCLAT;
    if (r->oc.req != b->oc.req || r->oc.supplier != b->oc.supplier || r->oc.snoop != b->oc.snoop)
        m |= TR_M_OCBITS;
    if (m) {
        h |= TR_H_FIELDS;
        p = put_varint(p, m);
        if (m & TR_M_FLAGS) p = put_varint(p, r->flags);
        if (m & TR_M_PLM) *p++ = r->plm;
        if (m & TR_M_UNIT) *p++ = r->unit;
        if (m & TR_M_INSN) p = put_varint(p, r->insn);
        if (m & TR_M_LEN) *p++ = r->len;
        if (m & TR_M_UOPS) p = put_varint(p, r->uops);
        if (m & TR_M_MEMSTATIC) {
            *p++ = r->mem.size;
            *p++ = r->mem.is_store;
        }
        if (m & TR_M_BRKIND) *p++ = r->br.kind;
        if (m & TR_M_BRTARGET) p = put_varint(p, tr_zigzag((int64_t)(r->br.target - r->ip)));
        if (m & TR_M_OCLAT) p = put_varint(p, r->oc.latency);
        if (m & TR_M_OCBITS) {
            *p++ = r->oc.req;
            *p++ = r->oc.supplier;
            *p++ = r->oc.snoop;
        }
    }
    if (r->mem.level != b->mem.level || r->mem.tlb != b->mem.tlb || r->mem.alat != b->mem.alat ||
        r->mem.latency != b->mem.latency) {
        h |= TR_H_MEMDYN;
        *p++ = (uint8_t)(r->mem.level | r->mem.tlb << 3 | r->mem.alat << 5);
        p = put_varint(p, r->mem.latency);
    }
    uint64_t apred = b->mem.addr + (uint64_t)e->stride;
    if (r->mem.addr != apred) {
        h |= TR_H_MEMADDR;
        p = put_varint(p, tr_zigzag((int64_t)(r->mem.addr - apred)));
    }
    if (r->br.taken != b->br.taken || r->br.dir_ok != b->br.dir_ok ||
        r->br.tgt_ok != b->br.tgt_ok || r->br.detect != b->br.detect) {
        h |= TR_H_BRDYN;
        *p++ = (uint8_t)(r->br.taken | r->br.dir_ok << 1 | r->br.tgt_ok << 2 | r->br.detect << 3);
    }
    *o = (uint8_t)h;
    e->stride = (int64_t)(r->mem.addr - b->mem.addr);
    e->rec = *r;
    c->next_pos[r->thread] = tr_next_pos(c->ia64, r);
    c->cycle = r->cycle;
    return p;
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
        p = enc_insn(c, p, r);
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
            *p++ = TR_OP_MEM;
            *p++ = tr_mem_byte(&r->mem);
            *p++ = r->mem.size;
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

/* ---- text records (canonical form, FORMAT.md "Text form") ---- */

static void fmt_mem(GString *s, const pmusim_mem_t *m)
{
    g_string_append_printf(s, " mem=%s addr=0x%" PRIx64 " size=%u lvl=%s lat=%u tlb=%s",
                           m->is_store ? "st" : "ld", m->addr, m->size, tr_level_names[m->level],
                           m->latency, tr_tlb_names[m->tlb]);
    if (m->alat)
        g_string_append_printf(s, " alat=%s", tr_alat_names[m->alat]);
}

static void fmt_insn(GString *s, gboolean ia64, const pmusim_rec_t *r)
{
    g_string_append_printf(s, " ip=0x%" PRIx64, r->ip);
    if (ia64 || r->slot)
        g_string_append_printf(s, " slot=%u", r->slot);
    if (ia64 || r->unit)
        g_string_append_printf(s, " unit=%s", tr_unit_names[r->unit]);
    if (ia64 || r->insn)
        g_string_append_printf(s, " enc=0x%011" PRIx64, r->insn);
    if (!ia64 || r->len)
        g_string_append_printf(s, " len=%u", r->len);
    if (r->uops)
        g_string_append_printf(s, " uops=%u", r->uops);
    g_string_append_printf(s, " plm=%u", r->plm);
    if (r->flags & PMUSIM_F_IA32)
        g_string_append(s, " ia32");
    if (r->flags & PMUSIM_F_NOP)
        g_string_append(s, " nop");
    if (r->flags & PMUSIM_F_PRED_OFF)
        g_string_append(s, " predoff");
    if (r->flags & PMUSIM_F_FP)
        g_string_append(s, " fp");
    if (r->flags & ~0x7fu)
        g_string_append_printf(s, " xflags=0x%x", r->flags & ~0x7fu);
    if (r->flags & PMUSIM_F_MEM)
        fmt_mem(s, &r->mem);
    if (r->flags & PMUSIM_F_BRANCH)
        g_string_append_printf(s, " br=%s taken=%u target=0x%" PRIx64 " dir=%s tgt=%s det=%s",
                               tr_brkind_names[r->br.kind], r->br.taken, r->br.target,
                               r->br.dir_ok ? "ok" : "miss", r->br.tgt_ok ? "ok" : "miss",
                               tr_detect_names[r->br.detect]);
    if (r->flags & PMUSIM_F_OFFCORE) {
        g_string_append_printf(s, " oc.req=%u oc.sup=%u", r->oc.req, r->oc.supplier);
        if (r->oc.snoop == PMUSIM_OFFCORE_NONE)
            g_string_append(s, " oc.snoop=none");
        else
            g_string_append_printf(s, " oc.snoop=%u", r->oc.snoop);
        g_string_append_printf(s, " oc.lat=%u", r->oc.latency);
    }
}

static gboolean w_text_rec(pmusim_trace_writer_t *w, const pmusim_rec_t *r, GError **error)
{
    GString *s = w->line;
    g_string_printf(s, "%" PRIu64 " %u %s", r->cycle, r->thread, tr_kind_names[r->kind]);
    switch (r->kind) {
    case PMUSIM_REC_INSN:
        fmt_insn(s, w->hdr.isa == PMUSIM_ISA_IA64, r);
        w->cur_plm[r->thread] = r->plm;
        break;
    case PMUSIM_REC_MEM: fmt_mem(s, &r->mem); break;
    case PMUSIM_REC_IDLE: g_string_append_printf(s, " n=%" PRIu64, r->n); break;
    case PMUSIM_REC_THREAD: g_string_append(s, r->n ? " active" : " inactive"); break;
    case PMUSIM_REC_EVENT:
        g_string_append_printf(s, " code=0x%x umask=0x%x n=%" PRIu64, r->ev_code, r->ev_umask,
                               r->n);
        break;
    default:
        g_string_append_c(s, ' ');
        tr_escape(s, r->name, TRUE);
        break;
    }
    /* IDLE and EVENT: plm only where it differs from the default, the
     * thread's current level (FORMAT.md §3) */
    if ((r->kind == PMUSIM_REC_IDLE || r->kind == PMUSIM_REC_EVENT) &&
        r->plm != w->cur_plm[r->thread])
        g_string_append_printf(s, " plm=%u", r->plm);
    g_string_append_c(s, '\n');
    if (fwrite(s->str, 1, s->len, w->fp) != s->len)
        return w_io_error(w, error, "write failed");
    return TRUE;
}

gboolean pmusim_trace_writer_write(pmusim_trace_writer_t *w, const pmusim_rec_t *recs, size_t n,
                                   GError **error)
{
    if (w->failed) {
        g_set_error(error, PMUSIM_TRACE_ERROR, PMUSIM_TRACE_ERROR_IO,
                    "%s: writer already failed", w->path);
        return FALSE;
    }
    for (size_t i = 0; i < n; i++) {
        pmusim_rec_t r = recs[i];
        const char *bad = tr_rec_check(&w->hdr, &r);
        if (!bad && r.cycle < w->last_cycle)
            bad = "cycle below the previous record's (records must be in non-decreasing cycle "
                  "order)";
        if (!bad && r.kind == PMUSIM_REC_MEM)
            bad = tr_mem_follows(w->nrec ? &w->prev : NULL, &r);
        if (bad) {
            w->failed = TRUE;
            g_set_error(error, PMUSIM_TRACE_ERROR, PMUSIM_TRACE_ERROR_FORMAT,
                        "%s: record %" PRIu64 " (cycle %" PRIu64 "): %s", w->path, w->nrec,
                        r.cycle, bad);
            return FALSE;
        }
        tr_rec_normalize(&r, &w->prev);
        gboolean ok = w->form == PMUSIM_TRACE_TEXT ? w_text_rec(w, &r, error)
                                                   : w_bin_rec(w, &r, error);
        if (!ok)
            return FALSE;
        w->prev = r;
        w->prev.name = NULL; /* the caller's string; only kind, thread, cycle, ip, plm, mem are used */
        w->last_cycle = r.cycle;
        w->nrec++;
    }
    return TRUE;
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
