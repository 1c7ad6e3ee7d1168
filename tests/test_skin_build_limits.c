/* Limits of a skin (docs/reference/mesh-asset.md#triangle-lists, #weights, #skinning-formula and
 * #triangle-limit; docs/reference/viewer-skeleton.md#limits; docs/reference/lessons.md#rule-12):
 * 111 joints, 70,000 vertices in one face, 6 influences on a vertex, a weight row summing
 * to 0, a joint index out of range, the region's triangle limit. */
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mesh/mesh_asset.h"
#include "skin/rig.h"
#include "skin/skin_build.h"
#include "support/test_support.h"

/* A rig of a grid nx * ny in the plane z = 1 + 0.1 y (x = 0.01 i), on joints `names`;
 * weights filled by the caller. */
static am_rig *grid_rig(size_t nx, size_t ny, const char *const *names, size_t nj)
{
    am_rig *r = calloc(1, sizeof *r);
    r->name = strdup("grid");
    r->joint_count = nj;
    r->joints = calloc(nj, sizeof *r->joints);
    for (size_t j = 0; j < nj; j++) {
        r->joints[j].name = strdup(names[j]);
        r->joints[j].world = am_v3(0, 0, 1.067);
    }
    size_t n = nx * ny;
    r->vertex_count = n;
    r->positions = malloc(n * 3 * sizeof(float));
    r->normals = malloc(n * 3 * sizeof(float));
    r->uvs = malloc(n * 2 * sizeof(float));
    for (size_t j = 0; j < ny; j++)
        for (size_t i = 0; i < nx; i++) {
            size_t v = j * nx + i;
            r->positions[3 * v] = (float)(0.01 * (double)i);
            r->positions[3 * v + 1] = (float)(0.01 * (double)j);
            r->positions[3 * v + 2] = (float)(1.0 + 0.001 * (double)j);
            r->normals[3 * v] = 0, r->normals[3 * v + 1] = 0, r->normals[3 * v + 2] = 1;
            r->uvs[2 * v] = (float)i / (float)(nx - 1);
            r->uvs[2 * v + 1] = (float)j / (float)(ny - 1);
        }
    r->triangle_count = 2 * (nx - 1) * (ny - 1);
    r->triangles = malloc(r->triangle_count * 3 * sizeof(uint32_t));
    size_t t = 0;
    for (size_t j = 0; j + 1 < ny; j++)
        for (size_t i = 0; i + 1 < nx; i++) {
            uint32_t a = (uint32_t)(j * nx + i), b = a + 1, c = a + (uint32_t)nx, d = c + 1;
            uint32_t *p = &r->triangles[3 * t];
            p[0] = a, p[1] = b, p[2] = d, p[3] = a, p[4] = d, p[5] = c;
            t += 2;
        }
    r->weight_start = malloc((n + 1) * sizeof(size_t));
    return r;
}

static void free_rig(am_rig *r)
{
    am_rig_free(r);
    free(r);
}

/* Every vertex: n influences given by f(v, k). */
static void set_weights(am_rig *r, size_t per_vertex, void (*f)(const am_rig *, size_t, size_t, am_rig_influence *))
{
    r->influences = malloc(r->vertex_count * per_vertex * sizeof(am_rig_influence));
    for (size_t v = 0; v < r->vertex_count; v++) {
        r->weight_start[v] = v * per_vertex;
        for (size_t k = 0; k < per_vertex; k++)
            f(r, v, k, &r->influences[v * per_vertex + k]);
    }
    r->weight_start[r->vertex_count] = r->vertex_count * per_vertex;
}

static void all_on_joint0(const am_rig *r, size_t v, size_t k, am_rig_influence *out)
{
    out->joint = 0;
    out->weight = 1;
}

static void test_111_joints_are_refused(void **state)
{
    am_skeleton skel;
    am_test_load_viewer_skeleton(&skel);
    const char *names[111];
    for (size_t i = 0; i < 111; i++)
        names[i] = skel.joints[i].name; /* bones 0..110: a closed set by themselves */
    am_rig *r = grid_rig(3, 3, names, 111);
    set_weights(r, 1, all_on_joint0);
    am_skin_result res;
    am_error err;
    am_error_clear(&err);
    assert_int_equal(am_skin_build(r, &skel, NULL, &res, &err), AM_ERR_INVALID);
    assert_non_null(strstr(err.msg, "111 joints"));
    assert_non_null(strstr(err.msg, "110"));
    free_rig(r);
    /* 110 are accepted */
    r = grid_rig(3, 3, names, 110);
    set_weights(r, 1, all_on_joint0);
    am_error_clear(&err);
    assert_int_equal(am_skin_build(r, &skel, NULL, &res, &err), AM_OK);
    assert_int_equal(res.asset.skin.joint_count, 110);
    am_skin_result_free(&res);
    free_rig(r);
    am_skeleton_free(&skel);
}

