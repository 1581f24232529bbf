/* End to end: the libpfm-3 face's pfm_dispatch_events() programs the model,
 * in-memory records are replayed, the counts and captures are checked.
 * Each capture unit (D-EAR, I-EAR, BTB, ETB) is requested in the four ways
 * the libpfm_itanium2(3) / libpfm_montecito(3) pages describe: event only,
 * event and parameter (the parameter wins), parameter only (free-running,
 * no counter), neither. */
#include "cu_main.h"
#include "ia64_test.h"
#include <perfmon/pfmlib_itanium2.h>
#include <perfmon/pfmlib_montecito.h>

typedef struct {
    pfmlib_input_param_t inp;
    pfmlib_output_param_t outp;
    pfmlib_ita2_input_param_t ita2;
    pfmlib_mont_input_param_t mont;
} req_t;

static req_t req;

static void req_reset(int pmu)
{
    memset(&req, 0, sizeof req);
    CU_ASSERT_EQUAL_FATAL(pfm_force_pmu(pmu), PFMLIB_SUCCESS);
    req.inp.pfp_dfl_plm = PFM_PLM3;
}

static void req_event(const char *name)
{
    unsigned idx;
    CU_ASSERT_EQUAL_FATAL(pfm_find_event(name, &idx), PFMLIB_SUCCESS);
    req.inp.pfp_events[req.inp.pfp_event_count++].event = idx;
}

/* Dispatch and program a fresh model; counter i is labelled by event i. */
static pmusim_model_t *req_model(const char *pmu, const char *const *labels)
{
    void *mod = strcmp(pmu, "ita2") == 0 ? (void *)&req.ita2 : (void *)&req.mont;
    int ret = pfm_dispatch_events(&req.inp, mod, &req.outp, NULL);
    CU_ASSERT_EQUAL_FATAL(ret, PFMLIB_SUCCESS);
    pmusim_model_t *m = t_model(pmu, 1);
    for (unsigned k = 0; k < req.outp.pfp_pmc_count; k++)
        t_write_l(m, PMUSIM_REG_PMC, req.outp.pfp_pmcs[k].reg_num, req.outp.pfp_pmcs[k].reg_value,
                  0, k < req.inp.pfp_event_count && labels ? labels[k] : NULL);
    return m;
}

/* value of the counter programmed for event i */
static uint64_t req_count(pmusim_model_t *m, unsigned i)
{
    return t_read(m, PMUSIM_REG_PMD, req.outp.pfp_pmcs[i].reg_num, 0) & CTR_MASK;
}

static pmusim_rec_t t_load(uint64_t cycle, uint64_t ip, uint64_t addr, uint8_t level, uint32_t lat)
{
    pmusim_rec_t r = t_insn(cycle, 3);
    r.ip = ip;
    r.unit = PMUSIM_UNIT_M;
    r.flags = PMUSIM_F_MEM;
    r.mem.addr = addr;
    r.mem.size = 8;
    r.mem.level = level;
    r.mem.latency = lat;
    return r;
}

#define IPA 0x4000000000001000ull
#define IPB 0x4000000000002000ull

/* loads with latencies 2 (L1D), 6, 12 and 40 (L3) */
static size_t dear_recs(pmusim_rec_t *r)
{
    r[0] = t_load(0, IPA, 0x6000000000000000ull, PMUSIM_LVL_L1D, 2);
    r[1] = t_load(1, IPA, 0x6000000000000100ull, PMUSIM_LVL_L2, 6);
    r[2] = t_load(2, IPA, 0x6000000000000200ull, PMUSIM_LVL_L2, 12);
    r[3] = t_load(3, IPB, 0x6000000000000300ull, PMUSIM_LVL_L3, 40);
    return 4;
}

