/* The OBJ reader (src/readers/obj/obj_read.c) through am_scene_load: the creature read back
 * against an independent line parse, polygons fan-triangulated, the three corner forms
 * and negative indices, o/g meshes, usemtl faces, mtllib colours and images taken only
 * from inside the model's folder, and refusals naming the line. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "readers/obj/obj_read.h"
#include "readers/scene_load.h"
#include "support/test_support.h"

static am_status load_text(const char *dir, const char *name, const char *text, am_scene *sc, am_error *err)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    am_test_write_text(path, text);
    am_status s = am_scene_load(path, sc, err);
    unlink(path);
    return s;
}

static bool has_note(const am_scene *sc, const char *part)
{
    for (size_t i = 0; i < sc->note_count; i++)
        if (strstr(am_str(&sc->notes[i]), part))
            return true;
    return false;
}

/* The creature: every `v` in file order (a positions-only file keeps the order), every
 * `f` as given. Checked against sscanf over the file's lines. */
static void test_creature_reads_in_file_order(void **state)
{
    (void)state;
    char path[4096];
    am_test_shared_path(path, sizeof path, "data/creature/creature_10k.obj");
    am_scene sc;
    am_error err;
    assert_int_equal(am_scene_load(path, &sc, &err), AM_OK);
    assert_int_equal(sc.format, AM_SCENE_FORMAT_OBJ);
    assert_int_equal(sc.mesh_count, 1);
    assert_string_equal(sc.meshes[0].name, "creature");
    const am_scene_mesh *m = &sc.meshes[0];
    assert_int_equal(m->vertex_count, 10072);
    assert_int_equal(m->face_count, 1);
    assert_int_equal(m->faces[0].index_count, 3 * 20140);
    assert_null(m->normals);
    assert_null(m->uvs);
    FILE *f = fopen(path, "r");
    char line[256];
    size_t v = 0, t = 0;
    while (fgets(line, sizeof line, f)) {
        float x, y, z;
        unsigned a, b, c;
        if (sscanf(line, "v %f %f %f", &x, &y, &z) == 3) {
            assert_true(m->positions[3 * v] == x && m->positions[3 * v + 1] == y && m->positions[3 * v + 2] == z);
            assert_int_equal(m->source_position[v], v);
            v++;
        } else if (sscanf(line, "f %u %u %u", &a, &b, &c) == 3) {
            assert_int_equal(m->faces[0].indices[3 * t], a - 1);
            assert_int_equal(m->faces[0].indices[3 * t + 1], b - 1);
            assert_int_equal(m->faces[0].indices[3 * t + 2], c - 1);
            t++;
        }
    }
    fclose(f);
    assert_int_equal(v, 10072);
    assert_int_equal(t, 20140);
    am_scene_free(&sc);
}

