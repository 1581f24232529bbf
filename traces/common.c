/* Trace header helpers, record validation and text escaping shared by the
 * reader and the writer. */
#include "pmusim/trace.h"
#include "trace_priv.h"

#include <string.h>

G_DEFINE_QUARK(pmusim-trace-error-quark, pmusim_trace_error)

void pmusim_trace_header_init(pmusim_trace_header_t *h, pmusim_cpu_t cpu, uint32_t nthreads)
{
    memset(h, 0, sizeof *h);
    h->version = PMUSIM_TRACE_VERSION;
    h->cpu = cpu;
    h->isa = pmusim_cpu_isa(cpu);
    h->nthreads = nthreads ? nthreads : 1;
    h->meta_keys = g_ptr_array_new_with_free_func(g_free);
    h->meta_values = g_ptr_array_new_with_free_func(g_free);
}

void pmusim_trace_header_set_meta(pmusim_trace_header_t *h, const char *key, const char *value)
{
    if (!h->meta_keys) {
        h->meta_keys = g_ptr_array_new_with_free_func(g_free);
        h->meta_values = g_ptr_array_new_with_free_func(g_free);
    }
    for (guint i = 0; i < h->meta_keys->len; i++) {
        if (strcmp(g_ptr_array_index(h->meta_keys, i), key) == 0) {
            g_free(h->meta_values->pdata[i]);
            h->meta_values->pdata[i] = g_strdup(value);
            return;
        }
    }
    g_ptr_array_add(h->meta_keys, g_strdup(key));
    g_ptr_array_add(h->meta_values, g_strdup(value));
}

const char *pmusim_trace_header_get_meta(const pmusim_trace_header_t *h, const char *key)
{
    if (!h->meta_keys)
        return NULL;
    for (guint i = 0; i < h->meta_keys->len; i++)
        if (strcmp(g_ptr_array_index(h->meta_keys, i), key) == 0)
            return g_ptr_array_index(h->meta_values, i);
    return NULL;
}

void pmusim_trace_header_clear(pmusim_trace_header_t *h)
{
    if (h->meta_keys)
        g_ptr_array_unref(h->meta_keys);
    if (h->meta_values)
        g_ptr_array_unref(h->meta_values);
    h->meta_keys = h->meta_values = NULL;
}

void tr_header_copy(pmusim_trace_header_t *dst, const pmusim_trace_header_t *src)
{
    *dst = *src;
    dst->meta_keys = g_ptr_array_new_with_free_func(g_free);
    dst->meta_values = g_ptr_array_new_with_free_func(g_free);
    guint n = src->meta_keys ? src->meta_keys->len : 0;
    for (guint i = 0; i < n; i++) {
        g_ptr_array_add(dst->meta_keys, g_strdup(g_ptr_array_index(src->meta_keys, i)));
        g_ptr_array_add(dst->meta_values, g_strdup(g_ptr_array_index(src->meta_values, i)));
    }
}

const char *tr_header_check(const pmusim_trace_header_t *h)
{
    if (h->isa != PMUSIM_ISA_IA64 && h->isa != PMUSIM_ISA_X86_64)
        return "ISA must be ia64 or x86_64";
    if ((unsigned)h->cpu > PMUSIM_CPU_KNM)
        return "unknown CPU model";
    if (h->cpu != PMUSIM_CPU_NONE && pmusim_cpu_isa(h->cpu) != h->isa)
        return "CPU model does not match the ISA";
    if (h->nthreads < 1 || h->nthreads > PMUSIM_MAX_THREADS)
        return "number of threads must be 1..8";
    guint n = h->meta_keys ? h->meta_keys->len : 0;
    if (n > TR_MAX_META)
        return "more than 256 metadata entries";
    if ((h->meta_values ? h->meta_values->len : 0) != n)
        return "metadata keys and values differ in number";
    for (guint i = 0; i < n; i++) {
        const char *k = g_ptr_array_index(h->meta_keys, i);
        const char *v = g_ptr_array_index(h->meta_values, i);
        if (!k || !*k || strlen(k) > TR_MAX_STRING)
            return "metadata key empty or longer than 4096 bytes";
        if (!v || strlen(v) > TR_MAX_STRING)
            return "metadata value missing or longer than 4096 bytes";
    }
    return NULL;
}

