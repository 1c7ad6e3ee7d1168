/* Motions from any file (motion_file.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "retarget/motion_file.h"
#include "readers/scene_load.h"

/* One frame at the 30 fps motion sources use (Mixamo, BVH exports): anything shorter holds
 * no motion the viewer could play. */
#define MIN_MOTION_S (1.0 / 30.0)

am_status am_motion_ref_split(const char *ref, char *path, size_t path_size, char *clip, size_t clip_size,
                              am_error *err)
{
    struct stat sb;
    clip[0] = '\0';
    const char *colon = strrchr(ref, ':');
    size_t n = strlen(ref);
    if (stat(ref, &sb) == 0 || !colon) {
        if (n >= path_size)
            return am_fail(err, AM_ERR_USAGE, "'%.60s...': the path is too long", ref);
        memcpy(path, ref, n + 1);
        return AM_OK;
    }
    size_t pn = (size_t)(colon - ref), cn = n - pn - 1;
    if (pn == 0 || cn == 0)
        return am_fail(err, AM_ERR_USAGE, "'%s': expected FILE or FILE:CLIP", ref);
    if (pn >= path_size || cn >= clip_size)
        return am_fail(err, AM_ERR_USAGE, "'%.60s...': the path or the clip name is too long", ref);
    memcpy(path, ref, pn);
    path[pn] = '\0';
    memcpy(clip, colon + 1, cn + 1);
    return AM_OK;
}

void am_motion_file_options_init(am_motion_file_options *o)
{
    memset(o, 0, sizeof *o);
    am_retarget_options_init(&o->retarget);
    o->retarget.follow_directions = true;
}

void am_motion_file_result_free(am_motion_file_result *r)
{
    if (!r)
        return;
    for (size_t i = 0; r->anims && i < r->anim_count; i++) {
        am_motion_file_anim *a = &r->anims[i];
        am_buf_free(&a->anim);
        am_string_free(&a->name);
        am_string_free(&a->clip);
        am_string_free(&a->worst_direction_joint);
        am_string_free(&a->loop_why);
    }
    free(r->anims);
    for (size_t i = 0; r->findings && i < r->finding_count; i++)
        am_string_free(&r->findings[i].text);
    free(r->findings);
    am_body_plan_free(&r->plan);
    am_string_free(&r->source);
    am_string_free(&r->holds);
    memset(r, 0, sizeof *r);
}

static void stem_of(const char *path, char *out, size_t size)
{
    const char *slash = strrchr(path, '/');
    char tmp[128];
    snprintf(tmp, sizeof tmp, "%s", slash ? slash + 1 : path);
    char *dot = strrchr(tmp, '.');
    if (dot && dot != tmp)
        *dot = '\0';
    am_retarget_sanitise(tmp, out, size);
}

static bool describe(const am_scene *s, am_string *holds)
{
    char out[256];
    size_t size = sizeof out;
    size_t joints = 0;
    for (size_t i = 0; i < s->node_count; i++)
        joints += s->nodes[i].is_joint;
    int n = snprintf(out, size, "%zu node%s (%zu joint%s), %zu clip%s, %zu mesh%s", s->node_count,
                     s->node_count == 1 ? "" : "s", joints, joints == 1 ? "" : "s", s->clip_count,
                     s->clip_count == 1 ? "" : "s", s->mesh_count, s->mesh_count == 1 ? "" : "es");
    /* a few joint names: what a user recognises the skeleton by */
    size_t shown = 0;
    for (size_t i = 0; i < s->node_count && n > 0 && (size_t)n + 40 < size && shown < 4; i++)
        if (s->nodes[i].is_joint && s->nodes[i].name[0])
            n += snprintf(out + n, size - (size_t)n, "%s'%.30s'", shown++ ? ", " : "; joints ", s->nodes[i].name);
    return am_string_set(holds, out);
}

