/* Islands and scale (issue 11): a body with a separate eye sphere and a floating ring binds
 * every island, the eye and the ring rigidly to their nearest visible bone at 1.0; the
 * centimetre and the hundred-metre copies of a creature give the metre creature's weights;
 * a garment-like shell whose vertices see no bone (an inner shell blocks every ray) is
 * caught and bound on the voxel proxy; a mirror-symmetric mesh and skeleton give mirrored
 * weights. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support/bind_fixtures.h"
#include "support/test_support.h"

/* The 10k creature plus an eye (sphere of 1.2 cm half sunk into the front of the head) and
 * a ring (torus around the left forearm, touching nothing). */
static void test_body_eye_and_ring_each_bound(void **state)
{
    (void)state;
    am_skeleton viewer;
    am_test_load_viewer_skeleton(&viewer);
    am_bind_source src;
    am_bind_skeleton sk;
    am_test_creature("10k", &viewer, &src, &sk);
    am_test_mesh m = {0};
    am_test_mesh_from_source(&m, &src);
    size_t eye0 = m.nv;
    am_test_mesh_sphere(&m, 0.094, 0.03, 1.73, 0.012, 8, 12);
    size_t ring0 = m.nv;
    /* the forearm at y = 0.55 spans x -0.069..-0.003, z 1.488..1.556: a ring of radius 7 cm
     * about the Y axis around its centre clears it */
    am_test_mesh_torus(&m, -0.036, 0.55, 1.522, 0.075, 0.008, 1, 24, 8);
    size_t end = m.nv;
    am_bind_mesh view = am_test_mesh_view(&m);
    am_bind_result r;
    am_error err;
    assert_int_equal(am_bind(&view, &sk, NULL, &r, &err), AM_OK);
    assert_int_equal(r.island_count, 3);
    assert_int_equal(r.unweighted, 0);
    int head = -1, body = -1, eye = -1, ring = -1;
    for (size_t j = 0; j < sk.joint_count; j++)
        if (strcmp(am_str(&sk.joints[j].name), "mHead") == 0)
            head = (int)j;
    for (size_t k = 0; k < r.island_count; k++) {
        size_t v = r.islands[k].first_vertex;
        if (v < eye0)
            body = (int)k;
        else if (v < ring0)
            eye = (int)k;
        else
            ring = (int)k;
    }
    assert_true(body >= 0 && eye >= 0 && ring >= 0);
    assert_int_equal(r.islands[body].route, AM_ROUTE_HEAT);
    assert_int_equal(r.islands[eye].route, AM_ROUTE_RIGID);
    assert_int_equal(r.islands[ring].route, AM_ROUTE_RIGID);
    assert_int_equal(r.islands[eye].bones_held, 0);
    assert_int_equal(r.islands[ring].bones_held, 0);
    assert_int_equal(r.islands[eye].rigid_joint, head);
    const char *ring_joint = am_str(&sk.joints[r.islands[ring].rigid_joint].name);
    assert_true(strcmp(ring_joint, "mElbowLeft") == 0 || strcmp(ring_joint, "mWristLeft") == 0);
    assert_non_null(strstr(am_str(&r.islands[eye].why), "rigid to mHead"));
    /* rigid: one influence at exactly 1.0 on every vertex of the eye and the ring */
    for (size_t v = eye0; v < end; v++) {
        assert_int_equal(r.count[v], 1);
        assert_near(r.weight[4 * v], 1.0, 0.0);
        assert_int_equal(r.joint[4 * v], v < ring0 ? head : r.islands[ring].rigid_joint);
    }
    am_bind_result_free(&r);
    am_test_mesh_free(&m);
    am_bind_skeleton_free(&sk);
    am_bind_source_free(&src);
    am_skeleton_free(&viewer);
}

