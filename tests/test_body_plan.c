/* Body plans (issue 28, map/body_plan.h): every skeleton, source and target, is a biped,
 * quadruped, winged creature, serpent or other, with the limbs that show it. On real files
 * and fixtures: the quadrupeds (the glTF fixture through the retarget route, the viewer-
 * rigged assets/rigs/quadruped.json through the faithful one) are quadrupeds with their
 * forelegs named; the Ready Player Me avatar, the Mixamo clips and Linden Lab's Bento
 * avatar are bipeds. A Mixamo clip onto the quadruped is refused naming both plans and the
 * limbs that disagree, and taken with --allow-body-mismatch; a quadruped's clip onto the
 * stock avatar likewise. The report poses a quadruped as one (foreleg forward, sit, tail
 * swing; no "arm down"), a biped with the humanoid set, a winged creature with its wings. */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "import/import.h"
#include "map/body_plan.h"
#include "map/map_suggest.h"
#include "readers/scene_load.h"
#include "report/poses_by_plan.h"
#include "retarget/retarget.h"
#include "support/gltf_fixtures.h"
#include "support/test_support.h"

static am_skeleton g_skel;
static int setup(void **state)
{
    (void)state;
    am_test_load_viewer_skeleton(&g_skel);
    char sk[4096]; /* the CLI runs below find the same skeleton */
    setenv("ANIMESH_SKELETON", am_test_shared_path(sk, sizeof sk, "viewer/avatar_skeleton.xml"), 1);
    return 0;
}
static int teardown(void **state) { return (void)state, am_skeleton_free(&g_skel), 0; }

static bool exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}

/* assets/rigs/quadruped.json skinned by the CLI into dir/q (quadruped.dae, .llmesh). */
static void skin_fixture(const char *dir)
{
    char out[4096];
    int rc = am_test_run_cli(out, sizeof out, "skin '%s/assets/rigs/quadruped.json' --out '%s/q'", AM_SOURCE_DIR, dir);
    if (rc != 0)
        fail_msg("skin quadruped.json: exit %d: %s", rc, out);
}

/* The creature's plan as import plans it (no files written). */
static void import_plan(const char *path, am_body_plan *out)
{
    am_scene s;
    am_error err;
    char msg[AM_ERROR_TEXT_MAX];
    am_scene_load_options lo = {.skeleton = &g_skel, .weld = true};
    if (am_scene_load_ex(path, &lo, &s, &err))
        fail_msg("%s", am_error_format(&err, msg, sizeof msg));
    am_import_options opts;
    am_import_options_init(&opts);
    am_import_plan plan;
    if (am_import_plan_make(&s, &g_skel, &opts, &plan, &err))
        fail_msg("%s", am_error_format(&err, msg, sizeof msg));
    assert_true(am_body_plan_copy(out, &plan.body_plan)); /* its own texts: the plan's go with it */
    am_import_plan_free(&plan);
    am_scene_free(&s);
}

/* A scene's plan as map suggest reads it (the scene is freed). */
static void scene_plan(am_scene *s, am_body_plan *out)
{
    am_error err;
    char msg[AM_ERROR_TEXT_MAX];
    am_body body;
    am_axes axes;
    am_map_suggestion sug;
    am_axes_options ao = {0};
    if (am_map_suggest_scene(s, &g_skel, &ao, NULL, &body, &axes, &sug, &err))
        fail_msg("%s", am_error_format(&err, msg, sizeof msg));
    assert_true(am_body_plan_classify(s, &body, &axes, &sug, &g_skel, out));
    am_map_suggestion_free(&sug);
    am_body_free(&body);
    am_scene_free(s);
}

/* A motion or model file's plan as map suggest reads it. */
static void suggest_plan(const char *path, am_body_plan *out)
{
    am_scene s;
    am_error err;
    char msg[AM_ERROR_TEXT_MAX];
    if (am_scene_load(path, &s, &err))
        fail_msg("%s", am_error_format(&err, msg, sizeof msg));
    scene_plan(&s, out);
}

static const am_body_plan_limb *limb(const am_body_plan *p, am_limb_role role)
{
    for (size_t i = 0; i < p->limb_count; i++)
        if (p->limbs[i].role == role)
            return &p->limbs[i];
    return NULL;
}

static void assert_limb(const am_body_plan *p, am_limb_role role, const char *a, const char *b)
{
    const am_body_plan_limb *l = limb(p, role);
    if (!l)
        fail_msg("no %s in a %s: %s", am_limb_role_label(role), am_body_plan_label(p->kind), p->evidence);
    if (!strstr(am_str(&l->joints), a) || (b && !strstr(am_str(&l->joints), b)))
        fail_msg("%s are '%s', expected %s and %s", am_limb_role_label(role), l->joints, a, b ? b : "-");
}

