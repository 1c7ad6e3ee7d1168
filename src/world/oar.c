/* Planning (checks + content UUIDs) and the tar.gz itself. */
#include "world/oar.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/text.h"
#include "world/checks.h"
#include "world/oar_pack.h"

/* A raw JPEG-2000 code stream starts with SOC (FF 4F) then SIZ (FF 51). */
static const uint8_t soc_siz_magic[4] = {0xff, 0x4f, 0xff, 0x51};

am_status am_oar_check_name(const char *what, const char *name, am_error *err)
{
    size_t n = name ? strlen(name) : 0;
    char shown[200];
    if (n == 0 || n > 63)
        return am_fail(err, AM_ERR_INVALID, "%s name \"%s\" must be 1..63 bytes", what,
                       am_text_shown(name, shown, sizeof shown));
    if (am_world_check_text(what, name, err))
        return AM_ERR_INVALID;
    if (strchr(name, '|'))
        return am_fail(err, AM_ERR_INVALID, "%s name \"%s\" holds '|' (OpenSim's inventory separator)", what,
                       am_text_shown(name, shown, sizeof shown));
    return AM_OK;
}

am_status am_oar_check_salt(const char *salt, am_error *err)
{
    size_t n = salt ? strlen(salt) : 0;
    if (n == 0 || n > AM_OAR_MAX_SALT)
        return am_fail(err, AM_ERR_INVALID, "UUID salt \"%s\" must be 1..%d characters", salt ? salt : "",
                       AM_OAR_MAX_SALT);
    for (size_t i = 0; i < n; i++) {
        char c = salt[i];
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '_' ||
              c == '-'))
            return am_fail(err, AM_ERR_INVALID, "UUID salt \"%s\" may hold only A-Z a-z 0-9 . _ -", salt);
    }
    return AM_OK;
}

void am_oar_plan_free(am_oar_plan *plan)
{
    free(plan->anim_assets);
    free(plan->anim_items);
    free(plan->child_part);
    free(plan->child_mesh);
    free(plan->child_texture);
    free(plan->child_has_texture);
    memset(plan, 0, sizeof *plan);
}

