/* Mesh asset decoder (docs/reference/mesh-asset.md), following the viewer's readers:
 * LLMeshRepoThread::headerReceived (header), LLUZipHelper::unzip_llsd (blocks),
 * LLVolume::unpackVolumeFacesInternal (faces, F32 dequantisation, weights) and
 * LLMeshSkinInfo::fromLLSD (skin). Where the viewer's behaviour is undefined (short
 * Weights stream, index out of range, inverse-bind count mismatch, missing bind shape)
 * the asset is refused; where it only logs, a warning is recorded. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/bytes.h"
#include "core/notes.h"
#include "mesh/llsd.h"
#include "mesh/mesh_asset.h"
#include "mesh/zblock.h"

static am_status warn(am_mesh_asset *a, am_error *err, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static am_status warn(am_mesh_asset *a, am_error *err, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    am_status s = am_notes_vadd(&a->warnings, &a->warning_count, 256, "warnings", err, fmt, ap);
    va_end(ap);
    return s;
}

/* A vector of n numbers (LLVector3/2::setValue: asReal per element, missing -> 0). */
static bool read_vec(const am_llsd *v, double *out, size_t n)
{
    for (size_t i = 0; i < n; i++)
        out[i] = 0.0;
    if (!v || v->type != AM_LLSD_ARRAY)
        return false;
    for (size_t i = 0; i < n && i < v->count; i++)
        if (!am_llsd_as_number(&v->items[i], &out[i]))
            out[i] = 0.0;
    return true;
}

/* Domain map {Min: [...], Max: [...]}; false when absent or malformed. */
static bool read_domain(const am_llsd *d, double *mn, double *mx, size_t n)
{
    bool a = read_vec(am_llsd_get(d, "Min"), mn, n);
    bool b = read_vec(am_llsd_get(d, "Max"), mx, n);
    return a && b;
}

typedef struct face_ctx {
    am_mesh_asset *a;
    const char *block;
    size_t face;
    am_error *err;
} face_ctx;

