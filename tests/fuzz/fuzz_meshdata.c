/* Fuzz the WorldBridge meshdata check: arbitrary bytes as JSON, then the schema check with
 * and without a skeleton-free path, must give AM_OK or a clean error naming a field. */
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "fuzz_common.h"
#include "world/meshdata.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    json_t *doc = json_loadb((const char *)data, size, JSON_REJECT_DUPLICATES, NULL);
    if (!doc)
        return 0;
    am_error err;
    am_fuzz_dirty_error(&err);
    am_meshdata_summary sum;
    if (am_meshdata_validate(doc, NULL, &sum, &err) != AM_OK)
        am_fuzz_format(&err);
    json_decref(doc);
    return 0;
}
