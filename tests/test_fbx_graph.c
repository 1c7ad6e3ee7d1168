/* The FBX node graph checked before assimp (src/readers/assimp/fbx_graph.h; issue 31 item 3).
 * The smallest reproductions are written here into TMPDIR: levels of 2 Models each linked to
 * both Models above (20 levels: 4 KB of ASCII FBX that assimp expanded to 2^20 nodes and
 * 5.8 GB), as ASCII and as binary FBX 7.4 (32-bit records) and 7.5 (64-bit); Models in a
 * cycle; one Model more than the node limit. Each is refused by the check, naming the Model
 * and the byte offset, and a load or an import of the file fails at once without assimp;
 * the same levels linked as a tree pass, with the counts the file has; every FBX 7.1+ file
 * of Debian's assimp-testmodels and the shared real data passes. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "core/io.h"
#include "readers/assimp/assimp_read.h"
#include "readers/assimp/fbx_graph.h"
#include "readers/scene_load.h"
#include "support/test_support.h"

enum shape { TREE, DOUBLED, CYCLE };

static uint64_t model_id(int level, int k)
{
    return 1000u * (uint64_t)(level + 1) + (uint64_t)k;
}

/* The links of `levels` x 2 Models: TREE, each Model under the one above it; DOUBLED, under
 * both; CYCLE, a tree whose first two Models are also linked to each other (m0_0 under m0_1
 * and m0_1 under m0_0, and neither under the root). Calls link(child, parent). */
static void for_links(enum shape shape, int levels, void (*link)(void *, uint64_t, uint64_t), void *ctx)
{
    for (int l = 0; l < levels; l++)
        for (int k = 0; k < 2; k++) {
            if (l == 0)
                link(ctx, model_id(0, k), shape == CYCLE ? model_id(0, 1 - k) : 0);
            else if (shape == DOUBLED) {
                link(ctx, model_id(l, k), model_id(l - 1, 0));
                link(ctx, model_id(l, k), model_id(l - 1, 1));
            } else
                link(ctx, model_id(l, k), model_id(l - 1, k));
        }
}

/* --- ASCII ---------------------------------------------------------------------------- */

static void ascii_link(void *ctx, uint64_t child, uint64_t parent)
{
    am_buf *b = ctx;
    char line[96];
    snprintf(line, sizeof line, "\tC: \"OO\",%llu,%llu\n", (unsigned long long)child, (unsigned long long)parent);
    assert_int_equal(am_buf_append(b, line, strlen(line), NULL), AM_OK);
}

static void ascii_fbx(enum shape shape, int levels, am_buf *b)
{
    static const char head[] = "; FBX 7.4.0 project file\nFBXHeaderExtension:  {\n\tFBXHeaderVersion: 1003\n"
                               "\tFBXVersion: 7400\n}\nGlobalSettings:  {\n\tVersion: 1000\n}\nObjects:  {\n";
    assert_int_equal(am_buf_append(b, head, strlen(head), NULL), AM_OK);
    char line[160];
    for (int l = 0; l < levels; l++)
        for (int k = 0; k < 2; k++) {
            snprintf(line, sizeof line,
                     "\tModel: %llu, \"Model::m%d_%d\", \"Null\" {\n\t\tVersion: 232 ; a \"comment\" {\n\t}\n",
                     (unsigned long long)model_id(l, k), l, k);
            assert_int_equal(am_buf_append(b, line, strlen(line), NULL), AM_OK);
        }
    static const char mid[] = "}\nConnections:  {\n\t; Model::m0_0, Model::RootNode\n";
    assert_int_equal(am_buf_append(b, mid, strlen(mid), NULL), AM_OK);
    for_links(shape, levels, ascii_link, b);
    /* a property link and a property-property link, which the node walk never follows */
    snprintf(line, sizeof line, "\tC: \"OP\",%llu,%llu, \"Lcl\"\n\tC: \"PP\",%llu,\"a\",%llu,\"b\"\n}\n",
             (unsigned long long)model_id(levels - 1, 0), (unsigned long long)model_id(0, 1),
             (unsigned long long)model_id(levels - 1, 1), (unsigned long long)model_id(0, 0));
    assert_int_equal(am_buf_append(b, line, strlen(line), NULL), AM_OK);
}

/* --- binary: node records (end offset, property count, property bytes, name) ---------------- */

typedef struct bin {
    am_buf b;
    bool wide; /* 7500 and newer: 64-bit record fields */
} bin;

static void put(bin *w, const void *p, size_t n)
{
    assert_int_equal(am_buf_append(&w->b, p, n, NULL), AM_OK);
}

