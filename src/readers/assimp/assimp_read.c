/* FBX and other formats through assimp (assimp_read.h): the FBX version gate, format
 * recognition, the file system assimp reads through (the model from memory, anything
 * else only inside the model's folder), and the import settings. */
#include <assimp/cfileio.h>
#include <assimp/cimport.h>
#include <assimp/config.h>
#include <assimp/postprocess.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "readers/assimp/assimp_internal.h"
#include "core/bytes.h"
#include "readers/assimp/assimp_lib.h"
#include "readers/assimp/fbx_graph.h"
#include "readers/file_ref.h"

am_status am_fbx_version(const uint8_t *d, size_t n, unsigned *version, am_error *err)
{
    *version = 0;
    static const char magic[] = "Kaydara FBX Binary  ";
    if (n >= 27 && memcmp(d, magic, 20) == 0) {
        *version = am_le_u32(d + 23);
        return AM_OK;
    }
    /* ASCII: "FBXVersion: 6100" inside FBXHeaderExtension, near the top. */
    size_t limit = n < 65536 ? n : 65536;
    static const char key[] = "FBXVersion:";
    for (size_t i = 0; i + sizeof key - 1 < limit; i++)
        if (memcmp(d + i, key, sizeof key - 1) == 0) {
            size_t j = i + sizeof key - 1;
            while (j < limit && (d[j] == ' ' || d[j] == '\t'))
                j++;
            unsigned v = 0;
            size_t digits = 0;
            while (j < limit && d[j] >= '0' && d[j] <= '9' && digits < 7) {
                v = v * 10 + (unsigned)(d[j++] - '0');
                digits++;
            }
            if (digits) {
                *version = v;
                return AM_OK;
            }
        }
    return am_fail(err, AM_ERR_INVALID, "no FBX version found (neither a binary FBX header nor 'FBXVersion:')");
}

static bool has_extension(const char *path, const char *ext)
{
    size_t n = strlen(path), e = strlen(ext);
    return n >= e && strcasecmp(path + n - e, ext) == 0;
}

bool am_assimp_recognise(const uint8_t *head, size_t n, const char *path)
{
    if (n >= 4 && memcmp(head, "xof ", 4) == 0)
        return true; /* DirectX .x */
    if (n >= 16 && memcmp(head, "INTERQUAKEMODEL", 16) == 0)
        return true;
    if (n >= 10 && memcmp(head, "MS3D000000", 10) == 0)
        return true;
    if (n >= 4 && memcmp(head, "BB3D", 4) == 0)
        return true;
    static const char *ext[] = {".x", ".md5mesh", ".smd", ".ms3d", ".b3d", ".iqm"};
    for (size_t i = 0; i < sizeof ext / sizeof ext[0]; i++)
        if (has_extension(path, ext[i]))
            return true;
    return false;
}

/* --- the file system assimp reads through -------------------------------------------- */

typedef struct io_ctx {
    const uint8_t *model;
    size_t model_size;
    const char *source;
    const char *base_dir;
    am_scene *scene;
} io_ctx;

typedef struct mem_file {
    const uint8_t *data;
    size_t size, pos;
    uint8_t *owned;
} mem_file;

static size_t file_read(struct aiFile *f, char *buf, size_t size, size_t count)
{
    mem_file *m = (mem_file *)f->UserData;
    if (size == 0)
        return 0;
    size_t avail = (m->size - m->pos) / size;
    size_t take = count < avail ? count : avail;
    memcpy(buf, m->data + m->pos, take * size);
    m->pos += take * size;
    return take;
}

static size_t file_write(struct aiFile *f, const char *buf, size_t size, size_t count) { return 0; }
static size_t file_tell(struct aiFile *f) { return ((mem_file *)f->UserData)->pos; }
static size_t file_size(struct aiFile *f) { return ((mem_file *)f->UserData)->size; }
static void file_flush(struct aiFile *f) {}

static enum aiReturn file_seek(struct aiFile *f, size_t offset, enum aiOrigin origin)
{
    mem_file *m = (mem_file *)f->UserData;
    size_t base = origin == aiOrigin_SET ? 0 : origin == aiOrigin_CUR ? m->pos : m->size;
    if (origin != aiOrigin_SET && origin != aiOrigin_CUR && origin != aiOrigin_END)
        return aiReturn_FAILURE;
    if (offset > m->size - base) /* assimp passes only forward offsets */
        return aiReturn_FAILURE;
    m->pos = base + offset;
    return aiReturn_SUCCESS;
}

