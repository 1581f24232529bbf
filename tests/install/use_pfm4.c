/* Built by tests/install against the installed libpfm-4 face (pkg-config
 * pmusim-libpfm4): encodes a Westmere event into its IA32_PERFEVTSELx value. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <perfmon/pfmlib.h>

int main(void)
{
    if (pfm_initialize() != PFM_SUCCESS) {
        fprintf(stderr, "pfm_initialize failed\n");
        return 1;
    }
    pfm_pmu_encode_arg_t arg;
    memset(&arg, 0, sizeof arg);
    arg.size = sizeof arg;
    int ret = pfm_get_os_event_encoding("wsm::INST_RETIRED:ANY_P", PFM_PLM0 | PFM_PLM3,
                                        PFM_OS_NONE, &arg);
    if (ret != PFM_SUCCESS) {
        fprintf(stderr, "pfm_get_os_event_encoding: %s\n", pfm_strerror(ret));
        return 1;
    }
    printf("count %d code 0x%llx\n", arg.count, (unsigned long long)arg.codes[0]);
    free(arg.codes);
    free(arg.fstr);
    pfm_terminate();
    return 0;
}
