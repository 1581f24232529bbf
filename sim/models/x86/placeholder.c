#include "pmusim/sim.h"
const pmusim_model_ops_t pmusim_model_wsm = { .name = "wsm", .isa = PMUSIM_ISA_X86_64, .cpu = PMUSIM_CPU_WSM, .max_threads = 2 };
const pmusim_model_ops_t pmusim_model_wsm_dp = { .name = "wsm_dp", .isa = PMUSIM_ISA_X86_64, .cpu = PMUSIM_CPU_WSM_DP, .max_threads = 2 };
const pmusim_model_ops_t pmusim_model_knm = { .name = "knm", .isa = PMUSIM_ISA_X86_64, .cpu = PMUSIM_CPU_KNM, .max_threads = 4 };
