/* The cotangent Laplacian and mixed Voronoi areas (bind_internal.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bind/bind_internal.h"

/* cot of the angle at a in triangle (a, b, c); 0 when degenerate (as Blender's
 * cotangent_tri_weight_v3). */
static double cot_at(const double *a, const double *b, const double *c)
{
    double u[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]}, v[3] = {c[0] - a[0], c[1] - a[1], c[2] - a[2]};
    double x[3] = {u[1] * v[2] - u[2] * v[1], u[2] * v[0] - u[0] * v[2], u[0] * v[1] - u[1] * v[0]};
    double len = sqrt(x[0] * x[0] + x[1] * x[1] + x[2] * x[2]);
    return len > 0 ? (u[0] * v[0] + u[1] * v[1] + u[2] * v[2]) / len : 0.0;
}

static double dist2(const double *a, const double *b)
{
    double d[3] = {a[0] - b[0], a[1] - b[1], a[2] - b[2]};
    return d[0] * d[0] + d[1] * d[1] + d[2] * d[2];
}

static void add(bind_laplacian *l, int32_t r, int32_t c, double v)
{
    if (r < c) {
        int32_t t = r;
        r = c;
        c = t;
    }
    l->ri[l->nnz] = r;
    l->ci[l->nnz] = c;
    l->val[l->nnz] = v;
    l->nnz++;
}

am_status am_bind_laplacian_build(const float *pos, const uint32_t *tris, size_t nt, const int32_t *index,
                                  size_t rows, bind_laplacian *l, am_error *err)
{
    memset(l, 0, sizeof *l);
    l->rows = rows;
    size_t cap = 9 * nt + 1;
    l->ri = malloc(cap * sizeof *l->ri);
    l->ci = malloc(cap * sizeof *l->ci);
    l->val = malloc(cap * sizeof *l->val);
    l->area = calloc(rows ? rows : 1, sizeof *l->area);
    if (!l->ri || !l->ci || !l->val || !l->area) {
        am_bind_laplacian_free(l);
        return am_fail_nomem(err, "Laplacian");
    }
    for (size_t t = 0; t < nt; t++) {
        const uint32_t *f = &tris[3 * t];
        int32_t r[3] = {index[f[0]], index[f[1]], index[f[2]]};
        if (r[0] < 0 || r[1] < 0 || r[2] < 0)
            continue;
        double p[3][3];
        for (int k = 0; k < 3; k++)
            for (int c = 0; c < 3; c++)
                p[k][c] = pos[3 * f[k] + c];
        /* cot[k]: the angle at corner k, opposite edge (k+1, k+2). */
        double cot[3] = {cot_at(p[0], p[1], p[2]), cot_at(p[1], p[2], p[0]), cot_at(p[2], p[0], p[1])};
        for (int k = 0; k < 3; k++) {
            int i = (k + 1) % 3, j = (k + 2) % 3;
            double w = 0.5 * cot[k];
            add(l, r[i], r[j], -w);
            add(l, r[i], r[i], w);
            add(l, r[j], r[j], w);
        }
        /* Mixed area: Voronoi for a non-obtuse triangle, else half/quarter of the area. */
        double e1[3] = {p[1][0] - p[0][0], p[1][1] - p[0][1], p[1][2] - p[0][2]};
        double e2[3] = {p[2][0] - p[0][0], p[2][1] - p[0][1], p[2][2] - p[0][2]};
        double x[3] = {e1[1] * e2[2] - e1[2] * e2[1], e1[2] * e2[0] - e1[0] * e2[2], e1[0] * e2[1] - e1[1] * e2[0]};
        double area = 0.5 * sqrt(x[0] * x[0] + x[1] * x[1] + x[2] * x[2]);
        int obtuse = -1;
        for (int k = 0; k < 3; k++)
            if (cot[k] < 0)
                obtuse = k;
        if (obtuse >= 0) {
            for (int k = 0; k < 3; k++)
                l->area[r[k]] += k == obtuse ? 0.5 * area : 0.25 * area;
        } else {
            double len2[3] = {dist2(p[1], p[2]), dist2(p[2], p[0]), dist2(p[0], p[1])};
            for (int k = 0; k < 3; k++) {
                int i = (k + 1) % 3, j = (k + 2) % 3;
                /* corner k gets 1/8 (|edge ki|^2 cot(j) + |edge kj|^2 cot(i)) */
                l->area[r[k]] += 0.125 * (len2[j] * cot[j] + len2[i] * cot[i]);
            }
        }
    }
    return AM_OK;
}

void am_bind_laplacian_free(bind_laplacian *l)
{
    if (!l)
        return;
    free(l->ri);
    free(l->ci);
    free(l->val);
    free(l->area);
    memset(l, 0, sizeof *l);
}
