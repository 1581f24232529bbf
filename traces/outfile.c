/* Atomic, input-safe output files (include/pmusim/outfile.h).
 *
 * The rule this file enforces: pmusim never truncates or unlinks a file it
 * did not create itself.  Regular outputs are written to a temporary file
 * next to the destination and renamed into place (rename(2) replaces the
 * destination atomically, so a reader sees the old file or the new one);
 * devices, FIFOs and standard output are streamed because there is nothing
 * to replace.  The temporary paths live in a fixed table that the signal
 * handler walks with unlink(2), which POSIX lists as async-signal-safe. */
#include "pmusim/outfile.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

G_DEFINE_QUARK(pmusim-outfile-error-quark, pmusim_outfile_error)

struct pmusim_outfile {
    char *path;   /* as given */
    char *target; /* file renamed over at commit (symbolic links resolved) */
    FILE *fp;
    int slot;     /* index in live_tmp, -1 when streaming */
    gboolean is_stdout;
};

/* Temporary files that exist right now.  `used` is set after `path` is
 * complete and cleared before the slot is reused, so the handler only ever
 * reads a finished string. */
static struct {
    volatile sig_atomic_t used;
    char path[PATH_MAX];
} live_tmp[PMUSIM_OUTFILE_MAX_LIVE];

static const int cleanup_signals[] = { SIGINT, SIGTERM, SIGHUP };

/* pmusim_outfile_cleanup_socket(): `used` set after both paths are
 * complete, cleared before they change. */
static struct {
    volatile sig_atomic_t used;
    char sock[PATH_MAX], dir[PATH_MAX];
} live_sock;

/* Threads that open outputs at the same time (`trace capture
 * --trace-children` writes one trace per child, each on its own thread)
 * claim slots one at a time; a slot is freed by one store. */
static GMutex claim_lock;

static void remove_live_tmp_and_reraise(int sig)
{
    int saved = errno;
    for (int i = 0; i < PMUSIM_OUTFILE_MAX_LIVE; i++)
        if (live_tmp[i].used)
            unlink(live_tmp[i].path);
    if (live_sock.used) {
        unlink(live_sock.sock);
        rmdir(live_sock.dir);
    }
    /* SA_RESETHAND restored the default action and the signal is blocked
     * while we run: it terminates the process as soon as we return. */
    raise(sig);
    errno = saved;
}

static void install_handlers_once(void)
{
    static gboolean installed;
    if (installed)
        return;
    installed = TRUE;
    for (size_t i = 0; i < G_N_ELEMENTS(cleanup_signals); i++) {
        struct sigaction old;
        if (sigaction(cleanup_signals[i], NULL, &old) != 0 || old.sa_handler != SIG_DFL)
            continue; /* ignored (nohup) or handled by someone else: leave it */
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = remove_live_tmp_and_reraise;
        sigemptyset(&sa.sa_mask);
        for (size_t j = 0; j < G_N_ELEMENTS(cleanup_signals); j++)
            sigaddset(&sa.sa_mask, cleanup_signals[j]);
        sa.sa_flags = SA_RESETHAND;
        sigaction(cleanup_signals[i], &sa, NULL);
    }
}

/* Blocks the cleanup signals around changes that must not be split by the
 * handler (rename + forgetting the temporary name). */
static void block_cleanup_signals(sigset_t *old)
{
    sigset_t set;
    sigemptyset(&set);
    for (size_t j = 0; j < G_N_ELEMENTS(cleanup_signals); j++)
        sigaddset(&set, cleanup_signals[j]);
    sigprocmask(SIG_BLOCK, &set, old);
}

static void forget_live_tmp(int slot)
{
    if (slot >= 0)
        live_tmp[slot].used = 0;
}

static gboolean same_stat(const struct stat *a, const struct stat *b)
{
    return a->st_dev == b->st_dev && a->st_ino == b->st_ino;
}

void pmusim_outfile_cleanup_socket(const char *sock, const char *dir)
{
    sigset_t old;
    block_cleanup_signals(&old);
    live_sock.used = 0;
    if (sock && dir && strlen(sock) < PATH_MAX && strlen(dir) < PATH_MAX) {
        strcpy(live_sock.sock, sock);
        strcpy(live_sock.dir, dir);
        install_handlers_once();
        live_sock.used = 1;
    }
    sigprocmask(SIG_SETMASK, &old, NULL);
}

