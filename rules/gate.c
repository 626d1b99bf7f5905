#include "gate.h"
#include "grams.h"

#include <stdlib.h>
#include <string.h>
#if defined(__x86_64__)
#include <immintrin.h>
#endif
#ifdef NCCLOG_VECTORSCAN
#include <hs.h>
#endif

/* The gate finds every literal of every rule in a line, and it must cost
 * far less than the regexes it spares, with hundreds of literals.
 *
 * Each literal is given a window: four of its bytes, placed where its
 * bytes are rarest in log text (by the measured byte frequencies below,
 * not by English). Three filters run, from cheap to exact:
 *  - a vector loop (after Hyperscan's "Teddy") looks up the low and high
 *    nibble of each of the four bytes at 32 positions at once in the
 *    tables of 8 buckets of windows; a position survives when all eight
 *    lookups agree on a bucket. Windows go to buckets so that they raise
 *    the share of positions that pass least;
 *  - the survivors are collected, and after the vector loop (its tables
 *    stay in registers) each one's four bytes are hashed into a bitmap of
 *    the windows;
 *  - the windows left are looked up exactly, and the literals behind one
 *    compared in full.
 * The vector cost does not grow with the literal count, and the bitmap
 * keeps the rest nearly flat.
 *
 * Built with Vectorscan, the gate hands a large input with a large table
 * to it (gate_accelerate): its literal matchers (FDR) stay fast with
 * thousands of literals, where eight nibble buckets fill up. Its matches
 * are sorted into the order the own scan gives, and the own tables stay as
 * the fallback, so the two report the same occurrences. */

#define GATE_MIN 4 /* shortest literal; the rule loader refuses shorter ones */
#define WIN 4      /* bytes of a window */
#define BUCKETS 8
#define TB 4      /* window bytes the vector tables look at */
#define WBITS 17   /* log2 of the window bitmap's bits (16 KiB) */
#define CAND_MAX 256

/* How often each byte occurs in log text, per 65536 bytes: half NCCL logs
 * (samples/), half a training job's output (bench/gen.py), as
 * bench/bytefreq.py prints it. NCCL text is full of N, C, L, _ and digits. */
static const unsigned short byte_freq[256] = {
	1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 566, 1, 1, 232, 1, 1,
	1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
	9266, 1, 21, 817, 1, 237, 1, 13, 81, 79, 108, 15, 690, 1108, 1045, 1048,
	5893, 2875, 2000, 1054, 911, 1724, 664, 769, 629, 522, 2406, 17, 322, 363, 227, 1,
	1, 75, 138, 1021, 158, 402, 416, 61, 10, 659, 1, 6, 457, 90, 945, 496,
	223, 1, 163, 79, 196, 118, 59, 49, 3, 1, 1, 1020, 1, 1044, 146, 174,
	1, 1316, 315, 1093, 1040, 2001, 407, 529, 579, 1211, 9, 390, 1208, 441, 1791, 1868,
	894, 8, 1294, 1797, 1473, 717, 291, 99, 185, 146, 16, 1, 503, 1, 1, 1,
	1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
	1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
	1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
	1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
	1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
	1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
	1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
	1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
};

/* A distinct window, in an open-addressing table on its bytes. */
typedef struct window {
	uint32_t key;
	int head;       /* first literal with this window, -1 = empty slot */
	uint32_t first; /* its literals: ent[first .. first + n) */
	uint32_t n;
	int off;        /* where the window is in every one of them, or -1 when that differs */
} window;

/* A literal as the exact lookup reads it, those of one window side by
 * side: its first 8 bytes (fewer when shorter) are compared in one load. */
typedef struct entry {
	uint64_t head, mask; /* the literal's first bytes; which of 8 they are */
	const char *lit;
	uint32_t off, len;   /* where its window is in it; its length */
	int val;
} entry;

