/* core/am_string.h: owned strings hold any length (a 5000-byte path is kept whole, never
 * cut), read as "" when unset, and keep their old text when a set fails. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "core/am_string.h"

static void an_unset_string_reads_as_empty(void **state)
{
    (void)state;
    am_string s = {0};
    assert_string_equal(am_str(&s), "");
    assert_true(am_string_empty(&s));
    assert_string_equal(am_str(NULL), "");
    am_string_free(&s); /* freeing an unset string is fine */
    assert_null(s.data);
}

static void a_long_text_is_kept_whole_with_its_length(void **state)
{
    (void)state;
    char *big = malloc(5001);
    assert_non_null(big);
    memset(big, 'x', 5000);
    big[5000] = '\0';
    am_string s = {0};
    assert_true(am_string_set(&s, big));
    assert_int_equal(s.length, 5000);
    assert_string_equal(am_str(&s), big);
    assert_true(am_string_setf(&s, "%s/%s.llmesh", big, "bear"));
    assert_int_equal(s.length, 5000 + strlen("/bear.llmesh"));
    assert_int_equal(strlen(s.data), s.length);
    am_string_free(&s);
    free(big);
}

static void setn_stops_at_n_bytes_and_copy_is_independent(void **state)
{
    (void)state;
    am_string a = {0}, b = {0};
    assert_true(am_string_setn(&a, "mPelvis and more", 7));
    assert_string_equal(am_str(&a), "mPelvis");
    assert_int_equal(a.length, 7);
    assert_true(am_string_copy(&b, &a));
    a.data[0] = 'X';
    assert_string_equal(am_str(&b), "mPelvis");
    assert_true(am_string_set(&a, NULL)); /* NULL unsets */
    assert_null(a.data);
    assert_int_equal(a.length, 0);
    am_string_free(&a);
    am_string_free(&b);
}

static void a_list_grows_and_frees_every_entry(void **state)
{
    (void)state;
    am_string *list = NULL;
    size_t count = 0, cap = 0;
    for (int i = 0; i < 100; i++) {
        char name[32];
        snprintf(name, sizeof name, "part_%d.llmesh", i);
        assert_true(am_string_list_push(&list, &count, &cap, name));
    }
    assert_int_equal(count, 100);
    assert_true(cap >= 100);
    assert_string_equal(am_str(&list[0]), "part_0.llmesh");
    assert_string_equal(am_str(&list[99]), "part_99.llmesh");
    assert_int_equal(list[42].length, strlen("part_42.llmesh"));
    am_string_list_free(list, count);
}

static void appending_builds_a_list_a_piece_at_a_time(void **state)
{
    (void)state;
    am_string s = {0};
    for (int i = 0; i < 300; i++)
        assert_true(am_string_appendf(&s, "%smJoint%d", s.length ? ", " : "", i));
    assert_int_equal(s.length, strlen(s.data));
    assert_int_equal(strncmp(am_str(&s), "mJoint0, mJoint1, ", 18), 0);
    assert_non_null(strstr(am_str(&s), ", mJoint299"));
    size_t before = s.length;
    assert_true(am_string_appendf(&s, "%s", "")); /* nothing to add: the same text */
    assert_int_equal(s.length, before);
    am_string_free(&s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(an_unset_string_reads_as_empty),
        cmocka_unit_test(a_long_text_is_kept_whole_with_its_length),
        cmocka_unit_test(setn_stops_at_n_bytes_and_copy_is_independent),
        cmocka_unit_test(a_list_grows_and_frees_every_entry),
        cmocka_unit_test(appending_builds_a_list_a_piece_at_a_time),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
