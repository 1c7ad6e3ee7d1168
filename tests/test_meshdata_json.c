/* The WorldBridge meshdata JSON we write (docs/reference/worldbridge.md): accepted by the push client's
 * own validator (src/world/meshdata.h), carrying the skin block's matrices, weights that
 * sum to 1, and positions that are the rig's bind-frame positions. */
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "skin/rig.h"
#include "skin/skin_build.h"
#include "support/test_support.h"
#include "world/meshdata.h"

static void test_meshdata_matches_skin_and_passes_the_push_validator(void **state)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/assets/rigs/quadruped.json", AM_SOURCE_DIR);
    am_rig rig;
    am_error err;
    am_error_clear(&err);
    assert_int_equal(am_rig_load(path, &rig, &err), AM_OK);
    am_skeleton skel;
    am_test_load_viewer_skeleton(&skel);
    am_skin_result res;
    assert_int_equal(am_skin_build(&rig, &skel, NULL, &res, &err), AM_OK);
    am_buf out = {0};
    assert_int_equal(am_skin_write_meshdata_json(&res, &out, &err), AM_OK);

    json_error_t jerr;
    json_t *doc = json_loadb((const char *)out.data, out.size, JSON_REJECT_DUPLICATES, &jerr);
    if (!doc)
        fail_msg("not JSON: %s (line %d)", jerr.text, jerr.line);
    am_meshdata_summary ms;
    char buf[512];
    if (am_meshdata_validate(doc, &skel, &ms, &err))
        fail_msg("validator: %s", am_error_format(&err, buf, sizeof buf));
    assert_int_equal(ms.submeshes, 1);
    assert_int_equal(ms.vertices, rig.vertex_count);
    assert_int_equal(ms.triangles, rig.triangle_count);
    assert_int_equal(ms.joints, res.asset.skin.joint_count);
    assert_true(ms.skinned);

    const json_t *sub = json_array_get(json_object_get(doc, "submeshes"), 0);
    const json_t *skin = json_object_get(doc, "skin");
    /* positions: the rig's own (bind frame, metres), in first-use order (the fixture's
     * vertices are all used, in order) */
    const json_t *pos = json_object_get(sub, "positions");
    for (size_t v = 0; v < rig.vertex_count; v++)
        for (size_t k = 0; k < 3; k++)
            assert_true((float)json_number_value(json_array_get(json_array_get(pos, v), k)) ==
                        rig.positions[3 * v + k]);
    /* skin matrices equal the skin block's, element order included */
    for (size_t j = 0; j < res.asset.skin.joint_count; j++) {
        assert_string_equal(json_string_value(json_array_get(json_object_get(skin, "joints"), j)),
                            res.asset.skin.joint_names[j]);
        const json_t *ib = json_array_get(json_object_get(skin, "invBind"), j);
        const json_t *ab = json_array_get(json_object_get(skin, "altInvBind"), j);
        for (size_t i = 0; i < 16; i++) {
            assert_near(json_number_value(json_array_get(ib, i)), res.asset.skin.inverse_bind[j].m[i], 1e-12);
            assert_near(json_number_value(json_array_get(ab, i)), res.asset.skin.alt_inverse_bind[j].m[i], 1e-12);
        }
    }
    /* mHipLeft (rig joint 11): override (0.35, 0.12, -0.067) at elements 12..14 */
    const json_t *hip = json_array_get(json_object_get(skin, "altInvBind"), 11);
    assert_near(json_number_value(json_array_get(hip, 12)), 0.35, 1e-9);
    assert_near(json_number_value(json_array_get(hip, 14)), -0.067, 1e-9);
    /* bind shape: identity, since these positions are already in the bind frame */
    const json_t *bs = json_object_get(skin, "bindShape");
    for (size_t i = 0; i < 16; i++)
        assert_near(json_number_value(json_array_get(bs, i)), i % 5 == 0 ? 1.0 : 0.0, 0);
    /* weights: the fixture's 0.75 / 0.25 pairs, summing to 1 */
    const json_t *w = json_array_get(json_object_get(skin, "weights"), 8);
    assert_int_equal(json_array_size(w), 2);
    assert_near(json_number_value(json_array_get(json_array_get(w, 0), 1)), 0.75, 1e-12);
    assert_near(json_number_value(json_array_get(json_array_get(w, 1), 1)), 0.25, 1e-12);
    /* extent = bounding box size of the positions */
    double mn = INFINITY, mx = -INFINITY;
    for (size_t v = 0; v < rig.vertex_count; v++) {
        mn = fmin(mn, rig.positions[3 * v]);
        mx = fmax(mx, rig.positions[3 * v]);
    }
    assert_near(json_number_value(json_array_get(json_object_get(doc, "extent"), 0)), mx - mn, 1e-6);
    json_decref(doc);
    am_buf_free(&out);
    am_skin_result_free(&res);
    am_skeleton_free(&skel);
    am_rig_free(&rig);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_meshdata_matches_skin_and_passes_the_push_validator),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
