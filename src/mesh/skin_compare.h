/* Skin blocks as references (docs/reference/lessons.md#rule-2): the skin block of a decoded real upload is
 * the reference our own skin block must match, joint by joint.
 *
 * Reference JSON ("skin JSON"), the skin block exactly as an asset stores it (LL layout,
 * docs/reference/mesh-asset.md#matrix-layout: 16 numbers per matrix, translation at 12..14):
 *   {"joint_names": ["mPelvis", ...],
 *    "inverse_bind_matrix": [[16 numbers], ...],        one per joint
 *    "alt_inverse_bind_matrix": [[16 numbers], ...],    optional (joint-position overrides)
 *    "bind_shape_matrix": [16 numbers]}                 optional on input (identity)
 *
 * The comparison matches joints by canonical name (aliases resolved through the viewer
 * skeleton when one is given, else exact names), compares the inverse bind matrices and
 * the alternate inverse bind matrices of every shared joint (never the bind shape, which
 * depends on the mesh), and reports the worst element difference per joint.
 */
#ifndef AM_MESH_SKIN_COMPARE_H
#define AM_MESH_SKIN_COMPARE_H

#ifdef __cplusplus
extern "C" {
#endif

#include <stdbool.h>
#include <stddef.h>

#include "core/error.h"
#include "core/io.h"
#include "mesh/mesh_asset.h"
#include "skeleton/skeleton.h"

/* A skin reference JSON (what mesh decode --skin-json writes: 110 joints of two matrices is
 * about 60 KB) is an object of at most this many bytes (docs/formats.md "Size limits"). */
#define AM_SKIN_JSON_MAX_FILE_BYTES ((size_t)4 << 20)
/* Its tree's memory budget (core/json_text.h): 16 times the file limit. */
#define AM_SKIN_JSON_TREE_BUDGET ((size_t)64 << 20)
extern const am_file_format am_skin_json_format;

#define AM_SKIN_COMPARE_DEFAULT_TOL 1e-4

/* --- reference JSON --- */
am_status am_skin_json_parse(const char *text, size_t size, const char *source, am_skin_info *out, am_error *err);
/* Write the reference JSON of a skin (17 significant digits: values round-trip exactly). */
am_status am_skin_json_write(const am_skin_info *skin, am_buf *out, am_error *err);
/* Load a skin from a mesh asset (.llmesh/.slm: binary LLSD header) or from reference JSON,
 * told apart by content. A mesh asset without a skin block is an error. */
am_status am_skin_load_any(const char *path, am_skin_info *out, am_error *err);

/* --- overrides (docs/reference/mesh-asset.md#joint-position-overrides) --- */
/* For joint j of a skin with alternates: its override translation (alt[12..14]) and,
 * when skel is given and knows the joint, the joint's default (file `pos`) position.
 * Returns 1 if the viewer applies it (|t - default| > 0.1 mm), 0 if not, -1 when it
 * cannot tell (no alternate for j, no skeleton or unknown joint). */
int am_skin_alt_override(const am_skin_info *skin, size_t j, const am_skeleton *skel, am_vec3 *translation,
                         am_vec3 *default_pos);

/* --- comparison --- */
typedef struct am_skin_compare_options {
    double tol;                 /* per element, metres / unitless; <= 0 -> default 1e-4 */
    const am_skeleton *skel;    /* optional: resolve aliases to canonical names */
    bool alt_translation_only;  /* compare only alt elements 12..14 (what the viewer reads) */
    bool allow_missing_alt;     /* alternates on one side only is not a mismatch */
    bool strict;                /* a joint on one side only is a mismatch (default: only the
                                   shared joints are judged, as against a real upload that
                                   lists fewer joints; docs/reference/lessons.md#rule-2) */
} am_skin_compare_options;

typedef struct am_skin_joint_diff {
    char name[64];      /* canonical name */
    size_t index_a, index_b;
    double ibm_diff;    /* max |a - b| over the 16 inverse-bind elements */
    int ibm_element;    /* where it occurs (0..15) */
    bool alt_compared;  /* both sides have an alternate for this joint */
    double alt_diff;
    int alt_element;
    bool fail;          /* ibm_diff or alt_diff beyond tol */
} am_skin_joint_diff;

typedef struct am_skin_comparison {
    am_skin_joint_diff *joints; /* shared joints, in A's order */
    size_t count;
    char **only_a, **only_b;    /* canonical names present on one side only */
    size_t only_a_count, only_b_count;
    bool alt_a, alt_b;          /* each side carries alt_inverse_bind_matrix */
    double tol;
    double worst;               /* worst difference over every compared element */
    size_t failures;            /* joints beyond tol */
    bool ok;                    /* no failure, at least one shared joint, alternates
                                   present on both sides or on neither (unless
                                   allow_missing_alt), and with strict no joint on one
                                   side only */
} am_skin_comparison;

/* Joints are matched by canonical name: a skin that names a joint twice is an error
 * (AM_ERR_INVALID naming the side, the joint and both indices). */
am_status am_skin_compare(const am_skin_info *a, const am_skin_info *b, const am_skin_compare_options *opt,
                          am_skin_comparison *out, am_error *err);
void am_skin_comparison_free(am_skin_comparison *c);

#ifdef __cplusplus
}
#endif

#endif
