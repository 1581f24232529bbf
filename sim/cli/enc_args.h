/* Command-line options shared by `pmusim stat` and `pmusim encode`: events,
 * privilege levels and the PMU-specific encoder options. */
#ifndef PMUSIM_CLI_ENC_ARGS_H
#define PMUSIM_CLI_ENC_ARGS_H

#include <glib.h>
#include "pmusim/encoder.h"

typedef struct pmusim_enc_args {
    char **events;  /* -e, repeatable, each may hold a comma-separated list */
    char *plm;      /* --plm u|k|uk|0xN */
    char **opts;    /* -O key=value */
    /* shortcuts for common keys, each repeatable: --thres EV=N etc. */
    char **thres, **ism, **irange, **drange, **opcm, **opcm1, **opcm2, **pmc8, **pmc9;
    char **dear, **iear, **btb, **etb, **ipear;
    gboolean no_qualcheck, rr_inv, no_fine_mode, systemwide;
} pmusim_enc_args_t;

/* Adds the options to `ctx` (as its main entries). */
void pmusim_enc_args_add(GOptionContext *ctx, pmusim_enc_args_t *a);
/* What pmusim_plm_parse() accepts, for messages. */
#define PMUSIM_PLM_EXPECTED "u, k, uk or a mask 0x1..0xf"
/* Parses u, k, uk (ku; any case) or a mask 0x1..0xf (decimal, 0x hex
 * or 0 octal, nothing around it) into a PMUSIM_PLM* mask; FALSE for anything else,
 * *plm untouched.  --plm and the golden files' plm key. */
gboolean pmusim_plm_parse(const char *s, unsigned *plm);
/* Parses --plm into a PMUSIM_PLM* mask (default uk: PLM0|PLM3). */
gboolean pmusim_enc_args_plm(const pmusim_enc_args_t *a, unsigned *plm, GError **error);
/* The event list after splitting on commas (NULL-terminated, g_strfreev). */
char **pmusim_enc_args_event_list(const pmusim_enc_args_t *a);
/* perf's generic and raw event names turned into the encoder's strings, in
 * place (sim/cli/perfev.h). */
gboolean pmusim_enc_args_translate(const char *pmu, char **events, GError **error);
/* Encodes the events with `enc`, appending to regs. */
gboolean pmusim_enc_args_encode(const pmusim_enc_args_t *a, const pmusim_encoder_pmu_t *enc,
                                char **events, GArray *regs, GError **error);
/* The register writes of a run: `events` encoded for PMU `pmu` (if any), then
 * the writes of each --regs file, appended to regs. */
gboolean pmusim_enc_args_build_regs(const pmusim_enc_args_t *a, const char *pmu, char **events,
                                    char **regs_files, GArray *regs, GError **error);
void pmusim_enc_args_clear(pmusim_enc_args_t *a);

#include "pmusim/sim.h"

/* What stat, record and wave start from: the open trace, the chosen model
 * and the register writes that program it. */
typedef struct pmusim_run_setup {
    pmusim_trace_reader_t *reader;
    const pmusim_model_ops_t *ops;
    GArray *regs;
    char **events; /* the events encoded (possibly the default set) */
} pmusim_run_setup_t;

/* Opens `trace`, chooses the PMU (--pmu, else the events' pmu:: prefix,
 * else the trace's CPU), uses the default events when `defaults` is set and
 * neither -e nor --regs was given, and builds the register writes.  Returns
 * 0, or the exit status after printing the error (usage errors name `cmd`). */
int pmusim_run_setup(pmusim_run_setup_t *run, const pmusim_enc_args_t *a, const char *cmd,
                     const char *trace, const char *pmu_opt, char **regs_files,
                     gboolean defaults);
void pmusim_run_setup_clear(pmusim_run_setup_t *run);
/* PMU named by a "pmu::" prefix of the first event, or NULL. */
char *pmusim_enc_args_pmu_from_events(char **events);

#endif
