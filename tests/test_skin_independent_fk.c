/* An odd rig checked against numbers worked out by hand and against forward kinematics
 * written here, independently of the skin builder and of the bench (docs/reference/lessons.md#rule-3 and #rule-4;
 * docs/reference/mesh-asset.md#skinning-formula and #joint-position-overrides;
 * docs/reference/viewer-skeleton.md#rest-transforms, #joint-position-overrides and #the-pelvis-override-trap;
 * docs/reference/collada-upload.md#joint-positions).
 *
 * The rig (bind frame = skeleton-file frame, mPelvis default (0, 0, 1.067)):
 *   mTail1         at its default world (-0.116, 0, 1.114)           -> no override
 *   mTail2         moved to (-0.35, 0, 1.13)                          -> (-0.234, 0, 0.016)
 *   mTail3         0.05 mm beyond its default offset from the MOVED mTail2
 *                  (-0.51795, 0, 1.13)                                -> default exactly
 *   mTail5         (-0.80, 0.02, 1.10) under the appended mTail4, which the viewer puts at
 *                  mTail3's viewer position + (-0.142, 0, 0) = (-0.660, 0, 1.13)
 *                                                                      -> (-0.14, 0.02, -0.03)
 *   mHindLimbsRoot moved to (-0.25, 0, 1.20) (viewer parent mPelvis) -> (-0.25, 0, 0.133)
 *   mHindLimb1Left (-0.45, 0.13, 1.08) under the moved root          -> (-0.20, 0.13, -0.12)
 *   mHindLimb3Left (-0.47, 0.09, 0.12) under the appended mHindLimb2Left, at
 *                  (-0.45, 0.13, 1.08) + (0.002, -0.046, -0.491) = (-0.448, 0.084, 0.589)
 *                                                                      -> (-0.022, 0.006, -0.469)
 *   BELLY          (collision volume under mTorso, rot 8 deg about Y, scale (0.09, 0.13, 0.15))
 *                  moved to (0.05, 0, 1.20); mTorso appended at (0, 0, 1.151)
 *                                                                      -> (0.05, 0, 0.049)
 *   Appended ancestors at their file defaults: mPelvis exactly (0, 0, 1.067) (the pelvis trap),
 *   mSpine1, mSpine2, mTorso, mTail4, mHindLimb2Left. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mesh/mesh_asset.h"
#include "skin/rig.h"
#include "skin/skin_build.h"
#include "bench/bench.h"
#include "support/test_support.h"

typedef struct expect {
    const char *name;
    double world[3]; /* rig world, bind frame */
    double alt[3];   /* expected alt translation, worked out by hand (header) */
    int overridden;  /* the viewer applies it (> 0.1 mm from the file default) */
} expect;

static const expect rig_joints[] = {
    {"mTail1", {-0.116, 0, 1.114}, {-0.116, 0, 0.047}, 0},
    {"mTail2", {-0.35, 0, 1.13}, {-0.234, 0, 0.016}, 1},
    {"mTail3", {-0.51795, 0, 1.13}, {-0.168, 0, 0}, 0},
    {"mTail5", {-0.80, 0.02, 1.10}, {-0.14, 0.02, -0.03}, 1},
    {"mHindLimbsRoot", {-0.25, 0, 1.20}, {-0.25, 0, 0.133}, 1},
    {"mHindLimb1Left", {-0.45, 0.13, 1.08}, {-0.20, 0.13, -0.12}, 1},
    {"mHindLimb3Left", {-0.47, 0.09, 0.12}, {-0.022, 0.006, -0.469}, 1},
    {"BELLY", {0.05, 0, 1.20}, {0.05, 0, 0.049}, 1},
};
#define NRIG (sizeof rig_joints / sizeof rig_joints[0])

static const expect appended[] = {
    {"mPelvis", {0, 0, 1.067}, {0, 0, 1.067}, 0},
    {"mSpine1", {0, 0, 1.151}, {0, 0, 0.084}, 0},
    {"mSpine2", {0, 0, 1.067}, {0, 0, -0.084}, 0},
    {"mTorso", {0, 0, 1.151}, {0, 0, 0.084}, 0},
    {"mTail4", {-0.66, 0, 1.13}, {-0.142, 0, 0}, 0},
    {"mHindLimb2Left", {-0.448, 0.084, 0.589}, {0.002, -0.046, -0.491}, 0},
};
#define NAPP (sizeof appended / sizeof appended[0])

/* Per rig joint three vertices around it: two fully on the joint, one blended 60/40 with
 * the next rig joint (so blends are checked too). Triangles (3i, 3i+1, 3i+2) keep the rig's
 * vertex order as the face's first-use order. */
