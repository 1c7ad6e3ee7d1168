/* The skin builder's driver: weights, faces, normalisation, LOD faces and the skin block
 * (the steps are documented in skin_build.h). */
#include "skin/skin_build.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/clock.h"
#include "core/parallel.h"
#include "core/radix.h"
#include "skin/skin_internal.h"
#include "skin/skin_weights.h"

void am_skin_options_init(am_skin_options *opts)
{
    memset(opts, 0, sizeof *opts);
    opts->region_max_tris = AM_SKIN_DEFAULT_REGION_MAX_TRIS;
    opts->face_vertex_limit = AM_SKIN_DEFAULT_FACE_VERTEX_LIMIT;
    opts->lod_ratio[0] = opts->lod_ratio[1] = opts->lod_ratio[2] = 0.25;
    opts->lod_error[0] = 0.01;
    opts->lod_error[1] = 0.03;
    opts->lod_error[2] = 0.1;
    opts->lod_weight_tol[0] = 0.05;
    opts->lod_weight_tol[1] = 0.1;
    opts->lod_weight_tol[2] = 0.15;
    opts->max_tris = AM_SKIN_MAX_TRIS_AUTO;
}

void am_skin_summary_free(am_skin_summary *sum)
{
    if (!sum)
        return;
    am_string_free(&sum->name);
    for (size_t j = 0; j < sum->joint_count && j < AM_MAX_JOINTS_PER_MESH; j++)
        am_string_free(&sum->joints[j].name);
    am_string_free(&sum->llmesh_path);
    am_string_free(&sum->dae_path);
    am_string_free(&sum->meshdata_path);
    am_string_free(&sum->preview_path);
    am_string_list_free(sum->warnings, sum->warning_count);
    memset(sum, 0, sizeof *sum);
}

bool am_skin_summary_copy(am_skin_summary *dst, const am_skin_summary *src)
{
    am_skin_summary_free(dst);
    *dst = *src;
    /* the strings are the copy's own: unset first, so a partial copy frees cleanly */
    dst->name = (am_string){0};
    for (size_t j = 0; j < AM_MAX_JOINTS_PER_MESH; j++)
        dst->joints[j].name = (am_string){0};
    dst->llmesh_path = dst->dae_path = dst->meshdata_path = dst->preview_path = (am_string){0};
    dst->warnings = NULL;
    dst->warning_count = dst->warning_cap = 0;
    bool ok = am_string_copy(&dst->name, &src->name) && am_string_copy(&dst->llmesh_path, &src->llmesh_path) &&
              am_string_copy(&dst->dae_path, &src->dae_path) &&
              am_string_copy(&dst->meshdata_path, &src->meshdata_path) &&
              am_string_copy(&dst->preview_path, &src->preview_path);
    for (size_t j = 0; ok && j < src->joint_count && j < AM_MAX_JOINTS_PER_MESH; j++)
        ok = am_string_copy(&dst->joints[j].name, &src->joints[j].name);
    for (size_t i = 0; ok && i < src->warning_count; i++)
        ok = am_string_list_push(&dst->warnings, &dst->warning_count, &dst->warning_cap, am_str(&src->warnings[i]));
    return ok;
}

void am_skin_result_free(am_skin_result *res)
{
    if (!res)
        return;
    am_skin_summary_free(&res->summary);
    am_string_free(&res->texture_image);
    for (size_t f = 0; f < AM_MESH_MAX_FACES; f++)
        am_string_free(&res->face_images[f]);
    am_mesh_asset_free(&res->asset);
    free(res->rig_vertex);
    free(res->positions);
    free(res->normals);
    free(res->uvs);
    free(res->weight_count);
    free(res->weight_joint);
    free(res->weight_value);
    free(res->weight_code);
    free(res->triangles);
    memset(res, 0, sizeof *res);
}

/* Per high-LOD face: the normalised attributes of its vertices, in local order. */
typedef struct face_attr {
    float *pos;   /* 3 per local vertex, normalised */
    float *nrm;   /* 3, normalised-frame normals */
    float *uv;    /* 2 */
    uint8_t *wcount, *wjoint; /* stored influences per local vertex (1 + 4) */
    float *wvalue;            /* 4: code / 65535 */
    uint32_t *cls;/* weight class per local vertex: medium LOD (joint + band) */
    uint32_t *cls_far; /* low and lowest LODs (dominant joint only) */
} face_attr;

/* Build one asset face from `idx` (local indices into the high face `src`), keeping only
 * the vertices used, quantised over the LOD-wide position domain. */
