#include "core/notes.h"
#include "core/text.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

am_status am_notes_vadd(char ***list, size_t *count, size_t size, const char *what, am_error *err, const char *fmt,
                        va_list ap)
{
    char *text = malloc(size ? size : 1);
    if (!text)
        return am_fail_nomem(err, what);
    vsnprintf(text, size ? size : 1, fmt, ap);
    /* Give back what the cut left unused; a failed shrink keeps the larger block. */
    char *fit = realloc(text, strlen(text) + 1);
    if (fit)
        text = fit;
    char **grown = realloc(*list, (*count + 1) * sizeof *grown);
    if (!grown) {
        free(text);
        return am_fail_nomem(err, what);
    }
    *list = grown;
    grown[(*count)++] = text;
    return AM_OK;
}

bool am_rows_vadd(char *rows, size_t row_size, size_t max, size_t *count, const char *fmt, va_list ap)
{
    if (*count >= max)
        return false;
    am_text_vformat(rows + *count * row_size, row_size, fmt, ap);
    (*count)++;
    return true;
}
