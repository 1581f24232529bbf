/* Fuzz target for golden files (`pmusim check FILE`): any bytes, read as a
 * check file, must give ok/FAIL lines or a clean error, never a crash, a
 * hang or unbounded memory.  The input is written to a scratch directory
 * that also holds the sample traces and register files under short names
 * (wsm_loop.txt, ita2_loop.txt, mont_2threads.txt, knm_offcore.txt,
 * wsm_slice.regs, ita2_slice.regs), so that cases can name them with
 * `trace=` and `regs=` as real golden files do; the command runs as it does
 * from the shell, through pmusim_cmd_check().
 *
 * The traces keep their sample names but are written there in the binary
 * form (the reader tells the forms apart by their first bytes, not by the
 * name): parsing the text samples took over half of every execution, and
 * the text parser has its own target (fuzz-trace), so here the time goes to
 * the check file's parser and the command. */
#include "cmds.h"
#include "pmusim/trace.h"

#include <glib.h>
#include <glib/gstdio.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char *scratch;

/* the scratch directory goes when the process ends */
static void cleanup(void)
{
    GDir *d = scratch ? g_dir_open(scratch, 0, NULL) : NULL;
    if (!d)
        return;
    const char *name;
    while ((name = g_dir_read_name(d))) {
        char *p = g_build_filename(scratch, name, NULL);
        g_unlink(p);
        g_free(p);
    }
    g_dir_close(d);
    g_rmdir(scratch);
}

/* Writes the trace at `from` to `to` in the binary form, records and
 * symbols as they are; aborts on any failure (the samples are valid). */
static void copy_binary(const char *from, const char *to)
{
    GError *e = NULL;
    pmusim_trace_reader_t *r = pmusim_trace_reader_open(from, &e);
    if (!r)
        abort();
    pmusim_trace_writer_t *w =
        pmusim_trace_writer_open(to, PMUSIM_TRACE_BINARY, pmusim_trace_reader_header(r), &e);
    if (!w)
        abort();
    pmusim_rec_t recs[256];
    gssize n;
    while ((n = pmusim_trace_reader_next_batch(r, recs, G_N_ELEMENTS(recs), &e)) > 0)
        if (!pmusim_trace_writer_write(w, recs, (size_t)n, &e))
            abort();
    if (n < 0)
        abort();
    const GArray *syms = pmusim_trace_reader_symbols(r);
    for (guint i = 0; i < syms->len; i++) {
        const pmusim_symbol_t *s = &g_array_index(syms, pmusim_symbol_t, i);
        if (!pmusim_trace_writer_add_symbol(w, s->start, s->end, s->name, &e))
            abort();
    }
    if (!pmusim_trace_writer_close(w, &e))
        abort();
    pmusim_trace_reader_free(r);
}

static void setup(void)
{
    const char *base = g_file_test("/dev/shm", G_FILE_TEST_IS_DIR) ? "/dev/shm" : g_get_tmp_dir();
    char *tmpl = g_build_filename(base, "pmusim-fuzz-check-XXXXXX", NULL);
    scratch = g_mkdtemp(tmpl);
    if (!scratch)
        abort();
    atexit(cleanup);
    static const char *const files[] = {
        "traces/samples/wsm_loop.txt",         "traces/samples/ita2_loop.txt",
        "traces/samples/mont_2threads.txt",    "traces/samples/knm_offcore.txt",
        "traces/samples/knm_latency.txt",
        "tests/golden/core/check/wsm_slice.regs", "tests/golden/core/check/ita2_slice.regs",
        "tests/golden/core/check/wsm_overflow.regs", "tests/golden/core/check/ita2_overflow.regs"};
    for (size_t i = 0; i < G_N_ELEMENTS(files); i++) {
        char *from = g_build_filename(PMUSIM_SOURCE_ROOT, files[i], NULL);
        char *base_name = g_path_get_basename(files[i]);
        char *to = g_build_filename(scratch, base_name, NULL);
        if (g_str_has_suffix(from, ".txt"))
            copy_binary(from, to);
        else if (symlink(from, to) != 0 && !g_file_test(to, G_FILE_TEST_EXISTS))
            abort();
        g_free(from);
        g_free(base_name);
        g_free(to);
    }
    /* the command's ok/FAIL lines are not the point: keep stdout quiet */
    int null = open("/dev/null", O_WRONLY);
    if (null >= 0) {
        dup2(null, STDOUT_FILENO);
        close(null);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!scratch)
        setup();
    char *path = g_build_filename(scratch, "case.ini", NULL);
    if (!g_file_set_contents(path, (const char *)data, (gssize)size, NULL))
        abort();
    char *argv[] = {(char *)"check", path, NULL};
    pmusim_cmd_check(2, argv);
    fflush(stdout);
    g_unlink(path);
    g_free(path);
    return 0;
}
