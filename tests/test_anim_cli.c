/* `animesh anim` end to end: decode, the JSON round trip through encode, check's exit
 * codes on real files, from-bvh on the CMU file, usage and I/O errors. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "anim/anim.h"
#include "support/anim_fixtures.h"
#include "core/io.h"
#include "support/test_support.h"

#define SET "data/anim/opensim-default-set/"

static char out[1 << 16];

static void skel_env(void)
{
    char p[1024];
    setenv("ANIMESH_SKELETON", am_test_shared_path(p, sizeof p, "viewer/avatar_skeleton.xml"), 1);
}

static void assert_same_file(const char *a, const char *b)
{
    uint8_t *da, *db;
    size_t na, nb;
    am_error err = {0};
    assert_int_equal(am_read_file(a, &da, &na, &err), AM_OK);
    assert_int_equal(am_read_file(b, &db, &nb, &err), AM_OK);
    assert_int_equal(na, nb);
    assert_memory_equal(da, db, na);
    free(da);
    free(db);
}

static void test_decode_prints_the_spot_check_values(void **state)
{
    (void)state;
    char p[1024];
    am_test_shared_path(p, sizeof p, SET "18b3a4b5-b463-bd48-e4b6-71eaac76c515.dat");
    assert_int_equal(am_test_run_cli(out, sizeof out, "anim decode '%s'", p), 0);
    assert_non_null(strstr(out, "duration 3.9500 s, base priority 2"));
    assert_non_null(strstr(out, "hand pose 1"));
    assert_non_null(strstr(out, "19 joints"));
    assert_non_null(strstr(out, "2 constraints"));
}

static void test_json_round_trip_reproduces_real_files_byte_for_byte(void **state)
{
    (void)state;
    /* constraints; 11 constraints (kept verbatim); 128 joints */
    const char *files[] = {"18b3a4b5-b463-bd48-e4b6-71eaac76c515.dat", "9b0c1c4e-8ac7-7969-1494-28c874c4f668.dat",
                           "PS_T_Pose_bento.anim"};
    char dir[256];
    am_test_tmpdir(dir, sizeof dir);
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        char rel[256], src[1024], dst[512];
        snprintf(dst, sizeof dst, "%s/rt%zu.anim", dir, i);
        snprintf(rel, sizeof rel, SET "%s", files[i]);
        am_test_shared_path(src, sizeof src, rel);
        int rc = am_test_run_cli(out, sizeof out, "anim decode --json '%s' | '%s' anim encode - -o '%s'", src,
                                 AM_CLI_PATH, dst);
        if (rc != 0)
            fail_msg("%s: %s", files[i], out);
        assert_same_file(src, dst);
    }
    am_test_rmtree(dir);
}

static void test_encode_from_values_without_codes(void **state)
{
    (void)state;
    /* The worked example of docs/reference/anim-format.md#worked-example written as values: its bytes come out. */
    char dir[256], js[512], dst[512];
    am_test_tmpdir(dir, sizeof dir);
    snprintf(js, sizeof js, "%s/m.json", dir);
    snprintf(dst, sizeof dst, "%s/m.anim", dir);
    am_test_write_text(js, "{\"base_priority\": 3, \"duration\": 1, \"loop\": 1, \"loop_in\": 0, \"loop_out\": 1,"
                           " \"ease_in\": 0.5, \"ease_out\": 0.5, \"hand_pose\": 1, \"joints\": ["
                           " {\"name\": \"mPelvis\", \"priority\": 3,"
                           "  \"rot_keys\": [{\"t\": 0, \"rot\": [0,0,0,1]}, {\"t\": 1, \"rot\": [0,0,0.70710677,0.70710677]}],"
                           "  \"pos_keys\": [{\"t\": 0, \"pos\": [0,0,0]}, {\"t\": 1, \"pos\": [0,0,0.1]}]},"
                           " {\"name\": \"mHipLeft\", \"priority\": -1,"
                           "  \"rot_keys\": [{\"t\": 0, \"rot\": [0,0,0,1]}, {\"t\": 1, \"rot\": [0,0.38268343,0,0.92387953]}]}]}");
    assert_int_equal(am_test_run_cli(out, sizeof out, "anim encode '%s' -o '%s'", js, dst), 0);
    /* it loops from a 90 deg pose back to rest: written (the worked example's bytes), with a note */
    assert_non_null(strstr(out, "note: the pose jumps at the loop seam (1.000 s -> 0.000 s): 90.00 deg on joint 'mPelvis'"));
    uint8_t *d;
    size_t n;
    am_error err = {0};
    assert_int_equal(am_read_file(dst, &d, &n, &err), AM_OK);
    assert_int_equal(n, 134);
    /* spot bytes of the worked example: z code 55937 (81 DA) at 71, 33422 (8E 82) at 91, 45307 (FB B0) at 122 */
    assert_int_equal(d[71], 0x81);
    assert_int_equal(d[72], 0xDA);
    assert_int_equal(d[91], 0x8E);
    assert_int_equal(d[92], 0x82);
    assert_int_equal(d[122], 0xFB);
    assert_int_equal(d[123], 0xB0);
    free(d);
    /* a bad field is named */
    am_test_write_text(js, "{\"duration\": 1, \"joints\": [{\"name\": \"mPelvis\", \"rot_keys\": [{\"t\": 0, \"rot\": [0,0]}]}]}");
    assert_int_equal(am_test_run_cli(out, sizeof out, "anim encode '%s' -o '%s'", js, dst), 1);
    assert_non_null(strstr(out, "joints[0].rot_keys[0]"));
    am_test_rmtree(dir);
}

