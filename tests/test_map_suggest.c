/* Joint-map suggestion (src/map/map_suggest.h): one humanoid skeleton (T-pose, metres,
 * Z up, facing +X) named in each real naming convention must map to the same viewer joints,
 * with the confidence and reason the header promises; a quadruped without names maps by
 * topology alone; a name on the wrong side of the body is mapped by the side; further
 * segments stay unmapped with their weights' destination named; the CMU BVH in Debian's
 * assimp test models maps without a map file; --map overrides any part; the result always
 * passes am_joint_map_check. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "map/map_suggest.h"
#include "readers/scene_load.h"
#include "support/scene_fixtures.h"
#include "support/test_support.h"

static am_skeleton g_skel; /* the viewer's, loaded once for the group */
static int setup(void **state) { return (void)state, am_test_load_viewer_skeleton(&g_skel), 0; }
static int teardown(void **state) { return (void)state, am_skeleton_free(&g_skel), 0; }

/* --- the humanoid and its names -------------------------------------------------------- */

enum {
    HIPS, SPINE, SPINE1, CHEST, NECK, HEAD, HEADEND,
    UPLEG_L, LEG_L, FOOT_L, TOE_L, TOEEND_L, UPLEG_R, LEG_R, FOOT_R, TOE_R, TOEEND_R,
    COLLAR_L, ARM_L, FOREARM_L, HAND_L, THUMB1_L, THUMB2_L, THUMB3_L, INDEX1_L, INDEX2_L, INDEX3_L,
    MIDDLE1_L, MIDDLE2_L, MIDDLE3_L,
    COLLAR_R, ARM_R, FOREARM_R, HAND_R, THUMB1_R, THUMB2_R, THUMB3_R, INDEX1_R, INDEX2_R, INDEX3_R,
    MIDDLE1_R, MIDDLE2_R, MIDDLE3_R,
    NROLES
};

typedef struct role {
    int parent;
    double p[3]; /* left side; the right mirrors y */
    const char *target;
} role;

static const role R[NROLES] = {
    [HIPS] = {-1, {0, 0, 1.0}, "mPelvis"},
    [SPINE] = {HIPS, {0, 0, 1.1}, "mSpine1"},
    [SPINE1] = {SPINE, {0, 0, 1.25}, "mTorso"},
    [CHEST] = {SPINE1, {0, 0, 1.4}, "mChest"},
    [NECK] = {CHEST, {0.01, 0, 1.55}, "mNeck"},
    [HEAD] = {NECK, {0.02, 0, 1.65}, "mHead"},
    [HEADEND] = {HEAD, {0.02, 0, 1.85}, "mSkull"},
    [UPLEG_L] = {HIPS, {0, 0.1, 0.95}, "mHipLeft"},
    [LEG_L] = {UPLEG_L, {0.01, 0.1, 0.5}, "mKneeLeft"},
    [FOOT_L] = {LEG_L, {0, 0.1, 0.08}, "mAnkleLeft"},
    [TOE_L] = {FOOT_L, {0.12, 0.1, 0.02}, "mFootLeft"},
    [TOEEND_L] = {TOE_L, {0.2, 0.1, 0.02}, "mToeLeft"},
    [COLLAR_L] = {CHEST, {0, 0.04, 1.45}, "mCollarLeft"},
    [ARM_L] = {COLLAR_L, {0, 0.18, 1.45}, "mShoulderLeft"},
    [FOREARM_L] = {ARM_L, {0, 0.45, 1.45}, "mElbowLeft"},
    [HAND_L] = {FOREARM_L, {0, 0.7, 1.45}, "mWristLeft"},
    [THUMB1_L] = {HAND_L, {0.04, 0.73, 1.43}, "mHandThumb1Left"},
    [THUMB2_L] = {THUMB1_L, {0.06, 0.76, 1.43}, "mHandThumb2Left"},
    [THUMB3_L] = {THUMB2_L, {0.07, 0.79, 1.43}, "mHandThumb3Left"},
    [INDEX1_L] = {HAND_L, {0.025, 0.79, 1.45}, "mHandIndex1Left"},
    [INDEX2_L] = {INDEX1_L, {0.025, 0.83, 1.45}, "mHandIndex2Left"},
    [INDEX3_L] = {INDEX2_L, {0.025, 0.86, 1.45}, "mHandIndex3Left"},
    [MIDDLE1_L] = {HAND_L, {0.0, 0.795, 1.45}, "mHandMiddle1Left"},
    [MIDDLE2_L] = {MIDDLE1_L, {0.0, 0.84, 1.45}, "mHandMiddle2Left"},
    [MIDDLE3_L] = {MIDDLE2_L, {0.0, 0.875, 1.45}, "mHandMiddle3Left"},
};

static bool is_right(int r) { return (r >= UPLEG_R && r <= TOEEND_R) || r >= COLLAR_R; }
/* the left role a right role mirrors */
static int left_of(int r)
{
    if (r >= COLLAR_R)
        return r - (COLLAR_R - COLLAR_L);
    if (r >= UPLEG_R && r <= TOEEND_R)
        return r - (UPLEG_R - UPLEG_L);
    return r;
}

static void target_of(int r, char *out, size_t n)
{
    const char *t = R[left_of(r)].target;
    snprintf(out, n, "%s", t);
    if (is_right(r)) {
        char *at = strstr(out, "Left");
        snprintf(at, n - (size_t)(at - out), "Right");
    }
}

/* Role names: index by role for the centre, by the left role for both sides. */
typedef struct naming {
    const char *label;
    const char *left, *right; /* side markers substituted for %s */
    const char *n[NROLES];    /* centre roles as is; sided roles with %s (left roles only) */
    double min_conf;          /* for sided joints */
} naming;

