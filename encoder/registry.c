/* The list of encoder PMUs known to pmusim's own tools. */
#include "pmusim/encoder.h"

#include <string.h>

G_DEFINE_QUARK(pmusim-encoder-error-quark, pmusim_encoder_error)

static const pmusim_encoder_pmu_t *const encoders[] = {
    &pmusim_encoder_ita2, &pmusim_encoder_mont, &pmusim_encoder_wsm,
    &pmusim_encoder_wsm_dp, &pmusim_encoder_knm, NULL,
};

const pmusim_encoder_pmu_t *const *pmusim_encoder_list(void)
{
    return encoders;
}

/* ------------------------------------------------------------- PMU names */

/* Other spellings accepted wherever a PMU is named (-p/--pmu, "pmu::"
 * prefixes handled by the CLI): the libpfm-3 names of the IA-64 PMUs, the
 * marketing names, and the names perf's pmu-events tables use for the
 * Westmere parts (westmereep-sp is model 37, westmereep-dp model 44,
 * westmereex model 47).  Compared after lower-casing and turning '-' into
 * '_' (docs/CLI.md). */
static const struct {
    const char *alias, *name;
} pmu_aliases[] = {
    {"itanium2", "ita2"},          {"itanium_2", "ita2"},
    {"montecito", "mont"},         {"itanium2_9000", "mont"},
    {"westmere", "wsm"},           {"westmereep_sp", "wsm"},
    {"westmere_dp", "wsm_dp"},     {"westmere_ep_dp", "wsm_dp"},
    {"westmereep_dp", "wsm_dp"},   {"westmereex", "wsm_dp"},
    {"knights_mill", "knm"},       {"knightsmill", "knm"},
};

const char *pmusim_encoder_canonical_name(const char *name)
{
    if (!name)
        return NULL;
    for (size_t i = 0; encoders[i]; i++)
        if (g_ascii_strcasecmp(encoders[i]->name, name) == 0)
            return encoders[i]->name;
    char *norm = g_ascii_strdown(name, -1);
    g_strdelimit(norm, "-", '_');
    const char *found = NULL;
    for (size_t i = 0; i < G_N_ELEMENTS(pmu_aliases) && !found; i++)
        if (strcmp(pmu_aliases[i].alias, norm) == 0)
            found = pmu_aliases[i].name;
    g_free(norm);
    return found;
}

const pmusim_encoder_pmu_t *pmusim_encoder_find(const char *name)
{
    const char *canon = pmusim_encoder_canonical_name(name);
    if (!canon)
        return NULL;
    for (size_t i = 0; encoders[i]; i++)
        if (strcmp(encoders[i]->name, canon) == 0)
            return encoders[i];
    return NULL;
}

const char *const *pmusim_encoder_pmu_names(gboolean with_aliases)
{
    static const char *plain[G_N_ELEMENTS(encoders)];
    static const char *all[G_N_ELEMENTS(encoders) + G_N_ELEMENTS(pmu_aliases)];
    static gsize done = 0;
    if (g_once_init_enter(&done)) {
        size_t n = 0;
        for (size_t i = 0; encoders[i]; i++)
            plain[i] = all[n++] = encoders[i]->name;
        for (size_t i = 0; i < G_N_ELEMENTS(pmu_aliases); i++)
            all[n++] = pmu_aliases[i].alias;
        all[n] = NULL;
        g_once_init_leave(&done, 1);
    }
    return with_aliases ? all : plain;
}

/* ------------------------------------------------------------ suggestions */

/* Optimal string alignment distance (Levenshtein plus adjacent
 * transpositions), ASCII case-insensitive; any value above `bound` is
 * returned as bound + 1 (a row whose minimum exceeds the bound ends it). */
static size_t osa_distance(const char *a, const char *b, size_t bound)
{
    size_t n = strlen(a), m = strlen(b);
    size_t *d = g_new(size_t, (n + 1) * (m + 1));
#define D(i, j) d[(i) * (m + 1) + (j)]
    for (size_t i = 0; i <= n; i++)
        D(i, 0) = i;
    for (size_t j = 0; j <= m; j++)
        D(0, j) = j;
    for (size_t i = 1; i <= n; i++) {
        size_t rowmin = D(i, 0);
        for (size_t j = 1; j <= m; j++) {
            int same = g_ascii_tolower(a[i - 1]) == g_ascii_tolower(b[j - 1]);
            size_t v = D(i - 1, j - 1) + (same ? 0 : 1);
            if (D(i - 1, j) + 1 < v)
                v = D(i - 1, j) + 1;
            if (D(i, j - 1) + 1 < v)
                v = D(i, j - 1) + 1;
            if (i > 1 && j > 1 && g_ascii_tolower(a[i - 1]) == g_ascii_tolower(b[j - 2]) &&
                g_ascii_tolower(a[i - 2]) == g_ascii_tolower(b[j - 1]) && D(i - 2, j - 2) + 1 < v)
                v = D(i - 2, j - 2) + 1;
            D(i, j) = v;
            if (v < rowmin)
                rowmin = v;
        }
        /* a row's entries come from the row above or, for a swap, the
         * one above it plus one: once two consecutive rows are above the
         * bound, every later row is */
        if (i > 1 && rowmin > bound) {
            size_t prevmin = D(i - 1, 0);
            for (size_t j = 1; j <= m; j++)
                if (D(i - 1, j) < prevmin)
                    prevmin = D(i - 1, j);
            if (prevmin > bound) {
                g_free(d);
                return bound + 1;
            }
        }
    }
    size_t r = D(n, m);
#undef D
    g_free(d);
    return r;
}

