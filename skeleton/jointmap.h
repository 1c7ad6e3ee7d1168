/* Joint maps: data that names, for each joint of a creature's rig, the stock viewer joint
 * it drives (docs/reference/lessons.md#rule-1, #rule-3, #rule-6 and #rule-11). JSON:
 *   { "joints": { "rig_joint": "mStockName", ... },
 *     "rig_parents": { "rig_child": "rig_parent", ... } }      (optional)
 * The rig's own parents may instead come from a rig file (see am_joint_map_load_rig_parents).
 */
#ifndef AM_SKELETON_JOINTMAP_H
#define AM_SKELETON_JOINTMAP_H

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

typedef struct am_joint_map_entry {
    char *rig_name;
    char *stock_name; /* as written: canonical name, alias, volume or attachment name */
} am_joint_map_entry;

typedef struct am_rig_parent {
    char *child;
    char *parent;
} am_rig_parent;

typedef struct am_joint_map {
    am_joint_map_entry *entries;
    size_t count;
    am_rig_parent *parents;
    size_t parent_count;
    char *source; /* the file (or "stdin") it was read from, for errors; NULL when built */
} am_joint_map;

/* Every problem found by a check, each a full sentence naming the joint(s). */
typedef struct am_map_report {
    char **problems;
    size_t count;
    size_t stock_joints;  /* distinct stock joints mapped */
    size_t closed_joints; /* with every missing viewer ancestor added */
    size_t chains_checked;
} am_map_report;

am_status am_joint_map_parse(const char *json, size_t size, const char *source, am_joint_map *out,
                             am_error *err);
am_status am_joint_map_load(const char *path, am_joint_map *out, am_error *err);
/* Add the rig's own parents from a rig file: either {"rig_parents": {...}} or
 * {"joints": [{"name": "...", "parent": "..."}, ...]}. */
am_status am_joint_map_load_rig_parents(am_joint_map *map, const char *path, am_error *err);
void am_joint_map_free(am_joint_map *map);

/* Resolve a map entry's stock joint (-1 if unknown). */
int am_joint_map_target(const am_joint_map *map, const am_skeleton *skel, const char *rig_name);

/* Run every check; the report lists each problem. Returns AM_OK when the checks ran (even
 * with problems); an error only when the report itself cannot be built. */
am_status am_joint_map_check(const am_joint_map *map, const am_skeleton *skel, am_map_report *report,
                             am_error *err);
void am_map_report_free(am_map_report *report);

#ifdef __cplusplus
}
#endif

#endif
