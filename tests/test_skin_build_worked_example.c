/* docs/reference/mesh-asset.md#worked-example (one triangle, two joints) reproduced through the skin builder: the
 * weight bytes, positions, normals, UVs and the skin block values the worked example gives, checked
 * in the builder's asset, in the encoded bytes (inflated here with zlib directly) and
 * after the project's decoder. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "mesh/mesh_asset.h"
#include "skin/rig.h"
#include "skin/skin_build.h"
#include "support/test_support.h"

static am_rig *worked_rig(void)
{
    am_rig *r = calloc(1, sizeof *r);
    r->name = strdup("worked");
    r->joint_count = 2;
    r->joints = calloc(2, sizeof *r->joints);
    r->joints[0].name = strdup("mPelvis");
    r->joints[0].world = am_v3(0, 0, 1.067);
    r->joints[1].name = strdup("mTorso");
    r->joints[1].world = am_v3(0, 0, 1.167); /* 0.100 above mSpine2 (stock 0.084) */
    r->vertex_count = 3;
    static const float pos[9] = {0.00f, 0.10f, 1.00f, 0.10f, -0.10f, 1.10f, -0.10f, 0.00f, 1.30f};
    static const float uv[6] = {0, 0, 1, 0, 0, 1};
    r->positions = malloc(sizeof pos);
    memcpy(r->positions, pos, sizeof pos);
    r->uvs = malloc(sizeof uv);
    memcpy(r->uvs, uv, sizeof uv);
    /* the face normal of (v1 - v0) x (v2 - v0) = (-0.05, -0.04, -0.03) */
    r->normals = malloc(9 * sizeof(float));
    double len = sqrt(0.05 * 0.05 + 0.04 * 0.04 + 0.03 * 0.03);
    for (int v = 0; v < 3; v++) {
        r->normals[3 * v] = (float)(-0.05 / len);
        r->normals[3 * v + 1] = (float)(-0.04 / len);
        r->normals[3 * v + 2] = (float)(-0.03 / len);
    }
    r->triangle_count = 1;
    r->triangles = malloc(3 * sizeof(uint32_t));
    r->triangles[0] = 0, r->triangles[1] = 1, r->triangles[2] = 2;
    r->weight_start = malloc(4 * sizeof(size_t));
    r->influences = malloc(5 * sizeof(am_rig_influence));
    size_t s[4] = {0, 2, 3, 5};
    memcpy(r->weight_start, s, sizeof s);
    am_rig_influence inf[5] = {{0, 0.6}, {1, 0.4}, {1, 1.0}, {1, 0.75}, {0, 0.25}};
    memcpy(r->influences, inf, sizeof inf);
    return r;
}

static void free_rig(am_rig *r)
{
    am_rig_free(r);
    free(r);
}

typedef struct fixture {
    am_skeleton skel;
    am_rig *rig;
    am_skin_result res;
} fixture;

static int setup(void **state)
{
    fixture *f = calloc(1, sizeof *f);
    am_test_load_viewer_skeleton(&f->skel);
    f->rig = worked_rig();
    am_error err;
    am_error_clear(&err);
    am_skin_options opts;
    am_skin_options_init(&opts);
    am_status st = am_skin_build(f->rig, &f->skel, &opts, &f->res, &err);
    if (st) {
        char buf[512];
        fail_msg("build: %s", am_error_format(&err, buf, sizeof buf));
    }
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    fixture *f = *state;
    am_skin_result_free(&f->res);
    free_rig(f->rig);
    am_skeleton_free(&f->skel);
    free(f);
    return 0;
}

