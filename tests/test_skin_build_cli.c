/* animesh skin: files written, summary printed, exit codes 0/1/2/3, errors naming the
 * file and field, 'skin compare' dispatched. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "support/test_support.h"

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
    am_test_rmtree(dir);
}

/* The outputs are one set: a run that cannot write the meshdata (two faces) must not leave
 * an old one beside the new mesh (push would send it), and a killed run's temps go. */
static void test_a_run_without_meshdata_removes_the_old_one_and_a_killed_runs_temps(void **state)
{
    char dir[256], sk[4096], sub[300], p[512];
    am_test_tmpdir(dir, sizeof dir);
    am_test_shared_path(sk, sizeof sk, "viewer/avatar_skeleton.xml");
    snprintf(sub, sizeof sub, "%s/o", dir);
    assert_int_equal(mkdir(sub, 0755), 0);
    snprintf(p, sizeof p, "%s/quadruped.meshdata.json", sub);
    am_test_write_text(p, "{\"old\": true}");
    snprintf(p, sizeof p, "%s/quadruped.llmesh.tmpQwErTy", sub);
    am_test_write_text(p, "half of a mesh a killed run left");
    snprintf(p, sizeof p, "%s/keep.tmpQwErTy", sub);
    am_test_write_text(p, "not ours");
    /* 120 vertices split at 100: two faces, so no meshdata */
    int rc = am_test_run_cli(out, sizeof out,
                             "skin '%s/assets/rigs/quadruped.json' --out '%s' --skeleton '%s' --face-vertex-limit 100",
                             AM_SOURCE_DIR, sub, sk);
    assert_true(rc == 0 || rc == 1); /* 1: the meshdata is refused (a later change may make it a warning) */
    assert_true(exists(sub, "quadruped.llmesh"));
    assert_true(exists(sub, "quadruped.dae"));
    assert_false(exists(sub, "quadruped.meshdata.json"));
    assert_non_null(strstr(out, "removed"));
    assert_non_null(strstr(out, "quadruped.meshdata.json"));
    assert_non_null(strstr(out, "removed 1 temporary file"));
    snprintf(p, sizeof p, "%s/quadruped.llmesh.tmpQwErTy", sub);
    assert_int_equal(access(p, F_OK), -1);
    assert_true(exists(sub, "keep.tmpQwErTy"));
    am_test_rmtree(dir);
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
    am_test_rmtree(dir);
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
    am_test_rmtree(dir);
}

/* A skin that needs several faces is a success: the .llmesh and .dae are written, exit 0,
 * the meshdata skipped with a warning saying why and what to do; --meshdata makes it
 * required (exit 1, nothing written). The quadruped's 120 vertices at 50 per face: 3. */
