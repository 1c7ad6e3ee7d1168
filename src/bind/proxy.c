/* The voxel proxy fallback (bind_internal.h): when bone heat cannot bind an island (no
 * vertex sees a bone, a singular system, vertices left unweighted or a major bone left
 * empty, typically from holes, self-intersections or non-manifold pieces), a watertight
 * stand-in is built and bound instead, and its weights carried back.
 *
 *   1. Voxelise: every triangle marks the cells it overlaps (its own box only; bounded work).
 *   2. Close: the marked cells are grown by one cell, the outside is flood-filled from the
 *      grid's border, and the outside is grown back by one cell: gaps up to about two
 *      cells are sealed, everything enclosed is solid.
 *   3. Remesh: the solid, blurred over 3x3x3 cells, is contoured at 1/2 by surface nets
 *      (one vertex per cell the surface crosses, at the mean of its edge crossings; one
 *      quad per crossed grid edge, oriented outward): closed and manifold by construction
 *      except at rare ambiguous cells.
 *   4. Bind the proxy with bone heat, the island's bones only.
 *   5. Transfer: each real vertex blends the weights of its nearest proxy vertices
 *      (inverse distance, the 4 nearest within the search).
 * Plain C (no OpenVDB): a 112^3 binary grid is small, and these steps are all it needs. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bind/bind_internal.h"
#include "bind/topology.h"

#define PAD 3

typedef struct grid {
    int nx, ny, nz;
    float origin[3];
    float h;
    uint8_t *cell;      /* nx*ny*nz */
} grid;

void am_bind_voxels_free(bind_voxels *v)
{
    if (!v)
        return;
    free(v->solid);
    memset(v, 0, sizeof *v);
}

static size_t gi(const grid *g, int x, int y, int z) { return ((size_t)z * (size_t)g->ny + (size_t)y) * (size_t)g->nx + (size_t)x; }

static void mark_point(grid *g, const double p[3])
{
    int c[3];
    for (int k = 0; k < 3; k++) {
        c[k] = (int)floor((p[k] - g->origin[k]) / g->h);
    }
    if (c[0] < 0 || c[1] < 0 || c[2] < 0 || c[0] >= g->nx || c[1] >= g->ny || c[2] >= g->nz)
        return;
    g->cell[gi(g, c[0], c[1], c[2])] = 1;
}

/* 6-neighbour growth of value-1 cells by one (into a copy). */
static void grow(const grid *g, const uint8_t *in, uint8_t *out)
{
    memcpy(out, in, (size_t)g->nx * g->ny * g->nz);
    for (int z = 0; z < g->nz; z++)
        for (int y = 0; y < g->ny; y++)
            for (int x = 0; x < g->nx; x++) {
                if (!in[gi(g, x, y, z)])
                    continue;
                if (x > 0) out[gi(g, x - 1, y, z)] = 1;
                if (x + 1 < g->nx) out[gi(g, x + 1, y, z)] = 1;
                if (y > 0) out[gi(g, x, y - 1, z)] = 1;
                if (y + 1 < g->ny) out[gi(g, x, y + 1, z)] = 1;
                if (z > 0) out[gi(g, x, y, z - 1)] = 1;
                if (z + 1 < g->nz) out[gi(g, x, y, z + 1)] = 1;
            }
}

/* Outside = flood fill from (0,0,0) over cells that are not `wall`. */
static am_status flood_outside(const grid *g, const uint8_t *wall, uint8_t *outside, am_error *err)
{
    size_t n = (size_t)g->nx * g->ny * g->nz;
    memset(outside, 0, n);
    uint32_t *stack = malloc(n * sizeof *stack);
    if (!stack)
        return am_fail_nomem(err, "proxy flood fill");
    size_t top = 0;
    stack[top++] = 0;
    outside[0] = 1;
    while (top) {
        uint32_t c = stack[--top];
        int x = (int)(c % (uint32_t)g->nx), y = (int)(c / (uint32_t)g->nx % (uint32_t)g->ny),
            z = (int)(c / ((uint32_t)g->nx * (uint32_t)g->ny));
        int nb[6][3] = {{x - 1, y, z}, {x + 1, y, z}, {x, y - 1, z}, {x, y + 1, z}, {x, y, z - 1}, {x, y, z + 1}};
        for (int k = 0; k < 6; k++) {
            int a = nb[k][0], b = nb[k][1], d = nb[k][2];
            if (a < 0 || b < 0 || d < 0 || a >= g->nx || b >= g->ny || d >= g->nz)
                continue;
            size_t q = gi(g, a, b, d);
            if (outside[q] || wall[q])
                continue;
            outside[q] = 1;
            stack[top++] = (uint32_t)q;
        }
    }
    free(stack);
    return AM_OK;
}

