/* The capture stream reader (pmusim/capture.h, docs/CAPTURE.md): chunks from
 * the QEMU plugin -> instructions for the microarchitecture model.
 *
 * Per guest thread it follows the executed blocks.  An instruction is run
 * through the model once the thread has moved past it: at a memory access
 * of a later instruction of the block, or at the next block.  The last
 * instruction of a block waits for the next block of its thread, whose
 * address says whether a conditional branch was taken and where an
 * indirect one went.  A REP string instruction that QEMU runs as one block
 * per iteration is one instruction with all its accesses, given to the
 * model in parts of PMUSIM_UARCH_MAX_ACCESSES (PMUSIM_UARCH_ACC_MORE/CONT:
 * one INSN record, the rest MEM records). */
#include "pmusim/capture.h"
#include "capstream.h"

#include <stddef.h>
#include <string.h>

G_DEFINE_QUARK(pmusim-capture-error-quark, pmusim_capture_error)

/* A translated block as the model wants its instructions: everything
 * static about an instruction (ip, length, kinds, uops, plm) is filled in
 * once, when the TB chunk arrives, with the outcome of running through it
 * (a conditional branch not taken, any other branch to the next
 * instruction); per executed instruction the reader only sets the thread
 * and the accesses, and for a block's last instruction the outcome. */
/* An instruction's register uses as the tracking reads them: the
 * capstream_regs_t masks of the 16 general-purpose registers in bits 0-15,
 * and the two flag groups (CAPSTREAM_FL_*) as registers 16 (CF) and 17
 * (OF SF ZF AF PF) (docs/CAPTURE.md, "Dependences of branches"). */
#define CAP_NREGS 18u
#define CAP_REG_FLAGS 16u
typedef struct cap_regs {
    uint32_t src, dst, ld, addr;
    /* the registers and flags whose loads the instruction's uops wait for
     * in the reservation station (src | addr), for an instruction that
     * neither branches nor writes loaded data; 0 for the others: its
     * dependence on a load (pmusim_uarch_insn_t.rdep, cap_rdep()) */
    uint32_t rs;
} cap_regs_t;

typedef struct cap_tb {
    uint64_t vaddr;
    uint32_t n;
    uint8_t rep_first, rep_last; /* its first / last instruction is a REP string op */
    uint8_t hw;          /* the hardware thread in[].thread holds (0 at first) */
    /* the registers the last instruction's condition or target comes
     * from, a conditional or indirect branch's (cap_regs_t bits; 0 for
     * other kinds): its dependence on a load (cap_leave_block()) */
    uint32_t br_src;
    pmusim_rec_t *rec;   /* n record templates (in[i].tmpl), behind in[] */
    cap_regs_t *regs;    /* n register uses, behind rec[] (zero from a plugin
                          * before session 20; no flags before session 21) */
    uint16_t *acc_info;  /* n access facts, behind regs[]: capstream_insn_t.mem_width
                          * in bits 7:0, CAP_ACC_FP when the instruction is FP/SIMD */
    struct cap_net *net; /* the block's net effect on the tracking (cap_net_make()),
                          * NULL until its first run; unused in a REP block */
    pmusim_uarch_insn_t in[];
} cap_tb_t;

/* Where a tracked value comes from, as a block's instructions before some
 * point in it leave it: the last load of instruction `ins` of the block
 * when ins >= 0 (the newest: loads are numbered in instruction order, and
 * any of the block's is newer than a value at its entry), else the newest
 * of the registers `entry` at the block's entry (0: none). */
typedef struct cap_src {
    uint32_t entry;
    int16_t ins;
    uint8_t ld; /* in addr[i]: instruction i writes loaded data (cap_regs_t.ld != 0) */
} cap_src_t;
G_STATIC_ASSERT(CAPSTREAM_MAX_TB_INSNS <= INT16_MAX);

/* Where the tracked values of thread t's current run of its block are
 * (cap_thread_t.val[], docs/CAPTURE.md "Dependences of load addresses"):
 * val[i], i < CAPSTREAM_MAX_TB_INSNS, the last load of instruction i of
 * the block; val[CAP_V_NONE] 0 (no load); val[CAP_V_REG + r] register or
 * flag group r's value (at the block's entry in a run by the net effect);
 * val[CAP_V_ENT + j] the newest of the j-th set of registers the block's
 * net effect reads at its entry (cap_net_t.ent[j]: two or more registers,
 * or one of a cycle of copies at the exit, cap_net_make()), evaluated
 * once as the thread enters the block (cap_net_enter()).  A cap_src_t
 * comes down to one index (cap_net_index()): a value of the net effect is
 * one load. */
#define CAP_V_NONE CAPSTREAM_MAX_TB_INSNS
#define CAP_V_REG (CAP_V_NONE + 1u)
#define CAP_V_ENT (CAP_V_REG + CAP_NREGS)
/* the entry sets of a block: at most one per cap_src_t of its net effect
 * (addr[], rs[], br, exit[]) */
#define CAP_V_ENTS (2u * CAPSTREAM_MAX_TB_INSNS + 1u + CAP_NREGS)
#define CAP_V_N (CAP_V_ENT + CAP_V_ENTS)
/* in cap_net_t.addr[i]: instruction i writes loaded data (cap_regs_t.ld) */
#define CAP_V_LD 0x8000u
G_STATIC_ASSERT(CAP_V_N < CAP_V_LD);

/* A block's net effect on the dependence tracking (docs/CAPTURE.md,
 * "Dependences of load addresses"), made the first time a thread runs it,
 * valid for a run in which every instruction that writes registers with
 * loaded data (cap_regs_t.ld) loaded, as the walk assumes for them:
 * cap_regs_move() and cap_leave_block() check it as the thread moves on.
 * Any other run takes the walk, instruction by instruction
 * (cap_regs_run()), from the point where it was found.  Each value is a
 * cap_src_t as an index of cap_thread_t.val[] (CAP_V_*). */
typedef struct cap_net {
    /* the tracked values the block changes: register out[k] takes
     * val[exit[k]] at its exit, in this order (a register's value at the
     * entry is read before that register is written) */
    uint32_t nout;
    uint8_t out[CAP_NREGS];
    uint16_t exit[CAP_NREGS];
    uint16_t br;              /* the last instruction's branch registers before it */
    uint32_t nent;            /* the entry sets: ent[0, nent) */
    uint32_t *ent;
    uint16_t *nld;            /* n + 1: of instructions [0, i), those with ld */
    /* the instructions with cap_regs_t.rs: nrs[i] (n + 1) of them among
     * [0, i); the k-th is instruction rs[k].ins, its rs registers before it
     * rs[k].src */
    uint16_t *nrs;
    struct cap_net_rs {
        uint16_t ins, src;
    } *rs;
    uint16_t addr[];          /* n: instruction i's address registers before it,
                               * | CAP_V_LD when it has ld */
} cap_net_t;
/* An access item's instruction in one load (cap_exec_items()): its FP
 * bit lands on pmusim_uarch_access_t.is_fp (bit 40 of bytes 8..15) with
 * one shift. */
#define CAP_ACC_FP 0x100u
/* the templates follow in[] in the same allocation */
G_STATIC_ASSERT(_Alignof(pmusim_rec_t) <= _Alignof(pmusim_uarch_insn_t));

/* Accesses a thread holds for the instructions of its block that have not
 * run yet (> PMUSIM_UARCH_MAX_ACCESSES: the current instruction's always
 * fit after the ones before it have run). */
#define CAP_THREAD_ACCESSES 256u
G_STATIC_ASSERT(CAP_THREAD_ACCESSES > PMUSIM_UARCH_MAX_ACCESSES);

/* A guest thread in its block.  Instructions [from, idx) are complete (the
 * thread moved past them) but wait to run with the rest of the block in
 * one model call; those of them with accesses (dirty[]) point at them in
 * acc[0, cur) from their inputs, in place.  The current instruction idx
 * has acc[cur, nacc).  At the end of each EXEC chunk the complete ones run
 * (another thread's instructions may come next), so between chunks no
 * block's inputs point at a thread's accesses. */
typedef struct cap_thread {
    cap_tb_t *tb;        /* block being executed, NULL before the first */
    uint8_t hw;          /* hardware thread: guest thread mod nthreads */
    uint32_t from;       /* its first instruction not run yet */
    uint32_t idx;        /* its current instruction */
    uint32_t cur, nacc;
    uint32_t ndirty;
    gboolean parts;      /* the current instruction ran a part (its rest continues it) */
    uint64_t wait_addr;  /* the futex address of its wait (THREAD {3}), else 0 */
    uint64_t last_seq;   /* the seq of its last queued item, UINT64_MAX before one */
    gboolean woken;      /* a wake of wait_addr ran (THREAD {5}); its {4} has not */
    uint64_t woken_at;   /* the waker's time then */
    uint64_t ctid;       /* its clear-child-tid address (THREAD {1, address}), else 0 */
    gboolean live;       /* sent a chunk or was created (THREAD {1}), and has not exited
                          * or entered a waiting system call since (THREAD {2}, {3}) */
    gboolean cont_dirty; /* an instruction among the complete ones is a continuation */
    /* dependences of load addresses (cap_regs_run()): loads so far (from
     * CAP_LD_BASE), the number (CAP_LD_BASE + 1, + 2, ...) of the load
     * each general-purpose register's value came from (0: none;
     * val[CAP_V_REG + r]), and of the current instruction's last load */
    uint64_t nloads;
    uint64_t cur_ld;
    /* a block run by its net effect (walk FALSE): the registers' values
     * stay as at the block's entry, when nloads was entry_nloads; each
     * instruction's last load is val[i] (older than entry_nloads: none in
     * this run), and nld_done of the instructions with ld loaded */
    gboolean walk;
    uint64_t entry_nloads;
    uint32_t nld_done;
    uint64_t val[CAP_V_N]; /* the tracked values (CAP_V_*); val[CAP_V_NONE] always 0 */
    uint16_t dirty[CAP_THREAD_ACCESSES];
    pmusim_uarch_access_t acc[CAP_THREAD_ACCESSES];
} cap_thread_t;
G_STATIC_ASSERT(CAPSTREAM_MAX_TB_INSNS <= UINT16_MAX);

/* A thread's loads are numbered from CAP_LD_BASE + 1 on, so that 0 (no
 * load) is always too far back for a distance (PMUSIM_UARCH_MAX_DEP):
 * a distance needs no test of its own for it. */
#define CAP_LD_BASE ((uint64_t)PMUSIM_UARCH_MAX_DEP)

/* SMT captures (more than one hardware thread): a chunk that runs at its
 * guest thread's place, waiting for its hardware thread's turn (cap_sched()).
 * QEMU runs the guest threads at once and each sends what it executed in
 * chunks of up to 256 KiB (about 100,000 instructions); run as they arrive,
 * the model's threads would take turns by the chunk and each would be moved
 * up past the other's (docs/UARCH.md §2). */
typedef struct cap_pending {
    uint32_t kind;      /* CAPSTREAM_EXEC, _FORK, _REAPED or _THREAD ({2}, {3}, {4}) */
    uint32_t guest;
    uint32_t size, pos; /* payload bytes; EXEC: the next item's offset */
    uint64_t seq;       /* queued as the seq-th item (stream order) */
    uint64_t gprev;     /* the seq of the guest thread's item before it, else UINT64_MAX */
    uint64_t at;        /* the payload's offset in the stream (or the region) */
    uint64_t prev;      /* EXEC: the address the next item's delta starts from */
    int32_t shm_vcpu;   /* >= 0: recovered from that vCPU's shared buffer */
    uint8_t data[];
} cap_pending_t;

