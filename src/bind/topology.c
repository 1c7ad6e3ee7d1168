/* Welding, degenerate faces, edge counts and islands (topology.h). */
#include "bind/topology.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static uint64_t mix64(uint64_t x)
{
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdULL;
    x ^= x >> 33;
    x *= 0xc4ceb9fe1a85ec53ULL;
    x ^= x >> 33;
    return x;
}

static uint32_t bits_of(float f)
{
    if (f == 0.0f)
        f = 0.0f; /* -0 welds with +0 */
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return u;
}

static uint64_t hash_position(const float *p)
{
    return mix64(((uint64_t)bits_of(p[0]) << 32 | bits_of(p[1])) ^ mix64(bits_of(p[2]) + 0x9e3779b97f4a7c15ULL));
}

static bool same_position(const float *a, const float *b)
{
    return bits_of(a[0]) == bits_of(b[0]) && bits_of(a[1]) == bits_of(b[1]) && bits_of(a[2]) == bits_of(b[2]);
}

static am_status weld(const float *pos, size_t n, am_topology *t, am_error *err)
{
    size_t cap = 16;
    while (cap < 2 * n)
        cap <<= 1;
    uint32_t *slot = malloc(cap * sizeof *slot);
    t->weld = malloc((n ? n : 1) * sizeof *t->weld);
    t->welded_first = malloc((n ? n : 1) * sizeof *t->welded_first);
    if (!slot || !t->weld || !t->welded_first) {
        free(slot);
        return am_fail_nomem(err, "weld");
    }
    memset(slot, 0xff, cap * sizeof *slot);
    size_t w = 0;
    for (size_t i = 0; i < n; i++) {
        size_t h = (size_t)hash_position(&pos[3 * i]) & (cap - 1);
        for (;;) {
            uint32_t s = slot[h];
            if (s == UINT32_MAX) {
                slot[h] = (uint32_t)w;
                t->welded_first[w] = (uint32_t)i;
                t->weld[i] = (uint32_t)w++;
                break;
            }
            if (same_position(&pos[3 * t->welded_first[s]], &pos[3 * i])) {
                t->weld[i] = s;
                break;
            }
            h = (h + 1) & (cap - 1);
        }
    }
    free(slot);
    t->welded_count = w;
    return AM_OK;
}

