/* The bend box pipeline: build every part, write it, then (with bench) read the WRITTEN
 * .llmesh and .anim back through the bench and measure what docs/reference/bendbox-test.md asks for. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "bench/bench.h"
#include "bendbox/bendbox.h"
#include "preview/preview.h"
#include "core/outset.h"
#include "bench/render.h"
#include "skin/skin_build.h"

static const double fold_times[AM_BENDBOX_FOLD_SAMPLES] = {0.0, 1.5, 3.0, 6.0};

static void progress(const am_bendbox_options *opt, const char *step, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void progress(const am_bendbox_options *opt, const char *step, const char *fmt, ...)
{
    if (!opt->progress)
        return;
    char detail[AM_PROGRESS_LINE_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(detail, sizeof detail, fmt, ap);
    va_end(ap);
    am_progress(opt->progress, opt->user, "[%s] %s", step, detail);
}

/* Every file the run writes: one output set, renamed into place together at the end
 * (core/outset.h), so a failure leaves the folder as it was. */
static const char *const out_names[] = {"bendbox.rig.json",  "bendbox_atlas.png", "bendbox_atlas.j2c",
                                        "bendbox.llmesh",    "bendbox.dae",       "bendbox.meshdata.json",
                                        "bendbox_fold.anim", "fold_side.png",     "rest_front.png"};

/* Record an output of the set (its final path, the size of the bytes written). */
static am_status add_file(am_bendbox_report *rep, const am_outset *set, const char *name, const char *what,
                          am_error *err)
{
    if (rep->file_count >= AM_BENDBOX_MAX_FILES)
        return am_fail(err, AM_ERR_INVALID, "bend box: too many files to report");
    const char *tmp = am_outset_temp_path(set, name);
    struct stat st;
    if (!tmp || stat(tmp, &st) != 0)
        return am_fail(err, AM_ERR_IO, "bend box: %s was not written", name);
    am_bendbox_file *f = &rep->files[rep->file_count++];
    snprintf(f->path, sizeof f->path, "%s", am_outset_path(set, name));
    snprintf(f->what, sizeof f->what, "%s", what);
    f->bytes = (size_t)st.st_size;
    return AM_OK;
}

/* Add bytes to the set and record them. */
static am_status put(am_bendbox_report *rep, am_outset *set, const char *name, const am_buf *b, const char *what,
                     am_error *err)
{
    am_status s = am_outset_add(set, name, b->data, b->size, err);
    return s ? s : add_file(rep, set, name, what, err);
}

static am_status put_png(am_bendbox_report *rep, am_outset *set, const char *name, const am_tex_image *img,
                         const char *what, am_error *err)
{
    am_buf b = {0};
    am_status s = am_tex_png_encode(img, &b, err);
    if (!s)
        s = put(rep, set, name, &b, what, err);
    am_buf_free(&b);
    return s;
}

static am_status put_picture(am_bendbox_report *rep, am_outset *set, const char *name, const am_image *img,
                             const char *what, am_error *err)
{
    am_buf b = {0};
    am_status s = am_tex_png_encode_picture(img, &b, err);
    if (!s)
        s = put(rep, set, name, &b, what, err);
    am_buf_free(&b);
    return s;
}

