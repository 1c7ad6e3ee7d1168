/* The retargeting tests' end-to-end path (retarget_support.h). */
#include "retarget_support.h"

#include <math.h>
#include <stdlib.h>

#include "skin/skin_build.h"
#include "test_support.h"

void am_test_retarget_bench(const am_scene *s, const am_skeleton *skel, const am_retarget_options *o,
                            am_retarget_result *res, am_bench *bench)
{
    am_error err;
    am_error_clear(&err);
    am_status st = am_retarget(s, skel, o, res, &err);
    if (st)
        print_error("retarget %s: %s (%s)\n", s->source ? s->source : "", err.msg, err.where);
    assert_int_equal(st, AM_OK);
    assert_int_equal(res->rig_count, 1);
    am_skin_options so;
    am_skin_options_init(&so);
    so.unreduced_lods = true;
    am_skin_result sk;
    st = am_skin_build(&res->rigs[0].rig, skel, &so, &sk, &err);
    if (st)
        print_error("skin: %s\n", err.msg);
    assert_int_equal(st, AM_OK);
    am_buf mesh = {0};
    assert_int_equal(am_skin_encode(&sk, &mesh, &err), AM_OK);
    am_skin_result_free(&sk);
    assert_int_equal(am_bench_load_mem(mesh.data, mesh.size, am_str(&res->rigs[0].name), skel, NULL, bench, &err), AM_OK);
    am_buf_free(&mesh);
    for (size_t i = 0; i < res->anim_count; i++) {
        am_buf anim = {0};
        st = am_retarget_write_anim(res, i, skel, NULL, &anim, NULL, &err);
        if (st)
            print_error("anim: %s (%s)\n", err.msg, err.where);
        assert_int_equal(st, AM_OK);
        assert_int_equal(am_bench_add_anim_mem(bench, anim.data, anim.size, am_str(&res->anims[i].name), &err), AM_OK);
        am_buf_free(&anim);
    }
}

size_t *am_test_retarget_match(const am_bench *b, const float *rest, size_t n, double tol)
{
    size_t *match = malloc((b->vertex_count ? b->vertex_count : 1) * sizeof *match);
    assert_non_null(match);
    double worst = 0;
    for (size_t i = 0; i < b->vertex_count; i++) {
        double best = INFINITY;
        for (size_t v = 0; v < n; v++) {
            double dx = b->bind_pos[3 * i] - rest[3 * v], dy = b->bind_pos[3 * i + 1] - rest[3 * v + 1],
                   dz = b->bind_pos[3 * i + 2] - rest[3 * v + 2], d = dx * dx + dy * dy + dz * dz;
            if (d < best)
                best = d, match[i] = v;
        }
        worst = fmax(worst, sqrt(best));
    }
    if (worst > tol)
        print_error("rest: a bench vertex is %.6f from every expected one (allowed %.6f)\n", worst, tol);
    assert_true(worst <= tol);
    return match;
}

double am_test_retarget_pose_error(const am_bench *b, const size_t *match, int motion, double t, const float *want)
{
    float *prim = malloc((3 * b->vertex_count + 1) * sizeof(float)),
          *bind = malloc((3 * b->vertex_count + 1) * sizeof(float));
    assert_non_null(prim);
    assert_non_null(bind);
    am_error err;
    assert_int_equal(am_bench_pose_at(b, motion, t, prim, NULL, &err), AM_OK);
    am_bench_positions_to_bind(b, prim, bind, b->vertex_count);
    double worst = 0;
    for (size_t i = 0; i < b->vertex_count; i++) {
        const float *w = &want[3 * match[i]];
        worst = fmax(worst, am_v3_len(am_v3(bind[3 * i] - w[0], bind[3 * i + 1] - w[1], bind[3 * i + 2] - w[2])));
    }
    free(prim);
    free(bind);
    return worst;
}
