/* The rigger's quality report (quality.h): weight figures the bench does not have yet
 * (empty_major, mirror_err, rigid parts), the standard poses, the joint band volume, and
 * the flags. Everything else is the bench's own measurement. */
#include "report/quality.h"
#include "report/quality_intent.h"
#include "report/quality_limits.h"

#include <jansson.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/io.h"
#include "core/parallel.h"
#include "core/json_text.h"
#include "bind/bind.h"
#include "bind/bind_io.h"

#define BAND_COUNT 8
#define BAND_MIN_VERTICES 8
#define BAND_RADII 1.8
#define MIRROR_TOLERANCE 0.002  /* of H */
#define MIRROR_SHARE 0.9
/* the flags' limits: quality_limits.c (one table for the flags, the help, text and JSON) */

const char *am_flag_name(am_flag f)
{
    switch (f) {
    case AM_FLAG_PASS: return "pass";
    case AM_FLAG_MINOR: return "minor";
    case AM_FLAG_MAJOR: return "major";
    case AM_FLAG_BLOCKER: return "blocker";
    default: return "n/a";
    }
}

static const char *kind_name(am_band_kind k)
{
    switch (k) {
    case AM_BAND_SHOULDER: return "shoulder";
    case AM_BAND_ELBOW: return "elbow";
    case AM_BAND_KNEE: return "knee";
    case AM_BAND_HIP: return "hip";
    case AM_BAND_TWIST: return "twist";
    default: return "none";
    }
}

static bool kind_parse(const char *s, am_band_kind *out)
{
    static const char *names[] = {"none", "shoulder", "elbow", "knee", "hip", "twist"};
    for (int k = 0; k < 6; k++)
        if (strcmp(s, names[k]) == 0) {
            *out = (am_band_kind)k;
            return true;
        }
    return false;
}

/* --- poses ----------------------------------------------------------------------------- */

#define X_AXIS {1, 0, 0}
#define Y_AXIS {0, 1, 0}
#define Z_AXIS {0, 0, 1}

/* A string literal as an unowned am_string: the table is static and never freed. */
#define S(text) {(char *)(text), sizeof(text) - 1}
static const am_quality_pose STANDARD[] = {
    {S("arm down"), S("mShoulderLeft"), AM_BAND_SHOULDER, 1, {{S("mShoulderLeft"), X_AXIS, -80}}},
    {S("arm up"), S("mShoulderLeft"), AM_BAND_SHOULDER, 2,
     {{S("mCollarLeft"), X_AXIS, 25}, {S("mShoulderLeft"), X_AXIS, 65}}},
    {S("elbow 120"), S("mElbowLeft"), AM_BAND_ELBOW, 1, {{S("mElbowLeft"), Z_AXIS, -120}}},
    {S("knee 120"), S("mKneeLeft"), AM_BAND_KNEE, 1, {{S("mKneeLeft"), Y_AXIS, 120}}},
    {S("wrist twist 80"), S("mWristLeft"), AM_BAND_TWIST, 1, {{S("mWristLeft"), Y_AXIS, 80}}},
    {S("leg forward"), S("mHipLeft"), AM_BAND_HIP, 1, {{S("mHipLeft"), Y_AXIS, -60}}},
    {S("leg side"), S("mHipLeft"), AM_BAND_HIP, 1, {{S("mHipLeft"), X_AXIS, 45}}},
    {S("squat"), S("mKneeLeft"), AM_BAND_KNEE, 4,
     {{S("mHipLeft"), Y_AXIS, -100},
      {S("mHipRight"), Y_AXIS, -100},
      {S("mKneeLeft"), Y_AXIS, 110},
      {S("mKneeRight"), Y_AXIS, 110}}},
    {S("spine bend"), S(""), AM_BAND_NONE, 1, {{S("mTorso"), Y_AXIS, 30}}},
    {S("spine twist"), S(""), AM_BAND_NONE, 1, {{S("mTorso"), Z_AXIS, 40}}},
    {S("head turn"), S(""), AM_BAND_NONE, 1, {{S("mHead"), Z_AXIS, 60}}},
    {S("head nod"), S(""), AM_BAND_NONE, 1, {{S("mHead"), Y_AXIS, 25}}},
    {S("tail swing"), S(""), AM_BAND_NONE, 1, {{S("mTail1"), Z_AXIS, 40}}},
    {S("hind knee"), S("mHindLimb2Left"), AM_BAND_KNEE, 1, {{S("mHindLimb2Left"), Y_AXIS, 90}}},
};
#undef S

const am_quality_pose *am_quality_standard_poses(size_t *count)
{
    *count = sizeof STANDARD / sizeof STANDARD[0];
    return STANDARD;
}

void am_quality_poses_free(am_quality_pose *poses, size_t count)
{
    for (size_t i = 0; poses && i < count; i++) {
        am_string_free(&poses[i].name);
        am_string_free(&poses[i].band_joint);
        for (size_t k = 0; k < AM_POSE_MAX_JOINTS; k++)
            am_string_free(&poses[i].joints[k].name);
    }
    free(poses);
}

am_status am_quality_pose_copy(am_quality_pose *dst, const am_quality_pose *src, am_error *err)
{
    *dst = *src;
    memset(&dst->name, 0, sizeof dst->name);
    memset(&dst->band_joint, 0, sizeof dst->band_joint);
    bool ok = am_string_copy(&dst->name, &src->name) && am_string_copy(&dst->band_joint, &src->band_joint);
    for (size_t k = 0; k < AM_POSE_MAX_JOINTS; k++)
        memset(&dst->joints[k].name, 0, sizeof dst->joints[k].name);
    for (size_t k = 0; ok && k < src->joint_count && k < AM_POSE_MAX_JOINTS; k++)
        ok = am_string_copy(&dst->joints[k].name, &src->joints[k].name);
    if (ok)
        return AM_OK;
    am_string_free(&dst->name);
    am_string_free(&dst->band_joint);
    for (size_t k = 0; k < AM_POSE_MAX_JOINTS; k++)
        am_string_free(&dst->joints[k].name);
    return am_fail_nomem(err, "pose");
}

static am_status pose_fail(am_error *err, const char *path, const char *field, const char *msg)
{
    am_fail(err, AM_ERR_INVALID, "%s", msg);
    am_error_where(err, "%s: %s", path, field);
    return AM_ERR_INVALID;
}

static am_status sniff_poses(const uint8_t *h, size_t n, am_error *err)
{
    return am_sniff_text(h, n, "{", "a poses JSON (an object)", err);
}

static const am_file_format poses_format = {"a poses JSON", AM_QUALITY_POSES_MAX_FILE_BYTES, sniff_poses};

