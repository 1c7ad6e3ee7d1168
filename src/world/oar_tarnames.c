/* OpenSim's way of reading tar entry names, and its comparison with libarchive's
 * (oar_tarnames.h). */
#include "world/oar_tarnames.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define LONG_NAME_MAX ((size_t)1 << 16) /* a longer 'L' entry is recorded as unreadable */

bool am_oar_tar_names_add(am_tar_names *t, const char *name, size_t name_len, int64_t size, char type)
{
    if (t->nomem)
        return false;
    if (t->count == t->cap) {
        size_t cap = t->cap ? 2 * t->cap : 64;
        am_tar_name *ne = realloc(t->e, cap * sizeof *ne);
        if (!ne) {
            t->nomem = true;
            return false;
        }
        t->e = ne;
        t->cap = cap;
    }
    char *copy = malloc(name_len + 1);
    if (!copy) {
        t->nomem = true;
        return false;
    }
    memcpy(copy, name, name_len);
    copy[name_len] = '\0';
    t->e[t->count++] = (am_tar_name){copy, name_len, size, type};
    return true;
}

/* Encoding.ASCII.GetString: every byte over 0x7F is '?'. */
static void ascii(char *out, const uint8_t *in, size_t n)
{
    for (size_t i = 0; i < n; i++)
        out[i] = in[i] > 0x7F ? '?' : (char)in[i];
}

/* TarArchiveReader.ConvertOctalBytesToDecimal(header, 124, 11), in its 32-bit int. */
static int64_t opensim_octal(const uint8_t *h)
{
    size_t i = 0;
    while (i < 11 && h[124 + i] == ' ')
        i++;
    uint32_t d = 0;
    for (; i < 11; i++) {
        int32_t c = (int32_t)(h[124 + i] > 0x7F ? '?' : h[124 + i]);
        d = (d << 3) | (uint32_t)(c - '0');
    }
    return (int64_t)(int32_t)d;
}

static uint64_t padded(int64_t size)
{
    if (size <= 0)
        return 0; /* OpenSim's ReadBytes of a negative count throws: nothing more is read right */
    return ((uint64_t)size + 511) / 512 * 512;
}

static void header(am_tar_names *t, const uint8_t *h)
{
    if (t->after_long) { /* the long name's own header: its size and type, the name from 'L' */
        t->after_long = false;
        int64_t size = opensim_octal(h);
        am_oar_tar_names_add(t, (const char *)t->long_name, t->long_len, size, (char)h[156]);
        free(t->long_name);
        t->long_name = NULL;
        t->skip = padded(size);
        return;
    }
    if (h[0] == 0) {
        t->ended = true;
        return;
    }
    int64_t size = opensim_octal(h);
    if (h[156] == 'L') {
        if (size < 0 || (uint64_t)size > LONG_NAME_MAX) {
            am_oar_tar_names_add(t, "(an unreadable long name)", 25, size, 'L');
            t->ended = true; /* OpenSim's reading is lost from here */
            return;
        }
        t->long_len = (size_t)size;
        t->long_have = 0;
        if (!(t->long_name = malloc(t->long_len + 1))) {
            t->nomem = true;
            t->ended = true;
            return;
        }
        t->skip = padded(size) - t->long_len; /* the padding after the name's bytes */
        if (t->long_len == 0)
            t->after_long = true;
        return;
    }
    char name[100];
    ascii(name, h, 100);
    size_t a = 0, b = 100; /* String.Trim('\0'): both ends only */
    while (a < b && name[a] == '\0')
        a++;
    while (b > a && name[b - 1] == '\0')
        b--;
    am_oar_tar_names_add(t, name + a, b - a, size, (char)h[156]);
    t->skip = padded(size);
}

void am_oar_tar_names_feed(am_tar_names *t, const uint8_t *p, size_t n)
{
    while (n > 0 && !t->ended && !t->nomem) {
        if (t->long_name && t->long_have < t->long_len) {
            size_t take = t->long_len - t->long_have < n ? t->long_len - t->long_have : n;
            ascii((char *)t->long_name + t->long_have, p, take);
            t->long_have += take;
            p += take;
            n -= take;
            if (t->long_have == t->long_len)
                t->after_long = true;
            continue;
        }
        if (t->skip > 0) {
            size_t take = t->skip < n ? (size_t)t->skip : n;
            t->skip -= take;
            p += take;
            n -= take;
            continue;
        }
        size_t take = 512 - t->block_n < n ? 512 - t->block_n : n;
        memcpy(t->block + t->block_n, p, take);
        t->block_n += take;
        p += take;
        n -= take;
        if (t->block_n == 512) {
            t->block_n = 0;
            header(t, t->block);
        }
    }
}