static void test_quadruped_fixtures_are_quadrupeds_with_their_forelegs_named(void **state)
{
    (void)state;
    char dir[256], glb[512], dae[600];
    am_test_tmpdir(dir, sizeof dir);

    /* the glTF quadruped through the retarget route: shoulders reach the ground */
    am_gf_write_quad_glb(dir, glb, sizeof glb, NULL);
    am_body_plan p = {0};
    import_plan(glb, &p);
    print_message("quad.glb: %s (%s)\n", am_body_plan_label(p.kind), am_str(&p.evidence));
    assert_int_equal(p.kind, AM_PLAN_QUADRUPED);
    assert_int_equal(p.leg_pairs, 2);
    assert_limb(&p, AM_LIMB_FORELEG, "ShoulderL", "ShoulderR");
    assert_limb(&p, AM_LIMB_HINDLEG, "ThighL", "ThighR");
    assert_null(limb(&p, AM_LIMB_ARM));
    assert_non_null(strstr(am_str(&p.evidence), "forelegs' lowest joint is 0.00 hip heights above the feet"));
    /* the forelegs drive the viewer's arm chain, the hind legs its legs (map_suggest.h) */
    assert_int_equal(limb(&p, AM_LIMB_FORELEG)->viewer, AM_VIEWER_ARMS);
    assert_int_equal(limb(&p, AM_LIMB_HINDLEG)->viewer, AM_VIEWER_LEGS);

    /* the viewer-rigged fixture through the faithful route: mHip.. in front (+X), mHindLimb.. behind */
    skin_fixture(dir);
    snprintf(dae, sizeof dae, "%s/q/quadruped.dae", dir);
    import_plan(dae, &p);
    print_message("quadruped.json as COLLADA: %s (%s)\n", am_body_plan_label(p.kind), am_str(&p.evidence));
    assert_int_equal(p.kind, AM_PLAN_QUADRUPED);
    assert_limb(&p, AM_LIMB_FORELEG, "mHipLeft", "mHipRight");
    assert_limb(&p, AM_LIMB_HINDLEG, "mHindLimb1Left", "mHindLimb1Right");
    assert_limb(&p, AM_LIMB_TAIL, "mTail1", NULL);
    am_body_plan_free(&p);

    /* map suggest prints it, and its JSON carries it */
    char out[16384];
    int rc = am_test_run_cli(out, sizeof out, "map suggest '%s'", glb);
    assert_int_equal(rc, 0);
    assert_non_null(strstr(out, "body plan: quadruped (hind legs (ThighL, ThighR); forelegs (ShoulderL, ShoulderR)"));
    rc = am_test_run_cli(out, sizeof out, "map suggest --json '%s' 2>/dev/null", glb);
    assert_int_equal(rc, 0);
    assert_non_null(strstr(out, "\"plan\": \"quadruped\""));
    assert_non_null(strstr(out, "\"role\": \"foreleg\""));
    am_test_rmtree(dir);
}

static void test_real_avatars_and_mixamo_clips_are_bipeds(void **state)
{
    (void)state;
    static const struct {
        const char *file, *leg, *arm;
        bool import;
    } cases[] = {
        {"data/realdata/rpm_avatar.glb", "LeftUpLeg", "LeftShoulder", false},
        {"data/realdata/Idle.fbx", "mixamorig:LeftUpLeg", "mixamorig:LeftShoulder", false},
        {"data/realdata/Walking.fbx", "mixamorig:LeftUpLeg", "mixamorig:LeftShoulder", false},
        /* the Bento avatar: its unweighted hind limbs and wings do not count, its arms do */
        {"data/realdata/female_2016_08_05.dae", "mHipLeft", "mCollarLeft", true},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char path[4096];
        am_test_shared_path(path, sizeof path, cases[i].file);
        am_test_skip_if_missing(path);
        am_body_plan p = {0};
        if (cases[i].import)
            import_plan(path, &p);
        else
            suggest_plan(path, &p);
        print_message("%s: %s (%s)\n", cases[i].file, am_body_plan_label(p.kind), am_str(&p.evidence));
        assert_int_equal(p.kind, AM_PLAN_BIPED);
        assert_int_equal(p.leg_pairs, 1);
        assert_limb(&p, AM_LIMB_LEG, cases[i].leg, NULL);
        assert_limb(&p, AM_LIMB_ARM, cases[i].arm, NULL);
        assert_null(limb(&p, AM_LIMB_WING));
        am_body_plan_free(&p);
    }
}

