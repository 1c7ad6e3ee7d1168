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

#include "animesh/jointmap.h"

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

/* The plan as a JSON object: {"plan", "evidence", "limbs": [{"role", "joints", "drives"}]}. */
struct json_t;
struct json_t *am_body_plan_json(const am_body_plan *plan);

#ifdef __cplusplus
}
#endif

#endif
