/* Big creatures (issue 12): the 50k test creature subdivided to 200,000 vertices with its
 * Blender weights carried (bench/perf/support/test_creature.h), made once for this program.
 *
 * Faces: in any triangle order the split gives at most 8 faces of at most 65,531 vertices
 * with few vertices written on two faces (the input-order split wrote 94% of them twice),
 * and each face's LODs reduce as a one-face mesh does. Budget: over the region's animesh
 * limit the high LOD is reduced to fit before the rest of the build, every vertex kept
 * carrying its own rig weights; with --max-tris none the same mesh is refused before the
 * build, naming the budget that fits. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "skin/rig.h"
#include "skin/skin_build.h"
#include "bench/perf/support/test_creature.h"
#include "support/test_support.h"

typedef struct fixture {
    am_skeleton skel;
    am_rig rig;      /* 200k, the subdivision's own triangle order */
    am_rig shuffled; /* the same, triangles (and corners) in a random order */
} fixture;

static int setup(void **state)
{
    fixture *f = calloc(1, sizeof *f);
    am_test_load_viewer_skeleton(&f->skel);
    char dir[4096], buf[512];
    am_error err;
    am_error_clear(&err);
    am_rig base;
    if (am_test_creature_load(am_test_shared_path(dir, sizeof dir, "data/creature"), "creature_50k", &base, &err) ||
        am_test_creature_subdivide(&base, 200000, "creature_200k", &f->rig, &err) ||
        am_test_creature_subdivide(&f->rig, 200000, "creature_200k", &f->shuffled, &err)) {
        print_error("%s\n", am_error_format(&err, buf, sizeof buf));
        return -1;
    }
    am_rig_free(&base);
    am_test_creature_shuffle(&f->shuffled, 12345);
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    fixture *f = *state;
    am_rig_free(&f->rig);
    am_rig_free(&f->shuffled);
    am_skeleton_free(&f->skel);
    free(f);
    return 0;
}

static void build(const am_rig *rig, const am_skeleton *skel, const am_skin_options *o, am_skin_result *res)
{
    am_error err;
    am_error_clear(&err);
    char buf[512];
    if (am_skin_build(rig, skel, o, res, &err))
        fail_msg("%s", am_error_format(&err, buf, sizeof buf));
}

static void check_faces(const am_skin_result *res, const char *what)
{
    const am_skin_summary *s = &res->summary;
    print_message("%s: %zu faces, %zu vertices written for %zu (%.2f%% on two faces), triangles %zu/%zu/%zu/%zu\n",
                  what, s->face_count, s->vertex_count, s->unique_vertex_count, 100 * s->duplicated_share,
                  s->lod_triangles[AM_LOD_HIGH], s->lod_triangles[AM_LOD_MEDIUM], s->lod_triangles[AM_LOD_LOW],
                  s->lod_triangles[AM_LOD_LOWEST]);
    assert_int_equal(s->unique_vertex_count, 200000);
    assert_true(s->face_count >= 4 && s->face_count <= AM_MESH_MAX_FACES); /* 200000 / 65531 > 3 */
    assert_lt(s->duplicated_share, 0.02);
    size_t tris = 0;
    for (size_t f = 0; f < res->face_count; f++) {
        const am_mesh_face *face = &res->asset.lods[AM_LOD_HIGH].faces[f];
        assert_le(face->vertex_count, AM_SKIN_DEFAULT_FACE_VERTEX_LIMIT);
        tris += face->index_count / 3;
        /* each face's own LODs reduce (a face locked by long borders would keep them) */
        size_t hi = face->index_count / 3, med = res->asset.lods[AM_LOD_MEDIUM].faces[f].index_count / 3;
        size_t low = res->asset.lods[AM_LOD_LOW].faces[f].index_count / 3;
        assert_le(med, hi / 3);
        assert_le(low, med / 3);
    }
    assert_int_equal(tris, 399996);
    assert_le(s->lod_triangles[AM_LOD_MEDIUM], s->lod_triangles[AM_LOD_HIGH] / 3);
    assert_le(s->lod_triangles[AM_LOD_LOW], s->lod_triangles[AM_LOD_MEDIUM] / 3);
    assert_le(s->lod_triangles[AM_LOD_LOWEST], s->lod_triangles[AM_LOD_LOW] / 2);
}

