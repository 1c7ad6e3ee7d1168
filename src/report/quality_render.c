/* The report's pictures (quality.h): the pose sheet and close-ups of the worst joints. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/quality.h"
#include "bench/render.h"
#include "core/parallel.h"

#define SHEET_CELL_PX 360 /* a pose sheet cell's longer side */

/* Poses the report measured, in its order, with their posed positions and joints. */
typedef struct posed_set {
    size_t count;
    float **prim;
    am_vec3 **joints;
    size_t *pose;      /* index into the report's poses */
} posed_set;

static void free_posed(posed_set *p)
{
    for (size_t i = 0; i < p->count; i++) {
        free(p->prim[i]);
        free(p->joints[i]);
    }
    free(p->prim);
    free(p->joints);
    free(p->pose);
    memset(p, 0, sizeof *p);
}

/* One slot posed by a job of its own (core/parallel.h): its pose's locals into the job's
 * own scratch, then the posed positions and joints into the slot. */
typedef struct pose_slots {
    const am_bench *b;
    const am_quality_pose *poses;
    posed_set *set;
    bool *is_rest;
    am_status *status;
    am_error *errs;
} pose_slots;

static void pose_slot(void *user, size_t at, int worker)
{
    (void)worker;
    pose_slots *J = user;
    const am_bench *b = J->b;
    am_error_clear(&J->errs[at]);
    am_bench_local *loc = malloc(b->skel->joint_count * sizeof *loc);
    am_status s = loc ? AM_OK : am_fail_nomem(&J->errs[at], "pose sheet");
    size_t nl = 0;
    if (!s && !J->is_rest[at])
        s = am_quality_pose_locals(b, &J->poses[J->set->pose[at]], loc, &nl, &J->errs[at]);
    if (!s)
        s = am_bench_pose_locals(b, loc, nl, J->set->prim[at], J->set->joints[at], &J->errs[at]);
    free(loc);
    J->status[at] = s;
}

/* Entry 0 is the rest pose; then every measured pose (or only `only` when >= 0). */
static am_status pose_all(const am_bench *b, const am_quality_report *r, const am_quality_pose *poses, size_t pose_count,
                          long only, int threads, posed_set *out, am_error *err)
{
    memset(out, 0, sizeof *out);
    size_t n = 1;
    for (size_t i = 0; i < r->pose_count && i < pose_count; i++)
        n += r->poses[i].measured && (only < 0 || (size_t)only == i);
    out->prim = calloc(n, sizeof *out->prim);
    out->joints = calloc(n, sizeof *out->joints);
    out->pose = calloc(n, sizeof *out->pose);
    bool *is_rest = calloc(n, sizeof *is_rest);
    am_status *status = calloc(n, sizeof *status);
    am_error *errs = calloc(n, sizeof *errs);
    am_status s = out->prim && out->joints && out->pose && is_rest && status && errs ? AM_OK
                                                                                   : am_fail_nomem(err, "pose sheet");
    /* slot 0: rest; then the selected poses in order */
    for (size_t i = 0, at = 0; !s && i <= r->pose_count && i <= pose_count && at < n; i++) {
        bool rest = i == 0;
        if (!rest && !(r->poses[i - 1].measured && (only < 0 || (size_t)only == i - 1)))
            continue;
        out->prim[at] = malloc(3 * (b->vertex_count ? b->vertex_count : 1) * sizeof(float));
        out->joints[at] = malloc(b->skel->joint_count * sizeof(am_vec3));
        out->count = at + 1;
        if (!out->prim[at] || !out->joints[at]) {
            s = am_fail_nomem(err, "pose sheet");
            break;
        }
        is_rest[at] = rest;
        out->pose[at] = rest ? 0 : i - 1;
        at++;
    }
    if (!s) {
        pose_slots J = {b, poses, out, is_rest, status, errs};
        am_parallel_for(out->count, threads, pose_slot, &J);
        for (size_t at = 0; at < out->count && !s; at++)
            if (status[at]) {
                *err = errs[at];
                s = status[at];
            }
    }
    free(is_rest);
    free(status);
    free(errs);
    if (s)
        free_posed(out);
    return s;
}

am_status am_quality_render_sheet(const am_bench *b, const am_quality_report *r, const am_quality_pose *poses,
                                  size_t pose_count, am_image *img, am_error *err)
{
    return am_quality_render_sheet_threads(b, r, poses, pose_count, 0, img, err);
}

