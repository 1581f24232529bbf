/* Runs the fuzz target over every file of the corpus directories given as
 * arguments, plus deterministic mutations of each (truncations and byte
 * flips), as an ordinary test: without libFuzzer this is the regression
 * check that committed crash cases stay fixed. */
#include <glib.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static unsigned run_file(const char *path)
{
    gchar *data = NULL;
    gsize len = 0;
    if (!g_file_get_contents(path, &data, &len, NULL)) {
        fprintf(stderr, "cannot read %s\n", path);
        return 0;
    }
    unsigned runs = 0;
    LLVMFuzzerTestOneInput((const uint8_t *)data, len);
    runs++;
    uint8_t *m = g_malloc(len + 1);
    for (unsigned k = 1; k <= 16 && len > 1; k++, runs++) /* truncations */
        LLVMFuzzerTestOneInput((const uint8_t *)data, len * k / 17);
    uint32_t seed = 12345;
    for (unsigned k = 0; k < 64 && len > 0; k++, runs++) { /* 1-3 random byte changes */
        memcpy(m, data, len);
        for (unsigned j = 0; j <= k % 3; j++) {
            seed = seed * 1103515245u + 12345u;
            m[(seed >> 8) % len] ^= (uint8_t)(1u << ((seed >> 4) & 7)) | (uint8_t)(k & 0xf0);
        }
        LLVMFuzzerTestOneInput(m, len);
    }
    g_free(m);
    g_free(data);
    return runs;
}

int main(int argc, char **argv)
{
    unsigned files = 0, runs = 0;
    for (int i = 1; i < argc; i++) {
        GDir *d = g_dir_open(argv[i], 0, NULL);
        if (!d) {
            fprintf(stderr, "cannot open corpus directory %s\n", argv[i]);
            return 1;
        }
        const char *name;
        while ((name = g_dir_read_name(d))) {
            char *path = g_build_filename(argv[i], name, NULL);
            if (g_file_test(path, G_FILE_TEST_IS_REGULAR)) {
                runs += run_file(path);
                files++;
            }
            g_free(path);
        }
        g_dir_close(d);
    }
    if (files == 0) {
        fprintf(stderr, "empty corpus\n");
        return 1;
    }
    printf("fuzz replay: %u corpus files, %u inputs\n%u passed, 0 failed\n", files, runs, runs);
    return 0;
}
