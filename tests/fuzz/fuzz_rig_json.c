/* libFuzzer target for the rig JSON reader (docs/rig-json.md): any input either fails
 * with an error or parses into a rig whose written JSON parses again to the same counts
 * and numbers (the writer's shortest-text numbers must read back exactly; -0 reads back
 * as 0, which is the same number). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_common.h"
#include "skin/rig.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    am_error err;
    am_fuzz_dirty_error(&err);
    am_rig a, b;
    if (am_rig_parse_json((const char *)data, size, "fuzz", &a, &err) != AM_OK) {
        am_fuzz_format(&err);
        return 0;
    }
    am_buf out = {0};
    if (am_rig_to_json(&a, &out, &err) != AM_OK)
        abort();
    if (am_rig_parse_json((const char *)out.data, out.size, "written", &b, &err) != AM_OK)
        abort(); /* a rig we wrote must read back */
    if (a.vertex_count != b.vertex_count || a.joint_count != b.joint_count || a.triangle_count != b.triangle_count ||
        memcmp(a.triangles, b.triangles, a.triangle_count * 3 * sizeof(uint32_t)) != 0 ||
        a.weight_start[a.vertex_count] != b.weight_start[b.vertex_count])
        abort();
    /* equal as numbers: the writer spells -0 as 0 (core/numfmt.h), the same point */
    for (size_t i = 0; i < a.vertex_count * 3; i++)
        if (a.positions[i] != b.positions[i])
            abort();
    for (size_t i = 0; i < a.joint_count; i++)
        if (a.joints[i].world.x != b.joints[i].world.x || strcmp(a.joints[i].name, b.joints[i].name) != 0)
            abort();
    am_buf_free(&out);
    am_rig_free(&a);
    am_rig_free(&b);
    return 0;
}
