/* am_preview_write_files: the written files read back, named by their stems. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "anim/anim.h"
#include "core/outset.h"
#include "mesh/mesh_asset.h"
#include "preview/preview.h"
#include "readers/file_ref.h"
#include "skin/skin_build.h"
#include "texture/texture.h"

/* "dir/Bear_idle.anim" -> "Bear_idle" (into buf). */
static const char *stem_of(const char *path, char *buf, size_t size)
{
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    snprintf(buf, size, "%s", base);
    char *dot = strrchr(buf, '.');
    if (dot && dot != buf)
        *dot = '\0';
    return buf;
}

/* Read an input. A path inside base_dir (the folder `preview DIR` listed) is read only when
 * it resolves inside that folder, as a file a model refers to (readers/file_ref.h): a
 * symbolic link out of the folder, relative or absolute, is refused naming it. */
static am_status read_input(const char *path, const char *base_dir, const am_file_format *format, uint8_t **data,
                            size_t *size, am_error *err)
{
    size_t bl = base_dir ? strlen(base_dir) : 0;
    while (bl > 1 && base_dir[bl - 1] == '/')
        bl--;
    if (!base_dir || strncmp(path, base_dir, bl) != 0 || path[bl] != '/')
        return am_read_file_as(path, format, data, size, err);
    char dir[1024];
    snprintf(dir, sizeof dir, "%.*s", (int)bl, base_dir);
    char *real = NULL;
    am_status s = am_file_ref_resolve(dir, path + bl + 1, false, &real, err);
    if (!s)
        s = am_read_file_as(real, format, data, size, err);
    else
        am_error_where(err, "%s", path);
    free(real);
    return s;
}

/* STEM.png, STEM.jpg, STEM_texture.png or STEM_atlas.png beside the mesh: the first that
 * exists, read only when it resolves inside the mesh's folder (no link out of it). */
static am_status texture_beside(const char *mesh_path, uint8_t **data, size_t *size, am_error *err)
{
    static const char *const suffixes[] = {".png", ".jpg", "_texture.png", "_atlas.png"};
    char dir[1024], stem[512];
    const char *slash = strrchr(mesh_path, '/');
    snprintf(dir, sizeof dir, "%.*s", slash ? (int)(slash - mesh_path) : 1, slash ? mesh_path : ".");
    if (slash == mesh_path)
        snprintf(dir, sizeof dir, "/");
    snprintf(stem, sizeof stem, "%s", slash ? slash + 1 : mesh_path);
    char *dot = strrchr(stem, '.');
    if (dot && dot != stem)
        *dot = '\0';
    for (size_t k = 0; k < 4; k++) {
        char name[600], path[1700];
        snprintf(name, sizeof name, "%s%s", stem, suffixes[k]);
        snprintf(path, sizeof path, "%s/%s", dir, name);
        struct stat sb;
        if (lstat(path, &sb) != 0)
            continue;
        char *real = NULL;
        am_status s = am_file_ref_resolve(dir, name, false, &real, err);
        if (!s)
            s = am_read_file_as(real, &am_image_file_format, data, size, err);
        if (s)
            am_error_where(err, "%s (the texture beside %s)", path, mesh_path);
        free(real);
        return s;
    }
    return AM_OK;
}

am_status am_preview_write_files(const char *title, const char *base_dir, const char *const *mesh_paths,
                                 size_t mesh_count, const char *const *anim_paths, size_t anim_count,
                                 const am_skeleton *skel, am_buf *out, am_preview_stats *stats, am_error *err)
{
    if (!mesh_count)
        return am_fail(err, AM_ERR_USAGE, "preview: no mesh asset (.llmesh) given");
    am_preview_part *parts = calloc(mesh_count, sizeof *parts);
    am_preview_clip *clips = calloc(anim_count ? anim_count : 1, sizeof *clips);
    char(*names)[256] = calloc(mesh_count + anim_count, sizeof *names);
    am_status s = AM_OK;
    if (!parts || !clips || !names) {
        s = am_fail_nomem(err, "preview inputs");
        goto done;
    }
    for (size_t i = 0; i < mesh_count && !s; i++) {
        uint8_t *data = NULL;
        size_t size = 0;
        s = read_input(mesh_paths[i], base_dir, &am_mesh_asset_format, &data, &size, err);
        parts[i].mesh = data;
        parts[i].mesh_size = size;
        parts[i].name = stem_of(mesh_paths[i], names[i], sizeof names[i]);
        parts[i].source = mesh_paths[i];
        if (!s) {
            uint8_t *tex = NULL;
            size_t ts = 0;
            s = texture_beside(mesh_paths[i], &tex, &ts, err);
            parts[i].texture_image = tex;
            parts[i].texture_size = ts;
        }
    }
    for (size_t i = 0; i < anim_count && !s; i++) {
        uint8_t *data = NULL;
        size_t size = 0;
        s = read_input(anim_paths[i], base_dir, &am_anim_file_format, &data, &size, err);
        clips[i].anim = data;
        clips[i].anim_size = size;
        clips[i].name = stem_of(anim_paths[i], names[mesh_count + i], sizeof names[0]);
        clips[i].source = anim_paths[i];
    }
    if (!s) {
        am_preview_input in = {title, parts, mesh_count, clips, anim_count, skel, 0};
        s = am_preview_write(&in, out, stats, err);
    }
done:
    for (size_t i = 0; parts && i < mesh_count; i++) {
        free((void *)parts[i].mesh);
        free((void *)parts[i].texture_image);
    }
    for (size_t i = 0; clips && i < anim_count; i++)
        free((void *)clips[i].anim);
    free(parts);
    free(clips);
    free(names);
    return s;
}

am_status am_preview_add_to_set(am_outset *set, const char *page_name, const am_preview_input *in, am_error *err)
{
    am_buf page = {0};
    am_status s = am_preview_write(in, &page, NULL, err);
    if (!s)
        s = am_outset_add(set, page_name, page.data, page.size, err);
    if (s)
        am_error_where(err, "%s", page_name);
    am_buf_free(&page);
    return s;
}

am_status am_preview_skin_page(void *ctx, struct am_outset *set, const char *name, const uint8_t *mesh,
                               size_t mesh_size, const am_skeleton *skel, struct am_skin_summary *summary,
                               am_error *err)
{
    (void)ctx;
    char page[180];
    snprintf(page, sizeof page, "%s.preview.html", name);
    am_preview_part part = {name, mesh, mesh_size, NULL, 0, NULL};
    am_preview_input in = {name, &part, 1, NULL, 0, skel, 0};
    am_status st = am_preview_add_to_set(set, page, &in, err);
    if (!st && summary && !am_string_set(&summary->preview_path, am_outset_path(set, page)))
        st = am_fail_nomem(err, "preview path");
    return st;
}
