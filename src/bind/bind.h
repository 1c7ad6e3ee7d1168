/* Automatic binding: a mesh + stock joints at world positions -> per-vertex weights (at
 * most 4 per vertex, sums exactly 1), by bone heat or by distance to bone segments, that
 * never fails silently. The result becomes a rig (skin/rig.h) for the skin builder.
 *
 * THE PIPELINE (am_bind), each step in its own file:
 *   1. Input checks (bind.c): at least one triangle, every position and joint finite,
 *      every index in range. Positions are normalised to unit height (bounding box) before
 *      anything measures a distance, so a centimetre copy binds exactly like the metre one.
 *   2. Topology (topology.h): vertices welded by exact position (UV and normal seams do not
 *      cut the mesh), degenerate faces (repeated welded vertex, zero area) and non-manifold
 *      edges counted, islands = connected components over the remaining triangles.
 *   3. Routes per island (bind.c): an island HOLDS a bone when a sample of the bone segment
 *      lies inside it (ray parity for a closed island, its bounding box for an open one;
 *      visibility.c). An island that holds bones is solved with those bones only; an
 *      island that holds none (an eye, a tooth, a loose ring) is bound RIGIDLY at 1.0 to
 *      its nearest visible bone; loose vertices take their nearest bone.
 *   4. Solve (heat.c or segment.c) over every solved island at once:
 *      - heat (default): Baran and Popovic 2007 as Blender's meshlaplacian does it: the
 *        cotangent Laplacian with mixed Voronoi areas (laplacian.c), each vertex heated by
 *        its nearest VISIBLE held bone (the ray to the bone's closest point is blocked only
 *        by a face it meets from the front, visibility.c; distance lengthened when the
 *        vertex normal faces away from the bone, as Blender does), H = 1/d^2; one CHOLMOD
 *        factorisation, every bone's right-hand side solved from it.
 *      - segment: Shepard inverse distance (exponent 1) to the nearest bone SEGMENTS
 *        (clamped projection), never to joints.
 *   5. Checks after solving, per island: unweighted vertices, and a major bone (length
 *      >= 5% of height, not eye/teeth/tongue) held by the island with no weight at all
 *      (docs/reference/quality-figures.md `empty_major`). Either one sends the island to the fallback: a coarse
 *      watertight proxy (voxelised, remeshed: proxy.c) bound the same way, its weights
 *      transferred to the island's vertices; if the proxy fails too, the segment method.
 *   6. Influences (influence.c): weights under `min_weight` dropped, left/right hygiene
 *      (a Left bone's weight faded out across the midline band |y| < 1% of height and
 *      removed beyond it, and vice versa), the smooth top-4 cut (the 5th largest
 *      subtracted from the 4 kept, clipped, renormalised), sums exact.
 * Every island, its route and why, the topology warnings and the phase times are in the
 * result (`am_bind_result.islands`, `warnings`): the report lists them.
 *
 * FRAME: positions and joints in the rig's BIND frame (skin/rig.h): metres, X forward,
 * Y left, Z up. The midline for left/right hygiene is y = 0 (the bench measures the
 * cross-side leak about the same line).
 *
 * Thread-safety: no global state; `threads` workers run inside a call.
 */
#ifndef AM_BIND_H
#define AM_BIND_H

