/* The COLLADA reader (src/readers/collada/collada.h) against the uploader's rules as
 * docs/reference/collada-upload.md and lldaeloader.cpp state them, on small documents written here:
 * polylists from the vcount list, welding, the triangle rule, face order and the 65,532
 * cut, the preprocess, the joint-position rules with and without <skeleton>, weights, and
 * every bad input the issue lists, each refused naming the file and the element. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/io.h"
#include "readers/collada/collada.h"
#include "scene/scene.h"
#include "support/test_support.h"

static am_skeleton *g_skel;

#define HEAD                                                                                                          \
    "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<COLLADA xmlns=\"http://www.collada.org/2005/11/COLLADASchema\" "   \
    "version=\"1.4.1\">\n"
#define ASSET "<asset><unit name=\"meter\" meter=\"1\"/><up_axis>Z_UP</up_axis></asset>\n"

/* A document: the asset, one geometry "g" with these positions (and optional normals /
 * UVs sources), its primitives, an optional controller and visual scene. */
static char *doc(const char *asset, const char *positions, const char *extra_sources, const char *prims,
                 const char *controllers, const char *scene)
{
    am_buf b = {0};
    size_t np = 0;
    for (const char *p = positions; *p;) {
        while (*p == ' ')
            p++;
        if (!*p)
            break;
        np++;
        while (*p && *p != ' ')
            p++;
    }
    assert_int_equal(
        am_buf_printf(&b, NULL,
                      HEAD "%s<library_geometries><geometry id=\"g\" name=\"geo\"><mesh>\n"
                           "<source id=\"g-pos\"><float_array id=\"g-pos-a\" count=\"%zu\">%s</float_array>"
                           "<technique_common><accessor source=\"#g-pos-a\" count=\"%zu\" stride=\"3\"/>"
                           "</technique_common></source>\n%s"
                           "<vertices id=\"g-v\"><input semantic=\"POSITION\" source=\"#g-pos\"/></vertices>\n%s"
                           "</mesh></geometry></library_geometries>\n%s%s</COLLADA>\n",
                      asset, np, positions, np / 3, extra_sources, prims, controllers, scene),
        AM_OK);
    char *s = malloc(b.size + 1);
    memcpy(s, b.data, b.size);
    s[b.size] = '\0';
    am_buf_free(&b);
    return s;
}

static am_status read_doc(const char *xml, const char *base_dir, am_scene *s, am_error *err)
{
    memset(s, 0, sizeof *s);
    s->source = am_strdup("t.dae");
    s->base_dir = am_strdup(base_dir ? base_dir : ".");
    s->format = AM_SCENE_FORMAT_COLLADA;
    s->skeleton = g_skel;
    am_error_clear(err);
    am_status st = am_collada_read((const uint8_t *)xml, strlen(xml), s->source, s->base_dir, s, err);
    s->skeleton = NULL;
    if (!st)
        st = am_scene_finish(s, err);
    return st;
}

static void must_read(const char *xml, am_scene *s)
{
    am_error err;
    char buf[512];
    if (read_doc(xml, NULL, s, &err))
        fail_msg("%s", am_error_format(&err, buf, sizeof buf));
}

static bool has_note(const am_scene *s, const char *needle)
{
    for (size_t i = 0; i < s->note_count; i++)
        if (strstr(am_str(&s->notes[i]), needle))
            return true;
    return false;
}

/* The error names the file and contains each fragment. */
static void must_fail(const char *xml, const char *base_dir, const char *frag1, const char *frag2)
{
    am_scene s;
    am_error err;
    char buf[600];
    assert_int_equal(read_doc(xml, base_dir, &s, &err), AM_ERR_INVALID);
    am_error_format(&err, buf, sizeof buf);
    if (!strstr(buf, "t.dae") || !strstr(buf, frag1) || (frag2 && !strstr(buf, frag2)))
        fail_msg("error \"%s\" lacks the file or '%s' / '%s'", buf, frag1, frag2 ? frag2 : "");
    am_scene_free(&s);
}

