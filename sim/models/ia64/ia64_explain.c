/* Explain mode of the IA-64 models (ops->describe_reg): what writing a value
 * to a PMC, PMD, IBR or DBR means, field by field, in one line.
 *
 * The field positions are those the model itself decodes (ia64_regs.c,
 * ia64_qual.c, ia64_capture.c), which follow ../shared/reference/ia64-pmu.md
 * (cited as "ref §n").  The description is of the value the register ends up
 * holding: bits the perfmon write checker keeps at their reset value (ref
 * §13) and the bits perfmon forces are named in a trailing note, so a learner
 * sees both what was written and what the hardware model will use.
 *
 * Pure functions of (descriptor, register, value): no model instance.
 */
#include <inttypes.h>
#include "ia64_priv.h"

#define IA64_PMC4_ENABLE_BIT 23u

/* "plm=0x8 (level 3)", "plm=0x9 (levels 0,3)", "plm=0x0 (no level: off)" */
static void ia64_explain_plm(GString *out, const char *name, unsigned plm)
{
    g_string_append_printf(out, "%s=0x%x (", name, plm);
    if (plm == 0) {
        g_string_append(out, "no level: off)");
        return;
    }
    unsigned n = (unsigned)__builtin_popcount(plm);
    g_string_append(out, n == 1 ? "level " : "levels ");
    const char *sep = "";
    for (unsigned l = 0; l < 4; l++)
        if ((plm >> l) & 1) {
            g_string_append_printf(out, "%s%u", sep, l);
            sep = ",";
        }
    g_string_append_c(out, ')');
}

static const char *ia64_ism_name(unsigned ism)
{
    static const char *const names[4] = {"both", "ia32", "ia64", "none"};
    return names[ism & 3];
}

/* Bits of `value` outside the register's write mask that differ from the
 * reset value: the write checker keeps the reset value there (ref §13). */
static uint64_t ia64_explain_effective(const ia64_regdesc_t *rd, uint64_t value, uint64_t *kept)
{
    *kept = (value ^ rd->reset) & ~rd->writable;
    return (value & rd->writable) | (rd->reset & ~rd->writable);
}

static void ia64_explain_kept(GString *out, uint64_t kept)
{
    if (kept)
        g_string_append_printf(out, "; bits 0x%" PRIx64 " are not writable and keep their reset "
                                    "value",
                                kept);
}

/* ---- counters (ref §3) ---- */

static void ia64_explain_ctr_cfg(const ia64_desc_t *d, uint32_t num, uint64_t v, GString *out)
{
    g_string_append_printf(out, "counter config for PMD%u: ", num);
    ia64_explain_plm(out, "plm", (unsigned)(v & 0xf));
    unsigned es = (unsigned)((v >> 8) & 0xff), umask = (unsigned)((v >> 16) & 0xf);
    unsigned ism = (unsigned)((v >> 24) & 3);
    g_string_append_printf(out, " ev=%u oi=%u pm=%u es=0x%02x umask=0x%x thres=%u ism=%s(%u)",
                           (unsigned)((v >> 4) & 1), (unsigned)((v >> 5) & 1),
                           (unsigned)((v >> 6) & 1), es, umask, (unsigned)((v >> 20) & 7),
                           ia64_ism_name(ism), ism);
    if (d->mont) {
        unsigned mesi = (unsigned)((v >> 27) & 0xf);
        g_string_append_printf(out, " all=%u mesi=0x%x", (unsigned)((v >> 26) & 1), mesi);
        if (mesi) {
            static const char letters[4] = {'I', 'S', 'E', 'M'}; /* bits 27..30 */
            g_string_append_c(out, '(');
            for (unsigned b = 0; b < 4; b++)
                if ((mesi >> b) & 1)
                    g_string_append_c(out, letters[b]);
            g_string_append_c(out, ')');
        }
    } else if (num == 4) {
        g_string_append_printf(out, " enable=%u", (unsigned)((v >> IA64_PMC4_ENABLE_BIT) & 1));
    }
    const ia64_event_info_t *ev = ia64_event_find(d, es, umask);
    if (ev)
        g_string_append_printf(out, " -> %s", ev->name);
    else
        g_string_append(out, " -> no trace-derived event (counts explicit EVENT records)");
}

