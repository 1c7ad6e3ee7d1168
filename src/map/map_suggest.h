/* Joint-map suggestion (`animesh map suggest`): which stock viewer joint each rig joint
 * should drive, from its NAME (joint_names.h) and the rig's TOPOLOGY (body.h), with a
 * confidence and the reason for every joint. The map it produces keeps every rig chain a
 * viewer chain and stays within 110 joints (docs/reference/lessons.md#rule-1, #rule-6 and #rule-11; am_joint_map_check
 * passes on it).
 *
 * Roles from the topology, onto viewer chains (docs/reference/viewer-skeleton.md#bento-chains-for-creatures):
 *   pelvis -> mPelvis; spine joints -> mSpine1, mSpine2, mTorso, mSpine3, mSpine4 (as many
 *   as there are, in that order: 1 -> mTorso, 2 -> mSpine1 mTorso, ...), the chest (where
 *   the arms hang) -> mChest; neck -> mNeck (further neck joints stay unmapped), head ->
 *   mHead, the head's end -> mSkull;
 *   legs (upright body) and hind legs (horizontal body) -> mHip, mKnee, mAnkle, mFoot, mToe
 *   from the joint starting the upper leg (joints before it, e.g. CMU's LHipJoint, stay
 *   unmapped); a second pair at the pelvis -> mHindLimb1..4;
 *   arms and forelegs -> mCollar, mShoulder, mElbow, mWrist (the shoulder found by name, or
 *   two joints above the hand, or by a short first bone), forelegs beyond the wrist ->
 *   mHandMiddle1..3; fingers -> mHand{Thumb,Index,Middle,Ring,Pinky}1..3 (by name, else in
 *   order front to back); wings -> mWing1..4; tail -> mTail1..6 (evenly chosen when
 *   longer); eyes -> mEye; ears -> mFaceEar1..2; jaw -> mFaceJaw.
 * A rig joint whose name is already a viewer bone name or alias ("hip", "lThigh",
 * "mHead") maps to it (confidence 1). Segments ("upper_arm.L.001", twist and roll bones)
 * and joints no role reaches stay unmapped; their weights go to the nearest mapped
 * ancestor (reported).
 *
 * Then the fallback (map_fallback.h): weighted joints still unmapped are embedded into free
 * viewer chains, ancestry kept (AM_MAP_FALLBACK, confidence 0.3, reason "fallback (a
 * guess ...)"); those with no room are counted and named in one warning.
 *
 * Confidence: 1 the viewer's own name or --map; 0.95 name and topology agree; 0.75
 * topology only (no recognised name); 0.5 the name says another part (topology wins);
 * at most 0.6 when the name's side is not the side of the body the joint is on (the side
 * of the body wins: left = viewer +Y after the axis conversion).
 *
 * Rig joints are named in maps by their node name, or "#N" when the name is empty or
 * not unique: N = the node's index in the file's own list where it has one (glTF nodes[N]),
 * else in the scene (am_scene_node_number).
 */
#ifndef AM_MAP_SUGGEST_H
#define AM_MAP_SUGGEST_H

