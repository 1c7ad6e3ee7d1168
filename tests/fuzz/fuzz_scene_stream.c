/* libFuzzer target for the scene stream decoder (src/scene/scene_stream.h): what the parent
 * reads from the assimp child (assimp_child.h), so a child that assimp's bugs have taken
 * over cannot reach the parent through it. Properties: no crash, no leak, no UB on any
 * input; a decoded scene goes through am_scene_finish as the parent's does, and a scene
 * it accepts re-encodes and decodes again. Seeds: tests/fuzz/corpus/scene_stream/ (streams
 * of a BVH and an OBJ scene, a hand-built rich scene and an error record). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_common.h"
#include "scene/scene_stream.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    am_scene s;
    am_error err;
    am_fuzz_dirty_error(&err);
    bool was_error = false;
    if (am_scene_stream_decode(data, size, &s, &was_error, &err) != AM_OK) {
        am_fuzz_format(&err);
        if (s.node_count || s.mesh_count || s.note_count)
            abort(); /* empty after any failure */
        return 0;
    }
    if (am_scene_finish(&s, &err) != AM_OK) {
        am_fuzz_format(&err);
        am_scene_free(&s);
        return 0;
    }
    uint8_t *again = NULL;
    size_t n = 0;
    if (am_scene_stream_encode(&s, &again, &n, &err) == AM_OK) {
        am_scene t;
        if (am_scene_stream_decode(again, n, &t, NULL, &err) != AM_OK)
            abort(); /* what we wrote must read back */
        am_scene_free(&t);
        free(again);
    }
    am_scene_free(&s);
    return 0;
}
