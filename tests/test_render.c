/* Renders: the bitmap font's pixels, PNG round trips, strip layout, view orientation and
 * the depth test, checked on pixels of hand-built meshes read through the bench. */
#include "test_bench_fixture.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/perf/support/test_creature.h"
#include "bench/render.h"
#include "report/report.h"

static am_skeleton skel;
static const am_vec3 P_SF = {0.0, 0.0, 1.067};

static int setup(void **state)
{
    (void)state;
    am_test_load_viewer_skeleton(&skel);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    am_skeleton_free(&skel);
    return 0;
}

static const uint8_t *px(const am_image *img, int x, int y)
{
    return img->pixels + 4 * ((size_t)y * (size_t)img->width + (size_t)x);
}

static void test_font_draws_the_glyph_bits(void **state)
{
    (void)state;
    am_image img;
    am_error err;
    am_error_clear(&err);
    assert_int_equal(am_image_alloc(&img, 20, 10, &err), AM_OK);
    const uint8_t red[3] = {255, 0, 0};
    int adv = am_draw_text(&img, 0, 0, "1", 1, red);
    assert_int_equal(adv, 6);
    /* '1': row 0 = 00100, row 6 = 01110 */
    assert_int_equal(px(&img, 2, 0)[0], 255);
    assert_int_equal(px(&img, 0, 0)[0], 0);
    assert_int_equal(px(&img, 1, 6)[0], 255);
    assert_int_equal(px(&img, 3, 6)[0], 255);
    assert_int_equal(px(&img, 4, 6)[0], 0);
    assert_int_equal(am_text_width("12", 1), 11);
    assert_int_equal(am_text_width("t=1.50s", 2), 7 * 12 - 2);
    /* clipped at the border without writing outside */
    am_draw_text(&img, 17, 8, "888", 2, red);
    am_image_free(&img);
}

static void test_png_round_trip_keeps_every_pixel(void **state)
{
    (void)state;
    am_image img, back;
    am_error err;
    am_error_clear(&err);
    assert_int_equal(am_image_alloc(&img, 7, 5, &err), AM_OK);
    for (size_t i = 0; i < 7 * 5 * 4; i++)
        img.pixels[i] = (uint8_t)(i * 37 + 11);
    char dir[512], path[600];
    am_test_tmpdir(dir, sizeof dir);
    snprintf(path, sizeof path, "%s/a.png", dir);
    assert_int_equal(am_tex_png_write_picture(path, &img, &err), AM_OK);
    assert_int_equal(am_tex_png_read_rgba(path, &back, &err), AM_OK);
    assert_int_equal(back.width, 7);
    assert_int_equal(back.height, 5);
    assert_memory_equal(back.pixels, img.pixels, 7 * 5 * 4);
    am_image_free(&back);
    snprintf(path, sizeof path, "%s/not.png", dir);
    am_test_write_text(path, "not a png at all");
    assert_int_equal(am_tex_png_read_rgba(path, &back, &err), AM_ERR_INVALID);
    char shown[512]; /* what the user sees names the file */
    assert_non_null(strstr(am_error_format(&err, shown, sizeof shown), "not.png"));
    assert_int_equal(am_tex_png_read_rgba("/nonexistent/x.png", &back, &err), AM_ERR_IO);
    am_image_free(&img);
    am_test_rmtree(dir);
}

static bool is_background(const uint8_t *p)
{
    /* the background gradient is grey-blue with b > g > r; the clay mesh is r > g > b */
    return p[2] > p[0];
}

static size_t mesh_pixels(const am_image *img, int x0, int x1, double *mean_x, double *mean_y)
{
    size_t n = 0;
    double sx = 0, sy = 0;
    for (int y = 28 + 30; y < (int)img->height - 30; y++)
        for (int x = x0; x < x1; x++)
            if (!is_background(px(img, x, y))) {
                n++;
                sx += x;
                sy += y;
            }
    if (mean_x)
        *mean_x = n ? sx / n : 0;
    if (mean_y)
        *mean_y = n ? sy / n : 0;
    return n;
}

