/* The preview page without a browser (the browser tests are test_preview_browser.c): what
 * the page holds (joint frames at every key time and 30 fps between, quantised within 1e-4
 * of the height of the bench's own FK), that it asks for nothing, the --preview of the
 * commands, and bad input refused with a clear error and nothing written. */
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bench/bench.h"
#include "bench/bench_internal.h"
#include "mesh/zblock.h"
#include "preview/preview.h"
#include "support/test_support.h"
#include "world/digest.h"

typedef struct fixture {
    char dir[1024], skel[1024];
} fixture;

static int setup(void **state)
{
    fixture *f = calloc(1, sizeof *f);
    am_test_tmpdir(f->dir, sizeof f->dir);
    am_test_shared_path(f->skel, sizeof f->skel, "viewer/avatar_skeleton.xml");
    char log[8192];
    int rc = am_test_run_cli(log, sizeof log, "bendbox --out '%s' --preview --skeleton '%s'", f->dir, f->skel);
    if (rc)
        fail_msg("bendbox: %s", log);
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    fixture *f = *state;
    am_test_rmtree(f->dir);
    free(f);
    return 0;
}

/* The text between `open` and the next "</script>" of a page (malloc'd). */
static char *script_text(const char *page, const char *open)
{
    const char *a = strstr(page, open);
    assert_non_null(a);
    a += strlen(open);
    const char *b = strstr(a, "</script>");
    assert_non_null(b);
    char *t = malloc((size_t)(b - a) + 1);
    memcpy(t, a, (size_t)(b - a));
    t[b - a] = '\0';
    return t;
}

static void test_page_asks_for_nothing_and_holds_the_clip(void **state)
{
    fixture *f = *state;
    char path[1200];
    snprintf(path, sizeof path, "%s/bendbox.preview.html", f->dir);
    size_t n = 0;
    char *page = (char *)am_test_slurp(path, &n);
    /* self-contained: no address, no request API, no external script or style */
    static const char *const banned[] = {"http:", "https:", "fetch(", "XMLHttpRequest", "import(", "<link",
                                         "src=\"/", "WebSocket", "sendBeacon", "@import"};
    for (size_t k = 0; k < sizeof banned / sizeof banned[0]; k++)
        if (strstr(page, banned[k]))
            fail_msg("the page holds '%s'", banned[k]);
    assert_non_null(strstr(page, "animesh-selftest"));
    char *json = script_text(page, "<script id=\"animesh-data\" type=\"application/json\">");
    json_error_t je;
    json_t *d = json_loads(json, 0, &je);
    assert_non_null(d);
    json_t *clip = json_array_get(json_object_get(d, "clips"), 0);
    assert_string_equal(json_string_value(json_object_get(clip, "name")), "bendbox_fold");
    assert_near(json_number_value(json_object_get(clip, "duration")), 6.0, 1e-6);
    assert_true(json_is_true(json_object_get(clip, "loop")));
    /* the atlas beside the mesh is the part's texture */
    json_t *part = json_array_get(json_object_get(d, "parts"), 0);
    assert_non_null(strstr(json_string_value(json_object_get(part, "texture")), "data:image/png;base64,"));
    /* every LOD the asset holds, high first */
    json_t *lods = json_object_get(part, "lods");
    assert_ge(json_array_size(lods), 1);
    assert_string_equal(json_string_value(json_object_get(json_array_get(lods, 0), "level")), "high");
    json_decref(d);
    free(json);
    free(page);
}

