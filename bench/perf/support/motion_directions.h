/* Bone-direction agreement of a WRITTEN .anim with the motion it came from (issue 18): the
 * angle, world frame, between the source's bone and the viewer's bone between the same
 * joints, for the major bones (thighs, shins, upper arms, forearms, spine, neck, the hip and
 * shoulder lines) at 8 evenly spaced times. The viewer side is the .anim decoded and
 * evaluated the viewer's way (am_anim_eval: nlerp between keys, positions replacing the
 * local ones) and forward kinematics on the viewer skeleton, each joint at its parent plus
 * the target's rest offset (the creature's overrides, or the stock avatar's); the source
 * side is the scene's own clip evaluation (am_scene_eval_clip), taken into the viewer's axes
 * by the file's declared up/forward (Y up, +Z forward for FBX and glTF: viewer
 * (x, y, z) = (z, x, y)), independent of the retargeter.
 *
 * ORIENTATIONS (issue 28): the end effectors' orientation and the limbs' roll, at the same
 * times. The two rests are the same neutral pose (face ahead, soles flat, palms down): a
 * direction fixed in the rest is the face's forward (+X), the sole's normal (+Z, up through
 * the ankle) and the palm's normal (-Z at the target's rest; at the source's rest the same
 * normal carried along the forearm by the shortest turn from the target's forearm onto the
 * source's, so an A-posed source's palm faces where its arm hangs). At time t the target's is
 * the viewer world rotation of mHead / mAnkle* / mWrist* applied to it, the source's the world
 * rotation of Head / *Foot / *Hand relative to its rest applied to its own. A limb bone's roll:
 * a direction across the bone at rest (the bone x up, or x forward when upright) carried onto
 * the source's rest bone the same way, both turned by their joint's rotation at t and
 * projected across the source's bone at t: the angle between them. */
#ifndef AM_BENCH_PERF_SUPPORT_MOTION_DIRECTIONS_H
#define AM_BENCH_PERF_SUPPORT_MOTION_DIRECTIONS_H

#include <stddef.h>
#include <stdint.h>

#include "anim/anim.h"
#include "core/error.h"
#include "scene/scene.h"
#include "math/am_math.h"
#include "skeleton/skeleton.h"

#define AM_MD_BONES 12 /* left and right of 5, plus the two lines (the feet keep the source's
                          orientation, not their bone line: their soles are measured) */
#define AM_MD_TIMES 8
#define AM_MD_ORIENTS 5 /* face, sole L/R, palm L/R */
#define AM_MD_ROLLS 8   /* thighs, shins, upper arms, forearms */

typedef struct am_md_result {
    const char *bone[AM_MD_BONES];           /* "thigh L", ... */
    double deg[AM_MD_BONES][AM_MD_TIMES];     /* -1 when a joint is missing on either side */
    double worst_deg, p95_deg;
    size_t measured;
    /* orientations: -1 when a joint is missing on either side */
    const char *orient[AM_MD_ORIENTS];        /* "face", "sole L", ... */
    double orient_deg[AM_MD_ORIENTS][AM_MD_TIMES];
    const char *roll[AM_MD_ROLLS];            /* the first 8 bones' names */
    double roll_deg[AM_MD_ROLLS][AM_MD_TIMES];
    double face_deg, sole_deg, palm_deg, roll_worst_deg; /* the largest of each, -1: none */
} am_md_result;

/* prefix: the source's joint-name prefix ("mixamorig:" or ""). target_rest: per viewer
 * joint, where the target draws it at rest (am_retarget_rest_of_rig), bind frame. */
am_status am_md_measure(const am_scene *src, int clip, const char *prefix, const uint8_t *anim, size_t anim_size,
                        const am_skeleton *skel, const am_vec3 *target_rest, am_md_result *out, am_error *err);

/* The viewer's side on its own: entry[viewer joint] = the decoded file's joint for it, -1
 * (res: scratch, one per file joint); then the world rotation and position (bind frame) of
 * every viewer joint at motion time t (pose: scratch, one per file joint). */
void am_md_entries(const am_anim *a, const am_skeleton *k, int *res, int *entry);
void am_md_pose(const am_anim *a, const int *entry, double t, const am_skeleton *k, const am_vec3 *rest,
                am_anim_joint_pose *pose, am_quat *wr, am_vec3 *wp);

#endif
