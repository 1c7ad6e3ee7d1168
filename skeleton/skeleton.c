#include "skeleton/skeleton.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libxml/parser.h>
#include <libxml/tree.h>

#include "skeleton/attachments.h"
#include "core/io.h"
#include "core/xml_doc.h"

/* ---- small helpers ---- */

typedef struct parse_ctx {
    const char *source;
    am_skeleton *skel;
    size_t cap;
    size_t declared_bones, declared_volumes;
    /* bones are appended in pre-order; volumes collected separately then appended */
    am_joint *volumes;
    size_t volume_cap, volume_count;
    am_error *err;
} parse_ctx;

static am_status fail_line(parse_ctx *pc, int line, const char *fmt, const char *a, const char *b)
{
    char msg[200];
    snprintf(msg, sizeof msg, fmt, a ? a : "", b ? b : "");
    am_fail(pc->err, AM_ERR_INVALID, "%s", msg);
    am_error_where(pc->err, "%s:%d", pc->source, line);
    return AM_ERR_INVALID;
}

/* Exactly three finite numbers separated by whitespace. */
static bool parse_vec3(const char *s, am_vec3 *out)
{
    double v[3];
    const char *p = s;
    for (int i = 0; i < 3; i++) {
        char *end;
        errno = 0;
        v[i] = strtod(p, &end);
        if (end == p || errno == ERANGE || !isfinite(v[i]))
            return false;
        p = end;
    }
    while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')
        p++;
    if (*p)
        return false;
    *out = am_v3(v[0], v[1], v[2]);
    return true;
}

static void free_joint(am_joint *j)
{
    free(j->name);
    for (size_t i = 0; i < j->alias_count; i++)
        free(j->aliases[i]);
    free(j->aliases);
    free(j->connected);
    free(j->group);
    free(j->support);
    memset(j, 0, sizeof *j);
}

/* Read one attribute into a malloc'd string (NULL if absent). */
static char *attr(xmlNodePtr node, const char *name)
{
    xmlChar *v = xmlGetProp(node, (const xmlChar *)name);
    if (!v)
        return NULL;
    char *d = am_strdup((const char *)v);
    xmlFree(v);
    return d;
}

static am_status read_vec_attr(parse_ctx *pc, xmlNodePtr node, const char *jname, const char *an,
                               bool required, am_vec3 *out)
{
    char *v = attr(node, an);
    int line = (int)xmlGetLineNo(node);
    if (!v) {
        if (!required) {
            *out = am_v3(0, 0, 0);
            return AM_OK;
        }
        char what[160];
        snprintf(what, sizeof what, "'%s' has no '%s' attribute", jname, an);
        return fail_line(pc, line, "%s%s", what, "");
    }
    bool ok = parse_vec3(v, out);
    if (!ok) {
        char what[200];
        snprintf(what, sizeof what, "'%s' attribute '%s' is not three numbers: \"%.60s\"", jname, an, v);
        free(v);
        return fail_line(pc, line, "%s%s", what, "");
    }
    free(v);
    return AM_OK;
}

static am_status split_aliases(am_joint *j, const char *s, am_error *err)
{
    char *copy = am_strdup(s);
    if (!copy)
        return am_fail_nomem(err, "aliases");
    size_t n = 0;
    for (char *tok = strtok(copy, " \t\r\n"); tok; tok = strtok(NULL, " \t\r\n"))
        n++;
    free(copy);
    if (n == 0)
        return AM_OK;
    j->aliases = calloc(n, sizeof *j->aliases);
    copy = am_strdup(s);
    if (!j->aliases || !copy) {
        free(copy);
        return am_fail_nomem(err, "aliases");
    }
    for (char *tok = strtok(copy, " \t\r\n"); tok; tok = strtok(NULL, " \t\r\n")) {
        j->aliases[j->alias_count] = am_strdup(tok);
        if (!j->aliases[j->alias_count]) {
            free(copy);
            return am_fail_nomem(err, "aliases");
        }
        j->alias_count++;
    }
    free(copy);
    return AM_OK;
}