static void test_strip_lays_frames_side_by_side_with_one_framing(void **state)
{
    (void)state;
    fx_mesh m;
    fx_bar(&m, 4, -2, 2, -0.3, 0.3, 1.0, 1.2);
    for (size_t v = 0; v < m.nv; v++)
        fx_weigh(&m, v, 0, 0, 1.0);
    fx_skin sk = {.n = 1, .names = {"mPelvis"}, .bind_world = {P_SF}};
    am_bench b;
    fx_bench(&m, &sk, &skel, &b);
    am_render_options opt;
    am_render_options_init(&opt);
    opt.frame_width = 200;
    opt.frame_height = 240;
    opt.hide_joints = true;
    double times[3] = {0, 0, 0};
    am_image img;
    am_error err;
    am_error_clear(&err);
    assert_int_equal(am_render_strip(&b, -1, times, 3, &opt, &img, &err), AM_OK);
    assert_int_equal(img.width, 600);
    assert_int_equal(img.height, 28 + 240);
    size_t n0 = mesh_pixels(&img, 0, 200, NULL, NULL);
    assert_gt(n0, 500);
    assert_int_equal(mesh_pixels(&img, 200, 400, NULL, NULL), n0);
    assert_int_equal(mesh_pixels(&img, 400, 600, NULL, NULL), n0);
    /* side view of a 4 m bar: it spans the frame's width less the margins */
    int first = -1, last = -1;
    int row = 28 + 30 + (240 - 60) / 2;
    for (int x = 0; x < 200; x++)
        if (!is_background(px(&img, x, row))) {
            if (first < 0)
                first = x;
            last = x;
        }
    assert_in_range(first, 10, 18);
    assert_in_range(last, 181, 189);
    am_image_free(&img);
    assert_int_equal(am_render_strip(&b, -1, times, 0, &opt, &img, &err), AM_ERR_USAGE);
    am_bench_free(&b);
    fx_mesh_free(&m);
}

/* A skin that lists mHead without weighting it: the viewer draws mHead 0.7 m above the
 * small bar, but the strip frames the bar alone and draws only mPelvis, which carries
 * every weight (an unweighted joint's dot, and its room in the framing, would shrink the
 * creature; Little Bear's 34 unweighted joints did). */
static void test_strip_frames_the_mesh_and_draws_weighted_joints_only(void **state)
{
    (void)state;
    fx_mesh m;
    fx_bar(&m, 4, -0.2, 0.2, -0.05, 0.05, 1.02, 1.10);
    for (size_t v = 0; v < m.nv; v++)
        fx_weigh(&m, v, 0, 0, 1.0);
    fx_skin sk = {.n = 2, .names = {"mPelvis", "mHead"}, .bind_world = {P_SF, {0, 0, 1.75}}};
    am_bench b;
    fx_bench(&m, &sk, &skel, &b);
    am_render_options opt;
    am_render_options_init(&opt);
    opt.frame_width = 200;
    opt.frame_height = 240;
    double t = 0;
    am_image img;
    am_error err;
    am_error_clear(&err);
    assert_int_equal(am_render_strip(&b, -1, &t, 1, &opt, &img, &err), AM_OK);
    size_t dots = 0;
    for (size_t i = 0; i < (size_t)img.width * (size_t)img.height; i++) {
        const uint8_t *p = img.pixels + 4 * i;
        dots += p[0] == 225 && p[1] == 40 && p[2] == 40;
    }
    assert_in_range(dots, 12, 40); /* one dot (about 25 pixels), not two */
    /* the 0.4 m bar spans the frame's width less the margins */
    int first = -1, last = -1, row = 28 + 30 + (240 - 60) / 2 - 3;
    for (int x = 0; x < 200; x++)
        if (!is_background(px(&img, x, row))) {
            if (first < 0)
                first = x;
            last = x;
        }
    assert_in_range(first, 10, 18);
    assert_in_range(last, 181, 189);
    am_image_free(&img);
    am_bench_free(&b);
    fx_mesh_free(&m);
}

/* A bar from x 0 to 1 on the creature's left (y 0.5 .. 0.6), red where x > 0.5 and green
 * elsewhere: side view puts +X to the right, front view +Y to the right, top view +X up
 * and +Y to the left. */
static void test_views_orient_the_avatar_axes(void **state)
{
    (void)state;
    fx_mesh m;
    fx_bar(&m, 2, 0, 1, 0.5, 0.6, 1.0, 1.1);
    float *rgb = malloc(3 * m.nv * sizeof *rgb);
    for (size_t v = 0; v < m.nv; v++) {
        fx_weigh(&m, v, 0, 0, 1.0);
        bool red = m.pos[3 * v] > 0.75;
        rgb[3 * v] = red ? 0.9f : 0.1f;
        rgb[3 * v + 1] = red ? 0.1f : 0.9f;
        rgb[3 * v + 2] = 0.05f;
    }
    fx_skin sk = {.n = 1, .names = {"mPelvis"}, .bind_world = {P_SF}};
    am_bench b;
    fx_bench(&m, &sk, &skel, &b);
    am_render_options opt;
    am_render_options_init(&opt);
    opt.vertex_rgb = rgb;
    opt.hide_joints = true;
    am_error err;
    am_error_clear(&err);
    am_view views[3] = {AM_VIEW_SIDE, AM_VIEW_FRONT, AM_VIEW_TOP};
    for (int k = 0; k < 3; k++) {
        opt.view = views[k];
        am_image img;
        double t = 0;
        assert_int_equal(am_render_strip(&b, -1, &t, 1, &opt, &img, &err), AM_OK);
        double rx = 0, ry = 0, gx = 0, gy = 0;
        size_t nr = 0, ng = 0;
        for (int y = 28; y < (int)img.height; y++)
            for (int x = 0; x < (int)img.width; x++) {
                const uint8_t *p = px(&img, x, y);
                if (p[0] > 2 * p[1] && p[0] > 40) {
                    rx += x, ry += y, nr++;
                } else if (p[1] > 2 * p[0] && p[1] > 40) {
                    gx += x, gy += y, ng++;
                }
            }
        double cx = img.width / 2.0;
        if (views[k] == AM_VIEW_SIDE) {
            assert_true(nr > 50 && ng > 50);
            assert_gt(rx / nr, gx / ng); /* +X to the right */
        } else if (views[k] == AM_VIEW_FRONT) {
            assert_gt(nr + ng, 50);
            assert_gt((rx + gx) / (nr + ng), cx); /* +Y (left side) to the right of the prim */
        } else {
            assert_true(nr > 50 && ng > 50);
            assert_lt(ry / nr, gy / ng);          /* +X up */
            assert_lt((rx + gx) / (nr + ng), cx); /* +Y to the left */
        }
        am_image_free(&img);
    }
    free(rgb);
    am_bench_free(&b);
    fx_mesh_free(&m);
}