/* --- surface nets ------------------------------------------------------------------- */

typedef struct proxy_mesh {
    float *pos;
    size_t nv, cap_v;
    uint32_t *tri;
    size_t nt, cap_t;
} proxy_mesh;

static bool push_vertex(proxy_mesh *m, const float p[3])
{
    if (m->nv == m->cap_v) {
        size_t cap = m->cap_v ? 2 * m->cap_v : 4096;
        float *np = realloc(m->pos, 3 * cap * sizeof *np);
        if (!np)
            return false;
        m->pos = np;
        m->cap_v = cap;
    }
    memcpy(&m->pos[3 * m->nv++], p, 3 * sizeof *p);
    return true;
}

static bool push_tri(proxy_mesh *m, uint32_t a, uint32_t b, uint32_t c)
{
    if (m->nt == m->cap_t) {
        size_t cap = m->cap_t ? 2 * m->cap_t : 8192;
        uint32_t *nt = realloc(m->tri, 3 * cap * sizeof *nt);
        if (!nt)
            return false;
        m->tri = nt;
        m->cap_t = cap;
    }
    m->tri[3 * m->nt] = a;
    m->tri[3 * m->nt + 1] = b;
    m->tri[3 * m->nt + 2] = c;
    m->nt++;
    return true;
}

/* Field samples live at cell centres; cube (x,y,z) spans samples x..x+1 etc. */
static am_status surface_nets(const grid *g, const float *f, proxy_mesh *m, am_error *err)
{
    int cx = g->nx - 1, cy = g->ny - 1, cz = g->nz - 1;
    size_t ncube = (size_t)cx * cy * cz;
    uint32_t *vid = malloc(ncube * sizeof *vid);
    if (!vid)
        return am_fail_nomem(err, "proxy");
    memset(vid, 0xff, ncube * sizeof *vid);
#define CUBE(x, y, z) (((size_t)(z) * (size_t)cy + (size_t)(y)) * (size_t)cx + (size_t)(x))
    static const int corner[8][3] = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {1, 1, 0}, {0, 0, 1}, {1, 0, 1}, {0, 1, 1}, {1, 1, 1}};
    static const int edge[12][2] = {{0, 1}, {2, 3}, {4, 5}, {6, 7}, {0, 2}, {1, 3}, {4, 6}, {5, 7}, {0, 4}, {1, 5}, {2, 6}, {3, 7}};
    for (int z = 0; z < cz; z++)
        for (int y = 0; y < cy; y++)
            for (int x = 0; x < cx; x++) {
                float v[8];
                int inside = 0;
                for (int k = 0; k < 8; k++) {
                    v[k] = f[gi(g, x + corner[k][0], y + corner[k][1], z + corner[k][2])] - 0.5f;
                    inside += v[k] >= 0;
                }
                if (inside == 0 || inside == 8)
                    continue;
                double acc[3] = {0, 0, 0};
                int cnt = 0;
                for (int e = 0; e < 12; e++) {
                    float a = v[edge[e][0]], b = v[edge[e][1]];
                    if ((a >= 0) == (b >= 0))
                        continue;
                    double t = a / (a - b);
                    for (int k = 0; k < 3; k++)
                        acc[k] += corner[edge[e][0]][k] + t * (corner[edge[e][1]][k] - corner[edge[e][0]][k]);
                    cnt++;
                }
                float p[3] = {g->origin[0] + g->h * (float)(x + 0.5 + acc[0] / cnt),
                              g->origin[1] + g->h * (float)(y + 0.5 + acc[1] / cnt),
                              g->origin[2] + g->h * (float)(z + 0.5 + acc[2] / cnt)};
                vid[CUBE(x, y, z)] = (uint32_t)m->nv;
                if (!push_vertex(m, p)) {
                    free(vid);
                    return am_fail_nomem(err, "proxy");
                }
            }
    /* A quad per crossed sample edge, between the 4 cubes around it. */
    for (int z = 1; z < cz; z++)
        for (int y = 1; y < cy; y++)
            for (int x = 1; x < cx; x++) {
                float s0 = f[gi(g, x, y, z)] - 0.5f;
                for (int axis = 0; axis < 3; axis++) {
                    int dx = axis == 0, dy = axis == 1, dz = axis == 2;
                    if (x + dx >= g->nx || y + dy >= g->ny || z + dz >= g->nz)
                        continue;
                    float s1 = f[gi(g, x + dx, y + dy, z + dz)] - 0.5f;
                    if ((s0 >= 0) == (s1 >= 0))
                        continue;
                    /* the 4 cubes sharing this edge, in a cycle around +axis */
                    uint32_t q[4];
                    if (axis == 0) {
                        q[0] = vid[CUBE(x, y - 1, z - 1)];
                        q[1] = vid[CUBE(x, y, z - 1)];
                        q[2] = vid[CUBE(x, y, z)];
                        q[3] = vid[CUBE(x, y - 1, z)];
                    } else if (axis == 1) {
                        q[0] = vid[CUBE(x - 1, y, z - 1)];
                        q[1] = vid[CUBE(x - 1, y, z)];
                        q[2] = vid[CUBE(x, y, z)];
                        q[3] = vid[CUBE(x, y, z - 1)];
                    } else {
                        q[0] = vid[CUBE(x - 1, y - 1, z)];
                        q[1] = vid[CUBE(x, y - 1, z)];
                        q[2] = vid[CUBE(x, y, z)];
                        q[3] = vid[CUBE(x - 1, y, z)];
                    }
                    if (q[0] == UINT32_MAX || q[1] == UINT32_MAX || q[2] == UINT32_MAX || q[3] == UINT32_MAX)
                        continue;
                    bool ok;
                    if (s0 >= 0) /* inside at the low end: the face looks along +axis */
                        ok = push_tri(m, q[0], q[1], q[2]) && push_tri(m, q[0], q[2], q[3]);
                    else
                        ok = push_tri(m, q[0], q[2], q[1]) && push_tri(m, q[0], q[3], q[2]);
                    if (!ok) {
                        free(vid);
                        return am_fail_nomem(err, "proxy");
                    }
                }
            }
