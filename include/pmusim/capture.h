/* Reading the capture stream of the pmusim QEMU plugin (docs/CAPTURE.md):
 * turns what a real x86-64 program executed into instructions for the
 * microarchitecture model (pmusim/uarch.h), and the program's ELF symbol
 * tables into trace symbols.
 *
 *   pmusim_capture_t *c = pmusim_capture_new(u, nthreads, "capture", &error);
 *   pmusim_capture_feed(c, bytes, n, &error);      (any split of the stream)
 *   pmusim_capture_recover(c, shm, size, NULL, &error); (no END chunk: QEMU died)
 *   pmusim_capture_finish(c, &error);              (the last instructions)
 *   pmusim_capture_add_symbols(c, writer, &error); (after finish)
 *   pmusim_capture_free(c);
 *
 * Every chunk and word is checked: a bad stream is an error naming the byte
 * offset and what was expected, never a crash (tests/fuzz/capture). */
#ifndef PMUSIM_CAPTURE_H
#define PMUSIM_CAPTURE_H

#include <stddef.h>
#include <stdint.h>
#include <glib.h>
#include "pmusim/trace.h"
#include "pmusim/uarch.h"

G_BEGIN_DECLS

#define PMUSIM_CAPTURE_ERROR (pmusim_capture_error_quark())
GQuark pmusim_capture_error_quark(void);
typedef enum {
    PMUSIM_CAPTURE_ERROR_STREAM, /* malformed capture stream */
    PMUSIM_CAPTURE_ERROR_LIMIT,  /* beyond a documented bound */
} pmusim_capture_error_t;

/* Bound on translated blocks kept (their decoded instructions). */
#define PMUSIM_CAPTURE_MAX_TBS (1u << 24)

typedef struct pmusim_capture pmusim_capture_t;

/* Guest thread k becomes hardware thread k % nthreads of `u`.  `name`
 * appears in messages. */
pmusim_capture_t *pmusim_capture_new(pmusim_uarch_t *u, uint32_t nthreads, const char *name);
gboolean pmusim_capture_feed(pmusim_capture_t *c, const void *data, size_t len, GError **error);
/* For a stream that ended without its END chunk (QEMU died: a fatal
 * signal, SIGKILL): runs what the plugin's shared execution buffers hold
 * and the stream does not (docs/CAPTURE.md, "Ended early").  `shm` is the
 * region the plugin was given (shm=N), `size` its bytes; it holds
 * size / (64 + 256 KiB) buffers, one per vCPU.  A chunk the death cut is
 * completed from its buffer (any other cut chunk is dropped), then each
 * buffer's unsent items run as one more EXEC chunk, in vCPU order.
 * *recovered (if not NULL) = the item bytes taken from the buffers.
 * `shm` NULL: only drops a cut chunk.  Nothing to do after an END chunk.
 * FALSE with an error naming the buffer when a header is impossible (the
 * region is damaged) or the items are malformed. */
gboolean pmusim_capture_recover(pmusim_capture_t *c, const void *shm, size_t size,
                                uint64_t *recovered, GError **error);
/* Runs the instructions still held (each thread's last block).  FALSE if
 * the stream stops inside a chunk. */
gboolean pmusim_capture_finish(pmusim_capture_t *c, GError **error);
/* Adds the symbols of every executable file mapping that holds executed
 * code (the MAPS chunk) to `w`.  Files that cannot be read are skipped
 * (counted in *skipped when not NULL). */
gboolean pmusim_capture_add_symbols(pmusim_capture_t *c, pmusim_trace_writer_t *w,
                                    guint *skipped, GError **error);
/* Whether the stream's last word on execve is that a thread called it (an
 * EXECVE chunk, not followed by one that says the call failed): a stream
 * that then ends without END ended because the program replaced itself by
 * another, which runs natively, outside QEMU. */
gboolean pmusim_capture_in_execve(const pmusim_capture_t *c);
/* With `trace capture --trace-children`: why the program that replaced the
 * process runs natively (the text of the last EXECVE {1, 0, why}), "" when
 * the plugin gave none or in_execve is FALSE. */
