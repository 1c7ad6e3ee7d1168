/* The uploader's weld over any reader's faces (weld.h). */
#include "scene/weld.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const float *at(const float *base, size_t stride, size_t v)
{
    return (const float *)(const void *)((const char *)base + v * stride);
}

static uint32_t mix(uint32_t h, const void *bytes, size_t n)
{
    const unsigned char *b = bytes;
    for (size_t i = 0; i < n; i++)
        h = (h ^ b[i]) * 16777619u;
    return h;
}

static uint32_t vertex_hash(const am_weld_view *w, size_t v)
{
    uint32_t h = 2166136261u;
    const float *p = at(w->pos, w->pos_stride, v);
    for (int k = 0; k < 3; k++) {
        float x = p[k] == 0 ? 0.0f : p[k]; /* -0 and 0 are one position */
        h = mix(h, &x, sizeof x);
    }
    if (w->nrm && w->normal_tol <= 0) /* with a tolerance, near normals must meet in one chain */
        h = mix(h, at(w->nrm, w->nrm_stride, v), 3 * sizeof(float));
    if (w->uv)
        h = mix(h, at(w->uv, w->uv_stride, v), 2 * sizeof(float));
    if (w->influence_start)
        for (size_t i = w->influence_start[v]; i < w->influence_start[v + 1]; i++) {
            h = mix(h, &w->influences[i].joint, sizeof w->influences[i].joint);
            h = mix(h, &w->influences[i].weight, sizeof w->influences[i].weight);
        }
    return h ^ (h >> 15);
}

/* VertexData::operator== as LLVolumeFace::remap applies it: positions by value, normals
 * and UVs by their bytes (normals within normal_tol per component when it is set); and,
 * beyond the uploader (which keys weights by position), the same influences. */
static bool same_vertex(const am_weld_view *w, size_t a, size_t b)
{
    const float *pa = at(w->pos, w->pos_stride, a), *pb = at(w->pos, w->pos_stride, b);
    if (pa[0] != pb[0] || pa[1] != pb[1] || pa[2] != pb[2])
        return false;
    if (w->nrm && w->normal_tol <= 0 &&
        memcmp(at(w->nrm, w->nrm_stride, a), at(w->nrm, w->nrm_stride, b), 3 * sizeof(float)) != 0)
        return false;
    if (w->nrm && w->normal_tol > 0) {
        const float *na = at(w->nrm, w->nrm_stride, a), *nb = at(w->nrm, w->nrm_stride, b);
        for (int k = 0; k < 3; k++)
            if (!(fabsf(na[k] - nb[k]) <= w->normal_tol))
                return false;
    }
    if (w->uv && memcmp(at(w->uv, w->uv_stride, a), at(w->uv, w->uv_stride, b), 2 * sizeof(float)) != 0)
        return false;
    if (w->influence_start) {
        size_t sa = w->influence_start[a], na = w->influence_start[a + 1] - sa;
        size_t sb = w->influence_start[b], nb = w->influence_start[b + 1] - sb;
        if (na != nb)
            return false;
        for (size_t i = 0; i < na; i++)
            if (w->influences[sa + i].joint != w->influences[sb + i].joint ||
                w->influences[sa + i].weight != w->influences[sb + i].weight)
                return false;
    }
    return true;
}

am_status am_weld_face(const am_weld_view *view, uint32_t *indices, size_t index_count, uint32_t *vertex_map,
                       uint32_t *first, size_t *unique, am_error *err)
{
    size_t n = view->vertex_count, ts = 16;
    while (ts < 2 * n + 2)
        ts *= 2;
    uint32_t *table = malloc(ts * sizeof *table);  /* hash slot -> new vertex */
    uint32_t *rep = malloc((n ? n : 1) * sizeof *rep); /* new vertex -> the old one it copies */
    if (!table || !rep) {
        free(table);
        free(rep);
        return am_fail_nomem(err, "weld table");
    }
    for (size_t i = 0; i < ts; i++)
        table[i] = UINT32_MAX;
    for (size_t i = 0; i < n; i++)
        vertex_map[i] = UINT32_MAX;
    size_t out = 0;
    for (size_t k = 0; k < index_count; k++) {
        uint32_t v = indices[k];
        if (vertex_map[v] == UINT32_MAX) {
            size_t s = vertex_hash(view, v) & (ts - 1);
            uint32_t hit = UINT32_MAX;
            while (table[s] != UINT32_MAX) {
                if (same_vertex(view, rep[table[s]], v)) {
                    hit = table[s];
                    break;
                }
                s = (s + 1) & (ts - 1);
            }
            if (hit == UINT32_MAX) {
                hit = (uint32_t)out;
                rep[out++] = v;
                table[s] = hit;
            }
            vertex_map[v] = hit;
        }
        indices[k] = vertex_map[v];
    }
    if (first)
        memcpy(first, rep, out * sizeof *first);
    free(table);
    free(rep);
    *unique = out;
    return AM_OK;
}

