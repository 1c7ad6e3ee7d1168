/* Mesh asset codec against real data (the Hippolyzer .slm, produced by the viewer's
 * uploader) and against the worked example (docs/reference/mesh-asset.md#worked-example). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "mesh/llsd.h"
#include "mesh/mesh_asset.h"
#include "mesh/mesh_report.h"
#include "mesh/zblock.h"
#include "support/mesh_fixtures.h"
#include "support/test_support.h"

static void load_slm(uint8_t **data, size_t *size)
{
    char path[4096];
    am_error err;
    am_error_clear(&err);
    am_test_shared_path(path, sizeof path, "data/mesh/hippolyzer-testslm.slm");
    assert_int_equal(am_read_file(path, data, size, &err), AM_OK);
}

static void decode_ok(const uint8_t *d, size_t n, am_mesh_asset *a)
{
    am_error err;
    am_error_clear(&err);
    am_status s = am_mesh_asset_decode(d, n, a, &err);
    if (s) {
        char buf[512];
        fail_msg("decode failed: %s", am_error_format(&err, buf, sizeof buf));
    }
}

/* ---------- the real asset ---------- */

static void test_real_slm_decodes_as_documented(void **state)
{
    (void)state;
    uint8_t *d;
    size_t n;
    load_slm(&d, &n);
    assert_int_equal(n, 1502);
    am_mesh_asset a;
    decode_ok(d, n, &a);
    /* header and block table (independently read with a Python LLSD reader) */
    assert_int_equal(a.header_size, 355);
    assert_true(a.blocks[AM_BLOCK_LOWEST].present);
    assert_int_equal(a.blocks[AM_BLOCK_LOWEST].offset, 211);
    assert_int_equal(a.blocks[AM_BLOCK_LOWEST].size, 203);
    assert_int_equal(a.blocks[AM_BLOCK_HIGH].offset, 820);
    assert_int_equal(a.blocks[AM_BLOCK_HIGH].size, 327);
    assert_int_equal(a.blocks[AM_BLOCK_SKIN].offset, 0);
    assert_int_equal(a.blocks[AM_BLOCK_SKIN].size, 139);
    assert_int_equal(a.blocks[AM_BLOCK_PHYSICS_CONVEX].offset, 139);
    assert_false(a.blocks[AM_BLOCK_PHYSICS_MESH].present);
    assert_int_equal(a.material_count, 1);
    assert_string_equal(a.material_list[0], "TestMaterial-material");
    /* 4 LODs, one face each: a cube (24 vertices, 12 triangles) at high, 6/2 below */
    for (int l = 0; l < AM_LOD_COUNT; l++)
        assert_int_equal(a.lods[l].face_count, 1);
    const am_mesh_face *hi = &a.lods[AM_LOD_HIGH].faces[0];
    assert_int_equal(hi->vertex_count, 24);
    assert_int_equal(hi->index_count, 36);
    assert_int_equal(a.lods[AM_LOD_LOWEST].faces[0].vertex_count, 6);
    assert_int_equal(a.lods[AM_LOD_LOWEST].faces[0].index_count, 6);
    /* domain [-0.5, 0.5]: codes 0 and 65535 decode to the box corners exactly */
    assert_true(hi->pos_min.x == -0.5 && hi->pos_max.z == 0.5);
    assert_int_equal(hi->position_codes[0], 0);
    assert_true(hi->positions[0] == -0.5f);
    assert_int_equal(hi->position_codes[2], 0xffff);
    assert_true(hi->positions[2] == 0.5f);
    /* no NormalizedScale key in this file: default (1, 1, 1) */
    assert_true(hi->normalized_scale.x == 1.0);
    /* TexCoord0Domain {Min [0.125, 0], Max [0.875, 1]}; first code 0xaaaa */
    assert_true(hi->uv_min[0] == 0.125 && hi->uv_max[0] == 0.875);
    assert_int_equal(hi->uv_codes[0], 0xaaaa);
    assert_near(hi->uvs[0], 0.125 + 0.75 * 43690.0 / 65535.0, 1e-6);
    /* normals: code 0x7fff -> 32767/65535*2-1 = -1.5e-5 */
    assert_int_equal(hi->normal_codes[1], 0x7fff);
    assert_near(hi->normals[1], 32767.0 / 65535.0 * 2 - 1, 1e-7);
    /* weights: every vertex "00 ff ff ff" -> mPelvis, 65535 -> clamped to 0.999 */
    assert_true(hi->has_weights);
    for (size_t v = 0; v < hi->vertex_count; v++) {
        assert_int_equal(hi->weight_count[v], 1);
        assert_int_equal(hi->weight_joint[4 * v], 0);
        assert_int_equal(hi->weight_code[4 * v], 0xffff);
        assert_true(hi->weight_value[4 * v] == 0.999f);
        assert_true(hi->weight_value[4 * v + 1] == 0.0f);
    }
    assert_int_equal(hi->no_influence_count, 0);
    /* skin */
    assert_true(a.has_skin);
    assert_int_equal(a.skin.joint_count, 1);
    assert_string_equal(a.skin.joint_names[0], "mPelvis");
    assert_near(a.skin.inverse_bind[0].m[14], -1.067, 1e-7);
    assert_true(a.skin.inverse_bind[0].m[0] == 1.0 && a.skin.inverse_bind[0].m[15] == 1.0);
    assert_null(a.skin.alt_inverse_bind);
    assert_false(a.skin.has_pelvis_offset);
    assert_near(a.skin.bind_shape.m[0], 0.410601943731308, 1e-15);
    assert_near(a.skin.bind_shape.m[12], 0.3379494249820709, 1e-15);
    assert_near(a.skin.bind_shape.m[14], 0.9631361961364746, 1e-15);
    /* physics_convex kept verbatim (inflated LLSD: 129 bytes, a map) */
    assert_int_equal(a.physics_convex_size, 129);
    assert_int_equal(a.physics_convex_raw[0], '{');
    assert_int_equal(a.warning_count, 0);
    am_mesh_asset_free(&a);
    free(d);
}

