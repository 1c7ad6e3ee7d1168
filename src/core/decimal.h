/* The common decimal number of a text format (an optional sign, digits with at most one
 * point, no exponent, at most 19 significant digits) converted without strtod: the digits
 * as an integer m under 2^53 over an exact power of ten up to 10^22 is one correctly
 * rounded division (Clinger's fast path), so the double is exactly the one strtod gives.
 * Anything else (an exponent, more digits, inf, nan) is left to the caller's strtod. */
#ifndef AM_CORE_DECIMAL_H
#define AM_CORE_DECIMAL_H

#include <stdbool.h>

/* Read the number starting at p (before end); true with *out and *stop (the first byte
 * after it) when it is the common kind and stops at a space, tab, CR, LF or end; false
 * (nothing set) otherwise. */
bool am_decimal_fast(const char *p, const char *end, double *out, const char **stop);

#endif
