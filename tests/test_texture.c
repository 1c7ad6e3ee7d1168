/* The texture module: PNG in/out, size rules, box resize, and the JPEG-2000 code stream
 * (lossless decodes exactly; lossy within a stated tolerance). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "support/test_support.h"
#include "texture/texture.h"

/* Stated tolerance of the lossy (9/7, last layer 5:1) mode on the smooth test picture. */
#define LOSSY_MIN_PSNR_DB 38.0
#define LOSSY_MAX_MEAN_ABS 1.5

static uint32_t lcg(uint32_t *s)
{
    *s = *s * 1664525u + 1013904223u;
    return *s >> 24;
}

static void make_noise(am_tex_image *img, uint32_t w, uint32_t h, uint32_t ch, uint32_t seed)
{
    assert_int_equal(am_tex_image_alloc(img, w, h, ch, NULL), AM_OK);
    for (size_t i = 0; i < (size_t)w * h * ch; i++)
        img->pixels[i] = (uint8_t)lcg(&seed);
}

/* Smooth gradients plus a few flat blocks: what a texture atlas looks like. */
static void make_picture(am_tex_image *img, uint32_t w, uint32_t h)
{
    assert_int_equal(am_tex_image_alloc(img, w, h, 3, NULL), AM_OK);
    for (uint32_t y = 0; y < h; y++)
        for (uint32_t x = 0; x < w; x++) {
            uint8_t *p = img->pixels + ((size_t)y * w + x) * 3;
            p[0] = (uint8_t)(255.0 * x / (w - 1));
            p[1] = (uint8_t)(255.0 * y / (h - 1));
            p[2] = (uint8_t)(128 + 100 * sin(x * 0.05) * cos(y * 0.05));
            if ((x / 64 + y / 64) % 3 == 0) {
                p[0] = 200;
                p[1] = 40;
                p[2] = 40;
            }
        }
}

static void be32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)(v >> 24);
    p[1] = (uint8_t)(v >> 16);
    p[2] = (uint8_t)(v >> 8);
    p[3] = (uint8_t)v;
}

/* A PNG built here with zlib, independently of the module's encoder: 8-bit, colour type
 * `ctype` (0 grey, 2 RGB), filter 0 on every row. */
