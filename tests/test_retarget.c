/* Retargeting end to end (src/import/retarget.h), at library level with scenes built by
 * hand: scene -> retarget -> am_skin_build -> encode -> the bench reading the DECODED
 * .llmesh and .anim. At several clip times (on keys and between them) the bench's posed
 * vertices must match the source model's own skinning of the same clip
 * (am_scene_skin_positions under worlds from am_scene_eval_clip), converted to the viewer
 * frame by the conversion written out here for each fixture (not the library's), to 1e-3
 * of the model's height.
 *
 * Fixtures: the two-bone bend box (axes given, map given); a quadruped (spine, four legs,
 * tail, neck, head) whose joints have NON-IDENTITY rest rotations (each bone's local +Y
 * along the bone with a roll, as Blender exports them), with a walk mixing LINEAR, STEP and
 * CUBICSPLINE keys, pelvis translation, constant translation channels and a joint whose
 * node rest differs from the skin's bind pose; in Y-up metres (glTF frame, placed at the
 * viewer's pelvis) AND Z-up centimetres under a x100 armature (declared glTF: conflicts
 * reported; placed at the file origin, so mPelvis is overridden and the pelvis keys must
 * include the override). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "import/retarget.h"
#include "scene_fixtures.h"
#include "skin/skin_build.h"
#include "test_support.h"

static am_skeleton g_skel;

static int setup(void **state)
{
    (void)state;
    am_test_load_viewer_skeleton(&g_skel);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    am_skeleton_free(&g_skel);
    return 0;
}

/* --- the independent conversions --------------------------------------------------------- */

typedef enum frame_kind { YUP_M = 0, ZUP_CM = 1, ZUP_M_X = 2 } frame_kind;

/* file -> viewer axes and metres, written out per fixture */
static am_vec3 conv(frame_kind k, am_vec3 p)
{
    switch (k) {
    case YUP_M: return am_v3(p.z, p.x, p.y);                      /* glTF: +Z forward, +X left, +Y up */
    case ZUP_CM: return am_v3(-p.y * 0.01, p.x * 0.01, p.z * 0.01); /* faces -Y, +X left, +Z up, cm */
    default: return p;                                            /* already the viewer's axes */
    }
}

/* body coordinates (X forward, Y left, Z up, metres) -> file coordinates (the inverse) */
static am_vec3 to_file(frame_kind k, am_vec3 b)
{
    switch (k) {
    case YUP_M: return am_v3(b.y, b.z, b.x);
    case ZUP_CM: return am_v3(b.y, -b.x, b.z); /* metres; the armature scales by 100 */
    default: return b;
    }
}

/* --- pipeline + comparison ----------------------------------------------------------------- */

typedef struct run {
    am_retarget_result res;
    am_bench bench;
    size_t *match;   /* bench vertex -> source vertex */
    size_t nverts;
} run;

static void pipeline(const am_scene *s, const am_retarget_opts *o, run *r)
{
    am_error err;
    am_error_clear(&err);
    memset(r, 0, sizeof *r);
    am_status st = am_retarget(s, &g_skel, o, &r->res, &err);
    if (st)
        print_error("retarget: %s (%s)\n", err.msg, err.where);
    assert_int_equal(st, AM_OK);
    assert_int_equal(r->res.rig_count, 1);
    am_skin_options so;
    am_skin_options_default(&so);
    so.generate_lods = false;
    am_skin_result sk;
    st = am_skin_build(&r->res.rigs[0].rig, &g_skel, &so, &sk, &err);
    if (st)
        print_error("skin: %s\n", err.msg);
    assert_int_equal(st, AM_OK);
    am_buf mesh = {0};
    assert_int_equal(am_skin_encode(&sk, &mesh, &err), AM_OK);
    am_skin_result_free(&sk);
    assert_int_equal(am_bench_load_mem(mesh.data, mesh.size, "retarget", &g_skel, NULL, &r->bench, &err), AM_OK);
    am_buf_free(&mesh);
    for (size_t i = 0; i < r->res.anim_count; i++) {
        am_buf anim = {0};
        st = am_retarget_write_anim(&r->res, i, &g_skel, NULL, &anim, NULL, &err);
        if (st)
            print_error("anim: %s (%s)\n", err.msg, err.where);
        assert_int_equal(st, AM_OK);
        assert_int_equal(am_bench_add_anim_mem(&r->bench, anim.data, anim.size, r->res.anims[i].name, &err), AM_OK);
        am_buf_free(&anim);
    }
}

