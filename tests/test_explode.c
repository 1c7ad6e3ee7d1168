/* An explosion is deformation, not travel (issue 28): a small part bound rigidly to a joint
 * (an eye on the head) rides it far beyond its own size and never explodes; one of its
 * vertices held by a far joint tears away from its neighbours and does. Then the real files
 * whose eyes, teeth and shoes used to "explode": no part of them explodes now. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "import/import.h"
#include "support/gltf_fixtures.h"
#include "support/test_support.h"
#include "test_bench_fixture.h"

static am_skeleton g_skel;
static int setup(void **state) { return (void)state, am_test_load_viewer_skeleton(&g_skel), 0; }
static int teardown(void **state) { return (void)state, am_skeleton_free(&g_skel), 0; }

static am_vec3 rest_of(const char *name)
{
    int j = am_skeleton_find_exact(&g_skel, name);
    assert_true(j >= 0);
    return am_skeleton_rest_world(&g_skel, j, AM_FRAME_FILE);
}

/* The stock avatar's size: the diagonal of its bones' rest box (about 2 m). */
static double avatar_size(void)
{
    am_vec3 lo = am_v3(INFINITY, INFINITY, INFINITY), hi = am_v3(-INFINITY, -INFINITY, -INFINITY);
    for (size_t j = 0; j < g_skel.joint_count; j++) {
        if (g_skel.joints[j].kind != AM_JOINT_BONE)
            continue;
        am_vec3 p = am_skeleton_rest_world(&g_skel, (int)j, AM_FRAME_FILE);
        lo = am_v3(fmin(lo.x, p.x), fmin(lo.y, p.y), fmin(lo.z, p.z));
        hi = am_v3(fmax(hi.x, p.x), fmax(hi.y, p.y), fmax(hi.z, p.z));
    }
    return am_v3_dist(lo, hi);
}

/* A 3 cm eye 10 cm in front of and 8 cm above mHead, every vertex 100 % on mHead; the skin
 * also holds mFootLeft (for the broken weight). */
static void eye(fx_mesh *m, fx_skin *sk)
{
    am_vec3 h = rest_of("mHead");
    fx_bar(m, 2, h.x + 0.10, h.x + 0.13, h.y - 0.015, h.y + 0.015, h.z + 0.065, h.z + 0.095);
    for (size_t v = 0; v < m->nv; v++)
        fx_weigh(m, v, 0, 0, 1.0);
    memset(sk, 0, sizeof *sk);
    sk->n = 2;
    sk->names[0] = "mHead";
    sk->names[1] = "mFootLeft";
    sk->bind_world[0] = h;
    sk->bind_world[1] = rest_of("mFootLeft");
}

/* The eye on the bench, the head turning 0 -> 90 degrees about Z over 1 s; its pose at 1 s. */
static void turn_head(const fx_mesh *m, const fx_skin *sk, am_bench_pose_report *pr)
{
    am_bench b;
    fx_bench(m, sk, &g_skel, &b);
    double times[2] = {0, 1};
    am_quat rots[2] = {am_quat_identity(), am_quat_axis_angle(am_v3(0, 0, 1), AM_PI / 2)};
    fx_add_rot_anim(&b, "mHead", times, rots, 2, 1.0, false);
    am_error err;
    am_error_clear(&err);
    assert_int_equal(am_bench_pose_report_at(&b, 0, 1.0, NULL, 0, pr, &err), AM_OK);
    am_bench_free(&b);
}

static void test_an_eye_riding_a_turning_head_does_not_explode(void **state)
{
    (void)state;
    fx_mesh m;
    fx_skin sk;
    eye(&m, &sk);
    am_bench_pose_report pr;
    turn_head(&m, &sk, &pr);
    double size = avatar_size();
    print_message("eye on a head turned 90 deg: travels %.3f m (its own box: 0.052 m), tear %.6f m, creature %.2f m\n",
                  pr.displacement.max, pr.strain.tear_m, size);
    assert_in_range(size * 100, 170, 280); /* T pose: arms out */
    /* it travels far beyond its own size (the old rule's explosion) ... */
    assert_true(pr.displacement.max > 0.12);
    /* ... and keeps every edge */
    assert_true(pr.strain.tear_m < 1e-4 && pr.strain.spike_m < 1e-4);
    assert_true(pr.strain.max < 1.001 && pr.strain.min > 0.999);
    assert_false(am_bench_tears(&pr.strain, size));
    am_bench_pose_report_free(&pr);
    fx_mesh_free(&m);
}

