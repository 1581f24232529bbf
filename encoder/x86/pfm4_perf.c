/* The "perf" and "perf_raw" PMUs of the libpfm-4 face.
 *
 * "perf" lists the Linux kernel's generic perf_event events under their
 * kernel names (PERF_COUNT_HW_CPU_CYCLES, ...) and perf(1)'s names
 * (CYCLES, CPU-CYCLES, L1-DCACHE-LOADS, ...), in libpfm-4 4.13's order and
 * with its index numbering, so event indices equal libpfm-4's.  The names,
 * perf_event_attr.type and .config values are the kernel ABI
 * (include/uapi/linux/perf_event.h: enum perf_hw_id, perf_sw_ids,
 * perf_hw_cache_id / _op_id / _op_result_id); which names exist and which
 * are aliases of which was read off libpfm-4 4.13 (Debian libpfm4 4.13.0,
 * pfm_get_event_info()).  The descriptions are pmusim's own.
 *
 * Generic cache events take two unit-mask groups, the operation (READ,
 * WRITE, PREFETCH; config bits 15:8) and the result (ACCESS, MISS; bits
 * 23:16): config = cache id | op << 8 | result << 16.  A group left empty
 * gets READ and MISS.  The instruction cache has no WRITE, the ITLB and the
 * branch unit only READ, as in libpfm-4.
 *
 * "perf_raw" has one pseudo event: "rHEX" encodes PERF_TYPE_RAW with config
 * HEX.
 */
#include "pfm4_perf.h"

#include <perfmon/perf_event.h>

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PERF_EF_PRECISE 0x1

/* unit-mask sets of the generic cache events */
enum { PERF_UM_NONE = 0, PERF_UM_RWP, PERF_UM_RP, PERF_UM_R };

typedef struct perf_ev {
    const char *name;
    const char *desc;
    const char *equiv;
    uint8_t type;   /* PERF_TYPE_* */
    uint64_t id;
    uint8_t umset;  /* PERF_UM_* */
    uint8_t flags;  /* PERF_EF_* */
} perf_ev_t;

