/* The native encoder interface used by pmusim's own tools.
 *
 * Each encoder PMU turns event strings plus PMU-specific options into the
 * list of register writes (pmusim/regs.h) that programs the hardware -- the
 * same writes an OS front door (perfmon2 on IA-64, perf_event on x86) would
 * perform.  The libpfm-compatible faces (include/libpfm3, include/libpfm4)
 * sit on the same tables and rules.
 */
#ifndef PMUSIM_ENCODER_H
#define PMUSIM_ENCODER_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <glib.h>
#include "pmusim/regs.h"
#include "pmusim/trace.h"

G_BEGIN_DECLS

#define PMUSIM_ENCODER_ERROR (pmusim_encoder_error_quark())
GQuark pmusim_encoder_error_quark(void);
/* GError codes of this domain are the libpfm error value of the PMU's
 * generation (libpfm-3 PFMLIB_ERR_* for IA-64, libpfm-4 PFM_ERR_* for x86),
 * so tools can print both the message and the libpfm code. */

/* A PMU-specific option, e.g. {"thres", "NOPS_RETIRED=3"}, {"irange", "0x4000-0x5000"},
 * {"dear", "cache"}.  Each PMU documents its keys in option_help. */
typedef struct pmusim_encode_opt {
    const char *key;
    const char *value;
} pmusim_encode_opt_t;

/* Privilege levels, as libpfm's PFM_PLM0..3 bits. */
enum { PMUSIM_PLM0 = 1, PMUSIM_PLM1 = 2, PMUSIM_PLM2 = 4, PMUSIM_PLM3 = 8 };

typedef struct pmusim_encoder_pmu {
    const char *name;        /* "ita2", "mont", "wsm", "wsm_dp", "knm" */
    const char *desc;        /* one line */
    pmusim_isa_t isa;
    /* Encode `nevents` events; append the register writes (each labelled
     * with its event) to `regs`.  dfl_plm: PMUSIM_PLM* mask used where an
     * event does not say. */
    gboolean (*encode)(const char *const *events, size_t nevents, const pmusim_encode_opt_t *opts,
                       size_t nopts, unsigned dfl_plm, GArray *regs, GError **error);
    /* List every event, one line each. */
    void (*list_events)(FILE *fp);
    /* Every fact about one event (showevtinfo-like); FALSE + error if unknown. */
    gboolean (*show_event)(const char *name, FILE *fp, GError **error);
    /* NULL-terminated "key=VALUE  meaning" lines for the options encode() takes. */
    const char *const *option_help;
    /* Event table access, for tools that join encoder and model knowledge
     * (`pmusim events --source`): number of events, and event idx's name and
     * hardware event select/unit mask. */
    size_t (*event_count)(void);
    gboolean (*event_code)(size_t idx, const char **name, uint32_t *code, uint32_t *umask);
    /* Unit mask j of event idx (name and the umask field, bits 15:8 of the
     * event select register, in bits 7:0 of *umask; bits 23:8 of *umask
     * hold the unit mask's own bits 31:16 of the register, CMASK, INV,
     * AnyThread and EDGE, for the x86 unit masks that carry them, such as
     * ARITH:DIV; 0 for an OFFCORE_RESPONSE unit mask, whose bits are those
     * of MSR_OFFCORE_RSP_x, not of the event select); FALSE past the last
     * one.  NULL for PMUs whose events carry
     * their unit mask (IA-64). */
    gboolean (*event_umask)(size_t idx, size_t j, const char **name, uint32_t *umask);
    /* check_events-like explanation of one event string: codes, canonical
     * string, register writes, equivalent perf string (NULL if not offered). */
    gboolean (*explain)(const char *event, unsigned dfl_plm, FILE *fp, GError **error);
    /* One-line description of event idx (NULL past the last one). */
    const char *(*event_desc)(size_t idx);
} pmusim_encoder_pmu_t;

/* The encoder named `name` (case-insensitive; aliases such as itanium2,
 * montecito, westmere, westmere_ep_dp, knights_mill accepted), or NULL. */
const pmusim_encoder_pmu_t *pmusim_encoder_find(const char *name);
const pmusim_encoder_pmu_t *const *pmusim_encoder_list(void); /* NULL-terminated */
/* The canonical name ("ita2", ...) of a PMU name or alias, or NULL. */
const char *pmusim_encoder_canonical_name(const char *name);
/* NULL-terminated list of the PMU names, and with_aliases their aliases too. */
const char *const *pmusim_encoder_pmu_names(gboolean with_aliases);

/* Suggestions for a mistyped name.  Up to `max` candidates closest to `word`
 * (case-insensitive edit distance with transpositions, at most 1 + len/4
 * and never more than 3, nor as many as `word` has characters; failing
 * that, candidates that contain `word` or that `word` contains, the
 * contained one of 3+ characters), best first, stored in
 * out; returns how many.  Only the candidates of the best rank are kept.
 * A word of more than 256 characters gets none (no name is near that long). */
size_t pmusim_suggest(const char *word, const char *const *cands, size_t ncands,
                      const char **out, size_t max);
/* "did you mean A?" / "did you mean A, B or C?" (g_free), or NULL. */
char *pmusim_suggest_text(const char *word, const char *const *cands, size_t ncands);
/* Every event name of `enc` (pointers into its table; g_ptr_array_free). */
GPtrArray *pmusim_encoder_event_names(const pmusim_encoder_pmu_t *enc);
/* TRUE when `enc` has an event called `name` (case-insensitive). */
gboolean pmusim_encoder_has_event(const pmusim_encoder_pmu_t *enc, const char *name);
/* What to add to "NAME: event not found on PMU": "did you mean X?" and/or
 * "NAME is an event of ita2, mont" (the other PMUs that know it); NULL when
 * there is nothing to say.  g_free. */
char *pmusim_encoder_event_hint(const pmusim_encoder_pmu_t *enc, const char *name);
/* The same, with `extra` names offered as suggestions beside the events
 * (the CLI adds perf's generic names: cycles, instructions, ...). */
char *pmusim_encoder_event_hint_ex(const pmusim_encoder_pmu_t *enc, const char *name,
                                   const char *const *extra, size_t nextra);

/* Defined by encoder/ia64 and encoder/x86. */
extern const pmusim_encoder_pmu_t pmusim_encoder_ita2;
extern const pmusim_encoder_pmu_t pmusim_encoder_mont;
extern const pmusim_encoder_pmu_t pmusim_encoder_wsm;
extern const pmusim_encoder_pmu_t pmusim_encoder_wsm_dp;
extern const pmusim_encoder_pmu_t pmusim_encoder_knm;

G_END_DECLS
#endif
