/* Native face of the x86 encoder: pmusim_encoder_wsm / _wsm_dp / _knm.
 *
 * encode() behaves like Linux's perf_event front door on these CPUs: each
 * event string is encoded as libpfm-4 does (x86_encode.c), then the events
 * are scheduled onto counters and the MSR writes that program them are
 * emitted (reference/x86-pmu.md sections 2-8):
 *
 *   - events whose config is exactly 0x00c0 / 0x003c / 0x0300 (no edge, inv
 *     or cmask) go to IA32_FIXED_CTR0/1/2 when that counter is free, as
 *     Linux's fixed-event constraints do; otherwise to a generic counter;
 *   - generic counters follow the event's counter mask narrowed by Intel's
 *     counter restrictions (counter-restrictions.csv), most constrained
 *     events first (Linux schedules by constraint weight), lowest free
 *     index, backtracking when that walk fails (sched_place());
 *   - OFFCORE_RESPONSE_0/1 program MSR_OFFCORE_RSP_0/1 (0x1a6/0x1a7); when
 *     the register is taken with another value the event moves to the other
 *     one (Linux's alternate extra register), else the set cannot be encoded;
 *   - load latency programs MSR_PEBS_LD_LAT_THRESHOLD (0x3f6) and sets
 *     PEBS_EN_PMCx and LL_EN_PMCx in IA32_PEBS_ENABLE (0x3f1);
 *   - IA32_PERF_GLOBAL_CTRL (0x38f) is written last with every used counter.
 *
 * Too many events for the counters is PFM_ERR_TOOMANY; extra-register
 * conflicts are PFM_ERR_FEATCOMB (docs/encoder-x86.md).
 */
#include "x86_priv.h"
#include "pmusim/encoder.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#define MSR_PMC0 0xc1u
#define MSR_PERFEVTSEL0 0x186u
#define MSR_OFFCORE_RSP0 0x1a6u
#define MSR_OFFCORE_RSP1 0x1a7u
#define MSR_FIXED_CTR0 0x309u
#define MSR_FIXED_CTR_CTRL 0x38du
#define MSR_PERF_GLOBAL_CTRL 0x38fu
#define MSR_PEBS_ENABLE 0x3f1u
#define MSR_PEBS_LD_LAT 0x3f6u

#define X86_MAX_EVENTS 32
#define FIXED_NONE (-1)

/* Linux's config match for the three fixed counters: event select, umask,
 * edge, invert and counter mask must equal the pseudo encoding. */
#define FIXED_MATCH_MASK (0xffffull | X86_SEL_EDGE | X86_SEL_INV | (0xffull << X86_SEL_CMASK_SHIFT))
/* the one rule a raw unit mask breaks in two places of the attribute walk */
#define RAW_UMASK_ALONE \
    "%s: invalid attribute '%s' on %s: a raw unit mask stands alone (no named unit mask, " \
    "no second raw value)"

static const uint64_t fixed_codes[3] = { 0x00c0, 0x003c, 0x0300 };

/* Valid bits of MSR_OFFCORE_RSP_0/1 as Linux checks them (x86-pmu.md 8.1). */
static uint64_t offcore_valid(const x86_pmu_t *pmu, int which)
{
    if (pmu->raw_umask_bits_offcore <= 16)
        return 0xffff;
    return which == 0 ? 0x799ffbb6e7ull : 0x399ffbffe7ull;
}

typedef struct sched_ev {
    x86_desc_t d;
    char label[PMUSIM_REG_LABEL_MAX];
    uint64_t evtsel;     /* codes[0], possibly moved to the other offcore MSR */
    int offcore;         /* -1, or 0/1: which MSR_OFFCORE_RSP */
    int fixed;           /* fixed counter this config may use, or FIXED_NONE */
    uint32_t genmask;    /* generic counters allowed */
    int counter;         /* assigned: 0..n-1 generic, 32+k fixed */
    int anyfixed;        /* t given where AnyThread is fixed-counter only */
    int order;
} sched_ev_t;


static void regs_add(GArray *regs, uint32_t num, uint64_t value, uint32_t thread, const char *label)
{
    pmusim_regwrite_t w;
    memset(&w, 0, sizeof w);
    w.space = PMUSIM_REG_MSR;
    w.num = num;
    w.value = value;
    w.thread = thread;
    g_strlcpy(w.label, label ? label : "", sizeof w.label);
    g_array_append_val(regs, w);
}

/* ------------------------------------------------------ error messages */

/* Messages of the native face share one form with the IA-64 encoder
 * (docs/CLI.md "Error messages"):
 *   EVENTSTRING: KIND on PMU[: reason][ (hint)]
 * KIND is "event not found", "unit mask 'X' not found", "invalid attribute
 * 'X'", "invalid value 'X=V'", "conflicting attributes" or "unit mask
 * missing".  The GError code stays the libpfm-4 code that
 * pmusim_x86_encode_str() returned (the libpfm-4 face pfm4.c is untouched):
 * the reason is worked out here, afterwards, from the same tables. */

static void append_names(GString *s, const char *const *names, size_t n, size_t max)
{
    for (size_t i = 0; i < n && i < max; i++)
        g_string_append_printf(s, "%s%s", i ? ", " : "", names[i]);
    if (n > max)
        g_string_append_printf(s, ", ... (%zu in all)", n);
}

