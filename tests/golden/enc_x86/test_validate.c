/* Golden cases: libpfm-4's validate_x86.c entries for wsm, wsm_dp, knl
 * (repeated for knm), run through pmusim's libpfm-4 face. */
#include "cu_main.h"
#include "cases_runner.h"

#include <stdlib.h>

#ifndef CASES_FILE
#error "CASES_FILE must name the case file"
#endif

static void test_validate_x86(void)
{
    setenv("LIBPFM_ENCODE_INACTIVE", "1", 1);
    unsetenv("LIBPFM_FORCE_PMU");
    CU_ASSERT_EQUAL_FATAL(pfm_initialize(), PFM_SUCCESS);
    CU_ASSERT(run_case_file(CASES_FILE) >= 50);
    pfm_terminate();
}

static void register_suites(void)
{
    CU_pSuite s = CU_add_suite("validate_x86", NULL, NULL);
    PMUSIM_ADD_TEST(s, test_validate_x86);
}
