/* The weld every reader's meshes go through (src/scene/weld.h): corners merge only where
 * position, normal, UV and weights agree, never across faces; and the FBX of an avatar
 * welds to the vertices of its GLB (Ready Player Me, ../shared/data/realdata). */
#include <stdlib.h>
#include <string.h>

#include "support/test_support.h"
#include "readers/scene_load.h"
#include "scene/weld.h"

typedef struct corner {
    float p[3], n[3], uv[2];
    uint32_t joint;
    float weight;
} corner;

/* One mesh of `nc` corners, each its own vertex (as assimp gives FBX), in faces of
 * `per_face` corners each, every corner weighted to one joint. */
static void corner_mesh(am_scene *s, const corner *c, size_t nc, size_t per_face)
{
    memset(s, 0, sizeof *s);
    s->mesh_count = 1;
    s->meshes = calloc(1, sizeof *s->meshes);
    assert_non_null(s->meshes);
    am_scene_mesh *m = &s->meshes[0];
    m->node = -1;
    m->skin = 0;
    m->vertex_count = nc;
    m->positions = malloc(nc * 3 * sizeof(float));
    m->normals = malloc(nc * 3 * sizeof(float));
    m->uvs = malloc(nc * 2 * sizeof(float));
    m->influence_start = malloc((nc + 1) * sizeof(size_t));
    m->influences = malloc(nc * sizeof(am_scene_influence));
    m->face_count = nc / per_face;
    m->faces = calloc(m->face_count, sizeof *m->faces);
    assert_true(m->positions && m->normals && m->uvs && m->influence_start && m->influences && m->faces);
    for (size_t v = 0; v < nc; v++) {
        memcpy(&m->positions[3 * v], c[v].p, sizeof c[v].p);
        memcpy(&m->normals[3 * v], c[v].n, sizeof c[v].n);
        memcpy(&m->uvs[2 * v], c[v].uv, sizeof c[v].uv);
        m->influence_start[v] = v;
        m->influences[v] = (am_scene_influence){c[v].joint, c[v].weight};
    }
    m->influence_start[nc] = nc;
    for (size_t f = 0; f < m->face_count; f++) {
        m->faces[f].material = -1;
        m->faces[f].index_count = per_face;
        m->faces[f].indices = malloc(per_face * sizeof(uint32_t));
        assert_non_null(m->faces[f].indices);
        for (size_t k = 0; k < per_face; k++)
            m->faces[f].indices[k] = (uint32_t)(f * per_face + k);
    }
}

/* Four positions of a quad; three triangles of corners. */
#define A {0, 0, 0}
#define B {1, 0, 0}
#define C {1, 1, 0}
#define D {0, 1, 0}
#define UP {0, 0, 1}
static const corner kCorners[] = {
    /* triangle 0: A B C */
    {A, UP, {0, 0}, 0, 1}, {B, UP, {1, 0}, 0, 1}, {C, UP, {1, 1}, 0, 1},
    /* triangle 1: C B D, C's normal 4e-4 off (an FBX exporter's per-corner rounding), B equal */
    {C, {0, 4e-4f, 1}, {1, 1}, 0, 1}, {B, UP, {1, 0}, 0, 1}, {D, UP, {0, 1}, 0, 1},
    /* triangle 2: A B D again, each corner split by one attribute: A by its UV (a seam), B by
     * its normal (a hard edge, 3 degrees), D by its weights (a weight seam) */
    {A, UP, {0.5f, 0}, 0, 1}, {B, {0, 0.05f, 0.9987492f}, {1, 0}, 0, 1}, {D, UP, {0, 1}, 1, 1},
};

static void test_corners_merge_only_where_every_attribute_agrees(void **state)
{
    (void)state;
    am_scene s;
    corner_mesh(&s, kCorners, 9, 9);
    am_weld_stats st;
    am_error err;
    am_error_clear(&err);
    assert_int_equal(am_scene_weld(&s, &st, &err), AM_OK);
    const am_scene_mesh *m = &s.meshes[0];
    /* A B C D, then the split A (UV), B (normal) and D (weights): 7 of 9 corners */
    assert_int_equal(m->vertex_count, 7);
    assert_int_equal(st.vertices_before, 9);
    assert_int_equal(st.vertices_after, 7);
    assert_int_equal(st.meshes_welded, 1);
    const uint32_t *ix = m->faces[0].indices;
    assert_int_equal(ix[3], ix[2]); /* C within the tolerance */
    assert_int_equal(ix[4], ix[1]); /* B equal */
    for (int k = 6; k < 9; k++)     /* every corner of triangle 2 kept apart */
        for (int j = 0; j < 6; j++)
            assert_int_not_equal(ix[k], ix[j]);
    /* each vertex keeps its own values: the UV seam's UV, the hard edge's normal, the weight
     * seam's joint */
    assert_near(m->uvs[2 * ix[6]], 0.5, 0);
    assert_near(m->normals[3 * ix[7] + 1], 0.05f, 0);
    assert_int_equal(m->influences[m->influence_start[ix[8]]].joint, 1);
    assert_int_equal(m->influences[m->influence_start[ix[5]]].joint, 0);
    /* numbered in the file's order (each vertex's first corner): A B C D, then the splits */
    const uint32_t want[9] = {0, 1, 2, 2, 1, 3, 4, 5, 6};
    for (int k = 0; k < 9; k++)
        assert_int_equal(ix[k], want[k]);
    am_scene_free(&s);
}

