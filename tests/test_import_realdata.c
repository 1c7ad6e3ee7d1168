/* animesh import on the real files of ../shared/data/realdata (their README lists each
 * file's quirks), with the figures the import must report, measured on these files:
 * Little Bear (3,523 positions, 52 joints all moved, 18 weighted, the polylist quirk, and
 * TeddyIdle.bvh on the bench without exploding), the Bento female (5 meshes, 94 joints, no
 * override), Ruth2v4Hands (flattened hierarchy, inverse binds 5.4 cm off), Roth2-v2-Body
 * (105 joints, 30 weighted, scaled collision-volume inverse binds), r2ROOTPRIM (count 12,
 * 6 quads) and ElfEar (not rigged). Plus the position-keyed weights trap, unknown joints,
 * the 110-joint limit and --normalize-binds. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/io.h"
#include "import/import.h"
#include "mesh/mesh_asset.h"
#include "bench/render.h"
#include "texture/texture.h"
#include "support/sheet_fill.h"
#include "support/test_support.h"

static am_skeleton g_skel;

typedef struct run {
    char dir[256], out[300];
    am_import_report rep;
} run;

static am_status import(const char *rel_or_path, bool shared, const am_import_options *opts_in, run *r,
                        am_error *err)
{
    char path[1024];
    if (shared)
        am_test_shared_path(path, sizeof path, rel_or_path);
    else
        snprintf(path, sizeof path, "%s", rel_or_path);
    am_test_tmpdir(r->dir, sizeof r->dir);
    snprintf(r->out, sizeof r->out, "%s/out", r->dir);
    am_import_options opts;
    if (opts_in)
        opts = *opts_in;
    else
        am_import_options_init(&opts);
    am_error_clear(err);
    return am_import_file(path, &g_skel, &opts, r->out, &r->rep, err);
}

static void must_import(const char *rel, const am_import_options *opts, run *r)
{
    am_error err;
    char buf[600];
    if (import(rel, true, opts, r, &err))
        fail_msg("%s", am_error_format(&err, buf, sizeof buf));
}

static void done(run *r)
{
    am_import_report_free(&r->rep);
    am_test_rmtree(r->dir);
}

static const am_import_finding *finding(const am_import_report *r, const char *code, const char *needle)
{
    for (size_t i = 0; i < r->finding_count; i++)
        if (strcmp(am_str(&r->findings[i].code), code) == 0 && (!needle || strstr(am_str(&r->findings[i].text), needle)))
            return &r->findings[i];
    return NULL;
}

static const am_import_joint *joint(const am_import_part_report *p, const char *name)
{
    for (size_t j = 0; j < p->joint_count; j++)
        if (strcmp(am_str(&p->joints[j].name), name) == 0)
            return &p->joints[j];
    fail_msg("no joint %s", name);
    return NULL;
}

static bool exists(const char *path)
{
    struct stat sb;
    return stat(path, &sb) == 0;
}

/* A pixel of a mesh drawn in palette colour `colour`: Lambert shading scales the colour,
 * so its chromaticity stays the palette's (background, text, joints and bones are grey or
 * red, far from every palette colour). */
static bool palette_pixel(const uint8_t *p, size_t colour)
{
    float c[3];
    am_render_palette(colour, c);
    double sum = p[0] + p[1] + p[2], cs = c[0] + c[1] + c[2];
    if (sum < 90)
        return false; /* too dark: rounding blurs the hue */
    for (int k = 0; k < 3; k++)
        if (fabs(p[k] / sum - c[k] / cs) > 0.02)
            return false;
    return true;
}

