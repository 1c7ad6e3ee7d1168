/* BVH reading and the viewer's BVH -> .anim conversion (docs/reference/anim-format.md#bvh-conversion). The parser
 * follows LLBVHLoader::loadBVHFile's rules (substring classification, rotation order from
 * the letter before each "rotation", positions taken as x y z, 3 or 6 channels) but reads
 * OFFSET and brace-delimited End Site blocks properly. */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "anim/bvh.h"
#include "anim/bvh_internal.h"
#include "core/io.h"

#define INCHES_TO_METERS 0.02540005 /* the viewer's INCHES_TO_METERS */
#define MAX_BVH_JOINTS 1024

typedef struct lines {
    char *buf;
    char **line;
    int *lineno;
    size_t count;
} lines;

/* Split on CR/LF; empty (all-blank) lines vanish, as in the viewer. */
static am_status split_lines(const char *text, size_t size, lines *L, am_error *err)
{
    memset(L, 0, sizeof *L);
    L->buf = malloc(size + 1);
    size_t cap = size / 8 + 16;
    L->line = malloc(cap * sizeof *L->line);
    L->lineno = malloc(cap * sizeof *L->lineno);
    if (!L->buf || !L->line || !L->lineno)
        return am_fail_nomem(err, "bvh lines");
    memcpy(L->buf, text, size);
    L->buf[size] = '\0';
    int no = 1;
    char *p = L->buf, *end = L->buf + size;
    while (p < end) {
        char *s = p;
        while (p < end && *p != '\n' && *p != '\r')
            p++;
        bool lf = p < end && *p == '\n';
        if (p < end)
            *p++ = '\0';
        char *t = s;
        while (*t && isspace((unsigned char)*t))
            t++;
        if (*t) {
            if (L->count == cap) {
                cap *= 2;
                char **nl = realloc(L->line, cap * sizeof *nl);
                if (nl)
                    L->line = nl;
                int *nn = realloc(L->lineno, cap * sizeof *nn);
                if (nn)
                    L->lineno = nn;
                if (!nl || !nn)
                    return am_fail_nomem(err, "bvh lines");
            }
            L->line[L->count] = t;
            L->lineno[L->count++] = no;
        }
        if (lf)
            no++;
    }
    return AM_OK;
}

static void free_lines(lines *L)
{
    free(L->buf);
    free(L->line);
    free(L->lineno);
}

void am_bvh_free(am_bvh *b)
{
    if (!b)
        return;
    for (size_t i = 0; i < b->joint_count; i++)
        free(b->joints[i].name);
    free(b->joints);
    free(b->pos);
    free(b->rot);
    memset(b, 0, sizeof *b);
}

static am_quat axis_rot(char axis, double deg)
{
    am_vec3 a = axis == 'X' ? am_v3(1, 0, 0) : axis == 'Y' ? am_v3(0, 1, 0) : am_v3(0, 0, 1);
    return am_quat_axis_angle(a, deg * AM_DEG2RAD);
}

