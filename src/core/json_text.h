/* JSON text from a file or a stream a user gave: one parser entry with one kind of message,
 * naming the source, the line and the column (never a byte offset into text, and never
 * "near end of file" for an empty input).
 *
 * Memory budgets. jansson's tree costs far more than its text: an empty object "{}," is 3
 * bytes of text and 248 bytes of tree (83 times), an array 152, a string 104 plus its text,
 * a number 48 (measured on jansson 2.14 with glibc's malloc, the slot in its parent and
 * the allocator's overhead included). So before jansson sees a document, its tokens are
 * counted in one pass over the bytes (no allocation) and the tree's structure is estimated
 * from them (am_json_tree_cost); a document whose structure is over the reader's budget is
 * refused as exactly that: "memory budget of N MiB exceeded while reading the JSON". The
 * text of strings is not in the budget: it is at most three times the text (the copy and
 * jansson's lexer buffer), which each reader's file size limit already bounds, so a glTF's
 * embedded buffers (base64 data: URIs) are limited by the file, its structure by the
 * budget. This keeps jansson's allocator alone (json_set_alloc_funcs is process-global
 * state, shared by every thread and every JSON reader). jansson's nesting is its own:
 * at most 2048 levels (JSON_PARSER_MAX_DEPTH), refused as invalid JSON. */
#ifndef AM_CORE_JSON_TEXT_H
#define AM_CORE_JSON_TEXT_H

#include <stddef.h>

#include <jansson.h>

#include "core/error.h"

/* What each token costs in jansson's tree, beyond a string's own bytes (upper bounds of
 * the measured 248 / 152 / 104 / 48 / 13). */
#define AM_JSON_OBJECT_COST 256
#define AM_JSON_ARRAY_COST 160
#define AM_JSON_STRING_COST 112 /* keys too */
#define AM_JSON_NUMBER_COST 56
#define AM_JSON_LITERAL_COST 16 /* true, false, null: shared values, only the slot */

typedef struct am_json_cost {
    size_t objects, arrays, strings, numbers, literals;
    size_t structure;     /* bytes: the tokens at the costs above */
    size_t string_bytes;  /* the text inside strings (escapes counted as written) */
} am_json_cost;

/* Count a document's tokens (strings are skipped exactly, escapes included; the text need
 * not be valid JSON: jansson judges that). Never allocates. */
am_json_cost am_json_tree_cost(const char *text, size_t size);

/* AM_OK when the structure fits budget bytes; else AM_ERR_INVALID, where = source:
 * "memory budget of N MiB exceeded while reading the JSON (its tree would take about M MiB:
 * O objects, A arrays, S strings, K numbers)". */
am_status am_json_check_budget(const char *text, size_t size, size_t budget, const char *source, am_error *err);

/* jansson's failure in our words: "not valid JSON: <jansson's words> (line L, column C)",
 * without a position when jansson has none (line -1), and AM_ERR_NOMEM "out of memory
 * while reading the JSON" when that was the cause. prefix (may be "") starts the message;
 * where = source. */
am_status am_json_fail(am_error *err, const json_error_t *je, const char *prefix, const char *source);

/* Parse size bytes (flags: jansson's, e.g. JSON_REJECT_DUPLICATES) within a memory budget
 * (bytes, am_json_check_budget). NULL with err set (where = source): "empty: expected
 * JSON", the budget's refusal or am_json_fail's words. */
json_t *am_json_load_text(const char *text, size_t size, size_t flags, size_t budget, const char *source,
                          am_error *err);

#endif
