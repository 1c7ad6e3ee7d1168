/* Motions: stock joints whose local delta rotations (and optional positions) are functions
 * of normalised time, sampled into .anim keys, guarded at the loop seam, and verified by
 * decoding the written bytes and playing them back the viewer's way (docs/reference/lessons.md#rule-7 and #rule-10). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "anim/anim.h"

/* The largest angle a one-code change of every rotation component can make: the stored
 * vector moves by at most sqrt(3) * 2/65535 and the angle by twice that. */
#define ROT_STEP_RAD (2.0 * 1.7320508075688772 * (2.0 / 65535.0))
#define POS_STEP_M (1.7320508075688772 * (10.0 / 65535.0))

am_status am_anim_check_loop(const am_anim *anim, double tol_deg, double tol_m, am_error *err)
{
    am_anim_seam seam;
    am_anim_loop_seam(anim, &seam);
    double rot_allowed = fmax(ROT_STEP_RAD * AM_RAD2DEG, tol_deg);
    double pos_allowed = fmax(POS_STEP_M, tol_m);
    if (seam.rot_joint >= 0 && seam.rot_deg > rot_allowed)
        return am_fail(err, AM_ERR_INVALID,
                       "loop guard: joint '%s' is %.3f deg away at the loop seam (pose at loop_out %.3f s vs "
                       "loop_in %.3f s; allowed %.4f deg)",
                       anim->joints[seam.rot_joint].name, seam.rot_deg, anim->loop_out, anim->loop_in, rot_allowed);
    if (seam.pos_joint >= 0 && seam.pos_m > pos_allowed)
        return am_fail(err, AM_ERR_INVALID,
                       "loop guard: joint '%s' is %.4f m away at the loop seam (loop_out %.3f s vs loop_in %.3f s; "
                       "allowed %.5f m)",
                       anim->joints[seam.pos_joint].name, seam.pos_m, anim->loop_out, anim->loop_in, pos_allowed);
    return AM_OK;
}

void am_motion_init(am_motion *m)
{
    memset(m, 0, sizeof *m);
    m->base_priority = 4;
    m->loop_in = 0.0;
    m->loop_out = 1.0;
    m->ease_in_s = 0.3;
    m->ease_out_s = 0.3;
}

static double clip_u(const am_motion_track *tr, double t, size_t *i0)
{
    size_t n = tr->count;
    if (!tr->times) {
        double x = t * (double)(n - 1);
        size_t i = (size_t)floor(x);
        if (i >= n - 1)
            i = n - 2;
        *i0 = i;
        return x - (double)i;
    }
    size_t i = 0;
    while (i + 2 < n && tr->times[i + 1] <= t)
        i++;
    double a = tr->times[i], b = tr->times[i + 1];
    *i0 = i;
    return b > a ? (t - a) / (b - a) : 0.0;
}

void am_motion_pose(const am_motion *m, size_t track, double t, am_quat *rot, am_vec3 *pos)
{
    const am_motion_track *tr = &m->tracks[track];
    am_quat r = am_quat_identity();
    am_vec3 p = am_v3(0, 0, 0);
    if (t < 0.0)
        t = 0.0;
    if (t > 1.0)
        t = 1.0;
    if (m->pose_fn) {
        m->pose_fn(m->user, track, t, &r, &p);
    } else if (tr->count == 1 || (tr->count > 1 && !tr->times && t <= 0.0)) {
        r = tr->rot ? tr->rot[0] : r;
        p = tr->pos ? tr->pos[0] : p;
    } else if (tr->count > 1) {
        size_t i;
        double u;
        if (tr->times && t <= tr->times[0]) {
            i = 0, u = 0.0;
        } else if (tr->times && t >= tr->times[tr->count - 1]) {
            i = tr->count - 2, u = 1.0;
        } else {
            u = clip_u(tr, t, &i);
        }
        if (tr->rot)
            r = u <= 0.0 ? tr->rot[i] : u >= 1.0 ? tr->rot[i + 1] : am_quat_nlerp_viewer(u, tr->rot[i], tr->rot[i + 1]);
        if (tr->pos)
            p = am_v3_lerp(tr->pos[i], tr->pos[i + 1], u);
    }
    if (tr->has_correction)
        r = am_quat_mul(r, tr->correction); /* correction first, then the delta */
    if (rot)
        *rot = am_quat_normalize(r);
    if (pos)
        *pos = p;
}