static void test_dear_methods_ita2(void)
{
    pmusim_rec_t r[4];
    size_t n = dear_recs(r);
    static const char *const lab[] = {"DATA_EAR_CACHE_LAT8", "CPU_CYCLES"};

    /* (1) event only: PMC11 from the event (latency >= 8) */
    req_reset(PFMLIB_ITANIUM2_PMU);
    req_event("DATA_EAR_CACHE_LAT8");
    pmusim_model_t *m = req_model("ita2", lab);
    t_run(m, r, n);
    CU_ASSERT_EQUAL(req_count(m, 0), 2);
    CU_ASSERT_EQUAL(RPMD(m, 2), 0x6000000000000300ull);
    CU_ASSERT_EQUAL(RPMD(m, 3) & 0x1fff, 40);
    CU_ASSERT_EQUAL(RPMD(m, 17), IPB | 8);
    pmusim_model_free(m);

    /* (2) event and parameter: the parameter's LAT32 (umask 3) wins */
    req_reset(PFMLIB_ITANIUM2_PMU);
    req_event("DATA_EAR_CACHE_LAT8");
    req.ita2.pfp_ita2_dear.ear_used = 1;
    req.ita2.pfp_ita2_dear.ear_mode = PFMLIB_ITA2_EAR_CACHE_MODE;
    req.ita2.pfp_ita2_dear.ear_umask = 3;
    req.ita2.pfp_ita2_dear.ear_plm = PFM_PLM3;
    req.ita2.pfp_ita2_dear.ear_ism = PFMLIB_ITA2_ISM_IA64;
    m = req_model("ita2", lab);
    t_run(m, r, n);
    CU_ASSERT_EQUAL(req_count(m, 0), 1);
    CU_ASSERT_EQUAL(RPMD(m, 2), 0x6000000000000300ull);
    pmusim_model_free(m);

    /* (3) parameter only: the D-EAR runs free, CPU_CYCLES counts */
    req_reset(PFMLIB_ITANIUM2_PMU);
    req_event("CPU_CYCLES");
    req.ita2.pfp_ita2_dear.ear_used = 1;
    req.ita2.pfp_ita2_dear.ear_mode = PFMLIB_ITA2_EAR_CACHE_MODE;
    req.ita2.pfp_ita2_dear.ear_umask = 1; /* >= 8 */
    req.ita2.pfp_ita2_dear.ear_plm = PFM_PLM3;
    m = req_model("ita2", lab + 1);
    t_run(m, r, n);
    CU_ASSERT_EQUAL(req_count(m, 0), 4);
    CU_ASSERT_EQUAL(RPMD(m, 2), 0x6000000000000300ull);
    CU_ASSERT_EQUAL(RPMD(m, 17), IPB | 8);
    pmusim_model_free(m);

    /* (4) neither: nothing captured */
    req_reset(PFMLIB_ITANIUM2_PMU);
    req_event("CPU_CYCLES");
    m = req_model("ita2", lab + 1);
    t_run(m, r, n);
    CU_ASSERT_EQUAL(RPMD(m, 2), 0);
    CU_ASSERT_EQUAL(RPMD(m, 17), 0);
    pmusim_model_free(m);
}

static void test_dear_tlb_mont(void)
{
    pmusim_rec_t r[4];
    size_t n = dear_recs(r);
    r[1].mem.tlb = PMUSIM_TLB_L2_HIT;
    r[2].mem.tlb = PMUSIM_TLB_WALK;
    static const char *const lab[] = {"DATA_EAR_TLB_ALL"};
    req_reset(PFMLIB_MONTECITO_PMU);
    req_event("DATA_EAR_TLB_ALL");
    pmusim_model_t *m = req_model("mont", lab);
    t_run(m, r, n);
    CU_ASSERT_EQUAL(req_count(m, 0), 2);
    CU_ASSERT_EQUAL(RPMD(m, 32), 0x6000000000000200ull);
    CU_ASSERT_EQUAL((RPMD(m, 33) >> 14) & 3, 2); /* VHPT walk */
    pmusim_model_free(m);
}

static void test_iear_methods(void)
{
    pmusim_rec_t r[] = {t_insn(0, 3), t_event(1, 0x43, 0, 6), t_event(2, 0x43, 0, 20),
                        t_event(3, 0x43, 2, 9)};
    r[0].ip = IPA;
    static const char *const lab[] = {"L1I_EAR_CACHE_LAT8", "CPU_CYCLES"};

    req_reset(PFMLIB_ITANIUM2_PMU);
    req_event("L1I_EAR_CACHE_LAT8");
    pmusim_model_t *m = req_model("ita2", lab);
    t_run(m, r, G_N_ELEMENTS(r));
    CU_ASSERT_EQUAL(req_count(m, 0), 2); /* latencies 20 and 9 */
    CU_ASSERT_EQUAL(RPMD(m, 0), IPA | 1);
    CU_ASSERT_EQUAL(RPMD(m, 1), 9);
    pmusim_model_free(m);

    /* parameter only, TLB mode: VHPT walks (umask 2) */
    req_reset(PFMLIB_MONTECITO_PMU);
    req_event("CPU_OP_CYCLES_ALL");
    req.mont.pfp_mont_iear.ear_used = 1;
    req.mont.pfp_mont_iear.ear_mode = PFMLIB_MONT_EAR_TLB_MODE;
    req.mont.pfp_mont_iear.ear_umask = 2;
    req.mont.pfp_mont_iear.ear_plm = PFM_PLM3;
    m = req_model("mont", lab + 1);
    t_run(m, r, G_N_ELEMENTS(r));
    CU_ASSERT_EQUAL(RPMD(m, 34), IPA | 2);
    pmusim_model_free(m);
}

