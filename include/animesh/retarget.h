/* animesh/retarget.h: retargeting: a motion from any file onto the viewer skeleton, bones pointing where the source points.
 *
 * The public calls: am_motion_file_convert turns FILE[:CLIP] (a Mixamo FBX, a glTF pack, a
 * BVH, another creature's model) into .anim bytes on the viewer skeleton, each bone turned
 * to point where the source's points, the creature's body plan checked first
 * (am_motion_file_options.target_plan); the result owns its strings and buffers
 * (am_motion_file_result_free). am_retarget_options is also the retarget part of
 * am_import_options (animesh/import.h), which retargets a whole rigged model. Errors:
 * AM_ERR_INVALID naming the file and what it holds (a motion across body plans, no clips, a
 * skeleton nothing of which maps), AM_ERR_USAGE for an unknown clip (listing the clips).
 * How the route works:
 *
 * Retargeting: a scene rigged to ANY skeleton (a Blender quadruped, a Mixamo character, a
 * mocap BVH) -> one rig per skinned mesh for the skin builder (skin/rig.h) + one motion per
 * clip for the .anim writer (anim.h), on the viewer skeleton. It is the second route of
 * `animesh import` (the first, for files already rigged to the viewer skeleton, carries
 * their skin as is).
 *
 * STEPS: body plan (body.h) -> axes (axes.h: one proper rotation C and a scale s, given or
 * detected) -> joint map (map_suggest.h: suggested, with --map over any part) -> rigs and
 * motions (below). Everything is a plain struct: am_retarget_result.
 *
 * FRAMES. A = the file -> viewer bind frame transform: p_v = s C p + o (LL layout: scale,
 * rotation, then the translation o). o is the placement: AM_PLACE_PELVIS (default) puts the
 * joint mapped to mPelvis exactly on the viewer's mPelvis (0, 0, 1.067) so no pelvis override is
 * written and the pelvis is drawn AT the prim
 * (docs/reference/viewer-skeleton.md#the-pelvis-override-trap), the model's origin then hanging
 * below it by the pelvis height; AM_PLACE_ORIGIN keeps the file's origin at the bind-frame origin,
 * so mPelvis IS overridden and the viewer draws the file's origin at the prim.
 * THE REST POSE is the skin's bind pose (B_j = inverse of the inverse bind of joint j; for a
 * node no skin names, its rest offset from the nearest skinned ancestor), not the nodes'
 * rest transforms: a difference between the two is reported. The rig carries it as
 * joint-position overrides (translations only: the viewer's bones have identity rest
 * rotations), measured by the skin builder from the VIEWER parents (docs/reference/lessons.md#rule-3).
 *
 * THE FORMULA (row vectors, LL layout; W_j(t) = joint j's world at clip time t from
 * am_scene_eval_clip, the one clip evaluator, CUBICSPLINE included):
 *   D_j(t) = (B_j A)^-1 (W_j(t) A)        the source's skinning of joint j at t, viewer frame
 *   dR_j(t) = rotation of D_j(t)          its world delta rotation, = C (R_j(t) R_j^bind^-1) C^-1
 *   p_j(t)  = translation of W_j(t) A     where joint j is at t, viewer bind frame
 * The viewer skins with inverse binds T(-b_J) and world matrices whose rotation is the
 * product of the local keys down the viewer hierarchy (rest rotations identity). So the
 * viewer reproduces D_j exactly when, for viewer joint J mapped from j,
 *   world rotation of J = dR_j, i.e. key_J(t) = dR_a(t)^-1 (x) dR_j(t)   (Hamilton)
 * where a is the rig joint mapped to the NEAREST MAPPED VIEWER ANCESTOR of J (identity when
 * none). That is the LOCAL DELTA relative to the rig's own rest expressed in the viewer
 * joint's axes: for a direct parent a it equals (C R_j^bind) (L_j^bind^-1 L_j(t)) (C R_j^bind)^-1.
 * Unmapped rig joints between a and j fold their rotation into j's key (their own
 * vertices follow their nearest mapped ancestor: a warning names how far off); viewer
 * joints between A and J that nothing maps stay at identity (they ride along).
 * Positions: a viewer joint is where its parent's FK puts it plus its override, unless the
 * source moves it otherwise (beyond 1e-4 of the stature, e.g. the pelvis walking, a
 * stretchy bone): then it gets position keys, which REPLACE its local position
 * (docs/reference/anim-format.md#position-keys), so each key is its whole local position under its
 * viewer parent P:
 *   pos_key_J(t) = R_P(t)^-1 (p_j(t) - x_P(t))   (R_P, x_P: P's world in the viewer's FK)
 * For mPelvis, P is mRoot at the prim, x_P = pelvis bind - pelvis runtime local position,
 * so the key = the pelvis override the viewer applies (0 when not applied) + the pelvis's
 * motion from its bind position: the override is INCLUDED
 * (docs/reference/viewer-skeleton.md#the-pelvis-override-trap).
 * Scale keys are dropped (the viewer's animations have none) and reported.
 *
 * SAMPLING: at every key time of the clip, plus between-key samples wherever the viewer's
 * interpolation (nlerp, lerp) of the neighbouring samples misses the clip (slerp,
 * CUBICSPLINE) by more than rot_tol_deg / pos_tol (checked at the quarter points, halving
 * down to 1/256 of the interval). Then the loop guard, priority, ease (am_motion).
 * Rest corrections (docs/reference/lessons.md#rule-10) are constant rotations applied in every pose, turning
 * the joint's subtree WITH its motion: local_J = corr (x) key_J (the source's deltas are
 * measured from the uncorrected bind), so a correction on a joint and one on an unmapped
 * viewer joint above it at the same point give the same pose. (am_motion's track
 * correction composes key (x) corr, for motions authored on the corrected rest; the track
 * holds corr (x) key (x) corr^-1 so that it plays corr (x) key.)
 * A clip over 60 s is refused with its name.
 *
 * FOLLOWING DIRECTIONS (opts.follow_directions: a motion from another skeleton, whose rest
 * is not the target's: Mixamo's T-pose against the viewer's). The formula above reproduces
 * the source's SKIN; onto a skeleton with other rest directions it bends limbs the wrong
 * way. Instead, per mapped joint j (viewer joint J) a constant alignment Al_J turns the
 * target's rest bone (J to its mapped viewer children, target_rest) onto the source's bind
 * bone (the same joints, viewer frame): the shortest arc for one child, the least-squares
 * rotation (Horn's quaternion) for several (a pelvis: spine and both hips; a chest: neck
 * and both collars); a joint without a child bone inherits its parent's. Then
 *   world rotation of J = dR_j(t) (x) Al_J,  key_J = (dR_a Al_A)^-1 (x) (dR_j Al_J)
 * so every bone points where the source's points (the --align-rest idea of BVH, keys
 * A_p^-1 q A_j). END EFFECTORS keep the source's orientation instead (retarget_internal.h
 * am_retarget_keeps): the head and the feet (mHead, mAnkle*, mFoot*, mToe*) take Al_J = identity,
 * the source's rotation from its rest, both rests the same neutral pose (face ahead, soles
 * flat: a bone line such as Mixamo's Head -> HeadTop_End leans forward while the face looks
 * ahead), and the wrists their forearm's Al (palms down along the arm); neither is swung
 * onto a bone line, and neither counts in worst_direction_deg. Positions: the top mapped
 * joint only, its rest local position plus the source's displacement from its bind, times
 * target leg / source leg (hip to ankle), which also makes the result unit-free;
 * --in-place subtracts the horizontal travel, first key to last, in proportion to time.
 */
