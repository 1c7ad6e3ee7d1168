/* Closing a loop (anim.h "Loops that close"): the seam measured against the clip's own
 * steps, the closing blend of the last keys into the first pose, and the same blend on a
 * file's keys (anim from-bvh --loop). The viewer plays the seam as a jump
 * (docs/reference/anim-format.md#time-and-looping). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "anim/anim.h"

/* One quantisation step (as the guard in motion.c): a seam below it is no seam. */
#define ROT_STEP_DEG (2.0 * 1.7320508075688772 * (2.0 / 65535.0) * AM_RAD2DEG)
#define POS_STEP_M (1.7320508075688772 * (10.0 / 65535.0))
/* An implicit cycle's seam is one step of its motion where it wraps: at most twice the
 * largest step over the clip's first and last END_STEPS steps (a walk's ankle speeds up
 * by half again at the heel strike; a standing start and end, a jump's, stay out). */
#define IMPLICIT_SLACK 2.0
#define END_STEPS 3

/* The largest speed (per second) of a track's rotation or position over its first and
 * last END_STEPS steps (per second: samples between the keys do not shrink it). */
static void end_speeds(const am_loop_track *tr, double *rot_deg_s, double *pos_m_s)
{
    *rot_deg_s = *pos_m_s = 0;
    size_t n = tr->count;
    for (size_t k = 0; k + 1 < n; k++) {
        if (k >= END_STEPS && k + END_STEPS + 1 < n)
            continue; /* the ends only */
        double dt = tr->times[k + 1] - tr->times[k];
        if (!(dt > 1e-9))
            continue;
        *rot_deg_s = fmax(*rot_deg_s, am_quat_angle_between(tr->rot[k], tr->rot[k + 1]) * AM_RAD2DEG / dt);
        if (tr->pos)
            *pos_m_s = fmax(*pos_m_s, am_v3_dist(tr->pos[k], tr->pos[k + 1]) / dt);
    }
}

void am_loop_measure(const am_loop_track *tracks, size_t n, double close_dt, am_loop_seam *out)
{
    memset(out, 0, sizeof *out);
    out->rot_track = out->pos_track = -1;
    out->implicit = close_dt > 0;
    for (size_t j = 0; j < n; j++) {
        const am_loop_track *tr = &tracks[j];
        if (tr->count < 2)
            continue;
        size_t l = tr->count - 1;
        for (size_t k = 0; k < l; k++) {
            out->step_deg = fmax(out->step_deg, am_quat_angle_between(tr->rot[k], tr->rot[k + 1]) * AM_RAD2DEG);
            if (tr->pos)
                out->step_m = fmax(out->step_m, am_v3_dist(tr->pos[k], tr->pos[k + 1]));
        }
        double r = am_quat_angle_between(tr->rot[0], tr->rot[l]) * AM_RAD2DEG;
        double p = tr->pos ? am_v3_dist(tr->pos[0], tr->pos[l]) : 0;
        if (r > out->rot_deg) {
            out->rot_deg = r;
            out->rot_track = (long)j;
            out->rot_at_s = tr->times[l];
        }
        if (tr->pos && p > out->pos_m) {
            out->pos_m = p;
            out->pos_track = (long)j;
            out->pos_at_s = tr->times[l];
        }
        double vr, vp;
        end_speeds(tr, &vr, &vp);
        if (r > IMPLICIT_SLACK * vr * close_dt + ROT_STEP_DEG || p > IMPLICIT_SLACK * vp * close_dt + POS_STEP_M)
            out->implicit = false;
    }
    /* a seam within one quantisation step is closed already: nothing implicit about it */
    if (out->rot_deg <= ROT_STEP_DEG && out->pos_m <= POS_STEP_M)
        out->implicit = false;
}

/* 0 before the window, 1 at its end and after: smoothstep, so the blend starts without a kink. */
static double blend_weight(double t, double start, double end)
{
    if (t >= end)
        return 1.0;
    if (t <= start || end <= start)
        return 0.0;
    double u = (t - start) / (end - start);
    return u * u * (3 - 2 * u);
}

/* q^w for a unit quaternion, the short way round. */
static am_quat quat_pow(am_quat q, double w)
{
    if (q.w < 0)
        q = (am_quat){-q.x, -q.y, -q.z, -q.w};
    double s = sqrt(q.x * q.x + q.y * q.y + q.z * q.z);
    if (s < 1e-12)
        return am_quat_identity();
    double half = atan2(s, q.w) * w;
    double k = sin(half) / s;
    return am_quat_normalize((am_quat){q.x * k, q.y * k, q.z * k, cos(half)});
}