static char *x86_diagnose(const x86_pmu_t *pmu, const char *str, int r)
{
    const char *s = str ? str : "";
    const char *sep = strstr(s, "::");
    GString *msg = g_string_new(NULL);
    if (sep) {
        char *pfx = g_strndup(s, (gsize)(sep - s));
        const char *canon = pmusim_encoder_canonical_name(pfx);
        gboolean other = !canon || strcmp(canon, pmu->name) != 0;
        if (other) {
            g_string_printf(msg, "%s: event not found on %s (the prefix %s:: names %s)", s,
                            pmu->name, pfx, canon ? canon : "no PMU");
            g_free(pfx);
            return g_string_free(msg, FALSE);
        }
        g_free(pfx);
        s = sep + 2;
    }
    char **tok = g_strsplit_set(s, ":.", -1);
    /* an empty string (e.g. "wsm::") splits into no token at all */
    int ev = tok[0] ? pmusim_x86_find_event(pmu, tok[0]) : -1;
    if (ev < 0) {
        char *hint = tok[0] && tok[0][0]
                         ? pmusim_encoder_event_hint(pmusim_encoder_find(pmu->name), tok[0])
                         : NULL;
        if (tok[0] && tok[0][0])
            g_string_printf(msg, "%s: event not found on %s", str, pmu->name);
        else
            g_string_printf(msg, "%s: no event name (expected [PMU::]EVENT[:UNIT_MASK...]) on %s",
                            str, pmu->name);
        if (hint)
            g_string_append_printf(msg, " (%s)", hint);
        g_free(hint);
        goto done;
    }
    const x86_event_t *e = &pmu->table->events[ev];
    x86_desc_t *d = g_new0(x86_desc_t, 1);
    pmusim_x86_desc_build_pattrs(d, pmu, ev, X86_OS_NONE);
    /* what the string asks for, attribute by attribute */
    int umset[X86_MAX_UMASKS] = { 0 };
    gboolean given[X86_MOD_COUNT] = { FALSE };
    uint64_t val[X86_MOD_COUNT] = { 0 };
    gboolean named_um = FALSE, raw_seen = FALSE;
    for (char **t = tok + 1; *t; t++) {
        const char *a = *t;
        const char *eq = strchr(a, '=');
        char *key = eq ? g_strndup(a, (gsize)(eq - a)) : g_strdup(a);
        int mod = -1;
        for (int j = 0; j < d->nmods; j++)
            if (g_ascii_strcasecmp(pmusim_x86_mod_names[d->mod[j]], key) == 0)
                mod = d->mod[j];
        int um = -1;
        for (int j = 0; j < d->nu && !eq; j++)
            if (g_ascii_strcasecmp(x86_um(pmu, ev, d->umask[j])->name, key) == 0)
                um = j;
        if (a[0] == '0' && (a[1] == 'x' || a[1] == 'X')) {
            if (!(pmu->flags & X86_PF_RAW_UMASK)) {
                g_string_printf(msg, "%s: invalid attribute '%s' on %s: %s takes no raw unit "
                                "mask, name one of its unit masks", str, a, pmu->name, pmu->name);
                g_free(key);
                goto done_d;
            }
            if (named_um || raw_seen) {
                g_string_printf(msg, RAW_UMASK_ALONE, str, a, pmu->name);
                g_free(key);
                goto done_d;
            }
            raw_seen = TRUE;
        } else if (um >= 0) {
            if (raw_seen) {
                g_string_printf(msg, RAW_UMASK_ALONE, str, a, pmu->name);
                g_free(key);
                goto done_d;
            }
            named_um = TRUE;
            umset[um] = 1;
        } else if (mod < 0) {
            /* neither: a mistyped unit mask or modifier */
            GPtrArray *c = g_ptr_array_new();
            for (int j = 0; j < d->nu; j++)
                g_ptr_array_add(c, (gpointer)x86_um(pmu, ev, d->umask[j])->name);
            size_t nu = c->len;
            for (int j = 0; j < d->nmods; j++)
                g_ptr_array_add(c, (gpointer)pmusim_x86_mod_names[d->mod[j]]);
            gboolean is_um = FALSE;
            for (int j = 0; j < d->nu; j++)
                is_um |= g_ascii_strcasecmp(x86_um(pmu, ev, d->umask[j])->name, key) == 0;
            if (is_um) {
                g_string_printf(msg, "%s: invalid attribute '%s' on %s: %s is a unit mask of %s, "
                                "it takes no value", str, a, pmu->name, key, e->name);
            } else if (eq) {
                /* perf's and the SDM's names of the same fields */
                static const struct {
                    const char *other, *mod;
                } spell[] = {{"cmask", "c"}, {"edge", "e"},   {"inv", "i"}, {"any", "t"},
                             {"usr", "u"},   {"os", "k"},      {"user", "u"}, {"kernel", "k"},
                             {"anythread", "t"}};
                char *dym = NULL;
                for (size_t k = 0; k < G_N_ELEMENTS(spell) && !dym; k++)
                    for (int j = 0; j < d->nmods && !dym; j++)
                        if (!g_ascii_strcasecmp(key, spell[k].other) &&
                            !strcmp(pmusim_x86_mod_names[d->mod[j]], spell[k].mod))
                            dym = g_strdup_printf("did you mean %s?", spell[k].mod);
                if (!dym)
                    dym = pmusim_suggest_text(key, (const char *const *)c->pdata + nu,
                                              c->len - nu);
                g_string_printf(msg, "%s: invalid attribute '%s' on %s: %s has no modifier %s "
                                "(modifiers: ", str, a, pmu->name, e->name, key);
                append_names(msg, (const char *const *)c->pdata + nu, c->len - nu, 16);
                g_string_append(msg, ")");
                if (dym)
                    g_string_append_printf(msg, " (%s)", dym);
                g_free(dym);
            } else {
                char *dym = pmusim_suggest_text(key, (const char *const *)c->pdata, c->len);
                g_string_printf(msg, "%s: unit mask '%s' not found on %s", str, key, pmu->name);
                if (dym)
                    g_string_append_printf(msg, " (%s)", dym);
                else if (nu) {
                    g_string_append_printf(msg, " (unit masks of %s: ", e->name);
                    append_names(msg, (const char *const *)c->pdata, nu, 8);
                    g_string_append(msg, ")");
                } else
                    g_string_append_printf(msg, " (%s has no unit masks)", e->name);
                g_free(dym);
            }
            g_ptr_array_free(c, TRUE);
            g_free(key);
            goto done_d;
        } else {
            /* a modifier: its value */
            const char *v = eq ? eq + 1 : NULL;
            int is_bool = pmusim_x86_mod_is_bool((x86_mod_t)mod);
            uint64_t n = 1;
            const char *why = NULL;
            char range[96];
            if (!v && !is_bool) {
                g_string_printf(msg, "%s: invalid value '%s' on %s: modifier %s needs a value "
                                "(%s=N)", str, a, pmu->name, key, key);
                g_free(key);
                goto done_d;
            }
            if (v && is_bool) {
                int c0 = g_ascii_tolower(*v);
                if (strlen(v) != 1 || !strchr("ytnf10", c0))
                    why = "a boolean modifier takes 0 or 1 (also y/n, t/f)";
                else
                    n = strchr("yt1", c0) ? 1 : 0;
            } else if (v) {
                char *end = NULL;
                n = g_ascii_strtoull(v, &end, 0);
                if (!*v || *end)
                    why = "expected a number";
                else if (mod == X86_MOD_C && n > 255) {
                    why = "c (counter mask) takes 0..255";
                } else if (mod == X86_MOD_LDLAT && (n < 3 || n > 65535)) {
                    g_snprintf(range, sizeof range, "ldlat takes %u..%u cycles", 3u, 65535u);
                    why = range;
                }
            }
            if (why) {
                g_string_printf(msg, "%s: invalid value '%s' on %s: %s", str, a, pmu->name, why);
                g_free(key);
                goto done_d;
            }
            if (given[mod] && val[mod] != n && r == X86_ERR_ATTR_SET) {
                g_string_printf(msg, "%s: conflicting attributes on %s: %s is given twice, as "
                                "%" PRIu64 " and %" PRIu64, str, pmu->name, key, val[mod], n);
                g_free(key);
                goto done_d;
            }
            given[mod] = TRUE;
            val[mod] = n;
        }
        g_free(key);
    }
    /* the attributes are all known: the combination is what failed */
    if (r == X86_ERR_ATTR && (pmu->flags & X86_PF_ECMASK) && given[X86_MOD_E] && val[X86_MOD_E] &&
        (!given[X86_MOD_C] || val[X86_MOD_C] == 0)) {
        g_string_printf(msg, "%s: invalid attribute 'e=1' on %s: edge detect counts the cycles "
                        "where the counter-mask comparison turns true, so it needs c>=1 "
                        "(e.g. :e=1:c=1)", str, pmu->name);
    } else if (r == X86_ERR_ATTR && given[X86_MOD_LDLAT]) {
        const char *llum = NULL;
        for (int j = 0; j < d->nu && !llum; j++)
            if (x86_um(pmu, ev, d->umask[j])->flags & X86_UF_LDLAT)
                llum = x86_um(pmu, ev, d->umask[j])->name;
        if (llum)
            g_string_printf(msg, "%s: invalid attribute 'ldlat' on %s: ldlat needs the "
                            "load-latency unit mask (%s:%s)", str, pmu->name, e->name, llum);
        else
            g_string_printf(msg, "%s: invalid attribute 'ldlat' on %s: %s has no load-latency "
                            "unit mask", str, pmu->name, e->name);
    } else if (r == X86_ERR_ATTR_SET) {
        const char *hw = NULL;
        for (int j = 0; j < d->nu && !hw; j++)
            if (umset[j] && x86_um(pmu, ev, d->umask[j])->modhw)
                hw = x86_um(pmu, ev, d->umask[j])->name;
        if (hw)
            g_string_printf(msg, "%s: conflicting attributes on %s: unit mask %s hard-wires a "
                            "modifier given here with another value", str, pmu->name, hw);
        else
            g_string_printf(msg, "%s: conflicting attributes on %s: an attribute is given twice "
                            "with different values", str, pmu->name);
    } else if (r == X86_ERR_FEATCOMB) {
        const char *a = NULL, *b = NULL;
        for (int i = 0; i < d->nu && !b; i++) {
            if (!umset[i])
                continue;
            const x86_umask_t *ui = x86_um(pmu, ev, d->umask[i]);
            for (int j = 0; j < d->nu && !b; j++) {
                const x86_umask_t *uj = x86_um(pmu, ev, d->umask[j]);
                if (j == i || !umset[j])
                    continue;
                if ((ui->grpid == uj->grpid && (ui->flags & X86_UF_NCOMBO)) ||
                    ((ui->flags & X86_UF_EXCL_GRP_GT) && uj->grpid > ui->grpid) ||
                    ((ui->flags & X86_UF_EXCL_GRP_BUT_0) && uj->grpid != 0 &&
                     uj->grpid != ui->grpid)) {
                    a = ui->name;
                    b = uj->name;
                }
            }
        }
        if (b)
            g_string_printf(msg, "%s: conflicting attributes on %s: unit masks %s and %s cannot "
                            "be combined", str, pmu->name, a, b);
        else
            g_string_printf(msg, "%s: conflicting attributes on %s: these unit masks cannot be "
                            "combined", str, pmu->name);
    } else if (r == X86_ERR_UMASK) {
        /* a group without a unit mask and without a default */
        int grp = -1;
        for (int g = 0; g < e->ngrp && grp < 0; g++) {
            int has = 0, dfl = 0, may_empty = 0;
            for (int j = 0; j < d->nu; j++) {
                const x86_umask_t *u = x86_um(pmu, ev, d->umask[j]);
                if (u->grpid != g)
                    continue;
                has |= umset[j];
                dfl |= !!(u->flags & X86_UF_DFL);
                may_empty |= !!(u->flags & X86_UF_GRP_DFL_NONE);
            }
            if (!has && !dfl && !may_empty)
                grp = g;
        }
        g_string_printf(msg, "%s: unit mask missing on %s: %s needs a unit mask", str, pmu->name,
                        e->name);
        if (grp >= 0) {
            GPtrArray *c = g_ptr_array_new();
            for (int j = 0; j < d->nu; j++)
                if (x86_um(pmu, ev, d->umask[j])->grpid == grp)
                    g_ptr_array_add(c, (gpointer)x86_um(pmu, ev, d->umask[j])->name);
            g_string_append(msg, " (one of ");
            append_names(msg, (const char *const *)c->pdata, c->len, 8);
            g_string_append(msg, ")");
            g_ptr_array_free(c, TRUE);
        }
    } else {
        g_string_printf(msg, "%s: %s on %s", str, pmusim_x86_strerror(r), pmu->name);
    }
done_d:
    g_free(d);
done:
    g_strfreev(tok);
    return g_string_free(msg, FALSE);
}

