/* Bone-direction agreement of a WRITTEN .anim with the motion it came from (issue 18): the
 * angle, world frame, between the source's bone and the viewer's bone between the same
 * joints, for the major bones (thighs, shins, upper arms, forearms, spine, neck, the hip and
 * shoulder lines) at 8 evenly spaced times. The viewer side is the .anim decoded and
 * evaluated the viewer's way (am_anim_eval: nlerp between keys, positions replacing the
 * local ones) and forward kinematics on the viewer skeleton, each joint at its parent plus
 * the target's rest offset (the creature's overrides, or the stock avatar's); the source
 * side is the scene's own clip evaluation (am_scene_eval_clip), taken into the viewer's axes
 * by the file's declared up/forward (Y up, +Z forward for FBX and glTF: viewer
 * (x, y, z) = (z, x, y)), independent of the retargeter. */
#ifndef AM_BENCH_MOTION_DIRECTIONS_H
#define AM_BENCH_MOTION_DIRECTIONS_H

#include <stddef.h>
#include <stdint.h>

#include "core/error.h"
#include "scene/scene.h"
#include "math/am_math.h"
#include "skeleton/skeleton.h"

#define AM_MD_BONES 14 /* left and right of 6, plus the two lines */
#define AM_MD_TIMES 8

typedef struct am_md_result {
    const char *bone[AM_MD_BONES];           /* "thigh L", ... */
    double deg[AM_MD_BONES][AM_MD_TIMES];     /* -1 when a joint is missing on either side */
    double worst_deg, p95_deg;
    size_t measured;
} am_md_result;

/* prefix: the source's joint-name prefix ("mixamorig:" or ""). target_rest: per viewer
 * joint, where the target draws it at rest (am_retarget_rest_of_rig), bind frame. */
am_status am_md_measure(const am_scene *src, int clip, const char *prefix, const uint8_t *anim, size_t anim_size,
                        const am_skeleton *skel, const am_vec3 *target_rest, am_md_result *out, am_error *err);

#endif