static void test_a_mixamo_clip_onto_the_quadruped_is_refused_then_allowed(void **state)
{
    (void)state;
    char idle[4096];
    am_test_shared_path(idle, sizeof idle, "data/realdata/Idle.fbx");
    am_test_skip_if_missing(idle);
    char dir[256], out[16384], o[600], anim[700];
    am_test_tmpdir(dir, sizeof dir);
    skin_fixture(dir);
    snprintf(o, sizeof o, "%s/o", dir);

    int rc = am_test_run_cli(out, sizeof out, "import '%s/q/quadruped.dae' --out '%s' --anim '%s'", dir, o, idle);
    assert_int_equal(rc, 1);
    assert_non_null(strstr(out, "Idle.fbx: body plans differ (--allow-body-mismatch retargets it anyway): a biped "
                                "motion onto a quadruped: its legs (mixamorig:LeftUpLeg, mixamorig:RightUpLeg) "
                                "would drive the forelegs (mHipLeft, mHipRight)"));
    assert_false(exists(o)); /* nothing written */

    rc = am_test_run_cli(out, sizeof out,
                         "import '%s/q/quadruped.dae' --out '%s' --anim '%s' --allow-body-mismatch --json", dir, o,
                         idle);
    assert_int_equal(rc, 0);
    snprintf(anim, sizeof anim, "%s/Idle.anim", o);
    assert_true(exists(anim));
    /* the JSON carries the library's words (the option), the printed text the flag */
    assert_non_null(strstr(out, "body plans differ (retargeted because of the allow_body_mismatch option): a biped "
                                "motion onto a quadruped"));
    assert_non_null(strstr(out, "the hind legs (mHindLimb1Left, mHindLimb1Right) get no motion"));
    /* the report JSON: the creature's plan and the motion's */
    assert_non_null(strstr(out, "\"body_plan\": {\n    \"plan\": \"quadruped\""));
    assert_non_null(strstr(out, "\"body_plan\": \"biped\""));

    /* the same on the bench (the written asset's plan) and through a BVH (CMU's 01_01) */
    rc = am_test_run_cli(out, sizeof out, "bench '%s/q/quadruped.llmesh' --anim '%s'", dir, idle);
    assert_int_equal(rc, 1);
    assert_non_null(strstr(out, "body plans differ (--allow-body-mismatch retargets it anyway): a biped motion onto a "
                                "quadruped: its legs (mixamorig:LeftUpLeg, mixamorig:RightUpLeg) would drive the "
                                "forelegs (mHipLeft, mHipRight)"));
    rc = am_test_run_cli(out, sizeof out, "bench '%s/q/quadruped.llmesh' --anim '%s' --allow-body-mismatch", dir,
                         idle);
    assert_int_equal(rc, 0);
    const char *cmu = "/usr/share/assimp/models/BVH/01_01.bvh";
    if (exists(cmu)) {
        rc = am_test_run_cli(out, sizeof out, "import '%s/q/quadruped.dae' --out '%s/b' --anim '%s'", dir, dir, cmu);
        assert_int_equal(rc, 1);
        assert_non_null(strstr(out, "01_01.bvh: body plans differ (--allow-body-mismatch retargets it anyway): a biped "
                                    "motion onto a quadruped: its legs (LHipJoint, RHipJoint) would drive the forelegs"));
    } else {
        print_message("CMU 01_01.bvh check skipped: %s is missing (Debian's assimp-testmodels)\n", cmu);
    }

    /* a quadruped's clip onto the stock avatar (anim from-model) */
    char glb[512];
    am_gf_write_quad_glb(dir, glb, sizeof glb, NULL);
    /* the fox's case: a Mixamo clip onto a retargeted quadruped (its forelegs on the viewer's arms) */
    rc = am_test_run_cli(out, sizeof out, "import '%s' --out '%s/f' --anim '%s'", glb, dir, idle);
    assert_int_equal(rc, 1);
    assert_non_null(strstr(out, "a biped motion onto a quadruped: its arms (mixamorig:LeftShoulder, "
                                "mixamorig:RightShoulder) would drive the forelegs (ShoulderL, ShoulderR)"));
    rc = am_test_run_cli(out, sizeof out, "anim from-model '%s' -o '%s/walk.anim'", glb, dir);
    assert_int_equal(rc, 1);
    assert_non_null(strstr(out, "body plans differ (--allow-body-mismatch retargets it anyway): a quadruped motion "
                                "onto a biped: its forelegs (ShoulderL, ShoulderR) would drive the arms (mCollarLeft, "
                                "mCollarRight)"));
    rc = am_test_run_cli(out, sizeof out, "anim from-model '%s' -o '%s/walk.anim' --allow-body-mismatch", glb, dir);
    assert_int_equal(rc, 0);
    assert_non_null(strstr(out, "retargeted because --allow-body-mismatch"));
    /* a biped's clip onto the stock avatar is no mismatch */
    rc = am_test_run_cli(out, sizeof out, "anim from-model '%s' -o '%s/idle.anim'", idle, dir);
    assert_int_equal(rc, 0);
    assert_null(strstr(out, "body plans differ"));
    am_test_rmtree(dir);
}

