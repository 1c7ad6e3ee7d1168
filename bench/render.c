/* Software rasteriser for bench renders (render.h): orthographic, depth-buffered,
 * Lambert or flat shading, vertex/texture/base colour, joints and bones drawn on top. */
#include "bench/render.h"

#include <float.h>
#include <math.h>
#include <meshoptimizer.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define HEADER_H 28
#define LABEL_H 30
#define FOOTER_H 30
#define MARGIN 14

static const uint8_t INK[3] = {28, 32, 40};
static const uint8_t SOFT_INK[3] = {84, 92, 108};

bool am_view_parse(const char *s, am_view *out)
{
    if (strcmp(s, "front") == 0)
        *out = AM_VIEW_FRONT;
    else if (strcmp(s, "side") == 0)
        *out = AM_VIEW_SIDE;
    else if (strcmp(s, "top") == 0)
        *out = AM_VIEW_TOP;
    else
        return false;
    return true;
}

const char *am_view_name(am_view v)
{
    switch (v) {
    case AM_VIEW_FRONT: return "front";
    case AM_VIEW_SIDE: return "side";
    default: return "top";
    }
}

static const char *view_axes(am_view v)
{
    switch (v) {
    case AM_VIEW_FRONT: return "seen from +X: +Y right, +Z up";
    case AM_VIEW_SIDE: return "seen from -Y: +X right, +Z up";
    default: return "seen from +Z: -Y right, +X up";
    }
}

am_render_options am_render_defaults(void)
{
    am_render_options o;
    memset(&o, 0, sizeof o);
    o.view = AM_VIEW_SIDE;
    o.frame_width = 360;
    o.frame_height = 400;
    o.draw_joints = true;
    return o;
}

/* (u right, v up, d toward the camera): proper rotations of the avatar axes. */
static am_vec3 to_view(am_view view, am_vec3 p)
{
    switch (view) {
    case AM_VIEW_FRONT: return am_v3(p.y, p.z, p.x);
    case AM_VIEW_SIDE: return am_v3(p.x, p.z, -p.y);
    default: return am_v3(-p.y, p.x, p.z);
    }
}

typedef struct proj {
    am_view view;
    double scale;          /* pixels per metre */
    double uc, vc;         /* view-space centre */
    double cx, cy;         /* its pixel position */
} proj;

static void project(const proj *pr, am_vec3 p, double *x, double *y, double *d)
{
    am_vec3 q = to_view(pr->view, p);
    *x = pr->cx + (q.x - pr->uc) * pr->scale;
    *y = pr->cy - (q.y - pr->vc) * pr->scale;
    *d = q.z;
}

typedef struct bounds {
    double u0, u1, v0, v1;
} bounds;

static void grow(bounds *bd, am_view view, am_vec3 p)
{
    am_vec3 q = to_view(view, p);
    if (!(fabs(q.x) < 1e5 && fabs(q.y) < 1e5))
        return; /* a broken pose (non-finite or far away) does not set the framing */
    bd->u0 = fmin(bd->u0, q.x);
    bd->u1 = fmax(bd->u1, q.x);
    bd->v0 = fmin(bd->v0, q.y);
    bd->v1 = fmax(bd->v1, q.y);
}

/* Fit the bounds into a viewport of w x h pixels centred at (cx, cy). */
static proj fit(am_view view, bounds bd, int w, int h, double cx, double cy)
{
    proj pr = {.view = view, .cx = cx, .cy = cy};
    double du = fmax(bd.u1 - bd.u0, 1e-3), dv = fmax(bd.v1 - bd.v0, 1e-3);
    if (!isfinite(du) || !isfinite(dv) || !isfinite(bd.u0) || !isfinite(bd.v0)) {
        /* a broken pose: frame the prim's surroundings instead of infinity */
        bd = (bounds){-1, 1, -1, 1};
        du = dv = 2;
    }
    double aw = fmax(w - 2 * MARGIN, 8), ah = fmax(h - 2 * MARGIN, 8);
    pr.scale = fmin(aw / du, ah / dv);
    pr.uc = 0.5 * (bd.u0 + bd.u1);
    pr.vc = 0.5 * (bd.v0 + bd.v1);
    return pr;
}

static void put(am_image *img, int x, int y, const uint8_t rgb[3])
{
    if (x < 0 || y < 0 || x >= (int)img->width || y >= (int)img->height)
        return;
    uint8_t *o = img->pixels + 4 * ((size_t)y * (size_t)img->width + (size_t)x);
    o[0] = rgb[0];
    o[1] = rgb[1];
    o[2] = rgb[2];
    o[3] = 255;
}

/* Screen coordinates far outside any image (a broken pose) are not drawn: keeps every
 * double -> int conversion defined. */
static bool drawable(double x, double y) { return isfinite(x) && isfinite(y) && fabs(x) < 1e6 && fabs(y) < 1e6; }

/* Lines and dots are clipped to [clip_x0, clip_x1) horizontally and to the frame's rows
 * (clip_y0, clip_y1; a negative clip_y1 means the whole image height). */
