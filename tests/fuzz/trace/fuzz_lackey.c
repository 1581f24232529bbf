/* Fuzz target for the Valgrind lackey converter (traces/lackey.c): any bytes
 * must convert or fail with a GError naming the line, never crash, hang or
 * grow memory; what converts must be a valid trace (the writer checks every
 * record, MEM records included). */
#include "pmusim/trace.h"
#include "pmusim/tracegen.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0)
        return 0;
    FILE *fp = fmemopen((void *)data, size, "rb");
    if (!fp)
        abort();
    pmusim_trace_header_t h;
    pmusim_trace_header_init(&h, PMUSIM_CPU_WSM, 1);
    GError *e = NULL;
    pmusim_trace_writer_t *w = pmusim_trace_writer_open("/dev/null", PMUSIM_TRACE_TEXT, &h, &e);
    pmusim_trace_header_clear(&h);
    if (!w)
        abort();
    pmusim_lackey_stats_t st;
    gboolean ok = pmusim_trace_convert_lackey_fp(fp, "fuzz.log", w, &st, &e);
    fclose(fp);
    if (!ok) {
        /* a refusal names the file and a line */
        if (!e || !g_str_has_prefix(e->message, "fuzz.log: ") ||
            !g_strstr_len(e->message, -1, "line "))
            abort();
        g_clear_error(&e);
        pmusim_trace_writer_abort(w);
        return 0;
    }
    /* every access is kept: the INSN holds one, MEM records the others */
    if (st.extra_accesses > st.accesses ||
        pmusim_trace_writer_records_written(w) != st.instructions + st.extra_accesses)
        abort();
    if (!pmusim_trace_writer_close(w, &e))
        abort();
    return 0;
}
