/* animesh import's second route: a model NOT rigged to the viewer skeleton (a glTF/GLB
 * quadruped written by tests/support/gltf_fixtures, Z-up centimetres) goes through the
 * retargeting library into the same plan and run as a faithful COLLADA import. Checked on
 * the WRITTEN files: the bench reads NAME.llmesh and the clip's .anim from the output folder
 * and must pose the mesh as the FILE means it (am_gf_pose, the fixtures' own evaluation,
 * converted to the viewer frame by the conversion written out here) to 1e-3 of the height;
 * NAME.rig.json rebuilds the same asset; the report names the route, the axes and the
 * joint map. Then the command line: --json, --faithful (refused as the uploader refuses),
 * --merge (refused: it joins viewer-rigged meshes), a motion-only file. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "bench/bench.h"
#include "support/gltf_fixtures.h"
#include "import/import.h"
#include "readers/scene_load.h"
#include "support/retarget_support.h"
#include "skin/rig.h"
#include "skin/skin_build.h"
#include "support/test_support.h"

static am_skeleton g_skel;
static int setup(void **state) { return (void)state, am_test_load_viewer_skeleton(&g_skel), 0; }
static int teardown(void **state) { return (void)state, am_skeleton_free(&g_skel), 0; }

static bool exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}

/* Z-up centimetres (+Z up, -Y forward, +X left) -> viewer (+X forward, +Y left, +Z up), m */
static am_vec3 zup_cm_to_viewer(am_vec3 p) { return am_v3_scale(am_v3(-p.y, p.x, p.z), 0.01); }

/* The fixture posed its own way at t (clip -1: rest), in the viewer frame, plus o. */
static void expected(const am_gf_model *m, am_vec3 o, int clip, double t, float *out)
{
    float *src = malloc(3 * m->vertex_count * sizeof(float));
    assert_non_null(src);
    am_gf_pose(m, clip, t, src);
    for (size_t v = 0; v < m->vertex_count; v++) {
        am_vec3 p = am_v3_add(zup_cm_to_viewer(am_v3(src[3 * v], src[3 * v + 1], src[3 * v + 2])), o);
        out[3 * v] = (float)p.x, out[3 * v + 1] = (float)p.y, out[3 * v + 2] = (float)p.z;
    }
    free(src);
}

static const am_import_finding *finding(const am_import_report *r, const char *code)
{
    for (size_t i = 0; i < r->finding_count; i++)
        if (strcmp(am_str(&r->findings[i].code), code) == 0)
            return &r->findings[i];
    return NULL;
}