typedef struct clip_rows {
    int y0, y1;
} clip_rows;
static const clip_rows ROWS_ALL = {0, -1};

static void put_clipped(am_image *img, int x, int y, const uint8_t rgb[3], clip_rows rows)
{
    if (y < rows.y0 || (rows.y1 >= 0 && y >= rows.y1))
        return;
    put(img, x, y, rgb);
}

static void line_rows(am_image *img, double x0, double y0, double x1, double y1, const uint8_t rgb[3], int clip_x0,
                      int clip_x1, clip_rows rows)
{
    if (!drawable(x0, y0) || !drawable(x1, y1))
        return;
    double len = fmax(fabs(x1 - x0), fabs(y1 - y0));
    int n = (int)ceil(len) + 1;
    if (n > 20000)
        n = 20000;
    for (int i = 0; i <= n; i++) {
        double u = n ? (double)i / n : 0;
        int x = (int)floor(x0 + (x1 - x0) * u), y = (int)floor(y0 + (y1 - y0) * u);
        if (x >= clip_x0 && x < clip_x1)
            put_clipped(img, x, y, rgb, rows);
    }
}

static void line(am_image *img, double x0, double y0, double x1, double y1, const uint8_t rgb[3], int clip_x0,
                 int clip_x1)
{
    line_rows(img, x0, y0, x1, y1, rgb, clip_x0, clip_x1, ROWS_ALL);
}

static void disc(am_image *img, double cx, double cy, double r, const uint8_t rgb[3], int clip_x0, int clip_x1,
                 clip_rows rows)
{
    if (!drawable(cx, cy))
        return;
    for (int y = (int)floor(cy - r); y <= (int)ceil(cy + r); y++)
        for (int x = (int)floor(cx - r); x <= (int)ceil(cx + r); x++) {
            double dx = x + 0.5 - cx, dy = y + 0.5 - cy;
            if (dx * dx + dy * dy <= r * r && x >= clip_x0 && x < clip_x1)
                put_clipped(img, x, y, rgb, rows);
        }
}

static void background(am_image *img, int x0, int y0, int w, int h)
{
    for (int y = y0; y < y0 + h && y < (int)img->height; y++) {
        double u = h > 1 ? (double)(y - y0) / (h - 1) : 0;
        uint8_t c[3] = {(uint8_t)(238 - 34 * u), (uint8_t)(241 - 32 * u), (uint8_t)(246 - 26 * u)};
        for (int x = x0; x < x0 + w && x < (int)img->width; x++)
            put(img, x, y, c);
    }
}

typedef struct frame_in {
    const am_bench *b;
    const float *prim;
    const am_vec3 *joints;
    const am_render_options *opt;
    const char *label;
} frame_in;

static void sample_texture(const am_image *tex, float u, float v, float out[3])
{
    double fu = u - floor(u), fv = v - floor(v);
    int x = (int)(fu * tex->width), y = (int)((1.0 - fv) * tex->height); /* V up (SL) */
    if (x >= (int)tex->width)
        x = (int)tex->width - 1;
    if (y >= (int)tex->height)
        y = (int)tex->height - 1;
    if (y < 0)
        y = 0;
    const uint8_t *p = tex->pixels + 4 * ((size_t)y * (size_t)tex->width + (size_t)x);
    out[0] = p[0] / 255.0f;
    out[1] = p[1] / 255.0f;
    out[2] = p[2] / 255.0f;
}

/* Draw one mesh into the viewport [x0, x0 + w) x [y0, y0 + h) with projection pr, depth
 * tested against zbuf (w * h, shared by every part of a frame so parts hide each other). */
