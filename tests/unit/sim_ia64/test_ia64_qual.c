/* IA-64 PMU models: opcode matchers, instruction-address ranges (coarse,
 * fine, inverted, always-compared high bits) and data-address ranges. */
#include "cu_main.h"
#include "ia64_test.h"

#define OI (1u << 5)
#define IP_BASE 0x4000000000010000ull

static uint64_t ctr(unsigned es, unsigned umask, unsigned plm)
{
    return (uint64_t)plm | OI | (uint64_t)es << 8 | (uint64_t)umask << 16;
}

static pmusim_rec_t insn_at(uint64_t cycle, uint64_t ip, uint64_t enc, uint8_t unit)
{
    pmusim_rec_t r = t_insn(cycle, 3);
    r.ip = ip;
    r.insn = enc;
    r.unit = unit;
    return r;
}

/* br.cloop: major opcode 4 (bits 40:37), btype 5 (bits 8:6) */
#define ENC_CLOOP ((4ull << 37) | (5ull << 6) | (0x1234ull << 13))
#define ENC_BRCOND ((4ull << 37) | (0ull << 6))
#define ENC_OTHER ((8ull << 37) | 0x55)

/* ita2 PMC8: ig_ad 1, bit 2, mask/match on field bits 26:23 and 8:6, B slot */
static uint64_t ita2_pmc8_cloop(void)
{
    uint64_t field_care = (0xfull << 23) | (0x7ull << 6);
    uint64_t mask = 0x7ffffffull & ~field_care;
    uint64_t match = (4ull << 23) | (5ull << 6);
    return 1 | 4 | mask << 3 | match << 33 | 1ull << 60;
}

static void test_opcode_ita2(void)
{
    pmusim_model_t *m = t_model("ita2", 1);
    PMC(m, 8, ita2_pmc8_cloop());
    PMC(m, 4, ctr(0x08, 0, 8));  /* IA64_TAGGED_INST_RETIRED_IBRP0_PMC8 */
    PMC(m, 5, ctr(0x08, 1, 8));  /* IBRP1_PMC9: default PMC9 matches all */
    PMC(m, 6, ctr(0x50, 0, 8));  /* NOPS_RETIRED, opcm: channel 0 */
    PMC(m, 7, ctr(0x08, 2, 8));  /* IBRP2_PMC8: same matcher */
    pmusim_rec_t r[] = {
        insn_at(0, IP_BASE, ENC_CLOOP, PMUSIM_UNIT_B),       /* match */
        insn_at(1, IP_BASE, ENC_CLOOP, PMUSIM_UNIT_I),       /* wrong slot */
        insn_at(2, IP_BASE, ENC_BRCOND, PMUSIM_UNIT_B),      /* btype 0 */
        insn_at(3, IP_BASE, ENC_OTHER, PMUSIM_UNIT_M),
        insn_at(4, IP_BASE, ENC_CLOOP | (0x7full << 20), PMUSIM_UNIT_B), /* bits 26:13 ignored */
        insn_at(5, IP_BASE, ENC_CLOOP, PMUSIM_UNIT_B),       /* a nop that matches */
        insn_at(6, IP_BASE, ENC_OTHER, PMUSIM_UNIT_I),       /* a nop that does not */
    };
    r[5].flags = PMUSIM_F_NOP;
    r[6].flags = PMUSIM_F_NOP;
    t_run(m, r, G_N_ELEMENTS(r));
    CU_ASSERT_EQUAL(CNT(m, 4), 3);
    CU_ASSERT_EQUAL(CNT(m, 5), 7);
    CU_ASSERT_EQUAL(CNT(m, 6), 1);
    CU_ASSERT_EQUAL(CNT(m, 7), 3);
    pmusim_model_free(m);

    /* PMC15 bit 0: IBRP0 tags ignore the matcher, IBRP2 (bit 2 clear) not */
    m = t_model("ita2", 1);
    PMC(m, 8, ita2_pmc8_cloop());
    PMC(m, 15, 0x1);
    PMC(m, 4, ctr(0x08, 0, 8));
    PMC(m, 7, ctr(0x08, 2, 8));
    t_run(m, r, G_N_ELEMENTS(r));
    CU_ASSERT_EQUAL(CNT(m, 4), 7);
    CU_ASSERT_EQUAL(CNT(m, 7), 3);
    pmusim_model_free(m);

    /* brl (L+X, major opcode 0xC) executes on the B unit */
    m = t_model("ita2", 1);
    uint64_t field_care = 0xfull << 23;
    PMC(m, 8, 1 | 4 | (0x7ffffffull & ~field_care) << 3 | (0xcull << 23) << 33 | 1ull << 60);
    PMC(m, 4, ctr(0x08, 0, 8));
    pmusim_rec_t l[] = {insn_at(0, IP_BASE, 0xcull << 37, PMUSIM_UNIT_LX),
                        insn_at(1, IP_BASE, 0xcull << 37, PMUSIM_UNIT_I),
                        insn_at(2, IP_BASE, 0x6ull << 37, PMUSIM_UNIT_LX)};
    t_run(m, l, 3);
    CU_ASSERT_EQUAL(CNT(m, 4), 1);
    pmusim_model_free(m);
}

