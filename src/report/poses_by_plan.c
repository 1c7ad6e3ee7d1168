/* The report's standard poses by body plan (poses_by_plan.h). */
#include "report/poses_by_plan.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_POSES 48

am_status am_quality_body_plan(const am_bench *b, am_body_plan *out, am_error *err)
{
    size_t nj = b->skel->joint_count;
    bool *weighted = calloc(nj ? nj : 1, sizeof *weighted);
    am_vec3 *rest = malloc((nj ? nj : 1) * sizeof *rest);
    float *prim = malloc((b->vertex_count ? 3 * b->vertex_count : 1) * sizeof *prim);
    am_status s = AM_OK;
    if (!weighted || !rest || !prim)
        s = am_fail_nomem(err, "body plan");
    if (!s)
        s = am_bench_pose_at(b, -1, 0, prim, rest, err);
    for (size_t v = 0; !s && v < b->vertex_count; v++)
        for (size_t k = 0; k < 4; k++) {
            uint8_t sj = b->joints[4 * v + k];
            if (b->weights[4 * v + k] > 0 && sj < b->skin_joint_count && b->skin_joint_known[sj] &&
                b->skin_joint[sj] >= 0 && (size_t)b->skin_joint[sj] < nj)
                weighted[b->skin_joint[sj]] = true;
        }
    if (!s && !am_body_plan_from_viewer(b->skel, weighted, rest, out))
        s = am_fail_nomem(err, "body plan");
    free(weighted);
    free(rest);
    free(prim);
    return s;
}

typedef struct pose_list {
    am_quality_pose *p;
    size_t n;
    bool out_of_memory; /* a name could not be kept: the list is freed, the call fails */
} pose_list;

static am_quality_pose *pose(pose_list *l, const char *name, const char *band, am_band_kind kind)
{
    if (l->n >= MAX_POSES)
        return NULL;
    am_quality_pose *q = &l->p[l->n++];
    memset(q, 0, sizeof *q);
    if (!am_string_set(&q->name, name) || !am_string_set(&q->band_joint, band ? band : ""))
        l->out_of_memory = true;
    q->kind = band ? kind : AM_BAND_NONE;
    return q;
}

static void turn(pose_list *l, am_quality_pose *q, const char *joint, am_vec3 axis, double deg)
{
    if (!q || q->joint_count >= AM_POSE_MAX_JOINTS)
        return;
    if (!am_string_set(&q->joints[q->joint_count].name, joint))
        l->out_of_memory = true;
    q->joints[q->joint_count].axis = axis;
    q->joints[q->joint_count].deg = deg;
    q->joint_count++;
}

#define AX am_v3(1, 0, 0)
#define AY am_v3(0, 1, 0)
#define AZ am_v3(0, 0, 1)

/* A leg's viewer joints: the upper (hip or shoulder), the second (knee or elbow) of a side. */
typedef struct leg_joints {
    char upper[2][32], second[2][32]; /* [0] Left, [1] Right */
    am_band_kind upper_kind, second_kind;
} leg_joints;

static bool leg_of(am_limb_viewer v, leg_joints *out)
{
    const char *u, *s;
    switch (v) {
    case AM_VIEWER_LEGS: u = "mHip", s = "mKnee", out->upper_kind = AM_BAND_HIP, out->second_kind = AM_BAND_KNEE; break;
    case AM_VIEWER_ARMS:
        u = "mShoulder", s = "mElbow", out->upper_kind = AM_BAND_SHOULDER, out->second_kind = AM_BAND_ELBOW;
        break;
    case AM_VIEWER_HINDLIMBS:
        u = "mHindLimb1", s = "mHindLimb2", out->upper_kind = AM_BAND_HIP, out->second_kind = AM_BAND_KNEE;
        break;
    default: return false;
    }
    static const char *side[2] = {"Left", "Right"};
    for (int k = 0; k < 2; k++) {
        snprintf(out->upper[k], sizeof out->upper[k], "%s%s", u, side[k]);
        snprintf(out->second[k], sizeof out->second[k], "%s%s", s, side[k]);
    }
    return true;
}

static const am_body_plan_limb *limb(const am_body_plan *p, am_limb_role role)
{
    for (size_t i = 0; i < p->limb_count; i++)
        if (p->limbs[i].role == role)
            return &p->limbs[i];
    return NULL;
}

