/* Rigged glTF fixtures (gltf_fixtures.h): builders, frame conversion, the writer, and the
 * independent pose evaluation the importer is checked against. */
#define _XOPEN_SOURCE 700 /* nftw */
#include "gltf_fixtures.h"

#include <ftw.h>
#include <stdio.h> /* before jpeglib.h */
#include <jpeglib.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "readers/scene_load.h"
#include "test_support.h"
#include "core/base64.h"

static void *xcalloc(size_t n, size_t size)
{
    void *p = calloc(n ? n : 1, size);
    if (!p)
        fail_msg("out of memory in gltf_fixtures");
    return p;
}

static size_t path_width(am_scene_path p) { return p == AM_SCENE_PATH_ROTATION ? 4 : 3; }

static size_t channel_floats(const am_gf_channel *c)
{
    return c->key_count * path_width(c->path) * (c->interp == AM_SCENE_INTERP_CUBICSPLINE ? 3 : 1);
}

void am_gf_model_free(am_gf_model *m)
{
    free(m->nodes);
    free(m->joints);
    free(m->positions);
    free(m->normals);
    free(m->uvs);
    free(m->indices);
    free(m->influences);
    for (size_t c = 0; m->clips && c < m->clip_count; c++) {
        for (size_t h = 0; h < m->clips[c].channel_count; h++) {
            free(m->clips[c].channels[h].times);
            free(m->clips[c].channels[h].values);
        }
        free(m->clips[c].channels);
    }
    free(m->clips);
    memset(m, 0, sizeof *m);
}

static void set_node(am_gf_node *n, const char *name, int parent, am_vec3 t, am_quat r)
{
    snprintf(n->name, sizeof n->name, "%s", name);
    n->parent = parent;
    n->t = t;
    n->r = r;
    n->s = am_v3(1, 1, 1);
}

static void put_quat(float *dst, am_quat q)
{
    dst[0] = (float)q.x, dst[1] = (float)q.y, dst[2] = (float)q.z, dst[3] = (float)q.w;
}

/* The mesh arrays, zeroed: 2 influences per vertex. */
static void alloc_mesh(am_gf_model *m, size_t vertices, size_t indices)
{
    m->vertex_count = vertices;
    m->index_count = indices;
    m->positions = xcalloc(3 * vertices, sizeof(float));
    m->normals = xcalloc(3 * vertices, sizeof(float));
    m->uvs = xcalloc(2 * vertices, sizeof(float));
    m->indices = xcalloc(indices, sizeof(uint32_t));
    m->influence_count = 2;
    m->influences = xcalloc(2 * vertices, sizeof *m->influences);
}

static am_gf_clip *new_clip(am_gf_model *m, const char *name, size_t max_channels)
{
    m->clip_count = 1;
    m->clips = xcalloc(1, sizeof *m->clips);
    snprintf(m->clips[0].name, sizeof m->clips[0].name, "%s", name);
    m->clips[0].channels = xcalloc(max_channels, sizeof *m->clips[0].channels);
    return &m->clips[0];
}

static am_gf_channel *new_channel(am_gf_clip *clip, int node, am_scene_path path, am_scene_interp interp, size_t keys)
{
    am_gf_channel *c = &clip->channels[clip->channel_count++];
    c->node = node;
    c->path = path;
    c->interp = interp;
    c->key_count = keys;
    c->times = xcalloc(keys, sizeof(float));
    c->values = xcalloc(channel_floats(c), sizeof(float));
    return c;
}

/* --- the bend box ------------------------------------------------------------------ */

static double smoothstep01(double u)
{
    u = u < 0 ? 0 : u > 1 ? 1 : u;
    return u * u * (3 - 2 * u);
}

void am_gf_bendbox(am_gf_model *m, am_scene_interp interp)
{
    memset(m, 0, sizeof *m);
    snprintf(m->name, sizeof m->name, "bendbox");
    m->height_m = 4.0; /* the largest extent */
    for (int k = 0; k < 4; k++)
        m->base_color[k] = k == 3 ? 1.0 : 0.8;
    m->node_count = 2;
    m->nodes = xcalloc(2, sizeof *m->nodes);
    am_quat bend_rest = am_quat_axis_angle(am_v3(0, 0, 1), -AM_PI / 2); /* its Y axis along +X */
    set_node(&m->nodes[0], "root", -1, am_v3(0, 0, 0), am_quat_identity());
    set_node(&m->nodes[1], "bend", 0, am_v3(0, 0.5, 0), bend_rest);
    m->joint_count = 2;
    m->joints = xcalloc(2, sizeof *m->joints);
    m->joints[0] = 0;
    m->joints[1] = 1;
    /* 17 rings of 4 corners along x, then the two end caps. */
    const int rings = 17;
    const double cy[4] = {0, 1, 1, 0}, cz[4] = {-1, -1, 1, 1};
    alloc_mesh(m, (size_t)rings * 4, (size_t)(rings - 1) * 4 * 6 + 12);
    for (int r = 0; r < rings; r++)
        for (int k = 0; k < 4; k++) {
            size_t v = (size_t)(4 * r + k);
            double x = -2.0 + 0.25 * r;
            m->positions[3 * v] = (float)x;
            m->positions[3 * v + 1] = (float)cy[k];
            m->positions[3 * v + 2] = (float)cz[k];
            am_vec3 n = am_v3_normalize(am_v3(0, cy[k] - 0.5, cz[k]));
            m->normals[3 * v] = (float)n.x, m->normals[3 * v + 1] = (float)n.y, m->normals[3 * v + 2] = (float)n.z;
            m->uvs[2 * v] = (float)(r / 16.0);
            m->uvs[2 * v + 1] = (float)(k / 3.0);
            double s = smoothstep01((x + 1) / 2);
            m->influences[2 * v] = (am_gf_influence){0, (float)(1 - s)};
            m->influences[2 * v + 1] = (am_gf_influence){1, (float)s};
        }
    size_t at = 0;
    for (int r = 0; r + 1 < rings; r++)
        for (int k = 0; k < 4; k++) {
            uint32_t a = (uint32_t)(4 * r + k), b = (uint32_t)(4 * r + (k + 1) % 4), c = a + 4, d = b + 4;
            uint32_t q[6] = {a, c, b, b, c, d};
            memcpy(&m->indices[at], q, sizeof q);
            at += 6;
        }
    uint32_t caps[12] = {0, 1, 2, 0, 2, 3, 64, 66, 65, 64, 67, 66};
    memcpy(&m->indices[at], caps, sizeof caps);

    /* fold: angle a(t) = 90 deg * sin^2(pi t / 6), sampled at 0, 1.5, 3, 4.5, 6 s. */
    am_gf_clip *clip = new_clip(m, "fold", 2);
    const size_t keys = 5;
    am_gf_channel *rot = new_channel(clip, 1, AM_SCENE_PATH_ROTATION, interp, keys);
    am_gf_channel *lift = new_channel(clip, 0, AM_SCENE_PATH_TRANSLATION, interp, keys);
    bool cubic = interp == AM_SCENE_INTERP_CUBICSPLINE;
    for (size_t k = 0; k < keys; k++) {
        double t = 1.5 * (double)k;
        rot->times[k] = lift->times[k] = (float)t;
        double a = AM_PI / 2 * pow(sin(AM_PI * t / 6), 2), da = AM_PI / 2 * (AM_PI / 6) * sin(AM_PI * t / 3);
        am_quat q = am_quat_mul(am_quat_axis_angle(am_v3(0, 0, 1), a), bend_rest);
        /* d/dt of fold(a) (x) rest = (dfold/da (x) rest) * da/dt, dfold/da = (z cos(a/2) / 2, -sin(a/2) / 2) */
        am_quat dfold = {0, 0, 0.5 * cos(a / 2), -0.5 * sin(a / 2)};
        am_quat dq = am_quat_mul(dfold, bend_rest);
        dq = (am_quat){dq.x * da, dq.y * da, dq.z * da, dq.w * da};
        double y = 0.1 * pow(sin(AM_PI * t / 6), 2), dy = 0.1 * (AM_PI / 6) * sin(AM_PI * t / 3);
        if (cubic) {
            put_quat(&rot->values[12 * k], dq);
            put_quat(&rot->values[12 * k + 4], q);
            put_quat(&rot->values[12 * k + 8], dq);
            float tv[9] = {0, (float)dy, 0, 0, (float)y, 0, 0, (float)dy, 0};
            memcpy(&lift->values[9 * k], tv, sizeof tv);
        } else {
            put_quat(&rot->values[4 * k], q);
            lift->values[3 * k + 1] = (float)y;
        }
    }
}