/* weight of mTorso grows with x: w = x / 3.49 */
static void by_x(const am_rig *r, size_t v, size_t k, am_rig_influence *out)
{
    double w = fmin(1.0, r->positions[3 * v] / 3.49);
    out->joint = (int)k;
    out->weight = k == 0 ? 1.0 - w : w;
}

static void test_70000_vertices_split_into_two_faces_keeping_weights(void **state)
{
    am_skeleton skel;
    am_test_load_viewer_skeleton(&skel);
    const char *names[] = {"mPelvis", "mTorso"};
    am_rig *r = grid_rig(350, 200, names, 2); /* 70,000 vertices */
    set_weights(r, 2, by_x);
    am_skin_result res;
    am_error err;
    am_error_clear(&err);
    char buf[512];
    if (am_skin_build(r, &skel, NULL, &res, &err))
        fail_msg("%s", am_error_format(&err, buf, sizeof buf));
    const am_mesh_lod *high = &res.asset.lods[AM_LOD_HIGH];
    assert_int_equal(high->face_count, 2);
    assert_int_equal(res.summary.face_count, 2);
    size_t tris = 0;
    for (size_t f = 0; f < 2; f++) {
        const am_mesh_face *face = &high->faces[f];
        assert_le(face->vertex_count, AM_SKIN_DEFAULT_FACE_VERTEX_LIMIT);
        tris += face->index_count / 3;
        /* every vertex: decoded position -> bind frame via the bind shape -> the weight the
         * rig gave that x, within a quantisation step */
        for (size_t v = 0; v < face->vertex_count; v++) {
            am_vec3 p = am_v3(face->positions[3 * v], face->positions[3 * v + 1], face->positions[3 * v + 2]);
            am_vec3 b = am_mat4_transform_point(&res.asset.skin.bind_shape, p);
            double want = b.x / 3.49;
            double torso = 0;
            int n = face->weight_count[v];
            double sum = 0;
            for (int k = 0; k < n; k++)
                sum += face->weight_code[4 * v + k];
            assert_near(sum, 65535, 0);
            for (int k = 0; k < n; k++)
                if (face->weight_joint[4 * v + k] == 1)
                    torso = face->weight_code[4 * v + k] / 65535.0;
            assert_near(torso, want, 1e-3);
        }
    }
    assert_int_equal(tris, r->triangle_count);
    /* WorldBridge cannot carry it: refused with the reason */
    am_buf md = {0};
    am_error_clear(&err);
    assert_int_equal(am_skin_write_meshdata_json(&res, &md, &err), AM_ERR_INVALID);
    assert_non_null(strstr(err.msg, "submesh 0"));
    am_buf_free(&md);
    am_skin_result_free(&res);
    free_rig(r);
    am_skeleton_free(&skel);
}

static void six(const am_rig *r, size_t v, size_t k, am_rig_influence *out)
{
    static const double w[6] = {0.06, 0.3, 0.04, 0.2, 0.25, 0.15}; /* unsorted on purpose */
    out->joint = (int)k;
    out->weight = v == 4 ? w[k] : (k == 0 ? 1.0 : 0.0);
}

static void test_six_influences_keep_the_four_largest_renormalised(void **state)
{
    am_skeleton skel;
    am_test_load_viewer_skeleton(&skel);
    const char *names[] = {"mPelvis", "mSpine1", "mSpine2", "mTorso", "mSpine3", "mSpine4"};
    am_rig *r = grid_rig(3, 3, names, 6);
    set_weights(r, 6, six);
    am_skin_result res;
    am_error err;
    am_error_clear(&err);
    assert_int_equal(am_skin_build(r, &skel, NULL, &res, &err), AM_OK);
    assert_int_equal(res.summary.max_influences_in, 6);
    assert_int_equal(res.summary.max_influences_out, 4);
    assert_int_equal(res.summary.vertices_capped, 1);
    assert_int_equal(res.summary.influences_dropped, 2);
    /* vertex 4: joints 1 (0.3), 4 (0.25), 3 (0.2), 5 (0.15); sum 0.9; codes trunc(w/0.9 *
     * 65535) in F32 = 21845, 18204, 14563, 10922 (sum 65534) and the residual 1 to the largest */
    assert_int_equal(res.weight_count[4], 4);
    static const int joints[4] = {1, 4, 3, 5};
    static const uint16_t codes[4] = {21846, 18204, 14563, 10922};
    for (int k = 0; k < 4; k++) {
        assert_int_equal(res.weight_joint[16 + k], joints[k]);
        assert_int_equal(res.weight_code[16 + k], codes[k]);
    }
    /* zero-weight influences of the other vertices are not written */
    assert_int_equal(res.weight_count[0], 1);
    am_skin_result_free(&res);
    free_rig(r);
    am_skeleton_free(&skel);
}

