/* The capture stream reader (traces/capture/capture.c) on a hand-made
 * version 3 stream (traces/capture/capstream.h): every EXEC item form, its
 * bytes written out here, gives the instructions and accesses worked out by
 * hand below, whatever the split of the stream between two feeds. */
#include "pmusim/capture.h"
#include "pmusim/uarch.h"

#include <CUnit/Basic.h>
#include <string.h>

static gboolean collect(const pmusim_rec_t *recs, size_t n, void *user, GError **error)
{
    (void)error;
    GArray *out = user;
    for (size_t i = 0; i < n; i++)
        if (recs[i].kind == PMUSIM_REC_INSN || recs[i].kind == PMUSIM_REC_MEM ||
            recs[i].kind == PMUSIM_REC_THREAD)
            g_array_append_val(out, recs[i]);
    return TRUE;
}

static void put(GByteArray *b, const void *p, guint n) { g_byte_array_append(b, p, n); }

static void put32(GByteArray *b, uint32_t v)
{
    uint8_t x[4] = {(uint8_t)v, (uint8_t)(v >> 8), (uint8_t)(v >> 16), (uint8_t)(v >> 24)};
    put(b, x, 4);
}

static void put64(GByteArray *b, uint64_t v)
{
    put32(b, (uint32_t)v);
    put32(b, (uint32_t)(v >> 32));
}

static void chunk(GByteArray *s, uint32_t *seq, uint16_t kind, uint16_t vcpu, const void *p,
                  guint n)
{
    put32(s, 0x50435350u);
    put32(s, (uint32_t)kind | (uint32_t)vcpu << 16);
    put32(s, n);
    put32(s, (*seq)++);
    put(s, p, n);
}

/* one instruction of a TB chunk: len, branch kind, fp, uops, flags, target */
static void tb_insn(GByteArray *b, uint8_t len, uint8_t br, uint8_t uops, uint64_t target)
{
    uint8_t d[8] = {len, br, 0, uops, 0, 0, 0, 0};
    put(b, d, 8);
    put64(b, target);
}

static GByteArray *make_stream(void)
{
    GByteArray *s = g_byte_array_new(), *p = g_byte_array_new();
    uint32_t seq = 0;
    put32(p, 3);
    put(p, "/bin/prog", 9);
    chunk(s, &seq, 1, 0, p->data, p->len); /* HELLO, version 3 */
    /* block 0 at 0x401000: a 4-byte load, a 3-byte store, a jcc back */
    g_byte_array_set_size(p, 0);
    put32(p, 0);
    put32(p, 3);
    put64(p, 0x401000);
    tb_insn(p, 4, PMUSIM_UARCH_BR_NONE, 1, 0);
    tb_insn(p, 3, PMUSIM_UARCH_BR_NONE, 1, 0);
    tb_insn(p, 2, PMUSIM_UARCH_BR_COND, 1, 0x401000);
    chunk(s, &seq, 2, 0, p->data, p->len);
    /* block 1 at 0x401009: a return */
    g_byte_array_set_size(p, 0);
    put32(p, 1);
    put32(p, 1);
    put64(p, 0x401009);
    tb_insn(p, 1, PMUSIM_UARCH_BR_RET, 2, 0);
    chunk(s, &seq, 2, 0, p->data, p->len);
    static const uint8_t exec1[] = {
        0x00, 0x00,                         /* block 0, short form */
        /* insn +0, load, 8 bytes (log2 3), 4 delta bytes: 0x7fff0010 - 0
         * zigzags to 0xfffe0020; h = 1 | 3 << 2 | 4 << 4 = 0x4d */
        0x4d, 0x00, 0x20, 0x00, 0xfe, 0xff,
        /* insn +1, store, 4 bytes: 0x7fff0008 is -8 away, zigzag 15;
         * h = 1 | 2 | 2 << 2 | 1 << 4 | 1 << 7 = 0x9b */
        0x9b, 0x00, 0x0f,
        0x02, 0x00, 0x00, 0x00,             /* block 0 again, long form: the jcc was taken */
        /* insn +0, load 8 bytes at 0x7fff0010: +8, zigzag 16; h = 0x1d */
        0x1d, 0x00, 0x10,
        /* insn +0 again, store 8 bytes at the same address: no delta bytes; h = 0x0f */
        0x0f, 0x00,
        /* insn +2, load 1 byte at 0x8000000000000010: +0x7fffffff80010000,
         * zigzag 0xffffffff00020000, code 7 (8 bytes); h = 1 | 7 << 4 | 2 << 7 */
        0x71, 0x01, 0x00, 0x00, 0x02, 0x00, 0xff, 0xff, 0xff, 0xff,
        0x04, 0x00,                         /* block 1: the jcc fell through */
    };
    chunk(s, &seq, 3, 0, exec1, sizeof exec1);
    /* a new chunk starts its deltas from 0: the return's load of 8 bytes at
     * 0x7fff0008 (zigzag 0xfffe0010) */
    static const uint8_t exec2[] = {0x4d, 0x00, 0x10, 0x00, 0xfe, 0xff};
    chunk(s, &seq, 3, 0, exec2, sizeof exec2);
    uint32_t reason = 0;
    chunk(s, &seq, 5, 0, &reason, 4); /* END */
    g_byte_array_unref(p);
    return s;
}

typedef struct want {
    uint8_t kind;
    uint64_t ip;
    uint64_t addr; /* 0: no access */
    uint8_t size, is_store;
    int taken; /* -1: not a branch */
    uint64_t target;
} want_t;

static const want_t expected[] = {
    {PMUSIM_REC_INSN, 0x401000, 0x7fff0010, 8, 0, -1, 0},
    {PMUSIM_REC_INSN, 0x401004, 0x7fff0008, 4, 1, -1, 0},
    {PMUSIM_REC_INSN, 0x401007, 0, 0, 0, 1, 0x401000},
    {PMUSIM_REC_INSN, 0x401000, 0x7fff0010, 8, 0, -1, 0},
    {PMUSIM_REC_MEM, 0x401000, 0x7fff0010, 8, 1, -1, 0},
    {PMUSIM_REC_INSN, 0x401004, 0, 0, 0, -1, 0},
    {PMUSIM_REC_INSN, 0x401007, UINT64_C(0x8000000000000010), 1, 0, 0, 0},
    {PMUSIM_REC_INSN, 0x401009, 0x7fff0008, 8, 0, 1, 0}, /* where it returned: unknown */
};

/* One run of a whole stream fed in two pieces split at `cut` into a wsm
 * model whose records `sink` collects into r->recs, then finished: TRUE when
 * every step succeeded (the error on stderr otherwise). */
typedef struct split_run {
    GArray *recs;
    pmusim_uarch_t *u;
    pmusim_capture_t *c;
} split_run_t;

static gboolean split_run(split_run_t *r, const GByteArray *s, guint cut, pmusim_uarch_sink_fn sink,
                          const char *name)
{
    GError *error = NULL;
    r->recs = g_array_new(FALSE, TRUE, sizeof(pmusim_rec_t));
    r->u = pmusim_uarch_new(PMUSIM_CPU_WSM, 1, NULL, sink, r->recs, &error);
    CU_ASSERT_PTR_NOT_NULL_FATAL(r->u);
    r->c = pmusim_capture_new(r->u, 1, name);
    gboolean ok = pmusim_capture_feed(r->c, s->data, cut, &error) &&
                  pmusim_capture_feed(r->c, s->data + cut, s->len - cut, &error) &&
                  pmusim_capture_finish(r->c, &error) && pmusim_uarch_finish(r->u, &error);
    if (!ok)
        fprintf(stderr, "cut %u: %s\n", cut, error ? error->message : "?");
    g_clear_error(&error);
    return ok;
}

static void split_free(split_run_t *r)
{
    pmusim_capture_free(r->c);
    pmusim_uarch_free(r->u);
    g_array_unref(r->recs);
}

static void test_capture_v2_items(void)
{
    GByteArray *s = make_stream();
    for (guint cut = 0; cut <= s->len; cut++) {
        split_run_t run;
        CU_ASSERT_TRUE(split_run(&run, s, cut, collect, "test"));
        GArray *recs = run.recs;
        pmusim_capture_t *c = run.c;
        CU_ASSERT_TRUE(pmusim_capture_saw_end(c));
        CU_ASSERT_STRING_EQUAL(pmusim_capture_binary(c), "/bin/prog");
        CU_ASSERT_EQUAL(pmusim_capture_instructions(c), 7);
        CU_ASSERT_EQUAL_FATAL(recs->len, G_N_ELEMENTS(expected));
        for (guint i = 0; i < recs->len; i++) {
            const pmusim_rec_t *r = &g_array_index(recs, pmusim_rec_t, i);
            const want_t *w = &expected[i];
            CU_ASSERT_EQUAL(r->kind, w->kind);
            CU_ASSERT_EQUAL(r->ip, w->ip);
            CU_ASSERT_EQUAL(r->plm, 3);
            if (w->kind == PMUSIM_REC_MEM || w->addr) {
                CU_ASSERT(w->kind == PMUSIM_REC_MEM || (r->flags & PMUSIM_F_MEM));
                CU_ASSERT_EQUAL(r->mem.addr, w->addr);
                CU_ASSERT_EQUAL(r->mem.size, w->size);
                CU_ASSERT_EQUAL(r->mem.is_store, w->is_store);
            } else {
                CU_ASSERT_FALSE(r->flags & PMUSIM_F_MEM);
            }
            if (w->kind == PMUSIM_REC_INSN && w->taken >= 0) {
                CU_ASSERT(r->flags & PMUSIM_F_BRANCH);
                CU_ASSERT_EQUAL(r->br.taken, w->taken);
                if (w->taken)
                    CU_ASSERT_EQUAL(r->br.target, w->target);
            }
        }
        split_free(&run);
    }
    g_byte_array_unref(s);
}

/* A TB chunk of a plugin since session 21: the instructions, their register
 * masks (src, dst, ld, addr) and their flag groups (u16: read bits 0-1,
 * written 2-3, written with loaded data 4-5; bit 0 CF, bit 1 the others). */
static void tb_regs(GByteArray *b, uint16_t src, uint16_t dst, uint16_t ld, uint16_t addr)
{
    const uint16_t r[4] = {src, dst, ld, addr};
    put(b, r, sizeof r);
}

/* A branch's dependence on a load through the flags (docs/CAPTURE.md,
 * "Dependences of branches"): two blocks of
 *   mov rdx,[rdi]   (a load; rdx its data)
 *   cmp rdx,0       (writes both flag groups from rdx)
 *   dec ecx         (writes OF SF ZF AF PF from rcx, keeps CF)
 *   jc / jnz        (reads CF / ZF)
 * each run once with its load.  The jc's CF comes from the cmp, so from
 * the load: distance 1 (the thread's newest load); the jnz's ZF from the
 * dec, from no load: 0.  One flag register for all the flags would give
 * the jc 0 too; no flags at all, both 0.  A stream of session 20 (no flag
 * masks) still reads, with no distance. */
static void test_capture_branch_dep(void)
{
    for (int with_flags = 1; with_flags >= 0; with_flags--) {
        GByteArray *s = g_byte_array_new(), *p = g_byte_array_new();
        uint32_t seq = 0;
        put32(p, 3);
        put(p, "/bin/prog", 9);
        chunk(s, &seq, 1, 0, p->data, p->len);
        for (uint32_t b = 0; b < 2; b++) {
            g_byte_array_set_size(p, 0);
            put32(p, b);
            put32(p, 4);
            put64(p, 0x401000 + 0x1000 * b);
            tb_insn(p, 3, PMUSIM_UARCH_BR_NONE, 1, 0);
            tb_insn(p, 4, PMUSIM_UARCH_BR_NONE, 1, 0);
            tb_insn(p, 2, PMUSIM_UARCH_BR_NONE, 1, 0);
            tb_insn(p, 2, PMUSIM_UARCH_BR_COND, 1, 0x401000);
            tb_regs(p, 0, 1u << 2, 1u << 2, 1u << 7); /* rdx <- [rdi] */
            tb_regs(p, 1u << 2, 0, 0, 0);             /* cmp rdx */
            tb_regs(p, 1u << 1, 1u << 1, 0, 0);       /* dec ecx */
            tb_regs(p, 0, 0, 0, 0);
            if (with_flags) {
                const uint16_t fl[4] = {0, 3u << 2, 2u << 2, b ? 2u : 1u};
                put(p, fl, sizeof fl);
            }
            chunk(s, &seq, 2, 0, p->data, p->len);
        }
        static const uint8_t exec[] = {
            0x00, 0x00, 0x4d, 0x00, 0x20, 0x00, 0xfe, 0xff, /* block 0, its load */
            0x04, 0x00, 0x1d, 0x00, 0x80,                   /* block 1, its load (+0x40) */
        };
        chunk(s, &seq, 3, 0, exec, sizeof exec);
        uint32_t reason = 0;
        chunk(s, &seq, 5, 0, &reason, 4); /* END */
        split_run_t run;
        CU_ASSERT_TRUE(split_run(&run, s, s->len, collect, "test"));
        unsigned nbr = 0;
        for (guint i = 0; i < run.recs->len; i++) {
            const pmusim_rec_t *r = &g_array_index(run.recs, pmusim_rec_t, i);
            if (r->kind != PMUSIM_REC_INSN || !(r->flags & PMUSIM_F_BRANCH))
                continue;
            CU_ASSERT_EQUAL(r->ip, nbr ? 0x402009u : 0x401009u);
            CU_ASSERT_EQUAL(r->br.dep, nbr == 0 && with_flags ? 1 : 0);
            nbr++;
        }
        CU_ASSERT_EQUAL(nbr, 2);
        split_free(&run);
        g_byte_array_unref(p);
        g_byte_array_unref(s);
    }
}