static void test_opcode_mont(void)
{
    pmusim_model_t *m = t_model("mont", 1);
    /* PMC32: mask (1 = ignore) all but bits 40:37 and 8:6; b slot (48);
     * ig_ad (57) so no range; PMC33: match */
    uint64_t care = (0xfull << 37) | (0x7ull << 6);
    PMC(m, 32, ((0x1ffffffffffull & ~care) | 1ull << 48 | 1ull << 57));
    PMC(m, 33, (4ull << 37) | (5ull << 6));
    PMC(m, 4, 0x2000000 | ctr(0x08, 0, 8));
    PMC(m, 5, 0x2000000 | ctr(0x08, 3, 8)); /* IBRP3_PMC34_35: default matches all */
    pmusim_rec_t r[] = {insn_at(0, IP_BASE, ENC_CLOOP, PMUSIM_UNIT_B),
                        insn_at(1, IP_BASE, ENC_CLOOP, PMUSIM_UNIT_F),
                        insn_at(2, IP_BASE, ENC_BRCOND, PMUSIM_UNIT_B),
                        insn_at(3, IP_BASE, ENC_CLOOP | 0x3full, PMUSIM_UNIT_B)};
    t_run(m, r, 4);
    CU_ASSERT_EQUAL(CNT(m, 4), 2);
    CU_ASSERT_EQUAL(CNT(m, 5), 4);
    pmusim_model_free(m);

    /* PMC36 bit 0: channel 0 ignores the matcher */
    m = t_model("mont", 1);
    PMC(m, 32, ((0x1ffffffffffull & ~care) | 1ull << 48 | 1ull << 57));
    PMC(m, 33, (4ull << 37) | (5ull << 6));
    PMC(m, 36, 0xfffffff1);
    PMC(m, 4, 0x2000000 | ctr(0x08, 0, 8));
    t_run(m, r, 4);
    CU_ASSERT_EQUAL(CNT(m, 4), 4);
    pmusim_model_free(m);
}

/* ita2 PMC14 with only IBRP0 used (ignore bit 1 cleared) */
#define ITA2_PMC14_IBRP0 (0x0db60db60db60db6ull & ~2ull)
/* ita2 PMC8: range check on (ig_ad = 0), matcher matches everything */
#define ITA2_PMC8_RANGE 0xffffffff3ffffffcull
#define PLM_ALL (0xfull << 56)
#define MASK56 0x00ffffffffffffffull

static pmusim_rec_t range_recs[6];

static size_t range_trace(void)
{
    range_recs[0] = insn_at(0, IP_BASE, 0, PMUSIM_UNIT_I);          /* first bundle: in */
    range_recs[1] = insn_at(1, IP_BASE + 0xff0, 0, PMUSIM_UNIT_I);  /* last bundle: in */
    range_recs[2] = insn_at(2, IP_BASE + 0x1000, 0, PMUSIM_UNIT_I); /* just past: out */
    range_recs[3] = insn_at(3, IP_BASE - 0x10, 0, PMUSIM_UNIT_I);   /* just before: out */
    range_recs[4] = insn_at(4, 0x2000000000010000ull, 0, PMUSIM_UNIT_I); /* other region */
    range_recs[5] = insn_at(5, IP_BASE + 0x800, 0, PMUSIM_UNIT_I);  /* in, at PL 0 */
    range_recs[5].plm = 0;
    return 6;
}

