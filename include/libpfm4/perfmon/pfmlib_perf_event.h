/* perf_event encodings of the libpfm-4 face (perfmon/pfmlib_perf_event.h). */
#ifndef PMUSIM_LIBPFM4_PFMLIB_PERF_EVENT_H
#define PMUSIM_LIBPFM4_PFMLIB_PERF_EVENT_H

#include <perfmon/pfmlib.h>
#include <perfmon/perf_event.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Argument of pfm_get_os_event_encoding() with PFM_OS_PERF_EVENT(_EXT). */
typedef struct {
    struct perf_event_attr *attr; /* in/out: filled in place, never NULL */
    char **fstr;                  /* out: canonical string (malloc), if not NULL */
    size_t size;                  /* sizeof this struct */
    int idx;                      /* out: event index */
    int cpu;                      /* out: CPU to program, -1 if not set */
    int flags;                    /* out: perf_event_open() flags */
    int pad0;                     /* explicit padding on 64-bit */
} pfm_perf_encode_arg_t;

#if defined(__LP64__) || defined(_LP64)
#define PFM_PERF_ENCODE_ABI0 40
#else
#define PFM_PERF_ENCODE_ABI0 28
#endif

/* Older interface: PFM_OS_PERF_EVENT_EXT encoding into `output`. */
extern pfm_err_t pfm_get_perf_event_encoding(const char *str, int dfl_plm,
                                             struct perf_event_attr *output, char **fstr,
                                             int *idx);

#ifdef __cplusplus
}
#endif
#endif