/* Top view of a bar whose top face is listed FIRST (the bar is built upside down): blue
 * on top, red underneath; without a depth test the red bottom, drawn later, would show. */
static void test_depth_buffer_shows_the_nearest_face(void **state)
{
    (void)state;
    fx_mesh m;
    fx_bar(&m, 1, -0.5, 0.5, -0.2, 0.2, 1.3, 1.0);
    float *rgb = malloc(3 * m.nv * sizeof *rgb);
    for (size_t v = 0; v < m.nv; v++) {
        fx_weigh(&m, v, 0, 0, 1.0);
        bool top = m.pos[3 * v + 2] > 1.2;
        rgb[3 * v] = top ? 0.05f : 0.95f;
        rgb[3 * v + 1] = 0.05f;
        rgb[3 * v + 2] = top ? 0.95f : 0.05f;
    }
    fx_skin sk = {.n = 1, .names = {"mPelvis"}, .bind_world = {P_SF}};
    am_bench b;
    fx_bench(&m, &sk, &skel, &b);
    am_render_options opt;
    am_render_options_init(&opt);
    opt.view = AM_VIEW_TOP;
    opt.vertex_rgb = rgb;
    opt.hide_joints = true;
    opt.flat = true;
    am_image img;
    am_error err;
    am_error_clear(&err);
    double t = 0;
    assert_int_equal(am_render_strip(&b, -1, &t, 1, &opt, &img, &err), AM_OK);
    size_t blue = 0, red = 0;
    for (int y = 28; y < (int)img.height; y++)
        for (int x = 0; x < (int)img.width; x++) {
            const uint8_t *p = px(&img, x, y);
            blue += p[2] > 3 * p[0] + 20;
            red += p[0] > 3 * p[2] + 20;
        }
    assert_gt(blue, 1000);
    assert_int_equal(red, 0);
    am_image_free(&img);
    free(rgb);
    am_bench_free(&b);
    fx_mesh_free(&m);
}

/* A bar (fx_bar's shape) with every vertex on mPelvis, benched and posed at rest. */
typedef struct rest_bar {
    fx_mesh m;
    am_bench b;
    float *prim;
    am_vec3 *joints;
} rest_bar;

static void rest_bar_make(rest_bar *r, int nx, double x0, double x1, double y0, double y1, double z0, double z1)
{
    fx_bar(&r->m, nx, x0, x1, y0, y1, z0, z1);
    for (size_t v = 0; v < r->m.nv; v++)
        fx_weigh(&r->m, v, 0, 0, 1.0);
    fx_skin sk = {.n = 1, .names = {"mPelvis"}, .bind_world = {P_SF}};
    fx_bench(&r->m, &sk, &skel, &r->b);
    r->prim = malloc(3 * r->b.vertex_count * sizeof *r->prim);
    r->joints = malloc(skel.joint_count * sizeof *r->joints);
    assert_non_null(r->prim);
    assert_non_null(r->joints);
    am_error err;
    am_error_clear(&err);
    assert_int_equal(am_bench_pose_at(&r->b, -1, 0, r->prim, r->joints, &err), AM_OK);
}

static void rest_bar_free(rest_bar *r)
{
    free(r->prim);
    free(r->joints);
    am_bench_free(&r->b);
    fx_mesh_free(&r->m);
}

/* A cell with more triangles than pixels is drawn from a decimated copy of the mesh (the
 * whole-body cells of a big creature's pose sheet): the same picture as the whole mesh
 * (a close-up cell keeps every triangle; framed on the same box here) within a few edge
 * pixels. */