#undef CUBE
    free(vid);
    return AM_OK;
}

/* --- the fallback --------------------------------------------------------------------- */

static void free_proxy(proxy_mesh *m)
{
    free(m->pos);
    free(m->tri);
}

/* --- marking the surface cells ---------------------------------------------------------
 * Each triangle marks exactly the cells it overlaps (the separating-axis test of
 * Akenine-Moller), looking only at cells near its own plane inside its own box: over the
 * two axes its normal is least along, each column of cells is tested between the heights
 * the plane takes over that column. The work is about the triangle's area in cells, and
 * the whole mesh's is bounded: a triangle larger than its allowance (below) and the same
 * as one before (coincident: the same three corners) is skipped, and once the tests reach the budget (bind_internal.h) the
 * remaining triangles mark only the cells along their edges. */

static void sub3(const double a[3], const double b[3], double o[3])
{
    for (int k = 0; k < 3; k++)
        o[k] = a[k] - b[k];
}

static bool axis_separates(const double v0[3], const double v1[3], const double v2[3], const double ax[3],
                           double half)
{
    double p0 = v0[0] * ax[0] + v0[1] * ax[1] + v0[2] * ax[2];
    double p1 = v1[0] * ax[0] + v1[1] * ax[1] + v1[2] * ax[2];
    double p2 = v2[0] * ax[0] + v2[1] * ax[1] + v2[2] * ax[2];
    double r = half * (fabs(ax[0]) + fabs(ax[1]) + fabs(ax[2]));
    double lo = fmin(p0, fmin(p1, p2)), hi = fmax(p0, fmax(p1, p2));
    return lo > r || hi < -r;
}

/* Does the triangle overlap the cube of half-size `half` centred at c? */
static bool tri_box_overlap(const double c[3], double half, const double a[3], const double b[3], const double d[3])
{
    double v0[3], v1[3], v2[3], e[3][3];
    sub3(a, c, v0);
    sub3(b, c, v1);
    sub3(d, c, v2);
    sub3(v1, v0, e[0]);
    sub3(v2, v1, e[1]);
    sub3(v0, v2, e[2]);
    for (int k = 0; k < 3; k++) /* the box's faces */
        if (fmin(v0[k], fmin(v1[k], v2[k])) > half || fmax(v0[k], fmax(v1[k], v2[k])) < -half)
            return false;
    for (int i = 0; i < 3; i++) /* edge x box axis */
        for (int k = 0; k < 3; k++) {
            double u[3] = {0, 0, 0}, ax[3];
            u[k] = 1;
            ax[0] = e[i][1] * u[2] - e[i][2] * u[1];
            ax[1] = e[i][2] * u[0] - e[i][0] * u[2];
            ax[2] = e[i][0] * u[1] - e[i][1] * u[0];
            if (axis_separates(v0, v1, v2, ax, half))
                return false;
        }
    double n[3] = {e[0][1] * e[1][2] - e[0][2] * e[1][1], e[0][2] * e[1][0] - e[0][0] * e[1][2],
                   e[0][0] * e[1][1] - e[0][1] * e[1][0]};
    return !axis_separates(v0, v1, v2, n, half);
}

