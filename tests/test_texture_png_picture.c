/* The rendered pictures' PNG writer (am_tex_png_encode_picture, src/texture/png_write.c): the
 * pixels read back exactly, by our reader and by libpng itself; RGB when every alpha is 255,
 * RGBA kept otherwise; the file is what the PNG spec says (signature, IHDR, IDAT, IEND with
 * their CRCs, every row filtered Up), checked here with zlib alone; bad images refused. */
#include <png.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "support/test_support.h"
#include "texture/texture.h"

static uint32_t be32(const uint8_t *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* A rendered-looking picture: a vertical gradient background, a disc of shaded colour and a
 * horizontal ramp, so rows differ from the rows above both a little and a lot. alpha_at:
 * the pixel index given alpha 40, or SIZE_MAX for none (every other alpha 255). */
static void make_picture(am_tex_image *img, uint32_t w, uint32_t h, uint32_t ch, size_t alpha_at)
{
    assert_int_equal(am_tex_image_alloc(img, w, h, ch, NULL), AM_OK);
    for (uint32_t y = 0; y < h; y++)
        for (uint32_t x = 0; x < w; x++) {
            size_t i = (size_t)y * w + x;
            uint8_t *px = img->pixels + i * ch;
            double dx = x - w / 2.0, dy = y - h / 2.0;
            bool inside = dx * dx + dy * dy < (double)h * h / 9;
            px[0] = (uint8_t)(238 - 34 * y / (h > 1 ? h - 1 : 1));
            px[1] = inside ? (uint8_t)(120 + (x * 7 + y * 3) % 64) : (uint8_t)(241 - 32 * y / (h > 1 ? h - 1 : 1));
            px[2] = (uint8_t)(x * 255 / (w > 1 ? w - 1 : 1));
            if (ch == 4)
                px[3] = i == alpha_at ? 40 : 255;
        }
}

/* libpng's own simplified reader, with nothing of ours in between. */
static void libpng_read(const am_buf *png, am_tex_image *out)
{
    png_image pi;
    memset(&pi, 0, sizeof pi);
    pi.version = PNG_IMAGE_VERSION;
    assert_true(png_image_begin_read_from_memory(&pi, png->data, png->size));
    uint32_t ch = (pi.format & PNG_FORMAT_FLAG_ALPHA) ? 4 : 3;
    pi.format = ch == 4 ? PNG_FORMAT_RGBA : PNG_FORMAT_RGB;
    assert_int_equal(am_tex_image_alloc(out, pi.width, pi.height, ch, NULL), AM_OK);
    assert_true(png_image_finish_read(&pi, NULL, out->pixels, (png_int_32)(pi.width * ch), NULL));
    png_image_free(&pi);
}

/* The pixels a file of `ch` channels should hold: the input's, without the alpha when ch is 3. */
static void assert_same_pixels(const am_tex_image *in, const am_tex_image *back, uint32_t ch)
{
    assert_int_equal(back->width, in->width);
    assert_int_equal(back->height, in->height);
    assert_int_equal(back->channels, ch);
    size_t n = (size_t)in->width * in->height;
    for (size_t i = 0; i < n; i++)
        assert_memory_equal(back->pixels + i * ch, in->pixels + i * in->channels, ch);
}

static void test_picture_round_trips_exactly_rgb_when_opaque_rgba_kept_otherwise(void **state)
{
    (void)state;
    const uint32_t sizes[][2] = {{1, 1}, {1, 9}, {9, 1}, {300, 200}, {2990, 7}};
    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
        uint32_t w = sizes[k][0], h = sizes[k][1];
        size_t last = (size_t)w * h - 1;
        /* channels in, the pixel with alpha 40 (none, the first, one in the middle rows,
         * the very last: the writer learns late that the picture is not opaque), channels out */
        const struct {
            uint32_t ch;
            size_t alpha_at;
            uint32_t file_ch;
        } cases[] = {{3, SIZE_MAX, 3}, {4, SIZE_MAX, 3}, {4, 0, 4}, {4, last / 2, 4}, {4, last, 4}};
        for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
            am_tex_image a, ours, theirs;
            make_picture(&a, w, h, cases[c].ch, cases[c].alpha_at);
            am_buf buf = {0};
            assert_int_equal(am_buf_append(&buf, "kept", 4, NULL), AM_OK);
            assert_int_equal(am_tex_png_encode_picture(&a, &buf, NULL), AM_OK);
            assert_memory_equal(buf.data, "kept", 4); /* appended after what was there */
            am_buf png = {buf.data + 4, buf.size - 4, buf.size - 4};
            assert_int_equal(png.data[25], cases[c].file_ch == 3 ? 2 : 6); /* IHDR colour type */
            assert_int_equal(am_tex_png_decode(png.data, png.size, &ours, NULL), AM_OK);
            assert_same_pixels(&a, &ours, cases[c].file_ch);
            libpng_read(&png, &theirs);
            assert_same_pixels(&a, &theirs, cases[c].file_ch);
            am_tex_image_free(&theirs);
            am_tex_image_free(&ours);
            am_tex_image_free(&a);
            am_buf_free(&buf);
        }
    }
}