#define QUAD_POS "0 0 0  1 0 0  1 1 0  0 1 0  2 0 0"

/* <polylist count> is not read: Avastar writes the triangle count there. */
static void test_polylist_is_read_from_the_vcount_list(void **state)
{
    (void)state;
    char *x = doc(ASSET, QUAD_POS, "",
                  "<polylist material=\"m\" count=\"3\"><input semantic=\"VERTEX\" source=\"#g-v\" offset=\"0\"/>"
                  "<vcount>4 3</vcount><p>0 1 2 3  1 4 2</p></polylist>",
                  "", "");
    am_scene s;
    must_read(x, &s);
    assert_int_equal(s.mesh_count, 1);
    const am_scene_mesh *m = &s.meshes[0];
    assert_int_equal(m->face_count, 1);
    /* fan from the first vertex: (0 1 2) (0 2 3), then (1 4 2) */
    static const uint32_t want[9] = {0, 1, 2, 0, 2, 3, 1, 4, 2};
    assert_int_equal(m->faces[0].index_count, 9);
    for (int i = 0; i < 9; i++)
        assert_int_equal(m->source_position[m->faces[0].indices[i]], want[i]);
    assert_int_equal(m->vertex_count, 5);
    assert_true(has_note(&s, "count=\"3\" is not its 2 <vcount> polygons"));
    am_scene_free(&s);
    free(x);
}

#define NRM_SRC(values)                                                                                               \
    "<source id=\"g-n\"><float_array id=\"g-n-a\" count=\"6\">" values "</float_array></source>\n"                  \
    "<source id=\"g-uv\"><float_array id=\"g-uv-a\" count=\"4\">0 0 1 1</float_array></source>\n"
#define TRI_INPUTS                                                                                                    \
    "<input semantic=\"VERTEX\" source=\"#g-v\" offset=\"0\"/><input semantic=\"NORMAL\" source=\"#g-n\" "        \
    "offset=\"1\"/><input semantic=\"TEXCOORD\" source=\"#g-uv\" offset=\"2\" set=\"0\"/>"

/* Two triangles sharing an edge (positions 1, 2); their corners on the edge use normal 0 in
 * the first and normal 1 in the second, and UV 0 or 1 as given. */
static size_t welded_vertices(const char *normals, int uv_second)
{
    char prims[512];
    snprintf(prims, sizeof prims,
             "<triangles material=\"m\" count=\"2\">" TRI_INPUTS "<p>0 0 0  1 0 0  2 0 0   1 1 %d  3 1 %d  2 1 %d</p>"
             "</triangles>",
             uv_second, uv_second, uv_second);
    char src[400];
    snprintf(src, sizeof src,
             "<source id=\"g-n\"><float_array id=\"g-n-a\" count=\"6\">%s</float_array></source>\n"
             "<source id=\"g-uv\"><float_array id=\"g-uv-a\" count=\"4\">0 0 1 1</float_array></source>\n",
             normals);
    char *x = doc(ASSET, QUAD_POS, src, prims, "", "");
    am_scene s;
    must_read(x, &s);
    size_t n = s.meshes[0].vertex_count;
    am_scene_free(&s);
    free(x);
    return n;
}

/* VertexData::operator==: same position, normal within 1e-5 per component, same UV. */
static void test_welding_follows_the_uploaders_vertex_equality(void **state)
{
    (void)state;
    assert_int_equal(welded_vertices("0 0 1  0 0 1", 0), 4);          /* identical: the edge is shared */
    assert_int_equal(welded_vertices("0 0 1  0 0.000005 1", 0), 4);   /* within 1e-5: still shared */
    assert_int_equal(welded_vertices("0 0 1  0 0.00002 1", 0), 6);    /* beyond: split */
    assert_int_equal(welded_vertices("0 0 1  0 0 1", 1), 6);          /* another UV: split */
}

