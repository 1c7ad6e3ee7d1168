#include "math/am_math.h"

#include <math.h>
#include <string.h>

am_vec3 am_v3(double x, double y, double z) { return (am_vec3){x, y, z}; }
am_vec3 am_v3_add(am_vec3 a, am_vec3 b) { return (am_vec3){a.x + b.x, a.y + b.y, a.z + b.z}; }
am_vec3 am_v3_sub(am_vec3 a, am_vec3 b) { return (am_vec3){a.x - b.x, a.y - b.y, a.z - b.z}; }
am_vec3 am_v3_scale(am_vec3 a, double s) { return (am_vec3){a.x * s, a.y * s, a.z * s}; }
am_vec3 am_v3_mul(am_vec3 a, am_vec3 b) { return (am_vec3){a.x * b.x, a.y * b.y, a.z * b.z}; }
double am_v3_dot(am_vec3 a, am_vec3 b) { return a.x * b.x + a.y * b.y + a.z * b.z; }
am_vec3 am_v3_cross(am_vec3 a, am_vec3 b)
{
    return (am_vec3){a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x};
}
double am_v3_len(am_vec3 a) { return sqrt(am_v3_dot(a, a)); }
double am_v3_dist(am_vec3 a, am_vec3 b) { return am_v3_len(am_v3_sub(a, b)); }
am_vec3 am_v3_normalize(am_vec3 a)
{
    double l = am_v3_len(a);
    return l > 0 ? am_v3_scale(a, 1.0 / l) : a;
}
am_vec3 am_v3_lerp(am_vec3 a, am_vec3 b, double u) { return am_v3_add(a, am_v3_scale(am_v3_sub(b, a), u)); }

am_quat am_quat_identity(void) { return (am_quat){0, 0, 0, 1}; }

am_quat am_quat_axis_angle(am_vec3 axis, double radians)
{
    am_vec3 a = am_v3_normalize(axis);
    double s = sin(radians * 0.5);
    return (am_quat){a.x * s, a.y * s, a.z * s, cos(radians * 0.5)};
}

am_quat am_quat_mul(am_quat a, am_quat b)
{
    return (am_quat){
        a.w * b.x + a.x * b.w + a.y * b.z - a.z * b.y,
        a.w * b.y - a.x * b.z + a.y * b.w + a.z * b.x,
        a.w * b.z + a.x * b.y - a.y * b.x + a.z * b.w,
        a.w * b.w - a.x * b.x - a.y * b.y - a.z * b.z,
    };
}

am_quat am_quat_ll_mul(am_quat a, am_quat b) { return am_quat_mul(b, a); }
am_quat am_quat_conj(am_quat q) { return (am_quat){-q.x, -q.y, -q.z, q.w}; }
double am_quat_dot(am_quat a, am_quat b) { return a.x * b.x + a.y * b.y + a.z * b.z + a.w * b.w; }
double am_quat_len(am_quat q) { return sqrt(am_quat_dot(q, q)); }

am_quat am_quat_normalize(am_quat q)
{
    double l = am_quat_len(q);
    if (l < 1e-12)
        return am_quat_identity();
    return (am_quat){q.x / l, q.y / l, q.z / l, q.w / l};
}

am_vec3 am_quat_rotate(am_quat q, am_vec3 v)
{
    /* v' = v + 2w (u x v) + 2 u x (u x v), u = (x, y, z); exact for unit q. */
    am_vec3 u = {q.x, q.y, q.z};
    am_vec3 t = am_v3_scale(am_v3_cross(u, v), 2.0);
    return am_v3_add(am_v3_add(v, am_v3_scale(t, q.w)), am_v3_cross(u, t));
}

double am_quat_angle_between(am_quat a, am_quat b)
{
    double d = fabs(am_quat_dot(am_quat_normalize(a), am_quat_normalize(b)));
    if (d > 1.0)
        d = 1.0;
    return 2.0 * acos(d);
}

