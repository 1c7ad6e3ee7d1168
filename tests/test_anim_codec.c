/* The .anim codec against docs/reference/anim-format.md and the 153 real files of the OpenSim default
 * set: byte-exact round trip, quantisation as the viewer does it, the worked example of
 * docs/reference/anim-format.md#worked-example, the viewer's checks and our own, and clean errors on every truncation. */
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "anim/anim.h"
#include "core/io.h"
#include "support/anim_fixtures.h"
#include "support/test_support.h"

#define SET_DIR "data/anim/opensim-default-set"


static void read_shared(const char *rel, uint8_t **data, size_t *size)
{
    char path[1024];
    am_test_shared_path(path, sizeof path, rel);
    am_error err = {0};
    if (am_read_file(path, data, size, &err) != AM_OK)
        fail_msg("cannot read %s: %s", path, err.msg);
}

static void test_all_153_real_files_decode_and_reencode_identically(void **state)
{
    (void)state;
    char dir[1024];
    am_test_shared_path(dir, sizeof dir, SET_DIR);
    DIR *d = opendir(dir);
    assert_non_null(d);
    am_skeleton skel;
    am_test_load_viewer_skeleton(&skel);
    struct dirent *e;
    int files = 0, upload_refused = 0, with_constraints = 0, ignored_constraints = 0;
    while ((e = readdir(d)) != NULL) {
        size_t n = strlen(e->d_name);
        if (n < 5 || (strcmp(e->d_name + n - 4, ".dat") != 0 && strcmp(e->d_name + n - 5, ".anim") != 0))
            continue;
        char rel[512];
        snprintf(rel, sizeof rel, SET_DIR "/%s", e->d_name);
        uint8_t *data;
        size_t size;
        read_shared(rel, &data, &size);
        am_anim a;
        am_error err = {0};
        if (am_anim_decode(data, size, &a, &err) != AM_OK)
            fail_msg("%s: %s (at byte %zu)", e->d_name, err.msg, err.offset);
        am_buf out = {0};
        assert_int_equal(am_anim_encode(&a, &out, &err), AM_OK);
        if (out.size != size || memcmp(out.data, data, size) != 0)
            fail_msg("%s: re-encode differs (%zu vs %zu bytes)", e->d_name, out.size, size);
        /* Against the skeleton: nothing the viewer rejects outright; a few refused on upload. */
        am_anim_report rep;
        assert_int_equal(am_anim_validate(&a, &skel, &rep, &err), AM_OK);
        bool refused = false;
        for (size_t i = 0; i < rep.count; i++) {
            if (rep.issues[i].severity == AM_ANIM_REJECT || rep.issues[i].severity == AM_ANIM_OURS)
                fail_msg("%s: %s", e->d_name, am_str(&rep.issues[i].msg));
            if (rep.issues[i].severity == AM_ANIM_REJECT_UPLOAD)
                refused = true;
            if (strcmp(am_str(&rep.issues[i].check), "num_constraints") == 0)
                ignored_constraints++;
        }
        upload_refused += refused;
        with_constraints += a.constraint_count > 0 || a.constraint_count_raw != 0;
        am_anim_report_free(&rep);
        am_buf_free(&out);
        am_anim_free(&a);
        free(data);
        files++;
    }
    closedir(d);
    am_skeleton_free(&skel);
    assert_int_equal(files, 153);
    assert_int_equal(upload_refused, 4);  /* data README: bow_and_arrow, WISDOM_SWORD_1 x2 each */
    assert_int_equal(with_constraints, 31);
    assert_int_equal(ignored_constraints, 1); /* 9b0c1c4e: 11 constraints */
}

