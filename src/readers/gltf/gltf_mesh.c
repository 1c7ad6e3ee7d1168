/* glTF meshes (gltf.h): one scene mesh per node that instances a mesh, its primitives'
 * vertices one after another, one face per triangle primitive, every JOINTS_n/WEIGHTS_n
 * set merged per vertex. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "readers/gltf/gltf_internal.h"

#define MAX_WEIGHT_SETS 32

enum { MODE_POINTS = 0, MODE_LINES, MODE_LINE_LOOP, MODE_LINE_STRIP, MODE_TRIANGLES, MODE_STRIP, MODE_FAN };

typedef struct mesh_build {
    am_gltf_ctx *c;
    am_scene_mesh *m;
    const am_scene_skin *skin; /* NULL when the instance is not skinned */
    size_t influence_cap;
    size_t influence_count;
} mesh_build;

static int attribute(json_t *attrs, const char *name)
{
    json_t *v = json_object_get(attrs, name);
    return json_is_integer(v) ? (int)json_integer_value(v) : (v ? -2 : -1);
}

/* The index of an attribute as an accessor index, refusing a bad value. */
static am_status attribute_index(am_gltf_ctx *c, json_t *attrs, const char *name, const char *where, int *out)
{
    return am_gltf_get_index(c, attrs, name, am_gltf_count(c, "accessors"), "accessors", false, where, out);
}

/* Highest n with JOINTS_n or WEIGHTS_n, + 1 (0 when none). */
static am_status weight_sets(am_gltf_ctx *c, json_t *attrs, const char *where, size_t *sets)
{
    *sets = 0;
    const char *key;
    json_t *v;
    json_object_foreach(attrs, key, v)
    {
        const char *digits = strncmp(key, "JOINTS_", 7) == 0 ? key + 7 : strncmp(key, "WEIGHTS_", 8) == 0 ? key + 8 : NULL;
        if (!digits || !digits[0])
            continue;
        char *end;
        unsigned long n = strtoul(digits, &end, 10);
        if (*end || digits[0] == '-' || digits[0] == '+')
            continue;
        if (n >= MAX_WEIGHT_SETS)
            return am_gltf_fail(c, "%s.attributes.%s: more than %d JOINTS/WEIGHTS sets", where, key, MAX_WEIGHT_SETS);
        if (n + 1 > *sets)
            *sets = n + 1;
    }
    return AM_OK;
}

static am_status push_influence(mesh_build *b, uint32_t joint, float weight)
{
    if (b->influence_count == b->influence_cap) {
        size_t cap = b->influence_cap ? 2 * b->influence_cap : 1024;
        am_scene_influence *n = realloc(b->m->influences, cap * sizeof *n);
        if (!n)
            return am_fail_nomem(b->c->err, "influences");
        b->m->influences = n;
        b->influence_cap = cap;
    }
    b->m->influences[b->influence_count++] = (am_scene_influence){joint, weight};
    return AM_OK;
}