/* TB chunk id's payload up to its register masks, in p: n instructions of
 * 3 bytes, no branch, at 0x401000 + 0x1000 * id. */
static void tb_plain(GByteArray *p, uint32_t id, uint32_t n)
{
    g_byte_array_set_size(p, 0);
    put32(p, id);
    put32(p, n);
    put64(p, 0x401000 + 0x1000 * id);
    for (uint32_t i = 0; i < n; i++)
        tb_insn(p, 3, PMUSIM_UARCH_BR_NONE, 1, 0);
}

/* The loads of a run's INSN records: their number nwant, their distances
 * dep[] and (ip not NULL) their addresses ip[]; ninsn INSN records in all. */
static void check_load_deps(const GArray *recs, const uint64_t *ip, const uint8_t *dep,
                            unsigned nwant, unsigned ninsn)
{
    unsigned nld = 0, n = 0;
    for (guint i = 0; i < recs->len; i++) {
        const pmusim_rec_t *r = &g_array_index(recs, pmusim_rec_t, i);
        if (r->kind != PMUSIM_REC_INSN)
            continue;
        n++;
        if (!(r->flags & PMUSIM_F_MEM))
            continue;
        CU_ASSERT_FATAL(nld < nwant);
        if (ip)
            CU_ASSERT_EQUAL(r->ip, ip[nld]);
        CU_ASSERT_EQUAL(r->mem.dep, dep[nld]);
        nld++;
    }
    CU_ASSERT_EQUAL(nld, nwant);
    CU_ASSERT_EQUAL(n, ninsn);
}

/* A block left before its end with a dependence across the point where it
 * was left (docs/CAPTURE.md, "Dependences of load addresses": a block runs
 * by its net effect only while every instruction that writes loaded data
 * has loaded).  Block 0:
 *   mov rax,[rdi]    (a load: rax its data)
 *   mov rcx,[rax]    (a load at rax: rcx its data; rax also a source)
 *   mov rdx,rcx
 *   mov r9,[rcx]
 * runs whole (loads 1, 2 and 3: distances 0, 1, 1), then again with its
 * first load (4) and without the second: that instruction gives rcx and rdx
 * the newest of its sources, rax (load 4).  Run `mid`, the fourth
 * instruction still loads (5: distance 1) before the block is left;
 * otherwise the block is left after its first load.  Block 1:
 *   mov rsi,[rcx]    (distance 1 after load 4, 2 after load 5)
 *   mov r8,[rdx]     (one more)
 * The block's net effect taken for the second run would give rcx and rdx
 * the first run's load 2 (distances 2 more).  Every cut of the stream. */
static void test_capture_dep_left_early(void)
{
    for (unsigned mid = 0; mid < 2; mid++) {
        GByteArray *s = g_byte_array_new(), *p = g_byte_array_new();
        uint32_t seq = 0;
        put32(p, 3);
        put(p, "/bin/prog", 9);
        chunk(s, &seq, 1, 0, p->data, p->len);
        for (uint32_t b = 0; b < 2; b++) {
            const uint32_t n = b ? 2 : 4;
            tb_plain(p, b, n);
            if (!b) {
                tb_regs(p, 0, 1u << 0, 1u << 0, 1u << 7);      /* rax <- [rdi] */
                tb_regs(p, 1u << 0, 1u << 1, 1u << 1, 1u << 0); /* rcx <- [rax] */
                tb_regs(p, 1u << 1, 1u << 2, 0, 0);             /* rdx <- rcx */
                tb_regs(p, 0, 1u << 9, 1u << 9, 1u << 1);       /* r9 <- [rcx] */
            } else {
                tb_regs(p, 0, 1u << 6, 1u << 6, 1u << 1); /* rsi <- [rcx] */
                tb_regs(p, 0, 1u << 8, 1u << 8, 1u << 2); /* r8 <- [rdx] */
            }
            const uint16_t fl[4] = {0, 0, 0, 0};
            put(p, fl, n * sizeof fl[0]);
            chunk(s, &seq, 2, 0, p->data, p->len);
        }
        /* loads of 8 bytes, 1-byte address deltas (+0x40), of the current
         * instruction (h 0x1d), the next (0x9d), the second next (0x11d),
         * the third next (0x19d) */
        static const uint8_t run1[] = {
            0x00, 0x00, 0x1d, 0x00, 0x80, 0x9d, 0x00, 0x80, 0x1d, 0x01, 0x80, /* block 0 */
            0x00, 0x00, 0x1d, 0x00, 0x80,                                     /* block 0 */
        };
        static const uint8_t mid3[] = {0x9d, 0x01, 0x80}; /* its fourth instruction's */
        static const uint8_t run2[] = {0x04, 0x00, 0x1d, 0x00, 0x80, 0x9d, 0x00, 0x80}; /* block 1 */
        g_byte_array_set_size(p, 0);
        put(p, run1, sizeof run1);
        if (mid)
            put(p, mid3, sizeof mid3);
        put(p, run2, sizeof run2);
        chunk(s, &seq, 3, 0, p->data, p->len);
        uint32_t reason = 0;
        chunk(s, &seq, 5, 0, &reason, 4); /* END */
        const uint64_t want_ip[] = {0x401000, 0x401003, 0x401009, 0x401000,
                                    mid ? 0x401009 : 0x402000, mid ? 0x402000 : 0x402003,
                                    0x402003};
        static const uint8_t want_dep[] = {0, 1, 1, 0, 1, 2, 3};
        const unsigned nwant = mid ? 7 : 6;
        for (guint cut = 0; cut <= s->len; cut++) {
            split_run_t run;
            CU_ASSERT_TRUE(split_run(&run, s, cut, collect, "test"));
            check_load_deps(run.recs, want_ip, want_dep, nwant, 10);
            split_free(&run);
        }
        g_byte_array_unref(p);
        g_byte_array_unref(s);
    }
}

/* Registers that swap their values through a third within a block (its
 * net effect's exit writes a cycle of copies: rax from rbx's entry value,
 * rbx from rax's; docs/CAPTURE.md, "Dependences of load addresses").
 * Block 0: mov rax,[rdi]; mov rbx,[rsi] (loads 1 and 2).  Block 1: mov
 * rcx,rax; mov rax,rbx; mov rbx,rcx.  Block 2: mov rdx,[rax] (load 3: rax
 * holds load 2, distance 1); mov r8,[rbx] (load 4: rbx holds load 1,
 * distance 3).  Exit writes in the wrong order would give rbx load 2
 * (distance 2).  Every cut of the stream. */
static void test_capture_dep_swap(void)
{
    GByteArray *s = g_byte_array_new(), *p = g_byte_array_new();
    uint32_t seq = 0;
    put32(p, 3);
    put(p, "/bin/prog", 9);
    chunk(s, &seq, 1, 0, p->data, p->len);
    static const uint16_t regs[3][3][4] = {
        {{0, 1u << 0, 1u << 0, 1u << 7}, {0, 1u << 3, 1u << 3, 1u << 6}},  /* rax, rbx <- [..] */
        {{1u << 0, 1u << 1, 0, 0}, {1u << 3, 1u << 0, 0, 0}, {1u << 1, 1u << 3, 0, 0}},
        {{0, 1u << 2, 1u << 2, 1u << 0}, {0, 1u << 8, 1u << 8, 1u << 3}}, /* [rax], [rbx] */
    };
    for (uint32_t b = 0; b < 3; b++) {
        const uint32_t n = b == 1 ? 3 : 2;
        tb_plain(p, b, n);
        for (uint32_t i = 0; i < n; i++)
            tb_regs(p, regs[b][i][0], regs[b][i][1], regs[b][i][2], regs[b][i][3]);
        const uint16_t fl[3] = {0, 0, 0};
        put(p, fl, n * sizeof fl[0]);
        chunk(s, &seq, 2, 0, p->data, p->len);
    }
    /* loads of 8 bytes, 1-byte address deltas (+0x40), of the current
     * instruction (h 0x1d) and the next (0x9d) */
    static const uint8_t exec[] = {
        0x00, 0x00, 0x1d, 0x00, 0x80, 0x9d, 0x00, 0x80, /* block 0 */
        0x04, 0x00,                                     /* block 1 */
        0x08, 0x00, 0x1d, 0x00, 0x80, 0x9d, 0x00, 0x80, /* block 2 */
    };
    chunk(s, &seq, 3, 0, exec, sizeof exec);
    uint32_t reason = 0;
    chunk(s, &seq, 5, 0, &reason, 4); /* END */
    static const uint8_t want[4] = {0, 0, 1, 3};
    for (guint cut = 0; cut <= s->len; cut++) {
        split_run_t run;
        CU_ASSERT_TRUE(split_run(&run, s, cut, collect, "test"));
        check_load_deps(run.recs, NULL, want, 4, 7);
        split_free(&run);
    }
    g_byte_array_unref(p);
    g_byte_array_unref(s);
}

/* A stream cut inside an access item, and an access of an instruction past
 * the block's end: errors naming the byte. */
static void test_capture_v2_errors(void)
{
    GByteArray *s = make_stream();
    GError *error = NULL;
    pmusim_uarch_t *u = pmusim_uarch_new(PMUSIM_CPU_WSM, 1, NULL, collect, NULL, &error);
    CU_ASSERT_PTR_NOT_NULL_FATAL(u);
    pmusim_capture_t *c = pmusim_capture_new(u, 1, "bad");
    /* the first EXEC chunk's payload starts after HELLO (16 + 13), two TB
     * chunks (16 + 64, 16 + 32) and its header: byte 173.  Its second item
     * (at 175) becomes an access of instruction 0 + 3 of a 3-instruction
     * block: h = 0x4d | 3 << 7 = 0x1cd */
    GByteArray *bad = g_byte_array_new();
    g_byte_array_append(bad, s->data, s->len);
    CU_ASSERT_EQUAL_FATAL(bad->data[175], 0x4d);
    bad->data[175] = 0xcd;
    bad->data[176] = 0x01;
    CU_ASSERT_FALSE(pmusim_capture_feed(c, bad->data, bad->len, &error));
    CU_ASSERT_PTR_NOT_NULL_FATAL(error);
    CU_ASSERT_STRING_EQUAL(error->message, "bad: byte 175: memory access of instruction 3, "
                                           "expected 0..2 of the block");
    g_clear_error(&error);
    pmusim_capture_free(c);
    pmusim_uarch_free(u);
    g_byte_array_unref(bad);
    g_byte_array_unref(s);
}

/* The FP/SIMD class byte of an instruction (capstream_insn_t.fpclass,
 * session 14): 5 (ps) reaches its INSN records' flags; 8 is refused with
 * the byte offset.  Block 0's instructions start at byte 61 (HELLO 29, the
 * TB chunk's header 16, id, count, address 16): instruction 1 at 77, its
 * class byte at 83. */
