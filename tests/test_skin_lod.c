/* Every LOD of a skinned mesh must bend where the high LOD bends. A weight-blind
 * simplifier removes the bend box's hinge vertices (flat faces: zero geometric error) and
 * the distant LODs then fold as a sheared wedge. Skin builder -> bytes -> bench per LOD. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "test_support.h"
#include "bench.h"
#include "bendbox/bendbox.h"
#include "skin/rig.h"
#include "skin/skin_build.h"

/* Does the LOD keep a vertex on each of the four long edges of the line x = x0? */
static int hinge_corners(const am_bench *b, double x0)
{
    int found = 0;
    for (int ys = -1; ys <= 1; ys += 2)
        for (int zs = -1; zs <= 1; zs += 2) {
            bool hit = false;
            for (size_t v = 0; v < b->vertex_count && !hit; v++) {
                const float *p = &b->bind_pos[3 * v];
                hit = fabs(p[0] - x0) < 1e-3 && fabs(p[1] - ys) < 1e-3 && fabs(p[2] - (1.067 + 0.5 * zs)) < 1e-3;
            }
            found += hit;
        }
    return found;
}

static void test_every_lod_keeps_the_hinge_and_folds_cleanly(void **state)
{
    (void)state;
    am_skeleton skel;
    am_test_load_viewer_skeleton(&skel);
    am_rig rig;
    am_error err;
    am_error_clear(&err);
    assert_int_equal(am_bendbox_build_rig(&rig, &err), AM_OK);
    am_skin_options opts;
    am_skin_options_default(&opts); /* LOD generation on, as `animesh skin` does */
    am_skin_result res;
    assert_int_equal(am_skin_build(&rig, &skel, &opts, &res, &err), AM_OK);
    am_buf bytes = {0};
    assert_int_equal(am_skin_encode(&res, &bytes, &err), AM_OK);
    int hip_left = am_skeleton_find(&skel, "mHipLeft");
    am_bench_local fold = {hip_left, true, false, am_quat_axis_angle(am_v3(0, 1, 0), -AM_PI / 2), am_v3(0, 0, 0)};
    for (int lod = AM_LOD_LOWEST; lod <= AM_LOD_HIGH; lod++) {
        am_bench_options bo = {lod};
        am_bench b;
        assert_int_equal(am_bench_load_mem(bytes.data, bytes.size, "bendbox.llmesh", &skel, &bo, &b, &err), AM_OK);
        /* the lines where the weights change: hinge and both ends of the blend */
        assert_int_equal(hinge_corners(&b, 0.0), 4);
        assert_int_equal(hinge_corners(&b, -1.0), 4);
        assert_int_equal(hinge_corners(&b, 1.0), 4);
        float *posed = malloc(3 * b.vertex_count * sizeof *posed);
        assert_non_null(posed);
        assert_int_equal(am_bench_pose_locals(&b, &fold, 1, posed, NULL, &err), AM_OK);
        am_bench_strain st;
        assert_int_equal(am_bench_strain_report(&b, posed, &st, &err), AM_OK);
        /* no edge of the folded LOD stretches or collapses beyond the rigger's band */
        assert_true(st.min >= 0.5);
        assert_true(st.max <= 1.6);
        free(posed);
        am_bench_free(&b);
    }
    am_buf_free(&bytes);
    am_skin_result_free(&res);
    am_rig_free(&rig);
    am_skeleton_free(&skel);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_lod_keeps_the_hinge_and_folds_cleanly),
    };
    return cmocka_run_group_tests_name("skin_lod", tests, NULL, NULL);
}
