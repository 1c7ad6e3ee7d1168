/* animesh/jointmap.h: joint maps (a rig joint -> the viewer joint it drives) and body plans.
 *
 * Joint maps: data that names, for each joint of a creature's rig, the stock viewer joint
 * it drives (docs/reference/lessons.md#rule-1, #rule-3, #rule-6 and #rule-11). JSON:
 *   { "joints": { "rig_joint": "mStockName", ... },
 *     "rig_parents": { "rig_child": "rig_parent", ... } }      (optional)
 * The rig's own parents may instead come from a rig file (see am_joint_map_load_rig_parents).
 */
#ifndef AM_ANIMESH_JOINTMAP_H
#define AM_ANIMESH_JOINTMAP_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "animesh/core.h"
#include "animesh/skeleton.h"

#ifdef __cplusplus
extern "C" {
#endif

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
typedef struct am_joint_map_report {
    char **problems;
    size_t count;
    size_t stock_joints;  /* distinct stock joints mapped */
    size_t closed_joints; /* with every missing viewer ancestor added */
    size_t chains_checked;
} am_joint_map_report;

AM_API am_status am_joint_map_parse(const char *json, size_t size, const char *source, am_joint_map *out,
                             am_error *err);

AM_API am_status am_joint_map_load(const char *path, am_joint_map *out, am_error *err);

/* Add the rig's own parents from a rig file: either {"rig_parents": {...}} or
 * {"joints": [{"name": "...", "parent": "..."}, ...]}. */
AM_API am_status am_joint_map_load_rig_parents(am_joint_map *map, const char *path, am_error *err);

AM_API void am_joint_map_free(am_joint_map *map);

/* Resolve a map entry's stock joint (-1 if unknown). */
AM_API int am_joint_map_target(const am_joint_map *map, const am_skeleton *skel, const char *rig_name);

/* Run every check; the report lists each problem. Returns AM_OK when the checks ran (even
 * with problems); an error only when the report itself cannot be built. */
AM_API am_status am_joint_map_check(const am_joint_map *map, const am_skeleton *skel, am_joint_map_report *report,
                             am_error *err);

AM_API void am_joint_map_report_free(am_joint_map_report *report);

typedef enum am_body_plan_kind {
    AM_PLAN_OTHER = 0,
    AM_PLAN_BIPED,
    AM_PLAN_QUADRUPED,
    AM_PLAN_WINGED,
    AM_PLAN_SERPENT
} am_body_plan_kind;

/* What a limb is in this body (the role the plan gives a body.h chain). */
typedef enum am_limb_role {
    AM_LIMB_LEG = 0,   /* a biped's legs */
    AM_LIMB_FORELEG,
    AM_LIMB_HINDLEG,
    AM_LIMB_ARM,
    AM_LIMB_WING,
    AM_LIMB_TAIL
} am_limb_role;

/* The viewer chain a limb drives (where two plans meet: the same viewer chain driven by
 * limbs of different roles is a mismatch). */
typedef enum am_limb_viewer {
    AM_VIEWER_NONE = 0,
    AM_VIEWER_LEGS,     /* mHip .. mToe */
    AM_VIEWER_ARMS,     /* mCollar .. mWrist, the hand */
    AM_VIEWER_HINDLIMBS,/* mHindLimb1..4 */
    AM_VIEWER_WINGS,    /* mWing1..4 */
    AM_VIEWER_TAIL      /* mTail1..6 */
} am_limb_viewer;

#define AM_BODY_PLAN_MAX_LIMBS 8

typedef struct am_body_plan_limb {
    am_limb_role role;
    am_limb_viewer viewer;  /* what it drives (the map, or the viewer's own names); NONE: unmapped */
    am_string joints;       /* the rig's names of its first joints: "LeftUpLeg, RightUpLeg" */
    int chain;              /* body chain (the left one of a pair) */
    size_t count;           /* 2 for a pair, 1 for a tail */
} am_body_plan_limb;

typedef struct am_body_plan {
    am_body_plan_kind kind;
    am_body_plan_limb limbs[AM_BODY_PLAN_MAX_LIMBS];
    size_t limb_count;
    size_t leg_pairs;       /* legs, forelegs and hind legs, in pairs */
    bool weighted;          /* the chains counted by their weights (else by their motion) */
    am_string evidence;     /* "2 legs (LeftUpLeg, RightUpLeg); arms (LeftArm, RightArm) held
                               0.9 m above the feet" */
} am_body_plan;

/* The plan owns its texts (the limbs' joints, the evidence): a zeroed plan is empty, and
 * am_body_plan_free releases them (the plan is empty again). A plan is never copied by
 * value: am_body_plan_copy gives dst its own texts (dst's old ones freed); false when out
 * of memory (dst is then empty). */
AM_API void am_body_plan_free(am_body_plan *plan);
AM_API bool am_body_plan_copy(am_body_plan *dst, const am_body_plan *src);

/* The stock viewer avatar's plan (the target of anim from-model and anim from-bvh): a
 * biped, legs mHipLeft, mHipRight, arms mCollarLeft, mCollarRight. */
AM_API bool am_body_plan_viewer_avatar(am_body_plan *out);

/* "biped", "quadruped", "winged", "serpent", "other". */
AM_API const char *am_body_plan_label(am_body_plan_kind kind);

/* "leg", "foreleg", "hind leg", "arm", "wing", "tail". */
AM_API const char *am_limb_role_label(am_limb_role role);

/* A motion of plan `source` onto a creature of plan `target` is a mismatch when both are
 * known (not other), differ, and the limbs do not fit: a limb would drive one of another role
 * (arms the forelegs), or legs get no motion or drive nothing, or no limb meets another on a
 * viewer chain (a winged biped takes a biped's clip: its wings stay still). Then `why` says
 * both plans and the limbs that disagree
 * ("a biped motion onto a quadruped: its arms (LeftShoulder, RightShoulder) would drive the
 * forelegs (...)"; the arms first, then legs, hind limbs, wings).
 * false (why "") when they agree or either plan is other. */
AM_API bool am_body_plan_mismatch(const am_body_plan *source, const am_body_plan *target, char *why, size_t size);

#ifdef __cplusplus
}
#endif

#endif
