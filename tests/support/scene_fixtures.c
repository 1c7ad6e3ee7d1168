/* Hand-built scenes for the import tests (scene_fixtures.h). */
#include "scene_fixtures.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "test_support.h"

static void *grow(void *p, size_t n, size_t size)
{
    void *q = realloc(p, n * size);
    assert_non_null(q);
    return q;
}

static char *dup(const char *s)
{
    char *d = malloc(strlen(s) + 1);
    assert_non_null(d);
    strcpy(d, s);
    return d;
}

void sf_init(am_scene *s, const char *source, int up, int forward, double unit_m)
{
    memset(s, 0, sizeof *s);
    s->source = dup(source);
    s->base_dir = dup(".");
    s->format = AM_SCENE_FORMAT_GLTF;
    s->declared.up = up;
    s->declared.forward = forward;
    s->declared.unit_m = unit_m;
}

int sf_node(am_scene *s, const char *name, int parent, am_vec3 t, am_quat r, am_vec3 scale)
{
    s->nodes = grow(s->nodes, s->node_count + 1, sizeof *s->nodes);
    am_scene_node *n = &s->nodes[s->node_count];
    memset(n, 0, sizeof *n);
    n->name = dup(name);
    n->parent = parent;
    am_scene_node_set_trs(n, t, r, scale);
    return (int)s->node_count++;
}

void sf_worlds(const am_scene *s, am_mat4 *out)
{
    for (size_t i = 0; i < s->node_count; i++) {
        const am_scene_node *n = &s->nodes[i];
        out[i] = n->parent >= 0 ? am_mat4_mul(&n->local, &out[n->parent]) : n->local;
    }
}

int sf_skin(am_scene *s, const int *joints, size_t n)
{
    am_mat4 *w = malloc(s->node_count * sizeof *w);
    assert_non_null(w);
    sf_worlds(s, w);
    s->skins = grow(s->skins, s->skin_count + 1, sizeof *s->skins);
    am_scene_skin *k = &s->skins[s->skin_count];
    memset(k, 0, sizeof *k);
    k->name = dup("skin");
    k->joint_count = n;
    k->joint_names = calloc(n, sizeof *k->joint_names);
    k->joint_nodes = calloc(n, sizeof *k->joint_nodes);
    k->inverse_binds = calloc(n, sizeof *k->inverse_binds);
    assert_non_null(k->joint_names);
    assert_non_null(k->joint_nodes);
    assert_non_null(k->inverse_binds);
    for (size_t j = 0; j < n; j++) {
        k->joint_names[j] = dup(s->nodes[joints[j]].name);
        k->joint_nodes[j] = joints[j];
        assert_true(am_mat4_inverse(&w[joints[j]], &k->inverse_binds[j]));
    }
    k->has_inverse_binds = true;
    k->bind_shape = am_mat4_identity();
    k->skeleton_root = joints[0];
    free(w);
    return (int)s->skin_count++;
}

