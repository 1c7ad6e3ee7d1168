/* What a rig joint's NAME says: which side of the body, which part, which segment, in
 * which naming convention. One of the two kinds of evidence the joint-map suggestion uses
 * (the other is the topology, body.h); neither decides alone.
 *
 * Conventions recognised (prefixes and namespaces are stripped first):
 *   Mixamo        mixamorig:LeftUpLeg, mixamorig1:Spine2        (namespace "...:")
 *   Rigify        DEF-thigh.L, DEF-upper_arm.L.001 (".001": a further segment)
 *   Blender       thigh.L, forearm.R, hand_L                    (".L/.R", "_L/_R")
 *   Unreal        pelvis, thigh_l, calf_r, upperarm_l, spine_03  ("_l/_r")
 *   L_/R_         L_Thigh, R_UpperArm                           (prefix)
 *   Left/Right    LeftUpLeg, RightForeArm, Left_Hand            (word)
 *   L/R suffix    ThighL, PawR (only on a recognised part)
 *   CMU BVH       Hips, LHipJoint, LowerBack, LeftShoulder (collar), LThumb
 *   MotionBuilder Hips, Ab, Chest, LeftCollar, LeftShoulder (upper arm), LeftHip (thigh)
 *   Daz / Poser   hip, abdomenLower, chestUpper, lThighBend, lShldrTwist, rForearmBend
 *   3ds Max       Bip01 L Thigh, Bip01 Spine1                   (prefix "Bip01 ")
 *   HumanIK       Character1_LeftUpLeg                          (prefix "Character1_")
 * A name naming a part more than one way round ("Shoulder" is the collar for Mixamo and
 * CMU, the upper arm for MotionBuilder) gets the ambiguous part; the chain decides.
 */
#ifndef AM_MAP_JOINT_NAMES_H
#define AM_MAP_JOINT_NAMES_H

#ifdef __cplusplus
extern "C" {
#endif

#include <stdbool.h>

typedef enum am_name_part {
    AM_NAME_UNKNOWN = 0,
    AM_NAME_ROOT,        /* root, armature, master: above the pelvis */
    AM_NAME_PELVIS,      /* hips, pelvis, hip (no side) */
    AM_NAME_SPINE,       /* spine, abdomen, ab, torso, back, waist */
    AM_NAME_CHEST,       /* chest, ribcage, upperchest */
    AM_NAME_NECK,
    AM_NAME_HEAD,
    AM_NAME_JAW,
    AM_NAME_EYE,
    AM_NAME_EAR,
    AM_NAME_COLLAR,      /* clavicle, collar */
    AM_NAME_SHOULDER,    /* "shoulder": collar or upper arm (the chain decides) */
    AM_NAME_UPPERARM,    /* upperarm, arm, shldr */
    AM_NAME_FOREARM,     /* forearm, lowerarm, elbow */
    AM_NAME_HAND,        /* hand, wrist */
    AM_NAME_FINGER,      /* thumb, index, middle, ring, pinky (finger 0..4) */
    AM_NAME_THIGH,       /* thigh, upleg, upperleg, hip (with a side) */
    AM_NAME_SHIN,        /* shin, calf, knee, lowerleg, leg */
    AM_NAME_FOOT,        /* foot, ankle */
    AM_NAME_TOE,         /* toe, toebase, ball, toes */
    AM_NAME_TAIL,
    AM_NAME_WING
} am_name_part;

typedef struct am_joint_name {
    int side;            /* +1 left, -1 right, 0 none */
    am_name_part part;
    int finger;          /* AM_NAME_FINGER: 0 thumb .. 4 pinky; -1 otherwise */
    int number;          /* trailing number ("Spine2" -> 2, "neck_01" -> 1); -1 when none */
    bool segment;        /* a further segment of a part named before it: "upper_arm.L.001",
                            "lThighTwist", "upperarm_twist_01_l", "forearm_roll" */
    bool end;            /* an end marker: "HeadTop_End", "LeftToe_End", "head_end" */
    char convention[24]; /* "Mixamo", "Rigify", "Unreal", ".L/.R", "L_/R_", "Left/Right",
                            "l/r prefix", "Bip01", "HumanIK", "" (none recognised) */
    char core[48];       /* the part of the name that was read, lower case ("upleg") */
} am_joint_name;

/* Read a joint name. Never fails: an unrecognised name is AM_NAME_UNKNOWN. */
void am_joint_name_parse(const char *name, am_joint_name *out);
/* A readable word for a part ("upper leg"). */
const char *am_name_part_label(am_name_part part);
/* "thumb" .. "pinky" for 0..4, "finger" otherwise. */
const char *am_name_finger_label(int finger);

#ifdef __cplusplus
}
#endif

#endif
