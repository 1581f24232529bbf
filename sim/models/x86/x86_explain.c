/* Explain mode of the x86 models (ops->describe_reg): what writing a value to
 * an MSR means, field by field, in one line.
 *
 * Layouts: ../shared/reference/x86-pmu.md ("ref §n"): IA32_PERFEVTSELx §3,
 * IA32_FIXED_CTR_CTRL §4.1, global control §5, PEBS §6, load latency §7,
 * MSR_OFFCORE_RSP_x §8.2 (Westmere; bits 12-14 name different responses on
 * Westmere and Westmere DP) and §8.3 (Knights Mill).  The bit names are the
 * ones the encoder accepts as umasks (libpfm4's names, ref §8).  Where the
 * model would refuse the write (#GP, docs/sim-x86.md §2) the description
 * says so.  Pure functions of (descriptor, register, value).
 */
#include <inttypes.h>
#include <string.h>
#include "x86_model.h"

/* ---- MSR_OFFCORE_RSP_x bit names (ref §8.2, §8.3) ---- */

static const char *const x86_oc_wsm_names[16] = {
    "DMND_DATA_RD", "DMND_RFO", "DMND_IFETCH", "WB", "PF_DATA_RD", "PF_RFO", "PF_IFETCH", "OTHER",
    "UNCORE_HIT", "OTHER_CORE_HIT_SNP", "OTHER_CORE_HITM", "REMOTE_CACHE_HITM",
    "REMOTE_CACHE_FWD", "LOCAL_DRAM", "REMOTE_DRAM", "NON_DRAM",
};

/* Westmere DP (models 44/47) names bits 12-14 differently (ref §8.2). */
static const char *const x86_oc_wsm_dp_names[16] = {
    "DMND_DATA_RD", "DMND_RFO", "DMND_IFETCH", "WB", "PF_DATA_RD", "PF_RFO", "PF_IFETCH", "OTHER",
    "UNCORE_HIT", "OTHER_CORE_HIT_SNP", "OTHER_CORE_HITM", "REMOTE_CACHE_HITM",
    "LOCAL_DRAM_AND_REMOTE_CACHE_HIT", "REMOTE_DRAM", "OTHER_LLC_MISS", "NON_DRAM",
};

/* Knights Mill request bits 15:0 (NULL: reserved). */
static const char *const x86_oc_knm_req[16] = {
    "DMND_DATA_RD", "DMND_RFO", "DMND_CODE_RD", NULL, NULL, "PF_L2_RFO", "PF_L2_CODE_RD",
    "PARTIAL_READS", "PARTIAL_WRITES", "UC_CODE_READS", "BUS_LOCKS", "FULL_STREAMING_STORES",
    "PF_SOFTWARE", "PF_L1_DATA_RD", "PARTIAL_STREAMING_STORES", "ANY_REQUEST",
};

/* Knights Mill supplier / snoop bits 17-37: the sources name only
 * combinations (ref §8.3); an exact match is shown by name. */
typedef struct x86_oc_combo {
    const char *name;
    uint64_t bits;
} x86_oc_combo_t;

#define B(n) (UINT64_C(1) << (n))
static const x86_oc_combo_t x86_oc_knm_combos[] = {
    {"NON_DRAM", B(17) | B(37)},
    {"L2_HIT_NEAR_TILE_E_F", B(19) | B(35)},
    {"L2_HIT_NEAR_TILE_M", B(19) | B(36)},
    {"L2_HIT_NEAR_TILE", B(19) | B(20) | B(35) | B(36)},
    {"L2_HIT_FAR_TILE_E_F", B(22) | B(35)},
    {"L2_HIT_FAR_TILE_M", B(22) | B(36)},
    {"L2_HIT_FAR_TILE", B(22) | B(35) | B(36)},
    {"MCDRAM_NEAR", B(21) | B(31)},
    {"MCDRAM_FAR", B(22) | B(32)},
    {"MCDRAM", B(21) | B(22) | B(31) | B(32)},
    {"DDR_NEAR", B(23) | B(31)},
    {"DDR_FAR", B(24) | B(31)}, /* libpfm4's bits; Intel's JSON says 24, 32 (ref §8.3) */
    {"DDR", B(23) | B(24) | B(31) | B(32)},
};
#undef B