static am_status check_motion(const am_motion *m, const am_skeleton *skel, am_error *err)
{
    if (!(m->duration_s > 0.0) || m->duration_s > AM_ANIM_MAX_DURATION)
        return am_fail(err, AM_ERR_INVALID, "motion: duration %g s must be in (0, %g]", m->duration_s,
                       (double)AM_ANIM_MAX_DURATION);
    if (m->track_count == 0 || m->track_count > AM_ANIM_MAX_JOINTS)
        return am_fail(err, AM_ERR_INVALID, "motion: %zu joints (must be 1..%d)", m->track_count,
                       AM_ANIM_MAX_JOINTS);
    if (m->base_priority < -1 || m->base_priority > AM_ANIM_MAX_PRIORITY)
        return am_fail(err, AM_ERR_INVALID, "motion: base priority %d (must be 0..6)", m->base_priority);
    if (m->hand_pose >= AM_ANIM_MAX_HAND_POSE)
        return am_fail(err, AM_ERR_INVALID, "motion: hand pose %u (must be 0..13)", m->hand_pose);
    double lin = m->loop_in, lout = m->loop_out == 0.0 ? 1.0 : m->loop_out;
    if (m->loop && !(lin >= 0.0 && lin <= lout && lout <= 1.0))
        return am_fail(err, AM_ERR_INVALID, "motion: loop points %g..%g must satisfy 0 <= in <= out <= 1",
                       lin, lout);
    for (size_t i = 0; i < m->track_count; i++) {
        const am_motion_track *tr = &m->tracks[i];
        if (!tr->joint || !*tr->joint)
            return am_fail(err, AM_ERR_INVALID, "motion: track %zu has no joint name", i);
        if (strcmp(tr->joint, "mRoot") == 0 || strcmp(tr->joint, "mScreen") == 0)
            return am_fail(err, AM_ERR_INVALID, "motion: joint '%s' cannot be animated", tr->joint);
        if (skel && am_skeleton_find(skel, tr->joint) < 0)
            return am_fail(err, AM_ERR_INVALID, "motion: joint '%s' is not in the viewer's skeleton", tr->joint);
        if (tr->priority < -1 || tr->priority > AM_ANIM_MAX_PRIORITY)
            return am_fail(err, AM_ERR_INVALID, "motion: joint '%s': priority %d (must be -1..6)", tr->joint,
                           tr->priority);
        if (!m->pose_fn && tr->count == 0)
            return am_fail(err, AM_ERR_INVALID, "motion: joint '%s' has no samples and no pose function",
                           tr->joint);
        if (!m->pose_fn && tr->has_pos && !tr->pos)
            return am_fail(err, AM_ERR_INVALID, "motion: joint '%s' has position keys but no positions",
                           tr->joint);
        for (size_t k = 0; !m->pose_fn && tr->times && k < tr->count; k++)
            if (!(tr->times[k] >= 0.0 && tr->times[k] <= 1.0) || (k && tr->times[k] < tr->times[k - 1]))
                return am_fail(err, AM_ERR_INVALID, "motion: joint '%s': sample %zu time %g not ascending in [0, 1]",
                               tr->joint, k, tr->times[k]);
    }
    return AM_OK;
}

/* Normalised sample times for a track: the clip's own or i / n. */
static size_t sample_times(const am_motion *m, const am_motion_track *tr, unsigned intervals, double **out)
{
    size_t n;
    bool own = intervals == AM_MOTION_CLIP_TIMES && !m->pose_fn;
    if (own)
        n = tr->count;
    else
        n = (size_t)(intervals == AM_MOTION_CLIP_TIMES || intervals == 0 ? 24 : intervals) + 1;
    double *t = malloc(n * sizeof *t);
    if (!t)
        return 0;
    for (size_t i = 0; i < n; i++)
        t[i] = own ? (tr->times ? tr->times[i] : (n > 1 ? (double)i / (double)(n - 1) : 0.0))
                   : (double)i / (double)(n - 1);
    *out = t;
    return n;
}

/* Keys a reduction may bridge at once (bounds the cost on long clips). */
#define REDUCE_WINDOW 64

/* Whether interpolating from key a to key c reproduces key i within tol, the way the
 * viewer interpolates (6.4): nlerp for rotations (radians), lerp for positions (metres). */