/* --- the quadruped ----------------------------------------------------------------- */

typedef struct joint_spec {
    const char *name;
    int parent;    /* node index */
    double pos[3]; /* rest world position */
    int tail_to;   /* node whose position ends the bone, -1: pos + 0.1 * dir */
    double dir[3]; /* bone direction when tail_to < 0 */
    double half;   /* box half width */
} joint_spec;

static const joint_spec quad_joints[] = {
    /* 0 is the Armature node (not a joint) */
    {"Hips", 0, {0, 0.60, -0.30}, 2, {0}, 0.09},
    {"Spine", 1, {0, 0.62, 0.00}, 3, {0}, 0.09},
    {"Chest", 2, {0, 0.64, 0.30}, 4, {0}, 0.09},
    {"Neck", 3, {0, 0.70, 0.40}, 5, {0}, 0.05},
    {"Head", 4, {0, 0.80, 0.50}, -1, {0, 0, 1}, 0.06},
    {"Tail1", 1, {0, 0.60, -0.40}, 7, {0}, 0.03},
    {"Tail2", 6, {0, 0.55, -0.65}, -1, {0, -0.2, -1}, 0.02},
    {"ShoulderL", 3, {0.12, 0.55, 0.30}, 9, {0}, 0.04},
    {"ElbowL", 8, {0.12, 0.30, 0.32}, 10, {0}, 0.035},
    {"PawL", 9, {0.12, 0.05, 0.30}, -1, {0, 0, 1}, 0.03},
    {"ShoulderR", 3, {-0.12, 0.55, 0.30}, 12, {0}, 0.04},
    {"ElbowR", 11, {-0.12, 0.30, 0.32}, 13, {0}, 0.035},
    {"PawR", 12, {-0.12, 0.05, 0.30}, -1, {0, 0, 1}, 0.03},
    {"ThighL", 1, {0.12, 0.55, -0.30}, 15, {0}, 0.045},
    {"KneeL", 14, {0.12, 0.30, -0.34}, 16, {0}, 0.035},
    {"FootL", 15, {0.12, 0.05, -0.30}, -1, {0, 0, 1}, 0.03},
    {"ThighR", 1, {-0.12, 0.55, -0.30}, 18, {0}, 0.045},
    {"KneeR", 17, {-0.12, 0.30, -0.34}, 19, {0}, 0.035},
    {"FootR", 18, {-0.12, 0.05, -0.30}, -1, {0, 0, 1}, 0.03},
};
#define QUAD_JOINTS (sizeof quad_joints / sizeof quad_joints[0])

static am_vec3 v3a(const double *a) { return am_v3(a[0], a[1], a[2]); }

/* The shortest-arc rotation taking +Y to `dir` (a Blender bone's rest: Y along the bone). */
static am_quat y_to(am_vec3 dir)
{
    am_vec3 y = am_v3(0, 1, 0), d = am_v3_normalize(dir);
    double c = am_v3_dot(y, d);
    if (c < -0.999999)
        return am_quat_axis_angle(am_v3(0, 0, 1), AM_PI);
    am_vec3 axis = am_v3_cross(y, d);
    return am_quat_normalize((am_quat){axis.x, axis.y, axis.z, 1 + c});
}