/* vertex 4: two weights of 1e308 (their sum overflows a double) and a 1e300 one (too small
 * beside them to store); the rest on joint 0 */
static void huge(const am_rig *r, size_t v, size_t k, am_rig_influence *out)
{
    static const double w[3] = {1e308, 1e308, 1e300};
    out->joint = (int)k;
    out->weight = v == 4 ? w[k] : (k == 0 ? 1.0 : 0.0);
}

static void test_huge_weights_are_normalised_without_overflow(void **state)
{
    am_skeleton skel;
    am_test_load_viewer_skeleton(&skel);
    const char *names[] = {"mPelvis", "mTorso", "mChest"};
    am_rig *r = grid_rig(3, 3, names, 3);
    set_weights(r, 3, huge);
    am_skin_result res;
    am_error err;
    am_error_clear(&err);
    assert_int_equal(am_skin_build(r, &skel, NULL, &res, &err), AM_OK);
    /* an even split (not 100% on one joint): ties go to the higher joint first, which
     * takes the residual code */
    assert_int_equal(res.weight_count[4], 2);
    assert_int_equal(res.weight_code[16] + res.weight_code[17], 65535);
    assert_le(abs((int)res.weight_code[16] - (int)res.weight_code[17]), 1);
    assert_near(res.weight_value[16], 0.5, 1e-9);
    /* the warnings say what happened: no vertex had more than 4 influences */
    assert_int_equal(res.summary.vertices_capped, 0);
    assert_int_equal(res.summary.vertices_small_dropped, 1);
    bool small = false;
    for (size_t i = 0; i < res.summary.warning_count; i++) {
        assert_null(strstr(am_str(&res.summary.warnings[i]), "more than 4"));
        small = small || strstr(am_str(&res.summary.warnings[i]), "1 vertices had an influence too small to store");
    }
    assert_true(small);
    am_skin_result_free(&res);
    free_rig(r);
    am_skeleton_free(&skel);
}

static void zero_row(const am_rig *r, size_t v, size_t k, am_rig_influence *out)
{
    out->joint = 0;
    out->weight = v == 2 ? 0.0 : 1.0;
}

static void test_weight_row_summing_to_zero_is_refused_by_vertex(void **state)
{
    am_skeleton skel;
    am_test_load_viewer_skeleton(&skel);
    const char *names[] = {"mPelvis"};
    am_rig *r = grid_rig(3, 3, names, 1);
    set_weights(r, 1, zero_row);
    am_skin_result res;
    am_error err;
    am_error_clear(&err);
    assert_int_equal(am_skin_build(r, &skel, NULL, &res, &err), AM_ERR_INVALID);
    assert_non_null(strstr(err.where, "vertex 2"));
    assert_non_null(strstr(err.msg, "no influence with a positive weight"));
    free_rig(r);
    am_skeleton_free(&skel);
}

/* A coordinate of 1e30 (or a rig in millimetres) is a units mistake: refused by vertex,
 * before anything is written; an 80 m creature is legal but the viewer scales it down. */
static void test_absurd_coordinates_refused_oversize_warned(void **state)
{
    am_skeleton skel;
    am_test_load_viewer_skeleton(&skel);
    const char *names[] = {"mPelvis"};
    am_rig *r = grid_rig(3, 3, names, 1);
    set_weights(r, 1, all_on_joint0);
    r->positions[3 * 4] = 1e30f;
    am_skin_result res;
    am_error err;
    am_error_clear(&err);
    assert_int_equal(am_skin_build(r, &skel, NULL, &res, &err), AM_ERR_INVALID);
    assert_non_null(strstr(err.msg, "vertex 4: coordinate"));
    assert_non_null(strstr(err.msg, "wrong units?"));
    r->positions[3 * 4] = 80.0f; /* 80 m across: built, with the viewer's scale-down named */
    assert_int_equal(am_skin_build(r, &skel, NULL, &res, &err), AM_OK);
    bool warned = false;
    for (size_t i = 0; i < res.summary.warning_count; i++)
        warned = warned || strstr(am_str(&res.summary.warnings[i]), "larger than 64 m") != NULL;
    assert_true(warned);
    am_skin_result_free(&res);
    r->joints[0].world.z = -2000;
    assert_int_equal(am_skin_build(r, &skel, NULL, &res, &err), AM_ERR_INVALID);
    assert_non_null(strstr(err.msg, "joint 'mPelvis': world"));
    free_rig(r);
    am_skeleton_free(&skel);
}

