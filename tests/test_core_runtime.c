/* core/parallel (every job once, whatever the thread count) and core/dynlib (a library
 * loaded when needed: its calls found, a missing library or call a clear error, and none of
 * those libraries loaded when the command starts). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "core/dynlib.h"
#include "core/parallel.h"

typedef struct tally {
    atomic_int runs[200];
    double out[200];
    int worker[200]; /* which thread ran job i (checked after, not in the thread) */
} tally;

static void square(void *ctx, size_t i, int worker)
{
    tally *t = ctx;
    t->worker[i] = worker;
    atomic_fetch_add(&t->runs[i], 1);
    t->out[i] = (double)i * (double)i;
}

static void test_every_job_runs_once_on_any_thread_count(void **state)
{
    (void)state;
    static const size_t counts[] = {0, 1, 2, 7, 200};
    static const int threads[] = {1, 2, 3, 8, 0, -1, 100};
    for (size_t c = 0; c < sizeof counts / sizeof counts[0]; c++)
        for (size_t k = 0; k < sizeof threads / sizeof threads[0]; k++) {
            tally *t = calloc(1, sizeof *t);
            assert_non_null(t);
            am_parallel_for(counts[c], threads[k], square, t);
            for (size_t i = 0; i < 200; i++) {
                assert_int_equal(atomic_load(&t->runs[i]), i < counts[c] ? 1 : 0);
                if (i < counts[c]) {
                    assert_true(t->out[i] == (double)(i * i));
                    assert_in_range(t->worker[i], 0, am_parallel_threads(threads[k], counts[c]) - 1);
                }
            }
            free(t);
        }
    assert_int_equal(am_parallel_threads(5, 2), 2);   /* never more workers than jobs */
    assert_int_equal(am_parallel_threads(3, 100), 3);
    assert_int_equal(am_parallel_threads(1000, 1000), AM_PARALLEL_MAX_THREADS);
    assert_true(am_parallel_threads(0, 1000) >= 1);
}

static void test_a_library_is_loaded_with_its_calls(void **state)
{
    (void)state;
    double (*cosine)(double) = NULL, (*root)(double) = NULL;
    am_dynlib_call calls[] = {{"cos", &cosine}, {"sqrt", &root}};
    am_error err;
    am_error_clear(&err);
    void *lib = NULL;
    assert_int_equal(am_dynlib_open("libm.so.6", "maths", calls, 2, &lib, &err), AM_OK);
    assert_non_null(lib);
    assert_non_null(cosine);
    assert_true(fabs(cosine(0.5) - cos(0.5)) < 1e-15);
    assert_true(root(2.25) == 1.5);
    double (*none)(double) = NULL;
    assert_false(am_dynlib_symbol(lib, "no_such_call_here", &none));
    assert_null(none);
    am_dynlib_release(lib);
    assert_true(fabs(cosine(0.25) - cos(0.25)) < 1e-15); /* still loaded: libraries stay */
}

static void test_a_missing_library_or_call_is_named(void **state)
{
    (void)state;
    char shown[512];
    double (*f)(double) = NULL, (*g)(double) = NULL;
    am_dynlib_call calls[] = {{"cos", &f}, {"no_such_call_here", &g}};
    am_error err;
    am_error_clear(&err);
    assert_int_equal(am_dynlib_open("libnot-a-library.so.9", "a test", calls, 1, NULL, &err), AM_ERR_IO);
    const char *msg = am_error_format(&err, shown, sizeof shown);
    assert_non_null(strstr(msg, "cannot load libnot-a-library.so.9 (a test)"));
    assert_null(f);
    am_error_clear(&err);
    assert_int_equal(am_dynlib_open("libm.so.6", "maths", calls, 2, NULL, &err), AM_ERR_IO);
    msg = am_error_format(&err, shown, sizeof shown);
    assert_non_null(strstr(msg, "libm.so.6 has no no_such_call_here"));
    assert_null(f); /* nothing half filled */
    assert_null(g);
}

/* The libraries core/dynlib.h loads when needed are not among those the command loads at
 * start-up (the dynamic loader's own list, as ldd prints it). */
static void test_the_command_starts_without_the_libraries_it_loads_when_needed(void **state)
{
    (void)state;
    FILE *p = popen("LD_TRACE_LOADED_OBJECTS=1 '" AM_CLI_PATH "' 2>&1", "r");
    assert_non_null(p);
    char listed[16384];
    size_t n = fread(listed, 1, sizeof listed - 1, p);
    listed[n] = 0;
    assert_int_equal(pclose(p), 0);
    assert_non_null(strstr(listed, "libxml2.so")); /* a linked one is listed */
    static const char *const lazy[] = {"libcurl.so", "libassimp.so", "libcholmod.so", "libarchive.so"};
    for (size_t i = 0; i < sizeof lazy / sizeof lazy[0]; i++)
        if (strstr(listed, lazy[i]))
            fail_msg("%s is loaded at start-up:\n%s", lazy[i], listed);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_job_runs_once_on_any_thread_count),
        cmocka_unit_test(test_a_library_is_loaded_with_its_calls),
        cmocka_unit_test(test_a_missing_library_or_call_is_named),
        cmocka_unit_test(test_the_command_starts_without_the_libraries_it_loads_when_needed),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
