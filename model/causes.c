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
	for (size_t i = 0; i < a->procs.n; i++)
		if (intset_has(&b->procs, a->procs.v[i]))
			return true;
	return false;
}

static void hosts_of(const model *m, const finding *f, intset *out)
{
	for (size_t i = 0; i < f->procs.n; i++)
		if (m->procs[f->procs.v[i]].host >= 0)
			intset_add(out, m->procs[f->procs.v[i]].host);
	/* the ranks a finding names itself live somewhere too */
	for (size_t i = 0; i < f->ranks.n; i++)
		for (size_t k = 0; k < m->nprocs; k++)
			if (model_proc_rank(m, (int)k) == f->ranks.v[i] && m->procs[k].host >= 0)
				intset_add(out, m->procs[k].host);
}

static bool hosts_meet(const model *m, const finding *a, const finding *b)
{
	intset ha = { 0 }, hb = { 0 };
	hosts_of(m, a, &ha);
	hosts_of(m, b, &hb);
	bool meet = false;
	for (size_t i = 0; i < ha.n && !meet; i++)
		meet = intset_has(&hb, ha.v[i]);
	intset_free(&ha);
	intset_free(&hb);
	return meet;
}

/* Does f name a peer address that belongs to a process on g's hosts? */
static bool peer_on(const model *m, const finding *f, const finding *g)
{
	if (!f->peers.n)
		return false;
	intset hg = { 0 };
	hosts_of(m, g, &hg);
	bool hit = false;
	for (size_t i = 0; i < m->nprocs && !hit; i++) {
		const proc *p = &m->procs[i];
		if (!intset_has(&hg, p->host))
			continue;
		int addrs[18], n = 0;
		if (p->boot.addr >= 0)
			addrs[n++] = p->boot.addr;
		if (p->oob.addr >= 0)
			addrs[n++] = p->oob.addr;
		for (int k = 0; k < p->nsocket && n < 18; k++)
			addrs[n++] = p->socket[k].addr;
		for (int k = 0; k < n && !hit; k++) {
			/* "10.0.0.5<0>" is stored whole: compare the address part */
			const char *a = intern_str(&m->str, addrs[k]);
			size_t al = strcspn(a, "<%");
			for (size_t j = 0; j < f->peers.n && !hit; j++) {
				const char *pa = intern_str(&m->str, f->peers.v[j]);
				hit = strlen(pa) == al && strncmp(pa, a, al) == 0;
			}
		}
	}
	intset_free(&hg);
	return hit;
}

static bool edge_holds(const model *m, const causeedge *e, const finding *g, const finding *f)
{
	if (!catalog_id_matches(e->cause, g->id) || !catalog_id_matches(e->effect, f->id) || g->severity < e->min_severity)
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
		return procs_meet(g, f) || hosts_meet(m, g, f);
	case WHEN_PEER:
		return procs_meet(g, f) || hosts_meet(m, g, f) || peer_on(m, f, g);
	}
	return false;
}

/* Can g be a cause at all, and of f? Not after it in time; a performance
 * finding or a loose line explains nothing. */
static bool may_cause(const finding *g, const finding *f)
{
	if (g == f || g->kind == KIND_CATCH_ALL || g->kind >= KIND_PERFORMANCE)
		return false;
	if (g->time > 0 && f->time > 0 && g->time > f->time + CLOCK_SLACK)
		return false;
	return true;
}

/* The better of two causes: earlier in the chain, then in time, then
 * worse, then first reported. */
static bool better_cause(const finding *a, const finding *b)
{
	if (a->kind != b->kind)
		return a->kind < b->kind;
	if (a->time > 0 && b->time > 0 && a->time != b->time)
		return a->time < b->time;
	if (a->severity != b->severity)
		return a->severity > b->severity;
	return a->seq < b->seq;
}

static bool explains_any(const model *m, const finding *g, const finding *f)
{
	const catalog *cat = m->cat;
	for (size_t k = 0; cat && k < cat->nedges; k++)
		if (edge_holds(m, &cat->edges[k], g, f))
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
	for (size_t i = 1; i < fs->n; i++)
		for (size_t k = i; k > 0 && fs->v[order[k - 1]].kind < fs->v[order[k]].kind; k--) {
			int t = order[k];
			order[k] = order[k - 1];
			order[k - 1] = t;
		}
	for (size_t oi = 0; oi < fs->n; oi++) {
		int fi = order[oi];
		finding *f = &fs->v[fi];
		int best = -1;
		for (size_t gi = 0; gi < fs->n; gi++) {
			const finding *g = &fs->v[gi];
			if (!may_cause(g, f) || reaches(fs, (int)gi, fi) || !explains_any(m, g, f))
				continue;
			if (best < 0 || better_cause(g, &fs->v[best]))
				best = (int)gi;
		}
		f->cause = best;
		/* a suspicion that a proven finding explains is no lead of its own */
		if (best >= 0 && f->confidence == CONF_SUSPECTED && fs->v[best].confidence != CONF_SUSPECTED)
			f->demoted = true;
	}
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
	if (x->w.time > 0 && y->w.time > 0 && x->w.time != y->w.time)
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
