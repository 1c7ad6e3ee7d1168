/* Fitting stock joints inside a mesh (fit.h). */
#include "bind/fit.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bind/bind_internal.h"
#include "bind/bind_io.h"

#define FIT_RESOLUTION 96
#define LIMB_JUMP 1.5         /* body thickness / limb thickness where a limb meets the body */
#define EXTREMITY_RADIUS 0.04

bool am_fit_kind_parse(const char *s, am_fit_kind *out)
{
    if (strcmp(s, "humanoid") == 0)
        *out = AM_FIT_HUMANOID;
    else if (strcmp(s, "quadruped") == 0)
        *out = AM_FIT_QUADRUPED;
    else
        return false;
    return true;
}

const char *am_fit_kind_name(am_fit_kind k) { return k == AM_FIT_QUADRUPED ? "quadruped" : "humanoid"; }

/* --- a binary heap of (key, cell) ---------------------------------------------------- */

typedef struct heap {
    float *key;
    int32_t *cell;
    size_t n, cap;
} heap;

static bool heap_push(heap *h, float k, int32_t c)
{
    if (h->n == h->cap) {
        size_t cap = h->cap ? 2 * h->cap : 4096;
        float *nk = realloc(h->key, cap * sizeof *nk);
        if (!nk)
            return false;
        h->key = nk;
        int32_t *nc = realloc(h->cell, cap * sizeof *nc);
        if (!nc)
            return false;
        h->cell = nc;
        h->cap = cap;
    }
    size_t i = h->n++;
    while (i > 0 && h->key[(i - 1) / 2] > k) {
        h->key[i] = h->key[(i - 1) / 2];
        h->cell[i] = h->cell[(i - 1) / 2];
        i = (i - 1) / 2;
    }
    h->key[i] = k;
    h->cell[i] = c;
    return true;
}

static void heap_pop(heap *h, float *k, int32_t *c)
{
    *k = h->key[0];
    *c = h->cell[0];
    float lk = h->key[--h->n];
    int32_t lc = h->cell[h->n];
    size_t i = 0;
    for (;;) {
        size_t a = 2 * i + 1, b = a + 1, m = i;
        float mk = lk;
        if (a < h->n && h->key[a] < mk) {
            m = a;
            mk = h->key[a];
        }
        if (b < h->n && h->key[b] < mk)
            m = b;
        if (m == i)
            break;
        h->key[i] = h->key[m];
        h->cell[i] = h->cell[m];
        i = m;
    }
    h->key[i] = lk;
    h->cell[i] = lc;
}

/* --- the voxel body -------------------------------------------------------------------- */

typedef struct body {
    bind_voxels v;
    float *dt;       /* thickness: distance to the outside, cells (0 outside) */
    float *geo;      /* geodesic distance from the seed, cells */
    float *cost;     /* thickness-weighted distance from the seed */
    int32_t *pred;   /* predecessor on the thickness-weighted path, -1 at the seed / outside */
    int32_t seed;
} body;

static void body_free(body *b)
{
    am_bind_voxels_free(&b->v);
    free(b->dt);
    free(b->geo);
    free(b->cost);
    free(b->pred);
}

static size_t ncells(const bind_voxels *v) { return (size_t)v->nx * v->ny * v->nz; }

static void cell_xyz(const bind_voxels *v, int32_t c, int *x, int *y, int *z)
{
    *x = c % v->nx;
    *y = c / v->nx % v->ny;
    *z = c / (v->nx * v->ny);
}

static am_vec3 cell_centre(const bind_voxels *v, int32_t c)
{
    int x, y, z;
    cell_xyz(v, c, &x, &y, &z);
    return am_v3(v->origin[0] + (x + 0.5) * v->h, v->origin[1] + (y + 0.5) * v->h, v->origin[2] + (z + 0.5) * v->h);
}

