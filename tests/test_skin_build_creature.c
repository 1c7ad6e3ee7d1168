/* Real data: the 10k-vertex test creature (../shared/data/creature) with Blender's
 * automatic weights (up to 5 influences, sums 0.92-1.00) on its 21 stock joints at their
 * default rest positions. The skin must close the set (mSpine1..4 appended), carry no
 * override (every joint at its default), cap and renormalise the weights, produce LODs
 * that at least halve, and encode/decode. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mesh/mesh_asset.h"
#include "skin/rig.h"
#include "skin/skin_build.h"
#include "test_support.h"

static const char *const joint_names[] = {
    "mPelvis",    "mTorso",        "mChest",        "mNeck",        "mHead",         "mCollarLeft", "mShoulderLeft",
    "mElbowLeft", "mWristLeft",    "mCollarRight",  "mShoulderRight", "mElbowRight", "mWristRight", "mHipLeft",
    "mKneeLeft",  "mAnkleLeft",    "mFootLeft",     "mHipRight",    "mKneeRight",    "mAnkleRight", "mFootRight"};
#define NJ (sizeof joint_names / sizeof joint_names[0])

static int joint_index(const char *name)
{
    for (size_t i = 0; i < NJ; i++)
        if (strcmp(joint_names[i], name) == 0)
            return (int)i;
    return -1;
}

/* Read the OBJ (v / f lines) and the weight CSV into a rig; normals area-weighted. */
static void load_creature(const am_skeleton *skel, am_rig *r)
{
    char path[4096];
    memset(r, 0, sizeof *r);
    r->name = strdup("creature10k");
    r->joint_count = NJ;
    r->joints = calloc(NJ, sizeof *r->joints);
    for (size_t j = 0; j < NJ; j++) {
        r->joints[j].name = strdup(joint_names[j]);
        int s = am_skeleton_find(skel, joint_names[j]);
        assert_true(s >= 0);
        r->joints[j].world = skel->joints[s].world_pos[AM_FRAME_FILE]; /* default rest */
    }
    FILE *f = fopen(am_test_shared_path(path, sizeof path, "data/creature/creature_10k.obj"), "r");
    assert_non_null(f);
    size_t vcap = 16384, tcap = 32768;
    r->positions = malloc(vcap * 3 * sizeof(float));
    r->triangles = malloc(tcap * 3 * sizeof(uint32_t));
    char line[256];
    while (fgets(line, sizeof line, f)) {
        float x, y, z;
        unsigned a, b, c;
        if (sscanf(line, "v %f %f %f", &x, &y, &z) == 3) {
            assert_true(r->vertex_count < vcap);
            float *p = &r->positions[3 * r->vertex_count++];
            p[0] = x, p[1] = y, p[2] = z;
        } else if (sscanf(line, "f %u %u %u", &a, &b, &c) == 3) {
            assert_true(r->triangle_count < tcap);
            uint32_t *t = &r->triangles[3 * r->triangle_count++];
            t[0] = a - 1, t[1] = b - 1, t[2] = c - 1;
        }
    }
    fclose(f);
    size_t n = r->vertex_count;
    r->normals = calloc(n * 3, sizeof(float));
    r->uvs = calloc(n * 2, sizeof(float));
    for (size_t t = 0; t < r->triangle_count; t++) {
        const uint32_t *v = &r->triangles[3 * t];
        am_vec3 p0 = am_v3(r->positions[3 * v[0]], r->positions[3 * v[0] + 1], r->positions[3 * v[0] + 2]);
        am_vec3 p1 = am_v3(r->positions[3 * v[1]], r->positions[3 * v[1] + 1], r->positions[3 * v[1] + 2]);
        am_vec3 p2 = am_v3(r->positions[3 * v[2]], r->positions[3 * v[2] + 1], r->positions[3 * v[2] + 2]);
        am_vec3 nn = am_v3_cross(am_v3_sub(p1, p0), am_v3_sub(p2, p0));
        for (int k = 0; k < 3; k++) {
            r->normals[3 * v[k]] += (float)nn.x;
            r->normals[3 * v[k] + 1] += (float)nn.y;
            r->normals[3 * v[k] + 2] += (float)nn.z;
        }
    }
    /* weights: vertex,bone,weight rows grouped per vertex */
    f = fopen(am_test_shared_path(path, sizeof path, "data/creature/creature_10k.blender-heat-weights.csv"), "r");
    assert_non_null(f);
    size_t cap = 8 * n, count = 0;
    r->influences = malloc(cap * sizeof *r->influences);
    size_t *vert = malloc(cap * sizeof *vert);
    assert_non_null(fgets(line, sizeof line, f)); /* header */
    while (fgets(line, sizeof line, f)) {
        size_t v;
        char bone[64];
        double w;
        if (sscanf(line, "%zu,%63[^,],%lf", &v, bone, &w) != 3)
            continue;
        assert_true(count < cap && v < n);
        r->influences[count].joint = joint_index(bone);
        assert_true(r->influences[count].joint >= 0);
        r->influences[count].weight = w;
        vert[count++] = v;
    }
    fclose(f);
    /* group by vertex (counting sort keeps each vertex's file order) */
    r->weight_start = calloc(n + 1, sizeof(size_t));
    for (size_t i = 0; i < count; i++)
        r->weight_start[vert[i] + 1]++;
    for (size_t v = 0; v < n; v++)
        r->weight_start[v + 1] += r->weight_start[v];
    am_rig_influence *sorted = malloc(count * sizeof *sorted);
    size_t *at = malloc(n * sizeof *at);
    memcpy(at, r->weight_start, n * sizeof *at);
    for (size_t i = 0; i < count; i++)
        sorted[at[vert[i]]++] = r->influences[i];
    free(r->influences);
    r->influences = sorted;
    free(at);
    free(vert);
    r->rgb[0] = r->rgb[1] = r->rgb[2] = 0.8;
}

