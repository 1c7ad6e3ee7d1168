#include "bind_fixtures.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "readers/scene_load.h"
#include "test_support.h"

void am_test_mesh_free(am_test_mesh *m)
{
    free(m->pos);
    free(m->tri);
    memset(m, 0, sizeof *m);
}

uint32_t am_test_mesh_vertex(am_test_mesh *m, double x, double y, double z)
{
    if (m->nv == m->cap_v) {
        m->cap_v = m->cap_v ? 2 * m->cap_v : 256;
        m->pos = realloc(m->pos, 3 * m->cap_v * sizeof *m->pos);
        assert_non_null(m->pos);
    }
    m->pos[3 * m->nv] = (float)x;
    m->pos[3 * m->nv + 1] = (float)y;
    m->pos[3 * m->nv + 2] = (float)z;
    return (uint32_t)m->nv++;
}

void am_test_mesh_triangle(am_test_mesh *m, uint32_t a, uint32_t b, uint32_t c)
{
    if (m->nt == m->cap_t) {
        m->cap_t = m->cap_t ? 2 * m->cap_t : 256;
        m->tri = realloc(m->tri, 3 * m->cap_t * sizeof *m->tri);
        assert_non_null(m->tri);
    }
    m->tri[3 * m->nt] = a;
    m->tri[3 * m->nt + 1] = b;
    m->tri[3 * m->nt + 2] = c;
    m->nt++;
}

am_bind_mesh am_test_mesh_view(const am_test_mesh *m)
{
    am_bind_mesh v = {m->nv, m->pos, m->nt, m->tri};
    return v;
}

void am_test_mesh_from_source(am_test_mesh *m, const am_bind_source *src)
{
    for (size_t v = 0; v < src->vertex_count; v++)
        am_test_mesh_vertex(m, src->positions[3 * v], src->positions[3 * v + 1], src->positions[3 * v + 2]);
    for (size_t t = 0; t < src->triangle_count; t++)
        am_test_mesh_triangle(m, src->triangles[3 * t], src->triangles[3 * t + 1], src->triangles[3 * t + 2]);
}

void am_test_mesh_sphere(am_test_mesh *m, double cx, double cy, double cz, double r, int rings, int segments)
{
    uint32_t top = am_test_mesh_vertex(m, cx, cy, cz + r);
    uint32_t first = (uint32_t)m->nv;
    for (int i = 1; i < rings; i++) {
        double th = AM_PI * i / rings;
        for (int j = 0; j < segments; j++) {
            double ph = 2 * AM_PI * j / segments;
            am_test_mesh_vertex(m, cx + r * sin(th) * cos(ph), cy + r * sin(th) * sin(ph), cz + r * cos(th));
        }
    }
    uint32_t bottom = am_test_mesh_vertex(m, cx, cy, cz - r);
#define RV(i, j) (first + (uint32_t)((i) * segments + ((j) % segments)))
    for (int j = 0; j < segments; j++)
        am_test_mesh_triangle(m, top, RV(0, j), RV(0, j + 1));
    for (int i = 0; i + 1 < rings - 1; i++)
        for (int j = 0; j < segments; j++) {
            am_test_mesh_triangle(m, RV(i, j), RV(i + 1, j), RV(i + 1, j + 1));
            am_test_mesh_triangle(m, RV(i, j), RV(i + 1, j + 1), RV(i, j + 1));
        }
    for (int j = 0; j < segments; j++)
        am_test_mesh_triangle(m, RV(rings - 2, j), bottom, RV(rings - 2, j + 1));
#undef RV
}

void am_test_mesh_torus(am_test_mesh *m, double cx, double cy, double cz, double R, double r, int axis, int nu, int nv)
{
    uint32_t first = (uint32_t)m->nv;
    for (int i = 0; i < nu; i++) {
        double u = 2 * AM_PI * i / nu;
        for (int j = 0; j < nv; j++) {
            double v = 2 * AM_PI * j / nv;
            /* in the plane perpendicular to `axis`: (a, b) the ring, c along the axis */
            double a = (R + r * cos(v)) * cos(u), b = (R + r * cos(v)) * sin(u), c = r * sin(v);
            double p[3];
            p[axis] = c;
            p[(axis + 1) % 3] = a;
            p[(axis + 2) % 3] = b;
            am_test_mesh_vertex(m, cx + p[0], cy + p[1], cz + p[2]);
        }
    }
#define TV(i, j) (first + (uint32_t)(((i) % nu) * nv + ((j) % nv)))
    for (int i = 0; i < nu; i++)
        for (int j = 0; j < nv; j++) {
            am_test_mesh_triangle(m, TV(i, j), TV(i + 1, j), TV(i + 1, j + 1));
            am_test_mesh_triangle(m, TV(i, j), TV(i + 1, j + 1), TV(i, j + 1));
        }
#undef TV
}

