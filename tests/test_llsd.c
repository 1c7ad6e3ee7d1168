/* Binary LLSD (docs/reference/mesh-asset.md#binary-llsd): every type marker, big-endian payloads
 * checked against hand-written bytes from the reference, exact counts, and bad input. */
#include <stdlib.h>
#include <string.h>

#include "mesh/llsd.h"
#include "support/test_support.h"

static void format_to(const am_llsd *v, am_buf *out)
{
    am_error err;
    am_error_clear(&err);
    out->size = 0;
    assert_int_equal(am_llsd_format(v, out, &err), AM_OK);
}

static void parse_ok(const uint8_t *d, size_t n, am_llsd *v)
{
    am_error err;
    am_error_clear(&err);
    size_t used = 0;
    assert_int_equal(am_llsd_parse(d, n, NULL, v, &used, &err), AM_OK);
    assert_int_equal(used, n);
}

static am_status parse_err(const uint8_t *d, size_t n, am_error *err)
{
    am_llsd v;
    am_error_clear(err);
    am_status s = am_llsd_parse(d, n, NULL, &v, NULL, err);
    if (s == AM_OK)
        am_llsd_free(&v);
    return s;
}

/* Each scalar marker: the formatter writes the exact bytes of the table in 1.1 and the
 * parser reads them back. */
static void test_scalar_markers_match_spec_bytes(void **state)
{
    (void)state;
    am_buf b = {0};
    am_llsd v;
    memset(&v, 0, sizeof v);

    format_to(&v, &b);
    assert_int_equal(b.size, 1);
    assert_int_equal(b.data[0], '!');

    am_llsd_set_boolean(&v, true);
    format_to(&v, &b);
    assert_memory_equal(b.data, "1", 1);
    am_llsd_set_boolean(&v, false);
    format_to(&v, &b);
    assert_memory_equal(b.data, "0", 1);

    /* S32 big endian: 181 = 0xB5 as in the worked example's header */
    am_llsd_set_integer(&v, 181);
    format_to(&v, &b);
    const uint8_t i181[] = {'i', 0x00, 0x00, 0x00, 0xb5};
    assert_int_equal(b.size, 5);
    assert_memory_equal(b.data, i181, 5);
    am_llsd_set_integer(&v, -2);
    format_to(&v, &b);
    const uint8_t im2[] = {'i', 0xff, 0xff, 0xff, 0xfe};
    assert_memory_equal(b.data, im2, 5);

    /* F64 big endian: 0.2 in F32 precision is 3f c9 99 99 a0 00 00 00 (docs/reference/mesh-asset.md#worked-example) */
    am_llsd_set_real(&v, (double)0.2f);
    format_to(&v, &b);
    const uint8_t r02[] = {'r', 0x3f, 0xc9, 0x99, 0x99, 0xa0, 0x00, 0x00, 0x00};
    assert_int_equal(b.size, 9);
    assert_memory_equal(b.data, r02, 9);
    /* 1.0 = 3f f0 00 00 00 00 00 00 (the worked example's skin block) */
    am_llsd_set_real(&v, 1.0);
    format_to(&v, &b);
    const uint8_t r1[] = {'r', 0x3f, 0xf0, 0, 0, 0, 0, 0, 0};
    assert_memory_equal(b.data, r1, 9);

    /* date: host (little-endian) order, unswapped */
    am_llsd_set_date(&v, 1.0);
    format_to(&v, &b);
    const uint8_t d1[] = {'d', 0, 0, 0, 0, 0, 0, 0xf0, 0x3f};
    assert_memory_equal(b.data, d1, 9);

    const uint8_t id[16] = {0xde, 0xad, 0xbe, 0xef, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12};
    am_llsd_set_uuid(&v, id);
    format_to(&v, &b);
    assert_int_equal(b.size, 17);
    assert_int_equal(b.data[0], 'u');
    assert_memory_equal(b.data + 1, id, 16);

    am_error err;
    assert_int_equal(am_llsd_set_string(&v, "mPelvis", &err), AM_OK);
    format_to(&v, &b);
    const uint8_t s7[] = {'s', 0, 0, 0, 7, 'm', 'P', 'e', 'l', 'v', 'i', 's'};
    assert_int_equal(b.size, sizeof s7);
    assert_memory_equal(b.data, s7, sizeof s7);

    assert_int_equal(am_llsd_set_bytes(&v, AM_LLSD_URI, "http://x", 8, &err), AM_OK);
    format_to(&v, &b);
    assert_int_equal(b.data[0], 'l');
    assert_int_equal(b.data[4], 8);

    const uint8_t bin[] = {0x00, 0x99, 0x99, 0x01, 0x66, 0x66, 0xff};
    assert_int_equal(am_llsd_set_bytes(&v, AM_LLSD_BINARY, bin, sizeof bin, &err), AM_OK);
    format_to(&v, &b);
    const uint8_t b7[] = {'b', 0, 0, 0, 7, 0x00, 0x99, 0x99, 0x01, 0x66, 0x66, 0xff};
    assert_memory_equal(b.data, b7, sizeof b7);
    am_llsd_free(&v);
    am_buf_free(&b);
}

