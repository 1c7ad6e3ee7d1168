/* animesh/scene.h: the scene model every reader fills, and loading a model file into it.
 *
 * The scene: ONE data model every importer fills (COLLADA, glTF/GLB, FBX through assimp,
 * BVH, OBJ) and everything after an import reads (joint mapping, retargeting, binding, the
 * rig for the skin builder). The flow, model file -> scene -> rig -> skin -> writers:
 *
 *     model file --reader--> am_scene --am_scene_finish--> validated, world transforms
 *                               |
 *           map + axes + retarget (or faithful, for files rigged to the viewer skeleton)
 *                               v
 *                  am_rig (skin/rig.h) --am_skin_build--> .llmesh .dae meshdata
 *                  clips --retarget--> am_motion --> .anim
 *
 * Like cgltf_data and ufbx_scene: plain arrays of structs with counts, relations are
 * indices into those arrays, every pointer owned by the scene (am_scene_free frees it
 * all). A test can build a scene by hand and push it through the whole pipeline without
 * any file.
 *
 * UNITS AND AXES are the FILE's: a reader stores positions, transforms, inverse binds and
 * clips exactly as the file gives them (after format-defined conventions such as COLLADA's
 * row-major matrices) and records what the file DECLARES in `declared`. Converting to the
 * viewer frame (metres, Z up, X forward, Y left) is a separate, reported step (never a
 * silent guess by a reader).
 *
 * MATRICES use the project's LL layout (src/math/am_math.h: row vectors, translation in
 * m[12..14]); a reader transposes a file's column-vector matrices on the way in.
 *
 * ORDER: nodes are stored parents first (a node's parent has a smaller index), so one
 * pass in index order computes world transforms; readers that meet nodes in another order
 * reorder them (am_scene_finish refuses a scene that breaks the rule).
 */
#ifndef AM_ANIMESH_SCENE_H
#define AM_ANIMESH_SCENE_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "animesh/core.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum am_scene_format {
    AM_SCENE_FORMAT_UNKNOWN = 0,
    AM_SCENE_FORMAT_COLLADA,
    AM_SCENE_FORMAT_GLTF,
    AM_SCENE_FORMAT_FBX,   /* through assimp */
    AM_SCENE_FORMAT_ASSIMP,/* another format assimp reads */
    AM_SCENE_FORMAT_BVH,
    AM_SCENE_FORMAT_OBJ
} am_scene_format;

typedef struct am_scene_node {
    char *name;            /* as in the file; "" when unnamed (never NULL) */
    char *sid;             /* COLLADA `sid` (NULL when absent or another format) */
    int parent;            /* index into am_scene.nodes, < own index; -1 at a root */
    /* The rest local transform. `local` is authoritative (a COLLADA transform stack or a
     * glTF matrix may not decompose); `translation`/`rotation`/`scale` are its
     * decomposition (local = S, then R, then T for a row vector) and are what clip
     * channels replace. `has_trs` is false when the decomposition is not exact (shear):
     * such a node cannot be animated. */
    am_mat4 local;
    am_vec3 translation;
    am_quat rotation;
    am_vec3 scale;
    bool has_trs;
    bool is_joint;         /* named by a skin, or typed as a joint/bone by the file */
    /* The node's index in the file's own node list (glTF nodes[i]), when the format has
     * one and the reader reordered the nodes: what "#N" names for a user. */
    bool has_file_index;
    int file_index;
    am_mat4 world;         /* filled by am_scene_finish: local, then the parents' (LL layout) */
} am_scene_node;

typedef struct am_scene_material {
    char *name;            /* as in the file; "" when unnamed */
    double base_color[4];  /* RGBA 0..1 as the file gives it (default 1 1 1 1) */
    /* The base colour texture, when the material has one: either a file (resolved path,
     * checked by the reader to lie inside the model's folder) or bytes embedded in the
     * model (glTF bufferView / data URI, FBX embedded texture). */
    char *image_path;      /* NULL when none or embedded */
    uint8_t *image_data;   /* NULL when none or a file */
    size_t image_size;
    am_string image_mime;  /* "image/png", "image/jpeg", or "" when unknown */
} am_scene_material;

/* One face of a mesh: the triangles of one material (the viewer's "face"). */
typedef struct am_scene_face {
    int material;          /* index into am_scene.materials, -1 when none */
    size_t index_count;    /* multiple of 3 */
    uint32_t *indices;     /* into the mesh's vertices */
} am_scene_face;

