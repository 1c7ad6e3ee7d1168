#include "cli/cli.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int am_cli_report(const am_error *err)
{
    char buf[AM_ERROR_TEXT_MAX];
    am_cli_print_flags(stderr, "animesh: %s\n", am_error_format(err, buf, sizeof buf));
    return am_status_exit_code(err->code);
}

int am_cli_usage(const char *cmd, const char *fmt, ...)
{
    char msg[4096];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    fprintf(stderr, "animesh %s: ", cmd);
    if (n > 0)
        am_cli_write_flags(stderr, msg, (size_t)n < sizeof msg ? (size_t)n : sizeof msg - 1);
    fprintf(stderr, "\nTry 'animesh %s --help'.\n", cmd);
    return AM_EXIT_USAGE;
}

am_status am_cli_load_skeleton(const char *path_opt, am_skeleton *out, am_error *err)
{
    char path[4096];
    am_status s = am_skeleton_locate(path_opt, path, sizeof path, err);
    if (s)
        return s;
    return am_skeleton_load(path, out, err);
}

bool am_cli_source_date_epoch(long long *out)
{
    const char *epoch = getenv("SOURCE_DATE_EPOCH");
    if (!epoch || !epoch[0])
        return true;
    char *end;
    errno = 0;
    long long t = strtoll(epoch, &end, 10);
    if (errno || *end || t < 0)
        return false;
    *out = t;
    return true;
}

bool am_cli_wants_help(int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--") == 0)
            return false;
        if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0)
            return true;
    }
    return false;
}
