/* A zeroed options struct is the defaults (core/option.h), for every public call that takes
 * one: each call is made twice, once with the struct its `_init` function fills and once
 * with `{0}`, and what the call produces must be the same bytes (the encoded mesh asset,
 * the .anim, the weights, the picture). Then AM_OPTION_ZERO: a zero that is a choice, not
 * the default (priority 0, no ease). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <jansson.h>

#include "anim/bvh.h"
#include "batch/batch.h"
#include "bench/bench.h"
#include "bench/bench_report.h"
#include "bench/render.h"
#include "bind/bind.h"
#include "bind/bind_io.h"
#include "core/io.h"
#include "core/option.h"
#include "import/import.h"
#include "readers/scene_load.h"
#include "retarget/motion_file.h"
#include "retarget/retarget.h"
#include "skin/skin_build.h"
#include "support/batch_library.h"
#include "support/bind_fixtures.h"
#include "support/gltf_fixtures.h"
#include "support/test_support.h"
#include "support/world_fixtures.h"
#include "world/oar_verify.h"
#include "world/remoteadmin.h"
#include "world/worldbridge.h"

static am_skeleton g_skel;
static int setup(void **state) { return (void)state, am_test_load_viewer_skeleton(&g_skel), 0; }
static int teardown(void **state) { return (void)state, am_skeleton_free(&g_skel), 0; }

static void must(am_status st, const am_error *err)
{
    char msg[AM_ERROR_TEXT_MAX];
    if (st)
        fail_msg("%s", am_error_format(err, msg, sizeof msg));
}

/* am_import_file: the retarget route (axes, map, skin budget, LODs, the walk's .anim, the
 * object's place in the archive) writes the same files from {0} as from the init-ed struct. */
static void test_import_with_zeroed_options_writes_what_the_defaults_write(void **state)
{
    (void)state;
    char dir[256], path[512], out[2][600], oar[2][700];
    am_test_tmpdir(dir, sizeof dir);
    am_gf_write_quad_glb(dir, path, sizeof path, NULL);
    am_import_report rep[2];
    for (int k = 0; k < 2; k++) {
        am_import_options o;
        if (k == 0)
            am_import_options_init(&o);
        else
            memset(&o, 0, sizeof o);
        snprintf(out[k], sizeof out[k], "%s/out%d", dir, k);
        snprintf(oar[k], sizeof oar[k], "%s/quad%d.oar", dir, k);
        o.oar_path = oar[k];
        am_error err;
        am_error_clear(&err);
        must(am_import_file(path, &g_skel, &o, out[k], &rep[k], &err), &err);
    }
    assert_int_equal(rep[0].route, AM_IMPORT_RETARGET);
    assert_int_equal(rep[1].route, rep[0].route);
    assert_int_equal(rep[1].part_count, rep[0].part_count);
    assert_int_equal(rep[0].motion_count, 1);
    assert_int_equal(rep[1].motion_count, rep[0].motion_count);
    char a[800], b[800];
    snprintf(a, sizeof a, "%s/quad.llmesh", out[0]);
    snprintf(b, sizeof b, "%s/quad.llmesh", out[1]);
    am_test_assert_same_file(a, b);
    assert_string_equal(am_str(&rep[1].motions[0]), am_str(&rep[0].motions[0]));
    snprintf(a, sizeof a, "%s/%s.anim", out[0], am_str(&rep[0].motions[0]));
    snprintf(b, sizeof b, "%s/%s.anim", out[1], am_str(&rep[1].motions[0]));
    am_test_assert_same_file(a, b);
    am_test_assert_same_file(oar[0], oar[1]); /* at 128, 128, 25 both times */
    for (int k = 0; k < 2; k++)
        am_import_report_free(&rep[k]);
    am_test_rmtree(dir);
}

/* am_scene_load_ex, am_retarget, am_skin_build, am_bench_load_mem and am_render_frame, one
 * after the other: {0} at every step gives the bytes the init-ed options give. */
