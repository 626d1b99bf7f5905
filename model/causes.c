/* The cause graph at work: which finding explains which (the edges of
 * rules/causes.json, where the findings meet as an edge asks), then the
 * report's order: roots first, each followed by what it explains. */
#include "causes.h"

#include <stdlib.h>
#include <string.h>

#include "../util/ipaddr.h"

/* A cause must not come after its effect; clocks of hosts differ a little. */
#define CLOCK_SLACK 60.0

static bool procs_meet(const finding *a, const finding *b)
{
	const finding *small = a->procs.n < b->procs.n ? a : b, *big = small == a ? b : a;
	for (size_t i = 0; i < small->procs.n; i++)
		if (intset_has(&big->procs, small->procs.v[i]))
			return true;
	return false;
}

static bool sets_meet(const intset *a, const intset *b)
{
	const intset *small = a->n < b->n ? a : b, *big = small == a ? b : a;
	for (size_t i = 0; i < small->n; i++)
		if (intset_has(big, small->v[i]))
			return true;
	return false;
}

/* What the linking asks of every finding, computed once: which edges it
 * may be the cause and the effect of, the hosts it lives on, and the
 * hosts of the peers it names. Each pair of findings then costs a few
 * lookups, not a walk over the processes. */
typedef struct linkfacts {
	const model *m;
	size_t n, nedges, words;
	uint64_t *as_cause, *as_effect; /* bit sets of edges: [finding * words + edge / 64] */
	intset *hosts, *peer_hosts;
	bool *have_hosts;
	/* the hosts that listen on an address (its part before '<' or '%') */
	struct addrhost { const char *a; size_t n; int host; } *addrs;
	size_t naddrs;
} linkfacts;

static void hosts_of(const model *m, const finding *f, intset *out)
{
	for (size_t i = 0; i < f->procs.n; i++)
		if (m->procs[f->procs.v[i]].host >= 0)
			intset_add(out, m->procs[f->procs.v[i]].host);
	/* the ranks a finding names itself live somewhere too */
	if (f->ranks.n)
		for (size_t k = 0; k < m->nprocs; k++)
			if (m->procs[k].host >= 0 && intset_has(&f->ranks, model_proc_rank(m, (int)k)))
				intset_add(out, m->procs[k].host);
}

static int cmp_addr(const void *a, const void *b)
{
	const struct addrhost *x = a, *y = b;
	size_t n = x->n < y->n ? x->n : y->n;
	int c = memcmp(x->a, y->a, n);
	if (c)
		return c;
	if (x->n != y->n)
		return x->n < y->n ? -1 : 1;
	return (x->host > y->host) - (x->host < y->host);
}

static void addrs_build(linkfacts *lf)
{
	const model *m = lf->m;
	size_t cap = 0;
	for (size_t i = 0; i < m->nprocs; i++) {
		const proc *p = &m->procs[i];
		if (p->host < 0)
			continue;
		int addrs[18], n = 0;
		if (p->boot.addr >= 0)
			addrs[n++] = p->boot.addr;
		if (p->oob.addr >= 0)
			addrs[n++] = p->oob.addr;
		for (int k = 0; k < p->nsocket && n < 18; k++)
			addrs[n++] = p->socket[k].addr;
		for (int k = 0; k < n; k++) {
			if (addrs[k] < 0)
				continue;
			/* "10.0.0.5<0>" is stored whole: the address part */
			const char *a = intern_str(&m->str, addrs[k]);
			grow(&lf->addrs, &cap, lf->naddrs, sizeof *lf->addrs);
			lf->addrs[lf->naddrs++] = (struct addrhost){ a, strcspn(a, "<%"), p->host };
		}
	}
	if (lf->naddrs)
		qsort(lf->addrs, lf->naddrs, sizeof *lf->addrs, cmp_addr);
}

