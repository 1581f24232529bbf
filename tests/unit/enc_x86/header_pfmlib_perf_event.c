/* pfmlib_perf_event.h must compile on its own */
#include <perfmon/pfmlib_perf_event.h>
int header_pfmlib_perf_event_ok(void);
int header_pfmlib_perf_event_ok(void) { return 1; }
