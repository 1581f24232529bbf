/* Deterministic synthetic workloads (include/pmusim/tracegen.h).
 *
 * Each hardware thread runs its own copy of a small program (a table of
 * instructions with IA-64 bundles/slots/units or x86 lengths), touching its
 * own data arrays.  The generator only knows what a functional trace knows
 * (IPs, branch outcomes and targets, data addresses); every instruction goes
 * through the microarchitecture model (include/pmusim/uarch.h), which
 * decides cache levels, latencies, TLB outcomes, predictions, offcore
 * requests and cycles, exactly as for a captured program.  SMT threads take
 * turns instruction by instruction (the model merges their timelines);
 * Montecito runs one thread until the model asks for a switch (an L3 miss
 * or a time-out).  Records stream to the writer: nothing grows with the
 * number of records. */
#include "pmusim/tracegen.h"
#include "pmusim/uarch.h"
#include "trace_priv.h"

#include <inttypes.h>
#include <string.h>

/* what a program instruction does with memory */
enum { GM_NONE, GM_LOAD_A, GM_STORE_B, GM_LOAD_C };
/* control flow */
enum { GB_NONE, GB_LOOP, GB_JUMP, GB_CALL, GB_RET };

typedef struct gen_insn {
    uint64_t off;    /* IP offset from the thread's code base (IA-64: bundle offset) */
    uint8_t slot, unit, len, mem, br;
    uint8_t target;  /* program index a taken branch goes to */
    uint16_t flags;
    uint64_t enc;    /* IA-64 41-bit encoding */
} gen_insn_t;

#define PROG_MAX 24

typedef struct gen_prog {
    gen_insn_t insn[PROG_MAX];
    unsigned n;
    unsigned loop_end;  /* index of the first instruction after the loop */
    uint64_t func_off;  /* start of the called function (mixed) */
} gen_prog_t;

typedef struct gen_thread {
    unsigned pc;        /* program index */
    uint64_t iter, trip;
    uint64_t a, b, c;   /* hot array indices */
    uint64_t stream;    /* stream index */
    uint64_t rng;
    uint64_t steps;     /* steps taken (instructions, events, markers, halts) */
    uint64_t markers;
} gen_thread_t;

typedef struct gen {
    const pmusim_gen_params_t *p;
    pmusim_trace_writer_t *w;
    pmusim_uarch_t *u;
    gboolean ia64;
    uint32_t nthreads;
    double hit;
    gen_prog_t prog;
    gen_thread_t th[PMUSIM_MAX_THREADS];
    uint64_t written;   /* records handed to the writer */
    uint64_t next_progress;
} gen_t;

static uint64_t splitmix(uint64_t *s)
{
    uint64_t z = (*s += UINT64_C(0x9E3779B97F4A7C15));
    z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
    return z ^ (z >> 31);
}

static double rnd01(uint64_t *s)
{
    return (double)(splitmix(s) >> 11) * (1.0 / 9007199254740992.0);
}

static const char *const workload_names[] = { "loop", "stream", "mixed" };

const char *pmusim_gen_workload_name(pmusim_gen_workload_t w)
{
    return (unsigned)w < G_N_ELEMENTS(workload_names) ? workload_names[w] : "?";
}

gboolean pmusim_gen_workload_from_name(const char *name, pmusim_gen_workload_t *w)
{
    for (unsigned i = 0; i < G_N_ELEMENTS(workload_names); i++)
        if (name && g_ascii_strcasecmp(name, workload_names[i]) == 0) {
            *w = (pmusim_gen_workload_t)i;
            return TRUE;
        }
    return FALSE;
}

uint32_t pmusim_gen_default_threads(pmusim_cpu_t cpu)
{
    switch (cpu) {
    case PMUSIM_CPU_ITA2: return 1;
    case PMUSIM_CPU_KNM: return 4;
    default: return 2;
    }
}

