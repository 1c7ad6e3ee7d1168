#include <stdio.h>

#include "cli.h"

int am_cmd_bendbox(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    fprintf(stderr, "animesh bendbox: not built yet\n");
    return AM_EXIT_INVALID;
}