static size_t handmade_png(uint8_t *out, size_t cap, uint32_t w, uint32_t h, int ctype, const uint8_t *px)
{
    uint32_t ch = ctype == 0 ? 1 : 3;
    size_t raw_n = (size_t)h * (1 + w * ch);
    uint8_t *raw = malloc(raw_n);
    assert_non_null(raw);
    for (uint32_t y = 0; y < h; y++) {
        raw[y * (1 + w * ch)] = 0;
        memcpy(raw + y * (1 + w * ch) + 1, px + (size_t)y * w * ch, w * ch);
    }
    uLongf zn = compressBound(raw_n);
    uint8_t *z = malloc(zn);
    assert_non_null(z);
    assert_int_equal(compress(z, &zn, raw, raw_n), Z_OK);
    size_t n = 0;
    static const uint8_t sig[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
    memcpy(out, sig, 8);
    n = 8;
    uint8_t ihdr[13];
    be32(ihdr, w);
    be32(ihdr + 4, h);
    ihdr[8] = 8;
    ihdr[9] = (uint8_t)ctype;
    ihdr[10] = ihdr[11] = ihdr[12] = 0;
    const struct {
        const char *type;
        const uint8_t *data;
        size_t len;
    } chunks[3] = {{"IHDR", ihdr, 13}, {"IDAT", z, zn}, {"IEND", NULL, 0}};
    for (int i = 0; i < 3; i++) {
        assert_le(n + 12 + chunks[i].len, cap);
        be32(out + n, (uint32_t)chunks[i].len);
        memcpy(out + n + 4, chunks[i].type, 4);
        if (chunks[i].len)
            memcpy(out + n + 8, chunks[i].data, chunks[i].len);
        uLong crc = crc32(0, out + n + 4, (uInt)(4 + chunks[i].len));
        be32(out + n + 8 + chunks[i].len, (uint32_t)crc);
        n += 12 + chunks[i].len;
    }
    free(raw);
    free(z);
    return n;
}

static void test_png_decode_reads_an_independently_built_rgb_png(void **state)
{
    (void)state;
    const uint8_t px[] = {255, 0, 0, 0, 255, 0, 0, 0, 255, 10, 20, 30, 40, 50, 60, 70, 80, 90};
    uint8_t file[512];
    size_t n = handmade_png(file, sizeof file, 3, 2, 2, px);
    am_tex_image img;
    am_error err;
    assert_int_equal(am_tex_png_decode(file, n, &img, &err), AM_OK);
    assert_int_equal(img.width, 3);
    assert_int_equal(img.height, 2);
    assert_int_equal(img.channels, 3);
    assert_memory_equal(img.pixels, px, sizeof px);
    am_tex_image_free(&img);
}

static void test_png_decode_expands_grey_to_rgb(void **state)
{
    (void)state;
    const uint8_t px[] = {0, 128, 255, 7};
    uint8_t file[512];
    size_t n = handmade_png(file, sizeof file, 2, 2, 0, px);
    am_tex_image img;
    assert_int_equal(am_tex_png_decode(file, n, &img, NULL), AM_OK);
    assert_int_equal(img.channels, 3);
    for (int i = 0; i < 4; i++)
        for (int c = 0; c < 3; c++)
            assert_int_equal(img.pixels[i * 3 + c], px[i]);
    am_tex_image_free(&img);
}

static void test_png_encode_then_decode_is_exact_rgb_and_rgba(void **state)
{
    (void)state;
    for (uint32_t ch = 3; ch <= 4; ch++) {
        am_tex_image a, b;
        make_noise(&a, 37, 19, ch, 7 + ch);
        am_buf buf = {0};
        assert_int_equal(am_tex_png_encode(&a, &buf, NULL), AM_OK);
        assert_int_equal(am_tex_png_decode(buf.data, buf.size, &b, NULL), AM_OK);
        assert_int_equal(b.channels, ch);
        assert_int_equal(b.width, 37);
        assert_int_equal(b.height, 19);
        assert_memory_equal(a.pixels, b.pixels, (size_t)37 * 19 * ch);
        am_buf_free(&buf);
        am_tex_image_free(&a);
        am_tex_image_free(&b);
    }
}

/* Our own encoder (one pass over zlib, a filter chosen per row) read back by libpng: exact
 * for every shape from one pixel to a wide picture, appended after what the buffer already
 * holds, and a smooth picture (a render's background and shading) packed far below its raw
 * size, which only working row filters give. */
static void test_png_encoder_round_trips_through_libpng_and_packs_smooth_pictures(void **state)
{
    (void)state;
    const uint32_t sizes[][2] = {{1, 1}, {1, 9}, {9, 1}, {300, 200}};
    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++)
        for (uint32_t ch = 3; ch <= 4; ch++) {
            uint32_t w = sizes[k][0], h = sizes[k][1];
            am_tex_image a, b;
            assert_int_equal(am_tex_image_alloc(&a, w, h, ch, NULL), AM_OK);
            for (uint32_t y = 0; y < h; y++)
                for (uint32_t x = 0; x < w; x++) {
                    uint8_t *px = a.pixels + ((size_t)y * w + x) * ch;
                    double dx = x - w / 2.0, dy = y - h / 2.0;
                    bool inside = dx * dx + dy * dy < (double)(h * h) / 9;
                    px[0] = (uint8_t)(238 - 34 * y / (h > 1 ? h - 1 : 1));
                    px[1] = inside ? (uint8_t)(120 + x % 64) : (uint8_t)(241 - 32 * y / (h > 1 ? h - 1 : 1));
                    px[2] = (uint8_t)(x * 255 / (w > 1 ? w - 1 : 1));
                    if (ch == 4)
                        px[3] = inside ? 255 : 0;
                }
            am_buf buf = {0};
            assert_int_equal(am_buf_append(&buf, "kept", 4, NULL), AM_OK);
            assert_int_equal(am_tex_png_encode(&a, &buf, NULL), AM_OK);
            assert_memory_equal(buf.data, "kept", 4);
            assert_int_equal(am_tex_png_decode(buf.data + 4, buf.size - 4, &b, NULL), AM_OK);
            assert_int_equal(b.width, w);
            assert_int_equal(b.height, h);
            assert_int_equal(b.channels, ch);
            assert_memory_equal(a.pixels, b.pixels, (size_t)w * h * ch);
            if (w * h > 1000) /* 180 kB raw: filtered and deflated to a few kB */
                assert_lt(buf.size - 4, (size_t)w * h * ch / 20);
            am_buf_free(&buf);
            am_tex_image_free(&a);
            am_tex_image_free(&b);
        }
}

