/* The am_error contract (core/error.h): safe whatever the caller's struct holds, a new
 * error never carries an old place, and a long path keeps its file name. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "anim/anim.h"
#include "core/progress.h"
#include "core/error.h"
#include "skin/rig.h"
#include "support/test_support.h"

/* A struct as a caller might leave it: never cleared, no terminator anywhere. */
static void fill_garbage(am_error *e)
{
    memset(e, 'G', sizeof *e);
}

static void test_fail_on_an_uncleared_error_prints_only_the_new_message(void **state)
{
    (void)state;
    am_error e;
    fill_garbage(&e);
    assert_int_equal(am_fail(&e, AM_ERR_INVALID, "bad %d", 7), AM_ERR_INVALID);
    char buf[AM_ERROR_TEXT_MAX];
    assert_string_equal(am_error_format(&e, buf, sizeof buf), "bad 7");
    fill_garbage(&e);
    am_fail_at(&e, AM_ERR_INVALID, 12, "short");
    assert_string_equal(am_error_format(&e, buf, sizeof buf), "short (at byte 12)");
    fill_garbage(&e);
    am_fail_nomem(&e, "keys");
    assert_string_equal(am_error_format(&e, buf, sizeof buf), "out of memory (keys)");
}

static void test_where_and_format_never_read_past_an_unterminated_struct(void **state)
{
    (void)state;
    am_error e;
    fill_garbage(&e);
    e.code = AM_ERR_INVALID;
    e.offset = AM_NO_OFFSET;
    char buf[AM_ERROR_TEXT_MAX];
    am_error_format(&e, buf, sizeof buf); /* ASan: no read past msg or where */
    assert_lt(strlen(buf), sizeof buf);
    am_error_where(&e, "%s", "file.json"); /* prefixes whatever where held, bounded */
    assert_lt(strnlen(e.where, sizeof e.where), sizeof e.where);
    assert_memory_equal(e.where, "file.json: ", 11);
}

static void test_a_reused_error_does_not_carry_its_old_place(void **state)
{
    (void)state;
    am_error e;
    am_error_clear(&e);
    am_fail(&e, AM_ERR_INVALID, "first");
    am_error_where(&e, "joints[3]");
    am_error_where(&e, "old.json");
    assert_string_equal(e.where, "old.json: joints[3]");
    am_fail(&e, AM_ERR_IO, "second");
    char buf[AM_ERROR_TEXT_MAX];
    assert_string_equal(am_error_format(&e, buf, sizeof buf), "second");
    am_error_where(&e, "new.json");
    assert_string_equal(am_error_format(&e, buf, sizeof buf), "new.json: second");
}

static void test_an_argument_may_point_into_the_error(void **state)
{
    (void)state;
    am_error e;
    am_error_clear(&e);
    am_fail(&e, AM_ERR_INVALID, "inner reason");
    am_fail(&e, AM_ERR_INVALID, "outer: %s", e.msg);
    assert_string_equal(e.msg, "outer: inner reason");
    am_error_where(&e, "a");
    am_error_where(&e, "%s/b", e.where);
    assert_string_equal(e.where, "a/b: a");
}

static void test_a_long_path_keeps_its_file_name_and_the_field(void **state)
{
    (void)state;
    char path[3000];
    memset(path, 0, sizeof path);
    strcpy(path, "/data");
    while (strlen(path) < 2000)
        strcat(path, "/deeply-nested-folder");
    strcat(path, "/creature.rig.json");
    am_error e;
    am_error_clear(&e);
    am_fail(&e, AM_ERR_INVALID, "weight is negative");
    am_error_where(&e, "weights[12][0]");
    am_error_where(&e, "%s", path);
    assert_lt(strlen(e.where), sizeof e.where);
    assert_non_null(strstr(e.where, "creature.rig.json: weights[12][0]"));
    assert_memory_equal(e.where, "/data/deeply", 12);
    assert_non_null(strstr(e.where, "..."));
    /* a path of 200 bytes (over the old 128-byte where) is kept whole */
    char mid[260];
    snprintf(mid, sizeof mid, "%.*s/x.json", 190, path);
    am_fail(&e, AM_ERR_INVALID, "bad");
    am_error_where(&e, "%s", mid);
    assert_string_equal(e.where, mid);
    char buf[AM_ERROR_TEXT_MAX];
    am_error_format(&e, buf, sizeof buf);
    assert_non_null(strstr(buf, "/x.json: bad"));
}

/* A library entry point given an error the caller never cleared (what five fuzz targets
 * did): the message holds only what that call said. */
static void test_library_calls_are_safe_with_an_uncleared_error(void **state)
{
    (void)state;
    am_error e;
    fill_garbage(&e);
    am_rig rig;
    const char *json = "{\"name\": \"x\", \"joints\": 3}";
    assert_int_equal(am_rig_parse_json(json, strlen(json), "r.json", &rig, &e), AM_ERR_INVALID);
    char buf[AM_ERROR_TEXT_MAX];
    am_error_format(&e, buf, sizeof buf);
    assert_null(strchr(buf, 'G'));
    assert_memory_equal(buf, "r.json: ", 8);
    fill_garbage(&e);
    am_anim a;
    static const uint8_t junk[3] = {1, 0, 0};
    assert_int_not_equal(am_anim_parse(junk, sizeof junk, &a, &e), AM_OK);
    am_error_format(&e, buf, sizeof buf);
    assert_null(strstr(buf, "GGG"));
}

/* core/progress.h: a line reaches the caller's function formatted, cut to the line limit,
 * and nothing happens without a function. */
typedef struct progress_log {
    int calls;
    char last[AM_PROGRESS_LINE_MAX + 8];
} progress_log;

static void log_line(void *user, const char *line)
{
    progress_log *l = user;
    l->calls++;
    snprintf(l->last, sizeof l->last, "%s", line);
}

static void test_progress_lines_are_formatted_and_bounded(void **state)
{
    (void)state;
    progress_log l = {0};
    am_progress(log_line, &l, "part '%s': %zu vertices", "tail", (size_t)412);
    assert_int_equal(l.calls, 1);
    assert_string_equal(l.last, "part 'tail': 412 vertices");
    char big[2 * AM_PROGRESS_LINE_MAX];
    memset(big, 'x', sizeof big - 1);
    big[sizeof big - 1] = '\0';
    am_progress(log_line, &l, "%s", big);
    assert_int_equal(l.calls, 2);
    assert_int_equal(strlen(l.last), AM_PROGRESS_LINE_MAX - 1);
    am_progress(NULL, &l, "dropped %d", 1);
    assert_int_equal(l.calls, 2);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fail_on_an_uncleared_error_prints_only_the_new_message),
        cmocka_unit_test(test_where_and_format_never_read_past_an_unterminated_struct),
        cmocka_unit_test(test_a_reused_error_does_not_carry_its_old_place),
        cmocka_unit_test(test_an_argument_may_point_into_the_error),
        cmocka_unit_test(test_a_long_path_keeps_its_file_name_and_the_field),
        cmocka_unit_test(test_library_calls_are_safe_with_an_uncleared_error),
        cmocka_unit_test(test_progress_lines_are_formatted_and_bounded),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