static const naming SCHEMES[] = {
    {"Mixamo", "Left", "Right",
     {[HIPS] = "mixamorig:Hips", [SPINE] = "mixamorig:Spine", [SPINE1] = "mixamorig:Spine1", [CHEST] = "mixamorig:Spine2",
      [NECK] = "mixamorig:Neck", [HEAD] = "mixamorig:Head", [HEADEND] = "mixamorig:HeadTop_End",
      [UPLEG_L] = "mixamorig:%sUpLeg", [LEG_L] = "mixamorig:%sLeg", [FOOT_L] = "mixamorig:%sFoot",
      [TOE_L] = "mixamorig:%sToeBase", [TOEEND_L] = "mixamorig:%sToe_End", [COLLAR_L] = "mixamorig:%sShoulder",
      [ARM_L] = "mixamorig:%sArm", [FOREARM_L] = "mixamorig:%sForeArm", [HAND_L] = "mixamorig:%sHand",
      [THUMB1_L] = "mixamorig:%sHandThumb1", [THUMB2_L] = "mixamorig:%sHandThumb2", [THUMB3_L] = "mixamorig:%sHandThumb3",
      [INDEX1_L] = "mixamorig:%sHandIndex1", [INDEX2_L] = "mixamorig:%sHandIndex2", [INDEX3_L] = "mixamorig:%sHandIndex3",
      [MIDDLE1_L] = "mixamorig:%sHandMiddle1", [MIDDLE2_L] = "mixamorig:%sHandMiddle2",
      [MIDDLE3_L] = "mixamorig:%sHandMiddle3"},
     0.95},
    {"Unreal", "l", "r",
     {[HIPS] = "pelvis", [SPINE] = "spine_01", [SPINE1] = "spine_02", [CHEST] = "spine_03", [NECK] = "neck_01",
      [HEAD] = "head", [HEADEND] = "head_end", [UPLEG_L] = "thigh_%s", [LEG_L] = "calf_%s", [FOOT_L] = "foot_%s",
      [TOE_L] = "ball_%s", [TOEEND_L] = "ball_end_%s", [COLLAR_L] = "clavicle_%s", [ARM_L] = "upperarm_%s",
      [FOREARM_L] = "lowerarm_%s", [HAND_L] = "hand_%s", [THUMB1_L] = "thumb_01_%s", [THUMB2_L] = "thumb_02_%s",
      [THUMB3_L] = "thumb_03_%s", [INDEX1_L] = "index_01_%s", [INDEX2_L] = "index_02_%s", [INDEX3_L] = "index_03_%s",
      [MIDDLE1_L] = "middle_01_%s", [MIDDLE2_L] = "middle_02_%s", [MIDDLE3_L] = "middle_03_%s"},
     0.95},
    {"Rigify", "L", "R",
     {[HIPS] = "DEF-spine", [SPINE] = "DEF-spine.001", [SPINE1] = "DEF-spine.002", [CHEST] = "DEF-spine.003",
      [NECK] = "DEF-neck", [HEAD] = "DEF-head", [HEADEND] = "DEF-head_end", [UPLEG_L] = "DEF-thigh.%s",
      [LEG_L] = "DEF-shin.%s", [FOOT_L] = "DEF-foot.%s", [TOE_L] = "DEF-toe.%s", [TOEEND_L] = "DEF-toe_end.%s",
      [COLLAR_L] = "DEF-shoulder.%s", [ARM_L] = "DEF-upper_arm.%s", [FOREARM_L] = "DEF-forearm.%s",
      [HAND_L] = "DEF-hand.%s", [THUMB1_L] = "DEF-thumb.01.%s", [THUMB2_L] = "DEF-thumb.02.%s",
      [THUMB3_L] = "DEF-thumb.03.%s", [INDEX1_L] = "DEF-f_index.01.%s", [INDEX2_L] = "DEF-f_index.02.%s",
      [INDEX3_L] = "DEF-f_index.03.%s", [MIDDLE1_L] = "DEF-f_middle.01.%s", [MIDDLE2_L] = "DEF-f_middle.02.%s",
      [MIDDLE3_L] = "DEF-f_middle.03.%s"},
     0.95},
    {".L/.R", "L", "R",
     {[HIPS] = "hips", [SPINE] = "spine", [SPINE1] = "spine.001", [CHEST] = "chest", [NECK] = "neck", [HEAD] = "head",
      [HEADEND] = "head_end", [UPLEG_L] = "thigh.%s", [LEG_L] = "shin.%s", [FOOT_L] = "foot.%s", [TOE_L] = "toe.%s",
      [TOEEND_L] = "toe_end.%s", [COLLAR_L] = "shoulder.%s", [ARM_L] = "upper_arm.%s", [FOREARM_L] = "forearm.%s",
      [HAND_L] = "hand.%s", [THUMB1_L] = "thumb.01.%s", [THUMB2_L] = "thumb.02.%s", [THUMB3_L] = "thumb.03.%s",
      [INDEX1_L] = "f_index.01.%s", [INDEX2_L] = "f_index.02.%s", [INDEX3_L] = "f_index.03.%s",
      [MIDDLE1_L] = "f_middle.01.%s", [MIDDLE2_L] = "f_middle.02.%s", [MIDDLE3_L] = "f_middle.03.%s"},
     0.95},
    {"_L/_R", "L", "R",
     {[HIPS] = "Hips", [SPINE] = "Spine", [SPINE1] = "Spine1", [CHEST] = "Chest", [NECK] = "Neck", [HEAD] = "Head",
      [HEADEND] = "Head_end", [UPLEG_L] = "UpperLeg_%s", [LEG_L] = "LowerLeg_%s", [FOOT_L] = "Foot_%s",
      [TOE_L] = "Toes_%s", [TOEEND_L] = "ToesEnd_%s", [COLLAR_L] = "Clavicle_%s", [ARM_L] = "UpperArm_%s",
      [FOREARM_L] = "LowerArm_%s", [HAND_L] = "Hand_%s", [THUMB1_L] = "Thumb1_%s", [THUMB2_L] = "Thumb2_%s",
      [THUMB3_L] = "Thumb3_%s", [INDEX1_L] = "Index1_%s", [INDEX2_L] = "Index2_%s", [INDEX3_L] = "Index3_%s",
      [MIDDLE1_L] = "Middle1_%s", [MIDDLE2_L] = "Middle2_%s", [MIDDLE3_L] = "Middle3_%s"},
     0.95},
    {"L_/R_", "L", "R",
     {[HIPS] = "Hips", [SPINE] = "Spine", [SPINE1] = "Spine1", [CHEST] = "Chest", [NECK] = "Neck", [HEAD] = "Head",
      [HEADEND] = "HeadEnd", [UPLEG_L] = "%s_Thigh", [LEG_L] = "%s_Calf", [FOOT_L] = "%s_Foot", [TOE_L] = "%s_Toe",
      [TOEEND_L] = "%s_ToeEnd", [COLLAR_L] = "%s_Clavicle", [ARM_L] = "%s_UpperArm", [FOREARM_L] = "%s_Forearm",
      [HAND_L] = "%s_Hand", [THUMB1_L] = "%s_Thumb1", [THUMB2_L] = "%s_Thumb2", [THUMB3_L] = "%s_Thumb3",
      [INDEX1_L] = "%s_Index1", [INDEX2_L] = "%s_Index2", [INDEX3_L] = "%s_Index3", [MIDDLE1_L] = "%s_Middle1",
      [MIDDLE2_L] = "%s_Middle2", [MIDDLE3_L] = "%s_Middle3"},
     0.95},
    {"HumanIK", "Left", "Right",
     {[HIPS] = "Character1_Hips", [SPINE] = "Character1_Spine", [SPINE1] = "Character1_Spine1",
      [CHEST] = "Character1_Spine2", [NECK] = "Character1_Neck", [HEAD] = "Character1_Head",
      [HEADEND] = "Character1_HeadEnd", [UPLEG_L] = "Character1_%sUpLeg", [LEG_L] = "Character1_%sLeg",
      [FOOT_L] = "Character1_%sFoot", [TOE_L] = "Character1_%sToeBase", [TOEEND_L] = "Character1_%sToeEnd",
      [COLLAR_L] = "Character1_%sShoulder", [ARM_L] = "Character1_%sArm", [FOREARM_L] = "Character1_%sForeArm",
      [HAND_L] = "Character1_%sHand", [THUMB1_L] = "Character1_%sHandThumb1", [THUMB2_L] = "Character1_%sHandThumb2",
      [THUMB3_L] = "Character1_%sHandThumb3", [INDEX1_L] = "Character1_%sHandIndex1",
      [INDEX2_L] = "Character1_%sHandIndex2", [INDEX3_L] = "Character1_%sHandIndex3",
      [MIDDLE1_L] = "Character1_%sHandMiddle1", [MIDDLE2_L] = "Character1_%sHandMiddle2",
      [MIDDLE3_L] = "Character1_%sHandMiddle3"},
     0.95},
    {"Bip01", "L", "R",
     {[HIPS] = "Bip01 Pelvis", [SPINE] = "Bip01 Spine", [SPINE1] = "Bip01 Spine1", [CHEST] = "Bip01 Spine2",
      [NECK] = "Bip01 Neck", [HEAD] = "Bip01 Head", [HEADEND] = "Bip01 HeadNub", [UPLEG_L] = "Bip01 %s Thigh",
      [LEG_L] = "Bip01 %s Calf", [FOOT_L] = "Bip01 %s Foot", [TOE_L] = "Bip01 %s Toe0", [TOEEND_L] = "Bip01 %s Toe0Nub",
      [COLLAR_L] = "Bip01 %s Clavicle", [ARM_L] = "Bip01 %s UpperArm", [FOREARM_L] = "Bip01 %s Forearm",
      [HAND_L] = "Bip01 %s Hand", [THUMB1_L] = "Bip01 %s Finger0", [THUMB2_L] = "Bip01 %s Finger01",
      [THUMB3_L] = "Bip01 %s Finger02", [INDEX1_L] = "Bip01 %s Finger1", [INDEX2_L] = "Bip01 %s Finger11",
      [INDEX3_L] = "Bip01 %s Finger12", [MIDDLE1_L] = "Bip01 %s Finger2", [MIDDLE2_L] = "Bip01 %s Finger21",
      [MIDDLE3_L] = "Bip01 %s Finger22"},
     0.95},
    /* Daz Genesis / Poser: the viewer's own aliases come from these (hip, lThigh, lShin, lFoot...) */
    {"Daz", "l", "r",
     {[HIPS] = "hip", [SPINE] = "abdomenLower", [SPINE1] = "abdomenUpper", [CHEST] = "chestUpper",
      [NECK] = "neckLower", [HEAD] = "head", [HEADEND] = "head_end", [UPLEG_L] = "%sThighBend", [LEG_L] = "%sShin",
      [FOOT_L] = "%sFoot", [TOE_L] = "%sToe", [TOEEND_L] = "%sToe_end", [COLLAR_L] = "%sCollar",
      [ARM_L] = "%sShldrBend", [FOREARM_L] = "%sForearmBend", [HAND_L] = "%sHand", [THUMB1_L] = "%sThumb1",
      [THUMB2_L] = "%sThumb2", [THUMB3_L] = "%sThumb3", [INDEX1_L] = "%sIndex1", [INDEX2_L] = "%sIndex2",
      [INDEX3_L] = "%sIndex3", [MIDDLE1_L] = "%sMid1", [MIDDLE2_L] = "%sMid2", [MIDDLE3_L] = "%sMid3"},
     0.95},
};