static struct aiFile *open_file(struct aiFileIO *io, const char *name, const char *mode)
{
    io_ctx *c = (io_ctx *)io->UserData;
    if (!name || !mode || strchr(mode, 'w') || strchr(mode, 'a') || strchr(mode, '+'))
        return NULL; /* read only */
    mem_file *m = calloc(1, sizeof *m);
    struct aiFile *f = calloc(1, sizeof *f);
    if (!m || !f) {
        free(m);
        free(f);
        return NULL;
    }
    if (strcmp(name, c->source) == 0) {
        m->data = c->model;
        m->size = c->model_size;
    } else {
        /* assimp joins references onto the model's folder: take the part after it. */
        const char *rel = name;
        size_t bn = strlen(c->base_dir);
        if (strncmp(name, c->base_dir, bn) == 0 && (name[bn] == '/' || name[bn] == '\\'))
            rel = name + bn + 1;
        am_error e;
        am_error_clear(&e);
        size_t size;
        if (am_file_ref_read(c->base_dir, rel, false, AM_ASSIMP_MAX_EXTRA_FILE_BYTES, &m->owned, &size, NULL, &e)) {
            if (e.code == AM_ERR_INVALID)
                am_scene_note(c->scene, "assimp asked for '%.80s': %s", rel, e.msg);
            free(m);
            free(f);
            return NULL;
        }
        m->data = m->owned;
        m->size = size;
    }
    f->ReadProc = file_read;
    f->WriteProc = file_write;
    f->TellProc = file_tell;
    f->FileSizeProc = file_size;
    f->SeekProc = file_seek;
    f->FlushProc = file_flush;
    f->UserData = (aiUserData)m;
    return f;
}

static void close_file(struct aiFileIO *io, struct aiFile *f)
{
    if (!f)
        return;
    mem_file *m = (mem_file *)f->UserData;
    free(m->owned);
    free(m);
    free(f);
}

/* --- entry ------------------------------------------------------------------------- */

/* Nodes in the tree, walked with a stack of its own (a file may nest nodes deeper than
 * the C stack would take); 0 when out of memory (only a message uses it). */
static unsigned count_nodes(const struct aiNode *root)
{
    size_t cap = 64, top = 0;
    const struct aiNode **stack = malloc(cap * sizeof *stack);
    if (!stack)
        return 0;
    unsigned k = 0;
    stack[top++] = root;
    while (top) {
        const struct aiNode *n = stack[--top];
        k++;
        for (unsigned i = 0; i < n->mNumChildren; i++) {
            if (top == cap) {
                const struct aiNode **grown = realloc(stack, 2 * cap * sizeof *stack);
                if (!grown) {
                    free(stack);
                    return 0;
                }
                stack = grown;
                cap *= 2;
            }
            stack[top++] = n->mChildren[i];
        }
    }
    free(stack);
    return k;
}

static unsigned animations_with_keys(const struct aiScene *ai)
{
    unsigned k = 0;
    for (unsigned i = 0; i < ai->mNumAnimations; i++) {
        const struct aiAnimation *a = ai->mAnimations[i];
        bool keys = false;
        for (unsigned c = 0; a && c < a->mNumChannels && !keys; c++) {
            const struct aiNodeAnim *na = a->mChannels[c];
            keys = na && (na->mNumRotationKeys || na->mNumPositionKeys || na->mNumScalingKeys);
        }
        k += keys;
    }
    return k;
}

/* A skeleton (a node below the root) and an animation with keys, no mesh: a motion. */
static bool motion_only(const struct aiScene *ai)
{
    return ai->mNumMeshes == 0 && ai->mRootNode->mNumChildren > 0 && animations_with_keys(ai) > 0;
}

static am_status fail_at_source(am_error *err, const char *source, am_status st)
{
    am_error_where(err, "%s", source);
    return st;
}

