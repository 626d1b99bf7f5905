/* Reassembly of pasted lines: a record that a terminal or an issue box
 * hard-wrapped (at 80 to 200 columns, mid-word or at a word with padding),
 * or whose message went on to the next line, is joined back into one
 * logical line before any rule sees it. The joiner holds at most
 * JOIN_MAX_PARTS physical lines and JOIN_MAX_BYTES bytes, and remembers
 * where each physical line sits so that evidence can cite all of them. */
#ifndef NCCLOG_JOIN_H
#define NCCLOG_JOIN_H

#include "../util/str.h"
#include "record.h"

#define JOIN_MAX_PARTS 6
#define JOIN_MAX_BYTES 8192
/* A line narrower than this was not wrapped by anything. */
#define JOIN_MIN_WIDTH 50

/* One physical line of a logical one. */
typedef struct joinpart {
	uint64_t no, off; /* line number and byte offset in the input */
	size_t at, n;     /* its text (padding dropped): buf[at..at+n) */
	int width;        /* display columns of the physical line */
} joinpart;

/* Where two physical lines meet with no blank on either side, the break
 * was a terminal's (mid-word: join directly) or a word wrap's (the blank
 * it dropped: join with one). The joiner reads such joints one way, the
 * terminal's where the line before filled a common terminal width, and
 * join_flip reads one the other way. */
typedef struct joiner {
	char buf[JOIN_MAX_BYTES];
	size_t n;
	joinpart part[JOIN_MAX_PARTS];
	int nparts;
	unsigned tight;  /* bit k: part k meets the one before with no blank around */
	unsigned direct; /* bit k: ... and is read as joined mid-word */
} joiner;

/* Display columns of a line (UTF-8 sequences count one, tabs eight). */
int join_width(slice s);
/* True when a line of w columns fills a common terminal width. */
bool join_fills_width(int w);
/* True when s reads as the rest of head (the first line of the record it
 * would go on; empty when unknown), not as a line of its own: no launcher
 * or NCCL prefix, no timestamp, no traceback or log level at its start,
 * not blank. A "word: " start counts as pdsh's host prefix only when head
 * has one too: "mlx5_0: ..." goes on a line that a terminal cut. */
bool join_continues(slice s, slice head);
/* The same for the line li describes (its prefixes stripped once, for
 * whoever else asks). */
bool join_continues_info(lineinfo *li, slice head);
/* Starts a logical line with its first physical line. Returns false (and
 * holds nothing) when it does not fit. */
bool join_start(joiner *j, slice s, uint64_t no, uint64_t off);
/* Appends the next physical line. Returns false when it does not fit (the
 * logical line is then complete as it is). */
bool join_add(joiner *j, slice s, uint64_t no, uint64_t off);
/* Reads tight joint k (between parts k-1 and k) the other way. Returns
 * false when it is not tight or the result would not fit. */
bool join_flip(joiner *j, int k);
/* The logical line held. */
slice join_text(const joiner *j);
/* True when the last line added was wide enough to have been wrapped, and
 * there is room for more. */
bool join_open(const joiner *j);
void join_reset(joiner *j);
/* A c10 message that carries an NCCL error puts the rank's prefix on its
 * first line only ("[rank1]:[E...] ... raised the following async
 * exception: NCCL error: ...", then "ncclRemoteError: ...", "Last error:",
 * the WARN's text, "Exception raised from ..."). True when record r opens
 * such a message: a launcher-prefixed line, not NCCL's, naming an NCCL error. */
bool join_record_opens_msg(const record *r);
/* True when record r has no launcher prefix, NCCL prefix, level, time or
 * head of its own ("Traceback (", "ERROR:", ...): it goes on the message
 * open above it. */
bool join_record_bare(const record *r);
/* The same two for a line. */
bool join_opens_msg(slice s);
bool join_bare(slice s);
/* Writes s to out (cap bytes) with the links a markdown editor or a mail
 * client put around words of a pasted line replaced by the words they
 * show: "[net_ib.cc:101](http://net_ib.cc:101/)", "<http://10.0.0.5>",
 * "node-a<http://node-a>". Returns the length written, 0 when s has no
 * such link or the result does not fit. */
size_t join_unlink(slice s, char *out, size_t cap);
/* The same, and a line that is one markdown code span loses its backticks
 * and is whole (*whole: it goes on no line and no line goes on it). */
size_t join_unmark(slice s, char *out, size_t cap, bool *whole);

#endif