/* Dijkstra over the solid's 26-neighbourhood; weighted: step / thickness^2. */
static am_status dijkstra(body *b, bool weighted, float *dist, int32_t *pred, am_error *err)
{
    const bind_voxels *v = &b->v;
    size_t n = ncells(v);
    for (size_t c = 0; c < n; c++) {
        dist[c] = INFINITY;
        if (pred)
            pred[c] = -1;
    }
    heap h = {0};
    dist[b->seed] = 0;
    if (!heap_push(&h, 0, b->seed))
        return am_fail_nomem(err, "fit");
    am_status s = AM_OK;
    while (h.n) {
        float k;
        int32_t c;
        heap_pop(&h, &k, &c);
        if (k > dist[c])
            continue;
        int x, y, z;
        cell_xyz(v, c, &x, &y, &z);
        for (int dz = -1; dz <= 1; dz++)
            for (int dy = -1; dy <= 1; dy++)
                for (int dx = -1; dx <= 1; dx++) {
                    if (!dx && !dy && !dz)
                        continue;
                    int a = x + dx, bb = y + dy, cc = z + dz;
                    if (a < 0 || bb < 0 || cc < 0 || a >= v->nx || bb >= v->ny || cc >= v->nz)
                        continue;
                    int32_t q = (int32_t)(((size_t)cc * v->ny + bb) * v->nx + a);
                    if (!v->solid[q])
                        continue;
                    float step = sqrtf((float)(dx * dx + dy * dy + dz * dz));
                    if (weighted) {
                        float t = 0.5f * (b->dt[c] + b->dt[q]);
                        step /= t * t;
                    }
                    float nd = k + step;
                    if (nd < dist[q]) {
                        dist[q] = nd;
                        if (pred)
                            pred[q] = c;
                        if (!heap_push(&h, nd, q)) {
                            s = am_fail_nomem(err, "fit");
                            goto done;
                        }
                    }
                }
    }
done:
    free(h.key);
    free(h.cell);
    return s;
}

static am_status build_body(const am_bind_mesh *m, am_fit_kind kind, body *b, double *height, am_error *err)
{
    memset(b, 0, sizeof *b);
    float lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
    for (size_t i = 0; i < m->vertex_count; i++)
        for (int k = 0; k < 3; k++) {
            lo[k] = fminf(lo[k], m->positions[3 * i + k]);
            hi[k] = fmaxf(hi[k], m->positions[3 * i + k]);
        }
    *height = hi[2] - lo[2];
    am_status s = am_bind_voxelise(m->positions, m->triangles, m->triangle_count, NULL, 0, lo, hi, FIT_RESOLUTION,
                                   &b->v, err);
    if (s)
        return s;
    const bind_voxels *v = &b->v;
    size_t n = ncells(v);
    b->dt = calloc(n, sizeof *b->dt);
    b->geo = malloc(n * sizeof *b->geo);
    b->cost = malloc(n * sizeof *b->cost);
    b->pred = malloc(n * sizeof *b->pred);
    int32_t *queue = malloc(n * sizeof *queue);
    if (!b->dt || !b->geo || !b->cost || !b->pred || !queue) {
        free(queue);
        body_free(b);
        return am_fail_nomem(err, "fit");
    }
    /* thickness: BFS (6-neighbour) from the outside */
    size_t qh = 0, qt = 0;
    for (size_t c = 0; c < n; c++)
        if (!v->solid[c])
            queue[qt++] = (int32_t)c;
    for (size_t c = 0; c < n; c++)
        b->dt[c] = v->solid[c] ? INFINITY : 0;
    while (qh < qt) {
        int32_t c = queue[qh++];
        int x, y, z;
        cell_xyz(v, c, &x, &y, &z);
        int nb[6][3] = {{x - 1, y, z}, {x + 1, y, z}, {x, y - 1, z}, {x, y + 1, z}, {x, y, z - 1}, {x, y, z + 1}};
        for (int k = 0; k < 6; k++) {
            if (nb[k][0] < 0 || nb[k][1] < 0 || nb[k][2] < 0 || nb[k][0] >= v->nx || nb[k][1] >= v->ny ||
                nb[k][2] >= v->nz)
                continue;
            int32_t q = (int32_t)(((size_t)nb[k][2] * v->ny + nb[k][1]) * v->nx + nb[k][0]);
            if (b->dt[q] > b->dt[c] + 1) {
                b->dt[q] = b->dt[c] + 1;
                queue[qt++] = q;
            }
        }
    }
    free(queue);
    /* seed: the thickest cell (humanoid: of the trunk's height band) */
    float best = -1;
    b->seed = -1;
    for (size_t c = 0; c < n; c++) {
        if (!v->solid[c])
            continue;
        am_vec3 p = cell_centre(v, (int32_t)c);
        double u = (p.z - lo[2]) / *height;
        if (kind == AM_FIT_HUMANOID && (u < 0.45 || u > 0.7))
            continue;
        if (b->dt[c] > best) {
            best = b->dt[c];
            b->seed = (int32_t)c;
        }
    }
    if (b->seed < 0) {
        body_free(b);
        return am_fail(err, AM_ERR_INVALID, "fit: the voxelised mesh has no solid body");
    }
    if ((s = dijkstra(b, false, b->geo, NULL, err)) || (s = dijkstra(b, true, b->cost, b->pred, err)))
        body_free(b);
    return s;
}