static am_status parse_hierarchy(am_bvh *b, const lines *L, size_t *li, am_error *err)
{
    size_t cap = 0;
    int stack[MAX_BVH_JOINTS];
    int depth = 0;
    int cur = -1;
    for (; *li < L->count; (*li)++) {
        char *s = L->line[*li];
        int no = L->lineno[*li];
        if (strstr(s, "MOTION")) {
            (*li)++;
            return b->joint_count ? AM_OK : am_fail(err, AM_ERR_INVALID, "bvh line %d: no joints before MOTION", no);
        }
        if (strstr(s, "End Site")) {
            /* skip the block: '{', its lines, '}' */
            int open = 0;
            for ((*li)++; *li < L->count; (*li)++) {
                if (strchr(L->line[*li], '{'))
                    open++;
                if (strchr(L->line[*li], '}') && --open <= 0)
                    break;
            }
            continue;
        }
        if (strstr(s, "ROOT") || strstr(s, "JOINT")) {
            /* the name is the word after the keyword, whatever its length */
            const char *nm = s;
            while (*nm && !isspace((unsigned char)*nm))
                nm++;
            while (*nm && isspace((unsigned char)*nm))
                nm++;
            size_t nl = 0;
            while (nm[nl] && !isspace((unsigned char)nm[nl]))
                nl++;
            if (nl == 0)
                return am_fail(err, AM_ERR_INVALID, "bvh line %d: joint without a name", no);
            if (b->joint_count == MAX_BVH_JOINTS)
                return am_fail(err, AM_ERR_INVALID, "bvh line %d: more than %d joints", no, MAX_BVH_JOINTS);
            if (b->joint_count == cap) {
                cap = cap ? cap * 2 : 32;
                am_bvh_joint *nj = realloc(b->joints, cap * sizeof *nj);
                if (!nj)
                    return am_fail_nomem(err, "bvh joints");
                b->joints = nj;
            }
            if (strstr(s, "ROOT") && b->joint_count > 0 && depth == 0)
                return am_fail(err, AM_ERR_INVALID, "bvh line %d: a second ROOT is not supported", no);
            am_bvh_joint *j = &b->joints[b->joint_count];
            memset(j, 0, sizeof *j);
            j->name = malloc(nl + 1);
            if (!j->name)
                return am_fail_nomem(err, "bvh joint name");
            memcpy(j->name, nm, nl);
            j->name[nl] = '\0';
            j->parent = depth > 0 ? stack[depth - 1] : -1;
            j->channels = b->joint_count == 0 ? 6 : 3;
            strcpy(j->order, "ZYX");
            cur = (int)b->joint_count++;
            continue;
        }
        if (strchr(s, '{')) {
            if (cur < 0 || depth >= MAX_BVH_JOINTS)
                return am_fail(err, AM_ERR_INVALID, "bvh line %d: '{' without a joint", no);
            stack[depth++] = cur;
            continue;
        }
        if (strchr(s, '}')) {
            if (depth == 0)
                return am_fail(err, AM_ERR_INVALID, "bvh line %d: unbalanced '}'", no);
            depth--;
            continue;
        }
        if (strstr(s, "OFFSET") && cur >= 0) {
            am_bvh_joint *j = &b->joints[cur];
            if (sscanf(strstr(s, "OFFSET") + 6, "%lf %lf %lf", &j->offset.x, &j->offset.y, &j->offset.z) != 3)
                return am_fail(err, AM_ERR_INVALID, "bvh line %d: OFFSET needs three numbers", no);
            continue;
        }
        if (strstr(s, "CHANNELS") && cur >= 0) {
            am_bvh_joint *j = &b->joints[cur];
            int n;
            if (sscanf(strstr(s, "CHANNELS") + 8, "%d", &n) == 1)
                j->channels = n == 6 ? 6 : 3; /* other counts read like 3, as the viewer does */
            const char *p = s;
            int k = 0;
            while (k < 3 && (p = strstr(p, "rotation")) != NULL) {
                char c = p > s ? (char)toupper((unsigned char)p[-1]) : '?';
                if (c != 'X' && c != 'Y' && c != 'Z')
                    return am_fail(err, AM_ERR_INVALID, "bvh line %d: joint '%s': bad rotation channel", no,
                                   j->name);
                j->order[k++] = c;
                p += 8;
            }
            if (k != 3)
                return am_fail(err, AM_ERR_INVALID, "bvh line %d: joint '%s' needs three rotation channels", no,
                               j->name);
            continue;
        }
        return am_fail(err, AM_ERR_INVALID, "bvh line %d: unexpected '%.40s'", no, s);
    }
    return am_fail(err, AM_ERR_INVALID, "bvh: no MOTION section");
}

static void compute_depths(am_bvh *b)
{
    for (size_t i = b->joint_count; i-- > 0;) {
        int p = b->joints[i].parent;
        if (p >= 0 && b->joints[p].depth < b->joints[i].depth + 1)
            b->joints[p].depth = b->joints[i].depth + 1;
    }
}