static void test_first_vertex_weight_codes_are_9999_and_6666(void **state)
{
    fixture *f = *state;
    const am_mesh_face *face = &f->res.asset.lods[AM_LOD_HIGH].faces[0];
    assert_int_equal(face->weight_count[0], 2);
    assert_int_equal(face->weight_joint[0], 0);
    assert_int_equal(face->weight_code[0], 0x9999);
    assert_int_equal(face->weight_joint[1], 1);
    assert_int_equal(face->weight_code[1], 0x6666);
    /* v1: mTorso alone, 65535 */
    assert_int_equal(face->weight_count[1], 1);
    assert_int_equal(face->weight_joint[4], 1);
    assert_int_equal(face->weight_code[4], 0xFFFF);
    /* v2: 0.75/0.25 truncate to 0xBFFF + 0x3FFF = 65534 (the worked example's bytes); our exact
     * quantisation gives the missing unit to the largest: 0xC000 + 0x3FFF = 65535. */
    assert_int_equal(face->weight_count[2], 2);
    assert_int_equal(face->weight_joint[8], 1);
    assert_int_equal(face->weight_code[8], 0xC000);
    assert_int_equal(face->weight_joint[9], 0);
    assert_int_equal(face->weight_code[9], 0x3FFF);
}

static void test_positions_normals_uvs_match_spec_bytes(void **state)
{
    fixture *f = *state;
    const am_mesh_face *face = &f->res.asset.lods[AM_LOD_HIGH].faces[0];
    static const uint16_t pos[9] = {0x7fff, 0xffff, 0x0000, 0xffff, 0x0000, 0x5555, 0x0000, 0x7fff, 0xffff};
    for (int i = 0; i < 9; i++)
        assert_int_equal(face->position_codes[i], pos[i]);
    static const uint16_t nrm[3] = {0x2e39, 0x3e93, 0x3666}; /* "39 2e 93 3e 66 36" */
    for (int v = 0; v < 3; v++)
        for (int k = 0; k < 3; k++)
            assert_int_equal(face->normal_codes[3 * v + k], nrm[k]);
    static const uint16_t uv[6] = {0, 0, 0xffff, 0, 0, 0xffff};
    for (int i = 0; i < 6; i++)
        assert_int_equal(face->uv_codes[i], uv[i]);
    assert_near(face->normalized_scale.x, 0.200000003, 1e-9);
    assert_near(face->normalized_scale.z, 0.299999952, 1e-9);
    assert_near(face->pos_min.x, -0.5, 1e-6);
    assert_near(face->pos_max.z, 0.5, 1e-6);
}

static void assert_translation(const am_mat4 *m, double x, double y, double z)
{
    assert_near(m->m[12], x, 1e-9);
    assert_near(m->m[13], y, 1e-9);
    assert_near(m->m[14], z, 1e-9);
    for (int r = 0; r < 3; r++)
        for (int c = 0; c < 4; c++)
            assert_near(m->m[4 * r + c], r == c ? 1.0 : 0.0, 1e-12);
}

static void test_skin_block_values_match_spec(void **state)
{
    fixture *f = *state;
    const am_mesh_skin *s = &f->res.asset.skin;
    /* the closed set adds mSpine1 and mSpine2 after the rig's two joints */
    assert_int_equal(s->joint_count, 4);
    assert_string_equal(s->joint_names[0], "mPelvis");
    assert_string_equal(s->joint_names[1], "mTorso");
    assert_string_equal(s->joint_names[2], "mSpine1");
    assert_string_equal(s->joint_names[3], "mSpine2");
    assert_translation(&s->inverse_bind[0], 0, 0, -1.067);
    assert_translation(&s->inverse_bind[1], 0, 0, -1.167);
    assert_translation(&s->alt_inverse_bind[0], 0, 0, 1.067);
    assert_translation(&s->alt_inverse_bind[1], 0, 0, 0.100);
    /* appended ancestors at their defaults */
    assert_translation(&s->alt_inverse_bind[2], 0, 0, 0.084);
    assert_translation(&s->alt_inverse_bind[3], 0, 0, -0.084);
    assert_translation(&s->inverse_bind[2], 0, 0, -1.151);
    assert_translation(&s->inverse_bind[3], 0, 0, -1.067);
    static const double bsm[16] = {0.2000000030, 0, 0, 0, 0, 0.2000000030, 0, 0,
                                   0, 0, 0.2999999523, 0, 0, 0, 1.1499999762, 1};
    for (int i = 0; i < 16; i++)
        assert_near(s->bind_shape.m[i], bsm[i], 1e-9);
    assert_true(s->has_pelvis_offset);
    assert_near(s->pelvis_offset, 0.0, 0);
    assert_false(s->lock_scale_if_joint_position);
    assert_int_equal(s->alt_count, 4);
    /* summary: only mTorso moves (16 mm from its default 0.084) */
    assert_int_equal(f->res.summary.override_count, 1);
    assert_true(f->res.summary.joints[1].overridden);
    assert_false(f->res.summary.joints[0].overridden);
}

