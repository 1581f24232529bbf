/* tracegen.h must compile on its own (nothing included before it). */
#include "pmusim/tracegen.h"

int pmusim_header_tracegen_alone(void);
int pmusim_header_tracegen_alone(void)
{
    return 0;
}
