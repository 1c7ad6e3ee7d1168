/* JPEG-2000 code streams through OpenJPEG, to and from memory (the encoder parameters are
 * documented in texture.h). OpenJPEG reports errors through a callback: the first message
 * is kept and becomes the am_error text. */
#include <openjpeg.h>
#include <stdlib.h>
#include <string.h>

#include "core/bytes.h"
#include "texture/texture.h"

#define AM_J2C_MAX_SIDE 4096u /* SL textures are <= 2048; bounds what a hostile header can allocate */
#define AM_J2C_MAX_TILES 1024u


typedef struct opj_msg {
    char text[200];
} opj_msg;

static void keep_first_error(const char *msg, void *user)
{
    opj_msg *m = user;
    if (m->text[0])
        return;
    snprintf(m->text, sizeof m->text, "%s", msg);
    size_t n = strlen(m->text);
    while (n && (m->text[n - 1] == '\n' || m->text[n - 1] == ' '))
        m->text[--n] = 0;
}

static void ignore_message(const char *msg, void *user)
{
    (void)msg;
    (void)user;
}

static void quiet_codec(opj_codec_t *codec, opj_msg *m)
{
    opj_set_error_handler(codec, keep_first_error, m);
    opj_set_warning_handler(codec, ignore_message, NULL);
    opj_set_info_handler(codec, ignore_message, NULL);
}

/* A raw code stream starts with SOC (FF 4F) then SIZ (FF 51); a .jp2 has boxes instead. */
static am_status sniff_j2c(const uint8_t *h, size_t n, am_error *err)
{
    const char *kind = am_sniff_kind(h, n);
    if (strcmp(kind, "a JPEG-2000 code stream") == 0)
        return AM_OK;
    return am_fail_at(err, AM_ERR_INVALID, 0,
                      "not a JPEG-2000 code stream (a .j2c starts FF 4F FF 51; convert with animesh texture): the file "
                      "is %s",
                      kind);
}

const am_file_format am_j2c_file_format = {"a JPEG-2000 code stream", AM_J2C_MAX_FILE_BYTES, sniff_j2c};

/* ---- output stream into an am_buf (the encoder may seek back to patch markers) ---- */
typedef struct out_stream {
    am_buf *buf;
    size_t base; /* buf->size when encoding started */
    size_t pos;  /* relative to base */
    bool failed;
} out_stream;

static bool out_ensure(out_stream *o, size_t end)
{
    size_t want = o->base + end;
    if (want > o->buf->size) {
        if (am_buf_reserve(o->buf, want - o->buf->size, NULL)) {
            o->failed = true;
            return false;
        }
        memset(o->buf->data + o->buf->size, 0, want - o->buf->size);
        o->buf->size = want;
    }
    return true;
}

static OPJ_SIZE_T out_write(void *data, OPJ_SIZE_T n, void *user)
{
    out_stream *o = user;
    if (!out_ensure(o, o->pos + n))
        return (OPJ_SIZE_T)-1;
    memcpy(o->buf->data + o->base + o->pos, data, n);
    o->pos += n;
    return n;
}

static OPJ_OFF_T out_skip(OPJ_OFF_T n, void *user)
{
    out_stream *o = user;
    if (n < 0 && (size_t)(-n) > o->pos)
        return -1;
    size_t np = n < 0 ? o->pos - (size_t)(-n) : o->pos + (size_t)n;
    if (!out_ensure(o, np))
        return -1;
    o->pos = np;
    return n;
}

static OPJ_BOOL out_seek(OPJ_OFF_T n, void *user)
{
    out_stream *o = user;
    if (n < 0 || !out_ensure(o, (size_t)n))
        return OPJ_FALSE;
    o->pos = (size_t)n;
    return OPJ_TRUE;
}

/* ---- input stream over caller bytes ---- */
typedef struct in_stream {
    const uint8_t *data;
    size_t size, pos;
} in_stream;

static OPJ_SIZE_T in_read(void *dst, OPJ_SIZE_T n, void *user)
{
    in_stream *s = user;
    if (s->pos >= s->size)
        return (OPJ_SIZE_T)-1;
    size_t left = s->size - s->pos;
    if (n > left)
        n = left;
    memcpy(dst, s->data + s->pos, n);
    s->pos += n;
    return n;
}

static OPJ_OFF_T in_skip(OPJ_OFF_T n, void *user)
{
    in_stream *s = user;
    if (n < 0) {
        if ((size_t)(-n) > s->pos)
            return -1;
        s->pos -= (size_t)(-n);
        return n;
    }
    size_t left = s->size - s->pos;
    if ((size_t)n > left)
        n = (OPJ_OFF_T)left;
    s->pos += (size_t)n;
    return n;
}