am_quat am_quat_from_euler_xyz_deg(am_vec3 deg)
{
    am_quat qx = am_quat_axis_angle(am_v3(1, 0, 0), deg.x * AM_DEG2RAD);
    am_quat qy = am_quat_axis_angle(am_v3(0, 1, 0), deg.y * AM_DEG2RAD);
    am_quat qz = am_quat_axis_angle(am_v3(0, 0, 1), deg.z * AM_DEG2RAD);
    /* X first, then Y, then Z about fixed axes: Hamilton qz (x) qy (x) qx. */
    return am_quat_mul(qz, am_quat_mul(qy, qx));
}

am_quat am_quat_slerp(double u, am_quat a, am_quat b)
{
    double c = am_quat_dot(a, b);
    if (c > 1.0)
        c = 1.0;
    if (c < -1.0)
        c = -1.0;
    double th = acos(c);
    double s = sin(th);
    if (fabs(s) < 1e-9) {
        return (am_quat){a.x + (b.x - a.x) * u, a.y + (b.y - a.y) * u, a.z + (b.z - a.z) * u,
                         a.w + (b.w - a.w) * u};
    }
    double ka = sin((1.0 - u) * th) / s, kb = sin(u * th) / s;
    return (am_quat){a.x * ka + b.x * kb, a.y * ka + b.y * kb, a.z * ka + b.z * kb,
                     a.w * ka + b.w * kb};
}

am_quat am_quat_nlerp_viewer(double u, am_quat a, am_quat b)
{
    if (am_quat_dot(a, b) < 0.0) {
        am_quat na = {-a.x, -a.y, -a.z, -a.w};
        return am_quat_slerp(u, na, b);
    }
    am_quat r = {a.x + (b.x - a.x) * u, a.y + (b.y - a.y) * u, a.z + (b.z - a.z) * u,
                 a.w + (b.w - a.w) * u};
    double l = am_quat_len(r);
    if (fabs(l - 1.0) < 1e-6)
        return r;
    if (l < 1e-12)
        return am_quat_identity();
    return (am_quat){r.x / l, r.y / l, r.z / l, r.w / l};
}

void am_quat_to_rows(am_quat q, double r[9])
{
    double x = q.x, y = q.y, z = q.z, w = q.w;
    /* Column-vector rotation R; LL rows are its transpose. */
    double R[9] = {
        1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w),
        2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w),
        2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y),
    };
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            r[3 * i + j] = R[3 * j + i];
}

am_quat am_quat_from_rows(const double r[9])
{
    /* Convert LL rows back to the column-vector matrix R = rows^T and extract. */
    double R[9];
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            R[3 * i + j] = r[3 * j + i];
    double tr = R[0] + R[4] + R[8];
    am_quat q;
    if (tr > 0) {
        double s = sqrt(tr + 1.0) * 2;
        q = (am_quat){(R[7] - R[5]) / s, (R[2] - R[6]) / s, (R[3] - R[1]) / s, 0.25 * s};
    } else if (R[0] > R[4] && R[0] > R[8]) {
        double s = sqrt(1.0 + R[0] - R[4] - R[8]) * 2;
        q = (am_quat){0.25 * s, (R[1] + R[3]) / s, (R[2] + R[6]) / s, (R[7] - R[5]) / s};
    } else if (R[4] > R[8]) {
        double s = sqrt(1.0 + R[4] - R[0] - R[8]) * 2;
        q = (am_quat){(R[1] + R[3]) / s, 0.25 * s, (R[5] + R[7]) / s, (R[2] - R[6]) / s};
    } else {
        double s = sqrt(1.0 + R[8] - R[0] - R[4]) * 2;
        q = (am_quat){(R[2] + R[6]) / s, (R[5] + R[7]) / s, 0.25 * s, (R[3] - R[1]) / s};
    }
    return am_quat_normalize(q);
}

am_mat4 am_mat4_identity(void)
{
    am_mat4 r = {{1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1}};
    return r;
}