const char *tr_mem_follows(const pmusim_rec_t *prev, const pmusim_rec_t *mem)
{
    if (!prev || (prev->kind != PMUSIM_REC_INSN && prev->kind != PMUSIM_REC_MEM))
        return "MEM record not directly after an INSN record or another MEM record";
    if (prev->kind == PMUSIM_REC_INSN && !(prev->flags & PMUSIM_F_MEM))
        return "MEM record after an INSN without a memory part (the first access goes in the "
               "INSN)";
    if (prev->thread != mem->thread || prev->cycle != mem->cycle)
        return "MEM record not on the thread and cycle of its INSN record";
    return NULL;
}

void tr_rec_normalize(pmusim_rec_t *r, const pmusim_rec_t *insn)
{
    switch (r->kind) {
    case PMUSIM_REC_MEM: {
        pmusim_rec_t z;
        memset(&z, 0, sizeof z);
        z.cycle = r->cycle;
        z.kind = r->kind;
        z.thread = r->thread;
        z.flags = PMUSIM_F_MEM;
        z.plm = insn ? insn->plm : r->plm;
        z.ip = insn ? insn->ip : r->ip;
        z.mem = r->mem;
        *r = z;
        break;
    }
    case PMUSIM_REC_INSN:
        r->n = 0;
        r->ev_code = r->ev_umask = 0;
        r->name = NULL;
        if (!(r->flags & PMUSIM_F_MEM)) {
            /* mem.rdep is the instruction's (trace.h) */
            const uint8_t rdep = r->mem.rdep;
            memset(&r->mem, 0, sizeof r->mem);
            r->mem.rdep = rdep;
        }
        if (!(r->flags & PMUSIM_F_BRANCH))
            memset(&r->br, 0, sizeof r->br);
        if (!(r->flags & PMUSIM_F_OFFCORE))
            memset(&r->oc, 0, sizeof r->oc);
        break;
    default: {
        pmusim_rec_t z;
        memset(&z, 0, sizeof z);
        z.cycle = r->cycle;
        z.kind = r->kind;
        z.thread = r->thread;
        if (r->kind == PMUSIM_REC_IDLE || r->kind == PMUSIM_REC_EVENT)
            z.plm = r->plm;
        if (r->kind != PMUSIM_REC_MARKER)
            z.n = r->n;
        if (r->kind == PMUSIM_REC_EVENT) {
            z.ev_code = r->ev_code;
            z.ev_umask = r->ev_umask;
        }
        if (r->kind == PMUSIM_REC_MARKER)
            z.name = r->name;
        *r = z;
        break;
    }
    }
}

static const char *tr_mem_check(const pmusim_trace_header_t *h, const pmusim_mem_t *m)
{
    if (m->level >= PMUSIM_LVL_COUNT)
        return "unknown memory level";
    if (m->level == PMUSIM_LVL_LFB && h->isa == PMUSIM_ISA_IA64)
        return "memory level lfb (a line fill buffer) on IA-64: an x86 level";
    if (m->tlb >= PMUSIM_TLB_COUNT)
        return "unknown TLB outcome";
    if (m->alat >= PMUSIM_ALAT_COUNT)
        return "unknown ALAT outcome";
    if (m->is_store > 1)
        return "is_store not 0 or 1";
    if (m->dep) {
        if (h->isa == PMUSIM_ISA_IA64)
            return "memory dep (a load's address dependence) on IA-64: x86 only";
        if (m->is_store)
            return "memory dep (a load's address dependence) on a store";
        if (m->dep > PMUSIM_MEM_MAX_DEP)
            return "memory dep above 63";
    }
    return NULL;
}

const char *tr_rdep_check(gboolean ia64, unsigned flags, unsigned is_store, unsigned rdep)
{
    if (!rdep)
        return NULL;
    if (ia64)
        return "register dep (an instruction's dependence on a load) on IA-64: x86 only";
    if ((flags & PMUSIM_F_MEM) && !is_store)
        return "register dep (an instruction's dependence on a load) on a load";
    if (flags & PMUSIM_F_BRANCH)
        return "register dep (an instruction's dependence on a load) on a branch (bdep is its)";
    if (rdep > PMUSIM_MEM_MAX_DEP)
        return "register dep above 63";
    return NULL;
}

const char *tr_br_dep_check(gboolean ia64, unsigned kind, unsigned dep)
{
    if (!dep)
        return NULL;
    if (ia64)
        return "branch dep (a branch's dependence on a load) on IA-64: x86 only";
    if (kind == PMUSIM_BR_IPREL || kind == PMUSIM_BR_CALL)
        return "branch dep (a branch's dependence on a load) on a direct jump or call";
    if (dep > PMUSIM_BR_MAX_DEP)
        return "branch dep above 63";
    return NULL;
}