static void test_spot_check_18b3a4b5(void **state)
{
    (void)state;
    uint8_t *data;
    size_t size;
    read_shared(SET_DIR "/18b3a4b5-b463-bd48-e4b6-71eaac76c515.dat", &data, &size);
    am_anim a;
    am_error err = {0};
    assert_int_equal(am_anim_decode(data, size, &a, &err), AM_OK);
    assert_int_equal(a.version, 1);
    assert_int_equal(a.sub_version, 0);
    assert_int_equal(a.joint_count, 19);
    assert_int_equal(a.constraint_count, 2);
    assert_int_equal(a.base_priority, 2);
    assert_near(a.duration, 3.95, 0.01);
    assert_int_equal(a.hand_pose, 1);
    assert_int_equal(a.trailing_size, 0);
    long pelvis = -1;
    for (size_t j = 0; j < a.joint_count; j++)
        if (strcmp(a.joints[j].name, "mPelvis") == 0)
            pelvis = (long)j;
    assert_ge(pelvis, 0);
    assert_gt(a.joints[pelvis].pos_count, 0);
    /* Every decoded value comes from its code: spot-check the first pelvis position key. */
    const am_anim_pos_key *pk = &a.joints[pelvis].pos_keys[0];
    assert_near(pk->pos.x, pk->x_code * (10.0 / 65535.0) - 5.0, 2e-6);
    /* Key times lie in [0, duration] (viewer check #17 passes). */
    for (size_t j = 0; j < a.joint_count; j++)
        for (size_t k = 0; k < a.joints[j].rot_count; k++)
            assert_le(a.joints[j].rot_keys[k].time, a.duration);
    char name[17];
    for (size_t c = 0; c < a.constraint_count; c++) {
        assert_le(a.constraints[c].type, 1);
        assert_lt(a.constraints[c].chain_length, 4);
        assert_gt(strlen(am_anim_volume_name(a.constraints[c].source_volume, name)), 0);
    }
    am_anim_free(&a);
    free(data);
}

static void test_worked_example_decodes_as_the_spec_says(void **state)
{
    (void)state;
    am_anim a;
    am_error err = {0};
    assert_int_equal(am_anim_decode(am_test_anim_worked, sizeof am_test_anim_worked, &a, &err), AM_OK);
    assert_int_equal(a.base_priority, 3);
    assert_true(a.duration == 1.0f);
    assert_string_equal(a.emote_name, "");
    assert_true(a.loop_in == 0.0f && a.loop_out == 1.0f && a.loop == 1);
    assert_true(a.ease_in == 0.5f && a.ease_out == 0.5f);
    assert_int_equal(a.hand_pose, 1);
    assert_int_equal(a.joint_count, 2);
    assert_string_equal(a.joints[0].name, "mPelvis");
    assert_int_equal(a.joints[0].priority, 3);
    assert_string_equal(a.joints[1].name, "mHipLeft");
    assert_int_equal(a.joints[1].priority, -1);
    assert_int_equal(am_anim_joint_priority(&a, 1), 3);
    const am_anim_rot_key *r0 = &a.joints[0].rot_keys[0], *r1 = &a.joints[0].rot_keys[1];
    assert_true(r0->rot.x == 0 && r0->rot.y == 0 && r0->rot.z == 0 && r0->rot.w == 1);
    assert_true(r1->time == 1.0f);
    assert_int_equal(r1->z_code, 55937);
    assert_near(r1->rot.z, 0.70708787, 1e-8);
    assert_near(r1->rot.w, 0.70712566, 1e-7);
    assert_int_equal(a.joints[0].pos_keys[1].z_code, 33422);
    assert_near(a.joints[0].pos_keys[1].pos.z, 0.09987068, 1e-8);
    assert_int_equal(a.joints[1].rot_keys[1].y_code, 45307);
    assert_near(a.joints[1].rot_keys[1].rot.y, 0.38268101, 1e-8);
    assert_near(a.joints[1].rot_keys[1].rot.w, 0.92388052, 1e-7);
    assert_int_equal(a.joints[1].pos_count, 0);
    assert_int_equal(a.constraint_count, 0);
    assert_int_equal(a.trailing_size, 0);
    am_anim_free(&a);
}

