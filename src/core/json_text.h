/* JSON text from a file or a stream a user gave: one parser entry with one kind of message,
 * naming the source, the line and the column (never a byte offset into text, and never
 * "near end of file" for an empty input). */
#ifndef AM_CORE_JSON_TEXT_H
#define AM_CORE_JSON_TEXT_H

#include <stddef.h>

#include <jansson.h>

#include "core/error.h"

/* Parse size bytes (flags: jansson's, e.g. JSON_REJECT_DUPLICATES). NULL with err set
 * (AM_ERR_INVALID, where = source): "empty: expected JSON" or "not valid JSON: <jansson's
 * words> (line L, column C)". */
json_t *am_json_load_text(const char *text, size_t size, size_t flags, const char *source, am_error *err);

#endif
