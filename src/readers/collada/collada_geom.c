/* COLLADA geometry into scene meshes, face by face as the viewer's uploader builds them
 * (lldaeloader.cpp: load_face_from_dom_triangles / _polylist / _polygons, then
 * LLModel::sortVolumeFacesByMaterialName and LLVolumeFace::remap; docs/reference/collada-upload.md#geometry).
 *
 * A face is one primitive element (or a 65,532 cut of one). Its vertices are welded as the
 * uploader welds them: looked up by exact position (-0 equals 0, as std::map's ordering
 * treats them), then the first vertex at that position whose normal is within 1e-5 per
 * component and whose UV is identical (VertexData::operator==). <triangles> never reuses a
 * vertex already in the triangle being built (it adds a twin instead); <polygons> welds
 * exact duplicates. After all primitives, exact duplicates merge and vertices are
 * renumbered in first-use order, unused ones dropped (LLVolumeFace::remap through
 * meshoptimizer), and the faces are sorted by material name, case-insensitively, keeping
 * file order among equal names (the viewer's std::sort leaves that order undefined).
 * Values come from each source's float_array as the uploader reads them: positions and
 * normals 3 per index, UVs 2 per index, whatever the accessor says. */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/io.h"
#include "readers/collada/collada_internal.h"
#include "scene/weld.h"

#define DAE_FACE_CUT 65532u        /* a new face at this many vertices / indices */
#define DAE_FACE_MAX_VERTICES 65534u /* "Vertex number is more than 65534, aborted!" */

typedef struct wvert {
    float p[3], n[3], uv[2];
    uint32_t src; /* COLLADA position index */
} wvert;

typedef struct face_build {
    const char *material; /* borrowed from the XML (NULL: none) */
    wvert *v;
    size_t nv, cap_v;
    uint32_t *idx;
    size_t ni, cap_i;
    /* welding: open-addressed table position -> first vertex; chains in creation order */
    uint32_t *table;
    size_t table_size;
    uint32_t *chain; /* per vertex: next vertex with the same position, UINT32_MAX at the end */
    size_t cap_chain;
} face_build;

typedef struct mesh_build {
    face_build *faces;
    size_t count, cap;
} mesh_build;

typedef struct prim_inputs {
    size_t stride;
    long pos_off, nrm_off, uv_off;
    const double *pos, *nrm, *uv; /* float arrays (NULL when absent) */
    size_t pos_n, nrm_n, uv_n;    /* their value counts */
} prim_inputs;

static void face_free(face_build *f)
{
    free(f->v);
    free(f->idx);
    free(f->table);
    free(f->chain);
    memset(f, 0, sizeof *f);
}

static void mesh_build_free(mesh_build *m)
{
    for (size_t i = 0; i < m->count; i++)
        face_free(&m->faces[i]);
    free(m->faces);
    memset(m, 0, sizeof *m);
}

static face_build *new_face(am_dae_ctx *c, mesh_build *m, const char *material)
{
    if (m->count == m->cap) {
        size_t nc = m->cap ? 2 * m->cap : 8;
        face_build *nf = realloc(m->faces, nc * sizeof *nf);
        if (!nf) {
            am_fail_nomem(c->err, "faces");
            return NULL;
        }
        m->faces = nf;
        m->cap = nc;
    }
    face_build *f = &m->faces[m->count++];
    memset(f, 0, sizeof *f);
    f->material = material;
    return f;
}

static uint32_t pos_hash(const float p[3])
{
    uint32_t h = 2166136261u;
    for (int k = 0; k < 3; k++) {
        float v = p[k] == 0 ? 0.0f : p[k]; /* -0 and 0 are one key */
        uint32_t b;
        memcpy(&b, &v, 4);
        h = (h ^ b) * 16777619u;
        h ^= h >> 15;
    }
    return h;
}

static bool same_pos(const float a[3], const float b[3])
{
    return a[0] == b[0] && a[1] == b[1] && a[2] == b[2];
}

/* VertexData::operator==: position and normal within F_APPROXIMATELY_ZERO per component
 * (positions are already equal here), UV exactly. */
static bool same_vertex(const wvert *a, const wvert *b, bool exact)
{
    for (int k = 0; k < 3; k++)
        if (exact ? a->n[k] != b->n[k] : !(fabsf(a->n[k] - b->n[k]) < 0.00001f))
            return false;
    return a->uv[0] == b->uv[0] && a->uv[1] == b->uv[1];
}