static void test_scene_retarget_skin_bench_render_with_zeroed_options(void **state)
{
    (void)state;
    char dir[256], path[512];
    am_test_tmpdir(dir, sizeof dir);
    am_gf_write_quad_glb(dir, path, sizeof path, NULL);
    am_buf mesh[2] = {{0}}, anim[2] = {{0}};
    am_image img[2];
    memset(img, 0, sizeof img);
    for (int k = 0; k < 2; k++) {
        bool zero = k == 1;
        am_error err;
        am_error_clear(&err);
        am_scene scene;
        am_scene_load_options lo = {0};
        must(zero ? am_scene_load_ex(path, &lo, &scene, &err) : am_scene_load(path, &scene, &err), &err);

        am_retarget_options ro;
        if (zero)
            memset(&ro, 0, sizeof ro);
        else
            am_retarget_options_init(&ro);
        am_retarget_result r;
        must(am_retarget(&scene, &g_skel, &ro, &r, &err), &err);
        assert_int_equal(r.rig_count, 1);
        assert_int_equal(r.anim_count, 1);
        assert_int_equal(r.anims[0].motion.base_priority, 4); /* the documented default */
        must(am_retarget_write_anim(&r, 0, &g_skel, NULL, &anim[k], NULL, &err), &err);

        am_skin_options so;
        if (zero)
            memset(&so, 0, sizeof so);
        else
            am_skin_options_init(&so);
        am_skin_result sr;
        must(am_skin_build(&r.rigs[0].rig, &g_skel, &so, &sr, &err), &err);
        assert_int_equal(sr.summary.region_max_tris, AM_SKIN_DEFAULT_REGION_MAX_TRIS);
        must(am_skin_encode(&sr, &mesh[k], &err), &err);

        am_bench_options bo = {0};
        am_bench b;
        must(am_bench_load_mem(mesh[k].data, mesh[k].size, "quad", &g_skel, zero ? &bo : NULL, &b, &err), &err);
        assert_int_equal(b.lod, AM_LOD_HIGH); /* the highest LOD present */
        am_render_options ren;
        if (zero)
            memset(&ren, 0, sizeof ren);
        else
            am_render_options_init(&ren);
        must(am_render_frame(&b, b.rest_prim, NULL, &ren, "rest", &img[k], &err), &err);

        am_bench_free(&b);
        am_skin_result_free(&sr);
        am_retarget_result_free(&r);
        am_scene_free(&scene);
    }
    assert_int_equal(mesh[0].size, mesh[1].size);
    assert_memory_equal(mesh[0].data, mesh[1].data, mesh[0].size);
    assert_int_equal(anim[0].size, anim[1].size);
    assert_memory_equal(anim[0].data, anim[1].data, anim[0].size);
    assert_int_equal(img[0].width, 360); /* 360 x 400, side view */
    assert_int_equal(img[1].width, img[0].width);
    assert_int_equal(img[1].height, img[0].height);
    assert_memory_equal(img[0].pixels, img[1].pixels, (size_t)img[0].width * img[0].height * img[0].channels);
    for (int k = 0; k < 2; k++) {
        am_buf_free(&mesh[k]);
        am_buf_free(&anim[k]);
        am_image_free(&img[k]);
    }
    am_test_rmtree(dir);
}

/* am_motion_file_convert (anim from-model, import --anim): the quadruped's walk as a motion,
 * from {0} and from the init-ed struct, is the same .anim. */