typedef bool (*reproduces_fn)(const void *keys, size_t a, size_t c, size_t i, double tol);

static bool rot_reproduces(const void *keys, size_t a, size_t c, size_t i, double tol_rad)
{
    const am_anim_rot_key *k = keys;
    double u = (k[i].time - k[a].time) / (double)(k[c].time - k[a].time);
    return am_quat_angle_between(am_quat_nlerp_viewer(u, k[a].rot, k[c].rot), k[i].rot) <= tol_rad;
}

static bool pos_reproduces(const void *keys, size_t a, size_t c, size_t i, double tol_m)
{
    const am_anim_pos_key *k = keys;
    double u = (k[i].time - k[a].time) / (double)(k[c].time - k[a].time);
    return am_v3_dist(am_v3_lerp(k[a].pos, k[c].pos, u), k[i].pos) <= tol_m;
}

/* Greedy key reduction on quantised keys (n keys of key_size bytes, compacted in place):
 * from each kept key, extend to the farthest key such that the viewer's interpolation
 * reproduces every key in between within tol. Returns the kept count. */
static size_t reduce(void *keys, size_t n, size_t key_size, reproduces_fn reproduces, double tol)
{
    if (n <= 2)
        return n;
    unsigned char *k = keys;
    size_t out = 1, a = 0;
    while (a < n - 1) {
        /* The farthest key whose interpolation from `a` reproduces every key between
         * (a sub-arc of an nlerp is not an nlerp of its ends, so scan from the far end). */
        size_t far = a + REDUCE_WINDOW < n - 1 ? a + REDUCE_WINDOW : n - 1, b = a + 1;
        for (size_t c = far; c > a + 1; c--) {
            bool ok = true;
            for (size_t i = a + 1; i < c && ok; i++)
                ok = reproduces(keys, a, c, i, tol);
            if (ok) {
                b = c;
                break;
            }
        }
        /* out <= b: this never overwrites a key still to be read */
        memmove(k + out++ * key_size, k + b * key_size, key_size);
        a = b;
    }
    return out;
}

void am_anim_reduce_keys(am_anim *a, double rot_tol_deg, double pos_tol_m, size_t *before, size_t *after)
{
    size_t b = 0, n = 0;
    for (size_t j = 0; j < a->joint_count; j++) {
        am_anim_joint *jt = &a->joints[j];
        b += jt->rot_count + jt->pos_count;
        jt->rot_count = reduce(jt->rot_keys, jt->rot_count, sizeof *jt->rot_keys, rot_reproduces,
                               rot_tol_deg * AM_DEG2RAD);
        jt->pos_count = reduce(jt->pos_keys, jt->pos_count, sizeof *jt->pos_keys, pos_reproduces, pos_tol_m);
        n += jt->rot_count + jt->pos_count;
    }
    if (before)
        *before = b;
    if (after)
        *after = n;
}


