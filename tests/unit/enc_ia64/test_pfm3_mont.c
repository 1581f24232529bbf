/* libpfm-3 face, Montecito: pfm_dispatch_events() and the query functions.
 * Expected values are derived by hand from ../shared/reference/ia64-pmu.md
 * and the libpfm_montecito(3) seed page. */
#include "cu_main.h"
#include "pfm3_util.h"

#define PLM3 PFM_PLM3
#define MONT (&treq.in.mont)
#define MONT_OUT (&treq.out.mont)

static int suite_init(void)
{
    return pfm_force_pmu(PFMLIB_MONTECITO_PMU) == PFMLIB_SUCCESS ? 0 : 1;
}

static void test_queries(void)
{
    unsigned n, ear = 0, etb = 0, opcm = 0, iarr = 0, darr = 0, all = 0, types[4] = { 0 };
    char name[64];
    CU_ASSERT_EQUAL(pfm_get_num_events(&n), PFMLIB_SUCCESS);
    CU_ASSERT_EQUAL(n, 637);
    CU_ASSERT_EQUAL(pfm_get_num_counters(&n), PFMLIB_SUCCESS);
    CU_ASSERT_EQUAL(n, 12);
    CU_ASSERT_EQUAL(pfm_get_pmu_name(name, sizeof(name)), PFMLIB_SUCCESS);
    CU_ASSERT_STRING_EQUAL(name, "dual-core Itanium 2");
    for (unsigned i = 0; i < 637; i++) {
        int type, grp, set;
        CU_ASSERT_EQUAL(pfm_mont_get_event_type(i, &type), PFMLIB_SUCCESS);
        CU_ASSERT(type >= PFMLIB_MONT_EVT_ACTIVE && type <= PFMLIB_MONT_EVT_SELF_FLOATING);
        types[type & 3]++;
        CU_ASSERT_EQUAL(pfm_mont_get_event_group(i, &grp), PFMLIB_SUCCESS);
        CU_ASSERT_EQUAL(pfm_mont_get_event_set(i, &set), PFMLIB_SUCCESS);
        CU_ASSERT((grp == PFMLIB_MONT_EVT_NO_GRP) == (set == PFMLIB_MONT_EVT_NO_SET));
        ear += pfm_mont_is_ear(i);
        etb += pfm_mont_is_etb(i);
        opcm += pfm_mont_support_opcm(i);
        iarr += pfm_mont_support_iarr(i);
        darr += pfm_mont_support_darr(i);
        all += pfm_mont_support_all(i);
        CU_ASSERT_EQUAL(pfm_mont_is_dear(i),
                        pfm_mont_is_dear_tlb(i) + pfm_mont_is_dear_cache(i) + pfm_mont_is_dear_alat(i));
        CU_ASSERT_EQUAL(pfm_mont_is_iear(i), pfm_mont_is_iear_tlb(i) + pfm_mont_is_iear_cache(i));
    }
    CU_ASSERT_EQUAL(ear, 36);
    CU_ASSERT_EQUAL(etb, 2);
    CU_ASSERT_EQUAL(opcm, 212);
    CU_ASSERT_EQUAL(iarr, 322);
    CU_ASSERT_EQUAL(darr, 139);
    CU_ASSERT_EQUAL(all, 0);
    CU_ASSERT_EQUAL(types[0], 284);
    CU_ASSERT_EQUAL(types[1], 186);
    CU_ASSERT_EQUAL(types[2], 68);
    CU_ASSERT_EQUAL(types[3], 99);
    unsigned idx;
    int grp, set;
    pfmlib_mont_ear_mode_t mode;
    CU_ASSERT_EQUAL(pfm_find_event("L2D_FILL_MESI_STATE_M", &idx), PFMLIB_SUCCESS);
    CU_ASSERT_EQUAL(pfm_mont_get_event_group(idx, &grp), PFMLIB_SUCCESS);
    CU_ASSERT_EQUAL(grp, PFMLIB_MONT_EVT_L2D_CACHE_GRP);
    CU_ASSERT_EQUAL(pfm_mont_get_event_set(idx, &set), PFMLIB_SUCCESS);
    CU_ASSERT_EQUAL(set, 8);
    CU_ASSERT_EQUAL(pfm_find_event("CPU_OP_CYCLES_ALL", &idx), PFMLIB_SUCCESS);
    CU_ASSERT_EQUAL(pfm_mont_get_event_group(idx, &grp), PFMLIB_SUCCESS);
    CU_ASSERT_EQUAL(grp, PFMLIB_MONT_EVT_NO_GRP);
    CU_ASSERT_EQUAL(pfm_mont_is_ear(idx), 0);
    CU_ASSERT_EQUAL(pfm_find_event("DATA_EAR_ALAT", &idx), PFMLIB_SUCCESS);
    CU_ASSERT_EQUAL(pfm_mont_get_ear_mode(idx, &mode), PFMLIB_SUCCESS);
    CU_ASSERT_EQUAL(mode, PFMLIB_MONT_EAR_ALAT_MODE);
    CU_ASSERT_EQUAL(pfm_mont_is_dear_alat(idx), 1);
    /* MESI unit masks */
    unsigned count;
    CU_ASSERT_EQUAL(pfm_find_event("L3_READS_ALL_ALL", &idx), PFMLIB_SUCCESS);
    CU_ASSERT_EQUAL(pfm_get_num_event_masks(idx, &count), PFMLIB_SUCCESS);
    CU_ASSERT_EQUAL(count, 4);
    CU_ASSERT_EQUAL(pfm_get_event_mask_name(idx, 3, name, sizeof(name)), PFMLIB_SUCCESS);
    CU_ASSERT_STRING_EQUAL(name, "M");
    pfmlib_event_t e;
    CU_ASSERT_EQUAL(pfm_find_full_event("L3_READS_ALL_ALL:M:i", &e), PFMLIB_SUCCESS);
    CU_ASSERT_EQUAL(e.num_masks, 2);
    CU_ASSERT_EQUAL(e.unit_masks[0], 3);
    CU_ASSERT_EQUAL(e.unit_masks[1], 0);
    CU_ASSERT_EQUAL(pfm_get_full_event_name(&e, name, sizeof(name)), PFMLIB_SUCCESS);
    CU_ASSERT_STRING_EQUAL(name, "L3_READS_ALL_ALL:M:I");
    CU_ASSERT_EQUAL(pfm_find_full_event("L3_READS_ALL_ALL", &e), PFMLIB_ERR_UMASK);
    CU_ASSERT_EQUAL(pfm_find_full_event("L3_READS_ALL_ALL:X", &e), PFMLIB_ERR_UMASK);
    CU_ASSERT_EQUAL(pfm_find_full_event("L3_READS_ALL_ALL:", &e), PFMLIB_ERR_UMASK);
}

