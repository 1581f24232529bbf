/* Golden test of the sample traces: one CUnit test per manifest row checks
 * the hand-derived counts, on the text sample and on its binary conversion.
 * PMUSIM_REGEN=1 prints the computed rows instead (never run by CI). */
#include "cu_main.h"
#include "pmusim/trace.h"

#include <glib/gstdio.h>
#include <inttypes.h>
#include <string.h>
#include <unistd.h>

typedef struct row {
    char *sample;
    char **kv; /* key=value strings */
    unsigned line;
} row_t;

static GPtrArray *rows;
static unsigned next_row;

/* Computes the counts of one trace as key -> value. */
static GHashTable *count_trace(const char *path)
{
    GError *e = NULL;
    pmusim_trace_reader_t *r = pmusim_trace_reader_open(path, &e);
    if (!r) {
        fprintf(stderr, "%s\n", e->message);
        g_error_free(e);
        return NULL;
    }
    GHashTable *c = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
#define ADD(key, v)                                                                      \
    do {                                                                                 \
        gpointer old_ = g_hash_table_lookup(c, key);                                     \
        g_hash_table_insert(c, g_strdup(key), GSIZE_TO_POINTER(GPOINTER_TO_SIZE(old_) + (v))); \
    } while (0)
    static const char *const zero_keys[] = { "records", "cycles", "idle", "br", "taken",
                                             "mispred", "offcore", "events", "markers",
                                             "thread", "symbols" };
    for (unsigned i = 0; i < G_N_ELEMENTS(zero_keys); i++)
        ADD(zero_keys[i], 0);
    pmusim_rec_t recs[32];
    gssize n;
    uint64_t end = 0;
    char key[32];
    while ((n = pmusim_trace_reader_next_batch(r, recs, 32, &e)) > 0) {
        for (gssize i = 0; i < n; i++) {
            const pmusim_rec_t *x = &recs[i];
            ADD("records", 1);
            uint64_t xe = x->cycle + (x->kind == PMUSIM_REC_IDLE ? x->n : 1);
            if (xe > end)
                end = xe;
            switch (x->kind) {
            case PMUSIM_REC_INSN:
                g_snprintf(key, sizeof key, "insn.t%u", x->thread);
                ADD(key, 1);
                if (x->flags & PMUSIM_F_MEM) {
                    g_snprintf(key, sizeof key, "%s.%s", x->mem.is_store ? "st" : "ld",
                               pmusim_mem_level_name(x->mem.level));
                    ADD(key, 1);
                }
                if (x->flags & PMUSIM_F_BRANCH) {
                    ADD("br", 1);
                    ADD("taken", x->br.taken);
                    ADD("mispred", !x->br.dir_ok || !x->br.tgt_ok);
                }
                ADD("offcore", (x->flags & PMUSIM_F_OFFCORE) != 0);
                break;
            case PMUSIM_REC_IDLE: ADD("idle", x->n); break;
            case PMUSIM_REC_EVENT: ADD("events", 1); break;
            case PMUSIM_REC_MARKER: ADD("markers", 1); break;
            case PMUSIM_REC_THREAD: ADD("thread", 1); break;
            default: break;
            }
        }
    }
    if (n < 0) {
        fprintf(stderr, "%s\n", e->message);
        g_error_free(e);
        g_hash_table_destroy(c);
        pmusim_trace_reader_free(r);
        return NULL;
    }
    ADD("cycles", end);
    ADD("symbols", pmusim_trace_reader_symbols(r)->len);
    pmusim_trace_reader_free(r);
    return c;
}

