/* Splitting a mesh into faces of at most `limit` vertices (docs/reference/mesh-asset.md#triangle-lists: U16 indices;
 * the uploader starts a new face near 65532; at most 8 faces).
 *
 * A mesh whose vertices all fit is one face, its triangles in their own order. A bigger
 * mesh is split by space and by dominant joint, never by input order (an input order that
 * jumps around the body gave faces interleaved like stripes: every vertex on a face border
 * is written once per face, 1.94x the vertices at 200k, and each face's border is locked
 * in its LODs, so they could not reduce):
 *   - each triangle belongs to the region of its corners' dominant joint (the majority; a
 *     tie goes to the joint first in the skeleton walk);
 *   - regions follow one another in a depth-first walk of the skin's joint tree (pelvis,
 *     spine, chest, neck, head, then each limb down to its tip), so regions next to each
 *     other in the sequence touch in the mesh;
 *   - inside a region the triangles are ordered along the region's main axis (principal
 *     component of its triangle centres), so a cut inside a region is a slice across it;
 *   - faces are filled greedily along that sequence; when a face is full, it ends at the
 *     last region boundary instead if that leaves it at least 60% full: a cut along a region
 *     boundary lies where the weight classes meet, which the LODs keep anyway.
 * Deterministic for a given triangle order; any triangle order gives compact faces.
 *
 * A rig with its own faces (rig.h face_start: a file's materials, as the uploader cut them)
 * keeps them: no face crosses a boundary between two of them, the triangles stay in their
 * order, and one of them is cut further (greedily, in order) only above the limit. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/radix.h"
#include "skin/skin_internal.h"

#define BOUNDARY_FILL 0.6 /* a face may end at a region boundary once this full */

void am_skin_face_split_free(am_skin_face_split *faces, size_t count)
{
    for (size_t i = 0; i < count; i++) {
        free(faces[i].vertices);
        free(faces[i].indices);
    }
    memset(faces, 0, count * sizeof *faces);
}

/* Pre-order rank of each skin joint in a walk of the skin's joint tree (children in skin
 * order). */
static void joint_ranks(const am_skin_summary *sum, uint32_t *rank)
{
    size_t n = sum->joint_count, next = 0;
    int stack[AM_MAX_JOINTS_PER_MESH];
    size_t sp = 0;
    for (size_t j = 0; j < n; j++)
        rank[j] = UINT32_MAX;
    for (size_t root = 0; root < n; root++) {
        if (sum->joints[root].parent >= 0 && sum->joints[root].parent < (int)n)
            continue; /* not a root */
        stack[sp++] = (int)root;
        while (sp) {
            int j = stack[--sp];
            rank[j] = (uint32_t)next++;
            for (size_t c = n; c-- > 0;) /* pushed in reverse: popped in skin order */
                if (sum->joints[c].parent == j && rank[c] == UINT32_MAX && sp < AM_MAX_JOINTS_PER_MESH)
                    stack[sp++] = (int)c;
        }
    }
    for (size_t j = 0; j < n; j++) /* anything the walk missed (not a tree): after it */
        if (rank[j] == UINT32_MAX)
            rank[j] = (uint32_t)next++;
}

/* The principal axis of a region from its sums (power iteration on the covariance). */
static void main_axis(const double s[3], const double ss[6], double n, double axis[3])
{
    double m[3] = {s[0] / n, s[1] / n, s[2] / n};
    double c[3][3] = {{ss[0] / n - m[0] * m[0], ss[1] / n - m[0] * m[1], ss[2] / n - m[0] * m[2]},
                      {0, ss[3] / n - m[1] * m[1], ss[4] / n - m[1] * m[2]},
                      {0, 0, ss[5] / n - m[2] * m[2]}};
    c[1][0] = c[0][1], c[2][0] = c[0][2], c[2][1] = c[1][2];
    /* start from the axis of largest variance */
    int k = c[0][0] >= c[1][1] && c[0][0] >= c[2][2] ? 0 : c[1][1] >= c[2][2] ? 1 : 2;
    double v[3] = {0, 0, 0};
    v[k] = 1;
    for (int it = 0; it < 32; it++) {
        double w[3];
        for (int r = 0; r < 3; r++)
            w[r] = c[r][0] * v[0] + c[r][1] * v[1] + c[r][2] * v[2];
        double l = sqrt(w[0] * w[0] + w[1] * w[1] + w[2] * w[2]);
        if (!(l > 1e-30))
            break;
        for (int r = 0; r < 3; r++)
            v[r] = w[r] / l;
    }
    memcpy(axis, v, sizeof v);
}

