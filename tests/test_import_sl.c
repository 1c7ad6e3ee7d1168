/* Getting a retargeted creature into Second Life / OpenSim in one piece (issue 28 item 10):
 * `import --merge` joins a retargeted model's parts into one asset, the parts' materials as
 * its faces (the Ready Player Me avatar: 9 meshes wearing 8 textures -> 1 asset of 8 faces),
 * and `import --play CLIP` picks the motion the archive's starter script plays on rez. */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/io.h"
#include "support/test_support.h"
#include "world/oar.h"
#include "world/oar_check.h"
#include "world/oar_verify.h"

static int setup(void **state)
{
    (void)state;
    char p[1024];
    setenv("ANIMESH_SKELETON", am_test_shared_path(p, sizeof p, "viewer/avatar_skeleton.xml"), 1);
    return 0;
}

static void test_merge_and_play_on_the_retargeted_avatar(void **state)
{
    (void)state;
    char dir[256], out_dir[512], oar[600], glb[1024], walk[1024], idle[1024];
    size_t n0;
    static char out[1 << 17];
    am_test_tmpdir(dir, sizeof dir);
    snprintf(out_dir, sizeof out_dir, "%s/avatar", dir);
    snprintf(oar, sizeof oar, "%s/avatar.oar", out_dir);
    am_test_shared_path(glb, sizeof glb, "data/realdata/rpm_avatar.glb");
    am_test_shared_path(walk, sizeof walk, "data/realdata/Walking.fbx");
    am_test_shared_path(idle, sizeof idle, "data/realdata/Idle.fbx");
    int rc = am_test_run_cli(out, sizeof out,
                             "import '%s' --out '%s' --merge --anim '%s' --anim '%s' --oar '%s' --play Idle --json",
                             glb, out_dir, walk, idle, oar);
    if (rc != 0)
        fail_msg("exit %d: %.2000s", rc, out);
    json_error_t je;
    const char *js = strstr(out, "\n{\n"); /* the report, after the progress lines */
    assert_non_null(js);
    json_t *rep = json_loads(js + 1, 0, &je);
    if (!rep)
        fail_msg("not JSON (%s): %.500s", je.text, out);
    /* one asset: 9 meshes, 8 textures (both eyes wear Wolf3D_Eye) -> 8 faces, within 110 joints */
    json_t *parts = json_object_get(rep, "parts");
    assert_int_equal(json_array_size(parts), 1);
    json_t *p = json_array_get(parts, 0);
    assert_int_equal(json_integer_value(json_object_get(p, "faces")), 8);
    json_int_t joints = json_integer_value(json_object_get(p, "joints"));
    print_message("merged avatar: 1 asset, 8 faces, %lld joints, rest error %.6f m\n", (long long)joints,
                  json_real_value(json_object_get(p, "rest_error_m")));
    assert_true(joints > 50 && joints <= 110);
    assert_true(json_real_value(json_object_get(p, "rest_error_m")) < 1e-3); /* the parts' skins agree */
    assert_string_equal(json_string_value(json_object_get(rep, "plays_on_rez")), "Idle");
    bool faces_named = false;
    json_t *fs = json_object_get(rep, "findings");
    for (size_t i = 0; i < json_array_size(fs); i++) {
        const char *t = json_string_value(json_object_get(json_array_get(fs, i), "text"));
        faces_named |= t && strstr(t, "face 0 Wolf3D_Eye (EyeLeft, EyeRight); face 1 Wolf3D_Skin (Wolf3D_Head)") != NULL;
    }
    assert_true(faces_named);
    json_decref(rep);
    /* the .dae for Second Life's uploader: each face its own material and image */
    char dae[700];
    snprintf(dae, sizeof dae, "%s/rpm_avatar.dae", out_dir);
    char *text = (char *)am_test_slurp(dae, &n0);
    size_t materials = 0;
    for (const char *q = text; (q = strstr(q, "<material id=")); q++)
        materials++;
    assert_int_equal(materials, 8);
    assert_non_null(strstr(text, "<init_from>Wolf3D_Eye.jpg</init_from>"));
    assert_non_null(strstr(text, "<init_from>Wolf3D_Hair.jpg</init_from>"));
    assert_non_null(strstr(text, "<instance_material symbol=\"face7\" target=\"#rpm_avatar-material7\">"));
    free(text);
    /* the archive: one prim, its starter script playing Idle */
    size_t n;
    uint8_t *bytes = am_test_slurp(oar, &n);
    am_oar_contents c;
    am_error err;
    assert_int_equal(am_oar_read(bytes, n, &c, &err), AM_OK);
    free(bytes);
    assert_int_equal(c.object_count, 1);
    assert_int_equal(c.objects[0].part_count, 1);
    size_t textures = 0; /* each face its texture: 8 distinct */
    for (size_t i = 0; i < c.entry_count; i++)
        textures += strstr(c.entries[i].path, "_texture.jp2") != NULL;
    assert_int_equal(textures, 8);
    char anim[64];
    assert_true(am_oar_starter_animation(&c, anim, sizeof anim));
    assert_string_equal(anim, "Idle");
    am_oar_contents_free(&c);
    /* a --play naming no motion: refused before any work, naming the motions; nothing written */
    char other[600];
    snprintf(other, sizeof other, "%s/other", dir);
    rc = am_test_run_cli(out, sizeof out, "import '%s' --out '%s' --anim '%s' --oar '%s/x.oar' --play Run", glb, other,
                         walk, other);
    assert_int_equal(rc, 2);
    assert_non_null(strstr(out, "--play 'Run': no motion of that name; the motions are 'Walking'"));
    assert_int_equal(am_test_count_entries(other), -1);
    rc = am_test_run_cli(out, sizeof out, "import '%s' --out '%s' --play Idle", glb, other);
    assert_int_equal(rc, 2);
    assert_non_null(strstr(out, "--play CLIP chooses what the archive plays on rez: it goes with --oar FILE.oar"));
    am_test_rmtree(dir);
}

