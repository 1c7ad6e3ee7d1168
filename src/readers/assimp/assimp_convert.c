/* aiScene -> am_scene (assimp_read.h): nodes with FBX pivot helpers folded, meshes and
 * skins, materials, clips and the declared frame. */
#include <assimp/material.h>
#include <assimp/metadata.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/io.h"
#include "readers/assimp/assimp_internal.h"
#include "readers/file_ref.h"
#include "texture/texture.h"

#define PIVOT_TAG "_$AssimpFbx$_"

bool am_assimp_is_pivot_helper(const char *name) { return strstr(name, PIVOT_TAG) != NULL; }

/* assimp's aiMatrix4x4 is row-major for column vectors (translation in a4, b4, c4): the LL
 * layout is its transpose. */
static am_mat4 ll_from_ai(const struct aiMatrix4x4 *a)
{
    const ai_real r[16] = {a->a1, a->a2, a->a3, a->a4, a->b1, a->b2, a->b3, a->b4,
                           a->c1, a->c2, a->c3, a->c4, a->d1, a->d2, a->d3, a->d4};
    am_mat4 m;
    for (int row = 0; row < 4; row++)
        for (int col = 0; col < 4; col++)
            m.m[4 * row + col] = r[4 * col + row];
    return m;
}

static am_status dup_name(ai_convert *cv, const struct aiString *s, char **out)
{
    char buf[MAXLEN + 1];
    size_t n = s->length < MAXLEN ? s->length : MAXLEN - 1;
    memcpy(buf, s->data, n);
    buf[n] = '\0';
    *out = am_strdup(buf);
    return *out ? AM_OK : am_fail_nomem(cv->err, "assimp name");
}

/* "file: what" */
#define fail(cv, ...) am_fail_where((cv)->err, AM_ERR_INVALID, (cv)->source, __VA_ARGS__)

/* --- nodes ------------------------------------------------------------------------- */

/* A helper folds when it is a plain link of the chain: one child, no meshes. */
static bool foldable(const struct aiNode *n)
{
    return am_assimp_is_pivot_helper(n->mName.data) && n->mNumChildren == 1 && n->mNumMeshes == 0;
}

typedef struct walk {
    const struct aiNode *node;
    int parent;
    am_mat4 pending; /* folded helpers above, outermost applied last (row vectors) */
    size_t chain_begin, chain_len;
} walk;

static am_status count_nodes(ai_convert *cv, size_t *nodes)
{
    /* Iterative (a hostile file may nest deeply); also bounds the walk below. */
    size_t cap = 64, top = 0, n = 0;
    const struct aiNode **stack = malloc(cap * sizeof *stack);
    if (!stack)
        return am_fail_nomem(cv->err, "assimp nodes");
    stack[top++] = cv->ai->mRootNode;
    while (top) {
        const struct aiNode *nd = stack[--top];
        if (++n > AM_ASSIMP_MAX_NODES) {
            free(stack);
            return fail(cv, "more than %d nodes", AM_ASSIMP_MAX_NODES);
        }
        if (nd->mNumChildren > cap - top) {
            size_t nc = cap * 2 + nd->mNumChildren;
            const struct aiNode **ns = realloc(stack, nc * sizeof *ns);
            if (!ns) {
                free(stack);
                return am_fail_nomem(cv->err, "assimp nodes");
            }
            stack = ns;
            cap = nc;
        }
        for (unsigned i = 0; i < nd->mNumChildren; i++)
            stack[top++] = nd->mChildren[i];
    }
    free(stack);
    *nodes = n;
    return AM_OK;
}

