/* A joint map for a BVH whose names are not the viewer's (CMU, MotionBuilder, ...): the
 * BVH as a scene (readers/bvh/bvh_scene.h), then the suggestion (map_suggest.h) with the
 * axes detected (BVH's convention as the declared evidence). It lives with the mapping, not
 * with the reader, so that the readers know nothing of joint maps. */
#ifndef AM_MAP_BVH_H
#define AM_MAP_BVH_H

#ifdef __cplusplus
extern "C" {
#endif

#include "anim/bvh.h"
#include "core/error.h"
#include "map/map_suggest.h"
#include "skeleton/skeleton.h"

/* Suggest `out` (freed by the caller as any joint map) for a parsed BVH; `source` names it
 * (NULL: "bvh"). `sug` (may be NULL) receives the suggestion with its confidences and
 * reasons; free it with am_map_suggestion_free. */
am_status am_map_suggest_bvh(const am_bvh *bvh, const char *source, const am_skeleton *skel, am_joint_map *out,
                             am_map_suggestion *sug, am_error *err);

#ifdef __cplusplus
}
#endif

#endif
