/* FBX and other formats through assimp (src/readers/assimp/assimp_read.h), on Debian's
 * assimp-testmodels and Linden Lab's Bento FBX: the figures of each file; bone matrices,
 * vertices and keys against the aiScene assimp itself returns (points mapped with
 * assimp's own aiTransformVecByMatrix4, so a transposition mistake shows); weights kept
 * as the file gives them; old FBX refused before assimp sees it; FBX pivot helpers folded
 * exactly as assimp composes them, and animated helpers (a hand-built aiScene) resampled
 * onto their joint. */
#include <assimp/cimport.h>
#include <assimp/config.h>
#include <assimp/postprocess.h>
#include <assimp/scene.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support/gltf_fixtures.h"
#include "readers/assimp/assimp_internal.h"
#include "readers/scene_load.h"
#include "support/test_support.h"

#define MODELS "/usr/share/assimp/models/"
#define SKELETON_FBX MODELS "FBX/animation_with_skeleton.fbx"
#define HUESITOS_FBX MODELS "FBX/huesitos.fbx"
#define PIVOT_FBX MODELS "FBX/cubes_with_mirroring_and_pivot.fbx"
#define EMBEDDED_FBX MODELS "FBX/embedded_ascii/box.FBX"
#define SPIDER_FBX MODELS "FBX/spider.fbx"
#define EPILEPTIC_X MODELS "X/BCN_Epileptic.X"

static bool has_note(const am_scene *s, const char *text)
{
    for (size_t n = 0; n < s->note_count; n++)
        if (strstr(am_str(&s->notes[n]), text))
            return true;
    return false;
}

static size_t key_total(const am_scene_clip *c)
{
    size_t n = 0;
    for (size_t h = 0; h < c->channel_count; h++)
        n += c->channels[h].key_count;
    return n;
}

/* assimp's own reading of the file, with the reader's settings. */
static const struct aiScene *raw(const char *path)
{
    struct aiPropertyStore *p = aiCreatePropertyStore();
    aiSetImportPropertyInteger(p, AI_CONFIG_IMPORT_REMOVE_EMPTY_BONES, 0);
    aiSetImportPropertyInteger(p, AI_CONFIG_IMPORT_FBX_PRESERVE_PIVOTS, 0);
    const struct aiScene *s = aiImportFileExWithProperties(path, aiProcess_Triangulate, NULL, p);
    aiReleasePropertyStore(p);
    assert_non_null(s);
    return s;
}

/* Bones: the scene's LL inverse bind maps points as assimp's offset matrix does. Vertices
 * and keys: as assimp gives them, times in seconds, rotations x, y, z, w. */
