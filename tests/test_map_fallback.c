/* The joint-map fallback (map_suggest.h): a weighted joint that neither its name nor the
 * topology places is embedded into a free part of the viewer hierarchy, ancestry kept, so
 * its motion is not lost.
 *
 * Debian's assimp test models imported WITHOUT a map by animesh import: simple_skin.gltf
 * (two joints; the second one, the one the clip bends, has no role), huesitos.fbx (a
 * branch of three joints beside the "tail": the tail guess is released and the whole
 * branching tree re-embedded) and animation_with_skeleton.fbx (a second, separate tree: it
 * can only share a viewer branch, position keys carrying it). Every weighted joint must be mapped, the map
 * must pass am_joint_map_check, and the bench reading the WRITTEN .llmesh and .anim must
 * pose the mesh as the file's own skinning does (am_scene_skin_positions under
 * am_scene_eval_clip, converted by the retargeter's file -> viewer transform) to 1e-3 of
 * the model's size at several clip times. Without the fallback simple_skin's clip does
 * nothing and huesitos' branch stays metres away.
 *
 * Then a rig whose weighted joints hang below a joint the user pinned to a viewer leaf: no
 * free chain is left, and the warning names the joints, their vertices and their weight. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "bench/bench.h"
#include "support/gltf_fixtures.h"
#include "import/import.h"
#include "map/map_suggest.h"
#include "retarget/retarget.h"
#include "support/retarget_support.h"
#include "support/scene_fixtures.h"
#include "support/test_support.h"

#define MODELS "/usr/share/assimp/models/"

static am_skeleton g_skel;
static int setup(void **state) { return (void)state, am_test_load_viewer_skeleton(&g_skel), 0; }
static int teardown(void **state) { return (void)state, am_skeleton_free(&g_skel), 0; }

static bool exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}

/* The viewer keeps a vertex's 4 largest weights (docs/reference/mesh-asset.md#weights): the same rule on the
 * scene's own influences, so the comparison measures the mapping, not that limit. */
static void keep_four_largest(am_scene *s, size_t mesh)
{
    am_scene_mesh *m = &s->meshes[mesh];
    for (size_t v = 0; v < m->vertex_count; v++) {
        am_scene_influence *inf = &m->influences[m->influence_start[v]];
        size_t n = m->influence_start[v + 1] - m->influence_start[v];
        for (size_t i = 1; i < n; i++)
            for (size_t k = i; k > 0 && inf[k].weight > inf[k - 1].weight; k--) {
                am_scene_influence t = inf[k];
                inf[k] = inf[k - 1];
                inf[k - 1] = t;
            }
        for (size_t i = 4; i < n; i++)
            inf[i].weight = 0;
    }
}

typedef struct real_case {
    const char *file;
    const char *stem;         /* the part's name */
    const char *fallback[4];  /* joints the fallback must place, NULL-terminated */
    double times[6];
} real_case;

static const real_case REAL[] = {
    {MODELS "glTF2/simple_skin/simple_skin.gltf", "simple_skin", {"#2", NULL}, {0.5, 1.1, 2.0, 2.6, 3.3, 5.0}},
    {MODELS "FBX/huesitos.fbx", "huesitos", {"Bone.003", "Bone.007", "Bone.008", NULL},
     {0.2, 0.5, 0.77, 1.1, 1.3, 1.5}},
    /* two separate trees: the second has no branch of its own (every viewer bone is below
     * mPelvis), so it shares one and position keys carry it */
    {MODELS "FBX/animation_with_skeleton.fbx", "animation_with_skeleton", {"Bone.007", "Bone.010", "Bone.013", NULL},
     {0.1, 0.3, 0.42, 0.6, 0.7, 0.8}},
};

static const am_map_joint *by_rig(const am_map_suggestion *sug, const char *rig)
{
    for (size_t j = 0; j < sug->count; j++)
        if (strcmp(am_str(&sug->joints[j].rig_name), rig) == 0)
            return &sug->joints[j];
    fail_msg("no rig joint '%s'", rig);
    return NULL;
}