static am_status convert_nodes(ai_convert *cv)
{
    size_t total = 0;
    am_status st = count_nodes(cv, &total);
    if (st)
        return st;
    am_scene *s = cv->scene;
    walk *stack = malloc(total * sizeof *stack);
    s->nodes = calloc(total, sizeof *s->nodes);
    cv->ai_nodes = calloc(total, sizeof *cv->ai_nodes);
    cv->helper_start = calloc(total, sizeof *cv->helper_start);
    cv->helper_count = calloc(total, sizeof *cv->helper_count);
    cv->helpers = calloc(total, sizeof *cv->helpers);
    if (!stack || !s->nodes || !cv->ai_nodes || !cv->helper_start || !cv->helper_count || !cv->helpers) {
        free(stack);
        return am_fail_nomem(cv->err, "scene nodes");
    }
    size_t top = 0, kept_helpers = 0;
    stack[top++] = (walk){cv->ai->mRootNode, -1, am_mat4_identity(), 0, 0};
    while (top && !st) {
        walk w = stack[--top];
        const struct aiNode *nd = w.node;
        am_mat4 local = ll_from_ai(&nd->mTransformation);
        if (foldable(nd)) {
            /* Popped next (LIFO), so one chain's helpers are contiguous in cv->helpers. */
            size_t begin = w.chain_len ? w.chain_begin : cv->helper_total;
            cv->helpers[cv->helper_total++] = nd;
            stack[top++] = (walk){nd->mChildren[0], w.parent, am_mat4_mul(&local, &w.pending), begin, w.chain_len + 1};
            continue;
        }
        kept_helpers += am_assimp_is_pivot_helper(nd->mName.data);
        size_t k = s->node_count++;
        am_scene_node *sn = &s->nodes[k];
        sn->parent = w.parent;
        if ((st = dup_name(cv, &nd->mName, &sn->name)))
            break;
        am_mat4 folded = am_mat4_mul(&local, &w.pending);
        am_scene_node_set_local(sn, &folded);
        cv->ai_nodes[k] = nd;
        cv->helper_start[k] = w.chain_begin;
        cv->helper_count[k] = w.chain_len;
        for (unsigned i = nd->mNumChildren; i-- > 0;)
            stack[top++] = (walk){nd->mChildren[i], (int)k, am_mat4_identity(), 0, 0};
    }
    free(stack);
    if (cv->helper_total)
        am_scene_note(s, "%zu FBX pivot helper nodes ($AssimpFbx$) folded into their joints", cv->helper_total);
    if (kept_helpers)
        am_scene_note(s, "%zu FBX pivot helper nodes kept as nodes (they branch or carry meshes)", kept_helpers);
    return st;
}

/* --- meshes and skins -------------------------------------------------------------- */

static int find_node(const am_scene *s, const struct aiString *name)
{
    return am_scene_find_node(s, name->data);
}

static am_status convert_skin(ai_convert *cv, const struct aiMesh *am, am_scene_mesh *m, size_t mesh_index)
{
    am_scene *s = cv->scene;
    am_scene_skin *k = &s->skins[s->skin_count++];
    m->skin = (int)(s->skin_count - 1);
    k->bind_shape = am_mat4_identity();
    k->skeleton_root = -1;
    k->has_inverse_binds = true;
    size_t nb = am->mNumBones;
    k->joint_names = calloc(nb, sizeof *k->joint_names);
    k->joint_nodes = malloc(nb * sizeof *k->joint_nodes);
    k->inverse_binds = malloc(nb * sizeof *k->inverse_binds);
    size_t *count = calloc(am->mNumVertices + 1, sizeof *count);
    am_status st = dup_name(cv, &am->mName, &k->name);
    if (st) {
        free(count);
        return st;
    }
    if (!k->joint_names || !k->joint_nodes || !k->inverse_binds || !count) {
        free(count);
        return am_fail_nomem(cv->err, "scene skin");
    }
    k->joint_count = nb;
    size_t missing = 0, total = 0;
    for (size_t b = 0; b < nb; b++) {
        const struct aiBone *bone = am->mBones[b];
        if ((st = dup_name(cv, &bone->mName, &k->joint_names[b])))
            break;
        k->joint_nodes[b] = find_node(s, &bone->mName);
        missing += k->joint_nodes[b] < 0;
        k->inverse_binds[b] = ll_from_ai(&bone->mOffsetMatrix);
        for (unsigned w = 0; w < bone->mNumWeights; w++) {
            unsigned v = bone->mWeights[w].mVertexId;
            if (v >= am->mNumVertices) {
                st = fail(cv, "mesh %zu '%s' bone '%s': weight on vertex %u, the mesh has %u vertices", mesh_index,
                          m->name, k->joint_names[b], v, am->mNumVertices);
                break;
            }
            if (bone->mWeights[w].mWeight != 0) {
                count[v]++;
                total++;
            }
        }
        if (st)
            break;
    }
    if (!st && missing)
        am_scene_note(s, "mesh '%s': %zu bones have no node of their name", m->name, missing);
    /* Offsets, then fill (same bone twice for a vertex: summed). */
    if (!st && (!(m->influence_start = calloc(am->mNumVertices + 1, sizeof *m->influence_start)) ||
                !(m->influences = malloc((total ? total : 1) * sizeof *m->influences))))
        st = am_fail_nomem(cv->err, "influences");
    if (st) {
        free(count);
        return st;
    }
    for (size_t v = 0; v < am->mNumVertices; v++)
        m->influence_start[v + 1] = m->influence_start[v] + count[v];
    memset(count, 0, (am->mNumVertices + 1) * sizeof *count); /* now: filled per vertex */
    for (size_t b = 0; b < nb; b++) {
        const struct aiBone *bone = am->mBones[b];
        for (unsigned w = 0; w < bone->mNumWeights; w++) {
            unsigned v = bone->mWeights[w].mVertexId;
            float wt = bone->mWeights[w].mWeight;
            if (wt == 0)
                continue;
            am_scene_influence *first = &m->influences[m->influence_start[v]];
            size_t i = 0;
            while (i < count[v] && first[i].joint != b)
                i++;
            if (i < count[v])
                first[i].weight += wt;
            else
                first[count[v]++] = (am_scene_influence){(uint32_t)b, wt};
        }
    }
    /* Compact the merged duplicates away, and measure how far sums are from 1. */
    size_t at = 0, off = 0, none = 0;
    double lo = INFINITY, hi = -INFINITY;
    for (size_t v = 0; v < am->mNumVertices; v++) {
        size_t from = m->influence_start[v];
        m->influence_start[v] = at;
        double sum = 0;
        for (size_t i = 0; i < count[v]; i++) {
            m->influences[at + i] = m->influences[from + i];
            sum += m->influences[from + i].weight;
        }
        at += count[v];
        if (count[v] == 0) {
            none++;
        } else if (fabs(sum - 1) > 0.01) {
            off++;
            lo = sum < lo ? sum : lo;
            hi = sum > hi ? sum : hi;
        }
    }
    m->influence_start[am->mNumVertices] = at;
    free(count);
    if (off)
        am_scene_note(s, "mesh '%s': %zu of %u vertices have weights summing to %.2f..%.2f, not 1 (kept as given)",
                      m->name, off, am->mNumVertices, lo, hi);
    if (none)
        am_scene_note(s, "mesh '%s': %zu of %u vertices have no bone weight", m->name, none, am->mNumVertices);
    return AM_OK;
}