static void test_an_eye_vertex_held_by_a_far_joint_explodes(void **state)
{
    (void)state;
    fx_mesh m;
    fx_skin sk;
    eye(&m, &sk);
    fx_weigh(&m, 0, 0, 1, 1.0); /* the broken weight: vertex 0 on mFootLeft, 1.6 m below */
    am_bench_pose_report pr;
    turn_head(&m, &sk, &pr);
    double size = avatar_size();
    print_message("eye with one vertex on mFootLeft: torn from every neighbour by >= %.3f m (spike line %.3f m), "
                  "worst edge %.3f m (%.1f x)\n",
                  pr.strain.spike_m, AM_BENCH_SPIKE_SHARE * size, pr.strain.tear_m, pr.strain.tear_ratio);
    /* vertex 0 stays while its neighbours swing about 0.15 m round the head: a spike */
    assert_int_equal(pr.strain.spike_vertex, 0);
    assert_true(pr.strain.tear_edge[0] == 0 || pr.strain.tear_edge[1] == 0);
    assert_true(pr.strain.tear_m > 0.13 && pr.strain.tear_m < 0.2);
    assert_true(pr.strain.spike_m > 0.09 && pr.strain.spike_m <= pr.strain.tear_m);
    assert_true(pr.strain.tear_ratio > 4);
    assert_true(am_bench_tears(&pr.strain, size));
    am_bench_pose_report_free(&pr);
    /* half on the far joint: torn by about half as much */
    fx_weigh(&m, 0, 0, 0, 0.5);
    fx_weigh(&m, 0, 1, 1, 0.5);
    turn_head(&m, &sk, &pr);
    print_message("eye with one vertex half on mFootLeft: spike %.3f m\n", pr.strain.spike_m);
    assert_int_equal(pr.strain.spike_vertex, 0);
    assert_true(pr.strain.spike_m > 0.04);
    am_bench_pose_report_free(&pr);
    fx_mesh_free(&m);
}

/* --- through import ------------------------------------------------------------------------ */

/* The quadruped fixture walking, as a GLB (Z up, cm); `broken`: the vertex farthest forward
 * (the snout) bound 100 % to the tail's tip instead. Returns the import report. */
static void import_quadruped(bool broken, am_import_report *rep, char *dir, size_t dir_size)
{
    am_test_tmpdir(dir, dir_size);
    am_gf_model base, m;
    am_gf_quadruped(&base);
    if (broken) {
        size_t snout = 0;
        for (size_t v = 0; v < base.vertex_count; v++)
            if (base.positions[3 * v + 2] > base.positions[3 * snout + 2])
                snout = v; /* glTF frame: +Z forward */
        int tail = -1;
        for (size_t j = 0; j < base.joint_count; j++)
            if (strcmp(base.nodes[base.joints[j]].name, "Tail2") == 0)
                tail = (int)j;
        assert_true(tail >= 0);
        am_gf_influence *in = &base.influences[snout * base.influence_count];
        for (size_t k = 0; k < base.influence_count; k++)
            in[k] = (am_gf_influence){(uint16_t)tail, k == 0 ? 1.0f : 0.0f};
    }
    am_gf_convert(&base, AM_GF_Z_UP_CM, &m);
    am_gf_model_free(&base);
    char path[512], out[600];
    am_gf_options go = {.container = AM_GF_GLB};
    am_gf_write(&m, &go, dir, "quad", path, sizeof path);
    am_gf_model_free(&m);
    snprintf(out, sizeof out, "%s/out", dir);
    am_import_options opts;
    am_import_options_init(&opts);
    opts.bench = true;
    am_error err;
    am_error_clear(&err);
    char msg[AM_ERROR_TEXT_MAX];
    if (am_import_file(path, &g_skel, &opts, out, rep, &err))
        fail_msg("%s", am_error_format(&err, msg, sizeof msg));
}

static const am_import_finding *exploded(const am_import_report *r)
{
    for (size_t i = 0; i < r->finding_count; i++)
        if (strcmp(am_str(&r->findings[i].code), "exploded") == 0)
            return &r->findings[i];
    return NULL;
}

static void test_import_finds_the_snout_held_by_the_tail_and_says_what_to_do(void **state)
{
    (void)state;
    char dir[256];
    am_import_report rep;
    import_quadruped(false, &rep, dir, sizeof dir);
    assert_int_equal(rep.parts[0].anim_count, 1);
    const am_import_anim_result *a = &rep.parts[0].anims[0];
    print_message("quadruped walking: spike %.4f m, tear %.4f m of %.2f m\n", a->spike_m, a->tear_m, a->creature_m);
    assert_false(a->exploded);
    assert_null(exploded(&rep));
    am_import_report_free(&rep);
    am_test_rmtree(dir);

    import_quadruped(true, &rep, dir, sizeof dir);
    a = &rep.parts[0].anims[0];
    print_message("its snout on Tail2: spike %.4f m, tear %.4f m (%.1f x) of %.2f m\n", a->spike_m, a->tear_m,
                  a->tear_ratio, a->creature_m);
    /* the box's corner drags its long edges open (the welded copies of the corner all
     * follow the tail): an edge torn beyond 10 % of the creature */
    assert_true(a->exploded);
    assert_true(a->tear_m > AM_BENCH_EXPLODE_SHARE * a->creature_m);
    assert_true(a->tear_ratio > AM_BENCH_TEAR_RATIO);
    const am_import_finding *f = exploded(&rep);
    assert_non_null(f);
    print_message("finding: %s\n", am_str(&f->text));
    char want[256];
    snprintf(want, sizeof want,
             "part 'quad' playing 'walk' explodes: an edge tears open by %.3f m (the creature is %.2f m; the line "
             "is 10%% of it)",
             a->tear_m, a->creature_m);
    assert_non_null(strstr(am_str(&f->text), want));
    assert_non_null(strstr(am_str(&f->text), "a vertex there is held by a joint far from it; check its weights"));
    am_import_report_free(&rep);
    am_test_rmtree(dir);
}

