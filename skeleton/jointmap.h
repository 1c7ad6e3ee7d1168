/* skeleton/jointmap.h: the private side of include/animesh/jointmap.h, where its manual is. */
#ifndef AM_SKELETON_JOINTMAP_H
#define AM_SKELETON_JOINTMAP_H

#include "animesh/jointmap.h"

#ifdef __cplusplus
extern "C" {
#endif

#include <stddef.h>

#include "core/error.h"
#include "core/io.h"
#include "skeleton/skeleton.h"

/* A joint map is a JSON object of at most this many bytes (thousands of names fit in a
 * few hundred KB; docs/formats.md "Size limits"). The --rig file it may name is a rig JSON
 * (AM_RIG_MAX_FILE_BYTES). */
#define AM_JOINT_MAP_MAX_FILE_BYTES ((size_t)4 << 20)
/* Its tree's memory budget (core/json_text.h): 16 times the file limit. */
#define AM_JOINT_MAP_TREE_BUDGET ((size_t)64 << 20)
extern const am_file_format am_joint_map_format;

#ifdef __cplusplus
}
#endif

#endif
