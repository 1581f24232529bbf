/* Converter from Valgrind lackey's memory trace (`valgrind --tool=lackey
 * --trace-mem=yes`) to pmusim records.  Lackey prints one line per guest
 * instruction ("I  addr,size") followed by its data accesses (" L", " S",
 * " M" = modify, i.e. load then store).  An instruction is held back until
 * the next "I" line so that a non-sequential next IP can mark it as a taken
 * branch. */
#include "pmusim/tracegen.h"
#include "trace_priv.h"

#include <errno.h>
#include <inttypes.h>
#include <string.h>

#define LK_LATENCY 4 /* an L1D hit: lackey knows nothing about caches */

static gboolean lk_flush(pmusim_trace_writer_t *w, pmusim_rec_t *pend, gboolean *have,
                         GError **error)
{
    if (!*have)
        return TRUE;
    *have = FALSE;
    return pmusim_trace_writer_write(w, pend, 1, error);
}

gboolean pmusim_trace_convert_lackey(const char *path, pmusim_trace_writer_t *w,
                                     pmusim_lackey_stats_t *stats, GError **error)
{
    pmusim_lackey_stats_t st;
    memset(&st, 0, sizeof st);
    FILE *fp = strcmp(path, "-") == 0 ? stdin : fopen(path, "r");
    if (!fp) {
        g_set_error(error, PMUSIM_TRACE_ERROR, PMUSIM_TRACE_ERROR_IO, "%s: cannot open: %s", path,
                    g_strerror(errno));
        return FALSE;
    }
    char line[512];
    uint64_t line_no = 0, cycle = 0;
    pmusim_rec_t pend;
    gboolean have = FALSE, ok = TRUE;
    while (ok && fgets(line, sizeof line, fp)) {
        line_no++;
        size_t len = strlen(line);
        if (len == sizeof line - 1 && line[len - 1] != '\n') {
            g_set_error(error, PMUSIM_TRACE_ERROR, PMUSIM_TRACE_ERROR_LIMIT,
                        "%s: line %" PRIu64 ": longer than %zu bytes", path, line_no,
                        sizeof line - 2);
            ok = FALSE;
            break;
        }
        if (line[0] == '=' || line[0] == '\n' || line[0] == '\r' || line[0] == 0) {
            st.skipped_lines++;
            continue;
        }
        char op;
        uint64_t addr;
        unsigned size;
        int used = 0;
        if (sscanf(line, " %c %" SCNx64 ",%u%n", &op, &addr, &size, &used) != 3 ||
            (op != 'I' && op != 'L' && op != 'S' && op != 'M') ||
            (op == 'I') != (line[0] == 'I') || size == 0 || size > 255 ||
            strspn(line + used, " \t\r\n") != strlen(line + used)) {
            g_set_error(error, PMUSIM_TRACE_ERROR, PMUSIM_TRACE_ERROR_FORMAT,
                        "%s: line %" PRIu64 ": expected 'I  ADDR,SIZE' or ' L|S|M ADDR,SIZE' "
                        "(hex address, size 1..255)",
                        path, line_no);
            ok = FALSE;
            break;
        }
        if (op == 'I') {
            if (have) {
                uint64_t seq = pend.ip + pend.len;
                if (addr != seq) {
                    pend.flags |= PMUSIM_F_BRANCH;
                    pend.br.kind = PMUSIM_BR_IND; /* lackey does not say which kind */
                    pend.br.taken = 1;
                    pend.br.target = addr;
                    pend.br.dir_ok = pend.br.tgt_ok = 1;
                    st.branches++;
                }
                if (!(ok = lk_flush(w, &pend, &have, error)))
                    break;
            }
            memset(&pend, 0, sizeof pend);
            pend.kind = PMUSIM_REC_INSN;
            pend.cycle = cycle++;
            pend.ip = addr;
            pend.len = (uint8_t)size;
            pend.plm = 3;
            have = TRUE;
            st.instructions++;
            continue;
        }
        if (!have) {
            st.skipped_lines++; /* accesses before the first instruction */
            continue;
        }
        if (pend.flags & PMUSIM_F_MEM) {
            st.extra_accesses++;
            continue;
        }
        pend.flags |= PMUSIM_F_MEM;
        pend.mem.addr = addr;
        pend.mem.size = (uint8_t)size;
        pend.mem.is_store = op != 'L';
        pend.mem.level = PMUSIM_LVL_L1D;
        pend.mem.latency = LK_LATENCY;
        st.accesses++;
    }
    if (ok && ferror(fp)) {
        g_set_error(error, PMUSIM_TRACE_ERROR, PMUSIM_TRACE_ERROR_IO, "%s: read failed: %s", path,
                    g_strerror(errno));
        ok = FALSE;
    }
    if (ok)
        ok = lk_flush(w, &pend, &have, error);
    if (fp != stdin)
        fclose(fp);
    if (stats)
        *stats = st;
    return ok;
}
