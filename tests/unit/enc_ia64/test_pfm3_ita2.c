/* libpfm-3 face, Itanium 2: generic API and pfm_dispatch_events().
 * Expected register values are derived by hand from ../shared/reference/
 * ia64-pmu.md (REF §n) and the libpfm_itanium2(3) seed page. */
#include "cu_main.h"
#include "pfm3_util.h"
#include <stdlib.h>

#define PLM3 PFM_PLM3
#define ITA2 (&treq.in.ita2)
#define ITA2_OUT (&treq.out.ita2)

/* ---- generic API ------------------------------------------------- */

static void test_noinit_then_force(void)
{
    /* must run first in this process: nothing selected yet */
    unsigned n = 0, idx;
    unsetenv("LIBPFM_FORCE_PMU");
    CU_ASSERT_EQUAL(pfm_get_num_events(&n), PFMLIB_ERR_NOINIT);
    CU_ASSERT_EQUAL(pfm_find_event("CPU_CYCLES", &idx), PFMLIB_ERR_NOINIT);
    CU_ASSERT_EQUAL(pfm_initialize(), PFMLIB_ERR_NOTSUPP);   /* never detected on the host */
    CU_ASSERT_EQUAL(pfm_dispatch_events(&treq.inp, NULL, &treq.outp, NULL), PFMLIB_ERR_NOINIT);
    CU_ASSERT_EQUAL(pfm_force_pmu(PFMLIB_GEN_IA64_PMU), PFMLIB_ERR_NOTSUPP);
    CU_ASSERT_EQUAL(pfm_force_pmu(PFMLIB_ITANIUM2_PMU), PFMLIB_SUCCESS);
    CU_ASSERT_EQUAL(pfm_get_num_events(&n), PFMLIB_SUCCESS);
    CU_ASSERT_EQUAL(n, 497);
    /* a forced PMU survives pfm_initialize() */
    CU_ASSERT_EQUAL(pfm_initialize(), PFMLIB_SUCCESS);
}

static void test_env_force(void)
{
    int type = 0;
    setenv("LIBPFM_FORCE_PMU", "4", 1);
    CU_ASSERT_EQUAL(pfm_initialize(), PFMLIB_SUCCESS);
    CU_ASSERT_EQUAL(pfm_get_pmu_type(&type), PFMLIB_SUCCESS);
    CU_ASSERT_EQUAL(type, PFMLIB_MONTECITO_PMU);
    setenv("LIBPFM_FORCE_PMU", "itanium2", 1);
    CU_ASSERT_EQUAL(pfm_initialize(), PFMLIB_SUCCESS);
    CU_ASSERT_EQUAL(pfm_get_pmu_type(&type), PFMLIB_SUCCESS);
    CU_ASSERT_EQUAL(type, PFMLIB_ITANIUM2_PMU);
    setenv("LIBPFM_FORCE_PMU", "montecito", 1);
    CU_ASSERT_EQUAL(pfm_initialize(), PFMLIB_SUCCESS);
    CU_ASSERT_EQUAL(pfm_get_pmu_type(&type), PFMLIB_SUCCESS);
    CU_ASSERT_EQUAL(type, PFMLIB_MONTECITO_PMU);
    setenv("LIBPFM_FORCE_PMU", "3", 1);
    CU_ASSERT_EQUAL(pfm_initialize(), PFMLIB_SUCCESS);
    CU_ASSERT_EQUAL(pfm_get_pmu_type(&type), PFMLIB_SUCCESS);
    CU_ASSERT_EQUAL(type, PFMLIB_ITANIUM2_PMU);
    unsetenv("LIBPFM_FORCE_PMU");
}

