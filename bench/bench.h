/* bench/bench.h: the private side of include/animesh/bench.h, where its manual is. */
#ifndef AM_BENCH_H
#define AM_BENCH_H

#include "animesh/bench.h"

#ifdef __cplusplus
extern "C" {
#endif

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/am_string.h"
#include "core/error.h"
#include "math/am_math.h"
#include "mesh/mesh_asset.h"
#include "skeleton/skeleton.h"

/* am_bench_options.lod: the LOD a bench reads, as AM_BENCH_LOD(AM_LOD_LOW) etc.; zero (the
 * default) is the highest LOD the asset holds. */
#define AM_BENCH_LOD_HIGHEST_PRESENT 0

/* Name motion `motion` as the user will find it (its final path, not the temporary one it
 * was read from before an output set renamed it: core/outset.h), kept whole. False when out
 * of memory (the old name kept). */
bool am_bench_motion_set_source(am_bench *b, size_t motion, const char *source);

am_status am_bench_pose_locals(const am_bench *b, const am_bench_local *locals, size_t n,
                               float *out_prim, am_vec3 *out_joints, am_error *err);
/* The local channels a motion sets at time t (n written; `out` must hold skel->joint_count). */
am_status am_bench_motion_locals(const am_bench *b, int motion, double t, am_bench_local *out,
                                 size_t *n, am_error *err);

/* Forward kinematics (docs/reference/viewer-skeleton.md#rest-transforms) from mRoot (prim
 * origin, rotation b->root_rot) over every skeleton joint, from local positions and
 * rotations (e.g. b->rest_local_pos / rest_local_rot): the joints' world frame a preview or
 * a report draws or measures. world may be NULL; world_pos and world_rot hold
 * skel->joint_count entries, as do local_pos and local_rot. */
void am_bench_fk(const am_bench *b, const am_vec3 *local_pos, const am_quat *local_rot, am_mat4 *world,
                 am_vec3 *world_pos, am_quat *world_rot);

/* Frame conversion (see FRAMES above). */
am_vec3 am_bench_prim_to_bind(const am_bench *b, am_vec3 prim);
void am_bench_positions_to_bind(const am_bench *b, const float *prim, float *bind, size_t n);

/* --- measurements --- */

/* The k-th smallest of v[0..n) (0-based; v is reordered: smaller before, larger after), as
 * the bench takes its medians. O(n) expected; k < n. */
double am_bench_select_kth(double *v, size_t n, size_t k);

/* Per-vertex distances between two position arrays (same frame). */
am_status am_bench_displacement(const am_bench *b, const float *a, const float *c, am_bench_stats *out,
                                am_error *err);

/* Largest change of pairwise distance inside the set between the bind positions and the
 * posed positions (prim frame in, frame-independent out), metres. Sets above 4096
 * vertices are measured on an even subsample of 4096 (*sampled set true). */
double am_bench_rigidity(const am_bench *b, const float *prim, const am_bench_set *set, bool *sampled);
/* The same against another reference shape of the vertices (`ref`, xyz per vertex, any frame
 * with the same distances): the report judges a pose's bending against the viewer's own rest
 * pose, so a rest that already differs from the bind shape (a rig whose joint positions move
 * its bones) is not counted again in every pose. */
double am_bench_rigidity_from(const am_bench *b, const float *prim, const float *ref, const am_bench_set *set,
                              bool *sampled);
/* Mean position of the set, in both frames. */
void am_bench_centre(const am_bench *b, const float *prim, const am_bench_set *set, am_vec3 *centre_prim,
                     am_vec3 *centre_bind);

/* An explosion is deformation, not travel: a pose explodes when a vertex is torn from
 * every neighbour by more than AM_BENCH_SPIKE_SHARE of the creature's size (one broken
 * weight: a spike), or any edge tears open by more than AM_BENCH_EXPLODE_SHARE of it (a
 * patch flung away). The size is the diagonal of the creature's rest box, every part
 * together, so a 3 cm eye riding a turning head never explodes and one vertex of it held
 * by a far joint does. A seam stretching between two bones (a crotch in a wide stride:
 * 10 cm on the 2.6 m Bento avatar) keeps neighbours on each side: strain, not explosion. */
#define AM_BENCH_TEAR_RATIO 2.0

am_bench_side am_bench_locals_side(const am_bench *b, const am_bench_local *locals, size_t n);

void am_bench_cross_side_leak(const am_bench *b, am_bench_side side, const float *rest_prim,
                              const float *posed_prim, am_bench_leak *out);

/* Everything the CLI and the bend box print for one pose, in one call. */
typedef struct am_bench_set_result {
    double rigidity_m;
    bool sampled;
    am_vec3 centre_prim, centre_bind;
} am_bench_set_result;
typedef struct am_bench_pose_report {
    int motion;                /* -1 rest */
    double t;
    am_bench_stats displacement; /* from the rest pose */
    am_bench_strain strain;
    am_bench_leak leak;
    am_vec3 min_prim, max_prim;  /* bounding box of the posed mesh, prim frame */
    am_vec3 min_bind, max_bind;
    am_bench_set_result *sets; /* set_count entries, caller frees with am_bench_pose_report_free */
    size_t set_count;
} am_bench_pose_report;
am_status am_bench_pose_report_at(const am_bench *b, int motion, double t, const am_bench_set *sets,
                                  size_t set_count, am_bench_pose_report *out, am_error *err);
void am_bench_pose_report_free(am_bench_pose_report *r);

#ifdef __cplusplus
}
#endif

#endif
