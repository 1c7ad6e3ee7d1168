/* glTF 2.0 reader entry (gltf.h): the GLB container, the JSON document, the asset and
 * extension checks, and the JSON helpers every part uses. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/bytes.h"
#include "core/io.h"
#include "core/json_text.h"
#include "readers/gltf/gltf_internal.h"

am_status am_gltf_wrap(am_gltf_ctx *c, am_status st, const char *fmt, ...)
{
    char place[128];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(place, sizeof place, fmt, ap);
    va_end(ap);
    am_error_where(c->err, "%s", place);
    am_error_where(c->err, "%s", c->source);
    return st;
}

json_t *am_gltf_array(am_gltf_ctx *c, const char *key)
{
    json_t *a = json_object_get(c->root, key);
    return json_is_array(a) ? a : NULL;
}

size_t am_gltf_count(am_gltf_ctx *c, const char *key)
{
    json_t *a = am_gltf_array(c, key);
    return a ? json_array_size(a) : 0;
}

am_status am_gltf_get_index(am_gltf_ctx *c, json_t *obj, const char *key, size_t limit, const char *limit_name,
                         bool required, const char *where, int *out)
{
    *out = -1;
    json_t *v = json_object_get(obj, key);
    if (!v) {
        if (required)
            return am_gltf_fail(c, "%s: '%s' is missing", where, key);
        return AM_OK;
    }
    if (!json_is_integer(v))
        return am_gltf_fail(c, "%s.%s: not an integer index", where, key);
    json_int_t i = json_integer_value(v);
    if (i < 0 || (uint64_t)i >= limit)
        return am_gltf_fail(c, "%s.%s: index %lld is out of range (the file has %zu %s)", where, key, (long long)i, limit,
                         limit_name);
    *out = (int)i;
    return AM_OK;
}

am_status am_gltf_get_size(am_gltf_ctx *c, json_t *obj, const char *key, size_t def, size_t max, const char *where,
                        size_t *out)
{
    *out = def;
    json_t *v = json_object_get(obj, key);
    if (!v)
        return AM_OK;
    if (!json_is_integer(v) || json_integer_value(v) < 0)
        return am_gltf_fail(c, "%s.%s: not a non-negative integer", where, key);
    if ((uint64_t)json_integer_value(v) > max)
        return am_gltf_fail(c, "%s.%s: %lld is over the limit of %zu", where, key, (long long)json_integer_value(v), max);
    *out = (size_t)json_integer_value(v);
    return AM_OK;
}

am_status am_gltf_get_numbers(am_gltf_ctx *c, json_t *obj, const char *key, size_t n, const char *where, double *out)
{
    json_t *v = json_object_get(obj, key);
    if (!v)
        return AM_OK;
    if (!json_is_array(v) || json_array_size(v) != n)
        return am_gltf_fail(c, "%s.%s: expected an array of %zu numbers", where, key, n);
    for (size_t i = 0; i < n; i++) {
        json_t *e = json_array_get(v, i);
        if (!json_is_number(e))
            return am_gltf_fail(c, "%s.%s[%zu]: not a number", where, key, i);
        out[i] = json_number_value(e);
    }
    return AM_OK;
}

const char *am_gltf_get_string(json_t *obj, const char *key)
{
    json_t *v = json_object_get(obj, key);
    return json_is_string(v) ? json_string_value(v) : "";
}

am_status am_gltf_read_list(am_gltf_ctx *c, const char *key, size_t item_size, void **items, size_t *count,
                         am_gltf_item_fn read)
{
    json_t *list = am_gltf_array(c, key);
    size_t n = list ? json_array_size(list) : 0;
    if (!n)
        return AM_OK;
    if (!(*items = calloc(n, item_size)))
        return am_fail_nomem(c->err, key);
    *count = n;
    for (size_t i = 0; i < n; i++) {
        json_t *obj = json_array_get(list, i);
        if (!json_is_object(obj))
            return am_gltf_fail(c, "%s[%zu]: not an object", key, i);
        am_status st = read(c, i, obj, (uint8_t *)*items + i * item_size);
        if (st)
            return st;
    }
    return AM_OK;
}

am_status am_gltf_strdup(am_gltf_ctx *c, const char *s, char **out)
{
    *out = am_strdup(s);
    return *out ? AM_OK : am_fail_nomem(c->err, "glTF name");
}

#define GLB_JSON 0x4E4F534Au /* "JSON" */
#define GLB_BIN 0x004E4942u  /* "BIN\0" */