static void test_generic_queries(void)
{
    char name[64];
    unsigned n, idx, idx2;
    int code;
    CU_ASSERT_EQUAL(pfm_force_pmu(PFMLIB_ITANIUM2_PMU), PFMLIB_SUCCESS);
    CU_ASSERT_EQUAL(pfm_get_pmu_name(name, sizeof(name)), PFMLIB_SUCCESS);
    CU_ASSERT_STRING_EQUAL(name, "itanium2");
    CU_ASSERT_EQUAL(pfm_get_pmu_name_bytype(PFMLIB_MONTECITO_PMU, name, sizeof(name)), PFMLIB_SUCCESS);
    CU_ASSERT_STRING_EQUAL(name, "dual-core Itanium 2");
    CU_ASSERT_EQUAL(pfm_get_pmu_name_bytype(99, name, sizeof(name)), PFMLIB_ERR_INVAL);
    CU_ASSERT_EQUAL(pfm_is_pmu_supported(PFMLIB_MONTECITO_PMU), PFMLIB_SUCCESS);
    CU_ASSERT_EQUAL(pfm_is_pmu_supported(PFMLIB_AMD64_PMU), PFMLIB_ERR_NOTSUPP);
    CU_ASSERT_EQUAL(pfm_get_num_counters(&n), PFMLIB_SUCCESS);
    CU_ASSERT_EQUAL(n, 4);
    CU_ASSERT_EQUAL(pfm_get_num_pmcs(&n), PFMLIB_SUCCESS);
    CU_ASSERT_EQUAL(n, 16);
    CU_ASSERT_EQUAL(pfm_get_num_pmds(&n), PFMLIB_SUCCESS);
    CU_ASSERT_EQUAL(n, 18);
    CU_ASSERT_EQUAL(pfm_get_hw_counter_width(&n), PFMLIB_SUCCESS);
    CU_ASSERT_EQUAL(n, 47);
    CU_ASSERT_EQUAL(pfm_find_event("cpu_cycles", &idx), PFMLIB_SUCCESS);
    CU_ASSERT_EQUAL(idx, 179);   /* libpfm-3's PME_ITA2_CPU_CYCLES */
    CU_ASSERT_EQUAL(pfm_find_event("CPU_CYCLES:FOO", &idx2), PFMLIB_SUCCESS);   /* ':' ends the name */
    CU_ASSERT_EQUAL(idx2, 179);
    CU_ASSERT_EQUAL(pfm_find_event("CPU_CYCLE", &idx), PFMLIB_ERR_NOTFOUND);
    CU_ASSERT_EQUAL(pfm_find_event("0x12", &idx), PFMLIB_SUCCESS);   /* by code: first event with es 0x12 */
    CU_ASSERT_EQUAL(idx, 179);
    CU_ASSERT_EQUAL(pfm_find_event("0x12z", &idx), PFMLIB_ERR_INVAL);
    CU_ASSERT_EQUAL(pfm_find_event(NULL, &idx), PFMLIB_ERR_INVAL);
    CU_ASSERT_EQUAL(pfm_get_event_name(179, name, sizeof(name)), PFMLIB_SUCCESS);
    CU_ASSERT_STRING_EQUAL(name, "CPU_CYCLES");
    CU_ASSERT_EQUAL(pfm_get_event_name(179, name, 10), PFMLIB_ERR_INVAL);   /* too small */
    CU_ASSERT_EQUAL(pfm_get_event_name(497, name, sizeof(name)), PFMLIB_ERR_INVAL);
    CU_ASSERT_EQUAL(pfm_get_event_code(179, &code), PFMLIB_SUCCESS);
    CU_ASSERT_EQUAL(code, 0x12);
    pfmlib_regmask_t cnt;
    CU_ASSERT_EQUAL(pfm_get_event_counters(179, &cnt), PFMLIB_SUCCESS);
    CU_ASSERT_EQUAL(cnt.bits[0], 0xf0);
    pfmlib_event_t e;
    CU_ASSERT_EQUAL(pfm_find_full_event("NOPS_RETIRED", &e), PFMLIB_SUCCESS);
    CU_ASSERT_EQUAL(e.num_masks, 0);
    CU_ASSERT_EQUAL(pfm_find_full_event("NOPS_RETIRED:I", &e), PFMLIB_ERR_UMASK);
    CU_ASSERT_EQUAL(pfm_find_full_event("NOPS_RETIRED", &e), PFMLIB_SUCCESS);
    CU_ASSERT_EQUAL(pfm_get_full_event_name(&e, name, 5), PFMLIB_ERR_FULL);
    CU_ASSERT_EQUAL(pfm_get_full_event_name(&e, name, sizeof(name)), PFMLIB_SUCCESS);
    CU_ASSERT_STRING_EQUAL(name, "NOPS_RETIRED");
    CU_ASSERT_EQUAL(pfm_get_cycle_event(&e), PFMLIB_SUCCESS);
    CU_ASSERT_EQUAL(e.event, 179);
    CU_ASSERT_EQUAL(pfm_get_inst_retired_event(&e), PFMLIB_SUCCESS);
    CU_ASSERT_EQUAL(e.event, 270);
    char *desc = NULL;
    CU_ASSERT_EQUAL(pfm_get_event_description(179, &desc), PFMLIB_SUCCESS);
    CU_ASSERT_PTR_NOT_NULL(desc);
    free(desc);
    CU_ASSERT_STRING_EQUAL(pfm_strerror(PFMLIB_ERR_FEATCOMB), "invalid combination of model specific features");
    CU_ASSERT_STRING_EQUAL(pfm_strerror(PFMLIB_ERR_NOMEM), "out of memory");
    CU_ASSERT_STRING_EQUAL(pfm_strerror(-24), "unknown error code");
    CU_ASSERT_STRING_EQUAL(pfm_strerror(1), "unknown error code");
    pfmlib_regmask_t impl;
    CU_ASSERT_EQUAL(pfm_get_impl_pmcs(&impl), PFMLIB_SUCCESS);
    CU_ASSERT_EQUAL(impl.bits[0], 0xffff);
    CU_ASSERT_EQUAL(pfm_get_impl_counters(&impl), PFMLIB_SUCCESS);
    CU_ASSERT_EQUAL(impl.bits[0], 0xf0);
}

/* Every query function answers for every event, consistently with the
 * event data (counts from ../shared/data/ia64/README.md). */
static void test_query_all_events(void)
{
    unsigned ear = 0, dear = 0, iear = 0, btb = 0, opcm = 0, iarr = 0, darr = 0, l1 = 0, l2 = 0;
    for (unsigned i = 0; i < 497; i++) {
        unsigned maxincr;
        unsigned long umask;
        int grp, set;
        pfmlib_ita2_ear_mode_t mode;
        CU_ASSERT_EQUAL(pfm_ita2_get_event_maxincr(i, &maxincr), PFMLIB_SUCCESS);
        CU_ASSERT(maxincr >= 1 && maxincr <= 8);
        CU_ASSERT_EQUAL(pfm_ita2_get_event_umask(i, &umask), PFMLIB_SUCCESS);
        CU_ASSERT_EQUAL(pfm_ita2_get_event_group(i, &grp), PFMLIB_SUCCESS);
        CU_ASSERT_EQUAL(pfm_ita2_get_event_set(i, &set), PFMLIB_SUCCESS);
        CU_ASSERT((grp == PFMLIB_ITA2_EVT_NO_GRP) == (set == PFMLIB_ITA2_EVT_NO_SET));
        l1 += grp == PFMLIB_ITA2_EVT_L1_CACHE_GRP;
        l2 += grp == PFMLIB_ITA2_EVT_L2_CACHE_GRP;
        ear += pfm_ita2_is_ear(i);
        dear += pfm_ita2_is_dear(i);
        iear += pfm_ita2_is_iear(i);
        btb += pfm_ita2_is_btb(i);
        opcm += pfm_ita2_support_opcm(i);
        iarr += pfm_ita2_support_iarr(i);
        darr += pfm_ita2_support_darr(i);
        CU_ASSERT_EQUAL(pfm_ita2_is_dear(i), pfm_ita2_is_dear_tlb(i) + pfm_ita2_is_dear_cache(i) +
                                                  pfm_ita2_is_dear_alat(i));
        CU_ASSERT_EQUAL(pfm_ita2_is_iear(i), pfm_ita2_is_iear_tlb(i) + pfm_ita2_is_iear_cache(i));
        CU_ASSERT_EQUAL(pfm_ita2_get_ear_mode(i, &mode) == PFMLIB_SUCCESS, pfm_ita2_is_ear(i));
    }
    CU_ASSERT_EQUAL(ear, 36);
    CU_ASSERT_EQUAL(dear, 19);
    CU_ASSERT_EQUAL(iear, 17);
    CU_ASSERT_EQUAL(btb, 1);
    CU_ASSERT_EQUAL(opcm, 237);
    CU_ASSERT_EQUAL(iarr, 293);
    CU_ASSERT_EQUAL(darr, 160);
    CU_ASSERT(l1 > 0 && l2 > 0);
    /* out of range and NULL */
    unsigned m;
    CU_ASSERT_EQUAL(pfm_ita2_get_event_maxincr(497, &m), PFMLIB_ERR_INVAL);
    CU_ASSERT_EQUAL(pfm_ita2_get_event_maxincr(0, NULL), PFMLIB_ERR_INVAL);
    CU_ASSERT_EQUAL(pfm_ita2_is_ear(497), 0);
    /* seed examples */
    unsigned idx;
    pfmlib_ita2_ear_mode_t mode;
    CU_ASSERT_EQUAL(pfm_find_event("DATA_EAR_CACHE_LAT4", &idx), PFMLIB_SUCCESS);
    CU_ASSERT_EQUAL(pfm_ita2_is_ear(idx), 1);
    CU_ASSERT_EQUAL(pfm_ita2_is_dear_cache(idx), 1);
    CU_ASSERT_EQUAL(pfm_ita2_get_ear_mode(idx, &mode), PFMLIB_SUCCESS);
    CU_ASSERT_EQUAL(mode, PFMLIB_ITA2_EAR_CACHE_MODE);
    CU_ASSERT_EQUAL(pfm_find_event("CPU_CYCLES", &idx), PFMLIB_SUCCESS);
    CU_ASSERT_EQUAL(pfm_ita2_is_ear(idx), 0);
    CU_ASSERT_EQUAL(pfm_ita2_support_iarr(idx), 0);
    mode = (pfmlib_ita2_ear_mode_t)7;
    CU_ASSERT_EQUAL(pfm_ita2_get_ear_mode(idx, &mode), PFMLIB_ERR_INVAL);
    CU_ASSERT_EQUAL(mode, 7);   /* not updated */
    CU_ASSERT_EQUAL(pfm_find_event("NOPS_RETIRED", &idx), PFMLIB_SUCCESS);
    CU_ASSERT_EQUAL(pfm_ita2_get_event_maxincr(idx, &m), PFMLIB_SUCCESS);
    CU_ASSERT_EQUAL(m, 6);
    int grp, set;
    CU_ASSERT_EQUAL(pfm_find_event("L1D_READS_SET1", &idx), PFMLIB_SUCCESS);
    CU_ASSERT_EQUAL(pfm_ita2_get_event_group(idx, &grp), PFMLIB_SUCCESS);
    CU_ASSERT_EQUAL(grp, PFMLIB_ITA2_EVT_L1_CACHE_GRP);
    CU_ASSERT_EQUAL(pfm_ita2_get_event_set(idx, &set), PFMLIB_SUCCESS);
    CU_ASSERT_EQUAL(set, 1);
}

