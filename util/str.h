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

slice slice_from(const char *s);
bool slice_eq(slice a, slice b);
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