/* Built from the worked example's values with the viewer's encoder: its exact bytes. */
static void test_worked_example_encodes_byte_for_byte(void **state)
{
    (void)state;
    am_anim_rot_key pr[2], hr[2];
    am_anim_pos_key pp[2];
    am_anim_rot_key_set(&pr[0], 0.0f, am_quat_identity(), 1.0f);
    am_anim_rot_key_set(&pr[1], 1.0f, (am_quat){0, 0, 0.70710677, 0.70710677}, 1.0f);
    am_anim_pos_key_set(&pp[0], 0.0f, am_v3(0, 0, 0), 1.0f);
    am_anim_pos_key_set(&pp[1], 1.0f, am_v3(0, 0, 0.1), 1.0f);
    am_anim_rot_key_set(&hr[0], 0.0f, am_quat_identity(), 1.0f);
    am_anim_rot_key_set(&hr[1], 1.0f, (am_quat){0, 0.38268343, 0, 0.92387953}, 1.0f);
    char pelvis[] = "mPelvis", hip[] = "mHipLeft", emote[] = "";
    am_anim_joint joints[2] = {
        {.name = pelvis, .priority = 3, .rot_keys = pr, .rot_count = 2, .pos_keys = pp, .pos_count = 2},
        {.name = hip, .priority = -1, .rot_keys = hr, .rot_count = 2},
    };
    am_anim a = {.version = 1, .base_priority = 3, .duration = 1.0f, .emote_name = emote,
                 .loop_in = 0.0f, .loop_out = 1.0f, .loop = 1, .ease_in = 0.5f, .ease_out = 0.5f,
                 .hand_pose = 1, .joints = joints, .joint_count = 2};
    am_buf out = {0};
    am_error err = {0};
    assert_int_equal(am_anim_encode(&a, &out, &err), AM_OK);
    assert_int_equal(out.size, sizeof am_test_anim_worked);
    assert_memory_equal(out.data, am_test_anim_worked, sizeof am_test_anim_worked);
    am_buf_free(&out);
}

static void test_quantisation_edges_match_the_viewer(void **state)
{
    /* an empty range (a 0 s duration): code 0, no division by zero, no NaN cast */
    assert_int_equal(am_anim_f32_to_u16(0.5f, 0.0f, 0.0f), 0);
    assert_int_equal(am_anim_f32_to_u16(0.5f, 1.0f, -1.0f), 0);
    assert_int_equal(am_anim_u16_to_f32(65535, 0.0f, 0.0f), 0.0f);
    (void)state;
    /* Rotation components, range [-1, 1]. */
    assert_int_equal(am_anim_f32_to_u16(-1.0f, -1, 1), 0);
    assert_int_equal(am_anim_f32_to_u16(1.0f, -1, 1), 65535);
    assert_int_equal(am_anim_f32_to_u16(0.0f, -1, 1), 32767); /* floor(32767.5) */
    assert_true(am_anim_u16_to_f32(0, -1, 1) == -1.0f);
    assert_true(am_anim_u16_to_f32(65535, -1, 1) == 1.0f);
    assert_true(am_anim_u16_to_f32(32767, -1, 1) == 0.0f); /* zero snap */
    assert_true(am_anim_u16_to_f32(32768, -1, 1) == 0.0f);
    assert_gt(am_anim_u16_to_f32(32769, -1, 1), 0.0f);
    /* Within one step of zero: encodes to 32767 and decodes to exactly 0. */
    float tiny = 1.0e-5f; /* step is 3.05e-5 */
    assert_int_equal(am_anim_f32_to_u16(tiny, -1, 1), 32767);
    assert_int_equal(am_anim_f32_to_u16(-tiny, -1, 1), 32767);
    assert_true(am_anim_u16_to_f32(am_anim_f32_to_u16(-tiny, -1, 1), -1, 1) == 0.0f);
    /* Decode then encode is not the identity (docs/reference/anim-format.md#quantisers): code 1 -> -0.99996948 -> 0. */
    assert_near(am_anim_u16_to_f32(1, -1, 1), -0.99996948, 1e-8);
    assert_int_equal(am_anim_f32_to_u16(am_anim_u16_to_f32(1, -1, 1), -1, 1), 0);
    /* The viewer's double floor: floor-code or floor-code - 1, never more. */
    int lower = 0;
    for (int i = 0; i <= 2000; i++) {
        float v = -1.0f + 2.0f * (float)i / 2000.0f;
        int once = am_anim_f32_to_u16(v, -1, 1), twice = am_anim_f32_to_u16_viewer(v, -1, 1);
        assert_true(twice == once || twice == once - 1);
        lower += twice == once - 1;
    }
    assert_gt(lower, 0);
    /* Positions: +-5 m and beyond are clamped. */
    assert_int_equal(am_anim_f32_to_u16(5.0f, -5, 5), 65535);
    assert_int_equal(am_anim_f32_to_u16(-5.0f, -5, 5), 0);
    assert_int_equal(am_anim_f32_to_u16(7.5f, -5, 5), 65535);
    assert_int_equal(am_anim_f32_to_u16(-1000.0f, -5, 5), 0);
    assert_true(am_anim_u16_to_f32(65535, -5, 5) == 5.0f);
    assert_int_equal(am_anim_f32_to_u16(0.1f, -5, 5), 33422); /* worked example: floor(33422.85) */
    /* Times: 0 and the duration are exact, even the largest one. */
    assert_int_equal(am_anim_f32_to_u16(60.0f, 0, 60.0f), 65535);
    assert_true(am_anim_u16_to_f32(65535, 0, 60.0f) == 60.0f);
    assert_true(am_anim_u16_to_f32(0, 0, 60.0f) == 0.0f);
    /* Times are floored (docs/reference/anim-format.md#quantisers): with duration 2 s, t = 1 s
     * is code 32767, which decodes to 2 * 32767 / 65535 = 0.99998474 s (0.99996948, two steps
     * lower, once quoted for this case is an erratum; the value checked is the exact fraction). */
    assert_int_equal(am_anim_f32_to_u16(1.0f, 0, 2.0f), 32767);
    assert_near(am_anim_u16_to_f32(32767, 0, 2.0f), 65534.0 / 65535.0, 1e-7);
    /* unpackFromVector3: |v| >= 1 gives w = 0, no rescale. */
    am_quat q = am_anim_unpack_rot(1.0f, 0.0f, 0.0f);
    assert_true(q.w == 0.0f && q.x == 1.0f);
    /* A key set from a value out of range is clamped to +-5 m. */
    am_anim_pos_key pk;
    am_anim_pos_key_set(&pk, 0.0f, am_v3(6.0, -6.0, 0.0), 1.0f);
    assert_true(pk.pos.x == 5.0f && pk.pos.y == -5.0f && pk.pos.z == 0.0f);
    /* A rotation with negative w is stored with w >= 0 (packToVector3). */
    am_anim_rot_key rk;
    am_anim_rot_key_set(&rk, 0.0f, (am_quat){0, 0, -0.70710677, -0.70710677}, 1.0f);
    assert_int_equal(rk.z_code, 55937);
}