/* ---- counters ------------------------------------------------------ */

static void test_cpu_cycles(void)
{
    req_init(PLM3);
    req_event("CPU_CYCLES");
    CU_ASSERT_EQUAL(req_dispatch(0), PFMLIB_SUCCESS);
    CHECK_PMCS(4, 0x1228);   /* REF §3.2 example */
    CHECK_PMDS(4);
}

static void test_two_events(void)
{
    req_init(PLM3);
    req_event("IA64_INST_RETIRED");
    req_event("CPU_CYCLES");
    CU_ASSERT_EQUAL(req_dispatch(0), PFMLIB_SUCCESS);
    CHECK_PMCS(4, 0x828, 5, 0x1228);
    CHECK_PMDS(4, 5);
    CU_ASSERT_EQUAL(treq.outp.pfp_pmcs[1].reg_addr, 5);
}

/* The output structure: the counts, the entries below them and the reserved
 * words are written; entries past the counts keep the caller's bytes
 * (docs/compat-ia64.md, "The output structure"). */
static void test_output_reset(void)
{
    req_init(PLM3);
    req_event("IA64_INST_RETIRED");
    req_event("CPU_CYCLES");
    memset(&treq.outp, 0xa5, sizeof(treq.outp));
    CU_ASSERT_EQUAL(req_dispatch(0), PFMLIB_SUCCESS);
    CHECK_PMCS(4, 0x828, 5, 0x1228);
    CHECK_PMDS(4, 5);
    for (unsigned i = 0; i < 2; i++) {
        CU_ASSERT_EQUAL(treq.outp.pfp_pmcs[i].reg_addr, 4 + i);
        CU_ASSERT_EQUAL(treq.outp.pfp_pmcs[i].reg_alt_addr, 4 + i);
        CU_ASSERT_EQUAL(treq.outp.pfp_pmcs[i].reg_reserved1, 0);
        CU_ASSERT_EQUAL(treq.outp.pfp_pmds[i].reg_value, 0);
        CU_ASSERT_EQUAL(treq.outp.pfp_pmds[i].reg_addr, 4 + i);
        CU_ASSERT_EQUAL(treq.outp.pfp_pmds[i].reg_alt_addr, 4 + i);
        CU_ASSERT_EQUAL(treq.outp.pfp_pmds[i].reg_reserved1, 0);
    }
    for (unsigned i = 0; i < 7; i++)
        CU_ASSERT_EQUAL(treq.outp.reserved[i], 0);
    CU_ASSERT_EQUAL(treq.outp.pfp_pmcs[2].reg_num, 0xa5a5a5a5u);
    CU_ASSERT_EQUAL(treq.outp.pfp_pmds[2].reg_num, 0xa5a5a5a5u);
    /* a request refused after the reset leaves both counts 0 */
    memset(&treq.outp, 0xa5, sizeof(treq.outp));
    treq.inp.pfp_events[0].plm = 0x10;
    CU_ASSERT_EQUAL(req_dispatch(0), PFMLIB_ERR_INVAL);
    CU_ASSERT_EQUAL(treq.outp.pfp_pmc_count, 0);
    CU_ASSERT_EQUAL(treq.outp.pfp_pmd_count, 0);
}

static void test_plm_and_systemwide(void)
{
    req_init(PLM3);
    unsigned s = req_event("CPU_CYCLES");
    treq.inp.pfp_events[s].plm = PFM_PLM0 | PFM_PLM3;
    treq.inp.pfp_flags = PFMLIB_PFP_SYSTEMWIDE;
    CU_ASSERT_EQUAL(req_dispatch(0), PFMLIB_SUCCESS);
    CHECK_PMCS(4, 0x1269);   /* plm 0x9, oi, pm */
    treq.inp.pfp_events[s].plm = 0x10;  /* wider than the 4-bit field */
    CU_ASSERT_EQUAL(req_dispatch(0), PFMLIB_ERR_INVAL);
}

static void test_threshold(void)
{
    req_init(PLM3);
    unsigned s = req_event("NOPS_RETIRED");   /* maxincr 6 */
    ITA2->pfp_ita2_counters[s].thres = 5;
    CU_ASSERT_EQUAL(req_dispatch(1), PFMLIB_SUCCESS);
    CHECK_PMCS(4, 0x505028, 15, 0xffffffff);
    ITA2->pfp_ita2_counters[s].thres = 6;   /* beyond maxincr-1 */
    CU_ASSERT_EQUAL(req_dispatch(1), PFMLIB_ERR_INVAL);
    req_init(PLM3);
    s = req_event("CPU_CYCLES");              /* maxincr 1: only 0 */
    ITA2->pfp_ita2_counters[s].thres = 1;
    CU_ASSERT_EQUAL(req_dispatch(1), PFMLIB_ERR_INVAL);
}

