/* Native encoder face for Itanium 2 ("ita2") and Montecito ("mont").
 *
 * encode() turns event strings and options (docs/encoder-ia64.md) into the
 * libpfm-3 parameter structures, runs the same dispatch as
 * pfm_dispatch_events(), and lists the result as register writes: every
 * PMC in dispatch order, a zeroing write to each counter's PMD, then the
 * IBR and DBR pairs of the range restrictions.
 */
#include "pmusim/encoder.h"
#include "ia64_priv.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    pfmlib_input_param_t inp;
    union {
        pfmlib_ita2_input_param_t ita2;
        pfmlib_mont_input_param_t mont;
    } in;
    union {
        pfmlib_ita2_output_param_t ita2;
        pfmlib_mont_output_param_t mont;
    } out;
    pfmlib_output_param_t outp;
    bool use_param;
} ia64_job_t;

static const char *const ita2_help[] = {
    "thres=EVENT=N          threshold for EVENT (0 .. maxincr-1)",
    "ism=EVENT=ia64|ia32|both  instruction set EVENT counts in",
    "plm=EVENT=MASK         privilege levels for EVENT (PLM bits, e.g. 0x8)",
    "no_qualcheck=EVENT|1   let EVENT (1: every event) ignore range/opcode qualifiers",
    "irange=START-END[:PLM] code range (16-byte aligned; repeat for up to 4)",
    "drange=START-END       data range (repeat for up to 4)",
    "rr_inv=1               count outside the code range",
    "no_fine_mode=1         never use fine mode for code ranges",
    "pmc8=VALUE             opcode matcher PMC8 raw value",
    "pmc9=VALUE             opcode matcher PMC9 raw value (IA64_INST_RETIRED events only)",
    "iear=cache|tlb[:UMASK[:PLM[:ISM]]]  program the I-EAR (PMC10)",
    "dear=cache|tlb|alat[:UMASK[:PLM[:ISM]]]  program the D-EAR (PMC11)",
    "btb=tm=N,ptm=N,ppm=N,brt=N,ds=N,plm=N  program the BTB (PMC12); omitted fields are 0",
    "systemwide=1           system-wide session (sets the pm bits)",
    NULL,
};

static const char *const mont_help[] = {
    "thres=EVENT=N          threshold for EVENT (0 .. maxincr-1)",
    "plm=EVENT=MASK         privilege levels for EVENT (PLM bits, e.g. 0x8)",
    "no_qualcheck=EVENT|1   let EVENT (1: every event) ignore range/opcode qualifiers",
    "irange=START-END[:PLM] code range (16-byte aligned; repeat for up to 4)",
    "drange=START-END       data range (repeat for up to 4)",
    "rr_inv=1               count outside the code range",
    "no_fine_mode=1         never use fine mode for code ranges",
    "fetch=demand|prefetch|both  which fetches dual events (L1I_FILLS...) see in a code range",
    "opcm1=MATCH/MASK[:mifb]  opcode matcher 1 (PMC32/33); slots default to all",
    "opcm2=MATCH/MASK[:mifb]  opcode matcher 2 (PMC34/35)",
    "iear=cache|tlb[:UMASK[:PLM]]  program the I-EAR (PMC37)",
    "dear=cache|tlb|alat[:UMASK[:PLM]]  program the D-EAR (PMC40)",
    "etb=tm=N,ptm=N,ppm=N,brt=N,plm=N  program the ETB (PMC39); omitted fields are 0",
    "ipear=DELAY[:PLM]      program the IP-EAR (PMC42); excludes the ETB",
    "systemwide=1           system-wide session (sets the pm bits)",
    NULL,
};

static gboolean fail(GError **error, int code, const char *fmt, ...) G_GNUC_PRINTF(3, 4);

static gboolean fail(GError **error, int code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *msg = g_strdup_vprintf(fmt, ap);
    va_end(ap);
    g_set_error(error, PMUSIM_ENCODER_ERROR, code, "%s: %s", ia64_strerror(code), msg);
    g_free(msg);
    return FALSE;
}

/* Errors about an event string use the form shared with the x86 encoder
 * (docs/CLI.md "Error messages"): "EVENTSTRING: KIND on PMU[: reason][ (hint)]";
 * the code is still the libpfm-3 one. */
static gboolean fail_event(GError **error, int code, const char *fmt, ...) G_GNUC_PRINTF(3, 4);

static gboolean fail_event(GError **error, int code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    if (error)
        *error = g_error_new_valist(PMUSIM_ENCODER_ERROR, code, fmt, ap);
    va_end(ap);
    return FALSE;
}

static const char *pmu_name(const ia64_pmu_t *pmu)
{
    return pmu->model == IA64_MODEL_ITA2 ? "ita2" : "mont";
}