/* Rig JSON, atlas PNG and its lossless .j2c (decoded back and compared). */
static am_status write_rig_and_atlas(const am_bendbox_options *opt, am_outset *set, const am_rig *rig,
                                     am_tex_image *atlas, am_bendbox_report *rep, am_error *err)
{
    am_buf b = {0};
    am_status s = am_rig_to_json(rig, &b, err);
    if (!s)
        s = put(rep, set, "bendbox.rig.json", &b, "rig (input of the skin builder)", err);
    am_buf_free(&b);
    if (s)
        return s;
    progress(opt, "rig", "%zu vertices, %zu triangles, mHipRight + mHipLeft at the hinge (0, 0, %.3f) bind frame",
             rig->vertex_count, rig->triangle_count, AM_BENDBOX_HINGE_Z);

    if ((s = am_bendbox_build_atlas(atlas, err)) ||
        (s = put_png(rep, set, "bendbox_atlas.png", atlas, "orientation atlas", err)))
        return s;
    am_j2c_options jo = {true};
    s = am_j2c_encode(atlas, &jo, &b, err);
    if (!s)
        s = put(rep, set, "bendbox_atlas.j2c", &b, "atlas, JPEG-2000 code stream (lossless)", err);
    am_buf_free(&b);
    if (s)
        return s;
    /* Prove the written stream decodes to the atlas (lossless: exactly). */
    uint8_t *data;
    size_t size;
    am_tex_image back;
    am_tex_diff diff = {0};
    s = am_read_file_as(am_outset_temp_path(set, "bendbox_atlas.j2c"), &am_j2c_file_format, &data, &size, err);
    if (!s) {
        s = am_j2c_decode(data, size, &back, err);
        free(data);
        if (!s) {
            s = am_tex_compare(atlas, &back, &diff, err);
            am_tex_image_free(&back);
        }
    }
    if (s)
        return s;
    rep->atlas_j2c_max_abs = diff.max_abs;
    if (diff.max_abs != 0)
        return am_fail(err, AM_ERR_INVALID, "%s decodes with a pixel error of %d (lossless expected 0)",
                       am_outset_path(set, "bendbox_atlas.j2c"), diff.max_abs);
    progress(opt, "atlas", "%ux%u PNG and lossless .j2c (%zu bytes), decoded back: pixel error 0", atlas->width,
             atlas->height, rep->files[rep->file_count - 1].bytes);
    return AM_OK;
}

static am_status write_skin(const am_bendbox_options *opt, am_outset *set, const am_rig *rig, am_bendbox_report *rep,
                            am_skin_summary *sum, am_error *err)
{
    am_skin_options so;
    am_skin_options_init(&so);
    so.unreduced_lods = true; /* every LOD keeps the 1 m squares the fold needs */
    am_status s = am_skin_export_to_set(rig, opt->skel, &so, set, sum, err);
    if (s)
        return s;
    if ((s = add_file(rep, set, "bendbox.llmesh", "mesh asset (skin, overrides)", err)) ||
        (s = add_file(rep, set, "bendbox.dae", "COLLADA for the viewer's uploader", err)) ||
        (s = add_file(rep, set, "bendbox.meshdata.json", "WorldBridge meshdata JSON", err)))
        return s;
    rep->vertices = sum->vertex_count;
    rep->triangles = sum->lod_triangles[AM_LOD_HIGH];
    rep->skin_joints = sum->joint_count;
    rep->overrides = sum->override_count;
    for (size_t i = 0; i < sum->joint_count; i++) {
        if (strcmp(am_str(&sum->joints[i].name), "mHipRight") == 0)
            rep->hip_override[0] = sum->joints[i].alt_pos;
        else if (strcmp(am_str(&sum->joints[i].name), "mHipLeft") == 0)
            rep->hip_override[1] = sum->joints[i].alt_pos;
    }
    progress(opt, "skin",
             "%zu joints (%zu overridden), hips at offset (%.3f, %.3f, %.3f) from mPelvis; %zu vertices, "
             "%zu triangles, streaming cost %.2f",
             sum->joint_count, sum->override_count, rep->hip_override[1].x, rep->hip_override[1].y,
             rep->hip_override[1].z, sum->vertex_count, rep->triangles, sum->streaming_cost);
    return AM_OK;
}

static am_status write_anim(const am_bendbox_options *opt, am_outset *set, am_bendbox_report *rep, am_error *err)
{
    am_bendbox_motion keep;
    am_motion m;
    am_bendbox_motion_init(&keep, &m);
    am_motion_sample_options so = am_bendbox_sample_options();
    am_motion_stats st;
    memset(&st, 0, sizeof st);
    am_buf bytes = {0};
    /* guarded, encoded, decoded back and compared; the set writes the bytes */
    am_status s = am_motion_write_anim(&m, &so, opt->skel, NULL, &bytes, &st, err);
    if (!s)
        s = put(rep, set, "bendbox_fold.anim", &bytes, "fold animation (6 s loop, priority 4)", err);
    am_buf_free(&bytes);
    if (s)
        return s;
    rep->anim_keys = st.keys_after;
    rep->anim_max_rot_err_deg = st.max_rot_err_deg;
    progress(opt, "anim",
             "6 s loop 0 -> 90 -> 0 deg, priority 4, %zu keys; loop guard passed; decoded back within %.4f deg",
             st.keys_after, st.max_rot_err_deg);
    return AM_OK;
}

