/* The viewer's checks on a decoded .anim (docs/reference/anim-format.md#validation-checks), plus our own for the gaps
 * docs/reference/anim-format.md#gaps-in-the-viewers-checks lists. Every problem is reported, not just the first, with the
 * check's name, the viewer check's #, the joint and the byte offset. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "anim/anim.h"
#include "skeleton/attachments.h"

typedef struct ctx {
    const am_anim *a;
    am_anim_report *rep;
    size_t cap;
    bool nomem;
} ctx;

static const char *severity_tag(am_anim_severity s)
{
    switch (s) {
    case AM_ANIM_REJECT: return "viewer rejects";
    case AM_ANIM_REJECT_UPLOAD: return "viewer rejects on upload";
    case AM_ANIM_OURS: return "our check (a gap in the viewer's)";
    default: return "note";
    }
}

__attribute__((format(printf, 7, 8))) static void add(ctx *c, am_anim_severity sev, const char *check,
                                                      int row, const char *joint, size_t off,
                                                      const char *fmt, ...)
{
    if (c->nomem)
        return;
    am_anim_report *r = c->rep;
    if (r->count == c->cap) {
        size_t ncap = c->cap ? c->cap * 2 : 8;
        am_anim_issue *n = realloc(r->issues, ncap * sizeof *n);
        if (!n) {
            c->nomem = true;
            return;
        }
        r->issues = n;
        c->cap = ncap;
    }
    am_anim_issue *is = &r->issues[r->count];
    memset(is, 0, sizeof *is);
    is->severity = sev;
    is->viewer_row = row;
    is->offset = c->a->decoded ? off : AM_NO_OFFSET;
    am_string body = {0};
    va_list ap;
    va_start(ap, fmt);
    bool ok = am_string_vsetf(&body, fmt, ap);
    va_end(ap);
    char rowtxt[24] = "";
    if (row > 0)
        snprintf(rowtxt, sizeof rowtxt, ", viewer check #%d", row);
    ok = ok && am_string_set(&is->check, check) && am_string_set(&is->joint, joint ? joint : "");
    if (ok && !am_string_empty(&is->joint))
        ok = am_string_setf(&is->msg, "check '%s' (%s%s): joint '%s': %s", check, severity_tag(sev), rowtxt,
                            am_str(&is->joint), am_str(&body));
    else if (ok)
        ok = am_string_setf(&is->msg, "check '%s' (%s%s): %s", check, severity_tag(sev), rowtxt, am_str(&body));
    am_string_free(&body);
    if (!ok) {
        am_string_free(&is->check);
        am_string_free(&is->joint);
        am_string_free(&is->msg);
        c->nomem = true;
        return;
    }
    r->count++;
    if (sev != AM_ANIM_NOTE)
        r->errors++;
}

static bool finite3(const float v[3]) { return isfinite(v[0]) && isfinite(v[1]) && isfinite(v[2]); }

/* Header field offsets: fixed up to the emote, then 13 + E. */
static size_t after_emote(const am_anim *a) { return 13 + (a->emote_name ? strlen(a->emote_name) : 0); }

