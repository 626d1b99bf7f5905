#include "intern.h"

#include <stdlib.h>
#include <string.h>

/* Strings up to this size share blocks; a longer one gets a block alone. */
#define BLOCK_SIZE (64u * 1024u)

void intern_init(intern *t)
{
	hashkey k;
	hashkey_random(&k);
	intern_init_keyed(t, &k);
}

void intern_init_keyed(intern *t, const hashkey *key)
{
	*t = (intern){ 0 };
	t->key = *key;
}

void intern_free(intern *t)
{
	for (size_t i = 0; i < t->nblocks; i++)
		free(t->blocks[i]);
	free(t->blocks);
	free(t->strs);
	free(t->len);
	hashidx_free(&t->idx);
	*t = (intern){ 0 };
}

typedef struct probe {
	const intern *t;
	slice s;
} probe;

static bool same(const void *ctx, int id)
{
	const probe *q = ctx;
	((intern *)q->t)->compares++;
	return q->t->len[id] == q->s.n && (q->s.n == 0 || memcmp(q->t->strs[id], q->s.p, q->s.n) == 0);
}

int intern_find(const intern *t, slice s)
{
	probe q = { t, s };
	return hashidx_find(&t->idx, siphash(&t->key, s.p, s.n), same, &q);
}

/* A copy of s with a NUL after it, in the blocks. */
static char *store(intern *t, slice s)
{
	size_t need = s.n + 1;
	char *p;
	if (need > BLOCK_SIZE / 4 || need > t->room) {
		size_t sz = need > BLOCK_SIZE / 4 ? need : BLOCK_SIZE;
		grow(&t->blocks, &t->blockcap, t->nblocks, sizeof *t->blocks);
		p = t->blocks[t->nblocks++] = xmalloc(sz);
		/* a long string has its block alone; the shared one goes on */
		if (sz == BLOCK_SIZE) {
			t->cur = p + need;
			t->room = BLOCK_SIZE - need;
		}
	} else {
		p = t->cur;
		t->cur += need;
		t->room -= need;
	}
	if (s.n)
		memcpy(p, s.p, s.n);
	p[s.n] = '\0';
	t->used += need;
	return p;
}

int intern_get(intern *t, slice s)
{
	uint64_t h = siphash(&t->key, s.p, s.n);
	probe q = { t, s };
	int id = hashidx_find(&t->idx, h, same, &q);
	if (id >= 0)
		return id;
	if (t->n >= INTERN_MAX_STRINGS || s.n > UINT32_MAX || t->used + s.n + 1 > INTERN_MAX_BYTES) {
		t->dropped++;
		return -1;
	}
	size_t was = t->cap;
	grow(&t->strs, &t->cap, t->n, sizeof *t->strs);
	/* the lengths follow the strings' array, resized only when it grew */
	if (t->cap != was || !t->len)
		t->len = xrealloc(t->len, t->cap * sizeof *t->len);
	t->strs[t->n] = store(t, s);
	t->len[t->n] = (uint32_t)s.n;
	hashidx_put(&t->idx, h, (int)t->n);
	return (int)t->n++;
}

const char *intern_str(const intern *t, int id)
{
	return id >= 0 && (size_t)id < t->n ? t->strs[id] : "";
}

slice intern_slice(const intern *t, int id)
{
	return id >= 0 && (size_t)id < t->n ? (slice){ t->strs[id], t->len[id] } : (slice){ "", 0 };
}