typedef struct am_scene_influence {
    uint32_t joint;        /* index into the mesh's skin's joints */
    float weight;          /* as the file gives it (>= 0; not normalised, not capped) */
} am_scene_influence;

typedef struct am_scene_mesh {
    char *name;
    int node;              /* the node that places the mesh, -1 when none */
    size_t vertex_count;
    float *positions;      /* 3 per vertex, the mesh's own space, file units */
    float *normals;        /* 3 per vertex, or NULL */
    float *uvs;            /* 2 per vertex, or NULL; v up (OpenGL/SL convention: a reader
                              of a v-down format such as glTF stores 1 - v) */
    am_scene_face *faces;
    size_t face_count;
    int skin;              /* index into am_scene.skins, -1 when not skinned */
    /* Influences of vertex v: influences[influence_start[v] .. influence_start[v + 1]).
     * Both NULL when not skinned. */
    size_t *influence_start;
    am_scene_influence *influences;
    /* Optional: per vertex, the index of the position it came from in the file (COLLADA
     * keys weights by position: docs/reference/collada-upload.md#weights). NULL when not applicable. */
    uint32_t *source_position;
} am_scene_mesh;

typedef struct am_scene_skin {
    char *name;
    size_t joint_count;
    char **joint_names;    /* as the skin lists them (COLLADA Name_array / IDREF targets;
                              glTF / FBX: the joint node's name) */
    int *joint_nodes;      /* node per joint, -1 when the joint has no node in the scene */
    am_mat4 *inverse_binds;/* per joint, LL layout (identity when the file gives none) */
    bool has_inverse_binds;
    am_mat4 bind_shape;    /* LL layout; identity for formats without one */
    int skeleton_root;     /* node the file names as the skeleton root, -1 when none */
    /* Optional, COLLADA: the joint position the viewer's uploader takes for each joint with
     * "include joint positions" (docs/reference/collada-upload.md#finding-joint-nodes and
     * #joint-positions: a node's own local translation found by its rules; (0, 0, 0) when it finds
     * none). NULL elsewhere. */
    am_vec3 *upload_positions;
    bool *upload_position_found; /* false: the uploader falls back to (0, 0, 0) */
} am_scene_skin;

typedef enum am_scene_path {
    AM_SCENE_PATH_TRANSLATION = 0, /* 3 values per key */
    AM_SCENE_PATH_ROTATION = 1,    /* 4 values per key: quaternion x, y, z, w */
    AM_SCENE_PATH_SCALE = 2        /* 3 values per key */
} am_scene_path;

typedef enum am_scene_interp {
    AM_SCENE_INTERP_LINEAR = 0,    /* lerp; rotations slerp (shortest arc) */
    AM_SCENE_INTERP_STEP = 1,      /* hold the previous key */
    AM_SCENE_INTERP_CUBICSPLINE = 2/* glTF 2.0 Hermite: per key in-tangent, value,
                                      out-tangent; rotations normalised after */
} am_scene_interp;

typedef struct am_scene_channel {
    int node;              /* target node */
    am_scene_path path;
    am_scene_interp interp;
    size_t key_count;      /* >= 1 */
    float *times;          /* seconds, non-decreasing */
    float *values;         /* key_count * width (CUBICSPLINE: 3 * key_count * width, in
                              glTF order: in-tangent, value, out-tangent per key) */
} am_scene_channel;

typedef struct am_scene_clip {
    char *name;            /* as in the file; a reader names an unnamed clip "clip<N>" */
    am_scene_channel *channels;
    size_t channel_count;
    double start_s, end_s; /* the clip's time range (first and last key over channels) */
} am_scene_clip;

/* What the FILE declares about its frame (not what detection concludes). */
typedef struct am_scene_declared {
    int up;                /* +-1 X, +-2 Y, +-3 Z (sign = direction); 0 when not declared */
    int forward;           /* same coding; 0 when not declared */
    double unit_m;         /* metres per file unit; 0 when not declared */
} am_scene_declared;

/* Distinct notes a scene keeps (each one whole): a hostile file can make one per line or
 * node, and every note is compared with the kept ones; the rest are counted in
 * notes_dropped. */
#define AM_SCENE_MAX_NOTES 4096