static void test_capture_fp_class(void)
{
    for (unsigned bad = 0; bad < 2; bad++) {
        GByteArray *s = make_stream();
        CU_ASSERT_EQUAL_FATAL(s->data[77], 3); /* instruction 1: 3 bytes long */
        s->data[83] = bad ? 8 : PMUSIM_FPC_PS;
        GError *error = NULL;
        GArray *recs = g_array_new(FALSE, TRUE, sizeof(pmusim_rec_t));
        pmusim_uarch_t *u = pmusim_uarch_new(PMUSIM_CPU_WSM, 1, NULL, collect, recs, &error);
        CU_ASSERT_PTR_NOT_NULL_FATAL(u);
        pmusim_capture_t *c = pmusim_capture_new(u, 1, "fpc");
        gboolean ok = pmusim_capture_feed(c, s->data, s->len, &error) &&
                      pmusim_capture_finish(c, &error) && pmusim_uarch_finish(u, &error);
        if (bad) {
            CU_ASSERT_FALSE(ok);
            CU_ASSERT_PTR_NOT_NULL_FATAL(error);
            CU_ASSERT_PTR_NOT_NULL(strstr(error->message, "fpc: byte 77: instruction 1 of block 0"));
            CU_ASSERT_PTR_NOT_NULL(strstr(error->message, "an FP class 0..7"));
        } else {
            CU_ASSERT(ok);
            unsigned n_ps = 0, n_other = 0;
            for (guint i = 0; i < recs->len; i++) {
                const pmusim_rec_t *r = &g_array_index(recs, pmusim_rec_t, i);
                if (r->kind != PMUSIM_REC_INSN)
                    continue;
                if (r->ip == 0x401004)
                    n_ps += PMUSIM_REC_FPCLASS(r->flags) == PMUSIM_FPC_PS;
                else
                    n_other += PMUSIM_REC_FPCLASS(r->flags) != PMUSIM_FPC_NONE;
            }
            CU_ASSERT_EQUAL(n_ps, 2); /* it runs twice (expected[] above) */
            CU_ASSERT_EQUAL(n_other, 0);
        }
        g_clear_error(&error);
        pmusim_capture_free(c);
        pmusim_uarch_free(u);
        g_array_unref(recs);
        g_byte_array_unref(s);
    }
}

/* A HELLO chunk (version 3, /bin/prog) into s, then in p the head of block
 * 0's TB chunk at 0x401000 with n instructions, for the caller to add
 * them. */
static void start_block0(GByteArray *s, GByteArray *p, uint32_t *seq, uint32_t n)
{
    put32(p, 3);
    put(p, "/bin/prog", 9);
    chunk(s, seq, 1, 0, p->data, p->len);
    g_byte_array_set_size(p, 0);
    put32(p, 0);
    put32(p, n);
    put64(p, 0x401000);
}

/* HELLO and block 0 (a 4-byte instruction and a 2-byte jump back to it)
 * into s; p is scratch. */
static void start_loop(GByteArray *s, GByteArray *p, uint32_t *seq)
{
    start_block0(s, p, seq, 2);
    tb_insn(p, 4, PMUSIM_UARCH_BR_NONE, 1, 0);
    tb_insn(p, 2, PMUSIM_UARCH_BR_JUMP, 1, 0x401000);
    chunk(s, seq, 2, 0, p->data, p->len);
}

/* Stream s run whole through a 2-thread wsm model by a capture with two
 * hardware threads: the INSN and MEM records in recs, the model in *u (the
 * caller frees both and the capture returned). */
static pmusim_capture_t *run_two_hw(const GByteArray *s, const char *name, GArray *recs,
                                    pmusim_uarch_t **u)
{
    GError *error = NULL;
    *u = pmusim_uarch_new(PMUSIM_CPU_WSM, 2, NULL, collect, recs, &error);
    CU_ASSERT_PTR_NOT_NULL_FATAL(*u);
    pmusim_capture_t *c = pmusim_capture_new(*u, 2, name);
    CU_ASSERT_TRUE(pmusim_capture_feed(c, s->data, s->len, &error) &&
                   pmusim_capture_finish(c, &error) && pmusim_uarch_finish(*u, &error));
    g_clear_error(&error);
    return c;
}

/* Two guest threads on two hardware threads run the same block: each
 * instruction is run on its own thread's hardware thread, also the first
 * part of a long string instruction (64 accesses) run while the block's inputs
 * still carried the other thread (the capture sets the block's thread only
 * when another hardware thread ran it last). */
static void test_capture_threads_share_block(void)
{
    GByteArray *s = g_byte_array_new(), *p = g_byte_array_new();
    uint32_t seq = 0;
    start_block0(s, p, &seq, 2);
    tb_insn(p, 4, PMUSIM_UARCH_BR_NONE, 1, 0);
    tb_insn(p, 3, PMUSIM_UARCH_BR_NONE, 1, 0);
    chunk(s, &seq, 2, 0, p->data, p->len);
    static const uint8_t blk0[] = {0x00, 0x00};
    chunk(s, &seq, 3, 0, blk0, sizeof blk0); /* guest 0 enters block 0 */
    g_byte_array_set_size(p, 0);
    put(p, blk0, 2);
    for (int i = 0; i < 65; i++) /* insn +0, 1-byte load, no delta bytes: h = 1 */
        put(p, (const uint8_t[]){0x01, 0x00}, 2);
    chunk(s, &seq, 3, 1, p->data, p->len); /* guest 1: block 0, 65 accesses */
    chunk(s, &seq, 3, 0, blk0, sizeof blk0); /* guest 0: block 0 again */
    uint32_t reason = 0;
    chunk(s, &seq, 5, 0, &reason, 4);
    GArray *recs = g_array_new(FALSE, TRUE, sizeof(pmusim_rec_t));
    pmusim_uarch_t *u;
    pmusim_capture_t *c = run_two_hw(s, "threads", recs, &u);
    /* guest 0: the block twice (2 + 2); guest 1: instruction 0 in two
     * parts (64 accesses, then its last one), one instruction with 65
     * accesses, and instruction 1 */
    CU_ASSERT_EQUAL(pmusim_capture_instructions(c), 6);
    unsigned insns[2] = {0, 0}, mems[2] = {0, 0};
    for (guint i = 0; i < recs->len; i++) {
        const pmusim_rec_t *r = &g_array_index(recs, pmusim_rec_t, i);
        CU_ASSERT_FATAL(r->thread < 2);
        if (r->kind == PMUSIM_REC_INSN) {
            insns[r->thread]++;
        } else if (r->kind == PMUSIM_REC_MEM) {
            mems[r->thread]++;
            /* directly after its INSN or MEM record, at its cycle */
            CU_ASSERT_FATAL(i > 0);
            const pmusim_rec_t *q = &g_array_index(recs, pmusim_rec_t, i - 1);
            CU_ASSERT(q->kind == PMUSIM_REC_INSN || q->kind == PMUSIM_REC_MEM);
            CU_ASSERT_EQUAL(q->thread, r->thread);
            CU_ASSERT_EQUAL(q->cycle, r->cycle);
            CU_ASSERT_EQUAL(r->ip, 0x401000);
        }
    }
    CU_ASSERT_EQUAL(insns[0], 4);
    CU_ASSERT_EQUAL(insns[1], 2);
    CU_ASSERT_EQUAL(mems[0], 0);
    CU_ASSERT_EQUAL(mems[1], 64); /* the instruction's accesses after its first */
    pmusim_capture_free(c);
    pmusim_uarch_free(u);
    g_array_unref(recs);
    g_byte_array_unref(p);
    g_byte_array_unref(s);
}


/* Records of `thread` in recs before cycle `cycle`. */
static unsigned retired_before(const GArray *recs, unsigned thread, uint64_t cycle)
{
    unsigned n = 0;
    for (guint i = 0; i < recs->len; i++) {
        const pmusim_rec_t *r = &g_array_index(recs, pmusim_rec_t, i);
        n += r->thread == thread && r->cycle < cycle;
    }
    return n;
}

/* Instructions the model moved up (docs/UARCH.md §2). */
static uint64_t moved_up(pmusim_uarch_t *u)
{
    pmusim_uarch_stats_t st;
    pmusim_uarch_get_stats(u, &st);
    return st.moved_up;
}

/* Two guest threads on two hardware threads, each looping over block 0 (a
 * 4-byte instruction and a jump back): thread 1 enters it once, then
 * thread 0's chunk of 3,000 passes and thread 1's of 3,000 arrive, as QEMU
 * sends them (one thread's chunk after the other's).  The reader runs them
 * in the model's time order: thread 0 until it is CAP_SLICE cycles past
 * thread 1 (which has nothing queued yet: it stops there), then the two in
 * turn.  So thread 1's instructions retire while thread 0's do, not after
 * them, and no thread is moved up.  Run as they arrived (before session
 * 15), all of thread 1's 6,000 retired after thread 0's last, moved up past
 * them. */
static void test_capture_threads_time_order(void)
{
    GByteArray *s = g_byte_array_new(), *p = g_byte_array_new();
    uint32_t seq = 0;
    start_loop(s, p, &seq);
    static const uint8_t blk0[] = {0x00, 0x00};
    chunk(s, &seq, 3, 1, blk0, sizeof blk0); /* guest 1 enters block 0 */
    g_byte_array_set_size(p, 0);
    for (int i = 0; i < 3000; i++)
        put(p, blk0, 2);
    chunk(s, &seq, 3, 0, p->data, p->len); /* guest 0: 3,000 passes */
    chunk(s, &seq, 3, 1, p->data, p->len); /* guest 1: 3,000 more */
    uint32_t reason = 0;
    chunk(s, &seq, 5, 0, &reason, 4);
    GArray *recs = g_array_new(FALSE, TRUE, sizeof(pmusim_rec_t));
    pmusim_uarch_t *u;
    pmusim_capture_t *c = run_two_hw(s, "time order", recs, &u);
    CU_ASSERT_EQUAL(pmusim_capture_instructions(c), 6000 + 6002);
    uint64_t last0 = 0;
    unsigned n[2] = {0, 0};
    for (guint i = 0; i < recs->len; i++) {
        const pmusim_rec_t *r = &g_array_index(recs, pmusim_rec_t, i);
        n[r->thread]++;
        if (r->thread == 0)
            last0 = r->cycle;
    }
    CU_ASSERT_EQUAL(n[0], 6000);
    CU_ASSERT_EQUAL(n[1], 6002);
    /* thread 1's instructions retired before thread 0's last */
    CU_ASSERT_TRUE(retired_before(recs, 1, last0) > 5000);
    CU_ASSERT_EQUAL(moved_up(u), 0);
    pmusim_capture_free(c);
    pmusim_uarch_free(u);
    g_array_unref(recs);
    g_byte_array_unref(p);
    g_byte_array_unref(s);
}

/* A THREAD chunk {what, a, b} (capstream.h) of guest `guest`: {1} and {2}
 * 4 bytes, {3, address} 12, {4, how} 8, {5, address, n} 16. */
static void thread_chunk(GByteArray *s, uint32_t *seq, uint16_t guest, uint32_t what,
                         uint64_t a, uint32_t n)
{
    GByteArray *p = g_byte_array_new();
    put32(p, what);
    if (what == 3 || what == 5 || (what == 1 && a))
        put64(p, a);
    if (what == 4)
        put32(p, (uint32_t)a);
    if (what == 5)
        put32(p, n);
    chunk(s, seq, 9, guest, p->data, p->len);
    g_byte_array_unref(p);
}

