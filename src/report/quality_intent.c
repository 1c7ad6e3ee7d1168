/* Joints left empty on purpose (quality_intent.h). */
#include "report/quality_intent.h"

#include <string.h>

/* Is skeleton joint `a` an ancestor of `j`? */
static bool is_ancestor(const am_skeleton *sk, int a, int j)
{
    for (int p = j >= 0 ? sk->joints[j].parent : -1; p >= 0; p = sk->joints[p].parent)
        if (p == a)
            return true;
    return false;
}

/* Does weighted skeleton joint `o` carry flesh above `j`: an ancestor of it, or a collision
 * volume on one (a fitted mesh weights HEAD, CHEST ... instead of their bones)? */
static bool carries_above(const am_skeleton *sk, int o, int j)
{
    if (is_ancestor(sk, o, j))
        return true;
    int p = sk->joints[o].parent;
    return sk->joints[o].kind == AM_JOINT_VOLUME && p >= 0 && (p == sk->joints[j].parent || is_ancestor(sk, p, j));
}

bool am_quality_joint_left_empty(const am_bench *b, size_t skin_joint, const double *total)
{
    if (skin_joint >= b->skin_joint_count || !b->skin_joint_known[skin_joint] || total[skin_joint] > 0)
        return false;
    const am_skeleton *sk = b->skel;
    int j = b->skin_joint[skin_joint];
    if (j < 0 || (size_t)j >= sk->joint_count || !sk->joints[j].support ||
        strcmp(sk->joints[j].support, "extended") != 0)
        return false;
    /* Bento face and finger detail (mFaceJaw, mHandIndex1Left ...) */
    static const char *const detail[] = {"Face", "Mouth", "Lips", "Nose", "Eyes", "Ears", "Hand"};
    bool is_detail = false;
    for (size_t g = 0; g < sizeof detail / sizeof detail[0] && sk->joints[j].group; g++)
        is_detail |= strcmp(sk->joints[j].group, detail[g]) == 0;
    bool above = false, below = false;
    for (size_t k = 0; k < b->skin_joint_count; k++) {
        if (k == skin_joint || !b->skin_joint_known[k] || !(total[k] > 0))
            continue;
        int o = b->skin_joint[k];
        if (o < 0 || (size_t)o >= sk->joint_count)
            continue;
        above |= carries_above(sk, o, j);
        below |= is_ancestor(sk, j, o);
    }
    /* between weighted joints of its chain; or detail left out as a whole under flesh */
    return above && (below || is_detail);
}
