#include "core/text.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
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
        /* C0 controls, DEL and the C1 controls (U+0080..U+009F: a terminal may take
         * U+009B as CSI) are escaped; so is every byte of an ill-formed sequence. */
        bool c1 = l == 2 && u[i] == 0xC2 && u[i + 1] < 0xA0;
        bool plain = (l > 1 && !c1) || (l == 1 && u[i] >= 0x20 && u[i] != 0x7f);
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

char *am_text_escape(char *s, size_t size)
{
    if (!s || !size)
        return s;
    size_t n = strnlen(s, size);
    if (n == size)
        s[--n] = '\0';
    bool clean = am_utf8_valid(s, n, NULL);
    for (size_t i = 0; clean && i < n; i++) {
        uint8_t c = (uint8_t)s[i];
        clean = c >= 0x20 && c != 0x7f && !(c == 0xC2 && i + 1 < n && (uint8_t)s[i + 1] < 0xA0);
    }
    if (clean)
        return s;
    char *copy = size >= 8 ? malloc(n + 1) : NULL;
    if (!copy) { /* no room to escape: blank every byte that is not plain ASCII */
        for (size_t i = 0; i < n; i++)
            if ((uint8_t)s[i] < 0x20 || (uint8_t)s[i] >= 0x7f)
                s[i] = '?';
        return s;
    }
    memcpy(copy, s, n + 1);
    am_text_shown(copy, s, size);
    free(copy);
    return s;
}

void am_text_vformat(char *out, size_t size, const char *fmt, va_list ap)
{
    if (!out || !size)
        return;
    vsnprintf(out, size, fmt, ap);
    am_text_escape(out, size);
}