/* Key times are quantised against the duration: a 0 s clip (also 1e-50 s, which is 0 as a
 * float) cannot hold them, and a duration no float can hold is named in the JSON, not by an
 * offset into the encoded output. Nothing is written. */
static void test_a_duration_keys_cannot_use_is_refused_naming_the_json_field(void **state)
{
    (void)state;
    char dir[256], js[512], dst[512], bvh[512];
    am_test_tmpdir(dir, sizeof dir);
    snprintf(js, sizeof js, "%s/m.json", dir);
    snprintf(dst, sizeof dst, "%s/m.anim", dir);
    const char *durations[] = {"0", "1e-50"};
    for (int i = 0; i < 2; i++) {
        char text[512];
        snprintf(
            text, sizeof text,
            "{\"duration\": %s, \"joints\": [{\"name\": \"mPelvis\", \"rot_keys\": [{\"t\": 0, \"rot\": [0,0,0,1]}]}]}",
            durations[i]);
        am_test_write_text(js, text);
        assert_int_equal(am_test_run_cli(out, sizeof out, "anim encode '%s' -o '%s'", js, dst), 1);
        assert_non_null(strstr(out, "m.json: joints[0].rot_keys[0]: a key without 'code' needs a positive 'duration'"));
    }
    am_test_write_text(js, "{\"duration\": 1e308, \"joints\": [{\"name\": \"mPelvis\", \"rot_keys\": []}]}");
    assert_int_equal(am_test_run_cli(out, sizeof out, "anim encode '%s' -o '%s'", js, dst), 1);
    assert_non_null(strstr(out, "m.json: header: 'duration' 1e+308 does not fit a 32-bit float"));
    assert_null(strstr(out, "at byte"));
    am_test_write_text(js, "{\"duration\": 61, \"joints\": [{\"name\": \"mPelvis\"}]}");
    assert_int_equal(am_test_run_cli(out, sizeof out, "anim encode '%s' -o '%s'", js, dst), 1);
    assert_non_null(strstr(out, "m.json: header: 'duration' 61 s is over the viewer's 60 s limit"));
    am_test_write_text(js, "{\"duration\": 1, \"ease_in\": -1e39, \"joints\": [{\"name\": \"mPelvis\"}]}");
    assert_int_equal(am_test_run_cli(out, sizeof out, "anim encode '%s' -o '%s'", js, dst), 1);
    assert_non_null(strstr(out, "'ease_in' -1e+39 does not fit a 32-bit float"));
    /* from-bvh: a Frame Time that underflows to 0 as a float */
    snprintf(bvh, sizeof bvh, "%s/tiny.bvh", dir);
    am_test_write_text(bvh, "HIERARCHY\nROOT hip\n{\n  OFFSET 0 0 0\n  CHANNELS 6 Xposition Yposition Zposition "
                            "Zrotation Xrotation Yrotation\n}\nMOTION\nFrames: 3\nFrame Time: 1e-50\n0 0 0 0 0 0\n"
                            "0 0 0 10 0 0\n0 0 0 20 0 0\n");
    skel_env();
    assert_int_equal(am_test_run_cli(out, sizeof out, "anim from-bvh '%s' -o '%s'", bvh, dst), 1);
    assert_non_null(strstr(out, "tiny.bvh: bvh line 9: Frame Time 1e-50 s is 0 as a 32-bit float"));
    FILE *f = fopen(dst, "rb");
    assert_null(f);
    am_test_rmtree(dir);
}