static void assert_faces_equal(const am_mesh_face *x, const am_mesh_face *y)
{
    assert_int_equal(x->no_geometry, y->no_geometry);
    assert_int_equal(x->vertex_count, y->vertex_count);
    assert_int_equal(x->index_count, y->index_count);
    size_t n = x->vertex_count;
    if (n) {
        assert_memory_equal(x->positions, y->positions, 3 * n * sizeof(float));
        assert_memory_equal(x->position_codes, y->position_codes, 3 * n * 2);
    }
    assert_true((x->normals == NULL) == (y->normals == NULL));
    if (x->normals && n)
        assert_memory_equal(x->normals, y->normals, 3 * n * sizeof(float));
    assert_true((x->uvs == NULL) == (y->uvs == NULL));
    if (x->uvs && n)
        assert_memory_equal(x->uvs, y->uvs, 2 * n * sizeof(float));
    if (x->index_count)
        assert_memory_equal(x->indices, y->indices, x->index_count * 2);
    assert_true(x->pos_min.x == y->pos_min.x && x->pos_max.z == y->pos_max.z);
    assert_true(x->uv_min[1] == y->uv_min[1] && x->uv_max[0] == y->uv_max[0]);
    assert_int_equal(x->has_weights, y->has_weights);
    if (x->has_weights && n) {
        assert_memory_equal(x->weight_count, y->weight_count, n);
        assert_memory_equal(x->weight_joint, y->weight_joint, 4 * n);
        assert_memory_equal(x->weight_code, y->weight_code, 4 * n * 2);
        assert_memory_equal(x->weight_value, y->weight_value, 4 * n * sizeof(float));
    }
}

static void assert_assets_equal(const am_mesh_asset *a, const am_mesh_asset *b)
{
    for (int l = 0; l < AM_LOD_COUNT; l++) {
        assert_int_equal(a->lods[l].face_count, b->lods[l].face_count);
        for (size_t f = 0; f < a->lods[l].face_count; f++)
            assert_faces_equal(&a->lods[l].faces[f], &b->lods[l].faces[f]);
    }
    assert_int_equal(a->has_skin, b->has_skin);
    assert_int_equal(a->skin.joint_count, b->skin.joint_count);
    for (size_t j = 0; j < a->skin.joint_count; j++) {
        assert_string_equal(a->skin.joint_names[j], b->skin.joint_names[j]);
        assert_memory_equal(&a->skin.inverse_bind[j], &b->skin.inverse_bind[j], sizeof(am_mat4));
    }
    assert_memory_equal(&a->skin.bind_shape, &b->skin.bind_shape, sizeof(am_mat4));
    assert_int_equal(a->skin.alt_count, b->skin.alt_count);
    if (a->skin.alt_count)
        assert_memory_equal(a->skin.alt_inverse_bind, b->skin.alt_inverse_bind, a->skin.alt_count * sizeof(am_mat4));
    assert_int_equal(a->skin.has_pelvis_offset, b->skin.has_pelvis_offset);
    assert_true(a->skin.pelvis_offset == b->skin.pelvis_offset);
    assert_int_equal(a->skin.lock_scale_if_joint_position, b->skin.lock_scale_if_joint_position);
    assert_int_equal(a->physics_convex_size, b->physics_convex_size);
    if (a->physics_convex_size)
        assert_memory_equal(a->physics_convex_raw, b->physics_convex_raw, a->physics_convex_size);
    assert_int_equal(a->material_count, b->material_count);
}

/* The header alone (what the viewer's cost estimate reads) gives the blocks of the whole
 * decode, of the real upload, without inflating any. */
static void test_header_alone_gives_the_blocks(void **state)
{
    (void)state;
    char path[4096];
    am_test_shared_path(path, sizeof path, "data/mesh/hippolyzer-testslm.slm");
    size_t size;
    uint8_t *data = am_test_slurp(path, &size);
    assert_non_null(data);
    am_mesh_asset whole, head;
    am_error err;
    am_error_clear(&err);
    assert_int_equal(am_mesh_asset_decode(data, size, &whole, &err), AM_OK);
    assert_int_equal(am_mesh_asset_decode_header(data, size, &head, &err), AM_OK);
    for (int b = 0; b < AM_BLOCK_COUNT; b++) {
        assert_int_equal(head.blocks[b].present, whole.blocks[b].present);
        assert_int_equal(head.blocks[b].offset, whole.blocks[b].offset);
        assert_int_equal(head.blocks[b].size, whole.blocks[b].size);
    }
    assert_int_equal(head.blocks[AM_BLOCK_LOWEST].offset, 211); /* the data README's figure */
    assert_int_equal(head.lods[AM_LOD_HIGH].face_count, 0);    /* nothing inflated */
    assert_false(head.has_skin);
    am_mesh_asset_free(&head);
    assert_int_not_equal(am_mesh_asset_decode_header(data, 5, &head, &err), AM_OK);
    am_mesh_asset_free(&whole);
    free(data);
}

static void test_real_slm_reencodes_to_identical_values(void **state)
{
    (void)state;
    uint8_t *d;
    size_t n;
    load_slm(&d, &n);
    am_mesh_asset a, b;
    decode_ok(d, n, &a);
    am_buf out = {0};
    am_error err;
    am_error_clear(&err);
    assert_int_equal(am_mesh_asset_encode(&a, &out, &err), AM_OK);
    decode_ok(out.data, out.size, &b);
    assert_assets_equal(&a, &b);
    /* the writer's block order: skin, physics_convex, lowest, low, medium, high */
    assert_int_equal(b.blocks[AM_BLOCK_SKIN].offset, 0);
    assert_int_equal(b.blocks[AM_BLOCK_PHYSICS_CONVEX].offset, b.blocks[AM_BLOCK_SKIN].size);
    assert_int_equal(b.blocks[AM_BLOCK_LOWEST].offset,
                     b.blocks[AM_BLOCK_PHYSICS_CONVEX].offset + b.blocks[AM_BLOCK_PHYSICS_CONVEX].size);
    for (int l = AM_BLOCK_LOW; l <= AM_BLOCK_HIGH; l++)
        assert_int_equal(b.blocks[l].offset, b.blocks[l - 1].offset + b.blocks[l - 1].size);
    assert_int_equal(b.header_size + (size_t)b.blocks[AM_BLOCK_HIGH].offset + (size_t)b.blocks[AM_BLOCK_HIGH].size,
                     out.size);
    /* every block is a zlib stream at level 9: 78 DA */
    for (int k = 0; k < AM_BLOCK_COUNT; k++)
        if (b.blocks[k].present) {
            size_t at = b.header_size + (size_t)b.blocks[k].offset;
            assert_int_equal(out.data[at], 0x78);
            assert_int_equal(out.data[at + 1], 0xda);
        }
    /* the third generation is byte-identical to the second */
    am_buf out2 = {0};
    assert_int_equal(am_mesh_asset_encode(&b, &out2, &err), AM_OK);
    assert_int_equal(out2.size, out.size);
    assert_memory_equal(out2.data, out.data, out.size);
    am_buf_free(&out2);
    am_buf_free(&out);
    am_mesh_asset_free(&a);
    am_mesh_asset_free(&b);
    free(d);
}

