/* Suggestions, PMU aliases and the shared error form of the native encoder
 * interface (encoder/registry.c, x86_native.c, ia64_native.c): exact
 * candidates, exact messages, unchanged libpfm error codes. */
#include "cu_main.h"
#include "pmusim/encoder.h"

#include <glib.h>
#include <string.h>

static size_t suggest(const char *word, const char *const *cands, const char **out, size_t max)
{
    return pmusim_suggest(word, cands, g_strv_length((char **)cands), out, max);
}

static void test_edit_distance(void)
{
    static const char *const c[] = {"CPU_CYCLES", "NOPS_RETIRED", "IA64_INST_RETIRED", NULL};
    const char *out[3];
    CU_ASSERT_EQUAL(suggest("CPU_CYCLE", c, out, 3), 1);
    CU_ASSERT_STRING_EQUAL(out[0], "CPU_CYCLES");
    /* case-insensitive */
    CU_ASSERT_EQUAL(suggest("cpu_cycle", c, out, 3), 1);
    CU_ASSERT_STRING_EQUAL(out[0], "CPU_CYCLES");
    /* an exact match (any case) is no suggestion */
    CU_ASSERT_EQUAL(suggest("cpu_cycles", c, out, 3), 0);
    /* too far: 1 + 9/4 = 3 edits allowed, "CPU_XXXXXX" needs 6 */
    CU_ASSERT_EQUAL(suggest("CPU_XXXXXX", c, out, 3), 0);
}

static void test_transposition(void)
{
    static const char *const c[] = {"stat", "record", "report", "script", NULL};
    const char *out[3];
    /* "stta": one swap of neighbours */
    CU_ASSERT_EQUAL(suggest("stta", c, out, 3), 1);
    CU_ASSERT_STRING_EQUAL(out[0], "stat");
    CU_ASSERT_EQUAL(suggest("reprot", c, out, 3), 1);
    CU_ASSERT_STRING_EQUAL(out[0], "report");
}

static void test_short_words(void)
{
    static const char *const mods[] = {"k", "u", "e", "i", "c", "t", NULL};
    const char *out[3];
    /* one letter: replacing it is no suggestion */
    CU_ASSERT_EQUAL(suggest("q", mods, out, 3), 0);
    /* "cmask" contains c and k, but one-letter candidates are not offered by containment */
    CU_ASSERT_EQUAL(suggest("cmask", mods, out, 3), 0);
}

static void test_containment(void)
{
    static const char *const c[] = {"UNHALTED_CORE_CYCLES", "INST_RETIRED", "ZZZ", NULL};
    const char *out[3];
    /* "cycle" is 15 edits away from UNHALTED_CORE_CYCLES, but inside it */
    CU_ASSERT_EQUAL(suggest("cycle", c, out, 3), 1);
    CU_ASSERT_STRING_EQUAL(out[0], "UNHALTED_CORE_CYCLES");
    /* two letters: no containment ("qq" is not in any), but one edit is fine */
    CU_ASSERT_EQUAL(suggest("qq", c, out, 3), 0);
    CU_ASSERT_EQUAL(suggest("zz", c, out, 3), 1);
    CU_ASSERT_STRING_EQUAL(out[0], "ZZZ");
}

static void test_best_rank_only(void)
{
    static const char *const c[] = {"abcx", "abcy", "abcz", "abcw", "abxy", NULL};
    const char *out[3];
    /* four candidates at distance 1, one at 2: three of the first kept, in order */
    CU_ASSERT_EQUAL(suggest("abcd", c, out, 3), 3);
    CU_ASSERT_STRING_EQUAL(out[0], "abcx");
    CU_ASSERT_STRING_EQUAL(out[1], "abcy");
    CU_ASSERT_STRING_EQUAL(out[2], "abcz");
    char *t = pmusim_suggest_text("abcd", c, 5);
    CU_ASSERT_STRING_EQUAL(t, "did you mean abcx, abcy or abcz?");
    g_free(t);
    static const char *const two[] = {"wsm", "wsm_dp", NULL};
    t = pmusim_suggest_text("wms", two, 2);
    CU_ASSERT_STRING_EQUAL(t, "did you mean wsm?");
    g_free(t);
    CU_ASSERT_PTR_NULL(pmusim_suggest_text("", two, 2));
}

