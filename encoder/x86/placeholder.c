#include "pmusim/encoder.h"
const pmusim_encoder_pmu_t pmusim_encoder_wsm = { .name = "wsm", .isa = PMUSIM_ISA_X86_64 };
const pmusim_encoder_pmu_t pmusim_encoder_wsm_dp = { .name = "wsm_dp", .isa = PMUSIM_ISA_X86_64 };
const pmusim_encoder_pmu_t pmusim_encoder_knm = { .name = "knm", .isa = PMUSIM_ISA_X86_64 };
