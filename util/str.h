/* Byte slices and growable buffers: the string vocabulary of ncclog. */
#ifndef NCCLOG_STR_H
#define NCCLOG_STR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A view into bytes owned by someone else; never NUL-terminated. */
typedef struct slice {
	const char *p;
	size_t n;
} slice;

#define SLICE_LIT(s) ((slice){ (s), sizeof(s) - 1 })
#define SLICE_NONE ((slice){ NULL, 0 })

/* Whether the n bytes at a and b are the same. Inline, a word at a time:
 * the compares that run on every line (a prefix, a host, a token) are
 * short, and memcmp's call and its choice by length cost more than they. */
static inline bool bytes_same(const void *a, const void *b, size_t n)
{
	const unsigned char *x = a, *y = b;
	uint64_t u, v, s, t;
	if (n >= 8) {
		for (size_t i = 0; i + 8 < n; i += 8) {
			__builtin_memcpy(&u, x + i, 8);
			__builtin_memcpy(&v, y + i, 8);
			if (u != v)
				return false;
		}
		/* the last 8, which end at the end */
		__builtin_memcpy(&u, x + n - 8, 8);
		__builtin_memcpy(&v, y + n - 8, 8);
		return u == v;
	}
	if (n >= 4) {
		uint32_t a4, b4, c4, d4;
		__builtin_memcpy(&a4, x, 4);
		__builtin_memcpy(&b4, y, 4);
		__builtin_memcpy(&c4, x + n - 4, 4);
		__builtin_memcpy(&d4, y + n - 4, 4);
		return a4 == b4 && c4 == d4;
	}
	s = t = 0;
	for (size_t i = 0; i < n; i++) {
		s = s << 8 | x[i];
		t = t << 8 | y[i];
	}
	return s == t;
}

slice slice_from(const char *s);
static inline bool slice_eq(slice a, slice b)
{
	return a.n == b.n && bytes_same(a.p, b.p, a.n);
}
bool slice_eq_str(slice a, const char *s);
bool slice_starts(slice a, const char *prefix);
/* Offset of needle in hay, or -1. */
long slice_find(slice hay, const char *needle, size_t nlen);
slice slice_trim(slice s);
/* Parses a decimal integer; returns false when s is not one. */
bool slice_to_long(slice s, long *out);

/* A growable NUL-terminated buffer. Aborts on allocation failure. */
typedef struct strbuf {
	char *p;
	size_t n, cap;
} strbuf;

void sb_add(strbuf *b, const char *s, size_t n);
void sb_adds(strbuf *b, const char *s);
void sb_addc(strbuf *b, char c);
void sb_addsl(strbuf *b, slice s);
void sb_printf(strbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void sb_clear(strbuf *b);
void sb_free(strbuf *b);
/* Hands the buffer to the caller (never NULL); b is left empty. */
char *sb_take(strbuf *b);

void *xmalloc(size_t n);
void *xcalloc(size_t n, size_t m);
void *xrealloc(void *p, size_t n);
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);

/* Grows *arr (element size sz) so that index `need` fits. */
void grow(void *arr, size_t *cap, size_t need, size_t sz);
/* The same, room for `first` elements when *arr has none: for big
 * elements of tables that mostly hold one or two. */
void grow_from(void *arr, size_t *cap, size_t need, size_t sz, size_t first);

#endif
