/* Real data: the 10k-vertex test creature (../shared/data/creature) with Blender's
 * automatic weights (up to 5 influences, sums 0.92-1.00) on its 21 stock joints at their
 * default rest positions. The skin must close the set (mSpine1..4 appended), carry no
 * override (every joint at its default), cap and renormalise the weights, produce LODs
 * that at least halve, and encode/decode. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mesh/mesh_asset.h"
#include "skin/rig.h"
#include "skin/skin_build.h"
#include "bench/perf/support/test_creature.h"
#include "support/test_support.h"

#define NJ 21 /* the stock joints mPelvis .. mFootLeft/Right of creature_10k.skeleton.json */

/* The OBJ, the weight CSV and the skeleton JSON as a rig (bench/perf/support/test_creature.h). */
static void load_creature(am_rig *r)
{
    char dir[4096];
    am_error err;
    am_error_clear(&err);
    char buf[512];
    if (am_test_creature_load(am_test_shared_path(dir, sizeof dir, "data/creature"), "creature_10k", r, &err))
        fail_msg("%s", am_error_format(&err, buf, sizeof buf));
    assert_int_equal(r->joint_count, NJ);
}

static void test_creature_10k_with_blender_weights(void **state)
{
    am_skeleton skel;
    am_test_load_viewer_skeleton(&skel);
    am_rig rig;
    load_creature(&rig);
    assert_int_equal(rig.vertex_count, 10072);
    am_skin_result res;
    am_error err;
    am_error_clear(&err);
    char buf[512];
    if (am_skin_build(&rig, &skel, NULL, &res, &err))
        fail_msg("%s", am_error_format(&err, buf, sizeof buf));
    const am_skin_summary *s = &res.summary;
    /* the closed set: mSpine1..mSpine4 sit between mPelvis/mTorso/mChest in the viewer */
    assert_int_equal(s->joint_count, NJ + 4);
    assert_int_equal(s->appended_count, 4);
    assert_int_equal(s->override_count, 0); /* every joint at its default */
    /* Blender leaves up to 5 influences and does not normalise (data README) */
    assert_int_equal(s->max_influences_in, 5);
    assert_gt(s->vertices_capped, 0);
    assert_gt(s->vertices_renormalised, 0);
    assert_int_equal(s->max_influences_out, 4);
    assert_int_equal(s->face_count, 1);
    /* Medium and low at least halve (docs/reference/mesh-asset.md#streaming-cost charges the bytes of every LOD); the
     * lowest keeps the borders between joint regions (skin_lod.c), so it only shrinks. */
    assert_int_equal(s->lod_triangles[AM_LOD_HIGH], rig.triangle_count);
    for (int lod = AM_LOD_MEDIUM; lod >= AM_LOD_LOW; lod--)
        assert_le(2 * s->lod_triangles[lod], s->lod_triangles[lod + 1]);
    assert_lt(s->lod_triangles[AM_LOD_LOWEST], s->lod_triangles[AM_LOD_LOW]);
    assert_le(5 * s->lod_triangles[AM_LOD_LOWEST], s->lod_triangles[AM_LOD_HIGH]);
    am_buf out = {0};
    assert_int_equal(am_skin_encode(&res, &out, &err), AM_OK);
    /* 8.3 charges a LOD that does not halve; the weight-aware lowest LOD keeps the joint-region
     * borders, a bounded surcharge on top of the high LOD's estimate */
    assert_ge(s->streaming_tris, s->est_tris[AM_LOD_HIGH]);
    assert_le(s->streaming_tris, 1.15 * s->est_tris[AM_LOD_HIGH]);
    assert_false(s->over_region_limit);
    am_mesh_asset back;
    assert_int_equal(am_mesh_asset_decode(out.data, out.size, &back, &err), AM_OK);
    for (int lod = 0; lod < AM_LOD_COUNT; lod++) {
        assert_int_equal(back.lods[lod].face_count, 1);
        assert_int_equal(back.lods[lod].faces[0].index_count / 3, s->lod_triangles[lod]);
        assert_true(back.lods[lod].faces[0].has_weights);
    }
    print_message("creature_10k: %zu joints, triangles %zu/%zu/%zu/%zu, %zu bytes, est tris %.0f, streaming cost "
                  "%.3f, capped %zu, renormalised %zu\n",
                  s->joint_count, s->lod_triangles[3], s->lod_triangles[2], s->lod_triangles[1], s->lod_triangles[0],
                  out.size, s->est_tris_max, s->streaming_cost, s->vertices_capped, s->vertices_renormalised);
    am_mesh_asset_free(&back);
    am_buf_free(&out);
    am_skin_result_free(&res);
    am_rig_free(&rig);
    am_skeleton_free(&skel);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_creature_10k_with_blender_weights),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