struct gate {
	/* nibble tables: bit k set when a bucket-k pair has that nibble */
	unsigned char lo[TB][16], hi[TB][16];
	uint64_t wbits[(1u << WBITS) / 64];
	window *win;
	size_t wincap; /* a power of two */
	char **lit;
	size_t *len, *off; /* literal length; offset of its window in it */
	int *val, *chain;
	entry *ent;        /* the literals grouped by window, in chain order */
	size_t n;
	bool avx2;
	bool clone; /* shares the tables above with the gate it was cloned from */
#ifdef NCCLOG_VECTORSCAN
	hs_database_t *hs;     /* NULL: the own scan */
	hs_scratch_t *scratch; /* this handle's own, as each thread needs */
	size_t maxlen;
	struct hsfound *fv;    /* the matches of one piece, to be sorted */
	size_t fn, fcap;
#endif
};

static uint32_t load32(const unsigned char *p)
{
	uint32_t v;
	memcpy(&v, p, sizeof v);
	return v;
}

static uint32_t whash(uint32_t key)
{
	return (key * 0x9e3779b1u) >> (32 - WBITS);
}

static window *win_slot(const gate *g, uint32_t key)
{
	size_t i = (size_t)(key * 0x85ebca6bu >> 7) & (g->wincap - 1);
	while (g->win[i].head >= 0 && g->win[i].key != key)
		i = (i + 1) & (g->wincap - 1);
	return &g->win[i];
}

/* Each literal's window starts where its first three bytes are rarest in
 * log text, and off the 4-byte sequences that are common there though
 * their bytes are not ("rank", "node", "NFO "): each place a window occurs
 * costs an exact lookup. A window already taken by another literal adds
 * nothing to the vector tables. */
static size_t choose_window(const gate *g, size_t k)
{
	const unsigned char *l = (const unsigned char *)g->lit[k];
	double best = 1e300;
	size_t at = 0;
	for (size_t i = 0; i + WIN <= g->len[k]; i++) {
		double w = (double)byte_freq[l[i]] * byte_freq[l[i + 1]] * byte_freq[l[i + 2]] *
			   (1 + 0.1 * grams_freq(l + i));
		uint32_t t = load32(l + i);
		if (win_slot(g, t)->head >= 0)
			w *= 0.75;
		if (w < best) {
			best = w;
			at = i;
		}
	}
	return at;
}

/* The share of log bytes whose nibble is in the set. */
static double nib_p(unsigned set, const double *f)
{
	double p = 0;
	for (; set; set &= set - 1) /* in the order of the nibbles */
		p += f[__builtin_ctz(set)];
	return p;
}

/* The buckets being filled. A bucket's nibble sets, or a 4-byte sequence, is
 * a set of 128 bits: for byte j, bit lo of its low nibble and bit
 * 16 + hi of its high nibble, at 32 * j; a sequence passes a bucket when
 * its bits are inside the bucket's. */
typedef struct filling {
	uint64_t m[BUCKETS][2];
	uint32_t cnt[BUCKETS][128]; /* the windows in a bucket that have each bit */
	double pk[BUCKETS];         /* indep_p of each bucket's bits */
	double flo[16], fhi[16]; /* the share of log bytes with each nibble */
	/* the common sequences (grams.c): their bits, their counts per 65536
	 * positions, and for each bit the sequences that have it */
	uint64_t (*gm)[2];
	unsigned *gf;
	uint32_t bitfirst[129], *bitseq;
} filling;

static void seq_bits(const unsigned char *by, uint64_t *m)
{
	m[0] = m[1] = 0;
	for (int j = 0; j < TB; j++)
		m[j / 2] |= ((uint64_t)1 << (by[j] & 15) | (uint64_t)1 << (16 + (by[j] >> 4))) << (32 * (j % 2));
}

/* Byte j's low (hi = 0) or high (hi = 1) nibble set in a set of bits. */
static unsigned nib_set(const uint64_t *m, int j, int hi)
{
	return (unsigned)(m[j / 2] >> (32 * (j % 2) + 16 * hi)) & 0xffff;
}

/* The share of positions that pass this set of bits, were bytes
 * independent. */
static double indep_p(const filling *f, const uint64_t *m)
{
	double p = 1;
	for (int j = 0; j < TB; j++)
		p *= nib_p(nib_set(m, j, 0), f->flo) * nib_p(nib_set(m, j, 1), f->fhi);
	return p;
}

