/* glTF nodes (gltf.h): which scene, the node forest checked (one parent each, scene roots
 * without parents), scene nodes parents first, and each node's rest transform. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "readers/gltf/gltf_internal.h"

/* The glTF node indices the scene shows, as roots: the default scene, scene 0, or every
 * node without a parent. */
static am_status scene_roots(am_gltf_ctx *c, const int *parent, size_t **roots, size_t *count)
{
    *roots = NULL;
    *count = 0;
    size_t scenes = am_gltf_count(c, "scenes");
    int chosen = -1;
    am_status st = am_gltf_get_index(c, c->root, "scene", scenes, "scenes", false, "scene", &chosen);
    if (st)
        return st;
    if (chosen < 0 && scenes > 0) {
        chosen = 0;
        if (scenes > 1)
            am_scene_note(c->scene, "no default 'scene': scene 0 of %zu read", scenes);
    }
    size_t *r = malloc((c->node_count ? c->node_count : 1) * sizeof *r);
    if (!r)
        return am_fail_nomem(c->err, "glTF scene roots");
    size_t n = 0;
    if (chosen >= 0) {
        char where[32];
        snprintf(where, sizeof where, "scenes[%d]", chosen);
        json_t *sc = json_array_get(am_gltf_array(c, "scenes"), (size_t)chosen);
        json_t *list = json_object_get(sc, "nodes");
        if (list && !json_is_array(list)) {
            free(r);
            return am_gltf_fail(c, "%s.nodes: not an array", where);
        }
        for (size_t i = 0; i < json_array_size(list); i++) {
            json_t *e = json_array_get(list, i);
            json_int_t v = json_is_integer(e) ? json_integer_value(e) : -1;
            if (v < 0 || (uint64_t)v >= c->node_count) {
                free(r);
                return am_gltf_fail(c, "%s.nodes[%zu]: not a node index (the file has %zu nodes)", where, i,
                                 c->node_count);
            }
            if (parent[v] >= 0) {
                free(r);
                return am_gltf_fail(c, "%s.nodes[%zu]: node %lld is a child of node %d, not a root", where, i,
                                 (long long)v, parent[v]);
            }
            for (size_t k = 0; k < n; k++)
                if (r[k] == (size_t)v) {
                    free(r);
                    return am_gltf_fail(c, "%s.nodes: node %lld is listed twice", where, (long long)v);
                }
            r[n++] = (size_t)v;
        }
    } else {
        for (size_t i = 0; i < c->node_count; i++)
            if (parent[i] < 0)
                r[n++] = i;
        if (c->node_count)
            am_scene_note(c->scene, "no scenes: every root node (%zu) read", n);
    }
    *roots = r;
    *count = n;
    return AM_OK;
}

static am_status node_transform(am_gltf_ctx *c, json_t *obj, size_t index, am_scene_node *out)
{
    char where[32];
    snprintf(where, sizeof where, "nodes[%zu]", index);
    json_t *jm = json_object_get(obj, "matrix");
    if (jm) {
        double m[16];
        am_status st = am_gltf_get_numbers(c, obj, "matrix", 16, where, m);
        if (st)
            return st;
        if (json_object_get(obj, "translation") || json_object_get(obj, "rotation") || json_object_get(obj, "scale"))
            am_scene_note(c->scene, "%s has both a matrix and TRS: the matrix is used", where);
        /* glTF's column-major array of a column-vector matrix is the LL layout's row-major
         * array of the row-vector matrix: element k goes to m[k] (translation at 12..14). */
        am_mat4 local;
        for (int k = 0; k < 16; k++)
            local.m[k] = m[k];
        for (int k = 0; k < 16; k++)
            if (!isfinite(local.m[k]))
                return am_gltf_fail(c, "%s.matrix[%d]: not a finite number", where, k);
        am_scene_node_set_local(out, &local);
        if (!out->has_trs)
            am_scene_note(c->scene, "%s: its matrix is not a plain translation/rotation/scale (shear): it cannot "
                          "be animated", where);
        return AM_OK;
    }
    double t[3] = {0, 0, 0}, r[4] = {0, 0, 0, 1}, s[3] = {1, 1, 1};
    am_status st;
    if ((st = am_gltf_get_numbers(c, obj, "translation", 3, where, t)) ||
        (st = am_gltf_get_numbers(c, obj, "rotation", 4, where, r)) || (st = am_gltf_get_numbers(c, obj, "scale", 3, where, s)))
        return st;
    double len = sqrt(r[0] * r[0] + r[1] * r[1] + r[2] * r[2] + r[3] * r[3]);
    if (!(len > 1e-6) || !isfinite(len))
        return am_gltf_fail(c, "%s.rotation: (%g, %g, %g, %g) is not a rotation (zero length)", where, r[0], r[1], r[2],
                         r[3]);
    am_scene_node_set_trs(out, am_v3(t[0], t[1], t[2]), (am_quat){r[0], r[1], r[2], r[3]}, am_v3(s[0], s[1], s[2]));
    for (int k = 0; k < 16; k++)
        if (!isfinite(out->local.m[k]))
            return am_gltf_fail(c, "%s: its transform is not finite (translation, rotation or scale out of range)", where);
    return AM_OK;
}

