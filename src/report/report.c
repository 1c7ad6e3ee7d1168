/* Loading anything into a bench, the stage, and the report files (report.h). */
#include "report/report.h"
#include "core/parallel.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/io.h"
#include "import/import.h"
#include "mesh/mesh_asset.h"
#include "report/quality_limits.h"
#include "readers/scene_load.h"
#include "skin/skin_build.h"

/* --- inputs -------------------------------------------------------------------------- */

am_status am_report_bench_rig(const am_rig *rig, const am_skeleton *skel, const char *source, am_bench *out,
                              am_error *err)
{
    am_skin_options so;
    am_skin_options_init(&so);
    so.region_max_tris = AM_OPTION_ZERO; /* the report measures; the region limit is `animesh skin`'s check */
    so.high_lod_only = true; /* the bench measures the high LOD; nothing reads the others or the cost */
    if (rig->explicit_skin) /* the uploader's faces are already cut, as import builds them */
        so.face_vertex_limit = AM_MESH_MAX_FACE_VERTICES - 2;
    am_skin_result res;
    am_status s = am_skin_build(rig, skel, &so, &res, err);
    if (s)
        return s;
    am_buf buf = {0};
    /* the bench decodes it (the viewer's model); never written, so its blocks stored */
    s = am_mesh_asset_encode_level(&res.asset, 0, &buf, err);
    if (!s)
        s = am_bench_load_mem(buf.data, buf.size, source, skel, NULL, out, err);
    am_buf_free(&buf);
    am_skin_result_free(&res);
    return s;
}

/* Every part of an import plan as one rig in the bind frame (report.h): the parts' joints
 * united by name, their vertices and triangles concatenated, an explicit skin's positions
 * taken through its bind shape (the viewer draws it there at rest) and its joints at their
 * rest `world`. One run of triangles: the report measures, it writes no faces. */
static am_status rig_from_parts(const am_import_plan *plan, am_rig *out, am_error *err)
{
    memset(out, 0, sizeof *out);
    size_t nv = 0, nt = 0, ni = 0, nj = 0;
    for (size_t p = 0; p < plan->part_count; p++) {
        const am_rig *r = &plan->parts[p].rig;
        nv += r->vertex_count;
        nt += r->triangle_count;
        ni += r->weight_start ? r->weight_start[r->vertex_count] : 0;
        nj += r->joint_count;
    }
    out->name = strdup(!am_string_empty(&plan->name) ? am_str(&plan->name) : "model");
    out->joints = calloc(nj ? nj : 1, sizeof *out->joints);
    out->positions = calloc(3 * (nv ? nv : 1), sizeof *out->positions);
    out->normals = calloc(3 * (nv ? nv : 1), sizeof *out->normals);
    out->uvs = calloc(2 * (nv ? nv : 1), sizeof *out->uvs);
    out->triangles = calloc(3 * (nt ? nt : 1), sizeof *out->triangles);
    out->weight_start = calloc(nv + 1, sizeof *out->weight_start);
    out->influences = calloc(ni ? ni : 1, sizeof *out->influences);
    int *remap = calloc(nj ? nj : 1, sizeof *remap);
    am_status s = AM_OK;
    if (!out->name || !out->joints || !out->positions || !out->normals || !out->uvs || !out->triangles ||
        !out->weight_start || !out->influences || !remap) {
        s = am_fail_nomem(err, "report rig");
        goto done;
    }
    out->rgb[0] = out->rgb[1] = out->rgb[2] = 0.8;
    size_t v0 = 0, t0 = 0, i0 = 0;
    for (size_t p = 0; p < plan->part_count && !s; p++) {
        const am_rig *r = &plan->parts[p].rig;
        for (size_t j = 0; j < r->joint_count && !s; j++) {
            size_t k = 0;
            while (k < out->joint_count && strcmp(out->joints[k].name, r->joints[j].name))
                k++;
            if (k == out->joint_count) {
                if (!(out->joints[k].name = strdup(r->joints[j].name))) {
                    s = am_fail_nomem(err, "report rig");
                    break;
                }
                out->joints[k].world = r->joints[j].world;
                out->joint_count++;
            }
            remap[j] = (int)k;
        }
        for (size_t v = 0; v < r->vertex_count && !s; v++) {
            am_vec3 q = am_rig_bind_position(r, v);
            am_vec3 n = r->normals ? am_v3(r->normals[3 * v], r->normals[3 * v + 1], r->normals[3 * v + 2]) : am_v3(0, 0, 1);
            if (r->explicit_skin)
                n = am_v3_normalize(am_mat4_transform_dir(&r->bind_shape, n));
            float *P = &out->positions[3 * (v0 + v)], *N = &out->normals[3 * (v0 + v)];
            P[0] = (float)q.x, P[1] = (float)q.y, P[2] = (float)q.z;
            N[0] = (float)n.x, N[1] = (float)n.y, N[2] = (float)n.z;
            if (r->uvs) {
                out->uvs[2 * (v0 + v)] = r->uvs[2 * v];
                out->uvs[2 * (v0 + v) + 1] = r->uvs[2 * v + 1];
            }
            out->weight_start[v0 + v] = i0;
            for (size_t q2 = r->weight_start[v]; q2 < r->weight_start[v + 1]; q2++) {
                out->influences[i0].joint = remap[r->influences[q2].joint];
                out->influences[i0++].weight = r->influences[q2].weight;
            }
        }
        for (size_t t = 0; t < 3 * r->triangle_count; t++)
            out->triangles[3 * t0 + t] = (uint32_t)(r->triangles[t] + v0);
        v0 += r->vertex_count;
        t0 += r->triangle_count;
    }
    out->weight_start[v0] = i0;
    out->vertex_count = v0;
    out->triangle_count = t0;
done:
    free(remap);
    if (s)
        am_rig_free(out);
    return s;
}