static int cell_of(const grid *g, double p, int k)
{
    int n = k == 0 ? g->nx : k == 1 ? g->ny : g->nz;
    double c = floor((p - g->origin[k]) / g->h);
    return c < 0 ? 0 : c >= n ? n - 1 : (int)c;
}

/* The cells along the triangle's edges (half-cell steps): the fallback past the budget and
 * the whole of a degenerate triangle. */
static void mark_edges(grid *g, const double v[3][3], bind_voxel_stats *st)
{
    for (int e = 0; e < 3; e++) {
        const double *p = v[e], *q = v[(e + 1) % 3];
        double len = fmax(fabs(q[0] - p[0]), fmax(fabs(q[1] - p[1]), fabs(q[2] - p[2])));
        int steps = (int)fmin(ceil(len / (0.5 * g->h)) + 1, 4096);
        for (int i = 0; i <= steps; i++) {
            double t = (double)i / steps, pt[3];
            for (int k = 0; k < 3; k++)
                pt[k] = p[k] + t * (q[k] - p[k]);
            mark_point(g, pt);
        }
        st->tests += (uint64_t)steps + 1;
    }
}

static void mark_triangle(grid *g, const double v[3][3], bind_voxel_stats *st)
{
    double e1[3], e2[3];
    sub3(v[1], v[0], e1);
    sub3(v[2], v[0], e2);
    double n[3] = {e1[1] * e2[2] - e1[2] * e2[1], e1[2] * e2[0] - e1[0] * e2[2], e1[0] * e2[1] - e1[1] * e2[0]};
    int d = fabs(n[0]) >= fabs(n[1]) && fabs(n[0]) >= fabs(n[2]) ? 0 : fabs(n[1]) >= fabs(n[2]) ? 1 : 2;
    double len2 = e1[0] * e1[0] + e1[1] * e1[1] + e1[2] * e1[2] + e2[0] * e2[0] + e2[1] * e2[1] + e2[2] * e2[2];
    if (!(fabs(n[d]) > 1e-12 * len2)) { /* a line or a point */
        mark_edges(g, v, st);
        return;
    }
    int a = (d + 1) % 3, b = (d + 2) % 3;
    int lo[3], hi[3];
    double tlo[3], thi[3];
    for (int k = 0; k < 3; k++) {
        tlo[k] = fmin(v[0][k], fmin(v[1][k], v[2][k]));
        thi[k] = fmax(v[0][k], fmax(v[1][k], v[2][k]));
        lo[k] = cell_of(g, tlo[k], k);
        hi[k] = cell_of(g, thi[k], k);
    }
    if (lo[0] == hi[0] && lo[1] == hi[1] && lo[2] == hi[2]) { /* inside one cell: most of a fine mesh */
        st->tests++;
        g->cell[gi(g, lo[0], lo[1], lo[2])] = 1;
        return;
    }
    double h = g->h, half = 0.5 * h * (1 + 1e-9);
    double off = n[0] * v[0][0] + n[1] * v[0][1] + n[2] * v[0][2];
    for (int i = lo[a]; i <= hi[a]; i++)
        for (int j = lo[b]; j <= hi[b]; j++) {
            /* the plane's height along d over this column's square, within the triangle's box */
            double pa0 = g->origin[a] + i * h, pb0 = g->origin[b] + j * h;
            double zmin = INFINITY, zmax = -INFINITY;
            for (int c = 0; c < 4; c++) {
                double pa = pa0 + (c & 1) * h, pb = pb0 + (c >> 1) * h;
                double z = (off - n[a] * pa - n[b] * pb) / n[d];
                zmin = fmin(zmin, z);
                zmax = fmax(zmax, z);
            }
            int k0 = cell_of(g, fmax(zmin, tlo[d]), d), k1 = cell_of(g, fmin(zmax, thi[d]), d);
            for (int k = k0; k <= k1; k++) {
                int cc[3];
                cc[a] = i, cc[b] = j, cc[d] = k;
                double centre[3];
                for (int q = 0; q < 3; q++)
                    centre[q] = g->origin[q] + (cc[q] + 0.5) * h;
                st->tests++;
                if (tri_box_overlap(centre, half, v[0], v[1], v[2]))
                    g->cell[gi(g, cc[0], cc[1], cc[2])] = 1;
            }
        }
}

/* Coincident triangles: the same three corners (in any order) as one met before. */
typedef struct tri_set {
    uint32_t *slot; /* triangle index + 1, 0 = empty */
    size_t mask;
} tri_set;

static bool corner_less(const float *p, const float *q)
{
    return p[0] != q[0] ? p[0] < q[0] : p[1] != q[1] ? p[1] < q[1] : p[2] < q[2];
}