static am_status table_rehash(am_dae_ctx *c, face_build *f)
{
    size_t ns = f->table_size ? 2 * f->table_size : 1024;
    uint32_t *t = malloc(ns * sizeof *t);
    if (!t)
        return am_fail_nomem(c->err, "weld table");
    for (size_t i = 0; i < ns; i++)
        t[i] = UINT32_MAX;
    /* Re-insert every chain head (a vertex is a head when no earlier vertex shares its
     * position: the first vertex at each position in creation order). */
    for (size_t v = 0; v < f->nv; v++) {
        size_t h = pos_hash(f->v[v].p) & (ns - 1);
        bool dup = false;
        while (t[h] != UINT32_MAX) {
            if (same_pos(f->v[t[h]].p, f->v[v].p)) {
                dup = true;
                break;
            }
            h = (h + 1) & (ns - 1);
        }
        if (!dup)
            t[h] = (uint32_t)v;
    }
    free(f->table);
    f->table = t;
    f->table_size = ns;
    return AM_OK;
}

static am_status push_index(am_dae_ctx *c, face_build *f, uint32_t i)
{
    if (f->ni == f->cap_i) {
        size_t nc = f->cap_i ? 2 * f->cap_i : 1024;
        uint32_t *n = realloc(f->idx, nc * sizeof *n);
        if (!n)
            return am_fail_nomem(c->err, "face indices");
        f->idx = n;
        f->cap_i = nc;
    }
    f->idx[f->ni++] = i;
    return AM_OK;
}

/* The welded index of `cv` in face f (adding it when new); UINT32_MAX when the face is
 * full. `exact`: <polygons> (std::map<VertexData>: every value equal). `avoid` lists up to
 * two indices of the triangle being built that may not be reused (<triangles> only). */
static am_status weld(am_dae_ctx *c, face_build *f, const wvert *cv, bool exact, const uint32_t *avoid, size_t n_avoid,
                      uint32_t *out)
{
    am_status st;
    if ((f->nv + 1) * 2 > f->table_size && (st = table_rehash(c, f)))
        return st;
    size_t mask = f->table_size - 1, h = pos_hash(cv->p) & mask;
    uint32_t head = UINT32_MAX;
    while (f->table[h] != UINT32_MAX) {
        if (same_pos(f->v[f->table[h]].p, cv->p)) {
            head = f->table[h];
            break;
        }
        h = (h + 1) & mask;
    }
    for (uint32_t k = head; k != UINT32_MAX; k = f->chain[k]) {
        if (!same_vertex(&f->v[k], cv, exact))
            continue;
        bool clash = false;
        for (size_t a = 0; a < n_avoid; a++)
            clash |= avoid[a] == k;
        if (!clash) {
            *out = k;
            return AM_OK;
        }
        break; /* the uploader looks at the first match only, then adds a twin */
    }
    uint32_t last = head; /* the chain's end, where a new vertex at this position goes */
    while (last != UINT32_MAX && f->chain[last] != UINT32_MAX)
        last = f->chain[last];
    if (f->nv >= DAE_FACE_MAX_VERTICES) {
        *out = UINT32_MAX; /* the caller names the element */
        return AM_OK;
    }
    if (f->nv == f->cap_v) {
        size_t nc = f->cap_v ? 2 * f->cap_v : 1024;
        wvert *nvx = realloc(f->v, nc * sizeof *nvx);
        uint32_t *nch = nvx ? realloc(f->chain, nc * sizeof *nch) : NULL;
        if (nvx)
            f->v = nvx;
        if (!nvx || !nch)
            return am_fail_nomem(c->err, "face vertices");
        f->chain = nch;
        f->cap_v = nc;
    }
    uint32_t id = (uint32_t)f->nv++;
    f->v[id] = *cv;
    f->chain[id] = UINT32_MAX;
    if (head == UINT32_MAX)
        f->table[h] = id;
    else
        f->chain[last] = id;
    *out = id;
    return AM_OK;
}