/* ---- opcode matchers (ref §5) ---- */

static void ia64_explain_slots(GString *out, unsigned units /* bit 0 b, 1 f, 2 i, 3 m */)
{
    static const char *const names[4] = {"b", "f", "i", "m"};
    g_string_append(out, " slots=");
    if (!units) {
        g_string_append(out, "none");
        return;
    }
    const char *sep = "";
    for (int b = 3; b >= 0; b--)
        if ((units >> b) & 1) {
            g_string_append_printf(out, "%s%s", sep, names[b]);
            sep = ",";
        }
}

static void ia64_explain_opc(const ia64_desc_t *d, uint32_t num, uint64_t v, GString *out)
{
    if (!d->mont) {
        /* ita2 PMC8/9: ig_ad 0, inv 1, mask 29:3, match 59:33, b f i m 60..63 */
        bool first = num == d->pmc_opc[0];
        g_string_append_printf(out, "opcode matcher %u (IBRP%u/IBRP%u): ig_ad=%u inv=%u%s "
                                    "mask=0x%07" PRIx64 " match=0x%07" PRIx64,
                               first ? 0u : 1u, first ? 0u : 1u, first ? 2u : 3u,
                               (unsigned)(v & 1), (unsigned)((v >> 1) & 1),
                               first ? "" : " (ignored in PMC9)", (v >> 3) & 0x7ffffff,
                               (v >> 33) & 0x7ffffff);
        ia64_explain_slots(out, (unsigned)((v >> 60) & 0xf));
        return;
    }
    /* mont PMC32/34 (mask register): mask 40:0, b f i m 48..51, inv 56, ig_ad 57 */
    bool first = num == d->pmc_opc[0];
    g_string_append_printf(out, "opcode matcher %u mask (IBRP%u/IBRP%u): mask=0x%011" PRIx64,
                           first ? 0u : 1u, first ? 0u : 1u, first ? 2u : 3u,
                           v & UINT64_C(0x1ffffffffff));
    ia64_explain_slots(out, (unsigned)((v >> 48) & 0xf));
    if (first)
        g_string_append_printf(out, " inv=%u ig_ad=%u", (unsigned)((v >> 56) & 1),
                               (unsigned)((v >> 57) & 1));
}

static void ia64_explain_opc_ibr(const ia64_desc_t *d, uint64_t v, GString *out)
{
    /* PMC15 / PMC36 bit k = 1: IBR pair k's events ignore the matcher */
    g_string_append(out, "opcode matcher use per IBR pair:");
    for (unsigned k = 0; k < 4; k++) {
        uint32_t reg = d->pmc_opc[k & 1];
        if ((v >> k) & 1)
            g_string_append_printf(out, " IBRP%u=none", k);
        else if (d->mont)
            g_string_append_printf(out, " IBRP%u=PMC%u/%u", k, reg, reg + 1);
        else
            g_string_append_printf(out, " IBRP%u=PMC%u", k, reg);
    }
}

/* ---- capture units (ref §6-9) ---- */

static void ia64_explain_iear(const ia64_desc_t *d, uint64_t v, GString *out)
{
    g_string_append(out, "I-EAR config: ");
    ia64_explain_plm(out, "plm", (unsigned)(v & 0xf));
    g_string_append_printf(out, " pm=%u", (unsigned)((v >> 4) & 1));
    if ((v >> 13) & 1) {
        unsigned umask = (unsigned)((v >> 5) & 0xff);
        g_string_append_printf(out, " mode=cache umask=0x%02x", umask);
        if (umask == 0)
            g_string_append(out, " (RAB hits)");
        else if (umask == 0x40)
            g_string_append(out, " (every L1I miss)");
        else {
            /* bins [4,8) [8,16) [16,32) [32,128) [128,256) [256,1024)
             * [1024,4096) [4096,inf) for umask bits 0..7 */
            static const unsigned lo[8] = {4, 8, 16, 32, 128, 256, 1024, 4096};
            const char *sep = " (latency bins ";
            for (unsigned b = 0; b < 8; b++)
                if ((umask >> b) & 1) {
                    g_string_append_printf(out, "%s>=%u", sep, lo[b]);
                    sep = ",";
                }
            g_string_append_c(out, ')');
        }
    } else if (((v >> 12) & 1) == 0) {
        unsigned umask = (unsigned)((v >> 5) & 0x7f);
        g_string_append_printf(out, " mode=tlb umask=0x%x (", umask);
        static const char *const names[3] = {"L2TLB", "VHPT", "FAULT"};
        const char *sep = "";
        for (unsigned b = 0; b < 3; b++)
            if ((umask >> b) & 1) {
                g_string_append_printf(out, "%s%s", sep, names[b]);
                sep = "|";
            }
        g_string_append(out, *sep ? ")" : "nothing)");
    } else {
        g_string_append(out, " mode=off (ct=01: nothing monitored)");
    }
    if (!d->mont) {
        unsigned ism = (unsigned)((v >> 14) & 3);
        g_string_append_printf(out, " ism=%s(%u)", ia64_ism_name(ism), ism);
    }
}