/* --- the real files ---------------------------------------------------------------------- */

static bool shared(const char *rel, char *path, size_t size)
{
    am_test_shared_path(path, size, rel);
    FILE *f = fopen(path, "rb");
    if (!f)
        return false;
    fclose(f);
    return true;
}

/* Import MODEL with the motions and the bench; no part may explode. Returns the worst
 * tear over every part and motion relative to the creature's size. */
static double import_without_explosion(const char *model, const char *const *motions, size_t nm)
{
    char path[1024], anim[4][1024];
    const char *anims[4];
    if (!shared(model, path, sizeof path)) {
        print_message("skipped: %s is missing\n", path);
        return -1;
    }
    for (size_t i = 0; i < nm; i++) {
        if (!shared(motions[i], anim[i], sizeof anim[i])) {
            print_message("skipped: %s is missing\n", anim[i]);
            return -1;
        }
        anims[i] = anim[i];
    }
    char dir[256], out[300];
    am_test_tmpdir(dir, sizeof dir);
    snprintf(out, sizeof out, "%s/out", dir);
    am_import_options opts;
    am_import_options_init(&opts);
    opts.anim_paths = anims;
    opts.anim_count = nm;
    opts.bench = true;
    am_import_report rep;
    am_error err;
    am_error_clear(&err);
    char msg[AM_ERROR_TEXT_MAX];
    if (am_import_file(path, &g_skel, &opts, out, &rep, &err))
        fail_msg("%s: %s", model, am_error_format(&err, msg, sizeof msg));
    double worst = 0;
    size_t benched = 0;
    for (size_t p = 0; p < rep.part_count; p++)
        for (size_t m = 0; m < rep.parts[p].anim_count; m++) {
            const am_import_anim_result *a = &rep.parts[p].anims[m];
            benched++;
            if (a->exploded)
                fail_msg("%s: part '%s' playing '%s' explodes (tear %.3f m of %.2f m)", model, rep.parts[p].name,
                         a->name, a->tear_m, a->creature_m);
            assert_true(a->creature_m > 0.3);
            worst = fmax(worst, a->spike_m / a->creature_m);
        }
    assert_int_equal(benched, rep.part_count * nm);
    for (size_t i = 0; i < rep.finding_count; i++)
        assert_string_not_equal(am_str(&rep.findings[i].code), "exploded");
    print_message("%s: %zu parts x %zu motions, none explodes; worst spike %.2f%% of the creature\n", model,
                  rep.part_count, nm, 100 * worst);
    am_import_report_free(&rep);
    am_test_rmtree(dir);
    return worst;
}

static void test_ready_player_me_eyes_teeth_and_shoes_do_not_explode(void **state)
{
    (void)state;
    static const char *const mixamo[] = {"data/realdata/Idle.fbx", "data/realdata/Walking.fbx"};
    double worst = import_without_explosion("data/realdata/rpm_avatar.glb", mixamo, 2);
    if (worst >= 0)
        assert_true(worst < AM_BENCH_SPIKE_SHARE / 2);
}

static void test_the_bear_and_the_bento_avatar_do_not_explode(void **state)
{
    (void)state;
    static const char *const teddy[] = {"data/realdata/TeddyIdle.bvh"};
    static const char *const mixamo[] = {"data/realdata/Idle.fbx", "data/realdata/Walking.fbx"};
    import_without_explosion("data/realdata/Little Bear_90.dae", teddy, 1);
    import_without_explosion("data/realdata/female_2016_08_05.dae", mixamo, 2);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_an_eye_riding_a_turning_head_does_not_explode),
        cmocka_unit_test(test_an_eye_vertex_held_by_a_far_joint_explodes),
        cmocka_unit_test(test_import_finds_the_snout_held_by_the_tail_and_says_what_to_do),
        cmocka_unit_test(test_ready_player_me_eyes_teeth_and_shoes_do_not_explode),
        cmocka_unit_test(test_the_bear_and_the_bento_avatar_do_not_explode),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
