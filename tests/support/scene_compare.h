/* Comparing two scenes field by field (src/scene/scene.h), every field of every struct,
 * floats bit for bit: what the scene stream's round trip and the assimp child must keep.
 * Fails the test naming the first field that differs ("meshes[0].uvs[17]"). A field added
 * to scene.h must be added here too (scene_stream.c's size assertions point the way). */
#ifndef AM_TESTS_SUPPORT_SCENE_COMPARE_H
#define AM_TESTS_SUPPORT_SCENE_COMPARE_H

#include "scene/scene.h"

void am_test_assert_scenes_equal(const am_scene *a, const am_scene *b);

#endif