static am_status make_face(const am_skin_face_split *src, const face_attr *at, const am_skin_result *res,
                           const uint32_t *idx, size_t n_idx, const float dmin[3], const float dmax[3],
                           const am_skin_norm *norm, am_mesh_face *f, am_error *err)
{
    memset(f, 0, sizeof *f);
    uint32_t *remap = malloc(src->vertex_count * sizeof *remap);
    if (!remap)
        return am_fail_nomem(err, "LOD face");
    for (size_t i = 0; i < src->vertex_count; i++)
        remap[i] = UINT32_MAX;
    size_t nv = 0;
    for (size_t i = 0; i < n_idx; i++)
        if (remap[idx[i]] == UINT32_MAX)
            remap[idx[i]] = (uint32_t)nv++;
    f->vertex_count = nv;
    f->index_count = n_idx;
    f->positions = malloc(nv * 3 * sizeof(float));
    f->normals = malloc(nv * 3 * sizeof(float));
    f->uvs = malloc(nv * 2 * sizeof(float));
    f->position_codes = malloc(nv * 3 * sizeof(uint16_t));
    f->normal_codes = malloc(nv * 3 * sizeof(uint16_t));
    f->uv_codes = malloc(nv * 2 * sizeof(uint16_t));
    f->indices = malloc(n_idx * sizeof(uint16_t));
    f->weight_count = malloc(nv);
    f->weight_joint = calloc(nv * 4, 1);
    f->weight_code = calloc(nv * 4, sizeof(uint16_t));
    f->weight_value = calloc(nv * 4, sizeof(float));
    if (!f->positions || !f->normals || !f->uvs || !f->position_codes || !f->normal_codes || !f->uv_codes ||
        !f->indices || !f->weight_count || !f->weight_joint || !f->weight_code || !f->weight_value) {
        free(remap);
        return am_fail_nomem(err, "LOD face");
    }
    f->has_weights = true;
    f->pos_min = am_v3(dmin[0], dmin[1], dmin[2]);
    f->pos_max = am_v3(dmax[0], dmax[1], dmax[2]);
    f->normalized_scale = am_v3(norm->inv_scale[0], norm->inv_scale[1], norm->inv_scale[2]);
    /* UV domain over this face's vertices (TexCoord0Domain is per face). */
    float umin[2] = {INFINITY, INFINITY}, umax[2] = {-INFINITY, -INFINITY};
    for (size_t i = 0; i < src->vertex_count; i++) {
        if (remap[i] == UINT32_MAX)
            continue;
        for (int k = 0; k < 2; k++) {
            float u = at->uv[2 * i + k];
            umin[k] = u < umin[k] ? u : umin[k];
            umax[k] = u > umax[k] ? u : umax[k];
        }
    }
    for (int k = 0; k < 2; k++) {
        f->uv_min[k] = umin[k];
        f->uv_max[k] = umax[k];
    }
    for (size_t i = 0; i < src->vertex_count; i++) {
        uint32_t o = remap[i];
        if (o == UINT32_MAX)
            continue;
        for (int k = 0; k < 3; k++) {
            /* the asset's quantisation (docs/reference/mesh-asset.md#quantisation), decoded values as the viewer's */
            float range = dmax[k] - dmin[k];
            uint16_t q = am_mesh_quantize(at->pos[3 * i + k], dmin[k], range);
            f->position_codes[3 * o + k] = q;
            f->positions[3 * o + k] = am_mesh_dequantize(q, dmin[k], range);
            uint16_t nc = am_mesh_quantize_normal(at->nrm[3 * i + k]);
            f->normal_codes[3 * o + k] = nc;
            f->normals[3 * o + k] = am_mesh_dequantize_normal(nc);
        }
        for (int k = 0; k < 2; k++) {
            float range = umax[k] - umin[k];
            uint16_t q = am_mesh_quantize(at->uv[2 * i + k], umin[k], range);
            f->uv_codes[2 * o + k] = q;
            f->uvs[2 * o + k] = am_mesh_dequantize(q, umin[k], range);
        }
        uint32_t v = src->vertices[i];
        f->weight_count[o] = res->weight_count[v];
        for (int k = 0; k < res->weight_count[v]; k++) {
            uint16_t q = res->weight_code[4 * v + k];
            f->weight_joint[4 * o + k] = res->weight_joint[4 * v + k];
            f->weight_code[4 * o + k] = q;
            f->weight_value[4 * o + k] = am_mesh_weight_value(q);
        }
    }
    for (size_t i = 0; i < n_idx; i++)
        f->indices[i] = (uint16_t)remap[idx[i]];
    free(remap);
    return AM_OK;
}