static am_status read_joint(parse_ctx *pc, xmlNodePtr node, bool is_bone, int parent, am_joint *j)
{
    memset(j, 0, sizeof *j);
    j->parent = parent;
    j->kind = is_bone ? AM_JOINT_BONE : AM_JOINT_VOLUME;
    j->line = (int)xmlGetLineNo(node);
    j->name = attr(node, "name");
    if (!j->name) {
        if (is_bone)
            return fail_line(pc, j->line, "bone without name%s%s", "", "");
        j->name = am_strdup("Collision Volume"); /* the viewer's default */
        if (!j->name)
            return am_fail_nomem(pc->err, "name");
    }
    if (!j->name[0])
        return fail_line(pc, j->line, "%s with an empty name%s", is_bone ? "bone" : "collision volume", "");
    am_status s;
    if ((s = read_vec_attr(pc, node, j->name, "pos", true, &j->pos)) ||
        (s = read_vec_attr(pc, node, j->name, "rot", true, &j->rot_deg)) ||
        (s = read_vec_attr(pc, node, j->name, "scale", true, &j->scale)) ||
        (s = read_vec_attr(pc, node, j->name, "end", false, &j->end)))
        return s;
    if (is_bone && (s = read_vec_attr(pc, node, j->name, "pivot", true, &j->pivot)))
        return s;
    j->rot = am_quat_from_euler_xyz_deg(j->rot_deg);
    j->connected = attr(node, "connected");
    j->group = attr(node, "group");
    j->support = attr(node, "support");
    if (!j->group && !(j->group = am_strdup("global")))
        return am_fail_nomem(pc->err, "group");
    if (!j->support && !(j->support = am_strdup("base")))
        return am_fail_nomem(pc->err, "support");
    if (is_bone) {
        char *al = attr(node, "aliases");
        if (al) {
            s = split_aliases(j, al, pc->err);
            free(al);
            if (s)
                return s;
        }
    }
    return AM_OK;
}

static am_status push_bone(parse_ctx *pc, am_joint *j)
{
    am_skeleton *sk = pc->skel;
    if (sk->joint_count == pc->cap) {
        size_t nc = pc->cap ? pc->cap * 2 : 64;
        am_joint *nj = realloc(sk->joints, nc * sizeof *nj);
        if (!nj)
            return am_fail_nomem(pc->err, "bones");
        sk->joints = nj;
        pc->cap = nc;
    }
    sk->joints[sk->joint_count++] = *j;
    return AM_OK;
}

static am_status push_volume(parse_ctx *pc, am_joint *j)
{
    if (pc->volume_count == pc->volume_cap) {
        size_t nc = pc->volume_cap ? pc->volume_cap * 2 : 32;
        am_joint *nv = realloc(pc->volumes, nc * sizeof *nv);
        if (!nv)
            return am_fail_nomem(pc->err, "collision volumes");
        pc->volumes = nv;
        pc->volume_cap = nc;
    }
    pc->volumes[pc->volume_count++] = *j;
    return AM_OK;
}

/* Depth-first in document order: bones numbered in pre-order (docs/reference/viewer-skeleton.md#joint-numbering). */
static am_status walk(parse_ctx *pc, xmlNodePtr parent_node, int parent_index, int depth)
{
    if (depth > 256)
        return fail_line(pc, (int)xmlGetLineNo(parent_node), "skeleton nested too deeply%s%s", "", "");
    for (xmlNodePtr n = parent_node->children; n; n = n->next) {
        if (n->type != XML_ELEMENT_NODE)
            continue;
        bool is_bone = xmlStrcmp(n->name, (const xmlChar *)"bone") == 0;
        bool is_vol = xmlStrcmp(n->name, (const xmlChar *)"collision_volume") == 0;
        if (!is_bone && !is_vol)
            return fail_line(pc, (int)xmlGetLineNo(n), "invalid element <%s>: only <bone> and <collision_volume> are allowed", (const char *)n->name, "");
        am_joint j;
        am_status s = read_joint(pc, n, is_bone, parent_index, &j);
        if (s) {
            free_joint(&j);
            return s;
        }
        if (is_bone) {
            int index = (int)pc->skel->joint_count;
            if ((s = push_bone(pc, &j))) {
                free_joint(&j);
                return s;
            }
            if ((s = walk(pc, n, index, depth + 1)))
                return s;
        } else {
            if (n->children) {
                for (xmlNodePtr c = n->children; c; c = c->next)
                    if (c->type == XML_ELEMENT_NODE) {
                        free_joint(&j);
                        return fail_line(pc, (int)xmlGetLineNo(c), "collision volume '%s' has a child element <%s>; volumes are leaves", j.name, (const char *)c->name);
                    }
            }
            if ((s = push_volume(pc, &j))) {
                free_joint(&j);
                return s;
            }
        }
    }
    return AM_OK;
}

