/* Hand-built scenes for the import tests (scene_fixtures.h). */
#include "scene_fixtures.h"

#include <math.h>
#include <stdbool.h>
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

/* --- the quadruped ---------------------------------------------------------------------- */

am_vec3 sf_to_viewer(sf_frame k, am_vec3 p)
{
    switch (k) {
    case SF_YUP_M: return am_v3(p.z, p.x, p.y);                      /* glTF: +Z forward, +X left, +Y up */
    case SF_ZUP_CM: return am_v3(-p.y * 0.01, p.x * 0.01, p.z * 0.01); /* faces -Y, +X left, +Z up, cm */
    default: return p;                                            /* already the viewer's axes */
    }
}

/* body coordinates (X forward, Y left, Z up, metres) -> file coordinates (the inverse) */
static am_vec3 to_file(sf_frame k, am_vec3 b)
{
    switch (k) {
    case SF_YUP_M: return am_v3(b.y, b.z, b.x);
    case SF_ZUP_CM: return am_v3(b.y, -b.x, b.z); /* metres; the armature scales by 100 */
    default: return b;
    }
}

const sf_qjoint SF_Q[] = {
    {"hips", -1, {-0.40, 0, 0.80}, {-0.15, 0, 0.82}},           /* 0 */
    {"spine", 0, {-0.15, 0, 0.82}, {0.10, 0, 0.84}},            /* 1 */
    {"spine.001", 1, {0.10, 0, 0.84}, {0.35, 0, 0.85}},         /* 2 */
    {"chest", 2, {0.35, 0, 0.85}, {0.52, 0, 0.98}},             /* 3 */
    {"neck", 3, {0.52, 0, 0.98}, {0.66, 0, 1.15}},              /* 4 */
    {"head", 4, {0.66, 0, 1.15}, {0.92, 0, 1.10}},              /* 5 */
    {"thigh.L", 0, {-0.45, 0.15, 0.75}, {-0.40, 0.15, 0.45}},   /* 6 */
    {"shin.L", 6, {-0.40, 0.15, 0.45}, {-0.50, 0.15, 0.20}},    /* 7 */
    {"foot.L", 7, {-0.50, 0.15, 0.20}, {-0.46, 0.15, 0.03}},    /* 8 */
    {"toe.L", 8, {-0.46, 0.15, 0.03}, {-0.38, 0.15, 0.0}},      /* 9 */
    {"thigh.R", 0, {-0.45, -0.15, 0.75}, {-0.40, -0.15, 0.45}}, /* 10 */
    {"shin.R", 10, {-0.40, -0.15, 0.45}, {-0.50, -0.15, 0.20}}, /* 11 */
    {"foot.R", 11, {-0.50, -0.15, 0.20}, {-0.46, -0.15, 0.03}}, /* 12 */
    {"toe.R", 12, {-0.46, -0.15, 0.03}, {-0.38, -0.15, 0.0}},   /* 13 */
    {"upper_arm.L", 3, {0.35, 0.14, 0.75}, {0.37, 0.14, 0.45}}, /* 14 */
    {"forearm.L", 14, {0.37, 0.14, 0.45}, {0.36, 0.14, 0.06}},  /* 15 */
    {"hand.L", 15, {0.36, 0.14, 0.06}, {0.42, 0.14, 0.0}},      /* 16 */
    {"upper_arm.R", 3, {0.35, -0.14, 0.75}, {0.37, -0.14, 0.45}}, /* 17 */
    {"forearm.R", 17, {0.37, -0.14, 0.45}, {0.36, -0.14, 0.06}},  /* 18 */
    {"hand.R", 18, {0.36, -0.14, 0.06}, {0.42, -0.14, 0.0}},      /* 19 */
    {"tail", 0, {-0.55, 0, 0.85}, {-0.75, 0, 0.80}},            /* 20 */
    {"tail.001", 20, {-0.75, 0, 0.80}, {-0.95, 0, 0.70}},       /* 21 */
    {"tail.002", 21, {-0.95, 0, 0.70}, {-1.10, 0, 0.60}},       /* 22 */
    {"tail.003", 22, {-1.10, 0, 0.60}, {-1.20, 0, 0.50}},       /* 23 */
};
const size_t SF_NQ = sizeof SF_Q / sizeof SF_Q[0];
#define Q SF_Q
#define NQ (sizeof SF_Q / sizeof SF_Q[0])

