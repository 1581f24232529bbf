/* Whether two decoded trace records are the same record: every field of
 * pmusim_rec_t (not the padding between them), a MARKER's name by its text.
 * Shared by the trace, uarch and fuzz tests that compare records. */
#ifndef PMUSIM_TEST_REC_EQUAL_H
#define PMUSIM_TEST_REC_EQUAL_H

#include <string.h>
#include "pmusim/trace.h"

static inline gboolean pmusim_test_rec_equal(const pmusim_rec_t *a, const pmusim_rec_t *b)
{
    if ((a->name == NULL) != (b->name == NULL) || (a->name && strcmp(a->name, b->name) != 0))
        return FALSE;
    return a->cycle == b->cycle && a->kind == b->kind && a->thread == b->thread &&
           a->flags == b->flags && a->plm == b->plm && a->slot == b->slot && a->unit == b->unit &&
           a->len == b->len && a->ip == b->ip && a->insn == b->insn && a->n == b->n &&
           a->ev_code == b->ev_code && a->ev_umask == b->ev_umask && a->uops == b->uops &&
           a->mem.addr == b->mem.addr && a->mem.latency == b->mem.latency &&
           a->mem.size == b->mem.size && a->mem.is_store == b->mem.is_store &&
           a->mem.level == b->mem.level && a->mem.tlb == b->mem.tlb &&
           a->mem.alat == b->mem.alat && a->br.target == b->br.target &&
           a->br.kind == b->br.kind && a->br.taken == b->br.taken &&
           a->br.dir_ok == b->br.dir_ok && a->br.tgt_ok == b->br.tgt_ok &&
           a->br.detect == b->br.detect && a->oc.latency == b->oc.latency &&
           a->oc.req == b->oc.req && a->oc.supplier == b->oc.supplier &&
           a->oc.snoop == b->oc.snoop;
}

/* Adds a record to a checksum: the fields pmusim_test_rec_equal() compares,
 * each as a little-endian 64-bit value in that order, a MARKER's name as
 * its text with its terminating NUL (none: one 0xff byte).  Equal records
 * add equal bytes, so a file's decoded records can be pinned by one digest. */
static inline void pmusim_test_rec_hash(GChecksum *ck, const pmusim_rec_t *r)
{
    const uint64_t v[] = {
        r->cycle, r->kind, r->thread, r->flags, r->plm, r->slot, r->unit, r->len, r->ip,
        r->insn, r->n, r->ev_code, r->ev_umask, r->uops, r->mem.addr, r->mem.latency,
        r->mem.size, r->mem.is_store, r->mem.level, r->mem.tlb, r->mem.alat, r->br.target,
        r->br.kind, r->br.taken, r->br.dir_ok, r->br.tgt_ok, r->br.detect, r->oc.latency,
        r->oc.req, r->oc.supplier, r->oc.snoop,
    };
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
        guchar b[8];
        for (int k = 0; k < 8; k++)
            b[k] = (guchar)(v[i] >> (8 * k));
        g_checksum_update(ck, b, sizeof b);
    }
    if (r->name)
        g_checksum_update(ck, (const guchar *)r->name, (gssize)strlen(r->name) + 1);
    else
        g_checksum_update(ck, (const guchar *)"\xff", 1);
}

#endif