am_status am_motion_sample(const am_motion *m, const am_motion_sample_options *opts, const am_skeleton *skel,
                           am_anim *a, am_motion_stats *stats, am_error *err)
{
    memset(a, 0, sizeof *a);
    am_motion_sample_options o = {0};
    if (opts)
        o = *opts;
    double rot_tol = (o.rot_tol_deg > 0 ? o.rot_tol_deg : 0.05) * AM_DEG2RAD;
    double pos_tol = o.pos_tol_m > 0 ? o.pos_tol_m : 0.0005;
    am_status st = check_motion(m, skel, err);
    if (st != AM_OK)
        return st;
    float dur = (float)m->duration_s;
    a->version = AM_ANIM_VERSION;
    a->sub_version = AM_ANIM_SUBVERSION;
    a->base_priority = m->base_priority;
    a->duration = dur;
    a->emote_name = am_strdup(m->emote ? m->emote : "");
    a->loop = m->loop ? 1 : 0;
    if (m->loop) {
        a->loop_in = (float)(m->loop_in * m->duration_s);
        a->loop_out = (float)((m->loop_out == 0.0 ? 1.0 : m->loop_out) * m->duration_s);
    } else {
        a->loop_in = 0.0f;
        a->loop_out = dur; /* as the viewer's BVH loader leaves a non-looping motion */
    }
    a->ease_in = (float)m->ease_in_s;
    a->ease_out = (float)m->ease_out_s;
    a->hand_pose = m->hand_pose;
    a->joints = calloc(m->track_count, sizeof *a->joints);
    if (!a->emote_name || !a->joints) {
        am_anim_free(a);
        return am_fail_nomem(err, "motion sample");
    }
    size_t before = 0, after = 0;
    for (size_t j = 0; j < m->track_count; j++) {
        const am_motion_track *tr = &m->tracks[j];
        am_anim_joint *jt = &a->joints[j];
        a->joint_count = j + 1;
        jt->name = am_strdup(tr->joint);
        jt->priority = tr->priority;
        double *ts = NULL;
        size_t n = sample_times(m, tr, o.intervals, &ts);
        jt->rot_keys = n ? calloc(n, sizeof *jt->rot_keys) : NULL;
        jt->pos_keys = n && tr->has_pos ? calloc(n, sizeof *jt->pos_keys) : NULL;
        if (!jt->name || !n || !jt->rot_keys || (tr->has_pos && !jt->pos_keys)) {
            free(ts);
            am_anim_free(a);
            return am_fail_nomem(err, "motion keys");
        }
        for (size_t i = 0; i < n; i++) {
            am_quat q;
            am_vec3 p;
            am_motion_pose(m, j, ts[i], &q, &p);
            float kt = i == n - 1 && ts[i] >= 1.0 ? dur : (float)(ts[i] * m->duration_s);
            am_anim_rot_key_set(&jt->rot_keys[i], kt, q, dur);
            if (tr->has_pos)
                am_anim_pos_key_set(&jt->pos_keys[i], kt, p, dur);
        }
        free(ts);
        jt->rot_count = n;
        jt->pos_count = tr->has_pos ? n : 0;
        before += jt->rot_count + jt->pos_count;
        if (o.reduce) {
            jt->rot_count = reduce(jt->rot_keys, jt->rot_count, sizeof *jt->rot_keys, rot_reproduces, rot_tol);
            jt->pos_count = reduce(jt->pos_keys, jt->pos_count, sizeof *jt->pos_keys, pos_reproduces, pos_tol);
        }
        after += jt->rot_count + jt->pos_count;
    }
    if (stats) {
        memset(stats, 0, sizeof *stats);
        stats->keys_before = before;
        stats->keys_after = after;
    }
    return AM_OK;
}

am_status am_motion_check_loop(const am_motion *m, am_error *err)
{
    if (!m->loop)
        return AM_OK;
    am_status st = check_motion(m, NULL, err);
    if (st != AM_OK)
        return st;
    double tin = m->loop_in, tout = m->loop_out == 0.0 ? 1.0 : m->loop_out;
    float dur = (float)m->duration_s;
    /* the worst joint, not the first over the step: that is the one to look at */
    double worst_ang = 0, worst_d = 0;
    long ja = -1, jd = -1;
    for (size_t j = 0; j < m->track_count; j++) {
        am_quat q0, q1;
        am_vec3 p0, p1;
        am_motion_pose(m, j, tin, &q0, &p0);
        am_motion_pose(m, j, tout, &q1, &p1);
        /* Compare what the file will hold: the quantised poses. */
        am_anim_rot_key k0, k1;
        am_anim_rot_key_set(&k0, 0.0f, q0, dur);
        am_anim_rot_key_set(&k1, 0.0f, q1, dur);
        double ang = am_quat_angle_between(k0.rot, k1.rot);
        if (ang > worst_ang)
            worst_ang = ang, ja = (long)j;
        if (m->tracks[j].has_pos) {
            am_anim_pos_key a0, a1;
            am_anim_pos_key_set(&a0, 0.0f, p0, dur);
            am_anim_pos_key_set(&a1, 0.0f, p1, dur);
            double d = am_v3_dist(a0.pos, a1.pos);
            if (d > worst_d)
                worst_d = d, jd = (long)j;
        }
    }
    if (ja >= 0 && worst_ang > ROT_STEP_RAD)
        return am_fail(err, AM_ERR_INVALID,
                       "loop guard: joint '%s' ends %.3f deg away from where it starts (the pose at %.3f s vs "
                       "%.3f s; allowed: one quantisation step, %.4f deg)",
                       m->tracks[ja].joint, worst_ang * AM_RAD2DEG, tout * m->duration_s, tin * m->duration_s,
                       ROT_STEP_RAD * AM_RAD2DEG);
    if (jd >= 0 && worst_d > POS_STEP_M)
        return am_fail(err, AM_ERR_INVALID,
                       "loop guard: joint '%s' ends %.4f m away from where it starts (the pose at %.3f s vs %.3f s; "
                       "allowed: one quantisation step, %.5f m)",
                       m->tracks[jd].joint, worst_d, tout * m->duration_s, tin * m->duration_s, POS_STEP_M);
    return AM_OK;
}

