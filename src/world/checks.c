#include "world/checks.h"

#include <string.h>

#include "anim.h"
#include "texture/texture.h"

am_status am_world_check_texture(const uint8_t *data, size_t size, uint32_t *width, uint32_t *height, am_error *err)
{
    /* A raw code stream starts with SOC (FF 4F) then SIZ (FF 51); a .jp2 has boxes instead. */
    static const uint8_t soc_siz[4] = {0xff, 0x4f, 0xff, 0x51};
    if (size < 4 || memcmp(data, soc_siz, 4) != 0)
        return am_fail(err, AM_ERR_INVALID,
                       "not a JPEG-2000 code stream (a .j2c starts FF 4F FF 51; convert with animesh texture)");
    am_tex_image img;
    am_status s = am_j2c_decode(data, size, &img, err);
    if (s)
        return s;
    s = am_texture_check_size(img.width, img.height, err);
    if (!s && width)
        *width = img.width;
    if (!s && height)
        *height = img.height;
    am_tex_image_free(&img);
    return s;
}

am_status am_world_check_anim(const uint8_t *data, size_t size, const am_skeleton *skel, am_error *err)
{
    am_anim anim;
    am_status s = am_anim_decode(data, size, &anim, err);
    if (s)
        return s;
    if (skel) {
        am_anim_report rep;
        s = am_anim_validate(&anim, skel, &rep, err);
        if (!s)
            s = am_anim_report_fail(&rep, err);
        am_anim_report_free(&rep);
    }
    am_anim_free(&anim);
    return s;
}