static void role_name(const naming *nm, int r, char *out, size_t n)
{
    const char *pat = nm->n[left_of(r)];
    if (strstr(pat, "%s"))
        snprintf(out, n, pat, is_right(r) ? nm->right : nm->left);
    else
        snprintf(out, n, "%s", pat);
}

/* The humanoid as joints only (nodes marked as joints, as a BVH gives them), Z up, facing +X.
 * swap_leg_names: the left leg's names on the right leg and back. */
static void humanoid(am_scene *s, const naming *nm, bool swap_leg_names)
{
    sf_init(s, "humanoid", 0, 0, 0);
    for (int r = 0; r < NROLES; r++) {
        int l = left_of(r);
        double sy = is_right(r) ? -1 : 1;
        am_vec3 p = am_v3(R[l].p[0], sy * R[l].p[1], R[l].p[2]);
        int pr = R[l].parent;
        if (is_right(r) && pr != HIPS && pr != CHEST)
            pr += r >= COLLAR_R ? COLLAR_R - COLLAR_L : UPLEG_R - UPLEG_L;
        am_vec3 pp = am_v3(0, 0, 0);
        if (pr >= 0) {
            int pl = left_of(pr);
            double psy = is_right(pr) ? -1 : 1;
            pp = am_v3(R[pl].p[0], psy * R[pl].p[1], R[pl].p[2]);
        }
        char name[96];
        int named = r;
        if (swap_leg_names && r >= UPLEG_L && r <= TOEEND_R)
            named = r < UPLEG_R ? r + (UPLEG_R - UPLEG_L) : r - (UPLEG_R - UPLEG_L);
        role_name(nm, named, name, sizeof name);
        int n = sf_node(s, name, pr, am_v3_sub(p, pp), am_quat_identity(), am_v3(1, 1, 1));
        assert_int_equal(n, r);
        s->nodes[n].is_joint = true;
    }
    am_error err;
    assert_int_equal(am_scene_finish(s, &err), AM_OK);
}

