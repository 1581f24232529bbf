/* `trace capture --trace-children` (capture_kids.h, docs/CAPTURE.md
 * "Tracing the children"): a thread accepts the children's connections on
 * a Unix socket (a forked child's, or an exec'd image's), and each stream
 * is read, modelled and written on a thread of its own. */
#include "capture_kids.h"
#include "pmusim/capture.h"
#include "pmusim/outfile.h"
#include "../../traces/capture/capstream.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#define KIDS_READ (1u << 20) /* bytes per read of a child's socket */

struct capture_kids {
    capture_kids_conf_t conf; /* strings copied */
    char *dir, *sock;         /* the private directory and the socket in it */
    int lfd;                  /* listening */
    int stop[2];              /* written once: the acceptor and the children's readers stop */
    GMutex lock;
    GCond cond;
    guint live;               /* children's threads that have not ended */
    GPtrArray *kids;          /* of capture_kid_t* */
    GThread *acceptor;
    gboolean discard;         /* capture_kids_free() without finish: write nothing */
    double wait_s;            /* for the MARKER of a child no longer read */
    guint written;
};

typedef struct capture_kid {
    capture_kids_t *k;
    int fd;
    GThread *thread;
} capture_kid_t;

void capture_header_fill(pmusim_trace_header_t *hdr, pmusim_uarch_t *u, const char *program,
                         const char *guest_cpu, uint32_t pid, uint32_t parent)
{
    pmusim_trace_header_set_meta(hdr, "producer", "pmusim trace capture (QEMU user mode)");
    pmusim_trace_header_set_meta(hdr, "program", program);
    pmusim_trace_header_set_meta(hdr, "qemu.cpu", guest_cpu);
    if (pid) {
        char num[16];
        g_snprintf(num, sizeof num, "%u", pid);
        pmusim_trace_header_set_meta(hdr, "capture.pid", num);
        if (parent) {
            g_snprintf(num, sizeof num, "%u", parent);
            pmusim_trace_header_set_meta(hdr, "capture.parent", num);
        }
    }
    pmusim_uarch_header(u, hdr);
    pmusim_trace_header_set_annotations(hdr, pmusim_trace_header_annotations(hdr) |
                                                 PMUSIM_ANN_BRKIND | PMUSIM_ANN_ALLMEM |
                                                 PMUSIM_ANN_FP | PMUSIM_ANN_UOPS |
                                                 PMUSIM_ANN_SYMBOLS | PMUSIM_ANN_CALLKIND |
                                                 PMUSIM_ANN_FPCLASS | PMUSIM_ANN_OPKIND |
                                                 PMUSIM_ANN_LOCK | PMUSIM_ANN_FUSE | PMUSIM_ANN_DEP |
                                                 PMUSIM_ANN_BRDEP | PMUSIM_ANN_RSDEP);
}

void capture_print_reaped(const char *prefix, const pmusim_capture_t *cap)
{
    const uint32_t *pr = NULL;
    uint32_t n = pmusim_capture_reaped(cap, &pr);
    for (uint32_t i = 0; i < n && i < 10; i++)
        fprintf(stderr, "pmusim: %s%swait: child %u was killed by signal %u (%s)\n",
                prefix ? prefix : "", prefix ? ": " : "", pr[2 * i], pr[2 * i + 1],
                g_strsignal((int)pr[2 * i + 1]));
    if (n > 10)
        fprintf(stderr, "pmusim: %s%swait: %u more children killed by signals (MARKERs in the "
                        "trace)\n", prefix ? prefix : "", prefix ? ": " : "", n - 10);
}

char *capture_execve_marker(const pmusim_capture_t *cap, const char *out, uint32_t pid,
                            gboolean *traced)
{
    const char *prog = NULL;
    uint32_t n = pmusim_capture_exec_image(cap, &prog);
    *traced = n != 0;
    const char *note = pmusim_capture_exec_note(cap);
    if (n && note)
        return g_strdup_printf("execve: %s continued in %s.%u.%u (its environment differs from "
                               "the envp given: %s)", prog, out, pid, n, note);
    if (n)
        return g_strdup_printf("execve: %s continued in %s.%u.%u", prog, out, pid, n);
    if (!pmusim_capture_in_execve(cap))
        return NULL;
    const char *why = pmusim_capture_execve_why(cap);
    return *why ? g_strdup_printf("capture ended early: the program called execve; the program "
                                  "that replaced it runs natively, outside QEMU, and is not "
                                  "traced (%s)", why)
                : g_strdup("capture ended early: the program called execve; the program that "
                           "replaced it runs natively, outside QEMU, and is not traced "
                           "(--trace-children traces it)");
}