am_status am_quality_poses_load(const char *path, am_quality_pose **out, size_t *count, am_error *err)
{
    *out = NULL;
    *count = 0;
    uint8_t *data;
    size_t size;
    am_status s = am_read_file_as(path, &poses_format, &data, &size, err);
    if (s)
        return s;
    json_t *root = am_json_load_text((const char *)data, size, 0, AM_QUALITY_POSES_TREE_BUDGET, path, err);
    free(data);
    if (!root)
        return err ? err->code : AM_ERR_INVALID;
    const json_t *poses = json_object_get(root, "poses");
    size_t n = json_array_size(poses);
    if (!json_is_array(poses) || n == 0 || n > 64) {
        json_decref(root);
        return pose_fail(err, path, "poses", "expected an array of 1 to 64 poses");
    }
    am_quality_pose *p = calloc(n, sizeof *p);
    if (!p) {
        json_decref(root);
        return am_fail_nomem(err, "poses");
    }
    char field[96];
    for (size_t i = 0; i < n && !s; i++) {
        const json_t *e = json_array_get(poses, i);
        const json_t *name = json_object_get(e, "name"), *band = json_object_get(e, "band"),
                     *kind = json_object_get(e, "kind"), *joints = json_object_get(e, "joints");
        snprintf(field, sizeof field, "poses[%zu]", i);
        if (!json_is_string(name) || !json_is_array(joints) || json_array_size(joints) == 0 ||
            json_array_size(joints) > AM_POSE_MAX_JOINTS) {
            s = pose_fail(err, path, field, "expected {\"name\", \"joints\": [1 to 8 {\"name\", \"axis\", \"deg\"}]}");
            break;
        }
        if (!am_string_set(&p[i].name, json_string_value(name))) {
            s = am_fail_nomem(err, "poses");
            break;
        }
        if (band && !json_is_string(band)) {
            s = pose_fail(err, path, field, "\"band\" must be a joint name");
            break;
        }
        if (!am_string_set(&p[i].band_joint, band ? json_string_value(band) : "")) {
            s = am_fail_nomem(err, "poses");
            break;
        }
        if (kind && (!json_is_string(kind) || !kind_parse(json_string_value(kind), &p[i].kind))) {
            s = pose_fail(err, path, field, "\"kind\" must be shoulder, elbow, knee, hip, twist or none");
            break;
        }
        p[i].joint_count = json_array_size(joints);
        for (size_t k = 0; k < p[i].joint_count; k++) {
            const json_t *j = json_array_get(joints, k);
            const json_t *jn = json_object_get(j, "name"), *ax = json_object_get(j, "axis"), *deg = json_object_get(j, "deg");
            snprintf(field, sizeof field, "poses[%zu].joints[%zu]", i, k);
            if (!json_is_string(jn) || !json_is_array(ax) || json_array_size(ax) != 3 || !json_is_number(deg)) {
                s = pose_fail(err, path, field, "expected {\"name\", \"axis\": [x, y, z], \"deg\": number}");
                break;
            }
            if (!am_string_set(&p[i].joints[k].name, json_string_value(jn))) {
                s = am_fail_nomem(err, "poses");
                break;
            }
            double a[3];
            for (size_t c = 0; c < 3; c++)
                a[c] = json_number_value(json_array_get(ax, c));
            p[i].joints[k].axis = am_v3(a[0], a[1], a[2]);
            p[i].joints[k].deg = json_number_value(deg);
            if (!isfinite(a[0]) || !isfinite(a[1]) || !isfinite(a[2]) || am_v3_len(p[i].joints[k].axis) == 0 ||
                !isfinite(p[i].joints[k].deg)) {
                s = pose_fail(err, path, field, "the axis must be a non-zero vector and deg a finite number");
                break;
            }
        }
    }
    json_decref(root);
    if (s) {
        am_quality_poses_free(p, n);
        return s;
    }
    *out = p;
    *count = n;
    return AM_OK;
}

/* Skin index of a skeleton joint, -1 when the skin does not hold it. */
static int skin_index(const am_bench *b, int skel_joint)
{
    for (size_t i = 0; i < b->skin_joint_count; i++)
        if (b->skin_joint_known[i] && b->skin_joint[i] == skel_joint)
            return (int)i;
    return -1;
}

am_status am_quality_pose_locals(const am_bench *b, const am_quality_pose *pose, am_bench_local *out, size_t *n,
                                 am_error *err)
{
    const am_skeleton *sk = b->skel;
    size_t nj = sk->joint_count;
    am_vec3 *wpos = malloc(nj * sizeof *wpos);
    am_quat *wrot = malloc(nj * sizeof *wrot);
    if (!wpos || !wrot) {
        free(wpos);
        free(wrot);
        return am_fail_nomem(err, "pose");
    }
    am_bench_fk(b, b->rest_local_pos, b->rest_local_rot, NULL, wpos, wrot);
    *n = 0;
    am_status s = AM_OK;
    for (size_t k = 0; k < pose->joint_count; k++) {
        int j = am_skeleton_find(sk, am_str(&pose->joints[k].name));
        if (j < 0) {
            s = am_fail(err, AM_ERR_INVALID, "pose '%s': unknown joint '%s': not in avatar_skeleton.xml",
                        am_str(&pose->name), am_str(&pose->joints[k].name));
            break;
        }
        int p = sk->joints[j].parent;
        am_quat wp = p >= 0 ? wrot[p] : b->root_rot;
        /* the rotation about bind-frame axes, expressed in the prim frame */
        am_quat r = am_quat_axis_angle(pose->joints[k].axis, pose->joints[k].deg * AM_DEG2RAD);
        am_quat rp = am_quat_mul(b->root_rot, am_quat_mul(r, am_quat_conj(b->root_rot)));
        /* local' = W_P^-1 R W_P L: the rest frame turned by R, the parent unchanged */
        am_quat local = am_quat_mul(am_quat_conj(wp), am_quat_mul(rp, am_quat_mul(wp, b->rest_local_rot[j])));
        out[*n] = (am_bench_local){j, true, false, am_quat_normalize(local), am_v3(0, 0, 0)};
        (*n)++;
    }
    free(wpos);
    free(wrot);
    return s;
}

/* --- helpers ----------------------------------------------------------------------------- */

static am_vec3 vtx(const float *p, size_t i) { return am_v3(p[3 * i], p[3 * i + 1], p[3 * i + 2]); }

static double seg_dist(am_vec3 a, am_vec3 c, am_vec3 x, double *t_out)
{
    am_vec3 ab = am_v3_sub(c, a);
    double l2 = am_v3_dot(ab, ab);
    double t = l2 > 0 ? am_v3_dot(am_v3_sub(x, a), ab) / l2 : 0;
    t = t < 0 ? 0 : t > 1 ? 1 : t;
    if (t_out)
        *t_out = t;
    return am_v3_dist(x, am_v3_add(a, am_v3_scale(ab, t)));
}

/* Main skin joint of each vertex (-1 when unweighted). */
static int main_joint(const am_bench *b, size_t v)
{
    int best = -1;
    float bw = 0;
    for (int k = 0; k < b->influences[v]; k++)
        if (b->weights[4 * v + k] > bw) {
            bw = b->weights[4 * v + k];
            best = b->joints[4 * v + k];
        }
    return best;
}

/* The bind skeleton of the skin's joints (heads where the viewer puts them at rest). */
static am_status skin_skeleton(const am_bench *b, const am_vec3 *rest_prim_joints, am_bind_skeleton *out,
                               int **skin_of, am_error *err)
{
    size_t n = b->skin_joint_count;
    const char **names = malloc((n ? n : 1) * sizeof *names);
    am_vec3 *heads = malloc((n ? n : 1) * sizeof *heads);
    int *map = malloc((n ? n : 1) * sizeof *map);
    if (!names || !heads || !map) {
        free(names);
        free(heads);
        free(map);
        return am_fail_nomem(err, "skin skeleton");
    }
    size_t m = 0;
    for (size_t i = 0; i < n; i++) {
        if (!b->skin_joint_known[i])
            continue;
        bool dup = false;
        for (size_t q = 0; q < m && !dup; q++)
            dup = b->skin_joint[map[q]] == b->skin_joint[i];
        if (dup)
            continue;
        names[m] = b->skel->joints[b->skin_joint[i]].name;
        heads[m] = am_bench_prim_to_bind(b, rest_prim_joints[b->skin_joint[i]]);
        map[m++] = (int)i;
    }
    am_status s = am_bind_skeleton_from_heads(names, heads, m, b->skel, b->height, am_str(&b->source), out, err);
    free(names);
    free(heads);
    if (s) {
        free(map);
        return s;
    }
    *skin_of = map;
    return AM_OK;
}

