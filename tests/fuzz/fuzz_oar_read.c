/* Fuzz the archive reader and check: any bytes give a checked archive or a clean error. */
#include <stddef.h>
#include <stdint.h>

#include "world/oar_check.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    am_oar_contents c;
    am_error err;
    if (am_oar_read(data, size, &c, &err) == AM_OK) {
        (void)am_oar_check(&c, NULL, &err);
        am_oar_diff d;
        if (am_oar_compare(&c, &c, &d, &err) == AM_OK)
            am_oar_diff_free(&d);
        am_oar_contents_free(&c);
    }
    return 0;
}
