/* Fuzz target for the trace reader: any bytes, binary or text, must give
 * records or a clean GError, never a crash, hang or unbounded allocation.
 * Whatever it reads must also survive a round trip: written back in both
 * forms and read again, the records are identical (the one canonical form,
 * traces/FORMAT.md §3); a difference aborts, which the fuzzer reports. */
#include "pmusim/trace.h"
#include "raw_stream.h"
#include "rec_equal.h"

#include <glib/gstdio.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* round trips cost two file writes and reads: only for inputs of at most
 * this many records, and for one input in ROUNDTRIP_EVERY (chosen by a hash
 * of the input, so a reproducer always takes the same path) */
#define ROUNDTRIP_MAX 4096
#define ROUNDTRIP_EVERY 16u

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);


static char *dir;

/* the scratch directory goes when the process ends */
static void remove_scratch(void)
{
    GDir *d = dir ? g_dir_open(dir, 0, NULL) : NULL;
    if (!d)
        return;
    const char *name;
    while ((name = g_dir_read_name(d))) {
        char *p = g_build_filename(dir, name, NULL);
        g_unlink(p);
        g_free(p);
    }
    g_dir_close(d);
    g_rmdir(dir);
}

static const char *scratch_dir(void)
{
    if (!dir) {
        /* tmpfs where there is one: the writer fsync()s before renaming */
        const char *base = g_file_test("/dev/shm", G_FILE_TEST_IS_DIR) ? "/dev/shm" : NULL;
        char *tmpl = g_build_filename(base ? base : g_get_tmp_dir(), "pmusim-fuzz-XXXXXX", NULL);
        dir = g_mkdtemp(tmpl);
        if (!dir)
            abort();
        atexit(remove_scratch);
    }
    return dir;
}

/* Writes recs in `form`, reads them back and aborts on any difference. */
static void roundtrip(const pmusim_trace_header_t *h, const pmusim_rec_t *recs, size_t n,
                      pmusim_trace_form_t form)
{
    char *path = g_build_filename(scratch_dir(), form == PMUSIM_TRACE_TEXT ? "rt.txt" : "rt.bin",
                                  NULL);
    GError *e = NULL;
    pmusim_trace_writer_t *w = pmusim_trace_writer_open(path, form, h, &e);
    if (!w || !pmusim_trace_writer_write(w, recs, n, &e) || !pmusim_trace_writer_close(w, &e)) {
        fprintf(stderr, "round trip: the writer refused what the reader gave: %s\n",
                e ? e->message : "?");
        abort();
    }
    pmusim_trace_reader_t *r =
        pmusim_trace_reader_open_ex(path, PMUSIM_TRACE_OPEN_STRICT | PMUSIM_TRACE_OPEN_QUIET, &e);
    pmusim_rec_t *back = g_new(pmusim_rec_t, n + 1);
    gssize got = 0, k;
    while (r && (k = pmusim_trace_reader_next_batch(r, back + got, n + 1 - (size_t)got, &e)) > 0)
        got += k;
    if (!r || e || (size_t)got != n) {
        fprintf(stderr, "round trip (%s): %s, %zd of %zu records\n",
                form == PMUSIM_TRACE_TEXT ? "text" : "binary", e ? e->message : "", got, n);
        abort();
    }
    for (size_t i = 0; i < n; i++)
        if (!pmusim_test_rec_equal(&recs[i], &back[i])) {
            fprintf(stderr, "round trip (%s): record %zu differs\n",
                    form == PMUSIM_TRACE_TEXT ? "text" : "binary", i);
            abort();
        }
    g_free(back);
    pmusim_trace_reader_free(r);
    g_unlink(path);
    g_free(path);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    GError *error = NULL;
    void *packed;
    if (!fuzz_unpack_raw(&data, &size, &packed))
        return 0;
    pmusim_trace_reader_t *r =
        pmusim_trace_reader_open_memory_ex(data, size, "fuzz", PMUSIM_TRACE_OPEN_QUIET, &error);
    if (!r) {
        g_clear_error(&error);
        g_free(packed);
        return 0;
    }
    const pmusim_trace_header_t *h = pmusim_trace_reader_header(r);
    uint64_t sum = h->nthreads;
    size_t cap = 64, len = 0;
    pmusim_rec_t *all = g_new(pmusim_rec_t, cap);
    gssize n;
    while ((n = pmusim_trace_reader_next_batch(r, all + len, 64, &error)) > 0) {
        for (gssize i = 0; i < n; i++) {
            const pmusim_rec_t *x = &all[len + (size_t)i];
            sum += x->cycle + x->thread;
            if (x->kind == PMUSIM_REC_MARKER)
                sum += (uint8_t)x->name[0]; /* names must be valid */
        }
        len += (size_t)n;
        if (len > ROUNDTRIP_MAX)
            len = 0; /* keep reading in constant memory; no round trip */
        if (len + 64 > cap) {
            cap *= 2;
            all = g_renew(pmusim_rec_t, all, cap);
        }
    }
    gboolean whole = n == 0 && pmusim_trace_reader_records_read(r) == len;
    g_clear_error(&error);
    const GArray *syms = pmusim_trace_reader_symbols(r);
    for (guint i = 0; i < syms->len; i++)
        sum += (uint8_t)g_array_index(syms, pmusim_symbol_t, i).name[0];
    guint hash = 2166136261u; /* FNV-1a */
    for (size_t i = 0; i < size; i++)
        hash = (hash ^ data[i]) * 16777619u;
    if (whole && hash % ROUNDTRIP_EVERY == 0) {
        roundtrip(h, all, len, PMUSIM_TRACE_BINARY);
        roundtrip(h, all, len, PMUSIM_TRACE_TEXT);
    }
    g_free(all);
    pmusim_trace_reader_free(r);
    g_free(packed);
    return sum == UINT64_MAX; /* keeps the reads alive; always 0 in practice */
}
