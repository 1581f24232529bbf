#include "pmusim/sim.h"
const pmusim_model_ops_t pmusim_model_ita2 = { .name = "ita2", .isa = PMUSIM_ISA_IA64, .cpu = PMUSIM_CPU_ITA2, .max_threads = 1 };
const pmusim_model_ops_t pmusim_model_mont = { .name = "mont", .isa = PMUSIM_ISA_IA64, .cpu = PMUSIM_CPU_MONT, .max_threads = 2 };
