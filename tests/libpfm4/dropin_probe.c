/* A program as an existing libpfm-4 user is built: it includes no pmusim
 * header and links the system's libpfm.so.4 (-l:libpfm.so.4).  dropin.sh runs
 * it twice, as built and with LD_LIBRARY_PATH pointing at pmusim's libpfm.so.4
 * drop-in, and compares what it prints with the hand-checked expected text.
 *
 * It declares the few libpfm-4 functions and structures it uses (libpfm-4's
 * ABI, perfmon/pfmlib.h and perfmon/pfmlib_perf_event.h), and says which
 * library answered: pmusim's exports pfm_get_event_first(), libpfm-4 4.13
 * does not; the path of the loaded libpfm.so.4 comes from /proc/self/maps. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* RTLD_DEFAULT */
#endif
#include <dlfcn.h>
#include <linux/perf_event.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* libpfm-4 ABI (declared here on purpose: no pmusim header) */
#define PFM_PLM0 0x01
#define PFM_PLM3 0x08
enum { PFM_OS_NONE = 0, PFM_OS_PERF_EVENT = 1, PFM_OS_PERF_EVENT_EXT = 2 };
typedef struct {
    struct perf_event_attr *attr;
    char **fstr;
    size_t size;
    int idx;
    int cpu;
    int flags;
    int pad0;
} perf_arg_t;
int pfm_initialize(void);
void pfm_terminate(void);
int pfm_get_event_encoding(const char *str, int dfl_plm, char **fstr, int *idx, uint64_t **codes,
                           int *count);
int pfm_get_os_event_encoding(const char *str, int dfl_plm, int os, void *args);
const char *pfm_strerror(int code);

static void which_library(void)
{
    const char *lib = dlsym(RTLD_DEFAULT, "pfm_get_event_first") ? "pmusim" : "libpfm-4";
    char line[4096], path[4096] = "?";
    FILE *f = fopen("/proc/self/maps", "r");
    while (f && fgets(line, sizeof line, f)) {
        char *p = strchr(line, '/');
        if (p && strstr(p, "/libpfm.so.4")) {
            p[strcspn(p, "\n")] = '\0';
            snprintf(path, sizeof path, "%s", p);
            break;
        }
    }
    if (f)
        fclose(f);
    printf("library: %s\n", lib);
    fprintf(stderr, "dropin_probe: libpfm.so.4 loaded from %s\n", path);
}

static void encode(const char *s)
{
    char *fstr = NULL;
    uint64_t *codes = NULL;
    int count = 0, idx = -1;
    int r = pfm_get_event_encoding(s, PFM_PLM0 | PFM_PLM3, &fstr, &idx, &codes, &count);
    printf("%s\n  raw: %d", s, r);
    if (r == 0) {
        printf(" idx=%#x", idx);
        for (int i = 0; i < count; i++)
            printf(" %#llx", (unsigned long long)codes[i]);
        printf(" %s", fstr);
    } else {
        printf(" (%s)", pfm_strerror(r));
    }
    printf("\n");
    free(fstr);
    free(codes);

    struct perf_event_attr attr;
    perf_arg_t arg;
    memset(&attr, 0, sizeof attr);
    memset(&arg, 0, sizeof arg);
    attr.size = sizeof attr;
    arg.size = sizeof arg;
    arg.attr = &attr;
    fstr = NULL;
    arg.fstr = &fstr;
    r = pfm_get_os_event_encoding(s, PFM_PLM0 | PFM_PLM3, PFM_OS_PERF_EVENT, &arg);
    printf("  perf: %d", r);
    if (r == 0)
        printf(" type=%u config=%#llx config1=%#llx exclude_user=%u exclude_kernel=%u %s",
               attr.type, (unsigned long long)attr.config, (unsigned long long)attr.config1,
               (unsigned)attr.exclude_user, (unsigned)attr.exclude_kernel, fstr);
    printf("\n");
    free(fstr);
}

int main(int argc, char **argv)
{
    which_library();
    int r = pfm_initialize();
    printf("pfm_initialize: %d\n", r);
    if (r)
        return 1;
    for (int i = 1; i < argc; i++)
        encode(argv[i]);
    pfm_terminate();
    return 0;
}