static bool degenerate(const float *pos, const uint32_t *src_tri)
{
    double e[3][3], len2[3];
    for (int k = 0; k < 3; k++) {
        const float *a = &pos[3 * src_tri[k]], *b = &pos[3 * src_tri[(k + 1) % 3]];
        for (int c = 0; c < 3; c++)
            e[k][c] = (double)b[c] - (double)a[c];
        len2[k] = e[k][0] * e[k][0] + e[k][1] * e[k][1] + e[k][2] * e[k][2];
    }
    double cx = e[0][1] * e[1][2] - e[0][2] * e[1][1];
    double cy = e[0][2] * e[1][0] - e[0][0] * e[1][2];
    double cz = e[0][0] * e[1][1] - e[0][1] * e[1][0];
    double twice_area = sqrt(cx * cx + cy * cy + cz * cz);
    double longest = fmax(len2[0], fmax(len2[1], len2[2]));
    return !(twice_area > 1e-8 * longest) || longest == 0.0;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

/* The edges (a < b) as keys a << 32 | b, in ascending order: bucketed by a (a counting
 * pass, each vertex's edges together), then each bucket sorted, by insertion when it holds
 * the usual handful (qsort for a fan: a vertex of many edges); the order one qsort of all
 * keys gave, in about linear time. */
static am_status sorted_edge_keys(const uint32_t *tris, size_t nt, size_t nv, uint64_t *keys, am_error *err)
{
    size_t *start = calloc(nv + 2, sizeof *start);
    if (!start)
        return am_fail_nomem(err, "topology edges");
    for (size_t i = 0; i < 3 * nt; i++) {
        uint32_t a = tris[i], b = tris[i - i % 3 + (i % 3 + 1) % 3];
        start[(a < b ? a : b) + 2]++;
    }
    for (size_t v = 2; v < nv + 2; v++)
        start[v] += start[v - 1];
    /* start[a + 1] is now where a's edges begin: filled in place, it ends as their end */
    for (size_t i = 0; i < 3 * nt; i++) {
        uint32_t a = tris[i], b = tris[i - i % 3 + (i % 3 + 1) % 3];
        uint64_t key = a < b ? ((uint64_t)a << 32 | b) : ((uint64_t)b << 32 | a);
        keys[start[(a < b ? a : b) + 1]++] = key;
    }
    for (size_t v = 0; v < nv; v++) {
        if (start[v + 1] - start[v] > 32) {
            qsort(&keys[start[v]], start[v + 1] - start[v], sizeof *keys, cmp_u64);
            continue;
        }
        for (size_t i = start[v] + 1; i < start[v + 1]; i++) {
            uint64_t k = keys[i];
            size_t j = i;
            for (; j > start[v] && keys[j - 1] > k; j--)
                keys[j] = keys[j - 1];
            keys[j] = k;
        }
    }
    free(start);
    return AM_OK;
}

static uint32_t find_root(uint32_t *parent, uint32_t x)
{
    while (parent[x] != x) {
        parent[x] = parent[parent[x]];
        x = parent[x];
    }
    return x;
}

am_status am_topology_build(const float *pos, size_t n, const uint32_t *tris, size_t nt, am_topology *t,
                            am_error *err)
{
    memset(t, 0, sizeof *t);
    t->vertex_count = n;
    for (size_t i = 0; i < 3 * nt; i++)
        if (tris[i] >= n) {
            am_fail(err, AM_ERR_INVALID, "triangle %zu: vertex index %u out of range (%zu vertices)", i / 3, tris[i],
                    n);
            return AM_ERR_INVALID;
        }
    am_status s = weld(pos, n, t, err);
    if (s)
        goto fail;
    t->triangles = malloc((nt ? 3 * nt : 1) * sizeof *t->triangles);
    t->triangle_source = malloc((nt ? nt : 1) * sizeof *t->triangle_source);
    if (!t->triangles || !t->triangle_source) {
        s = am_fail_nomem(err, "topology");
        goto fail;
    }
    for (size_t i = 0; i < nt; i++) {
        uint32_t a = t->weld[tris[3 * i]], b = t->weld[tris[3 * i + 1]], c = t->weld[tris[3 * i + 2]];
        if (a == b || b == c || a == c || degenerate(pos, &tris[3 * i])) {
            t->degenerate_faces++;
            continue;
        }
        uint32_t *d = &t->triangles[3 * t->triangle_count];
        d[0] = a;
        d[1] = b;
        d[2] = c;
        t->triangle_source[t->triangle_count++] = (uint32_t)i;
    }

    /* Edges: sorted keys, counted. */
    size_t ne = 3 * t->triangle_count;
    uint64_t *keys = malloc((ne ? ne : 1) * sizeof *keys);
    uint32_t *parent = malloc((t->welded_count ? t->welded_count : 1) * sizeof *parent);
    if (!keys || !parent) {
        free(keys);
        free(parent);
        s = am_fail_nomem(err, "topology edges");
        goto fail;
    }
    if ((s = sorted_edge_keys(t->triangles, t->triangle_count, t->welded_count, keys, err))) {
        free(keys);
        free(parent);
        goto fail;
    }

    /* Islands by union-find over the triangles. */
    for (size_t v = 0; v < t->welded_count; v++)
        parent[v] = (uint32_t)v;
    for (size_t i = 0; i < t->triangle_count; i++) {
        uint32_t r0 = find_root(parent, t->triangles[3 * i]);
        for (int k = 1; k < 3; k++) {
            uint32_t r = find_root(parent, t->triangles[3 * i + k]);
            if (r != r0)
                parent[r] = r0;
        }
    }
    t->island = malloc((t->welded_count ? t->welded_count : 1) * sizeof *t->island);
    bool *in_tri = calloc(t->welded_count ? t->welded_count : 1, sizeof *in_tri);
    if (!t->island || !in_tri) {
        free(keys);
        free(parent);
        free(in_tri);
        s = am_fail_nomem(err, "islands");
        goto fail;
    }
    for (size_t i = 0; i < 3 * t->triangle_count; i++)
        in_tri[t->triangles[i]] = true;
    memset(t->island, 0xff, t->welded_count * sizeof *t->island);
    for (size_t v = 0; v < t->welded_count; v++) {
        uint32_t r = find_root(parent, (uint32_t)v);
        if (t->island[r] == UINT32_MAX)
            t->island[r] = (uint32_t)t->island_count++;
        t->island[v] = t->island[r];
        t->loose_vertices += !in_tri[v];
    }
    free(in_tri);
    free(parent);

    t->island_vertex_count = calloc(t->island_count + 1, sizeof *t->island_vertex_count);
    t->island_triangle_count = calloc(t->island_count + 1, sizeof *t->island_triangle_count);
    t->island_closed = malloc((t->island_count ? t->island_count : 1) * sizeof *t->island_closed);
    if (!t->island_vertex_count || !t->island_triangle_count || !t->island_closed) {
        free(keys);
        s = am_fail_nomem(err, "islands");
        goto fail;
    }
    for (size_t v = 0; v < t->welded_count; v++)
        t->island_vertex_count[t->island[v]]++;
    for (size_t i = 0; i < t->triangle_count; i++)
        t->island_triangle_count[t->island[t->triangles[3 * i]]]++;
    for (size_t k = 0; k < t->island_count; k++)
        t->island_closed[k] = t->island_triangle_count[k] > 0;
    for (size_t i = 0; i < ne;) {
        size_t j = i;
        while (j < ne && keys[j] == keys[i])
            j++;
        size_t faces = j - i;
        t->edge_count++;
        uint32_t a = (uint32_t)(keys[i] >> 32);
        if (faces == 1)
            t->boundary_edges++;
        else if (faces > 2)
            t->non_manifold_edges++;
        if (faces != 2)
            t->island_closed[t->island[a]] = false;
        i = j;
    }
    free(keys);
    return AM_OK;
fail:
    am_topology_free(t);
    return s;
}

void am_topology_free(am_topology *t)
{
    if (!t)
        return;
    free(t->weld);
    free(t->welded_first);
    free(t->triangles);
    free(t->triangle_source);
    free(t->island);
    free(t->island_vertex_count);
    free(t->island_triangle_count);
    free(t->island_closed);
    memset(t, 0, sizeof *t);
}