/* One corner: the values its indices select (bounds-checked; the uploader's reads are not). */
static am_status corner(am_dae_ctx *c, const xmlNode *prim, const prim_inputs *in, const long long *p, bool uv_lenient,
                        bool *uv_short, wvert *out)
{
    memset(out, 0, sizeof *out);
    long long pi = p[in->pos_off];
    if (pi < 0 || (size_t)pi * 3 + 2 >= in->pos_n)
        return am_dae_fail(c, prim, "position index %lld out of range (%zu positions)", pi, in->pos_n / 3);
    for (int k = 0; k < 3; k++)
        out->p[k] = (float)in->pos[3 * (size_t)pi + (size_t)k];
    if (!isfinite(out->p[0]) || !isfinite(out->p[1]) || !isfinite(out->p[2]))
        return am_dae_fail(c, prim, "position %lld is not a number (the uploader: \"Found NaN while loading position "
                                 "data from DAE-Model, invalid model.\")",
                        pi);
    out->src = (uint32_t)pi;
    if (in->nrm) {
        long long ni = p[in->nrm_off];
        if (ni < 0 || (size_t)ni * 3 + 2 >= in->nrm_n)
            return am_dae_fail(c, prim, "normal index %lld out of range (%zu normals)", ni, in->nrm_n / 3);
        for (int k = 0; k < 3; k++)
            out->n[k] = (float)in->nrm[3 * (size_t)ni + (size_t)k];
        if (!isfinite(out->n[0]) || !isfinite(out->n[1]) || !isfinite(out->n[2]))
            return am_dae_fail(c, prim, "normal %lld is not a number (the uploader: \"Found NaN while loading normals "
                                     "from DAE-Model, invalid model.\")",
                            ni);
    }
    if (in->uv) {
        long long ti = p[in->uv_off];
        if (ti < 0 || (size_t)ti * 2 + 1 >= in->uv_n) {
            if (!uv_lenient)
                return am_dae_fail(c, prim, "texture coordinate index %lld out of range (%zu coordinates)", ti,
                                in->uv_n / 2);
            *uv_short = true; /* polylist: "Texture coordinates data is not complete." -> (0, 0) */
        } else {
            out->uv[0] = (float)in->uv[2 * (size_t)ti];
            out->uv[1] = (float)in->uv[2 * (size_t)ti + 1];
        }
        if (!isfinite(out->uv[0]) || !isfinite(out->uv[1]))
            return am_dae_fail(c, prim, "texture coordinate %lld is not a number", ti);
    }
    return AM_OK;
}

/* Arrays the sources hold (parsed once per geometry, kept until the mesh is built). */
typedef struct source_cache {
    const xmlNode **src;
    double **values;
    size_t *count;
    size_t n, cap;
} source_cache;

static void cache_free(source_cache *sc)
{
    for (size_t i = 0; i < sc->n; i++)
        free(sc->values[i]);
    free(sc->src);
    free(sc->values);
    free(sc->count);
    memset(sc, 0, sizeof *sc);
}

static am_status cached_floats(am_dae_ctx *c, source_cache *sc, const xmlNode *src, const double **out, size_t *count)
{
    for (size_t i = 0; i < sc->n; i++)
        if (sc->src[i] == src) {
            *out = sc->values[i];
            *count = sc->count[i];
            return AM_OK;
        }
    xmlNode *fa = am_dae_child(src, "float_array");
    if (!fa)
        return am_dae_fail(c, src, "the source has no <float_array>");
    if (sc->n == sc->cap) {
        size_t nc = sc->cap ? 2 * sc->cap : 8;
        const xmlNode **a = realloc(sc->src, nc * sizeof *a);
        if (a)
            sc->src = a;
        double **b = a ? realloc(sc->values, nc * sizeof *b) : NULL;
        if (b)
            sc->values = b;
        size_t *k = b ? realloc(sc->count, nc * sizeof *k) : NULL;
        if (!a || !b || !k)
            return am_fail_nomem(c->err, "sources");
        sc->count = k;
        sc->cap = nc;
    }
    double *v;
    size_t n;
    am_status st = am_dae_doubles(c, fa, &v, &n);
    if (st)
        return st;
    sc->src[sc->n] = src;
    sc->values[sc->n] = v;
    sc->count[sc->n] = n;
    sc->n++;
    *out = v;
    *count = n;
    return AM_OK;
}

