/* animesh/skin.h: the skin builder: a rig in, the mesh asset the viewer draws right out.
 *
 * The skin builder: a rig (rig.h) + the viewer skeleton -> a rigged mesh asset
 * (mesh_asset.h) ready for am_mesh_asset_encode, plus the same skin written as a COLLADA
 * file for the viewer's uploader and as WorldBridge meshdata JSON.
 *
 * A rig with an EXPLICIT skin (rig.h: a file already rigged to the viewer skeleton) skips
 * step 1's closed set and step 2's computation: its joints, inverse binds, joint positions
 * and bind shape are written as given; every other step is the same.
 *
 * What it does, in order (each step names the reference it follows):
 *   1. Joints (skin_joints.c): every rig joint name resolved through the skeleton (aliases
 *      allowed, unknown names refused by name, two rig joints on one stock joint refused);
 *      the closed set: the rig's joints in rig order (so a rig weight index j is skin
 *      joint j), then the missing viewer ancestors appended, parents first (ascending viewer
 *      joint number); <= 110 joints (AM_MAX_JOINTS_PER_MESH).
 *   2. Overrides and inverse binds (docs/reference/mesh-asset.md#the-skin-block and
 *      #joint-position-overrides; docs/reference/lessons.md#rule-3;
 *      docs/reference/viewer-skeleton.md#the-pelvis-override-trap): each joint's alt translation is
 *      its offset from its VIEWER parent, measured from where that parent will really be in the
 *      viewer (its own override if the viewer applies it, else its default). An offset within 0.1
 *      mm of the default is written as the default exactly (the viewer would ignore it anyway);
 *      appended ancestors sit at their default; mPelvis is written exactly (0, 0, 1.067) unless the
 *      rig moves it by more than 0.1 mm (then a warning: the whole mesh is drawn relative to
 *      mRoot). The inverse bind of a joint is the inverse of its bind-frame world matrix as the
 *      viewer will build it from those overrides, so the rest pose is drawn undeformed.
 *   3. Weights (skin_weights.c, docs/reference/mesh-asset.md#weights): influences on one joint
 *      merged, at most 4 kept (smallest dropped), renormalised, quantised so the stored codes of
 *      every vertex sum to exactly 65535 (the residual of truncation goes to the largest
 *      influence). An influence whose code would be 0 is dropped (the viewer would decode it as
 *      0.001). A vertex with no positive influence is refused by index.
 *   4. Triangle budget (skin_budget.c): a high LOD over `max_tris` (by default: what fits the
 *      region's animesh limit and 8 faces) is reduced to it before anything else is built,
 *      weight-aware like the LODs (step 6), unused vertices dropped; a budget that cannot be
 *      met is refused here, before the expensive steps, naming the number to pass. Not for
 *      an explicit skin or a rig with its own faces (rig.h): those are written as given.
 *   5. Faces (skin_faces.c): one face in the triangles' own order when every vertex fits in
 *      `face_vertex_limit`; else at most 8 compact faces split by space and dominant joint
 *      (res->triangles reordered face by face), a vertex on a face border written once per
 *      face (summary.duplicated_share). A rig's own faces are kept in order, never crossed,
 *      each cut further (in order) only above the limit.
 *   6. Positions into the unit cube as the uploader does
 *      (docs/reference/mesh-asset.md#positions-in-the-unit-cube, in F32), the normalisation folded
 *      into the bind shape matrix: BSM = T(centre) S(size), so the asset's bind shape is exactly
 *      what the uploader would compute from our .dae.
 *   7. LODs (skin_lod.c), per face: medium/low/lowest simplified from the previous LOD with
 *      meshoptimizer, weight-aware (weight classes with locked borders, then the borders
 *      thinned where no weight changes by more than lod_weight_tol); simplification only
 *      drops vertices, so every kept vertex carries its own weights and UVs.
 * Cost (skin_cost.c, docs/reference/mesh-asset.md#triangle-limit and #streaming-cost) needs the
 * compressed LOD sizes, so it is computed by am_skin_encode.
 *
 * FRAME: positions, joint worlds and the COLLADA/meshdata geometry are in the rig's bind
 * frame (rig.h): the skeleton-file frame, mPelvis default at (0, 0, 1.067). In-world the
 * bind point (0, 0, 1.067) is drawn at the prim position (mPelvis not overridden).
 */
