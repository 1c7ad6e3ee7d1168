/* The meshdata schema check (docs/reference/worldbridge.md, "The meshdata JSON"): the fixture passes,
 * each broken field is refused with its JSON path named. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <jansson.h>

#include "support/test_support.h"
#include "world/meshdata.h"
#include "support/world_fixtures.h"

static json_t *load_fixture(void)
{
    char path[4096];
    json_error_t je;
    json_t *j = json_load_file(am_test_tri_meshdata_path(path, sizeof path), 0, &je);
    assert_non_null(j);
    return j;
}

static void test_fixture_is_valid_and_summarised(void **state)
{
    (void)state;
    am_skeleton skel;
    am_test_load_viewer_skeleton(&skel);
    char path[4096];
    json_t *doc;
    am_meshdata_summary sum;
    am_error err;
    assert_int_equal(am_meshdata_load(am_test_tri_meshdata_path(path, sizeof path), &skel, &doc, &sum, &err), AM_OK);
    assert_int_equal(sum.submeshes, 1);
    assert_int_equal(sum.vertices, 3);
    assert_int_equal(sum.triangles, 1);
    assert_int_equal(sum.joints, 2);
    assert_true(sum.skinned);
    assert_string_equal(sum.name, "tri");
    json_decref(doc);
    am_skeleton_free(&skel);
}

/* Apply a JSON edit (a path of keys/indices and a replacement) and expect a refusal. */
static void expect_bad(const char *mutation_json, const char *where, const char *msg_part, const am_skeleton *skel)
{
    json_t *doc = load_fixture();
    json_error_t je;
    json_t *m = json_loads(mutation_json, 0, &je);
    assert_non_null(m);
    /* m = {"path": [...], "value": ...} ; value absent = delete */
    json_t *p = json_object_get(m, "path");
    json_t *node = doc;
    size_t n = json_array_size(p);
    for (size_t i = 0; i + 1 < n; i++) {
        json_t *k = json_array_get(p, i);
        node = json_is_string(k) ? json_object_get(node, json_string_value(k))
                                 : json_array_get(node, (size_t)json_integer_value(k));
        assert_non_null(node);
    }
    json_t *last = json_array_get(p, n - 1);
    json_t *v = json_object_get(m, "value");
    if (json_is_string(last)) {
        if (v)
            json_object_set(node, json_string_value(last), v);
        else
            json_object_del(node, json_string_value(last));
    } else {
        json_array_set(node, (size_t)json_integer_value(last), v);
    }
    am_error err;
    am_error_clear(&err);
    assert_int_equal(am_meshdata_validate(doc, skel, NULL, &err), AM_ERR_INVALID);
    if (strcmp(err.where, where) != 0 || !strstr(err.msg, msg_part))
        fail_msg("for %s: got where '%s' msg '%s'; wanted '%s' / '%s'", mutation_json, err.where, err.msg, where,
                 msg_part);
    json_decref(m);
    json_decref(doc);
}

static void test_each_broken_field_is_named(void **state)
{
    (void)state;
    expect_bad("{\"path\":[\"version\"],\"value\":2}", "version", "expected 1", NULL);
    expect_bad("{\"path\":[\"name\"],\"value\":\"\"}", "name", "non-empty", NULL);
    expect_bad("{\"path\":[\"submeshes\"],\"value\":[]}", "submeshes", "non-empty", NULL);
    expect_bad("{\"path\":[\"submeshes\",0,\"positions\",1],\"value\":[1,2]}", "submeshes[0].positions[1]",
               "3 numbers", NULL);
    /* the skin builder's 1000 m rule: 1e308 is a number, but not a place */
    expect_bad("{\"path\":[\"submeshes\",0,\"positions\",2],\"value\":[0,1e308,0]}", "submeshes[0].positions[2]",
               "coordinate 1e+308 m is beyond +-1000 m", NULL);
    expect_bad("{\"path\":[\"submeshes\",0,\"positions\",0],\"value\":[-1e308,0,0]}", "submeshes[0].positions[0]",
               "beyond +-1000 m", NULL);
    expect_bad("{\"path\":[\"submeshes\",0,\"normals\"],\"value\":[[0,0,1]]}", "submeshes[0].normals",
               "1 entries for 3 positions", NULL);
    expect_bad("{\"path\":[\"submeshes\",0,\"uvs\",2],\"value\":[0,\"a\"]}", "submeshes[0].uvs[2]", "not a number",
               NULL);
    expect_bad("{\"path\":[\"submeshes\",0,\"triangles\",0],\"value\":[0,1,3]}", "submeshes[0].triangles[0]",
               "index 3 outside 0..2", NULL);
    expect_bad("{\"path\":[\"submeshes\",0,\"triangles\",0],\"value\":[0,1.5,2]}", "submeshes[0].triangles[0]",
               "not an integer", NULL);
    expect_bad("{\"path\":[\"submeshes\",0,\"rgb\"],\"value\":[1,2,300]}", "submeshes[0].rgb", "outside", NULL);
    expect_bad("{\"path\":[\"submeshes\",0,\"textured\"],\"value\":1}", "submeshes[0].textured", "true or false",
               NULL);
    expect_bad("{\"path\":[\"skin\",\"joints\",1],\"value\":\"mPelvis\"}", "skin.joints[1]", "repeats skin.joints[0]",
               NULL);
    expect_bad("{\"path\":[\"skin\",\"bindShape\"],\"value\":[1,0,0]}", "skin.bindShape", "16 numbers", NULL);
    expect_bad("{\"path\":[\"skin\",\"invBind\"],\"value\":[[1,0,0,0,0,1,0,0,0,0,1,0,0,0,0,1]]}", "skin.invBind",
               "1 matrices for 2 joints", NULL);
    expect_bad("{\"path\":[\"skin\",\"altInvBind\",1,3],\"value\":\"x\"}", "skin.altInvBind[1]", "not a number", NULL);
    expect_bad("{\"path\":[\"skin\",\"weights\"],\"value\":[[[0,1]]]}", "skin.weights",
               "1 vertex lists for 3 vertices", NULL);
    expect_bad("{\"path\":[\"skin\",\"weights\",1],\"value\":[[0,0.5],[1,0.4]]}", "skin.weights[1]",
               "sum to 0.900000", NULL);
    expect_bad("{\"path\":[\"skin\",\"weights\",1],\"value\":[[0,0.5],[0,0.5]]}", "skin.weights[1]",
               "appears twice", NULL);
    expect_bad("{\"path\":[\"skin\",\"weights\",0],\"value\":[[2,1.0]]}", "skin.weights[0]", "outside 0..1", NULL);
    expect_bad("{\"path\":[\"skin\",\"weights\",0],"
               "\"value\":[[0,0.2],[1,0.2],[0,0.2],[1,0.2],[0,0.2]]}",
               "skin.weights[0]", "1..4", NULL);
    expect_bad("{\"path\":[\"skin\",\"weights\",0],\"value\":[[0,0.0],[1,1.0]]}", "skin.weights[0]", "outside (0, 1]",
               NULL);
    expect_bad("{\"path\":[\"extent\"],\"value\":[1,0,1]}", "extent", "not positive", NULL);
}