static am_status draw_mesh(am_image *img, float *zbuf, const frame_in *in, const proj *pr, int x0, int y0, int w,
                           int h, am_error *err)
{
    const am_bench *b = in->b;
    const am_render_options *opt = in->opt;
    size_t n = b->vertex_count;
    double *sx = malloc(3 * n * sizeof *sx);
    float *vn = opt->flat ? NULL : calloc(3 * n, sizeof *vn);
    if (!sx || (!opt->flat && !vn)) {
        free(sx);
        free(vn);
        return am_fail_nomem(err, "render buffers");
    }
    for (size_t i = 0; i < n; i++)
        project(pr, am_v3(in->prim[3 * i], in->prim[3 * i + 1], in->prim[3 * i + 2]), &sx[3 * i], &sx[3 * i + 1],
                &sx[3 * i + 2]);
    /* Posed normals in view space (area-weighted for smooth shading). */
    for (size_t t = 0; vn && t < b->triangle_count; t++) {
        const uint32_t *tri = b->triangles + 3 * t;
        am_vec3 p[3];
        for (int k = 0; k < 3; k++)
            p[k] = to_view(pr->view, am_v3(in->prim[3 * tri[k]], in->prim[3 * tri[k] + 1], in->prim[3 * tri[k] + 2]));
        am_vec3 nn = am_v3_cross(am_v3_sub(p[1], p[0]), am_v3_sub(p[2], p[0]));
        for (int k = 0; k < 3; k++) {
            vn[3 * tri[k]] += (float)nn.x;
            vn[3 * tri[k] + 1] += (float)nn.y;
            vn[3 * tri[k] + 2] += (float)nn.z;
        }
    }
    const am_vec3 light = am_v3_normalize(am_v3(-0.35, 0.55, 0.75));
    float base[3] = {opt->base_rgb[0], opt->base_rgb[1], opt->base_rgb[2]};
    if (base[0] == 0 && base[1] == 0 && base[2] == 0) {
        base[0] = 0.78f;
        base[1] = 0.60f;
        base[2] = 0.44f;
    }
    for (size_t t = 0; t < b->triangle_count; t++) {
        const uint32_t *tri = b->triangles + 3 * t;
        double X[3], Y[3], D[3];
        for (int k = 0; k < 3; k++) {
            X[k] = sx[3 * tri[k]];
            Y[k] = sx[3 * tri[k] + 1];
            D[k] = sx[3 * tri[k] + 2];
        }
        if (!drawable(X[0], Y[0]) || !drawable(X[1], Y[1]) || !drawable(X[2], Y[2]) || !isfinite(D[0]) ||
            !isfinite(D[1]) || !isfinite(D[2]))
            continue;
        double area = (X[1] - X[0]) * (Y[2] - Y[0]) - (X[2] - X[0]) * (Y[1] - Y[0]);
        if (fabs(area) < 1e-12)
            continue;
        am_vec3 fnorm = am_v3(0, 0, 1);
        if (opt->flat) {
            am_vec3 p[3];
            for (int k = 0; k < 3; k++)
                p[k] = to_view(pr->view,
                               am_v3(in->prim[3 * tri[k]], in->prim[3 * tri[k] + 1], in->prim[3 * tri[k] + 2]));
            fnorm = am_v3_normalize(am_v3_cross(am_v3_sub(p[1], p[0]), am_v3_sub(p[2], p[0])));
        }
        int bx0 = (int)floor(fmin(X[0], fmin(X[1], X[2]))), bx1 = (int)ceil(fmax(X[0], fmax(X[1], X[2])));
        int by0 = (int)floor(fmin(Y[0], fmin(Y[1], Y[2]))), by1 = (int)ceil(fmax(Y[0], fmax(Y[1], Y[2])));
        if (bx0 < x0)
            bx0 = x0;
        if (by0 < y0)
            by0 = y0;
        if (bx1 > x0 + w - 1)
            bx1 = x0 + w - 1;
        if (by1 > y0 + h - 1)
            by1 = y0 + h - 1;
        for (int py = by0; py <= by1; py++)
            for (int px = bx0; px <= bx1; px++) {
                double qx = px + 0.5, qy = py + 0.5;
                double w0 = ((X[1] - qx) * (Y[2] - qy) - (X[2] - qx) * (Y[1] - qy)) / area;
                double w1 = ((X[2] - qx) * (Y[0] - qy) - (X[0] - qx) * (Y[2] - qy)) / area;
                double w2 = 1.0 - w0 - w1;
                if (w0 < -1e-9 || w1 < -1e-9 || w2 < -1e-9)
                    continue;
                double depth = w0 * D[0] + w1 * D[1] + w2 * D[2];
                float *z = &zbuf[(size_t)(py - y0) * (size_t)w + (size_t)(px - x0)];
                if (depth <= *z)
                    continue;
                *z = (float)depth;
                double ww[3] = {w0, w1, w2};
                am_vec3 nrm = fnorm;
                if (vn) {
                    nrm = am_v3(0, 0, 0);
                    for (int k = 0; k < 3; k++)
                        nrm = am_v3_add(nrm, am_v3_scale(am_v3(vn[3 * tri[k]], vn[3 * tri[k] + 1], vn[3 * tri[k] + 2]),
                                                         ww[k]));
                    nrm = am_v3_normalize(nrm);
                }
                if (nrm.z < 0) /* two-sided: light the face we see */
                    nrm = am_v3_scale(nrm, -1);
                double lit = 0.32 + 0.68 * fmax(0.0, am_v3_dot(nrm, light));
                float col[3] = {base[0], base[1], base[2]};
                if (opt->texture && b->uv) {
                    float u = 0, v = 0;
                    for (int k = 0; k < 3; k++) {
                        u += (float)ww[k] * b->uv[2 * tri[k]];
                        v += (float)ww[k] * b->uv[2 * tri[k] + 1];
                    }
                    sample_texture(opt->texture, u, v, col);
                } else if (opt->vertex_rgb) {
                    for (int c = 0; c < 3; c++)
                        col[c] = (float)(ww[0] * opt->vertex_rgb[3 * tri[0] + c] + ww[1] * opt->vertex_rgb[3 * tri[1] + c] +
                                         ww[2] * opt->vertex_rgb[3 * tri[2] + c]);
                }
                uint8_t rgb[3];
                for (int c = 0; c < 3; c++) {
                    double v = col[c] * lit * 255.0;
                    rgb[c] = (uint8_t)(v < 0 ? 0 : v > 255 ? 255 : v);
                }
                put(img, px, py, rgb);
            }
    }
    free(sx);
    free(vn);
    return AM_OK;
}

