/* Hostile inputs to the trace readers, second set (session 22): the
 * refusals traces/FORMAT.md promises for the fields of sessions 19-21
 * (memory level lfb, mem.dep, br.dep) that test_trace.c does not cover —
 * IA-64 streams, MEM records, a static field inherited from the IP cache
 * that the record's new kind or flags make invalid — and the findings of
 * the session's fuzzing (docs/FUZZING.md).  Every refusal is checked as the
 * whole message: the file, the byte offset or line and record, and what
 * was expected. */
#include "pmusim/trace.h"

#include "cu_main.h"

#include <CUnit/Basic.h>
#include <string.h>
#include <zstd.h>

/* ---- helpers ---- */

/* Reads the whole trace in `data` (named `name`) and returns the error's
 * message (to g_free), or NULL when it reads without one; the error must
 * be a PMUSIM_TRACE_ERROR with `code`. */
static char *read_error(const void *data, size_t len, const char *name, int code)
{
    GError *e = NULL;
    pmusim_trace_reader_t *r =
        pmusim_trace_reader_open_memory_ex(data, len, name, PMUSIM_TRACE_OPEN_QUIET, &e);
    if (r) {
        pmusim_rec_t recs[16];
        while (pmusim_trace_reader_next_batch(r, recs, 16, &e) > 0)
            ;
        pmusim_trace_reader_free(r);
    }
    if (!e)
        return NULL;
    CU_ASSERT(g_error_matches(e, PMUSIM_TRACE_ERROR, code));
    char *m = g_strdup(e->message);
    g_error_free(e);
    return m;
}

/* The text trace `t` is refused with exactly `want`. */
static void expect_text(const char *t, const char *want)
{
    char *m = read_error(t, strlen(t), "bad.txt", PMUSIM_TRACE_ERROR_FORMAT);
    CU_ASSERT_PTR_NOT_NULL_FATAL(m);
    if (strcmp(m, want) != 0)
        fprintf(stderr, "\n  got:  %s\n  want: %s\n", m, want);
    CU_ASSERT_STRING_EQUAL(m, want);
    g_free(m);
}

/* The decompressed stream `s` (header and records), compressed, is
 * refused with exactly `want`. */
static void expect_stream(const guint8 *s, size_t n, const char *want)
{
    size_t cap = ZSTD_compressBound(n);
    void *z = g_malloc(cap);
    size_t zn = ZSTD_compress(z, cap, s, n, 1);
    CU_ASSERT_FATAL(!ZSTD_isError(zn));
    char *m = read_error(z, zn, "bad.pmt", PMUSIM_TRACE_ERROR_FORMAT);
    CU_ASSERT_PTR_NOT_NULL_FATAL(m);
    if (strcmp(m, want) != 0)
        fprintf(stderr, "\n  got:  %s\n  want: %s\n", m, want);
    CU_ASSERT_STRING_EQUAL(m, want);
    g_free(m);
    g_free(z);
}

/* the 14-byte stream headers (FORMAT.md §4): version 2, isa, cpu, one
 * thread, flags 0, no metadata */
#define HDR_IA64 'P', 'M', 'U', 'T', 'R', 'A', 'C', 'E', 0x02, 0x01, 0x01, 0x01, 0x00, 0x00
#define HDR_X86 'P', 'M', 'U', 'T', 'R', 'A', 'C', 'E', 0x02, 0x02, 0x03, 0x01, 0x00, 0x00
#define STREAM(...) (const guint8[]){ __VA_ARGS__ }, sizeof((const guint8[]){ __VA_ARGS__ })

/* ---- the binary form ---- */

/* mem.dep and br.dep in an IA-64 stream: "... on IA-64: x86 only", with
 * the record's byte offset, from the INSN field mask (bits 11, 12) and from
 * MEM record 0x97 (FORMAT.md §2 `dep`, `brdep`) */
