/* Names of ISAs and CPU models, shared by the text trace form, the CLI and reports. */
#include "pmusim/trace.h"
#include "trace_priv.h"

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

/* Names used by the text form (traces/FORMAT.md); the index is the enum value. */
const char *const tr_kind_names[] = {
    [0] = "none", [PMUSIM_REC_INSN] = "insn", [PMUSIM_REC_IDLE] = "idle",
    [PMUSIM_REC_THREAD] = "thread", [PMUSIM_REC_EVENT] = "event", [PMUSIM_REC_MARKER] = "marker",
    [PMUSIM_REC_MEM] = "mem",
};
const char *const tr_unit_names[] = {
    [PMUSIM_UNIT_M] = "M", [PMUSIM_UNIT_I] = "I", [PMUSIM_UNIT_F] = "F",
    [PMUSIM_UNIT_B] = "B", [PMUSIM_UNIT_LX] = "LX",
};
const char *const tr_level_names[] = {
    [PMUSIM_LVL_L1D] = "l1d", [PMUSIM_LVL_L2] = "l2", [PMUSIM_LVL_L3] = "l3",
    [PMUSIM_LVL_LOCAL_DRAM] = "dram", [PMUSIM_LVL_REMOTE_DRAM] = "rdram",
    [PMUSIM_LVL_REMOTE_CACHE] = "rcache", [PMUSIM_LVL_LFB] = "lfb",
};
const char *const tr_tlb_names[] = {
    [PMUSIM_TLB_L1_HIT] = "l1", [PMUSIM_TLB_L2_HIT] = "l2", [PMUSIM_TLB_WALK] = "walk",
    [PMUSIM_TLB_FAULT] = "fault",
};
const char *const tr_alat_names[] = {
    [PMUSIM_ALAT_NONE] = "none", [PMUSIM_ALAT_HIT] = "hit", [PMUSIM_ALAT_MISS] = "miss",
};
const char *const tr_brkind_names[] = {
    [PMUSIM_BR_COND] = "cond", [PMUSIM_BR_CALL] = "call", [PMUSIM_BR_RET] = "ret",
    [PMUSIM_BR_IND] = "ind", [PMUSIM_BR_IPREL] = "iprel", [PMUSIM_BR_ICALL] = "icall",
};
const char *const tr_fpclass_names[] = {
    [PMUSIM_FPC_NONE] = "none", [PMUSIM_FPC_X87] = "x87", [PMUSIM_FPC_MMX] = "mmx",
    [PMUSIM_FPC_SS] = "ss",     [PMUSIM_FPC_SD] = "sd",   [PMUSIM_FPC_PS] = "ps",
    [PMUSIM_FPC_PD] = "pd",     [PMUSIM_FPC_VI] = "vi",
};
const char *const tr_opkind_names[] = {
    [PMUSIM_OPK_NONE] = "none",
    [PMUSIM_OPK_PACK] = "pack",
    [PMUSIM_OPK_UNPACK] = "unpack",
    [PMUSIM_OPK_PACKED_ARITH] = "packed_arith",
    [PMUSIM_OPK_PACKED_LOGICAL] = "packed_logical",
    [PMUSIM_OPK_PACKED_MPY] = "packed_mpy",
    [PMUSIM_OPK_PACKED_SHIFT] = "packed_shift",
    [PMUSIM_OPK_SHUFFLE_MOVE] = "shuffle_move",
    [PMUSIM_OPK_MUL] = "mul",
    [PMUSIM_OPK_DIV] = "div",
    [PMUSIM_OPK_FUSED] = "fused",
};
const char *const tr_detect_names[] = {
    [PMUSIM_BRD_NONE] = "none", [PMUSIM_BRD_FRONTEND] = "fe", [PMUSIM_BRD_BACKEND] = "be",
};

_Static_assert(sizeof tr_unit_names / sizeof tr_unit_names[0] == PMUSIM_UNIT_LX + 1, "units");
_Static_assert(sizeof tr_level_names / sizeof tr_level_names[0] == PMUSIM_LVL_COUNT, "levels");
_Static_assert(sizeof tr_tlb_names / sizeof tr_tlb_names[0] == PMUSIM_TLB_COUNT, "tlb");
_Static_assert(sizeof tr_alat_names / sizeof tr_alat_names[0] == PMUSIM_ALAT_COUNT, "alat");
_Static_assert(sizeof tr_brkind_names / sizeof tr_brkind_names[0] == PMUSIM_BR_COUNT, "br");
_Static_assert(sizeof tr_fpclass_names / sizeof tr_fpclass_names[0] == PMUSIM_FPC_COUNT, "fpc");
_Static_assert(PMUSIM_FPC_COUNT <= (PMUSIM_F_FPCLASS_MASK >> PMUSIM_F_FPCLASS_SHIFT) + 1, "the classes fit flag bits 7-9");
_Static_assert(sizeof tr_opkind_names / sizeof tr_opkind_names[0] == PMUSIM_OPK_COUNT, "opk");
_Static_assert(PMUSIM_OPK_COUNT <= (PMUSIM_F_OPKIND_MASK >> PMUSIM_F_OPKIND_SHIFT) + 1, "the kinds fit flag bits 10-13");
_Static_assert(sizeof tr_detect_names / sizeof tr_detect_names[0] == PMUSIM_BRD_COUNT, "det");

const char *pmusim_rec_kind_name(unsigned kind)
{
    return kind <= TR_KIND_MAX ? tr_kind_names[kind] : "none";
}

const char *pmusim_mem_level_name(unsigned level)
{
    return level < PMUSIM_LVL_COUNT ? tr_level_names[level] : "?";
}