static void test_creature_10k_with_blender_weights(void **state)
{
    am_skeleton skel;
    am_test_load_viewer_skeleton(&skel);
    am_rig rig;
    load_creature(&skel, &rig);
    assert_int_equal(rig.vertex_count, 10072);
    am_skin_result res;
    am_error err;
    am_error_clear(&err);
    char buf[512];
    if (am_skin_build(&rig, &skel, NULL, &res, &err))
        fail_msg("%s", am_error_format(&err, buf, sizeof buf));
    const am_skin_summary *s = &res.summary;
    /* the closed set: mSpine1..mSpine4 sit between mPelvis/mTorso/mChest in the viewer */
    assert_int_equal(s->joint_count, NJ + 4);
    assert_int_equal(s->appended_count, 4);
    assert_int_equal(s->override_count, 0); /* every joint at its default */
    /* Blender leaves up to 5 influences and does not normalise (data README) */
    assert_int_equal(s->max_influences_in, 5);
    assert_true(s->vertices_capped > 0);
    assert_true(s->vertices_renormalised > 0);
    assert_int_equal(s->max_influences_out, 4);
    assert_int_equal(s->face_count, 1);
    /* Medium and low at least halve (mesh-asset.md 8.3 charges the bytes of every LOD); the
     * lowest keeps the borders between joint regions (skin_lod.c), so it only shrinks. */
    assert_int_equal(s->lod_triangles[AM_LOD_HIGH], rig.triangle_count);
    for (int lod = AM_LOD_MEDIUM; lod >= AM_LOD_LOW; lod--)
        assert_true(2 * s->lod_triangles[lod] <= s->lod_triangles[lod + 1]);
    assert_true(s->lod_triangles[AM_LOD_LOWEST] < s->lod_triangles[AM_LOD_LOW]);
    assert_true(5 * s->lod_triangles[AM_LOD_LOWEST] <= s->lod_triangles[AM_LOD_HIGH]);
    am_buf out = {0};
    assert_int_equal(am_skin_encode(&res, &out, &err), AM_OK);
    /* 8.3 charges a LOD that does not halve; the weight-aware lowest LOD keeps the joint-region
     * borders, a bounded surcharge on top of the high LOD's estimate */
    assert_true(s->streaming_tris >= s->est_tris[AM_LOD_HIGH]);
    assert_true(s->streaming_tris <= 1.15 * s->est_tris[AM_LOD_HIGH]);
    assert_false(s->over_region_limit);
    am_mesh_asset back;
    assert_int_equal(am_mesh_asset_decode(out.data, out.size, &back, &err), AM_OK);
    for (int lod = 0; lod < AM_LOD_COUNT; lod++) {
        assert_int_equal(back.lods[lod].face_count, 1);
        assert_int_equal(back.lods[lod].faces[0].index_count / 3, s->lod_triangles[lod]);
        assert_true(back.lods[lod].faces[0].has_weights);
    }
    print_message("creature_10k: %zu joints, triangles %zu/%zu/%zu/%zu, %zu bytes, est tris %.0f, streaming cost "
                  "%.3f, capped %zu, renormalised %zu\n",
                  s->joint_count, s->lod_triangles[3], s->lod_triangles[2], s->lod_triangles[1], s->lod_triangles[0],
                  out.size, s->est_tris_max, s->streaming_cost, s->vertices_capped, s->vertices_renormalised);
    am_mesh_asset_free(&back);
    am_buf_free(&out);
    am_skin_result_free(&res);
    am_rig_free(&rig);
    am_skeleton_free(&skel);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_creature_10k_with_blender_weights),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
