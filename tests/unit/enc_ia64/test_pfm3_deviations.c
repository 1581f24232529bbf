/* One test per row of docs/compat-ia64.md "Deviations": the request that
 * shows where pmusim differs from libpfm-3, with pmusim's answer. */
#include "cu_main.h"
#include "pfm3_util.h"

#define PLM3 PFM_PLM3
#define ITA2 (&treq.in.ita2)
#define MONT (&treq.in.mont)

static void ita2(void)
{
    CU_ASSERT_EQUAL_FATAL(pfm_force_pmu(PFMLIB_ITANIUM2_PMU), PFMLIB_SUCCESS);
}

static void mont(void)
{
    CU_ASSERT_EQUAL_FATAL(pfm_force_pmu(PFMLIB_MONTECITO_PMU), PFMLIB_SUCCESS);
}

static void test_dev01_02_thresholds(void)
{
    ita2();
    req_init(PLM3);
    req_event("NOPS_RETIRED");
    ITA2->pfp_ita2_counters[0].thres = 6;
    CU_ASSERT_EQUAL(req_dispatch(1), PFMLIB_ERR_INVAL);
    ITA2->pfp_ita2_counters[0].thres = 9;
    CU_ASSERT_EQUAL(req_dispatch(1), PFMLIB_ERR_INVAL);
    mont();
    req_init(PLM3);
    req_event("CPU_OP_CYCLES_ALL");
    MONT->pfp_mont_counters[0].thres = 1;
    CU_ASSERT_EQUAL(req_dispatch(1), PFMLIB_ERR_INVAL);
}

static void test_dev03_04_ism_plm(void)
{
    ita2();
    req_init(PLM3);
    req_event("CPU_CYCLES");
    ITA2->pfp_ita2_counters[0].ism = (pfmlib_ita2_ism_t)4;
    CU_ASSERT_EQUAL(req_dispatch(1), PFMLIB_ERR_INVAL);
    ITA2->pfp_ita2_counters[0].ism = PFMLIB_ITA2_ISM_BOTH;
    treq.inp.pfp_events[0].plm = 0x10;
    CU_ASSERT_EQUAL(req_dispatch(1), PFMLIB_ERR_INVAL);
    treq.inp.pfp_events[0].plm = 0;
    ITA2->pfp_ita2_btb = (pfmlib_ita2_btb_t){ .btb_used = 1, .btb_plm = 0x20 };
    CU_ASSERT_EQUAL(req_dispatch(1), PFMLIB_ERR_INVAL);
}

static void test_dev05_to_08_fields(void)
{
    ita2();
    req_init(PLM3);
    ITA2->pfp_ita2_iear = (pfmlib_ita2_ear_t){ .ear_used = 1, .ear_mode = PFMLIB_ITA2_EAR_TLB_MODE, .ear_umask = 0x80 };
    CU_ASSERT_EQUAL(req_dispatch(1), PFMLIB_ERR_INVAL);
    req_init(PLM3);
    req_event("BRANCH_EVENT");
    ITA2->pfp_ita2_btb = (pfmlib_ita2_btb_t){ .btb_used = 1, .btb_tm = 4 };
    CU_ASSERT_EQUAL(req_dispatch(1), PFMLIB_ERR_INVAL);
    mont();
    req_init(PLM3);
    req_event("IA64_INST_RETIRED");
    MONT->pfp_mont_opcm1 = (pfmlib_mont_opcm_t){ .opcm_used = 1, .opcm_match = 1UL << 41 };
    CU_ASSERT_EQUAL(req_dispatch(1), PFMLIB_ERR_INVAL);
    MONT->pfp_mont_opcm1 = (pfmlib_mont_opcm_t){ .opcm_used = 1, .opcm_m = 2 };
    CU_ASSERT_EQUAL(req_dispatch(1), PFMLIB_ERR_INVAL);
    req_init(PLM3);
    MONT->pfp_mont_ipear = (pfmlib_mont_ipear_t){ .ipear_used = 1, .ipear_delay = 256 };
    CU_ASSERT_EQUAL(req_dispatch(1), PFMLIB_ERR_INVAL);
    MONT->pfp_mont_ipear.ipear_delay = 255;
    CU_ASSERT_EQUAL(req_dispatch(1), PFMLIB_SUCCESS);
    CHECK_PMCS(42, 0x7fc08);
}