static am_vec3 qv(const double p[3]) { return am_v3(p[0], p[1], p[2]); }

/* The rotation taking +Y to d, then rolled about d (a Blender bone's orientation). */
static am_quat bone_rot(am_vec3 d, double roll)
{
    am_vec3 y = am_v3(0, 1, 0), n = am_v3_normalize(d), ax = am_v3_cross(y, n);
    double c = am_v3_dot(y, n);
    am_quat q = am_v3_len(ax) < 1e-9 ? (c > 0 ? am_quat_identity() : am_quat_axis_angle(am_v3(1, 0, 0), AM_PI))
                                     : am_quat_axis_angle(ax, acos(fmax(-1, fmin(1, c))));
    return am_quat_normalize(am_quat_mul(am_quat_axis_angle(n, roll), q));
}

void sf_quadruped(am_scene *s, sf_frame k, bool names, bool with_clip)
{
    double unit = k == SF_ZUP_CM ? 100 : 1; /* file units per metre */
    sf_init(s, k == SF_ZUP_CM ? "quadruped_zup_cm.gltf" : "quadruped.gltf", 2, 3, 1); /* declared as glTF */
    sf_node(s, "Armature", -1, am_v3(0, 0, 0), am_quat_identity(), am_v3(unit, unit, unit));
    am_quat world[NQ];
    for (size_t i = 0; i < NQ; i++) {
        const sf_qjoint *j = &Q[i];
        am_vec3 p = to_file(k, qv(j->p)), e = to_file(k, qv(j->end));
        world[i] = bone_rot(am_v3_sub(e, p), 0.3 * (double)i - 1.0);
        am_quat pr = j->parent >= 0 ? world[j->parent] : am_quat_identity();
        am_vec3 pp = j->parent >= 0 ? to_file(k, qv(Q[j->parent].p)) : am_v3(0, 0, 0);
        am_vec3 t = am_quat_rotate(am_quat_conj(pr), am_v3_sub(p, pp));
        am_quat r = am_quat_normalize(am_quat_mul(am_quat_conj(pr), world[i]));
        sf_node(s, names ? j->name : "", j->parent + 1, t, r, am_v3(1, 1, 1));
    }
    int joints[NQ], blend[NQ];
    am_vec3 ends[NQ];
    for (size_t i = 0; i < NQ; i++) {
        joints[i] = (int)i + 1;
        blend[i] = Q[i].parent;
        ends[i] = am_v3_scale(to_file(k, qv(Q[i].end)), unit);
    }
    sf_skin(s, joints, NQ);
    sf_bone_boxes(s, 0, ends, blend, 0.05 * unit, 3);
    /* hand.L's node rest differs from the bind pose by 10 deg: every frame shows it */
    am_scene_node *hand = &s->nodes[17];
    am_scene_node_set_trs(hand, hand->translation,
                          am_quat_mul(hand->rotation, am_quat_axis_angle(am_v3(1, 0, 0), 10 * AM_DEG2RAD)), hand->scale);
    if (with_clip) {
        int c = sf_clip(s, "walk");
        float t5[5] = {0, 0.25f, 0.5f, 0.75f, 1.0f};
        double swing[5] = {0, 20, 0, -20, 0}, bend[5] = {0, -25, -35, -10, 0}, anti[5] = {0, -20, 0, 20, 0};
        sf_rot_about(s, c, 7, AM_SCENE_INTERP_LINEAR, am_v3(1, 0, 0), 5, t5, swing);  /* thigh.L */
        sf_rot_about(s, c, 8, AM_SCENE_INTERP_LINEAR, am_v3(1, 0, 0), 5, t5, bend);   /* shin.L */
        sf_rot_about(s, c, 11, AM_SCENE_INTERP_LINEAR, am_v3(1, 0, 0), 5, t5, anti);  /* thigh.R */
        sf_rot_about(s, c, 15, AM_SCENE_INTERP_LINEAR, am_v3(1, 0, 0), 5, t5, anti);  /* upper_arm.L */
        sf_rot_about(s, c, 16, AM_SCENE_INTERP_LINEAR, am_v3(0, 0, 1), 5, t5, bend);  /* forearm.L */
        sf_rot_about(s, c, 18, AM_SCENE_INTERP_LINEAR, am_v3(1, 0, 0), 5, t5, swing); /* upper_arm.R */
        double tail[5] = {0, 25, 0, -25, 0};
        sf_rot_about(s, c, 21, AM_SCENE_INTERP_LINEAR, am_v3(0, 0, 1), 5, t5, tail);  /* tail */
        sf_rot_about(s, c, 22, AM_SCENE_INTERP_LINEAR, am_v3(1, 0, 0), 5, t5, tail);  /* tail.001 */
        double nod[3] = {0, 15, 0};
        float t3[3] = {0, 0.5f, 1.0f};
        sf_rot_about(s, c, 6, AM_SCENE_INTERP_LINEAR, am_v3(1, 0, 0), 3, t3, nod);    /* head */
        /* toe.L: STEP (holds, then jumps at 0.5 s) */
        double tap[3] = {0, 30, 0};
        sf_rot_about(s, c, 10, AM_SCENE_INTERP_STEP, am_v3(1, 0, 0), 3, t3, tap);
        /* spine: CUBICSPLINE about its local Z with non-zero tangents */
        {
            float vals[3 * 12] = {0};
            double deg[3] = {0, 12, 0};
            am_quat rest = s->nodes[2].rotation;
            for (int kk = 0; kk < 3; kk++) {
                am_quat q = am_quat_mul(rest, am_quat_axis_angle(am_v3(0, 0, 1), deg[kk] * AM_DEG2RAD));
                float *v = &vals[12 * kk];
                v[4] = (float)q.x, v[5] = (float)q.y, v[6] = (float)q.z, v[7] = (float)q.w;
                /* tangents: a bulge between keys (glTF tangents are per second) */
                float tg = kk == 1 ? 0.0f : (kk == 0 ? 0.4f : -0.4f);
                v[2] = v[10] = tg * (float)rest.w; /* in and out tangent, z component */
            }
            sf_channel(s, c, 2, AM_SCENE_PATH_ROTATION, AM_SCENE_INTERP_CUBICSPLINE, 3, t3, vals);
        }
        /* hips: translation bob and shift (file units), rotation sway */
        {
            am_vec3 rest = s->nodes[1].translation, up = am_v3_scale(to_file(k, am_v3(0, 0, 0.03)), 1),
                    fw = to_file(k, am_v3(0.06, 0, 0));
            float vals[15];
            double bob[5] = {0, 1, 0, 1, 0}, go[5] = {0, 0.5, 1, 0.5, 0};
            for (int kk = 0; kk < 5; kk++) {
                am_vec3 p = am_v3_add(rest, am_v3_add(am_v3_scale(up, bob[kk]), am_v3_scale(fw, go[kk])));
                vals[3 * kk] = (float)p.x, vals[3 * kk + 1] = (float)p.y, vals[3 * kk + 2] = (float)p.z;
            }
            sf_channel(s, c, 1, AM_SCENE_PATH_TRANSLATION, AM_SCENE_INTERP_LINEAR, 5, t5, vals);
            double sway[5] = {0, 4, 0, -4, 0};
            sf_rot_about(s, c, 1, AM_SCENE_INTERP_LINEAR, am_v3(0, 1, 0), 5, t5, sway);
        }
        /* constant translation channels, as Blender writes them for every bone */
        for (int n = 7; n <= 10; n++) {
            am_vec3 t = s->nodes[n].translation;
            float vals[6] = {(float)t.x, (float)t.y, (float)t.z, (float)t.x, (float)t.y, (float)t.z};
            float t2[2] = {0, 1};
            sf_channel(s, c, n, AM_SCENE_PATH_TRANSLATION, AM_SCENE_INTERP_LINEAR, 2, t2, vals);
        }
    }
    am_error err;
    assert_int_equal(am_scene_finish(s, &err), AM_OK);
}