/* Puts the window by into bucket k (d = 1) or takes it out (d = -1): a
 * bit stays while a window of the bucket has it. */
static void bucket_count(filling *f, int k, const unsigned char *by, int d)
{
	uint64_t w[2];
	seq_bits(by, w);
	for (int word = 0; word < 2; word++)
		for (uint64_t bits = w[word]; bits; bits &= bits - 1) {
			int b = __builtin_ctzll(bits);
			uint32_t *c = &f->cnt[k][64 * word + b];
			*c = d > 0 ? *c + 1 : *c - 1;
			if (*c)
				f->m[k][word] |= (uint64_t)1 << b;
			else
				f->m[k][word] &= ~((uint64_t)1 << b);
		}
	f->pk[k] = indep_p(f, f->m[k]);
}

/* How much the share of positions that pass bucket k grows with the
 * window by: by the nibbles' frequencies, as if bytes were independent,
 * plus the common 4-byte sequences that come to pass, which they are not
 * ("NCCL", "NFO ", " via "): each costs a lookup wherever it occurs. A
 * sequence comes to pass when the bits it lacks are all new; it is
 * counted at the lowest of them. Not counted when the bytes' share alone
 * grows by best or more (a bucket tried before grew less). */
static double bucket_growth(const filling *f, int k, const unsigned char *by, double best)
{
	uint64_t w[2];
	seq_bits(by, w);
	uint64_t nw[2] = { w[0] & ~f->m[k][0], w[1] & ~f->m[k][1] };
	if (!nw[0] && !nw[1])
		return 0;
	uint64_t after[2] = { f->m[k][0] | w[0], f->m[k][1] | w[1] };
	double d = indep_p(f, after) - f->pk[k];
	if (d >= best)
		return d; /* the sequences only add: no better than the best so far */
	uint64_t seqs = 0;
	for (int word = 0; word < 2; word++)
		for (uint64_t bits = nw[word]; bits; bits &= bits - 1) {
			int b = 64 * word + __builtin_ctzll(bits);
			for (uint32_t x = f->bitfirst[b]; x < f->bitfirst[b + 1]; x++) {
				const uint64_t *g = f->gm[f->bitseq[x]];
				uint64_t l0 = g[0] & ~f->m[k][0], l1 = g[1] & ~f->m[k][1];
				if ((l0 & ~nw[0]) || (l1 & ~nw[1]))
					continue; /* it lacks a bit the window does not bring */
				int lowest = l0 ? __builtin_ctzll(l0) : 64 + __builtin_ctzll(l1);
				if (lowest == b)
					seqs += f->gf[f->bitseq[x]];
			}
		}
	return d + (double)seqs / 65536;
}

/* Puts the window by where it raises the share that passes least. */
static int bucket_place(filling *f, const unsigned char *by)
{
	int best = 0;
	double bestd = 1e300;
	for (int k = 0; k < BUCKETS && bestd > 0; k++) {
		double d = bucket_growth(f, k, by, bestd);
		if (d < bestd) {
			bestd = d;
			best = k;
		}
	}
	bucket_count(f, best, by, 1);
	return best;
}

/* The common sequences, by bit. */
static void index_grams(filling *f)
{
	size_t n = grams_count();
	f->gm = xcalloc(n, sizeof *f->gm);
	f->gf = xcalloc(n, sizeof *f->gf);
	f->bitseq = xcalloc(n * 2 * TB, sizeof *f->bitseq);
	uint32_t count[128] = { 0 };
	for (size_t i = 0; i < n; i++) {
		seq_bits(grams_entry(i, &f->gf[i]), f->gm[i]);
		for (int b = 0; b < 128; b++)
			count[b] += f->gm[i][b / 64] >> (b % 64) & 1;
	}
	for (int b = 0; b < 128; b++)
		f->bitfirst[b + 1] = f->bitfirst[b] + count[b];
	memset(count, 0, sizeof count);
	for (size_t i = 0; i < n; i++)
		for (int b = 0; b < 128; b++)
			if (f->gm[i][b / 64] >> (b % 64) & 1)
				f->bitseq[f->bitfirst[b] + count[b]++] = (uint32_t)i;
}

