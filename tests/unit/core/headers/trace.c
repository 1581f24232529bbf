/* trace.h must compile on its own (nothing included before it). */
#include "pmusim/trace.h"

int pmusim_header_trace_alone(void);
int pmusim_header_trace_alone(void)
{
    return 0;
}