/* THREAD chunks (capstream.h) with two hardware threads; block 0 is a
 * 4-byte instruction and a jump back, a pass 2 instructions, and a block
 * runs when its thread enters the next (that decides the jump's outcome).
 * - created: guest 0 passes once, announces guest 1 (THREAD {1}, as the
 *   plugin does at the clone), then sends 3,000 passes; guest 1's first
 *   chunk, 3,000 passes, comes after.  The reader waits for the announced
 *   thread, so the two run side by side and nothing is moved up; without
 *   the announcement guest 0's chunk ran whole first and guest 1 was moved
 *   up past it.
 * - exits: guest 1 passes once and exits (THREAD {2}): its pass runs then
 *   (it waited for the stream's end before session 16); guest 0's 3,000
 *   passes run as they arrive but the last: 2 + 2,999 x 2 instructions
 *   before the stream ends.  Without the exit the reader waited for guest 1
 *   after CAP_SLICE cycles: 2 (one pass of guest 0: the first misses its
 *   caches).
 * - waits: guest 1 passes once and waits in a system call (THREAD {3}, no
 *   futex address): the same 2,999 passes of guest 0 run (guest 1's pass
 *   waits for its next block), and guest 1's hardware thread sleeps from
 *   where it stopped (THREAD inactive, before guest 0's 100th instruction:
 *   it has run nothing yet); then THREAD {4, 0} (the call returned): it
 *   wakes at guest 0's time (THREAD active at that cycle, B, after the
 *   2,999th pass), so nothing is moved up; another 3,000 passes of guest 0
 *   run only until CAP_SLICE cycles past B (guest 1 is live again and has
 *   sent nothing), then guest 1's 3,000 passes come and the two run side
 *   by side after B.
 * - wakes: as waits, but guest 1 waits on futex address 0x7000, and guest
 *   0 wakes it ({5, 0x7000, 1}) after 1,000 of its 3,000 passes: guest 1
 *   wakes at guest 0's time then (B after the 999th pass, the 1,000th
 *   waiting for its next block), and guest 0 runs no further than
 *   CAP_SLICE cycles past B before guest 1's {4} comes.
 * - race: guest 1 runs 3,000 passes, then waits on 0x7000 ({3}); guest 0's
 *   wake of 0x7000 (after its 1,000th pass) came in its chunks before, so
 *   it has run before the wait (the plugin sends {5} before the wake and
 *   {3} before the wait: a wake that raced with the wait can come first):
 *   the wait returns at once: guest 1 does not sleep (no THREAD records)
 *   and stays waited for, so its next 3,000 passes run beside guest 0's
 *   and nothing is moved up (sleeping, it woke at guest 0's latest time
 *   and was moved up). */
static void test_capture_thread_chunks(void)
{
    enum { CREATED, EXITS, WAITS, WAKES, RACE };
    for (int mode = CREATED; mode <= RACE; mode++) {
        GByteArray *s = g_byte_array_new(), *p = g_byte_array_new();
        uint32_t seq = 0;
        start_loop(s, p, &seq);
        static const uint8_t blk0[] = {0x00, 0x00};
        const gboolean sleeps = mode >= WAITS;
        GByteArray *pass[3] = {g_byte_array_new(), g_byte_array_new(), g_byte_array_new()};
        for (int i = 0; i < 3000; i++)
            put(pass[0], blk0, 2);
        for (int i = 0; i < 1000; i++)
            put(pass[1], blk0, 2);
        for (int i = 0; i < 2000; i++)
            put(pass[2], blk0, 2);
        if (mode == RACE) {
            chunk(s, &seq, 3, 1, pass[0]->data, pass[0]->len); /* guest 1: 3,000 passes */
        } else {
            chunk(s, &seq, 3, mode != CREATED, blk0, sizeof blk0); /* one pass */
            thread_chunk(s, &seq, 1, mode == CREATED ? 1 : mode == EXITS ? 2 : 3,
                         mode == WAKES ? 0x7000 : 0, 0);
        }
        if (mode == WAKES || mode == RACE) {
            chunk(s, &seq, 3, 0, pass[1]->data, pass[1]->len); /* guest 0: 1,000 passes */
            thread_chunk(s, &seq, 0, 5, 0x7000, 1);
            chunk(s, &seq, 3, 0, pass[2]->data, pass[2]->len); /* and 2,000 */
            if (mode == RACE)
                thread_chunk(s, &seq, 1, 3, 0x7000, 0);
        } else {
            chunk(s, &seq, 3, 0, pass[0]->data, pass[0]->len); /* guest 0: 3,000 passes */
        }
        const guint cut1 = s->len;
        if (sleeps) {
            thread_chunk(s, &seq, 1, 4, 0, 0);
            chunk(s, &seq, 3, 0, pass[0]->data, pass[0]->len); /* guest 0: 3,000 more */
        }
        const guint cut2 = s->len;
        if (mode != EXITS)
            chunk(s, &seq, 3, 1, pass[0]->data, pass[0]->len); /* guest 1: 3,000 passes */
        uint32_t reason = 0;
        chunk(s, &seq, 5, 0, &reason, 4);
        GError *error = NULL;
        GArray *recs = g_array_new(FALSE, TRUE, sizeof(pmusim_rec_t));
        pmusim_uarch_t *u = pmusim_uarch_new(PMUSIM_CPU_WSM, 2, NULL, collect, recs, &error);
        CU_ASSERT_PTR_NOT_NULL_FATAL(u);
        pmusim_capture_t *c = pmusim_capture_new(u, 2, "thread chunks");
        gboolean ok = pmusim_capture_feed(c, s->data, cut1, &error);
        CU_ASSERT_TRUE(ok);
        const uint64_t n1 = pmusim_capture_instructions(c);
        ok = ok && pmusim_capture_feed(c, s->data + cut1, cut2 - cut1, &error);
        const uint64_t n2 = pmusim_capture_instructions(c);
        ok = ok && pmusim_capture_feed(c, s->data + cut2, s->len - cut2, &error) &&
             pmusim_capture_finish(c, &error) && pmusim_uarch_finish(u, &error);
        CU_ASSERT_TRUE(ok);
        g_clear_error(&error);
        if (mode == EXITS || mode == WAITS)
            CU_ASSERT_EQUAL(n1, (mode == EXITS ? 2 : 0) + 2 * 2999);
        if (mode == EXITS)
            CU_ASSERT_EQUAL(n2, 2 + 2 * 2999);
        if (mode == WAITS)
            CU_ASSERT_TRUE(n2 > 2 * 2999 && n2 < 2 * 2999 + 2 * 300);
        if (mode == WAKES)
            CU_ASSERT_TRUE(n1 >= 2 * 999 && n1 < 2 * 999 + 2 * 300 && n2 == n1);
        const unsigned want0 = sleeps ? 12000 : mode == EXITS ? 6000 : 6002;
        const unsigned want1 = mode == EXITS ? 2 : mode == RACE ? 12000 : sleeps ? 6002 : 6000;
        CU_ASSERT_EQUAL(pmusim_capture_instructions(c), want0 + want1);
        uint64_t last0 = 0, mark = 0, back = 0, first1_after = 0, asleep = 0, insn100 = 0;
        unsigned n[2] = {0, 0}, halts = 0;
        const unsigned mark_insn = mode == WAKES ? 1998 : 5998; /* the last pass run before B */
        for (guint i = 0; i < recs->len; i++) {
            const pmusim_rec_t *r = &g_array_index(recs, pmusim_rec_t, i);
            if (r->kind == PMUSIM_REC_THREAD) { /* the sleep */
                CU_ASSERT_EQUAL(r->thread, 1);
                halts++;
                if (r->n == 1)
                    back = r->cycle;
                else
                    asleep = r->cycle;
                continue;
            }
            n[r->thread]++;
            if (r->thread == 0)
                last0 = r->cycle;
            if (r->thread == 0 && n[0] == mark_insn)
                mark = r->cycle;
            if (r->thread == 0 && n[0] == 100)
                insn100 = r->cycle;
            if (r->thread == 1 && n[1] == 3)
                first1_after = r->cycle;
        }
        CU_ASSERT_EQUAL(n[0], want0);
        CU_ASSERT_EQUAL(n[1], want1);
        CU_ASSERT_EQUAL(halts, mode == WAITS || mode == WAKES ? 2 : 0);
        if (mode == WAITS || mode == WAKES) {
            /* B is guest 0's next dispatch cycle: within a pipeline's depth
             * of the retirement of the last pass run before it (one cycle
             * before it here) */
            CU_ASSERT_TRUE(back + 16 >= mark && back <= mark);
            CU_ASSERT_TRUE(first1_after >= back);
            CU_ASSERT_TRUE(asleep < insn100); /* asleep from where it began to wait */
        }
        if (mode != EXITS) /* guest 1's retired before guest 0's last */
            CU_ASSERT_TRUE(retired_before(recs, 1, last0) > 5000);
        CU_ASSERT_EQUAL(moved_up(u), 0);
        pmusim_capture_free(c);
        pmusim_uarch_free(u);
        g_array_unref(recs);
        for (int k = 0; k < 3; k++)
            g_byte_array_unref(pass[k]);
        g_byte_array_unref(p);
        g_byte_array_unref(s);
    }
}

/* The cycle of thread `th`'s record number k (1-based) among its INSN
 * records in recs, 0 if none. */
static uint64_t nth_insn_cycle(const GArray *recs, unsigned th, unsigned k)
{
    for (guint i = 0; i < recs->len; i++) {
        const pmusim_rec_t *r = &g_array_index(recs, pmusim_rec_t, i);
        if (r->kind == PMUSIM_REC_INSN && r->thread == th && --k == 0)
            return r->cycle;
    }
    return 0;
}

/* A join and a raced wait's late return (session 17).
 * JOIN: guest 1, created with a clear-child-tid address (THREAD {1, 0x9000}),
 * runs 1,000 passes and exits; guest 0 waits on 0x9000 (pthread_join) before
 * that exit; guest 3, on guest 1's hardware thread, then runs 3,000 passes
 * before guest 0's return {4, 0} arrives.  The exit wakes guest 0 (the
 * kernel's wake of the clear-child-tid word): hardware thread 0 is active
 * again within a pipeline's depth of guest 1's last instruction.  NOCTID,
 * the same created by {1} alone: no wake is seen, so guest 0 wakes at the
 * others' latest time once everything before its {4} ran — after guest 3's
 * passes.
 * RACED: guest 1's wait on 0x7000 came after guest 0's wake of 0x7000 (the
 * race rule: no sleep), and its return {4, 0} arrives only after guest 0's
 * next 3,000 passes: guest 1's next 3,000 passes still run beside them.
 * (This stream does not show the session-17 change of cap_head_ready() —
 * a {4} of a thread that is not asleep is not held — which real captures
 * did: here the held {4} is released in time either way.) */
static void test_capture_join_and_raced_return(void)
{
    enum { JOIN, NOCTID, RACED };
    static const uint8_t blk0[] = {0x00, 0x00};
    GByteArray *pass[2] = {g_byte_array_new(), g_byte_array_new()};
    for (int i = 0; i < 3000; i++)
        put(pass[0], blk0, 2);
    for (int i = 0; i < 1000; i++)
        put(pass[1], blk0, 2);
    for (int mode = JOIN; mode <= RACED; mode++) {
        GByteArray *s = g_byte_array_new(), *p = g_byte_array_new();
        uint32_t seq = 0;
        start_loop(s, p, &seq);
        if (mode != RACED) {
            chunk(s, &seq, 3, 0, blk0, sizeof blk0);
            thread_chunk(s, &seq, 1, 1, mode == JOIN ? 0x9000 : 0, 0);
            thread_chunk(s, &seq, 3, 1, 0, 0);
            chunk(s, &seq, 3, 1, pass[1]->data, pass[1]->len); /* guest 1: 1,000 */
            chunk(s, &seq, 3, 0, blk0, sizeof blk0);
            thread_chunk(s, &seq, 0, 3, 0x9000, 0);             /* joins */
            thread_chunk(s, &seq, 1, 2, 0, 0);                  /* exits */
            chunk(s, &seq, 3, 3, pass[0]->data, pass[0]->len); /* guest 3: 3,000 */
            thread_chunk(s, &seq, 0, 4, 0, 0);
            chunk(s, &seq, 3, 0, pass[1]->data, pass[1]->len);
            thread_chunk(s, &seq, 3, 2, 0, 0);
        } else {
            chunk(s, &seq, 3, 1, blk0, sizeof blk0);
            chunk(s, &seq, 3, 0, pass[1]->data, pass[1]->len);
            thread_chunk(s, &seq, 0, 5, 0x7000, 1);
            thread_chunk(s, &seq, 1, 3, 0x7000, 0);             /* raced: no sleep */
            chunk(s, &seq, 3, 0, pass[0]->data, pass[0]->len); /* guest 0: 3,000 */
            thread_chunk(s, &seq, 1, 4, 0, 0);
            chunk(s, &seq, 3, 1, pass[0]->data, pass[0]->len); /* guest 1: 3,000 */
        }
        uint32_t reason = 0;
        chunk(s, &seq, 5, 0, &reason, 4);
        GArray *recs = g_array_new(FALSE, TRUE, sizeof(pmusim_rec_t));
        pmusim_uarch_t *u = NULL;
        pmusim_capture_free(run_two_hw(s, "join", recs, &u));
        uint64_t back = 0;
        unsigned halts = 0;
        for (guint i = 0; i < recs->len; i++) {
            const pmusim_rec_t *r = &g_array_index(recs, pmusim_rec_t, i);
            if (r->kind == PMUSIM_REC_THREAD && r->thread == 0) {
                halts++;
                if (r->n)
                    back = r->cycle;
            }
        }
        if (mode == RACED) {
            CU_ASSERT_EQUAL(halts, 0);
            const uint64_t last0 = nth_insn_cycle(recs, 0, 2 * 4000);
            CU_ASSERT_TRUE(last0 > 0 && retired_before(recs, 1, last0) > 5000);
        } else {
            CU_ASSERT_EQUAL(halts, 2);
            const uint64_t end1 = nth_insn_cycle(recs, 1, 2 * 1000); /* guest 1's last */
            const uint64_t g3 = nth_insn_cycle(recs, 1, 2 * 1000 + 5000);
            CU_ASSERT_TRUE(end1 > 0 && g3 > end1);
            if (mode == JOIN) {
                CU_ASSERT_TRUE(back >= end1 && back <= end1 + 16);
            } else {
                CU_ASSERT_TRUE(back > g3);
            }
        }
        CU_ASSERT_EQUAL(moved_up(u), 0);
        pmusim_uarch_free(u);
        g_array_unref(recs);
        g_byte_array_unref(p);
        g_byte_array_unref(s);
    }
    for (int k = 0; k < 2; k++)
        g_byte_array_unref(pass[k]);
}

