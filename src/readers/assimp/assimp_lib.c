/* assimp loaded on first use (assimp_lib.h). */
#include "readers/assimp/assimp_lib.h"

#include <string.h>

#include "core/dynlib.h"

#ifndef AM_ASSIMP_SONAME
#define AM_ASSIMP_SONAME "libassimp.so.5"
#endif

am_status am_assimp_open(am_assimp_api *api, am_error *err)
{
    memset(api, 0, sizeof *api);
    const am_dynlib_call calls[] = {
        {"aiImportFileExWithProperties", &api->import_file_ex_with_properties},
        {"aiReleaseImport", &api->release_import},
        {"aiGetErrorString", &api->get_error_string},
        {"aiCreatePropertyStore", &api->create_property_store},
        {"aiReleasePropertyStore", &api->release_property_store},
        {"aiSetImportPropertyInteger", &api->set_import_property_integer},
        {"aiGetMaterialString", &api->get_material_string},
        {"aiGetMaterialColor", &api->get_material_color},
        {"aiGetMaterialFloatArray", &api->get_material_float_array},
        {"aiGetMaterialTextureCount", &api->get_material_texture_count},
        {"aiGetMaterialTexture", &api->get_material_texture},
    };
    return am_dynlib_open(AM_ASSIMP_SONAME, "assimp, the FBX reader", calls, sizeof calls / sizeof calls[0], NULL,
                          err);
}
