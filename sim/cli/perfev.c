/* perf's generic and raw event names, per PMU (docs/STAT.md "Event names").
 *
 * Generic events follow perf's list (perf-list(1): "cycles", "instructions",
 * ..., the hardware-cache names "L1-dcache-loads" ...).  Which native event
 * stands behind each one is a fact per PMU: for Westmere the choices are the
 * ones the Linux kernel makes for that core (its Westmere event map and
 * hardware-cache table, read for facts), for Knights Mill its Knights Landing
 * tables where the event exists in our Knights Mill data, for Itanium (which
 * perf never supported) the closest event of the Itanium 2 / Montecito
 * reference manuals.  docs/STAT.md lists every mapping with its reason. */
#include "perfev.h"
#include "pmusim/encoder.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    const char *generic;  /* perf's name */
    const char *ita2, *mont, *wsm, *knm; /* native event string, NULL: no match */
} generic_map_t;

/* wsm_dp uses the wsm column (same core event list for these). */
static const generic_map_t generic_map[] = {
    {"cycles", "CPU_CYCLES", "CPU_OP_CYCLES_ALL", "UNHALTED_CORE_CYCLES", "UNHALTED_CORE_CYCLES"},
    {"instructions", "IA64_INST_RETIRED", "IA64_INST_RETIRED", "INSTRUCTION_RETIRED",
     "INSTRUCTION_RETIRED"},
    {"branches", "BR_MISPRED_DETAIL_ALL_ALL_PRED", "BR_MISPRED_DETAIL_ALL_ALL_PRED",
     "BR_INST_RETIRED:ALL_BRANCHES", "BR_INST_RETIRED:ANY"},
    /* Itanium: a mispredicted direction; wrong-target mispredicts are a
     * second unit mask that one counter cannot add (docs/STAT.md). */
    {"branch-misses", "BR_MISPRED_DETAIL_ALL_WRONG_PATH", "BR_MISPRED_DETAIL_ALL_WRONG_PATH",
     "BR_MISP_RETIRED:ALL_BRANCHES", "BR_MISP_RETIRED:ANY"},
    {"cache-references", "L3_REFERENCES", "L3_REFERENCES", "LLC_REFERENCES", "LLC_REFERENCES"},
    {"cache-misses", "L3_MISSES", "L3_MISSES", "LLC_MISSES", "LLC_MISSES"},
    {"ref-cycles", NULL, NULL, "UNHALTED_REFERENCE_CYCLES", "UNHALTED_REFERENCE_CYCLES"},
    {"L1-dcache-loads", "L1D_READS_SET0", "L1D_READS_SET0", "MEM_INST_RETIRED:LOADS",
     "MEM_UOPS_RETIRED:ALL_LOADS"},
    {"L1-dcache-load-misses", "L1D_READ_MISSES_ALL", "L1D_READ_MISSES_ALL", "L1D:REPL",
     "MEM_UOPS_RETIRED:L1_MISS_LOADS"},
    {"LLC-loads", "L3_READS_DATA_READ_ALL", "L3_READS_DATA_READ_ALL",
     "OFFCORE_RESPONSE_0:DMND_DATA_RD:ANY_RESPONSE", "MEM_UOPS_RETIRED:L1_MISS_LOADS"},
    {"LLC-load-misses", "L3_READS_DATA_READ_MISS", "L3_READS_DATA_READ_MISS",
     "OFFCORE_RESPONSE_1:DMND_DATA_RD:ANY_LLC_MISS", "MEM_UOPS_RETIRED:L2_MISS_LOADS"},
    {"dTLB-load-misses", "L2DTLB_MISSES", "L2DTLB_MISSES", "DTLB_LOAD_MISSES:ANY",
     "MEM_UOPS_RETIRED:DTLB_MISS_LOADS"},
    {"iTLB-load-misses", "ITLB_MISSES_FETCH_L2ITLB", "ITLB_MISSES_FETCH_L2ITLB", "ITLB_MISSES:ANY",
     "PAGE_WALKS:I_SIDE_WALKS"},
    {"stalled-cycles-frontend", "BACK_END_BUBBLE_FE", "BACK_END_BUBBLE_FE",
     "UOPS_ISSUED:STALL_CYCLES", "NO_ALLOC_CYCLES:NOT_DELIVERED"},
    {"stalled-cycles-backend", "BACK_END_BUBBLE_ALL", "BACK_END_BUBBLE_ALL",
     "UOPS_EXECUTED:PORT015_STALL_CYCLES", NULL},
};

