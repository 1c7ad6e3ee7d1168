/* Joint-map suggestion from names and topology (map_suggest.h). */
#include "map/map_suggest.h"
#include "core/notes.h"
#include "core/text.h"

#include "map/map_fallback.h"
#include "map/body_plan.h"

#include <jansson.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* --- rig names ------------------------------------------------------------------------ */

const char *am_map_rig_name(const am_scene *s, int node, char *out, size_t size)
{
    const char *n = s->nodes[node].name;
    bool unique = n[0] != '\0';
    for (size_t i = 0; unique && i < s->node_count; i++)
        if ((int)i != node && strcmp(s->nodes[i].name, n) == 0)
            unique = false;
    if (unique)
        snprintf(out, size, "%s", n);
    else
        snprintf(out, size, "#%d", am_scene_node_number(s, node));
    return out;
}

int am_map_find_node(const am_scene *s, const char *rig_name)
{
    if (rig_name[0] == '#') {
        char *end;
        long v = strtol(rig_name + 1, &end, 10);
        if (*end == '\0' && end != rig_name + 1)
            return am_scene_node_by_number(s, v);
    }
    int found = -1;
    for (size_t i = 0; i < s->node_count; i++)
        if (strcmp(s->nodes[i].name, rig_name) == 0) {
            if (found >= 0)
                return -1; /* not unique: only "#N" names it */
            found = (int)i;
        }
    return found;
}

/* --- the suggestion -------------------------------------------------------------------- */

typedef struct ctx {
    const am_scene *s;
    const am_body *b;
    const am_axes *ax;
    const am_skeleton *skel;
    am_map_suggestion *out;
    bool *taken; /* per skeleton joint */
    bool nomem;  /* a reason or note could not be stored: the suggestion fails */
} ctx;

#define PART(p) (1u << (p))

bool am_map_suggestion_note(am_map_suggestion *o, const char *fmt, ...)
{
    am_string text = {0};
    va_list ap;
    va_start(ap, fmt);
    bool ok = am_string_vsetf(&text, fmt, ap);
    va_end(ap);
    ok = ok && am_string_list_push(&o->notes, &o->note_count, &o->note_cap, text.data);
    am_string_free(&text);
    return ok;
}