gboolean pmusim_outfile_same_file(const char *a, const char *b)
{
    struct stat sa, sb;
    return stat(a, &sa) == 0 && stat(b, &sb) == 0 && same_stat(&sa, &sb);
}

/* Refuses an output (its stat in *out) that is one of the inputs. */
static gboolean check_inputs(const char *path, const struct stat *out, const char *const *inputs,
                             GError **error)
{
    for (; inputs && *inputs; inputs++) {
        struct stat in;
        gboolean is_stdin = strcmp(*inputs, "-") == 0;
        if ((is_stdin ? fstat(STDIN_FILENO, &in) : stat(*inputs, &in)) != 0)
            continue; /* the reader reports a missing input */
        if (same_stat(&in, out)) {
            g_set_error(error, PMUSIM_OUTFILE_ERROR, PMUSIM_OUTFILE_ERROR_SAME_INPUT,
                        "%s: refusing to write the output over the input %s (same file)", path,
                        is_stdin ? "on standard input" : *inputs);
            return FALSE;
        }
    }
    return TRUE;
}

static pmusim_outfile_t *new_outfile(const char *path, FILE *fp, int slot)
{
    pmusim_outfile_t *o = g_new0(pmusim_outfile_t, 1);
    o->path = g_strdup(path);
    o->fp = fp;
    o->slot = slot;
    return o;
}

static void set_io_error(GError **error, const char *path, const char *what, int err)
{
    g_set_error(error, PMUSIM_OUTFILE_ERROR, PMUSIM_OUTFILE_ERROR_IO, "%s: %s: %s", path, what,
                g_strerror(err));
}

static pmusim_outfile_t *open_stream(const char *path, GError **error)
{
    int fd = open(path, O_WRONLY | O_NOCTTY | O_CLOEXEC);
    FILE *fp = fd >= 0 ? fdopen(fd, "wb") : NULL;
    if (!fp) {
        int err = errno;
        if (fd >= 0)
            close(fd);
        set_io_error(error, path, "cannot open for writing", err);
        return NULL;
    }
    return new_outfile(path, fp, -1);
}

static pmusim_outfile_t *open_tmp(const char *path, const char *target, mode_t mode,
                                  GError **error)
{
    g_mutex_lock(&claim_lock);
    int slot = -1;
    for (int i = 0; i < PMUSIM_OUTFILE_MAX_LIVE && slot < 0; i++)
        if (!live_tmp[i].used)
            slot = i;
    if (slot < 0) {
        g_mutex_unlock(&claim_lock);
        g_set_error(error, PMUSIM_OUTFILE_ERROR, PMUSIM_OUTFILE_ERROR_IO,
                    "%s: more than %d outputs open at once", path, PMUSIM_OUTFILE_MAX_LIVE);
        return NULL;
    }
    char *dir = g_path_get_dirname(target);
    char *base = g_path_get_basename(target);
    char *tmpl = g_strdup_printf("%s/.%s.XXXXXX", dir, base);
    g_free(dir);
    g_free(base);
    if (strlen(tmpl) >= PATH_MAX) {
        g_mutex_unlock(&claim_lock);
        g_set_error(error, PMUSIM_OUTFILE_ERROR, PMUSIM_OUTFILE_ERROR_IO,
                    "%s: path too long for a temporary file", path);
        g_free(tmpl);
        return NULL;
    }
    install_handlers_once();
    /* The slot is claimed with the template's name before the file exists;
     * the handler's unlink of a not-yet-created name is harmless. */
    sigset_t old;
    block_cleanup_signals(&old);
    int fd = mkostemp(tmpl, O_CLOEXEC);
    int err = errno;
    if (fd >= 0) {
        memcpy(live_tmp[slot].path, tmpl, strlen(tmpl) + 1);
        live_tmp[slot].used = 1;
    }
    sigprocmask(SIG_SETMASK, &old, NULL);
    g_mutex_unlock(&claim_lock);
    if (fd < 0) {
        set_io_error(error, path, "cannot create a temporary file in its directory", err);
        g_free(tmpl);
        return NULL;
    }
    FILE *fp = NULL;
    if (fchmod(fd, mode) != 0 || !(fp = fdopen(fd, "wb"))) {
        err = errno;
        close(fd);
        unlink(tmpl);
        forget_live_tmp(slot);
        set_io_error(error, path, "cannot prepare the temporary file", err);
        g_free(tmpl);
        return NULL;
    }
    g_free(tmpl);
    pmusim_outfile_t *o = new_outfile(path, fp, slot);
    o->target = g_strdup(target);
    return o;
}