void am_gf_quadruped(am_gf_model *m)
{
    memset(m, 0, sizeof *m);
    snprintf(m->name, sizeof m->name, "quadruped");
    m->height_m = 0.86;
    for (int k = 0; k < 4; k++)
        m->base_color[k] = k == 3 ? 1.0 : 0.6;
    m->node_count = QUAD_JOINTS + 1;
    m->nodes = xcalloc(m->node_count, sizeof *m->nodes);
    am_quat world_r[QUAD_JOINTS + 1];
    am_vec3 world_p[QUAD_JOINTS + 1], tail[QUAD_JOINTS + 1];
    set_node(&m->nodes[0], "Armature", -1, am_v3(0, 0, 0), am_quat_identity());
    world_r[0] = am_quat_identity();
    world_p[0] = am_v3(0, 0, 0);
    m->joint_count = QUAD_JOINTS;
    m->joints = xcalloc(QUAD_JOINTS, sizeof *m->joints);
    for (size_t j = 0; j < QUAD_JOINTS; j++) {
        const joint_spec *js = &quad_joints[j];
        size_t n = j + 1;
        am_vec3 p = v3a(js->pos);
        tail[n] = js->tail_to >= 0 ? v3a(quad_joints[js->tail_to - 1].pos)
                                   : am_v3_add(p, am_v3_scale(am_v3_normalize(v3a(js->dir)), 0.1));
        world_p[n] = p;
        world_r[n] = y_to(am_v3_sub(tail[n], p));
        am_quat inv_parent = am_quat_conj(world_r[js->parent]);
        am_vec3 t = am_quat_rotate(inv_parent, am_v3_sub(p, world_p[js->parent]));
        set_node(&m->nodes[n], js->name, js->parent, t, am_quat_normalize(am_quat_mul(inv_parent, world_r[n])));
        m->joints[j] = (int)n;
    }
    /* A box per bone: 4 corners at its head (all this joint), 4 at its tail (half the
     * joint the tail belongs to). */
    alloc_mesh(m, 8 * QUAD_JOINTS, 36 * QUAD_JOINTS);
    for (size_t j = 0; j < QUAD_JOINTS; j++) {
        const joint_spec *js = &quad_joints[j];
        size_t n = j + 1;
        am_vec3 a = world_p[n], b = tail[n], d = am_v3_normalize(am_v3_sub(b, a));
        am_vec3 helper = fabs(d.y) < 0.9 ? am_v3(0, 1, 0) : am_v3(1, 0, 0);
        am_vec3 u = am_v3_normalize(am_v3_cross(d, helper)), w = am_v3_cross(d, u);
        am_vec3 mid = am_v3_scale(am_v3_add(a, b), 0.5);
        for (int e = 0; e < 2; e++)
            for (int k = 0; k < 4; k++) {
                size_t v = 8 * j + 4 * (size_t)e + (size_t)k;
                double su = (k == 0 || k == 3) ? -1 : 1, sw = k < 2 ? -1 : 1;
                am_vec3 p = am_v3_add(e ? b : a, am_v3_add(am_v3_scale(u, su * js->half), am_v3_scale(w, sw * js->half)));
                am_vec3 nn = am_v3_normalize(am_v3_sub(p, mid));
                m->positions[3 * v] = (float)p.x, m->positions[3 * v + 1] = (float)p.y,
                m->positions[3 * v + 2] = (float)p.z;
                m->normals[3 * v] = (float)nn.x, m->normals[3 * v + 1] = (float)nn.y, m->normals[3 * v + 2] = (float)nn.z;
                m->uvs[2 * v] = (float)((j + 0.5) / QUAD_JOINTS);
                m->uvs[2 * v + 1] = (float)(e ? 0.75 : 0.25);
                /* The tail ring blends into the child whose head is there. */
                if (e && js->tail_to >= 0) {
                    m->influences[2 * v] = (am_gf_influence){(uint16_t)j, 0.5f};
                    m->influences[2 * v + 1] = (am_gf_influence){(uint16_t)(js->tail_to - 1), 0.5f};
                } else {
                    m->influences[2 * v] = (am_gf_influence){(uint16_t)j, 1.0f};
                    m->influences[2 * v + 1] = (am_gf_influence){0, 0.0f};
                }
            }
        static const uint32_t box[36] = {0, 1, 5, 0, 5, 4, 1, 2, 6, 1, 6, 5, 2, 3, 7, 2, 7, 6,
                                         3, 0, 4, 3, 4, 7, 0, 3, 2, 0, 2, 1, 4, 5, 6, 4, 6, 7};
        for (int i = 0; i < 36; i++)
            m->indices[36 * j + (size_t)i] = (uint32_t)(8 * j) + box[i];
    }

    /* walk: a trot over 1 s, 9 LINEAR keys; every motion periodic, so key 8 = key 0. */
    am_gf_clip *clip = new_clip(m, "walk", 16);
    const size_t keys = 9;
    struct swing {
        const char *name;
        double axis[3];
        double amp_deg, phase, freq;
        bool one_sided; /* knees and elbows bend one way only */
    } swings[] = {
        {"ShoulderL", {1, 0, 0}, 25, 0.0, 1, false}, {"ThighR", {1, 0, 0}, 25, 0.0, 1, false},
        {"ShoulderR", {1, 0, 0}, 25, 0.5, 1, false}, {"ThighL", {1, 0, 0}, 25, 0.5, 1, false},
        {"ElbowL", {1, 0, 0}, 20, 0.0, 1, true},     {"KneeR", {1, 0, 0}, 20, 0.0, 1, true},
        {"ElbowR", {1, 0, 0}, 20, 0.5, 1, true},     {"KneeL", {1, 0, 0}, 20, 0.5, 1, true},
        {"Tail1", {0, 1, 0}, 20, 0.0, 2, false},     {"Head", {1, 0, 0}, 8, 0.25, 2, false},
    };
    for (size_t s = 0; s < sizeof swings / sizeof swings[0]; s++) {
        int node = -1;
        for (size_t n = 0; n < m->node_count; n++)
            if (strcmp(m->nodes[n].name, swings[s].name) == 0)
                node = (int)n;
        am_quat P = world_r[m->nodes[node].parent], L = m->nodes[node].r;
        am_gf_channel *c = new_channel(clip, node, AM_SCENE_PATH_ROTATION, AM_SCENE_INTERP_LINEAR, keys);
        for (size_t k = 0; k < keys; k++) {
            double t = (double)k / (keys - 1);
            c->times[k] = (float)t;
            double wave = sin(2 * AM_PI * swings[s].freq * (t + swings[s].phase));
            double a = swings[s].amp_deg * AM_DEG2RAD *
                       (swings[s].one_sided ? 0.5 - 0.5 * cos(2 * AM_PI * (t + swings[s].phase)) : wave);
            /* The swing about a rest-pose world axis, at the joint: local = P^-1 d P L. */
            am_quat d = am_quat_axis_angle(v3a(swings[s].axis), a);
            am_quat q = am_quat_mul(am_quat_conj(P), am_quat_mul(d, am_quat_mul(P, L)));
            put_quat(&c->values[4 * k], am_quat_normalize(q));
        }
    }
    am_gf_channel *bob = new_channel(clip, 1, AM_SCENE_PATH_TRANSLATION, AM_SCENE_INTERP_LINEAR, keys);
    for (size_t k = 0; k < keys; k++) {
        double t = (double)k / (keys - 1);
        bob->times[k] = (float)t;
        am_vec3 p = am_v3_add(m->nodes[1].t, am_v3(0, 0.02 * sin(4 * AM_PI * t), 0));
        bob->values[3 * k] = (float)p.x, bob->values[3 * k + 1] = (float)p.y, bob->values[3 * k + 2] = (float)p.z;
    }
}

/* --- a chain ------------------------------------------------------------------------ */