/* The influences of `count` vertices of one primitive, starting at scene vertex `base`. */
static am_status read_weights(mesh_build *b, json_t *attrs, const char *where, size_t base, size_t count)
{
    am_gltf_ctx *c = b->c;
    size_t sets;
    am_status st = weight_sets(c, attrs, where, &sets);
    if (st)
        return st;
    uint32_t *joints[MAX_WEIGHT_SETS] = {0};
    float *weights[MAX_WEIGHT_SETS] = {0};
    for (size_t s = 0; s < sets && !st; s++) {
        char jn[16], wn[16], what[2][112];
        snprintf(jn, sizeof jn, "JOINTS_%zu", s);
        snprintf(wn, sizeof wn, "WEIGHTS_%zu", s);
        int ja, wa;
        if ((st = attribute_index(c, attrs, jn, where, &ja)) || (st = attribute_index(c, attrs, wn, where, &wa)))
            break;
        if (ja < 0 || wa < 0) {
            st = am_gltf_fail(c, "%s: %s without %s", where, ja < 0 ? wn : jn, ja < 0 ? jn : wn);
            break;
        }
        snprintf(what[0], sizeof what[0], "%s of %s", jn, where);
        snprintf(what[1], sizeof what[1], "%s of %s", wn, where);
        am_gltf_accessor aj, aw;
        if ((st = am_gltf_read_uints(c, (size_t)ja, what[0], GLTF_VEC4,
                                  GLTF_C(GLTF_UNSIGNED_BYTE) | GLTF_C(GLTF_UNSIGNED_SHORT), &aj, &joints[s])) ||
            (st = am_gltf_read_floats(c, (size_t)wa, what[1], GLTF_VEC4,
                                   GLTF_C(GLTF_FLOAT) | GLTF_C(GLTF_UNSIGNED_BYTE) | GLTF_C(GLTF_UNSIGNED_SHORT), &aw,
                                   &weights[s])))
            break;
        if (aw.component_type != GLTF_FLOAT && !aw.normalized)
            st = am_gltf_fail(c, "accessors[%d] (%s): integer weights must be normalized", wa, what[1]);
        else if (aj.count != count || aw.count != count)
            st = am_gltf_fail(c, "%s: %s has %zu and %s %zu elements for %zu vertices", where, jn, aj.count, wn, aw.count,
                           count);
    }
    for (size_t v = 0; v < count && !st; v++) {
        size_t first = b->influence_count;
        for (size_t s = 0; s < sets && !st; s++)
            for (size_t k = 0; k < 4 && !st; k++) {
                uint32_t j = joints[s][4 * v + k];
                float w = weights[s][4 * v + k];
                if (!isfinite(w) || w < 0) {
                    st = am_gltf_fail(c, "%s: WEIGHTS_%zu of vertex %zu is %g (weights are finite and >= 0)", where, s, v,
                                   (double)w);
                    break;
                }
                if (w == 0)
                    continue; /* padding */
                if (j >= b->skin->joint_count) {
                    st = am_gltf_fail(c, "%s: JOINTS_%zu of vertex %zu names joint %u, the skin has %zu joints", where, s, v,
                                   j, b->skin->joint_count);
                    break;
                }
                bool merged = false;
                for (size_t i = first; i < b->influence_count; i++)
                    if (b->m->influences[i].joint == j) {
                        b->m->influences[i].weight += w;
                        merged = true;
                    }
                if (!merged)
                    st = push_influence(b, j, w);
            }
        b->m->influence_start[base + v + 1] = b->influence_count;
    }
    for (size_t s = 0; s < sets; s++) {
        free(joints[s]);
        free(weights[s]);
    }
    return st;
}

