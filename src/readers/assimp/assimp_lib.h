/* assimp, loaded when a file is read through it rather than when animesh starts.
 *
 * libassimp (and the C++ runtime relocations it brings) was a fifth of every command's
 * start-up (5 of 25 ms measured on `animesh --help`), paid by every command although only
 * the FBX/glTF/OBJ-through-assimp readers use it, and those run in a child process
 * (assimp_child.h). am_assimp_open loads it (dlopen of the SONAME the build found, kept
 * loaded once loaded) and fills a table of the calls assimp_read.c and assimp_convert.c
 * make. No global state: every reader holds its own table. */
#ifndef AM_READERS_ASSIMP_LIB_H
#define AM_READERS_ASSIMP_LIB_H

#ifdef __cplusplus
extern "C" {
#endif

#include <assimp/cfileio.h>
#include <assimp/cimport.h>
#include <assimp/material.h>

#include "core/error.h"

typedef struct am_assimp_api {
    const struct aiScene *(*import_file_ex_with_properties)(const char *file, unsigned int flags,
                                                            struct aiFileIO *fs, const struct aiPropertyStore *props);
    void (*release_import)(const struct aiScene *scene);
    const char *(*get_error_string)(void);
    struct aiPropertyStore *(*create_property_store)(void);
    void (*release_property_store)(struct aiPropertyStore *p);
    void (*set_import_property_integer)(struct aiPropertyStore *store, const char *name, int value);
    enum aiReturn (*get_material_string)(const struct aiMaterial *mat, const char *key, unsigned int type,
                                         unsigned int index, struct aiString *out);
    enum aiReturn (*get_material_color)(const struct aiMaterial *mat, const char *key, unsigned int type,
                                        unsigned int index, struct aiColor4D *out);
    enum aiReturn (*get_material_float_array)(const struct aiMaterial *mat, const char *key, unsigned int type,
                                              unsigned int index, ai_real *out, unsigned int *max);
    unsigned int (*get_material_texture_count)(const struct aiMaterial *mat, enum aiTextureType type);
    enum aiReturn (*get_material_texture)(const struct aiMaterial *mat, enum aiTextureType type, unsigned int index,
                                          struct aiString *path, enum aiTextureMapping *mapping,
                                          unsigned int *uvindex, ai_real *blend, enum aiTextureOp *op,
                                          enum aiTextureMapMode *mapmode, unsigned int *flags);
} am_assimp_api;

/* Load assimp and fill api. AM_ERR_IO naming the library and dlerror's words when it is not
 * installed or lacks a call. */
am_status am_assimp_open(am_assimp_api *api, am_error *err);

#ifdef __cplusplus
}
#endif

#endif
