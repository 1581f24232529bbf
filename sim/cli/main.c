/* pmusim: perf-like front end to the encoder, the trace library and the PMU models. */
#include "cmds.h"
#include "pmusim/encoder.h"

#include <stdio.h>
#include <string.h>

typedef struct {
    const char *name;
    int (*run)(int argc, char **argv);
    const char *help;
} command_t;

static const command_t commands[] = {
    {"stat", pmusim_cmd_stat, "replay a trace through a PMU model and print counts"},
    {"record", pmusim_cmd_record, "sample a trace through an OS front door (perfmon2 / perf_event)"},
    {"report", pmusim_cmd_report, "read a record -o perf.data: estimates by symbol beside exact counts"},
    {"script", pmusim_cmd_script, "read a record -o perf.data: one line per sample, like perf script"},
    {"events", pmusim_cmd_events, "list a PMU's events, or every fact about one"},
    {"encode", pmusim_cmd_encode, "encode events into register writes (the --regs format)"},
    {"wave", pmusim_cmd_wave, "show the counters cycle by cycle (text or VCD waveform)"},
    {"check", pmusim_cmd_check, "regression-test encodings and counts against golden files"},
    {"trace", pmusim_cmd_trace, "trace files: info, dump, convert, gen, annotate, capture"},
};

static void usage(FILE *fp)
{
    fprintf(fp, "usage: pmusim COMMAND [ARGS]\n\ncommands:\n");
    for (size_t i = 0; i < G_N_ELEMENTS(commands); i++)
        fprintf(fp, "  %-8s %s\n", commands[i].name, commands[i].help);
    fprintf(fp, "\n'pmusim help COMMAND' (or 'pmusim COMMAND --help') describes each command;\n"
                "'pmusim help trace SUBCOMMAND' a trace subcommand.\n");
}

static int run(int argc, char **argv);
static int run_command(int argc, char **argv);

int main(int argc, char **argv)
{
    pmusim_cli_guard_std_fds();
    return pmusim_cli_check_stdout(run(argc, argv));
}

static int run(int argc, char **argv)
{
    if (argc < 2) {
        usage(stderr);
        return 2;
    }
    if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 ||
        (strcmp(argv[1], "help") == 0 && argc == 2)) {
        usage(stdout);
        return 0;
    }
    if (strcmp(argv[1], "help") == 0) {
        /* pmusim help CMD [SUB] = pmusim CMD [SUB] --help */
        char **args = g_new0(char *, (gsize)argc + 1);
        for (int i = 2; i < argc; i++)
            args[i - 2] = argv[i];
        args[argc - 2] = (char *)"--help";
        int r = run_command(argc - 1, args);
        g_free(args);
        return r;
    }
    if (strcmp(argv[1], "--version") == 0) {
        printf("pmusim %s\n", PMUSIM_VERSION);
        return 0;
    }
    return run_command(argc - 1, argv + 1);
}

/* argv[0] is the command name. */
static int run_command(int argc, char **argv)
{
    if (strcmp(argv[0], "help") == 0) { /* pmusim help help */
        usage(stdout);
        return 0;
    }
    for (size_t i = 0; i < G_N_ELEMENTS(commands); i++)
        if (strcmp(argv[0], commands[i].name) == 0)
            return commands[i].run(argc, argv);
    const char *names[G_N_ELEMENTS(commands) + 1];
    for (size_t i = 0; i < G_N_ELEMENTS(commands); i++)
        names[i] = commands[i].name;
    names[G_N_ELEMENTS(commands)] = "help";
    char *dym = pmusim_suggest_text(argv[0], names, G_N_ELEMENTS(names));
    fprintf(stderr, "pmusim: unknown command '%s'%s%s%s\n", argv[0], dym ? " (" : "",
            dym ? dym : "", dym ? ")" : "");
    g_free(dym);
    usage(stderr);
    return 2;
}
