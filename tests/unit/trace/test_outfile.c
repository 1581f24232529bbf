/* Unit tests of the atomic output files (include/pmusim/outfile.h): commit
 * puts a file in place whole, abort and failures leave the destination as it
 * was, an output that is an input is refused through links, streams are never
 * replaced, and a terminating signal removes the temporary file. */
#include "pmusim/outfile.h"

#include "cu_main.h"

#include <CUnit/Basic.h>
#include <glib/gstdio.h>
#include <signal.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <fcntl.h>
#include <unistd.h>

static char *dir;

static char *in_dir(const char *name)
{
    return g_build_filename(dir, name, NULL);
}

/* Number of entries in the test directory (temporary files included). */
static unsigned dir_entries(void)
{
    GDir *d = g_dir_open(dir, 0, NULL);
    unsigned n = 0;
    while (g_dir_read_name(d))
        n++;
    g_dir_close(d);
    return n;
}

static void clean_dir(void)
{
    GDir *d = g_dir_open(dir, 0, NULL);
    const char *name;
    while ((name = g_dir_read_name(d))) {
        char *p = in_dir(name);
        g_unlink(p);
        g_free(p);
    }
    g_dir_close(d);
}

static void assert_contents(const char *path, const char *want)
{
    char *got = NULL;
    CU_ASSERT_FATAL(g_file_get_contents(path, &got, NULL, NULL));
    CU_ASSERT_STRING_EQUAL(got, want);
    g_free(got);
}

static void test_commit_and_abort(void)
{
    clean_dir();
    char *out = in_dir("out.txt");
    GError *e = NULL;
    pmusim_outfile_t *o = pmusim_outfile_open(out, NULL, &e);
    CU_ASSERT_PTR_NOT_NULL_FATAL(o);
    CU_ASSERT_FALSE(pmusim_outfile_is_stream(o));
    fputs("new", pmusim_outfile_fp(o));
    /* nothing at the destination before the commit, one temporary file */
    CU_ASSERT_FALSE(g_file_test(out, G_FILE_TEST_EXISTS));
    CU_ASSERT_EQUAL(dir_entries(), 1);
    CU_ASSERT(pmusim_outfile_commit(o, &e));
    CU_ASSERT_PTR_NULL(e);
    assert_contents(out, "new");
    CU_ASSERT_EQUAL(dir_entries(), 1);
    /* the new file has the usual mode: 0666 minus the umask */
    struct stat st;
    mode_t mask = umask(0);
    umask(mask);
    CU_ASSERT(stat(out, &st) == 0 && (st.st_mode & 0777) == (0666 & ~mask));
    /* an existing file: abort leaves it alone, its mode is kept on replace */
    CU_ASSERT(chmod(out, 0640) == 0);
    o = pmusim_outfile_open(out, NULL, &e);
    CU_ASSERT_PTR_NOT_NULL_FATAL(o);
    fputs("discarded", pmusim_outfile_fp(o));
    pmusim_outfile_abort(o);
    assert_contents(out, "new");
    CU_ASSERT_EQUAL(dir_entries(), 1);
    o = pmusim_outfile_open(out, NULL, &e);
    fputs("replaced", pmusim_outfile_fp(o));
    CU_ASSERT(pmusim_outfile_commit(o, &e));
    assert_contents(out, "replaced");
    CU_ASSERT(stat(out, &st) == 0 && (st.st_mode & 0777) == 0640);
    pmusim_outfile_abort(NULL);
    g_free(out);
}

