/* glTF accessors, primitives and scenes read from small files built here byte by byte:
 * every component type with and without `normalized` (values against glTF 2.0 3.11's
 * formulas written out here), byteStride with padding, matrix column padding, sparse
 * accessors (over a bufferView and over zeros), strips and fans with glTF's winding,
 * skipped points/lines, and which nodes a scene holds. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support/gltf_fixtures.h"
#include "readers/gltf/gltf_internal.h"
#include "support/test_support.h"
#include "core/base64.h"

typedef struct doc {
    json_t *root, *views, *accessors;
    am_buf bin;
} doc;

static void doc_init(doc *d)
{
    memset(d, 0, sizeof *d);
    d->root = json_pack("{s:{s:s}}", "asset", "version", "2.0");
    d->views = json_array();
    d->accessors = json_array();
}

/* Append bytes as a bufferView (4-byte aligned); returns its index. */
static int view(doc *d, const void *data, size_t size, size_t stride)
{
    while (d->bin.size % 4)
        am_buf_append(&d->bin, "\0", 1, NULL);
    json_t *v = json_pack("{s:i, s:I, s:I}", "buffer", 0, "byteOffset", (json_int_t)d->bin.size, "byteLength",
                          (json_int_t)size);
    if (stride)
        json_object_set_new(v, "byteStride", json_integer((json_int_t)stride));
    am_buf_append(&d->bin, data, size, NULL);
    json_array_append_new(d->views, v);
    return (int)json_array_size(d->views) - 1;
}

static int accessor(doc *d, int view_index, int ctype, size_t count, const char *type, bool normalized)
{
    json_t *a = json_pack("{s:i, s:I, s:s}", "componentType", ctype, "count", (json_int_t)count, "type", type);
    if (view_index >= 0)
        json_object_set_new(a, "bufferView", json_integer(view_index));
    if (normalized)
        json_object_set_new(a, "normalized", json_true());
    json_array_append_new(d->accessors, a);
    return (int)json_array_size(d->accessors) - 1;
}

/* Finish: one mesh of the given primitives on one node; saved as dir/name.gltf + .bin. */
static void doc_save(doc *d, json_t *primitives, const char *dir, const char *name, char *path, size_t size)
{
    while (d->bin.size % 4)
        am_buf_append(&d->bin, "\0", 1, NULL);
    json_object_set_new(d->root, "bufferViews", d->views);
    json_object_set_new(d->root, "accessors", d->accessors);
    json_object_set_new(d->root, "buffers", json_pack("[{s:I}]", "byteLength", (json_int_t)d->bin.size));
    if (primitives) {
        json_object_set_new(d->root, "meshes", json_pack("[{s:o}]", "primitives", primitives));
        json_object_set_new(d->root, "nodes", json_pack("[{s:s, s:i}]", "name", "holder", "mesh", 0));
    }
    am_gf_save(d->root, &d->bin, AM_GF_GLTF, dir, name, path, size);
    json_decref(d->root);
    am_buf_free(&d->bin);
}

static void put16(uint8_t *p, int v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)((unsigned)v >> 8);
}

/* glTF 2.0 3.11, written out. */
static double dequantise(int ctype, long long c, bool normalized)
{
    if (!normalized)
        return (double)c;
    switch (ctype) {
    case 5120: return fmax(c / 127.0, -1.0);
    case 5121: return c / 255.0;
    case 5122: return fmax(c / 32767.0, -1.0);
    default: return c / 65535.0;
    }
}

