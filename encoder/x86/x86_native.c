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
 *   - generic counters follow the event's counter mask, most constrained
 *     events first (Linux schedules by constraint weight), lowest free index;
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

static void set_error(GError **error, int code, const char *fmt, ...) G_GNUC_PRINTF(3, 4);
static void set_error(GError **error, int code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *msg = g_strdup_vprintf(fmt, ap);
    va_end(ap);
    g_set_error_literal(error, PMUSIM_ENCODER_ERROR, code, msg);
    g_free(msg);
}

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
                set_error(error, X86_ERR_INVAL,
                          "option thread=%s: expected a thread number below %u", v,
                          PMUSIM_THREAD_ALL);
                return FALSE;
            }
            *thread = (uint32_t)n;
            continue;
        }
        set_error(error, X86_ERR_INVAL, "unknown option '%s' (expected thread=N)", k ? k : "");
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
        set_error(error, X86_ERR_INVAL, "default privilege mask 0x%x has unknown bits", dfl_plm);
        return FALSE;
    }
    if (nevents == 0) {
        set_error(error, X86_ERR_INVAL, "no event given");
        return FALSE;
    }
    if (nevents > X86_MAX_EVENTS) {
        set_error(error, X86_ERR_TOOMANY, "%zu events given, at most %d can be programmed",
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
            set_error(error, r, "%s: %s (%s PMU)", events[i] ? events[i] : "(null)",
                      pmusim_x86_strerror(r), pmu->name);
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
                     : (uint32_t)(e->cntmsk & ((1ull << pmu->num_cntrs) - 1));
        /* knl/knm: AnyThread exists on the fixed counters only (knm seed) */
        if ((pmu->flags & X86_PF_ANY_FIXED_ONLY) && (s->evtsel & X86_SEL_ANY)) {
            s->genmask = 0;
            s->anyfixed = 1;
        }
        if (!s->genmask && s->fixed == FIXED_NONE) {
            set_error(error, X86_ERR_FEATCOMB,
                      "%s: this configuration (0x%" PRIx64 ") has no counter that can count it",
                      s->label, s->evtsel);
            goto out;
        }
        s->offcore = -1;
        if (e->flags & X86_EF_OFFCORE) {
            int w = offcore_which(pmu, s->evtsel);
            uint64_t val = s->d.codes[1];
            if (offcore_used[w] && offcore_val[w] != val) {
                int alt = !w;
                if (offcore_used[alt] && offcore_val[alt] != val) {
                    set_error(error, X86_ERR_FEATCOMB,
                              "%s: both MSR_OFFCORE_RSP registers are taken by other values",
                              s->label);
                    goto out;
                }
                w = alt;
                s->evtsel = offcore_move(pmu, s->evtsel, w);
            }
            if (val & ~offcore_valid(pmu, w)) {
                set_error(error, X86_ERR_FEATCOMB,
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
                set_error(error, X86_ERR_FEATCOMB,
                          "%s: MSR_PEBS_LD_LAT_THRESHOLD already holds %u, one threshold only",
                          s->label, ldlat);
                goto out;
            }
            ldlat = s->d.ldlat;
        }
        ord[i] = s;
    }

    qsort(ord, nevents, sizeof ord[0], cmp_weight);
    uint32_t gen_used = 0;
    unsigned fixed_used = 0;
    for (size_t i = 0; i < nevents; i++) {
        sched_ev_t *s = ord[i];
        if (s->fixed != FIXED_NONE && !(fixed_used & (1u << s->fixed))) {
            fixed_used |= 1u << s->fixed;
            s->counter = 32 + s->fixed;
            continue;
        }
        uint32_t free_ok = s->genmask & ~gen_used;
        if (!free_ok && s->anyfixed) {
            set_error(error, X86_ERR_TOOMANY,
                      "%s: t (AnyThread) needs fixed counter %d on %s, which is taken", s->label,
                      s->fixed, pmu->name);
            goto out;
        }
        if (!free_ok) {
            set_error(error, X86_ERR_TOOMANY,
                      "%s: no free counter (%d generic + %d fixed, %zu events)", s->label,
                      pmu->num_cntrs, pmu->num_fixed_cntrs, nevents);
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
        if (g_ascii_strncasecmp(nm, pmu->name, (gsize)(sep - nm)) || strlen(pmu->name) != (size_t)(sep - nm)) {
            set_error(error, X86_ERR_NOTFOUND, "%s: not a %s event", nm, pmu->name);
            return FALSE;
        }
        nm = sep + 2;
    }
    int ev = pmusim_x86_find_event(pmu, nm);
    if (ev < 0) {
        set_error(error, X86_ERR_NOTFOUND, "%s: no such event on %s (%s)", nm, pmu->name,
                  pmu->desc);
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
        set_error(error, r, "%s: %s (%s PMU)", event ? event : "(null)", pmusim_x86_strerror(r),
                  pmu->name);
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
            if (umask)
                *umask = (uint32_t)((m->ucode >> 8) & 0xff);
            return TRUE;
        }
    }
    return FALSE;
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
    }

X86_NATIVE_PMU(wsm)
X86_NATIVE_PMU(wsm_dp)
X86_NATIVE_PMU(knm)

const pmusim_encoder_pmu_t pmusim_encoder_wsm = {
    .name = "wsm", .desc = "Intel Westmere (model 37): 4 generic + 3 fixed counters",
    .isa = PMUSIM_ISA_X86_64, .encode = enc_wsm, .list_events = list_wsm, .show_event = show_wsm,
    .option_help = x86_option_help, .event_count = count_wsm, .event_code = code_wsm, .event_umask = umask_wsm,
    .explain = explain_wsm,
};
const pmusim_encoder_pmu_t pmusim_encoder_wsm_dp = {
    .name = "wsm_dp", .desc = "Intel Westmere DP (models 44, 47): 4 generic + 3 fixed counters",
    .isa = PMUSIM_ISA_X86_64, .encode = enc_wsm_dp, .list_events = list_wsm_dp,
    .show_event = show_wsm_dp, .option_help = x86_option_help, .event_count = count_wsm_dp,
    .event_code = code_wsm_dp, .event_umask = umask_wsm_dp, .explain = explain_wsm_dp,
};
const pmusim_encoder_pmu_t pmusim_encoder_knm = {
    .name = "knm", .desc = "Intel Knights Mill (model 133): 2 generic + 3 fixed counters",
    .isa = PMUSIM_ISA_X86_64, .encode = enc_knm, .list_events = list_knm, .show_event = show_knm,
    .option_help = x86_option_help, .event_count = count_knm, .event_code = code_knm, .event_umask = umask_knm,
    .explain = explain_knm,
};