/* "STR: event not found on PMU (did you mean X?; X is an event of wsm)" */
static gboolean fail_not_found(GError **error, const ia64_pmu_t *pmu, const char *str, const char *name,
                               size_t len)
{
    char *nm = g_strndup(name, len);
    char *hint = pmusim_encoder_event_hint(pmusim_encoder_find(pmu_name(pmu)), nm);
    fail_event(error, PFMLIB_ERR_NOTFOUND, "%s: event not found on %s%s%s%s", str, pmu_name(pmu),
               hint ? " (" : "", hint ? hint : "", hint ? ")" : "");
    g_free(hint);
    g_free(nm);
    return FALSE;
}

static gboolean parse_u64(const char *s, uint64_t *v)
{
    char *end = NULL;
    if (!s || !*s || *s == '-')
        return FALSE;
    errno = 0;
    unsigned long long x = strtoull(s, &end, 0);
    if (errno == ERANGE || *end)
        return FALSE;
    *v = x;
    return TRUE;
}

/* "EVENT=VALUE": the indices of the events named EVENT. */
static gboolean split_event_value(const ia64_pmu_t *pmu, const ia64_job_t *job, const char *key,
                                  const char *val, unsigned *mask, const char **rest, GError **error)
{
    const char *eq = strchr(val, '=');
    if (!eq)
        return fail(error, PFMLIB_ERR_INVAL, "option %s=%s: expected EVENT=VALUE", key, val);
    *mask = 0;
    for (unsigned i = 0; i < job->inp.pfp_event_count; i++) {
        const char *name = pmu->events[job->inp.pfp_events[i].event].name;
        if (strlen(name) == (size_t)(eq - val) && g_ascii_strncasecmp(name, val, (size_t)(eq - val)) == 0)
            *mask |= 1u << i;
    }
    if (!*mask)
        return fail(error, PFMLIB_ERR_NOTFOUND, "option %s=%s: event %.*s is not in the event list", key,
                    val, (int)(eq - val), val);
    *rest = eq + 1;
    return TRUE;
}

static gboolean parse_range(const char *key, const char *val, uint64_t *start, uint64_t *end,
                            unsigned *plm, GError **error)
{
    char **parts = g_strsplit(val, "-", 2);
    gboolean ok = FALSE;
    if (parts[0] && parts[1]) {
        char *colon = strchr(parts[1], ':');
        uint64_t p = 0;
        if (colon)
            *colon++ = '\0';
        ok = parse_u64(parts[0], start) && parse_u64(parts[1], end) && (!colon || parse_u64(colon, &p));
        *plm = (unsigned)p;
    }
    g_strfreev(parts);
    if (!ok)
        return fail(error, PFMLIB_ERR_INVAL, "option %s=%s: expected START-END[:PLM] (numbers)", key, val);
    return TRUE;
}

static gboolean parse_ear(const char *key, const char *val, bool data, unsigned *mode, unsigned long *umask,
                          unsigned *plm, unsigned *ism, GError **error)
{
    char **f = g_strsplit(val, ":", 4);
    gboolean ok = TRUE;
    uint64_t u = 0, p = 0, s = 0;
    if (!f[0] || !*f[0])
        ok = FALSE;
    else if (!g_ascii_strcasecmp(f[0], "cache"))
        *mode = PFMLIB_ITA2_EAR_CACHE_MODE;
    else if (!g_ascii_strcasecmp(f[0], "tlb"))
        *mode = PFMLIB_ITA2_EAR_TLB_MODE;
    else if (data && !g_ascii_strcasecmp(f[0], "alat"))
        *mode = PFMLIB_ITA2_EAR_ALAT_MODE;
    else
        ok = FALSE;
    if (ok && f[0] && f[1])
        ok = parse_u64(f[1], &u);
    if (ok && f[0] && f[1] && f[2])
        ok = parse_u64(f[2], &p);
    if (ok && f[0] && f[1] && f[2] && f[3])
        ok = parse_u64(f[3], &s);
    g_strfreev(f);
    if (!ok)
        return fail(error, PFMLIB_ERR_INVAL, "option %s=%s: expected cache|tlb%s[:UMASK[:PLM%s]]", key, val,
                    data ? "|alat" : "", ism ? "[:ISM]" : "");
    *umask = (unsigned long)u;
    *plm = (unsigned)p;
    if (ism)
        *ism = (unsigned)s;
    return TRUE;
}

/* "tm=3,ptm=3,..." for the BTB/ETB. */
static gboolean parse_branch(const char *key, const char *val, bool ita2, unsigned f[6], GError **error)
{
    static const char *const names[6] = { "tm", "ptm", "ppm", "brt", "ds", "plm" };
    char **items = g_strsplit(val, ",", -1);
    gboolean ok = TRUE;
    memset(f, 0, 6 * sizeof(f[0]));
    for (char **it = items; ok && *it; it++) {
        char *eq = strchr(*it, '=');
        uint64_t v;
        ok = FALSE;
        if (!eq)
            break;
        *eq = '\0';
        for (int k = 0; k < 6; k++) {
            if (strcmp(*it, names[k]) == 0 && (ita2 || k != 4) && parse_u64(eq + 1, &v) && v <= 0xff) {
                f[k] = (unsigned)v;
                ok = TRUE;
            }
        }
    }
    g_strfreev(items);
    if (!ok)
        return fail(error, PFMLIB_ERR_INVAL, "option %s=%s: expected comma-separated tm=,ptm=,ppm=,brt=,%splm= numbers",
                    key, val, ita2 ? "ds=," : "");
    return TRUE;
}

