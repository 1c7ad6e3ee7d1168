/* The test creatures as rigs, subdivision with weights carried (test_creature.h). */
#include "bench/perf/support/test_creature.h"

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/grow.h"
#include "core/io.h"
#include "bench/perf/support/test_random.h"

#define MAX_CARRIED 8 /* influences kept per subdivided vertex */

static am_status grow(void **p, size_t *cap, size_t need, size_t elem, am_error *err)
{
    return am_grow(p, cap, need, elem, "test creature", err);
}

static am_status load_joints(const char *path, am_rig *r, am_error *err)
{
    json_error_t je;
    json_t *root = json_load_file(path, 0, &je);
    if (!root)
        return am_fail(err, AM_ERR_IO, "%s: line %d: %s", path, je.line, je.text);
    json_t *joints = json_object_get(root, "joints");
    am_status st = AM_OK;
    size_t n = json_array_size(joints);
    if (n == 0) {
        st = am_fail(err, AM_ERR_INVALID, "%s: joints: expected a non-empty array", path);
        goto done;
    }
    r->joints = calloc(n, sizeof *r->joints);
    if (!r->joints) {
        st = am_fail_nomem(err, "test creature joints");
        goto done;
    }
    r->joint_count = n;
    for (size_t i = 0; i < n; i++) {
        json_t *j = json_array_get(joints, i), *head = json_object_get(j, "head");
        const char *name = json_string_value(json_object_get(j, "name"));
        if (!name || json_array_size(head) != 3) {
            st = am_fail(err, AM_ERR_INVALID, "%s: joints[%zu]: expected name and head [x, y, z]", path, i);
            goto done;
        }
        r->joints[i].name = am_strdup(name);
        if (!r->joints[i].name) {
            st = am_fail_nomem(err, "test creature joints");
            goto done;
        }
        r->joints[i].world = am_v3(json_number_value(json_array_get(head, 0)), json_number_value(json_array_get(head, 1)),
                                   json_number_value(json_array_get(head, 2)));
    }
done:
    json_decref(root);
    return st;
}

static const char *next_line(const char *p, const char *end)
{
    while (p < end && *p != '\n')
        p++;
    return p < end ? p + 1 : end;
}

static am_status load_obj(const char *path, am_rig *r, am_error *err)
{
    uint8_t *data;
    size_t size, vcap = 0, tcap = 0, line = 0;
    am_status st = am_read_file(path, &data, &size, err);
    if (st)
        return st;
    const char *p = (const char *)data, *end = p + size;
    for (; p < end; p = next_line(p, end)) {
        line++;
        if (p[0] == 'v' && p[1] == ' ') {
            if ((st = grow((void **)&r->positions, &vcap, 3 * (r->vertex_count + 1), sizeof(float), err)))
                break;
            char *q = (char *)p + 2;
            for (int k = 0; k < 3; k++)
                r->positions[3 * r->vertex_count + k] = strtof(q, &q);
            r->vertex_count++;
        } else if (p[0] == 'f' && p[1] == ' ') {
            long idx[64];
            int n = 0;
            char *q = (char *)p + 1;
            while (n < 64) {
                char *e;
                long v = strtol(q, &e, 10);
                if (e == q)
                    break;
                idx[n++] = v;
                q = e;
                while (*q && *q != ' ' && *q != '\t' && *q != '\n' && *q != '\r')
                    q++; /* skip /vt/vn */
            }
            for (int k = 0; k < n; k++) {
                long v = idx[k] < 0 ? (long)r->vertex_count + idx[k] : idx[k] - 1;
                if (v < 0 || (size_t)v >= r->vertex_count) {
                    st = am_fail(err, AM_ERR_INVALID, "%s: line %zu: vertex index %ld out of range", path, line, idx[k]);
                    goto done;
                }
                idx[k] = v;
            }
            for (int k = 2; k < n; k++) { /* fan */
                if ((st = grow((void **)&r->triangles, &tcap, 3 * (r->triangle_count + 1), sizeof(uint32_t), err)))
                    goto done;
                uint32_t *t = &r->triangles[3 * r->triangle_count++];
                t[0] = (uint32_t)idx[0], t[1] = (uint32_t)idx[k - 1], t[2] = (uint32_t)idx[k];
            }
        }
    }
done:
    free(data);
    if (!st && (r->vertex_count < 3 || r->triangle_count == 0))
        st = am_fail(err, AM_ERR_INVALID, "%s: no triangles", path);
    return st;
}

