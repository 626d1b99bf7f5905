/* Kernel, scheduler, nccl-tests and RAS lines into the model: one handler
 * per tag, each folding what its line says into an event or a run. Joins
 * (to hosts, bus ids, communicators) wait for checks_system.c, because
 * the lines that name a rank's GPU or address may come later. */
#include "system.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../parser/ncclt.h"
#include "../parser/pcibus.h"
#include "../parser/ras.h"

#define TEXT_MAX 200

/* Cites the current record; of a record that reassembly joined from
 * several physical lines, the line that holds one of rule r's literals. */
static void ev_here_of(model *m, evref *e, const rule *r)
{
	if (e->text)
		return;
	slice t = m->cur_text;
	uint64_t line = m->cur_line, off = m->cur_off;
	const linespan *sp = m->cur_span;
	for (int k = 0; sp && r && k < sp->n; k++) {
		slice part = { sp->buf + sp->part[k].at, sp->part[k].n };
		bool hit = false;
		for (size_t g = 0; g < r->ngates && !hit; g++)
			hit = slice_find(part, r->gates[g], strlen(r->gates[g])) >= 0;
		if (hit) {
			t = part;
			line = sp->part[k].no;
			off = m->cur_off + sp->part[k].at - sp->part[0].at;
			break;
		}
	}
	e->file = m->cur_file;
	e->line = line;
	e->off = off;
	e->text = xstrndup(t.p, t.n < 512 ? t.n : 512);
}

static void ev_here(model *m, evref *e)
{
	ev_here_of(m, e, NULL);
}

static int cap_str(model *m, const match *mt, const char *name)
{
	slice s = slice_trim(match_get(mt, name));
	if (s.n > TEXT_MAX)
		s.n = TEXT_MAX;
	return s.n ? intern_get(&m->str, s) : -1;
}

static long cap_long(const match *mt, const char *name)
{
	long v;
	return slice_to_long(match_get(mt, name), &v) && v >= 0 ? v : -1;
}

/* The first of a rule's captures that is set: a pattern of several
 * alternatives names each one's capture apart (name, name2, ...). */
static slice cap_any(const match *mt, const char *const *names)
{
	for (; *names; names++) {
		slice s = match_get(mt, *names);
		if (s.n)
			return s;
	}
	return SLICE_NONE;
}

static int intern_trim(model *m, slice s)
{
	s = slice_trim(s);
	if (s.n > TEXT_MAX)
		s.n = TEXT_MAX;
	return s.n ? intern_get(&m->str, s) : -1;
}

static bool same_event(const sysev *x, const sysev *e)
{
	return x->kind == e->kind && x->host == e->host && x->pid == e->pid && x->rank == e->rank && x->code == e->code &&
	       x->a == e->a;
}

static size_t event_slot(const model *m, const sysev *e)
{
	/* keyed: pids, ranks and codes come from the input */
	uint64_t k[] = { (uint64_t)e->kind, (uint64_t)(uint32_t)e->host, (uint64_t)e->pid, (uint64_t)e->rank,
			 (uint64_t)e->code, (uint64_t)(uint32_t)e->a };
	size_t i = (size_t)siphash(&m->hkey, k, sizeof k) & (SYSEV_HASH - 1);
	while (m->syshash[i] >= 0 && !same_event(&m->sys[m->syshash[i]], e))
		i = (i + 1) & (SYSEV_HASH - 1);
	return i;
}

/* Repeated lines (a driver logging the same Xid a thousand times) fold in
 * constant time: events are indexed by what makes them equal. */
sysev *system_event_put(model *m, const sysev *e)
{
	if (!m->syshash) {
		m->syshash = xmalloc(SYSEV_HASH * sizeof *m->syshash);
		for (size_t i = 0; i < SYSEV_HASH; i++)
			m->syshash[i] = -1;
	}
	/* events a summary or a merge added directly */
	for (; m->syshashed < m->nsys; m->syshashed++) {
		m->syshash[event_slot(m, &m->sys[m->syshashed])] = (int)m->syshashed;
		m->syskinds[m->sys[m->syshashed].kind & 15]++;
	}
	size_t slot = event_slot(m, e);
	if (m->syshash[slot] >= 0) {
		sysev *x = &m->sys[m->syshash[slot]];
		x->count++;
		if (e->time > 0 && (x->time == 0 || e->time < x->time))
			x->time = e->time;
		return x;
	}
	if (m->nsys >= SYSEV_MAX || m->syskinds[e->kind & 15] >= SYSEV_MAX / 4) {
		model_drop(m, CAP_SYSTEM);
		return NULL;
	}
	m->syskinds[e->kind & 15]++;
	grow(&m->sys, &m->syscap, m->nsys, sizeof *m->sys);
	sysev *x = &m->sys[m->nsys];
	*x = *e;
	x->count = 1;
	x->ev = (evref){ 0 };
	m->syshash[slot] = (int)m->nsys++;
	m->syshashed = m->nsys;
	return x;
}

