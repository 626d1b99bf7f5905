#include "linememo.h"

#include <stdlib.h>
#include <string.h>
#if defined(__x86_64__)
#include <immintrin.h>
#endif

linememo *linememo_new(void)
{
	linememo *lm = xcalloc(1, sizeof *lm);
	hashkey_random(&lm->key);
	lm->key.k[1] |= 1; /* a multiplier: odd, so that no bit is lost */
	lm->hot = true;    /* judged after the first period */
	/* a key of its own for each 32 bytes of a line (splitmix64 of the
	 * memo's), so that two blocks of a line do not commute */
	uint64_t x = lm->key.k[0];
	for (size_t i = 0; i < sizeof lm->wide / sizeof lm->wide[0]; i++) {
		uint64_t z = (x += 0x9e3779b97f4a7c15ULL);
		z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
		z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
		lm->wide[i] = z ^ (z >> 31);
	}
#if defined(__x86_64__)
	lm->avx2 = __builtin_cpu_supports("avx2");
#endif
	return lm;
}

/* A product carries a difference only upwards: the finish brings the high
 * bits down to the slot's (and the hash is never 0). */
static inline uint64_t finish(uint64_t h)
{
	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdULL;
	h ^= h >> 33;
	h *= 0xc4ceb9fe1a85ec53ULL;
	h ^= h >> 33;
	return h | 1;
}

#if defined(__x86_64__)
/* One 32-byte block of a line into the four lanes, with its own key. */
__attribute__((target("avx2"))) static inline __m256i hash_block(__m256i acc, const char *p, const uint64_t *key)
{
	__m256i v = _mm256_loadu_si256((const __m256i *)p);
	__m256i dk = _mm256_xor_si256(v, _mm256_loadu_si256((const __m256i *)(const void *)key));
	acc = _mm256_add_epi64(acc, _mm256_shuffle_epi32(v, _MM_SHUFFLE(1, 0, 3, 2)));
	return _mm256_add_epi64(acc, _mm256_mul_epu32(dk, _mm256_srli_epi64(dk, 32)));
}

/* A line of 32 bytes or more, 32 at a time in four 64-bit lanes, each
 * adding the product of its two halves keyed (XXH3's accumulation): one
 * multiply a lane where the words took a multiply each in turn. */
__attribute__((target("avx2"))) static uint64_t hash_avx2(const linememo *lm, slice t)
{
	__m256i acc = _mm256_set1_epi64x((long long)(lm->key.k[1] ^ t.n));
	size_t i = 0, k = 0;
	for (; i + 32 <= t.n; i += 32, k++)
		acc = hash_block(acc, t.p + i, lm->wide + 4 * k);
	if (i < t.n) /* the last 32 bytes, which end at the end */
		acc = hash_block(acc, t.p + t.n - 32, lm->wide + 4 * k);
	uint64_t l[4];
	_mm256_storeu_si256((__m256i *)l, acc);
	return finish(l[0] + (l[1] << 17 | l[1] >> 47) + (l[2] << 31 | l[2] >> 33) + (l[3] << 47 | l[3] >> 17));
}
#endif

void linememo_free(linememo *lm)
{
	free(lm);
}

uint64_t linememo_hash_of(linememo *lm, slice text)
{
	lm->skip = LINEMEMO_PROBE - 1;
#if defined(__x86_64__)
	if (lm->avx2 && text.n >= 32 && text.n <= LINEMEMO_BYTES) /* a key for each block */
		return hash_avx2(lm, text);
#endif
	/* keyed, and two words at a time in two lanes: a collision costs a
	 * scan, never a wrong answer */
	const uint64_t k = lm->key.k[1];
	uint64_t a = lm->key.k[0] ^ text.n, b = ~lm->key.k[0], w0, w1;
	size_t i = 0;
	for (; i + 16 <= text.n; i += 16) {
		memcpy(&w0, text.p + i, 8);
		memcpy(&w1, text.p + i + 8, 8);
		a = (a ^ w0) * k;
		b = (b ^ w1) * k;
	}
	if (i < text.n) {
		/* the last bytes, as words that end at the end */
		if (text.n >= 16) {
			memcpy(&w0, text.p + text.n - 16, 8);
			memcpy(&w1, text.p + text.n - 8, 8);
		} else if (text.n >= 8) {
			memcpy(&w0, text.p, 8);
			memcpy(&w1, text.p + text.n - 8, 8);
		} else {
			w0 = w1 = 0;
			memcpy(&w0, text.p, text.n);
		}
		a = (a ^ w0) * k;
		b = (b ^ w1) * k;
	}
	return finish(a ^ (b >> 31 | b << 33));
}

