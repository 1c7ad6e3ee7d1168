/* Options structs: a zeroed struct means "the defaults" (as in cgltf and ufbx), so a caller
 * writes `am_import_options o = {0};` and sets only what it wants; each `_init` function
 * gives the same meaning and stays for readability. Every field's default is written next
 * to it in its header.
 *
 * A field whose zero is itself a choice (a priority 0, no ease, a zero tolerance) reads 0 as
 * its default and takes AM_OPTION_ZERO to ask for zero; the library turns the field into
 * its value with am_option_real / am_option_int once, where the call begins. */
#ifndef AM_CORE_OPTION_H
#define AM_CORE_OPTION_H

#include "animesh/core.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The value a field stands for: 0 -> def, AM_OPTION_ZERO -> 0, anything else itself. */
static inline double am_option_real(double v, double def)
{
    return v == 0 ? def : v == AM_OPTION_ZERO ? 0.0 : v;
}
static inline long am_option_int(long v, long def)
{
    return v == 0 ? def : v == AM_OPTION_ZERO ? 0 : v;
}

#ifdef __cplusplus
}
#endif

#endif
