/* Binding takes its mesh from the scene whatever the format: an unrigged glTF (Y up, +Z
 * forward, as glTF declares) and the same mesh as an OBJ already in the viewer's axes give
 * the same bind-frame positions and exactly the same weights. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bind/fit.h"
#include "support/bind_fixtures.h"
#include "support/gltf_fixtures.h"
#include "readers/scene_load.h"
#include "support/test_support.h"

static void source_of(const char *path, am_bind_source *src)
{
    am_scene sc;
    am_error err;
    if (am_scene_load(path, &sc, &err))
        fail_msg("%s: %s", err.where, err.msg);
    if (am_bind_source_from_scene(&sc, NULL, src, &err))
        fail_msg("%s", err.msg);
    am_scene_free(&sc);
}

static void test_gltf_and_obj_bind_alike(void **state)
{
    (void)state;
    am_skeleton viewer;
    am_test_load_viewer_skeleton(&viewer);
    char dir[256], gltf[512], obj[512];
    am_test_tmpdir(dir, sizeof dir);
    am_gf_model m;
    am_gf_quadruped(&m);
    am_gf_options opt = {0};
    opt.no_skin = true;
    am_gf_write(&m, &opt, dir, "quad", gltf, sizeof gltf);
    /* the same triangles as an OBJ in the bind frame: X = glTF Z (forward), Y = glTF X (the
     * left of a creature facing +Z with +Y up), Z = glTF Y */
    snprintf(obj, sizeof obj, "%s/quad.obj", dir);
    FILE *f = fopen(obj, "w");
    assert_non_null(f);
    for (size_t v = 0; v < m.vertex_count; v++)
        fprintf(f, "v %.9g %.9g %.9g\n", m.positions[3 * v + 2], m.positions[3 * v], m.positions[3 * v + 1]);
    for (size_t i = 0; i < m.index_count; i += 3)
        fprintf(f, "f %u %u %u\n", m.indices[i] + 1, m.indices[i + 1] + 1, m.indices[i + 2] + 1);
    fclose(f);
    am_bind_source a, b;
    source_of(gltf, &a);
    source_of(obj, &b);
    assert_non_null(strstr(am_str(&a.conversion), "+Y up (declared)"));
    assert_false(a.had_weights);
    assert_int_equal(a.vertex_count, b.vertex_count);
    assert_int_equal(a.triangle_count, b.triangle_count);
    for (size_t i = 0; i < 3 * a.vertex_count; i++)
        assert_le(fabsf(a.positions[i] - b.positions[i]), 1e-6f * (1 + fabsf(b.positions[i])));
    /* joints placed from the shape, then both meshes bound */
    am_bind_mesh ma = am_bind_source_mesh(&a), mb = am_bind_source_mesh(&b);
    am_bind_skeleton sk;
    char summary[400];
    am_error err;
    assert_int_equal(am_bind_fit(&mb, AM_FIT_QUADRUPED, &viewer, &sk, summary, sizeof summary, &err), AM_OK);
    print_message("%s\n", summary);
    am_bind_result ra, rb;
    assert_int_equal(am_bind(&ma, &sk, NULL, &ra, &err), AM_OK);
    assert_int_equal(am_bind(&mb, &sk, NULL, &rb, &err), AM_OK);
    assert_int_equal(ra.unweighted, 0);
    double worst = 0;
    for (size_t v = 0; v < a.vertex_count; v++) {
        assert_int_equal(ra.count[v], rb.count[v]);
        for (int k = 0; k < ra.count[v]; k++) {
            assert_int_equal(ra.joint[4 * v + k], rb.joint[4 * v + k]);
            worst = fmax(worst, fabs(ra.weight[4 * v + k] - rb.weight[4 * v + k]));
        }
    }
    assert_lt(worst, 1e-5);
    am_bind_result_free(&ra);
    am_bind_result_free(&rb);
    am_bind_skeleton_free(&sk);
    am_bind_source_free(&a);
    am_bind_source_free(&b);
    am_gf_model_free(&m);
    am_gf_remove_tree(dir);
    am_skeleton_free(&viewer);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_gltf_and_obj_bind_alike),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
