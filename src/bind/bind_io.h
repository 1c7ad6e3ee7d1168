/* Inputs and outputs of binding: the skeleton to bind to (a skeleton JSON, a rig's joint
 * list, or the joints of another model), the mesh taken from an imported scene (any
 * format am_scene_load reads) in the bind frame, and the result as a rig (skin/rig.h)
 * ready for `animesh skin`.
 *
 * SKELETON JSON (both shapes are {"joints": [...]}; names are stock viewer names or
 * aliases, checked against avatar_skeleton.xml, an unknown name refused by name):
 *   - the creature shape (../shared/data/creature/NAME.skeleton.json):
 *       {"name": "mHipLeft", "parent": "mPelvis", "head": [x,y,z], "tail": [x,y,z]}
 *   - a rig's joint list (docs/rig-json.md): {"name": "mHipLeft", "world": [x,y,z]}; the
 *     bone's tail is then its first child's head (viewer document order, among the listed
 *     joints), a leaf's tail 0.05 m x (mesh height / 1.8 m) along its parent's bone (the
 *     creature files' rule, scaled to the mesh).
 * Parents are always the viewer's (the nearest listed ancestor in avatar_skeleton.xml),
 * never the file's (docs/reference/lessons.md#rule-3). Coordinates: bind frame, metres.
 *
 * FRAME of a scene (options, never guesses): up and forward are signed axes (+-1 X, +-2 Y,
 * +-3 Z, map/axes.h's codes and rotation); 0 takes what the file declares, else Z up;
 * forward 0 is +X for Z-up files and +Z for Y-up files (glTF's convention). unit_m 0 takes
 * the file's declared unit, else the unit the mesh's stature reads as (map/axes.h's
 * rule: 180 units tall is centimetres; an unskinned scene only: a skinned one's joints are
 * read in the same unit as its mesh), else 1. The bind frame is then X = forward, Z = up,
 * Y = Z x X (left). An unrigged mesh has no legs or eyes for map/axes.h's axis detection
 * to read, so the axes are not detected here. The conversion used is
 * described in `am_bind_source.conversion`. A skinned mesh is placed by its bind shape
 * (where its skin's joints are), an unskinned one by its node's world transform. */
#ifndef AM_BIND_IO_H
#define AM_BIND_IO_H

#include "animesh/bind.h"

#ifdef __cplusplus
extern "C" {
#endif

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bind/bind.h"
#include "core/error.h"
#include "scene/scene.h"
#include "skeleton/skeleton.h"
#include "skin/rig.h"

#define AM_BIND_LEAF_M 0.05      /* leaf bone length of the creature files, at 1.8 m */
#define AM_BIND_LEAF_HEIGHT_M 1.8

/* Skeleton JSON (either shape) -> skeleton; `height_m` scales the leaf rule. */
am_status am_bind_skeleton_parse_json(const char *json, size_t size, const char *source, const am_skeleton *viewer,
                                      double height_m, am_bind_skeleton *out, am_error *err);
/* The rig's joints brought into the frame of `mesh` (NULL: taken as metres unless declared):
 * the rig's unit is its "unit_m" when it declares one (metres per rig unit); else metres when
 * its joints span about the mesh's size in metres (0.5x..2x), the mesh's own unit when they
 * span about the mesh's size in its file units (a rig in centimetres beside a mesh in
 * centimetres), else what their span reads as by the stature rule (map/axes.h). Every joint
 * beyond AM_RIG_MAX_COORD_M after that is refused. `note` says which unit and why. */
am_status am_bind_skeleton_load_for(const char *path, const am_skeleton *viewer, double height_m,
                                    const am_bind_source *mesh, am_bind_skeleton *out, char *note, size_t note_size,
                                    am_error *err);
/* Joints given by name and head only: tails by the rule above. */
am_status am_bind_skeleton_from_heads(const char *const *names, const am_vec3 *heads, size_t n, const am_skeleton *viewer,
                                      double height_m, const char *source, am_bind_skeleton *out, am_error *err);

#ifdef __cplusplus
}
#endif

#endif