static bool has_ext(const char *path, const char *ext)
{
    size_t n = strlen(path), e = strlen(ext);
    return n >= e && strcasecmp(path + n - e, ext) == 0;
}

static const char *base_name(const char *p)
{
    const char *s = strrchr(p, '/');
    return s ? s + 1 : p;
}

bool am_report_is_mesh_asset(const char *path)
{
    uint8_t head[4] = {0};
    size_t got = 0;
    am_error ignored;
    if (am_read_file_head(path, head, sizeof head, &got, NULL, &ignored))
        return has_ext(path, ".llmesh") || has_ext(path, ".slm");
    return has_ext(path, ".llmesh") || has_ext(path, ".slm") ||
           (got > 0 && head[0] == '{' && !has_ext(path, ".json") && !has_ext(path, ".gltf"));
}

/* The import plan of a model file (import's route, --up/--forward/--unit as given). */
static am_status plan_model(const char *path, const am_skeleton *skel, const am_bind_frame *frame,
                            am_import_plan *plan, am_string *what, am_error *err)
{
    am_scene sc;
    const am_scene_load_options lo = {.skeleton = skel, .weld = true}; /* welded before faces and LODs, as import does */
    am_status s = am_scene_load_ex(path, &lo, &sc, err);
    if (s)
        return s;
    am_import_options io;
    am_import_options_init(&io);
    io.retarget.axes.up = frame ? frame->up : 0;
    io.retarget.axes.forward = frame ? frame->forward : 0;
    io.retarget.axes.scale = frame ? frame->unit_m : 0;
    s = am_import_plan_make(&sc, skel, &io, plan, err);
    if (!s && what) {
        const am_scene_format_info *fm = am_scene_format_lookup(sc.format);
        if (!am_string_setf(what, "%s model, %s route as import takes it (%zu part%s, skin built in memory)",
                            fm ? fm->name : "model", am_import_route_name(plan->route), plan->part_count,
                            plan->part_count == 1 ? "" : "s")) {
            am_import_plan_free(plan);
            s = am_fail_nomem(err, "report input");
        }
    }
    am_scene_free(&sc);
    if (s && err && !err->where[0])
        am_error_where(err, "%s", path);
    return s;
}

void am_report_parts_free(am_report_part *parts, size_t count)
{
    for (size_t i = 0; parts && i < count; i++) {
        am_string_free(&parts[i].name);
        am_buf_free(&parts[i].asset);
    }
    free(parts);
}

am_status am_report_model_parts(const char *path, const am_skeleton *skel, const am_bind_frame *frame,
                                am_report_part **parts, size_t *count, am_string *what, am_error *err)
{
    *parts = NULL;
    *count = 0;
    am_import_plan plan;
    am_status s = plan_model(path, skel, frame, &plan, what, err);
    if (s)
        return s;
    am_report_part *out = calloc(plan.part_count ? plan.part_count : 1, sizeof *out);
    if (!out) {
        am_import_plan_free(&plan);
        return am_fail_nomem(err, "model parts");
    }
    for (size_t i = 0; i < plan.part_count && !s; i++) {
        const am_rig *rig = &plan.parts[i].rig;
        am_skin_options so;
        am_skin_options_init(&so);
        so.region_max_tris = AM_OPTION_ZERO; /* a look at it, not an upload: import checks the region limit */
        if (rig->explicit_skin)
            so.face_vertex_limit = AM_MESH_MAX_FACE_VERTICES - 2;
        am_skin_result res;
        if (!(s = am_skin_build(rig, skel, &so, &res, err))) {
            s = am_mesh_asset_encode(&res.asset, &out[i].asset, err);
            am_skin_result_free(&res);
        }
        if (!s && !am_string_copy(&out[i].name, &plan.parts[i].name))
            s = am_fail_nomem(err, "model parts");
    }
    size_t n = plan.part_count;
    am_import_plan_free(&plan);
    if (s) {
        am_report_parts_free(out, n);
        if (err && !err->where[0])
            am_error_where(err, "%s", path);
        return s;
    }
    *parts = out;
    *count = n;
    return AM_OK;
}