/* --- the weight report extras ------------------------------------------------------- */

static void mirror_name(const char *n, char *out, size_t size)
{
    const char *l = strstr(n, "Left"), *r = strstr(n, "Right");
    if (l)
        snprintf(out, size, "%.*sRight%s", (int)(l - n), n, l + 4);
    else if (r)
        snprintf(out, size, "%.*sLeft%s", (int)(r - n), n, r + 5);
    else if (strncmp(n, "L_", 2) == 0)
        snprintf(out, size, "R_%s", n + 2);
    else if (strncmp(n, "R_", 2) == 0)
        snprintf(out, size, "L_%s", n + 2);
    else
        snprintf(out, size, "%s", n);
}

static am_status mirror_report(const am_bench *b, am_quality_report *r, am_error *err)
{
    size_t n = b->vertex_count;
    double tol = MIRROR_TOLERANCE * b->height, band = 0.01 * b->height;
    r->mirror_flag = AM_FLAG_NA;
    if (n == 0 || !(tol > 0))
        return AM_OK;
    /* mirror joint of each skin joint (skin index, -1 when absent) */
    int *mj = malloc((b->skin_joint_count ? b->skin_joint_count : 1) * sizeof *mj);
    /* hash grid of the vertices by cell of size tol */
    size_t cap = 16;
    while (cap < 2 * n)
        cap <<= 1;
    uint32_t *head = malloc(cap * sizeof *head), *next = malloc(n * sizeof *next);
    if (!mj || !head || !next) {
        free(mj);
        free(head);
        free(next);
        return am_fail_nomem(err, "mirror");
    }
    for (size_t i = 0; i < b->skin_joint_count; i++) {
        mj[i] = -1;
        if (!b->skin_joint_known[i])
            continue;
        char name[80];
        mirror_name(b->skel->joints[b->skin_joint[i]].name, name, sizeof name);
        int sj = am_skeleton_find(b->skel, name);
        mj[i] = sj >= 0 ? skin_index(b, sj) : -1;
    }
    memset(head, 0xff, cap * sizeof *head);
#define CELL_HASH(cx, cy, cz) \
    ((size_t)(((uint64_t)(int64_t)(cx) * 73856093u) ^ ((uint64_t)(int64_t)(cy) * 19349663u) ^ ((uint64_t)(int64_t)(cz) * 83492791u)) & (cap - 1))
    for (size_t v = 0; v < n; v++) {
        const float *p = &b->bind_pos[3 * v];
        size_t h = CELL_HASH(floor(p[0] / tol), floor(p[1] / tol), floor(p[2] / tol));
        next[v] = head[h];
        head[h] = (uint32_t)v;
    }
    size_t off = 0, paired = 0;
    double worst = 0;
    int worst_joint = -1;
    for (size_t v = 0; v < n; v++) {
        const float *p = &b->bind_pos[3 * v];
        if (p[1] <= band)
            continue;
        off++;
        double q[3] = {p[0], -p[1], p[2]};
        long c[3] = {(long)floor(q[0] / tol), (long)floor(q[1] / tol), (long)floor(q[2] / tol)};
        long best = -1;
        double bd = tol;
        for (long dz = -1; dz <= 1; dz++)
            for (long dy = -1; dy <= 1; dy++)
                for (long dx = -1; dx <= 1; dx++)
                    for (uint32_t u = head[CELL_HASH(c[0] + dx, c[1] + dy, c[2] + dz)]; u != UINT32_MAX; u = next[u]) {
                        const float *x = &b->bind_pos[3 * u];
                        double d = sqrt((x[0] - q[0]) * (x[0] - q[0]) + (x[1] - q[1]) * (x[1] - q[1]) +
                                        (x[2] - q[2]) * (x[2] - q[2]));
                        if (d <= bd) {
                            bd = d;
                            best = (long)u;
                        }
                    }
        if (best < 0)
            continue;
        paired++;
        /* compare w_v(j) with w_m(mirror j) over every joint either vertex uses */
        double wv[4], wm[4], sv = 0, sm = 0;
        for (int k = 0; k < 4; k++) {
            wv[k] = k < b->influences[v] ? b->weights[4 * v + k] : 0;
            wm[k] = k < b->influences[best] ? b->weights[4 * (size_t)best + k] : 0;
            sv += wv[k];
            sm += wm[k];
        }
        for (int k = 0; k < b->influences[v] && sv > 0 && sm > 0; k++) {
            int j = b->joints[4 * v + k], m = j < (int)b->skin_joint_count ? mj[j] : -1;
            double other = 0;
            for (int q2 = 0; q2 < b->influences[best]; q2++)
                if (m >= 0 && b->joints[4 * (size_t)best + q2] == m)
                    other += wm[q2] / sm;
            double d = fabs(wv[k] / sv - other);
            if (d > worst) {
                worst = d;
                worst_joint = j;
            }
        }
        for (int q2 = 0; q2 < b->influences[best] && sv > 0 && sm > 0; q2++) {
            int m = b->joints[4 * (size_t)best + q2];
            int j = m < (int)b->skin_joint_count ? mj[m] : -1;
            double mine = 0;
            for (int k = 0; k < b->influences[v]; k++)
                if (j >= 0 && b->joints[4 * v + k] == j)
                    mine += wv[k] / sv;
            double d = fabs(wm[q2] / sm - mine);
            if (d > worst) {
                worst = d;
                worst_joint = j >= 0 ? j : m;
            }
        }
    }
#undef CELL_HASH
    r->mirror_pairs = paired;
    bool ok = true;
    r->mirror_applies = off > 0 && (double)paired >= MIRROR_SHARE * (double)off;
    if (r->mirror_applies) {
        r->mirror_err = worst;
        if (worst_joint >= 0 && worst_joint < (int)b->skin_joint_count && b->skin_joint_known[worst_joint] &&
            !am_string_set(&r->mirror_joint, b->skel->joints[b->skin_joint[worst_joint]].name))
            ok = false;
        r->mirror_flag = am_quality_limit_flag("mirror_err", worst);
    }
    free(mj);
    free(head);
    free(next);
    return ok ? AM_OK : am_fail_nomem(err, "mirror");
}