static void test_symlink_kept(void)
{
    clean_dir();
    char *target = in_dir("target.txt"), *link = in_dir("link.txt");
    CU_ASSERT_FATAL(g_file_set_contents(target, "old", -1, NULL));
    CU_ASSERT_FATAL(symlink("target.txt", link) == 0);
    GError *e = NULL;
    pmusim_outfile_t *o = pmusim_outfile_open(link, NULL, &e);
    CU_ASSERT_PTR_NOT_NULL_FATAL(o);
    fputs("via link", pmusim_outfile_fp(o));
    CU_ASSERT(pmusim_outfile_commit(o, &e));
    CU_ASSERT(g_file_test(link, G_FILE_TEST_IS_SYMLINK));
    assert_contents(target, "via link");
    /* a dangling link is refused, not replaced */
    g_unlink(target);
    CU_ASSERT_PTR_NULL(pmusim_outfile_open(link, NULL, &e));
    CU_ASSERT(g_error_matches(e, PMUSIM_OUTFILE_ERROR, PMUSIM_OUTFILE_ERROR_TYPE));
    CU_ASSERT(e && strstr(e->message, "symbolic link to a missing file"));
    g_clear_error(&e);
    CU_ASSERT(g_file_test(link, G_FILE_TEST_IS_SYMLINK));
    g_free(target);
    g_free(link);
}

static void test_same_as_input(void)
{
    clean_dir();
    char *in = in_dir("in.txt"), *sym = in_dir("sym.txt"), *hard = in_dir("hard.txt"),
         *other = in_dir("other.txt");
    CU_ASSERT_FATAL(g_file_set_contents(in, "input", -1, NULL));
    CU_ASSERT_FATAL(symlink(in, sym) == 0);
    CU_ASSERT_FATAL(link(in, hard) == 0);
    const char *outs[] = { in, sym, hard };
    for (size_t i = 0; i < G_N_ELEMENTS(outs); i++) {
        const char *inputs[] = { other, in, NULL };
        GError *e = NULL;
        CU_ASSERT_PTR_NULL(pmusim_outfile_open(outs[i], inputs, &e));
        CU_ASSERT(g_error_matches(e, PMUSIM_OUTFILE_ERROR, PMUSIM_OUTFILE_ERROR_SAME_INPUT));
        CU_ASSERT(e && strstr(e->message, "same file") && strstr(e->message, outs[i]));
        g_clear_error(&e);
        assert_contents(in, "input");
    }
    CU_ASSERT(pmusim_outfile_same_file(sym, hard));
    CU_ASSERT_FALSE(pmusim_outfile_same_file(in, other)); /* other does not exist */
    CU_ASSERT_EQUAL(dir_entries(), 3);                    /* no temporary file was made */
    /* an input that is a different file is fine */
    const char *inputs[] = { in, NULL };
    GError *e = NULL;
    pmusim_outfile_t *o = pmusim_outfile_open(other, inputs, &e);
    CU_ASSERT_PTR_NOT_NULL_FATAL(o);
    CU_ASSERT(pmusim_outfile_commit(o, &e));
    g_free(in);
    g_free(sym);
    g_free(hard);
    g_free(other);
}

