/* perf.data writer and reader (perfdata.h).  Layouts from the kernel's
 * include/uapi/linux/perf_event.h and perf's perf.data-file-format.txt;
 * every number is little-endian, as perf writes it on x86-64. */
#include "perfdata.h"

#include "pmusim/trace.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <glib/gstdio.h>

G_DEFINE_QUARK(pmusim-perfdata-error-quark, pd_error)

/* perf_file_header: magic "PERFILE2", its size, the attribute entry size,
 * three sections (attrs, data, event_types) and a 256-bit feature bitmap. */
#define PD_MAGIC UINT64_C(0x32454c4946524550)
#define PD_HEADER_SIZE 104u
/* perf_event_attr of PERF_ATTR_SIZE_VER7 (up to sig_data) */
#define PD_ATTR_SIZE 128u
#define PD_FILE_ATTR_SIZE (PD_ATTR_SIZE + 16u) /* + the ids section */

/* perf_event_header.type */
enum { PD_REC_MMAP = 1, PD_REC_COMM = 3, PD_REC_SAMPLE = 9 };
/* perf_event_header.misc: user-space sample */
#define PD_MISC_USER 2u

/* sample_type bits (enum perf_event_sample_format) */
enum {
    PD_S_IP = 1u << 0,
    PD_S_TID = 1u << 1,
    PD_S_TIME = 1u << 2,
    PD_S_ADDR = 1u << 3,
    PD_S_ID = 1u << 6,
    PD_S_CPU = 1u << 7,
    PD_S_PERIOD = 1u << 8,
    PD_S_BRANCH_STACK = 1u << 11,
    PD_S_WEIGHT = 1u << 14,
    PD_S_DATA_SRC = 1u << 15,
    PD_S_IDENTIFIER = 1u << 16,
};
#define PD_SAMPLE_TYPE                                                                        \
    (PD_S_IDENTIFIER | PD_S_IP | PD_S_TID | PD_S_TIME | PD_S_ADDR | PD_S_PERIOD | PD_S_WEIGHT | \
     PD_S_DATA_SRC)

/* branch_sample_type: PERF_SAMPLE_BRANCH_USER | PERF_SAMPLE_BRANCH_ANY */
#define PD_BRANCH_SAMPLE_TYPE (UINT64_C(1) << 0 | UINT64_C(1) << 3)

/* perf_event_attr flag bits */
#define PD_ATTR_MMAP (UINT64_C(1) << 8)
#define PD_ATTR_COMM (UINT64_C(1) << 9)
#define PD_ATTR_FREQ (UINT64_C(1) << 10)
#define PD_ATTR_PRECISE_SHIFT 15
#define PD_ATTR_SAMPLE_ID_ALL (UINT64_C(1) << 18)

/* feature bits (perf's HEADER_*) */
#define PD_FEAT_EVENT_DESC 12u
/* pmusim's own section: a bit perf does not define (it skips unknown
 * features), holding the ground truth as text */
#define PD_FEAT_PMUSIM_TRUTH 200u

/* ---- file in memory ---- */

void pd_file_init(pd_file_t *f)
{
    f->events = g_array_new(FALSE, TRUE, sizeof(pd_event_t));
    f->samples = g_array_new(FALSE, TRUE, sizeof(pd_sample_t));
    f->mmaps = g_array_new(FALSE, TRUE, sizeof(pd_mmap_t));
    f->comms = g_array_new(FALSE, TRUE, sizeof(pd_comm_t));
    f->truth = g_string_new(NULL);
    f->branches = g_array_new(FALSE, TRUE, sizeof(pd_branch_t));
    f->branch_stack = FALSE;
}

void pd_file_clear(pd_file_t *f)
{
    if (!f->events)
        return;
    for (guint i = 0; i < f->mmaps->len; i++)
        g_free(g_array_index(f->mmaps, pd_mmap_t, i).filename);
    for (guint i = 0; i < f->comms->len; i++)
        g_free(g_array_index(f->comms, pd_comm_t, i).comm);
    g_array_free(f->events, TRUE);
    g_array_free(f->samples, TRUE);
    g_array_free(f->mmaps, TRUE);
    g_array_free(f->comms, TRUE);
    g_string_free(f->truth, TRUE);
    g_array_free(f->branches, TRUE);
    memset(f, 0, sizeof *f);
}

void pd_file_add_mmap(pd_file_t *f, uint32_t pid, uint32_t tid, uint64_t start, uint64_t len,
                      uint64_t pgoff, const char *filename)
{
    pd_mmap_t m = {pid, tid, start, len, pgoff, g_strdup(filename)};
    g_array_append_val(f->mmaps, m);
}

