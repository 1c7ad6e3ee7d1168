/* src/retarget/retarget.h: the private side of include/animesh/retarget.h, where its manual is. */
#ifndef AM_RETARGET_H
#define AM_RETARGET_H

#include "animesh/retarget.h"

#ifdef __cplusplus
extern "C" {
#endif

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "anim/anim.h"
#include "core/am_string.h"
#include "core/error.h"
#include "map/axes.h"
#include "map/body.h"
#include "map/map_suggest.h"
#include "scene/scene.h"
#include "skeleton/jointmap.h"
#include "skeleton/skeleton.h"
#include "skin/rig.h"
#include "core/option.h"

typedef struct am_retarget_rig {
    am_string name;
    int mesh;              /* scene mesh */
    am_rig rig;            /* bind frame, stock joint names */
    size_t unweighted;     /* vertices that had no weight: given to the top mapped joint */
} am_retarget_rig;

typedef struct am_retarget_anim {
    am_string name;        /* from the clip, sanitised (A-Z a-z 0-9 _ - .), unique */
    am_string clip;        /* the clip's own name */
    int clip_index;
    am_motion motion;      /* ready for am_motion_write_anim (AM_MOTION_CLIP_TIMES) */
    am_motion_track *tracks;
    size_t clip_keys;      /* distinct key times in the clip */
    size_t samples;        /* samples written (keys + between-key samples) */
    size_t position_tracks;
    double reduce_deg;     /* from the options: applied when written */
    double loop_closed_deg, loop_closed_m; /* follow_directions: the gap closed at the seam */
    /* With follow_directions: the largest angle between a viewer bone (as the keys pose it,
     * before quantisation) and the source's bone between the same joints, over the samples,
     * and where (bench/perf/benchmark_motion measures the written, decoded file instead). */
    double worst_direction_deg;
    am_string worst_direction_joint;
    bool loops;
    am_string loop_why;
    /* owned storage behind the tracks */
    double *times;
    am_quat *rot;
    am_vec3 *pos;
} am_retarget_anim;

typedef struct am_retarget_result {
    am_body body;
    am_axes axes;
    am_map_suggestion suggestion; /* per rig joint: target, confidence, reason */
    am_joint_map map;             /* the map used (passes am_joint_map_check) */
    am_mat4 to_viewer;            /* A: file frame -> viewer bind frame */
    am_vec3 placement;            /* o */
    am_vec3 pelvis_bind;          /* mPelvis in the bind frame */
    am_vec3 root_bind;            /* mRoot (the prim) in the bind frame */
    bool pelvis_overridden;       /* the viewer applies an mPelvis override */
    am_retarget_rig *rigs;
    size_t rig_count;
    am_retarget_anim *anims;
    size_t anim_count;
    am_retarget_finding *findings;
    size_t finding_count;
} am_retarget_result;

/* The whole route. A scene without a skinned mesh gives motions only (a BVH). Refused:
 * a scene without joints, a skinned mesh whose skin has no mapped joint, a clip over 60 s
 * (named), an unknown --clip name, ambiguous axes (axes.h), a map that fails the check. */
am_status am_retarget(const am_scene *scene, const am_skeleton *skel, const am_retarget_options *opts,
                      am_retarget_result *out, am_error *err);
void am_retarget_result_free(am_retarget_result *r);

/* Write motion i as an .anim (am_motion_write_anim at the sampled times: loop guard,
 * encode, decode again and compare, atomic write). path may be NULL (bytes only). */
am_status am_retarget_write_anim(const am_retarget_result *r, size_t i, const am_skeleton *skel, const char *path,
                                 am_buf *out_bytes, am_motion_stats *stats, am_error *err);

/* Where the viewer draws every joint of `skel` at rest for a rig (the skin builder's rule:
 * a rig joint at its position unless within 0.1 mm of its default offset, any other joint at
 * its default offset from its viewer parent): out[skel->joint_count], bind frame. rig NULL:
 * the stock avatar. The target_rest of a motion retargeted onto that creature. */
void am_retarget_rest_of_rig(const am_rig *rig, const am_skeleton *skel, am_vec3 *out);

/* A name made safe for files: A-Z a-z 0-9 _ - . kept, anything else '_', at most 64
 * characters, "clip" when empty. */
void am_retarget_sanitise(const char *in, char *out, size_t size);

#ifdef __cplusplus
}
#endif

#endif