/* Extremities: solid cells whose geodesic distance is the largest within `radius` cells,
 * sorted by that distance, largest first. */
static size_t find_extremities(const body *b, int radius, int32_t *out, size_t max)
{
    const bind_voxels *v = &b->v;
    size_t n = ncells(v), count = 0;
    for (size_t c = 0; c < n; c++) {
        if (!v->solid[c] || !isfinite(b->geo[c]) || b->geo[c] < 2 * radius)
            continue;
        int x, y, z;
        cell_xyz(v, (int32_t)c, &x, &y, &z);
        bool top = true;
        for (int dz = -radius; dz <= radius && top; dz++)
            for (int dy = -radius; dy <= radius && top; dy++)
                for (int dx = -radius; dx <= radius && top; dx++) {
                    int a = x + dx, bb = y + dy, cc = z + dz;
                    if (a < 0 || bb < 0 || cc < 0 || a >= v->nx || bb >= v->ny || cc >= v->nz)
                        continue;
                    size_t q = ((size_t)cc * v->ny + bb) * v->nx + a;
                    /* ties: the lower index wins, so a plateau gives one extremity */
                    if (v->solid[q] && isfinite(b->geo[q]) && (b->geo[q] > b->geo[c] || (b->geo[q] == b->geo[c] && q < c)))
                        top = false;
                }
        if (!top)
            continue;
        /* insert sorted by distance */
        size_t at = count < max ? count : max;
        while (at > 0 && b->geo[out[at - 1]] < b->geo[c])
            at--;
        if (at >= max)
            continue;
        size_t last = count < max ? count : max - 1;
        memmove(&out[at + 1], &out[at], (last - at) * sizeof *out);
        out[at] = (int32_t)c;
        if (count < max)
            count++;
    }
    return count;
}

/* A chain: cells from the extremity to the seed along the thickness-weighted path. */
typedef struct chain {
    int32_t *cell;
    size_t n;
    am_vec3 *p;     /* smoothed centres */
    double *s;      /* arclength from the tip */
} chain;

static void chain_free(chain *c)
{
    free(c->cell);
    free(c->p);
    free(c->s);
    memset(c, 0, sizeof *c);
}

static am_status make_chain(const body *b, int32_t tip, chain *out, am_error *err)
{
    memset(out, 0, sizeof *out);
    size_t n = 0;
    for (int32_t c = tip; c >= 0 && n < ncells(&b->v); c = b->pred[c])
        n++;
    out->cell = malloc(n * sizeof *out->cell);
    out->p = malloc(n * sizeof *out->p);
    out->s = malloc(n * sizeof *out->s);
    if (!out->cell || !out->p || !out->s) {
        chain_free(out);
        return am_fail_nomem(err, "fit chain");
    }
    size_t i = 0;
    for (int32_t c = tip; c >= 0 && i < n; c = b->pred[c])
        out->cell[i++] = c;
    out->n = i;
    for (size_t k = 0; k < out->n; k++) {
        am_vec3 acc = am_v3(0, 0, 0);
        int m = 0;
        for (long d = -2; d <= 2; d++) {
            long q = (long)k + d;
            if (q < 0 || q >= (long)out->n)
                continue;
            acc = am_v3_add(acc, cell_centre(&b->v, out->cell[q]));
            m++;
        }
        out->p[k] = am_v3_scale(acc, 1.0 / m);
        out->s[k] = k ? out->s[k - 1] + am_v3_dist(out->p[k], out->p[k - 1]) : 0;
    }
    return AM_OK;
}

