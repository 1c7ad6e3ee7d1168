/* Rigged glTF fixtures for tests: describe a creature (nodes with TRS, one skinned mesh,
 * clips), write it as .gltf + .bin, .gltf with data: URIs or .glb in any frame, and pose it
 * INDEPENDENTLY of src/import (its own clip interpolation, forward kinematics and linear
 * blend skinning), so a test can compare what the importer makes of the file with what
 * the file means.
 *
 * Typical use:
 *
 *     am_gf_model m, cm;
 *     am_gf_quadruped(&m);                         // Y up, +Z forward, metres (glTF's own)
 *     am_gf_convert(&m, AM_GF_Z_UP_CM, &cm);       // the same creature Z up, -Y forward, cm
 *     char path[512];
 *     am_gf_write(&cm, NULL, dir, "quad", path, sizeof path);   // dir/quad.gltf + quad.bin
 *     float *want = malloc(3 * cm.vertex_count * sizeof(float));
 *     am_gf_pose(&cm, 0, 0.3, want);               // the walk at 0.3 s, in the file's frame
 *     ... import path, compare ...
 *     am_gf_model_free(&m); am_gf_model_free(&cm);
 *
 * To break a file on purpose: am_gf_document() gives the JSON (jansson) and the binary
 * buffer before they are saved; edit either, then am_gf_save().
 *
 * THE MODEL (all arrays owned by the model, freed by am_gf_model_free):
 *  - nodes, parents first: name, parent (-1 root), rest translation / rotation / scale.
 *  - one mesh on a node of its own ("<name>_mesh", a root at identity, written last) with
 *    that node's `skin`: positions, normals, uvs (v DOWN, as glTF stores it: row 0 of
 *    the image at v = 0), triangles, and `influences` (joint, weight) pairs per vertex
 *    (joint = index into `joints`, the skin's node list). Weights of a vertex sum to 1.
 *  - the skin's inverse binds are computed at write time from the rest pose (inverse of
 *    each joint's rest world matrix), so a converted model stays consistent.
 *  - clips: channels (node, path, interpolation, key times, values in glTF layout:
 *    CUBICSPLINE keys are in-tangent, value, out-tangent).
 *
 * FRAMES: the builders describe glTF's frame (Y up, the creature facing +Z, metres).
 * am_gf_convert re-expresses the whole model in another frame by the rotation p -> R p
 * (R = +90 degrees about X: up +Y -> +Z, forward +Z -> -Y, Blender's frame) and a unit
 * scale (metres -> centimetres): positions, normals, translations and translation keys
 * are rotated (and scaled), rotations and rotation keys conjugated (R q R^-1), scales
 * permuted. Posing the converted model gives 100 R p of the original's posed p. */
#ifndef AM_TESTS_SUPPORT_GLTF_FIXTURES_H
#define AM_TESTS_SUPPORT_GLTF_FIXTURES_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/io.h"
#include "scene/scene.h"
#include "math/am_math.h"
#include "texture/texture.h"

typedef struct am_gf_node {
    char name[64];
    int parent;
    am_vec3 t;
    am_quat r;
    am_vec3 s;
} am_gf_node;

typedef struct am_gf_channel {
    int node;
    am_scene_path path;
    am_scene_interp interp;
    size_t key_count;
    float *times;
    float *values; /* key_count * width, x3 for CUBICSPLINE (glTF layout) */
} am_gf_channel;

typedef struct am_gf_clip {
    char name[64];
    size_t channel_count;
    am_gf_channel *channels;
} am_gf_clip;

typedef struct am_gf_influence {
    uint16_t joint; /* index into joints[] */
    float weight;
} am_gf_influence;

#define AM_GF_MAX_INFLUENCES 8 /* JOINTS_0 + JOINTS_1 */

