/* bvh_matrix.h */
#include "bvh_matrix.h"

#include <math.h>

m3 am_test_m3_axis(char axis, double deg)
{
    double c = cos(deg * AM_DEG2RAD), s = sin(deg * AM_DEG2RAD);
    m3 r = {{{1, 0, 0}, {0, 1, 0}, {0, 0, 1}}};
    int i = axis == 'X' ? 1 : axis == 'Y' ? 2 : 0, j = axis == 'X' ? 2 : axis == 'Y' ? 0 : 1;
    r.m[i][i] = c, r.m[i][j] = -s, r.m[j][i] = s, r.m[j][j] = c;
    return r;
}

m3 am_test_m3_mul(m3 a, m3 b)
{
    m3 r;
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            r.m[i][j] = a.m[i][0] * b.m[0][j] + a.m[i][1] * b.m[1][j] + a.m[i][2] * b.m[2][j];
    return r;
}

am_vec3 am_test_m3_apply(m3 a, am_vec3 v)
{
    return am_v3(a.m[0][0] * v.x + a.m[0][1] * v.y + a.m[0][2] * v.z, a.m[1][0] * v.x + a.m[1][1] * v.y + a.m[1][2] * v.z,
                 a.m[2][0] * v.x + a.m[2][1] * v.y + a.m[2][2] * v.z);
}

m3 am_test_m3_transpose(m3 a)
{
    m3 r;
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            r.m[i][j] = a.m[j][i];
    return r;
}

am_vec3 am_test_bvh_to_sl(am_vec3 v) { return am_v3(v.z, v.x, v.y); }
