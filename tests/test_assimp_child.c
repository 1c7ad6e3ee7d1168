/* assimp in a child process (src/readers/assimp/assimp_child.h). The crashers of issue 19 item 7
 * are built here from Debian's assimp-testmodels (a deep ASCII FBX, huesitos.fbx with one
 * cluster index changed, SimpleCube.md5mesh with a weight index past the end, a deeply
 * nested .x): each kills assimp, and the load fails with AM_ERR_INVALID naming the file (the
 * CLI exits 1 saying so); huesitos.fbx with a node connected to itself, which killed it too,
 * is now refused before assimp runs (fbx_graph.h). Good files
 * (rpm_avatar.fbx, huesitos.fbx, animation_with_skeleton.fbx) load through the child into
 * exactly the scene the in-process reader gives, field for field; Walking.fbx fails with
 * exactly the same error. The runner itself: a child killed by a signal, by its CPU limit,
 * an exit without an answer, an error passed through unchanged. */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/io.h"
#include "readers/assimp/assimp_child.h"
#include "readers/scene_load.h"
#include "support/scene_compare.h"
#include "support/test_support.h"

#define MODELS "/usr/share/assimp/models/"
#define HUESITOS MODELS "FBX/huesitos.fbx"
#define SKELETON_FBX MODELS "FBX/animation_with_skeleton.fbx"
#define SIMPLE_CUBE MODELS "MD5/SimpleCube.md5mesh"

static bool exists(const char *path)
{
    return access(path, R_OK) == 0;
}

static void write_bytes(const char *path, const void *data, size_t n)
{
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(data, 1, n, f), n);
    assert_int_equal(fclose(f), 0);
}

/* `open` lines, then as many closing lines, between a head and a tail. */
static void write_nested(const char *path, const char *head, const char *open, const char *close, int depth)
{
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    fputs(head, f);
    for (int i = 0; i < depth; i++)
        fputs(open, f);
    for (int i = 0; i < depth; i++)
        fputs(close, f);
    assert_int_equal(fclose(f), 0);
}

static size_t find(const uint8_t *d, size_t n, const void *what, size_t len, size_t from)
{
    for (size_t i = from; i + len <= n; i++)
        if (memcmp(d + i, what, len) == 0)
            return i;
    return SIZE_MAX;
}

/* A load that must fail because assimp died, naming the file. */
static void assert_reader_died(const char *path)
{
    am_scene s;
    am_error err;
    assert_int_equal(am_scene_load(path, &s, &err), AM_ERR_INVALID);
    char text[AM_ERROR_TEXT_MAX];
    am_error_format(&err, text, sizeof text);
    print_message("%s\n", text);
    assert_non_null(strstr(err.where, path));
    assert_non_null(strstr(err.msg, "assimp"));
    assert_true(strstr(err.msg, "crashed (signal") || strstr(err.msg, "stopped (exit status"));
    assert_int_equal(s.node_count, 0);
}

static void test_deep_ascii_fbx(void **state)
{
    (void)state;
    char dir[256], path[300];
    am_test_tmpdir(dir, sizeof dir);
    snprintf(path, sizeof path, "%s/deep.fbx", dir);
    write_nested(path,
                 "; FBX 7.4.0 project file\nFBXHeaderExtension:  {\n\tFBXHeaderVersion: 1003\n"
                 "\tFBXVersion: 7400\n}\nObjects:  {\n",
                 "A: {\n", "}\n", 200000);
    assert_reader_died(path);
    /* the command: exit 1, the file named */
    char out[8192], skel[512];
    am_test_shared_path(skel, sizeof skel, "viewer/avatar_skeleton.xml");
    int rc = am_test_run_cli(out, sizeof out, "import '%s' --out '%s/out' --skeleton '%s'", path, dir, skel);
    assert_int_equal(rc, 1);
    assert_non_null(strstr(out, "deep.fbx: the FBX reader (assimp)"));
    assert_int_equal(am_test_count_entries(dir), 1); /* nothing written */
    am_test_rmtree(dir);
}

static void test_deep_x(void **state)
{
    (void)state;
    char dir[256], path[300];
    am_test_tmpdir(dir, sizeof dir);
    snprintf(path, sizeof path, "%s/deep.x", dir);
    write_nested(path, "xof 0303txt 0032\n", "Frame f {\n", "}\n", 200000);
    assert_reader_died(path);
    am_test_rmtree(dir);
}

