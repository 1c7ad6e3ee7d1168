/* animesh skin: files written, summary printed, exit codes 0/1/2/3, errors naming the
 * file and field, 'skin compare' dispatched. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "test_support.h"

static char out[65536];

static bool exists(const char *dir, const char *name)
{
    char p[1024];
    struct stat st;
    snprintf(p, sizeof p, "%s/%s", dir, name);
    return stat(p, &st) == 0 && st.st_size > 0;
}

static void test_writes_three_files_and_prints_the_summary(void **state)
{
    char dir[256], sk[4096];
    am_test_tmpdir(dir, sizeof dir);
    am_test_shared_path(sk, sizeof sk, "viewer/avatar_skeleton.xml");
    int rc = am_test_run_cli(out, sizeof out, "skin '%s/assets/rigs/quadruped.json' --out '%s/o' --skeleton '%s'",
                             AM_SOURCE_DIR, dir, sk);
    if (rc != 0)
        fail_msg("exit %d: %s", rc, out);
    char sub[300];
    snprintf(sub, sizeof sub, "%s/o", dir);
    assert_true(exists(sub, "quadruped.llmesh"));
    assert_true(exists(sub, "quadruped.dae"));
    assert_true(exists(sub, "quadruped.meshdata.json"));
    assert_non_null(strstr(out, "18 joints (15 from the rig + 3 viewer ancestors), 14 moved by overrides"));
    assert_non_null(strstr(out, "mHipLeft         under mPelvis"));
    assert_non_null(strstr(out, "faces 1, vertices 120"));
    assert_non_null(strstr(out, "triangles per LOD: high 180"));
    assert_non_null(strstr(out, "animesh triangle estimate"));
    assert_non_null(strstr(out, "streaming cost"));
    /* the written asset decodes and its skin matches the .dae path's reference */
    rc = am_test_run_cli(out, sizeof out, "mesh decode '%s/quadruped.llmesh' --skeleton '%s'", sub, sk);
    assert_int_equal(rc, 0);
    assert_non_null(strstr(out, "18 joints"));
}

static void test_usage_errors_exit_2(void **state)
{
    assert_int_equal(am_test_run_cli(out, sizeof out, "skin --help"), 0);
    assert_non_null(strstr(out, "usage: animesh skin RIG.json --out DIR"));
    assert_int_equal(am_test_run_cli(out, sizeof out, "skin"), 2);
    assert_int_equal(am_test_run_cli(out, sizeof out, "skin '%s/assets/rigs/quadruped.json'", AM_SOURCE_DIR), 2);
    assert_non_null(strstr(out, "--out DIR is required"));
    assert_int_equal(am_test_run_cli(out, sizeof out, "skin x.json --out /tmp --region-max-tris -5"), 2);
    assert_int_equal(am_test_run_cli(out, sizeof out, "skin x.json --out /tmp --bogus"), 2);
    /* 'skin compare' reaches the comparison command */
    assert_int_equal(am_test_run_cli(out, sizeof out, "skin compare --help"), 0);
    assert_non_null(strstr(out, "animesh skin compare"));
}

static void test_bad_rig_exits_1_naming_file_and_field_missing_file_exits_3(void **state)
{
    char dir[256], rig[512], sk[4096];
    am_test_tmpdir(dir, sizeof dir);
    am_test_shared_path(sk, sizeof sk, "viewer/avatar_skeleton.xml");
    snprintf(rig, sizeof rig, "%s/bad.json", dir);
    am_test_write_text(rig, "{\"name\": \"bad\", \"joints\": [{\"name\": \"mPelvis\", \"world\": [0,0,1.067]},"
                            "{\"name\": \"mTentacle\", \"world\": [0,0,1]}],"
                            "\"vertices\": [[0,0,1,0,0,1,0,0],[1,0,1,0,0,1,1,0],[0,1,1,0,0,1,0,1]],"
                            "\"triangles\": [[0,1,2]], \"weights\": [[[0,1]],[[1,1]],[[0,1]]]}");
    int rc = am_test_run_cli(out, sizeof out, "skin '%s' --out '%s/o' --skeleton '%s'", rig, dir, sk);
    assert_int_equal(rc, 1);
    assert_non_null(strstr(out, "'mTentacle'"));
    am_test_write_text(rig, "{\"name\": \"bad\", \"joints\": []}");
    rc = am_test_run_cli(out, sizeof out, "skin '%s' --out '%s/o' --skeleton '%s'", rig, dir, sk);
    assert_int_equal(rc, 1);
    assert_non_null(strstr(out, "bad.json: joints"));
    rc = am_test_run_cli(out, sizeof out, "skin '%s/none.json' --out '%s/o' --skeleton '%s'", dir, dir, sk);
    assert_int_equal(rc, 3);
}

static void test_over_region_limit_exits_1_and_writes_nothing(void **state)
{
    char dir[256], sk[4096];
    am_test_tmpdir(dir, sizeof dir);
    am_test_shared_path(sk, sizeof sk, "viewer/avatar_skeleton.xml");
    int rc = am_test_run_cli(out, sizeof out,
                             "skin '%s/assets/rigs/quadruped.json' --out '%s/o' --skeleton '%s' --region-max-tris 10",
                             AM_SOURCE_DIR, dir, sk);
    assert_int_equal(rc, 1);
    assert_non_null(strstr(out, "region limit 10"));
    char sub[300];
    snprintf(sub, sizeof sub, "%s/o", dir);
    assert_false(exists(sub, "quadruped.llmesh"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_writes_three_files_and_prints_the_summary),
        cmocka_unit_test(test_usage_errors_exit_2),
        cmocka_unit_test(test_bad_rig_exits_1_naming_file_and_field_missing_file_exits_3),
        cmocka_unit_test(test_over_region_limit_exits_1_and_writes_nothing),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
