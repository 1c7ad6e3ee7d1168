#include "skeleton/jointmap.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "core/io.h"
#include "core/json_text.h"
#include "core/notes.h"

void am_joint_map_free(am_joint_map *map)
{
    if (!map)
        return;
    for (size_t i = 0; i < map->count; i++) {
        free(map->entries[i].rig_name);
        free(map->entries[i].stock_name);
    }
    free(map->entries);
    for (size_t i = 0; i < map->parent_count; i++) {
        free(map->parents[i].child);
        free(map->parents[i].parent);
    }
    free(map->parents);
    free(map->source);
    memset(map, 0, sizeof *map);
}

static am_status add_parent(am_joint_map *map, const char *child, const char *parent, am_error *err)
{
    am_rig_parent *np = realloc(map->parents, (map->parent_count + 1) * sizeof *np);
    if (!np)
        return am_fail_nomem(err, "rig parents");
    map->parents = np;
    am_rig_parent *p = &map->parents[map->parent_count];
    p->child = am_strdup(child);
    p->parent = am_strdup(parent);
    if (!p->child || !p->parent) {
        free(p->child);
        free(p->parent);
        return am_fail_nomem(err, "rig parents");
    }
    map->parent_count++;
    return AM_OK;
}

static am_status read_parents_object(am_joint_map *map, json_t *obj, const char *source, am_error *err)
{
    const char *key;
    json_t *val;
    json_object_foreach(obj, key, val) {
        if (!json_is_string(val)) {
            am_fail(err, AM_ERR_INVALID, "rig_parents['%s'] must be a string (the rig parent's name)", key);
            am_error_where(err, "%s", source);
            return AM_ERR_INVALID;
        }
        am_status s = add_parent(map, key, json_string_value(val), err);
        if (s)
            return s;
    }
    return AM_OK;
}

static json_t *load_json(const char *text, size_t size, const char *source, am_error *err)
{
    json_t *root = am_json_load_text(text, size, 0, AM_JOINT_MAP_TREE_BUDGET, source, err);
    if (!root)
        return NULL;
    if (!json_is_object(root)) {
        json_decref(root);
        am_fail(err, AM_ERR_INVALID, "top level must be a JSON object");
        am_error_where(err, "%s", source);
        return NULL;
    }
    return root;
}

am_status am_joint_map_parse(const char *json, size_t size, const char *source, am_joint_map *out,
                             am_error *err)
{
    memset(out, 0, sizeof *out);
    json_t *root = load_json(json, size, source, err);
    if (!root)
        return AM_ERR_INVALID;
    am_status s = AM_OK;
    json_t *joints = json_object_get(root, "joints");
    if (!json_is_object(joints) || json_object_size(joints) == 0) {
        s = am_fail(err, AM_ERR_INVALID,
                    "field 'joints' must be a non-empty object {\"rig_joint\": \"mStockName\", ...}");
        am_error_where(err, "%s", source);
        goto done;
    }
    out->entries = calloc(json_object_size(joints), sizeof *out->entries);
    if (!out->entries) {
        s = am_fail_nomem(err, "joint map");
        goto done;
    }
    const char *key;
    json_t *val;
    json_object_foreach(joints, key, val) {
        if (!json_is_string(val) || json_string_length(val) == 0) {
            s = am_fail(err, AM_ERR_INVALID, "joints['%s'] must be a stock joint name (a string)", key);
            am_error_where(err, "%s", source);
            goto done;
        }
        am_joint_map_entry *e = &out->entries[out->count];
        e->rig_name = am_strdup(key);
        e->stock_name = am_strdup(json_string_value(val));
        out->count++;
        if (!e->rig_name || !e->stock_name) {
            s = am_fail_nomem(err, "joint map");
            goto done;
        }
    }
    json_t *parents = json_object_get(root, "rig_parents");
    if (parents) {
        if (!json_is_object(parents)) {
            s = am_fail(err, AM_ERR_INVALID, "field 'rig_parents' must be an object {\"child\": \"parent\"}");
            am_error_where(err, "%s", source);
            goto done;
        }
        s = read_parents_object(out, parents, source, err);
    }
    if (!s && source && !(out->source = strdup(source)))
        s = am_fail_nomem(err, "joint map");
done:
    json_decref(root);
    if (s)
        am_joint_map_free(out);
    return s;
}