/* ---- one child ---- */

/* The model's records go straight to the child's writer, on the child's
 * thread (one thread per child, not two: docs/CAPTURE.md). */
static gboolean kid_sink(const pmusim_rec_t *recs, size_t n, void *user, GError **error)
{
    pmusim_trace_writer_t *const *w = user;
    return pmusim_trace_writer_write_trusted(*w, recs, n, error);
}

/* Waits until fd is readable (TRUE) or the stop pipe is written (FALSE). */
static gboolean kid_wait(capture_kids_t *k, int fd)
{
    for (;;) {
        struct pollfd pfd[2] = {{.fd = fd, .events = POLLIN}, {.fd = k->stop[0], .events = POLLIN}};
        int rc = poll(pfd, 2, -1);
        if (rc < 0 && errno == EINTR)
            continue;
        if (rc < 0 || pfd[1].revents)
            return FALSE;
        return TRUE;
    }
}

/* The preamble (capstream.h) and the shared-buffer file on it: a forked
 * child's (PSCK) or an exec'd image's (PSCX, then *cmd, its command line,
 * NUL-terminated).  FALSE when the connection closes first (the fork
 * failed) or says something else. */
static gboolean kid_preamble(capture_kids_t *k, int fd, uint32_t pre[4], int *mfd, char **cmd)
{
    *mfd = -1;
    *cmd = NULL;
    size_t got = 0;
    while (got < 16) {
        if (!kid_wait(k, fd))
            return FALSE;
        union {
            struct cmsghdr h;
            char b[CMSG_SPACE(sizeof(int))];
        } cm;
        struct iovec iov = {(char *)pre + got, 16 - got};
        struct msghdr mh = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = cm.b,
                            .msg_controllen = sizeof cm.b};
        ssize_t n = recvmsg(fd, &mh, MSG_CMSG_CLOEXEC);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return FALSE;
        for (struct cmsghdr *c = CMSG_FIRSTHDR(&mh); c; c = CMSG_NXTHDR(&mh, c))
            if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS &&
                c->cmsg_len == CMSG_LEN(sizeof(int)) && *mfd < 0)
                memcpy(mfd, CMSG_DATA(c), sizeof *mfd);
        got += (size_t)n;
    }
    if (pre[1] == 0 || pre[1] > INT32_MAX)
        return FALSE;
    if (pre[0] == CAPSTREAM_CHILD_MAGIC)
        return TRUE;
    uint32_t len = pre[3] >> 8;
    if (pre[0] != CAPSTREAM_EXEC_MAGIC || pre[2] == 0 || len > CAPSTREAM_EXEC_MAX_CMDLINE)
        return FALSE;
    char *c = g_malloc(len + 1);
    for (got = 0; got < len;) {
        if (!kid_wait(k, fd)) {
            g_free(c);
            return FALSE;
        }
        ssize_t n = read(fd, c + got, len - got);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            g_free(c);
            return FALSE;
        }
        got += (size_t)n;
    }
    c[len] = '\0';
    *cmd = c;
    return TRUE;
}

/* The child's own forks on stderr, as the program's (one line each for up
 * to 10, else their number), prefixed with the child's trace. */
static void kid_print_forks(const char *path, const char *out, pmusim_capture_t *cap)
{
    const uint32_t *pids = NULL;
    uint32_t n = pmusim_capture_traced_forks(cap, &pids);
    if (n && n <= 10) {
        for (uint32_t i = 0; i < n; i++)
            fprintf(stderr, "pmusim: %s: fork: child %u traced in %s.%u\n", path, pids[i], out,
                    pids[i]);
    } else if (n) {
        fprintf(stderr, "pmusim: %s: fork: %u children traced in %s.PID (%u first, %u last)\n",
                path, n, out, pids[0], pids[n - 1]);
    }
    n = pmusim_capture_forks(cap, &pids);
    if (n && n <= 10) {
        for (uint32_t i = 0; i < n; i++)
            fprintf(stderr, "pmusim: %s: fork: child %u not traced (a MARKER in the trace says "
                            "where)\n", path, pids[i]);
    } else if (n) {
        fprintf(stderr, "pmusim: %s: fork: %u children not traced (%u first, %u last)\n", path,
                n, pids[0], pids[n - 1]);
    }
}