static void check_header(ctx *c)
{
    const am_anim *a = c->a;
    size_t e = after_emote(a);
    if (a->version != AM_ANIM_VERSION || a->sub_version != AM_ANIM_SUBVERSION)
        add(c, AM_ANIM_REJECT, "version", 2, "", 0, "version %u.%u is not 1.0", a->version, a->sub_version);
    if (a->base_priority < -1)
        add(c, AM_ANIM_REJECT, "base_priority", 5, "", 4, "base priority %d is below -1", a->base_priority);
    else if (a->base_priority >= 7)
        add(c, AM_ANIM_NOTE, "base_priority", 4, "", 4, "base priority %d >= 7: the viewer uses 6",
            a->base_priority);
    if (!isfinite(a->duration))
        add(c, AM_ANIM_REJECT, "duration", 6, "", 8, "duration is not finite");
    else if (a->duration > AM_ANIM_MAX_DURATION)
        add(c, AM_ANIM_REJECT, "duration", 6, "", 8, "duration %.6g s is over %.0f s", a->duration,
            AM_ANIM_MAX_DURATION);
    else if (a->duration < 0.0f)
        add(c, AM_ANIM_OURS, "negative_duration", 0, "", 8, "duration %.6g s is negative", a->duration);
    else if (a->duration == 0.0f)
        add(c, AM_ANIM_NOTE, "zero_duration", 0, "", 8,
            "duration is 0 s: every key plays at t = 0, a static pose that never ends unless stopped "
            "(animesh refuses to quantise key times against it)");
    if (a->emote_name && a->emote_name[0])
        add(c, AM_ANIM_NOTE, "emote_name", strcmp(a->emote_name, "Closed_Mouth") == 0 ? 9 : 10, "", 12,
            "emote '%s': played only if the viewer knows the name (else cleared); it moves the "
            "system avatar's face, nothing on animesh",
            a->emote_name);
    if (!isfinite(a->loop_in) || !isfinite(a->loop_out))
        add(c, AM_ANIM_REJECT, "loop_points", 11, "", e, "loop point is not finite (in %g, out %g)",
            a->loop_in, a->loop_out);
    if (!isfinite(a->ease_in) || !isfinite(a->ease_out))
        add(c, AM_ANIM_REJECT, "ease", 13, "", e + 12, "ease duration is not finite (in %g, out %g)",
            a->ease_in, a->ease_out);
    if (a->hand_pose > AM_ANIM_MAX_HAND_POSE)
        add(c, AM_ANIM_REJECT, "hand_pose", 14, "", e + 20, "hand pose %u is over %d", a->hand_pose,
            AM_ANIM_MAX_HAND_POSE);
    else if (a->hand_pose == AM_ANIM_MAX_HAND_POSE)
        add(c, AM_ANIM_OURS, "hand_pose", 0, "", e + 20,
            "hand pose 14 (NUM_HAND_POSES) is accepted by the viewer but ignored; use 0..13");
    if (a->joint_count == 0 || a->joint_count > AM_ANIM_MAX_JOINTS)
        add(c, AM_ANIM_REJECT, "num_joints", 15, "", e + 24, "%zu joints (must be 1..%d)", a->joint_count,
            AM_ANIM_MAX_JOINTS);
}