/* The name for a message: NULs and other control bytes as \xNN, cut to fit. */
static void shown(char *out, size_t size, const am_tar_name *e)
{
    size_t o = 0;
    for (size_t i = 0; i < e->name_len && o + 5 < size; i++) {
        unsigned char c = (unsigned char)e->name[i];
        if (c < 0x20 || c == 0x7F)
            o += (size_t)snprintf(out + o, size - o, "\\x%02X", c);
        else
            out[o++] = (char)c;
    }
    out[o] = '\0';
}

static bool is_folder(const am_tar_name *e)
{
    return e->type == '5';
}

static bool same_name(const am_tar_name *a, const am_tar_name *b)
{
    if (a->name_len == b->name_len && memcmp(a->name, b->name, a->name_len) == 0)
        return true;
    /* a folder's trailing '/' is libarchive's to keep or drop */
    if (!is_folder(a) || !is_folder(b))
        return false;
    size_t al = a->name_len, bl = b->name_len;
    while (al && a->name[al - 1] == '/')
        al--;
    while (bl && b->name[bl - 1] == '/')
        bl--;
    return al == bl && memcmp(a->name, b->name, al) == 0;
}

/* Why the readings of one entry differ, as far as the names tell. */
static const char *why(const am_tar_name *os, const am_tar_name *la)
{
    if (os->type == 'x' || os->type == 'g')
        return "a pax extended header, which OpenSim reads as a file of its own (it never applies pax path=)";
    if (os->type == 'L' || (os->name_len && os->name[os->name_len - 1] == '\0'))
        return "a GNU long name OpenSim reads with its terminating NUL";
    if (memchr(os->name, '\0', os->name_len))
        return "a NUL inside the 100-byte name field (libarchive stops there, OpenSim keeps the rest)";
    if (memchr(os->name, '?', os->name_len) && !memchr(la->name, '?', la->name_len))
        return "bytes over 0x7F in the name (OpenSim reads each as '?')";
    if (la->name_len > os->name_len && memcmp(la->name + la->name_len - os->name_len, os->name, os->name_len) == 0)
        return "the ustar prefix field or a pax path (OpenSim reads the 100-byte name field only)";
    if (same_name(os, la))
        return os->size < 0 ? "a size field OpenSim cannot read" : "a size field OpenSim reads as another number";
    return "the name fields";
}

am_status am_oar_tar_names_compare(const am_tar_names *os, const am_tar_names *la, am_error *err)
{
    if (os->nomem || la->nomem)
        return am_fail_nomem(err, "tar entry names");
    size_t n = os->count < la->count ? os->count : la->count;
    for (size_t i = 0; i <= n; i++) {
        const am_tar_name *a = i < os->count ? &os->e[i] : NULL, *b = i < la->count ? &la->e[i] : NULL;
        if (!a && !b)
            return AM_OK;
        if (a && b && same_name(a, b) && is_folder(a) == is_folder(b) && (is_folder(a) || a->size == b->size))
            continue;
        char sa[120] = "", sb[120] = "";
        if (a)
            shown(sa, sizeof sa, a);
        if (b)
            shown(sb, sizeof sb, b);
        am_status st;
        if (!a)
            st = am_fail(err, AM_ERR_INVALID,
                         "refused: OpenSim's tar reader stops before entry %zu (a header starting with a zero byte "
                         "ends its archive): the region would load less than this check reads",
                         i + 1);
        else if (!b)
            st = am_fail(err, AM_ERR_INVALID, "refused: OpenSim's tar reader sees an entry %zu libarchive does not: %s",
                         i + 1, why(a, a));
        else
            st = am_fail(err, AM_ERR_INVALID, "refused: OpenSim's tar reader reads entry %zu differently: %s", i + 1,
                         why(a, b));
        /* the two names (and sizes) in `where`, escaped */
        am_error_where(err, "tar entry %zu: OpenSim \"%s\" (%lld bytes), libarchive \"%s\" (%lld bytes)", i + 1,
                       a ? sa : "(none)", a ? (long long)a->size : 0LL, b ? sb : "(none)", b ? (long long)b->size : 0LL);
        return st;
    }
    return AM_OK;
}

void am_oar_tar_names_free(am_tar_names *t)
{
    for (size_t i = 0; i < t->count; i++)
        free(t->e[i].name);
    free(t->e);
    free(t->long_name);
    memset(t, 0, sizeof *t);
}