static void test_every_component_type_and_normalized(void **state)
{
    (void)state;
    char dir[256], path[1024];
    am_test_tmpdir(dir, sizeof dir);
    static const long long raw[4][9] = {
        {-128, -127, -1, 0, 1, 64, 127, -64, 5},                      /* BYTE */
        {0, 1, 2, 127, 128, 200, 254, 255, 3},                        /* UNSIGNED_BYTE */
        {-32768, -32767, -1, 0, 1, 1000, 32767, -1000, 7},            /* SHORT */
        {0, 1, 65535, 32768, 32767, 12345, 2, 60000, 9},              /* UNSIGNED_SHORT */
    };
    static const int types[4] = {5120, 5121, 5122, 5123};
    doc d;
    doc_init(&d);
    json_t *prims = json_array();
    /* 8 variants (4 types x normalized or not), VEC3 elements padded to 4 or 8 bytes
     * with byteStride, padding bytes 0xEE that must never be read. */
    for (int t = 0; t < 4; t++)
        for (int n = 0; n < 2; n++) {
            size_t cs = types[t] <= 5121 ? 1 : 2, stride = cs == 1 ? 4 : 8;
            uint8_t buf[24];
            memset(buf, 0xEE, sizeof buf);
            for (int e = 0; e < 3; e++)
                for (int k = 0; k < 3; k++) {
                    long long v = raw[t][3 * e + k];
                    if (cs == 1)
                        buf[stride * (size_t)e + (size_t)k] = (uint8_t)v;
                    else
                        put16(&buf[stride * (size_t)e + 2 * (size_t)k], (int)v);
                }
            int a = accessor(&d, view(&d, buf, sizeof buf, stride), types[t], 3, "VEC3", n == 1);
            json_array_append_new(prims, json_pack("{s:{s:i}}", "attributes", "POSITION", a));
        }
    /* UNSIGNED_INT and FLOAT, tightly packed */
    uint32_t u[9] = {0, 1, 2, 70000, 4000000000u, 5, 6, 7, 8};
    float fl[9] = {-1.5f, 0.25f, 3e5f, 0, -0.0f, 1e-7f, 2, 3, 4};
    json_array_append_new(prims, json_pack("{s:{s:i}}", "attributes", "POSITION",
                                           accessor(&d, view(&d, u, sizeof u, 0), 5125, 3, "VEC3", false)));
    json_array_append_new(prims, json_pack("{s:{s:i}}", "attributes", "POSITION",
                                           accessor(&d, view(&d, fl, sizeof fl, 0), 5126, 3, "VEC3", false)));
    json_object_set_new(d.root, "extensionsUsed", json_pack("[s]", "KHR_mesh_quantization"));
    json_object_set_new(d.root, "extensionsRequired", json_pack("[s]", "KHR_mesh_quantization"));
    doc_save(&d, prims, dir, "types", path, sizeof path);

    /* 4e9 (an UNSIGNED_INT past INT32_MAX) is beyond the scene's coordinate bound
     * (AM_SCENE_MAX_COORD, issue 31): a loaded scene refuses it, naming the vertex; the
     * reader alone still decodes every value as written */
    char msg[512];
    am_gf_load_error(path, AM_ERR_INVALID, msg, sizeof msg);
    assert_non_null(strstr(msg, "vertex 25"));
    size_t size = 0;
    uint8_t *bytes = am_test_slurp(path, &size);
    assert_non_null(bytes);
    am_scene s;
    memset(&s, 0, sizeof s);
    am_error err;
    am_error_clear(&err);
    assert_int_equal(am_gltf_read(bytes, size, path, dir, &s, &err), AM_OK);
    free(bytes);
    assert_int_equal(s.mesh_count, 1);
    assert_int_equal(s.meshes[0].vertex_count, 30);
    assert_int_equal(s.meshes[0].face_count, 10);
    const float *p = s.meshes[0].positions;
    for (int t = 0; t < 4; t++)
        for (int n = 0; n < 2; n++)
            for (int k = 0; k < 9; k++)
                assert_near(p[9 * (2 * t + n) + k], (float)dequantise(types[t], raw[t][k], n == 1), 0);
    for (int k = 0; k < 9; k++) {
        assert_near(p[72 + k], (float)u[k], 0);
        assert_near(p[81 + k], fl[k], 0);
    }
    /* non-indexed triangles: each primitive one face (0, 1, 2) offset by its base */
    for (int f = 0; f < 10; f++) {
        assert_int_equal(s.meshes[0].faces[f].index_count, 3);
        assert_int_equal(s.meshes[0].faces[f].indices[0], 3 * f);
        assert_int_equal(s.meshes[0].faces[f].material, -1);
    }
    assert_null(s.meshes[0].influence_start);
    am_scene_free(&s);
    am_gf_remove_tree(dir);
}

