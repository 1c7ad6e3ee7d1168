/* Joint maps checked against the viewer's skeleton (docs/reference/lessons.md#rule-1, #rule-3, #rule-6 and #rule-11). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support/test_support.h"
#include "skeleton/jointmap.h"

static int setup(void **state)
{
    am_skeleton *s = calloc(1, sizeof *s);
    am_test_load_viewer_skeleton(s);
    *state = s;
    return 0;
}

static int teardown(void **state)
{
    am_skeleton_free(*state);
    free(*state);
    return 0;
}

static void check(const am_skeleton *s, const char *json, am_joint_map_report *r)
{
    am_joint_map map;
    am_error err;
    am_error_clear(&err);
    assert_int_equal(am_joint_map_parse(json, strlen(json), "map.json", &map, &err), AM_OK);
    assert_int_equal(am_joint_map_check(&map, s, r, &err), AM_OK);
    am_joint_map_free(&map);
}

static bool has_problem(const am_joint_map_report *r, const char *needle)
{
    for (size_t i = 0; i < r->count; i++)
        if (strstr(r->problems[i], needle))
            return true;
    return false;
}

static void test_unknown_name_is_refused_by_name(void **state)
{
    am_joint_map_report r;
    check(*state, "{\"joints\": {\"spine\": \"mSpine1\", \"tailtip\": \"mTail7\"}}", &r);
    assert_int_equal(r.count, 1);
    /* named by the map's key, where the user edits it */
    assert_true(has_problem(&r, "joints['tailtip']: unknown joint 'mTail7': not in avatar_skeleton.xml"));
    am_joint_map_report_free(&r);
}

static void test_two_rig_joints_on_one_stock_joint(void **state)
{
    am_joint_map_report r;
    /* 'hip' is an alias of mPelvis: still the same stock joint */
    check(*state, "{\"joints\": {\"root\": \"mPelvis\", \"hips\": \"hip\"}}", &r);
    assert_int_equal(r.count, 1);
    assert_true(has_problem(&r, "joints['root'] and joints['hips'] both map to stock joint 'mPelvis'"));
    am_joint_map_report_free(&r);
}

static void test_sibling_chain_is_refused(void **state)
{
    am_joint_map_report r;
    check(*state,
          "{\"joints\": {\"thigh\": \"mHipLeft\", \"shin\": \"mHipRight\"},"
          " \"rig_parents\": {\"shin\": \"thigh\"}}",
          &r);
    assert_int_equal(r.count, 1);
    assert_true(has_problem(&r, "'mHipLeft' -> 'mHipRight'"));
    assert_true(has_problem(&r, "'mHipLeft' has viewer parent 'mPelvis'"));
    assert_true(has_problem(&r, "'mHipRight' has viewer parent 'mPelvis'"));
    assert_true(has_problem(&r, "siblings in the viewer's skeleton do not move together"));
    am_joint_map_report_free(&r);
}

static void test_front_legs_under_rig_chest_are_refused(void **state)
{
    am_joint_map_report r;
    check(*state,
          "{\"joints\": {"
          "  \"root\": \"mPelvis\", \"spine\": \"mSpine1\", \"chest\": \"mChest\", \"neck\": \"mNeck\", \"head\": \"mHead\","
          "  \"fl_upper\": \"mHipLeft\", \"fl_lower\": \"mKneeLeft\", \"fl_foot\": \"mAnkleLeft\","
          "  \"fr_upper\": \"mHipRight\", \"fr_lower\": \"mKneeRight\", \"fr_foot\": \"mAnkleRight\","
          "  \"hl_root\": \"mHindLimbsRoot\", \"hl_upper\": \"mHindLimb1Left\", \"hl_lower\": \"mHindLimb2Left\", \"hl_foot\": \"mHindLimb3Left\","
          "  \"hr_upper\": \"mHindLimb1Right\", \"hr_lower\": \"mHindLimb2Right\", \"hr_foot\": \"mHindLimb3Right\","
          "  \"tail1\": \"mTail1\", \"tail2\": \"mTail2\", \"tail3\": \"mTail3\"},"
          " \"rig_parents\": {"
          "  \"spine\": \"root\", \"chest\": \"spine\", \"neck\": \"chest\", \"head\": \"neck\","
          "  \"fl_upper\": \"chest\", \"fl_lower\": \"fl_upper\", \"fl_foot\": \"fl_lower\","
          "  \"fr_upper\": \"chest\", \"fr_lower\": \"fr_upper\", \"fr_foot\": \"fr_lower\","
          "  \"hl_root\": \"root\", \"hl_upper\": \"hl_root\", \"hl_lower\": \"hl_upper\", \"hl_foot\": \"hl_lower\","
          "  \"hr_upper\": \"hl_root\", \"hr_lower\": \"hr_upper\", \"hr_foot\": \"hr_lower\","
          "  \"tail1\": \"root\", \"tail2\": \"tail1\", \"tail3\": \"tail2\"}}",
          &r);
    /* front legs hang from the rig's chest, but mHipLeft's viewer parent is mPelvis:
     * that is a viewer chain (mChest is not an ancestor of mHipLeft) -> refused */
    assert_int_equal(r.count, 2);
    assert_true(has_problem(&r, "'chest' -> 'fl_upper' maps to 'mChest' -> 'mHipLeft'"));
    assert_true(has_problem(&r, "'chest' -> 'fr_upper' maps to 'mChest' -> 'mHipRight'"));
    am_joint_map_report_free(&r);
}

