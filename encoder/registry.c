/* The list of encoder PMUs known to pmusim's own tools. */
#include "pmusim/encoder.h"

#include <stdint.h>
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

/* ASCII lower case without a call (g_ascii_tolower is a function in GLib
 * and this runs for every character of every candidate name). */
static inline unsigned char lc(char c)
{
    unsigned char u = (unsigned char)c;
    return u >= 'A' && u <= 'Z' ? (unsigned char)(u + ('a' - 'A')) : u;
}

/* The longest word pmusim_suggest() looks at: no name it is asked about is
 * near this long, and the containment test costs the word's length for
 * every candidate (hostile inputs have words of many kilobytes). */
#define SUGGEST_MAX_WORD 256

/* Optimal string alignment distance (Levenshtein plus adjacent
 * transpositions) of a (n characters) and b (m characters), both lower
 * case, with |n - m| <= bound; any value above `bound` is returned as
 * bound + 1.  Only the band |i - j| <= bound of the matrix can hold values
 * within the bound, so only it is computed, in three rolling rows: O(n *
 * bound), and no allocation for names of up to 255 characters. */
static size_t osa_distance(const unsigned char *a, size_t n, const unsigned char *b, size_t m,
                           size_t bound)
{
    const size_t inf = bound + 1;
    size_t stack[3][256];
    size_t *heap = NULL, *r2, *r1, *r0;
    if (m < 256) {
        r2 = stack[0], r1 = stack[1], r0 = stack[2];
    } else {
        heap = g_new(size_t, 3 * (m + 1));
        r2 = heap, r1 = heap + (m + 1), r0 = heap + 2 * (m + 1);
    }
    for (size_t j = 0; j <= m; j++)
        r1[j] = j < inf ? j : inf; /* row 0 */
    size_t result = n == 0 ? r1[m] : inf;
    size_t prevmin = 0; /* the minimum of the row above (row 0 starts at 0) */
    for (size_t i = 1; i <= n; i++) {
        size_t lo = i > bound ? i - bound : 1, hi = i + bound < m ? i + bound : m;
        /* the cells just left and right of the band read as "too far" */
        r0[lo - 1] = lo == 1 ? (i < inf ? i : inf) : inf;
        if (hi < m)
            r0[hi + 1] = inf;
        size_t rowmin = r0[lo - 1]; /* column 0 counts when it is next to the band */
        const unsigned char ai = a[i - 1];
        for (size_t j = lo; j <= hi; j++) {
            const unsigned char bj = b[j - 1];
            size_t v = r1[j - 1] + (ai == bj ? 0 : 1);
            if (r1[j] + 1 < v)
                v = r1[j] + 1;
            if (r0[j - 1] + 1 < v)
                v = r0[j - 1] + 1;
            if (i > 1 && j > 1 && ai == b[j - 2] && a[i - 2] == bj && r2[j - 2] + 1 < v)
                v = r2[j - 2] + 1;
            if (v > inf)
                v = inf;
            r0[j] = v;
            if (v < rowmin)
                rowmin = v;
        }
        /* a row's values come from the row above or, for a swap, the one
         * above that plus one: two rows in a row past the bound end it */
        if (rowmin >= inf && prevmin >= inf)
            break;
        prevmin = rowmin;
        if (i == n)
            result = r0[m];
        size_t *t = r2;
        r2 = r1, r1 = r0, r0 = t;
    }
    g_free(heap);
    return result;
}

/* A list of candidate names prepared for pmusim_suggest(): lower-case
 * copies, lengths and the set of characters each uses.  The event lists of
 * the encoders are prepared once per process (they are asked about at every
 * unknown event name, which hostile input files have thousands of). */
typedef struct {
    size_t n;
    const char **name;  /* the candidates as given */
    const char **lower; /* lower-case copies, NUL-terminated */
    size_t *len;
    uint64_t *sig; /* bit (c & 63) for every character c */
    GHashTable *set; /* lower-case name -> name, for exact look-ups */
} name_set_t;

static uint64_t sig_of(const unsigned char *s, size_t n)
{
    uint64_t m = 0;
    for (size_t i = 0; i < n; i++)
        m |= UINT64_C(1) << (s[i] & 63);
    return m;
}