/* Find "Weights" in the inflated high_lod LLSD and return its binary payload. */
static const uint8_t *find_weights(const uint8_t *llsd, size_t n, size_t *len)
{
    static const char key[] = "k\0\0\0\x07Weights";
    for (size_t i = 0; i + sizeof key - 1 + 5 <= n; i++)
        if (memcmp(llsd + i, key, sizeof key - 1) == 0) {
            const uint8_t *p = llsd + i + sizeof key - 1;
            assert_int_equal(p[0], 'b');
            *len = ((size_t)p[1] << 24) | ((size_t)p[2] << 16) | ((size_t)p[3] << 8) | p[4];
            return p + 5;
        }
    return NULL;
}

static void test_encoded_weight_bytes_are_00_9999_01_6666_ff(void **state)
{
    fixture *f = *state;
    am_buf out = {0};
    am_error err;
    am_error_clear(&err);
    assert_int_equal(am_skin_encode(&f->res, &out, &err), AM_OK);
    am_mesh_asset back;
    assert_int_equal(am_mesh_asset_decode(out.data, out.size, &back, &err), AM_OK);
    const am_mesh_block_ref *hb = &back.blocks[AM_BLOCK_HIGH];
    assert_true(hb->present);
    const uint8_t *z = out.data + back.header_size + hb->offset;
    assert_int_equal(z[0], 0x78); /* a zlib stream */
    uLongf cap = 1 << 16;
    uint8_t *llsd = malloc(cap);
    assert_int_equal(uncompress(llsd, &cap, z, (uLong)hb->size), Z_OK);
    size_t wl = 0;
    const uint8_t *w = find_weights(llsd, cap, &wl);
    assert_non_null(w);
    static const uint8_t expect[] = {0x00, 0x99, 0x99, 0x01, 0x66, 0x66, 0xFF, 0x01, 0xFF, 0xFF, 0xFF,
                                     0x01, 0x00, 0xC0, 0x00, 0xFF, 0x3F, 0xFF};
    assert_int_equal(wl, sizeof expect);
    assert_memory_equal(w, expect, sizeof expect);
    /* the decoder sees the same skin */
    assert_true(back.has_skin);
    assert_int_equal(back.skin.joint_count, 4);
    assert_near(back.skin.alt_inverse_bind[1].m[14], 0.100, 1e-9);
    assert_near(back.skin.inverse_bind[1].m[14], -1.167, 1e-9);
    /* all four LODs present (the triangle cannot be simplified further) */
    for (int b = AM_BLOCK_LOWEST; b <= AM_BLOCK_HIGH; b++)
        assert_true(back.blocks[b].present);
    assert_true(f->res.summary.cost_known);
    /* tiny blocks: every estimate hits the floor max(size - 384, 16) / 16 = 1 */
    assert_near(f->res.summary.est_tris_max, 1.0, 0);
    assert_near(f->res.summary.streaming_cost, 15.0 + 1.5 * 1.0 / 1000.0, 1e-12);
    free(llsd);
    am_mesh_asset_free(&back);
    am_buf_free(&out);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_first_vertex_weight_codes_are_9999_and_6666, setup, teardown),
        cmocka_unit_test_setup_teardown(test_positions_normals_uvs_match_spec_bytes, setup, teardown),
        cmocka_unit_test_setup_teardown(test_skin_block_values_match_spec, setup, teardown),
        cmocka_unit_test_setup_teardown(test_encoded_weight_bytes_are_00_9999_01_6666_ff, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