/* The last wake of a futex address run (THREAD {5}): its place in the
 * stream (cap_pending_t.seq), for a wait that raced with it. */
typedef struct cap_wake {
    uint64_t seq;
} cap_wake_t;

/* Futex addresses whose last wake is kept (cap_thread_item()). */
#define CAP_WAKE_ADDRS 65536u

/* Queued chunk bytes beyond which the threads run without waiting for a
 * live thread that sends nothing (it waits in the guest, or its exit was
 * not announced: a stream without THREAD chunks): 64 chunks of 256 KiB. */
#define CAP_QUEUE_BYTES (16u << 20)

struct pmusim_capture {
    pmusim_uarch_t *u;
    uint32_t nthreads;
    GQueue *hwq;          /* nthreads > 1: per hardware thread, cap_pending_t* in stream order */
    uint32_t *hw_live;    /* live guest threads of each hardware thread (cap_thread_t.live) */
    uint64_t enq_seq;     /* items queued so far (cap_pending_t.seq) */
    gboolean ending;      /* pmusim_capture_finish(): the threads' last blocks run in
                           * time order too (cap_sched()) */
    GHashTable *wakes;    /* futex address -> cap_wake_t of its last wake run (THREAD
                           * {5}; at most CAP_WAKE_ADDRS, then cleared) */
    uint64_t *hw_wake;    /* a hardware thread's guest was woken at this time by a
                           * {5}, its {4} not run yet (UINT64_MAX: none): it is
                           * waited for */
    uint64_t queued;      /* payload bytes in hwq */
    char *name;
    GByteArray *buf;      /* bytes of an incomplete chunk */
    uint64_t offset;      /* stream offset of buf[0] */
    uint64_t next_seq;    /* chunks read (a chunk header holds the low 32 bits) */
    gboolean hello, end;
    char *binary;
    GPtrArray *tbs;       /* of cap_tb_t*, index = tb_id */
    GPtrArray *threads;   /* of cap_thread_t*, index = guest thread */
    char *maps;           /* MAPS payload, NUL-terminated */
    GArray *fork_pids;    /* of uint32_t: the untraced children of FORK chunks, in order */
    GArray *traced_pids;  /* of uint32_t: the traced ones (FORK's second word 1) */
    GArray *reaped;       /* of uint32_t pairs: pid, signal (REAPED chunks) */
    char *children_out;   /* OUT of "traced in OUT.PID", or NULL */
    gboolean in_execve;   /* the last EXECVE chunk said a thread called execve */
    uint32_t exec_image;  /* EXECVE {3, N}: N, the image traced on (0: none) */
    char *exec_text;      /* its program, or the why of an EXECVE {1, 0, why} */
    char *exec_note;      /* EXECVE {4, N}: how image N's environment differs, or NULL */
    GStringChunk *marker_names; /* the fork MARKERs' names: they live until the
                                 * capture is freed (the writer may hold them) */
    uint64_t insns;
    uint64_t rep_more; /* REP instructions entered again (pmusim_capture_rep_iterations()) */
    uint64_t plugin_write_ns, plugin_bytes, plugin_runq_ns; /* from END */
    gboolean model_failed; /* a model call failed: nothing more runs */
};

static void cap_tb_free(gpointer p)
{
    cap_tb_t *tb = p;
    g_free(tb->net);
    g_free(tb);
}

pmusim_capture_t *pmusim_capture_new(pmusim_uarch_t *u, uint32_t nthreads, const char *name)
{
    pmusim_capture_t *c = g_new0(pmusim_capture_t, 1);
    c->u = u;
    c->nthreads = MAX(nthreads, 1u);
    c->name = g_strdup(name ? name : "capture stream");
    c->buf = g_byte_array_new();
    c->tbs = g_ptr_array_new_with_free_func(cap_tb_free);
    c->threads = g_ptr_array_new_with_free_func(g_free);
    c->fork_pids = g_array_new(FALSE, FALSE, sizeof(uint32_t));
    c->traced_pids = g_array_new(FALSE, FALSE, sizeof(uint32_t));
    c->reaped = g_array_new(FALSE, FALSE, sizeof(uint32_t));
    if (c->nthreads > 1) {
        c->hwq = g_new0(GQueue, c->nthreads);
        c->hw_live = g_new0(uint32_t, c->nthreads);
        c->wakes = g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free, g_free);
        c->hw_wake = g_new(uint64_t, c->nthreads);
        for (uint32_t h = 0; h < c->nthreads; h++)
            c->hw_wake[h] = UINT64_MAX;
    }
    return c;
}

void pmusim_capture_free(pmusim_capture_t *c)
{
    if (!c)
        return;
    for (uint32_t h = 0; c->hwq && h < c->nthreads; h++)
        g_queue_clear_full(&c->hwq[h], g_free);
    g_free(c->hwq);
    g_free(c->hw_live);
    if (c->wakes)
        g_hash_table_destroy(c->wakes);
    g_free(c->hw_wake);
    g_byte_array_unref(c->buf);
    g_ptr_array_unref(c->tbs);
    g_ptr_array_unref(c->threads);
    g_free(c->maps);
    g_array_unref(c->fork_pids);
    g_array_unref(c->traced_pids);
    g_array_unref(c->reaped);
    g_free(c->children_out);
    g_free(c->exec_text);
    g_free(c->exec_note);
    if (c->marker_names)
        g_string_chunk_free(c->marker_names);
    g_free(c->binary);
    g_free(c->name);
    g_free(c);
}

static gboolean cap_error(pmusim_capture_t *c, uint64_t at, GError **error, const char *fmt, ...)
    G_GNUC_PRINTF(4, 5);
static gboolean cap_error(pmusim_capture_t *c, uint64_t at, GError **error, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *msg = g_strdup_vprintf(fmt, ap);
    va_end(ap);
    g_set_error(error, PMUSIM_CAPTURE_ERROR, PMUSIM_CAPTURE_ERROR_STREAM, "%s: byte %" G_GUINT64_FORMAT ": %s",
                c->name, at, msg);
    g_free(msg);
    return FALSE;
}

static uint32_t rd32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint64_t rd64(const uint8_t *p)
{
    return (uint64_t)rd32(p) | (uint64_t)rd32(p + 4) << 32;
}

/* ---- instructions -> model ---- */

/* The newest load (its number, 0 none) the registers of mask m hold
 * values of. */
static inline uint64_t cap_regs_newest(const cap_thread_t *t, unsigned m)
{
    uint64_t v = 0;
    for (; m; m &= m - 1) {
        const uint64_t x = t->val[CAP_V_REG + __builtin_ctz(m)];
        v = x > v ? x : v;
    }
    return v;
}

/* The distance of the load numbered src (0 none) back from the newest so
 * far, 1 that one, as pmusim_uarch_insn_t.rdep wants it (0 none or too far
 * back: none is, CAP_LD_BASE). */
static inline uint8_t cap_rdep(const cap_thread_t *t, uint64_t src)
{
    const uint64_t d = t->nloads - src;
    return d < PMUSIM_UARCH_MAX_DEP ? (uint8_t)(d + 1) : 0;
}

/* One instruction's effect on the tracked values: the registers it writes
 * take the load their value came from: `ld` (its last load, 0 none) for
 * those it writes with loaded data, else the newest of its sources'
 * (docs/CAPTURE.md, "Dependences of load addresses"). */
static inline void cap_regs_step(cap_thread_t *t, const cap_regs_t *rg, uint64_t ld)
{
    unsigned dst = rg->dst;
    if (!dst)
        return;
    const uint64_t v = cap_regs_newest(t, rg->src);
    if (ld) {
        for (unsigned m = rg->ld; m; m &= m - 1)
            t->val[CAP_V_REG + __builtin_ctz(m)] = ld;
        dst &= ~rg->ld;
    }
    for (; dst; dst &= dst - 1)
        t->val[CAP_V_REG + __builtin_ctz(dst)] = v;
}

/* Thread t, walking its block, moves on from its current instruction to
 * instruction `upto` of it: instructions [idx, upto) take effect, the
 * current one with its last load (cur_ld). */
static inline void cap_regs_run(cap_thread_t *t, uint32_t upto)
{
    const cap_regs_t *rg = t->tb->regs;
    for (uint32_t j = t->idx; j < upto; j++) {
        /* its dependence on a load, as the instructions before it left
         * the values (the thread's loads so far are the ones before it:
         * it loads nothing, or its rdep is not read) */
        if (rg[j].rs)
            t->tb->in[j].rdep = cap_rdep(t, cap_regs_newest(t, rg[j].rs));
        cap_regs_step(t, &rg[j], j == t->idx ? t->cur_ld : 0);
    }
    t->cur_ld = 0;
}

/* The index of thread t's val[] (CAP_V_*) that holds the value x stands
 * for in a run of the block: a load of the block, none, one register's
 * value at the entry (with `set`, an entry set of one register: a value
 * the exit reads after it wrote the register), or a set of them (the
 * block's entry sets, each once). */
static uint16_t cap_net_index(cap_net_t *net, cap_src_t x, gboolean set)
{
    if (x.ins >= 0)
        return (uint16_t)x.ins;
    if (!x.entry)
        return CAP_V_NONE;
    if (!set && !(x.entry & (x.entry - 1)))
        return (uint16_t)(CAP_V_REG + (unsigned)__builtin_ctz(x.entry));
    uint32_t j = 0;
    while (j < net->nent && net->ent[j] != x.entry)
        j++;
    if (j == net->nent)
        net->ent[net->nent++] = x.entry;
    return (uint16_t)(CAP_V_ENT + j);
}

/* The net effect of block tb (cap_net_t): its instructions walked once
 * with symbolic values, each a cap_src_t, kept as val[] indexes. */