static am_rig *odd_rig(void)
{
    am_rig *r = calloc(1, sizeof *r);
    r->name = strdup("odd");
    r->joint_count = NRIG;
    r->joints = calloc(NRIG, sizeof *r->joints);
    for (size_t i = 0; i < NRIG; i++) {
        r->joints[i].name = strdup(rig_joints[i].name);
        r->joints[i].world = am_v3(rig_joints[i].world[0], rig_joints[i].world[1], rig_joints[i].world[2]);
    }
    size_t nv = 3 * NRIG;
    r->vertex_count = nv;
    r->positions = malloc(3 * nv * sizeof(float));
    r->normals = calloc(3 * nv, sizeof(float));
    r->uvs = calloc(2 * nv, sizeof(float));
    r->triangle_count = NRIG;
    r->triangles = malloc(3 * NRIG * sizeof(uint32_t));
    r->weight_start = malloc((nv + 1) * sizeof(size_t));
    r->influences = malloc(4 * nv * sizeof(am_rig_influence));
    size_t ni = 0;
    for (size_t i = 0; i < NRIG; i++) {
        static const double off[3][3] = {{0.03, 0.02, 0.01}, {-0.02, 0.04, -0.03}, {0.01, -0.03, 0.05}};
        for (int k = 0; k < 3; k++) {
            size_t v = 3 * i + (size_t)k;
            for (int a = 0; a < 3; a++)
                r->positions[3 * v + a] = (float)(rig_joints[i].world[a] + off[k][a]);
            r->normals[3 * v + 2] = 1;
            r->triangles[v] = (uint32_t)v;
            r->weight_start[v] = ni;
            if (k < 2) {
                r->influences[ni++] = (am_rig_influence){(int)i, 1.0};
            } else {
                r->influences[ni++] = (am_rig_influence){(int)i, 0.6};
                r->influences[ni++] = (am_rig_influence){(int)((i + 1) % NRIG), 0.4};
            }
        }
    }
    r->weight_start[nv] = ni;
    return r;
}

static void free_rig(am_rig *r)
{
    am_rig_free(r);
    free(r);
}

static int skin_index(const am_mesh_skin *s, const char *name)
{
    for (size_t i = 0; i < s->joint_count; i++)
        if (strcmp(s->joint_names[i], name) == 0)
            return (int)i;
    return -1;
}

/* Build, encode and DECODE the odd rig. */
static void decoded_odd(const am_skeleton *skel, am_mesh_asset *back, am_buf *bytes)
{
    am_rig *r = odd_rig();
    am_error err;
    am_error_clear(&err);
    char msg[512];
    am_skin_result res;
    if (am_skin_build(r, skel, NULL, &res, &err))
        fail_msg("%s", am_error_format(&err, msg, sizeof msg));
    memset(bytes, 0, sizeof *bytes);
    assert_int_equal(am_skin_encode(&res, bytes, &err), AM_OK);
    assert_int_equal(am_mesh_asset_decode(bytes->data, bytes->size, back, &err), AM_OK);
    am_skin_result_free(&res);
    free_rig(r);
}

static void test_alt_translations_of_the_odd_rig_match_the_hand_numbers(void **state)
{
    (void)state;
    am_skeleton skel;
    am_test_load_viewer_skeleton(&skel);
    am_mesh_asset back;
    am_buf bytes;
    decoded_odd(&skel, &back, &bytes);
    const am_mesh_skin *s = &back.skin;
    assert_int_equal(s->joint_count, NRIG + NAPP);
    assert_int_equal(s->alt_count, s->joint_count);
    for (size_t i = 0; i < NRIG; i++) {
        assert_string_equal(s->joint_names[i], rig_joints[i].name); /* rig order kept */
        for (int k = 0; k < 3; k++)
            assert_near(s->alt_inverse_bind[i].m[12 + k], rig_joints[i].alt[k], 1e-9);
    }
    for (size_t a = 0; a < NAPP; a++) {
        int i = skin_index(s, appended[a].name);
        assert_ge(i, (int)NRIG);
        for (int k = 0; k < 3; k++) /* the file default exactly */
            assert_true(s->alt_inverse_bind[i].m[12 + k] == appended[a].alt[k]);
    }
    /* the pelvis trap: exactly (0, 0, 1.067), which the viewer ignores */
    int p = skin_index(s, "mPelvis");
    assert_true(s->alt_inverse_bind[p].m[12] == 0 && s->alt_inverse_bind[p].m[13] == 0 &&
                s->alt_inverse_bind[p].m[14] == 1.067);
    /* mTail3 within 0.1 mm: written as the default exactly */
    assert_true(s->alt_inverse_bind[2].m[12] == -0.168 && s->alt_inverse_bind[2].m[14] == 0);
    am_buf_free(&bytes);
    am_mesh_asset_free(&back);
    am_skeleton_free(&skel);
}

