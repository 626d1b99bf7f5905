/* String interning: equal strings get equal small ids, so the job model
 * stores hosts, interfaces and versions as ints and never per-line copies.
 * The strings live in a few large blocks, and the table holds at most
 * INTERN_MAX_STRINGS of them in INTERN_MAX_BYTES: past that, new strings
 * get no id (-1, "unknown" to the model) and are counted as dropped. */
#ifndef NCCLOG_INTERN_H
#define NCCLOG_INTERN_H

#include "hashidx.h"
#include "siphash.h"
#include "str.h"

#define INTERN_MAX_STRINGS (1u << 20)
#define INTERN_MAX_BYTES (32u << 20)

typedef struct intern {
	char **strs;     /* NUL-terminated; a string may hold a NUL of its own */
	uint32_t *len;   /* its length */
	size_t n, cap;
	hashidx idx;
	hashkey key;     /* drawn by intern_init: input cannot aim at one probe sequence */
	char **blocks;   /* where the strings live */
	size_t nblocks, blockcap;
	char *cur;       /* the free part of the block strings share */
	size_t room, used; /* its size; the bytes of all strings */
	uint64_t dropped; /* strings refused for want of room */
	uint64_t compares; /* strings compared byte by byte in lookups (for the tests) */
} intern;

void intern_init(intern *t);
/* The same with a key given (drawn once for many tables, say). */
void intern_init_keyed(intern *t, const hashkey *key);
void intern_free(intern *t);
/* Returns the id of s, adding it when new; -1 when it is new and the
 * table is full. */
int intern_get(intern *t, slice s);
/* Returns the id of s or -1 when it was never added. */
int intern_find(const intern *t, slice s);
/* The string of an id; "" for -1 or any id not given out. */
const char *intern_str(const intern *t, int id);
/* The same with its length (a string may hold a NUL); the bytes stay
 * where they are as long as the table lives. */
slice intern_slice(const intern *t, int id);

#endif