static G_GNUC_NO_INLINE cap_net_t *cap_net_make(const cap_tb_t *tb)
{
    const uint32_t n = tb->n;
    /* addr, nld, nrs (2 bytes each); then rs and the entry sets, at most
     * one per value kept (CAP_V_ENTS for the largest block; 4 bytes each) */
    size_t size = offsetof(cap_net_t, addr) + (3 * n + 2) * sizeof(uint16_t);
    size = (size + _Alignof(uint32_t) - 1) & ~(size_t)(_Alignof(uint32_t) - 1);
    G_STATIC_ASSERT(sizeof(struct cap_net_rs) == sizeof(uint32_t) &&
                    _Alignof(struct cap_net_rs) <= _Alignof(uint32_t));
    cap_net_t *net = g_malloc0(size + (3 * n + 1 + CAP_NREGS) * sizeof(uint32_t));
    net->nld = &net->addr[n];
    net->nrs = &net->nld[n + 1];
    net->rs = (struct cap_net_rs *)(void *)((char *)net + size);
    net->ent = (uint32_t *)(void *)&net->rs[n];
    cap_src_t br = {.entry = 0, .ins = -1, .ld = 0};
    cap_src_t v[CAP_NREGS];
    for (unsigned r = 0; r < CAP_NREGS; r++)
        v[r] = (cap_src_t){.entry = 1u << r, .ins = -1, .ld = 0};
    for (uint32_t i = 0; i < n; i++) {
        const cap_regs_t *rg = &tb->regs[i];
        net->nld[i + 1] = (uint16_t)(net->nld[i] + (rg->ld != 0));
        cap_src_t a = {0, -1, rg->ld != 0}, s = {0, -1, 0};
        for (unsigned m = rg->addr; m; m &= m - 1) {
            const cap_src_t x = v[__builtin_ctz(m)];
            a.entry |= x.entry;
            a.ins = MAX(a.ins, x.ins);
        }
        net->addr[i] = (uint16_t)(cap_net_index(net, a, FALSE) | (a.ld ? CAP_V_LD : 0));
        net->nrs[i + 1] = (uint16_t)(net->nrs[i] + (rg->rs != 0));
        if (rg->rs) {
            cap_src_t x = {0, -1, 0};
            for (unsigned m = rg->rs; m; m &= m - 1) {
                x.entry |= v[__builtin_ctz(m)].entry;
                x.ins = MAX(x.ins, v[__builtin_ctz(m)].ins);
            }
            net->rs[net->nrs[i]] =
                (struct cap_net_rs){.ins = (uint16_t)i, .src = cap_net_index(net, x, FALSE)};
        }
        for (unsigned m = i == n - 1 ? tb->br_src : 0; m; m &= m - 1) {
            const cap_src_t x = v[__builtin_ctz(m)];
            br.entry |= x.entry;
            br.ins = MAX(br.ins, x.ins);
        }
        for (unsigned m = rg->dst ? rg->src : 0; m; m &= m - 1) {
            const cap_src_t x = v[__builtin_ctz(m)];
            s.entry |= x.entry;
            s.ins = MAX(s.ins, x.ins);
        }
        for (unsigned m = rg->ld; m; m &= m - 1)
            v[__builtin_ctz(m)] = (cap_src_t){.entry = 0, .ins = (int16_t)i, .ld = 0};
        for (unsigned m = rg->dst & ~rg->ld; m; m &= m - 1)
            v[__builtin_ctz(m)] = s;
    }
    net->br = cap_net_index(net, br, FALSE);
    /* the exit's writes, in an order in which each register is read (as
     * another's value at the entry, `mov rbx, rax`) before it is written;
     * a register of a cycle of such copies (`xchg rax, rbx`) is read from
     * an entry set of its own instead */
    uint16_t x[CAP_NREGS];
    uint32_t unplaced = 0; /* registers whose write is not placed yet */
    for (unsigned r = 0; r < CAP_NREGS; r++) {
        if (v[r].ins < 0 && v[r].entry == 1u << r)
            continue; /* unchanged */
        x[r] = cap_net_index(net, v[r], FALSE);
        unplaced |= 1u << r;
    }
    while (unplaced) {
        uint32_t read = 0; /* registers an unplaced write reads */
        for (uint32_t m = unplaced; m; m &= m - 1) {
            const unsigned r = (unsigned)__builtin_ctz(m);
            if (x[r] >= CAP_V_REG && x[r] < CAP_V_ENT)
                read |= 1u << (x[r] - CAP_V_REG);
        }
        uint32_t ready = unplaced & ~read;
        if (!ready) {
            /* a cycle: its first register's write reads an entry set */
            const unsigned r = (unsigned)__builtin_ctz(unplaced);
            x[r] = cap_net_index(net, v[r], TRUE);
            continue;
        }
        for (; ready; ready &= ready - 1) {
            const unsigned r = (unsigned)__builtin_ctz(ready);
            net->out[net->nout] = (uint8_t)r;
            net->exit[net->nout++] = x[r];
            unplaced &= ~(1u << r);
        }
    }
    g_assert(net->nent <= 2 * n + 1 + CAP_NREGS);
    return net;
}

/* Thread t enters block tb: by its net effect, but a REP block, whose
 * string instruction may run on into the next block (cap_exec_items()). */
static inline void cap_net_enter(cap_thread_t *t, cap_tb_t *tb)
{
    t->walk = tb->rep_first | tb->rep_last;
    if (t->walk)
        return;
    if (G_UNLIKELY(!tb->net))
        tb->net = cap_net_make(tb);
    t->entry_nloads = t->nloads;
    t->nld_done = 0;
    /* the entry sets, once: the registers' values stay as they are until
     * the block's exit (or its walk, which reads none of them) */
    const cap_net_t *net = tb->net;
    for (uint32_t j = 0; j < net->nent; j++)
        t->val[CAP_V_ENT + j] = cap_regs_newest(t, net->ent[j]);
}

/* Thread t's run by the net effect does not hold (an instruction that
 * writes loaded data did not load, cap_net_t): it walks its block from
 * here on, with the tracked values instructions [0, idx) left, as if it
 * had walked from the entry. */
static G_GNUC_NO_INLINE void cap_net_to_walk(cap_thread_t *t)
{
    const uint64_t e = t->entry_nloads;
    for (uint32_t j = 0; j < t->idx; j++)
        cap_regs_step(t, &t->tb->regs[j], t->val[j] > e ? t->val[j] : 0);
    t->cur_ld = t->val[t->idx] > e ? t->val[t->idx] : 0;
    t->walk = TRUE;
}

/* By the net effect: the dependences on loads of instructions [idx, upto)
 * with cap_regs_t.rs (cap_regs_run() says why the thread's loads so far
 * are theirs): one value of the net effect each. */
static inline void cap_net_rdep(cap_thread_t *t, uint32_t upto)
{
    const cap_net_t *net = t->tb->net;
    pmusim_uarch_insn_t *in = t->tb->in;
    for (uint32_t k = net->nrs[t->idx], e = net->nrs[upto]; k < e; k++)
        in[net->rs[k].ins].rdep = cap_rdep(t, t->val[net->rs[k].src]);
}

/* Thread t moves on from its current instruction to `upto` (by the net
 * effect or by the walk). */
static inline void cap_regs_move(cap_thread_t *t, uint32_t upto)
{
    if (!t->walk) {
        /* instructions (idx, upto) made no access: the net effect holds
         * while every one of [0, upto) with ld loaded */
        if (G_LIKELY(t->nld_done == t->tb->net->nld[upto])) {
            cap_net_rdep(t, upto);
            return;
        }
        cap_net_to_walk(t);
    }
    cap_regs_run(t, upto);
}

/* The block's inputs carry thread t's hardware thread (set again only when
 * another hardware thread ran the block last). */
static inline void cap_tb_thread(cap_thread_t *t)
{
    cap_tb_t *tb = t->tb;
    if (G_UNLIKELY(tb->hw != t->hw)) {
        for (uint32_t i = 0; i < tb->n; i++)
            tb->in[i].thread = t->hw;
        tb->hw = t->hw;
    }
}

/* Runs a part of instruction `in` of thread t's block as its template says
 * (the fall-through outcome): the accesses gathered for it, acc[0, nacc),
 * more to come (a long string instruction; nothing before it waits).  The
 * instruction counts once, at its first part. */
static inline gboolean cap_run(pmusim_capture_t *c, cap_thread_t *t, pmusim_uarch_insn_t *in,
                               GError **error)
{
    cap_tb_thread(t);
    if (G_UNLIKELY(in->br != PMUSIM_UARCH_BR_NONE)) {
        /* a block's last instruction keeps the outcome of its last run
         * (cap_leave_block()); a piece (of a REP-flagged branch of a
         * hand-made stream) runs with the fall-through one */
        in->taken = in->br != PMUSIM_UARCH_BR_COND;
        in->target = in->taken ? in->ip + in->len : 0;
    }
    if (!t->parts && t->tb->regs[t->idx].rs) {
        /* its dependence on a load before the thread leaves it (as it
         * will be then: the values do not change while it is current) */
        if (t->walk)
            in->rdep = cap_rdep(t, cap_regs_newest(t, t->tb->regs[t->idx].rs));
        else
            cap_net_rdep(t, t->idx + 1);
    }
    in->naccess = t->nacc | PMUSIM_UARCH_ACC_MORE | (t->parts ? PMUSIM_UARCH_ACC_CONT : 0);
    in->access = t->acc;
    t->nacc = t->cur = 0;
    c->insns += !t->parts;
    t->parts = TRUE;
    gboolean ok = pmusim_uarch_insn(c->u, in, error);
    in->naccess = 0;
    if (G_UNLIKELY(!ok))
        c->model_failed = TRUE;
    return ok;
}

/* The current instruction's accesses go with its input, in place: the
 * thread moves on past it.  After parts, it is the last part (perhaps
 * without accesses). */
static inline void cap_attach(cap_thread_t *t)
{
    if (t->nacc > t->cur || G_UNLIKELY(t->parts)) {
        pmusim_uarch_insn_t *in = &t->tb->in[t->idx];
        in->access = &t->acc[t->cur];
        in->naccess = t->nacc - t->cur;
        if (G_UNLIKELY(t->parts)) {
            in->naccess |= PMUSIM_UARCH_ACC_CONT;
            t->parts = FALSE;
            t->cont_dirty = TRUE;
        }
        t->dirty[t->ndirty++] = (uint16_t)t->idx;
        t->cur = t->nacc;
    }
}

/* Runs instructions [t->from, upto) of the block in one call (none ends
 * it but a last one that cap_leave_block() gave its outcome), and takes
 * their accesses back from the inputs; the current instruction's, if it is
 * not among them, move to the front of acc[]. */
static gboolean cap_run_pending(pmusim_capture_t *c, cap_thread_t *t, uint32_t upto,
                                GError **error)
{
    cap_tb_t *tb = t->tb;
    const size_t n = upto - t->from;
    cap_tb_thread(t);
    c->insns += n - t->cont_dirty; /* a last part is no instruction of its own */
    t->cont_dirty = FALSE;
    gboolean ok = pmusim_uarch_insns(c->u, &tb->in[t->from], n, error);
    if (G_UNLIKELY(!ok))
        c->model_failed = TRUE;
    /* no accesses: the model reads `access` only below `naccess` */
    for (uint32_t k = 0; k < t->ndirty; k++)
        tb->in[t->dirty[k]].naccess = 0;
    t->ndirty = 0;
    t->from = upto;
    const uint32_t left = t->nacc - t->cur;
    if (G_UNLIKELY(left && t->cur))
        memmove(t->acc, t->acc + t->cur, left * sizeof t->acc[0]);
    t->nacc = left;
    t->cur = 0;
    return ok;
}

/* At the end of an EXEC chunk (also one cut short by an error): the
 * thread's complete instructions run. */
static inline gboolean cap_run_complete(pmusim_capture_t *c, cap_thread_t *t, GError **error)
{
    return !t->tb || t->idx == t->from || cap_run_pending(c, t, t->idx, error);
}

/* The thread leaves its block for one at `next` (UINT64_MAX: the stream
 * ended): the block's instructions not run yet run.  Returns FALSE on a
 * model error. */
