/* Internal definitions shared by the trace reader, writer and tools.
 * The binary layout itself is specified in traces/FORMAT.md; the codec
 * state below must evolve identically in writer and reader, which is what
 * makes the delta coding work (both sides predict the same values). */
#ifndef PMUSIM_TRACE_PRIV_H
#define PMUSIM_TRACE_PRIV_H

#include "pmusim/trace.h"

/* ---- documented limits (FORMAT.md "Limits") ---- */
#define TR_MAX_STRING 4096u          /* bytes in a name, key or value */
#define TR_MAX_META 256u             /* metadata entries */
#define TR_MAX_MARKER_NAMES 65536u   /* distinct interned marker names */
#define TR_MAX_SYMBOLS (1u << 20)    /* symbol table entries */
#define TR_MAX_LINE 65536u           /* text form: bytes in one line */
#define TR_ZSTD_WINDOW_LOG_MAX 24    /* decompression window: 16 MiB */

#define TR_MAGIC "PMUTRACE"
#define TR_MAGIC_LEN 8u
#define TR_TEXT_MAGIC "pmusim-trace"

/* ---- binary record header bytes ---- */
/* INSN record: bit 7 clear; the other bits say what is explicit. */
#define TR_H_CYC_MASK 0x03u   /* cycle delta 0, 1, 2, or 3 = varint follows */
#define TR_H_POS 0x04u        /* position (IP/slot) explicit: zigzag delta from the prediction */
#define TR_H_FIELDS 0x08u     /* a field mask follows: static fields differ from the IP-cache entry */
#define TR_H_MEMDYN 0x10u     /* memory level/tlb/alat byte + latency varint follow */
#define TR_H_MEMADDR 0x20u    /* memory address explicit: zigzag delta from the stride prediction */
#define TR_H_BRDYN 0x40u      /* branch outcome byte follows */
/* other records: bit 7 set */
#define TR_OP_THREAD_SEL 0x80u /* 0x80 | t: later records belong to thread t */
#define TR_OP_IDLE 0x90u
#define TR_OP_THREADSTATE 0x91u
#define TR_OP_EVENT 0x92u
#define TR_OP_MARKER 0x93u
#define TR_OP_SYMBOL 0x94u
#define TR_OP_END 0x95u
#define TR_OP_MEM 0x96u        /* format v2: a further memory access of the last INSN */
#define TR_OP_MEMDEP 0x97u     /* the same with a dep byte (since session 20) */

/* the highest record kind */
#define TR_KIND_MAX PMUSIM_REC_MEM
/* the name-table size limit: total bytes of all symbol names */
#define TR_MAX_SYMBOL_BYTES (64u * 1024u * 1024u)
#define TR_MAX_MARKER_BYTES (16u * 1024u * 1024u)

/* field mask bits (after TR_H_FIELDS) */
enum {
    TR_M_FLAGS = 1u << 0,
    TR_M_PLM = 1u << 1,
    TR_M_UNIT = 1u << 2,
    TR_M_INSN = 1u << 3,
    TR_M_LEN = 1u << 4,
    TR_M_UOPS = 1u << 5,
    TR_M_MEMSTATIC = 1u << 6, /* size, is_store */
    TR_M_BRKIND = 1u << 7,
    TR_M_BRTARGET = 1u << 8,  /* zigzag delta from the record's IP */
    TR_M_OCLAT = 1u << 9,
    TR_M_OCBITS = 1u << 10,   /* req, supplier, snoop */
    TR_M_MEMDEP = 1u << 11,   /* mem.dep:u8 (since session 20) */
    TR_M_BRDEP = 1u << 12,    /* br.dep:u8 (since session 21) */
    TR_M_RDEP = 1u << 13,     /* mem.rdep:u8 (since session 22) */
    TR_M_ALL = (1u << 14) - 1,
};

#define TR_CACHE_BITS 10u
#define TR_CACHE_SIZE (1u << TR_CACHE_BITS)

/* One IP-cache entry: the last record seen at a position hashing here, and
 * the stride between its last two memory addresses. */
typedef struct tr_cache_ent {
    pmusim_rec_t rec;
    int64_t stride;
    /* decoder only: the position `rec` was decoded at, the position that
     * follows it and that position's cache index, so that a record equal to
     * its entry predicts the next one without recomputing (this breaks the
     * record-to-record dependency chain in the hot loop) */
    uint64_t pos, next;
    struct tr_cache_ent *next_ent; /* &cache[tr_cache_index(next)] */
    /* decoder only: the stride the one-byte fast path applies: `stride` for
     * an instruction with a memory part, 0 otherwise, so that no input can
     * make the fast path give an address to an instruction without one (the
     * writer never takes the fast path there: it codes the address) */
    int64_t fast_stride;
} tr_cache_ent_t;

