/* Bad glTF input: each refused with a clear error naming the file and the element (and
 * the byte offset for the GLB container), and no scene left behind. The files are the
 * fixtures' bend box broken in one place. */
#define _XOPEN_SOURCE 700 /* symlink */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "support/gltf_fixtures.h"
#include "support/test_support.h"

typedef struct broken {
    char dir[256];
    am_gf_model model;
    json_t *doc;
    am_buf bin;
} broken;

static void broken_init(broken *b)
{
    memset(b, 0, sizeof *b);
    am_test_tmpdir(b->dir, sizeof b->dir);
    am_gf_bendbox(&b->model, AM_SCENE_INTERP_LINEAR);
    b->doc = am_gf_document(&b->model, NULL, &b->bin);
}

static void broken_free(broken *b)
{
    json_decref(b->doc);
    am_buf_free(&b->bin);
    am_gf_model_free(&b->model);
    am_gf_remove_tree(b->dir);
}

static json_t *at(json_t *doc, const char *array, size_t i) { return json_array_get(json_object_get(doc, array), i); }

static int index_of(json_t *obj, const char *key) { return (int)json_integer_value(json_object_get(obj, key)); }

/* The bytes of an accessor's first element inside the binary buffer. */
static uint8_t *accessor_bytes(broken *b, int accessor)
{
    json_t *a = at(b->doc, "accessors", (size_t)accessor);
    json_t *v = at(b->doc, "bufferViews", (size_t)index_of(a, "bufferView"));
    return b->bin.data + json_integer_value(json_object_get(v, "byteOffset")) +
           json_integer_value(json_object_get(a, "byteOffset"));
}

static int position_accessor(broken *b)
{
    json_t *attrs = json_object_get(json_array_get(json_object_get(at(b->doc, "meshes", 0), "primitives"), 0),
                                    "attributes");
    return index_of(attrs, "POSITION");
}

/* Save as .gltf + .bin and expect a refusal whose message holds every `want` string. */
static void expect_refused(broken *b, am_gf_container container, am_status status, const char *const *want)
{
    char path[1024], msg[512];
    am_gf_save(b->doc, &b->bin, container, b->dir, "broken", path, sizeof path);
    am_gf_load_error(path, status, msg, sizeof msg);
    if (!strstr(msg, "broken.gl"))
        fail_msg("the error does not name the file: %s", msg);
    for (size_t i = 0; want[i]; i++)
        if (!strstr(msg, want[i]))
            fail_msg("expected '%s' in: %s", want[i], msg);
}

static void test_unreadable_file(void **state)
{
    (void)state;
    char msg[512];
    am_gf_load_error("/nonexistent-animesh/creature.gltf", AM_ERR_IO, msg, sizeof msg);
    assert_non_null(strstr(msg, "/nonexistent-animesh/creature.gltf"));
    assert_non_null(strstr(msg, "cannot open"));
    /* a buffer file that is not there */
    char dir[256], path[512];
    am_test_tmpdir(dir, sizeof dir);
    snprintf(path, sizeof path, "%s/x.gltf", dir);
    am_test_write_text(path, "{\"asset\": {\"version\": \"2.0\"}, \"buffers\": [{\"byteLength\": 36, \"uri\": \"missing.bin\"}],"
                             " \"bufferViews\": [{\"buffer\": 0, \"byteLength\": 36}], \"accessors\": [{\"bufferView\": 0,"
                             " \"componentType\": 5126, \"count\": 3, \"type\": \"VEC3\"}], \"nodes\": [{\"mesh\": 0}],"
                             " \"meshes\": [{\"primitives\": [{\"attributes\": {\"POSITION\": 0}}]}]}");
    am_gf_load_error(path, AM_ERR_IO, msg, sizeof msg);
    assert_non_null(strstr(msg, "buffers[0]"));
    assert_non_null(strstr(msg, "missing.bin"));
    am_gf_remove_tree(dir);
}