static void test_png_decode_refuses_garbage_and_truncation(void **state)
{
    (void)state;
    am_tex_image img;
    am_error err;
    const uint8_t junk[] = "GIF89a not a png at all";
    assert_int_equal(am_tex_png_decode(junk, sizeof junk, &img, &err), AM_ERR_INVALID);
    assert_non_null(strstr(err.msg, "not a PNG"));
    assert_null(img.pixels);

    const uint8_t px[] = {1, 2, 3, 4, 5, 6};
    uint8_t file[512];
    size_t n = handmade_png(file, sizeof file, 2, 1, 2, px);
    am_error_clear(&err);
    assert_int_equal(am_tex_png_decode(file, 20, &img, &err), AM_ERR_INVALID);
    assert_null(img.pixels);
    /* damage is named by chunk and byte offset: IHDR at 8, IDAT at 33 */
    assert_int_equal(am_tex_png_decode(file, n - 20, &img, &err), AM_ERR_INVALID);
    assert_non_null(strstr(err.msg, "chunk IDAT of"));
    assert_int_equal(err.offset, 33);
    file[20] ^= 0x01; /* inside IHDR's data */
    assert_int_equal(am_tex_png_decode(file, n, &img, &err), AM_ERR_INVALID);
    assert_string_equal(err.msg, "corrupt PNG: chunk IHDR fails its CRC check");
    assert_int_equal(err.offset, 8);
    file[20] ^= 0x01;
    /* zlib damage inside IDAT (CRC made right again): libpng's words, at IDAT's offset */
    size_t idat = 33,
           idat_len = ((size_t)file[33] << 24) | ((size_t)file[34] << 16) | ((size_t)file[35] << 8) | file[36];
    file[idat + 8 + 2] ^= 0xFF;
    uLong crc = crc32(0, file + idat + 4, (uInt)(4 + idat_len));
    be32(file + idat + 8 + idat_len, (uint32_t)crc);
    assert_int_equal(am_tex_png_decode(file, n, &img, &err), AM_ERR_INVALID);
    assert_non_null(strstr(err.msg, "corrupt PNG: IDAT"));
    assert_int_equal(err.offset, 33);
    assert_null(img.pixels);
}

static void test_size_rule_accepts_powers_of_two_up_to_1024(void **state)
{
    (void)state;
    assert_int_equal(am_texture_check_size(1, 1, NULL), AM_OK);
    assert_int_equal(am_texture_check_size(1024, 1024, NULL), AM_OK);
    assert_int_equal(am_texture_check_size(512, 8, NULL), AM_OK);
    am_error err;
    am_error_clear(&err);
    assert_int_equal(am_texture_check_size(1000, 512, &err), AM_ERR_INVALID);
    assert_non_null(strstr(err.msg, "power of two"));
    assert_non_null(strstr(err.msg, "512x512")); /* what --resize would make */
    am_error_clear(&err);
    assert_int_equal(am_texture_check_size(2048, 64, &err), AM_ERR_INVALID);
    assert_non_null(strstr(err.msg, "at most 1024"));
    assert_int_equal(am_texture_check_size(0, 4, NULL), AM_ERR_INVALID);
    assert_int_equal(am_texture_fit_side(1000), 512);
    assert_int_equal(am_texture_fit_side(1024), 1024);
    assert_int_equal(am_texture_fit_side(4000), 1024);
    assert_int_equal(am_texture_fit_side(3), 2);
    assert_int_equal(am_texture_fit_side(1), 1);
}

