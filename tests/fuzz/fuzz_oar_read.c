/* Fuzz the archive reader and check: any bytes give a checked archive or a clean error, and the
 * archive can be compared with itself. Seeds: corpus/oar_read/. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "fuzz_common.h"
#include "world/oar_check.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    am_oar_contents c;
    am_error err;
    am_fuzz_dirty_error(&err);
    if (am_oar_read(data, size, &c, &err) == AM_OK) {
        if (am_oar_check(&c, NULL, &err) != AM_OK)
            am_fuzz_format(&err);
        am_oar_diff d;
        if (am_oar_compare(&c, &c, &d, &err) == AM_OK)
            am_oar_diff_free(&d);
        am_oar_contents_free(&c);
    } else {
        am_fuzz_format(&err);
    }
    return 0;
}
