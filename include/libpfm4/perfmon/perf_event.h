/* perf_event_attr for the libpfm-4 face (perfmon/perf_event.h).
 *
 * On Linux the kernel's UAPI header is used (unless PMUSIM_NO_LINUX_PERF_EVENT
 * is defined), so the struct is the caller's
 * own.  Elsewhere a definition with the same layout (up to the fields this
 * library touches, PERF_ATTR_SIZE_VER5) is provided.
 */
#ifndef PMUSIM_LIBPFM4_PERF_EVENT_H
#define PMUSIM_LIBPFM4_PERF_EVENT_H

#if defined(__has_include)
#if __has_include(<linux/perf_event.h>) && !defined(PMUSIM_NO_LINUX_PERF_EVENT)
#include <linux/perf_event.h>
#define PMUSIM_HAVE_LINUX_PERF_EVENT 1
#endif
#endif

#ifndef PMUSIM_HAVE_LINUX_PERF_EVENT
#include <stdint.h>

enum perf_type_id {
    PERF_TYPE_HARDWARE = 0,
    PERF_TYPE_SOFTWARE = 1,
    PERF_TYPE_TRACEPOINT = 2,
    PERF_TYPE_HW_CACHE = 3,
    PERF_TYPE_RAW = 4,
    PERF_TYPE_BREAKPOINT = 5,
};

#define PERF_ATTR_SIZE_VER0 64

struct perf_event_attr {
    uint32_t type;
    uint32_t size;
    uint64_t config;
    union {
        uint64_t sample_period;
        uint64_t sample_freq;
    };
    uint64_t sample_type;
    uint64_t read_format;
    uint64_t disabled : 1, inherit : 1, pinned : 1, exclusive : 1, exclude_user : 1,
        exclude_kernel : 1, exclude_hv : 1, exclude_idle : 1, mmap : 1, comm : 1, freq : 1,
        inherit_stat : 1, enable_on_exec : 1, task : 1, watermark : 1, precise_ip : 2,
        mmap_data : 1, sample_id_all : 1, exclude_host : 1, exclude_guest : 1,
        exclude_callchain_kernel : 1, exclude_callchain_user : 1, mmap2 : 1,
        comm_exec : 1, use_clockid : 1, context_switch : 1, write_backward : 1,
        namespaces : 1, __reserved_1 : 35;
    union {
        uint32_t wakeup_events;
        uint32_t wakeup_watermark;
    };
    uint32_t bp_type;
    union {
        uint64_t bp_addr;
        uint64_t config1;
    };
    union {
        uint64_t bp_len;
        uint64_t config2;
    };
    uint64_t branch_sample_type;
    uint64_t sample_regs_user;
    uint32_t sample_stack_user;
    int32_t clockid;
    uint64_t sample_regs_intr;
    uint32_t aux_watermark;
    uint16_t sample_max_stack;
    uint16_t __reserved_2;
};
#endif

#endif