static void test_streams_and_refusals(void)
{
    clean_dir();
    GError *e = NULL;
    /* a device is streamed; a failed write is reported at commit */
    pmusim_outfile_t *o = pmusim_outfile_open("/dev/null", NULL, &e);
    CU_ASSERT_PTR_NOT_NULL_FATAL(o);
    CU_ASSERT(pmusim_outfile_is_stream(o));
    fputs("x", pmusim_outfile_fp(o));
    CU_ASSERT(pmusim_outfile_commit(o, &e));
    if (g_file_test("/dev/full", G_FILE_TEST_EXISTS)) {
        o = pmusim_outfile_open("/dev/full", NULL, &e);
        CU_ASSERT_PTR_NOT_NULL_FATAL(o);
        fputs("x", pmusim_outfile_fp(o));
        CU_ASSERT_FALSE(pmusim_outfile_commit(o, &e));
        CU_ASSERT(g_error_matches(e, PMUSIM_OUTFILE_ERROR, PMUSIM_OUTFILE_ERROR_IO));
        CU_ASSERT(e && strstr(e->message, "/dev/full: write failed: "));
        g_clear_error(&e);
        /* abort of a device never removes it */
        o = pmusim_outfile_open("/dev/full", NULL, &e);
        pmusim_outfile_abort(o);
        CU_ASSERT(g_file_test("/dev/full", G_FILE_TEST_EXISTS));
    }
    /* a FIFO is streamed, and survives an abort */
    char *fifo = in_dir("fifo");
    CU_ASSERT_FATAL(mkfifo(fifo, 0600) == 0);
    int rfd = open(fifo, O_RDONLY | O_NONBLOCK); /* a reader, so that open() does not block */
    o = pmusim_outfile_open(fifo, NULL, &e);
    CU_ASSERT_PTR_NOT_NULL_FATAL(o);
    CU_ASSERT(pmusim_outfile_is_stream(o));
    fputs("through", pmusim_outfile_fp(o));
    pmusim_outfile_abort(o);
    char buf[16] = { 0 };
    CU_ASSERT_EQUAL(read(rfd, buf, sizeof buf), 7);
    close(rfd);
    struct stat st;
    CU_ASSERT(lstat(fifo, &st) == 0 && S_ISFIFO(st.st_mode));
    g_free(fifo);
    /* a directory, an empty name, a missing directory */
    CU_ASSERT_PTR_NULL(pmusim_outfile_open(dir, NULL, &e));
    CU_ASSERT(g_error_matches(e, PMUSIM_OUTFILE_ERROR, PMUSIM_OUTFILE_ERROR_TYPE));
    CU_ASSERT(e && strstr(e->message, "is a directory"));
    g_clear_error(&e);
    CU_ASSERT_PTR_NULL(pmusim_outfile_open("", NULL, &e));
    g_clear_error(&e);
    CU_ASSERT_PTR_NULL(pmusim_outfile_open("/nonexistent-dir/x", NULL, &e));
    CU_ASSERT(g_error_matches(e, PMUSIM_OUTFILE_ERROR, PMUSIM_OUTFILE_ERROR_IO));
    CU_ASSERT(e && strstr(e->message, "/nonexistent-dir/x: cannot create"));
    g_clear_error(&e);
}

/* A child writes, then is killed by each cleanup signal before committing:
 * it dies by that signal and leaves neither a temporary file nor output. */
static void test_signal_removes_tmp(void)
{
    static const int sigs[] = { SIGINT, SIGTERM, SIGHUP };
    for (size_t i = 0; i < G_N_ELEMENTS(sigs); i++) {
        clean_dir();
        char *out = in_dir("killed.txt");
        fflush(NULL);
        pid_t pid = fork();
        CU_ASSERT_FATAL(pid >= 0);
        if (pid == 0) {
            pmusim_outfile_t *o = pmusim_outfile_open(out, NULL, NULL);
            pmusim_outfile_t *o2 = pmusim_outfile_open("/dev/null", NULL, NULL);
            if (!o || !o2)
                _exit(3);
            fputs("partial", pmusim_outfile_fp(o));
            fflush(pmusim_outfile_fp(o));
            raise(sigs[i]);
            _exit(4); /* not reached */
        }
        int status = 0;
        CU_ASSERT(waitpid(pid, &status, 0) == pid);
        CU_ASSERT(WIFSIGNALED(status) && WTERMSIG(status) == sigs[i]);
        CU_ASSERT_EQUAL(dir_entries(), 0);
        g_free(out);
    }
}

/* The socket and directory of `trace capture --trace-children`, registered
 * with pmusim_outfile_cleanup_socket(): each cleanup signal removes both
 * (and the temporary output); forgotten again, they stay. */