static int alias_cmp(const void *a, const void *b)
{
    return strcmp(((const am_alias *)a)->alias, ((const am_alias *)b)->alias);
}

static am_status add_alias(am_skeleton *sk, size_t *cap, const char *alias, int joint, am_error *err)
{
    if (sk->alias_count == *cap) {
        size_t nc = *cap ? *cap * 2 : 256;
        am_alias *na = realloc(sk->aliases, nc * sizeof *na);
        if (!na)
            return am_fail_nomem(err, "alias map");
        sk->aliases = na;
        *cap = nc;
    }
    char *d = am_strdup(alias);
    if (!d)
        return am_fail_nomem(err, "alias map");
    sk->aliases[sk->alias_count].alias = d;
    sk->aliases[sk->alias_count].joint = joint;
    sk->alias_count++;
    return AM_OK;
}

/* The alias map of docs/reference/viewer-skeleton.md#aliases: bone name -> itself, alias tokens -> bone (a later bone
 * re-maps an earlier token), attachment names with '_' for ' ' -> the attachment. */
static am_status build_aliases(am_skeleton *sk, am_error *err)
{
    size_t cap = 0;
    am_status s;
    for (size_t i = 0; i < sk->bone_count; i++) {
        am_joint *j = &sk->joints[i];
        if ((s = add_alias(sk, &cap, j->name, (int)i, err)))
            return s;
        for (size_t k = 0; k < j->alias_count; k++)
            if ((s = add_alias(sk, &cap, j->aliases[k], (int)i, err)))
                return s;
    }
    for (size_t i = sk->bone_count + sk->volume_count; i < sk->joint_count; i++) {
        const char *name = sk->joints[i].name;
        if (!strchr(name, ' '))
            continue;
        char u[64];
        snprintf(u, sizeof u, "%s", name);
        for (char *p = u; *p; p++)
            if (*p == ' ')
                *p = '_';
        if ((s = add_alias(sk, &cap, u, (int)i, err)))
            return s;
    }
    /* Stable sort keeps insertion order among equal keys; the LAST entry of a run wins. */
    for (size_t i = 1; i < sk->alias_count; i++) {
        am_alias key = sk->aliases[i];
        size_t k = i;
        while (k > 0 && strcmp(sk->aliases[k - 1].alias, key.alias) > 0) {
            sk->aliases[k] = sk->aliases[k - 1];
            k--;
        }
        sk->aliases[k] = key;
    }
    size_t w = 0;
    for (size_t i = 0; i < sk->alias_count; i++) {
        if (i + 1 < sk->alias_count && strcmp(sk->aliases[i].alias, sk->aliases[i + 1].alias) == 0) {
            free(sk->aliases[i].alias);
            continue;
        }
        sk->aliases[w++] = sk->aliases[i];
    }
    sk->alias_count = w;
    return AM_OK;
}

