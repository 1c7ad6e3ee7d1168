/* The end-to-end path the retargeting tests share: retarget -> am_skin_build -> encode ->
 * the bench loading the ENCODED mesh and every motion from its encoded bytes (so what is
 * measured is what the decoders read back), plus matching bench vertices to expected ones
 * and the largest posing error. Every helper fails the test on an error, printing it. */
#ifndef AM_TESTS_SUPPORT_RETARGET_SUPPORT_H
#define AM_TESTS_SUPPORT_RETARGET_SUPPORT_H

#include <stddef.h>

#include "bench/bench.h"
#include "retarget/retarget.h"

/* Exactly one rig is expected; the bench owns copies, `res` stays the caller's. */
void am_test_retarget_bench(const am_scene *scene, const am_skeleton *skel, const am_retarget_options *opts,
                            am_retarget_result *res, am_bench *bench);
/* For each bench vertex, the index of the nearest of the n expected rest positions (bind
 * frame, 3 floats each); every one must lie within tol. The caller frees the array. */
size_t *am_test_retarget_match(const am_bench *bench, const float *rest, size_t n, double tol);
/* The largest distance between the bench posed at motion-local time t (bind frame) and
 * want[match[i]] over its vertices. */
double am_test_retarget_pose_error(const am_bench *bench, const size_t *match, int motion, double t, const float *want);

#endif
