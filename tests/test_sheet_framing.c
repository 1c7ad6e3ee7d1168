/* Sheets people can judge (issue 28): every panel of an import's pose sheet frames the
 * posed creature, shaped like it, so it spans at least 70 % of the panel's longer side,
 * measured on the rendered pixels of a small creature (Linden Lab's 0.52 m bear), a tall
 * one (the Ready Player Me avatar, every part together and each alone, its 3 cm eyes
 * riding the head included) and a long one
 * (the quadruped fixture walking, seen side on). Joints are small dots, drawn by default
 * up to 25 weighted joints and not past that; --joints none|dots|names decides. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "import/import.h"
#include "support/gltf_fixtures.h"
#include "support/sheet_fill.h"
#include "support/test_support.h"

static am_skeleton g_skel;
static int setup(void **state) { return (void)state, am_test_load_viewer_skeleton(&g_skel), 0; }
static int teardown(void **state) { return (void)state, am_skeleton_free(&g_skel), 0; }

#define MIN_FILL 0.70

typedef struct run {
    char dir[256], out[300];
    am_import_report rep;
} run;

static bool shared(const char *rel, char *path, size_t size)
{
    am_test_shared_path(path, size, rel);
    FILE *f = fopen(path, "rb");
    if (f)
        fclose(f);
    else
        print_message("skipped: %s is missing\n", path);
    return f != NULL;
}

static void import(const char *path, const char *anim, am_render_joints joints, run *r)
{
    am_test_tmpdir(r->dir, sizeof r->dir);
    snprintf(r->out, sizeof r->out, "%s/out", r->dir);
    am_import_options opts;
    am_import_options_init(&opts);
    const char *anims[1] = {anim};
    opts.anim_paths = anims;
    opts.anim_count = anim ? 1 : 0;
    opts.bench = true;
    opts.joints = joints;
    am_error err;
    am_error_clear(&err);
    char msg[AM_ERROR_TEXT_MAX];
    if (am_import_file(path, &g_skel, &opts, r->out, &r->rep, &err))
        fail_msg("%s", am_error_format(&err, msg, sizeof msg));
}

static void done(run *r)
{
    am_import_report_free(&r->rep);
    am_test_rmtree(r->dir);
}

/* Every panel of the sheet spans >= 70 % of its longer side. */
static void well_framed(const char *png, const char *what)
{
    size_t n = 0;
    double fill = am_test_sheet_min_fill(png, 6, &n);
    print_message("%s: %zu panels, the creature spans >= %.1f %% of each panel's longer side\n", what, n, 100 * fill);
    assert_int_equal(n, 12); /* one motion: side and front, 6 times each */
    if (fill < MIN_FILL) {
        am_image img;
        am_error err;
        assert_int_equal(am_tex_png_read_rgba(png, &img, &err), AM_OK);
        am_test_panel p[12];
        am_test_sheet_panels(&img, 6, p, 12);
        for (size_t i = 0; i < 12; i++)
            print_message("  panel %zu: %d x %d at (%d, %d): %.3f\n", i, p[i].w, p[i].h, p[i].x, p[i].y, p[i].fill);
        am_image_free(&img);
    }
    assert_true(fill >= MIN_FILL);
}

/* Pixels of the joint dots' centres (render.c's DOT colour). */
static size_t dot_pixels(const char *png)
{
    am_image img;
    am_error err;
    assert_int_equal(am_tex_png_read_rgba(png, &img, &err), AM_OK);
    size_t n = 0;
    for (size_t i = 0; i < (size_t)img.width * img.height; i++) {
        const uint8_t *p = img.pixels + 4 * i;
        n += p[0] == 225 && p[1] == 40 && p[2] == 40;
    }
    am_image_free(&img);
    return n;
}

static void test_the_small_bear_fills_its_panels_with_its_18_joints_as_dots(void **state)
{
    (void)state;
    char model[1024], bvh[1024];
    if (!shared("data/realdata/Little Bear_90.dae", model, sizeof model) ||
        !shared("data/realdata/TeddyIdle.bvh", bvh, sizeof bvh))
        return;
    run r;
    import(model, bvh, AM_RENDER_JOINTS_AUTO, &r);
    well_framed(am_str(&r.rep.parts[0].pose_sheet), "bear (0.52 m), TeddyIdle");
    size_t dots = dot_pixels(am_str(&r.rep.parts[0].pose_sheet));
    print_message("bear: %zu joint-dot pixels (18 weighted joints: drawn)\n", dots);
    assert_true(dots >= 12 * 18); /* every panel, every weighted joint */
    done(&r);
    import(model, bvh, AM_RENDER_JOINTS_NONE, &r);
    assert_int_equal(dot_pixels(am_str(&r.rep.parts[0].pose_sheet)), 0);
    done(&r);
}

