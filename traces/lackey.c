/* Converter from Valgrind lackey's memory trace (`valgrind --tool=lackey
 * --trace-mem=yes`) to pmusim records.  Lackey prints one line per guest
 * instruction ("I  ADDR,SIZE") followed by its data accesses (" L", " S",
 * " M" = modify: a load and a store of the same bytes).  An instruction is
 * held back with its accesses until the next "I" line, so that a
 * non-sequential next IP can mark it as a taken branch.
 *
 * The parser is strict and bounded (FORMAT.md §6, "lackey logs"): lines of
 * at most LK_MAX_LINE bytes, hexadecimal addresses of 1..16 digits, decimal
 * sizes 1..255, nothing else on a line but blanks; anything else is an error
 * naming the line.  Every access is kept: the first in the INSN record, the
 * others as MEM records (format v2). */
#include "pmusim/tracegen.h"
#include "trace_priv.h"

#include <errno.h>
#include <stdarg.h>
#include <inttypes.h>
#include <string.h>

#define LK_LATENCY 4         /* an L1D hit: lackey knows nothing about caches */
#define LK_MAX_LINE 512u     /* lackey's lines are ~30 bytes */
#define LK_MAX_ACCESSES 4096u /* accesses of one instruction (AVX-512 gathers make 16) */
#define LK_BUF (64u * 1024u)

typedef struct lk_state {
    const char *path;
    pmusim_trace_writer_t *w;
    pmusim_rec_t *pend; /* pend[0] the INSN, then its MEM records */
    size_t npend, cap;
    uint64_t line_no, cycle;
    uint64_t banner_line; /* the line of valgrind's banner ("==PID== Tool, ..."), 0 if none yet */
    pmusim_lackey_stats_t st;
} lk_state_t;

static gboolean lk_flush(lk_state_t *s, GError **error)
{
    size_t n = s->npend;
    s->npend = 0;
    return n == 0 || pmusim_trace_writer_write(s->w, s->pend, n, error);
}

G_GNUC_PRINTF(4, 5)
static gboolean lk_error(lk_state_t *s, GError **error, int code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *msg = g_strdup_vprintf(fmt, ap);
    va_end(ap);
    g_set_error(error, PMUSIM_TRACE_ERROR, code, "%s: line %" PRIu64 ": %s", s->path, s->line_no,
                msg);
    g_free(msg);
    return FALSE;
}

/* "ADDR,SIZE" then blanks to the end: ADDR 1..16 hex digits, SIZE 1..255. */
static gboolean lk_operand(lk_state_t *s, const char *p, const char *end, uint64_t *addr,
                           unsigned *size, GError **error)
{
    static const char *const expect =
        "(expected 'I  ADDR,SIZE' or ' L|S|M ADDR,SIZE': ADDR 1..16 hex digits, SIZE 1..255)";
    uint64_t a = 0;
    unsigned digits = 0;
    for (; p < end && g_ascii_isxdigit(*p); p++, digits++) {
        if (digits == 16)
            return lk_error(s, error, PMUSIM_TRACE_ERROR_FORMAT,
                            "address longer than 16 hex digits %s", expect);
        a = a << 4 | (uint64_t)g_ascii_xdigit_value(*p);
    }
    if (digits == 0 || p == end || *p != ',')
        return lk_error(s, error, PMUSIM_TRACE_ERROR_FORMAT, "bad address %s", expect);
    p++;
    unsigned v = 0, sd = 0;
    for (; p < end && g_ascii_isdigit(*p); p++, sd++) {
        if (sd == 3)
            return lk_error(s, error, PMUSIM_TRACE_ERROR_FORMAT, "size too large %s", expect);
        v = v * 10 + (unsigned)(*p - '0');
    }
    if (sd == 0 || v == 0 || v > 255)
        return lk_error(s, error, PMUSIM_TRACE_ERROR_FORMAT, "bad size %s", expect);
    for (; p < end; p++)
        if (*p != ' ' && *p != '\t' && *p != '\r')
            return lk_error(s, error, PMUSIM_TRACE_ERROR_FORMAT,
                            "unexpected '%c' after the size %s", g_ascii_isprint(*p) ? *p : '?',
                            expect);
    *addr = a;
    *size = v;
    return TRUE;
}