const char *pmusim_capture_execve_why(const pmusim_capture_t *c);
/* The children the program's waits reaped that a signal had killed
 * (REAPED chunks, `trace capture --trace-children` only): their number, and
 * in *pairs (when not NULL) pid, signal, pid, signal ... in stream order,
 * valid until the next feed.  Each also has a MARKER in the trace, "wait:
 * child PID was killed by signal N (NAME)", at the waiting thread's cycle. */
uint32_t pmusim_capture_reaped(const pmusim_capture_t *c, const uint32_t **pairs);
/* Whether the stream's last word on execve is that the new image is traced
 * on in a stream of its own (EXECVE {3, N}, not followed by {1, 0}: the
 * plugin replaced QEMU by QEMU running the new program): N, the image's
 * number in its process (1 for the first execve), and in *program (when
 * not NULL) the program it runs; 0 (and NULL) when not. */
uint32_t pmusim_capture_exec_image(const pmusim_capture_t *c, const char **program);
/* With exec_image() non-zero: how that image's environment differs from
 * the envp its execve gave (EXECVE {4, N}: what QEMU could not carry,
 * docs/CAPTURE.md "The guest's environment"), NULL when it is the same. */
const char *pmusim_capture_exec_note(const pmusim_capture_t *c);

/* The processes the program forked (FORK chunks) that are not traced:
 * their number, and in *pids (when not NULL) their ids in stream order,
 * valid until the next feed.  Each also has a MARKER in the trace, "fork:
 * child PID not traced", at the forking thread's cycle. */
uint32_t pmusim_capture_forks(const pmusim_capture_t *c, const uint32_t **pids);
/* Likewise the children traced in streams of their own (`trace capture
 * --trace-children`); their MARKER says "fork: child PID traced in
 * OUT.PID" (OUT as set below; "fork: child PID traced" without it). */
uint32_t pmusim_capture_traced_forks(const pmusim_capture_t *c, const uint32_t **pids);
/* OUT, the name the traced children's traces start with (OUT.PID). */
void pmusim_capture_set_children_out(pmusim_capture_t *c, const char *out);
/* TRUE once the END chunk was read (the plugin saw the program exit). */
gboolean pmusim_capture_saw_end(const pmusim_capture_t *c);
uint32_t pmusim_capture_guest_threads(const pmusim_capture_t *c);
/* Instructions run through the model (a REP string instruction once,
 * whatever its iterations). */
uint64_t pmusim_capture_instructions(const pmusim_capture_t *c);
/* Times a REP string instruction was entered again for its next
 * iteration (QEMU runs each iteration, and a last test of the count, as a
 * block of its own): what valgrind's tools, which count every such entry
 * as an instruction, count more than pmusim_capture_instructions(). */
uint64_t pmusim_capture_rep_iterations(const pmusim_capture_t *c);
/* The guest binary's path from the HELLO chunk, or NULL. */
const char *pmusim_capture_binary(const pmusim_capture_t *c);
/* The plugin's figures from the END chunk (all 0 without them): nanoseconds
 * it spent in pipe writes (copying, and waiting while the pipe was full),
 * the stream's bytes, nanoseconds its thread waited for a CPU. */
void pmusim_capture_plugin_timing(const pmusim_capture_t *c, uint64_t *write_ns, uint64_t *bytes,
                                  uint64_t *runq_ns);
void pmusim_capture_free(pmusim_capture_t *c);

/* ELF symbols of one file (functions and objects with a size), relocated by
 * `bias`; for tests and the capture. */
typedef gboolean (*pmusim_elf_symbol_fn)(uint64_t start, uint64_t end, const char *name,
                                         void *user, GError **error);
/* Reads `path`'s .symtab and .dynsym.  `map_start`/`map_offset` place the
 * file (an executable mapping at map_start of file offset map_offset);
 * symbols are called in file order.  FALSE with error when the file is not
 * a readable ELF64 file. */
gboolean pmusim_elf_symbols(const char *path, uint64_t map_start, uint64_t map_offset,
                            pmusim_elf_symbol_fn fn, void *user, GError **error);

G_END_DECLS
#endif
