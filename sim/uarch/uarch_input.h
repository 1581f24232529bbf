/* Records -> model input, inline, for the decoder that builds the model's
 * input straight from the trace bytes (traces/reader_feed.h, used by
 * `trace annotate`).  Internal: not part of the installed API. */
#ifndef PMUSIM_UARCH_INPUT_H
#define PMUSIM_UARCH_INPUT_H

#include "pmusim/uarch.h"

/* The model's input from an INSN record: pmusim_uarch_insn_from_rec() for
 * any record, and the binary decoder straight from a canonical one
 * (FORMAT.md §3: a part whose flag is clear is zero; mem.is_store 0 or 1)
 * as it commits it.  A branch kind out of range is taken as a jump.  The thread comes apart (the
 * decoder's IP-cache entry does not hold it).  acc[0] is written also for
 * an instruction without a memory part (one store sequence, no branch): the
 * caller has room for it. */
static inline void uarch_input_insn(const pmusim_rec_t *r, unsigned thread,
                                    pmusim_uarch_insn_t *in, pmusim_uarch_access_t *acc)
{
    static const uint8_t kind_to_br[PMUSIM_BR_COUNT] = {
        [PMUSIM_BR_COND] = PMUSIM_UARCH_BR_COND, [PMUSIM_BR_CALL] = PMUSIM_UARCH_BR_CALL,
        [PMUSIM_BR_RET] = PMUSIM_UARCH_BR_RET,   [PMUSIM_BR_IND] = PMUSIM_UARCH_BR_IND_JUMP,
        [PMUSIM_BR_IPREL] = PMUSIM_UARCH_BR_JUMP, [PMUSIM_BR_ICALL] = PMUSIM_UARCH_BR_IND_CALL,
    };
    const unsigned f = r->flags;
    const uint8_t fp = (f & PMUSIM_F_FP) ? PMUSIM_UARCH_FP_SCALAR : PMUSIM_UARCH_FP_NONE;
    in->ip = r->ip;
    in->thread = (uint8_t)thread;
    in->plm = r->plm;
    in->len = r->len;
    in->uops = (uint16_t)(r->uops > 0xffff ? 0xffff : r->uops);
    in->slot = r->slot;
    in->unit = r->unit;
    in->insn = r->insn;
    in->flags = (uint16_t)(f & PMUSIM_UARCH_PASS_FLAGS);
    in->fp = fp;
    in->access = acc;
    in->naccess = f & PMUSIM_F_MEM; /* PMUSIM_F_MEM is bit 0 */
    in->tmpl = NULL;
    acc->addr = r->mem.addr;
    acc->size = r->mem.size ? r->mem.size : 1;
    acc->is_store = r->mem.is_store;
    acc->is_fp = fp;
    acc->addr_dep = r->mem.is_store ? 0 : r->mem.dep;
    acc->alat = r->mem.alat;
    /* canonical: kind, taken and target are 0 without the branch flag */
    if (f & PMUSIM_F_BRANCH) {
        in->br = r->br.kind < PMUSIM_BR_COUNT ? kind_to_br[r->br.kind] : PMUSIM_UARCH_BR_JUMP;
        in->taken = r->br.kind == PMUSIM_BR_COND ? r->br.taken : 1;
    } else {
        in->br = PMUSIM_UARCH_BR_NONE;
        in->taken = 0;
    }
    in->target = r->br.target;
    in->br_dep = r->br.dep; /* 0 without the branch flag (canonical) */
    in->rdep = r->mem.rdep; /* the instruction's, also without the memory flag */
}

_Static_assert(PMUSIM_F_MEM == 1u, "uarch_input_insn() takes naccess from bit 0 of the flags");
_Static_assert(PMUSIM_UARCH_FP_SCALAR == 1u && PMUSIM_UARCH_FP_NONE == 0u,
               "uarch_input_insn() sets is_fp from fp");

#endif
