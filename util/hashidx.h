/* An index of a growing array by hash: open addressing over element
 * indices, so that a lookup by key costs a probe or two whatever the
 * number of elements. The array stays the caller's (and so does the order
 * of its elements: nothing depends on where an index sits in the table);
 * the caller computes the hash and says which element equals its key. */
#ifndef NCCLOG_HASHIDX_H
#define NCCLOG_HASHIDX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct hashidx {
	struct hislot {
		uint32_t hash; /* the low bits of the element's hash */
		int idx;       /* element index, -1 empty */
	} *slot;
	size_t cap, n; /* cap: 0 or a power of two */
} hashidx;

/* Says whether element idx of the caller's array has the key looked for. */
typedef bool (*hashidx_eq)(const void *ctx, int idx);

/* The element with that hash that eq accepts, or -1. */
int hashidx_find(const hashidx *h, uint64_t hash, hashidx_eq eq, const void *ctx);
/* Indexes element idx under hash (the caller knows it is not there yet). */
void hashidx_put(hashidx *h, uint64_t hash, int idx);
/* Forgets every element (keeps the table). */
void hashidx_clear(hashidx *h);
void hashidx_free(hashidx *h);

#endif
