/* core/bytes.h: the one copy of the fixed-width loads and stores, checked on bytes whose
 * order tells the two ends apart, on values with the top bit set, and on round trips. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "core/bytes.h"

static void little_endian_loads_read_the_low_byte_first(void **state)
{
    (void)state;
    const uint8_t b[4] = {0x01, 0x82, 0x03, 0xf4};
    assert_int_equal(am_le_u16(b), 0x8201);
    assert_int_equal(am_le_u32(b), 0xf4038201u);
    const uint8_t w[8] = {0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x88};
    assert_true(am_le_u64(w) == 0x8807060504030201ull);
    /* The top bit survives (no sign extension through int promotion). */
    const uint8_t ff[4] = {0xff, 0xff, 0xff, 0xff};
    assert_int_equal(am_le_u16(ff), 0xffff);
    assert_int_equal(am_le_u32(ff), 0xffffffffu);
}

static void big_endian_loads_read_the_high_byte_first(void **state)
{
    (void)state;
    const uint8_t b[4] = {0x01, 0x82, 0x03, 0xf4};
    assert_int_equal(am_be_u32(b), 0x018203f4u);
    assert_int_equal(am_be_u16(b + 1), 0x8203);
    uint8_t out[4];
    am_be_put_u32(out, 0x89504e47u); /* PNG's signature start */
    assert_memory_equal(out, "\x89PNG", 4);
}

static void floats_are_their_ieee_bits(void **state)
{
    (void)state;
    const uint8_t one[4] = {0x00, 0x00, 0x80, 0x3f}; /* 1.0f */
    assert_true(am_le_f32(one) == 1.0f);
    const uint8_t neg[4] = {0x00, 0x00, 0x20, 0xc1}; /* -10.0f */
    assert_true(am_le_f32(neg) == -10.0f);
    const uint8_t nan[4] = {0x00, 0x00, 0xc0, 0x7f};
    assert_true(isnan(am_le_f32(nan)));
    uint8_t b[4];
    am_le_put_f32(b, 0.15625f); /* 0x3e200000 */
    assert_memory_equal(b, "\x00\x00\x20\x3e", 4);
}

static void stores_and_loads_round_trip(void **state)
{
    (void)state;
    uint8_t b[4];
    am_le_put_u16(b, 0xbeef);
    assert_memory_equal(b, "\xef\xbe", 2);
    assert_int_equal(am_le_u16(b), 0xbeef);
    am_le_put_u32(b, 0xdeadbeefu);
    assert_memory_equal(b, "\xef\xbe\xad\xde", 4);
    assert_int_equal(am_le_u32(b), 0xdeadbeefu);
    am_be_put_u32(b, 0xdeadbeefu);
    assert_int_equal(am_be_u32(b), 0xdeadbeefu);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(little_endian_loads_read_the_low_byte_first),
        cmocka_unit_test(big_endian_loads_read_the_high_byte_first),
        cmocka_unit_test(floats_are_their_ieee_bits),
        cmocka_unit_test(stores_and_loads_round_trip),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