/* <triangles> never reuses a vertex already in the triangle being built (it adds a twin);
 * the remap then merges the exact twin: a degenerate triangle of two vertices. */
static void test_triangles_twin_then_remap_merges_it(void **state)
{
    (void)state;
    char *x = doc(ASSET, QUAD_POS, "",
                  "<triangles material=\"m\" count=\"1\"><input semantic=\"VERTEX\" source=\"#g-v\" offset=\"0\"/>"
                  "<p>0 0 1</p></triangles>",
                  "", "");
    am_scene s;
    must_read(x, &s);
    const am_scene_mesh *m = &s.meshes[0];
    assert_int_equal(m->vertex_count, 2);
    assert_int_equal(m->faces[0].index_count, 3);
    assert_int_equal(m->faces[0].indices[0], m->faces[0].indices[1]);
    assert_true(m->faces[0].indices[2] != m->faces[0].indices[0]);
    am_scene_free(&s);
    free(x);
}

static const char *face_material(const am_scene *s, size_t f)
{
    int k = s->meshes[0].faces[f].material;
    return k >= 0 ? s->materials[k].name : "";
}

/* Faces: <triangles> first, then <polylist>, then sorted by material case-insensitively
 * (upper-cased: '_' sorts after letters), file order kept among equal names. */
static void test_faces_are_sorted_by_material_case_insensitively(void **state)
{
    (void)state;
    char *x = doc(ASSET, QUAD_POS, "",
                  "<triangles material=\"c\" count=\"1\"><input semantic=\"VERTEX\" source=\"#g-v\" offset=\"0\"/>"
                  "<p>0 1 2</p></triangles>"
                  "<triangles material=\"a_b\" count=\"1\"><input semantic=\"VERTEX\" source=\"#g-v\" offset=\"0\"/>"
                  "<p>0 1 3</p></triangles>"
                  "<triangles material=\"aB\" count=\"1\"><input semantic=\"VERTEX\" source=\"#g-v\" offset=\"0\"/>"
                  "<p>0 1 4</p></triangles>"
                  "<polylist material=\"B\" count=\"1\"><input semantic=\"VERTEX\" source=\"#g-v\" offset=\"0\"/>"
                  "<vcount>3</vcount><p>1 2 3</p></polylist>",
                  "", "");
    am_scene s;
    must_read(x, &s);
    assert_int_equal(s.meshes[0].face_count, 4);
    assert_string_equal(face_material(&s, 0), "aB");
    assert_string_equal(face_material(&s, 1), "a_b");
    assert_string_equal(face_material(&s, 2), "B");
    assert_string_equal(face_material(&s, 3), "c");
    am_scene_free(&s);
    free(x);
}

/* A face is cut when it holds 65,532 vertices at a triangle's end. */
static void test_a_face_is_cut_at_65532_vertices(void **state)
{
    (void)state;
    const size_t tris = 22000; /* 66,000 distinct corners */
    am_buf pos = {0}, p = {0};
    for (size_t i = 0; i < 3 * tris; i++) {
        assert_int_equal(am_buf_printf(&pos, NULL, "%zu 0 %zu ", i % 1000, i / 1000), AM_OK);
        assert_int_equal(am_buf_printf(&p, NULL, "%zu ", i), AM_OK);
    }
    assert_int_equal(am_buf_append(&pos, "", 1, NULL), AM_OK);
    assert_int_equal(am_buf_append(&p, "", 1, NULL), AM_OK);
    am_buf prim = {0};
    assert_int_equal(am_buf_printf(&prim, NULL,
                                   "<triangles material=\"m\" count=\"%zu\"><input semantic=\"VERTEX\" source=\"#g-v\" "
                                   "offset=\"0\"/><p>%s</p></triangles>",
                                   tris, (const char *)p.data),
                     AM_OK);
    assert_int_equal(am_buf_append(&prim, "", 1, NULL), AM_OK);
    char *x = doc(ASSET, (const char *)pos.data, "", (const char *)prim.data, "", "");
    am_scene s;
    must_read(x, &s);
    const am_scene_mesh *m = &s.meshes[0];
    assert_int_equal(m->face_count, 2);
    assert_int_equal(m->faces[0].index_count, 65532); /* 21,844 triangles of fresh vertices */
    assert_int_equal(m->faces[1].index_count, 3 * tris - 65532);
    assert_int_equal(m->faces[0].material, m->faces[1].material);
    assert_true(has_note(&s, "reached 65532 vertices"));
    am_scene_free(&s);
    free(x);
    am_buf_free(&pos);
    am_buf_free(&p);
    am_buf_free(&prim);
}