static void test_sparse_over_a_view_and_over_zeros(void **state)
{
    (void)state;
    char dir[256], path[1024];
    am_test_tmpdir(dir, sizeof dir);
    doc d;
    doc_init(&d);
    float base[9] = {1, 1, 1, 2, 2, 2, 3, 3, 3};
    uint8_t idx8[2] = {0, 2};
    float vals[6] = {5, 6, 7, 8, 9, 10};
    uint16_t idx16[1] = {1};
    float one[3] = {-4, -5, -6};
    int vb = view(&d, base, sizeof base, 0), vi = view(&d, idx8, 2, 0), vv = view(&d, vals, sizeof vals, 0);
    int vi2 = view(&d, idx16, 2, 0), vv2 = view(&d, one, sizeof one, 0);
    int a = accessor(&d, vb, 5126, 3, "VEC3", false);
    json_object_set_new(json_array_get(d.accessors, (size_t)a), "sparse",
                        json_pack("{s:i, s:{s:i, s:i}, s:{s:i}}", "count", 2, "indices", "bufferView", vi,
                                  "componentType", 5121, "values", "bufferView", vv));
    int z = accessor(&d, -1, 5126, 3, "VEC3", false);
    json_object_set_new(json_array_get(d.accessors, (size_t)z), "sparse",
                        json_pack("{s:i, s:{s:i, s:i}, s:{s:i}}", "count", 1, "indices", "bufferView", vi2,
                                  "componentType", 5123, "values", "bufferView", vv2));
    json_t *prims = json_pack("[{s:{s:i}}, {s:{s:i}}]", "attributes", "POSITION", a, "attributes", "POSITION", z);
    doc_save(&d, prims, dir, "sparse", path, sizeof path);
    am_scene s;
    am_gf_load(path, &s);
    const float want[18] = {5, 6, 7, 2, 2, 2, 8, 9, 10, /* base with elements 0 and 2 replaced */
                            0, 0, 0, -4, -5, -6, 0, 0, 0};
    for (int k = 0; k < 18; k++)
        assert_near(s.meshes[0].positions[k], want[k], 0);
    am_scene_free(&s);
    am_gf_remove_tree(dir);
}

/* Matrix accessors pad each column to 4 bytes (glTF 2.0 3.6.2.4): read through the
 * decoder directly, with 0xEE in every padding byte. */
static void test_matrix_columns_are_padded_to_four_bytes(void **state)
{
    (void)state;
    /* MAT2 of BYTE: columns of 2 bytes + 2 padding; MAT3 of UNSIGNED_BYTE (normalized):
     * 3 + 1; MAT3 of SHORT: 6 + 2. */
    uint8_t buf[8 + 12 + 24];
    memset(buf, 0xEE, sizeof buf);
    int8_t m2[4] = {1, -2, 3, -4};
    for (int c = 0; c < 2; c++)
        for (int r = 0; r < 2; r++)
            buf[4 * c + r] = (uint8_t)m2[2 * c + r];
    for (int c = 0; c < 3; c++)
        for (int r = 0; r < 3; r++)
            buf[8 + 4 * c + r] = (uint8_t)(10 * c + r);
    for (int c = 0; c < 3; c++)
        for (int r = 0; r < 3; r++)
            put16(&buf[20 + 8 * c + 2 * r], -1000 * c - r);
    char *b64;
    assert_int_equal(am_base64_encode(buf, sizeof buf, &b64, NULL), AM_OK);
    char uri[256];
    snprintf(uri, sizeof uri, "data:application/octet-stream;base64,%s", b64);
    free(b64);
    json_t *root = json_pack(
        "{s:{s:s}, s:[{s:i, s:s}], s:[{s:i,s:i,s:i}, {s:i,s:i,s:i}, {s:i,s:i,s:i}],"
        " s:[{s:i,s:i,s:i,s:s}, {s:i,s:i,s:i,s:s,s:b}, {s:i,s:i,s:i,s:s}]}",
        "asset", "version", "2.0", "buffers", "byteLength", (int)sizeof buf, "uri", uri, "bufferViews", "buffer", 0,
        "byteOffset", 0, "byteLength", 8, "buffer", 0, "byteOffset", 8, "byteLength", 12, "buffer", 0, "byteOffset",
        20, "byteLength", 24, "accessors", "bufferView", 0, "componentType", 5120, "count", 1, "type", "MAT2",
        "bufferView", 1, "componentType", 5121, "count", 1, "type", "MAT3", "normalized", 1, "bufferView", 2,
        "componentType", 5122, "count", 1, "type", "MAT3");
    assert_non_null(root);
    am_scene scene = {0};
    am_error err = {0};
    am_gltf_ctx c = {.source = "mats.gltf", .base_dir = "/nonexistent", .err = &err, .scene = &scene, .root = root};
    am_gltf_accessor info;
    float *v;
    assert_int_equal(am_gltf_read_floats(&c, 0, "MAT2", GLTF_MAT2, GLTF_C_ANY, &info, &v), AM_OK);
    assert_int_equal(info.comps, 4);
    for (int k = 0; k < 4; k++)
        assert_near(v[k], m2[k], 0);
    free(v);
    assert_int_equal(am_gltf_read_floats(&c, 1, "MAT3", GLTF_MAT3, GLTF_C_ANY, &info, &v), AM_OK);
    for (int col = 0; col < 3; col++)
        for (int r = 0; r < 3; r++)
            assert_near(v[3 * col + r], (10 * col + r) / 255.0f, 1e-7);
    free(v);
    assert_int_equal(am_gltf_read_floats(&c, 2, "MAT3", GLTF_MAT3, GLTF_C_ANY, &info, &v), AM_OK);
    for (int col = 0; col < 3; col++)
        for (int r = 0; r < 3; r++)
            assert_near(v[3 * col + r], -1000 * col - r, 0);
    free(v);
    /* the type masks hold: a MAT3 asked for as a VEC3 is refused, naming the accessor */
    assert_int_equal(am_gltf_read_floats(&c, 2, "POSITION", GLTF_VEC3, GLTF_C_ANY, &info, &v), AM_ERR_INVALID);
    assert_null(v);
    assert_non_null(strstr(err.msg, "accessors[2] (POSITION)"));
    am_gltf_buffers_free(&c);
    json_decref(root);
}