xmlNode *am_dae_input_source(am_dae_ctx *c, const xmlNode *input)
{
    return am_dae_find_id(c, am_dae_attr(input, "source"));
}

static am_status input_offset(am_dae_ctx *c, const xmlNode *input, long *out)
{
    const char *o = am_dae_attr(input, "offset");
    if (!o) {
        *out = 0;
        return AM_OK;
    }
    char *end;
    long v = strtol(o, &end, 10);
    if (end == o || *end || v < 0 || v > 1000)
        return am_dae_fail(c, input, "offset \"%s\" is not an index in 0..1000", o);
    *out = v;
    return AM_OK;
}

/* get_dom_sources: the stride (largest offset + 1) and the position / normal / UV sources
 * with their offsets, inputs in order (a later NORMAL or TEXCOORD replaces an earlier one).
 * `uv_set0_only`: <polygons> reads only TEXCOORD set 0. */
static am_status prim_sources(am_dae_ctx *c, source_cache *sc, const xmlNode *prim, bool uv_set0_only, prim_inputs *in)
{
    memset(in, 0, sizeof *in);
    in->pos_off = in->nrm_off = in->uv_off = -1;
    long max_off = 0;
    const xmlNode *pos_src = NULL, *nrm_src = NULL, *uv_src = NULL;
    am_status st;
    for (xmlNode *k = am_dae_child(prim, "input"); k; k = am_dae_next(k, "input")) {
        long off = 0;
        if ((st = input_offset(c, k, &off)))
            return st;
        max_off = off > max_off ? off : max_off;
        const char *sem = am_dae_attr(k, "semantic");
        if (!sem)
            continue;
        if (strcmp(sem, "VERTEX") == 0) {
            xmlNode *verts = am_dae_input_source(c, k);
            if (!am_dae_is(verts, "vertices"))
                return am_dae_fail(c, k, "VERTEX input names no <vertices> (the uploader: \"Bad element\")");
            for (xmlNode *v = am_dae_child(verts, "input"); v; v = am_dae_next(v, "input")) {
                const char *vs = am_dae_attr(v, "semantic");
                if (vs && strcmp(vs, "POSITION") == 0) {
                    pos_src = am_dae_input_source(c, v);
                    in->pos_off = off;
                } else if (vs && strcmp(vs, "NORMAL") == 0) {
                    nrm_src = am_dae_input_source(c, v);
                    in->nrm_off = off;
                }
            }
        } else if (strcmp(sem, "NORMAL") == 0) {
            nrm_src = am_dae_input_source(c, k);
            in->nrm_off = off;
        } else if (strcmp(sem, "TEXCOORD") == 0) {
            const char *set = am_dae_attr(k, "set");
            if (uv_set0_only && set && strtol(set, NULL, 10) != 0)
                continue;
            uv_src = am_dae_input_source(c, k);
            in->uv_off = off;
        }
    }
    in->stride = (size_t)max_off + 1;
    if (!pos_src)
        return am_dae_fail(c, prim, "no POSITION data (the uploader: \"Unable to process mesh without position data; "
                                 "invalid model.\")");
    if ((st = cached_floats(c, sc, pos_src, &in->pos, &in->pos_n)))
        return st;
    if (nrm_src && (st = cached_floats(c, sc, nrm_src, &in->nrm, &in->nrm_n)))
        return st;
    if (uv_src && (st = cached_floats(c, sc, uv_src, &in->uv, &in->uv_n)))
        return st;
    if (in->pos_n == 0)
        return am_dae_fail(c, prim, "the POSITION source is empty");
    return AM_OK;
}

static am_status vertex_overflow(am_dae_ctx *c, const xmlNode *prim)
{
    return am_dae_fail(c, prim, "a face needs more than %u vertices (the uploader: \"Error: Vertex number is more than "
                             "65534, aborted!\")",
                    DAE_FACE_MAX_VERTICES);
}

/* One corner read (corner) and welded (weld) into face f: its index in *idx. */
static am_status corner_vertex(am_dae_ctx *c, face_build *f, const xmlNode *prim, const prim_inputs *in,
                               const long long *p, bool uv_lenient, bool *uv_short, bool exact, const uint32_t *avoid,
                               size_t n_avoid, uint32_t *idx)
{
    wvert cv;
    am_status st = corner(c, prim, in, p, uv_lenient, uv_short, &cv);
    if (!st)
        st = weld(c, f, &cv, exact, avoid, n_avoid, idx);
    if (!st && *idx == UINT32_MAX)
        st = vertex_overflow(c, prim);
    return st;
}