static gboolean lk_add_access(lk_state_t *s, uint64_t addr, unsigned size, gboolean store,
                              GError **error)
{
    pmusim_rec_t *insn = &s->pend[0];
    s->st.accesses++;
    if (!(insn->flags & PMUSIM_F_MEM)) {
        insn->flags |= PMUSIM_F_MEM;
        insn->mem = (pmusim_mem_t){ .addr = addr, .size = (uint8_t)size, .is_store = store,
                                    .level = PMUSIM_LVL_L1D, .latency = LK_LATENCY };
        return TRUE;
    }
    if (s->npend > LK_MAX_ACCESSES)
        return lk_error(s, error, PMUSIM_TRACE_ERROR_LIMIT,
                        "more than %u accesses for one instruction", LK_MAX_ACCESSES);
    if (s->npend == s->cap) {
        s->cap *= 2;
        s->pend = g_renew(pmusim_rec_t, s->pend, s->cap);
        insn = &s->pend[0];
    }
    pmusim_rec_t *m = &s->pend[s->npend++];
    memset(m, 0, sizeof *m);
    m->kind = PMUSIM_REC_MEM;
    m->cycle = insn->cycle;
    m->flags = PMUSIM_F_MEM;
    m->ip = insn->ip;
    m->plm = insn->plm;
    m->mem = (pmusim_mem_t){ .addr = addr, .size = (uint8_t)size, .is_store = store,
                             .level = PMUSIM_LVL_L1D, .latency = LK_LATENCY };
    s->st.extra_accesses++;
    return TRUE;
}

/* A valgrind message line "==PID== TEXT".  Valgrind starts a log with
 * its banner, "==PID== Tool, a/an/the what it is" ("Lackey, an example
 * Valgrind tool", "Memcheck, a memory error detector"); a tool other than
 * Lackey means the log is not a lackey log (its '==' lines alone would
 * make an empty trace).  Only the first banner-shaped line counts. */
static gboolean lk_message(lk_state_t *s, const char *p, const char *end, GError **error)
{
    if (s->banner_line)
        return TRUE;
    const char *q = p + 2;
    while (q < end && *q >= '0' && *q <= '9')
        q++;
    if (q == p + 2 || end - q < 3 || q[0] != '=' || q[1] != '=' || q[2] != ' ')
        return TRUE;
    const char *tool = q + 3, *t = tool;
    while (t < end && (g_ascii_isalnum(*t) || *t == '-'))
        t++;
    static const char *const articles[] = {", a ", ", an ", ", the "};
    size_t k = 0;
    while (k < G_N_ELEMENTS(articles) &&
           ((size_t)(end - t) < strlen(articles[k]) ||
            memcmp(t, articles[k], strlen(articles[k])) != 0))
        k++;
    if (t == tool || k == G_N_ELEMENTS(articles))
        return TRUE;
    s->banner_line = s->line_no;
    if (t - tool == 6 && memcmp(tool, "Lackey", 6) == 0)
        return TRUE;
    return lk_error(s, error, PMUSIM_TRACE_ERROR_FORMAT,
                    "the log of valgrind's %.*s, not of lackey (valgrind --tool=lackey "
                    "--trace-mem=yes makes one)", (int)(t - tool), tool);
}

/* One line without its '\n' (may contain anything, NUL included). */
static gboolean lk_line(lk_state_t *s, const char *p, size_t len, GError **error)
{
    const char *end = p + len;
    if (memchr(p, 0, len))
        return lk_error(s, error, PMUSIM_TRACE_ERROR_FORMAT,
                        "NUL byte (not a lackey log, or a damaged one)");
    if (len == 0 || (len >= 2 && p[0] == '=' && p[1] == '=') || (len == 1 && p[0] == '\r')) {
        s->st.skipped_lines++; /* blank, or valgrind's "==PID== ..." messages */
        return len < 2 || p[0] != '=' || lk_message(s, p, end, error);
    }
    char op;
    const char *q;
    if (p[0] == 'I') {
        op = 'I';
        q = p + 1;
    } else if (p[0] == ' ' && len >= 2 && (p[1] == 'L' || p[1] == 'S' || p[1] == 'M')) {
        op = p[1];
        q = p + 2;
    } else {
        return lk_error(s, error, PMUSIM_TRACE_ERROR_FORMAT,
                        "expected 'I  ADDR,SIZE', ' L|S|M ADDR,SIZE' or a '==' message line");
    }
    const char *blanks = q;
    while (q < end && (*q == ' ' || *q == '\t'))
        q++;
    if (q == blanks)
        return lk_error(s, error, PMUSIM_TRACE_ERROR_FORMAT,
                        "expected blanks after '%c' before the address", op);
    uint64_t addr = 0;
    unsigned size = 0;
    if (!lk_operand(s, q, end, &addr, &size, error))
        return FALSE;
    if (op == 'I') {
        if (s->npend) {
            pmusim_rec_t *pend = &s->pend[0];
            if (addr != pend->ip + pend->len) {
                pend->flags |= PMUSIM_F_BRANCH;
                pend->br.kind = PMUSIM_BR_IND; /* lackey does not say which kind */
                pend->br.taken = 1;
                pend->br.target = addr;
                pend->br.dir_ok = pend->br.tgt_ok = 1;
                s->st.branches++;
            }
            if (!lk_flush(s, error))
                return FALSE;
        }
        pmusim_rec_t *pend = &s->pend[0];
        memset(pend, 0, sizeof *pend);
        pend->kind = PMUSIM_REC_INSN;
        pend->cycle = s->cycle++;
        pend->ip = addr;
        pend->len = (uint8_t)size;
        pend->plm = 3; /* valgrind runs user code only */
        s->npend = 1;
        s->st.instructions++;
        return TRUE;
    }
    if (!s->npend) {
        s->st.skipped_lines++; /* accesses before the first instruction */
        return TRUE;
    }
    /* M: the instruction reads and then writes the same bytes */
    if (!lk_add_access(s, addr, size, op == 'S', error))
        return FALSE;
    return op != 'M' || lk_add_access(s, addr, size, TRUE, error);
}

