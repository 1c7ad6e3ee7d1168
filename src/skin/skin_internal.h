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

/* A face of the high LOD: the rig vertices it uses (first-use order) and its triangles
 * as local indices. */
typedef struct am_skin_face_split {
    size_t vertex_count;
    uint32_t *vertices;   /* rig vertex index per local vertex */
    size_t index_count;
    uint32_t *indices;    /* local, 3 per triangle */
    size_t first_triangle;/* into the rig's triangles (faces take consecutive runs) */
} am_skin_face_split;

/* Split triangles greedily in order into faces of at most `limit` vertices. */
am_status am_skin_split_faces(const uint32_t *triangles, size_t triangle_count, size_t vertex_count, size_t limit,
                              am_skin_face_split *faces, size_t *face_count, am_error *err);
void am_skin_face_split_free(am_skin_face_split *faces, size_t count);

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

/* LOD index lists: simplify `indices` (local to one face, vertex positions `pos` with
 * stride 3 floats) with meshoptimizer, each weight class (vertex_class: equal ids = equal
 * stored influences) to about ratio * its triangles with its border locked; triangles
 * spanning classes are kept. Writes into *out (malloc'd) and its count; never returns an
 * empty list (falls back to the input). */
am_status am_skin_simplify(const uint32_t *indices, size_t index_count, const float *pos, size_t vertex_count,
                           const uint32_t *vertex_class, double ratio, double error, uint32_t **out,
                           size_t *out_count, am_error *err);
/* Weight class per local vertex of a face (dominant joint, plus its weight band when
 * `bands`; see skin_lod.c): equal ids = same class. `vertices` maps local to rig vertex. */
am_status am_skin_weight_classes(const am_skin_result *res, const uint32_t *vertices, size_t count,
                                 bool bands, uint32_t *out, am_error *err);

void am_skin_warn(am_skin_summary *sum, const char *fmt, ...) __attribute__((format(printf, 2, 3)));


/* Shortest of %.15g / %.17g that reads back as the same double (writers' numbers). */
const char *am_skin_fmt(char buf[32], double v);
/* Shortest %.Ng (N = 6..9) that reads back as the same float. */
const char *am_skin_fmt_f32(char buf[32], float v);
/* A joint or file name usable as an XML ID / COLLADA Name_array token: spaces and other
 * characters outside [A-Za-z0-9_.-] become '_' (the uploader's alias map accepts the
 * underscore form of attachment names, skeleton.md 6.1). */
void am_skin_xml_name(char *out, size_t size, const char *name);

#endif
