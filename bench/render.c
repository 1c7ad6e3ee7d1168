/* Software rasteriser for bench renders (render.h): orthographic, depth-buffered, Lambert
 * (per vertex, Gouraud) or flat shading, vertex/texture/base colour, joints and bones drawn
 * on top. */
#include "bench/render.h"
#include "core/parallel.h"

#include <float.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif
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

void am_render_options_init(am_render_options *o)
{
    memset(o, 0, sizeof *o);
    o->view = AM_VIEW_SIDE;
    o->frame_width = 360;
    o->frame_height = 400;
}

bool am_render_joints_parse(const char *s, am_render_joints *out)
{
    static const char *const names[] = {"auto", "none", "dots", "names"};
    for (int k = 0; k < 4; k++)
        if (strcmp(s, names[k]) == 0) {
            *out = (am_render_joints)k;
            return true;
        }
    return false;
}

/* (u right, v up, d toward the camera): proper rotations of the avatar axes. */
static inline am_vec3 to_view(am_view view, am_vec3 p)
{
    switch (view) { /* compound literals: this runs for every vertex of every cell */
    case AM_VIEW_FRONT: return (am_vec3){p.y, p.z, p.x};
    case AM_VIEW_SIDE: return (am_vec3){p.x, p.z, -p.y};
    default: return (am_vec3){-p.y, p.x, p.z};
    }
}

/* Vertex i of a float position array as a vector. */
static inline am_vec3 vertex_at(const float *prim, size_t i)
{
    return (am_vec3){prim[3 * i], prim[3 * i + 1], prim[3 * i + 2]};
}

typedef struct proj {
    am_view view;
    double scale;          /* pixels per metre */
    double uc, vc;         /* view-space centre */
    double cx, cy;         /* its pixel position */
} proj;

static inline void project(const proj *pr, am_vec3 p, double *x, double *y, double *d)
{
    am_vec3 q = to_view(pr->view, p);
    *x = pr->cx + (q.x - pr->uc) * pr->scale;
    *y = pr->cy - (q.y - pr->vc) * pr->scale;
    *d = q.z;
}

typedef struct bounds {
    double u0, u1, v0, v1;
} bounds;

