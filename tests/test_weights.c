/* Weight preparation and quantisation (docs/reference/mesh-asset.md#weights, docs/reference/collada-upload.md#weights). */
#include <string.h>

#include "skin/skin_weights.h"
#include "support/test_support.h"

static void test_spec_weights_truncate_like_the_viewer(void **state)
{
    /* docs/reference/mesh-asset.md#worked-example: 0.6 -> 0x9999, 0.4 -> 0x6666 (already summing to 65535) */
    double w[2] = {0.6, 0.4};
    uint16_t c[2];
    assert_int_equal(am_weights_quantize(w, 2, c), 0);
    assert_int_equal(c[0], 0x9999);
    assert_int_equal(c[1], 0x6666);
    /* 1.0 -> 65535 */
    double one = 1.0;
    am_weights_quantize(&one, 1, c);
    assert_int_equal(c[0], 65535);
}

static void test_truncation_residual_goes_to_the_largest(void **state)
{
    /* 0.75 -> 49151.25, 0.25 -> 16383.75: truncated 49151 + 16383 = 65534; +1 to 0.75 */
    double w[2] = {0.25, 0.75};
    uint16_t c[2];
    am_weights_quantize(w, 2, c);
    assert_int_equal(c[1], 49152);
    assert_int_equal(c[0], 16383);
    /* thirds: 21845 each in F32 (65535 / 3 exactly) */
    double t[3] = {1.0 / 3, 1.0 / 3, 1.0 / 3};
    uint16_t d[3];
    am_weights_quantize(t, 3, d);
    assert_int_equal(d[0] + d[1] + d[2], 65535);
}

static void test_prepare_merges_sorts_caps_and_drops_tiny(void **state)
{
    am_vertex_weights vw;
    am_error err;
    am_error_clear(&err);
    /* joint 2 listed twice (0.125 + 0.125), a zero influence, one too small to store */
    am_weight_in in[] = {{2, 0.125}, {0, 0.375}, {1, 0.0}, {2, 0.125}, {3, 0.25}, {4, 0.000001}};
    assert_int_equal(am_weights_prepare(in, 6, 5, &vw, &err), AM_OK);
    assert_int_equal(vw.merged_count, 4); /* 0, 2, 3, 4 */
    assert_int_equal(vw.count, 3);        /* 4's code would be 0: dropped, not written as 0.001 */
    assert_int_equal(vw.dropped, 1);
    assert_int_equal(vw.joint[0], 0);
    /* 0.25 (joint 2 merged) ties 0.25 (joint 3): higher joint index first */
    assert_int_equal(vw.joint[1], 3);
    assert_int_equal(vw.joint[2], 2);
    assert_int_equal(vw.code[0] + vw.code[1] + vw.code[2], 65535);
    assert_near(vw.weight[0] + vw.weight[1] + vw.weight[2], 1.0, 1e-12);
    assert_near(vw.weight[0], 0.375 / 0.875, 1e-12);
    assert_true(vw.renormalised);
}

static void test_prepare_refuses_bad_rows(void **state)
{
    am_vertex_weights vw;
    am_error err;
    am_error_clear(&err);
    am_weight_in zero[] = {{0, 0.0}, {1, 0.0}};
    assert_int_equal(am_weights_prepare(zero, 2, 2, &vw, &err), AM_ERR_INVALID);
    assert_non_null(strstr(err.msg, "joint 0"));
    assert_int_equal(am_weights_prepare(NULL, 0, 2, &vw, &err), AM_ERR_INVALID);
    am_weight_in range[] = {{2, 1.0}};
    assert_int_equal(am_weights_prepare(range, 1, 2, &vw, &err), AM_ERR_INVALID);
    assert_non_null(strstr(err.msg, "out of range"));
    am_weight_in neg[] = {{0, 1.0}, {1, -0.1}};
    assert_int_equal(am_weights_prepare(neg, 2, 2, &vw, &err), AM_ERR_INVALID);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_spec_weights_truncate_like_the_viewer),
        cmocka_unit_test(test_truncation_residual_goes_to_the_largest),
        cmocka_unit_test(test_prepare_merges_sorts_caps_and_drops_tiny),
        cmocka_unit_test(test_prepare_refuses_bad_rows),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
