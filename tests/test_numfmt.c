/* Shortest round-trip numbers (core/numfmt.h) against printf + strtod: every value reads
 * back exactly, never needs more digits than the printf loop the writers used before, and
 * looks the same as that loop's text wherever both have the same digits. */
#include "support/test_support.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/numfmt.h"

/* The writers' former formatters: first %.Pg that reads back. */
static void old_f32(char *b, float v)
{
    if (v == 0)
        v = 0;
    for (int p = 6; p <= 9; p++) {
        snprintf(b, 32, "%.*g", p, (double)v);
        if ((float)strtod(b, NULL) == v)
            break;
    }
}

static void old_f64(char *b, double v)
{
    if (v == 0)
        v = 0;
    snprintf(b, 32, "%.15g", v);
    if (strtod(b, NULL) != v)
        snprintf(b, 32, "%.17g", v);
}

static size_t digits_of(const char *s)
{
    size_t n = 0;
    bool lead = true;
    for (; *s && *s != 'e'; s++) {
        if (*s < '0' || *s > '9')
            continue;
        if (lead && *s == '0')
            continue;
        lead = false;
        n++;
    }
    /* trailing zeros of an integer part are not significant digits */
    return n;
}

static uint64_t rng(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

static void check_f32(float v, size_t *same, size_t *shorter)
{
    char a[AM_FMT_NUM_MAX], b[32];
    size_t n = am_fmt_f32(a, v);
    assert_int_equal(n, strlen(a));
    old_f32(b, v);
    float back = strtof(a, NULL);
    if (memcmp(&back, &v, sizeof v) != 0 && !(v == 0 && back == 0))
        fail_msg("f32 %a: '%s' reads back as %a", (double)v, a, (double)back);
    if (strcmp(a, b) == 0)
        (*same)++;
    else {
        if (digits_of(a) >= digits_of(b))
            fail_msg("f32 %a: '%s' is not shorter than printf's '%s'", (double)v, a, b);
        (*shorter)++;
    }
}

static void check_f64(double v, size_t *same, size_t *shorter)
{
    char a[AM_FMT_NUM_MAX], b[32];
    am_fmt_f64(a, v);
    old_f64(b, v);
    double back = strtod(a, NULL);
    if (back != v)
        fail_msg("f64 %a: '%s' reads back as %a", v, a, back);
    if (strcmp(a, b) == 0)
        (*same)++;
    else {
        if (digits_of(a) > digits_of(b))
            fail_msg("f64 %a: '%s' has more digits than printf's '%s'", v, a, b);
        (*shorter)++;
    }
}

static void test_known_values(void **state)
{
    (void)state;
    static const struct {
        float v;
        const char *s;
    } f[] = {{0.1f, "0.1"},         {1e-5f, "1e-05"},          {100.0f, "100"},       {1e6f, "1e+06"},
             {1234567.0f, "1234567"}, {-0.0f, "0"},            {1.067f, "1.067"},     {-2.5f, "-2.5"},
             {0.0001f, "0.0001"},    {123456.0f, "123456"},    {FLT_MAX, "3.4028235e+38"}, {1e-45f, "1.4013e-45"} /* the slow path: printf's loop */,
             {0.3333333f, "0.3333333"}, {16777216.0f, "16777216"}};
    char b[AM_FMT_NUM_MAX];
    for (size_t i = 0; i < sizeof f / sizeof f[0]; i++) {
        am_fmt_f32(b, f[i].v);
        assert_string_equal(b, f[i].s);
    }
    static const struct {
        double v;
        const char *s;
    } d[] = {{0.3, "0.3"}, {1.0 / 3.0, "0.3333333333333333"}, {0.1 + 0.2, "0.30000000000000004"},
             {1e-5, "1e-05"}, {65535.0, "65535"}, {-0.0, "0"}, {1e300, "1e+300"}, {5e-324, "4.94065645841247e-324"}};
    for (size_t i = 0; i < sizeof d / sizeof d[0]; i++) {
        am_fmt_f64(b, d[i].v);
        assert_string_equal(b, d[i].s);
    }
    char u[24];
    assert_int_equal(am_fmt_u64(u, 0), 1);
    assert_string_equal(u, "0");
    am_fmt_u64(u, UINT64_MAX);
    assert_string_equal(u, "18446744073709551615");
    /* two digits at a time: every length, each side of every power of ten */
    char want[24];
    for (uint64_t v = 0; v < 20000; v++) {
        snprintf(want, sizeof want, "%llu", (unsigned long long)v);
        assert_int_equal(am_fmt_u64(u, v), strlen(want));
        assert_string_equal(u, want);
    }
    for (uint64_t p = 10; p <= UINT64_MAX / 10; p *= 10)
        for (uint64_t v = p - 1; v <= p + 1; v++) {
            snprintf(want, sizeof want, "%llu", (unsigned long long)v);
            assert_int_equal(am_fmt_u64(u, v), strlen(want));
            assert_string_equal(u, want);
        }
    am_fmt_f32(b, NAN);
    assert_string_equal(b, "nan");
    am_fmt_f64(b, -INFINITY);
    assert_string_equal(b, "-inf");
}

/* Random bit patterns (every exponent), the writers' ranges (positions, normals, weights,
 * matrix elements), powers of two (the asymmetric intervals) and their neighbours. */
static void test_every_value_reads_back_and_is_never_longer(void **state)
{
    (void)state;
    uint64_t s = 88172645463325252ull;
    size_t same = 0, shorter = 0, same64 = 0, shorter64 = 0;
    for (int i = 0; i < 100000; i++) {
        uint32_t bits = (uint32_t)rng(&s);
        float v;
        memcpy(&v, &bits, sizeof v);
        if (isfinite(v))
            check_f32(v, &same, &shorter);
        float r = (float)((double)(rng(&s) >> 11) / 9007199254740992.0 * 4.0 - 2.0); /* metres */
        check_f32(r, &same, &shorter);
        uint64_t b64 = rng(&s);
        double d;
        memcpy(&d, &b64, sizeof d);
        if (isfinite(d))
            check_f64(d, &same64, &shorter64);
        check_f64((double)(rng(&s) >> 11) / 9007199254740992.0, &same64, &shorter64); /* weights */
    }
    for (int e = -149; e <= 127; e++) {
        float p = ldexpf(1.0f, e);
        check_f32(p, &same, &shorter);
        check_f32(nextafterf(p, 0), &same, &shorter);
        check_f32(nextafterf(p, INFINITY), &same, &shorter);
    }
    for (int e = -1074; e <= 1023; e++) {
        double p = ldexp(1.0, e);
        check_f64(p, &same64, &shorter64);
        check_f64(nextafter(p, 0), &same64, &shorter64);
        check_f64(nextafter(p, INFINITY), &same64, &shorter64);
    }
    print_message("f32: %zu as printf, %zu shorter; f64: %zu as printf, %zu with fewer digits\n", same, shorter,
                  same64, shorter64);
    /* the layout is printf's: nearly every text is byte for byte the old one */
    assert_lt(shorter * 1000, same);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_known_values),
        cmocka_unit_test(test_every_value_reads_back_and_is_never_longer),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