/* Stored blocks (level 0, the report's in-memory asset) decode to the same asset as level
 * 9: zlib streams whose header says "fastest" (78 01), bigger than at level 9; a level
 * outside 0..9 is refused. */
static void test_stored_blocks_decode_to_the_same_asset(void **state)
{
    (void)state;
    uint8_t *d;
    size_t n;
    load_slm(&d, &n);
    am_mesh_asset a, b;
    decode_ok(d, n, &a);
    am_buf nine = {0}, stored = {0}, bad = {0};
    am_error err;
    am_error_clear(&err);
    assert_int_equal(am_mesh_asset_encode(&a, &nine, &err), AM_OK);
    assert_int_equal(am_mesh_asset_encode_level(&a, 0, &stored, &err), AM_OK);
    assert_true(stored.size > nine.size);
    decode_ok(stored.data, stored.size, &b);
    assert_assets_equal(&a, &b);
    for (int k = 0; k < AM_BLOCK_COUNT; k++)
        if (b.blocks[k].present) {
            size_t at = b.header_size + (size_t)b.blocks[k].offset;
            assert_int_equal(stored.data[at], 0x78);
            assert_int_equal(stored.data[at + 1], 0x01);
        }
    assert_int_equal(am_mesh_asset_encode_level(&a, 10, &bad, &err), AM_ERR_USAGE);
    am_buf_free(&bad);
    am_buf_free(&stored);
    am_buf_free(&nine);
    am_mesh_asset_free(&a);
    am_mesh_asset_free(&b);
    free(d);
}

/* ---------- the worked example (docs/reference/mesh-asset.md#worked-example) ---------- */

/* Independent F32 computations of 9.2: the normalised positions, the normal (geometric
 * normal of the source triangle scaled by the box size, renormalised). */
static void build_worked_example(am_mesh_asset *a)
{
    memset(a, 0, sizeof *a);
    const float src[9] = {0.00f, 0.10f, 1.00f, 0.10f, -0.10f, 1.10f, -0.10f, 0.00f, 1.30f};
    float mn[3], mx[3], trans[3], size[3];
    for (int k = 0; k < 3; k++) {
        mn[k] = fminf(fminf(src[k], src[3 + k]), src[6 + k]);
        mx[k] = fmaxf(fmaxf(src[k], src[3 + k]), src[6 + k]);
        trans[k] = -(mn[k] + mx[k]) * 0.5f;
        size[k] = mx[k] - mn[k];
    }
    am_mesh_face *f = calloc(1, sizeof *f);
    a->lods[AM_LOD_HIGH].faces = f;
    a->lods[AM_LOD_HIGH].face_count = 1;
    f->vertex_count = 3;
    f->positions = malloc(9 * sizeof(float));
    for (int i = 0; i < 9; i++) {
        float scale = 1.0f / size[i % 3];
        f->positions[i] = (src[i] + trans[i % 3]) * scale;
    }
    double e1[3], e2[3];
    for (int k = 0; k < 3; k++) {
        e1[k] = src[3 + k] - src[k];
        e2[k] = src[6 + k] - src[k];
    }
    double nrm[3] = {e1[1] * e2[2] - e1[2] * e2[1], e1[2] * e2[0] - e1[0] * e2[2], e1[0] * e2[1] - e1[1] * e2[0]};
    double len = 0;
    for (int k = 0; k < 3; k++) {
        nrm[k] *= size[k];
        len += nrm[k] * nrm[k];
    }
    f->normals = malloc(9 * sizeof(float));
    for (int i = 0; i < 9; i++)
        f->normals[i] = (float)(nrm[i % 3] / sqrt(len));
    const float uv[6] = {0, 0, 1, 0, 0, 1};
    f->uvs = malloc(sizeof uv);
    memcpy(f->uvs, uv, sizeof uv);
    f->normalized_scale = am_v3(size[0], size[1], size[2]);
    f->index_count = 3;
    f->indices = malloc(3 * sizeof(uint16_t));
    f->indices[0] = 0, f->indices[1] = 1, f->indices[2] = 2;
    f->has_weights = true;
    f->weight_count = calloc(3, 1);
    f->weight_joint = calloc(12, 1);
    f->weight_code = calloc(12, sizeof(uint16_t));
    /* (U16)(w * 65535) in F32, decreasing weight order */
    f->weight_count[0] = 2;
    f->weight_joint[0] = 0, f->weight_code[0] = (uint16_t)(0.6f * 65535.0f);
    f->weight_joint[1] = 1, f->weight_code[1] = (uint16_t)(0.4f * 65535.0f);
    f->weight_count[1] = 1;
    f->weight_joint[4] = 1, f->weight_code[4] = (uint16_t)(1.0f * 65535.0f);
    f->weight_count[2] = 2;
    f->weight_joint[8] = 1, f->weight_code[8] = (uint16_t)(0.75f * 65535.0f);
    f->weight_joint[9] = 0, f->weight_code[9] = (uint16_t)(0.25f * 65535.0f);

    a->has_skin = true;
    am_mesh_skin *s = &a->skin;
    am_test_worked_example_skin(s);
    s->bind_shape.m[0] = (double)size[0];
    s->bind_shape.m[5] = (double)size[1];
    s->bind_shape.m[10] = (double)size[2];
    s->bind_shape.m[14] = (double)-trans[2];
    s->has_pelvis_offset = true;
    s->pelvis_offset = 0.0;
}

/* Find a block in an encoded file and inflate it. */
static void inflate_block(const am_buf *file, const char *name, uint8_t **raw, size_t *raw_size, size_t *packed)
{
    am_llsd hdr;
    size_t used;
    am_error err;
    am_error_clear(&err);
    assert_int_equal(am_llsd_parse(file->data, file->size, NULL, &hdr, &used, &err), AM_OK);
    const am_llsd *b = am_llsd_get(&hdr, name);
    assert_non_null(b);
    size_t off = (size_t)am_llsd_get(b, "offset")->v.integer, sz = (size_t)am_llsd_get(b, "size")->v.integer;
    if (packed)
        *packed = sz;
    assert_int_equal(am_zblock_inflate(file->data + used + off, sz, 1 << 20, raw, raw_size, &err), AM_OK);
    am_llsd_free(&hdr);
}