static const perf_ev_t perf_events[] = {
    { "PERF_COUNT_HW_CPU_CYCLES", "Core clock cycles while the CPU is not halted", NULL, PERF_TYPE_HARDWARE, 0, PERF_UM_NONE, PERF_EF_PRECISE },
    { "CYCLES", "Core clock cycles while the CPU is not halted", "PERF_COUNT_HW_CPU_CYCLES", PERF_TYPE_HARDWARE, 0, PERF_UM_NONE, 0 },
    { "CPU-CYCLES", "Core clock cycles while the CPU is not halted", "PERF_COUNT_HW_CPU_CYCLES", PERF_TYPE_HARDWARE, 0, PERF_UM_NONE, 0 },
    { "PERF_COUNT_HW_INSTRUCTIONS", "Instructions retired", NULL, PERF_TYPE_HARDWARE, 0x1, PERF_UM_NONE, 0 },
    { "INSTRUCTIONS", "Instructions retired", "PERF_COUNT_HW_INSTRUCTIONS", PERF_TYPE_HARDWARE, 0x1, PERF_UM_NONE, 0 },
    { "PERF_COUNT_HW_CACHE_REFERENCES", "Cache accesses, usually at the last level cache", NULL, PERF_TYPE_HARDWARE, 0x2, PERF_UM_NONE, 0 },
    { "CACHE-REFERENCES", "Cache accesses, usually at the last level cache", "PERF_COUNT_HW_CACHE_REFERENCES", PERF_TYPE_HARDWARE, 0x2, PERF_UM_NONE, 0 },
    { "PERF_COUNT_HW_CACHE_MISSES", "Cache misses, usually at the last level cache", NULL, PERF_TYPE_HARDWARE, 0x3, PERF_UM_NONE, 0 },
    { "CACHE-MISSES", "Cache misses, usually at the last level cache", "PERF_COUNT_HW_CACHE_MISSES", PERF_TYPE_HARDWARE, 0x3, PERF_UM_NONE, 0 },
    { "PERF_COUNT_HW_BRANCH_INSTRUCTIONS", "Branch instructions retired", NULL, PERF_TYPE_HARDWARE, 0x4, PERF_UM_NONE, 0 },
    { "BRANCH-INSTRUCTIONS", "Branch instructions retired", "PERF_COUNT_HW_BRANCH_INSTRUCTIONS", PERF_TYPE_HARDWARE, 0x4, PERF_UM_NONE, 0 },
    { "BRANCHES", "Branch instructions retired", "PERF_COUNT_HW_BRANCH_INSTRUCTIONS", PERF_TYPE_HARDWARE, 0x4, PERF_UM_NONE, 0 },
    { "PERF_COUNT_HW_BRANCH_MISSES", "Mispredicted branch instructions", NULL, PERF_TYPE_HARDWARE, 0x5, PERF_UM_NONE, 0 },
    { "BRANCH-MISSES", "Mispredicted branch instructions", "PERF_COUNT_HW_BRANCH_MISSES", PERF_TYPE_HARDWARE, 0x5, PERF_UM_NONE, 0 },
    { "PERF_COUNT_HW_BUS_CYCLES", "Bus clock cycles", NULL, PERF_TYPE_HARDWARE, 0x6, PERF_UM_NONE, 0 },
    { "BUS-CYCLES", "Bus clock cycles", "PERF_COUNT_HW_BUS_CYCLES", PERF_TYPE_HARDWARE, 0x6, PERF_UM_NONE, 0 },
    { "PERF_COUNT_HW_STALLED_CYCLES_FRONTEND", "Cycles the front end issued nothing", NULL, PERF_TYPE_HARDWARE, 0x7, PERF_UM_NONE, 0 },
    { "STALLED-CYCLES-FRONTEND", "Cycles the front end issued nothing", "PERF_COUNT_HW_STALLED_CYCLES_FRONTEND", PERF_TYPE_HARDWARE, 0x7, PERF_UM_NONE, 0 },
    { "IDLE-CYCLES-FRONTEND", "Cycles the front end issued nothing", "PERF_COUNT_HW_STALLED_CYCLES_FRONTEND", PERF_TYPE_HARDWARE, 0x7, PERF_UM_NONE, 0 },
    { "PERF_COUNT_HW_STALLED_CYCLES_BACKEND", "Cycles the back end retired nothing", NULL, PERF_TYPE_HARDWARE, 0x8, PERF_UM_NONE, 0 },
    { "STALLED-CYCLES-BACKEND", "Cycles the back end retired nothing", "PERF_COUNT_HW_STALLED_CYCLES_BACKEND", PERF_TYPE_HARDWARE, 0x8, PERF_UM_NONE, 0 },
    { "IDLE-CYCLES-BACKEND", "Cycles the back end retired nothing", "PERF_COUNT_HW_STALLED_CYCLES_BACKEND", PERF_TYPE_HARDWARE, 0x8, PERF_UM_NONE, 0 },
    { "PERF_COUNT_HW_REF_CPU_CYCLES", "Reference clock cycles, not scaled by frequency changes", NULL, PERF_TYPE_HARDWARE, 0x9, PERF_UM_NONE, 0 },
    { "REF-CYCLES", "Reference clock cycles, not scaled by frequency changes", "PERF_COUNT_HW_REF_CPU_CYCLES", PERF_TYPE_HARDWARE, 0x9, PERF_UM_NONE, 0 },
    { "PERF_COUNT_SW_CPU_CLOCK", "Per-CPU high resolution timer (ns)", NULL, PERF_TYPE_SOFTWARE, 0, PERF_UM_NONE, 0 },
    { "CPU-CLOCK", "Per-CPU high resolution timer (ns)", "PERF_COUNT_SW_CPU_CLOCK", PERF_TYPE_SOFTWARE, 0, PERF_UM_NONE, 0 },
    { "PERF_COUNT_SW_TASK_CLOCK", "Time the task ran on a CPU (ns)", NULL, PERF_TYPE_SOFTWARE, 0x1, PERF_UM_NONE, 0 },
    { "TASK-CLOCK", "Time the task ran on a CPU (ns)", "PERF_COUNT_SW_TASK_CLOCK", PERF_TYPE_SOFTWARE, 0x1, PERF_UM_NONE, 0 },
    { "PERF_COUNT_SW_PAGE_FAULTS", "Page faults, minor and major", NULL, PERF_TYPE_SOFTWARE, 0x2, PERF_UM_NONE, 0 },
    { "PAGE-FAULTS", "Page faults, minor and major", "PERF_COUNT_SW_PAGE_FAULTS", PERF_TYPE_SOFTWARE, 0x2, PERF_UM_NONE, 0 },
    { "FAULTS", "Page faults, minor and major", "PERF_COUNT_SW_PAGE_FAULTS", PERF_TYPE_SOFTWARE, 0x2, PERF_UM_NONE, 0 },
    { "PERF_COUNT_SW_CONTEXT_SWITCHES", "Context switches", NULL, PERF_TYPE_SOFTWARE, 0x3, PERF_UM_NONE, 0 },
    { "CONTEXT-SWITCHES", "Context switches", "PERF_COUNT_SW_CONTEXT_SWITCHES", PERF_TYPE_SOFTWARE, 0x3, PERF_UM_NONE, 0 },
    { "CS", "Context switches", "PERF_COUNT_SW_CONTEXT_SWITCHES", PERF_TYPE_SOFTWARE, 0x3, PERF_UM_NONE, 0 },
    { "PERF_COUNT_SW_CPU_MIGRATIONS", "Moves of the task to another CPU", NULL, PERF_TYPE_SOFTWARE, 0x4, PERF_UM_NONE, 0 },
    { "CPU-MIGRATIONS", "Moves of the task to another CPU", "PERF_COUNT_SW_CPU_MIGRATIONS", PERF_TYPE_SOFTWARE, 0x4, PERF_UM_NONE, 0 },
    { "MIGRATIONS", "Moves of the task to another CPU", "PERF_COUNT_SW_CPU_MIGRATIONS", PERF_TYPE_SOFTWARE, 0x4, PERF_UM_NONE, 0 },
    { "PERF_COUNT_SW_PAGE_FAULTS_MIN", "Page faults served without I/O", NULL, PERF_TYPE_SOFTWARE, 0x5, PERF_UM_NONE, 0 },
    { "MINOR-FAULTS", "Page faults served without I/O", "PERF_COUNT_SW_PAGE_FAULTS_MIN", PERF_TYPE_SOFTWARE, 0x5, PERF_UM_NONE, 0 },
    { "PERF_COUNT_SW_PAGE_FAULTS_MAJ", "Page faults that needed I/O", NULL, PERF_TYPE_SOFTWARE, 0x6, PERF_UM_NONE, 0 },
    { "MAJOR-FAULTS", "Page faults that needed I/O", "PERF_COUNT_SW_PAGE_FAULTS_MAJ", PERF_TYPE_SOFTWARE, 0x6, PERF_UM_NONE, 0 },
    { "PERF_COUNT_SW_CGROUP_SWITCHES", "Context switches to a task of another cgroup", NULL, PERF_TYPE_SOFTWARE, 0xb, PERF_UM_NONE, 0 },
    { "CGROUP-SWITCHES", "Context switches to a task of another cgroup", "PERF_COUNT_SW_CGROUP_SWITCHES", PERF_TYPE_SOFTWARE, 0xb, PERF_UM_NONE, 0 },
    { "PERF_COUNT_HW_CACHE_L1D", "Level 1 data cache (generic cache event)", NULL, PERF_TYPE_HW_CACHE, 0, PERF_UM_RWP, 0 },
    { "L1-DCACHE-LOADS", "Level 1 data cache: reads", "PERF_COUNT_HW_CACHE_L1D:READ:ACCESS", PERF_TYPE_HW_CACHE, 0, PERF_UM_NONE, 0 },
    { "L1-DCACHE-LOAD-MISSES", "Level 1 data cache: reads that missed", "PERF_COUNT_HW_CACHE_L1D:READ:MISS", PERF_TYPE_HW_CACHE, 0, PERF_UM_NONE, 0 },
    { "L1-DCACHE-STORES", "Level 1 data cache: writes", "PERF_COUNT_HW_CACHE_L1D:WRITE:ACCESS", PERF_TYPE_HW_CACHE, 0, PERF_UM_NONE, 0 },
    { "L1-DCACHE-STORE-MISSES", "Level 1 data cache: writes that missed", "PERF_COUNT_HW_CACHE_L1D:WRITE:MISS", PERF_TYPE_HW_CACHE, 0, PERF_UM_NONE, 0 },
    { "L1-DCACHE-PREFETCHES", "Level 1 data cache: prefetches", "PERF_COUNT_HW_CACHE_L1D:PREFETCH:ACCESS", PERF_TYPE_HW_CACHE, 0, PERF_UM_NONE, 0 },
    { "L1-DCACHE-PREFETCH-MISSES", "Level 1 data cache: prefetches that missed", "PERF_COUNT_HW_CACHE_L1D:PREFETCH:MISS", PERF_TYPE_HW_CACHE, 0, PERF_UM_NONE, 0 },
    { "PERF_COUNT_HW_CACHE_L1I", "Level 1 instruction cache (generic cache event)", NULL, PERF_TYPE_HW_CACHE, 0x1, PERF_UM_RP, 0 },
    { "L1-ICACHE-LOADS", "Level 1 instruction cache: reads", "PERF_COUNT_HW_CACHE_L1I:READ:ACCESS", PERF_TYPE_HW_CACHE, 0x1, PERF_UM_NONE, 0 },
    { "L1-ICACHE-LOAD-MISSES", "Level 1 instruction cache: reads that missed", "PERF_COUNT_HW_CACHE_L1I:READ:MISS", PERF_TYPE_HW_CACHE, 0x1, PERF_UM_NONE, 0 },
    { "L1-ICACHE-PREFETCHES", "Level 1 instruction cache: prefetches", "PERF_COUNT_HW_CACHE_L1I:PREFETCH:ACCESS", PERF_TYPE_HW_CACHE, 0x1, PERF_UM_NONE, 0 },
    { "L1-ICACHE-PREFETCH-MISSES", "Level 1 instruction cache: prefetches that missed", "PERF_COUNT_HW_CACHE_L1I:PREFETCH:MISS", PERF_TYPE_HW_CACHE, 0x1, PERF_UM_NONE, 0 },
    { "PERF_COUNT_HW_CACHE_LL", "Last level cache (generic cache event)", NULL, PERF_TYPE_HW_CACHE, 0x2, PERF_UM_RWP, 0 },
    { "LLC-LOADS", "Last level cache: reads", "PERF_COUNT_HW_CACHE_LL:READ:ACCESS", PERF_TYPE_HW_CACHE, 0x2, PERF_UM_NONE, 0 },
    { "LLC-LOAD-MISSES", "Last level cache: reads that missed", "PERF_COUNT_HW_CACHE_LL:READ:MISS", PERF_TYPE_HW_CACHE, 0x2, PERF_UM_NONE, 0 },
    { "LLC-STORES", "Last level cache: writes", "PERF_COUNT_HW_CACHE_LL:WRITE:ACCESS", PERF_TYPE_HW_CACHE, 0x2, PERF_UM_NONE, 0 },
    { "LLC-STORE-MISSES", "Last level cache: writes that missed", "PERF_COUNT_HW_CACHE_LL:WRITE:MISS", PERF_TYPE_HW_CACHE, 0x2, PERF_UM_NONE, 0 },
    { "LLC-PREFETCHES", "Last level cache: prefetches", "PERF_COUNT_HW_CACHE_LL:PREFETCH:ACCESS", PERF_TYPE_HW_CACHE, 0x2, PERF_UM_NONE, 0 },
    { "LLC-PREFETCH-MISSES", "Last level cache: prefetches that missed", "PERF_COUNT_HW_CACHE_LL:PREFETCH:MISS", PERF_TYPE_HW_CACHE, 0x2, PERF_UM_NONE, 0 },
    { "PERF_COUNT_HW_CACHE_DTLB", "Data TLB (generic cache event)", NULL, PERF_TYPE_HW_CACHE, 0x3, PERF_UM_RWP, 0 },
    { "DTLB-LOADS", "Data TLB: reads", "PERF_COUNT_HW_CACHE_DTLB:READ:ACCESS", PERF_TYPE_HW_CACHE, 0x3, PERF_UM_NONE, 0 },
    { "DTLB-LOAD-MISSES", "Data TLB: reads that missed", "PERF_COUNT_HW_CACHE_DTLB:READ:MISS", PERF_TYPE_HW_CACHE, 0x3, PERF_UM_NONE, 0 },
    { "DTLB-STORES", "Data TLB: writes", "PERF_COUNT_HW_CACHE_DTLB:WRITE:ACCESS", PERF_TYPE_HW_CACHE, 0x3, PERF_UM_NONE, 0 },
    { "DTLB-STORE-MISSES", "Data TLB: writes that missed", "PERF_COUNT_HW_CACHE_DTLB:WRITE:MISS", PERF_TYPE_HW_CACHE, 0x3, PERF_UM_NONE, 0 },
    { "DTLB-PREFETCHES", "Data TLB: prefetches", "PERF_COUNT_HW_CACHE_DTLB:PREFETCH:ACCESS", PERF_TYPE_HW_CACHE, 0x3, PERF_UM_NONE, 0 },
    { "DTLB-PREFETCH-MISSES", "Data TLB: prefetches that missed", "PERF_COUNT_HW_CACHE_DTLB:PREFETCH:MISS", PERF_TYPE_HW_CACHE, 0x3, PERF_UM_NONE, 0 },
    { "PERF_COUNT_HW_CACHE_ITLB", "Instruction TLB (generic cache event)", NULL, PERF_TYPE_HW_CACHE, 0x4, PERF_UM_R, 0 },
    { "ITLB-LOADS", "Instruction TLB: reads", "PERF_COUNT_HW_CACHE_ITLB:READ:ACCESS", PERF_TYPE_HW_CACHE, 0x4, PERF_UM_NONE, 0 },
    { "ITLB-LOAD-MISSES", "Instruction TLB: reads that missed", "PERF_COUNT_HW_CACHE_ITLB:READ:MISS", PERF_TYPE_HW_CACHE, 0x4, PERF_UM_NONE, 0 },
    { "PERF_COUNT_HW_CACHE_BPU", "Branch prediction unit (generic cache event)", NULL, PERF_TYPE_HW_CACHE, 0x5, PERF_UM_R, 0 },
    { "BRANCH-LOADS", "Branch prediction unit: reads", "PERF_COUNT_HW_CACHE_BPU:READ:ACCESS", PERF_TYPE_HW_CACHE, 0x5, PERF_UM_NONE, 0 },
    { "BRANCH-LOAD-MISSES", "Branch prediction unit: reads that missed", "PERF_COUNT_HW_CACHE_BPU:READ:MISS", PERF_TYPE_HW_CACHE, 0x5, PERF_UM_NONE, 0 },
    { "PERF_COUNT_HW_CACHE_NODE", "Local memory node accesses (generic cache event)", NULL, PERF_TYPE_HW_CACHE, 0x6, PERF_UM_RWP, 0 },
    { "NODE-LOADS", "Local memory node accesses: reads", "PERF_COUNT_HW_CACHE_NODE:READ:ACCESS", PERF_TYPE_HW_CACHE, 0x6, PERF_UM_NONE, 0 },
    { "NODE-LOAD-MISSES", "Local memory node accesses: reads that missed", "PERF_COUNT_HW_CACHE_NODE:READ:MISS", PERF_TYPE_HW_CACHE, 0x6, PERF_UM_NONE, 0 },
    { "NODE-STORES", "Local memory node accesses: writes", "PERF_COUNT_HW_CACHE_NODE:WRITE:ACCESS", PERF_TYPE_HW_CACHE, 0x6, PERF_UM_NONE, 0 },
    { "NODE-STORE-MISSES", "Local memory node accesses: writes that missed", "PERF_COUNT_HW_CACHE_NODE:WRITE:MISS", PERF_TYPE_HW_CACHE, 0x6, PERF_UM_NONE, 0 },
    { "NODE-PREFETCHES", "Local memory node accesses: prefetches", "PERF_COUNT_HW_CACHE_NODE:PREFETCH:ACCESS", PERF_TYPE_HW_CACHE, 0x6, PERF_UM_NONE, 0 },
    { "NODE-PREFETCH-MISSES", "Local memory node accesses: prefetches that missed", "PERF_COUNT_HW_CACHE_NODE:PREFETCH:MISS", PERF_TYPE_HW_CACHE, 0x6, PERF_UM_NONE, 0 },
};
#define PERF_NEVENTS ((int)(sizeof perf_events / sizeof perf_events[0]))
_Static_assert(sizeof perf_events / sizeof perf_events[0] == 82, "libpfm-4 4.13 has 82 perf:: events");