static gboolean parse_opcm(const char *key, const char *val, pfmlib_mont_opcm_t *o, GError **error)
{
    char **f = g_strsplit(val, ":", 2);
    char **mm = f[0] ? g_strsplit(f[0], "/", 2) : NULL;
    gboolean ok = mm && mm[0] && mm[1];
    uint64_t match = 0, mask = 0;
    if (ok)
        ok = parse_u64(mm[0], &match) && parse_u64(mm[1], &mask);
    o->opcm_used = 1;
    o->opcm_match = match;
    o->opcm_mask = mask;
    o->opcm_m = o->opcm_i = o->opcm_f = o->opcm_b = 1;
    if (ok && f[1]) {
        o->opcm_m = o->opcm_i = o->opcm_f = o->opcm_b = 0;
        for (const char *c = f[1]; *c && ok; c++) {
            switch (g_ascii_tolower(*c)) {
            case 'm': o->opcm_m = 1; break;
            case 'i': o->opcm_i = 1; break;
            case 'f': o->opcm_f = 1; break;
            case 'b': o->opcm_b = 1; break;
            default: ok = FALSE;
            }
        }
    }
    g_strfreev(mm);
    g_strfreev(f);
    if (!ok)
        return fail(error, PFMLIB_ERR_INVAL, "option %s=%s: expected MATCH/MASK[:mifb]", key, val);
    return TRUE;
}

static gboolean add_range(pfmlib_ita2_input_rr_t *rr, const char *key, const char *val, GError **error)
{
    unsigned n = 0;
    while (n < 4 && (rr->rr_limits[n].rr_start || rr->rr_limits[n].rr_end))
        n++;
    if (n == 4)
        return fail(error, !strcmp(key, "drange") ? PFMLIB_ERR_DRRTOOMANY : PFMLIB_ERR_IRRTOOMANY,
                    "option %s=%s: at most 4 ranges", key, val);
    uint64_t s = 0, e = 0;
    unsigned plm = 0;
    if (!parse_range(key, val, &s, &e, &plm, error))
        return FALSE;
    if (s == 0 && e == 0)
        return fail(error, !strcmp(key, "drange") ? PFMLIB_ERR_DRRINVAL : PFMLIB_ERR_IRRINVAL,
                    "option %s=%s: empty range", key, val);
    rr->rr_used = 1;
    rr->rr_limits[n].rr_start = s;
    rr->rr_limits[n].rr_end = e;
    rr->rr_limits[n].rr_plm = plm;
    return TRUE;
}

/* Both models' range structures have one layout. */
_Static_assert(sizeof(pfmlib_ita2_input_rr_t) == sizeof(pfmlib_mont_input_rr_t), "rr layout");

