/* animesh/bind.h: automatic binding: weights for an unrigged mesh (bone heat), with the rigger's report.
 *
 * Automatic binding: a mesh + stock joints at world positions -> per-vertex weights (at
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
#ifndef AM_ANIMESH_BIND_H
#define AM_ANIMESH_BIND_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "animesh/core.h"
#include "animesh/skeleton.h"
#include "animesh/scene.h"
#include "animesh/rig.h"

#ifdef __cplusplus
extern "C" {
#endif

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

AM_API void am_bind_skeleton_free(am_bind_skeleton *s);

typedef struct am_bind_mesh {
    size_t vertex_count;
    const float *positions;      /* 3 per vertex, bind frame, metres */
    size_t triangle_count;
    const uint32_t *triangles;   /* 3 per triangle */
} am_bind_mesh;

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

AM_API void am_bind_options_init(am_bind_options *opts);

typedef enum am_bind_route {
    AM_ROUTE_HEAT = 0,       /* bone heat on the island itself */
    AM_ROUTE_SEGMENT,        /* distance to bone segments on the island itself */
    AM_ROUTE_RIGID,          /* holds no bone: one bone at 1.0 */
    AM_ROUTE_PROXY,          /* solved on a voxel proxy, weights transferred */
    AM_ROUTE_SEGMENT_FALLBACK/* heat and proxy failed: distance to segments */
} am_bind_route;

AM_API const char *am_bind_route_name(am_bind_route r);

AM_API const char *am_bind_method_name(am_bind_method m);

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
AM_API am_status am_bind(const am_bind_mesh *mesh, const am_bind_skeleton *skel, const am_bind_options *opts,
                  am_bind_result *out, am_error *err);

AM_API void am_bind_result_free(am_bind_result *r);

typedef struct am_bind_frame {
    int up;          /* signed axis, 0 = declared or +Z */
    int forward;     /* signed axis, 0 = +X (Z up) or +Z (Y up) */
    double unit_m;   /* metres per file unit, 0 = declared, else from the stature */
} am_bind_frame;

/* The mesh to bind: every mesh of the scene, concatenated, in the bind frame. */
typedef struct am_bind_source {
    am_string name;          /* from the file name, made a valid rig name (1..100 characters) */
    size_t vertex_count;
    float *positions;        /* 3 per vertex, bind frame, metres */
    float *normals;          /* 3 per vertex (computed when the file has none) */
    float *uvs;              /* 2 per vertex (0 when the file has none) */
    size_t triangle_count;
    uint32_t *triangles;
    uint32_t *vertex_mesh;   /* scene mesh of each vertex */
    double rgb[3];
    bool textured;
    bool had_weights;        /* the file carried a skin: its weights are not used */
    am_string conversion;    /* "Z up, forward +X, 1 unit = 1 m (declared)" */
    double unit_m;           /* metres per file unit applied (given, declared or from the stature) */
} am_bind_source;

AM_API void am_bind_source_free(am_bind_source *s);

AM_API am_status am_bind_source_from_scene(const am_scene *scene, const am_bind_frame *frame, am_bind_source *out,
                                    am_error *err);

/* The mesh view am_bind takes. */
AM_API am_bind_mesh am_bind_source_mesh(const am_bind_source *s);

AM_API am_status am_bind_skeleton_load(const char *path, const am_skeleton *viewer, double height_m, am_bind_skeleton *out,
                                am_error *err);

/* The joints of a rigged model (--like): each skin joint whose name is a viewer joint, at
 * its bind position (the inverse of its inverse bind matrix; the node's world transform
 * when the file has no inverse binds), in the bind frame of `frame`. Joints the viewer
 * does not know are left out and counted in *skipped. */
AM_API am_status am_bind_skeleton_from_scene(const am_scene *scene, const am_bind_frame *frame, const am_skeleton *viewer,
                                      double height_m, am_bind_skeleton *out, size_t *skipped, am_error *err);

/* The bound mesh as a rig: joints = the skeleton's (world = head), the source's vertices,
 * its triangles (those repeating a vertex index left out), the result's weights. */
AM_API am_status am_bind_to_rig(const am_bind_source *src, const am_bind_skeleton *skel, const am_bind_result *res,
                         am_rig *out, am_error *err);

#ifdef __cplusplus
}
#endif

#endif
