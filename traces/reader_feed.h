/* The binary decoder's second output (traces/reader.c): instead of
 * pmusim_rec_t records, the model's input (include/pmusim/uarch.h) built
 * straight from the trace bytes, for `trace annotate` (sim/cli/afeed.c).
 * The records are decoded, checked and counted exactly as
 * pmusim_trace_reader_next_batch() does (the same batches, errors and
 * positions); only what is written differs: an INSN record becomes a
 * pmusim_uarch_insn_t (pmusim_uarch_insn_from_rec()), a MEM record one more
 * access of the instruction before it, MARKER, (with pass_events) EVENT and
 * (with pass_threads) THREAD records pass-through records, and IDLE records
 * nothing.  The
 * 104-byte record is never written for an instruction: the fields come
 * from the decoder's IP-cache entry.  Internal to pmusim. */
#ifndef PMUSIM_TRACE_READER_FEED_H
#define PMUSIM_TRACE_READER_FEED_H

#include "pmusim/trace.h"
#include "pmusim/uarch.h"

/* A record for pmusim_uarch_passthrough(), due before the batch's
 * instruction `at` (after all of them when at == ninsns). */
typedef struct pmusim_feed_pass {
    pmusim_rec_t rec; /* MARKER names stay the reader's */
    size_t at;
} pmusim_feed_pass_t;

typedef struct pmusim_trace_feed {
    /* the caller's arrays, appended to: for a call of up to `max` records,
     * room for ninsns + max instructions, nacc + max + 1 accesses and
     * npass + max pass-through records */
    pmusim_uarch_insn_t *insns;
    size_t ninsns;
    pmusim_uarch_access_t *acc; /* the instructions' `access` point here */
    size_t nacc;
    pmusim_feed_pass_t *pass;
    size_t npass;
    gboolean pass_events; /* EVENT records pass through (else dropped) */
    gboolean pass_threads; /* THREAD records pass through (else dropped) */
    /* insns[ninsns - 1] takes the MEM records that follow (its accesses are
     * the last of acc); cleared by a pass-through record */
    gboolean open;
    /* Record templates (pmusim_uarch_insn_t.tmpl, pmusim_uarch_rec_template()
     * of `model`), made when the decoder's IP-cache entry changes, not per
     * record; NULL: none (tmpl NULL).  Set both before the first call.  An
     * instruction points at its entry's template; when the entry changes,
     * the old template is kept unchanged until `tmpl_lag` calls later (a
     * template replaced during call N is reused from call N + tmpl_lag on,
     * at least 1): the caller promises that the model is done with the
     * instructions of call N by then (sim/cli/afeed.c: the batches in
     * flight).  pmusim_uarch_rec_template() reads only the model's
     * configuration (the ISA), never what running the model changes, so a
     * reader thread may call it beside the model's thread. */
    const pmusim_uarch_t *model;
    unsigned tmpl_lag;
    /* the decoder's own, between the steps of one call (reader.c) */
    struct pmusim_feed_tmpls *tmpls; /* the templates' memory */
    uint64_t calls;                  /* calls so far */
    const void *tmpl_reader;         /* the reader whose cache the templates follow */
    const pmusim_uarch_insn_t *closed;
    const pmusim_rec_t *prev;
    size_t kprev;
    /* the last IDLE, THREAD or dropped EVENT record, or of a MEM record
     * what a MEM record after it reads (kind, thread, flags, plm, ip,
     * mem.addr) */
    pmusim_rec_t scratch;
} pmusim_trace_feed_t;

/* Decodes up to `max` records (> 0) into *f: the number of records
 * decoded, 0 at the end of the trace, -1 with error; the symbols read
 * precede them as with pmusim_trace_reader_next_batch().  A text-form
 * reader: -1 (use pmusim_trace_reader_next_batch()).  Do not mix with
 * pmusim_trace_reader_next_batch() on one reader. */
gssize pmusim_trace_reader_next_feed(pmusim_trace_reader_t *r, pmusim_trace_feed_t *f,
                                     size_t max, GError **error);
/* Frees the templates (the instructions' tmpl become invalid). */
void pmusim_trace_feed_clear(pmusim_trace_feed_t *f);

#endif