static void test_multi_face_skin_is_a_success_unless_meshdata_is_required(void **state)
{
    char dir[256], sk[4096], sub[300];
    am_test_tmpdir(dir, sizeof dir);
    am_test_shared_path(sk, sizeof sk, "viewer/avatar_skeleton.xml");
    int rc = am_test_run_cli(out, sizeof out,
                             "skin '%s/assets/rigs/quadruped.json' --out '%s/o' --skeleton '%s' --face-vertex-limit 50",
                             AM_SOURCE_DIR, dir, sk);
    if (rc != 0)
        fail_msg("exit %d: %s", rc, out);
    snprintf(sub, sizeof sub, "%s/o", dir);
    assert_true(exists(sub, "quadruped.llmesh"));
    assert_true(exists(sub, "quadruped.dae"));
    assert_false(exists(sub, "quadruped.meshdata.json"));
    assert_non_null(strstr(out, "faces 3, vertices 120 (high LOD; 120 distinct, 0.00% written on two faces)"));
    assert_non_null(strstr(out, "warning: 120 vertices need 3 faces of at most 50"));
    assert_non_null(strstr(out, "no meshdata was written"));
    assert_non_null(strstr(out, "--max-tris "));
    /* the written asset holds the 3 faces */
    assert_int_equal(am_test_run_cli(out, sizeof out, "mesh decode '%s/quadruped.llmesh'", sub), 0);
    /* required and never reduced: refused before the build, naming the budget of one face */
    char dir2[256], sub2[300];
    am_test_tmpdir(dir2, sizeof dir2);
    snprintf(sub2, sizeof sub2, "%s/o", dir2);
    rc = am_test_run_cli(out, sizeof out,
                         "skin '%s/assets/rigs/quadruped.json' --out '%s' --skeleton '%s' --face-vertex-limit 50 "
                         "--meshdata --max-tris none",
                         AM_SOURCE_DIR, sub2, sk);
    assert_int_equal(rc, 1);
    assert_non_null(strstr(out, "more than one face (the meshdata's) of 50 hold; pass --max-tris "));
    assert_false(exists(sub2, "quadruped.llmesh"));
    /* with the automatic budget --meshdata fits the skin to one face instead (100 of its 120
     * vertices; at 50 the 15 parts cannot shrink enough and it is refused, naming why) */
    rc = am_test_run_cli(out, sizeof out,
                         "skin '%s/assets/rigs/quadruped.json' --out '%s' --skeleton '%s' --face-vertex-limit 50 "
                         "--meshdata",
                         AM_SOURCE_DIR, sub2, sk);
    assert_int_equal(rc, 1);
    assert_non_null(strstr(out, "one face of 50 vertices allow about"));
    rc = am_test_run_cli(out, sizeof out,
                         "skin '%s/assets/rigs/quadruped.json' --out '%s' --skeleton '%s' --face-vertex-limit 100 "
                         "--meshdata",
                         AM_SOURCE_DIR, sub2, sk);
    if (rc != 0)
        fail_msg("exit %d: %s", rc, out);
    assert_non_null(strstr(out, "faces 1,"));
    assert_true(exists(sub2, "quadruped.meshdata.json"));
    am_test_rmtree(dir);
    am_test_rmtree(dir2);
}

static void test_max_tris_values_and_refusals(void **state)
{
    char dir[256], sk[4096];
    am_test_tmpdir(dir, sizeof dir);
    am_test_shared_path(sk, sizeof sk, "viewer/avatar_skeleton.xml");
    assert_int_equal(am_test_run_cli(out, sizeof out, "skin x.json --out /tmp --max-tris 0"), 2);
    assert_non_null(strstr(out, "--max-tris: expected a positive integer, auto or none"));
    assert_int_equal(am_test_run_cli(out, sizeof out, "skin x.json --out /tmp --max-tris lots"), 2);
    /* an explicit budget: what was removed is said */
    int rc = am_test_run_cli(out, sizeof out,
                             "skin '%s/assets/rigs/quadruped.json' --out '%s/a' --skeleton '%s' --max-tris 150",
                             AM_SOURCE_DIR, dir, sk);
    if (rc != 0)
        fail_msg("exit %d: %s", rc, out);
    assert_non_null(strstr(out, "triangle budget 150: 180 -> "));
    /* more vertices than 8 faces of 10 hold, never reduced: refused before the build, with the number */
    rc = am_test_run_cli(out, sizeof out,
                         "skin '%s/assets/rigs/quadruped.json' --out '%s/b' --skeleton '%s' --face-vertex-limit 10 "
                         "--max-tris none",
                         AM_SOURCE_DIR, dir, sk);
    assert_int_equal(rc, 1);
    assert_non_null(strstr(out, "quadruped.json: "));
    assert_non_null(strstr(out, "more than 8 faces of 10 hold; pass --max-tris "));
    char sub[300];
    snprintf(sub, sizeof sub, "%s/b", dir);
    assert_false(exists(sub, "quadruped.llmesh"));
    am_test_rmtree(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_multi_face_skin_is_a_success_unless_meshdata_is_required),
        cmocka_unit_test(test_max_tris_values_and_refusals),
        cmocka_unit_test(test_writes_three_files_and_prints_the_summary),
        cmocka_unit_test(test_a_run_without_meshdata_removes_the_old_one_and_a_killed_runs_temps),
        cmocka_unit_test(test_usage_errors_exit_2),
        cmocka_unit_test(test_bad_rig_exits_1_naming_file_and_field_missing_file_exits_3),
        cmocka_unit_test(test_over_region_limit_exits_1_and_writes_nothing),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