static void test_ism(void)
{
    req_init(PLM3);
    unsigned s = req_event("CPU_CYCLES");
    ITA2->pfp_ita2_counters[s].ism = PFMLIB_ITA2_ISM_IA64;
    CU_ASSERT_EQUAL(req_dispatch(1), PFMLIB_SUCCESS);
    CHECK_PMCS(4, 0x2001228, 15, 0xffffffff);
    ITA2->pfp_ita2_counters[s].ism = PFMLIB_ITA2_ISM_IA32;
    CU_ASSERT_EQUAL(req_dispatch(1), PFMLIB_SUCCESS);
    CHECK_PMCS(4, 0x1001228, 15, 0xffffffff);
    ITA2->pfp_ita2_counters[s].ism = (pfmlib_ita2_ism_t)4;
    CU_ASSERT_EQUAL(req_dispatch(1), PFMLIB_ERR_INVAL);
}

static void test_counter_constraints(void)
{
    /* L2_FORCE_RECIRC_* count on PMC4 only: CPU_CYCLES moves to PMC5 */
    req_init(PLM3);
    req_event("CPU_CYCLES");
    req_event("L2_FORCE_RECIRC_ANY");
    CU_ASSERT_EQUAL(req_dispatch(0), PFMLIB_SUCCESS);
    CHECK_PMCS(5, 0x1228, 4, 0xb428);
    /* two PMC4-only events */
    req_init(PLM3);
    req_event("L2_FORCE_RECIRC_ANY");
    req_event("L2_FORCE_RECIRC_L1W");
    CU_ASSERT_EQUAL(req_dispatch(0), PFMLIB_ERR_NOASSIGN);
    /* unavailable PMC4 */
    req_init(PLM3);
    req_event("CPU_CYCLES");
    pfm_regmask_set(&treq.inp.pfp_unavail_pmcs, 4);
    CU_ASSERT_EQUAL(req_dispatch(0), PFMLIB_SUCCESS);
    CHECK_PMCS(5, 0x1228);
    /* too many events */
    req_init(PLM3);
    for (int i = 0; i < 5; i++)
        req_event("CPU_CYCLES");
    CU_ASSERT_EQUAL(req_dispatch(0), PFMLIB_ERR_NOASSIGN);
}

static void test_cache_groups(void)
{
    /* an L1 event must sit on PMC5 */
    req_init(PLM3);
    req_event("L1D_READS_SET0");
    req_event("CPU_CYCLES");
    CU_ASSERT_EQUAL(req_dispatch(0), PFMLIB_SUCCESS);
    CHECK_PMCS(5, 0xc228, 4, 0x1228);
    /* two L1 sets */
    req_init(PLM3);
    req_event("L1D_READS_SET0");
    req_event("L1D_READS_SET1");
    CU_ASSERT_EQUAL(req_dispatch(0), PFMLIB_ERR_EVTSET);
    /* OzQ cancel families are exclusive (same L2 set 0, umask 0) */
    req_init(PLM3);
    req_event("L2_OZQ_CANCELS0_ANY");
    req_event("L2_OZQ_CANCELS1_REL");
    CU_ASSERT_EQUAL(req_dispatch(0), PFMLIB_ERR_INVAL);
    /* L2 set 0: a umask different from the other event's -> no assignment */
    req_init(PLM3);
    req_event("L2_OZQ_CANCELS0_ANY");   /* umask 0 */
    req_event("L2_OZQ_CANCELS2_ACQ");   /* umask 4 */
    CU_ASSERT_EQUAL(req_dispatch(0), PFMLIB_ERR_NOASSIGN);
}

static void test_generic_errors(void)
{
    req_init(0);
    req_event("CPU_CYCLES");
    CU_ASSERT_EQUAL(req_dispatch(0), PFMLIB_ERR_INVAL);   /* dfl_plm 0 */
    req_init(PLM3);
    treq.inp.pfp_event_count = 1;
    treq.inp.pfp_events[0].event = 497;
    CU_ASSERT_EQUAL(req_dispatch(0), PFMLIB_ERR_INVAL);
    treq.inp.pfp_events[0].event = 179;
    treq.inp.pfp_events[0].num_masks = 1;
    CU_ASSERT_EQUAL(req_dispatch(0), PFMLIB_ERR_UMASK);
    treq.inp.pfp_events[0].num_masks = 0;
    CU_ASSERT_EQUAL(pfm_dispatch_events(NULL, NULL, &treq.outp, NULL), PFMLIB_ERR_INVAL);
    CU_ASSERT_EQUAL(pfm_dispatch_events(&treq.inp, NULL, NULL, NULL), PFMLIB_ERR_INVAL);
    CU_ASSERT_EQUAL(pfm_dispatch_events(&treq.inp, NULL, &treq.outp, &treq.out), PFMLIB_ERR_INVAL);
    treq.inp.pfp_event_count = 600;
    CU_ASSERT_EQUAL(req_dispatch(0), PFMLIB_ERR_INVAL);
}

/* ---- EARs: the four methods of the seed ---------------------------- */