/* Puts the distinct windows into buckets, commonest first, each where it
 * raises the share of positions that pass the tables least; then, twice,
 * window by window, moves each to where it costs least among all the
 * others. */
static void fill_buckets(gate *g, const uint32_t *tri, size_t ntri)
{
	filling *f = xcalloc(1, sizeof *f);
	double total = 0;
	for (int c = 0; c < 256; c++)
		total += byte_freq[c];
	for (int c = 0; c < 256; c++) {
		f->flo[c & 15] += byte_freq[c] / total;
		f->fhi[c >> 4] += byte_freq[c] / total;
	}
	index_grams(f);
	for (int k = 0; k < BUCKETS; k++)
		f->pk[k] = indep_p(f, f->m[k]);
	int *in = xcalloc(ntri ? ntri : 1, sizeof *in);
	for (size_t i = 0; i < ntri; i++)
		in[i] = bucket_place(f, (const unsigned char *)&tri[i]);
	for (int sweep = 0; sweep < 2; sweep++)
		for (size_t i = 0; i < ntri; i++) {
			bucket_count(f, in[i], (const unsigned char *)&tri[i], -1);
			in[i] = bucket_place(f, (const unsigned char *)&tri[i]);
		}
	for (int k = 0; k < BUCKETS; k++)
		for (int j = 0; j < TB; j++)
			for (int v = 0; v < 16; v++) {
				if (nib_set(f->m[k], j, 0) >> v & 1)
					g->lo[j][v] |= (unsigned char)(1u << k);
				if (nib_set(f->m[k], j, 1) >> v & 1)
					g->hi[j][v] |= (unsigned char)(1u << k);
			}
	free(in);
	free(f->gm);
	free(f->gf);
	free(f->bitseq);
	free(f);
}

static double tri_freq(uint32_t t)
{
	unsigned char by[4];
	memcpy(by, &t, 4);
	return (double)byte_freq[by[0]] * byte_freq[by[1]] * byte_freq[by[2]];
}

static int cmp_tri_desc(const void *x, const void *y)
{
	uint32_t a = *(const uint32_t *)x, b = *(const uint32_t *)y;
	double fa = tri_freq(a), fb = tri_freq(b);
	if (fa != fb)
		return fa < fb ? 1 : -1;
	return a < b ? -1 : a > b;
}

static uint64_t load64(const char *p)
{
	uint64_t v;
	memcpy(&v, p, sizeof v);
	return v;
}

/* Lays each window's chain of literals out side by side. */
static void group_windows(gate *g)
{
	g->ent = xcalloc(g->n ? g->n : 1, sizeof *g->ent);
	uint32_t k = 0;
	for (size_t w = 0; w < g->wincap; w++) {
		window *s = &g->win[w];
		if (s->head < 0)
			continue;
		s->first = k;
		for (int i = s->head; i >= 0; i = g->chain[i]) {
			entry *e = &g->ent[k++];
			size_t m = g->len[i] < 8 ? g->len[i] : 8;
			char head[8] = { 0 }, mask[8] = { 0 };
			memcpy(head, g->lit[i], m);
			memset(mask, 0xff, m);
			e->head = load64(head); /* as a load of the text reads them, in any byte order */
			e->mask = load64(mask);
			e->lit = g->lit[i];
			e->off = (uint32_t)g->off[i];
			e->len = (uint32_t)g->len[i];
			e->val = g->val[i];
		}
		s->n = k - s->first;
		s->off = (int)g->ent[s->first].off;
		for (uint32_t e = s->first + 1; e < k; e++)
			if (g->ent[e].off != (uint32_t)s->off)
				s->off = -1;
	}
}

#ifdef NCCLOG_VECTORSCAN
/* A match of one piece of the buffer, as the own scan would report it. */
typedef struct hsfound {
	size_t at, start, len, seq; /* seq: the order Vectorscan gave */
	int val;
} hsfound;

