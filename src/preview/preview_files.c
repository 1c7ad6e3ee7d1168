/* am_preview_write_files: the written files read back, named by their stems. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "anim/anim.h"
#include "core/outset.h"
#include "preview/preview.h"

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

/* STEM.png, STEM.jpg, STEM_texture.png or STEM_atlas.png beside the mesh, read when it is a regular file. */
static void texture_beside(const char *mesh_path, uint8_t **data, size_t *size)
{
    static const char *const suffixes[] = {".png", ".jpg", "_texture.png", "_atlas.png"};
    char base[1024];
    snprintf(base, sizeof base, "%s", mesh_path);
    char *dot = strrchr(base, '.'), *slash = strrchr(base, '/');
    if (dot && (!slash || dot > slash))
        *dot = '\0';
    for (size_t k = 0; k < 4 && !*data; k++) {
        char path[1100];
        snprintf(path, sizeof path, "%s%s", base, suffixes[k]);
        struct stat sb;
        am_error ignored;
        if (stat(path, &sb) == 0 && S_ISREG(sb.st_mode) && am_read_file(path, data, size, &ignored))
            *data = NULL;
    }
}

am_status am_preview_write_files(const char *title, const char *const *mesh_paths, size_t mesh_count,
                                 const char *const *anim_paths, size_t anim_count, const am_skeleton *skel,
                                 am_buf *out, am_preview_stats *stats, am_error *err)
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
        s = am_read_file(mesh_paths[i], &data, &size, err);
        parts[i].mesh = data;
        parts[i].mesh_size = size;
        parts[i].name = stem_of(mesh_paths[i], names[i], sizeof names[i]);
        parts[i].source = mesh_paths[i];
        if (!s) {
            uint8_t *tex = NULL;
            size_t ts = 0;
            texture_beside(mesh_paths[i], &tex, &ts);
            parts[i].texture_image = tex;
            parts[i].texture_size = ts;
        }
    }
    for (size_t i = 0; i < anim_count && !s; i++) {
        uint8_t *data = NULL;
        size_t size = 0;
        s = am_read_file_as(anim_paths[i], &am_anim_file_format, &data, &size, err);
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
