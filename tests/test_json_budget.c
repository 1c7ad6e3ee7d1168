/* Memory budgets of the JSON readers (core/json_text.h; issue 19 item 5): the token count
 * estimates jansson's tree from above (checked against jansson's real allocations here,
 * through a counting allocator), and the bombs the issue lists (a .gltf of empty objects,
 * an anim JSON of empty objects, a poses file) are refused as a budget overrun, as whole
 * commands under a memory cap, with a small peak and nothing written. */
#define _DEFAULT_SOURCE /* malloc_usable_size */
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/io.h"
#include "core/json_text.h"
#include "readers/gltf/gltf.h"
#include "support/memcap.h"
#include "report/quality.h"
#include "support/test_support.h"

/* jansson's live bytes as glibc's malloc would hold them (usable size + the chunk header). */
typedef struct alloc_count {
    size_t live, peak;
} alloc_count;
static alloc_count *g_count; /* the counting allocator's state: this test program only */

static void *count_malloc(size_t n)
{
    void *p = malloc(n);
    if (p && g_count) {
        g_count->live += malloc_usable_size(p) + 16;
        if (g_count->live > g_count->peak)
            g_count->peak = g_count->live;
    }
    return p;
}

static void count_free(void *p)
{
    if (p && g_count)
        g_count->live -= malloc_usable_size(p) + 16;
    free(p);
}

/* "[u,u,...]" (n units; open/close around them). */
static char *repeat(const char *open, const char *unit, size_t n, const char *close, size_t *size)
{
    size_t ul = strlen(unit), cap = strlen(open) + n * (ul + 1) + strlen(close) + 1;
    char *b = malloc(cap);
    assert_non_null(b);
    size_t k = (size_t)sprintf(b, "%s", open);
    for (size_t i = 0; i < n; i++) {
        memcpy(b + k, unit, ul);
        k += ul;
        if (i + 1 < n)
            b[k++] = ',';
    }
    k += (size_t)sprintf(b + k, "%s", close);
    *size = k;
    return b;
}

/* The estimate is above what jansson really took, and within twice it. */
static void estimate_bounds(const char *text, size_t size)
{
    alloc_count c = {0, 0};
    g_count = &c;
    json_set_alloc_funcs(count_malloc, count_free);
    json_error_t je;
    json_t *root = json_loadb(text, size, 0, &je);
    json_decref(root);
    json_set_alloc_funcs(malloc, free);
    g_count = NULL;
    assert_non_null(root);
    am_json_cost k = am_json_tree_cost(text, size);
    size_t estimate = k.structure + 3 * k.string_bytes;
    if (estimate < c.peak || estimate > 2 * c.peak + 4096)
        fail_msg("%.40s...: estimate %zu, jansson's peak %zu", text, estimate, c.peak);
}

static void test_the_estimate_bounds_janssons_tree(void **state)
{
    (void)state;
    const char *units[] = {"{}", "[]", "1", "-2.5e3", "\"a\"", "true", "null", "{\"name\":\"mPelvis\",\"rot\":[0,0,0]}",
                           "[[1,2],[3,4]]", "\"a long string of forty bytes or so, past a\""};
    for (size_t i = 0; i < sizeof units / sizeof *units; i++) {
        size_t n;
        char *t = repeat("[", units[i], 100000, "]", &n);
        estimate_bounds(t, n);
        free(t);
    }
    /* an object of many keys; a string with escapes (a quote inside is not its end) */
    am_buf b = {0};
    assert_int_equal(am_buf_printf(&b, NULL, "{"), AM_OK);
    for (int i = 0; i < 100000; i++)
        assert_int_equal(am_buf_printf(&b, NULL, "%s\"k%d\":%d", i ? "," : "", i, i), AM_OK);
    assert_int_equal(am_buf_printf(&b, NULL, "}"), AM_OK);
    estimate_bounds((const char *)b.data, b.size);
    am_buf_free(&b);
    const char *esc = "[\"a\\\"{[1,2]}\\\\\",{}]";
    am_json_cost k = am_json_tree_cost(esc, strlen(esc));
    assert_int_equal(k.strings, 1);
    assert_int_equal(k.objects, 1);
    assert_int_equal(k.arrays, 1);
    assert_int_equal(k.numbers, 0);
    assert_int_equal(k.string_bytes, 12); /* a \" { [ 1 , 2 ] } \ \ */
}

/* Over budget: exactly that, naming the file, before jansson allocates anything. */
static void test_over_budget_is_said_as_such(void **state)
{
    (void)state;
    size_t n;
    char *t = repeat("[", "{}", 10000, "]", &n); /* 10,000 objects: 2.5 MiB of tree */
    am_error err;
    assert_null(am_json_load_text(t, n, 0, (size_t)2 << 20, "small.json", &err));
    char buf[600];
    am_error_format(&err, buf, sizeof buf);
    if (!strstr(buf, "small.json: memory budget of 2 MiB exceeded while reading the JSON (its tree would take about 2 "
                     "MiB: 10000 objects, 1 arrays"))
        fail_msg("%s", buf);
    json_t *ok = am_json_load_text(t, n, 0, (size_t)3 << 20, "small.json", &err);
    assert_non_null(ok);
    assert_int_equal(json_array_size(ok), 10000);
    json_decref(ok);
    free(t);
    /* jansson's own depth limit (2048): invalid JSON with its position */
    char deep[6000];
    memset(deep, '[', 3000);
    memset(deep + 3000, ']', 3000);
    assert_null(am_json_load_text(deep, 6000, 0, (size_t)64 << 20, "deep.json", &err));
    am_error_format(&err, buf, sizeof buf);
    if (!strstr(buf, "deep.json: not valid JSON: maximum parsing depth reached") || !strstr(buf, "(line 1, column"))
        fail_msg("%s", buf);
}