static void test_check_exit_codes_on_real_files(void **state)
{
    (void)state;
    skel_env();
    char p[1024];
    am_test_shared_path(p, sizeof p, SET "18b3a4b5-b463-bd48-e4b6-71eaac76c515.dat");
    assert_int_equal(am_test_run_cli(out, sizeof out, "anim check '%s'", p), 0);
    assert_non_null(strstr(out, "would accept"));
    /* bow_and_arrow is not a joint: refused on upload, named with its byte offset */
    am_test_shared_path(p, sizeof p, SET "8b102617-bcba-037b-86c1-b76219f90c88.dat");
    assert_int_equal(am_test_run_cli(out, sizeof out, "anim check '%s'", p), 1);
    assert_non_null(strstr(out, "joint 'bow_and_arrow'"));
    assert_non_null(strstr(out, "at byte 391"));
    /* a truncated file: every reason, exit 1 */
    char dir[256], cut[512];
    am_test_tmpdir(dir, sizeof dir);
    snprintf(cut, sizeof cut, "%s/cut.anim", dir);
    uint8_t *d;
    size_t n;
    am_error err = {0};
    am_test_shared_path(p, sizeof p, SET "18b3a4b5-b463-bd48-e4b6-71eaac76c515.dat");
    assert_int_equal(am_read_file(p, &d, &n, &err), AM_OK);
    assert_int_equal(am_write_file_atomic(cut, d, 100, &err), AM_OK);
    free(d);
    assert_int_equal(am_test_run_cli(out, sizeof out, "anim check '%s'", cut), 1);
    assert_non_null(strstr(out, "truncated"));
    am_test_rmtree(dir);
}

static void test_from_bvh_converts_the_cmu_file(void **state)
{
    (void)state;
    am_test_skip_if_missing("/usr/share/assimp/models/BVH/01_01.bvh");
    skel_env();
    char dir[256], map[512], dst[512];
    am_test_tmpdir(dir, sizeof dir);
    snprintf(map, sizeof map, "%s/cmu.json", dir);
    snprintf(dst, sizeof dst, "%s/cmu.anim", dir);
    am_test_write_text(map, "{\"joints\": {\"Hips\": \"mPelvis\", \"Spine\": \"mTorso\", \"Spine1\": \"mChest\","
                            " \"Neck\": \"mNeck\", \"Head\": \"mHead\", \"LeftUpLeg\": \"mHipLeft\", \"LeftLeg\": \"mKneeLeft\","
                            " \"RightUpLeg\": \"mHipRight\", \"RightLeg\": \"mKneeRight\"}}");
    /* The walk does not end where it starts: as a loop it is refused by the loop guard,
     * naming a joint, and nothing is written... */
    assert_int_equal(am_test_run_cli(out, sizeof out,
                                     "anim from-bvh /usr/share/assimp/models/BVH/01_01.bvh --map '%s' --priority 4 "
                                     "--loop --ease-in 0.5 --hand-pose 0 -o '%s'", map, dst),
                     1);
    assert_non_null(strstr(out, "loop guard: joint '"));
    assert_non_null(strstr(out, "away at the loop seam"));
    FILE *none = fopen(dst, "rb");
    assert_null(none);
    /* ...unless the user accepts the seam explicitly. */
    assert_int_equal(am_test_run_cli(out, sizeof out,
                                     "anim from-bvh /usr/share/assimp/models/BVH/01_01.bvh --map '%s' --priority 4 "
                                     "--loop --loop-tolerance 180 --ease-in 0.5 --hand-pose 0 -o '%s'", map, dst),
                     0);
    am_anim a;
    am_error err = {0};
    assert_int_equal(am_anim_load(dst, &a, &err), AM_OK);
    assert_int_equal(a.joint_count, 9);
    assert_int_equal(a.base_priority, 4);
    assert_int_equal(a.loop, 1);
    assert_true(a.ease_in == 0.5f);
    assert_int_equal(a.hand_pose, 0);
    assert_true(a.loop_out == a.duration);
    am_anim_free(&a);
    /* without a map the CMU names are not the viewer's: the suggested map converts the file
     * (animesh map suggest), and the report says which map was used */
    assert_int_equal(am_test_run_cli(out, sizeof out, "anim from-bvh /usr/share/assimp/models/BVH/01_01.bvh -o '%s'", dst), 0);
    assert_non_null(strstr(out, "joint map: suggested from names and topology (28 joints: Hips->mPelvis"));
    assert_non_null(strstr(out, "LeftShoulder->mCollarLeft LeftArm->mShoulderLeft"));
    assert_non_null(strstr(out, "skipped: LHipJoint, RHipJoint, Neck1"));
    assert_int_equal(am_anim_load(dst, &a, &err), AM_OK);
    assert_int_equal(a.joint_count, 26); /* 28 mapped, 2 never move */
    am_anim_free(&a);
    /* CMU's zero pose splays the legs ~20 deg from the viewer's rest: warned, largest first */
    assert_non_null(strstr(out, "warning: the BVH's zero pose is not the viewer's rest: "));
    assert_non_null(strstr(out, "LeftUpLeg (mHipLeft) 25.4 deg"));
    assert_non_null(strstr(out, "--align-rest corrects it"));
    assert_int_equal(
        am_test_run_cli(out, sizeof out, "anim from-bvh /usr/share/assimp/models/BVH/01_01.bvh --align-rest -o '%s'", dst),
        0);
    assert_non_null(strstr(out, "corrected (--align-rest)"));
    assert_int_equal(am_anim_load(dst, &a, &err), AM_OK);
    assert_int_equal(a.joint_count, 28); /* the corrected fingers hold their correction */
    am_anim_free(&a);
    /* bad options are usage errors */
    assert_int_equal(am_test_run_cli(out, sizeof out, "anim from-bvh x.bvh --priority 9 -o '%s'", dst), 2);
    am_test_rmtree(dir);
}

