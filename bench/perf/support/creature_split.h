/* Benchmark support: the 50k creature made bigger for the whole-size benchmarks (~200k
 * vertices with every edge split in 2, ~450k in 3), flat (new vertices on the old edges and
 * faces), the original vertices first so weights can be compared on them; written as OBJ
 * so a benchmark reads it back as a user's file. Never part of the product. */
#ifndef AM_BENCH_PERF_SUPPORT_CREATURE_SPLIT_H
#define AM_BENCH_PERF_SUPPORT_CREATURE_SPLIT_H

#include <stddef.h>
#include <stdint.h>

/* Every edge split in k: each triangle becomes k^2, original vertices stay first. The
 * outputs are malloc'd (the caller frees them). 0, or -1 when out of memory. */
int am_test_creature_split(const float *pos, size_t nv, const uint32_t *tri, size_t nt, int k, float **out_pos,
                           size_t *out_nv, uint32_t **out_tri, size_t *out_nt);

/* `v` and `f` lines (1-based) into path. 0, or -1 when it cannot be written. */
int am_test_creature_write_obj(const char *path, const float *pos, size_t nv, const uint32_t *tri, size_t nt);

#endif