static gboolean apply_option(const ia64_pmu_t *pmu, ia64_job_t *job, const pmusim_encode_opt_t *o,
                             GError **error)
{
    bool ita2 = pmu->model == IA64_MODEL_ITA2;
    const char *k = o->key ? o->key : "", *v = o->value ? o->value : "";
    pfmlib_ita2_input_param_t *i2 = &job->in.ita2;
    pfmlib_mont_input_param_t *mt = &job->in.mont;
    unsigned mask;
    const char *rest;
    uint64_t num;

    if (!strcmp(k, "systemwide")) {
        if (!parse_u64(v, &num) || num > 1)
            return fail(error, PFMLIB_ERR_INVAL, "option systemwide=%s: expected 0 or 1", v);
        job->inp.pfp_flags = num ? PFMLIB_PFP_SYSTEMWIDE : 0;
        return TRUE;
    }
    if (!strcmp(k, "plm")) {
        if (!split_event_value(pmu, job, k, v, &mask, &rest, error))
            return FALSE;
        if (!parse_u64(rest, &num) || num > 0xffffffffu)
            return fail(error, PFMLIB_ERR_INVAL, "option plm=%s: expected a PLM mask", v);
        for (unsigned i = 0; i < job->inp.pfp_event_count; i++)
            if (mask & (1u << i))
                job->inp.pfp_events[i].plm = (unsigned)num;
        return TRUE;
    }
    job->use_param = true;
    if (!strcmp(k, "thres") || (ita2 && !strcmp(k, "ism"))) {
        if (!split_event_value(pmu, job, k, v, &mask, &rest, error))
            return FALSE;
        unsigned val;
        if (!strcmp(k, "ism")) {
            if (!g_ascii_strcasecmp(rest, "both"))
                val = PFMLIB_ITA2_ISM_BOTH;
            else if (!g_ascii_strcasecmp(rest, "ia32"))
                val = PFMLIB_ITA2_ISM_IA32;
            else if (!g_ascii_strcasecmp(rest, "ia64"))
                val = PFMLIB_ITA2_ISM_IA64;
            else
                return fail(error, PFMLIB_ERR_INVAL, "option ism=%s: expected ia64, ia32 or both", v);
        } else {
            if (!parse_u64(rest, &num) || num > 0xffffffffu)
                return fail(error, PFMLIB_ERR_INVAL, "option thres=%s: expected a number", v);
            val = (unsigned)num;
        }
        for (unsigned i = 0; i < job->inp.pfp_event_count; i++) {
            if (!(mask & (1u << i)))
                continue;
            const ia64_event_t *ev = &pmu->events[job->inp.pfp_events[i].event];
            if (!strcmp(k, "thres") && val >= ev->maxincr)
                return fail(error, PFMLIB_ERR_INVAL, "option thres=%s: %s takes thresholds 0..%u (maxincr %u)", v,
                            ev->name, ev->maxincr - 1u, ev->maxincr);
            if (!strcmp(k, "ism"))
                i2->pfp_ita2_counters[i].ism = (pfmlib_ita2_ism_t)val;
            else if (ita2)
                i2->pfp_ita2_counters[i].thres = val;
            else
                mt->pfp_mont_counters[i].thres = val;
        }
        return TRUE;
    }
    if (!strcmp(k, "no_qualcheck")) {
        if (!strcmp(v, "1")) {
            mask = ~0u;
        } else {
            char *ev = g_strconcat(v, "=", NULL);
            gboolean ok = split_event_value(pmu, job, k, ev, &mask, &rest, error);
            g_free(ev);
            if (!ok)
                return FALSE;
        }
        for (unsigned i = 0; i < job->inp.pfp_event_count; i++) {
            if (!(mask & (1u << i)))
                continue;
            if (ita2)
                i2->pfp_ita2_counters[i].flags |= PFMLIB_ITA2_FL_EVT_NO_QUALCHECK;
            else
                mt->pfp_mont_counters[i].flags |= PFMLIB_MONT_FL_EVT_NO_QUALCHECK;
        }
        return TRUE;
    }
    pfmlib_ita2_input_rr_t *irr = ita2 ? &i2->pfp_ita2_irange : (pfmlib_ita2_input_rr_t *)&mt->pfp_mont_irange;
    pfmlib_ita2_input_rr_t *drr = ita2 ? &i2->pfp_ita2_drange : (pfmlib_ita2_input_rr_t *)&mt->pfp_mont_drange;
    if (!strcmp(k, "irange"))
        return add_range(irr, k, v, error);
    if (!strcmp(k, "drange"))
        return add_range(drr, k, v, error);
    if (!strcmp(k, "rr_inv") || !strcmp(k, "no_fine_mode")) {
        if (!parse_u64(v, &num) || num > 1)
            return fail(error, PFMLIB_ERR_INVAL, "option %s=%s: expected 0 or 1", k, v);
        if (num)
            irr->rr_flags |= !strcmp(k, "rr_inv") ? PFMLIB_ITA2_RR_INV : PFMLIB_ITA2_RR_NO_FINE_MODE;
        return TRUE;
    }
    if (!ita2 && !strcmp(k, "fetch")) {
        unsigned fl = !strcmp(v, "demand")     ? PFMLIB_MONT_IRR_DEMAND_FETCH
                      : !strcmp(v, "prefetch") ? PFMLIB_MONT_IRR_PREFETCH_MATCH
                      : !strcmp(v, "both")     ? PFMLIB_MONT_IRR_DEMAND_FETCH | PFMLIB_MONT_IRR_PREFETCH_MATCH
                                               : 0;
        if (!fl)
            return fail(error, PFMLIB_ERR_INVAL, "option fetch=%s: expected demand, prefetch or both", v);
        mt->pfp_mont_irange.rr_flags |= fl;
        return TRUE;
    }
    if (ita2 && (!strcmp(k, "pmc8") || !strcmp(k, "pmc9"))) {
        if (!parse_u64(v, &num))
            return fail(error, PFMLIB_ERR_INVAL, "option %s=%s: expected a 64-bit value", k, v);
        pfmlib_ita2_opcm_t *op = !strcmp(k, "pmc8") ? &i2->pfp_ita2_pmc8 : &i2->pfp_ita2_pmc9;
        op->opcm_used = 1;
        op->pmc_val = num;
        return TRUE;
    }
    if (!ita2 && (!strcmp(k, "opcm1") || !strcmp(k, "opcm2")))
        return parse_opcm(k, v, !strcmp(k, "opcm1") ? &mt->pfp_mont_opcm1 : &mt->pfp_mont_opcm2, error);
    if (!strcmp(k, "iear") || !strcmp(k, "dear")) {
        bool data = k[0] == 'd';
        unsigned mode = 0, plm = 0, ism = 0;
        unsigned long umask = 0;
        if (!parse_ear(k, v, data, &mode, &umask, &plm, ita2 ? &ism : NULL, error))
            return FALSE;
        if (ita2) {
            pfmlib_ita2_ear_t *e = data ? &i2->pfp_ita2_dear : &i2->pfp_ita2_iear;
            *e = (pfmlib_ita2_ear_t){ .ear_used = 1, .ear_mode = (pfmlib_ita2_ear_mode_t)mode,
                                      .ear_ism = (pfmlib_ita2_ism_t)ism, .ear_plm = plm, .ear_umask = umask };
        } else {
            pfmlib_mont_ear_t *e = data ? &mt->pfp_mont_dear : &mt->pfp_mont_iear;
            *e = (pfmlib_mont_ear_t){ .ear_used = 1, .ear_mode = (pfmlib_mont_ear_mode_t)mode, .ear_plm = plm,
                                      .ear_umask = umask };
        }
        return TRUE;
    }
    if ((ita2 && !strcmp(k, "btb")) || (!ita2 && !strcmp(k, "etb"))) {
        unsigned f[6];
        if (!parse_branch(k, v, ita2, f, error))
            return FALSE;
        if (ita2)
            i2->pfp_ita2_btb = (pfmlib_ita2_btb_t){ .btb_used = 1, .btb_tm = (unsigned char)f[0],
                                                    .btb_ptm = (unsigned char)f[1], .btb_ppm = (unsigned char)f[2],
                                                    .btb_brt = (unsigned char)f[3], .btb_ds = (unsigned char)f[4],
                                                    .btb_plm = f[5] };
        else
            mt->pfp_mont_etb = (pfmlib_mont_etb_t){ .etb_used = 1, .etb_tm = (unsigned char)f[0],
                                                    .etb_ptm = (unsigned char)f[1], .etb_ppm = (unsigned char)f[2],
                                                    .etb_brt = (unsigned char)f[3], .etb_plm = f[5] };
        return TRUE;
    }
    if (!ita2 && !strcmp(k, "ipear")) {
        char **f = g_strsplit(v, ":", 2);
        uint64_t d = 0, p = 0;
        gboolean ok = f[0] && parse_u64(f[0], &d) && d <= 0xffff && (!f[1] || parse_u64(f[1], &p));
        g_strfreev(f);
        if (!ok)
            return fail(error, PFMLIB_ERR_INVAL, "option ipear=%s: expected DELAY[:PLM]", v);
        mt->pfp_mont_ipear = (pfmlib_mont_ipear_t){ .ipear_used = 1, .ipear_delay = (unsigned short)d,
                                                    .ipear_plm = (unsigned)p };
        return TRUE;
    }
    /* the keys are the first words of the option help lines */
    const char *const *help = ita2 ? ita2_help : mont_help;
    GPtrArray *keys = g_ptr_array_new_with_free_func(g_free);
    for (const char *const *h = help; *h; h++)
        g_ptr_array_add(keys, g_strndup(*h, strcspn(*h, "= ")));
    char *dym = pmusim_suggest_text(k, (const char *const *)keys->pdata, keys->len);
    g_ptr_array_free(keys, TRUE);
    fail(error, PFMLIB_ERR_INVAL, "unknown option %s for %s (%s%spmusim events --pmu %s --options)", k,
         pmu_name(pmu), dym ? dym : "", dym ? " " : "", pmu_name(pmu));
    g_free(dym);
    return FALSE;
}