/* Triangles of one primitive into face->indices, offset by `base`. */
static am_status read_triangles(am_gltf_ctx *c, json_t *prim, const char *where, int mode, size_t base, size_t count,
                                am_scene_face *face)
{
    int ia;
    am_status st = am_gltf_get_index(c, prim, "indices", am_gltf_count(c, "accessors"), "accessors", false, where, &ia);
    if (st)
        return st;
    uint32_t *idx = NULL;
    size_t n = count;
    if (ia >= 0) {
        char what[112];
        snprintf(what, sizeof what, "indices of %s", where);
        am_gltf_accessor a;
        if ((st = am_gltf_read_uints(c, (size_t)ia, what, GLTF_SCALAR, GLTF_C_UINTS, &a, &idx)))
            return st;
        n = a.count;
        for (size_t i = 0; i < n; i++)
            if (idx[i] >= count) {
                st = am_gltf_fail(c, "%s: index %zu is %u, the primitive has %zu vertices", where, i, idx[i], count);
                free(idx);
                return st;
            }
    }
    size_t tris = mode == MODE_TRIANGLES ? n / 3 : n >= 3 ? n - 2 : 0;
    if (mode == MODE_TRIANGLES && n % 3)
        am_scene_note(c->scene, "%s: %zu indices is not whole triangles: the last %zu ignored", where, n, n % 3);
    face->indices = malloc((tris ? tris : 1) * 3 * sizeof *face->indices);
    if (!face->indices) {
        free(idx);
        return am_fail_nomem(c->err, "face indices");
    }
    size_t out = 0, degenerate = 0;
    for (size_t t = 0; t < tris; t++) {
        size_t k[3];
        if (mode == MODE_TRIANGLES) {
            k[0] = 3 * t, k[1] = 3 * t + 1, k[2] = 3 * t + 2;
        } else if (mode == MODE_STRIP) { /* glTF 2.0 3.7.2.1: odd triangles swap their last two */
            k[0] = t, k[1] = t + 1 + t % 2, k[2] = t + 2 - t % 2;
        } else { /* fan */
            k[0] = t + 1, k[1] = t + 2, k[2] = 0;
        }
        uint32_t v[3];
        for (int j = 0; j < 3; j++)
            v[j] = idx ? idx[k[j]] : (uint32_t)k[j];
        if (mode != MODE_TRIANGLES && (v[0] == v[1] || v[1] == v[2] || v[0] == v[2])) {
            degenerate++;
            continue;
        }
        for (int j = 0; j < 3; j++)
            face->indices[out++] = (uint32_t)(v[j] + base);
    }
    if (degenerate)
        am_scene_note(c->scene, "%s: %zu degenerate strip/fan triangles dropped", where, degenerate);
    face->index_count = out;
    free(idx);
    return AM_OK;
}

/* Copy `count` elements of `width` floats into dst (an attribute's decoded values). */
static am_status read_attribute(am_gltf_ctx *c, int accessor, const char *name, const char *where, unsigned comp_types,
                                size_t width, size_t count, float *dst)
{
    char what[112];
    snprintf(what, sizeof what, "%s of %s", name, where);
    am_gltf_accessor a;
    float *v;
    am_status st = am_gltf_read_floats(c, (size_t)accessor, what, width == 2 ? GLTF_VEC2 : GLTF_VEC3, comp_types, &a, &v);
    if (st)
        return st;
    if (a.count != count)
        st = am_gltf_fail(c, "%s: %zu elements, POSITION has %zu", what, a.count, count);
    else
        memcpy(dst, v, count * width * sizeof(float));
    free(v);
    return st;
}

static bool is_triangles(int mode) { return mode >= MODE_TRIANGLES && mode <= MODE_FAN; }

static am_status read_mode(am_gltf_ctx *c, json_t *prim, const char *where, int *mode)
{
    size_t m;
    am_status st = am_gltf_get_size(c, prim, "mode", MODE_TRIANGLES, MODE_FAN, where, &m);
    *mode = (int)m;
    return st;
}