am_status am_assimp_read_ex(const uint8_t *data, size_t size, const char *source, const char *base_dir,
                            am_scene_format format, const am_assimp_options *opt, am_scene *out, am_error *err)
{
    if (!source)
        return am_fail(err, AM_ERR_USAGE, "assimp reader: the model's path is required");
    if (!base_dir)
        base_dir = ".";
    if (size > AM_ASSIMP_MAX_FILE_BYTES)
        return fail_at_source(err, source,
                              am_fail(err, AM_ERR_INVALID, "%zu bytes is over the %zu MiB limit", size,
                                      AM_ASSIMP_MAX_FILE_BYTES >> 20));
    out->format = format;
    if (format == AM_SCENE_FORMAT_FBX) {
        unsigned v;
        if (am_fbx_version(data, size, &v, err))
            return fail_at_source(err, source, AM_ERR_INVALID);
        if (v < 7100)
            return fail_at_source(
                err, source,
                am_fail(err, AM_ERR_INVALID,
                        "FBX version %u (FBX %u.%u) is older than 7.1, which the FBX reader (assimp 5.2) needs: "
                        "re-export it as FBX 2011 (7.1) or newer, or as glTF",
                        v, v / 1000, v / 100 % 10));
        /* a node graph assimp would expand without bound: refused before it runs */
        if (am_fbx_check_graph(data, size, NULL, err)) {
            am_error_where(err, "Connections");
            return fail_at_source(err, source, AM_ERR_INVALID);
        }
    }
    am_assimp_api api;
    if (am_assimp_open(&api, err))
        return fail_at_source(err, source, AM_ERR_IO);
    io_ctx ioc = {data, size, source, base_dir, out};
    struct aiFileIO io = {open_file, close_file, (aiUserData)&ioc};
    struct aiPropertyStore *props = api.create_property_store();
    if (!props)
        return am_fail_nomem(err, "assimp properties");
    api.set_import_property_integer(props, AI_CONFIG_IMPORT_REMOVE_EMPTY_BONES, 0);
    api.set_import_property_integer(props, AI_CONFIG_IMPORT_FBX_PRESERVE_PIVOTS, opt && opt->preserve_pivots);
    api.set_import_property_integer(props, AI_CONFIG_FBX_CONVERT_TO_M, 0);
    /* Triangulate only: never aiProcess_JoinIdenticalVertices (breaks weights, #4557). */
    const struct aiScene *ai = api.import_file_ex_with_properties(source, aiProcess_Triangulate, &io, props);
    api.release_property_store(props);
    if (!ai)
        return fail_at_source(err, source, am_fail(err, AM_ERR_INVALID, "assimp could not read it: %.200s",
                                                   api.get_error_string()));
    am_status st;
    if (!ai->mRootNode) {
        st = fail_at_source(err, source, am_fail(err, AM_ERR_INVALID, "assimp read no node tree"));
    } else if ((ai->mFlags & AI_SCENE_FLAGS_INCOMPLETE) && !motion_only(ai)) {
        unsigned nodes = count_nodes(ai->mRootNode), anims = animations_with_keys(ai);
        /* assimp flags any scene without meshes "incomplete": a motion-only file (Mixamo's
         * "without skin" MotionOnlyScene, an animation pack) has joints and clips, and is
         * taken; anything else is said for what it holds */
        st = fail_at_source(err, source,
                            am_fail(err, AM_ERR_INVALID,
                                    "no mesh and no motion: %u node%s, %u animation%s with keys (a model needs a mesh, a "
                                    "motion needs a skeleton and at least one animation)",
                                    nodes, nodes == 1 ? "" : "s", anims, anims == 1 ? "" : "s"));
    } else {
        ai_convert cv = {.ai = ai, .api = &api, .scene = out, .err = err, .source = source, .base_dir = base_dir};
        st = am_assimp_convert(&cv);
    }
    api.release_import(ai);
    return st;
}

am_status am_fbx_read(const uint8_t *data, size_t size, const char *source, const char *base_dir, am_scene *out,
                      am_error *err)
{
    return am_assimp_read_ex(data, size, source, base_dir, AM_SCENE_FORMAT_FBX, NULL, out, err);
}

am_status am_assimp_read(const uint8_t *data, size_t size, const char *source, const char *base_dir, am_scene *out,
                         am_error *err)
{
    return am_assimp_read_ex(data, size, source, base_dir, AM_SCENE_FORMAT_ASSIMP, NULL, out, err);
}