/* Decode the written bytes, play them back at every sample time the viewer's way and
 * compare with the motion itself. */
static am_status verify_motion(const am_motion *m, const am_motion_sample_options *o, const am_anim *meant,
                               const uint8_t *data, size_t size, am_motion_stats *stats, am_error *err)
{
    am_anim got;
    am_status st = am_anim_decode(data, size, &got, err);
    if (st != AM_OK) {
        am_error_where(err, "round trip");
        return st;
    }
    if (got.joint_count != meant->joint_count || got.duration != meant->duration ||
        got.loop != meant->loop || got.base_priority != meant->base_priority ||
        got.hand_pose != meant->hand_pose || got.loop_in != meant->loop_in || got.loop_out != meant->loop_out) {
        am_anim_free(&got);
        return am_fail(err, AM_ERR_INVALID, "round trip: the decoded header differs from the one meant");
    }
    /* The file stores x, y, z and the viewer rebuilds w = sqrt(1 - |v|^2): an error dv in
     * x, y, z (up to ROT_STEP_RAD for two codes) moves w by up to |v| dv / w, and by no more
     * than sqrt(2 dv) when w nears 0, so a key near 180 deg plays up to ~1.7 deg off. */
    const double dv = ROT_STEP_RAD;
    double rot_tol = o->reduce ? (o->rot_tol_deg > 0 ? o->rot_tol_deg : 0.05) * AM_DEG2RAD : 0;
    double pos_tol = 2.0 * POS_STEP_M + (o->reduce ? (o->pos_tol_m > 0 ? o->pos_tol_m : 0.0005) : 0);
    am_anim_joint_pose *pose = calloc(got.joint_count, sizeof *pose);
    if (!pose) {
        am_anim_free(&got);
        return am_fail_nomem(err, "round trip");
    }
    double max_r = 0, max_p = 0;
    for (size_t j = 0; j < got.joint_count && st == AM_OK; j++) {
        const am_motion_track *tr = &m->tracks[j];
        if (strcmp(got.joints[j].name, tr->joint) != 0 || (got.joints[j].pos_count > 0) != tr->has_pos) {
            st = am_fail(err, AM_ERR_INVALID, "round trip: joint %zu decoded as '%s', meant '%s'", j,
                         got.joints[j].name, tr->joint);
            break;
        }
        double *ts = NULL;
        size_t n = sample_times(m, tr, o->intervals, &ts);
        if (!n) {
            st = am_fail_nomem(err, "round trip");
            break;
        }
        for (size_t i = 0; i < n && st == AM_OK; i++) {
            /* The time the key for t_i is stored at (floored to a time code). */
            float kt = i == n - 1 && ts[i] >= 1.0 ? got.duration : (float)(ts[i] * m->duration_s);
            double T = am_anim_u16_to_f32(am_anim_f32_to_u16(kt, 0.0f, got.duration), 0.0f, got.duration);
            am_anim_eval_joint(&got, j, T, &pose[j]); /* only the joint checked: O(keys) per key */
            am_quat q;
            am_vec3 p;
            am_motion_pose(m, j, ts[i], &q, &p);
            double e = am_quat_angle_between(q, pose[j].rot);
            double w = fabs(am_quat_normalize(q).w);
            double dw = w > 0 ? fmin(sqrt(fmax(0.0, 1 - w * w)) * dv / w, sqrt(2 * dv)) : sqrt(2 * dv);
            double allowed = 2 * sqrt(dv * dv + dw * dw) + rot_tol;
            if (e > max_r)
                max_r = e;
            if (e > allowed)
                st = am_fail(err, AM_ERR_INVALID,
                             "round trip: joint '%s' at t = %.4f plays %.4f deg away from the motion "
                             "(allowed %.4f)", tr->joint, ts[i], e * AM_RAD2DEG, allowed * AM_RAD2DEG);
            if (tr->has_pos && st == AM_OK) {
                am_vec3 pc = am_v3(fmax(-5, fmin(5, p.x)), fmax(-5, fmin(5, p.y)), fmax(-5, fmin(5, p.z)));
                double d = am_v3_dist(pc, pose[j].pos);
                if (d > max_p)
                    max_p = d;
                if (d > pos_tol)
                    st = am_fail(err, AM_ERR_INVALID,
                                 "round trip: joint '%s' at t = %.4f plays %.5f m away from the motion "
                                 "(allowed %.5f)", tr->joint, ts[i], d, pos_tol);
            }
        }
        free(ts);
    }
    if (stats) {
        stats->max_rot_err_deg = max_r * AM_RAD2DEG;
        stats->max_pos_err_m = max_p;
    }
    free(pose);
    am_anim_free(&got);
    return st;
}