static void suggest(const am_scene *s, const am_joint_map *user, am_body *b, am_axes *ax, am_map_suggestion *sug)
{
    am_error err;
    am_error_clear(&err);
    am_axes_options ao = {0};
    am_status st = am_map_suggest_scene(s, &g_skel, &ao, user, b, ax, sug, &err);
    if (st)
        print_error("suggest: %s (%s)\n", err.msg, err.where);
    assert_int_equal(st, AM_OK);
}

/* A skeleton built by hand (every node a joint, no mesh), finished and suggested. */
static void suggest_skeleton(am_scene *s, am_body *b, am_axes *ax, am_map_suggestion *sug)
{
    for (size_t i = 0; i < s->node_count; i++)
        s->nodes[i].is_joint = true;
    am_error err;
    assert_int_equal(am_scene_finish(s, &err), AM_OK);
    suggest(s, NULL, b, ax, sug);
}

static void assert_check_passes(const am_map_suggestion *sug, const am_body *b)
{
    am_joint_map map;
    am_joint_map_report rep;
    am_error err;
    assert_int_equal(am_map_suggestion_to_map(sug, b, &g_skel, &map, &err), AM_OK);
    assert_int_equal(am_joint_map_check(&map, &g_skel, &rep, &err), AM_OK);
    assert_int_equal(rep.count, 0);
    am_joint_map_report_free(&rep);
    am_joint_map_free(&map);
}

static void test_every_naming_convention_maps_the_humanoid_alike(void **state)
{
    (void)state;
    for (size_t k = 0; k < sizeof SCHEMES / sizeof *SCHEMES; k++) {
        const naming *nm = &SCHEMES[k];
        am_scene s;
        humanoid(&s, nm, false);
        am_body b;
        am_axes ax;
        am_map_suggestion sug;
        suggest(&s, NULL, &b, &ax, &sug);
        /* upright, +Z up from the legs, facing +X from the toes */
        assert_int_equal(ax.up, 3);
        assert_int_equal(ax.forward, 1);
        assert_true(ax.upright);
        size_t mapped = 0;
        for (int r = 0; r < NROLES; r++) {
            char want[64], got[64] = "(unmapped)";
            target_of(r, want, sizeof want);
            const am_map_joint *mj = &sug.joints[b.node_joint[r]];
            if (mj->target >= 0)
                snprintf(got, sizeof got, "%s", g_skel.joints[mj->target].name);
            if (strcmp(want, got) != 0)
                print_error("%s: '%s' -> %s, expected %s (%s)\n", nm->label, s.nodes[r].name, got, want, am_str(&mj->reason));
            assert_string_equal(got, want);
            mapped++;
            /* sided joints: the name is read and agrees (or is the viewer's own alias) */
            if (is_right(r) || (r >= UPLEG_L && r <= TOEEND_L) || (r >= COLLAR_L && r <= MIDDLE3_L)) {
                assert_ge(mj->confidence, nm->min_conf);
                bool by_name = strstr(am_str(&mj->reason), "agrees with the topology") || strstr(am_str(&mj->reason), "viewer's alias");
                if (!by_name)
                    print_error("%s: '%s': %s\n", nm->label, s.nodes[r].name, am_str(&mj->reason));
                assert_true(by_name);
            }
        }
        assert_int_equal(sug.mapped, (size_t)NROLES);
        print_message("%-8s convention '%s': %zu of %d joints mapped as expected\n", nm->label, am_str(&sug.convention), mapped,
                      NROLES);
        assert_check_passes(&sug, &b);
        am_map_suggestion_free(&sug);
        am_body_free(&b);
        am_scene_free(&s);
    }
}

static const am_map_joint *by_name(const am_scene *s, const am_body *b, const am_map_suggestion *sug, const char *n)
{
    int node = am_map_find_node(s, n);
    assert_ge(node, 0);
    return &sug->joints[b->node_joint[node]];
}