static void test_coarse_range(void)
{
    size_t n = range_trace();
    pmusim_model_t *m = t_model("ita2", 1);
    t_write(m, PMUSIM_REG_IBR, 0, IP_BASE, 0);
    t_write(m, PMUSIM_REG_IBR, 1, PLM_ALL | (~0xfffull & MASK56), 0);
    PMC(m, 14, ITA2_PMC14_IBRP0);
    PMC(m, 8, ITA2_PMC8_RANGE);
    PMC(m, 4, ctr(0x08, 0, 0x9)); /* IA64_INST_RETIRED, PL 0 + 3 */
    PMC(m, 5, ctr(0x08, 1, 0x9)); /* IBRP1: not constrained */
    PMC(m, 6, ctr(0x12, 0, 0x9)); /* CPU_CYCLES: unqualified event */
    PMC(m, 7, ctr(0x50, 0, 0x9)); /* NOPS_RETIRED: channel 0 */
    for (size_t k = 0; k < n; k++)
        range_recs[k].flags = PMUSIM_F_NOP;
    t_run(m, range_recs, n);
    CU_ASSERT_EQUAL(CNT(m, 4), 3);
    CU_ASSERT_EQUAL(CNT(m, 5), 6);
    CU_ASSERT_EQUAL(CNT(m, 6), 6);
    CU_ASSERT_EQUAL(CNT(m, 7), 3);
    pmusim_model_free(m);

    /* plm of the IBR: user only -> the PL 0 instruction is out */
    m = t_model("ita2", 1);
    t_write(m, PMUSIM_REG_IBR, 0, IP_BASE, 0);
    t_write(m, PMUSIM_REG_IBR, 1, (0x8ull << 56) | (~0xfffull & MASK56), 0);
    PMC(m, 14, ITA2_PMC14_IBRP0);
    PMC(m, 8, ITA2_PMC8_RANGE);
    PMC(m, 4, ctr(0x08, 0, 0x9));
    t_run(m, range_recs, n);
    CU_ASSERT_EQUAL(CNT(m, 4), 2);
    pmusim_model_free(m);

    /* inversion (PMC8.inv): counts outside the range */
    m = t_model("ita2", 1);
    t_write(m, PMUSIM_REG_IBR, 0, IP_BASE, 0);
    t_write(m, PMUSIM_REG_IBR, 1, PLM_ALL | (~0xfffull & MASK56), 0);
    PMC(m, 14, ITA2_PMC14_IBRP0);
    PMC(m, 8, ITA2_PMC8_RANGE | 2);
    PMC(m, 4, ctr(0x08, 0, 0x9));
    t_run(m, range_recs, n);
    CU_ASSERT_EQUAL(CNT(m, 4), 3);
    pmusim_model_free(m);

    /* mask 0: bits 55:0 ignored, bits 63:56 still compared */
    m = t_model("ita2", 1);
    t_write(m, PMUSIM_REG_IBR, 0, IP_BASE, 0);
    t_write(m, PMUSIM_REG_IBR, 1, PLM_ALL, 0);
    PMC(m, 14, ITA2_PMC14_IBRP0);
    PMC(m, 8, ITA2_PMC8_RANGE);
    PMC(m, 4, ctr(0x08, 0, 0x9));
    t_run(m, range_recs, n);
    CU_ASSERT_EQUAL(CNT(m, 4), 5);
    pmusim_model_free(m);

    /* ig_ad = 1 in PMC8 turns the range check off */
    m = t_model("ita2", 1);
    t_write(m, PMUSIM_REG_IBR, 0, IP_BASE, 0);
    t_write(m, PMUSIM_REG_IBR, 1, PLM_ALL | (~0xfffull & MASK56), 0);
    PMC(m, 14, ITA2_PMC14_IBRP0);
    PMC(m, 4, ctr(0x08, 0, 0x9));
    t_run(m, range_recs, n);
    CU_ASSERT_EQUAL(CNT(m, 4), 6);
    pmusim_model_free(m);
}

