/* The bench: load a written mesh asset, compute the viewer's rest state, pose and skin
 * (bench.h explains the model and the frames). */
#include "bench/bench.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/bench_internal.h"
#include "bench/lbs.h"

static int pelvis_index(const am_skeleton *skel)
{
    int p = am_skeleton_find_exact(skel, "mPelvis");
    return p >= 0 ? p : 0;
}

/* LLSkinningUtil::getUnscaledQuaternion: normalise the rows of the bind shape's 3x3,
 * invert, convert; i.e. the inverse of the bind shape's rotation. */
static am_quat unscaled_inverse_rotation(const am_mat4 *bsm)
{
    am_mat4 r = am_mat4_identity();
    for (int i = 0; i < 3; i++) {
        double len = sqrt(bsm->m[4 * i] * bsm->m[4 * i] + bsm->m[4 * i + 1] * bsm->m[4 * i + 1] +
                          bsm->m[4 * i + 2] * bsm->m[4 * i + 2]);
        for (int j = 0; j < 3; j++)
            r.m[4 * i + j] = len > 0 ? bsm->m[4 * i + j] / len : bsm->m[4 * i + j];
    }
    am_mat4 inv;
    if (!am_mat4_inverse(&r, &inv))
        return am_quat_identity(); /* LLMatrix3::invert leaves a singular matrix alone */
    double rows[9];
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            rows[3 * i + j] = inv.m[4 * i + j];
    return am_quat_normalize(am_quat_from_rows(rows));
}

static bool mat_plausible(const am_mat4 *m)
{
    for (int k = 0; k < 16; k++)
        if (!(fabs(m->m[k]) <= 1e6))
            return false;
    return true;
}

static const am_mesh_lod *pick_lod(const am_mesh_asset *a, int want, int *chosen)
{
    if (want >= 0 && want < AM_LOD_COUNT) {
        *chosen = want;
        return a->lods[want].face_count ? &a->lods[want] : NULL;
    }
    for (int l = AM_LOD_HIGH; l >= AM_LOD_LOWEST; l--)
        if (a->lods[l].face_count) {
            *chosen = l;
            return &a->lods[l];
        }
    return NULL;
}