static void put_le(bin *w, uint64_t v, int bytes)
{
    uint8_t x[8];
    for (int i = 0; i < bytes; i++)
        x[i] = (uint8_t)(v >> (8 * i));
    put(w, x, (size_t)bytes);
}

/* Open a record: returns where its header is, to close it. */
static size_t open_record(bin *w, const char *name, int props)
{
    size_t at = w->b.size;
    int f = w->wide ? 8 : 4;
    put_le(w, 0, f);
    put_le(w, (uint64_t)props, f);
    put_le(w, 0, f);
    uint8_t n = (uint8_t)strlen(name);
    put(w, &n, 1);
    put(w, name, n);
    return at;
}

static void prop_long(bin *w, uint64_t v)
{
    put(w, "L", 1);
    put_le(w, v, 8);
}

static void prop_string(bin *w, const void *s, size_t n)
{
    put(w, "S", 1);
    put_le(w, n, 4);
    put(w, s, n);
}

static void null_record(bin *w)
{
    static const uint8_t zeros[25] = {0};
    put(w, zeros, w->wide ? 25 : 13);
}

/* Close: the property bytes end where the children start (props_end), the record here. */
static void close_record(bin *w, size_t at, size_t props_end, bool children)
{
    if (children)
        null_record(w);
    int f = w->wide ? 8 : 4;
    size_t name_end = at + 3 * (size_t)f + 1 + w->b.data[at + 3 * (size_t)f];
    for (int i = 0; i < f; i++) {
        w->b.data[at + (size_t)i] = (uint8_t)((uint64_t)w->b.size >> (8 * i));
        w->b.data[at + 2 * (size_t)f + (size_t)i] = (uint8_t)((uint64_t)(props_end - name_end) >> (8 * i));
    }
}

static void binary_link(void *ctx, uint64_t child, uint64_t parent)
{
    bin *w = ctx;
    size_t at = open_record(w, "C", 3);
    prop_string(w, "OO", 2);
    prop_long(w, child);
    prop_long(w, parent);
    close_record(w, at, w->b.size, false);
}

/* With array_count > 0, a Geometry first whose Vertices array of doubles declares that
 * many values, deflated, with no data stored. */
static void binary_fbx_with_array(enum shape shape, int levels, unsigned version, uint32_t array_count, bin *w)
{
    memset(w, 0, sizeof *w);
    w->wide = version >= 7500;
    put(w, "Kaydara FBX Binary  \0\x1a\0", 23);
    put_le(w, version, 4);
    size_t objects = open_record(w, "Objects", 0);
    if (array_count) {
        size_t geo = open_record(w, "Geometry", 1);
        prop_long(w, 99);
        size_t props_end = w->b.size;
        size_t v = open_record(w, "Vertices", 1);
        put(w, "d", 1);
        put_le(w, array_count, 4);
        put_le(w, 1, 4);
        put_le(w, 0, 4);
        close_record(w, v, w->b.size, false);
        close_record(w, geo, props_end, true);
    }
    for (int l = 0; l < levels; l++)
        for (int k = 0; k < 2; k++) {
            char name[32];
            int n = snprintf(name, sizeof name, "m%d_%d", l, k);
            memcpy(name + n, "\0\1Model", 7);
            size_t at = open_record(w, "Model", 3);
            prop_long(w, model_id(l, k));
            prop_string(w, name, (size_t)n + 7);
            prop_string(w, "Null", 4);
            size_t props_end = w->b.size;
            size_t child = open_record(w, "Version", 1);
            put(w, "I", 1);
            put_le(w, 232, 4);
            close_record(w, child, w->b.size, false);
            close_record(w, at, props_end, true);
        }
    close_record(w, objects, objects + (w->wide ? 25 : 13) + 7, true);
    size_t conns = open_record(w, "Connections", 0);
    for_links(shape, levels, binary_link, w);
    close_record(w, conns, conns + (w->wide ? 25 : 13) + 11, true);
    null_record(w);
}

static void binary_fbx(enum shape shape, int levels, unsigned version, bin *w)
{
    binary_fbx_with_array(shape, levels, version, 0, w);
}

/* --- the checks ------------------------------------------------------------------------- */

static void assert_refused(const uint8_t *d, size_t n, const char *want)
{
    am_error err = {0};
    am_fbx_graph_stats st;
    assert_int_equal(am_fbx_check_graph(d, n, &st, &err), AM_ERR_INVALID);
    if (!strstr(err.msg, want))
        fail_msg("'%s' not in '%s'", want, err.msg);
    assert_true(err.offset < n);
}