static void test_accessor_view_or_buffer_past_its_end(void **state)
{
    (void)state;
    broken b;
    broken_init(&b);
    json_t *a = at(b.doc, "accessors", (size_t)position_accessor(&b));
    json_object_set_new(a, "count", json_integer((json_int_t)b.model.vertex_count + 1));
    const char *w1[] = {"accessors[0] (POSITION of meshes[0].primitives[0])", "past the end of bufferViews[0]",
                        "count 69", NULL};
    expect_refused(&b, AM_GF_GLTF, AM_ERR_INVALID, w1);
    json_object_set_new(a, "count", json_integer((json_int_t)b.model.vertex_count));
    /* an offset that walks the last element off the view */
    json_object_set_new(a, "byteOffset", json_integer(4));
    const char *w2[] = {"byteOffset 4", "past the end of bufferViews[0]", NULL};
    expect_refused(&b, AM_GF_GLTF_EMBEDDED, AM_ERR_INVALID, w2);
    json_object_del(a, "byteOffset");
    /* a view past its buffer */
    json_t *v = at(b.doc, "bufferViews", 0);
    json_object_set_new(v, "byteLength", json_integer((json_int_t)b.bin.size + 4));
    const char *w3[] = {"bufferViews[0]", "past the end of buffers[0]", NULL};
    expect_refused(&b, AM_GF_GLB, AM_ERR_INVALID, w3);
    json_object_set_new(v, "byteLength", json_integer((json_int_t)(12 * b.model.vertex_count)));
    /* a buffer longer than its bytes */
    json_object_set_new(at(b.doc, "buffers", 0), "byteLength", json_integer((json_int_t)b.bin.size + 8));
    const char *w4[] = {"buffers[0]: byteLength", "but the data has", NULL};
    expect_refused(&b, AM_GF_GLTF, AM_ERR_INVALID, w4);
    broken_free(&b);
}

static void test_sparse_index_out_of_range(void **state)
{
    (void)state;
    broken b;
    broken_init(&b);
    /* sparse over POSITION: 2 indices (UNSIGNED_SHORT 3 and 68) into 68 vertices */
    uint16_t idx[2] = {3, (uint16_t)b.model.vertex_count};
    float vals[6] = {0};
    while (b.bin.size % 4)
        am_buf_append(&b.bin, "\0", 1, NULL);
    size_t io = b.bin.size;
    am_buf_append(&b.bin, idx, sizeof idx, NULL);
    size_t vo = b.bin.size;
    am_buf_append(&b.bin, vals, sizeof vals, NULL);
    json_t *views = json_object_get(b.doc, "bufferViews");
    json_array_append_new(views, json_pack("{s:i, s:I, s:i}", "buffer", 0, "byteOffset", (json_int_t)io, "byteLength", 4));
    json_array_append_new(views, json_pack("{s:i, s:I, s:i}", "buffer", 0, "byteOffset", (json_int_t)vo, "byteLength", 24));
    int nv = (int)json_array_size(views);
    json_object_set_new(at(b.doc, "buffers", 0), "byteLength", json_integer((json_int_t)b.bin.size));
    json_object_set_new(at(b.doc, "accessors", (size_t)position_accessor(&b)), "sparse",
                        json_pack("{s:i, s:{s:i, s:i}, s:{s:i}}", "count", 2, "indices", "bufferView", nv - 2,
                                  "componentType", 5123, "values", "bufferView", nv - 1));
    const char *w[] = {"sparse.indices: index 68 (entry 1) is out of range: the accessor has 68 elements", NULL};
    expect_refused(&b, AM_GF_GLTF, AM_ERR_INVALID, w);
    /* and a sparse block longer than its view */
    json_object_set_new(json_object_get(at(b.doc, "accessors", (size_t)position_accessor(&b)), "sparse"), "count",
                        json_integer(3));
    const char *w2[] = {"3 indices x 2 bytes is past the end of bufferViews", NULL};
    expect_refused(&b, AM_GF_GLTF, AM_ERR_INVALID, w2);
    broken_free(&b);
}

