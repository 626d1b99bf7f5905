#include "report.h"

#include <stdlib.h>
#include <string.h>

#include "hostlist.h"

size_t report_hosts(const model *m, hostrow **rows)
{
	hostrow *v = NULL;
	size_t n = 0, cap = 0;
	/* a host's row by its interned id: linear in the processes */
	int *slot = xmalloc((m->str.n ? m->str.n : 1) * sizeof *slot);
	for (size_t i = 0; i < m->str.n; i++)
		slot[i] = -1;
	for (size_t i = 0; i < m->nprocs; i++) {
		const proc *p = &m->procs[i];
		if (p->host < 0 || p->pid < 0 || (size_t)p->host >= m->str.n)
			continue;
		if (slot[p->host] < 0) {
			grow(&v, &cap, n, sizeof *v);
			v[n] = (hostrow){ .host = p->host, .boot_name = -1, .boot_addr = -1, .net = -1,
					  .min_phase = PH_RUNNING, .max_phase = PH_NONE };
			slot[p->host] = (int)n++;
		}
		hostrow *h = &v[slot[p->host]];
		intset_add(&h->procs, (int)i);
		int r = model_proc_rank(m, (int)i);
		if (r >= 0)
			intset_add(&h->ranks, r);
		if (h->boot_name < 0 && p->boot.name >= 0) {
			h->boot_name = p->boot.name;
			h->boot_addr = p->boot.addr;
		}
		if (h->net < 0)
			h->net = p->net;
		if (p->phase < h->min_phase)
			h->min_phase = p->phase;
		if (p->phase > h->max_phase)
			h->max_phase = p->phase;
	}
	free(slot);
	*rows = v;
	return n;
}

static int cmp_rowkey(const void *a, const void *b)
{
	const rowkey *x = a, *y = b;
	for (int j = 0; j < 5; j++)
		if (x->k[j] != y->k[j])
			return x->k[j] < y->k[j] ? -1 : 1;
	return x->i < y->i ? -1 : x->i > y->i;
}

size_t report_group(rowkey *v, size_t n, size_t *grp)
{
	qsort(v, n, sizeof *v, cmp_rowkey);
	size_t *lead = xcalloc(n ? n : 1, sizeof *lead);
	for (size_t a = 0; a < n;) {
		size_t e = a + 1;
		while (e < n && !memcmp(v[e].k, v[a].k, sizeof v[a].k))
			e++;
		for (size_t j = a; j < e; j++)
			lead[v[j].i] = v[a].i; /* the first row of the run */
		a = e;
	}
	size_t ng = 0;
	for (size_t i = 0; i < n; i++)
		grp[i] = lead[i] == i ? ng++ : grp[lead[i]];
	free(lead);
	return ng;
}

void report_hostgroups(const model *m, hostgroups *g)
{
	*g = (hostgroups){ 0 };
	g->nrows = report_hosts(m, &g->rows);
	size_t n = g->nrows;
	if (!n)
		return;
	rowkey *kv = xcalloc(n, sizeof *kv);
	size_t *grp = xcalloc(n, sizeof *grp);
	for (size_t i = 0; i < n; i++) {
		const hostrow *r = &g->rows[i];
		kv[i] = (rowkey){ { r->boot_name, r->net, (int)r->min_phase, (int)r->max_phase, (int)r->ranks.n }, i };
	}
	g->n = report_group(kv, n, grp);
	g->v = xcalloc(g->n, sizeof *g->v);
	for (size_t i = 0; i < n; i++) {
		hostgroup *h = &g->v[grp[i]];
		if (!h->hosts.n) {
			h->row = &g->rows[i];
			h->per_host = g->rows[i].ranks.n;
		}
		intset_add(&h->hosts, g->rows[i].host);
		intset_addall(&h->ranks, &g->rows[i].ranks);
	}
	for (size_t k = 1; k < g->n; k++)
		if (g->v[k].hosts.n > g->v[g->big].hosts.n)
			g->big = k;
	free(kv);
	free(grp);
}

void report_hostgroups_free(hostgroups *g)
{
	for (size_t k = 0; k < g->n; k++) {
		intset_free(&g->v[k].hosts);
		intset_free(&g->v[k].ranks);
	}
	free(g->v);
	report_hosts_free(g->rows, g->nrows);
	*g = (hostgroups){ 0 };
}

bool report_hosts_alike(strbuf *b, const model *m, const hostgroups *g)
{
	if (g->nrows > 1 && g->n == 1) {
		sb_printf(b, "all %zu hosts alike", g->nrows);
		return true;
	}
	if (g->nrows < 3 || g->v[g->big].hosts.n * 2 <= g->nrows)
		return false;
	intset rest = { 0 };
	for (size_t k = 0; k < g->n; k++)
		if (k != g->big)
			intset_addall(&rest, &g->v[k].hosts);
	sb_printf(b, "all %zu hosts alike except ", g->nrows);
	hostlist_format(b, m, rest.v, rest.n, 6);
	intset_free(&rest);
	return true;
}

void report_hosts_free(hostrow *rows, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		intset_free(&rows[i].procs);
		intset_free(&rows[i].ranks);
	}
	free(rows);
}

void report_message(const model *m, const finding *f, strbuf *b)
{
	if (!f->scoped) {
		intset ranks = { 0 }, hosts = { 0 };
		model_finding_place(m, f, &ranks, &hosts);
		size_t at = b->n;
		model_describe_place(m, &ranks, &hosts, b);
		if (b->n > at)
			sb_adds(b, ": ");
		intset_free(&ranks);
		intset_free(&hosts);
	}
	sb_adds(b, f->message);
}

void report_location(const model *m, const finding *f, strbuf *b)
{
	/* line 0: a file that has no lines (a Flight Recorder dump) */
	if (f->nev && f->ev[0].file >= 0 && f->ev[0].line)
		sb_printf(b, "%s:%llu", m->in[f->ev[0].file].name, (unsigned long long)f->ev[0].line);
	else if (f->nev && f->ev[0].file >= 0)
		sb_adds(b, m->in[f->ev[0].file].name);
}
