/* 3x3 rotation matrices for the BVH tests: expected values computed independently of the
 * converter's quaternion formulas (BVH channel angles -> matrices, BVH <-> SL axes). */
#ifndef AM_TESTS_SUPPORT_BVH_MATRIX_H
#define AM_TESTS_SUPPORT_BVH_MATRIX_H

#include "math/am_math.h"

/* Column-vector rotation matrix, m[r][c]. */
typedef struct m3 {
    double m[3][3];
} m3;

/* Rotation of deg degrees about the X, Y or Z axis. */
m3 am_test_m3_axis(char axis, double deg);
m3 am_test_m3_mul(m3 a, m3 b);
am_vec3 am_test_m3_apply(m3 a, am_vec3 v);
m3 am_test_m3_transpose(m3 a);
/* BVH vector -> SL vector: (z, x, y) (docs/reference/anim-format.md#bvh-coordinate-conversion). */
am_vec3 am_test_bvh_to_sl(am_vec3 v);

#endif
