/* Searching the raw lines of every input with a regular expression, the
 * way lnav does: PCRE2, case-insensitive unless the pattern has a capital
 * letter, over the first LINEIDX_MAX_READ bytes of each line (what the
 * viewer can show), as bytes. A scan moves forward or backward over all
 * the inputs and wraps around; each step reads a bounded number of bytes,
 * so that the event loop stays responsive over gigabytes. No curses here. */
#ifndef NCCLOG_TUI_SEARCH_H
#define NCCLOG_TUI_SEARCH_H

#include "lineidx.h"

typedef struct search search;

/* Compiles pattern. On error, NULL is returned and *err says why, with
 * the offset in the pattern. */
search *search_new(const char *pattern, strbuf *err);
void search_free(search *s);
const char *search_pattern(const search *s);
/* The first match in line at or after byte `from`: true and [*so, *eo).
 * An empty match counts (a pattern like "^"); a line that exhausts the
 * match limit does not match. */
bool search_match(search *s, slice line, size_t from, size_t *so, size_t *eo);

/* Where a scan is. */
typedef struct scan {
	int dir;                 /* 1: forward, -1: backward */
	int file;                /* the input being read */
	uint64_t line, off;      /* the next line read, and where it starts */
	uint64_t lo, hi;         /* the lines of the window being read: [lo, hi) */
	uint64_t best;           /* backward: the last match in the window, 0 none */
	int start_file;
	uint64_t start_line;
	size_t entered;          /* inputs entered, to know when all were read */
	bool wrapped;            /* went past the last (first) input */
	bool skipping;           /* in the tail of a line longer than a read */
	uint64_t bytes;          /* read so far */
} scan;

/* Begins a scan after (dir 1) or before (dir -1) line `line` of input
 * `file`; line 0 with dir 1 starts at the first line. */
void search_begin(scan *sc, int file, uint64_t line, int dir);
/* Goes on for about `budget` bytes. Returns 1 with the match in *file and
 * *line, 0 when the budget ran out first (call again), or -1 when no line
 * of any input matches. Inputs whose lines are not kept are passed over. */
int search_step(search *s, scan *sc, lineidx *idx, size_t n, size_t budget, int *file, uint64_t *line);

#endif