static void sorted_corners(const float *pos, const uint32_t *tri, float out[9])
{
    const float *c[3] = {&pos[3 * tri[0]], &pos[3 * tri[1]], &pos[3 * tri[2]]};
    for (int i = 1; i < 3; i++)
        for (int j = i; j > 0 && corner_less(c[j], c[j - 1]); j--) {
            const float *t = c[j];
            c[j] = c[j - 1];
            c[j - 1] = t;
        }
    for (int i = 0; i < 3; i++)
        memcpy(out + 3 * i, c[i], 3 * sizeof(float));
}

/* True when a coincident triangle was met before (else it is remembered). */
static bool seen_before(tri_set *set, const float *pos, const uint32_t *tris, uint32_t t)
{
    float key[9], other[9];
    sorted_corners(pos, &tris[3 * t], key);
    uint64_t hsh = 1469598103934665603ull;
    const uint8_t *kb = (const uint8_t *)key;
    for (size_t i = 0; i < sizeof key; i++)
        hsh = (hsh ^ kb[i]) * 1099511628211ull;
    hsh ^= hsh >> 33; /* mixed, so that the low bits (the slot) spread */
    hsh *= 0xff51afd7ed558ccdull;
    hsh ^= hsh >> 33;
    for (size_t s = (size_t)hsh & set->mask;; s = (s + 1) & set->mask) {
        if (!set->slot[s]) {
            set->slot[s] = t + 1;
            return false;
        }
        sorted_corners(pos, &tris[3 * (set->slot[s] - 1)], other);
        if (memcmp(key, other, sizeof key) == 0)
            return true;
    }
}

am_status am_bind_voxelise(const float *pos, const uint32_t *tris, size_t nt, const uint32_t *tri_island,
                           uint32_t island, const float lo[3], const float hi[3], int resolution, bind_voxels *out,
                           am_error *err)
{
    memset(out, 0, sizeof *out);
    float ext = fmaxf(hi[0] - lo[0], fmaxf(hi[1] - lo[1], hi[2] - lo[2]));
    if (resolution < 16)
        resolution = 16;
    if (resolution > 512)
        resolution = 512;
    grid g;
    g.h = ext / (float)resolution;
    if (!(g.h > 0))
        return am_fail(err, AM_ERR_INVALID, "voxels: the mesh has no extent");
    for (int k = 0; k < 3; k++)
        g.origin[k] = lo[k] - PAD * g.h;
    g.nx = (int)ceilf((hi[0] - lo[0]) / g.h) + 2 * PAD + 1;
    g.ny = (int)ceilf((hi[1] - lo[1]) / g.h) + 2 * PAD + 1;
    g.nz = (int)ceilf((hi[2] - lo[2]) / g.h) + 2 * PAD + 1;
    size_t nc = (size_t)g.nx * g.ny * g.nz;
    size_t slots = 1024;
    while (slots < 2 * nt && slots < ((size_t)1 << 40))
        slots *= 2;
    tri_set set = {calloc(slots, sizeof(uint32_t)), slots - 1};
    g.cell = calloc(nc, 1);
    uint8_t *a = malloc(nc), *b = malloc(nc);
    am_status s = AM_OK;
    if (!g.cell || !a || !b || !set.slot || nt >= UINT32_MAX) {
        free(g.cell);
        free(a);
        free(b);
        free(set.slot);
        return am_fail_nomem(err, "voxel grid");
    }
    bind_voxel_stats *st = &out->stats;
    st->budget = AM_BIND_VOXEL_TESTS_PER_CELL * (uint64_t)nc + AM_BIND_VOXEL_TESTS_PER_TRIANGLE * (uint64_t)nt;
    for (size_t t = 0; t < nt; t++) {
        if (tri_island && tri_island[t] != island)
            continue;
        double v[3][3];
        for (int c = 0; c < 3; c++)
            for (int k = 0; k < 3; k++)
                v[c][k] = pos[3 * tris[3 * t + c] + k];
        /* only a triangle whose box holds more cells than its allowance is worth looking
         * up (a small one costs about as little as the lookup) */
        double cells = 1;
        for (int k = 0; k < 3; k++) {
            double top = fmax(v[0][k], fmax(v[1][k], v[2][k])), bottom = fmin(v[0][k], fmin(v[1][k], v[2][k]));
            cells *= floor(top / g.h) - floor(bottom / g.h) + 1;
        }
        if (cells > AM_BIND_VOXEL_TESTS_PER_TRIANGLE && seen_before(&set, pos, tris, (uint32_t)t)) {
            st->coincident++;
            continue;
        }
        st->triangles++;
        if (st->tests < st->budget)
            mark_triangle(&g, v, st);
        else {
            st->edges_only++;
            mark_edges(&g, v, st);
        }
    }
    free(set.slot);
    grow(&g, g.cell, a);                    /* surface, grown */
    if ((s = flood_outside(&g, a, b, err))) /* b = outside */
        goto done;
    grow(&g, b, a);                         /* outside, grown back */
    for (size_t c = 0; c < nc; c++)
        g.cell[c] = !a[c];
    out->nx = g.nx;
    out->ny = g.ny;
    out->nz = g.nz;
    memcpy(out->origin, g.origin, sizeof out->origin);
    out->h = g.h;
    out->solid = g.cell;
    g.cell = NULL;
done:
    free(g.cell);
    free(a);
    free(b);
    return s;
}