/* Decode the page's blob in C and hold each stored frame's joints to the bench's FK. */
static void test_stored_frames_are_the_bench_fk_at_key_times_and_30_fps(void **state)
{
    fixture *f = *state;
    char path[1200], mesh[1200], anim[1200];
    snprintf(path, sizeof path, "%s/bendbox.preview.html", f->dir);
    snprintf(mesh, sizeof mesh, "%s/bendbox.llmesh", f->dir);
    snprintf(anim, sizeof anim, "%s/bendbox_fold.anim", f->dir);
    size_t n = 0;
    char *page = (char *)am_test_slurp(path, &n);
    char *json = script_text(page, "<script id=\"animesh-data\" type=\"application/json\">");
    char *b64 = script_text(page, "<script id=\"animesh-blob\" type=\"application/octet-stream\">");
    json_error_t je;
    json_t *d = json_loads(json, 0, &je);
    assert_non_null(d);
    uint8_t *packed = NULL, *blob = NULL;
    size_t packed_size = 0, blob_size = 0;
    am_error err;
    assert_int_equal(am_base64_decode(b64, &packed, &packed_size, &err), AM_OK);
    assert_int_equal(am_zblock_inflate(packed, packed_size, 1u << 28, &blob, &blob_size, &err), AM_OK);
    assert_int_equal(blob_size, (size_t)json_integer_value(json_object_get(d, "blob_bytes")));

    am_skeleton skel;
    am_test_load_viewer_skeleton(&skel);
    am_bench b;
    const char *anims[] = {anim};
    assert_int_equal(am_bench_load(mesh, anims, 1, &skel, NULL, &b, &err), AM_OK);
    am_bench_motion_info mi;
    assert_int_equal(am_bench_motion_get_info(&b, 0, &mi, &err), AM_OK);

    json_t *clip = json_array_get(json_object_get(d, "clips"), 0), *joints = json_object_get(d, "joints");
    size_t nf = (size_t)json_integer_value(json_object_get(clip, "frames")), nj = json_array_size(joints);
    const float *times = (const float *)(blob + json_integer_value(json_object_get(clip, "times")));
    const uint16_t *pos = (const uint16_t *)(blob + json_integer_value(json_object_get(clip, "pos")));
    const int16_t *rot = (const int16_t *)(blob + json_integer_value(json_object_get(clip, "rot")));
    json_t *pmin = json_object_get(clip, "pos_min"), *pstep = json_object_get(clip, "pos_step");
    /* frames: every key time and every 1/30 s of [0, loop_out], nothing closer than 1 us */
    for (size_t k = 0; k < mi.key_time_count; k++) {
        bool found = false;
        for (size_t i = 0; i < nf && !found; i++)
            found = fabs(times[i] - mi.key_times[k]) < 1e-6;
        assert_true(found);
    }
    for (int g = 0; g <= 180; g++) {
        bool found = false;
        for (size_t i = 0; i < nf && !found; i++)
            found = fabs(times[i] - g / 30.0) < 1e-6;
        assert_true(found);
    }
    size_t nsk = skel.joint_count;
    am_vec3 *wj = malloc(nsk * sizeof *wj), *lpos = malloc(nsk * sizeof *lpos);
    am_quat *wr = malloc(nsk * sizeof *wr), *lrot = malloc(nsk * sizeof *lrot);
    am_bench_local *loc = malloc(nsk * sizeof *loc);
    double worst = 0, worst_deg = 0;
    for (size_t i = 0; i < nf; i++) {
        assert_int_equal(am_bench_pose_at(&b, 0, times[i], NULL, wj, &err), AM_OK);
        /* the world rotations, from the bench's own channels and FK */
        size_t nl = 0;
        assert_int_equal(am_bench_motion_locals(&b, 0, times[i], loc, &nl, &err), AM_OK);
        memcpy(lpos, b.rest_local_pos, nsk * sizeof *lpos);
        memcpy(lrot, b.rest_local_rot, nsk * sizeof *lrot);
        for (size_t l = 0; l < nl; l++) {
            if (loc[l].has_rot)
                lrot[loc[l].joint] = loc[l].rot;
            if (loc[l].has_pos)
                lpos[loc[l].joint] = loc[l].pos;
        }
        am_bench_fk(&b, lpos, lrot, NULL, wj + 0, wr);
        assert_int_equal(am_bench_pose_at(&b, 0, times[i], NULL, wj, &err), AM_OK);
        for (size_t u = 0; u < nj; u++) {
            int j = am_skeleton_find(&skel, json_string_value(json_object_get(json_array_get(joints, u), "name")));
            assert_ge(j, 0);
            am_vec3 want = am_bench_prim_to_bind(&b, wj[j]);
            double w[3] = {want.x, want.y, want.z};
            for (int k = 0; k < 3; k++) {
                double got = json_number_value(json_array_get(pmin, (size_t)k)) +
                             pos[3 * (i * nj + u) + k] * json_number_value(json_array_get(pstep, (size_t)k));
                worst = fmax(worst, fabs(got - w[k]));
            }
            am_quat q = am_quat_normalize(am_quat_mul(am_quat_conj(b.root_rot), wr[j]));
            const int16_t *r = rot + 4 * (i * nj + u);
            double dot = fabs(q.x * r[0] + q.y * r[1] + q.z * r[2] + q.w * r[3]) /
                         sqrt((double)r[0] * r[0] + (double)r[1] * r[1] + (double)r[2] * r[2] + (double)r[3] * r[3]);
            worst_deg = fmax(worst_deg, 2 * acos(fmin(1.0, dot)) / AM_DEG2RAD);
        }
    }
    print_message("  %zu frames (%zu key times), %zu joints: largest joint difference %.3g m (height %.3f m), "
                  "rotation %.2g deg\n",
                  nf, mi.key_time_count, nj, worst, b.height, worst_deg);
    assert_lt(worst, 1e-4 * b.height);
    assert_lt(worst_deg, 0.01); /* I16 components: ~0.004 deg */
    free(wj);
    free(wr);
    free(lpos);
    free(lrot);
    free(loc);
    am_bench_free(&b);
    am_skeleton_free(&skel);
    json_decref(d);
    free(packed);
    free(blob);
    free(json);
    free(b64);
    free(page);
}