static void test_dear_methods(void)
{
    /* method 1: event, no ear_used -> PMC11 from the event */
    req_init(PLM3);
    req_event("DATA_EAR_CACHE_LAT4");
    CU_ASSERT_EQUAL(req_dispatch(0), PFMLIB_SUCCESS);
    CHECK_PMCS(4, 0xc828, 11, 0x8);
    CHECK_PMDS(4, 2, 3, 17);
    req_init(PLM3);
    req_event("DATA_EAR_CACHE_LAT1024");
    CU_ASSERT_EQUAL(req_dispatch(0), PFMLIB_SUCCESS);
    CHECK_PMCS(4, 0xc828, 11, 0x80008);
    /* TLB mode forces PMC12 (BTB) to 0 */
    req_init(PLM3);
    req_event("DATA_EAR_TLB_ALL");
    CU_ASSERT_EQUAL(req_dispatch(0), PFMLIB_SUCCESS);
    CHECK_PMCS(4, 0xc828, 11, 0xe0088, 12, 0);
    CHECK_PMDS(4, 2, 3, 17);
    /* method 2: event + ear_used: the parameters win */
    req_init(PLM3);
    req_event("DATA_EAR_CACHE_LAT4");
    ITA2->pfp_ita2_dear = (pfmlib_ita2_ear_t){ .ear_used = 1, .ear_mode = PFMLIB_ITA2_EAR_CACHE_MODE,
                                               .ear_umask = 2, .ear_plm = PFM_PLM0, .ear_ism = PFMLIB_ITA2_ISM_IA64 };
    CU_ASSERT_EQUAL(req_dispatch(1), PFMLIB_SUCCESS);
    CHECK_PMCS(4, 0xc828, 11, 0x2020001, 15, 0xffffffff);
    /* method 3: no event, not used: nothing */
    req_init(PLM3);
    req_event("CPU_CYCLES");
    CU_ASSERT_EQUAL(req_dispatch(1), PFMLIB_SUCCESS);
    CHECK_PMCS(4, 0x1228, 15, 0xffffffff);
    CHECK_PMDS(4);
    /* method 4: free-running D-EAR in TLB mode */
    req_init(PLM3);
    req_event("CPU_CYCLES");
    ITA2->pfp_ita2_dear = (pfmlib_ita2_ear_t){ .ear_used = 1, .ear_mode = PFMLIB_ITA2_EAR_TLB_MODE, .ear_umask = 2 };
    CU_ASSERT_EQUAL(req_dispatch(1), PFMLIB_SUCCESS);
    CHECK_PMCS(4, 0x1228, 11, 0x20088, 15, 0xffffffff, 12, 0);
    CHECK_PMDS(4, 2, 3, 17);
    /* errors: bad mode, umask wider than the field */
    ITA2->pfp_ita2_dear.ear_mode = (pfmlib_ita2_ear_mode_t)3;
    CU_ASSERT_EQUAL(req_dispatch(1), PFMLIB_ERR_INVAL);
    ITA2->pfp_ita2_dear.ear_mode = PFMLIB_ITA2_EAR_CACHE_MODE;
    ITA2->pfp_ita2_dear.ear_umask = 0x10;
    CU_ASSERT_EQUAL(req_dispatch(1), PFMLIB_ERR_INVAL);
    /* PMC11 unavailable */
    req_init(PLM3);
    req_event("DATA_EAR_CACHE_LAT4");
    pfm_regmask_set(&treq.inp.pfp_unavail_pmcs, 11);
    CU_ASSERT_EQUAL(req_dispatch(0), PFMLIB_ERR_NOASSIGN);
}

static void test_iear_methods(void)
{
    req_init(PLM3);
    req_event("L1I_EAR_CACHE_LAT4");
    CU_ASSERT_EQUAL(req_dispatch(0), PFMLIB_SUCCESS);
    CHECK_PMCS(4, 0x4328, 10, 0x3fe8);   /* REF §6 example */
    CHECK_PMDS(4, 0, 1);
    req_init(PLM3);
    req_event("L1I_EAR_TLB_ALL");
    CU_ASSERT_EQUAL(req_dispatch(0), PFMLIB_SUCCESS);
    CHECK_PMCS(4, 0x4328, 10, 0xe8);
    /* method 2 with ism and plm */
    req_init(PLM3);
    req_event("L1I_EAR_CACHE_LAT4");
    ITA2->pfp_ita2_iear = (pfmlib_ita2_ear_t){ .ear_used = 1, .ear_mode = PFMLIB_ITA2_EAR_CACHE_MODE,
                                               .ear_umask = 0x40, .ear_plm = PFM_PLM0,
                                               .ear_ism = PFMLIB_ITA2_ISM_IA64 };
    treq.inp.pfp_flags = PFMLIB_PFP_SYSTEMWIDE;
    CU_ASSERT_EQUAL(req_dispatch(1), PFMLIB_SUCCESS);
    CHECK_PMCS(4, 0x4368, 10, 0xa811, 15, 0xffffffff);
    /* method 4 and errors */
    req_init(PLM3);
    ITA2->pfp_ita2_iear = (pfmlib_ita2_ear_t){ .ear_used = 1, .ear_mode = PFMLIB_ITA2_EAR_TLB_MODE, .ear_umask = 1 };
    CU_ASSERT_EQUAL(req_dispatch(1), PFMLIB_SUCCESS);
    CHECK_PMCS(10, 0x28, 15, 0xffffffff);
    ITA2->pfp_ita2_iear.ear_mode = PFMLIB_ITA2_EAR_ALAT_MODE;
    CU_ASSERT_EQUAL(req_dispatch(1), PFMLIB_ERR_INVAL);
    ITA2->pfp_ita2_iear.ear_mode = PFMLIB_ITA2_EAR_TLB_MODE;
    ITA2->pfp_ita2_iear.ear_umask = 0x80;   /* would turn TLB mode into "nothing" */
    CU_ASSERT_EQUAL(req_dispatch(1), PFMLIB_ERR_INVAL);
}

/* ---- BTB: the four methods ----------------------------------------- */

static void test_btb_methods(void)
{
    req_init(PLM3);
    req_event("BRANCH_EVENT");
    CU_ASSERT_EQUAL(req_dispatch(0), PFMLIB_SUCCESS);
    CHECK_PMCS(4, 0x1128, 12, 0x3f08);
    CHECK_PMDS(4, 8, 9, 10, 11, 12, 13, 14, 15, 16);
    /* method 2 */
    req_init(PLM3);
    req_event("BRANCH_EVENT");
    ITA2->pfp_ita2_btb = (pfmlib_ita2_btb_t){ .btb_used = 1, .btb_ds = 1, .btb_tm = 2, .btb_ptm = 1, .btb_ppm = 3,
                                              .btb_brt = 1, .btb_plm = PFM_PLM0 };
    CU_ASSERT_EQUAL(req_dispatch(1), PFMLIB_SUCCESS);
    CHECK_PMCS(4, 0x1128, 15, 0xffffffff, 12, 0x7681);
    /* method 3: free running */
    req_init(PLM3);
    req_event("CPU_CYCLES");
    ITA2->pfp_ita2_btb = (pfmlib_ita2_btb_t){ .btb_used = 1, .btb_tm = 3, .btb_ptm = 3, .btb_ppm = 3 };
    CU_ASSERT_EQUAL(req_dispatch(1), PFMLIB_SUCCESS);
    CHECK_PMCS(4, 0x1228, 15, 0xffffffff, 12, 0x3f08);
    CHECK_PMDS(4, 8, 9, 10, 11, 12, 13, 14, 15, 16);
    /* field too wide */
    ITA2->pfp_ita2_btb.btb_tm = 4;
    CU_ASSERT_EQUAL(req_dispatch(1), PFMLIB_ERR_INVAL);
    /* BTB with a D-EAR in TLB mode */
    req_init(PLM3);
    req_event("BRANCH_EVENT");
    req_event("DATA_EAR_TLB_L2DTLB");
    CU_ASSERT_EQUAL(req_dispatch(0), PFMLIB_ERR_EVTINCOMP);
    /* with a D-EAR in cache mode it is fine */
    req_init(PLM3);
    req_event("BRANCH_EVENT");
    req_event("DATA_EAR_CACHE_LAT8");
    CU_ASSERT_EQUAL(req_dispatch(0), PFMLIB_SUCCESS);
    CHECK_PMCS(4, 0x1128, 5, 0xc828, 11, 0x10008, 12, 0x3f08);
}

