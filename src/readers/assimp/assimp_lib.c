/* assimp loaded on first use (assimp_lib.h). */
#define _GNU_SOURCE /* RTLD_NODELETE */
#include "readers/assimp/assimp_lib.h"

#include <dlfcn.h>
#include <string.h>

#ifndef AM_ASSIMP_SONAME
#define AM_ASSIMP_SONAME "libassimp.so.5"
#endif

/* Kept loaded (RTLD_NODELETE): a C++ library with static objects is not safe to unload,
 * and the next file would pay the load again. */
am_status am_assimp_open(am_assimp_api *api, am_error *err)
{
    memset(api, 0, sizeof *api);
    void *lib = dlopen(AM_ASSIMP_SONAME, RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
    if (!lib) {
        const char *why = dlerror();
        return am_fail(err, AM_ERR_IO, "cannot load %s (assimp, the FBX reader): %s", AM_ASSIMP_SONAME,
                       why ? why : "?");
    }
    struct {
        const char *name;
        void *slot;
        size_t size;
    } calls[] = {
        {"aiImportFileExWithProperties", &api->import_file_ex_with_properties,
         sizeof api->import_file_ex_with_properties},
        {"aiReleaseImport", &api->release_import, sizeof api->release_import},
        {"aiGetErrorString", &api->get_error_string, sizeof api->get_error_string},
        {"aiCreatePropertyStore", &api->create_property_store, sizeof api->create_property_store},
        {"aiReleasePropertyStore", &api->release_property_store, sizeof api->release_property_store},
        {"aiSetImportPropertyInteger", &api->set_import_property_integer, sizeof api->set_import_property_integer},
        {"aiGetMaterialString", &api->get_material_string, sizeof api->get_material_string},
        {"aiGetMaterialColor", &api->get_material_color, sizeof api->get_material_color},
        {"aiGetMaterialFloatArray", &api->get_material_float_array, sizeof api->get_material_float_array},
        {"aiGetMaterialTextureCount", &api->get_material_texture_count, sizeof api->get_material_texture_count},
        {"aiGetMaterialTexture", &api->get_material_texture, sizeof api->get_material_texture},
    };
    for (size_t i = 0; i < sizeof calls / sizeof calls[0]; i++) {
        void *f = dlsym(lib, calls[i].name);
        if (!f || calls[i].size != sizeof f) {
            dlclose(lib);
            memset(api, 0, sizeof *api);
            return am_fail(err, AM_ERR_IO, "%s has no %s", AM_ASSIMP_SONAME, calls[i].name);
        }
        memcpy(calls[i].slot, &f, sizeof f); /* object to function pointer, as POSIX dlsym allows */
    }
    dlclose(lib); /* NODELETE: stays loaded; our reference is not needed */
    return AM_OK;
}
