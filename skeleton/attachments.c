#include "skeleton/attachments.h"

#include <string.h>

/* docs/reference/viewer-skeleton.md#attachment-points (from avatar_lad.xml). Constant data, not state. */
static const am_attachment_def defs[] = {
    {1, "Chest", "mChest", {0.15, 0, -0.1}, {0, 90, 90}},
    {2, "Skull", "mHead", {0, 0, 0.15}, {0, 0, 90}},
    {3, "Left Shoulder", "mCollarLeft", {0, 0, 0.08}, {0, 0, 0}},
    {4, "Right Shoulder", "mCollarRight", {0, 0, 0.08}, {0, 0, 0}},
    {5, "Left Hand", "mWristLeft", {0, 0.08, -0.02}, {0, 0, 0}},
    {6, "Right Hand", "mWristRight", {0, -0.08, -0.02}, {0, 0, 0}},
    {7, "Left Foot", "mFootLeft", {0, 0, 0}, {0, 0, 0}},
    {8, "Right Foot", "mFootRight", {0, 0, 0}, {0, 0, 0}},
    {9, "Spine", "mChest", {-0.15, 0, -0.1}, {0, -90, 90}},
    {10, "Pelvis", "mPelvis", {0, 0, -0.15}, {0, 0, 0}},
    {11, "Mouth", "mHead", {0.12, 0, 0.001}, {0, 0, 0}},
    {12, "Chin", "mHead", {0.12, 0, -0.04}, {0, 0, 0}},
    {13, "Left Ear", "mHead", {0.015, 0.08, 0.017}, {0, 0, 0}},
    {14, "Right Ear", "mHead", {0.015, -0.08, 0.017}, {0, 0, 0}},
    {15, "Left Eyeball", "mEyeLeft", {0, 0, 0}, {0, 0, 0}},
    {16, "Right Eyeball", "mEyeRight", {0, 0, 0}, {0, 0, 0}},
    {17, "Nose", "mHead", {0.1, 0, 0.05}, {0, 0, 0}},
    {18, "R Upper Arm", "mShoulderRight", {0.01, -0.13, 0.01}, {0, 0, 0}},
    {19, "R Forearm", "mElbowRight", {0, -0.12, 0}, {0, 0, 0}},
    {20, "L Upper Arm", "mShoulderLeft", {0.01, 0.15, -0.01}, {0, 0, 0}},
    {21, "L Forearm", "mElbowLeft", {0, 0.113, 0}, {0, 0, 0}},
    {22, "Right Hip", "mHipRight", {0, 0, 0}, {0, 0, 0}},
    {23, "R Upper Leg", "mHipRight", {-0.017, 0.041, -0.310}, {0, 0, 0}},
    {24, "R Lower Leg", "mKneeRight", {-0.044, -0.007, -0.262}, {0, 0, 0}},
    {25, "Left Hip", "mHipLeft", {0, 0, 0}, {0, 0, 0}},
    {26, "L Upper Leg", "mHipLeft", {-0.019, -0.034, -0.310}, {0, 0, 0}},
    {27, "L Lower Leg", "mKneeLeft", {-0.044, -0.007, -0.261}, {0, 0, 0}},
    {28, "Stomach", "mPelvis", {0.092, 0.0, 0.088}, {0, 0, 0}},
    {29, "Left Pec", "mTorso", {0.104, 0.082, 0.247}, {0, 0, 0}},
    {30, "Right Pec", "mTorso", {0.104, -0.082, 0.247}, {0, 0, 0}},
    {39, "Neck", "mNeck", {0, 0, 0}, {0, 0, 0}},
    {40, "Avatar Center", "mRoot", {0, 0, 0}, {0, 0, 0}},
    {41, "Left Ring Finger", "mHandRing1Left", {-0.006, 0.019, -0.002}, {0, 0, 0}},
    {42, "Right Ring Finger", "mHandRing1Right", {-0.006, -0.019, -0.002}, {0, 0, 0}},
    {43, "Tail Base", "mTail1", {0, 0, 0}, {0, 0, 0}},
    {44, "Tail Tip", "mTail6", {-0.025, 0, 0}, {0, 0, 0}},
    {45, "Left Wing", "mWing4Left", {0, 0, 0}, {0, 0, 0}},
    {46, "Right Wing", "mWing4Right", {0, 0, 0}, {0, 0, 0}},
    {47, "Jaw", "mFaceJaw", {0, 0, 0}, {0, 0, 0}},
    {48, "Alt Left Ear", "mFaceEar1Left", {0, 0, 0}, {0, 0, 0}},
    {49, "Alt Right Ear", "mFaceEar1Right", {0, 0, 0}, {0, 0, 0}},
    {50, "Alt Left Eye", "mFaceEyeAltLeft", {0, 0, 0}, {0, 0, 0}},
    {51, "Alt Right Eye", "mFaceEyeAltRight", {0, 0, 0}, {0, 0, 0}},
    {52, "Tongue", "mFaceTongueTip", {0, 0, 0}, {0, 0, 0}},
    {53, "Groin", "mGroin", {0, 0, 0}, {0, 0, 0}},
    {54, "Left Hind Foot", "mHindLimb4Left", {0, 0, 0}, {0, 0, 0}},
    {55, "Right Hind Foot", "mHindLimb4Right", {0, 0, 0}, {0, 0, 0}},
};

/* docs/reference/viewer-skeleton.md#attachment-points, ids 31..38 (parent mScreen). */
static const char *const hud_names[] = {"Center 2", "Top Right", "Top", "Top Left",
                                        "Center", "Bottom Left", "Bottom", "Bottom Right"};

bool am_attachment_is_hud(const char *name)
{
    for (size_t i = 0; name && i < sizeof hud_names / sizeof hud_names[0]; i++)
        if (strcmp(name, hud_names[i]) == 0)
            return true;
    return false;
}

const am_attachment_def *am_attachment_defs(int *count)
{
    *count = (int)(sizeof defs / sizeof defs[0]);
    return defs;
}
