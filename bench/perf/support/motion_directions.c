/* Bone-direction agreement (motion_directions.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "anim/anim.h"
#include "bench/perf/support/motion_directions.h"

typedef struct bone_def {
    const char *name, *va, *vb, *sa, *sb; /* viewer from/to, source from/to (no prefix) */
} bone_def;

static const bone_def BONES[AM_MD_BONES] = {
    {"thigh L", "mHipLeft", "mKneeLeft", "LeftUpLeg", "LeftLeg"},
    {"thigh R", "mHipRight", "mKneeRight", "RightUpLeg", "RightLeg"},
    {"shin L", "mKneeLeft", "mAnkleLeft", "LeftLeg", "LeftFoot"},
    {"shin R", "mKneeRight", "mAnkleRight", "RightLeg", "RightFoot"},
    {"upper arm L", "mShoulderLeft", "mElbowLeft", "LeftArm", "LeftForeArm"},
    {"upper arm R", "mShoulderRight", "mElbowRight", "RightArm", "RightForeArm"},
    {"forearm L", "mElbowLeft", "mWristLeft", "LeftForeArm", "LeftHand"},
    {"forearm R", "mElbowRight", "mWristRight", "RightForeArm", "RightHand"},
    {"spine", "mPelvis", "mChest", "Hips", "Spine2"},
    {"neck", "mNeck", "mHead", "Neck", "Head"},
    {"hip line", "mHipRight", "mHipLeft", "RightUpLeg", "LeftUpLeg"},
    {"shoulder line", "mShoulderRight", "mShoulderLeft", "RightArm", "LeftArm"},
};

typedef struct orient_def {
    const char *name, *vj, *sj; /* viewer joint, source joint (no prefix) */
    am_vec3 rest_dir;           /* at the target's rest, viewer frame */
    const char *va, *sa;        /* palms: the forearm's start, viewer and source; else NULL */
} orient_def;

static const orient_def ORIENTS[AM_MD_ORIENTS] = {
    {"face", "mHead", "Head", {1, 0, 0}, NULL, NULL},
    {"sole L", "mAnkleLeft", "LeftFoot", {0, 0, 1}, NULL, NULL},
    {"sole R", "mAnkleRight", "RightFoot", {0, 0, 1}, NULL, NULL},
    {"palm L", "mWristLeft", "LeftHand", {0, 0, -1}, "mElbowLeft", "LeftForeArm"},
    {"palm R", "mWristRight", "RightHand", {0, 0, -1}, "mElbowRight", "RightForeArm"},
};

/* Y up, +Z forward (the source) <-> Z up, X forward (the viewer) */
static am_vec3 to_viewer(am_vec3 s) { return am_v3(s.z, s.x, s.y); }
static am_vec3 to_source(am_vec3 v) { return am_v3(v.y, v.z, v.x); }

static double angle_deg(am_vec3 a, am_vec3 b)
{
    if (am_v3_len(a) < 1e-12 || am_v3_len(b) < 1e-12)
        return -1;
    return acos(fmax(-1.0, fmin(1.0, am_v3_dot(am_v3_normalize(a), am_v3_normalize(b))))) * AM_RAD2DEG;
}

/* The shortest turn taking direction u onto direction v, applied to x. */
static am_vec3 carry(am_vec3 u, am_vec3 v, am_vec3 x)
{
    u = am_v3_normalize(u);
    v = am_v3_normalize(v);
    am_vec3 c = am_v3_cross(u, v);
    double d = am_v3_dot(u, v);
    if (d < -1.0 + 1e-12)
        return am_v3_scale(x, -1.0); /* opposite: any half turn; never met by a limb */
    return am_quat_rotate(am_quat_normalize((am_quat){c.x, c.y, c.z, 1.0 + d}), x);
}

/* A direction of the source's rest (viewer frame) turned with node n from rest to now. */
static am_vec3 source_turn(const am_mat4 *rest_inv, const am_mat4 *now, am_vec3 dir)
{
    am_vec3 d = am_mat4_transform_dir(rest_inv, to_source(dir));
    return am_v3_normalize(to_viewer(am_mat4_transform_dir(now, d)));
}

static am_vec3 across(am_vec3 x, am_vec3 axis)
{
    axis = am_v3_normalize(axis);
    return am_v3_sub(x, am_v3_scale(axis, am_v3_dot(x, axis)));
}

