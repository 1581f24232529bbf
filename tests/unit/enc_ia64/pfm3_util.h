/* Helpers shared by the libpfm-3 face tests (tests/unit/enc_ia64). */
#ifndef PMUSIM_TEST_PFM3_UTIL_H
#define PMUSIM_TEST_PFM3_UTIL_H

#include <CUnit/CUnit.h>
#include <string.h>
#include <perfmon/pfmlib_itanium2.h>
#include <perfmon/pfmlib_montecito.h>

/* One dispatch request: generic + model structures, zeroed by req_init(). */
typedef struct {
    pfmlib_input_param_t inp;
    pfmlib_output_param_t outp;
    union { pfmlib_ita2_input_param_t ita2; pfmlib_mont_input_param_t mont; } in;
    union { pfmlib_ita2_output_param_t ita2; pfmlib_mont_output_param_t mont; } out;
} test_req_t;

static test_req_t treq;

static inline void req_init(unsigned dfl_plm)
{
    memset(&treq, 0, sizeof(treq));
    treq.inp.pfp_dfl_plm = dfl_plm;
}

/* Append an event by name; returns its slot. */
static inline unsigned req_event(const char *name)
{
    unsigned idx = ~0u, slot = treq.inp.pfp_event_count++;
    int ret = pfm_find_event(name, &idx);
    if (ret != PFMLIB_SUCCESS)
        fprintf(stderr, "test setup: event %s not found (%d)\n", name, ret);
    CU_ASSERT_EQUAL_FATAL(ret, PFMLIB_SUCCESS);
    treq.inp.pfp_events[slot].event = idx;
    return slot;
}

static inline int req_dispatch(int with_model)
{
    return pfm_dispatch_events(&treq.inp, with_model ? (void *)&treq.in : NULL, &treq.outp,
                               with_model ? (void *)&treq.out : NULL);
}

/* Expected PMC list: pairs of (number, value), terminated by ~0u. */
static inline void check_pmcs(const unsigned long long *exp, unsigned n)
{
    CU_ASSERT_EQUAL(treq.outp.pfp_pmc_count, n);
    for (unsigned i = 0; i < n && i < treq.outp.pfp_pmc_count; i++) {
        if (treq.outp.pfp_pmcs[i].reg_num != exp[2 * i] || treq.outp.pfp_pmcs[i].reg_value != exp[2 * i + 1])
            fprintf(stderr, "  pmc[%u]: got PMC%u=0x%llx, expected PMC%llu=0x%llx\n", i,
                    treq.outp.pfp_pmcs[i].reg_num, treq.outp.pfp_pmcs[i].reg_value, exp[2 * i], exp[2 * i + 1]);
        CU_ASSERT_EQUAL(treq.outp.pfp_pmcs[i].reg_num, exp[2 * i]);
        CU_ASSERT_EQUAL(treq.outp.pfp_pmcs[i].reg_value, exp[2 * i + 1]);
    }
}

#define CHECK_PMCS(...)                                                                   \
    do {                                                                                  \
        static const unsigned long long exp_[] = { __VA_ARGS__ };                         \
        check_pmcs(exp_, (unsigned)(sizeof(exp_) / sizeof(exp_[0]) / 2));                \
    } while (0)

static inline void check_pmds(const unsigned *exp, unsigned n)
{
    CU_ASSERT_EQUAL(treq.outp.pfp_pmd_count, n);
    for (unsigned i = 0; i < n && i < treq.outp.pfp_pmd_count; i++)
        CU_ASSERT_EQUAL(treq.outp.pfp_pmds[i].reg_num, exp[i]);
}

#define CHECK_PMDS(...)                                                                   \
    do {                                                                                  \
        static const unsigned exp_[] = { __VA_ARGS__ };                                   \
        check_pmds(exp_, (unsigned)(sizeof(exp_) / sizeof(exp_[0])));                     \
    } while (0)

/* Expected debug registers of one output range set. */
static inline void check_br(unsigned nbr, const pfmlib_reg_t *br, const unsigned long long *exp, unsigned n)
{
    CU_ASSERT_EQUAL(nbr, n);
    for (unsigned i = 0; i < n && i < nbr; i++) {
        if (br[i].reg_num != exp[2 * i] || br[i].reg_value != exp[2 * i + 1])
            fprintf(stderr, "  br[%u]: got %u=0x%llx, expected %llu=0x%llx\n", i, br[i].reg_num, br[i].reg_value,
                    exp[2 * i], exp[2 * i + 1]);
        CU_ASSERT_EQUAL(br[i].reg_num, exp[2 * i]);
        CU_ASSERT_EQUAL(br[i].reg_value, exp[2 * i + 1]);
    }
}

#define CHECK_BR(rr, ...)                                                                 \
    do {                                                                                  \
        static const unsigned long long exp_[] = { __VA_ARGS__ };                         \
        check_br((rr).rr_nbr_used, (rr).rr_br, exp_, (unsigned)(sizeof(exp_) / sizeof(exp_[0]) / 2)); \
    } while (0)

#endif
