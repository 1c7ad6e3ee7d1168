/* Checks on a level of detail of the bend-box-shaped test meshes (a 4 x 2 x 1 m box hinged
 * at mPelvis's rest height, 1.067 m), shared by the LOD tests. */
#ifndef AM_TESTS_SUPPORT_LOD_CHECKS_H
#define AM_TESTS_SUPPORT_LOD_CHECKS_H

#include "bench/bench.h"

/* How many of the four long edges of the line x = x0 keep a vertex in b (0..4): a LOD that
 * lost a hinge or blend line has fewer than 4. */
int am_test_hinge_corners(const am_bench *b, double x0);

#endif