static inline __attribute__((always_inline)) gboolean
cap_leave_block_inline(pmusim_capture_t *c, cap_thread_t *t, uint64_t next, GError **error)
{
    if (!t->tb)
        return TRUE;
    const uint32_t last = t->tb->n - 1;
    cap_attach(t);
    pmusim_uarch_insn_t *in = &t->tb->in[last];
    const cap_net_t *net = t->tb->net;
    if (!t->walk && t->nld_done != net->nld[last + 1])
        cap_net_to_walk(t);
    if (t->tb->br_src) {
        /* a conditional or indirect branch: the distance to the newest
         * load its condition or target registers' values came from, as
         * the instructions before it left them (its own loads counted:
         * 1 the newest so far), 0 none or too far back (docs/CAPTURE.md,
         * "Dependences of branches") */
        uint64_t src;
        if (!t->walk) {
            src = t->val[net->br];
        } else {
            if (t->idx < last) {
                cap_regs_run(t, last);
                t->idx = last;
            }
            src = cap_regs_newest(t, t->tb->br_src);
        }
        in->br_dep = cap_rdep(t, src);
    }
    if (!t->walk) {
        cap_net_rdep(t, last + 1);
        /* the values the block changes, from those at its entry (read
         * before any is written) and from its loads */
        for (uint32_t k = 0, e = net->nout; k < e; k++)
            t->val[CAP_V_REG + net->out[k]] = t->val[net->exit[k]];
        t->cur_ld = 0;
    } else {
        cap_regs_run(t, last + 1);
    }
    t->idx = last;
    /* the last instruction: its outcome is where the thread went.  Its
     * template keeps the outcome after: only this function runs a block's
     * last instruction (cap_run_complete() stops before the current one,
     * and cap_run() sets a branch's fall-through outcome again) */
    if (in->br != PMUSIM_UARCH_BR_NONE) {
        gboolean known = next != UINT64_MAX;
        in->taken =
            in->br == PMUSIM_UARCH_BR_COND ? (uint8_t)(known && next != in->ip + in->len) : 1;
        in->target = in->taken && known ? next : 0;
    }
    gboolean ok = cap_run_pending(c, t, last + 1, error);
    t->tb = NULL;
    return ok;
}

/* The same, out of line, for the callers other than the EXEC items' loop. */
static G_GNUC_NO_INLINE gboolean cap_leave_block(pmusim_capture_t *c, cap_thread_t *t,
                                                 uint64_t next, GError **error)
{
    return cap_leave_block_inline(c, t, next, error);
}

static cap_thread_t *cap_thread(pmusim_capture_t *c, uint32_t guest)
{
    while (c->threads->len <= guest) {
        cap_thread_t *t = g_new0(cap_thread_t, 1);
        t->last_seq = UINT64_MAX;
        t->nloads = CAP_LD_BASE;
        t->hw = (uint8_t)(c->threads->len % c->nthreads);
        g_ptr_array_add(c->threads, t);
    }
    return g_ptr_array_index(c->threads, guest);
}

static uint16_t rd16(const uint8_t *p)
{
    return (uint16_t)(p[0] | p[1] << 8);
}

/* The bytes of an access item's address delta, by the code in its bits 6:4,
 * and the mask that keeps them of a 64-bit load. */
static const uint8_t cap_addr_bytes[8] = {0, 1, 2, 3, 4, 5, 6, 8};
static const uint64_t cap_addr_mask[8] = {
    0, 0xff, 0xffff, 0xffffff, 0xffffffff, 0xffffffffff, 0xffffffffffff, UINT64_MAX,
};

_Static_assert(offsetof(pmusim_uarch_access_t, size) == 8 &&
               offsetof(pmusim_uarch_access_t, is_store) == 12 &&
               offsetof(pmusim_uarch_access_t, is_fp) == 13 &&
               offsetof(pmusim_uarch_access_t, addr_dep) == 14 &&
               offsetof(pmusim_uarch_access_t, alat) == 15 && sizeof(pmusim_uarch_access_t) == 16,
               "cap_exec() writes an access's bytes 8..15 in one store");
G_STATIC_ASSERT(G_BYTE_ORDER == G_LITTLE_ENDIAN);

/* Runs the items of p[*pos, size) (an EXEC chunk's payload at stream offset
 * `at`) for guest thread t; *prevp is the address the next delta starts
 * from (0 at a chunk's start: the deltas start again in every chunk).  With
 * a `limit` other than UINT64_MAX it stops at the first block the thread
 * enters after its next instruction's dispatch cycle has passed `limit`
 * (another thread's turn, cap_sched()): *pos and *prevp say where it
 * stopped, *pos = size when it ran them all. */
static gboolean cap_exec_items(pmusim_capture_t *c, cap_thread_t *t, const uint8_t *p,
                               uint32_t size, uint64_t at, uint32_t *pos, uint64_t *prevp,
                               uint64_t limit, GError **error)
{
    uint64_t prev = *prevp;
    uint32_t k = *pos;
    /* the blocks known so far: no TB chunk arrives inside an EXEC chunk */
    cap_tb_t *const *const tbs = (cap_tb_t *const *)c->tbs->pdata;
    const uint32_t ntbs = c->tbs->len;
    while (k < size) {
        if (size - k < 2)
            return cap_error(c, at + k, error, "EXEC chunk ends inside an item");
        uint32_t h = rd16(p + k);
        if (!(h & 1)) {
            uint32_t id = h >> 2;
            if (h & 2) {
                if (size - k < 4)
                    return cap_error(c, at + k, error, "EXEC chunk ends inside a block item");
                id = rd32(p + k) >> 2;
                k += 4;
            } else {
                k += 2;
            }
            if (id >= ntbs)
                return cap_error(c, at + k, error, "block %u executed before its TB chunk", id);
            cap_tb_t *nb = tbs[id];
            /* a REP string instruction re-entered for its next iteration
             * stays one instruction (the new block's flag first: it is
             * next to its address, which is read anyway, and rarely set) */
            if (G_UNLIKELY(nb->rep_first) && t->tb && t->idx == t->tb->n - 1 &&
                t->tb->rep_last && nb->vaddr == t->tb->in[t->idx].ip) {
                c->rep_more++;
                if (!cap_run_complete(c, t, error))
                    return FALSE;
                t->tb = nb;
                t->idx = t->from = 0;
                continue;
            }
            if (!cap_leave_block_inline(c, t, nb->vaddr, error))
                return FALSE;
            cap_net_enter(t, nb);
            t->tb = nb;
            t->idx = t->from = 0;
            t->nacc = t->cur = 0;
            /* nothing of the thread's is in a block's inputs here: another
             * thread may run next, also this block */
            if (G_UNLIKELY(limit != UINT64_MAX) &&
                pmusim_uarch_thread_time(c->u, t->hw) > limit) {
                *pos = k;
                *prevp = prev;
                return TRUE;
            }
            continue;
        }
        unsigned code = (h >> 4) & 7, nb = cap_addr_bytes[code];
        uint64_t z = 0;
        if (size - k >= 2 + 8) {
            z = rd64(p + k + 2) & cap_addr_mask[code];
        } else {
            if (size - k < 2 + nb)
                return cap_error(c, at + k, error, "EXEC chunk ends inside a memory access");
            for (unsigned j = 0; j < nb; j++)
                z |= (uint64_t)p[k + 2 + j] << 8 * j;
        }
        if (!t->tb)
            return cap_error(c, at + k, error, "memory access before the thread's first block");
        uint32_t i = t->idx + (h >> 7);
        if (i >= t->tb->n)
            return cap_error(c, at + k, error,
                             "memory access of instruction %u, expected %u..%u of the block", i,
                             t->idx, t->tb->n - 1);
        if (i > t->idx) {
            cap_attach(t);
            cap_regs_move(t, i);
            t->idx = i;
        }
        const uint64_t addr = prev + ((z >> 1) ^ (uint64_t)-(int64_t)(z & 1));
        const uint32_t piece = 1u << ((h >> 2) & 3);
        const uint32_t info = t->tb->acc_info[i];
        if (G_UNLIKELY(info & 0xffu) && t->nacc > t->cur) {
            /* the next piece of a wide access (acc[cur, nacc) are this
             * instruction's): QEMU 7.2 loads and stores a 16- or 32-byte
             * operand as 8-byte pieces in ascending order; one access of
             * the operand's width is what the hardware and cachegrind
             * make (one reference, at most one miss per line pair) */
            pmusim_uarch_access_t *l = &t->acc[t->nacc - 1];
            if (l->is_store == ((h >> 1) & 1) && l->addr + l->size == addr &&
                l->size + piece <= (info & 0xffu)) {
                l->size += piece;
                prev = addr;
                k += 2 + nb;
                continue;
            }
        }
        if (G_UNLIKELY(t->nacc - t->cur == PMUSIM_UARCH_MAX_ACCESSES)) {
            /* a long string instruction: what came before it and this
             * piece run, the next piece accumulates */
            if (!cap_run_complete(c, t, error) || !cap_run(c, t, &t->tb->in[i], error))
                return FALSE;
        } else if (G_UNLIKELY(t->nacc == CAP_THREAD_ACCESSES)) {
            if (!cap_run_complete(c, t, error))
                return FALSE;
        }
        prev = addr;
        pmusim_uarch_access_t *a = &t->acc[t->nacc++];
        a->addr = prev;
        /* size, is_store, is_fp, addr_dep and zero alat in one store */
        uint64_t rest = (uint64_t)piece | (uint64_t)((h >> 1) & 1) << 32 |
                        (uint64_t)(info & CAP_ACC_FP) << 32;
        if (!(h & 2)) {
            /* a load: its distance to the newest load its address
             * registers' values came from (0: none, or too far back) */
            uint64_t src;
            const uint64_t n = ++t->nloads;
            if (G_LIKELY(!t->walk)) {
                const uint32_t x = t->tb->net->addr[i];
                src = t->val[x & ~CAP_V_LD];
                /* the instruction's first load in this run */
                t->nld_done += t->val[i] <= t->entry_nloads && (x & CAP_V_LD);
                t->val[i] = n;
            } else {
                src = cap_regs_newest(t, t->tb->regs[i].addr);
                t->cur_ld = n;
            }
            if (n - src <= PMUSIM_UARCH_MAX_DEP) /* not none (CAP_LD_BASE) */
                rest |= (n - src) << 48;
        }
        memcpy(&a->size, &rest, sizeof rest);
        k += 2 + nb;
    }
    *pos = k;
    *prevp = prev;
    return TRUE;
}

/* An EXEC chunk from item *pos on (cap_exec_items()); at its end (also at
 * an error in it) the thread's complete instructions run, as they did
 * before any later item.  After a stream error, a model error on one of
 * them is the one reported (it came first in the stream). */
static gboolean cap_exec_from(pmusim_capture_t *c, uint32_t guest, const uint8_t *p,
                              uint32_t size, uint64_t at, uint32_t *pos, uint64_t *prev,
                              uint64_t limit, GError **error)
{
    cap_thread_t *t = cap_thread(c, guest);
    gboolean ok = cap_exec_items(c, t, p, size, at, pos, prev, limit, error);
    if (c->model_failed)
        return FALSE;
    if (ok && *pos < size)
        return TRUE; /* stopped at a block's start: nothing waits to run */
    GError *e = NULL;
    if (!cap_run_complete(c, t, ok ? error : &e)) {
        if (!ok) {
            g_clear_error(error);
            g_propagate_error(error, e);
        }
        return FALSE;
    }
    return ok;
}

/* One EXEC chunk, whole. */
static gboolean cap_exec(pmusim_capture_t *c, uint32_t guest, const uint8_t *p, uint32_t size,
                         uint64_t at, GError **error)
{
    uint32_t pos = 0;
    uint64_t prev = 0;
    return cap_exec_from(c, guest, p, size, at, &pos, &prev, UINT64_MAX, error);
}

