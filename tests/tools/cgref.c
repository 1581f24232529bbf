/* cgref: a reference simulator of cachegrind's cache rules, a test oracle.
 *
 *   cgref [--trace] --I1=SIZE,ASSOC,LINE --D1=SIZE,ASSOC,LINE --LL=SIZE,ASSOC,LINE LACKEY.LOG
 *
 * With --trace it first prints each data reference, "L|S|M ADDR SIZE
 * LEVEL" with LEVEL l1 (a D1 hit), ll (a D1 miss, an LL hit) or mem (an LL
 * miss), and each instruction that missed I1, "I ADDR SIZE ll|mem", for
 * finding the first reference where another simulator disagrees.
 *
 * It reads a lackey log (`valgrind --tool=lackey --trace-mem=yes`: "I  A,N"
 * for an instruction, " L A,N", " S A,N", " M A,N" for its data accesses;
 * valgrind's "==PID==" lines are skipped) and prints cachegrind's nine
 * counts, Ir I1mr ILmr Dr D1mr DLmr Dw D1mw DLmw, one "name value" a line.
 *
 * It is deliberately small and separate from sim/uarch: its only job is to
 * apply the rules of cachegrind 3.19 (the facts are in docs/CAPTURE.md,
 * "An oracle of cachegrind's rules"), so that the model can be checked
 * against it on any geometry without running valgrind.  The rules:
 *
 * - a cache is sets of tags in LRU order, most recent first; a hit moves the
 *   tag to the front, a miss pushes the new tag at the front and drops the
 *   last; every tag starts as block 0 (cachegrind zeroes its tag array, so a
 *   reference to the first line of the address space hits from the start);
 * - a reference that crosses one line boundary looks both lines up, the
 *   first then the second, and is one miss if either missed;
 * - the LL is looked up only after an L1 miss, with the reference's own
 *   address and size (not the L1 line): with LL lines smaller than the L1's
 *   it sees only the LL lines the bytes touch;
 * - nothing else touches the LL: no write-backs, no inclusion, no
 *   prefetch; stores allocate like loads;
 * - a modify (" M") is one read: cachegrind merges a load and a store of
 *   the same bytes by one instruction into one data reference counted with
 *   the reads, as lackey merges them into one " M" line;
 * - a data reference wider than the smallest line of the three caches is
 *   cut to that width from its first byte (cachegrind does that for the
 *   memory a helper reads or writes, and refuses geometries whose smallest
 *   line is below the widest register, so no other reference is wider).
 *
 * Geometries are checked as cachegrind checks them: sets and lines powers of
 * two, lines of at least 16 bytes, size above the line, assoc at most
 * size / line.  Errors name the file and line; exit 1 (2 for usage). */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct cgref_cache {
    uint64_t *tags;      /* sets * assoc block numbers, each set MRU first */
    uint64_t sets, assoc;
    unsigned line_bits;
    uint64_t line;
} cgref_cache_t;

typedef struct cgref_counts {
    uint64_t ir, i1mr, ilmr, dr, d1mr, dlmr, dw, d1mw, dlmw;
} cgref_counts_t;

static int is_pow2(uint64_t v)
{
    return v && !(v & (v - 1));
}

/* "SIZE,ASSOC,LINE" after "--X1="; NULL when good, else what is wrong. */
static const char *cgref_parse_geom(const char *s, uint64_t *size, uint64_t *assoc, uint64_t *line)
{
    uint64_t v[3];
    for (int k = 0; k < 3; k++) {
        if (*s < '0' || *s > '9')
            return "expected SIZE,ASSOC,LINE in decimal";
        char *end;
        errno = 0;
        unsigned long long x = strtoull(s, &end, 10);
        if (errno || x > (UINT64_C(1) << 40))
            return "a number is too large";
        v[k] = x;
        if (k < 2 && *end != ',')
            return "expected SIZE,ASSOC,LINE in decimal";
        if (k == 2 && *end != '\0')
            return "unexpected text after LINE";
        s = end + 1;
    }
    *size = v[0];
    *assoc = v[1];
    *line = v[2];
    if (!*line || !*assoc || *size % (*line * *assoc) || !is_pow2(*size / *line / *assoc))
        return "the number of sets is not a power of two";
    if (!is_pow2(*line))
        return "the line size is not a power of two";
    if (*line < 16)
        return "the line size is below 16";
    if (*size <= *line)
        return "the size is not above the line size";
    if (*assoc > *size / *line)
        return "the associativity is above size / line";
    return NULL;
}