static void test_counters(void)
{
    req_init(PLM3);
    req_event("CPU_OP_CYCLES_ALL");
    CU_ASSERT_EQUAL(req_dispatch(0), PFMLIB_SUCCESS);
    CHECK_PMCS(4, 0x2001208);   /* REF §3.2 example */
    CHECK_PMDS(4);
    treq.inp.pfp_flags = PFMLIB_PFP_SYSTEMWIDE;
    CU_ASSERT_EQUAL(req_dispatch(0), PFMLIB_SUCCESS);
    CHECK_PMCS(4, 0x2001248);
    /* thresholds */
    req_init(PLM3);
    req_event("NOPS_RETIRED");
    MONT->pfp_mont_counters[0].thres = 5;
    CU_ASSERT_EQUAL(req_dispatch(1), PFMLIB_SUCCESS);
    CHECK_PMCS(4, 0x2505008);
    MONT->pfp_mont_counters[0].thres = 6;
    CU_ASSERT_EQUAL(req_dispatch(1), PFMLIB_ERR_INVAL);
    /* both threads: not supported */
    MONT->pfp_mont_counters[0].thres = 0;
    MONT->pfp_mont_counters[0].flags = PFMLIB_MONT_FL_EVT_ALL_THRD;
    CU_ASSERT_EQUAL(req_dispatch(1), PFMLIB_ERR_NOTSUPP);
}

