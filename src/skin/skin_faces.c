/* Splitting a mesh into faces of at most `limit` vertices (mesh-asset.md 4.4: U16
 * indices; the uploader starts a new face near 65532). Greedy, in triangle order, so the
 * split is deterministic and each face is a consecutive run of the rig's triangles. */
#include <stdlib.h>
#include <string.h>

#include "skin/skin_internal.h"

void am_skin_face_split_free(am_skin_face_split *faces, size_t count)
{
    for (size_t i = 0; i < count; i++) {
        free(faces[i].vertices);
        free(faces[i].indices);
    }
    memset(faces, 0, count * sizeof *faces);
}

am_status am_skin_split_faces(const uint32_t *triangles, size_t triangle_count, size_t vertex_count, size_t limit,
                              am_skin_face_split *faces, size_t *face_count, am_error *err)
{
    *face_count = 0;
    if (limit < 3 || limit > AM_MESH_MAX_FACE_VERTICES)
        return am_fail(err, AM_ERR_USAGE, "face vertex limit %zu outside 3..%d", limit, AM_MESH_MAX_FACE_VERTICES);
    /* local[v] = local index of rig vertex v in the current face, valid when owner[v] == face+1 */
    uint32_t *local = malloc(vertex_count * sizeof *local);
    uint32_t *owner = calloc(vertex_count, sizeof *owner);
    if (!local || !owner) {
        free(local);
        free(owner);
        return am_fail_nomem(err, "face split");
    }
    am_status st = AM_OK;
    size_t t = 0;
    while (t < triangle_count) {
        if (*face_count == AM_MESH_MAX_FACES) {
            st = am_fail(err, AM_ERR_INVALID,
                         "the mesh needs more than %d faces of at most %zu vertices (triangle %zu onward does not fit); "
                         "split it into several objects",
                         AM_MESH_MAX_FACES, limit, t);
            break;
        }
        am_skin_face_split *f = &faces[(*face_count)++];
        memset(f, 0, sizeof *f);
        uint32_t id = (uint32_t)*face_count;
        size_t tri_start = t;
        /* First pass: how many triangles fit. */
        size_t nv = 0;
        while (t < triangle_count) {
            size_t fresh = 0;
            for (int k = 0; k < 3; k++) {
                uint32_t v = triangles[3 * t + k];
                bool seen = owner[v] == id;
                for (int q = 0; q < k && !seen; q++)
                    seen = triangles[3 * t + q] == v;
                if (!seen)
                    fresh++;
            }
            if (nv + fresh > limit)
                break;
            for (int k = 0; k < 3; k++) {
                uint32_t v = triangles[3 * t + k];
                if (owner[v] != id) {
                    owner[v] = id;
                    local[v] = (uint32_t)nv++;
                }
            }
            t++;
        }
        f->first_triangle = tri_start;
        f->vertex_count = nv;
        f->index_count = 3 * (t - tri_start);
        f->vertices = malloc((nv ? nv : 1) * sizeof *f->vertices);
        f->indices = malloc((f->index_count ? f->index_count : 1) * sizeof *f->indices);
        if (!f->vertices || !f->indices) {
            st = am_fail_nomem(err, "face split");
            break;
        }
        for (size_t i = 3 * tri_start; i < 3 * t; i++) {
            uint32_t v = triangles[i];
            f->indices[i - 3 * tri_start] = local[v];
            f->vertices[local[v]] = v;
        }
    }
    free(local);
    free(owner);
    if (st) {
        am_skin_face_split_free(faces, *face_count);
        *face_count = 0;
    }
    return st;
}
