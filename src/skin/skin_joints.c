/* Skin joints: names -> viewer joints, the closed set, overrides (alt translations) and
 * inverse binds (docs/reference/mesh-asset.md#the-skin-block and #joint-position-overrides;
 * docs/reference/lessons.md#rule-1 and #rule-3; docs/reference/viewer-skeleton.md#the-pelvis-override-trap). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "skin/skin_internal.h"
#include "core/notes.h"
#include "core/text.h"
#include "core/text_string.h"

void am_skin_warn(am_skin_summary *sum, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    am_string w = {0};
    if (!am_string_vsetf_shown(&w, fmt, ap) || !am_string_list_push(&sum->warnings, &sum->warning_count,
                                                                   &sum->warning_cap, w.data))
        sum->warnings_dropped++;
    va_end(ap);
    am_string_free(&w);
}

/* Every rig joint must name a viewer joint; list all unknown names in one error. */
static am_status resolve_names(const am_rig *rig, const am_skeleton *skel, int *stock, am_error *err)
{
    char names[200] = "";
    size_t unknown = 0, len = 0;
    for (size_t i = 0; i < rig->joint_count; i++) {
        stock[i] = am_skeleton_find(skel, rig->joints[i].name);
        if (stock[i] >= 0)
            continue;
        if (unknown++ < 6) {
            int n = snprintf(names + len, sizeof names - len, "%s'%s'", len ? ", " : "", rig->joints[i].name);
            if (n > 0 && (size_t)n < sizeof names - len)
                len += (size_t)n;
        }
    }
    if (unknown)
        return am_fail(err, AM_ERR_INVALID,
                       "%zu unknown joint name%s: %s%s (not a bone, alias, collision volume or attachment point of "
                       "avatar_skeleton.xml; the uploader refuses them and the viewer cannot drive them)",
                       unknown, unknown == 1 ? "" : "s", names, unknown > 6 ? ", ..." : "");
    for (size_t i = 0; i < rig->joint_count; i++)
        for (size_t k = 0; k < i; k++)
            if (stock[i] == stock[k])
                return am_fail(err, AM_ERR_INVALID, "joints %zu '%s' and %zu '%s' are both the viewer joint '%s'", k,
                               rig->joints[k].name, i, rig->joints[i].name, skel->joints[stock[i]].name);
    return AM_OK;
}

/* Local position of world point w under a parent at world pw with world rotation r and
 * own scale s (docs/reference/viewer-skeleton.md#rest-transforms inverted: local = r^-1 (w - pw) / s). */
static am_vec3 local_under(am_vec3 w, am_vec3 pw, am_quat r, am_vec3 s)
{
    am_vec3 d = am_quat_rotate(am_quat_conj(r), am_v3_sub(w, pw));
    return am_v3(d.x / s.x, d.y / s.y, d.z / s.z);
}

static void warn_pelvis_moved(am_skin_summary *sum, const char *name, const am_skin_joint_info *ji)
{
    sum->pelvis_moved = true;
    /* what it does (docs/reference/viewer-skeleton.md#the-pelvis-override-trap) and what to do, within a
     * warning's 256 characters */
    am_skin_warn(sum,
                 "the rig moves %s to (%.4f, %.4f, %.4f), not its default (%.3f, %.3f, %.3f): the viewer draws the "
                 "bind origin at the prim, so the mesh appears %.3f m higher; lower the object in-world by that "
                 "much or put %s back at its default",
                 name, ji->alt_pos.x, ji->alt_pos.y, ji->alt_pos.z, ji->default_pos.x, ji->default_pos.y,
                 ji->default_pos.z, ji->default_pos.z, name);
}

/* Each skin joint's name: its viewer joint's (set last, once the joints are in place). */
static am_status joint_names(am_skin_summary *sum, const am_skeleton *skel, am_error *err)
{
    for (size_t j = 0; j < sum->joint_count; j++)
        if (!am_string_set(&sum->joints[j].name, skel->joints[sum->joints[j].skel_joint].name))
            return am_fail_nomem(err, "skin joint names");
    return AM_OK;
}

/* An explicit skin (rig.h): the joints exactly as the rig lists them, inverse binds as
 * given, alternates = inverse bind with the translation replaced by the joint position.
 * Where the viewer puts each joint at rest (bind_world, for reports and the .dae) follows
 * from those positions down the viewer hierarchy. */