static void test_little_bear_plays_teddy_idle_without_exploding(void **state)
{
    (void)state;
    char bvh[1024];
    am_test_shared_path(bvh, sizeof bvh, "data/realdata/TeddyIdle.bvh");
    const char *anims[1] = {bvh};
    am_import_options opts;
    am_import_options_init(&opts);
    opts.anim_paths = anims;
    opts.anim_count = 1;
    opts.bench = true;
    run r;
    must_import("data/realdata/Little Bear_90.dae", &opts, &r);
    assert_int_equal(r.rep.route, AM_IMPORT_FAITHFUL);
    assert_int_equal(r.rep.part_count, 1);
    const am_import_part_report *p = &r.rep.parts[0];
    assert_int_equal(p->positions, 3523);
    assert_int_equal(p->vertices, 3784);  /* after the uploader's welding */
    assert_int_equal(p->faces, 6);        /* one per material */
    assert_int_equal(p->triangles, 6638); /* the polylists fanned from their vcount lists */
    assert_int_equal(p->joint_count, 52);
    assert_int_equal(p->moved_joints, 52);
    assert_int_equal(p->weighted_joints, 18);
    double worst = 0;
    for (size_t j = 0; j < p->joint_count; j++)
        worst = fmax(worst, p->joints[j].world_moved_m);
    assert_near(worst, 1.413, 0.002); /* mSkull drawn 1.41 m from its default */
    assert_true(p->pelvis_override);
    assert_near(am_v3_dist(p->pelvis_position, am_v3(0.01102, -0.00021, 0.18728)), 0, 1e-4);
    assert_non_null(finding(&r.rep, "reader", "count=\"672\" is not its 576 <vcount> polygons"));
    assert_non_null(finding(&r.rep, "pelvis_override", NULL));
    assert_non_null(finding(&r.rep, "meshdata_skipped", "6 faces"));
    assert_near(p->rest_error_m, 0.01323, 0.0002); /* the baked shape: 21 scaled inverse binds */
    assert_int_equal(p->scaled_binds, 21);
    /* TeddyIdle: the bear keeps its shape and size (0.52 m tall, on the prim) */
    assert_int_equal(p->anim_count, 1);
    const am_import_anim_result *a = &p->anims[0];
    assert_false(a->exploded);
    assert_near(a->duration_s, 2.5, 1e-6);
    assert_near(a->min_prim.z, 0.0005, 0.002);
    assert_near(a->max_prim.z, 0.5185, 0.002);
    assert_near(a->max_prim.y - a->min_prim.y, 0.333, 0.005);
    assert_near(a->max_displacement_m, 0.098, 0.002);
    assert_near(a->strain_p99, 1.784, 0.02);
    assert_near(a->strain_share, 0.0211, 0.002); /* the head/neck seam stretches: flagged, not exploding */
    assert_true(a->strained);
    assert_true(exists(am_str(&p->pose_sheet)));
    /* framed on the posed mesh, not on its 52 moved joints (up to 1.41 m away): the bear
     * spans at least 70 % of every panel's longer side (sheet_fill.h) */
    size_t panels = 0;
    double fill = am_test_sheet_min_fill(am_str(&p->pose_sheet), 6, &panels);
    print_message("bear pose sheet: the mesh spans >= %.3f of every panel's longer side\n", fill);
    assert_int_equal(panels, 12);
    assert_true(fill >= 0.7);
    assert_true(am_string_empty(&r.rep.pose_sheet)); /* one part: no combined sheet */
    char anim[400];
    snprintf(anim, sizeof anim, "%s/TeddyIdle.anim", r.out);
    assert_true(exists(anim));
    done(&r);
}