/* Read with the spec and zlib only: the chunks in order with right CRCs, an IHDR of 8-bit
 * RGB, no interlace; the IDAT data inflates to rows each starting with filter byte 2 (Up),
 * each byte the pixel's minus the one above (the first row's minus zero). */
static void test_picture_file_is_png_with_every_row_filtered_up(void **state)
{
    (void)state;
    const uint32_t w = 40, h = 30;
    am_tex_image a;
    make_picture(&a, w, h, 4, SIZE_MAX);
    am_buf png = {0};
    assert_int_equal(am_tex_png_encode_picture(&a, &png, NULL), AM_OK);
    static const uint8_t signature[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
    assert_memory_equal(png.data, signature, 8);
    const char *order[] = {"IHDR", "IDAT", "IEND"};
    size_t pos = 8, idat = 0, idat_len = 0;
    for (int i = 0; i < 3; i++) {
        assert_true(pos + 12 <= png.size);
        uint32_t len = be32(png.data + pos);
        assert_true(pos + 12 + len <= png.size);
        assert_memory_equal(png.data + pos + 4, order[i], 4);
        assert_int_equal(be32(png.data + pos + 8 + len), (uint32_t)crc32(0, png.data + pos + 4, len + 4));
        if (i == 0) {
            const uint8_t *d = png.data + pos + 8;
            assert_int_equal(len, 13);
            assert_int_equal(be32(d), w);
            assert_int_equal(be32(d + 4), h);
            const uint8_t rest[5] = {8, 2, 0, 0, 0}; /* depth, RGB, deflate, adaptive, no interlace */
            assert_memory_equal(d + 8, rest, 5);
        }
        if (i == 1) {
            idat = pos + 8;
            idat_len = len;
        }
        pos += 12 + len;
    }
    assert_int_equal(pos, png.size);

    const size_t row = 1 + (size_t)w * 3;
    uLongf raw_n = row * h + 1; /* one spare byte: more data than the rows would fail here */
    uint8_t *raw = malloc(raw_n);
    assert_non_null(raw);
    assert_int_equal(uncompress(raw, &raw_n, png.data + idat, idat_len), Z_OK);
    assert_int_equal(raw_n, row * h);
    for (uint32_t y = 0; y < h; y++) {
        assert_int_equal(raw[y * row], 2);
        for (uint32_t x = 0; x < w; x++)
            for (int c = 0; c < 3; c++) {
                uint8_t cur = a.pixels[((size_t)y * w + x) * 4 + c];
                uint8_t up = y ? a.pixels[((size_t)(y - 1) * w + x) * 4 + c] : 0;
                assert_int_equal(raw[y * row + 1 + x * 3 + c], (uint8_t)(cur - up));
            }
    }
    free(raw);
    am_buf_free(&png);
    am_tex_image_free(&a);
}

/* No pixels, a zero side or other than 3 or 4 channels: AM_ERR_INVALID, nothing appended;
 * writing one names the path and leaves no file. */
static void test_picture_encoder_refuses_bad_images(void **state)
{
    (void)state;
    uint8_t px[4 * 4 * 4] = {0};
    const am_tex_image bad[] = {
        {4, 4, 4, NULL}, {0, 4, 4, px}, {4, 0, 3, px}, {4, 4, 2, px}, {4, 4, 5, px}, {4, 4, 0, px},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        am_buf buf = {0};
        assert_int_equal(am_buf_append(&buf, "kept", 4, NULL), AM_OK);
        am_error err;
        am_error_clear(&err);
        assert_int_equal(am_tex_png_encode_picture(&bad[i], &buf, &err), AM_ERR_INVALID);
        assert_string_equal(err.msg, "png: empty image or bad channel count");
        assert_int_equal(buf.size, 4);
        am_buf_free(&buf);
    }
    char dir[256], path[320];
    am_test_tmpdir(dir, sizeof dir);
    snprintf(path, sizeof path, "%s/bad.png", dir);
    am_error err;
    am_error_clear(&err);
    assert_int_equal(am_tex_png_write_picture(path, &bad[3], &err), AM_ERR_INVALID);
    assert_string_equal(err.where, path);
    assert_int_equal(access(path, F_OK), -1);
    am_test_rmtree(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_picture_round_trips_exactly_rgb_when_opaque_rgba_kept_otherwise),
        cmocka_unit_test(test_picture_file_is_png_with_every_row_filtered_up),
        cmocka_unit_test(test_picture_encoder_refuses_bad_images),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
