#include "lines.h"

#include <stdlib.h>
#include <string.h>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

/* The carry is as big as the longest partial line so far, up to the
 * limit: most inputs are read whole in a chunk or two, and a thread pool
 * starts a splitter for every small file. */
#define CARRY_MIN 4096u

void linesplit_init(linesplit *ls, size_t maxline)
{
	*ls = (linesplit){ 0 };
	ls->max = maxline;
#if defined(__x86_64__)
	ls->avx2 = __builtin_cpu_supports("avx2");
#endif
}

static void carry_room(linesplit *ls, size_t need)
{
	if (need <= ls->carrycap)
		return;
	size_t cap = ls->carrycap ? ls->carrycap : CARRY_MIN;
	while (cap < need)
		cap *= 2;
	ls->carrycap = cap < ls->max ? cap : ls->max;
	ls->carry = xrealloc(ls->carry, ls->carrycap);
}

void linesplit_free(linesplit *ls)
{
	free(ls->carry);
	*ls = (linesplit){ 0 };
}

static void emit(linesplit *ls, const char *p, size_t n, uint64_t off, bool cut, line_fn fn, void *ctx)
{
	if (n && p[n - 1] == '\r')
		n--;
	line l = { { p, n }, ++ls->lineno, off, cut, memchr(p, '\r', n) != NULL };
	fn(ctx, &l);
}

#if defined(__x86_64__)
/* The bits of a block's mask below bit k (0 to 64). */
static inline uint64_t below(uint64_t m, size_t k)
{
	return k ? m & (~0ull >> (64 - k)) : 0;
}

/* The lines that end in the 64 bytes at p + i, whose newlines and carriage
 * returns are the bits of nl and cr. *start: where the next line starts;
 * *crs: the carriage returns before the block; *crs_start: those before
 * *start. False at a line longer than the limit, which the caller cuts. */
static inline bool block_lines(linesplit *ls, const char *p, size_t i, uint64_t nl, uint64_t cr, size_t *start,
			       uint64_t *crs, uint64_t *crs_start, line_fn fn, void *ctx)
{
	for (; nl; nl &= nl - 1) {
		size_t q = i + (size_t)__builtin_ctzll(nl);
		if (q - *start > ls->max)
			return false;
		size_t e = q > *start && p[q - 1] == '\r' ? q - 1 : q;
		/* a trailing CR (CRLF) is left out; it may end the block before */
		uint64_t crs_end = e >= i ? *crs + (uint64_t)__builtin_popcountll(below(cr, e - i)) : *crs - 1;
		line l = { { p + *start, e - *start }, ++ls->lineno, ls->pos + *start, false, crs_end > *crs_start };
		*start = q + 1;
		*crs_start = *crs + (uint64_t)__builtin_popcountll(below(cr, q - i));
		fn(ctx, &l);
	}
	*crs += (uint64_t)__builtin_popcountll(cr);
	return true;
}

/* The complete lines of p[0..n) in whole 64-byte blocks, found without a
 * call per line: most log lines are shorter than a block, and the same
 * pass tells which hold a '\r'. Returns the bytes it took. */
__attribute__((target("avx2,popcnt"))) static size_t split_avx2(linesplit *ls, const char *p, size_t n, line_fn fn, void *ctx)
{
	const __m256i lf = _mm256_set1_epi8('\n'), cr = _mm256_set1_epi8('\r');
	size_t start = 0;
	uint64_t crs = 0, crs_start = 0;
	for (size_t i = 0; i + 64 <= n; i += 64) {
		__m256i a = _mm256_loadu_si256((const __m256i *)(p + i));
		__m256i b = _mm256_loadu_si256((const __m256i *)(p + i + 32));
		uint64_t nl = (uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi8(a, lf)) |
			      (uint64_t)(uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi8(b, lf)) << 32;
		uint64_t c = (uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi8(a, cr)) |
			     (uint64_t)(uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi8(b, cr)) << 32;
		if (!block_lines(ls, p, i, nl, c, &start, &crs, &crs_start, fn, ctx))
			break;
	}
	return start;
}

static uint64_t mask16(__m128i v, __m128i c, int at)
{
	return (uint64_t)(uint16_t)_mm_movemask_epi8(_mm_cmpeq_epi8(v, c)) << at;
}