static int joint_named(const am_rig *r, const char *name, size_t len)
{
    for (size_t j = 0; j < r->joint_count; j++)
        if (strlen(r->joints[j].name) == len && memcmp(r->joints[j].name, name, len) == 0)
            return (int)j;
    return -1;
}

static am_status load_weights(const char *path, am_rig *r, am_error *err)
{
    uint8_t *data;
    size_t size, cap = 0, count = 0, vcap = 0, line = 1;
    am_status st = am_read_file(path, &data, &size, err);
    if (st)
        return st;
    size_t *vert = NULL;
    am_rig_influence *inf = NULL;
    const char *p = (const char *)data, *end = p + size;
    p = next_line(p, end); /* header */
    for (; p < end; p = next_line(p, end)) {
        line++;
        char *q;
        unsigned long v = strtoul(p, &q, 10);
        if (q == p || *q != ',')
            continue;
        const char *bone = q + 1, *comma = memchr(bone, ',', (size_t)(end - bone));
        if (!comma) {
            st = am_fail(err, AM_ERR_INVALID, "%s: line %zu: expected vertex,bone,weight", path, line);
            break;
        }
        int j = joint_named(r, bone, (size_t)(comma - bone));
        double w = strtod(comma + 1, NULL);
        if (j < 0 || v >= r->vertex_count) {
            st = am_fail(err, AM_ERR_INVALID, "%s: line %zu: unknown bone or vertex out of range", path, line);
            break;
        }
        if ((st = grow((void **)&inf, &cap, count + 1, sizeof *inf, err)) ||
            (st = grow((void **)&vert, &vcap, count + 1, sizeof *vert, err)))
            break;
        inf[count] = (am_rig_influence){j, w};
        vert[count++] = v;
    }
    free(data);
    size_t n = r->vertex_count;
    if (!st) {
        /* group by vertex (counting sort keeps each vertex's file order) */
        r->weight_start = calloc(n + 1, sizeof *r->weight_start);
        r->influences = malloc((count ? count : 1) * sizeof *r->influences);
        size_t *at = malloc(n * sizeof *at);
        if (!r->weight_start || !r->influences || !at)
            st = am_fail_nomem(err, "test creature weights");
        else {
            for (size_t i = 0; i < count; i++)
                r->weight_start[vert[i] + 1]++;
            for (size_t v = 0; v < n; v++)
                r->weight_start[v + 1] += r->weight_start[v];
            memcpy(at, r->weight_start, n * sizeof *at);
            for (size_t i = 0; i < count; i++)
                r->influences[at[vert[i]]++] = inf[i];
        }
        free(at);
    }
    free(inf);
    free(vert);
    return st;
}

void am_test_creature_normals(am_rig *r)
{
    size_t n = r->vertex_count;
    double *acc = calloc(3 * n, sizeof *acc);
    if (!acc)
        return;
    for (size_t t = 0; t < r->triangle_count; t++) {
        const uint32_t *v = &r->triangles[3 * t];
        const float *a = &r->positions[3 * v[0]], *b = &r->positions[3 * v[1]], *c = &r->positions[3 * v[2]];
        double e1[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]}, e2[3] = {c[0] - a[0], c[1] - a[1], c[2] - a[2]};
        double nn[3] = {e1[1] * e2[2] - e1[2] * e2[1], e1[2] * e2[0] - e1[0] * e2[2], e1[0] * e2[1] - e1[1] * e2[0]};
        for (int k = 0; k < 3; k++)
            for (int d = 0; d < 3; d++)
                acc[3 * v[k] + d] += nn[d];
    }
    for (size_t i = 0; i < n; i++) {
        double l = sqrt(acc[3 * i] * acc[3 * i] + acc[3 * i + 1] * acc[3 * i + 1] + acc[3 * i + 2] * acc[3 * i + 2]);
        for (int d = 0; d < 3; d++)
            r->normals[3 * i + d] = l > 0 ? (float)(acc[3 * i + d] / l) : 0.0f;
    }
    free(acc);
}