static void test_pmu_aliases(void)
{
    CU_ASSERT_STRING_EQUAL(pmusim_encoder_canonical_name("Westmere"), "wsm");
    CU_ASSERT_STRING_EQUAL(pmusim_encoder_canonical_name("westmereep-dp"), "wsm_dp");
    CU_ASSERT_STRING_EQUAL(pmusim_encoder_canonical_name("westmere_ep_dp"), "wsm_dp");
    CU_ASSERT_STRING_EQUAL(pmusim_encoder_canonical_name("ITANIUM2"), "ita2");
    CU_ASSERT_STRING_EQUAL(pmusim_encoder_canonical_name("montecito"), "mont");
    CU_ASSERT_STRING_EQUAL(pmusim_encoder_canonical_name("knights-mill"), "knm");
    CU_ASSERT_STRING_EQUAL(pmusim_encoder_canonical_name("WSM_DP"), "wsm_dp");
    CU_ASSERT_PTR_NULL(pmusim_encoder_canonical_name("itanium"));
    CU_ASSERT_PTR_NULL(pmusim_encoder_canonical_name(NULL));
    CU_ASSERT_PTR_EQUAL(pmusim_encoder_find("montecito"), &pmusim_encoder_mont);
    CU_ASSERT_PTR_EQUAL(pmusim_encoder_find("westmere"), &pmusim_encoder_wsm);
    const char *const *plain = pmusim_encoder_pmu_names(FALSE);
    CU_ASSERT_EQUAL(g_strv_length((char **)plain), 5);
    CU_ASSERT_EQUAL(g_strv_length((char **)pmusim_encoder_pmu_names(TRUE)), 5 + 12);
}

static void test_event_hint(void)
{
    char *h = pmusim_encoder_event_hint(&pmusim_encoder_wsm, "CPU_CYCLES");
    CU_ASSERT_STRING_EQUAL(h, "CPU_CYCLES is an event of ita2");
    g_free(h);
    h = pmusim_encoder_event_hint(&pmusim_encoder_ita2, "CPU_CYCLE");
    CU_ASSERT_STRING_EQUAL(h, "did you mean CPU_CYCLES?");
    g_free(h);
    /* containment, closest lengths first: IA32_/IA64_INST_RETIRED (5 more
     * characters) rank before IA64_INST_RETIRED_THIS (10) */
    h = pmusim_encoder_event_hint(&pmusim_encoder_ita2, "INST_RETIRED");
    CU_ASSERT_STRING_EQUAL(h, "did you mean IA32_INST_RETIRED or IA64_INST_RETIRED? INST_RETIRED is "
                              "an event of wsm, wsm_dp, knm");
    g_free(h);
    CU_ASSERT_PTR_NULL(pmusim_encoder_event_hint(&pmusim_encoder_wsm, "QQQQQQQQQQQQ"));
    static const char *const extra[] = {"cycles", "instructions"};
    h = pmusim_encoder_event_hint_ex(&pmusim_encoder_wsm, "instructons", extra, 2);
    CU_ASSERT_STRING_EQUAL(h, "did you mean instructions?");
    g_free(h);
}

/* Encodes one event; returns the GError (caller frees) or NULL. */
static GError *encode_error(const pmusim_encoder_pmu_t *p, const char *ev)
{
    GArray *regs = g_array_new(FALSE, TRUE, sizeof(pmusim_regwrite_t));
    GError *e = NULL;
    const char *one[1] = {ev};
    p->encode(one, 1, NULL, 0, PMUSIM_PLM0 | PMUSIM_PLM3, regs, &e);
    g_array_free(regs, TRUE);
    return e;
}

static void expect_error(const pmusim_encoder_pmu_t *p, const char *ev, int code, const char *msg)
{
    GError *e = encode_error(p, ev);
    CU_ASSERT_PTR_NOT_NULL_FATAL(e);
    CU_ASSERT_EQUAL(e->code, code);
    CU_ASSERT_STRING_EQUAL(e->message, msg);
    if (strcmp(e->message, msg) != 0)
        fprintf(stderr, "\n  got:  %s\n  want: %s\n", e->message, msg);
    g_error_free(e);
}

/* libpfm-4 codes (x86) and libpfm-3 codes (IA-64) are those the libpfm
 * faces return for the same strings: only the message changed. */