static void x86_explain_bitlist(GString *out, uint64_t bits, const char *const *names,
                                unsigned first, unsigned last)
{
    const char *sep = "";
    for (unsigned b = first; b <= last; b++) {
        if (!((bits >> b) & 1))
            continue;
        if (names && names[b - first])
            g_string_append_printf(out, "%s%s", sep, names[b - first]);
        else
            g_string_append_printf(out, "%sbit%u", sep, b);
        sep = "|";
    }
    if (!*sep)
        g_string_append(out, "none");
}

static void x86_explain_offcore(const x86_desc_t *d, unsigned k, uint64_t v, GString *out)
{
    g_string_append_printf(out, "offcore response %u filter (OFFCORE_RESPONSE_%u): ", k, k);
    if (d->oc_layout == X86_OC_WSM) {
        const char *const *names = d == &x86_desc_wsm_dp ? x86_oc_wsm_dp_names
                                                         : x86_oc_wsm_names;
        g_string_append(out, "request=");
        x86_explain_bitlist(out, v & 0xff, names, 0, 7);
        g_string_append(out, " response=");
        x86_explain_bitlist(out, (v >> 8) & 0xff, names + 8, 0, 7);
    } else {
        g_string_append(out, "request=");
        x86_explain_bitlist(out, v & 0xffff, x86_oc_knm_req, 0, 15);
        /* supplier / snoop bits 37:17 (bit 16 is ANY_RESPONSE) */
        uint64_t sup = v & (((UINT64_C(1) << 21) - 1) << 17);
        g_string_append(out, " response=");
        if ((v >> 16) & 1)
            g_string_append(out, sup ? "ANY_RESPONSE|" : "ANY_RESPONSE");
        if (sup) {
            const char *name = NULL;
            for (size_t i = 0; i < G_N_ELEMENTS(x86_oc_knm_combos); i++)
                if (x86_oc_knm_combos[i].bits == sup)
                    name = x86_oc_knm_combos[i].name;
            g_string_append(out, name ? name : "");
            g_string_append(out, name ? "(bits " : "bits ");
            const char *sep = "";
            for (unsigned b = 17; b <= 37; b++)
                if ((sup >> b) & 1) {
                    g_string_append_printf(out, "%s%u", sep, b);
                    sep = ",";
                }
            if (name)
                g_string_append_c(out, ')');
        } else if (!((v >> 16) & 1)) {
            g_string_append(out, "none");
        }
        if (k == 0)
            g_string_append_printf(out, " outstanding=%u%s", (unsigned)((v >> 38) & 1),
                                   ((v >> 38) & 1) ? " (average-latency mode: counts requests "
                                                     "in flight per cycle)"
                                                   : "");
    }
    if (d->offcore_per_core)
        g_string_append(out, " (shared by the core's threads)");
    uint64_t bad = v & ~d->oc_valid[k];
    if (bad)
        g_string_append_printf(out, "; bits 0x%" PRIx64 " are reserved on %s (#GP)", bad,
                               d->ops->name);
}

/* ---- counters and their controls ---- */

static void x86_explain_counter_value(uint64_t v, unsigned width, GString *out)
{
    /* a write loads bits 31:0 sign-extended from bit 31 (ref §3) */
    uint64_t max = (UINT64_C(1) << width) - 1;
    uint64_t c = (uint64_t)(int64_t)(int32_t)(uint32_t)v & max;
    g_string_append_printf(out, "counter value 0x%" PRIx64, c);
    if (c > max / 2)
        g_string_append_printf(out, " = 2^%u-%" PRIu64 " (overflows after %" PRIu64 " more)",
                               width, max - c + 1, max - c + 1);
    else
        g_string_append_printf(out, " = %" PRIu64, c);
    if ((uint32_t)v & UINT32_C(0x80000000))
        g_string_append(out, " (bit 31 sign-extended)");
    if ((v >> 32) != 0 && (v >> 32) != ((uint64_t)(int64_t)(int32_t)(uint32_t)v >> 32))
        g_string_append(out, "; bits 63:32 are ignored");
}