/* The same creature and skeleton scaled: weights within 1e-4 of the metre creature's. */
static void bind_scaled(double scale, double *max_diff, size_t *dominant_changed)
{
    am_skeleton viewer;
    am_test_load_viewer_skeleton(&viewer);
    am_bind_source src;
    am_bind_skeleton sk;
    am_test_creature("10k", &viewer, &src, &sk);
    am_bind_mesh m = am_bind_source_mesh(&src);
    am_bind_result a, b;
    am_error err;
    assert_int_equal(am_bind(&m, &sk, NULL, &a, &err), AM_OK);
    float *scaled = malloc(3 * src.vertex_count * sizeof *scaled);
    assert_non_null(scaled);
    for (size_t i = 0; i < 3 * src.vertex_count; i++)
        scaled[i] = (float)(src.positions[i] * scale);
    for (size_t j = 0; j < sk.joint_count; j++) {
        sk.joints[j].head = am_v3_scale(sk.joints[j].head, scale);
        sk.joints[j].tail = am_v3_scale(sk.joints[j].tail, scale);
    }
    am_bind_mesh ms = {src.vertex_count, scaled, src.triangle_count, src.triangles};
    assert_int_equal(am_bind(&ms, &sk, NULL, &b, &err), AM_OK);
    assert_near(b.height_m, a.height_m * scale, 1e-6 * a.height_m * scale);
    *max_diff = 0;
    *dominant_changed = 0;
    for (size_t v = 0; v < src.vertex_count; v++) {
        double wa[64] = {0}, wb[64] = {0};
        for (int k = 0; k < a.count[v]; k++)
            wa[a.joint[4 * v + k]] = a.weight[4 * v + k];
        for (int k = 0; k < b.count[v]; k++)
            wb[b.joint[4 * v + k]] = b.weight[4 * v + k];
        for (size_t j = 0; j < sk.joint_count; j++)
            *max_diff = fmax(*max_diff, fabs(wa[j] - wb[j]));
        *dominant_changed += a.joint[4 * v] != b.joint[4 * v];
    }
    free(scaled);
    am_bind_result_free(&a);
    am_bind_result_free(&b);
    am_bind_skeleton_free(&sk);
    am_bind_source_free(&src);
    am_skeleton_free(&viewer);
}

static void test_centimetre_copy_binds_like_the_metre_one(void **state)
{
    (void)state;
    double diff;
    size_t changed;
    bind_scaled(0.01, &diff, &changed);
    print_message("1.8 cm creature: largest weight difference %.2g, dominant joint changed on %zu vertices\n", diff,
                  changed);
    assert_lt(diff, 1e-4);
    assert_int_equal(changed, 0);
    bind_scaled(100.0, &diff, &changed);
    print_message("180 m creature: largest weight difference %.2g, dominant joint changed on %zu vertices\n", diff,
                  changed);
    assert_lt(diff, 1e-4);
    assert_int_equal(changed, 0);
}

/* Two nested closed boxes, both holding the bone: the outer shell's vertices see the bone
 * only through the inner shell's front faces, so heat has nothing to heat the outer island
 * with (Blender: "failed to find solution"). It must be bound on the proxy, not left. */
static void test_shell_that_sees_no_bone_goes_to_the_proxy(void **state)
{
    (void)state;
    am_skeleton viewer;
    am_test_load_viewer_skeleton(&viewer);
    am_test_mesh m = {0};
    am_test_mesh_box(&m, (double[3]){-0.25, -0.25, 0.5}, (double[3]){0.25, 0.25, 1.75}, 8);
    size_t inner0 = m.nv;
    am_test_mesh_box(&m, (double[3]){-0.125, -0.125, 0.75}, (double[3]){0.125, 0.125, 1.5}, 8);
    const char *names[] = {"mPelvis", "mTorso", "mChest"};
    am_vec3 heads[] = {am_v3(0, 0, 0.8), am_v3(0, 0, 1.1), am_v3(0, 0, 1.4)};
    am_bind_skeleton sk;
    am_test_skeleton_from_heads(&viewer, names, heads, 3, 1.25, &sk);
    am_bind_mesh view = am_test_mesh_view(&m);
    am_bind_result r;
    am_error err;
    assert_int_equal(am_bind(&view, &sk, NULL, &r, &err), AM_OK);
    assert_int_equal(r.island_count, 2);
    assert_int_equal(r.unweighted, 0);
    for (size_t k = 0; k < 2; k++) {
        bool outer = r.islands[k].first_vertex < inner0;
        assert_int_equal(r.islands[k].bones_held, 3);
        print_message("%s shell: route %s (%s)\n", outer ? "outer" : "inner", am_bind_route_name(r.islands[k].route),
                      am_str(&r.islands[k].why));
        assert_int_equal(r.islands[k].route, outer ? AM_ROUTE_PROXY : AM_ROUTE_HEAT);
    }
    /* the outer shell follows the bones like the inner one: torso-high vertices mostly mTorso */
    for (size_t v = 0; v < inner0; v++) {
        double z = m.pos[3 * v + 2];
        if (fabs(z - 1.2) < 0.05 && r.count[v])
            assert_string_equal(am_str(&sk.joints[r.joint[4 * v]].name), "mTorso");
    }
    am_bind_result_free(&r);
    am_bind_skeleton_free(&sk);
    am_test_mesh_free(&m);
    am_skeleton_free(&viewer);
}

