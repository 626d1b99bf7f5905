#include "hashidx.h"

#include <stdlib.h>

#include "str.h"

/* The slot a hash starts probing at, from the 32 bits a slot keeps (a
 * rehash has no more); the same bits compare a candidate before the
 * caller's eq does. */
static size_t home(const hashidx *h, uint32_t lo)
{
	return (size_t)(((uint64_t)lo * 0x9e3779b97f4a7c15ULL) >> 32) & (h->cap - 1);
}

int hashidx_find(const hashidx *h, uint64_t hash, hashidx_eq eq, const void *ctx)
{
	if (!h->cap)
		return -1;
	uint32_t lo = (uint32_t)hash;
	for (size_t i = home(h, lo);; i = (i + 1) & (h->cap - 1)) {
		const struct hislot *s = &h->slot[i];
		if (s->idx < 0)
			return -1;
		if (s->hash == lo && eq(ctx, s->idx))
			return s->idx;
	}
}

static void place(hashidx *h, uint32_t lo, int idx)
{
	size_t i = home(h, lo);
	while (h->slot[i].idx >= 0)
		i = (i + 1) & (h->cap - 1);
	h->slot[i] = (struct hislot){ lo, idx };
}

void hashidx_put(hashidx *h, uint64_t hash, int idx)
{
	if ((h->n + 1) * 2 > h->cap) {
		struct hislot *old = h->slot;
		size_t oldcap = h->cap;
		h->cap = oldcap ? oldcap * 2 : 16;
		h->slot = xmalloc(h->cap * sizeof *h->slot);
		for (size_t i = 0; i < h->cap; i++)
			h->slot[i].idx = -1;
		for (size_t i = 0; i < oldcap; i++)
			if (old[i].idx >= 0)
				place(h, old[i].hash, old[i].idx);
		free(old);
	}
	place(h, (uint32_t)hash, idx);
	h->n++;
}

void hashidx_clear(hashidx *h)
{
	for (size_t i = 0; i < h->cap; i++)
		h->slot[i].idx = -1;
	h->n = 0;
}

void hashidx_free(hashidx *h)
{
	free(h->slot);
	*h = (hashidx){ 0 };
}