static bool has_pose(const am_quality_pose *p, size_t n, const char *name)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(am_str(&p[i].name), name) == 0)
            return true;
    return false;
}

static void test_report_poses_come_from_the_body_plan(void **state)
{
    (void)state;
    char dir[256], out[16384];
    am_test_tmpdir(dir, sizeof dir);
    skin_fixture(dir);
    int rc = am_test_run_cli(out, sizeof out, "report --verbose '%s/q/quadruped.llmesh'", dir);
    assert_int_equal(rc, 0);
    assert_non_null(strstr(out, "body plan: quadruped (viewer joints carrying weight: forelegs (mHipLeft, mHipRight); "
                                "hind legs (mHindLimb1Left, mHindLimb1Right); tail (mTail1))"));
    static const char *const quad[] = {"foreleg forward", "foreleg lift", "hind leg back", "hind knee", "sit",
                                       "tail swing", "tail lift"};
    for (size_t i = 0; i < sizeof quad / sizeof *quad; i++)
        if (!strstr(out, quad[i]))
            fail_msg("the quadruped's report has no '%s' pose:\n%s", quad[i], out);
    assert_null(strstr(out, "arm down"));
    assert_null(strstr(out, "squat"));
    am_test_rmtree(dir);

    /* the stock avatar's rest: weighted legs and arms are a biped (the humanoid set); with
     * wings weighted too, a winged biped (its wings, then the humanoid set) */
    size_t nj = g_skel.joint_count;
    bool *w = calloc(nj, sizeof *w);
    am_vec3 *rest = malloc(nj * sizeof *rest);
    assert_non_null(w);
    assert_non_null(rest);
    am_retarget_rest_of_rig(NULL, &g_skel, rest);
    static const char *const biped[] = {"mPelvis", "mTorso", "mChest", "mNeck", "mHead", "mHipLeft", "mHipRight",
                                        "mKneeLeft", "mKneeRight", "mAnkleLeft", "mAnkleRight", "mCollarLeft",
                                        "mCollarRight", "mShoulderLeft", "mShoulderRight", "mElbowLeft",
                                        "mElbowRight", "mWristLeft", "mWristRight"};
    for (size_t i = 0; i < sizeof biped / sizeof *biped; i++) {
        int j = am_skeleton_find_exact(&g_skel, biped[i]);
        assert_true(j >= 0);
        w[j] = true;
    }
    am_body_plan p;
    am_body_plan_from_viewer(&g_skel, w, rest, &p);
    print_message("stock avatar: %s (%s)\n", am_body_plan_label(p.kind), am_str(&p.evidence));
    assert_int_equal(p.kind, AM_PLAN_BIPED);
    assert_limb(&p, AM_LIMB_ARM, "mCollarLeft", "mCollarRight");
    am_quality_pose *poses;
    size_t n;
    am_error err;
    assert_int_equal(am_quality_plan_poses(&p, &poses, &n, &err), AM_OK);
    size_t std_n;
    am_quality_standard_poses(&std_n);
    assert_int_equal(n, std_n);
    assert_true(has_pose(poses, n, "arm down"));
    assert_false(has_pose(poses, n, "sit"));
    am_quality_poses_free(poses, n);

    w[am_skeleton_find_exact(&g_skel, "mWing1Left")] = true;
    w[am_skeleton_find_exact(&g_skel, "mWing1Right")] = true;
    am_body_plan_free(&p);
    am_body_plan_from_viewer(&g_skel, w, rest, &p);
    assert_int_equal(p.kind, AM_PLAN_WINGED);
    assert_limb(&p, AM_LIMB_WING, "mWing1Left", "mWing1Right");
    assert_int_equal(am_quality_plan_poses(&p, &poses, &n, &err), AM_OK);
    assert_string_equal(am_str(&poses[0].name), "wings up");
    assert_true(has_pose(poses, n, "wing fold"));
    assert_true(has_pose(poses, n, "arm down"));
    assert_int_equal(n, std_n + 3);
    am_quality_poses_free(poses, n);
    /* a biped's clip fits a winged biped (its wings stay still): no refusal */
    am_body_plan avatar;
    am_body_plan_viewer_avatar(&avatar);
    char why[1200];
    assert_false(am_body_plan_mismatch(&avatar, &p, why, sizeof why));
    assert_string_equal(why, "");
    /* hind limbs under the avatar's legs, standing behind them: a quadruped, refused */
    w[am_skeleton_find_exact(&g_skel, "mWing1Left")] = false;
    w[am_skeleton_find_exact(&g_skel, "mWing1Right")] = false;
    static const char *const hind[] = {"mHindLimb1Left", "mHindLimb1Right", "mHindLimb2Left", "mHindLimb2Right"};
    for (size_t i = 0; i < 4; i++)
        w[am_skeleton_find_exact(&g_skel, hind[i])] = true;
    am_body_plan_free(&p);
    am_body_plan_from_viewer(&g_skel, w, rest, &p);
    print_message("with hind limbs: %s (%s)\n", am_body_plan_label(p.kind), am_str(&p.evidence));
    assert_int_equal(p.kind, AM_PLAN_QUADRUPED);
    assert_true(am_body_plan_mismatch(&avatar, &p, why, sizeof why));
    assert_non_null(strstr(why, "a biped motion onto a quadruped:"));
    am_body_plan_free(&p);
    am_body_plan_free(&avatar);
    free(w);
    free(rest);
}