/* A box mirror-symmetric in y (triangulation included) with a mirror-symmetric skeleton:
 * each vertex's weights equal its mirror's with Left and Right swapped. */
static int mirror_of(const am_bind_skeleton *s, int j)
{
    char name[80];
    const char *n = am_str(&s->joints[j].name), *l = strstr(n, "Left"), *r = strstr(n, "Right");
    if (l)
        snprintf(name, sizeof name, "%.*sRight%s", (int)(l - n), n, l + 4);
    else if (r)
        snprintf(name, sizeof name, "%.*sLeft%s", (int)(r - n), n, r + 5);
    else
        return j;
    for (size_t k = 0; k < s->joint_count; k++)
        if (strcmp(am_str(&s->joints[k].name), name) == 0)
            return (int)k;
    return -1;
}

static void test_symmetric_mesh_gives_mirrored_weights(void **state)
{
    (void)state;
    am_skeleton viewer;
    am_test_load_viewer_skeleton(&viewer);
    am_test_mesh m = {0};
    am_test_mesh_box(&m, (double[3]){-0.125, -0.25, 0.0}, (double[3]){0.125, 0.25, 1.0}, 16);
    const char *names[] = {"mPelvis", "mTorso", "mHipLeft", "mKneeLeft", "mHipRight", "mKneeRight"};
    am_vec3 heads[] = {am_v3(0, 0, 0.75), am_v3(0, 0, 0.875), am_v3(0, 0.125, 0.625), am_v3(0, 0.125, 0.25),
                       am_v3(0, -0.125, 0.625), am_v3(0, -0.125, 0.25)};
    am_bind_skeleton sk;
    am_test_skeleton_from_heads(&viewer, names, heads, 6, 1.0, &sk);
    am_bind_mesh view = am_test_mesh_view(&m);
    am_bind_result r;
    am_error err;
    assert_int_equal(am_bind(&view, &sk, NULL, &r, &err), AM_OK);
    assert_int_equal(r.island_count, 1);
    /* pair each vertex with its mirror through the welded positions */
    double worst = 0;
    size_t pairs = 0;
    for (size_t v = 0; v < m.nv; v++) {
        if (m.pos[3 * v + 1] <= 0)
            continue;
        for (size_t u = 0; u < m.nv; u++) {
            if (m.pos[3 * u] != m.pos[3 * v] || m.pos[3 * u + 1] != -m.pos[3 * v + 1] || m.pos[3 * u + 2] != m.pos[3 * v + 2])
                continue;
            double wv[16] = {0}, wu[16] = {0};
            for (int k = 0; k < r.count[v]; k++)
                wv[r.joint[4 * v + k]] = r.weight[4 * v + k];
            for (int k = 0; k < r.count[u]; k++)
                wu[mirror_of(&sk, r.joint[4 * u + k])] = r.weight[4 * u + k];
            for (size_t j = 0; j < sk.joint_count; j++)
                worst = fmax(worst, fabs(wv[j] - wu[j]));
            pairs++;
            break;
        }
    }
    print_message("%zu mirrored pairs, worst mismatch %.2g\n", pairs, worst);
    assert_gt(pairs, 500);
    assert_lt(worst, 1e-6);
    am_bind_result_free(&r);
    am_bind_skeleton_free(&sk);
    am_test_mesh_free(&m);
    am_skeleton_free(&viewer);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_body_eye_and_ring_each_bound),
        cmocka_unit_test(test_centimetre_copy_binds_like_the_metre_one),
        cmocka_unit_test(test_shell_that_sees_no_bone_goes_to_the_proxy),
        cmocka_unit_test(test_symmetric_mesh_gives_mirrored_weights),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