static void test_counter_placement(void)
{
    /* PMC10 only */
    req_init(PLM3);
    req_event("CPU_OP_CYCLES_ALL");
    req_event("CPU_OP_CYCLES_HALTED");
    CU_ASSERT_EQUAL(req_dispatch(0), PFMLIB_SUCCESS);
    CHECK_PMCS(4, 0x2001208, 10, 0x2001808);
    /* BUS_* events are placed first, on PMC4-9 */
    req_init(PLM3);
    req_event("CPU_OP_CYCLES_ALL");
    req_event("BUS_ALL_SELF");
    CU_ASSERT_EQUAL(req_dispatch(0), PFMLIB_SUCCESS);
    CHECK_PMCS(5, 0x2001208, 4, 0x2028708);
    req_init(PLM3);
    for (int i = 0; i < 7; i++)
        req_event("BUS_ALL_SELF");
    CU_ASSERT_EQUAL(req_dispatch(0), PFMLIB_ERR_NOASSIGN);
    /* PMC4 unavailable: the events take the next free counters */
    req_init(PLM3);
    req_event("CPU_OP_CYCLES_ALL");
    req_event("NOPS_RETIRED");
    pfm_regmask_set(&treq.inp.pfp_unavail_pmcs, 4);
    CU_ASSERT_EQUAL(req_dispatch(0), PFMLIB_SUCCESS);
    CHECK_PMCS(5, 0x2001208, 6, 0x2005008);
    /* 13 events */
    req_init(PLM3);
    for (int i = 0; i < 13; i++)
        req_event("NOPS_RETIRED");
    CU_ASSERT_EQUAL(req_dispatch(0), PFMLIB_ERR_NOASSIGN);
}

static void test_cache_groups(void)
{
    req_init(PLM3);
    req_event("CPU_OP_CYCLES_ALL");
    req_event("L1D_READ_MISSES_ALL");
    CU_ASSERT_EQUAL(req_dispatch(0), PFMLIB_SUCCESS);
    CHECK_PMCS(4, 0x2001208, 5, 0x200c708);
    req_init(PLM3);
    req_event("L1D_READS_SET0");
    req_event("L1D_READ_MISSES_ALL");
    CU_ASSERT_EQUAL(req_dispatch(0), PFMLIB_ERR_EVTSET);
    /* one L2D set: PMC4, PMC5, PMC8 */
    req_init(PLM3);
    req_event("L2D_BYPASS_L2_DATA1");
    req_event("L2D_BYPASS_L2_DATA2");
    req_event("L2D_BYPASS_L3_DATA1");
    CU_ASSERT_EQUAL(req_dispatch(0), PFMLIB_SUCCESS);
    CHECK_PMCS(4, 0x200e408, 5, 0x201e408, 8, 0x202e408);
    /* two L2D sets: PMC4 and PMC6 */
    req_init(PLM3);
    req_event("L2D_BYPASS_L2_DATA1");
    req_event("L2D_OZQ_FULL_THIS");
    CU_ASSERT_EQUAL(req_dispatch(0), PFMLIB_SUCCESS);
    CHECK_PMCS(4, 0x200e408, 6, 0x200bc08);
    /* a third set */
    req_event("L2D_FILL_MESI_STATE_M");
    CU_ASSERT_EQUAL(req_dispatch(0), PFMLIB_ERR_EVTSET);
    /* L1D on PMC5 blocks the second event of an L2D set */
    req_init(PLM3);
    req_event("L1D_READ_MISSES_ALL");
    req_event("L2D_BYPASS_L2_DATA1");
    req_event("L2D_BYPASS_L2_DATA2");
    CU_ASSERT_EQUAL(req_dispatch(0), PFMLIB_ERR_NOASSIGN);
    /* OzQ cancel families */
    req_init(PLM3);
    req_event("L2D_OZQ_CANCELS0_ACQ");
    req_event("L2D_OZQ_CANCELS1_ANY");
    CU_ASSERT_EQUAL(req_dispatch(0), PFMLIB_ERR_INVAL);
}