static void test_quadruped_imports_through_the_retarget_route(void **state)
{
    (void)state;
    char dir[256], path[512], out[600], file[800];
    am_test_tmpdir(dir, sizeof dir);
    am_gf_model m;
    am_gf_write_quad_glb(dir, path, sizeof path, &m);
    snprintf(out, sizeof out, "%s/out", dir);

    am_import_options opts;
    am_import_options_init(&opts);
    opts.bench = true;
    am_import_report rep;
    am_error err;
    am_error_clear(&err);
    char msg[AM_ERROR_TEXT_MAX];
    if (am_import_file(path, &g_skel, &opts, out, &rep, &err))
        fail_msg("%s", am_error_format(&err, msg, sizeof msg));

    /* the report: route, axes detected (legs hang along -Z, cm from the stature), the map */
    assert_int_equal(rep.route, AM_IMPORT_RETARGET);
    assert_int_equal(rep.part_count, 1);
    assert_string_equal(am_str(&rep.parts[0].name), "quad");
    assert_non_null(strstr(am_str(&rep.axes), "up +Z"));
    assert_non_null(strstr(am_str(&rep.axes), "forward -Y"));
    assert_non_null(finding(&rep, "axes"));
    assert_non_null(finding(&rep, "joint_map"));
    assert_ge(rep.map_count, m.joint_count); /* every skin joint has its line */
    static const char *const want[][2] = {{"Hips", "mPelvis"}, {"Spine", "mTorso"}, {"Head", "mHead"}};
    for (size_t w = 0; w < 3; w++) {
        bool seen = false;
        for (size_t i = 0; i < rep.map_count; i++)
            seen |= strcmp(am_str(&rep.map[i].rig), want[w][0]) == 0 && strcmp(am_str(&rep.map[i].viewer), want[w][1]) == 0 &&
                    rep.map[i].confidence > 0;
        if (!seen)
            fail_msg("the map does not send %s to %s", want[w][0], want[w][1]);
    }
    assert_int_equal(rep.motion_count, 1);
    const char *motion = am_str(&rep.motions[0]);
    /* placed on the viewer's pelvis: no pelvis override, rest exact */
    assert_false(rep.parts[0].pelvis_override);
    assert_lt(rep.parts[0].rest_error_m, 1e-4);
    assert_int_equal(rep.parts[0].anim_count, 1);
    assert_false(rep.parts[0].anims[0].exploded);
    assert_true(!am_string_empty(&rep.parts[0].pose_sheet));
    assert_true(exists(am_str(&rep.parts[0].pose_sheet)));

    /* the written files on the bench against the file's own meaning */
    snprintf(file, sizeof file, "%s/quad.llmesh", out);
    char anim[800];
    snprintf(anim, sizeof anim, "%s/%s.anim", out, motion);
    const char *anims[] = {anim};
    am_bench b;
    assert_int_equal(am_bench_load(file, anims, 1, &g_skel, NULL, &b, &err), AM_OK);
    am_mat4 *rest = malloc(m.node_count * sizeof *rest);
    assert_non_null(rest);
    am_gf_rest_world(&m, rest);
    int hips = -1;
    for (size_t i = 0; i < m.node_count; i++)
        if (strcmp(m.nodes[i].name, "Hips") == 0)
            hips = (int)i;
    assert_ge(hips, 0);
    am_vec3 o = am_v3_sub(am_v3(0, 0, 1.067), zup_cm_to_viewer(am_mat4_get_translation(&rest[hips])));
    free(rest);
    double height = m.height_m * 0.01, tol = 1e-3 * height;
    float *want_pos = malloc(3 * m.vertex_count * sizeof(float));
    assert_non_null(want_pos);
    expected(&m, o, -1, 0, want_pos);
    size_t *match = am_test_retarget_match(&b, want_pos, m.vertex_count, tol);
    static const double times[] = {0, 0.125, 0.37, 0.5, 0.8, 0.93};
    double worst = 0;
    for (size_t i = 0; i < sizeof times / sizeof *times; i++) {
        expected(&m, o, 0, times[i], want_pos);
        double e = am_test_retarget_pose_error(&b, match, 0, times[i], want_pos);
        worst = fmax(worst, e);
        if (e > tol)
            fail_msg("t = %.3f s: the written files pose %.6f m from the file's own pose (allowed %.6f)", times[i], e,
                     tol);
    }
    size_t mapped = 0;
    for (size_t i = 0; i < rep.map_count; i++)
        mapped += !am_string_empty(&rep.map[i].viewer);
    print_message("quadruped (Z-up cm .glb) through animesh import: %zu of %zu joints mapped, worst %.6f m (%.1e of "
                  "%.2f m)\n",
                  mapped, rep.map_count, worst, worst / height, height);
    free(match);
    free(want_pos);
    am_bench_free(&b);

    /* NAME.rig.json is what the skin builder got: it rebuilds the same asset */
    snprintf(file, sizeof file, "%s/quad.rig.json", out);
    am_rig rig;
    assert_int_equal(am_rig_load(file, &rig, &err), AM_OK);
    am_skin_options so;
    am_skin_options_init(&so);
    am_skin_result sk;
    if (am_skin_build(&rig, &g_skel, &so, &sk, &err))
        fail_msg("%s", am_error_format(&err, msg, sizeof msg));
    am_buf again = {0};
    assert_int_equal(am_skin_encode(&sk, &again, &err), AM_OK);
    snprintf(file, sizeof file, "%s/quad.llmesh", out);
    size_t n = 0;
    uint8_t *written = am_test_slurp(file, &n);
    assert_int_equal(n, again.size);
    assert_memory_equal(written, again.data, n);
    free(written);
    am_buf_free(&again);
    am_skin_result_free(&sk);
    am_rig_free(&rig);

    am_import_report_free(&rep);
    am_gf_model_free(&m);
    am_test_rmtree(dir);
}

