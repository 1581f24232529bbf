/* The pmusim subcommands; each takes argv starting at its own name and
 * returns the process exit status (0 ok, 1 failure, 2 usage). */
#ifndef PMUSIM_CLI_CMDS_H
#define PMUSIM_CLI_CMDS_H

int pmusim_cmd_trace(int argc, char **argv);  /* cmd_trace.c */
int pmusim_cmd_stat(int argc, char **argv);   /* cmd_stat.c */
int pmusim_cmd_events(int argc, char **argv); /* cmd_events.c */
int pmusim_cmd_encode(int argc, char **argv); /* cmd_encode.c */
int pmusim_cmd_check(int argc, char **argv);  /* cmd_check.c */
int pmusim_cmd_wave(int argc, char **argv);   /* cmd_wave.c */
int pmusim_cmd_record(int argc, char **argv); /* cmd_record.c */
int pmusim_cmd_report(int argc, char **argv); /* cmd_report.c */
int pmusim_cmd_script(int argc, char **argv); /* cmd_script.c */
int pmusim_cmd_trace_annotate(int argc, char **argv); /* cmd_annotate.c: `trace annotate` */
int pmusim_cmd_trace_capture(int argc, char **argv);  /* cmd_capture.c: `trace capture` */

/* Shared helpers (cli_util.c). */
#include <glib.h>
#include <stdio.h>
#include "pmusim/sim.h"
/* At start-up: opens /dev/null on each of descriptors 0-2 that is closed,
 * so that no file pmusim opens takes its place (a write to it still fails
 * with EBADF); pmusim_cli_closed_std_fds() is the mask (bit N for
 * descriptor N) of those that were closed, for a program pmusim runs. */
void pmusim_cli_guard_std_fds(void);
unsigned pmusim_cli_closed_std_fds(void);
/* Prints "pmusim: message" on stderr and returns 1. */
int pmusim_cli_fail(const GError *error);
/* Prints a usage error on stderr and returns 2. */
/* The files a run reads, for pmusim_outfile_open()'s check that no output
 * replaces one: the trace and every --regs file (NULL-terminated; g_free). */
const char **pmusim_cli_inputs(const char *trace, char **regs_files);
/* Flushes stdout; on a write error says so on stderr and returns status,
 * or 1 for status 0. */
int pmusim_cli_check_stdout(int status);
int pmusim_cli_usage(const char *cmd, const char *fmt, ...) G_GNUC_PRINTF(2, 3);
/* Cycles and instructions: the event set used when neither -e nor --regs is given. */
const char *pmusim_cli_default_events(const char *pmu);
#include <stdio.h>
/* Writes s as a JSON string literal. */
void pmusim_cli_json_string(FILE *fp, const char *s);
/* g_option_context_parse() for command `cmd` ("stat", "trace info"): --help,
 * -h, --help-all and --help-GROUP print the help with the usage line
 * "pmusim CMD [OPTIONS] PARAMS" and the command's examples, then exit 0; an
 * unknown long option's error says "did you mean --X?". */
gboolean pmusim_cli_parse(GOptionContext *ctx, const char *cmd, int *argc, char ***argv,
                          GError **error);
/* Makes --help-NAME print `group` (pmusim_cli_parse). */
void pmusim_cli_register_group(GOptionGroup *group, const char *name);
/* Usage error for an unknown PMU name, with a suggestion; returns 2. */
int pmusim_cli_unknown_pmu(const char *cmd, const char *pmu);
/* TRUE when progress should be shown (stderr is a terminal). */
gboolean pmusim_cli_show_progress(void);

/* pmusim report / script: parse the options (none but --help) and read the
 * perf.data FILE argument into f and its symbols.  Returns 0, or the exit
 * status after printing the error (cmd_script.c). */
struct pd_file;
struct pd_symbols;
int pmusim_cli_perf_open(int argc, char **argv, const char *cmd, const char *summary,
                         struct pd_file *f, struct pd_symbols *syms);

/* Explain mode: one "# REG: description" line per write of `regs`, from the
 * model's describe_reg op (`pmusim encode --explain-regs`, `stat --explain`). */
void pmusim_cli_explain_regs(const pmusim_model_ops_t *ops, const GArray *regs, FILE *fp);

#endif