/* preprocessDAE: spaces inside double-quoted names of [\w.@#$-] become '_'. */
static void test_preprocess_replaces_spaces_in_quoted_names(void **state)
{
    (void)state;
    char t[] = "<node name=\"Left Pec\" sid=\"a b.c\" id='x y' url=\"#my mesh\"/><p>\"no/match here\"</p>"
               "<x a=\"tab\tonly\"/>";
    size_t hits = am_collada_preprocess(t, strlen(t));
    assert_int_equal(hits, 4);
    assert_non_null(strstr(t, "name=\"Left_Pec\""));
    assert_non_null(strstr(t, "sid=\"a_b.c\""));
    assert_non_null(strstr(t, "id='x y'"));        /* single quotes: not matched */
    assert_non_null(strstr(t, "url=\"#my_mesh\"")); /* '#' is in the class: references stay consistent */
    assert_non_null(strstr(t, "\"no/match here\"")); /* '/' is not */
    assert_non_null(strstr(t, "a=\"tab\tonly\""));   /* matched, but only spaces change */
}

/* The joint table with <skeleton>: breadth-first sid search from the root for every legal
 * key (aliases canonicalised), translation: sid translate (anywhere below: the trap), then
 * sid transform matrix; a skin joint without a node gets (0, 0, 0). */
static const char *SKEL_SCENE =
    "<library_visual_scenes><visual_scene id=\"s\">"
    "<node id=\"arm\" name=\"Armature\">"
    " <node id=\"pelvis\" name=\"mPelvis\" sid=\"mPelvis\" type=\"JOINT\">"
    "  <matrix sid=\"transform\">1 0 0 0  0 1 0 0  0 0 1 1.0  0 0 0 1</matrix>"
    "  <node id=\"torso\" name=\"torso\" sid=\"mTorso\" type=\"JOINT\"><translate sid=\"translate\">0 0 0.2</translate>"
    "   <node id=\"chest\" name=\"mChest\" sid=\"mChest\"><matrix sid=\"transform\">1 0 0 0.01  0 1 0 0  0 0 1 0.3  0 0 0 "
    "1</matrix></node>"
    "  </node>"
    " </node>"
    "</node>"
    "<node id=\"body\" name=\"body\"><instance_controller url=\"#c\"><skeleton>#pelvis</skeleton></instance_controller>"
    "</node></visual_scene></library_visual_scenes>";

