/* The viewer skeleton read from the viewer's own avatar_skeleton.xml, checked against the
 * rest positions of docs/reference/viewer-skeleton.md#worked-rest-positions, #bone-table and
 * #collision-volumes. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support/test_support.h"
#include "skeleton/skeleton.h"

typedef struct expect_pos {
    const char *name;
    double sf[3]; /* skeleton-file frame, docs/reference/viewer-skeleton.md#bone-table */
} expect_pos;

static const expect_pos table[] = {
    {"mPelvis", {0.000, 0.000, 1.067}},     {"mHipLeft", {0.034, 0.127, 1.026}},
    {"mKneeLeft", {0.033, 0.081, 0.535}},   {"mAnkleLeft", {0.004, 0.082, 0.067}},
    {"mHead", {-0.025, 0.000, 1.683}},      {"mWristLeft", {-0.036, 0.617, 1.521}},
    {"mWing1Left", {-0.128, 0.105, 1.537}}, {"mHindLimb1Left", {-0.404, 0.129, 1.026}},
    {"mTail1", {-0.116, 0.000, 1.114}},     {"mHipRight", {0.034, -0.129, 1.026}},
    {"mToeLeft", {0.225, 0.082, 0.006}},    {"mHindLimb4Right", {-0.320, -0.080, 0.006}},
};

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

static void test_real_file_has_133_bones_and_26_volumes(void **state)
{
    const am_skeleton *s = *state;
    assert_int_equal(s->bone_count, 133);
    assert_int_equal(s->volume_count, 26);
    assert_string_equal(s->version, "2.0");
    /* joint numbers: bones 0..132 in pre-order, volumes 133..158 (docs/reference/viewer-skeleton.md#joint-numbering) */
    assert_int_equal(am_skeleton_find(s, "mPelvis"), 0);
    assert_int_equal(am_skeleton_find(s, "mHindLimb4Right"), 132);
    assert_int_equal(am_skeleton_find(s, "PELVIS"), 133);
    assert_int_equal(am_skeleton_find(s, "L_FOOT"), 158);
    assert_int_equal(s->joints[am_skeleton_find(s, "mHipLeft")].joint_num, 112);
}

static void test_world_rest_positions_match_spec_in_both_frames(void **state)
{
    const am_skeleton *s = *state;
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++) {
        int j = am_skeleton_find(s, table[i].name);
        assert_ge(j, 0);
        am_vec3 f = am_skeleton_rest_world(s, j, AM_FRAME_FILE);
        am_vec3 r = am_skeleton_rest_world(s, j, AM_FRAME_RUNTIME);
        assert_double_equal(f.x, table[i].sf[0], 1e-6);
        assert_double_equal(f.y, table[i].sf[1], 1e-6);
        assert_double_equal(f.z, table[i].sf[2], 1e-6);
        /* RT = SF - (0, 0, 1.067) (docs/reference/viewer-skeleton.md#the-pelvis-and-the-two-frames) */
        assert_double_equal(r.x, table[i].sf[0], 1e-6);
        assert_double_equal(r.y, table[i].sf[1], 1e-6);
        assert_double_equal(r.z, table[i].sf[2] - 1.067, 1e-6);
    }
}

static void test_collision_volume_rotation_and_own_scale(void **state)
{
    const am_skeleton *s = *state;
    /* CHEST: parent mChest, pos 0.028 0 0.070, rot 0 -10 0 -> world centre 0.013 0 1.426 */
    int c = am_skeleton_find(s, "CHEST");
    assert_string_equal(s->joints[s->joints[c].parent].name, "mChest");
    am_vec3 w = am_skeleton_rest_world(s, c, AM_FRAME_FILE);
    assert_double_equal(w.x, 0.013, 1e-6);
    assert_double_equal(w.z, 1.426, 1e-6);
    /* The volume's matrix carries its own rotation about Y and its own scale (0.11 0.15 0.2):
     * the local X axis maps to 0.11 * (cos(-10deg), 0, -sin(-10deg)). */
    am_mat4 m = am_skeleton_rest_matrix(s, c, AM_FRAME_FILE);
    am_vec3 ex = am_mat4_transform_dir(&m, am_v3(1, 0, 0));
    double a = -10.0 * AM_DEG2RAD;
    assert_double_equal(ex.x, 0.11 * cos(a), 1e-9);
    assert_double_equal(ex.z, -0.11 * sin(a), 1e-9);
    assert_double_equal(ex.y, 0.0, 1e-12);
    /* Scale is not inherited: mChest's child mNeck is still at its plain offset. */
    am_vec3 neck = am_skeleton_rest_world(s, am_skeleton_find(s, "mNeck"), AM_FRAME_FILE);
    assert_double_equal(neck.z, 1.607, 1e-6);
}