/* --- the bend box ---------------------------------------------------------------------- */

static double smooth(double x) { return x <= 0 ? 0 : x >= 1 ? 1 : x * x * (3 - 2 * x); }

void sf_bend_box(am_scene *s, bool tip)
{
    sf_init(s, "bendbox.gltf", 0, 0, 0);
    int root = sf_node(s, "root", -1, am_v3(0, 0, 0), am_quat_identity(), am_v3(1, 1, 1));
    int flap = sf_node(s, "flap", root, am_v3(0, 0, 0), am_quat_identity(), am_v3(1, 1, 1));
    int tipn = tip ? sf_node(s, "tip", flap, am_v3(1.5, 0, 0), am_quat_identity(), am_v3(1, 1, 1)) : -1;
    int joints[3] = {root, flap, tipn};
    sf_skin(s, joints, tip ? 3 : 2);
    s->meshes = calloc(1, sizeof *s->meshes);
    assert_non_null(s->meshes);
    s->mesh_count = 1;
    am_scene_mesh *m = &s->meshes[0];
    m->name = dup("box");
    m->node = -1;
    m->skin = 0;
    size_t nx = 9, ny = 3, nv = 2 * nx * ny;
    m->vertex_count = nv;
    m->positions = malloc(3 * nv * sizeof(float));
    m->influence_start = malloc((nv + 1) * sizeof(size_t));
    m->influences = malloc(2 * nv * sizeof(am_scene_influence));
    m->face_count = 1;
    m->faces = calloc(1, sizeof *m->faces);
    m->faces[0].material = -1;
    m->faces[0].indices = malloc(2 * (nx - 1) * (ny - 1) * 6 * sizeof(uint32_t));
    assert_non_null(m->faces[0].indices);
    size_t v = 0, inf = 0, ii = 0;
    for (size_t layer = 0; layer < 2; layer++)
        for (size_t j = 0; j < ny; j++)
            for (size_t i = 0; i < nx; i++, v++) {
                double x = -2 + 0.5 * (double)i, y = -1 + (double)j, z = layer ? 0.5 : -0.5;
                m->positions[3 * v] = (float)x;
                m->positions[3 * v + 1] = (float)y;
                m->positions[3 * v + 2] = (float)z;
                m->influence_start[v] = inf;
                if (tip && x >= 1.75) {
                    m->influences[inf++] = (am_scene_influence){2, 1};
                } else {
                    double w = smooth((x + 1) / 2);
                    if (w < 1)
                        m->influences[inf++] = (am_scene_influence){0, (float)(1 - w)};
                    if (w > 0)
                        m->influences[inf++] = (am_scene_influence){1, (float)w};
                }
                if (i + 1 < nx && j + 1 < ny) {
                    uint32_t a = (uint32_t)v, b = a + 1, c = a + (uint32_t)nx, d = c + 1;
                    uint32_t t6[6] = {a, b, d, a, d, c};
                    memcpy(&m->faces[0].indices[ii], t6, sizeof t6);
                    ii += 6;
                }
            }
    m->influence_start[nv] = inf;
    m->faces[0].index_count = ii;
    int clip = sf_clip(s, "fold");
    float times[3] = {0, 3, 6};
    double deg[3] = {0, 90, 0};
    sf_rot_about(s, clip, flap, AM_SCENE_INTERP_LINEAR, am_v3(0, 1, 0), 3, times, deg);
    if (tip) {
        double tdeg[3] = {0, 30, 0};
        sf_rot_about(s, clip, tipn, AM_SCENE_INTERP_LINEAR, am_v3(0, 1, 0), 3, times, tdeg);
    }
    am_error err;
    assert_int_equal(am_scene_finish(s, &err), AM_OK);
}