static am_status read_triangles(am_dae_ctx *c, source_cache *sc, mesh_build *m, const xmlNode *tri)
{
    prim_inputs in;
    am_status st = prim_sources(c, sc, tri, false, &in);
    if (st)
        return st;
    long long *p;
    size_t np;
    if ((st = am_dae_ints(c, am_dae_child(tri, "p"), &p, &np)))
        return st;
    if (np % in.stride || (np / in.stride) % 3) {
        free(p);
        return am_dae_fail(c, tri, "<p> holds %zu indices: not whole triangles of %zu inputs", np, in.stride);
    }
    const char *mat = am_dae_attr(tri, "material");
    face_build *f = np ? new_face(c, m, mat) : NULL;
    if (np && !f) {
        free(p);
        return AM_ERR_NOMEM;
    }
    bool uv_short = false;
    for (size_t i = 0; i < np && !st; i += in.stride) {
        /* "Don't share verts within the same tri": the indices already in this triangle. */
        size_t in_tri = f->ni % 3;
        uint32_t idx = 0;
        if ((st = corner_vertex(c, f, tri, &in, &p[i], false, &uv_short, false,
                                in_tri ? &f->idx[f->ni - in_tri] : NULL, in_tri, &idx)) ||
            (st = push_index(c, f, idx)))
            break;
        if (f->ni % 3 == 0 && f->nv >= DAE_FACE_CUT && i + in.stride < np) {
            if (!(f = new_face(c, m, mat)))
                st = AM_ERR_NOMEM;
            am_scene_note(c->scene, "a face of material '%s' reached %u vertices: the rest starts a new face of the "
                                    "same material (as the uploader cuts it)",
                          mat ? mat : "", DAE_FACE_CUT);
        }
    }
    free(p);
    return st;
}

static am_status read_polylist(am_dae_ctx *c, source_cache *sc, mesh_build *m, const xmlNode *poly)
{
    prim_inputs in;
    am_status st = prim_sources(c, sc, poly, false, &in);
    if (st)
        return st;
    long long *p = NULL, *vc = NULL;
    size_t np, nvc;
    if ((st = am_dae_ints(c, am_dae_child(poly, "p"), &p, &np)))
        return st;
    if (np == 0) { /* the uploader returns early on an empty <p> */
        free(p);
        return AM_OK;
    }
    xmlNode *vcount = am_dae_child(poly, "vcount");
    if (!vcount) {
        free(p);
        return am_dae_fail(c, poly, "no <vcount>");
    }
    if ((st = am_dae_ints(c, vcount, &vc, &nvc))) {
        free(p);
        return st;
    }
    size_t corners = 0, triangles = 0;
    for (size_t i = 0; i < nvc; i++) {
        if (vc[i] < 0 || vc[i] > 1000000) {
            long long bad = vc[i]; /* read before vc is freed */
            free(p);
            free(vc);
            return am_dae_fail(c, vcount, "entry %zu (%lld) is not a vertex count", i, bad);
        }
        corners += (size_t)vc[i];
        triangles += vc[i] >= 3 ? (size_t)vc[i] - 2 : 0;
    }
    if (corners > np / in.stride) {
        free(p);
        free(vc);
        return am_dae_fail(c, vcount, "the vcount list sums to %zu vertices, the index list <p> holds %zu", corners,
                        np / in.stride);
    }
    const char *count_attr = am_dae_attr(poly, "count");
    const char *mat = am_dae_attr(poly, "material");
    if (count_attr && strtoull(count_attr, NULL, 10) != nvc)
        am_scene_note(c->scene, "<polylist material='%s'> count=\"%s\" is not its %zu <vcount> polygons (%zu "
                                "triangles; Avastar 2.x writes the triangle count): read from the vcount list, as the "
                                "uploader does",
                      mat ? mat : "", count_attr, nvc, triangles);
    face_build *f = new_face(c, m, mat);
    if (!f) {
        free(p);
        free(vc);
        return AM_ERR_NOMEM;
    }
    bool uv_short = false, cut_pending = false;
    size_t cur = 0;
    for (size_t poly_i = 0; poly_i < nvc && !st; poly_i++) {
        uint32_t first = 0, last = 0;
        for (long long j = 0; j < vc[poly_i] && !st; j++, cur += in.stride) {
            uint32_t idx = 0;
            if ((st = corner_vertex(c, f, poly, &in, &p[cur], true, &uv_short, false, NULL, 0, &idx)))
                break;
            if (j == 0) {
                first = idx;
            } else if (j == 1) {
                last = idx;
            } else {
                if ((st = push_index(c, f, first)) || (st = push_index(c, f, last)) || (st = push_index(c, f, idx)))
                    break;
                last = idx;
            }
            if (f->ni % 3 == 0 && f->ni >= DAE_FACE_CUT)
                cut_pending = true;
        }
        /* The uploader cuts right after the triangle that reaches 65,532 indices, even
         * inside a polygon (the rest of that polygon then uses indices of the old face);
         * animesh keeps the polygon whole and cuts after it. */
        if (cut_pending && !st && poly_i + 1 < nvc) {
            cut_pending = false;
            if (!(f = new_face(c, m, mat)))
                st = AM_ERR_NOMEM;
            am_scene_note(c->scene, "a face of material '%s' reached %u indices: the rest starts a new face of the "
                                    "same material (as the uploader cuts it)",
                          mat ? mat : "", DAE_FACE_CUT);
        }
    }
    if (uv_short)
        am_scene_note(c->scene, "<polylist material='%s'>: texture coordinates run short (the uploader: \"Texture "
                                "coordinates data is not complete.\"): those corners get (0, 0)",
                      mat ? mat : "");
    free(p);
    free(vc);
    return st;
}