static void compare_with_assimp(const am_scene *s, const struct aiScene *ai)
{
    assert_int_equal(s->mesh_count, ai->mNumMeshes);
    for (unsigned mi = 0; mi < ai->mNumMeshes; mi++) {
        const struct aiMesh *am = ai->mMeshes[mi];
        const am_scene_mesh *m = &s->meshes[mi];
        assert_int_equal(m->vertex_count, am->mNumVertices);
        for (unsigned v = 0; v < am->mNumVertices; v += 97)
            assert_near(m->positions[3 * v + 1], am->mVertices[v].y, 0);
        const am_scene_skin *k = &s->skins[m->skin];
        assert_int_equal(k->joint_count, am->mNumBones);
        for (unsigned b = 0; b < am->mNumBones; b++) {
            assert_string_equal(k->joint_names[b], am->mBones[b]->mName.data);
            struct aiVector3D p = {0.3f, -1.7f, 2.9f};
            struct aiMatrix4x4 off = am->mBones[b]->mOffsetMatrix;
            aiTransformVecByMatrix4(&p, &off);
            am_vec3 q = am_mat4_transform_point(&k->inverse_binds[b], am_v3(0.3f, -1.7f, 2.9f));
            assert_near(q.x, p.x, 1e-3 * (1 + fabs(p.x)));
            assert_near(q.y, p.y, 1e-3 * (1 + fabs(p.y)));
            assert_near(q.z, p.z, 1e-3 * (1 + fabs(p.z)));
        }
    }
    assert_int_equal(s->clip_count, ai->mNumAnimations);
    for (unsigned a = 0; a < ai->mNumAnimations; a++) {
        const struct aiAnimation *an = ai->mAnimations[a];
        double tps = an->mTicksPerSecond > 0 ? an->mTicksPerSecond : 25;
        const am_scene_clip *c = &s->clips[a];
        for (unsigned h = 0; h < an->mNumChannels; h++) {
            const struct aiNodeAnim *na = an->mChannels[h];
            int node = am_scene_find_node(s, na->mNodeName.data);
            assert_ge(node, 0);
            for (size_t k = 0; k < c->channel_count; k++) {
                const am_scene_channel *ch = &c->channels[k];
                if (ch->node != node || ch->path != AM_SCENE_PATH_ROTATION)
                    continue;
                assert_int_equal(ch->key_count, na->mNumRotationKeys);
                for (unsigned q = 0; q < na->mNumRotationKeys; q++) {
                    const struct aiQuatKey *key = &na->mRotationKeys[q];
                    assert_near(ch->times[q], key->mTime / tps, 1e-6);
                    assert_near(ch->values[4 * q], key->mValue.x, 0);
                    assert_near(ch->values[4 * q + 2], key->mValue.z, 0);
                    assert_near(ch->values[4 * q + 3], key->mValue.w, 0);
                }
            }
        }
    }
}

static void ai_global(const struct aiNode *n, struct aiMatrix4x4 *out)
{
    *out = n->mTransformation;
    for (const struct aiNode *p = n->mParent; p; p = p->mParent) {
        struct aiMatrix4x4 t = p->mTransformation;
        aiMultiplyMatrix4(&t, out);
        *out = t;
    }
}

static const struct aiNode *ai_find(const struct aiNode *n, const char *name)
{
    if (strcmp(n->mName.data, name) == 0)
        return n;
    for (unsigned i = 0; i < n->mNumChildren; i++) {
        const struct aiNode *r = ai_find(n->mChildren[i], name);
        if (r)
            return r;
    }
    return NULL;
}

/* The scene's skinning at rest against assimp's meaning of its bones, computed with
 * assimp's own matrix functions: v' = sum w (global(bone) * offset) v / sum w. */
static void assert_rest_skin_matches_assimp_math(const am_scene *s, const struct aiScene *ai, double tol)
{
    for (unsigned mi = 0; mi < ai->mNumMeshes; mi++) {
        const struct aiMesh *am = ai->mMeshes[mi];
        size_t nv = am->mNumVertices;
        double *acc = calloc(4 * nv, sizeof *acc);
        for (unsigned b = 0; b < am->mNumBones; b++) {
            const struct aiBone *bone = am->mBones[b];
            struct aiMatrix4x4 g;
            ai_global(ai_find(ai->mRootNode, bone->mName.data), &g);
            aiMultiplyMatrix4(&g, &bone->mOffsetMatrix);
            for (unsigned w = 0; w < bone->mNumWeights; w++) {
                unsigned v = bone->mWeights[w].mVertexId;
                struct aiVector3D q = am->mVertices[v];
                aiTransformVecByMatrix4(&q, &g);
                double wt = bone->mWeights[w].mWeight;
                acc[4 * v] += wt * q.x, acc[4 * v + 1] += wt * q.y, acc[4 * v + 2] += wt * q.z, acc[4 * v + 3] += wt;
            }
        }
        am_mat4 *world = malloc(s->node_count * sizeof *world);
        float *got = malloc(3 * nv * sizeof *got);
        for (size_t n = 0; n < s->node_count; n++)
            world[n] = s->nodes[n].world;
        am_error err = {0};
        assert_int_equal(am_scene_skin_positions(s, mi, world, got, &err), AM_OK);
        for (size_t v = 0; v < nv; v++) {
            if (acc[4 * v + 3] <= 0)
                continue;
            am_vec3 want = am_v3_scale(am_v3(acc[4 * v], acc[4 * v + 1], acc[4 * v + 2]), 1 / acc[4 * v + 3]);
            double d = am_v3_dist(want, am_v3(got[3 * v], got[3 * v + 1], got[3 * v + 2]));
            if (d > tol)
                fail_msg("mesh %u vertex %zu: %.4g from assimp's own skinning", mi, v, d);
        }
        free(acc);
        free(world);
        free(got);
    }
}

