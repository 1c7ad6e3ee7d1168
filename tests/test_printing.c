/* Text from a file is printed as text, never as terminal commands (issue 19 item 10): the
 * escape helper (core/text.h) itself; every error (am_error_format) and every reader note
 * quoting a name; the joint-map table of `map suggest` for a BVH whose joints are named
 * with escape sequences; an error naming a file whose name holds one. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "core/text.h"
#include "scene/scene.h"
#include "support/anim_fixtures.h"
#include "support/test_support.h"

#define CMU "/usr/share/assimp/models/BVH/01_01.bvh"

static char out[1 << 17];

static void assert_no_control(const char *s, const char *what)
{
    for (const unsigned char *p = (const unsigned char *)s; *p; p++)
        if ((*p < 0x20 && *p != '\n' && *p != '\t') || *p == 0x7f || (p[0] == 0xC2 && p[1] >= 0x80 && p[1] < 0xA0))
            fail_msg("%s: control byte 0x%02X at %zu", what, *p, (size_t)(p - (const unsigned char *)s));
}

static void test_escape_shows_every_control_character(void **state)
{
    (void)state;
    char s[64] = "a\x1b[2Jb\rc\x7f" "d\xc2\x9b" "e\xc3\xa9";
    assert_string_equal(am_text_escape(s, sizeof s), "a\\x1B[2Jb\\x0Dc\\x7Fd\\xC2\\x9Be\xc3\xa9");
    char plain[32] = "mHipLeft \xc3\xa9t\xc3\xa9";
    assert_string_equal(am_text_escape(plain, sizeof plain), "mHipLeft \xc3\xa9t\xc3\xa9");
    /* cut to fit, never past the buffer */
    char tight[12] = "\x1b\x1b\x1b\x1b\x1b";
    am_text_escape(tight, sizeof tight);
    assert_lt(strlen(tight), sizeof tight);
    assert_non_null(strstr(tight, "..."));
    assert_no_control(tight, "tight");
}

static void test_errors_and_notes_escape_names(void **state)
{
    (void)state;
    am_error err;
    am_fail(&err, AM_ERR_INVALID, "joint '%s' is not in the skeleton", "evil\x1b]0;owned\x07");
    am_error_where(&err, "%s", "/tmp/m\x1b[31m.dae");
    char text[AM_ERROR_TEXT_MAX];
    am_error_format(&err, text, sizeof text);
    assert_string_equal(text, "/tmp/m\\x1B[31m.dae: joint 'evil\\x1B]0;owned\\x07' is not in the skeleton");
    am_scene s;
    memset(&s, 0, sizeof s);
    am_scene_note(&s, "node '%s' has no name", "a\nb\x1b");
    assert_int_equal(s.note_count, 1);
    assert_string_equal(am_str(&s.notes[0]), "node 'a\\x0Ab\\x1B' has no name");
    am_scene_free(&s);
}

/* The CMU walk with its joints renamed "Hips\x1b[2J" and "LeftLeg\x1b]0;x\x07". */
static void test_joint_map_table_escapes_node_names(void **state)
{
    (void)state;
    size_t n;
    char *bvh = (char *)am_test_slurp(CMU, &n);
    char dir[256], path[300];
    am_test_tmpdir(dir, sizeof dir);
    snprintf(path, sizeof path, "%s/evil.bvh", dir);
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    const char *hips = strstr(bvh, "ROOT Hips\n"), *leg = strstr(bvh, "JOINT LeftLeg\n");
    assert_non_null(hips);
    assert_non_null(leg);
    fwrite(bvh, 1, (size_t)(hips - bvh), f);
    fputs("ROOT Hips\x1b[2J\n", f);
    fwrite(hips + 10, 1, (size_t)(leg - hips - 10), f);
    fputs("JOINT LeftLeg\x1b]0;x\x07\n", f);
    fputs(leg + 14, f);
    assert_int_equal(fclose(f), 0);
    free(bvh);
    char skel[512];
    am_test_shared_path(skel, sizeof skel, "viewer/avatar_skeleton.xml");
    int rc = am_test_run_cli(out, sizeof out, "map suggest '%s' --skeleton '%s' 2>&1", path, skel);
    assert_int_equal(rc, 0);
    assert_no_control(out, "map suggest");
    assert_non_null(strstr(out, "Hips\\x1B[2J"));
    assert_non_null(strstr(out, "LeftLeg\\x1B]0;x\\x07"));
    am_test_rmtree(dir);
}

static void test_an_error_naming_an_evil_file_is_escaped(void **state)
{
    (void)state;
    char dir[256], path[300];
    am_test_tmpdir(dir, sizeof dir);
    snprintf(path, sizeof path, "%s/m\x1b[31mred.dae", dir);
    am_test_write_text(path, "not a model");
    char skel[512];
    am_test_shared_path(skel, sizeof skel, "viewer/avatar_skeleton.xml");
    int rc = am_test_run_cli(out, sizeof out, "import '%s' --out '%s/o' --skeleton '%s' 2>&1", path, dir, skel);
    assert_int_equal(rc, 1);
    assert_no_control(out, "import");
    assert_non_null(strstr(out, "m\\x1B[31mred.dae"));
    am_test_rmtree(dir);
}

/* anim decode lists a file's joint names: the worked example with mHipLeft renamed to a
 * same-length name holding an escape sequence prints it as text */
static void test_anim_decode_escapes_joint_names(void **state)
{
    (void)state;
    uint8_t anim[AM_TEST_ANIM_WORKED_SIZE];
    memcpy(anim, am_test_anim_worked, sizeof anim);
    uint8_t *name = NULL;
    for (size_t i = 0; i + 8 <= sizeof anim && !name; i++)
        if (memcmp(anim + i, "mHipLeft", 8) == 0)
            name = anim + i;
    assert_non_null(name);
    memcpy(name, "mH\x1b[2Jxx", 8);
    char dir[256], path[300];
    am_test_tmpdir(dir, sizeof dir);
    snprintf(path, sizeof path, "%s/evil.anim", dir);
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(anim, 1, sizeof anim, f), sizeof anim);
    assert_int_equal(fclose(f), 0);
    int rc = am_test_run_cli(out, sizeof out, "anim decode '%s' 2>&1", path);
    assert_int_equal(rc, 0);
    assert_no_control(out, "anim decode");
    assert_non_null(strstr(out, "mH\\x1B[2Jxx"));
    am_test_rmtree(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_escape_shows_every_control_character),
        cmocka_unit_test(test_errors_and_notes_escape_names),
        cmocka_unit_test(test_joint_map_table_escapes_node_names),
        cmocka_unit_test(test_an_error_naming_an_evil_file_is_escaped),
        cmocka_unit_test(test_anim_decode_escapes_joint_names),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