static int find_src(const am_scene *s, const char *prefix, const char *name)
{
    char full[128];
    snprintf(full, sizeof full, "%s%s", prefix, name);
    return am_scene_find_node(s, full);
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

void am_md_pose(const am_anim *a, const int *entry, double t, const am_skeleton *k, const am_vec3 *rest,
                am_anim_joint_pose *pose, am_quat *wr, am_vec3 *wp)
{
    am_anim_eval(a, t, pose);
    for (size_t j = 0; j < k->joint_count; j++) {
        const am_joint *J = &k->joints[j];
        int e = entry[j];
        am_quat lr = J->rot;
        am_vec3 lp = J->parent >= 0 ? am_quat_rotate(am_quat_conj(k->joints[J->parent].world_rot),
                                                     am_v3_sub(rest[j], rest[J->parent]))
                                    : am_v3(0, 0, 0);
        if (J->parent >= 0)
            lp = am_v3(lp.x / k->joints[J->parent].scale.x, lp.y / k->joints[J->parent].scale.y,
                       lp.z / k->joints[J->parent].scale.z);
        if (e >= 0 && pose[e].has_rot)
            lr = pose[e].rot;
        if (e >= 0 && pose[e].has_pos)
            lp = pose[e].pos;
        if (J->parent < 0) {
            wr[j] = lr;
            wp[j] = am_v3_add(rest[j], lp); /* the pelvis key: its offset from the prim */
        } else {
            wr[j] = am_quat_mul(wr[J->parent], lr);
            wp[j] = am_v3_add(wp[J->parent], am_quat_rotate(wr[J->parent], am_v3_mul(lp, k->joints[J->parent].scale)));
        }
    }
}

void am_md_entries(const am_anim *a, const am_skeleton *k, int *res, int *entry)
{
    am_anim_resolve(a, k, res);
    for (size_t j = 0; j < k->joint_count; j++)
        entry[j] = -1;
    for (size_t i = 0; i < a->joint_count; i++)
        if (res[i] >= 0 && entry[res[i]] < 0)
            entry[res[i]] = (int)i;
}

am_status am_md_measure(const am_scene *src, int clip, const char *prefix, const uint8_t *bytes, size_t size,
                        const am_skeleton *k, const am_vec3 *rest, am_md_result *out, am_error *err)
{
    memset(out, 0, sizeof *out);
    am_anim a;
    am_status st = am_anim_decode(bytes, size, &a, err);
    if (st)
        return st;
    size_t nj = k->joint_count, nn = src->node_count ? src->node_count : 1;
    int *res = malloc((a.joint_count ? a.joint_count : 1) * sizeof *res);
    int *entry = malloc(nj * sizeof *entry);
    am_anim_joint_pose *pose = malloc((a.joint_count ? a.joint_count : 1) * sizeof *pose);
    am_quat *wr = malloc(nj * sizeof *wr);
    am_vec3 *wp = malloc(nj * sizeof *wp);
    am_scene_trs *trs = malloc(nn * sizeof *trs);
    am_mat4 *loc = malloc(nn * sizeof *loc), *wld = malloc(nn * sizeof *wld);
    double *all = malloc(AM_MD_BONES * AM_MD_TIMES * sizeof *all);
    am_mat4 *rest_inv = malloc(nn * sizeof *rest_inv), *rest_w = malloc(nn * sizeof *rest_w);
    out->face_deg = out->sole_deg = out->palm_deg = out->roll_worst_deg = -1;
    if (!res || !entry || !pose || !wr || !wp || !trs || !loc || !wld || !all || !rest_inv || !rest_w) {
        st = am_fail_nomem(err, "directions");
        goto done;
    }
    am_md_entries(&a, k, res, entry);
    const am_scene_clip *c = &src->clips[clip];
    /* the source's rest: the evaluator's pose without a clip */
    am_scene_eval_clip(src, NULL, 0, trs, loc);
    am_scene_world_from_local(src, loc, rest_w);
    for (size_t i = 0; i < src->node_count; i++)
        if (!am_mat4_inverse(&rest_w[i], &rest_inv[i]))
            rest_inv[i] = am_mat4_identity();
    for (int ti = 0; ti < AM_MD_TIMES; ti++) {
        double f = (double)ti / AM_MD_TIMES;
        /* the viewer: the decoded file at motion time, FK on the viewer skeleton */
        am_md_pose(&a, entry, f * a.duration, k, rest, pose, wr, wp);
        /* the source at the same fraction of its clip */
        am_scene_eval_clip(src, c, c->start_s + f * (c->end_s - c->start_s), trs, loc);
        am_scene_world_from_local(src, loc, wld);
        for (int b = 0; b < AM_MD_BONES; b++) {
            const bone_def *d = &BONES[b];
            out->bone[b] = d->name;
            int va = am_skeleton_find_exact(k, d->va), vb = am_skeleton_find_exact(k, d->vb);
            int sa = find_src(src, prefix, d->sa), sb = find_src(src, prefix, d->sb);
            out->deg[b][ti] = -1;
            if (va < 0 || vb < 0 || sa < 0 || sb < 0)
                continue;
            am_vec3 s = am_v3_sub(am_mat4_get_translation(&wld[sb]), am_mat4_get_translation(&wld[sa]));
            s = am_v3(s.z, s.x, s.y); /* Y up, +Z forward -> Z up, X forward */
            am_vec3 v = am_v3_sub(wp[vb], wp[va]);
            if (am_v3_len(s) < 1e-9 || am_v3_len(v) < 1e-9)
                continue;
            double deg = acos(fmax(-1.0, fmin(1.0, am_v3_dot(am_v3_normalize(s), am_v3_normalize(v))))) * AM_RAD2DEG;
            out->deg[b][ti] = deg;
            all[out->measured++] = deg;
            out->worst_deg = fmax(out->worst_deg, deg);
        }
        for (int o = 0; o < AM_MD_ORIENTS; o++) {
            const orient_def *d = &ORIENTS[o];
            out->orient[o] = d->name;
            out->orient_deg[o][ti] = -1;
            int vj = am_skeleton_find_exact(k, d->vj), sj = find_src(src, prefix, d->sj);
            if (vj < 0 || sj < 0)
                continue;
            am_vec3 rest_src = d->rest_dir;
            if (d->va) {
                int va = am_skeleton_find_exact(k, d->va), sa = find_src(src, prefix, d->sa);
                if (va < 0 || sa < 0)
                    continue;
                am_vec3 sv = to_viewer(am_v3_sub(am_mat4_get_translation(&rest_w[sj]),
                                                 am_mat4_get_translation(&rest_w[sa])));
                rest_src = carry(am_v3_sub(rest[vj], rest[va]), sv, d->rest_dir);
            }
            double deg = angle_deg(am_quat_rotate(wr[vj], d->rest_dir), source_turn(&rest_inv[sj], &wld[sj], rest_src));
            out->orient_deg[o][ti] = deg;
            double *worst = o == 0 ? &out->face_deg : o < 3 ? &out->sole_deg : &out->palm_deg;
            *worst = fmax(*worst, deg);
        }
        for (int b = 0; b < AM_MD_ROLLS; b++) {
            const bone_def *d = &BONES[b];
            out->roll[b] = d->name;
            out->roll_deg[b][ti] = -1;
            int va = am_skeleton_find_exact(k, d->va), vb = am_skeleton_find_exact(k, d->vb);
            int sa = find_src(src, prefix, d->sa), sb = find_src(src, prefix, d->sb);
            if (va < 0 || vb < 0 || sa < 0 || sb < 0)
                continue;
            am_vec3 u = am_v3_sub(rest[vb], rest[va]);
            am_vec3 v = to_viewer(am_v3_sub(am_mat4_get_translation(&rest_w[sb]), am_mat4_get_translation(&rest_w[sa])));
            am_vec3 now = to_viewer(am_v3_sub(am_mat4_get_translation(&wld[sb]), am_mat4_get_translation(&wld[sa])));
            am_vec3 side = am_v3_cross(u, am_v3(0, 0, 1));
            if (am_v3_len(side) < 0.2 * am_v3_len(u))
                side = am_v3_cross(u, am_v3(1, 0, 0));
            if (am_v3_len(u) < 1e-9 || am_v3_len(v) < 1e-9 || am_v3_len(now) < 1e-9)
                continue;
            side = am_v3_normalize(side);
            am_vec3 t_side = across(am_quat_rotate(wr[va], side), now);
            am_vec3 s_side = across(source_turn(&rest_inv[sa], &wld[sa], carry(u, v, side)), now);
            double deg = angle_deg(t_side, s_side);
            out->roll_deg[b][ti] = deg;
            out->roll_worst_deg = fmax(out->roll_worst_deg, deg);
        }
    }
    if (out->measured) {
        qsort(all, out->measured, sizeof *all, cmp);
        out->p95_deg = all[(size_t)ceil(0.95 * (double)out->measured) - 1];
    }
done:
    free(res);
    free(entry);
    free(pose);
    free(wr);
    free(wp);
    free(trs);
    free(loc);
    free(wld);
    free(all);
    free(rest_inv);
    free(rest_w);
    am_anim_free(&a);
    return st;
}
