#include "core/text_string.h"

#include <stdio.h>
#include <stdlib.h>

#include "core/text.h"

bool am_string_vsetf_shown(am_string *s, const char *fmt, va_list ap)
{
    va_list again;
    va_copy(again, ap);
    int n = vsnprintf(NULL, 0, fmt, again);
    va_end(again);
    /* room for every byte escaped as \xNN, and am_text_escape's minimum */
    size_t size = n < 0 ? 0 : (size_t)n * 4 + 8;
    char *buf = size ? malloc(size) : NULL;
    if (!buf)
        return false;
    am_text_vformat(buf, size, fmt, ap);
    bool ok = am_string_set(s, buf);
    free(buf);
    return ok;
}
