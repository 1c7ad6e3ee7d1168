/* glTF buffers and bufferViews (gltf.h): a buffer is loaded when a view first needs it,
 * from the GLB BIN chunk, a base64 data: URI, or a file inside the model's folder. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "readers/file_ref.h"
#include "readers/gltf/gltf_internal.h"
#include "core/base64.h"

am_status am_gltf_data_uri(am_gltf_ctx *c, const char *uri, const char *what, size_t max_bytes, uint8_t **out,
                        size_t *size, char *mime, size_t mime_size)
{
    /* data:[<mediatype>][;base64],<data> (RFC 2397); glTF embeds base64 only. */
    const char *comma = strchr(uri, ',');
    if (!comma)
        return am_gltf_fail(c, "%s: data: URI without a ',' before its data", what);
    const char *meta = uri + 5;
    size_t meta_len = (size_t)(comma - meta);
    if (meta_len < 7 || memcmp(comma - 7, ";base64", 7) != 0)
        return am_gltf_fail(c, "%s: data: URI is not base64 (only ';base64,' data URIs are read)", what);
    if (mime) {
        size_t m = meta_len - 7;
        const char *semi = memchr(meta, ';', m);
        if (semi)
            m = (size_t)(semi - meta);
        snprintf(mime, mime_size, "%.*s", (int)m, meta);
    }
    size_t text = strlen(comma + 1);
    if (text / 4 * 3 > max_bytes)
        return am_gltf_fail(c, "%s: data: URI of %zu bytes is over the %zu MiB limit", what, text / 4 * 3,
                         max_bytes >> 20);
    am_status st = am_base64_decode(comma + 1, out, size, c->err);
    if (st)
        return am_gltf_wrap(c, st, "%s (data: URI)", what);
    return AM_OK;
}

static am_status load_buffer(am_gltf_ctx *c, size_t index)
{
    am_gltf_buffer *b = &c->buffers[index];
    json_t *obj = json_array_get(am_gltf_array(c, "buffers"), index);
    char where[48];
    snprintf(where, sizeof where, "buffers[%zu]", index);
    if (!json_is_object(obj))
        return am_gltf_fail(c, "%s: not an object", where);
    size_t length;
    am_status st = am_gltf_get_size(c, obj, "byteLength", 0, AM_GLTF_MAX_BUFFER_BYTES, where, &length);
    if (st)
        return st;
    if (!json_object_get(obj, "byteLength") || length == 0)
        return am_gltf_fail(c, "%s: byteLength is missing or 0", where);
    if (length > AM_GLTF_MAX_TOTAL_BUFFER_BYTES - c->buffer_bytes)
        return am_gltf_fail(c, "%s: the buffers together are over the %zu MiB limit", where,
                         AM_GLTF_MAX_TOTAL_BUFFER_BYTES >> 20);
    json_t *juri = json_object_get(obj, "uri");
    size_t have;
    if (!juri) {
        if (!c->glb || index != 0)
            return am_gltf_fail(c, "%s: no uri (only the first buffer of a .glb may omit it)", where);
        if (!c->bin)
            return am_gltf_fail(c, "%s: no uri and the GLB has no BIN chunk", where);
        b->data = c->bin;
        have = c->bin_size;
    } else {
        const char *uri = json_string_value(juri);
        if (!uri)
            return am_gltf_fail(c, "%s.uri: not a string", where);
        if (strncmp(uri, "data:", 5) == 0) {
            st = am_gltf_data_uri(c, uri, where, AM_GLTF_MAX_BUFFER_BYTES, &b->owned, &have, NULL, 0);
        } else {
            st = am_file_ref_read(c->base_dir, uri, true, AM_GLTF_MAX_BUFFER_BYTES, &b->owned, &have, NULL, c->err);
            if (st)
                return am_gltf_wrap(c, st, "%s", where);
        }
        if (st)
            return st;
        b->data = b->owned;
    }
    if (length > have)
        return am_gltf_fail(c, "%s: byteLength %zu but the data has %zu bytes", where, length, have);
    b->size = length;
    b->loaded = true;
    c->buffer_bytes += length;
    return AM_OK;
}

am_status am_gltf_view_bytes(am_gltf_ctx *c, size_t view, const char *what, const uint8_t **data, size_t *size,
                          size_t *stride)
{
    json_t *views = am_gltf_array(c, "bufferViews");
    char where[48];
    snprintf(where, sizeof where, "bufferViews[%zu]", view);
    json_t *obj = json_array_get(views, view);
    if (!json_is_object(obj))
        return am_gltf_fail(c, "%s (%s): not an object", where, what);
    if (!c->buffers) {
        c->buffer_count = am_gltf_count(c, "buffers");
        c->buffers = calloc(c->buffer_count ? c->buffer_count : 1, sizeof *c->buffers);
        if (!c->buffers)
            return am_fail_nomem(c->err, "glTF buffers");
    }
    int buffer;
    size_t offset, length;
    am_status st;
    if ((st = am_gltf_get_index(c, obj, "buffer", c->buffer_count, "buffers", true, where, &buffer)) ||
        (st = am_gltf_get_size(c, obj, "byteOffset", 0, SIZE_MAX / 4, where, &offset)) ||
        (st = am_gltf_get_size(c, obj, "byteLength", 0, SIZE_MAX / 4, where, &length)) ||
        (st = am_gltf_get_size(c, obj, "byteStride", 0, 252, where, stride)))
        return st;
    if (!json_object_get(obj, "byteLength") || length == 0)
        return am_gltf_fail(c, "%s: byteLength is missing or 0", where);
    if (*stride && (*stride < 4 || *stride % 4))
        return am_gltf_fail(c, "%s: byteStride %zu is not a multiple of 4 in 4..252", where, *stride);
    if (!c->buffers[buffer].loaded && (st = load_buffer(c, (size_t)buffer)))
        return st;
    const am_gltf_buffer *b = &c->buffers[buffer];
    if (offset > b->size || length > b->size - offset)
        return am_gltf_fail(c, "%s: byteOffset %zu + byteLength %zu is past the end of buffers[%d] (%zu bytes)", where,
                         offset, length, buffer, b->size);
    *data = b->data + offset;
    *size = length;
    return AM_OK;
}

void am_gltf_buffers_free(am_gltf_ctx *c)
{
    for (size_t i = 0; c->buffers && i < c->buffer_count; i++)
        free(c->buffers[i].owned);
    free(c->buffers);
    c->buffers = NULL;
}
