/* Following the source's bone directions (retarget.h "FOLLOWING DIRECTIONS"): the target's
 * rest, the per-joint alignment Al_J from the target's rest bones onto the source's bind
 * bones, and the leg-length ratio the hips' motion is scaled by. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "retarget/retarget_internal.h"

/* Bones shorter than this have no direction worth following (the viewer's mSpine1 ->
 * mTorso is 0 long; a Mixamo end joint may sit on its parent). */
#define MIN_BONE_M 1e-5

am_retarget_keep am_retarget_keeps(const am_rt *c, size_t m)
{
    static const char *const world[] = {"mHead",      "mAnkleLeft", "mAnkleRight", "mFootLeft",
                                        "mFootRight", "mToeLeft",   "mToeRight"};
    const char *name = c->skel->joints[c->m_joint[m]].name;
    for (size_t i = 0; i < sizeof world / sizeof *world; i++)
        if (strcmp(name, world[i]) == 0)
            return AM_RETARGET_KEEP_WORLD;
    if (strcmp(name, "mWristLeft") == 0 || strcmp(name, "mWristRight") == 0)
        return AM_RETARGET_KEEP_FOREARM;
    return AM_RETARGET_FOLLOW;
}

void am_retarget_rest_of_rig(const am_rig *rig, const am_skeleton *k, am_vec3 *out)
{
    for (size_t j = 0; j < k->joint_count; j++) {
        const am_joint *sj = &k->joints[j];
        if (sj->parent < 0) {
            out[j] = sj->world_pos[AM_FRAME_FILE];
        } else {
            const am_joint *pj = &k->joints[sj->parent];
            am_vec3 local = am_v3_mul(sj->pos, pj->scale);
            out[j] = am_v3_add(out[sj->parent], am_quat_rotate(pj->world_rot, local));
        }
        for (size_t i = 0; rig && i < rig->joint_count; i++) {
            if (am_skeleton_find(k, rig->joints[i].name) != (int)j)
                continue;
            if (am_v3_dist(rig->joints[i].world, out[j]) > AM_JOINT_POS_THRESHOLD)
                out[j] = rig->joints[i].world;
            break;
        }
    }
}

am_quat am_retarget_shortest_arc(am_vec3 u, am_vec3 v)
{
    double d = am_v3_dot(u, v);
    if (d < -1.0 + 1e-12) {
        am_vec3 axis = am_v3_cross(u, fabs(u.x) < 0.9 ? am_v3(1, 0, 0) : am_v3(0, 1, 0));
        return am_quat_axis_angle(axis, AM_PI);
    }
    am_vec3 c = am_v3_cross(u, v);
    return am_quat_normalize((am_quat){c.x, c.y, c.z, 1.0 + d});
}

/* The rotation R minimising sum w_i |R u_i - v_i|^2 (Horn 1987, closed form in quaternions:
 * the eigenvector of the largest eigenvalue of N, found by power iteration on N + sum(w) I,
 * which has no negative eigenvalue). */
static am_quat best_rotation(const am_vec3 *u, const am_vec3 *v, const double *w, size_t n)
{
    double S[3][3] = {{0}}, total = 0;
    for (size_t i = 0; i < n; i++) {
        double a[3] = {u[i].x, u[i].y, u[i].z}, b[3] = {v[i].x, v[i].y, v[i].z};
        for (int r = 0; r < 3; r++)
            for (int c = 0; c < 3; c++)
                S[r][c] += w[i] * a[r] * b[c];
        total += w[i];
    }
    double N[4][4] = {
        {S[0][0] + S[1][1] + S[2][2], S[1][2] - S[2][1], S[2][0] - S[0][2], S[0][1] - S[1][0]},
        {S[1][2] - S[2][1], S[0][0] - S[1][1] - S[2][2], S[0][1] + S[1][0], S[2][0] + S[0][2]},
        {S[2][0] - S[0][2], S[0][1] + S[1][0], -S[0][0] + S[1][1] - S[2][2], S[1][2] + S[2][1]},
        {S[0][1] - S[1][0], S[2][0] + S[0][2], S[1][2] + S[2][1], -S[0][0] - S[1][1] + S[2][2]}};
    for (int i = 0; i < 4; i++)
        N[i][i] += total;
    /* start from the heaviest pair's shortest arc: near the answer, never orthogonal to it */
    size_t h = 0;
    for (size_t i = 1; i < n; i++)
        if (w[i] > w[h])
            h = i;
    am_quat s = am_retarget_shortest_arc(u[h], v[h]);
    double q[4] = {s.w, s.x, s.y, s.z};
    for (int it = 0; it < 500; it++) {
        double nq[4] = {0}, len = 0;
        for (int r = 0; r < 4; r++) {
            for (int c = 0; c < 4; c++)
                nq[r] += N[r][c] * q[c];
            len += nq[r] * nq[r];
        }
        len = sqrt(len);
        if (!(len > 0))
            break;
        for (int r = 0; r < 4; r++)
            q[r] = nq[r] / len;
    }
    return am_quat_normalize((am_quat){q[1], q[2], q[3], q[0]});
}

