/* Running an import plan (import.h): skin build, encode, writers, textures, motions, bench,
 * pose sheets and the OAR, every output into one output set committed at the end. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "anim/anim.h"
#include "core/parallel.h"
#include "core/text.h"
#include "bench/bench.h"
#include "import/import.h"
#include "import/import_outset.h"
#include "import/import_text.h"
#include "import/import_preview.h"
#include "bench/render.h"
#include "texture/texture.h"
#include "world/oar.h"
#include "world/oar_check.h"

#define POSE_COLUMNS 6    /* pose sheet: times per row */
#define POSE_PANEL_PX 400 /* pose sheet: a panel's longer side (the creature fills >= 70 % of it) */
#define BENCH_SAMPLES 13  /* measured times per motion, both ends included */

/* Everything a part produced, kept until the OAR and the commit. */
typedef struct part_out {
    am_buf mesh;          /* the .llmesh */
    int texture;          /* plan texture index, -1 */
    bool face_textures;   /* each face its own texture (the skin kept the part's faces) */
} part_out;

typedef struct tex_out {
    am_buf j2c;
    bool ok;
} tex_out;

static am_status add_file(am_import_outset *set, const char *dir, const char *name, const char *ext, am_buf *b,
                          am_error *err)
{
    char path[1024];
    am_string file = {0};
    if (!am_string_setf(&file, "%s%s", name, ext)) {
        am_buf_free(b);
        return am_fail_nomem(err, "output path");
    }
    if (!am_path_join(path, sizeof path, dir, am_str(&file))) {
        am_buf_free(b);
        am_fail(err, AM_ERR_IO, "output path too long: %s/%s", dir, am_str(&file));
        am_string_free(&file);
        return AM_ERR_IO;
    }
    am_string_free(&file);
    return am_import_outset_add(set, path, b, err);
}

