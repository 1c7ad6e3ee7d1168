/* Mesh asset encoder, following the viewer's writers LLModel::writeModel /
 * writeModelToStream and LLMeshSkinInfo::asLLSD (docs/reference/mesh-asset.md). The rules and the
 * choices for inputs the viewer never produces are in mesh_asset.h. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/bytes.h"
#include "core/parallel.h"
#include "mesh/llsd.h"
#include "mesh/mesh_asset.h"
#include "mesh/zblock.h"

/* ---------- LLSD building shorthands ---------- */

static am_status put_vec(am_llsd *map, const char *key, const double *v, size_t n, am_error *err)
{
    am_llsd *a = am_llsd_insert(map, key, err);
    if (!a)
        return err ? err->code : AM_ERR_NOMEM;
    am_llsd_set_array(a);
    for (size_t i = 0; i < n; i++) {
        am_llsd *e = am_llsd_push(a, err);
        if (!e)
            return err ? err->code : AM_ERR_NOMEM;
        am_llsd_set_real(e, v[i]);
    }
    return AM_OK;
}

static am_status put_domain(am_llsd *map, const char *key, const double *mn, const double *mx, size_t n, am_error *err)
{
    am_llsd *d = am_llsd_insert(map, key, err);
    if (!d)
        return err ? err->code : AM_ERR_NOMEM;
    am_llsd_set_map(d);
    am_status s = put_vec(d, "Min", mn, n, err);
    if (!s)
        s = put_vec(d, "Max", mx, n, err);
    return s;
}

/* Move a built buffer into a binary node. */
static am_status put_binary(am_llsd *map, const char *key, uint8_t *data, size_t len, am_error *err)
{
    am_llsd *b = am_llsd_insert(map, key, err);
    if (!b) {
        free(data);
        return err ? err->code : AM_ERR_NOMEM;
    }
    am_llsd_take_bytes(b, AM_LLSD_BINARY, data, len);
    return AM_OK;
}