static void test_convention_labels_in_reasons(void **state)
{
    (void)state;
    /* the reason names the convention the name was read in */
    static const struct {
        size_t scheme;
        const char *joint, *words;
    } want[] = {
        {0, "mixamorig:LeftUpLeg", "Mixamo name 'mixamorig:LeftUpLeg' (left upper leg) agrees with the topology: upper leg of the left leg"},
        {1, "thigh_l", "Unreal name 'thigh_l' (left upper leg)"},
        {2, "DEF-upper_arm.L", "Rigify name 'DEF-upper_arm.L' (left upper arm)"},
        {3, "forearm.R", ".L/.R name 'forearm.R' (right forearm)"},
        {5, "L_Calf", "L_/R_ name 'L_Calf' (left lower leg)"},
        {6, "Character1_RightHand", "HumanIK name 'Character1_RightHand' (right hand)"},
        {7, "Bip01 L Clavicle", "Bip01 name 'Bip01 L Clavicle' (left collar)"},
        {8, "lShin", "'lShin' is the viewer's alias of mKneeLeft"},
        {8, "lThighBend", "l/r prefix name 'lThighBend' (left upper leg)"},
    };
    for (size_t i = 0; i < sizeof want / sizeof *want; i++) {
        am_scene s;
        humanoid(&s, &SCHEMES[want[i].scheme], false);
        am_body b;
        am_axes ax;
        am_map_suggestion sug;
        suggest(&s, NULL, &b, &ax, &sug);
        const am_map_joint *mj = by_name(&s, &b, &sug, want[i].joint);
        if (!strstr(am_str(&mj->reason), want[i].words))
            print_error("'%s': %s\n", want[i].joint, am_str(&mj->reason));
        assert_non_null(strstr(am_str(&mj->reason), want[i].words));
        am_map_suggestion_free(&sug);
        am_body_free(&b);
        am_scene_free(&s);
    }
}

static void test_side_comes_from_the_body_not_the_name(void **state)
{
    (void)state;
    am_scene s;
    humanoid(&s, &SCHEMES[0], true); /* Mixamo names, legs' names swapped */
    am_body b;
    am_axes ax;
    am_map_suggestion sug;
    suggest(&s, NULL, &b, &ax, &sug);
    /* "LeftUpLeg" hangs on the right (-Y): it drives the right hip */
    const am_map_joint *mj = by_name(&s, &b, &sug, "mixamorig:LeftUpLeg");
    assert_string_equal(g_skel.joints[mj->target].name, "mHipRight");
    assert_near(mj->confidence, 0.6, 1e-12);
    assert_non_null(strstr(am_str(&mj->reason), "named left but on the body's right (-Y) side: mapped by side"));
    assert_string_equal(g_skel.joints[by_name(&s, &b, &sug, "mixamorig:RightFoot")->target].name, "mAnkleLeft");
    assert_check_passes(&sug, &b);
    am_map_suggestion_free(&sug);
    am_body_free(&b);
    am_scene_free(&s);
}

static void test_nameless_quadruped_by_topology(void **state)
{
    (void)state;
    am_scene s;
    sf_quadruped(&s, SF_YUP_M, false, false);
    am_body b;
    am_axes ax;
    am_map_suggestion sug;
    suggest(&s, NULL, &b, &ax, &sug);
    assert_false(ax.upright);
    assert_int_equal(ax.up, 2);
    assert_int_equal(ax.forward, 3);
    /* node i + 1 holds SF_Q[i]; every name is empty, so maps call them #N */
    static const struct {
        int q;
        const char *target, *reason;
    } want[] = {
        {0, "mPelvis", "topology: pelvis (the legs and the spine hang from it)"},
        {1, "mSpine1", "topology: spine joint 1 of 2 between the pelvis and the chest"},
        {2, "mTorso", "topology: spine joint 2 of 2"},
        {3, "mChest", "topology: chest"},
        {4, "mNeck", "topology: neck"},
        {5, "mHead", "topology: head"},
        {6, "mHipLeft", "topology: upper leg of the left hind leg (hangs from the pelvis, body's left side)"},
        {7, "mKneeLeft", "topology: knee of the left hind leg"},
        {8, "mAnkleLeft", "topology: ankle of the left hind leg"},
        {9, "mFootLeft", "topology: foot of the left hind leg"},
        {10, "mHipRight", "topology: upper leg of the right hind leg (hangs from the pelvis, body's right side)"},
        {14, "mShoulderLeft", "topology: upper arm of the left foreleg"},
        {15, "mElbowLeft", "topology: elbow of the left foreleg"},
        {16, "mWristLeft", "topology: wrist of the left foreleg"},
        {19, "mWristRight", "topology: wrist of the right foreleg"},
        {20, "mTail1", "topology: tail joint 1 of 4"},
        {23, "mTail4", "topology: tail joint 4 of 4"},
    };
    for (size_t i = 0; i < sizeof want / sizeof *want; i++) {
        char key[16];
        snprintf(key, sizeof key, "#%d", want[i].q + 1);
        const am_map_joint *mj = by_name(&s, &b, &sug, key);
        assert_string_equal(am_str(&mj->rig_name), key);
        assert_ge(mj->target, 0);
        if (strcmp(g_skel.joints[mj->target].name, want[i].target) || !strstr(am_str(&mj->reason), want[i].reason))
            print_error("%s -> %s: %s\n", key, g_skel.joints[mj->target].name, am_str(&mj->reason));
        assert_string_equal(g_skel.joints[mj->target].name, want[i].target);
        assert_near(mj->confidence, 0.75, 1e-12);
        assert_non_null(strstr(am_str(&mj->reason), want[i].reason));
    }
    assert_int_equal(sug.mapped, SF_NQ);
    assert_string_equal(am_str(&sug.convention), "");
    assert_check_passes(&sug, &b);
    am_map_suggestion_free(&sug);
    am_body_free(&b);
    am_scene_free(&s);
}

/* A bird, nameless, Z up, facing +X: legs from the pelvis, a neck and head, a tail, and
 * from the chest a pair of chains whose vertices spread broad across them (feathers):
 * wings, not arms. */