static OPJ_BOOL in_seek(OPJ_OFF_T n, void *user)
{
    in_stream *s = user;
    if (n < 0 || (size_t)n > s->size)
        return OPJ_FALSE;
    s->pos = (size_t)n;
    return OPJ_TRUE;
}

static int resolutions_for(uint32_t w, uint32_t h)
{
    uint32_t m = w < h ? w : h;
    int n = 1;
    while (n < 6 && (m >> n) >= 1)
        n++;
    return n; /* 2^(n-1) <= min side, as OpenJPEG requires */
}

am_status am_j2c_encode(const am_tex_image *img, const am_j2c_options *opt, am_buf *out, am_error *err)
{
    if (!img->pixels || (img->channels != 3 && img->channels != 4))
        return am_fail(err, AM_ERR_INVALID, "j2c: image needs 3 or 4 channels");
    am_status s = am_texture_check_size(img->width, img->height, err);
    if (s)
        return s;

    opj_cparameters_t p;
    opj_set_default_encoder_parameters(&p);
    p.cblockw_init = 64;
    p.cblockh_init = 64;
    p.prog_order = OPJ_RPCL;
    p.numresolution = resolutions_for(img->width, img->height);
    p.tcp_mct = 1;
    p.cp_disto_alloc = 1;
    if (opt && opt->lossless) {
        p.irreversible = 0;
        p.tcp_numlayers = 1;
        p.tcp_rates[0] = 0; /* 0 = no rate limit: every bit plane, lossless with 5/3 */
    } else {
        static const float rates[] = {40.0f, 20.0f, 10.0f, 5.0f};
        p.irreversible = 1;
        p.tcp_numlayers = (int)(sizeof rates / sizeof rates[0]);
        for (int i = 0; i < p.tcp_numlayers; i++)
            p.tcp_rates[i] = rates[i];
    }

    opj_image_cmptparm_t cp[4];
    memset(cp, 0, sizeof cp);
    for (uint32_t c = 0; c < img->channels; c++) {
        cp[c].dx = cp[c].dy = 1;
        cp[c].w = img->width;
        cp[c].h = img->height;
        cp[c].prec = 8;
        cp[c].sgnd = 0;
    }
    opj_image_t *oi = opj_image_create(img->channels, cp, OPJ_CLRSPC_SRGB);
    if (!oi)
        return am_fail_nomem(err, "j2c image");
    oi->x0 = oi->y0 = 0;
    oi->x1 = img->width;
    oi->y1 = img->height;
    size_t npx = (size_t)img->width * img->height;
    for (uint32_t c = 0; c < img->channels; c++)
        for (size_t i = 0; i < npx; i++)
            oi->comps[c].data[i] = img->pixels[i * img->channels + c];

    opj_msg msg = {{0}};
    opj_codec_t *codec = opj_create_compress(OPJ_CODEC_J2K);
    opj_stream_t *st = opj_stream_create(OPJ_J2K_STREAM_CHUNK_SIZE, OPJ_FALSE);
    out_stream os = {out, out->size, 0, false};
    if (!codec || !st) {
        s = am_fail_nomem(err, "j2c encoder");
        goto done;
    }
    quiet_codec(codec, &msg);
    opj_stream_set_user_data(st, &os, NULL);
    opj_stream_set_write_function(st, out_write);
    opj_stream_set_skip_function(st, out_skip);
    opj_stream_set_seek_function(st, out_seek);
    if (!opj_setup_encoder(codec, &p, oi) || !opj_start_compress(codec, oi, st) || !opj_encode(codec, st) ||
        !opj_end_compress(codec, st)) {
        if (os.failed)
            s = am_fail_nomem(err, "j2c output");
        else
            s = am_fail(err, AM_ERR_INVALID, "JPEG-2000 encoding failed: %s",
                        msg.text[0] ? msg.text : "OpenJPEG gave no reason");
        out->size = os.base;
        goto done;
    }
    /* out->size already spans everything written (out_ensure grows it). */
done:
    if (st)
        opj_stream_destroy(st);
    if (codec)
        opj_destroy_codec(codec);
    opj_image_destroy(oi);
    return s;
}