void pd_file_add_comm(pd_file_t *f, uint32_t pid, uint32_t tid, const char *comm)
{
    pd_comm_t c = {pid, tid, g_strdup(comm)};
    g_array_append_val(f->comms, c);
}

void pd_file_add_sample(pd_file_t *f, const pd_sample_t *s, const pd_branch_t *br, size_t n)
{
    pd_sample_t c = *s;
    n = MIN(n, PD_MAX_BRANCHES);
    c.branch0 = f->branches->len;
    c.nbranches = (uint32_t)n;
    if (n) {
        g_array_append_vals(f->branches, br, (guint)n);
        f->branch_stack = TRUE;
    }
    g_array_append_val(f->samples, c);
}

/* ---- writing ---- */

static void put_u16(GByteArray *b, uint16_t v)
{
    uint8_t x[2] = {(uint8_t)v, (uint8_t)(v >> 8)};
    g_byte_array_append(b, x, 2);
}

static void put_u32(GByteArray *b, uint32_t v)
{
    uint8_t x[4];
    for (int i = 0; i < 4; i++)
        x[i] = (uint8_t)(v >> (8 * i));
    g_byte_array_append(b, x, 4);
}

static void put_u64(GByteArray *b, uint64_t v)
{
    uint8_t x[8];
    for (int i = 0; i < 8; i++)
        x[i] = (uint8_t)(v >> (8 * i));
    g_byte_array_append(b, x, 8);
}

static void set_u64(GByteArray *b, size_t at, uint64_t v)
{
    for (int i = 0; i < 8; i++)
        b->data[at + (size_t)i] = (uint8_t)(v >> (8 * i));
}

static void put_zero(GByteArray *b, size_t n)
{
    static const uint8_t z[64];
    while (n) {
        size_t k = MIN(n, sizeof z);
        g_byte_array_append(b, z, (guint)k);
        n -= k;
    }
}

/* A NUL-terminated string padded with NULs to a multiple of `align`. */
static void put_padded(GByteArray *b, const char *s, size_t align)
{
    size_t n = strlen(s) + 1, padded = (n + align - 1) / align * align;
    g_byte_array_append(b, (const uint8_t *)s, (guint)(n - 1));
    put_zero(b, padded - n + 1);
}

/* struct perf_event_attr, PD_ATTR_SIZE bytes. */
static void put_attr(GByteArray *b, const pd_event_t *e, gboolean first, gboolean branches)
{
    size_t start = b->len;
    put_u32(b, e->type);
    put_u32(b, PD_ATTR_SIZE);
    put_u64(b, e->config);
    put_u64(b, e->period);
    put_u64(b, PD_SAMPLE_TYPE | (branches ? PD_S_BRANCH_STACK : 0));
    put_u64(b, 0); /* read_format */
    uint64_t flags = PD_ATTR_SAMPLE_ID_ALL | ((uint64_t)(e->precise & 3) << PD_ATTR_PRECISE_SHIFT);
    if (e->freq)
        flags |= PD_ATTR_FREQ;
    if (first) /* the event that carries the task's side-band records */
        flags |= PD_ATTR_MMAP | PD_ATTR_COMM;
    put_u64(b, flags);
    put_zero(b, 72 - (b->len - start)); /* wakeup_events .. config2: 0 */
    put_u64(b, branches ? PD_BRANCH_SAMPLE_TYPE : 0);
    put_zero(b, PD_ATTR_SIZE - (b->len - start)); /* sample_regs_user .. sig_data: 0 */
}

static void put_header(GByteArray *b, uint32_t type, uint16_t misc, size_t at_size)
{
    put_u32(b, type);
    put_u16(b, misc);
    put_u16(b, (uint16_t)at_size);
}

/* sample_id_all trailer of a side-band record: pid, tid, time, identifier
 * (the sample_type fields TID, TIME and IDENTIFIER, in that order). */
static void put_sample_id(GByteArray *b, uint32_t pid, uint32_t tid, uint64_t id)
{
    put_u32(b, pid);
    put_u32(b, tid);
    put_u64(b, 0);
    put_u64(b, id);
}

static size_t padded_len(const char *s)
{
    return (strlen(s) + 1 + 7) / 8 * 8;
}