static void test_reversed_chain_is_named_as_reversed(void **state)
{
    am_joint_map_report r;
    check(*state,
          "{\"joints\": {\"thigh\": \"mHipLeft\", \"shin\": \"mKneeLeft\"},"
          " \"rig_parents\": {\"thigh\": \"shin\"}}",
          &r);
    assert_int_equal(r.count, 1);
    assert_true(has_problem(&r, "'shin' -> 'thigh' maps to 'mKneeLeft' -> 'mHipLeft'"));
    assert_true(has_problem(&r, "the chain runs backwards"));
    assert_false(has_problem(&r, "siblings"));
    am_joint_map_report_free(&r);
}

static void test_valid_quadruped_map_with_viewer_chains(void **state)
{
    am_joint_map_report r;
    check(*state,
          "{\"joints\": {"
          "  \"root\": \"mPelvis\", \"fl_upper\": \"mHipLeft\", \"fl_lower\": \"mKneeLeft\", \"fl_foot\": \"mAnkleLeft\","
          "  \"hl_upper\": \"mHindLimb1Left\", \"hl_lower\": \"mHindLimb2Left\", \"hl_foot\": \"mHindLimb3Left\","
          "  \"hr_upper\": \"mHindLimb1Right\", \"hr_lower\": \"mHindLimb2Right\","
          "  \"tail1\": \"mTail1\", \"tail2\": \"mTail2\"},"
          " \"rig_parents\": {"
          "  \"fl_upper\": \"root\", \"fl_lower\": \"fl_upper\", \"fl_foot\": \"fl_lower\","
          "  \"hl_upper\": \"root\", \"hl_lower\": \"hl_upper\", \"hl_foot\": \"hl_lower\","
          "  \"hr_upper\": \"root\", \"hr_lower\": \"hr_upper\","
          "  \"tail1\": \"root\", \"tail2\": \"tail1\"}}",
          &r);
    assert_int_equal(r.count, 0);
    assert_int_equal(r.stock_joints, 11);
    assert_int_equal(r.closed_joints, 12); /* + mHindLimbsRoot, the viewer ancestor skipped */
    assert_int_equal(r.chains_checked, 10);
    am_joint_map_report_free(&r);
}

static void test_more_than_110_joints(void **state)
{
    const am_skeleton *s = *state;
    char *json = malloc(64 * 1024);
    assert_non_null(json);
    size_t n = (size_t)sprintf(json, "{\"joints\": {");
    for (size_t i = 0; i < 111; i++)
        n += (size_t)sprintf(json + n, "%s\"r%zu\": \"%s\"", i ? ", " : "", i, s->joints[i].name);
    sprintf(json + n, "}}");
    am_joint_map_report r;
    check(s, json, &r);
    free(json);
    assert_int_equal(r.count, 1);
    assert_true(has_problem(&r, "too many joints for one mesh: 111 stock joints mapped"));
    am_joint_map_report_free(&r);
}

static void test_rig_parents_from_rig_file(void **state)
{
    char dir[256], map_path[512], rig_path[512];
    am_test_tmpdir(dir, sizeof dir);
    snprintf(map_path, sizeof map_path, "%s/map.json", dir);
    snprintf(rig_path, sizeof rig_path, "%s/rig.json", dir);
    am_test_write_text(map_path, "{\"joints\": {\"a\": \"mHipLeft\", \"b\": \"mHipRight\"}}");
    am_test_write_text(rig_path, "{\"joints\": [{\"name\": \"a\"}, {\"name\": \"b\", \"parent\": \"a\"}]}");
    am_joint_map map;
    am_error err;
    am_error_clear(&err);
    assert_int_equal(am_joint_map_load(map_path, &map, &err), AM_OK);
    assert_int_equal(am_joint_map_load_rig_parents(&map, rig_path, &err), AM_OK);
    am_joint_map_report r;
    assert_int_equal(am_joint_map_check(&map, *state, &r, &err), AM_OK);
    assert_int_equal(r.count, 1);
    assert_true(has_problem(&r, "siblings"));
    am_joint_map_report_free(&r);
    am_joint_map_free(&map);
    remove(map_path);
    remove(rig_path);
    remove(dir);
}

static void test_bad_map_json(void **state)
{
    (void)state;
    am_joint_map map;
    am_error err;
    const char *bad[] = {"", "{", "[]", "{\"joints\": {}}", "{\"joints\": {\"a\": 3}}",
                         "{\"joints\": {\"a\": \"mPelvis\"}, \"rig_parents\": []}"};
    const char *needle[] = {"empty: expected JSON", "not valid JSON",      "must be a JSON object",
                            "non-empty object",     "joints['a'] must be", "'rig_parents' must be an object"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        am_error_clear(&err);
        assert_int_equal(am_joint_map_parse(bad[i], strlen(bad[i]), "m.json", &map, &err), AM_ERR_INVALID);
        if (!strstr(err.msg, needle[i]))
            fail_msg("case %zu: '%s' lacks '%s'", i, err.msg, needle[i]);
        assert_non_null(strstr(err.where, "m.json"));
        assert_null(map.entries);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_unknown_name_is_refused_by_name, setup, teardown),
        cmocka_unit_test_setup_teardown(test_two_rig_joints_on_one_stock_joint, setup, teardown),
        cmocka_unit_test_setup_teardown(test_sibling_chain_is_refused, setup, teardown),
        cmocka_unit_test_setup_teardown(test_reversed_chain_is_named_as_reversed, setup, teardown),
        cmocka_unit_test_setup_teardown(test_front_legs_under_rig_chest_are_refused, setup, teardown),
        cmocka_unit_test_setup_teardown(test_valid_quadruped_map_with_viewer_chains, setup, teardown),
        cmocka_unit_test_setup_teardown(test_more_than_110_joints, setup, teardown),
        cmocka_unit_test_setup_teardown(test_rig_parents_from_rig_file, setup, teardown),
        cmocka_unit_test(test_bad_map_json),
    };
    return cmocka_run_group_tests_name("jointmap", tests, NULL, NULL);
}
