/* The loop decision for one clip's motion (anim.h "Loops that close"): closed already,
 * closed by its last key made its first, a cycle without its closing key (one key appended),
 * or --loop's blend within the tolerance; beyond it --loop is refused, saying by how much. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "retarget/retarget_internal.h"

/* A motion file's cycle closes within what a hand-made loop does (Mixamo's end a few
 * hundredths of a degree off): within these, the last key is made the first, so the loop
 * guard (one quantisation step) sees the loop the source means. */
#define LOOP_CLOSE_DEG 1.0
#define LOOP_CLOSE_M 0.01

/* The tracks with one sample per time (count == ns), as loop tracks in seconds. */
static size_t loop_tracks(const am_retarget_anim *a, size_t nm, size_t ns, const double *secs, am_loop_track *lt,
                          size_t *of)
{
    size_t n = 0;
    for (size_t m = 0; m < nm; m++) {
        const am_motion_track *tr = &a->tracks[m];
        if (tr->count != ns)
            continue;
        of[n] = m;
        lt[n++] = (am_loop_track){ns, secs, &a->rot[m * ns], tr->has_pos ? &a->pos[m * ns] : NULL};
    }
    return n;
}

/* One more sample per track: the first pose at one key interval after the last. */
static am_status append_first(am_retarget_anim *a, size_t nm, size_t ncorr, size_t ns, double dur, double dt,
                              am_error *err)
{
    size_t n1 = ns + 1;
    double *times = malloc(n1 * sizeof *times);
    am_quat *rot = malloc((nm * n1 + ncorr + 1) * sizeof *rot);
    am_vec3 *pos = malloc((nm * n1 + 1) * sizeof *pos);
    if (!times || !rot || !pos) {
        free(times);
        free(rot);
        free(pos);
        return am_fail_nomem(err, "loop");
    }
    double total = dur + dt;
    for (size_t i = 0; i < ns; i++)
        times[i] = a->times[i] * dur / total;
    times[ns] = 1.0;
    for (size_t m = 0; m < nm; m++) {
        am_motion_track *tr = &a->tracks[m];
        memcpy(&rot[m * n1], &a->rot[m * ns], ns * sizeof *rot);
        memcpy(&pos[m * n1], &a->pos[m * ns], ns * sizeof *pos);
        rot[m * n1 + ns] = rot[m * n1];
        pos[m * n1 + ns] = pos[m * n1];
        tr->times = times;
        tr->rot = &rot[m * n1];
        tr->pos = tr->has_pos ? &pos[m * n1] : NULL;
        if (tr->count == ns)
            tr->count = n1;
    }
    free(a->times);
    free(a->rot);
    free(a->pos);
    a->times = times;
    a->rot = rot;
    a->pos = pos;
    a->samples = n1;
    return AM_OK;
}

am_status am_retarget_loop_close(const am_rt *c, am_retarget_anim *a, size_t *ns, double *dur, double key_dt,
                                 am_error *err)
{
    size_t n = *ns, nm = c->nm;
    if (c->o->loop == AM_LOOP_OFF || n < 3 || !(*dur > 0))
        return AM_OK;
    double *secs = malloc(n * sizeof *secs);
    am_loop_track *lt = malloc((nm ? nm : 1) * sizeof *lt);
    size_t *of = malloc((nm ? nm : 1) * sizeof *of);
    if (!secs || !lt || !of) {
        free(secs);
        free(lt);
        free(of);
        return am_fail_nomem(err, "loop");
    }
    for (size_t i = 0; i < n; i++)
        secs[i] = a->times[i] * *dur;
    if (key_dt > *dur / 3)
        key_dt = 0; /* fewer than 4 keys: no cycle to speak of (a 2-key turn is not one) */
    size_t nt = loop_tracks(a, nm, n, secs, lt, of);
    am_loop_seam s;
    am_loop_measure(lt, nt, key_dt, &s);
    const char *how = c->o->loop == AM_LOOP_ON ? "looping (the loop option)" : "looping";
    const char *rj = s.rot_track >= 0 ? a->tracks[of[s.rot_track]].joint : "-";
    const char *pj = s.pos_track >= 0 ? a->tracks[of[s.pos_track]].joint : "-";
    double tol = c->o->loop_tolerance_deg, tol_m = tol * 0.01;
    am_status st = AM_OK;
    if (c->follow && s.rot_deg <= LOOP_CLOSE_DEG && s.pos_m <= LOOP_CLOSE_M) {
        /* closed, or as good as: the last pose made the first */
        for (size_t k = 0; k < nt; k++) {
            lt[k].rot[n - 1] = lt[k].rot[0];
            if (lt[k].pos)
                lt[k].pos[n - 1] = lt[k].pos[0];
        }
        a->loop_closed_deg = s.rot_deg;
        a->loop_closed_m = s.pos_m;
        if ((s.rot_deg > 0 || s.pos_m > 0) &&
            !am_string_setf(&a->loop_why, "%s (the source's last pose is its first within %.3f deg and %.4f m: closed)",
                            how, s.rot_deg, s.pos_m))
            st = am_fail_nomem(err, "loop note");
    } else if (s.implicit) {
        /* a cycle written without its closing key: the first pose one key interval on */
        st = append_first(a, nm, c->o->correction_count, n, *dur, key_dt, err);
        if (!st) {
            if (!am_string_setf(&a->loop_why,
                                "%s (a cycle without its closing key: the seam, %.3f deg at %s and %.4f m, is no "
                                "larger than its own steps; closed by the first pose %.4f s after the last key, at "
                                "%.3f s)",
                                how, s.rot_deg, rj, s.pos_m, key_dt, *dur + key_dt))
                st = am_fail_nomem(err, "loop note");
            a->loop_closed_deg = s.rot_deg;
            a->loop_closed_m = s.pos_m;
            *ns = n + 1;
            *dur += key_dt;
        }
    } else if (c->o->loop == AM_LOOP_ON && s.rot_deg <= tol && s.pos_m <= tol_m) {
        am_loop_change ch;
        double window = am_loop_window(*dur);
        am_loop_blend(lt, nt, window, &ch);
        a->loop_closed_deg = ch.rot_deg;
        a->loop_closed_m = ch.pos_m;
        if (!am_string_setf(
            &a->loop_why,
            "looping (the loop option: the seam closed by blending the last %.3f s into the first pose; largest change "
            "%.3f deg at %s, %.4f m at %s; tolerance %g deg)",
            window, ch.rot_deg, ch.rot_track >= 0 ? a->tracks[of[ch.rot_track]].joint : "-", ch.pos_m,
            ch.pos_track >= 0 ? a->tracks[of[ch.pos_track]].joint : "-", tol))
            st = am_fail_nomem(err, "loop note");
    } else if (c->o->loop == AM_LOOP_ON) {
        if (s.rot_deg > tol)
            st = am_fail(
                err, AM_ERR_INVALID,
                "the loop option: joint '%s' ends %.3f deg away from where it starts (the key at %.3f s vs 0 s), "
                "%.3f deg over the loop_tolerance_deg option of %g deg",
                rj, s.rot_deg, s.rot_at_s, s.rot_deg - tol, tol);
        else
            st =
                am_fail(err, AM_ERR_INVALID,
                        "the loop option: joint '%s' ends %.4f m away from where it starts (the key at %.3f s vs 0 s), "
                        "%.4f m over the loop_tolerance_deg option's %.4f m (1 cm per degree)",
                        pj, s.pos_m, s.pos_at_s, s.pos_m - tol_m, tol_m);
    }
    free(secs);
    free(lt);
    free(of);
    return st;
}
