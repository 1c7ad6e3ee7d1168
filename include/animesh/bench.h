/* animesh/bench.h: the bench: the WRITTEN files posed and skinned the viewer's way, measured.
 *
 * The viewer-faithful bench: reads a WRITTEN mesh asset (and .anim files) through the
 * project's decoders, places the viewer's skeleton the way the viewer does, skins with the
 * viewer's formula, measures, and renders PNGs (render.h). It never sees a writer's
 * in-memory structures: entry points take file paths or bytes only (docs/reference/lessons.md#rule-4).
 *
 * THE VIEWER'S MODEL (docs/reference/viewer-skeleton.md#rest-transforms, #animesh-placement and
 * #joint-position-overrides; docs/reference/mesh-asset.md#skinning-formula and
 * #joint-position-overrides; docs/reference/anim-format.md#curve-evaluation and
 * #playback-for-a-bench):
 *  - Every joint starts at its default rest transform from avatar_skeleton.xml (local pos,
 *    rot, own scale), EXCEPT mPelvis, whose local position under mRoot is (0,0,0) at runtime.
 *  - Overrides: for each skin joint name that resolves (aliases allowed) and only when
 *    alt_inverse_bind has exactly joint_count entries, t = translation of
 *    alt_inverse_bind[i] (elements 12..14) REPLACES the joint's local position (relative to
 *    its VIEWER parent) when |t - file pos| > 0.1 mm. file pos is the default, so an
 *    mPelvis override of (0,0,1.067) is ignored and any other value lifts the whole skeleton.
 *  - mRoot: at the prim (origin of the prim frame), rotation bind_rot = inverse of the bind
 *    shape matrix's rotation (rows normalised; identity for scale/translate bind shapes),
 *    object rotation identity. Non-attached animesh only (the worn branch has no bind_rot).
 *  - Animation (one motion at a time, docs/reference/anim-format.md#playback-for-a-bench): for each
 *    resolved joint of the motion, a rotation curve REPLACES the local rotation and a position
 *    curve REPLACES the local position (overrides included); other joints keep their rest values.
 *    Times are the motion's local time tau; looping maps tau past loop_out as the viewer does
 *    (docs/reference/anim-format.md#time-and-looping).
 *  - World transforms per docs/reference/viewer-skeleton.md#rest-transforms (parent's own scale on
 *    child offsets, scale not inherited); palette P_j = IBM_j then W_j for j < min(110,
 *    joint_count); vertex = bind shape applied, then am_lbs (lbs.h: weights renormalised, index
 *    clamp 109). A skin joint whose name is unknown follows mPelvis (joint number 0,
 *    docs/reference/mesh-asset.md#joint-names-in-the-viewer).
 *
 * FRAMES (src/skin/rig.h):
 *  - PRIM frame: what the viewer draws around the object: origin = the root prim's
 *    position, object axes (prim rotation identity). All FK is done here.
 *  - BIND frame: the frame of the bind positions (bind shape applied), i.e. the
 *    skeleton-file frame (mPelvis default (0,0,1.067)). Mapping used by every report:
 *        bind = inverse(mRoot rotation) * prim + (pelvis file pos - pelvis runtime local pos)
 *    which is prim + (0,0,1.067) when mPelvis carries no applied override and the bind
 *    shape has no rotation. The rest error is measured in the bind frame; an applied
 *    mPelvis override is reported separately (`pelvis_override_applied`, and the prim-frame
 *    positions show where the viewer really draws the mesh).
 *
 * Thread-safety: an am_bench is read-only after loading; calls on one bench may run in
 * parallel. No function prints.
 */
#ifndef AM_ANIMESH_BENCH_H
#define AM_ANIMESH_BENCH_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "animesh/core.h"
#include "animesh/skeleton.h"
#include "animesh/mesh.h"