/* Islands, rigid parts and empty major bones: the holds decided as am_bind decides them. */
static am_status holds_report(const am_bench *b, const am_vec3 *rest_joints, am_quality_report *r, int **rigid_island,
                              am_bind_holds *holds, am_error *err)
{
    am_bind_skeleton sk;
    int *skin_of = NULL;
    am_status s = skin_skeleton(b, rest_joints, &sk, &skin_of, err);
    if (s)
        return s;
    am_bind_mesh mesh = {b->vertex_count, b->bind_pos, b->triangle_count, b->triangles};
    s = am_bind_holds_compute(&mesh, &sk, holds, err);
    if (s) {
        am_bind_skeleton_free(&sk);
        free(skin_of);
        return s;
    }
    /* total weight per skin joint */
    double *total = calloc(b->skin_joint_count + 1, sizeof *total);
    r->islands = calloc(holds->island_count + 1, sizeof *r->islands);
    *rigid_island = malloc((b->vertex_count + 1) * sizeof **rigid_island);
    int *island_joint = malloc((holds->island_count + 1) * sizeof *island_joint);
    if (!total || !r->islands || !*rigid_island || !island_joint) {
        free(total);
        free(island_joint);
        am_bind_skeleton_free(&sk);
        free(skin_of);
        return am_fail_nomem(err, "islands");
    }
    for (size_t v = 0; v < b->vertex_count; v++)
        for (int k = 0; k < b->influences[v]; k++)
            if (b->joints[4 * v + k] < b->skin_joint_count)
                total[b->joints[4 * v + k]] += b->weights[4 * v + k];
    bool *weighted = malloc((sk.joint_count + 1) * sizeof *weighted);
    int *main_of = malloc((b->vertex_count + 1) * sizeof *main_of);
    int *bind_of_skin = malloc((b->skin_joint_count + 1) * sizeof *bind_of_skin);
    for (size_t j = 0; weighted && j < sk.joint_count; j++)
        weighted[j] = total[skin_of[j]] > 0;
    for (size_t i = 0; bind_of_skin && i < b->skin_joint_count; i++)
        bind_of_skin[i] = -1;
    for (size_t j = 0; bind_of_skin && j < sk.joint_count; j++)
        bind_of_skin[skin_of[j]] = (int)j;
    for (size_t v = 0; main_of && bind_of_skin && v < b->vertex_count; v++) {
        int mj = main_joint(b, v);
        main_of[v] = mj >= 0 && (size_t)mj < b->skin_joint_count ? bind_of_skin[mj] : -1;
    }
    bool ok = weighted && main_of && bind_of_skin;
    for (size_t j = 0; ok && j < sk.joint_count; j++) {
        double len = am_v3_dist(sk.joints[j].head, sk.joints[j].tail);
        if (!holds->joint_held[j] || len < AM_BIND_MAJOR_BONE * b->height ||
            am_bind_joint_is_minor_kind(am_str(&sk.joints[j].name)))
            continue;
        if (weighted[j] || !am_bind_bone_is_empty(&sk, j, b->bind_pos, b->vertex_count, main_of, weighted, b->height))
            continue;
        if (am_quality_joint_left_empty(b, (size_t)skin_of[j], total))
            continue; /* an extended joint between weighted ones: left so on purpose */
        if (!am_string_list_push(&r->empty_major, &r->empty_major_count, &r->empty_major_cap,
                                 am_str(&sk.joints[j].name)))
            ok = false;
    }
    free(weighted);
    free(main_of);
    free(bind_of_skin);
    r->empty_major_flag = am_quality_limit_flag("empty_major", (double)r->empty_major_count);
    r->island_count = holds->island_count;
    for (size_t k = 0; k < holds->island_count; k++) {
        am_quality_island *I = &r->islands[k];
        I->vertices = holds->island_vertices[k];
        I->has_faces = holds->island_has_faces[k];
        for (size_t j = 0; j < sk.joint_count; j++)
            I->bones_held += holds->held[k * sk.joint_count + j];
        I->rigid_part = I->has_faces && I->bones_held == 0;
        I->one_bone = true;
        island_joint[k] = -2;
    }
    for (size_t v = 0; v < b->vertex_count; v++) {
        uint32_t k = holds->vertex_island[v];
        (*rigid_island)[v] = r->islands[k].rigid_part ? (int)k : -1;
        if (!r->islands[k].rigid_part)
            continue;
        double sum = 0, best = 0;
        int bj = -1;
        for (int q = 0; q < b->influences[v]; q++) {
            sum += b->weights[4 * v + q];
            if (b->weights[4 * v + q] > best) {
                best = b->weights[4 * v + q];
                bj = b->joints[4 * v + q];
            }
        }
        if (island_joint[k] == -2)
            island_joint[k] = bj;
        if (sum <= 0 || best / sum < 0.999 || bj != island_joint[k])
            r->islands[k].one_bone = false;
    }
    r->rigid_flag = AM_FLAG_PASS;
    for (size_t k = 0; k < holds->island_count; k++) {
        am_quality_island *I = &r->islands[k];
        int j = island_joint[k];
        if (j >= 0 && j < (int)b->skin_joint_count && b->skin_joint_known[j] &&
            !am_string_set(&I->bone, b->skel->joints[b->skin_joint[j]].name))
            ok = false;
        I->flag = AM_FLAG_NA;
        if (I->rigid_part) {
            r->rigid_parts++;
            I->flag = I->one_bone ? AM_FLAG_PASS : AM_FLAG_MAJOR;
            if (!I->one_bone)
                r->rigid_flag = AM_FLAG_MAJOR;
        }
    }
    if (r->rigid_parts == 0)
        r->rigid_flag = AM_FLAG_NA;
    free(total);
    free(island_joint);
    am_bind_skeleton_free(&sk);
    free(skin_of);
    return ok ? AM_OK : am_fail_nomem(err, "islands");
}

/* --- the joint band volume ---------------------------------------------------------- */

static void band_thresholds(am_band_kind k, double *collapse, double *lbs)
{
    *lbs = 0;
    switch (k) {
    case AM_BAND_SHOULDER: *collapse = 0.6; *lbs = 0.47; break;
    case AM_BAND_ELBOW: *collapse = 0.85; *lbs = 0.68; break;
    case AM_BAND_KNEE: *collapse = 0.85; *lbs = 0.73; break;
    case AM_BAND_HIP: *collapse = 0.6; break;
    case AM_BAND_TWIST: *collapse = 0.9; break;
    default: *collapse = 0; break;
    }
}