static void test_changed_cluster_index(void **state)
{
    (void)state;
    if (!exists(HUESITOS))
        skip();
    size_t n;
    uint8_t *d = am_test_slurp(HUESITOS, &n);
    /* binary FBX: "Indexes" then an 'i' array: u32 count, u32 encoding (0 = raw), u32 bytes */
    size_t at = find(d, n, "Indexes", 7, 0);
    assert_true(at != SIZE_MAX && at + 24 < n);
    assert_int_equal(d[at + 7], 'i');
    assert_int_equal(d[at + 12], 0); /* raw, not deflated */
    uint8_t far[4] = {0x00, 0xff, 0xff, 0x7f};
    memcpy(d + at + 20, far, 4); /* the first index: 0x7fffff00 */
    char dir[256], path[300];
    am_test_tmpdir(dir, sizeof dir);
    snprintf(path, sizeof path, "%s/cluster.fbx", dir);
    write_bytes(path, d, n);
    free(d);
    assert_reader_died(path);
    am_test_rmtree(dir);
}

static void test_node_connected_to_itself(void **state)
{
    (void)state;
    if (!exists(HUESITOS))
        skip();
    size_t n;
    uint8_t *d = am_test_slurp(HUESITOS, &n);
    /* binary FBX connections: 'S' "OO", 'L' child id, 'L' parent id. The 33rd names a
     * bone's parent: make the bone its own parent. */
    static const uint8_t oo[] = {'S', 2, 0, 0, 0, 'O', 'O', 'L'};
    size_t at = 0;
    for (int k = 0; k <= 32; k++) {
        at = find(d, n, oo, sizeof oo, k ? at + 1 : 0);
        assert_true(at != SIZE_MAX);
    }
    uint8_t *child = d + at + sizeof oo;
    assert_int_equal(child[8], 'L');
    memcpy(child + 9, child, 8);
    char dir[256], path[300];
    am_test_tmpdir(dir, sizeof dir);
    snprintf(path, sizeof path, "%s/self.fbx", dir);
    write_bytes(path, d, n);
    free(d);
    /* a cycle of one: refused by the graph check (fbx_graph.h) before assimp could crash */
    am_scene s;
    am_error err;
    assert_int_equal(am_scene_load(path, &s, &err), AM_ERR_INVALID);
    assert_non_null(strstr(err.msg, "Models linked in a cycle: Model '"));
    assert_non_null(strstr(err.where, "self.fbx: Connections"));
    assert_int_equal(s.node_count, 0);
    am_test_rmtree(dir);
}

static void test_md5mesh_weight_index_past_the_end(void **state)
{
    (void)state;
    if (!exists(SIMPLE_CUBE))
        skip();
    size_t n;
    char *text = (char *)am_test_slurp(SIMPLE_CUBE, &n);
    const char *vert = "vert 0 ( 0.1875 -0.25 ) 0 2";
    char *at = strstr(text, vert);
    assert_non_null(at);
    char dir[256], path[300];
    am_test_tmpdir(dir, sizeof dir);
    snprintf(path, sizeof path, "%s/badweight.md5mesh", dir);
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    fwrite(text, 1, (size_t)(at - text), f);
    fputs("vert 0 ( 0.1875 -0.25 ) 100000000 2", f); /* 16 weights in the file */
    fputs(at + strlen(vert), f);
    assert_int_equal(fclose(f), 0);
    free(text);
    assert_reader_died(path);
    am_test_rmtree(dir);
}

/* --- good files: the child's scene is the in-process scene --------------------------------- */

static void load_in_process(const char *path, am_scene_format format, am_scene *s, am_status *st, am_error *err)
{
    memset(s, 0, sizeof *s);
    size_t n;
    uint8_t *d = am_test_slurp(path, &n);
    s->source = am_strdup(path);
    const char *slash = strrchr(path, '/');
    s->base_dir = malloc((size_t)(slash - path) + 1);
    assert_non_null(s->source);
    assert_non_null(s->base_dir);
    memcpy(s->base_dir, path, (size_t)(slash - path));
    s->base_dir[slash - path] = '\0';
    s->format = format;
    *st = am_assimp_read_ex(d, n, s->source, s->base_dir, format, NULL, s, err);
    if (*st == AM_OK)
        *st = am_scene_finish(s, err);
    if (*st != AM_OK)
        am_scene_free(s);
    free(d);
}

static void assert_same_as_in_process(const char *path)
{
    if (!exists(path)) {
        print_message("skipped: %s not found\n", path);
        return;
    }
    am_scene a, b;
    am_error ea, eb;
    am_status sa, sb;
    load_in_process(path, AM_SCENE_FORMAT_FBX, &a, &sa, &ea);
    sb = am_scene_load(path, &b, &eb);
    assert_int_equal(sa, sb);
    if (sa != AM_OK) {
        assert_string_equal(ea.msg, eb.msg);
        assert_string_equal(ea.where, eb.where);
        return;
    }
    assert_gt(a.node_count, 0);
    am_test_assert_scenes_equal(&a, &b);
    am_scene_free(&a);
    am_scene_free(&b);
}

