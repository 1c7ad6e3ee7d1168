/* Motions from any file (issue 18): a motion-only FBX (Mixamo's "without skin"), a glTF/GLB
 * animation pack, a BVH, or a clip inside another rigged model (MODEL:CLIP), retargeted onto
 * the viewer skeleton's stock rest or onto a creature's rest (import --anim), following the
 * source's bone directions (retarget.h "FOLLOWING DIRECTIONS").
 *
 *   FILE[:CLIP] --am_scene_load--> scene --am_retarget (follow_directions)--> motions
 *               --am_retarget_write_anim (loop guard, --reduce, encode, decode, compare)--> .anim
 *
 * A .anim file is not a model: it is taken as it is by its callers (anim check, import). */
#ifndef AM_RETARGET_MOTION_FILE_H
#define AM_RETARGET_MOTION_FILE_H

#ifdef __cplusplus
extern "C" {
#endif

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/error.h"
#include "core/io.h"
#include "map/body_plan.h"
#include "retarget/retarget.h"
#include "skeleton/skeleton.h"

/* "FILE[:CLIP]": a reference naming an existing file is that file (a path may hold ':');
 * otherwise it splits at the LAST ':' into the file and the clip. clip is "" when none. */
am_status am_motion_ref_split(const char *ref, char *path, size_t path_size, char *clip, size_t clip_size,
                              am_error *err);

/* One converted motion. */
typedef struct am_motion_file_anim {
    am_string name;            /* the file's stem when it holds one clip, else the clip's name */
    am_string clip;            /* the clip as the file names it */
    size_t joints_mapped;      /* source joints driving a viewer joint */
    size_t joints_unmapped;
    double duration_s;
    size_t keys_before;        /* rotation + position keys sampled */
    size_t keys_after;         /* after --reduce */
    double worst_direction_deg;/* largest bone-direction difference to the source */
    am_string worst_direction_joint;
    bool loops;
    am_string loop_why;
    am_buf anim;               /* the encoded .anim, verified by decoding */
} am_motion_file_anim;

typedef struct am_motion_file_result {
    am_string source;          /* the file */
    am_string holds;           /* what it holds ("65 joints, 1 clip, no mesh") */
    am_motion_file_anim *anims;
    size_t anim_count;
    am_retarget_finding *findings; /* the retargeter's notes and warnings */
    size_t finding_count;
    am_body_plan plan;         /* the motion's skeleton's body plan (body_plan.h) */
} am_motion_file_result;

/* Zeroed, the defaults (the retarget options' own zeroed defaults). */
typedef struct am_motion_file_options {
    am_retarget_options retarget; /* follow_directions is forced on; clips from the reference or
                                     from clips/clip_count; target_rest: the creature's (NULL:
                                     stock) */
    uint32_t hand_pose;        /* 0..13; default 0 */
    bool one_clip;             /* several clips without a choice is refused (anim from-model -o
                                  OUT); default false */
    /* The creature the motion goes onto (NULL: no check). A motion whose body plan differs
     * (am_body_plan_mismatch) is refused naming both plans and the limbs that disagree,
     * unless allow_body_mismatch (then a warning finding says it). */
    const am_body_plan *target_plan;
    bool allow_body_mismatch;  /* default false */
} am_motion_file_options;
void am_motion_file_options_init(am_motion_file_options *o);

/* Load FILE[:CLIP] and convert its clips. Refused (AM_ERR_INVALID, naming the file and what
 * it holds): a motion across body plans (opts.target_plan), a file without clips, a skeleton nothing of which maps to a viewer joint, a clip
 * shorter than one frame (1/30 s); AM_ERR_USAGE: an unknown clip (listing the clips). */
am_status am_motion_file_convert(const char *ref, const am_skeleton *skel, const am_motion_file_options *opts,
                                 am_motion_file_result *out, am_error *err);
/* Frees the result's strings and arrays (on error `out` holds nothing to free). */
void am_motion_file_result_free(am_motion_file_result *r);

/* The body-plan check alone, for the routes that convert without retargeting (a BVH by the
 * viewer's rules, import --anim X.bvh, anim from-bvh): FILE's skeleton read as map suggest
 * reads it (without a map when none can be made: the joints' own viewer names), its plan in
 * *out. A plan that differs from `target` is refused (AM_ERR_INVALID, as
 * am_motion_file_convert) unless allow; then `warning` says it ("" otherwise). A file that
 * cannot be read as a rig has plan other (nothing checked). */
am_status am_motion_file_body_check(const char *path, const am_skeleton *skel, const am_body_plan *target, bool allow,
                                    am_body_plan *out, char *warning, size_t warning_size, am_error *err);

#ifdef __cplusplus
}
#endif

#endif