static am_status add_attachments(am_skeleton *sk, size_t *cap, am_error *err)
{
    int n;
    const am_attachment_def *defs = am_attachment_defs(&n);
    if (sk->joint_count + (size_t)n > *cap) {
        am_joint *nj = realloc(sk->joints, (sk->joint_count + (size_t)n) * sizeof *nj);
        if (!nj)
            return am_fail_nomem(err, "attachment points");
        sk->joints = nj;
        *cap = sk->joint_count + (size_t)n;
    }
    for (int i = 0; i < n; i++) {
        am_joint j;
        memset(&j, 0, sizeof j);
        j.kind = AM_JOINT_ATTACHMENT;
        j.joint_num = 158 + defs[i].id;
        j.name = am_strdup(defs[i].name);
        j.group = am_strdup("Attachment");
        j.support = am_strdup("base");
        j.parent = am_skeleton_find_exact(sk, defs[i].parent); /* mRoot -> -1 */
        j.pos = defs[i].position;
        j.rot_deg = defs[i].rotation;
        /* setQuat(roll, pitch, yaw): Hamilton qx (x) qy (x) qz
         * (docs/reference/viewer-skeleton.md#units-axes-and-rotations) */
        am_quat qx = am_quat_axis_angle(am_v3(1, 0, 0), j.rot_deg.x * AM_DEG2RAD);
        am_quat qy = am_quat_axis_angle(am_v3(0, 1, 0), j.rot_deg.y * AM_DEG2RAD);
        am_quat qz = am_quat_axis_angle(am_v3(0, 0, 1), j.rot_deg.z * AM_DEG2RAD);
        j.rot = am_quat_mul(qx, am_quat_mul(qy, qz));
        j.scale = am_v3(1, 1, 1);
        sk->joints[sk->joint_count++] = j;
        if (!j.name || !j.group || !j.support)
            return am_fail_nomem(err, "attachment points");
    }
    sk->attachment_count = (size_t)n;
    return AM_OK;
}

static void compute_rest(am_skeleton *sk)
{
    for (size_t i = 0; i < sk->joint_count; i++) {
        am_joint *j = &sk->joints[i];
        if (j->parent < 0) {
            j->world_rot = j->rot;
            j->world_pos[AM_FRAME_FILE] = j->pos;
            /* At runtime the root bone (mPelvis) sits at mRoot; Avatar Center too. */
            j->world_pos[AM_FRAME_RUNTIME] = am_v3(0, 0, 0);
            if (j->kind == AM_JOINT_ATTACHMENT)
                j->world_pos[AM_FRAME_FILE] = am_v3(0, 0, 0);
            continue;
        }
        const am_joint *p = &sk->joints[j->parent];
        j->world_rot = am_quat_mul(p->world_rot, j->rot);
        am_vec3 off = am_quat_rotate(p->world_rot, am_v3_mul(j->pos, p->scale));
        for (int f = 0; f < 2; f++)
            j->world_pos[f] = am_v3_add(p->world_pos[f], off);
    }
}

static am_status parse_root_attrs(parse_ctx *pc, xmlNodePtr root)
{
    int line = (int)xmlGetLineNo(root);
    if (xmlStrcmp(root->name, (const xmlChar *)"linden_skeleton") != 0)
        return fail_line(pc, line, "root element is <%s>, expected <linden_skeleton>", (const char *)root->name, "");
    char *ver = attr(root, "version");
    if (!ver || (strcmp(ver, "1.0") != 0 && strcmp(ver, "2.0") != 0)) {
        char v[40];
        snprintf(v, sizeof v, "%.30s", ver ? ver : "(missing)");
        free(ver);
        return fail_line(pc, line, "<linden_skeleton> version is %s; the viewer accepts \"1.0\" or \"2.0\"", v, "");
    }
    snprintf(pc->skel->version, sizeof pc->skel->version, "%s", ver);
    free(ver);
    char *nb = attr(root, "num_bones");
    if (!nb)
        return fail_line(pc, line, "<linden_skeleton> has no num_bones attribute (the viewer requires it)%s%s", "", "");
    char *end;
    long v = strtol(nb, &end, 10);
    if (end == nb || *end || v < 1 || v > 100000) {
        am_status s = fail_line(pc, line, "num_bones \"%.30s\" is not a positive integer%s", nb, "");
        free(nb);
        return s;
    }
    free(nb);
    pc->declared_bones = (size_t)v;
    char *nv = attr(root, "num_collision_volumes");
    pc->declared_volumes = (size_t)-1;
    if (nv) {
        v = strtol(nv, &end, 10);
        if (end == nv || *end || v < 0 || v > 100000) {
            am_status s = fail_line(pc, line, "num_collision_volumes \"%.30s\" is not an integer%s", nv, "");
            free(nv);
            return s;
        }
        pc->declared_volumes = (size_t)v;
        free(nv);
    }
    return AM_OK;
}

