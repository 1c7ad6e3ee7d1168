/* `animesh bind` as a library call (bind_run.h). */
#include "report/bind_run.h"
#include "report/poses_by_plan.h"
#include "core/clock.h"
#include "core/parallel.h"
#include "core/notes.h"

#include <jansson.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "readers/scene_load.h"
#include "bench/render.h"
#include "preview/preview.h"
#include "report/report.h"

static void progress(const am_report_bind_job *job, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void progress(const am_report_bind_job *job, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    am_progress_v(job->progress, job->user, fmt, ap);
    va_end(ap);
}

/* One more warning, kept whole; out of memory is the run's error. */
static am_status run_warn(am_report_bind_result *r, am_error *err, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static am_status run_warn(am_report_bind_result *r, am_error *err, const char *fmt, ...)
{
    am_string line = {0};
    va_list ap;
    va_start(ap, fmt);
    bool ok = am_string_vsetf(&line, fmt, ap);
    va_end(ap);
    ok = ok && am_string_list_push(&r->warnings, &r->warning_count, &r->warning_cap, line.data);
    am_string_free(&line);
    return ok ? AM_OK : am_fail_nomem(err, "bind warnings");
}

void am_report_bind_run_free(am_report_bind_result *r)
{
    if (!r)
        return;
    am_bind_result_free(&r->bind);
    am_quality_free(&r->quality);
    am_string_free(&r->name);
    am_string_free(&r->conversion);
    am_string_free(&r->skeleton_note);
    am_string_list_free(r->files, r->file_count);
    am_string_list_free(r->warnings, r->warning_count);
    memset(r, 0, sizeof *r);
}

/* --- the phases ------------------------------------------------------------------------ */

static const char *const PHASE_NAMES[AM_BIND_PHASE_COUNT] = {"read",      "skeleton", "bind",  "rig_json",
                                                              "skin",      "measuring", "poses", "pictures"};

const char *am_report_bind_phase_name(am_report_bind_phase p) { return p < AM_BIND_PHASE_COUNT ? PHASE_NAMES[p] : "?"; }

/* The time since the last lap goes to phase p. */
typedef struct lap_clock {
    double wall, cpu;
} lap_clock;

static lap_clock lap_start(void) { return (lap_clock){am_clock_wall_s(), am_clock_cpu_s()}; }

static void lap(am_report_bind_result *out, am_report_bind_phase p, lap_clock *c)
{
    lap_clock now = lap_start();
    out->phase_wall_s[p] += now.wall - c->wall;
    out->phase_cpu_s[p] += now.cpu - c->cpu;
    *c = now;
}

static json_t *phases_json(const double *v)
{
    json_t *o = json_object();
    for (int p = 0; p < AM_BIND_PHASE_COUNT && o; p++)
        json_object_set_new(o, PHASE_NAMES[p], json_real(v[p]));
    return o;
}

/* --- the bind part of the report ------------------------------------------------------ */

static json_t *vec(am_vec3 v) { return json_pack("[f, f, f]", v.x, v.y, v.z); }

/* The bind part of the run's report, NAME.bind.json (a JSON object). phase_wall/phase_cpu
 * (AM_BIND_PHASE_COUNT each, NULL: left out) are the command's phases. */
static am_status bind_report_json(const am_bind_result *r, const am_bind_skeleton *skel, const char *source,
                                  const char *conversion, const char *skeleton_note, const double *phase_wall,
                                  const double *phase_cpu, am_buf *out, am_error *err)
{
    json_t *root = json_object(), *joints = json_array(), *islands = json_array(), *warnings = json_array();
    if (!root || !joints || !islands || !warnings) {
        json_decref(root);
        json_decref(joints);
        json_decref(islands);
        json_decref(warnings);
        return am_fail_nomem(err, "bind JSON");
    }
    json_object_set_new(root, "mesh", json_string(source ? source : ""));
    json_object_set_new(root, "conversion", json_string(conversion ? conversion : ""));
    json_object_set_new(root, "skeleton", json_string(skeleton_note ? skeleton_note : ""));
    json_object_set_new(root, "method", json_string(am_bind_method_name(r->method)));
    json_object_set_new(root, "height_m", json_real(r->height_m));
    for (size_t j = 0; j < skel->joint_count; j++)
        json_array_append_new(joints, json_pack("{s:s, s:o, s:o, s:b, s:f}", "name",
                                                am_str(&skel->joints[j].name), "head",
                                                vec(skel->joints[j].head), "tail", vec(skel->joints[j].tail), "held",
                                                r->joint_held[j], "weight_sum", r->joint_weight_sum[j]));
    json_object_set_new(root, "joints", joints);
    json_object_set_new(root, "topology",
                        json_pack("{s:I, s:I, s:I, s:I, s:I, s:I}", "vertices", (json_int_t)r->vertex_count, "welded",
                                  (json_int_t)r->welded_vertices, "degenerate_faces", (json_int_t)r->degenerate_faces,
                                  "boundary_edges", (json_int_t)r->boundary_edges, "non_manifold_edges",
                                  (json_int_t)r->non_manifold_edges, "loose_vertices", (json_int_t)r->loose_vertices));
    for (size_t k = 0; k < r->island_count; k++) {
        const am_bind_island *I = &r->islands[k];
        json_t *e = json_pack("{s:I, s:I, s:I, s:b, s:I, s:s, s:s, s:o, s:o, s:I}", "vertices",
                              (json_int_t)I->vertex_count, "triangles", (json_int_t)I->triangle_count, "first_vertex",
                              (json_int_t)I->first_vertex, "closed", I->closed, "bones_held",
                              (json_int_t)I->bones_held, "route", am_bind_route_name(I->route), "why",
                              am_str(&I->why), "min",
                              vec(I->min), "max", vec(I->max), "unweighted_first_try",
                              (json_int_t)I->unweighted_first_try);
        if (I->rigid_joint >= 0)
            json_object_set_new(e, "rigid_joint", json_string(am_str(&skel->joints[I->rigid_joint].name)));
        json_array_append_new(islands, e);
    }
    json_object_set_new(root, "islands", islands);
    json_object_set_new(root, "unweighted", json_integer((json_int_t)r->unweighted));
    for (size_t i = 0; i < r->warning_count; i++)
        json_array_append_new(warnings, json_string(am_str(&r->warnings[i])));
    json_object_set_new(root, "warnings", warnings);
    json_object_set_new(root, "solve", json_pack("{s:I, s:I, s:i}", "unknowns", (json_int_t)r->solve_vertices,
                                                 "factor_nonzeros", (json_int_t)r->factor_nonzeros, "factorisations",
                                                 r->factorisations));
    json_t *seconds = json_pack("{s:f, s:f, s:f, s:f, s:f, s:f}", "topology", r->seconds_topology, "visibility",
                                r->seconds_visibility, "factor", r->seconds_factor, "solve", r->seconds_solve,
                                "proxy", r->seconds_proxy, "total", r->seconds_total);
    if (seconds && phase_wall)
        json_object_set_new(seconds, "command", phases_json(phase_wall));
    if (seconds && phase_cpu)
        json_object_set_new(seconds, "command_cpu", phases_json(phase_cpu));
    json_object_set_new(root, "seconds", seconds);
    char *text = json_dumps(root, JSON_INDENT(1) | JSON_REAL_PRECISION(7));
    json_decref(root);
    if (!text)
        return am_fail_nomem(err, "bind JSON");
    am_status s = am_buf_append(out, text, strlen(text), err);
    if (!s)
        s = am_buf_append(out, "\n", 1, err);
    free(text);
    return s;
}

/* Its short text, the bind part of the report's summary. */
static am_status bind_report_text(const am_bind_result *r, const am_bind_skeleton *skel, am_buf *out, am_error *err)
{
    am_status s = am_buf_printf(out, err,
                                "bind (%s): %zu vertices (%zu welded), %zu islands, %zu unweighted; %.3f s "
                                "(topology %.3f, visibility %.3f, factor %.3f, solve %.3f, proxy %.3f)\n",
                                am_bind_method_name(r->method), r->vertex_count, r->welded_vertices, r->island_count,
                                r->unweighted, r->seconds_total, r->seconds_topology, r->seconds_visibility,
                                r->seconds_factor, r->seconds_solve, r->seconds_proxy);
    if (!s)
        s = am_buf_printf(out, err, "  topology: %zu degenerate faces, %zu boundary edges, %zu non-manifold edges\n",
                          r->degenerate_faces, r->boundary_edges, r->non_manifold_edges);
    for (size_t k = 0; k < r->island_count && !s && k < 64; k++) {
        const am_bind_island *I = &r->islands[k];
        s = am_buf_printf(out, err, "  island %zu: %zu welded vertices, %s, route %s: %s\n", k, I->vertex_count,
                          I->closed ? "closed" : "open", am_bind_route_name(I->route), am_str(&I->why));
    }
    if (!s && r->island_count > 64)
        s = am_buf_printf(out, err, "  ... %zu more islands (see the .bind.json)\n", r->island_count - 64);
    for (size_t j = 0; j < skel->joint_count && !s; j++)
        if (!r->joint_held[j])
            s = am_buf_printf(out, err, "  joint %s: outside every island, no weight\n", am_str(&skel->joints[j].name));
    for (size_t i = 0; i < r->warning_count && !s; i++)
        s = am_buf_printf(out, err, "  warning: %s\n", am_str(&r->warnings[i]));
    return s;
}

/* --- the run -------------------------------------------------------------------------------- */

static am_status load_skeleton(const am_report_bind_job *job, const am_skeleton *viewer, const am_bind_source *src,
                               double height, am_bind_skeleton *out, am_string *note, am_error *err)
{
    if (job->skeleton_from == AM_SKELETON_FIT) {
        am_bind_mesh m = am_bind_source_mesh(src);
        char summary[1024]; /* the fit writes its summary into a buffer of ours */
        summary[0] = '\0';
        am_status s = am_bind_fit(&m, job->fit, viewer, out, summary, sizeof summary, err);
        if (!s && !am_string_set(note, summary))
            s = am_fail_nomem(err, "skeleton note");
        return s;
    }
    if (job->skeleton_from == AM_SKELETON_RIG) {
        char unit[240];
        unit[0] = '\0';
        am_status s = am_bind_skeleton_load_for(job->skeleton_path, viewer, height, src, out, unit, sizeof unit, err);
        if (!s && !am_string_setf(note, "joints from %s, %s", job->skeleton_path, unit))
            s = am_fail_nomem(err, "skeleton note");
        return s;
    }
    am_scene like;
    am_status s = am_scene_load(job->skeleton_path, &like, err);
    if (s)
        return s;
    size_t skipped = 0;
    s = am_bind_skeleton_from_scene(&like, &job->frame, viewer, height, out, &skipped, err);
    if (!s && !am_string_setf(note, "joints of %s (%zu viewer joints; %zu skin joints the viewer does not know left out)",
                              job->skeleton_path, out->joint_count, skipped))
        s = am_fail_nomem(err, "skeleton note");
    am_scene_free(&like);
    return s;
}

/* The name of a file written into out_dir, at the end of the list. */
static am_status list_file(am_report_bind_result *out, const char *name, am_error *err)
{
    if (!am_string_list_push(&out->files, &out->file_count, &out->file_cap, name))
        return am_fail_nomem(err, "list of written files");
    return AM_OK;
}

static am_status add_file(am_outset *set, am_report_bind_result *out, const char *name, const void *data, size_t size,
                          am_error *err)
{
    am_status s = am_outset_add(set, name, data, size, err);
    return s ? s : list_file(out, name, err);
}

/* A place in the list of written files, kept for a file added later (its name given then):
 * the list keeps the order the files are announced in. */
static am_status reserve_file(am_report_bind_result *out, size_t *at, am_error *err)
{
    *at = out->file_count;
    return list_file(out, "", err);
}

static am_status name_file(am_report_bind_result *out, size_t at, const char *name, am_error *err)
{
    if (!am_string_set(&out->files[at], name))
        return am_fail_nomem(err, "list of written files");
    return AM_OK;
}

static am_status placement_sheet(const am_bench *b, const char *note, int threads, am_image *img, am_error *err)
{
    size_t nv = b->vertex_count;
    float *prim = malloc(3 * (nv ? nv : 1) * sizeof *prim);
    am_vec3 *joints = malloc(b->skel->joint_count * sizeof *joints);
    if (!prim || !joints) {
        free(prim);
        free(joints);
        return am_fail_nomem(err, "placement sheet");
    }
    am_status s = am_bench_pose_locals(b, NULL, 0, prim, joints, err);
    am_render_cell fr[2] = {{prim, joints, "front", AM_VIEW_FRONT, NULL, false, {0, 0, 0}, {0, 0, 0}},
                             {prim, joints, "side", AM_VIEW_SIDE, NULL, false, {0, 0, 0}, {0, 0, 0}}};
    am_render_options opt;
    am_render_options_init(&opt);
    opt.threads = threads;
    opt.frame_width = 520;
    opt.frame_height = 620;
    opt.label_joints = true;
    char title[200];
    snprintf(title, sizeof title, "placement: check every joint sits inside its limb (%.120s)", note);
    if (!s)
        s = am_render_sheet(b, fr, 2, 2, &opt, title, img, err);
    free(prim);
    free(joints);
    return s;
}

/* The rig's bones outside the mesh, blockers in the quality report (the rig is not where
 * the mesh is: wrong units, another model's skeleton). */
static am_status bones_outside(am_report_bind_result *out, const am_bind_skeleton *skel, am_error *err)
{
    const char **names = malloc((skel->joint_count ? skel->joint_count : 1) * sizeof *names);
    if (!names)
        return am_fail_nomem(err, "bind report");
    for (size_t j = 0; j < skel->joint_count; j++)
        names[j] = am_str(&skel->joints[j].name);
    am_status s = am_quality_bones_outside(&out->quality, names, out->bind.joint_held, skel->joint_count, err);
    free(names);
    return s;
}

/* Work that runs beside the command's own: the solver's libraries load while the mesh is
 * read, and the rig's JSON is written while the report measures (the output set itself is
 * only touched by the command's thread). */
static void preload_job(void *user) { am_bind_preload(user); }

typedef struct viewer_load {
    const char *path;
    am_skeleton skel;
    am_status status;
    am_error err;
} viewer_load;

static void viewer_load_run(void *user)
{
    viewer_load *v = user;
    am_error_clear(&v->err);
    v->status = am_skeleton_load(v->path, &v->skel, &v->err);
}


am_status am_report_bind_run(const am_report_bind_job *job, const am_skeleton *viewer, am_report_bind_result *out, am_error *err)
{
    memset(out, 0, sizeof *out);
    am_scene sc;
    am_bind_source src;
    am_bind_skeleton skel;
    am_rig rig;
    am_bench bench;
    am_outset *set = NULL;
    am_buf buf = {0}, text = {0};
    am_string name = {0}, llmesh = {0}; /* file names in the output set */
    memset(&src, 0, sizeof src);
    memset(&skel, 0, sizeof skel);
    memset(&rig, 0, sizeof rig);
    memset(&bench, 0, sizeof bench);
    bool have_bench = false;
    am_quality_pose *plan_poses = NULL; /* the standard poses by the bound creature's body plan */
    size_t plan_pose_count = 0;
    lap_clock clk = lap_start();
    am_task preload = {0}, rig_task = {0}, viewer_task = {0};
    /* A model read in a child process (FBX: the mesh, or a --like model) is read with no
     * thread of ours beside it: the fork must not come while another thread is loading a
     * library. Then the skeleton is read first and the bind loads its libraries itself. */
    bool beside_read = !am_scene_reads_in_child(job->mesh_path) &&
                       !(job->skeleton_from == AM_SKELETON_LIKE && am_scene_reads_in_child(job->skeleton_path));
    am_buf rig_json = {0};
    am_rig_json_job rj = {&rig, &rig_json, AM_OK, {0}};
    viewer_load *vl = NULL;
    if (!viewer) {
        if (!job->viewer_path)
            return am_fail(err, AM_ERR_USAGE, "bind: no viewer skeleton (neither loaded nor a path)");
        if (!(vl = calloc(1, sizeof *vl)))
            return am_fail_nomem(err, "viewer skeleton");
        vl->path = job->viewer_path;
        if (beside_read)
            am_task_start(&viewer_task, viewer_load_run, vl);
        else if (viewer_load_run(vl), vl->status) {
            am_status bad = vl->status;
            *err = vl->err;
            free(vl);
            return bad;
        }
    }
    if (beside_read)
        am_task_start(&preload, preload_job, (void *)&job->bind);
    progress(job, "reading %s", job->mesh_path);
    const am_scene_load_options weld = {.weld = true}; /* welded: the skin carries vertices, not corners */
    am_status s = am_scene_load_ex(job->mesh_path, &weld, &sc, err);
    if (!s) {
        s = am_bind_source_from_scene(&sc, &job->frame, &src, err);
        am_scene_free(&sc);
    }
    am_task_join(&viewer_task);
    if (vl && vl->status) { /* the skeleton's trouble first, as when it was loaded first */
        *err = vl->err;
        s = vl->status;
    } else if (vl)
        viewer = &vl->skel;
    if (s) {
        am_task_join(&preload);
        if (vl && !vl->status)
            am_skeleton_free(&vl->skel);
        free(vl);
        am_bind_source_free(&src);
        return s;
    }
    if (!am_string_copy(&out->name, &src.name) || !am_string_copy(&out->conversion, &src.conversion))
        s = am_fail_nomem(err, "bind result");
    if (!s && src.had_weights)
        s = run_warn(out, err, "%s carries weights of its own: they are replaced by the bind", job->mesh_path);
    if (s)
        goto done;
    double lo = INFINITY, hi = -INFINITY;
    for (size_t v = 0; v < src.vertex_count; v++) {
        lo = fmin(lo, src.positions[3 * v + 2]);
        hi = fmax(hi, src.positions[3 * v + 2]);
    }
    progress(job, "%zu vertices, %zu triangles (%s)", src.vertex_count, src.triangle_count, am_str(&src.conversion));
    lap(out, AM_BIND_PHASE_READ, &clk);
    if ((s = load_skeleton(job, viewer, &src, src.vertex_count ? hi - lo : 0, &skel, &out->skeleton_note, err)))
        goto done;
    progress(job, "skeleton: %zu joints (%s)", skel.joint_count, am_str(&out->skeleton_note));
    lap(out, AM_BIND_PHASE_SKELETON, &clk);
    am_bind_mesh mesh = am_bind_source_mesh(&src);
    am_task_join(&preload);
    progress(job, "binding (%s)", am_bind_method_name(job->bind.method));
    if ((s = am_bind(&mesh, &skel, &job->bind, &out->bind, err)))
        goto done;
    progress(job, "bound in %.3f s: %zu islands, %zu unweighted", out->bind.seconds_total, out->bind.island_count,
             out->bind.unweighted);
    if ((s = am_bind_to_rig(&src, &skel, &out->bind, &rig, err)))
        goto done;
    lap(out, AM_BIND_PHASE_BIND, &clk);
    /* every output into one set, renamed into place together at the end */
    if ((s = am_mkdir_p(job->out_dir, err)) || (s = am_outset_begin(&set, job->out_dir, NULL, 0, err)))
        goto done;
    am_task_start(&rig_task, am_rig_json_job_run, &rj); /* added to the set below, first in its list */
    size_t rig_json_at = 0, bind_json_at = 0;
    if ((s = reserve_file(out, &rig_json_at, err)))
        goto done;
    if (job->skin) {
        progress(job, "skinning");
        am_skin_options so;
        am_skin_options_init(&so);
        if (job->preview)
            so.page = am_preview_skin_page;
        am_skin_summary *sum = calloc(1, sizeof *sum);
        if (!sum) {
            s = am_fail_nomem(err, "skin summary");
            goto done;
        }
        s = am_skin_export_to_set(&rig, viewer, &so, set, sum, err);
        if (s == AM_ERR_INVALID && !am_string_empty(&sum->llmesh_path) && !sum->meshdata_written) {
            char why[sizeof err->msg];
            snprintf(why, sizeof why, "%s", err->msg);
            am_error_clear(err);
            s = run_warn(out, err, "no meshdata written: %s", why);
        }
        for (size_t i = 0; i < sum->warning_count && !s; i++)
            s = run_warn(out, err, "skin: %s", am_str(&sum->warnings[i]));
        const char *paths[4] = {am_str(&sum->llmesh_path), am_str(&sum->dae_path),
                                sum->meshdata_written ? am_str(&sum->meshdata_path) : "", am_str(&sum->preview_path)};
        for (int k = 0; k < 4 && !s; k++)
            if (paths[k][0])
                s = list_file(out, strrchr(paths[k], '/') ? strrchr(paths[k], '/') + 1 : paths[k], err);
        am_skin_summary_free(sum);
        free(sum);
        if (s)
            goto done;
        lap(out, AM_BIND_PHASE_SKIN, &clk);
        /* the bench reads the .llmesh as written (the set's temp file, before the rename) */
        if (!am_string_setf(&llmesh, "%s.llmesh", am_str(&out->name))) {
            s = am_fail_nomem(err, "file name");
            goto done;
        }
        const char *written = am_outset_temp_path(set, am_str(&llmesh));
        progress(job, "measuring the written %s", am_str(&llmesh));
        s = written ? am_bench_load(written, NULL, 0, viewer, NULL, &bench, err)
                    : am_fail(err, AM_ERR_IO, "the written %s cannot be found in the output set", am_str(&llmesh));
        if (!s && !am_string_copy(&bench.source, &llmesh)) { /* the name it is about to have */
            am_bench_free(&bench);
            s = am_fail_nomem(err, "bind report");
        }
    } else {
        progress(job, "measuring (skin built in memory)");
        s = am_report_bench_rig(&rig, viewer, am_str(&out->name), &bench, err);
    }
    if (s)
        goto done;
    have_bench = true;
    lap(out, AM_BIND_PHASE_MEASURE, &clk);
    am_task_join(&rig_task);
    if (rj.status) {
        *err = rj.err;
        s = rj.status;
        goto done;
    }
    if (!am_string_setf(&name, "%s.rig.json", am_str(&out->name)))
        s = am_fail_nomem(err, "file name");
    if (s || (s = am_outset_add(set, am_str(&name), rig_json.data, rig_json.size, err)) ||
        (s = name_file(out, rig_json_at, am_str(&name), err)))
        goto done;
    am_buf_free(&rig_json);
    lap(out, AM_BIND_PHASE_RIG_JSON, &clk);
    const am_quality_pose *poses = job->poses;
    size_t pose_count = job->pose_count;
    if (!poses) {
        am_body_plan plan = {0};
        if (!(s = am_quality_body_plan(&bench, &plan, err)))
            s = am_quality_plan_poses(&plan, &plan_poses, &plan_pose_count, err);
        am_body_plan_free(&plan);
        if (s)
            goto done;
        poses = plan_poses;
        pose_count = plan_pose_count;
    }
    if ((s = am_quality_run_threads(&bench, poses, pose_count, job->bind.threads, &out->quality, err)))
        goto done;
    out->quality.joints = job->joints;
    lap(out, AM_BIND_PHASE_POSES, &clk);
    /* NAME.bind.json is written last, with the phases' times; it keeps its place in the list */
    if ((s = reserve_file(out, &bind_json_at, err)) || (s = bones_outside(out, &skel, err)))
        goto done;
    if ((s = am_buf_printf(&text, err, "mesh %s (%s)\nskeleton: %s\n", job->mesh_path, am_str(&out->conversion),
                           am_str(&out->skeleton_note))) ||
        (s = bind_report_text(&out->bind, &skel, &text, err)))
        goto done;
    for (size_t i = 0; i < out->warning_count && !s; i++)
        s = am_buf_printf(&text, err, "  warning: %s\n", am_str(&out->warnings[i]));
    if (!s)
        s = am_buf_append(&text, "\0", 1, err);
    if (s)
        goto done;
    progress(job, "writing the report");
    size_t nw = 0;
    am_string *report_files = NULL;
    s = am_report_write_threads(&bench, &out->quality, poses, pose_count, job->bind.threads, set,
                                am_str(&out->name), (const char *)text.data, &report_files, &nw, err);
    for (size_t i = 0; i < nw && !s; i++)
        s = list_file(out, am_str(&report_files[i]), err);
    am_string_list_free(report_files, nw);
    if (s)
        goto done;
    if (job->skeleton_from == AM_SKELETON_FIT) {
        am_image img;
        am_buf png = {0};
        if (!am_string_setf(&name, "%s_placement.png", am_str(&out->name)))
            s = am_fail_nomem(err, "file name");
        else if (!(s = placement_sheet(&bench, am_str(&out->skeleton_note), job->bind.threads, &img, err))) {
            s = am_tex_png_encode_picture(&img, &png, err);
            am_image_free(&img);
        }
        if (!s)
            s = add_file(set, out, am_str(&name), png.data, png.size, err);
        am_buf_free(&png);
        if (s)
            goto done;
    }
    lap(out, AM_BIND_PHASE_PICTURES, &clk);
    if (!am_string_setf(&name, "%s.bind.json", am_str(&out->name)))
        s = am_fail_nomem(err, "file name");
    if (s ||
        (s = bind_report_json(&out->bind, &skel, job->mesh_path, am_str(&out->conversion),
                              am_str(&out->skeleton_note), out->phase_wall_s, out->phase_cpu_s, &buf, err)) ||
        (s = am_outset_add(set, am_str(&name), buf.data, buf.size, err)) ||
        (s = name_file(out, bind_json_at, am_str(&name), err)))
        goto done;
    s = am_outset_commit(set, err);
    for (size_t i = 0; !s && am_outset_warning(set, i); i++) /* a planted journal's or manifest's files, left */
        s = run_warn(out, err, "%s", am_outset_warning(set, i));
done:
    am_string_free(&name);
    am_string_free(&llmesh);
    if (vl) {
        am_skeleton_free(&vl->skel);
        free(vl);
    }
    am_task_join(&preload); /* no-ops unless a step failed while they ran */
    am_task_join(&rig_task);
    am_buf_free(&rig_json);
    am_quality_poses_free(plan_poses, plan_pose_count);
    am_outset_free(set); /* without a commit: every temp file removed, the folder as it was */
    if (have_bench)
        am_bench_free(&bench);
    am_buf_free(&buf);
    am_buf_free(&text);
    am_rig_free(&rig);
    am_bind_skeleton_free(&skel);
    am_bind_source_free(&src);
    if (s)
        am_report_bind_run_free(out);
    return s;
}