static void assert_tree(const uint8_t *d, size_t n, int levels)
{
    am_error err = {0};
    am_fbx_graph_stats st;
    if (am_fbx_check_graph(d, n, &st, &err))
        fail_msg("%s (at byte %zu)", err.msg, err.offset);
    assert_int_equal(st.models, 2 * (size_t)levels);
    assert_int_equal(st.links, 2 * (size_t)levels);
    assert_int_equal(st.roots, 2);
}

static void test_ascii_graphs(void **state)
{
    (void)state;
    am_buf b = {0};
    ascii_fbx(DOUBLED, 20, &b);
    assert_in_range(b.size, 3000, 9000);
    assert_refused(b.data, b.size,
                   "Model 'm1_0' (id 2000) is linked to two parents (ids 1000 and 1001): FBX nodes form a tree");
    /* the offset is the second link's */
    am_error err = {0};
    am_fbx_check_graph(b.data, b.size, NULL, &err);
    assert_memory_equal(b.data + err.offset, "C: \"OO\",2000,1001", 17);
    am_buf_free(&b);

    ascii_fbx(CYCLE, 3, &b);
    assert_refused(b.data, b.size, "Models linked in a cycle: Model 'm0_");
    am_buf_free(&b);

    ascii_fbx(TREE, 20, &b);
    assert_tree(b.data, b.size, 20);
    /* a brace too many, a string left open */
    assert_int_equal(am_buf_append(&b, "}\n", 2, NULL), AM_OK);
    assert_refused(b.data, b.size, "a closing brace without its opening one");
    am_buf_free(&b);
    static const char open_string[] = "Objects:  {\n\tModel: 1, \"Model::a, \"Null\" {\n}\n}\n";
    assert_refused((const uint8_t *)open_string, strlen(open_string), "a string without its closing quote");
}

static void test_binary_graphs(void **state)
{
    (void)state;
    static const unsigned versions[] = {7400, 7500};
    for (size_t v = 0; v < 2; v++) {
        bin w;
        binary_fbx(DOUBLED, 20, versions[v], &w);
        assert_in_range(w.b.size, 2000, 12000);
        assert_refused(w.b.data, w.b.size, "Model 'm1_0' (id 2000) is linked to two parents (ids 1000 and 1001)");
        am_buf_free(&w.b);
        binary_fbx(CYCLE, 3, versions[v], &w);
        assert_refused(w.b.data, w.b.size, "Models linked in a cycle");
        am_buf_free(&w.b);
        binary_fbx(TREE, 20, versions[v], &w);
        assert_tree(w.b.data, w.b.size, 20);
        /* a record that ends past the file (the first record's end offset is at byte 27) */
        w.b.data[27 + 2] = 0x7f;
        assert_refused(w.b.data, w.b.size, "corrupt binary FBX: a record's end offset");
        am_buf_free(&w.b);
    }
}

/* Nesting and inflated arrays: every record's properties are read, before assimp would
 * recurse into the records or inflate the arrays. */
static void test_binary_nesting_and_arrays(void **state)
{
    (void)state;
    bin w;
    memset(&w, 0, sizeof w);
    put(&w, "Kaydara FBX Binary  \0\x1a\0", 23);
    put_le(&w, 7400, 4);
    size_t open_at[300];
    for (int i = 0; i < 300; i++)
        open_at[i] = open_record(&w, "N", 0);
    for (int i = 299; i >= 0; i--)
        close_record(&w, open_at[i], open_at[i] + 13 + 1, i < 299);
    null_record(&w);
    assert_refused(w.b.data, w.b.size, "records nested deeper than 256 levels");
    am_buf_free(&w.b);

    /* a Geometry whose deflated vertex array declares 3 x 100,000,000 doubles (2.2 GiB):
     * 12 header bytes and no data stored */
    binary_fbx_with_array(TREE, 2, 7400, 300000000, &w);
    assert_refused(w.b.data, w.b.size, "the arrays declare more than 2048 MiB of values once inflated");
    am_buf_free(&w.b);

    /* a tree with a small array: counted */
    binary_fbx_with_array(TREE, 2, 7500, 24, &w);
    am_fbx_graph_stats st;
    am_error err = {0};
    assert_int_equal(am_fbx_check_graph(w.b.data, w.b.size, &st, &err), AM_OK);
    assert_int_equal(st.array_bytes, 24 * 8);
    assert_int_equal(st.models, 4);
    am_buf_free(&w.b);
}