static void expect_decode_error(const uint8_t *data, size_t size, const char *needle, size_t offset)
{
    am_anim a;
    am_error err = {0};
    assert_int_equal(am_anim_decode(data, size, &a, &err), AM_ERR_INVALID);
    if (!strstr(err.msg, needle))
        fail_msg("expected '%s' in: %s", needle, err.msg);
    if (offset != AM_NO_OFFSET)
        assert_int_equal(err.offset, offset);
}

static void test_bad_headers_name_the_check_and_offset(void **state)
{
    (void)state;
    uint8_t b[sizeof am_test_anim_worked];
    memcpy(b, am_test_anim_worked, sizeof b);
    /* duration 61 s */
    float d = 61.0f;
    memcpy(b + 8, &d, 4);
    expect_decode_error(b, sizeof b, "duration", 8);
    /* negative duration: our own check */
    d = -1.0f;
    memcpy(b + 8, &d, 4);
    expect_decode_error(b, sizeof b, "our check", 8);
    /* NaN duration */
    d = NAN;
    memcpy(b + 8, &d, 4);
    expect_decode_error(b, sizeof b, "not finite", 8);
    memcpy(b, am_test_anim_worked, sizeof b);
    /* joint count over the limit */
    b[37] = 217;
    expect_decode_error(b, sizeof b, "num_joints 217", 37);
    b[37] = 0;
    expect_decode_error(b, sizeof b, "num_joints 0", 37);
    memcpy(b, am_test_anim_worked, sizeof b);
    /* hand pose 15 rejected, 14 our own error */
    b[33] = 15;
    expect_decode_error(b, sizeof b, "hand_pose", 33);
    b[33] = 14;
    expect_decode_error(b, sizeof b, "our check", 33);
    memcpy(b, am_test_anim_worked, sizeof b);
    /* base priority -2 rejected; 7 accepted (the viewer uses 6) */
    int32_t p = -2;
    memcpy(b + 4, &p, 4);
    expect_decode_error(b, sizeof b, "base_priority", 4);
    p = 7;
    memcpy(b + 4, &p, 4);
    am_anim a;
    am_error err = {0};
    assert_int_equal(am_anim_decode(b, sizeof b, &a, &err), AM_OK);
    am_anim_free(&a);
    memcpy(b, am_test_anim_worked, sizeof b);
    /* joint priority 9: our own error; -2 rejected */
    p = 9;
    memcpy(b + 49, &p, 4);
    expect_decode_error(b, sizeof b, "joint 'mPelvis'", 49);
    p = -2;
    memcpy(b + 49, &p, 4);
    expect_decode_error(b, sizeof b, "joint_priority", 49);
    memcpy(b, am_test_anim_worked, sizeof b);
    /* version 2.0 */
    b[0] = 2;
    expect_decode_error(b, sizeof b, "version", 0);
    am_anim_free(&a);
}

