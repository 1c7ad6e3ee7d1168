/* JPEG decoding and the image entry of the import pipeline (texture.h): pictures encoded
 * here with libjpeg's own encoder come back within JPEG's loss (RGB, grey, Adobe CMYK,
 * progressive); the sniffing names what it finds; truncated, corrupt and oversized files
 * are refused; a real JPEG's size matches its SOF header read here; and
 * `animesh texture IN.jpg` writes a .j2c that decodes to the JPEG's pixels. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support/gltf_fixtures.h"
#include "support/test_support.h"
#include "texture/texture.h"

#define REAL_JPEG "/usr/share/assimp/models/IQM/Body.jpg"

static void decode_ok(const am_buf *b, am_tex_image *out)
{
    am_error err = {0};
    if (am_image_decode(b->data, b->size, out, &err)) {
        char buf[512];
        fail_msg("%s", am_error_format(&err, buf, sizeof buf));
    }
}

/* Against the source picture's RGB (a grey picture: its red channel). */
static void assert_close(const am_tex_image *src, const am_tex_image *got, bool grey, int max_abs, double min_psnr)
{
    assert_int_equal(got->width, src->width);
    assert_int_equal(got->height, src->height);
    assert_int_equal(got->channels, 3);
    double se = 0;
    int worst = 0;
    size_t n = (size_t)src->width * src->height;
    for (size_t i = 0; i < n; i++)
        for (int k = 0; k < 3; k++) {
            int want = src->pixels[i * src->channels + (grey ? 0 : (size_t)k)];
            int d = abs((int)got->pixels[3 * i + (size_t)k] - want);
            worst = d > worst ? d : worst;
            se += (double)d * d;
        }
    double psnr = 10 * log10(255.0 * 255.0 / (se / (3.0 * (double)n) + 1e-12));
    if (worst > max_abs || psnr < min_psnr)
        fail_msg("max difference %d (limit %d), PSNR %.1f dB (limit %.1f)", worst, max_abs, psnr, min_psnr);
}

static void test_rgb_grey_cmyk_and_progressive_jpegs_decode(void **state)
{
    (void)state;
    am_tex_image src;
    am_gf_picture(&src, 64, 40, 3);
    const struct {
        am_gf_jpeg_options opt;
        int max_abs;
        double psnr;
    } cases[] = {
        {{.quality = 100}, 12, 40},
        {{.quality = 100, .progressive = true}, 12, 40},
        {{.quality = 100, .grey = true}, 4, 45},
        {{.quality = 100, .cmyk = true}, 12, 40},
        {{.quality = 60}, 80, 28},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        am_buf b = {0};
        am_gf_jpeg(&src, &cases[i].opt, &b);
        const char *kind;
        assert_int_equal(am_image_sniff(b.data, b.size, &kind), AM_IMAGE_JPEG);
        assert_string_equal(kind, "JPEG");
        am_tex_image got;
        decode_ok(&b, &got);
        assert_close(&src, &got, cases[i].opt.grey, cases[i].max_abs, cases[i].psnr);
        if (cases[i].opt.grey)
            for (size_t p = 0; p < (size_t)got.width * got.height; p++)
                assert_true(got.pixels[3 * p] == got.pixels[3 * p + 1] && got.pixels[3 * p] == got.pixels[3 * p + 2]);
        am_tex_image_free(&got);
        am_buf_free(&b);
    }
    am_tex_image_free(&src);
}

static void test_png_keeps_alpha_and_other_types_are_named(void **state)
{
    (void)state;
    am_tex_image src, got;
    am_gf_picture(&src, 16, 8, 4);
    am_buf png = {0};
    assert_int_equal(am_tex_png_encode(&src, &png, NULL), AM_OK);
    decode_ok(&png, &got);
    assert_int_equal(got.channels, 4);
    assert_memory_equal(got.pixels, src.pixels, 16 * 8 * 4);
    assert_string_equal(am_image_mime(am_image_sniff(png.data, png.size, NULL)), "image/png");
    am_tex_image_free(&got);
    am_buf_free(&png);
    am_tex_image_free(&src);

    const struct {
        const char *bytes;
        size_t n;
        const char *want;
    } others[] = {
        {"GIF89a\1\0\1\0", 10, "a GIF image: only PNG and JPEG textures are read"},
        {"RIFF\0\0\0\0WEBPVP8 ", 16, "a WebP image"},
        {"\xabKTX 20\xbb\r\n", 10, "a KTX2 image"},
        {"BM\0\0\0\0", 6, "a BMP image"},
        {"\xff\x4f\xff\x51\0\0", 6, "a JPEG 2000 image"},
        {"hello world", 11, "not a PNG or JPEG image"},
        {"", 0, "not a PNG or JPEG image"},
    };
    for (size_t i = 0; i < sizeof others / sizeof others[0]; i++) {
        am_error err = {0};
        assert_int_equal(am_image_decode((const uint8_t *)others[i].bytes, others[i].n, &got, &err), AM_ERR_INVALID);
        if (!strstr(err.msg, others[i].want))
            fail_msg("%zu: %s", i, err.msg);
        assert_null(got.pixels);
    }
}

