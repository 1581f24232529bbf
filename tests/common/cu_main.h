/* Shared main() for the CUnit runners: each runner defines
 *     static void register_suites(void) { ... CU_add_suite / CU_add_test ... }
 * then includes this file.  Runs everything verbosely and exits non-zero when
 * any assertion failed, so `meson test` sees every failure. */
#ifndef PMUSIM_CU_MAIN_H
#define PMUSIM_CU_MAIN_H

#include <CUnit/Basic.h>
#include <stdio.h>
#include <stdlib.h>

static void register_suites(void);

int main(void)
{
    if (CU_initialize_registry() != CUE_SUCCESS)
        return 2;
    register_suites();
    if (CU_get_error() != CUE_SUCCESS) {
        fprintf(stderr, "CUnit registration failed: %s\n", CU_get_error_msg());
        CU_cleanup_registry();
        return 2;
    }
    CU_basic_set_mode(CU_BRM_VERBOSE);
    CU_basic_run_tests();
    unsigned failures = CU_get_number_of_failures() + CU_get_number_of_tests_failed();
    unsigned run = CU_get_number_of_tests_run();
    CU_cleanup_registry();
    if (run == 0) {
        fprintf(stderr, "no test ran\n");
        return 1;
    }
    return failures ? 1 : 0;
}

#define PMUSIM_ADD_TEST(suite, fn)                                    \
    do {                                                              \
        if (!CU_add_test((suite), #fn, (fn)))                         \
            fprintf(stderr, "cannot add test %s\n", #fn);             \
    } while (0)

#endif