/* Weights of every rig vertex, in skin joint indices (step 3). */
static am_status build_weights(const am_rig *rig, const int *rig_to_skin, am_skin_result *res, am_error *err)
{
    am_skin_summary *sum = &res->summary;
    size_t n = rig->vertex_count;
    res->weight_count = malloc(n);
    res->weight_joint = calloc(n * 4, 1);
    res->weight_value = calloc(n * 4, sizeof(double));
    res->weight_code = calloc(n * 4, sizeof(uint16_t));
    if (!res->weight_count || !res->weight_joint || !res->weight_value || !res->weight_code)
        return am_fail_nomem(err, "weights");
    am_weight_in buf[64];
    for (size_t v = 0; v < n; v++) {
        size_t a = rig->weight_start[v], b = rig->weight_start[v + 1];
        if (b < a || b - a > sizeof buf / sizeof buf[0]) {
            am_fail(err, AM_ERR_INVALID, "%zu influences (at most %zu accepted before the cap to 4)", b - a,
                    sizeof buf / sizeof buf[0]);
            am_error_where(err, "vertex %zu", v);
            return AM_ERR_INVALID;
        }
        for (size_t k = a; k < b; k++) {
            int j = rig->influences[k].joint;
            if (j < 0 || (size_t)j >= rig->joint_count) {
                am_fail(err, AM_ERR_INVALID, "influence %zu: joint index %d out of range (%zu joints)", k - a, j,
                        rig->joint_count);
                am_error_where(err, "vertex %zu", v);
                return AM_ERR_INVALID;
            }
            buf[k - a].joint = rig_to_skin[j];
            buf[k - a].weight = rig->influences[k].weight;
        }
        am_vertex_weights vw;
        if (am_weights_prepare(buf, b - a, (int)sum->joint_count, &vw, err)) {
            am_error_where(err, "vertex %zu", v);
            return err ? err->code : AM_ERR_INVALID;
        }
        res->weight_count[v] = vw.count;
        for (int k = 0; k < vw.count; k++) {
            res->weight_joint[4 * v + k] = (uint8_t)vw.joint[k];
            res->weight_value[4 * v + k] = vw.weight[k];
            res->weight_code[4 * v + k] = vw.code[k];
        }
        if (vw.merged_count > sum->max_influences_in)
            sum->max_influences_in = vw.merged_count;
        if (vw.count > sum->max_influences_out)
            sum->max_influences_out = vw.count;
        sum->influences_dropped += vw.dropped;
        if (vw.merged_count > AM_MAX_INFLUENCES)
            sum->vertices_capped++;
        if (vw.dropped_small)
            sum->vertices_small_dropped++;
        if (vw.renormalised)
            sum->vertices_renormalised++;
    }
    if (sum->vertices_capped)
        am_skin_warn(sum, "%zu vertices had more than 4 influences (up to %zu): the smallest were dropped and the rest "
                          "renormalised",
                     sum->vertices_capped, sum->max_influences_in);
    if (sum->vertices_small_dropped)
        am_skin_warn(sum,
                     "%zu vertices had an influence too small to store (under 1/65535 of the vertex's weight): "
                     "dropped and the rest renormalised",
                     sum->vertices_small_dropped);
    if (sum->vertices_renormalised)
        am_skin_warn(sum, "%zu vertices had weights not summing to 1: renormalised", sum->vertices_renormalised);
    return AM_OK;
}

static bool same_pos(const float *pos, uint32_t a, uint32_t b)
{
    return pos[3 * (size_t)a] == pos[3 * (size_t)b] && pos[3 * (size_t)a + 1] == pos[3 * (size_t)b + 1] &&
           pos[3 * (size_t)a + 2] == pos[3 * (size_t)b + 2];
}

/* Coincident positions with different weights: the COLLADA uploader keys weights by
 * position and would give them one list (docs/reference/collada-upload.md#weights). Vertices sorted by
 * position (three stable radix passes: z, y, then x), equal neighbours compared. */
static void count_coincident(am_skin_result *res)
{
    size_t n = res->vertex_count;
    uint32_t *idx = malloc((n ? n : 1) * sizeof *idx), *key = malloc((n ? n : 1) * sizeof *key);
    if (!idx || !key) {
        free(idx);
        free(key);
        return;
    }
    for (size_t i = 0; i < n; i++)
        idx[i] = (uint32_t)i;
    for (int axis = 2; axis >= 0; axis--) {
        for (size_t i = 0; i < n; i++) {
            float f = res->positions[3 * (size_t)idx[i] + axis];
            key[i] = am_radix_float_key(f == 0 ? 0.0f : f); /* -0 == +0 */
        }
        if (am_radix_sort_u32(key, idx, n, NULL)) {
            free(idx);
            free(key);
            return;
        }
    }
    size_t conflicts = 0;
    for (size_t i = 1; i < n; i++) {
        uint32_t a = idx[i - 1], b = idx[i];
        if (!same_pos(res->positions, a, b))
            continue;
        bool same = res->weight_count[a] == res->weight_count[b];
        for (int k = 0; same && k < res->weight_count[a]; k++)
            same = res->weight_joint[4 * a + k] == res->weight_joint[4 * b + k] &&
                   res->weight_code[4 * a + k] == res->weight_code[4 * b + k];
        if (!same)
            conflicts++;
    }
    free(idx);
    free(key);
    res->summary.coincident_conflicts = conflicts;
    if (conflicts)
        am_skin_warn(&res->summary,
                     "%zu vertices share a position with a vertex weighted differently: the .llmesh keeps both, but the "
                     "viewer's COLLADA uploader gives them one weight list",
                     conflicts);
}