void am_gf_chain(am_gf_model *m, size_t joints, double segment_m, double duration_s)
{
    memset(m, 0, sizeof *m);
    snprintf(m->name, sizeof m->name, "chain");
    m->height_m = segment_m * (double)joints;
    for (int k = 0; k < 4; k++)
        m->base_color[k] = 1.0;
    m->node_count = m->joint_count = joints;
    m->nodes = xcalloc(joints, sizeof *m->nodes);
    m->joints = xcalloc(joints, sizeof *m->joints);
    for (size_t j = 0; j < joints; j++) {
        char name[32];
        snprintf(name, sizeof name, "j%zu", j);
        set_node(&m->nodes[j], name, (int)j - 1, am_v3(0, j ? segment_m : 0, 0), am_quat_identity());
        m->joints[j] = (int)j;
    }
    /* A box per segment: 4 corners at its start, 4 at its end. */
    const double hw = 0.1 * segment_m;
    alloc_mesh(m, 8 * joints, 24 * joints);
    for (size_t j = 0; j < joints; j++)
        for (int e = 0; e < 2; e++)
            for (int k = 0; k < 4; k++) {
                size_t v = 8 * j + 4 * (size_t)e + (size_t)k;
                double x = (k == 1 || k == 2) ? hw : -hw, z = k < 2 ? -hw : hw;
                m->positions[3 * v] = (float)x;
                m->positions[3 * v + 1] = (float)(segment_m * ((double)j + e));
                m->positions[3 * v + 2] = (float)z;
                m->normals[3 * v] = (float)(x / hw * M_SQRT1_2), m->normals[3 * v + 2] = (float)(z / hw * M_SQRT1_2);
                m->uvs[2 * v] = (float)k / 4, m->uvs[2 * v + 1] = (float)(((double)j + e) / (double)joints);
                bool blend = e && j + 1 < joints;
                m->influences[2 * v] = (am_gf_influence){(uint16_t)j, blend ? 0.5f : 1.0f};
                m->influences[2 * v + 1] = (am_gf_influence){(uint16_t)(blend ? j + 1 : 0), blend ? 0.5f : 0.0f};
            }
    for (size_t j = 0; j < joints; j++)
        for (uint32_t k = 0; k < 4; k++) {
            uint32_t a = (uint32_t)(8 * j) + k, b = (uint32_t)(8 * j) + (k + 1) % 4, c = a + 4, d = b + 4;
            uint32_t q[6] = {a, b, c, b, d, c};
            memcpy(&m->indices[24 * j + 6 * k], q, sizeof q);
        }
    am_gf_clip *clip = new_clip(m, "sway", joints);
    const size_t keys = 5;
    for (size_t j = 0; j < joints; j++) {
        am_gf_channel *c = new_channel(clip, (int)j, AM_SCENE_PATH_ROTATION, AM_SCENE_INTERP_LINEAR, keys);
        for (size_t k = 0; k < keys; k++) {
            double t = duration_s * (double)k / (keys - 1);
            c->times[k] = (float)t;
            put_quat(&c->values[4 * k], am_quat_axis_angle(am_v3(0, 0, 1), 10 * AM_DEG2RAD * sin(2 * AM_PI * t / duration_s)));
        }
    }
}

/* --- frames ------------------------------------------------------------------------ */

static am_quat frame_rotation(am_gf_frame f)
{
    return f == AM_GF_Z_UP_CM ? am_quat_axis_angle(am_v3(1, 0, 0), AM_PI / 2) : am_quat_identity();
}

static double frame_scale(am_gf_frame f) { return f == AM_GF_Z_UP_CM ? 100.0 : 1.0; }

am_vec3 am_gf_frame_point(am_gf_frame frame, am_vec3 p)
{
    return am_v3_scale(am_quat_rotate(frame_rotation(frame), p), frame_scale(frame));
}

static void convert_vec(float *v, am_quat R, double k)
{
    am_vec3 p = am_v3_scale(am_quat_rotate(R, am_v3(v[0], v[1], v[2])), k);
    v[0] = (float)p.x, v[1] = (float)p.y, v[2] = (float)p.z;
}

static void convert_quat(float *v, am_quat R)
{
    /* R q R^-1 is linear in q, so quaternion tangents convert the same way. */
    am_quat q = am_quat_mul(R, am_quat_mul((am_quat){v[0], v[1], v[2], v[3]}, am_quat_conj(R)));
    put_quat(v, q);
}

static void *dup_array(const void *src, size_t bytes)
{
    if (!src)
        return NULL;
    void *d = xcalloc(1, bytes);
    memcpy(d, src, bytes);
    return d;
}

void am_gf_convert(const am_gf_model *in, am_gf_frame frame, am_gf_model *out)
{
    *out = *in;
    out->nodes = dup_array(in->nodes, in->node_count * sizeof *in->nodes);
    out->joints = dup_array(in->joints, in->joint_count * sizeof *in->joints);
    out->positions = dup_array(in->positions, 3 * in->vertex_count * sizeof(float));
    out->normals = dup_array(in->normals, 3 * in->vertex_count * sizeof(float));
    out->uvs = dup_array(in->uvs, 2 * in->vertex_count * sizeof(float));
    out->indices = dup_array(in->indices, in->index_count * sizeof(uint32_t));
    out->influences = dup_array(in->influences, in->influence_count * in->vertex_count * sizeof *in->influences);
    out->clips = dup_array(in->clips, in->clip_count * sizeof *in->clips);
    for (size_t c = 0; c < in->clip_count; c++) {
        out->clips[c].channels =
            dup_array(in->clips[c].channels, in->clips[c].channel_count * sizeof *in->clips[c].channels);
        for (size_t h = 0; h < in->clips[c].channel_count; h++) {
            am_gf_channel *ch = &out->clips[c].channels[h];
            ch->times = dup_array(ch->times, ch->key_count * sizeof(float));
            ch->values = dup_array(ch->values, channel_floats(ch) * sizeof(float));
        }
    }
    am_quat R = frame_rotation(frame);
    double k = frame_scale(frame);
    out->height_m = in->height_m * k;
    for (size_t n = 0; n < out->node_count; n++) {
        am_gf_node *nd = &out->nodes[n];
        nd->t = am_v3_scale(am_quat_rotate(R, nd->t), k);
        nd->r = am_quat_mul(R, am_quat_mul(nd->r, am_quat_conj(R)));
        if (frame == AM_GF_Z_UP_CM)
            nd->s = am_v3(nd->s.x, nd->s.z, nd->s.y); /* R^-1 diag(s) R */
    }
    for (size_t v = 0; v < out->vertex_count; v++) {
        convert_vec(&out->positions[3 * v], R, k);
        if (out->normals)
            convert_vec(&out->normals[3 * v], R, 1);
    }
    for (size_t c = 0; c < out->clip_count; c++)
        for (size_t h = 0; h < out->clips[c].channel_count; h++) {
            am_gf_channel *ch = &out->clips[c].channels[h];
            size_t w = path_width(ch->path), n = channel_floats(ch) / w;
            for (size_t i = 0; i < n; i++) {
                float *v = &ch->values[w * i];
                if (ch->path == AM_SCENE_PATH_TRANSLATION)
                    convert_vec(v, R, k);
                else if (ch->path == AM_SCENE_PATH_ROTATION)
                    convert_quat(v, R);
                else if (frame == AM_GF_Z_UP_CM) {
                    float y = v[1];
                    v[1] = v[2];
                    v[2] = y;
                }
            }
        }
}

/* --- the file's meaning ------------------------------------------------------------ */

static am_mat4 node_matrix(am_vec3 t, am_quat r, am_vec3 s) { return am_mat4_from_trs(t, am_quat_normalize(r), s); }

void am_gf_rest_world(const am_gf_model *m, am_mat4 *out)
{
    for (size_t n = 0; n < m->node_count; n++) {
        const am_gf_node *nd = &m->nodes[n];
        am_mat4 local = node_matrix(nd->t, nd->r, nd->s);
        out[n] = nd->parent >= 0 ? am_mat4_mul(&local, &out[nd->parent]) : local;
    }
}

