/* libFuzzer target for the joint map JSON (map check, from-bvh --map): any text gives a
 * clean error or a map, and every map can be checked against the viewer skeleton. Seeds:
 * corpus/jointmap/; dictionary jointmap.dict. */
#include <stdint.h>
#include <stdlib.h>

#include "fuzz_common.h"
#include "skeleton/jointmap.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

AM_FUZZ_INIT_WITH_SKELETON

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    am_error err;
    am_fuzz_dirty_error(&err);
    am_joint_map map;
    if (am_joint_map_parse((const char *)data, size, "fuzz.json", &map, &err) != AM_OK) {
        am_fuzz_format(&err);
        return 0;
    }
    if (am_fuzz_skel) {
        am_joint_map_report rep;
        if (am_joint_map_check(&map, am_fuzz_skel, &rep, &err) == AM_OK)
            am_joint_map_report_free(&rep);
        for (size_t i = 0; i < map.count; i++)
            (void)am_joint_map_target(&map, am_fuzz_skel, map.entries[i].rig_name);
    }
    am_joint_map_free(&map);
    return 0;
}
