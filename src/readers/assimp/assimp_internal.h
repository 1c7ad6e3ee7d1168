/* Shared by assimp_read.c (files, version gate, settings) and assimp_convert.c (aiScene ->
 * am_scene). assimp_read.h is the manual. */
#ifndef AM_READERS_ASSIMP_INTERNAL_H
#define AM_READERS_ASSIMP_INTERNAL_H

#include <assimp/scene.h>

#include "readers/assimp/assimp_lib.h"
#include "readers/assimp/assimp_read.h"

typedef struct ai_convert {
    const struct aiScene *ai;
    const am_assimp_api *api; /* the library's calls (assimp_lib.h) */
    am_scene *scene;
    am_error *err;
    const char *source;
    const char *base_dir;
    /* Per scene node: its aiNode, and the pivot helpers folded into it (outermost first):
     * helpers[helper_start[i] .. helper_start[i] + helper_count[i]). */
    const struct aiNode **ai_nodes;
    size_t *helper_start;
    size_t *helper_count;
    const struct aiNode **helpers;
    size_t helper_total;
} ai_convert;

/* "<joint>_$AssimpFbx$_<part>": a node assimp made for one FBX pivot/offset transform. */
bool am_assimp_is_pivot_helper(const char *name);

/* Fill the scene from the aiScene (nodes with helpers folded, meshes and skins,
 * materials, clips, declared frame); frees its own working arrays. */
am_status am_assimp_convert(ai_convert *cv);

#endif
