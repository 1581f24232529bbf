/* The input side of `trace annotate` (docs/PERFORMANCE.md, "Capture and
 * annotate"): reads the trace and turns its records into the model's input
 * (pmusim_uarch_insn_t with its accesses, and the records that pass through
 * the model), one batch per reader call, on a thread of its own so that
 * decoding runs beside the model.  The batches hold exactly what the
 * sequential loop would have fed the model between two reader calls, in the
 * same order, with the symbols the reader had seen after the call: the
 * model sees the same calls in the same order and the output is the same
 * bytes.  A fixed number of batches are in flight: memory stays flat.
 *
 * A binary trace is decoded straight into the model's input
 * (pmusim_trace_reader_next_feed(), traces/reader_feed.h), a text one
 * through records (pmusim_uarch_insn_from_rec()).
 *
 * With PMUSIM_READER_THREAD=0 in the environment, or on a machine with one
 * processor, no thread is started: each pmusim_afeed_next() reads and
 * converts one batch on the caller's thread. */
#ifndef PMUSIM_CLI_AFEED_H
#define PMUSIM_CLI_AFEED_H

#include "pmusim/trace.h"
#include "pmusim/uarch.h"
#include "../../traces/reader_feed.h"

/* A record for pmusim_uarch_passthrough(), due before the batch's
 * instruction `at` (after all of them when at == ninsns); the binary
 * decoder writes them in place (traces/reader_feed.h). */
typedef pmusim_feed_pass_t pmusim_afeed_pass_t;

typedef struct pmusim_afeed_batch {
    pmusim_uarch_insn_t *insns; /* `access` points into acc */
    size_t ninsns, cap_insns;
    pmusim_uarch_access_t *acc;
    size_t nacc, cap_acc;
    pmusim_afeed_pass_t *pass; /* in order */
    size_t npass, cap_pass;
    pmusim_symbol_t *syms; /* symbols new after this batch's read: add them first */
    size_t nsyms, cap_syms;
    gboolean end;          /* the last batch (end of trace, or err) */
    GError *err;           /* the reader failed: no instructions, no symbols */
} pmusim_afeed_batch_t;

typedef struct pmusim_afeed pmusim_afeed_t;

/* `pass_events`: EVENT records pass through (else they are dropped);
 * `pass_threads`: THREAD records likewise.
 * `model`: the instructions of a binary trace carry record templates for
 * it (pmusim_uarch_insn_t.tmpl), made on the reader thread (NULL: none),
 * valid as long as their batch. */
pmusim_afeed_t *pmusim_afeed_new(pmusim_trace_reader_t *r, gboolean pass_events,
                                 gboolean pass_threads, const pmusim_uarch_t *model);
/* The next batch, in order; valid until the next call or free.  After a
 * batch with `end` set there is none. */
pmusim_afeed_batch_t *pmusim_afeed_next(pmusim_afeed_t *f);
/* Stops the thread (it may have read ahead); the reader is not freed. */
void pmusim_afeed_free(pmusim_afeed_t *f);

#endif