/* Parse each hand-written scalar and check the value. */
static void test_scalar_markers_parse_hand_written_bytes(void **state)
{
    (void)state;
    am_llsd v;
    const uint8_t i181[] = {'i', 0x00, 0x00, 0x00, 0xb5};
    parse_ok(i181, sizeof i181, &v);
    assert_int_equal(v.type, AM_LLSD_INTEGER);
    assert_int_equal(v.v.integer, 181);
    am_llsd_free(&v);

    const uint8_t im2[] = {'i', 0xff, 0xff, 0xff, 0xfe};
    parse_ok(im2, sizeof im2, &v);
    assert_int_equal(v.v.integer, -2);
    am_llsd_free(&v);

    const uint8_t r02[] = {'r', 0x3f, 0xc9, 0x99, 0x99, 0xa0, 0x00, 0x00, 0x00};
    parse_ok(r02, sizeof r02, &v);
    assert_int_equal(v.type, AM_LLSD_REAL);
    assert_true(v.v.real == (double)0.2f);
    am_llsd_free(&v);

    const uint8_t d1[] = {'d', 0, 0, 0, 0, 0, 0, 0xf0, 0x3f};
    parse_ok(d1, sizeof d1, &v);
    assert_int_equal(v.type, AM_LLSD_DATE);
    assert_true(v.v.real == 1.0);
    am_llsd_free(&v);

    const uint8_t t[] = {'1'}, f[] = {'0'}, u[] = {'!'};
    parse_ok(t, 1, &v);
    assert_true(v.type == AM_LLSD_BOOLEAN && v.v.boolean);
    parse_ok(f, 1, &v);
    assert_true(v.type == AM_LLSD_BOOLEAN && !v.v.boolean);
    parse_ok(u, 1, &v);
    assert_int_equal(v.type, AM_LLSD_UNDEF);

    const uint8_t s7[] = {'s', 0, 0, 0, 7, 'm', 'P', 'e', 'l', 'v', 'i', 's'};
    parse_ok(s7, sizeof s7, &v);
    assert_int_equal(v.type, AM_LLSD_STRING);
    assert_int_equal(v.len, 7);
    assert_string_equal((const char *)v.bytes, "mPelvis");
    am_llsd_free(&v);

    const uint8_t l3[] = {'l', 0, 0, 0, 3, 'a', 'b', 'c'};
    parse_ok(l3, sizeof l3, &v);
    assert_int_equal(v.type, AM_LLSD_URI);
    am_llsd_free(&v);

    uint8_t uu[17] = {'u'};
    for (int i = 0; i < 16; i++)
        uu[1 + i] = (uint8_t)(i * 17);
    parse_ok(uu, sizeof uu, &v);
    assert_int_equal(v.type, AM_LLSD_UUID);
    assert_memory_equal(v.v.uuid, uu + 1, 16);
}

/* The worked example's header (docs/reference/mesh-asset.md#worked-example), byte for byte: nested maps, 'k'
 * keys, BE counts and integers. */