/* The TextureEntry's texture section with face exceptions, byte for byte: the default, then
 * per distinct texture the bitfield of its faces (7 bits a byte, high bit = more: face 7 takes
 * two bytes) and the UUID, then the 0 that ends the list, then the other sections unchanged. */
static void test_texture_entry_face_exceptions(void **state)
{
    (void)state;
    am_uuid d, a, b;
    memset(d.b, 0x11, 16);
    memset(a.b, 0xAA, 16);
    memset(b.b, 0xBB, 16);
    const am_uuid *faces[8] = {&d, &a, &b, &b, NULL, &d, NULL, &a};
    uint8_t te[AM_OAR_TEXTURE_ENTRY_MAX], plain[AM_OAR_TEXTURE_ENTRY_SIZE];
    size_t n = am_oar_texture_entry_faces(&d, NULL, faces, 8, te);
    am_oar_texture_entry(&d, NULL, plain);
    assert_int_equal(n, AM_OAR_TEXTURE_ENTRY_SIZE + 2 + 16 + 1 + 16);
    assert_memory_equal(te, d.b, 16);
    /* faces 1 and 7 wear a: bits 0x82 -> 0x81 0x02 */
    assert_int_equal(te[16], 0x81);
    assert_int_equal(te[17], 0x02);
    assert_memory_equal(te + 18, a.b, 16);
    /* faces 2 and 3 wear b: bits 0x0C */
    assert_int_equal(te[34], 0x0C);
    assert_memory_equal(te + 35, b.b, 16);
    assert_memory_equal(te + 51, plain + 16, AM_OAR_TEXTURE_ENTRY_SIZE - 16);
    /* no exception: the plain entry */
    assert_int_equal(am_oar_texture_entry_faces(&d, NULL, faces, 1, te), AM_OAR_TEXTURE_ENTRY_SIZE);
    assert_memory_equal(te, plain, AM_OAR_TEXTURE_ENTRY_SIZE);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_texture_entry_face_exceptions),
        cmocka_unit_test(test_merge_and_play_on_the_retargeted_avatar),
    };
    return cmocka_run_group_tests(tests, setup, NULL);
}