static const uint8_t spec_lod_start[0x70] = {
    0x5b, 0x00, 0x00, 0x00, 0x01, 0x7b, 0x00, 0x00, 0x00, 0x08, 0x6b, 0x00, 0x00, 0x00, 0x06, 0x4e,
    0x6f, 0x72, 0x6d, 0x61, 0x6c, 0x62, 0x00, 0x00, 0x00, 0x12, 0x39, 0x2e, 0x93, 0x3e, 0x66, 0x36,
    0x39, 0x2e, 0x93, 0x3e, 0x66, 0x36, 0x39, 0x2e, 0x93, 0x3e, 0x66, 0x36, 0x6b, 0x00, 0x00, 0x00,
    0x0f, 0x4e, 0x6f, 0x72, 0x6d, 0x61, 0x6c, 0x69, 0x7a, 0x65, 0x64, 0x53, 0x63, 0x61, 0x6c, 0x65,
    0x5b, 0x00, 0x00, 0x00, 0x03, 0x72, 0x3f, 0xc9, 0x99, 0x99, 0xa0, 0x00, 0x00, 0x00, 0x72, 0x3f,
    0xc9, 0x99, 0x99, 0xa0, 0x00, 0x00, 0x00, 0x72, 0x3f, 0xd3, 0x33, 0x33, 0x00, 0x00, 0x00, 0x00,
    0x5d, 0x6b, 0x00, 0x00, 0x00, 0x08, 0x50, 0x6f, 0x73, 0x69, 0x74, 0x69, 0x6f, 0x6e, 0x62, 0x00};

/* Find the payload of binary `key` inside an inflated LLSD block. */
static const uint8_t *find_binary(const uint8_t *raw, size_t n, const char *key, size_t *len)
{
    size_t kl = strlen(key);
    for (size_t i = 0; i + 5 + kl + 5 <= n; i++) {
        if (raw[i] == 'k' && raw[i + 4] == kl && memcmp(raw + i + 5, key, kl) == 0 && raw[i + 5 + kl] == 'b') {
            const uint8_t *p = raw + i + 5 + kl + 1;
            *len = ((size_t)p[0] << 24) | ((size_t)p[1] << 16) | ((size_t)p[2] << 8) | p[3];
            return p + 4;
        }
    }
    fail_msg("binary key %s not found", key);
    return NULL;
}

static void test_worked_example_bytes_match_spec(void **state)
{
    (void)state;
    am_mesh_asset a;
    build_worked_example(&a);
    am_buf file = {0};
    am_error err;
    am_error_clear(&err);
    assert_int_equal(am_mesh_asset_encode(&a, &file, &err), AM_OK);

    uint8_t *lod;
    size_t lod_n, lod_packed;
    inflate_block(&file, "high_lod", &lod, &lod_n, &lod_packed);
    assert_int_equal(lod_n, 426); /* 9.3: 426 bytes uncompressed */
    assert_memory_equal(lod, spec_lod_start, sizeof spec_lod_start);
    size_t len;
    const uint8_t *w = find_binary(lod, lod_n, "Weights", &len);
    const uint8_t weights[] = {0x00, 0x99, 0x99, 0x01, 0x66, 0x66, 0xff, 0x01, 0xff, 0xff, 0xff,
                               0x01, 0xff, 0xbf, 0x00, 0xff, 0x3f, 0xff};
    assert_int_equal(len, sizeof weights);
    assert_memory_equal(w, weights, sizeof weights); /* 9.4: first vertex 00 99 99 01 66 66 FF */
    const uint8_t *p = find_binary(lod, lod_n, "Position", &len);
    const uint8_t pos[] = {0xff, 0x7f, 0xff, 0xff, 0x00, 0x00, 0xff, 0xff, 0x00,
                           0x00, 0x55, 0x55, 0x00, 0x00, 0xff, 0x7f, 0xff, 0xff};
    assert_int_equal(len, sizeof pos);
    assert_memory_equal(p, pos, sizeof pos);
    const uint8_t *t = find_binary(lod, lod_n, "TexCoord0", &len);
    const uint8_t tc[] = {0, 0, 0, 0, 0xff, 0xff, 0, 0, 0, 0, 0xff, 0xff};
    assert_memory_equal(t, tc, sizeof tc);
    const uint8_t *tri = find_binary(lod, lod_n, "TriangleList", &len);
    const uint8_t tl[] = {0, 0, 1, 0, 2, 0};
    assert_memory_equal(tri, tl, sizeof tl);
    free(lod);

    uint8_t *skin;
    size_t skin_n, skin_packed;
    inflate_block(&file, "skin", &skin, &skin_n, &skin_packed);
    assert_int_equal(skin_n, 914); /* 9.5: 914 bytes uncompressed */
    const uint8_t skin_start[] = {0x7b, 0, 0, 0, 5, 0x6b, 0, 0, 0, 0x17};
    assert_memory_equal(skin, skin_start, sizeof skin_start);
    assert_memory_equal(skin + 10, "alt_inverse_bind_matrix", 23);
    const uint8_t arr[] = {0x5b, 0, 0, 0, 2, 0x5b, 0, 0, 0, 0x10, 0x72, 0x3f, 0xf0, 0};
    assert_memory_equal(skin + 33, arr, sizeof arr);
    free(skin);

    /* The worked example's header (docs/reference/mesh-asset.md#worked-example):
     * {high_lod: {offset: skin size, size}, skin: {offset 0, size}}: with its zlib sizes
     * (181, 240) it is 100 bytes */
    am_llsd hdr;
    size_t used;
    assert_int_equal(am_llsd_parse(file.data, file.size, NULL, &hdr, &used, &err), AM_OK);
    assert_int_equal(used, 100);
    assert_int_equal(am_llsd_get(am_llsd_get(&hdr, "skin"), "offset")->v.integer, 0);
    assert_int_equal(am_llsd_get(am_llsd_get(&hdr, "high_lod"), "offset")->v.integer, (int)skin_packed);
    assert_int_equal(file.size, 100 + skin_packed + lod_packed);
    assert_int_equal(file.data[100], 0x78);
    assert_int_equal(file.data[101], 0xda);
    am_llsd_free(&hdr);
    am_buf_free(&file);
    am_mesh_asset_free(&a);
}

