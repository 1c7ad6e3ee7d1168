/* Binding real files (../shared/data/realdata): ElfEar.dae (unrigged, 2 objects: Blender
 * frame, front -Y) binds to the head and ear joints, each ear to its own side; the Ruth2 v4
 * hands, their shipped weights set aside, re-bind to their own joints, and the agreement
 * with the shipped weights is stated. Both need the COLLADA reader: skipped (saying so)
 * in a build whose reader table has no COLLADA row. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support/bind_fixtures.h"
#include "readers/scene_load.h"
#include "support/test_support.h"

static bool have_collada(void)
{
    if (am_scene_format_lookup(AM_SCENE_FORMAT_COLLADA))
        return true;
    print_message("skipped: this build has no COLLADA reader\n");
    return false;
}

static void test_elf_ears_bind_to_head_and_ear_joints(void **state)
{
    (void)state;
    if (!have_collada()) {
        skip();
        return;
    }
    am_skeleton viewer;
    am_test_load_viewer_skeleton(&viewer);
    char path[4096];
    am_scene sc;
    am_error err;
    assert_int_equal(am_scene_load(am_test_shared_path(path, sizeof path, "data/realdata/ElfEar.dae"), &sc, &err), AM_OK);
    assert_int_equal(sc.mesh_count, 2);
    am_bind_frame frame = {0, -2, 0}; /* Blender's front is -Y: the file declares Z up, metres */
    am_bind_source src;
    assert_int_equal(am_bind_source_from_scene(&sc, &frame, &src, &err), AM_OK);
    assert_non_null(strstr(am_str(&src.conversion), "forward -Y (given)"));
    /* each ear's root (its 10% of vertices nearest the midline) and tip (farthest from it) */
    am_vec3 root[2] = {{0, 0, 0}, {0, 0, 0}}, tip[2];
    for (int e = 0; e < 2; e++) {
        int side = -1; /* mesh e is on +y (left) or -y (right) */
        double sy = 0, ymin = INFINITY;
        size_t n = 0;
        for (size_t v = 0; v < src.vertex_count; v++)
            if (src.vertex_mesh[v] == (uint32_t)e) {
                sy += src.positions[3 * v + 1];
                ymin = fmin(ymin, fabs(src.positions[3 * v + 1]));
                n++;
            }
        side = sy > 0 ? 0 : 1;
        size_t m = 0;
        for (size_t v = 0; v < src.vertex_count; v++)
            if (src.vertex_mesh[v] == (uint32_t)e && fabs(src.positions[3 * v + 1]) < ymin + 0.01) {
                root[side] = am_v3_add(root[side], am_v3(src.positions[3 * v], src.positions[3 * v + 1], src.positions[3 * v + 2]));
                m++;
            }
        root[side] = am_v3_scale(root[side], 1.0 / m);
        double far = -1;
        for (size_t v = 0; v < src.vertex_count; v++) {
            am_vec3 p = am_v3(src.positions[3 * v], src.positions[3 * v + 1], src.positions[3 * v + 2]);
            if (src.vertex_mesh[v] == (uint32_t)e && am_v3_dist(p, root[side]) > far) {
                far = am_v3_dist(p, root[side]);
                tip[side] = p;
            }
        }
        assert_gt(n, 50);
    }
    assert_true(root[0].y > 0 && root[1].y < 0);
    am_vec3 head = am_v3(0.5 * (root[0].x + root[1].x), 0, 0.5 * (root[0].z + root[1].z) - 0.05);
    char json[2048];
    am_vec3 mid[2] = {am_v3_lerp(root[0], tip[0], 0.5), am_v3_lerp(root[1], tip[1], 0.5)};
    snprintf(json, sizeof json,
             "{\"joints\": [{\"name\": \"mHead\", \"head\": [%f,%f,%f], \"tail\": [%f,%f,%f]},"
             "{\"name\": \"mFaceEar1Left\", \"head\": [%f,%f,%f], \"tail\": [%f,%f,%f]},"
             "{\"name\": \"mFaceEar2Left\", \"head\": [%f,%f,%f], \"tail\": [%f,%f,%f]},"
             "{\"name\": \"mFaceEar1Right\", \"head\": [%f,%f,%f], \"tail\": [%f,%f,%f]},"
             "{\"name\": \"mFaceEar2Right\", \"head\": [%f,%f,%f], \"tail\": [%f,%f,%f]}]}",
             head.x, head.y, head.z, head.x, head.y, head.z + 0.1, root[0].x, root[0].y, root[0].z, mid[0].x, mid[0].y,
             mid[0].z, mid[0].x, mid[0].y, mid[0].z, tip[0].x, tip[0].y, tip[0].z, root[1].x, root[1].y, root[1].z,
             mid[1].x, mid[1].y, mid[1].z, mid[1].x, mid[1].y, mid[1].z, tip[1].x, tip[1].y, tip[1].z);
    am_bind_skeleton sk;
    assert_int_equal(am_bind_skeleton_parse_json(json, strlen(json), "ears", &viewer, 0.2, &sk, &err), AM_OK);
    am_bind_mesh m = am_bind_source_mesh(&src);
    am_bind_result r;
    assert_int_equal(am_bind(&m, &sk, NULL, &r, &err), AM_OK);
    assert_int_equal(r.unweighted, 0);
    assert_int_equal(r.island_count, 2);
    for (size_t k = 0; k < r.island_count; k++)
        print_message("ear island %zu: %zu vertices, %s, route %s: %s\n", k, r.islands[k].vertex_count,
                      r.islands[k].closed ? "closed" : "open", am_bind_route_name(r.islands[k].route), am_str(&r.islands[k].why));
    size_t tips_on_ear2 = 0, verts_far = 0;
    for (size_t v = 0; v < src.vertex_count; v++) {
        bool left = src.positions[3 * v + 1] > 0;
        for (int k = 0; k < r.count[v]; k++) {
            const char *n = am_str(&sk.joints[r.joint[4 * v + k]].name);
            /* only the head and this side's ear joints */
            assert_true(strcmp(n, "mHead") == 0 || strstr(n, left ? "Left" : "Right"));
        }
        am_vec3 p = am_v3(src.positions[3 * v], src.positions[3 * v + 1], src.positions[3 * v + 2]);
        int side = left ? 0 : 1;
        if (am_v3_dist(p, tip[side]) < 0.25 * am_v3_dist(root[side], tip[side])) {
            verts_far++;
            tips_on_ear2 += strstr(am_str(&sk.joints[r.joint[4 * v]].name), "Ear2") != NULL;
        }
    }
    print_message("ear tips: %zu of %zu vertices mainly on mFaceEar2\n", tips_on_ear2, verts_far);
    assert_gt(verts_far, 0);
    assert_int_equal(tips_on_ear2, verts_far);
    for (size_t j = 1; j < sk.joint_count; j++)
        assert_gt(r.joint_weight_sum[j], 0);
    am_bind_result_free(&r);
    am_bind_skeleton_free(&sk);
    /* with the head alone no ear holds a bone: each is rigid to mHead */
    const char *head_only = "{\"joints\": [{\"name\": \"mHead\", \"world\": [0, 0, 1.2]}]}";
    assert_int_equal(am_bind_skeleton_parse_json(head_only, strlen(head_only), "head", &viewer, 0.2, &sk, &err), AM_OK);
    sk.joints[0].head = head;
    sk.joints[0].tail = am_v3_add(head, am_v3(0, 0, 0.1));
    assert_int_equal(am_bind(&m, &sk, NULL, &r, &err), AM_OK);
    for (size_t k = 0; k < r.island_count; k++) {
        assert_int_equal(r.islands[k].route, AM_ROUTE_RIGID);
        assert_int_equal(r.islands[k].rigid_joint, 0);
    }
    for (size_t v = 0; v < src.vertex_count; v++) {
        assert_int_equal(r.count[v], 1);
        assert_near(r.weight[4 * v], 1.0, 0.0);
    }
    am_bind_result_free(&r);
    am_bind_skeleton_free(&sk);
    am_bind_source_free(&src);
    am_scene_free(&sc);
    am_skeleton_free(&viewer);
}

