/* BVH motion capture -> .anim, converted exactly as the viewer's BVH upload does
 * (docs/reference/anim-format.md#bvh-conversion; LLBVHLoader).
 *
 * Frame 0 is the reference frame (never output when there is more than one frame);
 * frame k >= 1 plays at (k - 1) * frame_time; duration = max(frames - 2, 1) * frame_time.
 * Axes: SL = (BVH z, x, y); rotation q = F (x) R0^-1 (x) Rk (x) F^-1 with F = (.5,.5,.5,.5)
 * and R0 the pelvis's frame-0 rotation (identity for other joints); positions in inches
 * (0.02540005 m), pelvis relative to frame 0, every component clamped to +-5 m.
 */
#ifndef AM_ANIM_BVH_H
#define AM_ANIM_BVH_H

#include "animesh/anim.h"

#ifdef __cplusplus
extern "C" {
#endif

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "anim/anim.h"
#include "core/am_string.h"
#include "core/error.h"
#include "core/option.h"
#include "skeleton/jointmap.h"
#include "math/am_math.h"
#include "skeleton/skeleton.h"

/* A BVH file is text starting with HIERARCHY and at most this long: 60 s of 1024 joints at
 * 120 frames a second is about 50 MB; CMU's files are 2-4 MB (docs/formats.md "Size limits"). */
#define AM_BVH_MAX_FILE_BYTES ((size_t)64 << 20)
extern const am_file_format am_bvh_format;

/* A bone whose zero-pose direction is this far from the viewer's rest direction is listed
 * in the warning: mocap's own offsets scatter by a few degrees; 10 is a visible turn. */
#define AM_BVH_REST_WARN_DEG 10.0

/* The warning for stats->rest_off > 0 ("the BVH's zero pose is not the viewer's rest:
 * LeftUpLeg (mHipLeft) 19.8 deg, ...: ... --align-rest corrects it", or that it was
 * corrected); "" and 0 when no joint is off. Returns the length written (truncated to size). */
size_t am_bvh_rest_warning(const am_bvh_stats *stats, char *buf, size_t size);

/* Whether the root's name is one the viewer's own table maps to mPelvis (hip, mPelvis,
 * avatar_mPelvis): then the viewer's table converts the file without a map. */
bool am_bvh_root_is_viewer(const am_bvh *bvh, const am_skeleton *skel);

#ifdef __cplusplus
}
#endif

#endif
