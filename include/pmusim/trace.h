/* pmusim trace records: the in-memory form of one trace record, shared by
 * the trace reader/writer (traces/), the generators and the PMU models (sim/).
 *
 * A trace is a header followed by records in non-decreasing cycle order.
 * The on-disk forms (binary zstd stream and text) are specified in
 * traces/FORMAT.md; this header is the decoded view every consumer sees.
 */
#ifndef PMUSIM_TRACE_H
#define PMUSIM_TRACE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <glib.h>

G_BEGIN_DECLS

/* The version the writer writes; the reader reads 1 and 2 (FORMAT.md). */
#define PMUSIM_TRACE_VERSION 2u
#define PMUSIM_TRACE_VERSION_MIN 1u

typedef enum pmusim_isa {
    PMUSIM_ISA_NONE = 0,
    PMUSIM_ISA_IA64 = 1,
    PMUSIM_ISA_X86_64 = 2,
} pmusim_isa_t;

/* CPU model hint carried in the trace header; also names the PMU models. */
typedef enum pmusim_cpu {
    PMUSIM_CPU_NONE = 0,
    PMUSIM_CPU_ITA2 = 1,   /* Itanium 2 (McKinley/Madison) */
    PMUSIM_CPU_MONT = 2,   /* Itanium 2 9000 (Montecito), 2 threads/core */
    PMUSIM_CPU_WSM = 3,    /* Westmere (model 37), 2 threads/core */
    PMUSIM_CPU_WSM_DP = 4, /* Westmere DP / EX (models 44, 47), 2 threads/core */
    PMUSIM_CPU_KNM = 5,    /* Knights Mill (model 133), 4 threads/core */
} pmusim_cpu_t;

#define PMUSIM_MAX_THREADS 8u

/* Record kinds. */
typedef enum pmusim_rec_kind {
    PMUSIM_REC_INSN = 1,   /* one retired instruction (optionally with mem/branch/offcore) */
    PMUSIM_REC_IDLE = 2,   /* n cycles [cycle, cycle+n) with no retirement on `thread`;
                            * plm: the level those cycles count at (default: the
                            * plm of the thread's last INSN, filled by the reader) */
    PMUSIM_REC_THREAD = 3, /* thread active state changes at `cycle`: n = 1 active, 0 inactive */
    PMUSIM_REC_EVENT = 4,  /* explicit event occurrences: ev_code/ev_umask, n occurrences in
                            * `cycle`, at privilege level plm (default as for IDLE) */
    PMUSIM_REC_MARKER = 5, /* named point; `name` is owned by the reader */
    /* Format v2: a further memory access of the INSN record that precedes it
     * on the same thread, in the same cycle (read-modify-write, string
     * operations, push/pop of a memory operand ...).  Only cycle, thread, plm,
     * ip (the instruction's) and mem are meaningful; flags is PMUSIM_F_MEM.
     * The INSN record holds the instruction's first access in its own `mem`
     * (so it has PMUSIM_F_MEM), and its MEM records follow it directly.  The
     * reader fills ip and plm from the INSN; the writer takes them from it. */
    PMUSIM_REC_MEM = 6,
} pmusim_rec_kind_t;