static void cgref_cache_init(cgref_cache_t *c, uint64_t size, uint64_t assoc, uint64_t line)
{
    c->assoc = assoc;
    c->sets = size / line / assoc;
    c->line = line;
    c->line_bits = (unsigned)__builtin_ctzll(line);
    c->tags = calloc(c->sets * assoc, sizeof *c->tags); /* block 0 everywhere */
    if (!c->tags) {
        fprintf(stderr, "cgref: out of memory\n");
        exit(1);
    }
}

/* One block looked up in its set; 1 on a miss. */
static int cgref_block(cgref_cache_t *c, uint64_t blk)
{
    uint64_t *set = &c->tags[(blk & (c->sets - 1)) * c->assoc];
    uint64_t w = 0;
    while (w < c->assoc && set[w] != blk)
        w++;
    int miss = w == c->assoc;
    if (miss)
        w = c->assoc - 1; /* the least recent way leaves */
    memmove(&set[1], &set[0], w * sizeof *set);
    set[0] = blk;
    return miss;
}

/* A reference of `n` bytes at `a`; 1 on a miss (either line of two). */
static int cgref_ref(cgref_cache_t *c, uint64_t a, uint64_t n)
{
    uint64_t first = a >> c->line_bits, last = (a + n - 1) >> c->line_bits;
    int miss = cgref_block(c, first);
    if (last != first)
        miss |= cgref_block(c, last);
    return miss;
}

