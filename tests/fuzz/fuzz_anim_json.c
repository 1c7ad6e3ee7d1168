/* libFuzzer target for the anim JSON reader (anim encode's input): any text gives a clean
 * error naming the field, or an anim that encodes, parses back and re-encodes to the same
 * bytes. Seeds: corpus/anim_json/; dictionary anim_json.dict. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "anim/anim.h"
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    am_error err;
    am_fuzz_dirty_error(&err);
    am_anim a;
    if (am_anim_from_json((const char *)data, size, "fuzz.json", &a, &err) != AM_OK) {
        am_fuzz_format(&err);
        return 0;
    }
    am_buf out = {0};
    if (am_anim_encode(&a, &out, &err) != AM_OK)
        abort(); /* what the reader accepted must encode */
    am_anim b;
    if (am_anim_parse(out.data, out.size, &b, &err) != AM_OK) {
        /* the JSON may name another version (the parser reads 1.0 only): else it must read back */
        if (a.version == AM_ANIM_VERSION && a.sub_version == AM_ANIM_SUBVERSION)
            abort();
        am_buf_free(&out);
        am_anim_free(&a);
        return 0;
    }
    am_buf again = {0};
    if (am_anim_encode(&b, &again, &err) != AM_OK || again.size != out.size || memcmp(again.data, out.data, out.size))
        abort(); /* byte for byte */
    am_buf js = {0};
    (void)am_anim_to_json(&b, &js, &err);
    am_buf_free(&js);
    am_buf_free(&again);
    am_anim_free(&b);
    am_buf_free(&out);
    am_anim_free(&a);
    return 0;
}