static void test_worked_example_decodes_to_spec_values(void **state)
{
    (void)state;
    am_mesh_asset src, a;
    build_worked_example(&src);
    am_buf file = {0};
    am_error err;
    am_error_clear(&err);
    assert_int_equal(am_mesh_asset_encode(&src, &file, &err), AM_OK);
    decode_ok(file.data, file.size, &a);
    const am_mesh_face *f = &a.lods[AM_LOD_HIGH].faces[0];
    /* 9.4: v0 weight4 = (0.6, 1.4); v1 = (1.999); v2 = (1.7499962, 0.2499886) */
    assert_near(f->weight_value[0], 0.6, 1e-7);
    assert_near((float)f->weight_joint[0] + f->weight_value[0], 0.60000002, 1e-8);
    assert_near((float)f->weight_joint[1] + f->weight_value[1], 1.39999998, 1e-7);
    assert_near((float)f->weight_joint[4] + f->weight_value[4], 1.999, 1e-7);
    assert_near((float)f->weight_joint[8] + f->weight_value[8], 1.7499962, 1e-7);
    assert_near((float)f->weight_joint[9] + f->weight_value[9], 0.2499886, 1e-7);
    assert_true(f->weight_value[2] == 0.0f && f->weight_value[5] == 0.0f);
    /* 9.2: NormalizedScale (0.200000003, 0.200000003, 0.299999952) */
    assert_near(f->normalized_scale.x, 0.200000003, 1e-9);
    assert_near(f->normalized_scale.z, 0.299999952, 1e-9);
    /* v1.z = -0.1666665 normalised; decoded within one quantum (1/65535) below */
    assert_near(f->positions[5], -0.1666665, 1.6e-5);
    assert_true(f->positions[0] <= 0.0f && f->positions[0] > -1.6e-5f);
    /* 9.5 skin values */
    assert_int_equal(a.skin.joint_count, 2);
    assert_string_equal(a.skin.joint_names[1], "mTorso");
    assert_near(a.skin.alt_inverse_bind[0].m[14], 1.0670000315, 1e-10);
    assert_near(a.skin.alt_inverse_bind[1].m[14], 0.1000000015, 1e-10);
    assert_near(a.skin.bind_shape.m[0], 0.2000000030, 1e-10);
    assert_near(a.skin.bind_shape.m[10], 0.2999999523, 1e-10);
    assert_near(a.skin.bind_shape.m[14], 1.1499999762, 1e-10);
    assert_near(a.skin.inverse_bind[0].m[14], -1.0670000315, 1e-10);
    assert_near(a.skin.inverse_bind[1].m[14], -1.1670000553, 1e-10);
    assert_true(a.skin.has_pelvis_offset && a.skin.pelvis_offset == 0.0);
    assert_false(a.skin.lock_scale_if_joint_position);
    /* and decode -> encode -> decode is exact */
    am_buf again = {0};
    am_mesh_asset b;
    assert_int_equal(am_mesh_asset_encode(&a, &again, &err), AM_OK);
    decode_ok(again.data, again.size, &b);
    assert_assets_equal(&a, &b);
    am_mesh_asset_free(&b);
    am_buf_free(&again);
    am_buf_free(&file);
    am_mesh_asset_free(&a);
    am_mesh_asset_free(&src);
}

/* Zero-range trap (4.3): a planar face writes 0 on the flat axis, decodes to min. */
static void test_flat_axis_quantises_to_zero(void **state)
{
    (void)state;
    am_mesh_asset src, a;
    build_worked_example(&src);
    am_mesh_face *f = &src.lods[AM_LOD_HIGH].faces[0];
    for (int v = 0; v < 3; v++)
        f->positions[3 * v + 2] = 0.25f;
    f->uvs[1] = f->uvs[3] = f->uvs[5] = 0.5f;
    am_buf file = {0};
    am_error err;
    assert_int_equal(am_mesh_asset_encode(&src, &file, &err), AM_OK);
    decode_ok(file.data, file.size, &a);
    const am_mesh_face *g = &a.lods[AM_LOD_HIGH].faces[0];
    for (int v = 0; v < 3; v++) {
        assert_int_equal(g->position_codes[3 * v + 2], 0);
        assert_true(g->positions[3 * v + 2] == 0.25f);
        assert_int_equal(g->uv_codes[2 * v + 1], 0);
        assert_true(g->uvs[2 * v + 1] == 0.5f);
    }
    am_buf_free(&file);
    am_mesh_asset_free(&a);
    am_mesh_asset_free(&src);
}

/* ---------- bad input ---------- */

static void test_every_truncation_of_the_real_slm_fails_cleanly(void **state)
{
    (void)state;
    uint8_t *d;
    size_t n;
    load_slm(&d, &n);
    for (size_t k = 0; k < n; k++) {
        uint8_t *copy = malloc(k ? k : 1); /* exact-size copy: ASan sees any overread */
        memcpy(copy, d, k);
        am_mesh_asset a;
        am_error err;
        am_error_clear(&err);
        am_status s = am_mesh_asset_decode(copy, k, &a, &err);
        if (s != AM_ERR_INVALID)
            fail_msg("truncated at %zu: status %d", k, (int)s);
        assert_true(err.msg[0] != '\0');
        free(copy);
    }
    free(d);
}

/* Rebuild a file with one block's inflated content replaced (header rewritten). */
static void splice_block(const uint8_t *d, size_t n, const char *name, const uint8_t *raw, size_t raw_n, am_buf *out)
{
    am_llsd hdr;
    size_t used;
    am_error err;
    assert_int_equal(am_llsd_parse(d, n, NULL, &hdr, &used, &err), AM_OK);
    am_buf body = {0};
    /* keep the original block order (by offset) */
    size_t idx[16], cnt = 0;
    for (size_t i = 0; i < hdr.count; i++)
        if (hdr.items[i].type == AM_LLSD_MAP && am_llsd_get(&hdr.items[i], "size"))
            idx[cnt++] = i;
    for (size_t i = 1; i < cnt; i++)
        for (size_t j = i; j > 0 && am_llsd_get(&hdr.items[idx[j - 1]], "offset")->v.integer >
                                        am_llsd_get(&hdr.items[idx[j]], "offset")->v.integer;
             j--) {
            size_t t = idx[j];
            idx[j] = idx[j - 1];
            idx[j - 1] = t;
        }
    for (size_t c = 0; c < cnt; c++) {
        am_llsd *e = &hdr.items[idx[c]];
        am_llsd *off = (am_llsd *)am_llsd_get(e, "offset"), *sz = (am_llsd *)am_llsd_get(e, "size");
        size_t start = body.size;
        if (strcmp(hdr.keys[idx[c]], name) == 0)
            assert_int_equal(am_zblock_deflate(raw, raw_n, &body, &err), AM_OK);
        else
            assert_int_equal(
                am_buf_append(&body, d + used + (size_t)off->v.integer, (size_t)sz->v.integer, &err), AM_OK);
        off->v.integer = (int32_t)start;
        sz->v.integer = (int32_t)(body.size - start);
    }
    out->size = 0;
    assert_int_equal(am_llsd_format(&hdr, out, &err), AM_OK);
    assert_int_equal(am_buf_append(out, body.data, body.size, &err), AM_OK);
    am_buf_free(&body);
    am_llsd_free(&hdr);
}

