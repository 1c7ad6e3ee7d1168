/* The preview page in a real browser (Debian's chromium, headless, software WebGL): the
 * vertices it draws at #selftest=CLIP@T against the bench's own posed vertices (within 1e-4
 * of the height), its joints against the bench's FK, and its #shot=side picture against the
 * bench's silhouette of the same pose (intersection over union >= 0.97), for the bend box,
 * the quadruped with its tail wag (animesh preview DIR), and Little Bear imported with
 * TeddyIdle.bvh (the page of import --preview), and the bend box under hostile names (a clip
 * `<!--<script>`, a part `--title`, a title `</script><!--<script>`: issue 31.4, a blank page
 * before the data was escaped).
 * ctest label `browser`; exit 77 (skipped) with one line when no chromium is installed. */
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bench/bench.h"
#include "bench/render.h"
#include "support/test_support.h"

#define SHOT_W 480
#define SHOT_H 400

static char browser[1024];

/* ANIMESH_CHROMIUM, else chromium / chromium-browser / google-chrome on PATH. */
static bool find_browser(void)
{
    const char *env = getenv("ANIMESH_CHROMIUM");
    if (env && *env && access(env, X_OK) == 0) {
        snprintf(browser, sizeof browser, "%s", env);
        return true;
    }
    static const char *const names[] = {"chromium", "chromium-browser", "google-chrome"};
    const char *path = getenv("PATH");
    for (size_t k = 0; path && k < 3; k++) {
        const char *p = path;
        while (*p) {
            const char *e = strchr(p, ':');
            size_t len = e ? (size_t)(e - p) : strlen(p);
            snprintf(browser, sizeof browser, "%.*s/%s", (int)len, p, names[k]);
            if (len && access(browser, X_OK) == 0)
                return true;
            p += len + (e ? 1 : 0);
        }
    }
    return false;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* Run headless chromium on page#hash with `what` (--dump-dom > out, or --screenshot=out). */
static void run_browser(const char *dir, const char *page, const char *hash, bool screenshot, const char *out)
{
    char cmd[8192];
    snprintf(cmd, sizeof cmd,
             "TMPDIR='%s' '%s' --headless=new --no-sandbox --use-angle=swiftshader --enable-unsafe-swiftshader "
             "--disable-extensions --no-first-run --user-data-dir='%s/profile' --virtual-time-budget=500 "
             "--window-size=%d,%d --hide-scrollbars %s%s%s 'file://%s#%s' %s%s%s 2>/dev/null",
             dir, browser, dir, SHOT_W, SHOT_H, screenshot ? "--screenshot='" : "--dump-dom", screenshot ? out : "",
             screenshot ? "'" : "", page, hash, screenshot ? "" : "> '", screenshot ? "" : out, screenshot ? "" : "'");
    double t0 = now_s();
    int st = system(cmd);
    print_message("  chromium %s #%s: %.2f s\n", screenshot ? "screenshot" : "dump-dom", hash, now_s() - t0);
    assert_true(WIFEXITED(st));
}

/* The JSON inside <pre id="animesh-selftest"> of a dumped DOM (text entities undone). */
static json_t *selftest_json(const char *path)
{
    size_t n = 0;
    char *dom = (char *)am_test_slurp(path, &n);
    const char *tag = "<pre id=\"animesh-selftest\">";
    char *a = strstr(dom, tag);
    if (!a)
        fail_msg("the page wrote no selftest (%zu bytes of DOM)", n);
    a += strlen(tag);
    char *b = strstr(a, "</pre>");
    assert_non_null(b);
    *b = '\0';
    char *w = a;
    for (char *r = a; *r;) {
        if (!strncmp(r, "&amp;", 5)) *w++ = '&', r += 5;
        else if (!strncmp(r, "&lt;", 4)) *w++ = '<', r += 4;
        else if (!strncmp(r, "&gt;", 4)) *w++ = '>', r += 4;
        else if (!strncmp(r, "&quot;", 6)) *w++ = '"', r += 6;
        else *w++ = *r++;
    }
    *w = '\0';
    json_error_t je;
    json_t *j = json_loads(a, 0, &je);
    if (!j)
        fail_msg("selftest JSON: %s", je.text);
    free(dom);
    return j;
}

typedef struct creature {
    char dir[1024];
    char mesh[1200], anim[1200], page[1200];
    const char *clip;
    double t;
} creature;

/* Pose the written files on the bench, then hold the page to it. */
static void check_page(const creature *c)
{
    am_skeleton skel;
    am_test_load_viewer_skeleton(&skel);
    am_bench b;
    am_error err;
    const char *anims[] = {c->anim};
    if (am_bench_load(c->mesh, anims, 1, &skel, NULL, &b, &err))
        fail_msg("bench: %s", err.msg);
    size_t n = b.vertex_count;
    float *prim = malloc(3 * n * sizeof *prim), *bind = malloc(3 * n * sizeof *bind);
    am_vec3 *joints = malloc(skel.joint_count * sizeof *joints);
    uint8_t *mask = malloc(SHOT_W * SHOT_H);
    assert_true(prim && bind && joints && mask);
    assert_int_equal(am_bench_pose_at(&b, 0, c->t, prim, joints, &err), AM_OK);
    am_bench_positions_to_bind(&b, prim, bind, n);

    /* 1. the selftest's vertices and joints */
    char out[1300], hash[256];
    snprintf(out, sizeof out, "%s/dom.html", c->dir);
    snprintf(hash, sizeof hash, "selftest=%s@%g", c->clip, c->t);
    run_browser(c->dir, c->page, hash, false, out);
    json_t *j = selftest_json(out);
    assert_true(json_is_true(json_object_get(j, "found")));
    json_t *verts = json_object_get(j, "vertices");
    assert_int_equal(json_array_size(verts), n);
    double worst = 0, moved = 0;
    for (size_t i = 0; i < n; i++)
        for (int k = 0; k < 3; k++) {
            double v = json_number_value(json_array_get(json_array_get(verts, i), (size_t)k));
            worst = fmax(worst, fabs(v - bind[3 * i + k]));
            moved = fmax(moved, fabs(bind[3 * i + k] - b.bind_pos[3 * i + k]));
        }
    double jworst = 0;
    size_t jcount = 0;
    const char *name;
    json_t *jv;
    json_object_foreach(json_object_get(j, "joints"), name, jv) {
        int ji = am_skeleton_find(&skel, name);
        assert_ge(ji, 0);
        am_vec3 want = am_bench_prim_to_bind(&b, joints[ji]);
        double d[3] = {want.x, want.y, want.z};
        for (int k = 0; k < 3; k++)
            jworst = fmax(jworst, fabs(json_number_value(json_array_get(jv, (size_t)k)) - d[k]));
        jcount++;
    }
    print_message("  %s@%g: %zu vertices, largest difference %.3g m = %.3g of the height %.3f m (pose moved "
                  "vertices up to %.3f m); %zu joints, largest %.3g m; first frame %.0f ms\n",
                  c->clip, c->t, n, worst, worst / b.height, b.height, moved, jcount, jworst,
                  json_number_value(json_object_get(j, "first_frame_ms")));
    assert_gt(moved, 1e-3 * b.height); /* the pose tested is not the rest pose */
    assert_le(worst, 1e-4 * b.height);
    assert_ge(jcount, 1);
    assert_le(jworst, 1e-4 * b.height);
    json_decref(j);

    /* 2. the side shot against the bench's silhouette */
    snprintf(out, sizeof out, "%s/shot.png", c->dir);
    snprintf(hash, sizeof hash, "shot=side&clip=%s&t=%g", c->clip, c->t);
    run_browser(c->dir, c->page, hash, true, out);
    am_image img;
    if (am_tex_png_read_rgba(out, &img, &err))
        fail_msg("screenshot: %s", err.msg);
    assert_int_equal(img.width, SHOT_W);
    assert_int_equal(img.height, SHOT_H);
    assert_int_equal(am_render_silhouette(&b, bind, SHOT_W, SHOT_H, mask, &err), AM_OK);
    size_t inter = 0, uni = 0, page_px = 0, bench_px = 0;
    for (size_t i = 0; i < (size_t)SHOT_W * SHOT_H; i++) {
        const uint8_t *px = img.pixels + 4 * i;
        bool page_on = px[0] < 245 || px[1] < 245 || px[2] < 245;
        page_px += page_on, bench_px += mask[i];
        inter += page_on && mask[i];
        uni += page_on || mask[i];
    }
    double iou = uni ? (double)inter / (double)uni : 0;
    print_message("  side shot: page %zu px, bench %zu px, IoU %.4f\n", page_px, bench_px, iou);
    assert_gt(bench_px, 1000);
    assert_ge(iou, 0.97);
    am_image_free(&img);
    unlink(out);
    snprintf(out, sizeof out, "%s/dom.html", c->dir);
    unlink(out);

    free(prim);
    free(bind);
    free(joints);
    free(mask);
    am_bench_free(&b);
    am_skeleton_free(&skel);
}

static int make_dir(void **state)
{
    creature *c = calloc(1, sizeof *c);
    am_test_tmpdir(c->dir, sizeof c->dir);
    *state = c;
    return 0;
}

static int remove_dir(void **state)
{
    creature *c = *state;
    am_test_rmtree(c->dir);
    free(c);
    return 0;
}

static void preview(creature *c, const char *stem)
{
    char log[8192], skel[1024];
    am_test_shared_path(skel, sizeof skel, "viewer/avatar_skeleton.xml");
    snprintf(c->page, sizeof c->page, "%s/%s.preview.html", c->dir, stem);
    int rc = am_test_run_cli(log, sizeof log, "preview '%s' -o '%s' --skeleton '%s'", c->dir, c->page, skel);
    if (rc)
        fail_msg("preview: %s", log);
    print_message("  %s", log);
}

static void test_bendbox_page_poses_as_the_bench(void **state)
{
    creature *c = *state;
    c->clip = "bendbox_fold", c->t = 1.5;
    char log[8192], skel[1024];
    am_test_shared_path(skel, sizeof skel, "viewer/avatar_skeleton.xml");
    assert_int_equal(am_test_run_cli(log, sizeof log, "bendbox --out '%s' --skeleton '%s'", c->dir, skel), 0);
    snprintf(c->mesh, sizeof c->mesh, "%s/bendbox.llmesh", c->dir);
    snprintf(c->anim, sizeof c->anim, "%s/bendbox_fold.anim", c->dir);
    preview(c, "bendbox");
    check_page(c);
}

/* issue 31.4: a clip file named `<!--<script>.anim`, a part `--title.llmesh` and a title
 * `</script><!--<script>` put the page's own code inside the data element in Chromium's
 * tokenizer (a blank page: no selftest). Escaped, the page draws and poses as the bench. */
static void test_a_page_of_hostile_names_renders_and_poses_as_the_bench(void **state)
{
    creature *c = *state;
    c->clip = "<!--<script>", c->t = 1.5;
    char log[8192], skel[1024], from[1200];
    am_test_shared_path(skel, sizeof skel, "viewer/avatar_skeleton.xml");
    assert_int_equal(am_test_run_cli(log, sizeof log, "bendbox --out '%s' --skeleton '%s'", c->dir, skel), 0);
    snprintf(from, sizeof from, "%s/bendbox.llmesh", c->dir);
    snprintf(c->mesh, sizeof c->mesh, "%s/--title.llmesh", c->dir);
    assert_int_equal(rename(from, c->mesh), 0);
    snprintf(from, sizeof from, "%s/bendbox_fold.anim", c->dir);
    snprintf(c->anim, sizeof c->anim, "%s/<!--<script>.anim", c->dir);
    assert_int_equal(rename(from, c->anim), 0);
    snprintf(c->page, sizeof c->page, "%s/hostile.preview.html", c->dir);
    int rc = am_test_run_cli(log, sizeof log, "preview '%s' -o '%s' --title '</script><!--<script>' --skeleton '%s'",
                             c->dir, c->page, skel);
    if (rc)
        fail_msg("preview: %s", log);
    check_page(c);
}

static void test_quadruped_tail_wag_page_poses_as_the_bench(void **state)
{
    creature *cp = *state;
    creature c = *cp;
    c.clip = "quadruped_wag", c.t = 0.5;
    char log[8192], skel[1024];
    am_test_shared_path(skel, sizeof skel, "viewer/avatar_skeleton.xml");
    assert_int_equal(am_test_run_cli(log, sizeof log, "skin '%s/assets/rigs/quadruped.json' --out '%s' --skeleton '%s'",
                                     AM_SOURCE_DIR, c.dir, skel),
                     0);
    snprintf(c.anim, sizeof c.anim, "%s/quadruped_wag.anim", c.dir);
    assert_int_equal(am_test_run_cli(log, sizeof log, "anim encode '%s/assets/anims/quadruped_wag.json' -o '%s'",
                                     AM_SOURCE_DIR, c.anim),
                     0);
    snprintf(c.mesh, sizeof c.mesh, "%s/quadruped.llmesh", c.dir);
    preview(&c, "quadruped");
    check_page(&c);
}

static void test_imported_bear_with_bvh_clip_page_poses_as_the_bench(void **state)
{
    creature *cp = *state;
    creature c = *cp;
    c.clip = "TeddyIdle", c.t = 1.0;
    char log[8192], skel[1024], dae[1024], bvh[1024];
    am_test_shared_path(skel, sizeof skel, "viewer/avatar_skeleton.xml");
    am_test_shared_path(dae, sizeof dae, "data/realdata/Little Bear_90.dae");
    am_test_shared_path(bvh, sizeof bvh, "data/realdata/TeddyIdle.bvh");
    /* the page import --preview writes into its output set */
    int rc = am_test_run_cli(log, sizeof log, "import '%s' --anim '%s' --out '%s' --preview --verbose --skeleton '%s'",
                             dae, bvh, c.dir, skel);
    if (rc)
        fail_msg("import: %s", log);
    assert_non_null(strstr(log, "Little_Bear_90.preview.html"));
    snprintf(c.mesh, sizeof c.mesh, "%s/Little_Bear_90.llmesh", c.dir);
    snprintf(c.anim, sizeof c.anim, "%s/TeddyIdle.anim", c.dir);
    snprintf(c.page, sizeof c.page, "%s/Little_Bear_90.preview.html", c.dir);
    check_page(&c);
}

int main(void)
{
    if (!find_browser()) {
        printf("SKIP: no chromium on PATH (install it with scripts/setup.sh --test-deps, or set ANIMESH_CHROMIUM)\n");
        return 77;
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_bendbox_page_poses_as_the_bench, make_dir, remove_dir),
        cmocka_unit_test_setup_teardown(test_a_page_of_hostile_names_renders_and_poses_as_the_bench, make_dir, remove_dir),
        cmocka_unit_test_setup_teardown(test_quadruped_tail_wag_page_poses_as_the_bench, make_dir, remove_dir),
        cmocka_unit_test_setup_teardown(test_imported_bear_with_bvh_clip_page_poses_as_the_bench, make_dir, remove_dir),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