/* perf's other spellings of the same events (perf-list(1)). */
static const struct {
    const char *alias, *name;
} generic_alias[] = {
    {"cpu-cycles", "cycles"},
    {"branch-instructions", "branches"},
    {"idle-cycles-frontend", "stalled-cycles-frontend"},
    {"idle-cycles-backend", "stalled-cycles-backend"},
};

static const char *canonical_generic(const char *name)
{
    for (size_t i = 0; i < G_N_ELEMENTS(generic_alias); i++)
        if (strcmp(name, generic_alias[i].alias) == 0)
            return generic_alias[i].name;
    return name;
}

static const generic_map_t *find_generic(const char *name)
{
    name = canonical_generic(name);
    for (size_t i = 0; i < G_N_ELEMENTS(generic_map); i++)
        if (strcmp(name, generic_map[i].generic) == 0)
            return &generic_map[i];
    return NULL;
}

static const char *native_for(const generic_map_t *g, const char *pmu)
{
    if (strcmp(pmu, "ita2") == 0)
        return g->ita2;
    if (strcmp(pmu, "mont") == 0)
        return g->mont;
    if (strcmp(pmu, "knm") == 0)
        return g->knm;
    return g->wsm; /* wsm, wsm_dp */
}

static gboolean is_ia64(const char *pmu)
{
    return strcmp(pmu, "ita2") == 0 || strcmp(pmu, "mont") == 0;
}

gboolean pmusim_perfev_is_generic(const char *name)
{
    return find_generic(name) != NULL;
}

char *pmusim_perfev_generic_list(const char *pmu)
{
    GString *s = g_string_new(NULL);
    for (size_t i = 0; i < G_N_ELEMENTS(generic_map); i++)
        if (native_for(&generic_map[i], pmu))
            g_string_append_printf(s, "%s%s", s->len ? ", " : "", generic_map[i].generic);
    return g_string_free(s, FALSE);
}

static gboolean fail(GError **error, const char *fmt, ...) G_GNUC_PRINTF(2, 3);
static gboolean fail(GError **error, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *msg = g_strdup_vprintf(fmt, ap);
    va_end(ap);
    g_set_error_literal(error, PMUSIM_ENCODER_ERROR, 1, msg);
    g_free(msg);
    return FALSE;
}

/* perf's event modifiers after ':' (perf-list(1) "EVENT MODIFIERS"): only u
 * and k change what a simulated counter counts; p/pp/ppp (precision), and
 * the rest are accepted only where they mean nothing here.  Appends the
 * encoder's privilege modifier to `out`. */
static gboolean apply_mods(const char *pmu, const char *event, const char *mods, GString *out,
                           GError **error)
{
    gboolean u = FALSE, k = FALSE;
    for (const char *m = mods; m && *m; m++) {
        switch (*m) {
        case 'u': u = TRUE; break;
        case 'k': k = TRUE; break;
        case 'p': break; /* precision: PEBS is chosen by the event, not the modifier */
        default:
            return fail(error, "%s: unknown perf modifier '%c' (pmusim knows u, k, p)", event,
                        *m);
        }
    }
    if (!u && !k)
        return TRUE;
    if (is_ia64(pmu))
        return fail(error, "%s: Itanium events take their privilege levels from --plm, "
                           "not from :u/:k", event);
    if (u && !k)
        g_string_append(out, ":u");
    else if (k && !u)
        g_string_append(out, ":k");
    else
        g_string_append(out, ":u:k");
    return TRUE;
}

/* The raw fields of a perf raw event (x86 IA32_PERFEVTSELx layout, SDM Vol.
 * 3B 18.2.1: event 7:0, umask 15:8, edge 18, any 21, inv 23, cmask 31:24). */
typedef struct {
    uint64_t event, umask, cmask, offcore;
    gboolean edge, inv, any, has_offcore;
} raw_fields_t;

static gboolean parse_num(const char *s, int base, uint64_t *v)
{
    if (!s || !*s || *s == '-' || *s == '+')
        return FALSE;
    char *end = NULL;
    errno = 0;
    guint64 x = g_ascii_strtoull(s, &end, base);
    if (errno == ERANGE || *end)
        return FALSE;
    *v = x;
    return TRUE;
}

static void raw_from_config(uint64_t cfg, raw_fields_t *f)
{
    f->event = cfg & 0xff;
    f->umask = (cfg >> 8) & 0xff;
    f->edge = (cfg >> 18) & 1;
    f->any = (cfg >> 21) & 1;
    f->inv = (cfg >> 23) & 1;
    f->cmask = (cfg >> 24) & 0xff;
}

