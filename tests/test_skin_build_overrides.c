/* Overrides and inverse binds (docs/reference/mesh-asset.md#the-skin-block and #joint-position-overrides;
 * docs/reference/lessons.md#rule-3 and #rule-4; docs/reference/viewer-skeleton.md#the-pelvis-override-trap).
 * The quadruped fixture (assets/rigs/quadruped.json) is built, encoded and DECODED; the
 * decoded alt translations must be each joint's offset from its VIEWER parent (numbers
 * worked out by hand from avatar_skeleton.xml below), and forward kinematics done the
 * viewer's way from the decoded file must put every joint where its inverse bind expects. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mesh/mesh_asset.h"
#include "skin/rig.h"
#include "skin/skin_build.h"
#include "support/test_support.h"

typedef struct expect {
    const char *name;
    double alt[3];   /* expected local position under the viewer parent */
    double world[3]; /* rig world (bind frame) */
} expect;

/* Viewer parents: mTorso <- mSpine2 (appended, at (0,0,1.067)); mTail1, mHipLeft/Right <-
 * mPelvis; mHindLimb1* <- mHindLimbsRoot (appended, at (-0.2, 0, 1.151)). */
static const expect quad[] = {
    {"mPelvis", {0, 0, 1.067}, {0, 0, 1.067}},
    {"mTorso", {0.30, 0, 0.033}, {0.30, 0, 1.10}},
    {"mTail1", {-0.30, 0, 0.033}, {-0.30, 0, 1.10}},
    {"mTail2", {-0.20, 0, 0.05}, {-0.50, 0, 1.15}},
    {"mTail3", {-0.20, 0, 0.07}, {-0.70, 0, 1.22}},
    {"mHindLimb1Left", {-0.05, 0.12, -0.151}, {-0.25, 0.12, 1.00}},
    {"mHindLimb2Left", {0.03, 0, -0.25}, {-0.22, 0.12, 0.75}},
    {"mHindLimb3Left", {-0.06, 0, -0.25}, {-0.28, 0.12, 0.50}},
    {"mHindLimb1Right", {-0.05, -0.12, -0.151}, {-0.25, -0.12, 1.00}},
    {"mHindLimb2Right", {0.03, 0, -0.25}, {-0.22, -0.12, 0.75}},
    {"mHindLimb3Right", {-0.06, 0, -0.25}, {-0.28, -0.12, 0.50}},
    /* rule 3: the rig's own tool hangs the front legs from mTorso (offset (0.05, 0.12,
     * -0.10)); the viewer's parent is mPelvis, so the override must be (0.35, 0.12, -0.067) */
    {"mHipLeft", {0.35, 0.12, -0.067}, {0.35, 0.12, 1.00}},
    {"mKneeLeft", {0.01, 0, -0.25}, {0.36, 0.12, 0.75}},
    {"mHipRight", {0.35, -0.12, -0.067}, {0.35, -0.12, 1.00}},
    {"mKneeRight", {0.01, 0, -0.25}, {0.36, -0.12, 0.75}},
    /* appended ancestors at their defaults */
    {"mSpine1", {0, 0, 0.084}, {0, 0, 1.151}},
    {"mSpine2", {0, 0, -0.084}, {0, 0, 1.067}},
    {"mHindLimbsRoot", {-0.200, 0, 0.084}, {-0.2, 0, 1.151}},
};

static void load_quadruped(am_skeleton *skel, am_mesh_asset *back, am_skin_summary *sum)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/assets/rigs/quadruped.json", AM_SOURCE_DIR);
    am_error err;
    am_error_clear(&err);
    am_rig rig;
    char buf[512];
    if (am_rig_load(path, &rig, &err))
        fail_msg("%s", am_error_format(&err, buf, sizeof buf));
    am_skin_result res;
    if (am_skin_build(&rig, skel, NULL, &res, &err))
        fail_msg("%s", am_error_format(&err, buf, sizeof buf));
    am_buf out = {0};
    assert_int_equal(am_skin_encode(&res, &out, &err), AM_OK);
    assert_int_equal(am_mesh_asset_decode(out.data, out.size, back, &err), AM_OK);
    assert_true(am_skin_summary_copy(sum, &res.summary));
    am_buf_free(&out);
    am_skin_result_free(&res);
    am_rig_free(&rig);
}