static void test_messages_and_codes(void)
{
    expect_error(&pmusim_encoder_wsm, "UOPS_RETIRED:ANY:e=1", -8 /* PFM_ERR_ATTR */,
                 "UOPS_RETIRED:ANY:e=1: invalid attribute 'e=1' on wsm: edge detect counts the "
                 "cycles where the counter-mask comparison turns true, so it needs c>=1 (e.g. "
                 ":e=1:c=1)");
    expect_error(&pmusim_encoder_wsm, "UOPS_RETIRED:ANY:c=256", -9 /* PFM_ERR_ATTR_VAL */,
                 "UOPS_RETIRED:ANY:c=256: invalid value 'c=256' on wsm: c (counter mask) takes "
                 "0..255");
    expect_error(&pmusim_encoder_wsm, "UOPS_RETIRED:ANY:k=1:k=0", -10 /* PFM_ERR_ATTR_SET */,
                 "UOPS_RETIRED:ANY:k=1:k=0: conflicting attributes on wsm: k is given twice, as "
                 "1 and 0");
    expect_error(&pmusim_encoder_wsm, "UOPS_RETIRED:ANYY", -8 /* PFM_ERR_ATTR */,
                 "UOPS_RETIRED:ANYY: unit mask 'ANYY' not found on wsm (did you mean ANY?)");
    expect_error(&pmusim_encoder_knm, "CPU_CYCLES", -4 /* PFM_ERR_NOTFOUND */,
                 "CPU_CYCLES: event not found on knm (CPU_CYCLES is an event of ita2)");
    expect_error(&pmusim_encoder_wsm, "MEM_INST_RETIRED:LOADS:STORES", -5 /* PFM_ERR_FEATCOMB */,
                 "MEM_INST_RETIRED:LOADS:STORES: conflicting attributes on wsm: unit masks LOADS "
                 "and STORES cannot be combined");
    expect_error(&pmusim_encoder_ita2, "CPU_CYCLE", -4 /* PFMLIB_ERR_NOTFOUND */,
                 "CPU_CYCLE: event not found on ita2 (did you mean CPU_CYCLES?)");
    expect_error(&pmusim_encoder_mont, "L3_INSERTS", -22 /* PFMLIB_ERR_UMASK */,
                 "L3_INSERTS: unit mask missing on mont: L3_INSERTS needs a MESI unit mask (e.g. "
                 "L3_INSERTS:M or L3_INSERTS:I:S:E:M)");
}

/* ---- the search against a plain reference ----
 * pmusim_suggest() computes the distance in a band of the matrix, skips
 * candidates by length and character set, and prepares the encoders' event
 * lists once; the reference below is the definition written out plainly
 * (full matrix, every candidate), and the two must agree on every word. */

static size_t ref_lower(char c)
{
    return (size_t)(unsigned char)g_ascii_tolower(c);
}

static size_t ref_osa(const char *a, const char *b)
{
    size_t n = strlen(a), m = strlen(b);
    size_t *d = g_new(size_t, (n + 1) * (m + 1));
#define D(i, j) d[(i) * (m + 1) + (j)]
    for (size_t i = 0; i <= n; i++)
        for (size_t j = 0; j <= m; j++) {
            if (i == 0 || j == 0) {
                D(i, j) = i + j;
                continue;
            }
            size_t v = D(i - 1, j - 1) + (ref_lower(a[i - 1]) != ref_lower(b[j - 1]));
            v = MIN(v, D(i - 1, j) + 1);
            v = MIN(v, D(i, j - 1) + 1);
            if (i > 1 && j > 1 && ref_lower(a[i - 1]) == ref_lower(b[j - 2]) &&
                ref_lower(a[i - 2]) == ref_lower(b[j - 1]))
                v = MIN(v, D(i - 2, j - 2) + 1);
            D(i, j) = v;
        }
    size_t r = D(n, m);
#undef D
    g_free(d);
    return r;
}

static gboolean ref_contains(const char *hay, const char *needle)
{
    char *h = g_ascii_strdown(hay, -1), *n = g_ascii_strdown(needle, -1);
    gboolean r = strstr(h, n) != NULL;
    g_free(h);
    g_free(n);
    return r;
}