void am_report_input_free(am_report_input *info)
{
    if (info)
        am_string_free(&info->what);
}

static am_status load_input(const char *path, const am_skeleton *skel, const am_bind_frame *frame, am_bench *out,
                            am_report_input *info, am_error *err);

am_status am_report_load(const char *path, const am_skeleton *skel, const am_bind_frame *frame, am_bench *out,
                         am_report_input *info, am_error *err)
{
    am_status s = load_input(path, skel, frame, out, info, err);
    if (s)
        am_report_input_free(info);
    return s;
}

static am_status load_input(const char *path, const am_skeleton *skel, const am_bind_frame *frame, am_bench *out,
                            am_report_input *info, am_error *err)
{
    memset(info, 0, sizeof *info);
    uint8_t head[16] = {0};
    size_t got = 0;
    am_status opened = am_read_file_head(path, head, sizeof head, &got, NULL, err);
    if (opened)
        return opened;
    if (got == 0) {
        am_fail(err, AM_ERR_INVALID, "the file is empty (0 bytes): nothing to judge; check the copy or write it again");
        am_error_where(err, "%s", path);
        return AM_ERR_INVALID;
    }
    /* A mesh asset starts with its binary LLSD header, a map ('{'). */
    bool asset = has_ext(path, ".llmesh") || has_ext(path, ".slm") || (got > 0 && head[0] == '{' && !has_ext(path, ".json") &&
                                                                       !has_ext(path, ".gltf"));
    if (asset) {
        if (!am_string_set(&info->what, "mesh asset (read as written)"))
            return am_fail_nomem(err, "report input");
        return am_bench_load(path, NULL, 0, skel, NULL, out, err);
    }
    if (has_ext(path, ".json")) {
        am_rig rig;
        am_status s = am_rig_load(path, &rig, err);
        if (s)
            return s;
        if (!am_string_set(&info->what, "rig JSON (skin built in memory, read back by the bench)"))
            s = am_fail_nomem(err, "report input");
        else
            s = am_report_bench_rig(&rig, skel, base_name(path), out, err);
        am_rig_free(&rig);
        return s;
    }
    /* Any other file: import's own route (import.h), so that report judges what import
     * would write: the faithful skin, or the retargeted rig (the parts as one creature). */
    am_import_plan plan;
    am_status s = plan_model(path, skel, frame, &plan, &info->what, err);
    if (s)
        return s;
    info->route = plan.route;
    info->parts = plan.part_count;
    if (plan.part_count == 1) {
        s = am_report_bench_rig(&plan.parts[0].rig, skel, base_name(path), out, err);
    } else {
        am_rig rig;
        if (!(s = rig_from_parts(&plan, &rig, err))) {
            s = am_report_bench_rig(&rig, skel, base_name(path), out, err);
            am_rig_free(&rig);
        }
    }
    am_import_plan_free(&plan);
    if (s && err && !err->where[0])
        am_error_where(err, "%s", path);
    return s;
}

/* --- the files ---------------------------------------------------------------------------- */

/* The list of names written (report.h): grown by one each time (a report writes at most
 * AM_REPORT_MAX_FILES). */
typedef struct written_list {
    am_string **names; /* NULL: the caller does not collect them */
    size_t *count;
} written_list;

static am_status add(am_outset *set, const char *name, const void *data, size_t size, written_list *w,
                     am_error *err)
{
    am_status s = am_outset_add(set, name, data, size, err);
    if (s || !w->names)
        return s;
    size_t cap = *w->count; /* full: list_push grows it */
    if (!am_string_list_push(w->names, w->count, &cap, name))
        return am_fail_nomem(err, "report file names");
    return AM_OK;
}

/* The pictures: the pose sheet and up to three close-ups. The sheet is drawn first, its
 * cells on every core; then its encoding (the biggest PNG) runs beside the close-ups, each
 * drawn and encoded by a job of its own (core/parallel.h), so no core waits at the end
 * for one long encode. Each job keeps its own PNG and error; the files are added in their
 * order afterwards. */