am_status am_test_creature_load(const char *dir, const char *stem, am_rig *out, am_error *err)
{
    char path[4096];
    memset(out, 0, sizeof *out);
    am_status st;
    out->name = am_strdup(stem);
    if (!out->name)
        return am_fail_nomem(err, "test creature");
    snprintf(path, sizeof path, "%s/%s.skeleton.json", dir, stem);
    if ((st = load_joints(path, out, err)))
        goto fail;
    snprintf(path, sizeof path, "%s/%s.obj", dir, stem);
    if ((st = load_obj(path, out, err)))
        goto fail;
    snprintf(path, sizeof path, "%s/%s.blender-heat-weights.csv", dir, stem);
    if ((st = load_weights(path, out, err)))
        goto fail;
    out->normals = malloc(3 * out->vertex_count * sizeof *out->normals);
    out->uvs = calloc(2 * out->vertex_count, sizeof *out->uvs);
    if (!out->normals || !out->uvs) {
        st = am_fail_nomem(err, "test creature");
        goto fail;
    }
    am_test_creature_normals(out);
    out->rgb[0] = out->rgb[1] = out->rgb[2] = 0.8;
    return AM_OK;
fail:
    am_rig_free(out);
    return st;
}

/* --- subdivision --- */

/* Open-addressing map from an edge (lo << 32 | hi) to its index. */
typedef struct edge_map {
    uint64_t *keys; /* 0 = empty (an edge never has lo == hi == 0) */
    uint32_t *ids;
    size_t mask;
} edge_map;

static uint32_t edge_find_or_add(edge_map *m, uint64_t key, uint32_t *count)
{
    size_t h = (size_t)((key * 0x9E3779B97F4A7C15ull) >> 17) & m->mask;
    for (;;) {
        if (m->keys[h] == key)
            return m->ids[h];
        if (m->keys[h] == 0) {
            m->keys[h] = key;
            return m->ids[h] = (*count)++;
        }
        h = (h + 1) & m->mask;
    }
}

static uint64_t edge_key(uint32_t a, uint32_t b)
{
    uint32_t lo = a < b ? a : b, hi = a < b ? b : a;
    return ((uint64_t)lo << 32) | hi;
}

static int cmp_float(const void *a, const void *b)
{
    float x = *(const float *)a, y = *(const float *)b;
    return (x > y) - (x < y);
}

