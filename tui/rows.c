#include "rows.h"

#include <stdlib.h>
#include <string.h>

#include "../model/frmatch.h"

/* Big jobs start with the host groups collapsed, except where a rank
 * stopped early: the first screen then says who stopped where. */
#define ROWS_COLLAPSE_ABOVE 64

typedef struct sortkey {
	int hostrank, host, rank, proc;
} sortkey;

static int cmp_key(const void *a, const void *b)
{
	const sortkey *x = a, *y = b;
	if (x->hostrank != y->hostrank)
		return x->hostrank < y->hostrank ? -1 : 1;
	if (x->host != y->host)
		return x->host < y->host ? -1 : 1;
	if (x->rank != y->rank)
		return x->rank < y->rank ? -1 : 1;
	return x->proc < y->proc ? -1 : x->proc > y->proc;
}

/* The processes that get a row: NCCL processes, and ranked launcher
 * streams whose rank no NCCL process claims (logs without NCCL_DEBUG). */
static size_t pick(const model *m, sortkey **out)
{
	intset claimed = { 0 };
	for (size_t i = 0; i < m->nprocs; i++)
		if (m->procs[i].pid >= 0 && model_proc_rank(m, (int)i) >= 0)
			intset_add(&claimed, model_proc_rank(m, (int)i));
	size_t nfr = m->fr ? m->fr->nranks : 0;
	sortkey *k = xcalloc(m->nprocs + nfr + 1, sizeof *k);
	size_t n = 0;
	intset shown = { 0 };
	for (size_t i = 0; i < m->nprocs; i++) {
		const proc *p = &m->procs[i];
		int r = model_proc_rank(m, (int)i);
		if (p->pid < 0 && (r < 0 || intset_has(&claimed, r)))
			continue;
		k[n++] = (sortkey){ 0, p->host, r < 0 ? 1 << 30 : r, (int)i };
		if (r >= 0)
			intset_add(&shown, r);
	}
	/* ranks of the dumps that no log shows: a group of their own */
	for (size_t i = 0; i < nfr; i++) {
		int64_t r = m->fr->ranks[i].rank;
		if (r >= 0 && r < (1 << 30) && !intset_has(&shown, (int)r))
			k[n++] = (sortkey){ 0, ROWS_FR_ONLY, (int)r, -1 };
	}
	intset_free(&shown);
	/* hosts in the order of their lowest rank: sort by host and rank, then
	 * give each host's ranks the first one's rank as key */
	qsort(k, n, sizeof *k, cmp_key);
	for (size_t i = 0, first = 0; i < n; i++) {
		if (k[i].host != k[first].host)
			first = i;
		k[i].hostrank = k[first].rank;
	}
	qsort(k, n, sizeof *k, cmp_key);
	intset_free(&claimed);
	*out = k;
	return n;
}

static int cmp_u(const void *a, const void *b)
{
	unsigned x = *(const unsigned *)a, y = *(const unsigned *)b;
	return x < y ? -1 : x > y;
}

/* Without timestamps, ranks stuck in the same phase are told apart by how
 * many NCCL records they got out: fewer than the median is behind. */
static unsigned median_records(const rows *w, enum phase ph)
{
	unsigned *v = xcalloc(w->nr + 1, sizeof *v);
	size_t n = 0;
	for (size_t i = 0; i < w->nr; i++) {
		const proc *p = rows_proc(w, &w->r[i]);
		if (p->pid >= 0 && p->phase == ph)
			v[n++] = p->nrecent;
	}
	qsort(v, n, sizeof *v, cmp_u);
	unsigned med = n ? v[n / 2] : 0;
	free(v);
	return med;
}

static void flag_stopped(const model *m, rows *w)
{
	enum phase maxph = PH_NONE;
	int timed = 0;
	for (size_t i = 0; i < w->nr; i++) {
		const proc *p = rows_proc(w, &w->r[i]);
		if (p->pid >= 0 && p->phase > maxph)
			maxph = p->phase;
		if (time_dated(p->last_time)) {
			if (!timed++ || p->first_time < w->t0)
				w->t0 = p->first_time;
			if (p->last_time > w->t1)
				w->t1 = p->last_time;
		}
	}
	w->timed = timed > 0 && (size_t)timed * 2 >= w->nr && w->t1 > w->t0;
	double behind = (w->t1 - w->t0) / 10;
	if (behind < 10)
		behind = 10;
	unsigned med = maxph < PH_COMPLETE && !w->timed ? median_records(w, maxph) : 0;
	/* most ranks' watchdogs reported a collective timing out: the ranks
	 * without a report never got that far */
	intset wd = { 0 };
	for (size_t i = 0; i < m->nwd; i++)
		intset_add(&wd, m->wd[i].proc);
	bool wd_most = wd.n * 2 > w->nr;
	for (size_t i = 0; i < w->nr; i++) {
		rrank *r = &w->r[i];
		const proc *p = rows_proc(w, r);
		if (p->pid < 0 || w->nr < 2)
			continue;
		bool late = w->timed && time_dated(p->last_time) && w->t1 - p->last_time > behind && !p->destroyed;
		bool lower = p->phase < maxph && p->phase < PH_COMPLETE;
		bool fewer = med && p->phase == maxph && p->nrecent < med;
		bool no_report = wd_most && !intset_has(&wd, r->proc) && !p->destroyed;
		if (late || lower || fewer || no_report) {
			r->flags |= RF_STOPPED;
			r->why = late ? STOP_LATE : lower ? STOP_PHASE : fewer ? STOP_FEWER : STOP_NO_REPORT;
		}
	}
	intset_free(&wd);
}

