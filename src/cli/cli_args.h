/* Option values of the animesh command line: whole-string numbers and X,Y,Z triples.
 * Each returns false (leaving *out unspecified) unless the WHOLE string is one value in
 * range, so "5x", "", "1e999" and out-of-range integers are refused rather than cut or
 * wrapped. The caller turns false into a usage error naming the option. */
#ifndef AM_CLI_ARGS_H
#define AM_CLI_ARGS_H

#include <stdbool.h>

/* A base-10 integer in lo..hi. */
bool am_cli_parse_long(const char *s, long lo, long hi, long *out);
/* A finite number (no nan/inf). */
bool am_cli_parse_double(const char *s, double *out);
/* "X,Y,Z": three finite numbers separated by commas, nothing else. */
bool am_cli_parse_xyz(const char *s, double out[3]);

#endif
