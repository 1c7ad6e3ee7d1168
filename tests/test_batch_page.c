/* The catalogue's page (CATALOG/index.html) in headless chromium: the 40-creature library's
 * every creature listed, the state and text filters and the triangle floor narrow the rows,
 * sorting orders them, and a creature whose file name holds markup ("<b>&x") is shown as text
 * without breaking the page. ctest label `browser`; exit 77 (skipped) without chromium. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "support/batch_library.h"
#include "support/test_support.h"

static char browser[1024];

static bool find_browser(void)
{
    const char *env = getenv("ANIMESH_CHROMIUM");
    if (env && *env && access(env, X_OK) == 0) {
        snprintf(browser, sizeof browser, "%s", env);
        return true;
    }
    static const char *const names[] = {"/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome"};
    for (size_t i = 0; i < 3; i++)
        if (access(names[i], X_OK) == 0) {
            snprintf(browser, sizeof browser, "%s", names[i]);
            return true;
        }
    return false;
}

typedef struct fixture {
    char dir[512], skel[1024], data[1024], lib[700], catalog[800];
} fixture;

/* One planned and run catalogue for every case (the runs are the slow part). */
static int setup(void **state)
{
    fixture *f = calloc(1, sizeof *f);
    am_test_tmpdir(f->dir, sizeof f->dir);
    am_test_shared_path(f->skel, sizeof f->skel, "viewer/avatar_skeleton.xml");
    am_test_shared_path(f->data, sizeof f->data, "data/realdata");
    am_test_batch_library(f->lib, sizeof f->lib, f->dir, f->data);
    char path[1200];
    snprintf(path, sizeof path, "%s/broken/<b>&x.dae", f->lib);
    am_test_write_text(path, "<?xml version=\"1.0\"?><COLLADA><library_geometries><geometry id=\"g\"/>"
                             "</library_geometries><library_controllers><skin source=\"#x\">");
    snprintf(f->catalog, sizeof f->catalog, "%s/cat", f->dir);
    char out[65536];
    if (am_test_run_cli(out, sizeof out, "batch plan '%s' --out '%s' --skeleton '%s' --", f->lib, f->catalog, f->skel) ||
        am_test_run_cli(out, sizeof out, "batch run '%s' --jobs 2", f->catalog) != 1) {
        fprintf(stderr, "setup: %s\n", out);
        return -1;
    }
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    fixture *f = *state;
    am_test_rmtree(f->dir);
    free(f);
    return 0;
}

/* The page's rows after its script ran with #hash: the creature names in order. */
static size_t rows(fixture *f, const char *hash, char names[64][128])
{
    char cmd[8192], dom[1200];
    snprintf(dom, sizeof dom, "%s/dom.html", f->dir);
    snprintf(cmd, sizeof cmd,
             "TMPDIR='%s' '%s' --headless=new --no-sandbox --disable-gpu --disable-extensions --no-first-run "
             "--disable-background-networking --disable-component-update --disable-sync --user-data-dir='%s/profile' "
             "--virtual-time-budget=500 --dump-dom 'file://%s/index.html#%s' > '%s' 2>/dev/null",
             f->dir, browser, f->dir, f->catalog, hash, dom);
    int st = system(cmd);
    assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    size_t n = 0;
    char *text = (char *)am_test_slurp(dom, &n);
    size_t count = 0;
    for (char *p = strstr(text, "<tr data-name=\""); p; p = strstr(p + 1, "<tr data-name=\"")) {
        char *q = p + strlen("<tr data-name=\"");
        char *end = strchr(q, '"');
        assert_non_null(end);
        if (count < 64)
            snprintf(names[count], 128, "%.*s", (int)(end - q), q);
        count++;
    }
    free(text);
    return count;
}

static void test_every_creature_listed(void **state)
{
    fixture *f = *state;
    char names[64][128];
    size_t n = rows(f, "", names);
    assert_int_equal(n, AM_TEST_BATCH_GOOD + AM_TEST_BATCH_BROKEN + 1);
    /* Sorted by name by default. */
    for (size_t i = 1; i < 41 && i < n; i++)
        assert_true(strcmp(names[i - 1], names[i]) <= 0);
}

static void test_filters_narrow_the_rows(void **state)
{
    fixture *f = *state;
    char names[64][128];
    assert_int_equal(rows(f, "state=failed", names), AM_TEST_BATCH_BROKEN + 1);
    assert_int_equal(rows(f, "state=done", names), AM_TEST_BATCH_GOOD);
    assert_int_equal(rows(f, "filter=prim_07", names), 1);
    assert_string_equal(names[0], "prim_07");
    assert_int_equal(rows(f, "filter=Premature%20end", names), AM_TEST_BATCH_BROKEN + 1); /* the errors' text */
    assert_int_equal(rows(f, "tris=1000000", names), 0);
    assert_int_equal(rows(f, "tris=1&state=done", names), AM_TEST_BATCH_GOOD);
}

static void test_sorting_orders_the_rows(void **state)
{
    fixture *f = *state;
    char names[64][128];
    size_t n = rows(f, "sort=name&dir=desc", names);
    assert_int_equal(n, 41);
    for (size_t i = 1; i < n; i++)
        assert_true(strcmp(names[i - 1], names[i]) >= 0);
}

static void test_markup_in_a_name_stays_text(void **state)
{
    fixture *f = *state;
    char names[64][128];
    assert_int_equal(rows(f, "filter=%3Cb%3E", names), 1); /* found by its error, which names the file */
    assert_string_equal(names[0], "_b__x");
    char path[1200];
    snprintf(path, sizeof path, "%s/index.html", f->catalog);
    size_t n = 0;
    char *page = (char *)am_test_slurp(path, &n);
    assert_null(strstr(page, "<b>&x"));          /* never raw in the page */
    assert_non_null(strstr(page, "\\u003cb\\u003e\\u0026x")); /* escaped inside the JSON */
    free(page);
}

int main(void)
{
    if (!find_browser()) {
        printf("SKIP: no chromium (install it with scripts/setup.sh --test-deps, or set ANIMESH_CHROMIUM)\n");
        return 77;
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_creature_listed),
        cmocka_unit_test(test_filters_narrow_the_rows),
        cmocka_unit_test(test_sorting_orders_the_rows),
        cmocka_unit_test(test_markup_in_a_name_stays_text),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
