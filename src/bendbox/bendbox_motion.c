/* The fold: 0 -> 90 -> 0 degrees of mHipLeft about Y over a 6 s loop (bendbox.h). */
#include <math.h>

#include "bendbox/bendbox.h"

double am_bendbox_fold_deg(double t_s)
{
    double u = fmod(t_s, AM_BENDBOX_DURATION_S) / AM_BENDBOX_DURATION_S;
    if (u < 0)
        u += 1.0;
    double s = sin(AM_PI * u);
    return AM_BENDBOX_PEAK_DEG * s * s;
}

static void fold_pose(void *user, size_t track, double t, am_quat *rot, am_vec3 *pos)
{
    (void)user;
    *pos = am_v3(0, 0, 0);
    if (track == 0) { /* mHipRight: held at rest */
        *rot = am_quat_identity();
        return;
    }
    /* rotY(-a) swings +X toward +Z (a right-handed turn about +Y takes +X to -Z). */
    double a = am_bendbox_fold_deg(t * AM_BENDBOX_DURATION_S);
    *rot = am_quat_axis_angle(am_v3(0, 1, 0), -a * AM_DEG2RAD);
}

void am_bendbox_motion_init(am_bendbox_motion *keep, am_motion *m)
{
    static const char *names[2] = {"mHipRight", "mHipLeft"};
    for (int i = 0; i < 2; i++) {
        am_motion_track *tr = &keep->tracks[i];
        *tr = (am_motion_track){0};
        tr->joint = names[i];
        tr->priority = -1;
        tr->correction = am_quat_identity();
    }
    am_motion_init(m);
    m->tracks = keep->tracks;
    m->track_count = 2;
    m->pose_fn = fold_pose;
    m->user = NULL;
    m->duration_s = AM_BENDBOX_DURATION_S;
    m->base_priority = 4;
    m->loop = true;
    m->loop_in = 0.0;
    m->loop_out = 1.0;
    m->ease_in_s = 0.0;
    m->ease_out_s = 0.0;
    m->hand_pose = 0;
    m->emote = NULL;
}

am_motion_sample_options am_bendbox_sample_options(void)
{
    am_motion_sample_options o = {0};
    o.intervals = AM_BENDBOX_KEY_INTERVALS;
    o.reduce = false;
    return o;
}