#ifdef __cplusplus
extern "C" {
#endif

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/am_string.h"
#include "core/error.h"
#include "core/option.h"
#include "math/am_math.h"

/* --- the skeleton to bind to ------------------------------------------------------- */

/* One joint: its bone runs from `head` (the joint) to `tail` (its first child's head, or a
 * leaf's end); weight given to the bone is weight on the joint. */
typedef struct am_bind_joint {
    am_string name;  /* canonical viewer name */
    int skel_joint;  /* index into the viewer skeleton, -1 when bound without one */
    int parent;      /* index into am_bind_skeleton.joints, -1 at the top */
    am_vec3 head;    /* bind frame, metres */
    am_vec3 tail;
} am_bind_joint;

typedef struct am_bind_skeleton {
    am_bind_joint *joints;
    size_t joint_count;
} am_bind_skeleton;

void am_bind_skeleton_free(am_bind_skeleton *s);

/* --- the mesh ---------------------------------------------------------------------- */

typedef struct am_bind_mesh {
    size_t vertex_count;
    const float *positions;      /* 3 per vertex, bind frame, metres */
    size_t triangle_count;
    const uint32_t *triangles;   /* 3 per triangle */
} am_bind_mesh;

/* --- options ----------------------------------------------------------------------- */

typedef enum am_bind_method { AM_BIND_HEAT = 0, AM_BIND_SEGMENT = 1 } am_bind_method;

/* Zeroed, the defaults (core/option.h); a field where zero is a choice takes AM_OPTION_ZERO
 * for it. */
typedef struct am_bind_options {
    am_bind_method method;       /* default AM_BIND_HEAT (0) */
    double min_weight;           /* influences below are dropped; 0: the default 0.01;
                                    AM_OPTION_ZERO: none dropped */
    int max_influences;          /* 1..4; 0: the default 4 (the skin record's four lanes) */
    bool no_side_hygiene;        /* keep weights across the midline (default false: a joint of
                                    one side loses its weight on the other) */
    bool no_proxy;               /* no voxel proxy fallback (default false: the fallback on) */
    int proxy_resolution;        /* voxels along the island's longest side; 0: the default 112 */
    int threads;                 /* worker threads for the ray tests; 0 (default): every core */
    /* Tests only: route every solved island through the proxy (proves the fallback). */
    bool force_proxy;
} am_bind_options;

void am_bind_options_init(am_bind_options *opts);

/* --- the result -------------------------------------------------------------------- */

typedef enum am_bind_route {
    AM_ROUTE_HEAT = 0,       /* bone heat on the island itself */
    AM_ROUTE_SEGMENT,        /* distance to bone segments on the island itself */
    AM_ROUTE_RIGID,          /* holds no bone: one bone at 1.0 */
    AM_ROUTE_PROXY,          /* solved on a voxel proxy, weights transferred */
    AM_ROUTE_SEGMENT_FALLBACK/* heat and proxy failed: distance to segments */
} am_bind_route;

const char *am_bind_route_name(am_bind_route r);
const char *am_bind_method_name(am_bind_method m);

#define AM_BIND_MAJOR_BONE 0.05      /* docs/reference/quality-figures.md: a major bone is >= 5% of the height */

typedef struct am_bind_island {
    size_t vertex_count;         /* welded vertices */
    size_t triangle_count;       /* non-degenerate triangles */
    size_t first_vertex;         /* a vertex of the island (input index), for messages */
    am_vec3 min, max;            /* bind frame bounding box */
    bool closed;                 /* every edge has exactly two faces */
    size_t bones_held;
    am_bind_route route;
    int rigid_joint;             /* AM_ROUTE_RIGID: the joint; -1 otherwise */
    size_t unweighted_first_try; /* vertices the first solve left unweighted */
    int empty_major_first_try;   /* a major held bone the first solve gave no weight, or -1 */
    am_string why;               /* one sentence: why this route */
} am_bind_island;

typedef struct am_bind_result {
    size_t vertex_count;         /* the input's vertices */
    size_t joint_count;          /* the skeleton's joints */
    /* Influences per input vertex: count[v] in 1..max_influences, joint[4v+k] (index into
     * the skeleton's joints) and weight[4v+k] in decreasing weight, summing to 1. */
    uint8_t *count;
    uint16_t *joint;
    double *weight;

    am_bind_method method;
    double height_m;             /* bounding-box height used to normalise */
    size_t welded_vertices;
    size_t degenerate_faces;     /* repeated vertex or zero area (left out of the solve) */
    size_t non_manifold_edges;   /* edges with 3 or more faces */
    size_t boundary_edges;       /* edges with one face */
    size_t loose_vertices;       /* in no triangle: take their nearest bone */

    am_bind_island *islands;
    size_t island_count;
    /* Per joint: total weight over the mesh, and the islands holding its bone. */
    double *joint_weight_sum;
    bool *joint_held;            /* inside some island */
    size_t unweighted;           /* after every route: 0 unless something is badly wrong */

    /* The heat solve (0 when no island was heat-solved). */
    size_t solve_vertices;       /* unknowns in the system */
    size_t factor_nonzeros;      /* nonzeros of the Cholesky factor */
    int factorisations;          /* 1 unless an island had to leave the system */

    double seconds_topology, seconds_visibility, seconds_factor, seconds_solve, seconds_proxy, seconds_total;

    am_string *warnings;         /* every warning, one sentence each */
    size_t warning_count, warning_cap;
    size_t warnings_dropped;     /* warnings lost because memory ran out (0 otherwise) */
} am_bind_result;

/* Bind. Refused (AM_ERR_INVALID, naming the vertex, triangle or joint): no triangle, a
 * position or joint that is not finite, a triangle index out of range, no joint, a bone
 * of zero length. A non-manifold mesh is bound, with a warning. On error `out` is empty. */
am_status am_bind(const am_bind_mesh *mesh, const am_bind_skeleton *skel, const am_bind_options *opts,
                  am_bind_result *out, am_error *err);
void am_bind_result_free(am_bind_result *r);

/* Load what a bind with these options will solve with (Embree for the ray tests; CHOLMOD
 * and its BLAS for the heat method, about 10 ms), so that am_bind does not wait for it. Meant to run on a thread of
 * its own while the caller reads the mesh; nothing to free, and a library that cannot be
 * loaded is left for am_bind to report. NULL opts: the defaults. */
void am_bind_preload(const am_bind_options *opts);

/* Islands of a mesh and the bones each holds, decided exactly as am_bind decides them
 * (for reports on meshes bound elsewhere). */
typedef struct am_bind_holds {
    size_t island_count;
    size_t joint_count;
    uint32_t *vertex_island;     /* per input vertex */
    size_t *island_vertices;     /* per island: input vertices */
    bool *island_has_faces;      /* false: loose vertices */
    bool *held;                  /* island_count x joint_count, row-major */
    bool *joint_held;            /* per joint: some island holds it */
} am_bind_holds;
am_status am_bind_holds_compute(const am_bind_mesh *mesh, const am_bind_skeleton *skel, am_bind_holds *out,
                                am_error *err);
void am_bind_holds_free(am_bind_holds *h);

/* True when joint j's bone runs along the bone of another joint k with weighted[k] (both
 * ends within tol of k's ends, either way round): the viewer's Bento spine folds mSpine3 and
 * mSpine4 back onto mChest and mTorso like this. Such a bone without weight is not an empty
 * bone: its twin carries that flesh. weighted NULL: any other joint counts. */
bool am_bind_bone_has_twin(const am_bind_skeleton *s, size_t j, double tol, const bool *weighted);

/* docs/reference/quality-figures.md's empty_major, for a major bone j that carries no weight: true when its flesh
 * (the vertices whose nearest bone segment is j's) exists and is weighted mainly to joints
 * that are not j's descendants. A bone whose flesh went to its children (a Bento head
 * weighted to its face bones) or that runs along a weighted twin is not empty; a knee
 * whose flesh went to the hip is. pos: n bind-frame positions; main_joint: per vertex the
 * joint (index into s) with its largest weight, -1 when none; weighted: per joint. */
bool am_bind_bone_is_empty(const am_bind_skeleton *s, size_t j, const float *pos, size_t n, const int *main_joint,
                           const bool *weighted, double height_m);

/* True for joints whose bones docs/reference/quality-figures.md never counts as major (eyes, teeth, tongue). */
bool am_bind_joint_is_minor_kind(const char *name);

#ifdef __cplusplus
}
#endif

#endif