typedef struct perf_um {
    const char *name;
    const char *desc;
    uint64_t code;
    uint8_t grp; /* 0: operation, 1: result */
} perf_um_t;

enum { UM_READ, UM_WRITE, UM_PREFETCH, UM_ACCESS, UM_MISS };
static const perf_um_t perf_umasks[] = {
    [UM_READ] = { "READ", "Count reads (loads)", 0x0, 0 },
    [UM_WRITE] = { "WRITE", "Count writes (stores)", 0x100, 0 },
    [UM_PREFETCH] = { "PREFETCH", "Count prefetches", 0x200, 0 },
    [UM_ACCESS] = { "ACCESS", "Count every access", 0x0, 1 },
    [UM_MISS] = { "MISS", "Count misses only", 0x10000, 1 },
};
/* the unit masks of each set, in attribute order */
static const uint8_t um_sets[][5] = {
    [PERF_UM_NONE] = { 0 },
    [PERF_UM_RWP] = { UM_READ, UM_WRITE, UM_PREFETCH, UM_ACCESS, UM_MISS },
    [PERF_UM_RP] = { UM_READ, UM_PREFETCH, UM_ACCESS, UM_MISS },
    [PERF_UM_R] = { UM_READ, UM_ACCESS, UM_MISS },
};
static const uint8_t um_counts[] = { 0, 5, 4, 3 };