static void test_decoded_overrides_are_offsets_from_viewer_parents(void **state)
{
    am_skeleton skel;
    am_test_load_viewer_skeleton(&skel);
    am_mesh_asset back;
    am_skin_summary *sum = calloc(1, sizeof *sum);
    load_quadruped(&skel, &back, sum);
    const am_mesh_skin *s = &back.skin;
    assert_int_equal(s->joint_count, sizeof quad / sizeof quad[0]);
    assert_int_equal(s->alt_count, s->joint_count);
    for (size_t i = 0; i < s->joint_count; i++) {
        assert_string_equal(s->joint_names[i], quad[i].name);
        for (int k = 0; k < 3; k++) {
            assert_near(s->alt_inverse_bind[i].m[12 + k], quad[i].alt[k], 1e-6);
            assert_near(s->inverse_bind[i].m[12 + k], -quad[i].world[k], 1e-6);
        }
    }
    /* the rig-parent offset of mHipLeft would have been (0.05, 0.12, -0.10): far off */
    assert_gt(fabs(s->alt_inverse_bind[11].m[12] - 0.05), 0.29);
    assert_int_equal(sum->appended_count, 3);
    assert_int_equal(sum->override_count, 14); /* every rig joint but mPelvis */
    assert_false(sum->pelvis_moved);
    am_skin_summary_free(sum);
    free(sum);
    am_mesh_asset_free(&back);
    am_skeleton_free(&skel);
}

/* Lessons rule 4: forward kinematics the viewer's way from the DECODED file — each skin
 * joint at its viewer parent plus the override it was sent (if above 0.1 mm), every other
 * joint at its default — must give W_j * IBM_j = identity for every joint at rest. */
static void test_viewer_fk_from_decoded_file_matches_inverse_binds(void **state)
{
    am_skeleton skel;
    am_test_load_viewer_skeleton(&skel);
    am_mesh_asset back;
    am_skin_summary *sum = calloc(1, sizeof *sum);
    load_quadruped(&skel, &back, sum);
    const am_mesh_skin *s = &back.skin;
    am_vec3 *world = calloc(skel.joint_count, sizeof *world);
    for (size_t j = 0; j < skel.bone_count; j++) {
        const am_joint *jt = &skel.joints[j];
        am_vec3 local = jt->pos; /* bind frame: mPelvis at its file position */
        for (size_t i = 0; i < s->joint_count; i++)
            if (strcmp(s->joint_names[i], jt->name) == 0) {
                am_vec3 t = am_mat4_get_translation(&s->alt_inverse_bind[i]);
                if (am_v3_dist(t, jt->pos) > 1e-4)
                    local = t;
            }
        world[j] = jt->parent >= 0 ? am_v3_add(world[jt->parent], local) : local;
    }
    for (size_t i = 0; i < s->joint_count; i++) {
        int j = am_skeleton_find_exact(&skel, s->joint_names[i]);
        assert_ge(j, 0);
        am_mat4 w = am_mat4_translation(world[j]);
        am_mat4 p = am_mat4_mul(&s->inverse_bind[i], &w); /* IBM then W (row vectors) */
        am_mat4 id = am_mat4_identity();
        assert_near(am_mat4_max_abs_diff(&p, &id), 0, 1e-6);
    }
    free(world);
    am_skin_summary_free(sum);
    free(sum);
    am_mesh_asset_free(&back);
    am_skeleton_free(&skel);
}

/* A one-triangle rig on the given joints (all weight on joint 0). */
static am_rig *small_rig(const char *const *names, const am_vec3 *worlds, size_t n)
{
    am_rig *r = calloc(1, sizeof *r);
    r->name = strdup("small");
    r->joint_count = n;
    r->joints = calloc(n, sizeof *r->joints);
    for (size_t i = 0; i < n; i++) {
        r->joints[i].name = strdup(names[i]);
        r->joints[i].world = worlds[i];
    }
    r->vertex_count = 3;
    static const float pos[9] = {0, 0, 1, 0.1f, 0, 1, 0, 0.1f, 1.1f};
    r->positions = malloc(sizeof pos);
    memcpy(r->positions, pos, sizeof pos);
    r->normals = calloc(9, sizeof(float));
    r->normals[0] = r->normals[3] = r->normals[6] = 1;
    r->uvs = calloc(6, sizeof(float));
    r->triangle_count = 1;
    r->triangles = malloc(3 * sizeof(uint32_t));
    r->triangles[0] = 0, r->triangles[1] = 1, r->triangles[2] = 2;
    r->weight_start = malloc(4 * sizeof(size_t));
    r->influences = malloc(3 * sizeof(am_rig_influence));
    for (size_t v = 0; v < 3; v++) {
        r->weight_start[v] = v;
        r->influences[v].joint = 0;
        r->influences[v].weight = 1;
    }
    r->weight_start[3] = 3;
    return r;
}

static void free_small(am_rig *r)
{
    am_rig_free(r);
    free(r);
}

