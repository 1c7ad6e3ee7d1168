/* A BVH motion-capture file as a scene (scene.h): one node per joint, its rest transform
 * the joint's OFFSET (no rotation: a BVH's zero pose is its rest), and one clip holding the
 * frames, so a BVH goes through the same joint mapping and retargeting as any model.
 *
 * As the viewer's BVH upload reads it (docs/reference/anim-format.md#bvh-parsing and
 * #bvh-coordinate-conversion): frame 0 is the REFERENCE, never played when there is more than
 * one frame; frame k >= 1 plays at (k - 1) x frame time. The root moves relative to the
 * reference, as the viewer takes the pelvis: its rest
 * translation is its frame-0 position p0, its keys R0^-1 Rk and p0 + R0^-1 (pk - p0) (R0 its
 * frame-0 rotation), so the motion starts facing the rest direction; other joints keep
 * their own rotations, relative to the zero pose (their OFFSETs), as the viewer reads them. A BVH declares no axes or unit; the
 * scene's `declared` carries the convention the viewer's upload assumes instead: +Y up, +Z
 * forward, inches (0.02540005 m), noted in the scene's notes. The clip is named after the
 * file (its base name without extension). Every node is a joint; there is no mesh. */
#ifndef AM_READERS_BVH_SCENE_H
#define AM_READERS_BVH_SCENE_H

#ifdef __cplusplus
extern "C" {
#endif

#include <stddef.h>
#include <stdint.h>

#include "anim/bvh.h"
#include "core/error.h"
#include "scene/scene.h"

/* Fill `out` (whose source may already be set) from a parsed BVH. The caller runs
 * am_scene_finish. */
am_status am_scene_from_bvh(const am_bvh *bvh, am_scene *out, am_error *err);
/* The scene_load.c reader: parse the text, then am_scene_from_bvh. */
am_status am_scene_read_bvh(const uint8_t *data, size_t size, const char *source, const char *base_dir,
                            am_scene *out, am_error *err);

#ifdef __cplusplus
}
#endif

#endif