static void test_fine_mesh_in_a_small_cell_draws_as_the_whole_mesh(void **state)
{
    (void)state;
    rest_bar r;
    rest_bar_make(&r, 6000, -0.3, 0.3, -0.2, 0.2, 0.2, 1.8); /* 48,004 triangles; a 120 x 160 cell holds 38,400 */
    float *prim = r.prim;
    am_error err;
    am_error_clear(&err);
    am_vec3 lo = am_v3(0, 0, 0), hi = am_v3(0, 0, 0); /* the framing of a whole-body cell: mesh and prim */
    for (size_t v = 0; v < r.b.vertex_count; v++) {
        am_vec3 p = am_v3(prim[3 * v], prim[3 * v + 1], prim[3 * v + 2]);
        lo = am_v3(fmin(lo.x, p.x), fmin(lo.y, p.y), fmin(lo.z, p.z));
        hi = am_v3(fmax(hi.x, p.x), fmax(hi.y, p.y), fmax(hi.z, p.z));
    }
    am_render_cell cells[2] = {{prim, NULL, "a", AM_VIEW_SIDE, NULL, false, lo, hi},
                               {prim, NULL, "a", AM_VIEW_SIDE, NULL, true, lo, hi}};
    am_render_options opt;
    am_render_options_init(&opt);
    opt.frame_width = 120;
    opt.frame_height = 160;
    opt.hide_joints = true;
    am_image img;
    assert_int_equal(am_render_sheet(&r.b, cells, 2, 2, &opt, "t", &img, &err), AM_OK);
    assert_int_equal(img.width, 240);
    size_t mesh = 0, differ = 0;
    for (int y = 28; y < (int)img.height; y++)
        for (int x = 0; x < 119; x++) {
            const uint8_t *d = px(&img, x, y), *w = px(&img, x + 120, y);
            mesh += w[0] > w[2]; /* the mesh is warm (red over blue), the background blue-grey */
            int most = 0;
            for (int c = 0; c < 3; c++)
                most = abs(d[c] - w[c]) > most ? abs(d[c] - w[c]) : most;
            differ += most > 48;
        }
    assert_gt(mesh, 400);
    assert_lt(differ * 20, mesh); /* under 5% of the mesh's pixels */
    am_image_free(&img);
    rest_bar_free(&r);
}

static void test_single_frame_png_has_the_frame_size(void **state)
{
    (void)state;
    rest_bar r;
    rest_bar_make(&r, 2, -0.2, 0.2, -0.1, 0.1, 1.0, 1.1);
    float *prim = r.prim;
    am_vec3 *joints = r.joints;
    am_error err;
    am_error_clear(&err);
    char dir[512], path[600];
    am_test_tmpdir(dir, sizeof dir);
    snprintf(path, sizeof path, "%s/one.png", dir);
    am_render_options opt;
    am_render_options_init(&opt);
    assert_int_equal(am_render_png(&r.b, prim, joints, &opt, "rest", path, &err), AM_OK);
    am_image img;
    assert_int_equal(am_tex_png_read_rgba(path, &img, &err), AM_OK);
    assert_int_equal(img.width, 360);
    assert_int_equal(img.height, 28 + 400);
    /* the joint dot (mPelvis, at the prim) is drawn red over the mesh */
    size_t dots = 0;
    for (size_t i = 0; i < (size_t)img.width * (size_t)img.height; i++) {
        const uint8_t *p = img.pixels + 4 * i;
        dots += p[0] == 225 && p[1] == 40 && p[2] == 40;
    }
    assert_ge(dots, 12);
    am_image_free(&img);
    rest_bar_free(&r);
    am_test_rmtree(dir);
}

/* A broken pose (a corner not finite, another thrown a long way off) draws every triangle
 * that does not touch them, where the intact pose draws it, and nothing anywhere else. */
static void test_broken_pose_draws_the_triangles_it_can(void **state)
{
    (void)state;
    rest_bar r;
    rest_bar_make(&r, 20, -0.3, 0.3, -0.1, 0.1, 1.0, 1.2);
    am_render_options opt;
    am_render_options_init(&opt); /* side: +X right, +Z up */
    opt.hide_joints = true; /* one framing for both: the broken corners' ring keeps two */
    am_error err;
    am_error_clear(&err);
    am_image whole, broken;
    assert_int_equal(am_render_frame(&r.b, r.prim, r.joints, &opt, "rest", &whole, &err), AM_OK);
    size_t last = r.b.vertex_count - 4; /* the ring at x = 0.3 (fx_bar's last) */
    r.prim[3 * last + 2] = NAN;
    r.prim[3 * (last + 1)] = 1e30f;
    assert_int_equal(am_render_frame(&r.b, r.prim, r.joints, &opt, "rest", &broken, &err), AM_OK);
    size_t n_whole = mesh_pixels(&whole, 0, (int)whole.width, NULL, NULL);
    size_t n_broken = mesh_pixels(&broken, 0, (int)broken.width, NULL, NULL);
    print_message("mesh pixels: intact %zu, broken %zu\n", n_whole, n_broken);
    assert_gt(n_whole, 10000);
    assert_lt(n_broken, n_whole);     /* the triangles at the broken corners are gone */
    assert_gt(n_broken * 10, n_whole * 8); /* and only those: the last of 20 segments and a cap */
    size_t astray = 0;
    for (int y = 58; y < (int)broken.height - 30; y++)
        for (int x = 0; x < (int)broken.width; x++)
            astray += !is_background(px(&broken, x, y)) && is_background(px(&whole, x, y));
    assert_int_equal(astray, 0);
    am_image_free(&whole);
    am_image_free(&broken);
    rest_bar_free(&r);
}

