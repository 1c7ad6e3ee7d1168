/* Motions held by the bench: decoded with the project's .anim decoder, evaluated with its
 * playback evaluation (anim.h: curve time, keys, nlerp), resolved against the skeleton. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "anim/anim.h"
#include "bench/bench.h"
#include "bench/bench_internal.h"

struct am_bench_motion {
    am_string source;  /* the .anim as named (its path, kept whole) */
    am_anim anim;
    int *resolved;        /* joint_count: skeleton index or -1 */
    size_t unknown;
    double *key_times;    /* distinct, ascending */
    size_t key_time_count;
};

void am_bench_motion_free(am_bench_motion *m)
{
    if (!m)
        return;
    am_anim_free(&m->anim);
    am_string_free(&m->source);
    free(m->resolved);
    free(m->key_times);
    free(m);
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static am_status motion_init(am_bench *b, am_bench_motion *m, am_error *err)
{
    const am_anim *a = &m->anim;
    m->resolved = malloc((a->joint_count ? a->joint_count : 1) * sizeof *m->resolved);
    if (!m->resolved)
        return am_fail_nomem(err, "motion joints");
    am_anim_resolve(a, b->skel, m->resolved);
    size_t keys = 0;
    for (size_t i = 0; i < a->joint_count; i++) {
        if (am_skeleton_find(b->skel, a->joints[i].name) < 0)
            m->unknown++;
        keys += a->joints[i].rot_count + a->joints[i].pos_count;
    }
    m->key_times = malloc((keys ? keys : 1) * sizeof *m->key_times);
    if (!m->key_times)
        return am_fail_nomem(err, "motion key times");
    size_t n = 0;
    for (size_t i = 0; i < a->joint_count; i++) {
        for (size_t k = 0; k < a->joints[i].rot_count; k++)
            m->key_times[n++] = a->joints[i].rot_keys[k].time;
        for (size_t k = 0; k < a->joints[i].pos_count; k++)
            m->key_times[n++] = a->joints[i].pos_keys[k].time;
    }
    qsort(m->key_times, n, sizeof *m->key_times, cmp_double);
    size_t w = 0;
    for (size_t i = 0; i < n; i++)
        if (w == 0 || m->key_times[i] != m->key_times[w - 1])
            m->key_times[w++] = m->key_times[i];
    m->key_time_count = w;
    return AM_OK;
}

bool am_bench_motion_set_source(am_bench *b, size_t motion, const char *source)
{
    if (motion >= b->motion_count || !source)
        return true;
    return am_string_set(&b->motions[motion]->source, source);
}

am_status am_bench_add_anim_mem(am_bench *b, const uint8_t *data, size_t size, const char *source, am_error *err)
{
    am_bench_motion *m = calloc(1, sizeof *m);
    if (!m)
        return am_fail_nomem(err, "motion");
    if (!am_string_set(&m->source, source ? source : "anim")) {
        free(m);
        return am_fail_nomem(err, "motion");
    }
    am_status s = am_anim_decode(data, size, &m->anim, err);
    if (s) {
        am_error_where(err, "%s", am_str(&m->source));
        am_string_free(&m->source);
        free(m);
        return s;
    }
    s = motion_init(b, m, err);
    if (!s) {
        am_bench_motion **nm = realloc(b->motions, (b->motion_count + 1) * sizeof *nm);
        if (!nm)
            s = am_fail_nomem(err, "motions");
        else {
            b->motions = nm;
            b->motions[b->motion_count++] = m;
            return AM_OK;
        }
    }
    am_bench_motion_free(m);
    return s;
}

am_status am_bench_add_anim(am_bench *b, const char *path, am_error *err)
{
    uint8_t *data = NULL;
    size_t size = 0;
    am_status s = am_read_file_as(path, &am_anim_file_format, &data, &size, err);
    if (s)
        return s;
    s = am_bench_add_anim_mem(b, data, size, path, err);
    free(data);
    return s;
}

static am_status check_motion(const am_bench *b, int motion, am_error *err)
{
    if (motion < 0 || (size_t)motion >= b->motion_count)
        return am_fail(err, AM_ERR_USAGE, "bench: motion %d does not exist (%zu loaded)", motion, b->motion_count);
    return AM_OK;
}

am_status am_bench_motion_get_info(const am_bench *b, size_t motion, am_bench_motion_info *out, am_error *err)
{
    am_status s = check_motion(b, (int)motion, err);
    if (s)
        return s;
    const am_bench_motion *m = b->motions[motion];
    out->source = am_str(&m->source);
    out->duration = m->anim.duration;
    out->loop_in = m->anim.loop_in;
    out->loop_out = m->anim.loop_out;
    out->loop = m->anim.loop != 0;
    out->priority = m->anim.base_priority;
    out->joint_count = m->anim.joint_count;
    out->unknown_joints = m->unknown;
    out->key_time_count = m->key_time_count;
    out->key_times = m->key_times;
    return AM_OK;
}

am_status am_bench_motion_locals(const am_bench *b, int motion, double t, am_bench_local *out, size_t *n,
                                 am_error *err)
{
    *n = 0;
    am_status s = check_motion(b, motion, err);
    if (s)
        return s;
    if (!(t >= 0.0) || !isfinite(t))
        return am_fail(err, AM_ERR_USAGE, "bench: time %g is not a non-negative number", t);
    const am_bench_motion *m = b->motions[motion];
    const am_anim *a = &m->anim;
    am_anim_joint_pose *pose = malloc((a->joint_count ? a->joint_count : 1) * sizeof *pose);
    if (!pose)
        return am_fail_nomem(err, "motion pose");
    am_anim_eval(a, t, pose);
    size_t w = 0;
    for (size_t i = 0; i < a->joint_count; i++) {
        int j = m->resolved[i];
        if (j < 0 || (!pose[i].has_rot && !pose[i].has_pos))
            continue;
        out[w].joint = j;
        out[w].has_rot = pose[i].has_rot;
        out[w].has_pos = pose[i].has_pos;
        out[w].rot = pose[i].rot;
        out[w].pos = pose[i].pos;
        w++;
    }
    free(pose);
    *n = w;
    return AM_OK;
}