/* Everything the binary and text forms can represent; the writer refuses the
 * rest so that every written trace reads back identically. */
const char *tr_rec_check(const pmusim_trace_header_t *h, const pmusim_rec_t *r)
{
    if (r->thread >= h->nthreads)
        return "thread number not below the header's thread count";
    switch (r->kind) {
    case PMUSIM_REC_INSN:
        if (r->plm > 3)
            return "privilege level above 3";
        if (r->slot > 2)
            return "IA-64 slot above 2";
        if (r->unit > PMUSIM_UNIT_LX)
            return "unknown IA-64 unit type";
        if (r->insn >> 41)
            return "IA-64 encoding wider than 41 bits";
        if (h->isa != PMUSIM_ISA_IA64 && r->slot)
            return "slot must be 0 on x86_64";
        if (h->isa == PMUSIM_ISA_IA64 && (r->ip & 15))
            return "IA-64 IP not a 16-byte aligned bundle address";
        if (PMUSIM_REC_OPKIND(r->flags) >= PMUSIM_OPK_COUNT)
            return "unknown operation kind (flag bits 10-13 above 10)";
        if (r->flags & PMUSIM_F_MEM) {
            const char *bad = tr_mem_check(h, &r->mem);
            if (bad)
                return bad;
        }
        if (r->flags & PMUSIM_F_BRANCH) {
            if (r->br.kind >= PMUSIM_BR_COUNT)
                return "unknown branch kind";
            if (r->br.taken > 1 || r->br.dir_ok > 1 || r->br.tgt_ok > 1)
                return "branch taken/dir_ok/tgt_ok not 0 or 1";
            if (r->br.detect >= PMUSIM_BRD_COUNT)
                return "unknown misprediction detection point";
            if (r->br.dep) {
                const char *bad = tr_br_dep_check(h->isa == PMUSIM_ISA_IA64, r->br.kind, r->br.dep);
                if (bad)
                    return bad;
            }
        }
        if (r->mem.rdep)
            return tr_rdep_check(h->isa == PMUSIM_ISA_IA64, r->flags, r->mem.is_store,
                                 r->mem.rdep);
        return NULL;
    case PMUSIM_REC_MEM:
        if (r->mem.rdep)
            return "register dep (an instruction's dependence on a load) on a MEM record";
        return tr_mem_check(h, &r->mem);
    case PMUSIM_REC_IDLE:
        if (r->plm > 3)
            return "privilege level above 3";
        if (r->n == 0)
            return "IDLE with 0 cycles";
        if (r->cycle + r->n < r->cycle)
            return "IDLE cycles overflow";
        return NULL;
    case PMUSIM_REC_THREAD:
        if (r->n > 1)
            return "THREAD state not 0 (inactive) or 1 (active)";
        return NULL;
    case PMUSIM_REC_EVENT:
        if (r->plm > 3)
            return "privilege level above 3";
        return NULL;
    case PMUSIM_REC_MARKER:
        if (!r->name || !*r->name || strlen(r->name) > TR_MAX_STRING)
            return "MARKER name empty or longer than 4096 bytes";
        return NULL;
    default:
        return "unknown record kind";
    }
}

void tr_escape(GString *out, const char *s, gboolean keep_space)
{
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        /* interior spaces only: the reader trims the ends of a line */
        gboolean space_ok = keep_space && p != (const unsigned char *)s && p[1];
        if ((*p > 0x20 && *p < 0x7f && *p != '\\') || (space_ok && *p == ' '))
            g_string_append_c(out, (char)*p);
        else
            g_string_append_printf(out, "\\x%02x", *p);
    }
}

char *tr_unescape(const char *s, size_t len)
{
    GString *o = g_string_sized_new(len);
    for (size_t i = 0; i < len; i++) {
        if (s[i] != '\\') {
            g_string_append_c(o, s[i]);
            continue;
        }
        if (i + 3 >= len || s[i + 1] != 'x' || !g_ascii_isxdigit(s[i + 2]) ||
            !g_ascii_isxdigit(s[i + 3])) {
            g_string_free(o, TRUE);
            return NULL;
        }
        int v = g_ascii_xdigit_value(s[i + 2]) * 16 + g_ascii_xdigit_value(s[i + 3]);
        if (v == 0) {
            g_string_free(o, TRUE);
            return NULL;
        }
        g_string_append_c(o, (char)v);
        i += 3;
    }
    return g_string_free(o, FALSE);
}

