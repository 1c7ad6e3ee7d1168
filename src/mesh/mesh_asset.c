/* Mesh asset: ownership helpers and file loading (decoder in mesh_decode.c, encoder in
 * mesh_encode.c). */
#include "mesh/mesh_asset.h"

#include <stdlib.h>
#include <string.h>

const char *am_mesh_block_name(int block)
{
    static const char *names[AM_BLOCK_COUNT] = {"lowest_lod", "low_lod", "medium_lod", "high_lod",
                                                "skin", "physics_mesh", "physics_convex"};
    return block >= 0 && block < AM_BLOCK_COUNT ? names[block] : "?";
}

void am_mesh_face_free(am_mesh_face *f)
{
    if (!f)
        return;
    free(f->positions);
    free(f->normals);
    free(f->uvs);
    free(f->position_codes);
    free(f->normal_codes);
    free(f->uv_codes);
    free(f->indices);
    free(f->weight_count);
    free(f->weight_joint);
    free(f->weight_code);
    free(f->weight_value);
    memset(f, 0, sizeof *f);
}

static void lod_free(am_mesh_lod *lod)
{
    for (size_t i = 0; i < lod->face_count; i++)
        am_mesh_face_free(&lod->faces[i]);
    free(lod->faces);
    memset(lod, 0, sizeof *lod);
}

void am_mesh_skin_free(am_mesh_skin *skin)
{
    if (!skin)
        return;
    if (skin->joint_names)
        for (size_t i = 0; i < skin->joint_count; i++)
            free(skin->joint_names[i]);
    free(skin->joint_names);
    free(skin->inverse_bind);
    free(skin->alt_inverse_bind);
    memset(skin, 0, sizeof *skin);
}

static void free_strings(char **s, size_t n)
{
    if (s)
        for (size_t i = 0; i < n; i++)
            free(s[i]);
    free(s);
}

void am_mesh_asset_free(am_mesh_asset *a)
{
    if (!a)
        return;
    for (int i = 0; i < AM_LOD_COUNT; i++)
        lod_free(&a->lods[i]);
    lod_free(&a->physics_mesh);
    am_mesh_skin_free(&a->skin);
    free(a->physics_convex_raw);
    free_strings(a->material_list, a->material_count);
    free_strings(a->warnings, a->warning_count);
    memset(a, 0, sizeof *a);
}

/* A binary LLSD map: '{' then a big-endian count whose first byte is 0. A text file
 * where a binary asset belongs is a common mix-up (the meshdata JSON or the .dae beside
 * the .llmesh): say which. */
static am_status sniff_mesh(const uint8_t *h, size_t n, am_error *err)
{
    const char *kind = am_sniff_kind(h, n);
    if (strcmp(kind, "a binary mesh asset") == 0)
        return AM_OK;
    if (strcmp(kind, "JSON") == 0 || strncmp(kind, "XML", 3) == 0)
        return am_fail_at(err, AM_ERR_INVALID, 0, "this is a text file (%s), not a binary mesh asset (.llmesh / .slm)",
                          kind[0] == 'X' ? "XML: a .dae?" : "JSON: a meshdata or rig file?");
    return am_fail_at(err, AM_ERR_INVALID, 0, "not a binary mesh asset (.llmesh / .slm): the file is %s", kind);
}

const am_file_format am_mesh_asset_format = {"a mesh asset", AM_MESH_ASSET_MAX_FILE_BYTES, sniff_mesh};

am_status am_mesh_asset_load(const char *path, am_mesh_asset *out, am_error *err)
{
    memset(out, 0, sizeof *out);
    uint8_t *data = NULL;
    size_t size = 0;
    am_status s = am_read_file_as(path, &am_mesh_asset_format, &data, &size, err);
    if (s)
        return s;
    s = am_mesh_asset_decode(data, size, out, err);
    free(data);
    if (s)
        am_error_where(err, "%s", path);
    return s;
}