static void set_encode_error(GError **error, const x86_pmu_t *pmu, const char *str, int r)
{
    char *m = x86_diagnose(pmu, str, r);
    g_set_error_literal(error, PMUSIM_ENCODER_ERROR, r, m);
    g_free(m);
}

static int popcount64(uint64_t v)
{
    return __builtin_popcountll(v);
}

static int cmp_weight(const void *a, const void *b)
{
    const sched_ev_t *x = *(const sched_ev_t *const *)a, *y = *(const sched_ev_t *const *)b;
    int wx = popcount64(x->genmask) + (x->fixed != FIXED_NONE);
    int wy = popcount64(y->genmask) + (y->fixed != FIXED_NONE);
    if (wx != wy)
        return wx - wy;
    return x->order - y->order;
}

/* The general-purpose counters Intel's event lists allow for the event
 * select and umask of `evtsel` (counter-restrictions.csv), all of them when
 * the pair has no restriction.  The table's own counter mask (libpfm-4's)
 * already holds most restrictions; LATENCY_ABOVE_THRESHOLD is the one it
 * lacks (docs/trace-events-x86.md, "Counter restrictions"). */
static uint32_t restrict_mask(const x86_pmu_t *pmu, uint64_t evtsel)
{
    /* the table is sorted by (code, umask) */
    unsigned key = (unsigned)(evtsel & 0xff) << 8 | (unsigned)((evtsel >> 8) & 0xff);
    int lo = 0, hi = pmu->n_restricts;
    while (lo < hi) {
        int mid = lo + (hi - lo) / 2;
        const x86_restrict_t *r = &pmu->restricts[mid];
        unsigned rkey = (unsigned)r->code << 8 | r->umask;
        if (rkey == key)
            return r->counters;
        if (rkey < key)
            lo = mid + 1;
        else
            hi = mid;
    }
    return UINT32_MAX;
}

