/* libFuzzer target for the avatar_skeleton.xml reader: any bytes give a clean error or a
 * skeleton whose lookups and frames are usable. Seeds: corpus/skeleton_xml/ and, at run
 * time, the viewer's own file (skeleton_xml.seeds); dictionary skeleton_xml.dict. */
#include <stdint.h>
#include <stdlib.h>

#include "fuzz_common.h"
#include "skeleton/skeleton.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    am_error err;
    am_fuzz_dirty_error(&err);
    am_skeleton skel;
    if (am_skeleton_parse((const char *)data, size, "fuzz.xml", &skel, &err) != AM_OK) {
        am_fuzz_format(&err);
        return 0;
    }
    for (size_t i = 0; i < skel.joint_count; i++) {
        int p = am_skeleton_parent(&skel, (int)i);
        if (p >= (int)skel.joint_count)
            abort();
        if (am_skeleton_find(&skel, skel.joints[i].name) < 0)
            abort(); /* every joint is found by its own name */
    }
    am_skeleton_free(&skel);
    return 0;
}
