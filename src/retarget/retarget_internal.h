/* Shared between retarget.c (frames, the map, rigs) and retarget_clip.c (motions). */
#ifndef AM_RETARGET_INTERNAL_H
#define AM_RETARGET_INTERNAL_H

#include "retarget/retarget.h"

typedef struct am_rt {
    const am_scene *s;
    const am_skeleton *skel;
    const am_retarget_options *o;
    am_retarget_result *r;
    am_mat4 A;              /* file -> viewer bind frame */
    am_mat4 *bindf;         /* per node: bind world, file frame */
    int skin;               /* the primary skin */
    /* mapped rig joints, ascending viewer joint index (parents first) */
    size_t nm;
    int *m_node;            /* scene node */
    int *m_joint;           /* viewer joint */
    int *m_anc;             /* mapped index of the nearest mapped viewer ancestor, -1 */
    am_mat4 *m_bindv_inv;   /* (B_j A)^-1 */
    am_vec3 *m_bind;        /* b_j: bind position, viewer bind frame */
    int *of_joint;          /* per viewer joint: mapped index, -1 */
    int *node_target;       /* per node: the mapped index its weights go to, -1 */
    int top;                /* the top mapped joint (weights with nowhere else to go) */
    /* the viewer's rest, bind frame, for every joint of the closed set */
    bool *closed;
    am_vec3 *vbind;         /* where the viewer puts each joint at rest */
    am_vec3 root_bind;      /* mRoot */
    double pos_tol;
    /* follow_directions (retarget.h "FOLLOWING DIRECTIONS") */
    bool follow;
    am_quat *m_align;       /* per mapped joint: Al_J */
    int *m_child;           /* per mapped joint: its one child bone's mapped joint, else -1
                               (the bone then follows the source's actual direction) */
    double leg_ratio;       /* target leg / source leg */
} am_rt;

void am_retarget_add_finding(am_retarget_result *r, am_finding_level level, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* follow_directions: Al_J per mapped joint and the leg ratio (retarget_follow.c); vbind is
 * the target's rest by then. */
am_status am_retarget_follow_setup(am_rt *c, am_error *err);
/* The directions joint m is aligned by: pairs of mapped joints (from[i] -> to[i]), each a
 * bone to a mapped child, or the line between a Left/Right pair of children (hips,
 * collars); bones too short to have a direction left out. from/to hold nm entries. */
size_t am_retarget_follow_vectors(const am_rt *c, size_t m, int *from, int *to);
/* End effectors keep the source's orientation (issue 28): the head and the feet (ankle,
 * foot, toe) turn by the source's rotation from its rest, both rests the same neutral pose
 * (face ahead, soles flat), not by aligning a bone line (Mixamo's Head -> HeadTop_End leans
 * forward while the face looks ahead); the wrists likewise, their neutral the forearm's
 * alignment (palms down along the arm). Every other mapped joint follows directions. */
typedef enum am_retarget_keep {
    AM_RETARGET_FOLLOW = 0,
    AM_RETARGET_KEEP_WORLD,
    AM_RETARGET_KEEP_FOREARM
} am_retarget_keep;
am_retarget_keep am_retarget_keeps(const am_rt *c, size_t m);
/* The shortest rotation taking unit u onto unit v. */
am_quat am_retarget_shortest_arc(am_vec3 u, am_vec3 v);

/* One clip -> one motion (retarget_clip.c). */
am_status am_retarget_clip(am_rt *c, size_t clip, am_retarget_anim *out, am_error *err);
void am_retarget_anim_free(am_retarget_anim *a);
/* The loop decision on a clip's samples (retarget_loop.c, anim.h "Loops that close"): may
 * make the last sample the first, append the first pose one key interval key_dt after the
 * last (*ns and *dur grow), or with --loop blend the last samples into the first; sets
 * loop_why and loop_closed_*. --loop beyond the tolerance: AM_ERR_INVALID saying by how much. */
am_status am_retarget_loop_close(const am_rt *c, am_retarget_anim *a, size_t *ns, double *dur, double key_dt,
                                 am_error *err);

#endif