#ifdef __cplusplus
extern "C" {
#endif

/* One decoded motion held by the bench (defined in bench_anim.c). */
typedef struct am_bench_motion am_bench_motion;

#define AM_BENCH_LOD(lod) ((lod) + 1)

/* Zeroed, the defaults. */
typedef struct am_bench_options {
    int lod; /* AM_BENCH_LOD(AM_LOD_LOWEST..AM_LOD_HIGH); 0: AM_BENCH_LOD_HIGHEST_PRESENT */
} am_bench_options;

typedef struct am_bench {
    const am_skeleton *skel;   /* borrowed; must outlive the bench */
    am_mesh_asset asset;       /* as decoded from the file */
    am_string source;          /* the mesh file as named (its path, kept whole), for reports;
                                  owned: am_bench_free releases it */
    int lod;                   /* the LOD measured */

    /* The measured LOD's faces flattened (faces in order; NoGeometry faces skipped). */
    size_t vertex_count;
    float *bind_pos;           /* 3n: bind frame (bind shape applied), metres */
    float *uv;                 /* 2n, or NULL when no face has UVs */
    uint16_t *vertex_face;     /* n: face index of each vertex */
    uint8_t *joints;           /* 4n: skin joint index per slot as decoded (0 for unused) */
    float *weights;            /* 4n: decoded weights (0 for unused slots) */
    uint8_t *influences;       /* n: used slots per vertex (0..4) */
    size_t triangle_count;
    uint32_t *triangles;       /* 3t: indices into the flattened vertices */

    /* Skin resolution. */
    size_t skin_joint_count;   /* joint_names count */
    size_t palette_count;      /* min(110, skin_joint_count) */
    int *skin_joint;           /* skin_joint_count: skeleton index (0 = mPelvis if unknown) */
    bool *skin_joint_known;    /* skin_joint_count */
    bool overrides_honoured;   /* alt_inverse_bind present with joint_count entries */

    /* The viewer's rest state (per skeleton joint, index = skeleton index). */
    am_vec3 *rest_local_pos;   /* after overrides; mPelvis (0,0,0) unless overridden */
    am_quat *rest_local_rot;
    bool *override_applied;    /* passed the 0.1 mm test */
    bool pelvis_override_applied;
    am_quat root_rot;          /* mRoot rotation = bind_rot (prim rotation identity) */
    am_vec3 bind_minus_prim;   /* pelvis bind pos (from its inverse bind, else the file pos)
                                  - pelvis runtime local pos */
    am_vec3 bind_min, bind_max;/* bind-frame bounding box of the vertices */
    double height;             /* bind_max.z - bind_min.z (H of docs/reference/quality-figures.md), metres */
    bool sides_follow_y;       /* Left bones hold the +Y side and Right bones the -Y side: no
                                  side bone owns (> 0.5) a vertex beyond the midline. False for
                                  e.g. the bend box, whose "hips" hold the -X/+X halves; the
                                  cross-side leak then does not apply. */

    /* Built once at load: the unique triangle edges with bind length > 1e-9 (strain), and
     * the rest pose (prim frame) every pose report measures displacement from. */
    size_t edge_count;
    uint32_t *edges;           /* 2 per edge: vertex indices, lower first, ascending */
    double *edge_rest;         /* bind length per edge, metres */
    float *rest_prim;          /* 3n: the rest pose (no motion), prim frame */

    am_bench_motion **motions;
    size_t motion_count;
} am_bench;

/* Decode the mesh file and compute the viewer's rest state. anim_paths may be NULL when
 * anim_count is 0; opts may be NULL. On failure *out is left empty (nothing to free). */
AM_API am_status am_bench_load(const char *mesh_path, const char *const *anim_paths, size_t anim_count,
                        const am_skeleton *skel, const am_bench_options *opts, am_bench *out,
                        am_error *err);

/* Same from bytes (tests: encoder output straight into the decoder). `source` names it. */
AM_API am_status am_bench_load_mem(const uint8_t *mesh, size_t size, const char *source,
                            const am_skeleton *skel, const am_bench_options *opts, am_bench *out,
                            am_error *err);

/* Add a motion (file or bytes), decoded by the project's .anim decoder. Its index is the
 * previous motion_count. */
AM_API am_status am_bench_add_anim(am_bench *b, const char *path, am_error *err);

AM_API am_status am_bench_add_anim_mem(am_bench *b, const uint8_t *data, size_t size, const char *source,
                                am_error *err);

AM_API void am_bench_free(am_bench *b);

/* --- motions --- */
typedef struct am_bench_motion_info {
    const char *source;        /* the motion's name, whole (borrowed: valid while the bench is) */
    double duration, loop_in, loop_out;
    bool loop;
    int priority;
    size_t joint_count;        /* joint entries in the file */
    size_t unknown_joints;     /* entries whose name the skeleton does not resolve (ignored) */
    size_t key_time_count;     /* distinct key times over all curves, ascending */
    const double *key_times;
} am_bench_motion_info;

AM_API am_status am_bench_motion_get_info(const am_bench *b, size_t motion, am_bench_motion_info *out,
                                   am_error *err);

/* --- posing --- */
/* A local channel set by hand (tests, quality poses, the bend box): replaces the joint's
 * local rotation and/or position exactly as an animation key would. */
typedef struct am_bench_local {
    int joint;                 /* skeleton index */
    bool has_rot, has_pos;
    am_quat rot;
    am_vec3 pos;
} am_bench_local;

/* Pose the mesh. motion -1 = no animation (rest). out_prim: 3 * vertex_count floats (prim
 * frame). out_joints: NULL or skel->joint_count entries, joint world positions (prim frame). */
AM_API am_status am_bench_pose_at(const am_bench *b, int motion, double t, float *out_prim,
                           am_vec3 *out_joints, am_error *err);

/* Which side a set of local channels moves, judged by the joint names (Left/Right) of the
 * channels that differ from rest by more than 1e-6 (rad or m). */
typedef enum am_bench_side { AM_SIDE_NONE = 0, AM_SIDE_LEFT, AM_SIDE_RIGHT, AM_SIDE_BOTH } am_bench_side;

AM_API const char *am_bench_side_name(am_bench_side side);

/* Cross-side leak on a one-sided pose: the largest displacement (rest pose -> posed) of a
 * vertex on the OTHER side (bind y < -1% H for a Left pose, y > 1% H for a Right pose). */
typedef struct am_bench_leak {
    bool applies;              /* the pose is one-sided and b->sides_follow_y */
    am_bench_side side;
    double max_m, max_h;       /* metres and in units of H */
    size_t argmax;
} am_bench_leak;

typedef struct am_bench_stats {
    double max, mean, rms, p99;
    size_t argmax;             /* vertex of the maximum */
} am_bench_stats;

/* Rest reconstruction error: pose with no animation, distance of each deformed vertex
 * (bind frame) from its bind position. */
AM_API am_status am_bench_rest_error(const am_bench *b, am_bench_stats *out, am_error *err);

/* Named vertex sets, chosen by bind-frame conditions joined by ',' (all must hold):
 * "x>=1", "x<=-1,z>0.2", "y>0", "x=2"; axes x y z, operators < <= > >= =. <=, >= and =
 * allow eps = max(1e-4 m, 2 x largest extent / 65535) for the 16-bit position quantisation
 * (a vertex written at x = 1 may decode at 0.99998); < and > are strict.
 * "all" selects every vertex. An empty selection is an error naming the expression. */
typedef struct am_bench_set {
    am_string name;            /* owned strings, as given (am_bench_set_free releases them) */
    am_string expr;
    size_t count;
    uint32_t *index;
} am_bench_set;

AM_API am_status am_bench_select(const am_bench *b, const char *name, const char *expr, am_bench_set *out,
                          am_error *err);

AM_API void am_bench_set_free(am_bench_set *s);

/* docs/reference/quality-figures.md weight report (what applies to a decoded asset). */
typedef struct am_bench_weights {
    size_t vertices;
    size_t unweighted;         /* no slot, or decoded sum < 1e-4 (blocker) */
    size_t sum_dev;            /* |sum of decoded weights - 1| > 0.01 */
    int max_influences;        /* 0..4 (an asset holds at most 4: over4 is always 0) */
    size_t influence_histogram[5];
    size_t bad_joint_index;    /* slots naming a joint >= joint_count (viewer reads garbage) */
    size_t beyond_palette;     /* slots naming a joint >= 110 (clamped to 109 by the shader) */
    size_t unknown_joint_names;/* skin joint names the skeleton does not resolve */
    double cross_side_weight;  /* largest weight a Left bone gives a right-side vertex, or a
                                  Right bone a left-side vertex (|y| > 1% H from the midline) */
    size_t cross_side_vertex;
} am_bench_weights;

AM_API am_status am_bench_weight_report(const am_bench *b, am_bench_weights *out, am_error *err);

#define AM_BENCH_SPIKE_SHARE 0.03

#define AM_BENCH_EXPLODE_SHARE 0.10

/* Strain over the unique triangle edges (b->edges): posed length / bind length; p1 and p99
 * nearest-rank, found by selection. */
typedef struct am_bench_strain {
    size_t edges;              /* with bind length > 1e-9 */
    double p1, p99, min, max;
    double share_outside;      /* fraction of edges outside [0.5, 1.6] (flag above 0.002) */
    /* Tearing: vertices leaving their neighbours (broken weights), which riding a joint
     * never does. An edge tears when it grows beyond AM_BENCH_TEAR_RATIO times its
     * REST-POSE length; its tear is that growth (metres). A part bound rigidly keeps every
     * edge: 0 however far it travels. */
    double tear_m;             /* the largest tear of an edge */
    double tear_ratio;         /* that edge's posed / rest-pose length */
    uint32_t tear_edge[2];     /* its vertices */
    double spike_m;            /* the largest, over vertices torn from EVERY neighbour (a
                                  spike), of the smallest tear of its edges; 0 when none */
    uint32_t spike_vertex;
} am_bench_strain;

static inline bool am_bench_tears(const am_bench_strain *s, double creature_m)
{
    return s->spike_m > AM_BENCH_SPIKE_SHARE * creature_m || s->tear_m > AM_BENCH_EXPLODE_SHARE * creature_m;
}

AM_API am_status am_bench_strain_report(const am_bench *b, const float *prim, am_bench_strain *out, am_error *err);

/* Which joints a sheet draws (`--joints none|dots|names` on the commands that draw sheets):
 * AUTO (the default) draws dots while the skin weights at most AM_RENDER_JOINTS_AUTO_MAX
 * joints and none past that (a raptor's 51 dots hid its legs). */
typedef enum am_render_joints {
    AM_RENDER_JOINTS_AUTO = 0,
    AM_RENDER_JOINTS_NONE,
    AM_RENDER_JOINTS_DOTS,
    AM_RENDER_JOINTS_NAMES
} am_render_joints;

/* At most this many poses per motion. */
#define AM_BENCH_REPORT_MAX_TIMES 64

/* Zeroed, the defaults (core/option.h). */
typedef struct am_bench_report_options {
    const double *times;       /* pose every motion at these times (seconds), or NULL: */
    size_t time_count;
    bool keys;                 /* ... at its key times when keys or at most 16 of them, else 9
                                  even times over [0, duration] */
    double max_rest_error;     /* metres; > 0 adds "pass" to the rest error; 0 (default): no
                                  "pass"; AM_OPTION_ZERO: "pass" only when it is 0 */
    const am_bench_set *sets;  /* vertex sets reported in every pose (am_bench_select) */
    size_t set_count;
    const char *strip_path;    /* the PNG strip written beside the report, or NULL */
    size_t strip_frames;
    const char *strip_view;    /* its view's name (render.h am_view_name) */
} am_bench_report_options;

/* The whole report as JSON text (*text malloc'd, indented by one, reals to 9 digits); *rest
 * (may be NULL) receives the rest error it reports. */
AM_API am_status am_bench_report_json(const am_bench *b, const am_bench_report_options *o, char **text,
                               am_bench_stats *rest, am_error *err);

#ifdef __cplusplus
}
#endif

#endif