/* ---- opcode matching ------------------------------------------------ */

static void test_opcode_matchers(void)
{
    req_init(PLM3);
    req_event("IA64_INST_RETIRED");
    ITA2->pfp_ita2_pmc8 = (pfmlib_ita2_opcm_t){ .opcm_used = 1, .pmc_val = 0 };
    CU_ASSERT_EQUAL(req_dispatch(1), PFMLIB_SUCCESS);
    CHECK_PMCS(4, 0x828, 8, 0x5, 15, 0xfffffffa);
    /* the tagged IBRP0 event alone keeps IBRP2 unconstrained */
    req_init(PLM3);
    req_event("IA64_TAGGED_INST_RETIRED_IBRP0_PMC8");
    ITA2->pfp_ita2_pmc8 = (pfmlib_ita2_opcm_t){ .opcm_used = 1, .pmc_val = 0xf00000000000000fUL };
    CU_ASSERT_EQUAL(req_dispatch(1), PFMLIB_SUCCESS);
    CHECK_PMCS(4, 0x828, 8, 0xf00000000000000dULL, 15, 0xfffffffe);
    /* PMC9 */
    req_init(PLM3);
    req_event("IA64_INST_RETIRED");
    ITA2->pfp_ita2_pmc9 = (pfmlib_ita2_opcm_t){ .opcm_used = 1, .pmc_val = 0x2 };
    CU_ASSERT_EQUAL(req_dispatch(1), PFMLIB_SUCCESS);
    CHECK_PMCS(4, 0x828, 9, 0x5, 15, 0xfffffff5);
    /* PMC9 only qualifies IA64_INST_RETIRED events */
    req_init(PLM3);
    req_event("IA64_INST_RETIRED");
    req_event("NOPS_RETIRED");
    ITA2->pfp_ita2_pmc9.opcm_used = 1;
    CU_ASSERT_EQUAL(req_dispatch(1), PFMLIB_ERR_FEATCOMB);
    /* CPU_CYCLES does not support opcode matching ... */
    req_init(PLM3);
    req_event("CPU_CYCLES");
    ITA2->pfp_ita2_pmc8.opcm_used = 1;
    CU_ASSERT_EQUAL(req_dispatch(1), PFMLIB_ERR_FEATCOMB);
    /* ... unless the qualifier check is off */
    ITA2->pfp_ita2_counters[0].flags = PFMLIB_ITA2_FL_EVT_NO_QUALCHECK;
    CU_ASSERT_EQUAL(req_dispatch(1), PFMLIB_SUCCESS);
    CHECK_PMCS(4, 0x1228, 8, 0x5, 15, 0xfffffffa);
}

/* ---- ranges --------------------------------------------------------- */

static void set_irange(pfmlib_ita2_input_rr_t *rr, unsigned i, unsigned long s, unsigned long e)
{
    rr->rr_used = 1;
    rr->rr_limits[i].rr_start = s;
    rr->rr_limits[i].rr_end = e;
}

/* Seed example: FE_BUBBLE_ALL does not support code ranges. */
static void test_irange_qualcheck(void)
{
    req_init(PLM3);
    req_event("FE_BUBBLE_ALL");
    set_irange(&ITA2->pfp_ita2_irange, 0, 0x4000, 0x5000);
    CU_ASSERT_EQUAL(req_dispatch(1), PFMLIB_ERR_FEATCOMB);
    ITA2->pfp_ita2_counters[0].flags = PFMLIB_ITA2_FL_EVT_NO_QUALCHECK;
    CU_ASSERT_EQUAL(req_dispatch(1), PFMLIB_SUCCESS);
    /* coarse mode, one pair, exact fit */
    CHECK_PMCS(4, 0x7128, 14, 0xdb4, 13, 0x2078fefefeeeULL, 8, 0xffffffff3ffffffcULL, 15, 0xffffffff);
    CHECK_BR(ITA2_OUT->pfp_ita2_irange, 0, 0x4000, 1, 0x08fffffffffff000ULL);
    CU_ASSERT_EQUAL(ITA2_OUT->pfp_ita2_irange.rr_infos[0].rr_soff, 0);
    CU_ASSERT_EQUAL(ITA2_OUT->pfp_ita2_irange.rr_infos[0].rr_eoff, 0);
    CU_ASSERT_EQUAL(pfm_ita2_irange_is_fine(&treq.outp, ITA2_OUT), 0);
    /* inverted */
    ITA2->pfp_ita2_irange.rr_flags = PFMLIB_ITA2_RR_INV;
    CU_ASSERT_EQUAL(req_dispatch(1), PFMLIB_SUCCESS);
    CU_ASSERT_EQUAL(treq.outp.pfp_pmcs[3].reg_value, 0xffffffff3ffffffeULL);
}

static void test_irange_coarse_offsets(void)
{
    /* [0x4100, 0x5900): one naturally aligned power of two covers it */
    req_init(PLM3);
    req_event("NOPS_RETIRED");
    set_irange(&ITA2->pfp_ita2_irange, 0, 0x4100, 0x5900);
    CU_ASSERT_EQUAL(req_dispatch(1), PFMLIB_SUCCESS);
    /* size 0x1800 -> 2^13; 0x4000+0x2000 = 0x6000 >= 0x5900 */
    CHECK_BR(ITA2_OUT->pfp_ita2_irange, 0, 0x4000, 1, 0x08ffffffffffe000ULL);
    CU_ASSERT_EQUAL(ITA2_OUT->pfp_ita2_irange.rr_infos[0].rr_soff, 0x100);
    CU_ASSERT_EQUAL(ITA2_OUT->pfp_ita2_irange.rr_infos[0].rr_eoff, 0x700);
}

