/* Shortest round-trip decimals (numfmt.h). */
#include "core/numfmt.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

__extension__ typedef unsigned __int128 u128;

static const uint64_t pow5[28] = {
    1u,
    5u,
    25u,
    125u,
    625u,
    3125u,
    15625u,
    78125u,
    390625u,
    1953125u,
    9765625u,
    48828125u,
    244140625u,
    1220703125u,
    6103515625ull,
    30517578125ull,
    152587890625ull,
    762939453125ull,
    3814697265625ull,
    19073486328125ull,
    95367431640625ull,
    476837158203125ull,
    2384185791015625ull,
    11920928955078125ull,
    59604644775390625ull,
    298023223876953125ull,
    1490116119384765625ull,
    7450580596923828125ull,
};

/* "00" .. "99": two digits per division (the writers print hundreds of thousands of indices). */
static const char digit_pairs[201] = "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
                                     "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
                                     "8081828384858687888990919293949596979899";

static const uint64_t pow10_u64[20] = {1ull,
                                       10ull,
                                       100ull,
                                       1000ull,
                                       10000ull,
                                       100000ull,
                                       1000000ull,
                                       10000000ull,
                                       100000000ull,
                                       1000000000ull,
                                       10000000000ull,
                                       100000000000ull,
                                       1000000000000ull,
                                       10000000000000ull,
                                       100000000000000ull,
                                       1000000000000000ull,
                                       10000000000000000ull,
                                       100000000000000000ull,
                                       1000000000000000000ull,
                                       10000000000000000000ull};

/* The number of decimal digits of v: floor(log10 v) + 1 from its bit length (log10 2 ~
 * 1233 / 4096) and one comparison. */
static size_t decimal_length(uint64_t v)
{
    int bits = 64 - __builtin_clzll(v | 1);
    size_t t = (size_t)((bits * 1233) >> 12);
    return t + 1 - (v < pow10_u64[t]) + (v == 0);
}

/* The n decimal digits of v into out[0..n) (n from decimal_length), two per division. */
static void put_digits(char *out, uint64_t v, size_t n)
{
    char *p = out + n;
    while (v >> 32) {
        unsigned r = (unsigned)(v % 100);
        v /= 100;
        p -= 2;
        p[0] = digit_pairs[2 * r];
        p[1] = digit_pairs[2 * r + 1];
    }
    uint32_t w = (uint32_t)v; /* the rest in 32-bit arithmetic (a float's digits are all here) */
    while (w >= 100) {
        uint32_t r = w % 100;
        w /= 100;
        p -= 2;
        p[0] = digit_pairs[2 * r];
        p[1] = digit_pairs[2 * r + 1];
    }
    if (w >= 10) {
        p[-2] = digit_pairs[2 * w];
        p[-1] = digit_pairs[2 * w + 1];
    } else
        p[-1] = (char)('0' + w);
}

size_t am_fmt_u64(char *out, uint64_t v)
{
    size_t n = decimal_length(v);
    put_digits(out, v, n);
    out[n] = '\0';
    return n;
}

/* floor(m * 2^-x * 10^s) for x > s: (m * 5^s) >> (x - s). No bits are shifted out exactly
 * when 2^(x - s) divides m (5^s is odd): that is the caller's exactness test. */
static uint64_t scaled(uint64_t m, int x, int s)
{
    return (uint64_t)(((u128)m * pow5[s]) >> (x - s));
}

static bool divides(uint64_t m, int q)
{
    return m && q <= __builtin_ctzll(m);
}

/* The shortest digits of v = m2 * 2^(e2 + 2) (Ryu's notation: e2 already lowered by 2).
 * mm_shift: the lower neighbour is a full step away (not a power of two's half step).
 * False when the exact scaling does not fit (caller takes the slow path). */
static bool shortest(uint64_t m2, int e2, bool mm_shift, uint64_t *digits, int *exp10)
{
    int x = -e2;
    if (x < 3)
        return false;
    int s = ((x * 78913) >> 18) + 2; /* floor(x log10 2) + 2: the interval spans >= 30 units */
    if (s > 27 || x - s >= 128)
        return false;
    bool accept = (m2 & 1) == 0; /* an even mantissa owns the ends of its interval */
    uint64_t mv = 4 * m2, mp = 4 * m2 + 2, mm = 4 * m2 - 1 - (mm_shift ? 1 : 0);
    int q = x - s;
    uint64_t vr = scaled(mv, x, s), vp = scaled(mp, x, s), vm = scaled(mm, x, s);
    bool vm_zeros = false, vr_zeros = divides(mv, q);
    if (accept)
        vm_zeros = divides(mm, q);
    else if (divides(mp, q))
        vp--; /* the upper end itself is not ours */
    int removed = 0;
    unsigned last = 0;
    /* two digits at a time while both of them go (the same steps as one at a time: the
     * zeros seen and the last digit removed are tracked over the pair) */
    while (vp / 100 > vm / 100) {
        vm_zeros &= vm % 100 == 0;
        vr_zeros &= last == 0 && vr % 10 == 0;
        last = (unsigned)(vr / 10 % 10);
        vr /= 100, vp /= 100, vm /= 100;
        removed += 2;
    }
    while (vp / 10 > vm / 10) {
        vm_zeros &= vm % 10 == 0;
        vr_zeros &= last == 0;
        last = (unsigned)(vr % 10);
        vr /= 10, vp /= 10, vm /= 10;
        removed++;
    }
    if (vm_zeros)
        while (vm % 10 == 0) {
            vr_zeros &= last == 0;
            last = (unsigned)(vr % 10);
            vr /= 10, vp /= 10, vm /= 10;
            removed++;
        }
    if (vr_zeros && last == 5 && vr % 2 == 0)
        last = 4; /* exactly half way: to even */
    *digits = vr + ((vr == vm && (!accept || !vm_zeros)) || last >= 5);
    *exp10 = removed - s;
    return true;
}

