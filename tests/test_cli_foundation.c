/* The CLI as a user runs it: help, version, exit codes, skeleton listing, map check. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "support/test_support.h"

static char skel[4096];

static void test_help_and_version(void **state)
{
    (void)state;
    char out[8192];
    assert_int_equal(am_test_run_cli(out, sizeof out, "--help"), 0);
    assert_non_null(strstr(out, "usage: animesh <command>"));
    assert_non_null(strstr(out, "skeleton"));
    /* the import line names every model format it reads, not COLLADA alone */
    const char *imp = strstr(out, "  import ");
    assert_non_null(imp);
    char line[200];
    snprintf(line, sizeof line, "%.*s", (int)strcspn(imp, "\n"), imp);
    assert_non_null(strstr(line, "COLLADA"));
    assert_non_null(strstr(line, "glTF/GLB"));
    assert_non_null(strstr(line, "FBX"));
    assert_non_null(strstr(line, "BVH"));
    /* map has two subcommands, texture reads two image formats: the one-liners say so */
    const char *map = strstr(out, "  map ");
    assert_non_null(map);
    snprintf(line, sizeof line, "%.*s", (int)strcspn(map, "\n"), map);
    assert_non_null(strstr(line, "suggest"));
    assert_non_null(strstr(line, "check"));
    const char *tex = strstr(out, "  texture ");
    assert_non_null(tex);
    snprintf(line, sizeof line, "%.*s", (int)strcspn(tex, "\n"), tex);
    assert_non_null(strstr(line, "JPEG "));
    assert_int_equal(am_test_run_cli(out, sizeof out, "--version"), 0);
    assert_non_null(strstr(out, "animesh 0."));
    assert_int_equal(am_test_run_cli(out, sizeof out, "skeleton --help"), 0);
    assert_non_null(strstr(out, "--frame"));
    assert_int_equal(am_test_run_cli(out, sizeof out, "map check --help"), 0);
    assert_non_null(strstr(out, "rig_parents"));
    assert_int_equal(am_test_run_cli(out, sizeof out, "no-such-command"), 2);
    assert_non_null(strstr(out, "unknown command 'no-such-command'"));
    assert_int_equal(am_test_run_cli(out, sizeof out, "%s", ""), 2);
}

static void test_skeleton_json_lists_bones_and_volumes(void **state)
{
    (void)state;
    static char out[1 << 20];
    assert_int_equal(am_test_run_cli(out, sizeof out, "skeleton --skeleton '%s' --json --frame runtime", skel), 0);
    json_error_t je;
    json_t *root = json_loads(out, 0, &je);
    assert_non_null(root);
    json_t *joints = json_object_get(root, "joints");
    assert_int_equal(json_array_size(joints), 159);
    json_t *knee = NULL;
    size_t i;
    json_t *j;
    json_array_foreach(joints, i, j) if (strcmp(json_string_value(json_object_get(j, "name")), "mKneeLeft") == 0) knee = j;
    assert_non_null(knee);
    assert_string_equal(json_string_value(json_object_get(knee, "parent")), "mHipLeft");
    assert_near(json_real_value(json_array_get(json_object_get(knee, "world"), 2)), 0.535 - 1.067, 1e-6);
    json_decref(root);
}

static void test_skeleton_errors_and_exit_codes(void **state)
{
    (void)state;
    char out[8192];
    assert_int_equal(am_test_run_cli(out, sizeof out, "skeleton --skeleton /nonexistent.xml"), 3);
    assert_non_null(strstr(out, "/nonexistent.xml"));
    assert_int_equal(am_test_run_cli(out, sizeof out, "skeleton --frame sideways --skeleton '%s'", skel), 2);
    assert_int_equal(am_test_run_cli(out, sizeof out, "skeleton --bogus"), 2);
    /* no skeleton anywhere: the message says how to point at a viewer */
    assert_int_equal(am_test_run_cli(out, sizeof out, "skeleton"), 3);
    assert_non_null(strstr(out, "ANIMESH_VIEWER_DIR"));
}