/* One face of the box: corner o, edges u and v (n x n cells), normal u x v outward.
 * Quads split along the diagonal that mirrors in y: cells on the +y half take one
 * diagonal, their mirror images on the -y half the other. */
static void box_face(am_test_mesh *m, const double o[3], const double u[3], const double v[3], int n)
{
    uint32_t *idx = malloc((size_t)(n + 1) * (n + 1) * sizeof *idx);
    assert_non_null(idx);
    for (int i = 0; i <= n; i++)
        for (int j = 0; j <= n; j++)
            idx[i * (n + 1) + j] = am_test_mesh_vertex(m, o[0] + u[0] * i / n + v[0] * j / n, o[1] + u[1] * i / n + v[1] * j / n,
                                                       o[2] + u[2] * i / n + v[2] * j / n);
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
            uint32_t a = idx[i * (n + 1) + j], b = idx[(i + 1) * (n + 1) + j], c = idx[(i + 1) * (n + 1) + j + 1],
                     d = idx[i * (n + 1) + j + 1];
            double cy = (m->pos[3 * a + 1] + m->pos[3 * c + 1]) / 2;
            /* the cell's mirror flips the diagonal only when the face's own frame is
             * mirrored with it: +y and -y side faces mirror into each other whole */
            bool flip = cy < 0 && fabs(u[1]) + fabs(v[1]) > 0;
            if (!flip) {
                am_test_mesh_triangle(m, a, b, c);
                am_test_mesh_triangle(m, a, c, d);
            } else {
                am_test_mesh_triangle(m, a, b, d);
                am_test_mesh_triangle(m, b, c, d);
            }
        }
    free(idx);
}

void am_test_mesh_box(am_test_mesh *m, const double lo[3], const double hi[3], int n)
{
    double dx = hi[0] - lo[0], dy = hi[1] - lo[1], dz = hi[2] - lo[2];
    /* +x, -x, +z, -z faces cross y = 0; +y and -y faces are each other's mirror */
    box_face(m, (double[3]){hi[0], lo[1], lo[2]}, (double[3]){0, dy, 0}, (double[3]){0, 0, dz}, n);
    box_face(m, (double[3]){lo[0], lo[1], lo[2]}, (double[3]){0, 0, dz}, (double[3]){0, dy, 0}, n);
    box_face(m, (double[3]){lo[0], lo[1], hi[2]}, (double[3]){dx, 0, 0}, (double[3]){0, dy, 0}, n);
    box_face(m, (double[3]){lo[0], lo[1], lo[2]}, (double[3]){0, dy, 0}, (double[3]){dx, 0, 0}, n);
    box_face(m, (double[3]){lo[0], hi[1], lo[2]}, (double[3]){0, 0, dz}, (double[3]){dx, 0, 0}, n);
    box_face(m, (double[3]){lo[0], lo[1], lo[2]}, (double[3]){dx, 0, 0}, (double[3]){0, 0, dz}, n);
}

void am_test_creature(const char *size, const am_skeleton *viewer, am_bind_source *src, am_bind_skeleton *skel)
{
    char path[4096], rel[128];
    am_error err;
    snprintf(rel, sizeof rel, "data/creature/creature_%s.obj", size);
    am_scene sc;
    if (am_scene_load(am_test_shared_path(path, sizeof path, rel), &sc, &err))
        fail_msg("%s: %s", err.where, err.msg);
    if (am_bind_source_from_scene(&sc, NULL, src, &err))
        fail_msg("%s", err.msg);
    am_scene_free(&sc);
    snprintf(rel, sizeof rel, "data/creature/creature_%s.skeleton.json", size);
    if (am_bind_skeleton_load(am_test_shared_path(path, sizeof path, rel), viewer, 1.8, skel, &err))
        fail_msg("%s: %s", err.where, err.msg);
}

