/* Fuzz the FBX graph check run before assimp (src/readers/assimp/fbx_graph.h): arbitrary
 * bytes, as binary FBX (a valid header prepended, 7400 or 7500 by the first byte) and as
 * they come (ASCII), must give AM_OK with counts that fit the input or a clean error with an
 * offset inside it, never a crash, a read past the end or a leak. Seeds: fbx_graph.seeds
 * (Debian's assimp-testmodels FBX files, cut to 64 KiB). */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_common.h"
#include "readers/assimp/fbx_graph.h"

static void check(const uint8_t *data, size_t size)
{
    am_error err;
    am_fuzz_dirty_error(&err);
    am_fbx_graph_stats st;
    if (am_fbx_check_graph(data, size, &st, &err) == AM_OK) {
        if (st.links > size || st.roots > st.links || st.models > size)
            abort();
    } else {
        if (err.offset != AM_NO_OFFSET && err.offset > size)
            abort();
        am_fuzz_format(&err);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    check(data, size);
    if (size == 0)
        return 0;
    uint8_t *bin = malloc(size + 27);
    if (!bin)
        return 0;
    memcpy(bin, "Kaydara FBX Binary  \0\x1a\0", 23);
    uint32_t version = data[0] & 1 ? 7500 : 7400;
    for (int i = 0; i < 4; i++)
        bin[23 + i] = (uint8_t)(version >> (8 * i));
    memcpy(bin + 27, data + 1, size - 1);
    check(bin, size + 26);
    free(bin);
    return 0;
}