am_status am_bvh_parse(const char *text, size_t size, am_bvh *b, am_error *err)
{
    memset(b, 0, sizeof *b);
    lines L;
    am_status st = split_lines(text, size, &L, err);
    size_t li = 0;
    if (st == AM_OK && (L.count == 0 || !strstr(L.line[0], "HIERARCHY")))
        st = am_fail(err, AM_ERR_INVALID, "bvh line 1: must contain HIERARCHY");
    li = 1;
    if (st == AM_OK)
        st = parse_hierarchy(b, &L, &li, err);
    long frames = -1;
    double ft = 0;
    int frames_line = 0;
    if (st == AM_OK) {
        frames_line = li < L.count ? L.lineno[li] : L.count ? L.lineno[L.count - 1] : 1;
        if (li >= L.count || sscanf(L.line[li], "Frames: %ld", &frames) != 1 || frames < 1)
            st = am_fail(err, AM_ERR_INVALID, "bvh line %d: expected 'Frames: N' (N >= 1)", frames_line);
        else if (++li >= L.count || sscanf(L.line[li], "Frame Time: %lf", &ft) != 1)
            st = am_fail(err, AM_ERR_INVALID, "bvh line %d: expected 'Frame Time: seconds'",
                         li < L.count ? L.lineno[li] : frames_line);
        /* The viewer keeps the frame time as an F32: judge the value it will use. */
        else if (!((float)ft > 0.0f) || !isfinite((float)ft))
            st = am_fail(err, AM_ERR_INVALID,
                         "bvh line %d: Frame Time %g s is %g as a 32-bit float (the viewer's F32): it must be a "
                         "positive finite number of seconds",
                         L.lineno[li], ft, (double)(float)ft);
        li++;
    }
    if (st == AM_OK && (size_t)frames > L.count - li)
        st = am_fail(err, AM_ERR_INVALID, "bvh line %d: 'Frames: %ld' announced, but %zu frame line%s follow%s",
                     frames_line, frames, L.count - li, L.count - li == 1 ? "" : "s", L.count - li == 1 ? "s" : "");
    if (st == AM_OK) {
        compute_depths(b);
        b->frame_count = (size_t)frames;
        b->frame_time_s = ft;
        size_t n = b->frame_count * b->joint_count;
        b->pos = calloc(n, sizeof *b->pos);
        b->rot = calloc(n, sizeof *b->rot);
        if (!b->pos || !b->rot)
            st = am_fail_nomem(err, "bvh frames");
    }
    for (size_t f = 0; st == AM_OK && f < b->frame_count; f++, li++) {
        char *p = L.line[li];
        for (size_t j = 0; st == AM_OK && j < b->joint_count; j++) {
            const am_bvh_joint *jt = &b->joints[j];
            double v[6];
            int need = jt->channels == 6 ? 6 : 3;
            for (int c = 0; c < need; c++) {
                char *e;
                while (*p == ' ' || *p == '\t')
                    p++;
                v[c] = strtod(p, &e);
                if (e == p || !isfinite(v[c])) {
                    st = am_fail(err, AM_ERR_INVALID, "bvh line %d: frame %zu: joint '%s': %s", L.lineno[li], f,
                                 jt->name, *p ? "not a number" : "too few numbers");
                    break;
                }
                p = e;
            }
            if (st != AM_OK)
                break;
            const double *r = v + (need == 6 ? 3 : 0);
            size_t at = f * b->joint_count + j;
            if (need == 6)
                b->pos[at] = am_v3(v[0], v[1], v[2]);
            /* R_A(a) R_B(b) R_C(c), column vectors: intrinsic A, then B, then C */
            b->rot[at] = am_quat_normalize(am_quat_mul(am_quat_mul(axis_rot(jt->order[0], r[0]), axis_rot(jt->order[1], r[1])),
                                                       axis_rot(jt->order[2], r[2])));
        }
    }
    free_lines(&L);
    if (st != AM_OK)
        am_bvh_free(b);
    return st;
}

