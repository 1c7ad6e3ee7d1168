/* LODs of meshes split at seams: flat-shaded (a vertex per face corner, normals apart), UV
 * seams, or unwelded corners. The simplifier (skin_lod.c) sees only the index buffer: two
 * triangles that share a position but not a vertex index are not neighbours to it, every
 * seam is an open border it keeps locked, and a flat-shaded mesh, all seams, never reduces
 * (the Khronos Fox: 576 triangles in all four LODs).
 *
 * So the simplification runs on a SHADOW index (meshopt_generateShadowIndexBuffer): each
 * corner renamed to the first vertex with the same position and the same stored weights
 * (a weight seam stays a seam) and a normal within 60 degrees (a hard edge stays a seam,
 * locked like any border: split_creases). There the mesh is connected and collapses
 * across the seams as on a welded mesh. The kept triangles then get their split attributes back: each
 * shadow corner has the vertices it stands for (its candidates); a triangle the
 * simplification left as it was takes its own vertices again, and a new one takes, for each
 * corner, the candidate of the surface patch ("island": triangles joined by shared vertex
 * indices, i.e. one shading and UV region) that holds the most of its corners, best matching
 * its own normal; a corner without a candidate in that island takes the candidate whose
 * normal is nearest the triangle's. Collapses only remove vertices, so every vertex kept is
 * an input vertex with its own normal, UV and weights. A mesh without seams has a shadow
 * index equal to its own and goes through unchanged. */
#include <math.h>
#include <meshoptimizer.h>
#include <stdlib.h>
#include <string.h>

#include "skin/skin_internal.h"

/* What the shadow index compares: the position and the stored weights. */
typedef struct shadow_key {
    float pos[3];
    float weight[4]; /* 0 in unused slots */
    uint8_t joint[4];/* 0 in unused slots */
    uint8_t count;
    uint8_t pad[3];
} shadow_key;

static uint32_t island_root(uint32_t *parent, uint32_t v)
{
    while (parent[v] != v) {
        parent[v] = parent[parent[v]];
        v = parent[v];
    }
    return v;
}

/* The attribute restore's lookups, over the input triangles. */
typedef struct seams {
    const am_lod_mesh *m;
    const uint32_t *indices, *shadow;
    size_t index_count;
    size_t *cand_start; /* per shadow vertex: its candidates cand[cand_start[s] .. [s + 1]) */
    uint32_t *cand;
    size_t *tri_start;  /* per shadow vertex: the input triangles with a corner there */
    uint32_t *tri;
    uint32_t *island;   /* per vertex: its island's root */
} seams;

static void seams_free(seams *s)
{
    free(s->cand_start);
    free(s->cand);
    free(s->tri_start);
    free(s->tri);
    free(s->island);
}

static am_status seams_make(seams *s, am_error *err)
{
    size_t nv = s->m->vertex_count, n = s->index_count;
    s->cand_start = calloc(nv + 1, sizeof *s->cand_start);
    s->tri_start = calloc(nv + 1, sizeof *s->tri_start);
    s->cand = malloc((n ? n : 1) * sizeof *s->cand);
    s->tri = malloc((n ? n : 1) * sizeof *s->tri);
    s->island = malloc((nv ? nv : 1) * sizeof *s->island);
    uint8_t *seen = calloc(nv ? nv : 1, 1);
    size_t *at = malloc((nv + 1) * sizeof *at);
    if (!s->cand_start || !s->tri_start || !s->cand || !s->tri || !s->island || !seen || !at) {
        free(seen);
        free(at);
        return am_fail_nomem(err, "LOD seams");
    }
    for (size_t v = 0; v < nv; v++)
        s->island[v] = (uint32_t)v;
    for (size_t i = 0; i < n; i++) {
        uint32_t v = s->indices[i], sh = s->shadow[i];
        if (!seen[v]) {
            seen[v] = 1;
            s->cand_start[sh + 1]++;
        }
        s->tri_start[sh + 1]++;
        if (i % 3) { /* the triangle's corners are one island */
            uint32_t a = island_root(s->island, s->indices[i - i % 3]), b = island_root(s->island, v);
            if (a != b)
                s->island[a > b ? a : b] = a < b ? a : b;
        }
    }
    for (size_t v = 0; v < nv; v++) {
        s->cand_start[v + 1] += s->cand_start[v];
        s->tri_start[v + 1] += s->tri_start[v];
    }
    memcpy(at, s->cand_start, (nv + 1) * sizeof *at);
    memset(seen, 0, nv);
    for (size_t i = 0; i < n; i++)
        if (!seen[s->indices[i]]) {
            seen[s->indices[i]] = 1;
            s->cand[at[s->shadow[i]]++] = s->indices[i];
        }
    memcpy(at, s->tri_start, (nv + 1) * sizeof *at);
    for (size_t i = 0; i < n; i++)
        s->tri[at[s->shadow[i]]++] = (uint32_t)(i / 3);
    for (size_t v = 0; v < nv; v++)
        s->island[v] = island_root(s->island, (uint32_t)v);
    free(seen);
    free(at);
    return AM_OK;
}

