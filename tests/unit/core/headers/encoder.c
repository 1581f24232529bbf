/* encoder.h must compile on its own (nothing included before it). */
#include "pmusim/encoder.h"

int pmusim_header_encoder_alone(void);
int pmusim_header_encoder_alone(void)
{
    return 0;
}