void am_loop_blend(am_loop_track *tracks, size_t n, double window_s, am_loop_change *out)
{
    memset(out, 0, sizeof *out);
    out->rot_track = out->pos_track = -1;
    for (size_t j = 0; j < n; j++) {
        am_loop_track *tr = &tracks[j];
        if (tr->count < 2)
            continue;
        size_t l = tr->count - 1;
        double end = tr->times[l], start = end - window_s;
        /* key' = key (x) d^w, d = last^-1 (x) first: the last key becomes the first */
        am_quat d = am_quat_normalize(am_quat_mul(am_quat_conj(tr->rot[l]), tr->rot[0]));
        am_vec3 dp = tr->pos ? am_v3_sub(tr->pos[0], tr->pos[l]) : am_v3(0, 0, 0);
        double r = am_quat_angle_between(tr->rot[0], tr->rot[l]) * AM_RAD2DEG;
        double p = am_v3_len(dp);
        for (size_t k = 1; k <= l; k++) {
            double w = blend_weight(tr->times[k], start, end);
            if (w <= 0)
                continue;
            tr->rot[k] = k == l ? tr->rot[0] : am_quat_normalize(am_quat_mul(tr->rot[k], quat_pow(d, w)));
            if (tr->pos)
                tr->pos[k] = k == l ? tr->pos[0] : am_v3_add(tr->pos[k], am_v3_scale(dp, w));
        }
        if (r > out->rot_deg)
            out->rot_deg = r, out->rot_track = (long)j;
        if (tr->pos && p > out->pos_m)
            out->pos_m = p, out->pos_track = (long)j;
    }
}

double am_loop_window(double span_s)
{
    return fmin(AM_LOOP_WINDOW_S, span_s / 4);
}

/* ---- the same on a file's keys (between loop_in and loop_out) ---- */

am_status am_anim_close_loop(am_anim *a, double tol_deg, double tol_m, am_loop_change *out, am_error *err)
{
    memset(out, 0, sizeof *out);
    out->rot_track = out->pos_track = -1;
    if (!a->loop || a->joint_count == 0)
        return AM_OK;
    am_anim_seam seam;
    am_anim_loop_seam(a, &seam);
    if (seam.rot_deg <= ROT_STEP_DEG && seam.pos_m <= POS_STEP_M)
        return AM_OK;
    if (seam.rot_deg > tol_deg && seam.rot_deg > ROT_STEP_DEG)
        return am_fail(err, AM_ERR_INVALID,
                       "loop guard: joint '%s' is %.3f deg away at the loop seam (the pose at %.3f s vs %.3f s), %.3f deg "
                       "over the tolerance of %g deg: choose loop points where the pose matches, or a larger "
                       "tolerance",
                       a->joints[seam.rot_joint].name, seam.rot_deg, a->loop_out, a->loop_in, seam.rot_deg - tol_deg,
                       tol_deg);
    if (seam.pos_m > tol_m && seam.pos_m > POS_STEP_M)
        return am_fail(err, AM_ERR_INVALID,
                       "loop guard: joint '%s' is %.4f m away at the loop seam (the pose at %.3f s vs %.3f s), %.4f m over "
                       "the tolerance of %.4f m: choose loop points where the pose matches, or a larger tolerance",
                       a->joints[seam.pos_joint].name, seam.pos_m, a->loop_out, a->loop_in, seam.pos_m - tol_m, tol_m);
    double in = a->loop_in, lout = a->loop_out, start = lout - am_loop_window(lout - in);
    float dur = a->duration;
    for (size_t j = 0; j < a->joint_count; j++) {
        am_anim_joint *jt = &a->joints[j];
        am_anim_joint_pose p0, p1;
        am_anim_eval_joint(a, j, in, &p0);
        am_anim_eval_joint(a, j, lout, &p1);
        if (p0.has_rot && p1.has_rot) {
            am_quat d = am_quat_normalize(am_quat_mul(am_quat_conj(p1.rot), p0.rot));
            double r = am_quat_angle_between(p0.rot, p1.rot) * AM_RAD2DEG;
            for (size_t k = 0; r > 0 && k < jt->rot_count; k++) {
                double w = blend_weight(jt->rot_keys[k].time, start, lout);
                if (w > 0 && jt->rot_keys[k].time > in)
                    am_anim_rot_key_set(&jt->rot_keys[k], jt->rot_keys[k].time,
                                        am_quat_mul(jt->rot_keys[k].rot, quat_pow(d, w)), dur);
            }
            if (r > out->rot_deg)
                out->rot_deg = r, out->rot_track = (long)j;
        }
        if (p0.has_pos && p1.has_pos) {
            am_vec3 dp = am_v3_sub(p0.pos, p1.pos);
            for (size_t k = 0; k < jt->pos_count; k++) {
                double w = blend_weight(jt->pos_keys[k].time, start, lout);
                if (w > 0 && jt->pos_keys[k].time > in)
                    am_anim_pos_key_set(&jt->pos_keys[k], jt->pos_keys[k].time,
                                        am_v3_add(jt->pos_keys[k].pos, am_v3_scale(dp, w)), dur);
            }
            if (am_v3_len(dp) > out->pos_m)
                out->pos_m = am_v3_len(dp), out->pos_track = (long)j;
        }
    }
    out->window_s = lout - start;
    return AM_OK;
}