static am_status sniff_map(const uint8_t *h, size_t n, am_error *err)
{
    return am_sniff_text(h, n, "{", "a joint map (a JSON object)", err);
}

static am_status sniff_rig_parents(const uint8_t *h, size_t n, am_error *err)
{
    return am_sniff_text(h, n, "{", "a rig JSON (an object)", err);
}

const am_file_format am_joint_map_format = {"a joint map JSON", AM_JOINT_MAP_MAX_FILE_BYTES, sniff_map};
/* --rig takes a whole rig JSON (or just its parents): the rig's limit */
static const am_file_format rig_parents_format = {"a rig JSON", (size_t)256 << 20, sniff_rig_parents};

am_status am_joint_map_load(const char *path, am_joint_map *out, am_error *err)
{
    memset(out, 0, sizeof *out);
    uint8_t *data;
    size_t size;
    am_status s = am_read_file_as(path, &am_joint_map_format, &data, &size, err);
    if (s)
        return s;
    s = am_joint_map_parse((const char *)data, size, path, out, err);
    free(data);
    return s;
}

am_status am_joint_map_load_rig_parents(am_joint_map *map, const char *path, am_error *err)
{
    uint8_t *data;
    size_t size;
    am_status s = am_read_file_as(path, &rig_parents_format, &data, &size, err);
    if (s)
        return s;
    json_t *root = load_json((const char *)data, size, path, err);
    free(data);
    if (!root)
        return AM_ERR_INVALID;
    json_t *parents = json_object_get(root, "rig_parents");
    json_t *joints = json_object_get(root, "joints");
    if (json_is_object(parents)) {
        s = read_parents_object(map, parents, path, err);
    } else if (json_is_array(joints)) {
        size_t i;
        json_t *j;
        json_array_foreach(joints, i, j) {
            const char *name = json_string_value(json_object_get(j, "name"));
            const char *parent = json_string_value(json_object_get(j, "parent"));
            if (!name) {
                s = am_fail(err, AM_ERR_INVALID, "joints[%zu] has no string 'name'", i);
                am_error_where(err, "%s", path);
                break;
            }
            if (parent && (s = add_parent(map, name, parent, err)))
                break;
        }
    } else {
        s = am_fail(err, AM_ERR_INVALID,
                    "rig file has neither 'rig_parents' {child: parent} nor 'joints' [{name, parent}]");
        am_error_where(err, "%s", path);
    }
    json_decref(root);
    return s;
}

static const am_joint_map_entry *find_entry(const am_joint_map *map, const char *rig_name)
{
    for (size_t i = 0; i < map->count; i++)
        if (strcmp(map->entries[i].rig_name, rig_name) == 0)
            return &map->entries[i];
    return NULL;
}

static const char *rig_parent_of(const am_joint_map *map, const char *rig_name)
{
    for (size_t i = 0; i < map->parent_count; i++)
        if (strcmp(map->parents[i].child, rig_name) == 0)
            return map->parents[i].parent;
    return NULL;
}

int am_joint_map_target(const am_joint_map *map, const am_skeleton *skel, const char *rig_name)
{
    const am_joint_map_entry *e = find_entry(map, rig_name);
    return e ? am_skeleton_find(skel, e->stock_name) : -1;
}