/* Bad THREAD chunks and a vCPU the plugin never sends: a clear error with
 * the byte. */
static void test_capture_thread_chunk_errors(void)
{
    for (int k = 0; k < 3; k++) {
        GByteArray *s = g_byte_array_new(), *p = g_byte_array_new();
        uint32_t seq = 0;
        start_block0(s, p, &seq, 1);
        tb_insn(p, 4, PMUSIM_UARCH_BR_NONE, 1, 0);
        chunk(s, &seq, 2, 0, p->data, p->len);
        const guint at = s->len; /* the chunk's header; its payload at + 16 */
        const uint32_t what[2] = {k == 0 ? 5u : 1u, 0};
        chunk(s, &seq, 9, k == 2 ? 1024 : 1, what, k == 1 ? 8 : 4);
        GError *error = NULL;
        GArray *recs = g_array_new(FALSE, TRUE, sizeof(pmusim_rec_t));
        pmusim_uarch_t *u = pmusim_uarch_new(PMUSIM_CPU_WSM, 2, NULL, collect, recs, &error);
        CU_ASSERT_PTR_NOT_NULL_FATAL(u);
        pmusim_capture_t *c = pmusim_capture_new(u, 2, "thr");
        CU_ASSERT_FALSE(pmusim_capture_feed(c, s->data, s->len, &error));
        CU_ASSERT_PTR_NOT_NULL_FATAL(error);
        char *want = k == 2 ? g_strdup_printf("thr: byte %u: vCPU 1024, below 1024 expected", at + 6)
                            : g_strdup_printf("thr: byte %u: THREAD chunk: {1} or {1, "
                                              "clear-child-tid address} (created), {2} (exits), "
                                              "{3, futex address} (waits in a system call), {4, "
                                              "0 or 1} (the call returned; 1: without waiting) "
                                              "or {5, futex address, n} (wakes up to n waiters) "
                                              "expected", at + 16);
        CU_ASSERT_PTR_NOT_NULL(strstr(error->message, want));
        if (!strstr(error->message, want))
            printf("\n%s\n[%s]\n", error->message, want);
        g_free(want);
        g_clear_error(&error);
        pmusim_capture_free(c);
        pmusim_uarch_free(u);
        g_array_unref(recs);
        g_byte_array_unref(p);
        g_byte_array_unref(s);
    }
}

/* Two guest threads on one hardware thread: instructions a thread has
 * moved past run before the next chunk's (another thread's), although the
 * reader runs a block's instructions together when the thread leaves it. */
static void test_capture_chunk_order(void)
{
    GByteArray *s = make_stream();
    g_byte_array_set_size(s, 16 + 13 + 16 + 64 + 16 + 32); /* HELLO and the two TB chunks */
    uint32_t seq = 3;
    /* guest 0: block 0, a 4-byte load of instruction +1 at 0x10 (zigzag
     * 0x20; h = 1 | 2 << 2 | 1 << 4 | 1 << 7 = 0x99) */
    static const uint8_t g0[] = {0x00, 0x00, 0x99, 0x00, 0x20};
    chunk(s, &seq, 3, 0, g0, sizeof g0);
    static const uint8_t g1[] = {0x04, 0x00, 0x00, 0x00}; /* guest 1: block 1, block 0 */
    chunk(s, &seq, 3, 1, g1, sizeof g1);
    uint32_t reason = 0;
    chunk(s, &seq, 5, 0, &reason, 4);
    GError *error = NULL;
    GArray *recs = g_array_new(FALSE, TRUE, sizeof(pmusim_rec_t));
    pmusim_uarch_t *u = pmusim_uarch_new(PMUSIM_CPU_WSM, 1, NULL, collect, recs, &error);
    CU_ASSERT_PTR_NOT_NULL_FATAL(u);
    pmusim_capture_t *c = pmusim_capture_new(u, 1, "order");
    CU_ASSERT_TRUE(pmusim_capture_feed(c, s->data, s->len, &error) &&
                   pmusim_capture_finish(c, &error) && pmusim_uarch_finish(u, &error));
    /* guest 0's instruction 0 (passed in its chunk), guest 1's return (it
     * left block 1 in its chunk), then at the end guest 0's instructions 1
     * (with its load) and 2, and guest 1's block 0 */
    static const uint64_t ips[] = {0x401000, 0x401009, 0x401004, 0x401007,
                                   0x401000, 0x401004, 0x401007};
    CU_ASSERT_EQUAL_FATAL(recs->len, G_N_ELEMENTS(ips));
    for (guint i = 0; i < recs->len; i++)
        CU_ASSERT_EQUAL(g_array_index(recs, pmusim_rec_t, i).ip, ips[i]);
    CU_ASSERT_EQUAL(g_array_index(recs, pmusim_rec_t, 2).mem.addr, 0x10);
    CU_ASSERT_EQUAL(g_array_index(recs, pmusim_rec_t, 2).mem.size, 4);
    g_clear_error(&error);
    pmusim_capture_free(c);
    pmusim_uarch_free(u);
    g_array_unref(recs);
    g_byte_array_unref(s);
}

/* ---- after a death: the shared buffers (capstream.h, capstream_vbuf_t) ---- */

/* A buffer: u64 len at 0, u64 pending at 8, the items from byte 64; one
 * per vCPU, 64 + 256 KiB apart. */
#define VBUF_STRIDE (64u + 256u * 1024u)

static uint8_t *region_new(unsigned nbuf) { return g_malloc0((gsize)nbuf * VBUF_STRIDE); }

static void region_set(uint8_t *r, unsigned k, uint64_t len, uint64_t pending, const void *data,
                       size_t n)
{
    uint8_t *b = r + (size_t)k * VBUF_STRIDE;
    for (int i = 0; i < 8; i++) {
        b[i] = (uint8_t)(len >> 8 * i);
        b[8 + i] = (uint8_t)(pending >> 8 * i);
    }
    memcpy(b + 64, data, n);
}

/* make_stream() without its END chunk (the last 20 bytes) */
static GByteArray *make_dead_stream(void)
{
    GByteArray *s = make_stream();
    g_byte_array_set_size(s, s->len - 20);
    return s;
}

/* the second EXEC chunk's items (chunk 4, the last 22 bytes of the dead
 * stream: its header and 6 bytes) */
static const uint8_t exec2_items[] = {0x4d, 0x00, 0x10, 0x00, 0xfe, 0xff};
#define EXEC2_CHUNK 22u

/* Feeds s[0, n), recovers from the region; the records in *recs. */
static gboolean run_dead(const uint8_t *s, size_t n, const uint8_t *region, unsigned nbuf,
                         uint64_t *recovered, uint64_t *insns, GArray *recs, GError **error)
{
    pmusim_uarch_t *u = pmusim_uarch_new(PMUSIM_CPU_WSM, 1, NULL, collect, recs, error);
    CU_ASSERT_PTR_NOT_NULL_FATAL(u);
    pmusim_capture_t *c = pmusim_capture_new(u, 1, "dead");
    gboolean ok = pmusim_capture_feed(c, s, n, error) &&
                  pmusim_capture_recover(c, region, (size_t)nbuf * VBUF_STRIDE, recovered, error) &&
                  pmusim_capture_finish(c, error) && pmusim_uarch_finish(u, error);
    CU_ASSERT_FALSE(pmusim_capture_saw_end(c));
    *insns = pmusim_capture_instructions(c);
    pmusim_capture_free(c);
    pmusim_uarch_free(u);
    return ok;
}

static void check_expected(GArray *recs)
{
    CU_ASSERT_EQUAL_FATAL(recs->len, G_N_ELEMENTS(expected));
    for (guint i = 0; i < recs->len; i++) {
        const pmusim_rec_t *r = &g_array_index(recs, pmusim_rec_t, i);
        CU_ASSERT_EQUAL(r->kind, expected[i].kind);
        CU_ASSERT_EQUAL(r->ip, expected[i].ip);
        if (expected[i].addr)
            CU_ASSERT_EQUAL(r->mem.addr, expected[i].addr);
    }
}

/* The last EXEC chunk never sent (pending 0): its items come from the
 * buffer, and the records are those of the whole stream; without the
 * region (NULL: the plugin had none) the return's load is missing. */
static void test_capture_recover_unsent(void)
{
    GByteArray *s = make_dead_stream();
    uint8_t *r = region_new(2);
    region_set(r, 0, sizeof exec2_items, 0, exec2_items, sizeof exec2_items);
    GError *error = NULL;
    GArray *recs = g_array_new(FALSE, TRUE, sizeof(pmusim_rec_t));
    uint64_t got = 0, insns = 0;
    CU_ASSERT_TRUE(run_dead(s->data, s->len - EXEC2_CHUNK, r, 2, &got, &insns, recs, &error));
    CU_ASSERT_EQUAL(got, 6);
    CU_ASSERT_EQUAL(insns, 7);
    check_expected(recs);
    /* no region: the return runs without its load */
    g_array_set_size(recs, 0);
    CU_ASSERT_TRUE(run_dead(s->data, s->len - EXEC2_CHUNK, NULL, 0, &got, &insns, recs, &error));
    CU_ASSERT_EQUAL(got, 0);
    CU_ASSERT_EQUAL(insns, 7);
    CU_ASSERT_EQUAL_FATAL(recs->len, G_N_ELEMENTS(expected));
    CU_ASSERT_FALSE(g_array_index(recs, pmusim_rec_t, recs->len - 1).flags & PMUSIM_F_MEM);
    g_clear_error(&error);
    g_array_unref(recs);
    g_free(r);
    g_byte_array_unref(s);
}

/* A flush in progress: pending = 1 + chunk 4, the death cut the chunk
 * after 0..21 of its 22 bytes; the chunk is completed from the buffer. */
static void test_capture_recover_in_flight(void)
{
    GByteArray *s = make_dead_stream();
    uint8_t *r = region_new(1);
    region_set(r, 0, sizeof exec2_items, 5, exec2_items, sizeof exec2_items);
    for (guint sent = 0; sent < EXEC2_CHUNK; sent++) {
        GError *error = NULL;
        GArray *recs = g_array_new(FALSE, TRUE, sizeof(pmusim_rec_t));
        uint64_t got = 0, insns = 0;
        gboolean ok = run_dead(s->data, s->len - EXEC2_CHUNK + sent, r, 1, &got, &insns, recs,
                               &error);
        if (!ok)
            fprintf(stderr, "sent %u: %s\n", sent, error ? error->message : "?");
        CU_ASSERT_TRUE(ok);
        CU_ASSERT_EQUAL(got, 6);
        CU_ASSERT_EQUAL(insns, 7);
        check_expected(recs);
        g_clear_error(&error);
        g_array_unref(recs);
    }
    g_free(r);
    g_byte_array_unref(s);
}

/* The chunk was sent whole, the death came before len = 0: the buffer's
 * items are not run twice. */
static void test_capture_recover_duplicate(void)
{
    GByteArray *s = make_dead_stream();
    uint8_t *r = region_new(1);
    region_set(r, 0, sizeof exec2_items, 5, exec2_items, sizeof exec2_items);
    GError *error = NULL;
    GArray *recs = g_array_new(FALSE, TRUE, sizeof(pmusim_rec_t));
    uint64_t got = 1, insns = 0;
    CU_ASSERT_TRUE(run_dead(s->data, s->len, r, 1, &got, &insns, recs, &error));
    CU_ASSERT_EQUAL(got, 0);
    CU_ASSERT_EQUAL(insns, 7);
    check_expected(recs);
    g_clear_error(&error);
    g_array_unref(recs);
    g_free(r);
    g_byte_array_unref(s);
}