static void x86_explain_evtsel(const x86_desc_t *d, unsigned i, uint64_t v, GString *out)
{
    unsigned code = (unsigned)(v & 0xff), umask = (unsigned)((v >> 8) & 0xff);
    g_string_append_printf(out,
                           "PMC%u: event=0x%02x umask=0x%02x usr=%u os=%u edge=%u pc=%u int=%u "
                           "any=%u en=%u inv=%u cmask=%u",
                           i, code, umask, (unsigned)((v >> 16) & 1), (unsigned)((v >> 17) & 1),
                           (unsigned)((v >> 18) & 1), (unsigned)((v >> 19) & 1),
                           (unsigned)((v >> 20) & 1), (unsigned)((v >> 21) & 1),
                           (unsigned)((v >> 22) & 1), (unsigned)((v >> 23) & 1),
                           (unsigned)((v >> 24) & 0xff));
    const char *src = d->ops->event_source ? d->ops->event_source(code, umask) : NULL;
    if (src)
        g_string_append_printf(out, " -> counts %s", src);
    else
        g_string_append(out, " -> no trace-derived event (counts explicit EVENT records)");
    const x86_restriction_t *rs = x86_restriction_find(d, (uint8_t)code, (uint8_t)umask);
    if (rs && i < X86_MAX_GP && !((rs->counters >> i) & 1))
        g_string_append_printf(out,
                               "; %s counts only on counters 0x%x (Intel's event data): "
                               "PMC%u counts nothing",
                               rs->intel_event, rs->counters, i);
    if (v >> 32)
        g_string_append_printf(out, "; bits 0x%" PRIx64 " are reserved (#GP)",
                               v & ~UINT64_C(0xffffffff));
}

static void x86_explain_fixed_ctrl(const x86_desc_t *d, uint64_t v, GString *out)
{
    static const char *const en[4] = {"off", "ring 0", "rings 1-3", "all rings"};
    for (unsigned k = 0; k < X86_NUM_FIXED; k++) {
        unsigned f = (unsigned)((v >> (4 * k)) & 0xf);
        g_string_append_printf(out, "%sFIXED_CTR%u: en=%u(%s) any=%u pmi=%u", k ? "; " : "", k,
                               f & 3, en[f & 3], (f >> 2) & 1, (f >> 3) & 1);
    }
    if (v & ~d->fixed_ctrl_valid)
        g_string_append_printf(out, "; bits 0x%" PRIx64 " are reserved (#GP)",
                               v & ~d->fixed_ctrl_valid);
}

static uint64_t x86_explain_global_valid(const x86_desc_t *d)
{
    return ((UINT64_C(1) << d->n_gp) - 1) | (UINT64_C(7) << 32);
}

static void x86_explain_counter_set(const x86_desc_t *d, uint64_t v, GString *out)
{
    const char *sep = "";
    for (unsigned i = 0; i < d->n_gp; i++)
        if ((v >> i) & 1) {
            g_string_append_printf(out, "%sIA32_PMC%u", sep, i);
            sep = " ";
        }
    for (unsigned k = 0; k < X86_NUM_FIXED; k++)
        if ((v >> (32 + k)) & 1) {
            g_string_append_printf(out, "%sIA32_FIXED_CTR%u", sep, k);
            sep = " ";
        }
    if (!*sep)
        g_string_append(out, "none");
}

static void x86_explain_pebs_enable(const x86_desc_t *d, uint64_t v, GString *out)
{
    g_string_append(out, "PEBS on: ");
    const char *sep = "";
    for (unsigned i = 0; i < d->n_gp; i++)
        if ((v >> i) & 1) {
            g_string_append_printf(out, "%sIA32_PMC%u", sep, i);
            sep = " ";
        }
    if (!*sep)
        g_string_append(out, "none");
    if (d->has_ldlat) {
        g_string_append(out, "; load latency on: ");
        sep = "";
        for (unsigned i = 0; i < d->n_gp; i++)
            if ((v >> (32 + i)) & 1) {
                g_string_append_printf(out, "%sIA32_PMC%u", sep, i);
                sep = " ";
            }
        if (!*sep)
            g_string_append(out, "none");
    }
    if (v & ~d->pebs_enable_valid)
        g_string_append_printf(out, "; bits 0x%" PRIx64 " are reserved on %s (#GP)",
                               v & ~d->pebs_enable_valid, d->ops->name);
}