/* Places ord[i..n-1] on the counters left free by gen_used and fixed_used,
 * depth first: each event tries its fixed counter, then its generic counters
 * from the lowest.  With ord sorted by weight (most constrained first, as
 * Linux schedules) the first complete placement is the greedy one whenever
 * the greedy walk succeeds, so programs that fitted before keep their
 * counters; backtracking finds a placement whenever one exists.  At most
 * num_cntrs + num_fixed_cntrs events (7 on Westmere, 5 on Knights Mill) get
 * here, so the search stays small.  FALSE when there is no placement. */
static gboolean sched_place(sched_ev_t **ord, size_t n, size_t i, uint32_t gen_used,
                            unsigned fixed_used)
{
    if (i == n)
        return TRUE;
    sched_ev_t *s = ord[i];
    if (s->fixed != FIXED_NONE && !(fixed_used & (1u << s->fixed))) {
        s->counter = 32 + s->fixed;
        if (sched_place(ord, n, i + 1, gen_used, fixed_used | (1u << s->fixed)))
            return TRUE;
    }
    for (uint32_t free_ok = s->genmask & ~gen_used; free_ok; free_ok &= free_ok - 1) {
        int c = __builtin_ctz(free_ok);
        s->counter = c;
        if (sched_place(ord, n, i + 1, gen_used | (1u << c), fixed_used))
            return TRUE;
    }
    s->counter = -1;
    return FALSE;
}

/* Which offcore MSR an encoded OFFCORE_RESPONSE event uses, and how to
 * rewrite it for the other one: wsm selects by event code (0xb7/0xbb),
 * knl/knm by umask (0x01/0x02). */
static int offcore_which(const x86_pmu_t *pmu, uint64_t evtsel)
{
    if (pmu->raw_umask_bits_offcore <= 16)
        return (evtsel & 0xff) == 0xbb;
    return ((evtsel >> 8) & 0xff) == 0x02;
}

static uint64_t offcore_move(const x86_pmu_t *pmu, uint64_t evtsel, int to)
{
    if (pmu->raw_umask_bits_offcore <= 16)
        return (evtsel & ~0xffull) | (to ? 0xbb : 0xb7);
    return (evtsel & ~0xff00ull) | ((uint64_t)(to ? 0x02 : 0x01) << 8);
}

static gboolean parse_opts(const pmusim_encode_opt_t *opts, size_t nopts, uint32_t *thread,
                           GError **error)
{
    *thread = PMUSIM_THREAD_ALL;
    for (size_t i = 0; i < nopts; i++) {
        const char *k = opts[i].key, *v = opts[i].value;
        if (k && strcmp(k, "thread") == 0 && v) {
            char *end = NULL;
            guint64 n = g_ascii_strtoull(v, &end, 0);
            if (!*v || *end || n >= PMUSIM_THREAD_ALL) {
                g_set_error(error, PMUSIM_ENCODER_ERROR, X86_ERR_INVAL,
                          "option thread=%s: expected a thread number below %u", v,
                          PMUSIM_THREAD_ALL);
                return FALSE;
            }
            *thread = (uint32_t)n;
            continue;
        }
        g_set_error(error, PMUSIM_ENCODER_ERROR, X86_ERR_INVAL, "unknown option '%s' (expected thread=N)", k ? k : "");
        return FALSE;
    }
    return TRUE;
}

