/* Golden cases: libpfm-4's validate_x86.c entries for wsm, wsm_dp, knl
 * (repeated for knm), run through pmusim's libpfm-4 face. */
#include "cu_main.h"
#include "cases_runner.h"

#include <stdlib.h>

#ifndef CASES_FILE
#error "CASES_FILE must name the case file"
#endif

static int validate_init(void)
{
    setenv("LIBPFM_ENCODE_INACTIVE", "1", 1);
    unsetenv("LIBPFM_FORCE_PMU");
    return pfm_initialize() == PFM_SUCCESS ? 0 : 1;
}

static int validate_clean(void)
{
    pfm_terminate();
    return 0;
}

static void register_suites(void)
{
    CU_pSuite s = CU_add_suite("validate_x86", validate_init, validate_clean);
    if (register_case_file(s, CASES_FILE) < 50)
        fprintf(stderr, "%s: too few cases\n", CASES_FILE);
}