static name_set_t *name_set_new(const char *const *cands, size_t ncands, gboolean with_set)
{
    size_t total = 0;
    for (size_t i = 0; i < ncands; i++)
        total += cands[i] ? strlen(cands[i]) + 1 : 0;
    name_set_t *ns = g_new0(name_set_t, 1);
    ns->name = g_new(const char *, ncands ? ncands : 1);
    ns->lower = g_new(const char *, ncands ? ncands : 1);
    ns->len = g_new(size_t, ncands ? ncands : 1);
    ns->sig = g_new(uint64_t, ncands ? ncands : 1);
    char *text = g_malloc(total ? total : 1), *at = text;
    if (with_set)
        ns->set = g_hash_table_new(g_str_hash, g_str_equal);
    for (size_t i = 0; i < ncands; i++) {
        if (!cands[i])
            continue;
        size_t k = ns->n++, len = strlen(cands[i]);
        for (size_t j = 0; j <= len; j++)
            at[j] = (char)lc(cands[i][j]);
        ns->name[k] = cands[i];
        ns->lower[k] = at;
        ns->len[k] = len;
        ns->sig[k] = sig_of((const unsigned char *)at, len);
        if (ns->set && !g_hash_table_contains(ns->set, at))
            g_hash_table_insert(ns->set, at, (gpointer)cands[i]);
        at += len + 1;
    }
    return ns;
}

static void name_set_free(name_set_t *ns)
{
    if (!ns)
        return;
    if (ns->set)
        g_hash_table_destroy(ns->set);
    g_free(ns->n ? (gpointer)ns->lower[0] : NULL);
    g_free(ns->name);
    g_free(ns->lower);
    g_free(ns->len);
    g_free(ns->sig);
    g_free(ns);
}

static name_set_t *name_set_from_encoder(const pmusim_encoder_pmu_t *enc)
{
    GPtrArray *names = pmusim_encoder_event_names(enc);
    name_set_t *ns = name_set_new((const char *const *)names->pdata, names->len, TRUE);
    g_ptr_array_free(names, TRUE);
    return ns;
}

/* The prepared event list of an encoder of the list, built on first use;
 * NULL for any other. */
static const name_set_t *encoder_names(const pmusim_encoder_pmu_t *enc)
{
    static name_set_t *sets[G_N_ELEMENTS(encoders)];
    size_t i = 0;
    while (encoders[i] && encoders[i] != enc)
        i++;
    if (!encoders[i])
        return NULL; /* not one of the list */
    name_set_t *ns = g_atomic_pointer_get(&sets[i]);
    if (ns)
        return ns;
    ns = name_set_from_encoder(enc);
    if (!g_atomic_pointer_compare_and_exchange(&sets[i], NULL, ns)) {
        name_set_free(ns);
        ns = g_atomic_pointer_get(&sets[i]);
    }
    return ns;
}

/* The state of one suggestion search over one or more name sets. */
typedef struct {
    unsigned char w[SUGGEST_MAX_WORD + 1];
    size_t wlen, limit, best, nout, max;
    uint64_t sig;
    const char **out;
} suggest_t;

static gboolean suggest_begin(suggest_t *st, const char *word, const char **out, size_t max)
{
    if (!word || !*word || !max)
        return FALSE;
    size_t wlen = strlen(word);
    if (wlen > SUGGEST_MAX_WORD)
        return FALSE;
    for (size_t i = 0; i <= wlen; i++)
        st->w[i] = lc(word[i]);
    st->wlen = wlen;
    st->sig = sig_of(st->w, wlen);
    /* a rank per candidate: 0..limit edit distance; a candidate that
     * contains the word or is contained in it ranks past the limit, by the
     * difference of the lengths */
    st->limit = 1 + wlen / 4 > 3 ? 3 : 1 + wlen / 4;
    st->best = (size_t)-1;
    st->nout = 0;
    st->max = max;
    st->out = out;
    return TRUE;
}