am_mat4 am_mat4_mul(const am_mat4 *a, const am_mat4 *b)
{
    am_mat4 r;
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 4; j++) {
            double s = 0;
            for (int k = 0; k < 4; k++)
                s += a->m[4 * i + k] * b->m[4 * k + j];
            r.m[4 * i + j] = s;
        }
    return r;
}

am_vec3 am_mat4_transform_point(const am_mat4 *M, am_vec3 p)
{
    const double *m = M->m;
    return (am_vec3){p.x * m[0] + p.y * m[4] + p.z * m[8] + m[12],
                     p.x * m[1] + p.y * m[5] + p.z * m[9] + m[13],
                     p.x * m[2] + p.y * m[6] + p.z * m[10] + m[14]};
}

am_vec3 am_mat4_transform_dir(const am_mat4 *M, am_vec3 d)
{
    const double *m = M->m;
    return (am_vec3){d.x * m[0] + d.y * m[4] + d.z * m[8], d.x * m[1] + d.y * m[5] + d.z * m[9],
                     d.x * m[2] + d.y * m[6] + d.z * m[10]};
}

bool am_mat4_inverse(const am_mat4 *M, am_mat4 *out)
{
    /* Gauss-Jordan with partial pivoting. */
    double a[4][8];
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 4; j++) {
            a[i][j] = M->m[4 * i + j];
            a[i][j + 4] = (i == j) ? 1.0 : 0.0;
        }
    for (int c = 0; c < 4; c++) {
        int p = c;
        for (int r = c + 1; r < 4; r++)
            if (fabs(a[r][c]) > fabs(a[p][c]))
                p = r;
        if (fabs(a[p][c]) < 1e-300) {
            *out = am_mat4_identity();
            return false;
        }
        if (p != c)
            for (int j = 0; j < 8; j++) {
                double t = a[c][j];
                a[c][j] = a[p][j];
                a[p][j] = t;
            }
        double inv = 1.0 / a[c][c];
        for (int j = 0; j < 8; j++)
            a[c][j] *= inv;
        for (int r = 0; r < 4; r++) {
            if (r == c)
                continue;
            double f = a[r][c];
            if (f != 0.0)
                for (int j = 0; j < 8; j++)
                    a[r][j] -= f * a[c][j];
        }
    }
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 4; j++)
            out->m[4 * i + j] = a[i][j + 4];
    return true;
}

am_mat4 am_mat4_transpose(const am_mat4 *m)
{
    am_mat4 r;
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 4; j++)
            r.m[4 * i + j] = m->m[4 * j + i];
    return r;
}

am_mat4 am_mat4_from_trs(am_vec3 pos, am_quat rot, am_vec3 scale)
{
    double rows[9];
    am_quat_to_rows(am_quat_normalize(rot), rows);
    double s[3] = {scale.x, scale.y, scale.z};
    am_mat4 r = am_mat4_identity();
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            r.m[4 * i + j] = s[i] * rows[3 * i + j]; /* scale the rows (LLMatrix4::initAll) */
    r.m[12] = pos.x;
    r.m[13] = pos.y;
    r.m[14] = pos.z;
    return r;
}

am_mat4 am_mat4_translation(am_vec3 t)
{
    am_mat4 r = am_mat4_identity();
    am_mat4_set_translation(&r, t);
    return r;
}

am_vec3 am_mat4_get_translation(const am_mat4 *m) { return (am_vec3){m->m[12], m->m[13], m->m[14]}; }

void am_mat4_set_translation(am_mat4 *m, am_vec3 t)
{
    m->m[12] = t.x;
    m->m[13] = t.y;
    m->m[14] = t.z;
}

double am_mat4_max_abs_diff(const am_mat4 *a, const am_mat4 *b)
{
    double d = 0;
    for (int i = 0; i < 16; i++) {
        double e = fabs(a->m[i] - b->m[i]);
        if (e > d || isnan(e))
            d = isnan(e) ? INFINITY : e;
    }
    return d;
}

void am_mat4_axpy(am_mat4 *acc, double w, const am_mat4 *m)
{
    for (int i = 0; i < 16; i++)
        acc->m[i] += w * m->m[i];
}
