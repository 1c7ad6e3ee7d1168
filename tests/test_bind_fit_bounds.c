/* The voxel work of `bind --fit` is bounded by the mesh (src/bind/fit.h am_fit_stats,
 * issue 19 item 11): a creature with 40,000 copies of one of its triangles fits exactly as
 * without them (the same joints, a few tests per copy); 40,000 copies of one triangle as
 * tall as the figure are voxelised once (before: every copy re-sampled over its whole
 * area, 23 s), and the error says so; 4,000 large triangles that are all
 * slightly different spend the budget (32 tests per grid cell + 32 per triangle) and the
 * rest are marked along their edges only, which the error then says. Work is counted, not
 * timed. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bind/fit.h"
#include "support/bind_fixtures.h"
#include "support/test_support.h"

#define COPIES 40000

static void test_copies_of_a_triangle_change_nothing(void **state)
{
    (void)state;
    am_skeleton viewer;
    am_test_load_viewer_skeleton(&viewer);
    am_bind_source src;
    am_bind_skeleton ref, base, dup;
    am_test_creature("10k", &viewer, &src, &ref);
    am_bind_mesh m = am_bind_source_mesh(&src);
    char s1[600], s2[600];
    am_error err;
    am_fit_stats st1, st2;
    assert_int_equal(am_bind_fit_ex(&m, AM_FIT_HUMANOID, &viewer, &base, s1, sizeof s1, &st1, &err), AM_OK);
    assert_int_equal(st1.coincident, 0);
    assert_int_equal(st1.edges_only, 0);
    assert_int_equal(st1.triangles, m.triangle_count);
    assert_gt(st1.voxel_tests, m.triangle_count); /* every triangle tested at least one cell */
    assert_lt(st1.voxel_tests, st1.voxel_budget);
    assert_null(strstr(s1, "coincident"));

    uint32_t *tris = malloc((m.triangle_count + COPIES) * 3 * sizeof *tris);
    assert_non_null(tris);
    memcpy(tris, m.triangles, m.triangle_count * 3 * sizeof *tris);
    for (size_t c = 0; c < COPIES; c++) { /* the first triangle again, its corners in turn */
        tris[3 * (m.triangle_count + c)] = m.triangles[c % 3];
        tris[3 * (m.triangle_count + c) + 1] = m.triangles[(c + 1) % 3];
        tris[3 * (m.triangle_count + c) + 2] = m.triangles[(c + 2) % 3];
    }
    am_bind_mesh more = {m.vertex_count, m.positions, m.triangle_count + COPIES, tris};
    assert_int_equal(am_bind_fit_ex(&more, AM_FIT_HUMANOID, &viewer, &dup, s2, sizeof s2, &st2, &err), AM_OK);
    print_message("%zu triangles: %llu cell tests; with %d copies of one: %llu (%s)\n", m.triangle_count,
                  (unsigned long long)st1.voxel_tests, COPIES, (unsigned long long)st2.voxel_tests, s2);
    /* a small triangle costs a test or two: its copies stay within their allowance */
    assert_int_equal(st2.triangles, m.triangle_count + COPIES);
    assert_le(st2.voxel_tests - st1.voxel_tests, (uint64_t)COPIES * 8);
    assert_int_equal(st2.edges_only, 0);
    assert_null(strstr(s2, "limit"));
    assert_int_equal(dup.joint_count, base.joint_count);
    for (size_t j = 0; j < base.joint_count; j++) {
        assert_string_equal(am_str(&dup.joints[j].name), am_str(&base.joints[j].name));
        assert_memory_equal(&dup.joints[j].head, &base.joints[j].head, sizeof base.joints[j].head);
    }
    free(tris);
    am_bind_skeleton_free(&base);
    am_bind_skeleton_free(&dup);
    am_bind_skeleton_free(&ref);
    am_bind_source_free(&src);
    am_skeleton_free(&viewer);
}