/* Instruction flags (pmusim_rec_t.flags). */
enum {
    PMUSIM_F_MEM = 1u << 0,      /* `mem` is valid */
    PMUSIM_F_BRANCH = 1u << 1,   /* `br` is valid */
    PMUSIM_F_OFFCORE = 1u << 2,  /* `oc` is valid (x86) */
    PMUSIM_F_IA32 = 1u << 3,     /* IA-64 CPU executing IA-32 code (instruction set bit) */
    PMUSIM_F_NOP = 1u << 4,      /* instruction is a NOP */
    PMUSIM_F_PRED_OFF = 1u << 5, /* IA-64: retired with a false qualifying predicate */
    PMUSIM_F_FP = 1u << 6,       /* floating-point operation */
    /* Bits 7-9: the instruction's FP/SIMD class (pmusim_fp_class_t), x86,
     * valid with the "fpclass" annotation; 0 = none of the classes.  In
     * the flags so that a record costs nothing more: the binary form codes
     * the flags only where they differ from the IP-cache entry's. */
    PMUSIM_F_FPCLASS_SHIFT = 7,
    PMUSIM_F_FPCLASS_MASK = 7u << 7,
    /* Bits 10-13: the instruction's operation kind (pmusim_op_kind_t), x86,
     * valid with the "opkind" annotation (kind 10, fused, with the "fuse"
     * annotation); values 11-15 are refused by the reader. */
    PMUSIM_F_OPKIND_SHIFT = 10,
    PMUSIM_F_OPKIND_MASK = 15u << 10,
    /* Bit 14: a locked instruction, x86 (a LOCK prefix, or XCHG with a
     * memory operand, which locks without one), valid with the "lock"
     * annotation; its INSN record's memory part is the locked access's
     * load. */
    PMUSIM_F_LOCK = 1u << 14,
    /* Bit 15: a store-forwarding block, x86 (the last free bit of the
     * 16-bit flags): the INSN record's memory part is a load that overlaps
     * an older store still in the store buffer but cannot take its data
     * (not wholly inside it); set by the microarchitecture model, valid
     * with the "stfwd" annotation (docs/UARCH.md §1, "Store forwarding"). */
    PMUSIM_F_STFWD_BLOCK = 1u << 15,
};

/* FP/SIMD class of an x86 instruction (PMUSIM_F_FPCLASS_MASK of the flags;
 * docs/CAPTURE.md "Decoding" says how the capture classifies).  The classes
 * are those Intel's events distinguish (docs/trace-events-x86.md). */
typedef enum pmusim_fp_class {
    PMUSIM_FPC_NONE = 0,
    PMUSIM_FPC_X87 = 1,  /* x87 floating point */
    PMUSIM_FPC_MMX = 2,  /* MMX (an MMX register operand) */
    PMUSIM_FPC_SS = 3,   /* SSE/AVX scalar single precision */
    PMUSIM_FPC_SD = 4,   /* SSE/AVX scalar double precision */
    PMUSIM_FPC_PS = 5,   /* SSE/AVX packed single precision */
    PMUSIM_FPC_PD = 6,   /* SSE/AVX packed double precision */
    PMUSIM_FPC_VI = 7,   /* SSE/AVX packed (vector) integer */
    PMUSIM_FPC_COUNT
} pmusim_fp_class_t;
#define PMUSIM_REC_FPCLASS(flags) (((unsigned)(flags) >> PMUSIM_F_FPCLASS_SHIFT) & 7u)

/* Operation kind of an x86 instruction (PMUSIM_F_OPKIND_MASK of the flags;
 * docs/CAPTURE.md "Decoding" says how the capture classifies): the kinds
 * Westmere's SIMD_INT_64 / SIMD_INT_128 unit masks and ARITH:MUL/DIV
 * count (docs/trace-events-x86.md).  The packed kinds are of packed-integer
 * instructions (FP/SIMD class mmx or vi); MUL and DIV are scalar integer,
 * x87 and SSE/AVX floating-point multiplies and divides (DIV also square
 * roots, which Intel executes on the divider). */
typedef enum pmusim_op_kind {
    PMUSIM_OPK_NONE = 0,
    PMUSIM_OPK_PACK = 1,           /* packs with saturation (packsswb ...) */
    PMUSIM_OPK_UNPACK = 2,         /* unpacks / interleaves (punpcklbw ...) */
    PMUSIM_OPK_PACKED_ARITH = 3,   /* packed add, subtract, compare, average, min/max ... */
    PMUSIM_OPK_PACKED_LOGICAL = 4, /* pand, pandn, por, pxor, ptest */
    PMUSIM_OPK_PACKED_MPY = 5,     /* packed multiplies (pmullw, pmaddwd ...) */
    PMUSIM_OPK_PACKED_SHIFT = 6,   /* packed shifts (psllw ... psrldq) */
    PMUSIM_OPK_SHUFFLE_MOVE = 7,   /* register moves, shuffles, inserts, extracts */
    PMUSIM_OPK_MUL = 8,            /* a multiply: integer (mul, imul) or FP (fmul, mulsd ...) */
    PMUSIM_OPK_DIV = 9,            /* a divide or square root: integer or FP */
    /* CMP or TEST that Westmere's decoders fuse with the next INSN of its
     * thread, a conditional branch, into one macro-op (since session 20,
     * with the "fuse" annotation; docs/UARCH.md §1 "Macro-fusion") */
    PMUSIM_OPK_FUSED = 10,
    PMUSIM_OPK_COUNT
} pmusim_op_kind_t;
#define PMUSIM_REC_OPKIND(flags) (((unsigned)(flags) >> PMUSIM_F_OPKIND_SHIFT) & 15u)