static const char *body_sheet(const run *r)
{
    for (size_t p = 0; p < r->rep.part_count; p++)
        if (strstr(am_str(&r->rep.parts[p].name), "Wolf3D_Body"))
            return am_str(&r->rep.parts[p].pose_sheet);
    fail_msg("no Wolf3D_Body part");
    return NULL;
}

static void test_the_tall_avatar_fills_its_panels_and_its_body_hides_no_limb_under_dots(void **state)
{
    (void)state;
    char model[1024], fbx[1024];
    if (!shared("data/realdata/rpm_avatar.glb", model, sizeof model) ||
        !shared("data/realdata/Walking.fbx", fbx, sizeof fbx))
        return;
    run r;
    import(model, fbx, AM_RENDER_JOINTS_AUTO, &r);
    well_framed(am_str(&r.rep.pose_sheet), "Ready Player Me avatar, 9 parts, Walking");
    const char *body = body_sheet(&r);
    /* every part alone too, the eyes and teeth riding the head included: each panel is
     * centred on the part as posed there, at one scale for the row. Not the footwear: two
     * shoes apart, whose distance changes 2.5 times within a step (at one scale per row the
     * feet together span 38 % of a panel); the creature's sheet shows them in place. */
    for (size_t p = 0; p < r.rep.part_count; p++)
        if (!strstr(am_str(&r.rep.parts[p].name), "Footwear"))
            well_framed(am_str(&r.rep.parts[p].pose_sheet), am_str(&r.rep.parts[p].name));
    /* the body's skin weights more than 25 joints: no dots unless asked */
    assert_int_equal(dot_pixels(body), 0);
    done(&r);
    import(model, fbx, AM_RENDER_JOINTS_DOTS, &r);
    size_t dots = dot_pixels(body_sheet(&r));
    print_message("avatar body with --joints dots: %zu joint-dot pixels\n", dots);
    assert_true(dots > 12 * 25);
    done(&r);
}

static void test_the_long_quadruped_gets_wide_side_panels(void **state)
{
    (void)state;
    char dir[256], path[512];
    am_test_tmpdir(dir, sizeof dir);
    am_gf_write_quad_glb(dir, path, sizeof path, NULL);
    run r;
    import(path, NULL, AM_RENDER_JOINTS_AUTO, &r);
    assert_int_equal(r.rep.motion_count, 1); /* its own walk */
    const char *png = am_str(&r.rep.parts[0].pose_sheet);
    well_framed(png, "quadruped walking");
    am_image img;
    am_error err;
    assert_int_equal(am_tex_png_read_rgba(png, &img, &err), AM_OK);
    am_test_panel p[12];
    assert_int_equal(am_test_sheet_panels(&img, 6, p, 12), 12);
    print_message("quadruped: side panels %d x %d, front panels %d x %d\n", p[0].w, p[0].h, p[6].w, p[6].h);
    assert_true(p[0].w > p[0].h); /* long seen side on: a wide panel */
    am_image_free(&img);
    done(&r);
    am_test_rmtree(dir);
}

/* --joints on every command that draws sheets: a wrong mode is a usage error naming it */
static void test_joints_option_is_checked_on_every_command_that_draws_sheets(void **state)
{
    (void)state;
    static const char *const cmds[] = {"import", "bench", "report", "bind"};
    static const char *const rest[] = {"x.dae --out o --bench", "x.llmesh --png-strip s.png", "x.llmesh",
                                       "x.obj --fit humanoid --out o"};
    for (size_t i = 0; i < 4; i++) {
        char out[8192];
        int rc = am_test_run_cli(out, sizeof out, "%s %s --joints many", cmds[i], rest[i]);
        assert_int_equal(rc, 2);
        assert_non_null(strstr(out, "--joints"));
        assert_non_null(strstr(out, "'many'"));
        rc = am_test_run_cli(out, sizeof out, "%s --help", cmds[i]);
        assert_int_equal(rc, 0);
        assert_non_null(strstr(out, "--joints"));
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_the_small_bear_fills_its_panels_with_its_18_joints_as_dots),
        cmocka_unit_test(test_the_tall_avatar_fills_its_panels_and_its_body_hides_no_limb_under_dots),
        cmocka_unit_test(test_the_long_quadruped_gets_wide_side_panels),
        cmocka_unit_test(test_joints_option_is_checked_on_every_command_that_draws_sheets),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