static void test_motion_file_with_zeroed_options_writes_the_default_motion(void **state)
{
    (void)state;
    char dir[256], path[512];
    am_test_tmpdir(dir, sizeof dir);
    am_gf_write_quad_glb(dir, path, sizeof path, NULL);
    am_motion_file_result r[2];
    for (int k = 0; k < 2; k++) {
        am_motion_file_options o;
        if (k == 0)
            am_motion_file_options_init(&o);
        else
            memset(&o, 0, sizeof o);
        am_error err;
        am_error_clear(&err);
        must(am_motion_file_convert(path, &g_skel, &o, &r[k], &err), &err);
    }
    assert_int_equal(r[0].anim_count, 1);
    assert_int_equal(r[1].anim_count, r[0].anim_count);
    assert_gt(r[0].anims[0].anim.size, (size_t)0);
    assert_int_equal(r[1].anims[0].anim.size, r[0].anims[0].anim.size);
    assert_memory_equal(r[0].anims[0].anim.data, r[1].anims[0].anim.data, r[0].anims[0].anim.size);
    for (int k = 0; k < 2; k++)
        am_motion_file_result_free(&r[k]);
    am_test_rmtree(dir);
}

static const char *tiny_bvh =
    "HIERARCHY\n"
    "ROOT hip\n{\n  OFFSET 0 0 0\n  CHANNELS 6 Xposition Yposition Zposition Zrotation Xrotation Yrotation\n"
    "  JOINT lThigh\n  {\n    OFFSET 4 -2 0\n    CHANNELS 3 Zrotation Xrotation Yrotation\n"
    "    End Site\n    {\n      OFFSET 0 -10 0\n    }\n  }\n}\n"
    "MOTION\nFrames: 6\nFrame Time: 0.5\n"
    "0 40 0   0 0 90   0 0 0\n"
    "0 40 10  0 0 90   0 30 0\n"
    "1 42 10  0 0 90   90 0 0\n"
    "2 44 10  0 0 120  0 0 0\n"
    "2 44 10  0 0 120  0 10 0\n"
    "2 44 10  0 0 120  0 20 0\n";

static void bvh_anim(const am_bvh_options *o, am_anim *a, am_buf *bytes)
{
    am_bvh b;
    am_error err;
    am_error_clear(&err);
    must(am_bvh_parse(tiny_bvh, strlen(tiny_bvh), &b, &err), &err);
    must(am_bvh_to_anim(&b, &g_skel, o, a, NULL, &err), &err);
    must(am_anim_encode(a, bytes, &err), &err);
    am_bvh_free(&b);
}

/* am_bvh_to_anim: {0} is the viewer's upload defaults (priority 2, ease 0.3 s, hand pose
 * 1), byte for byte; AM_OPTION_ZERO asks for the zeros themselves. */
static void test_bvh_with_zeroed_options_is_the_viewers_conversion(void **state)
{
    (void)state;
    am_bvh_options init, zero = {0};
    am_bvh_options_init(&init);
    am_anim a, z;
    am_buf ab = {0}, zb = {0};
    bvh_anim(&init, &a, &ab);
    bvh_anim(&zero, &z, &zb);
    assert_int_equal(a.base_priority, 2);
    assert_int_equal(a.hand_pose, 1);
    assert_float_equal(a.ease_in, 0.3, 1e-6);
    assert_int_equal(ab.size, zb.size);
    assert_memory_equal(ab.data, zb.data, ab.size);
    am_anim_free(&z);
    am_buf_free(&zb);

    /* looping to the end, zeroed loop-out: the clip's duration, as the init-ed -1 was (a
     * tolerance that takes the walk's 30 degree seam) */
    am_bvh_options loop = {.loop = true, .loop_tolerance_deg = 180, .loop_tolerance_m = 10};
    bvh_anim(&loop, &z, &zb);
    assert_int_equal(z.loop, 1);
    assert_float_equal(z.loop_out, a.duration, 1e-6);
    am_anim_free(&z);
    am_buf_free(&zb);

    am_bvh_options zeros = {.priority = AM_OPTION_ZERO, .ease_in_s = AM_OPTION_ZERO, .ease_out_s = AM_OPTION_ZERO,
                            .hand_pose = AM_OPTION_ZERO, .loop = true, .loop_out_s = AM_OPTION_ZERO};
    bvh_anim(&zeros, &z, &zb);
    assert_int_equal(z.base_priority, 0);
    assert_int_equal(z.hand_pose, 0);
    assert_float_equal(z.ease_in, 0, 0);
    assert_float_equal(z.ease_out, 0, 0);
    assert_float_equal(z.loop_out, 0, 0);
    am_anim_free(&z);
    am_buf_free(&zb);
    am_anim_free(&a);
    am_buf_free(&ab);
}

