/* Motions from any file (retarget/motion_file.h, issue 18): the real Mixamo motion-only FBX
 * files onto the stock avatar (anim from-model's library call) and through import onto
 * rpm_avatar.glb, measured on the written .anim against the source's own clip evaluation
 * (bench/perf/support/motion_directions.h: p95 <= 6 deg, max <= 15 deg), a glTF animation pack
 * written from the fixture, and the bad inputs: an unknown clip, a clip shorter than a frame,
 * NaN keys, a motion-only file given as the model of import. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "anim/anim.h"
#include "support/gltf_fixtures.h"
#include "import/import.h"
#include "retarget/motion_file.h"
#include "readers/scene_load.h"
#include "bench/perf/support/motion_directions.h"
#include "support/test_support.h"

static am_skeleton g_skel;

static void check_anim(const am_buf *b)
{
    am_anim a;
    am_error err;
    assert_int_equal(am_anim_decode(b->data, b->size, &a, &err), AM_OK);
    am_anim_report rep = {0};
    assert_int_equal(am_anim_validate(&a, &g_skel, &rep, &err), AM_OK);
    assert_int_equal(am_anim_report_fail(&rep, &err), AM_OK);
    am_anim_report_free(&rep);
    am_anim_free(&a);
}

static void directions(const char *path, const uint8_t *anim, size_t size, const am_vec3 *rest, double *p95,
                       double *worst)
{
    am_scene s;
    am_error err;
    assert_int_equal(am_scene_load(path, &s, &err), AM_OK);
    am_md_result d;
    assert_int_equal(am_md_measure(&s, 0, "mixamorig:", anim, size, &g_skel, rest, &d, &err), AM_OK);
    assert_ge(d.measured, 12 * AM_MD_TIMES); /* every major bone at every time */
    *p95 = d.p95_deg;
    *worst = d.worst_deg;
    am_scene_free(&s);
}

static void mixamo_onto_stock(const char *rel, double duration_s)
{
    char path[1024];
    am_test_shared_path(path, sizeof path, rel);
    am_motion_file_options mo;
    am_motion_file_options_init(&mo);
    mo.one_clip = true;
    am_motion_file_result r;
    am_error err;
    char buf[1200];
    if (am_motion_file_convert(path, &g_skel, &mo, &r, &err))
        fail_msg("%s", am_error_format(&err, buf, sizeof buf));
    assert_int_equal(r.anim_count, 1);
    const am_motion_file_anim *a = &r.anims[0];
    assert_string_equal(am_str(&a->clip), "mixamo.com");
    assert_ge(a->joints_mapped, 50); /* 55 of Mixamo's 65: every body and finger joint */
    assert_near(a->duration_s, duration_s, 0.01);
    assert_true(a->loops); /* Mixamo's cycles close within hundredths of a degree */
    check_anim(&a->anim);
    am_vec3 *stock = malloc(g_skel.joint_count * sizeof *stock);
    am_retarget_rest_of_rig(NULL, &g_skel, stock);
    double p95, worst;
    directions(path, a->anim.data, a->anim.size, stock, &p95, &worst);
    assert_le(p95, 6.0);
    assert_le(worst, 15.0);
    /* the source's deltas from its own rest, without direction following, miss the
     * target: the measure can fail */
    am_scene s;
    assert_int_equal(am_scene_load(path, &s, &err), AM_OK);
    am_retarget_options ro;
    am_retarget_options_init(&ro);
    am_retarget_result rr;
    assert_int_equal(am_retarget(&s, &g_skel, &ro, &rr, &err), AM_OK);
    am_buf naive = {0};
    assert_int_equal(am_retarget_write_anim(&rr, 0, &g_skel, NULL, &naive, NULL, &err), AM_OK);
    double np95, nworst;
    directions(path, naive.data, naive.size, stock, &np95, &nworst);
    assert_gt(np95, 6.0); /* measured: 12.9 deg for both files (the T-pose's arms and legs) */
    am_buf_free(&naive);
    am_retarget_result_free(&rr);
    am_scene_free(&s);
    free(stock);
    am_motion_file_result_free(&r);
}