static void test_polygons_corners_and_negative_indices(void **state)
{
    (void)state;
    char dir[256];
    am_test_tmpdir(dir, sizeof dir);
    am_scene sc;
    am_error err;
    /* a quad (v//vn), a pentagon with v/vt/vn and negative indices, a triangle v/vt */
    const char *obj = "# test\n"
                      "v 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\nv 0.5 1.5 0\n"
                      "vt 0 0\nvt 1 0\nvt 1 1\nvt 0 1\nvt 0.5 1\n"
                      "vn 0 0 1\n"
                      "f 1//1 2//1 3//1 4//1\r\n"
                      "f -5/-5/-1 -4/-4/-1 -3/-3/-1 -1/-1/-1 -2/-2/-1\n"
                      "f 1/1 2/2 3/3\n";
    assert_int_equal(load_text(dir, "poly.obj", obj, &sc, &err), AM_OK);
    const am_scene_mesh *m = &sc.meshes[0];
    assert_int_equal(m->face_count, 1);
    /* 2 + 3 + 1 triangles, fanned from each polygon's first corner */
    assert_int_equal(m->faces[0].index_count, 18);
    /* corners are distinct (v, vt, vn): v1 appears as 1//1, 1/1/1 and 1/1 */
    assert_non_null(m->normals);
    assert_non_null(m->uvs);
    const uint32_t *ix = m->faces[0].indices;
    /* the quad's fan: (1,2,3) and (1,3,4) by position */
    assert_int_equal(m->source_position[ix[0]], 0);
    assert_int_equal(m->source_position[ix[1]], 1);
    assert_int_equal(m->source_position[ix[2]], 2);
    assert_int_equal(m->source_position[ix[3]], 0);
    assert_int_equal(m->source_position[ix[4]], 2);
    assert_int_equal(m->source_position[ix[5]], 3);
    /* the pentagon: -5..-1 are v1..v5, in the order 1 2 3 5 4, fanned from 1 */
    static const uint32_t pent[9] = {0, 1, 2, 0, 2, 4, 0, 4, 3};
    for (int k = 0; k < 9; k++)
        assert_int_equal(m->source_position[ix[6 + k]], pent[k]);
    /* its corner 5 carries vt 5 (0.5, 1) and the normal */
    assert_near(m->uvs[2 * ix[6 + 5]], 0.5, 0);
    assert_near(m->uvs[2 * ix[6 + 5] + 1], 1.0, 0);
    assert_near(m->normals[3 * ix[6 + 5] + 2], 1.0, 0);
    am_scene_free(&sc);
    am_test_rmtree(dir);
}

static void test_objects_groups_and_materials(void **state)
{
    (void)state;
    char dir[256], path[512];
    am_test_tmpdir(dir, sizeof dir);
    snprintf(path, sizeof path, "%s/skin.png", dir);
    am_test_write_text(path, "not really a png, only its path is taken");
    snprintf(path, sizeof path, "%s/mats.mtl", dir);
    am_test_write_text(path, "newmtl red\nKd 1 0 0\nd 0.5\n"
                             "newmtl skin\nKd 0.8 0.6 0.4\nmap_Kd -s 1 1 1 skin.png\n"
                             "newmtl outside\nmap_Kd ../elsewhere.png\n"
                             "newmtl absolute\nmap_Kd /etc/passwd\n");
    const char *obj = "mtllib mats.mtl\n"
                      "v 0 0 0\nv 1 0 0\nv 0 1 0\nv 1 1 0\n"
                      "o ear_left\nusemtl red\nf 1 2 3\nusemtl skin\nf 2 4 3\nusemtl red\nf 1 3 4\n"
                      "g ear_right\nusemtl outside\nf 1 2 4\nusemtl nosuch\nf 2 3 4\n";
    am_scene sc;
    am_error err;
    assert_int_equal(load_text(dir, "ears.obj", obj, &sc, &err), AM_OK);
    assert_int_equal(sc.mesh_count, 2);
    assert_string_equal(sc.meshes[0].name, "ear_left");
    assert_string_equal(sc.meshes[1].name, "ear_right");
    /* faces per material in order of first use, triangles of one material together */
    assert_int_equal(sc.meshes[0].face_count, 2);
    assert_int_equal(sc.meshes[0].faces[0].index_count, 6);
    assert_int_equal(sc.meshes[0].faces[1].index_count, 3);
    assert_int_equal(sc.material_count, 4);
    const am_scene_material *red = &sc.materials[sc.meshes[0].faces[0].material];
    assert_string_equal(red->name, "red");
    assert_near(red->base_color[0], 1, 0);
    assert_near(red->base_color[1], 0, 0);
    assert_near(red->base_color[3], 0.5, 1e-7);
    const am_scene_material *skin = &sc.materials[sc.meshes[0].faces[1].material];
    assert_non_null(skin->image_path);
    assert_non_null(strstr(skin->image_path, "skin.png"));
    assert_string_equal(am_str(&skin->image_mime), "image/png");
    /* paths leaving the folder are never followed */
    assert_null(sc.materials[2].image_path);
    assert_null(sc.materials[3].image_path);
    assert_true(has_note(&sc, "'../elsewhere.png' not used"));
    assert_true(has_note(&sc, "'/etc/passwd' not used: an absolute path"));
    /* an unknown usemtl: a face without material, noted */
    assert_int_equal(sc.meshes[1].faces[1].material, -1);
    assert_true(has_note(&sc, "usemtl 'nosuch'"));
    am_scene_free(&sc);
    unlink(path);
    snprintf(path, sizeof path, "%s/skin.png", dir);
    unlink(path);
    am_test_rmtree(dir);
}