GBytes *pd_file_serialise(const pd_file_t *f)
{
    GByteArray *b = g_byte_array_new();
    put_zero(b, PD_HEADER_SIZE);
    /* attributes, then their ids */
    size_t attrs_at = b->len, nev = f->events->len;
    size_t ids_at = attrs_at + nev * PD_FILE_ATTR_SIZE;
    for (size_t i = 0; i < nev; i++) {
        const pd_event_t *e = &g_array_index(f->events, pd_event_t, i);
        put_attr(b, e, i == 0, f->branch_stack);
        put_u64(b, ids_at + i * 8);
        put_u64(b, 8);
    }
    for (size_t i = 0; i < nev; i++)
        put_u64(b, g_array_index(f->events, pd_event_t, i).id);
    uint64_t id0 = nev ? g_array_index(f->events, pd_event_t, 0).id : 0;
    /* data: COMMs, MMAPs, samples */
    size_t data_at = b->len;
    for (guint i = 0; i < f->comms->len; i++) {
        const pd_comm_t *c = &g_array_index(f->comms, pd_comm_t, i);
        put_header(b, PD_REC_COMM, 0, 8 + 8 + padded_len(c->comm) + 24);
        put_u32(b, c->pid);
        put_u32(b, c->tid);
        put_padded(b, c->comm, 8);
        put_sample_id(b, c->pid, c->tid, id0);
    }
    for (guint i = 0; i < f->mmaps->len; i++) {
        const pd_mmap_t *m = &g_array_index(f->mmaps, pd_mmap_t, i);
        put_header(b, PD_REC_MMAP, PD_MISC_USER, 8 + 32 + padded_len(m->filename) + 24);
        put_u32(b, m->pid);
        put_u32(b, m->tid);
        put_u64(b, m->start);
        put_u64(b, m->len);
        put_u64(b, m->pgoff);
        put_padded(b, m->filename, 8);
        put_sample_id(b, m->pid, m->tid, id0);
    }
    for (guint i = 0; i < f->samples->len; i++) {
        const pd_sample_t *s = &g_array_index(f->samples, pd_sample_t, i);
        size_t nbr = f->branch_stack ? s->nbranches : 0;
        put_header(b, PD_REC_SAMPLE, s->misc ? s->misc : PD_MISC_USER,
                   8 + 8 * 8 + (f->branch_stack ? 8 + 24 * nbr : 0));
        put_u64(b, s->id); /* IDENTIFIER */
        put_u64(b, s->ip);
        put_u32(b, s->pid);
        put_u32(b, s->tid);
        put_u64(b, s->time);
        put_u64(b, s->addr);
        put_u64(b, s->period);
        if (f->branch_stack) { /* BRANCH_STACK: nr, then (from, to, flags) */
            put_u64(b, nbr);
            for (size_t k = 0; k < nbr; k++) {
                const pd_branch_t *e = &g_array_index(f->branches, pd_branch_t, s->branch0 + k);
                put_u64(b, e->from);
                put_u64(b, e->to);
                put_u64(b, e->flags);
            }
        }
        put_u64(b, s->weight);
        put_u64(b, s->data_src);
    }
    size_t data_size = b->len - data_at;
    /* feature sections: the table of (offset, size), then the contents */
    gboolean truth = f->truth->len > 0;
    size_t table_at = b->len, nfeat = truth ? 2 : 1;
    put_zero(b, nfeat * 16);
    size_t desc_at = b->len;
    put_u32(b, (uint32_t)nev);
    put_u32(b, PD_ATTR_SIZE);
    for (size_t i = 0; i < nev; i++) {
        const pd_event_t *e = &g_array_index(f->events, pd_event_t, i);
        put_attr(b, e, i == 0, f->branch_stack);
        put_u32(b, 1); /* ids */
        /* perf_header_string: length (padded to 64 with NULs), then bytes */
        size_t n = strlen(e->name) + 1, padded = (n + 63) / 64 * 64;
        put_u32(b, (uint32_t)padded);
        put_padded(b, e->name, 64);
        put_u64(b, e->id);
    }
    set_u64(b, table_at, desc_at);
    set_u64(b, table_at + 8, b->len - desc_at);
    if (truth) {
        size_t truth_at = b->len;
        g_byte_array_append(b, (const uint8_t *)f->truth->str, (guint)f->truth->len);
        set_u64(b, table_at + 16, truth_at);
        set_u64(b, table_at + 24, f->truth->len);
    }
    /* the header last: it points at everything above */
    set_u64(b, 0, PD_MAGIC);
    set_u64(b, 8, PD_HEADER_SIZE);
    set_u64(b, 16, PD_FILE_ATTR_SIZE);
    set_u64(b, 24, attrs_at);
    set_u64(b, 32, nev * PD_FILE_ATTR_SIZE);
    set_u64(b, 40, data_at);
    set_u64(b, 48, data_size);
    /* event_types (56, 64): unused, 0 */
    b->data[72 + PD_FEAT_EVENT_DESC / 8] |= (uint8_t)(1u << (PD_FEAT_EVENT_DESC % 8));
    if (truth)
        b->data[72 + PD_FEAT_PMUSIM_TRUTH / 8] |= (uint8_t)(1u << (PD_FEAT_PMUSIM_TRUTH % 8));
    return g_byte_array_free_to_bytes(b);
}