static void ia64_explain_dear(uint64_t v, GString *out)
{
    g_string_append(out, "D-EAR config: ");
    ia64_explain_plm(out, "plm", (unsigned)(v & 0xf));
    unsigned mode = (unsigned)((v >> 7) & 3), umask = (unsigned)((v >> 16) & 0xf);
    unsigned ism = (unsigned)((v >> 24) & 3);
    g_string_append_printf(out, " pm=%u", (unsigned)((v >> 6) & 1));
    switch (mode) {
    case 0:
        g_string_append_printf(out, " mode=cache(0) umask=0x%x (loads missing L1D with latency "
                                    ">= %u)",
                               umask, 4u << umask);
        break;
    case 1: {
        g_string_append_printf(out, " mode=tlb(1) umask=0x%x (", umask);
        static const char *const names[4] = {NULL, "L2DTLB", "VHPT", "FAULT"};
        const char *sep = "";
        for (unsigned b = 1; b < 4; b++)
            if ((umask >> b) & 1) {
                g_string_append_printf(out, "%s%s", sep, names[b]);
                sep = "|";
            }
        g_string_append(out, *sep ? ")" : "nothing)");
        break;
    }
    case 2:
        g_string_append_printf(out, " mode=alat(2) umask=0x%x (ALAT misses)", umask);
        break;
    default:
        g_string_append_printf(out, " mode=3 (reserved: captures nothing) umask=0x%x", umask);
        break;
    }
    g_string_append_printf(out, " ism=%s(%u)", ia64_ism_name(ism), ism);
}

static void ia64_explain_btb(const ia64_desc_t *d, uint64_t v, GString *out)
{
    static const char *const tm[4] = {"none", "not-taken", "taken", "all"};
    static const char *const ptm[4] = {"none", "target-mispredicted", "target-predicted", "all"};
    static const char *const ppm[4] = {"none", "path-mispredicted", "path-predicted", "all"};
    static const char *const brt[4] = {"all", "ip-relative", "return", "indirect"};
    g_string_append_printf(out, "%s config: ", d->mont ? "ETB" : "BTB");
    ia64_explain_plm(out, "plm", (unsigned)(v & 0xf));
    unsigned t = (unsigned)((v >> 8) & 3), p = (unsigned)((v >> 10) & 3),
             q = (unsigned)((v >> 12) & 3), b = (unsigned)((v >> 14) & 3);
    g_string_append_printf(out, " pm=%u ds=%u%s tm=%u(%s) ptm=%u(%s) ppm=%u(%s) brt=%u(%s)",
                           (unsigned)((v >> 6) & 1), (unsigned)((v >> 7) & 1),
                           d->mont && ((v >> 7) & 1) ? " (reserved on mont)" : "", t, tm[t], p,
                           ptm[p], q, ppm[q], b, brt[b]);
}

static void ia64_explain_ipear(uint64_t v, GString *out)
{
    unsigned mode = (unsigned)((v >> 8) & 7);
    g_string_append(out, "IP-EAR config: ");
    ia64_explain_plm(out, "plm", (unsigned)(v & 0xf));
    g_string_append_printf(out, " pm=%u mode=%u (%s) delay=%u", (unsigned)((v >> 6) & 1), mode,
                           mode == 4 ? "IP-EAR on" : "IP-EAR off", (unsigned)((v >> 11) & 0xff));
}

/* ---- range configuration (ref §10.2, §10.3) ---- */