static const uint8_t spec_header[100] = {
    0x7b, 0x00, 0x00, 0x00, 0x02, 0x6b, 0x00, 0x00, 0x00, 0x08, 0x68, 0x69, 0x67, 0x68, 0x5f, 0x6c,
    0x6f, 0x64, 0x7b, 0x00, 0x00, 0x00, 0x02, 0x6b, 0x00, 0x00, 0x00, 0x06, 0x6f, 0x66, 0x66, 0x73,
    0x65, 0x74, 0x69, 0x00, 0x00, 0x00, 0xb5, 0x6b, 0x00, 0x00, 0x00, 0x04, 0x73, 0x69, 0x7a, 0x65,
    0x69, 0x00, 0x00, 0x00, 0xf0, 0x7d, 0x6b, 0x00, 0x00, 0x00, 0x04, 0x73, 0x6b, 0x69, 0x6e, 0x7b,
    0x00, 0x00, 0x00, 0x02, 0x6b, 0x00, 0x00, 0x00, 0x06, 0x6f, 0x66, 0x66, 0x73, 0x65, 0x74, 0x69,
    0x00, 0x00, 0x00, 0x00, 0x6b, 0x00, 0x00, 0x00, 0x04, 0x73, 0x69, 0x7a, 0x65, 0x69, 0x00, 0x00,
    0x00, 0xb5, 0x7d, 0x7d};

static void test_spec_header_parses_and_reformats_identically(void **state)
{
    (void)state;
    am_llsd v;
    parse_ok(spec_header, sizeof spec_header, &v);
    assert_int_equal(v.type, AM_LLSD_MAP);
    assert_int_equal(v.count, 2);
    const am_llsd *hl = am_llsd_get(&v, "high_lod");
    assert_non_null(hl);
    assert_int_equal(am_llsd_get(hl, "offset")->v.integer, 181);
    assert_int_equal(am_llsd_get(hl, "size")->v.integer, 240);
    assert_int_equal(am_llsd_get(am_llsd_get(&v, "skin"), "size")->v.integer, 181);
    am_buf b = {0};
    format_to(&v, &b);
    assert_int_equal(b.size, sizeof spec_header);
    assert_memory_equal(b.data, spec_header, sizeof spec_header);
    am_buf_free(&b);
    am_llsd_free(&v);
}

/* Built out of order, written in byte-wise ascending key order (the viewer's std::map). */
static void test_map_keys_are_written_sorted(void **state)
{
    (void)state;
    am_error err;
    am_llsd m;
    memset(&m, 0, sizeof m);
    am_llsd_set_map(&m);
    am_llsd_set_integer(am_llsd_insert(&m, "skin", &err), 1);
    am_llsd_set_integer(am_llsd_insert(&m, "high_lod", &err), 2);
    am_llsd_set_integer(am_llsd_insert(&m, "Weights", &err), 3);
    am_buf b = {0};
    format_to(&m, &b);
    /* { count 3, k "Weights" i3, k "high_lod" i2, k "skin" i1 } */
    assert_int_equal(b.data[0], '{');
    assert_int_equal(b.data[4], 3);
    assert_memory_equal(b.data + 10, "Weights", 7);
    assert_memory_equal(b.data + 10 + 7 + 5 + 5, "high_lod", 8);
    am_llsd back;
    parse_ok(b.data, b.size, &back);
    assert_int_equal(am_llsd_get(&back, "skin")->v.integer, 1);
    assert_int_equal(am_llsd_get(&back, "Weights")->v.integer, 3);
    am_llsd_free(&back);
    am_buf_free(&b);
    am_llsd_free(&m);
}

/* Arrays nest and round-trip; element counts are exact. */
static void test_nested_array_round_trips(void **state)
{
    (void)state;
    am_error err;
    am_llsd a;
    memset(&a, 0, sizeof a);
    am_llsd_set_array(&a);
    for (int i = 0; i < 3; i++) {
        am_llsd *row = am_llsd_push(&a, &err);
        am_llsd_set_array(row);
        for (int j = 0; j < 16; j++)
            am_llsd_set_real(am_llsd_push(row, &err), i * 16 + j + 0.5);
    }
    am_buf b = {0};
    format_to(&a, &b);
    assert_int_equal(b.size, 5 + 3 * (5 + 16 * 9 + 1) + 1);
    am_llsd back;
    parse_ok(b.data, b.size, &back);
    assert_int_equal(back.count, 3);
    assert_true(back.items[2].items[15].v.real == 47.5);
    am_llsd_free(&back);
    am_buf_free(&b);
    am_llsd_free(&a);
}