static am_status flatten(am_bench *b, const am_mesh_lod *lod, am_error *err)
{
    size_t nv = 0, ni = 0;
    bool any_uv = false;
    for (size_t f = 0; f < lod->face_count; f++) {
        const am_mesh_face *fc = &lod->faces[f];
        if (fc->no_geometry)
            continue;
        if (fc->vertex_count > AM_MESH_MAX_FACE_VERTICES || fc->index_count % 3)
            return am_fail_where(err, AM_ERR_INVALID, am_str(&b->source), "face %zu: %zu vertices, %zu indices", f,
                                 fc->vertex_count, fc->index_count);
        nv += fc->vertex_count;
        ni += fc->index_count;
        any_uv |= fc->uvs != NULL;
    }
    if (nv == 0)
        return am_fail_where(err, AM_ERR_INVALID, am_str(&b->source), "the measured LOD has no vertices");
    b->bind_pos = malloc(3 * nv * sizeof *b->bind_pos);
    b->vertex_face = malloc(nv * sizeof *b->vertex_face);
    b->joints = calloc(4 * nv, 1);
    b->weights = calloc(4 * nv, sizeof *b->weights);
    b->influences = calloc(nv, 1);
    b->triangles = malloc((ni ? ni : 1) * sizeof *b->triangles);
    b->uv = any_uv ? calloc(2 * nv, sizeof *b->uv) : NULL;
    if (!b->bind_pos || !b->vertex_face || !b->joints || !b->weights || !b->influences || !b->triangles ||
        (any_uv && !b->uv))
        return am_fail_nomem(err, "bench vertices");

    const am_mat4 *bsm = &b->asset.skin.bind_shape;
    size_t v0 = 0, t = 0;
    for (size_t f = 0; f < lod->face_count; f++) {
        const am_mesh_face *fc = &lod->faces[f];
        if (fc->no_geometry)
            continue;
        for (size_t v = 0; v < fc->vertex_count; v++) {
            size_t o = v0 + v;
            am_vec3 p = am_v3(fc->positions[3 * v], fc->positions[3 * v + 1], fc->positions[3 * v + 2]);
            am_vec3 q = am_mat4_transform_point(bsm, p);
            if (!isfinite(q.x) || !isfinite(q.y) || !isfinite(q.z) || fabs(q.x) > 1e6 || fabs(q.y) > 1e6 ||
                fabs(q.z) > 1e6)
                return am_fail_where(err, AM_ERR_INVALID, am_str(&b->source),
                                     "face %zu vertex %zu: position after the bind shape is not finite or beyond 1e6 m",
                                     f, v);
            b->bind_pos[3 * o] = (float)q.x;
            b->bind_pos[3 * o + 1] = (float)q.y;
            b->bind_pos[3 * o + 2] = (float)q.z;
            b->vertex_face[o] = (uint16_t)f;
            if (b->uv && fc->uvs) {
                b->uv[2 * o] = fc->uvs[2 * v];
                b->uv[2 * o + 1] = fc->uvs[2 * v + 1];
            }
            if (!fc->has_weights || !fc->weight_count)
                continue;
            int cnt = fc->weight_count[v] > 4 ? 4 : fc->weight_count[v];
            b->influences[o] = (uint8_t)cnt;
            /* The decoder fills all four slots the viewer's way (an empty list becomes
             * joint 0 at 0.999, unused slots weight 0); a hand-built face may only have codes. */
            for (int k = 0; k < 4; k++) {
                uint8_t j = fc->weight_joint[4 * v + k];
                float w = fc->weight_value ? fc->weight_value[4 * v + k]
                          : k < cnt        ? am_mesh_weight_value(fc->weight_code[4 * v + k])
                                           : 0.0f;
                if (w == 0.0f)
                    continue;
                /* The viewer uploads joint + weight as one F32 and the shader takes
                 * fract(): keep exactly what the GPU sees. */
                float packed = (float)j + w;
                b->joints[4 * o + k] = j;
                b->weights[4 * o + k] = packed - floorf(packed);
            }
        }
        for (size_t i = 0; i < fc->index_count; i++) {
            if (fc->indices[i] >= fc->vertex_count)
                return am_fail_where(err, AM_ERR_INVALID, am_str(&b->source),
                                     "face %zu: index %zu is %u, beyond %zu vertices", f, i, fc->indices[i],
                                     fc->vertex_count);
            b->triangles[t++] = (uint32_t)(v0 + fc->indices[i]);
        }
        v0 += fc->vertex_count;
    }
    b->vertex_count = nv;
    b->triangle_count = ni / 3;
    return AM_OK;
}

/* Where the mesh's own bind pose puts mPelvis: the origin of the inverse of its inverse bind
 * when the skin names mPelvis (a rig that moved its pelvis binds it there), else the file
 * default (0, 0, 1.067), which is also what a skin without mPelvis was bound against. */
static am_vec3 pelvis_bind_pos(const am_bench *b, int pelvis)
{
    const am_mesh_skin *skin = &b->asset.skin;
    for (size_t i = 0; i < skin->joint_count; i++) {
        if (!b->skin_joint_known[i] || b->skin_joint[i] != pelvis)
            continue;
        am_mat4 bind;
        if (am_mat4_inverse(&skin->inverse_bind[i], &bind))
            return am_mat4_get_translation(&bind);
        break;
    }
    return b->skel->joints[pelvis].pos;
}