/* An input triangle whose shadow corners are t (same turn): its own vertices, else false. */
static bool unchanged_triangle(const seams *s, const uint32_t *t, uint32_t out[3])
{
    for (size_t k = s->tri_start[t[0]]; k < s->tri_start[t[0] + 1]; k++) {
        const uint32_t *sh = &s->shadow[3 * (size_t)s->tri[k]], *ix = &s->indices[3 * (size_t)s->tri[k]];
        for (int r = 0; r < 3; r++)
            if (sh[r] == t[0] && sh[(r + 1) % 3] == t[1] && sh[(r + 2) % 3] == t[2]) {
                for (int c = 0; c < 3; c++)
                    out[c] = ix[(r + c) % 3];
                return true;
            }
    }
    return false;
}

static double normal_match(const am_lod_mesh *m, uint32_t v, const double n[3])
{
    if (!m->nrm)
        return 0;
    const float *q = &m->nrm[3 * (size_t)v];
    return q[0] * n[0] + q[1] * n[1] + q[2] * n[2];
}

/* The vertices of a new triangle t (shadow corners). */
static void restore_triangle(const seams *s, const uint32_t *t, uint32_t out[3])
{
    const am_lod_mesh *m = s->m;
    bool split = false;
    for (int c = 0; c < 3; c++) {
        out[c] = s->cand[s->cand_start[t[c]]];
        split |= s->cand_start[t[c] + 1] - s->cand_start[t[c]] > 1;
    }
    if (!split)
        return;
    const float *p0 = &m->pos[3 * (size_t)t[0]], *p1 = &m->pos[3 * (size_t)t[1]], *p2 = &m->pos[3 * (size_t)t[2]];
    double e1[3] = {p1[0] - p0[0], p1[1] - p0[1], p1[2] - p0[2]}, e2[3] = {p2[0] - p0[0], p2[1] - p0[1], p2[2] - p0[2]};
    double n[3] = {e1[1] * e2[2] - e1[2] * e2[1], e1[2] * e2[0] - e1[0] * e2[2], e1[0] * e2[1] - e1[1] * e2[0]};
    double len = sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
    for (int k = 0; k < 3 && len > 0; k++)
        n[k] /= len;
    /* the island holding the most corners (then the best normals) */
    uint32_t best_island = UINT32_MAX;
    int best_corners = 0;
    double best_match = -INFINITY;
    for (int c = 0; c < 3; c++)
        for (size_t i = s->cand_start[t[c]]; i < s->cand_start[t[c] + 1]; i++) {
            uint32_t isl = s->island[s->cand[i]];
            int corners = 0;
            double match = 0;
            for (int d = 0; d < 3; d++) {
                double bm = -INFINITY;
                for (size_t j = s->cand_start[t[d]]; j < s->cand_start[t[d] + 1]; j++)
                    if (s->island[s->cand[j]] == isl) {
                        double q = normal_match(m, s->cand[j], n);
                        bm = q > bm ? q : bm;
                    }
                if (bm > -INFINITY) {
                    corners++;
                    match += bm;
                }
            }
            if (corners > best_corners || (corners == best_corners && match > best_match)) {
                best_island = isl;
                best_corners = corners;
                best_match = match;
            }
        }
    for (int c = 0; c < 3; c++) {
        double in_island = -INFINITY, any = -INFINITY;
        uint32_t pick_island = UINT32_MAX, pick_any = out[c];
        for (size_t i = s->cand_start[t[c]]; i < s->cand_start[t[c] + 1]; i++) {
            uint32_t v = s->cand[i];
            double q = normal_match(m, v, n);
            if (s->island[v] == best_island && q > in_island) {
                in_island = q;
                pick_island = v;
            }
            if (q > any) {
                any = q;
                pick_any = v;
            }
        }
        out[c] = pick_island != UINT32_MAX ? pick_island : pick_any;
    }
}