/* bendbox.preview.html from the set's own (still temporary) mesh, fold and atlas. */
static am_status write_preview(const am_bendbox_options *opt, am_outset *set, am_bendbox_report *rep, am_error *err)
{
    static const char *const files[] = {"bendbox.llmesh", "bendbox_fold.anim", "bendbox_atlas.png"};
    uint8_t *data[3] = {NULL, NULL, NULL};
    size_t size[3] = {0, 0, 0};
    am_status s = AM_OK;
    for (int k = 0; k < 3 && !s; k++)
        s = am_read_file(am_outset_temp_path(set, files[k]), &data[k], &size[k], err);
    if (!s) {
        am_preview_part part = {"bendbox", data[0], size[0], data[2], size[2], NULL};
        am_preview_clip clip = {"bendbox_fold", data[1], size[1], NULL};
        am_preview_input in = {"bendbox", &part, 1, &clip, 1, opt->skel, 0};
        if (!(s = am_preview_add_to_set(set, "bendbox.preview.html", &in, err)))
            s = add_file(rep, set, "bendbox.preview.html", "browser preview (animesh preview)", err);
    }
    for (int k = 0; k < 3; k++)
        free(data[k]);
    return s;
}

static void check(am_bendbox_report *rep, const char *name, double value, double limit)
{
    am_bendbox_check *c = &rep->checks[rep->check_count++];
    snprintf(c->name, sizeof c->name, "%s", name);
    c->value = value;
    c->limit = limit;
    c->pass = value < limit;
    if (!c->pass)
        rep->all_pass = false;
}

