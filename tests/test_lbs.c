/* am_lbs against hand-computed blends (mesh-asset.md 6.4: renormalised weights, index clamp
 * to 109, the CPU path's fallback when the weights sum to zero). */
#include "test_support.h"

#include <math.h>
#include <string.h>

#include "lbs.h"

static void identity(float *m)
{
    memset(m, 0, 16 * sizeof *m);
    m[0] = m[5] = m[10] = m[15] = 1.0f;
}

static void translation(float *m, float x, float y, float z)
{
    identity(m);
    m[12] = x;
    m[13] = y;
    m[14] = z;
}

static void test_identity_palette_leaves_points(void **state)
{
    (void)state;
    float pal[16];
    identity(pal);
    float pos[6] = {1, 2, 3, -0.5f, 0.25f, 7};
    uint8_t j[8] = {0};
    float w[8] = {0.999f, 0, 0, 0, 0.4f, 0.4f, 0, 0};
    float out[6];
    am_lbs(pos, j, w, 2, pal, 1, out);
    for (int i = 0; i < 6; i++)
        assert_float_equal(out[i], pos[i], 1e-6);
}

/* Weights 0.1 and 0.3 renormalise to 0.25 / 0.75. Joint 0 translates by (1,0,0); joint 1
 * rotates 90 degrees about Z (row-vector LL layout: row 0 = image of X = +Y). For the
 * point (1, 0, 0): joint 0 gives (2, 0, 0), joint 1 gives (0, 1, 0); the blend is
 * (0.5, 0.75, 0). */
static void test_blend_renormalises_like_the_shader(void **state)
{
    (void)state;
    float pal[32];
    translation(pal, 1, 0, 0);
    identity(pal + 16);
    pal[16 + 0] = 0;
    pal[16 + 1] = 1;
    pal[16 + 4] = -1;
    pal[16 + 5] = 0;
    float pos[3] = {1, 0, 0};
    uint8_t j[4] = {0, 1, 0, 0};
    float w[4] = {0.1f, 0.3f, 0, 0};
    float out[3];
    am_lbs(pos, j, w, 1, pal, 2, out);
    assert_float_equal(out[0], 0.5f, 1e-6);
    assert_float_equal(out[1], 0.75f, 1e-6);
    assert_float_equal(out[2], 0.0f, 1e-6);
}

/* An index beyond the palette takes the last entry (the shader clamps to 109; with a
 * shorter palette we clamp to its end rather than read garbage). */
static void test_index_clamps_to_109_and_to_palette_end(void **state)
{
    (void)state;
    static float pal[120 * 16];
    for (int k = 0; k < 120; k++)
        translation(pal + 16 * k, (float)k, 0, 0);
    float pos[3] = {0, 0, 0};
    uint8_t j[4] = {115, 0, 0, 0};
    float w[4] = {0.5f, 0, 0, 0};
    float out[3];
    am_lbs(pos, j, w, 1, pal, 120, out);
    assert_float_equal(out[0], 109.0f, 1e-6);
    am_lbs(pos, j, w, 1, pal, 3, out);
    assert_float_equal(out[0], 2.0f, 1e-6);
}

static void test_zero_weights_bind_slot_zero_fully(void **state)
{
    (void)state;
    float pal[32];
    translation(pal, 0, 0, 5);
    translation(pal + 16, 0, 0, 9);
    float pos[3] = {1, 1, 1};
    uint8_t j[4] = {1, 0, 0, 0};
    float w[4] = {0, 0, 0, 0};
    float out[3];
    am_lbs(pos, j, w, 1, pal, 2, out);
    assert_float_equal(out[2], 10.0f, 1e-6); /* slot 0 names joint 1 */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_identity_palette_leaves_points),
        cmocka_unit_test(test_blend_renormalises_like_the_shader),
        cmocka_unit_test(test_index_clamps_to_109_and_to_palette_end),
        cmocka_unit_test(test_zero_weights_bind_slot_zero_fully),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