static void test_encode_refuses_keys_the_encoder_would_clamp(void **state)
{
    (void)state;
    /* F32_to_U16 clamps: a key at 5 s of a 1 s motion would land at 1 s, a 9 m position at
     * 5 m, a zero quaternion at identity. From JSON these are input errors, named. */
    char dir[256], js[512], dst[512];
    am_test_tmpdir(dir, sizeof dir);
    snprintf(js, sizeof js, "%s/m.json", dir);
    snprintf(dst, sizeof dst, "%s/m.anim", dir);
    am_test_write_text(js, "{\"duration\": 1, \"joints\": [{\"name\": \"mPelvis\","
                           " \"rot_keys\": [{\"t\": 0, \"rot\": [0,0,0,1]}, {\"t\": 5, \"rot\": [0,0,0,1]}]}]}");
    assert_int_equal(am_test_run_cli(out, sizeof out, "anim encode '%s' -o '%s'", js, dst), 1);
    assert_non_null(strstr(out, js));
    assert_non_null(strstr(out, "joints[0].rot_keys[1]: 't' 5 s is outside 0..1 s"));
    am_test_write_text(js, "{\"duration\": 1, \"joints\": [{\"name\": \"mPelvis\","
                           " \"pos_keys\": [{\"t\": 0, \"pos\": [0,-9,0]}]}]}");
    assert_int_equal(am_test_run_cli(out, sizeof out, "anim encode '%s' -o '%s'", js, dst), 1);
    assert_non_null(strstr(out, "joints[0].pos_keys[0].pos[1] -9 m is outside -5..5 m"));
    am_test_write_text(js, "{\"duration\": 1, \"joints\": [{\"name\": \"mPelvis\","
                           " \"rot_keys\": [{\"t\": 0, \"rot\": [0,0,0,0]}]}]}");
    assert_int_equal(am_test_run_cli(out, sizeof out, "anim encode '%s' -o '%s'", js, dst), 1);
    assert_non_null(strstr(out, "joints[0].rot_keys[0].rot is not a rotation"));
    /* nothing was written */
    FILE *f = fopen(dst, "rb");
    assert_null(f);
    /* keys exactly at 0 and at the duration are fine */
    am_test_write_text(js, "{\"duration\": 1, \"joints\": [{\"name\": \"mPelvis\","
                           " \"pos_keys\": [{\"t\": 0, \"pos\": [0,0,5]}, {\"t\": 1, \"pos\": [0,0,-5]}]}]}");
    assert_int_equal(am_test_run_cli(out, sizeof out, "anim encode '%s' -o '%s'", js, dst), 0);
    am_test_rmtree(dir);
}