static void free_run(run *r)
{
    am_bench_free(&r->bench);
    am_retarget_result_free(&r->res);
    free(r->match);
}

/* The source's own skinning of mesh 0 at clip time t (rest when clip < 0), file frame. */
static void source_pose(const am_scene *s, int clip, double t, float *out)
{
    am_scene_trs *trs = malloc(s->node_count * sizeof *trs);
    am_mat4 *local = malloc(s->node_count * sizeof *local), *world = malloc(s->node_count * sizeof *world);
    assert_non_null(trs);
    assert_non_null(local);
    assert_non_null(world);
    am_scene_eval_clip(s, clip >= 0 ? &s->clips[clip] : NULL, t, trs, local);
    am_scene_world_from_local(s, local, world);
    am_error err;
    assert_int_equal(am_scene_skin_positions(s, 0, world, out, &err), AM_OK);
    free(trs);
    free(local);
    free(world);
}

/* Expected viewer bind-frame positions: the independent conversion plus the placement. */
static void expected(const am_scene *s, frame_kind k, am_vec3 o, int clip, double t, float *out)
{
    size_t n = s->meshes[0].vertex_count;
    float *src = malloc(3 * n * sizeof(float));
    assert_non_null(src);
    source_pose(s, clip, t, src);
    for (size_t v = 0; v < n; v++) {
        am_vec3 p = am_v3_add(conv(k, am_v3(src[3 * v], src[3 * v + 1], src[3 * v + 2])), o);
        out[3 * v] = (float)p.x;
        out[3 * v + 1] = (float)p.y;
        out[3 * v + 2] = (float)p.z;
    }
    free(src);
}

/* Match each bench vertex to the source vertex nearest its bind position; every match
 * must be within 1e-3 of the height (this checks the rest placement too). */
static void match_vertices(run *r, const float *rest, size_t n, double height)
{
    const am_bench *b = &r->bench;
    r->match = malloc(b->vertex_count * sizeof *r->match);
    assert_non_null(r->match);
    r->nverts = b->vertex_count;
    double worst = 0;
    for (size_t i = 0; i < b->vertex_count; i++) {
        double best = INFINITY;
        for (size_t v = 0; v < n; v++) {
            double dx = b->bind_pos[3 * i] - rest[3 * v], dy = b->bind_pos[3 * i + 1] - rest[3 * v + 1],
                   dz = b->bind_pos[3 * i + 2] - rest[3 * v + 2], d = dx * dx + dy * dy + dz * dz;
            if (d < best)
                best = d, r->match[i] = v;
        }
        worst = fmax(worst, sqrt(best));
    }
    assert_true(worst < 1e-3 * height);
}

/* Max distance (over vertices) between the bench at time t and the expected positions. */
static double pose_error(run *r, const float *want, double t)
{
    const am_bench *b = &r->bench;
    float *prim = malloc(3 * b->vertex_count * sizeof(float)), *bind = malloc(3 * b->vertex_count * sizeof(float));
    assert_non_null(prim);
    assert_non_null(bind);
    am_error err;
    assert_int_equal(am_bench_pose_at(b, b->motion_count ? 0 : -1, t, prim, NULL, &err), AM_OK);
    am_bench_positions_to_bind(b, prim, bind, b->vertex_count);
    double worst = 0;
    for (size_t i = 0; i < b->vertex_count; i++) {
        size_t v = r->match[i];
        am_vec3 d = am_v3(bind[3 * i] - want[3 * v], bind[3 * i + 1] - want[3 * v + 1], bind[3 * i + 2] - want[3 * v + 2]);
        worst = fmax(worst, am_v3_len(d));
    }
    free(prim);
    free(bind);
    return worst;
}

