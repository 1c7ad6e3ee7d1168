/* Placing stock joints inside a mesh from its shape (`animesh bind --fit humanoid|quadruped`).
 *
 * The mesh must be in the bind frame (Z up, facing +X, Y left), a humanoid in a T or A
 * pose, a quadruped standing. From a voxel solid of the mesh (96 cells along its longest
 * side, proxy.c's voxeliser, bounded work: am_fit_stats) and its thickness (distance to the outside, in cells):
 *   1. the seed: the thickest cell of the body (humanoid: between 45% and 70% of the
 *      height);
 *   2. extremities: cells farthest from the seed inside the solid (geodesic distance),
 *      each the farthest within 4% of the height around it; assigned by position (stature
 *      axis Z): humanoid head = highest, feet = the lowest on each side of the midline,
 *      hands = the outermost on each side; quadruped feet = the four lowest (front pair by
 *      X), head = the most forward, tail = the most rearward if it reaches beyond the
 *      hind legs;
 *   3. chains: from each extremity back to the seed along the path that stays thickest
 *      (Dijkstra, step cost / thickness^2), i.e. along the limb's axis;
 *   4. where a limb meets the body: the first cell (from the tip) whose thickness is more
 *      than 1.8 x the limb's own (the median over its outer half); legs of a humanoid meet
 *      where their two chains merge (the pelvis);
 *   5. joints at stock proportions along each chain (the viewer skeleton's segment ratios).
 * The result is a skeleton with tails by bind_io.h's rule; `summary` describes what was
 * found (extremities, limb lengths) for the placement sheet. Refused (AM_ERR_INVALID) with
 * what is missing when the shape does not show the limbs the kind needs. */
#ifndef AM_BIND_FIT_H
#define AM_BIND_FIT_H

#include "animesh/report.h"

#ifdef __cplusplus
extern "C" {
#endif

#include <stddef.h>
#include <stdint.h>

#include "bind/bind.h"
#include "core/error.h"
#include "skeleton/skeleton.h"

bool am_fit_kind_parse(const char *s, am_fit_kind *out);
const char *am_fit_kind_name(am_fit_kind k);

am_status am_bind_fit(const am_bind_mesh *mesh, am_fit_kind kind, const am_skeleton *viewer, am_bind_skeleton *out,
                      char *summary, size_t summary_size, am_error *err);

/* The voxeliser's work (bind_internal.h: each triangle tests the cells near its plane in
 * its own box; the whole mesh at most 32 tests per grid cell + 32 per triangle, then edges
 * only; coincident triangles once). The summary (or the error) says when a bound applied. */
typedef struct am_fit_stats {
    uint64_t voxel_tests;  /* cell tests made */
    uint64_t voxel_budget; /* the bound for this mesh */
    size_t triangles;      /* triangles voxelised */
    size_t coincident;     /* skipped: the same corners as one before */
    size_t edges_only;     /* past the budget: marked along their edges */
} am_fit_stats;

/* am_bind_fit with its voxel work reported (stats may be NULL). */
am_status am_bind_fit_ex(const am_bind_mesh *mesh, am_fit_kind kind, const am_skeleton *viewer, am_bind_skeleton *out,
                         char *summary, size_t summary_size, am_fit_stats *stats, am_error *err);
#ifdef __cplusplus
}
#endif

#endif
