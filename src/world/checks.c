#include "world/checks.h"

#include <string.h>

#include "anim/anim.h"
#include "core/text.h"
#include "texture/texture.h"

am_status am_world_check_text(const char *what, const char *text, am_error *err)
{
    char shown[200];
    size_t n = text ? strlen(text) : 0, bad = 0;
    if (!am_utf8_valid(text ? text : "", n, &bad))
        return am_fail(err, AM_ERR_INVALID, "%s name \"%s\" is not valid UTF-8 (byte %zu): names travel as text", what,
                       am_text_shown(text, shown, sizeof shown), bad);
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)text[i];
        if (c < 0x20 || c == 0x7f)
            return am_fail(err, AM_ERR_INVALID, "%s name \"%s\" holds a control character (byte %zu)", what,
                           am_text_shown(text, shown, sizeof shown), i);
    }
    return AM_OK;
}

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

am_status am_world_check_anim(const uint8_t *data, size_t size, const am_skeleton *skel, bool allow_unknown_joints,
                              size_t *unknown_joints, am_error *err)
{
    if (unknown_joints)
        *unknown_joints = 0;
    am_anim anim;
    am_status s = am_anim_decode(data, size, &anim, err);
    if (s)
        return s;
    if (skel) {
        am_anim_report rep;
        s = am_anim_validate(&anim, skel, &rep, err);
        for (size_t i = 0; !s && i < rep.count; i++) {
            const am_anim_issue *is = &rep.issues[i];
            const char *hint =
                is->severity == AM_ANIM_REJECT_UPLOAD
                    ? " (the allow_unknown_joints option sends it anyway: the viewer drops that joint in-world)"
                    : "";
            if (is->severity == AM_ANIM_REJECT_UPLOAD && allow_unknown_joints) {
                if (unknown_joints)
                    (*unknown_joints)++;
            } else if (is->severity != AM_ANIM_NOTE) {
                s = is->offset != AM_NO_OFFSET
                        ? am_fail_at(err, AM_ERR_INVALID, is->offset, "%s%s", am_str(&is->msg), hint)
                        : am_fail(err, AM_ERR_INVALID, "%s%s", am_str(&is->msg), hint);
            }
        }
        am_anim_report_free(&rep); /* zeroed by validate even when it fails */
    }
    am_anim_free(&anim);
    return s;
}