/* digits * 10^exp10 as %.Pg lays it out, P = max(number of digits, pmin). The digits are
 * written in place (no copy through a buffer): where a point goes inside them, they are
 * written one place to the right and the integer part moved back over it. */
static size_t layout(char *out, bool neg, uint64_t digits, int exp10, int pmin)
{
    while (digits && digits % 10 == 0) {
        digits /= 10;
        exp10++;
    }
    size_t n = decimal_length(digits), o = 0;
    int x = exp10 + (int)n - 1; /* exponent of the first digit */
    int p = (int)n > pmin ? (int)n : pmin;
    if (neg)
        out[o++] = '-';
    if (x >= -4 && x < p) {
        if (x < 0) {
            out[o++] = '0';
            out[o++] = '.';
            for (int i = 0; i < -x - 1; i++)
                out[o++] = '0';
            put_digits(out + o, digits, n);
            o += n;
        } else if ((int)n <= x + 1) {
            put_digits(out + o, digits, n);
            o += n;
            for (int i = 0; i < x + 1 - (int)n; i++)
                out[o++] = '0';
        } else {
            put_digits(out + o + 1, digits, n);
            for (int i = 0; i <= x; i++)
                out[o + (size_t)i] = out[o + (size_t)i + 1];
            o += (size_t)x + 1;
            out[o] = '.';
            o += n - (size_t)x;
        }
    } else {
        put_digits(out + o + 1, digits, n);
        out[o] = out[o + 1];
        if (n > 1) {
            out[o + 1] = '.';
            o += n + 1;
        } else
            o++;
        out[o++] = 'e';
        out[o++] = x < 0 ? '-' : '+';
        int ax = x < 0 ? -x : x;
        if (ax >= 100)
            out[o++] = (char)('0' + ax / 100);
        out[o++] = (char)('0' + ax / 10 % 10);
        out[o++] = (char)('0' + ax % 10);
    }
    out[o] = '\0';
    return o;
}

/* The exact slow path: the first %.Pg (P = lo..hi) that reads back as v (as a float when
 * f32). */
static size_t slow(char *out, double v, int lo, int hi, bool f32)
{
    for (int p = lo; p <= hi; p++) {
        snprintf(out, AM_FMT_NUM_MAX, "%.*g", p, v);
        double back = strtod(out, NULL);
        if (!isfinite(v) || (f32 ? (float)back == (float)v : back == v))
            break;
    }
    return strlen(out);
}

size_t am_fmt_f32(char out[AM_FMT_NUM_MAX], float v)
{
    if (v == 0)
        return (size_t)(memcpy(out, "0", 2), 1);
    if (isfinite(v)) {
        uint32_t bits;
        memcpy(&bits, &v, sizeof bits);
        uint32_t mant = bits & 0x7FFFFFu, ex = (bits >> 23) & 0xFFu;
        uint64_t m2 = ex ? (mant | 0x800000u) : mant;
        int e2 = (ex ? (int)ex : 1) - 127 - 23 - 2;
        uint64_t digits;
        int e10;
        if (shortest(m2, e2, mant != 0 || ex <= 1, &digits, &e10))
            return layout(out, bits >> 31, digits, e10, 6);
    }
    return slow(out, (double)v, 6, 9, true);
}

size_t am_fmt_f64(char out[AM_FMT_NUM_MAX], double v)
{
    if (v == 0)
        return (size_t)(memcpy(out, "0", 2), 1);
    if (isfinite(v)) {
        uint64_t bits;
        memcpy(&bits, &v, sizeof bits);
        uint64_t mant = bits & 0xFFFFFFFFFFFFFull, ex = (bits >> 52) & 0x7FFu;
        uint64_t m2 = ex ? (mant | (1ull << 52)) : mant;
        int e2 = (ex ? (int)ex : 1) - 1023 - 52 - 2;
        uint64_t digits;
        int e10;
        if (shortest(m2, e2, mant != 0 || ex <= 1, &digits, &e10))
            return layout(out, bits >> 63, digits, e10, 15);
    }
    return slow(out, v, 15, 17, false);
}
