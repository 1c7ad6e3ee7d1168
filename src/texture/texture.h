/* Textures for upload: 8-bit images, PNG in and out, JPEG in, and the JPEG-2000 code
 * stream (.j2c) Second Life and OpenSim store textures as. (Prefix am_tex_: the bench's
 * renderer has its own RGBA am_image in bench/render.h. The am_image_sniff/decode/read
 * entries below, for any image a model carries, also fill an am_tex_image.)
 *
 * An am_tex_image is 8 bits per channel, rows top to bottom (row 0 is the top of the picture,
 * as in PNG), channels interleaved: 3 = RGB, 4 = RGBA. Grey PNGs are expanded to RGB and
 * palette PNGs to RGB(A), so every image here has 3 or 4 channels. UV convention of the
 * meshes that use these images: v = 1 is the top row (v up, as OpenGL and the viewer).
 *
 * The .j2c is a raw J2K code stream (no JP2 boxes), written by OpenJPEG:
 *   - 64x64 code blocks, RPCL progression (resolution first, so the low-resolution discard
 *     levels the viewer fetches first sit at the start of the stream);
 *   - resolutions: min(6, log2(min side) + 1), at least 1;
 *   - colour transform (RCT/ICT) on the first three channels;
 *   - lossless: reversible 5/3 wavelet, one layer: decodes to exactly the input pixels;
 *   - lossy (default): irreversible 9/7 wavelet, quality layers at compression ratios
 *     40:1, 20:1, 10:1, 5:1 (the last layer ~5:1 of the raw pixels).
 * The viewer accepts power-of-two sides from 1 to 1024 (am_texture_check_size).
 */
#ifndef AM_TEXTURE_H
#define AM_TEXTURE_H