#ifndef AM_ANIMESH_SKIN_H
#define AM_ANIMESH_SKIN_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "animesh/core.h"
#include "animesh/skeleton.h"
#include "animesh/rig.h"
#include "animesh/mesh.h"

#ifdef __cplusplus
extern "C" {
#endif

/* OpenSim's default AnimatedObjectMaxTris (advertised in SimulatorFeatures). */
#define AM_SKIN_DEFAULT_REGION_MAX_TRIS 150000

/* am_skin_options.max_tris: reduce to what fits (the default) / never reduce. */
#define AM_SKIN_MAX_TRIS_AUTO 0

#define AM_SKIN_MAX_TRIS_NONE (-1)

typedef struct am_outset am_outset;

typedef struct am_skin_summary am_skin_summary;

/* Free the summary's strings; it is zeroed afterwards. Safe on a zeroed summary. */
AM_API void am_skin_summary_free(am_skin_summary *summary);

/* A deep copy of src into dst (dst's old strings freed); false when out of memory (dst then
 * holds a partial copy, still valid to free). */
AM_API bool am_skin_summary_copy(am_skin_summary *dst, const am_skin_summary *src);

/* A caller's own file beside the skin's, made from the encoded asset (the CLI's and bind's
 * preview page; the skin module itself knows nothing of the preview). Called by the export once the skin's files are in the output set and before it
 * is committed, with NAME (the files' stem) and the .llmesh bytes; it adds its file to `set`
 * and may note its path in `summary->preview_path`. Its error fails the export and nothing
 * is put in place. */
typedef am_status (*am_skin_page_fn)(void *ctx, am_outset *set, const char *name, const uint8_t *mesh,
                                       size_t mesh_size, const am_skeleton *skel, struct am_skin_summary *summary,
                                       am_error *err);

/* Zeroed, the defaults (core/option.h); a field where zero is a choice takes AM_OPTION_ZERO
 * for it. */
typedef struct am_skin_options {
    long region_max_tris;        /* triangle limit checked (estimate, 8.2); 0: the default
                                    AM_SKIN_DEFAULT_REGION_MAX_TRIS; AM_OPTION_ZERO (any
                                    negative): not checked */
    long max_tris;               /* triangle budget of the high LOD (step 4):
                                    > 0: at most this many triangles (refused before the build
                                         when the prediction says it cannot fit the region
                                         limit or 8 faces, with the number that does);
                                    AM_SKIN_MAX_TRIS_AUTO (0, the default): what fits region_max_tris (the
                                         viewer's estimate from the high LOD's compressed size,
                                         predicted from this mesh's bytes per triangle) and
                                         8 faces of face_vertex_limit vertices;
                                    AM_SKIN_MAX_TRIS_NONE: never reduced (a mesh that cannot
                                         fit is refused before the build) */
    size_t face_vertex_limit;    /* 3 .. 65536; 0: the default AM_SKIN_DEFAULT_FACE_VERTEX_LIMIT */
    bool budget_given_skin;      /* the budget applies to an explicit skin too (import: the
                                    uploader's asset reduced when it cannot fit); the rig's
                                    faces must then be merged (face_count 0) by the caller;
                                    default false */
    bool unreduced_lods;         /* every LOD block carries the high LOD (default false: the
                                    medium, low and lowest LODs simplified) */
    bool high_lod_only;          /* only the high LOD is built and carried (the lower LOD
                                    blocks absent, no simplification): a skin measured in
                                    memory and never written (the report: the bench reads
                                    the highest LOD); its cost would count the high LOD alone;
                                    default false */
    double lod_ratio[3];         /* target triangles of medium/low/lowest as a fraction of
                                    the LOD above (0: the default 0.25 each) */
    double lod_error[3];         /* meshoptimizer relative error bound per LOD
                                    (0: the defaults 0.01, 0.03, 0.1) */
    double lod_weight_tol[3];    /* class borders thinned per LOD where no weight changes by
                                    more than this (0: the defaults 0.05, 0.1, 0.15;
                                    AM_OPTION_ZERO: borders kept whole) */
    bool lod_weight_blind;       /* plain simplification, weights ignored (one class): for
                                    comparisons only (a distant LOD then folds as a wedge);
                                    default false */
    bool require_meshdata;       /* the WorldBridge meshdata must be written: a skin that needs
                                    several faces is refused right after the face split (before
                                    the LODs), and the automatic budget fits one face;
                                    default false */
    double pelvis_offset;        /* written as pelvis_offset (no effect on animesh, 7.5);
                                    default 0 */
    bool lock_scale_if_joint_position; /* written as the skin's flag; default false */
    am_skin_page_fn page;        /* optional: a file more in the same set (see above); NULL: none */
    void *page_ctx;              /* passed to page */
    const char *texture_image;   /* optional: image file (relative to the .dae) the COLLADA
                                    material samples when the rig is textured, e.g. the bend
                                    box atlas PNG; NULL: diffuse colour only */
    const char *face_images[AM_MESH_MAX_FACES]; /* optional: per face of the rig, its own
                                    image (a merged creature's parts' materials); used when
                                    face_image_count is the skin's face count, else
                                    texture_image for every face */
    size_t face_image_count;
    int threads;                 /* threads for the faces' LODs (each face is simplified on its
                                    own; the result does not depend on it): 0 = one per core,
                                    1 = the caller's thread only */
} am_skin_options;

/* The defaults, written out (the same meaning as a zeroed struct). */
AM_API void am_skin_options_init(am_skin_options *opts);

/* One skin joint, in skin order (= joint_names order). */
typedef struct am_skin_joint_info {
    am_string name;         /* canonical viewer name (joint_names entry) */
    int skel_joint;         /* index into am_skeleton.joints */
    int rig_joint;          /* index into am_rig.joints; -1 for an appended ancestor */
    int parent;             /* skin index of the viewer parent; -1 at the top (mRoot) */
    am_vec3 rig_world;      /* the rig's bind-frame world position (appended: = bind_world) */
    am_vec3 bind_world;     /* where the viewer puts it at rest, bind frame */
    am_vec3 alt_pos;        /* alt translation written: local position under the viewer parent */
    am_vec3 default_pos;    /* the skeleton file's `pos` */
    bool overridden;        /* |alt_pos - default_pos| > 0.1 mm: the viewer applies it */
    double snap_m;          /* |bind_world - rig_world| (< 0.1 mm; 0 unless snapped) */
} am_skin_joint_info;

/* Owned: free with am_skin_summary_free (am_skin_result_free frees the result's). */
typedef struct am_skin_summary {
    am_string name;
    am_skin_joint_info joints[AM_MAX_JOINTS_PER_MESH];
    size_t joint_count;
    size_t rig_joint_count;      /* joints named by the rig */
    size_t appended_count;       /* viewer ancestors added */
    size_t override_count;       /* joints the viewer will move */
    bool pelvis_moved;           /* the rig moves mPelvis: placement changes
                                    (docs/reference/viewer-skeleton.md#the-pelvis-override-trap) */

    size_t face_count;
    size_t face_vertex_limit;    /* faces were split above this many vertices */
    size_t vertex_count;         /* high LOD, over all faces (a vertex on a face border counts
                                    once per face) */
    size_t unique_vertex_count;  /* high LOD vertices, each once */
    double duplicated_share;     /* vertex_count / unique_vertex_count - 1 */
    size_t lod_triangles[AM_LOD_COUNT];
    size_t lod_vertices[AM_LOD_COUNT];

    /* triangle budget (step 4) */
    long budget_tris;            /* the budget that applied (0: none) */
    bool budget_auto;            /* chosen to fit (not given) */
    size_t tris_in;              /* the rig's triangles */
    size_t tris_removed;         /* by the budget */
    size_t vertices_removed;     /* no longer used after the budget */
    size_t tris_fit_one_face;    /* about the most triangles that fit one face (meshdata) */

    /* seconds per step (a profile; 0 for steps not run) */
    double seconds[8];           /* AM_SKIN_T_* */

    /* weights */
    size_t max_influences_in;    /* most influences on one vertex in the rig (after merging) */
    size_t max_influences_out;   /* <= 4 */
    size_t vertices_capped;      /* vertices with more than 4 influences (the limit dropped some) */
    size_t vertices_small_dropped; /* vertices that lost an influence too small to store (code 0) */
    size_t influences_dropped;   /* influences removed by that limit or quantised to 0 */
    size_t vertices_renormalised;/* input sums off 1 by more than 1e-3 */
    size_t coincident_conflicts; /* vertex pairs at one position with different weights (the
                                    uploader merges them, docs/reference/collada-upload.md#weights) */

    /* cost, filled by am_skin_encode (docs/reference/mesh-asset.md#triangle-limit and #streaming-cost) */
    bool cost_known;
    size_t lod_bytes[AM_LOD_COUNT];  /* compressed block sizes */
    double est_tris[AM_LOD_COUNT];
    double est_tris_max;             /* what the region limit is compared with */
    double streaming_tris;           /* getEstTrisForStreamingCost */
    double streaming_cost;           /* 15 (animated root) + 1.5 * streaming_tris / 1000 */
    long region_max_tris;
    bool over_region_limit;

    /* written files (when the skin is exported into an output set) */
    am_string llmesh_path;
    am_string dae_path;
    am_string meshdata_path;
    am_string preview_path;          /* the page opts.page added (NAME.preview.html), else "" */
    bool meshdata_written;
    bool meshdata_removed; /* an old NAME.meshdata.json this run could not rewrite was removed */
    size_t temps_swept;    /* temp files of a killed earlier run removed from DIR */

    am_string *warnings;             /* one sentence each, every one kept */
    size_t warning_count;
    size_t warning_cap;
    size_t warnings_dropped;         /* lost for want of memory (0 otherwise) */
} am_skin_summary;

/* The built skin. `asset` is ready for am_mesh_asset_encode. The geometry below is the
 * high LOD in the BIND frame (not normalised; for an explicit skin in the mesh's space,
 * see source_bind_shape), faces in order, which is what the .dae and the meshdata carry.
 * Vertex i is rig vertex i unless a triangle budget dropped vertices (then rig_vertex[i]
 * names it). Owned; free with am_skin_result_free. */
typedef struct am_skin_result {
    am_mesh_asset asset;
    am_skin_summary summary;

    size_t vertex_count;
    uint32_t *rig_vertex;      /* NULL (vertex i is rig vertex i) or the rig vertex of each */
    float *positions;          /* 3 per vertex, bind frame */
    float *normals;            /* 3 per vertex, unit */
    float *uvs;                /* 2 per vertex */
    uint8_t *weight_count;     /* per vertex, 1..4 */
    uint8_t *weight_joint;     /* 4 per vertex: skin joint index */
    double *weight_value;      /* 4 per vertex: capped and renormalised (sum 1) */
    uint16_t *weight_code;     /* 4 per vertex: stored codes (sum 65535) */
    size_t triangle_count;
    uint32_t *triangles;       /* 3 per triangle, grouped by face */
    size_t face_count;
    size_t face_tri_start[AM_MESH_MAX_FACES + 1]; /* triangles of face f: [start[f], start[f+1]) */
    double rgb[3];
    bool textured;
    am_string texture_image;   /* from the options ("" = none) */
    am_string face_images[AM_MESH_MAX_FACES]; /* per face (face_image_count == face_count): the
                                                 .dae gives each face its own material */
    size_t face_image_count;
    /* Maps `positions` to the bind frame: identity, except for a rig with an explicit skin
     * (rig.h), whose positions stay in the mesh's own space; the .dae and the meshdata
     * carry it as their bind shape. */
    am_mat4 source_bind_shape;
} am_skin_result;

/* Build the skin. Errors name the joint, vertex or triangle ("rig 'x': vertex 12: no
 * influence with a positive weight"). On error `out` is left empty (nothing to free). */
AM_API am_status am_skin_build(const am_rig *rig, const am_skeleton *skel, const am_skin_options *opts,
                        am_skin_result *out, am_error *err);

/* Encode the asset (am_mesh_asset_encode) into `out` and fill the cost figures of the
 * summary. Does not fail on the region limit (see summary.over_region_limit). */
AM_API am_status am_skin_encode(am_skin_result *res, am_buf *out, am_error *err);

/* The COLLADA 1.4.1 file for the viewer's uploader with "include joint positions"
 * (docs/reference/collada-upload.md#exporter-checklist): Z_UP, metres, geometry in the bind frame with an identity bind
 * shape, one <triangles> per face, joint nodes nested as the viewer skeleton with
 * <translate sid="translate"> = the override the skin block carries. */
AM_API am_status am_skin_write_collada(const am_skin_result *res, am_buf *out, am_error *err);

/* WorldBridge meshdata JSON (docs/reference/worldbridge.md). Refuses a skin with more than one face:
 * WorldBridge writes weights into submesh 0 only (docs/reference/lessons.md#rule-12). */
AM_API am_status am_skin_write_meshdata_json(const am_skin_result *res, am_buf *out, am_error *err);

AM_API void am_skin_result_free(am_skin_result *res);

#ifdef __cplusplus
}
#endif

#endif