/* The process of a line counts only when the line itself says whose it is
 * (NCCL's prefix, a launcher's): a scheduler's line in the middle of a
 * job's output belongs to none of its processes. */
static int line_proc(const model *m)
{
	const record *r = m->cur;
	return r && (r->nccl || r->ln.tag.n || r->ln.rank >= 0) ? m->cur_proc : -1;
}

static sysev event_of(model *m, enum sysev_kind kind)
{
	double t = m->cur ? m->cur->time : 0;
	return (sysev){ .kind = kind, .host = -1, .pid = -1, .rank = -1, .a = -1, .b = -1, .proc = line_proc(m),
			.time = time_dated(t) ? t : 0 };
}

/* The host a line names, else its launcher's ("node-b: " of pdsh). */
static int line_host(model *m, const match *mt)
{
	static const char *const hosts[] = { "host", "host2", "node", NULL };
	int h = intern_trim(m, cap_any(mt, hosts));
	if (h < 0 && m->cur && m->cur->ln.host.n)
		h = intern_get(&m->str, m->cur->ln.host);
	return h;
}

static void put_here(model *m, const sysev *e, const rule *r)
{
	sysev *x = system_event_put(m, e);
	if (x)
		ev_here_of(m, &x->ev, r);
}

/* "NVRM: Xid (PCI:0000:07:00): 79, pid=1234, name=python, GPU has fallen
 * off the bus." and SXid lines of NVSwitches. */
static void on_xid(model *m, const match *mt)
{
	bool sx = match_get(mt, "sxid").n > 0;
	sysev e = event_of(m, sx ? SE_SXID : SE_XID);
	e.code = cap_long(mt, sx ? "sxid" : "xid");
	if (match_get(mt, "fallen").n)
		e.code = 79;
	if (e.code < 0)
		return;
	pcibus b;
	if (pcibus_parse(match_get(mt, "bus"), &b)) {
		strbuf t = { 0 };
		pcibus_format(&b, &t);
		e.a = intern_get(&m->str, (slice){ t.p, t.n });
		sb_free(&t);
	}
	e.host = line_host(m, mt);
	e.pid = cap_long(mt, "pid");
	e.b = cap_str(m, mt, "msg");
	put_here(m, &e, mt->r);
}

static void on_oom(model *m, const match *mt)
{
	sysev e = event_of(m, SE_OOM);
	slice t = m->cur_text;
	e.code = slice_find(t, "OOMKilled", 9) >= 0				 ? OOM_K8S
		 : slice_find(t, "slurmstepd", 10) >= 0 || slice_find(t, "srun:", 5) >= 0 ||
				   slice_find(t, "StepId=", 7) >= 0 || slice_find(t, "exceeded memory limit", 21) >= 0
			 ? OOM_SLURM
		 : slice_find(t, "emory cgroup", 12) >= 0 ? OOM_CGROUP
							   : OOM_KERNEL;
	static const char *const pids[] = { "pid", "pid2", "pid3", NULL }, *const names[] = { "name", "name2", "name3", NULL };
	long pid;
	e.host = line_host(m, mt);
	e.pid = slice_to_long(cap_any(mt, pids), &pid) && pid >= 0 ? pid : -1;
	e.rank = cap_long(mt, "task");
	e.b = intern_trim(m, cap_any(mt, names));
	put_here(m, &e, mt->r);
}