static void flag_findings(const model *m, rows *w)
{
	int *row_of = xmalloc((m->nprocs ? m->nprocs : 1) * sizeof *row_of);
	for (size_t i = 0; i < m->nprocs; i++)
		row_of[i] = -1;
	for (size_t i = 0; i < w->nr; i++)
		if (w->r[i].proc >= 0)
			row_of[w->r[i].proc] = (int)i;
	for (size_t k = 0; k < m->fs.n; k++) {
		const finding *f = &m->fs.v[k];
		/* what a finding marks is the catalog's word */
		const catentry *ce = m->cat ? catalog_find(m->cat, f->id) : NULL;
		unsigned marks = ce ? ce->marks : 0;
		bool timeout = marks & MARK_TIMEOUT, behind = marks & MARK_BEHIND;
		for (size_t j = 0; j < f->procs.n; j++) {
			int ri = f->procs.v[j] >= 0 && (size_t)f->procs.v[j] < m->nprocs ? row_of[f->procs.v[j]] : -1;
			if (ri < 0)
				continue;
			rrank *r = &w->r[ri];
			const proc *p = rows_proc(w, r);
			if ((int)f->severity > r->sev)
				r->sev = (int)f->severity;
			if (timeout)
				r->flags |= RF_TIMEOUT;
			/* silence seen live says more than a phase behind: it is why */
			bool silent = strcmp(f->id, "rank-silent") == 0 && f->key && strcmp(f->key, "job:live") == 0;
			if (behind && (!(r->flags & RF_STOPPED) || silent) && r->why != STOP_FR) {
				r->flags |= RF_STOPPED;
				r->why = silent ? STOP_SILENT : STOP_FINDING;
				r->why_finding = (int)k;
			}
			/* an error finding marks the ranks that failed themselves, not
			 * every rank of a job-wide diagnosis */
			if (f->severity == SEV_ERROR && (p->warned || p->aborted))
				r->flags |= RF_ERROR;
		}
	}
	free(row_of);
}

/* The ranks the Flight Recorder dumps show behind: in a group whose
 * collective never completed everywhere, those that never called it, and
 * those behind on what they completed. */
static void flag_fr(const model *m, rows *w)
{
	const frmatch_report *fr = m->fr;
	if (!fr)
		return;
	for (size_t gi = 0; gi < fr->npgs; gi++) {
		const frm_pg *g = &fr->pgs[gi];
		if (!g->stuck)
			continue;
		for (size_t i = 0; i < w->nr; i++) {
			rrank *r = &w->r[i];
			if (r->rank < 0 || r->why == STOP_FR)
				continue;
			bool behind = false;
			for (size_t k = 0; k < g->nmissing && !behind; k++)
				behind = g->missing[k] == r->rank;
			for (size_t k = 0; k < g->nbehind && !behind; k++)
				behind = g->behind[k] == r->rank;
			if (!behind)
				continue;
			/* the dumps say more than a guess from the logs */
			if (!(r->flags & RF_STOPPED) || r->why == STOP_LATE || r->why == STOP_FEWER ||
			    r->why == STOP_NO_REPORT || r->why == STOP_FINDING) {
				r->flags |= RF_STOPPED;
				r->why = STOP_FR;
				r->fr_pg = (int)gi;
			}
		}
	}
}

