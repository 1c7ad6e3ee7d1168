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

/* The rows of a triangle's corners, or false when one is not solved. */
static bool corner_rows(const uint32_t *f, const int32_t *index, int32_t r[3])
{
    for (int k = 0; k < 3; k++)
        r[k] = index[f[k]];
    return r[0] >= 0 && r[1] >= 0 && r[2] >= 0;
}

/* A solved triangle's edges between two different rows as (column, row) = (the smaller,
 * the larger); how many (none when a corner is not solved). */
static int tri_edges(const uint32_t *f, const int32_t *index, int32_t col[3], int32_t row[3])
{
    int32_t r[3];
    if (!corner_rows(f, index, r))
        return 0;
    int n = 0;
    for (int k = 0; k < 3; k++) {
        int32_t a = r[(k + 1) % 3], b = r[(k + 2) % 3];
        if (a == b)
            continue;
        col[n] = a < b ? a : b;
        row[n++] = a < b ? b : a;
    }
    return n;
}

/* The pattern: column c holds c, then the rows above it that share an edge with it, in
 * ascending order, once each. Counted with repeats, bucketed, then each column sorted
 * (a handful of entries) and its repeats dropped. */
static am_status pattern(const uint32_t *tris, size_t nt, const int32_t *index, bind_laplacian *l, am_error *err)
{
    size_t rows = l->rows;
    size_t *start = calloc(rows + 1, sizeof *start);
    if (!start)
        return am_fail_nomem(err, "Laplacian");
    for (size_t c = 0; c < rows; c++)
        start[c + 1] = 1; /* the diagonal */
    int32_t ec[3], er[3];
    for (size_t t = 0; t < nt; t++)
        for (int e = 0, n = tri_edges(&tris[3 * t], index, ec, er); e < n; e++)
            start[ec[e] + 1]++;
    for (size_t c = 0; c < rows; c++)
        start[c + 1] += start[c];
    int32_t *row = malloc((start[rows] ? start[rows] : 1) * sizeof *row);
    size_t *fill = malloc((rows ? rows : 1) * sizeof *fill);
    if (!row || !fill) {
        free(start);
        free(row);
        free(fill);
        return am_fail_nomem(err, "Laplacian");
    }
    for (size_t c = 0; c < rows; c++) {
        row[start[c]] = (int32_t)c;
        fill[c] = start[c] + 1;
    }
    for (size_t t = 0; t < nt; t++)
        for (int e = 0, n = tri_edges(&tris[3 * t], index, ec, er); e < n; e++)
            row[fill[ec[e]]++] = er[e];
    free(fill);
    /* each column sorted (the diagonal, its smallest row, stays first) and compacted */
    size_t out = 0;
    for (size_t c = 0; c < rows; c++) {
        size_t b = start[c], e = start[c + 1];
        for (size_t i = b + 2; i < e; i++)
            for (size_t j = i; j > b + 1 && row[j - 1] > row[j]; j--) {
                int32_t tmp = row[j];
                row[j] = row[j - 1];
                row[j - 1] = tmp;
            }
        start[c] = out;
        for (size_t i = b; i < e; i++)
            if (i == b || row[i] != row[out - 1])
                row[out++] = row[i];
    }
    start[rows] = out;
    l->col_start = start;
    l->row = row;
    l->nnz = out;
    return AM_OK;
}

/* v added to the entry (r, c), either way round: in column min, row max. */
static void add(bind_laplacian *l, int32_t r, int32_t c, double v)
{
    if (r < c) {
        int32_t t = r;
        r = c;
        c = t;
    }
    size_t k = l->col_start[c];
    while (l->row[k] != r)
        k++;
    l->val[k] += v;
}

am_status am_bind_laplacian_build(const float *pos, const uint32_t *tris, size_t nt, const int32_t *index,
                                  size_t rows, bind_laplacian *l, am_error *err)
{
    memset(l, 0, sizeof *l);
    l->rows = rows;
    am_status s = pattern(tris, nt, index, l, err);
    if (!s) {
        l->val = calloc(l->nnz ? l->nnz : 1, sizeof *l->val);
        l->area = calloc(rows ? rows : 1, sizeof *l->area);
        if (!l->val || !l->area)
            s = am_fail_nomem(err, "Laplacian");
    }
    if (s) {
        am_bind_laplacian_free(l);
        return s;
    }
    /* The values in the same order as ever, so each entry's terms are summed in the same
     * order (and to the same bits) as when CHOLMOD summed the triplets this once made. */
    for (size_t t = 0; t < nt; t++) {
        const uint32_t *f = &tris[3 * t];
        int32_t r[3];
        if (!corner_rows(f, index, r))
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
    free(l->col_start);
    free(l->row);
    free(l->val);
    free(l->area);
    memset(l, 0, sizeof *l);
}