static pmusim_rec_t t_br(uint64_t cycle, uint64_t ip, bool taken, bool dir_ok)
{
    pmusim_rec_t r = t_insn(cycle, 3);
    r.ip = ip;
    r.slot = 2;
    r.unit = PMUSIM_UNIT_B;
    r.flags = PMUSIM_F_BRANCH;
    r.br.kind = PMUSIM_BR_COND;
    r.br.taken = taken;
    r.br.dir_ok = dir_ok;
    r.br.tgt_ok = 1;
    r.br.target = IPA;
    r.br.detect = dir_ok ? PMUSIM_BRD_NONE : PMUSIM_BRD_BACKEND;
    return r;
}

static void test_btb_methods(void)
{
    pmusim_rec_t r[] = {t_br(0, IPB, 1, 1), t_br(1, IPB, 1, 1), t_br(2, IPB, 0, 0)};
    static const char *const lab[] = {"BRANCH_EVENT", "CPU_CYCLES"};

    /* (1) event only: every branch, 2 + 2 + 1 entries */
    req_reset(PFMLIB_ITANIUM2_PMU);
    req_event("BRANCH_EVENT");
    pmusim_model_t *m = req_model("ita2", lab);
    t_run(m, r, 3);
    CU_ASSERT_EQUAL(req_count(m, 0), 3);
    CU_ASSERT_EQUAL(RPMD(m, 16) & 0xf, 5);
    CU_ASSERT_EQUAL(RPMD(m, 12), IPB | 3u << 2 | 1); /* not taken */
    pmusim_model_free(m);

    /* (2) event and parameter: taken branches only */
    req_reset(PFMLIB_ITANIUM2_PMU);
    req_event("BRANCH_EVENT");
    req.ita2.pfp_ita2_btb.btb_used = 1;
    req.ita2.pfp_ita2_btb.btb_tm = 2;
    req.ita2.pfp_ita2_btb.btb_ptm = 3;
    req.ita2.pfp_ita2_btb.btb_ppm = 3;
    req.ita2.pfp_ita2_btb.btb_plm = PFM_PLM3;
    m = req_model("ita2", lab);
    t_run(m, r, 3);
    CU_ASSERT_EQUAL(req_count(m, 0), 2);
    CU_ASSERT_EQUAL(RPMD(m, 16) & 0xf, 4);
    pmusim_model_free(m);

    /* (3) parameter only: free-running BTB */
    req_reset(PFMLIB_ITANIUM2_PMU);
    req_event("CPU_CYCLES");
    req.ita2.pfp_ita2_btb.btb_used = 1;
    req.ita2.pfp_ita2_btb.btb_tm = 3;
    req.ita2.pfp_ita2_btb.btb_ptm = 3;
    req.ita2.pfp_ita2_btb.btb_ppm = 1; /* mispredicted path only */
    req.ita2.pfp_ita2_btb.btb_plm = PFM_PLM3;
    m = req_model("ita2", lab + 1);
    t_run(m, r, 3);
    CU_ASSERT_EQUAL(RPMD(m, 16), 1u | 1u << 5); /* one entry, bruflush */
    CU_ASSERT_EQUAL(RPMD(m, 8), IPB | 3u << 2 | 1);
    pmusim_model_free(m);

    /* (4) neither */
    req_reset(PFMLIB_ITANIUM2_PMU);
    req_event("CPU_CYCLES");
    m = req_model("ita2", lab + 1);
    t_run(m, r, 3);
    CU_ASSERT_EQUAL(RPMD(m, 16), 0);
    pmusim_model_free(m);
}