/* The viewer's rest state: defaults, mPelvis at mRoot, overrides (docs/reference/mesh-asset.md#joint-position-overrides). */
static am_status rest_state(am_bench *b, am_error *err)
{
    const am_skeleton *sk = b->skel;
    const am_mesh_skin *skin = &b->asset.skin;
    size_t nj = sk->joint_count;
    int pelvis = pelvis_index(sk);
    b->rest_local_pos = malloc(nj * sizeof *b->rest_local_pos);
    b->rest_local_rot = malloc(nj * sizeof *b->rest_local_rot);
    b->override_applied = calloc(nj, sizeof *b->override_applied);
    b->skin_joint = malloc((skin->joint_count ? skin->joint_count : 1) * sizeof *b->skin_joint);
    b->skin_joint_known = calloc(skin->joint_count ? skin->joint_count : 1, sizeof *b->skin_joint_known);
    if (!b->rest_local_pos || !b->rest_local_rot || !b->override_applied || !b->skin_joint || !b->skin_joint_known)
        return am_fail_nomem(err, "bench rest state");
    for (size_t j = 0; j < nj; j++) {
        b->rest_local_pos[j] = sk->joints[j].pos;
        b->rest_local_rot[j] = sk->joints[j].rot;
    }
    b->rest_local_pos[pelvis] = am_v3(0, 0, 0); /* SL-315: mPelvis at mRoot */

    b->skin_joint_count = skin->joint_count;
    b->palette_count = skin->joint_count < AM_MAX_JOINTS_PER_MESH ? skin->joint_count : AM_MAX_JOINTS_PER_MESH;
    for (size_t i = 0; i < skin->joint_count; i++) {
        int j = am_skeleton_find(sk, skin->joint_names[i]);
        b->skin_joint_known[i] = j >= 0;
        b->skin_joint[i] = j >= 0 ? j : 0; /* initJointNums: unknown -> joint number 0 */
    }
    b->overrides_honoured = skin->alt_inverse_bind && skin->alt_count == skin->joint_count && skin->joint_count > 0;
    if (b->overrides_honoured) {
        for (size_t i = 0; i < skin->joint_count; i++) {
            if (!b->skin_joint_known[i])
                continue; /* unknown names are skipped */
            int j = b->skin_joint[i];
            /* F32 as LLJoint::aboveJointPosThreshold computes it */
            float tx = (float)skin->alt_inverse_bind[i].m[12], ty = (float)skin->alt_inverse_bind[i].m[13],
                  tz = (float)skin->alt_inverse_bind[i].m[14];
            am_vec3 def = sk->joints[j].pos;
            float dx = tx - (float)def.x, dy = ty - (float)def.y, dz = tz - (float)def.z;
            float thr = (float)AM_JOINT_POS_THRESHOLD;
            if (dx * dx + dy * dy + dz * dz > thr * thr) {
                b->rest_local_pos[j] = am_v3(tx, ty, tz); /* replaces; the last entry wins */
                b->override_applied[j] = true;
            }
        }
    }
    b->pelvis_override_applied = b->override_applied[pelvis];
    b->root_rot = unscaled_inverse_rotation(&skin->bind_shape);
    b->bind_minus_prim = am_v3_sub(pelvis_bind_pos(b, pelvis), b->rest_local_pos[pelvis]);
    return AM_OK;
}

static am_status init_from_asset(am_bench *b, const am_skeleton *skel, const am_bench_options *opts,
                                 am_error *err)
{
    b->skel = skel;
    if (!b->asset.has_skin)
        return am_fail_where(err, AM_ERR_INVALID, am_str(&b->source), "no skin block: not a rigged mesh");
    const am_mesh_skin *skin = &b->asset.skin;
    if (skin->joint_count == 0)
        return am_fail_where(err, AM_ERR_INVALID, am_str(&b->source), "skin: joint_names is empty");
    if (!skin->inverse_bind)
        return am_fail_where(err, AM_ERR_INVALID, am_str(&b->source),
                             "skin: no inverse_bind_matrix (the viewer skips the palette)");
    /* Matrices the viewer would turn into garbage are refused here, so every pose below
     * stays finite (the decoder checks syntax, not plausibility). */
    for (size_t i = 0; i < skin->joint_count; i++) {
        if (!mat_plausible(&skin->inverse_bind[i]))
            return am_fail_where(err, AM_ERR_INVALID, am_str(&b->source),
                                 "skin: inverse_bind_matrix[%zu] (%s) has a non-finite or huge element", i,
                                 skin->joint_names[i]);
        if (skin->alt_inverse_bind && i < skin->alt_count && !mat_plausible(&skin->alt_inverse_bind[i]))
            return am_fail_where(err, AM_ERR_INVALID, am_str(&b->source),
                                 "skin: alt_inverse_bind_matrix[%zu] (%s) has a non-finite or huge element", i,
                                 skin->joint_names[i]);
    }
    if (!mat_plausible(&skin->bind_shape))
        return am_fail_where(err, AM_ERR_INVALID, am_str(&b->source),
                             "skin: bind_shape_matrix has a non-finite or huge element");
    int want = opts && opts->lod > AM_BENCH_LOD_HIGHEST_PRESENT ? opts->lod - 1 : -1; /* -1: the highest */
    const am_mesh_lod *lod = pick_lod(&b->asset, want, &b->lod);
    if (!lod)
        return want >= 0 ? am_fail_where(err, AM_ERR_INVALID, am_str(&b->source), "LOD %d is absent", want)
                         : am_fail_where(err, AM_ERR_INVALID, am_str(&b->source), "no LOD with faces");
    am_status s = flatten(b, lod, err);
    if (s)
        return s;
    s = rest_state(b, err);
    if (s)
        return s;
    am_vec3 lo = {INFINITY, INFINITY, INFINITY}, hi = {-INFINITY, -INFINITY, -INFINITY};
    for (size_t i = 0; i < b->vertex_count; i++) {
        const float *p = b->bind_pos + 3 * i;
        lo = am_v3(fmin(lo.x, p[0]), fmin(lo.y, p[1]), fmin(lo.z, p[2]));
        hi = am_v3(fmax(hi.x, p[0]), fmax(hi.y, p[1]), fmax(hi.z, p[2]));
    }
    b->bind_min = lo;
    b->bind_max = hi;
    b->height = hi.z - lo.z;
    am_bench_compute_sides(b);
    return am_bench_prepare_measures(b, err);
}