static void kid_run(capture_kid_t *kid)
{
    capture_kids_t *k = kid->k;
    const capture_kids_conf_t *cf = &k->conf;
    uint32_t pre[4];
    int mfd = -1;
    char *cmd = NULL;
    if (!kid_preamble(k, kid->fd, pre, &mfd, &cmd)) {
        if (mfd >= 0)
            close(mfd);
        return; /* a fork that failed, or pmusim stopped first: no trace */
    }
    uint32_t pid = pre[1];
    /* an exec'd image N of process PID: OUT.PID.N, continuing OUT.PID.N-1,
     * or for N = 1 the process's first trace (OUT for the program) */
    uint32_t image = cmd ? pre[2] : 0;
    char *path = image ? g_strdup_printf("%s.%u.%u", cf->out, pid, image)
                       : g_strdup_printf("%s.%u", cf->out, pid);
    char *continues = !image ? NULL
                      : image > 1 ? g_strdup_printf("%s.%u.%u", cf->out, pid, image - 1)
                      : pre[3] & 2 ? g_strdup(cf->out)
                                   : g_strdup_printf("%s.%u", cf->out, pid);
    char *sname = g_strdup_printf(image ? "%s: the exec'd image's capture stream"
                                        : "%s: the child's capture stream", path);
    GError *error = NULL;
    pmusim_trace_header_t hdr = {0};
    pmusim_trace_header_init(&hdr, cf->cpu, cf->threads);
    pmusim_trace_writer_t *w = NULL;
    pmusim_capture_t *cap = NULL;
    uint8_t *buf = NULL;
    gboolean stopped = FALSE;
    pmusim_uarch_t *u = pmusim_uarch_new(cf->cpu, cf->threads, &cf->uo, kid_sink, &w, &error);
    gboolean ok = u != NULL;
    if (ok) {
        capture_header_fill(&hdr, u, image ? cmd : cf->program, cf->guest_cpu, pid,
                            image ? 0 : pre[2]);
        if (image)
            pmusim_trace_header_set_meta(&hdr, "capture.continues", continues);
        w = pmusim_trace_writer_open(path, cf->text ? PMUSIM_TRACE_TEXT : PMUSIM_TRACE_BINARY,
                                     &hdr, &error);
        ok = w != NULL;
    }
    if (ok) {
        cap = pmusim_capture_new(u, cf->threads, sname);
        pmusim_capture_set_children_out(cap, cf->out);
        buf = g_malloc(KIDS_READ);
    }
    while (ok) {
        if (!kid_wait(k, kid->fd)) {
            stopped = TRUE;
            break;
        }
        ssize_t n = read(kid->fd, buf, KIDS_READ);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            g_set_error(&error, G_FILE_ERROR, g_file_error_from_errno(errno),
                        "%s: reading the stream: %s", sname, g_strerror(errno));
            ok = FALSE;
        } else if (n == 0) {
            break;
        } else {
            ok = pmusim_capture_feed(cap, buf, (size_t)n, &error);
        }
    }
    g_free(buf);
    close(kid->fd); /* a child still running sends no more (EPIPE, no signal) */
    kid->fd = -1;
    if (ok && stopped && k->discard)
        ok = FALSE;
    if (ok && !pmusim_capture_saw_end(cap)) {
        /* a death: what the child's buffers hold; a child still running
         * (stopped) writes into them: only a cut chunk is dropped */
        void *m = !stopped && mfd >= 0
                      ? mmap(NULL, CAPSTREAM_SHM_SIZE, PROT_READ, MAP_SHARED, mfd, 0)
                      : MAP_FAILED;
        ok = pmusim_capture_recover(cap, m != MAP_FAILED ? m : NULL,
                                    m != MAP_FAILED ? CAPSTREAM_SHM_SIZE : 0, NULL, &error);
        if (m != MAP_FAILED)
            munmap(m, CAPSTREAM_SHM_SIZE);
    }
    if (mfd >= 0)
        close(mfd);
    ok = ok && pmusim_capture_finish(cap, &error) && pmusim_uarch_finish(u, &error);
    if (ok && !pmusim_capture_saw_end(cap)) {
        gboolean traced = FALSE;
        char *ex = stopped ? NULL : capture_execve_marker(cap, cf->out, pid, &traced);
        gboolean execd = ex != NULL;
        char *why = execd ? ex
                    : stopped ? g_strdup_printf("capture ended early: the child still ran %g s "
                                                "after the program exited; pmusim stopped "
                                                "reading it", k->wait_s)
                              : g_strdup("capture ended early: the child's stream ended "
                                         "before its exit (it was killed, e.g. by a signal)");
        pmusim_uarch_stats_t st;
        pmusim_uarch_get_stats(u, &st);
        pmusim_rec_t m = {.cycle = st.cycles ? st.cycles - 1 : 0, .kind = PMUSIM_REC_MARKER,
                          .plm = 3, .name = why};
        ok = pmusim_trace_writer_write(w, &m, 1, &error);
        if (!execd || traced)
            fprintf(stderr, "pmusim: %s: %s\n", path, why);
        g_free(why);
    }
    if (ok)
    {
        kid_print_forks(path, cf->out, cap);
        capture_print_reaped(path, cap);
    }
    guint skipped = 0;
    ok = ok && pmusim_capture_add_symbols(cap, w, &skipped, &error);
    if (ok) {
        pmusim_trace_writer_t *wc = w;
        w = NULL;
        ok = pmusim_trace_writer_close(wc, &error);
    }
    if (ok) {
        g_mutex_lock(&k->lock);
        k->written++;
        g_mutex_unlock(&k->lock);
    } else if (error) {
        fprintf(stderr, "pmusim: %s: not written: %s\n", path, error->message);
    }
    g_clear_error(&error);
    pmusim_trace_writer_abort(w);
    pmusim_capture_free(cap);
    pmusim_uarch_free(u);
    pmusim_trace_header_clear(&hdr);
    g_free(sname);
    g_free(path);
    g_free(continues);
    g_free(cmd);
}