static void test_idle_onto_stock(void **state)
{
    (void)state;
    mixamo_onto_stock("data/realdata/Idle.fbx", 1.967);
}

static void test_walking_onto_stock(void **state)
{
    (void)state;
    mixamo_onto_stock("data/realdata/Walking.fbx", 1.033);
}

static void test_walking_through_import_onto_rpm(void **state)
{
    (void)state;
    char model[1024], motion[1024], dir[256], out[300], anim[400];
    am_test_shared_path(model, sizeof model, "data/realdata/rpm_avatar.glb");
    am_test_shared_path(motion, sizeof motion, "data/realdata/Walking.fbx");
    am_test_tmpdir(dir, sizeof dir);
    snprintf(out, sizeof out, "%s/out", dir);
    am_import_options opts;
    am_import_options_init(&opts);
    const char *anims[1] = {motion};
    opts.anim_paths = anims;
    opts.anim_count = 1;
    am_import_report rep;
    am_error err;
    char buf[1200];
    if (am_import_file(model, &g_skel, &opts, out, &rep, &err))
        fail_msg("%s", am_error_format(&err, buf, sizeof buf));
    assert_int_equal(rep.motion_count, 1);
    assert_string_equal(am_str(&rep.motions[0]), "Walking"); /* the file's stem: it holds one clip */
    assert_true(rep.motion_info[0].retargeted);
    assert_true(rep.motion_info[0].loop);
    assert_le(rep.motion_info[0].worst_direction_deg, 15.0);
    snprintf(anim, sizeof anim, "%s/Walking.anim", out);
    /* bench --anim takes the motion file too, converted onto the written mesh's own rest:
     * the same poses as the import's Walking.anim */
    char cli[8192];
    assert_int_equal(am_test_run_cli(cli, sizeof cli,
                                     "bench '%s/rpm_avatar_Wolf3D_Body.llmesh' --anim '%s' --anim '%s' --time 0.5",
                                     out, motion, anim),
                     0);
    const char *m0 = strstr(cli, "motion 0: Walking"), *m1 = strstr(cli, "motion 1: ");
    assert_non_null(m0);
    assert_non_null(m1);
    const char *d0 = strstr(m0, "displacement max"), *d1 = strstr(m1, "displacement max");
    assert_non_null(d0);
    assert_non_null(d1);
    assert_memory_equal(d0, d1, 40);
    size_t size;
    uint8_t *bytes = am_test_slurp(anim, &size);
    am_buf b = {bytes, size, size};
    check_anim(&b);
    /* the creature's rest, as the import drew it */
    am_scene s;
    assert_int_equal(am_scene_load(model, &s, &err), AM_OK);
    am_retarget_result rr;
    assert_int_equal(am_retarget(&s, &g_skel, NULL, &rr, &err), AM_OK);
    am_vec3 *rest = malloc(g_skel.joint_count * sizeof *rest);
    am_retarget_rest_of_rig(&rr.rigs[0].rig, &g_skel, rest);
    double p95, worst;
    directions(motion, bytes, size, rest, &p95, &worst);
    assert_le(p95, 6.0);
    assert_le(worst, 15.0);
    free(rest);
    free(bytes);
    am_retarget_result_free(&rr);
    am_scene_free(&s);
    am_import_report_free(&rep);
    am_test_rmtree(dir);
}

/* The quadruped fixture (or a one-joint chain) as an animation pack: skeleton and clip, no mesh,
 * no skin. */
static void write_pack_of(const char *dir, const char *name, bool chain, void (*edit)(json_t *doc, am_buf *bin),
                          char *path, size_t size)
{
    am_gf_model m;
    if (chain)
        am_gf_chain(&m, 1, 0.2, 1.0);
    else
        am_gf_quadruped(&m);
    am_buf bin = {0};
    json_t *doc = am_gf_document(&m, NULL, &bin);
    json_object_del(doc, "meshes");
    json_object_del(doc, "skins");
    json_t *nodes = json_object_get(doc, "nodes");
    for (size_t i = 0; i < json_array_size(nodes); i++) {
        json_object_del(json_array_get(nodes, i), "mesh");
        json_object_del(json_array_get(nodes, i), "skin");
    }
    if (edit)
        edit(doc, &bin);
    am_gf_save(doc, &bin, AM_GF_GLB, dir, name, path, size);
    json_decref(doc);
    am_buf_free(&bin);
    am_gf_model_free(&m);
}