/* The skeleton joints that carry skin weight in b (skel->joint_count flags). Only these are
 * drawn: a skin also lists unweighted joints (and the viewer ancestors it adds), often moved
 * far from the mesh by their overrides, and they would bury the creature in dots. */
static void weighted_joints(const am_bench *b, bool *weighted)
{
    for (size_t v = 0; v < b->vertex_count; v++)
        for (int k = 0; k < b->influences[v]; k++) {
            unsigned sj = b->joints[4 * v + k];
            if (sj < b->skin_joint_count && b->skin_joint_known[sj] && b->weights[4 * v + k] > 0)
                weighted[b->skin_joint[sj]] = true;
        }
}

/* Over the meshes of a frame: the prim cross, then the weighted joints with bones to their
 * nearest drawn viewer ancestor. */
static am_status draw_overlay(am_image *img, const frame_in *in, const proj *pr, int x0, int y0, int w, int h,
                              am_error *err)
{
    const am_bench *b = in->b;
    const am_render_options *opt = in->opt;
    /* The prim position (prim frame origin): a small cross. */
    double ox, oy, od;
    project(pr, am_v3(0, 0, 0), &ox, &oy, &od);
    static const uint8_t PRIM[3] = {40, 110, 190};
    clip_rows rows = {y0, y0 + h};
    line_rows(img, ox - 6, oy, ox + 6, oy, PRIM, x0, x0 + w, rows);
    line_rows(img, ox, oy - 6, ox, oy + 6, PRIM, x0, x0 + w, rows);
    /* Joints of the skin with bones to their nearest drawn viewer ancestor, over the mesh. */
    if (opt->draw_joints && in->joints) {
        const am_skeleton *sk = b->skel;
        bool *drawn = calloc(sk->joint_count ? sk->joint_count : 1, sizeof *drawn);
        if (!drawn)
            return am_fail_nomem(err, "render joints");
        weighted_joints(b, drawn);
        {
            static const uint8_t BONE[3] = {150, 30, 40}, DOT[3] = {225, 40, 40}, RIM[3] = {60, 10, 10};
            for (size_t j = 0; j < sk->joint_count; j++) {
                if (!drawn[j])
                    continue;
                int p = sk->joints[j].parent;
                while (p >= 0 && !drawn[p])
                    p = sk->joints[p].parent;
                if (p < 0)
                    continue;
                double ax, ay, ad, cx, cy, cd;
                project(pr, in->joints[j], &ax, &ay, &ad);
                project(pr, in->joints[p], &cx, &cy, &cd);
                line_rows(img, ax, ay, cx, cy, BONE, x0, x0 + w, rows);
            }
            for (size_t j = 0; j < sk->joint_count; j++) {
                if (!drawn[j])
                    continue;
                double ax, ay, ad;
                project(pr, in->joints[j], &ax, &ay, &ad);
                disc(img, ax, ay, 4.0, RIM, x0, x0 + w, rows);
                disc(img, ax, ay, 2.8, DOT, x0, x0 + w, rows);
                if (opt->label_joints && drawable(ax, ay) && ay > y0 + LABEL_H && ay < y0 + h - FOOTER_H) {
                    const char *nm = sk->joints[j].name;
                    if (nm[0] == 'm' && nm[1] >= 'A' && nm[1] <= 'Z')
                        nm++; /* "ElbowLeft" reads better than "mElbowLeft" */
                    int tx = (int)ax + 6;
                    if (tx + am_text_width(nm, 1) > x0 + w - 2)
                        tx = (int)ax - 6 - am_text_width(nm, 1);
                    am_draw_text(img, tx, (int)ay - 3, nm, 1, RIM);
                }
            }
            free(drawn);
        }
    }
    return AM_OK;
}

/* A cell cannot show more triangles than it has pixels: above AM_RENDER_TRIS_PER_PIXEL a
 * triangle of the cell's whole-body framing is smaller than a pixel, and rasterising all
 * of them is most of a big mesh's report (the 450k creature's 901,404 triangles into every
 * 230 x 300 cell of the pose sheet). Such a cell draws a copy of the bench whose triangles
 * meshoptimizer's sloppy simplifier cut to that budget: indices into the same vertices, so
 * every posed position still applies. A focus box smaller than the mesh zooms in: the
 * budget grows with the square of the zoom (a close-up keeps the whole mesh). */
#define AM_RENDER_TRIS_PER_PIXEL 2

typedef struct cell_mesh {
    am_bench lite;      /* *b with the decimated triangles */
    uint32_t *owned;    /* those triangles, or NULL: lite is *b */
} cell_mesh;