/* The skin at rest puts every vertex where the mesh node's world puts it, when the file's
 * bind pose is its rest pose. */
static void assert_rest_skin_matches_mesh_node(const am_scene *s, double tol)
{
    for (size_t mi = 0; mi < s->mesh_count; mi++) {
        const am_scene_mesh *m = &s->meshes[mi];
        am_mat4 *world = malloc(s->node_count * sizeof *world);
        float *got = malloc(3 * m->vertex_count * sizeof *got);
        for (size_t n = 0; n < s->node_count; n++)
            world[n] = s->nodes[n].world;
        am_error err = {0};
        assert_int_equal(am_scene_skin_positions(s, mi, world, got, &err), AM_OK);
        double worst = 0;
        for (size_t v = 0; v < m->vertex_count; v++) {
            am_vec3 p = am_v3(m->positions[3 * v], m->positions[3 * v + 1], m->positions[3 * v + 2]);
            am_vec3 want = am_mat4_transform_point(&s->nodes[m->node].world, p);
            double d = am_v3_dist(want, am_v3(got[3 * v], got[3 * v + 1], got[3 * v + 2]));
            worst = d > worst ? d : worst;
        }
        if (worst > tol)
            fail_msg("mesh %zu: rest skin %.4g from the mesh node's placement", mi, worst);
        free(world);
        free(got);
    }
}

static void weight_sum_range(const am_scene_mesh *m, double *lo, double *hi)
{
    *lo = INFINITY, *hi = -INFINITY;
    for (size_t v = 0; v < m->vertex_count; v++) {
        double sum = 0;
        for (size_t i = m->influence_start[v]; i < m->influence_start[v + 1]; i++)
            sum += m->influences[i].weight;
        if (m->influence_start[v + 1] > m->influence_start[v]) {
            *lo = fmin(*lo, sum);
            *hi = fmax(*hi, sum);
        }
    }
}

static void test_fbx_animation_with_skeleton(void **state)
{
    (void)state;
    am_test_skip_if_missing(SKELETON_FBX);
    am_scene s;
    am_gf_load(SKELETON_FBX, &s);
    assert_int_equal(s.format, AM_SCENE_FORMAT_FBX);
    assert_non_null(strstr(am_str(&s.format_detail), "FBX 7400"));
    assert_int_equal(s.node_count, 21);
    assert_string_equal(s.nodes[0].name, "RootNode");
    assert_int_equal(s.mesh_count, 1);
    assert_int_equal(s.meshes[0].vertex_count, 4224);
    assert_int_equal(s.meshes[0].faces[0].index_count, 3 * 2112);
    assert_int_equal(s.skins[0].joint_count, 14);
    for (size_t j = 0; j < 14; j++)
        assert_true(s.skins[0].joint_nodes[j] >= 0 && s.nodes[s.skins[0].joint_nodes[j]].is_joint);
    assert_int_equal(s.clip_count, 1);
    assert_string_equal(s.clips[0].name, "Armature|ArmatureAction");
    assert_int_equal(s.clips[0].channel_count, 45); /* 15 nodes x T, R, S */
    assert_int_equal(key_total(&s.clips[0]), 126);
    assert_near(s.clips[0].end_s, 20.0 / 24.0, 1e-6); /* 20 ticks at 24 per second */
    /* declared, not applied: Y up, front +Z, centimetres */
    assert_int_equal(s.declared.up, 2);
    assert_int_equal(s.declared.forward, 3);
    assert_near(s.declared.unit_m, 0.01, 1e-12);
    /* weights as given: Debian's models sum to 0.94 .. 1.38 (assets README) */
    double lo, hi;
    weight_sum_range(&s.meshes[0], &lo, &hi);
    assert_near(lo, 0.94, 0.005);
    assert_near(hi, 1.38, 0.005);
    assert_true(has_note(&s, "have weights summing to 0.94..1.38, not 1 (kept as given)"));
    const struct aiScene *ai = raw(SKELETON_FBX);
    compare_with_assimp(&s, ai);
    /* This file's bind pose is NOT its rest pose on the Bone.007 chain: at rest, vertex
     * 3682 skins 3.85 m (385 units) from where the mesh node puts it, in assimp's own
     * reading too. The scene keeps the file's meaning. */
    assert_rest_skin_matches_assimp_math(&s, ai, 1e-2);
    aiReleaseImport(ai);
    am_scene_free(&s);
}