static void test_bad_input_is_refused_and_nothing_written(void **state)
{
    fixture *f = *state;
    char log[8192], bad[1200], mesh[1200];
    snprintf(mesh, sizeof mesh, "%s/bendbox.llmesh", f->dir);
    /* a truncated mesh asset: exit 1, the file named, no page */
    snprintf(bad, sizeof bad, "%s/cut", f->dir);
    assert_int_equal(mkdir(bad, 0777), 0);
    size_t n = 0;
    uint8_t *m = am_test_slurp(mesh, &n);
    char cut[1300];
    snprintf(cut, sizeof cut, "%s/cut/half.llmesh", f->dir);
    FILE *out = fopen(cut, "wb");
    assert_non_null(out);
    assert_int_equal(fwrite(m, 1, n / 2, out), n / 2);
    fclose(out);
    free(m);
    assert_int_equal(am_test_run_cli(log, sizeof log, "preview '%s' --skeleton '%s'", cut, f->skel), 1);
    assert_non_null(strstr(log, "half"));
    assert_int_equal(am_test_count_entries(bad), 1);
    /* an .anim that is not one: exit 1 naming it, no page */
    char junk[1300];
    snprintf(junk, sizeof junk, "%s/cut/junk.anim", f->dir);
    am_test_write_text(junk, "not an animation");
    assert_int_equal(
        am_test_run_cli(log, sizeof log, "preview '%s' --anim '%s' -o '%s/cut/x.preview.html' --skeleton '%s'", mesh, junk,
                        f->dir, f->skel),
        1);
    assert_non_null(strstr(log, "junk"));
    assert_int_equal(am_test_count_entries(bad), 2);
    /* a missing file: exit 3; usage: exit 2 */
    assert_int_equal(am_test_run_cli(log, sizeof log, "preview '%s/none.llmesh' --skeleton '%s'", f->dir, f->skel), 3);
    assert_int_equal(am_test_run_cli(log, sizeof log, "preview"), 2);
    assert_int_equal(am_test_run_cli(log, sizeof log, "preview '%s' --frobnicate", mesh), 2);
    assert_int_equal(am_test_run_cli(log, sizeof log, "preview --help"), 0);
    assert_non_null(strstr(log, "#selftest=CLIP@T"));
}