static am_status run_bench(const am_bendbox_options *opt, am_outset *set, const am_tex_image *atlas,
                           am_bendbox_report *rep, am_error *err)
{
    am_bench b;
    /* the bytes as written: the set's temp files, before they are renamed */
    const char *anims[1] = {am_outset_temp_path(set, "bendbox_fold.anim")};
    const char *mesh_path = am_outset_path(set, "bendbox.llmesh"),
               *anim_path = am_outset_path(set, "bendbox_fold.anim");
    am_status s = am_bench_load(am_outset_temp_path(set, "bendbox.llmesh"), anims, 1, opt->skel, NULL, &b, err);
    if (s)
        return s;
    if (!am_string_set(&b.source, mesh_path) || /* what the user will find */
        !am_bench_motion_set_source(&b, 0, anim_path)) { /* never the temporary name (titles, reports) */
        am_bench_free(&b);
        return am_fail_nomem(err, "bend box bench");
    }
    am_bench_set sets[3];
    memset(sets, 0, sizeof sets);
    float *rest = NULL, *posed = NULL;
    am_vec3 *joints = NULL;
    am_image tex = {0}, pic = {0};
    am_bench_stats rest_err;
    const am_vec3 hinge = am_bendbox_hinge();
    if ((s = am_bench_rest_error(&b, &rest_err, err)))
        goto done;
    rep->rest_error_m = rest_err.max;
    if ((s = am_bench_select(&b, "tip", "x>=1", &sets[0], err)) ||
        (s = am_bench_select(&b, "tip_end", "x=2", &sets[1], err)) ||
        (s = am_bench_select(&b, "right_half", "x<=-1", &sets[2], err)))
        goto done;
    rest = malloc(3 * b.vertex_count * sizeof *rest);
    posed = malloc(3 * b.vertex_count * sizeof *posed);
    joints = malloc(opt->skel->joint_count * sizeof *joints);
    if (!rest || !posed || !joints) {
        s = am_fail_nomem(err, "bench poses");
        goto done;
    }
    if ((s = am_bench_pose_at(&b, -1, 0.0, rest, joints, err)))
        goto done;
    int hip_left = am_skeleton_find(opt->skel, "mHipLeft");
    rep->hinge_prim = hip_left >= 0 ? joints[hip_left] : am_v3(0, 0, 0);
    progress(opt, "bench", "read %s + %s back: rest error %.2e m; hinge (mHipLeft) drawn at prim + (%.4f, %.4f, %.4f)",
             mesh_path, anim_path, rep->rest_error_m, rep->hinge_prim.x, rep->hinge_prim.y, rep->hinge_prim.z);

    for (int k = 0; k < AM_BENDBOX_FOLD_SAMPLES; k++) {
        am_bendbox_fold_sample *f = &rep->fold[k];
        f->t_s = fold_times[k];
        f->expect_deg = am_bendbox_fold_deg(f->t_s);
        double a = f->expect_deg * AM_DEG2RAD;
        f->expect_hinge = am_v3(2 * cos(a), 0, 2 * sin(a));
        am_bench_pose_report pr;
        if ((s = am_bench_pose_report_at(&b, 0, f->t_s, sets, 3, &pr, err)))
            goto done;
        f->tip_rigidity_m = pr.sets[0].rigidity_m;
        f->tip_centre_bind = pr.sets[1].centre_bind;
        f->tip_centre_prim = pr.sets[1].centre_prim;
        f->tip_centre_hinge = am_v3_sub(f->tip_centre_bind, hinge);
        f->centre_error_m = am_v3_dist(f->tip_centre_hinge, f->expect_hinge);
        am_bench_pose_report_free(&pr);
        if ((s = am_bench_pose_at(&b, 0, f->t_s, posed, NULL, err)))
            goto done;
        double moved = 0;
        for (size_t i = 0; i < sets[2].count; i++) {
            size_t v = sets[2].index[i];
            am_vec3 p = am_v3(posed[3 * v], posed[3 * v + 1], posed[3 * v + 2]);
            am_vec3 r = am_v3(rest[3 * v], rest[3 * v + 1], rest[3 * v + 2]);
            double d = am_v3_dist(p, r);
            if (d > moved)
                moved = d;
        }
        f->right_half_moved_m = moved;
        progress(opt, "fold",
                 "t=%.1fs a=%.0f deg: tip end centre (%.4f, %.4f, %.4f) from the hinge (expect %.3f, 0, %.3f), "
                 "tip rigidity %.2e m",
                 f->t_s, f->expect_deg, f->tip_centre_hinge.x, f->tip_centre_hinge.y, f->tip_centre_hinge.z,
                 f->expect_hinge.x, f->expect_hinge.z, f->tip_rigidity_m);
    }

    rep->all_pass = true;
    const am_bendbox_fold_sample *peak = &rep->fold[2];
    check(rep, "rest error (m)", rep->rest_error_m, AM_BENDBOX_MAX_REST_ERROR_M);
    check(rep, "tip rigidity at 90 deg (m)", peak->tip_rigidity_m, AM_BENDBOX_MAX_TIP_RIGIDITY_M);
    check(rep, "tip end centre at 90 deg vs [0,0,2] (m)", peak->centre_error_m, AM_BENDBOX_MAX_CENTRE_ERROR_M);
    for (int k = 0; k < AM_BENDBOX_FOLD_SAMPLES; k++) {
        if (k == 2)
            continue;
        char name[48];
        snprintf(name, sizeof name, "tip end centre at t=%.1fs (m)", rep->fold[k].t_s);
        check(rep, name, rep->fold[k].centre_error_m, AM_BENDBOX_MAX_CENTRE_ERROR_M);
    }
    double moved = 0;
    for (int k = 0; k < AM_BENDBOX_FOLD_SAMPLES; k++)
        if (rep->fold[k].right_half_moved_m > moved)
            moved = rep->fold[k].right_half_moved_m;
    check(rep, "-X half (x<=-1) moved (m)", moved, AM_BENDBOX_MAX_REST_ERROR_M);

    /* Pictures: the fold strip seen from the side, the rest pose from the front. */
    if ((s = am_tex_image_to_rgba(atlas, &tex, err))) /* the render's RGBA atlas, for the textured PNGs */
        goto done;
    am_render_options ro;
    am_render_options_init(&ro);
    ro.view = AM_VIEW_SIDE;
    ro.texture = &tex;
    ro.hide_joints = false;
    double times[7];
    am_render_even_times(AM_BENDBOX_DURATION_S, 7, times);
    if ((s = am_render_strip(&b, 0, times, 7, &ro, &pic, err)) ||
        (s = put_picture(rep, set, "fold_side.png", &pic, "fold strip, side view, t = 0..6 s", err)))
        goto done;
    am_image_free(&pic);
    ro.view = AM_VIEW_FRONT;
    if ((s = am_render_frame(&b, rest, joints, &ro, "rest", &pic, err)) ||
        (s = put_picture(rep, set, "rest_front.png", &pic, "rest pose, front view", err)))
        goto done;
    progress(opt, "render", "fold_side.png (7 frames) and rest_front.png");
    rep->benched = true;
done:
    am_image_free(&tex);
    am_image_free(&pic);
    free(rest);
    free(posed);
    free(joints);
    for (int i = 0; i < 3; i++)
        am_bench_set_free(&sets[i]);
    am_bench_free(&b);
    return s;
}

