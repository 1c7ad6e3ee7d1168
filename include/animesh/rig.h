/* animesh/rig.h: a rig: a mesh bound to viewer joints, in the bind frame.
 *
 * A rig: a mesh with joints (stock viewer names or aliases) at rest world positions and
 * per-vertex weights. This is the input of the skin builder (docs/rig-json.md).
 *
 * FRAME: `world` and every vertex are in the BIND frame, which is the skeleton-file frame of
 * docs/reference/viewer-skeleton.md#the-pelvis-and-the-two-frames (metres, X forward, Y left, Z up;
 * mPelvis's default at (0, 0, 1.067), feet of a standard avatar near z = 0). At runtime the viewer
 * puts mPelvis AT the prim position
 * (docs/reference/viewer-skeleton.md#the-pelvis-and-the-two-frames, #animesh-placement and
 * #the-pelvis-override-trap), so with mPelvis not overridden the bind-frame point (0, 0, 1.067) is
 * drawn at the prim, and every bind-frame point p at prim + p - (0,0,1.067).
 */
#ifndef AM_ANIMESH_RIG_H
#define AM_ANIMESH_RIG_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "animesh/core.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct am_rig_joint {
    char *name;     /* stock name or alias, as written */
    am_vec3 world;  /* rest world position, bind frame, metres */
    /* Explicit skin only (am_rig.explicit_skin, below): */
    am_mat4 inverse_bind; /* LL layout, written into the skin block as is */
    am_vec3 position;     /* the joint position written as its override (the alternate
                             inverse bind's translation): its local position under its
                             VIEWER parent, metres */
} am_rig_joint;

typedef struct am_rig_influence {
    int joint;      /* index into am_rig.joints */
    double weight;
} am_rig_influence;

typedef struct am_rig {
    char *name;
    am_rig_joint *joints;
    size_t joint_count;

    size_t vertex_count;
    float *positions;            /* 3 * vertex_count, bind frame */
    float *normals;              /* 3 * vertex_count */
    float *uvs;                  /* 2 * vertex_count */
    size_t triangle_count;
    uint32_t *triangles;         /* 3 * triangle_count */
    /* Optional faces (materials), as a file gives them: face f is triangles
     * [face_start[f], face_start[f + 1]), consecutive and in order. face_count 0: all
     * triangles are one run. The skin builder cuts a run further only above its face
     * vertex limit; at most 8 faces in all. */
    size_t face_count;
    size_t *face_start;          /* face_count + 1 triangle offsets (0 .. triangle_count) */

    size_t *weight_start;        /* vertex_count + 1 offsets into influences */
    am_rig_influence *influences;/* weight_start[vertex_count] entries */

    double rgb[3];               /* material colour, 0..1 */
    bool textured;

    /* An EXPLICIT skin: the skin block as a file already rigged to the viewer skeleton
     * carries it (what the viewer's COLLADA uploader takes from a .dae with "include joint
     * positions", docs/reference/collada-upload.md), written as is instead of computed from `world`.
     * When set:
     *  - the skin's joints are exactly `joints`, in order: no viewer ancestor is appended;
     *  - positions and normals are in the mesh's own space and the bind frame is
     *    positions * bind_shape (LL layout, row vectors); the asset's bind shape is the
     *    uploader's unit-cube normalisation followed by this matrix;
     *  - each joint's inverse_bind is written as is; with has_joint_positions each
     *    alternate inverse bind is that inverse bind with its translation replaced by the
     *    joint's `position` (docs/reference/collada-upload.md#joint-positions step 2), else none are written;
     *  - `world` is for reports only: where the viewer puts the joint at rest. */
    bool explicit_skin;
    am_mat4 bind_shape;
    bool has_joint_positions;
} am_rig;

/* Parse the rig JSON of the README; errors name the file and the field
 * ("rig.json: weights[12][1]: joint index 7 out of range (5 joints)"). */
AM_API am_status am_rig_parse_json(const char *json, size_t size, const char *source, am_rig *out, am_error *err);

AM_API am_status am_rig_load(const char *path, am_rig *out, am_error *err);

/* Write the same schema (for generated rigs such as the bend box). */
AM_API am_status am_rig_to_json(const am_rig *rig, am_buf *out, am_error *err);

AM_API void am_rig_free(am_rig *rig);

#ifdef __cplusplus
}
#endif

#endif
