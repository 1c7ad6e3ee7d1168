/* glTF skins (gltf.h): joints as scene nodes, inverse binds, the skeleton root. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "readers/gltf/gltf_internal.h"

static am_status read_skin(am_gltf_ctx *c, size_t index, json_t *obj, void *item)
{
    am_scene_skin *k = item;
    char where[32];
    snprintf(where, sizeof where, "skins[%zu]", index);
    k->bind_shape = am_mat4_identity();
    k->skeleton_root = -1;
    am_status st = am_gltf_strdup(c, am_gltf_get_string(obj, "name"), &k->name);
    if (st)
        return st;
    json_t *joints = json_object_get(obj, "joints");
    size_t n = json_is_array(joints) ? json_array_size(joints) : 0;
    if (n == 0)
        return am_gltf_fail(c, "%s.joints: missing or empty", where);
    if (n > c->node_count)
        return am_gltf_fail(c, "%s.joints: %zu joints but the file has %zu nodes", where, n, c->node_count);
    k->joint_names = calloc(n, sizeof *k->joint_names);
    k->joint_nodes = malloc(n * sizeof *k->joint_nodes);
    k->inverse_binds = malloc(n * sizeof *k->inverse_binds);
    if (!k->joint_names || !k->joint_nodes || !k->inverse_binds)
        return am_fail_nomem(c->err, "scene skin");
    k->joint_count = n;
    json_t *nodes = am_gltf_array(c, "nodes");
    size_t outside = 0;
    int *seen = malloc(c->node_count * sizeof *seen); /* node -> joint, to refuse a repeat */
    if (!seen)
        return am_fail_nomem(c->err, "scene skin");
    for (size_t g = 0; g < c->node_count; g++)
        seen[g] = -1;
    for (size_t j = 0; j < n; j++) {
        json_t *e = json_array_get(joints, j);
        json_int_t g = json_is_integer(e) ? json_integer_value(e) : -1;
        if (g < 0 || (uint64_t)g >= c->node_count) {
            free(seen);
            return am_gltf_fail(c, "%s.joints[%zu]: not a node index (the file has %zu nodes)", where, j, c->node_count);
        }
        if (seen[g] >= 0) {
            int first = seen[g];
            free(seen);
            return am_gltf_fail(c, "%s.joints: node %lld is listed twice (joints %d and %zu)", where, (long long)g, first,
                             j);
        }
        seen[g] = (int)j;
        k->joint_nodes[j] = c->node_map[g];
        outside += k->joint_nodes[j] < 0;
        const char *name = am_gltf_get_string(json_array_get(nodes, (size_t)g), "name");
        char fallback[32];
        if (!name[0]) {
            snprintf(fallback, sizeof fallback, "node%lld", (long long)g);
            name = fallback;
        }
        if ((st = am_gltf_strdup(c, name, &k->joint_names[j]))) {
            free(seen);
            return st;
        }
        k->inverse_binds[j] = am_mat4_identity();
    }
    free(seen);
    if (outside)
        am_scene_note(c->scene, "%s: %zu joints are not in the scene read: they keep their bind pose", where, outside);
    int skel;
    if ((st = am_gltf_get_index(c, obj, "skeleton", c->node_count, "nodes", false, where, &skel)))
        return st;
    k->skeleton_root = skel >= 0 ? c->node_map[skel] : -1;
    int ibm;
    if ((st = am_gltf_get_index(c, obj, "inverseBindMatrices", am_gltf_count(c, "accessors"), "accessors", false, where,
                             &ibm)))
        return st;
    if (ibm < 0)
        return AM_OK; /* glTF: identity matrices */
    char what[64];
    snprintf(what, sizeof what, "inverseBindMatrices of %s", where);
    am_gltf_accessor a;
    float *m;
    if ((st = am_gltf_read_floats(c, (size_t)ibm, what, GLTF_MAT4, GLTF_C(GLTF_FLOAT), &a, &m)))
        return st;
    if (a.count < n) {
        free(m);
        return am_gltf_fail(c, "%s: accessors[%d] has %zu matrices for %zu joints", what, ibm, a.count, n);
    }
    if (a.count > n)
        am_scene_note(c->scene, "%s: %zu matrices for %zu joints (the rest ignored)", what, a.count, n);
    for (size_t j = 0; j < n; j++) {
        for (int e = 0; e < 16; e++) {
            double v = m[16 * j + (size_t)e];
            if (!isfinite(v)) {
                free(m);
                return am_gltf_fail(c, "%s: matrix %zu (joint '%s') element %d is not a finite number", what, j,
                                 k->joint_names[j], e);
            }
            /* Column-major glTF = LL layout (gltf.h). */
            k->inverse_binds[j].m[e] = v;
        }
    }
    free(m);
    k->has_inverse_binds = true;
    return AM_OK;
}

am_status am_gltf_read_skins(am_gltf_ctx *c)
{
    return am_gltf_read_list(c, "skins", sizeof(am_scene_skin), (void **)&c->scene->skins, &c->scene->skin_count,
                          read_skin);
}
