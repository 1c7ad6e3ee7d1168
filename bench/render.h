/* Software renders of a bench pose: orthographic, depth-buffered, flat or smooth Lambert
 * shading (smooth: lit per vertex, blended across each triangle), vertex or texture colour, the skin's joints drawn as dots (with bones to their viewer
 * parent) over the mesh, each frame labelled with a small built-in bitmap font. PNG
 * output through texture/'s picture writer (am_tex_png_write_picture), written atomically.
 *
 * Views (avatar axes +X forward, +Y left, +Z up; image up is +Z except for top):
 *   front: seen from +X (the creature faces you): image right = +Y (its left)
 *   side : seen from -Y (its right side):           image right = +X (forward)
 *   top  : seen from +Z:                              image up = +X, image right = -Y
 * A strip puts N frames side by side with ONE projection for all of them (framing that
 * holds the posed mesh over the whole motion and the prim; never the joints, which a skin's
 * overrides may put far from the mesh), a scale bar and the view's axes. Only the joints
 * that carry skin weight are drawn. A whole-body cell of a sheet with more triangles than
 * the pixels the mesh covers on screen (estimated from its surface area, render.c says how)
 * is drawn from the mesh decimated to that budget (the picture cannot show more), a strip's
 * frame above one triangle per pixel of the mesh's box; a close-up (focus box) draws every
 * triangle near its view. The frames
 * of a strip and the cells of a sheet are drawn at once (am_render_options.threads), each
 * into its own image: the picture does not depend on the thread count.
 */
#ifndef AM_BENCH_RENDER_H
#define AM_BENCH_RENDER_H

#include "animesh/bench.h"

