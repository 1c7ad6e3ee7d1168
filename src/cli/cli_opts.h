/* The commands' getopt set-up, once: a command lists its options in a table and loops on
 * am_cli_opts_next, switching on each option's id.
 *
 *   static const am_cli_opt opts[] = {{"output", required_argument, 'o', 'o'},
 *                                     {"json", no_argument, 'j', 0}, AM_CLI_OPT_HELP};
 *   am_cli_opts o;
 *   am_cli_opts_begin(&o, "anim decode", help, opts, AM_CLI_OPTS_COUNT(opts), argc, argv);
 *   int c;
 *   while ((c = am_cli_opts_next(&o)) >= 0)
 *       switch (c) { case 'o': out = o.arg; break; ... }
 *   if (c == AM_CLI_OPTS_STOP)
 *       return o.rc;
 *   ... operands are argv[o.first] .. argv[argc - 1]
 *
 * The helper handles what every command did alike: getopt's state reset and its own
 * messages off, --help (id 'h') printed to stdout with exit 0, and an unknown option or one
 * missing its value as "unknown or incomplete option '<arg>'" with exit 2. The long options
 * keep the table's order (getopt resolves abbreviations by it). */
#ifndef AM_CLI_OPTS_H
#define AM_CLI_OPTS_H

#include <getopt.h>
#include <stddef.h>

/* One option: the long name (without "--"), no_argument or required_argument, the id the
 * loop switches on, and its one-letter form (0 for none; else id must be that letter). */
typedef struct am_cli_opt {
    const char *name;
    int has_arg;
    int id;
    char letter;
} am_cli_opt;

/* --help / -h: printed by the helper, never seen by the loop. */
#define AM_CLI_OPT_HELP {"help", no_argument, 'h', 'h'}
#define AM_CLI_OPTS_COUNT(table) (sizeof(table) / sizeof((table)[0]))
/* The most options a command may list (push has 23). */
#define AM_CLI_OPTS_MAX 32

enum { AM_CLI_OPTS_END = -1, AM_CLI_OPTS_STOP = -2 };

typedef struct am_cli_opts {
    char *arg;         /* the current option's value (NULL for a flag); argv's own text */
    const char *name;  /* the long name of the last option given in long form */
    int first;         /* argv's next index to read; after AM_CLI_OPTS_END, the first operand */
    int rc;            /* after AM_CLI_OPTS_STOP: the command's exit code */
    /* the getopt_long arguments built from the table */
    const char *cmd, *help;
    int argc;
    char **argv;
    size_t count;
    int index;
    struct option longs[AM_CLI_OPTS_MAX + 1];
    char letters[2 * AM_CLI_OPTS_MAX + 1];
} am_cli_opts;

/* Start parsing argv[1..argc-1] for command cmd ("anim decode"), whose --help text is help. */
void am_cli_opts_begin(am_cli_opts *o, const char *cmd, const char *help, const am_cli_opt *table,
                       size_t count, int argc, char **argv);
/* The next option's id (its value in o->arg); AM_CLI_OPTS_END when the options are done
 * (operands from o->first); AM_CLI_OPTS_STOP when the command must return o->rc now (--help
 * printed, or a usage error printed). */
int am_cli_opts_next(am_cli_opts *o);

#endif