static gboolean cap_tb(pmusim_capture_t *c, const uint8_t *p, uint32_t size, uint64_t at,
                       GError **error)
{
    if (size < 16)
        return cap_error(c, at, error, "TB chunk of %u bytes, expected at least 16", size);
    uint32_t id = rd32(p), n = rd32(p + 4);
    uint64_t vaddr = rd64(p + 8);
    if (n == 0 || n > CAPSTREAM_MAX_TB_INSNS)
        return cap_error(c, at + 4, error, "block of %u instructions, expected 1..%u", n,
                         CAPSTREAM_MAX_TB_INSNS);
    const gboolean has_flags = size == CAPSTREAM_TB_SIZE(n);
    const gboolean has_regs = has_flags || size == CAPSTREAM_TB_SIZE_S20(n);
    if (!has_regs && size != CAPSTREAM_TB_SIZE_OLD(n))
        return cap_error(c, at, error,
                         "TB chunk of %u bytes for %u instructions, expected %u (or %u, %u)",
                         size, n, CAPSTREAM_TB_SIZE(n), CAPSTREAM_TB_SIZE_S20(n),
                         CAPSTREAM_TB_SIZE_OLD(n));
    if (id != c->tbs->len)
        return cap_error(c, at, error, "block id %u, expected the next one, %u", id, c->tbs->len);
    if (id >= PMUSIM_CAPTURE_MAX_TBS) {
        g_set_error(error, PMUSIM_CAPTURE_ERROR, PMUSIM_CAPTURE_ERROR_LIMIT,
                    "%s: more than %u translated blocks", c->name, PMUSIM_CAPTURE_MAX_TBS);
        return FALSE;
    }
    cap_tb_t *tb = g_malloc0(sizeof *tb + n * (sizeof tb->in[0] + sizeof tb->rec[0] +
                                               sizeof tb->regs[0] + sizeof tb->acc_info[0]));
    tb->vaddr = vaddr;
    tb->n = n;
    tb->rec = (pmusim_rec_t *)(void *)&tb->in[n];
    tb->regs = (cap_regs_t *)(void *)&tb->rec[n];
    tb->acc_info = (uint16_t *)(void *)&tb->regs[n];
    for (uint32_t i = 0; has_regs && i < n; i++) {
        capstream_regs_t rg;
        uint16_t fl = 0;
        memcpy(&rg, p + CAPSTREAM_TB_SIZE_OLD(n) + i * sizeof rg, sizeof rg);
        if (has_flags)
            memcpy(&fl, p + CAPSTREAM_TB_SIZE_S20(n) + i * sizeof fl, sizeof fl);
        const uint32_t g = CAPSTREAM_FL_CF | CAPSTREAM_FL_OSZAP;
        tb->regs[i] = (cap_regs_t){
            .src = rg.src | ((fl >> CAPSTREAM_FL_SRC_SHIFT) & g) << CAP_REG_FLAGS,
            .dst = rg.dst | ((fl >> CAPSTREAM_FL_DST_SHIFT) & g) << CAP_REG_FLAGS,
            .ld = rg.ld | ((fl >> CAPSTREAM_FL_LD_SHIFT) & g) << CAP_REG_FLAGS,
            .addr = rg.addr,
        };
    }
    uint64_t ip = vaddr;
    for (uint32_t i = 0; i < n; i++) {
        capstream_insn_t d;
        memcpy(&d, p + 16 + i * sizeof d, sizeof d);
        if (d.len == 0 || d.len > 15 || d.br >= PMUSIM_UARCH_BR_COUNT_ ||
            d.fp >= PMUSIM_UARCH_FP_COUNT_ || d.fpclass >= PMUSIM_FPC_COUNT ||
            d.opkind >= PMUSIM_OPK_COUNT || d.uops == 0) {
            cap_tb_free(tb);
            return cap_error(c, at + 16 + i * sizeof d, error,
                             "instruction %u of block %u: length 1..15, a known branch and FP "
                             "kind, an FP class 0..7, an operation kind 0..9 and uops >= 1 "
                             "expected", i, id);
        }
        pmusim_uarch_insn_t *in = &tb->in[i];
        in->ip = ip;
        in->plm = 3; /* user mode: QEMU user-mode emulation runs only user code */
        in->len = d.len;
        in->br = d.br;
        in->fp = d.fp;
        in->uops = d.uops;
        in->flags = (uint16_t)(d.fpclass << PMUSIM_F_FPCLASS_SHIFT |
                               d.opkind << PMUSIM_F_OPKIND_SHIFT |
                               ((d.flags & CAPSTREAM_F_LOCK) ? PMUSIM_F_LOCK : 0u));
        tb->acc_info[i] = (uint16_t)(d.mem_width |
                                     (d.fp != PMUSIM_UARCH_FP_NONE ? CAP_ACC_FP : 0u));
        /* the outcome when the thread runs on to the next instruction */
        in->taken = d.br != PMUSIM_UARCH_BR_NONE && d.br != PMUSIM_UARCH_BR_COND;
        in->target = in->taken ? ip + d.len : 0;
        /* the model's record template: made once per translation */
        pmusim_uarch_rec_template(c->u, in, &tb->rec[i]);
        in->tmpl = &tb->rec[i];
        if (d.flags & CAPSTREAM_F_REP) {
            if (i == 0)
                tb->rep_first = 1;
            if (i == n - 1)
                tb->rep_last = 1;
        }
        ip += d.len;
    }
    /* the instructions whose uops wait in the reservation station for
     * their sources' loads (docs/CAPTURE.md, "Dependences of other
     * instructions"): not a branch (br.dep is its), not one that writes
     * loaded data (a load: its address's dependence is mem.dep, and its
     * operation waits for its own load); before the flag writes below are
     * dropped, which take a flag's ld with them */
    for (uint32_t i = 0; i < n; i++) {
        cap_regs_t *rg = &tb->regs[i];
        if (tb->in[i].br == PMUSIM_UARCH_BR_NONE && !rg->ld)
            rg->rs = rg->src | rg->addr;
    }
    /* flag writes that a later instruction of the block writes again
     * before anything reads them are left out (most ALU operations' before
     * a cmp and its jcc): the tracking's result is the same, since every
     * instruction of a block runs through cap_regs_run() in order
     * (cap_leave_block()), and the block's last writes, which the next
     * block may read, stay (docs/CAPTURE.md, "Dependences of branches":
     * 49 M host instructions of 70 M on the mix 1 capture) */
    const uint32_t fmask = (CAPSTREAM_FL_CF | CAPSTREAM_FL_OSZAP) << CAP_REG_FLAGS;
    uint32_t live = fmask;
    for (uint32_t i = n; i-- > 0;) {
        cap_regs_t *rg = &tb->regs[i];
        const uint32_t wr = rg->dst & fmask;
        rg->dst &= ~(wr & ~live);
        rg->ld &= rg->dst;
        live = (live & ~wr) | (rg->src & fmask);
    }
    /* what a conditional or indirect branch at the end depends on: a
     * condition's flags (or jrcxz's, loop's rcx), a jump's or call's
     * target register, not a call's rsp (its push); a memory target is the
     * branch's own load, which its completion waits for anyway */
    switch (tb->in[n - 1].br) {
    case PMUSIM_UARCH_BR_COND:
    case PMUSIM_UARCH_BR_IND_JUMP:
        tb->br_src = tb->regs[n - 1].src;
        break;
    case PMUSIM_UARCH_BR_IND_CALL:
        tb->br_src = tb->regs[n - 1].src & ~(1u << 4);
        break;
    default:
        break;
    }
    g_ptr_array_add(c->tbs, tb);
    return TRUE;
}

/* A MARKER `name` (g_free'd here) at thread t's cycle, through the model
 * (a fork's, a reaped child's). */
static gboolean cap_marker(pmusim_capture_t *c, const cap_thread_t *t, char *name, GError **error)
{
    if (!c->marker_names)
        c->marker_names = g_string_chunk_new(4096);
    pmusim_rec_t m = {.kind = PMUSIM_REC_MARKER, .plm = 3, .thread = t->hw,
                      .name = g_string_chunk_insert(c->marker_names, name)};
    g_free(name);
    if (!pmusim_uarch_passthrough(c->u, &m, error)) {
        c->model_failed = TRUE;
        return FALSE;
    }
    return TRUE;
}

/* A FORK chunk: guest thread `guest` forked process `pid`, traced in a
 * stream of its own or not (the second word).  Its instructions up to the fork (the EXEC chunk before) have run
 * but for the system call, its block's last, which waits for the thread's
 * next block: the MARKER goes at the thread's cycle as it stands, its last
 * retirement before the fork. */
static gboolean cap_fork(pmusim_capture_t *c, uint32_t guest, const uint8_t *p, uint32_t size,
                         uint64_t at, gboolean run, GError **error)
{
    if (size != 8)
        return cap_error(c, at, error, "FORK chunk of %u bytes, expected 8 (a pid and 0 or 1)",
                         size);
    uint32_t traced = rd32(p + 4);
    if (traced > 1)
        return cap_error(c, at + 4, error,
                         "FORK chunk's second word is %u, expected 0 (not traced) or 1 (traced)",
                         traced);
    uint32_t pid = rd32(p);
    if (pid == 0 || pid > INT32_MAX)
        return cap_error(c, at, error, "FORK chunk with process id %u, expected 1..%d", pid,
                         INT32_MAX);
    if (!run)
        return TRUE; /* checked; it runs at its thread's turn (cap_sched()) */
    if (c->model_failed)
        return FALSE;
    cap_thread_t *t = cap_thread(c, guest);
    g_array_append_val(traced ? c->traced_pids : c->fork_pids, pid);
    char *name = !traced ? g_strdup_printf("fork: child %u not traced", pid)
                 : c->children_out ? g_strdup_printf("fork: child %u traced in %s.%u", pid,
                                                     c->children_out, pid)
                                   : g_strdup_printf("fork: child %u traced", pid);
    return cap_marker(c, t, name, error);
}

/* A REAPED chunk: guest thread `guest`'s wait reaped child `pid`, which
 * signal `sig` had killed; a MARKER at the thread's cycle, as a fork's. */
static gboolean cap_reaped(pmusim_capture_t *c, uint32_t guest, const uint8_t *p, uint32_t size,
                           uint64_t at, gboolean run, GError **error)
{
    uint32_t pid = size == 8 ? rd32(p) : 0, sig = size == 8 ? rd32(p + 4) : 0;
    if (pid == 0 || pid > INT32_MAX || sig == 0 || sig > 64)
        return cap_error(c, at, error, "REAPED chunk: 8 bytes, a process id 1..%d and a signal "
                         "1..64 expected", INT32_MAX);
    if (!run)
        return TRUE; /* checked; it runs at its thread's turn (cap_sched()) */
    if (c->model_failed)
        return FALSE;
    cap_thread_t *t = cap_thread(c, guest);
    g_array_append_val(c->reaped, pid);
    g_array_append_val(c->reaped, sig);
    char *name = g_strdup_printf("wait: child %u was killed by signal %u (%s)", pid, sig,
                                 g_strsignal((int)sig));
    return cap_marker(c, t, name, error);
}