static const char *marker_name(unsigned m)
{
    switch (m) {
    case 0xFF51: return "SIZ";
    case 0xFF52: return "COD";
    case 0xFF53: return "COC";
    case 0xFF55: return "TLM";
    case 0xFF57: return "PLM";
    case 0xFF58: return "PLT";
    case 0xFF5C: return "QCD";
    case 0xFF5D: return "QCC";
    case 0xFF5E: return "RGN";
    case 0xFF5F: return "POC";
    case 0xFF60: return "PPM";
    case 0xFF61: return "PPT";
    case 0xFF63: return "CRG";
    case 0xFF64: return "COM";
    case 0xFF90: return "SOT";
    case 0xFFD9: return "EOC";
    default: return "unknown";
    }
}

/* Walk the marker segments (ISO 15444-1 A.4) so damage is named by marker and byte offset:
 * the main header up to the first SOT, then each tile-part by its Psot length. A stream
 * may end early (a partial download decodes at a lower resolution), but a segment may not
 * run past the end. *tiles_at is where the first tile-part starts. */
static am_status walk_markers(const uint8_t *d, size_t n, size_t *tiles_at, am_error *err)
{
    size_t pos = 2; /* after SOC */
    *tiles_at = n;
    while (pos + 4 <= n) {
        unsigned m = am_be_u16(d + pos);
        if (d[pos] != 0xFF)
            return am_fail_at(err, AM_ERR_INVALID, pos, "JPEG-2000: expected a marker (FF xx), found %02X %02X", d[pos],
                              d[pos + 1]);
        if (m == 0xFF90 || m == 0xFFD9)
            break;
        size_t len = am_be_u16(d + pos + 2);
        if (len < 2 || pos + 2 + len > n)
            return am_fail_at(
                err, AM_ERR_INVALID, pos,
                "JPEG-2000 marker %04X (%s): a %zu-byte segment runs past the end of the stream (%zu bytes)", m,
                marker_name(m), len, n);
        pos += 2 + len;
    }
    *tiles_at = pos;
    while (pos + 12 <= n && d[pos] == 0xFF && d[pos + 1] == 0x90) {
        size_t psot = am_be_u32(d + pos + 6);
        if (psot == 0) /* the last tile-part: up to EOC */
            return AM_OK;
        if (psot < 14 || pos + psot > n)
            return am_fail_at(err, AM_ERR_INVALID, pos,
                              "JPEG-2000 tile-part (SOT): %zu bytes announced, the stream ends %zu bytes later", psot,
                              n - pos);
        pos += psot;
    }
    if (pos + 2 <= n && !(d[pos] == 0xFF && (d[pos + 1] == 0xD9 || d[pos + 1] == 0x90)))
        return am_fail_at(err, AM_ERR_INVALID, pos, "JPEG-2000: expected SOT or EOC, found %02X %02X", d[pos],
                          d[pos + 1]);
    return AM_OK;
}

static uint8_t to8(OPJ_INT32 v, const opj_image_comp_t *c)
{
    if (c->sgnd)
        v += 1 << (c->prec - 1);
    if (c->prec > 8)
        v = (OPJ_INT32)(((int64_t)v * 255 + ((1 << c->prec) - 1) / 2) / ((1 << c->prec) - 1));
    else if (c->prec < 8)
        v = (OPJ_INT32)((v * 255 + ((1 << c->prec) - 1) / 2) / ((1 << c->prec) - 1));
    return (uint8_t)(v < 0 ? 0 : v > 255 ? 255 : v);
}

