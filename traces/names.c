/* Names of ISAs and CPU models, shared by the text trace form, the CLI and reports. */
#include "pmusim/trace.h"

#include <string.h>

static const char *const cpu_names[] = {
    [PMUSIM_CPU_NONE] = "none", [PMUSIM_CPU_ITA2] = "ita2", [PMUSIM_CPU_MONT] = "mont",
    [PMUSIM_CPU_WSM] = "wsm",   [PMUSIM_CPU_WSM_DP] = "wsm_dp", [PMUSIM_CPU_KNM] = "knm",
};

const char *pmusim_isa_name(pmusim_isa_t isa)
{
    switch (isa) {
    case PMUSIM_ISA_IA64: return "ia64";
    case PMUSIM_ISA_X86_64: return "x86_64";
    default: return "none";
    }
}

const char *pmusim_cpu_name(pmusim_cpu_t cpu)
{
    if ((unsigned)cpu < G_N_ELEMENTS(cpu_names))
        return cpu_names[cpu];
    return "none";
}

pmusim_cpu_t pmusim_cpu_from_name(const char *name)
{
    if (!name)
        return PMUSIM_CPU_NONE;
    for (unsigned i = 1; i < G_N_ELEMENTS(cpu_names); i++)
        if (g_ascii_strcasecmp(cpu_names[i], name) == 0)
            return (pmusim_cpu_t)i;
    return PMUSIM_CPU_NONE;
}

pmusim_isa_t pmusim_cpu_isa(pmusim_cpu_t cpu)
{
    switch (cpu) {
    case PMUSIM_CPU_ITA2:
    case PMUSIM_CPU_MONT: return PMUSIM_ISA_IA64;
    case PMUSIM_CPU_WSM:
    case PMUSIM_CPU_WSM_DP:
    case PMUSIM_CPU_KNM: return PMUSIM_ISA_X86_64;
    default: return PMUSIM_ISA_NONE;
    }
}
