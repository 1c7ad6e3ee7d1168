/* The report's standard poses chosen by the creature's body plan (issue 28): a fox is not
 * posed like a person ("arm down" lifted its foreleg sideways). The plan is read from the
 * written asset on the bench (map/body_plan.h am_body_plan_from_viewer: the viewer chains
 * that carry weight, where they are at rest), then:
 *
 *   biped, other  the humanoid set (quality.h STANDARD POSES)
 *   quadruped     foreleg forward, foreleg lift, hind leg back, hind knee, sit, head turn,
 *                 head down, tail swing, tail lift; the fore and hind legs are whichever
 *                 viewer chains hold them (a retargeted fox: forelegs on mCollar..mWrist,
 *                 hind legs on mHip..; a viewer-rigged one: mHip.. and mHindLimb1..4)
 *   winged        wings up, wings down, wing fold, then the set of its legs (one pair: the
 *                 humanoid set, two: the quadruped's)
 *   serpent       spine bend, spine twist, head turn, tail swing, tail lift
 * Angles as in quality.h (bind-frame axes at rest: X forward, Y left, Z up, in each joint's
 * rest frame); a pose is measured only when the skin weights every joint it moves, and
 * one-sided poses move the Left side (the cross-side leak). */
#ifndef AM_REPORT_POSES_BY_PLAN_H
#define AM_REPORT_POSES_BY_PLAN_H

#ifdef __cplusplus
extern "C" {
#endif

#include <stddef.h>

#include "bench/bench.h"
#include "core/error.h"
#include "map/body_plan.h"
#include "report/quality.h"

/* The creature's plan on a bench (rest pose, weighted joints). */
am_status am_quality_body_plan(const am_bench *b, am_body_plan *out, am_error *err);
/* The standard poses for that plan: *out malloc'd (free it with am_quality_poses_free),
 * *count set. */
am_status am_quality_plan_poses(const am_body_plan *plan, am_quality_pose **out, size_t *count,
                                am_error *err);

#ifdef __cplusplus
}
#endif

#endif