/* The welded copy of one mesh, built aside and swapped in only when complete. */
typedef struct welded {
    size_t vertex_count;
    float *positions, *normals, *uvs;
    size_t *influence_start;
    am_scene_influence *influences;
    uint32_t *source_position;
    uint32_t **indices; /* per face */
} welded;

static void welded_free(welded *w, size_t face_count)
{
    free(w->positions);
    free(w->normals);
    free(w->uvs);
    free(w->influence_start);
    free(w->influences);
    free(w->source_position);
    if (w->indices)
        for (size_t f = 0; f < face_count; f++)
            free(w->indices[f]);
    free(w->indices);
    memset(w, 0, sizeof *w);
}

/* Renumber a welded face's vertices in the file's order (each new vertex ranked by the
 * first file vertex it merges) instead of first use, so a reader's vertex order survives
 * where nothing merges (an OBJ of positions only, a glTF without split corners).
 * from[k] receives the file vertex new vertex k copies. The file's vertices walked in
 * order rank each new vertex when its first one comes: the order a sort of the new
 * vertices by their lowest file vertex gives, without the sort. */
static am_status file_order(uint32_t *map, size_t nv, uint32_t *indices, size_t index_count, size_t unique,
                            uint32_t *from, am_error *err)
{
    uint32_t *rank = malloc((unique ? unique : 1) * sizeof *rank); /* new vertex -> its rank */
    if (!rank)
        return am_fail_nomem(err, "weld");
    for (size_t k = 0; k < unique; k++)
        rank[k] = UINT32_MAX;
    uint32_t r = 0;
    for (size_t v = 0; v < nv; v++)
        if (map[v] != UINT32_MAX && rank[map[v]] == UINT32_MAX) {
            from[r] = (uint32_t)v;
            rank[map[v]] = r++;
        }
    for (size_t k = 0; k < unique; k++)
        if (rank[k] == UINT32_MAX) { /* merged from no file vertex: last, as a sort would put it */
            from[r] = UINT32_MAX;
            rank[k] = r++;
        }
    for (size_t k = 0; k < index_count; k++)
        indices[k] = rank[indices[k]];
    free(rank);
    return AM_OK;
}