/* Build the proxy mesh of an island (normalised frame). */
static am_status build_proxy(const bind_problem *p, uint32_t island, const uint32_t *verts, size_t n, int resolution,
                             proxy_mesh *m, char *why, size_t why_size, am_error *err)
{
    float lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
    for (size_t i = 0; i < n; i++)
        for (int k = 0; k < 3; k++) {
            lo[k] = fminf(lo[k], p->pos[3 * verts[i] + k]);
            hi[k] = fmaxf(hi[k], p->pos[3 * verts[i] + k]);
        }
    /* The island's bones should be inside the proxy's box too. */
    for (uint32_t b = p->island_bone_start[island]; b < p->island_bone_start[island + 1]; b++)
        for (int k = 0; k < 3; k++) {
            const bind_bone *bb = &p->bones[p->island_bones[b]];
            lo[k] = fminf(lo[k], fminf(bb->a[k], bb->b[k]));
            hi[k] = fmaxf(hi[k], fmaxf(bb->a[k], bb->b[k]));
        }
    bind_voxels vx;
    am_status s = am_bind_voxelise(p->pos, p->tris, p->tri_count, p->tri_island, island, lo, hi, resolution, &vx, err);
    if (s)
        return s;
    grid g = {vx.nx, vx.ny, vx.nz, {vx.origin[0], vx.origin[1], vx.origin[2]}, vx.h, vx.solid};
    size_t nc = (size_t)g.nx * g.ny * g.nz, solid = 0;
    for (size_t c = 0; c < nc; c++)
        solid += g.cell[c];
    float *f = malloc(nc * sizeof *f), *tmp = malloc(nc * sizeof *tmp);
    if (!f || !tmp) {
        s = am_fail_nomem(err, "proxy grid");
        goto done;
    }
    if (solid == 0) {
        snprintf(why, why_size, "the voxel grid (%d x %d x %d) encloses nothing", g.nx, g.ny, g.nz);
        goto done;
    }
    /* Blur 3x3x3 (separable box) for a smoother contour. */
    for (size_t c = 0; c < nc; c++)
        f[c] = g.cell[c];
    for (int axis = 0; axis < 3; axis++) {
        memcpy(tmp, f, nc * sizeof *f);
        for (int z = 0; z < g.nz; z++)
            for (int y = 0; y < g.ny; y++)
                for (int x = 0; x < g.nx; x++) {
                    int c[3] = {x, y, z}, dim[3] = {g.nx, g.ny, g.nz};
                    float sum = 0;
                    for (int d = -1; d <= 1; d++) {
                        int q[3] = {x, y, z};
                        q[axis] = c[axis] + d;
                        if (q[axis] < 0 || q[axis] >= dim[axis])
                            continue;
                        sum += tmp[gi(&g, q[0], q[1], q[2])];
                    }
                    f[gi(&g, x, y, z)] = sum / 3.0f;
                }
    }
    s = surface_nets(&g, f, m, err);
    if (!s && m->nt == 0)
        snprintf(why, why_size, "the remeshed proxy has no faces");
    else if (!s)
        snprintf(why, why_size, "%d x %d x %d voxels of %.2g of height, %zu proxy vertices", g.nx, g.ny, g.nz, g.h,
                 m->nv);
done:
    free(f);
    free(tmp);
    am_bind_voxels_free(&vx);
    return s;
}

