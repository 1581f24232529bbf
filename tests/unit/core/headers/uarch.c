/* uarch.h must compile on its own (nothing included before it). */
#include "pmusim/uarch.h"

int pmusim_header_uarch_alone(void);
int pmusim_header_uarch_alone(void)
{
    return 0;
}