static am_status check_duplicates(parse_ctx *pc)
{
    am_skeleton *sk = pc->skel;
    size_t n = sk->bone_count + sk->volume_count;
    /* n is small (~160): quadratic is clearer than a hash here. */
    for (size_t i = 0; i < n; i++)
        for (size_t k = i + 1; k < n; k++)
            if (strcmp(sk->joints[i].name, sk->joints[k].name) == 0) {
                char a[64];
                snprintf(a, sizeof a, "%d", sk->joints[i].line);
                return fail_line(pc, sk->joints[k].line, "duplicate joint name '%s' (first defined on line %s)", sk->joints[k].name, a);
            }
    return AM_OK;
}

am_status am_skeleton_parse(const char *xml, size_t size, const char *source, am_skeleton *out,
                            am_error *err)
{
    memset(out, 0, sizeof *out);
    if (!source)
        source = "avatar_skeleton.xml";
    if (size == 0) {
        am_fail(err, AM_ERR_INVALID, "empty file: expected a <linden_skeleton> document");
        am_error_where(err, "%s", source);
        return AM_ERR_INVALID;
    }
    if (size > (size_t)1 << 30)
        return am_fail(err, AM_ERR_INVALID, "%s: file too large for a skeleton", source);
    /* The viewer's skeleton is 43 KB, 250 elements, 12 levels deep; 255 keeps under libxml2's own 256. */
    const am_xml_rules rules = {.max_depth = 255, .budget_bytes = AM_SKELETON_TREE_BUDGET};
    xmlDocPtr doc;
    int line;
    am_status xs = am_xml_read_at(xml, size, source, &rules, &doc, &line, err);
    if (xs) {
        am_fail(err, xs, "%s", err->msg); /* the place again, with the line */
        am_error_where(err, "%s:%d", source, line);
        return xs;
    }
    parse_ctx pc = {.source = source, .skel = out, .err = err};
    am_status s = parse_root_attrs(&pc, xmlDocGetRootElement(doc));
    if (!s)
        s = walk(&pc, xmlDocGetRootElement(doc), -1, 0);
    xmlFreeDoc(doc);
    if (!s) {
        out->bone_count = out->joint_count;
        if (out->bone_count == 0)
            s = fail_line(&pc, 1, "no <bone> elements%s%s", "", "");
        else if (out->bone_count > pc.declared_bones) {
            char a[32], b[32];
            snprintf(a, sizeof a, "%zu", out->bone_count);
            snprintf(b, sizeof b, "%zu", pc.declared_bones);
            s = fail_line(&pc, 1, "too many bones: %s in the file, num_bones says %s", a, b);
        } else if (pc.declared_volumes != (size_t)-1 && pc.volume_count > pc.declared_volumes) {
            char a[32], b[32];
            snprintf(a, sizeof a, "%zu", pc.volume_count);
            snprintf(b, sizeof b, "%zu", pc.declared_volumes);
            s = fail_line(&pc, 1, "too many collision volumes: %s in the file, num_collision_volumes says %s", a, b);
        }
    }
    size_t cap = pc.cap;
    if (!s && pc.volume_count) {
        size_t need = out->joint_count + pc.volume_count;
        am_joint *nj = realloc(out->joints, need * sizeof *nj);
        if (!nj)
            s = am_fail_nomem(err, "joints");
        else {
            out->joints = nj;
            cap = need;
            memcpy(out->joints + out->joint_count, pc.volumes, pc.volume_count * sizeof *nj);
            out->joint_count = need;
            out->volume_count = pc.volume_count;
            pc.volume_count = 0;
        }
    }
    for (size_t i = 0; i < pc.volume_count; i++)
        free_joint(&pc.volumes[i]);
    free(pc.volumes);
    if (!s) {
        for (size_t i = 0; i < out->joint_count; i++)
            out->joints[i].joint_num = (int)i;
        s = check_duplicates(&pc);
    }
    if (!s)
        s = add_attachments(out, &cap, err);
    if (!s)
        s = build_aliases(out, err);
    if (s) {
        am_skeleton_free(out);
        return s;
    }
    compute_rest(out);
    return AM_OK;
}

