/* BVH motion capture -> .anim, converted exactly as the viewer's BVH upload does
 * (docs/reference/anim-format.md#bvh-conversion; LLBVHLoader).
 *
 * Frame 0 is the reference frame (never output when there is more than one frame);
 * frame k >= 1 plays at (k - 1) * frame_time; duration = max(frames - 2, 1) * frame_time.
 * Axes: SL = (BVH z, x, y); rotation q = F (x) R0^-1 (x) Rk (x) F^-1 with F = (.5,.5,.5,.5)
 * and R0 the pelvis's frame-0 rotation (identity for other joints); positions in inches
 * (0.02540005 m), pelvis relative to frame 0, every component clamped to +-5 m.
 */
#ifndef AM_ANIM_BVH_H
#define AM_ANIM_BVH_H

#ifdef __cplusplus
extern "C" {
#endif

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "anim/anim.h"
#include "core/am_string.h"
#include "core/error.h"
#include "core/option.h"
#include "skeleton/jointmap.h"
#include "math/am_math.h"
#include "skeleton/skeleton.h"

/* A BVH file is text starting with HIERARCHY and at most this long: 60 s of 1024 joints at
 * 120 frames a second is about 50 MB; CMU's files are 2-4 MB (docs/formats.md "Size limits"). */
#define AM_BVH_MAX_FILE_BYTES ((size_t)64 << 20)
extern const am_file_format am_bvh_format;

typedef struct am_bvh_joint {
    char *name;
    int parent;          /* index in am_bvh.joints, -1 for the root */
    int channels;        /* 6 (position + rotation) or 3 (rotation only) */
    char order[4];       /* rotation channel order as declared, e.g. "ZXY" */
    am_vec3 offset;      /* OFFSET (read, but the viewer never uses it) */
    int depth;           /* deepest descendant level below this joint (0 for a leaf) */
} am_bvh_joint;

typedef struct am_bvh {
    am_bvh_joint *joints; /* hierarchy order (pre-order, as declared) */
    size_t joint_count;
    size_t frame_count;
    double frame_time_s;
    /* per frame, per joint: position (BVH units; zero for 3-channel joints) and the
     * rotation R = R_A(a) R_B(b) R_C(c) in BVH axes (column vectors, Hamilton). */
    am_vec3 *pos;  /* [frame * joint_count + joint] */
    am_quat *rot;
} am_bvh;

/* Parse BVH text. Errors name the line. */
am_status am_bvh_parse(const char *text, size_t size, am_bvh *out, am_error *err);
am_status am_bvh_load(const char *path, am_bvh *out, am_error *err);
void am_bvh_free(am_bvh *bvh);

/* Zeroed, the viewer's own upload defaults (core/option.h); a field where zero is a choice
 * takes AM_OPTION_ZERO for it. */
typedef struct am_bvh_options {
    const am_joint_map *map; /* BVH name -> stock name; NULL: the viewer's table (canonical
                              * names, aliases such as hip/abdomen/lThigh, avatar_ names) */
    int32_t priority;        /* base and joint priority 1..6; 0: the viewer's default 2;
                              * AM_OPTION_ZERO: priority 0 */
    bool loop;               /* default false */
    double loop_in_s, loop_out_s; /* used when loop; loop_in default 0; loop_out 0: the
                                   * duration (so is a negative other than AM_OPTION_ZERO),
                                   * AM_OPTION_ZERO: 0; must satisfy
                                   * 0 <= in <= out <= duration (AM_ERR_USAGE) */
    double ease_in_s, ease_out_s; /* 0: the viewer's defaults 0.3 / 0.3; AM_OPTION_ZERO: none */
    int32_t hand_pose;            /* 1..13; 0: the viewer's default 1; AM_OPTION_ZERO: 0 */
    bool keep_static_joints;      /* false (default): omit joints that never move (8.6) */
    double reduce_deg;            /* > 0: drop keys reproduced within this angle (and
                                   * reduce_m metres) by interpolation (our reduction, not
                                   * the viewer's optimize); 0: every frame is a key */
    double reduce_m;              /* 0: the default 0.0005 m */
    /* Loop guard (docs/reference/lessons.md#rule-7): with `loop`, a pose at loop_out that is not loop_in's
     * (within one quantisation step) is closed by blending the keys before loop_out into it
     * when the seam is within these (am_anim_close_loop; default AM_LOOP_TOLERANCE_DEG and
     * 1 cm per degree), and refused beyond, saying by how much. 0: those defaults (the
     * metres: 1 cm per degree of loop_tolerance_deg); AM_OPTION_ZERO: 0. */
    double loop_tolerance_deg, loop_tolerance_m;
    /* Rest alignment (off by default: the output is then the viewer's own conversion).
     * The viewer applies each BVH rotation as if the BVH's zero pose were the viewer's rest
     * (8.5); where a bone's zero-pose direction differs (CMU's thighs splay ~20 deg), it turns
     * by that much. With align_rest each mapped joint j gets A_j, the shortest rotation
     * taking the viewer's rest bone direction (towards its one mapped child) onto the BVH's
     * zero-pose one, and its keys become A_p^-1 (x) q_viewer (x) A_j (p: its nearest mapped
     * BVH ancestor; A = identity for the pelvis and for joints with no single child), so
     * the posed viewer bone points where the posed BVH bone points, frame by frame. Pelvis
     * rotation and every position key are unchanged; a joint whose correction is not the
     * identity is kept even when it never moves. */
    bool align_rest;
} am_bvh_options;

/* The viewer loader's defaults (8.1): priority 2, no loop, ease 0.3/0.3, hand pose 1. */
void am_bvh_options_init(am_bvh_options *opts);

/* A bone whose zero-pose direction is this far from the viewer's rest direction is listed
 * in the warning: mocap's own offsets scatter by a few degrees; 10 is a visible turn. */
#define AM_BVH_REST_WARN_DEG 10.0
#define AM_BVH_REST_LIST 24

typedef struct am_bvh_rest_bone {
    am_string joint;  /* the BVH joint */
    am_string stock;  /* the viewer joint it drives */
    double angle_deg; /* between its zero-pose bone and the viewer's rest bone */
} am_bvh_rest_bone;

typedef struct am_bvh_stats {
    size_t mapped;   /* BVH joints mapped to stock joints and written */
    size_t unmapped; /* BVH joints with no stock name (skipped, listed in `skipped`) */
    size_t static_joints; /* mapped joints omitted because they never move */
    am_string skipped;    /* comma-separated names of every unmapped joint */
    size_t keys_before, keys_after; /* rotation + position keys before / after reduction */
    /* The zero pose against the viewer's rest (always measured; see align_rest): */
    size_t rest_compared;   /* mapped joints with one bone to compare */
    double rest_max_deg;    /* the largest angle between the two bone directions */
    size_t rest_off;        /* joints off by more than AM_BVH_REST_WARN_DEG */
    am_bvh_rest_bone rest[AM_BVH_REST_LIST]; /* those, largest first (the first AM_BVH_REST_LIST) */
    bool rest_aligned;      /* align_rest was applied */
    am_loop_change loop;    /* with loop: the seam closed by blending (all zero: none) */
} am_bvh_stats;

/* Frees the texts of the stats (skipped, rest[].joint/stock); zeroed after. */
void am_bvh_stats_free(am_bvh_stats *stats);

/* The warning for stats->rest_off > 0 ("the BVH's zero pose is not the viewer's rest:
 * LeftUpLeg (mHipLeft) 19.8 deg, ...: ... --align-rest corrects it", or that it was
 * corrected); "" and 0 when no joint is off. Returns the length written (truncated to size). */
size_t am_bvh_rest_warning(const am_bvh_stats *stats, char *buf, size_t size);

/* Whether the root's name is one the viewer's own table maps to mPelvis (hip, mPelvis,
 * avatar_mPelvis): then the viewer's table converts the file without a map. */
bool am_bvh_root_is_viewer(const am_bvh *bvh, const am_skeleton *skel);

/* Convert. Every frame after the reference becomes a key unless opts->reduce_deg > 0.
 * The root must map to mPelvis. Unmapped joints are skipped and listed in stats.
 * stats (may be NULL) is zeroed first; after AM_OK free it with am_bvh_stats_free; on
 * failure it is freed already. */
am_status am_bvh_to_anim(const am_bvh *bvh, const am_skeleton *skel, const am_bvh_options *opts,
                         am_anim *out, am_bvh_stats *stats, am_error *err);

#ifdef __cplusplus
}
#endif

#endif