/* Opaque pictures are written as RGB (a quarter fewer bytes to compress) and read back as
 * the same RGBA pixels; one transparent pixel keeps the alpha channel. */
static void test_opaque_picture_is_written_as_rgb(void **state)
{
    (void)state;
    am_image img;
    am_error err;
    am_error_clear(&err);
    assert_int_equal(am_image_alloc(&img, 9, 6, &err), AM_OK);
    for (size_t i = 0; i < 9 * 6; i++) {
        img.pixels[4 * i] = (uint8_t)(i * 29 + 3);
        img.pixels[4 * i + 1] = (uint8_t)(i * 7);
        img.pixels[4 * i + 2] = (uint8_t)(255 - i);
        img.pixels[4 * i + 3] = 255;
    }
    for (int transparent = 0; transparent < 2; transparent++) {
        if (transparent)
            img.pixels[4 * 17 + 3] = 40;
        am_buf png = {0};
        assert_int_equal(am_tex_png_encode_picture(&img, &png, &err), AM_OK);
        assert_true(png.size > 26);
        assert_int_equal(png.data[25], transparent ? 6 : 2); /* IHDR colour type: RGBA / RGB */
        am_tex_image tex;
        assert_int_equal(am_tex_png_decode(png.data, png.size, &tex, &err), AM_OK);
        am_image back;
        assert_int_equal(am_tex_image_to_rgba(&tex, &back, &err), AM_OK);
        assert_memory_equal(back.pixels, img.pixels, 9 * 6 * 4);
        am_image_free(&back);
        am_tex_image_free(&tex);
        am_buf_free(&png);
    }
    am_image_free(&img);
}

/* The cells of a sheet and the frames of a strip are drawn by several threads at once: the
 * picture is the same byte for byte as drawn one after another. */
static void test_cells_drawn_at_once_make_the_same_picture(void **state)
{
    (void)state;
    rest_bar r;
    rest_bar_make(&r, 40, -0.3, 0.3, -0.2, 0.2, 0.2, 1.8);
    float *prim = r.prim;
    am_vec3 *joints = r.joints;
    am_error err;
    am_error_clear(&err);
    am_render_cell cells[5];
    for (int i = 0; i < 5; i++)
        cells[i] = (am_render_cell){prim, joints, "cell", i % 2 ? AM_VIEW_SIDE : AM_VIEW_FRONT, NULL, i == 4,
                                    am_v3(-0.1, -0.1, 0.9), am_v3(0.1, 0.1, 1.1)};
    am_render_options opt;
    am_render_options_init(&opt);
    opt.frame_width = 150;
    opt.frame_height = 180;
    double times[4] = {0, 0, 0, 0};
    am_image one, many;
    opt.threads = 1;
    assert_int_equal(am_render_sheet(&r.b, cells, 5, 3, &opt, "t", &one, &err), AM_OK);
    opt.threads = 4;
    assert_int_equal(am_render_sheet(&r.b, cells, 5, 3, &opt, "t", &many, &err), AM_OK);
    assert_int_equal(one.width, many.width);
    assert_int_equal(one.height, many.height);
    assert_memory_equal(one.pixels, many.pixels, 4 * (size_t)one.width * one.height);
    assert_gt(mesh_pixels(&one, 0, 150, NULL, NULL), 500);
    am_image_free(&one);
    am_image_free(&many);
    opt.threads = 1;
    assert_int_equal(am_render_strip(&r.b, -1, times, 4, &opt, &one, &err), AM_OK);
    opt.threads = 3;
    assert_int_equal(am_render_strip(&r.b, -1, times, 4, &opt, &many, &err), AM_OK);
    assert_memory_equal(one.pixels, many.pixels, 4 * (size_t)one.width * one.height);
    assert_int_equal(mesh_pixels(&one, 150, 300, NULL, NULL), mesh_pixels(&one, 450, 600, NULL, NULL));
    am_image_free(&one);
    am_image_free(&many);
    rest_bar_free(&r);
}

/* The masks of the mesh (warm: red over blue; the background, prim cross and ink are cool
 * or grey) in one sheet cell's inner area, HEADER_H 28 + LABEL_H 30 down. */