static am_status convert(const am_scene *s, const char *path, const am_skeleton *skel, const am_motion_file_options *opts,
                         const char *clip, am_motion_file_result *out, am_error *err)
{
    am_retarget_options ro = opts->retarget;
    ro.follow_directions = true;
    const char *one[1] = {clip};
    if (clip && clip[0]) {
        ro.clips = one;
        ro.clip_count = 1;
    }
    if (s->clip_count == 0)
        return am_fail(err, AM_ERR_INVALID, "no motion in it: %s", am_str(&out->holds));
    if (opts->one_clip && s->clip_count > 1 && ro.clip_count == 0) {
        char list[300] = "";
        size_t n = 0;
        for (size_t i = 0; i < s->clip_count && n + 40 < sizeof list; i++)
            n += (size_t)snprintf(list + n, sizeof list - n, "%s'%.60s'", i ? ", " : "", s->clips[i].name);
        return am_fail(err, AM_ERR_USAGE, "%zu clips (%s): choose one with the clips option (NAME, or FILE:CLIP)",
                       s->clip_count, list);
    }
    size_t joints = 0;
    for (size_t i = 0; i < s->node_count; i++)
        joints += s->nodes[i].is_joint;
    if (joints < 2) /* one bone has no direction, and no body plan to map */
        return am_fail(err, AM_ERR_INVALID,
                       "its skeleton maps to nothing: a motion needs at least 2 joints to follow, it holds %s",
                       am_str(&out->holds));
    am_retarget_result r;
    am_status st = am_retarget(s, skel, &ro, &r, err);
    if (st) {
        if (err && strstr(err->msg, "no rig joint is mapped"))
            am_fail(err, AM_ERR_INVALID,
                    "its skeleton maps to nothing: no joint maps to a viewer joint (give a joint map: the map option), "
                    "it holds %s",
                    am_str(&out->holds));
        return st;
    }
    if (!am_body_plan_classify(s, &r.body, &r.axes, &r.suggestion, skel, &out->plan)) {
        am_retarget_result_free(&r);
        return am_fail_nomem(err, "body plan");
    }
    char why[1200];
    bool mismatch = opts->target_plan && am_body_plan_mismatch(&out->plan, opts->target_plan, why, sizeof why);
    if (mismatch && !opts->allow_body_mismatch) {
        am_retarget_result_free(&r);
        return am_fail(err, AM_ERR_INVALID,
                       "body plans differ (the allow_body_mismatch option retargets it anyway): %s", why);
    }
    out->findings = calloc(r.finding_count + 1, sizeof *out->findings);
    out->anims = calloc(r.anim_count ? r.anim_count : 1, sizeof *out->anims);
    if (!out->anims || !out->findings) {
        am_retarget_result_free(&r);
        return am_fail_nomem(err, "motions");
    }
    /* the findings move over (their texts are owned by out now) */
    for (size_t i = 0; i < r.finding_count; i++) {
        out->findings[i] = r.findings[i];
        r.findings[i].text = (am_string){0};
    }
    out->finding_count = r.finding_count;
    if (mismatch) {
        am_retarget_finding *f = &out->findings[out->finding_count++];
        f->level = AM_FINDING_WARNING;
        if (!am_string_setf(&f->text, "body plans differ (retargeted because of the allow_body_mismatch option): %s",
                            why)) {
            am_retarget_result_free(&r);
            return am_fail_nomem(err, "motion findings");
        }
    }
    char stem[64];
    stem_of(path, stem, sizeof stem);
    for (size_t i = 0; !st && i < r.anim_count; i++) {
        am_retarget_anim *ra = &r.anims[i];
        am_motion_file_anim *a = &out->anims[out->anim_count];
        double dur = s->clips[ra->clip_index].end_s - s->clips[ra->clip_index].start_s;
        if (dur < MIN_MOTION_S) {
            st = am_fail(err, AM_ERR_INVALID,
                         "clip '%s' lasts %.4f s, shorter than one frame (1/30 s): no motion to play (it holds %s)",
                         am_str(&ra->clip), dur, am_str(&out->holds));
            break;
        }
        ra->motion.hand_pose = opts->hand_pose;
        out->anim_count++;
        if (!am_string_set(&a->name, s->clip_count == 1 ? stem : am_str(&ra->name)) ||
            !am_string_copy(&a->clip, &ra->clip) ||
            !am_string_copy(&a->worst_direction_joint, &ra->worst_direction_joint) ||
            !am_string_copy(&a->loop_why, &ra->loop_why)) {
            st = am_fail_nomem(err, "motion names");
            break;
        }
        a->joints_mapped = r.suggestion.mapped;
        a->joints_unmapped = r.suggestion.count - r.suggestion.mapped;
        a->duration_s = ra->motion.duration_s;
        a->worst_direction_deg = ra->worst_direction_deg;
        a->loops = ra->motion.loop;
        am_motion_stats ms = {0};
        st = am_retarget_write_anim(&r, i, skel, NULL, &a->anim, &ms, err);
        a->keys_before = ms.keys_before;
        a->keys_after = ms.keys_after;
    }
    am_retarget_result_free(&r);
    return st;
}