/* "NAME" or, for Montecito MESI events, "NAME:I:S..." */
static gboolean parse_event(const ia64_pmu_t *pmu, const char *str, pfmlib_event_t *e, GError **error)
{
    const char *colon = strchr(str, ':');
    size_t len = colon ? (size_t)(colon - str) : strlen(str);
    int idx = ia64_find_event(pmu, str, len);
    if (idx < 0)
        return fail_not_found(error, pmu, str, str, len);
    memset(e, 0, sizeof(*e));
    e->event = (unsigned)idx;
    unsigned n = ia64_num_masks(pmu, e->event);
    const char *name = pmu->events[idx].name;
    while (colon) {
        const char *m = colon + 1;
        colon = strchr(m, ':');
        size_t ml = colon ? (size_t)(colon - m) : strlen(m);
        static const char mesi[] = "ISEM";
        const char *p = ml == 1 ? strchr(mesi, g_ascii_toupper(*m)) : NULL;
        if (!n)
            return fail_event(error, PFMLIB_ERR_UMASK, "%s: unit mask '%.*s' not found on %s (%s takes "
                              "no unit mask)", str, (int)ml, m, pmu_name(pmu), name);
        if (!p)
            return fail_event(error, PFMLIB_ERR_UMASK, "%s: unit mask '%.*s' not found on %s (%s takes "
                              "the MESI unit masks I, S, E and M)", str, (int)ml, m, pmu_name(pmu), name);
        e->unit_masks[e->num_masks++] = (unsigned)(p - mesi);
        if (e->num_masks > 4)
            return fail_event(error, PFMLIB_ERR_UMASK, "%s: conflicting attributes on %s: at most four "
                              "MESI unit masks", str, pmu_name(pmu));
    }
    if (n && !e->num_masks)
        return fail_event(error, PFMLIB_ERR_UMASK, "%s: unit mask missing on %s: %s needs a MESI unit "
                          "mask (e.g. %s:M or %s:I:S:E:M)", str, pmu_name(pmu), name, name, name);
    return TRUE;
}

