/* JPEG through libjpeg(-turbo)'s classic API. libjpeg reports a fatal error by calling
 * error_exit, which must not return: ours longjmps back to the one setjmp below, the
 * standard pattern of the library's own example.c. Everything the jump can skip over is
 * either volatile or allocated before the setjmp. */
#include <setjmp.h>
#include <stdio.h> /* before jpeglib.h, which uses FILE and size_t */
#include <stdlib.h>
#include <string.h>

#include <jpeglib.h>
#include <jerror.h>

#include "texture/texture.h"

/* Same bound as PNG: refused from the header, before any pixel buffer is allocated. */
#define AM_JPEG_MAX_SIDE 8192u

typedef struct jpeg_guard {
    struct jpeg_error_mgr mgr;
    struct jpeg_progress_mgr progress;
    jmp_buf jump;
    char message[JMSG_LENGTH_MAX + 64];
    unsigned warnings;
} jpeg_guard;

static void on_error(j_common_ptr cinfo)
{
    jpeg_guard *g = (jpeg_guard *)cinfo->err;
    char text[JMSG_LENGTH_MAX];
    (*cinfo->err->format_message)(cinfo, text);
    snprintf(g->message, sizeof g->message, "corrupt JPEG: %s", text);
    longjmp(g->jump, 1);
}

/* Warnings that mean the data is damaged or built to cost: a scan that repeats or skips
 * bits of a coefficient already decoded (the scan bomb's tool), sequential scan parameters
 * that are not, entropy codes that decode to nothing, a segment or the file ending early
 * (libjpeg would pad with grey and decode on). The others (extraneous bytes before a
 * marker, an unknown JFIF revision or Adobe transform, a bad ICC marker) are common in
 * real files and harmless, up to AM_JPEG_MAX_WARNINGS of them. */
static bool hostile_warning(int code)
{
    return code == JWRN_BOGUS_PROGRESSION || code == JWRN_NOT_SEQUENTIAL || code == JWRN_HUFF_BAD_CODE ||
           code == JWRN_ARITH_BAD_CODE || code == JWRN_HIT_MARKER || code == JWRN_JPEG_EOF;
}

static void on_message(j_common_ptr cinfo, int level)
{
    /* Never print (library code); level >= 0 is trace output. */
    jpeg_guard *g = (jpeg_guard *)cinfo->err;
    if (level >= 0)
        return;
    int code = cinfo->err->msg_code;
    if (code == JWRN_JPEG_EOF) {
        snprintf(g->message, sizeof g->message, "truncated JPEG: the data ends before the last row");
        longjmp(g->jump, 1);
    }
    if (hostile_warning(code) || ++g->warnings > AM_JPEG_MAX_WARNINGS) {
        char text[JMSG_LENGTH_MAX];
        (*cinfo->err->format_message)(cinfo, text);
        snprintf(g->message, sizeof g->message, "corrupt JPEG: %s%s", text,
                 hostile_warning(code) ? "" : " (and more warnings than animesh takes)");
        longjmp(g->jump, 1);
    }
}

/* libjpeg calls this between the units of work it does, scans included: a progressive
 * file's every scan walks all the picture's coefficient blocks, however few bytes it
 * has, so scans are what a small file multiplies its cost by. More than
 * AM_JPEG_MAX_SCANS stops the decode (libjpeg-turbo's own advice: djpeg -maxscans). */
static void on_progress(j_common_ptr cinfo)
{
    j_decompress_ptr d = (j_decompress_ptr)cinfo;
    if (d->input_scan_number > AM_JPEG_MAX_SCANS) {
        jpeg_guard *g = (jpeg_guard *)cinfo->err;
        snprintf(g->message, sizeof g->message,
                 "JPEG has more than %d scans (a progressive picture needs about 10): refused as too costly to "
                 "decode",
                 AM_JPEG_MAX_SCANS);
        longjmp(g->jump, 1);
    }
}

static void cmyk_to_rgb(const uint8_t *cmyk, uint8_t *rgb, uint32_t width, bool adobe_inverted)
{
    for (uint32_t x = 0; x < width; x++) {
        unsigned c = cmyk[4 * x], m = cmyk[4 * x + 1], y = cmyk[4 * x + 2], k = cmyk[4 * x + 3];
        if (!adobe_inverted) {
            c = 255 - c;
            m = 255 - m;
            y = 255 - y;
            k = 255 - k;
        }
        /* Adobe stores inverted CMYK: the value is already (1 - ink). */
        rgb[3 * x] = (uint8_t)((c * k + 127) / 255);
        rgb[3 * x + 1] = (uint8_t)((m * k + 127) / 255);
        rgb[3 * x + 2] = (uint8_t)((y * k + 127) / 255);
    }
}