static void test_bento_female_five_meshes_no_override(void **state)
{
    (void)state;
    run r;
    must_import("data/realdata/female_2016_08_05.dae", NULL, &r);
    assert_int_equal(r.rep.part_count, 5);
    static const size_t joints[5] = {1, 1, 45, 7, 42};
    size_t positions = 0;
    am_error err;
    for (size_t i = 0; i < 5; i++) {
        const am_import_part_report *p = &r.rep.parts[i];
        assert_int_equal(p->joint_count, joints[i]);
        assert_int_equal(p->moved_joints, 0);
        positions += p->positions;
        /* the written skin moves no joint: every alternate within 0.1 mm of the default */
        char path[700];
        snprintf(path, sizeof path, "%s/%s.llmesh", r.out, am_str(&p->name));
        am_mesh_asset a;
        assert_int_equal(am_mesh_asset_load(path, &a, &err), AM_OK);
        assert_int_equal(a.skin.alt_count, a.skin.joint_count);
        for (size_t j = 0; j < a.skin.joint_count; j++) {
            int sj = am_skeleton_find(&g_skel, a.skin.joint_names[j]);
            am_vec3 t = am_mat4_get_translation(&a.skin.alt_inverse_bind[j]);
            assert_le(am_v3_dist(t, g_skel.joints[sj].pos), AM_JOINT_POS_THRESHOLD);
        }
        am_mesh_asset_free(&a);
    }
    assert_int_equal(positions, 3958);
    done(&r);
    /* --bench: each part's sheet, and NAME_poses.png with all five together in one framing
     * (one rest row: side and front strips of the rest drawn once, in a frame twice as wide so
     * the title stays whole), every part in its colour */
    am_import_options bench;
    am_import_options_init(&bench);
    bench.bench = true;
    must_import("data/realdata/female_2016_08_05.dae", &bench, &r);
    char want[700];
    snprintf(want, sizeof want, "%s/female_2016_08_05_poses.png", r.out);
    assert_string_equal(am_str(&r.rep.pose_sheet), want);
    bool listed = false;
    for (size_t i = 0; i < r.rep.written_count; i++)
        listed |= strcmp(am_str(&r.rep.written[i]), want) == 0;
    assert_true(listed);
    for (size_t i = 0; i < 5; i++)
        assert_true(exists(am_str(&r.rep.parts[i].pose_sheet)));
    am_image img;
    assert_int_equal(am_tex_png_read_rgba(want, &img, &err), AM_OK);
    am_test_panel panel[4];
    assert_int_equal(am_test_sheet_panels(&img, 1, panel, 4), 2); /* the rest, side and front */
    for (int k = 0; k < 2; k++)
        assert_true(panel[k].fill >= 0.7);
    for (size_t part = 0; part < 5; part++) {
        size_t n = 0;
        for (size_t i = 0; i < (size_t)img.width * (size_t)img.height; i++)
            n += palette_pixel(img.pixels + 4 * i, part);
        print_message("combined sheet: part %zu (%s): %zu pixels\n", part, am_str(&r.rep.parts[part].name), n);
        assert_ge(n, 2); /* in its colour in the two frames (an eyeball: a few pixels each) */
    }
    am_image_free(&img);
    done(&r);
    /* --merge: one asset of 5 faces and the 94 joints the meshes use together */
    am_import_options opts;
    am_import_options_init(&opts);
    opts.merge = true;
    must_import("data/realdata/female_2016_08_05.dae", &opts, &r);
    assert_int_equal(r.rep.part_count, 1);
    assert_int_equal(r.rep.parts[0].faces, 5);
    assert_int_equal(r.rep.parts[0].joint_count, 94);
    assert_int_equal(r.rep.parts[0].moved_joints, 0);
    done(&r);
}

static void test_ruth2_hands_flattened_hierarchy(void **state)
{
    (void)state;
    run r;
    must_import("data/realdata/Ruth2v4Hands.dae", NULL, &r);
    const am_import_part_report *p = &r.rep.parts[0];
    assert_int_equal(p->joint_count, 34);
    assert_int_equal(p->positions, 3052);
    assert_non_null(finding(&r.rep, "flattened_hierarchy", "mWristLeft under Avatar (viewer parent mElbowLeft)"));
    /* the wrists' own translations are offsets from the (absent) elbows: taken as given */
    assert_near(am_v3_dist(joint(p, "mWristLeft")->position, am_v3(0, 0.2048, 0)), 0, 1e-4);
    /* the inverse binds carry another shape: fingers up to 5.4 cm from where the viewer
     * draws them, which the rest error shows */
    double worst = 0;
    for (size_t j = 0; j < p->joint_count; j++)
        if (strstr(am_str(&p->joints[j].name), "mHand"))
            worst = fmax(worst, p->joints[j].bind_offset_m);
    assert_near(worst, 0.0541, 0.0005);
    assert_near(p->rest_error_m, 0.0555, 0.001);
    done(&r);
    /* --normalize-binds: the rest pose becomes exact, the before figure kept */
    am_import_options opts;
    am_import_options_init(&opts);
    opts.normalize_binds = true;
    must_import("data/realdata/Ruth2v4Hands.dae", &opts, &r);
    assert_near(r.rep.parts[0].rest_error_before_m, 0.0555, 0.001);
    assert_lt(r.rep.parts[0].rest_error_m, 1e-4);
    done(&r);
}

