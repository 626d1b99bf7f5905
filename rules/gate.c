#include "gate.h"

#include <stdlib.h>
#include <string.h>

/* Bytes that occur in no pattern share class 0, which keeps the dense
 * transition table small (states x classes). */
struct gate {
	unsigned char cls[256];
	int nclass;
	int nstates;
	int *next;     /* nstates * nclass */
	int *out;      /* first output index per state, -1 */
	int *outnext;  /* chained outputs: value list */
	int *outval;
	size_t nout;
};

typedef struct trie {
	int *child; /* nstates * nclass during build, -1 = none */
	int *fail;
	int n, cap, ncls;
} trie;

static int trie_new_state(trie *t)
{
	if (t->n == t->cap) {
		t->cap = t->cap ? t->cap * 2 : 64;
		t->child = xrealloc(t->child, (size_t)t->cap * (size_t)t->ncls * sizeof(int));
		t->fail = xrealloc(t->fail, (size_t)t->cap * sizeof(int));
	}
	memset(t->child + (size_t)t->n * (size_t)t->ncls, 0xff, (size_t)t->ncls * sizeof(int));
	t->fail[t->n] = 0;
	return t->n++;
}

gate *gate_build(const slice *pats, const int *vals, size_t n)
{
	gate *g = xcalloc(1, sizeof *g);
	int ncls = 1;
	for (size_t k = 0; k < n; k++)
		for (size_t i = 0; i < pats[k].n; i++) {
			unsigned char c = (unsigned char)pats[k].p[i];
			if (!g->cls[c])
				g->cls[c] = (unsigned char)ncls++;
		}
	g->nclass = ncls;
	trie t = { .ncls = ncls };
	trie_new_state(&t);
	int *patstate = xmalloc((n ? n : 1) * sizeof(int));
	for (size_t k = 0; k < n; k++) {
		int s = 0;
		for (size_t i = 0; i < pats[k].n; i++) {
			int c = g->cls[(unsigned char)pats[k].p[i]];
			int *slot = &t.child[(size_t)s * (size_t)ncls + (size_t)c];
			if (*slot < 0) {
				int ns = trie_new_state(&t);
				slot = &t.child[(size_t)s * (size_t)ncls + (size_t)c];
				*slot = ns;
			}
			s = *slot;
		}
		patstate[k] = s;
	}
	/* Breadth-first: failure links and the full transition table. */
	int *queue = xmalloc((size_t)t.n * sizeof(int));
	int qh = 0, qt = 0;
	for (int c = 0; c < ncls; c++) {
		int *slot = &t.child[c];
		if (*slot < 0) {
			*slot = 0;
		} else {
			t.fail[*slot] = 0;
			queue[qt++] = *slot;
		}
	}
	while (qh < qt) {
		int s = queue[qh++];
		for (int c = 0; c < ncls; c++) {
			int *slot = &t.child[(size_t)s * (size_t)ncls + (size_t)c];
			int f = t.child[(size_t)t.fail[s] * (size_t)ncls + (size_t)c];
			if (*slot < 0) {
				*slot = f;
			} else {
				t.fail[*slot] = f;
				queue[qt++] = *slot;
			}
		}
	}
	/* Outputs: each state reports its own patterns, then its fail chain's. */
	g->nstates = t.n;
	g->next = t.child;
	g->out = xmalloc((size_t)t.n * sizeof(int));
	memset(g->out, 0xff, (size_t)t.n * sizeof(int));
	g->outnext = xmalloc((n ? n : 1) * sizeof(int));
	g->outval = xmalloc((n ? n : 1) * sizeof(int));
	for (size_t k = 0; k < n; k++) {
		g->outval[k] = vals[k];
		g->outnext[k] = g->out[patstate[k]];
		g->out[patstate[k]] = (int)k;
	}
	g->nout = n;
	/* Link each state's output list to its fail state's, in BFS order so
	 * the fail state is complete first. A state with no own outputs
	 * points straight at the fail state's list. */
	int *tail = xmalloc((size_t)t.n * sizeof(int));
	int *merged = xmalloc((size_t)t.n * sizeof(int));
	memset(merged, 0xff, (size_t)t.n * sizeof(int));
	for (int i = 0; i < t.n; i++) {
		int k = g->out[i], last = -1;
		while (k >= 0) {
			last = k;
			k = g->outnext[k];
		}
		tail[i] = last;
	}
	/* merged[s] = head of the full list for s */
	merged[0] = g->out[0];
	for (int i = 0; i < qt; i++) {
		int s = queue[i];
		int fl = merged[t.fail[s]];
		if (g->out[s] < 0) {
			merged[s] = fl;
		} else {
			merged[s] = g->out[s];
			g->outnext[tail[s]] = fl;
		}
	}
	free(g->out);
	g->out = merged;
	free(tail);
	free(queue);
	free(t.fail);
	free(patstate);
	return g;
}

void gate_free(gate *g)
{
	if (!g)
		return;
	free(g->next);
	free(g->out);
	free(g->outnext);
	free(g->outval);
	free(g);
}

size_t gate_scan(const gate *g, slice s, void (*hit)(void *ctx, int value), void *ctx)
{
	const unsigned char *p = (const unsigned char *)s.p;
	const int *next = g->next;
	const unsigned char *cls = g->cls;
	size_t nc = (size_t)g->nclass, hits = 0;
	int st = 0;
	for (size_t i = 0; i < s.n; i++) {
		st = next[(size_t)st * nc + cls[p[i]]];
		if (g->out[st] >= 0) {
			for (int k = g->out[st]; k >= 0; k = g->outnext[k]) {
				hit(ctx, g->outval[k]);
				hits++;
			}
		}
	}
	return hits;
}