am_status am_motion_file_body_check(const char *path, const am_skeleton *skel, const am_body_plan *target, bool allow,
                                    am_body_plan *out, char *warning, size_t warning_size, am_error *err)
{
    memset(out, 0, sizeof *out);
    if (warning_size)
        warning[0] = '\0';
    am_scene s;
    am_error e;
    am_error_clear(&e);
    if (am_scene_load(path, &s, &e))
        return AM_OK; /* the conversion itself says what is wrong with the file */
    am_body body;
    am_axes axes;
    am_map_suggestion sug;
    am_axes_options ao = {0};
    bool ok = true;
    if (!am_map_suggest_scene(&s, skel, &ao, NULL, &body, &axes, &sug, &e)) {
        ok = am_body_plan_classify(&s, &body, &axes, &sug, skel, out);
        am_map_suggestion_free(&sug);
        am_body_free(&body);
    } else if (!am_body_analyse(&s, &body, &e)) {
        ok = am_body_plan_classify(&s, &body, NULL, NULL, skel, out);
        am_body_free(&body);
    }
    am_scene_free(&s);
    if (!ok)
        return am_fail_nomem(err, "body plan");
    char why[1200];
    if (!target || !am_body_plan_mismatch(out, target, why, sizeof why))
        return AM_OK;
    if (!allow) {
        am_fail(err, AM_ERR_INVALID, "body plans differ (the allow_body_mismatch option retargets it anyway): %s", why);
        am_error_where(err, "%s", path);
        return AM_ERR_INVALID;
    }
    snprintf(warning, warning_size, "body plans differ (converted because of the allow_body_mismatch option): %s", why);
    return AM_OK;
}

am_status am_motion_file_convert(const char *ref, const am_skeleton *skel, const am_motion_file_options *opts,
                                 am_motion_file_result *out, am_error *err)
{
    memset(out, 0, sizeof *out);
    char path[4096], clip[1024]; /* PATH_MAX; a clip name is a node name of the file */
    am_status st = am_motion_ref_split(ref, path, sizeof path, clip, sizeof clip, err);
    if (st)
        return st;
    if (!am_string_set(&out->source, path))
        return am_fail_nomem(err, "motion source");
    am_scene s;
    am_scene_load_options lo = {.skeleton = skel,
                                .reader_process = opts ? opts->reader_process : AM_SCENE_READER_IN_CHILD};
    if ((st = am_scene_load_ex(path, &lo, &s, err))) {
        am_motion_file_result_free(out);
        return st;
    }
    if (!describe(&s, &out->holds)) {
        am_scene_free(&s);
        am_motion_file_result_free(out);
        return am_fail_nomem(err, "motion source");
    }
    const char *want = clip[0] ? clip : NULL;
    if (!want && opts->retarget.clip_count == 1)
        want = opts->retarget.clips[0];
    st = convert(&s, path, skel, opts, want, out, err);
    am_scene_free(&s);
    if (st) {
        am_motion_file_result_free(out); /* nothing to free on error: the error names the file */
        am_error_where(err, "%s", path);
    }
    return st;
}