am_status am_gltf_read_nodes(am_gltf_ctx *c)
{
    json_t *nodes = am_gltf_array(c, "nodes");
    c->node_count = nodes ? json_array_size(nodes) : 0;
    if (c->node_count > AM_GLTF_MAX_NODES)
        return am_gltf_fail(c, "nodes: %zu nodes is over the limit of %d", c->node_count, AM_GLTF_MAX_NODES);
    size_t n = c->node_count ? c->node_count : 1;
    int *parent = malloc(n * sizeof *parent);
    c->node_map = malloc(n * sizeof *c->node_map);
    size_t *stack = malloc(n * sizeof *stack);
    if (!parent || !c->node_map || !stack) {
        free(parent);
        free(stack);
        return am_fail_nomem(c->err, "glTF nodes");
    }
    am_status st = AM_OK;
    for (size_t i = 0; i < c->node_count; i++)
        parent[i] = c->node_map[i] = -1;
    /* Parents from `children`: a node listed twice, or its own child, is refused. */
    for (size_t i = 0; i < c->node_count && !st; i++) {
        json_t *obj = json_array_get(nodes, i);
        if (!json_is_object(obj)) {
            st = am_gltf_fail(c, "nodes[%zu]: not an object", i);
            break;
        }
        json_t *kids = json_object_get(obj, "children");
        if (kids && !json_is_array(kids))
            st = am_gltf_fail(c, "nodes[%zu].children: not an array", i);
        for (size_t k = 0; !st && k < json_array_size(kids); k++) {
            json_t *e = json_array_get(kids, k);
            json_int_t v = json_is_integer(e) ? json_integer_value(e) : -1;
            if (v < 0 || (uint64_t)v >= c->node_count)
                st = am_gltf_fail(c, "nodes[%zu].children[%zu]: not a node index (the file has %zu nodes)", i, k,
                               c->node_count);
            else if ((size_t)v == i)
                st = am_gltf_fail(c, "nodes[%zu].children: the node lists itself", i);
            else if (parent[v] >= 0)
                st = am_gltf_fail(c, "nodes[%lld] is a child of both nodes[%d] and nodes[%zu] (glTF nodes have one parent)",
                               (long long)v, parent[v], i);
            else
                parent[v] = (int)i;
        }
    }
    size_t *roots = NULL, root_count = 0;
    if (!st)
        st = scene_roots(c, parent, &roots, &root_count);
    /* Depth first from each root, parents before children, with an explicit stack (a
     * hostile file may nest 65,536 deep). With one parent each and roots without parents,
     * nothing reachable can be a cycle. */
    size_t order = 0;
    int *list = NULL;
    if (!st && !(list = malloc(n * sizeof *list)))
        st = am_fail_nomem(c->err, "glTF nodes");
    for (size_t r = 0; !st && r < root_count; r++) {
        size_t top = 0;
        stack[top++] = roots[r];
        while (top > 0) {
            size_t g = stack[--top];
            c->node_map[g] = (int)order;
            list[order++] = (int)g;
            json_t *kids = json_object_get(json_array_get(nodes, g), "children");
            for (size_t k = json_array_size(kids); k-- > 0;)
                stack[top++] = (size_t)json_integer_value(json_array_get(kids, k));
        }
    }
    free(stack);
    free(roots);
    if (!st && order) {
        c->scene->nodes = calloc(order, sizeof *c->scene->nodes);
        if (!c->scene->nodes)
            st = am_fail_nomem(c->err, "scene nodes");
        else
            c->scene->node_count = order;
    }
    for (size_t i = 0; !st && i < order; i++) {
        size_t g = (size_t)list[i];
        json_t *obj = json_array_get(nodes, g);
        am_scene_node *sn = &c->scene->nodes[i];
        sn->parent = parent[g] >= 0 ? c->node_map[parent[g]] : -1;
        sn->has_file_index = true; /* "#N" in messages and maps is the file's nodes[N] */
        sn->file_index = (int)g;
        if ((st = am_gltf_strdup(c, am_gltf_get_string(obj, "name"), &sn->name)))
            break;
        st = node_transform(c, obj, g, sn);
    }
    if (!st && order < c->node_count)
        am_scene_note(c->scene, "%zu of %zu nodes are not in the scene read and are left out", c->node_count - order,
                      c->node_count);
    free(list);
    free(parent);
    return st;
}