#define PERF_PLM_ALL (X86_PLM0 | X86_PLM3 | X86_PLMH)

const pfm4_os_pmu_t pmusim_x86_os_pmus[PFM4_OS_NPMUS] = {
    [PFM4_PERF_PMU] = { "perf", "Linux perf_event generic events (hardware, software, cache)", 51, PERF_NEVENTS, PERF_PLM_ALL },
    [PFM4_PERF_RAW_PMU] = { "perf_raw", "Linux perf_event raw events (rHEX)", 114, 1, PERF_PLM_ALL },
};

int pmusim_x86_os_event(int pmu, int ev, pfm4_os_event_t *out)
{
    if (pmu == PFM4_PERF_RAW_PMU) {
        if (ev != 0)
            return -1;
        out->name = "r0000";
        out->desc = "raw perf_event config in hex: rNNNN (perf's syntax)";
        out->equiv = NULL;
        out->code = 0;
        out->precise = 0;
        return 0;
    }
    if (pmu != PFM4_PERF_PMU || ev < 0 || ev >= PERF_NEVENTS)
        return -1;
    const perf_ev_t *e = &perf_events[ev];
    out->name = e->name;
    out->desc = e->desc;
    out->equiv = e->equiv;
    out->code = e->id;
    out->precise = !!(e->flags & PERF_EF_PRECISE);
    return 0;
}