/* A plan's texts are its own and whole: a rig's joint names of 300 characters (the limb's
 * joints were cut at 160, the evidence at 600) come through classification, a copy and the
 * JSON unchanged, and the copy outlives the original. */
static void test_long_joint_names_are_kept_whole_through_a_copy(void **state)
{
    (void)state;
    char dir[256], glb[512];
    am_test_tmpdir(dir, sizeof dir);
    am_gf_write_quad_glb(dir, glb, sizeof glb, NULL);
    am_scene s;
    am_error err;
    char msg[AM_ERROR_TEXT_MAX];
    if (am_scene_load(glb, &s, &err))
        fail_msg("%s", am_error_format(&err, msg, sizeof msg));
    /* the shoulders renamed: 300 characters each, still a left and a right side */
    char left[301], right[301];
    memset(left, 'x', 300);
    memset(right, 'x', 300);
    memcpy(left, "ShoulderL_", 10);
    memcpy(right, "ShoulderR_", 10);
    left[300] = right[300] = '\0';
    size_t renamed = 0;
    for (size_t i = 0; i < s.node_count; i++) {
        const char *nm = s.nodes[i].name;
        if (nm && (strcmp(nm, "ShoulderL") == 0 || strcmp(nm, "ShoulderR") == 0)) {
            char *n = strdup(nm[8] == 'L' ? left : right);
            assert_non_null(n);
            free(s.nodes[i].name);
            s.nodes[i].name = n;
            renamed++;
        }
    }
    assert_int_equal(renamed, 2);
    am_body_plan p = {0}, copy = {0};
    scene_plan(&s, &p);
    print_message("long names: %s (%s)\n", am_body_plan_label(p.kind), am_str(&p.evidence));
    const am_body_plan_limb *fore = limb(&p, AM_LIMB_FORELEG);
    assert_non_null(fore);
    char want[700];
    snprintf(want, sizeof want, "%s, %s", left, right);
    assert_string_equal(am_str(&fore->joints), want);
    assert_int_equal(fore->joints.length, 602);
    assert_true(p.evidence.length > 600);
    assert_non_null(strstr(am_str(&p.evidence), want));
    assert_true(am_body_plan_copy(&copy, &p));
    char *evidence = strdup(am_str(&p.evidence));
    assert_non_null(evidence);
    am_body_plan_free(&p);
    assert_null(p.evidence.data); /* freed: the plan is empty again */
    assert_string_equal(am_str(&limb(&copy, AM_LIMB_FORELEG)->joints), want);
    assert_string_equal(am_str(&copy.evidence), evidence);
    json_t *j = am_body_plan_json(&copy);
    assert_non_null(j);
    assert_string_equal(json_string_value(json_object_get(j, "evidence")), evidence);
    json_decref(j);
    free(evidence);
    am_body_plan_free(&copy);
    am_test_rmtree(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_quadruped_fixtures_are_quadrupeds_with_their_forelegs_named),
        cmocka_unit_test(test_real_avatars_and_mixamo_clips_are_bipeds),
        cmocka_unit_test(test_long_joint_names_are_kept_whole_through_a_copy),
        cmocka_unit_test(test_a_mixamo_clip_onto_the_quadruped_is_refused_then_allowed),
        cmocka_unit_test(test_report_poses_come_from_the_body_plan),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