/* The GLB container (glTF 2.0 4.4): header, then chunks of (length, type, data). */
static am_status read_glb(am_gltf_ctx *c, const uint8_t *d, size_t n, const uint8_t **json, size_t *json_size)
{
    if (n < 12)
        return am_gltf_fail(c, "truncated GLB: %zu bytes is shorter than its 12-byte header (the file was cut short: "
                            "copy or download it again, or export it again)", n);
    uint32_t version = am_le_u32(d + 4), length = am_le_u32(d + 8);
    if (version != 2) {
        am_fail_at(c->err, AM_ERR_INVALID, 4, "GLB version %u: only glTF 2.0 binaries are read%s", version,
                   version == 1 ? " (re-export as glTF 2.0)" : "");
        am_error_where(c->err, "%s", c->source);
        return AM_ERR_INVALID;
    }
    if (length > n) { /* cut short: say which chunk lost its end, and what to do */
        const char *lost = "the JSON chunk (the scene's description)";
        if (n >= 20) {
            uint64_t json_end = 20 + (uint64_t)am_le_u32(d + 12);
            if (json_end <= n)
                lost = "the binary chunk (the geometry, the weights and the embedded textures)";
        }
        am_fail_at(c->err, AM_ERR_INVALID, 8,
                   "truncated GLB: its header says %u bytes, the file has %zu (%zu missing, the end of %s); copy or "
                   "download the file again, or export it again from the modelling tool",
                   length, n, (size_t)length - n, lost);
        am_error_where(c->err, "%s", c->source);
        return AM_ERR_INVALID;
    }
    if (length != n) {
        am_fail_at(c->err, AM_ERR_INVALID, 8,
                   "GLB header says %u bytes, the file has %zu (%zu extra bytes after its end: a damaged copy?); "
                   "export it again",
                   length, n, n - (size_t)length);
        am_error_where(c->err, "%s", c->source);
        return AM_ERR_INVALID;
    }
    size_t at = 12;
    *json = NULL;
    for (size_t chunk = 0; at < n; chunk++) {
        if (n - at < 8) {
            am_fail_at(c->err, AM_ERR_INVALID, at, "GLB chunk %zu: %zu bytes left, less than a chunk header", chunk,
                       n - at);
            am_error_where(c->err, "%s", c->source);
            return AM_ERR_INVALID;
        }
        uint32_t len = am_le_u32(d + at), type = am_le_u32(d + at + 4);
        const char *name = type == GLB_JSON ? "JSON" : type == GLB_BIN ? "BIN" : "unknown";
        if (len > n - at - 8 || len % 4) {
            am_fail_at(c->err, AM_ERR_INVALID, at, "GLB chunk %zu (%s): length %u %s", chunk, name, len,
                       len % 4 ? "is not a multiple of 4 (chunks are 4-byte aligned)"
                               : "runs past the end of the file");
            am_error_where(c->err, "%s", c->source);
            return AM_ERR_INVALID;
        }
        const uint8_t *body = d + at + 8;
        if (chunk == 0) {
            if (type != GLB_JSON) {
                am_fail_at(c->err, AM_ERR_INVALID, at + 4, "GLB: the first chunk is not JSON (type 0x%08x)", type);
                am_error_where(c->err, "%s", c->source);
                return AM_ERR_INVALID;
            }
            *json = body;
            *json_size = len;
        } else if (type == GLB_BIN && !c->bin && chunk == 1) {
            c->bin = body;
            c->bin_size = len;
        } else {
            am_scene_note(c->scene, "GLB chunk %zu (%s, %u bytes) skipped", chunk, name, len);
        }
        at += 8 + (size_t)len;
    }
    if (!*json)
        return am_gltf_fail(c, "GLB: no JSON chunk");
    return AM_OK;
}

/* extensionsRequired: the ones whose data we read correctly without the extension's own
 * decoding (KHR_mesh_quantization: any component type, which we read anyway; appearance
 * extensions only change shading we do not carry). Anything else is refused by name. */
static bool extension_ok(const char *name)
{
    static const char *ok[] = {"KHR_mesh_quantization", "KHR_materials_", "KHR_lights_punctual",
                               "KHR_materials_variants", "KHR_xmp_json_ld"};
    for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++)
        if (strncmp(name, ok[i], strlen(ok[i])) == 0)
            return true;
    return false;
}