/* The bench of the written files against the file's own skinning: the worst error over the
 * case's times, as a fraction of the model's size (printed per time). */
static double written_vs_source(const real_case *rc, const char *out, const char *motion,
                                const am_retarget_result *res)
{
    am_scene s;
    am_gf_load(rc->file, &s);
    keep_four_largest(&s, 0);
    const am_scene_mesh *m = &s.meshes[0];
    size_t n = m->vertex_count;
    float *src = malloc(3 * n * sizeof(float)), *want = malloc(3 * n * sizeof(float)),
          *rest = malloc(3 * n * sizeof(float));
    assert_non_null(rest);
    am_scene_trs *trs = malloc(s.node_count * sizeof *trs);
    am_mat4 *local = malloc(s.node_count * sizeof *local), *world = malloc(s.node_count * sizeof *world);
    assert_non_null(src);
    assert_non_null(want);
    assert_non_null(trs);
    assert_non_null(local);
    assert_non_null(world);

    char file[800], anim[800];
    snprintf(file, sizeof file, "%s/%s.llmesh", out, rc->stem);
    snprintf(anim, sizeof anim, "%s/%s.anim", out, motion);
    const char *anims[] = {anim};
    am_bench b;
    am_error err;
    assert_int_equal(am_bench_load(file, anims, 1, &g_skel, NULL, &b, &err), AM_OK);

    /* the bind pose (vertex x bind shape), placed where the file's skinning has the skin's
     * root-most joint at rest, then into the viewer bind frame by the retargeter's A */
    const am_scene_skin *sk = &s.skins[m->skin];
    size_t r = 0;
    for (size_t j = 1; j < sk->joint_count; j++)
        if (sk->joint_nodes[j] < sk->joint_nodes[r])
            r = j;
    am_mat4 x = am_mat4_mul(&sk->inverse_binds[r], &s.nodes[sk->joint_nodes[r]].world);
    am_mat4 bx = am_mat4_mul(&sk->bind_shape, &x);
    am_vec3 lo = am_v3(INFINITY, INFINITY, INFINITY), hi = am_v3(-INFINITY, -INFINITY, -INFINITY);
    for (size_t v = 0; v < n; v++) {
        am_vec3 q = am_mat4_transform_point(&bx, am_v3(m->positions[3 * v], m->positions[3 * v + 1], m->positions[3 * v + 2]));
        q = am_mat4_transform_point(&res->to_viewer, q);
        rest[3 * v] = (float)q.x, rest[3 * v + 1] = (float)q.y, rest[3 * v + 2] = (float)q.z;
        lo = am_v3(fmin(lo.x, q.x), fmin(lo.y, q.y), fmin(lo.z, q.z));
        hi = am_v3(fmax(hi.x, q.x), fmax(hi.y, q.y), fmax(hi.z, q.z));
    }
    am_vec3 ext = am_v3_sub(hi, lo);
    double size = fmax(ext.x, fmax(ext.y, ext.z));
    size_t *match = am_test_retarget_match(&b, rest, n, 1e-3 * size);
    double worst = 0, moved = 0;
    for (size_t i = 0; i < 6; i++) {
        double t = rc->times[i];
        am_scene_eval_clip(&s, &s.clips[0], t, trs, local);
        am_scene_world_from_local(&s, local, world);
        assert_int_equal(am_scene_skin_positions(&s, 0, world, src, &err), AM_OK);
        double far = 0;
        for (size_t v = 0; v < n; v++) {
            am_vec3 q = am_mat4_transform_point(&res->to_viewer, am_v3(src[3 * v], src[3 * v + 1], src[3 * v + 2]));
            far = fmax(far, am_v3_dist(q, am_v3(rest[3 * v], rest[3 * v + 1], rest[3 * v + 2])));
            want[3 * v] = (float)q.x, want[3 * v + 1] = (float)q.y, want[3 * v + 2] = (float)q.z;
        }
        moved = fmax(moved, far);
        double e = am_test_retarget_pose_error(&b, match, 0, t, want);
        print_message("%s: t = %.2f s: the source moves up to %.4f m; written files %.6f m off = %.2e of %.3f m\n",
                      rc->stem, t, far, e, e / size, size);
        worst = fmax(worst, e / size);
    }
    /* the clip really moves the model (a still clip would match trivially) */
    assert_gt(moved, 0.05 * size);
    free(match);
    am_bench_free(&b);
    free(src);
    free(want);
    free(rest);
    free(trs);
    free(local);
    free(world);
    am_scene_free(&s);
    return worst;
}