static am_status convert_mesh(ai_convert *cv, size_t node, unsigned mesh_index, am_scene_mesh *m)
{
    const struct aiMesh *am = cv->ai->mMeshes[mesh_index];
    m->node = (int)node;
    m->skin = -1;
    am_status st = dup_name(cv, &am->mName, &m->name);
    if (st)
        return st;
    if (!m->name[0]) {
        free(m->name);
        if (!(m->name = am_strdup(cv->scene->nodes[node].name)))
            return am_fail_nomem(cv->err, "mesh name");
    }
    size_t nv = am->mNumVertices;
    if (nv == 0 || !am->mVertices)
        return AM_OK;
    if (nv > AM_ASSIMP_MAX_VERTICES)
        return fail(cv, "mesh '%s': %zu vertices is over the limit of %u", m->name, nv, AM_ASSIMP_MAX_VERTICES);
    m->vertex_count = nv;
    m->positions = malloc(nv * 3 * sizeof(float));
    m->normals = am->mNormals ? malloc(nv * 3 * sizeof(float)) : NULL;
    bool uv = am->mTextureCoords[0] && am->mNumUVComponents[0] >= 2;
    m->uvs = uv ? malloc(nv * 2 * sizeof(float)) : NULL;
    m->faces = calloc(1, sizeof *m->faces);
    if (m->faces)
        m->faces->indices = malloc(((size_t)am->mNumFaces * 3 + 1) * sizeof(uint32_t));
    if (!m->positions || (am->mNormals && !m->normals) || (uv && !m->uvs) || !m->faces || !m->faces->indices)
        return am_fail_nomem(cv->err, "scene mesh");
    for (size_t v = 0; v < nv; v++) {
        m->positions[3 * v] = (float)am->mVertices[v].x;
        m->positions[3 * v + 1] = (float)am->mVertices[v].y;
        m->positions[3 * v + 2] = (float)am->mVertices[v].z;
        if (m->normals) {
            m->normals[3 * v] = (float)am->mNormals[v].x;
            m->normals[3 * v + 1] = (float)am->mNormals[v].y;
            m->normals[3 * v + 2] = (float)am->mNormals[v].z;
        }
        if (uv) {
            m->uvs[2 * v] = (float)am->mTextureCoords[0][v].x;
            m->uvs[2 * v + 1] = (float)am->mTextureCoords[0][v].y;
        }
    }
    m->face_count = 1;
    am_scene_face *face = m->faces;
    face->material = am->mMaterialIndex < cv->ai->mNumMaterials ? (int)am->mMaterialIndex : -1;
    size_t skipped = 0;
    for (unsigned f = 0; f < am->mNumFaces; f++) {
        const struct aiFace *af = &am->mFaces[f];
        if (af->mNumIndices != 3) {
            skipped++;
            continue;
        }
        for (int j = 0; j < 3; j++) {
            if (af->mIndices[j] >= nv)
                return fail(cv, "mesh '%s' face %u: index %u out of range (%zu vertices)", m->name, f, af->mIndices[j],
                            nv);
            face->indices[face->index_count++] = af->mIndices[j];
        }
    }
    if (skipped)
        am_scene_note(cv->scene, "mesh '%s': %zu point/line faces skipped (only triangles are read)", m->name, skipped);
    if (am->mNumAnimMeshes)
        am_scene_note(cv->scene, "mesh '%s': %u morph targets skipped", m->name, am->mNumAnimMeshes);
    return am->mNumBones ? convert_skin(cv, am, m, mesh_index) : AM_OK;
}