/* The point at arclength s along a chain (clamped). */
static am_vec3 chain_at(const chain *c, double s)
{
    if (s <= 0 || c->n < 2)
        return c->p[0];
    for (size_t k = 1; k < c->n; k++)
        if (c->s[k] >= s) {
            double u = (s - c->s[k - 1]) / fmax(c->s[k] - c->s[k - 1], 1e-12);
            return am_v3_lerp(c->p[k - 1], c->p[k], u);
        }
    return c->p[c->n - 1];
}

/* The first point (from the tip) where the chain reaches height z, interpolated. */
static am_vec3 chain_at_z(const chain *c, double z)
{
    for (size_t k = 1; k < c->n; k++) {
        double a = c->p[k - 1].z, b = c->p[k].z;
        if ((a - z) * (b - z) <= 0 && a != b)
            return am_v3_lerp(c->p[k - 1], c->p[k], (z - a) / (b - a));
    }
    return c->p[c->n - 1];
}

/* The lowest solid cell of the column at (x, y), or NAN. */
static double column_floor(const bind_voxels *v, double x, double y)
{
    int cx = (int)floor((x - v->origin[0]) / v->h), cy = (int)floor((y - v->origin[1]) / v->h);
    if (cx < 0 || cy < 0 || cx >= v->nx || cy >= v->ny)
        return NAN;
    for (int z = 0; z < v->nz; z++)
        if (v->solid[((size_t)z * v->ny + cy) * v->nx + cx])
            return v->origin[2] + (z + 0.5) * v->h;
    return NAN;
}

/* Index where a limb chain meets the body: thickness jumps past LIMB_JUMP x its own. */
static size_t limb_root(const body *b, const chain *c)
{
    size_t half = c->n / 2;
    if (half < 2)
        return c->n - 1;
    float *t = malloc(half * sizeof *t);
    if (!t)
        return c->n - 1;
    for (size_t k = 0; k < half; k++)
        t[k] = b->dt[c->cell[k]];
    /* median of the outer half */
    for (size_t i = 1; i < half; i++)
        for (size_t k = i; k > 0 && t[k - 1] > t[k]; k--) {
            float x = t[k];
            t[k] = t[k - 1];
            t[k - 1] = x;
        }
    float limb = t[half / 2];
    free(t);
    for (size_t k = 0; k < c->n; k++)
        if (b->dt[c->cell[k]] > LIMB_JUMP * limb)
            return k;
    return c->n - 1;
}

typedef struct placed {
    const char *names[64];
    am_vec3 heads[64];
    size_t n;
} placed;

static void place(placed *p, const char *name, am_vec3 at)
{
    if (p->n < 64) {
        p->names[p->n] = name;
        p->heads[p->n++] = at;
    }
}

/* Joints along a limb chain from its root (index r) to the tip: fractions of that length
 * (0 = root, 1 = tip); a negative fraction continues past the root toward the seed. */
static void place_limb(placed *p, const chain *c, size_t r, const char *const *names, const double *frac, int k)
{
    double len = c->s[r];
    for (int i = 0; i < k; i++)
        place(p, names[i], chain_at(c, len * (1.0 - frac[i])));
}