/* Guest thread `guest` exits (THREAD {2}): its last block runs now, at
 * its place in the thread's time, where it used to wait for the end of the
 * stream (a block runs when its thread enters the next: that decides its
 * last instruction's outcome; an exiting thread's last block ends in the
 * exit call). */
static gboolean cap_thread_exit(pmusim_capture_t *c, uint32_t guest, GError **error)
{
    if (c->model_failed)
        return FALSE;
    return cap_leave_block(c, cap_thread(c, guest), UINT64_MAX, error);
}

/* Guest thread `guest` is live (or no longer): its hardware thread is
 * waited for while it has a live guest thread. */
static void cap_live(pmusim_capture_t *c, uint32_t guest, gboolean live)
{
    cap_thread_t *t = cap_thread(c, guest);
    if (t->live == live)
        return;
    t->live = live;
    if (live)
        c->hw_live[t->hw]++;
    else
        c->hw_live[t->hw]--;
}

/* A chunk of guest thread `guest` (EXEC, or a checked FORK or REAPED) joins
 * its hardware thread's queue (a copy: the caller's bytes are not kept). */
static void cap_enqueue(pmusim_capture_t *c, uint32_t kind, uint32_t guest, const uint8_t *p,
                        uint32_t size, uint64_t at, int32_t shm_vcpu)
{
    cap_pending_t *e = g_malloc(sizeof *e + size);
    cap_thread_t *t = cap_thread(c, guest);
    *e = (cap_pending_t){.kind = kind, .guest = guest, .size = size, .at = at,
                         .shm_vcpu = shm_vcpu, .seq = c->enq_seq++, .gprev = t->last_seq};
    t->last_seq = e->seq;
    memcpy(e->data, p, size);
    const uint32_t h = t->hw;
    g_queue_push_tail(&c->hwq[h], e);
    if (kind != CAPSTREAM_THREAD)
        cap_live(c, guest, TRUE);
    c->queued += size;
}

/* The latest time of the hardware threads other than h. */
static uint64_t cap_latest(const pmusim_capture_t *c, uint32_t h)
{
    uint64_t latest = 0;
    for (uint32_t k = 0; k < c->nthreads; k++)
        if (k != h && !pmusim_uarch_sleeping(c->u, k))
            latest = MAX(latest, pmusim_uarch_thread_time(c->u, k));
    return latest;
}

/* Hardware thread h is about to run something: if it sleeps (all its guest
 * threads waited in system calls), it wakes at the others' latest time. */
static gboolean cap_wake(pmusim_capture_t *c, uint32_t h, GError **error)
{
    if (G_LIKELY(!pmusim_uarch_sleeping(c->u, h)))
        return TRUE;
    if (pmusim_uarch_wake(c->u, h, cap_latest(c, h), error))
        return TRUE;
    c->model_failed = TRUE;
    return FALSE;
}

/* A futex wake by hardware thread h (THREAD {5}, or the kernel's at a
 * thread's exit: item seq): up to n of the guest threads waiting on addr,
 * whose hardware threads sleep, wake at h's time; the wake is kept for
 * the race rule of {3} (cap_thread_item()). */
static gboolean cap_futex_wake(pmusim_capture_t *c, uint32_t h, uint64_t addr, uint32_t n,
                               uint64_t seq, GError **error)
{
    const uint64_t now = pmusim_uarch_thread_time(c->u, h);
    if (g_hash_table_size(c->wakes) >= CAP_WAKE_ADDRS)
        g_hash_table_remove_all(c->wakes);
    uint64_t *key = g_new(uint64_t, 1);
    cap_wake_t *val = g_new(cap_wake_t, 1);
    *key = addr;
    *val = (cap_wake_t){.seq = seq};
    g_hash_table_replace(c->wakes, key, val);
    for (guint g = 0; n && g < c->threads->len; g++) {
        cap_thread_t *o = g_ptr_array_index(c->threads, g);
        if (o->wait_addr != addr || !addr || o->woken || !pmusim_uarch_sleeping(c->u, o->hw))
            continue;
        o->woken = TRUE;
        o->woken_at = now;
        c->hw_wake[o->hw] = now;
        if (!pmusim_uarch_wake(c->u, o->hw, now, error)) {
            c->model_failed = TRUE;
            return FALSE;
        }
        n--;
    }
    return TRUE;
}

/* A queued THREAD chunk (payload p) at its thread's turn:
 * {2} the thread's last block runs; with a clear-child-tid address
 *     (THREAD {1, address}), its futex waiters then wake as by a {5} (the
 *     wake of a pthread_join at the exit: the kernel wakes one, QEMU,
 *     which emulates the address for the guest, every waiter; two joiners
 *     of one thread are undefined in POSIX anyway);
 * {3} (it waits in a system call) its hardware thread sleeps if none of
 *     its guest threads is live now;
 * {5} (a wake of n waiters of a futex address): up to n of the guest
 *     threads waiting on that address, whose hardware threads sleep, are
 *     woken at the waker's time: their hardware threads wake in the model
 *     and are waited for from there (cap_sched()), so the waker does not
 *     run on past the wake before their {4} and chunks come;
 * {4, how} (the call returned) the hardware thread wakes where it was
 *     woken; else, when the call did not wait (how 1: a futex wait whose
 *     word had changed), where it began to wait (the model's wake is never
 *     before that); else (no wake seen: a joiner woken by the kernel at a
 *     thread's exit, a timeout, a signal, a descriptor) at the others'
 *     latest time once everything queued before the {4} has run
 *     (cap_head_ready()): they ran while it waited.
 * A {3} whose address had a wake that came after the thread's previous
 * item does not sleep: the plugin sends {5} before the wake and {3} before
 * the wait, so a wake that raced with the wait comes first, and the wait
 * returns at once; the thread stays waited for. */
static gboolean cap_thread_item(pmusim_capture_t *c, const cap_pending_t *e, GError **error)
{
    const uint32_t guest = e->guest;
    const uint8_t *p = e->data;
    cap_thread_t *t = cap_thread(c, guest);
    const uint32_t h = t->hw, what = rd32(p);
    if (what == 5)
        return cap_futex_wake(c, h, rd64(p + 4), rd32(p + 12), e->seq, error);
    if (what == 3) {
        t->wait_addr = rd64(p + 4);
        t->woken = FALSE;
        const cap_wake_t *w = t->wait_addr ? g_hash_table_lookup(c->wakes, &t->wait_addr) : NULL;
        if (w && (e->gprev == UINT64_MAX || w->seq > e->gprev)) {
            /* a wake of its address came after the thread's previous item:
             * it raced with the wait, which returns at once (or soon): the
             * thread stays waited for, and wakes where it is */
            t->wait_addr = 0;
            cap_live(c, guest, TRUE);
            return TRUE;
        }
        if (c->hw_live[h] || pmusim_uarch_sleeping(c->u, h))
            return TRUE;
        if (pmusim_uarch_sleep(c->u, h, error))
            return TRUE;
        c->model_failed = TRUE;
        return FALSE;
    }
    if (what == 4) {
        const uint64_t at = t->woken ? t->woken_at : rd32(p + 4) == 1 ? 0 : cap_latest(c, h);
        t->wait_addr = 0;
        t->woken = FALSE;
        c->hw_wake[h] = UINT64_MAX;
        if (!pmusim_uarch_sleeping(c->u, h))
            return TRUE;
        if (pmusim_uarch_wake(c->u, h, at, error))
            return TRUE;
        c->model_failed = TRUE;
        return FALSE;
    }
    /* {2}: the last block; then the kernel's wake of a joiner */
    const uint64_t ctid = t->ctid;
    t->ctid = 0;
    return cap_wake(c, h, error) && cap_thread_exit(c, guest, error) &&
           (!ctid || cap_futex_wake(c, h, ctid, UINT32_MAX, e->seq, error));
}

/* At the end (c->ending), a guest thread of hardware thread h whose last
 * block has not run, else NULL. */
static cap_thread_t *cap_held(const pmusim_capture_t *c, uint32_t h)
{
    for (guint g = 0; c->ending && g < c->threads->len; g++) {
        cap_thread_t *t = g_ptr_array_index(c->threads, g);
        if (t->hw == h && t->tb)
            return t;
    }
    return NULL;
}

/* Whether hardware thread h's first queued item may run: a THREAD {4} of a
 * thread that will wake at the others' latest time (not woken by a {5}, not
 * {4, 1}) waits until every item queued before it has run (unless `all`:
 * the stream ended), so that the time includes them. */
static gboolean cap_head_ready(pmusim_capture_t *c, uint32_t h, gboolean all)
{
    const cap_pending_t *e = g_queue_peek_head(&c->hwq[h]);
    if (all || e->kind != CAPSTREAM_THREAD || rd32(e->data) != 4 || rd32(e->data + 4) == 1)
        return TRUE;
    /* woken by a wake, or not asleep (its {3} raced with a wake, or
     * another guest thread of h is live): the {4} wakes nothing */
    if (cap_thread(c, e->guest)->woken || !pmusim_uarch_sleeping(c->u, h))
        return TRUE;
    for (uint32_t k = 0; k < c->nthreads; k++) {
        const cap_pending_t *o = g_queue_peek_head(&c->hwq[k]);
        if (k != h && o && o->seq < e->seq)
            return FALSE;
    }
    return TRUE;
}

/* The thread that is run leaves its turn this many cycles after the next
 * one's dispatch cycle: threads in step would otherwise take turns at
 * every block (a few instructions).  128 cycles are a few hundred records
 * per thread, well inside the model's merge queue (2,048 records). */
#define CAP_SLICE 128u

/* Runs the queued chunks in the model's time order: again and again, the
 * hardware thread whose next instruction dispatches first
 * (pmusim_uarch_thread_time()) runs its queue until it passes the next
 * thread's time by CAP_SLICE cycles.  When the first is a thread with a
 * live guest thread (one that sent chunks or was created, and has not
 * exited) but none queued now, it stops (its next chunk may be on the way)
 * unless `all` (the stream ended, or an execve ends the image) or more
 * than CAP_QUEUE_BYTES are queued: then only the threads with chunks
 * count. */