/* Strips: triangle i is (i, i+1, i+2), odd ones (i, i+2, i+1); fans (i+1, i+2, 0)
 * (glTF 2.0 3.7.2.1). POINTS and LINES primitives are skipped, with a note. */
static void test_strips_fans_and_skipped_primitives(void **state)
{
    (void)state;
    char dir[256], path[1024];
    am_test_tmpdir(dir, sizeof dir);
    doc d;
    doc_init(&d);
    float quad[12] = {0, 0, 0, 1, 0, 0, 0, 1, 0, 1, 1, 0};
    uint16_t order[4] = {0, 1, 2, 3};
    uint8_t degenerate[5] = {0, 1, 2, 2, 3};
    int pos = accessor(&d, view(&d, quad, sizeof quad, 0), 5126, 4, "VEC3", false);
    int idx = accessor(&d, view(&d, order, sizeof order, 0), 5123, 4, "SCALAR", false);
    int deg = accessor(&d, view(&d, degenerate, sizeof degenerate, 0), 5121, 5, "SCALAR", false);
    json_t *prims = json_pack("[{s:{s:i}, s:i, s:i}, {s:{s:i}, s:i, s:i}, {s:{s:i}, s:i}, {s:{s:i}, s:i},"
                              " {s:{s:i}, s:i, s:i}]",
                              "attributes", "POSITION", pos, "indices", idx, "mode", 5, "attributes", "POSITION", pos,
                              "indices", idx, "mode", 6, "attributes", "POSITION", pos, "mode", 0, "attributes",
                              "POSITION", pos, "mode", 1, "attributes", "POSITION", pos, "indices", deg, "mode", 5);
    doc_save(&d, prims, dir, "strips", path, sizeof path);
    am_scene s;
    am_gf_load(path, &s);
    const am_scene_mesh *m = &s.meshes[0];
    assert_int_equal(m->vertex_count, 12); /* three triangle primitives of 4 vertices */
    assert_int_equal(m->face_count, 3);
    const uint32_t strip[6] = {0, 1, 2, 1, 3, 2}, fan[6] = {5, 6, 4, 6, 7, 4}, deg_strip[3] = {8, 9, 10};
    assert_int_equal(m->faces[0].index_count, 6);
    assert_int_equal(m->faces[1].index_count, 6);
    assert_int_equal(m->faces[2].index_count, 3); /* (1, 2, 2) and (2, 2, 3) dropped */
    for (int i = 0; i < 6; i++) {
        assert_int_equal(m->faces[0].indices[i], strip[i]);
        assert_int_equal(m->faces[1].indices[i], fan[i]);
    }
    for (int i = 0; i < 3; i++)
        assert_int_equal(m->faces[2].indices[i], deg_strip[i]);
    bool points = false, lines = false, dropped = false;
    for (size_t n = 0; n < s.note_count; n++) {
        points = points || strstr(am_str(&s.notes[n]), "POINTS primitive skipped");
        lines = lines || strstr(am_str(&s.notes[n]), "LINES primitive skipped");
        dropped = dropped || strstr(am_str(&s.notes[n]), "2 degenerate");
    }
    assert_true(points && lines && dropped);
    am_scene_free(&s);
    am_gf_remove_tree(dir);
}

