/* libFuzzer target for the OBJ reader: any bytes either fail with an error naming a line,
 * or read into a scene that am_scene_finish accepts (every index in range, every value
 * finite) - the reader must never hand on an index it did not check. External files are
 * looked up in a folder that does not exist, so only the bytes are read. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "readers/obj/obj_read.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    am_scene sc;
    memset(&sc, 0, sizeof sc);
    am_error err;
    if (am_obj_read(data, size, "fuzz.obj", "/nonexistent-animesh-fuzz", &sc, &err) == AM_OK) {
        for (size_t m = 0; m < sc.mesh_count; m++)
            for (size_t f = 0; f < sc.meshes[m].face_count; f++)
                for (size_t k = 0; k < sc.meshes[m].faces[f].index_count; k++)
                    if (sc.meshes[m].faces[f].indices[k] >= sc.meshes[m].vertex_count)
                        abort();
        /* finite values are am_scene_finish's job: it must decide without crashing */
        (void)am_scene_finish(&sc, &err);
    }
    am_scene_free(&sc);
    return 0;
}