static am_status check_rig(const am_rig *rig, am_error *err)
{
    if (rig->vertex_count < 3 || !rig->positions || !rig->normals || !rig->uvs)
        return am_fail(err, AM_ERR_INVALID, "the rig needs at least 3 vertices with positions, normals and UVs");
    if (rig->triangle_count == 0 || !rig->triangles)
        return am_fail(err, AM_ERR_INVALID, "the rig has no triangles");
    if (!rig->weight_start || !rig->influences)
        return am_fail(err, AM_ERR_INVALID, "the rig has no weights");
    for (size_t i = 0; i < 3 * rig->vertex_count; i++)
        if (!isfinite(rig->positions[i]) || !isfinite(rig->normals[i]))
            return am_fail(err, AM_ERR_INVALID, "vertex %zu: position or normal is not finite", i / 3);
    for (size_t i = 0; i < 2 * rig->vertex_count; i++)
        if (!isfinite(rig->uvs[i]))
            return am_fail(err, AM_ERR_INVALID, "vertex %zu: UV is not finite", i / 2);
    /* Metres in the bind frame: beyond this the 16-bit position domain, the viewer's 64 m
     * scale fix-up and every region size say it is a unit mistake, not a creature. */
    for (size_t v = 0; v < rig->vertex_count; v++) {
        am_vec3 p = am_rig_bind_position(rig, v);
        double c[3] = {p.x, p.y, p.z};
        for (int k = 0; k < 3; k++)
            if (!(fabs(c[k]) <= AM_RIG_MAX_COORD_M))
                return am_fail(err, AM_ERR_INVALID,
                               "vertex %zu: coordinate %g m is beyond +-%g m (bind frame, metres: wrong units?)", v,
                               c[k], AM_RIG_MAX_COORD_M);
    }
    for (size_t j = 0; j < rig->joint_count; j++) {
        am_vec3 w = rig->joints[j].world;
        if (!isfinite(w.x) || !isfinite(w.y) || !isfinite(w.z) || fabs(w.x) > AM_RIG_MAX_COORD_M ||
            fabs(w.y) > AM_RIG_MAX_COORD_M || fabs(w.z) > AM_RIG_MAX_COORD_M)
            return am_fail(err, AM_ERR_INVALID, "joint '%s': world (%g, %g, %g) is beyond +-%g m (bind frame, metres)",
                           rig->joints[j].name, w.x, w.y, w.z, AM_RIG_MAX_COORD_M);
    }
    if (rig->face_count) {
        if (!rig->face_start || rig->face_start[0] != 0 || rig->face_start[rig->face_count] != rig->triangle_count)
            return am_fail(err, AM_ERR_INVALID, "the rig's faces do not cover its %zu triangles", rig->triangle_count);
        for (size_t f = 0; f < rig->face_count; f++)
            if (rig->face_start[f + 1] <= rig->face_start[f])
                return am_fail(err, AM_ERR_INVALID, "face %zu of the rig holds no triangle", f);
    }
    for (size_t t = 0; t < rig->triangle_count; t++)
        for (int k = 0; k < 3; k++)
            if (rig->triangles[3 * t + k] >= rig->vertex_count)
                return am_fail(err, AM_ERR_INVALID, "triangle %zu: vertex index %u out of range (%zu vertices)", t,
                               rig->triangles[3 * t + k], rig->vertex_count);
    return AM_OK;
}

/* The viewer scales an animesh whose animated box exceeds 64 m down to fit
 * (docs/reference/viewer-skeleton.md#corrective-fix-ups):
 * legal, but the creature will not be the size it was built at. */
static void warn_if_oversized(const am_rig *rig, am_skin_summary *sum)
{
    float lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
    for (size_t i = 0; i < rig->vertex_count; i++) {
        am_vec3 p = am_rig_bind_position(rig, i);
        float c[3] = {(float)p.x, (float)p.y, (float)p.z};
        for (int k = 0; k < 3; k++) {
            lo[k] = c[k] < lo[k] ? c[k] : lo[k];
            hi[k] = c[k] > hi[k] ? c[k] : hi[k];
        }
    }
    float side = 0;
    for (int k = 0; k < 3; k++)
        side = hi[k] - lo[k] > side ? hi[k] - lo[k] : side;
    if (side > AM_ANIMESH_MAX_LEGAL_SIZE_M)
        am_skin_warn(sum, "the mesh is %.1f m across: the viewer scales an animesh larger than %g m down to fit "
                          "(AnimatedObjectsMaxLegalSize)", (double)side, AM_ANIMESH_MAX_LEGAL_SIZE_M);
}

/* Copy the rig's geometry (bind frame) into the result, triangles as they are (faces are
 * consecutive runs of them). */