gboolean pmusim_trace_convert_lackey(const char *path, pmusim_trace_writer_t *w,
                                     pmusim_lackey_stats_t *stats, GError **error)
{
    FILE *fp = strcmp(path, "-") == 0 ? stdin : fopen(path, "rb");
    if (!fp) {
        g_set_error(error, PMUSIM_TRACE_ERROR, PMUSIM_TRACE_ERROR_IO, "%s: cannot open: %s", path,
                    g_strerror(errno));
        if (stats)
            memset(stats, 0, sizeof *stats);
        return FALSE;
    }
    gboolean ok = pmusim_trace_convert_lackey_fp(fp, path, w, stats, error);
    if (fp != stdin)
        fclose(fp);
    return ok;
}

gboolean pmusim_trace_convert_lackey_fp(FILE *fp, const char *name, pmusim_trace_writer_t *w,
                                        pmusim_lackey_stats_t *stats, GError **error)
{
    const char *path = name;
    lk_state_t s;
    memset(&s, 0, sizeof s);
    s.path = path;
    s.w = w;
    s.cap = 16;
    s.pend = g_new(pmusim_rec_t, s.cap);
    char *buf = g_malloc(LK_BUF + LK_MAX_LINE);
    size_t have = 0; /* bytes of an unfinished line at buf[0] */
    gboolean ok = TRUE, eof = FALSE;
    while (ok && !eof) {
        size_t got = fread(buf + have, 1, LK_BUF, fp);
        if (got == 0) {
            if (ferror(fp)) {
                g_set_error(error, PMUSIM_TRACE_ERROR, PMUSIM_TRACE_ERROR_IO,
                            "%s: read failed: %s", path, g_strerror(errno));
                ok = FALSE;
                break;
            }
            eof = TRUE;
        }
        size_t len = have + got, start = 0;
        for (;;) {
            const char *nl = memchr(buf + start, '\n', len - start);
            size_t line_len = nl ? (size_t)(nl - (buf + start)) : len - start;
            if (!nl && !(eof && line_len > 0)) {
                break; /* wait for the rest of the line */
            }
            s.line_no++;
            if (line_len > LK_MAX_LINE) {
                ok = lk_error(&s, error, PMUSIM_TRACE_ERROR_LIMIT, "longer than %u bytes",
                              LK_MAX_LINE);
                break;
            }
            if (!(ok = lk_line(&s, buf + start, line_len, error)))
                break;
            start += line_len + (nl ? 1 : 0);
            if (!nl)
                break;
        }
        if (!ok)
            break;
        have = len - start;
        if (have > LK_MAX_LINE) {
            s.line_no++;
            ok = lk_error(&s, error, PMUSIM_TRACE_ERROR_LIMIT, "longer than %u bytes",
                          LK_MAX_LINE);
            break;
        }
        memmove(buf, buf + start, have);
    }
    if (ok && s.banner_line && s.st.instructions == 0) {
        /* lackey's banner and no instruction: lackey without
         * --trace-mem=yes prints only its counts */
        g_set_error(error, PMUSIM_TRACE_ERROR, PMUSIM_TRACE_ERROR_FORMAT,
                    "%s: line %" PRIu64 ": lackey's banner but no 'I  ADDR,SIZE' line in the "
                    "log's %" PRIu64 " lines: was lackey run with --trace-mem=yes?", path,
                    s.banner_line, s.line_no);
        ok = FALSE;
    }
    if (ok)
        ok = lk_flush(&s, error);
    g_free(buf);
    g_free(s.pend);
    if (stats)
        *stats = s.st;
    return ok;
}