/* ---- reading ---- */

typedef struct pd_in {
    const uint8_t *p;
    size_t len;
    const char *name;
} pd_in_t;

static gboolean in_range(const pd_in_t *in, uint64_t at, uint64_t n, const char *what,
                         GError **error)
{
    if (at <= in->len && n <= in->len - at)
        return TRUE;
    g_set_error(error, PD_ERROR, PD_ERROR_FORMAT,
                "%s: %s at byte %" G_GUINT64_FORMAT " (%" G_GUINT64_FORMAT
                " bytes) runs past the end of the file (%zu bytes)",
                in->name, what, (guint64)at, (guint64)n, in->len);
    return FALSE;
}

static uint64_t get_u64(const pd_in_t *in, size_t at)
{
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--)
        v = v << 8 | in->p[at + (size_t)i];
    return v;
}

static uint32_t get_u32(const pd_in_t *in, size_t at)
{
    return (uint32_t)in->p[at] | (uint32_t)in->p[at + 1] << 8 | (uint32_t)in->p[at + 2] << 16 |
           (uint32_t)in->p[at + 3] << 24;
}

/* A NUL-terminated string inside [at, at + max). */
static char *get_string(const pd_in_t *in, size_t at, size_t max)
{
    const uint8_t *z = memchr(in->p + at, 0, max);
    return g_strndup((const char *)in->p + at, z ? (size_t)(z - (in->p + at)) : max);
}

static pd_event_t *event_by_id(pd_file_t *f, uint64_t id)
{
    for (guint i = 0; i < f->events->len; i++)
        if (g_array_index(f->events, pd_event_t, i).id == id)
            return &g_array_index(f->events, pd_event_t, i);
    return NULL;
}

/* HEADER_EVENT_DESC: names of the events, by id. */
static gboolean parse_event_desc(pd_file_t *f, const pd_in_t *in, uint64_t at, uint64_t size,
                                 GError **error)
{
    if (!in_range(in, at, size, "the EVENT_DESC section", error) ||
        !in_range(in, at, 8, "the EVENT_DESC header", error))
        return FALSE;
    uint64_t end = at + size, pos = at + 8;
    uint32_t nr = get_u32(in, at), asz = get_u32(in, at + 4);
    for (uint32_t i = 0; i < nr; i++) {
        if (!in_range(in, pos, (uint64_t)asz + 8, "an EVENT_DESC entry", error))
            return FALSE;
        uint32_t nids = get_u32(in, pos + asz), slen = get_u32(in, pos + asz + 4);
        uint64_t name_at = pos + asz + 8;
        if (!in_range(in, name_at, (uint64_t)slen + (uint64_t)nids * 8, "an EVENT_DESC name",
                      error) ||
            name_at + slen + (uint64_t)nids * 8 > end)
            return FALSE;
        char *name = get_string(in, name_at, slen);
        for (uint32_t k = 0; k < nids; k++) {
            pd_event_t *e = event_by_id(f, get_u64(in, name_at + slen + (uint64_t)k * 8));
            if (e)
                g_strlcpy(e->name, name, sizeof e->name);
        }
        g_free(name);
        pos = name_at + slen + (uint64_t)nids * 8;
    }
    return TRUE;
}

static gboolean bad_record(const pd_in_t *in, uint64_t at, const char *what, GError **error)
{
    g_set_error(error, PD_ERROR, PD_ERROR_FORMAT, "%s: record at byte %" G_GUINT64_FORMAT ": %s",
                in->name, (guint64)at, what);
    return FALSE;
}

/* One PERF_RECORD_SAMPLE of sample_type `st` (the fields pmusim writes; a
 * file with others is refused). */
