#include "report.h"

#include <stdlib.h>

size_t report_hosts(const model *m, hostrow **rows)
{
	hostrow *v = NULL;
	size_t n = 0, cap = 0;
	for (size_t i = 0; i < m->nprocs; i++) {
		const proc *p = &m->procs[i];
		if (p->host < 0 || p->pid < 0)
			continue;
		size_t k = 0;
		while (k < n && v[k].host != p->host)
			k++;
		if (k == n) {
			grow(&v, &cap, n, sizeof *v);
			v[n] = (hostrow){ .host = p->host, .boot_name = -1, .boot_addr = -1, .net = -1,
					  .min_phase = PH_RUNNING, .max_phase = PH_NONE };
			n++;
		}
		hostrow *h = &v[k];
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
	*rows = v;
	return n;
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
