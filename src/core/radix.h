/* Stable radix sort of (key, value) pairs by a 32-bit key: linear time, for the big sorts
 * (triangles by region and position, vertices by class) where qsort's comparisons dominated. */
#ifndef AM_CORE_RADIX_H
#define AM_CORE_RADIX_H

#ifdef __cplusplus
extern "C" {
#endif

#include <stddef.h>
#include <stdint.h>

#include "core/error.h"

/* Sort keys[0..n) ascending, carrying vals along (equal keys keep their order). Uses 8 n
 * bytes of scratch (allocated). */
am_status am_radix_sort_u32(uint32_t *keys, uint32_t *vals, size_t n, am_error *err);

/* A float as a key that sorts like the float (-0 before +0; NaN after +inf). */
uint32_t am_radix_float_key(float f);

#ifdef __cplusplus
}
#endif

#endif
