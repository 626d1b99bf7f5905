/* "Did you mean": the known word closest to a misspelled one, for option
 * names, rule-file keys and finding ids. */
#ifndef NCCLOG_NEAREST_H
#define NCCLOG_NEAREST_H

#include <stddef.h>

/* The edits (insert, delete, substitute, swap two neighbours) from a to b;
 * strings longer than 64 bytes count as 64 apart. */
size_t nearest_distance(const char *a, const char *b);
/* Of the n words, the one typed most likely meant: the closest within a
 * few edits (more for longer words), or the first that typed begins;
 * NULL when none is close. */
const char *nearest_word(const char *typed, const char *const *words, size_t n);

#endif