static void test_preview_of_skin_and_cli_default_name(void **state)
{
    fixture *f = *state;
    char log[8192], dir[1200];
    snprintf(dir, sizeof dir, "%s/quad", f->dir);
    assert_int_equal(am_test_run_cli(log, sizeof log, "skin '%s/assets/rigs/quadruped.json' --out '%s' --preview --skeleton '%s'",
                                     AM_SOURCE_DIR, dir, f->skel),
                     0);
    char page[1300];
    snprintf(page, sizeof page, "%s/quadruped.preview.html", dir);
    struct stat sb;
    assert_int_equal(stat(page, &sb), 0);
    assert_gt(sb.st_size, 10000);
    /* `preview DIR` writes the same name into the current folder (never into DIR unless
     * -o says so), with the folder's .anim as clips */
    unlink(page);
    char anim[1300];
    snprintf(anim, sizeof anim, "%s/quadruped_wag.anim", dir);
    assert_int_equal(am_test_run_cli(log, sizeof log, "anim encode '%s/assets/anims/quadruped_wag.json' -o '%s'",
                                     AM_SOURCE_DIR, anim),
                     0);
    char cwd[1024], here[1200], here_page[1300];
    assert_non_null(getcwd(cwd, sizeof cwd));
    snprintf(here, sizeof here, "%s/here", f->dir);
    assert_int_equal(mkdir(here, 0777), 0);
    assert_int_equal(chdir(here), 0);
    int rc = am_test_run_cli(log, sizeof log, "preview '%s' --skeleton '%s'", dir, f->skel);
    assert_int_equal(chdir(cwd), 0);
    assert_int_equal(rc, 0);
    assert_non_null(strstr(log, "1 clip"));
    snprintf(here_page, sizeof here_page, "%s/quadruped.preview.html", here);
    assert_int_equal(stat(here_page, &sb), 0);
    assert_int_equal(stat(page, &sb), -1);
    /* -o into DIR when asked */
    assert_int_equal(am_test_run_cli(log, sizeof log, "preview '%s' -o '%s' --skeleton '%s'", dir, page, f->skel), 0);
    assert_int_equal(stat(page, &sb), 0);
}

static void test_bind_skin_preview_is_one_of_its_files(void **state)
{
    fixture *f = *state;
    char log[16384], obj[1024], rig[1024], dir[1200], page[1300];
    am_test_shared_path(obj, sizeof obj, "data/creature/creature_10k.obj");
    am_test_shared_path(rig, sizeof rig, "data/creature/creature_10k.skeleton.json");
    snprintf(dir, sizeof dir, "%s/bind", f->dir);
    assert_int_equal(am_test_run_cli(log, sizeof log, "bind '%s' --skeleton-rig '%s' --out '%s' --preview --skeleton '%s'",
                                     obj, rig, dir, f->skel),
                     2); /* the page shows the skin: --preview needs --skin */
    int rc = am_test_run_cli(log, sizeof log, "bind '%s' --skeleton-rig '%s' --out '%s' --skin --preview --skeleton '%s'",
                             obj, rig, dir, f->skel);
    if (rc)
        fail_msg("bind: %s", log);
    assert_non_null(strstr(log, "creature_10k.preview.html"));
    snprintf(page, sizeof page, "%s/creature_10k.preview.html", dir);
    size_t n = 0;
    char *text = (char *)am_test_slurp(page, &n);
    assert_non_null(strstr(text, "\"title\":\"creature_10k\""));
    free(text);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_page_asks_for_nothing_and_holds_the_clip),
        cmocka_unit_test(test_stored_frames_are_the_bench_fk_at_key_times_and_30_fps),
        cmocka_unit_test(test_bad_input_is_refused_and_nothing_written),
        cmocka_unit_test(test_preview_of_skin_and_cli_default_name),
        cmocka_unit_test(test_bind_skin_preview_is_one_of_its_files),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