static void test_broad_chest_pair_is_wings(void **state)
{
    (void)state;
    am_scene s;
    sf_init(&s, "bird", 0, 0, 0);
    int pel = sf_node(&s, "", -1, am_v3(0, 0, 0.5), am_quat_identity(), am_v3(1, 1, 1));
    int ch = sf_node(&s, "", pel, am_v3(0.15, 0, 0.05), am_quat_identity(), am_v3(1, 1, 1));
    int nk = sf_node(&s, "", ch, am_v3(0.08, 0, 0.12), am_quat_identity(), am_v3(1, 1, 1));
    sf_node(&s, "", nk, am_v3(0.06, 0, 0.08), am_quat_identity(), am_v3(1, 1, 1));
    int tl = sf_node(&s, "", pel, am_v3(-0.15, 0, 0.02), am_quat_identity(), am_v3(1, 1, 1));
    sf_node(&s, "", tl, am_v3(-0.15, 0, 0), am_quat_identity(), am_v3(1, 1, 1));
    for (int side = 1; side >= -1; side -= 2) {
        int th = sf_node(&s, "", pel, am_v3(0, 0.06 * side, -0.05), am_quat_identity(), am_v3(1, 1, 1));
        int sh = sf_node(&s, "", th, am_v3(0.02, 0, -0.2), am_quat_identity(), am_v3(1, 1, 1));
        int ft = sf_node(&s, "", sh, am_v3(-0.02, 0, -0.2), am_quat_identity(), am_v3(1, 1, 1));
        sf_node(&s, "", ft, am_v3(0.06, 0, -0.03), am_quat_identity(), am_v3(1, 1, 1));
    }
    int wing[2][3];
    for (int k = 0; k < 2; k++) {
        double side = k ? -1 : 1;
        wing[k][0] = sf_node(&s, "", ch, am_v3(0, 0.06 * side, 0.04), am_quat_identity(), am_v3(1, 1, 1));
        wing[k][1] = sf_node(&s, "", wing[k][0], am_v3(-0.02, 0.25 * side, 0), am_quat_identity(), am_v3(1, 1, 1));
        wing[k][2] = sf_node(&s, "", wing[k][1], am_v3(-0.02, 0.25 * side, 0), am_quat_identity(), am_v3(1, 1, 1));
    }
    int joints[32];
    for (size_t i = 0; i < s.node_count; i++)
        joints[i] = (int)i;
    sf_skin(&s, joints, s.node_count);
    /* every bone a thin box; then feathers: each wing bone's vertices spread 0.3 m fore and
     * aft across the wing */
    am_mat4 w[32];
    sf_worlds(&s, w);
    am_vec3 ends[32];
    for (size_t i = 0; i < s.node_count; i++) {
        ends[i] = am_v3_add(am_mat4_get_translation(&w[i]), am_v3(0.02, 0.01, 0.01));
        for (size_t c = 0; c < s.node_count; c++)
            if (s.nodes[c].parent == (int)i)
                ends[i] = am_mat4_get_translation(&w[c]);
    }
    sf_bone_boxes(&s, 0, ends, NULL, 0.01, 2);
    am_scene_mesh *m = &s.meshes[0];
    for (size_t v = 0; v < m->vertex_count; v++) {
        int j = (int)m->influences[m->influence_start[v]].joint;
        for (int k = 0; k < 2; k++)
            for (int q = 0; q < 3; q++)
                if (j == wing[k][q])
                    m->positions[3 * v] += (float)(v % 2 ? 0.15 : -0.15);
    }
    am_error err;
    assert_int_equal(am_scene_finish(&s, &err), AM_OK);
    am_body b;
    am_axes ax;
    am_map_suggestion sug;
    suggest(&s, NULL, &b, &ax, &sug);
    for (int k = 0; k < 2; k++)
        for (int q = 0; q < 3; q++) {
            char want[32], key[16];
            snprintf(want, sizeof want, "mWing%d%s", q + 1, k ? "Right" : "Left");
            snprintf(key, sizeof key, "#%d", wing[k][q]);
            const am_map_joint *mj = by_name(&s, &b, &sug, key);
            assert_ge(mj->target, 0);
            if (strcmp(g_skel.joints[mj->target].name, want))
                print_error("%s -> %s (%s)\n", key, g_skel.joints[mj->target].name, am_str(&mj->reason));
            assert_string_equal(g_skel.joints[mj->target].name, want);
            assert_non_null(strstr(am_str(&mj->reason), "a broad pair from the chest"));
        }
    assert_check_passes(&sug, &b);
    am_map_suggestion_free(&sug);
    am_body_free(&b);
    am_scene_free(&s);
}