static void test_real_files_import_without_a_map(void **state)
{
    (void)state;
    am_test_skip_if_missing(MODELS);
    for (size_t k = 0; k < sizeof REAL / sizeof *REAL; k++) {
        const real_case *rc = &REAL[k];
        if (!exists(rc->file)) {
            print_message("not installed: %s\n", rc->file);
            continue;
        }
        /* the library's suggestion, as the import makes it (default options, no map) */
        am_scene s;
        am_gf_load(rc->file, &s);
        am_retarget_options o;
        am_retarget_options_init(&o);
        am_retarget_result res;
        am_error err;
        am_error_clear(&err);
        char msg[AM_ERROR_TEXT_MAX];
        if (am_retarget(&s, &g_skel, &o, &res, &err))
            fail_msg("%s", am_error_format(&err, msg, sizeof msg));
        const am_map_suggestion *sug = &res.suggestion;
        for (size_t j = 0; j < sug->count; j++) {
            const am_map_joint *mj = &sug->joints[j];
            print_message("  %-10s -> %-16s %.2f %s %s\n", am_str(&mj->rig_name),
                          mj->target >= 0 ? g_skel.joints[mj->target].name : "(unmapped)", mj->confidence,
                          mj->source == AM_MAP_FALLBACK ? "[fallback]" : "", am_str(&mj->reason));
        }
        /* every weighted joint mapped; the fallback's own ones marked as such */
        for (size_t j = 0; j < sug->count; j++)
            if (res.body.joints[j].weighted && sug->joints[j].target < 0)
                fail_msg("%s: weighted joint '%s' left unmapped", rc->stem, am_str(&sug->joints[j].rig_name));
        for (size_t i = 0; rc->fallback[i]; i++) {
            const am_map_joint *mj = by_rig(sug, rc->fallback[i]);
            assert_int_equal(mj->source, AM_MAP_FALLBACK);
            assert_ge(mj->target, 0);
            assert_non_null(strstr(am_str(&mj->reason), "fallback"));
        }
        assert_ge(sug->fallback_count, 1);
        if (strcmp(rc->stem, "animation_with_skeleton") == 0) /* the shared-branch path */
            assert_non_null(strstr(am_str(&by_rig(sug, "Bone.007")->reason), "shares one with another rig branch"));
        if (strcmp(rc->stem, "huesitos") == 0) { /* the tail guess released: the branch fits whole */
            assert_int_equal(by_rig(sug, "Bone.001")->source, AM_MAP_FALLBACK);
            assert_non_null(strstr(am_str(&by_rig(sug, "Bone.001")->reason), "re-placed"));
        }
        assert_int_equal(sug->unembedded_count, 0);
        /* the map passes the viewer-chain check */
        am_joint_map_report mrep;
        assert_int_equal(am_joint_map_check(&res.map, &g_skel, &mrep, &err), AM_OK);
        for (size_t i = 0; i < mrep.count; i++)
            print_message("  map check: %s\n", mrep.problems[i]);
        assert_int_equal(mrep.count, 0);
        am_joint_map_report_free(&mrep);

        /* animesh import without --map: its report shows the fallback too */
        char dir[256], out[600];
        am_test_tmpdir(dir, sizeof dir);
        snprintf(out, sizeof out, "%s/out", dir);
        am_import_options opts;
        am_import_options_init(&opts);
        am_import_report rep;
        if (am_import_file(rc->file, &g_skel, &opts, out, &rep, &err))
            fail_msg("%s", am_error_format(&err, msg, sizeof msg));
        assert_int_equal(rep.route, AM_IMPORT_RETARGET);
        assert_int_equal(rep.motion_count, 1);
        size_t marked = 0;
        for (size_t i = 0; i < rep.map_count; i++)
            marked += rep.map[i].fallback;
        assert_int_equal(marked, sug->fallback_count);
        double worst = written_vs_source(rc, out, am_str(&rep.motions[0]), &res);
        print_message("%s imported without a map: %zu joints placed by the fallback, worst %.2e of the size\n", rc->stem,
                      sug->fallback_count, worst);
        assert_le(worst, 1e-3);
        am_import_report_free(&rep);
        am_test_rmtree(dir);
        am_retarget_result_free(&res);
        am_scene_free(&s);
    }
}