/* Spherical interpolation written out (glTF 2.0 Appendix C), shortest arc. */
static void slerp4(const float *a, const float *b, double u, double *out)
{
    double d = 0, bb[4];
    for (int i = 0; i < 4; i++)
        d += (double)a[i] * b[i];
    for (int i = 0; i < 4; i++)
        bb[i] = d < 0 ? -b[i] : b[i];
    d = fabs(d);
    double wa = 1 - u, wb = u;
    if (d < 0.9999) {
        double th = acos(d);
        wa = sin((1 - u) * th) / sin(th);
        wb = sin(u * th) / sin(th);
    }
    for (int i = 0; i < 4; i++)
        out[i] = wa * a[i] + wb * bb[i];
}

static void sample(const am_gf_channel *c, double t, double *out)
{
    size_t w = path_width(c->path), n = c->key_count;
    bool cubic = c->interp == AM_SCENE_INTERP_CUBICSPLINE;
    size_t stride = cubic ? 3 * w : w, at = cubic ? w : 0;
    size_t k = 0;
    if (t <= c->times[0] || n == 1) {
        k = 0;
        t = c->times[0];
    } else if (t >= c->times[n - 1]) {
        k = n - 1;
    } else {
        while (k + 1 < n && c->times[k + 1] <= t)
            k++;
    }
    const float *va = &c->values[stride * k + at];
    if (k + 1 >= n || t <= c->times[k] || c->interp == AM_SCENE_INTERP_STEP) {
        for (size_t i = 0; i < w; i++)
            out[i] = va[i];
    } else {
        double dt = (double)c->times[k + 1] - c->times[k], u = (t - c->times[k]) / dt;
        const float *vb = &c->values[stride * (k + 1) + at];
        if (cubic) {
            const float *out_tan = &c->values[stride * k + 2 * w], *in_tan = &c->values[stride * (k + 1)];
            double u2 = u * u, u3 = u2 * u;
            for (size_t i = 0; i < w; i++)
                out[i] = (2 * u3 - 3 * u2 + 1) * va[i] + (u3 - 2 * u2 + u) * dt * out_tan[i] + (-2 * u3 + 3 * u2) * vb[i] +
                         (u3 - u2) * dt * in_tan[i];
        } else if (c->path == AM_SCENE_PATH_ROTATION) {
            slerp4(va, vb, u, out);
        } else {
            for (size_t i = 0; i < w; i++)
                out[i] = va[i] + u * ((double)vb[i] - va[i]);
        }
    }
}

void am_gf_pose(const am_gf_model *m, int clip, double t, float *out)
{
    am_vec3 *T = xcalloc(m->node_count, sizeof *T), *S = xcalloc(m->node_count, sizeof *S);
    am_quat *R = xcalloc(m->node_count, sizeof *R);
    am_mat4 *rest = xcalloc(m->node_count, sizeof *rest), *world = xcalloc(m->node_count, sizeof *world);
    for (size_t n = 0; n < m->node_count; n++) {
        T[n] = m->nodes[n].t;
        R[n] = m->nodes[n].r;
        S[n] = m->nodes[n].s;
    }
    if (clip >= 0)
        for (size_t h = 0; h < m->clips[clip].channel_count; h++) {
            const am_gf_channel *c = &m->clips[clip].channels[h];
            double v[4];
            sample(c, t, v);
            if (c->path == AM_SCENE_PATH_TRANSLATION)
                T[c->node] = am_v3(v[0], v[1], v[2]);
            else if (c->path == AM_SCENE_PATH_ROTATION)
                R[c->node] = (am_quat){v[0], v[1], v[2], v[3]};
            else
                S[c->node] = am_v3(v[0], v[1], v[2]);
        }
    am_gf_rest_world(m, rest);
    for (size_t n = 0; n < m->node_count; n++) {
        am_mat4 local = node_matrix(T[n], R[n], S[n]);
        int p = m->nodes[n].parent;
        world[n] = p >= 0 ? am_mat4_mul(&local, &world[p]) : local;
    }
    for (size_t v = 0; v < m->vertex_count; v++) {
        am_vec3 p = am_v3(m->positions[3 * v], m->positions[3 * v + 1], m->positions[3 * v + 2]), acc = am_v3(0, 0, 0);
        double total = 0;
        for (size_t i = 0; i < m->influence_count; i++)
            total += m->influences[v * m->influence_count + i].weight;
        for (size_t i = 0; i < m->influence_count && total > 0; i++) {
            const am_gf_influence *inf = &m->influences[v * m->influence_count + i];
            if (inf->weight == 0)
                continue;
            int node = m->joints[inf->joint];
            am_mat4 ibm, skin;
            am_mat4_inverse(&rest[node], &ibm);
            skin = am_mat4_mul(&ibm, &world[node]);
            acc = am_v3_add(acc, am_v3_scale(am_mat4_transform_point(&skin, p), inf->weight / total));
        }
        out[3 * v] = (float)acc.x, out[3 * v + 1] = (float)acc.y, out[3 * v + 2] = (float)acc.z;
    }
    free(T);
    free(S);
    free(R);
    free(rest);
    free(world);
}

/* --- writing ----------------------------------------------------------------------- */

typedef struct writer {
    json_t *doc, *views, *accessors;
    am_buf *bin;
} writer;

static size_t add_view(writer *w, const void *data, size_t size, size_t stride)
{
    while (w->bin->size % 4)
        am_buf_append(w->bin, "\0", 1, NULL);
    json_t *v = json_pack("{s:i, s:I, s:I}", "buffer", 0, "byteOffset", (json_int_t)w->bin->size, "byteLength",
                          (json_int_t)size);
    if (stride)
        json_object_set_new(v, "byteStride", json_integer((json_int_t)stride));
    if (am_buf_append(w->bin, data, size, NULL))
        fail_msg("out of memory in gltf_fixtures");
    json_array_append_new(w->views, v);
    return json_array_size(w->views) - 1;
}

static size_t add_accessor(writer *w, size_t view, size_t offset, int ctype, size_t count, const char *type,
                           bool normalized)
{
    json_t *a = json_pack("{s:I, s:I, s:i, s:I, s:s}", "bufferView", (json_int_t)view, "byteOffset", (json_int_t)offset,
                          "componentType", ctype, "count", (json_int_t)count, "type", type);
    if (normalized)
        json_object_set_new(a, "normalized", json_true());
    json_array_append_new(w->accessors, a);
    return json_array_size(w->accessors) - 1;
}

static void set_min_max(writer *w, size_t accessor, const float *v, size_t count, size_t width)
{
    json_t *mn = json_array(), *mx = json_array();
    for (size_t k = 0; k < width; k++) {
        double lo = INFINITY, hi = -INFINITY;
        for (size_t i = 0; i < count; i++) {
            lo = fmin(lo, v[width * i + k]);
            hi = fmax(hi, v[width * i + k]);
        }
        json_array_append_new(mn, json_real(lo));
        json_array_append_new(mx, json_real(hi));
    }
    json_t *a = json_array_get(w->accessors, accessor);
    json_object_set_new(a, "min", mn);
    json_object_set_new(a, "max", mx);
}