static void test_nan_or_zero_rotation_in_a_transform(void **state)
{
    (void)state;
    broken b;
    broken_init(&b);
    int ibm = index_of(at(b.doc, "skins", 0), "inverseBindMatrices");
    float nan = NAN, saved;
    uint8_t *p = accessor_bytes(&b, ibm) + 64 + 4 * 12; /* joint 1, element 12 */
    memcpy(&saved, p, 4);
    memcpy(p, &nan, 4);
    const char *w1[] = {"inverseBindMatrices of skins[0]", "matrix 1 (joint 'bend') element 12 is not a finite number",
                        NULL};
    expect_refused(&b, AM_GF_GLB, AM_ERR_INVALID, w1);
    memcpy(p, &saved, 4);
    /* a rotation key */
    json_t *sampler = json_array_get(json_object_get(at(b.doc, "animations", 0), "samplers"), 0);
    p = accessor_bytes(&b, index_of(sampler, "output")) + 4 * 4 + 8; /* key 1, z */
    memcpy(p, &nan, 4);
    const char *w2[] = {"output of animations[0].samplers[0]", "value 2 of key 1 (rotation of nodes[1])",
                        "not a finite number", NULL};
    expect_refused(&b, AM_GF_GLTF, AM_ERR_INVALID, w2);
    memcpy(p, &saved, 4);
    /* a node rotation of zero length */
    json_object_set_new(at(b.doc, "nodes", 1), "rotation", json_pack("[f,f,f,f]", 0.0, 0.0, 0.0, 0.0));
    const char *w3[] = {"nodes[1].rotation: (0, 0, 0, 0) is not a rotation", NULL};
    expect_refused(&b, AM_GF_GLTF, AM_ERR_INVALID, w3);
    broken_free(&b);
    /* a number JSON cannot hold */
    char dir[256], path[512], msg[512];
    am_test_tmpdir(dir, sizeof dir);
    snprintf(path, sizeof path, "%s/huge.gltf", dir);
    am_test_write_text(path, "{\"asset\": {\"version\": \"2.0\"}, \"nodes\": [{\"translation\": [1e999, 0, 0]}]}");
    am_gf_load_error(path, AM_ERR_INVALID, msg, sizeof msg);
    assert_non_null(strstr(msg, "invalid JSON at line 1"));
    assert_non_null(strstr(msg, "huge.gltf"));
    am_gf_remove_tree(dir);
}

static void test_bin_path_outside_the_folder(void **state)
{
    (void)state;
    broken b;
    broken_init(&b);
    json_t *buf0 = at(b.doc, "buffers", 0);
    /* a real file just outside the model's folder */
    char outside[512], sub[512], link[1024], path[1024], msg[512];
    snprintf(sub, sizeof sub, "%s/model", b.dir);
    assert_int_equal(am_mkdir_p(sub, NULL), AM_OK);
    snprintf(outside, sizeof outside, "%s/outside.bin", b.dir);
    assert_int_equal(am_write_file_atomic(outside, b.bin.data, b.bin.size, NULL), AM_OK);
    struct {
        const char *uri, *want;
    } cases[] = {
        {"../outside.bin", "'../outside.bin' leaves the model's folder: refused"},
        {"%2E%2E/outside.bin", "leaves the model's folder"},
        {"sub/../../outside.bin", "leaves the model's folder"},
        {"/etc/hostname", "'/etc/hostname' is an absolute path: refused"},
        {"file:///etc/hostname", "is a URL"},
        {"https://example.com/x.bin", "is a URL"},
        {"link.bin", "outside the model's folder (a symlink?)"},
    };
    snprintf(link, sizeof link, "%s/link.bin", sub);
    assert_int_equal(symlink("../outside.bin", link), 0);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        json_object_set_new(buf0, "uri", json_string(cases[i].uri));
        am_gf_save(b.doc, &b.bin, AM_GF_GLTF, sub, "broken", path, sizeof path);
        am_gf_load_error(path, AM_ERR_INVALID, msg, sizeof msg);
        if (!strstr(msg, cases[i].want) || !strstr(msg, "buffers[0]") || !strstr(msg, "broken.gltf"))
            fail_msg("uri '%s': %s", cases[i].uri, msg);
    }
    /* inside the folder through a subfolder, with a percent-escape: read */
    char deeper[1024];
    snprintf(deeper, sizeof deeper, "%s/data dir", sub);
    assert_int_equal(am_mkdir_p(deeper, NULL), AM_OK);
    snprintf(deeper, sizeof deeper, "%s/data dir/b.bin", sub);
    assert_int_equal(am_write_file_atomic(deeper, b.bin.data, b.bin.size, NULL), AM_OK);
    json_object_set_new(buf0, "uri", json_string("data%20dir/b.bin"));
    am_gf_save(b.doc, &b.bin, AM_GF_GLTF, sub, "fine", path, sizeof path);
    am_scene s;
    am_gf_load(path, &s);
    assert_int_equal(s.meshes[0].vertex_count, b.model.vertex_count);
    am_scene_free(&s);
    broken_free(&b);
}