am_status am_j2c_decode(const uint8_t *data, size_t size, am_tex_image *out, am_error *err)
{
    memset(out, 0, sizeof *out);
    /* A raw code stream starts with SOC (FF 4F) followed by SIZ (FF 51). */
    if (size < 4 || data[0] != 0xFF || data[1] != 0x4F || data[2] != 0xFF || data[3] != 0x51)
        return am_fail(err, AM_ERR_INVALID, "not a JPEG-2000 code stream (no SOC/SIZ marker at byte 0)");
    /* Check the SIZ segment ourselves first (ISO 15444-1 A.5.1): OpenJPEG allocates per
     * tile while reading the header, so a hostile size or tile count must not reach it. */
    if (size < 43)
        return am_fail_at(err, AM_ERR_INVALID, size, "JPEG-2000 SIZ segment truncated");
    uint32_t xs = am_be_u32(data + 8), ys = am_be_u32(data + 12), xo = am_be_u32(data + 16), yo = am_be_u32(data + 20);
    uint32_t xt = am_be_u32(data + 24), yt = am_be_u32(data + 28), xto = am_be_u32(data + 32), yto = am_be_u32(data + 36);
    uint32_t csiz = am_be_u16(data + 40);
    if (xo >= xs || yo >= ys || xs - xo > AM_J2C_MAX_SIDE || ys - yo > AM_J2C_MAX_SIDE)
        return am_fail_at(err, AM_ERR_INVALID, 8, "JPEG-2000 image size %ux%u unsupported (at most %u a side)",
                          xs - (xo < xs ? xo : 0), ys - (yo < ys ? yo : 0), AM_J2C_MAX_SIDE);
    if (xt == 0 || yt == 0 || xto > xo || yto > yo ||
        (uint64_t)((xs - xto + xt - 1) / xt) * ((ys - yto + yt - 1) / yt) > AM_J2C_MAX_TILES)
        return am_fail_at(err, AM_ERR_INVALID, 24, "JPEG-2000 tiling unsupported (tile %ux%u, more than %u tiles)", xt,
                          yt, AM_J2C_MAX_TILES);
    if (csiz < 1 || csiz > 4)
        return am_fail_at(err, AM_ERR_INVALID, 40, "JPEG-2000 image with %u components (1 to 4 supported)", csiz);
    size_t tiles_at;
    if (walk_markers(data, size, &tiles_at, err))
        return AM_ERR_INVALID;

    opj_msg msg = {{0}};
    opj_dparameters_t dp;
    opj_set_default_decoder_parameters(&dp);
    opj_codec_t *codec = opj_create_decompress(OPJ_CODEC_J2K);
    opj_stream_t *st = opj_stream_create(OPJ_J2K_STREAM_CHUNK_SIZE, OPJ_TRUE);
    opj_image_t *oi = NULL;
    in_stream is = {data, size, 0};
    am_status s = AM_OK;
    if (!codec || !st) {
        s = am_fail_nomem(err, "j2c decoder");
        goto done;
    }
    quiet_codec(codec, &msg);
    opj_stream_set_user_data(st, &is, NULL);
    opj_stream_set_user_data_length(st, size);
    opj_stream_set_read_function(st, in_read);
    opj_stream_set_skip_function(st, in_skip);
    opj_stream_set_seek_function(st, in_seek);
    if (!opj_setup_decoder(codec, &dp) || !opj_read_header(st, codec, &oi)) {
        s = am_fail(err, AM_ERR_INVALID, "bad JPEG-2000 main header (bytes 0 to %zu): %s", tiles_at,
                    msg.text[0] ? msg.text : "unreadable");
        goto done;
    }
    uint32_t w = oi->x1 - oi->x0, h = oi->y1 - oi->y0;
    if (w == 0 || h == 0 || w > AM_J2C_MAX_SIDE || h > AM_J2C_MAX_SIDE || oi->numcomps < 1 || oi->numcomps > 4) {
        s = am_fail(err, AM_ERR_INVALID, "unsupported JPEG-2000 image: %ux%u with %u components", w, h,
                    oi->numcomps);
        goto done;
    }
    if (!opj_decode(codec, st, oi) || !opj_end_decompress(codec, st)) {
        s = am_fail(err, AM_ERR_INVALID, "corrupt JPEG-2000 code stream in the tile data (from byte %zu): %s", tiles_at,
                    msg.text[0] ? msg.text : "decoding failed");
        goto done;
    }
    for (uint32_t c = 0; c < oi->numcomps; c++) {
        const opj_image_comp_t *k = &oi->comps[c];
        if (!k->data || k->w != w || k->h != h || k->prec < 1 || k->prec > 16) {
            s = am_fail(err, AM_ERR_INVALID, "unsupported JPEG-2000 component %u (subsampled or %u-bit)", c,
                        k->prec);
            goto done;
        }
    }
    uint32_t nc = oi->numcomps, ch = (nc == 2 || nc == 4) ? 4 : 3;
    s = am_tex_image_alloc(out, w, h, ch, err);
    if (s)
        goto done;
    size_t npx = (size_t)w * h;
    for (size_t i = 0; i < npx; i++) {
        uint8_t *px = out->pixels + i * ch;
        if (nc <= 2) { /* grey (+ alpha) */
            px[0] = px[1] = px[2] = to8(oi->comps[0].data[i], &oi->comps[0]);
            if (nc == 2)
                px[3] = to8(oi->comps[1].data[i], &oi->comps[1]);
        } else {
            for (uint32_t c = 0; c < nc; c++)
                px[c] = to8(oi->comps[c].data[i], &oi->comps[c]);
        }
    }
done:
    if (oi)
        opj_image_destroy(oi);
    if (st)
        opj_stream_destroy(st);
    if (codec)
        opj_destroy_codec(codec);
    return s;
}