static void test_irange_fine(void)
{
    req_init(PLM3);
    req_event("IA64_INST_RETIRED");
    set_irange(&ITA2->pfp_ita2_irange, 0, 0x4010, 0x4080);
    CU_ASSERT_EQUAL(req_dispatch(1), PFMLIB_SUCCESS);
    CHECK_PMCS(4, 0x828, 14, 0x2d34, 13, 0x2078fefefeeeULL, 8, 0xffffffff3ffffffcULL, 15, 0xffffffff);
    CHECK_BR(ITA2_OUT->pfp_ita2_irange, 0, 0x4000, 1, 0x08fffffffffff000ULL, 4, 0x4070,
             5, 0x08fffffffffff000ULL);
    CU_ASSERT_EQUAL(ITA2_OUT->pfp_ita2_irange.rr_infos[0].rr_soff, 0x10);
    CU_ASSERT_EQUAL(ITA2_OUT->pfp_ita2_irange.rr_infos[0].rr_eoff, 0);
    CU_ASSERT_EQUAL(pfm_ita2_irange_is_fine(&treq.outp, ITA2_OUT), 1);
    /* two fine ranges: each keeps its own offsets; upper bound 32-byte aligned gets +0x10 */
    set_irange(&ITA2->pfp_ita2_irange, 1, 0x8000, 0x8030);
    CU_ASSERT_EQUAL(req_dispatch(1), PFMLIB_SUCCESS);
    CHECK_BR(ITA2_OUT->pfp_ita2_irange, 0, 0x4000, 1, 0x08fffffffffff000ULL, 4, 0x4070, 5, 0x08fffffffffff000ULL,
             2, 0x8000, 3, 0x08fffffffffff000ULL, 6, 0x8030, 7, 0x08fffffffffff000ULL);
    CU_ASSERT_EQUAL(ITA2_OUT->pfp_ita2_irange.rr_infos[0].rr_soff, 0x10);
    CU_ASSERT_EQUAL(ITA2_OUT->pfp_ita2_irange.rr_infos[1].rr_soff, 0);
    CU_ASSERT_EQUAL(ITA2_OUT->pfp_ita2_irange.rr_infos[1].rr_eoff, 0x10);
    /* PMC14: pairs 0,1 (lower) and 2,3 (upper) constrained, fine */
    CU_ASSERT_EQUAL(treq.outp.pfp_pmcs[1].reg_value, 0x2924);
    /* three fine ranges are too many */
    set_irange(&ITA2->pfp_ita2_irange, 2, 0x9000, 0x9030);
    CU_ASSERT_EQUAL(req_dispatch(1), PFMLIB_ERR_IRRTOOMANY);
    /* no fine mode forced: not retired-only -> one range only */
    memset(&ITA2->pfp_ita2_irange, 0, sizeof(ITA2->pfp_ita2_irange));
    req_event("CPU_CYCLES");
    ITA2->pfp_ita2_counters[1].flags = PFMLIB_ITA2_FL_EVT_NO_QUALCHECK;
    set_irange(&ITA2->pfp_ita2_irange, 0, 0x4010, 0x4080);
    set_irange(&ITA2->pfp_ita2_irange, 1, 0x8000, 0x8030);
    ITA2->pfp_ita2_irange.rr_flags = PFMLIB_ITA2_RR_NO_FINE_MODE;
    CU_ASSERT_EQUAL(req_dispatch(1), PFMLIB_ERR_IRRTOOMANY);
}

static void test_irange_retired_multi_pair(void)
{
    req_init(PLM3);
    req_event("IA64_TAGGED_INST_RETIRED_IBRP0_PMC8");
    req_event("IA64_TAGGED_INST_RETIRED_IBRP1_PMC9");
    req_event("IA64_TAGGED_INST_RETIRED_IBRP2_PMC8");
    req_event("IA64_TAGGED_INST_RETIRED_IBRP3_PMC9");
    set_irange(&ITA2->pfp_ita2_irange, 0, 0x1000, 0x7000);
    CU_ASSERT_EQUAL(req_dispatch(1), PFMLIB_SUCCESS);
    CHECK_PMCS(4, 0x828, 5, 0x10828, 6, 0x20828, 7, 0x30828, 14, 0x924, 13, 0x1e078eeeeeeeeULL,
               8, 0xffffffff3ffffffcULL, 15, 0xffffffff);
    CHECK_BR(ITA2_OUT->pfp_ita2_irange, 0, 0x4000, 1, 0x08ffffffffffe000ULL, 2, 0x2000, 3, 0x08ffffffffffe000ULL,
             4, 0x1000, 5, 0x08fffffffffff000ULL, 6, 0x6000, 7, 0x08fffffffffff000ULL);
    CU_ASSERT_EQUAL(ITA2_OUT->pfp_ita2_irange.rr_infos[0].rr_soff, 0);
    CU_ASSERT_EQUAL(ITA2_OUT->pfp_ita2_irange.rr_infos[0].rr_eoff, 0);
    /* without the IBRP3 tagged event the count of pair 3 would be lost */
    treq.inp.pfp_event_count = 3;
    CU_ASSERT_EQUAL(req_dispatch(1), PFMLIB_ERR_IRRINVAL);
}

static void test_irange_errors(void)
{
    req_init(PLM3);
    req_event("IA64_INST_RETIRED");
    set_irange(&ITA2->pfp_ita2_irange, 0, 0x4008, 0x5000);
    CU_ASSERT_EQUAL(req_dispatch(1), PFMLIB_ERR_IRRALIGN);
    set_irange(&ITA2->pfp_ita2_irange, 0, 0x5000, 0x4000);
    CU_ASSERT_EQUAL(req_dispatch(1), PFMLIB_ERR_IRRINVAL);
    memset(&ITA2->pfp_ita2_irange, 0, sizeof(ITA2->pfp_ita2_irange));
    ITA2->pfp_ita2_irange.rr_used = 1;   /* no range at all */
    CU_ASSERT_EQUAL(req_dispatch(1), PFMLIB_ERR_IRRINVAL);
    set_irange(&ITA2->pfp_ita2_irange, 0, 0x4000, 0x5000);
    CU_ASSERT_EQUAL(pfm_dispatch_events(&treq.inp, &treq.in, &treq.outp, NULL), PFMLIB_ERR_INVAL);
    /* a range wider than 2^62 that is not a power of two */
    set_irange(&ITA2->pfp_ita2_irange, 0, 0x10, 0xc000000000000000UL);
    treq.inp.pfp_events[0].event = 463;   /* NOPS_RETIRED: not retired-only, single pair */
    CU_ASSERT_EQUAL(req_dispatch(1), PFMLIB_ERR_IRRTOOBIG);
    treq.inp.pfp_events[0].event = 270;
    set_irange(&ITA2->pfp_ita2_irange, 0, 0x4000, 0x5000);
    /* per-event plm must match the default when ranges are used */
    treq.inp.pfp_events[0].plm = PFM_PLM0;
    CU_ASSERT_EQUAL(req_dispatch(1), PFMLIB_ERR_FEATCOMB);
}