static void quadruped_poses(const am_body_plan *plan, pose_list *l)
{
    const am_body_plan_limb *fore = limb(plan, AM_LIMB_FORELEG), *hind = limb(plan, AM_LIMB_HINDLEG);
    leg_joints f, h;
    am_quality_pose *q;
    if (fore && leg_of(fore->viewer, &f)) {
        q = pose(l, "foreleg forward", f.upper[0], f.upper_kind);
        turn(l, q, f.upper[0], AY, -40);
        q = pose(l, "foreleg lift", f.second[0], f.second_kind);
        turn(l, q, f.upper[0], AY, -30);
        turn(l, q, f.second[0], AY, 90);
    }
    if (hind && leg_of(hind->viewer, &h)) {
        q = pose(l, "hind leg back", h.upper[0], h.upper_kind);
        turn(l, q, h.upper[0], AY, 35);
        q = pose(l, "hind knee", h.second[0], h.second_kind);
        turn(l, q, h.second[0], AY, 90);
        q = pose(l, "sit", h.second[0], h.second_kind);
        for (int k = 0; k < 2; k++) {
            turn(l, q, h.upper[k], AY, -70);
            turn(l, q, h.second[k], AY, 120);
        }
    }
    q = pose(l, "head turn", NULL, AM_BAND_NONE);
    turn(l, q, "mNeck", AZ, 20);
    turn(l, q, "mHead", AZ, 40);
    q = pose(l, "head down", NULL, AM_BAND_NONE);
    turn(l, q, "mNeck", AY, 30);
    q = pose(l, "tail swing", NULL, AM_BAND_NONE);
    turn(l, q, "mTail1", AZ, 40);
    q = pose(l, "tail lift", NULL, AM_BAND_NONE);
    turn(l, q, "mTail1", AY, 30);
}

static void wing_poses(pose_list *l)
{
    /* a wing along +Y (left) rises about +X, the right one (-Y) about -X */
    am_quality_pose *q = pose(l, "wings up", "mWing1Left", AM_BAND_SHOULDER);
    turn(l, q, "mWing1Left", AX, 40);
    turn(l, q, "mWing1Right", AX, -40);
    q = pose(l, "wings down", "mWing1Left", AM_BAND_SHOULDER);
    turn(l, q, "mWing1Left", AX, -30);
    turn(l, q, "mWing1Right", AX, 30);
    q = pose(l, "wing fold", "mWing2Left", AM_BAND_ELBOW);
    turn(l, q, "mWing2Left", AZ, 60);
}

static void humanoid_poses(pose_list *l)
{
    size_t n;
    const am_quality_pose *std = am_quality_standard_poses(&n);
    for (size_t i = 0; i < n && l->n < MAX_POSES; i++) /* copies the table's names: the list owns its own */
        if (am_quality_pose_copy(&l->p[l->n++], &std[i], NULL))
            l->out_of_memory = true;
}

static void serpent_poses(pose_list *l)
{
    am_quality_pose *q = pose(l, "spine bend", NULL, AM_BAND_NONE);
    turn(l, q, "mTorso", AY, 30);
    q = pose(l, "spine twist", NULL, AM_BAND_NONE);
    turn(l, q, "mTorso", AZ, 40);
    q = pose(l, "head turn", NULL, AM_BAND_NONE);
    turn(l, q, "mHead", AZ, 60);
    q = pose(l, "tail swing", NULL, AM_BAND_NONE);
    turn(l, q, "mTail1", AZ, 40);
    q = pose(l, "tail lift", NULL, AM_BAND_NONE);
    turn(l, q, "mTail1", AY, 30);
}

am_status am_quality_plan_poses(const am_body_plan *plan, am_quality_pose **out, size_t *count,
                                am_error *err)
{
    *out = NULL;
    *count = 0;
    pose_list l = {calloc(MAX_POSES, sizeof(am_quality_pose)), 0, false};
    if (!l.p)
        return am_fail_nomem(err, "poses");
    switch (plan->kind) {
    case AM_PLAN_QUADRUPED: quadruped_poses(plan, &l); break;
    case AM_PLAN_WINGED:
        wing_poses(&l);
        if (plan->leg_pairs == 2)
            quadruped_poses(plan, &l);
        else
            humanoid_poses(&l);
        break;
    case AM_PLAN_SERPENT: serpent_poses(&l); break;
    default: humanoid_poses(&l); break;
    }
    if (l.out_of_memory) {
        am_quality_poses_free(l.p, l.n);
        return am_fail_nomem(err, "poses");
    }
    *out = l.p;
    *count = l.n;
    return AM_OK;
}