am_status am_oar_plan_make(const am_oar_input *in, am_oar_plan *plan, am_error *err)
{
    memset(plan, 0, sizeof *plan);
    if (!in->mesh || in->mesh_size == 0)
        return am_fail(err, AM_ERR_INVALID, "no mesh asset");
    if (in->texture) {
        if (in->texture_size < 4 || memcmp(in->texture, soc_siz_magic, 4) != 0)
            return am_fail(err, AM_ERR_INVALID,
                           "texture is not a JPEG-2000 code stream (.j2c starts FF 4F FF 51; a .jp2 file "
                           "must be converted, e.g. with animesh texture)");
    }
    static const char axis[3] = {'x', 'y', 'z'};
    for (int i = 0; i < 3; i++) {
        /* each value named on its own: a bad position says nothing about a scale */
        if (!isfinite(in->position[i]) || fabs(in->position[i]) > 100000)
            return am_fail(err, AM_ERR_INVALID, "position %c %g m is outside any region (|value| <= 100000 m)", axis[i],
                           in->position[i]);
        if (!isfinite(in->scale[i]) || in->scale[i] < 0 || in->scale[i] > 1000)
            return am_fail(err, AM_ERR_INVALID, "scale %c %g is outside 0..1000", axis[i], in->scale[i]);
    }
    if (in->object_name && in->object_name[0] && am_oar_check_name("object", in->object_name, err))
        return AM_ERR_INVALID;
    int play_found = in->play == NULL;
    for (size_t i = 0; i < in->anim_count; i++) {
        if (am_oar_check_name("animation", in->anims[i].name, err))
            return AM_ERR_INVALID;
        if (!in->anims[i].data || in->anims[i].size == 0)
            return am_fail(err, AM_ERR_INVALID, "animation \"%s\" is empty", in->anims[i].name);
        for (size_t j = 0; j < i; j++)
            if (strcmp(in->anims[i].name, in->anims[j].name) == 0)
                return am_fail(err, AM_ERR_INVALID, "two animations are named \"%s\"", in->anims[i].name);
        if (in->play && strcmp(in->play, in->anims[i].name) == 0)
            play_found = 1;
    }
    if (!play_found)
        return am_fail(err, AM_ERR_INVALID, "the play option %s names none of the animations given", in->play);
    const char *salt = in->uuid_salt && in->uuid_salt[0] ? in->uuid_salt : NULL;
    if (salt && am_oar_check_salt(salt, err))
        return AM_ERR_INVALID;

    for (size_t i = 0; i < in->child_count; i++) {
        const am_oar_child *c = &in->children[i];
        if (!c->mesh || c->mesh_size == 0)
            return am_fail(err, AM_ERR_INVALID, "linkset part %zu has no mesh asset", i + 2);
        if (c->texture && (c->texture_size < 4 || memcmp(c->texture, soc_siz_magic, 4) != 0))
            return am_fail(err, AM_ERR_INVALID, "linkset part %zu: texture is not a JPEG-2000 code stream", i + 2);
        if (c->name && c->name[0] && am_oar_check_name("prim", c->name, err))
            return AM_ERR_INVALID;
    }
    am_status s = am_uuid_from_content_salted("mesh", salt, in->mesh, in->mesh_size, &plan->mesh, err);
    if (!s && in->texture) {
        plan->has_texture = 1;
        s = am_uuid_from_content_salted("texture", salt, in->texture, in->texture_size, &plan->texture, err);
    }
    if (!s && in->face_texture_count > AM_OAR_MAX_FACES)
        s = am_fail(err, AM_ERR_INVALID, "%zu face textures: a prim has at most %d faces", in->face_texture_count,
                    AM_OAR_MAX_FACES);
    for (size_t f = 0; !s && f < in->face_texture_count; f++) {
        const am_oar_face_texture *ft = &in->face_textures[f];
        if (!ft->data)
            continue;
        if (ft->size < 4 || memcmp(ft->data, soc_siz_magic, 4) != 0)
            s = am_fail(err, AM_ERR_INVALID, "face %zu: texture is not a JPEG-2000 code stream", f);
        else if (!(s = am_uuid_from_content_salted("texture", salt, ft->data, ft->size, &plan->face_texture[f], err)))
            plan->face_has_texture[f] = 1;
    }
    if (!s && in->child_count) {
        plan->child_part = calloc(in->child_count, sizeof *plan->child_part);
        plan->child_mesh = calloc(in->child_count, sizeof *plan->child_mesh);
        plan->child_texture = calloc(in->child_count, sizeof *plan->child_texture);
        plan->child_has_texture = calloc(in->child_count, sizeof *plan->child_has_texture);
        if (!plan->child_part || !plan->child_mesh || !plan->child_texture || !plan->child_has_texture)
            s = am_fail_nomem(err, "OAR plan");
        for (size_t i = 0; !s && i < in->child_count; i++) {
            const am_oar_child *c = &in->children[i];
            s = am_uuid_from_content_salted("mesh", salt, c->mesh, c->mesh_size, &plan->child_mesh[i], err);
            if (!s && c->texture) {
                plan->child_has_texture[i] = 1;
                s = am_uuid_from_content_salted("texture", salt, c->texture, c->texture_size, &plan->child_texture[i], err);
            }
        }
    }
    if (s) {
        am_oar_plan_free(plan);
        return s;
    }
    if (in->anim_count) {
        plan->anim_assets = calloc(in->anim_count, sizeof *plan->anim_assets);
        plan->anim_items = calloc(in->anim_count, sizeof *plan->anim_items);
        if (!plan->anim_assets || !plan->anim_items) {
            am_oar_plan_free(plan);
            return am_fail_nomem(err, "OAR plan");
        }
    }
    /* The object's identity: everything that ends up in it. */
    am_buf d = {0};
    char u[37];
    am_uuid_format(&plan->mesh, u);
    s = am_buf_printf(&d, err, "mesh=%s;", u);
    if (!s && plan->has_texture) {
        am_uuid_format(&plan->texture, u);
        s = am_buf_printf(&d, err, "texture=%s;", u);
    }
    for (size_t f = 0; !s && f < in->face_texture_count; f++) /* only then: others keep their UUIDs */
        if (plan->face_has_texture[f]) {
            am_uuid_format(&plan->face_texture[f], u);
            s = am_buf_printf(&d, err, "face%zu=%s;", f, u);
        }
    for (size_t i = 0; !s && i < in->child_count; i++) {
        /* only a linkset's identity names its children: a single prim keeps its UUIDs */
        am_uuid_format(&plan->child_mesh[i], u);
        s = am_buf_printf(&d, err, "child=%s", u);
        if (!s && plan->child_has_texture[i]) {
            am_uuid_format(&plan->child_texture[i], u);
            s = am_buf_printf(&d, err, ":%s", u);
        }
        if (!s)
            s = am_buf_printf(&d, err, ":%s;", in->children[i].name ? in->children[i].name : "");
    }
    for (size_t i = 0; !s && i < in->anim_count; i++) {
        s = am_uuid_from_content_salted("animation", salt, in->anims[i].data, in->anims[i].size, &plan->anim_assets[i],
                                        err);
        if (!s) {
            am_uuid_format(&plan->anim_assets[i], u);
            s = am_buf_printf(&d, err, "anim=%s:%s;", in->anims[i].name, u);
        }
    }
    if (!s)
        s = am_buf_printf(&d, err, "play=%s;name=%s;pos=%.6f,%.6f,%.6f;scale=%.6f,%.6f,%.6f;time=%lld",
                          in->play ? in->play : "", in->object_name ? in->object_name : "", in->position[0],
                          in->position[1], in->position[2], in->scale[0], in->scale[1], in->scale[2],
                          (long long)in->creation_time);
    if (!s && salt)
        s = am_buf_printf(&d, err, ";salt=%s", salt);
    if (!s)
        s = am_uuid_from_content("object", d.data, d.size, &plan->part, err);
    if (!s)
        s = am_uuid_from_content("archive", d.data, d.size, &plan->archive_id, err);
    am_buf_free(&d);
    char part[37], name[160];
    am_uuid_format(&plan->part, part);
    for (size_t i = 0; !s && i < in->anim_count; i++) {
        snprintf(name, sizeof name, "item:%s:animation:%s", part, in->anims[i].name);
        am_uuid_from_name(name, &plan->anim_items[i]);
    }
    for (size_t i = 0; !s && i < in->child_count; i++) {
        snprintf(name, sizeof name, "part:%s:link:%zu", part, i + 2);
        am_uuid_from_name(name, &plan->child_part[i]);
    }
    if (!s && in->play) {
        char *script = NULL;
        s = am_oar_lsl_script(in->play, &script, err);
        if (!s)
            s = am_uuid_from_content_salted("script", salt, script, strlen(script), &plan->script, err);
        free(script);
        snprintf(name, sizeof name, "item:%s:script", part);
        am_uuid_from_name(name, &plan->script_item);
        plan->has_script = 1;
    }
    if (s)
        am_oar_plan_free(plan);
    return s;
}