static char *skin_controller(const char *names, size_t n, const char *array)
{
    am_buf b = {0};
    assert_int_equal(am_buf_printf(&b, NULL,
                                   "<library_controllers><controller id=\"c\"><skin source=\"#g\">"
                                   "<bind_shape_matrix>1 0 0 0 0 1 0 0 0 0 1 0 0 0 0 1</bind_shape_matrix>"
                                   "<source id=\"c-j\"><%s id=\"c-j-a\" count=\"%zu\">%s</%s></source>"
                                   "<source id=\"c-ib\"><float_array id=\"c-ib-a\" count=\"%zu\">",
                                   array, n, names, array, 16 * n),
                     AM_OK);
    for (size_t j = 0; j < n; j++)
        assert_int_equal(am_buf_printf(&b, NULL, "1 0 0 0 0 1 0 0 0 0 1 %g 0 0 0 1 ", -0.1 * (double)j), AM_OK);
    assert_int_equal(am_buf_printf(&b, NULL,
                                   "</float_array></source>"
                                   "<source id=\"c-w\"><float_array id=\"c-w-a\" count=\"2\">1 0.5</float_array></source>"
                                   "<joints><input semantic=\"JOINT\" source=\"#c-j\"/><input semantic=\"INV_BIND_MATRIX\" "
                                   "source=\"#c-ib\"/></joints>"
                                   "<vertex_weights count=\"5\"><input semantic=\"JOINT\" source=\"#c-j\" offset=\"0\"/>"
                                   "<input semantic=\"WEIGHT\" source=\"#c-w\" offset=\"1\"/>"
                                   "<vcount>1 1 2 1 0</vcount><v>0 0  %d 0  0 1 -1 0  0 0</v></vertex_weights>"
                                   "</skin></controller></library_controllers>",
                                   n > 1 ? 1 : 0),
                     AM_OK);
    assert_int_equal(am_buf_append(&b, "", 1, NULL), AM_OK);
    return (char *)b.data;
}

#define ONE_TRI                                                                                                       \
    "<triangles material=\"m\" count=\"1\"><input semantic=\"VERTEX\" source=\"#g-v\" offset=\"0\"/><p>0 1 2</p>"    \
    "</triangles>"

static void test_joint_positions_with_skeleton(void **state)
{
    (void)state;
    char *ctrl = skin_controller("avatar_mPelvis mTorso mChest mNeck", 4, "Name_array");
    char *x = doc(ASSET, QUAD_POS, "", ONE_TRI, ctrl, SKEL_SCENE);
    am_scene s;
    must_read(x, &s);
    const am_scene_skin *k = &s.skins[0];
    assert_int_equal(k->joint_count, 4);
    /* mPelvis: the breadth-first search for sid "translate" reaches mTorso's <translate>
     * before looking at mPelvis's own matrix (docs/reference/collada-upload.md#which-translation, the trap) */
    assert_near(am_v3_dist(k->upload_positions[0], am_v3(0, 0, 0.2)), 0, 1e-7);
    assert_true(k->upload_position_found[0]);
    assert_near(am_v3_dist(k->upload_positions[1], am_v3(0, 0, 0.2)), 0, 1e-7);
    /* mChest: no translate below it: its sid transform matrix's translation column */
    assert_near(am_v3_dist(k->upload_positions[2], am_v3(0.01, 0, 0.3)), 0, 1e-7);
    /* mNeck: no node: (0, 0, 0), not found */
    assert_near(am_v3_len(k->upload_positions[3]), 0, 0);
    assert_false(k->upload_position_found[3]);
    assert_int_equal(k->joint_nodes[3], -1);
    assert_string_equal(s.nodes[k->joint_nodes[1]].name, "torso");
    assert_true(has_note(&s, "<skeleton> path"));
    /* weights: joint -1 skipped; 5 positions, 3 used by the triangle: 2 kept unreferenced */
    const am_scene_mesh *m = &s.meshes[0];
    assert_int_equal(m->vertex_count, 5);
    for (size_t v = 0; v < m->vertex_count; v++) {
        uint32_t p = m->source_position[v];
        size_t n = m->influence_start[v + 1] - m->influence_start[v];
        assert_int_equal(n, p == 4 ? 0 : 1);
        if (p == 2) {
            assert_int_equal(m->influences[m->influence_start[v]].joint, 0);
            assert_near(m->influences[m->influence_start[v]].weight, 0.5, 0);
        }
    }
    am_scene_free(&s);
    free(x);
    free(ctrl);
}

