/* perf_event.h must compile on its own and lay perf_event_attr out as the
 * kernel does, with or without <linux/perf_event.h> (this file is also built
 * with PMUSIM_NO_LINUX_PERF_EVENT, see meson.build). */
#include <perfmon/perf_event.h>
#include <stddef.h>

_Static_assert(offsetof(struct perf_event_attr, config) == 8, "config at 8");
_Static_assert(offsetof(struct perf_event_attr, sample_period) == 16, "sample_period at 16");
_Static_assert(offsetof(struct perf_event_attr, config1) == 56, "config1 at 56");
_Static_assert(PERF_ATTR_SIZE_VER0 == 64, "first ABI size");
_Static_assert(PERF_TYPE_RAW == 4, "raw type");

#ifdef PMUSIM_NO_LINUX_PERF_EVENT
int header_own_perf_event_ok(void);
int header_own_perf_event_ok(void)
#else
int header_perf_event_ok(void);
int header_perf_event_ok(void)
#endif
{
    struct perf_event_attr a = { .type = PERF_TYPE_RAW };
    a.exclude_user = 1;
    return a.exclude_user == 1;
}