typedef struct am_gf_model {
    char name[64];
    size_t node_count;
    am_gf_node *nodes;
    size_t joint_count;
    int *joints;                /* skin joints: node indices */
    size_t vertex_count;
    float *positions;           /* 3 per vertex */
    float *normals;             /* 3 per vertex */
    float *uvs;                 /* 2 per vertex, glTF's v (down) */
    size_t index_count;
    uint32_t *indices;          /* triangles */
    size_t influence_count;     /* per vertex: 1 .. AM_GF_MAX_INFLUENCES (4 or fewer: JOINTS_0 only) */
    am_gf_influence *influences;/* vertex_count * influence_count, zero-weight slots allowed */
    size_t clip_count;
    am_gf_clip *clips;
    double base_color[4];
    double height_m;            /* the creature's size in the description's units (for tolerances) */
} am_gf_model;

/* --- builders (glTF frame: Y up, +Z forward, metres) --------------------------------- */

/* The two-bone bend box: a 4 x 1 x 2 box (x in [-2, 2], y in [0, 1], z in [-1, 1]) of 0.25 m
 * rings, joint "root" at the origin carrying the -X half and joint "bend" at (0, 0.5, 0)
 * carrying the +X half (smoothstep weights over x in [-1, 1]). "bend" has a Blender-like
 * rest rotation (its Y axis along +X: -90 degrees about Z). One clip "fold": the +X half
 * rotates 0 -> 90 -> 0 degrees about the parent's +Z (the +X end rises) over 6 s, keys at
 * 0, 1.5, 3, 4.5, 6 s, with the interpolation asked for (CUBICSPLINE: non-zero tangents). */
void am_gf_bendbox(am_gf_model *m, am_scene_interp interp);

/* A quadruped 0.85 m tall facing +Z: Armature (root, no joint) -> Hips -> Spine -> Chest ->
 * Neck -> Head, Hips -> Tail1 -> Tail2, Chest -> Shoulder/Elbow/Paw L and R, Hips ->
 * Thigh/Knee/Foot L and R (19 joints, each with a Blender-like rest rotation: its Y axis
 * along the bone). A box around each bone, blended 50/50 with the child at the bone's
 * end. One LINEAR clip "walk", 1 s, 9 keys: a trot (diagonal legs in phase, +-25 degrees
 * about the lateral axis), a tail wag, a head bob and a Hips translation bob. */
void am_gf_quadruped(am_gf_model *m);

/* A chain of `joints` joints "j0", "j1", ... standing up +Y, each `segment_m` long (j0 at
 * the origin), a thin box around each segment weighted to its joint (the last ring of each
 * box half to the next joint), and one LINEAR clip "sway" of `duration_s` (5 keys) turning
 * every joint by up to 10 degrees about +Z. For limits: more joints than a skin may have,
 * a clip longer than the viewer plays. */
void am_gf_chain(am_gf_model *m, size_t joints, double segment_m, double duration_s);

void am_gf_model_free(am_gf_model *m);

/* --- frames -------------------------------------------------------------------------- */

typedef enum am_gf_frame {
    AM_GF_Y_UP_M = 0, /* glTF's: +Y up, +Z forward, metres (a copy) */
    AM_GF_Z_UP_CM     /* Blender's: +Z up, -Y forward, centimetres */
} am_gf_frame;

/* A deep copy of `in` re-expressed in `frame` (see FRAMES above). */
void am_gf_convert(const am_gf_model *in, am_gf_frame frame, am_gf_model *out);
/* The point p (a description in glTF's frame) in `frame`. */
am_vec3 am_gf_frame_point(am_gf_frame frame, am_vec3 p);

/* --- writing ------------------------------------------------------------------------- */

typedef enum am_gf_container {
    AM_GF_GLTF = 0,      /* NAME.gltf + NAME.bin */
    AM_GF_GLTF_EMBEDDED, /* NAME.gltf with the buffer as a base64 data: URI */
    AM_GF_GLB            /* NAME.glb: JSON chunk + BIN chunk */
} am_gf_container;