static void test_mesi(void)
{
    req_init(PLM3);
    unsigned s = req_event("L3_READS_ALL_ALL");
    CU_ASSERT_EQUAL(req_dispatch(0), PFMLIB_ERR_UMASK);   /* no default unit mask */
    treq.inp.pfp_events[s].num_masks = 1;
    treq.inp.pfp_events[s].unit_masks[0] = 3;   /* M */
    CU_ASSERT_EQUAL(req_dispatch(0), PFMLIB_SUCCESS);
    CHECK_PMCS(4, 0x420fdd08);
    treq.inp.pfp_events[s].num_masks = 4;
    for (unsigned k = 0; k < 4; k++)
        treq.inp.pfp_events[s].unit_masks[k] = k;
    CU_ASSERT_EQUAL(req_dispatch(0), PFMLIB_SUCCESS);
    CHECK_PMCS(4, 0x7a0fdd08);
    treq.inp.pfp_events[s].unit_masks[0] = 4;
    CU_ASSERT_EQUAL(req_dispatch(0), PFMLIB_ERR_UMASK);
}

static void test_ears(void)
{
    req_init(PLM3);
    req_event("DATA_EAR_CACHE_LAT4");
    CU_ASSERT_EQUAL(req_dispatch(0), PFMLIB_SUCCESS);
    CHECK_PMCS(4, 0x200c808, 40, 0x2000008);
    CHECK_PMDS(4, 32, 33, 36);
    req_init(PLM3);
    req_event("DATA_EAR_TLB_ALL");
    CU_ASSERT_EQUAL(req_dispatch(0), PFMLIB_SUCCESS);
    CHECK_PMCS(4, 0x200c808, 40, 0x20e0088, 39, 0);
    req_init(PLM3);
    req_event("DATA_EAR_ALAT");
    CU_ASSERT_EQUAL(req_dispatch(0), PFMLIB_SUCCESS);
    CHECK_PMCS(4, 0x200c808, 40, 0x2000108, 39, 0);
    /* method 2 */
    req_init(PLM3);
    req_event("DATA_EAR_CACHE_LAT4");
    MONT->pfp_mont_dear = (pfmlib_mont_ear_t){ .ear_used = 1, .ear_mode = PFMLIB_MONT_EAR_CACHE_MODE,
                                               .ear_umask = 5, .ear_plm = PFM_PLM0 | PFM_PLM3 };
    CU_ASSERT_EQUAL(req_dispatch(1), PFMLIB_SUCCESS);
    CHECK_PMCS(4, 0x200c808, 40, 0x2050009);
    /* I-EAR, methods 1 and 4 */
    req_init(PLM3);
    req_event("L1I_EAR_CACHE_LAT4");
    CU_ASSERT_EQUAL(req_dispatch(0), PFMLIB_SUCCESS);
    CHECK_PMCS(4, 0x2004308, 37, 0x3fe8);
    CHECK_PMDS(4, 34, 35);
    req_init(PLM3);
    MONT->pfp_mont_iear = (pfmlib_mont_ear_t){ .ear_used = 1, .ear_mode = PFMLIB_MONT_EAR_TLB_MODE, .ear_umask = 3 };
    CU_ASSERT_EQUAL(req_dispatch(1), PFMLIB_SUCCESS);
    CHECK_PMCS(37, 0x68);
    MONT->pfp_mont_iear.ear_mode = PFMLIB_MONT_EAR_ALAT_MODE;
    CU_ASSERT_EQUAL(req_dispatch(1), PFMLIB_ERR_INVAL);
}