static gboolean x86_encode_events(const x86_pmu_t *pmu, const char *const *events, size_t nevents,
                                  const pmusim_encode_opt_t *opts, size_t nopts, unsigned dfl_plm,
                                  GArray *regs, GError **error)
{
    uint32_t thread;
    if (!parse_opts(opts, nopts, &thread, error))
        return FALSE;
    if (dfl_plm & ~(unsigned)X86_PLM_ALL) {
        g_set_error(error, PMUSIM_ENCODER_ERROR, X86_ERR_INVAL, "default privilege mask 0x%x has unknown bits", dfl_plm);
        return FALSE;
    }
    if (nevents == 0) {
        g_set_error(error, PMUSIM_ENCODER_ERROR, X86_ERR_INVAL, "no event given");
        return FALSE;
    }
    if (nevents > X86_MAX_EVENTS) {
        g_set_error(error, PMUSIM_ENCODER_ERROR, X86_ERR_TOOMANY, "%zu events given, at most %d can be programmed",
                  nevents, pmu->num_cntrs + pmu->num_fixed_cntrs);
        return FALSE;
    }
    sched_ev_t *ev = g_new0(sched_ev_t, nevents);
    sched_ev_t **ord = g_new0(sched_ev_t *, nevents);
    gboolean ok = FALSE;
    uint64_t offcore_val[2] = { 0, 0 };
    int offcore_used[2] = { 0, 0 };
    unsigned ldlat = 0;

    for (size_t i = 0; i < nevents; i++) {
        sched_ev_t *s = &ev[i];
        int r = pmusim_x86_encode_str(pmu, events[i], (int)dfl_plm, &s->d);
        if (r) {
            set_encode_error(error, pmu, events[i], r);
            goto out;
        }
        const x86_event_t *e = &pmu->table->events[s->d.event];
        g_snprintf(s->label, sizeof s->label, "%s::%s", pmu->name, s->d.fstr);
        s->evtsel = s->d.codes[0];
        s->order = (int)i;
        s->counter = -1;
        s->fixed = FIXED_NONE;
        for (int k = 0; k < pmu->num_fixed_cntrs && k < 3; k++)
            if ((e->cntmsk >> (32 + k)) & 1)
                if ((s->evtsel & FIXED_MATCH_MASK) == fixed_codes[k])
                    s->fixed = k;
        s->genmask = (e->flags & X86_EF_FIXED) ? 0
                     : (uint32_t)(e->cntmsk & ((1ull << pmu->num_cntrs) - 1)) &
                           restrict_mask(pmu, s->evtsel);
        /* knl/knm: AnyThread exists on the fixed counters only (knm seed) */
        if ((pmu->flags & X86_PF_ANY_FIXED_ONLY) && (s->evtsel & X86_SEL_ANY)) {
            s->genmask = 0;
            s->anyfixed = 1;
        }
        if (!s->genmask && s->fixed == FIXED_NONE) {
            g_set_error(error, PMUSIM_ENCODER_ERROR, X86_ERR_FEATCOMB,
                      "%s: no counter on %s can count this configuration (event select 0x%" PRIx64
                      ")", events[i], pmu->name, s->evtsel);
            goto out;
        }
        s->offcore = -1;
        if (e->flags & X86_EF_OFFCORE) {
            int w = offcore_which(pmu, s->evtsel);
            uint64_t val = s->d.codes[1];
            if (offcore_used[w] && offcore_val[w] != val) {
                int alt = !w;
                if (offcore_used[alt] && offcore_val[alt] != val) {
                    const char *h0 = "?", *h1 = "?";
                    for (size_t k = 0; k < i; k++) {
                        if (ev[k].offcore == 0 && !strcmp(h0, "?"))
                            h0 = events[k];
                        if (ev[k].offcore == 1 && !strcmp(h1, "?"))
                            h1 = events[k];
                    }
                    g_set_error(error, PMUSIM_ENCODER_ERROR, X86_ERR_FEATCOMB,
                              "%s, %s, %s: incompatible events on %s: two MSR_OFFCORE_RSP "
                              "registers, three response values (0x%" PRIx64 ", 0x%" PRIx64
                              ", 0x%" PRIx64 ")", h0, h1, events[i], pmu->name, offcore_val[0],
                              offcore_val[1], val);
                    goto out;
                }
                w = alt;
                s->evtsel = offcore_move(pmu, s->evtsel, w);
            }
            if (val & ~offcore_valid(pmu, w)) {
                g_set_error(error, PMUSIM_ENCODER_ERROR, X86_ERR_FEATCOMB,
                          "%s: value 0x%" PRIx64 " has bits that MSR_OFFCORE_RSP_%d does not"
                          " implement (valid 0x%" PRIx64 ")",
                          s->label, val, w, offcore_valid(pmu, w));
                goto out;
            }
            offcore_used[w] = 1;
            offcore_val[w] = val;
            s->offcore = w;
        }
        if (s->d.ldlat) {
            if (ldlat && ldlat != s->d.ldlat) {
                const char *holder = "?";
                for (size_t k = 0; k < i; k++)
                    if (ev[k].d.ldlat) {
                        holder = events[k];
                        break;
                    }
                g_set_error(error, PMUSIM_ENCODER_ERROR, X86_ERR_FEATCOMB,
                          "%s, %s: incompatible events on %s: one load-latency threshold "
                          "(MSR_PEBS_LD_LAT_THRESHOLD) for all, asked %u and %u",
                          holder, events[i], pmu->name, ldlat, s->d.ldlat);
                goto out;
            }
            ldlat = s->d.ldlat;
        }
        ord[i] = s;
    }

    qsort(ord, nevents, sizeof ord[0], cmp_weight);
    uint32_t gen_used = 0;
    unsigned fixed_used = 0;
    gboolean placed = nevents <= (size_t)(pmu->num_cntrs + pmu->num_fixed_cntrs) &&
                      sched_place(ord, nevents, 0, 0, 0);
    if (placed) {
        for (size_t i = 0; i < nevents; i++) {
            if (ev[i].counter >= 32)
                fixed_used |= 1u << (ev[i].counter - 32);
            else
                gen_used |= 1u << ev[i].counter;
        }
    }
    /* No placement: the greedy walk stops at an event whose counters are
     * taken and names the events holding them. */
    for (size_t i = 0; i < nevents && !placed; i++) {
        sched_ev_t *s = ord[i];
        if (s->fixed != FIXED_NONE && !(fixed_used & (1u << s->fixed))) {
            fixed_used |= 1u << s->fixed;
            s->counter = 32 + s->fixed;
            continue;
        }
        uint32_t free_ok = s->genmask & ~gen_used;
        if (!free_ok && s->anyfixed) {
            const char *holder = "another event";
            for (size_t k = 0; k < i; k++)
                if (ord[k]->counter == 32 + s->fixed)
                    holder = events[ord[k]->order];
            g_set_error(error, PMUSIM_ENCODER_ERROR, X86_ERR_TOOMANY,
                      "%s: no free counter on %s: t (AnyThread) counts on fixed counter %d only, "
                      "taken by %s", events[s->order], pmu->name, s->fixed, holder);
            goto out;
        }
        if (!free_ok) {
            /* name the events holding the counters this one could use */
            GString *held = g_string_new(NULL);
            for (size_t k = 0; k < i; k++) {
                const sched_ev_t *o = ord[k];
                gboolean blocks = (o->counter >= 0 && o->counter < 32 &&
                                   ((s->genmask >> o->counter) & 1)) ||
                                  (o->counter >= 32 && o->counter - 32 == s->fixed);
                if (blocks)
                    g_string_append_printf(held, "%s%s (%s%d)", held->len ? ", " : "",
                                           events[o->order],
                                           o->counter >= 32 ? "FIXED_CTR" : "PMC",
                                           o->counter >= 32 ? o->counter - 32 : o->counter);
            }
            g_set_error(error, PMUSIM_ENCODER_ERROR, X86_ERR_TOOMANY,
                      "%s: no free counter on %s: the counters it can use are taken by %s "
                      "(%d generic + %d fixed counters, %zu events)", events[s->order],
                      pmu->name, held->len ? held->str : "other events", pmu->num_cntrs,
                      pmu->num_fixed_cntrs, nevents);
            g_string_free(held, TRUE);
            goto out;
        }
        int c = __builtin_ctz(free_ok);
        gen_used |= 1u << c;
        s->counter = c;
    }

    /* extra registers first: they must hold their value before counting */
    for (int w = 0; w < 2; w++) {
        if (!offcore_used[w])
            continue;
        for (size_t i = 0; i < nevents; i++)
            if (ev[i].offcore == w) {
                regs_add(regs, w ? MSR_OFFCORE_RSP1 : MSR_OFFCORE_RSP0, offcore_val[w], thread,
                         ev[i].label);
                break;
            }
    }
    uint64_t pebs = 0;
    if (ldlat) {
        for (size_t i = 0; i < nevents; i++)
            if (ev[i].d.ldlat) {
                regs_add(regs, MSR_PEBS_LD_LAT, ldlat, thread, ev[i].label);
                break;
            }
    }
    for (int c = 0; c < pmu->num_cntrs; c++) {
        for (size_t i = 0; i < nevents; i++) {
            if (ev[i].counter != c)
                continue;
            regs_add(regs, MSR_PERFEVTSEL0 + (uint32_t)c, ev[i].evtsel, thread, ev[i].label);
            regs_add(regs, MSR_PMC0 + (uint32_t)c, 0, thread, ev[i].label);
            if (ev[i].d.ldlat) /* PEBS_EN_PMCc and LL_EN_PMCc (x86-pmu.md 6.1, 7) */
                pebs |= (1ull << c) | (1ull << (32 + c));
        }
    }
    /* IA32_FIXED_CTR_CTRL is one register for the three fixed counters: like
     * the perf_event kernel we read-modify-write it once per fixed event, so
     * each write carries the label of the counter it adds (the models name
     * fixed counters by the write that enabled their field). */
    uint64_t fixed_ctrl = 0;
    for (int k = 0; k < 3; k++) {
        for (size_t i = 0; i < nevents; i++) {
            if (ev[i].counter != 32 + k)
                continue;
            uint64_t sel = ev[i].evtsel;
            /* 4-bit block per counter: EN (1 ring 0, 2 ring > 0), AnyThread, PMI */
            uint64_t blk = ((sel & X86_SEL_OS) ? 1u : 0u) | ((sel & X86_SEL_USR) ? 2u : 0u) |
                           ((sel & X86_SEL_ANY) ? 4u : 0u) | ((sel & X86_SEL_INT) ? 8u : 0u);
            fixed_ctrl |= blk << (4 * k);
            regs_add(regs, MSR_FIXED_CTR0 + (uint32_t)k, 0, thread, ev[i].label);
            regs_add(regs, MSR_FIXED_CTR_CTRL, fixed_ctrl, thread, ev[i].label);
        }
    }
    if (pebs)
        regs_add(regs, MSR_PEBS_ENABLE, pebs, thread, "PEBS_EN + LL_EN (load latency)");
    regs_add(regs, MSR_PERF_GLOBAL_CTRL, (uint64_t)gen_used | ((uint64_t)fixed_used << 32), thread,
             "enable the programmed counters");
    ok = TRUE;
out:
    g_free(ord);
    g_free(ev);
    return ok;
}

