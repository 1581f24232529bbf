/* regs.h must compile on its own (nothing included before it). */
#include "pmusim/regs.h"

int pmusim_header_regs_alone(void);
int pmusim_header_regs_alone(void)
{
    return 0;
}
