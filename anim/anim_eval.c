/* Playback of a decoded .anim the viewer's way (docs/reference/anim-format.md#curve-evaluation,
 * #time-and-looping and #playback-for-a-bench): curve time from the motion's local time, then per
 * joint the held first/last key or the normalised lerp between neighbouring keys. Keys are used in
 * file order without sorting: the scan finds the neighbours by time, and among keys with the same
 * decoded time the later one in the file wins, as the viewer's std::map insertion does. */
#include <math.h>
#include <stdlib.h>

#include "anim/anim.h"

double am_anim_curve_time(const am_anim *a, double tau)
{
    if (!(tau > 0.0))
        tau = 0.0;
    if (!a->loop)
        return tau;
    if (a->duration == 0.0f)
        return 0.0;
    double in = a->loop_in, out = a->loop_out;
    if (tau > out) {
        if (out - in == 0.0)
            return out;
        return in + fmod(tau - out, out - in);
    }
    return tau;
}

/* Neighbouring keys of time t among n keys: *lo = latest-in-file key with the largest
 * time <= t (-1 if none), *hi = latest-in-file key with the smallest time > t (-1). */
#define FIND_NEIGHBOURS(keys, n, t, lo, hi)                                                    \
    do {                                                                                       \
        lo = -1, hi = -1;                                                                      \
        for (size_t k_ = 0; k_ < (n); k_++) {                                                  \
            double kt_ = (keys)[k_].time;                                                      \
            if (kt_ <= (t)) {                                                                  \
                if (lo < 0 || kt_ >= (keys)[lo].time)                                          \
                    lo = (long)k_;                                                             \
            } else if (hi < 0 || kt_ <= (keys)[hi].time) {                                     \
                hi = (long)k_;                                                                 \
            }                                                                                  \
        }                                                                                      \
    } while (0)

static am_quat eval_rot(const am_anim_rot_key *keys, size_t n, double t)
{
    long lo, hi;
    FIND_NEIGHBOURS(keys, n, t, lo, hi);
    if (lo < 0)
        return keys[hi].rot; /* before the first key: held */
    if (hi < 0 || keys[lo].time == t)
        return keys[lo].rot; /* after the last key, or exactly on one */
    double t0 = keys[lo].time, t1 = keys[hi].time;
    return am_quat_nlerp_viewer((t - t0) / (t1 - t0), keys[lo].rot, keys[hi].rot);
}

static am_vec3 eval_pos(const am_anim_pos_key *keys, size_t n, double t)
{
    long lo, hi;
    FIND_NEIGHBOURS(keys, n, t, lo, hi);
    if (lo < 0)
        return keys[hi].pos;
    if (hi < 0 || keys[lo].time == t)
        return keys[lo].pos;
    double t0 = keys[lo].time, t1 = keys[hi].time;
    return am_v3_lerp(keys[lo].pos, keys[hi].pos, (t - t0) / (t1 - t0));
}

void am_anim_eval_joint(const am_anim *a, size_t j, double t, am_anim_joint_pose *p)
{
    const am_anim_joint *jt = &a->joints[j];
    p->has_rot = jt->rot_count > 0;
    p->has_pos = jt->pos_count > 0;
    p->rot = p->has_rot ? eval_rot(jt->rot_keys, jt->rot_count, t) : am_quat_identity();
    p->pos = p->has_pos ? eval_pos(jt->pos_keys, jt->pos_count, t) : am_v3(0, 0, 0);
}

void am_anim_eval_curves(const am_anim *a, double t, am_anim_joint_pose *out)
{
    for (size_t j = 0; j < a->joint_count; j++)
        am_anim_eval_joint(a, j, t, &out[j]);
}

void am_anim_eval(const am_anim *a, double tau_s, am_anim_joint_pose *out)
{
    am_anim_eval_curves(a, am_anim_curve_time(a, tau_s), out);
}

void am_anim_resolve(const am_anim *a, const am_skeleton *skel, int *out)
{
    for (size_t j = 0; j < a->joint_count; j++) {
        int idx = a->joints[j].name ? am_skeleton_find(skel, a->joints[j].name) : -1;
        if (idx >= 0 && (skel->joints[idx].joint_num < 0 || skel->joints[idx].joint_num >= AM_ANIM_MAX_JOINTS))
            idx = -1;
        for (size_t e = 0; idx >= 0 && e < j; e++)
            if (out[e] == idx)
                idx = -1; /* a second entry for the same joint has no effect */
        out[j] = idx;
    }
}

void am_anim_loop_seam(const am_anim *a, am_anim_seam *out)
{
    *out = (am_anim_seam){0, 0, -1, -1};
    if (!a->loop || a->joint_count == 0)
        return;
    am_anim_joint_pose *p_in = malloc(2 * a->joint_count * sizeof *p_in);
    if (!p_in)
        return; /* a diagnostic: nothing to report rather than a failure */
    am_anim_joint_pose *p_out = p_in + a->joint_count;
    am_anim_eval_curves(a, a->loop_in, p_in);
    am_anim_eval_curves(a, a->loop_out, p_out);
    for (size_t j = 0; j < a->joint_count; j++) {
        if (p_in[j].has_rot) {
            double d = am_quat_angle_between(p_in[j].rot, p_out[j].rot) * AM_RAD2DEG;
            if (out->rot_joint < 0 || d > out->rot_deg)
                out->rot_deg = d, out->rot_joint = (long)j;
        }
        if (p_in[j].has_pos) {
            double d = am_v3_dist(p_in[j].pos, p_out[j].pos);
            if (out->pos_joint < 0 || d > out->pos_m)
                out->pos_m = d, out->pos_joint = (long)j;
        }
    }
    free(p_in);
}
