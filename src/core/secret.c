/* Secret masking (secret.h). */
#include "core/secret.h"

#include <stdlib.h>
#include <string.h>

/* The spellings a peer may echo a secret in: as is, JSON-escaped (with and without "\/"),
 * XML-escaped (text, and attribute with quotes). */
#define SPELLINGS 5

static char *escape(const char *s, int how)
{
    size_t n = 0;
    for (const char *p = s; *p; p++)
        n += 6;
    char *o = malloc(n + 1), *w = o;
    if (!o)
        return NULL;
    for (const char *p = s; *p; p++) {
        const char *rep = NULL;
        char c = *p;
        if (how <= 1) { /* JSON */
            if (c == '"')
                rep = "\\\"";
            else if (c == '\\')
                rep = "\\\\";
            else if (c == '/' && how == 1)
                rep = "\\/";
        } else { /* XML */
            if (c == '&')
                rep = "&amp;";
            else if (c == '<')
                rep = "&lt;";
            else if (c == '>')
                rep = "&gt;";
            else if (c == '"' && how == 3)
                rep = "&quot;";
            else if (c == '\'' && how == 3)
                rep = "&apos;";
        }
        if (rep) {
            size_t rl = strlen(rep);
            memcpy(w, rep, rl);
            w += rl;
        } else {
            *w++ = c;
        }
    }
    *w = '\0';
    return o;
}

/* Fill sp with the distinct spellings of s (sp[0] = s itself, the rest malloc'd). Returns
 * the count, or 0 when out of memory. */
static int spellings(const char *s, char *sp[SPELLINGS])
{
    int n = 0;
    sp[n++] = (char *)s;
    for (int how = 0; how < 4; how++) {
        char *e = escape(s, how);
        if (!e) {
            for (int i = 1; i < n; i++)
                free(sp[i]);
            return 0;
        }
        bool dup = false;
        for (int i = 0; i < n && !dup; i++)
            dup = strcmp(sp[i], e) == 0;
        if (dup)
            free(e);
        else
            sp[n++] = e;
    }
    return n;
}

static void mark_spelling(const uint8_t *t, size_t n, const char *v, bool was_cut, uint8_t *mark)
{
    size_t L = strlen(v);
    if (L == 0)
        return;
    for (size_t i = 0; i + L <= n; i++) {
        const uint8_t *hit = memchr(t + i, (uint8_t)v[0], n - L + 1 - i);
        if (!hit)
            break;
        i = (size_t)(hit - t);
        if (memcmp(hit, v, L) == 0)
            memset(mark + i, 1, L);
    }
    if (!was_cut)
        return;
    /* The text stops inside a secret: mask the longest tail that begins one. */
    for (size_t k = L - 1 < n ? L - 1 : n; k > 0; k--)
        if (memcmp(t + n - k, v, k) == 0) {
            memset(mark + n - k, 1, k);
            break;
        }
}

void am_secret_mask_bytes(uint8_t *text, size_t n, const am_secrets *secrets, bool was_cut)
{
    if (!text || n == 0 || !secrets)
        return;
    uint8_t *mark = calloc(n, 1);
    if (!mark) {
        memset(text, '*', n);
        return;
    }
    for (int k = 0; k < AM_SECRET_MAX; k++) {
        const char *s = secrets->s[k];
        if (!s || !s[0])
            continue;
        char *sp[SPELLINGS];
        int count = spellings(s, sp);
        if (count == 0) {
            memset(text, '*', n);
            free(mark);
            return;
        }
        for (int i = 0; i < count; i++) {
            mark_spelling(text, n, sp[i], was_cut, mark);
            if (i)
                free(sp[i]);
        }
    }
    for (size_t i = 0; i < n; i++)
        if (mark[i])
            text[i] = '*';
    free(mark);
}

void am_secret_mask(char *s, const am_secrets *secrets, bool was_cut)
{
    if (s)
        am_secret_mask_bytes((uint8_t *)s, strlen(s), secrets, was_cut);
}

/* The longest spelling of any secret (what a window past the cut must hold). */
static size_t longest(const am_secrets *secrets)
{
    size_t m = 0;
    for (int k = 0; secrets && k < AM_SECRET_MAX; k++)
        if (secrets->s[k]) {
            size_t l = strlen(secrets->s[k]) * 6; /* an escape is at most 6 bytes */
            if (l > m)
                m = l;
        }
    return m;
}

void am_secret_snippet(const uint8_t *text, size_t n, const am_secrets *secrets, size_t max, char *out, size_t out_size)
{
    if (!out || out_size == 0)
        return;
    out[0] = '\0';
    if (out_size < 5)
        return;
    if (max > out_size - 4)
        max = out_size - 4;
    if (!text)
        n = 0;
    size_t shown = n < max ? n : max;
    /* Mask a window reaching past the cut by the longest secret, so one straddling the cut
     * is found whole. */
    size_t extra = longest(secrets);
    size_t window = n - shown > extra ? shown + extra : n;
    uint8_t *w = window ? malloc(window) : NULL;
    if (window && !w) {
        memset(out, '*', shown);
    } else {
        if (window)
            memcpy(w, text, window);
        am_secret_mask_bytes(w, window, secrets, window < n);
        for (size_t i = 0; i < shown; i++)
            out[i] = (w[i] >= 0x20 && w[i] < 0x7f) ? (char)w[i] : '.';
        free(w);
    }
    out[shown] = '\0';
    if (n > shown)
        memcpy(out + shown, "...", 4);
}