static void test_fbx_huesitos(void **state)
{
    (void)state;
    am_test_skip_if_missing(HUESITOS_FBX);
    am_scene s;
    am_gf_load(HUESITOS_FBX, &s);
    assert_int_equal(s.node_count, 16);
    assert_int_equal(s.meshes[0].vertex_count, 256);
    assert_int_equal(s.skins[0].joint_count, 9);
    /* Bone.005 carries no weight: still a joint (AI_CONFIG_IMPORT_REMOVE_EMPTY_BONES = 0) */
    assert_string_equal(s.skins[0].joint_names[4], "Bone.005");
    assert_string_equal(s.clips[0].name, "Armature|Action");
    assert_int_equal(s.clips[0].channel_count, 30);
    assert_int_equal(key_total(&s.clips[0]), 804);
    assert_near(s.clips[0].end_s, 39.0 / 25.0, 1e-6);
    assert_int_equal(s.declared.up, 2);
    assert_near(s.declared.unit_m, 0.01, 1e-12);
    double lo, hi;
    weight_sum_range(&s.meshes[0], &lo, &hi);
    assert_true(lo > 0.94 && hi < 1.0);
    const struct aiScene *ai = raw(HUESITOS_FBX);
    compare_with_assimp(&s, ai);
    assert_rest_skin_matches_assimp_math(&s, ai, 1e-3);
    aiReleaseImport(ai);
    assert_rest_skin_matches_mesh_node(&s, 1e-3);
    am_scene_free(&s);
}

static void test_fbx_older_than_7_1_is_refused_naming_the_version(void **state)
{
    (void)state;
    char path[1024], msg[512];
    am_test_shared_path(path, sizeof path, "data/realdata/FBXBentoFemaleSeptember2016.fbx");
    am_gf_load_error(path, AM_ERR_INVALID, msg, sizeof msg);
    assert_non_null(strstr(msg, "FBXBentoFemaleSeptember2016.fbx"));
    assert_non_null(strstr(msg, "FBX version 6100 (FBX 6.1) is older than 7.1"));
    assert_non_null(strstr(msg, "re-export it as FBX 2011 (7.1) or newer, or as glTF"));
    char dir[256];
    am_test_tmpdir(dir, sizeof dir);
    /* ASCII, the way FBX 6 files begin */
    snprintf(path, sizeof path, "%s/old.fbx", dir);
    am_test_write_text(path, "; FBX 6.1.0 project file\n; ----\n\nFBXHeaderExtension:  {\n\tFBXHeaderVersion: 1003\n"
                             "\tFBXVersion: 6100\n}\n");
    am_gf_load_error(path, AM_ERR_INVALID, msg, sizeof msg);
    assert_non_null(strstr(msg, "FBX version 6100"));
    /* binary: "Kaydara FBX Binary  \0", 0x1A 0x00, version (LE u32) at bytes 23..26 */
    uint8_t bin[64] = "Kaydara FBX Binary  ";
    bin[21] = 0x1a;
    uint32_t v = 7000;
    memcpy(bin + 23, &v, 4);
    snprintf(path, sizeof path, "%s/old_bin.fbx", dir);
    assert_int_equal(am_write_file_atomic(path, bin, sizeof bin, NULL), AM_OK);
    am_gf_load_error(path, AM_ERR_INVALID, msg, sizeof msg);
    assert_non_null(strstr(msg, "FBX version 7000 (FBX 7.0) is older than 7.1"));
    unsigned version;
    assert_int_equal(am_fbx_version(bin, sizeof bin, &version, NULL), AM_OK);
    assert_int_equal(version, 7000);
    am_gf_remove_tree(dir);
}