/* am_bind on the 10k creature: {0} gives the weights the init-ed options give. */
static void test_bind_with_zeroed_options_gives_the_default_weights(void **state)
{
    (void)state;
    am_bind_source src;
    am_bind_skeleton sk;
    am_test_creature("10k", &g_skel, &src, &sk);
    am_bind_mesh m = am_bind_source_mesh(&src);
    am_bind_options init, zero = {0};
    am_bind_options_init(&init);
    am_bind_result r[2];
    am_error err;
    am_error_clear(&err);
    must(am_bind(&m, &sk, &init, &r[0], &err), &err);
    must(am_bind(&m, &sk, &zero, &r[1], &err), &err);
    assert_int_equal(r[0].unweighted, 0);
    assert_int_equal(r[1].vertex_count, r[0].vertex_count);
    size_t n = r[0].vertex_count;
    assert_memory_equal(r[0].count, r[1].count, n);
    assert_memory_equal(r[0].joint, r[1].joint, 4 * n * sizeof *r[0].joint);
    assert_memory_equal(r[0].weight, r[1].weight, 4 * n * sizeof *r[0].weight);
    for (int k = 0; k < 2; k++)
        am_bind_result_free(&r[k]);
    am_bind_skeleton_free(&sk);
    am_bind_source_free(&src);
}

/* The WorldBridge client reads {0}'s timings as the defaults; the verify options' user. */
static void test_world_options_zeroed_are_the_defaults(void **state)
{
    (void)state;
    char dir[256];
    am_test_tmpdir(dir, sizeof dir);
    am_worldbridge_options init, zero = {.dry_run_dir = dir};
    am_worldbridge_options_init(&init);
    am_worldbridge_client c;
    am_error err;
    must(am_worldbridge_client_init(&c, &zero, &err), &err);
    assert_int_equal(c.opt.connect_timeout_ms, init.connect_timeout_ms);
    assert_int_equal(c.opt.total_timeout_ms, init.total_timeout_ms);
    assert_int_equal(c.opt.max_attempts, init.max_attempts);
    assert_int_equal(c.opt.backoff_ms, init.backoff_ms);
    am_worldbridge_client_free(&c);
    am_oar_verify_options vo = {0}, vi;
    am_oar_verify_options_init(&vi);
    assert_int_equal(vi.region_uid, vo.region_uid); /* ours */
    assert_int_equal(am_oar_verify_uid(-1), 0);
    assert_int_equal(am_oar_verify_uid(0), AM_OPTION_ZERO); /* root */
    assert_int_equal(am_oar_verify_uid(1000), 1000);
    am_test_rmtree(dir);
}

/* RemoteAdmin from {0} (and no wait between tries): a refused connection is tried the
 * default number of times. */
static void test_remoteadmin_zeroed_retries_as_the_default(void **state)
{
    (void)state;
    am_test_no_proxy();
    am_remoteadmin_options ra = {.url = "http://127.0.0.1:1/", .password = "x", .backoff_ms = AM_OPTION_ZERO};
    am_remoteadmin_reply reply;
    int attempts = 0;
    am_error err;
    assert_int_equal(am_remoteadmin_console_call(&ra, "show version", &reply, &attempts, &err), AM_ERR_NETWORK);
    am_remoteadmin_reply_free(&reply);
    assert_int_equal(attempts, AM_REMOTEADMIN_DEFAULT_RETRIES + 1);
}