static void on_sched(model *m, const match *mt)
{
	static const struct { const char *word; enum kill_why why; } whys[] = {
		{ "TIME LIMIT", KILL_TIME_LIMIT }, { "PREEMPT", KILL_PREEMPTED }, { "reempt", KILL_PREEMPTED },
		{ "NODE FAIL", KILL_NODE_FAIL },  { "REQUEUE", KILL_REQUEUE },   { "vict", KILL_EVICTED },
	};
	static const char *const reasons[] = { "why", "why2", "why3", "why4", NULL }, *const jobs[] = { "job", "job2", NULL };
	sysev e = event_of(m, SE_KILL);
	slice why = cap_any(mt, reasons);
	e.code = KILL_CANCELLED;
	for (size_t i = 0; i < sizeof whys / sizeof whys[0]; i++)
		if (slice_find(why, whys[i].word, strlen(whys[i].word)) >= 0) {
			e.code = whys[i].why;
			break;
		}
	/* "The node was low on resource: memory." says why */
	long low = slice_find(m->cur_text, "low on resource: ", 17);
	char res[48];
	if (low >= 0) {
		slice r = { m->cur_text.p + low + 17, m->cur_text.n - (size_t)low - 17 };
		size_t n = 0;
		while (n < r.n && n < 24 && ((r.p[n] >= 'a' && r.p[n] <= 'z') || r.p[n] == '-'))
			n++;
		snprintf(res, sizeof res, "low on %.*s", (int)n, r.p);
		why = slice_from(res);
		e.code = KILL_EVICTED;
	}
	e.host = line_host(m, mt);
	e.a = intern_trim(m, cap_any(mt, jobs));
	e.b = intern_trim(m, why);
	put_here(m, &e, mt->r);
}

ntrun *system_run_get(model *m, int file)
{
	for (size_t i = 0; i < m->nnt; i++)
		if (m->nt[i].file == file)
			return &m->nt[i];
	if (m->nnt >= NTRUN_MAX)
		return NULL;
	grow(&m->nt, &m->ntcap, m->nnt, sizeof *m->nt);
	ntrun *r = &m->nt[m->nnt++];
	*r = (ntrun){ .file = file, .program = -1, .oob = -1, .avg_bw = -1 };
	return r;
}

static ntrun *run_find(model *m, int file)
{
	for (size_t i = 0; i < m->nnt; i++)
		if (m->nt[i].file == file)
			return &m->nt[i];
	return NULL;
}

void system_device_row(model *m, int pi)
{
	ntrun *r = system_run_get(m, m->cur_file);
	if (r) {
		intset_add(&r->procs, pi);
		ev_here(m, &r->ev_head);
	}
}

static void run_row(ntrun *r, const ncclt_row *row)
{
	r->rows++;
	const ncclt_result *d[2] = { &row->out, &row->in };
	double best = -1;
	bool wrong = false;
	for (int k = 0; k < 2; k++) {
		if (!d[k]->set)
			continue;
		if (d[k]->busbw > best)
			best = d[k]->busbw;
		if (r->col == NCCLT_COL_WRONG && d[k]->wrong > 0) {
			r->wrong += d[k]->wrong;
			wrong = true;
		}
	}
	if (wrong) {
		if (!r->wrong_rows || row->size < r->wrong_lo)
			r->wrong_lo = row->size;
		if (row->size > r->wrong_hi)
			r->wrong_hi = row->size;
		r->wrong_rows++;
	}
	if (best >= 0 && row->size >= r->max_size) {
		if (row->size > r->max_size || best > r->max_busbw)
			r->max_busbw = best;
		r->max_size = row->size;
	}
}

/* One physical line of nccl-tests' text: the lines that start a run
 * make it; the size table and the footer count only in a run. */
/* Keeps a line for the merge: a later part cannot place it alone. */
static void stash(model *m, int kind, slice text, const evref *at, int pi, double t)
{
	if (m->npend >= SYSLINE_MAX)
		return;
	grow(&m->pend, &m->pendcap, m->npend, sizeof *m->pend);
	m->pend[m->npend++] = (sysline){ kind, pi, t,
					 { at->file, at->line, at->off, xstrndup(text.p, text.n < 512 ? text.n : 512) } };
}

