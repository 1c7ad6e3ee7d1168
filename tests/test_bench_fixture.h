/* Hand-built rigged meshes and motions for the bench tests, pushed through the project's
 * encoders so the bench reads BYTES (docs/reference/lessons.md#rule-4). Header-only on purpose: tests/
 * support is shared, this belongs to the bench tests alone. */
#ifndef AM_TESTS_TEST_BENCH_FIXTURE_H
#define AM_TESTS_TEST_BENCH_FIXTURE_H

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "anim/anim.h"
#include "bench/bench.h"
#include "mesh/mesh_asset.h"
#include "support/test_support.h"

#define FX_MAX_JOINTS 8

/* A closed bar along X: rings of 4 corners at x_i = x0 + i (x1 - x0) / nx, y in {y0, y1},
 * z in {z0, z1}; quads between rings and two end caps. */
typedef struct fx_mesh {
    size_t nv, ni;
    float *pos;      /* bind frame */
    uint16_t *idx;
    uint8_t *count;  /* influences per vertex */
    uint8_t *joint;  /* 4 per vertex */
    double *weight;  /* 4 per vertex */
} fx_mesh;

static inline void fx_bar(fx_mesh *m, int nx, double x0, double x1, double y0, double y1, double z0, double z1)
{
    memset(m, 0, sizeof *m);
    m->nv = 4 * (size_t)(nx + 1);
    m->ni = 3 * (8 * (size_t)nx + 4);
    m->pos = calloc(3 * m->nv, sizeof *m->pos);
    m->idx = calloc(m->ni, sizeof *m->idx);
    m->count = calloc(m->nv, 1);
    m->joint = calloc(4 * m->nv, 1);
    m->weight = calloc(4 * m->nv, sizeof *m->weight);
    assert_non_null(m->pos);
    assert_non_null(m->idx);
    double ys[4] = {y0, y1, y1, y0}, zs[4] = {z0, z0, z1, z1};
    for (int i = 0; i <= nx; i++)
        for (int c = 0; c < 4; c++) {
            size_t v = 4 * (size_t)i + (size_t)c;
            m->pos[3 * v] = (float)(x0 + (x1 - x0) * i / nx);
            m->pos[3 * v + 1] = (float)ys[c];
            m->pos[3 * v + 2] = (float)zs[c];
        }
    size_t t = 0;
    for (int i = 0; i < nx; i++)
        for (int c = 0; c < 4; c++) {
            uint16_t a = (uint16_t)(4 * i + c), b = (uint16_t)(4 * i + (c + 1) % 4);
            uint16_t a2 = (uint16_t)(a + 4), b2 = (uint16_t)(b + 4);
            uint16_t q[6] = {a, b, b2, a, b2, a2};
            memcpy(m->idx + t, q, sizeof q);
            t += 6;
        }
    uint16_t l = (uint16_t)(4 * nx);
    uint16_t caps[12] = {0, 2, 1, 0, 3, 2, l, (uint16_t)(l + 1), (uint16_t)(l + 2), l, (uint16_t)(l + 2),
                         (uint16_t)(l + 3)};
    memcpy(m->idx + t, caps, sizeof caps);
}

static inline void fx_mesh_free(fx_mesh *m)
{
    free(m->pos);
    free(m->idx);
    free(m->count);
    free(m->joint);
    free(m->weight);
    memset(m, 0, sizeof *m);
}

static inline void fx_weigh(fx_mesh *m, size_t v, int slot, uint8_t joint, double w)
{
    m->joint[4 * v + (size_t)slot] = joint;
    m->weight[4 * v + (size_t)slot] = w;
    if ((int)m->count[v] < slot + 1)
        m->count[v] = (uint8_t)(slot + 1);
}

/* The skin of a fixture: joint names, inverse binds (from bind-frame rest positions, no
 * rotation) and optional overrides (alt translations). */
typedef struct fx_skin {
    size_t n;
    const char *names[FX_MAX_JOINTS];
    am_vec3 bind_world[FX_MAX_JOINTS]; /* IBM = inverse(T(bind_world)) */
    bool with_overrides;
    am_vec3 override[FX_MAX_JOINTS];
    am_mat4 bind_shape;                /* identity unless set */
    bool has_bind_shape;
} fx_skin;

static inline char *fx_strdup(const char *s)
{
    char *d = malloc(strlen(s) + 1);
    assert_non_null(d);
    strcpy(d, s);
    return d;
}

/* Build the asset struct (the WRITER's side) and encode it. Positions are given in the
 * bind frame; with a bind shape they are stored as inverse(bind shape) applied. */