typedef struct cell_mask {
    size_t covered;       /* pixels the mesh covers */
    size_t box;           /* pixels of their bounding box */
} cell_mask;

static bool warm(const uint8_t *p) { return p[0] > p[2] + 8; }

static cell_mask mask_of(const am_image *img, int fw, int fh, int col, int row)
{
    cell_mask m = {0, 0};
    int x0 = col * fw, y0 = 28 + row * fh, lx = 1 << 30, ly = 1 << 30, hx = -1, hy = -1;
    for (int y = y0 + 30; y < y0 + fh - 30; y++)
        for (int x = x0; x < x0 + fw - 1; x++)
            if (warm(px(img, x, y))) {
                m.covered++;
                lx = x < lx ? x : lx, hx = x > hx ? x : hx;
                ly = y < ly ? y : ly, hy = y > hy ? y : hy;
            }
    m.box = m.covered ? (size_t)(hx - lx + 1) * (size_t)(hy - ly + 1) : 0;
    return m;
}

/* Intersection over union of the mesh in two cells of one sheet. */
static double mask_iou(const am_image *img, int fw, int fh, int col_a, int row_a, int col_b, int row_b)
{
    size_t both = 0, either = 0;
    for (int y = 30; y < fh - 30; y++)
        for (int x = 0; x < fw - 1; x++) {
            bool a = warm(px(img, col_a * fw + x, 28 + row_a * fh + y));
            bool b = warm(px(img, col_b * fw + x, 28 + row_b * fh + y));
            both += a && b;
            either += a || b;
        }
    return either ? (double)both / (double)either : 1.0;
}

/* The 10k test creature (../shared/data/creature, its Blender weights) on the bench, posed
 * at rest; lo/hi: the box a whole-body cell is framed to (the mesh and the prim). */
static void creature_at_rest(am_bench *b, float **prim, am_vec3 *lo, am_vec3 *hi)
{
    char dir[4096], buf[512];
    am_error err;
    am_error_clear(&err);
    am_rig rig;
    if (am_test_creature_load(am_test_shared_path(dir, sizeof dir, "data/creature"), "creature_10k", &rig, &err) ||
        am_report_bench_rig(&rig, &skel, "creature_10k", b, &err))
        fail_msg("%s", am_error_format(&err, buf, sizeof buf));
    am_rig_free(&rig);
    *prim = malloc(3 * b->vertex_count * sizeof **prim);
    assert_non_null(*prim);
    assert_int_equal(am_bench_pose_at(b, -1, 0, *prim, NULL, &err), AM_OK);
    *lo = am_v3(0, 0, 0), *hi = am_v3(0, 0, 0);
    for (size_t v = 0; v < b->vertex_count; v++) {
        am_vec3 p = am_v3((*prim)[3 * v], (*prim)[3 * v + 1], (*prim)[3 * v + 2]);
        *lo = am_v3(fmin(lo->x, p.x), fmin(lo->y, p.y), fmin(lo->z, p.z));
        *hi = am_v3(fmax(hi->x, p.x), fmax(hi->y, p.y), fmax(hi->z, p.z));
    }
}

/* A humanoid with its arms out covers a small part of its box: its whole-body cells of the
 * report's size (230 x 300) draw fewer triangles than the box has pixels (the old budget,
 * which kept all 20,140 here) yet at least one per pixel the mesh covers; a close-up draws
 * every triangle. */
static void test_whole_body_cell_draws_as_many_triangles_as_the_mesh_covers_pixels(void **state)
{
    (void)state;
    am_bench b;
    float *prim;
    am_vec3 lo, hi;
    creature_at_rest(&b, &prim, &lo, &hi);
    assert_int_equal(b.triangle_count, 20140);
    am_render_cell cells[3] = {{prim, NULL, "front", AM_VIEW_FRONT, NULL, false, lo, hi},
                               {prim, NULL, "side", AM_VIEW_SIDE, NULL, false, lo, hi},
                               {prim, NULL, "elbow", AM_VIEW_FRONT, NULL, true, am_v3(-0.15, 0.25, 1.2),
                                am_v3(0.15, 0.55, 1.5)}};
    am_render_options opt;
    am_render_options_init(&opt);
    opt.frame_width = 230;
    opt.frame_height = 300;
    opt.hide_joints = true;
    size_t tris[3];
    am_image img;
    am_error err;
    am_error_clear(&err);
    assert_int_equal(am_render_sheet_triangles(&b, cells, 3, &opt, tris, &err), AM_OK);
    assert_int_equal(am_render_sheet(&b, cells, 3, 3, &opt, "t", &img, &err), AM_OK);
    for (int f = 0; f < 2; f++) {
        cell_mask m = mask_of(&img, 230, 300, f, 0);
        print_message("%s: %zu triangles, the mesh covers %zu pixels of its box's %zu\n", cells[f].label, tris[f],
                      m.covered, m.box);
        assert_gt(m.covered, 2000);
        assert_true(tris[f] >= m.covered);
        assert_true(tris[f] < b.triangle_count);
        assert_true(tris[f] < m.box);
    }
    assert_true(mask_of(&img, 230, 300, 0, 0).box > b.triangle_count); /* the box kept them all */
    assert_int_equal(tris[2], b.triangle_count);
    am_image_free(&img);
    free(prim);
    am_bench_free(&b);
}

