/* Built by tests/install against the installed libpmusim-pfm3 (pkg-config
 * pmusim-libpfm3): encodes CPU_CYCLES for user level on Itanium 2 and prints
 * the PMC writes. */
#include <stdio.h>
#include <string.h>
#include <perfmon/pfmlib_itanium2.h>

int main(void)
{
    unsigned idx;
    char name[64];
    if (pfm_force_pmu(PFMLIB_ITANIUM2_PMU) != PFMLIB_SUCCESS ||
        pfm_get_pmu_name(name, sizeof name) != PFMLIB_SUCCESS ||
        pfm_find_event("CPU_CYCLES", &idx) != PFMLIB_SUCCESS) {
        fprintf(stderr, "pfm3: setup failed\n");
        return 1;
    }
    pfmlib_input_param_t inp;
    pfmlib_output_param_t outp;
    memset(&inp, 0, sizeof inp);
    memset(&outp, 0, sizeof outp);
    inp.pfp_dfl_plm = PFM_PLM3;
    inp.pfp_event_count = 1;
    inp.pfp_events[0].event = idx;
    int ret = pfm_dispatch_events(&inp, NULL, &outp, NULL);
    if (ret != PFMLIB_SUCCESS) {
        fprintf(stderr, "pfm_dispatch_events: %s\n", pfm_strerror(ret));
        return 1;
    }
    printf("%s CPU_CYCLES\n", name);
    for (unsigned i = 0; i < outp.pfp_pmc_count; i++)
        printf("pmc%u 0x%llx\n", outp.pfp_pmcs[i].reg_num,
               (unsigned long long)outp.pfp_pmcs[i].reg_value);
    return 0;
}
