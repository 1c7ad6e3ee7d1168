/* The complete check of an archive animesh made: every asset decodes and is filed under the
 * content UUID of its bytes; every asset a part names is in the archive. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libxml/xmlstring.h>

#include "mesh/mesh_asset.h"
#include "world/checks.h"
#include "world/oar_check.h"

#define AM_PLYWOOD_TEXTURE "89556747-24cb-43ed-920b-47caed15465f"

typedef enum kind_id { K_MESH, K_ANIMATION, K_TEXTURE, K_SCRIPT } kind_id;

/* The asset kinds the writer files (oar.h) and the reader can decode: path suffix, the kind
 * named in the content UUID, and the OpenSim asset type an inventory item carries. */
static const struct {
    const char *suffix, *kind;
    int type;
} kinds[] = {{"_mesh.llmesh", "mesh", 49},
             {"_animation.bvh", "animation", 20},
             {"_texture.jp2", "texture", 0},
             {"_script.lsl", "script", 10}};
#define KIND_COUNT (sizeof kinds / sizeof kinds[0])

/* "assets/<uuid><suffix>": the UUID and the kind (-1 when the suffix is not one of ours, -2
 * when the name is not a UUID). */
static int asset_kind(const char *path, am_uuid *id)
{
    if (strncmp(path, "assets/", 7) != 0 || strlen(path) < 7 + 36)
        return -2;
    char u[37];
    memcpy(u, path + 7, 36);
    u[36] = 0;
    if (!am_uuid_parse(u, id))
        return -2;
    for (size_t k = 0; k < KIND_COUNT; k++)
        if (strcmp(path + 7 + 36, kinds[k].suffix) == 0)
            return (int)k;
    return -1;
}

static bool has_asset(const am_oar_contents *c, const am_uuid *id, int kind)
{
    char path[128], u[37];
    am_uuid_format(id, u);
    snprintf(path, sizeof path, "assets/%s%s", u, kinds[kind].suffix);
    return am_oar_find_entry(c, path) != NULL;
}

static am_status decode_asset(int kind, const am_oar_entry *e, am_error *err)
{
    switch ((kind_id)kind) {
    case K_MESH: {
        am_mesh_asset m;
        am_status s = am_mesh_asset_decode(e->data, e->size, &m, err);
        if (!s)
            am_mesh_asset_free(&m);
        return s;
    }
    case K_ANIMATION:
        return am_world_check_anim(e->data, e->size, NULL, false, NULL, err);
    case K_TEXTURE:
        return am_world_check_texture(e->data, e->size, NULL, NULL, err);
    case K_SCRIPT:
        if (memchr(e->data, 0, e->size) || !xmlCheckUTF8(e->data))
            return am_fail(err, AM_ERR_INVALID, "a script must be UTF-8 text");
        return AM_OK;
    }
    return AM_OK;
}

static am_status check_assets(const am_oar_contents *c, am_oar_check_report *rep, am_error *err)
{
    const char *salt = c->salt[0] ? c->salt : NULL;
    for (size_t i = 1; i < c->entry_count; i++) {
        const am_oar_entry *e = &c->entries[i];
        am_uuid filed, derived;
        int kind = asset_kind(e->path, &filed);
        am_status s = AM_OK;
        if (strncmp(e->path, "objects/", 8) == 0 || strncmp(e->path, "terrains/", 9) == 0 ||
            strncmp(e->path, "settings/", 9) == 0 || strncmp(e->path, "landdata/", 9) == 0)
            continue; /* objects are parsed by am_oar_read; the others are region data */
        if (kind == -2)
            s = am_fail(err, AM_ERR_INVALID, "unexpected entry (not archive.xml, objects/, assets/<uuid>..., "
                                             "terrains/, settings/ or landdata/)");
        else if (kind == -1)
            s = am_fail(err, AM_ERR_INVALID,
                        "an asset kind animesh does not write or decode (mesh, animation, texture, script): "
                        "it cannot be checked");
        for (size_t j = 1; !s && j < i; j++) {
            am_uuid other;
            if (asset_kind(c->entries[j].path, &other) >= 0 && memcmp(other.b, filed.b, 16) == 0)
                s = am_fail(err, AM_ERR_INVALID, "asset UUID filed twice (also %s)", c->entries[j].path);
        }
        if (!s)
            s = decode_asset(kind, e, err);
        if (!s)
            s = am_uuid_from_content_salted(kinds[kind].kind, salt, e->data, e->size, &derived, err);
        if (!s && memcmp(derived.b, filed.b, 16) != 0) {
            char d[37];
            am_uuid_format(&derived, d);
            s = am_fail(err, AM_ERR_INVALID,
                        "its %zu bytes give the content UUID %s%s%s: the entry was changed after it was written", e->size,
                        d, salt ? " with the salt " : " (no salt in archive.xml)", salt ? salt : "");
        }
        if (s) {
            am_error_where(err, "%s", e->path);
            return s;
        }
        size_t *count[] = {&rep->meshes, &rep->animations, &rep->textures, &rep->scripts};
        (*count[kind])++;
    }
    return AM_OK;
}