static void test_box_resize_averages_covered_area(void **state)
{
    (void)state;
    /* 3 -> 2 pixels: out0 covers input [0, 1.5): (1 * 0 + 0.5 * 90) / 1.5 = 30;
     * out1 covers [1.5, 3): (0.5 * 90 + 1 * 180) / 1.5 = 150. Same in y (one row). */
    am_tex_image in, out;
    assert_int_equal(am_tex_image_alloc(&in, 3, 1, 3, NULL), AM_OK);
    const uint8_t v[3] = {0, 90, 180};
    for (int x = 0; x < 3; x++)
        for (int c = 0; c < 3; c++)
            in.pixels[x * 3 + c] = v[x];
    assert_int_equal(am_tex_resize_box(&in, 2, 1, &out, NULL), AM_OK);
    assert_int_equal(out.pixels[0], 30);
    assert_int_equal(out.pixels[3], 150);
    am_tex_image_free(&out);
    am_tex_image_free(&in);

    /* 4x4 -> 2x2 is the mean of each 2x2 block. */
    make_noise(&in, 4, 4, 4, 99);
    assert_int_equal(am_tex_resize_box(&in, 2, 2, &out, NULL), AM_OK);
    for (int y = 0; y < 2; y++)
        for (int x = 0; x < 2; x++)
            for (int c = 0; c < 4; c++) {
                int sum = 0;
                for (int dy = 0; dy < 2; dy++)
                    for (int dx = 0; dx < 2; dx++)
                        sum += in.pixels[((2 * y + dy) * 4 + 2 * x + dx) * 4 + c];
                int expect = (int)floor(sum / 4.0 + 0.5);
                assert_int_equal(out.pixels[(y * 2 + x) * 4 + c], expect);
            }
    am_tex_image_free(&out);
    am_tex_image_free(&in);
}

static uint32_t rd32(const uint8_t *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static void test_j2c_is_a_raw_code_stream_with_the_right_siz(void **state)
{
    (void)state;
    am_tex_image img;
    make_picture(&img, 256, 128);
    am_buf b = {0};
    am_j2c_options o = {false};
    assert_int_equal(am_j2c_encode(&img, &o, &b, NULL), AM_OK);
    /* SOC, SIZ; Xsiz at byte 8, Ysiz at 12, Csiz at 40 (ISO 15444-1 A.5.1); EOC at the end. */
    assert_gt(b.size, 100);
    assert_int_equal(b.data[0], 0xFF);
    assert_int_equal(b.data[1], 0x4F);
    assert_int_equal(b.data[2], 0xFF);
    assert_int_equal(b.data[3], 0x51);
    assert_int_equal(rd32(b.data + 8), 256);
    assert_int_equal(rd32(b.data + 12), 128);
    assert_int_equal(b.data[40] << 8 | b.data[41], 3);
    assert_int_equal(b.data[b.size - 2], 0xFF);
    assert_int_equal(b.data[b.size - 1], 0xD9);
    /* Lossy stays near its last layer's 5:1 budget of the raw 96 KiB. */
    assert_lt(b.size, (size_t)256 * 128 * 3 / 4);
    am_buf_free(&b);
    am_tex_image_free(&img);
}

static void test_j2c_lossless_decodes_exactly(void **state)
{
    (void)state;
    const uint32_t sizes[][3] = {{64, 64, 3}, {32, 128, 4}, {1, 1, 3}, {2, 1, 4}, {1024, 8, 3}};
    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
        am_tex_image a, d;
        make_noise(&a, sizes[k][0], sizes[k][1], sizes[k][2], (uint32_t)k + 1);
        am_buf b = {0};
        am_j2c_options o = {true};
        am_error err;
        am_error_clear(&err);
        assert_int_equal(am_j2c_encode(&a, &o, &b, &err), AM_OK);
        assert_int_equal(am_j2c_decode(b.data, b.size, &d, &err), AM_OK);
        assert_int_equal(d.width, a.width);
        assert_int_equal(d.height, a.height);
        assert_int_equal(d.channels, a.channels);
        assert_memory_equal(a.pixels, d.pixels, (size_t)a.width * a.height * a.channels);
        am_buf_free(&b);
        am_tex_image_free(&a);
        am_tex_image_free(&d);
    }
}