static am_status measure_band(const am_bench *b, const am_quality_pose *pose, const float *rest, const float *posed,
                              const am_vec3 *rest_j, const am_vec3 *posed_j, am_quality_band *out, am_error *err)
{
    memset(out, 0, sizeof *out);
    out->kind = pose->kind;
    band_thresholds(pose->kind, &out->collapse_line, &out->lbs_reference);
    out->flag = AM_FLAG_NA;
    const am_skeleton *sk = b->skel;
    int J = am_skeleton_find(sk, am_str(&pose->band_joint));
    if (J < 0 || skin_index(b, J) < 0)
        return AM_OK;
    int P = sk->joints[J].parent;
    while (P >= 0 && skin_index(b, P) < 0)
        P = sk->joints[P].parent;
    if (P < 0)
        return AM_OK;
    int C = -1;
    for (size_t i = 0; i < b->skin_joint_count; i++) {
        if (!b->skin_joint_known[i])
            continue;
        int c = b->skin_joint[i], a = sk->joints[c].parent;
        while (a >= 0 && skin_index(b, a) < 0)
            a = sk->joints[a].parent;
        if (a == J && (C < 0 || c < C) && am_v3_dist(rest_j[c], rest_j[J]) > 0)
            C = c;
    }
    if (!am_string_set(&out->joint, sk->joints[J].name) || !am_string_set(&out->parent, sk->joints[P].name) ||
        !am_string_set(&out->child, C >= 0 ? sk->joints[C].name : "(leaf)"))
        return am_fail_nomem(err, "band");
    am_vec3 p0 = rest_j[P], j0 = rest_j[J], p1 = posed_j[P], j1 = posed_j[J], c0, c1;
    if (C >= 0) {
        c0 = rest_j[C];
        c1 = posed_j[C];
    } else {
        /* a leaf: half the parent segment onward, turned with the joint */
        am_vec3 d0 = am_v3_scale(am_v3_sub(j0, p0), 0.5), d1 = am_v3_scale(am_v3_sub(j1, p1), 0.5);
        c0 = am_v3_add(j0, d0);
        c1 = am_v3_add(j1, d1);
    }
    int sP = skin_index(b, P), sJ = skin_index(b, J), sC = C >= 0 ? skin_index(b, C) : -1;
    size_t n = b->vertex_count;
    double *s_of = malloc((n ? n : 1) * sizeof *s_of), *d_of = malloc((n ? n : 1) * sizeof *d_of);
    double *near = malloc((n ? n : 1) * sizeof *near);
    if (!s_of || !d_of || !near) {
        free(s_of);
        free(d_of);
        free(near);
        return am_fail_nomem(err, "band volume");
    }
    size_t nn = 0;
    for (size_t v = 0; v < n; v++) {
        s_of[v] = NAN;
        int mj = main_joint(b, v);
        if (mj < 0 || (mj != sP && mj != sJ && mj != sC))
            continue;
        am_vec3 x = vtx(rest, v);
        double t1, t2;
        double d1 = seg_dist(p0, j0, x, &t1), d2 = seg_dist(j0, c0, x, &t2);
        s_of[v] = d1 < d2 ? t1 - 1.0 : t2;
        d_of[v] = fmin(d1, d2);
        if (fabs(s_of[v]) <= 0.25)
            near[nn++] = d_of[v];
    }
    if (nn < BAND_MIN_VERTICES) {
        free(s_of);
        free(d_of);
        free(near);
        return AM_OK;
    }
    double radius = am_bench_select_kth(near, nn, nn / 2); /* the median: sorted order's middle */
    double rest_sq[BAND_COUNT] = {0}, posed_sq[BAND_COUNT] = {0};
    size_t count[BAND_COUNT] = {0};
    for (size_t v = 0; v < n; v++) {
        if (isnan(s_of[v]) || fabs(s_of[v]) > 0.5 || d_of[v] > BAND_RADII * radius)
            continue;
        int k = (int)floor((s_of[v] + 0.5) / (1.0 / BAND_COUNT));
        k = k < 0 ? 0 : k >= BAND_COUNT ? BAND_COUNT - 1 : k;
        am_vec3 y = vtx(posed, v);
        double e = fmin(seg_dist(p1, j1, y, NULL), seg_dist(j1, c1, y, NULL));
        rest_sq[k] += d_of[v] * d_of[v];
        posed_sq[k] += e * e;
        count[k]++;
        out->vertices++;
    }
    out->radius_m = radius;
    out->worst = INFINITY;
    out->best = -INFINITY;
    for (int k = 0; k < BAND_COUNT; k++) {
        if (count[k] < BAND_MIN_VERTICES || rest_sq[k] <= 0)
            continue;
        double ratio = posed_sq[k] / rest_sq[k], centre = -0.5 + (k + 0.5) / BAND_COUNT;
        if (ratio < out->worst) {
            out->worst = ratio;
            out->worst_s = centre;
        }
        if (ratio > out->best) {
            out->best = ratio;
            out->best_s = centre;
        }
    }
    out->measured = isfinite(out->worst);
    if (out->measured) {
        if (out->lbs_reference > 0 && out->worst < 0.9 * out->lbs_reference)
            out->flag = AM_FLAG_MAJOR;
        else if (out->worst < out->collapse_line)
            out->flag = AM_FLAG_MINOR;
        else
            out->flag = AM_FLAG_PASS;
    }
    free(s_of);
    free(d_of);
    free(near);
    return AM_OK;
}

/* --- the whole report ------------------------------------------------------------- */

static am_flag worse(am_flag a, am_flag b)
{
    int ra = a == AM_FLAG_NA ? -1 : (int)a, rb = b == AM_FLAG_NA ? -1 : (int)b;
    return ra >= rb ? a : b;
}

static void count_flag(am_quality_report *r, am_flag f)
{
    r->blockers += f == AM_FLAG_BLOCKER;
    r->majors += f == AM_FLAG_MAJOR;
    r->minors += f == AM_FLAG_MINOR;
    r->worst = worse(r->worst, f);
}

/* Why a pose cannot be measured on this skin (`why` left unset when it can); false when
 * out of memory. */
static bool pose_support(const am_bench *b, const am_quality_pose *pose, const double *joint_weight, am_string *why)
{
    for (size_t k = 0; k < pose->joint_count; k++) {
        const char *name = am_str(&pose->joints[k].name);
        int j = am_skeleton_find(b->skel, name);
        int si = j >= 0 ? skin_index(b, j) : -1;
        if (j < 0 || si < 0)
            return am_string_setf(why, "needs %s, which the skin does not have", name);
        if (joint_weight[si] <= 0)
            return am_string_setf(why, "%s carries no weight", name);
    }
    return true;
}

/* The poses, measured by `workers` threads that each take the next pose (they only read
 * the bench and the shared rest figures; each pose's result has its own slot, so the
 * report is the same whatever the order). */
typedef struct pose_jobs {
    const am_bench *b;
    const am_quality_pose *poses;
    size_t pose_count;
    const am_quality_report *r; /* islands and rigid parts, read only */
    const float *rest;
    const am_vec3 *rest_j;
    const double *joint_weight;
    const int *rigid_island;      /* set for the second pass */
    /* The rigid parts' vertices bucketed by island once (counting sort): island k's are
     * rigid_order[rigid_start[k] .. rigid_start[k + 1]), so a pose walks each vertex once,
     * not every vertex per island (100k islands: quadratic before). */
    const uint32_t *rigid_order;
    const size_t *rigid_start;
    bool rigidity_pass;
    struct pose_scratch *scratch; /* one per worker (core/parallel.h's worker index) */
    am_status *status;            /* per pose: the first failure in pose order is kept */
    am_error *errs;
} pose_jobs;

/* Scratch of one worker. */
typedef struct pose_scratch {
    float *posed;
    am_vec3 *posed_j;
    am_bench_local *loc;
} pose_scratch;

static am_status measure_pose(const pose_jobs *pj, const am_quality_pose *pose, pose_scratch *w,
                              am_quality_pose_result *pr, am_error *err)
{
    const am_bench *b = pj->b;
    if (!am_string_copy(&pr->name, &pose->name))
        return am_fail_nomem(err, "pose");
    pr->worst = AM_FLAG_NA;
    pr->strain_flag = pr->leak_flag = pr->rigidity_flag = AM_FLAG_NA;
    pr->band.flag = AM_FLAG_NA;
    if (!pose_support(b, pose, pj->joint_weight, &pr->skipped))
        return am_fail_nomem(err, "pose");
    if (!am_string_empty(&pr->skipped))
        return AM_OK;
    size_t nl = 0;
    am_status s;
    if ((s = am_quality_pose_locals(b, pose, w->loc, &nl, err)) ||
        (s = am_bench_pose_locals(b, w->loc, nl, w->posed, w->posed_j, err)) ||
        (s = am_bench_strain_report(b, w->posed, &pr->strain, err)))
        return s;
    pr->measured = true;
    pr->strain_flag = am_quality_limit_flag("strain_share", pr->strain.share_outside);
    pr->side = am_bench_locals_side(b, w->loc, nl);
    am_bench_cross_side_leak(b, pr->side, pj->rest, w->posed, &pr->leak);
    pr->leak_flag = !pr->leak.applies ? AM_FLAG_NA : am_quality_limit_flag("leak", pr->leak.max_h);
    if (!am_string_empty(&pose->band_joint) &&
        (s = measure_band(b, pose, pj->rest, w->posed, pj->rest_j, w->posed_j, &pr->band, err)))
        return s;
    pr->worst = worse(worse(pr->strain_flag, pr->leak_flag), worse(pr->band.flag, pr->rigidity_flag));
    return AM_OK;
}

