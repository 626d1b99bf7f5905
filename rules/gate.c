#include "gate.h"

#include <stdlib.h>
#include <string.h>
#if defined(__x86_64__)
#include <immintrin.h>
#endif

/* The gate finds every literal of every rule in a line, and it must cost
 * far less than the regexes it spares. Each literal is given an anchor: its
 * rarest byte pair in log text. Anchors are sorted into 8 buckets, and a
 * vector loop (after Hyperscan's "Teddy") looks up the low and high nibble
 * of both bytes of 32 positions at once in per-bucket tables: a position
 * survives only if all four agree on a bucket. Only there are the anchors
 * of that bucket compared, and the literals behind a matching anchor
 * compared in full. The vector cost does not grow with the rule count. */

#define MAX_ANCHORS 512
#define GATE_MIN 4 /* shortest literal; the rule loader refuses shorter ones */
#define BUCKETS 8

typedef struct anchor {
	unsigned char a, b;
	int head;          /* first literal with this anchor */
} anchor;

struct gate {
	anchor anc[MAX_ANCHORS];
	size_t nanc;
	/* per bucket: its anchors are anc[bstart[k] .. bstart[k+1]) */
	size_t bstart[BUCKETS + 1];
	/* nibble tables: bit k set when a bucket-k anchor has that nibble */
	unsigned char a_lo[16], a_hi[16], b_lo[16], b_hi[16];
	/* the exact anchor pairs, one bit each: the tables' false hits stop here */
	uint64_t pairs[65536 / 64];
	char **lit;
	size_t *len, *off;  /* literal length; offset of its anchor in it */
	int *val, *chain;
	size_t n;
	bool avx2;
};

/* How common a byte is in log text (English letter frequencies, digits,
 * the punctuation of timestamps and progress bars): anchors of rare bytes
 * fire seldom. */
static double commonness(unsigned char c)
{
	if (c == ' ')
		return 8;
	if (strchr("etaoinsrhdlu", c) || (c >= '0' && c <= '9') || (c && strchr(".,:-[]/|#%=", c)))
		return 5;
	if (c >= 'a' && c <= 'z')
		return strchr("cmwfgypb", c) ? 3 : 1.5;
	if (c >= 'A' && c <= 'Z')
		return strchr("EIT", c) ? 2 : 1.5;
	return 1;
}

/* Each literal is anchored at its rarest byte pair; literals whose rarest
 * pairs tie share an anchor already chosen when they can. */
static void choose_anchors(gate *g)
{
	for (size_t k = 0; k < g->n; k++) {
		double best = 1e9;
		size_t at = 0;
		int reuse = -1;
		for (size_t i = 0; i + 1 < g->len[k]; i++) {
			unsigned char a = (unsigned char)g->lit[k][i], b = (unsigned char)g->lit[k][i + 1];
			double w = commonness(a) * commonness(b);
			int have = -1;
			for (size_t j = 0; j < g->nanc; j++)
				if (g->anc[j].a == a && g->anc[j].b == b)
					have = (int)j;
			if (w < best || (w == best && have >= 0 && reuse < 0)) {
				best = w;
				at = i;
				reuse = have;
			}
		}
		if (reuse < 0) {
			if (g->nanc == MAX_ANCHORS) {
				/* out of anchors: share the least common one */
				reuse = 0;
				at = (size_t)-1;
				for (size_t i = 0; i + 1 < g->len[k] && at == (size_t)-1; i++)
					for (size_t j = 0; j < g->nanc; j++)
						if (g->anc[j].a == (unsigned char)g->lit[k][i] && g->anc[j].b == (unsigned char)g->lit[k][i + 1]) {
							reuse = (int)j;
							at = i;
						}
				if (at == (size_t)-1)
					continue; /* cannot happen with the shipped rules */
			} else {
				reuse = (int)g->nanc++;
				g->anc[reuse] = (anchor){ (unsigned char)g->lit[k][at], (unsigned char)g->lit[k][at + 1], -1 };
			}
		}
		g->off[k] = at;
		g->chain[k] = g->anc[reuse].head;
		g->anc[reuse].head = (int)k;
	}
}

static int cmp_anchor(const void *x, const void *y)
{
	const anchor *a = x, *b = y;
	return a->a != b->a ? a->a - b->a : a->b - b->b;
}

/* Buckets of neighbouring anchors share nibbles, so fewer foreign bytes
 * pass the tables. */
static void fill_buckets(gate *g)
{
	qsort(g->anc, g->nanc, sizeof *g->anc, cmp_anchor);
	for (size_t k = 0; k <= BUCKETS; k++)
		g->bstart[k] = g->nanc * k / BUCKETS;
	for (size_t k = 0; k < BUCKETS; k++)
		for (size_t i = g->bstart[k]; i < g->bstart[k + 1]; i++) {
			unsigned char bit = (unsigned char)(1u << k);
			g->a_lo[g->anc[i].a & 15] |= bit;
			g->a_hi[g->anc[i].a >> 4] |= bit;
			g->b_lo[g->anc[i].b & 15] |= bit;
			g->b_hi[g->anc[i].b >> 4] |= bit;
			unsigned pair = (unsigned)g->anc[i].a << 8 | g->anc[i].b;
			g->pairs[pair / 64] |= 1ULL << (pair % 64);
		}
}

