/* The encoder/simulator boundary: an ordered list of register writes.
 *
 * The encoder's output is a list of these; the simulator's only input from
 * an encoder is a list of these.  The text form ("--regs" files) is specified
 * in docs/REGS.md:
 *
 *     # comment
 *     pmc4   0x1228        # CPU_CYCLES
 *     msr    0x186  0x43003c @1   # INST_RETIRED:ANY_P on thread 1
 *     IA32_PERFEVTSEL0 0x43003c
 *     @cycle 1000                  # the writes below apply before cycle 1000
 *     IA32_PERF_GLOBAL_CTRL 0
 */
#ifndef PMUSIM_REGS_H
#define PMUSIM_REGS_H

#include <stdint.h>
#include <stdio.h>
#include <glib.h>

G_BEGIN_DECLS

typedef enum pmusim_regspace {
    PMUSIM_REG_PMC = 0, /* IA-64 performance monitor configuration register */
    PMUSIM_REG_PMD = 1, /* IA-64 performance monitor data register */
    PMUSIM_REG_IBR = 2, /* IA-64 instruction breakpoint register (pairs 2n, 2n+1) */
    PMUSIM_REG_DBR = 3, /* IA-64 data breakpoint register */
    PMUSIM_REG_MSR = 4, /* x86 model-specific register, num = MSR address */
} pmusim_regspace_t;

#define PMUSIM_THREAD_ALL 0xffffu /* the write goes to every hardware thread */
#define PMUSIM_REG_LABEL_MAX 192

typedef struct pmusim_regwrite {
    pmusim_regspace_t space;
    uint32_t num;
    uint64_t value;
    uint32_t thread;                   /* PMUSIM_THREAD_ALL or a thread number */
    char label[PMUSIM_REG_LABEL_MAX];  /* optional: event the write programs ("" if none) */
    uint64_t at_cycle;                 /* 0: before the trace; N: before the records of cycle N
                                        * ("@cycle N" in the text form, docs/REGS.md) */
} pmusim_regwrite_t;

#define PMUSIM_REGS_ERROR (pmusim_regs_error_quark())
GQuark pmusim_regs_error_quark(void);
typedef enum { PMUSIM_REGS_ERROR_PARSE, PMUSIM_REGS_ERROR_IO } pmusim_regs_error_t;

/* A list is a GArray of pmusim_regwrite_t. */
GArray *pmusim_regs_new(void);
void pmusim_regs_add(GArray *regs, pmusim_regspace_t space, uint32_t num, uint64_t value,
                     uint32_t thread, const char *label);

/* Parse the text form; `name` is used in error messages ("FILE:LINE: ..."). */
gboolean pmusim_regs_parse(const char *text, gsize len, const char *name, GArray *out,
                           GError **error);
gboolean pmusim_regs_load(const char *path, GArray *out, GError **error);
/* Files that pmusim reads whole (register files, check files) are read with a
 * bound: at most `max` bytes, from a regular file, a FIFO or a character device
 * alike ("--regs /dev/zero" ends with an error, not with all memory).  The
 * text is NUL-terminated; errors name the file (PMUSIM_REGS_ERROR_IO). */
#define PMUSIM_REGS_MAX_FILE (16u << 20) /* 16 MiB: about 300,000 writes */
gboolean pmusim_read_file_bounded(const char *path, gsize max, char **text, gsize *len,
                                  GError **error);
/* Print in the text form that pmusim_regs_parse() reads back. */
void pmusim_regs_print(const GArray *regs, FILE *fp);
const char *pmusim_regspace_name(pmusim_regspace_t s); /* "pmc", "pmd", "ibr", "dbr", "msr" */
/* Symbolic name of a known x86 MSR ("IA32_PERFEVTSEL0") or NULL. */
const char *pmusim_msr_name(uint32_t addr);

G_END_DECLS
#endif