/* ---------------------------------------------------------------- listing */

static void print_counters(FILE *fp, const x86_pmu_t *pmu, const x86_event_t *e)
{
    uint64_t m = e->cntmsk;
    fprintf(fp, "[");
    const char *sep = "";
    for (int i = 0; i < pmu->num_cntrs; i++)
        if ((m >> i) & 1) {
            fprintf(fp, "%sPMC%d", sep, i);
            sep = " ";
        }
    for (int k = 0; k < 3; k++)
        if ((m >> (32 + k)) & 1) {
            fprintf(fp, "%sFIXED_CTR%d", sep, k);
            sep = " ";
        }
    fprintf(fp, "] (table mask 0x%" PRIx64 ")", m);
}

static void x86_list(const x86_pmu_t *pmu, FILE *fp)
{
    const x86_table_t *t = pmu->table;
    for (int i = 0; i < t->nevents; i++) {
        const x86_event_t *e = &t->events[i];
        fprintf(fp, "%s::%s", pmu->name, e->name);
        if (e->equiv)
            fprintf(fp, " (alias of %s)", e->equiv);
        fprintf(fp, "  %s\n", e->desc);
    }
}

static const char *umask_flags_str(const x86_umask_t *um, char *buf, size_t n)
{
    buf[0] = '\0';
    static const struct { unsigned f; const char *s; } names[] = {
        { X86_UF_DFL, "[default] " }, { X86_UF_PEBS, "[precise] " },
        { X86_UF_NCOMBO, "[ncombo] " }, { X86_UF_LDLAT, "[ldlat] " },
        { X86_UF_EXCL_GRP_GT, "[excl-higher-groups] " },
        { X86_UF_EXCL_GRP_BUT_0, "[excl-groups-but-0] " },
        { X86_UF_GRP_DFL_NONE, "[group-may-be-empty] " },
    };
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (um->flags & names[i].f)
            g_strlcat(buf, names[i].s, n);
    return buf;
}

