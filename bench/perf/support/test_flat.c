/* Flat-shaded test meshes (test_flat.h). */
#include "bench/perf/support/test_flat.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bendbox/bendbox.h"

/* A rig of nv unshared corners and nt triangles on the bend box's two hips, both at the
 * hinge, white; every array allocated, nothing filled. */
static am_status alloc_rig(am_rig *rig, const char *name, size_t nv, size_t nt, am_error *err)
{
    rig->name = strdup(name);
    rig->joints = calloc(2, sizeof *rig->joints);
    rig->positions = malloc(3 * nv * sizeof(float));
    rig->normals = malloc(3 * nv * sizeof(float));
    rig->uvs = malloc(2 * nv * sizeof(float));
    rig->triangles = malloc(3 * nt * sizeof(uint32_t));
    rig->weight_start = malloc((nv + 1) * sizeof(size_t));
    rig->influences = malloc(2 * nv * sizeof(am_rig_influence));
    rig->joint_count = rig->joints ? 2 : 0;
    if (rig->joints) {
        rig->joints[0].name = strdup("mHipRight");
        rig->joints[1].name = strdup("mHipLeft");
    }
    if (!rig->name || !rig->joints || !rig->positions || !rig->normals || !rig->uvs || !rig->triangles ||
        !rig->weight_start || !rig->influences || !rig->joints[0].name || !rig->joints[1].name) {
        am_rig_free(rig);
        return am_fail_nomem(err, name);
    }
    rig->joints[0].world = rig->joints[1].world = am_bendbox_hinge();
    rig->rgb[0] = rig->rgb[1] = rig->rgb[2] = 1.0;
    return AM_OK;
}

/* Vertex v's weights, the bend box's smoothstep over x in [-1, 1] (mHipRight 0, mHipLeft
 * 1), stored from influence w; returns the next free influence. */
static size_t add_hinge_weights(am_rig *rig, size_t v, double x, size_t w)
{
    double s = am_bendbox_left_weight(x);
    rig->weight_start[v] = w;
    if (s < 1.0)
        rig->influences[w++] = (am_rig_influence){0, 1.0 - s};
    if (s > 0.0)
        rig->influences[w++] = (am_rig_influence){1, s};
    return w;
}

am_status am_test_flat_box_rig(am_rig *rig, double cell, am_error *err)
{
    memset(rig, 0, sizeof *rig);
    const double half[3] = {2.0, 1.0, 0.5};
    int n[3];
    for (int k = 0; k < 3; k++)
        n[k] = (int)lround(2 * half[k] / cell);
    size_t quads = 2 * ((size_t)n[1] * n[2] + (size_t)n[0] * n[2] + (size_t)n[0] * n[1]);
    size_t nt = 2 * quads, nv = 3 * nt;
    am_status st = alloc_rig(rig, "flatbox", nv, nt, err);
    if (st)
        return st;
    const am_vec3 hinge = am_bendbox_hinge();
    size_t v = 0, t = 0, w = 0;
    for (int axis = 0; axis < 3; axis++)
        for (int sign = -1; sign <= 1; sign += 2) {
            int ua = (axis + 1) % 3, va = (axis + 2) % 3; /* u x v = +axis */
            for (int j = 0; j < n[va]; j++)
                for (int i = 0; i < n[ua]; i++) {
                    double q[4][3];
                    const int du[4] = {0, 1, 1, 0}, dv[4] = {0, 0, 1, 1};
                    for (int c = 0; c < 4; c++) {
                        q[c][axis] = sign * half[axis];
                        q[c][ua] = -half[ua] + (i + du[c]) * cell;
                        q[c][va] = -half[va] + (j + dv[c]) * cell;
                    }
                    /* outward: counter-clockwise seen from +axis when sign > 0 */
                    const int tri[2][3] = {{0, 1, 2}, {0, 2, 3}}, rev[2][3] = {{0, 2, 1}, {0, 3, 2}};
                    for (int h = 0; h < 2; h++) {
                        for (int c = 0; c < 3; c++) {
                            const double *p = q[sign > 0 ? tri[h][c] : rev[h][c]];
                            rig->positions[3 * v] = (float)(p[0] + hinge.x);
                            rig->positions[3 * v + 1] = (float)(p[1] + hinge.y);
                            rig->positions[3 * v + 2] = (float)(p[2] + hinge.z);
                            for (int k = 0; k < 3; k++)
                                rig->normals[3 * v + (size_t)k] = k == axis ? (float)sign : 0.0f;
                            rig->uvs[2 * v] = (float)((p[ua] + half[ua]) / (2 * half[ua]));
                            rig->uvs[2 * v + 1] = (float)((p[va] + half[va]) / (2 * half[va]));
                            w = add_hinge_weights(rig, v, p[0], w);
                            rig->triangles[3 * t + (size_t)c] = (uint32_t)v;
                            v++;
                        }
                        t++;
                    }
                }
        }
    rig->weight_start[v] = w;
    rig->vertex_count = v;
    rig->triangle_count = t;
    return AM_OK;
}