static void test_etb_ipear(void)
{
    req_init(PLM3);
    req_event("ETB_EVENT");
    CU_ASSERT_EQUAL(req_dispatch(0), PFMLIB_SUCCESS);
    CHECK_PMCS(4, 0x2001108, 39, 0x3f08);
    CHECK_PMDS(4, 38, 39, 48, 49, 50, 51, 52, 53, 54, 55, 56, 57, 58, 59, 60, 61, 62, 63);
    /* method 2 */
    req_init(PLM3);
    req_event("BRANCH_EVENT");
    MONT->pfp_mont_etb = (pfmlib_mont_etb_t){ .etb_used = 1, .etb_tm = 2, .etb_ptm = 1, .etb_ppm = 3, .etb_brt = 1,
                                              .etb_plm = PFM_PLM0 };
    CU_ASSERT_EQUAL(req_dispatch(1), PFMLIB_SUCCESS);
    CHECK_PMCS(4, 0x2001108, 39, 0x7601);
    /* method 3: free running */
    req_init(PLM3);
    req_event("CPU_OP_CYCLES_ALL");
    MONT->pfp_mont_etb = (pfmlib_mont_etb_t){ .etb_used = 1, .etb_tm = 3, .etb_ptm = 3, .etb_ppm = 3 };
    CU_ASSERT_EQUAL(req_dispatch(1), PFMLIB_SUCCESS);
    CHECK_PMCS(4, 0x2001208, 39, 0x3f08);
    /* D-EAR TLB excludes the ETB */
    req_event("DATA_EAR_TLB_FAULT");
    CU_ASSERT_EQUAL(req_dispatch(1), PFMLIB_ERR_EVTINCOMP);
    /* IP-EAR */
    req_init(PLM3);
    req_event("CPU_OP_CYCLES_ALL");
    MONT->pfp_mont_ipear = (pfmlib_mont_ipear_t){ .ipear_used = 1, .ipear_delay = 5 };
    CU_ASSERT_EQUAL(req_dispatch(1), PFMLIB_SUCCESS);
    CHECK_PMCS(4, 0x2001208, 42, 0x2c08);
    CHECK_PMDS(4, 38, 39, 48, 49, 50, 51, 52, 53, 54, 55, 56, 57, 58, 59, 60, 61, 62, 63);
    MONT->pfp_mont_ipear.ipear_delay = 256;
    CU_ASSERT_EQUAL(req_dispatch(1), PFMLIB_ERR_INVAL);
    MONT->pfp_mont_ipear.ipear_delay = 5;
    MONT->pfp_mont_etb.etb_used = 1;
    CU_ASSERT_EQUAL(req_dispatch(1), PFMLIB_ERR_FEATCOMB);
    MONT->pfp_mont_etb.etb_used = 0;
    req_event("ETB_EVENT");
    CU_ASSERT_EQUAL(req_dispatch(1), PFMLIB_ERR_FEATCOMB);
}

static void test_opcm(void)
{
    req_init(PLM3);
    req_event("IA64_INST_RETIRED");
    MONT->pfp_mont_opcm1 = (pfmlib_mont_opcm_t){ .opcm_used = 1, .opcm_match = 0x1234, .opcm_mask = 0xff,
                                                 .opcm_m = 1, .opcm_b = 1 };
    CU_ASSERT_EQUAL(req_dispatch(1), PFMLIB_SUCCESS);
    CHECK_PMCS(4, 0x2000808, 32, 0x02090000000000ffULL, 33, 0x1234);
    req_init(PLM3);
    req_event("IA64_INST_RETIRED");
    MONT->pfp_mont_opcm2 = (pfmlib_mont_opcm_t){ .opcm_used = 1, .opcm_match = 0x5, .opcm_mask = 0x10, .opcm_i = 1 };
    CU_ASSERT_EQUAL(req_dispatch(1), PFMLIB_SUCCESS);
    CHECK_PMCS(4, 0x2000808, 34, 0x0004000000000010ULL, 35, 0x5);
    MONT->pfp_mont_opcm2.opcm_match = 1UL << 41;   /* 42 bits */
    CU_ASSERT_EQUAL(req_dispatch(1), PFMLIB_ERR_INVAL);
    req_init(PLM3);
    req_event("CPU_OP_CYCLES_ALL");
    MONT->pfp_mont_opcm1.opcm_used = 1;
    CU_ASSERT_EQUAL(req_dispatch(1), PFMLIB_ERR_FEATCOMB);
}

static void set_irange(pfmlib_mont_input_rr_t *rr, unsigned i, unsigned long s, unsigned long e)
{
    rr->rr_used = 1;
    rr->rr_limits[i].rr_start = s;
    rr->rr_limits[i].rr_end = e;
}

