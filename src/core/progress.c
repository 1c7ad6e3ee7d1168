#include "core/progress.h"

#include <stdio.h>

#include "core/text.h"

void am_progress_v(am_progress_fn fn, void *user, const char *fmt, va_list ap)
{
    if (!fn)
        return;
    char line[AM_PROGRESS_LINE_MAX];
    am_text_vformat(line, sizeof line, fmt, ap); /* file text (node, file names) escaped */
    fn(user, line);
}

void am_progress(am_progress_fn fn, void *user, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    am_progress_v(fn, user, fmt, ap);
    va_end(ap);
}