/* parseArray/parseMap: fewer elements than announced, or no closing bracket -> error. */
static void test_counts_must_be_exact(void **state)
{
    (void)state;
    am_error err;
    const uint8_t fewer[] = {'[', 0, 0, 0, 2, '!', ']'};
    assert_int_equal(parse_err(fewer, sizeof fewer, &err), AM_ERR_INVALID);
    const uint8_t more[] = {'[', 0, 0, 0, 1, '!', '!', ']'};
    assert_int_equal(parse_err(more, sizeof more, &err), AM_ERR_INVALID);
    assert_int_equal(err.offset, 6);
    const uint8_t map_open[] = {'{', 0, 0, 0, 1, 'k', 0, 0, 0, 1, 'a', '!', '!'};
    assert_int_equal(parse_err(map_open, sizeof map_open, &err), AM_ERR_INVALID);
    const uint8_t bad_key[] = {'{', 0, 0, 0, 1, 'x', 0, 0, 0, 1, 'a', '!', '}'};
    assert_int_equal(parse_err(bad_key, sizeof bad_key, &err), AM_ERR_INVALID);
    assert_int_equal(err.offset, 5);
}

/* Lengths and counts are checked against the bytes left before any allocation. */
static void test_lengths_beyond_data_are_refused(void **state)
{
    (void)state;
    am_error err;
    const uint8_t big_string[] = {'s', 0x7f, 0xff, 0xff, 0xff, 'a'};
    assert_int_equal(parse_err(big_string, sizeof big_string, &err), AM_ERR_INVALID);
    assert_int_equal(err.offset, 0);
    const uint8_t big_array[] = {'[', 0xff, 0xff, 0xff, 0xff, '!', ']'};
    assert_int_equal(parse_err(big_array, sizeof big_array, &err), AM_ERR_INVALID);
    const uint8_t big_map[] = {'{', 0x00, 0x10, 0x00, 0x00, '}'};
    assert_int_equal(parse_err(big_map, sizeof big_map, &err), AM_ERR_INVALID);
    const uint8_t short_real[] = {'r', 0x3f, 0xf0};
    assert_int_equal(parse_err(short_real, sizeof short_real, &err), AM_ERR_INVALID);
    const uint8_t marker[] = {'z'};
    assert_int_equal(parse_err(marker, 1, &err), AM_ERR_INVALID);
    assert_non_null(strstr(err.msg, "0x7a"));
    /* no text header accepted (1.2) */
    const char *prefix = "<? LLSD/Binary ?>\n!";
    assert_int_equal(parse_err((const uint8_t *)prefix, strlen(prefix), &err), AM_ERR_INVALID);
    assert_int_equal(parse_err(NULL, 0, &err), AM_ERR_INVALID);
}

/* Every truncation of the worked example's header fails cleanly. */
static void test_every_truncation_of_a_map_fails(void **state)
{
    (void)state;
    am_error err;
    for (size_t n = 0; n < sizeof spec_header; n++) {
        uint8_t *copy = malloc(n ? n : 1);
        memcpy(copy, spec_header, n);
        assert_int_equal(parse_err(copy, n, &err), AM_ERR_INVALID);
        free(copy);
    }
}

/* Depth 96 is the viewer's limit for unzipped blocks. */
static void test_depth_limit(void **state)
{
    (void)state;
    enum { D = 120 };
    uint8_t buf[D * 6 + 1];
    size_t n = 0;
    for (int i = 0; i < D; i++) {
        buf[n++] = '[';
        buf[n++] = 0, buf[n++] = 0, buf[n++] = 0, buf[n++] = 1;
    }
    buf[n++] = '!';
    for (int i = 0; i < D; i++)
        buf[n++] = ']';
    am_error err;
    assert_int_equal(parse_err(buf, n, &err), AM_ERR_INVALID);
    assert_non_null(strstr(err.msg, "deeper"));
    am_llsd_limits lim = {200, 1000};
    am_llsd v;
    assert_int_equal(am_llsd_parse(buf, n, &lim, &v, NULL, &err), AM_OK);
    am_llsd_free(&v);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_scalar_markers_match_spec_bytes),
        cmocka_unit_test(test_scalar_markers_parse_hand_written_bytes),
        cmocka_unit_test(test_spec_header_parses_and_reformats_identically),
        cmocka_unit_test(test_map_keys_are_written_sorted),
        cmocka_unit_test(test_nested_array_round_trips),
        cmocka_unit_test(test_counts_must_be_exact),
        cmocka_unit_test(test_lengths_beyond_data_are_refused),
        cmocka_unit_test(test_every_truncation_of_a_map_fails),
        cmocka_unit_test(test_depth_limit),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