static size_t csize(int type) { return type == 5126 || type == 5125 ? 4 : type == 5123 || type == 5122 ? 2 : 1; }

/* Floats as `type` (5126 as is, 5121/5123 normalized). */
static size_t add_floats(writer *w, const float *v, size_t count, size_t width, int type, const char *gltf_type)
{
    size_t n = count * width, cs = csize(type);
    uint8_t *buf = xcalloc(n, cs);
    for (size_t i = 0; i < n; i++) {
        if (type == 5126) {
            memcpy(buf + 4 * i, &v[i], 4);
        } else {
            double max = type == 5121 ? 255.0 : 65535.0;
            double c = floor(fmin(fmax(v[i], 0.0), 1.0) * max + 0.5);
            if (type == 5121)
                buf[i] = (uint8_t)c;
            else {
                uint16_t s = (uint16_t)c;
                memcpy(buf + 2 * i, &s, 2);
            }
        }
    }
    size_t view = add_view(w, buf, n * cs, 0);
    free(buf);
    return add_accessor(w, view, 0, type, count, gltf_type, type != 5126);
}

static size_t add_uints(writer *w, const uint32_t *v, size_t count, size_t width, int type, const char *gltf_type)
{
    size_t n = count * width, cs = csize(type);
    uint8_t *buf = xcalloc(n, cs);
    for (size_t i = 0; i < n; i++) {
        if (cs == 4)
            memcpy(buf + 4 * i, &v[i], 4);
        else if (cs == 2) {
            uint16_t s = (uint16_t)v[i];
            memcpy(buf + 2 * i, &s, 2);
        } else
            buf[i] = (uint8_t)v[i];
    }
    size_t view = add_view(w, buf, n * cs, 0);
    free(buf);
    return add_accessor(w, view, 0, type, count, gltf_type, false);
}

static void write_skin_and_clips(writer *w, const am_gf_model *m);

json_t *am_gf_document(const am_gf_model *m, const am_gf_options *opt, am_buf *bin)
{
    am_gf_options defaults = {0};
    if (!opt)
        opt = &defaults;
    int jt = opt->joints_type ? opt->joints_type : 5121, wt = opt->weights_type ? opt->weights_type : 5126;
    int ut = opt->uv_type ? opt->uv_type : 5126, it = opt->index_type ? opt->index_type : 5125;
    writer w = {json_object(), json_array(), json_array(), bin};
    json_object_set_new(w.doc, "asset", json_pack("{s:s, s:s}", "version", "2.0", "generator", "animesh test fixtures"));
    /* nodes, then the mesh node */
    json_t *nodes = json_array(), *roots = json_array();
    for (size_t n = 0; n < m->node_count; n++) {
        const am_gf_node *nd = &m->nodes[n];
        json_t *o = json_pack("{s:s}", "name", nd->name);
        if (opt->matrices) {
            am_mat4 local = node_matrix(nd->t, nd->r, nd->s);
            json_t *a = json_array();
            for (int k = 0; k < 16; k++) /* LL layout = glTF's column-major array */
                json_array_append_new(a, json_real(local.m[k]));
            json_object_set_new(o, "matrix", a);
        } else {
            am_quat q = am_quat_normalize(nd->r);
            json_object_set_new(o, "translation", json_pack("[f,f,f]", nd->t.x, nd->t.y, nd->t.z));
            json_object_set_new(o, "rotation", json_pack("[f,f,f,f]", q.x, q.y, q.z, q.w));
            if (nd->s.x != 1 || nd->s.y != 1 || nd->s.z != 1)
                json_object_set_new(o, "scale", json_pack("[f,f,f]", nd->s.x, nd->s.y, nd->s.z));
        }
        json_t *kids = json_array();
        for (size_t c = 0; c < m->node_count; c++)
            if (m->nodes[c].parent == (int)n)
                json_array_append_new(kids, json_integer((json_int_t)c));
        if (json_array_size(kids))
            json_object_set_new(o, "children", kids);
        else
            json_decref(kids);
        json_array_append_new(nodes, o);
        if (nd->parent < 0)
            json_array_append_new(roots, json_integer((json_int_t)n));
    }
    char mesh_name[80];
    snprintf(mesh_name, sizeof mesh_name, "%s_mesh", m->name);
    json_t *mesh_node = json_pack("{s:s, s:i}", "name", mesh_name, "mesh", 0);
    if (!opt->no_skin)
        json_object_set_new(mesh_node, "skin", json_integer(0));
    json_array_append_new(nodes, mesh_node);
    json_array_append_new(roots, json_integer((json_int_t)m->node_count));
    json_object_set_new(w.doc, "nodes", nodes);
    json_object_set_new(w.doc, "scenes", json_pack("[{s:o}]", "nodes", roots));
    json_object_set_new(w.doc, "scene", json_integer(0));

    /* mesh */
    json_t *attrs = json_object();
    size_t pos;
    if (opt->interleave) {
        float *il = xcalloc(6 * m->vertex_count, sizeof(float));
        for (size_t v = 0; v < m->vertex_count; v++) {
            memcpy(&il[6 * v], &m->positions[3 * v], 3 * sizeof(float));
            memcpy(&il[6 * v + 3], &m->normals[3 * v], 3 * sizeof(float));
        }
        size_t view = add_view(&w, il, 24 * m->vertex_count, 24);
        free(il);
        pos = add_accessor(&w, view, 0, 5126, m->vertex_count, "VEC3", false);
        json_object_set_new(attrs, "NORMAL",
                            json_integer((json_int_t)add_accessor(&w, view, 12, 5126, m->vertex_count, "VEC3", false)));
    } else {
        pos = add_floats(&w, m->positions, m->vertex_count, 3, 5126, "VEC3");
        if (m->normals)
            json_object_set_new(attrs, "NORMAL",
                                json_integer((json_int_t)add_floats(&w, m->normals, m->vertex_count, 3, 5126, "VEC3")));
    }
    set_min_max(&w, pos, m->positions, m->vertex_count, 3);
    json_object_set_new(attrs, "POSITION", json_integer((json_int_t)pos));
    if (m->uvs)
        json_object_set_new(attrs, "TEXCOORD_0",
                            json_integer((json_int_t)add_floats(&w, m->uvs, m->vertex_count, 2, ut, "VEC2")));
    size_t sets = opt->no_skin ? 0 : (m->influence_count + 3) / 4;
    for (size_t s = 0; s < sets; s++) {
        uint32_t *j = xcalloc(4 * m->vertex_count, sizeof *j);
        float *wv = xcalloc(4 * m->vertex_count, sizeof *wv);
        for (size_t v = 0; v < m->vertex_count; v++)
            for (size_t k = 0; k < 4 && 4 * s + k < m->influence_count; k++) {
                const am_gf_influence *inf = &m->influences[v * m->influence_count + 4 * s + k];
                j[4 * v + k] = inf->joint;
                wv[4 * v + k] = inf->weight;
            }
        char jn[16], wn[16];
        snprintf(jn, sizeof jn, "JOINTS_%zu", s);
        snprintf(wn, sizeof wn, "WEIGHTS_%zu", s);
        json_object_set_new(attrs, jn, json_integer((json_int_t)add_uints(&w, j, m->vertex_count, 4, jt, "VEC4")));
        json_object_set_new(attrs, wn, json_integer((json_int_t)add_floats(&w, wv, m->vertex_count, 4, wt, "VEC4")));
        free(j);
        free(wv);
    }
    size_t idx = add_uints(&w, m->indices, m->index_count, 1, it, "SCALAR");
    json_object_set_new(w.doc, "meshes",
                        json_pack("[{s:s, s:[{s:o, s:I, s:i, s:i}]}]", "name", m->name, "primitives", "attributes",
                                  attrs, "indices", (json_int_t)idx, "mode", 4, "material", 0));
    json_object_set_new(w.doc, "materials",
                        json_pack("[{s:s, s:{s:[f,f,f,f]}}]", "name", "skin", "pbrMetallicRoughness",
                                  "baseColorFactor", m->base_color[0], m->base_color[1], m->base_color[2],
                                  m->base_color[3]));

    if (!opt->no_skin)
        write_skin_and_clips(&w, m);
    json_object_set_new(w.doc, "bufferViews", w.views);
    json_object_set_new(w.doc, "accessors", w.accessors);
    while (bin->size % 4)
        am_buf_append(bin, "\0", 1, NULL);
    json_object_set_new(w.doc, "buffers", json_pack("[{s:I}]", "byteLength", (json_int_t)bin->size));
    return w.doc;
}

