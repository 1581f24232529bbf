#include "pmusim/encoder.h"
const pmusim_encoder_pmu_t pmusim_encoder_ita2 = { .name = "ita2", .isa = PMUSIM_ISA_IA64 };
const pmusim_encoder_pmu_t pmusim_encoder_mont = { .name = "mont", .isa = PMUSIM_ISA_IA64 };
