/* Within a process: the process a launcher's line is about, result chains
 * NCCL handled itself, the WARN a chain started with, the first failure. */
#include "checks.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../util/ipaddr.h"


/* A launcher's line names the process it is about by pid: that process,
 * not the stream the line happened to be written to. */
void place_by_pid(model *m)
{
	for (size_t i = 0; i < m->fs.n; i++) {
		finding *f = &m->fs.v[i];
		if (!f->pids.n)
			continue;
		intset named = { 0 };
		for (size_t k = 0; k < m->nprocs; k++)
			if (m->procs[k].pid >= 0 && m->procs[k].pid <= INT32_MAX && intset_has(&f->pids, (int)m->procs[k].pid))
				intset_add(&named, (int)k);
		if (named.n) {
			intset_free(&f->procs);
			f->procs = named;
		}
	}
}

/* A chain NCCL's CollNet setup left on p, which NCCL then gave up for its
 * point-to-point network: p or a process of its host said so (only local
 * rank 0 prints "Cannot initialize CollNet"), or, for the ncclSystemError
 * that CollNet's setup check returns, p warned of nothing while the job
 * gave CollNet up. */
static bool collnet_chain(const finding *f, const intset *offhosts, bool anyoff, const proc *p)
{
	if (p->collnet_off || (p->host >= 0 && intset_has(offhosts, p->host)))
		return true;
	return anyoff && !p->warned && !p->aborted && strcmp(f->id, "nccl-system-error") == 0;
}

/* An error chain after which init went on, on every process that printed
 * it, was handled inside NCCL: not a failure of the job. */
void check_recovered_chains(model *m)
{
	intset offhosts = { 0 };
	bool anyoff = false;
	for (size_t i = 0; i < m->nprocs; i++)
		if (m->procs[i].collnet_off) {
			anyoff = true;
			if (m->procs[i].host >= 0)
				intset_add(&offhosts, m->procs[i].host);
		}
	for (size_t i = 0; i < m->fs.n; i++) {
		finding *f = &m->fs.v[i];
		if (f->kind != KIND_RESULT || f->job || !f->procs.n || f->severity == SEV_INFO)
			continue;
		bool all = true, collnet = false;
		for (size_t k = 0; k < f->procs.n && all; k++) {
			const proc *p = &m->procs[f->procs.v[k]];
			bool c = !p->chain_recovered && collnet_chain(f, &offhosts, anyoff, p);
			collnet |= c;
			all = p->chain_recovered || c;
		}
		if (!all)
			continue;
		f->severity = SEV_INFO;
		strbuf msg = { 0 };
		if (collnet)
			sb_printf(&msg, "%s; it came from the CollNet setup, which NCCL gave up for its point-to-point network",
				  f->message);
		else
			sb_printf(&msg, "%s; NCCL went on with init after it, so it handled the error itself", f->message);
		free(f->message);
		f->message = sb_take(&msg);
	}
	intset_free(&offhosts);
}

/* An ncclResult_t failure is explained by the WARN its process printed
 * first: cite it before the chain lines. Idempotent, for live reruns. */
void cite_root_warns(model *m)
{
	for (size_t i = 0; i < m->fs.n; i++) {
		finding *f = &m->fs.v[i];
		if (f->job || strncmp(f->id, "nccl-", 5) != 0)
			continue;
		evidence ev[2 * FINDING_MAX_EVIDENCE];
		size_t n = 0;
		for (size_t k = 0; k < f->nev; k++) {
			const evidence *e = &f->ev[k];
			const evref *w = e->proc >= 0 ? &m->procs[e->proc].ev_warn : NULL;
			if (w && w->text) {
				bool have = false;
				for (size_t j = 0; j < n; j++)
					have |= ev[j].file == w->file && ev[j].line == w->line;
				if (!have)
					ev[n++] = (evidence){ w->file, w->line, e->proc, w->text };
			}
			bool have = false;
			for (size_t j = 0; j < n; j++)
				have |= ev[j].file == e->file && ev[j].line == e->line;
			if (!have)
				ev[n++] = *e;
		}
		/* rebuild: copies of the chosen lines, the rest dropped */
		evidence keep[FINDING_MAX_EVIDENCE];
		size_t nk = n < FINDING_MAX_EVIDENCE ? n : FINDING_MAX_EVIDENCE;
		for (size_t k = 0; k < nk; k++)
			keep[k] = (evidence){ ev[k].file, ev[k].line, ev[k].proc, xstrdup(ev[k].text) };
		for (size_t k = 0; k < f->nev; k++)
			free(f->ev[k].text);
		memcpy(f->ev, keep, nk * sizeof *keep);
		f->nev = nk;
	}
}

/* remote-peer-closed is a symptom: name the rank that failed first. */
void hint_first_failure(model *m)
{
	finding *f = findings_find(&m->fs, "remote-peer-closed");
	if (!f || f->hint)
		return;
	int pi = model_first_failure(m);
	strbuf h = { 0 };
	sb_adds(&h, "this is usually a symptom: a peer process died or lost its network first");
	if (pi >= 0 && m->procs[pi].ev_warn.text && !intset_has(&f->procs, pi)) {
		intset one = { 0 };
		intset_add(&one, pi);
		sb_adds(&h, "; the first failure: ");
		model_describe(m, &one, &h);
		sb_printf(&h, " (%s:%llu)", m->in[m->procs[pi].ev_warn.file].name,
			  (unsigned long long)m->procs[pi].ev_warn.line);
		intset_free(&one);
	} else {
		sb_adds(&h, "; look for the earliest error on any rank (timestamps, OOM kills, Python exceptions)");
	}
	f->hint = sb_take(&h);
}
