/* Fuzz target for the capture stream reader (pmusim/capture.h): any bytes,
 * split at an arbitrary point, must give instructions for the model or a
 * clean GError, never a crash, hang or unbounded allocation. */
#include "pmusim/capture.h"
#include "pmusim/uarch.h"

#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static gboolean discard(const pmusim_rec_t *recs, size_t n, void *user, GError **error)
{
    (void)recs, (void)n, (void)user, (void)error;
    return TRUE;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    GError *error = NULL;
    pmusim_uarch_t *u = pmusim_uarch_new(PMUSIM_CPU_WSM, 2, NULL, discard, NULL, &error);
    if (!u) {
        g_clear_error(&error);
        return 0;
    }
    pmusim_capture_t *c = pmusim_capture_new(u, 2, "fuzz");
    /* two feeds: the reader must not depend on where reads split the pipe */
    size_t cut = size ? data[0] % (size + 1) : 0;
    gboolean ok = pmusim_capture_feed(c, data, cut, &error) &&
                  pmusim_capture_feed(c, data + cut, size - cut, &error) &&
                  pmusim_capture_finish(c, &error) && pmusim_uarch_finish(u, &error);
    (void)ok;
    g_clear_error(&error);
    pmusim_capture_free(c);
    pmusim_uarch_free(u);
    return 0;
}
