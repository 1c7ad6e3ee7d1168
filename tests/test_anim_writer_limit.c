/* Every .anim writer refuses a file its own readers would refuse (issue 31 item 10):
 * `anim from-bvh` turned a 48 MB BVH into a 19.9 MiB .anim (exit 0, "verified by
 * decoding") that `anim check` and `decode` refuse (over AM_ANIM_MAX_FILE_BYTES). The
 * check lives in am_anim_encode, which every writer goes through, and is made from the
 * counts before a byte is appended: the size it predicts is the size written, and one
 * key over the limit is refused with nothing in the buffer. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "anim/anim.h"
#include "support/test_support.h"

/* One joint of `keys` rotation keys and 2 position keys, plus a second small joint. */
static void make_anim(am_anim *a, size_t keys, const char *emote)
{
    memset(a, 0, sizeof *a);
    a->version = 1;
    a->duration = 10;
    a->base_priority = 2;
    a->emote_name = strdup(emote);
    a->joint_count = 2;
    a->joints = calloc(2, sizeof *a->joints);
    assert_non_null(a->joints);
    assert_non_null(a->emote_name);
    const char *names[2] = {"mPelvis", "mChest"};
    size_t counts[2] = {keys, 3};
    for (size_t j = 0; j < 2; j++) {
        am_anim_joint *jt = &a->joints[j];
        jt->name = strdup(names[j]);
        jt->priority = -1;
        jt->rot_count = counts[j];
        jt->rot_keys = calloc(counts[j], sizeof *jt->rot_keys);
        jt->pos_count = 2;
        jt->pos_keys = calloc(2, sizeof *jt->pos_keys);
        assert_non_null(jt->name);
        assert_non_null(jt->rot_keys);
        assert_non_null(jt->pos_keys);
        for (size_t k = 0; k < counts[j]; k++)
            am_anim_rot_key_set(&jt->rot_keys[k], (float)(10.0 * (double)k / (double)counts[j]),
                                (am_quat){0, 0, 0, 1}, a->duration);
    }
}

static void predicted_size_is_the_written_size(void **state)
{
    (void)state;
    am_anim a;
    make_anim(&a, 40, "express_smile");
    am_buf b = {0};
    am_error err;
    am_error_clear(&err);
    assert_int_equal(am_anim_encode(&a, &b, &err), AM_OK);
    assert_int_equal(am_anim_encoded_size(&a), b.size);
    /* header 4+4+4+14+7*4, joints 8+4+4+40*8+4+2*8 and 7+4+4+3*8+4+2*8, no constraints 4 */
    assert_int_equal(b.size, 54 + 356 + 59 + 4);
    am_buf_free(&b);
    am_anim_free(&a);
}

static void over_the_readers_limit_is_refused_before_writing(void **state)
{
    (void)state;
    /* the largest file the readers take, then one key more */
    size_t fixed = 54 - 14 + 1 + (8 + 4 + 4 + 4 + 2 * 8) + 59 + 4, at_limit = (AM_ANIM_MAX_FILE_BYTES - fixed) / 8;
    am_anim a;
    make_anim(&a, at_limit, "");
    assert_int_equal(am_anim_encoded_size(&a), fixed + 8 * at_limit);
    assert_true(am_anim_encoded_size(&a) <= AM_ANIM_MAX_FILE_BYTES);
    am_buf b = {0};
    am_error err;
    am_error_clear(&err);
    assert_int_equal(am_anim_encode(&a, &b, &err), AM_OK);
    assert_int_equal(b.size, am_anim_encoded_size(&a));
    am_buf_free(&b);
    am_anim_free(&a);

    make_anim(&a, at_limit + 1, "");
    assert_true(am_anim_encoded_size(&a) > AM_ANIM_MAX_FILE_BYTES);
    am_buf c = {0};
    assert_int_equal(am_anim_encode(&a, &c, &err), AM_ERR_INVALID);
    assert_int_equal(c.size, 0); /* nothing made */
    assert_non_null(strstr(err.msg, "over the 16 MiB its readers accept"));
    assert_non_null(strstr(err.msg, "2 joints"));
    am_buf_free(&c);
    am_anim_free(&a);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(predicted_size_is_the_written_size),
        cmocka_unit_test(over_the_readers_limit_is_refused_before_writing),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