/* strstr() ignoring ASCII case, without allocating (it runs once per
 * candidate name). */
static gboolean ascii_contains(const char *hay, const char *needle)
{
    size_t n = strlen(needle), h = strlen(hay);
    if (n == 0)
        return TRUE;
    /* the first character decides most positions without a call */
    char first = g_ascii_tolower(needle[0]);
    for (size_t i = 0; i + n <= h; i++)
        if (g_ascii_tolower(hay[i]) == first && g_ascii_strncasecmp(hay + i, needle, n) == 0)
            return TRUE;
    return FALSE;
}

size_t pmusim_suggest(const char *word, const char *const *cands, size_t ncands,
                      const char **out, size_t max)
{
    if (!word || !*word || !max)
        return 0;
    size_t wlen = strlen(word);
    /* a rank per candidate: 0..limit edit distance; a candidate that
     * contains the word or is contained in it ranks past the limit, by the
     * difference of the lengths */
    size_t limit = 1 + wlen / 4;
    if (limit > 3)
        limit = 3;
    size_t best = (size_t)-1, nout = 0;
    for (size_t i = 0; i < ncands; i++) {
        const char *c = cands[i];
        if (!c || g_ascii_strcasecmp(c, word) == 0)
            continue;
        size_t clen = strlen(c);
        /* the distance is at least the difference of the lengths */
        size_t rank = (clen > wlen ? clen - wlen : wlen - clen) > limit ? limit + 1
                                                                         : osa_distance(word, c, limit);
        if (rank > limit || rank >= wlen) {
            /* one inside the other: the edit distance is the difference of
             * the lengths; the closest in length rank first */
            if ((wlen >= 3 && ascii_contains(c, word)) || (clen >= 3 && ascii_contains(word, c)))
                rank = limit + 1 + (clen > wlen ? clen - wlen : wlen - clen);
            else
                continue;
        }
        if (rank < best) {
            best = rank;
            nout = 0;
        }
        if (rank == best && nout < max) {
            gboolean dup = FALSE;
            for (size_t k = 0; k < nout; k++)
                dup |= g_ascii_strcasecmp(out[k], c) == 0;
            if (!dup)
                out[nout++] = c;
        }
    }
    return nout;
}

char *pmusim_suggest_text(const char *word, const char *const *cands, size_t ncands)
{
    const char *out[3];
    size_t n = pmusim_suggest(word, cands, ncands, out, G_N_ELEMENTS(out));
    if (!n)
        return NULL;
    GString *s = g_string_new("did you mean ");
    for (size_t i = 0; i < n; i++)
        g_string_append_printf(s, "%s%s", i == 0 ? "" : i + 1 == n ? " or " : ", ", out[i]);
    g_string_append_c(s, '?');
    return g_string_free(s, FALSE);
}

GPtrArray *pmusim_encoder_event_names(const pmusim_encoder_pmu_t *enc)
{
    GPtrArray *names = g_ptr_array_new();
    size_t n = enc && enc->event_count && enc->event_code ? enc->event_count() : 0;
    for (size_t i = 0; i < n; i++) {
        const char *name = NULL;
        if (enc->event_code(i, &name, NULL, NULL) && name)
            g_ptr_array_add(names, (gpointer)name);
    }
    return names;
}

gboolean pmusim_encoder_has_event(const pmusim_encoder_pmu_t *enc, const char *name)
{
    size_t n = enc && enc->event_count && enc->event_code ? enc->event_count() : 0;
    for (size_t i = 0; i < n; i++) {
        const char *en = NULL;
        if (enc->event_code(i, &en, NULL, NULL) && en &&
            g_ascii_tolower(en[0]) == g_ascii_tolower(name[0]) && g_ascii_strcasecmp(en, name) == 0)
            return TRUE;
    }
    return FALSE;
}

char *pmusim_encoder_event_hint(const pmusim_encoder_pmu_t *enc, const char *name)
{
    return pmusim_encoder_event_hint_ex(enc, name, NULL, 0);
}

char *pmusim_encoder_event_hint_ex(const pmusim_encoder_pmu_t *enc, const char *name,
                                   const char *const *extra, size_t nextra)
{
    GString *hint = g_string_new(NULL);
    GPtrArray *names = pmusim_encoder_event_names(enc);
    for (size_t i = 0; i < nextra; i++)
        g_ptr_array_add(names, (gpointer)extra[i]);
    char *dym = pmusim_suggest_text(name, (const char *const *)names->pdata, names->len);
    g_ptr_array_free(names, TRUE);
    if (dym)
        g_string_append(hint, dym);
    g_free(dym);
    GString *others = g_string_new(NULL);
    for (size_t i = 0; encoders[i]; i++)
        if (encoders[i] != enc && pmusim_encoder_has_event(encoders[i], name))
            g_string_append_printf(others, "%s%s", others->len ? ", " : "", encoders[i]->name);
    if (others->len)
        g_string_append_printf(hint, "%s%s is an event of %s", hint->len ? " " : "", name,
                               others->str);
    g_string_free(others, TRUE);
    if (!hint->len) {
        g_string_free(hint, TRUE);
        return NULL;
    }
    return g_string_free(hint, FALSE);
}
