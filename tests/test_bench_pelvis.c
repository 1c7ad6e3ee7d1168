/* A rig that moves mPelvis (a small creature whose hips are not at 1.067 m) is skinned with
 * an applied mPelvis override; the bench must take the pelvis's bind position from the mesh
 * (its inverse bind), not from the skeleton file, or a correct skin reads as 13 cm off.
 * Skin builder -> encoder -> bytes -> decoder -> bench, as a user's files go. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support/test_support.h"
#include "bench/bench.h"
#include "skin/rig.h"
#include "skin/skin_build.h"

static void bench_rig_with_pelvis_at(const am_skeleton *skel, double pelvis_z, am_bench *b)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/assets/rigs/quadruped.json", AM_SOURCE_DIR);
    am_rig rig;
    am_error err;
    am_error_clear(&err);
    assert_int_equal(am_rig_load(path, &rig, &err), AM_OK);
    bool moved = false;
    for (size_t i = 0; i < rig.joint_count; i++)
        if (strcmp(rig.joints[i].name, "mPelvis") == 0) {
            rig.joints[i].world.z = pelvis_z;
            moved = true;
        }
    assert_true(moved);
    am_skin_options opts;
    am_skin_options_init(&opts);
    am_skin_result res;
    assert_int_equal(am_skin_build(&rig, skel, &opts, &res, &err), AM_OK);
    am_buf bytes = {0};
    assert_int_equal(am_skin_encode(&res, &bytes, &err), AM_OK);
    assert_int_equal(am_bench_load_mem(bytes.data, bytes.size, "pelvis.llmesh", skel, NULL, b, &err), AM_OK);
    am_buf_free(&bytes);
    am_skin_result_free(&res);
    am_rig_free(&rig);
}

static void test_moved_pelvis_skin_has_no_rest_error(void **state)
{
    (void)state;
    am_skeleton skel;
    am_test_load_viewer_skeleton(&skel);
    am_bench b;
    bench_rig_with_pelvis_at(&skel, 1.2, &b);
    am_error err;
    am_bench_stats rest;
    assert_int_equal(am_bench_rest_error(&b, &rest, &err), AM_OK);
    assert_true(b.pelvis_override_applied);
    assert_lt(rest.max, 1e-4);
    /* The viewer draws the pelvis at its override, 1.2 m above the prim, and the mesh with
     * it: a bind-frame point lands at the same coordinates in the prim frame. */
    assert_near(b.bind_minus_prim.z, 0.0, 1e-6);
    am_bench_free(&b);

    /* Control: the same rig with the pelvis at its default is not overridden and hangs
     * 1.067 m lower in the prim frame, also with no rest error. */
    bench_rig_with_pelvis_at(&skel, 1.067, &b);
    assert_int_equal(am_bench_rest_error(&b, &rest, &err), AM_OK);
    assert_false(b.pelvis_override_applied);
    assert_lt(rest.max, 1e-4);
    assert_near(b.bind_minus_prim.z, 1.067, 1e-6);
    am_bench_free(&b);
    am_skeleton_free(&skel);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_moved_pelvis_skin_has_no_rest_error),
    };
    return cmocka_run_group_tests_name("bench_pelvis", tests, NULL, NULL);
}
