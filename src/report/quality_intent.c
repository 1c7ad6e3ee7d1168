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

bool am_quality_joint_left_empty(const am_bench *b, size_t skin_joint, const double *total)
{
    if (skin_joint >= b->skin_joint_count || !b->skin_joint_known[skin_joint] || total[skin_joint] > 0)
        return false;
    const am_skeleton *sk = b->skel;
    int j = b->skin_joint[skin_joint];
    if (j < 0 || (size_t)j >= sk->joint_count || !sk->joints[j].support ||
        strcmp(sk->joints[j].support, "extended") != 0)
        return false;
    bool above = false, below = false;
    for (size_t k = 0; k < b->skin_joint_count && !(above && below); k++) {
        if (k == skin_joint || !b->skin_joint_known[k] || !(total[k] > 0))
            continue;
        int o = b->skin_joint[k];
        above |= is_ancestor(sk, o, j);
        below |= is_ancestor(sk, j, o);
    }
    return above && below;
}
