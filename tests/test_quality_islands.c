/* The quality report on many small islands (issue 31 item 8): the rigid parts' bending is
 * measured per island from one bucketing of the vertices, not a scan of every vertex per
 * island per pose. A modest cloud (bench/perf/support/island_cloud.h) must come out with
 * every island found and rigid, and one island given a second bone must be the one that
 * bends in the pose that moves that bone. (Speed: bench/perf/benchmark_report_islands.) */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "bench/perf/support/island_cloud.h"
#include "report/quality.h"
#include "report/report.h"
#include "support/test_support.h"

static am_skeleton g_skel;
static int setup(void **state) { return (void)state, am_test_load_viewer_skeleton(&g_skel), 0; }
static int teardown(void **state) { return (void)state, am_skeleton_free(&g_skel), 0; }

#define ISLANDS 4000

static void run(am_rig *rig, am_quality_report *q)
{
    am_error err;
    am_error_clear(&err);
    char msg[AM_ERROR_TEXT_MAX];
    am_bench b;
    if (am_report_bench_rig(rig, &g_skel, "islands", &b, &err) || am_quality_run(&b, NULL, 0, q, &err))
        fail_msg("%s", am_error_format(&err, msg, sizeof msg));
    am_bench_free(&b);
}

static const am_quality_pose_result *pose(const am_quality_report *q, const char *name)
{
    for (size_t i = 0; i < q->pose_count; i++)
        if (strcmp(am_str(&q->poses[i].name), name) == 0)
            return &q->poses[i];
    fail_msg("no pose %s", name);
    return NULL;
}

static void test_every_island_is_a_rigid_part_that_keeps_its_shape(void **state)
{
    (void)state;
    am_rig rig;
    am_error err;
    am_error_clear(&err);
    assert_int_equal(am_test_island_cloud_rig(&g_skel, ISLANDS, &rig, &err), AM_OK);
    am_quality_report q;
    run(&rig, &q);
    print_message("%d islands: %zu found, %zu rigid parts\n", ISLANDS, q.island_count, q.rigid_parts);
    assert_int_equal(q.island_count, ISLANDS);
    assert_true(q.rigid_parts >= ISLANDS - ISLANDS / 100); /* a few hold a bone passing through them */
    assert_int_equal(q.rigid_flag, AM_FLAG_PASS);
    for (size_t i = 0; i < q.pose_count; i++)
        if (q.poses[i].measured)
            assert_true(q.poses[i].rigidity_m < 1e-5);
    am_quality_free(&q);
    am_rig_free(&rig);
}

static void test_the_island_given_a_second_bone_is_the_one_that_bends(void **state)
{
    (void)state;
    am_rig rig;
    am_error err;
    am_error_clear(&err);
    assert_int_equal(am_test_island_cloud_rig(&g_skel, ISLANDS, &rig, &err), AM_OK);
    /* island 100 (on joint 100 % 19 = 5, mCollarLeft): its first corner on mHead (joint 4) */
    size_t v = 3 * 100;
    assert_int_equal(rig.influences[rig.weight_start[v]].joint, 5);
    rig.influences[rig.weight_start[v]].joint = 4;
    am_quality_report q;
    run(&rig, &q);
    assert_int_equal(q.rigid_flag, AM_FLAG_MAJOR); /* not one bone at 1.0 */
    const am_quality_pose_result *turn = pose(&q, "head turn"), *knee = pose(&q, "knee 120");
    print_message("head turn: the two-bone island bends %.4f m; knee 120: %.2g m\n", turn->rigidity_m,
                  knee->rigidity_m);
    assert_true(turn->rigidity_m > 0.01);
    assert_int_equal(turn->rigidity_flag, AM_FLAG_MAJOR);
    assert_true(knee->rigidity_m < 1e-5); /* the head keeps still: every island keeps its shape */
    am_quality_free(&q);
    am_rig_free(&rig);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_island_is_a_rigid_part_that_keeps_its_shape),
        cmocka_unit_test(test_the_island_given_a_second_bone_is_the_one_that_bends),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