am_status am_skin_spatial_order(const am_skin_result *res, uint32_t *order, uint32_t *region_of, am_error *err)
{
    size_t nt = res->triangle_count, nj = res->summary.joint_count;
    uint32_t rank[AM_MAX_JOINTS_PER_MESH];
    joint_ranks(&res->summary, rank);
    uint32_t *key = malloc((nt ? nt : 1) * sizeof *key);
    double (*sums)[10] = calloc(nj ? nj : 1, sizeof *sums); /* n, s[3], ss[6] per region */
    double (*axis)[3] = malloc((nj ? nj : 1) * sizeof *axis);
    if (!key || !sums || !axis) {
        free(key);
        free(sums);
        free(axis);
        return am_fail_nomem(err, "face split");
    }
    for (size_t t = 0; t < nt; t++) {
        const uint32_t *c = &res->triangles[3 * t];
        uint32_t j[3];
        for (int k = 0; k < 3; k++) {
            uint8_t dj = res->weight_joint[AM_MAX_INFLUENCES * (size_t)c[k]];
            j[k] = dj < nj ? dj : 0;
        }
        /* the majority, else the one first in the walk */
        uint32_t r = j[0] == j[1] || j[0] == j[2] ? j[0] : j[1] == j[2] ? j[1] : j[0];
        if (j[0] != j[1] && j[0] != j[2] && j[1] != j[2])
            for (int k = 1; k < 3; k++)
                if (rank[j[k]] < rank[r])
                    r = j[k];
        region_of[t] = r;
        double p[3];
        for (int k = 0; k < 3; k++)
            p[k] = (res->positions[3 * (size_t)c[0] + k] + res->positions[3 * (size_t)c[1] + k] +
                    res->positions[3 * (size_t)c[2] + k]) / 3.0;
        double *s = sums[r];
        s[0] += 1;
        s[1] += p[0], s[2] += p[1], s[3] += p[2];
        s[4] += p[0] * p[0], s[5] += p[0] * p[1], s[6] += p[0] * p[2];
        s[7] += p[1] * p[1], s[8] += p[1] * p[2], s[9] += p[2] * p[2];
    }
    for (size_t r = 0; r < nj; r++)
        if (sums[r][0] > 0)
            main_axis(&sums[r][1], &sums[r][4], sums[r][0], axis[r]);
    for (size_t t = 0; t < nt; t++) {
        const uint32_t *c = &res->triangles[3 * t];
        const double *a = axis[region_of[t]];
        double d = 0;
        for (int k = 0; k < 3; k++)
            d += a[k] * (res->positions[3 * (size_t)c[0] + k] + res->positions[3 * (size_t)c[1] + k] +
                         res->positions[3 * (size_t)c[2] + k]);
        key[t] = am_radix_float_key((float)d);
        order[t] = (uint32_t)t;
    }
    am_status st = am_radix_sort_u32(key, order, nt, err);
    if (!st) {
        for (size_t i = 0; i < nt; i++)
            key[i] = rank[region_of[order[i]]];
        st = am_radix_sort_u32(key, order, nt, err); /* stable: the axis order stays inside each region */
    }
    for (size_t t = 0; t < nt; t++)
        region_of[t] = rank[region_of[t]];
    free(key);
    free(sums);
    free(axis);
    return st;
}

/* New corners of triangle t for the face being filled (stamp == id means already in it). */
static size_t fresh_corners(const uint32_t *tri, const uint32_t *stamp, uint32_t id)
{
    size_t fresh = 0;
    for (int k = 0; k < 3; k++) {
        bool seen = stamp[tri[k]] == id;
        for (int q = 0; q < k && !seen; q++)
            seen = tri[q] == tri[k];
        fresh += !seen;
    }
    return fresh;
}