/* The input: 40,000 copies of one triangle as tall as the figure. */
static void test_coincident_large_triangles_are_voxelised_once(void **state)
{
    (void)state;
    am_skeleton viewer;
    am_test_load_viewer_skeleton(&viewer);
    const float pos[9] = {0, -0.3f, 0, 0, 0.3f, 0, 0, 0, 1.8f};
    uint32_t *tris = malloc(3 * COPIES * sizeof *tris);
    assert_non_null(tris);
    for (size_t t = 0; t < COPIES; t++)
        for (int k = 0; k < 3; k++)
            tris[3 * t + (size_t)k] = (uint32_t)((t + (size_t)k) % 3); /* corners in turn */
    am_bind_mesh m = {3, pos, COPIES, tris};
    am_bind_skeleton fit;
    char summary[600];
    am_error err;
    am_fit_stats st;
    assert_int_equal(am_bind_fit_ex(&m, AM_FIT_HUMANOID, &viewer, &fit, summary, sizeof summary, &st, &err),
                     AM_ERR_INVALID);
    print_message("%llu cell tests: %s\n", (unsigned long long)st.voxel_tests, err.msg);
    assert_int_equal(st.coincident, COPIES - 1);
    assert_int_equal(st.triangles, 1);
    /* one triangle: the columns of its box (about 32 x 96 cells), a few cells each */
    assert_lt(st.voxel_tests, 4 * 33 * 97);
    assert_non_null(strstr(err.msg, "39999 coincident triangles voxelised once"));
    free(tris);
    am_skeleton_free(&viewer);
}

/* 4,000 large triangles across a 1.8 m figure, each 10 micrometres from the one before:
 * no two coincide, so the budget bounds the work. */
static void test_the_budget_bounds_many_large_triangles(void **state)
{
    (void)state;
    am_skeleton viewer;
    am_test_load_viewer_skeleton(&viewer);
    enum { LARGE = 4000 };
    float *pos = malloc(3 * 3 * LARGE * sizeof *pos);
    uint32_t *tris = malloc(3 * LARGE * sizeof *tris);
    assert_non_null(pos);
    assert_non_null(tris);
    for (size_t t = 0; t < LARGE; t++) {
        float dx = 1e-5f * (float)t;
        const float c[9] = {dx, -0.3f, 0, dx, 0.3f, 0, dx + 0.2f, 0, 1.8f};
        memcpy(&pos[9 * t], c, sizeof c);
        for (int k = 0; k < 3; k++)
            tris[3 * t + k] = (uint32_t)(3 * t + (size_t)k);
    }
    am_bind_mesh m = {3 * LARGE, pos, LARGE, tris};
    am_bind_skeleton fit;
    char summary[600];
    am_error err;
    am_fit_stats st;
    assert_int_equal(am_bind_fit_ex(&m, AM_FIT_HUMANOID, &viewer, &fit, summary, sizeof summary, &st, &err),
                     AM_ERR_INVALID);
    print_message("%llu cell tests, budget %llu, %zu of %d triangles by their edges only: %s\n",
                  (unsigned long long)st.voxel_tests, (unsigned long long)st.voxel_budget, st.edges_only, LARGE,
                  err.msg);
    assert_int_equal(st.coincident, 0);
    assert_int_equal(st.triangles, LARGE);
    assert_gt(st.edges_only, LARGE / 2);
    /* the whole work: the budget, one triangle's cells past it, then edges at half-cell
     * steps (the longest edge is 1.85 m, at most 2 * 96 * 1.04 + 2 steps) */
    assert_le(st.voxel_tests, st.voxel_budget + 20000 + (uint64_t)st.edges_only * 3 * 203);
    assert_non_null(strstr(err.msg, "voxel work limit"));
    free(pos);
    free(tris);
    am_skeleton_free(&viewer);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_copies_of_a_triangle_change_nothing),
        cmocka_unit_test(test_coincident_large_triangles_are_voxelised_once),
        cmocka_unit_test(test_the_budget_bounds_many_large_triangles),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