static void test_map_check_exit_codes(void **state)
{
    (void)state;
    char dir[256], good[512], bad[512], out[8192];
    am_test_tmpdir(dir, sizeof dir);
    snprintf(good, sizeof good, "%s/good.json", dir);
    snprintf(bad, sizeof bad, "%s/bad.json", dir);
    am_test_write_text(good, "{\"joints\": {\"tail_a\": \"mTail1\", \"tail_b\": \"mTail2\"},"
                             " \"rig_parents\": {\"tail_b\": \"tail_a\"}}");
    am_test_write_text(bad, "{\"joints\": {\"a\": \"mWingLeft\", \"b\": \"mHipLeft\", \"c\": \"mHipRight\"},"
                            " \"rig_parents\": {\"c\": \"b\"}}");
    assert_int_equal(am_test_run_cli(out, sizeof out, "map check '%s' --skeleton '%s'", good, skel), 0);
    assert_non_null(strstr(out, "valid: 2 rig joints -> 2 stock joints (3 with viewer ancestors"));
    assert_int_equal(am_test_run_cli(out, sizeof out, "map check '%s' --skeleton '%s'", bad, skel), 1);
    assert_non_null(strstr(out, "2 problems"));
    assert_non_null(strstr(out, "unknown joint 'mWingLeft'"));
    assert_non_null(strstr(out, "siblings"));
    assert_int_equal(am_test_run_cli(out, sizeof out, "map check '%s/missing.json' --skeleton '%s'", dir, skel), 3);
    assert_int_equal(am_test_run_cli(out, sizeof out, "map check"), 2);
    assert_int_equal(am_test_run_cli(out, sizeof out, "map frobnicate x"), 2);
    am_test_rmtree(dir);
}

static void test_every_command_and_subcommand_has_help(void **state)
{
    (void)state;
    const char *cmds[] = {"skeleton", "map", "map check", "anim", "anim decode", "anim encode", "anim check",
                          "anim from-bvh", "mesh", "mesh decode", "skin", "skin compare", "bench", "bendbox",
                          "texture", "oar", "push"};
    char out[16384];
    for (size_t i = 0; i < sizeof cmds / sizeof cmds[0]; i++) {
        int rc = am_test_run_cli(out, sizeof out, "%s --help", cmds[i]);
        if (rc != 0 || !strstr(out, "usage: animesh "))
            fail_msg("'%s --help' exited %d: %.200s", cmds[i], rc, out);
    }
}

static void test_every_command_refuses_an_unknown_option_by_name(void **state)
{
    (void)state;
    /* one option parser for every command (cli_opts.h): the same usage error, exit 2, the
     * option named as typed; -h is --help wherever a command takes the letter */
    const char *cmds[] = {"skeleton", "map check", "map suggest", "anim decode", "anim encode", "anim check",
                          "anim from-bvh", "anim from-model", "mesh decode", "import", "skin", "skin compare", "bind",
                          "report", "bench", "bendbox", "preview", "texture", "oar", "push"};
    char out[16384], help[16384], want[128];
    for (size_t i = 0; i < sizeof cmds / sizeof cmds[0]; i++) {
        snprintf(want, sizeof want, "animesh %s: unknown or incomplete option '--no-such-option'", cmds[i]);
        int rc = am_test_run_cli(out, sizeof out, "%s --no-such-option", cmds[i]);
        if (rc != 2 || !strstr(out, want))
            fail_msg("'%s --no-such-option' exited %d: %.200s", cmds[i], rc, out);
        assert_int_equal(am_test_run_cli(help, sizeof help, "%s --help", cmds[i]), 0);
        rc = am_test_run_cli(out, sizeof out, "%s -h", cmds[i]);
        if (rc != 0 || strcmp(out, help) != 0)
            fail_msg("'%s -h' exited %d and differs from --help: %.200s", cmds[i], rc, out);
    }
    /* a value missing is the same error, naming the option */
    assert_int_equal(am_test_run_cli(out, sizeof out, "anim from-bvh x.bvh -o"), 2);
    assert_non_null(strstr(out, "animesh anim from-bvh: unknown or incomplete option '-o'"));
    assert_int_equal(am_test_run_cli(out, sizeof out, "import x.dae --out"), 2);
    assert_non_null(strstr(out, "animesh import: unknown or incomplete option '--out'"));
    /* a letter a command does not take is unknown there (anim check has no -o) */
    assert_int_equal(am_test_run_cli(out, sizeof out, "anim check -o y x.anim"), 2);
    assert_non_null(strstr(out, "unknown or incomplete option '-o'"));
}