/* assimp with pivots preserved makes `Cube1_$AssimpFbx$_Translation` ... helper chains;
 * folded here they must give each real node the world assimp's own composition gives. */
static void test_pivot_helpers_fold_like_assimps_own_composition(void **state)
{
    (void)state;
    am_test_skip_if_missing(PIVOT_FBX);
    uint8_t *data;
    size_t size;
    assert_int_equal(am_read_file(PIVOT_FBX, &data, &size, NULL), AM_OK);
    am_scene a = {0}, b = {0};
    am_error err = {0};
    am_assimp_options keep = {.preserve_pivots = true};
    assert_int_equal(am_assimp_read_ex(data, size, PIVOT_FBX, MODELS "FBX", AM_SCENE_FORMAT_FBX, &keep, &a, &err),
                     AM_OK);
    assert_int_equal(am_scene_finish(&a, &err), AM_OK);
    assert_int_equal(am_assimp_read_ex(data, size, PIVOT_FBX, MODELS "FBX", AM_SCENE_FORMAT_FBX, NULL, &b, &err), AM_OK);
    assert_int_equal(am_scene_finish(&b, &err), AM_OK);
    free(data);
    assert_true(has_note(&a, "FBX pivot helper nodes ($AssimpFbx$) folded into their joints"));
    assert_int_equal(a.node_count, b.node_count);
    /* the same nodes in the same order (the file has two nodes named Cube1) */
    for (size_t i = 0; i < a.node_count; i++) {
        assert_null(strstr(a.nodes[i].name, "$AssimpFbx$"));
        assert_string_equal(a.nodes[i].name, b.nodes[i].name);
        assert_int_equal(a.nodes[i].parent, b.nodes[i].parent);
        assert_near(am_mat4_max_abs_diff(&a.nodes[i].world, &b.nodes[i].world), 0, 1e-6);
    }
    am_scene_free(&a);
    am_scene_free(&b);
}

/* --- a hand-built aiScene: RootNode -> J_$AssimpFbx$_Translation -> J_$AssimpFbx$_Rotation
 * -> J -> Tip, with keys on both helpers and on J. */
static struct aiNode *node(const char *name, struct aiNode *parent, am_mat4 local)
{
    struct aiNode *n = calloc(1, sizeof *n);
    n->mName.length = (ai_uint32)strlen(name);
    strcpy(n->mName.data, name);
    /* LL layout -> aiMatrix4x4 (its transpose) */
    ai_real *dst = &n->mTransformation.a1;
    for (int r = 0; r < 4; r++)
        for (int c = 0; c < 4; c++)
            dst[4 * r + c] = (ai_real)local.m[4 * c + r];
    n->mParent = parent;
    if (parent) {
        parent->mChildren = realloc(parent->mChildren, (parent->mNumChildren + 1) * sizeof *parent->mChildren);
        parent->mChildren[parent->mNumChildren++] = n;
    }
    return n;
}

static void free_nodes(struct aiNode *n)
{
    for (unsigned i = 0; i < n->mNumChildren; i++)
        free_nodes(n->mChildren[i]);
    free(n->mChildren);
    free(n);
}

static struct aiNodeAnim *channel(const char *name)
{
    struct aiNodeAnim *c = calloc(1, sizeof *c);
    c->mNodeName.length = (ai_uint32)strlen(name);
    strcpy(c->mNodeName.data, name);
    return c;
}

