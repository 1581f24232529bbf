/* A trace writer on a thread of its own (docs/PERFORMANCE.md, "Capture and
 * annotate"): `trace capture` and `trace annotate` run the model on the
 * main thread and hand its record batches to a second thread, which runs
 * pmusim_trace_writer_write_trusted() on them (the model's records need no
 * checks) in the same order and the same
 * batches, so the output is byte for byte what a direct writer makes.  A
 * fixed number of batches are in flight: memory stays flat.
 *
 * With PMUSIM_WRITER_THREAD=0 in the environment, or on a machine with one
 * processor, no thread is started and every call writes directly. */
#ifndef PMUSIM_CLI_WQUEUE_H
#define PMUSIM_CLI_WQUEUE_H

#include "pmusim/trace.h"

typedef struct pmusim_wqueue pmusim_wqueue_t;

pmusim_wqueue_t *pmusim_wqueue_new(pmusim_trace_writer_t *w);
/* Queues a copy of recs[0, n) (the string of a MARKER record must live
 * until pmusim_wqueue_sync()).  FALSE once the writer has failed: *error is
 * a copy of the writer's error, once; later calls say the writer failed. */
gboolean pmusim_wqueue_write(pmusim_wqueue_t *q, const pmusim_rec_t *recs, size_t n,
                             GError **error);
/* The buffer the next write() will queue, for a producer that builds its
 * batch in place (pmusim_uarch_set_buffer()): n records; passing it to
 * write() queues it without a copy.  May wait for a free slot.  The
 * buffer stays valid until that write(), or the next call. */
pmusim_rec_t *pmusim_wqueue_buffer(pmusim_wqueue_t *q, size_t n);
/* Waits until every queued batch is written; FALSE as for write().  After
 * it the writer may be used directly until the next write(). */
gboolean pmusim_wqueue_sync(pmusim_wqueue_t *q, GError **error);
/* Stops the thread (after the queued batches); the writer is not closed. */
void pmusim_wqueue_free(pmusim_wqueue_t *q);

#endif