static void write_pack(const char *dir, const char *name, void (*edit)(json_t *doc, am_buf *bin), char *path,
                       size_t size)
{
    write_pack_of(dir, name, false, edit, path, size);
}

/* The quadruped's trot travelling forward (+Z, glTF's) at 0.6 m/s: its hips' translation
 * keys carry the travel, so the last pose is not the first. */
static void write_travelling_pack(const char *dir, char *path, size_t size)
{
    am_gf_model m;
    am_gf_quadruped(&m);
    bool found = false;
    for (size_t h = 0; h < m.clips[0].channel_count; h++) {
        am_gf_channel *ch = &m.clips[0].channels[h];
        if (ch->path != AM_SCENE_PATH_TRANSLATION || strcmp(m.nodes[ch->node].name, "Hips") != 0)
            continue;
        for (size_t k = 0; k < ch->key_count; k++)
            ch->values[3 * k + 2] += 0.6f * ch->times[k];
        found = true;
    }
    assert_true(found);
    am_buf bin = {0};
    json_t *doc = am_gf_document(&m, NULL, &bin);
    json_object_del(doc, "meshes");
    json_object_del(doc, "skins");
    json_t *nodes = json_object_get(doc, "nodes");
    for (size_t i = 0; i < json_array_size(nodes); i++) {
        json_object_del(json_array_get(nodes, i), "mesh");
        json_object_del(json_array_get(nodes, i), "skin");
    }
    am_gf_save(doc, &bin, AM_GF_GLB, dir, "trot", path, size);
    json_decref(doc);
    am_buf_free(&bin);
    am_gf_model_free(&m);
}

/* The pelvis's horizontal travel, first key to last, of an encoded .anim. */
static double pelvis_travel(const am_buf *b)
{
    am_anim a;
    am_error err;
    assert_int_equal(am_anim_decode(b->data, b->size, &a, &err), AM_OK);
    double d = -1;
    for (size_t j = 0; j < a.joint_count; j++) {
        const am_anim_joint *jt = &a.joints[j];
        if (strcmp(jt->name, "mPelvis") != 0 || jt->pos_count < 2)
            continue;
        am_vec3 p0 = jt->pos_keys[0].pos, p1 = jt->pos_keys[jt->pos_count - 1].pos;
        d = hypot(p1.x - p0.x, p1.y - p0.y);
    }
    am_anim_free(&a);
    return d;
}

/* --in-place removes the hips' horizontal travel and lets the cycle loop; without it the
 * travel is kept (scaled by leg length) and the motion does not loop. */
static void test_in_place(void **state)
{
    (void)state;
    char dir[256], path[512];
    am_test_tmpdir(dir, sizeof dir);
    write_travelling_pack(dir, path, sizeof path);
    am_motion_file_options mo;
    am_motion_file_options_init(&mo);
    am_motion_file_result r;
    am_error err;
    assert_int_equal(am_motion_file_convert(path, &g_skel, &mo, &r, &err), AM_OK);
    double travel = pelvis_travel(&r.anims[0].anim);
    assert_gt(travel, 0.1); /* 0.6 m in the source, times target leg / source leg */
    assert_false(r.anims[0].loops);
    am_motion_file_result_free(&r);
    mo.retarget.in_place = true;
    assert_int_equal(am_motion_file_convert(path, &g_skel, &mo, &r, &err), AM_OK);
    double kept = pelvis_travel(&r.anims[0].anim);
    assert_true(kept >= 0 && kept < 1e-3);
    assert_true(r.anims[0].loops);
    am_motion_file_result_free(&r);
    am_test_rmtree(dir);
}