__attribute__((format(printf, 2, 3), noreturn))
static void cgref_fail(int code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("cgref: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    exit(code);
}

/* "A,N" then nothing but blanks: A hexadecimal (1..16 digits), N decimal 1..4096. */
static int cgref_operand(const char *p, uint64_t *a, uint64_t *n)
{
    int digits = 0;
    uint64_t v = 0;
    for (; (*p >= '0' && *p <= '9') || (*p >= 'a' && *p <= 'f') || (*p >= 'A' && *p <= 'F');
         p++) {
        if (++digits > 16)
            return 0;
        v = v << 4 | (uint64_t)(*p <= '9' ? *p - '0' : (*p | 0x20) - 'a' + 10);
    }
    if (!digits || *p++ != ',')
        return 0;
    uint64_t s = 0;
    int sd = 0;
    for (; *p >= '0' && *p <= '9'; p++) {
        if (++sd > 4)
            return 0;
        s = s * 10 + (uint64_t)(*p - '0');
    }
    while (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n')
        p++;
    if (!sd || !s || s > 4096 || *p)
        return 0;
    *a = v;
    *n = s;
    return 1;
}

int main(int argc, char **argv)
{
    const char *geom[3] = { NULL, NULL, NULL };
    static const char *const opt[3] = { "--I1=", "--D1=", "--LL=" };
    const char *path = NULL;
    int trace = 0;
    for (int i = 1; i < argc; i++) {
        int k = 0;
        if (!strcmp(argv[i], "--trace")) {
            trace = 1;
            continue;
        }
        while (k < 3 && strncmp(argv[i], opt[k], 5) != 0)
            k++;
        if (k < 3)
            geom[k] = argv[i] + 5;
        else if (!path && argv[i][0] != '-')
            path = argv[i];
        else
            cgref_fail(2, "unexpected argument '%s' (usage: cgref [--trace] --I1=S,A,L --D1=S,A,L "
                          "--LL=S,A,L LACKEY.LOG)", argv[i]);
    }
    if (!geom[0] || !geom[1] || !geom[2] || !path)
        cgref_fail(2, "usage: cgref [--trace] --I1=S,A,L --D1=S,A,L --LL=S,A,L LACKEY.LOG");
    cgref_cache_t c[3];
    uint64_t min_line = UINT64_MAX;
    for (int k = 0; k < 3; k++) {
        uint64_t size, assoc, line;
        const char *why = cgref_parse_geom(geom[k], &size, &assoc, &line);
        if (why)
            cgref_fail(2, "%.4s: '%s': %s", opt[k] + 2, geom[k], why);
        cgref_cache_init(&c[k], size, assoc, line);
        if (line < min_line)
            min_line = line;
    }
    cgref_cache_t *i1 = &c[0], *d1 = &c[1], *ll = &c[2];

    FILE *fp = fopen(path, "r");
    if (!fp)
        cgref_fail(1, "%s: %s", path, strerror(errno));
    cgref_counts_t n = { 0 };
    char buf[512];
    uint64_t line_no = 0;
    int seen_insn = 0;
    while (fgets(buf, sizeof buf, fp)) {
        line_no++;
        size_t len = strlen(buf);
        if (len == sizeof buf - 1 && buf[len - 1] != '\n')
            cgref_fail(1, "%s: line %" PRIu64 ": longer than %zu bytes", path, line_no,
                       sizeof buf - 2);
        if (buf[0] == '=' && buf[1] == '=')
            continue; /* valgrind's own messages */
        uint64_t a, sz;
        char kind;
        if (buf[0] == 'I' && buf[1] == ' ' && buf[2] == ' ')
            kind = 'I';
        else if (buf[0] == ' ' && (buf[1] == 'L' || buf[1] == 'S' || buf[1] == 'M') &&
                 buf[2] == ' ')
            kind = buf[1];
        else
            cgref_fail(1, "%s: line %" PRIu64 ": expected 'I  A,N', ' L A,N', ' S A,N', "
                          "' M A,N' or a '==' line", path, line_no);
        if (!cgref_operand(buf + 3, &a, &sz))
            cgref_fail(1, "%s: line %" PRIu64 ": expected ADDR,SIZE (1..16 hex digits, "
                          "1..4096)", path, line_no);
        if (kind == 'I') {
            seen_insn = 1;
            n.ir++;
            if (cgref_ref(i1, a, sz)) {
                n.i1mr++;
                int miss = cgref_ref(ll, a, sz);
                n.ilmr += (uint64_t)miss;
                if (trace)
                    printf("I %" PRIx64 " %" PRIu64 " %s\n", a, sz, miss ? "mem" : "ll");
            }
            continue;
        }
        if (!seen_insn)
            cgref_fail(1, "%s: line %" PRIu64 ": a data access before any instruction", path,
                       line_no);
        if (sz > min_line)
            sz = min_line;
        /* a store counts as a write; a load and a modify as a read */
        uint64_t *refs = kind == 'S' ? &n.dw : &n.dr;
        uint64_t *m1 = kind == 'S' ? &n.d1mw : &n.d1mr;
        uint64_t *ml = kind == 'S' ? &n.dlmw : &n.dlmr;
        ++*refs;
        const char *level = "l1";
        if (cgref_ref(d1, a, sz)) {
            ++*m1;
            int miss = cgref_ref(ll, a, sz);
            *ml += (uint64_t)miss;
            level = miss ? "mem" : "ll";
        }
        if (trace)
            printf("%c %" PRIx64 " %" PRIu64 " %s\n", kind, a, sz, level);
    }
    if (ferror(fp))
        cgref_fail(1, "%s: line %" PRIu64 ": %s", path, line_no + 1, strerror(errno));
    fclose(fp);
    printf("Ir %" PRIu64 "\nI1mr %" PRIu64 "\nILmr %" PRIu64 "\nDr %" PRIu64 "\nD1mr %" PRIu64
           "\nDLmr %" PRIu64 "\nDw %" PRIu64 "\nD1mw %" PRIu64 "\nDLmw %" PRIu64 "\n",
           n.ir, n.i1mr, n.ilmr, n.dr, n.d1mr, n.dlmr, n.dw, n.d1mw, n.dlmw);
    for (int k = 0; k < 3; k++)
        free(c[k].tags);
    return 0;
}