static void test_joint_named_mroot_is_rejected(void **state)
{
    (void)state;
    /* Re-encode the worked example with the pelvis renamed. */
    am_anim a;
    am_error err = {0};
    assert_int_equal(am_anim_decode(am_test_anim_worked, sizeof am_test_anim_worked, &a, &err), AM_OK);
    free(a.joints[0].name);
    a.joints[0].name = strdup("mRoot");
    am_buf out = {0};
    assert_int_equal(am_anim_encode(&a, &out, &err), AM_OK);
    expect_decode_error(out.data, out.size, "joint 'mRoot'", 41);
    am_buf_free(&out);
    am_anim_free(&a);
}

static void test_key_time_beyond_duration_is_rejected(void **state)
{
    (void)state;
    uint8_t b[sizeof am_test_anim_worked];
    memcpy(b, am_test_anim_worked, sizeof b);
    /* Codes cannot express a time beyond a non-negative duration (65535 decodes to the
     * duration exactly), so edit a decoded value to prove row 17 fires and is located. */
    am_anim a;
    am_error err = {0};
    assert_int_equal(am_anim_decode(b, sizeof b, &a, &err), AM_OK);
    a.joints[1].rot_keys[1].time = 1.5f; /* a hand edit the codes could not express */
    am_anim_report rep;
    assert_int_equal(am_anim_validate(&a, NULL, &rep, &err), AM_OK);
    assert_int_equal(rep.errors, 1);
    assert_string_equal(am_str(&rep.issues[0].check), "key_time");
    assert_string_equal(am_str(&rep.issues[0].joint), "mHipLeft");
    assert_int_equal(rep.issues[0].viewer_row, 17);
    assert_int_equal(rep.issues[0].offset, 118);
    am_anim_report_free(&rep);
    am_anim_free(&a);
}

static void test_name_without_terminator_is_a_clean_error(void **state)
{
    (void)state;
    /* Header up to the emote, then an emote name that runs to the end of the buffer. */
    uint8_t b[20];
    memcpy(b, am_test_anim_worked, 12);
    memset(b + 12, 'a', 8);
    expect_decode_error(b, sizeof b, "emote_name", 12);
    /* A joint name without terminator: the worked example cut inside "mPelvis". */
    expect_decode_error(am_test_anim_worked, 45, "joint_name", 41);
}

static void test_every_truncation_of_a_real_file_is_a_clean_error(void **state)
{
    (void)state;
    uint8_t *data;
    size_t size;
    /* a mid-size file (about 2.9 kB) with constraints */
    read_shared(SET_DIR "/5ea3991f-c293-392e-6860-91dfa01278a3.dat", &data, &size);
    am_anim a;
    am_error err = {0};
    assert_int_equal(am_anim_decode(data, size, &a, &err), AM_OK);
    size_t full_end = size - a.trailing_size;
    am_anim_free(&a);
    for (size_t n = 0; n < full_end; n++) {
        uint8_t *cut = malloc(n ? n : 1); /* exact-size copy so ASan sees any over-read */
        assert_non_null(cut);
        memcpy(cut, data, n);
        am_error e2 = {0};
        if (am_anim_decode(cut, n, &a, &e2) != AM_ERR_INVALID)
            fail_msg("truncation at %zu of %zu decoded", n, size);
        assert_gt(strlen(e2.msg), 0);
        assert_le(e2.offset, n);
        assert_null(a.joints);
        free(cut);
    }
    free(data);
}