/* The decimated whole-body cell covers the pixels the whole mesh covers (a close-up framed
 * on the same box draws the whole mesh), front and side; and the sheet is the same byte for
 * byte drawn on one thread or four. */
static void test_decimated_creature_keeps_its_silhouette(void **state)
{
    (void)state;
    am_bench b;
    float *prim;
    am_vec3 lo, hi;
    creature_at_rest(&b, &prim, &lo, &hi);
    am_vec3 *joints = malloc(skel.joint_count * sizeof *joints);
    am_error err;
    am_error_clear(&err);
    assert_int_equal(am_bench_pose_at(&b, -1, 0, prim, joints, &err), AM_OK);
    am_render_cell cells[4] = {{prim, NULL, "front", AM_VIEW_FRONT, NULL, false, lo, hi},
                               {prim, NULL, "side", AM_VIEW_SIDE, NULL, false, lo, hi},
                               {prim, NULL, "front", AM_VIEW_FRONT, NULL, true, lo, hi},
                               {prim, NULL, "side", AM_VIEW_SIDE, NULL, true, lo, hi}};
    am_render_options opt;
    am_render_options_init(&opt);
    opt.frame_width = 230;
    opt.frame_height = 300;
    opt.hide_joints = true;
    opt.threads = 1;
    size_t tris[4];
    assert_int_equal(am_render_sheet_triangles(&b, cells, 4, &opt, tris, &err), AM_OK);
    assert_true(tris[0] < b.triangle_count);
    assert_int_equal(tris[2], b.triangle_count);
    am_image img;
    assert_int_equal(am_render_sheet(&b, cells, 4, 2, &opt, "t", &img, &err), AM_OK);
    for (int f = 0; f < 2; f++) {
        double iou = mask_iou(&img, 230, 300, f, 0, f, 1);
        print_message("%s: silhouette IoU %.4f (%zu of %zu triangles)\n", cells[f].label, iou, tris[f],
                      b.triangle_count);
        assert_true(iou > 0.97);
    }
    am_image_free(&img);
    /* with the joints over the mesh, as in the report */
    for (int f = 0; f < 4; f++)
        cells[f].joints = joints;
    opt.hide_joints = false;
    am_image one, many;
    assert_int_equal(am_render_sheet(&b, cells, 4, 2, &opt, "t", &one, &err), AM_OK);
    opt.threads = 4;
    assert_int_equal(am_render_sheet(&b, cells, 4, 2, &opt, "t", &many, &err), AM_OK);
    assert_int_equal(one.height, many.height);
    assert_memory_equal(one.pixels, many.pixels, 4 * (size_t)one.width * one.height);
    am_image_free(&one);
    am_image_free(&many);
    free(joints);
    free(prim);
    am_bench_free(&b);
}

/* An n x n grid of quads in the x-z plane (one open flat sheet, seen face on from the side)
 * from (x0, z0) to (x1, z1) at y, weighed to joint 0. */
static void flat_sheet(fx_mesh *m, int n, double x0, double x1, double z0, double z1, double y)
{
    memset(m, 0, sizeof *m);
    m->nv = (size_t)(n + 1) * (size_t)(n + 1);
    m->ni = 6 * (size_t)n * (size_t)n;
    m->pos = calloc(3 * m->nv, sizeof *m->pos);
    m->idx = calloc(m->ni, sizeof *m->idx);
    m->count = calloc(m->nv, 1);
    m->joint = calloc(4 * m->nv, 1);
    m->weight = calloc(4 * m->nv, sizeof *m->weight);
    assert_true(m->pos && m->idx && m->count && m->joint && m->weight);
    for (int j = 0; j <= n; j++)
        for (int i = 0; i <= n; i++) {
            size_t v = (size_t)j * (size_t)(n + 1) + (size_t)i;
            m->pos[3 * v] = (float)(x0 + (x1 - x0) * i / n);
            m->pos[3 * v + 1] = (float)y;
            m->pos[3 * v + 2] = (float)(z0 + (z1 - z0) * j / n);
        }
    size_t t = 0;
    for (int j = 0; j < n; j++)
        for (int i = 0; i < n; i++) {
            uint16_t a = (uint16_t)(j * (n + 1) + i), b = (uint16_t)(a + 1), c = (uint16_t)(a + n + 1),
                     d = (uint16_t)(c + 1);
            uint16_t q[6] = {a, b, d, a, d, c};
            memcpy(m->idx + t, q, sizeof q);
            t += 6;
        }
    for (size_t v = 0; v < m->nv; v++)
        fx_weigh(m, v, 0, 0, 1.0);
}