/* Pass 2, when there are rigid parts: how far each rigid part bends in a measured pose
 * (posed again: the islands are found beside the first pass). */
static am_status measure_rigidity(const pose_jobs *pj, const am_quality_pose *pose, pose_scratch *w,
                                  am_quality_pose_result *pr, am_error *err)
{
    const am_bench *b = pj->b;
    const am_quality_report *r = pj->r;
    size_t nl = 0;
    if (!pr->measured || !r->rigid_parts)
        return AM_OK;
    am_status s;
    if ((s = am_quality_pose_locals(b, pose, w->loc, &nl, err)) ||
        (s = am_bench_pose_locals(b, w->loc, nl, w->posed, w->posed_j, err)))
        return s;
    pr->rigidity_m = 0;
    for (size_t k = 0; k < r->island_count; k++) {
        size_t begin = pj->rigid_start[k], end = pj->rigid_start[k + 1];
        if (!r->islands[k].rigid_part || end == begin)
            continue;
        /* the set only reads its indices: island k's slice of the bucketed order */
        am_bench_set set;
        memset(&set, 0, sizeof set);
        set.index = (uint32_t *)(uintptr_t)(pj->rigid_order + begin);
        set.count = end - begin;
        bool sampled;
        /* against the viewer's rest, not the bind shape: the rest's own error is the import's
         * rest error, reported once, not a bend in every pose */
        pr->rigidity_m = fmax(pr->rigidity_m, am_bench_rigidity_from(b, w->posed, pj->rest, &set, &sampled));
    }
    pr->rigidity_flag = am_quality_limit_flag("rigidity", b->height > 0 ? pr->rigidity_m / b->height : 0);
    pr->worst = worse(pr->worst, pr->rigidity_flag);
    return AM_OK;
}

/* The vertices of the rigid parts bucketed by island (island k's vertices, ascending, at
 * order[start[k] .. start[k + 1])): one counting sort, linear in vertices and islands. */
static am_status bucket_rigid_parts(size_t islands, const int *rigid_island, size_t n, uint32_t **order,
                                    size_t **start, am_error *err)
{
    *start = calloc(islands + 2, sizeof **start);
    *order = malloc((n ? n : 1) * sizeof **order);
    if (!*start || !*order)
        return am_fail_nomem(err, "rigid parts");
    size_t *at = *start;
    for (size_t v = 0; v < n; v++)
        if (rigid_island[v] >= 0)
            at[(size_t)rigid_island[v] + 1]++;
    for (size_t k = 0; k < islands; k++)
        at[k + 1] += at[k];
    size_t *next = malloc((islands + 1) * sizeof *next);
    if (!next)
        return am_fail_nomem(err, "rigid parts");
    memcpy(next, at, (islands + 1) * sizeof *next);
    for (size_t v = 0; v < n; v++)
        if (rigid_island[v] >= 0)
            (*order)[next[rigid_island[v]]++] = (uint32_t)v;
    free(next);
    return AM_OK;
}

static void pose_job(void *user, size_t i, int worker)
{
    pose_jobs *pj = user;
    am_error_clear(&pj->errs[i]);
    pj->status[i] = pj->rigidity_pass
                        ? measure_rigidity(pj, &pj->poses[i], &pj->scratch[worker], &pj->r->poses[i], &pj->errs[i])
                        : measure_pose(pj, &pj->poses[i], &pj->scratch[worker], &pj->r->poses[i], &pj->errs[i]);
}

/* Each pose measured whole by the next free worker into its own slot (so the report does
 * not depend on the thread count); the first failing pose's error is the call's. */
static am_status measure_poses(pose_jobs *pj, int threads, am_error *err)
{
    int nt = am_parallel_threads(threads, pj->pose_count);
    size_t n = pj->b->vertex_count, nj = pj->b->skel->joint_count;
    pose_scratch *w = calloc((size_t)nt, sizeof *w);
    pj->status = calloc(pj->pose_count + 1, sizeof *pj->status);
    pj->errs = calloc(pj->pose_count + 1, sizeof *pj->errs);
    am_status s = w && pj->status && pj->errs ? AM_OK : am_fail_nomem(err, "quality report");
    for (int t = 0; w && t < nt && !s; t++) {
        w[t] = (pose_scratch){malloc((n ? 3 * n : 1) * sizeof *w[t].posed), malloc(nj * sizeof *w[t].posed_j),
                              malloc(nj * sizeof *w[t].loc)};
        if (!w[t].posed || !w[t].posed_j || !w[t].loc)
            s = am_fail_nomem(err, "quality report");
    }
    if (!s) {
        pj->scratch = w;
        am_parallel_for(pj->pose_count, nt, pose_job, pj);
        for (size_t i = 0; i < pj->pose_count && !s; i++)
            if (pj->status[i]) {
                *err = pj->errs[i];
                s = pj->status[i];
            }
    }
    for (int t = 0; w && t < nt; t++) {
        free(w[t].posed);
        free(w[t].posed_j);
        free(w[t].loc);
    }
    free(w);
    free(pj->status);
    free(pj->errs);
    pj->scratch = NULL;
    pj->status = NULL;
    pj->errs = NULL;
    return s;
}

am_status am_quality_run(const am_bench *b, const am_quality_pose *poses, size_t pose_count, am_quality_report *r,
                         am_error *err)
{
    return am_quality_run_threads(b, poses, pose_count, 1, r, err);
}

typedef struct holds_job {
    const am_bench *b;
    const am_vec3 *rest_j;
    am_quality_report *r; /* holds_report's fields only */
    int **rigid_island;
    am_bind_holds *holds;
    am_status status;
    am_error err;
} holds_job;

static void holds_run(void *user)
{
    holds_job *j = user;
    j->status = holds_report(j->b, j->rest_j, j->r, j->rigid_island, j->holds, &j->err);
}