static void test_truncated_corrupt_and_oversized_jpegs_are_refused(void **state)
{
    (void)state;
    am_tex_image src, got;
    am_gf_picture(&src, 32, 16, 3);
    am_buf b = {0};
    am_gf_jpeg_options o = {.quality = 90};
    am_gf_jpeg(&src, &o, &b);
    am_error err = {0};
    /* cut inside the entropy-coded data, just after the start-of-scan header */
    size_t sos = 2;
    while (sos + 4 < b.size && !(b.data[sos] == 0xFF && b.data[sos + 1] == 0xDA))
        sos += 2 + ((size_t)b.data[sos + 2] << 8 | b.data[sos + 3]);
    size_t cut = sos + 2 + ((size_t)b.data[sos + 2] << 8 | b.data[sos + 3]) + 16;
    assert_lt(cut, b.size - 16);
    assert_int_equal(am_image_decode(b.data, cut, &got, &err), AM_ERR_INVALID);
    if (!strstr(err.msg, "truncated JPEG"))
        fail_msg("%s", err.msg);
    assert_null(got.pixels);
    /* a frame header with 7 components */
    uint8_t *bad = malloc(b.size);
    memcpy(bad, b.data, b.size);
    size_t sof = 2;
    while (sof + 4 < b.size && !(bad[sof] == 0xFF && bad[sof + 1] == 0xC0))
        sof += 2 + ((size_t)bad[sof + 2] << 8 | bad[sof + 3]);
    assert_lt(sof + 9, b.size);
    bad[sof + 9] = 7; /* SOF0: marker(2) length(2) precision(1) height(2) width(2) components(1) */
    assert_int_equal(am_tex_jpeg_decode(bad, b.size, &got, &err), AM_ERR_INVALID);
    assert_non_null(strstr(err.msg, "corrupt JPEG"));
    assert_null(got.pixels);
    /* a header claiming 9000 pixels: refused before any pixel buffer exists */
    memcpy(bad, b.data, b.size);
    bad[sof + 7] = 9000 >> 8, bad[sof + 8] = 9000 & 0xff;
    assert_int_equal(am_tex_jpeg_decode(bad, b.size, &got, &err), AM_ERR_INVALID);
    assert_non_null(strstr(err.msg, "JPEG is 9000x16: larger than 8192 pixels on a side"));
    free(bad);
    am_buf_free(&b);
    am_tex_image_free(&src);
}

static void test_real_jpeg_size_matches_its_sof_header(void **state)
{
    (void)state;
    uint8_t *d;
    size_t n;
    am_test_skip_if_missing(REAL_JPEG);
    assert_int_equal(am_read_file(REAL_JPEG, &d, &n, NULL), AM_OK);
    /* The frame header, read here: markers FFxx with 2-byte lengths until SOF0..SOF2. */
    size_t at = 2;
    uint32_t w = 0, h = 0;
    while (at + 9 < n) {
        uint8_t marker = d[at + 1];
        size_t len = (size_t)d[at + 2] << 8 | d[at + 3];
        if (marker >= 0xC0 && marker <= 0xC2) {
            h = (uint32_t)d[at + 5] << 8 | d[at + 6];
            w = (uint32_t)d[at + 7] << 8 | d[at + 8];
            break;
        }
        at += 2 + len;
    }
    assert_true(w > 0 && h > 0);
    am_tex_image img;
    am_error err = {0};
    assert_int_equal(am_image_read(REAL_JPEG, &img, &err), AM_OK);
    assert_int_equal(img.width, w);
    assert_int_equal(img.height, h);
    assert_int_equal(img.channels, 3);
    am_tex_image_free(&img);
    free(d);
}

static void test_texture_command_takes_a_jpeg(void **state)
{
    (void)state;
    char dir[256], in[512], out_path[512], text[4096];
    am_test_tmpdir(dir, sizeof dir);
    snprintf(in, sizeof in, "%s/skin.jpg", dir);
    snprintf(out_path, sizeof out_path, "%s/skin.j2c", dir);
    am_tex_image src, want, got;
    am_gf_picture(&src, 32, 32, 3);
    am_buf b = {0};
    am_gf_jpeg_options o = {.quality = 85};
    am_gf_jpeg(&src, &o, &b);
    assert_int_equal(am_write_file_atomic(in, b.data, b.size, NULL), AM_OK);
    assert_int_equal(am_test_run_cli(text, sizeof text, "texture '%s' -o '%s' --lossless", in, out_path), 0);
    decode_ok(&b, &want);
    uint8_t *j2c;
    size_t n;
    assert_int_equal(am_read_file(out_path, &j2c, &n, NULL), AM_OK);
    assert_int_equal(am_j2c_decode(j2c, n, &got, NULL), AM_OK);
    assert_int_equal(got.channels, 3);
    assert_memory_equal(got.pixels, want.pixels, 32 * 32 * 3); /* lossless: the JPEG's own pixels */
    free(j2c);
    am_tex_image_free(&got);
    am_tex_image_free(&want);
    am_tex_image_free(&src);
    am_buf_free(&b);
    am_gf_remove_tree(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rgb_grey_cmyk_and_progressive_jpegs_decode),
        cmocka_unit_test(test_png_keeps_alpha_and_other_types_are_named),
        cmocka_unit_test(test_truncated_corrupt_and_oversized_jpegs_are_refused),
        cmocka_unit_test(test_real_jpeg_size_matches_its_sof_header),
        cmocka_unit_test(test_texture_command_takes_a_jpeg),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