static gboolean parse_sample(pd_file_t *f, const pd_in_t *in, uint64_t at, uint32_t size,
                             uint64_t st, uint16_t misc, GError **error)
{
    /* without ID or IDENTIFIER, a file has one event (perf's rule) */
    pd_sample_t s = {.misc = misc,
                     .id = f->events->len ? g_array_index(f->events, pd_event_t, 0).id : 0};
    uint64_t pos = at + 8, end = at + size;
#define TAKE64(dst)                                                                   \
    do {                                                                              \
        if (pos + 8 > end)                                                            \
            return bad_record(in, at, "sample shorter than its sample_type", error); \
        dst = get_u64(in, pos);                                                       \
        pos += 8;                                                                     \
    } while (0)
    uint64_t skip;
    if (st & PD_S_IDENTIFIER)
        TAKE64(s.id);
    if (st & PD_S_IP)
        TAKE64(s.ip);
    if (st & PD_S_TID) {
        uint64_t v;
        TAKE64(v);
        s.pid = (uint32_t)v;
        s.tid = (uint32_t)(v >> 32);
    }
    if (st & PD_S_TIME)
        TAKE64(s.time);
    if (st & PD_S_ADDR)
        TAKE64(s.addr);
    if (st & PD_S_ID)
        TAKE64(s.id);
    if (st & PD_S_CPU)
        TAKE64(skip);
    if (st & PD_S_PERIOD)
        TAKE64(s.period);
    if (st & PD_S_BRANCH_STACK) {
        uint64_t nr;
        TAKE64(nr);
        if (nr > PD_MAX_BRANCHES || nr * 24 > end - pos)
            return bad_record(in, at, "branch stack larger than the record or than 16 entries",
                              error);
        pd_branch_t br[PD_MAX_BRANCHES];
        for (uint64_t k = 0; k < nr; k++) {
            TAKE64(br[k].from);
            TAKE64(br[k].to);
            TAKE64(br[k].flags);
        }
        f->branch_stack = TRUE;
        pd_file_add_sample(f, &s, br, (size_t)nr);
        s.nbranches = UINT32_MAX; /* added */
    }
    if (st & PD_S_WEIGHT)
        TAKE64(s.weight);
    if (st & PD_S_DATA_SRC)
        TAKE64(s.data_src);
#undef TAKE64
    (void)skip;
    if (s.nbranches == UINT32_MAX) { /* fields after the branch stack */
        pd_sample_t *last = &g_array_index(f->samples, pd_sample_t, f->samples->len - 1);
        last->weight = s.weight;
        last->data_src = s.data_src;
    } else {
        pd_file_add_sample(f, &s, NULL, 0);
    }
    return TRUE;
}