static void test_aliases_resolve(void **state)
{
    const am_skeleton *s = *state;
    int pelvis = am_skeleton_find(s, "mPelvis");
    assert_int_equal(am_skeleton_find(s, "hip"), pelvis);
    assert_int_equal(am_skeleton_find(s, "avatar_mPelvis"), pelvis);
    assert_int_equal(am_skeleton_find(s, "lFoot"), am_skeleton_find(s, "mAnkleLeft"));
    assert_int_equal(am_skeleton_find(s, "rThigh"), am_skeleton_find(s, "mHipRight"));
    /* attachment points: real name and the underscore alias */
    int pec = am_skeleton_find(s, "Left Pec");
    assert_ge(pec, 0);
    assert_int_equal(am_skeleton_find(s, "Left_Pec"), pec);
    assert_int_equal(s->joints[pec].joint_num, 158 + 29);
    /* case-sensitive, unknown names refused */
    assert_int_equal(am_skeleton_find(s, "mpelvis"), -1);
    assert_int_equal(am_skeleton_find(s, "mTail7"), -1);
    assert_int_equal(am_skeleton_find(s, "Center 2"), -1); /* HUD points are not on animesh */
}

static void test_closed_set_of_wrist_is_chain_to_pelvis(void **state)
{
    const am_skeleton *s = *state;
    int wrist = am_skeleton_find(s, "mWristLeft");
    int out[512];
    size_t n = am_skeleton_closed_set(s, &wrist, 1, out);
    const char *chain[] = {"mPelvis", "mSpine1", "mSpine2", "mTorso", "mSpine3", "mSpine4", "mChest",
                           "mCollarLeft", "mShoulderLeft", "mElbowLeft", "mWristLeft"};
    assert_int_equal(n, sizeof chain / sizeof chain[0]);
    for (size_t i = 0; i < n; i++)
        assert_string_equal(s->joints[out[i]].name, chain[i]);
}

static void test_closed_set_merges_and_orders_parents_first(void **state)
{
    const am_skeleton *s = *state;
    int in[3] = {am_skeleton_find(s, "mTail3"), am_skeleton_find(s, "mHipLeft"), am_skeleton_find(s, "mTail1")};
    int out[512];
    size_t n = am_skeleton_closed_set(s, in, 3, out);
    assert_int_equal(n, 5); /* mPelvis, mHipLeft, mTail1, mTail2, mTail3 */
    for (size_t i = 0; i < n; i++) {
        int p = s->joints[out[i]].parent;
        if (p >= 0) {
            bool parent_before = false;
            for (size_t k = 0; k < i; k++)
                parent_before = parent_before || out[k] == p;
            assert_true(parent_before);
        }
    }
}

static void test_ancestry_and_path(void **state)
{
    const am_skeleton *s = *state;
    int hipL = am_skeleton_find(s, "mHipLeft"), hipR = am_skeleton_find(s, "mHipRight");
    int pelvis = am_skeleton_find(s, "mPelvis"), knee = am_skeleton_find(s, "mKneeLeft");
    assert_true(am_skeleton_is_ancestor(s, pelvis, knee));
    assert_true(am_skeleton_is_ancestor(s, hipL, knee));
    assert_false(am_skeleton_is_ancestor(s, hipR, knee));
    assert_false(am_skeleton_is_ancestor(s, knee, knee));
    assert_int_equal(am_skeleton_parent(s, hipL), pelvis);
    int path[512];
    size_t n = am_skeleton_path(s, knee, hipR, path);
    assert_int_equal(n, 4);
    assert_int_equal(path[0], knee);
    assert_int_equal(path[1], hipL);
    assert_int_equal(path[2], pelvis);
    assert_int_equal(path[3], hipR);
}

static void test_runtime_local_pos_of_pelvis_is_zero(void **state)
{
    const am_skeleton *s = *state;
    am_vec3 p = am_skeleton_runtime_local_pos(s, 0);
    assert_double_equal(p.z, 0.0, 0);
    am_vec3 h = am_skeleton_runtime_local_pos(s, am_skeleton_find(s, "mHipLeft"));
    assert_double_equal(h.z, -0.041, 1e-12);
    assert_double_equal(s->joints[0].pos.z, 1.067, 1e-12); /* default stays the file value */
}

/* ---- bad input ---- */

static void expect_parse_error(const char *xml, const char *needle)
{
    am_skeleton s;
    am_error err;
    am_error_clear(&err);
    am_status st = am_skeleton_parse(xml, strlen(xml), "bad.xml", &s, &err);
    assert_int_equal(st, AM_ERR_INVALID);
    char buf[512];
    am_error_format(&err, buf, sizeof buf);
    if (!strstr(buf, needle))
        fail_msg("error '%s' does not mention '%s'", buf, needle);
    assert_null(s.joints);
}

#define BONE(name, pos) "<bone " name " pos=\"" pos "\" rot=\"0 0 0\" scale=\"1 1 1\" pivot=\"0 0 0\"/>"

