/* anim/anim.h: the private side of include/animesh/anim.h, where its manual is. */
#ifndef AM_ANIM_H
#define AM_ANIM_H

#include "animesh/anim.h"

#ifdef __cplusplus
extern "C" {
#endif

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/am_string.h"
#include "core/error.h"
#include "core/io.h"
#include "math/am_math.h"
#include "skeleton/skeleton.h"

/* Constants of the viewer ("Validation checks" and the files it names). */
#define AM_ANIM_VERSION 1
#define AM_ANIM_SUBVERSION 0
#define AM_ANIM_MAX_CONSTRAINTS 10   /* MAX_CONSTRAINTS: more and all are ignored */
#define AM_ANIM_MAX_CHAIN 4          /* MAX_CHAIN_LENGTH: chain_length must stay below */
#define AM_ANIM_MAX_HAND_POSE 14     /* accepted by the viewer; 14 is ignored at run time */
#define AM_ANIM_POS_RANGE 5.0f       /* LL_MAX_PELVIS_OFFSET, metres, every joint */
#define AM_ANIM_CONSTRAINT_SIZE 86   /* bytes per constraint record */

/* Files (docs/formats.md "Size limits"): a .anim of 216 joints keyed 30 times a second for 60 s is
 * about 6 MB (real ones are a few KB); its JSON is ten times larger. */
#define AM_ANIM_MAX_FILE_BYTES ((size_t)16 << 20)
#define AM_ANIM_JSON_MAX_FILE_BYTES ((size_t)128 << 20)
/* Its tree's memory budget (core/json_text.h): decode --json writes 8.7 bytes of structure
 * per byte of text (the bento reset .anim: 90 KB of JSON, 0.79 MB of tree), so 1 GiB holds
 * a file at the size limit written in that schema, and no bomb of empty values. */
#define AM_ANIM_JSON_TREE_BUDGET ((size_t)1 << 30)
extern const am_file_format am_anim_file_format; /* version 1.0 or 0.1 binary */
extern const am_file_format am_anim_json_format; /* the JSON schema below */

/* ---------------------------------------------------------------------------------------
 * Quantisation, bit-exact in IEEE single precision ("Quantisers")
 * ------------------------------------------------------------------------------------- */

/* F32_to_U16: clamp, normalise, FLOOR (not round). An empty range (upper <= lower, e.g. a
 * 0 s duration) or a non-finite one gives 0 (the viewer would divide by zero). */
uint16_t am_anim_f32_to_u16(float val, float lower, float upper);
/* U16_to_F32 with the viewer's zero snap (|val| < one step -> 0). */
float am_anim_u16_to_f32(uint16_t code, float lower, float upper);
/* The viewer's serialize recipe for rotation/position components: quantize16 then
 * F32_to_U16, i.e. F32_to_U16(U16_to_F32(F32_to_U16(v))) (a double floor). */
uint16_t am_anim_f32_to_u16_viewer(float val, float lower, float upper);
/* unpackFromVector3: w = sqrt(1 - |v|^2) when positive, else 0 (no rescale). */
am_quat am_anim_unpack_rot(float x, float y, float z);

/* ---------------------------------------------------------------------------------------
 * The decoded file
 * ------------------------------------------------------------------------------------- */

/* Copy a constraint volume name (up to the first 0x00, at most 16 chars) into out[17]. */
const char *am_anim_volume_name(const uint8_t raw[16], char out[17]);
/* The priority a joint entry plays at: its own, or the base priority for -1 (6.7). */
int32_t am_anim_joint_priority(const am_anim *anim, size_t joint);

/* ---------------------------------------------------------------------------------------
 * Validation ("Validation checks", "Gaps in the viewer's checks")
 * ------------------------------------------------------------------------------------- */

/* Turn the first error of a report into err (AM_ERR_INVALID); AM_OK if none. */
am_status am_anim_report_fail(const am_anim_report *report, am_error *err);

/* ---------------------------------------------------------------------------------------
 * Encoding
 * ------------------------------------------------------------------------------------- */

/* The bytes am_anim_encode would write. Above AM_ANIM_MAX_FILE_BYTES (what every reader
 * accepts) am_anim_encode refuses, before writing anything: the one check every .anim
 * writer (from-bvh, encode, import, the motion writer) shares. */
uint64_t am_anim_encoded_size(const am_anim *anim);
/* Re-derive every decoded value (times, rotations, positions) from the raw codes. */
void am_anim_redecode(am_anim *anim);

/* ---------------------------------------------------------------------------------------
 * JSON (the `animesh anim decode --json` / `encode` schema)
 *
 *   { "format": "animesh-anim-json-1", "version": 1, "sub_version": 0,
 *     "base_priority": 2, "duration": 3.95 (s), "emote": "", "loop": 0|1,
 *     "loop_in": s, "loop_out": s, "ease_in": s, "ease_out": s, "hand_pose": 0..14,
 *     "joints": [ { "name": "mPelvis", "priority": -1..6,
 *                   "rot_keys": [ { "t": s, "rot": [x, y, z, w], "code": [t, x, y, z] } ],
 *                   "pos_keys": [ { "t": s, "pos": [x, y, z] (m), "code": [t, x, y, z] } ] } ],
 *     "num_constraints": n,
 *     "constraints": [ { "chain_length": n, "type": 0 point | 1 plane,
 *                        "source_volume": "L_HAND", "source_volume_raw": "32 hex digits",
 *                        "source_offset": [x, y, z], "target_volume": "GROUND",
 *                        "target_volume_raw": "...", "target_offset": [..], "target_dir": [..],
 *                        "ease_in_start": s, "ease_in_stop": s, "ease_out_start": s,
 *                        "ease_out_stop": s } ],
 *     "trailing": "hex of bytes after the last field read (rare)" }
 *
 * Reading: "code" wins when present (exact bytes); without it a key is encoded from
 * "t" and "rot"/"pos" with the viewer's recipe ("rot" may also be the stored [x, y, z]).
 * "*_raw" wins over the volume name. Defaults: version 1.0, base_priority 4, loop 0,
 * loop_in 0, loop_out = duration, ease 0, hand_pose 0, priority -1, no constraints.
 * ------------------------------------------------------------------------------------- */

/* ---------------------------------------------------------------------------------------
 * Playback evaluation (sections 6.4, 6.5, 7), as the viewer's keyframe motion does it
 * ------------------------------------------------------------------------------------- */

/* Curve time T for motion-local time tau >= 0 of a running (not stopped) motion (6.5):
 * T = tau until loop_out, then loop_in + fmod(tau - loop_out, loop_out - loop_in) when
 * looping. */
double am_anim_curve_time(const am_anim *anim, double tau_s);
/* Evaluate every joint entry's curves at curve time T (6.4): the first key before it,
 * the last after it, otherwise the viewer's nlerp / lerp between neighbouring keys;
 * keys with the same decoded time: the later one in the file wins. out[joint_count]. */
void am_anim_eval_curves(const am_anim *anim, double curve_t, am_anim_joint_pose *out);
/* The same for one joint entry (out: one pose). */
void am_anim_eval_joint(const am_anim *anim, size_t joint, double curve_t, am_anim_joint_pose *out);
/* The loop seam of a looping file as the viewer plays it (6.5: the pose jumps from its value
 * at loop_out to its value at loop_in, with no blend): the largest rotation jump (degrees)
 * and position jump (metres) over the joint entries, and the entry index of each (-1 when
 * no entry has that channel). Not looping: all zero and -1. */
typedef struct am_anim_seam {
    double rot_deg, pos_m;
    long rot_joint, pos_joint;
} am_anim_seam;
void am_anim_loop_seam(const am_anim *anim, am_anim_seam *out);
/* ---------------------------------------------------------------------------------------
 * Loops that close (anim_loop.c)
 *
 * The seam is the jump from the last key to the first. Three ways a clip loops:
 *  - it is closed: its last pose is its first (within a quantisation step, or within 1 deg
 *    and 1 cm, when the retargeter makes the last key the first);
 *  - it is a cycle written without its closing key (many exporters write cycles so): every
 *    track's seam is no larger than its own step where the clip wraps (twice its largest
 *    speed over the first and last 3 steps, times the key interval: a walk's ankle speeds
 *    up by half again at the heel strike; a jump standing still at both ends stays out). It
 *    loops by default, closed by the first pose one key interval after the last key;
 *  - --loop closes a larger seam, up to --loop-tolerance (AM_LOOP_TOLERANCE_DEG by default,
 *    and 1 cm per degree for positions), by blending the keys of the last
 *    AM_LOOP_WINDOW_S (at most a quarter of the clip) into the first pose with a smoothstep
 *    weight; the largest change made is reported. Beyond the tolerance it is refused.
 * A looped clip then never jumps at the wrap by more than its own largest step.
 * ------------------------------------------------------------------------------------- */

#define AM_LOOP_WINDOW_S 0.5

/* One joint's keys for the loop tools: times in seconds, ascending; rot[count], pos[count]
 * or NULL. Written in place by am_loop_blend. */
typedef struct am_loop_track {
    size_t count;
    const double *times;
    am_quat *rot;
    am_vec3 *pos;
} am_loop_track;

typedef struct am_loop_seam {
    double rot_deg, pos_m;      /* the worst seam, last key -> first */
    long rot_track, pos_track;  /* where (-1: none) */
    double rot_at_s, pos_at_s;  /* the time of that track's last key, seconds */
    double step_deg, step_m;    /* the largest step between neighbouring keys, any track */
    bool implicit;              /* a cycle written without its closing key (see above) */
} am_loop_seam;

/* Measure the seam of n tracks; close_dt: the interval a closing key would take (the clip's
 * key interval; 0: never implicit). */
void am_loop_measure(const am_loop_track *tracks, size_t n, double close_dt, am_loop_seam *out);
/* Blend each track's keys within window_s of its last key into its first pose (the last
 * key becomes the first). */
void am_loop_blend(am_loop_track *tracks, size_t n, double window_s, am_loop_change *out);
/* The blend window for a loop spanning span_s: AM_LOOP_WINDOW_S, at most a quarter of it. */
double am_loop_window(double span_s);
/* The same on a looping file's keys: the seam between loop_out and loop_in closed by
 * blending the keys before loop_out (re-quantised), when it is within tol_deg / tol_m;
 * beyond, AM_ERR_INVALID naming the joint, the jump, the times and by how much it is over.
 * A seam within one quantisation step is left (out all zero). */
am_status am_anim_close_loop(am_anim *anim, double tol_deg, double tol_m, am_loop_change *out, am_error *err);

/* Resolve joint entries against the skeleton: out[i] = skeleton joint index, or -1 when
 * the name is unknown, the joint number is outside 0..215, or an earlier entry already
 * animates the same joint (only the first entry plays, 6.1). */
void am_anim_resolve(const am_anim *anim, const am_skeleton *skel, int *out);

/* ---------------------------------------------------------------------------------------
 * Motions (docs/reference/lessons.md#rule-7 and #rule-10)
 * ------------------------------------------------------------------------------------- */

/* A pose callback: the local delta rotation (and position, when the track has positions)
 * of track `track` at normalised time t in [0, 1]. */
typedef void (*am_motion_pose_fn)(void *user, size_t track, double t, am_quat *rot, am_vec3 *pos);

typedef struct am_motion_track {
    const char *joint;  /* stock joint name (canonical or alias) */
    int32_t priority;   /* -1 = the motion's base priority */
    bool has_pos;       /* write position keys (metres, replacing the local position) */
    /* A sampled clip (used when the motion has no pose_fn): `count` samples at ascending
     * normalised times (times == NULL: uniform, t_i = i / (count - 1)); pos may be NULL
     * when !has_pos. Between samples: nlerp / lerp. Caller-owned. */
    const double *times;
    const am_quat *rot;
    const am_vec3 *pos;
    size_t count;
    /* Rest correction (docs/reference/lessons.md#rule-10): a constant rotation applied in every pose:
     * local = delta (x) correction (Hamilton: the correction first, then the delta, both
     * in the parent's frame). Ignored unless has_correction. */
    bool has_correction;
    am_quat correction;
} am_motion_track;

typedef struct am_motion {
    const am_motion_track *tracks;
    size_t track_count;
    am_motion_pose_fn pose_fn; /* when set, the tracks' samples are ignored */
    void *user;
    double duration_s;        /* 0 < duration <= 60 */
    int32_t base_priority;    /* docs/reference/lessons.md#rule-7: 4 */
    bool loop;
    double loop_in, loop_out; /* normalised 0..1 (loop_out 0 means 1) */
    double ease_in_s, ease_out_s;
    uint32_t hand_pose;
    const char *emote; /* NULL or "" for none (leave empty for animesh, 6.10) */
} am_motion;

/* Fill a motion with the defaults: priority 4, no loop, loop 0..1, ease 0.3 s, hand 0. */
void am_motion_init(am_motion *m);
/* The pose of a track at normalised t, rest correction applied. */
void am_motion_pose(const am_motion *m, size_t track, double t, am_quat *rot, am_vec3 *pos);

/* Zeroed, the defaults. */
typedef struct am_motion_sample_options {
    unsigned intervals;     /* keys at t = i / intervals, i = 0..intervals (default 24 when 0);
                             * AM_MOTION_CLIP_TIMES: at the clip's own sample times */
    bool reduce;            /* drop keys the viewer's interpolation reproduces; default false */
    double rot_tol_deg;     /* reduction tolerance (default 0.05 deg when 0) */
    double pos_tol_m;       /* reduction tolerance (default 0.0005 m when 0) */
} am_motion_sample_options;

#define AM_MOTION_CLIP_TIMES 0xFFFFFFFFu

typedef struct am_motion_stats {
    size_t keys_before; /* rotation + position keys before reduction */
    size_t keys_after;
    size_t bytes;       /* encoded size (am_motion_write_anim) */
    double max_rot_err_deg; /* largest difference between meant pose and decoded file, over
                             * the keys (from am_motion_write_anim's verification) */
    double max_pos_err_m;
} am_motion_stats;

/* Sample a motion into an anim (opts may be NULL: 24 intervals, no reduction). Joint names
 * are checked against skel when it is not NULL. stats may be NULL. */
am_status am_motion_sample(const am_motion *m, const am_motion_sample_options *opts,
                           const am_skeleton *skel, am_anim *out, am_motion_stats *stats,
                           am_error *err);
/* Loop guard: for a looping motion, refuse (AM_ERR_INVALID naming the worst joint, its
 * angle or distance and the times in seconds) when any track's quantised pose at loop_out
 * differs from loop_in by more than one quantisation step. AM_OK for non-looping motions. */
am_status am_motion_check_loop(const am_motion *m, am_error *err);
/* Sample, guard the loop, encode, decode the bytes again, compare with the meant poses at
 * every key (within quantisation: a mismatch is an error) and write `path` atomically.
 * `out_bytes` (may be NULL) receives the encoded file. */
am_status am_motion_write_anim(const am_motion *m, const am_motion_sample_options *opts,
                               const am_skeleton *skel, const char *path, am_buf *out_bytes,
                               am_motion_stats *stats, am_error *err);
/* Drop keys the viewer's interpolation reproduces: for each joint, keep the first and
 * last key and, from each kept key, the farthest later key (within 64) such that every key
 * between is reproduced within rot_tol_deg / pos_tol_m (measured on decoded values).
 * Keys must be in ascending time order (as sampled). before/after (may be NULL) receive
 * the total key counts. */
void am_anim_reduce_keys(am_anim *anim, double rot_tol_deg, double pos_tol_m, size_t *before, size_t *after);
/* The same check on bytes already encoded: decode them and compare each joint's keys with
 * the intended anim values (times within one time code, rotations within the angle of
 * two codes per component, positions within two codes). */
am_status am_anim_verify_bytes(const uint8_t *data, size_t size, const am_anim *meant,
                               am_motion_stats *stats, am_error *err);

#ifdef __cplusplus
}
#endif

#endif