/* Column-form rotation matrix of a unit quaternion (x, y, z, w), written out here. */
static void rot_cols(am_quat q, double R[3][3])
{
    double x = q.x, y = q.y, z = q.z, w = q.w;
    R[0][0] = 1 - 2 * (y * y + z * z), R[0][1] = 2 * (x * y - z * w), R[0][2] = 2 * (x * z + y * w);
    R[1][0] = 2 * (x * y + z * w), R[1][1] = 1 - 2 * (x * x + z * z), R[1][2] = 2 * (y * z - x * w);
    R[2][0] = 2 * (x * z - y * w), R[2][1] = 2 * (y * z + x * w), R[2][2] = 1 - 2 * (x * x + y * y);
}

static void mul33(const double A[3][3], const double B[3][3], double C[3][3])
{
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            C[i][j] = A[i][0] * B[0][j] + A[i][1] * B[1][j] + A[i][2] * B[2][j];
}

static void apply33(const double A[3][3], const double v[3], double out[3])
{
    for (int i = 0; i < 3; i++)
        out[i] = A[i][0] * v[0] + A[i][1] * v[1] + A[i][2] * v[2];
}

/* A skin-block matrix (LL layout, row vector) applied to a point. */
static void apply_ll(const am_mat4 *M, const double p[3], double out[3])
{
    const double *m = M->m;
    for (int c = 0; c < 3; c++)
        out[c] = p[0] * m[c] + p[1] * m[4 + c] + p[2] * m[8 + c] + m[12 + c];
}

typedef struct fk {
    double pos[3];
    double R[3][3]; /* world rotation, column form */
    double s[3];    /* own scale */
} fk;

/* docs/reference/viewer-skeleton.md#rest-transforms in the bind frame (mRoot at the origin, mPelvis at its file position or
 * its override): each joint's local position is its file `pos`, replaced by the decoded alt
 * translation when that is more than 0.1 mm from `pos`; the PARENT's own scale scales the
 * offset; the world matrix carries the joint's own scale only. */
static fk *viewer_fk_bind_frame(const am_skeleton *skel, const am_mesh_skin *s)
{
    fk *w = calloc(skel->joint_count, sizeof *w);
    for (size_t j = 0; j < skel->joint_count; j++) {
        const am_joint *jt = &skel->joints[j];
        double local[3] = {jt->pos.x, jt->pos.y, jt->pos.z};
        for (size_t i = 0; i < s->joint_count; i++)
            if (am_skeleton_find(skel, s->joint_names[i]) == (int)j) {
                const double *t = &s->alt_inverse_bind[i].m[12];
                double d2 = (t[0] - local[0]) * (t[0] - local[0]) + (t[1] - local[1]) * (t[1] - local[1]) +
                            (t[2] - local[2]) * (t[2] - local[2]);
                if (d2 > 1e-8)
                    memcpy(local, t, sizeof local);
            }
        double Rl[3][3];
        rot_cols(jt->rot, Rl);
        w[j].s[0] = jt->scale.x, w[j].s[1] = jt->scale.y, w[j].s[2] = jt->scale.z;
        if (jt->parent < 0) {
            memcpy(w[j].pos, local, sizeof local);
            memcpy(w[j].R, Rl, sizeof Rl);
            continue;
        }
        const fk *P = &w[jt->parent];
        double scaled[3] = {local[0] * P->s[0], local[1] * P->s[1], local[2] * P->s[2]}, off[3];
        apply33(P->R, scaled, off);
        for (int k = 0; k < 3; k++)
            w[j].pos[k] = P->pos[k] + off[k];
        mul33(P->R, Rl, w[j].R);
    }
    return w;
}

/* W_j p = pos + R (s * p) */
static void apply_world(const fk *W, const double p[3], double out[3])
{
    double sp[3] = {p[0] * W->s[0], p[1] * W->s[1], p[2] * W->s[2]}, r[3];
    apply33(W->R, sp, r);
    for (int k = 0; k < 3; k++)
        out[k] = W->pos[k] + r[k];
}

/* docs/reference/mesh-asset.md#skinning-formula: sum_k w_k W_j IBM_j BSM p == p_bind for every vertex, with the
 * uploader's unit-cube normalisation folded into the bind shape, and W_j IBM_j = I. */