/* What the voxeliser's bounds did, for the summary or the error ("" when nothing). */
static void limits_note(const bind_voxel_stats *st, char *buf, size_t size)
{
    buf[0] = '\0';
    size_t n = 0;
    if (st->coincident)
        n += (size_t)snprintf(buf + n, size - n, "; %zu coincident triangles voxelised once", st->coincident);
    if (st->edges_only && n < size)
        snprintf(buf + n, size - n, "; voxel work limit (%llu cell tests for this mesh) reached: %zu triangles "
                 "marked along their edges only", (unsigned long long)st->budget, st->edges_only);
}

am_status am_bind_fit(const am_bind_mesh *mesh, am_fit_kind kind, const am_skeleton *viewer, am_bind_skeleton *out,
                      char *summary, size_t size, am_error *err)
{
    return am_bind_fit_ex(mesh, kind, viewer, out, summary, size, NULL, err);
}

am_status am_bind_fit_ex(const am_bind_mesh *mesh, am_fit_kind kind, const am_skeleton *viewer, am_bind_skeleton *out,
                         char *summary, size_t size, am_fit_stats *stats, am_error *err)
{
    memset(out, 0, sizeof *out);
    if (stats)
        memset(stats, 0, sizeof *stats);
    if (mesh->vertex_count == 0 || mesh->triangle_count == 0)
        return am_fail(err, AM_ERR_INVALID, "fit: the mesh has no triangles");
    body b;
    double H;
    am_status s = build_body(mesh, kind, &b, &H, err);
    if (s)
        return s;
    const bind_voxel_stats vst = b.v.stats;
    if (stats)
        *stats = (am_fit_stats){vst.tests, vst.budget, vst.triangles, vst.coincident, vst.edges_only};
    int radius = (int)ceil(EXTREMITY_RADIUS * H / b.v.h);
    int32_t ext[16];
    size_t ne = find_extremities(&b, radius < 2 ? 2 : radius, ext, 16);
    chain ch[6];
    memset(ch, 0, sizeof ch);
    placed pl = {0};
    double zmin = mesh->positions[2];
    for (size_t i = 0; i < mesh->vertex_count; i++)
        zmin = fmin(zmin, mesh->positions[3 * i + 2]);
    am_vec3 ep[16];
    for (size_t i = 0; i < ne; i++)
        ep[i] = cell_centre(&b.v, ext[i]);
    bool used[16] = {false};
    if (kind == AM_FIT_HUMANOID) {
        /* feet: lowest on each side; head: highest; hands: outermost on each side */
        int foot[2] = {-1, -1}, hand[2] = {-1, -1}, head = -1;
        for (size_t i = 0; i < ne; i++)
            if ((ep[i].z - zmin) < 0.25 * H) {
                int side = ep[i].y >= 0 ? 0 : 1;
                if (foot[side] < 0 || ep[i].z < ep[foot[side]].z)
                    foot[side] = (int)i;
            }
        for (int k = 0; k < 2; k++)
            if (foot[k] >= 0)
                used[foot[k]] = true;
        for (size_t i = 0; i < ne; i++)
            if (!used[i] && (ep[i].z - zmin) > 0.75 * H && (head < 0 || ep[i].z > ep[head].z))
                head = (int)i;
        if (head >= 0)
            used[head] = true;
        for (size_t i = 0; i < ne; i++) {
            if (used[i] || fabs(ep[i].y) < 0.1 * H)
                continue;
            int side = ep[i].y >= 0 ? 0 : 1;
            if (hand[side] < 0 || fabs(ep[i].y) > fabs(ep[hand[side]].y))
                hand[side] = (int)i;
        }
        if (foot[0] < 0 || foot[1] < 0 || head < 0 || hand[0] < 0 || hand[1] < 0) {
            s = am_fail(err, AM_ERR_INVALID,
                        "fit humanoid: found %s%s%s%s%s among %zu extremities: is it a humanoid in a T or A pose, "
                        "Z up, facing +X?",
                        head < 0 ? "no head, " : "", foot[0] < 0 ? "no left foot, " : "",
                        foot[1] < 0 ? "no right foot, " : "", hand[0] < 0 ? "no left hand, " : "",
                        hand[1] < 0 ? "no right hand" : "", ne);
            goto done;
        }
        int tips[5] = {head, hand[0], hand[1], foot[0], foot[1]};
        for (int k = 0; k < 5 && !s; k++)
            s = make_chain(&b, ext[tips[k]], &ch[k], err);
        if (s)
            goto done;
        /* Heights from the shape, proportions from the viewer skeleton (file frame: pelvis
         * 1.067, hips 1.026, knees 0.535, ankles 0.067 over a crotch at 0.881 and a head top
         * at 1.80 on the 1.8 m creature): the crotch is the lowest solid cell between the
         * thighs; the pelvis 0.103 H above it, the hips 0.080 H, the ankles 0.037 H above
         * the floor, the knees 0.488 of the way down from hip to ankle. */
        am_vec3 thigh_l = chain_at_z(&ch[3], zmin + 0.45 * H), thigh_r = chain_at_z(&ch[4], zmin + 0.45 * H);
        double mid_x = 0.5 * (thigh_l.x + thigh_r.x), mid_y = 0.5 * (thigh_l.y + thigh_r.y);
        double crotch = column_floor(&b.v, mid_x, mid_y);
        if (!isfinite(crotch) || crotch < zmin + 0.3 * H || crotch > zmin + 0.7 * H)
            crotch = zmin + 0.49 * H; /* no solid between the thighs where expected: the stock ratio */
        double z_pelvis = crotch + 0.103 * H, z_hip = crotch + 0.080 * H, z_ankle = zmin + 0.037 * H;
        /* spine: the head chain (from the head down to the seed), then straight to the pelvis */
        am_vec3 seed = ch[0].p[ch[0].n - 1];
        am_vec3 pelvis = am_v3(seed.x, mid_y, z_pelvis);
        double top = ep[head].z;
        static const char *spine_names[] = {"mPelvis", "mTorso", "mChest", "mNeck", "mHead"};
        static const double spine_frac[] = {0.0, 0.115, 0.395, 0.737, 0.84};
        for (int k = 0; k < 5; k++) {
            double z = z_pelvis + spine_frac[k] * (top - z_pelvis);
            am_vec3 p = z >= seed.z ? chain_at_z(&ch[0], z) : am_v3_lerp(pelvis, seed, (z - z_pelvis) / fmax(seed.z - z_pelvis, 1e-9));
            place(&pl, spine_names[k], k == 0 ? pelvis : p);
        }
        static const char *legn[2][4] = {{"mHipLeft", "mKneeLeft", "mAnkleLeft", "mFootLeft"},
                                         {"mHipRight", "mKneeRight", "mAnkleRight", "mFootRight"}};
        double leg_len[2];
        for (int side = 0; side < 2; side++) {
            const chain *c = &ch[3 + side];
            /* the thigh's axis (from its middle up to the crotch) carried up to the hip's height */
            am_vec3 upper = chain_at_z(c, crotch - 0.03 * H), lower = chain_at_z(c, crotch - 0.15 * H);
            am_vec3 dir = am_v3_sub(upper, lower);
            am_vec3 hip = dir.z > 1e-9 ? am_v3_add(upper, am_v3_scale(dir, (z_hip - upper.z) / dir.z)) : upper;
            am_vec3 ankle = chain_at_z(c, z_ankle);
            am_vec3 knee = chain_at_z(c, z_ankle + 0.512 * (z_hip - z_ankle));
            /* the foot: along the chain from the ankle toward the toe tip, 60% of the way */
            size_t ai = 0;
            for (size_t k = 0; k < c->n; k++)
                if (am_v3_dist(c->p[k], ankle) < am_v3_dist(c->p[ai], ankle))
                    ai = k;
            am_vec3 toe_side = chain_at(c, 0.4 * c->s[ai]);
            place(&pl, legn[side][0], hip);
            place(&pl, legn[side][1], knee);
            place(&pl, legn[side][2], ankle);
            place(&pl, legn[side][3], toe_side);
            leg_len[side] = z_hip - zmin;
        }
        /* arms: from where the chain meets the body (the shoulder) to the hand's tip, at the
         * viewer's ratios (shoulder -> elbow 0.41, -> wrist 0.75 of shoulder -> tip); the
         * collar at the shoulder's height, 52% of the way out from the chest (0.085 / 0.164) */
        static const char *armn[2][3] = {{"mShoulderLeft", "mElbowLeft", "mWristLeft"},
                                         {"mShoulderRight", "mElbowRight", "mWristRight"}};
        static const char *collar[2] = {"mCollarLeft", "mCollarRight"};
        static const double armf[] = {0.0, 0.41, 0.75};
        am_vec3 chest = pl.heads[2];
        double arm_len[2];
        for (int side = 0; side < 2; side++) {
            const chain *c = &ch[1 + side];
            size_t r = limb_root(&b, c);
            am_vec3 shoulder = chain_at(c, c->s[r]);
            place(&pl, collar[side], am_v3(shoulder.x, chest.y + 0.52 * (shoulder.y - chest.y), shoulder.z));
            place_limb(&pl, c, r, armn[side], armf, 3);
            arm_len[side] = c->s[r];
        }
        snprintf(summary, size,
                 "fit humanoid: %zu extremities; head top z %.3f, hands y %+.3f / %+.3f, feet y %+.3f / %+.3f; "
                 "crotch z %.3f, legs %.3f / %.3f m, arms %.3f / %.3f m from the body; voxels %.1f cm",
                 ne, ep[head].z, ep[hand[0]].y, ep[hand[1]].y, ep[foot[0]].y, ep[foot[1]].y, crotch, leg_len[0],
                 leg_len[1], arm_len[0], arm_len[1], 100 * b.v.h);
    } else {
        /* quadruped: feet = the four lowest, front pair by x; head = most forward */
        int feet[4], nf = 0;
        for (int k = 0; k < 4; k++) {
            int best = -1;
            for (size_t i = 0; i < ne; i++)
                if (!used[i] && (ep[i].z - zmin) < 0.3 * H && (best < 0 || ep[i].z < ep[best].z))
                    best = (int)i;
            if (best < 0)
                break;
            used[best] = true;
            feet[nf++] = best;
        }
        if (nf < 4) {
            s = am_fail(err, AM_ERR_INVALID,
                        "fit quadruped: found %d feet (low extremities) among %zu extremities: is it standing, Z up, "
                        "facing +X?",
                        nf, ne);
            goto done;
        }
        /* sort the feet by x: the two largest are the front */
        for (int i = 1; i < 4; i++)
            for (int k = i; k > 0 && ep[feet[k]].x > ep[feet[k - 1]].x; k--) {
                int t = feet[k];
                feet[k] = feet[k - 1];
                feet[k - 1] = t;
            }
        int fl = ep[feet[0]].y >= ep[feet[1]].y ? feet[0] : feet[1], fr = fl == feet[0] ? feet[1] : feet[0];
        int hl = ep[feet[2]].y >= ep[feet[3]].y ? feet[2] : feet[3], hr = hl == feet[2] ? feet[3] : feet[2];
        int head = -1, tail = -1;
        double front_x = fmax(ep[fl].x, ep[fr].x), hind_x = fmin(ep[hl].x, ep[hr].x);
        for (size_t i = 0; i < ne; i++) {
            if (used[i])
                continue;
            if (ep[i].x > front_x && (head < 0 || ep[i].x > ep[head].x))
                head = (int)i;
            if (ep[i].x < hind_x && (tail < 0 || ep[i].x < ep[tail].x))
                tail = (int)i;
        }
        if (head < 0) {
            s = am_fail(err, AM_ERR_INVALID, "fit quadruped: no head (an extremity ahead of the front feet, +X)");
            goto done;
        }
        int tips[6] = {head, fl, fr, hl, hr, tail};
        for (int k = 0; k < (tail >= 0 ? 6 : 5) && !s; k++)
            s = make_chain(&b, ext[tips[k]], &ch[k], err);
        if (s)
            goto done;
        size_t r[5];
        for (int k = 1; k < 5; k++)
            r[k] = limb_root(&b, &ch[k]);
        am_vec3 front = am_v3_scale(am_v3_add(ch[1].p[r[1]], ch[2].p[r[2]]), 0.5);
        am_vec3 hind = am_v3_scale(am_v3_add(ch[3].p[r[3]], ch[4].p[r[4]]), 0.5);
        /* the spine: the head chain's cell nearest each pair's root midpoint, else the midpoint */
        am_vec3 chest = front, pelvis = hind;
        double dc = INFINITY, dp = INFINITY;
        for (size_t k = 0; k < ch[0].n; k++) {
            double a = am_v3_dist(ch[0].p[k], front), c = am_v3_dist(ch[0].p[k], hind);
            if (a < dc) {
                dc = a;
                chest = ch[0].p[k];
            }
            if (c < dp) {
                dp = c;
                pelvis = ch[0].p[k];
            }
        }
        if (dp > 0.25 * H) /* the head chain does not reach back to the hips */
            pelvis = am_v3(hind.x, 0.5 * (hind.y), hind.z + 0.5 * (chest.z - front.z));
        place(&pl, "mPelvis", pelvis);
        place(&pl, "mTorso", am_v3_lerp(pelvis, chest, 0.5));
        place(&pl, "mChest", chest);
        /* neck and head along the head chain from the chest */
        size_t ci = 0;
        for (size_t k = 0; k < ch[0].n; k++)
            if (am_v3_dist(ch[0].p[k], chest) < am_v3_dist(ch[0].p[ci], chest))
                ci = k;
        double neck_len = ch[0].s[ci];
        place(&pl, "mNeck", chain_at(&ch[0], neck_len * 0.6));
        place(&pl, "mHead", chain_at(&ch[0], neck_len * 0.25));
        static const char *fln[] = {"mCollarLeft", "mShoulderLeft", "mElbowLeft", "mWristLeft"};
        static const char *frn[] = {"mCollarRight", "mShoulderRight", "mElbowRight", "mWristRight"};
        static const double ff[] = {-0.1, 0.0, 0.4, 0.8};
        static const char *hln[] = {"mHipLeft", "mKneeLeft", "mAnkleLeft", "mFootLeft"};
        static const char *hrn[] = {"mHipRight", "mKneeRight", "mAnkleRight", "mFootRight"};
        static const double hf[] = {0.0, 0.4, 0.75, 0.92};
        place_limb(&pl, &ch[1], r[1], fln, ff, 4);
        place_limb(&pl, &ch[2], r[2], frn, ff, 4);
        place_limb(&pl, &ch[3], r[3], hln, hf, 4);
        place_limb(&pl, &ch[4], r[4], hrn, hf, 4);
        if (tail >= 0) {
            size_t rt = limb_root(&b, &ch[5]);
            static const char *tn[] = {"mTail1", "mTail2", "mTail3", "mTail4", "mTail5", "mTail6"};
            static const double tf[] = {0.0, 0.17, 0.34, 0.5, 0.66, 0.82};
            place_limb(&pl, &ch[5], rt, tn, tf, 6);
        }
        snprintf(summary, size,
                 "fit quadruped: %zu extremities; head x %.3f, feet front x %.3f / hind x %.3f, %s; legs %.3f %.3f / "
                 "%.3f %.3f m; voxels %.1f cm",
                 ne, ep[head].x, front_x, hind_x, tail >= 0 ? "tail found" : "no tail", ch[1].s[r[1]], ch[2].s[r[2]],
                 ch[3].s[r[3]], ch[4].s[r[4]], 100 * b.v.h);
    }
    s = am_bind_skeleton_from_heads(pl.names, pl.heads, pl.n, viewer, H, "fit", out, err);
done:
    for (int k = 0; k < 6; k++)
        chain_free(&ch[k]);
    body_free(&b);
    char limits[200];
    limits_note(&vst, limits, sizeof limits);
    if (limits[0] && !s && summary && strlen(summary) < size)
        snprintf(summary + strlen(summary), size - strlen(summary), "%s", limits);
    else if (limits[0] && s && err)
        am_fail(err, s, "%.200s (%s)", err->msg, limits + 2);
    return s;
}
