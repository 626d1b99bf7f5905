/* What a rule answered on a text, remembered by the exact text: NCCL
 * prints the same channel, tree and "Connected" lines at every
 * communicator's init, and a rank's log inits hundreds of communicators.
 * A fixed table (bounded memory); every hit is an exact compare of the
 * body, never a hash alone. */
#ifndef NCCLOG_MEMO_H
#define NCCLOG_MEMO_H

#include <stdbool.h>
#include <stdint.h>

#include "../util/siphash.h"
#include "../util/str.h"

#define MEMO_SLOTS 512 /* a power of two */
#define MEMO_BODY 128  /* longer texts are matched, never remembered */
#define MEMO_CAPS 12   /* RULE_MAX_CAPS */
#define MEMO_UNSET 0xff
#define MEMO_TRIAL 64  /* lookups a rule gets before its hits must pay */

/* PCRE2's code and each capture's offsets in the text (the rule's
 * captures in its order; start MEMO_UNSET: the capture took no part). */
typedef struct memoval {
	int rc;
	unsigned char cap[MEMO_CAPS][2];
} memoval;

typedef struct memoent {
	uint32_t tag;  /* the hash's high bits: most misses need no compare */
	uint16_t ri1;  /* rule index + 1; 0: empty */
	unsigned char len;
	memoval v;
	char body[MEMO_BODY];
} memoent;

typedef struct memouse {
	uint32_t tries, hits;
} memouse;

typedef struct rulememo {
	hashkey key;
	size_t nrules;
	memouse *use;  /* per rule */
	uint64_t hits, misses, evicted;
	memoent e[MEMO_SLOTS];
} rulememo;

rulememo *memo_new(size_t nrules);
void memo_free(rulememo *mm);
/* Whether rule ri is still worth remembering: its texts repeat (a rule
 * whose texts hold a pointer or a count never hits). */
bool memo_worth(const rulememo *mm, size_t ri);
/* The hash of a text, computed once for every rule tried on it; 0 when
 * the text is not one to remember (empty, or past MEMO_BODY). */
uint64_t memo_hash(const rulememo *mm, slice text);
/* The slot a (rule, text hash) goes to, and its tag (for the tests). */
size_t memo_slot(size_t ri, uint64_t h, uint32_t *tag);
/* Whether rule ri's answer on text (of hash h) is remembered; sets *v. */
bool memo_find(rulememo *mm, size_t ri, slice text, uint64_t h, memoval *v);
/* Remembers it, in place of what was in its slot. */
void memo_put(rulememo *mm, size_t ri, slice text, uint64_t h, const memoval *v);

#endif