/* The start-of-image marker and a size libjpeg's source can take. */
static am_status check_head(const uint8_t *data, size_t size, am_error *err)
{
    if (size < 3 || data[0] != 0xFF || data[1] != 0xD8 || data[2] != 0xFF)
        return am_fail(err, AM_ERR_INVALID, "not a JPEG file (no start-of-image marker)");
    if (size > (size_t)0xFFFFFFFFu)
        return am_fail(err, AM_ERR_INVALID, "JPEG of %zu bytes is too large", size);
    return AM_OK;
}

/* A decompressor whose errors and warnings come to the guard (the caller sets its jump). */
static void guard_init(struct jpeg_decompress_struct *cinfo, jpeg_guard *guard)
{
    memset(cinfo, 0, sizeof *cinfo);
    memset(guard, 0, sizeof *guard);
    cinfo->err = jpeg_std_error(&guard->mgr);
    guard->mgr.error_exit = on_error;
    guard->mgr.emit_message = on_message;
}

am_status am_tex_jpeg_decode(const uint8_t *data, size_t size, am_tex_image *out, am_error *err)
{
    memset(out, 0, sizeof *out);
    am_status head = check_head(data, size, err);
    if (head)
        return head;
    struct jpeg_decompress_struct cinfo;
    jpeg_guard guard;
    guard_init(&cinfo, &guard);
    guard.progress.progress_monitor = on_progress;
    /* Row buffer for the CMYK path; freed after the jump too. */
    uint8_t *volatile row = NULL;
    if (setjmp(guard.jump)) {
        jpeg_destroy_decompress(&cinfo);
        free(row);
        am_tex_image_free(out);
        return am_fail(err, AM_ERR_INVALID, "%s", guard.message);
    }
    jpeg_create_decompress(&cinfo);
    cinfo.progress = &guard.progress;
    /* A hostile progressive file can ask for large coefficient buffers: cap libjpeg's pool. */
    cinfo.mem->max_memory_to_use = 512L << 20;
    jpeg_mem_src(&cinfo, data, (unsigned long)size);
    jpeg_read_header(&cinfo, TRUE);
    if (cinfo.image_width > AM_JPEG_MAX_SIDE || cinfo.image_height > AM_JPEG_MAX_SIDE) {
        am_status s = am_fail(err, AM_ERR_INVALID, "JPEG is %ux%u: larger than %u pixels on a side",
                              cinfo.image_width, cinfo.image_height, AM_JPEG_MAX_SIDE);
        jpeg_destroy_decompress(&cinfo);
        return s;
    }
    bool cmyk = cinfo.jpeg_color_space == JCS_CMYK || cinfo.jpeg_color_space == JCS_YCCK;
    cinfo.out_color_space = cmyk ? JCS_CMYK : JCS_RGB; /* grey and YCbCr become RGB */
    jpeg_start_decompress(&cinfo);
    am_status s = am_tex_image_alloc(out, cinfo.output_width, cinfo.output_height, 3, err);
    if (!s && cmyk && !(row = malloc((size_t)cinfo.output_width * 4)))
        s = am_fail_nomem(err, "JPEG row");
    if (s) {
        jpeg_destroy_decompress(&cinfo);
        free(row);
        am_tex_image_free(out);
        return s;
    }
    size_t pitch = (size_t)out->width * 3;
    while (cinfo.output_scanline < cinfo.output_height) {
        uint8_t *dst = out->pixels + (size_t)cinfo.output_scanline * pitch;
        JSAMPROW rows[1] = {cmyk ? row : dst};
        if (jpeg_read_scanlines(&cinfo, rows, 1) != 1)
            break; /* suspension cannot happen with a memory source; be safe */
        if (cmyk)
            cmyk_to_rgb(row, dst, out->width, cinfo.saw_Adobe_marker);
    }
    bool complete = cinfo.output_scanline == cinfo.output_height;
    if (complete)
        jpeg_finish_decompress(&cinfo);
    jpeg_destroy_decompress(&cinfo);
    free(row);
    if (!complete) {
        am_tex_image_free(out);
        return am_fail(err, AM_ERR_INVALID, "truncated JPEG: the data ends before the last row");
    }
    return AM_OK;
}

am_status am_tex_jpeg_size(const uint8_t *data, size_t size, uint32_t *width, uint32_t *height, am_error *err)
{
    *width = *height = 0;
    am_status head = check_head(data, size, err);
    if (head)
        return head;
    struct jpeg_decompress_struct cinfo;
    jpeg_guard guard;
    guard_init(&cinfo, &guard);
    if (setjmp(guard.jump)) {
        jpeg_destroy_decompress(&cinfo);
        return am_fail(err, AM_ERR_INVALID, "%s", guard.message);
    }
    jpeg_create_decompress(&cinfo);
    jpeg_mem_src(&cinfo, data, (unsigned long)size);
    jpeg_read_header(&cinfo, TRUE); /* markers up to the first scan's header, no entropy data */
    *width = cinfo.image_width;
    *height = cinfo.image_height;
    jpeg_destroy_decompress(&cinfo);
    return AM_OK;
}