static size_t ref_suggest(const char *word, const char *const *c, size_t nc, const char **out,
                          size_t max)
{
    size_t wlen = strlen(word), limit = MIN(3, 1 + wlen / 4), best = (size_t)-1, nout = 0;
    if (!wlen || wlen > 256)
        return 0;
    for (size_t i = 0; i < nc; i++) {
        size_t clen = strlen(c[i]), diff = clen > wlen ? clen - wlen : wlen - clen;
        size_t rank = ref_osa(word, c[i]);
        if (rank == 0)
            continue;
        if (rank > limit || rank >= wlen) {
            if ((wlen >= 3 && ref_contains(c[i], word)) || (clen >= 3 && ref_contains(word, c[i])))
                rank = limit + 1 + diff;
            else
                continue;
        }
        if (rank < best)
            best = rank, nout = 0;
        if (rank == best && nout < max) {
            gboolean dup = FALSE;
            for (size_t k = 0; k < nout; k++)
                dup |= g_ascii_strcasecmp(out[k], c[i]) == 0;
            if (!dup)
                out[nout++] = c[i];
        }
    }
    return nout;
}

/* a word from a few letters of both cases, so that distances of 0..4,
 * transpositions and containments all occur often */
static char *random_word(GRand *g, size_t maxlen)
{
    static const char letters[] = "abcAB_";
    size_t n = (size_t)g_rand_int_range(g, 1, (gint32)maxlen + 1);
    char *w = g_malloc(n + 1);
    for (size_t i = 0; i < n; i++)
        w[i] = letters[g_rand_int_range(g, 0, sizeof letters - 1)];
    w[n] = '\0';
    return w;
}

static void test_against_reference(void)
{
    GRand *g = g_rand_new_with_seed(20261127);
    size_t agreed = 0, found = 0;
    for (int round = 0; round < 400; round++) {
        char *c[40];
        for (size_t i = 0; i < G_N_ELEMENTS(c); i++)
            c[i] = random_word(g, 12);
        for (int k = 0; k < 20; k++) {
            char *w = random_word(g, 14);
            const char *o1[3], *o2[3];
            size_t n1 = pmusim_suggest(w, (const char *const *)c, G_N_ELEMENTS(c), o1, 3);
            size_t n2 = ref_suggest(w, (const char *const *)c, G_N_ELEMENTS(c), o2, 3);
            gboolean same = n1 == n2;
            for (size_t i = 0; same && i < n1; i++)
                same = o1[i] == o2[i];
            if (!same)
                CU_FAIL_FATAL("pmusim_suggest differs from the reference");
            agreed++;
            found += n1 > 0;
            g_free(w);
        }
        for (size_t i = 0; i < G_N_ELEMENTS(c); i++)
            g_free(c[i]);
    }
    CU_ASSERT_EQUAL(agreed, 8000);
    /* the words are close enough for most searches to find something */
    CU_ASSERT(found > 4000);
    g_rand_free(g);
}

static void test_long_words(void)
{
    /* names of 255+ characters take the allocated rows; 2 edits apart */
    char *a255 = g_strnfill(255, 'a'), *a257 = g_strnfill(257, 'a'), *a300 = g_strnfill(300, 'a');
    const char *c[] = {a257, "short"};
    const char *out[3];
    CU_ASSERT_EQUAL(pmusim_suggest(a255, c, 2, out, 3), 1);
    CU_ASSERT_PTR_EQUAL(out[0], a257);
    /* 256 characters are looked at, 257 are not (no name is that long) */
    char *a256 = g_strnfill(256, 'a');
    CU_ASSERT_EQUAL(pmusim_suggest(a256, c, 2, out, 3), 1);
    CU_ASSERT_EQUAL(pmusim_suggest(a257, (const char *const[]){a255}, 1, out, 3), 0);
    CU_ASSERT_EQUAL(pmusim_suggest(a300, c, 2, out, 3), 0);
    /* the event lists: a word that far from every name and in none */
    CU_ASSERT_PTR_NULL(pmusim_encoder_event_hint(&pmusim_encoder_ita2, a300));
    g_free(a255), g_free(a256), g_free(a257), g_free(a300);
}

static void register_suites(void)
{
    CU_pSuite s = CU_add_suite("suggest", NULL, NULL);
    PMUSIM_ADD_TEST(s, test_edit_distance);
    PMUSIM_ADD_TEST(s, test_transposition);
    PMUSIM_ADD_TEST(s, test_short_words);
    PMUSIM_ADD_TEST(s, test_containment);
    PMUSIM_ADD_TEST(s, test_best_rank_only);
    PMUSIM_ADD_TEST(s, test_pmu_aliases);
    PMUSIM_ADD_TEST(s, test_event_hint);
    PMUSIM_ADD_TEST(s, test_messages_and_codes);
    PMUSIM_ADD_TEST(s, test_against_reference);
    PMUSIM_ADD_TEST(s, test_long_words);
}