/* "event=0xc0,umask=0x1,cmask=2,inv,edge,any,offcore_rsp=0xff01" */
static gboolean parse_cpu_terms(const char *event, const char *terms, raw_fields_t *f,
                                GError **error)
{
    gboolean have_event = FALSE;
    char **parts = g_strsplit(terms, ",", -1);
    gboolean ok = TRUE;
    for (char **p = parts; ok && *p; p++) {
        char *eq = strchr(*p, '=');
        char *key = eq ? g_strndup(*p, (gsize)(eq - *p)) : g_strdup(*p);
        const char *val = eq ? eq + 1 : NULL;
        uint64_t v = 1;
        if (val && !parse_num(val, 0, &v))
            ok = fail(error, "%s: '%s' needs a number, got '%s'", event, key, val);
        else if (strcmp(key, "event") == 0 && val)
            f->event = v, have_event = TRUE;
        else if (strcmp(key, "umask") == 0 && val)
            f->umask = v;
        else if (strcmp(key, "cmask") == 0 && val)
            f->cmask = v;
        else if (strcmp(key, "inv") == 0)
            f->inv = v != 0;
        else if (strcmp(key, "edge") == 0)
            f->edge = v != 0;
        else if (strcmp(key, "any") == 0)
            f->any = v != 0;
        else if (strcmp(key, "offcore_rsp") == 0 && val)
            f->offcore = v, f->has_offcore = TRUE;
        else
            ok = fail(error, "%s: unknown term '%s' (expected event=, umask=, cmask=, inv, "
                             "edge, any, offcore_rsp=)", event, *p);
        g_free(key);
    }
    g_strfreev(parts);
    if (ok && !have_event)
        ok = fail(error, "%s: the cpu/.../ form needs event=", event);
    if (ok && (f->event > 0xff || f->umask > 0xff || f->cmask > 0xff))
        ok = fail(error, "%s: event, umask and cmask are 8-bit fields", event);
    return ok;
}

/* An alias event ("BRANCH_INSTRUCTIONS_RETIRED" = BR_INST_RETIRED:ALL_BRANCHES)
 * carries a unit mask of its own, so a raw umask must not be added to it:
 * the encoder's event facts say "Equiv : None" for real events. */
static gboolean is_alias(const pmusim_encoder_pmu_t *enc, const char *name)
{
    if (!enc->show_event)
        return FALSE;
    char *buf = NULL;
    size_t len = 0;
    FILE *fp = open_memstream(&buf, &len);
    if (!fp)
        return FALSE;
    gboolean ok = enc->show_event(name, fp, NULL);
    fclose(fp);
    gboolean alias = ok && strstr(buf, "\nEquiv") && !strstr(buf, "Equiv    : None");
    free(buf);
    return alias;
}

/* The first event of the PMU's table with this code (and, on Itanium, this
 * unit mask: an Itanium event name fixes both). */
static const char *table_event(const pmusim_encoder_pmu_t *enc, gboolean need_umask,
                               uint64_t code, uint64_t umask)
{
    size_t n = enc->event_count ? enc->event_count() : 0;
    for (size_t i = 0; i < n; i++) {
        const char *name;
        uint32_t c, u;
        if (enc->event_code(i, &name, &c, &u) && c == code && (!need_umask || u == umask) &&
            !is_alias(enc, name))
            return name;
    }
    return NULL;
}

static char *translate_raw(const char *pmu, const char *event, const raw_fields_t *f,
                           const char *mods, GError **error)
{
    const pmusim_encoder_pmu_t *enc = pmusim_encoder_find(pmu);
    if (!enc) {
        fail(error, "no encoder for PMU %s", pmu);
        return NULL;
    }
    GString *out = g_string_new(NULL);
    if (is_ia64(pmu)) {
        if (f->cmask || f->inv || f->edge || f->any || f->has_offcore) {
            fail(error, "%s: Itanium raw events take event and umask only (thresholds: "
                        "--thres)", event);
            return g_string_free(out, TRUE), NULL;
        }
        const char *name = table_event(enc, TRUE, f->event, f->umask);
        if (!name) {
            fail(error, "%s: %s has no event with code 0x%" G_GINT64_MODIFIER "x and umask 0x%"
                        G_GINT64_MODIFIER "x", event, pmu, (guint64)f->event,
                 (guint64)f->umask);
            return g_string_free(out, TRUE), NULL;
        }
        g_string_append(out, name);
    } else {
        const char *name = table_event(enc, FALSE, f->event, 0);
        if (!name) {
            fail(error, "%s: %s has no event with code 0x%" G_GINT64_MODIFIER
                        "x (see 'pmusim events --pmu %s')", event, pmu, (guint64)f->event, pmu);
            return g_string_free(out, TRUE), NULL;
        }
        /* OFFCORE_RESPONSE_x takes the MSR_OFFCORE_RSP_x value as its raw
         * unit mask (docs/encoder-x86.md); its event-select umask is fixed. */
        g_string_append_printf(out, "%s:0x%" G_GINT64_MODIFIER "x", name,
                               (guint64)(f->has_offcore ? f->offcore : f->umask));
        if (f->cmask)
            g_string_append_printf(out, ":c=%u", (unsigned)f->cmask);
        if (f->inv)
            g_string_append(out, ":i=1");
        if (f->edge)
            g_string_append(out, ":e=1");
        if (f->any)
            g_string_append(out, ":t=1");
    }
    if (!apply_mods(pmu, event, mods, out, error))
        return g_string_free(out, TRUE), NULL;
    return g_string_free(out, FALSE);
}