static void ncclt_part(model *m, slice text, const evref *at)
{
	launch ln = LAUNCH_NONE;
	ncclt_line l;
	enum ncclt_kind k = ncclt_line_parse(launch_strip(text, &ln), &l);
	if (k == NCCLT_OTHER)
		return;
	ntrun *r = k == NCCLT_START || k == NCCLT_HEADER ? system_run_get(m, at->file) : run_find(m, at->file);
	/* a later part: its run started in a part before, or its columns
	 * were told there (a START line does not tell them) */
	if (m->partial && (!r || (!r->col && k != NCCLT_START && k != NCCLT_HEADER))) {
		stash(m, 1, text, at, -1, 0);
		return;
	}
	if (!r)
		return;
	evref *e = NULL;
	switch (k) {
	case NCCLT_START:
		if (l.program[0])
			r->program = intern_get(&m->str, slice_from(l.program));
		e = &r->ev_head;
		break;
	case NCCLT_HEADER:
		r->col = l.col;
		e = &r->ev_head;
		break;
	case NCCLT_ROW: {
		double wrong = r->wrong;
		uint64_t max = r->max_size;
		double best = r->max_busbw;
		run_row(r, &l.row);
		if (r->wrong > wrong && !r->ev_wrong.text)
			e = &r->ev_wrong;
		if (r->max_size > max || r->max_busbw > best) {
			free(r->ev_max.text);
			r->ev_max = (evref){ at->file, at->line, at->off, xstrndup(text.p, text.n < 512 ? text.n : 512) };
		}
		break;
	}
	case NCCLT_OOB:
		r->oob = l.oob;
		e = &r->ev_oob;
		break;
	case NCCLT_AVGBW:
		r->avg_bw = l.avg_bw;
		e = &r->ev_bw;
		break;
	default:
		break;
	}
	if (e && !e->text)
		*e = (evref){ at->file, at->line, at->off, xstrndup(text.p, text.n < 512 ? text.n : 512) };
}

/* Reassembly may have joined the table's lines (a header as wide as a
 * terminal looks wrapped): each physical line is read on its own. */
static void on_ncclt(model *m)
{
	const linespan *sp = m->cur_span;
	if (m->cur_sys_done & 1)
		return;
	m->cur_sys_done |= 1;
	if (!sp) {
		evref at = { m->cur_file, m->cur_line, m->cur_off, NULL };
		ncclt_part(m, m->cur_text, &at);
		return;
	}
	for (int k = 0; k < sp->n; k++) {
		evref at = { m->cur_file, sp->part[k].no, m->cur_off + sp->part[k].at - sp->part[0].at, NULL };
		ncclt_part(m, (slice){ sp->buf + sp->part[k].at, sp->part[k].n }, &at);
	}
}

/* ---- RAS ---- */

static int ras_text(model *m, slice s)
{
	return intern_trim(m, s);
}

/* One RAS item as an event; NULL for what needs none. */
static bool ras_event(model *m, const ras_item *it, sysev *e)
{
	*e = (sysev){ .host = -1, .pid = it->pid, .rank = it->rank, .a = -1, .b = -1, .proc = -1,
		      .time = time_dated(it->time) ? it->time : 0 };
	if (it->node.n)
		e->host = ras_text(m, it->node);
	if (it->hash.n)
		e->a = ras_text(m, it->hash);
	switch (it->kind) {
	case RAS_PROC_DEAD:
		e->kind = SE_RAS_DEAD;
		e->a = it->a.n ? ras_text(m, it->a) : -1;
		e->b = ras_text(m, it->gpus);
		return true;
	case RAS_PROC_MISSING:
		e->kind = SE_RAS_NODATA;
		e->b = ras_text(m, it->gpus);
		return true;
	case RAS_RANK_MISSING:
		e->kind = SE_RAS_MISSING;
		e->code = it->code;
		e->b = ras_text(m, it->gpus);
		return true;
	case RAS_RANK_ERROR:
		e->kind = SE_RAS_ERROR;
		e->code = it->code;
		e->b = ras_text(m, it->a);
		return true;
	case RAS_RANK_BEHIND: {
		e->kind = SE_RAS_BEHIND;
		e->code = it->n[0];
		strbuf t = { 0 };
		sb_printf(&t, "launched %.*s up to operation %ld while the others reached %ld", (int)it->a.n,
			  it->a.p ? it->a.p : "", it->n[0], it->n[1]);
		e->b = intern_get(&m->str, (slice){ t.p, t.n });
		sb_free(&t);
		return true;
	}
	case RAS_RANK_AHEAD: {
		e->kind = SE_RAS_AHEAD;
		e->code = it->n[2];
		strbuf t = { 0 };
		if (it->n[1] > 0)
			sb_printf(&t, "launched %.*s only up to operation %ld", (int)it->a.n, it->a.p ? it->a.p : "",
				  it->n[1]);
		else
			sb_printf(&t, "launched no %.*s operation", (int)it->a.n, it->a.p ? it->a.p : "");
		e->b = intern_get(&m->str, (slice){ t.p, t.n });
		sb_free(&t);
		return true;
	}
	case RAS_EVENT:
		/* the events that name a process that stopped: COMM_INIT_STUCK and
		 * the like; the others (PEER_NEW, PEER_CONNECTING, ...) tell nothing */
		if (slice_find(it->a, "STUCK", 5) < 0 && slice_find(it->a, "HANG", 4) < 0)
			return false;
		e->kind = SE_RAS_STUCK;
		e->a = ras_text(m, it->a);
		e->b = ras_text(m, it->b);
		return true;
	case RAS_DIAG:
		if (it->code != 1)
			return false;
		e->kind = SE_DIAG;
		e->a = ras_text(m, it->a);
		e->b = ras_text(m, it->b);
		return true;
	default:
		return false;
	}
}