static void test_cli_retarget_json_and_refusals(void **state)
{
    (void)state;
    char dir[256], path[512], skel[1024];
    am_test_tmpdir(dir, sizeof dir);
    am_test_shared_path(skel, sizeof skel, "viewer/avatar_skeleton.xml");
    am_gf_write_quad_glb(dir, path, sizeof path, NULL);
    static char out[1 << 20];

    /* --json: the route, the axes, the map with nulls for unmapped joints */
    int rc = am_test_run_cli(out, sizeof out, "import '%s' --out '%s/a' --json --skeleton '%s'", path, dir, skel);
    if (rc != 0)
        fail_msg("exit %d: %s", rc, out);
    assert_non_null(strstr(out, "\"route\": \"retarget\""));
    assert_non_null(strstr(out, "\"joint_map\": ["));
    assert_non_null(strstr(out, "\"rig\": \"Hips\""));
    assert_non_null(strstr(out, "\"viewer\": \"mPelvis\""));
    assert_non_null(strstr(out, "\"axes\": \"up +Z"));
    char file[800];
    snprintf(file, sizeof file, "%s/a/quad.llmesh", dir);
    assert_true(exists(file));

    /* --faithful: the uploader's rule, nothing written */
    rc = am_test_run_cli(out, sizeof out, "import '%s' --out '%s/b' --faithful --skeleton '%s'", path, dir, skel);
    assert_int_equal(rc, 1);
    assert_non_null(strstr(out, "quad.glb"));
    assert_non_null(strstr(out, "--faithful takes COLLADA files rigged to the viewer skeleton"));
    snprintf(file, sizeof file, "%s/b", dir);
    assert_false(exists(file));

    /* --merge takes retargeted models too (test_import_sl: the 9-mesh avatar); one mesh is
     * one asset already */
    rc = am_test_run_cli(out, sizeof out, "import '%s' --out '%s/c' --merge --skeleton '%s'", path, dir, skel);
    assert_int_equal(rc, 0);
    snprintf(file, sizeof file, "%s/c/quad.llmesh", dir);
    assert_true(exists(file));

    /* options of the route are checked as options */
    rc = am_test_run_cli(out, sizeof out, "import '%s' --out '%s/d' --up sideways --skeleton '%s'", path, dir, skel);
    assert_int_equal(rc, 2);
    assert_non_null(strstr(out, "--up"));
    rc = am_test_run_cli(out, sizeof out, "import '%s' --out '%s/d' --place middle --skeleton '%s'", path, dir, skel);
    assert_int_equal(rc, 2);
    assert_non_null(strstr(out, "--place: pelvis or origin"));
    /* an unknown clip is refused by name (a usage error: the clips are listed) */
    rc = am_test_run_cli(out, sizeof out, "import '%s' --out '%s/d' --clip nope --skeleton '%s'", path, dir, skel);
    assert_int_equal(rc, 2);
    assert_non_null(strstr(out, "nope"));
    snprintf(file, sizeof file, "%s/d", dir);
    assert_false(exists(file));

    /* a motion file: no mesh to import */
    char bvh[600];
    snprintf(bvh, sizeof bvh, "%s/walk.bvh", dir);
    am_test_write_text(bvh, "HIERARCHY\nROOT hip\n{\n  OFFSET 0 0 0\n  CHANNELS 6 Xposition Yposition Zposition "
                            "Zrotation Xrotation Yrotation\n  End Site\n  {\n    OFFSET 0 10 0\n  }\n}\nMOTION\n"
                            "Frames: 2\nFrame Time: 0.1\n0 40 0 0 0 0\n0 40 0 0 10 0\n");
    rc = am_test_run_cli(out, sizeof out, "import '%s' --out '%s/e' --skeleton '%s'", bvh, dir, skel);
    assert_int_equal(rc, 1);
    assert_non_null(strstr(out, "no mesh, only motion"));
    assert_non_null(strstr(out, "anim from-bvh"));
    am_test_rmtree(dir);
}

/* --clip takes a clip by the file's name or by the name the report and the .anim file
 * show (huesitos.fbx's 'Armature|Action' is written Armature_Action.anim); an unknown
 * name lists both spellings. */