static am_status missing(am_error *err, const am_oar_object *o, size_t part, const char *what, const am_uuid *id,
                         const char *suffix)
{
    char u[37];
    am_uuid_format(id, u);
    am_status s = am_fail(err, AM_ERR_INVALID, "%s %s is not in the archive (no assets/%s%s)", what, u, u, suffix);
    am_error_where(err, "%s: part %zu (%s)", o->path, part, o->parts[part].name);
    return s;
}

static am_status check_references(const am_oar_contents *c, am_error *err)
{
    am_uuid plywood;
    am_uuid_parse(AM_PLYWOOD_TEXTURE, &plywood);
    static const am_uuid zero;
    for (size_t i = 0; i < c->object_count; i++) {
        const am_oar_object *o = &c->objects[i];
        for (size_t k = 0; k < o->part_count; k++) {
            const am_oar_part *p = &o->parts[k];
            /* OpenSim keeps the shape's SculptTexture, the viewer draws the ExtraParams' mesh:
             * both must be the same asset */
            if (p->has_sculpt_texture && (p->has_sculpt ? memcmp(p->sculpt_texture.b, p->sculpt.b, 16) != 0
                                                        : memcmp(p->sculpt_texture.b, zero.b, 16) != 0)) {
                char a[37], b[37] = "none";
                am_uuid_format(&p->sculpt_texture, a);
                if (p->has_sculpt)
                    am_uuid_format(&p->sculpt, b);
                am_status s = am_fail(err, AM_ERR_INVALID,
                                      "<SculptTexture> names %s but the ExtraParams sculpt entry names %s: OpenSim and "
                                      "the viewer would take different meshes",
                                      a, b);
                am_error_where(err, "%s: part %zu (%s)", o->path, k, p->name);
                return s;
            }
            if (p->has_sculpt && p->sculpt_type == 5 && !has_asset(c, &p->sculpt, K_MESH))
                return missing(err, o, k, "the mesh sculpt", &p->sculpt, kinds[K_MESH].suffix);
            if (p->has_texture && memcmp(p->texture.b, plywood.b, 16) != 0 && memcmp(p->texture.b, zero.b, 16) != 0 &&
                !has_asset(c, &p->texture, K_TEXTURE))
                return missing(err, o, k, "the default face's texture", &p->texture, kinds[K_TEXTURE].suffix);
            for (size_t t = 0; t < p->item_count; t++) {
                const am_oar_item *it = &p->items[t];
                int kind = -1;
                for (size_t q = 0; q < KIND_COUNT; q++)
                    if (kinds[q].type == it->type)
                        kind = (int)q;
                if (kind < 0) {
                    am_status s = am_fail(err, AM_ERR_INVALID,
                                          "inventory item \"%s\" has asset type %d, which animesh does not check",
                                          it->name, it->type);
                    am_error_where(err, "%s: part %zu (%s)", o->path, k, p->name);
                    return s;
                }
                if (!has_asset(c, &it->asset, kind)) {
                    char what[160];
                    snprintf(what, sizeof what, "inventory item \"%.60s\": its %s", it->name, kinds[kind].kind);
                    return missing(err, o, k, what, &it->asset, kinds[kind].suffix);
                }
            }
        }
    }
    return AM_OK;
}

am_status am_oar_check(const am_oar_contents *c, am_oar_check_report *report, am_error *err)
{
    am_oar_check_report rep;
    memset(&rep, 0, sizeof rep);
    if (c->object_count == 0)
        return am_fail(err, AM_ERR_INVALID, "no objects/ entry: the archive holds no object");
    am_status s = check_assets(c, &rep, err);
    if (!s)
        s = check_references(c, err);
    rep.objects = c->object_count;
    for (size_t i = 0; i < c->object_count; i++)
        rep.parts += c->objects[i].part_count;
    if (!s && report)
        *report = rep;
    return s;
}

am_status am_oar_check_bytes(const uint8_t *data, size_t size, am_oar_check_report *report, am_error *err)
{
    am_oar_contents c;
    am_status s = am_oar_read(data, size, &c, err);
    if (!s)
        s = am_oar_check(&c, report, err);
    am_oar_contents_free(&c);
    return s;
}