static void test_symlink_out_of_the_folder_not_followed(void **state)
{
    (void)state;
    char dir[256], path[512];
    am_test_tmpdir(dir, sizeof dir);
    snprintf(path, sizeof path, "%s/link.mtl", dir);
    assert_int_equal(symlink("/etc/hostname", path), 0);
    am_scene sc;
    am_error err;
    assert_int_equal(load_text(dir, "l.obj", "mtllib link.mtl\nv 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n", &sc, &err), AM_OK);
    assert_true(has_note(&sc, "a link leading out of the model's folder"));
    assert_int_equal(sc.material_count, 0);
    am_scene_free(&sc);
    unlink(path);
    am_test_rmtree(dir);
}

static void test_bad_indices_and_faces_named_by_line(void **state)
{
    (void)state;
    char dir[256];
    am_test_tmpdir(dir, sizeof dir);
    am_scene sc;
    am_error err;
    static const struct {
        const char *text, *msg, *where;
    } cases[] = {
        {"v 0 0 0\nv 1 0 0\nf 1 2 3\n", "position index 3 out of range (2 positions so far)", "line 3"},
        {"v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 -4\n", "position index -4 out of range", "line 4"},
        {"v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1/2 2 3\n", "texture index 2 out of range (0 so far)", "line 4"},
        {"v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1//9 2 3\n", "normal index 9 out of range", "line 4"},
        {"v 0 0 0\nv 1 0 0\nf 1 2\n", "face with 2 corners", "line 3"},
        {"v 0 0\n", "v needs more numbers", "line 1"},
        {"v 0 zero 0\n", "not a number", "line 1"},
        {"v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3x\n", "unexpected character", "line 4"},
        {"v 0 0 0\nv 1 0 0\nv 0 1 0\nf 0 1 2\n", "position index 0 out of range", "line 4"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        assert_int_equal(load_text(dir, "bad.obj", cases[i].text, &sc, &err), AM_ERR_INVALID);
        if (!strstr(err.msg, cases[i].msg) || !strstr(err.where, cases[i].where))
            fail_msg("case %zu: got '%s' at '%s'", i, err.msg, err.where);
    }
    am_test_rmtree(dir);
}

/* The size limit is checked before anything is read: a sparse file just over it. */
static void test_size_limit_before_reading(void **state)
{
    (void)state;
    char dir[256], path[512];
    am_test_tmpdir(dir, sizeof dir);
    snprintf(path, sizeof path, "%s/huge.obj", dir);
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    fputs("v 0 0 0\n", f);
    fclose(f);
    assert_int_equal(truncate(path, (off_t)AM_OBJ_MAX_BYTES + 1), 0);
    am_scene sc;
    am_error err;
    assert_int_equal(am_scene_load(path, &sc, &err), AM_ERR_INVALID);
    assert_non_null(strstr(err.msg, "over the 512 MB limit"));
    unlink(path);
    am_test_rmtree(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_creature_reads_in_file_order),
        cmocka_unit_test(test_polygons_corners_and_negative_indices),
        cmocka_unit_test(test_objects_groups_and_materials),
        cmocka_unit_test(test_symlink_out_of_the_folder_not_followed),
        cmocka_unit_test(test_bad_indices_and_faces_named_by_line),
        cmocka_unit_test(test_size_limit_before_reading),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