void pmusim_gen_params_init(pmusim_gen_params_t *p, pmusim_cpu_t cpu)
{
    memset(p, 0, sizeof *p);
    p->cpu = cpu;
    p->workload = PMUSIM_GEN_LOOP;
    p->records = 1000;
    p->seed = 1;
    p->hit_ratio = -1;
}

static double default_hit(pmusim_gen_workload_t w)
{
    return w == PMUSIM_GEN_LOOP ? 1.0 : w == PMUSIM_GEN_STREAM ? 0.5 : 0.8;
}

gboolean pmusim_gen_header(const pmusim_gen_params_t *p, pmusim_trace_header_t *h,
                           GError **error)
{
    const char *bad = NULL;
    uint32_t threads = p->threads ? p->threads : pmusim_gen_default_threads(p->cpu);
    if (pmusim_cpu_isa(p->cpu) == PMUSIM_ISA_NONE)
        bad = "unknown CPU (expected ita2, mont, wsm, wsm_dp or knm)";
    else if ((unsigned)p->workload > PMUSIM_GEN_MIXED)
        bad = "unknown workload (expected loop, stream or mixed)";
    else if (p->records < 1)
        bad = "the number of records must be at least 1";
    else if (p->hit_ratio > 1.0)
        bad = "hit ratio must be within 0..1";
    if (bad) {
        g_set_error(error, PMUSIM_TRACE_ERROR, PMUSIM_TRACE_ERROR_FORMAT, "generator: %s", bad);
        return FALSE;
    }
    if (threads < 1 || threads > pmusim_uarch_max_threads(p->cpu)) {
        /* a trace no model of the CPU replays is refused (issue 15) */
        g_set_error(error, PMUSIM_TRACE_ERROR, PMUSIM_TRACE_ERROR_FORMAT,
                    "generator: %s runs 1..%u hardware threads per core, not %u",
                    pmusim_cpu_name(p->cpu), pmusim_uarch_max_threads(p->cpu), threads);
        return FALSE;
    }
    pmusim_uarch_t *u = pmusim_uarch_new(p->cpu, threads, NULL, NULL, NULL, error);
    if (!u)
        return FALSE;
    pmusim_trace_header_init(h, p->cpu, threads);
    /* the input the model is told of: the generator's instructions have
     * branch kinds but no operation kinds, so no fused pairs (the model
     * lists no decoded pairs, docs/UARCH.md §1 "Decoders"), and no
     * register dependences (no reservation station, §1) */
    pmusim_trace_header_set_annotations(h, PMUSIM_ANN_ALL & ~(PMUSIM_ANN_OPKIND | PMUSIM_ANN_FUSE |
                                                              PMUSIM_ANN_RSDEP));
    pmusim_uarch_header(u, h);
    pmusim_uarch_free(u);
    char buf[64];
    pmusim_trace_header_set_meta(h, "generator", "pmusim trace gen");
    pmusim_trace_header_set_meta(h, "workload", pmusim_gen_workload_name(p->workload));
    g_snprintf(buf, sizeof buf, "%" PRIu64, p->seed);
    pmusim_trace_header_set_meta(h, "seed", buf);
    g_snprintf(buf, sizeof buf, "%" PRIu64, p->records);
    pmusim_trace_header_set_meta(h, "records", buf);
    g_ascii_formatd(buf, sizeof buf, "%.4g", p->hit_ratio < 0 ? default_hit(p->workload)
                                                               : p->hit_ratio);
    pmusim_trace_header_set_meta(h, "hit_ratio", buf);
    return TRUE;
}

/* ---- programs ---- */

/* IA-64 encodings: major opcode in bits 40:37, qualifying predicate 5:0;
 * field positions after the Itanium ISA's M1/M4/A1/F1/B1/X2 formats. */
