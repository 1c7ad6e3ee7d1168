#include "core/text.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* Length of the well-formed UTF-8 sequence at s (n bytes left), 0 when there is none. */
static size_t seq_len(const uint8_t *s, size_t n)
{
    uint8_t c = s[0];
    if (c < 0x80)
        return 1;
    size_t len;
    uint32_t cp;
    if (c >= 0xC2 && c <= 0xDF)
        len = 2, cp = c & 0x1F;
    else if (c >= 0xE0 && c <= 0xEF)
        len = 3, cp = c & 0x0F;
    else if (c >= 0xF0 && c <= 0xF4)
        len = 4, cp = c & 0x07;
    else
        return 0;
    if (n < len)
        return 0;
    for (size_t i = 1; i < len; i++) {
        if ((s[i] & 0xC0) != 0x80)
            return 0;
        cp = cp << 6 | (s[i] & 0x3F);
    }
    if ((len == 3 && cp < 0x800) || (len == 4 && (cp < 0x10000 || cp > 0x10FFFF)) || (cp >= 0xD800 && cp <= 0xDFFF))
        return 0;
    return len;
}

bool am_utf8_valid(const char *s, size_t n, size_t *bad_at)
{
    const uint8_t *u = (const uint8_t *)s;
    for (size_t i = 0; i < n;) {
        size_t l = seq_len(u + i, n - i);
        if (!l) {
            if (bad_at)
                *bad_at = i;
            return false;
        }
        i += l;
    }
    return true;
}

const char *am_text_shown(const char *s, char *out, size_t size)
{
    if (!out || size < 8)
        return out;
    const uint8_t *u = (const uint8_t *)(s ? s : "");
    size_t n = strlen((const char *)u), o = 0;
    for (size_t i = 0; i < n;) {
        size_t l = seq_len(u + i, n - i);
        bool plain = l > 1 || (l == 1 && u[i] >= 0x20 && u[i] != 0x7f);
        size_t need = plain ? l : 4;
        if (o + need + 4 > size) {
            memcpy(out + o, "...", 4);
            return out;
        }
        if (plain) {
            memcpy(out + o, u + i, l);
            o += l;
            i += l;
        } else {
            snprintf(out + o, 5, "\\x%02X", u[i]);
            o += 4;
            i += 1;
        }
    }
    out[o] = '\0';
    return out;
}