static void test_bad_input_is_a_clear_error(void **state)
{
    (void)state;
    expect_parse_error("", "empty file");
    expect_parse_error("<linden_skeleton num_bones=\"1\" version=\"2.0\">\n<bone name=\"a\"\n",
                       "bad.xml:");
    expect_parse_error("<linden_skeleton num_bones=\"1\" version=\"2.0\">\n" BONE("", "0 0 1") "\n</linden_skeleton>",
                       "bone without name");
    expect_parse_error("<linden_skeleton num_bones=\"1\" version=\"2.0\">\n" BONE("name=\"a\"", "0 zero 1") "\n</linden_skeleton>",
                       "'a' attribute 'pos' is not three numbers");
    expect_parse_error("<linden_skeleton num_bones=\"2\" version=\"2.0\">\n<bone name=\"a\" pos=\"0 0 1\" rot=\"0 0 0\" scale=\"1 1 1\" pivot=\"0 0 0\">\n"
                       BONE("name=\"a\"", "0 0 1") "\n</bone></linden_skeleton>",
                       "duplicate joint name 'a' (first defined on line 2)");
    expect_parse_error("<linden_skeleton num_bones=\"1\" version=\"3.0\"/>", "version");
    expect_parse_error("<skeleton num_bones=\"1\" version=\"2.0\"/>", "expected <linden_skeleton>");
    expect_parse_error("<linden_skeleton num_bones=\"1\" version=\"2.0\">\n" BONE("name=\"a\"", "0 0 1") BONE("name=\"b\"", "0 0 1") "</linden_skeleton>",
                       "too many bones");
    expect_parse_error("<linden_skeleton num_bones=\"1\" version=\"2.0\"><joint name=\"x\"/></linden_skeleton>",
                       "invalid element <joint>");
}

static void test_malformed_xml_error_names_the_line(void **state)
{
    (void)state;
    const char *xml = "<linden_skeleton num_bones=\"1\" version=\"2.0\">\n"
                      "  <bone name=\"a\" pos=\"0 0 1\" rot=\"0 0 0\" scale=\"1 1 1\" pivot=\"0 0 0\">\n"
                      "  </bne>\n"
                      "</linden_skeleton>\n";
    am_skeleton s;
    am_error err;
    am_error_clear(&err);
    assert_int_equal(am_skeleton_parse(xml, strlen(xml), "bad.xml", &s, &err), AM_ERR_INVALID);
    assert_string_equal(err.where, "bad.xml:3");
    assert_non_null(strstr(err.msg, "not XML"));
}

static void test_missing_file_is_io_error(void **state)
{
    (void)state;
    am_skeleton s;
    am_error err;
    am_error_clear(&err);
    assert_int_equal(am_skeleton_load("/nonexistent/avatar_skeleton.xml", &s, &err), AM_ERR_IO);
    assert_string_equal(err.where, "/nonexistent/avatar_skeleton.xml");
}

static void test_locate_explains_how_to_point_at_a_viewer(void **state)
{
    (void)state;
    char path[4096];
    am_error err;
    am_error_clear(&err);
    unsetenv("ANIMESH_SKELETON");
    unsetenv("ANIMESH_VIEWER_DIR");
    assert_int_equal(am_skeleton_locate(NULL, path, sizeof path, &err), AM_ERR_IO);
    assert_non_null(strstr(err.msg, "the skeleton path"));
    assert_non_null(strstr(err.msg, "character/avatar_skeleton.xml"));
    char real[4096];
    am_test_shared_path(real, sizeof real, "viewer/avatar_skeleton.xml");
    setenv("ANIMESH_SKELETON", real, 1);
    assert_int_equal(am_skeleton_locate(NULL, path, sizeof path, &err), AM_OK);
    assert_string_equal(path, real);
    unsetenv("ANIMESH_SKELETON");
    char dir[4096];
    am_test_shared_path(dir, sizeof dir, "viewer/..");
    setenv("ANIMESH_VIEWER_DIR", dir, 1); /* has no character/ folder */
    assert_int_equal(am_skeleton_locate(NULL, path, sizeof path, &err), AM_ERR_IO);
    assert_non_null(strstr(err.where, "character/avatar_skeleton.xml"));
    unsetenv("ANIMESH_VIEWER_DIR");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_real_file_has_133_bones_and_26_volumes, setup, teardown),
        cmocka_unit_test_setup_teardown(test_world_rest_positions_match_spec_in_both_frames, setup, teardown),
        cmocka_unit_test_setup_teardown(test_collision_volume_rotation_and_own_scale, setup, teardown),
        cmocka_unit_test_setup_teardown(test_aliases_resolve, setup, teardown),
        cmocka_unit_test_setup_teardown(test_closed_set_of_wrist_is_chain_to_pelvis, setup, teardown),
        cmocka_unit_test_setup_teardown(test_closed_set_merges_and_orders_parents_first, setup, teardown),
        cmocka_unit_test_setup_teardown(test_ancestry_and_path, setup, teardown),
        cmocka_unit_test_setup_teardown(test_runtime_local_pos_of_pelvis_is_zero, setup, teardown),
        cmocka_unit_test(test_bad_input_is_a_clear_error),
        cmocka_unit_test(test_malformed_xml_error_names_the_line),
        cmocka_unit_test(test_missing_file_is_io_error),
        cmocka_unit_test(test_locate_explains_how_to_point_at_a_viewer),
    };
    return cmocka_run_group_tests_name("skeleton", tests, NULL, NULL);
}