/* A motion in a folder deeper than 512 bytes (a library on a long network path) converts:
 * the FILE[:CLIP] reference is split into a PATH_MAX buffer, not a 512-byte one. */
static void test_a_deep_path_converts(void **state)
{
    (void)state;
    char dir[256], deep[1400], path[1500];
    am_test_tmpdir(dir, sizeof dir);
    int n = snprintf(deep, sizeof deep, "%s", dir);
    for (int i = 0; i < 12 && n < 900; i++) {
        n += snprintf(deep + n, sizeof deep - (size_t)n, "/a_rather_long_folder_name_for_a_library_%02d", i);
        assert_int_equal(mkdir(deep, 0755), 0);
    }
    assert_true(strlen(deep) > 512);
    write_travelling_pack(deep, path, sizeof path);
    am_motion_file_options mo;
    am_motion_file_options_init(&mo);
    am_motion_file_result r;
    am_error err;
    char msg[AM_ERROR_TEXT_MAX];
    if (am_motion_file_convert(path, &g_skel, &mo, &r, &err))
        fail_msg("%s", am_error_format(&err, msg, sizeof msg));
    assert_true(r.anim_count >= 1);
    assert_string_equal(am_str(&r.source), path);
    am_motion_file_result_free(&r);
    am_test_rmtree(dir);
}

static void test_gltf_animation_pack_converts(void **state)
{
    (void)state;
    char dir[256], path[512];
    am_test_tmpdir(dir, sizeof dir);
    write_pack(dir, "pack", NULL, path, sizeof path);
    am_motion_file_options mo;
    am_motion_file_options_init(&mo);
    am_motion_file_result r;
    am_error err;
    char buf[1200];
    if (am_motion_file_convert(path, &g_skel, &mo, &r, &err))
        fail_msg("%s", am_error_format(&err, buf, sizeof buf));
    assert_int_equal(r.anim_count, 1);
    assert_string_equal(am_str(&r.anims[0].name), "pack");
    assert_string_equal(am_str(&r.anims[0].clip), "walk");
    assert_ge(r.anims[0].joints_mapped, 10);
    assert_near(r.anims[0].duration_s, 1.0, 1e-6);
    check_anim(&r.anims[0].anim);
    am_motion_file_result_free(&r);
    /* as a clip reference FILE:CLIP, and an unknown clip lists the clips */
    char ref[600];
    snprintf(ref, sizeof ref, "%s:walk", path);
    assert_int_equal(am_motion_file_convert(ref, &g_skel, &mo, &r, &err), AM_OK);
    assert_int_equal(r.anim_count, 1);
    am_motion_file_result_free(&r);
    /* a path holding ':' names that file, it is not split */
    char colon[600];
    snprintf(colon, sizeof colon, "%s/take:2.glb", dir);
    size_t n;
    uint8_t *bytes = am_test_slurp(path, &n);
    assert_int_equal(am_write_file_atomic(colon, bytes, n, &err), AM_OK);
    free(bytes);
    assert_int_equal(am_motion_file_convert(colon, &g_skel, &mo, &r, &err), AM_OK);
    assert_string_equal(am_str(&r.anims[0].name), "take_2");
    am_motion_file_result_free(&r);
    snprintf(ref, sizeof ref, "%s:walk", colon); /* and a clip after it: split at the last ':' */
    assert_int_equal(am_motion_file_convert(ref, &g_skel, &mo, &r, &err), AM_OK);
    assert_string_equal(am_str(&r.anims[0].clip), "walk");
    am_motion_file_result_free(&r);
    snprintf(ref, sizeof ref, "%s:run", path);
    assert_int_equal(am_motion_file_convert(ref, &g_skel, &mo, &r, &err), AM_ERR_USAGE);
    assert_non_null(strstr(err.msg, "'run'"));
    assert_non_null(strstr(err.msg, "'walk'"));
    am_test_rmtree(dir);
}