static void test_rigify_segments_stay_unmapped_with_their_weights_named(void **state)
{
    (void)state;
    /* Rigify splits the upper arm and the thigh into two deforming segments (.001) */
    am_scene s;
    sf_init(&s, "rigify", 0, 0, 0);
    int hips = sf_node(&s, "DEF-spine", -1, am_v3(0, 0, 1), am_quat_identity(), am_v3(1, 1, 1));
    int chest = sf_node(&s, "DEF-spine.003", hips, am_v3(0, 0, 0.4), am_quat_identity(), am_v3(1, 1, 1));
    sf_node(&s, "DEF-head", chest, am_v3(0, 0, 0.25), am_quat_identity(), am_v3(1, 1, 1));
    for (int side = 0; side < 2; side++) {
        double y = side ? -1 : 1;
        const char *sx = side ? "R" : "L";
        char n[64];
        snprintf(n, sizeof n, "DEF-thigh.%s", sx);
        int t = sf_node(&s, n, hips, am_v3(0, 0.1 * y, -0.05), am_quat_identity(), am_v3(1, 1, 1));
        snprintf(n, sizeof n, "DEF-thigh.%s.001", sx);
        int t2 = sf_node(&s, n, t, am_v3(0, 0, -0.22), am_quat_identity(), am_v3(1, 1, 1));
        snprintf(n, sizeof n, "DEF-shin.%s", sx);
        int sh = sf_node(&s, n, t2, am_v3(0, 0, -0.23), am_quat_identity(), am_v3(1, 1, 1));
        snprintf(n, sizeof n, "DEF-foot.%s", sx);
        int f = sf_node(&s, n, sh, am_v3(0, 0, -0.42), am_quat_identity(), am_v3(1, 1, 1));
        snprintf(n, sizeof n, "DEF-toe.%s", sx);
        sf_node(&s, n, f, am_v3(0.12, 0, -0.06), am_quat_identity(), am_v3(1, 1, 1));
        snprintf(n, sizeof n, "DEF-shoulder.%s", sx);
        int sho = sf_node(&s, n, chest, am_v3(0, 0.03 * y, 0.05), am_quat_identity(), am_v3(1, 1, 1));
        snprintf(n, sizeof n, "DEF-upper_arm.%s", sx);
        int ua = sf_node(&s, n, sho, am_v3(0, 0.15 * y, 0), am_quat_identity(), am_v3(1, 1, 1));
        snprintf(n, sizeof n, "DEF-upper_arm.%s.001", sx);
        int ua2 = sf_node(&s, n, ua, am_v3(0, 0.14 * y, 0), am_quat_identity(), am_v3(1, 1, 1));
        snprintf(n, sizeof n, "DEF-forearm.%s", sx);
        int fa = sf_node(&s, n, ua2, am_v3(0, 0.14 * y, 0), am_quat_identity(), am_v3(1, 1, 1));
        snprintf(n, sizeof n, "DEF-hand.%s", sx);
        sf_node(&s, n, fa, am_v3(0, 0.26 * y, 0), am_quat_identity(), am_v3(1, 1, 1));
    }
    am_body b;
    am_axes ax;
    am_map_suggestion sug;
    suggest_skeleton(&s, &b, &ax, &sug);
    const am_map_joint *seg = by_name(&s, &b, &sug, "DEF-upper_arm.L.001");
    assert_int_equal(seg->target, -1);
    assert_non_null(strstr(am_str(&seg->reason), "further segment"));
    /* a skeleton without a mesh: the segment moves with its joint (with a skin: its weights go there) */
    assert_non_null(strstr(am_str(&seg->reason), "it moves with 'DEF-upper_arm.L' (mShoulderLeft)"));
    assert_string_equal(g_skel.joints[by_name(&s, &b, &sug, "DEF-forearm.L")->target].name, "mElbowLeft");
    assert_string_equal(g_skel.joints[by_name(&s, &b, &sug, "DEF-shin.R")->target].name, "mKneeRight");
    assert_int_equal(by_name(&s, &b, &sug, "DEF-thigh.R.001")->target, -1);
    assert_check_passes(&sug, &b);
    am_map_suggestion_free(&sug);
    am_body_free(&b);
    am_scene_free(&s);
}

/* A rig joint's name is kept whole, however long: a 300-character name (cut at 127 before)
 * is its rig name, and the reason of the joint that moves with it (cut at 319 before)
 * quotes it in full. */
static void test_a_long_joint_name_is_kept_whole(void **state)
{
    (void)state;
    char longname[301];
    for (size_t i = 0; i < 300; i++)
        longname[i] = (char)('a' + i % 26);
    longname[300] = '\0';
    am_scene s;
    sf_init(&s, "long", 0, 0, 0);
    int hips = sf_node(&s, "DEF-spine", -1, am_v3(0, 0, 1), am_quat_identity(), am_v3(1, 1, 1));
    int chest = sf_node(&s, "DEF-spine.003", hips, am_v3(0, 0, 0.4), am_quat_identity(), am_v3(1, 1, 1));
    int head = sf_node(&s, "DEF-head", chest, am_v3(0, 0, 0.25), am_quat_identity(), am_v3(1, 1, 1));
    int odd = sf_node(&s, longname, head, am_v3(0.05, 0, 0.1), am_quat_identity(), am_v3(1, 1, 1));
    sf_node(&s, "tip", odd, am_v3(0.05, 0, 0.1), am_quat_identity(), am_v3(1, 1, 1));
    for (int side = 0; side < 2; side++) {
        double y = side ? -1 : 1;
        char n[64];
        snprintf(n, sizeof n, "DEF-thigh.%s", side ? "R" : "L");
        int t = sf_node(&s, n, hips, am_v3(0, 0.1 * y, -0.05), am_quat_identity(), am_v3(1, 1, 1));
        snprintf(n, sizeof n, "DEF-shin.%s", side ? "R" : "L");
        int sh = sf_node(&s, n, t, am_v3(0, 0, -0.45), am_quat_identity(), am_v3(1, 1, 1));
        snprintf(n, sizeof n, "DEF-foot.%s", side ? "R" : "L");
        int f = sf_node(&s, n, sh, am_v3(0, 0, -0.42), am_quat_identity(), am_v3(1, 1, 1));
        snprintf(n, sizeof n, "DEF-toe.%s", side ? "R" : "L");
        sf_node(&s, n, f, am_v3(0.12, 0, -0.06), am_quat_identity(), am_v3(1, 1, 1));
    }
    am_body b;
    am_axes ax;
    am_map_suggestion sug;
    suggest_skeleton(&s, &b, &ax, &sug);
    const am_map_joint *mj = by_name(&s, &b, &sug, longname);
    assert_int_equal(mj->rig_name.length, 300);
    assert_string_equal(am_str(&mj->rig_name), longname);
    assert_int_equal(mj->target, am_skeleton_find_exact(&g_skel, "mSkull")); /* the head's end */
    const am_map_joint *tip = by_name(&s, &b, &sug, "tip");
    assert_int_equal(tip->target, -1);
    char quoted[320];
    snprintf(quoted, sizeof quoted, "it moves with '%s' (mSkull)", longname);
    assert_non_null(strstr(am_str(&tip->reason), quoted));
    assert_true(tip->reason.length > 320);
    am_buf json = {0};
    am_error err;
    assert_int_equal(am_map_suggestion_write_json(&sug, &b, &g_skel, &json, &err), AM_OK);
    assert_int_equal(am_buf_append(&json, "", 1, &err), AM_OK); /* a C string to search */
    assert_non_null(strstr((const char *)json.data, longname));
    am_buf_free(&json);
    am_map_suggestion_free(&sug);
    assert_null(sug.joints);
    am_body_free(&b);
    am_scene_free(&s);
}