static void test_cli_clip_by_written_name(void **state)
{
    (void)state;
    const char *fbx = "/usr/share/assimp/models/FBX/huesitos.fbx";
    char dir[256], skel[1024], file[800];
    am_test_tmpdir(dir, sizeof dir);
    am_test_shared_path(skel, sizeof skel, "viewer/avatar_skeleton.xml");
    static char out[1 << 20];
    int rc = am_test_run_cli(out, sizeof out, "import '%s' --out '%s/a' --clip Armature_Action --skeleton '%s'", fbx,
                             dir, skel);
    if (rc != 0)
        fail_msg("exit %d: %s", rc, out);
    snprintf(file, sizeof file, "%s/a/Armature_Action.anim", dir);
    assert_true(exists(file));
    rc = am_test_run_cli(out, sizeof out, "import '%s' --out '%s/b' --clip 'Armature|Action' --skeleton '%s'", fbx,
                         dir, skel);
    assert_int_equal(rc, 0);
    snprintf(file, sizeof file, "%s/b/Armature_Action.anim", dir);
    assert_true(exists(file));
    rc = am_test_run_cli(out, sizeof out, "import '%s' --out '%s/c' --clip Action --skeleton '%s'", fbx, dir, skel);
    assert_int_equal(rc, 2);
    assert_non_null(strstr(out, "--clip 'Action': the model has no such clip (it has 'Armature|Action' (written "
                                "Armature_Action))"));
    snprintf(file, sizeof file, "%s/c", dir);
    assert_false(exists(file));
    am_test_rmtree(dir);
}

/* The report keeps its texts whole: a model over 700 characters deep (the report's source
 * held 512 bytes, a motion's source 256 with the path cut at 200) comes back exactly as
 * given in the report, its JSON and its motion's source. A motion file of an 80-character
 * stem is named within an inventory name's 63 bytes, and a finding keeps the whole name
 * (the struct used to cut it at 63 silently); given 17 times, with the model's clip 18
 * motions, every one in the report (it listed the first 16). */
static void test_report_keeps_a_long_source_path_whole(void **state)
{
    (void)state;
    char dir[256], deep[1024], path[1200], out[400];
    am_test_tmpdir(dir, sizeof dir);
    size_t n = (size_t)snprintf(deep, sizeof deep, "%s", dir);
    char part[101];
    memset(part, 'd', 100);
    part[100] = '\0';
    while (n < 720) {
        n += (size_t)snprintf(deep + n, sizeof deep - n, "/%s", part);
        assert_int_equal(mkdir(deep, 0755), 0);
    }
    am_gf_write_quad_glb(deep, path, sizeof path, NULL);
    assert_true(strlen(path) > 720);
    snprintf(out, sizeof out, "%s/out", dir);

    am_import_options opts = {0}; /* zeroed: the defaults */
    char real[4096], long_anim[1400], stem[81];
    memset(stem, 'm', 80);
    stem[80] = '\0';
    snprintf(long_anim, sizeof long_anim, "%s/%s.anim", dir, stem);
    am_test_shared_path(real, sizeof real, "data/realdata/bento_reset_bones_and_attachments.anim");
    size_t anim_size;
    uint8_t *bytes = am_test_slurp(real, &anim_size);
    FILE *fa = fopen(long_anim, "wb");
    assert_non_null(fa);
    assert_int_equal(fwrite(bytes, 1, anim_size, fa), anim_size);
    assert_int_equal(fclose(fa), 0);
    free(bytes);
    const char *anims[17];
    for (size_t i = 0; i < 17; i++)
        anims[i] = long_anim;
    opts.anim_paths = anims;
    opts.anim_count = 17;
    am_import_report rep;
    am_error err;
    am_error_clear(&err);
    char msg[AM_ERROR_TEXT_MAX];
    if (am_import_file(path, &g_skel, &opts, out, &rep, &err))
        fail_msg("%s", am_error_format(&err, msg, sizeof msg));
    assert_string_equal(am_str(&rep.source), path);
    assert_int_equal(rep.source.length, strlen(path));
    assert_int_equal(rep.motion_count, 18);
    const char *msrc = am_str(&rep.motion_info[0].source);
    assert_int_equal(strncmp(msrc, path, strlen(path)), 0); /* "PATH clip 'NAME'" */
    assert_non_null(strstr(msrc + strlen(path), " clip '"));
    /* the motion file's: its source whole, its name the stem's first 63 bytes, said */
    assert_string_equal(am_str(&rep.motion_info[1].source), long_anim);
    assert_int_equal(rep.motions[1].length, 63);
    assert_int_equal(strncmp(am_str(&rep.motions[1]), stem, 63), 0);
    const am_import_finding *shortened = finding(&rep, "motion_name_shortened");
    assert_non_null(shortened);
    char said[200];
    snprintf(said, sizeof said, "motion '%s': named '%.63s'", stem, stem);
    assert_non_null(strstr(am_str(&shortened->text), said));
    /* the same file again: NAME_2 .. NAME_17, each within the 63 bytes, each its .anim */
    assert_int_equal(rep.motions[17].length, 63);
    assert_int_equal(strncmp(am_str(&rep.motions[17]), stem, 60), 0);
    assert_string_equal(am_str(&rep.motions[17]) + 60, "_17");
    assert_string_equal(am_str(&rep.motion_info[17].name), am_str(&rep.motions[17]));
    size_t written_anims = 0;
    for (size_t i = 0; i < rep.written_count; i++)
        written_anims += strstr(am_str(&rep.written[i]), ".anim") != NULL;
    assert_int_equal(written_anims, 18);
    am_buf b = {0};
    assert_int_equal(am_import_report_json(&rep, &b, &err), AM_OK);
    assert_int_equal(am_buf_append(&b, "", 1, &err), AM_OK);
    char want[1300];
    snprintf(want, sizeof want, "\"source\": \"%s\"", path);
    assert_non_null(strstr((const char *)b.data, want));
    snprintf(want, sizeof want, "\"%s\"", am_str(&rep.motions[17])); /* the 18th, in "motions" */
    assert_non_null(strstr((const char *)b.data, want));
    am_buf_free(&b);
    am_import_report_free(&rep);
    am_test_rmtree(dir);
}