/* Headers that cannot be: errors naming the buffer and what is wrong. */
static void test_capture_recover_damaged(void)
{
    GByteArray *s = make_dead_stream();
    const size_t before = s->len - EXEC2_CHUNK; /* chunks 0..3 read: the next is 4 */
    static const struct {
        uint64_t len0;
        uint64_t pending0;
        uint64_t len1;
        uint64_t pending1;
        size_t cut; /* bytes of chunk 4 that arrived */
        const char *msg;
    } cases[] = {
        {262145, 0, 0, 0, 0,
         "dead: the shared buffer of vCPU 0 (byte 0 of the region): 262145 bytes of items, at "
         "most 262144 expected"},
        {6, 0, 6, 7, 0,
         "dead: the shared buffer of vCPU 1 (byte 262208 of the region): a flush of chunk 6, "
         "but the stream's next chunk is 4"},
        /* 64 bits: chunk 2^32 + 4 is not chunk 4 (version 2 kept 32) */
        {6, UINT64_C(0x100000005), 0, 0, 0,
         "dead: the shared buffer of vCPU 0 (byte 0 of the region): a flush of chunk "
         "4294967300, but the stream's next chunk is 4"},
        {6, 5, 6, 5, 0,
         "dead: the shared buffer of vCPU 1 (byte 262208 of the region): a flush of chunk 4, as "
         "vCPU 0's"},
        {0, 5, 0, 0, 0,
         "dead: the shared buffer of vCPU 0 (byte 0 of the region): a flush of chunk 4 with no "
         "bytes"},
        {6, 0, 6, 5, 16,
         "dead: the shared buffer of vCPU 1 (byte 262208 of the region): a flush of chunk 4, an "
         "EXEC chunk of vCPU 1, 6 bytes; the stream has kind 3, vCPU 0, 6 bytes"},
    };
    for (guint i = 0; i < G_N_ELEMENTS(cases); i++) {
        uint8_t *r = region_new(2);
        region_set(r, 0, cases[i].len0, cases[i].pending0, exec2_items, sizeof exec2_items);
        region_set(r, 1, cases[i].len1, cases[i].pending1, exec2_items, sizeof exec2_items);
        GError *error = NULL;
        GArray *recs = g_array_new(FALSE, TRUE, sizeof(pmusim_rec_t));
        uint64_t got = 0, insns = 0;
        CU_ASSERT_FALSE(run_dead(s->data, before + cases[i].cut, r, 2, &got, &insns, recs,
                                 &error));
        CU_ASSERT_PTR_NOT_NULL_FATAL(error);
        if (strcmp(error->message, cases[i].msg) != 0)
            fprintf(stderr, "case %u: %s\n", i, error->message);
        CU_ASSERT_STRING_EQUAL(error->message, cases[i].msg);
        g_clear_error(&error);
        g_array_unref(recs);
        g_free(r);
    }
    /* malformed items: the error names the buffer and the byte of the region */
    uint8_t *r = region_new(1);
    static const uint8_t bad[] = {0x4d, 0x00, 0x10}; /* an access item cut short */
    region_set(r, 0, sizeof bad, 0, bad, sizeof bad);
    GError *error = NULL;
    uint64_t got = 0, insns = 0;
    CU_ASSERT_FALSE(run_dead(s->data, before, r, 1, &got, &insns, NULL, &error));
    CU_ASSERT_PTR_NOT_NULL_FATAL(error);
    CU_ASSERT_STRING_EQUAL(error->message, "the shared buffer of vCPU 0 (region bytes): dead: "
                                           "byte 64: EXEC chunk ends inside a memory access");
    g_clear_error(&error);
    g_free(r);
    g_byte_array_unref(s);
}

/* ---- a program that forks: the FORK chunk ---- */

/* INSN, MEM and MARKER records (the model's EVENT and IDLE records left out) */
static gboolean collect_markers(const pmusim_rec_t *recs, size_t n, void *user, GError **error)
{
    (void)error;
    GArray *out = user;
    for (size_t i = 0; i < n; i++)
        if (recs[i].kind == PMUSIM_REC_INSN || recs[i].kind == PMUSIM_REC_MEM ||
            recs[i].kind == PMUSIM_REC_MARKER)
            g_array_append_val(out, recs[i]);
    return TRUE;
}

/* make_stream() with a FORK chunk of guest thread 0 after its first EXEC
 * chunk (bytes 0..204: HELLO 29, the TB chunks 80 and 48, EXEC 48), the
 * payload `fork` (8 bytes, or `n`) */
static GByteArray *make_fork_stream(const uint8_t *fork, guint n)
{
    GByteArray *s = make_stream();
    static const uint8_t exec2[] = {0x4d, 0x00, 0x10, 0x00, 0xfe, 0xff};
    g_byte_array_set_size(s, 205);
    uint32_t seq = 4;
    chunk(s, &seq, 6, 0, fork, n);
    chunk(s, &seq, 3, 0, exec2, sizeof exec2);
    uint32_t reason = 0;
    chunk(s, &seq, 5, 0, &reason, 4);
    return s;
}

/* The FORK chunk: a MARKER "fork: child PID not traced" between the
 * instructions the thread ran before it (six, and a MEM record) and the
 * return it ran after, at the cycle of the last of those before; the pid
 * is kept for pmusim's message.  Every split of the stream. */
static void test_capture_fork(void)
{
    static const uint8_t fork[] = {0x92, 0x10, 0x00, 0x00, 0, 0, 0, 0}; /* pid 4242 */
    GByteArray *s = make_fork_stream(fork, sizeof fork);
    for (guint cut = 0; cut <= s->len; cut++) {
        split_run_t run;
        CU_ASSERT_TRUE_FATAL(split_run(&run, s, cut, collect_markers, "fork"));
        GArray *recs = run.recs;
        pmusim_capture_t *c = run.c;
        CU_ASSERT_TRUE(pmusim_capture_saw_end(c));
        CU_ASSERT_EQUAL(pmusim_capture_instructions(c), 7);
        const uint32_t *pids = NULL;
        CU_ASSERT_EQUAL_FATAL(pmusim_capture_forks(c, &pids), 1);
        CU_ASSERT_EQUAL(pids[0], 4242);
        /* the records of make_stream() and the MARKER after the first seven */
        CU_ASSERT_EQUAL_FATAL(recs->len, G_N_ELEMENTS(expected) + 1);
        const pmusim_rec_t *m = &g_array_index(recs, pmusim_rec_t, 7);
        CU_ASSERT_EQUAL(m->kind, PMUSIM_REC_MARKER);
        CU_ASSERT_STRING_EQUAL(m->name, "fork: child 4242 not traced");
        CU_ASSERT_EQUAL(m->thread, 0);
        CU_ASSERT_EQUAL(m->plm, 3);
        CU_ASSERT_EQUAL(m->cycle, g_array_index(recs, pmusim_rec_t, 6).cycle);
        CU_ASSERT(m->cycle <= g_array_index(recs, pmusim_rec_t, 8).cycle);
        for (guint i = 0, j = 0; i < recs->len; i++) {
            if (i == 7)
                continue;
            CU_ASSERT_EQUAL(g_array_index(recs, pmusim_rec_t, i).ip, expected[j].ip);
            j++;
        }
        split_free(&run);
    }
    g_byte_array_unref(s);
}

/* A FORK chunk of another size, with pid 0 or a pid beyond a pid_t, or
 * with its second word set: errors naming the payload's byte. */
static void test_capture_fork_errors(void)
{
    static const struct {
        uint8_t payload[12];
        guint n;
        const char *msg;
    } cases[] = {
        {{0x92, 0x10, 0, 0}, 4,
         "fork: byte 221: FORK chunk of 4 bytes, expected 8 (a pid and 0 or 1)"},
        {{0x92, 0x10, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}, 12,
         "fork: byte 221: FORK chunk of 12 bytes, expected 8 (a pid and 0 or 1)"},
        {{0x92, 0x10, 0, 0, 2, 0, 0, 0}, 8,
         "fork: byte 225: FORK chunk's second word is 2, expected 0 (not traced) or 1 (traced)"},
        {{0x92, 0x10, 0, 0, 0, 0, 0, 1}, 8,
         "fork: byte 225: FORK chunk's second word is 16777216, expected 0 (not traced) or 1 "
         "(traced)"},
        {{0, 0, 0, 0, 0, 0, 0, 0}, 8,
         "fork: byte 221: FORK chunk with process id 0, expected 1..2147483647"},
        {{0, 0, 0, 0x80, 0, 0, 0, 0}, 8,
         "fork: byte 221: FORK chunk with process id 2147483648, expected 1..2147483647"},
    };
    for (guint i = 0; i < G_N_ELEMENTS(cases); i++) {
        GByteArray *s = make_fork_stream(cases[i].payload, cases[i].n);
        GError *error = NULL;
        pmusim_uarch_t *u = pmusim_uarch_new(PMUSIM_CPU_WSM, 1, NULL, collect, NULL, &error);
        CU_ASSERT_PTR_NOT_NULL_FATAL(u);
        pmusim_capture_t *c = pmusim_capture_new(u, 1, "fork");
        CU_ASSERT_FALSE(pmusim_capture_feed(c, s->data, s->len, &error));
        CU_ASSERT_PTR_NOT_NULL_FATAL(error);
        if (strcmp(error->message, cases[i].msg) != 0)
            fprintf(stderr, "case %u: %s\n", i, error->message);
        CU_ASSERT_STRING_EQUAL(error->message, cases[i].msg);
        CU_ASSERT_EQUAL(pmusim_capture_forks(c, NULL), 0);
        CU_ASSERT_EQUAL(pmusim_capture_traced_forks(c, NULL), 0);
        g_clear_error(&error);
        pmusim_capture_free(c);
        pmusim_uarch_free(u);
        g_byte_array_unref(s);
    }
}

/* A FORK chunk whose second word is 1 (`trace capture --trace-children`):
 * the child is traced in a stream of its own; the MARKER says where its
 * trace is ("OUT.PID", or no file without pmusim_capture_set_children_out()),
 * in the same place as an untraced child's; the pid is kept apart from the
 * untraced ones.  Two forks: traced, then not. */
static void test_capture_fork_traced(void)
{
    static const uint8_t fork[] = {0x92, 0x10, 0x00, 0x00, 1, 0, 0, 0}; /* pid 4242, traced */
    static const uint8_t fork2[] = {0x93, 0x10, 0x00, 0x00, 0, 0, 0, 0}; /* pid 4243, not */
    for (int named = 0; named < 2; named++) {
        GByteArray *s = make_fork_stream(fork, sizeof fork);
        /* the second FORK after the first, before the last EXEC and END
         * (chunk numbers 5..7 again) */
        GByteArray *t = g_byte_array_new();
        g_byte_array_append(t, s->data, 205 + 16 + 8);
        uint32_t seq = 5;
        chunk(t, &seq, 6, 0, fork2, sizeof fork2);
        static const uint8_t exec2[] = {0x4d, 0x00, 0x10, 0x00, 0xfe, 0xff};
        chunk(t, &seq, 3, 0, exec2, sizeof exec2);
        uint32_t reason = 0;
        chunk(t, &seq, 5, 0, &reason, 4);
        GError *error = NULL;
        GArray *recs = g_array_new(FALSE, TRUE, sizeof(pmusim_rec_t));
        pmusim_uarch_t *u = pmusim_uarch_new(PMUSIM_CPU_WSM, 1, NULL, collect_markers, recs, &error);
        CU_ASSERT_PTR_NOT_NULL_FATAL(u);
        pmusim_capture_t *c = pmusim_capture_new(u, 1, "fork");
        if (named)
            pmusim_capture_set_children_out(c, "dir/out.pmt");
        gboolean ok = pmusim_capture_feed(c, t->data, t->len, &error) &&
                      pmusim_capture_finish(c, &error) && pmusim_uarch_finish(u, &error);
        if (!ok)
            fprintf(stderr, "%s\n", error ? error->message : "?");
        CU_ASSERT_TRUE_FATAL(ok);
        CU_ASSERT_EQUAL(pmusim_capture_instructions(c), 7);
        const uint32_t *pids = NULL;
        CU_ASSERT_EQUAL_FATAL(pmusim_capture_traced_forks(c, &pids), 1);
        CU_ASSERT_EQUAL(pids[0], 4242);
        CU_ASSERT_EQUAL_FATAL(pmusim_capture_forks(c, &pids), 1);
        CU_ASSERT_EQUAL(pids[0], 4243);
        CU_ASSERT_EQUAL_FATAL(recs->len, G_N_ELEMENTS(expected) + 2);
        const pmusim_rec_t *m = &g_array_index(recs, pmusim_rec_t, 7);
        CU_ASSERT_EQUAL(m->kind, PMUSIM_REC_MARKER);
        CU_ASSERT_STRING_EQUAL(m->name, named ? "fork: child 4242 traced in dir/out.pmt.4242"
                                              : "fork: child 4242 traced");
        CU_ASSERT_EQUAL(m->cycle, g_array_index(recs, pmusim_rec_t, 6).cycle);
        m = &g_array_index(recs, pmusim_rec_t, 8);
        CU_ASSERT_EQUAL(m->kind, PMUSIM_REC_MARKER);
        CU_ASSERT_STRING_EQUAL(m->name, "fork: child 4243 not traced");
        g_clear_error(&error);
        pmusim_capture_free(c);
        pmusim_uarch_free(u);
        g_array_unref(recs);
        g_byte_array_unref(t);
        g_byte_array_unref(s);
    }
}