static void test_second_submesh_with_skin_is_refused(void **state)
{
    (void)state;
    json_t *doc = load_fixture();
    json_t *subs = json_object_get(doc, "submeshes");
    json_array_append_new(subs, json_deep_copy(json_array_get(subs, 0)));
    am_error err;
    assert_int_equal(am_meshdata_validate(doc, NULL, NULL, &err), AM_ERR_INVALID);
    assert_string_equal(err.where, "submeshes");
    assert_non_null(strstr(err.msg, "2 submeshes with a skin"));
    /* Without the skin, two submeshes are fine (a static mesh). */
    json_object_del(doc, "skin");
    am_meshdata_summary sum;
    assert_int_equal(am_meshdata_validate(doc, NULL, &sum, &err), AM_OK);
    assert_int_equal(sum.submeshes, 2);
    assert_int_equal(sum.vertices, 6);
    assert_false(sum.skinned);
    json_decref(doc);
}

static void test_unknown_joint_is_refused_by_name_with_a_skeleton(void **state)
{
    (void)state;
    am_skeleton skel;
    am_test_load_viewer_skeleton(&skel);
    expect_bad("{\"path\":[\"skin\",\"joints\",1],\"value\":\"Spine1\"}", "skin.joints[1]",
               "unknown joint \"Spine1\"", &skel);
    /* Collision volumes (fitted mesh) and attachment points are skinnable too
     * (docs/reference/viewer-skeleton.md#valid-joint-names):
     * what animesh skin writes for such a rig must pass. HUD points are not. */
    const char *legal[] = {"BELLY", "Left Pec", "Skull"};
    for (size_t i = 0; i < 3; i++) {
        json_t *doc = load_fixture();
        json_array_set_new(json_object_get(json_object_get(doc, "skin"), "joints"), 1, json_string(legal[i]));
        am_error err;
        assert_int_equal(am_meshdata_validate(doc, &skel, NULL, &err), AM_OK);
        json_decref(doc);
    }
    expect_bad("{\"path\":[\"skin\",\"joints\",1],\"value\":\"Center 2\"}", "skin.joints[1]", "unknown joint", &skel);
    am_skeleton_free(&skel);
}

static void test_bad_json_names_the_file_line_and_column(void **state)
{
    (void)state;
    char dir[512], path[1024];
    am_test_tmpdir(dir, sizeof dir);
    snprintf(path, sizeof path, "%s/broken.meshdata.json", dir);
    am_test_write_text(path, "{\"version\": 1, \"name\": \"x\",, }");
    json_t *doc;
    am_error err;
    assert_int_equal(am_meshdata_load(path, NULL, &doc, NULL, &err), AM_ERR_INVALID);
    assert_null(doc);
    assert_string_equal(err.where, path);
    assert_non_null(strstr(err.msg, "not valid JSON"));
    assert_non_null(strstr(err.msg, "(line 1, column 28)"));
    am_test_write_text(path, "{\"version\": 1, \"version\": 1}");
    assert_int_equal(am_meshdata_load(path, NULL, &doc, NULL, &err), AM_ERR_INVALID);
    assert_non_null(strstr(err.msg, "duplicate"));
    snprintf(path, sizeof path, "%s/missing.json", dir);
    assert_int_equal(am_meshdata_load(path, NULL, &doc, NULL, &err), AM_ERR_IO);
    /* an empty file is said to be empty (it was "near end of file" at byte 0) */
    snprintf(path, sizeof path, "%s/empty.json", dir);
    am_test_write_text(path, "");
    assert_int_equal(am_meshdata_load(path, NULL, &doc, NULL, &err), AM_ERR_INVALID);
    assert_non_null(strstr(err.msg, "the file is empty"));
    assert_null(strstr(err.msg, "near end of file"));
    am_test_rmtree(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fixture_is_valid_and_summarised),
        cmocka_unit_test(test_each_broken_field_is_named),
        cmocka_unit_test(test_second_submesh_with_skin_is_refused),
        cmocka_unit_test(test_unknown_joint_is_refused_by_name_with_a_skeleton),
        cmocka_unit_test(test_bad_json_names_the_file_line_and_column),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