#ifdef __cplusplus
extern "C" {
#endif

#include <stdbool.h>
#include <stddef.h>

#include "core/am_string.h"
#include "core/error.h"
#include "core/io.h"
#include "map/axes.h"
#include "map/body.h"
#include "scene/scene.h"
#include "skeleton/jointmap.h"
#include "skeleton/skeleton.h"

typedef enum am_map_source {
    AM_MAP_NONE = 0,   /* unmapped */
    AM_MAP_VIEWER_NAME,
    AM_MAP_TOPOLOGY,   /* topology, with or without the name agreeing */
    AM_MAP_USER,       /* --map */
    AM_MAP_FALLBACK    /* embedded in a free viewer chain by the fallback: a guess */
} am_map_source;

typedef struct am_map_joint {
    int node;              /* scene node */
    am_string rig_name;    /* the name maps use (node name or "#N") */
    int target;            /* skeleton joint, -1 when unmapped */
    am_map_source source;
    double confidence;     /* 0..1 (0 when unmapped) */
    am_string reason;      /* one sentence: why this target (or none) */
    int weight_to;         /* unmapped: the node its weights move to, -1 when none */
} am_map_joint;

typedef struct am_map_suggestion {
    am_map_joint *joints;  /* one per body joint, same order */
    size_t count;
    size_t mapped;
    am_string convention;  /* the naming convention most joints follow, "" when none */
    am_string *notes;      /* entries dropped or changed to pass the check, every one */
    size_t note_count, note_cap;
    /* The fallback: joints it placed, and weighted joints it found no room for (their
     * vertices follow their nearest mapped ancestor), with what they carry. */
    size_t fallback_count;
    size_t unembedded_count;
    size_t unembedded_vertices;  /* vertices with weight on any of them */
    double unembedded_weight;    /* the sum of those weights, as the file gives them */
    am_string *warnings;   /* each fits a retarget finding */
    size_t warning_count, warning_cap;
} am_map_suggestion;

/* The name a map uses for a node: its name, or "#N" when empty or shared by another joint.
 * out must hold 128 bytes. */
const char *am_map_rig_name(const am_scene *scene, int node, char *out, size_t size);
/* The node a map name refers to ("#N" or a unique name), -1 when none. */
int am_map_find_node(const am_scene *scene, const char *rig_name);

/* Suggest a map. `user` (may be NULL) overrides any part: its entries win, a target of
 * "-" leaves that rig joint unmapped; a rig joint it names that the model lacks, or a
 * target that is not a viewer joint, is refused naming it. The result passes
 * am_joint_map_check, or the call fails naming the problem (a user entry breaking a chain,
 * more than 110 joints). */
am_status am_map_suggest(const am_scene *scene, const am_body *body, const am_axes *axes, const am_skeleton *skel,
                         const am_joint_map *user, am_map_suggestion *out, am_error *err);
/* The map (mapped joints; rig_parents for every joint) for am_joint_map_check and the
 * retargeter. */
am_status am_map_suggestion_to_map(const am_map_suggestion *sug, const am_body *body, const am_skeleton *skel,
                                   am_joint_map *out, am_error *err);
/* MAP.json: {"joints": {...}, "rig_parents": {...}, "confidence": {rig: c}, "reasons": {rig: "..."}}
 * (am_joint_map_load reads "joints" and "rig_parents"; the rest is for the reader). */
am_status am_map_suggestion_write_json(const am_map_suggestion *sug, const am_body *body, const am_skeleton *skel,
                                       am_buf *out, am_error *err);
/* Frees the joints, their names and reasons, the notes and the warnings; zeroed after. */
void am_map_suggestion_free(am_map_suggestion *sug);
/* Add a note to the suggestion. False when out of memory (the note is not added). */
bool am_map_suggestion_note(am_map_suggestion *sug, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* The three steps in one: body plan, axes (given or detected), sides, suggestion with
 * `user` over it. On failure nothing needs freeing. */
am_status am_map_suggest_scene(const am_scene *scene, const am_skeleton *skel, const am_axes_options *axes_opts,
                               const am_joint_map *user, am_body *body, am_axes *axes, am_map_suggestion *out,
                               am_error *err);
/* The report of `animesh map suggest --json`: source, format, axes (report, up, forward,
 * scale, conflicts), naming convention, body_plan (body_plan.h: plan, evidence, limbs), per
 * joint {rig, target, confidence, reason, weights_to}, notes, and the map itself. */
am_status am_map_suggestion_report_json(const am_scene *scene, const am_body *body, const am_axes *axes,
                                        const am_map_suggestion *sug, const am_skeleton *skel, am_buf *out,
                                        am_error *err);

#ifdef __cplusplus
}
#endif

#endif