/* The hosts whose processes listen on one of f's peer addresses. */
static void peer_hosts_of(const linkfacts *lf, const finding *f, intset *out)
{
	for (size_t j = 0; j < f->peers.n; j++) {
		const char *pa = intern_str(&lf->m->str, f->peers.v[j]);
		struct addrhost key = { pa, strlen(pa), -1 };
		size_t lo = 0, hi = lf->naddrs;
		while (lo < hi) {
			size_t mid = (lo + hi) / 2;
			if (cmp_addr(&lf->addrs[mid], &key) < 0)
				lo = mid + 1;
			else
				hi = mid;
		}
		for (size_t k = lo; k < lf->naddrs && lf->addrs[k].n == key.n && memcmp(lf->addrs[k].a, pa, key.n) == 0; k++)
			intset_add(out, lf->addrs[k].host);
	}
}

static void linkfacts_init(linkfacts *lf, const model *m)
{
	const findings *fs = &m->fs;
	const catalog *cat = m->cat;
	*lf = (linkfacts){ .m = m, .n = fs->n, .nedges = cat ? cat->nedges : 0 };
	lf->words = (lf->nedges + 63) / 64;
	size_t cells = (lf->n ? lf->n : 1) * (lf->words ? lf->words : 1);
	lf->as_cause = xcalloc(cells, sizeof *lf->as_cause);
	lf->as_effect = xcalloc(cells, sizeof *lf->as_effect);
	for (size_t i = 0; i < lf->n; i++)
		for (size_t k = 0; k < lf->nedges; k++) {
			uint64_t bit = 1ull << (k % 64);
			if (catalog_id_matches(cat->edges[k].cause, fs->v[i].id))
				lf->as_cause[i * lf->words + k / 64] |= bit;
			if (catalog_id_matches(cat->edges[k].effect, fs->v[i].id))
				lf->as_effect[i * lf->words + k / 64] |= bit;
		}
	lf->hosts = xcalloc(lf->n ? lf->n : 1, sizeof *lf->hosts);
	lf->peer_hosts = xcalloc(lf->n ? lf->n : 1, sizeof *lf->peer_hosts);
	lf->have_hosts = xcalloc(lf->n ? lf->n : 1, sizeof *lf->have_hosts);
	addrs_build(lf);
}

static void linkfacts_free(linkfacts *lf)
{
	for (size_t i = 0; i < lf->n; i++) {
		intset_free(&lf->hosts[i]);
		intset_free(&lf->peer_hosts[i]);
	}
	free(lf->hosts);
	free(lf->peer_hosts);
	free(lf->have_hosts);
	free(lf->as_cause);
	free(lf->as_effect);
	free(lf->addrs);
}

/* The hosts of finding i and of its peers, computed when first asked. */
static const intset *hosts_at(linkfacts *lf, size_t i)
{
	if (!lf->have_hosts[i]) {
		hosts_of(lf->m, &lf->m->fs.v[i], &lf->hosts[i]);
		peer_hosts_of(lf, &lf->m->fs.v[i], &lf->peer_hosts[i]);
		lf->have_hosts[i] = true;
	}
	return &lf->hosts[i];
}

/* Edge k, whose ids match g and f, holds between them. */
static bool edge_holds(linkfacts *lf, size_t k, size_t gi, size_t fi)
{
	const causeedge *e = &lf->m->cat->edges[k];
	const finding *g = &lf->m->fs.v[gi], *f = &lf->m->fs.v[fi];
	if (g->severity < e->min_severity)
		return false;
	/* a wildcard cause runs forward in the chain only */
	if (strcmp(e->cause, "*") == 0 && g->kind > f->kind)
		return false;
	switch (e->when) {
	case WHEN_JOB:
		return true;
	case WHEN_SAME_PROCESS:
		return procs_meet(g, f);
	case WHEN_SAME_HOST:
		return procs_meet(g, f) || sets_meet(hosts_at(lf, gi), hosts_at(lf, fi));
	case WHEN_PEER:
		/* f names a peer address on g's hosts */
		return procs_meet(g, f) || sets_meet(hosts_at(lf, gi), hosts_at(lf, fi)) ||
		       (f->peers.n && (hosts_at(lf, fi), sets_meet(&lf->peer_hosts[fi], hosts_at(lf, gi))));
	case WHEN_OTHER_PROCESS:
		/* a process that died and saw its own error is that error's effect */
		return !procs_meet(g, f);
	}
	return false;
}

