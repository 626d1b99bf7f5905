/* Splitting a byte stream into lines, push style, with bounded memory:
 * a line longer than the limit is cut there, marked, and the rest of it
 * skipped up to its newline. Lines inside a fed chunk are passed without
 * copying; only a partial last line is carried over to the next chunk. */
#ifndef NCCLOG_LINES_H
#define NCCLOG_LINES_H

#include "../util/str.h"

typedef struct line {
	slice text;   /* without the newline and a trailing CR */
	uint64_t no;  /* 1-based line number in its input */
	uint64_t off; /* byte offset of its first byte in the input */
	bool cut;     /* longer than the limit: text is its head */
	bool cr;      /* text holds a '\r' (a progress bar's redraws) */
} line;

typedef void (*line_fn)(void *ctx, const line *l);

typedef struct linesplit {
	char *carry;        /* allocated when a line first spans two chunks */
	size_t ncarry, max;
	size_t carrycap;    /* its size, up to max */
	uint64_t lineno;
	uint64_t pos;       /* input offset of the next byte fed */
	uint64_t carry_off; /* input offset of the carried partial line */
	bool skipping; /* inside the tail of a line that was cut */
	bool avx2;     /* the CPU has it: the wider pass */
} linesplit;

void linesplit_init(linesplit *ls, size_t maxline);
void linesplit_free(linesplit *ls);
/* Calls fn for every complete line in p[0..n). */
void linesplit_feed(linesplit *ls, const char *p, size_t n, line_fn fn, void *ctx);
/* The text of the line after text (a line passed from buf) as the splitter
 * will pass it, when buf holds all of it: false when buf ends first, or the
 * line is longer than the limit (it will be cut). */
bool linesplit_next(const linesplit *ls, slice buf, slice text, slice *next);
/* Where the line after text starts, when buf holds the newline that ends
 * text: NULL when it does not. */
const char *linesplit_after(slice buf, slice text);
/* The next part of *rest up to a carriage return (a progress bar's
 * redraws), taken from *rest with the '\r': false when nothing is left. A
 * part may be empty. */
bool line_part(slice *rest, slice *part);
/* Emits a pending partial line, if any (end of input or a flush timeout). */
void linesplit_flush(linesplit *ls, line_fn fn, void *ctx);
bool linesplit_pending(const linesplit *ls);

#endif