/* IA-64 unit type of the slot executing the instruction. */
typedef enum pmusim_unit {
    PMUSIM_UNIT_M = 0,
    PMUSIM_UNIT_I = 1,
    PMUSIM_UNIT_F = 2,
    PMUSIM_UNIT_B = 3,
    PMUSIM_UNIT_LX = 4, /* L+X long-immediate pair */
} pmusim_unit_t;

/* Which level of the memory hierarchy served a memory access. */
typedef enum pmusim_mem_level {
    PMUSIM_LVL_L1D = 0,
    PMUSIM_LVL_L2 = 1,
    PMUSIM_LVL_L3 = 2,
    PMUSIM_LVL_LOCAL_DRAM = 3,
    PMUSIM_LVL_REMOTE_DRAM = 4,
    PMUSIM_LVL_REMOTE_CACHE = 5,
    /* x86 (since session 19, the "lfb" annotation): a load that missed the
     * L1D and found its line already on its way in a line fill buffer, the
     * miss of an earlier access (Intel's "pending core cache hit") */
    PMUSIM_LVL_LFB = 6,
    PMUSIM_LVL_COUNT
} pmusim_mem_level_t;

typedef enum pmusim_tlb_outcome {
    PMUSIM_TLB_L1_HIT = 0,   /* first-level DTLB hit */
    PMUSIM_TLB_L2_HIT = 1,   /* first level missed, second-level TLB hit */
    PMUSIM_TLB_WALK = 2,     /* hardware page walk (VHPT walker on IA-64) */
    PMUSIM_TLB_FAULT = 3,    /* software handled miss / fault */
    PMUSIM_TLB_COUNT
} pmusim_tlb_outcome_t;

typedef enum pmusim_alat_outcome {
    PMUSIM_ALAT_NONE = 0, /* not an ALAT-checking instruction */
    PMUSIM_ALAT_HIT = 1,  /* ld.c / chk.a found its entry */
    PMUSIM_ALAT_MISS = 2, /* ld.c / chk.a missed */
    PMUSIM_ALAT_COUNT
} pmusim_alat_outcome_t;

typedef struct pmusim_mem {
    uint64_t addr;
    uint32_t latency;  /* cycles from issue to data */
    uint8_t size;      /* bytes */
    uint8_t is_store;  /* 0 load, 1 store */
    uint8_t level;     /* pmusim_mem_level_t */
    uint8_t tlb;       /* pmusim_tlb_outcome_t */
    uint8_t alat;      /* pmusim_alat_outcome_t */
    /* x86 loads: the address depends on the data of the load this many
     * loads back in the thread (1 the previous load; 1..PMUSIM_MEM_MAX_DEP),
     * 0 none or unknown (the "dep" annotation, FORMAT.md §2); 0 on stores
     * and on IA-64 */
    uint8_t dep;
    /* Not a field of the access: the instruction's, kept in this part's
     * padding so that pmusim_rec_t keeps its 104 bytes, and the one field
     * of this part that an INSN record without the memory flag may hold.
     * x86 instructions that are neither loads nor branches (ALU operations,
     * stores: since session 22, the "rsdep" annotation, FORMAT.md §2): one
     * of its source registers or flags (a store's data or address
     * registers included) holds the data of the load this many loads back
     * in the thread (1 the newest load so far; 1..PMUSIM_MEM_MAX_DEP), the
     * newest such load; 0 none or unknown; 0 on loads, branches, MEM
     * records and IA-64 */
    uint8_t rdep;
} pmusim_mem_t;
#define PMUSIM_MEM_MAX_DEP 63u

typedef enum pmusim_br_kind {
    PMUSIM_BR_COND = 0,     /* conditional direct */
    PMUSIM_BR_CALL = 1,
    PMUSIM_BR_RET = 2,
    PMUSIM_BR_IND = 3,      /* indirect jump */
    PMUSIM_BR_IPREL = 4,    /* unconditional IP-relative */
    /* an indirect call (x86 `call reg/mem`; IA-64 br.call through a branch
     * register).  PMUSIM_BR_CALL is a direct one where the trace has the
     * "callkind" annotation, either kind of call where it has not (traces
     * written before this kind existed). */
    PMUSIM_BR_ICALL = 5,
    PMUSIM_BR_COUNT
} pmusim_br_kind_t;