static void test_any_triangle_order_splits_into_compact_faces_whose_lods_reduce(void **state)
{
    fixture *f = *state;
    am_skin_options o;
    am_skin_options_init(&o);
    o.region_max_tris = AM_OPTION_ZERO; /* no region limit: the whole 200k, split into faces */
    am_skin_result a, b;
    build(&f->rig, &f->skel, &o, &a);
    check_faces(&a, "subdivision order");
    build(&f->shuffled, &f->skel, &o, &b);
    check_faces(&b, "shuffled");
    /* a multi-face skin has no meshdata, and says why */
    am_buf md = {0};
    am_error err;
    am_error_clear(&err);
    assert_int_equal(am_skin_write_meshdata_json(&b, &md, &err), AM_ERR_INVALID);
    bool warned = false;
    for (size_t i = 0; i < b.summary.warning_count; i++)
        warned |= strstr(am_str(&b.summary.warnings[i]), "no meshdata") != NULL;
    assert_true(warned);
    am_skin_result_free(&a);
    am_skin_result_free(&b);
}

static void test_over_the_region_limit_reduced_to_it_weights_kept(void **state)
{
    fixture *f = *state;
    am_skin_options o;
    am_skin_options_init(&o); /* region limit 150000, budget auto */
    o.unreduced_lods = true;      /* the budget is what is measured here */
    am_skin_result res;
    build(&f->shuffled, &f->skel, &o, &res);
    const am_skin_summary *s = &res.summary;
    assert_true(s->budget_auto);
    assert_int_equal(s->tris_in, 399996);
    assert_gt(s->tris_removed, 100000);
    assert_int_equal(res.triangle_count + s->tris_removed, 399996);
    /* every vertex kept carries exactly the weights the builder gives its rig vertex */
    am_skin_result full;
    am_skin_options all = o;
    all.region_max_tris = AM_OPTION_ZERO;
    build(&f->shuffled, &f->skel, &all, &full);
    assert_non_null(res.rig_vertex);
    for (size_t v = 0; v < res.vertex_count; v++) {
        uint32_t r = res.rig_vertex[v];
        assert_int_equal(res.weight_count[v], full.weight_count[r]);
        assert_memory_equal(&res.weight_code[4 * v], &full.weight_code[4 * (size_t)r], 4 * sizeof(uint16_t));
        assert_memory_equal(&res.positions[3 * v], &full.positions[3 * (size_t)r], 3 * sizeof(float));
    }
    am_skin_result_free(&full);
    /* and the region's estimate (docs/reference/mesh-asset.md#triangle-limit) now fits */
    am_buf bytes = {0};
    am_error err;
    am_error_clear(&err);
    assert_int_equal(am_skin_encode(&res, &bytes, &err), AM_OK);
    print_message("budget %ld: %zu -> %zu triangles, estimate %.0f (limit 150000)\n", s->budget_tris, s->tris_in,
                  res.triangle_count, s->est_tris_max);
    assert_false(s->over_region_limit);
    assert_gt(s->est_tris_max, 0.8 * 150000); /* and uses most of it */
    am_buf_free(&bytes);
    am_skin_result_free(&res);
    /* never reduced: refused before the build, naming the budget that fits */
    o.max_tris = AM_SKIN_MAX_TRIS_NONE;
    am_skin_result none;
    assert_int_equal(am_skin_build(&f->shuffled, &f->skel, &o, &none, &err), AM_ERR_INVALID);
    assert_non_null(strstr(err.msg, "region limit 150000"));
    assert_non_null(strstr(err.msg, "the max_tris option "));
    assert_int_equal(none.summary.joint_count, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_any_triangle_order_splits_into_compact_faces_whose_lods_reduce),
        cmocka_unit_test(test_over_the_region_limit_reduced_to_it_weights_kept),
    };
    return cmocka_run_group_tests_name("skin_big", tests, setup, teardown);
}
