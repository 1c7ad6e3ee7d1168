/* The joint-map fallback (internal to map_suggest.c): after names and topology, every
 * weighted rig joint still unmapped -- and, where room allows, every unmapped joint on the
 * way to one -- is embedded into a FREE part of the viewer hierarchy so that ancestry is
 * kept (rig ancestor A of B => viewer ancestor map(A) of map(B), docs/reference/lessons.md#rule-6). Without it
 * such a joint's vertices ride on its nearest mapped ancestor and its motion is lost.
 *
 * How, in order (correctness of ancestry first, then the bone's look):
 *  1. a rig subtree hanging unmapped below a mapped joint a goes below map(a) WHOLE when it
 *     fits: each rig joint on a free viewer bone, rig siblings into different viewer
 *     branches (so no viewer joint carries a non-relative), among fitting places the one
 *     whose default bone (avatar_skeleton.xml `end`, rotated to the avatar frame) points and
 *     measures most like the rig's bone;
 *  2. when it does not fit below map(a), the topology's own low-confidence guesses
 *     (topology only, <= 0.75) from a upwards are released and that larger subtree is
 *     embedded whole, if it then fits (huesitos.fbx: a "tail" that branches goes onto the
 *     chest and its two branches, not the tail chain);
 *  3. weighted joints still left, one by one: a free viewer joint between the mapped ancestor's and
 *     the mapped descendants' targets; failing a separate branch, one nested below a
 *     non-relative's joint (the check passes; the retargeter's position keys carry it);
 *  4. weighted joints that still have no place: one warning naming them, their vertices and
 *     their weight (never silent).
 * Each placement keeps the map within 110 joints or is undone (noted). A joint --map leaves
 * unmapped ("-") stays so. Fallback joints get source AM_MAP_FALLBACK, confidence 0.3 and a
 * reason starting "fallback:". */
#ifndef AM_MAP_FALLBACK_H
#define AM_MAP_FALLBACK_H

#include <stdbool.h>

#include "core/error.h"
#include "map/axes.h"
#include "map/body.h"
#include "map/map_suggest.h"
#include "scene/scene.h"
#include "skeleton/skeleton.h"

/* `taken` (per skeleton joint) is kept in step with sug's targets. Fails only on memory. */
am_status am_map_fallback(const am_scene *scene, const am_body *body, const am_axes *axes, const am_skeleton *skel,
                          am_map_suggestion *sug, bool *taken, am_error *err);

#endif