static am_status convert_meshes(ai_convert *cv)
{
    am_scene *s = cv->scene;
    size_t refs = 0, skinned = 0;
    for (size_t i = 0; i < s->node_count; i++)
        for (unsigned k = 0; k < cv->ai_nodes[i]->mNumMeshes; k++) {
            unsigned mi = cv->ai_nodes[i]->mMeshes[k];
            char nl[160];
            if (mi >= cv->ai->mNumMeshes)
                return fail(cv, "node '%s' refers to mesh %u, the file has %u",
                            am_scene_node_label(s, (int)i, nl, sizeof nl), mi, cv->ai->mNumMeshes);
            refs++;
            skinned += cv->ai->mMeshes[mi]->mNumBones > 0;
        }
    if (!refs)
        return AM_OK;
    s->meshes = calloc(refs, sizeof *s->meshes);
    s->skins = skinned ? calloc(skinned, sizeof *s->skins) : NULL;
    if (!s->meshes || (skinned && !s->skins))
        return am_fail_nomem(cv->err, "scene meshes");
    for (size_t i = 0; i < s->node_count; i++)
        for (unsigned k = 0; k < cv->ai_nodes[i]->mNumMeshes; k++) {
            am_scene_mesh *m = &s->meshes[s->mesh_count++];
            am_status st = convert_mesh(cv, i, cv->ai_nodes[i]->mMeshes[k], m);
            if (st)
                return st;
            if (m->vertex_count == 0) {
                am_scene_note(s, "mesh '%s' has no vertices: left out", m->name);
                free(m->name);
                free(m->faces);
                memset(m, 0, sizeof *m);
                s->mesh_count--;
            }
        }
    return AM_OK;
}

/* --- materials --------------------------------------------------------------------- */

static const struct aiTexture *embedded(const struct aiScene *ai, const char *path)
{
    if (path[0] == '*') {
        char *end;
        unsigned long i = strtoul(path + 1, &end, 10);
        return !*end && i < ai->mNumTextures ? ai->mTextures[i] : NULL;
    }
    const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
    if (strrchr(base, '\\'))
        base = strrchr(base, '\\') + 1;
    for (unsigned i = 0; i < ai->mNumTextures; i++) {
        const char *f = ai->mTextures[i]->mFilename.data;
        const char *fb = strrchr(f, '/') ? strrchr(f, '/') + 1 : f;
        if (strrchr(fb, '\\'))
            fb = strrchr(fb, '\\') + 1;
        if (f[0] && strcmp(fb, base) == 0)
            return ai->mTextures[i];
    }
    return NULL;
}

static am_status embedded_image(ai_convert *cv, const struct aiTexture *t, am_scene_material *m, const char *path)
{
    if (t->mHeight == 0) { /* compressed: mWidth bytes of a file format */
        const uint8_t *d = (const uint8_t *)t->pcData;
        const char *kind;
        am_image_type type = am_image_sniff(d, t->mWidth, &kind);
        if (type != AM_IMAGE_PNG && type != AM_IMAGE_JPEG) {
            am_scene_note(cv->scene, "material '%s': embedded texture '%.60s' is %s%s, not PNG/JPEG: untextured",
                          m->name, path, type == AM_IMAGE_OTHER ? "a " : "",
                          type == AM_IMAGE_OTHER ? kind : "not a recognised image");
            return AM_OK;
        }
        if (!(m->image_data = malloc(t->mWidth ? t->mWidth : 1)))
            return am_fail_nomem(cv->err, "embedded texture");
        memcpy(m->image_data, d, t->mWidth);
        m->image_size = t->mWidth;
        if (!am_string_set(&m->image_mime, am_image_mime(type)))
            return am_fail_nomem(cv->err, "texture type");
        return AM_OK;
    }
    /* Raw aiTexels (B, G, R, A): encoded as PNG so the scene carries a file format. */
    if (t->mWidth > 8192 || t->mHeight > 8192) {
        am_scene_note(cv->scene, "material '%s': embedded texture of %ux%u texels is too large: untextured", m->name,
                      t->mWidth, t->mHeight);
        return AM_OK;
    }
    am_tex_image img;
    am_status st = am_tex_image_alloc(&img, t->mWidth, t->mHeight, 4, cv->err);
    if (st)
        return st;
    for (size_t i = 0; i < (size_t)t->mWidth * t->mHeight; i++) {
        img.pixels[4 * i] = t->pcData[i].r;
        img.pixels[4 * i + 1] = t->pcData[i].g;
        img.pixels[4 * i + 2] = t->pcData[i].b;
        img.pixels[4 * i + 3] = t->pcData[i].a;
    }
    am_buf b = {0};
    st = am_tex_png_encode(&img, &b, cv->err);
    am_tex_image_free(&img);
    if (st) {
        am_buf_free(&b);
        return st;
    }
    m->image_data = b.data;
    m->image_size = b.size;
    if (!am_string_set(&m->image_mime, "image/png"))
        return am_fail_nomem(cv->err, "texture type");
    return AM_OK;
}