static void test_threshold_snaps_to_default_and_children_measure_from_viewer_position(void **state)
{
    am_skeleton skel;
    am_test_load_viewer_skeleton(&skel);
    const char *names[] = {"mPelvis", "mHipLeft", "mKneeLeft"};
    /* pelvis 0.05 mm high, hip 0.05 mm forward of its default, knee 0.2 mm forward of its
     * default world (0.033, 0.081, 0.535) */
    am_vec3 worlds[] = {{0, 0, 1.06705}, {0.03405, 0.127, 1.026}, {0.0332, 0.081, 0.535}};
    am_rig *r = small_rig(names, worlds, 3);
    am_skin_result res;
    am_error err;
    am_error_clear(&err);
    assert_int_equal(am_skin_build(r, &skel, NULL, &res, &err), AM_OK);
    const am_mesh_skin *s = &res.asset.skin;
    /* within 0.1 mm: the default exactly (the pelvis trap: exactly (0, 0, 1.067)) */
    assert_true(s->alt_inverse_bind[0].m[14] == 1.067 && s->alt_inverse_bind[0].m[12] == 0);
    assert_true(s->alt_inverse_bind[1].m[12] == 0.034 && s->alt_inverse_bind[1].m[14] == -0.041);
    assert_false(res.summary.joints[0].overridden);
    assert_false(res.summary.joints[1].overridden);
    /* the knee is measured from where the viewer really puts the hip (its default,
     * (0.034, 0.127, 1.026)), not from the rig's hip 0.05 mm away: x = 0.0332 - 0.034 */
    assert_true(res.summary.joints[2].overridden);
    assert_near(s->alt_inverse_bind[2].m[12], -0.0008, 1e-9);
    assert_near(s->alt_inverse_bind[2].m[13], -0.046, 1e-9);
    assert_near(s->alt_inverse_bind[2].m[14], -0.491, 1e-9);
    /* inverse binds follow the viewer positions: the pelvis at 1.067, not 1.06705 */
    assert_near(s->inverse_bind[0].m[14], -1.067, 1e-12);
    assert_near(s->inverse_bind[2].m[12], -0.0332, 1e-9);
    assert_false(res.summary.pelvis_moved);
    am_skin_result_free(&res);
    free_small(r);
    am_skeleton_free(&skel);
}

static void test_moved_pelvis_is_written_and_warned(void **state)
{
    am_skeleton skel;
    am_test_load_viewer_skeleton(&skel);
    const char *names[] = {"hip", "avatar_mHipLeft"}; /* aliases of mPelvis and mHipLeft */
    am_vec3 worlds[] = {{0, 0, 1.2}, {0.034, 0.127, 1.159}};
    am_rig *r = small_rig(names, worlds, 2);
    am_skin_result res;
    am_error err;
    am_error_clear(&err);
    assert_int_equal(am_skin_build(r, &skel, NULL, &res, &err), AM_OK);
    const am_mesh_skin *s = &res.asset.skin;
    assert_string_equal(s->joint_names[0], "mPelvis");
    assert_string_equal(s->joint_names[1], "mHipLeft");
    assert_near(s->alt_inverse_bind[0].m[14], 1.2, 1e-12);
    assert_true(res.summary.pelvis_moved);
    assert_ge(res.summary.warning_count, 1);
    assert_non_null(strstr(am_str(&res.summary.warnings[0]), "mPelvis"));
    /* the hip sits at its default offset from the moved pelvis: no override */
    assert_false(res.summary.joints[1].overridden);
    assert_near(s->alt_inverse_bind[1].m[14], -0.041, 1e-12);
    am_skin_result_free(&res);
    free_small(r);
    am_skeleton_free(&skel);
}

static void test_unknown_and_duplicate_joint_names_are_refused_by_name(void **state)
{
    am_skeleton skel;
    am_test_load_viewer_skeleton(&skel);
    am_vec3 w[] = {{0, 0, 1.067}, {0, 0, 1.2}};
    const char *bad[] = {"mPelvis", "mWing9Left"};
    am_rig *r = small_rig(bad, w, 2);
    am_skin_result res;
    am_error err;
    am_error_clear(&err);
    assert_int_equal(am_skin_build(r, &skel, NULL, &res, &err), AM_ERR_INVALID);
    assert_non_null(strstr(err.msg, "'mWing9Left'"));
    free_small(r);
    const char *dup[] = {"mPelvis", "hip"};
    r = small_rig(dup, w, 2);
    am_error_clear(&err);
    assert_int_equal(am_skin_build(r, &skel, NULL, &res, &err), AM_ERR_INVALID);
    assert_non_null(strstr(err.msg, "both the viewer joint 'mPelvis'"));
    free_small(r);
    am_skeleton_free(&skel);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_decoded_overrides_are_offsets_from_viewer_parents),
        cmocka_unit_test(test_viewer_fk_from_decoded_file_matches_inverse_binds),
        cmocka_unit_test(test_threshold_snaps_to_default_and_children_measure_from_viewer_position),
        cmocka_unit_test(test_moved_pelvis_is_written_and_warned),
        cmocka_unit_test(test_unknown_and_duplicate_joint_names_are_refused_by_name),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