char *pmusim_perfev_translate(const char *pmu, const char *event, GError **error)
{
    /* cpu/TERMS/MODS */
    if (g_str_has_prefix(event, "cpu/")) {
        const char *terms = event + 4;
        const char *close = strchr(terms, '/');
        if (!close) {
            fail(error, "%s: the cpu/.../ form needs a closing '/'", event);
            return NULL;
        }
        char *t = g_strndup(terms, (gsize)(close - terms));
        raw_fields_t f = {0};
        gboolean ok = parse_cpu_terms(event, t, &f, error);
        g_free(t);
        return ok ? translate_raw(pmu, event, &f, close + 1, error) : NULL;
    }
    const char *colon = strchr(event, ':');
    char *base = colon ? g_strndup(event, (gsize)(colon - event)) : g_strdup(event);
    const char *mods = colon ? colon + 1 : "";
    char *result = NULL;
    uint64_t cfg;
    const generic_map_t *g = find_generic(base);
    if (g) {
        const char *native = native_for(g, pmu);
        if (!native) {
            char *have = pmusim_perfev_generic_list(pmu);
            fail(error, "%s: PMU %s has no event for perf's '%s'; its generic events: %s",
                 event, pmu, g->generic, have);
            g_free(have);
        } else {
            GString *out = g_string_new(native);
            if (apply_mods(pmu, event, mods, out, error))
                result = g_string_free(out, FALSE);
            else
                g_string_free(out, TRUE);
        }
    } else if (base[0] == 'r' && base[1] && parse_num(base + 1, 16, &cfg)) {
        raw_fields_t f = {0};
        raw_from_config(cfg, &f);
        if (cfg >> 32)
            fail(error, "%s: raw configs above bit 31 are not modelled", event);
        else
            result = translate_raw(pmu, event, &f, mods, error);
    } else {
        result = g_strdup(event);
    }
    g_free(base);
    return result;
}

/* One member of a group with the group's modifiers `mods` (u, k, p) added
 * to its own, as perf updates them: privilege levels add up ("{a:k,b}:u"
 * counts a in user and kernel mode).  perf forms take the letters after their
 * own ("cycles:k" -> "cycles:ku", "cpu/.../" -> "cpu/.../u"); a native string
 * takes the encoder's ":u" / ":k" ('p' means nothing to it). */
static char *with_group_mods(const char *event, const char *mods)
{
    const char *colon = strchr(event, ':');
    char *base = colon ? g_strndup(event, (gsize)(colon - event)) : g_strdup(event);
    uint64_t cfg;
    gboolean perf_form = g_str_has_prefix(event, "cpu/") || find_generic(base) ||
                         (base[0] == 'r' && base[1] && parse_num(base + 1, 16, &cfg));
    g_free(base);
    if (perf_form) {
        if (g_str_has_prefix(event, "cpu/") || colon)
            return g_strconcat(event, mods, NULL);
        return g_strconcat(event, ":", mods, NULL);
    }
    GString *out = g_string_new(event);
    char **parts = g_strsplit(event, ":", -1);
    for (const char *m = "uk"; *m; m++) {
        if (!strchr(mods, *m))
            continue;
        gboolean have = FALSE;
        for (char **q = parts; *q && !have; q++)
            have = (*q)[0] == *m && ((*q)[1] == '\0' || (*q)[1] == '=');
        if (!have)
            g_string_append_printf(out, ":%c", *m);
    }
    g_strfreev(parts);
    return g_string_free(out, FALSE);
}

