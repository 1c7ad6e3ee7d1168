/* animesh/skeleton.h: the viewer's skeleton, read from its own avatar_skeleton.xml.
 *
 * The viewer's avatar skeleton, read from its own avatar_skeleton.xml (docs/reference/viewer-skeleton.md).
 *
 * Joints are stored by viewer joint number: bones 0..132 in document pre-order, then the
 * collision volumes (133..158), then the non-HUD attachment points (avatar_lad.xml, listed
 * in docs/reference/viewer-skeleton.md#attachment-points; they are valid joint names for skins and animations). So a parent
 * always has a smaller index than its child.
 *
 * Rest transforms follow docs/reference/viewer-skeleton.md#rest-transforms: world_pos(child) = world_pos(parent) +
 * world_rot(parent) applied to (pos_child * scale_parent_own); world_rot(child) =
 * world_rot(parent) (x) rot_child; a joint's world matrix carries its OWN scale only
 * (scale is not inherited). Two frames (docs/reference/viewer-skeleton.md#the-pelvis-and-the-two-frames):
 *   AM_FRAME_FILE    - skeleton-file frame: mPelvis at its file pos (0, 0, 1.067);
 *   AM_FRAME_RUNTIME - relative to mRoot at runtime: mPelvis forced to (0, 0, 0).
 */
#ifndef AM_ANIMESH_SKELETON_H
#define AM_ANIMESH_SKELETON_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "animesh/core.h"

#ifdef __cplusplus
extern "C" {
#endif

#define AM_MAX_JOINTS_PER_MESH 110     /* LL_MAX_JOINTS_PER_MESH_OBJECT */

#define AM_MAX_ANIMATED_JOINTS 216     /* LL_CHARACTER_MAX_ANIMATED_JOINTS */

#define AM_JOINT_POS_THRESHOLD 0.0001  /* LL_JOINT_TRESHOLD_POS_OFFSET, metres */

typedef enum am_joint_kind { AM_JOINT_BONE = 0, AM_JOINT_VOLUME = 1, AM_JOINT_ATTACHMENT = 2 } am_joint_kind;

typedef enum am_frame { AM_FRAME_FILE = 0, AM_FRAME_RUNTIME = 1 } am_frame;

typedef struct am_joint {
    char *name;
    char **aliases; /* the `aliases` attribute tokens (bones only) */
    size_t alias_count;
    int parent;     /* index into am_skeleton.joints, -1 for the root (and Avatar Center) */
    am_joint_kind kind;
    int joint_num;  /* the viewer's joint number (docs/reference/viewer-skeleton.md#joint-numbering) */
    int line;       /* line in the XML (0 for attachment points) */

    am_vec3 pos;     /* local position (file `pos`), metres, in the parent's frame */
    am_vec3 rot_deg; /* file `rot`, degrees XYZ */
    am_quat rot;     /* local rest rotation */
    am_vec3 scale;   /* own local scale (semi-axes for collision volumes) */
    am_vec3 end;     /* debug-drawing tail, `end` attribute (0 if absent) */
    am_vec3 pivot;   /* legacy skin offset; only bones carry it */
    char *connected; /* raw `connected` attribute or NULL (never read by the viewer) */
    char *group;     /* default "global" */
    char *support;   /* "base" or "extended"; default "base" */

    am_vec3 world_pos[2]; /* rest world position per am_frame */
    am_quat world_rot;    /* rest world rotation (same in both frames) */
} am_joint;

typedef struct am_alias {
    char *alias;
    int joint;
} am_alias;

typedef struct am_skeleton {
    am_joint *joints;
    size_t joint_count;
    size_t bone_count;       /* joints[0 .. bone_count) are bones */
    size_t volume_count;     /* then collision volumes */
    size_t attachment_count; /* then attachment points */
    char version[8];         /* "1.0" or "2.0" */
    am_alias *aliases;       /* sorted by alias for lookup (docs/reference/viewer-skeleton.md#aliases) */
    size_t alias_count;
} am_skeleton;

/* Parse avatar_skeleton.xml from memory; `source` names it in errors. Every bone and
 * collision volume with all its attributes; required attributes as the viewer requires. */
AM_API am_status am_skeleton_parse(const char *xml, size_t size, const char *source, am_skeleton *out,
                            am_error *err);

AM_API am_status am_skeleton_load(const char *path, am_skeleton *out, am_error *err);

AM_API void am_skeleton_free(am_skeleton *skel);

/* Where the skeleton file is: explicit path, else $ANIMESH_SKELETON, else
 * $ANIMESH_VIEWER_DIR/character/avatar_skeleton.xml. Errors explain how to point at one. */
AM_API am_status am_skeleton_locate(const char *explicit_path, char *out, size_t out_size, am_error *err);

/* Lookup by canonical name, bone alias, collision-volume name or attachment name (or its
 * underscore form), as LLVOAvatar::getJoint does. -1 when unknown. Case-sensitive. */
AM_API int am_skeleton_find(const am_skeleton *skel, const char *name);

/* Only canonical names (no aliases). */
AM_API int am_skeleton_find_exact(const am_skeleton *skel, const char *name);

AM_API int am_skeleton_parent(const am_skeleton *skel, int joint);

/* Rest world position of a joint in a frame. */
AM_API am_vec3 am_skeleton_rest_world(const am_skeleton *skel, int joint, am_frame frame);

/* Rest world matrix (LL layout): T(world_pos) R(world_rot) S(own scale). */
AM_API am_mat4 am_skeleton_rest_matrix(const am_skeleton *skel, int joint, am_frame frame);

AM_API const char *am_joint_kind_name(am_joint_kind kind);

#ifdef __cplusplus
}
#endif

#endif