static am_status decode_err(const am_buf *file, am_error *err, char *msg, size_t msg_size)
{
    am_mesh_asset a;
    am_error_clear(err);
    am_status s = am_mesh_asset_decode(file->data, file->size, &a, err);
    if (s == AM_OK)
        am_mesh_asset_free(&a);
    am_error_format(err, msg, msg_size);
    return s;
}

static void test_damaged_zlib_stream_is_refused_naming_the_block(void **state)
{
    (void)state;
    uint8_t *d;
    size_t n;
    load_slm(&d, &n);
    am_buf f = {0};
    am_error err;
    char msg[512];
    /* skin block at file offset 355: break its deflate data */
    assert_int_equal(am_buf_append(&f, d, n, &err), AM_OK);
    for (int i = 0; i < 8; i++)
        f.data[355 + 20 + i] ^= 0x5a;
    assert_int_equal(decode_err(&f, &err, msg, sizeof msg), AM_ERR_INVALID);
    assert_non_null(strstr(msg, "skin block"));
    /* not a zlib header */
    memcpy(f.data, d, n);
    f.data[355] = 0x1f;
    assert_int_equal(decode_err(&f, &err, msg, sizeof msg), AM_ERR_INVALID);
    assert_non_null(strstr(msg, "zlib"));
    am_buf_free(&f);
    free(d);
}

static void test_counts_beyond_the_data_are_refused(void **state)
{
    (void)state;
    uint8_t *d;
    size_t n;
    load_slm(&d, &n);
    am_buf f = {0};
    am_error err;
    char msg[512];
    /* header: high_lod size 327 -> 0x147; make it 0x247, past the end of the file */
    assert_int_equal(am_buf_append(&f, d, n, &err), AM_OK);
    assert_int_equal(f.data[0x33], 0x01);
    assert_int_equal(f.data[0x34], 0x47);
    f.data[0x33] = 0x02;
    assert_int_equal(decode_err(&f, &err, msg, sizeof msg), AM_ERR_INVALID);
    assert_non_null(strstr(msg, "high_lod"));
    assert_non_null(strstr(msg, "past the end"));

    /* an LLSD array count larger than the inflated block */
    const uint8_t big[] = {'[', 0x00, 0x01, 0x00, 0x00, '!', ']'};
    splice_block(d, n, "low_lod", big, sizeof big, &f);
    assert_int_equal(decode_err(&f, &err, msg, sizeof msg), AM_ERR_INVALID);
    assert_non_null(strstr(msg, "low_lod"));
    assert_non_null(strstr(msg, "count"));

    /* a Weights stream shorter than the vertex count; a TexCoord0 shorter than 4N */
    am_mesh_asset src;
    build_worked_example(&src);
    am_buf file = {0};
    assert_int_equal(am_mesh_asset_encode(&src, &file, &err), AM_OK);
    uint8_t *lod;
    size_t lod_n;
    inflate_block(&file, "high_lod", &lod, &lod_n, NULL);
    size_t len;
    uint8_t *w = (uint8_t *)find_binary(lod, lod_n, "Weights", &len);
    w[-1] = (uint8_t)(len - 8); /* drops v2's list and v1's terminator */
    splice_block(file.data, file.size, "high_lod", lod, lod_n, &f);
    /* the inner length now disagrees with the map: the LLSD or the Weights check fails */
    assert_int_equal(decode_err(&f, &err, msg, sizeof msg), AM_ERR_INVALID);
    assert_non_null(strstr(msg, "high_lod"));
    free(lod);

    inflate_block(&file, "high_lod", &lod, &lod_n, NULL);
    /* cut the Weights list after vertex 1 cleanly: rebuild with a shorter binary */
    {
        size_t wl;
        const uint8_t *wp = find_binary(lod, lod_n, "Weights", &wl);
        size_t head = (size_t)(wp - lod) - 4, keep = 11; /* v0 (7 bytes) + v1 (4 bytes) */
        am_buf nb = {0};
        uint8_t l4[4] = {0, 0, 0, (uint8_t)keep};
        assert_int_equal(am_buf_append(&nb, lod, head, &err), AM_OK);
        assert_int_equal(am_buf_append(&nb, l4, 4, &err), AM_OK);
        assert_int_equal(am_buf_append(&nb, wp, keep, &err), AM_OK);
        assert_int_equal(am_buf_append(&nb, wp + wl, lod_n - (size_t)(wp + wl - lod), &err), AM_OK);
        splice_block(file.data, file.size, "high_lod", nb.data, nb.size, &f);
        assert_int_equal(decode_err(&f, &err, msg, sizeof msg), AM_ERR_INVALID);
        assert_non_null(strstr(msg, "Weights ends after vertex 2 of 3"));
        assert_non_null(strstr(msg, "high_lod block face 0"));
        am_buf_free(&nb);
    }
    free(lod);
    am_buf_free(&file);
    am_mesh_asset_free(&src);
    am_buf_free(&f);
    free(d);
}