/* Pieces scanned at a time: they bound the matches held for sorting. */
#define HS_PIECE 16384
/* When Vectorscan pays for its compile (35-50 ms): measured on 574 MB of
 * 256 rank files, it scans as fast as the own scan with the shipped ~450
 * literals and 20% faster with ~1800, where eight buckets fill up; the
 * compile is won back past about 150 MB. */
#define HS_MIN_LITERALS 1024
#define HS_MIN_BYTES (128ull << 20)

/* Compiles the literals for Vectorscan; on any failure the own scan stays. */
static void hs_build(gate *g)
{
	if (!g->n || hs_valid_platform() != HS_SUCCESS)
		return;
	unsigned *flags = xcalloc(g->n, sizeof *flags), *ids = xcalloc(g->n, sizeof *ids);
	for (size_t i = 0; i < g->n; i++) {
		ids[i] = (unsigned)i;
		if (g->len[i] > g->maxlen)
			g->maxlen = g->len[i];
	}
	hs_compile_error_t *err = NULL;
	if (hs_compile_lit_multi((const char *const *)g->lit, flags, ids, g->len, (unsigned)g->n, HS_MODE_BLOCK, NULL,
				 &g->hs, &err) != HS_SUCCESS) {
		hs_free_compile_error(err);
		g->hs = NULL;
	} else if (hs_alloc_scratch(g->hs, &g->scratch) != HS_SUCCESS) {
		hs_free_database(g->hs);
		g->hs = NULL;
	}
	free(flags);
	free(ids);
}
#endif

gate *gate_build(const slice *pats, const int *vals, size_t n)
{
	return gate_build_as(pats, vals, n, GATE_OWN);
}

gate *gate_build_as(const slice *pats, const int *vals, size_t n, gate_engine engine)
{
	gate *g = xcalloc(1, sizeof *g);
	size_t cap = n ? n : 1;
	g->lit = xcalloc(cap, sizeof *g->lit);
	g->len = xcalloc(cap, sizeof *g->len);
	g->off = xcalloc(cap, sizeof *g->off);
	g->val = xcalloc(cap, sizeof *g->val);
	g->chain = xcalloc(cap, sizeof *g->chain);
	for (size_t k = 0; k < n; k++) {
		if (pats[k].n < GATE_MIN)
			continue; /* the rule loader refuses these */
		size_t i = g->n++;
		g->lit[i] = xstrndup(pats[k].p, pats[k].n);
		g->len[i] = pats[k].n;
		g->val[i] = vals[k];
	}
	for (g->wincap = 16; g->wincap < 2 * g->n; g->wincap *= 2)
		;
	g->win = xmalloc(g->wincap * sizeof *g->win);
	for (size_t i = 0; i < g->wincap; i++)
		g->win[i].head = -1;
	uint32_t *tri = xcalloc(cap, sizeof *tri);
	size_t ntri = 0;
	/* literals in reverse, so each window's chain lists them in order */
	for (size_t k = g->n; k-- > 0;) {
		size_t at = choose_window(g, k);
		const unsigned char *w = (const unsigned char *)g->lit[k] + at;
		uint32_t t = load32(w);
		if (win_slot(g, t)->head < 0)
			tri[ntri++] = t;
		uint32_t key = load32(w), h = whash(key);
		g->wbits[h / 64] |= 1ULL << (h % 64);
		window *s = win_slot(g, key);
		if (s->head < 0)
			s->key = key;
		g->off[k] = at;
		g->chain[k] = s->head;
		s->head = (int)k;
	}
	qsort(tri, ntri, sizeof *tri, cmp_tri_desc);
	fill_buckets(g, tri, ntri);
	free(tri);
	group_windows(g);
#if defined(__x86_64__)
	__builtin_cpu_init();
	g->avx2 = __builtin_cpu_supports("avx2");
#endif
#ifdef NCCLOG_VECTORSCAN
	if (engine == GATE_VECTORSCAN)
		hs_build(g);
#else
	(void)engine;
#endif
	return g;
}