static void test_dev09_10_fine_mask(void)
{
    ita2();
    req_init(PLM3);
    req_event("NOPS_RETIRED");
    ITA2->pfp_ita2_irange.rr_used = 1;
    ITA2->pfp_ita2_irange.rr_limits[0].rr_start = 0x100004010;
    ITA2->pfp_ita2_irange.rr_limits[0].rr_end = 0x200004080;
    CU_ASSERT_EQUAL(req_dispatch(1), PFMLIB_SUCCESS);
    CHECK_PMCS(4, 0x5028, 14, 0xdb4, 13, 0x2078fefefeeeULL, 8, 0xffffffff3ffffffcULL, 15, 0xffffffff);
    CHECK_BR(treq.out.ita2.pfp_ita2_irange, 0, 0, 1, 0x08fffffc00000000ULL);
    CU_ASSERT_EQUAL(treq.out.ita2.pfp_ita2_irange.rr_infos[0].rr_soff, 0x100004010ULL);
    CU_ASSERT_EQUAL(treq.out.ita2.pfp_ita2_irange.rr_infos[0].rr_eoff, 0x400000000ULL - 0x200004080ULL);
    mont();
    req_init(PLM3);
    req_event("IA64_INST_RETIRED");
    MONT->pfp_mont_irange.rr_used = 1;
    MONT->pfp_mont_irange.rr_limits[0].rr_start = 0x12340000;
    MONT->pfp_mont_irange.rr_limits[0].rr_end = 0x12341000;
    CU_ASSERT_EQUAL(req_dispatch(1), PFMLIB_SUCCESS);
    CHECK_BR(treq.out.mont.pfp_mont_irange, 0, 0x12340000, 1, 0x08ffffffffff0000ULL, 4, 0x12340ff0,
             5, 0x08ffffffffff0000ULL);
}

static void test_dev12_mont_duplicate_pair(void)
{
    mont();
    req_init(PLM3);
    req_event("L1I_FILLS");
    MONT->pfp_mont_irange.rr_used = 1;
    MONT->pfp_mont_irange.rr_flags =
        PFMLIB_MONT_IRR_DEMAND_FETCH | PFMLIB_MONT_IRR_PREFETCH_MATCH | PFMLIB_MONT_RR_NO_FINE_MODE;
    MONT->pfp_mont_irange.rr_limits[0].rr_start = 0x10000;
    MONT->pfp_mont_irange.rr_limits[0].rr_end = 0x10100;
    CU_ASSERT_EQUAL(req_dispatch(1), PFMLIB_SUCCESS);
    CHECK_BR(treq.out.mont.pfp_mont_irange, 0, 0x10000, 1, 0x08ffffffffffff00ULL, 2, 0x10000,
             3, 0x08ffffffffffff00ULL);
    CHECK_PMCS(4, 0x2004108, 38, 0xda4, 41, 0x6078fefeeeeeULL, 32, 0x000f01ffffffffffULL);
}

static void test_dev13_l2d_set8(void)
{
    mont();
    req_init(PLM3);
    req_event("L2D_OZQ_CANCELS0_ACQ");
    req_event("L2D_FILL_MESI_STATE_M");
    CU_ASSERT_EQUAL(req_dispatch(0), PFMLIB_SUCCESS);
    CHECK_PMCS(4, 0x206e008, 6, 0x200f208);
    req_event("L2D_BYPASS_L2_DATA1");
    CU_ASSERT_EQUAL(req_dispatch(0), PFMLIB_ERR_EVTSET);
}