static gpointer kid_main(gpointer p)
{
    capture_kid_t *kid = p;
    capture_kids_t *k = kid->k;
    kid_run(kid);
    if (kid->fd >= 0)
        close(kid->fd);
    kid->fd = -1;
    g_mutex_lock(&k->lock);
    k->live--;
    g_cond_broadcast(&k->cond);
    g_mutex_unlock(&k->lock);
    return NULL;
}

/* ---- the socket ---- */

/* Accepts one waiting connection, if any, and starts its thread; the
 * caller holds k->lock (so that `live` counts it before the socket stops
 * showing it). */
static void kids_accept_locked(capture_kids_t *k)
{
    int fd = accept4(k->lfd, NULL, NULL, SOCK_CLOEXEC);
    if (fd < 0)
        return;
    capture_kid_t *kid = g_new0(capture_kid_t, 1);
    kid->k = k;
    kid->fd = fd;
    GError *error = NULL;
    k->live++;
    kid->thread = g_thread_try_new("pmusim-child", kid_main, kid, &error);
    if (!kid->thread) {
        fprintf(stderr, "pmusim: a traced child: no thread for it (%s): its trace is not "
                        "written\n", error->message);
        g_error_free(error);
        close(fd);
        g_free(kid);
        k->live--;
        return;
    }
    g_ptr_array_add(k->kids, kid);
}

static gpointer kids_accept_main(gpointer p)
{
    capture_kids_t *k = p;
    for (;;) {
        struct pollfd pfd[2] = {{.fd = k->lfd, .events = POLLIN},
                                {.fd = k->stop[0], .events = POLLIN}};
        int rc = poll(pfd, 2, -1);
        if (rc < 0 && errno == EINTR)
            continue;
        if (rc < 0 || pfd[1].revents)
            return NULL;
        g_mutex_lock(&k->lock);
        kids_accept_locked(k);
        g_mutex_unlock(&k->lock);
    }
}