static void test_j2c_lossy_decodes_within_stated_tolerance(void **state)
{
    (void)state;
    am_tex_image a, d;
    make_picture(&a, 512, 256);
    am_buf b = {0};
    am_j2c_options o = {false};
    assert_int_equal(am_j2c_encode(&a, &o, &b, NULL), AM_OK);
    assert_int_equal(am_j2c_decode(b.data, b.size, &d, NULL), AM_OK);
    am_tex_diff diff;
    assert_int_equal(am_tex_compare(&a, &d, &diff, NULL), AM_OK);
    print_message("lossy 512x256: %zu bytes, max %d, mean %.3f, PSNR %.1f dB\n", b.size, diff.max_abs,
                  diff.mean_abs, diff.psnr_db);
    assert_ge(diff.psnr_db, LOSSY_MIN_PSNR_DB);
    assert_le(diff.mean_abs, LOSSY_MAX_MEAN_ABS);
    assert_gt(diff.max_abs, 0); /* it really is lossy */
    am_buf_free(&b);
    am_tex_image_free(&a);
    am_tex_image_free(&d);
}

static void test_j2c_encode_refuses_bad_sizes(void **state)
{
    (void)state;
    am_tex_image a;
    make_noise(&a, 100, 64, 3, 3);
    am_buf b = {0};
    am_error err;
    am_error_clear(&err);
    assert_int_equal(am_j2c_encode(&a, NULL, &b, &err), AM_ERR_INVALID);
    assert_int_equal(b.size, 0);
    am_tex_image_free(&a);
    am_buf_free(&b);
}

static void test_j2c_decode_refuses_garbage_and_truncation(void **state)
{
    (void)state;
    am_tex_image d;
    am_error err;
    const uint8_t junk[] = {0x89, 'P', 'N', 'G', 0, 0, 0, 0};
    am_error_clear(&err);
    assert_int_equal(am_j2c_decode(junk, sizeof junk, &d, &err), AM_ERR_INVALID);
    assert_non_null(strstr(err.msg, "not a JPEG-2000"));

    am_tex_image a;
    make_noise(&a, 32, 32, 3, 5);
    am_buf b = {0};
    am_j2c_options o = {true};
    assert_int_equal(am_j2c_encode(&a, &o, &b, NULL), AM_OK);
    for (size_t cut = 4; cut < 60; cut += 7) {
        am_error_clear(&err);
        assert_int_equal(am_j2c_decode(b.data, cut, &d, &err), AM_ERR_INVALID);
        assert_null(d.pixels);
    }
    /* a main-header segment cut short is named by marker and byte offset: SIZ at 2 (47
     * bytes with 3 components), then COD at 51 */
    assert_int_equal(am_j2c_decode(b.data, 60, &d, &err), AM_ERR_INVALID);
    assert_non_null(strstr(err.msg, "JPEG-2000 marker FF52 (COD)"));
    assert_int_equal(err.offset, 51);
    /* a tile-part longer than the stream: named at its SOT */
    size_t sot = 0;
    for (size_t i = 2; i + 1 < b.size; i++)
        if (b.data[i] == 0xFF && b.data[i + 1] == 0x90) {
            sot = i;
            break;
        }
    assert_gt(sot, 0);
    assert_int_equal(am_j2c_decode(b.data, b.size - 10, &d, &err), AM_ERR_INVALID);
    assert_non_null(strstr(err.msg, "tile-part (SOT)"));
    assert_int_equal(err.offset, sot);
    am_buf_free(&b);
    am_tex_image_free(&a);
}