static void test_roth2_body_scaled_volume_inverse_binds(void **state)
{
    (void)state;
    run r;
    must_import("data/realdata/Roth2-v2-Body.dae", NULL, &r);
    const am_import_part_report *p = &r.rep.parts[0];
    assert_int_equal(p->positions, 9600);
    assert_int_equal(p->triangles, 19068);
    assert_int_equal(p->joint_count, 105); /* the 75 unweighted joints are kept, as the uploader keeps them */
    assert_int_equal(p->weighted_joints, 30);
    assert_int_equal(p->faces, 4);
    /* collision volumes: inverse binds with their own non-uniform scale, near the viewer's */
    const am_import_joint *chest = joint(p, "CHEST"), *arm = joint(p, "L_UPPER_ARM");
    assert_near(am_v3_dist(chest->bind_scale, am_v3(0.146, 0.192, 0.231)), 0, 0.002);
    assert_near(arm->bind_scale.y, 0.25, 0.002);
    assert_near(arm->bind_scale_dev, 0.08, 0.002); /* the viewer's L_UPPER_ARM is 0.17 long */
    size_t volumes = 0;
    for (size_t j = 0; j < p->joint_count; j++) {
        int sj = am_skeleton_find(&g_skel, am_str(&p->joints[j].name));
        if (g_skel.joints[sj].kind != AM_JOINT_VOLUME)
            continue;
        am_vec3 s = p->joints[j].bind_scale;
        volumes += fmax(s.x, fmax(s.y, s.z)) > 1.2 * fmin(s.x, fmin(s.y, s.z));
    }
    assert_ge(volumes, 20);
    assert_near(p->rest_error_m, 0.2068, 0.002);
    assert_non_null(finding(&r.rep, "scaled_inverse_binds", NULL));
    done(&r);
}

static void test_r2rootprim_polylist_count_quirk(void **state)
{
    (void)state;
    run r;
    must_import("data/realdata/r2ROOTPRIM_rigged.dae", NULL, &r);
    const am_import_part_report *p = &r.rep.parts[0];
    assert_int_equal(p->positions, 8);
    assert_int_equal(p->triangles, 12); /* 6 quads from the vcount list */
    assert_int_equal(p->vertices, 24);
    assert_int_equal(p->joint_count, 8);
    assert_non_null(finding(&r.rep, "reader", "count=\"12\" is not its 6 <vcount> polygons"));
    assert_non_null(finding(&r.rep, "bind_shape_rotation", "90.0 degrees"));
    done(&r);
}

static void test_elf_ear_is_not_rigged(void **state)
{
    (void)state;
    run r;
    am_error err;
    char buf[600];
    assert_int_equal(import("data/realdata/ElfEar.dae", true, NULL, &r, &err), AM_ERR_INVALID);
    am_error_format(&err, buf, sizeof buf);
    assert_non_null(strstr(buf, "ElfEar.dae"));
    assert_non_null(strstr(buf, "not rigged"));
    assert_non_null(strstr(buf, "see animesh bind"));
    assert_false(exists(r.out));
    done(&r);
}

/* A small rigged file written here: `names` for the skin, triangle (0 1 2) of material a
 * and (3 4 5) of material b (two faces, so nothing welds them), where position 4 sits
 * exactly on position 1 but carries other weights. */
static void write_dae_with(const char *path, const char *names, size_t joints, const char *libraries,
                           const char *bind_material);