static void test_faces_never_share_vertices(void **state)
{
    (void)state;
    /* the same triangle twice, in two faces: the uploader welds within a face */
    const corner two[6] = {kCorners[0], kCorners[1], kCorners[2], kCorners[0], kCorners[1], kCorners[2]};
    am_scene s;
    corner_mesh(&s, two, 6, 3);
    am_error err;
    am_error_clear(&err);
    assert_int_equal(am_scene_weld(&s, NULL, &err), AM_OK);
    assert_int_equal(s.meshes[0].vertex_count, 6);
    am_scene_free(&s);
    /* in one face they are one triangle's three vertices */
    corner_mesh(&s, two, 6, 6);
    assert_int_equal(am_scene_weld(&s, NULL, &err), AM_OK);
    assert_int_equal(s.meshes[0].vertex_count, 3);
    am_scene_free(&s);
}

/* The COLLADA route's weld (normal_tol 0: LLVolumeFace::remap, exact bytes) keeps the 4e-4
 * normal apart and numbers vertices in first-use order. */
static void test_exact_weld_keeps_near_normals_apart(void **state)
{
    (void)state;
    uint32_t idx[9] = {2, 1, 0, 3, 4, 5, 6, 7, 8};
    uint32_t map[9], first[9];
    am_weld_view v = {kCorners[0].p, sizeof(corner), kCorners[0].n, sizeof(corner), kCorners[0].uv, sizeof(corner),
                      NULL, NULL, 9, 0.0f};
    size_t unique = 0;
    am_error err;
    am_error_clear(&err);
    assert_int_equal(am_weld_face(&v, idx, 6, map, first, &unique, &err), AM_OK);
    /* corners 2 1 0 | 3 (C, normal off: kept) 4 (= B) 5 */
    assert_int_equal(unique, 5);
    const uint32_t want[6] = {0, 1, 2, 3, 1, 4};
    for (int k = 0; k < 6; k++)
        assert_int_equal(idx[k], want[k]);
    assert_int_equal(first[0], 2);
    assert_int_equal(first[3], 3);
    assert_int_equal(map[6], UINT32_MAX); /* unused */
    /* with the scene tolerance corner 3 is C */
    uint32_t idx2[6] = {2, 1, 0, 3, 4, 5};
    v.normal_tol = AM_WELD_NORMAL_TOL;
    assert_int_equal(am_weld_face(&v, idx2, 6, map, first, &unique, &err), AM_OK);
    assert_int_equal(unique, 4);
    assert_int_equal(idx2[3], idx2[0]);
}

static size_t mesh_named(const am_scene *s, const char *name)
{
    for (size_t i = 0; i < s->mesh_count; i++)
        if (strcmp(s->meshes[i].name, name) == 0)
            return i;
    fail_msg("no mesh '%s' in %s", name, s->source);
    return 0;
}

/* The figure: the Ready Player Me head is 12,282 corners through FBX, 2,162
 * vertices through GLB. Welded, every one of the nine parts has the GLB's vertex count. */
static void test_rpm_fbx_welds_to_the_glb_vertex_counts(void **state)
{
    (void)state;
    char fbx[1024], glb[1024];
    am_test_shared_path(fbx, sizeof fbx, "data/realdata/rpm_avatar.fbx");
    am_test_shared_path(glb, sizeof glb, "data/realdata/rpm_avatar.glb");
    am_scene a, b, raw;
    am_error err;
    am_error_clear(&err);
    const am_scene_load_options weld = {.weld = true};
    assert_int_equal(am_scene_load_ex(fbx, &weld, &a, &err), AM_OK);
    assert_int_equal(am_scene_load_ex(glb, &weld, &b, &err), AM_OK);
    assert_int_equal(am_scene_load(fbx, &raw, &err), AM_OK);
    assert_int_equal(a.mesh_count, 9);
    assert_int_equal(b.mesh_count, 9);
    for (size_t i = 0; i < a.mesh_count; i++) {
        const am_scene_mesh *fm = &a.meshes[i], *gm = &b.meshes[mesh_named(&b, fm->name)];
        const am_scene_mesh *rm = &raw.meshes[mesh_named(&raw, fm->name)];
        size_t ft = 0, gt = 0;
        for (size_t f = 0; f < fm->face_count; f++)
            ft += fm->faces[f].index_count / 3;
        for (size_t f = 0; f < gm->face_count; f++)
            gt += gm->faces[f].index_count / 3;
        if (fm->vertex_count != gm->vertex_count || ft != gt)
            fail_msg("%s: FBX %zu vertices %zu triangles, GLB %zu vertices %zu triangles", fm->name,
                     fm->vertex_count, ft, gm->vertex_count, gt);
        assert_int_equal(rm->vertex_count, 3 * ft); /* unwelded: three corners per triangle */
        assert_non_null(fm->influence_start);
    }
    assert_int_equal(a.meshes[mesh_named(&a, "Wolf3D_Head")].vertex_count, 2162);
    assert_int_equal(raw.meshes[mesh_named(&raw, "Wolf3D_Head")].vertex_count, 12282);
    /* the weld says what it did */
    bool noted = false;
    for (size_t k = 0; k < a.note_count; k++)
        noted |= strstr(am_str(&a.notes[k]), "welded") != NULL;
    assert_true(noted);
    am_scene_free(&a);
    am_scene_free(&b);
    am_scene_free(&raw);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_corners_merge_only_where_every_attribute_agrees),
        cmocka_unit_test(test_faces_never_share_vertices),
        cmocka_unit_test(test_exact_weld_keeps_near_normals_apart),
        cmocka_unit_test(test_rpm_fbx_welds_to_the_glb_vertex_counts),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
