/* The capture stream: what the pmusim QEMU plugin (pmusim_qemu.c) sends to
 * `pmusim trace capture` over a pipe.  docs/CAPTURE.md, "The capture stream",
 * is the specification; this header is shared by the writer (the plugin)
 * and the reader (capture.c), which checks every field.
 *
 * The stream is a sequence of chunks, each a 16-byte header followed by
 * `size` payload bytes, all little-endian:
 *
 *   u32 magic   CAPSTREAM_MAGIC
 *   u16 kind    CAPSTREAM_*
 *   u16 vcpu    guest thread (QEMU vCPU index) for EXEC chunks, else 0
 *   u32 size    payload bytes (<= CAPSTREAM_MAX_CHUNK)
 *   u32 seq     chunk number, from 0, +1 per chunk (detects loss)
 *
 * HELLO   payload: u32 version (CAPSTREAM_VERSION), then the guest binary's
 *         path (no NUL).  First chunk.
 * TB      one translated block, decoded once at translation:
 *           u32 tb_id (dense, from 0, in translation order)
 *           u32 ninsns (1..CAPSTREAM_MAX_TB_INSNS)
 *           u64 vaddr of the first instruction
 *           ninsns x capstream_insn_t (16 bytes each; instructions are
 *           contiguous: each starts where the previous ends)
 * EXEC    executed events of one guest thread, a sequence of u32 words:
 *           bit 0 = 0: a block starts executing, tb_id = word >> 1
 *           bit 0 = 1: a memory access of instruction (word >> 4) of the
 *             current block: bit 1 store, bits 3:2 log2(size); a u64
 *             address follows
 * MAPS    the guest's file mappings at exit, text lines
 *           "START END OFFSET PATH\n" (hex START, END, OFFSET): the files
 *           whose ELF symbol tables go into the trace.
 * END     payload: u32 reason (0 normal exit, 1 fatal signal / abort).
 *         Last chunk; a stream without it ended early (the process was
 *         killed). */
#ifndef PMUSIM_CAPSTREAM_H
#define PMUSIM_CAPSTREAM_H

#include <stdint.h>

#define CAPSTREAM_MAGIC 0x50435350u /* "PSCP" little-endian */
#define CAPSTREAM_VERSION 1u
#define CAPSTREAM_MAX_CHUNK (1u << 20)
#define CAPSTREAM_MAX_TB_INSNS 512u
#define CAPSTREAM_HEADER_SIZE 16u

enum {
    CAPSTREAM_HELLO = 1,
    CAPSTREAM_TB = 2,
    CAPSTREAM_EXEC = 3,
    CAPSTREAM_MAPS = 4,
    CAPSTREAM_END = 5,
};

/* capstream_insn_t.flags */
enum {
    CAPSTREAM_F_REP = 1u << 0,   /* a REP-prefixed string instruction: QEMU runs each
                                  * iteration as a block of its own; they are one
                                  * instruction */
    CAPSTREAM_F_UNDECODED = 1u << 1, /* Capstone could not decode it */
};

/* One instruction as decoded at translation time (16 bytes). */
typedef struct capstream_insn {
    uint8_t len;    /* bytes */
    uint8_t br;     /* pmusim_uarch_br_t */
    uint8_t fp;     /* pmusim_uarch_fp_t */
    uint8_t uops;   /* estimate, >= 1 */
    uint8_t flags;  /* CAPSTREAM_F_* */
    uint8_t pad[3];
    uint64_t target; /* direct branch target, else 0 */
} capstream_insn_t;

_Static_assert(sizeof(capstream_insn_t) == 16, "capstream_insn_t is 16 bytes on the wire");

#endif