/* Inverse-distance blend of the nearest bound proxy vertices (uniform grid search). */
static am_status transfer(const bind_problem *p, const uint32_t *verts, size_t n, const proxy_mesh *m,
                          const bind_candidates *pc, bind_candidates *cand, size_t *missed, am_error *err)
{
    *missed = 0;
    float lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
    for (size_t i = 0; i < m->nv; i++)
        for (int k = 0; k < 3; k++) {
            lo[k] = fminf(lo[k], m->pos[3 * i + k]);
            hi[k] = fmaxf(hi[k], m->pos[3 * i + k]);
        }
    float ext = fmaxf(hi[0] - lo[0], fmaxf(hi[1] - lo[1], hi[2] - lo[2]));
    int res = (int)cbrt((double)m->nv) + 1;
    float h = ext / (float)res + 1e-9f;
    int dim[3];
    for (int k = 0; k < 3; k++)
        dim[k] = (int)((hi[k] - lo[k]) / h) + 1;
    size_t ncell = (size_t)dim[0] * dim[1] * dim[2];
    uint32_t *start = calloc(ncell + 1, sizeof *start), *items = malloc((m->nv ? m->nv : 1) * sizeof *items);
    uint32_t *fill = malloc((ncell + 1) * sizeof *fill);
    if (!start || !items || !fill) {
        free(start);
        free(items);
        free(fill);
        return am_fail_nomem(err, "proxy transfer");
    }
#define CELL_OF(pt, c)                                                            \
    for (int k_ = 0; k_ < 3; k_++) {                                              \
        int v_ = (int)(((pt)[k_] - lo[k_]) / h);                                  \
        (c)[k_] = v_ < 0 ? 0 : v_ >= dim[k_] ? dim[k_] - 1 : v_;                  \
    }
    for (size_t i = 0; i < m->nv; i++) {
        if (pc[i].count == 0)
            continue;
        int c[3];
        CELL_OF(&m->pos[3 * i], c);
        start[((size_t)c[2] * dim[1] + c[1]) * dim[0] + c[0] + 1]++;
    }
    for (size_t c = 0; c < ncell; c++)
        start[c + 1] += start[c];
    memcpy(fill, start, (ncell + 1) * sizeof *fill);
    for (size_t i = 0; i < m->nv; i++) {
        if (pc[i].count == 0)
            continue;
        int c[3];
        CELL_OF(&m->pos[3 * i], c);
        items[fill[((size_t)c[2] * dim[1] + c[1]) * dim[0] + c[0]]++] = (uint32_t)i;
    }
    int maxr = dim[0] > dim[1] ? dim[0] : dim[1];
    maxr = maxr > dim[2] ? maxr : dim[2];
    for (size_t vi = 0; vi < n; vi++) {
        const float *x = &p->pos[3 * verts[vi]];
        int c[3];
        CELL_OF(x, c);
        uint32_t best[4];
        double bd[4];
        int nb = 0;
        for (int r = 0; r <= maxr && (nb < 4 || r <= 1); r++) {
            for (int dz = -r; dz <= r; dz++)
                for (int dy = -r; dy <= r; dy++)
                    for (int dx = -r; dx <= r; dx++) {
                        if (abs(dx) != r && abs(dy) != r && abs(dz) != r)
                            continue; /* only the shell of radius r */
                        int q[3] = {c[0] + dx, c[1] + dy, c[2] + dz};
                        if (q[0] < 0 || q[1] < 0 || q[2] < 0 || q[0] >= dim[0] || q[1] >= dim[1] || q[2] >= dim[2])
                            continue;
                        size_t cell = ((size_t)q[2] * dim[1] + q[1]) * dim[0] + q[0];
                        for (uint32_t it = start[cell]; it < start[cell + 1]; it++) {
                            uint32_t pi = items[it];
                            const float *y = &m->pos[3 * pi];
                            double d = sqrt((double)(x[0] - y[0]) * (x[0] - y[0]) + (double)(x[1] - y[1]) * (x[1] - y[1]) +
                                            (double)(x[2] - y[2]) * (x[2] - y[2]));
                            int at = nb;
                            while (at > 0 && bd[at - 1] > d)
                                at--;
                            if (at >= 4)
                                continue;
                            for (int s = (nb < 4 ? nb : 3); s > at; s--) {
                                bd[s] = bd[s - 1];
                                best[s] = best[s - 1];
                            }
                            bd[at] = d;
                            best[at] = pi;
                            if (nb < 4)
                                nb++;
                        }
                    }
        }
        if (nb == 0) {
            (*missed)++;
            continue;
        }
        double wsum = 0, wk[4];
        for (int k = 0; k < nb; k++)
            wsum += wk[k] = 1.0 / (bd[k] + 1e-6);
        bind_candidates *out = &cand[verts[vi]];
        out->count = 0;
        for (int k = 0; k < nb; k++) {
            const bind_candidates *src = &pc[best[k]];
            for (int q = 0; q < src->count; q++)
                am_bind_candidates_add(out, src->joint[q], (float)(src->weight[q] * wk[k] / wsum));
        }
    }
#undef CELL_OF
    free(start);
    free(items);
    free(fill);
    return AM_OK;
}