typedef struct am_gf_options {
    am_gf_container container;
    int joints_type;  /* 5121 UNSIGNED_BYTE (default 0 = 5121) or 5123 UNSIGNED_SHORT */
    int weights_type; /* 5126 FLOAT (default), 5121 / 5123 normalized */
    int uv_type;      /* 5126 FLOAT (default), 5121 / 5123 normalized */
    int index_type;   /* 5125 UNSIGNED_INT (default), 5121, 5123 */
    bool interleave;  /* POSITION + NORMAL interleaved in one bufferView (byteStride 24) */
    bool matrices;    /* node rest transforms written as `matrix` instead of TRS */
    bool no_skin;     /* the mesh without JOINTS/WEIGHTS, no skin, no clips: an unrigged model */
} am_gf_options;

/* The glTF document (buffers[0] has byteLength but no uri yet) and its binary buffer. */
json_t *am_gf_document(const am_gf_model *m, const am_gf_options *opt, am_buf *bin);
/* Save a document + buffer into dir as NAME.gltf(+.bin) or NAME.glb; the path of the model
 * file goes to path_out. Steals nothing: the caller still frees doc (json_decref) and bin. */
void am_gf_save(json_t *doc, const am_buf *bin, am_gf_container container, const char *dir, const char *name,
                char *path_out, size_t path_size);
/* The same into memory (AM_GF_GLTF_EMBEDDED or AM_GF_GLB only): out is appended. */
void am_gf_save_memory(json_t *doc, const am_buf *bin, am_gf_container container, am_buf *out);
/* am_gf_document + am_gf_save (opt NULL = defaults, .gltf + .bin). */
void am_gf_write(const am_gf_model *m, const am_gf_options *opt, const char *dir, const char *name, char *path_out,
                 size_t path_size);
/* The walking quadruped as DIR/quad.glb in Z-up centimetres (a Blender export's frame: the
 * retarget route detects the axes and the unit); its path in path_out. written (may be NULL)
 * receives the model as written, in that frame (free it with am_gf_model_free). */
void am_gf_write_quad_glb(const char *dir, char *path_out, size_t path_size, am_gf_model *written);

/* --- the file's own meaning, computed here ------------------------------------------- */

/* The rest world matrix of every node (LL layout), node_count entries. */
void am_gf_rest_world(const am_gf_model *m, am_mat4 *out);
/* Clip `clip` at time t (clamped to its keys; clip < 0 = the rest pose): every vertex
 * skinned the glTF way (sum of w * p * inverse_bind * world), 3 floats per vertex into out.
 * Interpolation as glTF 2.0 Appendix C, written here without the importer's code. */
void am_gf_pose(const am_gf_model *m, int clip, double t, float *out);

/* --- textures ----------------------------------------------------------------------- */

/* A JPEG of img (3 channels RGB, or with `cmyk` Adobe-style inverted CMYK built from the
 * RGB with no black, or 1 channel grey when `grey`), libjpeg's encoder at `quality`,
 * 4:4:4, optionally progressive. Appended to out. */
typedef struct am_gf_jpeg_options {
    int quality;
    bool grey, cmyk, progressive;
    /* > 0: progressive with a scan script of libjpeg's own rules that sends every coefficient
     * of every component alone, bit_planes bits at a time (11 at most): 64 x bit_planes
     * scans per component (the scan-count budget's tests). */
    unsigned bit_planes;
} am_gf_jpeg_options;
void am_gf_jpeg(const am_tex_image *img, const am_gf_jpeg_options *opt, am_buf *out);
/* A width x height RGB(A) test picture: smooth gradients plus a checker, different in each
 * channel (alpha, when 4 channels, a ramp). */
void am_gf_picture(am_tex_image *img, uint32_t width, uint32_t height, uint32_t channels);

/* --- loading ------------------------------------------------------------------------ */

/* am_scene_load that fails the test (printing the error) when the file is refused. */
void am_gf_load(const char *path, am_scene *out);
/* am_scene_load that must fail with `status`: the formatted error ("file: element: what")
 * into msg, and the scene must come back empty. AM_GF_SHOW=1 in the environment prints
 * each refusal (to read the messages). */
void am_gf_load_error(const char *path, am_status status, char *msg, size_t size);

/* Remove a folder and everything in it (test cleanup). */
void am_gf_remove_tree(const char *dir);

#endif
