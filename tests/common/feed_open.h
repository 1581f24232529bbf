/* The feed's last instruction of a call can wait for MEM records of the
 * next one (pmusim_trace_feed_t.open): the caller keeps it aside and hands
 * it back at the start of the next call.  Shared by the feed tests and
 * fuzz-feed (tests/common/feed_runs.h, tests/unit/trace/test_feed_tmpl.c). */
#ifndef PMUSIM_TEST_FEED_OPEN_H
#define PMUSIM_TEST_FEED_OPEN_H

#include "pmusim/uarch.h"
#include "../../traces/reader_feed.h"

#include <string.h>

typedef struct feed_aside {
    gboolean open;
    pmusim_uarch_insn_t insn;
    pmusim_uarch_access_t acc[PMUSIM_UARCH_MAX_ACCESSES];
} feed_aside_t;

/* Before a call: an empty feed, with the instruction kept aside first. */
static inline void feed_aside_begin(pmusim_trace_feed_t *f, const feed_aside_t *a)
{
    f->ninsns = f->nacc = f->npass = 0;
    f->open = a->open;
    if (a->open) {
        f->insns[0] = a->insn;
        f->insns[0].access = f->acc;
        f->nacc = a->insn.naccess & PMUSIM_UARCH_ACC_COUNT; /* without part flags */
        memcpy(f->acc, a->acc, f->nacc * sizeof *a->acc);
        f->ninsns = 1;
    }
}

/* After a call that returned n: how many of its last instructions wait (0
 * or 1); the waiting one is kept aside. */
static inline size_t feed_aside_end(const pmusim_trace_feed_t *f, gssize n, feed_aside_t *a)
{
    const size_t keep = n > 0 && f->open ? 1 : 0;
    a->open = keep != 0;
    if (a->open) {
        a->insn = f->insns[f->ninsns - 1];
        memcpy(a->acc, a->insn.access,
               (a->insn.naccess & PMUSIM_UARCH_ACC_COUNT) * sizeof *a->acc);
    }
    return keep;
}

#endif
