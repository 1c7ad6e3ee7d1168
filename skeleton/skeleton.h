/* skeleton/skeleton.h: the private side of include/animesh/skeleton.h, where its manual is. */
#ifndef AM_SKELETON_H
#define AM_SKELETON_H

#include "animesh/skeleton.h"

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

/* True when `ancestor` is a strict ancestor of `joint`. */
bool am_skeleton_is_ancestor(const am_skeleton *skel, int ancestor, int joint);

/* The closed joint set of `joints`: the joints plus every missing ancestor, ordered
 * parents first (ascending joint index), without duplicates. `out` must hold
 * skel->joint_count entries; returns the count. */
size_t am_skeleton_closed_set(const am_skeleton *skel, const int *joints, size_t n, int *out);

/* Path from a to b through their lowest common ancestor, inclusive of both ends. `out`
 * must hold skel->joint_count entries; returns the count (0 if either index is invalid). */
size_t am_skeleton_path(const am_skeleton *skel, int a, int b, int *out);

/* The local position the viewer uses at runtime for a joint with no override: the file
 * `pos`, except mPelvis which sits at mRoot (0, 0, 0) (docs/reference/viewer-skeleton.md#the-pelvis-and-the-two-frames). */
am_vec3 am_skeleton_runtime_local_pos(const am_skeleton *skel, int joint);

const char *am_frame_name(am_frame frame);

#ifdef __cplusplus
}
#endif

#endif