static void test_ruth2_hands_rebind_against_their_shipped_weights(void **state)
{
    (void)state;
    if (!have_collada()) {
        skip();
        return;
    }
    am_skeleton viewer;
    am_test_load_viewer_skeleton(&viewer);
    char path[4096];
    am_scene sc;
    am_error err;
    assert_int_equal(am_scene_load(am_test_shared_path(path, sizeof path, "data/realdata/Ruth2v4Hands.dae"), &sc, &err),
                     AM_OK);
    am_bind_source src;
    assert_int_equal(am_bind_source_from_scene(&sc, NULL, &src, &err), AM_OK);
    assert_true(src.had_weights);
    am_bind_skeleton sk;
    size_t skipped;
    assert_int_equal(am_bind_skeleton_from_scene(&sc, NULL, &viewer, 0, &sk, &skipped, &err), AM_OK);
    /* the shipped weights, dense over the skeleton's joints (the file's, normalised later) */
    size_t nj = sk.joint_count, nv = src.vertex_count;
    double *shipped = calloc(nv * nj, sizeof *shipped);
    size_t base = 0;
    for (size_t i = 0; i < sc.mesh_count; i++) {
        const am_scene_mesh *mesh = &sc.meshes[i];
        const am_scene_skin *skin = mesh->skin >= 0 ? &sc.skins[mesh->skin] : NULL;
        for (size_t v = 0; skin && v < mesh->vertex_count; v++)
            for (size_t q = mesh->influence_start[v]; q < mesh->influence_start[v + 1]; q++) {
                int sj = am_skeleton_find(&viewer, skin->joint_names[mesh->influences[q].joint]);
                for (size_t j = 0; j < nj; j++)
                    if (sk.joints[j].skel_joint == sj)
                        shipped[(base + v) * nj + j] += mesh->influences[q].weight;
            }
        base += mesh->vertex_count;
    }
    am_bind_mesh m = am_bind_source_mesh(&src);
    am_bind_result r;
    assert_int_equal(am_bind(&m, &sk, NULL, &r, &err), AM_OK);
    assert_int_equal(r.unweighted, 0);
    size_t routes[5] = {0};
    for (size_t k = 0; k < r.island_count; k++)
        routes[r.islands[k].route]++;
    double dominant, mad;
    am_test_agreement(&r, shipped, nj, nv, &dominant, &mad);
    print_message("Ruth2 v4 hands: %zu vertices, %zu joints (%zu skipped), %zu islands (heat %zu, rigid %zu, proxy %zu); "
                  "dominant-joint agreement with the shipped weights %.1f%%, mean abs difference %.3f\n",
                  nv, nj, skipped, r.island_count, routes[AM_ROUTE_HEAT], routes[AM_ROUTE_RIGID], routes[AM_ROUTE_PROXY],
                  100 * dominant, mad);
    assert_ge(dominant, 0.78); /* measured 81.4%, mean abs difference 0.212 */
    free(shipped);
    am_bind_result_free(&r);
    am_bind_skeleton_free(&sk);
    am_bind_source_free(&src);
    am_scene_free(&sc);
    am_skeleton_free(&viewer);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_elf_ears_bind_to_head_and_ear_joints),
        cmocka_unit_test(test_ruth2_hands_rebind_against_their_shipped_weights),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