static void test_animated_pivot_helpers_are_resampled_onto_their_joint(void **state)
{
    (void)state;
    am_quat r30 = am_quat_axis_angle(am_v3(0, 0, 1), 30 * AM_DEG2RAD), r90 = am_quat_axis_angle(am_v3(0, 0, 1), AM_PI / 2);
    struct aiNode *root = node("RootNode", NULL, am_mat4_identity());
    struct aiNode *ht = node("J_$AssimpFbx$_Translation", root, am_mat4_translation(am_v3(1, 2, 3)));
    am_mat4 rot = am_mat4_from_trs(am_v3(0, 0, 0), r30, am_v3(1, 1, 1));
    struct aiNode *hr = node("J_$AssimpFbx$_Rotation", ht, rot);
    struct aiNode *j = node("J", hr, am_mat4_translation(am_v3(0, 1, 0)));
    node("Tip", j, am_mat4_translation(am_v3(0, 2, 0)));

    struct aiNodeAnim *ct = channel("J_$AssimpFbx$_Translation"), *cr = channel("J_$AssimpFbx$_Rotation"),
                      *cj = channel("J");
    struct aiVectorKey tk[2] = {{0, {1, 2, 3}}, {10, {1, 4, 3}}}, jk[2] = {{0, {0, 1, 0}}, {20, {0, 3, 0}}};
    struct aiQuatKey rk[2] = {{0, {(ai_real)r30.w, 0, 0, (ai_real)r30.z}}, {5, {(ai_real)r90.w, 0, 0, (ai_real)r90.z}}};
    ct->mNumPositionKeys = 2, ct->mPositionKeys = tk;
    cr->mNumRotationKeys = 2, cr->mRotationKeys = rk;
    cj->mNumPositionKeys = 2, cj->mPositionKeys = jk;
    struct aiNodeAnim *chans[3] = {ct, cr, cj};
    struct aiAnimation anim = {0};
    strcpy(anim.mName.data, "take");
    anim.mName.length = 4;
    anim.mTicksPerSecond = 10;
    anim.mDuration = 20;
    anim.mNumChannels = 3;
    anim.mChannels = chans;
    struct aiAnimation *anims[1] = {&anim};
    struct aiScene ai = {0};
    ai.mRootNode = root;
    ai.mNumAnimations = 1;
    ai.mAnimations = anims;

    am_scene s = {0};
    am_error err = {0};
    s.source = strdup("hand.fbx");
    s.format = AM_SCENE_FORMAT_FBX;
    ai_convert cv = {.ai = &ai, .scene = &s, .err = &err, .source = "hand.fbx", .base_dir = "/nonexistent"};
    assert_int_equal(am_assimp_convert(&cv), AM_OK);
    assert_int_equal(am_scene_finish(&s, &err), AM_OK);
    assert_int_equal(s.node_count, 3); /* RootNode, J, Tip */
    assert_string_equal(s.nodes[1].name, "J");
    /* rest: J's world = its own translation, turned 30 degrees, then moved by (1, 2, 3) */
    am_vec3 p = am_mat4_get_translation(&s.nodes[1].world), want = am_v3_add(am_v3(1, 2, 3), am_quat_rotate(r30, am_v3(0, 1, 0)));
    assert_near(am_v3_dist(p, want), 0, 1e-6);
    /* keys at the union of the links' key times: 0, 0.5, 1 and 2 s */
    assert_int_equal(s.clip_count, 1);
    assert_int_equal(s.clips[0].channel_count, 3);
    assert_int_equal(s.clips[0].channels[0].key_count, 4);
    const struct {
        double t;
        am_vec3 trans;
        am_quat r;
        am_vec3 jt;
    } at[] = {
        {0.0, {1, 2, 3}, r30, {0, 1, 0}},
        {0.5, {1, 3, 3}, r90, {0, 1.5, 0}},
        {1.0, {1, 4, 3}, r90, {0, 2, 0}},
        {2.0, {1, 4, 3}, r90, {0, 3, 0}},
    };
    for (size_t k = 0; k < 4; k++) {
        am_scene_trs trs[3];
        am_mat4 local[3], world[3];
        am_scene_eval_clip(&s, &s.clips[0], at[k].t, trs, local);
        am_scene_world_from_local(&s, local, world);
        am_vec3 tip = am_mat4_get_translation(&world[2]);
        am_vec3 expect = am_v3_add(at[k].trans, am_quat_rotate(at[k].r, am_v3_add(at[k].jt, am_v3(0, 2, 0))));
        if (am_v3_dist(tip, expect) > 1e-5)
            fail_msg("t %.1f: tip at (%g %g %g), expected (%g %g %g)", at[k].t, tip.x, tip.y, tip.z, expect.x, expect.y,
                     expect.z);
    }
    am_scene_free(&s);
    free(ct);
    free(cr);
    free(cj);
    free_nodes(root);
}