static inline void grow(bounds *bd, am_view view, am_vec3 p)
{
    am_vec3 q = to_view(view, p);
    if (!(fabs(q.x) < 1e5 && fabs(q.y) < 1e5))
        return; /* a broken pose (non-finite or far away) does not set the framing */
    /* q is finite here: plain comparisons, as fmin/fmax without their calls */
    bd->u0 = q.x < bd->u0 ? q.x : bd->u0;
    bd->u1 = q.x > bd->u1 ? q.x : bd->u1;
    bd->v0 = q.y < bd->v0 ? q.y : bd->v0;
    bd->v1 = q.y > bd->v1 ? q.y : bd->v1;
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

/* A vertical gradient: each row one colour, written as whole pixels. */
static void fill_row(am_image *img, int x0, int x1, int y, const uint8_t rgb[3])
{
    if (y < 0 || y >= (int)img->height)
        return;
    if (x0 < 0)
        x0 = 0;
    if (x1 > (int)img->width)
        x1 = (int)img->width;
    uint32_t px;
    const uint8_t rgba[4] = {rgb[0], rgb[1], rgb[2], 255};
    memcpy(&px, rgba, sizeof px);
    uint8_t *row = img->pixels + 4 * (size_t)y * img->width;
    for (int x = x0; x < x1; x++)
        memcpy(row + 4 * (size_t)x, &px, sizeof px);
}

static void background(am_image *img, int x0, int y0, int w, int h)
{
    for (int y = y0; y < y0 + h && y < (int)img->height; y++) {
        double u = h > 1 ? (double)(y - y0) / (h - 1) : 0;
        uint8_t c[3] = {(uint8_t)(238 - 34 * u), (uint8_t)(241 - 32 * u), (uint8_t)(246 - 26 * u)};
        fill_row(img, x0, x0 + w, y, c);
    }
}

typedef struct frame_in {
    const am_bench *b;
    const float *prim;
    const am_vec3 *joints;
    const am_render_options *opt;
    const char *label;
    const bool *weighted; /* the joints carrying weight (weighted_joints), or NULL: found here */
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

/* the min / max of three finite values, without a libm call per triangle */
#define MIN2(a, b) ((a) < (b) ? (a) : (b))
#define MAX2(a, b) ((a) > (b) ? (a) : (b))
#define MIN3(a, b, c) MIN2(MIN2(a, b), c)
#define MAX3(a, b, c) MAX2(MAX2(a, b), c)

/* floor and ceil of a coordinate below 1e9 in magnitude (a drawable one: |x| < 1e6) as int,
 * without a libm call */
static inline int ifloor(double x)
{
    int i = (int)x;
    return i - (x < i);
}
static inline int iceil(double x)
{
    int i = (int)x;
    return i + (x > i);
}

typedef struct tri_setup {
    double w0, w1;     /* at the first pixel centre of the row */
    double dx0, dx1;   /* per pixel to the right */
    double dy0, dy1;   /* per row down */
} tri_setup;

/* [*lo, *hi] narrowed to the pixels px (centre px + 0.5) where a + dx * (px - first) >= -eps;
 * inv_dx is 1 / dx, found once per triangle (a division per row and edge was most of a
 * small triangle's cost, so its rows tested every pixel of its box instead). */
static inline void span_cut(double a, double dx, double inv_dx, int first, int *lo, int *hi)
{
    const double eps = 1e-9;
    if (dx == 0) {
        if (a < -eps)
            *hi = *lo - 1;
        return;
    }
    double t = (-eps - a) * inv_dx; /* the pixel offset where the coordinate crosses -eps */
    if (!(t > -1e9 && t < 1e9))
        return; /* not finite, or so far off that the exact test below decides alone */
    if (dx > 0) {
        int c = iceil(t) - 1; /* one pixel of slack: the exact test below decides */
        if (c > *lo - first)
            *lo = first + c;
    } else {
        int c = ifloor(t) + 1;
        if (c < *hi - first)
            *hi = first + c;
    }
}

/* The buffers of a frame, kept by the thread that draws it (core/parallel.h's worker) from
 * one frame to the next and freed at the end: fresh ones for every cell of a sheet were
 * most of its page faults. Each grows to what the largest frame needs. */
typedef struct render_scratch {
    double *sx;       /* projected vertices, 3 each (x NaN: not drawable) */
    float *vn;        /* view normals, 3 each */
    float *lit;       /* smooth shading: each vertex's light on its front and back side */
    uint32_t *seen;   /* per vertex: `gen` once projected in this call, gen + 1 once lit */
    uint32_t gen;     /* this draw_mesh call's mark (even; 0 = none yet) */
    uint32_t *near;   /* the triangles near the viewport */
    float *zbuf;
    am_image cell;    /* a sheet's or strip's cell */
    size_t sx_cap, vn_cap, lit_cap, seen_cap, near_cap, zbuf_cap; /* elements */
} render_scratch;

static void *scratch_grow(void *p, size_t *cap, size_t need, size_t elem)
{
    if (need == 0)
        need = 1;
    if (p && *cap >= need)
        return p;
    free(p);
    *cap = 0;
    p = malloc(need * elem);
    if (p)
        *cap = need;
    return p;
}

static void scratch_free(render_scratch *rs)
{
    free(rs->sx);
    free(rs->vn);
    free(rs->lit);
    free(rs->seen);
    free(rs->near);
    free(rs->zbuf);
    am_image_free(&rs->cell);
    memset(rs, 0, sizeof *rs);
}

/* One scratch per worker of a parallel_for over n frames (*nt of them), or NULL. */
static render_scratch *scratch_pool(int threads, size_t n, int *nt)
{
    *nt = am_parallel_threads(threads, n);
    return calloc((size_t)*nt, sizeof(render_scratch));
}

static void scratch_pool_free(render_scratch *pool, int nt)
{
    for (int t = 0; pool && t < nt; t++)
        scratch_free(&pool[t]);
    free(pool);
}

/* The scratch's cell image, fw x fh (its pixels are all drawn over: background first). */
static am_status scratch_cell(render_scratch *rs, int fw, int fh, am_image **out, am_error *err)
{
    if (!rs->cell.pixels || (int)rs->cell.width != fw || (int)rs->cell.height != fh) {
        am_image_free(&rs->cell);
        if (am_image_alloc(&rs->cell, fw, fh, err))
            return AM_ERR_NOMEM;
    }
    *out = &rs->cell;
    return AM_OK;
}

/* A depth buffer of w x h, every entry -inf. */
static float *scratch_zbuf(render_scratch *rs, int w, int h, am_error *err)
{
    size_t n = (size_t)w * (size_t)h;
    rs->zbuf = scratch_grow(rs->zbuf, &rs->zbuf_cap, n, sizeof *rs->zbuf);
    if (!rs->zbuf) {
        am_fail_nomem(err, "render depth buffer");
        return NULL;
    }
    for (size_t i = 0; i < n; i++)
        rs->zbuf[i] = -INFINITY;
    return rs->zbuf;
}

/* A fresh mark for one draw_mesh call over n vertices (scratch's seen, zeroed when it was
 * just allocated or when the marks would wrap round): 0 when out of memory. */
static uint32_t scratch_marks(render_scratch *rs, size_t n)
{
    size_t had = rs->seen_cap;
    rs->seen = scratch_grow(rs->seen, &rs->seen_cap, n, sizeof *rs->seen);
    if (!rs->seen)
        return 0;
    if (rs->seen_cap != had || rs->gen >= UINT32_MAX - 3) {
        memset(rs->seen, 0, rs->seen_cap * sizeof *rs->seen);
        rs->gen = 0;
    }
    rs->gen += 2;
    return rs->gen;
}

/* A vertex's screen position and depth, or x = NaN when it cannot be drawn (a broken pose). */
static inline void project_vertex(const proj *pr, const float *prim, size_t v, double *q)
{
    project(pr, vertex_at(prim, v), &q[0], &q[1], &q[2]);
    if (!drawable(q[0], q[1]) || !isfinite(q[2]))
        q[0] = NAN;
}

/* Light on a surface of view normal n (any length, not zero), seen from its front (n toward
 * the camera) and from its back: ambient plus Lambert, the face we see lit. */
static inline void light_both_sides(double nx, double ny, double nz, am_vec3 light, float lit[2])
{
    double len = sqrt(nx * nx + ny * ny + nz * nz);
    double lambert = len > 0 ? (nx * light.x + ny * light.y + nz * light.z) / len : 0;
    lit[0] = (float)(0.32 + 0.68 * (lambert > 0 ? lambert : 0.0)); /* fmax(0, x), without its call */
    lit[1] = (float)(0.32 + 0.68 * (lambert < 0 ? -lambert : 0.0));
}

/* v clamped to 0..255 as a byte (the fraction dropped) */
static inline uint8_t to_byte(float v) { return (uint8_t)(v > 0 ? (v < 255 ? v : 255) : 0); }

/* The RGBA pixel, as its four bytes in memory order, of the colour planes p + a0 e0 + a1 e1
 * (4 lanes, the fourth alpha), each lane clamped to 0..255 as to_byte does. With SSE2 the
 * four lanes at once, the clamp being the packs' saturation. */
static inline uint32_t lit_pixel(const float p[4], const float e0[4], const float e1[4], float a0, float a1)
{
#ifdef __SSE2__
    __m128 c = _mm_add_ps(_mm_add_ps(_mm_loadu_ps(p), _mm_mul_ps(_mm_set1_ps(a0), _mm_loadu_ps(e0))),
                          _mm_mul_ps(_mm_set1_ps(a1), _mm_loadu_ps(e1))); /* to_byte's order of sums */
    __m128i i = _mm_cvttps_epi32(c); /* NaN and out of range: INT_MIN, saturated to 0 below */
    i = _mm_packs_epi32(i, i);
    i = _mm_packus_epi16(i, i);
    return (uint32_t)_mm_cvtsi128_si32(i);
#else
    uint8_t px[4];
    for (int c = 0; c < 4; c++)
        px[c] = to_byte(p[c] + a0 * e0[c] + a1 * e1[c]);
    uint32_t v;
    memcpy(&v, px, sizeof v);
    return v;
#endif
}

/* Draw one mesh into the viewport [x0, x0 + w) x [y0, y0 + h) with projection pr, depth
 * tested against zbuf (w * h, shared by every part of a frame so parts hide each other).
 * Each triangle's barycentric coordinates are linear in the pixel position: set up once per
 * triangle (relative to its own corners, so far-off coordinates keep their precision) and
 * stepped per pixel, with the span of each row cut to where all three can be inside.
 * Smooth shading lights each vertex once (its area-weighted normal, on the side of the
 * triangle the camera sees) and blends the lit colours across the triangle (Gouraud): the
 * light's square root and division per pixel were a third of a picture's drawing, and at a
 * few pixels per triangle the two look alike. A vertex is projected the first time one of
 * the call's triangles uses it: a whole-body cell drawn from a decimated mesh projects the
 * vertices its triangles keep, not the whole mesh. */
static am_status draw_mesh(am_image *img, float *zbuf, const frame_in *in, const proj *pr, int x0, int y0, int w,
                           int h, render_scratch *rs, am_error *err)
{
    const am_bench *b = in->b;
    const am_render_options *opt = in->opt;
    const bool smooth = !opt->flat, textured = opt->texture && b->uv;
    size_t n = b->vertex_count;
    rs->sx = scratch_grow(rs->sx, &rs->sx_cap, 3 * n, sizeof *rs->sx);
    if (smooth) {
        rs->vn = scratch_grow(rs->vn, &rs->vn_cap, 3 * n, sizeof *rs->vn);
        rs->lit = scratch_grow(rs->lit, &rs->lit_cap, 2 * n, sizeof *rs->lit);
    }
    rs->near = scratch_grow(rs->near, &rs->near_cap, b->triangle_count, sizeof *rs->near);
    const uint32_t gen = rs->sx && (!smooth || (rs->vn && rs->lit)) && rs->near ? scratch_marks(rs, n) : 0;
    if (!gen)
        return am_fail_nomem(err, "render buffers");
    double *sx = rs->sx;
    float *vn = smooth ? rs->vn : NULL, *lit = smooth ? rs->lit : NULL;
    uint32_t *near = rs->near, *seen = rs->seen;
    /* the viewport, inside the image */
    int vx0 = x0 < 0 ? 0 : x0, vy0 = y0 < 0 ? 0 : y0;
    int vx1 = x0 + w < (int)img->width ? x0 + w - 1 : (int)img->width - 1;
    int vy1 = y0 + h < (int)img->height ? y0 + h - 1 : (int)img->height - 1;
    /* The triangles near the viewport: a close-up's view holds a small part of the mesh.
     * The margin keeps the normals of the vertices at the viewport's edge whole (their
     * other triangles are counted too). */
    const double margin = 24;
    size_t nn = 0;
    for (size_t t = 0; t < b->triangle_count; t++) {
        const uint32_t *tri = b->triangles + 3 * t;
        for (int c = 0; c < 3; c++)
            if (seen[tri[c]] != gen) {
                seen[tri[c]] = gen;
                project_vertex(pr, in->prim, tri[c], &sx[3 * tri[c]]);
                if (vn)
                    vn[3 * tri[c]] = vn[3 * tri[c] + 1] = vn[3 * tri[c] + 2] = 0;
            }
        const double *q0 = sx + 3 * tri[0], *q1 = sx + 3 * tri[1], *q2 = sx + 3 * tri[2];
        if (isnan(q0[0]) || isnan(q1[0]) || isnan(q2[0]))
            continue;
        if (MAX3(q0[0], q1[0], q2[0]) < vx0 - margin || MIN3(q0[0], q1[0], q2[0]) > vx1 + 1 + margin ||
            MAX3(q0[1], q1[1], q2[1]) < vy0 - margin || MIN3(q0[1], q1[1], q2[1]) > vy1 + 1 + margin)
            continue;
        near[nn++] = (uint32_t)t;
    }
    const am_vec3 light = am_v3_normalize(am_v3(-0.35, 0.55, 0.75));
    /* Posed normals in view space (area-weighted for smooth shading): the screen position
     * is the view position scaled (y flipped), so the cross product of screen edges with
     * depth is the view normal, once x and y are divided by the scale. Then each vertex of
     * a near triangle is lit once. */
    double unscale = pr->scale > 0 ? 1.0 / pr->scale : 1.0;
    for (size_t k = 0; vn && k < nn; k++) {
        const uint32_t *tri = b->triangles + 3 * (size_t)near[k];
        const double *p0 = sx + 3 * tri[0], *p1 = sx + 3 * tri[1], *p2 = sx + 3 * tri[2];
        double ax = (p1[0] - p0[0]) * unscale, ay = (p0[1] - p1[1]) * unscale, az = p1[2] - p0[2];
        double bx = (p2[0] - p0[0]) * unscale, by = (p0[1] - p2[1]) * unscale, bz = p2[2] - p0[2];
        float nx = (float)(ay * bz - az * by), ny = (float)(az * bx - ax * bz), nz = (float)(ax * by - ay * bx);
        for (int c = 0; c < 3; c++) {
            vn[3 * tri[c]] += nx;
            vn[3 * tri[c] + 1] += ny;
            vn[3 * tri[c] + 2] += nz;
        }
    }
    for (size_t k = 0; lit && k < nn; k++) {
        const uint32_t *tri = b->triangles + 3 * (size_t)near[k];
        for (int c = 0; c < 3; c++)
            if (seen[tri[c]] == gen) {
                seen[tri[c]] = gen + 1;
                const float *nv = vn + 3 * tri[c];
                light_both_sides(nv[0], nv[1], nv[2], light, lit + 2 * tri[c]);
            }
    }
    float base[3] = {opt->base_rgb[0], opt->base_rgb[1], opt->base_rgb[2]};
    if (base[0] == 0 && base[1] == 0 && base[2] == 0) {
        base[0] = 0.78f;
        base[1] = 0.60f;
        base[2] = 0.44f;
    }
    for (size_t k = 0; k < nn; k++) {
        const uint32_t *tri = b->triangles + 3 * (size_t)near[k];
        const double *q0 = sx + 3 * tri[0], *q1 = sx + 3 * tri[1], *q2 = sx + 3 * tri[2];
        double X[3] = {q0[0], q1[0], q2[0]}, Y[3] = {q0[1], q1[1], q2[1]}, D[3] = {q0[2], q1[2], q2[2]};
        double fx0 = MIN3(X[0], X[1], X[2]), fx1 = MAX3(X[0], X[1], X[2]);
        double fy0 = MIN3(Y[0], Y[1], Y[2]), fy1 = MAX3(Y[0], Y[1], Y[2]);
        if (fx1 < vx0 || fx0 > vx1 + 1 || fy1 < vy0 || fy0 > vy1 + 1)
            continue; /* outside the viewport: most of a close-up's triangles */
        /* the pixels whose centre (px + 0.5) lies in the triangle's box: a triangle smaller
         * than a pixel has one or none, and most of a big mesh's are */
        int bx0 = iceil(fx0 - 0.5), bx1 = ifloor(fx1 - 0.5), by0 = iceil(fy0 - 0.5), by1 = ifloor(fy1 - 0.5);
        if (bx0 < vx0)
            bx0 = vx0;
        if (by0 < vy0)
            by0 = vy0;
        if (bx1 > vx1)
            bx1 = vx1;
        if (by1 > vy1)
            by1 = vy1;
        if (bx0 > bx1 || by0 > by1)
            continue;
        double area = (X[1] - X[0]) * (Y[2] - Y[0]) - (X[2] - X[0]) * (Y[1] - Y[0]);
        if (fabs(area) < 1e-12)
            continue;
        /* barycentrics at the first pixel centre, and their steps */
        double qx = bx0 + 0.5, qy = by0 + 0.5, inv = 1.0 / area;
        tri_setup ts = {((X[1] - qx) * (Y[2] - qy) - (X[2] - qx) * (Y[1] - qy)) * inv,
                        ((X[2] - qx) * (Y[0] - qy) - (X[0] - qx) * (Y[2] - qy)) * inv,
                        (Y[1] - Y[2]) * inv,
                        (Y[2] - Y[0]) * inv,
                        (X[2] - X[1]) * inv,
                        (X[0] - X[2]) * inv};
        /* The light at each corner, on the side the camera sees (the screen area is negative
         * where the view normal points at the camera), or the face's own when flat. */
        const int side = area < 0 ? 0 : 1;
        float L[3];
        if (lit) {
            for (int c = 0; c < 3; c++)
                L[c] = lit[2 * tri[c] + side];
        } else {
            const float *a = in->prim + 3 * tri[0], *c1 = in->prim + 3 * tri[1], *c2 = in->prim + 3 * tri[2];
            am_vec3 p0 = to_view(pr->view, am_v3(a[0], a[1], a[2]));
            am_vec3 e1 = am_v3_sub(to_view(pr->view, am_v3(c1[0], c1[1], c1[2])), p0);
            am_vec3 e2 = am_v3_sub(to_view(pr->view, am_v3(c2[0], c2[1], c2[2])), p0);
            am_vec3 f = am_v3_cross(e1, e2);
            float both[2];
            light_both_sides(f.x, f.y, f.z, light, both);
            L[0] = L[1] = L[2] = both[f.z < 0 ? 1 : 0];
        }
        /* the colour at each corner times its light (0..255), blended from corner 2 by w0
         * and w1; a texture is sampled per pixel and lit by the blended light */
        float P2[4] = {0, 0, 0, 255}, E0[4] = {0}, E1[4] = {0}; /* alpha: 255 everywhere */
        for (int ch = 0; ch < 3; ch++) {
            float col[3];
            for (int c = 0; c < 3; c++)
                col[c] = textured ? 255.0f * L[c]
                         : opt->vertex_rgb ? 255.0f * L[c] * opt->vertex_rgb[3 * tri[c] + ch]
                                           : 255.0f * L[c] * base[ch];
            P2[ch] = col[2];
            E0[ch] = col[0] - col[2];
            E1[ch] = col[1] - col[2];
        }
        double dx2 = -ts.dx0 - ts.dx1, inv_dx0 = 0, inv_dx1 = 0, inv_dx2 = 0;
        if (bx1 - bx0 > 2) { /* rows wide enough to cut (below) */
            inv_dx0 = ts.dx0 != 0 ? 1.0 / ts.dx0 : 0;
            inv_dx1 = ts.dx1 != 0 ? 1.0 / ts.dx1 : 0;
            inv_dx2 = dx2 != 0 ? 1.0 / dx2 : 0;
        }
        for (int py = by0; py <= by1; py++) {
            int row = py - by0;
            double r0 = ts.w0 + ts.dy0 * row, r1 = ts.w1 + ts.dy1 * row, r2 = 1.0 - r0 - r1;
            int lo = bx0, hi = bx1;
            if (bx1 - bx0 > 2) { /* test only the row's span (a row of 3 or fewer: every pixel) */
                span_cut(r0, ts.dx0, inv_dx0, bx0, &lo, &hi);
                span_cut(r1, ts.dx1, inv_dx1, bx0, &lo, &hi);
                span_cut(r2, dx2, inv_dx2, bx0, &lo, &hi);
            }
            float *zrow = zbuf + (size_t)(py - y0) * (size_t)w; /* from x0 */
            uint8_t *prow = img->pixels + 4 * (size_t)py * img->width;
            for (int px = lo; px <= hi; px++) {
                int col = px - bx0;
                double w0 = r0 + ts.dx0 * col, w1 = r1 + ts.dx1 * col, w2 = 1.0 - w0 - w1;
                double depth = w0 * D[0] + w1 * D[1] + w2 * D[2];
                float *z = &zrow[px - x0];
                /* inside the triangle (every coordinate above -1e-9) and nearer than what
                 * is drawn */
                const int pass = (w0 >= -1e-9) & (w1 >= -1e-9) & (w2 >= -1e-9) & (depth > *z);
                const float a0 = (float)w0, a1 = (float)w1;
                uint8_t *o = prow + 4 * (size_t)px;
                if (!textured) {
                    /* Every pixel of the span is written, the old value kept where the test
                     * fails: on triangles of a few pixels that test goes either way as
                     * often as not, and its mispredicted branch cost more than the colour. */
                    uint32_t now = lit_pixel(P2, E0, E1, a0, a1), was;
                    memcpy(&was, o, sizeof was);
                    const uint32_t keep = (uint32_t)pass - 1u; /* all ones where it fails */
                    now = (now & ~keep) | (was & keep);
                    memcpy(o, &now, sizeof now);
                    const float nearer[2] = {*z, (float)depth}; /* chosen by index, not a branch */
                    *z = nearer[pass];
                    continue;
                }
                if (!pass)
                    continue;
                *z = (float)depth;
                float u = (float)(w0 * b->uv[2 * tri[0]] + w1 * b->uv[2 * tri[1]] + w2 * b->uv[2 * tri[2]]);
                float v = (float)(w0 * b->uv[2 * tri[0] + 1] + w1 * b->uv[2 * tri[1] + 1] + w2 * b->uv[2 * tri[2] + 1]);
                float texel[3];
                sample_texture(opt->texture, u, v, texel);
                float l = P2[0] + a0 * E0[0] + a1 * E1[0];
                for (int c = 0; c < 3; c++)
                    o[c] = to_byte(texel[c] * l);
                o[3] = 255;
            }
        }
    }
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
    if (!opt->hide_joints && in->joints) {
        const am_skeleton *sk = b->skel;
        bool *drawn = calloc(sk->joint_count ? sk->joint_count : 1, sizeof *drawn);
        if (!drawn)
            return am_fail_nomem(err, "render joints");
        if (in->weighted)
            memcpy(drawn, in->weighted, sk->joint_count * sizeof *drawn);
        else
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
                /* small: a dot marks the joint without hiding the limb under it */
                disc(img, ax, ay, 2.6, RIM, x0, x0 + w, rows);
                disc(img, ax, ay, 1.7, DOT, x0, x0 + w, rows);
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

/* A whole-body cell cannot show more triangles than the pixels the mesh covers: beyond that
 * most triangles are smaller than a pixel, and rasterising all of them is most of a big
 * mesh's report (every triangle into every cell of the pose sheet). Such a cell draws a copy
 * of the bench whose triangles meshoptimizer's sloppy simplifier cut to its budget: indices
 * into the same vertices, so every posed position still applies.
 *
 * A sheet's budget counts the pixels the mesh covers, not those of its box (a humanoid with
 * its arms out covers about a sixth of its box seen from the front). They are estimated from
 * the bind-pose surface area A, without drawing: by Cauchy's formula a closed surface seen
 * from a random direction covers A / 4 on average (its front half projected, at most A / 2;
 * a limb side on A / pi), so A / 4 times the square of the cell's scale. That holds up where
 * counting pixels would need care: an open sheet covers A / 2 on average and A face on, so
 * it still gets a triangle per 2 to 4 pixels, plenty for a flat sheet; a shell doubled
 * inside (clothes, eyelids) only counts too much; and the budget never exceeds the pixels
 * of the box (a huge flat mesh). Posing bends the surface but hardly stretches it. The
 * budget, AM_RENDER_TRIS_PER_PIXEL per covered pixel, is rounded up to AM_RENDER_MIN_TRIS
 * times a power of two (down where up would pass the box's pixels, as a thin body seen side
 * on can): a mesh smaller than a pixel or without area keeps that many, and cells of about
 * one scale share one decimated mesh (the report's pose sheet has two or three, each cut
 * from the next finer one; none that would keep three quarters of it). A close-up keeps its
 * whole mesh.
 *
 * A strip keeps AM_RENDER_TRIS_PER_PIXEL per pixel of the mesh's box (of its own box where a
 * focus box zooms in): its parts hide each other, and cut each to what it covers alone, the
 * bento female's eyeballs (a few pixels each in their sockets) were lost. */
#define AM_RENDER_TRIS_PER_PIXEL 1
#define AM_RENDER_MIN_TRIS 512

typedef struct cell_mesh {
    am_bench lite;      /* *b with the decimated triangles */
    uint32_t *owned;    /* those triangles, or NULL: lite is *b */
} cell_mesh;

/* The bind-pose surface area in square metres (triangles with a non-finite corner left out). */
static double surface_area(const am_bench *b)
{
    double area = 0;
    for (size_t t = 0; b->bind_pos && t < b->triangle_count; t++) {
        const uint32_t *tri = b->triangles + 3 * t;
        if (tri[0] >= b->vertex_count || tri[1] >= b->vertex_count || tri[2] >= b->vertex_count)
            continue;
        const float *p = b->bind_pos + 3 * tri[0], *q = b->bind_pos + 3 * tri[1], *r = b->bind_pos + 3 * tri[2];
        double ux = q[0] - p[0], uy = q[1] - p[1], uz = q[2] - p[2], vx = r[0] - p[0], vy = r[1] - p[1],
               vz = r[2] - p[2];
        double cx = uy * vz - uz * vy, cy = uz * vx - ux * vz, cz = ux * vy - uy * vx;
        double a = 0.5 * sqrt(cx * cx + cy * cy + cz * cz);
        if (isfinite(a))
            area += a;
    }
    return area;
}

/* The triangles a whole-body frame can show: the mesh of `area` square metres at `scale`
 * pixels per metre, in a frame where its box covers box_pixels; a level (above). */
static size_t frame_budget(double area, double scale, double box_pixels)
{
    double covered = fmin(0.25 * area * scale * scale, box_pixels);
    double want = (double)AM_RENDER_TRIS_PER_PIXEL * covered;
    size_t level = AM_RENDER_MIN_TRIS;
    while ((double)level < want && level < ((size_t)1 << 40))
        level *= 2;
    if (level > AM_RENDER_MIN_TRIS && (double)level > box_pixels)
        level /= 2; /* rounded down instead: never more than the box has pixels */
    return level;
}

/* src's triangles cut by meshoptimizer's sloppy simplifier to at most `budget` into dst (3 *
 * src->triangle_count slots); *n: the indices written. Its passes each walk every vertex of
 * the buffer, so a level cut from a finer one (`compact`: 16k triangles of a 200k-vertex
 * creature) is cut on a compact copy of the vertices it uses, mapped back. */
static am_status sloppy_cut(const am_bench *src, size_t budget, bool compact, uint32_t *dst, size_t *n,
                            am_error *err)
{
    size_t ni = 3 * src->triangle_count, nv = src->vertex_count;
    if (!compact) {
        *n = meshopt_simplifySloppy(dst, src->triangles, ni, src->bind_pos, nv, 3 * sizeof(float), 3 * budget,
                                    FLT_MAX, NULL);
        return AM_OK;
    }
    uint32_t *remap = malloc((nv ? nv : 1) * sizeof *remap);
    if (!remap)
        return am_fail_nomem(err, "render: decimation");
    size_t used = meshopt_optimizeVertexFetchRemap(remap, src->triangles, ni, nv);
    uint32_t *idx = malloc(ni * sizeof *idx), *back = malloc((used ? used : 1) * sizeof *back);
    float *pos = malloc((3 * used + 1) * sizeof *pos);
    if (!idx || !back || !pos) {
        free(remap);
        free(idx);
        free(back);
        free(pos);
        return am_fail_nomem(err, "render: decimation");
    }
    meshopt_remapIndexBuffer(idx, src->triangles, ni, remap);
    meshopt_remapVertexBuffer(pos, src->bind_pos, nv, 3 * sizeof(float), remap);
    for (size_t v = 0; v < nv; v++)
        if (remap[v] != ~0u)
            back[remap[v]] = (uint32_t)v;
    *n = meshopt_simplifySloppy(dst, idx, ni, pos, used, 3 * sizeof(float), 3 * budget, FLT_MAX, NULL);
    for (size_t i = 0; i < *n; i++)
        dst[i] = back[dst[i]];
    free(remap);
    free(idx);
    free(back);
    free(pos);
    return AM_OK;
}

/* cm: src's triangles cut to at most `budget` (none cut when it has no more). src is b or a
 * cell_mesh's lite made from b (`from_level`): both share b's vertices. */
static am_status cell_mesh_make(const am_bench *src, size_t budget, bool from_level, cell_mesh *cm,
                                am_error *err)
{
    cm->lite = *src;
    cm->owned = NULL;
    if (src->triangle_count <= budget || !src->bind_pos)
        return AM_OK;
    cm->owned = malloc(3 * src->triangle_count * sizeof *cm->owned);
    if (!cm->owned)
        return am_fail_nomem(err, "render: decimated triangles");
    size_t n = 0;
    am_status s = sloppy_cut(src, budget, from_level, cm->owned, &n, err);
    if (s || n == 0) { /* n == 0: nothing left (a degenerate mesh), draw it whole */
        free(cm->owned);
        cm->owned = NULL;
        return s;
    }
    cm->lite.triangles = cm->owned;
    cm->lite.triangle_count = n / 3;
    return AM_OK;
}

/* The pixels a box of bounds covers under projection pr. */
static double box_pixels(bounds bd, const proj *pr)
{
    double du = (bd.u1 - bd.u0) * pr->scale, dv = (bd.v1 - bd.v0) * pr->scale;
    return isfinite(du) && isfinite(dv) ? fmax(du, 1) * fmax(dv, 1) : 0;
}

static void cell_mesh_free(cell_mesh *cm)
{
    free(cm->owned);
    cm->owned = NULL;
}

/* One bench's frame: mesh, then overlay. */
static am_status draw_frame(am_image *img, const frame_in *in, const proj *pr, int x0, int y0, int w, int h,
                            render_scratch *rs, am_error *err)
{
    float *zbuf = scratch_zbuf(rs, w, h, err);
    if (!zbuf)
        return AM_ERR_NOMEM;
    am_status s = draw_mesh(img, zbuf, in, pr, x0, y0, w, h, rs, err);
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
        fill_row(img, 0, (int)img->width, y, (const uint8_t[3]){52, 58, 72});
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
    if (in)
        *o = *in;
    else
        am_render_options_init(o);
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
        grow(bd, view, vertex_at(prim, i));
    grow(bd, view, am_v3(0, 0, 0)); /* keep the prim in view */
}

static void box_bounds(am_vec3 lo, am_vec3 hi, am_view view, bounds *bd)
{
    for (int k = 0; k < 8; k++) /* the eight corners */
        grow(bd, view, am_v3(k & 1 ? hi.x : lo.x, k & 2 ? hi.y : lo.y, k & 4 ? hi.z : lo.z));
}

size_t am_render_weighted_joint_count(const am_bench *b)
{
    bool *w = calloc(b->skel->joint_count + 1, sizeof *w);
    size_t n = 0;
    if (!w)
        return b->skin_joint_count; /* out of memory: count every skin joint */
    weighted_joints(b, w);
    for (size_t j = 0; j < b->skel->joint_count; j++)
        n += w[j];
    free(w);
    return n;
}

void am_render_set_joints(am_render_options *o, am_render_joints mode, const am_bench *b)
{
    if (mode == AM_RENDER_JOINTS_AUTO)
        mode = b && am_render_weighted_joint_count(b) > AM_RENDER_JOINTS_AUTO_MAX ? AM_RENDER_JOINTS_NONE
                                                                                  : AM_RENDER_JOINTS_DOTS;
    o->hide_joints = mode == AM_RENDER_JOINTS_NONE;
    o->label_joints = mode == AM_RENDER_JOINTS_NAMES;
}

void am_render_fit_frame(am_view view, am_vec3 lo, am_vec3 hi, int long_px, int min_px, int *w, int *h)
{
    bounds bd = {INFINITY, -INFINITY, INFINITY, -INFINITY};
    box_bounds(lo, hi, view, &bd);
    am_render_fit_extent(bd.u1 - bd.u0, bd.v1 - bd.v0, long_px, min_px, w, h);
}

void am_render_fit_extent(double du, double dv, int long_px, int min_px, int *w, int *h)
{
    const int across = 2 * MARGIN, down = LABEL_H + FOOTER_H + 2 * MARGIN;
    if (!(du > 1e-6) || !(dv > 1e-6) || !isfinite(du) || !isfinite(dv))
        du = dv = 1; /* nothing to frame (or a broken pose): a square */
    /* the scale at which the larger extent fills its side; then the other side */
    double su = (long_px - across) / du, sv = (long_px - down) / dv;
    if (du * sv >= long_px - across) { /* wide: the width is the long side */
        *w = long_px;
        *h = (int)ceil(dv * su) + down;
    } else {
        *h = long_px;
        *w = (int)ceil(du * sv) + across;
    }
    *w = *w < min_px ? min_px : *w;
    *h = *h < min_px ? min_px : *h;
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

/* The frame's own meshes, without the prim (centre_each). */
static void mesh_bounds(const am_bench *b, const float *prim, am_view view, bounds *bd)
{
    for (size_t i = 0; i < b->vertex_count; i++)
        grow(bd, view, vertex_at(prim, i));
}

am_status am_render_frame_extent(const am_render_part *parts, size_t np, const double *times, size_t n, am_view view,
                                 double *du, double *dv, am_error *err)
{
    *du = *dv = 0;
    size_t nv = 0;
    for (size_t p = 0; p < np; p++)
        nv = parts[p].bench->vertex_count > nv ? parts[p].bench->vertex_count : nv;
    float *pos = malloc((3 * nv + 1) * sizeof *pos);
    if (!pos)
        return am_fail_nomem(err, "render extent");
    am_status s = AM_OK;
    for (size_t f = 0; f < n && !s; f++) {
        bounds bd = {INFINITY, -INFINITY, INFINITY, -INFINITY};
        for (size_t p = 0; p < np && !s; p++)
            if (!(s = am_bench_pose_at(parts[p].bench, parts[p].motion, times[f], pos, NULL, err)))
                mesh_bounds(parts[p].bench, pos, view, &bd);
        if (!s && bd.u0 <= bd.u1) {
            *du = fmax(*du, bd.u1 - bd.u0);
            *dv = fmax(*dv, bd.v1 - bd.v0);
        }
    }
    free(pos);
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

/* --- cells drawn at once ---
 * Every frame of a strip and every cell of a sheet is drawn into its own small image by its
 * own job (am_parallel_for: the frames of a sheet share no pixels, no buffers and no error),
 * then copied into place; the first failing cell's error is the call's. */

static void blit(am_image *dst, const am_image *cell, int x0, int y0)
{
    for (uint32_t y = 0; y < cell->height && y0 + (int)y < (int)dst->height; y++) {
        int w = (int)cell->width;
        if (x0 + w > (int)dst->width)
            w = (int)dst->width - x0;
        if (w > 0)
            memcpy(dst->pixels + 4 * ((size_t)(y0 + (int)y) * dst->width + (size_t)x0),
                   cell->pixels + 4 * (size_t)y * cell->width, 4 * (size_t)w);
    }
}

typedef struct cell_result {
    am_status status;
    am_error err;
} cell_result;

static am_status first_failure(const cell_result *r, size_t n, am_error *err)
{
    for (size_t i = 0; i < n; i++)
        if (r[i].status) {
            *err = r[i].err;
            return r[i].status;
        }
    return AM_OK;
}

typedef struct strip_job {
    const am_render_part *parts;
    size_t np;
    const double *times;
    const am_render_options *opt;
    const cell_mesh *lite;
    const am_vec3 *jp; /* posed joints, frame-major, np * nj per frame */
    const bool *weighted; /* per part, nj each (or NULL) */
    size_t nv, nj;
    const proj *pr;    /* per frame, centred on its own image (one framing unless
                          centre_each) */
    int motion;
    am_image *out;
    cell_result *result;
    render_scratch *scratch; /* one per worker */
} strip_job;

static am_status strip_frame(const strip_job *J, size_t f, render_scratch *rs, am_error *err)
{
    const am_render_options *opt = J->opt;
    int fw = opt->frame_width, fh = opt->frame_height;
    am_image *cellp;
    if (scratch_cell(rs, fw, fh, &cellp, err))
        return AM_ERR_NOMEM;
    am_image cell = *cellp; /* the scratch's: not freed here */
    float *pos = malloc((3 * J->nv + 1) * sizeof *pos);
    float *zbuf = scratch_zbuf(rs, fw, fh, err);
    am_status s = pos && zbuf ? AM_OK : zbuf ? am_fail_nomem(err, "render frames") : AM_ERR_NOMEM;
    background(&cell, 0, 0, fw, fh);
    char label[48];
    snprintf(label, sizeof label, J->motion >= 0 ? "t=%.2fs" : "rest", J->times[f]);
    /* every part into one depth buffer, then every overlay on top of all the meshes */
    for (int pass = 0; pass < 2 && !s; pass++)
        for (size_t q = 0; q < J->np && !s; q++) {
            const am_render_part *part = &J->parts[q];
            am_render_options po = *opt;
            memcpy(po.base_rgb, part->base_rgb, sizeof po.base_rgb);
            frame_in in = {&J->lite[q].lite, pos, J->jp + (f * J->np + q) * J->nj, &po, label,
                           J->weighted ? J->weighted + q * J->nj : NULL};
            if (pass == 0 && !(s = am_bench_pose_at(part->bench, part->motion, J->times[f], pos, NULL, err)))
                s = draw_mesh(&cell, zbuf, &in, &J->pr[f], 0, 0, fw, fh, rs, err);
            else if (pass == 1)
                s = draw_overlay(&cell, &in, &J->pr[f], 0, 0, fw, fh, err);
        }
    if (!s) {
        frame_chrome(&cell, label, &J->pr[f], 0, 0, fw, fh);
        blit(J->out, &cell, (int)f * fw, HEADER_H);
    }
    free(pos);
    return s;
}

static void strip_frame_job(void *ctx, size_t f, int worker)
{
    const strip_job *J = ctx;
    am_error_clear(&J->result[f].err);
    J->result[f].status = strip_frame(J, f, &J->scratch[worker], &J->result[f].err);
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
    /* Pose every frame once for the framing (joints kept, they are small), then again in
     * each frame's job while drawing, so memory grows with the workers, not the frames. */
    size_t nv = 0, nj = b0->skel->joint_count;
    for (size_t p = 0; p < np; p++)
        nv = parts[p].bench->vertex_count > nv ? parts[p].bench->vertex_count : nv;
    float *pos = malloc((3 * nv + 1) * sizeof *pos);
    am_vec3 *jp = malloc((n * np * nj + 1) * sizeof *jp);
    cell_mesh *lite = NULL;
    cell_result *result = NULL;
    proj *frame_pr = NULL;
    am_status s = AM_OK;
    if (!pos || !jp) {
        s = am_fail_nomem(err, "render frames");
        goto done;
    }
    bounds bd = {INFINITY, -INFINITY, INFINITY, -INFINITY};
    bool each = opt.centre_each && !opt.focus;
    bounds *own = each ? malloc(n * sizeof *own) : NULL; /* each frame's own meshes */
    frame_pr = malloc(n * sizeof *frame_pr);
    if ((each && !own) || !frame_pr) {
        free(own);
        s = am_fail_nomem(err, "render frames");
        goto done;
    }
    if (opt.focus)
        box_bounds(opt.focus_min, opt.focus_max, opt.view, &bd);
    for (size_t f = 0; f < n && !s; f++) {
        if (each)
            own[f] = (bounds){INFINITY, -INFINITY, INFINITY, -INFINITY};
        for (size_t p = 0; p < np && !s; p++) {
            s = am_bench_pose_at(parts[p].bench, parts[p].motion, times[f], pos, jp + (f * np + p) * nj, err);
            if (!s && !opt.focus)
                bounds_of(parts[p].bench, pos, opt.view, &bd);
            if (!s && each)
                mesh_bounds(parts[p].bench, pos, opt.view, &own[f]);
        }
    }
    if (s) {
        free(own);
        goto done;
    }
    int fw = opt.frame_width, fh = opt.frame_height;
    s = am_image_alloc(out, fw * (int)n, HEADER_H + fh, err);
    if (s) {
        free(own);
        goto done;
    }
    int inner_h = fh - LABEL_H - FOOTER_H;
    proj pr = fit(opt.view, bd, fw, inner_h, fw / 2.0, LABEL_H + inner_h / 2.0);
    for (size_t f = 0; f < n; f++)
        frame_pr[f] = pr;
    if (each) {
        /* one scale that fits the largest frame; each frame centred on its own meshes */
        double scale = INFINITY;
        for (size_t f = 0; f < n; f++)
            if (own[f].u0 <= own[f].u1)
                scale = fmin(scale, fit(opt.view, own[f], fw, inner_h, 0, 0).scale);
        for (size_t f = 0; f < n && isfinite(scale); f++)
            if (own[f].u0 <= own[f].u1) {
                frame_pr[f] = fit(opt.view, own[f], fw, inner_h, fw / 2.0, LABEL_H + inner_h / 2.0);
                frame_pr[f].scale = scale;
            }
        if (isfinite(scale))
            pr.scale = scale; /* the decimation budget below: the common scale */
        free(own);
    }
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
    header(out, title ? title : am_str(&b0->source), what, &opt);
    if (!(lite = calloc(np, sizeof *lite)) || !(result = calloc(n, sizeof *result))) {
        s = am_fail_nomem(err, "render frames");
        goto done;
    }
    for (size_t q = 0; q < np && !s; q++) {
        const am_bench *pb = parts[q].bench;
        lite[q].lite = *pb;
        /* the framing holds every frame: no frame's mesh covers more than its box */
        double pixels = box_pixels(bd, &pr);
        if (opt.focus) { /* zoomed in: the mesh's own box on screen */
            bounds mb = {INFINITY, -INFINITY, INFINITY, -INFINITY};
            box_bounds(pb->bind_min, pb->bind_max, opt.view, &mb);
            pixels = box_pixels(mb, &pr);
        }
        if (pixels >= 64) /* the box rule (above) */
            s = cell_mesh_make(pb, (size_t)((double)AM_RENDER_TRIS_PER_PIXEL * pixels), false, &lite[q], err);
    }
    if (s)
        goto done;
    bool *weighted = calloc(np * nj + 1, sizeof *weighted); /* once per part, not per frame */
    for (size_t q = 0; weighted && q < np; q++)
        weighted_joints(parts[q].bench, weighted + q * nj);
    int nt;
    render_scratch *scratch = scratch_pool(opt.threads, n, &nt);
    if (!scratch)
        s = am_fail_nomem(err, "render frames");
    else {
        strip_job J = {parts, np, times, &opt, lite, jp, weighted, nv, nj, frame_pr, motion, out, result, scratch};
        am_parallel_for(n, nt, strip_frame_job, &J);
        s = first_failure(result, n, err);
    }
    scratch_pool_free(scratch, nt);
    free(weighted);
done:
    if (s)
        am_image_free(out);
    for (size_t q = 0; lite && q < np; q++)
        cell_mesh_free(&lite[q]);
    free(lite);
    free(result);
    free(pos);
    free(jp);
    free(frame_pr);
    return s;
}

am_status am_render_strip_png(const am_bench *b, int motion, const double *times, size_t n,
                              const am_render_options *opt, const char *path, am_error *err)
{
    am_image img;
    am_status s = am_render_strip(b, motion, times, n, opt, &img, err);
    if (s)
        return s;
    s = am_tex_png_write_picture(path, &img, err);
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
    header(img, am_str(&b->source), label ? label : "", &opt);
    background(img, 0, HEADER_H, fw, fh);
    frame_in in = {b, prim, joints, &opt, label ? label : "", NULL};
    render_scratch rs = {0};
    s = draw_frame(img, &in, &pr, 0, HEADER_H, fw, fh, &rs, err);
    scratch_free(&rs);
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
    s = am_tex_png_write_picture(path, &img, err);
    am_image_free(&img);
    return s;
}

typedef struct sheet_job {
    const am_bench *b;
    const am_render_cell *frames;
    const am_render_options *opt;
    const am_bench *const *mesh; /* per cell: b, or one of its decimated levels */
    const proj *pr; /* per cell, centred on the cell's own image */
    const bool *weighted;
    am_image *out;
    int cols;
    cell_result *result;
    render_scratch *scratch; /* one per worker */
} sheet_job;

static am_status sheet_cell(const sheet_job *J, size_t f, render_scratch *rs, am_error *err)
{
    const am_render_cell *fr = &J->frames[f];
    int fw = J->opt->frame_width, fh = J->opt->frame_height;
    am_image *cellp;
    if (scratch_cell(rs, fw, fh, &cellp, err))
        return AM_ERR_NOMEM;
    am_image cell = *cellp; /* the scratch's: not freed here */
    am_render_options o = *J->opt;
    o.view = fr->view;
    if (fr->vertex_rgb)
        o.vertex_rgb = fr->vertex_rgb;
    background(&cell, 0, 0, fw, fh);
    const char *label = fr->label ? fr->label : "";
    frame_in in = {J->mesh[f], fr->prim, fr->joints, &o, label, J->weighted};
    am_status s = draw_frame(&cell, &in, &J->pr[f], 0, 0, fw, fh, rs, err);
    if (!s) {
        /* the label band stays readable over a zoomed mesh */
        for (int y = 0; y < LABEL_H - 2; y++)
            fill_row(&cell, 0, fw - 1, y, (const uint8_t[3]){238, 241, 246});
        frame_chrome(&cell, label, &J->pr[f], 0, 0, fw, fh);
        blit(J->out, &cell, (int)(f % (size_t)J->cols) * fw, HEADER_H + (int)(f / (size_t)J->cols) * fh);
    }
    return s;
}

static void sheet_cell_job(void *ctx, size_t f, int worker)
{
    const sheet_job *J = ctx;
    am_error_clear(&J->result[f].err);
    J->result[f].status = sheet_cell(J, f, &J->scratch[worker], &J->result[f].err);
}

/* What the cells of a sheet draw: each cell's framing, fitted to its own content, and the
 * mesh it draws, b or one of b's decimated levels. */
typedef struct sheet_plan {
    proj *pr;              /* per cell, centred on the cell's own image */
    const am_bench **mesh; /* per cell */
    cell_mesh *level;      /* the distinct budgets, finest first (n slots) */
    size_t n;
} sheet_plan;

static void sheet_plan_free(sheet_plan *sp)
{
    for (size_t l = 0; sp->level && l < sp->n; l++)
        cell_mesh_free(&sp->level[l]);
    free(sp->level);
    free(sp->mesh);
    free(sp->pr);
    memset(sp, 0, sizeof *sp);
}

/* Each cell framed to its own content and given its budget, by parallel jobs: framing
 * walks every vertex of every cell's pose. */
typedef struct frame_fit_job {
    const am_bench *b;
    const am_render_cell *frames;
    int fw, inner_h;
    double area;
    proj *pr;
    size_t *budget;
} frame_fit_job;

static void frame_fit(void *user, size_t f, int worker)
{
    (void)worker;
    const frame_fit_job *J = user;
    const am_render_cell *fr = &J->frames[f];
    bounds bd = {INFINITY, -INFINITY, INFINITY, -INFINITY};
    if (fr->focus)
        box_bounds(fr->focus_min, fr->focus_max, fr->view, &bd);
    else
        bounds_of(J->b, fr->prim, fr->view, &bd);
    J->pr[f] = fit(fr->view, bd, J->fw, J->inner_h, J->fw / 2.0, LABEL_H + J->inner_h / 2.0);
    double pixels = fr->focus ? 0 : box_pixels(bd, &J->pr[f]);
    J->budget[f] = pixels > 0 ? frame_budget(J->area, J->pr[f].scale, pixels) : 0;
}

static am_status sheet_plan_make(const am_bench *b, const am_render_cell *frames, size_t n,
                                 const am_render_options *opt, sheet_plan *sp, am_error *err)
{
    sp->n = n;
    sp->pr = malloc(n * sizeof *sp->pr);
    sp->mesh = malloc(n * sizeof *sp->mesh);
    sp->level = calloc(n, sizeof *sp->level);
    size_t *budget = malloc(n * sizeof *budget);
    am_status s = sp->pr && sp->mesh && sp->level && budget ? AM_OK : am_fail_nomem(err, "render sheet");
    int fw = opt->frame_width, inner_h = opt->frame_height - LABEL_H - FOOTER_H;
    /* each whole-body cell given the budget of its own scale (above); a close-up (budget 0
     * here) draws the whole mesh */
    if (!s) {
        frame_fit_job J = {b, frames, fw, inner_h, surface_area(b), sp->pr, budget};
        am_parallel_for(n, opt->threads, frame_fit, &J);
    }
    /* the levels from the finest down, each cut from the one before; a cut that would keep
     * three quarters of the triangles is not worth its decimation (the 10k creature's finest
     * level), its cells draw the finer mesh */
    size_t nl = 0, *made_for = budget ? malloc(n * sizeof *made_for) : NULL;
    if (!s && !made_for)
        s = am_fail_nomem(err, "render sheet");
    const am_bench *src = b;
    while (!s) {
        size_t want = 0;
        for (size_t f = 0; f < n; f++)
            if (budget[f] > want && (nl == 0 || budget[f] < made_for[nl - 1]))
                want = budget[f];
        if (want == 0)
            break;
        made_for[nl] = want;
        if (4 * want >= 3 * src->triangle_count) {
            sp->level[nl++].lite = *src;
            continue;
        }
        if ((s = cell_mesh_make(src, want, src != b, &sp->level[nl], err)))
            break;
        if (!sp->level[nl].owned) {
            nl++;
            break; /* not cut (a degenerate mesh): the cells left draw it whole */
        }
        src = &sp->level[nl++].lite;
    }
    for (size_t f = 0; f < n && !s; f++) {
        sp->mesh[f] = b;
        for (size_t l = 0; budget[f] > 0 && l < nl; l++)
            if (made_for[l] == budget[f])
                sp->mesh[f] = &sp->level[l].lite;
    }
    free(made_for);
    free(budget);
    if (s)
        sheet_plan_free(sp);
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
    sheet_plan sp = {0};
    cell_result *result = calloc(n, sizeof *result);
    am_status s = result ? AM_OK : am_fail_nomem(err, "render sheet");
    if (!s)
        s = am_image_alloc(out, opt.frame_width * cols, HEADER_H + opt.frame_height * rows, err);
    if (!s)
        s = sheet_plan_make(b, frames, n, &opt, &sp, err);
    if (!s) {
        header(out, am_str(&b->source), title ? title : "", NULL);
        bool *weighted = calloc(b->skel->joint_count + 1, sizeof *weighted); /* once, not per cell */
        if (weighted)
            weighted_joints(b, weighted);
        int nt;
        render_scratch *scratch = scratch_pool(opt.threads, n, &nt);
        if (!scratch)
            s = am_fail_nomem(err, "render sheet");
        else {
            sheet_job J = {b, frames, &opt, sp.mesh, sp.pr, weighted, out, cols, result, scratch};
            am_parallel_for(n, nt, sheet_cell_job, &J);
            s = first_failure(result, n, err);
        }
        scratch_pool_free(scratch, nt);
        free(weighted);
    }
    sheet_plan_free(&sp);
    free(result);
    if (s)
        am_image_free(out);
    return s;
}

am_status am_render_sheet_triangles(const am_bench *b, const am_render_cell *frames, size_t n,
                                    const am_render_options *opt_in, size_t *triangles, am_error *err)
{
    if (n == 0 || n > 256)
        return am_fail(err, AM_ERR_USAGE, "render: %zu frames (1..256)", n);
    am_render_options opt;
    options_or_default(opt_in, &opt);
    sheet_plan sp = {0};
    am_status s = sheet_plan_make(b, frames, n, &opt, &sp, err);
    for (size_t f = 0; f < n && !s; f++)
        triangles[f] = sp.mesh[f]->triangle_count;
    sheet_plan_free(&sp);
    return s;
}