static void test_binary_deps_on_ia64(void)
{
    /* INSN: FIELDS, mask bits 0 and 11 (varint 0x81 0x10), flags MEM, dep 1 */
    expect_stream(STREAM(HDR_IA64, 0x08, 0x81, 0x10, 0x01, 0x01, 0x95, 0x01),
                  "bad.pmt: byte 14 of the decompressed stream, record 0: memory dep (a load's "
                  "address dependence) on IA-64: x86 only");
    /* a load INSN (flags MEM), then MEM 0x97: a load of level l1d, size 8,
     * dep 1, latency 4, the same address */
    expect_stream(STREAM(HDR_IA64, 0x08, 0x01, 0x01, 0x97, 0x00, 0x08, 0x01, 0x04, 0x00, 0x95,
                         0x02),
                  "bad.pmt: byte 17 of the decompressed stream, record 1: memory dep (a load's "
                  "address dependence) on IA-64: x86 only");
    /* INSN: mask bits 0 and 12 (varint 0x81 0x20), flags BRANCH, a
     * conditional branch (kind 0) with bdep 1 */
    expect_stream(STREAM(HDR_IA64, 0x08, 0x81, 0x20, 0x02, 0x01, 0x95, 0x01),
                  "bad.pmt: byte 14 of the decompressed stream, record 0: branch dep (a branch's "
                  "dependence on a load) on IA-64: x86 only");
    /* memory level lfb (6) in an IA-64 MEM record (level in bits 1-3) */
    expect_stream(STREAM(HDR_IA64, 0x08, 0x01, 0x01, 0x96, 0x0c, 0x08, 0x04, 0x00, 0x95, 0x02),
                  "bad.pmt: byte 17 of the decompressed stream, record 1: unknown memory level "
                  "or ALAT outcome");
    /* ... and in an IA-64 INSN's MEMDYN byte (level in bits 0-2) */
    expect_stream(STREAM(HDR_IA64, 0x18, 0x01, 0x01, 0x06, 0x04, 0x95, 0x01),
                  "bad.pmt: byte 14 of the decompressed stream, record 0: unknown memory level "
                  "or ALAT outcome");
    /* the x86 stream takes both */
    const guint8 ok[] = { HDR_X86, 0x18, 0x01, 0x01, 0x06, 0x04, 0x97, 0x0c, 0x08, 0x01,
                          0x04, 0x00, 0x95, 0x02 };
    size_t cap = ZSTD_compressBound(sizeof ok);
    void *z = g_malloc(cap);
    size_t zn = ZSTD_compress(z, cap, ok, sizeof ok, 1);
    CU_ASSERT_PTR_NULL(read_error(z, zn, "ok.pmt", 0));
    g_free(z);
}

/* br.dep on a direct call from the field mask (test_trace.c has the
 * IP-relative jump) */
static void test_binary_bdep_on_call(void)
{
    /* mask bits 0, 7, 12 (0x1081: varint 0x81 0x21), flags BRANCH, kind 1
     * (call), bdep 1 */
    expect_stream(STREAM(HDR_X86, 0x08, 0x81, 0x21, 0x02, 0x01, 0x01, 0x95, 0x01),
                  "bad.pmt: byte 14 of the decompressed stream, record 0: branch dep (a branch's "
                  "dependence on a load) on a direct jump or call");
}

/* mem.dep and br.dep are static fields: a record at the same position that
 * gives no new value inherits its IP-cache entry's (FORMAT.md §4.2).  A
 * record that changes another field so that the inherited dep is no longer
 * allowed (the access becomes a store, the branch a direct call, the part
 * goes away) is refused where it is decoded, with its own offset.  Each
 * first record is at position 0 with length 0, so the next one predicts
 * position 0 again and takes the same entry. */
static void test_binary_inherited_deps(void)
{
    /* record 0 (bytes 14-18): a load with dep 1; record 1 (byte 19): mask
     * bit 6, size 8 and is_store 1 */
    expect_stream(STREAM(HDR_X86, 0x08, 0x81, 0x10, 0x01, 0x01, 0x08, 0x40, 0x08, 0x01, 0x95,
                         0x02),
                  "bad.pmt: byte 19 of the decompressed stream, record 1: memory dep (a load's "
                  "address dependence) on a store");
    /* record 1: flags 0 (the memory part goes, its dep stays) */
    expect_stream(STREAM(HDR_X86, 0x08, 0x81, 0x10, 0x01, 0x01, 0x08, 0x01, 0x00, 0x95, 0x02),
                  "bad.pmt: byte 19 of the decompressed stream, record 1: memory fields on an "
                  "instruction without the memory flag");
    /* record 0: a conditional branch with bdep 1; record 1: mask bit 7,
     * kind 1 (call) */
    expect_stream(STREAM(HDR_X86, 0x08, 0x81, 0x20, 0x02, 0x01, 0x08, 0x80, 0x01, 0x01, 0x95,
                         0x02),
                  "bad.pmt: byte 19 of the decompressed stream, record 1: branch dep (a branch's "
                  "dependence on a load) on a direct jump or call");
    /* ... kind 4 (IP-relative) */
    expect_stream(STREAM(HDR_X86, 0x08, 0x81, 0x20, 0x02, 0x01, 0x08, 0x80, 0x01, 0x04, 0x95,
                         0x02),
                  "bad.pmt: byte 19 of the decompressed stream, record 1: branch dep (a branch's "
                  "dependence on a load) on a direct jump or call");
    /* record 1: flags 0 (the branch part goes, its dep stays) */
    expect_stream(STREAM(HDR_X86, 0x08, 0x81, 0x20, 0x02, 0x01, 0x08, 0x01, 0x00, 0x95, 0x02),
                  "bad.pmt: byte 19 of the decompressed stream, record 1: branch fields on an "
                  "instruction without the branch flag");
    /* record 1 the same with the dep given as 0: it reads */
    const guint8 ok[] = { HDR_X86, 0x08, 0x81, 0x20, 0x02, 0x01, 0x08, 0x81, 0x21, 0x02, 0x01,
                          0x00, 0x95, 0x02 };
    size_t cap = ZSTD_compressBound(sizeof ok);
    void *z = g_malloc(cap);
    size_t zn = ZSTD_compress(z, cap, ok, sizeof ok, 1);
    CU_ASSERT_PTR_NULL(read_error(z, zn, "ok.pmt", 0));
    g_free(z);
}