double *am_test_blender_weights(const char *size, const am_bind_skeleton *skel, size_t n, size_t *rows)
{
    char path[4096], rel[128];
    snprintf(rel, sizeof rel, "data/creature/creature_%s.blender-heat-weights.csv", size);
    FILE *f = fopen(am_test_shared_path(path, sizeof path, rel), "r");
    assert_non_null(f);
    size_t nj = skel->joint_count;
    double *w = calloc(n * nj, sizeof *w);
    assert_non_null(w);
    char line[256];
    assert_non_null(fgets(line, sizeof line, f));
    *rows = 0;
    while (fgets(line, sizeof line, f)) {
        char *c1 = strchr(line, ','), *c2 = c1 ? strchr(c1 + 1, ',') : NULL;
        if (!c2)
            continue;
        *c1 = *c2 = '\0';
        size_t v = strtoul(line, NULL, 10);
        assert_true(v < n);
        if (v + 1 > *rows)
            *rows = v + 1;
        bool found = false;
        for (size_t j = 0; j < nj; j++)
            if (strcmp(am_str(&skel->joints[j].name), c1 + 1) == 0) {
                w[v * nj + j] = strtod(c2 + 1, NULL);
                found = true;
            }
        assert_true(found);
    }
    fclose(f);
    return w;
}

void am_test_agreement(const am_bind_result *r, const double *dense, size_t nj, size_t rows, double *dominant,
                       double *mean_abs)
{
    size_t agree = 0;
    double mad = 0;
    double *ours = calloc(nj, sizeof *ours);
    assert_non_null(ours);
    for (size_t v = 0; v < rows; v++) {
        double s = 0;
        size_t bj = 0;
        for (size_t j = 0; j < nj; j++) {
            s += dense[v * nj + j];
            if (dense[v * nj + j] > dense[v * nj + bj])
                bj = j;
        }
        memset(ours, 0, nj * sizeof *ours);
        for (int k = 0; k < r->count[v]; k++)
            ours[r->joint[4 * v + k]] += r->weight[4 * v + k];
        size_t oj = 0;
        for (size_t j = 0; j < nj; j++)
            if (ours[j] > ours[oj])
                oj = j;
        agree += oj == bj;
        double d = 0;
        for (size_t j = 0; j < nj; j++)
            d += fabs(ours[j] - (s > 0 ? dense[v * nj + j] / s : 0));
        mad += d / 2;
    }
    free(ours);
    *dominant = rows ? (double)agree / (double)rows : 0;
    *mean_abs = rows ? mad / (double)rows : 0;
}

void am_test_skeleton_from_heads(const am_skeleton *viewer, const char *const *names, const am_vec3 *heads, size_t n,
                                 double height_m, am_bind_skeleton *out)
{
    am_error err;
    if (am_bind_skeleton_from_heads(names, heads, n, viewer, height_m, "test", out, &err))
        fail_msg("%s", err.msg);
}

void am_test_weight_figures(const am_bind_result *r, double *sum_dev, int *max_influences, size_t *unweighted)
{
    *sum_dev = 0;
    *max_influences = 0;
    *unweighted = 0;
    for (size_t v = 0; v < r->vertex_count; v++) {
        double s = 0;
        for (int k = 0; k < r->count[v]; k++) {
            s += r->weight[4 * v + k];
            assert_true(r->weight[4 * v + k] > 0);
        }
        if (r->count[v] == 0)
            (*unweighted)++;
        else
            *sum_dev = fmax(*sum_dev, fabs(s - 1.0));
        if (r->count[v] > *max_influences)
            *max_influences = r->count[v];
    }
}

double am_test_cross_side(const am_bind_result *r, const am_bind_skeleton *s, const float *pos, double band_m)
{
    double worst = 0;
    for (size_t v = 0; v < r->vertex_count; v++) {
        double y = pos[3 * v + 1];
        for (int k = 0; k < r->count[v]; k++) {
            const char *n = am_str(&s->joints[r->joint[4 * v + k]].name);
            bool left = strstr(n, "Left") != NULL, right = strstr(n, "Right") != NULL;
            if ((left && y < -band_m) || (right && y > band_m))
                worst = fmax(worst, r->weight[4 * v + k]);
        }
    }
    return worst;
}