static void test_constraint_counts_over_ten_are_kept_verbatim(void **state)
{
    (void)state;
    uint8_t *data;
    size_t size;
    read_shared(SET_DIR "/9b0c1c4e-8ac7-7969-1494-28c874c4f668.dat", &data, &size);
    am_anim a;
    am_error err = {0};
    assert_int_equal(am_anim_decode(data, size, &a, &err), AM_OK);
    assert_int_equal(a.constraint_count_raw, 11);
    assert_int_equal(a.constraint_count, 0);
    assert_int_equal(a.trailing_size, 11 * AM_ANIM_CONSTRAINT_SIZE);
    am_anim_free(&a);
    free(data);
}

/* Constraint checks that need the skeleton (rows 23-32) and our chain-length check. */
static void test_constraint_checks_against_the_skeleton(void **state)
{
    (void)state;
    am_skeleton skel;
    am_test_load_viewer_skeleton(&skel);
    char n0[] = "mSpine4", n1[] = "mChest", emote[] = "";
    am_anim_rot_key k = {0};
    am_anim_rot_key_set(&k, 0.0f, am_quat_identity(), 1.0f);
    am_anim_joint joints[2] = {{.name = n0, .priority = -1, .rot_keys = &k, .rot_count = 1},
                               {.name = n1, .priority = -1, .rot_keys = &k, .rot_count = 1}};
    am_anim_constraint cs = {.chain_length = 1, .type = 0};
    memcpy(cs.source_volume, "CHEST", 6);
    memcpy(cs.target_volume, "GROUND", 7);
    am_anim a = {.version = 1, .base_priority = 3, .duration = 1.0f, .emote_name = emote, .loop_out = 1.0f,
                 .joints = joints, .joint_count = 2, .constraints = &cs, .constraint_count = 1,
                 .constraint_count_raw = 1};
    am_anim_report rep;
    am_error err = {0};
    /* CHEST hangs from mChest: chain = mChest and its parent mSpine4 (a Bento spine bone
     * between mTorso and mChest), both animated: valid */
    assert_int_equal(am_anim_validate(&a, &skel, &rep, &err), AM_OK);
    if (rep.errors)
        fail_msg("%s", am_str(&rep.issues[0].msg));
    am_anim_report_free(&rep);
    /* chain 2 reaches mSpine3, which the motion does not animate: row 32 */
    cs.chain_length = 2;
    assert_int_equal(am_anim_validate(&a, &skel, &rep, &err), AM_OK);
    assert_int_equal(rep.errors, 1);
    assert_string_equal(am_str(&rep.issues[0].check), "chain_joint");
    assert_int_equal(rep.issues[0].viewer_row, 32);
    assert_non_null(strstr(am_str(&rep.issues[0].msg), "mSpine3"));
    am_anim_report_free(&rep);
    /* chain 3 > 2 joints: row 23 */
    cs.chain_length = 3;
    assert_int_equal(am_anim_validate(&a, &skel, &rep, &err), AM_OK);
    assert_string_equal(am_str(&rep.issues[0].check), "chain_length");
    assert_int_equal(rep.issues[0].viewer_row, 23);
    am_anim_report_free(&rep);
    /* a source that is a bone, not a volume: row 25; an unknown target: row 27 */
    cs.chain_length = 1;
    memcpy(cs.source_volume, "mChest", 7);
    assert_int_equal(am_anim_validate(&a, &skel, &rep, &err), AM_OK);
    assert_string_equal(am_str(&rep.issues[0].check), "source_volume");
    am_anim_report_free(&rep);
    memcpy(cs.source_volume, "CHEST\0\0", 7);
    memcpy(cs.target_volume, "MOON\0\0", 7);
    cs.type = 2; /* and a bad type: row 24 */
    assert_int_equal(am_anim_validate(&a, &skel, &rep, &err), AM_OK);
    assert_int_equal(rep.errors, 2);
    assert_string_equal(am_str(&rep.issues[0].check), "constraint_type");
    assert_string_equal(am_str(&rep.issues[1].check), "target_volume");
    am_anim_report_free(&rep);
    /* chain length 4 with enough joints: passes the viewer, fails our check */
    memcpy(cs.target_volume, "GROUND", 7);
    cs.type = 1;
    cs.chain_length = 4;
    am_anim_joint many[5] = {joints[0], joints[1], joints[0], joints[1], joints[0]};
    a.joints = many;
    a.joint_count = 5;
    assert_int_equal(am_anim_validate(&a, NULL, &rep, &err), AM_OK);
    assert_int_equal(rep.errors, 1);
    assert_int_equal(rep.issues[0].severity, AM_ANIM_OURS);
    assert_non_null(strstr(am_str(&rep.issues[0].msg), "our check"));
    am_anim_report_free(&rep);
    am_skeleton_free(&skel);
}

