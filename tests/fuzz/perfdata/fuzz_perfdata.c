/* Fuzz target for the perf.data reader (pmusim report / script): any bytes
 * must give a parsed file or a clean GError, never a crash, hang or
 * unbounded allocation; what parses is then looked up as report and script
 * do. */
#include "../../../sim/perfdata/perfdata.h"

#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    pd_file_t f;
    pd_file_init(&f);
    GError *error = NULL;
    if (pd_file_parse(&f, data, size, "fuzz", &error)) {
        pd_symbols_t syms = {0};
        pd_symbols_load(&syms, &f);
        for (guint i = 0; i < f.samples->len && i < 4096; i++) {
            const pd_sample_t *s = &g_array_index(f.samples, pd_sample_t, i);
            char buf[128];
            pd_symbol_text(&syms, s->ip, buf, sizeof buf);
            pd_data_src_text(s->data_src, buf, sizeof buf);
            (void)pd_event_name(&f, s->id);
            (void)pd_comm_of(&f, s->tid);
        }
        pd_symbols_clear(&syms);
    }
    g_clear_error(&error);
    pd_file_clear(&f);
    return 0;
}