#ifndef AM_ANIMESH_RETARGET_H
#define AM_ANIMESH_RETARGET_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "animesh/core.h"
#include "animesh/skeleton.h"
#include "animesh/jointmap.h"
#include "animesh/scene.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Axis codes as in scene.h's am_scene_declared: +-1 X, +-2 Y, +-3 Z; 0 = not given.
 * Zeroed, the defaults: everything detected. */
typedef struct am_axes_options {
    int up;        /* the file axis that points up; 0: detect */
    int forward;   /* the file axis the model faces; 0: detect */
    double scale;  /* metres per file unit; 0: detect */
} am_axes_options;

typedef enum am_loop_mode {
    AM_LOOP_AUTO = 0, /* loop when the clip's last pose is its first, or it is a cycle
                         written without its closing key (anim.h "Loops that close") */
    AM_LOOP_ON,       /* loop; a seam within loop_tolerance_deg is blended closed, a larger
                         one refused */
    AM_LOOP_OFF
} am_loop_mode;

typedef enum am_place_mode { AM_PLACE_PELVIS = 0, AM_PLACE_ORIGIN = 1 } am_place_mode;

/* `--rest-correction JOINT=AXIS,DEG`: a constant rotation of DEG degrees about the viewer
 * axis AXIS (X, Y or Z; the joint's parent frame, which at rest is the avatar frame),
 * applied on the joint in every pose of every motion (a joint no rig joint maps gets a
 * track holding just the correction). */