void pmusim_x86_os_pattrs(int pmu, int ev, x86_os_t os, pfm4_os_pattrs_t *pa)
{
    int type = PERF_TYPE_RAW;
    pa->nu = 0;
    if (pmu == PFM4_PERF_PMU) {
        type = perf_events[ev].type;
        pa->nu = um_counts[perf_events[ev].umset];
    }
    pa->nos = 0;
    if (os == X86_OS_NONE)
        return;
    for (int a = 0; a < X86_PERF_COUNT; a++) {
        /* PFM_OS_PERF_EVENT: only the privilege levels and mg/mh */
        if (os == X86_OS_PERF && a >= X86_PERF_PERIOD && a <= X86_PERF_EXCL)
            continue;
        if (os == X86_OS_PERF && a >= X86_PERF_CPU)
            continue;
        if (pmu == PFM4_PERF_PMU) {
            /* no hardware sampling; no hypervisor level and no precise
             * sampling for software events (libpfm-4 drops them) */
            if (a == X86_PERF_HW_SMPL)
                continue;
            if (type != PERF_TYPE_HARDWARE && type != PERF_TYPE_HW_CACHE &&
                (a == X86_PERF_H || a == X86_PERF_PRECISE))
                continue;
        }
        pa->osattr[pa->nos++] = (uint8_t)a;
    }
}

