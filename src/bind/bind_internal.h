/* Bind internals shared by the algorithm files (not part of the public API).
 *
 * Everything here works in the NORMALISED frame: bind-frame metres minus the bounding box's
 * minimum, divided by its height (unit height), on the WELDED vertices of topology.h. */
#ifndef AM_BIND_INTERNAL_H
#define AM_BIND_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bind/bind.h"
#include "bind/topology.h"

/* A bone segment in the normalised frame. */
typedef struct bind_bone {
    float a[3], b[3];   /* head, tail */
    int joint;          /* index into the skeleton's joints */
} bind_bone;

/* Closest point on segment [a, b] to p (clamped projection); returns the distance. */
double am_bind_segment_closest(const float a[3], const float b[3], const float p[3], float out[3]);

/* --- candidate weights: a few (joint, weight) pairs per vertex -------------------- */

#define BIND_CANDIDATES 8

typedef struct bind_candidates {
    uint8_t count;                     /* 0..BIND_CANDIDATES, sorted by weight, largest first */
    uint16_t joint[BIND_CANDIDATES];
    float weight[BIND_CANDIDATES];
} bind_candidates;

/* Insert (joint, w) keeping the largest BIND_CANDIDATES (w <= 0 ignored). */
void am_bind_candidates_add(bind_candidates *c, int joint, float w);

/* --- visibility and inside tests (Embree: visibility.c) -------------------------- */

typedef struct am_bind_vis am_bind_vis;

/* One Embree scene over the welded triangles; tri_island gives each triangle's island. */
am_status am_bind_vis_build(const float *pos, size_t vertex_count, const uint32_t *tris, size_t tri_count,
                            const uint32_t *tri_island, int threads, am_bind_vis **out, am_error *err);
void am_bind_vis_free(am_bind_vis *v);
/* Blender's test (meshlaplacian heat_ray_source_visible): the segment from `from` to `to`
 * (shortened by 1e-5 of its length at each end) meets no triangle from that triangle's
 * front (a face the ray leaves through, i.e. meets from behind, does not block). */
bool am_bind_vis_clear(const am_bind_vis *v, const float from[3], const float to[3]);
/* True when p is inside the (closed) island: odd crossings on at least 2 of 3 rays. */
bool am_bind_vis_inside(const am_bind_vis *v, uint32_t island, const float p[3]);

/* --- the Laplacian (laplacian.c) ------------------------------------------------- */

/* The symmetric cotangent stiffness of the triangles restricted to vertices with
 * index[v] >= 0 (index[v] = row of v): per triangle the FEM weights cot(opposite) / 2 on
 * each edge (so a manifold edge gets (cot a + cot b) / 2, as Blender's weights divided by
 * the edge's face count do), and the mixed Voronoi area of each vertex (Meyer et al.
 * 2002, as Blender's laplacian_triangle_area). Lower triangle, compressed by column:
 * column c's entries are row[col_start[c] .. col_start[c + 1]) (ascending, the diagonal
 * first, every diagonal present) with their values in val; `area` holds one value per row. */
typedef struct bind_laplacian {
    size_t rows;
    size_t nnz;
    size_t *col_start; /* rows + 1 */
    int32_t *row;
    double *val;
    double *area;
} bind_laplacian;
am_status am_bind_laplacian_build(const float *pos, const uint32_t *tris, size_t tri_count, const int32_t *index,
                                  size_t rows, bind_laplacian *out, am_error *err);
void am_bind_laplacian_free(bind_laplacian *l);

/* --- solvers ------------------------------------------------------------------- */

/* A group of welded vertices solved together, each with the bones it may take. */
typedef struct bind_problem {
    const float *pos;           /* normalised welded positions, 3 per vertex */
    const float *normal;        /* unit vertex normals (Blender: sum of face normals) */
    size_t vertex_count;
    const uint32_t *tris;       /* welded triangles */
    size_t tri_count;
    const uint32_t *vertex_island; /* per welded vertex */
    const uint32_t *tri_island;
    const bind_bone *bones;
    size_t bone_count;
    /* Per island: held bones (indices into bones) */
    const uint32_t *island_bone_start; /* island_count + 1 */
    const uint32_t *island_bones;
    const bool *island_solve;   /* per island: solve it here */
    size_t island_count;
    const am_bind_vis *vis;
    int threads;
    size_t joint_count;
} bind_problem;

typedef struct bind_heat_stats {
    size_t unknowns;
    size_t factor_nonzeros;
    int factorisations;
    double seconds_visibility, seconds_factor, seconds_solve;
} bind_heat_stats;

/* The heat solve begun before the routes are known: CHOLMOD loaded, and the system of
 * every vertex of an island with faces (pos, tris: the normalised welded geometry, which
 * must outlive it) built and analysed on a thread of its own while the ray scene is built
 * and the holds found. am_bind_heat takes it up when its rows are those (every island with
 * faces holds a bone: the usual creature), else builds its own. NULL when it cannot be
 * begun (am_bind_heat then meets the same trouble and says so). End it after the heat. */