static am_status build_mesh(am_gltf_ctx *c, size_t node, size_t mesh_index, int skin, am_scene_mesh *m)
{
    char mwhere[32];
    snprintf(mwhere, sizeof mwhere, "meshes[%zu]", mesh_index);
    json_t *mesh = json_array_get(am_gltf_array(c, "meshes"), mesh_index);
    json_t *prims = json_object_get(mesh, "primitives");
    if (!json_is_object(mesh) || !json_is_array(prims) || json_array_size(prims) == 0)
        return am_gltf_fail(c, "%s: not a mesh with primitives", mwhere);
    m->node = c->node_map[node];
    m->skin = skin;
    const char *name = am_gltf_get_string(mesh, "name");
    if (!name[0])
        name = c->scene->nodes[m->node].name;
    char fallback[32];
    if (!name[0]) {
        snprintf(fallback, sizeof fallback, "mesh%zu", mesh_index);
        name = fallback;
    }
    am_status st = am_gltf_strdup(c, name, &m->name);
    if (st)
        return st;
    /* Pass 1: which primitives, how many vertices, which attributes all of them have. */
    size_t np = json_array_size(prims), vertices = 0, faces = 0;
    bool normals = true, uvs = true, any_normals = false, any_uvs = false, any_joints = false;
    for (size_t p = 0; p < np; p++) {
        json_t *prim = json_array_get(prims, p);
        char where[64];
        snprintf(where, sizeof where, "%s.primitives[%zu]", mwhere, p);
        json_t *attrs = json_object_get(prim, "attributes");
        if (!json_is_object(prim) || !json_is_object(attrs))
            return am_gltf_fail(c, "%s: not a primitive with attributes", where);
        int mode, pa;
        size_t count;
        if ((st = read_mode(c, prim, where, &mode)))
            return st;
        if (!is_triangles(mode)) {
            am_scene_note(c->scene, "%s: %s primitive skipped (only triangles are read)", where,
                          mode == MODE_POINTS ? "POINTS" : "LINES");
            continue;
        }
        if ((st = attribute_index(c, attrs, "POSITION", where, &pa)))
            return st;
        if (pa < 0)
            return am_gltf_fail(c, "%s: no POSITION attribute", where);
        if ((st = am_gltf_accessor_count(c, (size_t)pa, "POSITION", &count)))
            return st;
        if (count > (size_t)AM_GLTF_MAX_ACCESSOR_COUNT * 4 - vertices)
            return am_gltf_fail(c, "%s: the mesh has more than %d vertices", where, AM_GLTF_MAX_ACCESSOR_COUNT * 4);
        vertices += count;
        faces++;
        normals = normals && attribute(attrs, "NORMAL") != -1;
        uvs = uvs && attribute(attrs, "TEXCOORD_0") != -1;
        any_normals = any_normals || attribute(attrs, "NORMAL") != -1;
        any_uvs = any_uvs || attribute(attrs, "TEXCOORD_0") != -1;
        any_joints = any_joints || attribute(attrs, "JOINTS_0") != -1;
        if (json_object_get(prim, "targets"))
            am_scene_note(c->scene, "%s: morph targets skipped", where);
    }
    if (skin < 0 && any_joints)
        am_scene_note(c->scene, "%s is instanced by nodes[%zu] without a skin: its joints and weights are ignored",
                      mwhere, node);
    if (faces == 0) {
        am_scene_note(c->scene, "%s (nodes[%zu]) has no triangle primitive: left out", mwhere, node);
        return AM_OK; /* vertex_count 0: the caller drops it */
    }
    m->vertex_count = vertices;
    m->positions = malloc(vertices * 3 * sizeof(float));
    m->normals = normals ? malloc(vertices * 3 * sizeof(float)) : NULL;
    m->uvs = uvs ? malloc(vertices * 2 * sizeof(float)) : NULL;
    m->faces = calloc(faces, sizeof *m->faces);
    if (!m->positions || (normals && !m->normals) || (uvs && !m->uvs) || !m->faces)
        return am_fail_nomem(c->err, "scene mesh");
    mesh_build b = {c, m, skin >= 0 ? &c->scene->skins[skin] : NULL, 0, 0};
    if (b.skin && !(m->influence_start = calloc(vertices + 1, sizeof *m->influence_start)))
        return am_fail_nomem(c->err, "scene mesh influences");
    /* Pass 2: the data. */
    size_t base = 0, without_weights = 0;
    for (size_t p = 0; p < np; p++) {
        json_t *prim = json_array_get(prims, p), *attrs = json_object_get(prim, "attributes");
        char where[64];
        snprintf(where, sizeof where, "%s.primitives[%zu]", mwhere, p);
        int mode, pa, na, ta;
        (void)read_mode(c, prim, where, &mode);
        if (!is_triangles(mode))
            continue;
        size_t count;
        (void)attribute_index(c, attrs, "POSITION", where, &pa);
        (void)am_gltf_accessor_count(c, (size_t)pa, "POSITION", &count);
        /* POSITION: any component type (KHR_mesh_quantization). */
        if ((st = read_attribute(c, pa, "POSITION", where, GLTF_C_ANY, 3, count, m->positions + 3 * base)))
            return st;
        if (normals && ((st = attribute_index(c, attrs, "NORMAL", where, &na)) ||
                        (st = read_attribute(c, na, "NORMAL", where,
                                             GLTF_C(GLTF_FLOAT) | GLTF_C(GLTF_BYTE) | GLTF_C(GLTF_SHORT), 3, count,
                                             m->normals + 3 * base))))
            return st;
        if (uvs) {
            if ((st = attribute_index(c, attrs, "TEXCOORD_0", where, &ta)) ||
                (st = read_attribute(c, ta, "TEXCOORD_0", where, GLTF_C_ANY & ~GLTF_C(GLTF_UNSIGNED_INT), 2, count,
                                     m->uvs + 2 * base)))
                return st;
            for (size_t v = 0; v < count; v++) /* glTF's v runs down the image; the scene's up */
                m->uvs[2 * (base + v) + 1] = 1.0f - m->uvs[2 * (base + v) + 1];
        }
        am_scene_face *face = &m->faces[m->face_count];
        int mat;
        if ((st = am_gltf_get_index(c, prim, "material", am_gltf_count(c, "materials"), "materials", false, where, &mat)))
            return st;
        face->material = mat;
        m->face_count++;
        if ((st = read_triangles(c, prim, where, mode, base, count, face)))
            return st;
        if (b.skin) {
            if (attribute(attrs, "JOINTS_0") == -1) {
                without_weights += count;
                for (size_t v = 0; v < count; v++)
                    m->influence_start[base + v + 1] = b.influence_count;
            } else if ((st = read_weights(&b, attrs, where, base, count))) {
                return st;
            }
        }
        base += count;
    }
    if (without_weights)
        am_scene_note(c->scene, "%s: %zu vertices of skinned primitives have no JOINTS_0/WEIGHTS_0", mwhere,
                      without_weights);
    if (!normals && any_normals)
        am_scene_note(c->scene, "%s: not every primitive has NORMAL: normals dropped", mwhere);
    if (!uvs && any_uvs)
        am_scene_note(c->scene, "%s: not every primitive has TEXCOORD_0: texture coordinates dropped", mwhere);
    if (b.skin && !m->influences && !(m->influences = malloc(sizeof *m->influences)))
        return am_fail_nomem(c->err, "influences");
    return AM_OK;
}

