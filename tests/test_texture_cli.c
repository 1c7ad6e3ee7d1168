/* `animesh texture`: good input is written and decodes back; every bad input gets a clear
 * error, its exit code, and leaves no output file behind. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "support/test_support.h"
#include "texture/texture.h"

static bool exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}

static void write_png(const char *path, uint32_t w, uint32_t h, uint32_t ch)
{
    am_tex_image img;
    assert_int_equal(am_tex_image_alloc(&img, w, h, ch, NULL), AM_OK);
    for (size_t i = 0; i < (size_t)w * h * ch; i++)
        img.pixels[i] = (uint8_t)(i * 7 % 251);
    am_error err;
    assert_int_equal(am_tex_png_write(path, &img, &err), AM_OK);
    am_tex_image_free(&img);
}

static void test_lossless_cli_output_decodes_to_the_png(void **state)
{
    (void)state;
    char dir[256], in[512], out[512], text[4096];
    am_test_tmpdir(dir, sizeof dir);
    snprintf(in, sizeof in, "%s/in.png", dir);
    snprintf(out, sizeof out, "%s/out.j2c", dir);
    write_png(in, 64, 32, 4);
    assert_int_equal(am_test_run_cli(text, sizeof text, "texture '%s' -o '%s' --lossless", in, out), 0);
    assert_non_null(strstr(text, "64x32 RGBA, lossless"));
    am_tex_image a, b;
    assert_int_equal(am_tex_png_read(in, &a, NULL), AM_OK);
    uint8_t *data;
    size_t size;
    assert_int_equal(am_read_file(out, &data, &size, NULL), AM_OK);
    assert_int_equal(am_j2c_decode(data, size, &b, NULL), AM_OK);
    assert_int_equal(b.channels, 4);
    assert_memory_equal(a.pixels, b.pixels, (size_t)64 * 32 * 4);
    free(data);
    am_tex_image_free(&a);
    am_tex_image_free(&b);
    am_test_rmtree(dir);
}

static void test_not_a_png_is_refused_with_exit_1_and_no_output(void **state)
{
    (void)state;
    char dir[256], in[512], out[512], text[4096];
    am_test_tmpdir(dir, sizeof dir);
    snprintf(in, sizeof in, "%s/fake.png", dir);
    snprintf(out, sizeof out, "%s/out.j2c", dir);
    am_test_write_text(in, "this is a text file, not a picture\n");
    assert_int_equal(am_test_run_cli(text, sizeof text, "texture '%s' -o '%s'", in, out), 1);
    assert_non_null(strstr(text, "not a PNG"));
    assert_non_null(strstr(text, "fake.png"));
    assert_false(exists(out));
    assert_int_equal(am_test_count_entries(dir), 1);
    am_test_rmtree(dir);
}

static void test_non_power_of_two_refused_unless_resize(void **state)
{
    (void)state;
    char dir[256], in[512], out[512], text[4096];
    am_test_tmpdir(dir, sizeof dir);
    snprintf(in, sizeof in, "%s/odd.png", dir);
    snprintf(out, sizeof out, "%s/out.j2c", dir);
    write_png(in, 100, 48, 3);
    assert_int_equal(am_test_run_cli(text, sizeof text, "texture '%s' -o '%s'", in, out), 1);
    assert_non_null(strstr(text, "power of two"));
    assert_non_null(strstr(text, "--resize"));
    assert_false(exists(out));
    assert_int_equal(am_test_count_entries(dir), 1);

    /* --resize: 100x48 -> 64x32 (largest powers of two not above each side). */
    assert_int_equal(am_test_run_cli(text, sizeof text, "texture '%s' -o '%s' --resize", in, out), 0);
    assert_non_null(strstr(text, "resized to 64x32"));
    uint8_t *data;
    size_t size;
    am_tex_image b;
    assert_int_equal(am_read_file(out, &data, &size, NULL), AM_OK);
    assert_int_equal(am_j2c_decode(data, size, &b, NULL), AM_OK);
    assert_int_equal(b.width, 64);
    assert_int_equal(b.height, 32);
    free(data);
    am_tex_image_free(&b);
    am_test_rmtree(dir);
}

static void test_over_1024_is_refused(void **state)
{
    (void)state;
    char dir[256], in[512], out[512], text[4096];
    am_test_tmpdir(dir, sizeof dir);
    snprintf(in, sizeof in, "%s/wide.png", dir);
    snprintf(out, sizeof out, "%s/out.j2c", dir);
    write_png(in, 2048, 4, 3);
    assert_int_equal(am_test_run_cli(text, sizeof text, "texture '%s' -o '%s'", in, out), 1);
    assert_non_null(strstr(text, "at most 1024"));
    assert_false(exists(out));
    am_test_rmtree(dir);
}

static void test_missing_file_is_an_io_error(void **state)
{
    (void)state;
    char dir[256], out[512], text[4096];
    am_test_tmpdir(dir, sizeof dir);
    snprintf(out, sizeof out, "%s/out.j2c", dir);
    assert_int_equal(am_test_run_cli(text, sizeof text, "texture '%s/nope.png' -o '%s'", dir, out), 3);
    assert_non_null(strstr(text, "nope.png"));
    assert_false(exists(out));
    am_test_rmtree(dir);
}

static void test_usage_errors_exit_2(void **state)
{
    (void)state;
    char text[4096];
    assert_int_equal(am_test_run_cli(text, sizeof text, "texture in.png"), 2);
    assert_non_null(strstr(text, "-o"));
    assert_int_equal(am_test_run_cli(text, sizeof text, "texture --bogus in.png -o x.j2c"), 2);
    assert_int_equal(am_test_run_cli(text, sizeof text, "texture --help"), 0);
    assert_non_null(strstr(text, "box filter"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_lossless_cli_output_decodes_to_the_png),
        cmocka_unit_test(test_not_a_png_is_refused_with_exit_1_and_no_output),
        cmocka_unit_test(test_non_power_of_two_refused_unless_resize),
        cmocka_unit_test(test_over_1024_is_refused),
        cmocka_unit_test(test_missing_file_is_an_io_error),
        cmocka_unit_test(test_usage_errors_exit_2),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
