#include "core/json_text.h"

json_t *am_json_load_text(const char *text, size_t size, size_t flags, const char *source, am_error *err)
{
    size_t i = 0;
    while (i < size && (text[i] == ' ' || text[i] == '\t' || text[i] == '\n' || text[i] == '\r'))
        i++;
    if (i == size) {
        am_fail(err, AM_ERR_INVALID, "empty: expected JSON");
        am_error_where(err, "%s", source ? source : "json");
        return NULL;
    }
    json_error_t je;
    json_t *root = json_loadb(text, size, flags, &je);
    if (!root) {
        am_fail(err, AM_ERR_INVALID, "not valid JSON: %s (line %d, column %d)", je.text, je.line, je.column);
        am_error_where(err, "%s", source ? source : "json");
    }
    return root;
}