#ifdef __cplusplus
extern "C" {
#endif

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/error.h"
#include "core/io.h"

#define AM_TEXTURE_MAX_SIDE 1024

/* Files (docs/formats.md "Size limits"): a PNG starts with its signature and is at most 64 MB (an
 * 8192 x 8192 RGBA picture, the largest --resize takes, compresses well below it); a .j2c
 * starts with SOC + SIZ and is at most 16 MB (a lossless 1024 x 1024 RGBA stream is about
 * 3 MB). */
#define AM_PNG_MAX_FILE_BYTES ((size_t)64 << 20)
#define AM_J2C_MAX_FILE_BYTES ((size_t)16 << 20)
extern const am_file_format am_png_file_format;
extern const am_file_format am_image_file_format; /* PNG or JPEG (am_image_read), the PNG limit */
extern const am_file_format am_j2c_file_format;

typedef struct am_tex_image {
    uint32_t width, height;
    uint32_t channels; /* 3 or 4 */
    uint8_t *pixels;   /* width * height * channels, rows top to bottom */
} am_tex_image;

/* Allocate a zeroed image (channels 3 or 4). */
am_status am_tex_image_alloc(am_tex_image *img, uint32_t width, uint32_t height, uint32_t channels, am_error *err);
void am_tex_image_free(am_tex_image *img);
/* A copy of in (3 or 4 channels) as RGBA, alpha 255 where it has none: how a decoded picture
 * becomes one the bench's renderer draws on (it expects 4 channels). */
am_status am_tex_image_to_rgba(const am_tex_image *in, am_tex_image *out, am_error *err);

/* --- PNG (libpng; the rendered pictures' writer: libdeflate) --- */
/* Decode a PNG from memory; any bit depth / colour type becomes 8-bit RGB or RGBA
 * (16-bit samples are reduced by rounding). Not a PNG, truncated or corrupt data, or more
 * than 8192 pixels a side: AM_ERR_INVALID. */
am_status am_tex_png_decode(const uint8_t *data, size_t size, am_tex_image *out, am_error *err);
am_status am_tex_png_read(const char *path, am_tex_image *out, am_error *err);
/* The same, always as RGBA (am_tex_image_to_rgba). */
am_status am_tex_png_read_rgba(const char *path, am_tex_image *out, am_error *err);
/* Encode (appended to out). An RGBA image whose every alpha is 255 is written as RGB (the
 * same pixels, a quarter fewer bytes to compress). Rows are filtered by libpng's per-row
 * choice of all five filters, for images such as photographs. */
am_status am_tex_png_encode(const am_tex_image *img, am_buf *out, am_error *err);
/* The same for rendered pictures (flat colours, smooth gradients: the bench's sheets): every
 * row filtered against the row above (PNG filter Up), which is within 2% of the per-row
 * choice there at a third of its time, and the whole image deflated in one call by
 * libdeflate (level 2: 1.6 times zlib's speed, files 10% smaller). Same opaque rule, same
 * errors; the file is one IDAT chunk unless its data passes 2^31 - 1 bytes. */
am_status am_tex_png_encode_picture(const am_tex_image *img, am_buf *out, am_error *err);
/* Encode (am_tex_png_encode, am_tex_png_encode_picture) and write atomically. */
am_status am_tex_png_write(const char *path, const am_tex_image *img, am_error *err);
am_status am_tex_png_write_picture(const char *path, const am_tex_image *img, am_error *err);

/* --- JPEG (libjpeg-turbo) --- */
/* Budgets, enforced while libjpeg works (docs/limits.md): a progressive file's every scan
 * walks all of the picture's coefficient blocks however few bytes it has, so a file of a
 * few kB could repeat scans for minutes; libjpeg's encoder writes 10 (6 for grey), so more
 * than AM_JPEG_MAX_SCANS is refused when the next one starts. Warnings that mean damaged or
 * crafted data (a scan repeating bits already decoded, bad entropy codes, a segment or the
 * file ending early) are errors; more than AM_JPEG_MAX_WARNINGS harmless ones too. */
#define AM_JPEG_MAX_SCANS 100
#define AM_JPEG_MAX_WARNINGS 100
/* Decode a baseline or progressive JPEG from memory into 8-bit RGB (grey, YCbCr and CMYK /
 * YCCK pictures all become RGB; Adobe's inverted CMYK is recognised). Not a JPEG, corrupt
 * or truncated data, more than 8192 pixels a side (checked from the header, before
 * allocating), or over the budgets above: AM_ERR_INVALID. */
am_status am_tex_jpeg_decode(const uint8_t *data, size_t size, am_tex_image *out, am_error *err);
/* The picture's size from its frame header only (libjpeg's header read, no pixel decoded):
 * for checks that must come before the decode. */
am_status am_tex_jpeg_size(const uint8_t *data, size_t size, uint32_t *width, uint32_t *height, am_error *err);

/* --- any image a model may carry: sniffed, then decoded --- */
typedef enum am_image_type {
    AM_IMAGE_UNKNOWN = 0,
    AM_IMAGE_PNG,
    AM_IMAGE_JPEG,
    AM_IMAGE_OTHER /* recognised, but not a type animesh decodes (GIF, WebP, KTX2, ...) */
} am_image_type;

/* What the first bytes say the image is. *kind (may be NULL) gets a name for messages:
 * "PNG", "JPEG", "GIF", "WebP", "KTX2", "BMP", "DDS", "JPEG 2000", "TIFF", "Photoshop",
 * or "unknown". */
am_image_type am_image_sniff(const uint8_t *data, size_t size, const char **kind);
/* The MIME type of a PNG or JPEG ("image/png", "image/jpeg"), "" otherwise. */
const char *am_image_mime(am_image_type type);

/* The import pipeline's texture entry: bytes from a model (a glTF bufferView or data URI,
 * an FBX embedded texture, or a file's contents), sniffed as PNG or JPEG and decoded to
 * 8-bit RGB or RGBA, rows top to bottom. The alpha channel is kept exactly when the file
 * has one (PNG with alpha); an opaque picture stays RGB, because the viewer draws any
 * texture with an alpha channel as alpha-blended. Anything else is AM_ERR_INVALID naming
 * what it is ("a WebP image: only PNG and JPEG textures are read"). Then am_j2c_encode. */
am_status am_image_decode(const uint8_t *data, size_t size, am_tex_image *out, am_error *err);
/* The same from a file (the error names the path). */
am_status am_image_read(const char *path, am_tex_image *out, am_error *err);
/* The width and height a PNG (its IHDR chunk) or JPEG (its frame header) declares,
 * sniffed as am_image_decode does, without decoding a pixel. */
am_status am_image_size(const uint8_t *data, size_t size, uint32_t *width, uint32_t *height, am_error *err);

/* --- JPEG-2000 code stream (OpenJPEG) --- */
typedef struct am_j2c_options {
    bool lossless;
} am_j2c_options;

/* Encode img into out (appended). The image must pass am_texture_check_size. */
am_status am_j2c_encode(const am_tex_image *img, const am_j2c_options *opt, am_buf *out, am_error *err);
/* Decode a .j2c code stream (full resolution) into an 8-bit image of 3 or 4 channels (grey
 * becomes RGB, grey + alpha RGBA). The SIZ segment is checked before OpenJPEG sees it:
 * more than 4096 pixels a side, more than 1024 tiles or other than 1-4 components is
 * refused (AM_ERR_INVALID with the byte offset), so a hostile header cannot make it allocate. */
am_status am_j2c_decode(const uint8_t *data, size_t size, am_tex_image *out, am_error *err);

/* --- sizes --- */
/* AM_OK when both sides are powers of two in 1..1024; else AM_ERR_INVALID saying which side
 * is wrong and what would be accepted. */
am_status am_texture_check_size(uint32_t width, uint32_t height, am_error *err);
/* The side --resize picks: the largest power of two <= side, at most 1024 (never upscales). */
uint32_t am_texture_fit_side(uint32_t side);
/* Resize with a box filter (each output pixel is the area-weighted mean of the input pixels
 * it covers; alpha-weighted colours are NOT used: channels are averaged independently).
 * Exact for integer ratios; never upscale with it (out sides must be <= in sides). */
am_status am_tex_resize_box(const am_tex_image *in, uint32_t width, uint32_t height, am_tex_image *out, am_error *err);

/* Error statistics of b against a (same size and channels): max absolute difference over all
 * channels, mean absolute difference and PSNR in dB (INFINITY when identical). */
typedef struct am_tex_diff {
    int max_abs;
    double mean_abs;
    double psnr_db;
} am_tex_diff;
am_status am_tex_compare(const am_tex_image *a, const am_tex_image *b, am_tex_diff *out, am_error *err);

/* --- the `animesh texture` job --- */
/* Zeroed, the defaults (core/option.h). */
typedef struct am_texture_options {
    bool lossless; /* default false: lossy */
    bool resize;   /* opt-in (default false): non-power-of-two or > 1024 is refused unless set */
} am_texture_options;

typedef struct am_texture_result {
    uint32_t in_width, in_height;
    uint32_t out_width, out_height;
    uint32_t channels;
    bool resized;
    size_t j2c_bytes;
} am_texture_result;

/* Read a PNG or JPEG, check its size from the header before decoding it (am_image_size:
 * without opt->resize a picture the viewer would refuse is refused before it costs
 * anything), decode it (am_image_decode), fit it (opt->resize), encode and write the .j2c
 * atomically. On any failure nothing is written at out_path. */
am_status am_texture_convert(const char *png_path, const char *j2c_path, const am_texture_options *opt,
                             am_texture_result *res, am_error *err);

#ifdef __cplusplus
}
#endif

#endif