#define IA64_NOP_M UINT64_C(0x00008000000) /* opcode 0, x6 = 01 */
#define IA64_NOP_I UINT64_C(0x00008000000)
#define IA64_NOP_B UINT64_C(0x04000000000) /* opcode 2 */
static uint64_t ia64_ld8(unsigned r1, unsigned r3)
{
    return (UINT64_C(4) << 37) | (UINT64_C(0x03) << 30) | ((uint64_t)r3 << 20) |
           ((uint64_t)r1 << 6);
}
/* ld8.c.clr: the ALAT-checking load (M2 x6 = 0x23) */
static uint64_t ia64_ld8_c_clr(unsigned r1, unsigned r3)
{
    return (UINT64_C(4) << 37) | (UINT64_C(0x23) << 30) | ((uint64_t)r3 << 20) |
           ((uint64_t)r1 << 6);
}
static uint64_t ia64_st8(unsigned r2, unsigned r3)
{
    return (UINT64_C(4) << 37) | (UINT64_C(0x33) << 30) | ((uint64_t)r3 << 20) |
           ((uint64_t)r2 << 13);
}
static uint64_t ia64_add(unsigned r1, unsigned r2, unsigned r3)
{
    return (UINT64_C(8) << 37) | ((uint64_t)r3 << 20) | ((uint64_t)r2 << 13) | ((uint64_t)r1 << 6);
}
static uint64_t ia64_fma(unsigned f1, unsigned f2, unsigned f3, unsigned f4)
{
    return (UINT64_C(9) << 37) | ((uint64_t)f4 << 27) | ((uint64_t)f3 << 20) |
           ((uint64_t)f2 << 13) | ((uint64_t)f1 << 6);
}
/* B1 format: btype in 8:6 (cloop = 5, call/ret use opcodes 5 and 0) with a
 * 21-bit signed bundle displacement split into imm20b (32:13) and s (36). */
static uint64_t ia64_br(unsigned opcode, unsigned btype, int64_t disp_bundles)
{
    uint64_t imm = (uint64_t)disp_bundles & 0x1fffff;
    return ((uint64_t)opcode << 37) | ((imm >> 20) << 36) | ((imm & 0xfffff) << 13) |
           ((uint64_t)btype << 6);
}

static void prog_add(gen_prog_t *pr, uint64_t off, unsigned slot, unsigned unit, unsigned len,
                     unsigned mem, unsigned br, unsigned target, unsigned flags, uint64_t enc)
{
    gen_insn_t *i = &pr->insn[pr->n++];
    *i = (gen_insn_t){ .off = off, .slot = (uint8_t)slot, .unit = (uint8_t)unit,
                       .len = (uint8_t)len, .mem = (uint8_t)mem, .br = (uint8_t)br,
                       .target = (uint8_t)target, .flags = (uint16_t)flags, .enc = enc };
}

