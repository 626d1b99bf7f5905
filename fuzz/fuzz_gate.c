/* Fuzzes the literal gate: the input is a list of literals, a blank line,
 * and a text. Both engines (the own scan and, where it is built in,
 * Vectorscan) scan the text whole and in pieces of a size the first byte
 * picks; each must report exactly the occurrences a naive search finds,
 * each once, in the order the gate promises. A difference aborts. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../rules/gate.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAX_LITS 200

typedef struct occ {
	size_t start, len;
	int val;
} occ;

typedef struct seen {
	occ *v;
	size_t n, cap, last;
	bool order;
} seen;

static void on_hit(void *ctx, int val, size_t start, size_t len, size_t at)
{
	seen *s = ctx;
	if (at < s->last || at < start || at >= start + len)
		s->order = false;
	s->last = at;
	if (s->n == s->cap)
		grow(&s->v, &s->cap, s->n, sizeof *s->v);
	s->v[s->n++] = (occ){ start, len, val };
}

static int cmp_occ(const void *x, const void *y)
{
	const occ *a = x, *b = y;
	if (a->start != b->start)
		return a->start < b->start ? -1 : 1;
	if (a->val != b->val)
		return a->val < b->val ? -1 : 1;
	return 0;
}

/* The occurrences the gate finds over text, in pieces of step, sorted. */
static seen scan(gate *g, slice text, size_t step)
{
	seen s = { .order = true };
	for (size_t from = 0; from < text.n || (from == 0 && !text.n); from += step)
		gate_scan_at(g, text, from, from + step, on_hit, &s);
	if (!s.order)
		abort();
	if (s.n)
		qsort(s.v, s.n, sizeof *s.v, cmp_occ);
	return s;
}

static void same(const seen *a, const seen *b)
{
	if (a->n != b->n || (a->n && memcmp(a->v, b->v, a->n * sizeof *a->v) != 0))
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	size_t step = 1 + (size_t)data[0] * 37 % 5000;
	slice in = { (const char *)data + 1, size - 1 };
	slice pats[MAX_LITS];
	int vals[MAX_LITS];
	size_t n = 0, at = 0;
	while (at < in.n && n < MAX_LITS) {
		const char *nl = memchr(in.p + at, '\n', in.n - at);
		size_t len = nl ? (size_t)(nl - (in.p + at)) : in.n - at;
		if (!len) { /* the blank line: the text follows */
			at++;
			break;
		}
		pats[n] = (slice){ in.p + at, len };
		vals[n] = (int)n;
		n++;
		at += len + (nl != NULL);
	}
	slice text = { in.p + at, in.n - at };
	/* what a naive search finds: the gate skips literals under 4 bytes */
	seen want = { .order = true };
	for (size_t k = 0; k < n; k++)
		for (size_t i = 0; pats[k].n >= 4 && i + pats[k].n <= text.n; i++)
			if (memcmp(text.p + i, pats[k].p, pats[k].n) == 0)
				on_hit(&want, vals[k], i, pats[k].n, i);
	if (want.n)
		qsort(want.v, want.n, sizeof *want.v, cmp_occ);
	gate_engine engines[] = { GATE_OWN, GATE_VECTORSCAN };
	for (size_t e = 0; e < 2; e++) {
		gate *g = gate_build_as(pats, vals, n, engines[e]);
		seen whole = scan(g, text, text.n + 1), parts = scan(g, text, step);
		same(&want, &whole);
		same(&want, &parts);
		free(whole.v);
		free(parts.v);
		gate_free(g);
	}
	free(want.v);
	return 0;
}