static const char *pmc_label(const ia64_pmu_t *pmu, unsigned num)
{
    bool ita2 = pmu->model == IA64_MODEL_ITA2;
    switch (num) {
    case 8: case 9: case 15: case 32: case 33: case 34: case 35: case 36:
        return "opcode matcher";
    case 10: case 37:
        return "I-EAR";
    case 11: case 40:
        return "D-EAR";
    case 12: case 39:
        return ita2 ? "BTB" : "ETB";
    case 13: case 41:
        return "data range config";
    case 14: case 38:
        return "code range config";
    case 42:
        return "IP-EAR";
    default:
        return "";
    }
}

/* Build and dispatch; on success job->outp and job->out hold the result. */
static gboolean run(const ia64_pmu_t *pmu, ia64_job_t *job, const char *const *events, size_t nevents,
                    const pmusim_encode_opt_t *opts, size_t nopts, unsigned dfl_plm, GError **error)
{
    memset(job, 0, sizeof(*job));
    if (nevents > pmu->num_counters)
        return fail(error, PFMLIB_ERR_NOASSIGN, "%zu events requested, the PMU has %u counters", nevents,
                    pmu->num_counters);
    job->inp.pfp_dfl_plm = dfl_plm;
    job->inp.pfp_event_count = (unsigned)nevents;
    for (size_t i = 0; i < nevents; i++)
        if (!parse_event(pmu, events[i] ? events[i] : "", &job->inp.pfp_events[i], error))
            return FALSE;
    for (size_t i = 0; i < nopts; i++)
        if (!apply_option(pmu, job, &opts[i], error))
            return FALSE;
    int ret = ia64_dispatch(pmu, &job->inp, job->use_param ? (void *)&job->in : NULL, &job->outp,
                            job->use_param ? (void *)&job->out : NULL);
    if (ret == PFMLIB_ERR_EVTSET) {
        /* name the events of the cache groups and their sets */
        GString *list = g_string_new(NULL), *sets = g_string_new(NULL);
        for (size_t i = 0; i < nevents; i++) {
            g_string_append_printf(list, "%s%s", i ? "," : "", events[i]);
            const ia64_event_t *ev = &pmu->events[job->inp.pfp_events[i].event];
            if (ev->group)
                g_string_append_printf(sets, "%s%s (%s set %d)", sets->len ? ", " : "", ev->name,
                                       ev->group == 1 ? (pmu->model == IA64_MODEL_ITA2 ? "L1" : "L1D")
                                                      : (pmu->model == IA64_MODEL_ITA2 ? "L2" : "L2D"),
                                       ev->set);
        }
        fail_event(error, ret, "%s: incompatible event sets on %s: %s; %s", list->str, pmu_name(pmu),
                   sets->str,
                   pmu->model == IA64_MODEL_ITA2
                       ? "the events of one cache group must come from one set"
                       : "one L1D set and at most two L2D sets can be counted together");
        g_string_free(list, TRUE);
        g_string_free(sets, TRUE);
        return FALSE;
    }
    if (ret != PFMLIB_SUCCESS) {
        GString *list = g_string_new(NULL);
        for (size_t i = 0; i < nevents; i++)
            g_string_append_printf(list, "%s%s", i ? "," : "", events[i]);
        fail_event(error, ret, "%s: %s on %s: cannot program these events%s", list->str, ia64_strerror(ret),
                   pmu_name(pmu), nopts ? " with the given options" : "");
        g_string_free(list, TRUE);
        return FALSE;
    }
    return TRUE;
}

static void add_rr(GArray *regs, pmusim_regspace_t space, unsigned nbr, const pfmlib_reg_t *br, const char *label)
{
    for (unsigned i = 0; i < nbr && i < 8; i++)
        pmusim_regs_add(regs, space, br[i].reg_num, br[i].reg_value, PMUSIM_THREAD_ALL, label);
}