static void test_numeric_options_refuse_values_that_do_not_fit(void **state)
{
    (void)state;
    /* Whole-string parsing (cli_args.h): a value that overflows, trails garbage or is not
     * finite is a usage error naming the option, never wrapped into range. These run
     * before any file is opened. */
    char out[8192];
    assert_int_equal(am_test_run_cli(out, sizeof out, "bench x.llmesh --lod 4294967296"), 2);
    assert_non_null(strstr(out, "--lod"));
    assert_int_equal(am_test_run_cli(out, sizeof out, "bench x.llmesh --frames 4294967297"), 2);
    assert_int_equal(am_test_run_cli(out, sizeof out, "bench x.llmesh --time 1e999"), 2);
    assert_int_equal(am_test_run_cli(out, sizeof out, "skin compare a b --tol inf"), 2);
    assert_int_equal(am_test_run_cli(out, sizeof out, "anim from-bvh x.bvh --hand-pose 18446744073709551617 -o y"), 2);
    assert_int_equal(am_test_run_cli(out, sizeof out, "oar --mesh m --at 1,2,3x -o x.oar"), 2);
    assert_non_null(strstr(out, "--at expects X,Y,Z"));
    assert_int_equal(am_test_run_cli(out, sizeof out, "push --bridge http://127.0.0.1:1/ --mesh m --at 1,,3"), 2);
    /* the option is named, not its value */
    assert_int_equal(am_test_run_cli(out, sizeof out, "push --bridge http://127.0.0.1:1/ --mesh m --timeout 0"), 2);
    assert_non_null(strstr(out, "--timeout expects milliseconds"));
    assert_int_equal(am_test_run_cli(out, sizeof out, "push --bridge http://127.0.0.1:1/ --mesh m --backoff x"), 2);
    assert_non_null(strstr(out, "--backoff expects milliseconds"));
}

static void test_options_that_would_be_ignored_are_refused(void **state)
{
    (void)state;
    /* an option with no effect in that combination is a usage error, not silence */
    char out[8192];
    assert_int_equal(am_test_run_cli(out, sizeof out, "bench x.llmesh --frames 3"), 2);
    assert_non_null(strstr(out, "--frames only applies to a --png-strip"));
    assert_int_equal(am_test_run_cli(out, sizeof out, "bench x.llmesh --flat --view=top"), 2);
    assert_non_null(strstr(out, "--flat only applies"));
    assert_int_equal(am_test_run_cli(out, sizeof out, "bench x.llmesh --png-strip s.png --strip-anim 2"), 2);
    assert_non_null(strstr(out, "--strip-anim 2 but only 0 --anim"));
    assert_int_equal(am_test_run_cli(out, sizeof out, "anim decode x.anim -o y.json"), 2);
    assert_int_equal(am_test_run_cli(out, sizeof out, "mesh decode x.llmesh --out y.json"), 2);
    assert_int_equal(
        am_test_run_cli(out, sizeof out, "push --remote-admin http://127.0.0.1:1/ --oar x.oar --region R --save"), 2);
    assert_non_null(strstr(out, "does not take WorldBridge options (--save)"));
    assert_int_equal(
        am_test_run_cli(out, sizeof out, "push --remote-admin http://127.0.0.1:1/ --oar x.oar --region R --dry-run d"),
        2);
    assert_non_null(strstr(out, "does not take WorldBridge options (--dry-run)"));
    /* commands are appended to the bridge URL's path: a query would swallow them */
    assert_int_equal(am_test_run_cli(out, sizeof out,
                                     "push --bridge 'http://127.0.0.1:1/wb?token=x' --mesh "
                                     "'%s/assets/world/tri.meshdata.json'",
                                     AM_SOURCE_DIR),
                     2);
    assert_non_null(strstr(out, "must not carry a query"));
}