static void short_clip(json_t *doc, am_buf *bin)
{
    /* every sampler's input: the key times squeezed into 0.01 s */
    json_t *anims = json_object_get(doc, "animations");
    json_t *smp = json_object_get(json_array_get(anims, 0), "samplers");
    for (size_t i = 0; i < json_array_size(smp); i++) {
        size_t acc = (size_t)json_integer_value(json_object_get(json_array_get(smp, i), "input"));
        json_t *a = json_array_get(json_object_get(doc, "accessors"), acc);
        json_t *bv = json_array_get(json_object_get(doc, "bufferViews"),
                                    (size_t)json_integer_value(json_object_get(a, "bufferView")));
        size_t off = (size_t)json_integer_value(json_object_get(bv, "byteOffset")) +
                     (size_t)json_integer_value(json_object_get(a, "byteOffset"));
        size_t n = (size_t)json_integer_value(json_object_get(a, "count"));
        float *t = (float *)(void *)(bin->data + off);
        for (size_t k = 0; k < n; k++)
            t[k] *= 0.01f;
        json_t *mx = json_object_get(a, "max");
        if (mx)
            json_array_set_new(mx, 0, json_real(json_number_value(json_array_get(mx, 0)) * 0.01));
    }
}

static void nan_key(json_t *doc, am_buf *bin)
{
    json_t *smp = json_object_get(json_array_get(json_object_get(doc, "animations"), 0), "samplers");
    size_t acc = (size_t)json_integer_value(json_object_get(json_array_get(smp, 0), "output"));
    json_t *a = json_array_get(json_object_get(doc, "accessors"), acc);
    json_t *bv = json_array_get(json_object_get(doc, "bufferViews"),
                                (size_t)json_integer_value(json_object_get(a, "bufferView")));
    size_t off = (size_t)json_integer_value(json_object_get(bv, "byteOffset")) +
                 (size_t)json_integer_value(json_object_get(a, "byteOffset"));
    float *v = (float *)(void *)(bin->data + off);
    v[1] = NAN;
    json_object_del(a, "min");
    json_object_del(a, "max");
}

static void test_bad_motion_files(void **state)
{
    (void)state;
    char dir[256], path[512];
    am_test_tmpdir(dir, sizeof dir);
    am_motion_file_options mo;
    am_motion_file_options_init(&mo);
    am_motion_file_result r;
    am_error err;
    /* shorter than one frame */
    write_pack(dir, "short", short_clip, path, sizeof path);
    assert_int_equal(am_motion_file_convert(path, &g_skel, &mo, &r, &err), AM_ERR_INVALID);
    assert_non_null(strstr(err.msg, "shorter than one frame"));
    assert_non_null(strstr(err.where, "short.glb"));
    /* NaN keys */
    write_pack(dir, "nan", nan_key, path, sizeof path);
    assert_int_equal(am_motion_file_convert(path, &g_skel, &mo, &r, &err), AM_ERR_INVALID);
    assert_non_null(strstr(err.where, "nan.glb"));
    /* a skeleton nothing of which maps: the file and what it holds */
    write_pack_of(dir, "chain", true, NULL, path, sizeof path);
    assert_int_equal(am_motion_file_convert(path, &g_skel, &mo, &r, &err), AM_ERR_INVALID);
    assert_non_null(strstr(err.msg, "maps to nothing"));
    assert_non_null(strstr(err.msg, "(1 joint), 1 clip, 0 meshes; joints 'j0'"));
    assert_non_null(strstr(err.where, "chain.glb"));
    /* a Mixamo clip that does not exist: the clips are listed */
    char real[1024], ref[1100];
    am_test_shared_path(real, sizeof real, "data/realdata/Walking.fbx");
    snprintf(ref, sizeof ref, "%s:Running", real);
    assert_int_equal(am_motion_file_convert(ref, &g_skel, &mo, &r, &err), AM_ERR_USAGE);
    assert_non_null(strstr(err.msg, "'mixamo.com'"));
    /* a motion-only file as import's model: says to use --anim or anim from-model */
    am_import_options opts;
    am_import_options_init(&opts);
    am_import_report rep;
    char out[300];
    snprintf(out, sizeof out, "%s/out", dir);
    assert_int_equal(am_import_file(real, &g_skel, &opts, out, &rep, &err), AM_ERR_INVALID);
    assert_non_null(strstr(err.msg, "the anim_paths option"));
    assert_non_null(strstr(err.msg, "anim from-model"));
    am_test_rmtree(dir);
}