/* Where a misprediction was detected (IA-64 BTB/ETB record this). */
typedef enum pmusim_br_detect {
    PMUSIM_BRD_NONE = 0,     /* correctly predicted */
    PMUSIM_BRD_FRONTEND = 1, /* resteered in the front end (BAC/BPU) */
    PMUSIM_BRD_BACKEND = 2,  /* detected at execution/retirement */
    PMUSIM_BRD_COUNT
} pmusim_br_detect_t;

typedef struct pmusim_branch {
    uint64_t target;
    uint8_t kind;    /* pmusim_br_kind_t */
    uint8_t taken;   /* 0/1 */
    uint8_t dir_ok;  /* direction predicted correctly */
    uint8_t tgt_ok;  /* target predicted correctly */
    uint8_t detect;  /* pmusim_br_detect_t */
    /* x86 conditional and indirect branches (since session 21, the "brdep"
     * annotation, FORMAT.md §2): the condition (flags) or the target
     * register depends on the data of the load this many loads back in the
     * thread (1 the newest load so far, the branch's own included;
     * 1..PMUSIM_BR_MAX_DEP), 0 none or unknown; 0 on IA-64 and on direct
     * unconditional jumps */
    uint8_t dep;
} pmusim_branch_t;
#define PMUSIM_BR_MAX_DEP 63u

#define PMUSIM_OFFCORE_NONE 0xffu

/* One offcore request (x86).  The fields are bit numbers of the CPU model's
 * MSR_OFFCORE_RSP_x layout (docs/trace-events.md), so the model matches them
 * against the programmed MSR with no translation: the request-type bit, the
 * response/supplier bit, and the snoop bit (PMUSIM_OFFCORE_NONE on Westmere,
 * which has no separate snoop field). */
typedef struct pmusim_offcore {
    uint32_t latency;  /* cycles the request stays outstanding, >= 1 */
    uint8_t req;
    uint8_t supplier;
    uint8_t snoop;
} pmusim_offcore_t;

typedef struct pmusim_rec {
    uint64_t cycle;     /* absolute core cycle */
    uint8_t kind;       /* pmusim_rec_kind_t */
    uint8_t thread;     /* hardware thread, < header.nthreads */
    uint16_t flags;     /* PMUSIM_F_* (INSN only) */
    uint8_t plm;        /* privilege level 0..3 (x86: ring) */
    uint8_t slot;       /* IA-64 slot 0..2 */
    uint8_t unit;       /* IA-64 pmusim_unit_t */
    uint8_t len;        /* x86 instruction length in bytes */
    uint64_t ip;        /* IA-64: bundle address (16-byte aligned); x86: linear IP */
    uint64_t insn;      /* IA-64 41-bit instruction encoding */
    uint64_t n;         /* IDLE: cycles; THREAD: active; EVENT: occurrences */
    uint16_t ev_code;   /* EVENT: event select */
    uint16_t ev_umask;  /* EVENT: unit mask */
    uint32_t uops;      /* x86: uops retired by the instruction (0 means 1) */
    const char *name;   /* MARKER: name, valid while the reader lives */
    pmusim_mem_t mem;
    pmusim_branch_t br;
    pmusim_offcore_t oc;
} pmusim_rec_t;

typedef struct pmusim_trace_header {
    uint32_t version;
    pmusim_isa_t isa;
    pmusim_cpu_t cpu;
    uint32_t nthreads;
    uint32_t flags;
    /* free key/value metadata, in file order (generator, seed, program ...) */
    GPtrArray *meta_keys;   /* of char*, owned */
    GPtrArray *meta_values; /* of char*, owned */
} pmusim_trace_header_t;

typedef struct pmusim_symbol {
    uint64_t start, end; /* [start, end) */
    char *name;
} pmusim_symbol_t;

/* ---- what the trace's producer filled in (format v2 header metadata) ----
 * The header key "annotations" lists, comma-separated, the names below.  A
 * field whose annotation is absent was not filled by the producer: a zero
 * there is "unknown", not "none", and the models report counters that
 * depend on it as not in the trace.  A trace without the key (format v1,
 * hand-written files) claims every annotation: its author wrote what the
 * records hold. */
