/* Format recognition and the reader table (scene_load.h). */
#include "readers/scene_load.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "core/io.h"
#include "readers/assimp/assimp_child.h"
#include "readers/assimp/assimp_read.h"
#include "readers/bvh/bvh_scene.h"
#include "readers/collada/collada.h"
#include "readers/gltf/gltf.h"
#include "readers/obj/obj_read.h"
#include "scene/weld.h"

/* One row per reader. A reader adds its row here and its recogniser in am_scene_sniff. */
typedef struct reader_row {
    am_scene_format_info info;
    am_scene_reader_fn read;
    am_scene_reader_fn read_in_process; /* the same reader without its child (NULL: read runs in process) */
} reader_row;

static const reader_row readers[] = {
    {{AM_SCENE_FORMAT_COLLADA, "COLLADA", ".dae", AM_COLLADA_MAX_BYTES}, am_collada_read, NULL},
    {{AM_SCENE_FORMAT_GLTF, "glTF", ".gltf .glb", AM_GLTF_MAX_FILE_BYTES}, am_gltf_read, NULL},
    {{AM_SCENE_FORMAT_FBX, "FBX", ".fbx", AM_ASSIMP_MAX_FILE_BYTES}, am_fbx_read_isolated, am_fbx_read},
    {{AM_SCENE_FORMAT_ASSIMP, "assimp", AM_ASSIMP_EXTENSIONS, AM_ASSIMP_MAX_FILE_BYTES}, am_assimp_read_isolated,
     am_assimp_read},
    {{AM_SCENE_FORMAT_BVH, "BVH", ".bvh", (size_t)64 << 20}, am_scene_read_bvh, NULL},
    {{AM_SCENE_FORMAT_OBJ, "OBJ", ".obj", AM_OBJ_MAX_BYTES}, am_obj_read, NULL},
    {{AM_SCENE_FORMAT_UNKNOWN, NULL, NULL, 0}, NULL, NULL}, /* sentinel */
};

const am_scene_format_info *am_scene_format_lookup(am_scene_format format)
{
    for (size_t i = 0; readers[i].read; i++)
        if (readers[i].info.format == format)
            return &readers[i].info;
    return NULL;
}

static bool has_extension(const char *path, const char *ext)
{
    size_t n = strlen(path), e = strlen(ext);
    return n >= e && strcasecmp(path + n - e, ext) == 0;
}

am_scene_format am_scene_sniff(const uint8_t *head, size_t n, const char *path)
{
    if (n >= 4 && memcmp(head, "glTF", 4) == 0)
        return AM_SCENE_FORMAT_GLTF; /* GLB magic */
    if (n >= 20 && memcmp(head, "Kaydara FBX Binary", 18) == 0)
        return AM_SCENE_FORMAT_FBX;
    /* Text formats: skip a UTF-8 BOM and leading white space. */
    size_t i = 0;
    if (n >= 3 && head[0] == 0xEF && head[1] == 0xBB && head[2] == 0xBF)
        i = 3;
    while (i < n && (head[i] == ' ' || head[i] == '\t' || head[i] == '\r' || head[i] == '\n'))
        i++;
    const char *t = (const char *)head + i;
    size_t left = n - i;
    if (left >= 9 && memcmp(t, "HIERARCHY", 9) == 0)
        return AM_SCENE_FORMAT_BVH;
    if (left >= 1 && t[0] == '<') {
        /* XML: COLLADA when its root element is <COLLADA (after a prolog / comments). */
        const char *hit = NULL;
        for (size_t k = 0; k + 8 <= left && !hit; k++)
            if (memcmp(t + k, "<COLLADA", 8) == 0)
                hit = t + k;
        if (hit)
            return AM_SCENE_FORMAT_COLLADA;
    }
    if (left >= 1 && t[0] == '{' && has_extension(path, ".gltf"))
        return AM_SCENE_FORMAT_GLTF;
    if (left >= 1 && (t[0] == ';' || memcmp(t, "FBXHeaderExtension", left < 18 ? left : 18) == 0) &&
        has_extension(path, ".fbx"))
        return AM_SCENE_FORMAT_FBX; /* ASCII FBX */
    if (has_extension(path, ".obj"))
        return AM_SCENE_FORMAT_OBJ;
    /* A .dae the bytes above do not recognise still goes to the COLLADA reader, which says
     * what is wrong with it (not XML, another root element) instead of "unknown format". */
    if (has_extension(path, ".dae"))
        return AM_SCENE_FORMAT_COLLADA;
    if (am_assimp_recognise(head, n, path))
        return AM_SCENE_FORMAT_ASSIMP;
    return AM_SCENE_FORMAT_UNKNOWN;
}