static void test_cmu_bvh_maps_without_a_map_file(void **state)
{
    (void)state;
    am_scene s;
    am_error err;
    am_error_clear(&err);
    assert_int_equal(am_scene_load("/usr/share/assimp/models/BVH/01_01.bvh", &s, &err), AM_OK);
    assert_int_equal(s.format, AM_SCENE_FORMAT_BVH);
    am_body b;
    am_axes ax;
    am_map_suggestion sug;
    suggest(&s, NULL, &b, &ax, &sug);
    static const char *const pairs[][2] = {
        {"Hips", "mPelvis"},          {"LowerBack", "mSpine1"},       {"Spine", "mTorso"},
        {"Spine1", "mChest"},         {"Neck", "mNeck"},              {"Head", "mHead"},
        {"LeftUpLeg", "mHipLeft"},    {"LeftLeg", "mKneeLeft"},       {"LeftFoot", "mAnkleLeft"},
        {"LeftToeBase", "mFootLeft"}, {"RightUpLeg", "mHipRight"},    {"LeftShoulder", "mCollarLeft"},
        {"LeftArm", "mShoulderLeft"}, {"LeftForeArm", "mElbowLeft"},  {"LeftHand", "mWristLeft"},
        {"RightHand", "mWristRight"}, {"LThumb", "mHandThumb1Left"},
    };
    for (size_t i = 0; i < sizeof pairs / sizeof *pairs; i++) {
        const am_map_joint *mj = by_name(&s, &b, &sug, pairs[i][0]);
        assert_ge(mj->target, 0);
        assert_string_equal(g_skel.joints[mj->target].name, pairs[i][1]);
        assert_ge(mj->confidence, 0.95);
    }
    /* CMU's pelvis-side hip bones and the second neck joint stay unmapped, named */
    const am_map_joint *lh = by_name(&s, &b, &sug, "LHipJoint");
    assert_int_equal(lh->target, -1);
    /* a motion-only file speaks of its skeleton (no weights) */
    assert_non_null(strstr(am_str(&lh->reason), "pelvis bone before the upper leg; it moves with 'Hips' (mPelvis)"));
    assert_int_equal(by_name(&s, &b, &sug, "Neck1")->target, -1);
    assert_int_equal(sug.mapped, 28);
    assert_check_passes(&sug, &b);
    am_map_suggestion_free(&sug);
    am_body_free(&b);
    am_scene_free(&s);
}

static void test_user_map_overrides_any_part(void **state)
{
    (void)state;
    am_scene s;
    humanoid(&s, &SCHEMES[0], false);
    const char *json = "{\"joints\": {\"mixamorig:Spine1\": \"mSpine3\", \"mixamorig:HeadTop_End\": \"-\","
                       " \"mixamorig:Spine\": \"mTorso\"}}";
    am_joint_map user;
    am_error err;
    assert_int_equal(am_joint_map_parse(json, strlen(json), "map", &user, &err), AM_OK);
    am_body b;
    am_axes ax;
    am_map_suggestion sug;
    suggest(&s, &user, &b, &ax, &sug);
    const am_map_joint *a = by_name(&s, &b, &sug, "mixamorig:Spine");
    assert_string_equal(g_skel.joints[a->target].name, "mTorso");
    assert_int_equal(a->source, AM_MAP_USER);
    assert_string_equal(am_str(&a->reason), "given by the map option");
    assert_string_equal(g_skel.joints[by_name(&s, &b, &sug, "mixamorig:Spine1")->target].name, "mSpine3");
    assert_int_equal(by_name(&s, &b, &sug, "mixamorig:HeadTop_End")->target, -1);
    assert_check_passes(&sug, &b);
    am_map_suggestion_free(&sug);
    am_body_free(&b);
    /* a user entry that breaks a chain is refused by the check, naming it */
    const char *bad = "{\"joints\": {\"mixamorig:LeftForeArm\": \"mHipLeft\"}}";
    am_joint_map ub;
    assert_int_equal(am_joint_map_parse(bad, strlen(bad), "map", &ub, &err), AM_OK);
    am_axes_options ao = {0};
    am_status st = am_map_suggest_scene(&s, &g_skel, &ao, &ub, &b, &ax, &sug, &err);
    assert_int_equal(st, AM_ERR_INVALID);
    assert_non_null(strstr(err.msg, "mixamorig:LeftForeArm"));
    assert_string_equal(err.where, "map");
    /* a rig joint the model lacks */
    const char *missing = "{\"joints\": {\"nosuch\": \"mHead\"}}";
    am_joint_map um;
    assert_int_equal(am_joint_map_parse(missing, strlen(missing), "map", &um, &err), AM_OK);
    assert_int_equal(am_map_suggest_scene(&s, &g_skel, &ao, &um, &b, &ax, &sug, &err), AM_ERR_INVALID);
    assert_non_null(strstr(err.msg, "joints['nosuch']: 'nosuch' is not a joint of the model"));
    assert_string_equal(err.where, "map"); /* the map's file, where the fix is */
    am_joint_map_free(&um);
    am_joint_map_free(&ub);
    am_joint_map_free(&user);
    am_scene_free(&s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_naming_convention_maps_the_humanoid_alike),
        cmocka_unit_test(test_convention_labels_in_reasons),
        cmocka_unit_test(test_side_comes_from_the_body_not_the_name),
        cmocka_unit_test(test_nameless_quadruped_by_topology),
        cmocka_unit_test(test_broad_chest_pair_is_wings),
        cmocka_unit_test(test_rigify_segments_stay_unmapped_with_their_weights_named),
        cmocka_unit_test(test_a_long_joint_name_is_kept_whole),
        cmocka_unit_test(test_cmu_bvh_maps_without_a_map_file),
        cmocka_unit_test(test_user_map_overrides_any_part),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