static void suggest_over(suggest_t *st, const name_set_t *ns)
{
    const size_t wlen = st->wlen, limit = st->limit;
    for (size_t i = 0; i < ns->n; i++) {
        size_t clen = ns->len[i];
        size_t diff = clen > wlen ? clen - wlen : wlen - clen;
        /* the distance is at least the difference of the lengths, and at
         * least the number of characters one uses and the other does not
         * (each needs an edit of its own); 0 is the word itself (any case),
         * which is no suggestion */
        size_t rank = limit + 1;
        if (diff <= limit &&
            (size_t)__builtin_popcountll(st->sig & ~ns->sig[i]) <= limit &&
            (size_t)__builtin_popcountll(ns->sig[i] & ~st->sig) <= limit)
            rank = osa_distance(st->w, wlen, (const unsigned char *)ns->lower[i], clen, limit);
        if (rank == 0)
            continue;
        if (rank > limit || rank >= wlen) {
            /* one inside the other: the edit distance is the difference of
             * the lengths; the closest in length rank first */
            if ((wlen >= 3 && clen >= wlen && memmem(ns->lower[i], clen, st->w, wlen)) ||
                (clen >= 3 && wlen >= clen && memmem(st->w, wlen, ns->lower[i], clen)))
                rank = limit + 1 + diff;
            else
                continue;
        }
        if (rank < st->best) {
            st->best = rank;
            st->nout = 0;
        }
        if (rank == st->best && st->nout < st->max) {
            gboolean dup = FALSE;
            for (size_t k = 0; k < st->nout; k++)
                dup |= g_ascii_strcasecmp(st->out[k], ns->name[i]) == 0;
            if (!dup)
                st->out[st->nout++] = ns->name[i];
        }
    }
}

size_t pmusim_suggest(const char *word, const char *const *cands, size_t ncands,
                      const char **out, size_t max)
{
    suggest_t st;
    if (!suggest_begin(&st, word, out, max))
        return 0;
    name_set_t *ns = name_set_new(cands, ncands, FALSE);
    suggest_over(&st, ns);
    name_set_free(ns);
    return st.nout;
}

/* "did you mean A?" / "did you mean A, B or C?" for the suggestions found. */
static char *suggest_text(const char *const *out, size_t n)
{
    if (!n)
        return NULL;
    GString *s = g_string_new("did you mean ");
    for (size_t i = 0; i < n; i++)
        g_string_append_printf(s, "%s%s", i == 0 ? "" : i + 1 == n ? " or " : ", ", out[i]);
    g_string_append_c(s, '?');
    return g_string_free(s, FALSE);
}

char *pmusim_suggest_text(const char *word, const char *const *cands, size_t ncands)
{
    const char *out[3];
    return suggest_text(out, pmusim_suggest(word, cands, ncands, out, G_N_ELEMENTS(out)));
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
    if (!enc || !enc->event_count || !enc->event_code || !name)
        return FALSE;
    const name_set_t *evs = encoder_names(enc);
    name_set_t *own = evs ? NULL : name_set_from_encoder(enc);
    char *low = g_ascii_strdown(name, -1);
    gboolean found = g_hash_table_contains((evs ? evs : own)->set, low);
    g_free(low);
    name_set_free(own);
    return found;
}

char *pmusim_encoder_event_hint(const pmusim_encoder_pmu_t *enc, const char *name)
{
    return pmusim_encoder_event_hint_ex(enc, name, NULL, 0);
}

char *pmusim_encoder_event_hint_ex(const pmusim_encoder_pmu_t *enc, const char *name,
                                   const char *const *extra, size_t nextra)
{
    GString *hint = g_string_new(NULL);
    const char *out[3];
    suggest_t st;
    char *dym = NULL;
    if (suggest_begin(&st, name, out, G_N_ELEMENTS(out))) {
        const name_set_t *evs = encoder_names(enc);
        name_set_t *own = evs ? NULL : name_set_from_encoder(enc);
        suggest_over(&st, evs ? evs : own);
        name_set_free(own);
        if (nextra) {
            name_set_t *ns = name_set_new(extra, nextra, FALSE);
            suggest_over(&st, ns);
            name_set_free(ns);
        }
        dym = suggest_text(out, st.nout);
    }
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