static void test_encode_check_failures_name_the_input_and_the_constraint(void **state)
{
    (void)state;
    /* A structural check that fails after the JSON was read (constraint type 7,
     * docs/reference/anim-format.md#validation-checks row 24): the message names the JSON file and
     * the constraint by index and volumes, not as a joint. */
    char dir[256], js[512], dst[512];
    am_test_tmpdir(dir, sizeof dir);
    snprintf(js, sizeof js, "%s/c.json", dir);
    snprintf(dst, sizeof dst, "%s/c.anim", dir);
    am_test_write_text(js, "{\"duration\": 1, \"joints\": [{\"name\": \"mWristLeft\","
                           " \"rot_keys\": [{\"t\": 0, \"rot\": [0,0,0,1]}]}],"
                           " \"constraints\": [{\"chain_length\": 0, \"type\": 7, \"source_volume\": \"L_HAND\","
                           " \"target_volume\": \"GROUND\"}]}");
    assert_int_equal(am_test_run_cli(out, sizeof out, "anim encode '%s' -o '%s'", js, dst), 1);
    assert_non_null(strstr(out, js));
    assert_non_null(strstr(out, "constraint 0 ('L_HAND' -> 'GROUND'): type 7"));
    assert_null(strstr(out, "joint 'L_HAND'"));
    am_test_rmtree(dir);
}

static const char *small_bvh = "HIERARCHY\nROOT hip\n{\n OFFSET 0 0 0\n"
                               " CHANNELS 6 Xposition Yposition Zposition Zrotation Xrotation Yrotation\n"
                               " JOINT abdomen\n {\n  OFFSET 0 3 0\n  CHANNELS 3 Zrotation Xrotation Yrotation\n"
                               "  End Site\n  {\n   OFFSET 0 1 0\n  }\n }\n}\nMOTION\nFrames: 3\nFrame Time: 0.5\n"
                               "0 40 0 0 0 0 0 0 0\n0 40 0 0 0 0 10 0 0\n0 40 0 0 0 0 20 0 0\n";

static void test_from_bvh_errors_name_the_option_and_both_files(void **state)
{
    (void)state;
    skel_env();
    char dir[256], bvh[512], map[512], dst[512];
    am_test_tmpdir(dir, sizeof dir);
    snprintf(bvh, sizeof bvh, "%s/s.bvh", dir);
    snprintf(map, sizeof map, "%s/m.json", dir);
    snprintf(dst, sizeof dst, "%s/s.anim", dir);
    am_test_write_text(bvh, small_bvh);
    assert_int_equal(am_test_run_cli(out, sizeof out, "anim from-bvh '%s' -o '%s'", bvh, dst), 0);
    /* usage errors name the option, also in the --opt=value form */
    assert_int_equal(am_test_run_cli(out, sizeof out, "anim from-bvh '%s' --loop-in=-1 -o '%s'", bvh, dst), 2);
    assert_non_null(strstr(out, "--loop-in needs a number of seconds >= 0, got '-1'"));
    assert_int_equal(am_test_run_cli(out, sizeof out, "anim from-bvh '%s' --ease-out inf -o '%s'", bvh, dst), 2);
    assert_non_null(strstr(out, "--ease-out"));
    /* loop points outside the clip or reversed (the upload floater would not allow them,
     * docs/reference/anim-format.md#bvh-defaults), or given without --loop */
    assert_int_equal(am_test_run_cli(out, sizeof out, "anim from-bvh '%s' --loop --loop-out 5 -o '%s'", bvh, dst), 2);
    assert_non_null(strstr(out, "within the 0.5 s clip")); /* (3 frames - 2) x 0.5 s */
    assert_int_equal(
        am_test_run_cli(out, sizeof out, "anim from-bvh '%s' --loop --loop-in 0.4 --loop-out 0.2 -o '%s'", bvh, dst), 2);
    assert_int_equal(am_test_run_cli(out, sizeof out, "anim from-bvh '%s' --loop-in 0.5 -o '%s'", bvh, dst), 2);
    assert_non_null(strstr(out, "need --loop"));
    assert_int_equal(
        am_test_run_cli(out, sizeof out,
                        "anim from-bvh '%s' --loop --loop-in 0.25 --loop-out 0.5 --loop-tolerance 180 -o '%s'", bvh, dst),
        0);
    assert_int_equal(am_test_run_cli(out, sizeof out, "anim from-bvh '%s' --loop --loop-tolerance -1 -o '%s'", bvh, dst),
                     2);
    /* an integer that does not fit is refused, not wrapped into range */
    assert_int_equal(am_test_run_cli(out, sizeof out, "anim from-bvh '%s' --priority 4294967298 -o '%s'", bvh, dst),
                     2);
    /* a map target that is not a viewer joint: both the BVH and the map are named */
    am_test_write_text(map, "{\"joints\": {\"hip\": \"mNope\"}}");
    assert_int_equal(am_test_run_cli(out, sizeof out, "anim from-bvh '%s' --map '%s' -o '%s'", bvh, map, dst), 1);
    assert_non_null(strstr(out, bvh));
    assert_non_null(strstr(out, map));
    assert_non_null(strstr(out, "'mNope'"));
    am_test_rmtree(dir);
}