/* Seed example: FE_BUBBLE_ALL with a code range needs NO_QUALCHECK. */
static void test_irange_fine(void)
{
    req_init(PLM3);
    req_event("FE_BUBBLE_ALL");
    set_irange(&MONT->pfp_mont_irange, 0, 0x10000, 0x18000);
    CU_ASSERT_EQUAL(req_dispatch(1), PFMLIB_ERR_FEATCOMB);
    MONT->pfp_mont_counters[0].flags = PFMLIB_MONT_FL_EVT_NO_QUALCHECK;
    CU_ASSERT_EQUAL(req_dispatch(1), PFMLIB_SUCCESS);
    CHECK_PMCS(4, 0x2007108, 38, 0x2d34, 41, 0x2078fefefeeeULL, 32, 0x000f01ffffffffffULL);
    CHECK_BR(MONT_OUT->pfp_mont_irange, 0, 0x10000, 1, 0x08ffffffffff0000ULL, 4, 0x17ff0,
             5, 0x08ffffffffff0000ULL);
    CU_ASSERT_EQUAL(pfm_mont_irange_is_fine(&treq.outp, MONT_OUT), 1);
    /* too big for fine mode; a plain event cannot use coarse mode on Montecito */
    set_irange(&MONT->pfp_mont_irange, 0, 0x10000, 0x30000);
    CU_ASSERT_EQUAL(req_dispatch(1), PFMLIB_ERR_FEATCOMB);
}

static void test_irange_dual_events(void)
{
    req_init(PLM3);
    req_event("L1I_FILLS");
    set_irange(&MONT->pfp_mont_irange, 0, 0x10000, 0x10100);
    CU_ASSERT_EQUAL(req_dispatch(1), PFMLIB_ERR_IRRFLAGS);
    MONT->pfp_mont_irange.rr_flags = PFMLIB_MONT_IRR_DEMAND_FETCH | PFMLIB_MONT_IRR_PREFETCH_MATCH;
    CU_ASSERT_EQUAL(req_dispatch(1), PFMLIB_SUCCESS);
    CHECK_PMCS(4, 0x2004108, 38, 0x2924, 41, 0x6078fefeeeeeULL, 32, 0x000f01ffffffffffULL);
    CHECK_BR(MONT_OUT->pfp_mont_irange, 0, 0x10000, 1, 0x08ffffffffff0000ULL, 4, 0x100f0, 5, 0x08ffffffffff0000ULL,
             2, 0x10000, 3, 0x08ffffffffff0000ULL, 6, 0x100f0, 7, 0x08ffffffffff0000ULL);
    /* coarse: the duplicate goes to IBRP1 (libpfm-3 rewrites IBRP0) */
    MONT->pfp_mont_irange.rr_flags |= PFMLIB_MONT_RR_NO_FINE_MODE;
    CU_ASSERT_EQUAL(req_dispatch(1), PFMLIB_SUCCESS);
    CHECK_PMCS(4, 0x2004108, 38, 0xda4, 41, 0x6078fefeeeeeULL, 32, 0x000f01ffffffffffULL);
    CHECK_BR(MONT_OUT->pfp_mont_irange, 0, 0x10000, 1, 0x08ffffffffffff00ULL, 2, 0x10000, 3, 0x08ffffffffffff00ULL);
    /* prefetch matching uses IBRP1, which CPU_OP_CYCLES_QUAL cannot share */
    req_init(PLM3);
    req_event("L1I_FILLS");
    req_event("CPU_OP_CYCLES_QUAL");
    set_irange(&MONT->pfp_mont_irange, 0, 0x10000, 0x10100);
    MONT->pfp_mont_irange.rr_flags = PFMLIB_MONT_IRR_PREFETCH_MATCH;
    CU_ASSERT_EQUAL(req_dispatch(1), PFMLIB_ERR_FEATCOMB);
    MONT->pfp_mont_irange.rr_flags = PFMLIB_MONT_IRR_DEMAND_FETCH;
    CU_ASSERT_EQUAL(req_dispatch(1), PFMLIB_SUCCESS);
}

