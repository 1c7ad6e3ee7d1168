/* A job's state from its result record (results/NAME.json): a failed job's error comes back
 * whole however long it is (it was cut at 511 bytes when the record held a fixed array), a
 * record of other inputs is stale, no record is pending, and a damaged one is pending too
 * (the job runs again). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <cmocka.h>

#include "batch/batch.h"
#include "support/batch_library.h"
#include "support/test_support.h"

/* The record file of the plan's only job, with this key, status and error. */
static void write_record(const am_batch_plan *plan, const char *key, const char *status, const char *error)
{
    char path[2048];
    snprintf(path, sizeof path, "%s/results", plan->catalog);
    mkdir(path, 0755);
    snprintf(path, sizeof path, "%s/results/%s.json", plan->catalog, plan->jobs[0].name);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fprintf(f, "{\"key\": \"%s\", \"status\": \"%s\", \"error\": \"%s\", \"report\": {}}", key, status, error);
    fclose(f);
}

static void test_a_failed_jobs_long_error_comes_back_whole(void **state)
{
    (void)state;
    char dir[512], catalog[700];
    assert_non_null(am_test_tmpdir(dir, sizeof dir));
    am_batch_plan plan;
    am_test_quad_catalog(dir, catalog, sizeof catalog, &plan);

    am_string error = {0};
    assert_int_equal(am_batch_job_state(&plan, 0, &error), AM_BATCH_PENDING); /* no record yet */
    assert_true(am_string_empty(&error));

    char long_error[1501];
    for (size_t i = 0; i < 1500; i++)
        long_error[i] = (char)('a' + i % 26);
    long_error[1500] = '\0';
    write_record(&plan, plan.jobs[0].key, "failed", long_error);
    assert_int_equal(am_batch_job_state(&plan, 0, &error), AM_BATCH_FAILED);
    assert_int_equal(error.length, 1500);
    assert_string_equal(am_str(&error), long_error);

    /* The same record under another key: stale, and no error handed back. */
    char other[65];
    memset(other, '0', 64);
    other[64] = '\0';
    write_record(&plan, other, "failed", long_error);
    assert_int_equal(am_batch_job_state(&plan, 0, &error), AM_BATCH_STALE);
    assert_true(am_string_empty(&error));

    write_record(&plan, plan.jobs[0].key, "done", "");
    assert_int_equal(am_batch_job_state(&plan, 0, NULL), AM_BATCH_DONE);

    /* A damaged record (no status) is read as none: the job runs again. */
    char path[2048];
    snprintf(path, sizeof path, "%s/results/%s.json", plan.catalog, plan.jobs[0].name);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fprintf(f, "{\"key\": \"%s\"", plan.jobs[0].key);
    fclose(f);
    assert_int_equal(am_batch_job_state(&plan, 0, &error), AM_BATCH_PENDING);

    am_string_free(&error);
    am_batch_plan_free(&plan);
    am_test_rmtree(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_a_failed_jobs_long_error_comes_back_whole),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