/* <polygons>: each <p> one polygon, fanned as the uploader fans it (v0, v[k-1], v[k]), then
 * exact duplicates welded in first-occurrence order (std::map<VertexData>). */
static am_status read_polygons(am_dae_ctx *c, source_cache *sc, mesh_build *m, const xmlNode *poly)
{
    prim_inputs in;
    am_status st = prim_sources(c, sc, poly, true, &in);
    if (st)
        return st;
    face_build *f = NULL;
    bool uv_short = false;
    for (xmlNode *pe = am_dae_child(poly, "p"); pe && !st; pe = am_dae_next(pe, "p")) {
        long long *p;
        size_t np;
        if ((st = am_dae_ints(c, pe, &p, &np)))
            break;
        size_t nc = np / in.stride;
        if (nc && !f && !(f = new_face(c, m, am_dae_attr(poly, "material")))) {
            free(p);
            return AM_ERR_NOMEM;
        }
        uint32_t first = 0, prev = 0;
        for (size_t j = 0; j < nc && !st; j++) {
            uint32_t idx = 0;
            /* Empty normal / UV arrays mean "none" here (FBX converters write them). */
            prim_inputs use = in;
            if (use.nrm_n == 0)
                use.nrm = NULL;
            if (use.uv_n == 0)
                use.uv = NULL;
            if ((st = corner_vertex(c, f, poly, &use, &p[j * in.stride], false, &uv_short, true, NULL, 0, &idx)))
                break;
            if (j == 0) {
                first = idx;
            } else if (j >= 2) {
                if ((st = push_index(c, f, first)) || (st = push_index(c, f, prev)) || (st = push_index(c, f, idx)))
                    break;
            }
            prev = idx;
        }
        free(p);
    }
    if (!st && am_dae_child(poly, "ph"))
        am_scene_note(c->scene, "<polygons> with holes (<ph>): the holes are ignored, as the uploader ignores them");
    return st;
}

/* LLVolumeFace::remap: exact duplicates (position by value, every byte of normal and UV) merge and
 * vertices are renumbered in first-use order; unused vertices disappear (the shared weld,
 * scene/weld.h, which every other reader's scene goes through too). */
