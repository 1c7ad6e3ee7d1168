/* Skin blocks as references (docs/reference/lessons.md#rule-2): the skin block of a decoded real
 * upload is the reference our own skin block must match, joint by joint. Either side is a
 * mesh asset's skin or its reference JSON (mesh/skin_json.h, am_mesh_skin_load_any).
 *
 * The comparison matches joints by canonical name (aliases resolved through the viewer
 * skeleton when one is given, else exact names), compares the inverse bind matrices and
 * the alternate inverse bind matrices of every shared joint (never the bind shape, which
 * depends on the mesh), and reports the worst element difference per joint.
 */
#ifndef AM_SKIN_COMPARE_H
#define AM_SKIN_COMPARE_H

#ifdef __cplusplus
extern "C" {
#endif

#include <stdbool.h>
#include <stddef.h>

#include "core/error.h"
#include "mesh/mesh_asset.h"
#include "skeleton/skeleton.h"

#define AM_SKIN_COMPARE_DEFAULT_TOL 1e-4

/* --- overrides (docs/reference/mesh-asset.md#joint-position-overrides) --- */
/* For joint j of a skin with alternates: its override translation (alt[12..14]) and,
 * when skel is given and knows the joint, the joint's default (file `pos`) position.
 * Returns 1 if the viewer applies it (|t - default| > 0.1 mm), 0 if not, -1 when it
 * cannot tell (no alternate for j, no skeleton or unknown joint). */
int am_skin_alt_override(const am_mesh_skin *skin, size_t j, const am_skeleton *skel, am_vec3 *translation,
                         am_vec3 *default_pos);

/* --- comparison --- */
/* Zeroed, the defaults (core/option.h). */
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
am_status am_skin_compare(const am_mesh_skin *a, const am_mesh_skin *b, const am_skin_compare_options *opt,
                          am_skin_comparison *out, am_error *err);
void am_skin_comparison_free(am_skin_comparison *c);

#ifdef __cplusplus
}
#endif

#endif