/* Without <skeleton>: nodes found by their NAME, stored as written (an alias is not
 * canonicalised, so a node "avatar_mTorso" does not give mTorso its position), the
 * translation from sid "matrix"; a nameless node's subtree is skipped. */
static void test_joint_positions_without_skeleton(void **state)
{
    (void)state;
    static const char scene[] =
        "<library_visual_scenes><visual_scene id=\"s\">"
        "<node id=\"p\" name=\"mPelvis\"><matrix sid=\"matrix\">1 0 0 0.5  0 1 0 0  0 0 1 1.1  0 0 0 1</matrix>"
        " <node id=\"t\" name=\"avatar_mTorso\"><translate>0 0 0.3</translate></node>"
        " <node id=\"anon\"><node id=\"c\" name=\"mChest\"><translate>0 0 0.4</translate></node></node>"
        "</node>"
        "<node id=\"body\" name=\"body\"><instance_controller url=\"#c\"/></node></visual_scene></library_visual_scenes>";
    char *ctrl = skin_controller("mPelvis mTorso mChest", 3, "Name_array");
    char *x = doc(ASSET, QUAD_POS, "", ONE_TRI, ctrl, scene);
    am_scene s;
    must_read(x, &s);
    const am_scene_skin *k = &s.skins[0];
    assert_near(am_v3_dist(k->upload_positions[0], am_v3(0.5, 0, 1.1)), 0, 1e-7);
    assert_true(k->upload_position_found[0]);
    assert_near(am_v3_len(k->upload_positions[1]), 0, 0); /* stored under "avatar_mTorso" */
    assert_false(k->upload_position_found[1]);
    assert_near(am_v3_len(k->upload_positions[2]), 0, 0); /* under a nameless node */
    assert_false(k->upload_position_found[2]);
    assert_true(has_note(&s, "no <skeleton>"));
    am_scene_free(&s);
    free(x);
    free(ctrl);
}

/* IDREF_array: the referenced ids are the names. */
static void test_idref_array_names_are_the_ids(void **state)
{
    (void)state;
    char *ctrl = skin_controller("pelvis torso", 2, "IDREF_array");
    char *x = doc(ASSET, QUAD_POS, "", ONE_TRI, ctrl, SKEL_SCENE);
    am_scene s;
    must_read(x, &s);
    assert_string_equal(s.skins[0].joint_names[0], "pelvis");
    assert_string_equal(s.skins[0].joint_names[1], "torso");
    /* LL layout: the COLLADA translation column lands in elements 12..14 */
    assert_near(s.skins[0].inverse_binds[1].m[14], -0.1, 1e-12);
    am_scene_free(&s);
    free(x);
    free(ctrl);
}

static void test_declared_unit_and_up_axis(void **state)
{
    (void)state;
    char *x = doc("<asset><unit meter=\"0.01\"/><up_axis>Y_UP</up_axis></asset>", QUAD_POS, "", ONE_TRI, "", "");
    am_scene s;
    must_read(x, &s);
    assert_near(s.declared.unit_m, 0.01, 0);
    assert_int_equal(s.declared.up, 2);
    am_scene_free(&s);
    free(x);
    x = doc("<asset/>", QUAD_POS, "", ONE_TRI, "", "");
    must_read(x, &s);
    assert_int_equal(s.declared.up, 0);
    assert_true(has_note(&s, "assumes Y_UP"));
    am_scene_free(&s);
    free(x);
}

