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
#include "mesh/mesh_asset.h"
#include "readers/scene_load.h"
#include "skin/skin_build.h"

/* --- inputs -------------------------------------------------------------------------- */

am_status am_report_bench_rig(const am_rig *rig, const am_skeleton *skel, const char *source, am_bench *out,
                              am_error *err)
{
    am_skin_options so;
    am_skin_options_default(&so);
    so.region_max_tris = 0; /* the report measures; the region limit is `animesh skin`'s check */
    so.high_lod_only = true; /* the bench measures the high LOD; nothing reads the others or the cost */
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

/* A skinned scene as a rig (report.h). */
static am_status rig_from_scene(const am_scene *sc, const am_skeleton *skel, const am_bind_frame *frame, am_rig *out,
                                size_t *dropped, am_error *err)
{
    *dropped = 0;
    bool skinned = false;
    for (size_t i = 0; i < sc->mesh_count; i++)
        skinned |= sc->meshes[i].skin >= 0;
    if (!skinned) {
        am_fail(err, AM_ERR_INVALID, "no skin: the model carries no weights (bind it first: animesh bind)");
        am_error_where(err, "%s", sc->source);
        return AM_ERR_INVALID;
    }
    am_bind_source src;
    am_status s = am_bind_source_from_scene(sc, frame, &src, err);
    if (s)
        return s;
    am_bind_skeleton bs;
    size_t skipped;
    if ((s = am_bind_skeleton_from_scene(sc, frame, skel, 0, &bs, &skipped, err))) {
        am_bind_source_free(&src);
        return s;
    }
    am_bind_result fake;
    memset(&fake, 0, sizeof fake);
    size_t nv = src.vertex_count;
    fake.count = calloc(nv ? nv : 1, 1);
    fake.joint = calloc(4 * (nv ? nv : 1), sizeof *fake.joint);
    fake.weight = calloc(4 * (nv ? nv : 1), sizeof *fake.weight);
    if (!fake.count || !fake.joint || !fake.weight) {
        s = am_fail_nomem(err, "report rig");
        goto done;
    }
    /* the file's weights, on the skeleton's joints, 4 largest (the skin builder renormalises) */
    size_t base = 0;
    for (size_t i = 0; i < sc->mesh_count; i++) {
        const am_scene_mesh *m = &sc->meshes[i];
        const am_scene_skin *k = m->skin >= 0 ? &sc->skins[m->skin] : NULL;
        for (size_t v = 0; v < m->vertex_count; v++) {
            size_t at = base + v;
            if (!k)
                continue;
            for (size_t q = m->influence_start[v]; q < m->influence_start[v + 1]; q++) {
                const am_scene_influence *inf = &m->influences[q];
                int sj = am_skeleton_find(skel, k->joint_names[inf->joint]);
                int j = -1;
                for (size_t b = 0; b < bs.joint_count && sj >= 0; b++)
                    if (bs.joints[b].skel_joint == sj)
                        j = (int)b;
                if (j < 0 || !(inf->weight > 0)) {
                    *dropped += j < 0;
                    continue;
                }
                /* keep the 4 largest */
                int c = fake.count[at];
                if (c < 4) {
                    fake.joint[4 * at + c] = (uint16_t)j;
                    fake.weight[4 * at + c] = inf->weight;
                    fake.count[at]++;
                } else {
                    int lo = 0;
                    for (int e = 1; e < 4; e++)
                        if (fake.weight[4 * at + e] < fake.weight[4 * at + lo])
                            lo = e;
                    if (inf->weight > fake.weight[4 * at + lo]) {
                        fake.joint[4 * at + lo] = (uint16_t)j;
                        fake.weight[4 * at + lo] = inf->weight;
                    }
                }
            }
        }
        base += m->vertex_count;
    }
    s = am_bind_to_rig(&src, &bs, &fake, out, err);
done:
    free(fake.count);
    free(fake.joint);
    free(fake.weight);
    am_bind_skeleton_free(&bs);
    am_bind_source_free(&src);
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

am_status am_report_load(const char *path, const am_skeleton *skel, const am_bind_frame *frame, am_bench *out,
                         am_report_input *info, am_error *err)
{
    memset(info, 0, sizeof *info);
    uint8_t head[16] = {0};
    size_t got = 0;
    am_status opened = am_read_file_head(path, head, sizeof head, &got, NULL, err);
    if (opened)
        return opened;
    /* A mesh asset starts with its binary LLSD header, a map ('{'). */
    bool asset = has_ext(path, ".llmesh") || has_ext(path, ".slm") || (got > 0 && head[0] == '{' && !has_ext(path, ".json") &&
                                                                       !has_ext(path, ".gltf"));
    if (asset) {
        snprintf(info->what, sizeof info->what, "mesh asset (read as written)");
        return am_bench_load(path, NULL, 0, skel, NULL, out, err);
    }
    if (has_ext(path, ".json")) {
        am_rig rig;
        am_status s = am_rig_load(path, &rig, err);
        if (s)
            return s;
        snprintf(info->what, sizeof info->what, "rig JSON (skin built in memory, read back by the bench)");
        s = am_report_bench_rig(&rig, skel, base_name(path), out, err);
        am_rig_free(&rig);
        return s;
    }
    am_scene sc;
    const am_scene_load_opts lo = {NULL, true}; /* welded before faces and LODs, as import does */
    am_status s = am_scene_load_ex(path, &lo, &sc, err);
    if (s)
        return s;
    am_rig rig;
    s = rig_from_scene(&sc, skel, frame, &rig, &info->dropped_weights, err);
    if (!s) {
        snprintf(info->what, sizeof info->what, "%s model (imported, skin built in memory, read back by the bench)",
                 am_scene_format_lookup(sc.format) ? am_scene_format_lookup(sc.format)->name : "model");
        s = am_report_bench_rig(&rig, skel, base_name(path), out, err);
        am_rig_free(&rig);
    }
    am_scene_free(&sc);
    return s;
}

/* --- the files ---------------------------------------------------------------------------- */

static am_status add(am_outset *set, const char *name, const void *data, size_t size, char (*written)[256],
                     size_t *wc, am_error *err)
{
    am_status s = am_outset_add(set, name, data, size, err);
    if (!s && written && *wc < AM_REPORT_MAX_FILES)
        snprintf(written[(*wc)++], 256, "%s", name);
    return s;
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
        char joint[64];
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
            p->status = am_png_encode(&J->sheet, &p->png, &p->err);
        return;
    }
    am_error_clear(&p->err);
    am_image img;
    memset(&img, 0, sizeof img);
    p->status = am_quality_render_closeup_threads(J->b, J->r, J->poses, J->pose_count, i - 1, J->threads, &img,
                                                  &p->found, p->joint, sizeof p->joint, &p->err);
    if (!p->status && p->found)
        p->status = am_png_encode(&img, &p->png, &p->err);
    am_image_free(&img);
}

static am_status add_pictures(const am_bench *b, const am_quality_report *r, const am_quality_pose *poses,
                              size_t pose_count, int threads, am_outset *set, const char *stem, char (*written)[256],
                              size_t *wc, am_error *err)
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
    char name[300];
    for (size_t i = 0; i < 4 && !s; i++) {
        const struct picture *p = &J->pic[i];
        if (p->status) {
            *err = p->err;
            s = p->status;
            break;
        }
        if (!p->found)
            break; /* no close-up of this rank, nor of any after it */
        if (i == 0)
            snprintf(name, sizeof name, "%s_poses.png", stem);
        else
            snprintf(name, sizeof name, "%s_closeup_%zu_%s.png", stem, i, p->joint);
        s = add(set, name, p->png.data, p->png.size, written, wc, err);
    }
    for (size_t i = 0; i < 4; i++)
        am_buf_free(&J->pic[i].png);
    free(J);
    return s;
}

