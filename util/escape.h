/* Making log bytes safe to show: no raw control byte ever reaches a terminal,
 * and JSON strings are always valid UTF-8. "Control" means C0 and DEL, the
 * C1 controls U+0080..U+009F, and the bidirectional overrides and isolates
 * (U+202A..U+202E, U+2066..U+2069) that reorder what a terminal shows. */
#ifndef NCCLOG_ESCAPE_H
#define NCCLOG_ESCAPE_H

#include "str.h"

/* Appends s to b with control characters (tab excepted) and invalid UTF-8
 * written as \xNN, one per byte (a literal backslash stays as is). Other
 * valid UTF-8 passes through. */
void escape_text(strbuf *b, slice s);
/* Appends s to b as valid UTF-8: invalid bytes become U+FFFD, control
 * characters other than tab are written in the \xNN text form. */
void escape_utf8(strbuf *b, slice s);
/* Sets b to a name or argument fit for one line of a terminal (a file name
 * in an error line, an id echoed back): as escape_text, and tab and newline
 * are escaped too. A backslash stays as is, so escaping twice changes
 * nothing. Returns b->p, valid until b changes; s NULL reads as "". */
const char *escape_name(strbuf *b, const char *s);
/* Length of the valid UTF-8 sequence at p (1-4), or 0 when invalid. */
size_t utf8_seqlen(const unsigned char *p, size_t n);
/* The longest prefix of p[0..n) no longer than max that does not end inside
 * a valid UTF-8 sequence: where a text is cut, no character is torn. */
size_t utf8_prefix(const char *p, size_t n, size_t max);

#endif
