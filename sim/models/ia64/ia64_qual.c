/* IA-64 event qualification: instruction-address ranges (IBR pairs, PMC14 /
 * PMC38, fine mode), opcode matchers (PMC8/9 + PMC15; PMC32-35 + PMC36) and
 * data-address ranges (DBR pairs, PMC13 / PMC41).  Ref §5, §10.
 *
 * Channels k = 0..3 pair IBRPk with an opcode matcher (PMC8/PMC32 for k = 0
 * and 2, PMC9/PMC34 for k = 1 and 3).  An instruction is tagged by channel k
 * when it passes the range check I_k and the opcode check O_k:
 *   I_k = true if the matcher's ig_ad bit or PMC14's "ignore IBRPk" bit is
 *         set, else the IBR match (coarse: address/mask/plm of IBRPk; fine:
 *         IBRP k&1 .. IBRP (k&1)+2 as an inclusive bundle range inside the
 *         lower bound's page), inverted by the matcher's inv bit (Itanium 2
 *         PMC8 / Montecito PMC32 only);
 *   O_k = true if PMC15/PMC36 bit k is set, else the opcode match.
 * Event qualification:
 *   - IA64_TAGGED_INST_RETIRED (es 0x08, umask k): tag of channel k;
 *   - other events with the iarr/opcm qualifiers: channel 0 (prefetch
 *     events: channel 1), I only for iarr-only events;
 *   - events with the darr qualifier (memory pipeline): the OR over the DBR
 *     pairs X enabled in PMC13 (ena_dbrpX) of cfg_dbrpX: 0 tag_X and D_X,
 *     1 tag_X, 2 D_X, 3 always; no enabled pair = unconstrained.
 * D_X compares the access's data address with DBRPX (plm ignored for data
 * ranges, as libpfm states).
 */
#include "ia64_priv.h"

#define IA64_HIGH_BYTE UINT64_C(0xff00000000000000) /* always compared (ref §10.1) */
#define IA64_MASK56 UINT64_C(0x00ffffffffffffff)
#define IA64_FIELD27 UINT64_C(0x7ffffff)
#define IA64_FIELD41 UINT64_C(0x1ffffffffff)

static void ia64_range_decode(ia64_range_t *rg, uint64_t addr, uint64_t mask, bool code)
{
    rg->addr = addr;
    rg->cmp = (mask & IA64_MASK56) | IA64_HIGH_BYTE;
    if (code)
        rg->cmp &= ~UINT64_C(0xf); /* IBR address bits 3:0 are ignored */
    rg->plm = (uint8_t)((mask >> 56) & 0xf);
}

static void ia64_matcher_decode(const ia64_desc_t *d, ia64_matcher_t *m, uint64_t pmc,
                                uint64_t match_reg, bool first)
{
    if (!d->mont) {
        /* ita2 PMC8/9: ig_ad 0, inv 1, mask 29:3, match 59:33, b f i m 60..63 */
        m->ig_ad = pmc & 1;
        m->inv = first && ((pmc >> 1) & 1); /* inv only meaningful in PMC8 */
        m->mask = (pmc >> 3) & IA64_FIELD27;
        m->match = (pmc >> 33) & IA64_FIELD27;
        m->units = (uint8_t)((pmc >> 60) & 0xf);
        m->trivial = m->mask == IA64_FIELD27 && m->units == 0xf;
    } else {
        /* mont PMC32/34: mask 40:0, b f i m 48..51, inv 56, ig_ad 57;
         * PMC33/35: match 40:0 */
        m->ig_ad = first && ((pmc >> 57) & 1);
        m->inv = first && ((pmc >> 56) & 1);
        m->mask = pmc & IA64_FIELD41;
        m->match = match_reg & IA64_FIELD41;
        m->units = (uint8_t)((pmc >> 48) & 0xf);
        m->trivial = m->mask == IA64_FIELD41 && m->units == 0xf;
    }
}

void ia64_qual_compile(ia64_model_t *im, uint32_t t)
{
    const ia64_desc_t *d = im->d;
    ia64_thread_t *th = &im->th[t];
    for (unsigned p = 0; p < 4; p++) {
        ia64_range_decode(&th->ibrp[p], th->ibr[2 * p], th->ibr[2 * p + 1], true);
        ia64_range_decode(&th->dbrp[p], th->dbr[2 * p], th->dbr[2 * p + 1], false);
    }
    uint64_t irange = th->pmc[d->pmc_irange];
    for (unsigned p = 0; p < 4; p++)
        th->irange_ignore[p] = (irange >> (1 + 3 * p)) & 1; /* bits 1, 4, 7, 10 */
    th->fine = (irange >> 13) & 1;
    uint64_t drange = th->pmc[d->pmc_drange];
    static const unsigned cfg_shift[4] = {3, 11, 19, 27};
    for (unsigned p = 0; p < 4; p++) {
        th->dcfg[p] = (uint8_t)((drange >> cfg_shift[p]) & 3);
        th->dena[p] = (drange >> (45 + p)) & 1;
    }
    th->opc_ignore = (uint8_t)(th->pmc[d->pmc_opc_ibr] & 0xf);
    for (unsigned k = 0; k < 2; k++) {
        uint32_t n = d->pmc_opc[k];
        ia64_matcher_decode(d, &th->opc[k], th->pmc[n], d->mont ? th->pmc[n + 1] : 0, k == 0);
    }
    for (unsigned k = 0; k < 4; k++) {
        const ia64_matcher_t *m = &th->opc[k & 1];
        th->i_trivial[k] = m->ig_ad || th->irange_ignore[k];
        th->o_trivial[k] = ((th->opc_ignore >> k) & 1) || m->trivial;
    }
    bool any = false, always = false;
    for (unsigned p = 0; p < 4; p++) {
        if (!th->dena[p])
            continue;
        any = true;
        if (th->dcfg[p] == 3 || (th->dcfg[p] == 1 && th->i_trivial[p] && th->o_trivial[p]))
            always = true;
    }
    th->dq_trivial = !any || always;
}