am_status am_bench_from_decoded(am_mesh_asset *decoded, const char *source, const am_skeleton *skel,
                                const am_bench_options *opts, am_bench *out, am_error *err)
{
    memset(out, 0, sizeof *out);
    out->asset = *decoded;
    memset(decoded, 0, sizeof *decoded);
    am_status s = am_string_set(&out->source, source ? source : "mesh") ? init_from_asset(out, skel, opts, err)
                                                                       : am_fail_nomem(err, "bench source");
    if (s)
        am_bench_free(out);
    return s;
}

am_status am_bench_load_mem(const uint8_t *mesh, size_t size, const char *source, const am_skeleton *skel,
                            const am_bench_options *opts, am_bench *out, am_error *err)
{
    memset(out, 0, sizeof *out);
    am_mesh_asset a;
    memset(&a, 0, sizeof a);
    am_status s = am_mesh_asset_decode(mesh, size, &a, err);
    if (s) {
        am_error_where(err, "%s", source ? source : "mesh");
        am_mesh_asset_free(&a);
        return s;
    }
    return am_bench_from_decoded(&a, source, skel, opts, out, err);
}

am_status am_bench_load(const char *mesh_path, const char *const *anim_paths, size_t anim_count,
                        const am_skeleton *skel, const am_bench_options *opts, am_bench *out, am_error *err)
{
    memset(out, 0, sizeof *out);
    uint8_t *data = NULL;
    size_t size = 0;
    am_status s = am_read_file_as(mesh_path, &am_mesh_asset_format, &data, &size, err);
    if (s)
        return s;
    s = am_bench_load_mem(data, size, mesh_path, skel, opts, out, err);
    free(data);
    if (s)
        return s;
    for (size_t i = 0; i < anim_count; i++) {
        s = am_bench_add_anim(out, anim_paths[i], err);
        if (s) {
            am_bench_free(out);
            return s;
        }
    }
    return AM_OK;
}

void am_bench_free(am_bench *b)
{
    if (!b)
        return;
    am_mesh_asset_free(&b->asset);
    free(b->bind_pos);
    free(b->uv);
    free(b->vertex_face);
    free(b->joints);
    free(b->weights);
    free(b->influences);
    free(b->triangles);
    free(b->skin_joint);
    free(b->skin_joint_known);
    free(b->rest_local_pos);
    free(b->rest_local_rot);
    free(b->override_applied);
    free(b->edges);
    free(b->edge_rest);
    free(b->rest_prim);
    for (size_t i = 0; i < b->motion_count; i++)
        am_bench_motion_free(b->motions[i]);
    free(b->motions);
    am_string_free(&b->source);
    memset(b, 0, sizeof *b);
}

/* --- posing --- */

