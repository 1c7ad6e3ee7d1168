/* `animesh map suggest` end to end: the table, --out (a map that `map check` accepts and
 * `anim from-bvh --map` uses), --json, --map over the suggestion, --up/--forward/--scale,
 * and the exit codes of bad input (usage 2, unreadable 3, not a rig 1). Every file made is
 * removed. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "skeleton/jointmap.h"
#include "support/test_support.h"

#define CMU "/usr/share/assimp/models/BVH/01_01.bvh"

static char out[1 << 17];

static int setup(void **state)
{
    (void)state;
    char p[1024];
    setenv("ANIMESH_SKELETON", am_test_shared_path(p, sizeof p, "viewer/avatar_skeleton.xml"), 1);
    return 0;
}

static void test_table_names_axes_convention_and_reasons(void **state)
{
    (void)state;
    assert_int_equal(am_test_run_cli(out, sizeof out, "map suggest " CMU), 0);
    assert_non_null(strstr(out, "31 joints; axes: up +Y (declared by BVH; legs hang along -Y), forward +Z (declared by BVH; toes forward"));
    assert_non_null(strstr(out, "naming convention: Left/Right"));
    assert_non_null(strstr(out, "LeftUpLeg                    -> mHipLeft             0.95  Left/Right name 'LeftUpLeg'"));
    assert_non_null(strstr(out, "LHipJoint                       (unmapped)"));
    assert_non_null(strstr(out, "28 of 31 joints mapped"));
}

static void test_out_map_passes_check_and_drives_from_bvh(void **state)
{
    (void)state;
    char dir[256], map[512], anim[512];
    am_test_tmpdir(dir, sizeof dir);
    snprintf(map, sizeof map, "%s/cmu.map.json", dir);
    snprintf(anim, sizeof anim, "%s/cmu.anim", dir);
    assert_int_equal(am_test_run_cli(out, sizeof out, "map suggest " CMU " --out '%s'", map), 0);
    assert_non_null(strstr(out, "wrote "));
    am_joint_map m;
    am_error err = {0};
    assert_int_equal(am_joint_map_load(map, &m, &err), AM_OK);
    assert_int_equal(m.count, 28);
    assert_ge(m.parent_count, 30); /* every joint's rig parent, for the chain check */
    am_joint_map_free(&m);
    assert_int_equal(am_test_run_cli(out, sizeof out, "map check '%s'", map), 0);
    assert_non_null(strstr(out, "valid: 28 rig joints -> 28 stock joints"));
    assert_int_equal(am_test_run_cli(out, sizeof out, "anim from-bvh " CMU " --map '%s' -o '%s'", map, anim), 0);
    assert_non_null(strstr(out, "joint map: "));
    unlink(anim);
    unlink(map);
    rmdir(dir);
}

static void test_json_report_and_user_map(void **state)
{
    (void)state;
    char dir[256], user[512];
    am_test_tmpdir(dir, sizeof dir);
    snprintf(user, sizeof user, "%s/user.json", dir);
    am_test_write_text(user, "{\"joints\": {\"Neck1\": \"mNeck\", \"Neck\": \"-\"}}");
    /* progress goes to stderr (captured here too, before the JSON) */
    assert_int_equal(am_test_run_cli(out, sizeof out, "map suggest " CMU " --json --map '%s'", user), 0);
    const char *js = strchr(out, '{');
    assert_non_null(js);
    json_error_t je;
    json_t *root = json_loads(js, 0, &je);
    assert_non_null(root);
    assert_string_equal(json_string_value(json_object_get(root, "format")), "BVH");
    assert_string_equal(json_string_value(json_object_get(json_object_get(root, "axes"), "up")), "+Y");
    json_t *map = json_object_get(root, "map");
    assert_string_equal(json_string_value(json_object_get(map, "Neck1")), "mNeck");
    assert_null(json_object_get(map, "Neck"));
    assert_string_equal(json_string_value(json_object_get(map, "Hips")), "mPelvis");
    size_t i;
    json_t *j;
    bool seen = false;
    json_array_foreach(json_object_get(root, "joints"), i, j) {
        if (strcmp(json_string_value(json_object_get(j, "rig")), "Neck1") == 0) {
            assert_string_equal(json_string_value(json_object_get(j, "reason")), "given by the map option");
            assert_true(json_real_value(json_object_get(j, "confidence")) == 1.0);
            seen = true;
        }
    }
    assert_true(seen);
    json_decref(root);
    unlink(user);
    rmdir(dir);
}

