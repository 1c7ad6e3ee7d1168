/* animesh batch spawn CATALOG --grid GRID.json: the catalogue's creatures into a grid's
 * regions (not yet built: docs/batch.md). */
#include <stdio.h>

#include "cli/cli.h"

int am_cmd_batch_spawn(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    fprintf(stderr, "animesh batch spawn: not built yet\n");
    return AM_EXIT_USAGE;
}