static am_status sniff_bvh(const uint8_t *h, size_t n, am_error *err)
{
    const char *kind = am_sniff_kind(h, n);
    if (strcmp(kind, "a BVH file") == 0)
        return AM_OK;
    return am_fail_at(err, AM_ERR_INVALID, 0, "not a BVH file (it must start with HIERARCHY): the file is %s", kind);
}

const am_file_format am_bvh_format = {"a BVH file", AM_BVH_MAX_FILE_BYTES, sniff_bvh};

am_status am_bvh_load(const char *path, am_bvh *out, am_error *err)
{
    uint8_t *data;
    size_t size;
    memset(out, 0, sizeof *out);
    am_status st = am_read_file_as(path, &am_bvh_format, &data, &size, err);
    if (st != AM_OK)
        return st;
    st = am_bvh_parse((const char *)data, size, out, err);
    free(data);
    if (st != AM_OK)
        am_error_where(err, "%s", path);
    return st;
}

void am_bvh_options_init(am_bvh_options *o)
{
    memset(o, 0, sizeof *o);
    o->priority = 2;
    o->loop_out_s = 0; /* the duration */
    o->ease_in_s = 0.3;
    o->ease_out_s = 0.3;
    o->hand_pose = 1;
    o->loop_tolerance_deg = AM_LOOP_TOLERANCE_DEG;
    o->loop_tolerance_m = AM_LOOP_TOLERANCE_DEG * 0.01;
}

/* The viewer's translation table: canonical bone and attachment names, bone aliases (the
 * legacy hip/abdomen/... names are aliases in avatar_skeleton.xml), "avatar_" spellings;
 * collision volumes are not in it. */
static int default_target(const am_skeleton *skel, const char *name)
{
    if (strncmp(name, "avatar_", 7) == 0)
        name += 7;
    int idx = am_skeleton_find(skel, name);
    if (idx >= 0 && skel->joints[idx].kind == AM_JOINT_VOLUME)
        return -1;
    return idx;
}

bool am_bvh_root_is_viewer(const am_bvh *b, const am_skeleton *skel)
{
    return b->joint_count > 0 && default_target(skel, b->joints[0].name) == am_skeleton_find_exact(skel, "mPelvis");
}

/* The rotation metric of LLBVHLoader::optimize: |R x - R' x| + |R y - R' y|. */
static double rot_metric(am_quat a, am_quat b)
{
    am_vec3 x = am_v3(1, 0, 0), y = am_v3(0, 1, 0);
    return am_v3_dist(am_quat_rotate(a, x), am_quat_rotate(b, x)) + am_v3_dist(am_quat_rotate(a, y), am_quat_rotate(b, y));
}

static am_vec3 clamp5(am_vec3 p)
{
    p.x = fmax(-5.0, fmin(5.0, p.x));
    p.y = fmax(-5.0, fmin(5.0, p.y));
    p.z = fmax(-5.0, fmin(5.0, p.z));
    return p;
}

/* False when out of memory (the list is kept). */
static bool add_skipped(am_bvh_stats *s, const char *name)
{
    return am_string_setf(&s->skipped, "%s%s%s", am_str(&s->skipped), am_string_empty(&s->skipped) ? "" : ", ", name);
}

void am_bvh_stats_free(am_bvh_stats *stats)
{
    if (!stats)
        return;
    am_string_free(&stats->skipped);
    for (size_t i = 0; i < AM_BVH_REST_LIST; i++) {
        am_string_free(&stats->rest[i].joint);
        am_string_free(&stats->rest[i].stock);
    }
    memset(stats, 0, sizeof *stats);
}

/* Defaults and AM_OPTION_ZERO turned into values, once, as the conversion begins; the code
 * below reads plain numbers (loop_out_s < 0: the duration). */
