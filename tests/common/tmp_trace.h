/* A binary trace written to a temporary file and read back as bytes, for
 * the unit tests that feed the readers from memory (test_feed.c,
 * test_feed_tmpl.c). */
#ifndef PMUSIM_TEST_TMP_TRACE_H
#define PMUSIM_TEST_TMP_TRACE_H

#include "pmusim/trace.h"

#include <CUnit/CUnit.h>
#include <glib.h>
#include <glib/gstdio.h>
#include <unistd.h>

/* A binary trace writer on a new temporary file, its path in *path. */
static inline pmusim_trace_writer_t *tmp_writer(const pmusim_trace_header_t *h, char **path)
{
    int fd = g_file_open_tmp("pmusim-feed-XXXXXX", path, NULL);
    CU_ASSERT_FATAL(fd >= 0);
    close(fd);
    GError *e = NULL;
    pmusim_trace_writer_t *w = pmusim_trace_writer_open(*path, PMUSIM_TRACE_BINARY, h, &e);
    CU_ASSERT_PTR_NOT_NULL_FATAL(w);
    return w;
}

/* Closes w and returns its file's bytes; the file is removed. */
static inline GBytes *close_to_bytes(pmusim_trace_writer_t *w, char *path)
{
    GError *e = NULL;
    CU_ASSERT_FATAL(pmusim_trace_writer_close(w, &e));
    gchar *data;
    gsize len;
    CU_ASSERT_FATAL(g_file_get_contents(path, &data, &len, NULL));
    g_unlink(path);
    g_free(path);
    return g_bytes_new_take(data, len);
}

#endif