am_status am_bendbox_run(const am_bendbox_options *opt, am_bendbox_report *rep, am_error *err)
{
    memset(rep, 0, sizeof *rep);
    rep->all_pass = true;
    if (!opt->out_dir || !opt->skel)
        return am_fail(err, AM_ERR_USAGE, "bend box: an output directory and the viewer skeleton are required");
    am_outset *set = NULL;
    char *created = NULL; /* the folder this run made: removed again if the run fails */
    am_status s = am_mkdir_p_new(opt->out_dir, &created, err);
    if (!s)
        s = am_outset_begin(&set, opt->out_dir, out_names, opt->bench ? 9 : 7, err);
    if (!s) /* the set owns its earlier runs' files: a run without --bench removes the PNGs */
        s = am_outset_own(set, "bendbox.outset", err);
    if (s) {
        am_outset_free(set);
        am_rmdir_new(opt->out_dir, created);
        free(created);
        return s;
    }
    rep->temps_swept = am_outset_swept(set);
    am_rig rig;
    am_tex_image atlas = {0};
    am_skin_summary *sum = calloc(1, sizeof *sum); /* large: keep it off the stack */
    if (!sum) {
        am_outset_free(set);
        return am_fail_nomem(err, "skin summary");
    }
    s = am_bendbox_build_rig(&rig, err);
    if (s) {
        free(sum);
        am_outset_free(set);
        return s;
    }
    if (!(s = write_rig_and_atlas(opt, set, &rig, &atlas, rep, err)) &&
        !(s = write_skin(opt, set, &rig, rep, sum, err)) && !(s = write_anim(opt, set, rep, err)) &&
        !(opt->preview && (s = write_preview(opt, set, rep, err))) && opt->bench)
        s = run_bench(opt, set, &atlas, rep, err);
    /* Checks may fail (the report says so): the files are still what was built. An error
     * leaves the folder as it was. */
    if (!s)
        s = am_outset_commit(set, err);
    if (s)
        rep->file_count = 0;
    for (size_t i = 0; !s && am_outset_removed_name(set, i) && i < 2; i++)
        snprintf(rep->removed[rep->removed_count++], sizeof rep->removed[0], "%s", am_outset_removed_name(set, i));
    for (size_t i = 0; am_outset_warning(set, i) && i < 4; i++)
        snprintf(rep->left[rep->left_count++], sizeof rep->left[0], "%s", am_outset_warning(set, i));
    am_outset_free(set);
    if (s)
        am_rmdir_new(opt->out_dir, created);
    free(created);
    am_tex_image_free(&atlas);
    am_rig_free(&rig);
    am_skin_summary_free(sum);
    free(sum);
    return s;
}
