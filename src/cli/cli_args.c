#include "cli/cli_args.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>

bool am_cli_parse_long(const char *s, long lo, long hi, long *out)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || end == s || *end || v < lo || v > hi)
        return false;
    *out = v;
    return true;
}

bool am_cli_parse_double(const char *s, double *out)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (errno || end == s || *end || !isfinite(v))
        return false;
    *out = v;
    return true;
}

bool am_cli_parse_xyz(const char *s, double out[3])
{
    char *end;
    for (int i = 0; i < 3; i++) {
        errno = 0;
        out[i] = strtod(s, &end);
        if (errno || end == s || !isfinite(out[i]) || (i < 2 && *end != ',') || (i == 2 && *end))
            return false;
        s = end + 1;
    }
    return true;
}