static am_status fail_face(am_error *err, const char *block, size_t face, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static am_status fail_face(am_error *err, const char *block, size_t face, const char *fmt, ...)
{
    char place[200];
    snprintf(place, sizeof place, "encoding %s face %zu", block, face);
    va_list ap;
    va_start(ap, fmt);
    am_fail_vwhere(err, AM_ERR_INVALID, AM_NO_OFFSET, place, fmt, ap);
    va_end(ap);
    return AM_ERR_INVALID;
}

/* ---------- faces ---------- */

typedef struct lod_box {
    float min[3], max[3];
    bool any;
} lod_box;

static am_status encode_weights(const am_mesh_face *f, const am_mesh_asset *a, const char *block, size_t fi,
                                am_llsd *map, am_error *err)
{
    size_t n = f->vertex_count;
    if (!f->weight_count || !f->weight_joint || !f->weight_code)
        return fail_face(err, block, fi, "has_weights but weight_count/weight_joint/weight_code missing");
    if (!a->has_skin)
        return fail_face(err, block, fi, "Weights without a skin block (joint indices mean nothing)");
    uint8_t *buf = malloc(n * 13 + 1); /* at most 4 x 3 bytes + terminator per vertex */
    if (!buf)
        return am_fail_nomem(err, "weights");
    size_t len = 0;
    for (size_t v = 0; v < n; v++) {
        unsigned k = f->weight_count[v];
        if (k > AM_MAX_INFLUENCES) {
            free(buf);
            return fail_face(err, block, fi, "vertex %zu has %u influences; at most 4 can be written", v, k);
        }
        for (unsigned i = 0; i < k; i++) {
            uint8_t j = f->weight_joint[4 * v + i];
            if (j >= AM_WEIGHT_END || j >= a->skin.joint_count) {
                free(buf);
                am_fail(err, AM_ERR_INVALID, "vertex %zu influence %u: joint index %u is not below %s (%zu)", v, i, j,
                        j >= AM_WEIGHT_END ? "255, the end marker" : "the skin's joint count",
                        j >= AM_WEIGHT_END ? (size_t)255 : a->skin.joint_count);
                am_error_where(err, "encoding %s face %zu", block, fi);
                return AM_ERR_INVALID;
            }
            buf[len++] = j;
            am_le_put_u16(buf + len, f->weight_code[4 * v + i]);
            len += 2;
        }
        if (k < AM_MAX_INFLUENCES)
            buf[len++] = AM_WEIGHT_END;
    }
    return put_binary(map, "Weights", buf, len, err);
}

static am_status encode_face(const am_mesh_face *f, const lod_box *box, const am_mesh_asset *a, const char *block,
                             size_t fi, am_llsd *map, am_error *err)
{
    am_status s;
    am_llsd_set_map(map);
    size_t n = f->vertex_count;
    if (f->no_geometry || n < 3) {
        am_llsd *ng = am_llsd_insert(map, "NoGeometry", err);
        if (!ng)
            return err ? err->code : AM_ERR_NOMEM;
        am_llsd_set_boolean(ng, true);
        return AM_OK;
    }
    if (n > AM_MESH_MAX_FACE_VERTICES)
        return fail_face(err, block, fi, "%zu vertices; U16 indices address at most %zu", n,
                         (size_t)AM_MESH_MAX_FACE_VERTICES);
    if (!f->position_codes && !f->positions)
        return fail_face(err, block, fi, "no positions (%zu vertices)", n);
    if (f->index_count % 3)
        return fail_face(err, block, fi, "%zu indices is not a multiple of 3", f->index_count);
    if (f->index_count && !f->indices)
        return fail_face(err, block, fi, "%zu indices but no index array", f->index_count);
    if (f->index_count > 0xFFFFFFFFu / 2)
        return fail_face(err, block, fi, "%zu indices is too many", f->index_count);

    /* Position + PositionDomain */
    uint8_t *buf = malloc(6 * n);
    if (!buf)
        return am_fail_nomem(err, "positions");
    double mn[3], mx[3];
    if (f->position_codes) {
        mn[0] = f->pos_min.x, mn[1] = f->pos_min.y, mn[2] = f->pos_min.z;
        mx[0] = f->pos_max.x, mx[1] = f->pos_max.y, mx[2] = f->pos_max.z;
        for (size_t i = 0; i < 3 * n; i++)
            am_le_put_u16(buf + 2 * i, f->position_codes[i]);
    } else {
        float range[3];
        for (int k = 0; k < 3; k++) {
            mn[k] = box->min[k];
            mx[k] = box->max[k];
            range[k] = box->max[k] - box->min[k];
        }
        for (size_t i = 0; i < 3 * n; i++)
            am_le_put_u16(buf + 2 * i, am_mesh_quantize(f->positions[i], box->min[i % 3], range[i % 3]));
    }
    if ((s = put_binary(map, "Position", buf, 6 * n, err)) || (s = put_domain(map, "PositionDomain", mn, mx, 3, err)))
        return s;

    /* Normal */
    if (f->normal_codes || f->normals) {
        if (!(buf = malloc(6 * n)))
            return am_fail_nomem(err, "normals");
        for (size_t i = 0; i < 3 * n; i++)
            am_le_put_u16(buf + 2 * i, f->normal_codes ? f->normal_codes[i] : am_mesh_quantize_normal(f->normals[i]));
        if ((s = put_binary(map, "Normal", buf, 6 * n, err)))
            return s;
    }

    /* TexCoord0 + TexCoord0Domain (domain over this face's own UVs) */
    if (f->uv_codes || f->uvs) {
        if (!(buf = malloc(4 * n)))
            return am_fail_nomem(err, "uvs");
        double umin[2], umax[2];
        if (f->uv_codes) {
            memcpy(umin, f->uv_min, sizeof umin);
            memcpy(umax, f->uv_max, sizeof umax);
            for (size_t i = 0; i < 2 * n; i++)
                am_le_put_u16(buf + 2 * i, f->uv_codes[i]);
        } else {
            float lo[2] = {f->uvs[0], f->uvs[1]}, hi[2] = {f->uvs[0], f->uvs[1]}, range[2];
            for (size_t i = 0; i < 2 * n; i++) {
                if (!isfinite(f->uvs[i])) {
                    free(buf);
                    return fail_face(err, block, fi, "UV %zu of vertex %zu is not finite", i % 2, i / 2);
                }
                lo[i % 2] = f->uvs[i] < lo[i % 2] ? f->uvs[i] : lo[i % 2];
                hi[i % 2] = f->uvs[i] > hi[i % 2] ? f->uvs[i] : hi[i % 2];
            }
            for (int k = 0; k < 2; k++) {
                range[k] = hi[k] - lo[k];
                umin[k] = lo[k];
                umax[k] = hi[k];
            }
            for (size_t i = 0; i < 2 * n; i++)
                am_le_put_u16(buf + 2 * i, am_mesh_quantize(f->uvs[i], lo[i % 2], range[i % 2]));
        }
        if ((s = put_binary(map, "TexCoord0", buf, 4 * n, err)) ||
            (s = put_domain(map, "TexCoord0Domain", umin, umax, 2, err)))
            return s;
    }

    /* NormalizedScale: always written with geometry; (0,0,0) = unset */
    am_vec3 ns = f->normalized_scale;
    if (ns.x == 0 && ns.y == 0 && ns.z == 0)
        ns = am_v3(1, 1, 1);
    double nsv[3] = {ns.x, ns.y, ns.z};
    if ((s = put_vec(map, "NormalizedScale", nsv, 3, err)))
        return s;

    /* TriangleList (the uploader's validate_face: every index below the vertex count) */
    if (!(buf = malloc(2 * f->index_count + 1)))
        return am_fail_nomem(err, "indices");
    for (size_t i = 0; i < f->index_count; i++) {
        if (f->indices[i] >= n) {
            free(buf);
            return fail_face(err, block, fi, "index %zu is %u, not below the vertex count %zu", i, f->indices[i], n);
        }
        am_le_put_u16(buf + 2 * i, f->indices[i]);
    }
    if ((s = put_binary(map, "TriangleList", buf, 2 * f->index_count, err)))
        return s;

    if (f->has_weights)
        return encode_weights(f, a, block, fi, map, err);
    return AM_OK;
}

/* The viewer's writer takes one PositionDomain over all faces of the LOD model. */
static am_status lod_box_of(const am_mesh_lod *lod, const char *block, lod_box *box, am_error *err)
{
    memset(box, 0, sizeof *box);
    for (size_t fi = 0; fi < lod->face_count; fi++) {
        const am_mesh_face *f = &lod->faces[fi];
        if (f->no_geometry || f->vertex_count < 3 || f->position_codes || !f->positions)
            continue;
        for (size_t i = 0; i < 3 * f->vertex_count; i++) {
            float p = f->positions[i];
            int k = (int)(i % 3);
            if (!isfinite(p))
                return fail_face(err, block, fi, "position component %zu of vertex %zu is not finite", i % 3, i / 3);
            if (!box->any) {
                box->min[k] = box->max[k] = p;
                if (k == 2)
                    box->any = true;
                continue;
            }
            box->min[k] = p < box->min[k] ? p : box->min[k];
            box->max[k] = p > box->max[k] ? p : box->max[k];
        }
    }
    return AM_OK;
}

static am_status encode_lod(const am_mesh_lod *lod, const am_mesh_asset *a, const char *block, int level,
                            am_buf *out, am_error *err)
{
    lod_box box;
    am_status s = lod_box_of(lod, block, &box, err);
    if (s)
        return s;
    am_llsd arr;
    memset(&arr, 0, sizeof arr);
    am_llsd_set_array(&arr);
    for (size_t fi = 0; fi < lod->face_count && !s; fi++) {
        am_llsd *m = am_llsd_push(&arr, err);
        if (!m)
            s = err ? err->code : AM_ERR_NOMEM;
        else
            s = encode_face(&lod->faces[fi], &box, a, block, fi, m, err);
    }
    am_buf raw = {0};
    if (!s)
        s = am_llsd_format(&arr, &raw, err);
    am_llsd_free(&arr);
    if (!s)
        s = am_zblock_deflate_level(raw.data, raw.size, level, out, err);
    am_buf_free(&raw);
    return s;
}

/* ---------- skin (LLMeshSkinInfo::asLLSD) ---------- */

static am_status put_matrix(am_llsd *arr, const am_mat4 *m, am_error *err)
{
    am_llsd_set_array(arr);
    for (int i = 0; i < 16; i++) {
        am_llsd *e = am_llsd_push(arr, err);
        if (!e)
            return err ? err->code : AM_ERR_NOMEM;
        am_llsd_set_real(e, m->m[i]);
    }
    return AM_OK;
}

static am_status put_matrix_list(am_llsd *map, const char *key, const am_mat4 *ms, size_t n, am_error *err)
{
    am_llsd *a = am_llsd_insert(map, key, err);
    if (!a)
        return err ? err->code : AM_ERR_NOMEM;
    am_llsd_set_array(a);
    for (size_t i = 0; i < n; i++) {
        am_llsd *e = am_llsd_push(a, err);
        if (!e)
            return err ? err->code : AM_ERR_NOMEM;
        am_status s = put_matrix(e, &ms[i], err);
        if (s)
            return s;
    }
    return AM_OK;
}

static am_status skin_refuse(am_error *err, const char *msg, size_t n) __attribute__((format(printf, 2, 0)));

static am_status skin_refuse(am_error *err, const char *msg, size_t n)
{
    char buf[200];
    snprintf(buf, sizeof buf, msg, n);
    am_fail(err, AM_ERR_INVALID, "%s", buf);
    am_error_where(err, "encoding skin block");
    return AM_ERR_INVALID;
}

static am_status encode_skin(const am_mesh_skin *sk, int level, am_buf *out, am_error *err)
{
    if (sk->joint_count == 0)
        return skin_refuse(err, "no joints (%zu joint_names)", sk->joint_count);
    if (sk->joint_count > 110)
        return skin_refuse(err, "%zu joints; the viewer allows at most 110 per mesh", sk->joint_count);
    if (!sk->joint_names || !sk->inverse_bind)
        return skin_refuse(err, "joint_names or inverse_bind missing for %zu joints", sk->joint_count);
    am_status s = AM_OK;
    am_llsd m;
    memset(&m, 0, sizeof m);
    am_llsd_set_map(&m);
    am_llsd *names = am_llsd_insert(&m, "joint_names", err);
    if (!names)
        s = err ? err->code : AM_ERR_NOMEM;
    else
        am_llsd_set_array(names);
    for (size_t i = 0; i < sk->joint_count && !s; i++) {
        if (!sk->joint_names[i]) {
            s = skin_refuse(err, "joint %zu has no name", i);
            break;
        }
        am_llsd *e = am_llsd_push(names, err);
        s = e ? am_llsd_set_string(e, sk->joint_names[i], err) : (err ? err->code : AM_ERR_NOMEM);
    }
    if (!s)
        s = put_matrix_list(&m, "inverse_bind_matrix", sk->inverse_bind, sk->joint_count, err);
    if (!s) {
        am_llsd *b = am_llsd_insert(&m, "bind_shape_matrix", err);
        s = b ? put_matrix(b, &sk->bind_shape, err) : (err ? err->code : AM_ERR_NOMEM);
    }
    if (!s && sk->alt_inverse_bind) {
        size_t alt_n = sk->alt_count ? sk->alt_count : sk->joint_count;
        s = put_matrix_list(&m, "alt_inverse_bind_matrix", sk->alt_inverse_bind, alt_n, err);
    }
    if (!s && (sk->alt_inverse_bind || sk->has_pelvis_offset)) {
        am_llsd *p = am_llsd_insert(&m, "pelvis_offset", err);
        if (p)
            am_llsd_set_real(p, sk->has_pelvis_offset ? sk->pelvis_offset : 0.0);
        else
            s = err ? err->code : AM_ERR_NOMEM;
    }
    if (!s && sk->lock_scale_if_joint_position) {
        am_llsd *l = am_llsd_insert(&m, "lock_scale_if_joint_position", err);
        if (l)
            am_llsd_set_boolean(l, true);
        else
            s = err ? err->code : AM_ERR_NOMEM;
    }
    am_buf raw = {0};
    if (!s)
        s = am_llsd_format(&m, &raw, err);
    am_llsd_free(&m);
    if (!s)
        s = am_zblock_deflate_level(raw.data, raw.size, level, out, err);
    am_buf_free(&raw);
    return s;
}

/* ---------- the whole asset ---------- */

#define PARALLEL_MIN_INDICES 100000 /* the blocks encoded side by side from this many LOD indices */

/* One block's encode (skin, physics, a LOD), each its own job; jobs are taken biggest
 * first: the high LOD's deflate is most of an asset's time. */
typedef struct block_jobs {
    const am_mesh_asset *a;
    int level; /* zlib 0..9 */
    am_buf *blocks;
    bool present[AM_BLOCK_COUNT];
    am_status st[AM_BLOCK_COUNT];
    am_error err[AM_BLOCK_COUNT];
} block_jobs;

static void block_job(void *user, size_t i, int worker)
{
    (void)worker;
    static const int biggest_first[AM_BLOCK_COUNT] = {AM_BLOCK_HIGH,           AM_BLOCK_MEDIUM, AM_BLOCK_PHYSICS_MESH,
                                                      AM_BLOCK_LOW,            AM_BLOCK_LOWEST, AM_BLOCK_SKIN,
                                                      AM_BLOCK_PHYSICS_CONVEX};
    block_jobs *j = user;
    const am_mesh_asset *a = j->a;
    int b = biggest_first[i];
    am_error *err = &j->err[b];
    am_error_clear(err);
    const char *name = am_mesh_block_name(b);
    am_status s = AM_OK;
    if (b == AM_BLOCK_SKIN && a->has_skin) {
        s = encode_skin(&a->skin, j->level, &j->blocks[b], err);
        j->present[b] = true;
    } else if (b == AM_BLOCK_PHYSICS_CONVEX && a->physics_convex_raw) {
        am_llsd check;
        s = am_llsd_parse(a->physics_convex_raw, a->physics_convex_size, NULL, &check, NULL, err);
        am_llsd_free(&check);
        if (s)
            am_error_where(err, "encoding physics_convex (not valid binary LLSD)");
        else
            s = am_zblock_deflate_level(a->physics_convex_raw, a->physics_convex_size, j->level, &j->blocks[b], err);
        j->present[b] = true;
    } else if (b <= AM_BLOCK_HIGH && a->lods[b].face_count) {
        s = encode_lod(&a->lods[b], a, name, j->level, &j->blocks[b], err);
        j->present[b] = true;
    } else if (b == AM_BLOCK_PHYSICS_MESH && a->physics_mesh.face_count) {
        s = encode_lod(&a->physics_mesh, a, name, j->level, &j->blocks[b], err);
        j->present[b] = true;
    }
    j->st[b] = s;
}

am_status am_mesh_asset_encode(const am_mesh_asset *a, am_buf *out, am_error *err)
{
    return am_mesh_asset_encode_level(a, 9, out, err); /* Z_BEST_COMPRESSION (zblock.h) */
}

am_status am_mesh_asset_encode_level(const am_mesh_asset *a, int level, am_buf *out, am_error *err)
{
    /* the writer's order: skin, physics_convex, lowest, low, medium, high, physics_mesh */
    static const int order[AM_BLOCK_COUNT] = {AM_BLOCK_SKIN, AM_BLOCK_PHYSICS_CONVEX, AM_BLOCK_LOWEST, AM_BLOCK_LOW,
                                              AM_BLOCK_MEDIUM, AM_BLOCK_HIGH, AM_BLOCK_PHYSICS_MESH};
    am_buf blocks[AM_BLOCK_COUNT];
    memset(blocks, 0, sizeof blocks);
    bool present[AM_BLOCK_COUNT] = {false};
    am_status s = AM_OK;
    bool any_lod = false;
    for (int l = 0; l < AM_LOD_COUNT; l++)
        any_lod |= a->lods[l].face_count > 0;
    if (!any_lod) {
        am_fail(err, AM_ERR_INVALID, "no LOD has faces: the viewer would mark the mesh missing");
        am_error_where(err, "encoding mesh asset");
        return AM_ERR_INVALID;
    }
    /* every block on its own (core/parallel.h), the high LOD, the biggest, first; the first
     * failure in the writer's order is the one reported, as when they ran one by one */
    block_jobs jobs;
    memset(&jobs, 0, sizeof jobs);
    jobs.a = a;
    jobs.level = level;
    jobs.blocks = blocks;
    size_t indices = 0; /* a small asset is not worth a thread */
    for (int l = 0; l < AM_LOD_COUNT; l++)
        for (size_t f = 0; f < a->lods[l].face_count; f++)
            indices += a->lods[l].faces[f].index_count;
    am_parallel_for(AM_BLOCK_COUNT, indices < PARALLEL_MIN_INDICES ? 1 : 0, block_job, &jobs);
    for (int i = 0; i < AM_BLOCK_COUNT; i++)
        present[order[i]] = jobs.present[order[i]];
    for (int i = 0; i < AM_BLOCK_COUNT && !s; i++)
        if ((s = jobs.st[order[i]]) && err)
            *err = jobs.err[order[i]];

    am_llsd hdr;
    memset(&hdr, 0, sizeof hdr);
    am_llsd_set_map(&hdr);
    size_t offset = 0;
    for (int i = 0; i < AM_BLOCK_COUNT && !s; i++) {
        int b = order[i];
        if (!present[b])
            continue;
        if (offset + blocks[b].size > 0x7FFFFFFF) {
            s = am_fail(err, AM_ERR_INVALID, "mesh asset exceeds 2 GiB (S32 offsets)");
            break;
        }
        am_llsd *e = am_llsd_insert(&hdr, am_mesh_block_name(b), err);
        am_llsd *o = e ? (am_llsd_set_map(e), am_llsd_insert(e, "offset", err)) : NULL;
        if (o)
            am_llsd_set_integer(o, (int32_t)offset);
        am_llsd *z = o ? am_llsd_insert(e, "size", err) : NULL;
        if (!z) {
            s = err ? err->code : AM_ERR_NOMEM;
            break;
        }
        am_llsd_set_integer(z, (int32_t)blocks[b].size);
        offset += blocks[b].size;
    }
    if (!s && a->has_version) {
        am_llsd *v = am_llsd_insert(&hdr, "version", err);
        if (v)
            am_llsd_set_integer(v, (int32_t)a->version);
        else
            s = err ? err->code : AM_ERR_NOMEM;
    }
    if (!s && a->material_count) {
        am_llsd *ml = am_llsd_insert(&hdr, "material_list", err);
        if (!ml)
            s = err ? err->code : AM_ERR_NOMEM;
        else
            am_llsd_set_array(ml);
        for (size_t i = 0; i < a->material_count && !s; i++) {
            am_llsd *e = am_llsd_push(ml, err);
            s = e ? am_llsd_set_string(e, a->material_list[i] ? a->material_list[i] : "", err)
                  : (err ? err->code : AM_ERR_NOMEM);
        }
    }
    am_buf head = {0};
    if (!s)
        s = am_llsd_format(&hdr, &head, err);
    am_llsd_free(&hdr);
    if (!s && head.size > AM_MESH_HEADER_MAX) {
        s = am_fail(err, AM_ERR_INVALID,
                    "header is %zu bytes; the viewer reads only the first %d (MESH_HEADER_SIZE)", head.size,
                    AM_MESH_HEADER_MAX);
        am_error_where(err, "encoding mesh asset header");
    }
    if (!s)
        s = am_buf_append(out, head.data, head.size, err);
    for (int i = 0; i < AM_BLOCK_COUNT && !s; i++)
        if (present[order[i]] && blocks[order[i]].size)
            s = am_buf_append(out, blocks[order[i]].data, blocks[order[i]].size, err);
    am_buf_free(&head);
    for (int i = 0; i < AM_BLOCK_COUNT; i++)
        am_buf_free(&blocks[i]);
    return s;
}