static void test_fine_range(void)
{
    /* fine mode: IBRP0 lower bound 0x..1020, IBRP2 upper bound 0x..1060
     * (inclusive bundles), 4 KB page mask as libpfm programs it */
    const uint64_t page = 0x4000000000001000ull;
    const uint64_t fmask = PLM_ALL | 0xfffff000ull;
    pmusim_rec_t r[] = {insn_at(0, page + 0x010, 0, PMUSIM_UNIT_I), /* below */
                        insn_at(1, page + 0x020, 0, PMUSIM_UNIT_I), /* lower bound */
                        insn_at(2, page + 0x040, 0, PMUSIM_UNIT_I),
                        insn_at(3, page + 0x060, 0, PMUSIM_UNIT_I), /* upper bound */
                        insn_at(4, page + 0x070, 0, PMUSIM_UNIT_I), /* above */
                        insn_at(5, page + 0x1040, 0, PMUSIM_UNIT_I)}; /* next page */
    const char *pmus[] = {"ita2", "mont"};
    for (int p = 0; p < 2; p++) {
        bool mont = p == 1;
        pmusim_model_t *m = t_model(pmus[p], 1);
        t_write(m, PMUSIM_REG_IBR, 0, page + 0x020, 0);
        t_write(m, PMUSIM_REG_IBR, 1, fmask, 0);
        t_write(m, PMUSIM_REG_IBR, 4, page + 0x060, 0);
        t_write(m, PMUSIM_REG_IBR, 5, fmask, 0);
        if (mont) {
            PMC(m, 38, (0xdb6ull & ~(2ull | 0x80ull)) | 0x2000);
            PMC(m, 32, 0x030f01ffffffffffull & ~(3ull << 56)); /* ig_ad 0, inv 0 */
            PMC(m, 4, 0x2000000 | ctr(0x08, 0, 8));
            PMC(m, 5, 0x2000000 | ctr(0x08, 2, 8));
            PMC(m, 6, 0x2000000 | ctr(0x08, 1, 8));
        } else {
            PMC(m, 14, (0x0db60db60db60db6ull & ~(2ull | 0x80ull)) | 0x2000);
            PMC(m, 8, ITA2_PMC8_RANGE);
            PMC(m, 4, ctr(0x08, 0, 8));
            PMC(m, 5, ctr(0x08, 2, 8));
            PMC(m, 6, ctr(0x08, 1, 8));
        }
        t_run(m, r, G_N_ELEMENTS(r));
        CU_ASSERT_EQUAL(CNT(m, 4), 3);
        CU_ASSERT_EQUAL(CNT(m, 5), 3); /* IBRP2 is part of the same fine range */
        CU_ASSERT_EQUAL(CNT(m, 6), 6);
        pmusim_model_free(m);
    }
}

static pmusim_rec_t load_at(uint64_t cycle, uint64_t ip, uint64_t addr)
{
    pmusim_rec_t r = insn_at(cycle, ip, 0, PMUSIM_UNIT_M);
    r.flags = PMUSIM_F_MEM;
    r.mem.addr = addr;
    r.mem.size = 8;
    r.mem.latency = 1;
    return r;
}

static void test_data_range(void)
{
    const uint64_t data = 0x6000000000100000ull;
    pmusim_rec_t r[] = {load_at(0, IP_BASE, data), load_at(1, IP_BASE, data + 0x38),
                        load_at(2, IP_BASE, data + 0x40), load_at(3, IP_BASE + 0x2000, data - 8),
                        load_at(4, IP_BASE + 0x2000, data + 8)};
    /* DBRP0 = 64 bytes at `data`; PMC13 cfg_dbrp0 = 2 (data only), ena 0 */
    pmusim_model_t *m = t_model("ita2", 1);
    t_write(m, PMUSIM_REG_DBR, 0, data, 0);
    t_write(m, PMUSIM_REG_DBR, 1, ~63ull & MASK56, 0);
    PMC(m, 13, 0x00002078fefefef6ull);
    PMC(m, 4, ctr(0xcd, 0, 8)); /* LOADS_RETIRED (darr) */
    PMC(m, 5, ctr(0x08, 0, 8)); /* IA64_INST_RETIRED: not data-range qualified */
    t_run(m, r, G_N_ELEMENTS(r));
    CU_ASSERT_EQUAL(CNT(m, 4), 3);
    CU_ASSERT_EQUAL(CNT(m, 5), 5);
    pmusim_model_free(m);

    /* cfg_dbrp0 = 1: instruction range of IBRP0 (4 KB at IP_BASE) */
    m = t_model("ita2", 1);
    t_write(m, PMUSIM_REG_IBR, 0, IP_BASE, 0);
    t_write(m, PMUSIM_REG_IBR, 1, PLM_ALL | (~0xfffull & MASK56), 0);
    PMC(m, 14, ITA2_PMC14_IBRP0);
    PMC(m, 8, ITA2_PMC8_RANGE);
    PMC(m, 13, 0x00002078fefefeeeull); /* cfg 01 */
    PMC(m, 4, ctr(0xcd, 0, 8));
    t_run(m, r, G_N_ELEMENTS(r));
    CU_ASSERT_EQUAL(CNT(m, 4), 3);
    pmusim_model_free(m);

    /* cfg_dbrp0 = 0: both ranges */
    m = t_model("ita2", 1);
    t_write(m, PMUSIM_REG_IBR, 0, IP_BASE, 0);
    t_write(m, PMUSIM_REG_IBR, 1, PLM_ALL | (~0xfffull & MASK56), 0);
    t_write(m, PMUSIM_REG_DBR, 0, data, 0);
    t_write(m, PMUSIM_REG_DBR, 1, ~63ull & MASK56, 0);
    PMC(m, 14, ITA2_PMC14_IBRP0);
    PMC(m, 8, ITA2_PMC8_RANGE);
    PMC(m, 13, 0x00002078fefefee6ull); /* cfg 00 */
    PMC(m, 4, ctr(0xcd, 0, 8));
    t_run(m, r, G_N_ELEMENTS(r));
    CU_ASSERT_EQUAL(CNT(m, 4), 2);
    pmusim_model_free(m);

    /* no pair enabled: unconstrained; Montecito PMC41 the same layout */
    m = t_model("mont", 1);
    t_write(m, PMUSIM_REG_DBR, 2, data + 0x40, 0);
    t_write(m, PMUSIM_REG_DBR, 3, ~63ull & MASK56, 0);
    PMC(m, 41, 0x00004078fefef6feull & ~(1ull << 45)); /* ena_dbrp1, cfg_dbrp1 = 2 */
    PMC(m, 4, 0x2000000 | ctr(0xcd, 0, 8));
    t_run(m, r, G_N_ELEMENTS(r));
    CU_ASSERT_EQUAL(CNT(m, 4), 1);
    pmusim_model_free(m);

    m = t_model("mont", 1);
    PMC(m, 41, 0x00000078fefefefeull);
    PMC(m, 4, 0x2000000 | ctr(0xcd, 0, 8));
    t_run(m, r, G_N_ELEMENTS(r));
    CU_ASSERT_EQUAL(CNT(m, 4), 5);
    pmusim_model_free(m);
}

