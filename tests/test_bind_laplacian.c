/* The cotangent Laplacian (src/bind/laplacian.c) against its definition on a unit square cut
 * into two right triangles: the FEM weights cot(opposite) / 2 per edge, summed over the
 * edge's triangles, the diagonal their sum (each row of the whole matrix sums to zero), the
 * mixed Voronoi areas (a quarter of the square each); its compressed columns sorted with
 * the diagonal first. A degenerate triangle adds nothing; a triangle with a vertex outside
 * the rows is left out. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support/test_support.h"
#include "bind/bind_internal.h"

/* Entry (r, c) of the lower triangle, or NAN when absent. */
static double entry(const bind_laplacian *l, int32_t r, int32_t c)
{
    if (r < c) {
        int32_t t = r;
        r = c;
        c = t;
    }
    for (size_t k = l->col_start[c]; k < l->col_start[c + 1]; k++)
        if (l->row[k] == r)
            return l->val[k];
    return NAN;
}

static void test_square_of_two_right_triangles(void **state)
{
    (void)state;
    /* v0 (0,0), v1 (1,0), v2 (0,1), v3 (1,1); v4 outside the rows */
    const float pos[] = {0, 0, 0, 1, 0, 0, 0, 1, 0, 1, 1, 0, 2, 2, 0};
    const uint32_t tris[] = {0, 1, 2, 1, 3, 2, 0, 0, 1, 2, 3, 4};
    const int32_t index[] = {0, 1, 2, 3, -1};
    bind_laplacian l;
    am_error err;
    am_error_clear(&err);
    assert_int_equal(am_bind_laplacian_build(pos, tris, 4, index, 4, &l, &err), AM_OK);
    assert_int_equal(l.rows, 4);
    /* the pattern: the diagonal and the square's five edges (the cut's too, its weight 0) */
    assert_int_equal(l.nnz, 4 + 5);
    for (size_t c = 0; c < 4; c++) {
        assert_int_equal(l.row[l.col_start[c]], (int32_t)c); /* the diagonal first */
        for (size_t k = l.col_start[c] + 1; k < l.col_start[c + 1]; k++)
            assert_true(l.row[k] > l.row[k - 1]);
    }
    /* the right angles at v0 and v3 give the cut (v1, v2) cot 90 = 0; the sides cot 45 / 2 */
    assert_float_equal(entry(&l, 1, 0), -0.5, 1e-12);
    assert_float_equal(entry(&l, 2, 0), -0.5, 1e-12);
    assert_float_equal(entry(&l, 3, 1), -0.5, 1e-12);
    assert_float_equal(entry(&l, 3, 2), -0.5, 1e-12);
    assert_float_equal(entry(&l, 2, 1), 0.0, 1e-12);
    assert_true(isnan(entry(&l, 3, 0))); /* v0 and v3 share no edge */
    for (int32_t r = 0; r < 4; r++) {
        double sum = 0;
        for (int32_t c = 0; c < 4; c++)
            if (!isnan(entry(&l, r, c)))
                sum += entry(&l, r, c);
        assert_float_equal(entry(&l, r, r), 1.0, 1e-12);
        assert_float_equal(sum, 0.0, 1e-12);
        assert_float_equal(l.area[r], 0.25, 1e-12);
    }
    am_bind_laplacian_free(&l);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_square_of_two_right_triangles),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