/* Text longer than the old fixed fields (summary name[128], texture_image[256]) is kept
 * whole by the result, and a summary copy owns its own strings. */
static void test_long_names_are_kept_whole(void **state)
{
    (void)state;
    am_skeleton skel;
    am_test_load_viewer_skeleton(&skel);
    static const char *const names[] = {"mPelvis"};
    am_rig *r = grid_rig(3, 3, names, 1);
    set_weights(r, 1, all_on_joint0);
    char *name = malloc(301), *image = malloc(2001);
    assert_non_null(name);
    assert_non_null(image);
    memset(name, 'r', 300);
    name[300] = '\0';
    memset(image, 'i', 1996);
    memcpy(image + 1996, ".png", 5);
    free(r->name);
    r->name = strdup(name);
    am_skin_options opts = {0};
    opts.texture_image = image;
    am_skin_result res;
    am_error err;
    am_error_clear(&err);
    assert_int_equal(am_skin_build(r, &skel, &opts, &res, &err), AM_OK);
    assert_int_equal(res.summary.name.length, 300);
    assert_string_equal(am_str(&res.summary.name), name);
    assert_int_equal(res.texture_image.length, 2000);
    assert_string_equal(am_str(&res.texture_image), image);
    assert_string_equal(am_str(&res.summary.joints[0].name), "mPelvis");
    am_skin_summary copy = {0};
    assert_true(am_skin_summary_copy(&copy, &res.summary));
    am_skin_result_free(&res);
    assert_string_equal(am_str(&copy.name), name);
    assert_int_equal(copy.joint_count, 1);
    assert_string_equal(am_str(&copy.joints[0].name), "mPelvis");
    am_skin_summary_free(&copy);
    assert_int_equal(copy.name.length, 0);
    free(name);
    free(image);
    free_rig(r);
    am_skeleton_free(&skel);
}

static void test_joint_index_out_of_range_is_refused(void **state)
{
    /* in JSON: at parse time, naming the field */
    static const char json[] = "{\"name\": \"bad\", \"joints\": [{\"name\": \"mPelvis\", \"world\": [0,0,1.067]},"
                               "{\"name\": \"mTorso\", \"world\": [0,0,1.151]}],"
                               "\"vertices\": [[0,0,1,0,0,1,0,0],[1,0,1,0,0,1,1,0],[0,1,1,0,0,1,0,1]],"
                               "\"triangles\": [[0,1,2]], \"weights\": [[[0,1]],[[7,1]],[[1,1]]]}";
    am_rig rig;
    am_error err;
    am_error_clear(&err);
    assert_int_equal(am_rig_parse_json(json, sizeof json - 1, "bad.json", &rig, &err), AM_ERR_INVALID);
    assert_non_null(strstr(err.where, "weights[1][0]"));
    assert_non_null(strstr(err.msg, "joint index 7 out of range (2 joints)"));
    /* in memory (a generated rig): at build time, naming the vertex */
    am_skeleton skel;
    am_test_load_viewer_skeleton(&skel);
    const char *names[] = {"mPelvis"};
    am_rig *r = grid_rig(3, 3, names, 1);
    set_weights(r, 1, all_on_joint0);
    r->influences[5].joint = 3;
    am_skin_result res;
    am_error_clear(&err);
    assert_int_equal(am_skin_build(r, &skel, NULL, &res, &err), AM_ERR_INVALID);
    assert_non_null(strstr(err.where, "vertex 5"));
    assert_non_null(strstr(err.msg, "out of range"));
    /* a negative weight too */
    r->influences[5].joint = 0;
    r->influences[6].weight = -0.5;
    am_error_clear(&err);
    assert_int_equal(am_skin_build(r, &skel, NULL, &res, &err), AM_ERR_INVALID);
    assert_non_null(strstr(err.where, "vertex 6"));
    free_rig(r);
    am_skeleton_free(&skel);
}

