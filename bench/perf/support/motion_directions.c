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
    {"foot L", "mAnkleLeft", "mFootLeft", "LeftFoot", "LeftToeBase"},
    {"foot R", "mAnkleRight", "mFootRight", "RightFoot", "RightToeBase"},
};

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
    if (!res || !entry || !pose || !wr || !wp || !trs || !loc || !wld || !all) {
        st = am_fail_nomem(err, "directions");
        goto done;
    }
    am_anim_resolve(&a, k, res);
    for (size_t j = 0; j < nj; j++)
        entry[j] = -1;
    for (size_t i = 0; i < a.joint_count; i++)
        if (res[i] >= 0 && entry[res[i]] < 0)
            entry[res[i]] = (int)i;
    const am_scene_clip *c = &src->clips[clip];
    for (int ti = 0; ti < AM_MD_TIMES; ti++) {
        double f = (double)ti / AM_MD_TIMES;
        /* the viewer: the decoded file at motion time, FK on the viewer skeleton */
        am_anim_eval(&a, f * a.duration, pose);
        for (size_t j = 0; j < nj; j++) {
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
                wp[j] = am_v3_add(wp[J->parent],
                                  am_quat_rotate(wr[J->parent], am_v3_mul(lp, k->joints[J->parent].scale)));
            }
        }
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
    am_anim_free(&a);
    return st;
}