typedef struct tr_codec {
    uint64_t cycle;
    unsigned thread;
    gboolean ia64;
    unsigned version;      /* of the stream: 1 has no plm in IDLE/EVENT and no MEM */
    gboolean have_prev;    /* decoder: `prev` holds the last record of earlier batches */
    pmusim_rec_t prev;
    uint8_t cur_plm[PMUSIM_MAX_THREADS]; /* decoder, v1: plm of each thread's last INSN */
    uint64_t next_pos[PMUSIM_MAX_THREADS];
    /* decoder only: &cache[tr_cache_index(next_pos[t])], kept across thread
     * switches so that a switch does not put a multiply before the next
     * entry's load */
    struct tr_cache_ent *next_ent[PMUSIM_MAX_THREADS];
    tr_cache_ent_t cache[TR_CACHE_SIZE];
} tr_codec_t;

/* The memory levels an ISA's trace may hold are those below this: lfb, a
 * line fill buffer, is an x86 level (tr_mem_check() says so by name). */
static inline unsigned tr_level_limit(gboolean ia64)
{
    return ia64 ? PMUSIM_LVL_LFB : PMUSIM_LVL_COUNT;
}

static inline unsigned tr_cache_index(uint64_t pos)
{
    return (unsigned)((pos * UINT64_C(0x9E3779B97F4A7C15)) >> (64 - TR_CACHE_BITS));
}

static inline uint64_t tr_pos(gboolean ia64, const pmusim_rec_t *r)
{
    return ia64 ? (r->ip | r->slot) : r->ip;
}

/* Where the next instruction of the same thread is expected. */
static inline uint64_t tr_next_pos(gboolean ia64, const pmusim_rec_t *r)
{
    if ((r->flags & PMUSIM_F_BRANCH) && r->br.taken)
        return r->br.target;
    if (!ia64)
        return r->ip + r->len;
    unsigned last = r->unit == PMUSIM_UNIT_LX ? 2u : r->slot;
    return last >= 2 ? r->ip + 16 : (r->ip | (last + 1));
}

static inline uint64_t tr_zigzag(int64_t v)
{
    return ((uint64_t)v << 1) ^ (uint64_t)(v >> 63);
}

static inline int64_t tr_unzigzag(uint64_t v)
{
    return (int64_t)(v >> 1) ^ -(int64_t)(v & 1);
}

/* ---- common.c ---- */
/* Checks a record against the header; returns NULL or a static description
 * of what is wrong. */
const char *tr_rec_check(const pmusim_trace_header_t *h, const pmusim_rec_t *r);
/* NULL or what is wrong with a branch's dep (br.dep) of kind `kind`. */
const char *tr_br_dep_check(gboolean ia64, unsigned kind, unsigned dep);
/* NULL or what is wrong with an instruction's mem.rdep `rdep` (not 0)
 * under its flags and memory part. */
const char *tr_rdep_check(gboolean ia64, unsigned flags, unsigned is_store, unsigned rdep);
/* Zeroes the fields a record of its kind does not use (the canonical form).
 * A MEM record takes ip and plm from `insn`, its instruction (which the
 * caller has checked with tr_mem_follows()). */
void tr_rec_normalize(pmusim_rec_t *r, const pmusim_rec_t *insn);
/* NULL if a MEM record may follow `prev` (the previous record, NULL if none):
 * an INSN with a memory part, or another MEM, of the same thread and cycle. */
const char *tr_mem_follows(const pmusim_rec_t *prev, const pmusim_rec_t *mem);
/* The byte that packs a memory part's dynamic fields in a MEM record. */
static inline uint8_t tr_mem_byte(const pmusim_mem_t *m)
{
    return (uint8_t)(m->is_store | m->level << 1 | m->tlb << 4 | m->alat << 6);
}
const char *tr_header_check(const pmusim_trace_header_t *h);
void tr_header_copy(pmusim_trace_header_t *dst, const pmusim_trace_header_t *src);

/* Text-form escaping: bytes outside 0x21..0x7e (0x20 too when !keep_space)
 * and the backslash become \xHH. */
void tr_escape(GString *out, const char *s, gboolean keep_space);
/* Returns a newly allocated string or NULL if the escape is malformed. */
char *tr_unescape(const char *s, size_t len);

extern const char *const tr_kind_names[];
extern const char *const tr_unit_names[];
extern const char *const tr_level_names[];
extern const char *const tr_tlb_names[];
extern const char *const tr_alat_names[];
extern const char *const tr_brkind_names[];
extern const char *const tr_fpclass_names[]; /* pmusim_fp_class_t: none x87 mmx ss sd ps pd vi */
/* pmusim_op_kind_t: none pack unpack packed_arith packed_logical packed_mpy
 * packed_shift shuffle_move mul div */
extern const char *const tr_opkind_names[];
extern const char *const tr_detect_names[];

#endif
