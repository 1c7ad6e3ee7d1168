/* animesh/anim.h: the .anim codec, exactly as the viewer decodes it; BVH motions.
 *
 * The `.anim` keyframe animation (LLKeyframeMotion, version 1.0) and motions that become one.
 *
 * Reference: docs/reference/anim-format.md (the sections named below are its headings).
 *
 * Data model: am_anim is the file as decoded, plain structs. Every quantised value keeps
 * its raw U16 code next to the value the viewer decodes from it, and every field keeps the
 * exact bytes it came from (F32 fields as floats, the 16-byte constraint volume names raw,
 * the bytes after the last field the viewer reads in `trailing`), so a decoded file
 * re-encodes to the identical bytes. Keys stay in file order (the viewer sorts and
 * de-duplicates them on load, "Byte layout"; am_anim_eval does the same when it evaluates).
 *
 * Steps, as cgltf does it: am_anim_parse reads the bytes (bounds-checked; fails only when
 * the structure cannot be read); am_anim_validate applies the viewer's checks ("Validation checks")
 * and our own ("Gaps in the viewer's checks") and lists every problem; am_anim_decode is
 * parse + validate and fails on the first problem that the viewer (or we) reject.
 *
 * Writing: am_anim_encode writes the raw codes as they are. To build keys from values use
 * am_anim_rot_key_set / am_anim_pos_key_set (the viewer's own encoder recipe, "Quantisers").
 *
 * Motions made by the library (retargeted clips, BVH: docs/reference/lessons.md#rule-7 and
 * #rule-10) are local delta rotations (and optional positions) of stock joints, sampled into
 * an am_anim; the writer guards the loop, encodes, decodes the bytes again, compares them with
 * what was meant and writes atomically.
 */
#ifndef AM_ANIMESH_ANIM_H
#define AM_ANIMESH_ANIM_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "animesh/core.h"
#include "animesh/skeleton.h"
#include "animesh/jointmap.h"