static am_status explicit_joints(const am_rig *rig, const am_skeleton *skel, const int *stock, am_skin_summary *sum,
                                 int *rig_to_skin, am_mat4 *ibm, am_mat4 *alt, am_error *err)
{
    size_t n = rig->joint_count;
    if (n > AM_MAX_JOINTS_PER_MESH)
        return am_fail(err, AM_ERR_INVALID,
                       "%zu joints in the skin: the viewer allows %d per mesh (LL_MAX_JOINTS_PER_MESH_OBJECT; the "
                       "uploader disables skinning above it)",
                       n, AM_MAX_JOINTS_PER_MESH);
    int *skin_of = malloc(skel->joint_count * sizeof *skin_of);
    am_vec3 *world = malloc(skel->joint_count * sizeof *world);
    if (!skin_of || !world) {
        free(skin_of);
        free(world);
        return am_fail_nomem(err, "skin joints");
    }
    for (size_t i = 0; i < skel->joint_count; i++)
        skin_of[i] = -1;
    for (size_t r = 0; r < n; r++)
        skin_of[stock[r]] = (int)r;
    sum->joint_count = n;
    sum->rig_joint_count = n;
    sum->appended_count = 0;
    sum->override_count = 0;
    sum->pelvis_moved = false;
    /* Viewer rest positions, parents first (skeleton order), with the overrides the
     * viewer applies (beyond 0.1 mm) in place of the defaults. */
    for (size_t i = 0; i < skel->joint_count; i++) {
        const am_joint *sj = &skel->joints[i];
        am_vec3 local = sj->pos;
        int r = skin_of[i];
        if (r >= 0 && rig->has_joint_positions) {
            am_vec3 d = am_v3_sub(rig->joints[r].position, sj->pos);
            if (am_v3_dot(d, d) > AM_JOINT_POS_THRESHOLD * AM_JOINT_POS_THRESHOLD)
                local = rig->joints[r].position;
        }
        if (sj->parent < 0) {
            world[i] = local;
        } else {
            const am_joint *pj = &skel->joints[sj->parent];
            world[i] = am_v3_add(world[sj->parent], am_quat_rotate(pj->world_rot, am_v3_mul(local, pj->scale)));
        }
    }
    for (size_t r = 0; r < n; r++) {
        am_skin_joint_info *ji = &sum->joints[r];
        const am_joint *sj = &skel->joints[stock[r]];
        memset(ji, 0, sizeof *ji);
        ji->skel_joint = stock[r];
        ji->rig_joint = (int)r;
        /* Nearest viewer ancestor that is in the skin (the viewer parent itself when listed). */
        ji->parent = -1;
        for (int a = sj->parent; a >= 0 && ji->parent < 0; a = skel->joints[a].parent)
            ji->parent = skin_of[a];
        ji->default_pos = sj->pos;
        ji->alt_pos = rig->has_joint_positions ? rig->joints[r].position : sj->pos;
        am_vec3 d = am_v3_sub(ji->alt_pos, ji->default_pos);
        ji->overridden = rig->has_joint_positions &&
                         am_v3_dot(d, d) > AM_JOINT_POS_THRESHOLD * AM_JOINT_POS_THRESHOLD;
        if (ji->overridden)
            sum->override_count++;
        ji->bind_world = world[stock[r]];
        ji->rig_world = rig->joints[r].world;
        if (sj->parent < 0 && ji->overridden && sj->kind == AM_JOINT_BONE)
            warn_pelvis_moved(sum, sj->name, ji);
        rig_to_skin[r] = (int)r;
        ibm[r] = rig->joints[r].inverse_bind;
        alt[r] = ibm[r];
        am_mat4_set_translation(&alt[r], ji->alt_pos);
    }
    free(skin_of);
    free(world);
    return joint_names(sum, skel, err);
}