/* A joint's reason; out of memory marks the suggestion failed. */
static void set_reason(ctx *c, am_map_joint *mj, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void set_reason(ctx *c, am_map_joint *mj, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    if (!am_string_vsetf(&mj->reason, fmt, ap))
        c->nomem = true;
    va_end(ap);
}

/* More of a joint's reason, after what it says. */
static void add_reason(ctx *c, am_map_joint *mj, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void add_reason(ctx *c, am_map_joint *mj, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    if (!am_string_vappendf(&mj->reason, fmt, ap))
        c->nomem = true;
    va_end(ap);
}

static int joint_side(const am_body *b, int j)
{
    int c = b->joints[j].chain;
    return c >= 0 ? b->chains[c].side : 0;
}

static const char *side_word(int side) { return side > 0 ? "left" : side < 0 ? "right" : ""; }
static const char *side_suffix(int side) { return side > 0 ? "Left" : "Right"; }

/* The side a viewer joint's name carries (its own quirks aside). */
static int viewer_side(const char *name)
{
    return strstr(name, "Left") ? 1 : strstr(name, "Right") ? -1 : 0;
}

static const char *limb_word(const ctx *c, am_chain_kind k)
{
    bool upright = c->ax ? c->ax->upright : true;
    switch (k) {
    case AM_CHAIN_LEG: return upright ? "leg" : "hind leg";
    case AM_CHAIN_ARM: return upright ? "arm" : "foreleg";
    default: return am_chain_kind_label(k);
    }
}

/* Map body joint j to `stock` (canonical name) for a topology role. `want` is the set of
 * name parts that agree with the role. */
static void assign(ctx *c, int j, const char *stock, unsigned want, const char *role, ...)
    __attribute__((format(printf, 5, 6)));
static void assign(ctx *c, int j, const char *stock, unsigned want, const char *role, ...)
{
    am_map_joint *mj = &c->out->joints[j];
    if (mj->target >= 0)
        return; /* a viewer name came first */
    int t = am_skeleton_find_exact(c->skel, stock);
    if (t < 0)
        return;
    char rtext[200]; /* a role: a fixed sentence with a chain number or two */
    va_list ap;
    va_start(ap, role);
    vsnprintf(rtext, sizeof rtext, role, ap);
    va_end(ap);
    if (c->taken[t]) {
        set_reason(c, mj, "topology: %s, but %s is already taken", rtext, stock);
        return;
    }
    c->taken[t] = true;
    mj->target = t;
    mj->source = AM_MAP_TOPOLOGY;
    const am_joint_name *nm = &c->b->joints[j].name;
    const char *name = c->s->nodes[c->b->joints[j].node].name;
    char conv[40] = "";
    if (nm->convention[0])
        snprintf(conv, sizeof conv, "%s ", nm->convention);
    if (nm->part == AM_NAME_UNKNOWN) {
        mj->confidence = 0.75;
        set_reason(c, mj, "topology: %s", rtext);
    } else if (want & PART(nm->part)) {
        mj->confidence = 0.95;
        set_reason(c, mj, "%sname '%s' (%s%s%s) agrees with the topology: %s", conv, name,
                 side_word(nm->side), nm->side ? " " : "", am_name_part_label(nm->part), rtext);
    } else {
        mj->confidence = 0.5;
        set_reason(c, mj, "topology: %s; the name '%s' says %s (the topology wins)", rtext, name,
                 am_name_part_label(nm->part));
    }
    int side = joint_side(c->b, j);
    if (nm->side && side && nm->side != side) {
        mj->confidence = fmin(mj->confidence, 0.6);
        add_reason(c, mj, "; named %s but on the body's %s (%s) side: mapped by side",
                 side_word(nm->side), side_word(side), side > 0 ? "+Y" : "-Y");
    }
}

static void assign_sided(ctx *c, int j, const char *base, int side, unsigned want, const char *role)
{
    char stock[64];
    snprintf(stock, sizeof stock, "%s%s", base, side_suffix(side ? side : 1));
    assign(c, j, stock, want, "%s", role);
}

/* Chain joints that count: in limbs, further segments of a named part (Rigify
 * "upper_arm.L.001", twist bones) are skipped; elsewhere ".001" numbers the joints
 * ("tail.001", "spine.001"). */
static size_t effective(const ctx *c, const am_body_chain *ch, size_t from, int *out)
{
    bool limb = ch->kind == AM_CHAIN_LEG || ch->kind == AM_CHAIN_ARM || ch->kind == AM_CHAIN_HINDLIMB ||
                ch->kind == AM_CHAIN_FINGER;
    size_t n = 0;
    for (size_t k = from; k < ch->count; k++) {
        const am_joint_name *nm = &c->b->joints[ch->joints[k]].name;
        if (limb && nm->segment && nm->part != AM_NAME_UNKNOWN)
            continue;
        out[n++] = ch->joints[k];
    }
    return n;
}

/* m of n indices, evenly, keeping the first. */
static size_t pick(size_t n, size_t m, size_t i) { return m <= 1 || n <= m ? i : (size_t)floor(i * (double)(n - 1) / (double)(m - 1) + 0.5); }

static void do_spine(ctx *c, const am_body_chain *ch)
{
    static const char *const table[5][5] = {{"mTorso"},
                                            {"mSpine1", "mTorso"},
                                            {"mSpine1", "mTorso", "mSpine3"},
                                            {"mSpine1", "mSpine2", "mTorso", "mSpine3"},
                                            {"mSpine1", "mSpine2", "mTorso", "mSpine3", "mSpine4"}};
    unsigned want = PART(AM_NAME_SPINE) | PART(AM_NAME_CHEST);
    int chest = ch->joints[ch->count - 1];
    assign(c, chest, "mChest", want, "chest (the arms hang from it)");
    size_t k = ch->count - 1, m = k < 5 ? k : 5;
    for (size_t i = 0; i < m; i++) {
        size_t at = pick(k, m, i);
        assign(c, ch->joints[at], table[m - 1][i], want, "spine joint %zu of %zu between the pelvis and the chest", at + 1,
               k);
    }
}

static void do_neck(ctx *c, const am_body_chain *ch)
{
    int head = ch->joints[ch->count - 1];
    assign(c, head, "mHead", PART(AM_NAME_HEAD), "head (end of the neck from the chest)");
    if (ch->count >= 2)
        assign(c, ch->joints[0], "mNeck", PART(AM_NAME_NECK) | PART(AM_NAME_SPINE), "neck (first joint above the chest)");
}

static void do_leg(ctx *c, int ci)
{
    const am_body_chain *ch = &c->b->chains[ci];
    static const char *const viewer[] = {"mHip", "mKnee", "mAnkle", "mFoot", "mToe"};
    static const char *const what[] = {"upper leg", "knee", "ankle", "foot", "toe"};
    const unsigned want[] = {PART(AM_NAME_THIGH), PART(AM_NAME_SHIN), PART(AM_NAME_FOOT),
                             PART(AM_NAME_TOE) | PART(AM_NAME_FOOT), PART(AM_NAME_TOE) | PART(AM_NAME_FOOT)};
    int e[256];
    size_t n = effective(c, ch, am_body_leg_hip(c->b, ci), e);
    char role[200];
    for (size_t i = 0; i < n && i < 5; i++) {
        snprintf(role, sizeof role, "%s of the %s %s (hangs from the pelvis, body's %s side)", what[i], side_word(ch->side),
                 limb_word(c, ch->kind), side_word(ch->side));
        assign_sided(c, e[i], viewer[i], ch->side, want[i], role);
    }
}

static void do_hindlimb(ctx *c, int ci)
{
    const am_body_chain *ch = &c->b->chains[ci];
    int e[256];
    size_t n = effective(c, ch, am_body_leg_hip(c->b, ci), e), m = n < 4 ? n : 4;
    char role[200], base[32];
    for (size_t i = 0; i < m; i++) {
        snprintf(role, sizeof role, "joint %zu of the %s second leg pair", i + 1, side_word(ch->side));
        snprintf(base, sizeof base, "mHindLimb%zu", i + 1);
        assign_sided(c, e[pick(n, m, i)], base, ch->side, PART(AM_NAME_THIGH) | PART(AM_NAME_SHIN) | PART(AM_NAME_FOOT),
                     role);
    }
}

static bool has_fingers(const am_body *b, int joint)
{
    for (size_t i = 0; i < b->chain_count; i++)
        if (b->chains[i].kind == AM_CHAIN_FINGER && b->chains[i].hub == joint)
            return true;
    return false;
}

static void do_arm(ctx *c, int ci)
{
    const am_body_chain *ch = &c->b->chains[ci];
    int e[256];
    size_t n = effective(c, ch, 0, e);
    if (n == 0)
        return;
    int last = e[n - 1];
    bool hand = has_fingers(c->b, last) || c->b->joints[last].name.part == AM_NAME_HAND;
    /* the shoulder (upper arm): by name, else two above the hand, else by a short first bone */
    size_t sh = n;
    for (size_t k = 0; k < n && sh == n; k++)
        if (c->b->joints[e[k]].name.part == AM_NAME_UPPERARM)
            sh = k;
    for (size_t k = 0; k < n && sh == n; k++)
        if (c->b->joints[e[k]].name.part == AM_NAME_SHOULDER &&
            !(k + 1 < n && c->b->joints[e[k + 1]].name.part == AM_NAME_UPPERARM))
            sh = k;
    if (sh == n && hand && n >= 3)
        sh = n - 3;
    if (sh == n) {
        double first = am_v3_dist(c->b->joints[e[0]].bind, n > 1 ? c->b->joints[e[1]].bind : c->b->joints[e[0]].bind);
        sh = n >= 4 && first < 0.25 * ch->length ? 1 : 0;
    }
    const char *limb = limb_word(c, ch->kind), *sw = side_word(ch->side);
    char role[200];
    if (sh >= 1) {
        snprintf(role, sizeof role, "collar of the %s %s (first joint from the chest)", sw, limb);
        assign_sided(c, e[sh - 1], "mCollar", ch->side, PART(AM_NAME_COLLAR) | PART(AM_NAME_SHOULDER), role);
    }
    static const char *const viewer[] = {"mShoulder", "mElbow", "mWrist", "mHandMiddle1", "mHandMiddle2", "mHandMiddle3"};
    static const char *const what[] = {"upper arm", "elbow", "wrist", "lower joint 1", "lower joint 2", "lower joint 3"};
    const unsigned want[] = {PART(AM_NAME_UPPERARM) | PART(AM_NAME_SHOULDER), PART(AM_NAME_FOREARM), PART(AM_NAME_HAND),
                             PART(AM_NAME_FINGER) | PART(AM_NAME_HAND), PART(AM_NAME_FINGER), PART(AM_NAME_FINGER)};
    size_t top = hand ? 3 : 6;
    for (size_t i = 0; i < top && sh + i < n; i++) {
        snprintf(role, sizeof role, "%s of the %s %s (body's %s side)", what[i], sw, limb, sw);
        assign_sided(c, e[sh + i], viewer[i], ch->side, want[i], role);
    }
}

static void do_fingers(ctx *c, int hand_joint)
{
    int list[16];
    size_t n = 0;
    for (size_t i = 0; i < c->b->chain_count && n < 16; i++)
        if (c->b->chains[i].kind == AM_CHAIN_FINGER && c->b->chains[i].hub == hand_joint)
            list[n++] = (int)i;
    if (n == 0)
        return;
    int id[16];
    bool used[5] = {false};
    for (size_t i = 0; i < n; i++) {
        id[i] = c->b->chains[list[i]].finger;
        if (id[i] >= 0 && id[i] < 5 && !used[id[i]])
            used[id[i]] = true;
        else
            id[i] = -1;
    }
    /* unnamed fingers: front (viewer +X) to back take the free ids in order */
    for (;;) {
        int best = -1;
        double bx = -INFINITY;
        for (size_t i = 0; i < n; i++) {
            if (id[i] >= 0 || id[i] == -2)
                continue;
            double x = am_axes_point(c->ax, c->b->joints[c->b->chains[list[i]].joints[0]].bind).x;
            if (x > bx)
                bx = x, best = (int)i;
        }
        if (best < 0)
            break;
        int free_id = -1;
        for (int f = 0; f < 5 && free_id < 0; f++)
            if (!used[f])
                free_id = f;
        id[best] = free_id >= 0 ? free_id : -2;
        if (free_id >= 0)
            used[free_id] = true;
    }
    static const char *const fname[] = {"Thumb", "Index", "Middle", "Ring", "Pinky"};
    for (size_t i = 0; i < n; i++) {
        if (id[i] < 0)
            continue;
        const am_body_chain *ch = &c->b->chains[list[i]];
        int e[256];
        size_t m = effective(c, ch, 0, e);
        for (size_t k = 0; k < m && k < 3; k++) {
            char base[48], role[160];
            snprintf(base, sizeof base, "mHand%s%zu", fname[id[i]], k + 1);
            snprintf(role, sizeof role, "%s finger joint %zu of the %s hand", am_name_finger_label(id[i]), k + 1,
                     side_word(ch->side));
            assign_sided(c, e[k], base, ch->side, PART(AM_NAME_FINGER), role);
        }
    }
}

static void do_simple(ctx *c, const am_body_chain *ch)
{
    int e[256];
    size_t n = effective(c, ch, 0, e);
    char role[160], base[32];
    switch (ch->kind) {
    case AM_CHAIN_TAIL: {
        size_t m = n < 6 ? n : 6;
        for (size_t i = 0; i < m; i++) {
            size_t at = pick(n, m, i);
            snprintf(base, sizeof base, "mTail%zu", i + 1);
            assign(c, e[at], base, PART(AM_NAME_TAIL), "tail joint %zu of %zu (the unpaired chain from the pelvis)", at + 1,
                   n);
        }
        break;
    }
    case AM_CHAIN_WING: {
        size_t m = n < 4 ? n : 4;
        for (size_t i = 0; i < m; i++) {
            snprintf(base, sizeof base, "mWing%zu", i + 1);
            snprintf(role, sizeof role, "%s wing joint %zu (a broad pair from the chest)", side_word(ch->side), i + 1);
            assign_sided(c, e[pick(n, m, i)], base, ch->side, PART(AM_NAME_WING), role);
        }
        break;
    }
    case AM_CHAIN_EYE:
        if (n)
            assign_sided(c, e[0], "mEye", ch->side, PART(AM_NAME_EYE), ch->side > 0 ? "left eye (pair at the head)"
                                                                                     : "right eye (pair at the head)");
        break;
    case AM_CHAIN_EAR:
        for (size_t i = 0; i < n && i < 2; i++) {
            snprintf(base, sizeof base, "mFaceEar%zu", i + 1);
            snprintf(role, sizeof role, "%s ear joint %zu (pair at the head)", side_word(ch->side), i + 1);
            assign_sided(c, e[i], base, ch->side, PART(AM_NAME_EAR), role);
        }
        break;
    case AM_CHAIN_JAW:
        if (n)
            assign(c, e[0], "mFaceJaw", PART(AM_NAME_JAW), "jaw (from the head)");
        break;
    case AM_CHAIN_SKULL:
        if (n)
            assign(c, e[0], "mSkull", PART(AM_NAME_HEAD), "head end (beyond the head)");
        break;
    default: break;
    }
}

/* Viewer bone names and aliases map straight to their joint (on the side of the body). */
static void do_viewer_names(ctx *c)
{
    for (size_t j = 0; j < c->b->joint_count; j++) {
        const char *name = c->s->nodes[c->b->joints[j].node].name;
        int t = am_skeleton_find(c->skel, name);
        if (t < 0 || c->skel->joints[t].kind != AM_JOINT_BONE)
            continue;
        am_map_joint *mj = &c->out->joints[j];
        const char *canon = c->skel->joints[t].name;
        int vs = viewer_side(canon), side = joint_side(c->b, (int)j);
        if (vs && side && vs != side) {
            char mirror[64];
            snprintf(mirror, sizeof mirror, "%s", canon);
            char *at = strstr(mirror, vs > 0 ? "Left" : "Right");
            char tail[64];
            snprintf(tail, sizeof tail, "%s", at + (vs > 0 ? 4 : 5));
            snprintf(at, sizeof mirror - (size_t)(at - mirror), "%s%s", vs > 0 ? "Right" : "Left", tail);
            int mt = am_skeleton_find_exact(c->skel, mirror);
            if (mt >= 0 && !c->taken[mt]) {
                mj->target = mt;
                mj->source = AM_MAP_VIEWER_NAME;
                mj->confidence = 0.6;
                set_reason(c, mj,
                           "the viewer's name '%s' is %s, but the joint is on the body's %s (%s) side: mapped by "
                           "side to %s",
                         name, canon, side_word(side), side > 0 ? "+Y" : "-Y", mirror);
                c->taken[mt] = true;
            }
            continue;
        }
        if (c->taken[t])
            continue;
        c->taken[t] = true;
        mj->target = t;
        mj->source = AM_MAP_VIEWER_NAME;
        mj->confidence = 1.0;
        if (strcmp(name, canon) == 0)
            set_reason(c, mj, "the viewer's own joint name");
        else
            set_reason(c, mj, "'%s' is the viewer's alias of %s", name, canon);
    }
}

/* An entry of the user's map is wrong: the error names the map's file (where the fix is),
 * not the model the caller will otherwise name. */
static am_status user_fail(am_error *err, const am_joint_map *user, const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return am_fail_where(err, AM_ERR_INVALID, user->source, "joint map: %s", msg);
}

static am_status apply_user(ctx *c, const am_joint_map *user, am_error *err)
{
    for (size_t i = 0; i < user->count; i++) {
        const am_joint_map_entry *e = &user->entries[i];
        int node = am_map_find_node(c->s, e->rig_name);
        int j = node >= 0 ? c->b->node_joint[node] : -1;
        if (j < 0)
            return user_fail(err, user, "joints['%s']: '%s' is not a joint of the model", e->rig_name, e->rig_name);
        am_map_joint *mj = &c->out->joints[j];
        if (mj->target >= 0)
            c->taken[mj->target] = false;
        if (strcmp(e->stock_name, "-") == 0) {
            mj->target = -1;
            mj->source = AM_MAP_USER;
            mj->confidence = 0;
            set_reason(c, mj, "left unmapped by the map option");
            continue;
        }
        int t = am_skeleton_find(c->skel, e->stock_name);
        if (t < 0)
            return user_fail(err, user, "joints['%s']: '%s' is not a joint of avatar_skeleton.xml", e->rig_name,
                             e->stock_name);
        /* the target leaves whichever suggested joint had it */
        for (size_t k = 0; k < c->out->count; k++) {
            am_map_joint *o = &c->out->joints[k];
            if (k != (size_t)j && o->target == t && o->source != AM_MAP_USER) {
                o->target = -1;
                o->source = AM_MAP_NONE;
                o->confidence = 0;
                set_reason(c, o, "its suggested target %s was given to '%s' by the map option",
                         c->skel->joints[t].name, e->rig_name);
            }
        }
        mj->target = t;
        mj->source = AM_MAP_USER;
        mj->confidence = 1.0;
        set_reason(c, mj, "given by the map option");
        c->taken[t] = true;
    }
    return AM_OK;
}

static int mapped_ancestor(const ctx *c, int j)
{
    for (int p = c->b->joints[j].parent; p >= 0; p = c->b->joints[p].parent)
        if (c->out->joints[p].target >= 0)
            return p;
    return -1;
}

/* Keep every rig chain a viewer chain: a suggested joint whose nearest mapped ancestor's
 * target is not a viewer ancestor of its own is left unmapped (a --map entry stays, for
 * the check to refuse by name). */
static void enforce_chains(ctx *c)
{
    for (size_t j = 0; j < c->b->joint_count; j++) {
        am_map_joint *mj = &c->out->joints[j];
        if (mj->target < 0)
            continue;
        int a = mapped_ancestor(c, (int)j);
        if (a < 0)
            continue;
        int at = c->out->joints[a].target;
        if (am_skeleton_is_ancestor(c->skel, at, mj->target) || mj->source == AM_MAP_USER)
            continue;
        if (!am_map_suggestion_note(c->out,
                                    "'%s' -> %s dropped: its rig parent chain reaches '%s' -> %s, which is not a "
                                    "viewer ancestor of %s",
                                    am_str(&mj->rig_name), c->skel->joints[mj->target].name,
                                    am_str(&c->out->joints[a].rig_name), c->skel->joints[at].name,
                                    c->skel->joints[mj->target].name))
            c->nomem = true;
        c->taken[mj->target] = false;
        mj->target = -1;
        mj->source = AM_MAP_NONE;
        mj->confidence = 0;
        set_reason(c, mj, "dropped: the viewer joint it would take is not below %s",
                 c->skel->joints[at].name);
    }
}

static size_t closed_count(const ctx *c)
{
    int *t = malloc((c->out->count + 1) * sizeof *t), *closed = malloc(c->skel->joint_count * sizeof *closed);
    size_t n = 0, r = 0;
    if (t && closed) {
        for (size_t j = 0; j < c->out->count; j++)
            if (c->out->joints[j].target >= 0)
                t[n++] = c->out->joints[j].target;
        r = am_skeleton_closed_set(c->skel, t, n, closed);
    }
    free(t);
    free(closed);
    return r;
}

/* Over 110 joints: drop suggested joints that carry no weight, deepest first. */
static am_status enforce_limit(ctx *c, am_error *err)
{
    size_t n = closed_count(c), dropped = 0;
    for (size_t pass = 0; n > AM_MAX_JOINTS_PER_MESH && pass < c->out->count; pass++) {
        int worst = -1;
        for (size_t j = 0; j < c->out->count; j++) {
            const am_map_joint *mj = &c->out->joints[j];
            if (mj->target < 0 || mj->source == AM_MAP_USER || c->b->joints[j].weighted || c->b->joints[j].first_child >= 0)
                continue;
            if (worst < 0 || c->b->joints[j].depth > c->b->joints[worst].depth)
                worst = (int)j;
        }
        if (worst < 0)
            break;
        am_map_joint *mj = &c->out->joints[worst];
        c->taken[mj->target] = false;
        mj->target = -1;
        mj->source = AM_MAP_NONE;
        mj->confidence = 0;
        set_reason(c, mj, "dropped to stay within %d joints (it carries no weight)",
                 AM_MAX_JOINTS_PER_MESH);
        dropped++;
        n = closed_count(c);
    }
    if (dropped && !am_map_suggestion_note(c->out,
                                           "%zu unweighted joints left unmapped to stay within %d joints per mesh",
                                           dropped, AM_MAX_JOINTS_PER_MESH))
        c->nomem = true;
    if (n > AM_MAX_JOINTS_PER_MESH)
        return am_fail(
            err, AM_ERR_INVALID,
            "too many joints: the map needs %zu viewer joints (with the ancestors the skin adds), the viewer "
            "allows %d per mesh; give a joint map (the map option) that leaves some rig joints unmapped (\"joint\": "
            "\"-\")",
            n, AM_MAX_JOINTS_PER_MESH);
    return AM_OK;
}

static void explain_unmapped(ctx *c)
{
    for (size_t j = 0; j < c->out->count; j++) {
        am_map_joint *mj = &c->out->joints[j];
        if (mj->target >= 0)
            continue;
        int a = mapped_ancestor(c, (int)j);
        if (a < 0) { /* above the pelvis: the weights go to the topmost mapped joint */
            for (size_t k = 0; k < c->out->count && a < 0; k++)
                if (c->out->joints[k].target >= 0 && mapped_ancestor(c, (int)k) < 0)
                    a = (int)k;
        }
        mj->weight_to = a >= 0 ? c->b->joints[a].node : -1;
        if (am_string_empty(&mj->reason)) {
            const am_body_joint *bj = &c->b->joints[j];
            const char *why = "no role in the topology and no recognised name";
            if (bj->name.segment && bj->name.part != AM_NAME_UNKNOWN)
                why = "a further segment (twist/roll or .001) of the joint above it";
            else if ((bj->name.end || (!bj->weighted && bj->first_child < 0)) && !c->b->vertex_count)
                why = "an end joint (a bone's tip: nothing hangs from it)"; /* a motion-only file: no weights */
            else if (bj->name.end || (!bj->weighted && bj->first_child < 0))
                why = "an end joint without weight";
            else if (bj->chain >= 0 && c->b->chains[bj->chain].kind == AM_CHAIN_LEG)
                why = "a pelvis bone before the upper leg";
            else if (bj->chain >= 0 && c->b->chains[bj->chain].kind == AM_CHAIN_NECK)
                why = "a further neck joint (the viewer has one, mNeck)";
            else if (bj->chain >= 0)
                why = "beyond the joints the viewer chain offers";
            set_reason(c, mj, "unmapped: %s%s", why,
                     c->b->joints[j].weighted && mj->source != AM_MAP_USER
                         ? "; the fallback found no free viewer joint for it that keeps its chain"
                         : "");
        }
        if (a >= 0) {
            add_reason(c, mj, c->b->vertex_count ? "; its weights go to '%s' (%s)" : "; it moves with '%s' (%s)",
                       am_str(&c->out->joints[a].rig_name), c->skel->joints[c->out->joints[a].target].name);
        }
    }
}

/* False when out of memory. */
static bool pick_convention(am_map_suggestion *o, const am_body *b)
{
    /* counted per convention (a handful of names, joint_names.c), in the order first met,
     * so a tie goes to the convention of the earliest joint */
    enum { MAX_CONVENTIONS = 32 };
    const char *seen[MAX_CONVENTIONS];
    size_t count[MAX_CONVENTIONS], ns = 0;
    for (size_t j = 0; j < b->joint_count; j++) {
        const char *cv = b->joints[j].name.convention;
        if (!cv[0])
            continue;
        size_t k = 0;
        while (k < ns && strcmp(seen[k], cv) != 0)
            k++;
        if (k == ns && ns < MAX_CONVENTIONS) {
            seen[ns] = cv;
            count[ns++] = 0;
        }
        if (k < ns)
            count[k]++;
    }
    size_t best = 0;
    const char *picked = NULL;
    for (size_t k = 0; k < ns; k++)
        if (count[k] > best)
            best = count[k], picked = seen[k];
    /* Unreal's _l/_r: named so when its own words appear (thigh_l, calf_l, upperarm_l) */
    for (size_t j = 0; j < b->joint_count && picked && strcmp(picked, "_l/_r") == 0; j++)
        if (strcmp(b->joints[j].name.convention, "Unreal") == 0)
            picked = "Unreal";
    return !picked || am_string_set(&o->convention, picked);
}

/* Which nodes share their name with another (am_map_rig_name's rule for every node at once:
 * names sorted, not each compared with all). NULL when out of memory. */
typedef struct named_node {
    const char *name;
    int node;
} named_node;

static int by_name(const void *a, const void *b)
{
    return strcmp(((const named_node *)a)->name, ((const named_node *)b)->name);
}

static bool *shared_names(const am_scene *s)
{
    size_t n = s->node_count;
    named_node *v = malloc((n ? n : 1) * sizeof *v);
    bool *shared = calloc(n ? n : 1, sizeof *shared);
    if (!v || !shared) {
        free(v);
        free(shared);
        return NULL;
    }
    for (size_t i = 0; i < n; i++)
        v[i] = (named_node){s->nodes[i].name, (int)i};
    qsort(v, n, sizeof *v, by_name);
    for (size_t i = 0; i + 1 < n; i++)
        if (strcmp(v[i].name, v[i + 1].name) == 0)
            shared[v[i].node] = shared[v[i + 1].node] = true;
    free(v);
    return shared;
}

am_status am_map_suggest(const am_scene *s, const am_body *b, const am_axes *ax, const am_skeleton *skel,
                         const am_joint_map *user, am_map_suggestion *out, am_error *err)
{
    memset(out, 0, sizeof *out);
    out->joints = calloc(b->joint_count ? b->joint_count : 1, sizeof *out->joints);
    bool *taken = calloc(skel->joint_count, sizeof *taken);
    bool *shared = shared_names(s);
    if (!out->joints || !taken || !shared) {
        free(taken);
        free(shared);
        am_map_suggestion_free(out);
        return am_fail_nomem(err, "map suggestion");
    }
    out->count = b->joint_count;
    for (size_t j = 0; j < b->joint_count; j++) {
        am_map_joint *mj = &out->joints[j];
        mj->node = b->joints[j].node;
        mj->target = -1;
        mj->weight_to = -1;
        const char *name = s->nodes[mj->node].name; /* as am_map_rig_name names it */
        bool ok = name[0] && !shared[mj->node]
                      ? am_string_set(&mj->rig_name, name)
                      : am_string_setf(&mj->rig_name, "#%d", am_scene_node_number(s, mj->node));
        if (!ok) {
            free(taken);
            free(shared);
            am_map_suggestion_free(out);
            return am_fail_nomem(err, "map suggestion");
        }
    }
    free(shared);
    ctx c = {s, b, ax, skel, out, taken, false};
    do_viewer_names(&c);
    if (b->pelvis >= 0)
        assign(&c, b->pelvis, "mPelvis", PART(AM_NAME_PELVIS) | PART(AM_NAME_ROOT), "%s",
               b->leg_hub >= 0 ? "pelvis (the legs and the spine hang from it)"
               : b->chest >= 0 ? "pelvis (the spine to the arms hangs from it)"
                               : "pelvis (the top of the skeleton: no legs or arms to place it by)");
    for (size_t i = 0; i < b->chain_count; i++) {
        const am_body_chain *ch = &b->chains[i];
        switch (ch->kind) {
        case AM_CHAIN_SPINE: do_spine(&c, ch); break;
        case AM_CHAIN_NECK: do_neck(&c, ch); break;
        case AM_CHAIN_LEG: do_leg(&c, (int)i); break;
        case AM_CHAIN_HINDLIMB: do_hindlimb(&c, (int)i); break;
        case AM_CHAIN_ARM:
            do_arm(&c, (int)i);
            if (ch->count)
                do_fingers(&c, ch->joints[ch->count - 1]);
            break;
        default: do_simple(&c, ch); break;
        }
    }
    am_status st = user ? apply_user(&c, user, err) : AM_OK;
    if (!st) {
        enforce_chains(&c);
        st = enforce_limit(&c, err);
    }
    /* what names and topology left of the weighted rig, into free viewer chains */
    if (!st)
        st = am_map_fallback(s, b, ax, skel, out, taken, err);
    if (!st && c.nomem)
        st = am_fail_nomem(err, "map suggestion reasons");
    if (!st) {
        explain_unmapped(&c);
        if (!pick_convention(out, b) || c.nomem)
            st = am_fail_nomem(err, "map suggestion reasons");
    }
    if (!st) {
        for (size_t j = 0; j < out->count; j++)
            out->mapped += out->joints[j].target >= 0;
        if (out->mapped == 0)
            st = am_fail(err, AM_ERR_INVALID, "no rig joint could be mapped: give a joint map (the map option)");
    }
    am_joint_map map;
    if (!st && !(st = am_map_suggestion_to_map(out, b, skel, &map, err))) {
        am_joint_map_report rep;
        if (!(st = am_joint_map_check(&map, skel, &rep, err))) {
            /* the suggestion alone always passes: a failure comes from the user's entries */
            if (rep.count && user)
                st = user_fail(err, user, "%s%s", rep.problems[0],
                               rep.count > 1 ? " (and more: run animesh map check)" : "");
            else if (rep.count)
                st = am_fail(err, AM_ERR_INVALID, "joint map: %s%s", rep.problems[0],
                             rep.count > 1 ? " (and more: run animesh map check)" : "");
            am_joint_map_report_free(&rep);
        }
        am_joint_map_free(&map);
    }
    free(taken);
    if (st)
        am_map_suggestion_free(out);
    return st;
}

am_status am_map_suggestion_to_map(const am_map_suggestion *sug, const am_body *b, const am_skeleton *skel,
                                   am_joint_map *out, am_error *err)
{
    memset(out, 0, sizeof *out);
    out->entries = calloc(sug->count + 1, sizeof *out->entries);
    out->parents = calloc(sug->count + 1, sizeof *out->parents);
    if (!out->entries || !out->parents) {
        am_joint_map_free(out);
        return am_fail_nomem(err, "joint map");
    }
    for (size_t j = 0; j < sug->count; j++) {
        const am_map_joint *mj = &sug->joints[j];
        if (mj->target >= 0) {
            am_joint_map_entry *e = &out->entries[out->count++];
            e->rig_name = am_strdup(am_str(&mj->rig_name));
            e->stock_name = am_strdup(skel->joints[mj->target].name);
            if (!e->rig_name || !e->stock_name) {
                am_joint_map_free(out);
                return am_fail_nomem(err, "joint map");
            }
        }
        int p = b->joints[j].parent;
        if (p >= 0) {
            am_rig_parent *rp = &out->parents[out->parent_count++];
            rp->child = am_strdup(am_str(&mj->rig_name));
            rp->parent = am_strdup(am_str(&sug->joints[p].rig_name));
            if (!rp->child || !rp->parent) {
                am_joint_map_free(out);
                return am_fail_nomem(err, "joint map");
            }
        }
    }
    return AM_OK;
}

/* Indented JSON text of `root` (taken) appended to out, with a final newline. */
static am_status dump_json(json_t *root, am_buf *out, am_error *err)
{
    char *text = json_dumps(root, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
    json_decref(root);
    if (!text)
        return am_fail_nomem(err, "json");
    am_status st = am_buf_append(out, text, strlen(text), err);
    if (!st)
        st = am_buf_append(out, "\n", 1, err);
    free(text);
    return st;
}

am_status am_map_suggestion_write_json(const am_map_suggestion *sug, const am_body *b, const am_skeleton *skel,
                                       am_buf *out, am_error *err)
{
    json_t *root = json_object(), *joints = json_object(), *parents = json_object(), *conf = json_object(),
           *reasons = json_object();
    if (!root || !joints || !parents || !conf || !reasons) {
        json_decref(root);
        json_decref(joints);
        json_decref(parents);
        json_decref(conf);
        json_decref(reasons);
        return am_fail_nomem(err, "map json");
    }
    json_object_set_new(root, "joints", joints);
    json_object_set_new(root, "rig_parents", parents);
    json_object_set_new(root, "confidence", conf);
    json_object_set_new(root, "reasons", reasons);
    for (size_t j = 0; j < sug->count; j++) {
        const am_map_joint *mj = &sug->joints[j];
        if (mj->target >= 0) {
            json_object_set_new(joints, am_str(&mj->rig_name), json_string(skel->joints[mj->target].name));
            json_object_set_new(conf, am_str(&mj->rig_name), json_real(floor(mj->confidence * 100 + 0.5) / 100));
        }
        json_object_set_new(reasons, am_str(&mj->rig_name), json_string(am_str(&mj->reason)));
        int p = b->joints[j].parent;
        if (p >= 0)
            json_object_set_new(parents, am_str(&mj->rig_name), json_string(am_str(&sug->joints[p].rig_name)));
    }
    return dump_json(root, out, err);
}

void am_map_suggestion_free(am_map_suggestion *s)
{
    if (!s)
        return;
    for (size_t j = 0; j < s->count && s->joints; j++) {
        am_string_free(&s->joints[j].rig_name);
        am_string_free(&s->joints[j].reason);
    }
    free(s->joints);
    am_string_free(&s->convention);
    am_string_list_free(s->notes, s->note_count);
    am_string_list_free(s->warnings, s->warning_count);
    memset(s, 0, sizeof *s);
}

am_status am_map_suggest_scene(const am_scene *s, const am_skeleton *skel, const am_axes_options *ao,
                               const am_joint_map *user, am_body *body, am_axes *axes, am_map_suggestion *out,
                               am_error *err)
{
    memset(out, 0, sizeof *out);
    am_status st = am_body_analyse(s, body, err);
    if (st)
        return st;
    if (!(st = am_axes_resolve(s, body, ao, axes, err))) {
        am_body_set_sides(body, axes->rot);
        st = am_map_suggest(s, body, axes, skel, user, out, err);
    }
    if (st)
        am_body_free(body);
    return st;
}

static const char *format_label(am_scene_format f)
{
    switch (f) {
    case AM_SCENE_FORMAT_COLLADA: return "COLLADA";
    case AM_SCENE_FORMAT_GLTF: return "glTF";
    case AM_SCENE_FORMAT_FBX: return "FBX";
    case AM_SCENE_FORMAT_ASSIMP: return "assimp";
    case AM_SCENE_FORMAT_BVH: return "BVH";
    case AM_SCENE_FORMAT_OBJ: return "OBJ";
    default: return "unknown";
    }
}

am_status am_map_suggestion_report_json(const am_scene *s, const am_body *b, const am_axes *ax,
                                        const am_map_suggestion *sug, const am_skeleton *skel, am_buf *out,
                                        am_error *err)
{
    json_t *root = json_object();
    if (!root)
        return am_fail_nomem(err, "report");
    json_object_set_new(root, "source", json_string(s->source ? s->source : ""));
    json_object_set_new(root, "format", json_string(format_label(s->format)));
    json_t *a = json_object(), *conf = json_array();
    json_object_set_new(a, "report", json_string(ax->report));
    json_object_set_new(a, "up", json_string(am_axis_name(ax->up)));
    json_object_set_new(a, "forward", json_string(am_axis_name(ax->forward)));
    json_object_set_new(a, "scale_m", json_real(ax->scale));
    json_object_set_new(a, "stature_units", json_real(ax->stature_units));
    json_object_set_new(a, "stature_m", json_real(ax->stature_m));
    json_object_set_new(a, "upright", json_boolean(ax->upright));
    for (size_t i = 0; i < ax->conflict_count; i++)
        json_array_append_new(conf, json_string(ax->conflicts[i]));
    json_object_set_new(a, "conflicts", conf);
    json_object_set_new(root, "axes", a);
    json_object_set_new(root, "convention", json_string(am_str(&sug->convention)));
    am_body_plan plan;
    am_body_plan_classify(s, b, ax, sug, skel, &plan); /* out of memory: the JSON says less */
    json_t *pj = am_body_plan_json(&plan);
    am_body_plan_free(&plan);
    if (pj)
        json_object_set_new(root, "body_plan", pj);
    json_t *joints = json_array(), *map = json_object();
    for (size_t j = 0; j < sug->count; j++) {
        const am_map_joint *mj = &sug->joints[j];
        json_t *o = json_object();
        json_object_set_new(o, "rig", json_string(am_str(&mj->rig_name)));
        json_object_set_new(o, "target", mj->target >= 0 ? json_string(skel->joints[mj->target].name) : json_null());
        json_object_set_new(o, "confidence", json_real(floor(mj->confidence * 100 + 0.5) / 100));
        json_object_set_new(o, "reason", json_string(am_str(&mj->reason)));
        json_object_set_new(o, "fallback", json_boolean(mj->source == AM_MAP_FALLBACK));
        if (mj->target < 0)
            json_object_set_new(o, "weights_to",
                                mj->weight_to >= 0
                                    ? json_string(am_str(&sug->joints[b->node_joint[mj->weight_to]].rig_name))
                                    : json_null());
        json_array_append_new(joints, o);
        if (mj->target >= 0)
            json_object_set_new(map, am_str(&mj->rig_name), json_string(skel->joints[mj->target].name));
    }
    json_object_set_new(root, "joints", joints);
    json_t *notes = json_array();
    for (size_t i = 0; i < sug->note_count; i++)
        json_array_append_new(notes, json_string(am_str(&sug->notes[i])));
    json_object_set_new(root, "notes", notes);
    json_t *warnings = json_array();
    for (size_t i = 0; i < sug->warning_count; i++)
        json_array_append_new(warnings, json_string(am_str(&sug->warnings[i])));
    json_object_set_new(root, "warnings", warnings);
    json_object_set_new(root, "mapped", json_integer((json_int_t)sug->mapped));
    json_object_set_new(root, "fallback", json_integer((json_int_t)sug->fallback_count));
    json_t *unemb = json_object();
    json_object_set_new(unemb, "joints", json_integer((json_int_t)sug->unembedded_count));
    json_object_set_new(unemb, "vertices", json_integer((json_int_t)sug->unembedded_vertices));
    json_object_set_new(unemb, "weight", json_real(sug->unembedded_weight));
    json_object_set_new(root, "unembedded", unemb);
    json_object_set_new(root, "map", map);
    return dump_json(root, out, err);
}
