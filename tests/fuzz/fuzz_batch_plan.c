/* libFuzzer target for the batch plan reader (batch.h: am_batch_plan_parse, the one-pass
 * reading of CATALOG/plan.json): any input either fails with an error and leaves an empty
 * plan, or gives jobs that each have a valid creature name, a model and a 64-digit key, with
 * every list's count matching its array. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "batch/batch.h"
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    am_error err;
    am_fuzz_dirty_error(&err);
    am_batch_plan plan;
    if (am_batch_plan_parse("/fuzz", data, size, "plan.json", &plan, &err) != AM_OK) {
        if (plan.jobs || plan.job_count || plan.catalog)
            abort(); /* a failed read leaves nothing */
        am_fuzz_format(&err);
        return 0;
    }
    if (!plan.skeleton || !plan.version || strcmp(plan.catalog, "/fuzz") != 0)
        abort();
    for (size_t i = 0; i < plan.job_count; i++) {
        const am_batch_job *j = &plan.jobs[i];
        if (!j->name || !j->model || strlen(j->key) != 64)
            abort();
        for (size_t k = 0; k < j->motion_count; k++)
            if (!j->motions[k])
                abort();
        for (size_t k = 0; k < j->option_count; k++)
            if (!j->options[k])
                abort();
    }
    for (size_t i = 0; i < plan.skip_count; i++)
        if (!plan.skipped[i].path || !plan.skipped[i].reason)
            abort();
    am_batch_plan_free(&plan);
    return 0;
}