static size_t split_sse2(linesplit *ls, const char *p, size_t n, line_fn fn, void *ctx)
{
	const __m128i lf = _mm_set1_epi8('\n'), cr = _mm_set1_epi8('\r');
	size_t start = 0;
	uint64_t crs = 0, crs_start = 0;
	for (size_t i = 0; i + 64 <= n; i += 64) {
		uint64_t nl = 0, c = 0;
		for (int k = 0; k < 64; k += 16) {
			__m128i v = _mm_loadu_si128((const __m128i *)(p + i + k));
			nl |= mask16(v, lf, k);
			c |= mask16(v, cr, k);
		}
		if (!block_lines(ls, p, i, nl, c, &start, &crs, &crs_start, fn, ctx))
			break;
	}
	return start;
}
#endif

void linesplit_feed(linesplit *ls, const char *p, size_t n, line_fn fn, void *ctx)
{
	while (n) {
#if defined(__x86_64__)
		if (!ls->skipping && !ls->ncarry && n >= 64) {
			size_t k = ls->avx2 ? split_avx2(ls, p, n, fn, ctx) : split_sse2(ls, p, n, fn, ctx);
			p += k;
			n -= k;
			ls->pos += k;
			if (!n)
				break;
		}
#endif
		const char *nl = memchr(p, '\n', n);
		size_t len = nl ? (size_t)(nl - p) : n;
		if (ls->skipping) {
			if (nl)
				ls->skipping = false;
		} else if (ls->ncarry == 0 && nl && len <= ls->max) {
			emit(ls, p, len, ls->pos, false, fn, ctx);
		} else {
			if (ls->ncarry == 0)
				ls->carry_off = ls->pos;
			size_t room = ls->max - ls->ncarry;
			size_t take = len < room ? len : room;
			carry_room(ls, ls->ncarry + take);
			memcpy(ls->carry + ls->ncarry, p, take);
			ls->ncarry += take;
			if (take < len || (!nl && ls->ncarry == ls->max)) {
				/* Too long: emit the head now, skip the rest. */
				emit(ls, ls->carry, ls->ncarry, ls->carry_off, true, fn, ctx);
				ls->ncarry = 0;
				ls->skipping = !nl;
			} else if (nl) {
				emit(ls, ls->carry, ls->ncarry, ls->carry_off, false, fn, ctx);
				ls->ncarry = 0;
			}
		}
		if (!nl) {
			ls->pos += n;
			break;
		}
		n -= len + 1;
		p = nl + 1;
		ls->pos += len + 1;
	}
}

const char *linesplit_after(slice buf, slice text)
{
	const char *q = text.p + text.n, *end = buf.p + buf.n;
	if (text.p < buf.p || q > end)
		return NULL;
	if (q < end && *q == '\r')
		q++;
	return q < end && *q == '\n' ? q + 1 : NULL;
}

bool linesplit_next(const linesplit *ls, slice buf, slice text, slice *next)
{
	const char *start = linesplit_after(buf, text), *end = buf.p + buf.n;
	if (!start)
		return false;
	const char *nl = memchr(start, '\n', (size_t)(end - start));
	if (!nl || (size_t)(nl - start) > ls->max)
		return false;
	size_t len = (size_t)(nl - start);
	if (len && start[len - 1] == '\r')
		len--;
	*next = (slice){ start, len };
	return true;
}

bool line_part(slice *rest, slice *part)
{
	if (!rest->n)
		return false;
	const char *cr = memchr(rest->p, '\r', rest->n);
	size_t n = cr ? (size_t)(cr - rest->p) : rest->n, took = cr ? n + 1 : n;
	*part = (slice){ rest->p, n };
	rest->p += took;
	rest->n -= took;
	return true;
}

void linesplit_flush(linesplit *ls, line_fn fn, void *ctx)
{
	if (ls->ncarry)
		emit(ls, ls->carry, ls->ncarry, ls->carry_off, false, fn, ctx);
	ls->ncarry = 0;
	ls->skipping = false;
}

bool linesplit_pending(const linesplit *ls)
{
	return ls->ncarry > 0;
}