static am_status report_add(am_joint_map_report *r, am_error *err, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static am_status report_add(am_joint_map_report *r, am_error *err, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    am_status s = am_notes_vadd(&r->problems, &r->count, 512, "report", err, fmt, ap);
    va_end(ap);
    return s;
}

static const char *parent_name(const am_skeleton *skel, int j)
{
    int p = am_skeleton_parent(skel, j);
    return p >= 0 ? skel->joints[p].name : "(none: the root)";
}

am_status am_joint_map_check(const am_joint_map *map, const am_skeleton *skel, am_joint_map_report *r,
                             am_error *err)
{
    memset(r, 0, sizeof *r);
    am_status s = AM_OK;
    int *targets = calloc(map->count + 1, sizeof *targets);
    int *closed = calloc(skel->joint_count + 1, sizeof *closed);
    if (!targets || !closed) {
        free(targets);
        free(closed);
        return am_fail_nomem(err, "map check");
    }
    /* 1. every target exists in the viewer's skeleton */
    for (size_t i = 0; i < map->count && !s; i++) {
        targets[i] = am_skeleton_find(skel, map->entries[i].stock_name);
        if (targets[i] < 0)
            s = report_add(r, err, "joints['%s']: unknown joint '%s': not in avatar_skeleton.xml",
                           map->entries[i].rig_name, map->entries[i].stock_name);
    }
    /* 2. one rig joint per stock joint (aliases resolve to the same joint) */
    for (size_t i = 0; i < map->count && !s; i++) {
        if (targets[i] < 0)
            continue;
        for (size_t k = 0; k < i && !s; k++)
            if (targets[k] == targets[i]) {
                s = report_add(r, err, "joints['%s'] and joints['%s'] both map to stock joint '%s'",
                               map->entries[k].rig_name, map->entries[i].rig_name, skel->joints[targets[i]].name);
                break;
            }
    }
    /* 3. each rig chain is a chain in the viewer's hierarchy (docs/reference/lessons.md#rule-6): walk up
     * the rig's parents to the nearest mapped ancestor; its target must be a viewer
     * ancestor of the child's target. */
    for (size_t i = 0; i < map->count && !s; i++) {
        if (targets[i] < 0)
            continue;
        const char *p = rig_parent_of(map, map->entries[i].rig_name);
        size_t guard = 0;
        while (p && !find_entry(map, p) && guard++ < map->parent_count)
            p = rig_parent_of(map, p);
        if (guard > map->parent_count) {
            s = report_add(r, err, "rig parents of '%s' form a cycle", map->entries[i].rig_name);
            break;
        }
        if (!p)
            continue;
        int pt = am_joint_map_target(map, skel, p);
        if (pt < 0)
            continue; /* already reported as unknown */
        r->chains_checked++;
        if (!am_skeleton_is_ancestor(skel, pt, targets[i])) {
            const am_joint *a = &skel->joints[pt], *b = &skel->joints[targets[i]];
            /* Name what is wrong: a reversed chain is not a pair of siblings. */
            const char *why = am_skeleton_is_ancestor(skel, targets[i], pt)
                                  ? "the chain runs backwards: a rotation on the rig parent would not carry the "
                                    "child, and the child would carry the parent"
                                  : "siblings in the viewer's skeleton do not move together";
            s = report_add(r, err,
                           "rig chain '%s' -> '%s' maps to '%s' -> '%s', which is not ancestor -> "
                           "descendant in the viewer's skeleton ('%s' has viewer parent '%s', '%s' has "
                           "viewer parent '%s'): %s",
                           p, map->entries[i].rig_name, a->name, b->name, a->name,
                           parent_name(skel, pt), b->name, parent_name(skel, targets[i]), why);
        }
    }
    /* 4. the 110-joint limit counts the skin's joints: the mapped joints plus every
     * missing viewer ancestor the skin must append. */
    if (!s) {
        size_t valid = 0;
        for (size_t i = 0; i < map->count; i++)
            if (targets[i] >= 0)
                targets[valid++] = targets[i];
        int *uniq = calloc(valid + 1, sizeof *uniq);
        if (!uniq) {
            s = am_fail_nomem(err, "map check");
        } else {
            size_t nu = 0;
            for (size_t i = 0; i < valid; i++) {
                bool seen = false;
                for (size_t k = 0; k < nu; k++)
                    seen = seen || uniq[k] == targets[i];
                if (!seen)
                    uniq[nu++] = targets[i];
            }
            r->stock_joints = nu;
            r->closed_joints = am_skeleton_closed_set(skel, uniq, nu, closed);
            free(uniq);
            if (r->closed_joints > AM_MAX_JOINTS_PER_MESH)
                s = report_add(r, err,
                               "too many joints for one mesh: %zu stock joints mapped, %zu with their "
                               "viewer ancestors; the viewer allows at most %d",
                               r->stock_joints, r->closed_joints, AM_MAX_JOINTS_PER_MESH);
        }
    }
    free(targets);
    free(closed);
    if (s)
        am_joint_map_report_free(r);
    return s;
}

void am_joint_map_report_free(am_joint_map_report *r)
{
    if (!r)
        return;
    for (size_t i = 0; i < r->count; i++)
        free(r->problems[i]);
    free(r->problems);
    memset(r, 0, sizeof *r);
}