static void test_drange(void)
{
    req_init(PLM3);
    req_event("ALAT_CAPACITY_MISS_ALL");
    MONT->pfp_mont_drange.rr_used = 1;
    MONT->pfp_mont_drange.rr_limits[0].rr_start = 0x100000;
    MONT->pfp_mont_drange.rr_limits[0].rr_end = 0x100100;
    CU_ASSERT_EQUAL(req_dispatch(1), PFMLIB_SUCCESS);
    CHECK_PMCS(4, 0x2035808, 41, 0x2078fefefef6ULL);
    CHECK_BR(MONT_OUT->pfp_mont_drange, 0, 0x100000, 1, 0x08ffffffffffff00ULL);
    MONT->pfp_mont_drange.rr_limits[0].rr_end = 0x100000;
    CU_ASSERT_EQUAL(req_dispatch(1), PFMLIB_ERR_IRRINVAL);   /* libpfm-3's code for start >= end */
}

/* The register unions decode what dispatch produced. */
static void test_register_unions(void)
{
    CU_ASSERT_EQUAL(sizeof(pfm_mont_pmc_reg_t), 8);
    CU_ASSERT_EQUAL(sizeof(pfm_mont_pmd_reg_t), 8);
    req_init(PLM3);
    req_event("L3_READS_ALL_ALL");
    treq.inp.pfp_events[0].num_masks = 1;
    treq.inp.pfp_events[0].unit_masks[0] = 3;
    CU_ASSERT_EQUAL(req_dispatch(0), PFMLIB_SUCCESS);
    pfm_mont_pmc_reg_t reg = { .pmc_val = treq.outp.pfp_pmcs[0].reg_value };
    CU_ASSERT_EQUAL(reg.pmc_mont_counter_reg.pmc_es, 0xdd);
    CU_ASSERT_EQUAL(reg.pmc_mont_counter_reg.pmc_m, 1);
    CU_ASSERT_EQUAL(reg.pmc_mont_counter_reg.pmc_i, 0);
    CU_ASSERT_EQUAL(reg.pmc_mont_counter_reg.pmc_ism, 2);
    /* PMD39 nibbles are interleaved: PMD48 bits 3:0, PMD56 bits 7:4, PMD49 bits 11:8 */
    pfm_mont_pmd_reg_t d = { .pmd_val = 0x1f0 };
    CU_ASSERT_EQUAL(d.pmd39_mont_reg.etb_pmd56ext_b1, 1);
    CU_ASSERT_EQUAL(d.pmd39_mont_reg.etb_pmd56ext_res, 3);
    CU_ASSERT_EQUAL(d.pmd39_mont_reg.etb_pmd49ext_b1, 1);
    CU_ASSERT_EQUAL(d.pmd39_mont_reg.etb_pmd48ext_b1, 0);
    pfm_ita2_pmc_reg_t i2 = { .pmc_val = 0x3fe8 };
    CU_ASSERT_EQUAL(i2.pmc10_ita2_cache_reg.iear_umask, 0xff);
    CU_ASSERT_EQUAL(i2.pmc10_ita2_cache_reg.iear_ct, 1);
    CU_ASSERT_EQUAL(sizeof(pfm_ita2_pmd_reg_t), 8);
}

static void register_suites(void)
{
    CU_pSuite s = CU_add_suite("pfm3_mont_api", suite_init, NULL);
    PMUSIM_ADD_TEST(s, test_queries);
    s = CU_add_suite("pfm3_mont_counters", suite_init, NULL);
    PMUSIM_ADD_TEST(s, test_counters);
    PMUSIM_ADD_TEST(s, test_counter_placement);
    PMUSIM_ADD_TEST(s, test_cache_groups);
    PMUSIM_ADD_TEST(s, test_mesi);
    s = CU_add_suite("pfm3_mont_features", suite_init, NULL);
    PMUSIM_ADD_TEST(s, test_ears);
    PMUSIM_ADD_TEST(s, test_etb_ipear);
    PMUSIM_ADD_TEST(s, test_opcm);
    PMUSIM_ADD_TEST(s, test_register_unions);
    s = CU_add_suite("pfm3_mont_ranges", suite_init, NULL);
    PMUSIM_ADD_TEST(s, test_irange_fine);
    PMUSIM_ADD_TEST(s, test_irange_dual_events);
    PMUSIM_ADD_TEST(s, test_drange);
}