/* A node's rotate: 90 degrees about Z carries +X onto +Y. */
static void test_node_transforms_compose_in_document_order(void **state)
{
    (void)state;
    static const char scene[] = "<library_visual_scenes><visual_scene id=\"s\"><node id=\"n\" name=\"n\">"
                                "<translate>1 0 0</translate><rotate>0 0 1 90</rotate><scale>2 2 2</scale>"
                                "</node></visual_scene></library_visual_scenes>";
    char *x = doc(ASSET, QUAD_POS, "", ONE_TRI, "", scene);
    am_scene s;
    must_read(x, &s);
    /* column form T R S: (1, 0, 0) -> scale (2, 0, 0) -> rotate (0, 2, 0) -> translate (1, 2, 0) */
    am_vec3 p = am_mat4_transform_point(&s.nodes[0].world, am_v3(1, 0, 0));
    assert_near(am_v3_dist(p, am_v3(1, 2, 0)), 0, 1e-12);
    am_scene_free(&s);
    free(x);
}

/* s with the first `from` replaced by `to` (malloc'd; s freed). */
static char *replace(char *s, const char *from, const char *to)
{
    char *at = strstr(s, from);
    assert_non_null(at);
    size_t n = strlen(s) - strlen(from) + strlen(to);
    char *r = malloc(n + 1);
    size_t head = (size_t)(at - s);
    memcpy(r, s, head);
    strcpy(r + head, to);
    strcat(r, at + strlen(from));
    free(s);
    return r;
}

static void fail_with_controller(char *ctrl, const char *frag1, const char *frag2)
{
    char *x = doc(ASSET, QUAD_POS, "", ONE_TRI, ctrl, SKEL_SCENE);
    must_fail(x, NULL, frag1, frag2);
    free(x);
    free(ctrl);
}

static void test_bad_input_is_refused_naming_the_element(void **state)
{
    (void)state;
    must_fail("this is not xml at all", NULL, "not XML", NULL);
    must_fail("<?xml version=\"1.0\"?><scene/>", NULL, "<scene>", "not <COLLADA>");
    must_fail("<?xml version=\"1.0\"?><!DOCTYPE x [<!ENTITY a \"b\">]><COLLADA/>", NULL, "DOCTYPE", NULL);
    char *x;
    /* a vcount list summing past the index list */
    x = doc(ASSET, QUAD_POS, "",
            "<polylist material=\"m\" count=\"2\"><input semantic=\"VERTEX\" source=\"#g-v\" offset=\"0\"/>"
            "<vcount>3 3</vcount><p>0 1 2 3</p></polylist>",
            "", "");
    must_fail(x, NULL, "<vcount>", "sums to 6 vertices, the index list <p> holds 4");
    free(x);
    /* a position index outside the positions */
    x = doc(ASSET, QUAD_POS, "",
            "<triangles material=\"m\" count=\"1\"><input semantic=\"VERTEX\" source=\"#g-v\" offset=\"0\"/>"
            "<p>0 1 9</p></triangles>",
            "", "");
    must_fail(x, NULL, "<triangles", "position index 9 out of range");
    free(x);
    /* a weight on a joint index outside the skin */
    fail_with_controller(replace(skin_controller("mPelvis", 1, "Name_array"), "<v>0 0  0 0", "<v>0 0  3 0"),
                         "<vertex_weights>", "joint index 3, outside the skin's 1 joints");
    /* NaN in the bind shape; a singular bind shape; NaN in an inverse bind */
    fail_with_controller(replace(skin_controller("mPelvis", 1, "Name_array"), "<bind_shape_matrix>1 0",
                                 "<bind_shape_matrix>nan 0"),
                         "<bind_shape_matrix>", "not a number");
    fail_with_controller(replace(skin_controller("mPelvis", 1, "Name_array"), "<bind_shape_matrix>1 0 0 0 0 1 0 0 0 0 1",
                                 "<bind_shape_matrix>0 0 0 0 0 0 0 0 0 0 0"),
                         "<bind_shape_matrix>", "singular");
    fail_with_controller(replace(skin_controller("mPelvis", 1, "Name_array"), "count=\"16\">1 0", "count=\"16\">NaN 0"),
                         "<float_array id='c-ib-a'>", "inverse bind matrix of joint 0 'mPelvis'");
    /* the controller verification: a vertex_weights count that is not the position count */
    fail_with_controller(replace(skin_controller("mPelvis", 1, "Name_array"), "<vertex_weights count=\"5\"",
                                 "<vertex_weights count=\"4\""),
                         "<vertex_weights>", "Could not verify controller");
    /* fewer inverse binds than joints */
    fail_with_controller(skin_controller("mPelvis mTorso mChest", 2, "Name_array"), "<float_array id='c-ib-a'>",
                         "2 inverse bind matrices for 3 joints");
}