static void test_signal_removes_socket(void)
{
    static const int sigs[] = { SIGINT, SIGTERM, SIGHUP };
    for (size_t i = 0; i <= G_N_ELEMENTS(sigs); i++) {
        clean_dir();
        char *sub = in_dir("sockdir"), *sock = g_build_filename(sub, "children", NULL);
        char *out = in_dir("killed.txt");
        fflush(NULL);
        pid_t pid = fork();
        CU_ASSERT_FATAL(pid >= 0);
        if (pid == 0) {
            if (mkdir(sub, 0700) != 0 || !g_file_set_contents(sock, "", 0, NULL))
                _exit(3);
            pmusim_outfile_cleanup_socket(sock, sub);
            pmusim_outfile_t *o = pmusim_outfile_open(out, NULL, NULL);
            if (!o)
                _exit(3);
            fputs("partial", pmusim_outfile_fp(o));
            fflush(pmusim_outfile_fp(o));
            if (i == G_N_ELEMENTS(sigs)) { /* forgotten: SIGTERM leaves them */
                pmusim_outfile_cleanup_socket(NULL, NULL);
                raise(SIGTERM);
            }
            raise(sigs[i]);
            _exit(4); /* not reached */
        }
        int status = 0;
        CU_ASSERT(waitpid(pid, &status, 0) == pid);
        CU_ASSERT(WIFSIGNALED(status));
        if (i < G_N_ELEMENTS(sigs)) {
            CU_ASSERT(WTERMSIG(status) == sigs[i]);
            CU_ASSERT_EQUAL(dir_entries(), 0);
        } else {
            CU_ASSERT(g_file_test(sock, G_FILE_TEST_EXISTS));
            unlink(sock);
            rmdir(sub);
            CU_ASSERT_EQUAL(dir_entries(), 0); /* the temporary output went anyway */
        }
        g_free(out);
        g_free(sock);
        g_free(sub);
    }
}

/* Outputs opened, written and committed from several threads at once, more
 * than 16 open at the same time (`trace capture --trace-children` writes a
 * trace per child, each on its own thread): every one lands whole, under
 * its own name, and no temporary file is left.  Before the slots were
 * claimed under a lock two threads could take the same one; before 1024
 * the 17th open output failed. */
#define MT_THREADS 8
#define MT_EACH 8 /* outputs per thread, all open before any commit: 64 at once */
static gpointer mt_main(gpointer p)
{
    guint t = GPOINTER_TO_UINT(p);
    pmusim_outfile_t *o[MT_EACH];
    gboolean ok = TRUE;
    for (guint k = 0; k < MT_EACH; k++) {
        char name[32];
        g_snprintf(name, sizeof name, "mt.%u.%u", t, k);
        char *out = in_dir(name);
        o[k] = pmusim_outfile_open(out, NULL, NULL);
        g_free(out);
        if (!o[k])
            ok = FALSE;
        else
            fprintf(pmusim_outfile_fp(o[k]), "thread %u output %u", t, k);
    }
    for (guint k = 0; k < MT_EACH; k++)
        if (o[k] && !pmusim_outfile_commit(o[k], NULL))
            ok = FALSE;
    return GINT_TO_POINTER(ok);
}

static void test_threads(void)
{
    clean_dir();
    GThread *th[MT_THREADS];
    for (guint t = 0; t < MT_THREADS; t++)
        th[t] = g_thread_new("outfile", mt_main, GUINT_TO_POINTER(t));
    for (guint t = 0; t < MT_THREADS; t++)
        CU_ASSERT_TRUE(GPOINTER_TO_INT(g_thread_join(th[t])));
    CU_ASSERT_EQUAL(dir_entries(), MT_THREADS * MT_EACH);
    for (guint t = 0; t < MT_THREADS; t++)
        for (guint k = 0; k < MT_EACH; k++) {
            char name[32], want[48];
            g_snprintf(name, sizeof name, "mt.%u.%u", t, k);
            g_snprintf(want, sizeof want, "thread %u output %u", t, k);
            char *out = in_dir(name);
            assert_contents(out, want);
            g_free(out);
        }
    clean_dir();
}

static void register_suites(void)
{
    /* the handler is installed only over default dispositions (outfile.h) */
    signal(SIGINT, SIG_DFL);
    signal(SIGTERM, SIG_DFL);
    signal(SIGHUP, SIG_DFL);
    dir = g_dir_make_tmp("pmusim-outfile-XXXXXX", NULL);
    CU_pSuite s = CU_add_suite("outfile", NULL, NULL);
    PMUSIM_ADD_TEST(s, test_commit_and_abort);
    PMUSIM_ADD_TEST(s, test_symlink_kept);
    PMUSIM_ADD_TEST(s, test_same_as_input);
    PMUSIM_ADD_TEST(s, test_streams_and_refusals);
    PMUSIM_ADD_TEST(s, test_signal_removes_tmp);
    PMUSIM_ADD_TEST(s, test_signal_removes_socket);
    PMUSIM_ADD_TEST(s, test_threads);
}