static char *dir_of(const char *path)
{
    const char *slash = strrchr(path, '/');
    size_t n = slash ? (size_t)(slash - path) : 1;
    char *d = malloc(n + 1);
    if (!d)
        return NULL;
    if (slash) {
        memcpy(d, path, n);
        d[n] = '\0';
        if (n == 0)
            strcpy(d, "/");
    } else {
        strcpy(d, ".");
    }
    return d;
}

bool am_scene_reads_in_child(const char *path)
{
    uint8_t head[512];
    size_t n = 0;
    uint64_t file_size = 0;
    am_error ignored;
    am_error_clear(&ignored);
    if (am_read_file_head(path, head, sizeof head, &n, &file_size, &ignored))
        return false;
    am_scene_format format = am_scene_sniff(head, n, path);
    return format == AM_SCENE_FORMAT_FBX || format == AM_SCENE_FORMAT_ASSIMP;
}

am_status am_scene_load(const char *path, am_scene *out, am_error *err)
{
    return am_scene_load_ex(path, NULL, out, err);
}

am_status am_scene_load_ex(const char *path, const am_scene_load_options *opts, am_scene *out, am_error *err)
{
    memset(out, 0, sizeof *out);
    uint8_t head[512];
    size_t n = 0;
    uint64_t file_size = 0;
    am_status opened = am_read_file_head(path, head, sizeof head, &n, &file_size, err);
    if (opened)
        return opened; /* missing, unreadable, or not a regular file (a FIFO is not waited on) */
    if (file_size == 0) { /* said as it is, not "not a model file" */
        am_fail(err, AM_ERR_INVALID, "the file is empty (0 bytes): nothing to read; check the copy or export the "
                                     "model again");
        am_error_where(err, "%s", path);
        return AM_ERR_INVALID;
    }
    if (file_size == 0) { /* said as it is, not "not a model file" */
        am_fail(err, AM_ERR_INVALID, "the file is empty (0 bytes): nothing to read; check the copy or export the "
                                     "model again");
        am_error_where(err, "%s", path);
        return AM_ERR_INVALID;
    }
    am_scene_format format = am_scene_sniff(head, n, path);
    const am_scene_format_info *info = am_scene_format_lookup(format);
    const reader_row *row = NULL;
    for (size_t i = 0; readers[i].read; i++)
        if (readers[i].info.format == format)
            row = &readers[i];
    if (!info || !row) {
        am_fail(err, AM_ERR_INVALID,
                format == AM_SCENE_FORMAT_UNKNOWN
                    ? "not a model file animesh reads (COLLADA .dae, glTF .gltf/.glb, FBX, BVH, OBJ)"
                    : "this build has no reader for this format");
        am_error_where(err, "%s", path);
        return AM_ERR_INVALID;
    }
    if (file_size > info->max_bytes) {
        am_fail(err, AM_ERR_INVALID, "%s file of %lld bytes is over the %zu MB limit for that format", info->name,
                (long long)file_size, info->max_bytes >> 20);
        am_error_where(err, "%s", path);
        return AM_ERR_INVALID;
    }
    uint8_t *data = NULL;
    size_t size = 0;
    /* the limit again while reading: the file may have grown since it was looked at */
    const am_file_format bounded = {info->name, info->max_bytes, NULL};
    am_status st = am_read_file_as(path, &bounded, &data, &size, err);
    if (st)
        return st;
    out->source = am_strdup(path);
    out->base_dir = dir_of(path);
    if (!out->source || !out->base_dir) {
        free(data);
        am_scene_free(out);
        return am_fail_nomem(err, path);
    }
    out->format = format;
    out->skeleton = opts ? opts->skeleton : NULL;
    am_scene_reader_fn read = row->read;
    if (opts && opts->reader_process == AM_SCENE_READER_IN_PROCESS && row->read_in_process)
        read = row->read_in_process;
    st = read(data, size, out->source, out->base_dir, out, err);
    out->skeleton = NULL;
    free(data);
    if (!st)
        st = am_scene_finish(out, err);
    /* Welded here in the caller's process, whatever process read the file (the COLLADA
     * reader welds its faces itself, the uploader's way: nothing left to merge). */
    am_weld_stats weld = {0};
    if (!st && opts && opts->weld && format != AM_SCENE_FORMAT_COLLADA && !(st = am_scene_weld(out, &weld, err)) &&
        weld.meshes_welded)
        am_scene_note(out, "welded as the viewer's uploader welds (equal position, normal, UV and weights): %zu "
                           "vertices became %zu over %zu meshes",
                      weld.vertices_before, weld.vertices_after, weld.meshes_welded);
    if (st)
        am_scene_free(out);
    return st;
}