static void test_duplicate_animation_names_are_usage_errors_in_oar_and_push(void **state)
{
    (void)state;
    char out[8192];
    assert_int_equal(am_test_run_cli(out, sizeof out, "oar --mesh m --anim a=x.anim --anim a=y.anim -o x.oar"), 2);
    assert_non_null(strstr(out, "two --anim are named 'a'"));
    assert_int_equal(am_test_run_cli(out, sizeof out,
                                     "push --bridge http://127.0.0.1:1/ --mesh m --anim a=x.anim --anim a=y.anim"),
                     2);
    assert_non_null(strstr(out, "two --anim are named 'a'"));
    /* names OpenSim cannot store (over 63 bytes, '|', control characters) are argument
     * errors too, found before any file is read */
    assert_int_equal(am_test_run_cli(out, sizeof out, "oar --mesh m --anim 'a|b=x.anim' -o x.oar"), 2);
    assert_non_null(strstr(out, "--anim name \"a|b\""));
    assert_int_equal(am_test_run_cli(out, sizeof out,
                                     "oar --mesh m --object-name "
                                     "0123456789012345678901234567890123456789012345678901234567890123 -o x.oar"),
                     2);
    assert_non_null(strstr(out, "1..63 bytes"));
}

static void test_skin_errors_name_the_rig_file(void **state)
{
    (void)state;
    char dir[256], rig[1024], out[16384];
    am_test_tmpdir(dir, sizeof dir);
    snprintf(rig, sizeof rig, "%s/assets/rigs/quadruped.json", AM_SOURCE_DIR);
    /* over the region's triangle limit: the rig is at fault, and named */
    assert_int_equal(am_test_run_cli(out, sizeof out, "skin '%s' --out '%s' --region-max-tris 10 --skeleton '%s'", rig,
                                     dir, skel),
                     1);
    assert_non_null(strstr(out, "quadruped.json: "));
    assert_non_null(strstr(out, "region limit 10"));
    am_test_rmtree(dir);
}

/* Mix-ups a user makes on day one get a message that says what happened. */
static void test_common_mixups_are_named(void **state)
{
    (void)state;
    char dir[256], json[512], dae[512], out[8192];
    am_test_tmpdir(dir, sizeof dir);
    snprintf(json, sizeof json, "%s/bendbox.meshdata.json", dir);
    snprintf(dae, sizeof dae, "%s/bendbox.dae", dir);
    am_test_write_text(json, "{\"version\": 1, \"name\": \"bendbox\"}");
    am_test_write_text(dae, "<?xml version=\"1.0\"?><COLLADA/>");
    assert_int_equal(am_test_run_cli(out, sizeof out, "mesh decode '%s'", json), 1);
    assert_non_null(strstr(out, "text file (JSON"));
    assert_non_null(strstr(out, "not a binary mesh asset"));
    assert_int_equal(am_test_run_cli(out, sizeof out, "mesh decode '%s'", dae), 1);
    assert_non_null(strstr(out, "text file (XML"));
    /* bench: a time with no motion to pose would be silently ignored */
    assert_int_equal(am_test_run_cli(out, sizeof out, "bench '%s' --time 3", json), 2);
    assert_non_null(strstr(out, "--time poses a motion: give --anim"));
    unsetenv("WORLDBRIDGE_URL");
    assert_int_equal(am_test_run_cli(out, sizeof out, "push"), 2);
    assert_non_null(strstr(out, "say where to push: --bridge URL"));
    am_test_rmtree(dir);
}

int main(void)
{
    am_test_shared_path(skel, sizeof skel, "viewer/avatar_skeleton.xml");
    unsetenv("ANIMESH_SKELETON");
    unsetenv("ANIMESH_VIEWER_DIR");
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_help_and_version),
        cmocka_unit_test(test_skeleton_json_lists_bones_and_volumes),
        cmocka_unit_test(test_skeleton_errors_and_exit_codes),
        cmocka_unit_test(test_map_check_exit_codes),
        cmocka_unit_test(test_common_mixups_are_named),
        cmocka_unit_test(test_every_command_and_subcommand_has_help),
        cmocka_unit_test(test_every_command_refuses_an_unknown_option_by_name),
        cmocka_unit_test(test_numeric_options_refuse_values_that_do_not_fit),
        cmocka_unit_test(test_options_that_would_be_ignored_are_refused),
        cmocka_unit_test(test_duplicate_animation_names_are_usage_errors_in_oar_and_push),
        cmocka_unit_test(test_skin_errors_name_the_rig_file),
    };
    return cmocka_run_group_tests_name("cli_foundation", tests, NULL, NULL);
}