static void build_ia64(gen_prog_t *pr, gboolean mixed)
{
    enum { M = PMUSIM_UNIT_M, I = PMUSIM_UNIT_I, F = PMUSIM_UNIT_F, B = PMUSIM_UNIT_B,
           LX = PMUSIM_UNIT_LX };
    const unsigned nop = PMUSIM_F_NOP;
    /* loop: MMI / MFI / MIB (br.cloop back to bundle 0) */
    prog_add(pr, 0x00, 0, M, 0, GM_LOAD_A, GB_NONE, 0, 0, ia64_ld8(14, 32));      /* 0 */
    prog_add(pr, 0x00, 1, M, 0, GM_NONE, GB_NONE, 0, nop, IA64_NOP_M);            /* 1 */
    prog_add(pr, 0x00, 2, I, 0, GM_NONE, GB_NONE, 0, 0, ia64_add(32, 32, 8));     /* 2 */
    prog_add(pr, 0x10, 0, M, 0, GM_STORE_B, GB_NONE, 0, 0, ia64_st8(15, 33));     /* 3 */
    prog_add(pr, 0x10, 1, F, 0, GM_NONE, GB_NONE, 0, PMUSIM_F_FP, ia64_fma(6, 7, 8, 9)); /* 4 */
    prog_add(pr, 0x10, 2, I, 0, GM_NONE, GB_NONE, 0, nop, IA64_NOP_I);            /* 5 */
    prog_add(pr, 0x20, 0, M, 0, GM_NONE, GB_NONE, 0, nop, IA64_NOP_M);            /* 6 */
    prog_add(pr, 0x20, 1, I, 0, GM_NONE, GB_NONE, 0, 0, ia64_add(33, 33, 8));     /* 7 */
    prog_add(pr, 0x20, 2, B, 0, GM_NONE, GB_LOOP, 0, 0, ia64_br(4, 5, -2));      /* 8 */
    pr->loop_end = pr->n;
    /* MLX: nop.m; movl r9 = imm64 */
    prog_add(pr, 0x30, 0, M, 0, GM_NONE, GB_NONE, 0, nop, IA64_NOP_M);            /* 9 */
    prog_add(pr, 0x30, 1, LX, 0, GM_NONE, GB_NONE, 0, 0, (UINT64_C(6) << 37) | (9u << 6)); /* 10 */
    if (!mixed) {
        /* MIB: nop.m; nop.i; br back to the loop */
        prog_add(pr, 0x40, 0, M, 0, GM_NONE, GB_NONE, 0, nop, IA64_NOP_M);
        prog_add(pr, 0x40, 1, I, 0, GM_NONE, GB_NONE, 0, nop, IA64_NOP_I);
        prog_add(pr, 0x40, 2, B, 0, GM_NONE, GB_JUMP, 0, 0, ia64_br(4, 0, -4));
        return;
    }
    pr->func_off = 0x1000;
    /* MIB: nop.m; nop.i; br.call to the function */
    prog_add(pr, 0x40, 0, M, 0, GM_NONE, GB_NONE, 0, nop, IA64_NOP_M);            /* 11 */
    prog_add(pr, 0x40, 1, I, 0, GM_NONE, GB_NONE, 0, nop, IA64_NOP_I);            /* 12 */
    prog_add(pr, 0x40, 2, B, 0, GM_NONE, GB_CALL, 17, 0, ia64_br(5, 0, (0x1000 - 0x40) / 16));
    /* return point: MIB with br back to the loop */
    prog_add(pr, 0x50, 0, M, 0, GM_NONE, GB_NONE, 0, nop, IA64_NOP_M);            /* 14 */
    prog_add(pr, 0x50, 1, I, 0, GM_NONE, GB_NONE, 0, nop, IA64_NOP_I);            /* 15 */
    prog_add(pr, 0x50, 2, B, 0, GM_NONE, GB_JUMP, 0, 0, ia64_br(4, 0, -5));      /* 16 */
    /* function: MIB: ld8.c.clr from stream C (ALAT check); nop.i; br.ret */
    prog_add(pr, 0x1000, 0, M, 0, GM_LOAD_C, GB_NONE, 0, 0, ia64_ld8_c_clr(16, 34)); /* 17 */
    prog_add(pr, 0x1000, 1, I, 0, GM_NONE, GB_NONE, 0, nop, IA64_NOP_I);          /* 18 */
    prog_add(pr, 0x1000, 2, B, 0, GM_NONE, GB_RET, 14, 0, (UINT64_C(0) << 37) | (4u << 6) | (0x21u << 27));
}

