/* pmusim wave's writers: the text table, the VCD file with its GTKWave save
 * file, and the SVG timing diagram.  Rows arrive one cycle at a time in
 * cycle order; text and VCD stream, the SVG keeps its (bounded) window. */
#ifndef PMUSIM_CLI_WAVE_OUT_H
#define PMUSIM_CLI_WAVE_OUT_H

#include <glib.h>
#include <stdint.h>
#include <stdio.h>
#include "pmusim/sim.h"

/* One counter shown in the wave. */
typedef struct wave_sig {
    char reg[24];                     /* data register: "PMD4", "IA32_PMC0" */
    char event[PMUSIM_REG_LABEL_MAX]; /* canonical label of its programming */
    char label[PMUSIM_REG_LABEL_MAX]; /* short label: no pmu:: prefix, no default modifiers */
    uint32_t thread;
    guint index;                      /* index among the model's report counters (probe index) */
} wave_sig_t;

typedef struct wave_out_opts {
    FILE *text;            /* the table (stdout) */
    const char *vcd_path;  /* NULL: none */
    const char *gtkw_path; /* NULL: none (needs vcd_path) */
    const char *svg_path;  /* NULL: none */
    const char *trace;     /* for titles */
    const char *const *inputs; /* files read (NULL-terminated), that no output may
                                * replace: wave_out_open() only */
    const char *pmu;
    gboolean threads;      /* more than one hardware thread: name threads */
    uint64_t from, ncycles;
} wave_out_opts_t;

typedef struct wave_out wave_out_t;

/* Opens the outputs (files are written to temporaries and renamed into
 * place by wave_out_close()).  `sigs` must outlive the writer. */
wave_out_t *wave_out_open(const wave_out_opts_t *o, const GArray *sigs, GError **error);
/* One cycle: `probes` has one entry per signal, in `sigs` order. */
void wave_out_row(wave_out_t *w, uint64_t cycle, uint64_t retired,
                  const pmusim_counter_probe_t *probes);
/* Finishes every output: `rows` rows were given, the last at `last_cycle`;
 * `ended` when the trace ended before the window did.  Frees w. */
gboolean wave_out_close(wave_out_t *w, uint64_t rows, uint64_t last_cycle, gboolean ended,
                        GError **error);
/* Removes the temporaries and frees w (on an error). */
void wave_out_abort(wave_out_t *w);

#endif
