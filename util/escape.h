/* Making log bytes safe to show: no raw control byte ever reaches a terminal,
 * and JSON strings are always valid UTF-8. */
#ifndef NCCLOG_ESCAPE_H
#define NCCLOG_ESCAPE_H

#include "str.h"

/* Appends s to b with control bytes and invalid UTF-8 written as \xNN
 * (a literal backslash stays as is). Valid UTF-8 passes through. */
void escape_text(strbuf *b, slice s);
/* Appends s to b as valid UTF-8: invalid bytes become U+FFFD, control bytes
 * other than tab are dropped to the \xNN text form. */
void escape_utf8(strbuf *b, slice s);
/* Length of the valid UTF-8 sequence at p (1-4), or 0 when invalid. */
size_t utf8_seqlen(const unsigned char *p, size_t n);

#endif