static gboolean x86_show(const x86_pmu_t *pmu, const char *name, FILE *fp, GError **error)
{
    const char *nm = name ? name : "";
    const char *sep = strstr(nm, "::");
    if (sep) {
        char *pfx = g_strndup(nm, (gsize)(sep - nm));
        const char *canon = pmusim_encoder_canonical_name(pfx);
        g_free(pfx);
        if (!canon || strcmp(canon, pmu->name) != 0) {
            set_encode_error(error, pmu, nm, X86_ERR_NOTFOUND);
            return FALSE;
        }
        nm = sep + 2;
    }
    int ev = pmusim_x86_find_event(pmu, nm);
    if (ev < 0) {
        set_encode_error(error, pmu, nm, X86_ERR_NOTFOUND);
        return FALSE;
    }
    const x86_event_t *e = &pmu->table->events[ev];
    x86_desc_t d;
    pmusim_x86_desc_build_pattrs(&d, pmu, ev, X86_OS_NONE);
    fprintf(fp, "#-----------------------------\n");
    fprintf(fp, "IDX      : %d\n", (pmu->pfm_id << 21) | ev);
    fprintf(fp, "PMU name : %s (%s)\n", pmu->name, pmu->desc);
    fprintf(fp, "Name     : %s\n", e->name);
    fprintf(fp, "Equiv    : %s\n", e->equiv ? e->equiv : "None");
    fprintf(fp, "Flags    : %s%s%s\n", (e->flags & X86_EF_PEBS) ? "[precise] " : "",
            (e->flags & X86_EF_OFFCORE) ? "[offcore: second code = MSR_OFFCORE_RSP value] " : "",
            (e->flags & X86_EF_FIXED) ? "[fixed counter only] " : "");
    fprintf(fp, "Desc     : %s\n", e->desc);
    fprintf(fp, "Code     : 0x%x\n", e->code);
    fprintf(fp, "Counters : ");
    print_counters(fp, pmu, e);
    fprintf(fp, "\n");
    for (int g = 0; g < e->ngrp; g++) {
        const char *dfl = NULL;
        int may_be_empty = 0;
        for (int j = 0; j < d.nu; j++) {
            const x86_umask_t *um = x86_um(pmu, ev, d.umask[j]);
            if (um->grpid != g)
                continue;
            if (um->flags & X86_UF_DFL)
                dfl = um->name;
            if (um->flags & X86_UF_GRP_DFL_NONE)
                may_be_empty = 1;
        }
        if (may_be_empty)
            fprintf(fp, "Group-%d  : may stay empty\n", g);
        else if (dfl)
            fprintf(fp, "Group-%d  : default %s\n", g, dfl);
        else
            fprintf(fp, "Group-%d  : a umask must be given\n", g);
    }
    for (int j = 0; j < d.nu; j++) {
        const x86_umask_t *um = x86_um(pmu, ev, d.umask[j]);
        char fl[160];
        uint64_t code = um->ucode >> 8;
        fprintf(fp, "Umask-%02d : 0x%02" PRIx64 " : grp %d : [%s] : %s", j, code, um->grpid,
                um->name, umask_flags_str(um, fl, sizeof fl));
        if (um->equiv)
            fprintf(fp, "(= %s) ", um->equiv);
        /* Intel's counter restriction, where it is narrower than the table's */
        uint32_t gen = (uint32_t)(e->cntmsk & ((1ull << pmu->num_cntrs) - 1));
        uint32_t only = gen & restrict_mask(pmu, (e->code & 0xffu) | (code << 8));
        if (only != gen) {
            fprintf(fp, "[counts on");
            for (int i = 0; i < pmu->num_cntrs; i++)
                if ((only >> i) & 1)
                    fprintf(fp, " PMC%d", i);
            fprintf(fp, " only, Intel's data] ");
        }
        if (um->modhw)
            fprintf(fp, "(hard-wired modifiers) ");
        fprintf(fp, "%s\n", um->desc);
    }
    for (int j = 0; j < d.nmods; j++) {
        x86_mod_t m = (x86_mod_t)d.mod[j];
        fprintf(fp, "Modif-%02d : 0x%02x : [%s] : %s (%s)\n", j, (unsigned)m, pmusim_x86_mod_names[m],
                pmusim_x86_mod_descs[m], pmusim_x86_mod_is_bool(m) ? "boolean" : "integer");
    }
    return TRUE;
}

/* perf's own spelling of the same configuration (cpu PMU format names). */
static void perf_string(const x86_desc_t *d, char *buf, size_t n)
{
    const x86_event_t *e = &d->pmu->table->events[d->event];
    uint64_t c = d->codes[0];
    g_snprintf(buf, n, "cpu/event=0x%" PRIx64 ",umask=0x%" PRIx64, c & 0xff, (c >> 8) & 0xff);
    char tmp[64];
    if (c & X86_SEL_EDGE)
        g_strlcat(buf, ",edge=1", n);
    if (c & X86_SEL_INV)
        g_strlcat(buf, ",inv=1", n);
    if (c & X86_SEL_ANY)
        g_strlcat(buf, ",any=1", n);
    if ((c >> X86_SEL_CMASK_SHIFT) & 0xff) {
        g_snprintf(tmp, sizeof tmp, ",cmask=0x%" PRIx64, (c >> X86_SEL_CMASK_SHIFT) & 0xff);
        g_strlcat(buf, tmp, n);
    }
    if (d->count > 1 && (e->flags & X86_EF_OFFCORE)) {
        g_snprintf(tmp, sizeof tmp, ",offcore_rsp=0x%" PRIx64, d->codes[1]);
        g_strlcat(buf, tmp, n);
    } else if (d->count > 1) {
        g_snprintf(tmp, sizeof tmp, ",ldlat=%" PRIu64, d->codes[1]);
        g_strlcat(buf, tmp, n);
    }
    g_strlcat(buf, "/", n);
    int usr = !!(c & X86_SEL_USR), os = !!(c & X86_SEL_OS);
    if (usr && !os)
        g_strlcat(buf, "u", n);
    else if (os && !usr)
        g_strlcat(buf, "k", n);
    if (d->ldlat)
        g_strlcat(buf, "pp", n); /* load latency needs PEBS */
}

static void regs_print(const GArray *regs, FILE *fp)
{
    for (guint i = 0; i < regs->len; i++) {
        const pmusim_regwrite_t *w = &g_array_index(regs, pmusim_regwrite_t, i);
        fprintf(fp, "msr 0x%" PRIx32 " 0x%" PRIx64, w->num, w->value);
        if (w->thread != PMUSIM_THREAD_ALL)
            fprintf(fp, " @%" PRIu32, w->thread);
        if (w->label[0])
            fprintf(fp, "  # %s", w->label);
        fprintf(fp, "\n");
    }
}