static inline void fx_encode(const fx_mesh *m, const fx_skin *sk, am_buf *out)
{
    am_mesh_asset a;
    memset(&a, 0, sizeof a);
    am_mesh_face *f = calloc(1, sizeof *f);
    assert_non_null(f);
    a.lods[AM_LOD_HIGH].faces = f;
    a.lods[AM_LOD_HIGH].face_count = 1;
    f->vertex_count = m->nv;
    f->positions = malloc(3 * m->nv * sizeof *f->positions);
    am_mat4 inv_bs = am_mat4_identity();
    if (sk->has_bind_shape)
        assert_true(am_mat4_inverse(&sk->bind_shape, &inv_bs));
    for (size_t v = 0; v < m->nv; v++) {
        am_vec3 p = am_mat4_transform_point(&inv_bs, am_v3(m->pos[3 * v], m->pos[3 * v + 1], m->pos[3 * v + 2]));
        f->positions[3 * v] = (float)p.x;
        f->positions[3 * v + 1] = (float)p.y;
        f->positions[3 * v + 2] = (float)p.z;
    }
    f->normalized_scale = am_v3(1, 1, 1);
    f->index_count = m->ni;
    f->indices = malloc(m->ni * sizeof *f->indices);
    memcpy(f->indices, m->idx, m->ni * sizeof *f->indices);
    f->has_weights = true;
    f->weight_count = malloc(m->nv);
    f->weight_joint = calloc(4 * m->nv, 1);
    f->weight_code = calloc(4 * m->nv, sizeof *f->weight_code);
    memcpy(f->weight_count, m->count, m->nv);
    for (size_t i = 0; i < 4 * m->nv; i++) {
        f->weight_joint[i] = m->joint[i];
        double c = floor(m->weight[i] * 65535.0);
        f->weight_code[i] = (uint16_t)(c > 65535 ? 65535 : c < 0 ? 0 : c);
    }
    a.has_skin = true;
    a.skin.joint_count = sk->n;
    a.skin.joint_names = calloc(sk->n, sizeof *a.skin.joint_names);
    a.skin.inverse_bind = calloc(sk->n, sizeof *a.skin.inverse_bind);
    for (size_t i = 0; i < sk->n; i++) {
        a.skin.joint_names[i] = fx_strdup(sk->names[i]);
        a.skin.inverse_bind[i] = am_mat4_translation(am_v3_scale(sk->bind_world[i], -1));
    }
    a.skin.bind_shape = sk->has_bind_shape ? sk->bind_shape : am_mat4_identity();
    if (sk->with_overrides) {
        a.skin.alt_inverse_bind = calloc(sk->n, sizeof *a.skin.alt_inverse_bind);
        a.skin.alt_count = sk->n;
        for (size_t i = 0; i < sk->n; i++) {
            a.skin.alt_inverse_bind[i] = a.skin.inverse_bind[i];
            am_mat4_set_translation(&a.skin.alt_inverse_bind[i], sk->override[i]);
        }
    }
    am_error err;
    am_error_clear(&err);
    memset(out, 0, sizeof *out);
    am_status s = am_mesh_asset_encode(&a, out, &err);
    if (s) {
        char buf[512];
        fail_msg("encode: %s", am_error_format(&err, buf, sizeof buf));
    }
    am_mesh_asset_free(&a);
}

static inline void fx_bench(const fx_mesh *m, const fx_skin *sk, const am_skeleton *skel, am_bench *b)
{
    am_buf bytes;
    fx_encode(m, sk, &bytes);
    am_error err;
    am_error_clear(&err);
    am_status s = am_bench_load_mem(bytes.data, bytes.size, "fixture.llmesh", skel, NULL, b, &err);
    am_buf_free(&bytes);
    if (s) {
        char buf[512];
        fail_msg("bench load: %s", am_error_format(&err, buf, sizeof buf));
    }
}

/* A one-joint motion with rotation keys (times in seconds), encoded with the .anim codec
 * and added to the bench as bytes. */
static inline void fx_add_rot_anim(am_bench *b, const char *joint, const double *times, const am_quat *rots, size_t n,
                                   double duration, bool loop)
{
    am_anim a;
    memset(&a, 0, sizeof a);
    a.version = 1;
    a.base_priority = 4;
    a.duration = (float)duration;
    a.emote_name = fx_strdup("");
    a.loop = loop;
    a.loop_in = 0;
    a.loop_out = (float)duration;
    a.joint_count = 1;
    a.joints = calloc(1, sizeof *a.joints);
    a.joints[0].name = fx_strdup(joint);
    a.joints[0].priority = 4;
    a.joints[0].rot_count = n;
    a.joints[0].rot_keys = calloc(n, sizeof *a.joints[0].rot_keys);
    for (size_t i = 0; i < n; i++)
        am_anim_rot_key_set(&a.joints[0].rot_keys[i], (float)times[i], rots[i], (float)duration);
    am_buf bytes = {0};
    am_error err;
    am_error_clear(&err);
    assert_int_equal(am_anim_encode(&a, &bytes, &err), AM_OK);
    am_anim_free(&a);
    am_status s = am_bench_add_anim_mem(b, bytes.data, bytes.size, "fixture.anim", &err);
    am_buf_free(&bytes);
    if (s) {
        char buf[512];
        fail_msg("anim: %s", am_error_format(&err, buf, sizeof buf));
    }
}

#endif