static am_status weld_mesh(am_scene_mesh *m, am_error *err)
{
    am_weld_view view = {m->positions, 3 * sizeof(float), m->normals, 3 * sizeof(float), m->uvs, 2 * sizeof(float),
                         m->influence_start, m->influences, m->vertex_count, AM_WELD_NORMAL_TOL};
    size_t nv = m->vertex_count, nf = m->face_count;
    welded w = {0};
    uint32_t *map = malloc((nv ? nv : 1) * sizeof *map);
    size_t total = 0;
    for (size_t f = 0; f < nf; f++)
        total += m->faces[f].index_count;
    /* new vertex -> old vertex, over all faces (each face's run after the previous one's) */
    uint32_t *from = malloc((total ? total : 1) * sizeof *from);
    w.indices = calloc(nf ? nf : 1, sizeof *w.indices);
    am_status st = map && from && w.indices ? AM_OK : am_fail_nomem(err, "weld");
    for (size_t f = 0; !st && f < nf; f++) {
        const am_scene_face *face = &m->faces[f];
        size_t unique = 0;
        w.indices[f] = malloc((face->index_count ? face->index_count : 1) * sizeof **w.indices);
        if (!w.indices[f]) {
            st = am_fail_nomem(err, "weld");
            break;
        }
        memcpy(w.indices[f], face->indices, face->index_count * sizeof **w.indices);
        if ((st = am_weld_face(&view, w.indices[f], face->index_count, map, NULL, &unique, err)) ||
            (st = file_order(map, nv, w.indices[f], face->index_count, unique, &from[w.vertex_count], err)))
            break;
        for (size_t k = 0; k < face->index_count; k++)
            w.indices[f][k] += (uint32_t)w.vertex_count;
        w.vertex_count += unique;
    }
    /* nothing merged, nothing dropped, nothing moved: keep the mesh as it is */
    bool identity = !st && w.vertex_count == nv;
    for (size_t v = 0; identity && v < nv; v++)
        identity = from[v] == v;
    if (st || identity) {
        free(map);
        free(from);
        welded_free(&w, nf);
        return st;
    }
    size_t n = w.vertex_count ? w.vertex_count : 1;
    w.positions = malloc(3 * n * sizeof(float));
    w.normals = m->normals ? malloc(3 * n * sizeof(float)) : NULL;
    w.uvs = m->uvs ? malloc(2 * n * sizeof(float)) : NULL;
    w.source_position = m->source_position ? malloc(n * sizeof(uint32_t)) : NULL;
    size_t ninf = 0;
    if (m->influence_start)
        for (size_t k = 0; k < w.vertex_count; k++)
            ninf += m->influence_start[from[k] + 1] - m->influence_start[from[k]];
    w.influence_start = m->influence_start ? malloc((n + 1) * sizeof(size_t)) : NULL;
    w.influences = m->influence_start ? malloc((ninf ? ninf : 1) * sizeof(am_scene_influence)) : NULL;
    if (!w.positions || (m->normals && !w.normals) || (m->uvs && !w.uvs) ||
        (m->source_position && !w.source_position) || (m->influence_start && (!w.influence_start || !w.influences))) {
        free(map);
        free(from);
        welded_free(&w, nf);
        return am_fail_nomem(err, "weld");
    }
    size_t inf = 0;
    for (size_t k = 0; k < w.vertex_count; k++) {
        size_t v = from[k];
        memcpy(&w.positions[3 * k], &m->positions[3 * v], 3 * sizeof(float));
        if (w.normals)
            memcpy(&w.normals[3 * k], &m->normals[3 * v], 3 * sizeof(float));
        if (w.uvs)
            memcpy(&w.uvs[2 * k], &m->uvs[2 * v], 2 * sizeof(float));
        if (w.source_position)
            w.source_position[k] = m->source_position[v];
        if (w.influence_start) {
            w.influence_start[k] = inf;
            for (size_t i = m->influence_start[v]; i < m->influence_start[v + 1]; i++)
                w.influences[inf++] = m->influences[i];
        }
    }
    if (w.influence_start)
        w.influence_start[w.vertex_count] = inf;
    free(map);
    free(from);
    free(m->positions);
    free(m->normals);
    free(m->uvs);
    free(m->influence_start);
    free(m->influences);
    free(m->source_position);
    m->vertex_count = w.vertex_count;
    m->positions = w.positions;
    m->normals = w.normals;
    m->uvs = w.uvs;
    m->influence_start = w.influence_start;
    m->influences = w.influences;
    m->source_position = w.source_position;
    for (size_t f = 0; f < nf; f++) {
        free(m->faces[f].indices);
        m->faces[f].indices = w.indices[f];
    }
    free(w.indices);
    return AM_OK;
}

am_status am_scene_weld(am_scene *scene, am_weld_stats *stats, am_error *err)
{
    am_weld_stats s = {0};
    am_status st = AM_OK;
    for (size_t i = 0; i < scene->mesh_count && !st; i++) {
        am_scene_mesh *m = &scene->meshes[i];
        if (!m->face_count || !m->vertex_count)
            continue;
        size_t before = m->vertex_count;
        st = weld_mesh(m, err);
        s.vertices_before += before;
        s.vertices_after += m->vertex_count;
        s.meshes_welded += m->vertex_count != before;
    }
    if (stats)
        *stats = s;
    return st;
}