static void job_regs(const ia64_pmu_t *pmu, const ia64_job_t *job, GArray *regs)
{
    const pfmlib_output_param_t *o = &job->outp;
    unsigned nev = job->inp.pfp_event_count;
    for (unsigned i = 0; i < o->pfp_pmc_count; i++) {
        const char *label = i < nev ? pmu->events[job->inp.pfp_events[i].event].name
                                    : pmc_label(pmu, o->pfp_pmcs[i].reg_num);
        pmusim_regs_add(regs, PMUSIM_REG_PMC, o->pfp_pmcs[i].reg_num, o->pfp_pmcs[i].reg_value, PMUSIM_THREAD_ALL,
                        label);
    }
    for (unsigned i = 0; i < nev && i < o->pfp_pmc_count; i++)
        pmusim_regs_add(regs, PMUSIM_REG_PMD, o->pfp_pmcs[i].reg_num, 0, PMUSIM_THREAD_ALL,
                        pmu->events[job->inp.pfp_events[i].event].name);
    if (!job->use_param)
        return;
    if (pmu->model == IA64_MODEL_ITA2) {
        const pfmlib_ita2_output_param_t *mo = &job->out.ita2;
        add_rr(regs, PMUSIM_REG_IBR, mo->pfp_ita2_irange.rr_nbr_used, mo->pfp_ita2_irange.rr_br, "code range");
        add_rr(regs, PMUSIM_REG_DBR, mo->pfp_ita2_drange.rr_nbr_used, mo->pfp_ita2_drange.rr_br, "data range");
    } else {
        const pfmlib_mont_output_param_t *mo = &job->out.mont;
        add_rr(regs, PMUSIM_REG_IBR, mo->pfp_mont_irange.rr_nbr_used, mo->pfp_mont_irange.rr_br, "code range");
        add_rr(regs, PMUSIM_REG_DBR, mo->pfp_mont_drange.rr_nbr_used, mo->pfp_mont_drange.rr_br, "data range");
    }
}

/* A job is about 150 KiB (libpfm-3's parameter structures) and run()
 * initialises what it uses: the last one freed is kept for the next encode
 * instead of fresh memory each time (callers such as `pmusim check` encode
 * once per case). */
static ia64_job_t *spare_job;

static gboolean encode(const ia64_pmu_t *pmu, const char *const *events, size_t nevents,
                       const pmusim_encode_opt_t *opts, size_t nopts, unsigned dfl_plm, GArray *regs,
                       GError **error)
{
    ia64_job_t *job = g_atomic_pointer_exchange(&spare_job, NULL);
    if (!job)
        job = g_new(ia64_job_t, 1);
    gboolean ok = run(pmu, job, events, nevents, opts, nopts, dfl_plm, error);
    if (ok)
        job_regs(pmu, job, regs);
    if (!g_atomic_pointer_compare_and_exchange(&spare_job, NULL, job))
        g_free(job);
    return ok;
}

static const char *type_name(const ia64_pmu_t *pmu, unsigned t)
{
    static const char *const names[] = { "normal", "branch", "iear_tlb", "iear_cache", "dear_tlb",
                                         "dear_cache", "dear_alat" };
    if (t == IA64_EVT_BRANCH)
        return pmu->model == IA64_MODEL_ITA2 ? "btb" : "etb";
    return t < 7 ? names[t] : "?";
}

static void list_events(const ia64_pmu_t *pmu, FILE *fp)
{
    for (size_t i = 0; i < ia64_nevents(pmu); i++) {
        const ia64_event_t *e = &pmu->events[i];
        fprintf(fp, "%-44s code=0x%02x umask=0x%02x  %s\n", e->name, e->code, e->umask, e->desc);
    }
}

static gboolean show_event(const ia64_pmu_t *pmu, const char *name, FILE *fp, GError **error)
{
    int idx = name ? ia64_find_event(pmu, name, strlen(name)) : -1;
    if (idx < 0)
        return fail_not_found(error, pmu, name ? name : "(null)", name ? name : "", name ? strlen(name) : 0);
    const ia64_event_t *e = &pmu->events[idx];
    static const char *const caf[] = { "active", "floating", "causal", "self_floating" };
    fprintf(fp, "Name     : %s\nIndex    : %d\nDesc     : %s\nCode     : 0x%02x\nUmask    : 0x%x\n", e->name,
            idx, e->desc, e->code, e->umask);
    fprintf(fp, "Counters : 0x%04x (", e->counters);
    const char *sep = "";
    for (unsigned c = 0; c < 16; c++)
        if (e->counters & (1u << c)) {
            fprintf(fp, "%sPMC%u", sep, c);
            sep = ",";
        }
    fprintf(fp, ")\nMaxIncr  : %u (thresholds 0-%u)\nType     : %s\n", e->maxincr, e->maxincr - 1u,
            type_name(pmu, e->type));
    if (e->type >= IA64_EVT_IEAR_TLB && e->type <= IA64_EVT_DEAR_ALAT) {
        static const char *const modes[] = { "cache", "tlb", "alat" };
        int mode = e->type == IA64_EVT_IEAR_TLB || e->type == IA64_EVT_DEAR_TLB     ? 1
                   : e->type == IA64_EVT_IEAR_CACHE || e->type == IA64_EVT_DEAR_CACHE ? 0
                                                                                        : 2;
        fprintf(fp, "EAR mode : %s\n", modes[mode]);
    }
    fprintf(fp, "Qualifiers: code-range=%s opcode-match=%s data-range=%s",
            e->qual & IA64_Q_IARR ? "yes" : "no", e->qual & IA64_Q_OPCM ? "yes" : "no",
            e->qual & IA64_Q_DARR ? "yes" : "no");
    if (pmu->model == IA64_MODEL_MONT)
        fprintf(fp, " mesi=%s all-threads=%s", e->qual & IA64_Q_MESI ? "yes" : "no",
                e->qual & IA64_Q_ALL ? "yes" : "no");
    fprintf(fp, "\n");
    if (e->group)
        fprintf(fp, "Group    : %s, set %d\n",
                e->group == 1 ? (pmu->model == IA64_MODEL_ITA2 ? "L1" : "L1D")
                              : (pmu->model == IA64_MODEL_ITA2 ? "L2" : "L2D"),
                e->set);
    else
        fprintf(fp, "Group    : none\n");
    if (pmu->model == IA64_MODEL_MONT)
        fprintf(fp, "Thread   : %s\n", caf[e->caf & 3]);
    return TRUE;
}