int sf_bone_boxes(am_scene *s, int skin, const am_vec3 *ends, const int *blend_parent, double hw, int rings)
{
    const am_scene_skin *k = &s->skins[skin];
    size_t nj = k->joint_count, nv = nj * (size_t)rings * 4, nt = nj * ((size_t)(rings - 1) * 8 + 4);
    s->meshes = grow(s->meshes, s->mesh_count + 1, sizeof *s->meshes);
    am_scene_mesh *m = &s->meshes[s->mesh_count];
    memset(m, 0, sizeof *m);
    m->name = dup("body");
    m->node = -1;
    m->skin = skin;
    m->positions = malloc(3 * nv * sizeof(float));
    m->uvs = calloc(2 * nv, sizeof(float));
    m->influence_start = malloc((nv + 1) * sizeof(size_t));
    m->influences = malloc(2 * nv * sizeof(am_scene_influence));
    m->faces = calloc(1, sizeof *m->faces);
    assert_non_null(m->positions);
    assert_non_null(m->uvs);
    assert_non_null(m->influence_start);
    assert_non_null(m->influences);
    assert_non_null(m->faces);
    m->face_count = 1;
    m->faces[0].material = -1;
    m->faces[0].indices = malloc(3 * nt * sizeof(uint32_t));
    assert_non_null(m->faces[0].indices);
    size_t v = 0, ii = 0, inf = 0;
    for (size_t j = 0; j < nj; j++) {
        am_mat4 rest;
        assert_true(am_mat4_inverse(&k->inverse_binds[j], &rest));
        am_vec3 a = am_mat4_get_translation(&rest), d = am_v3_sub(ends[j], a);
        am_vec3 dir = am_v3_normalize(d);
        am_vec3 pick = fabs(dir.z) < 0.9 ? am_v3(0, 0, 1) : am_v3(1, 0, 0);
        am_vec3 u = am_v3_normalize(am_v3_cross(dir, pick)), w = am_v3_cross(dir, u);
        double h = hw * (1 - 0.04 * (double)(j % 6)); /* no two boxes share a corner */
        size_t first = v;
        for (int r = 0; r < rings; r++) {
            double f = (double)r / (rings - 1);
            am_vec3 c = am_v3_add(a, am_v3_scale(d, f));
            for (int q = 0; q < 4; q++) {
                double su = (q == 0 || q == 3) ? 1 : -1, sw = q < 2 ? 1 : -1;
                am_vec3 p = am_v3_add(c, am_v3_add(am_v3_scale(u, su * h), am_v3_scale(w, sw * h)));
                m->positions[3 * v] = (float)p.x;
                m->positions[3 * v + 1] = (float)p.y;
                m->positions[3 * v + 2] = (float)p.z;
                m->uvs[2 * v] = (float)f;
                m->uvs[2 * v + 1] = (float)q / 4;
                m->influence_start[v] = inf;
                int bp = blend_parent ? blend_parent[j] : -1;
                if (bp >= 0 && f < 0.2) {
                    double wp = 0.5 * (1 - f / 0.2);
                    m->influences[inf++] = (am_scene_influence){(uint32_t)j, (float)(1 - wp)};
                    if (wp > 0)
                        m->influences[inf++] = (am_scene_influence){(uint32_t)bp, (float)wp};
                } else {
                    m->influences[inf++] = (am_scene_influence){(uint32_t)j, 1.0f};
                }
                v++;
            }
        }
        uint32_t *ix = m->faces[0].indices;
        for (int r = 0; r + 1 < rings; r++)
            for (int q = 0; q < 4; q++) {
                uint32_t a0 = (uint32_t)(first + 4 * r + q), a1 = (uint32_t)(first + 4 * r + (q + 1) % 4);
                uint32_t b0 = a0 + 4, b1 = a1 + 4;
                uint32_t t6[6] = {a0, a1, b1, a0, b1, b0};
                memcpy(&ix[ii], t6, sizeof t6);
                ii += 6;
            }
        uint32_t f0 = (uint32_t)first, l0 = (uint32_t)(first + 4 * (rings - 1));
        uint32_t caps[12] = {f0, f0 + 2, f0 + 1, f0, f0 + 3, f0 + 2, l0, l0 + 1, l0 + 2, l0, l0 + 2, l0 + 3};
        memcpy(&ix[ii], caps, sizeof caps);
        ii += 12;
    }
    m->influence_start[v] = inf;
    m->vertex_count = v;
    m->faces[0].index_count = ii;
    return (int)s->mesh_count++;
}

int sf_clip(am_scene *s, const char *name)
{
    s->clips = grow(s->clips, s->clip_count + 1, sizeof *s->clips);
    am_scene_clip *c = &s->clips[s->clip_count];
    memset(c, 0, sizeof *c);
    c->name = dup(name);
    return (int)s->clip_count++;
}

void sf_channel(am_scene *s, int clip, int node, am_scene_path path, am_scene_interp interp, size_t keys,
                const float *times, const float *values)
{
    am_scene_clip *c = &s->clips[clip];
    c->channels = grow(c->channels, c->channel_count + 1, sizeof *c->channels);
    am_scene_channel *ch = &c->channels[c->channel_count++];
    memset(ch, 0, sizeof *ch);
    ch->node = node;
    ch->path = path;
    ch->interp = interp;
    ch->key_count = keys;
    size_t w = (path == AM_SCENE_PATH_ROTATION ? 4 : 3) * (interp == AM_SCENE_INTERP_CUBICSPLINE ? 3 : 1);
    ch->times = malloc(keys * sizeof(float));
    ch->values = malloc(keys * w * sizeof(float));
    assert_non_null(ch->times);
    assert_non_null(ch->values);
    memcpy(ch->times, times, keys * sizeof(float));
    memcpy(ch->values, values, keys * w * sizeof(float));
}

void sf_rot_about(am_scene *s, int clip, int node, am_scene_interp interp, am_vec3 axis, size_t keys,
                  const float *times, const double *deg)
{
    size_t w = interp == AM_SCENE_INTERP_CUBICSPLINE ? 12 : 4, at = w == 12 ? 4 : 0;
    float *vals = calloc(keys * w, sizeof(float));
    assert_non_null(vals);
    am_quat rest = s->nodes[node].rotation;
    for (size_t k = 0; k < keys; k++) {
        am_quat q = am_quat_normalize(am_quat_mul(rest, am_quat_axis_angle(axis, deg[k] * AM_DEG2RAD)));
        float *o = &vals[k * w + at];
        o[0] = (float)q.x;
        o[1] = (float)q.y;
        o[2] = (float)q.z;
        o[3] = (float)q.w;
    }
    sf_channel(s, clip, node, AM_SCENE_PATH_ROTATION, interp, keys, times, vals);
    free(vals);
}