/* One pass: split the want_new longest edges (every edge when there are no more). */
static am_status split_pass(const am_rig *in, size_t want_new, am_rig *out, am_error *err)
{
    size_t nt = in->triangle_count, nv = in->vertex_count;
    edge_map m = {0};
    size_t cap = 1;
    while (cap < 4 * nt)
        cap *= 2;
    m.keys = calloc(cap, sizeof *m.keys);
    m.ids = malloc(cap * sizeof *m.ids);
    m.mask = cap - 1;
    uint32_t *tri_edge = malloc(3 * nt * sizeof *tri_edge);
    uint32_t ne = 0;
    am_status st = AM_OK;
    uint32_t *ea = NULL, *mid = NULL;
    float *len = NULL;
    if (!m.keys || !m.ids || !tri_edge) {
        st = am_fail_nomem(err, "subdivision");
        goto done;
    }
    for (size_t t = 0; t < nt; t++)
        for (int k = 0; k < 3; k++)
            tri_edge[3 * t + k] =
                edge_find_or_add(&m, edge_key(in->triangles[3 * t + k], in->triangles[3 * t + (k + 1) % 3]) + 1, &ne);
    ea = malloc(2 * (size_t)ne * sizeof *ea);
    mid = malloc((size_t)ne * sizeof *mid);
    len = malloc((size_t)ne * sizeof *len);
    if (!ea || !mid || !len) {
        st = am_fail_nomem(err, "subdivision");
        goto done;
    }
    for (size_t t = 0; t < nt; t++)
        for (int k = 0; k < 3; k++) {
            uint32_t e = tri_edge[3 * t + k];
            ea[2 * e] = in->triangles[3 * t + k];
            ea[2 * e + 1] = in->triangles[3 * t + (k + 1) % 3];
        }
    for (uint32_t e = 0; e < ne; e++) {
        const float *a = &in->positions[3 * ea[2 * e]], *b = &in->positions[3 * ea[2 * e + 1]];
        len[e] = (b[0] - a[0]) * (b[0] - a[0]) + (b[1] - a[1]) * (b[1] - a[1]) + (b[2] - a[2]) * (b[2] - a[2]);
    }
    /* Which edges split: all, or the longest want_new (ties by edge order). */
    size_t split_n = want_new < ne ? want_new : ne;
    float thr = -1.0f;
    size_t ties = 0;
    if (split_n < ne) {
        float *tmp = malloc((size_t)ne * sizeof *tmp);
        if (!tmp) {
            st = am_fail_nomem(err, "subdivision");
            goto done;
        }
        memcpy(tmp, len, (size_t)ne * sizeof *tmp);
        qsort(tmp, ne, sizeof *tmp, cmp_float); /* a generator, not timed */
        thr = tmp[ne - split_n];
        free(tmp);
        size_t above = 0;
        for (uint32_t e = 0; e < ne; e++)
            above += len[e] > thr;
        ties = split_n - above; /* edges exactly at thr that also split */
    }
    size_t new_nv = nv + split_n;
    out->vertex_count = new_nv;
    out->positions = malloc(3 * new_nv * sizeof(float));
    out->normals = malloc(3 * new_nv * sizeof(float));
    out->uvs = malloc(2 * new_nv * sizeof(float));
    size_t ninf = in->weight_start[nv] + split_n * MAX_CARRIED;
    out->weight_start = malloc((new_nv + 1) * sizeof *out->weight_start);
    out->influences = malloc(ninf * sizeof *out->influences);
    if (!out->positions || !out->normals || !out->uvs || !out->weight_start || !out->influences) {
        st = am_fail_nomem(err, "subdivision");
        goto done;
    }
    memcpy(out->positions, in->positions, 3 * nv * sizeof(float));
    memcpy(out->normals, in->normals, 3 * nv * sizeof(float));
    memcpy(out->uvs, in->uvs, 2 * nv * sizeof(float));
    memcpy(out->weight_start, in->weight_start, (nv + 1) * sizeof *out->weight_start);
    memcpy(out->influences, in->influences, in->weight_start[nv] * sizeof *out->influences);
    size_t v = nv, at = in->weight_start[nv];
    for (uint32_t e = 0; e < ne; e++) {
        bool s = len[e] > thr || (len[e] == thr && ties > 0 && ties--);
        if (!s) {
            mid[e] = UINT32_MAX;
            continue;
        }
        mid[e] = (uint32_t)v;
        uint32_t a = ea[2 * e], b = ea[2 * e + 1];
        const float *pa = &in->positions[3 * a], *pb = &in->positions[3 * b];
        const float *na = &in->normals[3 * a], *nb = &in->normals[3 * b];
        /* Hermite midpoint: each end's tangent is the edge projected into its tangent plane */
        double d[3] = {pb[0] - pa[0], pb[1] - pa[1], pb[2] - pa[2]};
        double da = d[0] * na[0] + d[1] * na[1] + d[2] * na[2], db = d[0] * nb[0] + d[1] * nb[1] + d[2] * nb[2];
        double nm[3], nl = 0;
        for (int k = 0; k < 3; k++) {
            double ta = d[k] - da * na[k], tb = d[k] - db * nb[k];
            out->positions[3 * v + k] = (float)(0.5 * (pa[k] + pb[k]) + (ta - tb) / 8.0);
            nm[k] = na[k] + nb[k];
            nl += nm[k] * nm[k];
        }
        nl = sqrt(nl);
        for (int k = 0; k < 3; k++)
            out->normals[3 * v + k] = nl > 0 ? (float)(nm[k] / nl) : na[k];
        out->uvs[2 * v] = 0.5f * (in->uvs[2 * a] + in->uvs[2 * b]);
        out->uvs[2 * v + 1] = 0.5f * (in->uvs[2 * a + 1] + in->uvs[2 * b + 1]);
        /* influences: the average of both ends' lists, the largest MAX_CARRIED kept */
        am_rig_influence merged[64];
        size_t mn = 0;
        for (int end = 0; end < 2; end++) {
            uint32_t src = end ? b : a;
            for (size_t i = in->weight_start[src]; i < in->weight_start[src + 1]; i++) {
                size_t k = 0;
                while (k < mn && merged[k].joint != in->influences[i].joint)
                    k++;
                if (k == mn) {
                    if (mn == 64)
                        continue;
                    merged[mn++] = (am_rig_influence){in->influences[i].joint, 0.0};
                }
                merged[k].weight += 0.5 * in->influences[i].weight;
            }
        }
        for (size_t i = 1; i < mn; i++) /* insertion sort, decreasing weight */
            for (size_t k = i; k > 0 && merged[k].weight > merged[k - 1].weight; k--) {
                am_rig_influence t = merged[k];
                merged[k] = merged[k - 1];
                merged[k - 1] = t;
            }
        for (size_t i = 0; i < mn && i < MAX_CARRIED; i++)
            out->influences[at++] = merged[i];
        out->weight_start[++v] = at;
    }
    /* triangles: 1, 2, 3 or 4 per input triangle by its split edges */
    size_t tcap = 4 * nt;
    out->triangles = malloc(3 * tcap * sizeof *out->triangles);
    if (!out->triangles) {
        st = am_fail_nomem(err, "subdivision");
        goto done;
    }
    size_t ot = 0;
#define EMIT(x, y, z)                                                                                                  \
    do {                                                                                                               \
        uint32_t *o_ = &out->triangles[3 * ot++];                                                                      \
        o_[0] = (x), o_[1] = (y), o_[2] = (z);                                                                         \
    } while (0)
    for (size_t t = 0; t < nt; t++) {
        const uint32_t *c = &in->triangles[3 * t];
        uint32_t mm[3] = {mid[tri_edge[3 * t]], mid[tri_edge[3 * t + 1]], mid[tri_edge[3 * t + 2]]};
        int ns = (mm[0] != UINT32_MAX) + (mm[1] != UINT32_MAX) + (mm[2] != UINT32_MAX);
        if (ns == 0)
            EMIT(c[0], c[1], c[2]);
        else if (ns == 3) {
            EMIT(c[0], mm[0], mm[2]);
            EMIT(mm[0], c[1], mm[1]);
            EMIT(mm[2], mm[1], c[2]);
            EMIT(mm[0], mm[1], mm[2]);
        } else {
            /* rotate so that edge 0 (c0 -> c1) is split and, with two, edge 1 is the other */
            int r = 0;
            if (ns == 1)
                r = mm[0] != UINT32_MAX ? 0 : mm[1] != UINT32_MAX ? 1 : 2;
            else
                r = mm[2] == UINT32_MAX ? 0 : mm[0] == UINT32_MAX ? 1 : 2;
            uint32_t a = c[r], b = c[(r + 1) % 3], d = c[(r + 2) % 3];
            uint32_t mab = mm[r], mbd = mm[(r + 1) % 3];
            if (ns == 1) {
                EMIT(a, mab, d);
                EMIT(mab, b, d);
            } else {
                EMIT(mab, b, mbd);
                EMIT(a, mab, mbd);
                EMIT(a, mbd, d);
            }
        }
    }
#undef EMIT
    out->triangle_count = ot;
done:
    free(m.keys);
    free(m.ids);
    free(tri_edge);
    free(ea);
    free(mid);
    free(len);
    return st;
}

