/* Numbers as text for the writers (COLLADA, meshdata, rig JSON): the shortest decimal that
 * reads back as the same value, laid out as printf's %g would lay out that many digits.
 *
 * am_fmt_f32: the fewest significant digits (at most 9) whose decimal reads back (strtof,
 *   or strtod then a cast) as exactly v; printed like %.Pg with P = max(digits, 6). This is
 *   what the loop "first P in 6..9 with (float)strtod(%.Pg) == v" printed, except where a
 *   shorter decimal exists than the correctly rounded one of that length (then it is the
 *   shorter: still exact).
 * am_fmt_f64: the same for a double (at most 17 digits), P = max(digits, 15).
 * -0 is written as 0. NaN and infinities as printf writes them ("nan", "inf", "-inf").
 *
 * How: the binary value's rounding interval (half-way to each neighbour, ends included when
 * the mantissa is even) is scaled by a power of ten into 64-bit integers exactly (128-bit
 * products with 5^k), and trailing digits are removed while the interval still holds an
 * integer (the digit loop of Ulf Adams' Ryu, 2018, with exact products instead of its
 * tables). Values whose scaling needs more than 128 bits (doubles below about 5e-10 or at
 * and above 2^52, floats at and above 2^23 or below 1e-18) take a slower exact path through
 * snprintf and strtod. Writes at most 32 bytes including the NUL; returns the length. */
#ifndef AM_CORE_NUMFMT_H
#define AM_CORE_NUMFMT_H

#ifdef __cplusplus
extern "C" {
#endif

#include <stddef.h>
#include <stdint.h>

#define AM_FMT_NUM_MAX 32

size_t am_fmt_f32(char out[AM_FMT_NUM_MAX], float v);
size_t am_fmt_f64(char out[AM_FMT_NUM_MAX], double v);
/* Decimal digits of an unsigned integer; returns the length (no NUL written). */
size_t am_fmt_u64(char *out, uint64_t v);

#ifdef __cplusplus
}
#endif

#endif