static void test_drange(void)
{
    req_init(PLM3);
    req_event("ALAT_CAPACITY_MISS_ALL");
    ITA2->pfp_ita2_drange.rr_used = 1;
    ITA2->pfp_ita2_drange.rr_limits[0].rr_start = 0x100000;
    ITA2->pfp_ita2_drange.rr_limits[0].rr_end = 0x100100;
    CU_ASSERT_EQUAL(req_dispatch(1), PFMLIB_SUCCESS);
    CHECK_PMCS(4, 0x35828, 13, 0x2078fefefef6ULL, 15, 0xffffffff);
    CHECK_BR(ITA2_OUT->pfp_ita2_drange, 0, 0x100000, 1, 0x08ffffffffffff00ULL);
    /* an unaligned range is covered exactly with 4 pairs */
    ITA2->pfp_ita2_drange.rr_limits[0].rr_start = 0x1003;
    ITA2->pfp_ita2_drange.rr_limits[0].rr_end = 0x1011;
    CU_ASSERT_EQUAL(req_dispatch(1), PFMLIB_SUCCESS);
    CHECK_BR(ITA2_OUT->pfp_ita2_drange, 0, 0x1008, 1, 0x08fffffffffffff8ULL, 2, 0x1004, 3, 0x08fffffffffffffcULL,
             4, 0x1003, 5, 0x08ffffffffffffffULL, 6, 0x1010, 7, 0x08ffffffffffffffULL);
    CU_ASSERT_EQUAL(ITA2_OUT->pfp_ita2_drange.rr_infos[0].rr_soff, 0);
    CU_ASSERT_EQUAL(ITA2_OUT->pfp_ita2_drange.rr_infos[0].rr_eoff, 0);
    CU_ASSERT_EQUAL(treq.outp.pfp_pmcs[1].reg_value, 0x1e078f6f6f6f6ULL);
    /* a second range finds no pair left */
    ITA2->pfp_ita2_drange.rr_limits[1].rr_start = 0x2000;
    ITA2->pfp_ita2_drange.rr_limits[1].rr_end = 0x2100;
    CU_ASSERT_EQUAL(req_dispatch(1), PFMLIB_ERR_DRRTOOMANY);
    /* second range with 3 pairs left: the last pair of the left part grows
     * leftwards (REF §10.5), the right part is exact */
    ITA2->pfp_ita2_drange.rr_limits[0].rr_start = 0x1000;
    ITA2->pfp_ita2_drange.rr_limits[0].rr_end = 0x1010;
    ITA2->pfp_ita2_drange.rr_limits[1].rr_start = 0x2003;
    ITA2->pfp_ita2_drange.rr_limits[1].rr_end = 0x2011;
    CU_ASSERT_EQUAL(req_dispatch(1), PFMLIB_SUCCESS);
    CHECK_BR(ITA2_OUT->pfp_ita2_drange, 0, 0x1000, 1, 0x08fffffffffffff0ULL, 2, 0x2008, 3, 0x08fffffffffffff8ULL,
             4, 0x2000, 5, 0x08fffffffffffff8ULL, 6, 0x2010, 7, 0x08ffffffffffffffULL);
    CU_ASSERT_EQUAL(ITA2_OUT->pfp_ita2_drange.rr_infos[1].rr_soff, 3);
    CU_ASSERT_EQUAL(ITA2_OUT->pfp_ita2_drange.rr_infos[1].rr_eoff, 0);
    /* ... and a right part that grows rightwards */
    ITA2->pfp_ita2_drange.rr_limits[1].rr_start = 0x2000;
    ITA2->pfp_ita2_drange.rr_limits[1].rr_end = 0x2013;
    CU_ASSERT_EQUAL(req_dispatch(1), PFMLIB_SUCCESS);
    CHECK_BR(ITA2_OUT->pfp_ita2_drange, 0, 0x1000, 1, 0x08fffffffffffff0ULL, 2, 0x2000, 3, 0x08fffffffffffff0ULL,
             4, 0x2010, 5, 0x08fffffffffffffcULL);
    CU_ASSERT_EQUAL(ITA2_OUT->pfp_ita2_drange.rr_infos[1].rr_soff, 0);
    CU_ASSERT_EQUAL(ITA2_OUT->pfp_ita2_drange.rr_infos[1].rr_eoff, 1);
    /* data range on an event without data-range support */
    req_init(PLM3);
    req_event("IA64_INST_RETIRED");
    ITA2->pfp_ita2_drange.rr_used = 1;
    ITA2->pfp_ita2_drange.rr_limits[0].rr_start = 0x1000;
    ITA2->pfp_ita2_drange.rr_limits[0].rr_end = 0x2000;
    CU_ASSERT_EQUAL(req_dispatch(1), PFMLIB_ERR_FEATCOMB);
    ITA2->pfp_ita2_counters[0].flags = PFMLIB_ITA2_FL_EVT_NO_QUALCHECK;
    CU_ASSERT_EQUAL(req_dispatch(1), PFMLIB_SUCCESS);
    /* empty data range list */
    memset(&ITA2->pfp_ita2_drange.rr_limits, 0, sizeof(ITA2->pfp_ita2_drange.rr_limits));
    CU_ASSERT_EQUAL(req_dispatch(1), PFMLIB_ERR_DRRINVAL);
}

static void register_suites(void)
{
    CU_pSuite s = CU_add_suite("pfm3_ita2_api", NULL, NULL);
    PMUSIM_ADD_TEST(s, test_noinit_then_force);
    PMUSIM_ADD_TEST(s, test_env_force);
    PMUSIM_ADD_TEST(s, test_generic_queries);
    PMUSIM_ADD_TEST(s, test_query_all_events);
    s = CU_add_suite("pfm3_ita2_counters", NULL, NULL);
    PMUSIM_ADD_TEST(s, test_cpu_cycles);
    PMUSIM_ADD_TEST(s, test_two_events);
    PMUSIM_ADD_TEST(s, test_output_reset);
    PMUSIM_ADD_TEST(s, test_plm_and_systemwide);
    PMUSIM_ADD_TEST(s, test_threshold);
    PMUSIM_ADD_TEST(s, test_ism);
    PMUSIM_ADD_TEST(s, test_counter_constraints);
    PMUSIM_ADD_TEST(s, test_cache_groups);
    PMUSIM_ADD_TEST(s, test_generic_errors);
    s = CU_add_suite("pfm3_ita2_ear_btb_opcm", NULL, NULL);
    PMUSIM_ADD_TEST(s, test_dear_methods);
    PMUSIM_ADD_TEST(s, test_iear_methods);
    PMUSIM_ADD_TEST(s, test_btb_methods);
    PMUSIM_ADD_TEST(s, test_opcode_matchers);
    s = CU_add_suite("pfm3_ita2_ranges", NULL, NULL);
    PMUSIM_ADD_TEST(s, test_irange_qualcheck);
    PMUSIM_ADD_TEST(s, test_irange_coarse_offsets);
    PMUSIM_ADD_TEST(s, test_irange_fine);
    PMUSIM_ADD_TEST(s, test_irange_retired_multi_pair);
    PMUSIM_ADD_TEST(s, test_irange_errors);
    PMUSIM_ADD_TEST(s, test_drange);
}