enum pmusim_annotation {
    PMUSIM_ANN_LEVELS = 1u << 0,   /* "levels": mem.level and mem.latency from a cache model */
    PMUSIM_ANN_TLB = 1u << 1,      /* "tlb": mem.tlb (and the ITLB EVENT records) */
    PMUSIM_ANN_PRED = 1u << 2,     /* "pred": br.dir_ok, br.tgt_ok, br.detect */
    PMUSIM_ANN_BRKIND = 1u << 3,   /* "brkind": br.kind, and not-taken branches are present */
    PMUSIM_ANN_OFFCORE = 1u << 4,  /* "offcore": oc records for every request that left the core */
    PMUSIM_ANN_TIMING = 1u << 5,   /* "timing": cycles and IDLE gaps from a timing model */
    PMUSIM_ANN_UOPS = 1u << 6,     /* "uops": uops per instruction */
    PMUSIM_ANN_SYMBOLS = 1u << 7,  /* "symbols": the symbol table */
    PMUSIM_ANN_ALAT = 1u << 8,     /* "alat": mem.alat (IA-64) */
    PMUSIM_ANN_EVENTS = 1u << 9,   /* "events": EVENT records for facts no field holds */
    PMUSIM_ANN_ALLMEM = 1u << 10,  /* "allmem": every memory access (MEM records), not only the first */
    PMUSIM_ANN_FP = 1u << 11,      /* "fp": the FP flag */
    PMUSIM_ANN_CALLKIND = 1u << 12, /* "callkind": br.kind tells direct (call) from indirect (icall) calls */
    PMUSIM_ANN_FPCLASS = 1u << 13, /* "fpclass": the FP/SIMD class bits of the flags */
    PMUSIM_ANN_OPKIND = 1u << 14,  /* "opkind": the operation kind bits of the flags */
    PMUSIM_ANN_LOCK = 1u << 15,    /* "lock": the locked-instruction flag (PMUSIM_F_LOCK) */
    PMUSIM_ANN_LFB = 1u << 16,     /* "lfb": loads that hit a line fill buffer have mem.level lfb */
    PMUSIM_ANN_STFWD = 1u << 17,   /* "stfwd": the store-forwarding block flag (PMUSIM_F_STFWD_BLOCK) */
    PMUSIM_ANN_DEP = 1u << 18,     /* "dep": mem.dep, the loads' address dependences (x86) */
    PMUSIM_ANN_FUSE = 1u << 19,    /* "fuse": operation kind fused marks every pair Westmere macro-fuses */
    PMUSIM_ANN_BRDEP = 1u << 20,   /* "brdep": br.dep, the branches' dependences on loads (x86) */
    PMUSIM_ANN_RSDEP = 1u << 21,   /* "rsdep": mem.rdep, other instructions' dependences on loads (x86) */
    PMUSIM_ANN_COUNT_ = 22,
    PMUSIM_ANN_ALL = (1u << 22) - 1u,
};
/* Bit mask of the header's "annotations" key; PMUSIM_ANN_ALL when absent. */
uint32_t pmusim_trace_header_annotations(const pmusim_trace_header_t *h);
/* Writes the "annotations" key from a mask (names in the order above). */
void pmusim_trace_header_set_annotations(pmusim_trace_header_t *h, uint32_t mask);
/* "levels", "tlb", ... for one bit; NULL for anything else. */
const char *pmusim_annotation_name(uint32_t bit);

/* The header key "events" (docs/FORMAT.md, section 1): the EVENT records a
 * producer writes whenever their fact happens, comma-separated, each
 * "0xCC/0xUU" (the record's code, up to 16 bits: event select, IA-64 es or
 * IA-64 model fact 0x100; umask up to 8 bits) or "0xCC/" and an asterisk
 * (any umask).  A listed pair without a record in the trace happened zero
 * times; an unlisted one is unknown.  Returns the pairs as keys
 * CC << 16 | UU (UU = PMUSIM_EVENT_ANY_UMASK for the asterisk), sorted, or
 * NULL when the key is absent; entries that do not parse are left out (they
 * stay unknown). */