/* A scene whose reader notes passed the cap the scene keeps (a hostile file can make one
 * per node): the retarget route says how many were dropped, as the faithful route does. */
static void test_dropped_reader_notes_are_counted_in_the_plan(void **state)
{
    (void)state;
    char dir[512], path[1024];
    assert_non_null(am_test_tmpdir(dir, sizeof dir));
    am_gf_write_quad_glb(dir, path, sizeof path, NULL);
    am_scene scene;
    am_error err;
    char msg[AM_ERROR_TEXT_MAX];
    am_scene_load_options lo = {.skeleton = &g_skel, .weld = true};
    if (am_scene_load_ex(path, &lo, &scene, &err))
        fail_msg("%s", am_error_format(&err, msg, sizeof msg));
    for (int i = 0; i < AM_SCENE_MAX_NOTES + 50; i++)
        am_scene_note(&scene, "node %d: an odd extra", i);
    assert_int_equal(scene.note_count, AM_SCENE_MAX_NOTES);
    assert_true(scene.notes_dropped >= 50);
    am_import_options opts;
    memset(&opts, 0, sizeof opts);
    am_import_plan plan;
    if (am_import_plan_make(&scene, &g_skel, &opts, &plan, &err))
        fail_msg("%s", am_error_format(&err, msg, sizeof msg));
    assert_int_equal(plan.route, AM_IMPORT_RETARGET);
    char want[64];
    snprintf(want, sizeof want, "%zu more reader notes", scene.notes_dropped);
    bool said = false;
    for (size_t i = 0; i < plan.finding_count; i++)
        said |= strcmp(am_str(&plan.findings[i].code), "reader") == 0 &&
                strcmp(am_str(&plan.findings[i].text), want) == 0;
    if (!said)
        fail_msg("no finding says '%s'", want);
    am_import_plan_free(&plan);
    am_scene_free(&scene);
    am_test_rmtree(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_quadruped_imports_through_the_retarget_route),
        cmocka_unit_test(test_cli_retarget_json_and_refusals),
        cmocka_unit_test(test_cli_clip_by_written_name),
        cmocka_unit_test(test_report_keeps_a_long_source_path_whole),
        cmocka_unit_test(test_dropped_reader_notes_are_counted_in_the_plan),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