void am_bench_fk(const am_bench *b, const am_vec3 *local_pos, const am_quat *local_rot, am_mat4 *world,
                 am_vec3 *world_pos, am_quat *world_rot)
{
    const am_skeleton *sk = b->skel;
    /* Parents come before children in the skeleton, so one pass suffices. */
    for (size_t j = 0; j < sk->joint_count; j++) {
        int p = sk->joints[j].parent;
        am_vec3 ppos = p >= 0 ? world_pos[p] : am_v3(0, 0, 0);
        am_quat prot = p >= 0 ? world_rot[p] : b->root_rot; /* mRoot: prim, bind_rot */
        am_vec3 pscale = p >= 0 ? sk->joints[p].scale : am_v3(1, 1, 1);
        /* docs/reference/viewer-skeleton.md#rest-transforms: the parent's OWN scale scales the child offset */
        world_pos[j] = am_v3_add(ppos, am_quat_rotate(prot, am_v3_mul(local_pos[j], pscale)));
        world_rot[j] = am_quat_normalize(am_quat_mul(prot, local_rot[j]));
        if (world)
            world[j] = am_mat4_from_trs(world_pos[j], world_rot[j], sk->joints[j].scale);
    }
}

am_status am_bench_pose_locals(const am_bench *b, const am_bench_local *locals, size_t n, float *out_prim,
                               am_vec3 *out_joints, am_error *err)
{
    const am_skeleton *sk = b->skel;
    size_t nj = sk->joint_count;
    am_vec3 *lpos = malloc(nj * sizeof *lpos);
    am_quat *lrot = malloc(nj * sizeof *lrot);
    am_vec3 *wpos = malloc(nj * sizeof *wpos);
    am_quat *wrot = malloc(nj * sizeof *wrot);
    am_mat4 *world = malloc(nj * sizeof *world);
    float *palette = malloc((b->palette_count ? b->palette_count : 1) * 16 * sizeof *palette);
    am_status s = AM_OK;
    if (!lpos || !lrot || !wpos || !wrot || !world || !palette) {
        s = am_fail_nomem(err, "bench pose");
        goto done;
    }
    memcpy(lpos, b->rest_local_pos, nj * sizeof *lpos);
    memcpy(lrot, b->rest_local_rot, nj * sizeof *lrot);
    for (size_t i = 0; i < n; i++) {
        int j = locals[i].joint;
        if (j < 0 || (size_t)j >= nj) {
            s = am_fail(err, AM_ERR_INVALID, "bench pose: local %zu names joint index %d (skeleton has %zu)", i, j,
                        nj);
            goto done;
        }
        if (locals[i].has_rot)
            lrot[j] = locals[i].rot;
        if (locals[i].has_pos)
            lpos[j] = locals[i].pos;
    }
    am_bench_fk(b, lpos, lrot, world, wpos, wrot);
    for (size_t i = 0; i < b->palette_count; i++) {
        /* P = IBM then W (LL: matMulUnsafe(invBind, world)) */
        am_mat4 p = am_mat4_mul(&b->asset.skin.inverse_bind[i], &world[b->skin_joint[i]]);
        for (int k = 0; k < 16; k++)
            palette[16 * i + k] = (float)p.m[k];
    }
    if (out_prim)
        am_lbs(b->bind_pos, b->joints, b->weights, b->vertex_count, palette, b->palette_count, out_prim);
    if (out_joints)
        memcpy(out_joints, wpos, nj * sizeof *wpos);
done:
    free(lpos);
    free(lrot);
    free(wpos);
    free(wrot);
    free(world);
    free(palette);
    return s;
}

am_status am_bench_pose_at(const am_bench *b, int motion, double t, float *out_prim, am_vec3 *out_joints,
                           am_error *err)
{
    if (motion < 0)
        return am_bench_pose_locals(b, NULL, 0, out_prim, out_joints, err);
    am_bench_local *loc = malloc(b->skel->joint_count * sizeof *loc);
    if (!loc)
        return am_fail_nomem(err, "bench pose");
    size_t n = 0;
    am_status s = am_bench_motion_locals(b, motion, t, loc, &n, err);
    if (!s)
        s = am_bench_pose_locals(b, loc, n, out_prim, out_joints, err);
    free(loc);
    return s;
}

am_vec3 am_bench_prim_to_bind(const am_bench *b, am_vec3 prim)
{
    return am_v3_add(am_quat_rotate(am_quat_conj(b->root_rot), prim), b->bind_minus_prim);
}

void am_bench_positions_to_bind(const am_bench *b, const float *prim, float *bind, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        am_vec3 q = am_bench_prim_to_bind(b, am_v3(prim[3 * i], prim[3 * i + 1], prim[3 * i + 2]));
        bind[3 * i] = (float)q.x;
        bind[3 * i + 1] = (float)q.y;
        bind[3 * i + 2] = (float)q.z;
    }
}