typedef struct am_scene {
    char *source;          /* the file (for messages) */
    char *base_dir;        /* its folder: external files must resolve inside it */
    am_scene_format format;
    am_string format_detail; /* e.g. "COLLADA 1.4.1, Blender 2.79 (Avastar 2.0)", "FBX 7400" */

    am_scene_node *nodes;
    size_t node_count;
    am_scene_mesh *meshes;
    size_t mesh_count;
    am_scene_skin *skins;
    size_t skin_count;
    am_scene_material *materials;
    size_t material_count;
    am_scene_clip *clips;
    size_t clip_count;

    am_scene_declared declared;

    /* Quirks the reader met and handled, one sentence each ("polylist count 12 is the
     * triangle count, the vcount list has 6 polygons: read from vcount"). */
    am_string *notes;
    size_t note_count;
    size_t note_cap;
    size_t notes_dropped;  /* beyond AM_SCENE_MAX_NOTES or lost for want of memory (the
                              import reports them as a count) */

    /* Borrowed, optional, only while a reader runs (am_scene_load_ex sets it, then clears
     * it): the viewer skeleton, for formats whose reading rules depend on the viewer's
     * joint names (COLLADA: the uploader's legal-joint map decides which nodes are joints
     * and which alias a joint position is stored under). Readers must work without it. */
    const struct am_skeleton *skeleton;
} am_scene;

AM_API void am_scene_free(am_scene *scene);

/* Validate every cross-reference and value, then compute node world matrices (readers
 * call it last; a hand-built scene calls it before use). Refused, naming the element:
 * a parent not before its child, an index out of range (face index >= vertex_count,
 * influence joint >= joint_count, skin/material/node reference), a non-finite value in a
 * position, normal, UV, weight, matrix or key, a negative weight, clip times that
 * decrease, a channel on a node without an exact TRS, a rotation key of zero length, a
 * coordinate or matrix entry beyond AM_SCENE_MAX_COORD.
 * A scene with no mesh and no joint (a motion-only file) gets its joints here: every node
 * a clip animates and every node below one. */
AM_API am_status am_scene_finish(am_scene *scene, am_error *err);

/* Node index by exact name (first match), -1 when none. */
AM_API int am_scene_find_node(const am_scene *scene, const char *name);

/* Load a model file: sniff, check the size limit, read, validate. `out` is zeroed first and
 * empty after a failure. Unreadable file -> AM_ERR_IO; unknown or unsupported format, or
 * invalid content -> AM_ERR_INVALID naming the file. */
AM_API am_status am_scene_load(const char *path, am_scene *out, am_error *err);

/* Where the assimp readers (FBX, .x, MD5, SMD, MilkShape, Blitz3D, IQM) run. The other
 * readers always run in the caller's process (they are ours, bounds-checked and fuzzed). */
typedef enum am_scene_reader_process {
    /* The default (zero): in a forked child under memory, CPU and wall-clock limits
     * (readers/assimp/assimp_child.h), so a file that crashes assimp is an error naming the
     * file, never the caller's crash. The CLI runs them so. */
    AM_SCENE_READER_IN_CHILD = 0,
    /* In the caller's process, no fork, no limits: for a program that must not fork (a
     * sandbox, threads loading libraries meanwhile) and reads only files it trusts; a hostile
     * file can crash it. The scene is the same as the child's. */
    AM_SCENE_READER_IN_PROCESS = 1,
} am_scene_reader_process;

/* Options of a load (all optional; zero = defaults). */
/* Zeroed, the defaults (core/option.h). */
typedef struct am_scene_load_options {
    /* The viewer skeleton, handed to the reader while it runs (am_scene.skeleton): COLLADA
     * uses it to find joint positions exactly as the viewer's uploader does (its
     * legal-joint map); without it names are matched as written. Borrowed. */
    const struct am_skeleton *skeleton;
    /* Weld every mesh after reading (scene/weld.h: corners merged where the viewer's
     * uploader merges vertices, a scene note saying how many), for the commands that turn
     * the scene into faces and LODs; a COLLADA scene is welded by its reader already. Off:
     * the meshes exactly as the reader gives them (FBX: three corners per triangle). */
    bool weld;
    /* Where an assimp reader runs (above); zero: in a child process. */
    am_scene_reader_process reader_process;
} am_scene_load_options;

/* am_scene_load with options (opts may be NULL). */
AM_API am_status am_scene_load_ex(const char *path, const am_scene_load_options *opts, am_scene *out, am_error *err);

#ifdef __cplusplus
}
#endif

#endif