/* A whole library with every batch options struct zeroed but for what a call cannot do
 * without (the folder to search, the skeleton, the program a job runs): the plan finds the
 * creature, the local engine converts it with the default import options (--bench
 * --preview), the catalogue says done; then the bench report of the written asset from
 * {0} is the one its defaults give. */
static void test_batch_and_bench_report_with_zeroed_options(void **state)
{
    (void)state;
    char dir[512], catalog[700];
    assert_non_null(am_test_tmpdir(dir, sizeof dir));
    am_batch_plan plan;
    am_test_quad_catalog(dir, catalog, sizeof catalog, &plan); /* zeroed plan options */
    am_error err;

    am_batch_run_options ro;
    memset(&ro, 0, sizeof ro);
    ro.self = AM_CLI_PATH;
    am_batch_run_result rr;
    memset(&rr, 0, sizeof rr);
    must(am_batch_run(&plan, &ro, &rr, &err), &err);
    assert_int_equal(rr.total, 1);
    assert_int_equal(rr.done, 1);
    assert_int_equal(rr.failed, 0);
    am_batch_run_result_free(&rr);
    am_batch_status st;
    must(am_batch_index(&plan, &st, &err), &err);
    assert_int_equal(st.done, 1);
    assert_int_equal(st.failed, 0);
    am_batch_status_free(&st);

    /* The written asset's bench report from {0}: the defaults its header gives (the walk
     * posed at each of its key times when at most 16, else at 9 even times; the rest error
     * measured, not judged: no "pass"). */
    char llmesh[1200], anim[1200], preview[1200];
    snprintf(llmesh, sizeof llmesh, "%s/creatures/quad/quad.llmesh", catalog);
    snprintf(anim, sizeof anim, "%s/creatures/quad/walk.anim", catalog);
    snprintf(preview, sizeof preview, "%s/creatures/quad/quad.preview.html", catalog);
    const char *wanted[3] = {llmesh, anim, preview}; /* the default job: --bench --preview */
    struct stat sb;
    for (int i = 0; i < 3; i++)
        if (stat(wanted[i], &sb) != 0)
            fail_msg("the job wrote no %s", wanted[i]);
    const char *anims[1] = {anim};
    am_bench b;
    must(am_bench_load(llmesh, anims, 1, &g_skel, NULL, &b, &err), &err);
    am_bench_report_options zero;
    memset(&zero, 0, sizeof zero);
    char *text = NULL;
    must(am_bench_report_json(&b, &zero, &text, NULL, &err), &err);
    json_error_t je;
    json_t *root = json_loads(text, 0, &je);
    assert_non_null(root);
    assert_null(json_object_get(json_object_get(root, "rest_error"), "pass"));
    json_t *motion = json_array_get(json_object_get(root, "motions"), 0);
    size_t keys = json_array_size(json_object_get(motion, "key_times"));
    size_t posed = json_array_size(json_object_get(motion, "poses"));
    assert_true(keys > 1);
    assert_int_equal(posed, keys <= 16 ? keys : 9);
    json_decref(root);
    free(text);
    am_bench_free(&b);
    am_batch_plan_free(&plan);
    am_test_rmtree(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_import_with_zeroed_options_writes_what_the_defaults_write),
        cmocka_unit_test(test_scene_retarget_skin_bench_render_with_zeroed_options),
        cmocka_unit_test(test_motion_file_with_zeroed_options_writes_the_default_motion),
        cmocka_unit_test(test_bvh_with_zeroed_options_is_the_viewers_conversion),
        cmocka_unit_test(test_bind_with_zeroed_options_gives_the_default_weights),
        cmocka_unit_test(test_world_options_zeroed_are_the_defaults),
        cmocka_unit_test(test_remoteadmin_zeroed_retries_as_the_default),
        cmocka_unit_test(test_batch_and_bench_report_with_zeroed_options),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