static void check_times(const char *label, const am_scene *s, frame_kind k, am_vec3 o, run *r, double height,
                        const double *times, size_t nt)
{
    size_t n = s->meshes[0].vertex_count;
    float *want = malloc(3 * n * sizeof(float));
    assert_non_null(want);
    /* the bind pose (positions x bind shape, identity here), converted */
    const float *pos = s->meshes[0].positions;
    for (size_t v = 0; v < n; v++) {
        am_vec3 p = am_v3_add(conv(k, am_v3(pos[3 * v], pos[3 * v + 1], pos[3 * v + 2])), o);
        want[3 * v] = (float)p.x, want[3 * v + 1] = (float)p.y, want[3 * v + 2] = (float)p.z;
    }
    match_vertices(r, want, n, height);
    for (size_t i = 0; i < nt; i++) {
        expected(s, k, o, 0, times[i], want);
        double e = pose_error(r, want, times[i]);
        print_message("%s: t = %.3f s: max error %.6f m = %.2e of the height %.3f m\n", label, times[i], e, e / height,
                      height);
        assert_true(e <= 1e-3 * height);
    }
    free(want);
}

/* --- the bend box ---------------------------------------------------------------------------- */

static double smooth(double x) { return x <= 0 ? 0 : x >= 1 ? 1 : x * x * (3 - 2 * x); }

/* 4 x 2 x 1 m, top and bottom grids of 0.5 m, "root" holds the -X half, "flap" the +X
 * half (smoothstep over x in [-1, 1]); clip "fold": flap 0 -> 90 -> 0 deg about Y over 6 s.
 * With `tip`, a third joint at x = 1.5 holds x >= 1.75 and turns 30 deg more at 3 s. */
static void bend_box(am_scene *s, bool tip)
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
    m->name = strdup("box");
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

static am_joint_map bend_map(void)
{
    const char *json = "{\"joints\": {\"root\": \"mPelvis\", \"flap\": \"mTorso\"}}";
    am_joint_map map;
    am_error err;
    assert_int_equal(am_joint_map_parse(json, strlen(json), "map", &map, &err), AM_OK);
    return map;
}

static void test_bend_box_end_to_end(void **state)
{
    (void)state;
    am_scene s;
    bend_box(&s, false);
    am_joint_map map = bend_map();
    am_retarget_opts o;
    am_retarget_opts_init(&o);
    o.axes = (am_axes_opts){.up = 3, .forward = 1, .scale = 1};
    o.map = &map;
    run r;
    pipeline(&s, &o, &r);
    /* placement: the hinge (root, mapped to mPelvis) on the viewer's pelvis */
    assert_near(r.res.placement.z, 1.067, 1e-12);
    assert_false(r.res.pelvis_overridden);
    assert_int_equal(r.res.anim_count, 1);
    assert_string_equal(r.res.anims[0].name, "fold");
    assert_true(r.res.anims[0].loops);
    /* 3 clip keys; the 90 deg slerp needs samples between them for the viewer's nlerp */
    assert_int_equal(r.res.anims[0].clip_keys, 3);
    assert_true(r.res.anims[0].samples > 3);
    const double times[] = {0, 0.75, 1.5, 2.2, 3.0, 4.1, 5.5};
    check_times("bend box", &s, ZUP_M_X, am_v3(0, 0, 1.067), &r, 1.0, times, sizeof times / sizeof *times);
    free_run(&r);
    am_joint_map_free(&map);
    am_scene_free(&s);
}

/* --- the quadruped ---------------------------------------------------------------------------- */

typedef struct qjoint {
    const char *name;
    int parent;    /* index in this table, -1 = the armature */
    double p[3];   /* body coordinates, metres */
    double end[3]; /* where its bone points (child or tip) */
} qjoint;

