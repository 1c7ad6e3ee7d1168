/* The body plan of a skeleton, source or target (issue 28): biped, quadruped, winged,
 * serpent (a tail or serpent body) or other, with the evidence: which chains are legs,
 * forelegs, hind legs, arms, wings and tail, by the rig's own joint names. It reads the
 * chains body.h found (mirror pairs, hubs) and adds what decides the plan:
 *
 *  - a chain COUNTS when it carries the creature: in a skinned model, when one of its joints
 *    carries vertex weight (the Bento skeleton's unweighted wings, tail and hind limbs are
 *    not a body); in a skeleton without skin (a motion), always, except the viewer's own
 *    extension joints (mWing*, mTail*, mHindLimb*, mSpine*: every full viewer skeleton
 *    has them), which count when a clip turns one of them by over 0.5 deg;
 *  - UP is the file axis the axes took (axes.h), else where the legs hang;
 *  - a pair of ARMS (body.h: the pair at the chest) whose lowest joint comes down to within
 *    30 % of the legs' height of the feet stands on the ground: FORELEGS. Arms held
 *    higher (a biped's, in T, A or rest pose; a raptor's) stay arms;
 *  - with two pairs of legs, the pair farther forward (the file's forward axis, else
 *    towards the head or the chest) is the forelegs, the other the hind legs.
 * The plan:
 *   winged     a counted pair of wings (named so, or broad: body.h), whatever the legs;
 *   quadruped  two pairs of legs (legs and forelegs, or a second pair at the leg hub);
 *   biped      one pair of legs (arms optional: a raptor is a biped with a horizontal body);
 *   serpent    no legs, and one chain (a tail, a spine) of at least 4 joints holding 60 %
 *              of the joints (of the weighted ones on the full viewer skeleton);
 *   other      anything else (three pairs of legs and more, no chain at all).
 * A motion's plan and its target's are compared by am_body_plan_mismatch: the retargeting
 * routes refuse a motion across plans unless told (--allow-body-mismatch). */
#ifndef AM_MAP_BODY_PLAN_H
#define AM_MAP_BODY_PLAN_H

#ifdef __cplusplus
extern "C" {
#endif

#include <stdbool.h>
#include <stddef.h>

#include "core/am_string.h"
#include "map/axes.h"
#include "map/body.h"
#include "map/map_suggest.h"
#include "scene/scene.h"
#include "skeleton/skeleton.h"

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
void am_body_plan_free(am_body_plan *plan);
bool am_body_plan_copy(am_body_plan *dst, const am_body_plan *src);

/* Classify a body (am_body_analyse) into *out (overwritten: free a plan before filling it
 * again; free the result with am_body_plan_free). axes (may be
 * NULL) gives up and forward in the file frame; sug (may be NULL) which viewer joint each
 * body joint drives, else skel (may be NULL) by the joint's own viewer name (a model rigged
 * to the viewer skeleton). False only when out of memory (the plan's texts then incomplete;
 * its kind and limbs are still read). The same for the two below. */
bool am_body_plan_classify(const am_scene *scene, const am_body *body, const am_axes *axes,
                           const am_map_suggestion *sug, const am_skeleton *skel, am_body_plan *out);
/* The plan of a creature already on the viewer skeleton (a written asset on the bench): per
 * skeleton joint whether it carries weight and where it is at rest (viewer frame: +Z up, +X
 * forward). Limbs by the viewer's chains that carry weight on both sides: mHip..mToe,
 * mCollar..mWrist and the hand, mHindLimb1..4, mWing1..4, mTail1..6 (one is enough); the
 * arms are forelegs when they come down to the feet (as above), and of two pairs of legs
 * the one farther forward (+X) is the forelegs. */
bool am_body_plan_from_viewer(const am_skeleton *skel, const bool *weighted, const am_vec3 *rest, am_body_plan *out);
/* The stock viewer avatar's plan (the target of anim from-model and anim from-bvh): a
 * biped, legs mHipLeft, mHipRight, arms mCollarLeft, mCollarRight. */
bool am_body_plan_viewer_avatar(am_body_plan *out);
/* "biped", "quadruped", "winged", "serpent", "other". */
const char *am_body_plan_label(am_body_plan_kind kind);
/* "leg", "foreleg", "hind leg", "arm", "wing", "tail". */
const char *am_limb_role_label(am_limb_role role);

/* A motion of plan `source` onto a creature of plan `target` is a mismatch when both are
 * known (not other), differ, and the limbs do not fit: a limb would drive one of another role
 * (arms the forelegs), or legs get no motion or drive nothing, or no limb meets another on a
 * viewer chain (a winged biped takes a biped's clip: its wings stay still). Then `why` says
 * both plans and the limbs that disagree
 * ("a biped motion onto a quadruped: its arms (LeftShoulder, RightShoulder) would drive the
 * forelegs (...)"; the arms first, then legs, hind limbs, wings).
 * false (why "") when they agree or either plan is other. */
bool am_body_plan_mismatch(const am_body_plan *source, const am_body_plan *target, char *why, size_t size);

/* The plan as a JSON object: {"plan", "evidence", "limbs": [{"role", "joints", "drives"}]}. */
struct json_t;
struct json_t *am_body_plan_json(const am_body_plan *plan);

#ifdef __cplusplus
}
#endif

#endif
