/* The one math module: vec3, quaternions and 4x4 matrices, in the viewer's conventions.
 *
 * Axes: +X forward, +Y left, +Z up, metres (docs/reference/viewer-skeleton.md#units-axes-and-rotations).
 *
 * Quaternions are stored (x, y, z, w); angle t about unit axis a is (a sin(t/2), cos(t/2)).
 * am_quat_mul(a, b) is the Hamilton product a (x) b: "apply b first, then a". The viewer
 * writes the same thing as `b * a` (its operator* means "apply left first");
 * am_quat_ll_mul(a, b) is that viewer product, "apply a first, then b".
 *
 * Matrices use the viewer's LL layout (docs/reference/mesh-asset.md#matrix-layout): double m[16] with
 * m[4*row + col], ROW vectors (v' = v * M), translation in m[12], m[13], m[14]. This is
 * exactly the element order of the 16-real arrays in a mesh asset's skin block, and the
 * column-major listing of the usual column-vector matrix. am_mat4_mul(a, b) = a * b:
 * applied to a row vector it applies a first, then b. A COLLADA <matrix> is the transpose.
 */
#ifndef AM_MATH_H
#define AM_MATH_H

#include "animesh/core.h"

#ifdef __cplusplus
extern "C" {
#endif

#include <stdbool.h>

#define AM_PI 3.14159265358979323846
#define AM_DEG2RAD (AM_PI / 180.0)
#define AM_RAD2DEG (180.0 / AM_PI)

/* --- vec3 --- */
am_vec3 am_v3(double x, double y, double z);
am_vec3 am_v3_add(am_vec3 a, am_vec3 b);
am_vec3 am_v3_sub(am_vec3 a, am_vec3 b);
am_vec3 am_v3_scale(am_vec3 a, double s);
am_vec3 am_v3_mul(am_vec3 a, am_vec3 b); /* component-wise */
double am_v3_dot(am_vec3 a, am_vec3 b);
am_vec3 am_v3_cross(am_vec3 a, am_vec3 b);
double am_v3_len(am_vec3 a);
double am_v3_dist(am_vec3 a, am_vec3 b);
am_vec3 am_v3_normalize(am_vec3 a); /* zero vector stays zero */
am_vec3 am_v3_lerp(am_vec3 a, am_vec3 b, double u);

/* --- quaternions --- */
am_quat am_quat_identity(void);
am_quat am_quat_axis_angle(am_vec3 axis, double radians); /* axis need not be unit */
am_quat am_quat_mul(am_quat a, am_quat b);                 /* Hamilton a (x) b: b first */
am_quat am_quat_ll_mul(am_quat a, am_quat b);              /* viewer a * b: a first */
am_quat am_quat_conj(am_quat q);
am_quat am_quat_normalize(am_quat q);
double am_quat_dot(am_quat a, am_quat b);
double am_quat_len(am_quat q);
am_vec3 am_quat_rotate(am_quat q, am_vec3 v); /* q v q^-1 */
/* Angle in radians between two rotations (0..pi), sign-insensitive. */
double am_quat_angle_between(am_quat a, am_quat b);
/* avatar_skeleton.xml `rot`: degrees about fixed X, then Y, then Z (viewer mayaQ XYZ). */
am_quat am_quat_from_euler_xyz_deg(am_vec3 deg);
/* The viewer's LLQuaternion nlerp (docs/reference/anim-format.md#curve-evaluation): lerp + normalise when dot >= 0 (skip
 * when |len-1| < 1e-6, identity when near zero); slerp from -a to b when dot < 0. */
am_quat am_quat_nlerp_viewer(double u, am_quat a, am_quat b);
am_quat am_quat_slerp(double u, am_quat a, am_quat b);
/* 3x3 rotation, LL layout rows (row r = image of basis r), from a unit quaternion. */
void am_quat_to_rows(am_quat q, double rows[9]);
/* Quaternion from an orthonormal 3x3 in LL-layout rows. */
am_quat am_quat_from_rows(const double rows[9]);

/* --- 4x4, LL layout --- */
am_mat4 am_mat4_identity(void);
am_mat4 am_mat4_mul(const am_mat4 *a, const am_mat4 *b); /* a then b (row vectors) */
am_vec3 am_mat4_transform_point(const am_mat4 *m, am_vec3 p);
am_vec3 am_mat4_transform_dir(const am_mat4 *m, am_vec3 d);
/* General inverse; returns false (and identity) when singular. */
bool am_mat4_inverse(const am_mat4 *m, am_mat4 *out);
am_mat4 am_mat4_transpose(const am_mat4 *m);
/* v * S(scale) * R(rot) * T(pos): scale first, then rotate, then translate. */
am_mat4 am_mat4_from_trs(am_vec3 pos, am_quat rot, am_vec3 scale);
am_mat4 am_mat4_translation(am_vec3 t);
am_vec3 am_mat4_get_translation(const am_mat4 *m);
void am_mat4_set_translation(am_mat4 *m, am_vec3 t);
double am_mat4_max_abs_diff(const am_mat4 *a, const am_mat4 *b);
/* Blend sum_k w_k M_k (affine blend as the viewer's skinning shader does). */
void am_mat4_axpy(am_mat4 *acc, double w, const am_mat4 *m);

#ifdef __cplusplus
}
#endif

#endif