static void test_header_over_4096_bytes_is_refused(void **state)
{
    (void)state;
    am_mesh_asset src;
    build_worked_example(&src);
    /* 60 material names of 80 characters: a ~5.2 kB header */
    src.material_count = 60;
    src.material_list = calloc(60, sizeof(char *));
    for (int i = 0; i < 60; i++) {
        src.material_list[i] = malloc(81);
        memset(src.material_list[i], 'a' + i % 26, 80);
        src.material_list[i][80] = 0;
    }
    am_buf file = {0};
    am_error err;
    am_error_clear(&err);
    assert_int_equal(am_mesh_asset_encode(&src, &file, &err), AM_ERR_INVALID);
    assert_non_null(strstr(err.msg, "4096"));
    assert_int_equal(file.size, 0);

    /* a file carrying such a header (built by hand) is refused by the decoder too */
    src.material_count = 0;
    assert_int_equal(am_mesh_asset_encode(&src, &file, &err), AM_OK);
    am_llsd hdr;
    size_t used;
    assert_int_equal(am_llsd_parse(file.data, file.size, NULL, &hdr, &used, &err), AM_OK);
    am_llsd *ml = am_llsd_insert(&hdr, "material_list", &err);
    am_llsd_set_array(ml);
    for (int i = 0; i < 60; i++)
        assert_int_equal(am_llsd_set_string(am_llsd_push(ml, &err), src.material_list[i], &err), AM_OK);
    am_buf big = {0};
    assert_int_equal(am_llsd_format(&hdr, &big, &err), AM_OK);
    assert_gt(big.size, 4096);
    assert_int_equal(am_buf_append(&big, file.data + used, file.size - used, &err), AM_OK);
    char msg[512];
    assert_int_equal(decode_err(&big, &err, msg, sizeof msg), AM_ERR_INVALID);
    assert_non_null(strstr(msg, "4096"));
    src.material_count = 60;
    am_llsd_free(&hdr);
    am_buf_free(&big);
    am_buf_free(&file);
    am_mesh_asset_free(&src);
}

static void test_encoder_refuses_bad_weights(void **state)
{
    (void)state;
    am_mesh_asset src;
    build_worked_example(&src);
    am_mesh_face *f = &src.lods[AM_LOD_HIGH].faces[0];
    am_buf file = {0};
    am_error err;
    /* 5 influences */
    f->weight_count[0] = 5;
    am_error_clear(&err);
    assert_int_equal(am_mesh_asset_encode(&src, &file, &err), AM_ERR_INVALID);
    assert_non_null(strstr(err.msg, "5 influences"));
    assert_non_null(strstr(err.where, "high_lod face 0"));
    f->weight_count[0] = 2;
    /* joint index 2 with 2 joint names */
    f->weight_joint[4] = 2;
    assert_int_equal(am_mesh_asset_encode(&src, &file, &err), AM_ERR_INVALID);
    assert_non_null(strstr(err.msg, "joint index 2"));
    /* joint 255 would collide with the end marker */
    f->weight_joint[4] = 255;
    assert_int_equal(am_mesh_asset_encode(&src, &file, &err), AM_ERR_INVALID);
    assert_non_null(strstr(err.msg, "255"));
    f->weight_joint[4] = 1;
    /* index out of the face */
    f->indices[2] = 3;
    assert_int_equal(am_mesh_asset_encode(&src, &file, &err), AM_ERR_INVALID);
    assert_non_null(strstr(err.msg, "vertex count"));
    f->indices[2] = 2;
    assert_int_equal(am_mesh_asset_encode(&src, &file, &err), AM_OK);
    am_buf_free(&file);
    am_mesh_asset_free(&src);
}

/* A decoded weight naming a joint beyond joint_names is refused (6.5 trap); an empty
 * list is decoded the viewer's way: joint 0 at 0.999, and counted. */
static void test_decoder_joint_index_and_empty_list(void **state)
{
    (void)state;
    am_mesh_asset src;
    build_worked_example(&src);
    am_buf file = {0}, f = {0};
    am_error err;
    assert_int_equal(am_mesh_asset_encode(&src, &file, &err), AM_OK);
    uint8_t *lod;
    size_t lod_n, len;
    inflate_block(&file, "high_lod", &lod, &lod_n, NULL);
    uint8_t *w = (uint8_t *)find_binary(lod, lod_n, "Weights", &len);
    w[7] = 0x07; /* v1: joint 7 of 2 */
    splice_block(file.data, file.size, "high_lod", lod, lod_n, &f);
    char msg[512];
    assert_int_equal(decode_err(&f, &err, msg, sizeof msg), AM_ERR_INVALID);
    assert_non_null(strstr(msg, "joint index 7"));
    assert_non_null(strstr(msg, "Weights"));
    free(lod);

    /* v1 = "ff" alone: no influence */
    src.lods[AM_LOD_HIGH].faces[0].weight_count[1] = 0;
    file.size = 0;
    assert_int_equal(am_mesh_asset_encode(&src, &file, &err), AM_OK);
    am_mesh_asset a;
    decode_ok(file.data, file.size, &a);
    const am_mesh_face *g = &a.lods[AM_LOD_HIGH].faces[0];
    assert_int_equal(g->weight_count[1], 0);
    assert_int_equal(g->no_influence_count, 1);
    assert_int_equal(g->weight_joint[4], 0);
    assert_true(g->weight_value[4] == 0.999f);
    am_mesh_asset_free(&a);
    am_buf_free(&f);
    am_buf_free(&file);
    am_mesh_asset_free(&src);
}

/* 2: a zlib (RFC 1950) stream, inflated up to a cap, bytes after its end ignored. */
static void test_zlib_block_cap_and_trailing_bytes(void **state)
{
    (void)state;
    uint8_t zeros[10000] = {0};
    am_buf z = {0};
    am_error err;
    am_error_clear(&err);
    assert_int_equal(am_zblock_deflate(zeros, sizeof zeros, &z, &err), AM_OK);
    assert_int_equal(z.data[0], 0x78); /* zlib header, level 9: 78 DA */
    assert_int_equal(z.data[1], 0xda);
    uint8_t *out;
    size_t n;
    assert_int_equal(am_zblock_inflate(z.data, z.size, 1000, &out, &n, &err), AM_ERR_INVALID);
    assert_non_null(strstr(err.msg, "more than 1000"));
    assert_null(out);
    size_t packed = z.size;
    assert_int_equal(am_buf_append(&z, "trailing", 8, &err), AM_OK);
    assert_int_equal(am_zblock_inflate(z.data, z.size, sizeof zeros, &out, &n, &err), AM_OK);
    assert_int_equal(n, sizeof zeros);
    assert_memory_equal(out, zeros, n);
    free(out);
    /* cut before the Adler-32 trailer: no Z_STREAM_END */
    assert_int_equal(am_zblock_inflate(z.data, packed - 2, sizeof zeros, &out, &n, &err), AM_ERR_INVALID);
    assert_non_null(strstr(err.msg, "truncated"));
    am_buf_free(&z);
}

