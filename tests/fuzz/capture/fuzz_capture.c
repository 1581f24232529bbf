/* Fuzz target for the capture stream reader (pmusim/capture.h): any bytes,
 * split at an arbitrary point, must give instructions for the model or a
 * clean GError, never a crash, hang or unbounded allocation; the model's
 * records must be in the format's order (check_order()). */
#include "pmusim/capture.h"
#include "pmusim/uarch.h"

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define FUZZ_VBUF_STRIDE (64u + 256u * 1024u) /* one shared buffer (capstream.h) */

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* What the model hands out must be a valid record sequence for the trace
 * writer's trusted path, which checks nothing (traces/FORMAT.md §4.3):
 * cycles never go back, and a MEM record comes directly after an INSN or MEM
 * record of its thread and cycle.  A breach aborts (a finding). */
typedef struct order {
    gboolean any;
    uint64_t cycle;
    uint8_t kind, thread;
} order_t;

static gboolean check_order(const pmusim_rec_t *recs, size_t n, void *user, GError **error)
{
    (void)error;
    order_t *o = user;
    for (size_t i = 0; i < n; i++) {
        const pmusim_rec_t *r = &recs[i];
        if (o->any && r->cycle < o->cycle)
            abort();
        if (r->kind == PMUSIM_REC_MEM &&
            (!o->any || (o->kind != PMUSIM_REC_INSN && o->kind != PMUSIM_REC_MEM) ||
             o->thread != r->thread || o->cycle != r->cycle))
            abort();
        o->any = TRUE;
        o->cycle = r->cycle;
        o->kind = r->kind;
        o->thread = r->thread;
    }
    return TRUE;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    GError *error = NULL;
    /* small caches: Westmere's full geometry made creating the model
     * (clearing about 1.5 MB of cache state) 84 % of every execution, and
     * the target is about the stream reader; misses and evictions come
     * sooner with small caches, so the model's paths are reached more */
    static pmusim_uarch_options_t o;
    static gboolean o_ready;
    if (!o_ready) {
        static const char *const geom[] = {"--I1=4096,4,64", "--D1=4096,4,64", "--L2=16384,4,64",
                                           "--LL=65536,8,64"};
        pmusim_uarch_options_init(&o);
        for (size_t i = 0; i < G_N_ELEMENTS(geom); i++) {
            gboolean consumed = FALSE;
            if (!pmusim_uarch_options_parse(&o, geom[i], &consumed, NULL) || !consumed)
                abort();
        }
        o_ready = TRUE;
    }
    order_t ord = {0};
    pmusim_uarch_t *u = pmusim_uarch_new(PMUSIM_CPU_WSM, 2, &o, check_order, &ord, &error);
    if (!u) {
        g_clear_error(&error);
        return 0;
    }
    pmusim_capture_t *c = pmusim_capture_new(u, 2, "fuzz");
    pmusim_capture_set_children_out(c, "fuzz.pmt"); /* a traced FORK's MARKER */
    /* two feeds: the reader must not depend on where reads split the pipe */
    size_t cut = size ? data[0] % (size + 1) : 0;
    gboolean ok = pmusim_capture_feed(c, data, cut, &error) &&
                  pmusim_capture_feed(c, data + cut, size - cut, &error);
    /* a stream without its END chunk: recovery from two shared buffers
     * (capstream.h: u64 len, u64 pending at 8, items from 64) whose header
     * fields are the input's last 32 bytes and whose items are the input */
    if (ok && !pmusim_capture_saw_end(c) && size >= 32) {
        static uint8_t region[2 * FUZZ_VBUF_STRIDE];
        for (size_t k = 0; k < 2; k++) {
            uint8_t *b = region + k * FUZZ_VBUF_STRIDE;
            memset(b, 0, 64);
            memcpy(b, data + size - 32 + 16 * k, 16);
            memcpy(b + 64, data, MIN(size, FUZZ_VBUF_STRIDE - 64));
        }
        ok = pmusim_capture_recover(c, region, sizeof region, NULL, &error);
    }
    ok = ok && pmusim_capture_finish(c, &error) && pmusim_uarch_finish(u, &error);
    (void)ok;
    g_clear_error(&error);
    pmusim_capture_free(c);
    pmusim_uarch_free(u);
    return 0;
}