static void test_dev14_mont_group_set(void)
{
    unsigned idx;
    int grp, set;
    mont();
    CU_ASSERT_EQUAL(pfm_find_event("NOPS_RETIRED", &idx), PFMLIB_SUCCESS);
    CU_ASSERT_EQUAL(pfm_mont_get_event_group(idx, &grp), PFMLIB_SUCCESS);
    CU_ASSERT_EQUAL(grp, PFMLIB_MONT_EVT_NO_GRP);
    CU_ASSERT_EQUAL(pfm_find_event("L1D_READ_MISSES_ALL", &idx), PFMLIB_SUCCESS);
    CU_ASSERT_EQUAL(pfm_mont_get_event_set(idx, &set), PFMLIB_SUCCESS);
    CU_ASSERT_EQUAL(set, 1);
}

static void test_dev15_reg_addr(void)
{
    mont();
    req_init(PLM3);
    req_event("IA64_INST_RETIRED");
    MONT->pfp_mont_irange.rr_used = 1;
    MONT->pfp_mont_irange.rr_limits[0].rr_start = 0x10000;
    MONT->pfp_mont_irange.rr_limits[0].rr_end = 0x10100;
    CU_ASSERT_EQUAL(req_dispatch(1), PFMLIB_SUCCESS);
    for (unsigned i = 0; i < treq.out.mont.pfp_mont_irange.rr_nbr_used; i++)
        CU_ASSERT_EQUAL(treq.out.mont.pfp_mont_irange.rr_br[i].reg_addr,
                        treq.out.mont.pfp_mont_irange.rr_br[i].reg_num);
}

static void test_dev16_17_bad_pointers_masks(void)
{
    ita2();
    req_init(PLM3);
    req_event("CPU_CYCLES");
    CU_ASSERT_EQUAL(pfm_dispatch_events(NULL, &treq.in, &treq.outp, NULL), PFMLIB_ERR_INVAL);
    CU_ASSERT_EQUAL(pfm_dispatch_events(&treq.inp, &treq.in, NULL, &treq.out), PFMLIB_ERR_INVAL);
    treq.inp.pfp_events[0].num_masks = 100;
    CU_ASSERT_EQUAL(req_dispatch(0), PFMLIB_ERR_UMASK);
}

static void test_dev18_used_flag_values(void)
{
    ita2();
    req_init(PLM3);
    req_event("ALAT_CAPACITY_MISS_ALL");
    ITA2->pfp_ita2_drange.rr_used = 2;
    ITA2->pfp_ita2_drange.rr_limits[0].rr_start = 0x100000;
    ITA2->pfp_ita2_drange.rr_limits[0].rr_end = 0x100100;
    CU_ASSERT_EQUAL(req_dispatch(1), PFMLIB_SUCCESS);
    CHECK_PMCS(4, 0x35828, 13, 0x2078fefefef6ULL, 15, 0xffffffff);
    CHECK_BR(treq.out.ita2.pfp_ita2_drange, 0, 0x100000, 1, 0x08ffffffffffff00ULL);
}

static void register_suites(void)
{
    CU_pSuite s = CU_add_suite("pfm3_deviations", NULL, NULL);
    PMUSIM_ADD_TEST(s, test_dev01_02_thresholds);
    PMUSIM_ADD_TEST(s, test_dev03_04_ism_plm);
    PMUSIM_ADD_TEST(s, test_dev05_to_08_fields);
    PMUSIM_ADD_TEST(s, test_dev09_10_fine_mask);
    PMUSIM_ADD_TEST(s, test_dev12_mont_duplicate_pair);
    PMUSIM_ADD_TEST(s, test_dev13_l2d_set8);
    PMUSIM_ADD_TEST(s, test_dev14_mont_group_set);
    PMUSIM_ADD_TEST(s, test_dev15_reg_addr);
    PMUSIM_ADD_TEST(s, test_dev16_17_bad_pointers_masks);
    PMUSIM_ADD_TEST(s, test_dev18_used_flag_values);
}