am_status am_quality_render_sheet_threads(const am_bench *b, const am_quality_report *r, const am_quality_pose *poses,
                                          size_t pose_count, int threads, am_image *img, am_error *err)
{
    if (!poses)
        poses = am_quality_standard_poses(&pose_count);
    posed_set ps;
    am_status s = pose_all(b, r, poses, pose_count, -1, threads, &ps, err);
    if (s)
        return s;
    size_t n = ps.count;
    am_render_cell *fr = calloc(2 * n, sizeof *fr);
    char (*labels)[64] = calloc(n, sizeof *labels);
    if (!fr || !labels) {
        free(fr);
        free(labels);
        free_posed(&ps);
        return am_fail_nomem(err, "pose sheet");
    }
    for (size_t i = 0; i < n; i++) {
        if (i == 0)
            snprintf(labels[i], sizeof labels[i], "rest");
        else
            snprintf(labels[i], sizeof labels[i], "%s: %s", am_str(&r->poses[ps.pose[i]].name),
                     am_flag_name(r->poses[ps.pose[i]].worst));
        for (int row = 0; row < 2; row++) {
            am_render_cell *f = &fr[(size_t)row * n + i];
            f->prim = ps.prim[i];
            f->joints = ps.joints[i];
            f->label = labels[i];
            f->view = row == 0 ? AM_VIEW_FRONT : AM_VIEW_SIDE;
        }
    }
    /* One sheet per view, its cells shaped like the creature at rest seen from that side
     * (a 5.2 m raptor: wide cells side on, tall ones from the front), each cell fitted to its
     * own pose, then the two stacked: the creature spans most of each cell's longer side. */
    am_vec3 lo = am_v3(INFINITY, INFINITY, INFINITY), hi = am_v3(-INFINITY, -INFINITY, -INFINITY);
    for (size_t v = 0; v < b->vertex_count; v++) {
        am_vec3 p = am_v3(ps.prim[0][3 * v], ps.prim[0][3 * v + 1], ps.prim[0][3 * v + 2]);
        if (!(fabs(p.x) < 1e5 && fabs(p.y) < 1e5 && fabs(p.z) < 1e5))
            continue;
        lo = am_v3(fmin(lo.x, p.x), fmin(lo.y, p.y), fmin(lo.z, p.z));
        hi = am_v3(fmax(hi.x, p.x), fmax(hi.y, p.y), fmax(hi.z, p.z));
    }
    am_image rows[2] = {{0}, {0}};
    for (int row = 0; row < 2 && !s; row++) {
        am_render_options opt;
        am_render_options_init(&opt);
        opt.threads = threads;
        am_render_set_joints(&opt, r->joints, b);
        am_render_fit_frame(row == 0 ? AM_VIEW_FRONT : AM_VIEW_SIDE, lo, hi, SHEET_CELL_PX, 160, &opt.frame_width,
                            &opt.frame_height);
        char title[160];
        if (row == 0)
            snprintf(title, sizeof title, "pose sheet: front (top) and side (bottom) - worst %s",
                     am_flag_name(r->worst));
        else
            snprintf(title, sizeof title, "pose sheet: side");
        s = am_render_sheet(b, fr + (size_t)row * n, n, (int)n, &opt, title, &rows[row], err);
    }
    if (!s)
        s = am_image_alloc(img, (int)(rows[0].width > rows[1].width ? rows[0].width : rows[1].width),
                           (int)(rows[0].height + rows[1].height), err);
    if (!s) {
        memset(img->pixels, 255, (size_t)img->width * img->height * 4);
        for (int row = 0, y0 = 0; row < 2; y0 += (int)rows[row].height, row++)
            for (uint32_t y = 0; y < rows[row].height; y++)
                memcpy(img->pixels + 4 * ((size_t)(y0 + (int)y) * img->width),
                       rows[row].pixels + 4 * (size_t)y * rows[row].width, 4 * (size_t)rows[row].width);
    }
    am_image_free(&rows[0]);
    am_image_free(&rows[1]);
    free(fr);
    free(labels);
    free_posed(&ps);
    return s;
}

/* Per-vertex colour from the worst strain of its edges: grey when unchanged, red at the
 * docs/reference/quality-figures.md limits (0.5, 1.6) and beyond. */
static void strain_colours(const am_bench *b, const float *rest, const float *posed, float *rgb)
{
    size_t n = b->vertex_count;
    float *dev = calloc(n ? n : 1, sizeof *dev);
    if (!dev) {
        for (size_t v = 0; v < 3 * n; v++)
            rgb[v] = 0.7f;
        return;
    }
    for (size_t t = 0; t < b->triangle_count; t++)
        for (int k = 0; k < 3; k++) {
            uint32_t a = b->triangles[3 * t + k], c = b->triangles[3 * t + (k + 1) % 3];
            double rx = rest[3 * a] - rest[3 * c], ry = rest[3 * a + 1] - rest[3 * c + 1],
                   rz = rest[3 * a + 2] - rest[3 * c + 2];
            double px = posed[3 * a] - posed[3 * c], py = posed[3 * a + 1] - posed[3 * c + 1],
                   pz = posed[3 * a + 2] - posed[3 * c + 2];
            double r0 = sqrt(rx * rx + ry * ry + rz * rz), r1 = sqrt(px * px + py * py + pz * pz);
            if (r0 <= 1e-9)
                continue;
            double ratio = r1 / r0;
            /* 0 at 1, 1 at the limits */
            float d = (float)(ratio < 1 ? (1 - ratio) / 0.5 : (ratio - 1) / 0.6);
            if (d > dev[a])
                dev[a] = d;
            if (d > dev[c])
                dev[c] = d;
        }
    for (size_t v = 0; v < n; v++) {
        float t = dev[v] > 1 ? 1 : dev[v];
        rgb[3 * v] = 0.72f + t * (0.92f - 0.72f);
        rgb[3 * v + 1] = 0.72f - t * 0.6f;
        rgb[3 * v + 2] = 0.74f - t * 0.62f;
    }
    free(dev);
}