void pmusim_x86_os_umask(int ev, int j, const char **name, const char **desc, uint64_t *code)
{
    const perf_um_t *um = &perf_umasks[um_sets[perf_events[ev].umset][j]];
    *name = um->name;
    *desc = um->desc;
    *code = um->code;
}

/* ---- parsing ---- */


/* Event indices sorted by lower-case name (ASCII order), for bsearch();
 * pmusim_x86_os_check_order() (run by the unit tests through
 * pfm_pmu_validate()) verifies the order. */
static const uint8_t perf_by_name[] = {
    10, 74, 73, 13, 11, 15, 8, 6, 42, 32, 25, 2, 35, 33, 1, 64, 63, 68, 67, 66, 65, 30, 21, 18, 4, 71, 70, 45, 44, 49, 48, 47, 46, 52, 51, 54, 53, 57, 56, 61, 60, 59, 58, 40, 36, 38, 77, 76, 81, 80, 79, 78, 29, 9, 12, 14, 72, 62, 69, 43, 50, 55, 7, 75, 5, 0, 3, 22, 19, 16, 41, 31, 24, 34, 28, 39, 37, 26, 23, 20, 17, 27
};
_Static_assert(sizeof perf_by_name == 82, "one entry per perf event");

static int name_cmp(const char *a, const char *b)
{
    for (;; a++, b++) {
        int x = pmusim_x86_lower((unsigned char)*a), y = pmusim_x86_lower((unsigned char)*b);
        if (x != y || !x)
            return x - y;
    }
}