/* A death that cut the FORK chunk (QEMU killed while it wrote it): the
 * chunk is dropped like a cut TB or MAPS chunk, and the items the buffer
 * had not sent (the return's load) run; no fork is counted. */
static void test_capture_fork_cut(void)
{
    static const uint8_t fork[] = {0x92, 0x10, 0x00, 0x00, 0, 0, 0, 0};
    GByteArray *s = make_fork_stream(fork, sizeof fork);
    uint8_t *r = region_new(1);
    region_set(r, 0, sizeof exec2_items, 0, exec2_items, sizeof exec2_items);
    for (guint sent = 0; sent < 16 + sizeof fork; sent++) {
        GError *error = NULL;
        GArray *recs = g_array_new(FALSE, TRUE, sizeof(pmusim_rec_t));
        pmusim_uarch_t *u = pmusim_uarch_new(PMUSIM_CPU_WSM, 1, NULL, collect, recs, &error);
        CU_ASSERT_PTR_NOT_NULL_FATAL(u);
        pmusim_capture_t *c = pmusim_capture_new(u, 1, "dead");
        uint64_t got = 0;
        gboolean ok = pmusim_capture_feed(c, s->data, 205 + sent, &error) &&
                      pmusim_capture_recover(c, r, VBUF_STRIDE, &got, &error) &&
                      pmusim_capture_finish(c, &error) && pmusim_uarch_finish(u, &error);
        if (!ok)
            fprintf(stderr, "sent %u: %s\n", sent, error ? error->message : "?");
        CU_ASSERT_TRUE(ok);
        CU_ASSERT_EQUAL(got, sizeof exec2_items);
        CU_ASSERT_EQUAL(pmusim_capture_instructions(c), 7);
        CU_ASSERT_EQUAL(pmusim_capture_forks(c, NULL), 0);
        check_expected(recs);
        g_clear_error(&error);
        pmusim_capture_free(c);
        pmusim_uarch_free(u);
        g_array_unref(recs);
    }
    g_free(r);
    g_byte_array_unref(s);
}

/* ---- a program that calls execve: the EXECVE chunk ---- */

/* make_stream()'s first 205 bytes, an EXECVE chunk of thread 0 with
 * `payload` (n bytes), then, if `goes_on`, an EXECVE {2, 0} (the call
 * failed), the second EXEC chunk and END; else the stream ends there, as
 * when the execve replaced QEMU. */
static GByteArray *make_execve_stream(const uint8_t *payload, guint n, gboolean goes_on)
{
    GByteArray *s = make_stream();
    static const uint8_t exec2[] = {0x4d, 0x00, 0x10, 0x00, 0xfe, 0xff};
    static const uint8_t failed[] = {2, 0, 0, 0, 0, 0, 0, 0};
    g_byte_array_set_size(s, 205);
    uint32_t seq = 4;
    chunk(s, &seq, 7, 0, payload, n);
    if (goes_on) {
        chunk(s, &seq, 7, 0, failed, sizeof failed);
        chunk(s, &seq, 3, 0, exec2, sizeof exec2);
        uint32_t reason = 0;
        chunk(s, &seq, 5, 0, &reason, 4);
    }
    return s;
}

/* --trace-children: {1, 0, why} (native, and why), {3, N, program} (traced
 * on in image N's stream), {3, N} then {1, 0, why} (the execve of QEMU
 * failed: native after all); after {3, N} no other chunk. */
static void test_capture_execve_traced(void)
{
    static const uint8_t why[] = {1, 0, 0, 0, 0, 0, 0, 0, 'n', 'o', 't', ' ', 'E', 'L', 'F'};
    static const uint8_t on[] = {3, 0, 0, 0, 2, 0, 0, 0, '/', 'b', 'i', 'n', '/', 's', 'h'};
    for (int k = 0; k < 4; k++) {
        GByteArray *s = make_execve_stream(k == 0 ? why : on, k == 0 ? sizeof why : sizeof on,
                                           FALSE);
        uint32_t seq = 5;
        if (k == 2)
            chunk(s, &seq, 7, 0, why, sizeof why);
        if (k == 3)
            chunk(s, &seq, 4, 0, "", 0); /* a MAPS chunk after {3, N}: refused */
        GError *error = NULL;
        pmusim_uarch_t *u = pmusim_uarch_new(PMUSIM_CPU_WSM, 1, NULL, collect, NULL, &error);
        CU_ASSERT_PTR_NOT_NULL_FATAL(u);
        pmusim_capture_t *c = pmusim_capture_new(u, 1, "execve");
        gboolean fed = pmusim_capture_feed(c, s->data, s->len, &error);
        const char *prog = "unset";
        if (k < 3) {
            CU_ASSERT_TRUE_FATAL(fed);
            CU_ASSERT_EQUAL(pmusim_capture_in_execve(c), k != 1);
            CU_ASSERT_STRING_EQUAL(pmusim_capture_execve_why(c), k != 1 ? "not ELF" : "");
            CU_ASSERT_EQUAL(pmusim_capture_exec_image(c, &prog), k == 1 ? 2 : 0);
            if (k == 1) {
                CU_ASSERT_STRING_EQUAL(prog, "/bin/sh");
            } else {
                CU_ASSERT_PTR_NULL(prog);
            }
            CU_ASSERT_TRUE(pmusim_capture_finish(c, &error));
            CU_ASSERT_EQUAL(pmusim_capture_instructions(c), 7);
        } else {
            CU_ASSERT_FALSE(fed);
            CU_ASSERT_PTR_NOT_NULL_FATAL(error);
            CU_ASSERT_STRING_EQUAL(error->message,
                                   "execve: byte 252: chunk of kind 4 after EXECVE {3, 2}: only "
                                   "an EXECVE {4, 2} (the environment's note) or {1, 0} (the "
                                   "execve of QEMU failed) may follow");
        }
        g_clear_error(&error);
        pmusim_capture_free(c);
        pmusim_uarch_free(u);
        g_byte_array_unref(s);
    }
}

/* {4, N, note} after {3, N}: how image N's environment differs from the
 * envp (the execve MARKER says it); gone when {1, 0, why} follows; refused
 * without {3, N}, with another N, empty, or twice. */
static void test_capture_execve_env_note(void)
{
    static const uint8_t on[] = {3, 0, 0, 0, 2, 0, 0, 0, '/', 'b', 'i', 'n', '/', 's', 'h'};
    static const uint8_t note[] = {4, 0, 0, 0, 2, 0, 0, 0, 'N', ':', ' ', 'n', 'o', ' ', '='};
    static const uint8_t note1[] = {4, 0, 0, 0, 1, 0, 0, 0, 'N'};
    static const uint8_t note0[] = {4, 0, 0, 0, 2, 0, 0, 0};
    static const uint8_t why[] = {1, 0, 0, 0, 0, 0, 0, 0, 'f', 'a', 'i', 'l', 'e', 'd'};
    static const struct {
        const uint8_t *first, *second, *third;
        guint n1, n2, n3;
        const char *note, *error;
    } cases[] = {
        {on, NULL, NULL, sizeof on, 0, 0, NULL, NULL},
        {on, note, NULL, sizeof on, sizeof note, 0, "N: no =", NULL},
        {on, note, why, sizeof on, sizeof note, sizeof why, NULL, NULL},
        {note, NULL, NULL, sizeof note, 0, 0, NULL, "execve: byte 221: EXECVE chunk"},
        {on, note1, NULL, sizeof on, sizeof note1, 0, NULL, "execve: byte 252: EXECVE chunk"},
        {on, note0, NULL, sizeof on, sizeof note0, 0, NULL, "execve: byte 252: EXECVE chunk"},
        {on, note, note, sizeof on, sizeof note, sizeof note, "N: no =",
         "execve: byte 283: EXECVE chunk"},
    };
    for (size_t k = 0; k < G_N_ELEMENTS(cases); k++) {
        GByteArray *s = make_execve_stream(cases[k].first, cases[k].n1, FALSE);
        uint32_t seq = 5;
        if (cases[k].second)
            chunk(s, &seq, 7, 0, cases[k].second, cases[k].n2);
        if (cases[k].third)
            chunk(s, &seq, 7, 0, cases[k].third, cases[k].n3);
        GError *error = NULL;
        pmusim_uarch_t *u = pmusim_uarch_new(PMUSIM_CPU_WSM, 1, NULL, collect, NULL, &error);
        CU_ASSERT_PTR_NOT_NULL_FATAL(u);
        pmusim_capture_t *c = pmusim_capture_new(u, 1, "execve");
        gboolean fed = pmusim_capture_feed(c, s->data, s->len, &error);
        if (!cases[k].error) {
            CU_ASSERT_TRUE_FATAL(fed);
            CU_ASSERT_EQUAL(pmusim_capture_exec_image(c, NULL), cases[k].third ? 0 : 2);
            CU_ASSERT_EQUAL(pmusim_capture_in_execve(c), cases[k].third != NULL);
            if (cases[k].note) {
                CU_ASSERT_STRING_EQUAL(pmusim_capture_exec_note(c), cases[k].note);
            } else {
                CU_ASSERT_PTR_NULL(pmusim_capture_exec_note(c));
            }
            CU_ASSERT_TRUE(pmusim_capture_finish(c, &error));
        } else {
            CU_ASSERT_FALSE(fed);
            CU_ASSERT_PTR_NOT_NULL_FATAL(error);
            CU_ASSERT_TRUE(g_str_has_prefix(error->message, cases[k].error));
            if (cases[k].note) { /* the first note stays */
                CU_ASSERT_STRING_EQUAL(pmusim_capture_exec_note(c), cases[k].note);
            } else {
                CU_ASSERT_PTR_NULL(pmusim_capture_exec_note(c));
            }
        }
        g_clear_error(&error);
        pmusim_capture_free(c);
        pmusim_uarch_free(u);
        g_byte_array_unref(s);
    }
}

/* A REAPED chunk (--trace-children: the thread's wait reaped a child that
 * a signal killed): a MARKER that names the signal, the pair kept; bad
 * ones refused. */
