/* Test and benchmark support: a walk-like clip for the stock biped joints (hips, knees,
 * shoulders, elbows and torso swinging over 1 s, looping; 24 key intervals), encoded as an
 * .anim the bench reads. Not a product motion. */
#ifndef AM_BENCH_PERF_SUPPORT_TEST_WALK_H
#define AM_BENCH_PERF_SUPPORT_TEST_WALK_H

#include "core/error.h"
#include "core/io.h"
#include "skeleton/skeleton.h"

#define AM_TEST_WALK_KEYS 24

/* The clip's .anim bytes into out (appended). */
am_status am_test_walk_anim(const am_skeleton *skel, am_buf *out, am_error *err);

#endif