typedef struct bind_heat_start bind_heat_start;
bind_heat_start *am_bind_heat_begin(const float *pos, size_t vertex_count, const uint32_t *tris, size_t tri_count,
                                    const uint32_t *vertex_island, const size_t *island_tri_count, int threads);
void am_bind_heat_end(bind_heat_start *start);

/* Bone heat over every island with island_solve set. Fills cand[v] for their vertices.
 * island_failed[k] is set for an island the heat could not solve (no vertex sees a held
 * bone, or the factorisation refused it); its vertices are left empty. */
am_status am_bind_heat(const bind_problem *p, bind_heat_start *start, bind_candidates *cand, bool *island_failed,
                       bind_heat_stats *stats, am_error *err);

/* Shepard inverse distance (exponent 1) to the nearest held segments, the 5 nearest kept
 * (the smooth cut needs the 5th). */
void am_bind_segment(const bind_problem *p, bind_candidates *cand);

/* The nearest bone to a set of vertices (for rigid islands and loose vertices): the bone
 * whose segment is nearest to some vertex that sees it (am_bind_vis_clear); when no vertex
 * sees any bone, the nearest regardless. *visible tells which. Returns the bone index. */
int am_bind_nearest_visible_bone(const bind_problem *p, const uint32_t *verts, size_t n, bool *visible,
                                 double *distance);

/* --- voxels (proxy.c) --------------------------------------------------------- */

/* A closed solid from triangles: cells of size h from origin (the box lo..hi padded by
 * 3 cells), every triangle marking the cells it overlaps, the marked cells grown by one, the
 * outside flood-filled from the border and grown back by one: solid = not outside. */
/* The work of marking the surface: each triangle tests only the cells near its plane in
 * its own box; the whole is bounded by AM_BIND_VOXEL_TESTS_PER_CELL tests per grid cell
 * plus AM_BIND_VOXEL_TESTS_PER_TRIANGLE per triangle, after which triangles mark only the
 * cells along their edges; a triangle whose box holds more than
 * AM_BIND_VOXEL_TESTS_PER_TRIANGLE cells and is coincident with one before is skipped. */
#define AM_BIND_VOXEL_TESTS_PER_CELL 32u
#define AM_BIND_VOXEL_TESTS_PER_TRIANGLE 32u
typedef struct bind_voxel_stats {
    uint64_t tests;       /* cell tests (overlap tests, and edge samples) */
    uint64_t budget;      /* the bound above for this grid and mesh */
    size_t triangles;     /* triangles voxelised */
    size_t coincident;    /* skipped: large, and the same three corners as one before */
    size_t edges_only;    /* met after the budget was spent: their edges marked only */
} bind_voxel_stats;

typedef struct bind_voxels {
    int nx, ny, nz;
    float origin[3];
    float h;
    uint8_t *solid;     /* nx*ny*nz, x fastest */
    bind_voxel_stats stats;
} bind_voxels;
/* tri_island NULL: every triangle; else only those of `island`. */
am_status am_bind_voxelise(const float *pos, const uint32_t *tris, size_t tri_count, const uint32_t *tri_island,
                           uint32_t island, const float lo[3], const float hi[3], int resolution, bind_voxels *out,
                           am_error *err);
void am_bind_voxels_free(bind_voxels *v);

/* --- proxy (proxy.c) ---------------------------------------------------------- */

/* A watertight stand-in for one island: voxelised at `resolution` cells along its longest
 * side, closed, remeshed (surface nets), heat-bound with the island's bones, and the
 * weights carried to the island's vertices (inverse-distance blend of the nearest proxy
 * vertices). Fills cand[] for the island's vertices; false when the proxy fails too. */
am_status am_bind_proxy(const bind_problem *p, uint32_t island, const uint32_t *verts, size_t n, int resolution,
                        bind_candidates *cand, bool *ok, char *why, size_t why_size, am_error *err);

/* --- influences (influence.c) ------------------------------------------------- */

typedef struct bind_influence_options {
    double min_weight;
    int max_influences;
    bool side_hygiene;
    double midline_band_m;      /* 1% of height, metres */
} bind_influence_options;

/* Side of a joint by its name: +1 Left, -1 Right, 0 centre (the bench's rule). */
int am_bind_joint_side(const char *name);

/* Clean one vertex's candidates into at most max_influences weights summing to 1.
 * y_m: the vertex's bind-frame y (metres). Returns the count (0 when hygiene removed
 * everything: the caller picks a bone). */
int am_bind_influence_clean(const bind_candidates *in, double y_m, const int *joint_side,
                            const bind_influence_options *o, uint16_t *joint, double *weight);

#endif