static am_status copy_meta(const am_rig *in, const char *name, am_rig *out, am_error *err)
{
    out->name = am_strdup(name ? name : in->name);
    out->joints = calloc(in->joint_count, sizeof *out->joints);
    if (!out->name || !out->joints)
        return am_fail_nomem(err, "subdivision");
    out->joint_count = in->joint_count;
    for (size_t j = 0; j < in->joint_count; j++) {
        out->joints[j].world = in->joints[j].world;
        if (!(out->joints[j].name = am_strdup(in->joints[j].name)))
            return am_fail_nomem(err, "subdivision");
    }
    memcpy(out->rgb, in->rgb, sizeof out->rgb);
    out->textured = in->textured;
    return AM_OK;
}

am_status am_test_creature_subdivide(const am_rig *in, size_t target, const char *name, am_rig *out, am_error *err)
{
    memset(out, 0, sizeof *out);
    if (target < in->vertex_count)
        return am_fail(err, AM_ERR_USAGE, "subdivision: target %zu below the %zu vertices there are", target,
                       in->vertex_count);
    am_rig cur;
    const am_rig *src = in;
    am_status st = AM_OK;
    while (src->vertex_count < target) {
        am_rig next;
        memset(&next, 0, sizeof next);
        st = split_pass(src, target - src->vertex_count, &next, err);
        if (src != in)
            am_rig_free(&cur);
        if (st) {
            am_rig_free(&next);
            return st;
        }
        cur = next;
        src = &cur;
    }
    if (src == in) { /* nothing to split: a plain copy */
        memset(&cur, 0, sizeof cur);
        size_t nv = in->vertex_count, ni = in->weight_start[nv];
        cur.vertex_count = nv;
        cur.triangle_count = in->triangle_count;
        cur.positions = malloc(3 * nv * sizeof(float));
        cur.normals = malloc(3 * nv * sizeof(float));
        cur.uvs = malloc(2 * nv * sizeof(float));
        cur.triangles = malloc(3 * in->triangle_count * sizeof(uint32_t));
        cur.weight_start = malloc((nv + 1) * sizeof(size_t));
        cur.influences = malloc((ni ? ni : 1) * sizeof *cur.influences);
        if (!cur.positions || !cur.normals || !cur.uvs || !cur.triangles || !cur.weight_start || !cur.influences) {
            am_rig_free(&cur);
            return am_fail_nomem(err, "subdivision");
        }
        memcpy(cur.positions, in->positions, 3 * nv * sizeof(float));
        memcpy(cur.normals, in->normals, 3 * nv * sizeof(float));
        memcpy(cur.uvs, in->uvs, 2 * nv * sizeof(float));
        memcpy(cur.triangles, in->triangles, 3 * in->triangle_count * sizeof(uint32_t));
        memcpy(cur.weight_start, in->weight_start, (nv + 1) * sizeof(size_t));
        memcpy(cur.influences, in->influences, ni * sizeof *cur.influences);
    }
    if ((st = copy_meta(in, name, &cur, err))) {
        am_rig_free(&cur);
        return st;
    }
    am_test_creature_normals(&cur);
    *out = cur;
    return AM_OK;
}