/* A texture file: its path as given inside the folder, else its base name there. */
static am_status file_image(ai_convert *cv, const char *path, am_scene_material *m)
{
    char *resolved = NULL;
    if (am_file_ref_resolve(cv->base_dir, path, false, &resolved, NULL)) {
        const char *base = path;
        for (const char *p = path; *p; p++)
            if (*p == '/' || *p == '\\')
                base = p + 1;
        if (!base[0] || am_file_ref_resolve(cv->base_dir, base, false, &resolved, NULL)) {
            am_scene_note(cv->scene, "material '%s': texture '%.80s' is not in the model's folder (nor '%.40s'): "
                          "untextured", m->name, path, base);
            return AM_OK;
        }
        am_scene_note(cv->scene, "material '%s': texture '%.60s' read as '%s' from the model's folder", m->name, path,
                      base);
    }
    uint8_t head[16] = {0};
    size_t got = 0; /* a FIFO or device there reads as nothing (refused without blocking) */
    if (am_read_file_head(resolved, head, sizeof head, &got, NULL, NULL))
        got = 0;
    const char *kind;
    am_image_type type = am_image_sniff(head, got, &kind);
    if (type != AM_IMAGE_PNG && type != AM_IMAGE_JPEG) {
        am_scene_note(cv->scene, "material '%s': texture '%.60s' is %s%s, not PNG/JPEG: untextured", m->name, path,
                      type == AM_IMAGE_OTHER ? "a " : "", type == AM_IMAGE_OTHER ? kind : "not a recognised image");
        free(resolved);
        return AM_OK;
    }
    m->image_path = resolved;
    if (!am_string_set(&m->image_mime, am_image_mime(type)))
        return am_fail_nomem(cv->err, "texture type");
    return AM_OK;
}

static am_status convert_material(ai_convert *cv, const struct aiMaterial *mat, am_scene_material *m)
{
    struct aiString name;
    if (cv->api->get_material_string(mat, AI_MATKEY_NAME, &name) != AI_SUCCESS)
        name.length = 0, name.data[0] = '\0';
    am_status st = dup_name(cv, &name, &m->name);
    if (st)
        return st;
    for (int k = 0; k < 4; k++)
        m->base_color[k] = 1.0;
    struct aiColor4D c;
    if (cv->api->get_material_color(mat, AI_MATKEY_BASE_COLOR, &c) == AI_SUCCESS ||
        cv->api->get_material_color(mat, AI_MATKEY_COLOR_DIFFUSE, &c) == AI_SUCCESS) {
        m->base_color[0] = c.r;
        m->base_color[1] = c.g;
        m->base_color[2] = c.b;
        m->base_color[3] = c.a;
    }
    ai_real opacity;
    unsigned one = 1;
    if (cv->api->get_material_float_array(mat, AI_MATKEY_OPACITY, &opacity, &one) == AI_SUCCESS && one == 1)
        m->base_color[3] = opacity;
    struct aiString path;
    enum aiTextureType type = cv->api->get_material_texture_count(mat, aiTextureType_BASE_COLOR) ? aiTextureType_BASE_COLOR
                                                                                          : aiTextureType_DIFFUSE;
    if (cv->api->get_material_texture_count(mat, type) == 0 ||
        cv->api->get_material_texture(mat, type, 0, &path, NULL, NULL, NULL, NULL, NULL, NULL) != AI_SUCCESS || !path.data[0])
        return AM_OK;
    const struct aiTexture *t = embedded(cv->ai, path.data);
    if (t)
        return embedded_image(cv, t, m, path.data);
    if (path.data[0] == '*') {
        am_scene_note(cv->scene, "material '%s': embedded texture '%s' is missing: untextured", m->name, path.data);
        return AM_OK;
    }
    return file_image(cv, path.data, m);
}

static am_status convert_materials(ai_convert *cv)
{
    unsigned n = cv->ai->mNumMaterials;
    if (!n)
        return AM_OK;
    cv->scene->materials = calloc(n, sizeof *cv->scene->materials);
    if (!cv->scene->materials)
        return am_fail_nomem(cv->err, "scene materials");
    cv->scene->material_count = n;
    for (unsigned i = 0; i < n; i++) {
        am_status st = convert_material(cv, cv->ai->mMaterials[i], &cv->scene->materials[i]);
        if (st)
            return st;
    }
    return AM_OK;
}

/* --- clips ------------------------------------------------------------------------- */