static size_t count_files(const char *dir)
{
    DIR *d = opendir(dir);
    size_t n = 0;
    if (!d)
        return 0;
    for (struct dirent *e; (e = readdir(d));)
        n += e->d_name[0] != '.';
    closedir(d);
    return n;
}

/* The region's animesh limit (docs/reference/mesh-asset.md#triangle-limit) compares the viewer's estimate from the
 * high LOD's compressed size. The quadruped's is 54. */
static void test_region_triangle_limit_reduces_or_refuses_before_writing(void **state)
{
    char path[4096], dir[256];
    snprintf(path, sizeof path, "%s/assets/rigs/quadruped.json", AM_SOURCE_DIR);
    am_rig rig;
    am_error err;
    am_error_clear(&err);
    assert_int_equal(am_rig_load(path, &rig, &err), AM_OK);
    am_skeleton skel;
    am_test_load_viewer_skeleton(&skel);
    am_skin_options opts;
    am_skin_options_init(&opts);
    am_test_tmpdir(dir, sizeof dir);
    am_skin_summary *sum = calloc(1, sizeof *sum);
    /* never reduced (--max-tris none): refused before the build, naming the budget that fits */
    opts.region_max_tris = 50;
    opts.max_tris = AM_SKIN_MAX_TRIS_NONE;
    assert_int_equal(am_skin_export(&rig, &skel, &opts, dir, sum, &err), AM_ERR_INVALID);
    assert_non_null(strstr(err.msg, "region limit 50"));
    assert_non_null(strstr(err.msg, "the max_tris option "));
    assert_int_equal(sum->joint_count, 0); /* nothing was built */
    assert_int_equal(count_files(dir), 0);
    /* the default budget reduces it to what fits, weights kept */
    opts.max_tris = AM_SKIN_MAX_TRIS_AUTO;
    assert_int_equal(am_skin_export(&rig, &skel, &opts, dir, sum, &err), AM_OK);
    assert_false(sum->over_region_limit);
    assert_le(sum->est_tris_max, 50);
    assert_gt(sum->tris_removed, 0);
    assert_int_equal(sum->tris_in, 180);
    assert_int_equal(sum->lod_triangles[AM_LOD_HIGH] + sum->tris_removed, 180);
    /* the estimate follows 8.2 from the high LOD's compressed size */
    assert_near(sum->est_tris[AM_LOD_HIGH], ((double)sum->lod_bytes[AM_LOD_HIGH] - 384.0) / 16.0, 1e-9);
    assert_int_equal(count_files(dir), 3);
    /* a limit the weights cannot be reduced to: refused with the limit that would do, nothing new written */
    char dir2[256];
    am_test_tmpdir(dir2, sizeof dir2);
    opts.region_max_tris = 10;
    assert_int_equal(am_skin_export(&rig, &skel, &opts, dir2, sum, &err), AM_ERR_INVALID);
    assert_non_null(strstr(err.msg, "region limit 10"));
    assert_non_null(strstr(err.msg, "the region_max_tris option "));
    assert_int_equal(count_files(dir2), 0);
    /* with the default limit nothing is removed and all three files are written */
    opts.region_max_tris = AM_SKIN_DEFAULT_REGION_MAX_TRIS;
    assert_int_equal(am_skin_export(&rig, &skel, &opts, dir2, sum, &err), AM_OK);
    assert_int_equal(sum->tris_removed, 0);
    assert_int_equal(count_files(dir2), 3);
    assert_true(sum->meshdata_written);
    am_skin_summary_free(sum);
    free(sum);
    am_skeleton_free(&skel);
    am_rig_free(&rig);
    am_test_rmtree(dir);
    am_test_rmtree(dir2);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_111_joints_are_refused),
        cmocka_unit_test(test_70000_vertices_split_into_two_faces_keeping_weights),
        cmocka_unit_test(test_six_influences_keep_the_four_largest_renormalised),
        cmocka_unit_test(test_huge_weights_are_normalised_without_overflow),
        cmocka_unit_test(test_weight_row_summing_to_zero_is_refused_by_vertex),
        cmocka_unit_test(test_joint_index_out_of_range_is_refused),
        cmocka_unit_test(test_absurd_coordinates_refused_oversize_warned),
        cmocka_unit_test(test_long_names_are_kept_whole),
        cmocka_unit_test(test_region_triangle_limit_reduces_or_refuses_before_writing),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