static int find_event(const char *name)
{
    int lo = 0, hi = PERF_NEVENTS - 1;
    while (lo <= hi) {
        int mid = (lo + hi) / 2;
        int c = name_cmp(name, perf_events[perf_by_name[mid]].name);
        if (c == 0)
            return perf_by_name[mid];
        if (c < 0)
            hi = mid - 1;
        else
            lo = mid + 1;
    }
    return -1;
}

int pmusim_x86_os_check_order(void)
{
    for (int i = 1; i < PERF_NEVENTS; i++)
        if (name_cmp(perf_events[perf_by_name[i - 1]].name, perf_events[perf_by_name[i]].name) >= 0)
            return -1;
    return 0;
}

static int add_attr(pfm4_os_desc_t *d, int id, uint64_t v)
{
    if (d->nattrs >= X86_MAX_ATTRS)
        return X86_ERR_TOOMANY;
    d->attrs[d->nattrs].id = id;
    d->attrs[d->nattrs].ival = v;
    d->nattrs++;
    return X86_OK;
}

/* "NAME[=VALUE]" attributes separated by ':' or '.'; values as the x86
 * parser reads them (boolean: one of y/t/1/n/f/0; integer: strtoull base 0). */
static int parse_attrs(char *s, pfm4_os_desc_t *d)
{
    const pfm4_os_pattrs_t *pa = &d->pa;
    while (s) {
        char *next = s;
        pmusim_x86_split(&next);
        char *v = strchr(s, '=');
        if (v)
            *v++ = '\0';
        int id = -1;
        for (int i = 0; i < pa->nu + pa->nos && id < 0; i++) {
            const char *nm;
            if (i < pa->nu) {
                if (v)
                    continue; /* "NAME=val" never names a unit mask */
                nm = perf_umasks[um_sets[perf_events[d->event].umset][i]].name;
            } else {
                nm = pmusim_x86_perf_names[pa->osattr[i - pa->nu]];
            }
            if (pmusim_x86_name_eq(nm, s))
                id = i;
        }
        if (id < 0)
            return X86_ERR_ATTR;
        uint64_t ival = 0;
        if (id >= pa->nu) {
            int is_bool = pmusim_x86_perf_is_bool((x86_perf_attr_t)pa->osattr[id - pa->nu]);
            int r = pmusim_x86_attr_value(v, is_bool, &ival);
            if (r)
                return r;
        }
        int r = add_attr(d, id, ival);
        if (r)
            return r;
        s = next;
    }
    return X86_OK;
}

/* Same duplicate walk as the x86 parser (libpfm-4's, see x86_encode.c). */
static int sanitize(pfm4_os_desc_t *d)
{
    return pmusim_x86_attrs_sanitize(d->attrs, &d->nattrs);
}