/* A node animation's position, rotation and scaling keys as up to 3 LINEAR channels. */
static am_status channels_of(ai_convert *cv, const struct aiNodeAnim *na, double tps, int node, am_scene_channel *out,
                             size_t *n)
{
    *n = 0;
    const unsigned counts[3] = {na->mNumPositionKeys, na->mNumRotationKeys, na->mNumScalingKeys};
    for (int p = 0; p < 3; p++) {
        if (!counts[p])
            continue;
        size_t w = p == AM_SCENE_PATH_ROTATION ? 4 : 3;
        am_scene_channel *ch = &out[(*n)++];
        ch->node = node;
        ch->path = (am_scene_path)p;
        ch->interp = AM_SCENE_INTERP_LINEAR;
        ch->key_count = counts[p];
        ch->times = malloc(counts[p] * sizeof(float));
        ch->values = malloc(counts[p] * w * sizeof(float));
        if (!ch->times || !ch->values)
            return am_fail_nomem(cv->err, "clip keys");
        for (unsigned k = 0; k < counts[p]; k++) {
            float *v = &ch->values[w * k];
            if (p == AM_SCENE_PATH_ROTATION) {
                const struct aiQuatKey *q = &na->mRotationKeys[k];
                ch->times[k] = (float)(q->mTime / tps);
                v[0] = (float)q->mValue.x, v[1] = (float)q->mValue.y, v[2] = (float)q->mValue.z;
                v[3] = (float)q->mValue.w; /* assimp is w-first in memory; stored x, y, z, w */
            } else {
                const struct aiVectorKey *key = p == 0 ? &na->mPositionKeys[k] : &na->mScalingKeys[k];
                ch->times[k] = (float)(key->mTime / tps);
                v[0] = (float)key->mValue.x, v[1] = (float)key->mValue.y, v[2] = (float)key->mValue.z;
            }
        }
    }
    return AM_OK;
}

static void free_channels(am_scene_channel *ch, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        free(ch[i].times);
        free(ch[i].values);
        ch[i].times = NULL;
        ch[i].values = NULL;
    }
}

static int cmp_float(const void *a, const void *b)
{
    float x = *(const float *)a, y = *(const float *)b;
    return x < y ? -1 : x > y;
}

/* One chain link's local matrix at time t: its rest TRS with its channels applied. */
static am_mat4 link_at(const am_mat4 *rest, const am_scene_channel *ch, size_t nch, double t)
{
    am_vec3 tr, sc;
    am_quat r;
    am_scene_decompose(rest, &tr, &r, &sc);
    for (size_t i = 0; i < nch; i++) {
        float v[4];
        am_scene_eval_channel(&ch[i], t, v);
        if (ch[i].path == AM_SCENE_PATH_TRANSLATION)
            tr = am_v3(v[0], v[1], v[2]);
        else if (ch[i].path == AM_SCENE_PATH_ROTATION)
            r = (am_quat){v[0], v[1], v[2], v[3]};
        else
            sc = am_v3(v[0], v[1], v[2]);
    }
    return am_mat4_from_trs(tr, r, sc);
}

/* A joint whose pivot helpers are animated: the chain (helpers outermost first, then the
 * joint) evaluated at every key time of any link, composed, decomposed into LINEAR keys. */