static void test_decode_shows_a_file_the_viewer_would_refuse_and_check_refuses_it(void **state)
{
    (void)state;
    /* The worked example with hand pose 20 (docs/reference/anim-format.md#validation-checks row 14
     * rejects > 14): readable, so decode shows it (with a note) for inspection and repair; check
     * exits 1. */
    char dir[256], bad[512];
    am_test_tmpdir(dir, sizeof dir);
    snprintf(bad, sizeof bad, "%s/hand20.anim", dir);
    uint8_t b[AM_TEST_ANIM_WORKED_SIZE];
    memcpy(b, am_test_anim_worked, sizeof b);
    b[33] = 20;
    am_error err = {0};
    assert_int_equal(am_write_file_atomic(bad, b, sizeof b, &err), AM_OK);
    assert_int_equal(am_test_run_cli(out, sizeof out, "anim decode '%s'", bad), 0);
    assert_non_null(strstr(out, "hand pose 20"));
    assert_non_null(strstr(out, "note: the viewer would not accept this file"));
    assert_non_null(strstr(out, "(at byte 33)"));
    assert_int_equal(am_test_run_cli(out, sizeof out, "anim check '%s'", bad), 1);
    assert_non_null(strstr(out, "hand pose 20 is over 14"));
    /* version 0.1: the viewer reads it (docs/reference/anim-format.md#the-legacy-layout); check says it cannot judge it */
    uint8_t v01[AM_TEST_ANIM_WORKED_SIZE];
    memcpy(v01, am_test_anim_worked, sizeof v01);
    v01[0] = 0, v01[2] = 1;
    assert_int_equal(am_write_file_atomic(bad, v01, sizeof v01, &err), AM_OK);
    assert_int_equal(am_test_run_cli(out, sizeof out, "anim check '%s'", bad), 1);
    assert_non_null(strstr(out, "version 0.1"));
    assert_null(strstr(out, "would reject"));
    /* a file whose structure cannot be read is still an error */
    assert_int_equal(am_write_file_atomic(bad, b, 60, &err), AM_OK);
    assert_int_equal(am_test_run_cli(out, sizeof out, "anim decode '%s'", bad), 1);
    assert_non_null(strstr(out, "truncated"));
    am_test_rmtree(dir);
}

static void test_usage_and_io_errors(void **state)
{
    (void)state;
    assert_int_equal(am_test_run_cli(out, sizeof out, "anim --help"), 0);
    assert_non_null(strstr(out, "from-bvh"));
    assert_int_equal(am_test_run_cli(out, sizeof out, "anim decode --help"), 0);
    assert_int_equal(am_test_run_cli(out, sizeof out, "anim frobnicate"), 2);
    assert_int_equal(am_test_run_cli(out, sizeof out, "anim decode"), 2);
    assert_int_equal(am_test_run_cli(out, sizeof out, "anim decode x.anim -o x.json"), 2); /* -o needs --json */
    assert_non_null(strstr(out, "-o needs --json"));
    assert_int_equal(am_test_run_cli(out, sizeof out, "anim encode x.json"), 2); /* no -o */
    assert_int_equal(am_test_run_cli(out, sizeof out, "anim decode /nonexistent/x.anim"), 3);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_decode_prints_the_spot_check_values),
        cmocka_unit_test(test_json_round_trip_reproduces_real_files_byte_for_byte),
        cmocka_unit_test(test_encode_from_values_without_codes),
        cmocka_unit_test(test_a_duration_keys_cannot_use_is_refused_naming_the_json_field),
        cmocka_unit_test(test_check_exit_codes_on_real_files),
        cmocka_unit_test(test_from_bvh_converts_the_cmu_file),
        cmocka_unit_test(test_encode_refuses_keys_the_encoder_would_clamp),
        cmocka_unit_test(test_encode_check_failures_name_the_input_and_the_constraint),
        cmocka_unit_test(test_from_bvh_errors_name_the_option_and_both_files),
        cmocka_unit_test(test_decode_shows_a_file_the_viewer_would_refuse_and_check_refuses_it),
        cmocka_unit_test(test_usage_and_io_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