static am_status cell_mesh_make(const am_bench *b, int fw, int fh, double zoom, cell_mesh *cm, am_error *err)
{
    cm->lite = *b;
    cm->owned = NULL;
    if (!(zoom >= 1))
        zoom = 1;
    double want = (double)AM_RENDER_TRIS_PER_PIXEL * fw * fh * zoom * zoom;
    if (want >= (double)b->triangle_count)
        return AM_OK;
    size_t budget = (size_t)want;
    if (b->triangle_count <= budget || !b->bind_pos)
        return AM_OK;
    cm->owned = malloc(3 * b->triangle_count * sizeof *cm->owned);
    if (!cm->owned)
        return am_fail_nomem(err, "render: decimated triangles");
    size_t n = meshopt_simplifySloppy(cm->owned, b->triangles, 3 * b->triangle_count, b->bind_pos, b->vertex_count,
                                      3 * sizeof(float), 3 * budget, FLT_MAX, NULL);
    if (n == 0) { /* nothing left (a degenerate mesh): draw it whole */
        free(cm->owned);
        cm->owned = NULL;
        return AM_OK;
    }
    cm->lite.triangles = cm->owned;
    cm->lite.triangle_count = n / 3;
    return AM_OK;
}

static void cell_mesh_free(cell_mesh *cm)
{
    free(cm->owned);
    cm->owned = NULL;
}

static float *new_zbuf(int w, int h, am_error *err)
{
    float *z = malloc((size_t)w * (size_t)h * sizeof *z);
    if (!z) {
        am_fail_nomem(err, "render depth buffer");
        return NULL;
    }
    for (size_t i = 0; i < (size_t)w * (size_t)h; i++)
        z[i] = -INFINITY;
    return z;
}

/* One bench's frame: mesh, then overlay. */
static am_status draw_frame(am_image *img, const frame_in *in, const proj *pr, int x0, int y0, int w, int h,
                            am_error *err)
{
    float *zbuf = new_zbuf(w, h, err);
    if (!zbuf)
        return AM_ERR_NOMEM;
    am_status s = draw_mesh(img, zbuf, in, pr, x0, y0, w, h, err);
    free(zbuf);
    return s ? s : draw_overlay(img, in, pr, x0, y0, w, h, err);
}

/* Frame chrome: label on top, scale bar at the bottom, a separator on the right. */
static void frame_chrome(am_image *img, const char *label, const proj *pr, int x0, int y0, int w, int h)
{
    int scale = am_text_width(label, 2) + 8 <= w ? 2 : 1;
    int tw = am_text_width(label, scale);
    am_draw_text(img, x0 + (w - tw) / 2, y0 + (scale == 2 ? 8 : 11), label, scale, INK);
    static const double steps[] = {0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 20, 50, 100};
    double len = steps[0];
    for (size_t i = 0; i < sizeof steps / sizeof steps[0]; i++)
        if (steps[i] * pr->scale <= w * 0.4)
            len = steps[i];
    double pxd = len * pr->scale;
    int px = isfinite(pxd) && pxd < w ? (int)lround(pxd) : w / 2;
    int by = y0 + h - 12;
    for (int t = 0; t < 3; t++)
        line(img, x0 + MARGIN, by + t - 1, x0 + MARGIN + px, by + t - 1, INK, x0, x0 + w);
    line(img, x0 + MARGIN, by - 5, x0 + MARGIN, by + 4, INK, x0, x0 + w);
    line(img, x0 + MARGIN + px, by - 5, x0 + MARGIN + px, by + 4, INK, x0, x0 + w);
    char txt[32];
    if (len >= 1)
        snprintf(txt, sizeof txt, "%g m", len);
    else
        snprintf(txt, sizeof txt, "%g cm", len * 100);
    am_draw_text(img, x0 + MARGIN + px + 8, by - 6, txt, 1, INK);
    line(img, x0 + w - 1, y0, x0 + w - 1, y0 + h, SOFT_INK, x0, x0 + w);
}

/* opt NULL: each frame has its own view (a sheet): the header names them all. */
static void header(am_image *img, const char *source, const char *what, const am_render_options *opt)
{
    for (int y = 0; y < HEADER_H; y++)
        for (int x = 0; x < (int)img->width; x++)
            put(img, x, y, (const uint8_t[3]){52, 58, 72});
    static const uint8_t TXT[3] = {236, 240, 246};
    char l1[300], l2[200], one[520];
    snprintf(l1, sizeof l1, "%s  %s", source, what);
    if (opt)
        snprintf(l2, sizeof l2, "%s view (%s), prim frame, + = prim", am_view_name(opt->view), view_axes(opt->view));
    else
        snprintf(l2, sizeof l2, "front %s / side %s / prim frame, + = prim", view_axes(AM_VIEW_FRONT),
                 view_axes(AM_VIEW_SIDE));
    snprintf(one, sizeof one, "%s  %s", l1, l2);
    if (am_text_width(one, 2) + 16 <= (int)img->width) {
        am_draw_text(img, 8, (HEADER_H - 14) / 2, one, 2, TXT);
        return;
    }
    /* Narrow: two lines at scale 1, the frame note moved to the shorter first line so the
     * view's axes stay readable; each line cut to the width. */
    snprintf(l1, sizeof l1, "%s  %s, prim frame", source, what);
    if (opt)
        snprintf(l2, sizeof l2, "%s view (%s), + = prim", am_view_name(opt->view), view_axes(opt->view));
    else
        snprintf(l2, sizeof l2, "front %s / side %s / + = prim", view_axes(AM_VIEW_FRONT), view_axes(AM_VIEW_SIDE));
    size_t maxc = (size_t)(((int)img->width - 16) / 6);
    if (strlen(l1) > maxc && maxc < sizeof l1)
        l1[maxc] = '\0';
    if (strlen(l2) > maxc && maxc < sizeof l2)
        l2[maxc] = '\0';
    am_draw_text(img, 8, 4, l1, 1, TXT);
    am_draw_text(img, 8, 16, l2, 1, TXT);
}