/* Two stamps say which came first only when both carry a date or neither
 * does: a glog or syslog stamp has no year (placed in 2000), NCCL's own
 * "[%F %T]" of 2.26+ has one, and one log holds both. */
static bool times_comparable(double a, double b)
{
	return a > 0 && b > 0 && time_dated(a) == time_dated(b);
}

/* Can g be a cause at all, and of f? Not after it in time; a performance
 * finding or a loose line explains nothing. */
static bool may_cause(const finding *g, const finding *f)
{
	if (g == f || g->kind == KIND_CATCH_ALL || g->kind >= KIND_PERFORMANCE)
		return false;
	if (times_comparable(g->time, f->time) && g->time > f->time + CLOCK_SLACK)
		return false;
	return true;
}

/* The better of two causes: earlier in the chain, then in time, then
 * worse, then first reported. */
static bool better_cause(const finding *a, const finding *b)
{
	if (a->kind != b->kind)
		return a->kind < b->kind;
	if (times_comparable(a->time, b->time) && a->time != b->time)
		return a->time < b->time;
	if (a->severity != b->severity)
		return a->severity > b->severity;
	return a->seq < b->seq;
}

/* Does an edge whose ids match g and f hold between them? */
static bool explains_any(linkfacts *lf, size_t gi, size_t fi)
{
	const uint64_t *c = &lf->as_cause[gi * lf->words], *e = &lf->as_effect[fi * lf->words];
	for (size_t w = 0; w < lf->words; w++)
		for (uint64_t both = c[w] & e[w]; both; both &= both - 1)
			if (edge_holds(lf, w * 64 + (size_t)__builtin_ctzll(both), gi, fi))
				return true;
	return false;
}

/* True when following the causes up from g reaches f (a cycle). */
static bool reaches(const findings *fs, int g, int f)
{
	for (size_t steps = 0; g >= 0 && steps <= fs->n; steps++) {
		if (g == f)
			return true;
		g = fs->v[g].cause;
	}
	return false;
}

static int cmp_kind_desc(const void *a, const void *b, void *ctx)
{
	const findings *fs = ctx;
	int x = *(const int *)a, y = *(const int *)b;
	if (fs->v[x].kind != fs->v[y].kind)
		return fs->v[x].kind > fs->v[y].kind ? -1 : 1;
	return x - y;
}

void causes_link(model *m)
{
	findings *fs = &m->fs;
	/* the most symptom-like first: their causes come later in this order */
	int *order = xmalloc((fs->n ? fs->n : 1) * sizeof *order);
	for (size_t i = 0; i < fs->n; i++) {
		order[i] = (int)i;
		fs->v[i].cause = -1;
		fs->v[i].demoted = false;
	}
	/* stable: alike kinds keep their arrival order */
	qsort_r(order, fs->n, sizeof *order, cmp_kind_desc, fs);
	linkfacts lf;
	linkfacts_init(&lf, m);
	for (size_t oi = 0; oi < fs->n; oi++) {
		int fi = order[oi];
		finding *f = &fs->v[fi];
		int best = -1;
		for (size_t gi = 0; gi < fs->n; gi++) {
			const finding *g = &fs->v[gi];
			if (!may_cause(g, f) || !explains_any(&lf, gi, (size_t)fi) || reaches(fs, (int)gi, fi))
				continue;
			if (best < 0 || better_cause(g, &fs->v[best]))
				best = (int)gi;
		}
		f->cause = best;
		/* a suspicion that a proven finding explains is no lead of its own */
		if (best >= 0 && f->confidence == CONF_SUSPECTED && fs->v[best].confidence != CONF_SUSPECTED)
			f->demoted = true;
	}
	linkfacts_free(&lf);
	free(order);
}

/* What a root explains, for its rank among roots. */
typedef struct weight {
	enum severity sev; /* the worst in its group */
	size_t procs;      /* processes its group covers */
	size_t size;       /* findings in its group */
	double time;       /* its own earliest time, 0 when none */
} weight;