static gboolean x86_describe_reg(const x86_desc_t *d, pmusim_regspace_t space, uint32_t num,
                                 uint64_t v, GString *out)
{
    if (space != PMUSIM_REG_MSR)
        return FALSE;
    if (num >= X86_MSR_PMC0 && num < X86_MSR_PMC0 + d->n_gp) {
        x86_explain_counter_value(v, d->gp_width, out);
        return TRUE;
    }
    if (num >= X86_MSR_FIXED_CTR0 && num < X86_MSR_FIXED_CTR0 + X86_NUM_FIXED) {
        x86_explain_counter_value(v, d->fixed_width, out);
        return TRUE;
    }
    if (num >= X86_MSR_EVTSEL0 && num < X86_MSR_EVTSEL0 + d->n_gp) {
        x86_explain_evtsel(d, num - X86_MSR_EVTSEL0, v, out);
        return TRUE;
    }
    switch (num) {
    case X86_MSR_FIXED_CTR_CTRL:
        x86_explain_fixed_ctrl(d, v, out);
        return TRUE;
    case X86_MSR_GLOBAL_CTRL: {
        g_string_append(out, "enabled counters: ");
        x86_explain_counter_set(d, v, out);
        uint64_t bad = v & ~x86_explain_global_valid(d);
        if (bad)
            g_string_append_printf(out, "; bits 0x%" PRIx64 " are reserved (#GP)", bad);
        return TRUE;
    }
    case X86_MSR_GLOBAL_STATUS:
        g_string_append(out, "overflow status (read-only: a write is #GP)");
        return TRUE;
    case X86_MSR_GLOBAL_OVF_CTRL: {
        g_string_append(out, "clear overflow status of: ");
        x86_explain_counter_set(d, v, out);
        if ((v >> 62) & 1)
            g_string_append(out, " OvfBuf");
        if ((v >> 63) & 1)
            g_string_append(out, " CondChgd");
        uint64_t bad = v & ~(x86_explain_global_valid(d) | d->ovf_ctrl_extra);
        if (bad)
            g_string_append_printf(out, "; bits 0x%" PRIx64 " are reserved (#GP)", bad);
        return TRUE;
    }
    case X86_MSR_OFFCORE_RSP0:
    case X86_MSR_OFFCORE_RSP1:
        x86_explain_offcore(d, num - X86_MSR_OFFCORE_RSP0, v, out);
        return TRUE;
    case X86_MSR_PEBS_ENABLE:
        x86_explain_pebs_enable(d, v, out);
        return TRUE;
    case X86_MSR_PEBS_LD_LAT:
        if (!d->has_ldlat)
            return FALSE;
        g_string_append_printf(out, "load-latency threshold: %" PRIu64
                                    " cycles (counts loads slower than that)",
                               v & 0xffff);
        if (v < 3)
            g_string_append(out, "; below the SDM minimum of 3");
        if (v >> 16)
            g_string_append_printf(out, "; bits 0x%" PRIx64 " are reserved (#GP)",
                                   v & ~UINT64_C(0xffff));
        return TRUE;
    case X86_MSR_DEBUGCTL: {
        g_string_append_printf(out, "debug control: FREEZE_PERFMON_ON_PMI=%u",
                               (unsigned)((v >> 12) & 1));
        if ((v >> 12) & 1)
            g_string_append(out, " (a PMI clears IA32_PERF_GLOBAL_CTRL)");
        uint64_t other = v & ~(uint64_t)X86_DEBUGCTL_FREEZE_PERFMON_ON_PMI & d->debugctl_valid;
        if (other)
            g_string_append_printf(out, "; other bits 0x%" PRIx64 " have no effect in the model",
                                   other);
        if (v & ~d->debugctl_valid)
            g_string_append_printf(out, "; bits 0x%" PRIx64 " are reserved (#GP)",
                                   v & ~d->debugctl_valid);
        return TRUE;
    }
    case X86_MSR_DS_AREA:
        g_string_append_printf(out, "DS save area at 0x%" PRIx64
                                    " (the model puts PEBS records in the report)",
                               v);
        return TRUE;
    default:
        return FALSE;
    }
}

gboolean x86_describe_reg_wsm(pmusim_regspace_t space, uint32_t num, uint64_t value, GString *out)
{
    return x86_describe_reg(&x86_desc_wsm, space, num, value, out);
}

gboolean x86_describe_reg_wsm_dp(pmusim_regspace_t space, uint32_t num, uint64_t value,
                                 GString *out)
{
    return x86_describe_reg(&x86_desc_wsm_dp, space, num, value, out);
}

gboolean x86_describe_reg_knm(pmusim_regspace_t space, uint32_t num, uint64_t value, GString *out)
{
    return x86_describe_reg(&x86_desc_knm, space, num, value, out);
}