static void check_joint(ctx *c, size_t j, const am_skeleton *skel)
{
    const am_anim *a = c->a;
    const am_anim_joint *jt = &a->joints[j];
    const char *n = jt->name ? jt->name : "";
    size_t name_end = jt->offset + strlen(n) + 1;
    if (strcmp(n, "mScreen") == 0 || strcmp(n, "mRoot") == 0)
        add(c, AM_ANIM_REJECT, "joint_name", 16, n, jt->offset, "%s cannot be animated", n);
    else if (!*n)
        add(c, AM_ANIM_REJECT_UPLOAD, "joint_name", 16, n, jt->offset, "joint %zu has an empty name", j);
    else if (skel) {
        int idx = am_skeleton_find(skel, n);
        if (idx < 0 && am_attachment_is_hud(n))
            add(c, AM_ANIM_NOTE, "joint_name", 16, n, jt->offset,
                "a HUD attachment point: a direct .anim upload accepts it (the uploader's own avatar has HUD "
                "points), but an animesh has none, so the entry animates nothing in-world");
        else if (idx < 0)
            add(c, AM_ANIM_REJECT_UPLOAD, "joint_name", 16, n, jt->offset,
                "not a joint of the viewer's skeleton: refused on upload, animates nothing in-world");
        else if (skel->joints[idx].joint_num < 0 || skel->joints[idx].joint_num >= AM_ANIM_MAX_JOINTS)
            add(c, AM_ANIM_NOTE, "joint_number", 16, n, jt->offset,
                "joint number %d is outside 0..215: the entry animates nothing", skel->joints[idx].joint_num);
    }
    if (jt->priority < -1)
        add(c, AM_ANIM_REJECT, "joint_priority", 16, n, name_end, "priority %d is below -1", jt->priority);
    else if (jt->priority > 7)
        add(c, AM_ANIM_OURS, "joint_priority", 0, n, name_end,
            "priority %d is over 7: the viewer's priority mask shift goes negative; use -1..6", jt->priority);
    for (size_t k = 0; k < jt->rot_count; k++) {
        const am_anim_rot_key *key = &jt->rot_keys[k];
        size_t off = jt->rot_offset + 8 * k;
        /* U16 decoding cannot produce a non-finite value unless the duration is; rows 17
         * and 18 then fire here. */
        if (!(key->time >= 0.0f) || !(key->time <= a->duration))
            add(c, AM_ANIM_REJECT, "key_time", 17, n, off, "rotation key %zu: time %g is outside [0, %g]", k,
                key->time, a->duration);
        if (!isfinite(key->rot.x) || !isfinite(key->rot.y) || !isfinite(key->rot.z) || !isfinite(key->rot.w))
            add(c, AM_ANIM_REJECT, "rotation", 18, n, off + 2, "rotation key %zu is not finite", k);
    }
    for (size_t k = 0; k < jt->pos_count; k++) {
        const am_anim_pos_key *key = &jt->pos_keys[k];
        if (!isfinite(key->pos.x) || !isfinite(key->pos.y) || !isfinite(key->pos.z))
            add(c, AM_ANIM_REJECT, "position", 20, n, jt->pos_offset + 8 * k + 2,
                "position key %zu is not finite", k);
    }
}

/* Index of the first entry resolving to skeleton joint `joint`; sets *blocked when an
 * unresolved entry comes before it (row 31). */
static long entry_for(const am_anim *a, const am_skeleton *skel, int joint, bool *blocked)
{
    *blocked = false;
    for (size_t j = 0; j < a->joint_count; j++) {
        int idx = am_skeleton_find(skel, a->joints[j].name);
        if (idx < 0 || skel->joints[idx].joint_num >= AM_ANIM_MAX_JOINTS) {
            *blocked = true;
            return -1;
        }
        if (idx == joint)
            return (long)j;
    }
    return -1;
}

static bool is_volume(const am_skeleton *skel, const char *name)
{
    int idx = am_skeleton_find_exact(skel, name);
    return idx >= 0 && skel->joints[idx].kind == AM_JOINT_VOLUME;
}

