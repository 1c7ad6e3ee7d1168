/* libFuzzer target for the skin reference JSON of `skin compare`: any text gives a clean
 * error or a skin that writes back, reads again and compares equal to itself. Seeds:
 * corpus/skin_json/; dictionary skin_json.dict. */
#include <stdint.h>
#include <stdlib.h>

#include "fuzz_common.h"
#include "mesh/skin_json.h"
#include "skin/skin_compare.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    am_error err;
    am_fuzz_dirty_error(&err);
    am_mesh_skin a;
    if (am_mesh_skin_json_parse((const char *)data, size, "fuzz.json", &a, &err) != AM_OK) {
        am_fuzz_format(&err);
        return 0;
    }
    am_buf out = {0};
    if (am_mesh_skin_json_write(&a, &out, &err) == AM_OK) {
        am_mesh_skin b;
        if (am_mesh_skin_json_parse((const char *)out.data, out.size, "written", &b, &err) != AM_OK)
            abort(); /* what we wrote must read back */
        am_skin_comparison c;
        if (am_skin_compare(&a, &b, NULL, &c, &err) == AM_OK) {
            if (c.failures)
                abort(); /* and be the same skin (17 significant digits round-trip) */
            am_skin_comparison_free(&c);
        }
        am_mesh_skin_free(&b);
    }
    am_buf_free(&out);
    am_mesh_skin_free(&a);
    return 0;
}