static gboolean x86_explain(const x86_pmu_t *pmu, const char *event, unsigned dfl_plm, FILE *fp,
                            GError **error)
{
    x86_desc_t d;
    int r = pmusim_x86_encode_str(pmu, event, (int)dfl_plm, &d);
    if (r) {
        set_encode_error(error, pmu, event, r);
        return FALSE;
    }
    fprintf(fp, "Requested Event: %s\n", event);
    fprintf(fp, "Actual    Event: %s::%s\n", pmu->name, d.fstr);
    fprintf(fp, "PMU            : %s\n", pmu->desc);
    fprintf(fp, "IDX            : %d\n", (pmu->pfm_id << 21) | d.event);
    fprintf(fp, "Codes          :");
    for (int i = 0; i < d.count; i++)
        fprintf(fp, " 0x%" PRIx64, d.codes[i]);
    fprintf(fp, "\n");
    char perf[256];
    perf_string(&d, perf, sizeof perf);
    fprintf(fp, "perf           : %s\n", perf);
    GArray *regs = g_array_new(FALSE, TRUE, sizeof(pmusim_regwrite_t));
    const char *one[1] = { event };
    if (!x86_encode_events(pmu, one, 1, NULL, 0, dfl_plm, regs, error)) {
        g_array_free(regs, TRUE);
        return FALSE;
    }
    fprintf(fp, "MSR writes     :\n");
    regs_print(regs, fp);
    g_array_free(regs, TRUE);
    return TRUE;
}

static gboolean x86_event_code(const x86_pmu_t *pmu, size_t idx, const char **name,
                               uint32_t *code, uint32_t *umask)
{
    if (idx >= pmu->table->nevents)
        return FALSE;
    const x86_event_t *e = &pmu->table->events[idx];
    if (name)
        *name = e->name;
    if (code)
        *code = e->code & 0xff;
    if (umask)
        *umask = (e->code >> 8) & 0xff;
    return TRUE;
}

static gboolean x86_event_umask(const x86_pmu_t *pmu, size_t idx, size_t j, const char **name,
                                uint32_t *umask)
{
    if (idx >= pmu->table->nevents)
        return FALSE;
    const x86_event_t *e = &pmu->table->events[idx];
    size_t k = 0;
    for (size_t u = 0; u < e->numasks; u++) {
        const x86_umask_t *m = &pmu->table->umasks[e->first_umask + u];
        if (m->models && !(m->models & pmu->model_bit))
            continue; /* another model's unit mask */
        if (k++ == j) {
            if (name)
                *name = m->name;
            /* the unit mask and, above it, its modifier bits; an
             * OFFCORE_RESPONSE unit mask's bits go to MSR_OFFCORE_RSP_x,
             * none to the event select (its umask is the event's own) */
            if (umask)
                *umask = (e->flags & X86_EF_OFFCORE) ? 0u
                                                     : (uint32_t)((m->ucode >> 8) & 0xffffff);
            return TRUE;
        }
    }
    return FALSE;
}

static const char *x86_event_desc(const x86_pmu_t *pmu, size_t idx)
{
    return idx < pmu->table->nevents ? pmu->table->events[idx].desc : NULL;
}

static const char *const x86_option_help[] = {
    "thread=N  program only hardware thread N (default: every thread)",
    NULL,
};

/* One set of thin wrappers per PMU: the descriptor table is data. */
#define X86_NATIVE_PMU(id)                                                                  \
    static const x86_pmu_t *pmu_##id(void) { return pmusim_x86_pmu_by_name(#id); }                     \
    static gboolean enc_##id(const char *const *e, size_t n, const pmusim_encode_opt_t *o,       \
                             size_t no, unsigned plm, GArray *r, GError **err)                   \
    {                                                                                            \
        return x86_encode_events(pmu_##id(), e, n, o, no, plm, r, err);                          \
    }                                                                                            \
    static void list_##id(FILE *fp) { x86_list(pmu_##id(), fp); }                               \
    static gboolean show_##id(const char *nm, FILE *fp, GError **err)                           \
    {                                                                                            \
        return x86_show(pmu_##id(), nm, fp, err);                                                \
    }                                                                                            \
    static size_t count_##id(void) { return pmu_##id()->table->nevents; }                       \
    static gboolean code_##id(size_t i, const char **nm, uint32_t *c, uint32_t *u)              \
    {                                                                                            \
        return x86_event_code(pmu_##id(), i, nm, c, u);                                          \
    }                                                                                            \
    static gboolean umask_##id(size_t i, size_t j, const char **nm, uint32_t *u)                \
    {                                                                                            \
        return x86_event_umask(pmu_##id(), i, j, nm, u);                                         \
    }                                                                                            \
    static gboolean explain_##id(const char *ev, unsigned plm, FILE *fp, GError **err)          \
    {                                                                                            \
        return x86_explain(pmu_##id(), ev, plm, fp, err);                                        \
    }                                                                                            \
    static const char *desc_##id(size_t i) { return x86_event_desc(pmu_##id(), i); }

X86_NATIVE_PMU(wsm)
X86_NATIVE_PMU(wsm_dp)
X86_NATIVE_PMU(knm)

const pmusim_encoder_pmu_t pmusim_encoder_wsm = {
    .name = "wsm", .desc = "Intel Westmere (model 37): 4 generic + 3 fixed counters",
    .isa = PMUSIM_ISA_X86_64, .encode = enc_wsm, .list_events = list_wsm, .show_event = show_wsm,
    .option_help = x86_option_help, .event_count = count_wsm, .event_code = code_wsm, .event_umask = umask_wsm,
    .explain = explain_wsm, .event_desc = desc_wsm,
};
const pmusim_encoder_pmu_t pmusim_encoder_wsm_dp = {
    .name = "wsm_dp", .desc = "Intel Westmere DP (models 44, 47): 4 generic + 3 fixed counters",
    .isa = PMUSIM_ISA_X86_64, .encode = enc_wsm_dp, .list_events = list_wsm_dp,
    .show_event = show_wsm_dp, .option_help = x86_option_help, .event_count = count_wsm_dp,
    .event_code = code_wsm_dp, .event_umask = umask_wsm_dp, .explain = explain_wsm_dp, .event_desc = desc_wsm_dp,
};
const pmusim_encoder_pmu_t pmusim_encoder_knm = {
    .name = "knm", .desc = "Intel Knights Mill (model 133): 2 generic + 3 fixed counters",
    .isa = PMUSIM_ISA_X86_64, .encode = enc_knm, .list_events = list_knm, .show_event = show_knm,
    .option_help = x86_option_help, .event_count = count_knm, .event_code = code_knm, .event_umask = umask_knm,
    .explain = explain_knm, .event_desc = desc_knm,
};