am_status am_gltf_read_meshes(am_gltf_ctx *c)
{
    json_t *nodes = am_gltf_array(c, "nodes");
    size_t meshes = am_gltf_count(c, "meshes"), instances = 0;
    int *by_scene = malloc((c->scene->node_count ? c->scene->node_count : 1) * sizeof *by_scene);
    if (!by_scene)
        return am_fail_nomem(c->err, "glTF meshes");
    for (size_t g = 0; g < c->node_count; g++)
        if (c->node_map[g] >= 0) {
            by_scene[c->node_map[g]] = (int)g;
            instances += json_object_get(json_array_get(nodes, g), "mesh") != NULL;
        }
    am_status st = AM_OK;
    if (instances && !(c->scene->meshes = calloc(instances, sizeof *c->scene->meshes)))
        st = am_fail_nomem(c->err, "scene meshes");
    for (size_t i = 0; !st && i < c->scene->node_count; i++) {
        size_t g = (size_t)by_scene[i];
        json_t *obj = json_array_get(nodes, g);
        if (!json_object_get(obj, "mesh"))
            continue;
        char where[32];
        snprintf(where, sizeof where, "nodes[%zu]", g);
        int mesh, skin;
        if ((st = am_gltf_get_index(c, obj, "mesh", meshes, "meshes", true, where, &mesh)) ||
            (st = am_gltf_get_index(c, obj, "skin", c->scene->skin_count, "skins", false, where, &skin)))
            break;
        am_scene_mesh *m = &c->scene->meshes[c->scene->mesh_count++];
        m->skin = -1;
        m->node = -1;
        st = build_mesh(c, g, (size_t)mesh, skin, m);
        if (!st && m->vertex_count == 0) {
            free(m->name);
            memset(m, 0, sizeof *m);
            c->scene->mesh_count--;
        }
    }
    free(by_scene);
    return st;
}