/* Linden Lab's own bento_reset_bones_and_attachments.anim keys every attachment point,
 * the 8 HUD points too: the uploader's own avatar has them, so a direct upload accepts the
 * file (docs/reference/anim-format.md#validation-checks); on an animesh they animate nothing (a note, never a refusal). */
static void test_hud_attachment_points_are_accepted_on_upload(void **state)
{
    (void)state;
    uint8_t *data;
    size_t size;
    read_shared("data/realdata/bento_reset_bones_and_attachments.anim", &data, &size);
    am_anim a;
    am_error err = {0};
    assert_int_equal(am_anim_decode(data, size, &a, &err), AM_OK);
    assert_int_equal(a.joint_count, 187);
    am_skeleton skel;
    am_test_load_viewer_skeleton(&skel);
    am_anim_report rep;
    assert_int_equal(am_anim_validate(&a, &skel, &rep, &err), AM_OK);
    int hud_notes = 0;
    for (size_t i = 0; i < rep.count; i++) {
        if (rep.issues[i].severity != AM_ANIM_NOTE)
            fail_msg("%s: %s", am_str(&rep.issues[i].joint), am_str(&rep.issues[i].msg));
        if (strcmp(am_str(&rep.issues[i].check), "joint_name") == 0) {
            assert_non_null(strstr(am_str(&rep.issues[i].msg), "HUD attachment point"));
            hud_notes++;
        }
    }
    assert_int_equal(hud_notes, 8); /* ids 31..38, "Center 2" .. "Bottom Right" */
    am_anim_report_free(&rep);
    am_skeleton_free(&skel);
    am_anim_free(&a);
    free(data);
}

/* An issue names its joint whole: a 300-character joint name (the issue kept 63 before)
 * comes back in full in the issue's joint and in its sentence. */
static void test_an_issue_names_a_long_joint_whole(void **state)
{
    (void)state;
    am_anim a;
    am_error err = {0};
    assert_int_equal(am_anim_decode(am_test_anim_worked, sizeof am_test_anim_worked, &a, &err), AM_OK);
    char name[301];
    for (size_t i = 0; i < 300; i++)
        name[i] = (char)('a' + i % 26);
    name[300] = '\0';
    free(a.joints[0].name);
    a.joints[0].name = strdup(name);
    assert_non_null(a.joints[0].name);
    am_skeleton skel;
    am_test_load_viewer_skeleton(&skel);
    am_anim_report rep;
    assert_int_equal(am_anim_validate(&a, &skel, &rep, &err), AM_OK);
    size_t named = 0;
    for (size_t i = 0; i < rep.count; i++)
        if (rep.issues[i].joint.length == 300) {
            assert_string_equal(am_str(&rep.issues[i].joint), name);
            assert_non_null(strstr(am_str(&rep.issues[i].msg), name));
            named++;
        }
    assert_true(named >= 1);
    am_anim_report_free(&rep);
    assert_null(rep.issues);
    am_skeleton_free(&skel);
    am_anim_free(&a);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_all_153_real_files_decode_and_reencode_identically),
        cmocka_unit_test(test_spot_check_18b3a4b5),
        cmocka_unit_test(test_hud_attachment_points_are_accepted_on_upload),
        cmocka_unit_test(test_worked_example_decodes_as_the_spec_says),
        cmocka_unit_test(test_worked_example_encodes_byte_for_byte),
        cmocka_unit_test(test_quantisation_edges_match_the_viewer),
        cmocka_unit_test(test_bad_headers_name_the_check_and_offset),
        cmocka_unit_test(test_joint_named_mroot_is_rejected),
        cmocka_unit_test(test_an_issue_names_a_long_joint_whole),
        cmocka_unit_test(test_key_time_beyond_duration_is_rejected),
        cmocka_unit_test(test_name_without_terminator_is_a_clean_error),
        cmocka_unit_test(test_every_truncation_of_a_real_file_is_a_clean_error),
        cmocka_unit_test(test_constraint_counts_over_ten_are_kept_verbatim),
        cmocka_unit_test(test_constraint_checks_against_the_skeleton),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
