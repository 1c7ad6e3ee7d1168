/* The rig JSON (docs/rig-json.md): parsing, every bad field named, and the writer's
 * output read back to the same values. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "skin/rig.h"
#include "support/test_support.h"

static const char good[] =
    "{\"name\": \"bendbox\",\n"
    " \"joints\": [{\"name\": \"mHipLeft\", \"world\": [0.034, 0.127, 1.026]},\n"
    "            {\"name\": \"mKneeLeft\", \"world\": [0.033, 0.081, 0.535]}],\n"
    " \"vertices\": [[0.1, 0.2, 1.0, 0, 0, 1, 0.25, 0.75], [0.2, 0.2, 1.0, 0, 0, 1, 1, 0],\n"
    "              [0.1, 0.3, 0.5, 1, 0, 0, 0, 1]],\n"
    " \"triangles\": [[0, 1, 2]],\n"
    " \"weights\": [[[0, 1.0]], [[0, 0.5], [1, 0.5]], [[1, 1]]],\n"
    " \"material\": {\"rgb\": [0.8, 0.5, 0.2], \"textured\": true}}";

static void test_parses_every_field(void **state)
{
    am_rig r;
    am_error err;
    am_error_clear(&err);
    assert_int_equal(am_rig_parse_json(good, sizeof good - 1, "good.json", &r, &err), AM_OK);
    assert_string_equal(r.name, "bendbox");
    assert_int_equal(r.joint_count, 2);
    assert_string_equal(r.joints[1].name, "mKneeLeft");
    assert_near(r.joints[1].world.z, 0.535, 0);
    assert_int_equal(r.vertex_count, 3);
    assert_near(r.positions[6 + 2], 0.5f, 0);
    assert_near(r.normals[6], 1.0f, 0);
    assert_near(r.uvs[1], 0.75f, 0);
    assert_int_equal(r.triangle_count, 1);
    assert_int_equal(r.triangles[2], 2);
    assert_int_equal(r.weight_start[1], 1);
    assert_int_equal(r.weight_start[3], 4);
    assert_int_equal(r.influences[2].joint, 1);
    assert_near(r.influences[2].weight, 0.5, 0);
    assert_near(r.rgb[0], 0.8, 0);
    assert_true(r.textured);
    am_rig_free(&r);
}

static void test_writer_output_reads_back_identically(void **state)
{
    am_rig a, b;
    am_error err;
    am_error_clear(&err);
    assert_int_equal(am_rig_parse_json(good, sizeof good - 1, "good.json", &a, &err), AM_OK);
    am_buf out = {0};
    assert_int_equal(am_rig_to_json(&a, &out, &err), AM_OK);
    assert_int_equal(am_rig_parse_json((const char *)out.data, out.size, "written", &b, &err), AM_OK);
    assert_string_equal(a.name, b.name);
    assert_int_equal(a.joint_count, b.joint_count);
    for (size_t i = 0; i < a.joint_count; i++) {
        assert_string_equal(a.joints[i].name, b.joints[i].name);
        assert_true(a.joints[i].world.x == b.joints[i].world.x && a.joints[i].world.z == b.joints[i].world.z);
    }
    assert_memory_equal(a.positions, b.positions, 9 * sizeof(float));
    assert_memory_equal(a.normals, b.normals, 9 * sizeof(float));
    assert_memory_equal(a.uvs, b.uvs, 6 * sizeof(float));
    assert_memory_equal(a.triangles, b.triangles, 3 * sizeof(uint32_t));
    assert_memory_equal(a.weight_start, b.weight_start, 4 * sizeof(size_t));
    for (size_t i = 0; i < 4; i++) {
        assert_int_equal(a.influences[i].joint, b.influences[i].joint);
        assert_true(a.influences[i].weight == b.influences[i].weight);
    }
    assert_true(b.textured);
    assert_true(a.rgb[1] == b.rgb[1]);
    am_buf_free(&out);
    am_rig_free(&a);
    am_rig_free(&b);
}

/* Replace the first occurrence of `from` in the good document and expect a failure whose
 * place and message contain the given texts. */
static void expect_bad(const char *from, const char *to, const char *where, const char *msg)
{
    char doc[2048];
    const char *p = strstr(good, from);
    assert_non_null(p);
    snprintf(doc, sizeof doc, "%.*s%s%s", (int)(p - good), good, to, p + strlen(from));
    am_rig r;
    am_error err;
    am_error_clear(&err);
    assert_int_equal(am_rig_parse_json(doc, strlen(doc), "bad.json", &r, &err), AM_ERR_INVALID);
    if (!strstr(err.where, where) || !strstr(err.msg, msg))
        fail_msg("got where '%s' msg '%s', wanted '%s' / '%s'", err.where, err.msg, where, msg);
    assert_non_null(strstr(err.where, "bad.json"));
    assert_null(r.joints); /* nothing left allocated */
}

static void test_bad_fields_are_named(void **state)
{
    expect_bad("\"bendbox\"", "\"../x\"", "name", "names the output files");
    expect_bad("[0.034, 0.127, 1.026]", "[0.034, 1.026]", "joints[0].world", "3 numbers");
    expect_bad("\"mKneeLeft\"", "7", "joints[1].name", "joint name");
    expect_bad("[0.2, 0.2, 1.0, 0, 0, 1, 1, 0]", "[0.2, 0.2, 1.0]", "vertices[1]", "8 numbers");
    /* stored as floats: 5e307 is a finite double but no float (found by fuzzing: the writer
     * then wrote "inf") */
    expect_bad("[0.2, 0.2, 1.0, 0, 0, 1, 1, 0]", "[0.2, 0.2, 1.0, 0, 5e307, 1, 1, 0]", "vertices[1]",
               "element 4 (5e+307) does not fit a 32-bit float");
    expect_bad("[[0, 1, 2]]", "[[0, 1, 3]]", "triangles[0]", "0..2");
    expect_bad("[[0, 1, 2]]", "[[0, 1, 1]]", "triangles[0]", "degenerate");
    expect_bad("[[1, 1]]]", "[[1, -0.5]]]", "weights[2][0]", ">= 0");
    expect_bad("[[1, 1]]]", "[[2, 1]]]", "weights[2][0]", "joint index 2 out of range (2 joints)");
    expect_bad(", [[1, 1]]]", "]", "weights", "one influence list per vertex (3)");
    expect_bad("[0.8, 0.5, 0.2]", "[0.8, 1.5, 0.2]", "material.rgb", "0..1");
    expect_bad("\"textured\": true", "\"textured\": 1", "material.textured", "true or false");
    expect_bad("{\"name\": \"bendbox\"", "[{\"name\": \"bendbox\"", "bad.json", "not valid JSON");
}

static void test_missing_file_is_an_io_error(void **state)
{
    am_rig r;
    am_error err;
    am_error_clear(&err);
    assert_int_equal(am_rig_load("/nonexistent/rig.json", &r, &err), AM_ERR_IO);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parses_every_field),
        cmocka_unit_test(test_writer_output_reads_back_identically),
        cmocka_unit_test(test_bad_fields_are_named),
        cmocka_unit_test(test_missing_file_is_an_io_error),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
