/* libFuzzer target for the BVH reader and the viewer's BVH -> .anim conversion: any text
 * gives a clean error or a parse; whatever parses converts (default map, with the viewer
 * skeleton) or fails cleanly, and a converted anim encodes. Seeds: corpus/bvh/ and, at run
 * time, the CMU files (bvh.seeds). */
#include <stdint.h>
#include <stdlib.h>

#include "anim/bvh.h"
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

AM_FUZZ_INIT_WITH_SKELETON

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    am_error err;
    am_fuzz_dirty_error(&err);
    am_bvh b;
    if (am_bvh_parse((const char *)data, size, &b, &err) != AM_OK) {
        am_fuzz_format(&err);
        return 0;
    }
    if (am_fuzz_skel && b.frame_count * b.joint_count < 200000) {
        am_bvh_options o;
        am_bvh_options_init(&o);
        am_anim a;
        am_bvh_stats st;
        am_fuzz_dirty_error(&err);
        if (am_bvh_to_anim(&b, am_fuzz_skel, &o, &a, &st, &err) == AM_OK) {
            am_buf out = {0};
            if (am_anim_encode(&a, &out, &err) != AM_OK)
                abort(); /* a converted anim must encode */
            am_buf_free(&out);
            am_bvh_stats_free(&st);
            am_anim_free(&a);
        } else {
            am_fuzz_format(&err);
        }
    }
    am_bvh_free(&b);
    return 0;
}