typedef struct am_rest_correction {
    am_string joint; /* a viewer joint name or alias, or a rig joint mapped to one */
    int axis;        /* 1 X, 2 Y, 3 Z */
    double degrees;
} am_rest_correction;

/* Parse JOINT=AXIS,DEG into `out` (zeroed first; free it with am_rest_correction_free). On
 * error `out` holds nothing to free. */
AM_API am_status am_rest_correction_parse(const char *text, am_rest_correction *out, am_error *err);

AM_API void am_rest_correction_free(am_rest_correction *c);

/* Zeroed, the defaults (core/option.h); a field where zero is a choice takes AM_OPTION_ZERO
 * for it. */
typedef struct am_retarget_options {
    am_axes_options axes;              /* zeroed: up, forward and scale detected */
    const am_joint_map *map;           /* a joint map over the suggestion; NULL: the suggestion */
    const char *const *clips;          /* clip names to convert; NULL: every clip */
    size_t clip_count;
    int32_t priority;                  /* 1..6; 0: the default 4 (docs/reference/lessons.md#rule-7);
                                          AM_OPTION_ZERO: priority 0 */
    am_loop_mode loop;                 /* default AM_LOOP_AUTO (0) */
    double loop_tolerance_deg;         /* AM_LOOP_ON closes a seam up to this by blending (anim.h
                                          "Loops that close"; 1 cm per degree for positions);
                                          0: the default AM_LOOP_TOLERANCE_DEG; AM_OPTION_ZERO: 0 */
    double ease_in_s, ease_out_s;      /* 0: the default 0.3 s each; AM_OPTION_ZERO: no ease */
    const am_rest_correction *corrections; /* NULL / 0: none */
    size_t correction_count;
    am_place_mode place;               /* default AM_PLACE_PELVIS (0) */
    const char *name;                  /* rig name; NULL: the source file's base name */
    double rot_tol_deg;                /* between-key sampling tolerance; 0: the default 0.02;
                                          AM_OPTION_ZERO: 0 */
    double pos_tol_m;                  /* <= 0: the default max(1e-4 m, 1e-4 of the stature) */
    size_t max_samples;                /* per clip; 0: the default 8192 */
    /* A MOTION onto a skeleton other than its own (anim from-model, import --anim): each
     * viewer bone is turned onto the source's world direction instead of copying the
     * source's skinning deltas (see "FOLLOWING DIRECTIONS" above); only the top joint
     * (the hips) gets position keys, its motion scaled by leg length. Default false. */
    bool follow_directions;
    const am_vec3 *target_rest;        /* with follow_directions: per viewer joint, where the
                                          target draws it at rest (bind frame, metres: import
                                          computes it from the creature's rig); NULL: the
                                          stock avatar */
    bool in_place;                     /* remove the hips' horizontal travel (first to last key);
                                          default false */
    double reduce_deg;                 /* > 0: drop keys the viewer's interpolation reproduces
                                          within this (am_anim_reduce_keys); 0: every key kept */
} am_retarget_options;

/* The defaults, written out (the same meaning as a zeroed struct). */
AM_API void am_retarget_options_init(am_retarget_options *o);

typedef enum am_finding_level { AM_FINDING_NOTE = 0, AM_FINDING_WARNING = 1 } am_finding_level;

typedef struct am_retarget_finding {
    am_finding_level level;
    am_string text;
} am_retarget_finding;

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
    am_scene_reader_process reader_process; /* where an FBX (assimp) file is read (scene.h);
                                               zero: in a child process, as the CLI */
} am_motion_file_options;

AM_API void am_motion_file_options_init(am_motion_file_options *o);

/* Load FILE[:CLIP] and convert its clips. Refused (AM_ERR_INVALID, naming the file and what
 * it holds): a motion across body plans (opts.target_plan), a file without clips, a skeleton nothing of which maps to a viewer joint, a clip
 * shorter than one frame (1/30 s); AM_ERR_USAGE: an unknown clip (listing the clips). */
AM_API am_status am_motion_file_convert(const char *ref, const am_skeleton *skel, const am_motion_file_options *opts,
                                 am_motion_file_result *out, am_error *err);

/* Frees the result's strings and arrays (on error `out` holds nothing to free). */
AM_API void am_motion_file_result_free(am_motion_file_result *r);

#ifdef __cplusplus
}
#endif

#endif