bool gate_accelerable(const gate *g)
{
#ifdef NCCLOG_VECTORSCAN
	return g->n >= HS_MIN_LITERALS;
#else
	(void)g;
	return false;
#endif
}

bool gate_accelerate(gate *g, uint64_t bytes)
{
#ifdef NCCLOG_VECTORSCAN
	if (!g->clone && !g->hs && (bytes == UINT64_MAX || (gate_accelerable(g) && bytes >= HS_MIN_BYTES)))
		hs_build(g);
	return g->hs != NULL;
#else
	(void)g;
	(void)bytes;
	return false;
#endif
}

gate *gate_clone(const gate *g)
{
	gate *c = xmalloc(sizeof *c);
	memcpy(c, g, sizeof *c);
	c->clone = true;
#ifdef NCCLOG_VECTORSCAN
	c->scratch = NULL;
	c->fv = NULL;
	c->fn = c->fcap = 0;
	if (c->hs && hs_clone_scratch(g->scratch, &c->scratch) != HS_SUCCESS)
		c->hs = NULL; /* this one scans on its own */
#endif
	return c;
}

const char *gate_accelerator(void)
{
#ifdef NCCLOG_VECTORSCAN
	if (hs_valid_platform() == HS_SUCCESS)
		return hs_version();
#endif
	return NULL;
}

bool gate_scans_short(const gate *g)
{
#ifdef NCCLOG_VECTORSCAN
	if (g->hs)
		return false;
#endif
	return g != NULL;
}

const char *gate_engine_name(const gate *g)
{
#ifdef NCCLOG_VECTORSCAN
	if (g->hs)
		return "vectorscan";
#endif
	(void)g;
	return "own";
}

void gate_free(gate *g)
{
	if (!g)
		return;
#ifdef NCCLOG_VECTORSCAN
	hs_free_scratch(g->scratch);
	free(g->fv);
	if (!g->clone)
		hs_free_database(g->hs);
#endif
	if (g->clone) {
		free(g);
		return;
	}
	for (size_t i = 0; i < g->n; i++)
		free(g->lit[i]);
	free(g->lit);
	free(g->len);
	free(g->off);
	free(g->val);
	free(g->chain);
	free(g->ent);
	free(g->win);
	free(g);
}

/* True when the window at p may be one of the literals': its hash is in
 * the bitmap. Most survivors of the vector tables stop here. */
static inline bool maybe_window(const gate *g, const unsigned char *p)
{
	uint32_t h = whash(load32(p));
	return g->wbits[h / 64] >> (h % 64) & 1;
}

/* The literals whose window is at s[pos..pos+4), found exactly and
 * compared in full. */
static inline __attribute__((always_inline)) size_t confirm(const gate *g, slice s, size_t pos, gate_at_fn hit,
								  void *ctx)
{
	const window *w = win_slot(g, load32((const unsigned char *)s.p + pos));
	size_t hits = 0;
	if (w->head < 0)
		return 0;
	const entry *e = g->ent + w->first, *end = e + w->n;
	if (w->off >= 0 && pos >= (size_t)w->off && pos - (size_t)w->off + 8 <= s.n) {
		/* the literals start at one place: its first 8 bytes are loaded
		 * once, and most literals differ from them there */
		size_t start = pos - (size_t)w->off;
		uint64_t t = load64(s.p + start);
		for (; e < end; e++) {
			if ((t ^ e->head) & e->mask)
				continue;
			size_t len = e->len;
			if (start + len > s.n || (len > 8 && memcmp(s.p + start + 8, e->lit + 8, len - 8) != 0))
				continue;
			hit(ctx, e->val, start, len, pos);
			hits++;
		}
		return hits;
	}
	for (; e < end; e++) {
		if (pos < e->off)
			continue;
		size_t start = pos - e->off, len = e->len;
		if (start + len > s.n)
			continue;
		bool same;
		if (start + 8 <= s.n)
			same = !((load64(s.p + start) ^ e->head) & e->mask) &&
			       (len <= 8 || memcmp(s.p + start + 8, e->lit + 8, len - 8) == 0);
		else
			same = memcmp(s.p + start, e->lit, len) == 0;
		if (same) {
			hit(ctx, e->val, start, len, pos);
			hits++;
		}
	}
	return hits;
}