/* An asset whose alt_inverse_bind_matrix is an EMPTY array (the viewer: 0 != joint count,
 * overrides ignored). The decoder must not hand out a non-NULL array with alt_count 0,
 * which every reader takes as "joint_count entries" (mesh_asset.h): it reads as absent,
 * with a warning, and re-encodes without the key. */
static void test_empty_alt_inverse_bind_list_reads_as_absent(void **state)
{
    (void)state;
    am_mesh_asset a;
    build_worked_example(&a);
    am_buf file = {0};
    am_error err;
    am_error_clear(&err);
    assert_int_equal(am_mesh_asset_encode(&a, &file, &err), AM_OK);
    am_mesh_asset_free(&a);
    uint8_t *raw;
    size_t raw_n, packed;
    inflate_block(&file, "skin", &raw, &raw_n, &packed);
    am_llsd skin;
    size_t used;
    assert_int_equal(am_llsd_parse(raw, raw_n, NULL, &skin, &used, &err), AM_OK);
    am_llsd *alt = (am_llsd *)am_llsd_get(&skin, "alt_inverse_bind_matrix");
    assert_non_null(alt);
    am_llsd_free(alt);
    am_llsd_set_array(alt);
    am_buf raw2 = {0}, file2 = {0};
    assert_int_equal(am_llsd_format(&skin, &raw2, &err), AM_OK);
    splice_block(file.data, file.size, "skin", raw2.data, raw2.size, &file2);
    decode_ok(file2.data, file2.size, &a);
    assert_int_equal(a.skin.joint_count, 2);
    assert_null(a.skin.alt_inverse_bind);
    assert_int_equal(a.skin.alt_count, 0);
    bool warned = false;
    for (size_t i = 0; i < a.warning_count; i++)
        warned |= strstr(a.warnings[i], "alt_inverse_bind_matrix") != NULL;
    assert_true(warned);
    /* re-encodes (reads no alternate beyond the array) */
    am_buf again = {0};
    assert_int_equal(am_mesh_asset_encode(&a, &again, &err), AM_OK);
    am_buf_free(&again);
    am_mesh_asset_free(&a);
    am_llsd_free(&skin);
    free(raw);
    am_buf_free(&raw2);
    am_buf_free(&file2);
    am_buf_free(&file);
}

/* The whole-asset JSON of an asset whose skin holds a non-finite number (the decoder
 * accepts it, as the viewer does; JSON cannot carry it): a clear error, and nothing
 * leaked (the partly written skin JSON was leaked before; LeakSanitizer fails this
 * program then). */
static void test_asset_json_with_non_finite_skin_fails_without_leak(void **state)
{
    (void)state;
    am_mesh_asset src, a;
    build_worked_example(&src);
    am_buf file = {0}, out = {0};
    am_error err;
    am_error_clear(&err);
    assert_int_equal(am_mesh_asset_encode(&src, &file, &err), AM_OK);
    decode_ok(file.data, file.size, &a);
    am_buf_free(&file);
    am_mesh_asset_free(&src);
    a.skin.inverse_bind[1].m[15] = INFINITY;
    assert_int_equal(am_mesh_asset_to_json(&a, &out, &err), AM_ERR_INVALID);
    assert_non_null(strstr(err.msg, "not finite"));
    assert_non_null(strstr(err.where, "inverse_bind_matrix[1]"));
    am_buf_free(&out);
    am_mesh_asset_free(&a);
}

/* docs/reference/mesh-asset.md#quantisation and #weights, the shared quantisers: truncation (0.5 -> 32767), the
 * zero-range trap written as 0, normals over [-1, 1], weights clamped to [0.001, 0.999]. */
static void test_quantisers_follow_the_viewer_formulas(void **state)
{
    (void)state;
    assert_int_equal(am_mesh_quantize(0.5f, 0.0f, 1.0f), 32767);
    assert_int_equal(am_mesh_quantize(1.0f, 0.0f, 1.0f), 65535);
    assert_int_equal(am_mesh_quantize(-2.0f, -2.0f, 4.0f), 0);
    assert_int_equal(am_mesh_quantize(3.0f, 3.0f, 0.0f), 0); /* flat axis */
    assert_true(am_mesh_dequantize(65535, -0.5f, 1.0f) == 0.5f);
    assert_true(am_mesh_dequantize(0, -0.5f, 1.0f) == -0.5f);
    assert_near(am_mesh_dequantize(32767, 0.0f, 2.0f), 2.0 * 32767 / 65535, 1e-7);
    assert_int_equal(am_mesh_quantize_normal(1.0f), 65535);
    assert_int_equal(am_mesh_quantize_normal(-1.0f), 0);
    assert_int_equal(am_mesh_quantize_normal(0.0f), 32767);
    assert_int_equal(am_mesh_quantize_normal(-7.0f), 0);
    assert_true(am_mesh_dequantize_normal(65535) == 1.0f);
    assert_true(am_mesh_dequantize_normal(0) == -1.0f);
    assert_true(am_mesh_weight_value(65535) == 0.999f);
    assert_true(am_mesh_weight_value(0) == 0.001f);
    assert_true(am_mesh_weight_value(32767) == 32767.0f / 65535.0f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_real_slm_decodes_as_documented),
        cmocka_unit_test(test_header_alone_gives_the_blocks),
        cmocka_unit_test(test_real_slm_reencodes_to_identical_values),
        cmocka_unit_test(test_stored_blocks_decode_to_the_same_asset),
        cmocka_unit_test(test_worked_example_bytes_match_spec),
        cmocka_unit_test(test_worked_example_decodes_to_spec_values),
        cmocka_unit_test(test_flat_axis_quantises_to_zero),
        cmocka_unit_test(test_every_truncation_of_the_real_slm_fails_cleanly),
        cmocka_unit_test(test_damaged_zlib_stream_is_refused_naming_the_block),
        cmocka_unit_test(test_counts_beyond_the_data_are_refused),
        cmocka_unit_test(test_header_over_4096_bytes_is_refused),
        cmocka_unit_test(test_encoder_refuses_bad_weights),
        cmocka_unit_test(test_decoder_joint_index_and_empty_list),
        cmocka_unit_test(test_zlib_block_cap_and_trailing_bytes),
        cmocka_unit_test(test_empty_alt_inverse_bind_list_reads_as_absent),
        cmocka_unit_test(test_asset_json_with_non_finite_skin_fails_without_leak),
        cmocka_unit_test(test_quantisers_follow_the_viewer_formulas),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