/* The skin (inverse binds from the rest pose) and the animations. */
static void write_skin_and_clips(writer *wp, const am_gf_model *m)
{
    writer w = *wp;
    am_mat4 *rest = xcalloc(m->node_count, sizeof *rest);
    am_gf_rest_world(m, rest);
    float *ibm = xcalloc(16 * m->joint_count, sizeof *ibm);
    json_t *joints = json_array();
    for (size_t j = 0; j < m->joint_count; j++) {
        am_mat4 inv;
        am_mat4_inverse(&rest[m->joints[j]], &inv);
        for (int k = 0; k < 16; k++)
            ibm[16 * j + (size_t)k] = (float)inv.m[k];
        json_array_append_new(joints, json_integer(m->joints[j]));
    }
    free(rest);
    size_t ibm_acc = add_floats(&w, ibm, m->joint_count, 16, 5126, "MAT4");
    free(ibm);
    json_object_set_new(w.doc, "skins",
                        json_pack("[{s:s, s:o, s:I, s:i}]", "name", "armature", "joints", joints, "inverseBindMatrices",
                                  (json_int_t)ibm_acc, "skeleton", m->joints[0]));

    /* animations */
    json_t *anims = json_array();
    static const char *paths[] = {"translation", "rotation", "scale"};
    static const char *interps[] = {"LINEAR", "STEP", "CUBICSPLINE"};
    for (size_t c = 0; c < m->clip_count; c++) {
        json_t *samplers = json_array(), *channels = json_array();
        for (size_t h = 0; h < m->clips[c].channel_count; h++) {
            const am_gf_channel *ch = &m->clips[c].channels[h];
            size_t in = add_floats(&w, ch->times, ch->key_count, 1, 5126, "SCALAR");
            set_min_max(&w, in, ch->times, ch->key_count, 1);
            size_t wd = path_width(ch->path);
            size_t out = add_floats(&w, ch->values, channel_floats(ch) / wd, wd, 5126, wd == 4 ? "VEC4" : "VEC3");
            json_array_append_new(samplers, json_pack("{s:I, s:I, s:s}", "input", (json_int_t)in, "output",
                                                      (json_int_t)out, "interpolation", interps[ch->interp]));
            json_array_append_new(channels, json_pack("{s:I, s:{s:i, s:s}}", "sampler", (json_int_t)h, "target",
                                                      "node", ch->node, "path", paths[ch->path]));
        }
        json_array_append_new(anims, json_pack("{s:s, s:o, s:o}", "name", m->clips[c].name, "samplers", samplers,
                                               "channels", channels));
    }
    if (json_array_size(anims))
        json_object_set_new(w.doc, "animations", anims);
    else
        json_decref(anims);
}

static void put_le32(am_buf *b, uint32_t v)
{
    uint8_t x[4] = {(uint8_t)v, (uint8_t)(v >> 8), (uint8_t)(v >> 16), (uint8_t)(v >> 24)};
    am_buf_append(b, x, 4, NULL);
}

void am_gf_save_memory(json_t *doc, const am_buf *bin, am_gf_container container, am_buf *out)
{
    json_t *copy = json_deep_copy(doc);
    json_t *buf0 = json_array_get(json_object_get(copy, "buffers"), 0);
    if (container == AM_GF_GLTF_EMBEDDED && buf0) {
        char *b64;
        if (am_base64_encode(bin->data ? (const void *)bin->data : "", bin->size, &b64, NULL))
            fail_msg("base64 failed");
        size_t n = strlen(b64) + 64;
        char *uri = xcalloc(n, 1);
        snprintf(uri, n, "data:application/octet-stream;base64,%s", b64);
        json_object_set_new(buf0, "uri", json_string(uri));
        free(uri);
        free(b64);
    }
    char *text = json_dumps(copy, JSON_COMPACT | JSON_REAL_PRECISION(17));
    json_decref(copy);
    if (!text)
        fail_msg("json_dumps failed");
    size_t tn = strlen(text);
    if (container == AM_GF_GLB) {
        size_t jpad = (4 - tn % 4) % 4, bn = bin->size, bpad = (4 - bn % 4) % 4;
        size_t total = 12 + 8 + tn + jpad + (bn ? 8 + bn + bpad : 0);
        am_buf_append(out, "glTF", 4, NULL);
        put_le32(out, 2);
        put_le32(out, (uint32_t)total);
        put_le32(out, (uint32_t)(tn + jpad));
        put_le32(out, 0x4E4F534Au);
        am_buf_append(out, text, tn, NULL);
        am_buf_append(out, "   ", jpad, NULL);
        if (bn) {
            put_le32(out, (uint32_t)(bn + bpad));
            put_le32(out, 0x004E4942u);
            am_buf_append(out, bin->data, bn, NULL);
            am_buf_append(out, "\0\0\0", bpad, NULL);
        }
    } else {
        am_buf_append(out, text, tn, NULL);
    }
    free(text);
}