static void test_viewer_fk_times_inverse_bind_times_bind_shape_restores_every_vertex(void **state)
{
    (void)state;
    am_skeleton skel;
    am_test_load_viewer_skeleton(&skel);
    am_mesh_asset back;
    am_buf bytes;
    decoded_odd(&skel, &back, &bytes);
    const am_mesh_skin *s = &back.skin;
    fk *W = viewer_fk_bind_frame(&skel, s);

    /* joints: W_j IBM_j maps three probe points onto themselves */
    for (size_t i = 0; i < s->joint_count; i++) {
        int j = am_skeleton_find(&skel, s->joint_names[i]);
        assert_ge(j, 0);
        static const double probes[3][3] = {{0, 0, 0}, {1, -2, 0.5}, {-0.3, 0.7, 2}};
        for (int q = 0; q < 3; q++) {
            double a[3], b[3];
            apply_ll(&s->inverse_bind[i], probes[q], a);
            apply_world(&W[j], a, b);
            for (int k = 0; k < 3; k++)
                assert_near(b[k], probes[q][k], 1e-9);
        }
    }
    /* the BELLY volume's matrix really carries its 8 degree turn and its own scale */
    int belly = am_skeleton_find(&skel, "BELLY");
    assert_near(W[belly].s[0], 0.09, 1e-12);
    assert_near(W[belly].R[0][2], sin(8 * AM_PI / 180), 1e-6);

    /* vertices: the unit cube spans the rig's box; the F32 round trip and the 16-bit
     * quantisation (range / 65535 per axis) are the only error */
    am_rig *r = odd_rig();
    const am_mesh_face *f = &back.lods[AM_LOD_HIGH].faces[0];
    assert_int_equal(back.lods[AM_LOD_HIGH].face_count, 1);
    assert_int_equal(f->vertex_count, r->vertex_count);
    double lo[3] = {1e9, 1e9, 1e9}, hi[3] = {-1e9, -1e9, -1e9};
    for (size_t v = 0; v < r->vertex_count; v++)
        for (int k = 0; k < 3; k++) {
            lo[k] = fmin(lo[k], r->positions[3 * v + k]);
            hi[k] = fmax(hi[k], r->positions[3 * v + k]);
        }
    double worst = 0;
    for (size_t v = 0; v < f->vertex_count; v++) {
        double p[3] = {f->positions[3 * v], f->positions[3 * v + 1], f->positions[3 * v + 2]};
        /* asset positions are in the unit cube */
        for (int k = 0; k < 3; k++)
            assert_le(fabs(p[k]), 0.5 + 1e-6);
        double b[3];
        apply_ll(&s->bind_shape, p, b);
        double sum = 0, out[3] = {0, 0, 0};
        for (int k = 0; k < 4; k++)
            sum += f->weight_value[4 * v + k];
        for (int k = 0; k < 4; k++) {
            double w = f->weight_value[4 * v + k] / sum;
            if (w == 0)
                continue;
            int i = f->weight_joint[4 * v + k];
            int j = am_skeleton_find(&skel, s->joint_names[i]);
            double a[3], c[3];
            apply_ll(&s->inverse_bind[i], b, a);
            apply_world(&W[j], a, c);
            for (int e = 0; e < 3; e++)
                out[e] += w * c[e];
        }
        for (int k = 0; k < 3; k++) {
            double err = fabs(out[k] - r->positions[3 * v + k]);
            assert_le(err, 1.5 * (hi[k] - lo[k]) / 65535 + 1e-6);
            worst = fmax(worst, err);
        }
    }
    print_message("largest |W IBM BSM p - p_bind| over the vertices: %.3g m\n", worst);
    assert_gt(worst, 0); /* quantised, so not exactly zero: the check is live */

    /* the bench, which shares no code with this test or the builder, agrees: rest error
     * within the quantisation, and its prim-frame joints are these bind-frame joints
     * lowered by mPelvis's file height (docs/reference/viewer-skeleton.md#the-pelvis-and-the-two-frames) */
    am_bench bench;
    am_error err;
    am_error_clear(&err);
    assert_int_equal(am_bench_load_mem(bytes.data, bytes.size, "odd", &skel, NULL, &bench, &err), AM_OK);
    am_bench_stats st;
    assert_int_equal(am_bench_rest_error(&bench, &st, &err), AM_OK);
    print_message("bench rest error: max %.3g m, rms %.3g m\n", st.max, st.rms);
    assert_lt(st.max, 3e-5);
    am_vec3 *joints = malloc(skel.joint_count * sizeof *joints);
    assert_int_equal(am_bench_pose_at(&bench, -1, 0, NULL, joints, &err), AM_OK);
    for (size_t j = 0; j < skel.bone_count + skel.volume_count; j++) {
        assert_near(joints[j].x, W[j].pos[0], 1e-6);
        assert_near(joints[j].y, W[j].pos[1], 1e-6);
        assert_near(joints[j].z + 1.067, W[j].pos[2], 1e-6);
    }
    free(joints);
    am_bench_free(&bench);
    free_rig(r);
    free(W);
    am_buf_free(&bytes);
    am_mesh_asset_free(&back);
    am_skeleton_free(&skel);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_alt_translations_of_the_odd_rig_match_the_hand_numbers),
        cmocka_unit_test(test_viewer_fk_times_inverse_bind_times_bind_shape_restores_every_vertex),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
