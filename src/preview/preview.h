/* The browser preview: one self-contained HTML page per creature that plays its written
 * .anim files on its written mesh asset(s) exactly as the viewer would pose them.
 *
 * Viewer-faithful by construction: the page never evaluates a motion. Everything it
 * blends comes out of the bench (bench.h), which reads the WRITTEN files through the
 * project's decoders and does the viewer's FK (overrides, .anim curves, loop mapping):
 *  - per LOD and part: the bench's flattened vertices (bind frame, bind shape applied) and
 *    its decoded weights and joint slots, triangles in the asset's face and vertex order;
 *  - per part: C_i = IBM_i * S_j for each palette entry i (its joint j's own scale), so the
 *    viewer's palette matrix P_i = IBM_i * W_j = C_i * [R_j | t_j];
 *  - per clip and frame (every key time of the clip and 30 fps between, in curve time):
 *    each skin joint's world rotation R_j and position t_j, already moved into the bench's
 *    BIND frame (mRoot at bind_minus_prim, e.g. (0, 0, 1.067)).
 * The page applies P_i and the viewer's LBS rule (lbs.h: weights renormalised, blend the
 * matrices, index clamp 109) and nothing else.
 *
 * Quantisation (all in one zlib stream, base64 in the page, inflated by the page's own
 * small inflate while it loads; no request of any kind; arrays as byte planes, triangle
 * indices as differences, so deflate finds runs):
 *  - positions: U16 over the LOD's bind box (error <= extent / 131070);
 *  - weights: U16 (w * 65535 rounded; the decoded weights are themselves U16 codes);
 *  - joint rotations: I16 per quaternion component (x 32767), positions U16 over the
 *    clip's joint box; rotations (~3e-5 rad) dominate: < 1e-4 of the height at 2 m.
 * Selftest and shot hooks (docs/preview.md):
 *   NAME.preview.html#selftest=CLIP@T  -> <pre id="animesh-selftest">{JSON}</pre>
 *   NAME.preview.html#shot=side&clip=CLIP&t=T -> the posed mesh only, orthographic from -Y.
 *
 * Drawing is a small WebGL renderer of our own (src/preview/preview_page.html, embedded in
 * the binary at build time): about 50 kB against three.js's 850 kB, which alone would
 * break the size target for a small creature. Playback skins in its vertex shader with the
 * same rule; the selftest, strain and wireframe skin on the CPU.
 *
 * No function prints; errors name the file and what is wrong. */
#ifndef AM_PREVIEW_H
#define AM_PREVIEW_H

#include "animesh/report.h"

#ifdef __cplusplus
extern "C" {
#endif

#include <stddef.h>
#include <stdint.h>

#include "core/error.h"
#include "core/io.h"
#include "skeleton/skeleton.h"

/* One mesh asset of the creature (a linkset part), as written. */
typedef struct am_preview_part {
    const char *name;          /* shown in the page, e.g. the file stem */
    const uint8_t *mesh;       /* the .llmesh bytes */
    size_t mesh_size;
    const uint8_t *texture_image;/* optional PNG or JPEG drawn with the high LOD's UVs, or NULL */
    size_t texture_size;
    const char *source;        /* names it in errors, e.g. its path (NULL: name) */
} am_preview_part;

/* One written .anim; its name (the file stem) is the page's clip name. */
typedef struct am_preview_clip {
    const char *name;
    const uint8_t *anim;
    size_t anim_size;
    const char *source;        /* names it in errors (NULL: name) */
} am_preview_clip;

typedef struct am_preview_input {
    const char *title;         /* the creature's name */
    const am_preview_part *parts;
    size_t part_count;         /* >= 1 */
    const am_preview_clip *clips;
    size_t clip_count;
    const am_skeleton *skel;   /* the viewer's avatar_skeleton.xml */
    double fps;                /* frames between key times; 0 = 30 */
} am_preview_input;

/* The page's size budget (docs/preview.md "Size budget"), each reduction stated in the
 * page (its info box) and in the stats below:
 *  - frames of a clip: its key times and the 30 fps grid while the key times are no more
 *    than the grid's frames; a denser clip (e.g. 65,535 key times in 60 s) is resampled on
 *    the 30 fps grid alone (every stored frame still the bench's pose at that time);
 *  - clips: the first AM_PREVIEW_MAX_CLIPS, in order, while their playing time (loop_out
 *    for a looping clip) stays within AM_PREVIEW_MAX_CLIP_SECONDS; the rest are left out;
 *  - textures: resized as the upload is (each side the largest power of two at most the
 *    side and at most 1024, texture.h am_texture_fit_side), sent as PNG.
 * Every string in the page's data is escaped so that no text (a file or part name, a
 * title) can leave its element. */
#define AM_PREVIEW_MAX_CLIPS 32
#define AM_PREVIEW_MAX_CLIP_SECONDS 300.0

/* Write the page into *out (appended). stats may be NULL. */
am_status am_preview_write(const am_preview_input *in, am_buf *out, am_preview_stats *stats, am_error *err);

/* NAME.preview.html into an output set (core/outset.h), from bytes the caller holds: the
 * `--preview` of import, skin, bind --skin and bendbox. `page_name` is a plain file name. */
struct am_outset;
am_status am_preview_add_to_set(struct am_outset *set, const char *page_name, const am_preview_input *in,
                                am_error *err);

/* The skin export's am_skin_page_fn (skin_build.h) for `--preview`: NAME.preview.html,
 * the rest pose of the mesh just encoded, added to the export's set; its final path in
 * summary->preview_path. ctx is unused (NULL). */
struct am_skin_summary;
am_status am_preview_skin_page(void *ctx, struct am_outset *set, const char *name, const uint8_t *mesh,
                               size_t mesh_size, const am_skeleton *skel, struct am_skin_summary *summary,
                               am_error *err);

/* The page template (generated at build time from preview_page.html). */
extern const char *const am_preview_page_template;

#ifdef __cplusplus
}
#endif

#endif
