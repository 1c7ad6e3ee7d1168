/* glTF materials (gltf.h): base colour factor and the base colour texture's image, from a
 * bufferView, a data: URI or a file inside the model's folder, sniffed as PNG or JPEG. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/io.h"
#include "readers/file_ref.h"
#include "readers/gltf/gltf_internal.h"
#include "texture/texture.h"

/* The image's type from its bytes; anything but PNG/JPEG is refused naming the image. */
static am_status check_image_bytes(am_gltf_ctx *c, const uint8_t *d, size_t n, const char *what, const char *declared,
                                   am_scene_material *m)
{
    const char *kind;
    am_image_type t = am_image_sniff(d, n, &kind);
    if (t == AM_IMAGE_OTHER)
        return am_gltf_fail(c, "%s: a %s image: only PNG and JPEG textures are read (convert it to PNG)", what, kind);
    if (t != AM_IMAGE_PNG && t != AM_IMAGE_JPEG)
        return am_gltf_fail(c, "%s: not a PNG or JPEG image (unrecognised bytes): only PNG and JPEG textures are read",
                         what);
    if (!am_string_set(&m->image_mime, am_image_mime(t)))
        return am_fail_nomem(c->err, "texture type");
    if (declared[0] && strcmp(declared, am_str(&m->image_mime)) != 0)
        am_scene_note(c->scene, "%s: declared '%s' but its bytes are %s", what, declared, kind);
    return AM_OK;
}

static am_status copy_bytes(am_gltf_ctx *c, const uint8_t *d, size_t n, const char *what, am_scene_material *m)
{
    if (n > AM_GLTF_MAX_IMAGE_BYTES)
        return am_gltf_fail(c, "%s: %zu bytes is over the %zu MiB image limit", what, n, AM_GLTF_MAX_IMAGE_BYTES >> 20);
    m->image_data = malloc(n ? n : 1);
    if (!m->image_data)
        return am_fail_nomem(c->err, what);
    memcpy(m->image_data, d, n);
    m->image_size = n;
    return AM_OK;
}

static am_status read_image(am_gltf_ctx *c, size_t image, am_scene_material *m)
{
    char what[64];
    json_t *obj = json_array_get(am_gltf_array(c, "images"), image);
    const char *name = am_gltf_get_string(obj, "name");
    snprintf(what, sizeof what, "images[%zu]%s%.30s%s", image, name[0] ? " '" : "", name, name[0] ? "'" : "");
    if (!json_is_object(obj))
        return am_gltf_fail(c, "%s: not an object", what);
    const char *declared = am_gltf_get_string(obj, "mimeType");
    int view;
    am_status st = am_gltf_get_index(c, obj, "bufferView", am_gltf_count(c, "bufferViews"), "bufferViews", false, what, &view);
    if (st)
        return st;
    json_t *juri = json_object_get(obj, "uri");
    if (view >= 0) {
        const uint8_t *d;
        size_t n, stride;
        if ((st = am_gltf_view_bytes(c, (size_t)view, what, &d, &n, &stride)) ||
            (st = check_image_bytes(c, d, n, what, declared, m)))
            return st;
        return copy_bytes(c, d, n, what, m);
    }
    const char *uri = json_string_value(juri);
    if (!uri)
        return am_gltf_fail(c, "%s: neither a uri nor a bufferView", what);
    if (strncmp(uri, "data:", 5) == 0) {
        uint8_t *d;
        size_t n;
        char mime[64];
        if ((st = am_gltf_data_uri(c, uri, what, AM_GLTF_MAX_IMAGE_BYTES, &d, &n, mime, sizeof mime)))
            return st;
        st = check_image_bytes(c, d, n, what, declared[0] ? declared : mime, m);
        if (st) {
            free(d);
            return st;
        }
        m->image_data = d;
        m->image_size = n;
        return AM_OK;
    }
    /* A file: resolved inside the folder; only its first bytes are read here (the import
     * pipeline decodes it). */
    char *path;
    if ((st = am_file_ref_resolve(c->base_dir, uri, true, &path, c->err)))
        return am_gltf_wrap(c, st, "%s", what);
    uint8_t head[16] = {0};
    size_t got = 0;
    am_error why;
    if (am_read_file_head(path, head, sizeof head, &got, NULL, &why)) {
        free(path);
        am_fail(c->err, AM_ERR_IO, "cannot open the image '%.80s': %s", uri, why.msg);
        return am_gltf_wrap(c, AM_ERR_IO, "%s", what);
    }
    char named[112];
    snprintf(named, sizeof named, "%s ('%.40s')", what, uri);
    if ((st = check_image_bytes(c, head, got, named, declared, m))) {
        free(path);
        return st;
    }
    m->image_path = path;
    return AM_OK;
}

static am_status read_material(am_gltf_ctx *c, size_t index, json_t *obj, void *item)
{
    am_scene_material *m = item;
    char where[40];
    snprintf(where, sizeof where, "materials[%zu]", index);
    for (int k = 0; k < 4; k++)
        m->base_color[k] = 1.0;
    am_status st = am_gltf_strdup(c, am_gltf_get_string(obj, "name"), &m->name);
    if (st)
        return st;
    json_t *pbr = json_object_get(obj, "pbrMetallicRoughness");
    if (!pbr)
        return AM_OK;
    char wp[64];
    snprintf(wp, sizeof wp, "%s.pbrMetallicRoughness", where);
    if ((st = am_gltf_get_numbers(c, pbr, "baseColorFactor", 4, wp, m->base_color)))
        return st;
    json_t *tex = json_object_get(pbr, "baseColorTexture");
    if (!tex)
        return AM_OK;
    char wt[96];
    snprintf(wt, sizeof wt, "%s.baseColorTexture", wp);
    int ti, image;
    if ((st = am_gltf_get_index(c, tex, "index", am_gltf_count(c, "textures"), "textures", true, wt, &ti)))
        return st;
    size_t texcoord;
    if ((st = am_gltf_get_size(c, tex, "texCoord", 0, 64, wt, &texcoord)))
        return st;
    if (texcoord != 0)
        am_scene_note(c->scene, "%s uses TEXCOORD_%zu: only TEXCOORD_0 is read", wt, texcoord);
    if (json_object_get(json_object_get(tex, "extensions"), "KHR_texture_transform"))
        am_scene_note(c->scene, "%s: KHR_texture_transform ignored (the UVs are used as stored)", wt);
    char wtex[32];
    snprintf(wtex, sizeof wtex, "textures[%d]", ti);
    json_t *texture = json_array_get(am_gltf_array(c, "textures"), (size_t)ti);
    if ((st = am_gltf_get_index(c, texture, "source", am_gltf_count(c, "images"), "images", false, wtex, &image)))
        return st;
    if (image < 0)
        return am_gltf_fail(c, "%s (of %s): no PNG/JPEG 'source' image (an extension-only texture such as KTX2 or "
                         "WebP is not read)", wtex, where);
    return read_image(c, (size_t)image, m);
}

am_status am_gltf_read_materials(am_gltf_ctx *c)
{
    return am_gltf_read_list(c, "materials", sizeof(am_scene_material), (void **)&c->scene->materials,
                          &c->scene->material_count, read_material);
}
