#include "core/json_text.h"

#include <stdbool.h>
#include <string.h>

static bool number_char(char c)
{
    return (c >= '0' && c <= '9') || c == '.' || c == 'e' || c == 'E' || c == '+' || c == '-';
}

am_json_cost am_json_tree_cost(const char *text, size_t size)
{
    am_json_cost c;
    memset(&c, 0, sizeof c);
    for (size_t i = 0; i < size; i++) {
        char ch = text[i];
        if (ch == '"') {
            size_t start = ++i;
            while (i < size && text[i] != '"')
                i += text[i] == '\\' ? 2 : 1;
            c.strings++;
            c.string_bytes += (i < size ? i : size) - start;
        } else if (ch == '{') {
            c.objects++;
        } else if (ch == '[') {
            c.arrays++;
        } else if ((ch == '-' || (ch >= '0' && ch <= '9')) && (i == 0 || !number_char(text[i - 1]))) {
            c.numbers++;
        } else if (ch == 't' || ch == 'f' || ch == 'n') {
            c.literals++; /* each of true, false and null has exactly one of these letters */
        }
    }
    /* Saturating: a count times its cost cannot wrap for any size that fits in memory, but
     * the sum is kept honest anyway. */
    size_t parts[5] = {c.objects * AM_JSON_OBJECT_COST, c.arrays * AM_JSON_ARRAY_COST, c.strings * AM_JSON_STRING_COST,
                       c.numbers * AM_JSON_NUMBER_COST, c.literals * AM_JSON_LITERAL_COST};
    for (int k = 0; k < 5; k++)
        c.structure = c.structure > (size_t)-1 - parts[k] ? (size_t)-1 : c.structure + parts[k];
    return c;
}

am_status am_json_check_budget(const char *text, size_t size, size_t budget, const char *source, am_error *err)
{
    am_json_cost c = am_json_tree_cost(text, size);
    if (c.structure <= budget)
        return AM_OK;
    am_fail(err, AM_ERR_INVALID,
            "memory budget of %zu MiB exceeded while reading the JSON (its tree would take about %zu MiB: %zu "
            "objects, %zu arrays, %zu strings, %zu numbers)",
            budget >> 20, c.structure >> 20, c.objects, c.arrays, c.strings, c.numbers);
    am_error_where(err, "%s", source ? source : "json");
    return AM_ERR_INVALID;
}

am_status am_json_fail(am_error *err, const json_error_t *je, const char *prefix, const char *source)
{
    am_status code = AM_ERR_INVALID;
    /* jansson fails silently (no text, line -1) only where an allocation failed. */
    if (json_error_code(je) == json_error_out_of_memory || (je->line < 0 && !je->text[0])) {
        code = AM_ERR_NOMEM;
        am_fail(err, code, "%sout of memory while reading the JSON%s%s%s", prefix, je->text[0] ? " (" : "", je->text,
                je->text[0] ? ")" : "");
    } else if (je->line < 0) {
        am_fail(err, code, "%snot valid JSON: %s", prefix, je->text);
    } else {
        am_fail(err, code, "%snot valid JSON: %s (line %d, column %d)", prefix, je->text, je->line, je->column);
    }
    am_error_where(err, "%s", source ? source : "json");
    return code;
}

json_t *am_json_load_text(const char *text, size_t size, size_t flags, size_t budget, const char *source,
                          am_error *err)
{
    size_t i = 0;
    while (i < size && (text[i] == ' ' || text[i] == '\t' || text[i] == '\n' || text[i] == '\r'))
        i++;
    if (i == size) {
        am_fail(err, AM_ERR_INVALID, "empty: expected JSON");
        am_error_where(err, "%s", source ? source : "json");
        return NULL;
    }
    if (am_json_check_budget(text, size, budget, source, err))
        return NULL;
    json_error_t je;
    json_t *root = json_loadb(text, size, flags, &je);
    if (!root)
        am_json_fail(err, &je, "", source);
    return root;
}