/* A header claiming a huge image or thousands of tiles is refused before OpenJPEG
 * allocates for it (found by fuzzing: 458760 x 8 in 8 x 8 tiles ran out of memory). */
static void test_j2c_decode_refuses_hostile_siz_before_allocating(void **state)
{
    (void)state;
    am_tex_image a, d;
    make_noise(&a, 64, 64, 3, 11);
    am_buf b = {0};
    am_j2c_options o = {true};
    assert_int_equal(am_j2c_encode(&a, &o, &b, NULL), AM_OK);
    am_error err;

    uint8_t *huge = malloc(b.size);
    assert_non_null(huge);
    memcpy(huge, b.data, b.size);
    const uint8_t wide[4] = {0x00, 0x07, 0x00, 0x08}; /* Xsiz = 458760 */
    memcpy(huge + 8, wide, 4);
    am_error_clear(&err);
    assert_int_equal(am_j2c_decode(huge, b.size, &d, &err), AM_ERR_INVALID);
    assert_non_null(strstr(err.msg, "at most 4096"));
    assert_int_equal(err.offset, 8);

    memcpy(huge, b.data, b.size);
    const uint8_t one[4] = {0, 0, 0, 1}; /* XTsiz = YTsiz = 1: 4096 tiles */
    memcpy(huge + 24, one, 4);
    memcpy(huge + 28, one, 4);
    am_error_clear(&err);
    assert_int_equal(am_j2c_decode(huge, b.size, &d, &err), AM_ERR_INVALID);
    assert_non_null(strstr(err.msg, "tiles"));
    free(huge);
    am_buf_free(&b);
    am_tex_image_free(&a);
}

static void test_png_write_failure_names_the_path_once(void **state)
{
    (void)state;
    /* The output's parent is a regular file: the write fails, and the message names the
     * path once ("P: cannot create", not "P: P: cannot create"). */
    char dir[256], file[512], path[640], msg[512];
    am_test_tmpdir(dir, sizeof dir);
    snprintf(file, sizeof file, "%s/plain", dir);
    am_test_write_text(file, "x");
    snprintf(path, sizeof path, "%s/out.png", file);
    am_tex_image a;
    make_noise(&a, 4, 4, 3, 1);
    am_error err;
    am_error_clear(&err);
    assert_int_equal(am_tex_png_write(path, &a, &err), AM_ERR_IO);
    am_error_format(&err, msg, sizeof msg);
    const char *first = strstr(msg, path);
    assert_non_null(first);
    assert_null(strstr(first + strlen(path), path));
    am_tex_image_free(&a);
    am_test_rmtree(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_png_decode_reads_an_independently_built_rgb_png),
        cmocka_unit_test(test_png_decode_expands_grey_to_rgb),
        cmocka_unit_test(test_png_encode_then_decode_is_exact_rgb_and_rgba),
        cmocka_unit_test(test_png_encoder_round_trips_through_libpng_and_packs_smooth_pictures),
        cmocka_unit_test(test_png_decode_refuses_garbage_and_truncation),
        cmocka_unit_test(test_png_write_failure_names_the_path_once),
        cmocka_unit_test(test_size_rule_accepts_powers_of_two_up_to_1024),
        cmocka_unit_test(test_box_resize_averages_covered_area),
        cmocka_unit_test(test_j2c_is_a_raw_code_stream_with_the_right_siz),
        cmocka_unit_test(test_j2c_lossless_decodes_exactly),
        cmocka_unit_test(test_j2c_lossy_decodes_within_stated_tolerance),
        cmocka_unit_test(test_j2c_encode_refuses_bad_sizes),
        cmocka_unit_test(test_j2c_decode_refuses_garbage_and_truncation),
        cmocka_unit_test(test_j2c_decode_refuses_hostile_siz_before_allocating),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