am_status am_skin_build_joints(const am_rig *rig, const am_skeleton *skel, am_skin_summary *sum, int *rig_to_skin,
                               am_mat4 *ibm, am_mat4 *alt, am_error *err)
{
    if (rig->joint_count == 0)
        return am_fail(err, AM_ERR_INVALID, "the rig has no joints");
    int *stock = malloc(rig->joint_count * sizeof *stock);
    int *closed = malloc(skel->joint_count * sizeof *closed);
    int *skin_of = malloc(skel->joint_count * sizeof *skin_of);
    am_status st = AM_OK;
    if (!stock || !closed || !skin_of) {
        st = am_fail_nomem(err, "skin joints");
        goto done;
    }
    if ((st = resolve_names(rig, skel, stock, err)))
        goto done;
    if (rig->explicit_skin) {
        st = explicit_joints(rig, skel, stock, sum, rig_to_skin, ibm, alt, err);
        goto done;
    }
    size_t n = am_skeleton_closed_set(skel, stock, rig->joint_count, closed);
    if (n > AM_MAX_JOINTS_PER_MESH) {
        st = am_fail(err, AM_ERR_INVALID,
                     "%zu joints in the skin (%zu named by the rig + %zu viewer ancestors): the viewer allows %d per "
                     "mesh (LL_MAX_JOINTS_PER_MESH_OBJECT; the uploader disables skinning above it)",
                     n, rig->joint_count, n - rig->joint_count, AM_MAX_JOINTS_PER_MESH);
        goto done;
    }
    /* skin_of[viewer joint] = index in the closed (parents-first) order, used while
     * computing; order[k] = closed index of skin joint k in the final order. */
    for (size_t i = 0; i < skel->joint_count; i++)
        skin_of[i] = -1;
    for (size_t i = 0; i < n; i++)
        skin_of[closed[i]] = (int)i;

    sum->joint_count = n;
    sum->rig_joint_count = rig->joint_count;
    sum->appended_count = n - rig->joint_count;
    sum->override_count = 0;
    sum->pelvis_moved = false;
    /* Parents first (closed set is ascending viewer index), so each parent's viewer
     * position is known before its children's offsets are measured from it. */
    am_skin_joint_info *tmp = calloc(n, sizeof *tmp);
    am_mat4 *tibm = malloc(n * sizeof *tibm), *talt = malloc(n * sizeof *talt);
    if (!tmp || !tibm || !talt) {
        free(tmp);
        free(tibm);
        free(talt);
        st = am_fail_nomem(err, "skin joints");
        goto done;
    }
    for (size_t i = 0; i < n && !st; i++) {
        am_skin_joint_info *ji = &tmp[i];
        const am_joint *sj = &skel->joints[closed[i]];
        memset(ji, 0, sizeof *ji);
        ji->skel_joint = closed[i];
        ji->rig_joint = -1;
        for (size_t r = 0; r < rig->joint_count; r++)
            if (stock[r] == closed[i])
                ji->rig_joint = (int)r;
        ji->parent = sj->parent >= 0 ? skin_of[sj->parent] : -1;
        ji->default_pos = sj->pos;

        /* The viewer parent's frame; the top joint hangs from mRoot, the origin of the bind
         * frame (mPelvis's default (0, 0, 1.067) is its position under mRoot). */
        am_vec3 pw = am_v3(0, 0, 0), ps = am_v3(1, 1, 1);
        am_quat pr = am_quat_identity();
        if (ji->parent >= 0) {
            const am_joint *pj = &skel->joints[sj->parent];
            pw = tmp[ji->parent].bind_world;
            pr = pj->world_rot;
            ps = pj->scale;
        }
        if (ji->rig_joint >= 0) {
            ji->rig_world = rig->joints[ji->rig_joint].world;
            am_vec3 local = local_under(ji->rig_world, pw, pr, ps);
            am_vec3 d = am_v3_sub(local, ji->default_pos);
            /* LLJoint::aboveJointPosThreshold: applied only beyond 0.1 mm; otherwise write
             * the default exactly, which is where the viewer will leave the joint. */
            if (am_v3_dot(d, d) > AM_JOINT_POS_THRESHOLD * AM_JOINT_POS_THRESHOLD) {
                ji->alt_pos = local;
                ji->overridden = true;
                sum->override_count++;
            } else {
                ji->alt_pos = ji->default_pos;
            }
        } else {
            ji->alt_pos = ji->default_pos; /* appended ancestor: at its default */
        }
        ji->bind_world = am_v3_add(pw, am_quat_rotate(pr, am_v3_mul(ji->alt_pos, ps)));
        if (ji->rig_joint < 0)
            ji->rig_world = ji->bind_world;
        ji->snap_m = am_v3_dist(ji->bind_world, ji->rig_world);

        if (sj->parent < 0 && ji->overridden && sj->kind == AM_JOINT_BONE)
            warn_pelvis_moved(sum, sj->name, ji);

        /* The viewer's rest world matrix of this joint with the overrides applied; the
         * inverse bind is its inverse so the rest pose is drawn undeformed. */
        am_mat4 world = am_mat4_from_trs(ji->bind_world, sj->world_rot, sj->scale);
        if (!am_mat4_inverse(&world, &tibm[i]))
            st = am_fail(err, AM_ERR_INVALID, "joint '%s': singular rest matrix", sj->name);
        /* The uploader's construction: the inverse bind with its translation replaced by
         * the joint's local position (docs/reference/collada-upload.md#joint-positions). */
        talt[i] = tibm[i];
        am_mat4_set_translation(&talt[i], ji->alt_pos);
    }
    /* Final order: the rig's joints in rig order (so rig weight indices keep their meaning, as in
     * docs/reference/mesh-asset.md#worked-example), then the appended ancestors parents first. */
    if (!st) {
        size_t k = 0;
        int *final_of = skin_of; /* reuse: closed index -> final index */
        for (size_t r = 0; r < rig->joint_count; r++)
            rig_to_skin[r] = -1;
        for (size_t r = 0; r < rig->joint_count; r++) {
            int ci = -1;
            for (size_t i = 0; i < n; i++)
                if (closed[i] == stock[r])
                    ci = (int)i;
            final_of[ci] = (int)k;
            rig_to_skin[r] = (int)k;
            sum->joints[k] = tmp[ci];
            ibm[k] = tibm[ci];
            alt[k] = talt[ci];
            k++;
        }
        for (size_t i = 0; i < n; i++)
            if (tmp[i].rig_joint < 0) {
                final_of[i] = (int)k;
                sum->joints[k] = tmp[i];
                ibm[k] = tibm[i];
                alt[k] = talt[i];
                k++;
            }
        for (size_t j = 0; j < n; j++)
            if (sum->joints[j].parent >= 0)
                sum->joints[j].parent = final_of[sum->joints[j].parent];
        st = joint_names(sum, skel, err);
    }
    free(tmp);
    free(tibm);
    free(talt);
done:
    free(stock);
    free(closed);
    free(skin_of);
    return st;
}
