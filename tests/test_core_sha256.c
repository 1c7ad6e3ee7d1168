/* core/sha256: the one SHA-256 of the library, checked against FIPS 180-4's published
 * vectors in its three forms (buffer, stream, file) and on a file that is not a file. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "core/sha256.h"

/* The standard's worked examples: "abc", the 448-bit message, and the empty one. */
static const char *ABC_HEX = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad";
static const char *LONG_MSG = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
static const char *LONG_HEX = "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1";
static const char *EMPTY_HEX = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";

static void the_buffer_form_matches_the_published_vectors(void **state)
{
    (void)state;
    am_error err = {0};
    char hex[65];
    assert_int_equal(am_sha256_hex("abc", 3, hex, &err), AM_OK);
    assert_string_equal(hex, ABC_HEX);
    assert_int_equal(am_sha256_hex(LONG_MSG, strlen(LONG_MSG), hex, &err), AM_OK);
    assert_string_equal(hex, LONG_HEX);
    assert_int_equal(am_sha256_hex("", 0, hex, &err), AM_OK);
    assert_string_equal(hex, EMPTY_HEX);
    uint8_t d[32];
    assert_int_equal(am_sha256("abc", 3, d, &err), AM_OK);
    assert_int_equal(d[0], 0xba);
    assert_int_equal(d[31], 0xad);
}

static void a_stream_fed_byte_by_byte_equals_the_whole_buffer(void **state)
{
    (void)state;
    am_error err = {0};
    am_sha256_stream *sha = NULL;
    assert_int_equal(am_sha256_begin(&sha, &err), AM_OK);
    for (size_t i = 0; LONG_MSG[i]; i++)
        assert_int_equal(am_sha256_update(sha, LONG_MSG + i, 1, &err), AM_OK);
    char hex[65];
    assert_int_equal(am_sha256_end_hex(sha, hex, &err), AM_OK);
    assert_string_equal(hex, LONG_HEX);
    /* One begun and abandoned is freed by abort (the leak checker would see it otherwise). */
    assert_int_equal(am_sha256_begin(&sha, &err), AM_OK);
    assert_int_equal(am_sha256_update(sha, "x", 1, &err), AM_OK);
    am_sha256_abort(sha);
}

static void a_file_over_one_block_hashes_as_its_bytes(void **state)
{
    (void)state;
    const char *tmp = getenv("TMPDIR");
    char path[512];
    snprintf(path, sizeof path, "%s/sha256_XXXXXX", tmp && tmp[0] ? tmp : "/tmp");
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    /* 1 MiB + 3 bytes: the block loop reads a full block and a short one. */
    size_t n = (1u << 20) + 3;
    uint8_t *data = malloc(n);
    assert_non_null(data);
    for (size_t i = 0; i < n; i++)
        data[i] = (uint8_t)(i * 7 + (i >> 11));
    assert_int_equal(write(fd, data, n), (ssize_t)n);
    close(fd);
    am_error err = {0};
    char want[65], got[65];
    assert_int_equal(am_sha256_hex(data, n, want, &err), AM_OK);
    assert_int_equal(am_sha256_file_hex(path, got, &err), AM_OK);
    assert_string_equal(got, want);
    free(data);
    unlink(path);
}

static void a_missing_file_or_a_directory_is_an_error_naming_it(void **state)
{
    (void)state;
    am_error err = {0};
    char hex[65];
    assert_int_equal(am_sha256_file_hex("/nonexistent/animesh-sha", hex, &err), AM_ERR_IO);
    assert_string_equal(err.where, "/nonexistent/animesh-sha");
    am_error err2 = {0};
    assert_int_equal(am_sha256_file_hex("/", hex, &err2), AM_ERR_IO);
    assert_non_null(strstr(err2.msg, "not a regular file"));
}

static void hex_is_lowercase_two_digits_a_byte(void **state)
{
    (void)state;
    const uint8_t d[3] = {0x00, 0xaf, 0x5b};
    char out[7];
    am_hex_lower(d, 3, out);
    assert_string_equal(out, "00af5b");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(the_buffer_form_matches_the_published_vectors),
        cmocka_unit_test(a_stream_fed_byte_by_byte_equals_the_whole_buffer),
        cmocka_unit_test(a_file_over_one_block_hashes_as_its_bytes),
        cmocka_unit_test(a_missing_file_or_a_directory_is_an_error_naming_it),
        cmocka_unit_test(hex_is_lowercase_two_digits_a_byte),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
