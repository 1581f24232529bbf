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
 * EXEC    what one guest thread executed, a sequence of items, each starting
 *         with a u16 h:
 *           h bit 0 = 0: a block starts executing.  h bit 1 = 0: tb_id =
 *             h >> 2 (ids below CAPSTREAM_SHORT_TB_IDS); h bit 1 = 1: the
 *             item is a u32 w (h its low half), tb_id = w >> 2.
 *           h bit 0 = 1: a memory access: bit 1 store, bits 3:2 log2(size),
 *             bits 15:7 the instruction, as its distance from the
 *             instruction of the previous access in the block (from the
 *             first instruction after a block starts), bits 6:4 a code of
 *             the number of bytes that follow (0..6 that many, 7 eight):
 *             the address as a zigzag-coded difference from the previous
 *             access's address in the chunk (from 0 at the chunk's first
 *             access), little-endian, its high zero bytes left out.
 * MAPS    the guest's file mappings at exit, text lines
 *           "START END OFFSET PATH\n" (hex START, END, OFFSET): the files
 *           whose ELF symbol tables go into the trace.
 * END     payload: u32 reason (0 normal exit, 1 fatal signal / abort),
 *         u32 0, then the plugin's own figures for `trace capture
 *         --timing`: u64 nanoseconds in pipe writes (copying, and waiting
 *         while the pipe was full), u64 bytes written, u64 nanoseconds the
 *         writing thread waited for a CPU (/proc/thread-self/schedstat; 0
 *         when unknown).  A reader takes the figures only from a 32-byte
 *         payload.
 *         Last chunk; a stream without it ended early (the process was
 *         killed). */
#ifndef PMUSIM_CAPSTREAM_H
#define PMUSIM_CAPSTREAM_H

#include <stdint.h>

#define CAPSTREAM_MAGIC 0x50435350u /* "PSCP" little-endian */
#define CAPSTREAM_VERSION 2u
#define CAPSTREAM_MAX_CHUNK (1u << 20)
#define CAPSTREAM_MAX_TB_INSNS 512u
#define CAPSTREAM_HEADER_SIZE 16u
#define CAPSTREAM_SHORT_TB_IDS (1u << 14) /* block ids in a 2-byte EXEC item */
#define CAPSTREAM_MAX_ACCESS_ITEM 10u     /* bytes of the longest access item */

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