static am_status copy_geometry(const am_rig *rig, am_skin_result *res, am_error *err)
{
    size_t n = rig->vertex_count;
    res->vertex_count = n;
    res->positions = malloc(n * 3 * sizeof(float));
    res->normals = malloc(n * 3 * sizeof(float));
    res->uvs = malloc(n * 2 * sizeof(float));
    res->triangles = malloc(rig->triangle_count * 3 * sizeof(uint32_t));
    if (!res->positions || !res->normals || !res->uvs || !res->triangles)
        return am_fail_nomem(err, "skin geometry");
    memcpy(res->positions, rig->positions, n * 3 * sizeof(float));
    memcpy(res->uvs, rig->uvs, n * 2 * sizeof(float));
    for (size_t i = 0; i < n; i++) {
        const float *v = &rig->normals[3 * i];
        float len = sqrtf(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
        for (int k = 0; k < 3; k++)
            res->normals[3 * i + k] = len > 0 ? v[k] / len : 0.0f;
    }
    memcpy(res->triangles, rig->triangles, rig->triangle_count * 3 * sizeof(uint32_t));
    res->triangle_count = rig->triangle_count;
    for (int k = 0; k < 3; k++)
        res->rgb[k] = rig->rgb[k];
    res->textured = rig->textured;
    return AM_OK;
}

static am_status build_skin_info(const am_rig *rig, const am_skin_options *opts, const am_mat4 *ibm,
                                 const am_mat4 *alt, const am_skin_norm *norm, am_skin_result *res, am_error *err)
{
    am_mesh_skin *s = &res->asset.skin;
    size_t n = res->summary.joint_count;
    res->asset.has_skin = true;
    s->joint_names = calloc(n, sizeof *s->joint_names);
    s->inverse_bind = malloc(n * sizeof *s->inverse_bind);
    s->alt_inverse_bind = malloc(n * sizeof *s->alt_inverse_bind);
    if (!s->joint_names || !s->inverse_bind || !s->alt_inverse_bind)
        return am_fail_nomem(err, "skin block");
    s->joint_count = n;
    for (size_t i = 0; i < n; i++) {
        s->joint_names[i] = strdup(am_str(&res->summary.joints[i].name));
        if (!s->joint_names[i])
            return am_fail_nomem(err, "skin block");
        s->inverse_bind[i] = ibm[i];
        s->alt_inverse_bind[i] = alt[i];
    }
    s->alt_count = n;
    /* The uploader's normalisation first, then the file's own bind shape
     * (docs/reference/collada-upload.md#bind-shape-matrix);
     * identity for a computed skin, whose positions are already in the bind frame. */
    am_mat4 nt = am_skin_norm_bind_shape(norm);
    s->bind_shape = am_mat4_mul(&nt, &res->source_bind_shape);
    if (rig->explicit_skin && !rig->has_joint_positions) {
        free(s->alt_inverse_bind);
        s->alt_inverse_bind = NULL;
        s->alt_count = 0;
    }
    s->has_pelvis_offset = true; /* the uploader always writes it with joint positions */
    s->pelvis_offset = opts->pelvis_offset;
    s->lock_scale_if_joint_position = opts->lock_scale_if_joint_position;
    return AM_OK;
}

#define PARALLEL_MIN_VERTICES 20000 /* the faces' LODs side by side from this many vertices */

/* The LOD work of every face, one job per face (core/parallel.h): the faces are
 * independent until the position domain, which spans the whole LOD. */
typedef struct lod_jobs {
    const am_skin_options *opts;
    const am_skin_face_split *faces;
    const am_skin_norm *norm;
    const am_skin_result *res;
    face_attr *at;
    uint32_t *(*lod_idx)[AM_MESH_MAX_FACES];
    size_t (*lod_n)[AM_MESH_MAX_FACES];
    bool groups_parallel; /* the faces one after another: each face's classes side by side */
    am_status st[AM_MESH_MAX_FACES];
    am_error err[AM_MESH_MAX_FACES];
} lod_jobs;

/* One face: its normalised attributes, weight classes, and its LODs (each simplified from
 * the one above). */
static am_status face_lods(const lod_jobs *j, size_t f, am_error *err)
{
    const am_skin_options *opts = j->opts;
    const am_skin_face_split *src = &j->faces[f];
    const am_skin_result *res = j->res;
    face_attr *at = &j->at[f];
    size_t nv = src->vertex_count ? src->vertex_count : 1;
    at->pos = malloc(nv * 3 * sizeof(float));
    at->nrm = malloc(nv * 3 * sizeof(float));
    at->uv = malloc(nv * 2 * sizeof(float));
    at->wcount = malloc(nv);
    at->wjoint = malloc(4 * nv);
    at->wvalue = malloc(4 * nv * sizeof(float));
    at->cls = malloc(nv * sizeof(uint32_t));
    at->cls_far = malloc(nv * sizeof(uint32_t));
    if (!at->pos || !at->nrm || !at->uv || !at->wcount || !at->wjoint || !at->wvalue || !at->cls || !at->cls_far)
        return am_fail_nomem(err, "LOD attributes");
    for (size_t i = 0; i < src->vertex_count; i++) {
        size_t v = src->vertices[i];
        am_skin_norm_position(j->norm, &res->positions[3 * v], &at->pos[3 * i]);
        am_skin_norm_normal(j->norm, &res->normals[3 * v], &at->nrm[3 * i]);
        at->uv[2 * i] = res->uvs[2 * v];
        at->uv[2 * i + 1] = res->uvs[2 * v + 1];
        at->wcount[i] = res->weight_count[v];
        memcpy(&at->wjoint[4 * i], &res->weight_joint[4 * v], 4);
        for (int k = 0; k < 4; k++)
            at->wvalue[4 * i + k] = (float)(res->weight_code[4 * v + k] / 65535.0);
    }
    am_lod_mesh m = {at->pos, src->vertex_count, at->wcount, at->wjoint, at->wvalue, at->nrm};
    am_status st;
    if (opts->lod_weight_blind) {
        memset(at->cls, 0, nv * sizeof(uint32_t));
        memset(at->cls_far, 0, nv * sizeof(uint32_t));
    } else if (!opts->high_lod_only && ((st = am_skin_weight_classes(&m, true, at->cls, err)) ||
                                        (st = am_skin_weight_classes(&m, false, at->cls_far, err))))
        return st;
    /* high LOD = the face's own indices */
    j->lod_idx[AM_LOD_HIGH][f] = malloc((src->index_count ? src->index_count : 1) * sizeof(uint32_t));
    if (!j->lod_idx[AM_LOD_HIGH][f])
        return am_fail_nomem(err, "LOD indices");
    memcpy(j->lod_idx[AM_LOD_HIGH][f], src->indices, src->index_count * sizeof(uint32_t));
    j->lod_n[AM_LOD_HIGH][f] = src->index_count;
    for (int lod = AM_LOD_MEDIUM; lod >= AM_LOD_LOWEST && !opts->high_lod_only; lod--) {
        int step = AM_LOD_HIGH - lod - 1; /* 0 medium, 1 low, 2 lowest */
        am_lod_step ls = {lod == AM_LOD_MEDIUM ? at->cls : at->cls_far,
                          opts->unreduced_lods ? 1.0 : opts->lod_ratio[step], opts->lod_error[step],
                          opts->lod_weight_blind ? 0.0 : fmax(0.0, opts->lod_weight_tol[step]), 0, j->groups_parallel};
        if ((st = am_skin_simplify(&m, j->lod_idx[lod + 1][f], j->lod_n[lod + 1][f], &ls, &j->lod_idx[lod][f],
                                   &j->lod_n[lod][f], err)))
            return st;
    }
    return AM_OK;
}

static void face_lods_job(void *user, size_t f, int worker)
{
    (void)worker;
    lod_jobs *j = user;
    am_error_clear(&j->err[f]);
    j->st[f] = face_lods(j, f, &j->err[f]);
}

/* Steps 6-7: the four LOD blocks. */
static am_status build_lods(const am_skin_options *opts, const am_skin_face_split *faces, size_t face_count,
                            const am_skin_norm *norm, am_skin_result *res, am_error *err)
{
    am_status st = AM_OK;
    face_attr at[AM_MESH_MAX_FACES];
    uint32_t *lod_idx[AM_LOD_COUNT][AM_MESH_MAX_FACES];
    size_t lod_n[AM_LOD_COUNT][AM_MESH_MAX_FACES];
    memset(at, 0, sizeof at);
    memset(lod_idx, 0, sizeof lod_idx);
    memset(lod_n, 0, sizeof lod_n);
    lod_jobs *jobs = malloc(sizeof *jobs);
    if (!jobs)
        return am_fail_nomem(err, "LOD jobs");
    size_t vertices = 0; /* a small mesh is not worth a thread */
    for (size_t f = 0; f < face_count; f++)
        vertices += faces[f].vertex_count;
    int threads = vertices < PARALLEL_MIN_VERTICES ? 1 : am_parallel_threads(opts->threads, face_count);
    *jobs = (lod_jobs){opts, faces, norm, res, at, lod_idx, lod_n, threads == 1 && opts->threads != 1, {AM_OK}, {{0}}};
    am_parallel_for(face_count, threads, face_lods_job, jobs);
    for (size_t f = 0; f < face_count && !st; f++) /* the first face's failure, as one at a time */
        if ((st = jobs->st[f]) && err)
            *err = jobs->err[f];
    free(jobs);
    if (st)
        goto done;
    for (int lod = opts->high_lod_only ? AM_LOD_HIGH : 0; lod < AM_LOD_COUNT; lod++) {
        /* PositionDomain over the whole LOD, written into every face (LLModel::writeModel). */
        float dmin[3] = {INFINITY, INFINITY, INFINITY}, dmax[3] = {-INFINITY, -INFINITY, -INFINITY};
        for (size_t f = 0; f < face_count; f++)
            for (size_t i = 0; i < lod_n[lod][f]; i++) {
                const float *p = &at[f].pos[3 * (size_t)lod_idx[lod][f][i]];
                for (int k = 0; k < 3; k++) {
                    dmin[k] = p[k] < dmin[k] ? p[k] : dmin[k];
                    dmax[k] = p[k] > dmax[k] ? p[k] : dmax[k];
                }
            }
        am_mesh_lod *L = &res->asset.lods[lod];
        L->faces = calloc(face_count, sizeof *L->faces);
        if (!L->faces) {
            st = am_fail_nomem(err, "LOD faces");
            goto done;
        }
        L->face_count = face_count;
        for (size_t f = 0; f < face_count; f++) {
            if ((st = make_face(&faces[f], &at[f], res, lod_idx[lod][f], lod_n[lod][f], dmin, dmax, norm, &L->faces[f],
                                err)))
                goto done;
            res->summary.lod_triangles[lod] += lod_n[lod][f] / 3;
            res->summary.lod_vertices[lod] += L->faces[f].vertex_count;
        }
    }
done:
    for (size_t f = 0; f < AM_MESH_MAX_FACES; f++) {
        free(at[f].pos);
        free(at[f].nrm);
        free(at[f].uv);
        free(at[f].wcount);
        free(at[f].wjoint);
        free(at[f].wvalue);
        free(at[f].cls);
        free(at[f].cls_far);
        for (int lod = 0; lod < AM_LOD_COUNT; lod++)
            free(lod_idx[lod][f]);
    }
    return st;
}

void am_skin_options_resolve(am_skin_options *o)
{
    static const double ratio[3] = {0.25, 0.25, 0.25}, error[3] = {0.01, 0.03, 0.1}, weight_tol[3] = {0.05, 0.1, 0.15};
    if (o->region_max_tris == 0)
        o->region_max_tris = AM_SKIN_DEFAULT_REGION_MAX_TRIS;
    if (o->face_vertex_limit == 0)
        o->face_vertex_limit = AM_SKIN_DEFAULT_FACE_VERTEX_LIMIT;
    for (int i = 0; i < 3; i++) {
        if (o->lod_ratio[i] == 0)
            o->lod_ratio[i] = ratio[i];
        if (o->lod_error[i] == 0)
            o->lod_error[i] = error[i];
        if (o->lod_weight_tol[i] == 0)
            o->lod_weight_tol[i] = weight_tol[i];
    }
}

am_status am_skin_build(const am_rig *rig, const am_skeleton *skel, const am_skin_options *opts_in,
                        am_skin_result *out, am_error *err)
{
    memset(out, 0, sizeof *out);
    am_skin_options opts;
    if (opts_in)
        opts = *opts_in;
    else
        am_skin_options_init(&opts);
    am_skin_options_resolve(&opts);
    am_skin_summary *sum = &out->summary;
    if (!am_string_set(&sum->name, rig->name ? rig->name : "rig"))
        return am_fail_nomem(err, "skin name");
    sum->region_max_tris = opts.region_max_tris > 0 ? opts.region_max_tris : 0; /* 0: not checked */
    sum->face_vertex_limit = opts.face_vertex_limit;

    am_status st;
    int *rig_to_skin = NULL;
    am_mat4 *ibm = malloc(AM_MAX_JOINTS_PER_MESH * sizeof *ibm);
    am_mat4 *alt = malloc(AM_MAX_JOINTS_PER_MESH * sizeof *alt);
    am_skin_face_split faces[AM_MESH_MAX_FACES];
    size_t face_count = 0;
    double t0 = am_clock_wall_s(), t1;
    if ((st = check_rig(rig, err)))
        goto done;
    if (opts.face_vertex_limit < 3 || opts.face_vertex_limit > AM_MESH_MAX_FACE_VERTICES) {
        st = am_fail(err, AM_ERR_USAGE, "face vertex limit %zu outside 3..%d", opts.face_vertex_limit,
                     AM_MESH_MAX_FACE_VERTICES);
        goto done;
    }
    warn_if_oversized(rig, sum);
    rig_to_skin = malloc(rig->joint_count * sizeof *rig_to_skin);
    if (!ibm || !alt || !rig_to_skin) {
        st = am_fail_nomem(err, "skin");
        goto done;
    }
    if ((st = am_skin_build_joints(rig, skel, sum, rig_to_skin, ibm, alt, err)) ||
        (st = copy_geometry(rig, out, err)) || (st = build_weights(rig, rig_to_skin, out, err)))
        goto done;
    t1 = am_clock_wall_s();
    sum->seconds[AM_SKIN_T_JOINTS_WEIGHTS] = t1 - t0;
    t0 = t1;
    /* An explicit skin (the uploader's asset from a file rigged to the viewer skeleton) and
     * a rig with its own faces (a file's materials) are written as given: no triangle budget
     * (a reduction would change the asset the uploader makes and lose each triangle's face);
     * the region limit is then the caller's check (summary.over_region_limit), unless the
     * caller asks for the budget on an explicit skin (budget_given_skin, faces merged). */
    if (rig->face_count == 0 && (!rig->explicit_skin || opts.budget_given_skin)) {
        if ((st = am_skin_apply_budget(out, &opts, err)))
            goto done;
    } else if (opts.max_tris > 0) {
        st = am_fail(
            err, AM_ERR_INVALID,
            "a triangle budget (the max_tris option) applies to computed rigs; this one is written as given (%s)",
            rig->explicit_skin ? "an explicit skin, as the viewer's uploader makes it" : "its own faces");
        goto done;
    } else {
        sum->tris_in = out->triangle_count;
    }
    t1 = am_clock_wall_s();
    sum->seconds[AM_SKIN_T_BUDGET] = t1 - t0;
    t0 = t1;
    if ((st = am_skin_split_faces(out, opts.face_vertex_limit, rig->face_start, rig->face_count, faces, &face_count,
                                  err)))
        goto done;
    out->source_bind_shape = rig->explicit_skin ? rig->bind_shape : am_mat4_identity();
    if (opts.texture_image && !am_string_set(&out->texture_image, opts.texture_image)) {
        st = am_fail_nomem(err, "texture image");
        goto done;
    }
    out->face_count = face_count;
    if (opts.face_image_count == face_count) /* a face the split cut in two: one image for all */
        for (size_t f = 0; f < face_count; f++)
            if (!am_string_set(&out->face_images[out->face_image_count++],
                               opts.face_images[f] ? opts.face_images[f] : "")) {
                st = am_fail_nomem(err, "face images");
                goto done;
            }
    for (size_t f = 0; f < face_count; f++) {
        out->face_tri_start[f] = faces[f].first_triangle;
        sum->vertex_count += faces[f].vertex_count;
    }
    out->face_tri_start[face_count] = out->triangle_count;
    sum->face_count = face_count;
    {
        uint8_t *seen = calloc(out->vertex_count ? out->vertex_count : 1, 1);
        if (!seen) {
            st = am_fail_nomem(err, "skin");
            goto done;
        }
        for (size_t i = 0; i < 3 * out->triangle_count; i++)
            if (!seen[out->triangles[i]]) {
                seen[out->triangles[i]] = 1;
                sum->unique_vertex_count++;
            }
        free(seen);
        sum->duplicated_share =
            sum->unique_vertex_count ? (double)sum->vertex_count / (double)sum->unique_vertex_count - 1.0 : 0.0;
    }
    if (face_count > 1 && opts.require_meshdata && rig->face_count > 1) {
        st = am_fail(err, AM_ERR_INVALID,
                     "the meshdata was required but the mesh has %zu faces (%zu materials), and WorldBridge writes "
                     "weights into submesh 0 only: leave the require_meshdata option off (the .llmesh and .dae carry "
                     "every face)",
                     face_count, rig->face_count);
        goto done;
    }
    if (face_count > 1 && opts.require_meshdata) {
        st = am_fail(err, AM_ERR_INVALID,
                     "the meshdata was required but %zu vertices need %zu faces of at most %zu, and WorldBridge writes "
                     "weights into submesh 0 only: set the max_tris option to %zu or less for one face, or leave the "
                     "require_meshdata option off (the .llmesh and .dae carry every face)",
                     sum->unique_vertex_count, face_count, opts.face_vertex_limit, sum->tris_fit_one_face);
        goto done;
    }
    if (face_count > 1 && rig->face_count > 1)
        am_skin_warn(sum,
                     "the mesh has %zu faces (%zu materials): WorldBridge takes weights from submesh 0 only, so no "
                     "meshdata was written; the .llmesh and .dae carry every face",
                     face_count, rig->face_count);
    else if (face_count > 1)
        am_skin_warn(sum,
                     "%zu vertices need %zu faces of at most %zu (%.2f%% on two): WorldBridge takes weights from "
                     "submesh 0 only, so no meshdata was written; the .llmesh and .dae carry every face; "
                     "the max_tris option %zu gives one face",
                     sum->unique_vertex_count, face_count, opts.face_vertex_limit, 100.0 * sum->duplicated_share,
                     sum->tris_fit_one_face);
    t1 = am_clock_wall_s();
    sum->seconds[AM_SKIN_T_FACES] = t1 - t0;
    t0 = t1;
    am_skin_norm norm;
    am_skin_norm_compute(out->positions, faces, face_count, &norm);
    if ((st = build_lods(&opts, faces, face_count, &norm, out, err)))
        goto done;
    t1 = am_clock_wall_s();
    sum->seconds[AM_SKIN_T_LODS] = t1 - t0;
    t0 = t1;
    if ((st = build_skin_info(rig, &opts, ibm, alt, &norm, out, err)))
        goto done;
    count_coincident(out);
    sum->seconds[AM_SKIN_T_ASSET] = am_clock_wall_s() - t0;
done:
    am_skin_face_split_free(faces, face_count);
    free(rig_to_skin);
    free(ibm);
    free(alt);
    if (st) {
        am_skin_result_free(out);
        am_error_where(err, "rig '%s'", rig->name ? rig->name : "?");
    }
    return st;
}