am_status am_skin_split_faces(am_skin_result *res, size_t limit, const size_t *run_start, size_t run_count,
                              am_skin_face_split *faces, size_t *face_count, am_error *err)
{
    *face_count = 0;
    if (limit < 3 || limit > AM_MESH_MAX_FACE_VERTICES)
        return am_fail(err, AM_ERR_USAGE, "face vertex limit %zu outside 3..%d", limit, AM_MESH_MAX_FACE_VERTICES);
    size_t nt = res->triangle_count, nv = res->vertex_count;
    uint32_t *local = malloc((nv ? nv : 1) * sizeof *local);
    uint32_t *stamp = calloc(nv ? nv : 1, sizeof *stamp);
    uint32_t *order = malloc((nt ? nt : 1) * sizeof *order);
    uint32_t *region = NULL, *sorted = NULL;
    am_status st = AM_OK;
    if (!local || !stamp || !order) {
        st = am_fail_nomem(err, "face split");
        goto done;
    }
    size_t used = 0;
    for (size_t i = 0; i < 3 * nt; i++)
        if (stamp[res->triangles[i]] != 1) {
            stamp[res->triangles[i]] = 1;
            used++;
        }
    bool spatial = used > limit && run_count == 0;
    if (spatial) {
        if (!(region = malloc(nt * sizeof *region))) {
            st = am_fail_nomem(err, "face split");
            goto done;
        }
        if ((st = am_skin_spatial_order(res, order, region, err)))
            goto done;
    } else
        for (size_t t = 0; t < nt; t++)
            order[t] = (uint32_t)t;
    uint32_t id = 1;
    size_t pos = 0, run = 0;
    while (pos < nt) {
        /* the rig's own face this one lies in: a face never crosses its end */
        while (run < run_count && run_start[run + 1] <= pos)
            run++;
        size_t run_end = run < run_count ? run_start[run + 1] : nt;
        if (*face_count == AM_MESH_MAX_FACES) {
            st = am_fail(
                err, AM_ERR_INVALID,
                "the mesh needs more than %d faces of at most %zu vertices (%zu vertices, triangle %zu of "
                "%zu onward does not fit): reduce it with a triangle budget (the max_tris option) or split it into "
                "several objects",
                AM_MESH_MAX_FACES, limit, used, pos, nt);
            break;
        }
        /* how far this face reaches */
        id++;
        size_t nvf = 0, end = pos, cut = 0, cut_nv = 0;
        while (end < run_end) {
            const uint32_t *tri = &res->triangles[3 * (size_t)order[end]];
            size_t fresh = fresh_corners(tri, stamp, id);
            if (nvf + fresh > limit)
                break;
            if (spatial && end > pos && region[order[end]] != region[order[end - 1]]) {
                cut = end;
                cut_nv = nvf;
            }
            for (int k = 0; k < 3; k++)
                stamp[tri[k]] = id;
            nvf += fresh;
            end++;
        }
        if (end < nt && cut > pos && (double)cut_nv >= BOUNDARY_FILL * (double)limit)
            end = cut;
        /* the face itself, with a fresh stamp */
        id++;
        am_skin_face_split *f = &faces[(*face_count)++];
        memset(f, 0, sizeof *f);
        f->first_triangle = pos;
        f->index_count = 3 * (end - pos);
        f->indices = malloc((f->index_count ? f->index_count : 1) * sizeof *f->indices);
        f->vertices = malloc((limit < 3 * (end - pos) ? limit : 3 * (end - pos) + 1) * sizeof *f->vertices);
        if (!f->vertices || !f->indices) {
            st = am_fail_nomem(err, "face split");
            break;
        }
        size_t n = 0;
        for (size_t i = pos; i < end; i++) {
            const uint32_t *tri = &res->triangles[3 * (size_t)order[i]];
            for (int k = 0; k < 3; k++) {
                uint32_t v = tri[k];
                if (stamp[v] != id) {
                    stamp[v] = id;
                    local[v] = (uint32_t)n;
                    f->vertices[n++] = v;
                }
                f->indices[3 * (i - pos) + (size_t)k] = local[v];
            }
        }
        f->vertex_count = n;
        pos = end;
    }
    if (!st && spatial) { /* the result's triangles in face order */
        if (!(sorted = malloc(3 * nt * sizeof *sorted)))
            st = am_fail_nomem(err, "face split");
        else {
            for (size_t i = 0; i < nt; i++)
                memcpy(&sorted[3 * i], &res->triangles[3 * (size_t)order[i]], 3 * sizeof *sorted);
            free(res->triangles);
            res->triangles = sorted;
            sorted = NULL;
        }
    }
done:
    free(local);
    free(stamp);
    free(order);
    free(region);
    free(sorted);
    if (st) {
        am_skin_face_split_free(faces, *face_count);
        *face_count = 0;
    }
    return st;
}