pmusim_outfile_t *pmusim_outfile_open(const char *path, const char *const *inputs, GError **error)
{
    struct stat st;
    if (strcmp(path, "-") == 0) {
        if (fstat(STDOUT_FILENO, &st) == 0 && S_ISREG(st.st_mode) &&
            !check_inputs("standard output", &st, inputs, error))
            return NULL;
        pmusim_outfile_t *o = new_outfile(path, stdout, -1);
        o->is_stdout = TRUE;
        return o;
    }
    if (!*path) {
        g_set_error(error, PMUSIM_OUTFILE_ERROR, PMUSIM_OUTFILE_ERROR_TYPE,
                    "empty output file name");
        return NULL;
    }
    if (stat(path, &st) != 0) {
        int err = errno;
        struct stat lst;
        if (err == ENOENT && lstat(path, &lst) == 0) {
            g_set_error(error, PMUSIM_OUTFILE_ERROR, PMUSIM_OUTFILE_ERROR_TYPE,
                        "%s: is a symbolic link to a missing file; not replacing the link", path);
            return NULL;
        }
        if (err != ENOENT) {
            set_io_error(error, path, "cannot create", err);
            return NULL;
        }
        mode_t mask = umask(0);
        umask(mask);
        return open_tmp(path, path, 0666 & ~mask, error);
    }
    if (!check_inputs(path, &st, inputs, error))
        return NULL;
    if (S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode))
        return open_stream(path, error);
    if (!S_ISREG(st.st_mode)) {
        g_set_error(error, PMUSIM_OUTFILE_ERROR, PMUSIM_OUTFILE_ERROR_TYPE,
                    "%s: is %s, not a file pmusim can write", path,
                    S_ISDIR(st.st_mode) ? "a directory" : "a block device or special file");
        return NULL;
    }
    char *target = realpath(path, NULL);
    if (!target) {
        set_io_error(error, path, "cannot resolve", errno);
        return NULL;
    }
    pmusim_outfile_t *o = open_tmp(path, target, st.st_mode & 07777, error);
    free(target);
    return o;
}

FILE *pmusim_outfile_fp(pmusim_outfile_t *o)
{
    return o->fp;
}

const char *pmusim_outfile_path(const pmusim_outfile_t *o)
{
    return o->path;
}

gboolean pmusim_outfile_is_stream(const pmusim_outfile_t *o)
{
    return o->slot < 0;
}

static void outfile_free(pmusim_outfile_t *o)
{
    g_free(o->path);
    g_free(o->target);
    g_free(o);
}

gboolean pmusim_outfile_commit(pmusim_outfile_t *o, GError **error)
{
    int err = 0;
    const char *what = NULL;
    if (fflush(o->fp) != 0) {
        err = errno;
        what = "write failed";
    } else if (ferror(o->fp)) {
        err = EIO;
        what = "write failed";
    } else if (o->slot >= 0 && fsync(fileno(o->fp)) != 0) {
        err = errno;
        what = "fsync failed";
    }
    if (o->is_stdout) {
        if (what) {
            set_io_error(error, "standard output", what, err);
            clearerr(stdout); /* reported here: main's exit check need not repeat it */
        }
        outfile_free(o);
        return what == NULL;
    }
    if (fclose(o->fp) != 0 && !what) {
        err = errno;
        what = "close failed";
    }
    if (o->slot >= 0) {
        const char *tmp = live_tmp[o->slot].path;
        sigset_t old;
        block_cleanup_signals(&old);
        if (!what && rename(tmp, o->target) != 0) {
            err = errno;
            what = "cannot rename the temporary file into place";
        }
        if (what)
            unlink(tmp);
        forget_live_tmp(o->slot);
        sigprocmask(SIG_SETMASK, &old, NULL);
    }
    if (what)
        set_io_error(error, o->path, what, err);
    outfile_free(o);
    return what == NULL;
}

void pmusim_outfile_abort(pmusim_outfile_t *o)
{
    if (!o)
        return;
    if (o->is_stdout) {
        fflush(stdout);
        outfile_free(o);
        return;
    }
    fclose(o->fp);
    if (o->slot >= 0) {
        sigset_t old;
        block_cleanup_signals(&old);
        unlink(live_tmp[o->slot].path);
        forget_live_tmp(o->slot);
        sigprocmask(SIG_SETMASK, &old, NULL);
    }
    outfile_free(o);
}