static double leg_length(const am_rt *c, bool target)
{
    static const char *const legs[2][3] = {{"mHipLeft", "mKneeLeft", "mAnkleLeft"},
                                           {"mHipRight", "mKneeRight", "mAnkleRight"}};
    for (int side = 0; side < 2; side++) {
        double len = 0;
        bool all = true;
        for (int b = 0; b < 2 && all; b++) {
            int ja = am_skeleton_find_exact(c->skel, legs[side][b]), jb = am_skeleton_find_exact(c->skel, legs[side][b + 1]);
            int ma = ja >= 0 ? c->of_joint[ja] : -1, mb = jb >= 0 ? c->of_joint[jb] : -1;
            all = ma >= 0 && mb >= 0;
            if (all)
                len += target ? am_v3_dist(c->vbind[ja], c->vbind[jb]) : am_v3_dist(c->m_bind[ma], c->m_bind[mb]);
        }
        if (all && len > MIN_BONE_M)
            return len;
    }
    return 0;
}

/* The Right twin of a Left joint name ("mHipLeft" -> "mHipRight"), false when none. */
static bool right_twin(const char *left, char *out, size_t size)
{
    size_t n = strlen(left);
    if (n < 4 || strcmp(left + n - 4, "Left") != 0 || n + 2 > size)
        return false;
    memcpy(out, left, n - 4);
    memcpy(out + n - 4, "Right", 6);
    return true;
}

size_t am_retarget_follow_vectors(const am_rt *c, size_t m, int *from, int *to)
{
    size_t n = 0;
    for (size_t k = m + 1; k < c->nm; k++) {
        if (c->m_anc[k] != (int)m)
            continue;
        const char *name = c->skel->joints[c->m_joint[k]].name;
        char twin[64];
        int r = -1;
        if (right_twin(name, twin, sizeof twin)) {
            int j = am_skeleton_find_exact(c->skel, twin);
            r = j >= 0 ? c->of_joint[j] : -1;
            if (r >= 0 && c->m_anc[r] != (int)m)
                r = -1;
        }
        if (r >= 0) { /* a pair: the line between them (hips, collars), not two bones */
            from[n] = r;
            to[n] = (int)k;
        } else {
            size_t nl = strlen(name);
            bool paired_right = false;
            if (nl > 5 && strcmp(name + nl - 5, "Right") == 0) {
                char left[64];
                snprintf(left, sizeof left, "%.*sLeft", (int)(nl - 5), name);
                int j = am_skeleton_find_exact(c->skel, left);
                paired_right = j >= 0 && c->of_joint[j] >= 0 && c->m_anc[c->of_joint[j]] == (int)m;
            }
            if (paired_right)
                continue; /* its Left twin gave the line */
            from[n] = (int)m;
            to[n] = (int)k;
        }
        am_vec3 dv = am_v3_sub(c->vbind[c->m_joint[to[n]]], c->vbind[c->m_joint[from[n]]]);
        am_vec3 ds = am_v3_sub(c->m_bind[to[n]], c->m_bind[from[n]]);
        if (am_v3_len(dv) >= MIN_BONE_M && am_v3_len(ds) >= MIN_BONE_M)
            n++;
    }
    return n;
}

am_status am_retarget_follow_setup(am_rt *c, am_error *err)
{
    c->m_align = malloc((c->nm ? c->nm : 1) * sizeof *c->m_align);
    c->m_child = malloc((c->nm ? c->nm : 1) * sizeof *c->m_child);
    am_vec3 *u = malloc((c->nm ? c->nm : 1) * sizeof *u), *v = malloc((c->nm ? c->nm : 1) * sizeof *v);
    double *w = malloc((c->nm ? c->nm : 1) * sizeof *w);
    int *from = malloc((c->nm ? c->nm : 1) * sizeof *from), *to = malloc((c->nm ? c->nm : 1) * sizeof *to);
    if (!c->m_align || !c->m_child || !u || !v || !w || !from || !to) {
        free(u);
        free(v);
        free(w);
        free(from);
        free(to);
        return am_fail_nomem(err, "retarget");
    }
    /* parents first: a joint's mapped children come after it */
    for (size_t m = 0; m < c->nm; m++) {
        size_t n = am_retarget_follow_vectors(c, m, from, to);
        for (size_t i = 0; i < n; i++) {
            am_vec3 dv = am_v3_sub(c->vbind[c->m_joint[to[i]]], c->vbind[c->m_joint[from[i]]]);
            u[i] = am_v3_normalize(dv);
            v[i] = am_v3_normalize(am_v3_sub(c->m_bind[to[i]], c->m_bind[from[i]]));
            w[i] = am_v3_len(dv);
        }
        c->m_child[m] = n == 1 && from[0] == (int)m ? to[0] : -1;
        int a = c->m_anc[m];
        am_retarget_keep keep = am_retarget_keeps(c, m);
        if (keep != AM_RETARGET_FOLLOW) {
            /* an end effector: the source's rotation from its rest, both rests the same
             * neutral pose; a hand's neutral is its forearm's, carried onto the source's
             * forearm line (a palm down at the end of an arm held out, wherever the arm is) */
            c->m_child[m] = -1;
            c->m_align[m] = keep == AM_RETARGET_KEEP_FOREARM && a >= 0 ? c->m_align[a] : am_quat_identity();
        } else if (n == 0)
            c->m_align[m] = a >= 0 ? c->m_align[a] : am_quat_identity();
        else
            c->m_align[m] = n == 1 ? am_retarget_shortest_arc(u[0], v[0]) : best_rotation(u, v, w, n);
    }
    free(u);
    free(v);
    free(w);
    free(from);
    free(to);
    double lt = leg_length(c, true), ls = leg_length(c, false);
    c->leg_ratio = lt > 0 && ls > 0 ? lt / ls : 1.0;
    if (!(lt > 0 && ls > 0))
        am_retarget_add_finding(
            c->r, AM_FINDING_NOTE,
            "no leg is mapped hip to ankle on both skeletons: the hips' motion is not scaled by leg length");
    return AM_OK;
}