static void ia64_explain_drange(uint64_t v, GString *out)
{
    static const unsigned cfg_shift[4] = {3, 11, 19, 27};
    static const char *const cfg_name[4] = {"code range+opcode+data range", "code range+opcode",
                                            "data range", "always"};
    g_string_append(out, "data-range config:");
    for (unsigned p = 0; p < 4; p++) {
        unsigned cfg = (unsigned)((v >> cfg_shift[p]) & 3);
        unsigned ena = (unsigned)((v >> (45 + p)) & 1);
        g_string_append_printf(out, " DBRP%u=%s", p, ena ? "on" : "off");
        if (ena)
            g_string_append_printf(out, "(cfg=%u %s)", cfg, cfg_name[cfg]);
    }
}

static void ia64_explain_irange(uint64_t v, GString *out)
{
    g_string_append(out, "code-range config:");
    for (unsigned p = 0; p < 4; p++)
        g_string_append_printf(out, " IBRP%u=%s", p,
                               ((v >> (1 + 3 * p)) & 1) ? "ignored" : "used");
    g_string_append_printf(out, " fine=%u", (unsigned)((v >> 13) & 1));
}

/* ---- PMC0 (ref §2, SDM §7.2) ---- */

static void ia64_explain_pmc0(const ia64_desc_t *d, uint64_t v, GString *out)
{
    g_string_append_printf(out, "freeze/overflow status: fr=%u (%s) overflow=", (unsigned)(v & 1),
                           (v & 1) ? "frozen" : "counting");
    const char *sep = "";
    for (uint32_t i = d->nctr_first; i <= d->nctr_last; i++)
        if ((v >> i) & 1) {
            g_string_append_printf(out, "%sPMD%u", sep, i);
            sep = ",";
        }
    if (!*sep)
        g_string_append(out, "none");
}

/* ---- data registers ---- */

static void ia64_explain_pmd(const ia64_desc_t *d, uint32_t num, uint64_t v, GString *out)
{
    if (d->pmd[num].kind == IA64_RK_CTR) {
        uint64_t c = v & IA64_CTR_MASK;
        g_string_append_printf(out, "counter value: 0x%" PRIx64, c);
        if (c >= IA64_CTR_WRAP / 2)
            g_string_append_printf(out, " = 2^47-%" PRIu64 " (overflows after %" PRIu64
                                        " more)",
                                   IA64_CTR_WRAP - c, IA64_CTR_WRAP - c);
        else
            g_string_append_printf(out, " = %" PRIu64, c);
        if (v & ~IA64_CTR_MASK)
            g_string_append(out, "; bits 63:47 are ignored");
        return;
    }
    const char *what = "data register";
    if (num == d->pmd_iear_addr)
        what = "I-EAR address data";
    else if (num == d->pmd_iear_lat)
        what = "I-EAR latency data";
    else if (num == d->pmd_dear_addr)
        what = "D-EAR data address";
    else if (num == d->pmd_dear_lat)
        what = "D-EAR latency data";
    else if (num == d->pmd_dear_ip)
        what = "D-EAR instruction address";
    else if (num == d->pmd_ring_index)
        what = d->mont ? "ETB/IP-EAR index (ebi, full)" : "BTB index (bbi, full, b1, bruflush)";
    else if (d->mont && num == d->pmd_ring_ext)
        what = "ETB/IP-EAR entry extension nibbles";
    else if (num >= d->pmd_ring_first && num < d->pmd_ring_first + d->ring_size)
        what = d->mont ? "ETB/IP-EAR entry" : "BTB entry";
    g_string_append_printf(out, "%s: 0x%" PRIx64, what, v);
    if (num >= d->pmd_ring_first && num < d->pmd_ring_first + d->ring_size)
        g_string_append_printf(out, " (entry %u)", num - d->pmd_ring_first);
}

/* ---- IBR / DBR (ref §10.1) ---- */