/* ---- the text form ---- */

#define TEXT_IA64 "pmusim-trace 2\nisa ia64\ncpu ita2\n"
#define TEXT_X86 "pmusim-trace 2\ncpu wsm\n"
#define IA64_LOAD "0 0 insn ip=0x4000 slot=0 unit=M plm=3 mem=ld addr=0x10 size=8\n"
#define X86_LOAD "0 0 insn ip=0x1 len=1 plm=3 mem=ld addr=0x10 size=8\n"

/* MEM records: lfb and dep on IA-64 are refused as on an INSN, and the
 * words a MEM record may not carry (FORMAT.md §5: "the memory keys,
 * nothing else") name the line */
static void test_text_mem_records(void)
{
    expect_text(TEXT_IA64 IA64_LOAD "0 0 mem mem=ld addr=0x18 size=8 lvl=lfb\n",
                "bad.txt: line 5, record 1: memory level lfb (a line fill buffer) on IA-64: an "
                "x86 level");
    expect_text(TEXT_IA64 IA64_LOAD "0 0 mem mem=ld addr=0x18 size=8 dep=1\n",
                "bad.txt: line 5, record 1: memory dep (a load's address dependence) on IA-64: "
                "x86 only");
    expect_text(TEXT_X86 X86_LOAD "0 0 mem mem=ld addr=0x18 size=8 dep=64\n",
                "bad.txt: line 4, record 1: memory dep above 63");
    static const char *const not_mem[] = { "bdep=1", "opk=fused", "lock", "br=cond" };
    for (unsigned i = 0; i < G_N_ELEMENTS(not_mem); i++) {
        char *t = g_strdup_printf(TEXT_X86 X86_LOAD "0 0 mem mem=ld addr=0x18 size=8 %s\n",
                                  not_mem[i]);
        char *want = g_strdup_printf("bad.txt: line 4, record 1: unexpected '%s' in a mem record "
                                     "(expected mem=ld|st addr= size= lvl= lat= tlb= alat= dep=)",
                                     not_mem[i]);
        expect_text(t, want);
        g_free(want);
        g_free(t);
    }
}

/* An input's bytes quoted in a text refusal are escaped as \xHH when they
 * are not printable ASCII (found by the session's mutation of `pmusim
 * trace convert`'s inputs): a carriage return or an escape sequence in a
 * mistyped word must not hide or rewrite the message's file and line on a
 * terminal, and the message stays valid UTF-8. */
static void test_text_error_escapes_bytes(void)
{
    expect_text("pmusim-trace 2\ncpu E\r\x1b[2Kwsm\n",
                "bad.txt: line 2, record 0: unknown CPU 'E\\x0d\\x1b[2Kwsm' (expected ita2, "
                "mont, wsm, wsm_dp, knm or none)");
    expect_text(TEXT_X86 "0 0 insn ip=0x1 len=1 plm=3 stf\xe1\x0ewd\n",
                "bad.txt: line 3, record 0: unknown word 'stf\\xe1\\x0ewd' (expected key=value, "
                "ia32, nop, predoff, fp, lock or stfwd)");
    expect_text(TEXT_X86 "0 0 insn ip=0x1 len=1 plm=3 mem=ld lvl=lf\x7f" "b\n",
                "bad.txt: line 3, record 0: unknown lvl= value 'lf\\x7fb'");
    expect_text(TEXT_X86 "0 0 insn ip=0x1 len=1 plm=3 b\x0b" "dep=1\n",
                "bad.txt: line 3, record 0: unknown key 'b\\x0bdep'");
    /* printable bytes, the backslash among them, are kept as they are */
    expect_text(TEXT_X86 "0 0 insn ip=0x1 len=1 plm=3 opk=f\\used\n",
                "bad.txt: line 3, record 0: unknown opk= value 'f\\used'");
}

static void register_suites(void)
{
    CU_pSuite s = CU_add_suite("trace_hostile2", NULL, NULL);
    PMUSIM_ADD_TEST(s, test_binary_deps_on_ia64);
    PMUSIM_ADD_TEST(s, test_binary_bdep_on_call);
    PMUSIM_ADD_TEST(s, test_binary_inherited_deps);
    PMUSIM_ADD_TEST(s, test_text_mem_records);
    PMUSIM_ADD_TEST(s, test_text_error_escapes_bytes);
}