static am_status check_asset(am_gltf_ctx *c)
{
    json_t *asset = json_object_get(c->root, "asset");
    if (!json_is_object(asset))
        return am_gltf_fail(c, "asset: missing (not a glTF 2.0 file?)");
    const char *version = am_gltf_get_string(asset, "version");
    if (strncmp(version, "2.", 2) != 0)
        return am_gltf_fail(c, "asset.version '%s': only glTF 2.0 is read%s", version,
                         version[0] == '1' ? " (re-export as glTF 2.0)" : "");
    const char *min = am_gltf_get_string(asset, "minVersion");
    if (min[0] && strcmp(min, "2.0") != 0)
        return am_gltf_fail(c, "asset.minVersion '%s': this reader reads glTF 2.0", min);
    json_t *req = json_object_get(c->root, "extensionsRequired");
    for (size_t i = 0; json_is_array(req) && i < json_array_size(req); i++) {
        const char *e = json_string_value(json_array_get(req, i));
        if (e && !extension_ok(e))
            return am_gltf_fail(c, "extensionsRequired: '%s' is not supported (re-export without it)", e);
    }
    json_t *used = json_object_get(c->root, "extensionsUsed");
    for (size_t i = 0; json_is_array(used) && i < json_array_size(used); i++) {
        const char *e = json_string_value(json_array_get(used, i));
        if (e && strcmp(e, "KHR_mesh_quantization") != 0)
            am_scene_note(c->scene, "extension %s is used by the file and ignored", e);
    }
    const char *gen = am_gltf_get_string(asset, "generator");
    if (!am_string_setf(&c->scene->format_detail, "glTF %s%s%s%s", version, c->glb ? " (.glb)" : "",
                        gen[0] ? ", " : "", gen))
        return am_fail_nomem(c->err, "format detail");
    return AM_OK;
}

am_status am_gltf_read(const uint8_t *data, size_t size, const char *source, const char *base_dir, am_scene *out,
                       am_error *err)
{
    am_gltf_ctx c;
    memset(&c, 0, sizeof c);
    c.source = source ? source : "glTF";
    c.base_dir = base_dir ? base_dir : ".";
    c.err = err;
    c.scene = out;
    out->format = AM_SCENE_FORMAT_GLTF;
    if (size > AM_GLTF_MAX_FILE_BYTES)
        return am_gltf_fail(&c, "%zu bytes is over the %zu MiB glTF limit", size, AM_GLTF_MAX_FILE_BYTES >> 20);
    const uint8_t *json = data;
    size_t json_size = size;
    c.glb = size >= 4 && memcmp(data, "glTF", 4) == 0;
    am_status st;
    if (c.glb && (st = read_glb(&c, data, size, &json, &json_size)))
        return st;
    if (json_size >= 3 && json[0] == 0xEF && json[1] == 0xBB && json[2] == 0xBF) {
        json += 3; /* a UTF-8 byte order mark: not allowed by glTF 2.0, but harmless */
        json_size -= 3;
        am_scene_note(out, "the JSON starts with a UTF-8 byte order mark (skipped)");
    }
    if (c.glb && json_size > AM_GLTF_MAX_JSON_BYTES)
        return am_gltf_fail(&c, "GLB JSON chunk: %zu bytes is over the %zu MiB limit of a glTF's JSON", json_size,
                         AM_GLTF_MAX_JSON_BYTES >> 20);
    if (am_json_check_budget((const char *)json, json_size, AM_GLTF_JSON_TREE_BUDGET, c.source, err))
        return err->code;
    json_error_t jerr;
    c.root = json_loadb((const char *)json, json_size, JSON_REJECT_DUPLICATES, &jerr);
    if (!c.root && jerr.line < 0) /* no position: out of memory, or a limit of jansson's */
        return am_json_fail(err, &jerr, c.glb ? "GLB JSON chunk: " : "", c.source);
    if (!c.root)
        return am_gltf_fail(&c, "%sinvalid JSON at line %d column %d: %s", c.glb ? "GLB JSON chunk: " : "", jerr.line,
                         jerr.column, jerr.text);
    if (!json_is_object(c.root))
        st = am_gltf_fail(&c, "the JSON document is not an object");
    else
        st = check_asset(&c);
    out->declared.up = 2;       /* +Y */
    out->declared.forward = 3;  /* +Z: the asset's front faces +Z */
    out->declared.unit_m = 1.0; /* metres */
    if (!st)
        st = am_gltf_read_nodes(&c);
    if (!st)
        st = am_gltf_read_materials(&c);
    if (!st)
        st = am_gltf_read_skins(&c);
    if (!st)
        st = am_gltf_read_meshes(&c);
    if (!st)
        st = am_gltf_read_animations(&c);
    free(c.node_map);
    am_gltf_buffers_free(&c);
    json_decref(c.root);
    return st;
}