static void add_image(broken *b, const void *bytes, size_t n, const char *uri)
{
    json_t *mat = at(b->doc, "materials", 0);
    json_object_set_new(json_object_get(mat, "pbrMetallicRoughness"), "baseColorTexture", json_pack("{s:i}", "index", 0));
    json_object_set_new(b->doc, "textures", json_pack("[{s:i}]", "source", 0));
    if (uri) {
        json_object_set_new(b->doc, "images", json_pack("[{s:s, s:s}]", "name", "skin", "uri", uri));
        return;
    }
    while (b->bin.size % 4)
        am_buf_append(&b->bin, "\0", 1, NULL);
    json_t *views = json_object_get(b->doc, "bufferViews");
    json_array_append_new(views, json_pack("{s:i, s:I, s:I}", "buffer", 0, "byteOffset", (json_int_t)b->bin.size,
                                           "byteLength", (json_int_t)n));
    am_buf_append(&b->bin, bytes, n, NULL);
    json_object_set_new(at(b->doc, "buffers", 0), "byteLength", json_integer((json_int_t)b->bin.size));
    json_object_set_new(b->doc, "images", json_pack("[{s:s, s:I, s:s}]", "name", "skin", "bufferView",
                                                    (json_int_t)json_array_size(views) - 1, "mimeType", "image/png"));
}

static void test_texture_not_png_or_jpeg(void **state)
{
    (void)state;
    static const uint8_t gif[] = "GIF89a\x01\x00\x01\x00\x00\x00\x00;";
    static const uint8_t webp[] = "RIFF\x1a\x00\x00\x00WEBPVP8L\x0d\x00\x00\x00";
    broken b;
    broken_init(&b);
    add_image(&b, gif, sizeof gif, NULL);
    const char *w1[] = {"images[0] 'skin': a GIF image: only PNG and JPEG textures are read", NULL};
    expect_refused(&b, AM_GF_GLB, AM_ERR_INVALID, w1);
    char tex[512];
    snprintf(tex, sizeof tex, "%s/skin.webp", b.dir);
    assert_int_equal(am_write_file_atomic(tex, webp, sizeof webp, NULL), AM_OK);
    add_image(&b, NULL, 0, "skin.webp");
    const char *w2[] = {"images[0] 'skin' ('skin.webp'): a WebP image", NULL};
    expect_refused(&b, AM_GF_GLTF, AM_ERR_INVALID, w2);
    add_image(&b, NULL, 0, "data:image/png;base64,AAAAAAAA");
    const char *w3[] = {"images[0] 'skin': not a PNG or JPEG image", NULL};
    expect_refused(&b, AM_GF_GLTF, AM_ERR_INVALID, w3);
    add_image(&b, NULL, 0, "../skin.png");
    const char *w4[] = {"images[0] 'skin'", "leaves the model's folder", NULL};
    expect_refused(&b, AM_GF_GLTF, AM_ERR_INVALID, w4);
    broken_free(&b);
}

static uint32_t le32(const uint8_t *p) { return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24; }