#define PMUSIM_EVENT_ANY_UMASK 0xffffu
GArray *pmusim_trace_header_declared_events(const pmusim_trace_header_t *h);
/* The header key "evsum" (docs/FORMAT.md, section 1), in the syntax of
 * "events": the EVENT records whose n occurrences may come from more than
 * one cycle (the model sums an instruction's stall or walk cycles, or a
 * port's uops over a span, into one record), so that a CMASK, INV or EDGE,
 * which compares one cycle's occurrences, cannot be applied to them.
 * Returned as by the function above; NULL when the key is absent (every
 * record then holds one cycle's occurrences). */
GArray *pmusim_trace_header_summed_events(const pmusim_trace_header_t *h);
/* The header key "evspan" (docs/FORMAT.md, section 2; since session 22), in
 * the syntax of "events": the EVENT records of which one of `n` stands for
 * one occurrence in each of n consecutive cycles (one page walk of n
 * cycles), so that a CMASK, INV or EDGE can be applied to the number of
 * such intervals in progress per cycle.  A pair in both "evsum" and
 * "evspan" is a span.  Returned as above; NULL when the key is absent. */
GArray *pmusim_trace_header_span_events(const pmusim_trace_header_t *h);
/* TRUE when `keys` (from the functions above) holds (code, umask) or (code, *). */
gboolean pmusim_declared_events_has(const GArray *keys, uint32_t code, uint32_t umask);

/* ---- errors ---- */
#define PMUSIM_TRACE_ERROR (pmusim_trace_error_quark())
GQuark pmusim_trace_error_quark(void);
typedef enum {
    PMUSIM_TRACE_ERROR_IO,        /* open/read/write failure */
    PMUSIM_TRACE_ERROR_FORMAT,    /* malformed content (message names file, offset/line, record) */
    PMUSIM_TRACE_ERROR_VERSION,   /* unsupported version */
    PMUSIM_TRACE_ERROR_TRUNCATED, /* ends in the middle of something */
    PMUSIM_TRACE_ERROR_LIMIT,     /* a hostile size beyond the documented limits */
} pmusim_trace_error_t;

/* ---- names (shared by text form, CLI and reports) ---- */
const char *pmusim_isa_name(pmusim_isa_t isa);
const char *pmusim_cpu_name(pmusim_cpu_t cpu);          /* "ita2", "mont", "wsm", "wsm_dp", "knm" */
pmusim_cpu_t pmusim_cpu_from_name(const char *name);     /* PMUSIM_CPU_NONE if unknown */
pmusim_isa_t pmusim_cpu_isa(pmusim_cpu_t cpu);

/* ---- reading: a streaming pull iterator, constant memory ---- */
typedef struct pmusim_trace_reader pmusim_trace_reader_t;

/* Opens binary or text form (detected from content); "-" is stdin.
 * Same as pmusim_trace_reader_open_ex(path, 0, error). */
pmusim_trace_reader_t *pmusim_trace_reader_open(const char *path, GError **error);

/* Reader open flags. */
enum {
    /* A text trace without its end line ("end COUNT", FORMAT.md §5) is an
     * error (TRUNCATED) instead of a warning.  The environment variable
     * PMUSIM_TRACE_STRICT=1 sets this flag for every reader. */
    PMUSIM_TRACE_OPEN_STRICT = 1u << 0,
    /* Warnings are only kept for pmusim_trace_reader_warning(), not printed
     * to stderr ("pmusim: warning: FILE: ...") as they are by default. */
    PMUSIM_TRACE_OPEN_QUIET = 1u << 1,
};
pmusim_trace_reader_t *pmusim_trace_reader_open_ex(const char *path, unsigned flags,
                                                   GError **error);
pmusim_trace_reader_t *pmusim_trace_reader_open_memory_ex(const void *data, size_t len,
                                                          const char *name, unsigned flags,
                                                          GError **error);
/* The last warning (a text trace that ended without its end line), or NULL. */
const char *pmusim_trace_reader_warning(const pmusim_trace_reader_t *r);
const pmusim_trace_header_t *pmusim_trace_reader_header(const pmusim_trace_reader_t *r);
/* Fills up to `max` records; returns the number filled, 0 at end of trace,
 * or -1 with `error` set.  The hot path of every replay. */
