/* `trace capture --trace-children`: the children of the captured program,
 * each traced into OUT.PID, and the images an execve starts, into
 * OUT.PID.N (docs/CAPTURE.md, "Tracing the children").
 *
 * pmusim listens on a Unix socket in a private temporary directory; the
 * plugin (kids=PATH) connects it before every fork and the child makes the
 * connection its own capture stream (traces/capture/capstream.h).  Each
 * connection gets a thread of its own that reads the stream, runs a model
 * of the same CPU and options as the parent's, and writes OUT.PID (a
 * temporary file renamed at the end: whole or not at all), so children run
 * and are modelled at the same time as their parent.
 *
 *   capture_kids_t *k = capture_kids_new(&conf, &error);
 *   ... QEMU runs with -plugin ...,kids=capture_kids_socket(k) ...
 *   capture_kids_finish(k, wait_s);   (after the parent's stream ended)
 *   capture_kids_free(k);             (also stops and drops everything on an error) */
#ifndef PMUSIM_CLI_CAPTURE_KIDS_H
#define PMUSIM_CLI_CAPTURE_KIDS_H

#include "pmusim/capture.h"
#include "pmusim/trace.h"
#include "pmusim/uarch.h"

#include <glib.h>

typedef struct capture_kids_conf {
    pmusim_cpu_t cpu;
    uint32_t threads;
    pmusim_uarch_options_t uo;
    gboolean text;         /* the text form */
    const char *out;       /* the parent's trace: children write OUT.PID */
    const char *program;   /* the command line, for the header */
    const char *guest_cpu; /* QEMU's -cpu, for the header */
} capture_kids_conf_t;

typedef struct capture_kids capture_kids_t;

/* The socket and the thread that accepts the children; NULL with an error
 * when the socket cannot be made. */
capture_kids_t *capture_kids_new(const capture_kids_conf_t *conf, GError **error);
/* The socket's path, for the plugin's kids=PATH. */
const char *capture_kids_socket(const capture_kids_t *k);
/* After the parent's stream ended: waits until every child's stream has
 * ended (children that fork go on being traced), at most `wait_s` seconds;
 * the children still running then are no longer read, and their traces end
 * with a MARKER that says so.  Every trace is then written and every
 * thread joined.  Returns the number of traces written. */
guint capture_kids_finish(capture_kids_t *k, double wait_s);
/* Stops whatever still runs (traces not finished are not written), removes
 * the socket and its directory. */
void capture_kids_free(capture_kids_t *k);

/* The header of a capture's trace, the program's or a child's (pid != 0:
 * capture.pid, and capture.parent when parent != 0; an exec'd image has
 * none): producer, command line, QEMU's CPU, the model's annotations and
 * what a capture always holds. */
void capture_header_fill(pmusim_trace_header_t *hdr, pmusim_uarch_t *u, const char *program,
                         const char *guest_cpu, uint32_t pid, uint32_t parent);

/* The MARKER (and stderr line) at the end of an image's stream that ended
 * at an execve (NULL when it did not): "execve: PROGRAM continued in
 * OUT.PID.N" when the new image is traced (*traced TRUE), else the
 * ended-early text of a program that runs natively, with the plugin's
 * reason in parentheses when it gave one.  g_free() it. */
char *capture_execve_marker(const pmusim_capture_t *cap, const char *out, uint32_t pid,
                            gboolean *traced);

/* The children the stream's waits reaped that a signal had killed
 * (pmusim_capture_reaped()), one stderr line each for up to 10, prefixed
 * with `prefix` (a child's trace) when not NULL. */
void capture_print_reaped(const char *prefix, const pmusim_capture_t *cap);

#endif
