/* pmusim output files: every file pmusim writes goes through this, so that
 * an output appears whole or not at all and never destroys an input.
 *
 *   pmusim_outfile_t *o = pmusim_outfile_open(out_path, inputs, &error);
 *   if (!o) -> report error (nothing was created or truncated)
 *   fprintf(pmusim_outfile_fp(o), ...);                (any stdio writes)
 *   if (success) ok = pmusim_outfile_commit(o, &error); (checks every write)
 *   else pmusim_outfile_abort(o);                       (output left untouched)
 *
 * What happens to each kind of path:
 * - a regular file, or a path that does not exist yet: the data goes to a
 *   temporary file ".NAME.XXXXXX" in the same directory, which commit()
 *   flushes, fsync()s and renames over NAME (atomic on POSIX file systems);
 *   abort() and every failure remove the temporary file and leave NAME as it
 *   was.  A symbolic link is followed: its target is replaced and the link
 *   stays.  The new file gets the mode of the file it replaces, or
 *   0666 & ~umask for a new one (not its owner, group, ACLs or hard links:
 *   a replaced file is a new inode).  The directory must be writable, even
 *   to replace an existing writable file.
 * - "-" (standard output), a character device (/dev/null, a terminal), a
 *   FIFO or a socket: written directly, no temporary file; commit() flushes
 *   and reports a failed write; nothing is ever unlinked or truncated.
 * - a directory or other file type: refused.
 * - the same file as one of `inputs` (same st_dev and st_ino, so through
 *   symbolic and hard links): refused before anything is opened for writing.
 *   An input "-" is compared through standard input.
 *
 * SIGINT, SIGTERM and SIGHUP remove every live temporary file and then
 * terminate the process by the same signal (the handler is installed on the
 * first open, and only for signals whose disposition is the default: an
 * ignored SIGHUP under nohup stays ignored).  At most PMUSIM_OUTFILE_MAX_LIVE
 * outputs may be open at once.
 *
 * Errors are in the PMUSIM_OUTFILE_ERROR domain, messages "PATH: what: reason".
 * Each output is used by one thread at a time; different threads may open,
 * commit and abort different outputs at once.
 */
#ifndef PMUSIM_OUTFILE_H
#define PMUSIM_OUTFILE_H

#include <stdio.h>
#include <glib.h>

G_BEGIN_DECLS

#define PMUSIM_OUTFILE_MAX_LIVE 1024 /* `trace capture --trace-children`: one per live child */

#define PMUSIM_OUTFILE_ERROR (pmusim_outfile_error_quark())
GQuark pmusim_outfile_error_quark(void);
typedef enum {
    PMUSIM_OUTFILE_ERROR_IO,         /* create, write, flush, close or rename failed */
    PMUSIM_OUTFILE_ERROR_SAME_INPUT, /* the output is one of the inputs */
    PMUSIM_OUTFILE_ERROR_TYPE,       /* a directory or another file type that cannot be written */
} pmusim_outfile_error_t;

typedef struct pmusim_outfile pmusim_outfile_t;

/* Opens `path` for writing ("-" is standard output).  `inputs` is NULL or a
 * NULL-terminated list of paths the command reads; NULL entries end it. */
pmusim_outfile_t *pmusim_outfile_open(const char *path, const char *const *inputs,
                                      GError **error);
/* The stream to write to; valid until commit() or abort(). */
FILE *pmusim_outfile_fp(pmusim_outfile_t *o);
/* The path as given to open(), for messages. */
const char *pmusim_outfile_path(const pmusim_outfile_t *o);
/* TRUE if the output is streamed (stdout, device, FIFO): nothing can be
 * taken back on failure. */
gboolean pmusim_outfile_is_stream(const pmusim_outfile_t *o);
/* Flushes and checks every write, then puts the file in place.  Frees o in
 * every case; on failure the temporary file is removed and `error` says why. */
gboolean pmusim_outfile_commit(pmusim_outfile_t *o, GError **error);
/* Discards the output: removes the temporary file (a streamed output is just
 * flushed).  Frees o.  NULL is ignored. */
void pmusim_outfile_abort(pmusim_outfile_t *o);

/* A temporary Unix socket and the private directory that holds it (`trace
 * capture --trace-children`), removed by the cleanup signals like the
 * temporary files (unlink, then rmdir); installs the handlers.  NULL, NULL
 * forgets them (call it before removing them yourself).  One at a time. */
void pmusim_outfile_cleanup_socket(const char *sock, const char *dir);

/* TRUE if `a` and `b` name the same existing file (through links). */
gboolean pmusim_outfile_same_file(const char *a, const char *b);

G_END_DECLS
#endif