static void test_capture_reaped(void)
{
    static const uint8_t good[] = {0x92, 0x10, 0, 0, 6, 0, 0, 0}; /* child 4242, SIGABRT */
    static const uint8_t bad[][8] = {{0, 0, 0, 0, 6, 0, 0, 0}, {0x92, 0x10, 0, 0, 0, 0, 0, 0},
                                     {0x92, 0x10, 0, 0, 65, 0, 0, 0}};
    for (guint k = 0; k < 1 + G_N_ELEMENTS(bad); k++) {
        GByteArray *s = make_stream();
        g_byte_array_set_size(s, 205);
        uint32_t seq = 4;
        chunk(s, &seq, 8, 0, k ? bad[k - 1] : good, 8);
        GError *error = NULL;
        GArray *recs = g_array_new(FALSE, FALSE, sizeof(pmusim_rec_t));
        pmusim_uarch_t *u =
            pmusim_uarch_new(PMUSIM_CPU_WSM, 1, NULL, collect_markers, recs, &error);
        CU_ASSERT_PTR_NOT_NULL_FATAL(u);
        pmusim_capture_t *c = pmusim_capture_new(u, 1, "reaped");
        gboolean fed = pmusim_capture_feed(c, s->data, s->len, &error);
        if (k == 0) {
            CU_ASSERT_TRUE_FATAL(fed);
            const uint32_t *pr = NULL;
            CU_ASSERT_EQUAL_FATAL(pmusim_capture_reaped(c, &pr), 1);
            CU_ASSERT_EQUAL(pr[0], 4242);
            CU_ASSERT_EQUAL(pr[1], 6);
            CU_ASSERT_TRUE(pmusim_capture_finish(c, &error));
            CU_ASSERT_TRUE(pmusim_uarch_finish(u, &error));
            int markers = 0;
            for (guint i = 0; i < recs->len; i++) {
                const pmusim_rec_t *r = &g_array_index(recs, pmusim_rec_t, i);
                if (r->kind == PMUSIM_REC_MARKER) {
                    markers++;
                    CU_ASSERT_STRING_EQUAL(r->name,
                                           "wait: child 4242 was killed by signal 6 (Aborted)");
                }
            }
            CU_ASSERT_EQUAL(markers, 1);
        } else {
            CU_ASSERT_FALSE(fed);
            CU_ASSERT_PTR_NOT_NULL_FATAL(error);
            CU_ASSERT_STRING_EQUAL(error->message,
                                   "reaped: byte 221: REAPED chunk: 8 bytes, a process id "
                                   "1..2147483647 and a signal 1..64 expected");
        }
        g_clear_error(&error);
        pmusim_capture_free(c);
        pmusim_uarch_free(u);
        g_array_unref(recs);
        g_byte_array_unref(s);
    }
}

/* An execve that replaced the program: the stream ends after the EXECVE
 * chunk, and pmusim_capture_in_execve() says so (pmusim's MARKER then names
 * the execve); one that failed: the thread goes on, in_execve is FALSE.
 * Bad EXECVE chunks: an error naming the chunk's byte. */
static void test_capture_execve(void)
{
    static const uint8_t calls[] = {1, 0, 0, 0, 0, 0, 0, 0};
    for (int goes_on = 0; goes_on < 2; goes_on++) {
        GByteArray *s = make_execve_stream(calls, sizeof calls, goes_on);
        GError *error = NULL;
        pmusim_uarch_t *u = pmusim_uarch_new(PMUSIM_CPU_WSM, 1, NULL, collect, NULL, &error);
        CU_ASSERT_PTR_NOT_NULL_FATAL(u);
        pmusim_capture_t *c = pmusim_capture_new(u, 1, "execve");
        CU_ASSERT_TRUE_FATAL(pmusim_capture_feed(c, s->data, s->len, &error));
        CU_ASSERT_EQUAL(pmusim_capture_saw_end(c), goes_on);
        CU_ASSERT_EQUAL(pmusim_capture_in_execve(c), !goes_on);
        CU_ASSERT_TRUE(pmusim_capture_finish(c, &error));
        /* the seven instructions of the first EXEC chunk either way (the
         * second holds the return's load: make_fork_stream()) */
        CU_ASSERT_EQUAL(pmusim_capture_instructions(c), 7);
        g_clear_error(&error);
        pmusim_capture_free(c);
        pmusim_uarch_free(u);
        g_byte_array_unref(s);
    }
    static const struct {
        uint8_t payload[12];
        guint n;
    } bad[] = {
        {{1, 0, 0, 0}, 4}, {{1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}, 12},
        {{3, 0, 0, 0, 0, 0, 0, 0}, 8}, {{0, 0, 0, 0, 0, 0, 0, 0}, 8}, {{1, 0, 0, 0, 1, 0, 0, 0}, 8},
        /* {3, N} needs N >= 1 and a program; {2, 0} has no text */
        {{3, 0, 0, 0, 0, 0, 0, 0, 'p'}, 9}, {{3, 0, 0, 0, 1, 0, 0, 0}, 8},
        {{2, 0, 0, 0, 0, 0, 0, 0, 'x'}, 9},
    };
    for (guint i = 0; i < G_N_ELEMENTS(bad); i++) {
        GByteArray *s = make_execve_stream(bad[i].payload, bad[i].n, FALSE);
        GError *error = NULL;
        pmusim_uarch_t *u = pmusim_uarch_new(PMUSIM_CPU_WSM, 1, NULL, collect, NULL, &error);
        CU_ASSERT_PTR_NOT_NULL_FATAL(u);
        pmusim_capture_t *c = pmusim_capture_new(u, 1, "execve");
        CU_ASSERT_FALSE(pmusim_capture_feed(c, s->data, s->len, &error));
        CU_ASSERT_PTR_NOT_NULL_FATAL(error);
        CU_ASSERT_STRING_EQUAL(error->message,
                               "execve: byte 221: EXECVE chunk: {1, 0[, why]}, {2, 0} or {3, N "
                               ">= 1, program} expected (8 bytes and up to 4096 of text without "
                               "NUL; {4, N, note} once and {1, 0, why} alone after {3, N})");
        CU_ASSERT_FALSE(pmusim_capture_in_execve(c));
        g_clear_error(&error);
        pmusim_capture_free(c);
        pmusim_uarch_free(u);
        g_byte_array_unref(s);
    }
}

/* ---- wide accesses: QEMU's 8-byte pieces joined again ---- */

/* an access item: `dinsn` instructions after the previous access's, a
 * load or store of 2^lg bytes, `delta` from the previous address */
static void acc_item(GByteArray *b, unsigned dinsn, int store, unsigned lg, int64_t delta)
{
    uint64_t z = ((uint64_t)delta << 1) ^ (uint64_t)(delta >> 63);
    unsigned n = 0;
    while (n < 8 && (z >> (8 * n)) != 0)
        n++;
    unsigned code = n >= 7 ? 7 : n;
    if (code == 7)
        n = 8;
    uint16_t h = (uint16_t)(1u | (unsigned)store << 1 | lg << 2 | code << 4 | dinsn << 7);
    uint8_t hb[2] = {(uint8_t)h, (uint8_t)(h >> 8)};
    put(b, hb, 2);
    for (unsigned j = 0; j < n; j++) {
        uint8_t x = (uint8_t)(z >> (8 * j));
        put(b, &x, 1);
    }
}

/* A block of three instructions: a 16-byte load at 0x7fff0038 (crossing
 * into the line at 0x7fff0040) that QEMU sends as two 8-byte pieces, a
 * 32-byte store at 0x7fff1000 sent as four, and an instruction without a
 * wide operand (mem_width 0) making two 8-byte loads at 0x7fff2000 and
 * 0x7fff2008.  The first two are one access each, of their operand's width
 * (mem_width 16 and 32), as valgrind and the hardware make them; the third
 * keeps its two.  On a cold wsm L1D, cachegrind's count: 4 references, 3
 * misses (the crossing load one, the store one, the pair one); the pieces
 * made 8 references and 4 misses. */
static void test_capture_wide_access(void)
{
    GByteArray *s = g_byte_array_new(), *p = g_byte_array_new();
    uint32_t seq = 0;
    start_block0(s, p, &seq, 3);
    static const uint8_t widths[3] = {16, 32, 0};
    for (int i = 0; i < 3; i++) {
        uint8_t d[8] = {4, PMUSIM_UARCH_BR_NONE, 0, 1, 0, widths[i], 0, 0};
        put(p, d, 8);
        put64(p, 0);
    }
    chunk(s, &seq, 2, 0, p->data, p->len);
    g_byte_array_set_size(p, 0);
    put(p, (const uint8_t[]){0x00, 0x00}, 2); /* block 0 */
    acc_item(p, 0, 0, 3, 0x7fff0038);
    acc_item(p, 0, 0, 3, 8);
    acc_item(p, 1, 1, 3, 0x1000 - 0x40);
    for (int k = 0; k < 3; k++)
        acc_item(p, 0, 1, 3, 8);
    acc_item(p, 1, 0, 3, 0x1000 - 0x18);
    acc_item(p, 0, 0, 3, 8);
    chunk(s, &seq, 3, 0, p->data, p->len);
    uint32_t reason = 0;
    chunk(s, &seq, 5, 0, &reason, 4);
    split_run_t run;
    CU_ASSERT_TRUE_FATAL(split_run(&run, s, s->len, collect, "wide"));
    GArray *recs = run.recs;
    static const want_t want[] = {
        {PMUSIM_REC_INSN, 0x401000, 0x7fff0038, 16, 0, -1, 0},
        {PMUSIM_REC_INSN, 0x401004, 0x7fff1000, 32, 1, -1, 0},
        {PMUSIM_REC_INSN, 0x401008, 0x7fff2000, 8, 0, -1, 0},
        {PMUSIM_REC_MEM, 0x401008, 0x7fff2008, 8, 0, -1, 0},
    };
    CU_ASSERT_EQUAL_FATAL(recs->len, G_N_ELEMENTS(want));
    for (guint i = 0; i < recs->len; i++) {
        const pmusim_rec_t *r = &g_array_index(recs, pmusim_rec_t, i);
        CU_ASSERT_EQUAL(r->kind, want[i].kind);
        CU_ASSERT_EQUAL(r->ip, want[i].ip);
        CU_ASSERT_EQUAL(r->mem.addr, want[i].addr);
        CU_ASSERT_EQUAL(r->mem.size, want[i].size);
        CU_ASSERT_EQUAL(r->mem.is_store, want[i].is_store);
    }
    pmusim_uarch_stats_t st;
    pmusim_uarch_get_stats(run.u, &st);
    CU_ASSERT_EQUAL(st.d1_access, 4);
    CU_ASSERT_EQUAL(st.d1_miss, 3);
    split_free(&run);
    g_byte_array_unref(p);
    g_byte_array_unref(s);
}

int main(void)
{
    if (CU_initialize_registry() != CUE_SUCCESS)
        return 1;
    CU_pSuite suite = CU_add_suite("capture", NULL, NULL);
    CU_add_test(suite, "v2 items, every split", test_capture_v2_items);
    CU_add_test(suite, "v2 errors", test_capture_v2_errors);
    CU_add_test(suite, "branch dependence through the flags", test_capture_branch_dep);
    CU_add_test(suite, "load dependence across a block left early", test_capture_dep_left_early);
    CU_add_test(suite, "load dependence through registers swapped in a block", test_capture_dep_swap);
    CU_add_test(suite, "FP/SIMD class byte", test_capture_fp_class);
    CU_add_test(suite, "threads share a block", test_capture_threads_share_block);
    CU_add_test(suite, "threads in the model's time order", test_capture_threads_time_order);
    CU_add_test(suite, "THREAD chunks: a created thread waited for, an exited or waiting one not",
                test_capture_thread_chunks);
    CU_add_test(suite, "THREAD chunks: a join woken at the exit, a raced wait's late return",
                test_capture_join_and_raced_return);
    CU_add_test(suite, "THREAD chunks: bad payloads, vCPU out of range", test_capture_thread_chunk_errors);
    CU_add_test(suite, "chunk order of two threads", test_capture_chunk_order);
    CU_add_test(suite, "recover: unsent items", test_capture_recover_unsent);
    CU_add_test(suite, "recover: a flush in progress, every cut", test_capture_recover_in_flight);
    CU_add_test(suite, "recover: a chunk sent whole, not twice", test_capture_recover_duplicate);
    CU_add_test(suite, "recover: damaged headers", test_capture_recover_damaged);
    CU_add_test(suite, "fork: a MARKER where the thread forked, every split", test_capture_fork);
    CU_add_test(suite, "fork: bad FORK chunks", test_capture_fork_errors);
    CU_add_test(suite, "fork: a traced child's FORK chunk", test_capture_fork_traced);
    CU_add_test(suite, "fork: a FORK chunk cut by a death, every cut", test_capture_fork_cut);
    CU_add_test(suite, "execve: the stream ends at it, or goes on; bad chunks", test_capture_execve);
    CU_add_test(suite, "execve under --trace-children: why, traced on, fallback",
                test_capture_execve_traced);
    CU_add_test(suite, "execve under --trace-children: the environment's note {4, N}",
                test_capture_execve_env_note);
    CU_add_test(suite, "REAPED: the signal that killed a child, bad chunks", test_capture_reaped);
    CU_add_test(suite, "wide accesses: QEMU's 8-byte pieces joined", test_capture_wide_access);
    CU_basic_set_mode(CU_BRM_VERBOSE);
    CU_basic_run_tests();
    unsigned failed = CU_get_number_of_failures();
    CU_cleanup_registry();
    return failed ? 1 : 0;
}