am_status am_quality_run_threads(const am_bench *b, const am_quality_pose *poses, size_t pose_count, int threads,
                                 am_quality_report *r, am_error *err)
{
    memset(r, 0, sizeof *r);
    if (!poses)
        poses = am_quality_standard_poses(&pose_count);
    r->height_m = b->height;
    r->worst = AM_FLAG_PASS;
    r->outside_flag = AM_FLAG_NA;
    if (!am_string_copy(&r->source, &b->source))
        return am_fail_nomem(err, "quality report");
    am_status s = am_bench_weight_report(b, &r->weights, err);
    if (s) {
        am_quality_free(r);
        return s;
    }
    r->unweighted_flag = am_quality_limit_flag("unweighted", (double)r->weights.unweighted);
    r->sum_dev_flag = am_quality_limit_flag("sum_dev", (double)r->weights.sum_dev);
    r->influences_flag = am_quality_limit_flag("max_influences", r->weights.max_influences);
    r->cross_side_flag = !b->sides_follow_y ? AM_FLAG_NA
                                             : am_quality_limit_flag("cross_side_weight", r->weights.cross_side_weight);
    size_t n = b->vertex_count, nj = b->skel->joint_count;
    float *rest = malloc((n ? 3 * n : 1) * sizeof *rest);
    am_vec3 *rest_j = malloc(nj * sizeof *rest_j);
    double *joint_weight = calloc(b->skin_joint_count + 1, sizeof *joint_weight);
    r->poses = calloc(pose_count + 1, sizeof *r->poses);
    int *rigid_island = NULL;
    uint32_t *rigid_order = NULL;
    size_t *rigid_start = NULL;
    am_bind_holds holds;
    memset(&holds, 0, sizeof holds);
    if (!rest || !rest_j || !joint_weight || !r->poses) {
        s = am_fail_nomem(err, "quality report");
        goto done;
    }
    for (size_t v = 0; v < n; v++)
        for (int k = 0; k < b->influences[v]; k++)
            if (b->joints[4 * v + k] < b->skin_joint_count)
                joint_weight[b->joints[4 * v + k]] += b->weights[4 * v + k];
    if ((s = am_bench_pose_locals(b, NULL, 0, rest, rest_j, err)))
        goto done;
    /* The islands (a ray scene of their own) are found beside the mirror and the poses,
     * which do not read them; the rigid parts' bending is measured after (pass 2). */
    holds_job hj = {b, rest_j, r, &rigid_island, &holds, AM_OK, {0}};
    am_task holds_task;
    am_task_start(&holds_task, holds_run, &hj);
    r->pose_count = pose_count;
    pose_jobs pj;
    memset(&pj, 0, sizeof pj);
    pj.b = b;
    pj.poses = poses;
    pj.pose_count = pose_count;
    pj.r = r;
    pj.rest = rest;
    pj.rest_j = rest_j;
    pj.joint_weight = joint_weight;
    s = mirror_report(b, r, err);
    if (!s)
        s = measure_poses(&pj, threads, err);
    am_task_join(&holds_task);
    if (hj.status) { /* its error first, as when the islands were found first */
        *err = hj.err;
        s = hj.status;
    }
    if (!s && r->rigid_parts) {
        pj.rigid_island = rigid_island;
        pj.rigidity_pass = true;
        s = bucket_rigid_parts(r->island_count, rigid_island, n, &rigid_order, &rigid_start, err);
        pj.rigid_order = rigid_order;
        pj.rigid_start = rigid_start;
        if (!s)
            s = measure_poses(&pj, threads, err);
    }
    if (s)
        goto done;
    count_flag(r, r->unweighted_flag);
    count_flag(r, r->empty_major_flag);
    count_flag(r, r->sum_dev_flag);
    count_flag(r, r->influences_flag);
    count_flag(r, r->cross_side_flag);
    count_flag(r, r->mirror_flag);
    count_flag(r, r->rigid_flag);
    for (size_t i = 0; i < pose_count; i++) {
        const am_quality_pose_result *pr = &r->poses[i];
        if (!pr->measured)
            continue;
        count_flag(r, pr->strain_flag);
        count_flag(r, pr->leak_flag);
        count_flag(r, pr->band.flag);
        count_flag(r, pr->rigidity_flag);
    }
done:
    free(rest);
    free(rest_j);
    free(joint_weight);
    free(rigid_island);
    free(rigid_order);
    free(rigid_start);
    am_bind_holds_free(&holds);
    if (s)
        am_quality_free(r);
    return s;
}

am_status am_quality_bones_outside(am_quality_report *r, const char *const *names, const bool *held, size_t count,
                                   am_error *err)
{
    am_string_list_free(r->outside, r->outside_count);
    r->outside = NULL;
    r->outside_count = r->outside_cap = 0;
    for (size_t j = 0; j < count; j++)
        if (!held[j] && !am_string_list_push(&r->outside, &r->outside_count, &r->outside_cap, names[j]))
            return am_fail_nomem(err, "bones outside");
    r->outside_flag = r->outside_count ? AM_FLAG_BLOCKER : AM_FLAG_PASS;
    count_flag(r, r->outside_flag);
    return AM_OK;
}

void am_quality_free(am_quality_report *r)
{
    if (!r)
        return;
    am_string_free(&r->source);
    am_string_list_free(r->empty_major, r->empty_major_count);
    am_string_list_free(r->outside, r->outside_count);
    am_string_free(&r->mirror_joint);
    for (size_t k = 0; r->islands && k < r->island_count; k++)
        am_string_free(&r->islands[k].bone);
    for (size_t i = 0; r->poses && i < r->pose_count; i++) {
        am_quality_pose_result *p = &r->poses[i];
        am_string_free(&p->name);
        am_string_free(&p->skipped);
        am_string_free(&p->band.joint);
        am_string_free(&p->band.parent);
        am_string_free(&p->band.child);
    }
    free(r->islands);
    free(r->poses);
    memset(r, 0, sizeof *r);
}

/* --- writing ------------------------------------------------------------------------ */

static json_t *flagged(double value, am_flag f)
{
    return json_pack("{s:f, s:s}", "value", value, "flag", am_flag_name(f));
}