static void test_good_files_import_as_in_process(void **state)
{
    (void)state;
    char p[512];
    assert_same_as_in_process(HUESITOS);
    assert_same_as_in_process(SKELETON_FBX);
    assert_same_as_in_process(am_test_shared_path(p, sizeof p, "data/realdata/rpm_avatar.fbx"));
    assert_same_as_in_process(am_test_shared_path(p, sizeof p, "data/realdata/Walking.fbx"));
}

/* --- the load's choice: in the caller's process ----------------------------------------- */

static int g_forks; /* forks this process made (counted by a pthread_atfork handler) */

static void count_fork(void)
{
    g_forks++;
}

/* am_scene_load_options.reader_process: zeroed, the FBX is read in a child (one fork); with
 * AM_SCENE_READER_IN_PROCESS it is read here without a fork, into the same scene. */
static void test_a_load_in_process_forks_nothing_and_gives_the_childs_scene(void **state)
{
    (void)state;
    if (!exists(HUESITOS)) {
        print_message("skipped: %s not found\n", HUESITOS);
        return;
    }
    assert_int_equal(pthread_atfork(count_fork, NULL, NULL), 0);
    am_scene child, here;
    am_error err;
    am_scene_load_options zeroed = {0}, in_process = {.reader_process = AM_SCENE_READER_IN_PROCESS};
    g_forks = 0;
    assert_int_equal(am_scene_load_ex(HUESITOS, &zeroed, &child, &err), AM_OK);
    assert_int_equal(g_forks, 1);
    g_forks = 0;
    assert_int_equal(am_scene_load_ex(HUESITOS, &in_process, &here, &err), AM_OK);
    assert_int_equal(g_forks, 0);
    assert_gt(here.node_count, 0);
    am_test_assert_scenes_equal(&child, &here);
    am_scene_free(&child);
    am_scene_free(&here);
}

/* --- the runner ------------------------------------------------------------------------ */

static am_status segfault(void *ctx, am_scene *out, am_error *err)
{
    (void)ctx, (void)out, (void)err;
    signal(SIGSEGV, SIG_DFL);
    raise(SIGSEGV);
    return AM_OK;
}

static am_status spin(void *ctx, am_scene *out, am_error *err)
{
    (void)ctx, (void)out, (void)err;
    volatile unsigned long x = 0;
    for (;;)
        x++;
    return AM_OK;
}

static am_status leave(void *ctx, am_scene *out, am_error *err)
{
    (void)ctx, (void)out, (void)err;
    _exit(7);
}

static am_status refuse(void *ctx, am_scene *out, am_error *err)
{
    (void)ctx, (void)out;
    am_fail_at(err, AM_ERR_INVALID, 99, "no such thing");
    am_error_where(err, "m.fbx: Objects");
    return AM_ERR_INVALID;
}

static void test_runner_turns_deaths_into_errors(void **state)
{
    (void)state;
    am_scene s;
    am_error err;
    memset(&s, 0, sizeof s);
    assert_int_equal(am_child_read_scene(segfault, NULL, NULL, "the test reader", "m.fbx", &s, &err), AM_ERR_INVALID);
    assert_string_equal(err.where, "m.fbx");
    assert_non_null(strstr(err.msg, "the test reader crashed (signal 11"));

    am_child_limits one_second = {0, 1, 0};
    assert_int_equal(am_child_read_scene(spin, NULL, &one_second, "the test reader", "m.fbx", &s, &err),
                     AM_ERR_INVALID);
    assert_non_null(strstr(err.msg, "used its 1 s of CPU time"));

    assert_int_equal(am_child_read_scene(leave, NULL, NULL, "the test reader", "m.fbx", &s, &err), AM_ERR_INVALID);
    assert_non_null(strstr(err.msg, "stopped (exit status 7)"));

    assert_int_equal(am_child_read_scene(refuse, NULL, NULL, "the test reader", "m.fbx", &s, &err), AM_ERR_INVALID);
    assert_string_equal(err.msg, "no such thing");
    assert_string_equal(err.where, "m.fbx: Objects");
    assert_int_equal(err.offset, 99);
    assert_int_equal(s.node_count, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_runner_turns_deaths_into_errors),
        cmocka_unit_test(test_deep_ascii_fbx),
        cmocka_unit_test(test_deep_x),
        cmocka_unit_test(test_changed_cluster_index),
        cmocka_unit_test(test_node_connected_to_itself),
        cmocka_unit_test(test_md5mesh_weight_index_past_the_end),
        cmocka_unit_test(test_good_files_import_as_in_process),
        cmocka_unit_test(test_a_load_in_process_forks_nothing_and_gives_the_childs_scene),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