/* "rHEX": 'r', then a hex number (strtoull base 16, so "0x" may lead) that
 * fills the token; all ones (also what an overflow gives) is refused, as
 * libpfm-4 4.13 does. */
static int match_raw(const char *tok, uint64_t *code)
{
    if (tok[0] != 'r' || !isxdigit((unsigned char)tok[1]))
        return 0;
    char *end = NULL;
    unsigned long long v = strtoull(tok + 1, &end, 16);
    if (*end || v == ~0ull)
        return 0;
    *code = v;
    return 1;
}

/* Cache events: one unit mask per group, defaults READ and MISS. */
static int encode_cache(pfm4_os_desc_t *d)
{
    const uint8_t *set = um_sets[perf_events[d->event].umset];
    int chosen[2] = { -1, -1 };
    for (int k = 0; k < d->nattrs; k++) {
        int id = d->attrs[k].id;
        if (id >= d->pa.nu)
            continue;
        const perf_um_t *um = &perf_umasks[set[id]];
        if (chosen[um->grp] >= 0)
            return X86_ERR_UMASK;
        chosen[um->grp] = set[id];
    }
    if (chosen[0] < 0)
        chosen[0] = UM_READ;
    if (chosen[1] < 0)
        chosen[1] = UM_MISS;
    d->config |= perf_umasks[chosen[0]].code | perf_umasks[chosen[1]].code;
    snprintf(d->fstr, sizeof d->fstr, "%s:%s:%s", perf_events[d->event].name,
             perf_umasks[chosen[0]].name, perf_umasks[chosen[1]].name);
    return X86_OK;
}

int pmusim_x86_os_parse(int pmu, const char *str, x86_os_t os, pfm4_os_desc_t *d)
{
    d->pmu = pmu;
    d->nattrs = 0;
    d->fstr[0] = d->fstr_os[0] = '\0';
    size_t len = strlen(str);
    char *buf = malloc(len + 1);
    if (!buf)
        return X86_ERR_NOMEM;
    memcpy(buf, str, len + 1);
    char *attrs = buf;
    const char *tok = pmusim_x86_split(&attrs);
    int ret = X86_ERR_NOTFOUND;

    if (pmu == PFM4_PERF_RAW_PMU) {
        uint64_t code;
        if (!match_raw(tok, &code))
            goto out;
        d->event = 0;
        d->type = PERF_TYPE_RAW;
        d->config = code;
        pmusim_x86_os_pattrs(pmu, 0, os, &d->pa);
        ret = parse_attrs(attrs, d);
        if (ret == X86_OK)
            ret = sanitize(d);
        if (ret == X86_OK)
            snprintf(d->fstr, sizeof d->fstr, "r%llx", (unsigned long long)code);
        /* libpfm-4 leaves the event name out under perf_event: the
         * canonical string is "perf_raw::" then the attributes */
        goto out;
    }

    int ev = find_event(tok);
    if (ev < 0)
        goto out;
    if (perf_events[ev].equiv) {
        /* an alias: its target, the target's unit masks, then the user's */
        char eq[X86_FSTR_MAX];
        snprintf(eq, sizeof eq, "%s", perf_events[ev].equiv);
        char *eattrs = eq;
        pmusim_x86_split(&eattrs);
        ev = find_event(eq);
        if (ev < 0)
            goto out;
        d->event = ev;
        pmusim_x86_os_pattrs(pmu, ev, os, &d->pa);
        if (eattrs) {
            ret = parse_attrs(eattrs, d);
            if (ret == X86_OK)
                ret = sanitize(d);
            if (ret)
                goto out;
        }
    } else {
        d->event = ev;
        pmusim_x86_os_pattrs(pmu, ev, os, &d->pa);
    }
    ret = parse_attrs(attrs, d);
    if (ret == X86_OK)
        ret = sanitize(d);
    if (ret)
        goto out;
    d->type = perf_events[ev].type;
    d->config = perf_events[ev].id;
    if (d->type == PERF_TYPE_HW_CACHE)
        ret = encode_cache(d);
    else
        snprintf(d->fstr, sizeof d->fstr, "%s", perf_events[ev].name);
    if (ret == X86_OK)
        memcpy(d->fstr_os, d->fstr, sizeof d->fstr);
out:
    free(buf);
    return ret;
}