static int root_of(const findings *fs, int i)
{
	for (size_t steps = 0; fs->v[i].cause >= 0 && steps <= fs->n; steps++)
		i = fs->v[i].cause;
	return i;
}

typedef struct ranked {
	int idx;
	weight w;
} ranked;

static int cmp_roots(const void *a, const void *b)
{
	const ranked *x = a, *y = b;
	if (x->w.sev != y->w.sev)
		return x->w.sev > y->w.sev ? -1 : 1;
	if (x->w.procs != y->w.procs)
		return x->w.procs > y->w.procs ? -1 : 1;
	if (x->w.size != y->w.size)
		return x->w.size > y->w.size ? -1 : 1;
	if (times_comparable(x->w.time, y->w.time) && x->w.time != y->w.time)
		return x->w.time < y->w.time ? -1 : 1;
	return x->idx < y->idx ? -1 : x->idx > y->idx;
}

/* Appends i and, depth first, what it explains (in arrival order). */
static void place(const findings *fs, int i, int depth, int *out, size_t *n, int *depths)
{
	depths[i] = depth;
	out[(*n)++] = i;
	for (size_t k = 0; k < fs->n; k++)
		if (fs->v[k].cause == i)
			place(fs, (int)k, depth + 1, out, n, depths);
}

void model_order(model *m)
{
	findings *fs = &m->fs;
	size_t n = fs->n;
	if (!n) {
		fs->nroots = 0;
		return;
	}
	ranked *roots = xcalloc(n, sizeof *roots);
	size_t nr = 0;
	intset *cover = xcalloc(n, sizeof *cover);
	for (size_t i = 0; i < n; i++) {
		int r = root_of(fs, (int)i);
		intset_addall(&cover[r], &fs->v[i].procs);
	}
	for (size_t i = 0; i < n; i++) {
		if (fs->v[i].cause >= 0)
			continue;
		weight w = { fs->v[i].severity, cover[i].n, 0, fs->v[i].time };
		for (size_t k = 0; k < n; k++)
			if (root_of(fs, (int)k) == (int)i) {
				w.size++;
				/* a suspicion folded under it does not make its group worse */
				if (fs->v[k].severity > w.sev && !fs->v[k].demoted)
					w.sev = fs->v[k].severity;
			}
		roots[nr++] = (ranked){ (int)i, w };
	}
	qsort(roots, nr, sizeof *roots, cmp_roots);
	int *order = xmalloc(n * sizeof *order), *depth = xcalloc(n, sizeof *depth);
	size_t placed = 0;
	for (size_t r = 0; r < nr; r++)
		place(fs, roots[r].idx, 0, order, &placed, depth);
	/* a cycle cannot happen (causes_link refuses them); keep any stray anyway */
	for (size_t i = 0; i < n && placed < n; i++) {
		bool in = false;
		for (size_t k = 0; k < placed && !in; k++)
			in = order[k] == (int)i;
		if (!in)
			order[placed++] = (int)i;
	}
	int *where = xmalloc(n * sizeof *where);
	finding *v = xmalloc(n * sizeof *v);
	for (size_t k = 0; k < n; k++) {
		where[order[k]] = (int)k;
		v[k] = fs->v[order[k]];
		v[k].depth = depth[order[k]];
	}
	for (size_t k = 0; k < n; k++) {
		if (v[k].cause >= 0)
			v[k].cause = where[v[k].cause];
		v[k].nconseq = 0;
	}
	for (size_t k = 0; k < n; k++) {
		int r = (int)k;
		while (v[r].cause >= 0)
			r = v[r].cause;
		v[k].root = r;
		if (r != (int)k)
			v[r].nconseq++;
	}
	memcpy(fs->v, v, n * sizeof *v);
	fs->nroots = nr;
	for (size_t i = 0; i < n; i++)
		intset_free(&cover[i]);
	free(cover);
	free(roots);
	free(order);
	free(depth);
	free(where);
	free(v);
}
