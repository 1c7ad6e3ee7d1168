/* What a library file is, from its content (batch.h: am_batch_sniff). The format comes from
 * the scene loader's own recogniser; whether a glTF, COLLADA or FBX file is a creature or a
 * motion comes from what it holds: a skin makes a model, animation without a mesh a motion.
 * This only sorts the library: the job's import reads the file for real. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "batch/batch.h"
#include "core/bytes.h"
#include "core/io.h"
#include "readers/scene_load.h"

/* A plain byte search (memmem needs _GNU_SOURCE), enough for sorting a library. */
static bool contains(const uint8_t *data, size_t size, const char *needle)
{
    size_t n = strlen(needle);
    if (n == 0 || size < n)
        return false;
    const uint8_t *end = data + size - n + 1;
    for (const uint8_t *p = data; p < end; p++) {
        p = memchr(p, (unsigned char)needle[0], (size_t)(end - p));
        if (!p)
            return false;
        if (memcmp(p, needle, n) == 0)
            return true;
    }
    return false;
}

static am_batch_file_kind say(char *why, size_t size, am_batch_file_kind kind, const char *text)
{
    if (why && size)
        snprintf(why, size, "%s", text);
    return kind;
}

/* glTF: the JSON (a .gltf file, or a GLB's first chunk) says whether it has skins, meshes and
 * animations. */
static am_batch_file_kind gltf_kind(const uint8_t *data, size_t size, char *why, size_t why_size)
{
    const uint8_t *json = data;
    size_t json_size = size;
    if (size >= 4 && memcmp(data, "glTF", 4) == 0) {
        if (size < 20)
            return say(why, why_size, AM_BATCH_FILE_OTHER, "a GLB file cut short (no JSON chunk)");
        uint32_t len = am_le_u32(data + 12);
        if (memcmp(data + 16, "JSON", 4) != 0 || len > size - 20)
            return say(why, why_size, AM_BATCH_FILE_OTHER, "a GLB file whose JSON chunk is missing or cut short");
        json = data + 20;
        json_size = len;
    }
    json_error_t jerr;
    json_t *root = json_loadb((const char *)json, json_size, 0, &jerr);
    if (!root)
        return say(why, why_size, AM_BATCH_FILE_OTHER, "a glTF file whose JSON does not parse");
    size_t skins = json_array_size(json_object_get(root, "skins"));
    size_t meshes = json_array_size(json_object_get(root, "meshes"));
    size_t anims = json_array_size(json_object_get(root, "animations"));
    json_decref(root);
    char text[128];
    snprintf(text, sizeof text, "a glTF file with %zu skin%s, %zu mesh%s, %zu animation%s", skins,
             skins == 1 ? "" : "s", meshes, meshes == 1 ? "" : "es", anims, anims == 1 ? "" : "s");
    if (skins && meshes)
        return say(why, why_size, AM_BATCH_FILE_MODEL, text);
    if (anims)
        return say(why, why_size, AM_BATCH_FILE_MOTION, text);
    return say(why, why_size, meshes ? AM_BATCH_FILE_UNRIGGED : AM_BATCH_FILE_OTHER, text);
}

static am_batch_file_kind collada_kind(const uint8_t *data, size_t size, char *why, size_t why_size)
{
    bool skin = contains(data, size, "<skin");
    bool geometry = contains(data, size, "<geometry");
    bool anim = contains(data, size, "<animation");
    if (skin && geometry) /* a job: a file cut short fails there, with the parser's words */
        return say(why, why_size, AM_BATCH_FILE_MODEL, "a COLLADA file with a skin controller");
    if (!contains(data, size, "</COLLADA>")) /* what is missing may be its skin: no verdict on it */
        return say(why, why_size, AM_BATCH_FILE_OTHER, "a COLLADA file cut short (no closing </COLLADA>)");
    if (anim)
        return say(why, why_size, AM_BATCH_FILE_MOTION, "a COLLADA file with animation and no skin");
    return say(why, why_size, geometry ? AM_BATCH_FILE_UNRIGGED : AM_BATCH_FILE_OTHER,
               geometry ? "a COLLADA file with geometry and no skin" : "a COLLADA file with no geometry");
}

/* FBX (binary or ASCII): object class names are plain bytes in both (node names are never
 * compressed); a skin is a "Deformer", a mesh a "Geometry", a clip "AnimationCurve"s. */
static am_batch_file_kind fbx_kind(const uint8_t *data, size_t size, char *why, size_t why_size)
{
    bool deformer = contains(data, size, "Deformer");
    bool geometry = contains(data, size, "Geometry");
    bool anim = contains(data, size, "AnimationCurve");
    if (deformer && geometry)
        return say(why, why_size, AM_BATCH_FILE_MODEL, "an FBX file with a skin deformer");
    if (anim && !geometry)
        return say(why, why_size, AM_BATCH_FILE_MOTION, "a motion-only FBX file (animation, no mesh)");
    return say(why, why_size, geometry ? AM_BATCH_FILE_UNRIGGED : AM_BATCH_FILE_OTHER,
               geometry ? "an FBX file with a mesh and no skin" : "an FBX file with neither mesh nor animation");
}

am_batch_file_kind am_batch_sniff(const char *path, char *why, size_t why_size)
{
    uint8_t head[AM_SNIFF_BYTES];
    size_t n = 0;
    uint64_t file_size = 0;
    am_error err;
    am_error_clear(&err);
    if (am_read_file_head(path, head, sizeof head, &n, &file_size, &err))
        return say(why, why_size, AM_BATCH_FILE_OTHER, err.msg);
    if (n == 0)
        return say(why, why_size, AM_BATCH_FILE_OTHER, "empty");
    if (n >= 4 && head[0] == 1 && head[1] == 0 && head[2] == 0 && head[3] == 0)
        return say(why, why_size, AM_BATCH_FILE_MOTION, "an .anim file");
    am_scene_format format = am_scene_sniff(head, n, path);
    const am_scene_format_info *info = am_scene_format_lookup(format);
    if (format == AM_SCENE_FORMAT_BVH)
        return say(why, why_size, AM_BATCH_FILE_MOTION, "a BVH file");
    if (format == AM_SCENE_FORMAT_OBJ)
        return say(why, why_size, AM_BATCH_FILE_UNRIGGED, "an OBJ mesh (no skin)");
    if (format == AM_SCENE_FORMAT_UNKNOWN || !info) {
        char text[128];
        snprintf(text, sizeof text, "%s, not a model or motion", am_sniff_kind(head, n));
        return say(why, why_size, AM_BATCH_FILE_OTHER, text);
    }
    if (format == AM_SCENE_FORMAT_ASSIMP)
        return say(why, why_size, AM_BATCH_FILE_MODEL, "a model assimp reads");
    if (file_size > info->max_bytes) {
        char text[160];
        snprintf(text, sizeof text, "a %s file of %llu bytes, over its limit of %zu", info->name,
                 (unsigned long long)file_size, info->max_bytes);
        return say(why, why_size, AM_BATCH_FILE_OTHER, text);
    }
    uint8_t *data = NULL;
    size_t size = 0;
    if (am_read_file(path, &data, &size, &err))
        return say(why, why_size, AM_BATCH_FILE_OTHER, err.msg);
    am_batch_file_kind kind = format == AM_SCENE_FORMAT_GLTF      ? gltf_kind(data, size, why, why_size)
                              : format == AM_SCENE_FORMAT_COLLADA ? collada_kind(data, size, why, why_size)
                                                                  : fbx_kind(data, size, why, why_size);
    free(data);
    return kind;
}