/* A hard edge stays a seam: within one shadow vertex, a corner joins the first earlier
 * corner whose normal is within CREASE_COS of its own, else it starts its own shadow
 * vertex. So a box's 90-degree creases remain open borders, which the simplifier keeps
 * (where a blend line meets a crease, it stays: the bend box's hinge), while UV seams and
 * facets of a flat-shaded curved surface (a few tens of degrees apart) collapse. */
#define CREASE_COS 0.5 /* 60 degrees */

static am_status split_creases(const am_lod_mesh *m, const uint32_t *indices, size_t index_count, uint32_t *shadow,
                               am_error *err)
{
    if (!m->nrm)
        return AM_OK;
    size_t nv = m->vertex_count;
    uint32_t *to = malloc((nv ? nv : 1) * sizeof *to);   /* vertex -> its shadow vertex */
    uint32_t *head = malloc((nv ? nv : 1) * sizeof *head); /* position shadow -> first crease side */
    uint32_t *next = malloc((nv ? nv : 1) * sizeof *next); /* crease side -> the next one there */
    if (!to || !head || !next) {
        free(to);
        free(head);
        free(next);
        return am_fail_nomem(err, "LOD shadow index");
    }
    for (size_t v = 0; v < nv; v++)
        to[v] = head[v] = UINT32_MAX;
    for (size_t i = 0; i < index_count; i++) {
        uint32_t v = indices[i], g = shadow[i];
        if (to[v] == UINT32_MAX) {
            const float *nv3 = &m->nrm[3 * (size_t)v];
            uint32_t *link = &head[g];
            while (*link != UINT32_MAX) {
                const float *r = &m->nrm[3 * (size_t)*link];
                double d = (double)nv3[0] * r[0] + (double)nv3[1] * r[1] + (double)nv3[2] * r[2];
                double l = sqrt(((double)nv3[0] * nv3[0] + (double)nv3[1] * nv3[1] + (double)nv3[2] * nv3[2]) *
                                ((double)r[0] * r[0] + (double)r[1] * r[1] + (double)r[2] * r[2]));
                if (d >= CREASE_COS * l)
                    break;
                link = &next[*link];
            }
            if (*link == UINT32_MAX) {
                *link = v;
                next[v] = UINT32_MAX;
            }
            to[v] = *link;
        }
        shadow[i] = to[v];
    }
    free(to);
    free(head);
    free(next);
    return AM_OK;
}

am_status am_skin_simplify(const am_lod_mesh *m, const uint32_t *indices, size_t index_count, const am_lod_step *step,
                           uint32_t **out, size_t *out_count, am_error *err)
{
    size_t nv = m->vertex_count;
    shadow_key *key = calloc(nv ? nv : 1, sizeof *key);
    uint32_t *shadow = malloc((index_count ? index_count : 1) * sizeof *shadow);
    if (!key || !shadow) {
        free(key);
        free(shadow);
        return am_fail_nomem(err, "LOD shadow index");
    }
    for (size_t v = 0; v < nv; v++) {
        memcpy(key[v].pos, &m->pos[3 * v], sizeof key[v].pos);
        key[v].count = m->count[v];
        for (int k = 0; k < m->count[v] && k < 4; k++) {
            key[v].joint[k] = m->joint[4 * v + (size_t)k];
            key[v].weight[k] = m->weight[4 * v + (size_t)k];
        }
    }
    meshopt_generateShadowIndexBuffer(shadow, indices, index_count, key, nv, sizeof *key, sizeof *key);
    free(key);
    am_status st = split_creases(m, indices, index_count, shadow, err);
    if (st) {
        free(shadow);
        return st;
    }
    if (memcmp(shadow, indices, index_count * sizeof *shadow) == 0) { /* no seam: as it is */
        free(shadow);
        return am_skin_simplify_welded(m, indices, index_count, step, out, out_count, err);
    }
    uint32_t *simple = NULL;
    size_t n = 0;
    seams s = {m, indices, shadow, index_count, NULL, NULL, NULL, NULL, NULL};
    st = am_skin_simplify_welded(m, shadow, index_count, step, &simple, &n, err);
    if (!st)
        st = seams_make(&s, err);
    for (size_t t = 0; !st && t < n / 3; t++) {
        const uint32_t corners[3] = {simple[3 * t], simple[3 * t + 1], simple[3 * t + 2]};
        if (!unchanged_triangle(&s, corners, &simple[3 * t]))
            restore_triangle(&s, corners, &simple[3 * t]);
    }
    seams_free(&s);
    free(shadow);
    if (st) {
        free(simple);
        return st;
    }
    *out = simple;
    *out_count = n;
    return AM_OK;
}