/* root -> mPelvis, arm pinned by the user on mGroin (a viewer leaf); below arm a weighted
 * chain b -> c: nothing free below mGroin, so both stay unmapped with a warning. */
static void test_no_free_chain_warns_naming_the_joints(void **state)
{
    (void)state;
    am_scene s;
    sf_init(&s, "pinned", 0, 0, 0);
    int root = sf_node(&s, "root", -1, am_v3(0, 0, 1), am_quat_identity(), am_v3(1, 1, 1));
    int arm = sf_node(&s, "arm", root, am_v3(0, 0.3, 0), am_quat_identity(), am_v3(1, 1, 1));
    int b = sf_node(&s, "b", arm, am_v3(0, 0.3, 0), am_quat_identity(), am_v3(1, 1, 1));
    int c = sf_node(&s, "c", b, am_v3(0, 0.3, 0), am_quat_identity(), am_v3(1, 1, 1));
    for (size_t i = 0; i < s.node_count; i++)
        s.nodes[i].is_joint = true;
    const int joints[] = {root, arm, b, c};
    int skin = sf_skin(&s, joints, 4);
    const am_vec3 ends[] = {am_v3(0, 0.3, 1), am_v3(0, 0.6, 1), am_v3(0, 0.9, 1), am_v3(0, 1.2, 1)};
    const int blend[] = {-1, 0, 1, 2};
    int mesh = sf_bone_boxes(&s, skin, ends, blend, 0.02, 3);
    am_error err;
    assert_int_equal(am_scene_finish(&s, &err), AM_OK);
    /* the vertices and weight b and c carry, counted here from the influences */
    size_t verts = 0;
    double weight = 0;
    const am_scene_mesh *m = &s.meshes[mesh];
    for (size_t v = 0; v < m->vertex_count; v++) {
        bool on = false;
        for (size_t q = m->influence_start[v]; q < m->influence_start[v + 1]; q++) {
            int node = s.skins[skin].joint_nodes[m->influences[q].joint];
            if ((node == b || node == c) && m->influences[q].weight > 0)
                on = true, weight += m->influences[q].weight;
        }
        verts += on;
    }
    assert_gt(verts, 0);
    static const char user_json[] = "{\"joints\": {\"root\": \"mPelvis\", \"arm\": \"mGroin\"}}";
    am_joint_map user;
    assert_int_equal(am_joint_map_parse(user_json, strlen(user_json), "map", &user, &err), AM_OK);
    am_axes_options ao = {.up = 3, .forward = 1, .scale = 1};
    am_body body;
    am_axes axes;
    am_map_suggestion sug;
    char msg[AM_ERROR_TEXT_MAX];
    if (am_map_suggest_scene(&s, &g_skel, &ao, &user, &body, &axes, &sug, &err))
        fail_msg("%s", am_error_format(&err, msg, sizeof msg));
    for (size_t i = 0; i < sug.warning_count; i++)
        print_message("warning: %s\n", am_str(&sug.warnings[i]));
    assert_int_equal(by_rig(&sug, "b")->target, -1);
    assert_int_equal(by_rig(&sug, "c")->target, -1);
    assert_int_equal(sug.unembedded_count, 2);
    assert_int_equal(sug.unembedded_vertices, verts);
    assert_lt(fabs(sug.unembedded_weight - weight), 1e-3);
    assert_int_equal(sug.warning_count, 1);
    const char *w = am_str(&sug.warnings[0]);
    assert_non_null(strstr(w, "'b'"));
    assert_non_null(strstr(w, "'c'"));
    char count[64];
    snprintf(count, sizeof count, "%zu vertices", verts);
    assert_non_null(strstr(w, count));
    assert_non_null(strstr(w, "mGroin"));
    /* the user's pin stays; the check passes */
    assert_string_equal(g_skel.joints[by_rig(&sug, "arm")->target].name, "mGroin");
    am_joint_map map;
    am_joint_map_report rep;
    assert_int_equal(am_map_suggestion_to_map(&sug, &body, &g_skel, &map, &err), AM_OK);
    assert_int_equal(am_joint_map_check(&map, &g_skel, &rep, &err), AM_OK);
    assert_int_equal(rep.count, 0);
    am_joint_map_report_free(&rep);
    am_joint_map_free(&map);

    /* without the pin the same rig embeds whole: every joint mapped, nothing to warn */
    am_map_suggestion_free(&sug);
    am_body_free(&body);
    if (am_map_suggest_scene(&s, &g_skel, &ao, NULL, &body, &axes, &sug, &err))
        fail_msg("%s", am_error_format(&err, msg, sizeof msg));
    for (size_t j = 0; j < sug.count; j++)
        if (body.joints[j].weighted)
            assert_ge(sug.joints[j].target, 0);
    assert_int_equal(sug.warning_count, 0);
    assert_int_equal(sug.unembedded_count, 0);
    am_map_suggestion_free(&sug);
    am_body_free(&body);
    am_joint_map_free(&user);
    am_scene_free(&s);
}