gate *gate_build(const slice *pats, const int *vals, size_t n)
{
	gate *g = xcalloc(1, sizeof *g);
	g->lit = xcalloc(n ? n : 1, sizeof *g->lit);
	g->len = xcalloc(n ? n : 1, sizeof *g->len);
	g->off = xcalloc(n ? n : 1, sizeof *g->off);
	g->val = xcalloc(n ? n : 1, sizeof *g->val);
	g->chain = xcalloc(n ? n : 1, sizeof *g->chain);
	for (size_t k = 0; k < n; k++) {
		if (pats[k].n < GATE_MIN)
			continue; /* the rule loader refuses these */
		size_t i = g->n++;
		g->lit[i] = xstrndup(pats[k].p, pats[k].n);
		g->len[i] = pats[k].n;
		g->val[i] = vals[k];
	}
	choose_anchors(g);
	fill_buckets(g);
#if defined(__x86_64__)
	__builtin_cpu_init();
	g->avx2 = __builtin_cpu_supports("avx2");
#endif
	return g;
}

void gate_free(gate *g)
{
	if (!g)
		return;
	for (size_t i = 0; i < g->n; i++)
		free(g->lit[i]);
	free(g->lit);
	free(g->len);
	free(g->off);
	free(g->val);
	free(g->chain);
	free(g);
}

static bool is_anchor_pair(const gate *g, unsigned pair)
{
	return g->pairs[pair / 64] >> (pair % 64) & 1;
}

/* The literals anchored at s[pos], s[pos+1], an anchor pair: the anchors
 * are sorted, so a binary search finds its chain. */
static size_t verify(const gate *g, slice s, size_t pos, void (*hit)(void *ctx, int value), void *ctx)
{
	unsigned pair = (unsigned)(unsigned char)s.p[pos] << 8 | (unsigned char)s.p[pos + 1];
	size_t lo = 0, hi = g->nanc, hits = 0;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		unsigned mp = (unsigned)g->anc[mid].a << 8 | g->anc[mid].b;
		if (mp < pair)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == g->nanc || ((unsigned)g->anc[lo].a << 8 | g->anc[lo].b) != pair)
		return 0;
	for (int i = g->anc[lo].head; i >= 0; i = g->chain[i]) {
		if (pos < g->off[i])
			continue;
		size_t start = pos - g->off[i];
		if (start + g->len[i] <= s.n && memcmp(s.p + start, g->lit[i], g->len[i]) == 0) {
			hit(ctx, g->val[i]);
			hits++;
		}
	}
	return hits;
}

static size_t scan_scalar(const gate *g, slice s, size_t from, void (*hit)(void *ctx, int value), void *ctx)
{
	const unsigned char *p = (const unsigned char *)s.p;
	size_t hits = 0;
	for (size_t pos = from; pos + 1 < s.n; pos++) {
		if (is_anchor_pair(g, (unsigned)p[pos] << 8 | p[pos + 1]))
			hits += verify(g, s, pos, hit, ctx);
	}
	return hits;
}

#if defined(__x86_64__)
__attribute__((target("avx2"))) static size_t scan_avx2(const gate *g, slice s, void (*hit)(void *ctx, int value),
							 void *ctx, size_t *done)
{
	const unsigned char *p = (const unsigned char *)s.p;
	__m256i alo = _mm256_broadcastsi128_si256(_mm_loadu_si128((const __m128i *)g->a_lo));
	__m256i ahi = _mm256_broadcastsi128_si256(_mm_loadu_si128((const __m128i *)g->a_hi));
	__m256i blo = _mm256_broadcastsi128_si256(_mm_loadu_si128((const __m128i *)g->b_lo));
	__m256i bhi = _mm256_broadcastsi128_si256(_mm_loadu_si128((const __m128i *)g->b_hi));
	__m256i nib = _mm256_set1_epi8(15), zero = _mm256_setzero_si256();
	size_t hits = 0, i = 0;
	/* the tail (most of a short line) goes through the same vector code,
	 * from a zero-padded copy */
	unsigned char tail[64] = { 0 };
	for (; i + 1 < s.n; i += 32) {
		const unsigned char *q = p + i;
		if (i + 33 > s.n) {
			memcpy(tail, p + i, s.n - i);
			q = tail;
		}
		__m256i v0 = _mm256_loadu_si256((const __m256i *)q);
		__m256i v1 = _mm256_loadu_si256((const __m256i *)(q + 1));
		__m256i m = _mm256_and_si256(
			_mm256_and_si256(_mm256_shuffle_epi8(alo, _mm256_and_si256(v0, nib)),
					 _mm256_shuffle_epi8(ahi, _mm256_and_si256(_mm256_srli_epi16(v0, 4), nib))),
			_mm256_and_si256(_mm256_shuffle_epi8(blo, _mm256_and_si256(v1, nib)),
					 _mm256_shuffle_epi8(bhi, _mm256_and_si256(_mm256_srli_epi16(v1, 4), nib))));
		unsigned bits = ~(unsigned)_mm256_movemask_epi8(_mm256_cmpeq_epi8(m, zero));
		if (q == tail) /* only pairs that lie inside the line */
			bits &= s.n - i - 1 >= 32 ? ~0u : (1u << (s.n - i - 1)) - 1;
		if (!bits)
			continue;
		for (; bits; bits &= bits - 1) {
			unsigned k = (unsigned)__builtin_ctz(bits);
			if (is_anchor_pair(g, (unsigned)q[k] << 8 | q[k + 1]))
				hits += verify(g, s, i + k, hit, ctx);
		}
	}
	*done = s.n;
	return hits;
}
#endif

size_t gate_scan(const gate *g, slice s, void (*hit)(void *ctx, int value), void *ctx)
{
	size_t hits = 0, i = 0;
	if (!g->nanc)
		return 0;
#if defined(__x86_64__)
	if (g->avx2)
		hits = scan_avx2(g, s, hit, ctx, &i);
#endif
	return hits + scan_scalar(g, s, i, hit, ctx);
}
