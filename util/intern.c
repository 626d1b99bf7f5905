#include "intern.h"

#include <stdlib.h>
#include <string.h>

static uint64_t hash_bytes(slice s)
{
	uint64_t h = 1469598103934665603ULL;
	for (size_t i = 0; i < s.n; i++) {
		h ^= (unsigned char)s.p[i];
		h *= 1099511628211ULL;
	}
	return h;
}

void intern_init(intern *t)
{
	*t = (intern){ 0 };
	t->tcap = 64;
	t->table = xmalloc(t->tcap * sizeof(int));
	memset(t->table, 0xff, t->tcap * sizeof(int));
}

void intern_free(intern *t)
{
	for (size_t i = 0; i < t->n; i++)
		free(t->strs[i]);
	free(t->strs);
	free(t->table);
	*t = (intern){ 0 };
}

static size_t probe(const intern *t, slice s)
{
	size_t i = hash_bytes(s) & (t->tcap - 1);
	while (t->table[i] >= 0) {
		const char *c = t->strs[t->table[i]];
		if (strlen(c) == s.n && (s.n == 0 || memcmp(c, s.p, s.n) == 0))
			break;
		i = (i + 1) & (t->tcap - 1);
	}
	return i;
}

static void rehash(intern *t)
{
	free(t->table);
	t->tcap *= 2;
	t->table = xmalloc(t->tcap * sizeof(int));
	memset(t->table, 0xff, t->tcap * sizeof(int));
	for (size_t k = 0; k < t->n; k++)
		t->table[probe(t, slice_from(t->strs[k]))] = (int)k;
}

int intern_find(const intern *t, slice s)
{
	return t->table[probe(t, s)];
}

int intern_get(intern *t, slice s)
{
	size_t i = probe(t, s);
	if (t->table[i] >= 0)
		return t->table[i];
	grow(&t->strs, &t->cap, t->n, sizeof(char *));
	t->strs[t->n] = xstrndup(s.p, s.n);
	t->table[i] = (int)t->n;
	t->n++;
	if (t->n * 2 > t->tcap)
		rehash(t);
	return (int)t->n - 1;
}

const char *intern_str(const intern *t, int id)
{
	return id >= 0 && (size_t)id < t->n ? t->strs[id] : "";
}
