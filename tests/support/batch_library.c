/* The batch tests' library (batch_library.h), made by the benchmark's generator. */
#include "support/batch_library.h"

#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "bench/perf/support/batch_library.h"
#include "support/gltf_fixtures.h"
#include "support/test_support.h"

void am_test_batch_library(char *lib, size_t lib_size, const char *dir, const char *data)
{
    char why[1200];
    if (!am_bench_batch_library(dir, data, AM_TEST_BATCH_GOOD, AM_TEST_BATCH_BROKEN, true, lib, lib_size, why,
                                sizeof why))
        fail_msg("the batch library: %s", why);
}

void am_test_quad_catalog(const char *dir, char *catalog, size_t catalog_size, am_batch_plan *plan)
{
    char lib[1024], model[1200], skel[1024];
    snprintf(lib, sizeof lib, "%s/library", dir);
    snprintf(catalog, catalog_size, "%s/catalog", dir);
    if (mkdir(lib, 0755) != 0)
        fail_msg("cannot make %s", lib);
    am_gf_write_quad_glb(lib, model, sizeof model, NULL);
    am_test_shared_path(skel, sizeof skel, "viewer/avatar_skeleton.xml");
    am_batch_plan_options po;
    memset(&po, 0, sizeof po);
    const char *libraries[1] = {lib};
    po.libraries = libraries;
    po.library_count = 1;
    po.skeleton = skel;
    am_error err;
    char msg[AM_ERROR_TEXT_MAX];
    if (am_batch_plan_make(catalog, &po, plan, &err))
        fail_msg("planning %s: %s", lib, am_error_format(&err, msg, sizeof msg));
    if (plan->job_count != 1)
        fail_msg("%s planned %zu jobs, not the quadruped alone", lib, plan->job_count);
}