static am_status sniff_skeleton(const uint8_t *h, size_t n, am_error *err)
{
    return am_sniff_text(h, n, "<", "an avatar_skeleton.xml (XML)", err);
}

const am_file_format am_skeleton_format = {"a viewer skeleton XML", AM_SKELETON_MAX_FILE_BYTES, sniff_skeleton};

am_status am_skeleton_load(const char *path, am_skeleton *out, am_error *err)
{
    memset(out, 0, sizeof *out);
    uint8_t *data;
    size_t size;
    am_status s = am_read_file_as(path, &am_skeleton_format, &data, &size, err);
    if (s)
        return s;
    s = am_skeleton_parse((const char *)data, size, path, out, err);
    free(data);
    return s;
}

void am_skeleton_free(am_skeleton *skel)
{
    if (!skel)
        return;
    for (size_t i = 0; i < skel->joint_count; i++)
        free_joint(&skel->joints[i]);
    free(skel->joints);
    for (size_t i = 0; i < skel->alias_count; i++)
        free(skel->aliases[i].alias);
    free(skel->aliases);
    memset(skel, 0, sizeof *skel);
}

/* 0 when the file can be opened for reading, else errno ("not found" is only ENOENT). */
static int openable(const char *p)
{
    FILE *f = fopen(p, "rb");
    if (!f)
        return errno ? errno : ENOENT;
    fclose(f);
    return 0;
}

static am_status cannot_use(am_error *err, int e, const char *path, const char *named_by, const char *how)
{
    if (e == ENOENT)
        am_fail(err, AM_ERR_IO, "skeleton file %s not found; %s", named_by, how);
    else
        am_fail(err, AM_ERR_IO, "skeleton file %s cannot be read: %s; %s", named_by, strerror(e), how);
    am_error_where(err, "%s", path);
    return AM_ERR_IO;
}

am_status am_skeleton_locate(const char *explicit_path, char *out, size_t out_size, am_error *err)
{
    const char *how =
        "give the skeleton path (the viewer's avatar_skeleton.xml), or set ANIMESH_SKELETON=FILE, "
        "or ANIMESH_VIEWER_DIR=DIR (the viewer's install folder holding character/avatar_skeleton.xml)";
    int e;
    if (explicit_path && explicit_path[0]) {
        if ((e = openable(explicit_path)))
            return cannot_use(err, e, explicit_path, "(the skeleton path given)", how);
        snprintf(out, out_size, "%s", explicit_path);
        return AM_OK;
    }
    const char *env = getenv("ANIMESH_SKELETON");
    if (env && env[0]) {
        if ((e = openable(env)))
            return cannot_use(err, e, env, "named by ANIMESH_SKELETON", how);
        snprintf(out, out_size, "%s", env);
        return AM_OK;
    }
    const char *dir = getenv("ANIMESH_VIEWER_DIR");
    if (dir && dir[0]) {
        char p[4096];
        snprintf(p, sizeof p, "%s/character/avatar_skeleton.xml", dir);
        if ((e = openable(p)))
            return cannot_use(err, e, p, "under ANIMESH_VIEWER_DIR (character/avatar_skeleton.xml)", how);
        snprintf(out, out_size, "%s", p);
        return AM_OK;
    }
    return am_fail(err, AM_ERR_IO, "no viewer skeleton given: %s", how);
}

int am_skeleton_find_exact(const am_skeleton *skel, const char *name)
{
    if (!name)
        return -1;
    for (size_t i = 0; i < skel->joint_count; i++)
        if (strcmp(skel->joints[i].name, name) == 0)
            return (int)i;
    return -1;
}