typedef struct asset {
    am_uuid id;
    const char *suffix;
    const void *data;
    size_t size;
} asset;

/* Distinct assets only (two names or parts may share one). */
static void add_asset(asset *assets, size_t *na, const am_uuid *id, const char *suffix, const void *data, size_t size)
{
    for (size_t j = 0; j < *na; j++)
        if (memcmp(assets[j].id.b, id->b, 16) == 0)
            return;
    assets[(*na)++] = (asset){*id, suffix, data, size};
}

static int cmp_asset(const void *a, const void *b)
{
    return memcmp(((const asset *)a)->id.b, ((const asset *)b)->id.b, 16);
}

am_status am_oar_write(const am_oar_input *in, am_buf *out, am_error *err)
{
    am_oar_plan plan;
    am_status s = am_oar_plan_make(in, &plan, err);
    if (s)
        return s;
    am_buf xml_archive = {0}, xml_object = {0};
    char *script = NULL;
    asset *assets = calloc(in->anim_count + 3 + 2 * in->child_count + AM_OAR_MAX_FACES, sizeof *assets);
    am_oar_entry *entries = NULL;
    char *paths = NULL;
    if (!assets) {
        s = am_fail_nomem(err, "OAR assets");
        goto done;
    }
    if ((s = am_oar_archive_xml(in, &plan, &xml_archive, err)) || (s = am_oar_object_xml(in, &plan, &xml_object, err)))
        goto done;
    if (plan.has_script && (s = am_oar_lsl_script(in->play, &script, err)))
        goto done;

    /* Distinct assets (two names may share one .anim), sorted by UUID. */
    size_t na = 0;
    assets[na++] = (asset){plan.mesh, "_mesh.llmesh", in->mesh, in->mesh_size};
    if (plan.has_texture)
        assets[na++] = (asset){plan.texture, "_texture.jp2", in->texture, in->texture_size};
    if (plan.has_script)
        assets[na++] = (asset){plan.script, "_script.lsl", script, strlen(script)};
    for (size_t i = 0; i < in->anim_count; i++)
        add_asset(assets, &na, &plan.anim_assets[i], "_animation.bvh", in->anims[i].data, in->anims[i].size);
    for (size_t f = 0; f < in->face_texture_count && f < AM_OAR_MAX_FACES; f++)
        if (plan.face_has_texture[f])
            add_asset(assets, &na, &plan.face_texture[f], "_texture.jp2", in->face_textures[f].data,
                      in->face_textures[f].size);
    for (size_t i = 0; i < in->child_count; i++) {
        add_asset(assets, &na, &plan.child_mesh[i], "_mesh.llmesh", in->children[i].mesh, in->children[i].mesh_size);
        if (plan.child_has_texture[i])
            add_asset(assets, &na, &plan.child_texture[i], "_texture.jp2", in->children[i].texture,
                      in->children[i].texture_size);
    }
    qsort(assets, na, sizeof *assets, cmp_asset);

    /* archive.xml, the object, then the assets: packed as every OAR of ours is (oar_pack.h). */
    entries = calloc(na + 2, sizeof *entries);
    paths = calloc(na + 2, 512);
    if (!entries || !paths) {
        s = am_fail_nomem(err, "OAR entries");
        goto done;
    }
    snprintf(paths, 512, "archive.xml");
    entries[0] = (am_oar_entry){paths, xml_archive.data, xml_archive.size};
    am_oar_object_path(in, &plan, paths + 512, 512);
    entries[1] = (am_oar_entry){paths + 512, xml_object.data, xml_object.size};
    for (size_t i = 0; i < na; i++) {
        char id[37], *path = paths + 512 * (i + 2);
        am_uuid_format(&assets[i].id, id);
        snprintf(path, 512, "assets/%s%s", id, assets[i].suffix);
        entries[i + 2] = (am_oar_entry){path, (uint8_t *)assets[i].data, assets[i].size};
    }
    s = am_oar_pack(entries, na + 2, in->creation_time, out, err);

done:
    free(entries);
    free(paths);
    free(assets);
    free(script);
    am_buf_free(&xml_archive);
    am_buf_free(&xml_object);
    am_oar_plan_free(&plan);
    return s;
}

am_status am_oar_write_file(const am_oar_input *in, const char *path, am_error *err)
{
    am_buf b = {0};
    am_status s = am_oar_write(in, &b, err);
    if (!s)
        s = am_write_file_atomic(path, b.data, b.size, err);
    am_buf_free(&b);
    return s;
}
