#include "memo.h"

#include <stdlib.h>
#include <string.h>

rulememo *memo_new(size_t nrules)
{
	rulememo *mm = xcalloc(1, sizeof *mm);
	hashkey_random(&mm->key);
	mm->key.k[1] |= 1; /* a multiplier: odd, so that no bit is lost */
	mm->nrules = nrules;
	mm->use = xcalloc(nrules ? nrules : 1, sizeof *mm->use);
	return mm;
}

void memo_free(rulememo *mm)
{
	if (mm)
		free(mm->use);
	free(mm);
}

bool memo_worth(const rulememo *mm, size_t ri)
{
	const memouse *u = &mm->use[ri];
	return ri < UINT16_MAX && (u->tries < MEMO_TRIAL || u->hits * 4 >= u->tries);
}

uint64_t memo_hash(const rulememo *mm, slice text)
{
	/* Keyed, and a few instructions a word (SipHash costs a channel
	 * line's match over again). A collision costs a match, never a
	 * wrong answer: the body is compared. */
	if (!text.n || text.n > MEMO_BODY)
		return 0;
	uint64_t h = mm->key.k[0] ^ text.n, w;
	size_t i = 0;
	for (; i + 8 <= text.n; i += 8) {
		memcpy(&w, text.p + i, 8);
		h = (h ^ w) * mm->key.k[1];
		h ^= h >> 29;
	}
	if (i < text.n) {
		w = 0;
		memcpy(&w, text.p + i, text.n - i);
		h = (h ^ w) * mm->key.k[1];
		h ^= h >> 29;
	}
	h *= 0x9e3779b97f4a7c15ULL;
	h ^= h >> 32;
	return h | 1;
}

size_t memo_slot(size_t ri, uint64_t h, uint32_t *tag)
{
	uint64_t x = h ^ ((uint64_t)(ri + 1) * 0xc2b2ae3d27d4eb4fULL);
	x ^= x >> 31;
	*tag = (uint32_t)(x >> 32);
	return (size_t)x & (MEMO_SLOTS - 1);
}

bool memo_find(rulememo *mm, size_t ri, slice text, uint64_t h, memoval *v)
{
	uint32_t tag;
	const memoent *e = &mm->e[memo_slot(ri, h, &tag)];
	mm->use[ri].tries++;
	if (e->ri1 != ri + 1 || e->tag != tag || e->len != text.n || memcmp(e->body, text.p, text.n) != 0) {
		mm->misses++;
		return false;
	}
	*v = e->v;
	mm->use[ri].hits++;
	mm->hits++;
	return true;
}

void memo_put(rulememo *mm, size_t ri, slice text, uint64_t h, const memoval *v)
{
	if (!h || text.n > MEMO_BODY || ri >= UINT16_MAX)
		return;
	uint32_t tag;
	memoent *e = &mm->e[memo_slot(ri, h, &tag)];
	mm->evicted += e->ri1 != 0;
	e->tag = tag;
	e->ri1 = (uint16_t)(ri + 1);
	e->len = (unsigned char)text.n;
	e->v = *v;
	memcpy(e->body, text.p, text.n);
}