void am_test_creature_shuffle(am_rig *rig, uint32_t seed)
{
    uint32_t s = seed ? seed : 1u;
    uint32_t *t = rig->triangles;
    for (size_t i = rig->triangle_count; i > 1; i--) {
        size_t j = am_test_rand(&s) % i;
        for (int k = 0; k < 3; k++) {
            uint32_t x = t[3 * (i - 1) + k];
            t[3 * (i - 1) + k] = t[3 * j + k];
            t[3 * j + k] = x;
        }
    }
    for (size_t i = 0; i < rig->triangle_count; i++) {
        int r = (int)(am_test_rand(&s) % 3);
        uint32_t c[3] = {t[3 * i], t[3 * i + 1], t[3 * i + 2]};
        for (int k = 0; k < 3; k++)
            t[3 * i + k] = c[(k + r) % 3];
    }
}

am_status am_test_creature_sized(const char *dir, size_t n, am_rig *out, am_error *err)
{
    char name[64];
    snprintf(name, sizeof name, "creature_%zuk", (n + 500) / 1000);
    am_rig base;
    am_status st = am_test_creature_load(dir, n <= 10072 ? "creature_10k" : "creature_50k", &base, err);
    if (st)
        return st;
    st = am_test_creature_subdivide(&base, n > base.vertex_count ? n : base.vertex_count, name, out, err);
    am_rig_free(&base);
    return st;
}