static void test_etb_methods(void)
{
    pmusim_rec_t r[] = {t_br(0, IPB, 1, 1), t_br(1, IPB, 1, 1), t_br(2, IPB, 0, 0)};
    static const char *const lab[] = {"ETB_EVENT", "CPU_OP_CYCLES_ALL"};

    req_reset(PFMLIB_MONTECITO_PMU);
    req_event("ETB_EVENT");
    pmusim_model_t *m = req_model("mont", lab);
    t_run(m, r, 3);
    CU_ASSERT_EQUAL(req_count(m, 0), 3);
    CU_ASSERT_EQUAL(RPMD(m, 38), 5);
    pmusim_model_free(m);

    req_reset(PFMLIB_MONTECITO_PMU);
    req_event("ETB_EVENT");
    req.mont.pfp_mont_etb.etb_used = 1;
    req.mont.pfp_mont_etb.etb_tm = 1; /* not taken only */
    req.mont.pfp_mont_etb.etb_ptm = 3;
    req.mont.pfp_mont_etb.etb_ppm = 3;
    req.mont.pfp_mont_etb.etb_plm = PFM_PLM3;
    m = req_model("mont", lab);
    t_run(m, r, 3);
    CU_ASSERT_EQUAL(req_count(m, 0), 1);
    CU_ASSERT_EQUAL(RPMD(m, 38), 1);
    CU_ASSERT_EQUAL(RPMD(m, 39), 2); /* entry 0: bruflush */
    pmusim_model_free(m);

    req_reset(PFMLIB_MONTECITO_PMU);
    req_event("CPU_OP_CYCLES_ALL");
    req.mont.pfp_mont_etb.etb_used = 1;
    req.mont.pfp_mont_etb.etb_tm = 3;
    req.mont.pfp_mont_etb.etb_ptm = 3;
    req.mont.pfp_mont_etb.etb_ppm = 3;
    req.mont.pfp_mont_etb.etb_plm = PFM_PLM3;
    m = req_model("mont", lab + 1);
    t_run(m, r, 3);
    CU_ASSERT_EQUAL(RPMD(m, 38), 5);
    CU_ASSERT_EQUAL(req_count(m, 0), 3);
    pmusim_model_free(m);

    req_reset(PFMLIB_MONTECITO_PMU);
    req_event("CPU_OP_CYCLES_ALL");
    m = req_model("mont", lab + 1);
    t_run(m, r, 3);
    CU_ASSERT_EQUAL(RPMD(m, 38), 0);
    pmusim_model_free(m);
}

static void test_ipear_param(void)
{
    pmusim_rec_t r[] = {t_insn(0, 3), t_insn(3, 3)};
    r[0].ip = IPA;
    r[1].ip = IPB;
    static const char *const lab[] = {"CPU_OP_CYCLES_ALL"};
    req_reset(PFMLIB_MONTECITO_PMU);
    req_event("CPU_OP_CYCLES_ALL");
    req.mont.pfp_mont_ipear.ipear_used = 1;
    req.mont.pfp_mont_ipear.ipear_plm = PFM_PLM3;
    req.mont.pfp_mont_ipear.ipear_delay = 4;
    pmusim_model_t *m = req_model("mont", lab);
    t_run(m, r, 2);
    CU_ASSERT_EQUAL(RPMD(m, 38), 2);
    CU_ASSERT_EQUAL(RPMD(m, 48), IPA >> 4);
    CU_ASSERT_EQUAL(RPMD(m, 49), (IPB >> 4) | 3ull << 60);
    pmusim_model_free(m);
}

static void test_counters_from_dispatch(void)
{
    /* CPU_CYCLES + IA64_INST_RETIRED with a threshold through the ita2
     * counter parameter: > 1 instruction per cycle */
    pmusim_rec_t r[] = {t_insn(0, 3), t_insn(0, 3), t_insn(1, 3), t_insn(2, 3), t_insn(2, 3),
                        t_insn(2, 3), t_idle(3, 2)};
    static const char *const lab[] = {"CPU_CYCLES", "IA64_INST_RETIRED"};
    req_reset(PFMLIB_ITANIUM2_PMU);
    req_event("CPU_CYCLES");
    req_event("IA64_INST_RETIRED");
    req.ita2.pfp_ita2_counters[1].thres = 1;
    pmusim_model_t *m = req_model("ita2", lab);
    t_run(m, r, G_N_ELEMENTS(r));
    CU_ASSERT_EQUAL(req_count(m, 0), 5);
    CU_ASSERT_EQUAL(req_count(m, 1), 2);
    pmusim_model_free(m);
}

static void register_suites(void)
{
    CU_pSuite s = CU_add_suite("ia64_end_to_end", NULL, NULL);
    PMUSIM_ADD_TEST(s, test_counters_from_dispatch);
    PMUSIM_ADD_TEST(s, test_dear_methods_ita2);
    PMUSIM_ADD_TEST(s, test_dear_tlb_mont);
    PMUSIM_ADD_TEST(s, test_iear_methods);
    PMUSIM_ADD_TEST(s, test_btb_methods);
    PMUSIM_ADD_TEST(s, test_etb_methods);
    PMUSIM_ADD_TEST(s, test_ipear_param);
}