static void test_a_poses_file_has_a_limit_and_a_budget(void **state)
{
    (void)state;
    char dir[512], path[700], buf[600];
    am_test_tmpdir(dir, sizeof dir);
    snprintf(path, sizeof path, "%s/poses.json", dir);
    size_t n;
    /* 300,000 empty objects in 0.9 MB: under the 1 MiB file limit, 73 MiB of tree */
    char *t = repeat("{\"poses\":[", "{}", 300000, "]}", &n);
    assert_lt(n, AM_QUALITY_POSES_MAX_FILE_BYTES);
    assert_int_equal(am_write_file_atomic(path, t, n, NULL), AM_OK);
    free(t);
    am_quality_pose *p = NULL;
    size_t count = 0;
    am_error err;
    assert_int_equal(am_quality_poses_load(path, &p, &count, &err), AM_ERR_INVALID);
    am_error_format(&err, buf, sizeof buf);
    if (!strstr(buf, "poses.json") || !strstr(buf, "memory budget of 16 MiB exceeded while reading the JSON"))
        fail_msg("%s", buf);
    /* 2 MiB of one pose name: over the file limit, refused before it is read */
    t = repeat("{\"poses\":[{\"name\":\"", "x", 1 << 20, "\"}]}", &n);
    assert_int_equal(am_write_file_atomic(path, t, n, NULL), AM_OK);
    free(t);
    assert_int_equal(am_quality_poses_load(path, &p, &count, &err), AM_ERR_INVALID);
    am_error_format(&err, buf, sizeof buf);
    if (!strstr(buf, "poses.json") || !strstr(buf, "over the 1048576 bytes (1.0 MiB) limit for a poses JSON"))
        fail_msg("%s", buf);
    assert_null(p);
    am_test_rmtree(dir);
}

/* The whole commands, each under a 1 GiB address-space cap: a .gltf of 3,000,000 empty
 * objects (9 MB, 745 MiB of jansson tree) and an anim JSON of 5,000,000 (15 MB, 1.2 GiB)
 * exit 1 with the budget's words, naming the file, peaking far below the cap. */
static void test_json_bombs_fail_cleanly_under_a_cap(void **state)
{
    (void)state;
    char dir[512], path[700], out_dir[700], skel[1024], msg[8192];
    am_test_tmpdir(dir, sizeof dir);
    am_test_shared_path(skel, sizeof skel, "viewer/avatar_skeleton.xml");
    snprintf(out_dir, sizeof out_dir, "%s/out", dir);
    size_t n, peak;
    char *t = repeat("{\"asset\":{\"version\":\"2.0\"},\"extras\":[", "{}", 3000000, "]}", &n);
    snprintf(path, sizeof path, "%s/empty.gltf", dir);
    assert_int_equal(am_write_file_atomic(path, t, n, NULL), AM_OK);
    free(t);
    const char *import[] = {"import", path, "--out", out_dir, "--skeleton", skel, NULL};
    int rc = am_test_run_cli_capped(1024, &peak, msg, sizeof msg, import);
    if (rc != 1 || !strstr(msg, "empty.gltf") ||
        !strstr(msg, "memory budget of 256 MiB exceeded while reading the JSON (its tree would take about 732 MiB"))
        fail_msg("import empty.gltf: exit %d: %s", rc, msg);
    if (peak > 300)
        fail_msg("import empty.gltf peaked at %zu MiB", peak);
    struct stat st;
    assert_int_not_equal(stat(out_dir, &st), 0);
    char anim_path[700], anim_out[700];
    t = repeat("{\"joints\":[", "{}", 5000000, "]}", &n);
    snprintf(anim_path, sizeof anim_path, "%s/empty.json", dir);
    snprintf(anim_out, sizeof anim_out, "%s/empty.anim", dir);
    assert_int_equal(am_write_file_atomic(anim_path, t, n, NULL), AM_OK);
    free(t);
    const char *encode[] = {"anim", "encode", anim_path, "-o", anim_out, NULL};
    rc = am_test_run_cli_capped(1024, &peak, msg, sizeof msg, encode);
    if (rc != 1 || !strstr(msg, "empty.json") || !strstr(msg, "memory budget of 1024 MiB exceeded while reading the JSON"))
        fail_msg("anim encode empty.json: exit %d: %s", rc, msg);
    if (peak > 300)
        fail_msg("anim encode empty.json peaked at %zu MiB", peak);
    assert_int_not_equal(stat(anim_out, &st), 0);
    /* Under a real cap (not the ASan build) a document inside the budget that the cap
     * cannot hold fails as out of memory, not as "invalid JSON at line -1". */
    if (am_test_memcap_applies()) {
        t = repeat("{\"asset\":{\"version\":\"2.0\"},\"extras\":[", "{}", 1000000, "]}", &n);
        assert_int_equal(am_write_file_atomic(path, t, n, NULL), AM_OK);
        free(t);
        rc = am_test_run_cli_capped(200, &peak, msg, sizeof msg, import);
        if (rc != 1 || !strstr(msg, "empty.gltf") || !strstr(msg, "out of memory") || strstr(msg, "line -1"))
            fail_msg("import empty.gltf under 200 MiB: exit %d: %s", rc, msg);
    }
    am_test_rmtree(dir);
}

int main(void)
{
    /* The capped commands first: a child's measured peak includes this process's resident
     * memory at the fork (tests/support/memcap.h), which the other tests raise. */
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_json_bombs_fail_cleanly_under_a_cap),
        cmocka_unit_test(test_the_estimate_bounds_janssons_tree),
        cmocka_unit_test(test_over_budget_is_said_as_such),
        cmocka_unit_test(test_a_poses_file_has_a_limit_and_a_budget),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