static void ras_part(model *m, slice text, double t, const evref *at, int pi, int listener)
{
	/* the cursor is the reader's own, even when threads share the input table */
	input *in = model_input_counts(m, at->file);
	if (!in->ras)
		in->ras = xcalloc(1, sizeof *in->ras);
	launch ln = LAUNCH_NONE;
	slice body = frame_trim_end(launch_strip(text, &ln));
	ras_item it;
	bool fresh = !in->ras->section;
	bool more = ras_text_line(in->ras, body, ln.time ? ln.time : t, &it);
	if (more && it.kind == RAS_LISTEN) {
		if (listener >= 0 && m->procs[listener].ras_addr < 0)
			m->procs[listener].ras_addr = ras_text(m, it.a);
		return;
	}
	/* a later part: what its report's lines mean depends on the part before */
	if (!more && fresh && !in->ras->section && m->partial) {
		stash(m, 2, text, at, pi, t);
		return;
	}
	while (more) {
		sysev e;
		if (ras_event(m, &it, &e)) {
			e.proc = pi;
			sysev *x = system_event_put(m, &e);
			if (x && !x->ev.text)
				x->ev = (evref){ at->file, at->line, at->off, xstrndup(text.p, text.n < 512 ? text.n : 512) };
		}
		more = ras_text_more(in->ras, &it);
	}
}

/* A report's lines, one by one: reassembly may have joined some. The
 * record's own message is the first line's, without NCCL's prefix. */
static void on_ras(model *m)
{
	const linespan *sp = m->cur_span;
	if (m->cur_sys_done & 2)
		return;
	m->cur_sys_done |= 2;
	double t = m->cur->time;
	int pi = line_proc(m), listener = m->cur->nccl ? m->cur_proc : -1;
	if (!sp) {
		evref at = { m->cur_file, m->cur_line, m->cur_off, NULL };
		ras_part(m, m->cur->nccl ? m->cur->body : m->cur_text, t, &at, pi, listener);
		return;
	}
	for (int k = 0; k < sp->n; k++) {
		evref at = { m->cur_file, sp->part[k].no, m->cur_off + sp->part[k].at - sp->part[0].at, NULL };
		slice part = { sp->buf + sp->part[k].at, sp->part[k].n };
		ras_part(m, k == 0 && m->cur->nccl ? m->cur->body : part, t, &at, pi, k == 0 ? listener : -1);
	}
}

void system_replay(model *m, const sysline *l)
{
	slice text = slice_from(l->ev.text);
	if (l->kind == 1)
		ncclt_part(m, text, &l->ev);
	else
		ras_part(m, text, l->time, &l->ev, l->proc, -1);
}

void model_take_ras(model *m, int file, uint64_t line, const ras_item *it, const char *text)
{
	sysev e;
	if (!ras_event(m, it, &e))
		return;
	sysev *x = system_event_put(m, &e);
	if (x && !x->ev.text)
		x->ev = (evref){ file, line, 0, xstrndup(text, strnlen(text, 512)) };
}

/* ---- nccl-tests JSON ---- */

static void json_ev(evref *e, int file, const char *text)
{
	if (!e->text)
		*e = (evref){ file, 0, 0, xstrndup(text, strnlen(text, 512)) };
}