static am_status remap_face(am_dae_ctx *c, face_build *f)
{
    size_t n = f->nv;
    if (n == 0)
        return AM_OK;
    uint32_t *map = malloc(n * sizeof *map), *first = malloc(n * sizeof *first);
    wvert *nv = malloc(n * sizeof *nv);
    if (!map || !first || !nv) {
        free(map);
        free(first);
        free(nv);
        return am_fail_nomem(c->err, "remap");
    }
    const am_weld_view view = {f->v[0].p, sizeof *f->v, f->v[0].n, sizeof *f->v, f->v[0].uv, sizeof *f->v,
                               NULL, NULL, n, 0.0f};
    size_t out = 0;
    am_status st = am_weld_face(&view, f->idx, f->ni, map, first, &out, c->err);
    for (size_t k = 0; !st && k < out; k++)
        nv[k] = f->v[first[k]];
    free(map);
    free(first);
    if (st) {
        free(nv);
        return st;
    }
    free(f->v);
    f->v = nv;
    f->nv = out;
    return AM_OK;
}

/* LLStringUtil::compareInsensitive: both upper-cased, then compared (the viewer collates
 * with strcoll; byte order here, which is the C locale's). */
static int cmp_material(const char *a, const char *b)
{
    a = a ? a : "";
    b = b ? b : "";
    for (;; a++, b++) {
        int x = toupper((unsigned char)*a), y = toupper((unsigned char)*b);
        if (x != y || !x)
            return x - y;
    }
}

static am_status build_mesh(am_dae_ctx *c, mesh_build *m, const xmlNode *geom, am_scene_mesh *out)
{
    am_status st = AM_OK;
    for (size_t i = 0; i < m->count; i++)
        if ((st = remap_face(c, &m->faces[i])))
            return st;
    /* Stable insertion sort by material (faces are few). */
    for (size_t i = 1; i < m->count; i++) {
        face_build key = m->faces[i];
        size_t k = i;
        while (k > 0 && cmp_material(m->faces[k - 1].material, key.material) > 0) {
            m->faces[k] = m->faces[k - 1];
            k--;
        }
        m->faces[k] = key;
    }
    size_t nv = 0, nf = 0;
    for (size_t i = 0; i < m->count; i++)
        if (m->faces[i].ni) {
            nv += m->faces[i].nv;
            nf++;
        }
    out->vertex_count = nv;
    out->positions = malloc((nv ? nv : 1) * 3 * sizeof(float));
    out->normals = malloc((nv ? nv : 1) * 3 * sizeof(float));
    out->uvs = malloc((nv ? nv : 1) * 2 * sizeof(float));
    out->source_position = malloc((nv ? nv : 1) * sizeof(uint32_t));
    out->faces = calloc(nf ? nf : 1, sizeof *out->faces);
    if (!out->positions || !out->normals || !out->uvs || !out->source_position || !out->faces)
        return am_fail_nomem(c->err, "mesh");
    size_t base = 0;
    for (size_t i = 0; i < m->count; i++) {
        face_build *f = &m->faces[i];
        if (!f->ni)
            continue;
        am_scene_face *sf = &out->faces[out->face_count++];
        sf->material = am_dae_material_for(c, geom, f->material, &st);
        if (st)
            return st;
        sf->index_count = f->ni;
        sf->indices = malloc(f->ni * sizeof *sf->indices);
        if (!sf->indices)
            return am_fail_nomem(c->err, "face");
        for (size_t k = 0; k < f->ni; k++)
            sf->indices[k] = (uint32_t)(base + f->idx[k]);
        for (size_t v = 0; v < f->nv; v++) {
            memcpy(&out->positions[3 * (base + v)], f->v[v].p, 12);
            memcpy(&out->normals[3 * (base + v)], f->v[v].n, 12);
            memcpy(&out->uvs[2 * (base + v)], f->v[v].uv, 8);
            out->source_position[base + v] = f->v[v].src;
        }
        base += f->nv;
    }
    return AM_OK;
}

