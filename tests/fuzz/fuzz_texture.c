/* Fuzz the texture decoders: arbitrary bytes as a PNG, as a JPEG (through the import
 * pipeline's sniffing am_image_decode) and as a JPEG-2000 code stream must give an image or
 * a clean error (with its chunk or marker and offset), never a crash or a leak. Decoded
 * images re-encode. Seeds: corpus/texture/ (small PNGs of every colour type, JPEGs and .j2c
 * streams, made for this project). */
#include <stddef.h>
#include <stdint.h>

#include "fuzz_common.h"
#include "texture/texture.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    am_tex_image img;
    am_error err;
    am_fuzz_dirty_error(&err);
    if (am_tex_png_decode(data, size, &img, &err) == AM_OK) {
        am_buf b = {0};
        (void)am_tex_png_encode(&img, &b, &err);
        am_buf_free(&b);
        am_tex_image_free(&img);
    } else {
        am_fuzz_format(&err);
    }
    am_fuzz_dirty_error(&err);
    if (am_tex_jpeg_decode(data, size, &img, &err) == AM_OK)
        am_tex_image_free(&img);
    else
        am_fuzz_format(&err);
    am_fuzz_dirty_error(&err);
    if (am_image_decode(data, size, &img, &err) == AM_OK)
        am_tex_image_free(&img);
    else
        am_fuzz_format(&err);
    am_fuzz_dirty_error(&err);
    if (am_j2c_decode(data, size, &img, &err) == AM_OK)
        am_tex_image_free(&img);
    else
        am_fuzz_format(&err);
    return 0;
}
