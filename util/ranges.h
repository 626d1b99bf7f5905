/* Sets of small non-negative ints (ranks, process ids) and their
 * compact text form "0-7,9". */
#ifndef NCCLOG_RANGES_H
#define NCCLOG_RANGES_H

#include "str.h"

typedef struct intset {
	int *v;
	size_t n, cap;
} intset;

/* Adds x (kept sorted, no duplicates). Returns true when x was new. */
bool intset_add(intset *s, int x);
bool intset_has(const intset *s, int x);
void intset_addall(intset *s, const intset *o);
/* Makes s (empty) the set of the n values of v, in any order and with
 * repeats: a sort, not n insertions. v is reordered. */
void intset_build(intset *s, int *v, size_t n);
void intset_free(intset *s);
/* Appends "0-7,9" to b. */
void ranges_format(strbuf *b, const int *v, size_t n);

#endif