static am_status read_geometry(am_dae_ctx *c, const xmlNode *geom, size_t mi)
{
    xmlNode *mesh = am_dae_child(geom, "mesh");
    am_scene_mesh *out = &c->scene->meshes[mi];
    memset(out, 0, sizeof *out);
    out->skin = -1;
    out->node = -1;
    const char *name = am_dae_attr(geom, "name");
    out->name = am_strdup(name ? name : am_dae_attr(geom, "id") ? am_dae_attr(geom, "id") : "");
    if (!out->name)
        return am_fail_nomem(c->err, "mesh name");
    xmlNode *inst = am_dae_instance_of_geometry(c, geom);
    if (inst)
        out->node = am_dae_node_index(c, inst->parent);
    source_cache sc = {0};
    mesh_build mb = {0};
    am_status st = AM_OK;
    /* addVolumeFacesFromDomMesh: every <triangles>, then <polylist>, then <polygons>. */
    for (xmlNode *k = am_dae_child(mesh, "triangles"); k && !st; k = am_dae_next(k, "triangles"))
        st = read_triangles(c, &sc, &mb, k);
    for (xmlNode *k = am_dae_child(mesh, "polylist"); k && !st; k = am_dae_next(k, "polylist"))
        st = read_polylist(c, &sc, &mb, k);
    for (xmlNode *k = am_dae_child(mesh, "polygons"); k && !st; k = am_dae_next(k, "polygons"))
        st = read_polygons(c, &sc, &mb, k);
    if (!st) {
        static const char *const ignored[] = {"lines", "linestrips", "trifans", "tristrips"};
        for (size_t i = 0; i < sizeof ignored / sizeof ignored[0]; i++)
            if (am_dae_child(mesh, ignored[i]))
                am_scene_note(c->scene, "geometry '%s': <%s> is not read (nor by the uploader)", out->name,
                              ignored[i]);
        st = build_mesh(c, &mb, geom, out);
    }
    /* The COLLADA positions as the uploader reads them for the skin (4.1, 4.5). */
    if (!st) {
        xmlNode *verts = am_dae_child(mesh, "vertices");
        xmlNode *pos_src = NULL;
        for (xmlNode *v = am_dae_child(verts, "input"); v && !pos_src; v = am_dae_next(v, "input"))
            if (am_dae_attr(v, "semantic") && strcmp(am_dae_attr(v, "semantic"), "POSITION") == 0)
                pos_src = am_dae_input_source(c, v);
        const double *pv;
        size_t pn;
        if (pos_src && am_dae_child(pos_src, "float_array") && !(st = cached_floats(c, &sc, pos_src, &pv, &pn))) {
            size_t np = pn / 3;
            c->mesh_positions[mi] = malloc((np ? np : 1) * 3 * sizeof(float));
            if (!c->mesh_positions[mi]) {
                st = am_fail_nomem(c->err, "positions");
            } else {
                for (size_t i = 0; i < 3 * np; i++)
                    c->mesh_positions[mi][i] = (float)pv[i];
                c->mesh_position_count[mi] = np;
            }
            const char *ac = am_dae_attr(am_dae_child(am_dae_child(pos_src, "technique_common"), "accessor"), "count");
            c->mesh_accessor_count[mi] = ac ? (size_t)strtoull(ac, NULL, 10) : np;
        }
    }
    mesh_build_free(&mb);
    cache_free(&sc);
    return st;
}

am_status am_dae_read_geometries(am_dae_ctx *c)
{
    am_scene *s = c->scene;
    size_t n = 0;
    xmlNode *lib;
    for (lib = am_dae_child(c->root, "library_geometries"); lib; lib = am_dae_next(lib, "library_geometries"))
        for (xmlNode *g = am_dae_child(lib, "geometry"); g; g = am_dae_next(g, "geometry"))
            n += am_dae_child(g, "mesh") != NULL;
    if (n == 0)
        return AM_OK;
    s->meshes = calloc(n, sizeof *s->meshes);
    c->mesh_xml = calloc(n, sizeof *c->mesh_xml);
    c->mesh_positions = calloc(n, sizeof *c->mesh_positions);
    c->mesh_position_count = calloc(n, sizeof *c->mesh_position_count);
    c->mesh_accessor_count = calloc(n, sizeof *c->mesh_accessor_count);
    if (!s->meshes || !c->mesh_xml || !c->mesh_positions || !c->mesh_position_count || !c->mesh_accessor_count)
        return am_fail_nomem(c->err, "meshes");
    for (lib = am_dae_child(c->root, "library_geometries"); lib; lib = am_dae_next(lib, "library_geometries"))
        for (xmlNode *g = am_dae_child(lib, "geometry"); g; g = am_dae_next(g, "geometry")) {
            if (!am_dae_child(g, "mesh"))
                continue;
            size_t mi = s->mesh_count++;
            c->mesh_xml[mi] = g;
            am_status st = read_geometry(c, g, mi);
            if (st)
                return st;
        }
    return AM_OK;
}