typedef struct picture_job {
    int threads; /* 0: every core */
    const am_bench *b;
    const am_quality_report *r;
    const am_quality_pose *poses;
    size_t pose_count;
    am_image sheet; /* drawn before the jobs start */
    struct picture {
        am_buf png;
        bool found;       /* a close-up of that rank exists */
        am_string joint;
        am_status status;
        am_error err;
    } pic[4];
} picture_job;

static void picture_draw(void *ctx, size_t i, int worker)
{
    (void)worker;
    picture_job *J = ctx;
    struct picture *p = &J->pic[i];
    if (i == 0) { /* the sheet: drawn already, or its failure is recorded */
        if (!p->status)
            p->status = am_tex_png_encode_picture(&J->sheet, &p->png, &p->err);
        return;
    }
    am_error_clear(&p->err);
    am_image img;
    memset(&img, 0, sizeof img);
    p->status = am_quality_render_closeup_threads(J->b, J->r, J->poses, J->pose_count, i - 1, J->threads, &img,
                                                  &p->found, &p->joint, &p->err);
    if (!p->status && p->found)
        p->status = am_tex_png_encode_picture(&img, &p->png, &p->err);
    am_image_free(&img);
}

static am_status add_pictures(const am_bench *b, const am_quality_report *r, const am_quality_pose *poses,
                              size_t pose_count, int threads, am_outset *set, const char *stem, written_list *w,
                              am_error *err)
{
    picture_job *J = calloc(1, sizeof *J);
    if (!J)
        return am_fail_nomem(err, "report pictures");
    *J = (picture_job){.threads = threads, .b = b, .r = r, .poses = poses, .pose_count = pose_count};
    J->pic[0].found = true;
    J->pic[0].status = am_quality_render_sheet_threads(b, r, poses, pose_count, threads, &J->sheet, &J->pic[0].err);
    am_parallel_for(4, threads, picture_draw, J);
    am_image_free(&J->sheet);
    am_status s = AM_OK;
    am_string name = {0};
    for (size_t i = 0; i < 4 && !s; i++) {
        const struct picture *p = &J->pic[i];
        if (p->status) {
            *err = p->err;
            s = p->status;
            break;
        }
        if (!p->found)
            break; /* no close-up of this rank, nor of any after it */
        bool named = i == 0 ? am_string_setf(&name, "%s_poses.png", stem)
                            : am_string_setf(&name, "%s_closeup_%zu_%s.png", stem, i, am_str(&p->joint));
        s = named ? add(set, am_str(&name), p->png.data, p->png.size, w, err) : am_fail_nomem(err, "report pictures");
    }
    am_string_free(&name);
    for (size_t i = 0; i < 4; i++) {
        am_buf_free(&J->pic[i].png);
        am_string_free(&J->pic[i].joint);
    }
    free(J);
    return s;
}

am_status am_report_write(const am_bench *b, const am_quality_report *r, const am_quality_pose *poses,
                          size_t pose_count, am_outset *set, const char *stem, const char *preface,
                          am_string **written, size_t *written_count, am_error *err)
{
    return am_report_write_threads(b, r, poses, pose_count, 0, set, stem, preface, written, written_count, err);
}

am_status am_report_write_threads(const am_bench *b, const am_quality_report *r, const am_quality_pose *poses,
                                  size_t pose_count, int threads, am_outset *set, const char *stem,
                                  const char *preface, am_string **written, size_t *written_count, am_error *err)
{
    written_list w = {written && written_count ? written : NULL, written_count};
    am_buf json = {0}, text = {0};
    am_string name = {0};
    am_status s = am_quality_json(r, &json, err);
    if (!s && preface)
        s = am_buf_append(&text, preface, strlen(preface), err);
    if (!s)
        s = am_quality_text(r, &text, err);
    if (!s) /* the flags' thresholds, from the one table help and JSON use too */
        s = am_buf_append(&text, "thresholds:\n", 12, err);
    if (!s)
        s = am_quality_limits_text("  ", &text, err);
    if (!s)
        s = am_string_setf(&name, "%s.report.json", stem) ? add(set, am_str(&name), json.data, json.size, &w, err)
                                                          : am_fail_nomem(err, "report file names");
    if (!s)
        s = am_string_setf(&name, "%s.report.txt", stem) ? add(set, am_str(&name), text.data, text.size, &w, err)
                                                         : am_fail_nomem(err, "report file names");
    am_string_free(&name);
    am_buf_free(&json);
    am_buf_free(&text);
    if (!s)
        s = add_pictures(b, r, poses, pose_count, threads, set, stem, &w, err);
    return s;
}