gboolean pd_file_parse(pd_file_t *f, const uint8_t *data, size_t len, const char *name,
                       GError **error)
{
    pd_in_t in = {data, len, name};
    if (len < PD_HEADER_SIZE || get_u64(&in, 0) != PD_MAGIC) {
        g_set_error(error, PD_ERROR, PD_ERROR_FORMAT,
                    "%s: not a perf.data file (expected the magic \"PERFILE2\" at byte 0 of a "
                    "header of %u bytes)",
                    name, PD_HEADER_SIZE);
        return FALSE;
    }
    uint64_t attr_size = get_u64(&in, 16), attrs_at = get_u64(&in, 24),
             attrs_len = get_u64(&in, 32), data_at = get_u64(&in, 40),
             data_len = get_u64(&in, 48);
    if (attr_size < 16 + 64 || attr_size > 4096) {
        g_set_error(error, PD_ERROR, PD_ERROR_FORMAT,
                    "%s: byte 16: attribute size %" G_GUINT64_FORMAT
                    " (expected 80 .. 4096)",
                    name, (guint64)attr_size);
        return FALSE;
    }
    if (!in_range(&in, attrs_at, attrs_len, "the attribute section", error) ||
        !in_range(&in, data_at, data_len, "the data section", error))
        return FALSE;
    uint64_t sample_type = 0;
    for (uint64_t a = attrs_at; a + attr_size <= attrs_at + attrs_len; a += attr_size) {
        pd_event_t e = {0};
        e.type = get_u32(&in, a);
        e.config = get_u64(&in, a + 8);
        e.period = get_u64(&in, a + 16);
        uint64_t st = get_u64(&in, a + 24), flags = get_u64(&in, a + 40);
        e.freq = (flags & PD_ATTR_FREQ) != 0;
        e.precise = (uint8_t)((flags >> PD_ATTR_PRECISE_SHIFT) & 3);
        if (sample_type && st != sample_type) {
            g_set_error(error, PD_ERROR, PD_ERROR_FORMAT,
                        "%s: byte %" G_GUINT64_FORMAT
                        ": events with different sample_type (pmusim reads one)",
                        name, (guint64)a);
            return FALSE;
        }
        sample_type = st;
        uint64_t ids_at = get_u64(&in, a + attr_size - 16);
        uint64_t ids_len = get_u64(&in, a + attr_size - 8);
        if (!in_range(&in, ids_at, ids_len, "an id section", error))
            return FALSE;
        e.id = ids_len >= 8 ? get_u64(&in, ids_at) : 0;
        g_snprintf(e.name, sizeof e.name, "%s 0x%" G_GINT64_MODIFIER "x",
                   e.type == PD_TYPE_RAW ? "raw" : "type", (guint64)e.config);
        g_array_append_val(f->events, e);
    }
    if (sample_type & ~(uint64_t)(PD_SAMPLE_TYPE | PD_S_ID | PD_S_CPU | PD_S_BRANCH_STACK)) {
        g_set_error(error, PD_ERROR, PD_ERROR_FORMAT,
                    "%s: sample_type 0x%" G_GINT64_MODIFIER
                    "x has fields pmusim does not read (it reads 0x%x)",
                    name, (guint64)sample_type,
                    (unsigned)(PD_SAMPLE_TYPE | PD_S_ID | PD_S_CPU | PD_S_BRANCH_STACK));
        return FALSE;
    }
    for (uint64_t pos = data_at; pos < data_at + data_len;) {
        if (pos + 8 > data_at + data_len)
            return bad_record(&in, pos, "truncated record header", error);
        uint32_t type = get_u32(&in, pos);
        uint16_t misc = (uint16_t)(in.p[pos + 4] | in.p[pos + 5] << 8);
        uint16_t size = (uint16_t)(in.p[pos + 6] | in.p[pos + 7] << 8);
        if (size < 8 || pos + size > data_at + data_len)
            return bad_record(&in, pos, "record size below 8 or past the data section", error);
        if (type == PD_REC_SAMPLE) {
            if (!parse_sample(f, &in, pos, size, sample_type, misc, error))
                return FALSE;
        } else if (type == PD_REC_COMM && size >= 16) {
            char *comm = get_string(&in, pos + 16, size - 16);
            pd_file_add_comm(f, get_u32(&in, pos + 8), get_u32(&in, pos + 12), comm);
            g_free(comm);
        } else if (type == PD_REC_MMAP && size >= 40) {
            char *fn = get_string(&in, pos + 40, size - 40);
            pd_file_add_mmap(f, get_u32(&in, pos + 8), get_u32(&in, pos + 12),
                             get_u64(&in, pos + 16), get_u64(&in, pos + 24),
                             get_u64(&in, pos + 32), fn);
            g_free(fn);
        }
        pos += size;
    }
    /* features: the table after the data section, one entry per bit set */
    uint64_t table = data_at + data_len;
    for (unsigned bit = 0, k = 0; bit < 256; bit++) {
        if (!((in.p[72 + bit / 8] >> (bit % 8)) & 1))
            continue;
        uint64_t ent = table + 16u * k++;
        if (!in_range(&in, ent, 16, "the feature table", error))
            return FALSE;
        uint64_t at = get_u64(&in, ent), size = get_u64(&in, ent + 8);
        if (bit == PD_FEAT_EVENT_DESC && !parse_event_desc(f, &in, at, size, error))
            return FALSE;
        if (bit == PD_FEAT_PMUSIM_TRUTH) {
            if (!in_range(&in, at, size, "the pmusim truth section", error))
                return FALSE;
            g_string_append_len(f->truth, (const char *)in.p + at, (gssize)size);
        }
    }
    return TRUE;
}

gboolean pd_file_read(pd_file_t *f, const char *path, GError **error)
{
    GStatBuf st;
    if (g_stat(path, &st) != 0) {
        g_set_error(error, PD_ERROR, PD_ERROR_IO, "%s: cannot open: %s", path, g_strerror(errno));
        return FALSE;
    }
    if (!S_ISREG(st.st_mode) || (uint64_t)st.st_size > PD_MAX_FILE) {
        g_set_error(error, PD_ERROR, PD_ERROR_IO,
                    "%s: expected a regular file of at most 4 GiB", path);
        return FALSE;
    }
    gchar *data = NULL;
    gsize len = 0;
    GError *e = NULL;
    if (!g_file_get_contents(path, &data, &len, &e)) {
        g_set_error(error, PD_ERROR, PD_ERROR_IO, "%s", e->message);
        g_error_free(e);
        return FALSE;
    }
    gboolean ok = pd_file_parse(f, (const uint8_t *)data, len, path, error);
    g_free(data);
    return ok;
}

/* ---- data source ---- */

/* union perf_mem_data_src bit fields (perf_event.h): mem_op bits 4:0,
 * mem_lvl 18:5, mem_snoop 23:19, mem_lock 25:24, mem_dtlb 32:26,
 * mem_lvl_num 36:33, mem_remote 37. */