/* Two ways a set: a line met again now and then keeps its place while
 * lines met once (a communicator's own) pass through the other way. */
static lineent *lookup(linememo *lm, slice text, uint64_t h)
{
	size_t set = (size_t)(h & (LINEMEMO_SETS - 1));
	uint32_t tag = (uint32_t)(h >> 32);
	for (int w = 0; w < 2; w++) {
		if (lm->set[set].tag[w] != tag || lm->set[set].len[w] != text.n)
			continue;
		lineent *e = &lm->e[set][w];
		if (memcmp(e->text, text.p, text.n) == 0) {
			lm->set[set].older = (unsigned char)!w;
			return e;
		}
	}
	return NULL;
}

/* Hot while one line in four is found again, cold below one in eight:
 * between the two it stays as it is. */
static void judge(linememo *lm)
{
	if (lm->tries < (lm->hot ? LINEMEMO_PERIOD : LINEMEMO_PERIOD / LINEMEMO_PROBE))
		return;
	if (lm->found * 4 >= lm->tries)
		lm->hot = true;
	else if (lm->found * 8 < lm->tries)
		lm->hot = false;
	lm->tries = lm->found = 0;
}

const gatehits *linememo_find(linememo *lm, slice text, uint64_t h, memoref *ref)
{
	lineent *e = h ? lookup(lm, text, h) : NULL;
	lm->tries++;
	if (e) {
		/* a line without a hit is kept only while the memo is hot (the
		 * lookup is paid then anyway): it never keeps it hot */
		lm->found += e->hits.n || e->hits.hint;
		lm->hits++;
		*ref = (memoref){ e, e->ver };
	} else {
		lm->misses++;
	}
	judge(lm);
	return e ? &e->hits : NULL;
}

void linememo_put(linememo *lm, slice text, uint64_t h, const gatehits *hits, memoref *ref)
{
	if (!h || !text.n || text.n > LINEMEMO_BYTES || hits->overflow)
		return;
	/* the first miss of a line only marks it (two bits of the hash, so
	 * that few lines met once pass for lines met again) */
	size_t b0 = (size_t)(h >> 16) & (LINEMEMO_MISSED - 1), b1 = (size_t)(h >> 40) & (LINEMEMO_MISSED - 1);
	uint64_t m0 = (uint64_t)1 << (b0 % 64), m1 = (uint64_t)1 << (b1 % 64);
	if (!(lm->missed[b0 / 64] & m0) || !(lm->missed[b1 / 64] & m1)) {
		lm->missed[b0 / 64] |= m0;
		lm->missed[b1 / 64] |= m1;
		if (++lm->nmissed >= LINEMEMO_MISSED / 8) { /* about a quarter of the bits */
			memset(lm->missed, 0, sizeof lm->missed);
			lm->nmissed = 0;
		}
		return;
	}
	size_t set = (size_t)(h & (LINEMEMO_SETS - 1));
	int w = lm->set[set].older;
	lineent *e = &lm->e[set][w];
	lm->set[set].older = (unsigned char)!w;
	lm->set[set].tag[w] = (uint32_t)(h >> 32);
	lm->set[set].len[w] = (uint16_t)text.n;
	e->ver++;
	e->len = (uint16_t)text.n;
	e->parsed = e->single = e->matched = false;
	e->hits = *hits;
	memcpy(e->text, text.p, text.n);
	*ref = (memoref){ e, e->ver };
}

lineent *linememo_entry(memoref ref)
{
	return ref.e && ref.e->ver == ref.ver ? ref.e : NULL;
}

const record *linememo_record(memoref ref)
{
	lineent *e = linememo_entry(ref);
	if (!e)
		return NULL;
	if (!e->parsed) {
		size_t k = record_parse((slice){ e->text, e->len }, &e->rec);
		e->single = k == 0 || k == e->len;
		e->parsed = true;
	}
	return e->single ? &e->rec : NULL;
}