static gboolean cap_sched(pmusim_capture_t *c, gboolean all, GError **error)
{
    while (!c->model_failed) {
        const gboolean force = all || c->queued > CAP_QUEUE_BYTES;
        uint32_t first = UINT32_MAX;
        uint64_t t0 = UINT64_MAX, t1 = UINT64_MAX; /* the earliest two times */
        gboolean first_has = FALSE;
        for (uint32_t h = 0; h < c->nthreads; h++) {
            const gboolean has = g_queue_is_empty(&c->hwq[h]) ? cap_held(c, h) != NULL
                                                              : cap_head_ready(c, h, all);
            /* a sleeping hardware thread's time is where it began to wait:
             * it is not waited for; one whose guest a wake woke is, until
             * that guest's {4} (cap_thread_item()) */
            const gboolean waited = !pmusim_uarch_sleeping(c->u, h) &&
                                    (c->hw_live[h] || c->hw_wake[h] != UINT64_MAX);
            if (!has && (force || !waited))
                continue;
            const uint64_t t = pmusim_uarch_thread_time(c->u, h);
            if (t < t0) {
                t1 = t0;
                t0 = t;
                first = h;
                first_has = has;
            } else if (t < t1) {
                t1 = t;
            }
        }
        if (!first_has)
            return TRUE; /* nothing queued, or the first thread has sent nothing yet */
        if (g_queue_is_empty(&c->hwq[first])) { /* the end: a thread's last block */
            if (!cap_wake(c, first, error) ||
                !cap_leave_block(c, cap_held(c, first), UINT64_MAX, error))
                return FALSE;
            continue;
        }
        cap_pending_t *e = g_queue_peek_head(&c->hwq[first]);
        gboolean ok;
        if (e->kind == CAPSTREAM_THREAD) {
            ok = cap_thread_item(c, e, error);
        } else if (!cap_wake(c, first, error)) {
            ok = FALSE;
        } else if (e->kind == CAPSTREAM_EXEC) {
            const uint64_t limit = t1 > UINT64_MAX - CAP_SLICE ? UINT64_MAX : t1 + CAP_SLICE;
            ok = cap_exec_from(c, e->guest, e->data, e->size, e->at, &e->pos, &e->prev, limit,
                               error);
            if (ok && e->pos < e->size)
                continue; /* another thread's turn */
        } else if (e->kind == CAPSTREAM_FORK) {
            ok = cap_fork(c, e->guest, e->data, e->size, e->at, TRUE, error);
        } else {
            ok = cap_reaped(c, e->guest, e->data, e->size, e->at, TRUE, error);
        }
        g_queue_pop_head(&c->hwq[first]);
        c->queued -= e->size;
        if (!ok && e->shm_vcpu >= 0)
            g_prefix_error(error, "the shared buffer of vCPU %d (region bytes): ", e->shm_vcpu);
        g_free(e);
        if (!ok)
            return FALSE;
    }
    return FALSE;
}

/* An EXECVE chunk (capstream.h): {1, 0[, why]} a thread calls execve, the
 * new program runs natively if the call works; {2, 0} the call failed;
 * {3, N, program} the new image is traced on in image N's stream (only
 * {4, N, note} once and {1, 0, why} may follow it: how the image's
 * environment differs from the guest's envp; the plugin could not replace
 * QEMU). */
static gboolean cap_execve(pmusim_capture_t *c, const uint8_t *p, uint32_t size, uint64_t at,
                           GError **error)
{
    uint32_t what = size >= 8 ? rd32(p) : 0, arg = size >= 8 ? rd32(p + 4) : 0;
    uint32_t tn = size >= 8 ? size - 8 : 0;
    gboolean ok = size >= 8 && tn <= CAPSTREAM_EXECVE_MAX_TEXT &&
                  (tn == 0 || !memchr(p + 8, '\0', tn)) &&
                  ((what == 1 && arg == 0) || (what == 2 && arg == 0 && tn == 0 && !c->exec_image) ||
                   (what == 3 && arg >= 1 && tn > 0 && !c->exec_image) ||
                   (what == 4 && arg == c->exec_image && arg && tn > 0 && !c->exec_note));
    if (!ok)
        return cap_error(c, at, error,
                         "EXECVE chunk: {1, 0[, why]}, {2, 0} or {3, N >= 1, program} expected "
                         "(8 bytes and up to %u of text without NUL; {4, N, note} once and "
                         "{1, 0, why} alone after {3, N})", CAPSTREAM_EXECVE_MAX_TEXT);
    if (what == 4) {
        c->exec_note = g_strndup((const char *)p + 8, tn);
        return TRUE;
    }
    g_free(c->exec_text);
    c->exec_text = g_strndup((const char *)p + 8, tn);
    g_clear_pointer(&c->exec_note, g_free);
    c->in_execve = what == 1;
    c->exec_image = what == 3 ? arg : 0;
    return TRUE;
}

/* A THREAD chunk (capstream.h): {1} guest thread `guest` was created, {2}
 * it exits, {3} it enters a system call that waits, {4} the call returned.
 * Only the order of threads depends on it (cap_sched()): the thread is live
 * after 1 and 4, not after 2 and 3. */
static gboolean cap_thread_chunk(pmusim_capture_t *c, uint32_t guest, const uint8_t *p,
                                 uint32_t size, uint64_t at, GError **error)
{
    const uint32_t what = size >= 4 ? rd32(p) : 0;
    if (what < 1 || what > 5 ||
        (size != (what == 3 ? 12u : what == 5 ? 16u : what == 4 ? 8u : 4u) &&
         !(what == 1 && size == 12)) ||
        (what == 4 && rd32(p + 4) > 1))
        return cap_error(c, at, error, "THREAD chunk: {1} or {1, clear-child-tid address} "
                         "(created), {2} (exits), {3, futex address} (waits in a system call), "
                         "{4, 0 or 1} (the call returned; 1: without waiting) or {5, futex "
                         "address, n} (wakes up to n waiters) expected (u32 what, u64 address, "
                         "u32 n)");
    if (!c->hwq)
        return what != 2 || cap_thread_exit(c, guest, error);
    if (what == 1) /* a new thread on this vCPU: its own address, or none */
        cap_thread(c, guest)->ctid = size == 12 ? rd64(p + 4) : 0;
    /* an exit, a wait, a return and a wake act at the thread's turn
     * (cap_sched()) */
    if (what != 1)
        cap_enqueue(c, CAPSTREAM_THREAD, guest, p, size, at, -1);
    if (what != 5)
        cap_live(c, guest, what == 1 || what == 4);
    return cap_sched(c, FALSE, error);
}

static gboolean cap_chunk(pmusim_capture_t *c, uint32_t kind, uint32_t vcpu, const uint8_t *p,
                          uint32_t size, uint64_t at, GError **error)
{
    if (!c->hello && kind != CAPSTREAM_HELLO)
        return cap_error(c, at, error, "the stream must start with a HELLO chunk");
    if (c->end)
        return cap_error(c, at, error, "chunk after the END chunk");
    if (vcpu >= CAPSTREAM_SHM_VCPUS) /* the plugin sends nothing of higher vCPUs */
        return cap_error(c, at - CAPSTREAM_HEADER_SIZE + 6, error, "vCPU %u, below %u expected", vcpu,
                         CAPSTREAM_SHM_VCPUS);
    if (c->exec_image && kind != CAPSTREAM_EXECVE)
        return cap_error(c, at, error, "chunk of kind %u after EXECVE {3, %u}: only an EXECVE "
                         "{4, %u} (the environment's note) or {1, 0} (the execve of QEMU failed) "
                         "may follow", kind, c->exec_image, c->exec_image);
    switch (kind) {
    case CAPSTREAM_HELLO:
        if (c->hello || size < 4 || rd32(p) != CAPSTREAM_VERSION)
            return cap_error(c, at, error, "HELLO: one, with stream version %u, expected",
                             CAPSTREAM_VERSION);
        c->hello = TRUE;
        c->binary = g_strndup((const char *)p + 4, size - 4);
        return TRUE;
    case CAPSTREAM_TB:
        return cap_tb(c, p, size, at, error);
    case CAPSTREAM_EXEC:
        if (!c->hwq)
            return cap_exec(c, vcpu, p, size, at, error);
        cap_enqueue(c, kind, vcpu, p, size, at, -1);
        return cap_sched(c, FALSE, error);
    case CAPSTREAM_MAPS:
        g_free(c->maps);
        c->maps = g_strndup((const char *)p, size);
        return TRUE;
    case CAPSTREAM_FORK:
    case CAPSTREAM_REAPED: {
        /* checked now (errors in stream order); the MARKER goes at the
         * thread's place, after its EXEC chunks before it */
        gboolean fork = kind == CAPSTREAM_FORK;
        if (!c->hwq)
            return fork ? cap_fork(c, vcpu, p, size, at, TRUE, error)
                        : cap_reaped(c, vcpu, p, size, at, TRUE, error);
        if (!(fork ? cap_fork(c, vcpu, p, size, at, FALSE, error)
                   : cap_reaped(c, vcpu, p, size, at, FALSE, error)))
            return FALSE;
        cap_enqueue(c, kind, vcpu, p, size, at, -1);
        return cap_sched(c, FALSE, error);
    }
    case CAPSTREAM_EXECVE:
        /* the image ends (or may): what its threads executed runs first */
        if (c->hwq && !cap_sched(c, TRUE, error))
            return FALSE;
        return cap_execve(c, p, size, at, error);
    case CAPSTREAM_THREAD:
        return cap_thread_chunk(c, vcpu, p, size, at, error);
    case CAPSTREAM_END:
        c->end = TRUE;
        if (size >= 32) {
            c->plugin_write_ns = rd64(p + 8);
            c->plugin_bytes = rd64(p + 16);
            c->plugin_runq_ns = rd64(p + 24);
        }
        return TRUE;
    default:
        return cap_error(c, at, error, "unknown chunk kind %u", kind);
    }
}

/* Runs the complete chunks of p[0, n), stream offset c->offset; *used = the
 * bytes they took (an incomplete chunk at the end is left). */
static gboolean cap_parse(pmusim_capture_t *c, const uint8_t *p, size_t n, size_t *used,
                          GError **error)
{
    size_t pos = 0;
    gboolean ok = TRUE;
    while (n - pos >= CAPSTREAM_HEADER_SIZE) {
        const uint8_t *h = p + pos;
        uint64_t at = c->offset + pos;
        if (rd32(h) != CAPSTREAM_MAGIC) {
            ok = cap_error(c, at, error, "chunk magic 0x%08x, expected 0x%08x", rd32(h),
                           CAPSTREAM_MAGIC);
            break;
        }
        uint32_t kv = rd32(h + 4), size = rd32(h + 8), seq = rd32(h + 12);
        if (size > CAPSTREAM_MAX_CHUNK) {
            ok = cap_error(c, at + 8, error, "chunk of %u bytes, at most %u expected", size,
                           CAPSTREAM_MAX_CHUNK);
            break;
        }
        if (seq != (uint32_t)c->next_seq) {
            ok = cap_error(c, at + 12, error, "chunk number %u, expected %u (chunks were lost)",
                           seq, (uint32_t)c->next_seq);
            break;
        }
        if (n - pos - CAPSTREAM_HEADER_SIZE < size)
            break;
        c->next_seq++;
        if (!cap_chunk(c, kv & 0xffff, kv >> 16, h + CAPSTREAM_HEADER_SIZE, size,
                       at + CAPSTREAM_HEADER_SIZE, error)) {
            ok = FALSE;
            break;
        }
        pos += CAPSTREAM_HEADER_SIZE + size;
    }
    *used = pos;
    return ok;
}

/* Chunks are parsed in place in the caller's buffer; only a chunk split
 * between two calls is gathered in c->buf (one copy of its bytes). */
gboolean pmusim_capture_feed(pmusim_capture_t *c, const void *data, size_t len, GError **error)
{
    const uint8_t *p = data;
    size_t used = 0;
    if (c->buf->len) {
        /* complete the pending chunk: its header, then its payload */
        for (int step = 0; step < 2; step++) {
            size_t want = CAPSTREAM_HEADER_SIZE;
            if (c->buf->len >= CAPSTREAM_HEADER_SIZE) {
                uint32_t size = rd32(c->buf->data + 8);
                want += size <= CAPSTREAM_MAX_CHUNK ? size : 0;
            }
            if (c->buf->len < want) {
                size_t take = MIN(want - c->buf->len, len - used);
                g_byte_array_append(c->buf, p + used, (guint)take);
                used += take;
            }
        }
        size_t done;
        if (!cap_parse(c, c->buf->data, c->buf->len, &done, error))
            return FALSE;
        if (!done) /* still incomplete: every byte given is in c->buf */
            return TRUE;
        c->offset += done;
        g_byte_array_set_size(c->buf, 0);
    }
    size_t done;
    gboolean ok = cap_parse(c, p + used, len - used, &done, error);
    c->offset += done;
    used += done;
    if (ok && used < len)
        g_byte_array_append(c->buf, p + used, (guint)(len - used));
    return ok;
}