static void build_x86(gen_prog_t *pr, gboolean mixed)
{
    uint64_t ip = 0;
#define X86(len, mem, br, target, uops)                                        \
    do {                                                                       \
        prog_add(pr, ip, 0, 0, len, mem, br, target, 0, 0);                    \
        pr->insn[pr->n - 1].enc = (uops);                                      \
        ip += (len);                                                           \
    } while (0)
    /* enc carries the uop count for x86 (the record has no encoding) */
    X86(4, GM_LOAD_A, GB_NONE, 0, 1);  /* 0 mov rax, [rsi+rcx*8] */
    X86(3, GM_NONE, GB_NONE, 0, 1);    /* 1 add rax, rdx */
    X86(4, GM_STORE_B, GB_NONE, 0, 2); /* 2 mov [rdi+rcx*8], rax (sta + std) */
    X86(3, GM_NONE, GB_NONE, 0, 1);    /* 3 inc rcx */
    X86(3, GM_NONE, GB_NONE, 0, 1);    /* 4 cmp rcx, r8 */
    X86(2, GM_NONE, GB_LOOP, 0, 1);    /* 5 jne loop */
    pr->loop_end = pr->n;
    X86(7, GM_NONE, GB_NONE, 0, 1);    /* 6 mov r8, imm32 */
    if (!mixed) {
        X86(5, GM_NONE, GB_JUMP, 0, 1); /* 7 jmp loop */
        return;
    }
    pr->func_off = 0x1000;
    X86(5, GM_NONE, GB_CALL, 10, 2);   /* 7 call func */
    X86(2, GM_NONE, GB_JUMP, 0, 1);    /* 8 jmp loop */
    X86(1, GM_NONE, GB_NONE, 0, 1);    /* 9 nop (never reached; keeps indices readable) */
    ip = 0x1000;
    X86(4, GM_LOAD_C, GB_NONE, 0, 1);  /* 10 mov rbx, [r9] */
    X86(1, GM_NONE, GB_RET, 8, 2);     /* 11 ret */
#undef X86
    pr->insn[9].flags = PMUSIM_F_NOP;
}

/* ---- addresses ---- */

static uint64_t code_base(const gen_t *g, unsigned t)
{
    return (g->ia64 ? UINT64_C(0x4000000000010000) : UINT64_C(0x401000)) + t * UINT64_C(0x100000);
}

static uint64_t data_base(unsigned t)
{
    return UINT64_C(0x600000000) + t * UINT64_C(0x40000000);
}

/* Hot arrays: 4 KiB each (A loads, B stores, C the function's loads), 12 KiB
 * in all, which every CPU's L1D holds; the stream: 64-byte steps over
 * 256 MiB, a new line each time.  A data access goes to its hot array with
 * probability hit_ratio, else to the stream, so hit_ratio is roughly the
 * L1D hit ratio the model will find (docs/UARCH.md). */
#define HOT_SPAN UINT64_C(4096)
#define STREAM_SPAN (UINT64_C(1) << 28)

static uint64_t data_address(gen_t *g, gen_thread_t *t, unsigned ti, unsigned mem)
{
    if (rnd01(&t->rng) >= g->hit)
        return data_base(ti) + 0x30000000 + (t->stream++ * 64) % STREAM_SPAN;
    uint64_t *idx = mem == GM_LOAD_A ? &t->a : mem == GM_STORE_B ? &t->b : &t->c;
    uint64_t region = mem == GM_LOAD_A ? 0 : mem == GM_STORE_B ? 0x10000000 : 0x20000000;
    return data_base(ti) + region + ((*idx)++ * 8) % HOT_SPAN;
}

/* ---- emission ---- */

/* Writes the model's records up to the requested count; what the model
 * still produces after it (its last coalesced counts) is left out, so the
 * trace has exactly p->records records, a prefix in cycle order. */
static gboolean gen_sink(const pmusim_rec_t *recs, size_t n, void *user, GError **error)
{
    gen_t *g = user;
    uint64_t room = g->p->records - g->written;
    size_t take = n < room ? n : (size_t)room;
    /* the model's records pass the writer's checks by construction */
    if (take && !pmusim_trace_writer_write_trusted(g->w, recs, take, error))
        return FALSE;
    g->written += take;
    if (g->p->progress && g->written >= g->next_progress) {
        g->p->progress(g->written, g->p->records, g->p->progress_data);
        g->next_progress = g->written + (UINT64_C(1) << 20);
    }
    return TRUE;
}