static void test_directx_x_through_assimp(void **state)
{
    (void)state;
    am_test_skip_if_missing(EPILEPTIC_X);
    am_scene s;
    am_gf_load(EPILEPTIC_X, &s);
    assert_int_equal(s.format, AM_SCENE_FORMAT_ASSIMP);
    assert_int_equal(s.node_count, 58);
    assert_int_equal(s.mesh_count, 3);
    size_t verts = 0, joints = 0;
    for (size_t m = 0; m < 3; m++) {
        verts += s.meshes[m].vertex_count;
        joints += s.skins[s.meshes[m].skin].joint_count;
    }
    assert_int_equal(verts, 15378);
    assert_int_equal(joints, 24 + 20 + 10);
    assert_string_equal(s.clips[0].name, "Epileptisch");
    assert_near(s.clips[0].end_s, 15840.0 / 4800.0, 1e-6);
    assert_int_equal(s.declared.up, 0); /* DirectX files declare nothing */
    assert_near(s.declared.unit_m, 0, 0);
    const struct aiScene *ai = raw(EPILEPTIC_X);
    compare_with_assimp(&s, ai);
    assert_rest_skin_matches_assimp_math(&s, ai, 1e-3);
    aiReleaseImport(ai);
    am_scene_free(&s);
}

static void test_fbx_textures_embedded_or_outside_the_folder(void **state)
{
    (void)state;
    am_test_skip_if_missing(EMBEDDED_FBX);
    am_test_skip_if_missing(SPIDER_FBX);
    am_scene s;
    am_gf_load(EMBEDDED_FBX, &s);
    assert_string_equal(am_str(&s.materials[0].image_mime), "image/png");
    am_tex_image img;
    am_error err = {0};
    assert_int_equal(am_image_decode(s.materials[0].image_data, s.materials[0].image_size, &img, &err), AM_OK);
    assert_true(img.width > 0 && img.height > 0);
    am_tex_image_free(&img);
    am_scene_free(&s);
    /* absolute Windows paths elsewhere: not followed, the materials stay untextured */
    am_gf_load(SPIDER_FBX, &s);
    for (size_t m = 0; m < s.material_count; m++) {
        assert_null(s.materials[m].image_path);
        assert_null(s.materials[m].image_data);
    }
    assert_true(has_note(&s, "texture 'D:\\projects\\assimp_int\\test\\models\\OBJ\\drkwood2.jpg' is not in the model's "
                             "folder (nor 'drkwood2.jpg'): untextured"));
    am_scene_free(&s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fbx_animation_with_skeleton),
        cmocka_unit_test(test_fbx_huesitos),
        cmocka_unit_test(test_fbx_older_than_7_1_is_refused_naming_the_version),
        cmocka_unit_test(test_pivot_helpers_fold_like_assimps_own_composition),
        cmocka_unit_test(test_animated_pivot_helpers_are_resampled_onto_their_joint),
        cmocka_unit_test(test_directx_x_through_assimp),
        cmocka_unit_test(test_fbx_textures_embedded_or_outside_the_folder),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