static void nodes_file(const char *dir, const char *name, const char *json_tail, char *path, size_t size)
{
    snprintf(path, size, "%s/%s.gltf", dir, name);
    char text[2048];
    snprintf(text, sizeof text, "{\"asset\": {\"version\": \"2.0\"}, %s}", json_tail);
    am_test_write_text(path, text);
}

static bool has_note(const am_scene *s, const char *text)
{
    for (size_t n = 0; n < s->note_count; n++)
        if (strstr(am_str(&s->notes[n]), text))
            return true;
    return false;
}

static void test_scene_selection_and_node_order(void **state)
{
    (void)state;
    char dir[256], path[1024], msg[512];
    am_test_tmpdir(dir, sizeof dir);
    const char *nodes = "\"nodes\": [{\"name\": \"a\", \"children\": [3]}, {\"name\": \"b\", \"children\": [2]},"
                        " {\"name\": \"c\"}, {\"name\": \"d\", \"translation\": [1, 2, 3]}]";
    char tail[1024];
    /* the default scene */
    snprintf(tail, sizeof tail, "%s, \"scenes\": [{\"nodes\": [0]}, {\"nodes\": [1]}], \"scene\": 1", nodes);
    nodes_file(dir, "default", tail, path, sizeof path);
    am_scene s;
    am_gf_load(path, &s);
    assert_int_equal(s.node_count, 2);
    assert_string_equal(s.nodes[0].name, "b");
    assert_string_equal(s.nodes[1].name, "c");
    assert_int_equal(s.nodes[1].parent, 0);
    assert_true(has_note(&s, "2 of 4 nodes are not in the scene"));
    am_scene_free(&s);
    /* no default: scene 0, said in a note; parents come before children */
    snprintf(tail, sizeof tail, "%s, \"scenes\": [{\"nodes\": [0]}, {\"nodes\": [1]}]", nodes);
    nodes_file(dir, "first", tail, path, sizeof path);
    am_gf_load(path, &s);
    assert_int_equal(s.node_count, 2);
    assert_string_equal(s.nodes[0].name, "a");
    assert_string_equal(s.nodes[1].name, "d");
    assert_near(s.nodes[1].world.m[13], 2, 0);
    assert_true(has_note(&s, "no default 'scene': scene 0 of 2"));
    am_scene_free(&s);
    /* no scenes: every root */
    nodes_file(dir, "roots", nodes, path, sizeof path);
    am_gf_load(path, &s);
    assert_int_equal(s.node_count, 4);
    for (size_t i = 0; i < 4; i++)
        assert_lt(s.nodes[i].parent, (int)i);
    assert_true(has_note(&s, "no scenes: every root node (2) read"));
    am_scene_free(&s);
    /* refused: two parents, a node its own child, a scene root that is a child */
    nodes_file(dir, "two", "\"nodes\": [{\"children\": [2]}, {\"children\": [2]}, {}]", path, sizeof path);
    am_gf_load_error(path, AM_ERR_INVALID, msg, sizeof msg);
    assert_non_null(strstr(msg, "nodes[2] is a child of both nodes[0] and nodes[1]"));
    assert_non_null(strstr(msg, "two.gltf"));
    nodes_file(dir, "self", "\"nodes\": [{\"children\": [0]}]", path, sizeof path);
    am_gf_load_error(path, AM_ERR_INVALID, msg, sizeof msg);
    assert_non_null(strstr(msg, "nodes[0].children: the node lists itself"));
    nodes_file(dir, "cycle", "\"nodes\": [{\"children\": [1]}, {\"children\": [0]}], \"scenes\": [{\"nodes\": [0]}]",
               path, sizeof path);
    am_gf_load_error(path, AM_ERR_INVALID, msg, sizeof msg);
    assert_non_null(strstr(msg, "scenes[0].nodes[0]: node 0 is a child of node 1, not a root"));
    am_gf_remove_tree(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_component_type_and_normalized),
        cmocka_unit_test(test_sparse_over_a_view_and_over_zeros),
        cmocka_unit_test(test_matrix_columns_are_padded_to_four_bytes),
        cmocka_unit_test(test_strips_fans_and_skipped_primitives),
        cmocka_unit_test(test_scene_selection_and_node_order),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