static void options_or_default(const am_render_options *in, am_render_options *o)
{
    *o = in ? *in : am_render_defaults();
    if (o->frame_width <= 0)
        o->frame_width = 360;
    if (o->frame_height <= 0)
        o->frame_height = 400;
}

void am_render_even_times(double duration, size_t n, double *times)
{
    for (size_t i = 0; i < n; i++)
        times[i] = n > 1 ? duration * (double)i / (double)(n - 1) : 0.0;
}

/* The framing holds the mesh (and the prim), never the joints: a skin's unweighted joints
 * and their overrides may sit metres from the mesh and would shrink the creature to a dot. */
static void bounds_of(const am_bench *b, const float *prim, am_view view, bounds *bd)
{
    for (size_t i = 0; i < b->vertex_count; i++)
        grow(bd, view, am_v3(prim[3 * i], prim[3 * i + 1], prim[3 * i + 2]));
    grow(bd, view, am_v3(0, 0, 0)); /* keep the prim in view */
}

static void box_bounds(am_vec3 lo, am_vec3 hi, am_view view, bounds *bd)
{
    for (int k = 0; k < 8; k++) /* the eight corners */
        grow(bd, view, am_v3(k & 1 ? hi.x : lo.x, k & 2 ? hi.y : lo.y, k & 4 ? hi.z : lo.z));
}

void am_render_palette(size_t i, float rgb[3])
{
    /* the first is the single-part default; the rest differ in hue, not just brightness, so
     * a part stays recognisable under any shading */
    static const float P[][3] = {{0.78f, 0.60f, 0.44f}, {0.40f, 0.58f, 0.84f}, {0.48f, 0.76f, 0.40f},
                                 {0.70f, 0.46f, 0.80f}, {0.30f, 0.74f, 0.72f}, {0.88f, 0.76f, 0.30f},
                                 {0.86f, 0.50f, 0.62f}, {0.56f, 0.56f, 0.30f}};
    const float *c = P[i % (sizeof P / sizeof P[0])];
    rgb[0] = c[0];
    rgb[1] = c[1];
    rgb[2] = c[2];
}

am_status am_render_posed_box(const am_render_part *parts, size_t np, const double *times, size_t n,
                              am_vec3 *lo, am_vec3 *hi, am_error *err)
{
    *lo = am_v3(INFINITY, INFINITY, INFINITY);
    *hi = am_v3(-INFINITY, -INFINITY, -INFINITY);
    am_status s = AM_OK;
    for (size_t p = 0; p < np && !s; p++) {
        const am_bench *b = parts[p].bench;
        float *pos = malloc((3 * b->vertex_count + 1) * sizeof *pos);
        if (!pos)
            return am_fail_nomem(err, "render box");
        for (size_t f = 0; f < n && !s; f++) {
            s = am_bench_pose_at(b, parts[p].motion, times[f], pos, NULL, err);
            for (size_t i = 0; !s && i < b->vertex_count; i++) {
                am_vec3 v = am_v3(pos[3 * i], pos[3 * i + 1], pos[3 * i + 2]);
                if (!(fabs(v.x) < 1e5 && fabs(v.y) < 1e5 && fabs(v.z) < 1e5))
                    continue; /* a broken pose does not set the framing (as grow) */
                *lo = am_v3(fmin(lo->x, v.x), fmin(lo->y, v.y), fmin(lo->z, v.z));
                *hi = am_v3(fmax(hi->x, v.x), fmax(hi->y, v.y), fmax(hi->z, v.z));
            }
        }
        free(pos);
    }
    return s;
}

am_status am_render_strip(const am_bench *b, int motion, const double *times, size_t n,
                          const am_render_options *opt_in, am_image *out, am_error *err)
{
    am_render_part part = {b, motion, {0, 0, 0}};
    if (opt_in)
        memcpy(part.base_rgb, opt_in->base_rgb, sizeof part.base_rgb);
    return am_render_strip_parts(&part, 1, times, n, opt_in, NULL, out, err);
}