static void put_le32(uint8_t *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

static void test_glb_bad_chunk_lengths(void **state)
{
    (void)state;
    broken b;
    broken_init(&b);
    am_buf glb = {0};
    am_gf_save_memory(b.doc, &b.bin, AM_GF_GLB, &glb);
    char path[1024], msg[512];
    snprintf(path, sizeof path, "%s/broken.glb", b.dir);
    uint32_t json_len = le32(glb.data + 12);
    struct {
        size_t at;
        uint32_t value;
        const char *want;
    } cases[] = {
        {12, 0x7ffffff0u, "GLB chunk 0 (JSON): length 2147483632 runs past the end of the file (at byte 12)"},
        {12, json_len + 2, "GLB chunk 0 (JSON): length"},
        {8, (uint32_t)glb.size + 4, "truncated GLB: its header says"},
        {20 + json_len, (uint32_t)b.bin.size + 8, "GLB chunk 1 (BIN): length"},
        {16, 0x004E4942u, "the first chunk is not JSON"},
        {4, 1, "GLB version 1: only glTF 2.0 binaries are read (re-export as glTF 2.0) (at byte 4)"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        uint32_t saved = le32(glb.data + cases[i].at);
        put_le32(glb.data + cases[i].at, cases[i].value);
        assert_int_equal(am_write_file_atomic(path, glb.data, glb.size, NULL), AM_OK);
        am_gf_load_error(path, AM_ERR_INVALID, msg, sizeof msg);
        if (!strstr(msg, cases[i].want) || !strstr(msg, "broken.glb"))
            fail_msg("case %zu: %s", i, msg);
        put_le32(glb.data + cases[i].at, saved);
    }
    /* cut short: the header's length no longer matches */
    assert_int_equal(am_write_file_atomic(path, glb.data, glb.size - 4, NULL), AM_OK);
    am_gf_load_error(path, AM_ERR_INVALID, msg, sizeof msg);
    /* says what is missing (4 bytes of the binary chunk) and what to do */
    assert_non_null(strstr(msg, "truncated GLB"));
    assert_non_null(strstr(msg, "(4 missing, the end of the binary chunk"));
    assert_non_null(strstr(msg, "download the file again, or export it again"));
    am_buf_free(&glb);
    broken_free(&b);
}

static void test_bad_weights_and_unsupported_files(void **state)
{
    (void)state;
    broken b;
    broken_init(&b);
    json_t *attrs = json_object_get(json_array_get(json_object_get(at(b.doc, "meshes", 0), "primitives"), 0),
                                    "attributes");
    uint8_t *j = accessor_bytes(&b, index_of(attrs, "JOINTS_0"));
    uint8_t saved = j[4 * 32 + 1];
    j[4 * 32 + 1] = 7; /* vertex 32 (x = 0, half on each joint): its second joint */
    assert_near(b.model.influences[2 * 32 + 1].weight, 0.5, 1e-6);
    const char *w1[] = {"meshes[0].primitives[0]: JOINTS_0 of vertex 32 names joint 7, the skin has 2 joints", NULL};
    expect_refused(&b, AM_GF_GLTF, AM_ERR_INVALID, w1);
    j[4 * 32 + 1] = saved;
    float neg = -0.5f;
    memcpy(accessor_bytes(&b, index_of(attrs, "WEIGHTS_0")) + 16 * 3, &neg, 4);
    const char *w2[] = {"WEIGHTS_0 of vertex 3 is -0.5 (weights are finite and >= 0)", NULL};
    expect_refused(&b, AM_GF_GLTF, AM_ERR_INVALID, w2);
    broken_free(&b);

    broken_init(&b);
    json_object_set_new(b.doc, "extensionsRequired", json_pack("[s]", "KHR_draco_mesh_compression"));
    const char *w3[] = {"extensionsRequired: 'KHR_draco_mesh_compression' is not supported", NULL};
    expect_refused(&b, AM_GF_GLTF, AM_ERR_INVALID, w3);
    json_object_del(b.doc, "extensionsRequired");
    json_object_set_new(json_object_get(b.doc, "asset"), "version", json_string("1.0"));
    const char *w4[] = {"asset.version '1.0': only glTF 2.0 is read (re-export as glTF 2.0)", NULL};
    expect_refused(&b, AM_GF_GLTF_EMBEDDED, AM_ERR_INVALID, w4);
    broken_free(&b);

    char dir[256], path[512], msg[512];
    am_test_tmpdir(dir, sizeof dir);
    snprintf(path, sizeof path, "%s/cut.gltf", dir);
    am_test_write_text(path, "{\"asset\": {\"version\": \"2.0\"},\n \"nodes\": [");
    am_gf_load_error(path, AM_ERR_INVALID, msg, sizeof msg);
    assert_non_null(strstr(msg, "cut.gltf: invalid JSON at line 2"));
    am_gf_remove_tree(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_unreadable_file),
        cmocka_unit_test(test_accessor_view_or_buffer_past_its_end),
        cmocka_unit_test(test_sparse_index_out_of_range),
        cmocka_unit_test(test_nan_or_zero_rotation_in_a_transform),
        cmocka_unit_test(test_bin_path_outside_the_folder),
        cmocka_unit_test(test_texture_not_png_or_jpeg),
        cmocka_unit_test(test_glb_bad_chunk_lengths),
        cmocka_unit_test(test_bad_weights_and_unsupported_files),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
