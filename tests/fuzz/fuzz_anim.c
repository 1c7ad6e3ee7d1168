/* libFuzzer target for the .anim decoder. Properties: no crash, no leak, no UB on any input;
 * a file that decodes re-encodes to exactly the input bytes; validation, JSON and playback
 * evaluation run on whatever decodes. Seeds: tests/fuzz/corpus/anim/. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "anim/anim.h"
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    am_anim a;
    am_error err;
    am_fuzz_dirty_error(&err);
    if (am_anim_parse(data, size, &a, &err) != AM_OK) {
        am_fuzz_format(&err);
        return 0;
    }
    am_buf out = {0};
    if (am_anim_encode(&a, &out, &err) != AM_OK || out.size != size || memcmp(out.data, data, size) != 0)
        abort(); /* a parsed file must re-encode byte for byte */
    am_buf_free(&out);
    am_anim_report rep;
    size_t errors = 1;
    if (am_anim_validate(&a, NULL, &rep, &err) == AM_OK) {
        errors = rep.errors;
        am_anim_report_free(&rep);
    }
    if (errors == 0) {
        am_anim_joint_pose *pose = calloc(a.joint_count, sizeof *pose);
        if (pose) {
            const double taus[] = {0.0, 0.25 * a.duration, 0.5 * a.duration, a.duration, 2.5 * a.duration + 0.1};
            for (size_t i = 0; i < sizeof taus / sizeof taus[0]; i++)
                am_anim_eval(&a, taus[i], pose);
            free(pose);
        }
        am_buf js = {0};
        (void)am_anim_to_json(&a, &js, &err);
        am_buf_free(&js);
    }
    am_anim_free(&a);
    return 0;
}