void am_gf_save(json_t *doc, const am_buf *bin, am_gf_container container, const char *dir, const char *name,
                char *path_out, size_t path_size)
{
    am_buf out = {0};
    if (container == AM_GF_GLTF) {
        char bin_name[256], bin_path[1024];
        snprintf(bin_name, sizeof bin_name, "%s.bin", name);
        snprintf(bin_path, sizeof bin_path, "%s/%s", dir, bin_name);
        if (am_write_file_atomic(bin_path, bin->data ? (const void *)bin->data : "", bin->size, NULL))
            fail_msg("cannot write %s", bin_path);
        json_t *copy = json_deep_copy(doc);
        json_t *buf0 = json_array_get(json_object_get(copy, "buffers"), 0);
        if (buf0 && !json_object_get(buf0, "uri"))
            json_object_set_new(buf0, "uri", json_string(bin_name));
        am_gf_save_memory(copy, bin, AM_GF_GLTF, &out);
        json_decref(copy);
    } else {
        am_gf_save_memory(doc, bin, container, &out);
    }
    snprintf(path_out, path_size, "%s/%s.%s", dir, name, container == AM_GF_GLB ? "glb" : "gltf");
    if (am_write_file_atomic(path_out, out.data, out.size, NULL))
        fail_msg("cannot write %s", path_out);
    am_buf_free(&out);
}

void am_gf_write(const am_gf_model *m, const am_gf_options *opt, const char *dir, const char *name, char *path_out,
                 size_t path_size)
{
    am_buf bin = {0};
    json_t *doc = am_gf_document(m, opt, &bin);
    am_gf_save(doc, &bin, opt ? opt->container : AM_GF_GLTF, dir, name, path_out, path_size);
    json_decref(doc);
    am_buf_free(&bin);
}

void am_gf_write_quad_glb(const char *dir, char *path_out, size_t path_size, am_gf_model *written)
{
    am_gf_model base, m;
    am_gf_quadruped(&base);
    am_gf_convert(&base, AM_GF_Z_UP_CM, &m);
    am_gf_model_free(&base);
    am_gf_options go = {.container = AM_GF_GLB};
    am_gf_write(&m, &go, dir, "quad", path_out, path_size);
    if (written)
        *written = m;
    else
        am_gf_model_free(&m);
}

void am_gf_picture(am_tex_image *img, uint32_t width, uint32_t height, uint32_t channels)
{
    if (am_tex_image_alloc(img, width, height, channels, NULL))
        fail_msg("cannot allocate a test picture");
    for (uint32_t y = 0; y < height; y++)
        for (uint32_t x = 0; x < width; x++) {
            uint8_t *p = &img->pixels[((size_t)y * width + x) * channels];
            bool check = ((x / 8) + (y / 8)) % 2;
            p[0] = (uint8_t)(255 * x / (width > 1 ? width - 1 : 1));
            p[1] = (uint8_t)(255 * y / (height > 1 ? height - 1 : 1));
            p[2] = check ? 200 : 40;
            if (channels == 4)
                p[3] = (uint8_t)(255 - (x + y) % 256);
        }
}

void am_gf_jpeg(const am_tex_image *img, const am_gf_jpeg_options *opt, am_buf *out)
{
    struct jpeg_compress_struct c;
    struct jpeg_error_mgr e;
    c.err = jpeg_std_error(&e);
    jpeg_create_compress(&c);
    unsigned char *mem = NULL;
    unsigned long size = 0;
    jpeg_mem_dest(&c, &mem, &size);
    c.image_width = img->width;
    c.image_height = img->height;
    c.input_components = opt->grey ? 1 : opt->cmyk ? 4 : 3;
    c.in_color_space = opt->grey ? JCS_GRAYSCALE : opt->cmyk ? JCS_CMYK : JCS_RGB;
    jpeg_set_defaults(&c);
    jpeg_set_quality(&c, opt->quality ? opt->quality : 95, TRUE);
    for (int i = 0; i < c.num_components; i++)
        c.comp_info[i].h_samp_factor = c.comp_info[i].v_samp_factor = 1; /* 4:4:4 */
    if (opt->progressive)
        jpeg_simple_progression(&c);
    jpeg_scan_info *script = NULL;
    if (opt->bit_planes) {
        /* per component, per coefficient k: a first scan of the top bit (Al = planes - 1),
         * then one refinement per lower bit (Ah = Al + 1) */
        int planes = (int)opt->bit_planes, n = 0;
        script = xcalloc((size_t)c.num_components * 64 * (size_t)planes, sizeof *script);
        for (int ci = 0; ci < c.num_components; ci++)
            for (int k = 0; k < 64; k++)
                for (int al = planes - 1; al >= 0; al--) {
                    jpeg_scan_info *si = &script[n++];
                    si->comps_in_scan = 1;
                    si->component_index[0] = ci;
                    si->Ss = si->Se = k;
                    si->Ah = al == planes - 1 ? 0 : al + 1;
                    si->Al = al;
                }
        c.scan_info = script;
        c.num_scans = n;
    }
    jpeg_start_compress(&c, TRUE);
    uint8_t *row = xcalloc(img->width, 4);
    while (c.next_scanline < c.image_height) {
        const uint8_t *src = &img->pixels[(size_t)c.next_scanline * img->width * img->channels];
        for (uint32_t x = 0; x < img->width; x++) {
            const uint8_t *p = &src[(size_t)x * img->channels];
            if (opt->grey)
                row[x] = p[0];
            else if (opt->cmyk) /* Adobe's inverted CMYK: the stored value is 1 - ink */
                row[4 * x] = p[0], row[4 * x + 1] = p[1], row[4 * x + 2] = p[2], row[4 * x + 3] = 255;
            else
                row[3 * x] = p[0], row[3 * x + 1] = p[1], row[3 * x + 2] = p[2];
        }
        JSAMPROW rows[1] = {row};
        jpeg_write_scanlines(&c, rows, 1);
    }
    jpeg_finish_compress(&c);
    jpeg_destroy_compress(&c);
    free(script);
    free(row);
    if (am_buf_append(out, mem, size, NULL))
        fail_msg("out of memory");
    free(mem);
}

void am_gf_load(const char *path, am_scene *out)
{
    am_error err;
    am_error_clear(&err);
    if (am_scene_load(path, out, &err)) {
        char buf[512];
        fail_msg("%s", am_error_format(&err, buf, sizeof buf));
    }
}

void am_gf_load_error(const char *path, am_status status, char *msg, size_t size)
{
    am_error err;
    am_error_clear(&err);
    am_scene s;
    am_status st = am_scene_load(path, &s, &err);
    am_error_format(&err, msg, size);
    if (getenv("AM_GF_SHOW")) print_message("%s\n", msg);
    if (st != status)
        fail_msg("%s: expected status %d, got %d (%s)", path, (int)status, (int)st, msg);
    if (s.node_count || s.mesh_count || s.nodes || s.meshes || s.source)
        fail_msg("%s: a refused file left a scene behind", path);
}

static int remove_entry(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
    (void)sb, (void)flag, (void)ftw;
    return remove(path);
}

void am_gf_remove_tree(const char *dir)
{
    nftw(dir, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}