void rows_build(rows *w, const model *m)
{
	intset collapsed = { 0 };
	bool had = w->ng > 0;
	for (size_t i = 0; i < w->ng; i++)
		if (w->g[i].collapsed)
			intset_add(&collapsed, w->g[i].host);
	free(w->r);
	free(w->g);
	w->r = NULL;
	w->g = NULL;
	w->nr = w->ng = 0;
	w->t0 = w->t1 = 0;
	w->m = m;
	model_proc_init(&w->ghost);
	sortkey *k;
	size_t n = pick(m, &k);
	w->r = xcalloc(n ? n : 1, sizeof *w->r);
	w->g = xcalloc(n ? n : 1, sizeof *w->g);
	bool job_started = false;
	for (size_t i = 0; i < n; i++) {
		const proc *p = k[i].proc >= 0 ? &m->procs[k[i].proc] : &w->ghost;
		if (p->phase >= PH_BOOTSTRAP || p->init_started)
			job_started = true;
	}
	for (size_t i = 0; i < n; i++) {
		const proc *p = k[i].proc >= 0 ? &m->procs[k[i].proc] : &w->ghost;
		int host = k[i].proc >= 0 ? p->host : ROWS_FR_ONLY;
		if (!w->ng || w->g[w->ng - 1].host != host) {
			rgroup *g = &w->g[w->ng++];
			*g = (rgroup){ .host = host, .first = i, .minph = PH_RUNNING, .maxph = PH_NONE };
		}
		rrank *r = &w->r[w->nr++];
		*r = (rrank){ .proc = k[i].proc, .rank = k[i].proc >= 0 ? model_proc_rank(m, k[i].proc) : k[i].rank,
			      .group = (int)w->ng - 1, .fr_pg = -1, .why_finding = -1, .sev = -1, .last_file = -1 };
		if (p->warned)
			r->flags |= RF_WARN;
		if (p->aborted)
			r->flags |= RF_ABORT;
		if (job_started && p->pid >= 0 && !p->init_done && p->phase < PH_COMPLETE)
			r->flags |= RF_NOINIT;
		/* where it stopped is its last NCCL record; unprefixed lines of a
		 * shared stream (a launcher's own messages) follow the last process */
		if (p->nrecent) {
			const lineref *lr = &p->recent[(p->nrecent - 1) % PROC_RECENT];
			r->last_file = lr->file;
			r->last_line = lr->line;
			r->last_off = lr->off;
			r->last_known = true;
			/* a later timestamped line of its own stream (training steps) */
			if (time_dated(p->last_time) && p->last_file == lr->file && p->last_line > lr->line) {
				r->last_line = p->last_line;
				r->last_known = false;
			}
		} else if (p->nlines) {
			r->last_file = p->last_file;
			r->last_line = p->last_line;
		}
	}
	free(k);
	flag_stopped(m, w);
	flag_fr(m, w);
	flag_findings(m, w);
	for (size_t i = 0; i < w->nr; i++) {
		rgroup *g = &w->g[w->r[i].group];
		const proc *p = rows_proc(w, &w->r[i]);
		g->n++;
		g->flags |= w->r[i].flags;
		g->nstopped += (w->r[i].flags & RF_STOPPED) != 0;
		g->nnoinit += (w->r[i].flags & RF_NOINIT) != 0;
		if (p->phase < g->minph)
			g->minph = p->phase;
		if (p->phase > g->maxph)
			g->maxph = p->phase;
	}
	for (size_t i = 0; i < w->ng; i++)
		w->g[i].collapsed = had ? intset_has(&collapsed, w->g[i].host)
					: w->nr > ROWS_COLLAPSE_ABOVE && !(w->g[i].flags & RF_STOPPED);
	intset_free(&collapsed);
}

bool rows_pass(const rows *w, size_t i, const filterset *flt)
{
	const rrank *r = &w->r[i];
	if (filter_scoped(flt) && !filter_proc(flt, w->m, r->proc, r->rank))
		return false;
	/* by what the rank itself did: a job-wide finding names every rank
	 * and would filter nothing out */
	unsigned f = r->flags;
	int min_sev = flt->min_sev;
	if (min_sev <= SEV_INFO)
		return true;
	if (f & (RF_STOPPED | RF_ERROR | RF_TIMEOUT | RF_ABORT))
		return true;
	return min_sev == SEV_WARNING && (f & (RF_NOINIT | RF_WARN));
}

void rows_layout(rows *w, const filterset *flt)
{
	w->nvis = 0;
	for (size_t gi = 0; gi < w->ng; gi++) {
		const rgroup *g = &w->g[gi];
		size_t pass = 0;
		for (size_t i = g->first; i < g->first + g->n; i++)
			pass += rows_pass(w, i, flt);
		if (!pass)
			continue;
		grow(&w->vis, &w->viscap, w->nvis, sizeof *w->vis);
		w->vis[w->nvis++] = (rrow){ true, gi };
		if (g->collapsed)
			continue;
		for (size_t i = g->first; i < g->first + g->n; i++)
			if (rows_pass(w, i, flt)) {
				grow(&w->vis, &w->viscap, w->nvis, sizeof *w->vis);
				w->vis[w->nvis++] = (rrow){ false, i };
			}
	}
}

long rows_reveal(rows *w, size_t i, const filterset *flt)
{
	if (!rows_pass(w, i, flt))
		return -1;
	rgroup *g = &w->g[w->r[i].group];
	if (g->collapsed) {
		g->collapsed = false;
		rows_layout(w, flt);
	}
	for (size_t v = 0; v < w->nvis; v++)
		if (!w->vis[v].group && w->vis[v].idx == i)
			return (long)v;
	return -1;
}

const proc *rows_proc(const rows *w, const rrank *r)
{
	return r->proc >= 0 ? &w->m->procs[r->proc] : &w->ghost;
}

void rows_free(rows *w)
{
	free(w->r);
	free(w->g);
	free(w->vis);
	*w = (rows){ 0 };
}