void model_take_ncclt(model *m, int file, const ncclt_run *run)
{
	ntrun *r = system_run_get(m, file);
	if (!r)
		return;
	const char *prog = run->program[0] ? run->program : "nccl-tests";
	r->program = intern_get(&m->str, slice_from(prog));
	r->col = NCCLT_COL_WRONG;
	strbuf t = { 0 };
	sb_printf(&t, "nccl-tests JSON report (version %d): %s, %zu ranks, %zu sizes", run->version, prog, run->ndev,
		  run->nrows);
	json_ev(&r->ev_head, file, t.p);
	for (size_t i = 0; i < run->ndev; i++) {
		const ncclt_device *d = &run->dev[i];
		if (!d->host[0] || d->pid < 0)
			continue;
		int h = intern_get(&m->str, slice_from(d->host));
		intset_add(&m->table_hosts, h);
		int pi = -1;
		for (size_t k = 0; k < m->nprocs && pi < 0; k++)
			if (m->procs[k].host == h && m->procs[k].pid == d->pid)
				pi = (int)k;
		if (pi < 0)
			pi = model_add_proc(m, d->host, d->pid, file);
		proc *q = &m->procs[pi];
		if (q->lrank < 0) {
			q->lrank = d->rank;
			model_proc_keyed(m, pi);
		}
		if (q->dev < 0 && d->device >= 0)
			q->dev = d->device;
		if (d->device >= 0 && d->device < 64)
			q->devs |= 1ull << d->device;
		if (q->busid < 0 && d->bus[0])
			q->busid = intern_get(&m->str, slice_from(d->bus));
		intset_add(&r->procs, pi);
	}
	for (size_t i = 0; i < run->nrows; i++) {
		const ncclt_row *row = &run->rows[i];
		double wrong = r->wrong, best = r->max_busbw;
		uint64_t max = r->max_size;
		run_row(r, row);
		if (r->wrong > wrong && !r->ev_wrong.text) {
			sb_clear(&t);
			sb_printf(&t, "nccl-tests JSON report: %s %s %llu bytes: %g wrong elements", prog, row->type,
				  (unsigned long long)row->size, r->wrong - wrong);
			json_ev(&r->ev_wrong, file, t.p);
		}
		if (r->max_size > max || r->max_busbw > best) {
			sb_clear(&t);
			sb_printf(&t, "nccl-tests JSON report: %s %llu bytes: bus bandwidth %.2f GB/s", prog,
				  (unsigned long long)row->size, r->max_busbw);
			free(r->ev_max.text);
			r->ev_max = (evref){ 0 };
			json_ev(&r->ev_max, file, t.p);
		}
	}
	if (run->out_of_bounds >= 0) {
		r->oob = run->out_of_bounds;
		sb_clear(&t);
		sb_printf(&t, "nccl-tests JSON report: out_of_bounds count %ld", run->out_of_bounds);
		json_ev(&r->ev_oob, file, t.p);
	}
	if (run->avg_busbw >= 0) {
		r->avg_bw = run->avg_busbw;
		sb_clear(&t);
		sb_printf(&t, "nccl-tests JSON report: average_bus_bandwidth %.3f GB/s", run->avg_busbw);
		json_ev(&r->ev_bw, file, t.p);
	}
	sb_free(&t);
}

void system_match(model *m, const match *mt)
{
	switch ((enum model_tag)mt->r->tag) {
	case TAG_XID:
		on_xid(m, mt);
		break;
	case TAG_OOM:
		on_oom(m, mt);
		break;
	case TAG_SCHED:
		on_sched(m, mt);
		break;
	case TAG_NCCLT:
		on_ncclt(m);
		break;
	case TAG_RAS:
		on_ras(m);
		break;
	default:
		break;
	}
}

void system_free(model *m)
{
	for (size_t i = 0; i < m->nsys; i++)
		free(m->sys[i].ev.text);
	free(m->sys);
	free(m->syshash);
	for (size_t i = 0; i < m->nnt; i++) {
		ntrun *r = &m->nt[i];
		intset_free(&r->procs);
		free(r->ev_head.text);
		free(r->ev_wrong.text);
		free(r->ev_oob.text);
		free(r->ev_bw.text);
		free(r->ev_max.text);
	}
	free(m->nt);
	for (size_t i = 0; i < m->nin && !m->in_borrowed; i++)
		free(m->in[i].ras);
	for (size_t i = 0; i < m->nown; i++)
		free(m->own[i].ras);
	free(m->own);
	for (size_t i = 0; i < m->npend; i++)
		free(m->pend[i].ev.text);
	free(m->pend);
}
