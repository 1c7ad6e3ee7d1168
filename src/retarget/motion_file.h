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

#include "animesh/retarget.h"

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