static const qjoint Q[] = {
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
#define NQ (sizeof Q / sizeof Q[0])

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

/* Build the quadruped in frame k; names[] empty -> nameless (topology only). Joint node of
 * table entry i is node i + 1 (node 0 is the armature). */
static void quadruped(am_scene *s, frame_kind k, bool names, bool with_clip)
{
    double unit = k == ZUP_CM ? 100 : 1; /* file units per metre */
    sf_init(s, k == ZUP_CM ? "quadruped_zup_cm.gltf" : "quadruped.gltf", 2, 3, 1); /* declared as glTF */
    sf_node(s, "Armature", -1, am_v3(0, 0, 0), am_quat_identity(), am_v3(unit, unit, unit));
    am_quat world[NQ];
    for (size_t i = 0; i < NQ; i++) {
        const qjoint *j = &Q[i];
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

static const double walk_times[] = {0, 0.1, 0.25, 0.33, 0.49, 0.5, 0.62, 0.75, 0.9, 0.98};

static void test_quadruped_yup_metres_end_to_end(void **state)
{
    (void)state;
    am_scene s;
    quadruped(&s, YUP_M, true, true);
    am_retarget_opts o;
    am_retarget_opts_init(&o);
    run r;
    pipeline(&s, &o, &r);
    /* detected: glTF's frame, the data agrees; a horizontal body facing its head */
    assert_int_equal(r.res.axes.up, 2);
    assert_int_equal(r.res.axes.forward, 3);
    assert_near(r.res.axes.scale, 1, 0);
    assert_false(r.res.axes.upright);
    assert_non_null(strstr(r.res.axes.report, "legs hang along -Y"));
    assert_non_null(strstr(r.res.axes.report, "head is forward of the pelvis"));
    assert_int_equal(r.res.axes.conflict_count, 0);
    /* the pelvis on the viewer's: no override, pelvis keys are its motion alone */
    assert_false(r.res.pelvis_overridden);
    /* the bind pose vs the nodes' rest is reported */
    bool noted = false;
    for (size_t i = 0; i < r.res.finding_count; i++)
        noted = noted || strstr(r.res.findings[i].text, "bind pose differs from the nodes' rest pose");
    assert_true(noted);
    const am_retarget_anim *a = &r.res.anims[0];
    assert_true(a->loops);
    assert_int_equal(a->position_tracks, 1); /* the pelvis only: constant translations give none */
    am_vec3 o_place = am_v3_sub(am_v3(0, 0, 1.067), qv(Q[0].p));
    check_times("quadruped Y-up m", &s, YUP_M, o_place, &r, 1.2, walk_times, sizeof walk_times / sizeof *walk_times);
    free_run(&r);
    am_scene_free(&s);
}

static void test_quadruped_zup_centimetres_end_to_end(void **state)
{
    (void)state;
    am_scene s;
    quadruped(&s, ZUP_CM, true, true);
    am_retarget_opts o;
    am_retarget_opts_init(&o);
    o.place = AM_PLACE_ORIGIN;
    run r;
    pipeline(&s, &o, &r);
    /* the data wins over the glTF declaration, and both conflicts are named */
    assert_int_equal(r.res.axes.up, 3);
    assert_int_equal(r.res.axes.forward, -2);
    assert_near(r.res.axes.scale, 0.01, 0);
    assert_int_equal(r.res.axes.conflict_count, 2);
    assert_non_null(strstr(r.res.axes.conflicts[0], "declares up +Y, but the legs hang along -Z"));
    assert_non_null(strstr(r.res.axes.conflicts[1], "declares the unit 1 m, but the stature is"));
    /* the file origin kept: mPelvis overridden to the hips' bind position */
    assert_true(r.res.pelvis_overridden);
    assert_near(r.res.pelvis_bind.x, Q[0].p[0], 1e-6);
    assert_near(r.res.pelvis_bind.z, Q[0].p[2], 1e-6);
    assert_near(am_v3_len(r.res.root_bind), 0, 1e-12);
    /* the pelvis position keys INCLUDE the override: at t = 0 the key is the override */
    const am_retarget_anim *a = &r.res.anims[0];
    const am_motion_track *pel = NULL;
    for (size_t i = 0; i < a->motion.track_count; i++)
        if (strcmp(a->motion.tracks[i].joint, "mPelvis") == 0)
            pel = &a->motion.tracks[i];
    assert_non_null(pel);
    assert_true(pel->has_pos);
    assert_near(pel->pos[0].x, Q[0].p[0], 1e-6);
    assert_near(pel->pos[0].z, Q[0].p[2], 1e-6);
    check_times("quadruped Z-up cm", &s, ZUP_CM, am_v3(0, 0, 0), &r, 1.2, walk_times,
                sizeof walk_times / sizeof *walk_times);
    free_run(&r);
    am_scene_free(&s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bend_box_end_to_end),
        cmocka_unit_test(test_quadruped_yup_metres_end_to_end),
        cmocka_unit_test(test_quadruped_zup_centimetres_end_to_end),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