#ifdef __cplusplus
extern "C" {
#endif

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bench/bench.h"
#include "core/error.h"
#include "texture/texture.h"

/* The project has one image type, texture/texture.h's am_tex_image. The renderer's images
 * are those with channels == 4 (RGBA), made by am_image_alloc; every function here that
 * reads or draws on an am_image expects 4 channels. */
typedef am_tex_image am_image;

/* A zeroed RGBA image; sizes 1..32768 a side, else AM_ERR_INVALID. */
am_status am_image_alloc(am_image *img, int width, int height, am_error *err);
void am_image_free(am_image *img);
/* PNG files of these images: texture/texture.h's one PNG API (am_tex_png_read_rgba to read
 * one as RGBA, am_tex_png_encode_picture / am_tex_png_write_picture for rendered pictures,
 * am_tex_image_to_rgba for a decoded texture). */

typedef enum am_view { AM_VIEW_SIDE = 0, AM_VIEW_FRONT, AM_VIEW_TOP } am_view; /* side: the default */
/* "front" | "side" | "top" -> view; false when unknown. */
bool am_view_parse(const char *s, am_view *out);
const char *am_view_name(am_view v);

/* Zeroed, the defaults. */
typedef struct am_render_options {
    am_view view;                  /* default AM_VIEW_SIDE (0) */
    int frame_width, frame_height; /* pixels per frame; 0 = 360 x 400 */
    bool flat;                     /* flat shading (per triangle); default Lambert, smooth */
    bool hide_joints;              /* no joints and bones over the mesh (default false: the
                                      skin's joints and bones drawn) */
    const am_image *texture;       /* RGBA atlas sampled at the vertex UVs, or NULL */
    const float *vertex_rgb;       /* 3 * vertex_count colours 0..1, or NULL */
    float base_rgb[3];             /* colour when neither is given (0,0,0 = default grey) */
    bool label_joints;             /* each drawn joint's name beside its dot; default false */
    bool focus;                    /* frame this prim-frame box instead of the posed mesh;
                                      default false */
    am_vec3 focus_min, focus_max;  /* (strips and single frames; one box for several strips
                                      gives them one scale, e.g. am_render_posed_box) */
    bool centre_each;              /* a strip: each frame centred on its own posed meshes, at
                                      the one scale that fits the largest of them (a part that
                                      travels far beyond its size, an eye riding the head, stays
                                      big; travel shows against the prim's cross); no focus */
    int threads;                   /* frames of a strip or sheet drawn at once (core/parallel.h):
                                      0 = every core, 1 = one after another; the picture is
                                      the same either way */
} am_render_options;
/* Defaults: side view, 360 x 400, Lambert, joints drawn (the same meaning as a zeroed struct). */
void am_render_options_init(am_render_options *o);

#define AM_RENDER_JOINTS_AUTO_MAX 25
/* "none" | "dots" | "names" | "auto" -> mode; false when unknown. */
bool am_render_joints_parse(const char *s, am_render_joints *out);
/* The joints the skin weights (those a frame draws). */
size_t am_render_weighted_joint_count(const am_bench *b);
/* hide_joints and label_joints of `o` for a mode on this bench (AUTO counts its joints). */
void am_render_set_joints(am_render_options *o, am_render_joints mode, const am_bench *b);

/* The frame size (its label and scale bar included) that frames a prim-frame box seen from
 * `view` as a sheet's panel should: the box's larger on-screen extent gets the frame's
 * long side of long_px (less the margins), the other side what the box needs at that scale
 * (at least min_px). From long_px 320 the box spans at least 70 % of the frame's longer
 * side (the label and scale bar take 60 px of the height). */
void am_render_fit_frame(am_view view, am_vec3 lo, am_vec3 hi, int long_px, int min_px, int *w, int *h);
/* The same for an on-screen extent: du wide, dv high (metres). */
void am_render_fit_extent(double du, double dv, int long_px, int min_px, int *w, int *h);

/* One frame of already posed positions (prim frame) into an image (am_render_frame) or a
 * PNG. joints: NULL or skel->joint_count prim-frame positions (only the skin's joints are
 * drawn). */
am_status am_render_frame(const am_bench *b, const float *prim, const am_vec3 *joints, const am_render_options *opt,
                          const char *label, am_image *out, am_error *err);
am_status am_render_png(const am_bench *b, const float *prim, const am_vec3 *joints,
                        const am_render_options *opt, const char *label, const char *path,
                        am_error *err);

/* A strip of frames of one motion at the given times (motion -1: rest at each time),
 * side by side, each labelled "t=1.50s". */
am_status am_render_strip(const am_bench *b, int motion, const double *times, size_t n,
                          const am_render_options *opt, am_image *out, am_error *err);
am_status am_render_strip_png(const am_bench *b, int motion, const double *times, size_t n,
                              const am_render_options *opt, const char *path, am_error *err);

/* Several benches drawn together (the parts of one creature, each its own mesh asset on the
 * same skeleton): one framing for all, one depth buffer per frame, joints over every mesh. */
typedef struct am_render_part {
    const am_bench *bench;
    int motion;        /* -1: rest */
    float base_rgb[3]; /* its colour (0,0,0 = default); see am_render_palette */
} am_render_part;
/* The strip of am_render_strip for every part; the header names `title` (NULL: the first
 * part's source) and the first part's motion. */
am_status am_render_strip_parts(const am_render_part *parts, size_t np, const double *times, size_t n,
                                const am_render_options *opt, const char *title, am_image *out, am_error *err);
/* The prim-frame box of every part's posed mesh at every time (broken, far-away vertices
 * left out): what to put in am_render_options.focus so several strips share one framing. */
am_status am_render_posed_box(const am_render_part *parts, size_t np, const double *times, size_t n,
                              am_vec3 *lo, am_vec3 *hi, am_error *err);
/* The largest on-screen width and height (metres, seen from `view`) of every part's posed
 * meshes together, frame by frame, over the frames at `times` (broken, far-away vertices
 * left out): the extent a strip with centre_each fits. */
am_status am_render_frame_extent(const am_render_part *parts, size_t np, const double *times, size_t n, am_view view,
                                 double *du, double *dv, am_error *err);
/* Colour i of the parts palette (i = 0: the default mesh colour); it repeats after 8. */
void am_render_palette(size_t i, float rgb[3]);
/* One cell of a sheet: posed positions (prim frame), joints (NULL or skel->joint_count,
 * prim frame), a label, the view, optional per-vertex colours, and an optional box (prim
 * frame) the frame is fitted to instead of the whole mesh (close-ups). */
typedef struct am_render_cell {
    const float *prim;
    const am_vec3 *joints;
    const char *label;
    am_view view;
    const float *vertex_rgb;
    bool focus;
    am_vec3 focus_min, focus_max;
} am_render_cell;
/* Frames in a grid of `columns`, each fitted to its own content, under one header line. */
am_status am_render_sheet(const am_bench *b, const am_render_cell *frames, size_t n, int columns,
                          const am_render_options *opt, const char *title, am_image *out, am_error *err);

/* The triangles each cell of am_render_sheet(b, frames, n, ..., opt) draws (n counts): a
 * whole-body cell the mesh decimated to what it covers, a close-up every one. */
am_status am_render_sheet_triangles(const am_bench *b, const am_render_cell *frames, size_t n,
                                    const am_render_options *opt, size_t *triangles, am_error *err);

/* The posed mesh's silhouette seen from -Y (+X right, +Z up), orthographic: the x-z box of
 * `bind` (3 * vertex_count, bind frame) plus a margin of 5% of its longer side on every side,
 * fitted to width x height and centred; mask[y * width + x] = 1 where a triangle covers the
 * pixel centre (row 0 at the top). The preview page's #shot=side is held to it. */
am_status am_render_silhouette(const am_bench *b, const float *bind, int width, int height, uint8_t *mask,
                               am_error *err);

/* n times evenly spread over [0, duration] of a motion (n >= 1; n = 1 gives 0). */
void am_render_even_times(double duration, size_t n, double *times);

/* The built-in 5x7 bitmap font (digits, letters (upper case shown for lower), . , : = + - /
 * ( ) % _ and space), scaled by `scale`, drawn at (x, y) top-left. Returns the advance. */
int am_draw_text(am_image *img, int x, int y, const char *text, int scale, const uint8_t rgb[3]);
int am_text_width(const char *text, int scale);

#ifdef __cplusplus
}
#endif

#endif
