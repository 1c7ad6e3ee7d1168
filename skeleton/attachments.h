/* Attachment points of the avatar (avatar_lad.xml <skeleton>), as listed in
 * docs/reference/viewer-skeleton.md#attachment-points. They are not in avatar_skeleton.xml but are valid joint
 * names for skins and animations. HUD points (parent mScreen) are left out: an animesh has none. */
#ifndef AM_SKELETON_ATTACHMENTS_H
#define AM_SKELETON_ATTACHMENTS_H

#ifdef __cplusplus
extern "C" {
#endif

#include <stdbool.h>

#include "math/am_math.h"

typedef struct am_attachment_def {
    int id;            /* attachment id; runtime joint number = 158 + id */
    const char *name;
    const char *parent;
    am_vec3 position;  /* metres, local to the parent joint */
    am_vec3 rotation;  /* degrees; R = Rx * Ry * Rz (setQuat(roll, pitch, yaw)) */
} am_attachment_def;

const am_attachment_def *am_attachment_defs(int *count);

/* True for the 8 HUD attachment point names (ids 31..38: "Center 2" .. "Bottom Right",
 * case-sensitive). Not joints of an animesh, but the agent's own avatar has them, so a
 * direct .anim upload accepts them (docs/reference/anim-format.md#validation-checks). */
bool am_attachment_is_hud(const char *name);

#ifdef __cplusplus
}
#endif

#endif