static void test_too_many_models(void **state)
{
    (void)state;
    am_buf b = {0};
    static const char head[] = "; FBX 7.4.0 project file\nFBXHeaderExtension:  {\n\tFBXVersion: 7400\n}\nObjects:  {\n";
    assert_int_equal(am_buf_append(&b, head, strlen(head), NULL), AM_OK);
    char line[64];
    for (unsigned i = 1; i <= AM_ASSIMP_MAX_NODES + 1; i++) {
        int n = snprintf(line, sizeof line, "Model: %u, \"Model::m\", \"Null\" {\n}\n", i);
        assert_int_equal(am_buf_append(&b, line, (size_t)n, NULL), AM_OK);
    }
    assert_int_equal(am_buf_append(&b, "}\n", 2, NULL), AM_OK);
    assert_refused(b.data, b.size, "more than 65536 Model objects");
    am_buf_free(&b);
}

/* The load and the import: refused before assimp, the file and the section named. */
static void test_load_and_import_refuse_at_once(void **state)
{
    (void)state;
    char dir[256], path[300], skel[512], out[8192];
    am_test_tmpdir(dir, sizeof dir);
    snprintf(path, sizeof path, "%s/levels.fbx", dir);
    am_buf b = {0};
    ascii_fbx(DOUBLED, 20, &b);
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(b.data, 1, b.size, f), b.size);
    assert_int_equal(fclose(f), 0);
    am_buf_free(&b);
    am_scene s;
    am_error err;
    assert_int_equal(am_scene_load(path, &s, &err), AM_ERR_INVALID);
    assert_non_null(strstr(err.msg, "is linked to two parents"));
    char want_where[320];
    snprintf(want_where, sizeof want_where, "%s: Connections", path);
    assert_string_equal(err.where, want_where);
    am_test_shared_path(skel, sizeof skel, "viewer/avatar_skeleton.xml");
    int rc = am_test_run_cli(out, sizeof out, "import '%s' --out '%s/out' --skeleton '%s'", path, dir, skel);
    assert_int_equal(rc, 1);
    if (!strstr(out, "levels.fbx: Connections: Model 'm1_0' (id 2000) is linked to two parents"))
        fail_msg("%s", out);
    assert_int_equal(am_test_count_entries(dir), 1); /* nothing written */
    am_test_rmtree(dir);
}

/* Real files: no false alarm. */
static void check_real(const char *path, size_t *checked)
{
    size_t n;
    uint8_t *d;
    if (am_read_file(path, &d, &n, NULL))
        return;
    unsigned version;
    am_status got = AM_OK;
    am_error err = {0};
    am_fbx_graph_stats st = {0};
    bool fbx7 = am_fbx_version(d, n, &version, NULL) == AM_OK && version >= 7100;
    if (fbx7)
        got = am_fbx_check_graph(d, n, &st, &err);
    free(d);
    if (!fbx7)
        return;
    /* transparentTest.fbx has spaces where its header's zero bytes belong: assimp refuses
     * it too ("block offset is out of range") */
    if (strstr(path, "/transparentTest.fbx")) {
        assert_int_equal(got, AM_ERR_INVALID);
        assert_non_null(strstr(err.msg, "corrupt binary FBX: a record's end offset"));
        return;
    }
    if (got)
        fail_msg("%s: %s (at byte %zu)", path, err.msg, err.offset);
    print_message("%s: %zu models, %zu links, %zu under the root, %llu array bytes\n", path, st.models, st.links,
                  st.roots, (unsigned long long)st.array_bytes);
    assert_true(st.models > 0 && st.roots > 0);
    (*checked)++;
}

static void test_real_files_pass(void **state)
{
    (void)state;
    size_t checked = 0;
    const char *dirs[] = {"/usr/share/assimp/models/FBX", "/usr/share/assimp/models-nonbsd/FBX"};
    for (size_t k = 0; k < 2; k++) {
        DIR *dir = opendir(dirs[k]);
        if (!dir)
            continue;
        struct dirent *e;
        while ((e = readdir(dir))) {
            size_t len = strlen(e->d_name);
            if (len > 4 && strcasecmp(e->d_name + len - 4, ".fbx") == 0) {
                char path[600];
                snprintf(path, sizeof path, "%s/%s", dirs[k], e->d_name);
                check_real(path, &checked);
            }
        }
        closedir(dir);
    }
    static const char *shared[] = {"data/realdata/rpm_avatar.fbx", "data/realdata/Walking.fbx",
                                   "data/realdata/Idle.fbx"};
    for (size_t k = 0; k < 3; k++) {
        char p[512];
        check_real(am_test_shared_path(p, sizeof p, shared[k]), &checked);
    }
    if (!checked)
        skip();
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ascii_graphs),
        cmocka_unit_test(test_binary_graphs),
        cmocka_unit_test(test_binary_nesting_and_arrays),
        cmocka_unit_test(test_too_many_models),
        cmocka_unit_test(test_load_and_import_refuse_at_once),
        cmocka_unit_test(test_real_files_pass),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
