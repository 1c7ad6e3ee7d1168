/* The image decoders' budgets (texture.h, issue 31 item 2), each from its smallest
 * reproduction built here with libjpeg's own encoder:
 *  - a progressive JPEG whose scan script sends every coefficient alone: 64 scans (grey, one
 *    bit plane) decode to the picture; 128 (two bit planes) are refused when scan 101 starts;
 *  - libjpeg's own progressive file with its last refinement scan sent twice (each repeat
 *    walks every block again, and libjpeg only warns): refused as corrupt;
 *  - `animesh texture` on a 2048 x 2048 JPEG cut right after its scan header: refused for
 *    its size, from the header, before the decode would have found the cut. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support/gltf_fixtures.h"
#include "support/test_support.h"
#include "texture/texture.h"

static void encode(uint32_t side, const am_gf_jpeg_options *o, am_tex_image *src, am_buf *b)
{
    am_gf_picture(src, side, side, 3);
    am_gf_jpeg(src, o, b);
}

/* Start-of-scan markers in a JPEG: their offsets (at most `max`), the count returned. */
static size_t find_scans(const am_buf *b, size_t *at, size_t max)
{
    size_t n = 0;
    for (size_t i = 2; i + 1 < b->size; i++)
        if (b->data[i] == 0xFF && b->data[i + 1] == 0xDA && n < max)
            at[n++] = i; /* FF DA cannot occur in entropy data (FF is stuffed as FF 00) */
    return n;
}

static void test_scans_over_the_budget_are_refused(void **state)
{
    (void)state;
    am_tex_image src, got;
    am_buf b = {0};
    size_t at[300];
    am_error err = {0};

    am_gf_jpeg_options ok = {.quality = 95, .grey = true, .bit_planes = 1};
    encode(32, &ok, &src, &b);
    assert_int_equal(find_scans(&b, at, 300), 64);
    assert_int_equal(am_tex_jpeg_decode(b.data, b.size, &got, &err), AM_OK);
    assert_int_equal(got.width, 32);
    /* the picture, within JPEG's loss (grey: the red channel) */
    int worst = 0;
    for (size_t i = 0; i < 32 * 32; i++) {
        int d = abs((int)got.pixels[3 * i] - (int)src.pixels[3 * i]);
        worst = d > worst ? d : worst;
    }
    assert_in_range(worst, 0, 12);
    am_tex_image_free(&got);
    am_tex_image_free(&src);
    am_buf_free(&b);

    am_gf_jpeg_options bomb = {.quality = 95, .grey = true, .bit_planes = 2};
    encode(32, &bomb, &src, &b);
    assert_int_equal(find_scans(&b, at, 300), 128);
    assert_int_equal(am_tex_jpeg_decode(b.data, b.size, &got, &err), AM_ERR_INVALID);
    assert_string_equal(err.msg, "JPEG has more than 100 scans (a progressive picture needs about 10): refused as "
                                 "too costly to decode");
    assert_null(got.pixels);
    /* the same through the import pipeline's entry */
    assert_int_equal(am_image_decode(b.data, b.size, &got, &err), AM_ERR_INVALID);
    assert_non_null(strstr(err.msg, "more than 100 scans"));
    am_tex_image_free(&src);
    am_buf_free(&b);
}

static void test_a_repeated_refinement_scan_is_refused(void **state)
{
    (void)state;
    am_tex_image src, got;
    am_buf b = {0}, twice = {0};
    size_t at[32];
    am_error err = {0};
    am_gf_jpeg_options o = {.quality = 90, .grey = true, .progressive = true};
    encode(32, &o, &src, &b);
    size_t n = find_scans(&b, at, 32);
    assert_int_equal(n, 6); /* libjpeg's simple progression for grey */
    assert_int_equal(am_tex_jpeg_decode(b.data, b.size, &got, &err), AM_OK);
    am_tex_image_free(&got);
    /* the last scan (AC 1-63, Ah 1 -> Al 0: a refinement) once more before the end marker */
    size_t last = at[n - 1], end = b.size - 2;
    assert_int_equal(b.data[end], 0xFF);
    assert_int_equal(b.data[end + 1], 0xD9);
    /* SOS: FF DA, length (2), Ns, (Cs, tables) per component, Ss, Se, Ah|Al */
    assert_int_equal(b.data[last + 4], 1);
    assert_int_equal(b.data[last + 7], 1);
    assert_int_equal(b.data[last + 8], 63);
    assert_int_equal(b.data[last + 9], 0x10);
    assert_int_equal(am_buf_append(&twice, b.data, end, NULL), AM_OK);
    assert_int_equal(am_buf_append(&twice, b.data + last, b.size - last, NULL), AM_OK);
    assert_int_equal(am_tex_jpeg_decode(twice.data, twice.size, &got, &err), AM_ERR_INVALID);
    if (!strstr(err.msg, "corrupt JPEG: Inconsistent progression sequence"))
        fail_msg("%s", err.msg);
    assert_null(got.pixels);
    am_buf_free(&twice);
    am_buf_free(&b);
    am_tex_image_free(&src);
}


static void test_texture_refuses_the_size_from_the_header(void **state)
{
    (void)state;
    char dir[256], in[512], out[4096];
    am_test_tmpdir(dir, sizeof dir);
    snprintf(in, sizeof in, "%s/big.jpg", dir);
    am_tex_image src;
    am_buf b = {0};
    size_t at[4];
    am_gf_jpeg_options o = {.quality = 50, .grey = true};
    encode(2048, &o, &src, &b);
    assert_int_equal(find_scans(&b, at, 4), 1);
    size_t cut = at[0] + 2 + ((size_t)b.data[at[0] + 2] << 8 | b.data[at[0] + 3]); /* no entropy data */
    uint32_t w, h;
    am_error err = {0};
    assert_int_equal(am_image_size(b.data, cut, &w, &h, &err), AM_OK);
    assert_int_equal(w, 2048);
    assert_int_equal(h, 2048);
    /* the decode itself finds the cut */
    am_tex_image got;
    assert_int_equal(am_tex_jpeg_decode(b.data, cut, &got, &err), AM_ERR_INVALID);
    assert_non_null(strstr(err.msg, "truncated JPEG"));
    FILE *f = fopen(in, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(b.data, 1, cut, f), cut);
    assert_int_equal(fclose(f), 0);
    int rc = am_test_run_cli(out, sizeof out, "texture '%s' -o '%s/big.j2c'", in, dir);
    assert_int_equal(rc, 1);
    if (!strstr(out, "image is 2048x2048: Second Life textures are at most 1024 pixels on a side"))
        fail_msg("%s", out);
    assert_int_equal(am_test_count_entries(dir), 1); /* nothing written */
    /* with --resize the decode runs, and finds the cut */
    rc = am_test_run_cli(out, sizeof out, "texture '%s' -o '%s/big.j2c' --resize", in, dir);
    assert_int_equal(rc, 1);
    if (!strstr(out, "truncated JPEG"))
        fail_msg("%s", out);
    assert_int_equal(am_test_count_entries(dir), 1);
    am_buf_free(&b);
    am_tex_image_free(&src);
    am_test_rmtree(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_scans_over_the_budget_are_refused),
        cmocka_unit_test(test_a_repeated_refinement_scan_is_refused),
        cmocka_unit_test(test_texture_refuses_the_size_from_the_header),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
