/* libFuzzer target for the mesh asset decoder: binary-LLSD header, zlib blocks, faces,
 * weights, skin. The input is tried three ways: as a whole asset; as the inflated
 * high_lod block of an otherwise valid asset; as its inflated skin block (so mutations
 * reach face and skin decoding instead of dying in zlib). Whatever decodes must
 * re-encode and decode again, and any LLSD that parses must format and parse again. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "mesh/llsd.h"
#include "mesh/mesh_asset.h"
#include "mesh/zblock.h"
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void decode_and_roundtrip(const uint8_t *data, size_t size)
{
    am_error err;
    am_fuzz_dirty_error(&err);
    am_mesh_asset a;
    if (am_mesh_asset_decode(data, size, &a, &err) != AM_OK) {
        am_fuzz_format(&err);
        return;
    }
    am_buf out = {0};
    if (am_mesh_asset_encode(&a, &out, &err) == AM_OK) {
        am_mesh_asset b;
        if (am_mesh_asset_decode(out.data, out.size, &b, &err) != AM_OK)
            abort(); /* an asset we wrote must decode */
        am_mesh_asset_free(&b);
    }
    am_buf_free(&out);
    am_mesh_asset_free(&a);
}

/* header {high_lod: {offset 0, size n1}[, skin: {offset n1, size n2}]} + blocks */
static void wrap(const uint8_t *lod, size_t lod_n, const uint8_t *skin, size_t skin_n)
{
    am_error err;
    am_fuzz_dirty_error(&err);
    am_buf blocks = {0}, file = {0};
    if (am_zblock_deflate(lod, lod_n, &blocks, &err))
        goto done;
    size_t n1 = blocks.size;
    if (skin && am_zblock_deflate(skin, skin_n, &blocks, &err))
        goto done;
    am_llsd h;
    memset(&h, 0, sizeof h);
    am_llsd_set_map(&h);
    am_llsd *e = am_llsd_insert(&h, "high_lod", &err);
    am_llsd_set_map(e);
    am_llsd_set_integer(am_llsd_insert(e, "offset", &err), 0);
    am_llsd_set_integer(am_llsd_insert(e, "size", &err), (int32_t)n1);
    if (skin) {
        e = am_llsd_insert(&h, "skin", &err);
        am_llsd_set_map(e);
        am_llsd_set_integer(am_llsd_insert(e, "offset", &err), (int32_t)n1);
        am_llsd_set_integer(am_llsd_insert(e, "size", &err), (int32_t)(blocks.size - n1));
    }
    if (am_llsd_format(&h, &file, &err) == AM_OK && am_buf_append(&file, blocks.data, blocks.size, &err) == AM_OK)
        decode_and_roundtrip(file.data, file.size);
    am_llsd_free(&h);
done:
    am_buf_free(&blocks);
    am_buf_free(&file);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    am_error err;
    am_fuzz_dirty_error(&err);
    if (size > (1 << 20))
        return 0;

    am_llsd v;
    if (am_llsd_parse(data, size, NULL, &v, NULL, &err) == AM_OK) {
        am_buf b = {0};
        if (am_llsd_format(&v, &b, &err) == AM_OK) {
            am_llsd w;
            if (am_llsd_parse(b.data, b.size, NULL, &w, NULL, &err) != AM_OK)
                abort(); /* our own output must parse */
            am_llsd_free(&w);
        }
        am_buf_free(&b);
        am_llsd_free(&v);
    }

    decode_and_roundtrip(data, size);
    if (size && data[0] == '[') {
        /* as a LOD block, with a two-joint skin so weights can be valid */
        static const uint8_t skin[] = {
            '{', 0, 0, 0, 3, 'k', 0, 0, 0, 11, 'j', 'o', 'i', 'n', 't', '_', 'n', 'a', 'm', 'e', 's', '[', 0, 0,
            0, 2, 's', 0, 0, 0, 1, 'a', 's', 0, 0, 0, 1, 'b', ']', 'k', 0, 0, 0, 19, 'i', 'n', 'v', 'e', 'r', 's',
            'e', '_', 'b', 'i', 'n', 'd', '_', 'm', 'a', 't', 'r', 'i', 'x', '[', 0, 0, 0, 2, '[', 0, 0, 0, 16,
            'i', 0, 0, 0, 1, 'i', 0, 0, 0, 0, 'i', 0, 0, 0, 0, 'i', 0, 0, 0, 0, 'i', 0, 0, 0, 0, 'i', 0, 0, 0, 1,
            'i', 0, 0, 0, 0, 'i', 0, 0, 0, 0, 'i', 0, 0, 0, 0, 'i', 0, 0, 0, 0, 'i', 0, 0, 0, 1, 'i', 0, 0, 0, 0,
            'i', 0, 0, 0, 0, 'i', 0, 0, 0, 0, 'i', 0, 0, 0, 0, 'i', 0, 0, 0, 1, ']', '[', 0, 0, 0, 16, 'i', 0, 0,
            0, 1, 'i', 0, 0, 0, 0, 'i', 0, 0, 0, 0, 'i', 0, 0, 0, 0, 'i', 0, 0, 0, 0, 'i', 0, 0, 0, 1, 'i', 0, 0,
            0, 0, 'i', 0, 0, 0, 0, 'i', 0, 0, 0, 0, 'i', 0, 0, 0, 0, 'i', 0, 0, 0, 1, 'i', 0, 0, 0, 0, 'i', 0, 0,
            0, 0, 'i', 0, 0, 0, 0, 'i', 0, 0, 0, 0, 'i', 0, 0, 0, 1, ']', ']', 'k', 0, 0, 0, 17, 'b', 'i', 'n',
            'd', '_', 's', 'h', 'a', 'p', 'e', '_', 'm', 'a', 't', 'r', 'i', 'x', '[', 0, 0, 0, 16, 'i', 0, 0, 0,
            1, 'i', 0, 0, 0, 0, 'i', 0, 0, 0, 0, 'i', 0, 0, 0, 0, 'i', 0, 0, 0, 0, 'i', 0, 0, 0, 1, 'i', 0, 0, 0,
            0, 'i', 0, 0, 0, 0, 'i', 0, 0, 0, 0, 'i', 0, 0, 0, 0, 'i', 0, 0, 0, 1, 'i', 0, 0, 0, 0, 'i', 0, 0, 0,
            0, 'i', 0, 0, 0, 0, 'i', 0, 0, 0, 0, 'i', 0, 0, 0, 1, ']', '}'};
        wrap(data, size, skin, sizeof skin);
    } else if (size && data[0] == '{') {
        /* as a skin block beside a one-triangle LOD */
        static const uint8_t lod[] = {
            '[', 0, 0, 0, 1, '{', 0, 0, 0, 3, 'k', 0, 0, 0, 8, 'P', 'o', 's', 'i', 't', 'i', 'o', 'n', 'b', 0, 0,
            0, 18, 0, 0, 0, 0, 0, 0, 255, 255, 0, 0, 0, 0, 0, 0, 255, 255, 0, 0, 'k', 0, 0, 0, 14, 'P', 'o', 's',
            'i', 't', 'i', 'o', 'n', 'D', 'o', 'm', 'a', 'i', 'n', '{', 0, 0, 0, 0, '}', 'k', 0, 0, 0, 12, 'T',
            'r', 'i', 'a', 'n', 'g', 'l', 'e', 'L', 'i', 's', 't', 'b', 0, 0, 0, 6, 0, 0, 1, 0, 2, 0, '}', ']'};
        wrap(lod, sizeof lod, data, size);
    }
    return 0;
}