enum {
    PD_OP_LOAD = 0x02, PD_OP_STORE = 0x04,
    PD_LVL_NA = 0x1, PD_LVL_HIT = 0x2, PD_LVL_MISS = 0x4, PD_LVL_L1 = 0x8, PD_LVL_LFB = 0x10,
    PD_LVL_L2 = 0x20,
    PD_LVL_L3 = 0x40, PD_LVL_LOC_RAM = 0x80, PD_LVL_REM_RAM1 = 0x100, PD_LVL_REM_CCE1 = 0x400,
    PD_SNOOP_NA = 0x1, PD_LOCK_NA = 0x1,
    PD_TLB_NA = 0x1, PD_TLB_HIT = 0x2, PD_TLB_MISS = 0x4, PD_TLB_L1 = 0x8, PD_TLB_L2 = 0x10,
    PD_TLB_WK = 0x20, PD_TLB_OS = 0x40,
    PD_LVLNUM_L1 = 0x1, PD_LVLNUM_L2 = 0x2, PD_LVLNUM_L3 = 0x3, PD_LVLNUM_ANY_CACHE = 0xb,
    PD_LVLNUM_LFB = 0xc,
    PD_LVLNUM_RAM = 0xd, PD_LVLNUM_NA = 0xf,
};

uint64_t pd_data_src(unsigned level, gboolean store, unsigned tlb)
{
    /* level -> (mem_lvl, mem_lvl_num, remote) */
    static const struct { uint32_t lvl, num, remote; } lv[PMUSIM_LVL_COUNT] = {
        [PMUSIM_LVL_L1D] = {PD_LVL_HIT | PD_LVL_L1, PD_LVLNUM_L1, 0},
        [PMUSIM_LVL_L2] = {PD_LVL_HIT | PD_LVL_L2, PD_LVLNUM_L2, 0},
        [PMUSIM_LVL_L3] = {PD_LVL_HIT | PD_LVL_L3, PD_LVLNUM_L3, 0},
        [PMUSIM_LVL_LOCAL_DRAM] = {PD_LVL_HIT | PD_LVL_LOC_RAM, PD_LVLNUM_RAM, 0},
        [PMUSIM_LVL_REMOTE_DRAM] = {PD_LVL_HIT | PD_LVL_REM_RAM1, PD_LVLNUM_RAM, 1},
        [PMUSIM_LVL_REMOTE_CACHE] = {PD_LVL_HIT | PD_LVL_REM_CCE1, PD_LVLNUM_ANY_CACHE, 1},
        [PMUSIM_LVL_LFB] = {PD_LVL_HIT | PD_LVL_LFB, PD_LVLNUM_LFB, 0},
    };
    static const uint32_t tl[PMUSIM_TLB_COUNT] = {
        [PMUSIM_TLB_L1_HIT] = PD_TLB_HIT | PD_TLB_L1,
        [PMUSIM_TLB_L2_HIT] = PD_TLB_HIT | PD_TLB_L2,
        [PMUSIM_TLB_WALK] = PD_TLB_MISS | PD_TLB_WK,
        [PMUSIM_TLB_FAULT] = PD_TLB_MISS | PD_TLB_OS,
    };
    uint64_t lvl = level < PMUSIM_LVL_COUNT ? lv[level].lvl : PD_LVL_NA;
    uint64_t num = level < PMUSIM_LVL_COUNT ? lv[level].num : PD_LVLNUM_NA;
    uint64_t remote = level < PMUSIM_LVL_COUNT ? lv[level].remote : 0;
    uint64_t dtlb = tlb < PMUSIM_TLB_COUNT ? tl[tlb] : PD_TLB_NA;
    return (uint64_t)(store ? PD_OP_STORE : PD_OP_LOAD) | lvl << 5 | (uint64_t)PD_SNOOP_NA << 19 |
           (uint64_t)PD_LOCK_NA << 24 | dtlb << 26 | num << 33 | remote << 37;
}

void pd_data_src_text(uint64_t d, char *buf, size_t len)
{
    static const char *const lvl_names[] = {"N/A", "HIT", "MISS", "L1", "LFB", "L2", "L3",
                                            "Local RAM", "Remote RAM (1 hop)",
                                            "Remote RAM (2 hops)", "Remote Cache (1 hop)",
                                            "Remote Cache (2 hops)", "I/O", "Uncached"};
    uint32_t lvl = (uint32_t)((d >> 5) & 0x3fff);
    GString *s = g_string_new(NULL);
    g_string_append(s, (d & PD_OP_STORE) ? "store " : (d & PD_OP_LOAD) ? "load " : "");
    for (unsigned b = 3; b < G_N_ELEMENTS(lvl_names); b++)
        if ((lvl >> b) & 1)
            g_string_append_printf(s, "%s ", lvl_names[b]);
    if (lvl & PD_LVL_HIT)
        g_string_append(s, "hit");
    else if (lvl & PD_LVL_MISS)
        g_string_append(s, "miss");
    else
        g_string_append(s, "N/A");
    g_strlcpy(buf, s->str, len);
    g_string_free(s, TRUE);
}