static void write_dae(const char *path, const char *names, size_t joints)
{
    write_dae_with(path, names, joints, "", "");
}

static void write_dae_with(const char *path, const char *names, size_t joints, const char *libraries,
                           const char *bind_material)
{
    am_buf b = {0};
    assert_int_equal(
        am_buf_printf(&b, NULL,
                      "<?xml version=\"1.0\"?>\n<COLLADA xmlns=\"http://www.collada.org/2005/11/COLLADASchema\" "
                      "version=\"1.4.1\"><asset><unit meter=\"1\"/><up_axis>Z_UP</up_axis></asset>%s"
                      "<library_geometries><geometry id=\"g\" name=\"thing\"><mesh>"
                      "<source id=\"p\"><float_array id=\"pa\" count=\"18\">0 0 1  0.2 0 1  0 0.2 1  0.4 0 1  0.2 0 1  "
                      "0.4 0.2 1</float_array><technique_common><accessor source=\"#pa\" count=\"6\" stride=\"3\"/>"
                      "</technique_common></source>"
                      "<vertices id=\"v\"><input semantic=\"POSITION\" source=\"#p\"/></vertices>"
                      "<triangles material=\"a\" count=\"1\"><input semantic=\"VERTEX\" source=\"#v\" offset=\"0\"/>"
                      "<p>0 1 2</p></triangles>"
                      "<triangles material=\"b\" count=\"1\"><input semantic=\"VERTEX\" source=\"#v\" offset=\"0\"/>"
                      "<p>3 4 5</p></triangles></mesh></geometry></library_geometries>"
                      "<library_controllers><controller id=\"c\"><skin source=\"#g\">"
                      "<bind_shape_matrix>1 0 0 0 0 1 0 0 0 0 1 0 0 0 0 1</bind_shape_matrix>"
                      "<source id=\"j\"><Name_array id=\"ja\" count=\"%zu\">%s</Name_array></source>"
                      "<source id=\"ib\"><float_array id=\"iba\" count=\"%zu\">",
                      libraries, joints, names, 16 * joints),
        AM_OK);
    for (size_t j = 0; j < joints; j++)
        assert_int_equal(am_buf_printf(&b, NULL, "1 0 0 0 0 1 0 0 0 0 1 -1.067 0 0 0 1 "), AM_OK);
    assert_int_equal(
        am_buf_printf(&b, NULL,
                      "</float_array></source><source id=\"w\"><float_array id=\"wa\" count=\"1\">1</float_array></source>"
                      "<joints><input semantic=\"JOINT\" source=\"#j\"/><input semantic=\"INV_BIND_MATRIX\" "
                      "source=\"#ib\"/></joints><vertex_weights count=\"6\"><input semantic=\"JOINT\" source=\"#j\" "
                      "offset=\"0\"/><input semantic=\"WEIGHT\" source=\"#w\" offset=\"1\"/><vcount>1 1 1 1 1 1</vcount>"
                      "<v>0 0  0 0  0 0  %d 0  %d 0  %d 0</v></vertex_weights></skin></controller></library_controllers>"
                      "<library_visual_scenes><visual_scene id=\"s\"><node id=\"mPelvis\" name=\"mPelvis\" sid=\"mPelvis\">"
                      "<translate sid=\"translate\">0 0 1.067</translate></node>"
                      "<node id=\"n\" name=\"thing\"><instance_controller url=\"#c\"><skeleton>#mPelvis</skeleton>%s"
                      "</instance_controller></node></visual_scene></library_visual_scenes></COLLADA>\n",
                      joints > 1 ? 1 : 0, joints > 1 ? 1 : 0, joints > 1 ? 1 : 0, bind_material),
        AM_OK);
    am_error err;
    assert_int_equal(am_write_file_atomic(path, b.data, b.size, &err), AM_OK);
    am_buf_free(&b);
}

/* docs/reference/collada-upload.md#weights: weights are stored by position, the later overwriting the
 * earlier, so the vertex of position 1 takes position 4's weights (joint 1). */