/* The command line: anim from-model writes a checked .anim and prints the figures; an
 * unknown clip is a usage error (exit 2) that writes nothing; import of a motion-only file
 * says where it goes (exit 1). */
static void test_from_model_cli(void **state)
{
    (void)state;
    char dir[256], anim[400], real[1024], out[8192];
    am_test_tmpdir(dir, sizeof dir);
    snprintf(anim, sizeof anim, "%s/Walking.anim", dir);
    am_test_shared_path(real, sizeof real, "data/realdata/Walking.fbx");
    assert_int_equal(am_test_run_cli(out, sizeof out, "anim from-model --help"), 0);
    assert_non_null(strstr(out, "from-model FILE[:CLIP]"));
    assert_int_equal(am_test_run_cli(out, sizeof out, "anim from-model '%s' --reduce 0.5 -o '%s'", real, anim), 0);
    assert_non_null(strstr(out, "55 joints mapped, 10 unmapped"));
    assert_non_null(strstr(out, "looping"));
    const char *keys = strstr(out, " keys -> ");
    assert_non_null(keys);
    while (keys > out && keys[-1] >= '0' && keys[-1] <= '9')
        keys--;
    unsigned long before = 0, after = 0;
    assert_int_equal(sscanf(keys, "%lu keys -> %lu after reduction", &before, &after), 2);
    /* every 30 fps frame of 1.03 s on the joints that move under their parent, at least
     * (the skull and the toe tips keep the source's orientation: riding their parent, one key) */
    assert_ge(before, 31 * 52);
    assert_lt(after, before / 2); /* --reduce 0.5 drops most of them */
    assert_int_equal(am_test_run_cli(out, sizeof out, "anim check '%s'", anim), 0);
    assert_int_equal(am_test_run_cli(out, sizeof out, "anim decode '%s'", anim), 0);
    assert_non_null(strstr(out, "base priority 2, looping")); /* the uploader's defaults */
    assert_non_null(strstr(out, "ease in 0.300 s / out 0.300 s, hand pose 1"));
    remove(anim);
    assert_int_equal(am_test_run_cli(out, sizeof out, "anim from-model '%s:Running' -o '%s'", real, anim), 2);
    assert_non_null(strstr(out, "'mixamo.com'"));
    assert_int_equal(am_test_count_entries(dir), 0);
    /* a clip of another rigged model (assimp's test model: one clip, 9 bones) */
    assert_int_equal(am_test_run_cli(out, sizeof out,
                                     "anim from-model '/usr/share/assimp/models/FBX/huesitos.fbx:Armature|Action' -o "
                                     "'%s'",
                                     anim),
                     0);
    assert_non_null(strstr(out, "clip 'Armature|Action'"));
    assert_int_equal(am_test_run_cli(out, sizeof out, "anim check '%s'", anim), 0);
    remove(anim);
    assert_int_equal(am_test_run_cli(out, sizeof out, "import '%s' --out '%s/o'", real, dir), 1);
    assert_non_null(strstr(out, "anim from-model"));
    am_test_rmtree(dir);
}

int main(void)
{
    char p[1024];
    setenv("ANIMESH_SKELETON", am_test_shared_path(p, sizeof p, "viewer/avatar_skeleton.xml"), 1);
    am_test_load_viewer_skeleton(&g_skel);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_idle_onto_stock),
        cmocka_unit_test(test_a_deep_path_converts),
        cmocka_unit_test(test_walking_onto_stock),
        cmocka_unit_test(test_walking_through_import_onto_rpm),
        cmocka_unit_test(test_gltf_animation_pack_converts),
        cmocka_unit_test(test_bad_motion_files),
        cmocka_unit_test(test_in_place),
        cmocka_unit_test(test_from_model_cli),
    };
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    am_skeleton_free(&g_skel);
    return rc;
}