gboolean pmusim_perfev_split(char *const *args, GPtrArray *events, GArray *groups,
                             GError **error)
{
    guint group = 0;
    for (char *const *a = args; a && *a; a++) {
        const char *s = *a;
        gboolean in_group = FALSE, in_slash = FALSE;
        guint group_start = events->len, arg_start = events->len;
        GString *cur = g_string_new(NULL);
        for (const char *p = s;; p++) {
            char c = *p;
            if (c == '/' && g_str_has_suffix(cur->str, "cpu") && !in_slash &&
                cur->len == 3)
                in_slash = TRUE;
            else if (c == '/' && in_slash)
                in_slash = FALSE;
            if (!in_slash && c == '{') {
                group_start = events->len;
                if (in_group || cur->len) {
                    g_string_free(cur, TRUE);
                    return fail(error, "-e '%s': '{' opens a group only at the start of an "
                                       "event, and groups do not nest", s);
                }
                in_group = TRUE;
                continue;
            }
            gboolean end_group = !in_slash && c == '}';
            if (c == '\0' || end_group || (!in_slash && c == ',')) {
                char *t = g_strstrip(g_strdup(cur->str));
                if (*t) {
                    g_ptr_array_add(events, t);
                    g_array_append_val(groups, group);
                    if (!in_group)
                        group++;
                } else {
                    g_free(t);
                }
                g_string_truncate(cur, 0);
                if (end_group) {
                    if (!in_group) {
                        g_string_free(cur, TRUE);
                        return fail(error, "-e '%s': '}' without '{'", s);
                    }
                    in_group = FALSE;
                    group++;
                    /* perf's group modifiers ("{a,b}:u") update the
                     * modifiers of every member */
                    if (p[1] == ':') {
                        const char *m = p + 2, *end = strchr(m, ',');
                        char *mods = end ? g_strndup(m, (gsize)(end - m)) : g_strdup(m);
                        gboolean ok = *mods != '\0';
                        for (const char *q = mods; ok && *q; q++)
                            ok = *q == 'u' || *q == 'k' || *q == 'p';
                        if (!ok) {
                            fail(error, "-e '%s': group modifiers '%s': pmusim knows u, k, p",
                                 s, mods);
                            g_free(mods);
                            g_string_free(cur, TRUE);
                            return FALSE;
                        }
                        for (guint i = group_start; i < events->len; i++) {
                            char *old_ev = g_ptr_array_index(events, i);
                            g_ptr_array_index(events, i) = with_group_mods(old_ev, mods);
                            g_free(old_ev);
                        }
                        g_free(mods);
                        p = end ? end - 1 : m + strlen(m) - 1;
                    } else if (p[1] && p[1] != ',') {
                        g_string_free(cur, TRUE);
                        return fail(error, "-e '%s': '}' must be followed by ',', ':MODIFIERS' "
                                           "or the end", s);
                    }
                }
                if (c == '\0')
                    break;
                continue;
            }
            g_string_append_c(cur, c);
        }
        g_string_free(cur, TRUE);
        if (in_group)
            return fail(error, "-e '%s': group '{' not closed", s);
        if (in_slash)
            return fail(error, "-e '%s': cpu/.../ not closed", s);
        /* as perf: an -e that names nothing ("", ",", "{}") is an error, not
         * a run that counts nothing */
        if (events->len == arg_start)
            return fail(error, "-e '%s': no event named (expected EVENT[,EVENT...])", s);
    }
    return TRUE;
}

const char *pmusim_perfev_role(const char *pmu, const char *typed, const char *native)
{
    char *base = g_strdup(typed);
    char *colon = strchr(base, ':');
    if (colon && !g_str_has_prefix(base, "cpu/"))
        *colon = '\0';
    const generic_map_t *g = find_generic(base);
    g_free(base);
    if (g)
        return g->generic;
    /* a native string naming a generic event's native counterpart, without
     * its pmu:: prefix and privilege modifiers */
    const char *sep = strstr(native, "::");
    char *n = g_strdup(sep ? sep + 2 : native);
    if (g_str_has_suffix(n, ":u:k"))
        n[strlen(n) - 4] = '\0';
    else if (g_str_has_suffix(n, ":u") || g_str_has_suffix(n, ":k"))
        n[strlen(n) - 2] = '\0';
    const char *role = NULL;
    for (size_t i = 0; !role && i < G_N_ELEMENTS(generic_map); i++) {
        const char *nat = native_for(&generic_map[i], pmu);
        if (nat && g_ascii_strcasecmp(nat, n) == 0)
            role = generic_map[i].generic;
    }
    g_free(n);
    return role;
}
