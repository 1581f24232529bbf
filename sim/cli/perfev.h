/* perf's event names on pmusim's PMUs: the generic events (cycles,
 * instructions, branch-misses ...) and the raw forms rNNN and
 * cpu/event=..,umask=..,cmask=..,inv,edge,any,offcore_rsp=../MODS, turned
 * into the encoder's event strings.  The table and its sources are in
 * docs/STAT.md ("Event names"). */
#ifndef PMUSIM_CLI_PERFEV_H
#define PMUSIM_CLI_PERFEV_H

#include <glib.h>

/* Translates one event as a perf user types it for PMU `pmu` ("wsm", "ita2"
 * ...) into the string pmusim's encoder takes.  A string that is no perf form
 * (a native event name such as "wsm::INST_RETIRED:ANY_P") comes back
 * unchanged.  NULL with an error (PMUSIM_ENCODER_ERROR) when it is a perf form
 * this PMU cannot count: a generic event the PMU has no match for (the
 * message lists the generic events it has), a raw code absent from its event
 * table, a malformed raw form.  g_free() the result. */
char *pmusim_perfev_translate(const char *pmu, const char *event, GError **error);

/* TRUE when `name` (without modifiers) is one of perf's generic event names. */
gboolean pmusim_perfev_is_generic(const char *name);

/* The generic events `pmu` maps, comma-separated ("cycles,instructions,...");
 * g_free() it. */
char *pmusim_perfev_generic_list(const char *pmu);

/* The generic event (perf's name) an event stands for, from what the user
 * typed or its native string (for derived metrics), or NULL. */
const char *pmusim_perfev_role(const char *pmu, const char *typed, const char *native);

/* Splits -e arguments into events as perf reads them: commas separate
 * events except inside cpu/.../, and {a,b} makes a group.  Appends each
 * event (g_strdup) to `events` and its group number (guint, events outside
 * braces each have their own) to `groups`. */
gboolean pmusim_perfev_split(char *const *args, GPtrArray *events, GArray *groups,
                             GError **error);

#endif
