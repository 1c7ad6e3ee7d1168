/* The viewer's avatar skeleton, read from its own avatar_skeleton.xml (docs/reference/viewer-skeleton.md).
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
#ifndef AM_SKELETON_H
#define AM_SKELETON_H

#ifdef __cplusplus
extern "C" {
#endif

#include <stdbool.h>
#include <stddef.h>

#include "core/error.h"
#include "core/io.h"
#include "math/am_math.h"

/* avatar_skeleton.xml is XML of at most this many bytes (the viewer's is 43 KB; README
 * "Size limits"). */
#define AM_SKELETON_MAX_FILE_BYTES ((size_t)4 << 20)
/* Its XML tree's memory budget (core/xml_doc.h: 65,536 elements and attributes; the
 * viewer's file has about 250 elements with 8 attributes each). */
#define AM_SKELETON_TREE_BUDGET ((size_t)16 << 20)
extern const am_file_format am_skeleton_format;

typedef enum am_joint_kind { AM_JOINT_BONE = 0, AM_JOINT_VOLUME = 1, AM_JOINT_ATTACHMENT = 2 } am_joint_kind;
typedef enum am_frame { AM_FRAME_FILE = 0, AM_FRAME_RUNTIME = 1 } am_frame;

#define AM_MAX_JOINTS_PER_MESH 110     /* LL_MAX_JOINTS_PER_MESH_OBJECT */
#define AM_MAX_ANIMATED_JOINTS 216     /* LL_CHARACTER_MAX_ANIMATED_JOINTS */
#define AM_JOINT_POS_THRESHOLD 0.0001  /* LL_JOINT_TRESHOLD_POS_OFFSET, metres */

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
am_status am_skeleton_parse(const char *xml, size_t size, const char *source, am_skeleton *out,
                            am_error *err);
am_status am_skeleton_load(const char *path, am_skeleton *out, am_error *err);
void am_skeleton_free(am_skeleton *skel);

/* Where the skeleton file is: explicit path, else $ANIMESH_SKELETON, else
 * $ANIMESH_VIEWER_DIR/character/avatar_skeleton.xml. Errors explain how to point at one. */
am_status am_skeleton_locate(const char *explicit_path, char *out, size_t out_size, am_error *err);

/* Lookup by canonical name, bone alias, collision-volume name or attachment name (or its
 * underscore form), as LLVOAvatar::getJoint does. -1 when unknown. Case-sensitive. */
int am_skeleton_find(const am_skeleton *skel, const char *name);
/* Only canonical names (no aliases). */
int am_skeleton_find_exact(const am_skeleton *skel, const char *name);

int am_skeleton_parent(const am_skeleton *skel, int joint);
/* True when `ancestor` is a strict ancestor of `joint`. */
bool am_skeleton_is_ancestor(const am_skeleton *skel, int ancestor, int joint);

/* The closed joint set of `joints`: the joints plus every missing ancestor, ordered
 * parents first (ascending joint index), without duplicates. `out` must hold
 * skel->joint_count entries; returns the count. */
size_t am_skeleton_closed_set(const am_skeleton *skel, const int *joints, size_t n, int *out);

/* Path from a to b through their lowest common ancestor, inclusive of both ends. `out`
 * must hold skel->joint_count entries; returns the count (0 if either index is invalid). */
size_t am_skeleton_path(const am_skeleton *skel, int a, int b, int *out);

/* Rest world position of a joint in a frame. */
am_vec3 am_skeleton_rest_world(const am_skeleton *skel, int joint, am_frame frame);
/* Rest world matrix (LL layout): T(world_pos) R(world_rot) S(own scale). */
am_mat4 am_skeleton_rest_matrix(const am_skeleton *skel, int joint, am_frame frame);
/* The local position the viewer uses at runtime for a joint with no override: the file
 * `pos`, except mPelvis which sits at mRoot (0, 0, 0) (docs/reference/viewer-skeleton.md#the-pelvis-and-the-two-frames). */
am_vec3 am_skeleton_runtime_local_pos(const am_skeleton *skel, int joint);

const char *am_joint_kind_name(am_joint_kind kind);
const char *am_frame_name(am_frame frame);

#ifdef __cplusplus
}
#endif

#endif
