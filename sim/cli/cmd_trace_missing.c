#include "cmds.h"
#include <stdio.h>
int pmusim_cmd_trace(int argc, char **argv)
{
    (void)argc; (void)argv;
    fprintf(stderr, "pmusim trace: not built\n");
    return 1;
}
