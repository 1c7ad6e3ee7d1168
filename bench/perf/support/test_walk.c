/* The walk clip (test_walk.h). */
#include "bench/perf/support/test_walk.h"

#include <math.h>

#include "anim/anim.h"

static const char *const walk_joints[] = {"mHipLeft",      "mHipRight",  "mKneeLeft",   "mKneeRight", "mShoulderLeft",
                                          "mShoulderRight", "mElbowLeft", "mElbowRight", "mTorso"};
#define WALK_TRACKS (sizeof walk_joints / sizeof walk_joints[0])

static void walk_pose(void *user, size_t track, double t, am_quat *rot, am_vec3 *pos)
{
    (void)user;
    (void)pos;
    static const double amp[WALK_TRACKS] = {0.5, 0.5, 0.7, 0.7, 0.6, 0.6, 0.8, 0.8, 0.15};
    static const double phase[WALK_TRACKS] = {0, 0.5, 0.25, 0.75, 0.5, 0, 0.5, 0, 0};
    double a = amp[track] * sin(2 * AM_PI * (t + phase[track]));
    if (track >= 2 && track < 4)
        a = amp[track] * (0.5 + 0.5 * sin(2 * AM_PI * (t + phase[track]))); /* knees bend one way */
    *rot = am_quat_axis_angle(track == 8 ? am_v3(0, 0, 1) : am_v3(0, 1, 0), a);
}

am_status am_test_walk_anim(const am_skeleton *skel, am_buf *out, am_error *err)
{
    am_motion_track tracks[WALK_TRACKS];
    for (size_t i = 0; i < WALK_TRACKS; i++)
        tracks[i] = (am_motion_track){.joint = walk_joints[i], .priority = -1};
    am_motion m;
    am_motion_init(&m);
    m.tracks = tracks;
    m.track_count = WALK_TRACKS;
    m.pose_fn = walk_pose;
    m.duration_s = 1.0;
    m.loop = true;
    am_motion_sample_options o = {.intervals = AM_TEST_WALK_KEYS};
    am_anim anim;
    am_status st = am_motion_sample(&m, &o, skel, &anim, NULL, err);
    if (st)
        return st;
    st = am_anim_encode(&anim, out, err);
    am_anim_free(&anim);
    return st;
}