/* The candidates cand[0..nc), positions where a window fits and whose
 * hash is in the bitmap. */
static size_t verify(const gate *g, slice s, const uint32_t *cand, size_t nc, gate_at_fn hit, void *ctx)
{
	size_t hits = 0;
	for (size_t k = 0; k < nc; k++)
		hits += confirm(g, s, cand[k], hit, ctx);
	return hits;
}

static size_t scan_scalar(const gate *g, slice s, size_t from, size_t to, gate_at_fn hit, void *ctx)
{
	size_t hits = 0;
	for (size_t pos = from; pos < to; pos++)
		if (maybe_window(g, (const unsigned char *)s.p + pos))
			hits += confirm(g, s, pos, hit, ctx);
	return hits;
}

#if defined(__x86_64__)
typedef struct tables {
	__m256i lo[TB], hi[TB];
} tables;

__attribute__((target("avx2"))) static inline __m256i nibbles(const unsigned char *q, __m256i lo, __m256i hi)
{
	__m256i nib = _mm256_set1_epi8(15);
	__m256i v = _mm256_loadu_si256((const __m256i *)q);
	return _mm256_and_si256(_mm256_shuffle_epi8(lo, _mm256_and_si256(v, nib)),
				_mm256_shuffle_epi8(hi, _mm256_and_si256(_mm256_srli_epi16(v, 4), nib)));
}

/* Bit k set when position k of the 32 at q may start a window (reads q[0..35)). */
__attribute__((target("avx2"))) static inline unsigned teddy(const unsigned char *q, const tables *t)
{
	__m256i m = _mm256_and_si256(nibbles(q, t->lo[0], t->hi[0]), nibbles(q + 1, t->lo[1], t->hi[1]));
	for (int j = 2; j < TB; j++)
		m = _mm256_and_si256(m, nibbles(q + j, t->lo[j], t->hi[j]));
	return ~(unsigned)_mm256_movemask_epi8(_mm256_cmpeq_epi8(m, _mm256_setzero_si256()));
}

/* Positions [from, to) of s, where to <= s.n - WIN + 1. */
__attribute__((target("avx2"))) static size_t scan_avx2(const gate *g, slice s, size_t from, size_t to, gate_at_fn hit,
							 void *ctx)
{
	const unsigned char *p = (const unsigned char *)s.p;
	tables t;
	for (int j = 0; j < TB; j++) {
		t.lo[j] = _mm256_broadcastsi128_si256(_mm_loadu_si128((const __m128i *)g->lo[j]));
		t.hi[j] = _mm256_broadcastsi128_si256(_mm_loadu_si128((const __m128i *)g->hi[j]));
	}
	uint32_t cand[CAND_MAX + 32];
	size_t nc = 0, hits = 0, last = s.n - WIN; /* the last position a window fits at */
	if (s.n < 35) {
		/* a short line: from a zero-padded copy */
		unsigned char tail[64] = { 0 };
		memcpy(tail, p, s.n);
		unsigned bits = teddy(tail, &t) & ((2u << (to - 1)) - 1) & (~0u << from);
		for (; bits; bits &= bits - 1)
			if (maybe_window(g, p + __builtin_ctz(bits)))
				cand[nc++] = (uint32_t)__builtin_ctz(bits);
		return verify(g, s, cand, nc, hit, ctx);
	}
	/* blocks of 32 positions that read 35 bytes; a block past the last one
	 * that fits ends at the last position, overlapping the one before */
	for (size_t i = from; i < to; i += 32) {
		size_t at = i > last - 31 ? last - 31 : i;
		size_t end = to - at < 32 ? to - at : 32; /* positions at+[i-at, end) */
		unsigned bits = teddy(p + at, &t) & (~0u << (i - at));
		if (end < 32)
			bits &= (1u << end) - 1;
		/* the bitmap here, with the tables still in registers: only the
		 * few that pass are kept for the exact lookup */
		for (; bits; bits &= bits - 1) {
			size_t pos = at + (unsigned)__builtin_ctz(bits);
			if (maybe_window(g, p + pos))
				cand[nc++] = (uint32_t)pos;
		}
		if (nc >= CAND_MAX) {
			hits += verify(g, s, cand, nc, hit, ctx);
			nc = 0;
		}
	}
	return hits + verify(g, s, cand, nc, hit, ctx);
}
#endif