static void resolve_options(am_bvh_options *o)
{
    o->priority = (int32_t)am_option_int(o->priority, 2);
    o->loop_out_s = o->loop_out_s == AM_OPTION_ZERO ? 0.0 : o->loop_out_s > 0 ? o->loop_out_s : -1.0;
    o->ease_in_s = am_option_real(o->ease_in_s, 0.3);
    o->ease_out_s = am_option_real(o->ease_out_s, 0.3);
    o->hand_pose = (int32_t)am_option_int(o->hand_pose, 1);
    o->loop_tolerance_deg = am_option_real(o->loop_tolerance_deg, AM_LOOP_TOLERANCE_DEG);
    o->loop_tolerance_m = am_option_real(o->loop_tolerance_m, o->loop_tolerance_deg * 0.01);
}

am_status am_bvh_to_anim(const am_bvh *b, const am_skeleton *skel, const am_bvh_options *opts, am_anim *a,
                         am_bvh_stats *stats, am_error *err)
{
    memset(a, 0, sizeof *a);
    am_bvh_options o;
    if (opts)
        o = *opts;
    else
        am_bvh_options_init(&o);
    am_bvh_stats local;
    if (!stats)
        stats = &local;
    memset(stats, 0, sizeof *stats);
    if (b->joint_count == 0 || b->frame_count == 0)
        return am_fail(err, AM_ERR_INVALID, "bvh: no joints or no frames");
    if ((o.priority < 0 && o.priority != AM_OPTION_ZERO) || o.priority > AM_ANIM_MAX_PRIORITY)
        return am_fail(err, AM_ERR_USAGE, "bvh: priority %d (must be 0..6)", o.priority);
    if ((o.hand_pose < 0 && o.hand_pose != AM_OPTION_ZERO) || o.hand_pose >= AM_ANIM_MAX_HAND_POSE)
        return am_fail(err, AM_ERR_USAGE, "bvh: hand pose %d (must be 0..13)", (int)o.hand_pose);
    resolve_options(&o);
    size_t nf = b->frame_count, nj = b->joint_count;
    /* single precision, as the loader's F32 frame time and duration */
    float ftf = (float)b->frame_time_s;
    float durf = (float)(nf > 2 ? nf - 2 : 1) * ftf;
    double dur = durf;
    if (!(durf > 0.0f) || !isfinite(durf))
        return am_fail(err, AM_ERR_INVALID,
                       "bvh: %zu frames of %g s make a %g s clip as a 32-bit float: key times need a positive duration",
                       nf, b->frame_time_s, dur);
    if (dur > AM_ANIM_MAX_DURATION)
        return am_fail(err, AM_ERR_INVALID, "bvh: %zu frames of %g s last %.3f s, over the viewer's %g s limit", nf,
                       b->frame_time_s, dur, (double)AM_ANIM_MAX_DURATION);
    /* The upload floater keeps loop points within the clip and in <= out (8.1 step 4). */
    if (o.loop) {
        double in = o.loop_in_s, out = o.loop_out_s >= 0 ? o.loop_out_s : dur;
        if (!(in >= 0) || !(out <= dur + 1e-6) || !(in <= out))
            return am_fail(err, AM_ERR_USAGE, "bvh: loop %g..%g s must lie within the %.6g s clip with in <= out",
                           in, out, dur);
    }
    int *target = malloc(nj * sizeof *target);
    if (!target)
        return am_fail_nomem(err, "bvh map");
    am_status st = AM_OK;
    int pelvis = am_skeleton_find_exact(skel, "mPelvis");
    for (size_t j = 0; j < nj && st == AM_OK; j++) {
        const char *name = b->joints[j].name;
        int t = -1;
        if (o.map) {
            for (size_t e = 0; e < o.map->count; e++)
                if (strcmp(o.map->entries[e].rig_name, name) == 0) {
                    t = am_skeleton_find(skel, o.map->entries[e].stock_name);
                    if (t < 0)
                        st = am_fail(err, AM_ERR_INVALID, "bvh map: '%s' -> '%s' is not a viewer joint", name,
                                     o.map->entries[e].stock_name);
                    break;
                }
        } else {
            t = default_target(skel, name);
        }
        for (size_t e = 0; t >= 0 && e < j && st == AM_OK; e++)
            if (target[e] == t)
                st = am_fail(err, AM_ERR_INVALID, "bvh: joints '%s' and '%s' both map to '%s'", b->joints[e].name,
                             name, skel->joints[t].name);
        target[j] = t;
    }
    if (st == AM_OK && target[0] != pelvis)
        st = am_fail(err, AM_ERR_INVALID, "bvh: illegal ROOT joint '%s': the root must map to mPelvis (give a joint map)",
                     b->joints[0].name);
    /* the zero pose against the viewer's rest: measured always, applied with align_rest */
    am_quat *align = malloc(nj * sizeof *align);
    int *up = malloc(nj * sizeof *up); /* nearest mapped ancestor */
    if ((!align || !up) && st == AM_OK)
        st = am_fail_nomem(err, "bvh rest");
    if (st == AM_OK && !am_bvh_rest_alignment(b, skel, target, align, stats))
        st = am_fail_nomem(err, "bvh rest");
    if (st == AM_OK) {
        stats->rest_aligned = o.align_rest && stats->rest_compared > 0;
        for (size_t j = 0; j < nj; j++) {
            up[j] = am_bvh_mapped_ancestor(b, target, j);
            if (!o.align_rest)
                align[j] = am_quat_identity();
        }
    }
    /* frames output: 1..nf-1 (frame 0 is the reference), or the single frame */
    size_t first = nf > 1 ? 1 : 0, nkeys = nf - first;
    const am_quat F = {0.5, 0.5, 0.5, 0.5};
    const am_quat Finv = am_quat_conj(F);
    bool *moves = calloc(nj, sizeof *moves);
    if (!moves && st == AM_OK)
        st = am_fail_nomem(err, "bvh");
    size_t out_count = 0;
    for (size_t j = 0; j < nj && st == AM_OK; j++) {
        if (target[j] < 0) {
            stats->unmapped++;
            if (!add_skipped(stats, b->joints[j].name))
                st = am_fail_nomem(err, "bvh skipped joints");
            continue;
        }
        /* motion detection against frame 0 (8.6) */
        bool m = nf == 1 || o.keep_static_joints;
        for (size_t f = 1; f < nf && !m; f++) {
            am_vec3 d = am_v3_sub(b->pos[f * nj + j], b->pos[j]);
            m = am_v3_dot(d, d) > 0.001 * 0.001 || rot_metric(b->rot[f * nj + j], b->rot[j]) > 0.001;
        }
        /* a corrected joint holds its correction even when it never moves */
        const am_quat id = am_quat_identity();
        if (o.align_rest && (rot_metric(align[j], id) > 0.001 || (up[j] >= 0 && rot_metric(align[up[j]], id) > 0.001)))
            m = true;
        moves[j] = m;
        if (m)
            out_count++;
        else
            stats->static_joints++;
    }
    if (st == AM_OK && out_count == 0) { /* nothing moves: keep every mapped joint */
        for (size_t j = 0; j < nj; j++)
            if (target[j] >= 0)
                moves[j] = true, out_count++;
        stats->static_joints = 0;
    }
    if (st == AM_OK && out_count > AM_ANIM_MAX_JOINTS)
        st = am_fail(err, AM_ERR_INVALID, "bvh: %zu animated joints, over %d", out_count, AM_ANIM_MAX_JOINTS);
    if (st == AM_OK) {
        a->version = AM_ANIM_VERSION;
        a->base_priority = o.priority;
        a->duration = durf;
        a->loop = o.loop ? 1 : 0;
        a->loop_in = o.loop ? (float)o.loop_in_s : 0.0f;
        a->loop_out = o.loop && o.loop_out_s >= 0 ? (float)o.loop_out_s : (float)dur;
        double ei = o.ease_in_s, eo = o.ease_out_s;
        if (!o.loop && ei + eo > dur && dur > 0) { /* 8.6: scaled to fit */
            ei = o.ease_in_s * dur / (o.ease_in_s + o.ease_out_s);
            eo = o.ease_out_s * dur / (o.ease_in_s + o.ease_out_s);
        }
        a->ease_in = (float)ei;
        a->ease_out = (float)eo;
        a->hand_pose = (uint32_t)o.hand_pose;
        a->emote_name = calloc(1, 1);
        a->joints = calloc(out_count, sizeof *a->joints);
        if (!a->emote_name || !a->joints)
            st = am_fail_nomem(err, "bvh anim");
    }
    am_quat r0inv = am_quat_conj(b->rot[0]);
    am_vec3 p0 = b->pos[0];
    for (size_t j = 0; j < nj && st == AM_OK; j++) {
        if (target[j] < 0 || !moves[j])
            continue;
        am_anim_joint *jt = &a->joints[a->joint_count++];
        const char *stock = skel->joints[target[j]].name;
        jt->name = malloc(strlen(stock) + 1);
        jt->priority = o.priority;
        bool is_pelvis = target[j] == pelvis;
        bool has_pos = b->joints[j].channels == 6;
        jt->rot_keys = calloc(nkeys, sizeof *jt->rot_keys);
        jt->pos_keys = has_pos ? calloc(nkeys, sizeof *jt->pos_keys) : NULL;
        if (!jt->name || !jt->rot_keys || (has_pos && !jt->pos_keys)) {
            st = am_fail_nomem(err, "bvh keys");
            break;
        }
        strcpy(jt->name, stock);
        for (size_t k = 0; k < nkeys; k++) {
            size_t f = first + k;
            float t = (float)k * ftf; /* frame f plays at (f - 1) * frame time */
            am_quat rk = b->rot[f * nj + j];
            am_quat q = is_pelvis ? am_quat_mul(am_quat_mul(F, am_quat_mul(r0inv, rk)), Finv)
                                  : am_quat_mul(am_quat_mul(F, rk), Finv);
            if (o.align_rest) /* A_p^-1 q A_j: the viewer bone onto the BVH bone, in world */
                q = am_quat_normalize(
                    am_quat_mul(am_quat_mul(up[j] >= 0 ? am_quat_conj(align[up[j]]) : am_quat_identity(), q), align[j]));
            am_anim_rot_key_set(&jt->rot_keys[k], t, q, durf);
            if (has_pos) {
                am_vec3 p = b->pos[f * nj + j];
                if (is_pelvis)
                    p = am_quat_rotate(r0inv, am_v3_sub(p, p0));
                p = clamp5(am_v3_scale(am_quat_rotate(F, p), INCHES_TO_METERS));
                am_anim_pos_key_set(&jt->pos_keys[k], t, p, durf);
            }
        }
        jt->rot_count = nkeys;
        jt->pos_count = has_pos ? nkeys : 0;
        stats->mapped++;
    }
    if (st == AM_OK && o.reduce_deg > 0)
        am_anim_reduce_keys(a, o.reduce_deg, o.reduce_m > 0 ? o.reduce_m : 0.0005, &stats->keys_before,
                            &stats->keys_after);
    else if (st == AM_OK) {
        for (size_t j = 0; j < a->joint_count; j++)
            stats->keys_before += a->joints[j].rot_count + a->joints[j].pos_count;
        stats->keys_after = stats->keys_before;
    }
    if (st == AM_OK && a->loop)
        st = am_anim_close_loop(a, o.loop_tolerance_deg, o.loop_tolerance_m, &stats->loop, err);
    free(target);
    free(moves);
    free(align);
    free(up);
    if (st != AM_OK) {
        am_anim_free(a);
        am_bvh_stats_free(stats);
    } else if (stats == &local) {
        am_bvh_stats_free(&local);
    }
    return st;
}