static bool ia64_irange_hit(const ia64_thread_t *th, unsigned k, uint64_t ip, unsigned plm)
{
    const ia64_matcher_t *m = &th->opc[k & 1];
    if (m->ig_ad || th->irange_ignore[k])
        return true;
    bool hit;
    if (th->fine) {
        const ia64_range_t *lo = &th->ibrp[k & 1], *hi = &th->ibrp[(k & 1) + 2];
        uint64_t off_mask = ~lo->cmp & ~UINT64_C(0xf);
        uint64_t off = ip & off_mask;
        hit = ((lo->plm >> plm) & 1) && ((ip ^ lo->addr) & lo->cmp) == 0 &&
              off >= (lo->addr & off_mask) && off <= (hi->addr & off_mask);
    } else {
        const ia64_range_t *rg = &th->ibrp[k];
        hit = ((rg->plm >> plm) & 1) && ((ip ^ rg->addr) & rg->cmp) == 0;
    }
    return m->inv ? !hit : hit;
}

/* Unit class bit of the slot: bit 0 B, 1 F, 2 I, 3 M (the matchers' b/f/i/m
 * order).  An L+X pair executes on the B unit for brl (major opcode 0xC /
 * 0xD), otherwise on the I unit (movl). */
static unsigned ia64_unit_bit(const pmusim_rec_t *r)
{
    switch (r->unit) {
    case PMUSIM_UNIT_M: return 3;
    case PMUSIM_UNIT_I: return 2;
    case PMUSIM_UNIT_F: return 1;
    case PMUSIM_UNIT_B: return 0;
    default: {
        unsigned major = (unsigned)((r->insn >> 37) & 0xf);
        return major == 0xc || major == 0xd ? 0 : 2;
    }
    }
}

static bool ia64_opcode_hit(const ia64_model_t *im, const ia64_thread_t *th, unsigned k,
                            const pmusim_rec_t *r)
{
    if ((th->opc_ignore >> k) & 1)
        return true;
    const ia64_matcher_t *m = &th->opc[k & 1];
    if (!((m->units >> ia64_unit_bit(r)) & 1))
        return false;
    uint64_t insn = r->insn, field, width;
    if (!im->d->mont) {
        /* field bits 12:0 = instruction bits 12:0, 26:13 = bits 40:27 (ref §5.1) */
        field = (insn & 0x1fff) | (((insn >> 27) & 0x3fff) << 13);
        width = IA64_FIELD27;
    } else {
        field = insn & IA64_FIELD41;
        width = IA64_FIELD41;
    }
    return ((field ^ m->match) & ~m->mask & width) == 0;
}

static bool ia64_tag(const ia64_model_t *im, const ia64_thread_t *th, unsigned k,
                     const pmusim_rec_t *r, bool use_i, bool use_o)
{
    if (use_i && !ia64_irange_hit(th, k, r->ip, r->plm & 3u))
        return false;
    return !use_o || ia64_opcode_hit(im, th, k, r);
}

bool ia64_qual_pass(const ia64_model_t *im, const ia64_thread_t *th, const ia64_ctr_t *c,
                    const pmusim_rec_t *r)
{
    if (!(c->qual & IA64_Q_DARR))
        return ia64_tag(im, th, c->chan, r, c->qual & IA64_Q_IARR, c->qual & IA64_Q_OPCM);
    bool has_addr = r->kind == PMUSIM_REC_INSN ? (r->flags & PMUSIM_F_MEM) != 0 : r->mem.addr != 0;
    for (unsigned p = 0; p < 4; p++) {
        if (!th->dena[p])
            continue;
        bool d_hit = has_addr && ((r->mem.addr ^ th->dbrp[p].addr) & th->dbrp[p].cmp) == 0;
        bool hit;
        switch (th->dcfg[p]) {
        case 0: hit = d_hit && ia64_tag(im, th, p, r, true, true); break;
        case 1: hit = ia64_tag(im, th, p, r, true, true); break;
        case 2: hit = d_hit; break;
        default: hit = true; break;
        }
        if (hit)
            return true;
    }
    return false;
}