static am_status fold_animated_chain(ai_convert *cv, const struct aiAnimation *an, double tps, size_t node,
                                     am_scene_clip *clip)
{
    size_t links = cv->helper_count[node] + 1;
    am_scene_channel *tmp = calloc(3 * links, sizeof *tmp);
    size_t *nch = calloc(links, sizeof *nch);
    am_mat4 *rest = malloc(links * sizeof *rest);
    am_status st = (!tmp || !nch || !rest) ? am_fail_nomem(cv->err, "pivot folding") : AM_OK;
    size_t keys = 0;
    for (size_t l = 0; !st && l < links; l++) {
        const struct aiNode *nd = l + 1 < links ? cv->helpers[cv->helper_start[node] + l] : cv->ai_nodes[node];
        rest[l] = ll_from_ai(&nd->mTransformation);
        for (unsigned c = 0; !st && c < an->mNumChannels; c++)
            if (strcmp(an->mChannels[c]->mNodeName.data, nd->mName.data) == 0 && nch[l] == 0) {
                st = channels_of(cv, an->mChannels[c], tps, (int)node, &tmp[3 * l], &nch[l]);
                for (size_t i = 0; i < nch[l]; i++)
                    keys += tmp[3 * l + i].key_count;
            }
    }
    float *times = st ? NULL : malloc((keys ? keys : 1) * sizeof *times);
    if (!st && !times)
        st = am_fail_nomem(cv->err, "pivot folding");
    size_t nt = 0;
    for (size_t l = 0; !st && l < links; l++)
        for (size_t i = 0; i < nch[l]; i++)
            for (size_t k = 0; k < tmp[3 * l + i].key_count; k++)
                times[nt++] = tmp[3 * l + i].times[k];
    if (!st) {
        qsort(times, nt, sizeof *times, cmp_float);
        size_t u = 0;
        for (size_t i = 0; i < nt; i++)
            if (u == 0 || times[i] != times[u - 1])
                times[u++] = times[i];
        nt = u;
    }
    for (int p = 0; !st && p < 3 && nt; p++) {
        am_scene_channel *ch = &clip->channels[clip->channel_count++];
        ch->node = (int)node;
        ch->path = (am_scene_path)p;
        ch->interp = AM_SCENE_INTERP_LINEAR;
        ch->key_count = nt;
        ch->times = malloc(nt * sizeof(float));
        ch->values = malloc(nt * (p == 1 ? 4 : 3) * sizeof(float));
        if (!ch->times || !ch->values)
            st = am_fail_nomem(cv->err, "pivot folding");
        else
            memcpy(ch->times, times, nt * sizeof(float));
    }
    am_quat prev = am_quat_identity();
    for (size_t k = 0; !st && k < nt; k++) {
        am_mat4 m = link_at(&rest[links - 1], &tmp[3 * (links - 1)], nch[links - 1], times[k]);
        for (size_t l = links - 1; l-- > 0;) {
            am_mat4 h = link_at(&rest[l], &tmp[3 * l], nch[l], times[k]);
            m = am_mat4_mul(&m, &h);
        }
        am_vec3 t, s;
        am_quat r;
        char nl[160];
        if (!am_scene_decompose(&m, &t, &r, &s))
            am_scene_note(cv->scene, "node '%s': its folded pivot chain shears at %g s (decomposed approximately)",
                          am_scene_node_label(cv->scene, (int)node, nl, sizeof nl), (double)times[k]);
        if (k && am_quat_dot(r, prev) < 0) /* keep the keys on one hemisphere for lerp */
            r = (am_quat){-r.x, -r.y, -r.z, -r.w};
        prev = r;
        float *tv = clip->channels[clip->channel_count - 3].values, *rv = clip->channels[clip->channel_count - 2].values,
              *sv = clip->channels[clip->channel_count - 1].values;
        tv[3 * k] = (float)t.x, tv[3 * k + 1] = (float)t.y, tv[3 * k + 2] = (float)t.z;
        rv[4 * k] = (float)r.x, rv[4 * k + 1] = (float)r.y, rv[4 * k + 2] = (float)r.z, rv[4 * k + 3] = (float)r.w;
        sv[3 * k] = (float)s.x, sv[3 * k + 1] = (float)s.y, sv[3 * k + 2] = (float)s.z;
    }
    for (size_t l = 0; tmp && nch && l < links; l++)
        free_channels(&tmp[3 * l], nch[l]);
    free(tmp);
    free(nch);
    free(rest);
    free(times);
    return st;
}

/* Which scene node a channel's name is: the node itself, or the joint a folded helper of
 * that name belongs to (*via_helper). -1 when none. */
static int channel_target(const ai_convert *cv, const char *name, bool *via_helper)
{
    *via_helper = false;
    int n = am_scene_find_node(cv->scene, name);
    if (n >= 0)
        return n;
    for (size_t i = 0; i < cv->scene->node_count; i++)
        for (size_t h = 0; h < cv->helper_count[i]; h++)
            if (strcmp(cv->helpers[cv->helper_start[i] + h]->mName.data, name) == 0) {
                *via_helper = true;
                return (int)i;
            }
    return -1;
}

static am_status convert_clip(ai_convert *cv, size_t index, am_scene_clip *clip)
{
    const struct aiAnimation *an = cv->ai->mAnimations[index];
    am_scene *s = cv->scene;
    am_status st = dup_name(cv, &an->mName, &clip->name);
    if (st)
        return st;
    if (!clip->name[0]) {
        free(clip->name);
        char buf[32];
        snprintf(buf, sizeof buf, "clip%zu", index);
        if (!(clip->name = am_strdup(buf)))
            return am_fail_nomem(cv->err, "clip name");
    }
    double tps = an->mTicksPerSecond;
    if (!(tps > 0)) {
        tps = 25;
        am_scene_note(s, "clip '%s': no ticks per second: 25 assumed (assimp's default)", clip->name);
    }
    if (an->mNumMeshChannels || an->mNumMorphMeshChannels)
        am_scene_note(s, "clip '%s': mesh/morph channels skipped", clip->name);
    clip->channels = calloc(3 * (size_t)an->mNumChannels + 1, sizeof *clip->channels);
    uint8_t *done = calloc(s->node_count ? s->node_count : 1, 1);
    if (!clip->channels || !done) {
        free(done);
        return am_fail_nomem(cv->err, "clip channels");
    }
    size_t unknown = 0;
    for (unsigned c = 0; !st && c < an->mNumChannels; c++) {
        const struct aiNodeAnim *na = an->mChannels[c];
        bool via_helper;
        int node = channel_target(cv, na->mNodeName.data, &via_helper);
        if (node < 0) {
            unknown++;
            continue;
        }
        if (done[node])
            continue; /* a helper chain already folded with this channel */
        bool chain_animated = via_helper;
        for (unsigned o = 0; cv->helper_total && !chain_animated && o < an->mNumChannels; o++) {
            bool vh;
            chain_animated = o != c && channel_target(cv, an->mChannels[o]->mNodeName.data, &vh) == node && vh;
        }
        if (chain_animated || cv->helper_count[node]) {
            st = fold_animated_chain(cv, an, tps, (size_t)node, clip);
        } else {
            size_t n;
            st = channels_of(cv, na, tps, node, &clip->channels[clip->channel_count], &n);
            clip->channel_count += n;
            if (st)
                free_channels(&clip->channels[clip->channel_count - n], n);
        }
        done[node] = 1;
    }
    free(done);
    if (unknown)
        am_scene_note(s, "clip '%s': %zu channels name no node: skipped", clip->name, unknown);
    return st;
}

