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
 *   u16 vcpu    guest thread (QEMU vCPU index) for EXEC, FORK, EXECVE, REAPED and
 *               THREAD chunks, else 0
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
 *           ninsns x capstream_regs_t (8 bytes each, since session 20: the
 *           registers each reads, writes and addresses memory with; a
 *           reader takes a chunk without them, from an older plugin, as
 *           one whose instructions touch no register)
 *           ninsns x u16 CAPSTREAM_FL_* (since session 21: the flags each
 *           reads and writes; a reader takes a chunk without them as one
 *           whose instructions touch no flag)
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
 * MAPS    the guest's file mappings, text lines "START END OFFSET PATH\n"
 *         (hex START, END, OFFSET): the files whose ELF symbol tables go
 *         into the trace.  Sent at exit, and before that whenever a newly
 *         translated block lies outside every mapping of the last MAPS (a
 *         library was loaded), so that a program that dies keeps its
 *         symbols; the reader keeps the latest.
 * END     payload: u32 reason (0 normal exit, 1 fatal signal / abort),
 *         u32 0, then the plugin's own figures for `trace capture
 *         --timing`: u64 nanoseconds in pipe writes (copying, and waiting
 *         while the pipe was full), u64 bytes written, u64 nanoseconds the
 *         writing thread waited for a CPU (/proc/thread-self/schedstat; 0
 *         when unknown).  A reader takes the figures only from a 32-byte
 *         payload.
 *         Last chunk; a stream without it ended early (the process was
 *         killed).
 * FORK    (version 3) the guest thread `vcpu` forked a process: payload u32
 *         the child's process id (as the host sees it; QEMU user mode runs
 *         fork, vfork and clone without CLONE_VM as a host fork()), u32 0
 *         when the child is not traced, 1 when it is, in a stream of its
 *         own (kids=PATH, below).  Sent when the fork returns in the parent,
 *         after an EXEC chunk of that thread with everything it executed
 *         before (the fork system call's block the last), so that the
 *         reader places it where the thread was.  An untraced child sends
 *         nothing: the plugin detaches from the stream and the shared
 *         buffers in it (docs/CAPTURE.md, "A program that forks").
 * EXECVE  (version 3) the guest thread `vcpu` calls execve or execveat:
 *         payload u32 what, u32 arg, then (what 1 and 3 only) up to
 *         CAPSTREAM_EXECVE_MAX_TEXT bytes of text without NUL:
 *           {1, 0}: sent at the call after an EXEC chunk of that thread with
 *             everything it executed before.  A call that works replaces
 *             QEMU by the new program, which the host runs natively: the
 *             stream ends after it without END, and pmusim says the
 *             program called execve rather than that it died.  With
 *             kids=PATH the text says why the new image is not traced
 *             (it is the kernel's to run: a missing file, a script the
 *             plugin does not follow, an ELF of another machine ...);
 *             without kids=PATH there is no text (8 bytes, as before).
 *           {2, 0}: the call returned (it failed); exactly 8 bytes.
 *           {3, N} (kids=PATH only): the new image runs under QEMU with
 *             the plugin and is traced in a stream of its own, image N
 *             (1, 2, ...) of this process; the text is the program it
 *             runs (the x86-64 ELF the kernel would run, after any #!
 *             scripts).  Sent after the thread's EXEC chunk and a MAPS
 *             chunk, just before the plugin replaces QEMU (the host's
 *             execve of /proc/self/exe): the stream then ends without END.
 *             If that execve fails, an EXECVE {1, 0, why} follows and the
 *             call is QEMU's to make natively, as without kids=PATH; no
 *             other chunk may follow {3, N} but {4, N} below.
 *           {4, N} (right after {3, N}, at most once): the new image's
 *             environment differs from the guest's envp (what QEMU cannot
 *             carry: qemu_env.h); the text says how, for pmusim's MARKER.
 * REAPED  (kids=PATH only) the guest thread `vcpu` reaped, with wait4 or
 *         waitid (not WNOWAIT), a child that a signal killed: payload u32
 *         the child's pid, u32 the signal (1..64); sent when the call
 *         returns, after an EXEC chunk of that thread.  QEMU reaps its
 *         children for the guest, so this is where pmusim learns the
 *         signal (the child's own stream just ends).
 * THREAD  (since session 16; version 3 streams without it read as before)
 *         payload u32 what, then:
 *           {1} (4 bytes) vCPU `vcpu` was created for a new guest thread
 *             (QEMU makes it inside the creator's clone call: sent after an
 *             EXEC chunk of the creator with everything it executed up to
 *             the clone); {1, u64 address} (12 bytes, since session 17)
 *             the same, the clone's clear-child-tid address given: at the
 *             thread's exit its futex waiters are woken (a pthread_join);
 *           {2} (4 bytes) the thread of vCPU `vcpu` exits (after its last
 *             EXEC chunk);
 *           {3, u64 address} (12 bytes) it enters a system call that waits
 *             (the plugin's waiting_call(): futex waits, poll, select,
 *             epoll_wait, nanosleep, wait4 ...; after its EXEC chunk up to
 *             the call); the address is the futex word's, else 0;
 *           {4, u32 how} (8 bytes) that call returned; how 1: a futex wait
 *             that did not wait (EAGAIN), else 0;
 *           {5, u64 address, u32 n} (16 bytes) it wakes up to n waiters of
 *             the futex word at address (sent before the wake, after its
 *             EXEC chunk up to the call).
 *         QEMU may give the number of an exited thread to a later one,
 *         which {1} announces again.  With several hardware threads pmusim
 *         waits for the chunks of a thread created or back from its call,
 *         not for one that exited or waits in a call, and halts a waiting
 *         one's hardware thread (docs/CAPTURE.md, "Threads in the model's
 *         time order").
 *
 * A traced child's stream (plugin argument kids=PATH, `trace capture
 * --trace-children`) goes through a Unix stream socket connected to
 * pmusim's PATH by the parent just before the fork (the child inherits
 * it).  The child first sends a 16-byte preamble, u32 CAPSTREAM_CHILD_MAGIC,
 * u32 its pid, u32 its parent's pid, u32 1 when an SCM_RIGHTS message on
 * the preamble carries its own shared-buffer file (below) else 0; then a
 * whole stream of its own, chunk numbers from 0: HELLO, a TB chunk for
 * every block translated before the fork (the ids the parent gave them),
 * MAPS, and what it runs from then on, ending as the parent's does (END,
 * EXECVE, or nothing at a death).  A connection that closes before the
 * preamble is a fork that failed.
 *
 * An exec'd image (EXECVE {3, N} above) connects to the same socket when
 * its plugin starts (plugin arguments kids=PATH,exec=N[,top=1]) and sends
 * the preamble u32 CAPSTREAM_EXEC_MAGIC, u32 its pid (the process's: an
 * execve keeps it), u32 N, u32 flags: bit 0 a shared-buffer file is
 * attached (as for a child), bit 1 the process is the captured program
 * (its first image's trace is pmusim's OUT, else OUT.PID), bits 31:8 the
 * length L (<= CAPSTREAM_EXEC_MAX_CMDLINE) of the guest's command line
 * (the program and its arguments, blank-separated, for the trace's
 * header), whose L bytes follow; then its own stream from chunk 0, as a
 * program's (HELLO first, its blocks translated from scratch).
 *
 * The execution buffers (capstream_vbuf_t) live in a memory region that
 * pmusim creates and passes to QEMU (plugin argument shm=N), one per vCPU,
 * so that what the plugin appended but had not sent is still there when
 * QEMU dies without an END chunk (docs/CAPTURE.md, "Ended early").  A
 * flush writes, in this order: `pending` = 1 + the chunk number of the
 * EXEC chunk it sends, the chunk, `len` = 0, `pending` = 0.  After the
 * death the reader so knows for each buffer whether its bytes went through
 * the pipe (pending set and that chunk read whole), are the chunk the
 * death cut (pending = 1 + the next chunk number: its bytes come from the
 * buffer), or were never sent (pending 0).  `pending` holds the chunk's
 * number in 64 bits, counted from the stream's start (the header's `seq` is
 * its low 32 bits): version 2 kept 1 + a 32-bit number, which is 0 ("none")
 * for chunk 2^32 - 1 and compares wrongly across the wrap; 2^32 chunks are
 * at least 64 GiB of stream, which a long capture with small chunks (a
 * thread's exit or a fork each sends one) can reach, 2^64 chunks cannot. */
#ifndef PMUSIM_CAPSTREAM_H
#define PMUSIM_CAPSTREAM_H

#include <stdint.h>

#define CAPSTREAM_MAGIC 0x50435350u /* "PSCP" little-endian */
#define CAPSTREAM_CHILD_MAGIC 0x4b435350u /* "PSCK": a traced child's preamble */
#define CAPSTREAM_EXEC_MAGIC 0x58435350u  /* "PSCX": an exec'd image's preamble */
#define CAPSTREAM_EXECVE_MAX_TEXT 4096u   /* bytes of an EXECVE chunk's text */
#define CAPSTREAM_EXEC_MAX_CMDLINE 65535u /* bytes of an exec'd image's command line */
#define CAPSTREAM_VERSION 3u
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
    CAPSTREAM_FORK = 6,
    CAPSTREAM_EXECVE = 7, /* {1, 0[, why]}: the thread calls execve; {2, 0}: the call
                           * failed; {3, N, program}: traced on in image N's stream */
    CAPSTREAM_REAPED = 8, /* {pid, signal}: the thread's wait reaped a child a signal killed */
    CAPSTREAM_THREAD = 9, /* {1}: the chunk's vCPU was created; {2}: its thread exits;
                           * {3, address}: it waits in a system call; {4, how}: the call
                           * returned; {5, address, n}: it wakes n futex waiters (above).
                           * Since session 16; a stream without them reads as before */
};

/* capstream_insn_t.flags */
enum {
    CAPSTREAM_F_REP = 1u << 0,   /* a REP-prefixed string instruction: QEMU runs each
                                  * iteration as a block of its own; they are one
                                  * instruction */
    CAPSTREAM_F_UNDECODED = 1u << 1, /* Capstone could not decode it */
    CAPSTREAM_F_LOCK = 1u << 2,  /* a locked instruction: a LOCK prefix, or XCHG with a
                                  * memory operand (since session 18; 0 from an older
                                  * plugin) */
};

/* One instruction as decoded at translation time (16 bytes). */
typedef struct capstream_insn {
    uint8_t len;    /* bytes */
    uint8_t br;     /* pmusim_uarch_br_t */
    uint8_t fp;     /* pmusim_uarch_fp_t */
    uint8_t uops;   /* estimate, >= 1 */
    uint8_t flags;  /* CAPSTREAM_F_* */
    uint8_t mem_width; /* bytes of a memory operand wider than 8 (SSE 16, AVX 32, x87
                        * 10), else 0: QEMU 7.2 makes such an access in 8-byte (and
                        * smaller) pieces, which the reader joins again */
    uint8_t fpclass; /* pmusim_fp_class_t (docs/CAPTURE.md "Decoding"); 0 from a
                      * plugin older than the class, as the pad byte it was */
    uint8_t opkind;  /* pmusim_op_kind_t (docs/CAPTURE.md "Decoding"); 0 from a
                      * plugin older than the kind, as the pad byte it was */
    uint64_t target; /* direct branch target, else 0 */
} capstream_insn_t;

_Static_assert(sizeof(capstream_insn_t) == 16, "capstream_insn_t is 16 bytes on the wire");

/* The general-purpose registers an instruction uses (since session 20),
 * as masks of bit r for the 64-bit register r in the encoding's order:
 * 0 rax, 1 rcx, 2 rdx, 3 rbx, 4 rsp, 5 rbp, 6 rsi, 7 rdi, 8-15 r8-r15;
 * a sub-register (eax, ax, al, ah) is its 64-bit register.  For the
 * reader's tracking of which load a register's value came from
 * (docs/CAPTURE.md, "Dependences of load addresses"). */
typedef struct capstream_regs {
    uint16_t src;  /* registers the written ones are computed from: read
                    * operands, implicit reads, lea's address registers, a
                    * register written in part (8 or 16 bits: the rest is
                    * kept); not those that only address memory; none for a
                    * zeroing idiom (xor/sub of a register with itself) */
    uint16_t dst;  /* registers written */
    uint16_t ld;   /* those of dst written with the data of the instruction's
                    * load (mov rax,[..]; add rax,[..]; pop rbx; leave's rbp;
                    * lods's rax) */
    uint16_t addr; /* registers of its memory accesses' addresses: base and
                    * index of its memory operands, rsp of a stack access
                    * (push, pop, call, ret), rbp of leave */
} capstream_regs_t;

_Static_assert(sizeof(capstream_regs_t) == 8, "capstream_regs_t is 8 bytes on the wire");

/* The arithmetic flags an instruction reads and writes (since session 21),
 * in two groups as Intel's cores rename them: CF, and the other five (OF,
 * SF, ZF, AF, PF), so that inc and dec, which keep CF, leave its
 * dependence alone.  Each group is one more register of the reader's
 * tracking (docs/CAPTURE.md, "Dependences of branches"): the masks below
 * are capstream_regs_t's src, dst and ld for the two groups, in two bits
 * each (bit 0 CF, bit 1 the others). */
enum {
    CAPSTREAM_FL_SRC_SHIFT = 0, /* groups read: a condition (jcc, setcc, cmovcc), adc's CF ... */
    CAPSTREAM_FL_DST_SHIFT = 2, /* groups written (one flag of a group written: the group) */
    CAPSTREAM_FL_LD_SHIFT = 4,  /* those written from the instruction's loaded data (cmp
                                 * rax,[..]; add [..],1; popf) */
    CAPSTREAM_FL_CF = 1u,       /* the group bits at each shift */
    CAPSTREAM_FL_OSZAP = 2u,
};

/* Bytes of a TB chunk of n instructions. */
#define CAPSTREAM_TB_SIZE(n) \
    (16u + (n) * (uint32_t)(sizeof(capstream_insn_t) + sizeof(capstream_regs_t) + 2u))
/* ... from a plugin of session 20 (no flags) */
#define CAPSTREAM_TB_SIZE_S20(n) \
    (16u + (n) * (uint32_t)(sizeof(capstream_insn_t) + sizeof(capstream_regs_t)))
/* ... from a plugin before session 20 (no capstream_regs_t) */
#define CAPSTREAM_TB_SIZE_OLD(n) (16u + (n) * (uint32_t)sizeof(capstream_insn_t))

/* The shared execution buffers: CAPSTREAM_SHM_VCPUS of these, one after
 * the other, buffer k for vCPU k (CAPSTREAM_SHM_SIZE bytes in all; pages a
 * vCPU never touches are never allocated).  `len` counts only complete
 * items: the plugin stores an item's bytes before the length that covers
 * them. */
#define CAPSTREAM_VBUF_SIZE (256u * 1024u)
#define CAPSTREAM_SHM_VCPUS 1024u

typedef struct capstream_vbuf {
    uint64_t len;       /* bytes of items in data[] (not yet known to be sent) */
    uint64_t pending;   /* 1 + the chunk number (64 bits) of the EXEC chunk
                         * being sent from data[], 0 when none */
    uint64_t prev_addr; /* the plugin's own state: the delta base (0 at a
                         * chunk's start), */
    uint32_t cur_idx;   /* the instruction of the last access in the
                         * current block, */
    uint32_t cur_tb;    /* the current block */
    uint32_t pad[8];
    uint8_t data[CAPSTREAM_VBUF_SIZE];
} capstream_vbuf_t;

_Static_assert(sizeof(capstream_vbuf_t) == 64 + CAPSTREAM_VBUF_SIZE,
               "capstream_vbuf_t: a 64-byte header and the items");
#define CAPSTREAM_SHM_SIZE ((uint64_t)CAPSTREAM_SHM_VCPUS * sizeof(capstream_vbuf_t))

#endif
