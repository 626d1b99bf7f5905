/* Positions inside a JSON text, for "file:line:col: what is wrong". cJSON
 * keeps none, so these helpers scan the text itself. */
#ifndef NCCLOG_JSONPOS_H
#define NCCLOG_JSONPOS_H

#include "../util/str.h"

/* 1-based line and column of byte offset off in text. */
void jsonpos_linecol(const char *text, size_t off, int *line, int *col);
/* Offsets of the objects that are elements of the array under key `key`
 * of the top-level object, in order. Returns how many were stored. */
size_t jsonpos_elements(const char *text, const char *key, size_t *offs, size_t max);
/* Offset of the value of "key" inside the object that starts at obj, or obj. */
size_t jsonpos_field(const char *text, size_t obj, const char *key);
/* Offset of "key" itself (its opening quote) inside that object, or obj. */
size_t jsonpos_key(const char *text, size_t obj, const char *key);
/* Offset in the JSON text of the decoded byte `idx` of the string value at off. */
size_t jsonpos_string_byte(const char *text, size_t off, size_t idx);

#endif
