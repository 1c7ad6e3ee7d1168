/* The batch tests' library (batch_library.h), made by the benchmark's generator. */
#include "support/batch_library.h"

#include "bench/perf/support/batch_library.h"
#include "support/test_support.h"

void am_test_batch_library(char *lib, size_t lib_size, const char *dir, const char *data)
{
    char why[1200];
    if (!am_bench_batch_library(dir, data, AM_TEST_BATCH_GOOD, AM_TEST_BATCH_BROKEN, true, lib, lib_size, why,
                                sizeof why))
        fail_msg("the batch library: %s", why);
}