static void test_coincident_positions_share_the_later_weights(void **state)
{
    (void)state;
    char dir[256], path[400];
    am_test_tmpdir(dir, sizeof dir);
    snprintf(path, sizeof path, "%s/trap.dae", dir);
    write_dae(path, "mPelvis mTorso", 2);
    run r;
    am_error err;
    char buf[600];
    if (import(path, false, NULL, &r, &err))
        fail_msg("%s", am_error_format(&err, buf, sizeof buf));
    assert_int_equal(r.rep.parts[0].borrowed_weights, 1);
    assert_non_null(finding(&r.rep, "coincident_weights", "1 vertices take the weights of another"));
    char mesh[700];
    snprintf(mesh, sizeof mesh, "%s/trap.llmesh", r.out);
    am_mesh_asset a;
    assert_int_equal(am_mesh_asset_load(mesh, &a, &err), AM_OK);
    /* both vertices at (0.2, 0, 1) follow mTorso (joint 1); the others as written */
    assert_int_equal(a.lods[AM_LOD_HIGH].face_count, 2);
    static const int want[2][3] = {{0, 1, 0}, {1, 1, 1}};
    for (size_t f = 0; f < 2; f++) {
        const am_mesh_face *fc = &a.lods[AM_LOD_HIGH].faces[f];
        assert_int_equal(fc->vertex_count, 3);
        for (size_t v = 0; v < 3; v++)
            assert_int_equal(fc->weight_joint[4 * v], want[f][v]);
    }
    am_mesh_asset_free(&a);
    done(&r);
    am_test_rmtree(dir);
}

static void test_unknown_joints_and_too_many_are_refused(void **state)
{
    (void)state;
    char dir[256], path[400], buf[800];
    am_test_tmpdir(dir, sizeof dir);
    snprintf(path, sizeof path, "%s/bones.dae", dir);
    write_dae(path, "mPelvis Bone.001", 2);
    run r;
    am_error err;
    assert_int_equal(import(path, false, NULL, &r, &err), AM_ERR_INVALID);
    am_error_format(&err, buf, sizeof buf);
    assert_non_null(strstr(buf, "bones.dae"));
    assert_non_null(strstr(buf, "Model has an unknown joint(s)"));
    assert_non_null(strstr(buf, "'Bone.001'"));
    /* not on the viewer skeleton: the retarget route is tried, and says why it cannot help
     * (two joints on a flat triangle pair: no way to tell where the model faces) */
    assert_non_null(strstr(buf, "retargeting it failed: cannot tell which way the model faces"));
    assert_false(exists(r.out));
    done(&r);
    /* --faithful: refused as the uploader refuses it, without retargeting */
    am_import_options faithful;
    am_import_options_init(&faithful);
    faithful.faithful_only = true;
    assert_int_equal(import(path, false, &faithful, &r, &err), AM_ERR_INVALID);
    am_error_format(&err, buf, sizeof buf);
    assert_non_null(strstr(buf, "bones.dae"));
    assert_non_null(strstr(buf, "Model has an unknown joint(s): 1 skin joint is not on the viewer skeleton: 'Bone.001'"));
    assert_non_null(strstr(buf, "the faithful_only option"));
    assert_null(strstr(buf, "retargeting it failed"));
    assert_false(exists(r.out));
    done(&r);
    /* 111 legal names: the uploader disables skinning above 110 */
    am_buf names = {0};
    size_t n = 0;
    for (size_t j = 0; j < g_skel.bone_count && n < 111; j++, n++)
        assert_int_equal(am_buf_printf(&names, NULL, "%s ", g_skel.joints[j].name), AM_OK);
    assert_int_equal(am_buf_append(&names, "", 1, NULL), AM_OK);
    write_dae(path, (const char *)names.data, 111);
    am_buf_free(&names);
    assert_int_equal(import(path, false, NULL, &r, &err), AM_ERR_INVALID);
    am_error_format(&err, buf, sizeof buf);
    assert_non_null(strstr(buf, "Skinning disabled due to too many joints: 111, maximum: 110"));
    assert_false(exists(r.out));
    done(&r);
    am_test_rmtree(dir);
}

