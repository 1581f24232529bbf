/* frontdoor.h must compile on its own (nothing included before it). */
#include "pmusim/frontdoor.h"

int pmusim_header_frontdoor_alone(void);
int pmusim_header_frontdoor_alone(void)
{
    return 0;
}