int am_skeleton_find(const am_skeleton *skel, const char *name)
{
    if (!name)
        return -1;
    am_alias key = {.alias = (char *)name};
    const am_alias *hit = bsearch(&key, skel->aliases, skel->alias_count, sizeof key, alias_cmp);
    if (hit)
        return hit->joint;
    return am_skeleton_find_exact(skel, name);
}

int am_skeleton_parent(const am_skeleton *skel, int joint)
{
    if (joint < 0 || (size_t)joint >= skel->joint_count)
        return -1;
    return skel->joints[joint].parent;
}

bool am_skeleton_is_ancestor(const am_skeleton *skel, int ancestor, int joint)
{
    if (ancestor < 0 || (size_t)ancestor >= skel->joint_count)
        return false;
    for (int p = am_skeleton_parent(skel, joint); p >= 0; p = skel->joints[p].parent)
        if (p == ancestor)
            return true;
    return false;
}

size_t am_skeleton_closed_set(const am_skeleton *skel, const int *joints, size_t n, int *out)
{
    size_t count = 0;
    /* Mark in `out` temporarily as a flag array would need memory; the skeleton is small,
     * so collect then sort ascending (parents always have smaller indices). */
    for (size_t i = 0; i < n; i++) {
        for (int j = joints[i]; j >= 0 && (size_t)j < skel->joint_count; j = skel->joints[j].parent) {
            bool seen = false;
            for (size_t k = 0; k < count; k++)
                if (out[k] == j) {
                    seen = true;
                    break;
                }
            if (seen)
                break; /* its ancestors are already in */
            out[count++] = j;
        }
    }
    for (size_t i = 1; i < count; i++) {
        int v = out[i];
        size_t k = i;
        while (k > 0 && out[k - 1] > v) {
            out[k] = out[k - 1];
            k--;
        }
        out[k] = v;
    }
    return count;
}

size_t am_skeleton_path(const am_skeleton *skel, int a, int b, int *out)
{
    if (a < 0 || b < 0 || (size_t)a >= skel->joint_count || (size_t)b >= skel->joint_count)
        return 0;
    /* Find the lowest common ancestor (or -1 when the roots differ). */
    int lca = -1;
    for (int x = a; x >= 0 && lca < 0; x = skel->joints[x].parent)
        if (x == b || am_skeleton_is_ancestor(skel, x, b))
            lca = x;
    if (lca < 0)
        return 0;
    size_t n = 0;
    for (int x = a; x != lca; x = skel->joints[x].parent)
        out[n++] = x;
    out[n++] = lca;
    size_t mark = n;
    for (int x = b; x != lca; x = skel->joints[x].parent)
        out[n++] = x;
    /* reverse the b-side so the path reads a .. lca .. b */
    for (size_t i = mark, k = n - 1; i < k; i++, k--) {
        int t = out[i];
        out[i] = out[k];
        out[k] = t;
    }
    return n;
}

am_vec3 am_skeleton_rest_world(const am_skeleton *skel, int joint, am_frame frame)
{
    return skel->joints[joint].world_pos[frame];
}

am_mat4 am_skeleton_rest_matrix(const am_skeleton *skel, int joint, am_frame frame)
{
    const am_joint *j = &skel->joints[joint];
    return am_mat4_from_trs(j->world_pos[frame], j->world_rot, j->scale);
}

am_vec3 am_skeleton_runtime_local_pos(const am_skeleton *skel, int joint)
{
    const am_joint *j = &skel->joints[joint];
    if (j->parent < 0)
        return am_v3(0, 0, 0);
    return j->pos;
}

const char *am_joint_kind_name(am_joint_kind kind)
{
    switch (kind) {
    case AM_JOINT_BONE: return "bone";
    case AM_JOINT_VOLUME: return "collision_volume";
    case AM_JOINT_ATTACHMENT: return "attachment_point";
    }
    return "?";
}

const char *am_frame_name(am_frame frame) { return frame == AM_FRAME_FILE ? "file" : "runtime"; }
