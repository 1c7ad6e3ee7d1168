/* Field-by-field scene comparison (scene_compare.h). */
#include "scene_compare.h"

#include <stdio.h>
#include <string.h>

#include "test_support.h"

static void differs(const char *field)
{
    fail_msg("scenes differ at %s", field);
}

static void same_str(const char *a, const char *b, const char *field)
{
    if ((a == NULL) != (b == NULL) || (a && strcmp(a, b) != 0)) {
        char msg[600];
        snprintf(msg, sizeof msg, "%s ('%.200s' vs '%.200s')", field, a ? a : "(null)", b ? b : "(null)");
        differs(msg);
    }
}

/* Optional arrays: both NULL, or both present with the same bytes. */
static void same_bytes(const void *a, const void *b, size_t n, const char *field)
{
    if ((a == NULL) != (b == NULL) || (a && n && memcmp(a, b, n) != 0))
        differs(field);
}

#define FIELD(buf, ...) (snprintf(buf, sizeof buf, __VA_ARGS__), buf)
#define SAME(x, field)                                                                                     \
    do {                                                                                                   \
        if (memcmp(&a->x, &b->x, sizeof a->x) != 0)                                                        \
            differs(field);                                                                                \
    } while (0)

static void same_node(const am_scene_node *a, const am_scene_node *b, size_t i)
{
    char f[128];
    same_str(a->name, b->name, FIELD(f, "nodes[%zu].name", i));
    same_str(a->sid, b->sid, FIELD(f, "nodes[%zu].sid", i));
    SAME(parent, FIELD(f, "nodes[%zu].parent", i));
    SAME(local, FIELD(f, "nodes[%zu].local", i));
    SAME(translation, FIELD(f, "nodes[%zu].translation", i));
    SAME(rotation, FIELD(f, "nodes[%zu].rotation", i));
    SAME(scale, FIELD(f, "nodes[%zu].scale", i));
    SAME(has_trs, FIELD(f, "nodes[%zu].has_trs", i));
    SAME(is_joint, FIELD(f, "nodes[%zu].is_joint", i));
    SAME(has_file_index, FIELD(f, "nodes[%zu].has_file_index", i));
    SAME(file_index, FIELD(f, "nodes[%zu].file_index", i));
    SAME(world, FIELD(f, "nodes[%zu].world", i));
}

static void same_material(const am_scene_material *a, const am_scene_material *b, size_t i)
{
    char f[128];
    same_str(a->name, b->name, FIELD(f, "materials[%zu].name", i));
    SAME(base_color, FIELD(f, "materials[%zu].base_color", i));
    same_str(a->image_path, b->image_path, FIELD(f, "materials[%zu].image_path", i));
    SAME(image_size, FIELD(f, "materials[%zu].image_size", i));
    same_bytes(a->image_data, b->image_data, a->image_size, FIELD(f, "materials[%zu].image_data", i));
    same_str(am_str(&a->image_mime), am_str(&b->image_mime), FIELD(f, "materials[%zu].image_mime", i));
}

static void same_mesh(const am_scene_mesh *a, const am_scene_mesh *b, size_t i)
{
    char f[128];
    same_str(a->name, b->name, FIELD(f, "meshes[%zu].name", i));
    SAME(node, FIELD(f, "meshes[%zu].node", i));
    SAME(vertex_count, FIELD(f, "meshes[%zu].vertex_count", i));
    size_t vc = a->vertex_count;
    same_bytes(a->positions, b->positions, 3 * vc * sizeof(float), FIELD(f, "meshes[%zu].positions", i));
    same_bytes(a->normals, b->normals, 3 * vc * sizeof(float), FIELD(f, "meshes[%zu].normals", i));
    same_bytes(a->uvs, b->uvs, 2 * vc * sizeof(float), FIELD(f, "meshes[%zu].uvs", i));
    SAME(face_count, FIELD(f, "meshes[%zu].face_count", i));
    for (size_t k = 0; k < a->face_count; k++) {
        SAME(faces[k].material, FIELD(f, "meshes[%zu].faces[%zu].material", i, k));
        SAME(faces[k].index_count, FIELD(f, "meshes[%zu].faces[%zu].index_count", i, k));
        same_bytes(a->faces[k].indices, b->faces[k].indices, a->faces[k].index_count * sizeof(uint32_t),
                   FIELD(f, "meshes[%zu].faces[%zu].indices", i, k));
    }
    SAME(skin, FIELD(f, "meshes[%zu].skin", i));
    same_bytes(a->influence_start, b->influence_start, a->influence_start ? (vc + 1) * sizeof(size_t) : 0,
               FIELD(f, "meshes[%zu].influence_start", i));
    size_t ni = a->influence_start ? a->influence_start[vc] : 0;
    same_bytes(a->influences, b->influences, ni * sizeof *a->influences, FIELD(f, "meshes[%zu].influences", i));
    same_bytes(a->source_position, b->source_position, vc * sizeof(uint32_t),
               FIELD(f, "meshes[%zu].source_position", i));
}

