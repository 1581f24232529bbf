/* The list of encoder PMUs known to pmusim's own tools. */
#include "pmusim/encoder.h"

#include <string.h>

G_DEFINE_QUARK(pmusim-encoder-error-quark, pmusim_encoder_error)

static const pmusim_encoder_pmu_t *const encoders[] = {
    &pmusim_encoder_ita2, &pmusim_encoder_mont, &pmusim_encoder_wsm,
    &pmusim_encoder_wsm_dp, &pmusim_encoder_knm, NULL,
};

const pmusim_encoder_pmu_t *const *pmusim_encoder_list(void)
{
    return encoders;
}

const pmusim_encoder_pmu_t *pmusim_encoder_find(const char *name)
{
    if (!name)
        return NULL;
    for (size_t i = 0; encoders[i]; i++)
        if (g_ascii_strcasecmp(encoders[i]->name, name) == 0)
            return encoders[i];
    return NULL;
}