static gboolean explain(const ia64_pmu_t *pmu, const char *event, unsigned dfl_plm, FILE *fp, GError **error)
{
    ia64_job_t *job = g_new(ia64_job_t, 1);
    const char *evs[1] = { event };
    gboolean ok = run(pmu, job, evs, 1, NULL, 0, dfl_plm, error);
    if (ok) {
        const ia64_event_t *e = &pmu->events[job->inp.pfp_events[0].event];
        fprintf(fp, "Requested Event: %s\nCode           : 0x%02x\nUmask          : 0x%x\n", event, e->code,
                e->umask);
        GArray *regs = pmusim_regs_new();
        job_regs(pmu, job, regs);
        pmusim_regs_print(regs, fp);
        g_array_unref(regs);
    }
    g_free(job);
    return ok;
}

static size_t ita2_count(void) { return ia64_nevents(&ia64_pmu_ita2); }
static size_t mont_count(void) { return ia64_nevents(&ia64_pmu_mont); }

static gboolean code_of(const ia64_pmu_t *pmu, size_t idx, const char **name, uint32_t *code, uint32_t *umask)
{
    if (idx >= ia64_nevents(pmu))
        return FALSE;
    if (name)
        *name = pmu->events[idx].name;
    if (code)
        *code = pmu->events[idx].code;
    if (umask)
        *umask = pmu->events[idx].umask;
    return TRUE;
}

static const char *desc_of(const ia64_pmu_t *pmu, size_t idx)
{
    return idx < ia64_nevents(pmu) ? pmu->events[idx].desc : NULL;
}

#define FACE(P, PMU)                                                                                       \
    static gboolean P##_encode(const char *const *ev, size_t n, const pmusim_encode_opt_t *o, size_t no, \
                               unsigned plm, GArray *regs, GError **error)                               \
    {                                                                                                    \
        return encode(PMU, ev, n, o, no, plm, regs, error);                                              \
    }                                                                                                    \
    static void P##_list(FILE *fp) { list_events(PMU, fp); }                                             \
    static gboolean P##_show(const char *name, FILE *fp, GError **error)                                 \
    {                                                                                                    \
        return show_event(PMU, name, fp, error);                                                         \
    }                                                                                                    \
    static gboolean P##_code(size_t i, const char **name, uint32_t *code, uint32_t *umask)              \
    {                                                                                                    \
        return code_of(PMU, i, name, code, umask);                                                       \
    }                                                                                                    \
    static gboolean P##_explain(const char *ev, unsigned plm, FILE *fp, GError **error)                  \
    {                                                                                                    \
        return explain(PMU, ev, plm, fp, error);                                                         \
    }                                                                                                    \
    static const char *P##_desc(size_t i) { return desc_of(PMU, i); }

FACE(ita2, &ia64_pmu_ita2)
FACE(mont, &ia64_pmu_mont)

const pmusim_encoder_pmu_t pmusim_encoder_ita2 = {
    .name = "ita2",
    .desc = "Intel Itanium 2 (McKinley/Madison) PMU, libpfm-3 compatible",
    .isa = PMUSIM_ISA_IA64,
    .encode = ita2_encode,
    .list_events = ita2_list,
    .show_event = ita2_show,
    .option_help = ita2_help,
    .event_count = ita2_count,
    .event_code = ita2_code,
    .explain = ita2_explain,
    .event_desc = ita2_desc,
};

const pmusim_encoder_pmu_t pmusim_encoder_mont = {
    .name = "mont",
    .desc = "Intel Itanium 2 9000 (Montecito) PMU, libpfm-3 compatible",
    .isa = PMUSIM_ISA_IA64,
    .encode = mont_encode,
    .list_events = mont_list,
    .show_event = mont_show,
    .option_help = mont_help,
    .event_count = mont_count,
    .event_code = mont_code,
    .explain = mont_explain,
    .event_desc = mont_desc,
};