am_status am_quality_json(const am_quality_report *r, am_buf *out, am_error *err)
{
    json_t *root = json_object();
    json_t *w = json_object();
    json_t *em = json_array(), *isl = json_array(), *poses = json_array();
    if (!root || !w || !em || !isl || !poses) {
        json_decref(root);
        json_decref(w);
        json_decref(em);
        json_decref(isl);
        json_decref(poses);
        return am_fail_nomem(err, "report JSON");
    }
    json_object_set_new(root, "source", json_string(am_str(&r->source)));
    json_object_set_new(root, "height_m", json_real(r->height_m));
    json_object_set_new(root, "worst", json_string(am_flag_name(r->worst)));
    json_object_set_new(root, "thresholds", am_quality_limits_json());
    json_object_set_new(root, "blockers", json_integer((json_int_t)r->blockers));
    json_object_set_new(root, "majors", json_integer((json_int_t)r->majors));
    json_object_set_new(root, "minors", json_integer((json_int_t)r->minors));
    json_object_set_new(w, "vertices", json_integer((json_int_t)r->weights.vertices));
    json_object_set_new(w, "unweighted", flagged((double)r->weights.unweighted, r->unweighted_flag));
    for (size_t i = 0; i < r->empty_major_count; i++)
        json_array_append_new(em, json_string(am_str(&r->empty_major[i])));
    json_object_set_new(w, "empty_major", json_pack("{s:o, s:s}", "joints", em, "flag", am_flag_name(r->empty_major_flag)));
    if (r->outside_flag != AM_FLAG_NA) {
        json_t *names = json_array();
        for (size_t i = 0; names && i < r->outside_count; i++)
            json_array_append_new(names, json_string(am_str(&r->outside[i])));
        json_object_set_new(w, "bones_outside", json_pack("{s:I, s:o, s:s}", "count", (json_int_t)r->outside_count,
                                                          "joints", names, "flag", am_flag_name(r->outside_flag)));
    }
    json_object_set_new(w, "sum_dev", flagged((double)r->weights.sum_dev, r->sum_dev_flag));
    json_object_set_new(w, "max_influences", flagged(r->weights.max_influences, r->influences_flag));
    json_object_set_new(w, "over4", json_integer(0));
    json_object_set_new(w, "cross_side_weight", flagged(r->weights.cross_side_weight, r->cross_side_flag));
    json_t *mirror = json_pack("{s:b, s:I, s:f, s:s, s:s}", "applies", r->mirror_applies, "pairs",
                               (json_int_t)r->mirror_pairs, "value", r->mirror_err, "joint", am_str(&r->mirror_joint),
                               "flag", am_flag_name(r->mirror_flag));
    json_object_set_new(w, "mirror_err", mirror);
    for (size_t k = 0; k < r->island_count; k++) {
        const am_quality_island *I = &r->islands[k];
        json_array_append_new(isl, json_pack("{s:I, s:b, s:I, s:b, s:b, s:s, s:s}", "vertices", (json_int_t)I->vertices,
                                             "has_faces", I->has_faces, "bones_held", (json_int_t)I->bones_held,
                                             "rigid_part", I->rigid_part, "one_bone", I->one_bone, "bone",
                                             am_str(&I->bone),
                                             "flag", am_flag_name(I->flag)));
    }
    json_object_set_new(w, "rigid_parts", json_pack("{s:I, s:s}", "count", (json_int_t)r->rigid_parts, "flag",
                                                    am_flag_name(r->rigid_flag)));
    json_object_set_new(w, "islands", isl);
    json_object_set_new(root, "weights", w);
    for (size_t i = 0; i < r->pose_count; i++) {
        const am_quality_pose_result *p = &r->poses[i];
        json_t *e = json_pack("{s:s, s:b, s:s}", "name", am_str(&p->name), "measured", p->measured, "worst",
                              am_flag_name(p->worst));
        if (!p->measured) {
            json_object_set_new(e, "skipped", json_string(am_str(&p->skipped)));
            json_array_append_new(poses, e);
            continue;
        }
        json_object_set_new(e, "strain", json_pack("{s:f, s:f, s:f, s:s}", "p1", p->strain.p1, "p99", p->strain.p99,
                                                   "share_outside", p->strain.share_outside, "flag",
                                                   am_flag_name(p->strain_flag)));
        json_object_set_new(e, "cross_side_leak", json_pack("{s:b, s:s, s:f, s:f, s:s}", "applies", p->leak.applies,
                                                            "side", am_bench_side_name(p->side), "m", p->leak.max_m,
                                                            "h", p->leak.max_h, "flag", am_flag_name(p->leak_flag)));
        if (p->band.measured)
            json_object_set_new(e, "band_volume",
                                json_pack("{s:s, s:s, s:s, s:s, s:I, s:f, s:f, s:f, s:f, s:f, s:f, s:f, s:s}", "joint",
                                          am_str(&p->band.joint), "parent", am_str(&p->band.parent), "child",
                                          am_str(&p->band.child), "kind",
                                          kind_name(p->band.kind), "vertices", (json_int_t)p->band.vertices, "radius_m",
                                          p->band.radius_m, "worst", p->band.worst, "worst_s", p->band.worst_s, "best",
                                          p->band.best, "best_s", p->band.best_s, "collapse_line",
                                          p->band.collapse_line, "lbs_reference", p->band.lbs_reference, "flag",
                                          am_flag_name(p->band.flag)));
        if (p->rigidity_flag != AM_FLAG_NA)
            json_object_set_new(e, "rigidity", json_pack("{s:f, s:s}", "m", p->rigidity_m, "flag",
                                                         am_flag_name(p->rigidity_flag)));
        json_array_append_new(poses, e);
    }
    json_object_set_new(root, "poses", poses);
    char *text = json_dumps(root, JSON_INDENT(1) | JSON_REAL_PRECISION(6));
    json_decref(root);
    if (!text)
        return am_fail_nomem(err, "report JSON");
    am_status s = am_buf_append(out, text, strlen(text), err);
    if (!s)
        s = am_buf_append(out, "\n", 1, err);
    free(text);
    return s;
}

am_status am_quality_text(const am_quality_report *r, am_buf *out, am_error *err)
{
    am_status s = AM_OK;
#define LINE(...)                                    \
    do {                                             \
        if (!s)                                      \
            s = am_buf_printf(out, err, __VA_ARGS__); \
    } while (0)
    LINE("quality report: %s (height %.3f m) - %zu blocker, %zu major, %zu minor; worst: %s\n", am_str(&r->source),
         r->height_m, r->blockers, r->majors, r->minors, am_flag_name(r->worst));
    LINE("weights (%zu vertices)\n", r->weights.vertices);
    LINE("  %-8s unweighted        %zu\n", am_flag_name(r->unweighted_flag), r->weights.unweighted);
    LINE("  %-8s empty_major       %zu", am_flag_name(r->empty_major_flag), r->empty_major_count);
    for (size_t i = 0; i < r->empty_major_count && i < 16; i++) /* all of them: the JSON */
        LINE("%s%s", i ? ", " : " (", am_str(&r->empty_major[i]));
    LINE("%s\n", r->empty_major_count > 16 ? ", ...)" : r->empty_major_count ? ")" : "");
    if (r->outside_flag != AM_FLAG_NA) {
        LINE("  %-8s bones outside     %zu", am_flag_name(r->outside_flag), r->outside_count);
        for (size_t i = 0; i < r->outside_count && i < 16; i++)
            LINE("%s%s", i ? ", " : " (outside the mesh: ", am_str(&r->outside[i]));
        LINE("%s\n", r->outside_count > 16 ? ", ...)" : r->outside_count ? ")" : "");
    }
    LINE("  %-8s sum_dev           %zu\n", am_flag_name(r->sum_dev_flag), r->weights.sum_dev);
    LINE("  %-8s max_influences    %d (over4 0)\n", am_flag_name(r->influences_flag), r->weights.max_influences);
    LINE("  %-8s cross-side weight %.4f\n", am_flag_name(r->cross_side_flag), r->weights.cross_side_weight);
    if (r->mirror_applies)
        LINE("  %-8s mirror_err        %.4f (%zu mirrored pairs%s%s)\n", am_flag_name(r->mirror_flag), r->mirror_err,
             r->mirror_pairs, !am_string_empty(&r->mirror_joint) ? ", worst on " : "", am_str(&r->mirror_joint));
    else
        LINE("  %-8s mirror_err        not symmetric (%zu mirrored pairs)\n", am_flag_name(r->mirror_flag),
             r->mirror_pairs);
    LINE("  %-8s rigid parts       %zu of %zu islands\n", am_flag_name(r->rigid_flag), r->rigid_parts, r->island_count);
    for (size_t k = 0; k < r->island_count && k < 32; k++) {
        const am_quality_island *I = &r->islands[k];
        if (I->rigid_part)
            LINE("           island %zu: %zu vertices, holds no bone: %s\n", k, I->vertices,
                 I->one_bone ? am_str(&I->bone) : "NOT one bone at 1.0");
    }
    LINE("poses\n");
    for (size_t i = 0; i < r->pose_count; i++) {
        const am_quality_pose_result *p = &r->poses[i];
        if (!p->measured) {
            LINE("  %-8s %-15s skipped: %s\n", "n/a", am_str(&p->name), am_str(&p->skipped));
            continue;
        }
        LINE("  %-8s %-15s strain p1 %.3f p99 %.3f outside %.3f%% (%s)", am_flag_name(p->worst), am_str(&p->name),
             p->strain.p1, p->strain.p99, 100 * p->strain.share_outside, am_flag_name(p->strain_flag));
        if (p->leak.applies)
            LINE("; leak %.5f H (%s)", p->leak.max_h, am_flag_name(p->leak_flag));
        if (p->band.measured)
            LINE("; %s band %.2f..%.2f (%s; collapse < %.2f, LBS %.2f)", am_str(&p->band.joint), p->band.worst,
                 p->band.best, am_flag_name(p->band.flag), p->band.collapse_line, p->band.lbs_reference);
        if (p->rigidity_flag != AM_FLAG_NA)
            LINE("; rigid parts %.2g m (%s)", p->rigidity_m, am_flag_name(p->rigidity_flag));
        LINE("\n");
    }
#undef LINE
    return s;
}