static gboolean gen_passthrough(gen_t *g, unsigned ti, unsigned kind, GError **error)
{
    gen_thread_t *t = &g->th[ti];
    pmusim_rec_t r;
    memset(&r, 0, sizeof r);
    r.kind = (uint8_t)kind;
    r.thread = (uint8_t)ti;
    r.plm = 3;
    if (kind == PMUSIM_REC_MARKER) {
        r.name = (t->markers++ & 1) ? "outer_odd" : "outer_even";
    } else {
        switch (g->p->cpu) {
        case PMUSIM_CPU_KNM: r.ev_code = 0x03; r.ev_umask = 0x02; break; /* RECYCLEQ.LD_BLOCK_STD_NOTREADY */
        case PMUSIM_CPU_WSM:
        case PMUSIM_CPU_WSM_DP: r.ev_code = 0x63; r.ev_umask = 0x01; break; /* CACHE_LOCK_CYCLES */
        default: r.ev_code = 0xbc; r.ev_umask = 0; break; /* L2_OZQ_FULL */
        }
        r.n = 1 + (splitmix(&t->rng) & 3);
    }
    return pmusim_uarch_passthrough(g->u, &r, error);
}

/* One step of thread `ti`: an explicit event, a marker, a halt, or one
 * instruction of its program. */
static gboolean gen_step(gen_t *g, unsigned ti, GError **error)
{
    gen_thread_t *t = &g->th[ti];
    gboolean mixed = g->p->workload == PMUSIM_GEN_MIXED;
    gboolean stream = g->p->workload != PMUSIM_GEN_LOOP;
    uint64_t step = t->steps++;
    if (mixed && ti > 0 && step && step % 20000 == 0 && g->p->cpu != PMUSIM_CPU_MONT)
        return pmusim_uarch_halt(g->u, ti, 500, error); /* an SMT thread halts a while */
    if (stream && step % 997 == 996)
        return gen_passthrough(g, ti, PMUSIM_REC_EVENT, error);
    if (mixed && ti == 0 && t->pc == 0 && t->iter == 0 && step % 16 == 0)
        return gen_passthrough(g, ti, PMUSIM_REC_MARKER, error);

    const gen_insn_t *in = &g->prog.insn[t->pc];
    uint64_t base = code_base(g, ti);
    pmusim_uarch_access_t acc;
    memset(&acc, 0, sizeof acc);
    pmusim_uarch_insn_t ui = { .ip = base + in->off, .thread = (uint8_t)ti, .plm = 3,
                               .flags = in->flags & PMUSIM_F_NOP, .access = &acc };
    if (in->flags & PMUSIM_F_FP)
        ui.fp = PMUSIM_UARCH_FP_SCALAR;
    if (g->ia64) {
        ui.slot = in->slot;
        ui.unit = in->unit;
        ui.insn = in->enc;
    } else {
        ui.len = in->len;
        ui.uops = (uint16_t)in->enc;
    }
    if (in->mem != GM_NONE) {
        ui.naccess = 1;
        acc.addr = data_address(g, t, ti, in->mem);
        acc.size = 8;
        acc.is_store = in->mem == GM_STORE_B;
        if (g->ia64 && in->mem == GM_LOAD_C) /* ld8.c.clr: 1 in 8 checks misses the ALAT */
            acc.alat = (splitmix(&t->rng) & 7) ? PMUSIM_ALAT_HIT : PMUSIM_ALAT_MISS;
    }
    unsigned next = t->pc + 1;
    if (in->br != GB_NONE) {
        static const uint8_t kinds[] = { [GB_LOOP] = PMUSIM_UARCH_BR_COND,
                                         [GB_JUMP] = PMUSIM_UARCH_BR_JUMP,
                                         [GB_CALL] = PMUSIM_UARCH_BR_CALL,
                                         [GB_RET] = PMUSIM_UARCH_BR_RET };
        ui.br = kinds[in->br];
        gboolean taken = TRUE;
        if (in->br == GB_LOOP) {
            taken = ++t->iter < t->trip;
            if (!taken) {
                t->iter = 0;
                t->trip = mixed ? 8 + splitmix(&t->rng) % 57 : 20;
            }
        }
        ui.taken = (uint8_t)taken;
        ui.target = base + g->prog.insn[in->target].off;
        if (taken)
            next = in->target;
    }
    t->pc = next;
    return pmusim_uarch_insn(g->u, &ui, error);
}

