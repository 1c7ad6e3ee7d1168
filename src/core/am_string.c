/* Owned strings (am_string.h). */
#include "core/am_string.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void am_string_free(am_string *s)
{
    if (!s)
        return;
    free(s->data);
    s->data = NULL;
    s->length = 0;
}

void am_string_list_free(am_string *list, size_t count)
{
    if (!list)
        return;
    for (size_t i = 0; i < count; i++)
        am_string_free(&list[i]);
    free(list);
}

bool am_string_setn(am_string *s, const char *text, size_t n)
{
    if (!text) {
        am_string_free(s);
        return true;
    }
    char *copy = malloc(n + 1);
    if (!copy)
        return false;
    memcpy(copy, text, n);
    copy[n] = '\0';
    free(s->data);
    s->data = copy;
    s->length = strlen(copy); /* a NUL inside text ends it, as a C string would */
    return true;
}

bool am_string_set(am_string *s, const char *text)
{
    return am_string_setn(s, text, text ? strlen(text) : 0);
}

bool am_string_vsetf(am_string *s, const char *fmt, va_list ap)
{
    am_string text = {0}; /* built apart, so a failure keeps the old text (and fmt may quote it) */
    if (!am_string_vappendf(&text, fmt, ap))
        return false;
    am_string_free(s);
    *s = text;
    return true;
}

bool am_string_setf(am_string *s, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    bool ok = am_string_vsetf(s, fmt, ap);
    va_end(ap);
    return ok;
}

bool am_string_vappendf(am_string *s, const char *fmt, va_list ap)
{
    va_list again;
    va_copy(again, ap);
    int k = vsnprintf(NULL, 0, fmt, ap);
    if (k < 0) {
        va_end(again);
        return false;
    }
    char *grown = realloc(s->data, s->length + (size_t)k + 1);
    if (!grown) {
        va_end(again);
        return false;
    }
    vsnprintf(grown + s->length, (size_t)k + 1, fmt, again);
    va_end(again);
    s->data = grown;
    s->length += (size_t)k;
    return true;
}

bool am_string_appendf(am_string *s, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    bool ok = am_string_vappendf(s, fmt, ap);
    va_end(ap);
    return ok;
}

bool am_string_copy(am_string *dst, const am_string *src)
{
    if (dst == src)
        return true;
    return am_string_setn(dst, src ? src->data : NULL, src ? src->length : 0);
}

bool am_string_list_push(am_string **list, size_t *count, size_t *cap, const char *text)
{
    if (*count == *cap) {
        size_t next = *cap ? *cap * 2 : 8;
        am_string *grown = realloc(*list, next * sizeof *grown);
        if (!grown)
            return false;
        *list = grown;
        *cap = next;
    }
    am_string *slot = &(*list)[*count];
    slot->data = NULL;
    slot->length = 0;
    if (!am_string_set(slot, text ? text : ""))
        return false;
    (*count)++;
    return true;
}