am_status am_render_strip_parts(const am_render_part *parts, size_t np, const double *times, size_t n,
                                const am_render_options *opt_in, const char *title, am_image *out, am_error *err)
{
    memset(out, 0, sizeof *out);
    if (n == 0 || n > 256)
        return am_fail(err, AM_ERR_USAGE, "render: %zu frames (1..256)", n);
    if (np == 0)
        return am_fail(err, AM_ERR_USAGE, "render: no part to draw");
    am_render_options opt;
    options_or_default(opt_in, &opt);
    const am_bench *b0 = parts[0].bench;
    /* One posed mesh at a time: pose every frame once for the framing (joints kept, they are
     * small), then again while drawing, so memory does not grow with the frame count. */
    size_t nv = 0, nj = b0->skel->joint_count;
    for (size_t p = 0; p < np; p++)
        nv = parts[p].bench->vertex_count > nv ? parts[p].bench->vertex_count : nv;
    float *pos = malloc((3 * nv + 1) * sizeof *pos);
    am_vec3 *jp = malloc((n * np * nj + 1) * sizeof *jp);
    float *zbuf = NULL;
    cell_mesh *lite = NULL;
    am_status s = AM_OK;
    if (!pos || !jp) {
        s = am_fail_nomem(err, "render frames");
        goto done;
    }
    bounds bd = {INFINITY, -INFINITY, INFINITY, -INFINITY};
    if (opt.focus)
        box_bounds(opt.focus_min, opt.focus_max, opt.view, &bd);
    for (size_t f = 0; f < n && !s; f++)
        for (size_t p = 0; p < np && !s; p++) {
            s = am_bench_pose_at(parts[p].bench, parts[p].motion, times[f], pos, jp + (f * np + p) * nj, err);
            if (!s && !opt.focus)
                bounds_of(parts[p].bench, pos, opt.view, &bd);
        }
    if (s)
        goto done;
    int fw = opt.frame_width, fh = opt.frame_height;
    s = am_image_alloc(out, fw * (int)n, HEADER_H + fh, err);
    if (s)
        goto done;
    int inner_h = fh - LABEL_H - FOOTER_H;
    proj pr = fit(opt.view, bd, fw, inner_h, 0, 0);
    const char *what = "rest";
    char mname[300];
    int motion = parts[0].motion;
    if (motion >= 0) {
        am_bench_motion_info info;
        if (!am_bench_motion_get_info(b0, (size_t)motion, &info, NULL)) {
            snprintf(mname, sizeof mname, "%s (%.2fs%s)", info.source, info.duration, info.loop ? ", loop" : "");
            what = mname;
        }
    }
    header(out, title ? title : b0->source, what, &opt);
    if (!(zbuf = new_zbuf(fw, fh, err))) {
        s = AM_ERR_NOMEM;
        goto done;
    }
    if (!(lite = calloc(np, sizeof *lite))) {
        s = am_fail_nomem(err, "render frames");
        goto done;
    }
    for (size_t q = 0; q < np && !s; q++) {
        lite[q].lite = *parts[q].bench;
        const am_bench *pb = parts[q].bench;
        double box = fmax(opt.focus_max.x - opt.focus_min.x,
                          fmax(opt.focus_max.y - opt.focus_min.y, opt.focus_max.z - opt.focus_min.z));
        double mesh = fmax(pb->bind_max.x - pb->bind_min.x,
                           fmax(pb->bind_max.y - pb->bind_min.y, pb->bind_max.z - pb->bind_min.z));
        s = cell_mesh_make(pb, fw, fh, opt.focus && box > 0 ? mesh / box : 1, &lite[q], err);
    }
    for (size_t f = 0; f < n && !s; f++) {
        int x0 = (int)f * fw, y0 = HEADER_H;
        background(out, x0, y0, fw, fh);
        proj p = pr;
        p.cx = x0 + fw / 2.0;
        p.cy = y0 + LABEL_H + inner_h / 2.0;
        char label[48];
        snprintf(label, sizeof label, motion >= 0 ? "t=%.2fs" : "rest", times[f]);
        for (size_t i = 0; i < (size_t)fw * (size_t)fh; i++)
            zbuf[i] = -INFINITY;
        /* every part into one depth buffer, then every overlay on top of all the meshes */
        for (int pass = 0; pass < 2 && !s; pass++)
            for (size_t q = 0; q < np && !s; q++) {
                am_render_options po = opt;
                memcpy(po.base_rgb, parts[q].base_rgb, sizeof po.base_rgb);
                frame_in in = {&lite[q].lite, pos, jp + (f * np + q) * nj, &po, label};
                if (pass == 0 && !(s = am_bench_pose_at(parts[q].bench, parts[q].motion, times[f], pos, NULL, err)))
                    s = draw_mesh(out, zbuf, &in, &p, x0, y0, fw, fh, err);
                else if (pass == 1)
                    s = draw_overlay(out, &in, &p, x0, y0, fw, fh, err);
            }
        frame_chrome(out, label, &p, x0, y0, fw, fh);
    }
    if (s)
        am_image_free(out);
done:
    for (size_t q = 0; lite && q < np; q++)
        cell_mesh_free(&lite[q]);
    free(lite);
    free(zbuf);
    free(pos);
    free(jp);
    return s;
}