static am_status face_fail(const face_ctx *c, const char *key, size_t offset, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static am_status face_fail(const face_ctx *c, const char *key, size_t offset, const char *fmt, ...)
{
    char place[200];
    if (key)
        snprintf(place, sizeof place, "%s block face %zu key %s (offsets in the inflated block)", c->block, c->face,
                 key);
    else
        snprintf(place, sizeof place, "%s block face %zu (offsets in the inflated block)", c->block, c->face);
    va_list ap;
    va_start(ap, fmt);
    am_fail_vwhere(c->err, AM_ERR_INVALID, offset, place, fmt, ap);
    va_end(ap);
    return AM_ERR_INVALID;
}

static const am_llsd *get_binary(const face_ctx *c, const am_llsd *m, const char *key, am_status *s)
{
    *s = AM_OK;
    const am_llsd *v = am_llsd_get(m, key);
    if (v && v->type != AM_LLSD_BINARY) {
        *s = face_fail(c, key, v->offset, "expected binary, found %s", am_llsd_type_name(v->type));
        return NULL;
    }
    return v;
}

static am_status decode_weights(const face_ctx *c, const am_llsd *w, am_mesh_face *f)
{
    size_t n = f->vertex_count;
    f->has_weights = true;
    f->weight_count = calloc(n ? n : 1, 1);
    f->weight_joint = calloc(n ? 4 * n : 1, 1);
    f->weight_code = calloc(n ? 4 * n : 1, sizeof *f->weight_code);
    f->weight_value = calloc(n ? 4 * n : 1, sizeof *f->weight_value);
    if (!f->weight_count || !f->weight_joint || !f->weight_code || !f->weight_value)
        return am_fail_nomem(c->err, "weights");
    const uint8_t *p = w->bytes;
    size_t len = w->len, pos = 0;
    /* payload starts after 'b' + U32 length */
    size_t base = w->offset + 5;
    for (size_t v = 0; v < n; v++) {
        if (pos >= len)
            return face_fail(c, "Weights", base + pos,
                             "Weights ends after vertex %zu of %zu (the viewer would read uninitialised weights)", v,
                             n);
        uint8_t joint = p[pos++];
        unsigned k = 0;
        while (joint != AM_WEIGHT_END) {
            if (len - pos < 2)
                return face_fail(c, "Weights", base + pos, "vertex %zu influence %u: weight truncated", v, k);
            uint16_t q = am_le_u16(p + pos);
            pos += 2;
            f->weight_joint[4 * v + k] = joint;
            f->weight_code[4 * v + k] = q;
            f->weight_value[4 * v + k] = am_mesh_weight_value(q);
            k++;
            if (k >= AM_MAX_INFLUENCES)
                break; /* a full list has no terminator */
            if (pos >= len)
                return face_fail(c, "Weights", base + pos, "vertex %zu: list not terminated by 0xFF", v);
            joint = p[pos++];
        }
        f->weight_count[v] = (uint8_t)k;
        if (k == 0) { /* 4.6 step 2: no influence -> joint 0 at 0.999 */
            f->weight_joint[4 * v] = 0;
            f->weight_value[4 * v] = 0.999f;
            f->no_influence_count++;
        }
    }
    if (pos < len) {
        am_status s = warn(c->a, c->err,
                           "%s face %zu: Weights has %zu bytes after the last vertex (the viewer logs \"Vertex "
                           "weight count does not match vertex count!\")",
                           c->block, c->face, len - pos);
        if (s)
            return s;
    }
    return AM_OK;
}

static am_status decode_face(const face_ctx *c, const am_llsd *m, am_mesh_face *f)
{
    am_status s;
    f->normalized_scale = am_v3(1, 1, 1);
    if (m->type != AM_LLSD_MAP)
        return face_fail(c, NULL, m->offset, "face is a %s, expected a map", am_llsd_type_name(m->type));
    if (am_llsd_get(m, "NoGeometry")) {
        f->no_geometry = true;
        return AM_OK;
    }
    const am_llsd *pos = get_binary(c, m, "Position", &s);
    if (s)
        return s;
    const am_llsd *nrm = get_binary(c, m, "Normal", &s);
    if (s)
        return s;
    const am_llsd *tc = get_binary(c, m, "TexCoord0", &s);
    if (s)
        return s;
    const am_llsd *tri = get_binary(c, m, "TriangleList", &s);
    if (s)
        return s;
    const am_llsd *wts = get_binary(c, m, "Weights", &s);
    if (s)
        return s;
    if (!pos)
        return face_fail(c, "Position", m->offset, "face has no Position");
    size_t n = pos->len / 6;
    if (n > AM_MESH_MAX_FACE_VERTICES)
        return face_fail(c, "Position", pos->offset, "%zu vertices, more than U16 indices address (%d)", n,
                         AM_MESH_MAX_FACE_VERTICES);
    if (pos->len % 6 && (s = warn(c->a, c->err, "%s face %zu: Position length %zu is not a multiple of 6", c->block,
                                  c->face, pos->len)))
        return s;
    f->vertex_count = n;

    double mn[3] = {0, 0, 0}, mx[3] = {0, 0, 0}; /* "read as zeros" when absent or short */
    if (!read_domain(am_llsd_get(m, "PositionDomain"), mn, mx, 3) &&
        (s = warn(c->a, c->err, "%s face %zu: PositionDomain missing or malformed (read as zeros)", c->block, c->face)))
        return s;
    for (int k = 0; k < 3; k++) /* every position lies in the domain: bounded here, once */
        if (!(fabs(mn[k]) <= AM_MESH_MAX_DOMAIN && fabs(mx[k]) <= AM_MESH_MAX_DOMAIN))
            return face_fail(c, "PositionDomain", m->offset, "%c from %g to %g m is beyond +-%g m (a corrupt or hostile "
                             "asset)", "XYZ"[k], mn[k], mx[k], AM_MESH_MAX_DOMAIN);
    f->pos_min = am_v3(mn[0], mn[1], mn[2]);
    f->pos_max = am_v3(mx[0], mx[1], mx[2]);
    size_t n1 = n ? n : 1;
    f->positions = malloc(3 * n1 * sizeof *f->positions);
    f->position_codes = malloc(3 * n1 * sizeof *f->position_codes);
    if (!f->positions || !f->position_codes)
        return am_fail_nomem(c->err, "positions");
    {
        float fmin[3], frange[3];
        for (int k = 0; k < 3; k++) {
            fmin[k] = (float)mn[k];
            frange[k] = (float)mx[k] - fmin[k];
        }
        for (size_t i = 0; i < 3 * n; i++) {
            uint16_t q = am_le_u16(pos->bytes + 2 * i);
            f->position_codes[i] = q;
            f->positions[i] = am_mesh_dequantize(q, fmin[i % 3], frange[i % 3]);
        }
    }

    if (nrm && nrm->len) {
        if (nrm->len < 6 * n)
            return face_fail(c, "Normal", nrm->offset, "%zu bytes for %zu vertices (need %zu)", nrm->len, n, 6 * n);
        if (nrm->len > 6 * n && (s = warn(c->a, c->err, "%s face %zu: Normal has %zu bytes beyond %zu vertices",
                                          c->block, c->face, nrm->len - 6 * n, n)))
            return s;
        f->normals = malloc(3 * n1 * sizeof *f->normals);
        f->normal_codes = malloc(3 * n1 * sizeof *f->normal_codes);
        if (!f->normals || !f->normal_codes)
            return am_fail_nomem(c->err, "normals");
        for (size_t i = 0; i < 3 * n; i++) {
            uint16_t q = am_le_u16(nrm->bytes + 2 * i);
            f->normal_codes[i] = q;
            f->normals[i] = am_mesh_dequantize_normal(q);
        }
    }

    if (tc && tc->len) {
        if (tc->len < 4 * n)
            return face_fail(c, "TexCoord0", tc->offset, "%zu bytes for %zu vertices (need %zu)", tc->len, n, 4 * n);
        if (tc->len > 4 * n && (s = warn(c->a, c->err, "%s face %zu: TexCoord0 has %zu bytes beyond %zu vertices",
                                         c->block, c->face, tc->len - 4 * n, n)))
            return s;
        if (!read_domain(am_llsd_get(m, "TexCoord0Domain"), f->uv_min, f->uv_max, 2) &&
            (s = warn(c->a, c->err, "%s face %zu: TexCoord0Domain missing or malformed (read as zeros)", c->block,
                      c->face)))
            return s;
        f->uvs = malloc(2 * n1 * sizeof *f->uvs);
        f->uv_codes = malloc(2 * n1 * sizeof *f->uv_codes);
        if (!f->uvs || !f->uv_codes)
            return am_fail_nomem(c->err, "uvs");
        float fmin[2], frange[2];
        for (int k = 0; k < 2; k++) {
            fmin[k] = (float)f->uv_min[k];
            frange[k] = (float)f->uv_max[k] - fmin[k];
        }
        for (size_t i = 0; i < 2 * n; i++) {
            uint16_t q = am_le_u16(tc->bytes + 2 * i);
            f->uv_codes[i] = q;
            f->uvs[i] = am_mesh_dequantize(q, fmin[i % 2], frange[i % 2]);
        }
    }

    const am_llsd *ns = am_llsd_get(m, "NormalizedScale");
    if (ns) {
        double v[3];
        if (!read_vec(ns, v, 3))
            return face_fail(c, "NormalizedScale", ns->offset, "expected an array of 3 reals, found %s",
                             am_llsd_type_name(ns->type));
        f->normalized_scale = am_v3(v[0], v[1], v[2]);
    }

    if (tri) {
        size_t count = tri->len / 2;
        if (count % 3) {
            if ((s = warn(c->a, c->err, "%s face %zu: %zu indices, incomplete triangle discarded", c->block, c->face,
                          count)))
                return s;
            count -= count % 3;
        }
        if (count < 3) {
            if ((s = warn(c->a, c->err, "%s face %zu: empty face (fewer than 3 indices)", c->block, c->face)))
                return s;
            count = 0;
        }
        if (count) {
            f->indices = malloc(count * sizeof *f->indices);
            if (!f->indices)
                return am_fail_nomem(c->err, "indices");
            for (size_t i = 0; i < count; i++) {
                uint16_t ix = am_le_u16(tri->bytes + 2 * i);
                if (ix >= n)
                    return face_fail(c, "TriangleList", tri->offset + 5 + 2 * i,
                                     "index %zu = %u is not below the vertex count %zu", i, ix, n);
                f->indices[i] = ix;
            }
        }
        f->index_count = count;
    } else if ((s = warn(c->a, c->err, "%s face %zu: no TriangleList", c->block, c->face))) {
        return s;
    }

    if (wts)
        return decode_weights(c, wts, f);
    return AM_OK;
}

static am_status decode_lod(am_mesh_asset *a, const char *block, const am_llsd *v, am_mesh_lod *lod, am_error *err)
{
    if (v->type != AM_LLSD_ARRAY) {
        am_fail_at(err, AM_ERR_INVALID, v->offset, "expected an array of faces, found %s", am_llsd_type_name(v->type));
        am_error_where(err, "%s block", block);
        return AM_ERR_INVALID;
    }
    if (v->count == 0) {
        am_fail_at(err, AM_ERR_INVALID, v->offset, "found no faces (the viewer fails to decode it)");
        am_error_where(err, "%s block", block);
        return AM_ERR_INVALID;
    }
    lod->faces = calloc(v->count, sizeof *lod->faces);
    if (!lod->faces)
        return am_fail_nomem(err, "faces");
    lod->face_count = v->count;
    for (size_t i = 0; i < v->count; i++) {
        face_ctx c = {a, block, i, err};
        am_status s = decode_face(&c, &v->items[i], &lod->faces[i]);
        if (s)
            return s;
    }
    return AM_OK;
}

/* ---------- skin ---------- */

static am_status skin_fail(am_error *err, const char *key, size_t offset, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static am_status skin_fail(am_error *err, const char *key, size_t offset, const char *fmt, ...)
{
    char place[200];
    snprintf(place, sizeof place, "skin block key %s (offsets in the inflated block)", key);
    va_list ap;
    va_start(ap, fmt);
    am_fail_vwhere(err, AM_ERR_INVALID, offset, place, fmt, ap);
    va_end(ap);
    return AM_ERR_INVALID;
}

static am_status read_matrix(const am_llsd *v, am_mat4 *m, const char *key, size_t index, am_error *err)
{
    if (v->type != AM_LLSD_ARRAY || v->count != 16)
        return skin_fail(err, key, v->offset, "matrix %zu: expected an array of 16 reals, found %s of %zu", index,
                         am_llsd_type_name(v->type), v->count);
    for (size_t i = 0; i < 16; i++)
        if (!am_llsd_as_number(&v->items[i], &m->m[i]))
            return skin_fail(err, key, v->items[i].offset, "matrix %zu element %zu is a %s, expected a real", index, i,
                             am_llsd_type_name(v->items[i].type));
    return AM_OK;
}

static am_status read_matrix_list(const am_llsd *v, const char *key, am_mat4 **out, size_t *count, am_error *err)
{
    if (v->type != AM_LLSD_ARRAY)
        return skin_fail(err, key, v->offset, "expected an array of matrices, found %s", am_llsd_type_name(v->type));
    *out = calloc(v->count ? v->count : 1, sizeof **out);
    if (!*out)
        return am_fail_nomem(err, key);
    *count = v->count;
    for (size_t i = 0; i < v->count; i++) {
        am_status s = read_matrix(&v->items[i], &(*out)[i], key, i, err);
        if (s)
            return s;
    }
    return AM_OK;
}

static am_status decode_skin(am_mesh_asset *a, const am_llsd *v, am_mesh_skin *skin, am_error *err)
{
    am_status s;
    if (v->type != AM_LLSD_MAP)
        return skin_fail(err, "(top)", v->offset, "expected a map, found %s", am_llsd_type_name(v->type));
    const am_llsd *names = am_llsd_get(v, "joint_names");
    if (!names || names->type != AM_LLSD_ARRAY)
        return skin_fail(err, "joint_names", names ? names->offset : v->offset, "missing or not an array");
    skin->joint_names = calloc(names->count ? names->count : 1, sizeof *skin->joint_names);
    if (!skin->joint_names)
        return am_fail_nomem(err, "joint names");
    skin->joint_count = names->count;
    for (size_t i = 0; i < names->count; i++) {
        const am_llsd *n = &names->items[i];
        if (n->type != AM_LLSD_STRING)
            return skin_fail(err, "joint_names", n->offset, "entry %zu is a %s, expected a string", i,
                             am_llsd_type_name(n->type));
        skin->joint_names[i] = strdup((const char *)n->bytes);
        if (!skin->joint_names[i])
            return am_fail_nomem(err, "joint names");
    }
    const am_llsd *ibm = am_llsd_get(v, "inverse_bind_matrix");
    if (!ibm)
        return skin_fail(err, "inverse_bind_matrix", v->offset, "missing");
    size_t ibm_count = 0;
    if ((s = read_matrix_list(ibm, "inverse_bind_matrix", &skin->inverse_bind, &ibm_count, err)))
        return s;
    if (ibm_count != skin->joint_count)
        return skin_fail(err, "inverse_bind_matrix", ibm->offset,
                         "%zu matrices for %zu joint_names (the viewer drops all joint bindings)", ibm_count,
                         skin->joint_count);
    const am_llsd *bsm = am_llsd_get(v, "bind_shape_matrix");
    if (!bsm)
        return skin_fail(err, "bind_shape_matrix", v->offset,
                         "missing (the viewer would use an uninitialised matrix)");
    if ((s = read_matrix(bsm, &skin->bind_shape, "bind_shape_matrix", 0, err)))
        return s;
    const am_llsd *alt = am_llsd_get(v, "alt_inverse_bind_matrix");
    if (alt && (s = read_matrix_list(alt, "alt_inverse_bind_matrix", &skin->alt_inverse_bind, &skin->alt_count, err)))
        return s;
    if (skin->alt_inverse_bind && skin->alt_count == 0) {
        /* An empty list: the viewer ignores overrides (0 != joint count), as when the key is
         * absent. Read as absent: a non-NULL array with alt_count 0 means joint_count
         * entries to the encoder and every reader (mesh_asset.h). */
        free(skin->alt_inverse_bind);
        skin->alt_inverse_bind = NULL;
        if ((s = warn(a, err, "skin: alt_inverse_bind_matrix is an empty array (read as absent: no overrides)")))
            return s;
    }
    const am_llsd *po = am_llsd_get(v, "pelvis_offset");
    if (po) {
        if (!am_llsd_as_number(po, &skin->pelvis_offset))
            return skin_fail(err, "pelvis_offset", po->offset, "expected a real, found %s", am_llsd_type_name(po->type));
        skin->has_pelvis_offset = true;
    }
    const am_llsd *lock = am_llsd_get(v, "lock_scale_if_joint_position");
    double lv = 0;
    if (lock && am_llsd_as_number(lock, &lv))
        skin->lock_scale_if_joint_position = lv != 0.0;
    return AM_OK;
}

/* ---------- header and blocks ---------- */

static am_status read_header(const uint8_t *data, size_t size, am_mesh_asset *a, am_llsd *hdr, am_error *err)
{
    size_t window = size < AM_MESH_HEADER_MAX ? size : AM_MESH_HEADER_MAX;
    size_t used = 0;
    am_llsd_limits lim = {AM_LLSD_MAX_DEPTH, 4096};
    am_status s = am_llsd_parse(data, window, &lim, hdr, &used, err);
    if (s && size > AM_MESH_HEADER_MAX) {
        /* would it parse given the whole file? then it is simply too long */
        size_t whole = 0;
        if (am_llsd_parse(data, size, &lim, hdr, &whole, NULL) == AM_OK) {
            am_llsd_free(hdr);
            am_fail_at(err, AM_ERR_INVALID, AM_MESH_HEADER_MAX,
                       "header LLSD is %zu bytes, over the %d bytes the viewer fetches first (MESH_HEADER_SIZE)",
                       whole, AM_MESH_HEADER_MAX);
        }
    }
    if (s) {
        /* A text file where a binary asset belongs is a common mix-up (the meshdata JSON or
         * the .dae beside the .llmesh): say so instead of quoting a nonsense LLSD count. */
        if (size >= 2 && (data[0] == '<' || (data[0] == '{' && (data[1] == '"' || data[1] == '\n' ||
                                                                   data[1] == ' ' || data[1] == '\r'))))
            am_fail_at(err, AM_ERR_INVALID, 0, "this is a text file (%s), not a binary mesh asset (.llmesh / .slm)",
                       data[0] == '<' ? "XML: a .dae?" : "JSON: a meshdata or rig file?");
        am_error_where(err, "header");
        return s;
    }
    if (hdr->type != AM_LLSD_MAP) {
        am_fail_at(err, AM_ERR_INVALID, 0, "header is a %s, expected a map", am_llsd_type_name(hdr->type));
        am_error_where(err, "header");
        return AM_ERR_INVALID;
    }
    a->header_size = used;
    if (am_llsd_get(hdr, "404")) {
        am_fail_at(err, AM_ERR_INVALID, 0, "header has the key '404': the asset marks itself missing");
        am_error_where(err, "header");
        return AM_ERR_INVALID;
    }
    const am_llsd *ver = am_llsd_get(hdr, "version");
    double vd;
    if (ver && am_llsd_as_number(ver, &vd)) {
        a->has_version = true;
        a->version = (int64_t)vd;
        if (a->version > 999) {
            am_fail_at(err, AM_ERR_INVALID, ver->offset, "version %lld is above 999: the viewer treats the mesh as missing",
                       (long long)a->version);
            am_error_where(err, "header");
            return AM_ERR_INVALID;
        }
    }
    const am_llsd *ml = am_llsd_get(hdr, "material_list");
    if (ml && ml->type == AM_LLSD_ARRAY && ml->count) {
        a->material_list = calloc(ml->count, sizeof *a->material_list);
        if (!a->material_list)
            return am_fail_nomem(err, "material list");
        for (size_t i = 0; i < ml->count; i++) {
            const am_llsd *e = &ml->items[i];
            a->material_list[i] = strdup(e->bytes ? (const char *)e->bytes : "");
            if (!a->material_list[i])
                return am_fail_nomem(err, "material list");
            a->material_count = i + 1;
        }
    }
    for (int b = 0; b < AM_BLOCK_COUNT; b++) {
        const char *name = am_mesh_block_name(b);
        const am_llsd *e = am_llsd_get(hdr, name);
        if (!e)
            continue;
        double off = 0, sz = 0;
        if (e->type != AM_LLSD_MAP || !am_llsd_as_number(am_llsd_get(e, "offset"), &off) ||
            !am_llsd_as_number(am_llsd_get(e, "size"), &sz)) {
            if ((s = warn(a, err, "header: %s is not a map {offset, size}; block ignored", name)))
                return s;
            continue;
        }
        if (!(off >= 0) || !(sz > 0) || off > 2147483647.0 || sz > 2147483647.0)
            continue; /* absent unless offset >= 0 and size > 0 (S32 in the viewer) */
        int64_t o = (int64_t)off, z = (int64_t)sz;
        if ((uint64_t)o + (uint64_t)z > size - used) {
            am_fail_at(err, AM_ERR_INVALID, used + (size_t)o,
                       "block (offset %lld, size %lld after the %zu-byte header) runs past the end of the %zu-byte file",
                       (long long)o, (long long)z, used, size);
            am_error_where(err, "%s block", name);
            return AM_ERR_INVALID;
        }
        a->blocks[b].present = true;
        a->blocks[b].offset = o;
        a->blocks[b].size = z;
    }
    return AM_OK;
}

static am_status inflate_block(const uint8_t *data, const am_mesh_asset *a, int b, am_llsd *tree, uint8_t **raw,
                               size_t *raw_size, am_error *err)
{
    size_t start = a->header_size + (size_t)a->blocks[b].offset;
    uint8_t *buf = NULL;
    size_t len = 0;
    am_status s = am_zblock_inflate(data + start, (size_t)a->blocks[b].size, AM_ZBLOCK_MAX_INFLATED, &buf, &len, err);
    if (s) {
        if (err && err->offset != AM_NO_OFFSET)
            err->offset += start;
        am_error_where(err, "%s block (file offset %zu)", am_mesh_block_name(b), start);
        return s;
    }
    am_llsd_limits lim = {AM_LLSD_MAX_DEPTH, AM_LLSD_DEFAULT_MAX_NODES};
    s = am_llsd_parse(buf, len, &lim, tree, NULL, err);
    if (s) {
        am_error_where(err, "%s block (inflated, %zu bytes)", am_mesh_block_name(b), len);
        free(buf);
        return s;
    }
    if (raw) {
        *raw = buf;
        *raw_size = len;
    } else {
        free(buf);
    }
    return AM_OK;
}

am_status am_mesh_asset_decode_header(const uint8_t *data, size_t size, am_mesh_asset *out, am_error *err)
{
    memset(out, 0, sizeof *out);
    am_llsd hdr;
    am_status s = read_header(data, data ? size : 0, out, &hdr, err);
    am_llsd_free(&hdr);
    if (s)
        am_mesh_asset_free(out);
    return s;
}

am_status am_mesh_asset_decode(const uint8_t *data, size_t size, am_mesh_asset *out, am_error *err)
{
    memset(out, 0, sizeof *out);
    if (!data)
        size = 0;
    am_llsd hdr;
    am_status s = read_header(data, size, out, &hdr, err);
    am_llsd_free(&hdr);
    if (s)
        goto fail;
    bool any_lod = false;
    for (int b = 0; b < AM_BLOCK_COUNT && !s; b++) {
        if (!out->blocks[b].present)
            continue;
        am_llsd tree;
        memset(&tree, 0, sizeof tree);
        const char *name = am_mesh_block_name(b);
        if (b == AM_BLOCK_PHYSICS_CONVEX) {
            s = inflate_block(data, out, b, &tree, &out->physics_convex_raw, &out->physics_convex_size, err);
        } else if ((s = inflate_block(data, out, b, &tree, NULL, NULL, err)) == AM_OK) {
            if (b <= AM_BLOCK_HIGH) {
                s = decode_lod(out, name, &tree, &out->lods[b], err);
                any_lod = true;
            } else if (b == AM_BLOCK_PHYSICS_MESH) {
                s = decode_lod(out, name, &tree, &out->physics_mesh, err);
            } else if (b == AM_BLOCK_SKIN) {
                out->has_skin = true;
                s = decode_skin(out, &tree, &out->skin, err);
            }
        }
        am_llsd_free(&tree);
    }
    if (s)
        goto fail;
    if (!any_lod) {
        s = am_fail(err, AM_ERR_INVALID, "no LOD block (lowest_lod .. high_lod) with size > 0: the viewer marks the "
                                         "mesh missing");
        am_error_where(err, "header");
        goto fail;
    }
    /* weights index joint_names: the viewer never checks (6.5 trap), we refuse */
    for (int l = 0; l < AM_LOD_COUNT; l++) {
        const am_mesh_lod *lod = &out->lods[l];
        for (size_t fi = 0; fi < lod->face_count; fi++) {
            const am_mesh_face *f = &lod->faces[fi];
            if (!f->has_weights)
                continue;
            if (!out->has_skin) {
                if ((s = warn(out, err, "%s face %zu has Weights but the asset has no skin block",
                              am_mesh_block_name(l), fi)))
                    goto fail;
                break;
            }
            for (size_t v = 0; v < f->vertex_count; v++)
                for (unsigned k = 0; k < f->weight_count[v]; k++)
                    if (f->weight_joint[4 * v + k] >= out->skin.joint_count) {
                        s = am_fail(err, AM_ERR_INVALID,
                                    "vertex %zu influence %u: joint index %u is not below the %zu joint_names", v, k,
                                    f->weight_joint[4 * v + k], out->skin.joint_count);
                        am_error_where(err, "%s block face %zu key Weights", am_mesh_block_name(l), fi);
                        goto fail;
                    }
        }
    }
    return AM_OK;
fail:
    am_mesh_asset_free(out);
    return s;
}
