/* Test and benchmark support, not a product feature and not an importer (src/import/ holds
 * those): the project's test creatures (../shared/data/creature: a triangulated OBJ with
 * `v`/`f` lines, Blender's weight CSV `vertex,bone,weight` and the skeleton JSON) read into a
 * rig, bigger creatures made by subdivision with the weights carried, and triangle orders.
 * Linked into the benchmarks and the tests only (library am_bench_support).
 *
 * Joints: the skeleton JSON's joints in file order, `world` = their `head` (the viewer's
 * default rest positions). Normals: area-weighted from the triangles. UVs: 0. Material: grey.
 */
#ifndef AM_BENCH_PERF_SUPPORT_TEST_CREATURE_H
#define AM_BENCH_PERF_SUPPORT_TEST_CREATURE_H

#include <stddef.h>
#include <stdint.h>

#include "core/error.h"
#include "skin/rig.h"

/* DIR/STEM.obj + DIR/STEM.blender-heat-weights.csv + DIR/STEM.skeleton.json -> rig named
 * STEM. Errors name the file and the line. */
am_status am_test_creature_load(const char *dir, const char *stem, am_rig *out, am_error *err);

/* A rig of exactly `target_vertices` vertices (>= in->vertex_count) by edge splitting:
 * every edge split at once (1-to-4) while that stays within the target, then the longest
 * edges split (each triangle re-triangulated by how many of its edges were split) for the
 * rest. A new vertex sits on the curve through its edge's ends that follows both ends'
 * normals (a smooth surface, not flat facets), and carries the average of their influence
 * lists (at most 8 kept, not renormalised: the skin builder caps and renormalises).
 * `name` names the result (NULL: keeps the input's). */
am_status am_test_creature_subdivide(const am_rig *in, size_t target_vertices, const char *name, am_rig *out,
                                     am_error *err);

/* The creature of about n vertices from DIR (../shared/data/creature): the 10k creature as
 * read for n <= 10,072, else the 50k one subdivided to n (at least its own size); named
 * "creature_<n/1000>k". */
am_status am_test_creature_sized(const char *dir, size_t n, am_rig *out, am_error *err);

/* Put the triangles in a pseudo-random order (seeded, reproducible); each triangle's
 * corners are also rotated, keeping its winding. */
void am_test_creature_shuffle(am_rig *rig, uint32_t seed);

/* Recompute the normals, area-weighted from the triangles. */
void am_test_creature_normals(am_rig *rig);

#endif
