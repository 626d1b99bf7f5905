/* What the gate, the record parser and the rules answered on a whole line
 * seen before. NCCL prints the same channel, tree, transport and
 * "Connected" lines at every communicator's init, byte for byte, and a
 * rank inits dozens to hundreds of them: such a line costs a hash and a
 * compare instead of a scan, a parse and the rules' matches. The answers
 * are functions of the line's bytes alone, so every hit is an exact
 * compare, never a hash alone, and the output is the same with the memo
 * or without it.
 *
 * A fixed table (bounded memory), of the lines missed twice lately: a
 * line met once (a communicator's own) only marks a filter. It looks lines
 * up only while they repeat: when fewer than one in eight is found again
 * it goes cold and samples one line in LINEMEMO_PROBE, until they repeat
 * again. A line without a hit is kept too while the memo is hot, as a
 * repeated progress bar is then cheaper found than scanned; only lines
 * with hits count for the hit rate. */
#ifndef NCCLOG_LINEMEMO_H
#define NCCLOG_LINEMEMO_H

#include <stdbool.h>
#include <stdint.h>

#include "../parser/record.h"
#include "../util/siphash.h"
#include "../util/str.h"
#include "memo.h"

/* The outcome of one gate scan: the candidate rules, in rule order. */
#define GATEHITS_MAX 16
typedef struct gatehits {
	int cand[GATEHITS_MAX];
	size_t n;
	bool hint;
	bool overflow; /* more candidates than fit: scan again */
} gatehits;

#define LINEMEMO_SETS 512   /* of two lines each; a power of two */
#define LINEMEMO_BYTES 192  /* longer lines are scanned and parsed each time */
#define LINEMEMO_PERIOD 2048 /* lookups between two judgements of the hit rate */
#define LINEMEMO_PROBE 16   /* cold: one line in this many is looked up */
#define LINEMEMO_MISSED 8192 /* bits of the missed-once filter, cleared a quarter full */
#define LINEMEMO_MATCHES 4  /* rule matches a line keeps; with more it keeps none */

/* A rule's match on the record's body, as the rules' memo keeps one. */
typedef struct linematch {
	int ri;
	memoval v;
} linematch;

typedef struct lineent {
	uint32_t ver; /* counts the lines this entry has held */
	uint16_t len;
	bool parsed; /* the parser has read text: single and rec are set */
	bool single; /* text is one record, and rec is it */
	bool matched; /* the rules' matches on rec's body are match[0..nmatch) */
	unsigned char nmatch;
	gatehits hits;
	linematch match[LINEMEMO_MATCHES];
	record rec; /* slices into text */
	char text[LINEMEMO_BYTES];
} lineent;

/* A line found or kept: valid while its entry holds it (the same ver). */
typedef struct memoref {
	lineent *e;
	uint32_t ver;
} memoref;

typedef struct linememo {
	hashkey key;
	/* keys of the 32-byte blocks of a line, read by the vector hash */
	uint64_t wide[(LINEMEMO_BYTES / 32 + 1) * 4];
	bool avx2;
	bool hot;
	uint32_t skip;         /* cold: lines until the next one looked up */
	uint32_t tries, found; /* this period */
	uint64_t hits, misses; /* in all */
	/* lines missed once lately, by hash: a line is kept when it is missed
	 * again, so that lines met once (a communicator's own) never push out
	 * the ones that repeat */
	uint64_t missed[LINEMEMO_MISSED / 64];
	uint32_t nmissed;
	/* what a lookup reads first, apart from the entries: one cache line
	 * answers most misses */
	struct {
		uint32_t tag[2]; /* the hash's high bits */
		uint16_t len[2]; /* 0: empty */
		unsigned char older; /* the way replaced next */
	} set[LINEMEMO_SETS];
	lineent e[LINEMEMO_SETS][2];
} linememo;

linememo *linememo_new(void);
void linememo_free(linememo *lm);
/* Whether lines are looked up on every line now (they repeat). */
static inline bool linememo_hot(const linememo *lm)
{
	return lm->hot;
}
/* The hash of a line (1 to LINEMEMO_BYTES bytes), never 0. */
uint64_t linememo_hash_of(linememo *lm, slice text);
/* The hash of a line to look up, or 0: not one to look up now (empty,
 * longer than LINEMEMO_BYTES, or not sampled while cold). Inline: while
 * cold, it is all that most lines cost. */
static inline uint64_t linememo_hash(linememo *lm, slice text)
{
	if (!lm->hot && lm->skip) {
		lm->skip--;
		return 0;
	}
	return text.n && text.n <= LINEMEMO_BYTES ? linememo_hash_of(lm, text) : 0;
}
/* The gate's answer on text (of hash h), when it was kept, and *ref to
 * it; counts the lookup for the hit rate. */
const gatehits *linememo_find(linememo *lm, slice text, uint64_t h, memoref *ref);
/* Keeps the gate's answer on text, in place of the older line of its
 * set; *ref to it. */
void linememo_put(linememo *lm, slice text, uint64_t h, const gatehits *hits, memoref *ref);
/* The record of the line ref is to, read from the kept copy (parsed the
 * first time it is asked for): NULL when the entry holds another line by
 * now, or the line holds more than one record. It points into the
 * entry, and stays valid until the next linememo_put. */
const record *linememo_record(memoref ref);
/* The entry ref is to, while it holds that line; else NULL. */
lineent *linememo_entry(memoref ref);

#endif