capture_kids_t *capture_kids_new(const capture_kids_conf_t *conf, GError **error)
{
    capture_kids_t *k = g_new0(capture_kids_t, 1);
    k->conf = *conf;
    k->conf.out = g_strdup(conf->out);
    k->conf.program = g_strdup(conf->program);
    k->conf.guest_cpu = g_strdup(conf->guest_cpu);
    k->lfd = k->stop[0] = k->stop[1] = -1;
    g_mutex_init(&k->lock);
    g_cond_init(&k->cond);
    k->kids = g_ptr_array_new_with_free_func(g_free);
    /* a socket, a file and an output per live child: as many as allowed */
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
        rl.rlim_cur = rl.rlim_max;
        (void)setrlimit(RLIMIT_NOFILE, &rl);
    }
    k->dir = g_dir_make_tmp("pmusim-capture-XXXXXX", error);
    if (!k->dir)
        goto fail;
    k->sock = g_build_filename(k->dir, "children", NULL);
    pmusim_outfile_cleanup_socket(k->sock, k->dir); /* Ctrl-C removes them too */
    struct sockaddr_un sa = {.sun_family = AF_UNIX};
    if (strlen(k->sock) >= sizeof sa.sun_path) {
        g_set_error(error, G_FILE_ERROR, G_FILE_ERROR_NAMETOOLONG,
                    "%s: too long for a Unix socket (set TMPDIR)", k->sock);
        goto fail;
    }
    memcpy(sa.sun_path, k->sock, strlen(k->sock) + 1);
    k->lfd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (k->lfd < 0 || bind(k->lfd, (struct sockaddr *)&sa, sizeof sa) != 0 ||
        listen(k->lfd, SOMAXCONN) != 0 || pipe2(k->stop, O_CLOEXEC) != 0) {
        g_set_error(error, G_FILE_ERROR, g_file_error_from_errno(errno),
                    "%s: the socket for the children: %s", k->sock, g_strerror(errno));
        goto fail;
    }
    k->acceptor = g_thread_try_new("pmusim-children", kids_accept_main, k, error);
    if (!k->acceptor)
        goto fail;
    return k;
fail:
    capture_kids_free(k);
    return NULL;
}

const char *capture_kids_socket(const capture_kids_t *k) { return k->sock; }

/* Stops the acceptor and every child still reading, and joins them. */
static void kids_stop_join(capture_kids_t *k)
{
    if (k->stop[1] >= 0) {
        ssize_t w;
        do
            w = write(k->stop[1], "x", 1);
        while (w < 0 && errno == EINTR);
    }
    if (k->acceptor)
        g_thread_join(k->acceptor);
    k->acceptor = NULL;
    /* the acceptor has ended: the array no longer grows */
    for (guint i = 0; i < k->kids->len; i++) {
        capture_kid_t *kid = g_ptr_array_index(k->kids, i);
        if (kid->thread)
            g_thread_join(kid->thread);
        kid->thread = NULL;
    }
}

guint capture_kids_finish(capture_kids_t *k, double wait_s)
{
    gint64 deadline = g_get_monotonic_time() + (gint64)(wait_s * 1e6);
    g_mutex_lock(&k->lock);
    k->wait_s = wait_s;
    for (;;) {
        /* a connection in the socket's queue is a child to come: its
         * parent connected it before the fork, so before its own stream
         * ended */
        struct pollfd pfd = {.fd = k->lfd, .events = POLLIN};
        gboolean waiting = poll(&pfd, 1, 0) > 0;
        if (waiting)
            kids_accept_locked(k);
        else if (k->live == 0)
            break;
        gint64 now = g_get_monotonic_time();
        if (now >= deadline)
            break;
        g_cond_wait_until(&k->cond, &k->lock, MIN(deadline, now + 20000));
    }
    g_mutex_unlock(&k->lock);
    kids_stop_join(k);
    return k->written;
}

void capture_kids_free(capture_kids_t *k)
{
    if (!k)
        return;
    k->discard = TRUE;
    kids_stop_join(k);
    if (k->lfd >= 0)
        close(k->lfd);
    if (k->stop[0] >= 0)
        close(k->stop[0]);
    if (k->stop[1] >= 0)
        close(k->stop[1]);
    if (k->dir)
        pmusim_outfile_cleanup_socket(NULL, NULL);
    if (k->sock)
        unlink(k->sock);
    if (k->dir)
        rmdir(k->dir);
    g_ptr_array_unref(k->kids);
    g_mutex_clear(&k->lock);
    g_cond_clear(&k->cond);
    g_free(k->sock);
    g_free(k->dir);
    g_free((char *)k->conf.out);
    g_free((char *)k->conf.program);
    g_free((char *)k->conf.guest_cpu);
    g_free(k);
}