static void same_skin(const am_scene_skin *a, const am_scene_skin *b, size_t i)
{
    char f[128];
    same_str(a->name, b->name, FIELD(f, "skins[%zu].name", i));
    SAME(joint_count, FIELD(f, "skins[%zu].joint_count", i));
    size_t jc = a->joint_count;
    if ((a->joint_names == NULL) != (b->joint_names == NULL))
        differs(FIELD(f, "skins[%zu].joint_names", i));
    for (size_t j = 0; a->joint_names && j < jc; j++)
        same_str(a->joint_names[j], b->joint_names[j], FIELD(f, "skins[%zu].joint_names[%zu]", i, j));
    same_bytes(a->joint_nodes, b->joint_nodes, jc * sizeof(int), FIELD(f, "skins[%zu].joint_nodes", i));
    same_bytes(a->inverse_binds, b->inverse_binds, jc * sizeof(am_mat4), FIELD(f, "skins[%zu].inverse_binds", i));
    SAME(has_inverse_binds, FIELD(f, "skins[%zu].has_inverse_binds", i));
    SAME(bind_shape, FIELD(f, "skins[%zu].bind_shape", i));
    SAME(skeleton_root, FIELD(f, "skins[%zu].skeleton_root", i));
    same_bytes(a->upload_positions, b->upload_positions, jc * sizeof(am_vec3),
               FIELD(f, "skins[%zu].upload_positions", i));
    same_bytes(a->upload_position_found, b->upload_position_found, jc * sizeof(bool),
               FIELD(f, "skins[%zu].upload_position_found", i));
}

static size_t key_floats(const am_scene_channel *c)
{
    size_t w = c->path == AM_SCENE_PATH_ROTATION ? 4 : 3;
    return c->interp == AM_SCENE_INTERP_CUBICSPLINE ? 3 * w : w;
}

static void same_clip(const am_scene_clip *a, const am_scene_clip *b, size_t i)
{
    char f[128];
    same_str(a->name, b->name, FIELD(f, "clips[%zu].name", i));
    SAME(channel_count, FIELD(f, "clips[%zu].channel_count", i));
    for (size_t c = 0; c < a->channel_count; c++) {
        SAME(channels[c].node, FIELD(f, "clips[%zu].channels[%zu].node", i, c));
        SAME(channels[c].path, FIELD(f, "clips[%zu].channels[%zu].path", i, c));
        SAME(channels[c].interp, FIELD(f, "clips[%zu].channels[%zu].interp", i, c));
        SAME(channels[c].key_count, FIELD(f, "clips[%zu].channels[%zu].key_count", i, c));
        const am_scene_channel *x = &a->channels[c], *y = &b->channels[c];
        same_bytes(x->times, y->times, x->key_count * sizeof(float), FIELD(f, "clips[%zu].channels[%zu].times", i, c));
        same_bytes(x->values, y->values, x->key_count * key_floats(x) * sizeof(float),
                   FIELD(f, "clips[%zu].channels[%zu].values", i, c));
    }
    SAME(start_s, FIELD(f, "clips[%zu].start_s", i));
    SAME(end_s, FIELD(f, "clips[%zu].end_s", i));
}

void am_test_assert_scenes_equal(const am_scene *a, const am_scene *b)
{
    char f[128];
    same_str(a->source, b->source, "source");
    same_str(a->base_dir, b->base_dir, "base_dir");
    SAME(format, "format");
    same_str(am_str(&a->format_detail), am_str(&b->format_detail), "format_detail");
    SAME(node_count, "node_count");
    for (size_t i = 0; i < a->node_count; i++)
        same_node(&a->nodes[i], &b->nodes[i], i);
    SAME(material_count, "material_count");
    for (size_t i = 0; i < a->material_count; i++)
        same_material(&a->materials[i], &b->materials[i], i);
    SAME(mesh_count, "mesh_count");
    for (size_t i = 0; i < a->mesh_count; i++)
        same_mesh(&a->meshes[i], &b->meshes[i], i);
    SAME(skin_count, "skin_count");
    for (size_t i = 0; i < a->skin_count; i++)
        same_skin(&a->skins[i], &b->skins[i], i);
    SAME(clip_count, "clip_count");
    for (size_t i = 0; i < a->clip_count; i++)
        same_clip(&a->clips[i], &b->clips[i], i);
    SAME(declared, "declared");
    SAME(note_count, "note_count");
    for (size_t i = 0; i < a->note_count; i++)
        same_str(am_str(&a->notes[i]), am_str(&b->notes[i]), FIELD(f, "notes[%zu]", i));
    SAME(notes_dropped, "notes_dropped");
}