gboolean pmusim_gen_run(const pmusim_gen_params_t *p, pmusim_trace_writer_t *w, GError **error)
{
    pmusim_trace_header_t h;
    if (!pmusim_gen_header(p, &h, error))
        return FALSE;
    gen_t *g = g_new0(gen_t, 1);
    g->p = p;
    g->w = w;
    g->ia64 = h.isa == PMUSIM_ISA_IA64;
    g->nthreads = h.nthreads;
    pmusim_trace_header_clear(&h);
    g->u = pmusim_uarch_new(p->cpu, g->nthreads, NULL, gen_sink, g, error);
    if (!g->u) {
        g_free(g);
        return FALSE;
    }
    g->hit = p->hit_ratio < 0 ? default_hit(p->workload) : p->hit_ratio;
    gboolean mixed = p->workload == PMUSIM_GEN_MIXED;
    if (g->ia64)
        build_ia64(&g->prog, mixed);
    else
        build_x86(&g->prog, mixed);
    gboolean ok = TRUE;
    for (unsigned i = 0; i < g->nthreads && ok; i++) {
        gen_thread_t *t = &g->th[i];
        t->rng = p->seed * UINT64_C(0x100000001B3) + i;
        t->trip = 20;
        uint64_t base = code_base(g, i);
        char name[32];
        const gen_insn_t *last = &g->prog.insn[g->prog.loop_end - 1];
        g_snprintf(name, sizeof name, "loop_t%u", i);
        ok = pmusim_trace_writer_add_symbol(w, base, base + last->off + (g->ia64 ? 16 : last->len),
                                            name, error);
        if (ok && mixed) {
            g_snprintf(name, sizeof name, "func_t%u", i);
            ok = pmusim_trace_writer_add_symbol(w, base + g->prog.func_off,
                                                base + g->prog.func_off + 16, name, error);
        }
    }
    g->next_progress = UINT64_C(1) << 20;
    gboolean soemt = p->cpu == PMUSIM_CPU_MONT && g->nthreads > 1;
    unsigned cur = 0;
    uint64_t records = 0;
    while (ok && records < p->records) {
        ok = gen_step(g, cur, error);
        if (soemt) { /* Montecito: stay until the model asks for a switch */
            if (pmusim_uarch_switch_wanted(g->u))
                cur = (cur + 1) % g->nthreads;
        } else if (g->nthreads > 1) {
            /* SMT: the thread whose next instruction dispatches first, so
             * that the shared caches see the threads' accesses in time
             * order and no thread falls behind the records already out
             * (round robin did: a thread back from a halt ran ahead and the
             * other was moved up, docs/UARCH.md §2) */
            cur = 0;
            uint64_t first = pmusim_uarch_thread_time(g->u, 0);
            for (unsigned i = 1; i < g->nthreads; i++) {
                uint64_t ti = pmusim_uarch_thread_time(g->u, i);
                if (ti < first) {
                    first = ti;
                    cur = i;
                }
            }
        }
        records = pmusim_uarch_records(g->u);
    }
    if (ok)
        ok = pmusim_uarch_finish(g->u, error);
    if (ok && p->progress)
        p->progress(g->written, p->records, p->progress_data);
    pmusim_uarch_free(g->u);
    g_free(g);
    return ok;
}