gboolean pmusim_capture_finish(pmusim_capture_t *c, GError **error)
{
    c->ending = TRUE;
    if (c->hwq && !cap_sched(c, TRUE, error))
        return FALSE;
    for (guint g = 0; g < c->threads->len; g++) {
        cap_thread_t *t = g_ptr_array_index(c->threads, g);
        if (t->tb && c->hwq && !cap_wake(c, t->hw, error)) /* it waited to the end */
            return FALSE;
        if (!cap_leave_block(c, t, UINT64_MAX, error))
            return FALSE;
    }
    if (c->buf->len)
        return cap_error(c, c->offset, error, "the stream ends inside a chunk (%u bytes left)",
                         c->buf->len);
    return TRUE;
}

/* ---- after a death: the shared execution buffers ---- */

static gboolean shm_error(pmusim_capture_t *c, uint32_t vcpu, GError **error, const char *fmt, ...)
    G_GNUC_PRINTF(4, 5);
static gboolean shm_error(pmusim_capture_t *c, uint32_t vcpu, GError **error, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *msg = g_strdup_vprintf(fmt, ap);
    va_end(ap);
    g_set_error(error, PMUSIM_CAPTURE_ERROR, PMUSIM_CAPTURE_ERROR_STREAM,
                "%s: the shared buffer of vCPU %u (byte %" G_GUINT64_FORMAT " of the region): %s",
                c->name, vcpu, (guint64)vcpu * sizeof(capstream_vbuf_t), msg);
    g_free(msg);
    return FALSE;
}

/* The buffers' headers are read field by field (the region is another
 * process's memory: nothing is assumed of it). */
gboolean pmusim_capture_recover(pmusim_capture_t *c, const void *shm, size_t size,
                                uint64_t *recovered, GError **error)
{
    if (recovered)
        *recovered = 0;
    /* the chunk the death cut, if its header arrived: its place in the stream */
    gboolean cut = c->buf->len >= CAPSTREAM_HEADER_SIZE;
    uint32_t cut_kv = cut ? rd32(c->buf->data + 4) : 0, cut_size = cut ? rd32(c->buf->data + 8) : 0;
    if (c->end || !c->hello) {
        /* nothing to complete (a whole stream), or nothing the buffers'
         * blocks could be placed by (no chunk arrived) */
        g_byte_array_set_size(c->buf, 0);
        return TRUE;
    }
    const uint8_t *base = shm;
    const size_t stride = sizeof(capstream_vbuf_t);
    uint32_t nbuf = shm ? (uint32_t)MIN(size / stride, (size_t)CAPSTREAM_SHM_VCPUS) : 0;
    /* every header first: a damaged region changes nothing */
    uint32_t inflight = UINT32_MAX; /* the buffer whose chunk the death cut or kept from starting */
    for (uint32_t k = 0; k < nbuf; k++) {
        const uint8_t *h = base + (size_t)k * stride;
        uint64_t len = rd64(h + offsetof(capstream_vbuf_t, len));
        uint64_t pending = rd64(h + offsetof(capstream_vbuf_t, pending));
        if (len > CAPSTREAM_VBUF_SIZE)
            return shm_error(c, k, error, "%" G_GUINT64_FORMAT " bytes of items, at most %u expected",
                             (guint64)len, CAPSTREAM_VBUF_SIZE);
        if (!pending || pending - 1 < c->next_seq)
            continue; /* never sent, or sent whole */
        if (pending - 1 > c->next_seq)
            return shm_error(c, k, error,
                             "a flush of chunk %" G_GUINT64_FORMAT ", but the stream's next "
                             "chunk is %" G_GUINT64_FORMAT, (guint64)(pending - 1),
                             (guint64)c->next_seq);
        if (inflight != UINT32_MAX)
            return shm_error(c, k, error, "a flush of chunk %" G_GUINT64_FORMAT ", as vCPU %u's",
                             (guint64)(pending - 1), inflight);
        if (!len)
            return shm_error(c, k, error, "a flush of chunk %" G_GUINT64_FORMAT " with no bytes",
                             (guint64)(pending - 1));
        if (cut && ((cut_kv & 0xffff) != CAPSTREAM_EXEC || cut_kv >> 16 != k || cut_size != len))
            return shm_error(c, k, error,
                             "a flush of chunk %" G_GUINT64_FORMAT ", an EXEC chunk of vCPU %u, "
                             "%" G_GUINT64_FORMAT " bytes; the stream has kind %u, vCPU %u, %u "
                             "bytes", (guint64)(pending - 1), k, (guint64)len, cut_kv & 0xffff,
                             cut_kv >> 16, cut_size);
        inflight = k;
    }
    /* the cut chunk is dropped: the buffer that sent it completes it below,
     * and any other kind (a block, the mappings) ran nothing yet */
    g_byte_array_set_size(c->buf, 0);
    for (int pass = 0; pass < 2; pass++) {
        for (uint32_t k = 0; k < nbuf; k++) {
            const uint8_t *h = base + (size_t)k * stride;
            uint32_t len = (uint32_t)rd64(h + offsetof(capstream_vbuf_t, len));
            uint64_t pending = rd64(h + offsetof(capstream_vbuf_t, pending));
            /* pass 0: the chunk in flight, in its place; pass 1: the items
             * never sent, in vCPU order */
            if (pass == 0 ? k != inflight : (!len || pending != 0))
                continue;
            uint64_t at = (uint64_t)k * stride + offsetof(capstream_vbuf_t, data);
            if (pass == 0)
                c->next_seq++;
            if (c->hwq) /* runs in time order with the rest (pmusim_capture_finish()) */
                cap_enqueue(c, CAPSTREAM_EXEC, k, h + offsetof(capstream_vbuf_t, data), len, at,
                            (int32_t)k);
            else if (!cap_exec(c, k, h + offsetof(capstream_vbuf_t, data), len, at, error)) {
                g_prefix_error(error, "the shared buffer of vCPU %u (region bytes): ", k);
                return FALSE;
            }
            if (recovered)
                *recovered += len;
        }
    }
    return TRUE;
}

gboolean pmusim_capture_saw_end(const pmusim_capture_t *c) { return c->end; }

gboolean pmusim_capture_in_execve(const pmusim_capture_t *c) { return c->in_execve; }

uint32_t pmusim_capture_exec_image(const pmusim_capture_t *c, const char **program)
{
    if (program)
        *program = c->exec_image ? c->exec_text : NULL;
    return c->exec_image;
}

const char *pmusim_capture_exec_note(const pmusim_capture_t *c)
{
    return c->exec_image ? c->exec_note : NULL;
}

const char *pmusim_capture_execve_why(const pmusim_capture_t *c)
{
    return c->in_execve && c->exec_text ? c->exec_text : "";
}

uint32_t pmusim_capture_forks(const pmusim_capture_t *c, const uint32_t **pids)
{
    if (pids)
        *pids = (const uint32_t *)(const void *)c->fork_pids->data;
    return c->fork_pids->len;
}
uint32_t pmusim_capture_traced_forks(const pmusim_capture_t *c, const uint32_t **pids)
{
    if (pids)
        *pids = (const uint32_t *)(const void *)c->traced_pids->data;
    return c->traced_pids->len;
}

uint32_t pmusim_capture_reaped(const pmusim_capture_t *c, const uint32_t **pairs)
{
    if (pairs)
        *pairs = (const uint32_t *)(const void *)c->reaped->data;
    return c->reaped->len / 2;
}

void pmusim_capture_set_children_out(pmusim_capture_t *c, const char *out)
{
    g_free(c->children_out);
    c->children_out = g_strdup(out);
}

uint32_t pmusim_capture_guest_threads(const pmusim_capture_t *c) { return c->threads->len; }
uint64_t pmusim_capture_instructions(const pmusim_capture_t *c) { return c->insns; }
uint64_t pmusim_capture_rep_iterations(const pmusim_capture_t *c) { return c->rep_more; }
const char *pmusim_capture_binary(const pmusim_capture_t *c) { return c->binary; }

void pmusim_capture_plugin_timing(const pmusim_capture_t *c, uint64_t *write_ns, uint64_t *bytes,
                                  uint64_t *runq_ns)
{
    *write_ns = c->plugin_write_ns;
    *bytes = c->plugin_bytes;
    *runq_ns = c->plugin_runq_ns;
}

/* ---- symbols ---- */

typedef struct sym_ctx {
    pmusim_trace_writer_t *w;
    GHashTable *seen; /* "start:name" of symbols written */
} sym_ctx_t;

static gboolean sym_add(uint64_t start, uint64_t end, const char *name, void *user, GError **error)
{
    sym_ctx_t *s = user;
    char *key = g_strdup_printf("%" G_GINT64_MODIFIER "x:%s", (guint64)start, name);
    if (g_hash_table_contains(s->seen, key)) {
        g_free(key);
        return TRUE;
    }
    g_hash_table_add(s->seen, key);
    return pmusim_trace_writer_add_symbol(s->w, start, end, name, error);
}

static gboolean mapping_has_code(const pmusim_capture_t *c, uint64_t start, uint64_t end)
{
    for (guint i = 0; i < c->tbs->len; i++) {
        const cap_tb_t *tb = g_ptr_array_index(c->tbs, i);
        if (tb->vaddr >= start && tb->vaddr < end)
            return TRUE;
    }
    return FALSE;
}

gboolean pmusim_capture_add_symbols(pmusim_capture_t *c, pmusim_trace_writer_t *w,
                                    guint *skipped, GError **error)
{
    if (skipped)
        *skipped = 0;
    if (!c->maps)
        return TRUE;
    sym_ctx_t s = {.w = w, .seen = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL)};
    gboolean ok = TRUE;
    gchar **lines = g_strsplit(c->maps, "\n", -1);
    for (gchar **l = lines; ok && *l; l++) {
        if (!**l)
            continue;
        /* "START END OFFSET PATH" in hex; the path may hold blanks */
        gchar **f = g_strsplit(*l, " ", 4);
        guint64 start, end, off;
        if (g_strv_length(f) == 4 && g_ascii_string_to_unsigned(f[0], 16, 0, G_MAXUINT64, &start, NULL) &&
            g_ascii_string_to_unsigned(f[1], 16, 0, G_MAXUINT64, &end, NULL) &&
            g_ascii_string_to_unsigned(f[2], 16, 0, G_MAXUINT64, &off, NULL) && start < end &&
            f[3][0] == '/' && mapping_has_code(c, start, end)) {
            GError *e = NULL;
            if (!pmusim_elf_symbols(f[3], start, off, sym_add, &s, &e)) {
                if (e && e->domain == PMUSIM_TRACE_ERROR) {
                    g_propagate_error(error, e); /* the writer failed */
                    ok = FALSE;
                } else {
                    g_clear_error(&e);
                    if (skipped)
                        (*skipped)++;
                }
            }
        }
        g_strfreev(f);
    }
    g_strfreev(lines);
    g_hash_table_destroy(s.seen);
    return ok;
}
