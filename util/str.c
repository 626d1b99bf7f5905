#include "str.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

slice slice_from(const char *s)
{
	return (slice){ s, s ? strlen(s) : 0 };
}

bool slice_eq_str(slice a, const char *s)
{
	return slice_eq(a, slice_from(s));
}

bool slice_starts(slice a, const char *prefix)
{
	size_t n = strlen(prefix);
	return a.n >= n && bytes_same(a.p, prefix, n);
}

long slice_find(slice hay, const char *needle, size_t nlen)
{
	if (nlen == 0 || hay.n < nlen)
		return nlen == 0 ? 0 : -1;
	/* short needles in short lines: memchr for the first byte beats
	 * memmem's setup */
	const char *p = hay.p, *end = hay.p + hay.n - nlen + 1;
	while (p < end && (p = memchr(p, needle[0], (size_t)(end - p)))) {
		if (memcmp(p + 1, needle + 1, nlen - 1) == 0)
			return (long)(p - hay.p);
		p++;
	}
	return -1;
}

slice slice_trim(slice s)
{
	while (s.n && (s.p[0] == ' ' || s.p[0] == '\t')) {
		s.p++;
		s.n--;
	}
	while (s.n && (s.p[s.n - 1] == ' ' || s.p[s.n - 1] == '\t' || s.p[s.n - 1] == '\r'))
		s.n--;
	return s;
}

bool slice_to_long(slice s, long *out)
{
	long v = 0;
	bool neg = false;
	size_t i = 0;
	if (s.n && s.p[0] == '-') {
		neg = true;
		i = 1;
	}
	if (i >= s.n || s.n - i > 18)
		return false;
	for (; i < s.n; i++) {
		if (s.p[i] < '0' || s.p[i] > '9')
			return false;
		v = v * 10 + (s.p[i] - '0');
	}
	*out = neg ? -v : v;
	return true;
}

void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);
	if (!p) {
		fputs("ncclog: out of memory\n", stderr);
		abort();
	}
	return p;
}

void *xcalloc(size_t n, size_t m)
{
	void *p = calloc(n ? n : 1, m ? m : 1);
	if (!p) {
		fputs("ncclog: out of memory\n", stderr);
		abort();
	}
	return p;
}

void *xrealloc(void *p, size_t n)
{
	p = realloc(p, n ? n : 1);
	if (!p) {
		fputs("ncclog: out of memory\n", stderr);
		abort();
	}
	return p;
}

char *xstrndup(const char *s, size_t n)
{
	char *d = xmalloc(n + 1);
	if (n)
		memcpy(d, s, n);
	d[n] = '\0';
	return d;
}

char *xstrdup(const char *s)
{
	return xstrndup(s, strlen(s));
}

void grow(void *arr, size_t *cap, size_t need, size_t sz)
{
	grow_from(arr, cap, need, sz, 8);
}

void grow_from(void *arr, size_t *cap, size_t need, size_t sz, size_t first)
{
	void **a = arr;
	if (need < *cap)
		return;
	size_t nc = *cap ? *cap : first ? first : 1;
	while (nc <= need)
		nc *= 2;
	*a = xrealloc(*a, nc * sz);
	memset((char *)*a + *cap * sz, 0, (nc - *cap) * sz);
	*cap = nc;
}

static void sb_reserve(strbuf *b, size_t more)
{
	if (b->n + more + 1 <= b->cap)
		return;
	size_t nc = b->cap ? b->cap : 64;
	while (nc < b->n + more + 1)
		nc *= 2;
	b->p = xrealloc(b->p, nc);
	b->cap = nc;
}

void sb_add(strbuf *b, const char *s, size_t n)
{
	sb_reserve(b, n);
	if (n)
		memcpy(b->p + b->n, s, n);
	b->n += n;
	b->p[b->n] = '\0';
}

void sb_adds(strbuf *b, const char *s)
{
	sb_add(b, s, strlen(s));
}

void sb_addc(strbuf *b, char c)
{
	sb_add(b, &c, 1);
}

void sb_addsl(strbuf *b, slice s)
{
	sb_add(b, s.p, s.n);
}

void sb_printf(strbuf *b, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n <= 0)
		return;
	sb_reserve(b, (size_t)n);
	va_start(ap, fmt);
	vsnprintf(b->p + b->n, (size_t)n + 1, fmt, ap);
	va_end(ap);
	b->n += (size_t)n;
}

void sb_clear(strbuf *b)
{
	b->n = 0;
	if (b->p)
		b->p[0] = '\0';
}

void sb_free(strbuf *b)
{
	free(b->p);
	*b = (strbuf){ 0 };
}

char *sb_take(strbuf *b)
{
	char *p = b->p ? b->p : xstrdup("");
	*b = (strbuf){ 0 };
	return p;
}
