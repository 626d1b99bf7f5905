#include "ranges.h"

#include <stdlib.h>
#include <string.h>

static size_t lower_bound(const intset *s, int x)
{
	size_t lo = 0, hi = s->n;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (s->v[mid] < x)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

bool intset_has(const intset *s, int x)
{
	size_t i = lower_bound(s, x);
	return i < s->n && s->v[i] == x;
}

bool intset_add(intset *s, int x)
{
	size_t i = lower_bound(s, x);
	if (i < s->n && s->v[i] == x)
		return false;
	grow(&s->v, &s->cap, s->n, sizeof(int));
	memmove(s->v + i + 1, s->v + i, (s->n - i) * sizeof(int));
	s->v[i] = x;
	s->n++;
	return true;
}

void intset_addall(intset *s, const intset *o)
{
	for (size_t i = 0; i < o->n; i++)
		intset_add(s, o->v[i]);
}

static int cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;
	return (x > y) - (x < y);
}

void intset_build(intset *s, int *v, size_t n)
{
	qsort(v, n, sizeof *v, cmp_int);
	for (size_t i = 0; i < n; i++)
		if (!i || v[i] != v[i - 1]) {
			grow(&s->v, &s->cap, s->n, sizeof *s->v);
			s->v[s->n++] = v[i];
		}
}

void intset_free(intset *s)
{
	free(s->v);
	*s = (intset){ 0 };
}

void ranges_format(strbuf *b, const int *v, size_t n)
{
	for (size_t i = 0; i < n;) {
		size_t j = i;
		while (j + 1 < n && v[j + 1] == v[j] + 1)
			j++;
		if (i)
			sb_addc(b, ',');
		if (j == i)
			sb_printf(b, "%d", v[i]);
		else
			sb_printf(b, "%d-%d", v[i], v[j]);
		i = j + 1;
	}
}
