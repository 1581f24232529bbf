/* pfmlib.h must compile on its own */
#include <perfmon/pfmlib.h>
int header_pfmlib_ok(void);
int header_pfmlib_ok(void) { return 1; }