/* The estimate from the surface area holds up on what is not a closed body: an open flat
 * sheet face on keeps a triangle per 4 pixels it covers and its outline; a mesh smaller
 * than a pixel and one without area (every vertex at one point) still draw. */
static void test_flat_tiny_and_degenerate_meshes_draw_from_their_budget(void **state)
{
    (void)state;
    fx_skin sk = {.n = 1, .names = {"mPelvis"}, .bind_world = {P_SF}};
    am_render_options opt;
    am_render_options_init(&opt);
    opt.frame_width = 230;
    opt.frame_height = 300;
    opt.hide_joints = true;
    am_error err;
    am_error_clear(&err);
    for (int kind = 0; kind < 3; kind++) {
        fx_mesh m;
        if (kind == 0) /* 1.2 x 1.6 m, 39,200 triangles, every one smaller than a pixel */
            flat_sheet(&m, 140, -0.6, 0.6, 0.2, 1.8, 0.0);
        else if (kind == 1) /* 2 mm across, 2 m from the prim the cell also holds */
            flat_sheet(&m, 100, 0.0, 0.002, 2.0, 2.002, 0.0);
        else {
            flat_sheet(&m, 100, 0.3, 0.3, 1.0, 1.0, 0.0);
        }
        am_bench b;
        fx_bench(&m, &sk, &skel, &b);
        float *prim = malloc(3 * b.vertex_count * sizeof *prim);
        assert_int_equal(am_bench_pose_at(&b, -1, 0, prim, NULL, &err), AM_OK);
        am_vec3 lo = am_v3(0, 0, 0), hi = am_v3(0, 0, 0);
        for (size_t v = 0; v < b.vertex_count; v++) {
            am_vec3 p = am_v3(prim[3 * v], prim[3 * v + 1], prim[3 * v + 2]);
            lo = am_v3(fmin(lo.x, p.x), fmin(lo.y, p.y), fmin(lo.z, p.z));
            hi = am_v3(fmax(hi.x, p.x), fmax(hi.y, p.y), fmax(hi.z, p.z));
        }
        am_render_cell cells[2] = {{prim, NULL, "a", AM_VIEW_SIDE, NULL, false, lo, hi},
                                   {prim, NULL, "a", AM_VIEW_SIDE, NULL, true, lo, hi}};
        size_t tris[2];
        am_image img;
        assert_int_equal(am_render_sheet_triangles(&b, cells, 2, &opt, tris, &err), AM_OK);
        assert_int_equal(am_render_sheet(&b, cells, 2, 2, &opt, "t", &img, &err), AM_OK);
        assert_int_equal(tris[1], b.triangle_count);
        assert_true(tris[0] > 0 && tris[0] <= b.triangle_count);
        cell_mask whole = mask_of(&img, 230, 300, 1, 0), cut = mask_of(&img, 230, 300, 0, 0);
        print_message("kind %d: %zu of %zu triangles, %zu pixels covered (whole mesh %zu)\n", kind, tris[0],
                      b.triangle_count, cut.covered, whole.covered);
        if (kind == 0) {
            assert_gt(whole.covered, 20000);
            assert_true(4 * tris[0] >= whole.covered);
            assert_true(tris[0] < b.triangle_count);
            assert_true(mask_iou(&img, 230, 300, 0, 0, 1, 0) > 0.97);
        } else {
            assert_true(tris[0] <= 512 || tris[0] == b.triangle_count);
            assert_true(whole.covered <= 4);
        }
        am_image_free(&img);
        free(prim);
        am_bench_free(&b);
        fx_mesh_free(&m);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_font_draws_the_glyph_bits),
        cmocka_unit_test(test_png_round_trip_keeps_every_pixel),
        cmocka_unit_test(test_broken_pose_draws_the_triangles_it_can),
        cmocka_unit_test(test_strip_lays_frames_side_by_side_with_one_framing),
        cmocka_unit_test(test_strip_frames_the_mesh_and_draws_weighted_joints_only),
        cmocka_unit_test(test_views_orient_the_avatar_axes),
        cmocka_unit_test(test_depth_buffer_shows_the_nearest_face),
        cmocka_unit_test(test_fine_mesh_in_a_small_cell_draws_as_the_whole_mesh),
        cmocka_unit_test(test_single_frame_png_has_the_frame_size),
        cmocka_unit_test(test_opaque_picture_is_written_as_rgb),
        cmocka_unit_test(test_cells_drawn_at_once_make_the_same_picture),
        cmocka_unit_test(test_whole_body_cell_draws_as_many_triangles_as_the_mesh_covers_pixels),
        cmocka_unit_test(test_decimated_creature_keeps_its_silhouette),
        cmocka_unit_test(test_flat_tiny_and_degenerate_meshes_draw_from_their_budget),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