static void progress(const am_import_options *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void progress(const am_import_options *o, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    am_progress_v(o->progress, o->progress_user, fmt, ap);
    va_end(ap);
}

static void run_finding(am_import_report *r, const char *code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void run_finding(am_import_report *r, const char *code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    am_import_findings_push(&r->findings, &r->finding_count, &r->finding_cap, code, fmt, ap);
    va_end(ap);
}

/* --- joints ------------------------------------------------------------------------------- */

static int cmp_moved(const void *a, const void *b)
{
    double x = (*(const am_import_joint *const *)a)->moved_m, y = (*(const am_import_joint *const *)b)->moved_m;
    return x < y ? 1 : x > y ? -1 : 0;
}

/* Per joint: where the viewer puts it, what its inverse bind says, and the findings. */
static am_status joint_figures(const am_import_part *part, const am_skin_result *res, const am_skeleton *skel,
                               am_import_part_report *pr, am_import_report *rep, am_error *err)
{
    const am_skin_summary *sum = &res->summary;
    pr->joint_count = sum->joint_count;
    pr->joints = calloc(sum->joint_count ? sum->joint_count : 1, sizeof *pr->joints);
    if (!pr->joints)
        return am_fail_nomem(err, "joint figures");
    bool weighted[AM_MAX_JOINTS_PER_MESH] = {false};
    for (size_t v = 0; v < res->vertex_count; v++)
        for (int k = 0; k < res->weight_count[v]; k++)
            weighted[res->weight_joint[4 * v + k]] = true;
    const am_import_joint *sorted[AM_MAX_JOINTS_PER_MESH];
    size_t nsorted = 0, worst_bind = 0;
    double worst_dev = 0;
    for (size_t j = 0; j < sum->joint_count; j++) {
        const am_skin_joint_info *ji = &sum->joints[j];
        const am_joint *sj = &skel->joints[ji->skel_joint];
        am_import_joint *o = &pr->joints[j];
        if (!am_string_copy(&o->name, &ji->name))
            return am_fail_nomem(err, "joint figures");
        o->weighted = weighted[j];
        pr->weighted_joints += o->weighted;
        o->found = ji->rig_joint < 0 || !part->joint_found || part->joint_found[ji->rig_joint];
        o->position = ji->alt_pos;
        o->default_pos = ji->default_pos;
        o->moved_m = am_v3_dist(ji->alt_pos, ji->default_pos);
        o->world_moved_m = am_v3_dist(ji->bind_world, sj->world_pos[AM_FRAME_FILE]);
        if (o->moved_m > AM_JOINT_POS_THRESHOLD) {
            pr->moved_joints++;
            sorted[nsorted++] = o;
        }
        /* the inverse bind's idea of the joint: inverse(IBM) = its bind-pose world matrix */
        am_mat4 bind;
        const am_mat4 *ibm = &res->asset.skin.inverse_bind[j];
        if (am_mat4_inverse(ibm, &bind)) {
            am_vec3 t, s;
            am_quat q;
            am_scene_decompose(&bind, &t, &q, &s);
            o->bind_offset_m = am_v3_dist(t, ji->bind_world);
            o->bind_scale = s;
            o->bind_scale_dev = fmax(fabs(s.x - sj->scale.x), fmax(fabs(s.y - sj->scale.y), fabs(s.z - sj->scale.z)));
            o->bind_rot_deg = am_quat_angle_between(q, sj->world_rot) * 180.0 / AM_PI;
        } else {
            o->bind_offset_m = INFINITY;
            o->bind_scale_dev = INFINITY;
        }
        double dev = o->bind_scale_dev + o->bind_rot_deg / 1000.0;
        if (o->bind_scale_dev > 1e-3 || o->bind_rot_deg > 0.1) {
            pr->scaled_binds++;
            if (dev > worst_dev) {
                worst_dev = dev;
                worst_bind = j;
            }
        }
    }
    if (pr->moved_joints) {
        qsort(sorted, nsorted, sizeof *sorted, cmp_moved);
        am_string list = {0};
        for (size_t i = 0; i < nsorted && i < 5; i++)
            if (!am_string_appendf(&list, "%s%s %.4f m", i ? ", " : "", am_str(&sorted[i]->name), sorted[i]->moved_m)) {
                am_string_free(&list);
                return am_fail_nomem(err, "joint figures");
            }
        run_finding(rep, "moved_joints",
                    "part '%s': %zu of %zu joints are moved from their default position (the viewer applies these "
                    "overrides); largest changes of the offset from the viewer parent: %s%s",
                    am_str(&pr->name), pr->moved_joints, pr->joint_count, am_str(&list), nsorted > 5 ? ", ..." : "");
        am_string_free(&list);
    }
    if (pr->scaled_binds) {
        const am_import_joint *w = &pr->joints[worst_bind];
        run_finding(rep, "scaled_inverse_binds",
                    "part '%s': %zu joints' inverse binds carry scale or rotation the viewer's skeleton does not have "
                    "(largest: %s, scale off by %.3f, turned %.1f deg): the viewer draws its joints without it, so "
                    "the rest pose deforms; the normalize_binds option writes pure-translation inverse binds",
                    am_str(&pr->name), pr->scaled_binds, am_str(&w->name), w->bind_scale_dev, w->bind_rot_deg);
    }
    for (size_t j = 0; j < sum->joint_count; j++) {
        const am_skin_joint_info *ji = &sum->joints[j];
        if (skel->joints[ji->skel_joint].parent < 0 && skel->joints[ji->skel_joint].kind == AM_JOINT_BONE &&
            ji->overridden) {
            pr->pelvis_override = true;
            pr->pelvis_position = ji->alt_pos;
            run_finding(rep, "pelvis_override",
                        "part '%s': mPelvis is moved to (%.4f, %.4f, %.4f), not (%.3f, %.3f, %.3f): the viewer hangs "
                        "the whole mesh from that point under the prim, and the position keys of any motion replace "
                        "it while they play",
                        am_str(&pr->name), ji->alt_pos.x, ji->alt_pos.y, ji->alt_pos.z, ji->default_pos.x, ji->default_pos.y,
                        ji->default_pos.z);
        }
    }
    return AM_OK;
}

/* --- bench ---------------------------------------------------------------------------------- */

/* The creature's size: the diagonal of the rest box of every part's vertices and joints
 * (bind frame), so a small part (an eye) is judged against the creature it belongs to. */
static double creature_size(const am_import_plan *plan)
{
    am_vec3 lo = am_v3(INFINITY, INFINITY, INFINITY), hi = am_v3(-INFINITY, -INFINITY, -INFINITY);
    for (size_t p = 0; p < plan->part_count; p++) {
        const am_rig *r = &plan->parts[p].rig;
        for (size_t i = 0; i < r->joint_count + r->vertex_count; i++) {
            am_vec3 v;
            if (i < r->joint_count) {
                v = r->joints[i].world;
            } else {
                const float *f = r->positions + 3 * (i - r->joint_count);
                v = am_v3(f[0], f[1], f[2]);
                if (r->explicit_skin) /* the mesh's own space: bind frame = positions * bind shape */
                    v = am_mat4_transform_point(&r->bind_shape, v);
            }
            if (!isfinite(v.x) || !isfinite(v.y) || !isfinite(v.z))
                continue;
            lo = am_v3(fmin(lo.x, v.x), fmin(lo.y, v.y), fmin(lo.z, v.z));
            hi = am_v3(fmax(hi.x, v.x), fmax(hi.y, v.y), fmax(hi.z, v.z));
        }
    }
    return lo.x <= hi.x ? am_v3_dist(lo, hi) : 0.0;
}

static am_status bench_motion(const am_bench *b, int motion, double duration, double creature_m,
                              am_import_anim_result *out, const am_bench_pose_report *rest, am_error *err)
{
    double times[BENCH_SAMPLES];
    am_render_even_times(duration, BENCH_SAMPLES, times);
    out->duration_s = duration;
    out->samples = BENCH_SAMPLES;
    out->min_prim = out->min_bind = am_v3(INFINITY, INFINITY, INFINITY);
    out->max_prim = out->max_bind = am_v3(-INFINITY, -INFINITY, -INFINITY);
    out->strain_p1 = INFINITY;
    for (size_t i = 0; i < BENCH_SAMPLES; i++) {
        am_bench_pose_report pr;
        am_status st = am_bench_pose_report_at(b, motion, times[i], NULL, 0, &pr, err);
        if (st)
            return st;
        out->min_prim = am_v3(fmin(out->min_prim.x, pr.min_prim.x), fmin(out->min_prim.y, pr.min_prim.y),
                              fmin(out->min_prim.z, pr.min_prim.z));
        out->max_prim = am_v3(fmax(out->max_prim.x, pr.max_prim.x), fmax(out->max_prim.y, pr.max_prim.y),
                              fmax(out->max_prim.z, pr.max_prim.z));
        out->min_bind = am_v3(fmin(out->min_bind.x, pr.min_bind.x), fmin(out->min_bind.y, pr.min_bind.y),
                              fmin(out->min_bind.z, pr.min_bind.z));
        out->max_bind = am_v3(fmax(out->max_bind.x, pr.max_bind.x), fmax(out->max_bind.y, pr.max_bind.y),
                              fmax(out->max_bind.z, pr.max_bind.z));
        out->max_displacement_m = fmax(out->max_displacement_m, pr.displacement.max);
        out->strain_p1 = fmin(out->strain_p1, pr.strain.p1);
        out->strain_p99 = fmax(out->strain_p99, pr.strain.p99);
        out->strain_share = fmax(out->strain_share, pr.strain.share_outside);
        if (pr.strain.tear_m > out->tear_m) {
            out->tear_m = pr.strain.tear_m;
            out->tear_ratio = pr.strain.tear_ratio;
        }
        out->spike_m = fmax(out->spike_m, pr.strain.spike_m);
        am_bench_pose_report_free(&pr);
    }
    /* Exploded: a vertex leaves its neighbours (an edge tears) by a visible share of the
     * creature, not a part travelling with its joint (an eye riding the head moves 28 cm
     * and keeps every edge). The part's own box counts too, for a creature the plan cannot
     * size. Strain beyond its flag (docs/reference/quality-figures.md) is a separate,
     * weaker finding (a hard seam stretching), not an explosion. */
    out->creature_m = fmax(creature_m, am_v3_dist(rest->min_prim, rest->max_prim));
    am_bench_strain worst = {.tear_m = out->tear_m, .spike_m = out->spike_m};
    out->exploded = am_bench_tears(&worst, out->creature_m);
    out->strained = out->strain_share > 0.002;
    return AM_OK;
}

/* Rows = motions (side, then front), columns = times; a rest row when no motion is given.
 * Every bench (one part, or all the parts of the creature together, each in its palette
 * colour) is drawn at one scale per row, each panel centred on the meshes as posed there
 * (travel shows against the prim's cross), in panels shaped like the row's largest pose
 * (am_render_fit_extent), so the creature fills each panel's longer side. Joints: `joints`
 * for one part (AUTO: dots up to 25 weighted joints), none for the parts together. */
static am_status pose_sheet(const am_bench *const *benches, const size_t *colours, size_t nb, const am_import_plan *plan,
                            am_render_joints joints, const char *title, am_buf *png, am_error *err)
{
    size_t rows = plan->motion_count ? plan->motion_count : 1;
    if (rows > 16)
        rows = 16;
    /* no motion: the rest once per view (every column would be the same picture), in a
     * frame wide enough for the strip's title to stay whole */
    size_t columns = plan->motion_count ? POSE_COLUMNS : 1;
    am_render_part *parts = malloc((nb ? nb : 1) * sizeof *parts);
    if (!parts)
        return am_fail_nomem(err, "pose sheet");
    double times[16][POSE_COLUMNS];
    am_status st = AM_OK;
    for (size_t m = 0; m < rows; m++)
        am_render_even_times(plan->motion_count ? plan->motions[m].duration_s : 0, columns, times[m]);
    am_image strips[2 * 16];
    size_t ns = 0;
    int width = 0, height = 0;
    const int label_h = 22;
    for (size_t m = 0; m < rows && !st; m++)
        for (int v = 0; v < 2 && !st; v++) {
            am_render_options o;
            am_render_options_init(&o);
            o.view = v == 0 ? AM_VIEW_SIDE : AM_VIEW_FRONT;
            for (size_t p = 0; p < nb; p++) {
                parts[p] = (am_render_part){benches[p], plan->motion_count ? (int)m : -1, {0, 0, 0}};
                am_render_palette(colours[p], parts[p].base_rgb);
            }
            /* each panel framed on the creature as it is posed there, at one scale for the
             * row, in panels shaped like its largest pose seen from this side: it fills the
             * panel's longer side (a 5.2 m raptor seen side on gets a wide panel, not 30 %
             * of a tall one; an eye riding the head stays an eye, not a dot) */
            double du, dv;
            if ((st = am_render_frame_extent(parts, nb, times[m], columns, o.view, &du, &dv, err)))
                break;
            am_render_fit_extent(du, dv, POSE_PANEL_PX, plan->motion_count ? 120 : 200, &o.frame_width,
                                 &o.frame_height);
            o.centre_each = true;
            /* the parts together show how they fit; their joints (a Bento avatar: 94, the
             * face's over the eyes) are in each part's own sheet */
            am_render_set_joints(&o, nb == 1 ? joints : AM_RENDER_JOINTS_NONE, benches[0]);
            st = am_render_strip_parts(parts, nb, times[m], columns, &o, title, &strips[ns], err);
            if (!st) {
                width = (int)strips[ns].width > width ? (int)strips[ns].width : width;
                height += (int)strips[ns].height + label_h;
                ns++;
            }
        }
    am_image sheet = {0};
    if (!st)
        st = am_image_alloc(&sheet, width, height, err);
    if (!st) {
        memset(sheet.pixels, 255, (size_t)width * (size_t)height * 4);
        int y = 0;
        static const uint8_t ink[3] = {28, 32, 40};
        for (size_t i = 0; i < ns; i++) {
            char label[128];
            size_t m = i / 2;
            snprintf(label, sizeof label, "%s - %s", plan->motion_count ? am_str(&plan->motions[m].name) : "rest",
                     i % 2 == 0 ? "side" : "front");
            am_draw_text(&sheet, 8, y + 4, label, 2, ink);
            y += label_h;
            for (int r = 0; r < (int)strips[i].height; r++)
                memcpy(&sheet.pixels[((size_t)(y + r) * (size_t)width) * 4], &strips[i].pixels[(size_t)r * strips[i].width * 4],
                       (size_t)strips[i].width * 4);
            y += (int)strips[i].height;
        }
        st = am_tex_png_encode_picture(&sheet, png, err);
    }
    am_image_free(&sheet);
    for (size_t i = 0; i < ns; i++)
        am_image_free(&strips[i]);
    free(parts);
    return st;
}

static am_status bench_part(const am_buf *mesh, const char *name, size_t colour, const am_import_plan *plan,
                            const am_skeleton *skel, bool full, am_render_joints joints, am_import_part_report *pr,
                            am_buf *sheet, am_error *err)
{
    am_bench b;
    am_status st = am_bench_load_mem(mesh->data, mesh->size, name, skel, NULL, &b, err);
    if (st)
        return st;
    am_bench_stats rest;
    if ((st = am_bench_rest_error(&b, &rest, err)))
        goto done;
    pr->rest_error_m = rest.max;
    if (!full)
        goto done;
    for (size_t m = 0; m < plan->motion_count && !st; m++)
        st = am_bench_add_anim_mem(&b, plan->motions[m].anim, plan->motions[m].anim_size, am_str(&plan->motions[m].name), err);
    if (st)
        goto done;
    am_bench_pose_report rest_pose;
    if ((st = am_bench_pose_report_at(&b, -1, 0, NULL, 0, &rest_pose, err)))
        goto done;
    pr->anims = calloc(plan->motion_count ? plan->motion_count : 1, sizeof *pr->anims);
    if (!pr->anims) {
        st = am_fail_nomem(err, "bench");
    } else {
        pr->anim_count = plan->motion_count;
        double creature_m = creature_size(plan);
        for (size_t m = 0; m < plan->motion_count && !st; m++) {
            am_bench_motion_info info;
            if (!am_string_copy(&pr->anims[m].name, &plan->motions[m].name))
                st = am_fail_nomem(err, "bench");
            else if (!(st = am_bench_motion_get_info(&b, m, &info, err)))
                st = bench_motion(&b, (int)m, info.duration, creature_m, &pr->anims[m], &rest_pose, err);
        }
    }
    am_bench_pose_report_free(&rest_pose);
    const am_bench *one = &b;
    if (!st)
        st = pose_sheet(&one, &colour, 1, plan, joints, NULL, sheet, err);
done:
    am_bench_free(&b);
    return st;
}

/* A creature of several parts (prims of one linkset, all on one skeleton) is one thing in
 * the viewer: NAME_poses.png draws every written part together, each in its colour of the
 * palette (as in its own sheet), from the staged .llmesh bytes and every motion. */
static am_status combined_sheet(const am_import_plan *plan, const am_skeleton *skel, const part_out *po,
                                const char *out_dir, am_import_outset *set, am_import_report *rep, am_error *err)
{
    size_t n = plan->part_count;
    am_bench *benches = calloc(n, sizeof *benches);
    const am_bench **ptrs = calloc(n, sizeof *ptrs);
    size_t *colours = calloc(n, sizeof *colours);
    size_t loaded = 0;
    am_buf png = {0};
    am_status st = AM_OK;
    if (!benches || !ptrs || !colours) {
        st = am_fail_nomem(err, "combined pose sheet");
        goto done;
    }
    for (size_t i = 0; i < n && !st; i++) {
        if ((st = am_bench_load_mem(po[i].mesh.data, po[i].mesh.size, am_str(&plan->parts[i].name), skel, NULL, &benches[i],
                                    err)))
            break;
        loaded++;
        for (size_t m = 0; m < plan->motion_count && !st; m++)
            st = am_bench_add_anim_mem(&benches[i], plan->motions[m].anim, plan->motions[m].anim_size,
                                       am_str(&plan->motions[m].name), err);
        ptrs[i] = &benches[i];
        colours[i] = i;
    }
    char title[200];
    snprintf(title, sizeof title, "%.160s (%zu parts)", am_str(&plan->name), n); /* drawn on the sheet */
    am_string name = {0};
    if (!st && !am_string_setf(&name, "%s_poses", am_str(&plan->name)))
        st = am_fail_nomem(err, "combined pose sheet");
    if (!st && !(st = pose_sheet(ptrs, colours, n, plan, AM_RENDER_JOINTS_NONE, title, &png, err))) {
        if (!am_string_setf(&rep->pose_sheet, "%s/%s.png", out_dir, am_str(&name)))
            st = am_fail_nomem(err, "combined pose sheet");
        else
            st = add_file(set, out_dir, am_str(&name), ".png", &png, err);
    }
    am_string_free(&name);
done:
    for (size_t i = 0; i < loaded; i++)
        am_bench_free(&benches[i]);
    am_buf_free(&png);
    free(benches);
    free(ptrs);
    free(colours);
    return st;
}

/* --- one part -------------------------------------------------------------------------------- */

/* The rig with pure-translation inverse binds: each the inverse of the viewer's rest matrix
 * at the joint's position (with the overrides), so W_j * IBM_j = I at rest and the mesh is
 * drawn exactly at its bind positions. Joints are copied shallowly (names borrowed). */
static am_status normalized_rig(const am_rig *in, const am_skin_result *res, const am_skeleton *skel, am_rig *out,
                                am_error *err)
{
    *out = *in;
    out->joints = malloc(in->joint_count * sizeof *out->joints);
    if (!out->joints)
        return am_fail_nomem(err, "normalize binds");
    memcpy(out->joints, in->joints, in->joint_count * sizeof *out->joints);
    for (size_t j = 0; j < in->joint_count; j++) {
        const am_skin_joint_info *ji = &res->summary.joints[j];
        const am_joint *sj = &skel->joints[ji->skel_joint];
        am_mat4 world = am_mat4_from_trs(ji->bind_world, sj->world_rot, sj->scale);
        if (!am_mat4_inverse(&world, &out->joints[j].inverse_bind))
            return am_fail(err, AM_ERR_INVALID, "joint '%s': singular rest matrix", am_str(&ji->name));
        out->joints[j].world = ji->bind_world;
    }
    return AM_OK;
}

/* The rig JSON: the one written beside the build (joined), or `rig`'s written now. */
static am_status rig_json_done(am_rig_json_job *w, am_task *t, bool beside, const am_rig *rig, am_error *err)
{
    if (!beside)
        return am_rig_to_json(rig, w->out, err);
    am_task_join(t);
    if (w->status && err)
        *err = w->err;
    return w->status;
}

/* The .dae, written during the encode (am_skin_build_encoded_beside) from the build. */
typedef struct dae_writer {
    am_buf *out;
    am_status st;
    am_error err;
} dae_writer;

static void dae_beside(void *user, const am_skin_result *res)
{
    dae_writer *w = user;
    am_buf_free(w->out); /* a rebuilt result's .dae replaces the first one's */
    am_error_clear(&w->err);
    w->st = am_skin_write_collada(res, w->out, &w->err);
}

static am_status dae_done(const dae_writer *w, am_error *err)
{
    if (w->st && err)
        *err = w->err;
    return w->st;
}

/* A part's outputs after the encode: the rig JSON (unless written beside the build), the
 * meshdata (one face only) and the bench on the encoded bytes, one job each
 * (core/parallel.h), the bench (the longest with --bench) first. */
enum { PART_JOB_BENCH, PART_JOB_RIG, PART_JOB_MESHDATA, PART_JOB_COUNT };

typedef struct part_jobs {
    const am_skin_result *res;
    const am_rig *rig; /* NULL: its JSON is written beside the build (am_rig_json_job) */
    const am_buf *mesh;
    const char *name;
    size_t colour;
    const am_import_plan *plan;
    const am_skeleton *skel;
    bool full_bench;
    am_render_joints joints;
    am_import_part_report *pr;
    am_buf *rig_json, *md, *sheet;
    am_status st[PART_JOB_COUNT];
    am_error err[PART_JOB_COUNT];
} part_jobs;

static void part_job(void *user, size_t k, int worker)
{
    (void)worker;
    part_jobs *j = user;
    am_error *err = &j->err[k];
    am_error_clear(err);
    switch (k) {
    case PART_JOB_RIG: j->st[k] = j->rig ? am_rig_to_json(j->rig, j->rig_json, err) : AM_OK; break;
    case PART_JOB_MESHDATA: j->st[k] = j->res->face_count == 1 ? am_skin_write_meshdata_json(j->res, j->md, err) : AM_OK; break;
    default:
        j->st[k] =
            bench_part(j->mesh, j->name, j->colour, j->plan, j->skel, j->full_bench, j->joints, j->pr, j->sheet, err);
        break;
    }
}

static am_status run_part(const am_import_plan *plan, size_t pi, const am_skeleton *skel,
                          const am_import_options *opts, const char *out_dir, am_import_outset *set,
                          part_out *po, am_import_part_report *pr, am_import_report *rep, am_error *err)
{
    const am_import_part *part = &plan->parts[pi];
    if (!am_string_copy(&pr->name, &part->name) || !am_string_copy(&pr->meshes, &part->meshes))
        return am_fail_nomem(err, "report");
    pr->positions = part->positions;
    pr->borrowed_weights = part->borrowed_weights;
    pr->unweighted_vertices = part->unweighted_vertices;
    pr->rest_error_before_m = -1;
    pr->skin = calloc(1, sizeof *pr->skin);
    if (!pr->skin)
        return am_fail_nomem(err, "report");
    am_skin_options so = opts->skin;
    am_skin_options_resolve(&so); /* zero fields read as the build reads them */
    /* The uploader's faces are already cut (at most 65,534 vertices each): no further cut. */
    if (part->rig.explicit_skin)
        so.face_vertex_limit = AM_MESH_MAX_FACE_VERTICES - 2;
    char texture_image[160] = ""; /* a texture stem is at most 100 characters (am_import_texture_for) */
    if (part->texture >= 0) {
        snprintf(texture_image, sizeof texture_image, "%s%s", am_str(&plan->textures[part->texture].name),
                 plan->textures[part->texture].ext[0] ? plan->textures[part->texture].ext : ".png");
        so.texture_image = texture_image;
    }
    char face_image[AM_MESH_MAX_FACES][160];
    for (size_t f = 0; f < part->face_texture_count && f < AM_MESH_MAX_FACES; f++) {
        int t = part->face_textures[f];
        face_image[f][0] = '\0';
        if (t >= 0)
            snprintf(face_image[f], sizeof face_image[f], "%s%s", am_str(&plan->textures[t].name),
                     plan->textures[t].ext[0] ? plan->textures[t].ext : ".png");
        so.face_images[f] = face_image[f];
        so.face_image_count = f + 1;
    }
    am_skin_result res;
    am_rig normalized;
    bool have_normalized = false;
    am_buf dae = {0}, md = {0}, rig_json = {0}, sheet = {0};
    progress(opts, "building part '%s': %zu vertices, %zu triangles, %zu joints", am_str(&part->name), part->rig.vertex_count,
             part->rig.triangle_count, part->rig.joint_count);
    /* built and encoded (a computed rig's automatic budget corrected by the measured size,
     * as animesh skin does; an explicit skin is written as given) */
    memset(&res, 0, sizeof res);
    /* The triangle budget, decided before the build's expensive steps (the LODs, the encode)
     * as `animesh skin` decides it: an asset that fits is written as given; one whose
     * triangles alone pass the region limit, or any with --max-tris N, is fitted to it, its
     * faces (one material: a part carries one texture) merged for the builder to cut again. */
    am_rig fitted = part->rig;
    if (so.max_tris > 0 || (so.max_tris == AM_SKIN_MAX_TRIS_AUTO && so.region_max_tris > 0 &&
                            part->rig.triangle_count > (size_t)so.region_max_tris)) {
        fitted.face_count = 0;
        fitted.face_start = NULL;
        so.budget_given_skin = true;
    }
    /* The rig JSON is the rig as given (unless --normalize-binds rewrites it after a first
     * build): written on a thread of its own beside the build. */
    am_rig_json_job rw = {&part->rig, &rig_json, AM_OK, {0}};
    am_task rig_task = {0};
    bool rig_beside = !(opts->normalize_binds && part->rig.explicit_skin);
    if (rig_beside)
        am_task_start(&rig_task, am_rig_json_job_run, &rw);
    dae_writer dw = {&dae, AM_OK, {0}};
    am_status st = am_skin_build_encoded_beside(&fitted, skel, &so, &res, &po->mesh, dae_beside, &dw, err);
    if (st && so.budget_given_skin && err) {
        /* the budget's refusal names the rig: name the part (and so the model) instead */
        char msg[sizeof err->msg];
        snprintf(msg, sizeof msg, "%s", err->msg);
        am_fail(err, st, "part '%s': %s", am_str(&part->name), msg);
    }
    if (st)
        goto done;
    progress(opts, "part '%s': skin built and encoded (LODs %zu / %zu / %zu / %zu triangles)", am_str(&part->name),
             res.summary.lod_triangles[AM_LOD_HIGH], res.summary.lod_triangles[AM_LOD_MEDIUM],
             res.summary.lod_triangles[AM_LOD_LOW], res.summary.lod_triangles[AM_LOD_LOWEST]);
    if (opts->normalize_binds && part->rig.explicit_skin) {
        /* before: the file's inverse binds, on the bench; after: what is written */
        am_import_part_report before = {0};
        if ((st = bench_part(&po->mesh, am_str(&part->name), pi, plan, skel, false, AM_RENDER_JOINTS_NONE, &before, NULL,
                             err)) ||
            (st = normalized_rig(&part->rig, &res, skel, &normalized, err)))
            goto done;
        have_normalized = true;
        pr->rest_error_before_m = before.rest_error_m;
        am_skin_result_free(&res);
        am_buf_free(&po->mesh);
        if ((st = am_skin_build_encoded_beside(&normalized, skel, &so, &res, &po->mesh, dae_beside, &dw, err)))
            goto done;
    }
    if (!am_skin_summary_copy(pr->skin, &res.summary)) {
        st = am_fail_nomem(err, "skin summary");
        goto done;
    }
    if (res.summary.over_region_limit) {
        st = am_fail(err, AM_ERR_INVALID,
                     "part '%s': estimated animesh triangles %.0f exceed the region limit %ld (AnimatedObjectMaxTris): "
                     "set the max_tris option to fit it, simplify the mesh, or raise the region_max_tris option",
                     am_str(&part->name), res.summary.est_tris_max, res.summary.region_max_tris);
        goto done;
    }
    pr->vertices = res.summary.vertex_count;
    pr->faces = res.summary.face_count;
    pr->triangles = res.summary.lod_triangles[AM_LOD_HIGH];
    if ((st = joint_figures(part, &res, skel, pr, rep, err)))
        goto done;
    progress(opts, "part '%s': built and encoded (%zu bytes); writing the .dae and the rig", am_str(&part->name), po->mesh.size);
    if (res.face_count > 1 && opts->meshdata_required) {
        if (!(st = dae_done(&dw, err)) &&
            !(st = rig_json_done(&rw, &rig_task, rig_beside, have_normalized ? &normalized : &part->rig, err)))
            st = am_fail(err, AM_ERR_INVALID,
                         "part '%s' has %zu faces: WorldBridge meshdata carries one (weights go to submesh 0 only), "
                         "and the meshdata_required option asks for it",
                         am_str(&part->name), res.face_count);
        goto done;
    }
    if (res.face_count > 1) {
        char stale[1200];
        snprintf(stale, sizeof stale, "%s/%s.meshdata.json", out_dir, am_str(&part->name));
        if ((st = am_import_outset_stale(set, stale, err)))
            goto done;
        run_finding(rep, "meshdata_skipped",
                    "part '%s' has %zu faces: no meshdata written (WorldBridge writes weights into submesh 0 only); "
                    "the .llmesh, .dae and OAR carry every face",
                    am_str(&part->name), res.face_count);
    }
    progress(opts, "bench: part '%s'%s", am_str(&part->name), opts->bench ? " with every motion, pose sheet" : ", rest pose");
    /* The writers read the build, the bench the encoded bytes: independent, so they run side
     * by side; the first failure in this order is the one reported, as one after another. */
    part_jobs jobs = {&res, rig_beside ? NULL : &normalized, &po->mesh, am_str(&part->name), pi, plan, skel, opts->bench,
                      opts->joints, pr, &rig_json, &md, &sheet, {AM_OK}, {{0}}};
    am_parallel_for(PART_JOB_COUNT, 0, part_job, &jobs);
    if (rig_beside) {
        am_task_join(&rig_task);
        jobs.st[PART_JOB_RIG] = rw.status;
        jobs.err[PART_JOB_RIG] = rw.err;
    }
    static const int report_order[PART_JOB_COUNT] = {PART_JOB_RIG, PART_JOB_MESHDATA, PART_JOB_BENCH};
    st = dae_done(&dw, err);
    for (int i = 0; i < PART_JOB_COUNT && !st; i++)
        if ((st = jobs.st[report_order[i]]) && err)
            *err = jobs.err[report_order[i]];
    if (st)
        goto done;
    if (pr->rest_error_m > 1e-3)
        run_finding(rep, "rest_error",
                    "part '%s': the viewer will draw the rest pose up to %.4f m from the bind pose (the bench on the "
                    "written asset)%s",
                    am_str(&part->name), pr->rest_error_m,
                    opts->normalize_binds ? "" : "; the normalize_binds option makes it exact");
    for (size_t m = 0; m < pr->anim_count; m++) {
        const am_import_anim_result *a = &pr->anims[m];
        bool spike = a->spike_m > AM_BENCH_SPIKE_SHARE * a->creature_m; /* else an edge torn open */
        if (a->exploded)
            run_finding(rep, "exploded",
                        "part '%s' playing '%s' explodes: %s %.3f m (the creature is %.2f m; the line is %.0f%% of "
                        "it): a vertex there is held by a joint far from it; check its weights",
                        am_str(&part->name), am_str(&a->name),
                        spike ? "a vertex is torn from all its neighbours by" : "an edge tears open by",
                        spike ? a->spike_m : a->tear_m, a->creature_m,
                        100 * (spike ? AM_BENCH_SPIKE_SHARE : AM_BENCH_EXPLODE_SHARE));
        else if (a->strained)
            run_finding(rep, "strain",
                        "part '%s' playing '%s': %.2f%% of its edges stretch outside 0.5..1.6 of their length at worst "
                        "(p99 %.2f; riggers flag above 0.2%%)",
                        am_str(&part->name), am_str(&a->name), 100 * a->strain_share, a->strain_p99);
    }
    po->texture = part->texture;
    po->face_textures = res.face_image_count > 1 && res.face_image_count == res.face_count;
    /* outputs */
    am_buf copy = {0};
    if ((st = am_buf_append(&copy, po->mesh.data, po->mesh.size, err)) ||
        (st = add_file(set, out_dir, am_str(&part->name), ".llmesh", &copy, err)) ||
        (st = add_file(set, out_dir, am_str(&part->name), ".dae", &dae, err)) ||
        (st = add_file(set, out_dir, am_str(&part->name), ".rig.json", &rig_json, err)))
        goto done;
    if (md.data && (st = add_file(set, out_dir, am_str(&part->name), ".meshdata.json", &md, err)))
        goto done;
    if (sheet.data) {
        am_string name = {0};
        if (!am_string_setf(&name, "%s_poses", am_str(&part->name)) ||
            !am_string_setf(&pr->pose_sheet, "%s/%s.png", out_dir, am_str(&name)))
            st = am_fail_nomem(err, "report");
        else
            st = add_file(set, out_dir, am_str(&name), ".png", &sheet, err);
        am_string_free(&name);
    }
done:
    if (rig_beside)
        am_task_join(&rig_task); /* before its buffer is freed, whatever failed */
    am_skin_result_free(&res);
    if (have_normalized)
        free(normalized.joints);
    am_buf_free(&dae);
    am_buf_free(&md);
    am_buf_free(&rig_json);
    am_buf_free(&sheet);
    return st;
}

/* --- textures, motions, OAR -------------------------------------------------------------------- */

static am_status run_texture(const am_import_texture *t, const char *out_dir, am_import_outset *set, tex_out *to,
                             am_import_report *rep, am_error *err)
{
    am_tex_image img = {0}, fit = {0};
    uint8_t *png = NULL;
    size_t png_size = 0;
    am_status st = t->path ? am_read_file_as(t->path, &am_image_file_format, &png, &png_size, err) : AM_OK;
    const uint8_t *bytes = t->path ? png : t->data;
    size_t size = t->path ? png_size : t->size;
    if (!st)
        st = am_image_decode(bytes, size, &img, err); /* PNG or JPEG, sniffed */
    if (st) {
        am_error_where(err, "texture %s", t->path ? t->path : am_str(&t->name));
        goto done;
    }
    const am_tex_image *use = &img;
    am_error size_err;
    am_error_clear(&size_err);
    if (am_texture_check_size(img.width, img.height, &size_err)) {
        uint32_t w = am_texture_fit_side(img.width), h = am_texture_fit_side(img.height);
        if ((st = am_tex_resize_box(&img, w, h, &fit, err)))
            goto done;
        use = &fit;
        run_finding(rep, "texture_resized",
                    "texture '%s' is %ux%u: resized to %ux%u for upload (the viewer takes power-of-two sides up to "
                    "1024)",
                    am_str(&t->name), img.width, img.height, w, h);
    }
    am_j2c_options jo = {false};
    if ((st = am_j2c_encode(use, &jo, &to->j2c, err)))
        goto done;
    to->ok = true;
    am_buf j2c_copy = {0};
    if ((st = am_buf_append(&j2c_copy, to->j2c.data, to->j2c.size, err)) ||
        (st = add_file(set, out_dir, am_str(&t->name), ".j2c", &j2c_copy, err)))
        goto done;
    /* the image beside the .dae that references it */
    char file[160], path[1024]; /* a texture stem is at most 100 characters */
    snprintf(file, sizeof file, "%s%s", am_str(&t->name), t->ext[0] ? t->ext : ".png");
    if (!am_path_join(path, sizeof path, out_dir, file)) {
        st = am_fail(err, AM_ERR_IO, "output path too long: %s", file);
        goto done;
    }
    st = am_import_outset_add_copy(set, path, bytes, size, err);
done:
    free(png);
    am_tex_image_free(&img);
    am_tex_image_free(&fit);
    return st;
}

/* The motion that plays on rez: the one --play names (by its name, or its clip's name as the
 * source file gives it), else the first; -1 when there is none or --play names none. */
static long play_index(const am_import_plan *plan, const char *play)
{
    if (!play)
        return plan->motion_count ? 0 : -1;
    for (size_t m = 0; m < plan->motion_count; m++)
        if (strcmp(am_str(&plan->motions[m].name), play) == 0)
            return (long)m;
    for (size_t m = 0; m < plan->motion_count; m++)
        if (!am_string_empty(&plan->motions[m].clip) && strcmp(am_str(&plan->motions[m].clip), play) == 0)
            return (long)m;
    return -1;
}

static am_status check_play(const am_import_plan *plan, const char *play, am_error *err)
{
    if (!play || play_index(plan, play) >= 0)
        return AM_OK;
    if (!plan->motion_count)
        return am_fail(err, AM_ERR_USAGE,
                       "the play option '%s': the import has no motion to play (give one with the anim_paths option)",
                       play);
    char list[400] = "";
    size_t n = 0;
    for (size_t m = 0; m < plan->motion_count && n + 70 < sizeof list; m++)
        n += (size_t)snprintf(list + n, sizeof list - n, "%s'%.60s'", m ? ", " : "",
                              am_str(&plan->motions[m].name));
    return am_fail(err, AM_ERR_USAGE, "the play option '%s': no motion of that name; the motions are %s", play, list);
}

static am_status run_oar(const am_import_plan *plan, const am_import_options *opts, const part_out *parts,
                         const tex_out *tex, am_import_outset *set, am_error *err)
{
    am_oar_anim *anims = calloc(plan->motion_count ? plan->motion_count : 1, sizeof *anims);
    am_oar_child *children = calloc(plan->part_count, sizeof *children);
    am_buf oar = {0};
    am_status st = AM_OK;
    if (!anims || !children) {
        st = am_fail_nomem(err, "OAR");
        goto done;
    }
    for (size_t m = 0; m < plan->motion_count; m++)
        anims[m] = (am_oar_anim){am_str(&plan->motions[m].name), plan->motions[m].anim, plan->motions[m].anim_size};
    am_oar_input in;
    memset(&in, 0, sizeof in);
    in.mesh = parts[0].mesh.data;
    in.mesh_size = parts[0].mesh.size;
    if (parts[0].texture >= 0 && tex[parts[0].texture].ok) {
        in.texture = tex[parts[0].texture].j2c.data;
        in.texture_size = tex[parts[0].texture].j2c.size;
    }
    in.has_color = !in.texture;
    memcpy(in.color, plan->parts[0].rig.rgb, sizeof in.color);
    in.anims = anims;
    in.anim_count = plan->motion_count;
    long pi = play_index(plan, opts->play);
    in.play = pi >= 0 ? am_str(&plan->motions[pi].name) : NULL;
    static const double default_position[3] = {128, 128, 25};
    for (int k = 0; k < 3; k++)
        in.position[k] = am_option_real(opts->oar_position[k], default_position[k]);
    in.object_name = am_str(&plan->name);
    in.creation_time = opts->creation_time;
    for (size_t i = 1; i < plan->part_count; i++) {
        am_oar_child *c = &children[i - 1];
        c->mesh = parts[i].mesh.data;
        c->mesh_size = parts[i].mesh.size;
        if (parts[i].texture >= 0 && tex[parts[i].texture].ok) {
            c->texture = tex[parts[i].texture].j2c.data;
            c->texture_size = tex[parts[i].texture].j2c.size;
        }
        c->name = am_str(&plan->parts[i].name);
        c->has_color = !c->texture;
        memcpy(c->color, plan->parts[i].rig.rgb, sizeof c->color);
    }
    in.children = plan->part_count > 1 ? children : NULL;
    in.child_count = plan->part_count - 1;
    /* the root's faces each their own texture (a merged creature's parts' materials) */
    am_oar_face_texture faces[AM_OAR_MAX_FACES];
    const am_import_part *root = &plan->parts[0];
    for (size_t f = 0; parts[0].face_textures && f < root->face_texture_count && f < AM_OAR_MAX_FACES; f++) {
        int t = root->face_textures[f];
        faces[f] = t >= 0 && tex[t].ok ? (am_oar_face_texture){tex[t].j2c.data, tex[t].j2c.size}
                                       : (am_oar_face_texture){NULL, 0};
        in.face_textures = faces;
        in.face_texture_count = f + 1;
    }
    /* read back and checked completely before it is staged (oar_check.h), as `oar` does */
    if (!(st = am_oar_write(&in, &oar, err)) && !(st = am_oar_check_bytes(oar.data, oar.size, NULL, err)))
        st = am_import_outset_add(set, opts->oar_path, &oar, err);
    else
        am_error_where(err, "%s", opts->oar_path);
done:
    am_buf_free(&oar);
    free(anims);
    free(children);
    return st;
}

void am_import_report_free(am_import_report *r)
{
    if (!r)
        return;
    for (size_t i = 0; r->parts && i < r->part_count; i++) {
        am_import_part_report *p = &r->parts[i];
        am_string_free(&p->name);
        am_string_free(&p->meshes);
        am_string_free(&p->pose_sheet);
        for (size_t j = 0; p->joints && j < p->joint_count; j++)
            am_string_free(&p->joints[j].name);
        free(p->joints);
        am_skin_summary_free(p->skin);
        free(p->skin);
        for (size_t a = 0; p->anims && a < p->anim_count; a++)
            am_string_free(&p->anims[a].name);
        free(p->anims);
    }
    free(r->parts);
    for (size_t i = 0; i < r->finding_count; i++)
        am_import_finding_free(&r->findings[i]);
    free(r->findings);
    am_string_list_free(r->written, r->written_count);
    am_string_list_free(r->removed, r->removed_count);
    am_string_list_free(r->left, r->left_count);
    am_string_list_free(r->motions, r->motion_count);
    for (size_t i = 0; r->motion_info && i < r->motion_count; i++)
        am_import_motion_free(&r->motion_info[i]);
    free(r->motion_info);
    for (size_t i = 0; r->map && i < r->map_count; i++)
        am_import_map_entry_free(&r->map[i]);
    free(r->map);
    am_string_free(&r->name);
    am_string_free(&r->source);
    am_string_free(&r->format);
    am_string_free(&r->plays);
    am_string_free(&r->axes);
    am_string_free(&r->pose_sheet);
    am_body_plan_free(&r->body_plan);
    memset(r, 0, sizeof *r);
}

/* The report's copy of what the plan says (texts copied: the report owns its own). True
 * when out of memory (what was copied is freed with the report). */
static bool report_from_plan(const am_import_plan *plan, am_import_report *rep)
{
    if (!am_string_copy(&rep->name, &plan->name) || !am_string_copy(&rep->source, &plan->source) ||
        !am_string_copy(&rep->format, &plan->format) || !am_string_copy(&rep->axes, &plan->axes) ||
        !am_body_plan_copy(&rep->body_plan, &plan->body_plan))
        return true;
    if (plan->motion_count) {
        rep->motions = calloc(plan->motion_count, sizeof *rep->motions);
        rep->motion_info = calloc(plan->motion_count, sizeof *rep->motion_info);
        if (!rep->motions || !rep->motion_info)
            return true;
        rep->motion_count = plan->motion_count; /* zeroed: freed whole or not */
        for (size_t m = 0; m < plan->motion_count; m++)
            if (!am_string_copy(&rep->motions[m], &plan->motions[m].name) ||
                !am_import_motion_copy(&rep->motion_info[m], &plan->motions[m], false))
                return true;
        for (size_t m = 0; m < plan->motion_count; m++)
            rep->motion_info[m].anim_size = 0; /* no bytes in the report */
    }
    if (plan->finding_count) {
        if (!(rep->findings = calloc(plan->finding_count, sizeof *rep->findings)))
            return true;
        rep->finding_count = rep->finding_cap = plan->finding_count;
        for (size_t i = 0; i < plan->finding_count; i++)
            if (!am_string_copy(&rep->findings[i].code, &plan->findings[i].code) ||
                !am_string_copy(&rep->findings[i].text, &plan->findings[i].text))
                return true;
    }
    if (plan->map_count) {
        if (!(rep->map = calloc(plan->map_count, sizeof *rep->map)))
            return true;
        rep->map_count = plan->map_count;
        for (size_t i = 0; i < plan->map_count; i++) {
            am_import_map_entry *e = &rep->map[i];
            const am_import_map_entry *f = &plan->map[i];
            e->confidence = f->confidence;
            e->fallback = f->fallback;
            if (!am_string_copy(&e->rig, &f->rig) || !am_string_copy(&e->viewer, &f->viewer) ||
                !am_string_copy(&e->reason, &f->reason))
                return true;
        }
    }
    return false;
}

am_status am_import_run(const am_import_plan *plan, const am_skeleton *skel, const am_import_options *opts,
                        const char *out_dir, am_import_report *rep, am_error *err)
{
    memset(rep, 0, sizeof *rep);
    am_status pst = check_play(plan, opts->play, err); /* before any work: a typo costs nothing */
    if (pst)
        return pst;
    rep->route = plan->route;
    rep->declared = plan->declared;
    if (report_from_plan(plan, rep))
        return am_fail_nomem(err, "report");
    if (plan->part_count == 0)
        return am_fail(err, AM_ERR_INVALID, "the plan has no part to build");
    rep->parts = calloc(plan->part_count, sizeof *rep->parts);
    part_out *po = calloc(plan->part_count, sizeof *po);
    tex_out *to = calloc(plan->texture_count ? plan->texture_count : 1, sizeof *to);
    am_import_outset set = {0};
    am_status st = AM_OK;
    if (!rep->parts || !po || !to) {
        st = am_fail_nomem(err, "import run");
        goto done;
    }
    rep->part_count = plan->part_count;
    for (size_t i = 0; i < plan->part_count && !st; i++)
        st = run_part(plan, i, skel, opts, out_dir, &set, &po[i], &rep->parts[i], rep, err);
    for (size_t t = 0; t < plan->texture_count && !st; t++)
        st = run_texture(&plan->textures[t], out_dir, &set, &to[t], rep, err);
    if (!st && opts->bench && plan->part_count > 1) {
        progress(opts, "bench: every part together, pose sheet");
        st = combined_sheet(plan, skel, po, out_dir, &set, rep, err);
    }
    for (size_t m = 0; m < plan->motion_count && !st; m++) {
        am_buf b = {0};
        if (!(st = am_buf_append(&b, plan->motions[m].anim, plan->motions[m].anim_size, err)))
            st = add_file(&set, out_dir, am_str(&plan->motions[m].name), ".anim", &b, err);
        else
            am_buf_free(&b);
    }
    if (!st && opts->preview) {
        const am_buf **meshes = malloc(plan->part_count * sizeof *meshes);
        for (size_t i = 0; meshes && i < plan->part_count; i++)
            meshes[i] = &po[i].mesh;
        st = meshes ? am_import_preview(plan, skel, meshes, out_dir, &set, err) : am_fail_nomem(err, "preview");
        free((void *)meshes);
    }
    if (!st && opts->oar_path) {
        progress(opts, "OAR: %zu prim%s, %zu animation%s", plan->part_count, plan->part_count == 1 ? "" : "s",
                 plan->motion_count, plan->motion_count == 1 ? "" : "s");
        st = run_oar(plan, opts, po, to, &set, err);
        long pi = play_index(plan, opts->play);
        if (!st && pi >= 0 && !am_string_copy(&rep->plays, &plan->motions[pi].name))
            st = am_fail_nomem(err, "report");
    }
    if (!st) { /* the full report in words (import_text.h), listing the files it comes with */
        am_buf txt = {0};
        st = am_import_report_text(rep, &txt, err);
        char line[1100];
        for (size_t i = 0; !st && i < set.count; i++)
            if (!set.files[i].stale) {
                int n = snprintf(line, sizeof line, "wrote %s\n", set.files[i].path);
                st = am_buf_append(&txt, line, n > 0 ? strlen(line) : 0, err);
            }
        if (!st) {
            char name[300]; /* too long for a path: add_file below says so */
            snprintf(name, sizeof name, "%s.import.txt", am_str(&plan->name));
            char path[1024];
            if (plan->name.length < 250 && am_path_join(path, sizeof path, out_dir, name)) {
                int n = snprintf(line, sizeof line, "wrote %s\n", path);
                st = am_buf_append(&txt, line, n > 0 ? strlen(line) : 0, err);
            }
        }
        if (!st)
            st = add_file(&set, out_dir, am_str(&plan->name), ".import.txt", &txt, err);
        else
            am_buf_free(&txt);
    }
    if (!st) {
        progress(opts, "writing the files");
        am_string manifest = {0};
        if (!am_string_setf(&manifest, "%s.outset", am_str(&plan->name)))
            st = am_fail_nomem(err, "import run");
        else if (!(st = am_import_outset_own(&set, out_dir, am_str(&manifest), err)))
            st = am_import_outset_commit(&set, err);
        am_string_free(&manifest);
    }
    /* the files are in place now: a list the report cannot hold (out of memory) is said */
    bool listed = true;
    for (size_t i = 0; !st && i < set.left_count; i++) /* named by a manifest or journal, not animesh's: left */
        listed &= am_string_list_push(&rep->left, &rep->left_count, &rep->left_cap, set.left[i]);
    for (size_t i = 0; !st && i < set.removed_count; i++) /* the earlier run's files this one does not write */
        listed &= am_string_list_push(&rep->removed, &rep->removed_count, &rep->removed_cap, set.removed[i]);
    for (size_t i = 0; !st && i < set.count; i++)
        if (!set.files[i].stale)
            listed &= am_string_list_push(&rep->written, &rep->written_count, &rep->written_cap, set.files[i].path);
    if (!st && !listed)
        st = am_fail_nomem(err, "the report's list of files (they are written)");
done:
    for (size_t i = 0; po && i < plan->part_count; i++)
        am_buf_free(&po[i].mesh);
    for (size_t t = 0; to && t < plan->texture_count; t++)
        am_buf_free(&to[t].j2c);
    free(po);
    free(to);
    am_import_outset_free(&set);
    return st;
}