am_status am_test_faceted_tube_rig(am_rig *rig, int sides, int rings, am_error *err)
{
    memset(rig, 0, sizeof *rig);
    size_t nt = 2 * (size_t)sides * (size_t)rings, nv = 3 * nt;
    am_status st = alloc_rig(rig, "facetedtube", nv, nt, err);
    if (st)
        return st;
    const am_vec3 hinge = am_bendbox_hinge();
    size_t v = 0, t = 0, w = 0;
    for (int r = 0; r < rings; r++)
        for (int k = 0; k < sides; k++) {
            double q[4][3];
            const int dr[4] = {0, 1, 1, 0}, dk[4] = {0, 0, 1, 1};
            for (int c = 0; c < 4; c++) {
                double a = 2 * AM_PI * (k + dk[c]) / sides;
                q[c][0] = -2.0 + 4.0 * (r + dr[c]) / rings;
                q[c][1] = 0.5 * cos(a);
                q[c][2] = 0.5 * sin(a);
            }
            const int tri[2][3] = {{0, 1, 2}, {0, 2, 3}};
            for (int h = 0; h < 2; h++) {
                const double *p0 = q[tri[h][0]], *p1 = q[tri[h][1]], *p2 = q[tri[h][2]];
                double e1[3] = {p1[0] - p0[0], p1[1] - p0[1], p1[2] - p0[2]};
                double e2[3] = {p2[0] - p0[0], p2[1] - p0[1], p2[2] - p0[2]};
                double nn[3] = {e1[1] * e2[2] - e1[2] * e2[1], e1[2] * e2[0] - e1[0] * e2[2],
                                e1[0] * e2[1] - e1[1] * e2[0]};
                double l = sqrt(nn[0] * nn[0] + nn[1] * nn[1] + nn[2] * nn[2]);
                for (int c = 0; c < 3; c++) {
                    const double *p = q[tri[h][c]];
                    rig->positions[3 * v] = (float)(p[0] + hinge.x);
                    rig->positions[3 * v + 1] = (float)(p[1] + hinge.y);
                    rig->positions[3 * v + 2] = (float)(p[2] + hinge.z);
                    for (int m = 0; m < 3; m++)
                        rig->normals[3 * v + (size_t)m] = (float)(nn[m] / l);
                    rig->uvs[2 * v] = (float)((p[0] + 2.0) / 4.0);
                    rig->uvs[2 * v + 1] = (float)((double)(k + dk[tri[h][c]]) / sides);
                    w = add_hinge_weights(rig, v, p[0], w);
                    rig->triangles[3 * t + (size_t)c] = (uint32_t)v;
                    v++;
                }
                t++;
            }
        }
    rig->weight_start[v] = w;
    rig->vertex_count = v;
    rig->triangle_count = t;
    return AM_OK;
}
