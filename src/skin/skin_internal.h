/* Steps of the skin builder shared between src/skin files (not a public API: use
 * skin_build.h). */
#ifndef AM_SKIN_INTERNAL_H
#define AM_SKIN_INTERNAL_H

#include "skin/skin_build.h"

/* Resolve the rig's joints, close the set, compute overrides and inverse binds.
 * Fills sum->joints / joint_count / rig_joint_count / appended_count / override_count /
 * pelvis_moved (+ warning), rig_to_skin[rig joint] = skin index, and per skin joint the
 * inverse bind and alternate inverse bind (LL layout). ibm/alt hold AM_MAX_JOINTS_PER_MESH. */
am_status am_skin_build_joints(const am_rig *rig, const am_skeleton *skel, am_skin_summary *sum, int *rig_to_skin,
                               am_mat4 *ibm, am_mat4 *alt, am_error *err);

/* A face of the high LOD: the result vertices it uses (first-use order) and its triangles
 * as local indices. */
typedef struct am_skin_face_split {
    size_t vertex_count;
    uint32_t *vertices;   /* result vertex index per local vertex */
    size_t index_count;
    uint32_t *indices;    /* local, 3 per triangle */
    size_t first_triangle;/* into res->triangles (faces are consecutive runs) */
} am_skin_face_split;

/* Split res->triangles into faces of at most `limit` vertices (skin_faces.c): one face in
 * the triangles' own order when every vertex fits, else compact faces by space and dominant
 * joint, res->triangles reordered so each face is a consecutive run. `run_start` (run_count
 * + 1 triangle offsets; NULL with 0) are the rig's own faces: kept, in order, never crossed,
 * each cut further in order only above the limit. */
am_status am_skin_split_faces(am_skin_result *res, size_t limit, const size_t *run_start, size_t run_count,
                              am_skin_face_split *faces, size_t *face_count, am_error *err);
void am_skin_face_split_free(am_skin_face_split *faces, size_t count);
/* The order the split walks a mesh too big for one face in: by region (dominant joint) in
 * a walk of the joint tree, then along the region's main axis. region_of[t] receives each
 * triangle's region rank. */
am_status am_skin_spatial_order(const am_skin_result *res, uint32_t *order, uint32_t *region_of, am_error *err);

/* The uploader's unit-cube normalisation (LLModel::normalizeVolumeFaces), in F32, over the
 * vertices used by the faces. centre = mNormalizedTranslation, size = mNormalizedScale. */
typedef struct am_skin_norm {
    float trans[3];   /* -(min + max) / 2 */
    float scale[3];   /* 1 / size */
    float inv_scale[3]; /* 1 / scale: NormalizedScale */
} am_skin_norm;
void am_skin_norm_compute(const float *positions, const am_skin_face_split *faces, size_t face_count,
                          am_skin_norm *norm);
void am_skin_norm_position(const am_skin_norm *n, const float *p, float out[3]);
void am_skin_norm_normal(const am_skin_norm *n, const float *nin, float out[3]);
am_mat4 am_skin_norm_bind_shape(const am_skin_norm *n);

/* A mesh for simplification (skin_lod.c): positions and stored influences per vertex. */
typedef struct am_lod_mesh {
    const float *pos;        /* 3 per vertex */
    size_t vertex_count;
    const uint8_t *count;    /* influences per vertex (1..4) */
    const uint8_t *joint;    /* 4 per vertex: skin joint per slot */
    const float *weight;     /* 4 per vertex: weight per slot (stored code / 65535) */
    const float *nrm;        /* 3 per vertex, or NULL: which side of a hard edge a corner of
                                a new triangle takes (skin_lod_seams.c) */
} am_lod_mesh;

/* One simplification: each weight class to about `ratio` of its triangles within the
 * relative geometric `error` (meshoptimizer's, a fraction of the mesh's extent), borders
 * locked; then, when weight_tol > 0, the class borders thinned where no weight changes by
 * more than weight_tol and the line stays within the error, and the classes simplified
 * again. ratio >= 1: the input unchanged. */
typedef struct am_lod_step {
    const uint32_t *cls;     /* class per vertex (am_skin_weight_classes) */
    double ratio;
    double error;
    double weight_tol;
    double border_error;     /* geometric bound of the border thinning, relative like error
                                (0: the same as error) */
    bool groups_parallel;    /* the weight classes simplified side by side on every core (the
                                result is the same): for a caller not already running
                                several of these at once */
} am_lod_step;

/* Simplify `indices` (into m's vertices); *out is malloc'd. Never returns an empty list
 * (falls back to the input). Seams (flat shading, UV seams, unwelded corners: vertices at
 * one position with the same weights) do not stop it: it simplifies on a position-and-
 * weights shadow index, then gives the kept triangles their own split vertices back
 * (skin_lod_seams.c). */
am_status am_skin_simplify(const am_lod_mesh *m, const uint32_t *indices, size_t index_count, const am_lod_step *step,
                           uint32_t **out, size_t *out_count, am_error *err);
/* The simplification itself (skin_lod.c), on indices whose shared edges share vertices. */
am_status am_skin_simplify_welded(const am_lod_mesh *m, const uint32_t *indices, size_t index_count,
                                  const am_lod_step *step, uint32_t **out, size_t *out_count, am_error *err);
/* Weight class per vertex: the dominant joint, and with `bands` its weight's quarter band
 * (1.0 alone, [0.75, 1), [0.5, 0.75), below): equal ids = same class, ids dense from 0. */
am_status am_skin_weight_classes(const am_lod_mesh *m, bool bands, uint32_t *out, am_error *err);

/* Step 4 (skin_budget.c): choose the triangle budget, refuse one that cannot fit (before the
 * expensive steps, naming the number to pass), reduce the high LOD to it and drop the
 * vertices no longer used. Fills the summary's budget figures. */
am_status am_skin_apply_budget(am_skin_result *res, const am_skin_options *opts, am_error *err);

/* The skin result's vertices as a mesh for simplification; weight floats are malloc'd into
 * *weights (free it). */
am_status am_skin_lod_mesh(const am_skin_result *res, am_lod_mesh *m, float **weights, am_error *err);

void am_skin_warn(am_skin_summary *sum, const char *fmt, ...) __attribute__((format(printf, 2, 3)));


/* Shortest of %.15g / %.17g that reads back as the same double (writers' numbers). */
const char *am_skin_fmt(char buf[32], double v);
/* Shortest %.Ng (N = 6..9) that reads back as the same float. */
const char *am_skin_fmt_f32(char buf[32], float v);
/* A joint or file name usable as an XML ID / COLLADA Name_array token: spaces and other
 * characters outside [A-Za-z0-9_.-] become '_' (the uploader's alias map accepts the
 * underscore form of attachment names, docs/reference/viewer-skeleton.md#valid-joint-names). */
void am_skin_xml_name(char *out, size_t size, const char *name);

#endif