/* An EVENT record is qualified as the thread's most recent instruction
 * (docs/trace-events-ia64.md): its encoding and unit for the opcode
 * matcher, its ip for the instruction-address range.  Explicit EVENT
 * records of IA64_INST_RETIRED (0x08) add to the derived count. */
static void test_event_records_qualified(void)
{
    /* opcode: the event after a matching br.cloop counts, the one after an
     * M-unit instruction not: 1 instruction + 5 */
    pmusim_model_t *m = t_model("ita2", 1);
    PMC(m, 8, ita2_pmc8_cloop());
    PMC(m, 4, ctr(0x08, 0, 8));
    pmusim_rec_t o[] = {insn_at(0, IP_BASE, ENC_CLOOP, PMUSIM_UNIT_B), t_event(1, 0x08, 0, 5),
                        insn_at(2, IP_BASE, ENC_OTHER, PMUSIM_UNIT_M), t_event(3, 0x08, 0, 7)};
    t_run(m, o, G_N_ELEMENTS(o));
    CU_ASSERT_EQUAL(CNT(m, 4), 6);
    pmusim_model_free(m);

    /* range: the event after an instruction in the 4 KiB range counts, the
     * one after an instruction beyond it not (1 + 3); inverted, the other
     * way round (1 + 4).  (At most 6 per cycle: IA64_INST_RETIRED's
     * maxincr clamps an EVENT record's n, so the n stay small.) */
    pmusim_rec_t g[] = {insn_at(0, IP_BASE + 0x10, 0, PMUSIM_UNIT_I), t_event(1, 0x08, 0, 3),
                        insn_at(2, IP_BASE + 0x2000, 0, PMUSIM_UNIT_I), t_event(3, 0x08, 0, 4)};
    for (int inv = 0; inv < 2; inv++) {
        m = t_model("ita2", 1);
        t_write(m, PMUSIM_REG_IBR, 0, IP_BASE, 0);
        t_write(m, PMUSIM_REG_IBR, 1, PLM_ALL | (~0xfffull & MASK56), 0);
        PMC(m, 14, ITA2_PMC14_IBRP0);
        PMC(m, 8, ITA2_PMC8_RANGE | (inv ? 2 : 0));
        PMC(m, 4, ctr(0x08, 0, 0x9));
        t_run(m, g, G_N_ELEMENTS(g));
        CU_ASSERT_EQUAL(CNT(m, 4), inv ? 5 : 4);
        pmusim_model_free(m);
    }
}

static void register_suites(void)
{
    CU_pSuite s = CU_add_suite("ia64_qualifiers", NULL, NULL);
    PMUSIM_ADD_TEST(s, test_opcode_ita2);
    PMUSIM_ADD_TEST(s, test_opcode_mont);
    PMUSIM_ADD_TEST(s, test_coarse_range);
    PMUSIM_ADD_TEST(s, test_fine_range);
    PMUSIM_ADD_TEST(s, test_data_range);
    PMUSIM_ADD_TEST(s, test_event_records_qualified);
}