static void ia64_explain_dbg(bool ibr, uint32_t num, uint64_t v, GString *out)
{
    const char *pair = ibr ? "IBRP" : "DBRP";
    if ((num & 1) == 0) {
        g_string_append_printf(out, "%s%u address: 0x%016" PRIx64, pair, num / 2, v);
        return;
    }
    g_string_append_printf(out,
                           "%s%u mask: mask=0x%014" PRIx64 " (1 = bit compared; 63:56 always) ",
                           pair, num / 2, v & UINT64_C(0x00ffffffffffffff));
    ia64_explain_plm(out, "plm", (unsigned)((v >> 56) & 0xf));
    if (ibr) {
        g_string_append_printf(out, " x=%u", (unsigned)(v >> 63));
        if (v >> 63)
            g_string_append(out, " (cleared: perfmon arms no breakpoint)");
    } else {
        unsigned r = (unsigned)(v >> 63), w = (unsigned)((v >> 62) & 1);
        g_string_append_printf(out, " r=%u w=%u", r, w);
        if (r || w)
            g_string_append(out, " (cleared: perfmon arms no breakpoint)");
        g_string_append(out, "; plm is ignored for data ranges");
    }
}

/* ---- entry point ---- */

static gboolean ia64_describe_reg(const ia64_desc_t *d, pmusim_regspace_t space, uint32_t num,
                                  uint64_t value, GString *out)
{
    switch (space) {
    case PMUSIM_REG_PMC: {
        if (num >= IA64_NREGS || d->pmc[num].kind == IA64_RK_NONE)
            return FALSE;
        const ia64_regdesc_t *rd = &d->pmc[num];
        uint64_t kept;
        uint64_t v = ia64_explain_effective(rd, value, &kept);
        switch ((ia64_regkind_t)rd->kind) {
        case IA64_RK_PMC0:
            ia64_explain_pmc0(d, v, out);
            break;
        case IA64_RK_OVF_HI:
            g_string_append_printf(out, "overflow bits of PMD%u-%u (none implemented; reads 0)",
                                   num * 64, num * 64 + 63);
            break;
        case IA64_RK_CTR_CFG:
            ia64_explain_ctr_cfg(d, num, v, out);
            break;
        case IA64_RK_OPC_MASK:
            ia64_explain_opc(d, num, v, out);
            break;
        case IA64_RK_OPC_MATCH:
            g_string_append_printf(out, "opcode matcher %u match: match=0x%011" PRIx64,
                                   num == d->pmc_opc[0] + 1 ? 0u : 1u,
                                   v & UINT64_C(0x1ffffffffff));
            break;
        case IA64_RK_OPC_IBR:
            ia64_explain_opc_ibr(d, v, out);
            break;
        case IA64_RK_IEAR:
            ia64_explain_iear(d, v, out);
            break;
        case IA64_RK_DEAR:
            ia64_explain_dear(v, out);
            break;
        case IA64_RK_BTB:
            ia64_explain_btb(d, v, out);
            break;
        case IA64_RK_IPEAR:
            ia64_explain_ipear(v, out);
            break;
        case IA64_RK_DRANGE:
            ia64_explain_drange(v, out);
            break;
        case IA64_RK_IRANGE:
            ia64_explain_irange(v, out);
            break;
        default:
            g_string_append_printf(out, "0x%" PRIx64, v);
            break;
        }
        ia64_explain_kept(out, kept);
        if (!d->mont && rd->kind == IA64_RK_CTR_CFG && num == 4 &&
            !((v >> IA64_PMC4_ENABLE_BIT) & 1))
            g_string_append(out, "; bit 23 (PMU enable) is forced to 1 as perfmon does");
        return TRUE;
    }
    case PMUSIM_REG_PMD:
        if (num >= IA64_NREGS || d->pmd[num].kind == IA64_RK_NONE)
            return FALSE;
        ia64_explain_pmd(d, num, value, out);
        return TRUE;
    case PMUSIM_REG_IBR:
    case PMUSIM_REG_DBR:
        if (num >= IA64_NDBG)
            return FALSE;
        ia64_explain_dbg(space == PMUSIM_REG_IBR, num, value, out);
        return TRUE;
    default:
        return FALSE;
    }
}

gboolean ia64_describe_reg_ita2(pmusim_regspace_t space, uint32_t num, uint64_t value,
                                GString *out)
{
    return ia64_describe_reg(&ia64_desc_ita2, space, num, value, out);
}

gboolean ia64_describe_reg_mont(pmusim_regspace_t space, uint32_t num, uint64_t value,
                                GString *out)
{
    return ia64_describe_reg(&ia64_desc_mont, space, num, value, out);
}