am_status am_render_strip_png(const am_bench *b, int motion, const double *times, size_t n,
                              const am_render_options *opt, const char *path, am_error *err)
{
    am_image img;
    am_status s = am_render_strip(b, motion, times, n, opt, &img, err);
    if (s)
        return s;
    s = am_png_write(path, &img, err);
    am_image_free(&img);
    return s;
}

am_status am_render_frame(const am_bench *b, const float *prim, const am_vec3 *joints, const am_render_options *opt_in,
                          const char *label, am_image *img, am_error *err)
{
    am_render_options opt;
    options_or_default(opt_in, &opt);
    bounds bd = {INFINITY, -INFINITY, INFINITY, -INFINITY};
    if (opt.focus)
        box_bounds(opt.focus_min, opt.focus_max, opt.view, &bd);
    else
        bounds_of(b, prim, opt.view, &bd);
    int fw = opt.frame_width, fh = opt.frame_height;
    am_status s = am_image_alloc(img, fw, HEADER_H + fh, err);
    if (s)
        return s;
    int inner_h = fh - LABEL_H - FOOTER_H;
    proj pr = fit(opt.view, bd, fw, inner_h, fw / 2.0, HEADER_H + LABEL_H + inner_h / 2.0);
    header(img, b->source, label ? label : "", &opt);
    background(img, 0, HEADER_H, fw, fh);
    frame_in in = {b, prim, joints, &opt, label ? label : ""};
    s = draw_frame(img, &in, &pr, 0, HEADER_H, fw, fh, err);
    if (s)
        am_image_free(img);
    else
        frame_chrome(img, label ? label : "", &pr, 0, HEADER_H, fw, fh);
    return s;
}

am_status am_render_png(const am_bench *b, const float *prim, const am_vec3 *joints, const am_render_options *opt,
                        const char *label, const char *path, am_error *err)
{
    am_image img;
    am_status s = am_render_frame(b, prim, joints, opt, label, &img, err);
    if (s)
        return s;
    s = am_png_write(path, &img, err);
    am_image_free(&img);
    return s;
}

am_status am_render_sheet(const am_bench *b, const am_render_cell *frames, size_t n, int columns,
                          const am_render_options *opt_in, const char *title, am_image *out, am_error *err)
{
    memset(out, 0, sizeof *out);
    if (n == 0 || n > 256)
        return am_fail(err, AM_ERR_USAGE, "render: %zu frames (1..256)", n);
    am_render_options opt;
    options_or_default(opt_in, &opt);
    int cols = columns < 1 ? 1 : columns > (int)n ? (int)n : columns;
    int rows = (int)((n + (size_t)cols - 1) / (size_t)cols);
    int fw = opt.frame_width, fh = opt.frame_height;
    am_status s = am_image_alloc(out, fw * cols, HEADER_H + fh * rows, err);
    if (s)
        return s;
    header(out, b->source, title ? title : "", NULL);
    int inner_h = fh - LABEL_H - FOOTER_H;
    bool any_whole_body = false;
    for (size_t f = 0; f < n; f++)
        any_whole_body |= !frames[f].focus;
    cell_mesh whole = {*b, NULL}, lite = whole;
    if (any_whole_body && (s = cell_mesh_make(b, fw, fh, 1, &lite, err))) {
        am_image_free(out);
        return s;
    }
    for (size_t f = 0; f < n && !s; f++) {
        const am_render_cell *fr = &frames[f];
        const am_bench *drawn = fr->focus ? &whole.lite : &lite.lite;
        am_render_options o = opt;
        o.view = fr->view;
        if (fr->vertex_rgb)
            o.vertex_rgb = fr->vertex_rgb;
        int x0 = (int)(f % (size_t)cols) * fw, y0 = HEADER_H + (int)(f / (size_t)cols) * fh;
        background(out, x0, y0, fw, fh);
        bounds bd = {INFINITY, -INFINITY, INFINITY, -INFINITY};
        if (fr->focus) {
            box_bounds(fr->focus_min, fr->focus_max, o.view, &bd);
        } else {
            bounds_of(b, fr->prim, o.view, &bd);
        }
        proj pr = fit(o.view, bd, fw, inner_h, x0 + fw / 2.0, y0 + LABEL_H + inner_h / 2.0);
        const char *label = fr->label ? fr->label : "";
        frame_in in = {drawn, fr->prim, fr->joints, &o, label};
        s = draw_frame(out, &in, &pr, x0, y0, fw, fh, err);
        /* the label band stays readable over a zoomed mesh */
        for (int y = y0; y < y0 + LABEL_H - 2; y++)
            for (int x = x0; x < x0 + fw - 1; x++)
                put(out, x, y, (const uint8_t[3]){238, 241, 246});
        frame_chrome(out, label, &pr, x0, y0, fw, fh);
    }
    cell_mesh_free(&lite);
    if (s)
        am_image_free(out);
    return s;
}
