/* Lower LODs with meshoptimizer (mesh-asset.md 3.2: the uploader always sends four LODs,
 * generated with meshoptimizer too). meshopt_simplify only removes vertices, so the
 * vertices it keeps carry their own weights and UVs unchanged.
 *
 * Weight-aware: a plain simplifier sees only positions and will happily remove a hinge
 * vertex on a flat face (zero geometric error) although the skin bends there. So the
 * triangles are grouped by weight class: a triangle whose three vertices share a class
 * belongs to it, any other triangle is kept as is. Each class is simplified on its own
 * with its border locked, so the lines where the weights change stay in every LOD.
 * For the medium LOD a class is the dominant joint and its weight in quarter bands (1.0
 * exactly, [0.75, 1), [0.5, 0.75), below 0.5): rigid parts (one joint at 1.0) move by one
 * matrix and simplify with no deformation change at all; smooth blends keep a vertex line
 * at every quarter of the blend, bounding the change of the blend profile. The distant
 * low and lowest LODs use the dominant joint alone: they keep the lines where one joint's
 * region meets the next (a hinge stays a hinge) and reach the usual reduction. */
#include <math.h>
#include <meshoptimizer.h>
#include <stdlib.h>
#include <string.h>

#include "skin/skin_internal.h"

typedef struct tri_class {
    uint32_t cls;
    uint32_t tri;
} tri_class;

static int tri_class_cmp(const void *a, const void *b)
{
    const tri_class *x = a, *y = b;
    if (x->cls != y->cls)
        return x->cls < y->cls ? -1 : 1;
    return x->tri < y->tri ? -1 : (x->tri > y->tri);
}

#define MIXED UINT32_MAX

am_status am_skin_simplify(const uint32_t *indices, size_t index_count, const float *pos, size_t vertex_count,
                           const uint32_t *vertex_class, double ratio, double error, uint32_t **out,
                           size_t *out_count, am_error *err)
{
    size_t tris = index_count / 3;
    *out = malloc((index_count ? index_count : 1) * sizeof **out);
    tri_class *tc = malloc((tris ? tris : 1) * sizeof *tc);
    uint32_t *group = malloc((index_count ? index_count : 1) * sizeof *group);
    uint32_t *simplified = malloc((index_count ? index_count : 1) * sizeof *simplified);
    if (!*out || !tc || !group || !simplified) {
        free(tc);
        free(group);
        free(simplified);
        free(*out);
        *out = NULL;
        return am_fail_nomem(err, "LOD indices");
    }
    for (size_t t = 0; t < tris; t++) {
        uint32_t c = vertex_class[indices[3 * t]];
        if (vertex_class[indices[3 * t + 1]] != c || vertex_class[indices[3 * t + 2]] != c)
            c = MIXED;
        tc[t] = (tri_class){c, (uint32_t)t};
    }
    qsort(tc, tris, sizeof *tc, tri_class_cmp);
    size_t n = 0;
    for (size_t a = 0; a < tris;) {
        size_t b = a;
        while (b < tris && tc[b].cls == tc[a].cls)
            b++;
        size_t gn = 0;
        for (size_t k = a; k < b; k++)
            for (int c = 0; c < 3; c++)
                group[gn++] = indices[3 * tc[k].tri + c];
        size_t target = (size_t)llround((double)(b - a) * ratio) * 3;
        size_t got = 0;
        if (tc[a].cls != MIXED && gn > 3 && target < gn)
            got = meshopt_simplify(simplified, group, gn, pos, vertex_count, 3 * sizeof(float),
                                   target < 3 ? 3 : target, (float)error, meshopt_SimplifyLockBorder, NULL);
        if (got == 0) { /* mixed weights, nothing to gain, or collapsed to nothing: keep it */
            memcpy(simplified, group, gn * sizeof *group);
            got = gn;
        }
        memcpy(*out + n, simplified, got * sizeof *simplified);
        n += got;
        a = b;
    }
    free(tc);
    free(group);
    free(simplified);
    if (n == 0) { /* an empty input stays empty; never lose the LOD above */
        memcpy(*out, indices, index_count * sizeof **out);
        n = index_count;
    }
    *out_count = n;
    return AM_OK;
}

typedef struct weight_key {
    uint8_t joint; /* dominant joint */
    uint8_t band;  /* 4: weight 1.0 (one influence), 3: [0.75, 1), 2: [0.5, 0.75), 1: below */
    uint32_t local;
} weight_key;

static int weight_key_cmp(const void *a, const void *b)
{
    const weight_key *x = a, *y = b;
    if (x->joint != y->joint)
        return x->joint < y->joint ? -1 : 1;
    return x->band < y->band ? -1 : (x->band > y->band);
}

am_status am_skin_weight_classes(const am_skin_result *res, const uint32_t *vertices, size_t count,
                                 bool bands, uint32_t *out, am_error *err)
{
    weight_key *keys = calloc(count ? count : 1, sizeof *keys);
    if (!keys)
        return am_fail_nomem(err, "LOD weight classes");
    for (size_t i = 0; i < count; i++) {
        size_t v = vertices[i];
        uint8_t n = res->weight_count[v];
        size_t best = 0;
        for (size_t s = 1; s < n && s < AM_MAX_INFLUENCES; s++)
            if (res->weight_code[AM_MAX_INFLUENCES * v + s] > res->weight_code[AM_MAX_INFLUENCES * v + best])
                best = s;
        double w = res->weight_code[AM_MAX_INFLUENCES * v + best] / 65535.0;
        keys[i].joint = res->weight_joint[AM_MAX_INFLUENCES * v + best];
        keys[i].band = !bands ? 0 : n <= 1 ? 4 : w >= 0.75 ? 3 : w >= 0.5 ? 2 : 1;
        keys[i].local = (uint32_t)i;
    }
    qsort(keys, count, sizeof *keys, weight_key_cmp);
    uint32_t cls = 0;
    for (size_t i = 0; i < count; i++) {
        if (i > 0 && weight_key_cmp(&keys[i - 1], &keys[i]) != 0)
            cls++;
        out[keys[i].local] = cls;
    }
    free(keys);
    return AM_OK;
}
