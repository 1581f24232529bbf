/* sim.h must compile on its own (nothing included before it). */
#include "pmusim/sim.h"

int pmusim_header_sim_alone(void);
int pmusim_header_sim_alone(void)
{
    return 0;
}