am_status am_motion_write_anim(const am_motion *m, const am_motion_sample_options *opts, const am_skeleton *skel,
                               const char *path, am_buf *out_bytes, am_motion_stats *stats, am_error *err)
{
    am_motion_sample_options o = {0};
    if (opts)
        o = *opts;
    am_motion_stats local;
    if (!stats)
        stats = &local;
    am_status st = am_motion_check_loop(m, err);
    if (st != AM_OK)
        return st;
    am_anim a;
    st = am_motion_sample(m, &o, skel, &a, stats, err);
    if (st != AM_OK)
        return st;
    am_buf buf = {0};
    st = am_anim_encode(&a, &buf, err);
    if (st == AM_OK)
        st = verify_motion(m, &o, &a, buf.data, buf.size, stats, err);
    if (st == AM_OK) {
        stats->bytes = buf.size;
        if (path)
            st = am_write_file_atomic(path, buf.data, buf.size, err);
    }
    am_anim_free(&a);
    if (st == AM_OK && out_bytes) {
        *out_bytes = buf;
        return AM_OK;
    }
    am_buf_free(&buf);
    return st;
}

am_status am_anim_verify_bytes(const uint8_t *data, size_t size, const am_anim *meant, am_motion_stats *stats,
                               am_error *err)
{
    am_anim got;
    am_status st = am_anim_decode(data, size, &got, err);
    if (st != AM_OK)
        return st;
    double max_r = 0, max_p = 0;
    float tstep = meant->duration / 65535.0f;
    if (got.joint_count != meant->joint_count || got.duration != meant->duration)
        st = am_fail(err, AM_ERR_INVALID, "verify: %zu joints / duration %g decoded, %zu / %g meant",
                     got.joint_count, got.duration, meant->joint_count, meant->duration);
    for (size_t j = 0; j < got.joint_count && st == AM_OK; j++) {
        const am_anim_joint *g = &got.joints[j], *w = &meant->joints[j];
        if (strcmp(g->name, w->name) != 0 || g->rot_count != w->rot_count || g->pos_count != w->pos_count) {
            st = am_fail(err, AM_ERR_INVALID, "verify: joint %zu '%s' differs from '%s' (names or key counts)", j,
                         g->name, w->name);
            break;
        }
        for (size_t k = 0; k < g->rot_count && st == AM_OK; k++) {
            double e = am_quat_angle_between(g->rot_keys[k].rot, w->rot_keys[k].rot);
            max_r = fmax(max_r, e);
            if (e > 2 * ROT_STEP_RAD || fabsf(g->rot_keys[k].time - w->rot_keys[k].time) > 1.5f * tstep)
                st = am_fail(err, AM_ERR_INVALID, "verify: joint '%s' rotation key %zu decodes %.4f deg / %g s off",
                             g->name, k, e * AM_RAD2DEG, (double)(g->rot_keys[k].time - w->rot_keys[k].time));
        }
        for (size_t k = 0; k < g->pos_count && st == AM_OK; k++) {
            double d = am_v3_dist(g->pos_keys[k].pos, w->pos_keys[k].pos);
            max_p = fmax(max_p, d);
            if (d > 2 * POS_STEP_M || fabsf(g->pos_keys[k].time - w->pos_keys[k].time) > 1.5f * tstep)
                st = am_fail(err, AM_ERR_INVALID, "verify: joint '%s' position key %zu decodes %.5f m off",
                             g->name, k, d);
        }
    }
    if (stats) {
        stats->max_rot_err_deg = max_r * AM_RAD2DEG;
        stats->max_pos_err_m = max_p;
        stats->bytes = size;
    }
    am_anim_free(&got);
    return st;
}
