/* The BVH zero pose against the viewer's rest pose (bvh.h, "Rest alignment").
 *
 * The viewer converts a BVH joint's rotation as if its zero-pose bone pointed where the
 * viewer's bone points at rest (docs/reference/anim-format.md#bvh-coordinate-conversion). Here
 * each mapped joint's zero-pose bone (the OFFSET path to its one nearest mapped descendant, in SL
 * axes) is compared with the viewer bone between the same two joints (avatar_skeleton.xml rest
 * positions), and the rotation taking the viewer's direction onto the BVH's is kept for
 * --align-rest. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "anim/bvh_internal.h"

/* Shorter than these, a bone has no direction worth comparing (CMU's Neck and
 * LeftShoulder sit on their parents; the viewer's mSpine1 -> mTorso is 0 long). */
#define MIN_BVH_BONE 1e-6 /* BVH units */
#define MIN_VIEWER_BONE 1e-4 /* metres */

/* The shortest rotation taking unit u onto unit v. */
static am_quat shortest_arc(am_vec3 u, am_vec3 v)
{
    double d = am_v3_dot(u, v);
    if (d < -1.0 + 1e-12) { /* opposite: any axis perpendicular to u */
        am_vec3 axis = am_v3_cross(u, fabs(u.x) < 0.9 ? am_v3(1, 0, 0) : am_v3(0, 1, 0));
        return am_quat_axis_angle(axis, AM_PI);
    }
    am_vec3 c = am_v3_cross(u, v);
    return am_quat_normalize((am_quat){c.x, c.y, c.z, 1.0 + d});
}

int am_bvh_mapped_ancestor(const am_bvh *b, const int *target, size_t joint)
{
    int p = b->joints[joint].parent;
    while (p >= 0 && target[p] < 0)
        p = b->joints[p].parent;
    return p;
}

/* The one mapped joint nearest below `joint` on every branch, or -1 when there are none or
 * several (a pelvis or a chest with legs or arms: no single bone direction). */
static int main_child(const am_bvh *b, const int *target, size_t joint)
{
    int found = -1;
    /* pre-order: the subtree is the run after `joint` of deeper-nested joints */
    for (size_t i = joint + 1; i < b->joint_count; i++) {
        int a = b->joints[i].parent;
        while (a >= 0 && (size_t)a != joint)
            a = b->joints[a].parent;
        if (a < 0)
            break; /* left the subtree */
        if (target[i] < 0 || am_bvh_mapped_ancestor(b, target, i) != (int)joint)
            continue;
        if (found >= 0)
            return -1;
        found = (int)i;
    }
    return found;
}

/* A bone off its rest, named only once the largest are known. */
typedef struct off_bone {
    size_t joint;     /* BVH joint */
    int stock;        /* viewer joint */
    double angle_deg;
} off_bone;

static int by_angle_desc(const void *pa, const void *pb)
{
    const off_bone *a = pa, *b = pb;
    return a->angle_deg < b->angle_deg ? 1 : a->angle_deg > b->angle_deg ? -1 : 0;
}

bool am_bvh_rest_alignment(const am_bvh *b, const am_skeleton *skel, const int *target, am_quat *align,
                           am_bvh_stats *stats)
{
    const am_quat F = {0.5, 0.5, 0.5, 0.5}; /* BVH -> SL axes (docs/reference/anim-format.md#bvh-coordinate-conversion) */
    int pelvis = am_skeleton_find_exact(skel, "mPelvis");
    off_bone all[AM_BVH_REST_LIST];
    size_t kept = 0;
    for (size_t j = 0; j < b->joint_count; j++) {
        align[j] = am_quat_identity();
        /* the pelvis stays as the viewer takes it: relative to frame 0
         * (docs/reference/anim-format.md#bvh-coordinate-conversion) */
        if (target[j] < 0 || target[j] == pelvis)
            continue;
        int c = main_child(b, target, j);
        if (c < 0 || !am_skeleton_is_ancestor(skel, target[j], target[c]))
            continue;
        am_vec3 off = am_v3(0, 0, 0); /* OFFSETs from j down to c, through unmapped joints */
        for (int i = c; i >= 0 && (size_t)i != j; i = b->joints[i].parent)
            off = am_v3_add(off, b->joints[i].offset);
        const am_joint *vj = &skel->joints[target[j]], *vc = &skel->joints[target[c]];
        /* in the joint's own frame (identity for every viewer bone at rest) */
        am_vec3 dv = am_quat_rotate(am_quat_conj(vj->world_rot),
                                    am_v3_sub(vc->world_pos[AM_FRAME_FILE], vj->world_pos[AM_FRAME_FILE]));
        if (am_v3_len(off) < MIN_BVH_BONE || am_v3_len(dv) < MIN_VIEWER_BONE)
            continue;
        am_vec3 u = am_v3_normalize(dv), v = am_v3_normalize(am_quat_rotate(F, off));
        align[j] = shortest_arc(u, v);
        double deg = acos(fmax(-1.0, fmin(1.0, am_v3_dot(u, v)))) * AM_RAD2DEG;
        stats->rest_compared++;
        if (deg > stats->rest_max_deg)
            stats->rest_max_deg = deg;
        if (!(deg > AM_BVH_REST_WARN_DEG))
            continue;
        stats->rest_off++;
        off_bone bone = {j, target[j], deg};
        /* keep the largest AM_BVH_REST_LIST */
        if (kept < AM_BVH_REST_LIST) {
            all[kept++] = bone;
        } else {
            qsort(all, kept, sizeof *all, by_angle_desc);
            if (deg > all[kept - 1].angle_deg)
                all[kept - 1] = bone;
        }
    }
    qsort(all, kept, sizeof *all, by_angle_desc);
    for (size_t i = 0; i < kept; i++) {
        am_bvh_rest_bone *r = &stats->rest[i];
        r->angle_deg = all[i].angle_deg;
        if (!am_string_set(&r->joint, b->joints[all[i].joint].name) ||
            !am_string_set(&r->stock, skel->joints[all[i].stock].name))
            return false;
    }
    return true;
}

size_t am_bvh_rest_warning(const am_bvh_stats *s, char *buf, size_t size)
{
    if (size == 0)
        return 0;
    buf[0] = '\0';
    if (s->rest_off == 0)
        return 0;
    const char *tail = s->rest_aligned
                           ? ": corrected (the align_rest option): each bone turned onto the BVH's own direction"
                           : ": the viewer applies its rotations as if it were, so those bones turn by that much; "
                             "the align_rest option corrects it";
    size_t n = (size_t)snprintf(buf, size, "the BVH's zero pose is not the viewer's rest:");
    size_t listed = s->rest_off < AM_BVH_REST_LIST ? s->rest_off : AM_BVH_REST_LIST;
    size_t i = 0;
    /* the largest first, as many as leave room for "and N more" and the advice */
    for (; i < listed; i++) {
        /* names have no length limit: written in place, taken back when they leave no room */
        int len = snprintf(buf + n, size - n, "%s %s (%s) %.1f deg", i ? "," : "", am_str(&s->rest[i].joint),
                           am_str(&s->rest[i].stock), s->rest[i].angle_deg);
        if (len < 0 || n + (size_t)len + 24 + strlen(tail) >= size) {
            buf[n] = '\0';
            break;
        }
        n += (size_t)len;
    }
    if (i < s->rest_off && n < size)
        n += (size_t)snprintf(buf + n, size - n, "%s and %zu more", i ? "," : "", s->rest_off - i);
    if (n < size)
        n += (size_t)snprintf(buf + n, size - n, "%s", tail);
    return n < size ? n : size - 1;
}