/* The command line shows the guess: the table's reasons and count, --json's per-joint flag
 * and totals, and the MAP.json passes animesh map check. */
static void test_cli_marks_the_fallback(void **state)
{
    (void)state;
    am_test_skip_if_missing(MODELS "FBX/huesitos.fbx");
    char p[1024];
    setenv("ANIMESH_SKELETON", am_test_shared_path(p, sizeof p, "viewer/avatar_skeleton.xml"), 1);
    static char out[1 << 18];
    assert_int_equal(am_test_run_cli(out, sizeof out, "map suggest " MODELS "FBX/huesitos.fbx"), 0);
    assert_non_null(strstr(out, "Bone.007                     -> "));
    assert_non_null(strstr(out, "0.30  fallback (a guess; --map overrides it): "));
    assert_non_null(strstr(out, "9 of 9 joints mapped (8 by the fallback"));
    assert_int_equal(am_test_run_cli(out, sizeof out, "map suggest " MODELS "FBX/huesitos.fbx --json 2>/dev/null"), 0);
    assert_non_null(strstr(out, "\"fallback\": true"));
    assert_non_null(strstr(out, "\"fallback\": false")); /* Bone stays the topology's pelvis */
    assert_non_null(strstr(out, "\"fallback\": 8"));
    assert_non_null(strstr(out, "\"warnings\": []"));
    char dir[256], map[512];
    am_test_tmpdir(dir, sizeof dir);
    snprintf(map, sizeof map, "%s/huesitos.map.json", dir);
    assert_int_equal(am_test_run_cli(out, sizeof out, "map suggest " MODELS "FBX/huesitos.fbx --out '%s'", map), 0);
    assert_int_equal(am_test_run_cli(out, sizeof out, "map check '%s'", map), 0);
    am_test_rmtree(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cli_marks_the_fallback),
        cmocka_unit_test(test_real_files_import_without_a_map),
        cmocka_unit_test(test_no_free_chain_warns_naming_the_joints),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