am_status am_report_write(const am_bench *b, const am_quality_report *r, const am_quality_pose *poses,
                          size_t pose_count, am_outset *set, const char *stem, const char *preface,
                          char (*written)[256], size_t *written_count, am_error *err)
{
    return am_report_write_threads(b, r, poses, pose_count, 0, set, stem, preface, written, written_count, err);
}

am_status am_report_write_threads(const am_bench *b, const am_quality_report *r, const am_quality_pose *poses,
                                  size_t pose_count, int threads, am_outset *set, const char *stem,
                                  const char *preface, char (*written)[256], size_t *written_count, am_error *err)
{
    size_t dummy = 0;
    size_t *wc = written_count ? written_count : &dummy;
    am_buf json = {0}, text = {0};
    char name[300];
    am_status s = am_quality_json(r, &json, err);
    if (!s && preface)
        s = am_buf_append(&text, preface, strlen(preface), err);
    if (!s)
        s = am_quality_text(r, &text, err);
    if (!s) {
        snprintf(name, sizeof name, "%s.report.json", stem);
        s = add(set, name, json.data, json.size, written, wc, err);
    }
    if (!s) {
        snprintf(name, sizeof name, "%s.report.txt", stem);
        s = add(set, name, text.data, text.size, written, wc, err);
    }
    am_buf_free(&json);
    am_buf_free(&text);
    if (!s)
        s = add_pictures(b, r, poses, pose_count, threads, set, stem, written, wc, err);
    return s;
}