#ifdef NCCLOG_VECTORSCAN
typedef struct hsscan {
	gate *g;
	size_t base, from;
} hsscan;

static int on_hs(unsigned id, unsigned long long from, unsigned long long to, unsigned flags, void *ctx)
{
	hsscan *h = ctx;
	gate *g = h->g;
	size_t end = h->base + (size_t)to, len = g->len[id];
	(void)from;
	(void)flags;
	if (end - 1 < h->from)
		return 0; /* the piece before reported it */
	if (g->fn == g->fcap)
		grow(&g->fv, &g->fcap, g->fn, sizeof *g->fv);
	g->fv[g->fn] = (hsfound){ end - 1, end - len, len, g->fn, g->val[id] };
	g->fn++;
	return 0;
}

static int cmp_found(const void *x, const void *y)
{
	const hsfound *a = x, *b = y;
	if (a->at != b->at)
		return a->at < b->at ? -1 : 1;
	return a->seq < b->seq ? -1 : a->seq > b->seq;
}

/* The occurrences that end in [from, to), in the order of their last
 * byte (Vectorscan reports them nearly so), found at that byte. */
static size_t scan_hs(gate *g, slice s, size_t from, size_t to, gate_at_fn hit, void *ctx)
{
	size_t hits = 0;
	for (size_t a = from; a < to; a += HS_PIECE) {
		size_t b = to - a < HS_PIECE ? to : a + HS_PIECE;
		hsscan h = { g, a > g->maxlen ? a - g->maxlen + 1 : 0, a };
		g->fn = 0;
		if (hs_scan(g->hs, s.p + h.base, (unsigned)(b - h.base), 0, g->scratch, on_hs, &h) != HS_SUCCESS)
			return hits; /* no error is possible with this callback */
		bool sorted = true;
		for (size_t i = 1; i < g->fn && sorted; i++)
			sorted = g->fv[i - 1].at <= g->fv[i].at;
		if (!sorted)
			qsort(g->fv, g->fn, sizeof *g->fv, cmp_found);
		for (size_t i = 0; i < g->fn; i++)
			hit(ctx, g->fv[i].val, g->fv[i].start, g->fv[i].len, g->fv[i].at);
		hits += g->fn;
	}
	return hits;
}
#endif

size_t gate_scan_at(gate *g, slice s, size_t from, size_t to, gate_at_fn hit, void *ctx)
{
	if (!g->n || s.n < WIN)
		return 0;
#ifdef NCCLOG_VECTORSCAN
	/* to the end of s when the own scan's last window is reached */
	if (g->hs)
		return from >= s.n - WIN + 1 ? 0 : scan_hs(g, s, from, to >= s.n - WIN + 1 ? s.n : to, hit, ctx);
#endif
	if (to > s.n - WIN + 1)
		to = s.n - WIN + 1;
	if (from >= to)
		return 0;
#if defined(__x86_64__)
	if (g->avx2)
		return scan_avx2(g, s, from, to, hit, ctx);
#endif
	return scan_scalar(g, s, from, to, hit, ctx);
}

typedef struct plain {
	void (*hit)(void *ctx, int value);
	void *ctx;
} plain;

static void plain_hit(void *ctx, int value, size_t start, size_t len, size_t at)
{
	const plain *pl = ctx;
	pl->hit(pl->ctx, value);
	(void)start;
	(void)len;
	(void)at;
}

size_t gate_scan(gate *g, slice s, void (*hit)(void *ctx, int value), void *ctx)
{
	plain pl = { hit, ctx };
	return gate_scan_at(g, s, 0, s.n, plain_hit, &pl);
}