static int flag_rank(am_flag f) { return f == AM_FLAG_NA ? -1 : (int)f; }

am_status am_quality_render_closeup(const am_bench *b, const am_quality_report *r, const am_quality_pose *poses,
                                    size_t pose_count, size_t rank, am_image *img, bool *found, am_string *joint,
                                    am_error *err)
{
    return am_quality_render_closeup_threads(b, r, poses, pose_count, rank, 0, img, found, joint, err);
}

am_status am_quality_render_closeup_threads(const am_bench *b, const am_quality_report *r,
                                            const am_quality_pose *poses, size_t pose_count, size_t rank,
                                            int threads, am_image *img, bool *found, am_string *joint,
                                            am_error *err)
{
    *found = false;
    memset(img, 0, sizeof *img);
    if (!poses)
        poses = am_quality_standard_poses(&pose_count);
    /* the band poses, worst first: by flag, then by the worst band ratio */
    size_t order[64], n = 0;
    for (size_t i = 0; i < r->pose_count && i < pose_count && n < 64; i++)
        if (r->poses[i].measured && r->poses[i].band.measured)
            order[n++] = i;
    for (size_t i = 1; i < n; i++)
        for (size_t k = i; k > 0; k--) {
            const am_quality_band *x = &r->poses[order[k]].band, *y = &r->poses[order[k - 1]].band;
            bool before = flag_rank(x->flag) > flag_rank(y->flag) ||
                          (flag_rank(x->flag) == flag_rank(y->flag) && x->worst < y->worst);
            if (!before)
                break;
            size_t t = order[k];
            order[k] = order[k - 1];
            order[k - 1] = t;
        }
    if (rank >= n)
        return AM_OK;
    size_t pi = order[rank];
    float *rgb = malloc(3 * (b->vertex_count ? b->vertex_count : 1) * sizeof *rgb);
    if (!rgb)
        return am_fail_nomem(err, "close-up");
    posed_set ps;
    am_status s = pose_all(b, r, poses, pose_count, (long)pi, threads, &ps, err);
    if (s) {
        free(rgb);
        return s;
    }
    const am_quality_band *band = &r->poses[pi].band;
    int J = am_skeleton_find(b->skel, am_str(&band->joint)), P = am_skeleton_find(b->skel, am_str(&band->parent));
    am_vec3 jp = ps.joints[1][J];
    double reach = J >= 0 && P >= 0 ? am_v3_dist(ps.joints[0][J], ps.joints[0][P]) : 0.2;
    reach = fmax(reach, 4 * band->radius_m);
    am_vec3 lo = am_v3_sub(jp, am_v3(reach, reach, reach)), hi = am_v3_add(jp, am_v3(reach, reach, reach));
    strain_colours(b, ps.prim[0], ps.prim[1], rgb);
    char label[2][96];
    snprintf(label[0], sizeof label[0], "%s front", am_str(&band->joint));
    snprintf(label[1], sizeof label[1], "%s side", am_str(&band->joint));
    am_render_cell fr[2];
    for (int k = 0; k < 2; k++)
        fr[k] = (am_render_cell){ps.prim[1], ps.joints[1], label[k], k ? AM_VIEW_SIDE : AM_VIEW_FRONT, rgb, true, lo, hi};
    am_render_options opt;
    am_render_options_init(&opt);
    opt.frame_width = 360;
    opt.frame_height = 400;
    opt.threads = threads;
    char title[200];
    snprintf(title, sizeof title, "%s: band %.2f..%.2f (%s), red = strain at the 0.5/1.6 limits",
             am_str(&r->poses[pi].name), band->worst, band->best, am_flag_name(band->flag));
    s = am_render_sheet(b, fr, 2, 2, &opt, title, img, err);
    if (!s && joint && !am_string_copy(joint, &band->joint))
        s = am_fail_nomem(err, "close-up");
    if (!s)
        *found = true;
    else
        am_image_free(img);
    free_posed(&ps);
    free(rgb);
    return s;
}