static void test_bad_input_exit_codes(void **state)
{
    (void)state;
    assert_int_equal(am_test_run_cli(out, sizeof out, "map suggest"), 2);
    assert_int_equal(am_test_run_cli(out, sizeof out, "map suggest " CMU " --up sideways"), 2);
    assert_non_null(strstr(out, "expected +X, -X, +Y, -Y, +Z or -Z"));
    assert_int_equal(am_test_run_cli(out, sizeof out, "map suggest " CMU " --scale -1"), 2);
    assert_int_equal(am_test_run_cli(out, sizeof out, "map suggest " CMU " --up +Y --forward -Y"), 2);
    assert_non_null(strstr(out, "same axis"));
    assert_int_equal(am_test_run_cli(out, sizeof out, "map suggest " CMU " --frobnicate"), 2);
    assert_int_equal(am_test_run_cli(out, sizeof out, "map suggest /nonexistent/x.bvh"), 3);
    assert_non_null(strstr(out, "/nonexistent/x.bvh"));
    /* a file that is not a model */
    char dir[256], txt[512], bvh[512];
    am_test_tmpdir(dir, sizeof dir);
    snprintf(txt, sizeof txt, "%s/notes.txt", dir);
    am_test_write_text(txt, "hello");
    assert_int_equal(am_test_run_cli(out, sizeof out, "map suggest '%s'", txt), 1);
    assert_non_null(strstr(out, "not a model file animesh reads"));
    /* a BVH cut short names the line */
    snprintf(bvh, sizeof bvh, "%s/short.bvh", dir);
    am_test_write_text(bvh, "HIERARCHY\nROOT Hips\n{\n OFFSET 0 0 0\n CHANNELS 6 Xposition Yposition Zposition Zrotation "
                            "Xrotation Yrotation\n}\nMOTION\nFrames: 2\nFrame Time: 0.1\n0 0 0 0 0 0\n");
    assert_int_equal(am_test_run_cli(out, sizeof out, "map suggest '%s'", bvh), 1);
    assert_non_null(strstr(out, "short.bvh"));
    /* a wrong --map entry names the map's file and key (where the fix is), not the model */
    char bad[512], never[512];
    snprintf(bad, sizeof bad, "%s/bad.map.json", dir);
    am_test_write_text(bad, "{\"joints\": {\"Nope\": \"mHead\"}}");
    assert_int_equal(am_test_run_cli(out, sizeof out, "map suggest " CMU " --map '%s'", bad), 1);
    assert_non_null(strstr(out, "bad.map.json: joint map: joints['Nope']"));
    assert_null(strstr(out, "01_01.bvh: "));
    snprintf(never, sizeof never, "%s/never", dir);
    assert_int_equal(am_test_run_cli(out, sizeof out, "import /usr/share/assimp/models/FBX/huesitos.fbx --out '%s' --map '%s'",
                                     never, bad),
                     1);
    assert_non_null(strstr(out, "animesh: "));
    assert_non_null(strstr(out, "bad.map.json: joint map: joints['Nope']"));
    assert_null(strstr(out, "huesitos.fbx: "));
    unlink(bad);
    unlink(txt);
    unlink(bvh);
    rmdir(dir);
    assert_int_equal(am_test_run_cli(out, sizeof out, "map suggest --help"), 0);
    assert_non_null(strstr(out, "--forward AXIS"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_table_names_axes_convention_and_reasons),
        cmocka_unit_test(test_out_map_passes_check_and_drives_from_bvh),
        cmocka_unit_test(test_json_report_and_user_map),
        cmocka_unit_test(test_bad_input_exit_codes),
    };
    return cmocka_run_group_tests(tests, setup, NULL);
}