static void check_constraints(ctx *c, const am_skeleton *skel)
{
    const am_anim *a = c->a;
    int32_t raw = a->constraint_count_raw;
    if (a->constraint_count == 0 && (raw < 0 || raw > AM_ANIM_MAX_CONSTRAINTS)) {
        add(c, AM_ANIM_NOTE, "num_constraints", 22, "", a->constraints_offset,
            "%d constraints (limit %d): the viewer ignores all of them", raw, AM_ANIM_MAX_CONSTRAINTS);
        return;
    }
    for (size_t i = 0; i < a->constraint_count; i++) {
        const am_anim_constraint *cs = &a->constraints[i];
        size_t off = cs->offset;
        char src[17], dst[17], who[64];
        am_anim_volume_name(cs->source_volume, src);
        am_anim_volume_name(cs->target_volume, dst);
        /* a constraint is not a joint entry: name it by its index and volumes */
        snprintf(who, sizeof who, "constraint %zu ('%s' -> '%s')", i, src, dst);
        if (cs->chain_length > a->joint_count)
            add(c, AM_ANIM_REJECT, "chain_length", 23, "", off, "%s: chain length %u exceeds the %zu joints",
                who, cs->chain_length, a->joint_count);
        else if (cs->chain_length >= AM_ANIM_MAX_CHAIN)
            add(c, AM_ANIM_OURS, "chain_length", 0, "", off,
                "%s: chain length %u overflows the viewer solver's arrays (use 0..3)", who, cs->chain_length);
        if (cs->type >= 2)
            add(c, AM_ANIM_REJECT, "constraint_type", 24, "", off + 1, "%s: type %u (0 point, 1 plane)", who,
                cs->type);
        if (!finite3(cs->source_offset))
            add(c, AM_ANIM_REJECT, "source_offset", 26, "", off + 18, "%s: source offset not finite", who);
        if (!finite3(cs->target_offset) || !finite3(cs->target_dir) || !isfinite(cs->ease_in_start) ||
            !isfinite(cs->ease_in_stop) || !isfinite(cs->ease_out_start) || !isfinite(cs->ease_out_stop))
            add(c, AM_ANIM_REJECT, "constraint_values", 28, "", off + 46,
                "%s: a target offset, direction or ease time is not finite", who);
        if (!skel)
            continue;
        if (!is_volume(skel, src)) {
            add(c, AM_ANIM_REJECT, "source_volume", 25, "", off + 2,
                "%s: source '%s' is not a collision volume", who, src);
            continue;
        }
        if (strcmp(dst, "GROUND") != 0 && !is_volume(skel, dst))
            add(c, AM_ANIM_REJECT, "target_volume", 27, "", off + 30,
                "%s: target '%s' is neither GROUND nor a collision volume", who, dst);
        int j = am_skeleton_parent(skel, am_skeleton_find_exact(skel, src));
        for (unsigned s = 0; s <= cs->chain_length; s++) {
            if (j < 0) {
                add(c, AM_ANIM_REJECT, "chain_parent", 30, "", off,
                    "%s: the chain of %u joints above '%s' runs past the root", who, cs->chain_length, src);
                break;
            }
            bool blocked;
            long e = entry_for(a, skel, j, &blocked);
            if (e < 0 && blocked) {
                add(c, AM_ANIM_REJECT, "invalid_joint", 31, "", off,
                    "%s: an unresolved joint entry precedes chain joint '%s'", who, skel->joints[j].name);
                break;
            }
            if (e < 0) {
                add(c, AM_ANIM_REJECT, "chain_joint", 32, "", off,
                    "%s: chain joint '%s' is not animated by the motion", who, skel->joints[j].name);
                break;
            }
            j = am_skeleton_parent(skel, j);
        }
    }
}

am_status am_anim_validate(const am_anim *a, const am_skeleton *skel, am_anim_report *rep, am_error *err)
{
    memset(rep, 0, sizeof *rep);
    ctx c = {a, rep, 0, false};
    check_header(&c);
    for (size_t j = 0; j < a->joint_count; j++)
        check_joint(&c, j, skel);
    check_constraints(&c, skel);
    if (c.nomem) {
        am_anim_report_free(rep);
        return am_fail_nomem(err, "anim report");
    }
    return AM_OK;
}

void am_anim_report_free(am_anim_report *rep)
{
    if (!rep)
        return;
    for (size_t i = 0; i < rep->count && rep->issues; i++) {
        am_string_free(&rep->issues[i].check);
        am_string_free(&rep->issues[i].joint);
        am_string_free(&rep->issues[i].msg);
    }
    free(rep->issues);
    memset(rep, 0, sizeof *rep);
}

am_status am_anim_report_fail(const am_anim_report *rep, am_error *err)
{
    for (size_t i = 0; i < rep->count; i++) {
        const am_anim_issue *is = &rep->issues[i];
        if (is->severity == AM_ANIM_NOTE)
            continue;
        if (is->offset != AM_NO_OFFSET)
            return am_fail_at(err, AM_ERR_INVALID, is->offset, "anim: %s", am_str(&is->msg));
        return am_fail(err, AM_ERR_INVALID, "anim: %s", am_str(&is->msg));
    }
    return AM_OK;
}