am_status am_bind_proxy(const bind_problem *p, uint32_t island, const uint32_t *verts, size_t n, int resolution,
                        bind_candidates *cand, bool *ok, char *why, size_t why_size, am_error *err)
{
    *ok = false;
    proxy_mesh m;
    memset(&m, 0, sizeof m);
    char built[120] = "";
    am_status s = build_proxy(p, island, verts, n, resolution, &m, built, sizeof built, err);
    if (s || m.nt == 0) {
        snprintf(why, why_size, "%s", built);
        free_proxy(&m);
        return s;
    }
    /* Bind the proxy: its own islands, each holding the island's bones. */
    am_topology t;
    s = am_topology_build(m.pos, m.nv, m.tri, m.nt, &t, err);
    if (s) {
        free_proxy(&m);
        return s;
    }
    size_t nb = p->island_bone_start[island + 1] - p->island_bone_start[island];
    float *normal = calloc(3 * t.welded_count, sizeof *normal);
    float *wpos = malloc(3 * t.welded_count * sizeof *wpos);
    uint32_t *tri_island = malloc((t.triangle_count ? t.triangle_count : 1) * sizeof *tri_island);
    uint32_t *bstart = malloc((t.island_count + 1) * sizeof *bstart);
    uint32_t *bones = malloc((t.island_count * nb + 1) * sizeof *bones);
    bool *solve = malloc((t.island_count + 1) * sizeof *solve);
    bool *failed = calloc(t.island_count + 1, sizeof *failed);
    bind_candidates *pc = calloc(t.welded_count ? t.welded_count : 1, sizeof *pc);
    bind_candidates *wc = calloc(m.nv ? m.nv : 1, sizeof *wc);
    am_bind_vis *vis = NULL;
    if (!normal || !wpos || !tri_island || !bstart || !bones || !solve || !failed || !pc || !wc) {
        s = am_fail_nomem(err, "proxy bind");
        goto done;
    }
    for (size_t v = 0; v < t.welded_count; v++)
        memcpy(&wpos[3 * v], &m.pos[3 * t.welded_first[v]], 3 * sizeof *wpos);
    for (size_t i = 0; i < t.triangle_count; i++) {
        const uint32_t *f = &t.triangles[3 * i];
        tri_island[i] = t.island[f[0]];
        const float *a = &wpos[3 * f[0]], *b = &wpos[3 * f[1]], *c = &wpos[3 * f[2]];
        double e1[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]}, e2[3] = {c[0] - a[0], c[1] - a[1], c[2] - a[2]};
        double nn[3] = {e1[1] * e2[2] - e1[2] * e2[1], e1[2] * e2[0] - e1[0] * e2[2], e1[0] * e2[1] - e1[1] * e2[0]};
        double len = sqrt(nn[0] * nn[0] + nn[1] * nn[1] + nn[2] * nn[2]);
        for (int q = 0; q < 3 && len > 0; q++)
            for (int k = 0; k < 3; k++)
                normal[3 * f[q] + k] += (float)(nn[k] / len);
    }
    for (size_t v = 0; v < t.welded_count; v++) {
        float *nn = &normal[3 * v], len = sqrtf(nn[0] * nn[0] + nn[1] * nn[1] + nn[2] * nn[2]);
        for (int k = 0; k < 3 && len > 0; k++)
            nn[k] /= len;
    }
    for (size_t k = 0; k <= t.island_count; k++) {
        bstart[k] = (uint32_t)(k * nb);
        solve[k] = k < t.island_count && t.island_triangle_count[k] > 0;
    }
    for (size_t k = 0; k < t.island_count; k++)
        memcpy(&bones[k * nb], &p->island_bones[p->island_bone_start[island]], nb * sizeof *bones);
    if ((s = am_bind_vis_build(wpos, t.welded_count, t.triangles, t.triangle_count, tri_island, p->threads, &vis, err)))
        goto done;
    bind_problem q = {wpos, normal, t.welded_count, t.triangles, t.triangle_count, t.island, tri_island, p->bones,
                      p->bone_count, bstart, bones, solve, t.island_count, vis, p->threads, p->joint_count};
    bind_heat_stats st;
    if ((s = am_bind_heat(&q, NULL, pc, failed, &st, err)))
        goto done;
    for (size_t v = 0; v < m.nv; v++)
        wc[v] = pc[t.weld[v]];
    size_t missed;
    if ((s = transfer(p, verts, n, &m, wc, cand, &missed, err)))
        goto done;
    size_t unweighted = 0;
    for (size_t i = 0; i < n; i++)
        unweighted += cand[verts[i]].count == 0;
    *ok = unweighted == 0;
    if (*ok)
        snprintf(why, why_size, "%s", built);
    else
        snprintf(why, why_size, "%s; %zu vertices found no bound proxy vertex", built, unweighted);
done:
    am_bind_vis_free(vis);
    am_topology_free(&t);
    free(normal);
    free(wpos);
    free(tri_island);
    free(bstart);
    free(bones);
    free(solve);
    free(failed);
    free(pc);
    free(wc);
    free_proxy(&m);
    return s;
}
