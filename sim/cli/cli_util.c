/* Small helpers shared by the pmusim subcommands. */
#include "cmds.h"

#include <stdarg.h>
#include <stdio.h>
#include <unistd.h>

int pmusim_cli_fail(const GError *error)
{
    fprintf(stderr, "pmusim: %s\n", error ? error->message : "unknown error");
    return 1;
}

int pmusim_cli_usage(const char *cmd, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *msg = g_strdup_vprintf(fmt, ap);
    va_end(ap);
    fprintf(stderr, "pmusim %s: %s\n(see 'pmusim %s --help')\n", cmd, msg, cmd);
    g_free(msg);
    return 2;
}

gboolean pmusim_cli_show_progress(void)
{
    return isatty(STDERR_FILENO) ? TRUE : FALSE;
}