gssize pmusim_trace_reader_next_batch(pmusim_trace_reader_t *r, pmusim_rec_t *recs, size_t max,
                                      GError **error);
/* Symbols seen so far (all of them once the end was reached). */
const GArray *pmusim_trace_reader_symbols(const pmusim_trace_reader_t *r); /* of pmusim_symbol_t */
uint64_t pmusim_trace_reader_records_read(const pmusim_trace_reader_t *r);
gboolean pmusim_trace_reader_is_binary(const pmusim_trace_reader_t *r);
void pmusim_trace_reader_free(pmusim_trace_reader_t *r);

/* ---- writing ---- */
typedef enum { PMUSIM_TRACE_BINARY = 0, PMUSIM_TRACE_TEXT = 1 } pmusim_trace_form_t;
typedef struct pmusim_trace_writer pmusim_trace_writer_t;

/* "-" is stdout.  The header is copied. */
pmusim_trace_writer_t *pmusim_trace_writer_open(const char *path, pmusim_trace_form_t form,
                                                const pmusim_trace_header_t *hdr, GError **error);
gboolean pmusim_trace_writer_add_symbol(pmusim_trace_writer_t *w, uint64_t start, uint64_t end,
                                        const char *name, GError **error);
gboolean pmusim_trace_writer_write(pmusim_trace_writer_t *w, const pmusim_rec_t *recs, size_t n,
                                   GError **error);
/* Like pmusim_trace_writer_open(), refusing an output that is the same file
 * as one of `inputs` (NULL-terminated; see include/pmusim/outfile.h). */
pmusim_trace_writer_t *pmusim_trace_writer_open_checked(const char *path,
                                                        pmusim_trace_form_t form,
                                                        const pmusim_trace_header_t *hdr,
                                                        const char *const *inputs, GError **error);
/* Ends the trace (END / end line), flushes and puts the file in place; frees
 * w in every case.  The output goes through include/pmusim/outfile.h: a file
 * appears only when close() succeeds, and after any earlier error close()
 * fails and discards it. */
gboolean pmusim_trace_writer_close(pmusim_trace_writer_t *w, GError **error);
/* Discards the output (the destination is left as it was); frees w.  For a
 * caller whose own work failed after records were written.  NULL is ignored. */
void pmusim_trace_writer_abort(pmusim_trace_writer_t *w);

/* ---- header helpers ---- */
void pmusim_trace_header_init(pmusim_trace_header_t *h, pmusim_cpu_t cpu, uint32_t nthreads);
void pmusim_trace_header_set_meta(pmusim_trace_header_t *h, const char *key, const char *value);
const char *pmusim_trace_header_get_meta(const pmusim_trace_header_t *h, const char *key);
void pmusim_trace_header_clear(pmusim_trace_header_t *h);

/* ---- additions (v1 library) ---- */
/* pmusim_trace_reader_next_batch() may return fewer than `max` records before
 * the end: it ends a batch before a symbol, so that the symbols visible after
 * a call all precede that call's records (converters rely on it).  Marker
 * names stay valid until pmusim_trace_reader_free(). */
/* Like pmusim_trace_reader_open() on `len` bytes at `data` (binary or text),
 * which must stay valid while the reader lives; `name` is used in messages. */
pmusim_trace_reader_t *pmusim_trace_reader_open_memory(const void *data, size_t len,
                                                       const char *name, GError **error);
/* Text-form names: "insn", "idle", "thread", "event", "marker", "mem"; "l1d", "l2",
 * "l3", "dram", "rdram", "rcache". */
const char *pmusim_rec_kind_name(unsigned kind);
const char *pmusim_mem_level_name(unsigned level);
/* Records written so far (not counting symbols). */
uint64_t pmusim_trace_writer_records_written(const pmusim_trace_writer_t *w);
/* Like pmusim_trace_writer_write() without the per-record checks, for a
 * producer whose records pass them by construction (the uarch model's
 * output: sim/cli/wqueue.c, traces/gen.c).  The output is the same bytes as write()
 * gives for such records; a record that write() would refuse gives a trace
 * the reader refuses or reads differently.  Every other caller uses write(). */
gboolean pmusim_trace_writer_write_trusted(pmusim_trace_writer_t *w, const pmusim_rec_t *recs,
                                           size_t n, GError **error);

G_END_DECLS
#endif