static am_status convert_clips(ai_convert *cv)
{
    unsigned n = cv->ai->mNumAnimations;
    if (!n)
        return AM_OK;
    cv->scene->clips = calloc(n, sizeof *cv->scene->clips);
    if (!cv->scene->clips)
        return am_fail_nomem(cv->err, "scene clips");
    for (unsigned i = 0; i < n; i++) {
        am_scene_clip *clip = &cv->scene->clips[cv->scene->clip_count++];
        am_status st = convert_clip(cv, i, clip);
        if (st)
            return st;
        if (clip->channel_count == 0) {
            am_scene_note(cv->scene, "clip '%s' animates no node: dropped", clip->name);
            free(clip->channels);
            free(clip->name);
            memset(clip, 0, sizeof *clip);
            cv->scene->clip_count--;
        }
    }
    return AM_OK;
}

/* --- declared frame and format ----------------------------------------------------- */

static bool meta_number(const struct aiMetadata *md, const char *key, double *out)
{
    for (unsigned i = 0; md && i < md->mNumProperties; i++) {
        if (strcmp(md->mKeys[i].data, key) != 0 || !md->mValues[i].mData)
            continue;
        const void *d = md->mValues[i].mData;
        switch (md->mValues[i].mType) {
        case AI_BOOL: *out = *(const bool *)d; return true;
        case AI_INT32: *out = *(const int32_t *)d; return true;
        case AI_UINT64: *out = (double)*(const uint64_t *)d; return true;
        case AI_FLOAT: *out = *(const float *)d; return true;
        case AI_DOUBLE: *out = *(const double *)d; return true;
        default: return false;
        }
    }
    return false;
}

static const char *meta_string(const struct aiMetadata *md, const char *key)
{
    for (unsigned i = 0; md && i < md->mNumProperties; i++)
        if (strcmp(md->mKeys[i].data, key) == 0 && md->mValues[i].mType == AI_AISTRING && md->mValues[i].mData)
            return ((const struct aiString *)md->mValues[i].mData)->data;
    return "";
}

static am_status declared_frame(ai_convert *cv)
{
    const struct aiMetadata *md = cv->ai->mMetaData;
    am_scene *s = cv->scene;
    double up, up_sign = 1, front, front_sign = 1, unit;
    if (meta_number(md, "UpAxis", &up) && up >= 0 && up <= 2) {
        meta_number(md, "UpAxisSign", &up_sign);
        s->declared.up = (int)(up + 1) * (up_sign < 0 ? -1 : 1);
    }
    if (meta_number(md, "FrontAxis", &front) && front >= 0 && front <= 2) {
        meta_number(md, "FrontAxisSign", &front_sign);
        s->declared.forward = (int)(front + 1) * (front_sign < 0 ? -1 : 1);
    }
    if (meta_number(md, "UnitScaleFactor", &unit) && unit > 0 && isfinite(unit))
        s->declared.unit_m = unit / 100.0; /* FBX: centimetres per file unit */
    const char *version = meta_string(md, "SourceAsset_FormatVersion");
    const char *generator = meta_string(md, "SourceAsset_Generator");
    const char *format = meta_string(md, "SourceAsset_Format");
    bool set = s->format == AM_SCENE_FORMAT_FBX
                   ? am_string_setf(&s->format_detail, "FBX %s%s%s", version, generator[0] ? ", " : "", generator)
                   : am_string_setf(&s->format_detail, "%s (assimp)", format[0] ? format : "assimp");
    return set ? AM_OK : am_fail_nomem(cv->err, "format detail");
}

am_status am_assimp_convert(ai_convert *cv)
{
    am_status st = convert_nodes(cv);
    if (!st)
        st = convert_materials(cv);
    if (!st)
        st = convert_meshes(cv);
    if (!st)
        st = convert_clips(cv);
    if (!st)
        st = declared_frame(cv);
    free(cv->ai_nodes);
    free(cv->helper_start);
    free(cv->helper_count);
    free(cv->helpers);
    return st;
}