/* Converts a text trace to binary in a temporary file. */
static char *to_binary(const char *path)
{
    char *out = NULL;
    int fd = g_file_open_tmp("pmusim-golden-XXXXXX", &out, NULL);
    if (fd < 0)
        return NULL;
    close(fd);
    GError *e = NULL;
    pmusim_trace_reader_t *r = pmusim_trace_reader_open(path, &e);
    pmusim_trace_writer_t *w =
        r ? pmusim_trace_writer_open(out, PMUSIM_TRACE_BINARY, pmusim_trace_reader_header(r), &e)
          : NULL;
    gboolean ok = w != NULL;
    pmusim_rec_t recs[32];
    gssize n;
    guint nsym = 0;
    while (ok && (n = pmusim_trace_reader_next_batch(r, recs, 32, &e)) >= 0) {
        const GArray *s = pmusim_trace_reader_symbols(r);
        for (; ok && nsym < s->len; nsym++) {
            const pmusim_symbol_t *y = &g_array_index(s, pmusim_symbol_t, nsym);
            ok = pmusim_trace_writer_add_symbol(w, y->start, y->end, y->name, &e);
        }
        if (n == 0)
            break;
        ok = ok && pmusim_trace_writer_write(w, recs, (size_t)n, &e);
    }
    if (w)
        ok = pmusim_trace_writer_close(w, ok ? &e : NULL) && ok;
    pmusim_trace_reader_free(r);
    if (!ok) {
        fprintf(stderr, "conversion failed: %s\n", e ? e->message : "?");
        g_clear_error(&e);
        g_unlink(out);
        g_free(out);
        return NULL;
    }
    return out;
}

static void check_counts(const row_t *row, GHashTable *c, const char *form)
{
    CU_ASSERT_PTR_NOT_NULL_FATAL(c);
    for (char **kv = row->kv; *kv; kv++) {
        char *eq = strchr(*kv, '=');
        CU_ASSERT_PTR_NOT_NULL_FATAL(eq);
        char *key = g_strndup(*kv, (gsize)(eq - *kv));
        uint64_t want = g_ascii_strtoull(eq + 1, NULL, 10);
        uint64_t got = GPOINTER_TO_SIZE(g_hash_table_lookup(c, key));
        if (got != want) {
            fprintf(stderr, "\nmanifest line %u (%s, %s): %s = %" PRIu64 ", expected %" PRIu64 "\n",
                    row->line, row->sample, form, key, got, want);
            CU_FAIL("count differs from the manifest");
        }
        g_free(key);
    }
}

static void test_row(void)
{
    const row_t *row = g_ptr_array_index(rows, next_row++);
    char *path = g_build_filename(PMUSIM_SAMPLES_DIR, row->sample, NULL);
    GHashTable *c = count_trace(path);
    check_counts(row, c, "text");
    char *bin = to_binary(path);
    CU_ASSERT_PTR_NOT_NULL_FATAL(bin);
    GHashTable *cb = count_trace(bin);
    check_counts(row, cb, "binary");
    if (c)
        g_hash_table_destroy(c);
    if (cb)
        g_hash_table_destroy(cb);
    g_unlink(bin);
    g_free(bin);
    g_free(path);
}

static void regen(void)
{
    for (guint i = 0; i < rows->len; i++) {
        const row_t *row = g_ptr_array_index(rows, i);
        char *path = g_build_filename(PMUSIM_SAMPLES_DIR, row->sample, NULL);
        GHashTable *c = count_trace(path);
        printf("%s", row->sample);
        GList *keys = g_list_sort(g_hash_table_get_keys(c), (GCompareFunc)strcmp);
        for (GList *k = keys; k; k = k->next)
            printf(" %s=%zu", (char *)k->data, GPOINTER_TO_SIZE(g_hash_table_lookup(c, k->data)));
        printf("\n");
        g_list_free(keys);
        g_hash_table_destroy(c);
        g_free(path);
    }
}

static void register_suites(void)
{
    rows = g_ptr_array_new();
    gchar *text = NULL;
    if (!g_file_get_contents(PMUSIM_GOLDEN_MANIFEST, &text, NULL, NULL)) {
        fprintf(stderr, "cannot read %s\n", PMUSIM_GOLDEN_MANIFEST);
        return;
    }
    char **lines = g_strsplit(text, "\n", -1);
    for (unsigned i = 0; lines[i]; i++) {
        char *l = g_strstrip(lines[i]);
        if (!*l || *l == '#')
            continue;
        char **f = g_strsplit_set(l, " \t", -1);
        row_t *row = g_new0(row_t, 1);
        row->sample = g_strdup(f[0]);
        row->kv = g_strdupv(f + 1);
        row->line = i + 1;
        g_strfreev(f);
        g_ptr_array_add(rows, row);
    }
    g_strfreev(lines);
    g_free(text);
    if (g_getenv("PMUSIM_REGEN")) {
        regen();
        return;
    }
    CU_pSuite s = CU_add_suite("trace-golden", NULL, NULL);
    for (guint i = 0; i < rows->len; i++)
        CU_add_test(s, ((row_t *)g_ptr_array_index(rows, i))->sample, test_row);
}
