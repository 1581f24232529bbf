/* perf.data: the file `perf record` writes and `perf report`, `perf script`
 * and `perf mem report` read, written from pmusim samples and read back by
 * `pmusim report` and `pmusim script`.
 *
 * Only the parts of the format pmusim needs (docs/SAMPLING.md "perf.data"):
 * the file header, one attribute per event with its sample id, the data
 * section with PERF_RECORD_COMM, PERF_RECORD_MMAP and PERF_RECORD_SAMPLE
 * (sample_type IDENTIFIER | IP | TID | TIME | ADDR | PERIOD | WEIGHT |
 * DATA_SRC, plus BRANCH_STACK when samples carry branches; sample_id_all),
 * and the EVENT_DESC feature that names the events.  The layouts are the
 * kernel's ABI (include/uapi/linux/perf_event.h)
 * and perf's file format (tools/perf/Documentation/perf.data-file-format.txt).
 * pmusim's ground truth travels in one private feature section that perf
 * skips (PD_FEAT_PMUSIM_TRUTH).
 */
#ifndef PMUSIM_PERFDATA_H
#define PMUSIM_PERFDATA_H

#include <stdint.h>
#include <glib.h>

#define PD_ERROR (pd_error_quark())
GQuark pd_error_quark(void);
typedef enum {
    PD_ERROR_IO,     /* open / read / write failed */
    PD_ERROR_FORMAT, /* not a perf.data file pmusim can read (names the offset) */
} pd_error_t;

/* perf_event_attr.type values (perf_event.h) */
enum { PD_TYPE_HARDWARE = 0, PD_TYPE_RAW = 4 };

/* One event of the file: an attribute and its id. */
typedef struct pd_event {
    char name[256];        /* EVENT_DESC name */
    uint32_t type;         /* PD_TYPE_* */
    uint64_t config;
    uint64_t period;       /* sample_period, or sample_freq when freq */
    gboolean freq;
    uint8_t precise;       /* attr.precise_ip */
    uint64_t id;
} pd_event_t;

/* One entry of a sample's branch stack (struct perf_branch_entry). */
typedef struct pd_branch {
    uint64_t from, to;
    uint64_t flags; /* PD_BRANCH_* */
} pd_branch_t;
#define PD_BRANCH_MISPRED UINT64_C(1)   /* perf_branch_entry.mispred */
#define PD_BRANCH_PREDICTED UINT64_C(2) /* perf_branch_entry.predicted */
/* At most this many entries per sample (Montecito's ETB holds 8 pairs). */
#define PD_MAX_BRANCHES 16u

/* One PERF_RECORD_SAMPLE. */
typedef struct pd_sample {
    uint64_t id, ip, time, addr, period, weight, data_src;
    uint32_t pid, tid;
    uint16_t misc;
    uint32_t nbranches, branch0; /* its entries in pd_file_t.branches */
} pd_sample_t;

/* One PERF_RECORD_MMAP. */
typedef struct pd_mmap {
    uint32_t pid, tid;
    uint64_t start, len, pgoff;
    char *filename;
} pd_mmap_t;

/* One PERF_RECORD_COMM. */
typedef struct pd_comm {
    uint32_t pid, tid;
    char *comm;
} pd_comm_t;

/* A whole file in memory: what the writer writes and the reader fills. */
typedef struct pd_file {
    GArray *events;  /* pd_event_t */
    GArray *samples; /* pd_sample_t */
    GArray *mmaps;   /* pd_mmap_t (filename owned) */
    GArray *comms;   /* pd_comm_t (comm owned) */
    GString *truth;  /* pmusim ground truth, "EVENT\tSYMBOL\tCOUNT\n" lines; may be empty */
    GArray *branches; /* pd_branch_t of the samples */
    gboolean branch_stack; /* samples carry PERF_SAMPLE_BRANCH_STACK */
} pd_file_t;

void pd_file_init(pd_file_t *f);
void pd_file_clear(pd_file_t *f);
void pd_file_add_mmap(pd_file_t *f, uint32_t pid, uint32_t tid, uint64_t start, uint64_t len,
                      uint64_t pgoff, const char *filename);
void pd_file_add_comm(pd_file_t *f, uint32_t pid, uint32_t tid, const char *comm);
/* Appends s, with its n branch entries (at most PD_MAX_BRANCHES; n > 0 sets
 * branch_stack). */
void pd_file_add_sample(pd_file_t *f, const pd_sample_t *s, const pd_branch_t *br, size_t n);

/* Serialises f; events need distinct ids. */
GBytes *pd_file_serialise(const pd_file_t *f);
/* Parses a perf.data image (`name` in messages). */
gboolean pd_file_parse(pd_file_t *f, const uint8_t *data, size_t len, const char *name,
                       GError **error);
/* Reads a perf.data file whole (at most PD_MAX_FILE bytes). */
#define PD_MAX_FILE (UINT64_C(1) << 32)
gboolean pd_file_read(pd_file_t *f, const char *path, GError **error);

/* perf's data_src word (union perf_mem_data_src) for an access served by
 * pmusim level `level` (PMUSIM_LVL_COUNT: unknown), a load or a store,
 * with TLB outcome `tlb` (0xff: unknown). */
uint64_t pd_data_src(unsigned level, gboolean store, unsigned tlb);
/* data_src of a sample that is no memory access (PERF_MEM_NA: op, level,
 * snoop, lock and TLB "not available"). */
#define PD_DATA_SRC_NA                                                                   \
    (UINT64_C(1) | UINT64_C(1) << 5 | UINT64_C(1) << 19 | UINT64_C(1) << 24 |          \
     UINT64_C(1) << 26)
/* "L1 hit", "Local RAM hit", "N/A" ... for pmusim script. */
void pd_data_src_text(uint64_t data_src, char *buf, size_t len);

/* "+12.50%": the relative error of an estimate against the exact count
 * ("n/a" when the exact count is 0 and the estimate is not). */
void pd_error_text(uint64_t estimate, uint64_t exact, char *buf, size_t len);

/* ---- reading helpers (pmusim report / script) ---- */

/* A symbol table: the trace's (pmusim record) or the one record stores in
 * its truth section (pmusim report / script).  Ranges may nest. */
typedef struct pd_symbol {
    uint64_t start, end; /* [start, end) */
    char *name;
    uint64_t maxend;     /* the largest end of this and every earlier entry */
} pd_symbol_t;
typedef struct pd_symbols {
    GArray *syms; /* of pd_symbol_t, sorted by start once pd_symbols_finish() ran */
} pd_symbols_t;
void pd_symbols_init(pd_symbols_t *s);
void pd_symbols_add(pd_symbols_t *s, uint64_t start, uint64_t end, const char *name);
/* Sorts the table; call after the last add, before any lookup. */
void pd_symbols_finish(pd_symbols_t *s);
/* init + the truth section's symbols + finish. */
void pd_symbols_load(pd_symbols_t *s, const pd_file_t *f);
void pd_symbols_clear(pd_symbols_t *s);
/* The innermost symbol holding ip (the latest start at or below it whose
 * range contains it, at any nesting depth), or NULL. */
const pd_symbol_t *pd_symbol_find(const pd_symbols_t *s, uint64_t ip);
/* "name+0xoff" or "[unknown]". */
void pd_symbol_text(const pd_symbols_t *s, uint64_t ip, char *buf, size_t len);
/* EVENT_DESC name of the event with this id ("?" when none). */
const char *pd_event_name(const pd_file_t *f, uint64_t id);
/* The thread's last COMM ("?" when none). */
const char *pd_comm_of(const pd_file_t *f, uint32_t tid);

#endif