/* An image path that leaves the model's folder is refused, never followed; a missing image
 * inside it is only noted. */
static void test_image_outside_the_models_folder_is_refused(void **state)
{
    (void)state;
    char dir[256], sub[300], outside[300], cmd[400];
    am_test_tmpdir(dir, sizeof dir);
    snprintf(sub, sizeof sub, "%s/model", dir);
    snprintf(outside, sizeof outside, "%s/secret.png", dir);
    snprintf(cmd, sizeof cmd, "mkdir -p '%s'", sub);
    assert_int_equal(system(cmd), 0);
    am_test_write_text(outside, "not really a png");
    static const char fmt[] =
        "<library_images><image id=\"img\"><init_from>%s</init_from></image></library_images>"
        "<library_effects><effect id=\"e\"><profile_COMMON>"
        "<newparam sid=\"surf\"><surface type=\"2D\"><init_from>img</init_from></surface></newparam>"
        "<newparam sid=\"samp\"><sampler2D><source>surf</source></sampler2D></newparam>"
        "<technique sid=\"common\"><phong><diffuse><texture texture=\"samp\" texcoord=\"UV\"/></diffuse></phong>"
        "</technique></profile_COMMON></effect></library_effects>"
        "<library_materials><material id=\"m\"><instance_effect url=\"#e\"/></material></library_materials>";
    const char *paths[3] = {"../secret.png", outside, "missing.png"};
    for (int i = 0; i < 3; i++) {
        char asset[1400];
        snprintf(asset, sizeof asset, ASSET "%s", "");
        char libs[1400];
        snprintf(libs, sizeof libs, fmt, paths[i]);
        char *x = doc(asset, QUAD_POS, "", ONE_TRI, libs, "");
        if (i < 2) {
            must_fail(x, sub, "<image id='img'>", i == 0 ? "leaves the model's folder: refused" : "absolute path: refused");
        } else {
            am_scene s;
            am_error err;
            assert_int_equal(read_doc(x, sub, &s, &err), AM_OK);
            assert_true(has_note(&s, "'missing.png' not found"));
            assert_null(s.materials[0].image_path);
            am_scene_free(&s);
        }
        free(x);
    }
    am_test_rmtree(dir);
}

int main(void)
{
    am_skeleton skel;
    am_test_load_viewer_skeleton(&skel);
    g_skel = &skel;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_polylist_is_read_from_the_vcount_list),
        cmocka_unit_test(test_welding_follows_the_uploaders_vertex_equality),
        cmocka_unit_test(test_triangles_twin_then_remap_merges_it),
        cmocka_unit_test(test_faces_are_sorted_by_material_case_insensitively),
        cmocka_unit_test(test_a_face_is_cut_at_65532_vertices),
        cmocka_unit_test(test_preprocess_replaces_spaces_in_quoted_names),
        cmocka_unit_test(test_joint_positions_with_skeleton),
        cmocka_unit_test(test_joint_positions_without_skeleton),
        cmocka_unit_test(test_idref_array_names_are_the_ids),
        cmocka_unit_test(test_declared_unit_and_up_axis),
        cmocka_unit_test(test_node_transforms_compose_in_document_order),
        cmocka_unit_test(test_bad_input_is_refused_naming_the_element),
        cmocka_unit_test(test_image_outside_the_models_folder_is_refused),
    };
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    am_skeleton_free(&skel);
    return rc;
}