static const char *const annotation_names[PMUSIM_ANN_COUNT_] = {
    "levels", "tlb", "pred", "brkind", "offcore", "timing",
    "uops", "symbols", "alat", "events", "allmem", "fp", "callkind", "fpclass",
    "opkind", "lock", "lfb", "stfwd", "dep", "fuse", "brdep", "rsdep",
};

const char *pmusim_annotation_name(uint32_t bit)
{
    for (unsigned i = 0; i < PMUSIM_ANN_COUNT_; i++)
        if (bit == (1u << i))
            return annotation_names[i];
    return NULL;
}

uint32_t pmusim_trace_header_annotations(const pmusim_trace_header_t *h)
{
    const char *v = pmusim_trace_header_get_meta(h, "annotations");
    if (!v)
        return PMUSIM_ANN_ALL;
    uint32_t mask = 0;
    gchar **parts = g_strsplit(v, ",", -1);
    for (gchar **p = parts; *p; p++) {
        const char *name = g_strstrip(*p);
        for (unsigned i = 0; i < PMUSIM_ANN_COUNT_; i++)
            if (strcmp(name, annotation_names[i]) == 0)
                mask |= 1u << i;
    }
    g_strfreev(parts);
    return mask;
}

static gint key_cmp(gconstpointer a, gconstpointer b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

/* One entry of the "events" key: "0xCC/0xUU", or "0xCC/" and an asterisk
 * (any umask); FALSE when malformed.  CC is an EVENT record's code, 16 bits
 * (IA-64 model fact records use code 0x100: docs/trace-events-ia64.md). */
static gboolean parse_event_pair(const char *s, uint32_t *key)
{
    char *end;
    if (!g_str_has_prefix(s, "0x") || !g_ascii_isxdigit(s[2]))
        return FALSE;
    guint64 code = g_ascii_strtoull(s + 2, &end, 16);
    if (code > 0xffff || *end != '/')
        return FALSE;
    const char *u = end + 1;
    if (strcmp(u, "*") == 0) {
        *key = (uint32_t)code << 16 | PMUSIM_EVENT_ANY_UMASK;
        return TRUE;
    }
    if (!g_str_has_prefix(u, "0x") || !g_ascii_isxdigit(u[2]))
        return FALSE;
    guint64 umask = g_ascii_strtoull(u + 2, &end, 16);
    if (umask > 0xff || *end)
        return FALSE;
    *key = (uint32_t)code << 16 | (uint32_t)umask;
    return TRUE;
}

/* The pairs of an event-list key ("events", "evsum", "evspan"), sorted; NULL when
 * the key is absent. */
static GArray *header_event_pairs(const pmusim_trace_header_t *h, const char *name)
{
    const char *v = pmusim_trace_header_get_meta(h, name);
    if (!v)
        return NULL;
    GArray *keys = g_array_new(FALSE, FALSE, sizeof(uint32_t));
    gchar **parts = g_strsplit(v, ",", -1);
    for (gchar **p = parts; *p; p++) {
        uint32_t key;
        if (parse_event_pair(g_strstrip(*p), &key))
            g_array_append_val(keys, key);
    }
    g_strfreev(parts);
    g_array_sort(keys, key_cmp);
    return keys;
}

GArray *pmusim_trace_header_declared_events(const pmusim_trace_header_t *h)
{
    return header_event_pairs(h, "events");
}

GArray *pmusim_trace_header_summed_events(const pmusim_trace_header_t *h)
{
    return header_event_pairs(h, "evsum");
}

GArray *pmusim_trace_header_span_events(const pmusim_trace_header_t *h)
{
    return header_event_pairs(h, "evspan");
}

gboolean pmusim_declared_events_has(const GArray *keys, uint32_t code, uint32_t umask)
{
    if (!keys)
        return FALSE;
    for (guint i = 0; i < keys->len; i++) {
        uint32_t k = g_array_index(keys, uint32_t, i);
        if (k >> 16 == code && ((k & 0xffff) == umask || (k & 0xffff) == PMUSIM_EVENT_ANY_UMASK))
            return TRUE;
    }
    return FALSE;
}

void pmusim_trace_header_set_annotations(pmusim_trace_header_t *h, uint32_t mask)
{
    GString *s = g_string_new(NULL);
    for (unsigned i = 0; i < PMUSIM_ANN_COUNT_; i++)
        if (mask & (1u << i))
            g_string_append_printf(s, "%s%s", s->len ? "," : "", annotation_names[i]);
    pmusim_trace_header_set_meta(h, "annotations", s->str);
    g_string_free(s, TRUE);
}
