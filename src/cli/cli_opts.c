#include "cli/cli_opts.h"

#include <stdio.h>
#include <string.h>

#include "cli/cli.h"

void am_cli_opts_begin(am_cli_opts *o, const char *cmd, const char *help, const am_cli_opt *table,
                       size_t count, int argc, char **argv)
{
    memset(o, 0, sizeof *o);
    o->cmd = cmd;
    o->help = help;
    o->argc = argc;
    o->argv = argv;
    o->count = count;
    optind = 1; /* getopt's state is process-wide: a command may be the second parse of the run */
    opterr = 0; /* its messages are ours, with the command's name */
    if (count > AM_CLI_OPTS_MAX) /* refused in next(): a table too long is the program's bug */
        return;
    size_t n = 0;
    for (size_t i = 0; i < count; i++) {
        o->longs[i] = (struct option){table[i].name, table[i].has_arg, NULL, table[i].id};
        if (table[i].letter) {
            o->letters[n++] = table[i].letter;
            if (table[i].has_arg == required_argument)
                o->letters[n++] = ':';
        }
    }
}

int am_cli_opts_next(am_cli_opts *o)
{
    if (o->count > AM_CLI_OPTS_MAX) {
        fprintf(stderr, "animesh %s: %zu options, more than the %d the parser holds\n", o->cmd, o->count,
                AM_CLI_OPTS_MAX);
        o->rc = AM_EXIT_USAGE;
        return AM_CLI_OPTS_STOP;
    }
    int c = getopt_long(o->argc, o->argv, o->letters, o->longs, &o->index);
    o->arg = optarg;
    o->first = optind;
    if (c == -1)
        return AM_CLI_OPTS_END;
    if (c == '?') {
        o->rc = am_cli_usage(o->cmd, "unknown or incomplete option '%s'", o->argv[optind - 1]);
        return AM_CLI_OPTS_STOP;
    }
    if (c == 'h' && o->help) {
        fputs(o->help, stdout);
        o->rc = AM_EXIT_OK;
        return AM_CLI_OPTS_STOP;
    }
    o->name = o->longs[o->index].name;
    return c;
}