/* ---- reading helpers ---- */

static gint pd_symbol_cmp(gconstpointer a, gconstpointer b)
{
    const pd_symbol_t *x = a, *y = b;
    return x->start < y->start ? -1 : x->start > y->start ? 1 : 0;
}

void pd_symbols_init(pd_symbols_t *s)
{
    s->syms = g_array_new(FALSE, TRUE, sizeof(pd_symbol_t));
}

void pd_symbols_add(pd_symbols_t *s, uint64_t start, uint64_t end, const char *name)
{
    pd_symbol_t y = {start, end, g_strdup(name), 0};
    g_array_append_val(s->syms, y);
}

void pd_symbols_finish(pd_symbols_t *s)
{
    g_array_sort(s->syms, pd_symbol_cmp);
    uint64_t m = 0;
    for (guint i = 0; i < s->syms->len; i++) {
        pd_symbol_t *y = &g_array_index(s->syms, pd_symbol_t, i);
        m = MAX(m, y->end);
        y->maxend = m;
    }
}

void pd_symbols_load(pd_symbols_t *s, const pd_file_t *f)
{
    pd_symbols_init(s);
    char **lines = g_strsplit(f->truth->str, "\n", -1);
    for (char **l = lines; *l; l++) {
        char **fld = g_strsplit(*l, "\t", 4);
        if (g_strv_length(fld) == 4 && strcmp(fld[0], "symbol") == 0)
            pd_symbols_add(s, g_ascii_strtoull(fld[1], NULL, 16),
                           g_ascii_strtoull(fld[2], NULL, 16), fld[3]);
        g_strfreev(fld);
    }
    g_strfreev(lines);
    pd_symbols_finish(s);
}

void pd_symbols_clear(pd_symbols_t *s)
{
    if (!s->syms)
        return;
    for (guint i = 0; i < s->syms->len; i++)
        g_free(g_array_index(s->syms, pd_symbol_t, i).name);
    g_array_free(s->syms, TRUE);
    s->syms = NULL;
}

const pd_symbol_t *pd_symbol_find(const pd_symbols_t *s, uint64_t ip)
{
    guint lo = 0, hi = s->syms->len;
    while (lo < hi) {
        guint mid = lo + (hi - lo) / 2;
        if (g_array_index(s->syms, pd_symbol_t, mid).start <= ip)
            lo = mid + 1;
        else
            hi = mid;
    }
    /* walk back from the latest start at or below ip; no earlier entry
     * reaches ip once the largest end so far is at or below it */
    for (guint i = lo; i-- > 0;) {
        const pd_symbol_t *y = &g_array_index(s->syms, pd_symbol_t, i);
        if (y->maxend <= ip)
            return NULL;
        if (ip < y->end)
            return y;
    }
    return NULL;
}

void pd_symbol_text(const pd_symbols_t *s, uint64_t ip, char *buf, size_t len)
{
    const pd_symbol_t *y = pd_symbol_find(s, ip);
    if (!y)
        g_strlcpy(buf, "[unknown]", len);
    else if (ip == y->start)
        g_strlcpy(buf, y->name, len);
    else
        g_snprintf(buf, len, "%s+0x%" G_GINT64_MODIFIER "x", y->name, (guint64)(ip - y->start));
}

const char *pd_event_name(const pd_file_t *f, uint64_t id)
{
    for (guint i = 0; i < f->events->len; i++)
        if (g_array_index(f->events, pd_event_t, i).id == id)
            return g_array_index(f->events, pd_event_t, i).name;
    return "?";
}

const char *pd_comm_of(const pd_file_t *f, uint32_t tid)
{
    /* the last COMM of the thread: an exec renames it */
    for (guint i = f->comms->len; i-- > 0;)
        if (g_array_index(f->comms, pd_comm_t, i).tid == tid)
            return g_array_index(f->comms, pd_comm_t, i).comm;
    return "?";
}

void pd_error_text(uint64_t estimate, uint64_t exact, char *buf, size_t len)
{
    if (!exact)
        g_strlcpy(buf, estimate ? "n/a" : "0.00%", len);
    else
        g_snprintf(buf, len, "%+.2f%%",
                   100.0 * ((double)estimate - (double)exact) / (double)exact);
}