#ifdef __cplusplus
extern "C" {
#endif

#define AM_ANIM_MAX_DURATION 60.0f   /* MAX_ANIM_DURATION */

#define AM_ANIM_MAX_JOINTS 216       /* LL_CHARACTER_MAX_ANIMATED_JOINTS */

#define AM_ANIM_MAX_PRIORITY 6       /* highest usable priority; 7 is additive */

typedef struct am_anim_rot_key {
    uint16_t time_code, x_code, y_code, z_code; /* raw, as in the file */
    float time;                                 /* U16_to_F32(time_code, 0, duration) */
    am_quat rot; /* decoded (x, y, z, w): components from the codes, w by unpack_rot */
} am_anim_rot_key;

typedef struct am_anim_pos_key {
    uint16_t time_code, x_code, y_code, z_code;
    float time;
    am_vec3 pos; /* metres, each U16_to_F32(code, -5, 5); REPLACES the local position (6.3) */
} am_anim_pos_key;

typedef struct am_anim_joint {
    char *name;       /* as written (canonical, alias, volume or attachment name) */
    int32_t priority; /* -1 = use base priority */
    am_anim_rot_key *rot_keys;
    size_t rot_count;
    am_anim_pos_key *pos_keys;
    size_t pos_count;
    /* Byte offsets in the decoded file (meaningful only when am_anim.decoded). */
    size_t offset;     /* the name */
    size_t rot_offset; /* first rotation key (key i at rot_offset + 8 i) */
    size_t pos_offset; /* first position key */
} am_anim_joint;

typedef struct am_anim_constraint {
    uint8_t chain_length;
    uint8_t type;                /* 0 point, 1 plane */
    uint8_t source_volume[16];   /* raw: name up to the first 0x00 (or all 16 bytes) */
    float source_offset[3];
    uint8_t target_volume[16];   /* raw: collision-volume name or "GROUND" */
    float target_offset[3];
    float target_dir[3];
    float ease_in_start, ease_in_stop, ease_out_start, ease_out_stop;
    size_t offset; /* of the record (when decoded) */
} am_anim_constraint;

typedef struct am_anim {
    uint16_t version, sub_version; /* 1, 0 */
    int32_t base_priority;
    float duration;   /* seconds */
    char *emote_name; /* "" when none (never NULL after decode) */
    float loop_in, loop_out; /* seconds */
    int32_t loop;            /* as stored: 0 = no, non-zero = yes */
    float ease_in, ease_out; /* seconds */
    uint32_t hand_pose;
    am_anim_joint *joints;
    size_t joint_count;
    /* num_constraints exactly as stored. The records are read only when it is in
     * 0..10 (as the viewer does); otherwise the viewer ignores them and they stay in
     * `trailing` with everything else after the count. */
    int32_t constraint_count_raw;
    am_anim_constraint *constraints;
    size_t constraint_count;
    uint8_t *trailing; /* bytes after the last field read (kept for a byte-exact re-encode) */
    size_t trailing_size;
    bool decoded;      /* offsets are valid */
    size_t header_end; /* offset of num_joints + 4 = first joint record (when decoded) */
    size_t constraints_offset; /* offset of num_constraints (when decoded) */
} am_anim;

/* Read the bytes. Fails (AM_ERR_INVALID, message naming the check, joint and byte offset)
 * only when the structure cannot be read: a field past the end, a string without
 * terminator, a negative count, a count larger than the bytes left, version not 1.0
 * (version 0.1 is not supported: every real file is 1.0), num_joints 0 or > 216.
 * `out` is zeroed first and freed on failure. */
AM_API am_status am_anim_parse(const uint8_t *data, size_t size, am_anim *out, am_error *err);

/* Parse + validate without a skeleton; fails on the first REJECT or OURS issue.
 * This is what the bench and the WorldBridge push call. */
AM_API am_status am_anim_decode(const uint8_t *data, size_t size, am_anim *out, am_error *err);

/* Read a file and decode it; errors name the file. */
AM_API am_status am_anim_load(const char *path, am_anim *out, am_error *err);

AM_API void am_anim_free(am_anim *anim);

/* Append the file's bytes to out exactly as the raw codes and fields say (num_constraints
 * = constraint_count_raw when constraints are not read, else constraint_count). */
AM_API am_status am_anim_encode(const am_anim *anim, am_buf *out, am_error *err);

/* Set a key from values with the viewer's encoder (docs/reference/anim-format.md#quantisers): time single floor, components
 * packToVector3 (w >= 0) + double floor; the decoded fields get what a reader decodes. */
AM_API void am_anim_rot_key_set(am_anim_rot_key *key, float time, am_quat rot, float duration);
AM_API void am_anim_pos_key_set(am_anim_pos_key *key, float time, am_vec3 pos_m, float duration);

typedef enum am_anim_severity {
    AM_ANIM_REJECT = 0,        /* the viewer refuses the file (deserialize returns false) */
    AM_ANIM_REJECT_UPLOAD = 1, /* refused on upload, played otherwise (unknown joint, 16a) */
    AM_ANIM_OURS = 2,          /* our own error: a gap in the viewer's checks */
    AM_ANIM_NOTE = 3           /* accepted, but the viewer changes or ignores something */
} am_anim_severity;

typedef struct am_anim_issue {
    am_anim_severity severity;
    am_string check; /* short name, e.g. "duration", "key_time", "chain_length" */
    int viewer_row;  /* the check's # in docs/reference/anim-format.md#validation-checks, 0 for ours */
    am_string joint; /* joint name as the file writes it, "" for the header */
    size_t offset;   /* byte offset, AM_NO_OFFSET when unknown (hand-built anim) */
    am_string msg;   /* full sentence */
} am_anim_issue;

typedef struct am_anim_report {
    am_anim_issue *issues;
    size_t count;
    size_t errors; /* issues with severity REJECT, REJECT_UPLOAD or OURS */
} am_anim_report;

/* Apply every check. With skel == NULL the checks that need the skeleton (joint names,
 * collision-volume names, constraint chains: rows 16-16b, 25, 27, 29-32) are skipped.
 * The report is zeroed first; free it with am_anim_report_free. Returns AM_OK when the
 * checks ran, whatever they found (AM_ERR_NOMEM otherwise). */
AM_API am_status am_anim_validate(const am_anim *anim, const am_skeleton *skel, am_anim_report *report,
                           am_error *err);

/* Frees the issues and their texts; the report is zeroed after. */
AM_API void am_anim_report_free(am_anim_report *report);

AM_API am_status am_anim_to_json(const am_anim *anim, am_buf *out, am_error *err);

/* `source` names the input in errors ("motion.json: joints[3].rot_keys[2]: ..."). */
AM_API am_status am_anim_from_json(const char *text, size_t size, const char *source, am_anim *out, am_error *err);

typedef struct am_anim_joint_pose {
    bool has_rot, has_pos; /* false: the channel has no keys; the joint keeps its value */
    am_quat rot;           /* local rotation (replaces the joint's, 6.2) */
    am_vec3 pos;           /* local position in metres (replaces the joint's, 6.3) */
} am_anim_joint_pose;

/* Every joint's pose (out: one per joint) at the motion's local time tau_s, in seconds since
 * it started, looping and easing as the viewer plays it (docs/reference/anim-format.md#curve-evaluation). */
AM_API void am_anim_eval(const am_anim *anim, double tau_s, am_anim_joint_pose *out);

#define AM_LOOP_TOLERANCE_DEG 10.0

typedef struct am_loop_change {
    double rot_deg, pos_m;      /* the largest change made (at the last key) */
    long rot_track, pos_track;  /* where (-1: none) */
    double window_s;            /* am_anim_close_loop: the window blended */
} am_loop_change;

/* The loop guard for a file (docs/reference/lessons.md#rule-7): a looping anim whose pose at loop_out
 * differs from loop_in by more than one quantisation step, or by more than tol_deg / tol_m
 * when those are larger, is an error naming the joint and the jump. AM_OK when not looping. */
AM_API am_status am_anim_check_loop(const am_anim *anim, double tol_deg, double tol_m, am_error *err);

#define AM_BVH_REST_LIST 24

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
AM_API am_status am_bvh_parse(const char *text, size_t size, am_bvh *out, am_error *err);

AM_API am_status am_bvh_load(const char *path, am_bvh *out, am_error *err);

AM_API void am_bvh_free(am_bvh *bvh);

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
AM_API void am_bvh_options_init(am_bvh_options *opts);

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
AM_API void am_bvh_stats_free(am_bvh_stats *stats);

/* Convert. Every frame after the reference becomes a key unless opts->reduce_deg > 0.
 * The root must map to mPelvis. Unmapped joints are skipped and listed in stats.
 * stats (may be NULL) is zeroed first; after AM_OK free it with am_bvh_stats_free; on
 * failure it is freed already. */
AM_API am_status am_bvh_to_anim(const am_bvh *bvh, const am_skeleton *skel, const am_bvh_options *opts,
                         am_anim *out, am_bvh_stats *stats, am_error *err);

#ifdef __cplusplus
}
#endif

#endif