/* A material's texture: the PNG next to the model becomes NAME.png (what the .dae names)
 * and a .j2c, resized to power-of-two sides for upload (reported); the part is textured. */
static void test_texture_is_carried_and_converted(void **state)
{
    (void)state;
    char dir[256], path[400], png[400], buf[800];
    am_test_tmpdir(dir, sizeof dir);
    snprintf(png, sizeof png, "%s/skin tex.png", dir);
    am_tex_image img;
    am_error err;
    assert_int_equal(am_tex_image_alloc(&img, 24, 20, 3, &err), AM_OK);
    for (size_t i = 0; i < 24 * 20 * 3; i++)
        img.pixels[i] = (uint8_t)(i * 7);
    assert_int_equal(am_tex_png_write(png, &img, &err), AM_OK);
    am_tex_image_free(&img);
    static const char libs[] =
        "<library_images><image id=\"img\"><init_from>skin%20tex.png</init_from></image></library_images>"
        "<library_effects><effect id=\"e\"><profile_COMMON>"
        "<newparam sid=\"surf\"><surface type=\"2D\"><init_from>img</init_from></surface></newparam>"
        "<newparam sid=\"samp\"><sampler2D><source>surf</source></sampler2D></newparam>"
        "<technique sid=\"common\"><phong><diffuse><texture texture=\"samp\" texcoord=\"UV\"/></diffuse></phong>"
        "</technique></profile_COMMON></effect></library_effects>"
        "<library_materials><material id=\"mat\"><instance_effect url=\"#e\"/></material></library_materials>";
    static const char bind[] = "<bind_material><technique_common><instance_material symbol=\"a\" target=\"#mat\"/>"
                               "<instance_material symbol=\"b\" target=\"#mat\"/></technique_common></bind_material>";
    snprintf(path, sizeof path, "%s/tex.dae", dir);
    write_dae_with(path, "mPelvis mTorso", 2, libs, bind);
    run r;
    if (import(path, false, NULL, &r, &err))
        fail_msg("%s", am_error_format(&err, buf, sizeof buf));
    assert_non_null(finding(&r.rep, "texture_resized", "24x20: resized to 16x16"));
    char out[700];
    snprintf(out, sizeof out, "%s/skin_tex.png", r.out);
    assert_true(exists(out));
    snprintf(out, sizeof out, "%s/skin_tex.j2c", r.out);
    uint8_t *j2c;
    size_t n;
    assert_int_equal(am_read_file(out, &j2c, &n, &err), AM_OK);
    am_tex_image back;
    assert_int_equal(am_j2c_decode(j2c, n, &back, &err), AM_OK);
    assert_int_equal(back.width, 16);
    assert_int_equal(back.height, 16);
    am_tex_image_free(&back);
    free(j2c);
    snprintf(out, sizeof out, "%s/tex.dae", r.out);
    uint8_t *dae;
    assert_int_equal(am_read_file(out, &dae, &n, &err), AM_OK);
    assert_non_null(strstr((const char *)dae, "<init_from>skin_tex.png</init_from>"));
    free(dae);
    done(&r);
    am_test_rmtree(dir);
}

int main(void)
{
    am_test_load_viewer_skeleton(&g_skel);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_little_bear_plays_teddy_idle_without_exploding),
        cmocka_unit_test(test_bento_female_five_meshes_no_override),
        cmocka_unit_test(test_ruth2_hands_flattened_hierarchy),
        cmocka_unit_test(test_roth2_body_scaled_volume_inverse_binds),
        cmocka_unit_test(test_r2rootprim_polylist_count_quirk),
        cmocka_unit_test(test_elf_ear_is_not_rigged),
        cmocka_unit_test(test_coincident_positions_share_the_later_weights),
        cmocka_unit_test(test_unknown_joints_and_too_many_are_refused),
        cmocka_unit_test(test_texture_is_carried_and_converted),
    };
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    am_skeleton_free(&g_skel);
    return rc;
}
