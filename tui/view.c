#include "view.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "../model/frmatch.h"
#include "../parser/record.h"
#include "../report/report.h"

static void findings_layout(view *v)
{
	v->nfvis = 0;
	for (size_t i = 0; i < v->m->fs.n; i++)
		if (filter_finding(&v->flt, v->m, &v->m->fs.v[i])) {
			grow(&v->fvis, &v->fviscap, v->nfvis, sizeof *v->fvis);
			v->fvis[v->nfvis++] = (int)i;
		}
}

/* The verdict in the words of every report, kept for the header. */
static void word_verdict(view *v)
{
	sb_clear(&v->verdict);
	sb_clear(&v->fix);
	verdict vd;
	report_verdict(v->m, &vd);
	sb_add(&v->verdict, vd.what.p ? vd.what.p : "", vd.what.n);
	if (vd.fix.n) {
		sb_adds(&v->fix, vd.proven || !vd.root || vd.root->severity < SEV_ERROR ? "fix: " : "next: ");
		sb_add(&v->fix, vd.fix.p, vd.fix.n);
	}
	verdict_free(&vd);
}

void view_init(view *v, const model *m, term *t, lineidx *idx)
{
	*v = (view){ 0 };
	v->m = m;
	v->t = t;
	v->idx = idx;
	filter_init(&v->flt);
	v->raw_file = -1;
	v->data_fd = -1;
	view_refresh(v);
	/* start on the rank that stopped first in the list, else one that never
	 * completed init: the question the viewer answers first */
	for (unsigned want = RF_STOPPED; want; want = want == RF_STOPPED ? RF_NOINIT : 0)
		for (size_t i = 0; i < v->rw.nr; i++)
			if (v->rw.r[i].flags & want) {
				v->tl_cur = rows_reveal(&v->rw, i, &v->flt);
				v->center = true;
				return;
			}
}

void view_free(view *v)
{
	rows_free(&v->rw);
	filter_free(&v->flt);
	search_free(v->re);
	free(v->fvis);
	sb_free(&v->input);
	sb_free(&v->msg);
	sb_free(&v->verdict);
	sb_free(&v->fix);
}

void view_refresh(view *v)
{
	rows_build(&v->rw, v->m);
	rows_layout(&v->rw, &v->flt);
	findings_layout(v);
	word_verdict(v);
}

void view_apply_filter(view *v)
{
	long keep_rank = view_rank(v);
	int keep_f = v->fd_cur >= 0 && (size_t)v->fd_cur < v->nfvis ? v->fvis[v->fd_cur] : -1;
	rows_layout(&v->rw, &v->flt);
	findings_layout(v);
	/* the rank that was selected, else the first rank that shows */
	v->tl_cur = -1;
	for (size_t row = 0; row < v->rw.nvis && v->tl_cur < 0; row++)
		if (!v->rw.vis[row].group && (long)v->rw.vis[row].idx == keep_rank)
			v->tl_cur = (long)row;
	for (size_t row = 0; row < v->rw.nvis && v->tl_cur < 0; row++)
		if (!v->rw.vis[row].group)
			v->tl_cur = (long)row;
	if (v->tl_cur < 0)
		v->tl_cur = 0;
	v->fd_cur = 0;
	for (size_t i = 0; i < v->nfvis; i++)
		if (v->fvis[i] == keep_f)
			v->fd_cur = (long)i;
	v->center = true;
}

bool view_goto_rank(view *v, size_t i)
{
	long row = rows_reveal(&v->rw, i, &v->flt);
	if (row < 0)
		return false;
	v->tl_cur = row;
	v->center = true;
	return true;
}

const finding *view_finding(const view *v)
{
	if (v->fd_cur < 0 || (size_t)v->fd_cur >= v->nfvis)
		return NULL;
	return &v->m->fs.v[v->fvis[v->fd_cur]];
}

const finding *view_marking(const view *v)
{
	bool on = v->focus == PANE_FINDINGS || (v->focus == PANE_DETAIL && v->dmode == DET_FINDING) ||
		  (v->dmode == DET_RAW && v->from == PANE_FINDINGS);
	return on ? view_finding(v) : NULL;
}

long view_rank(const view *v)
{
	if (v->tl_cur < 0 || (size_t)v->tl_cur >= v->rw.nvis || v->rw.vis[v->tl_cur].group)
		return -1;
	return (long)v->rw.vis[v->tl_cur].idx;
}

void view_status(view *v, const char *fmt, ...)
{
	char buf[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	sb_clear(&v->msg);
	term_escape(v->t, &v->msg, slice_from(buf));
}

/* Whether a line read back belongs to a rank: an NCCL line or one with a
 * launcher's rank tag, not a launcher's own message that the model gave to
 * the last process of a shared stream ("slurmstepd: ... CANCELLED"). */
static bool own_line(slice raw)
{
	record rec;
	record_parse(raw, &rec);
	return rec.nccl || rec.ln.rank >= 0 || rec.ln.local >= 0;
}

static void settle_last(view *v, rrank *r)
{
	r->last_checked = true;
	const proc *p = rows_proc(&v->rw, r);
	unsigned n = p->nrecent < PROC_RECENT ? p->nrecent : PROC_RECENT;
	if (!r->last_known || n < 2)
		return;
	strbuf raw = { 0 };
	for (unsigned k = 1; k <= n; k++) {
		const lineref *lr = &p->recent[(p->nrecent - k) % PROC_RECENT];
		if ((size_t)lr->file >= v->m->nin)
			break;
		sb_clear(&raw);
		if (lineidx_read(&v->idx[lr->file], lr->off, &raw) != 0)
			break;
		if (own_line((slice){ raw.p ? raw.p : "", raw.n })) {
			if (r->last_off == p->recent[(p->nrecent - 1) % PROC_RECENT].off) {
				r->last_file = lr->file;
				r->last_line = lr->line;
				r->last_off = lr->off;
			}
			break;
		}
	}
	sb_free(&raw);
}

/* A rank without a log: what its dump says it did last. */
static void fr_last(const view *v, const rrank *r, strbuf *b)
{
	const frm_rank *k = v->m->fr && r->rank >= 0 ? frm_report_rank(v->m->fr, r->rank) : NULL;
	strbuf raw = { 0 };
	if (!k || !k->has_dump)
		sb_adds(&raw, "no log and no Flight Recorder dump of this rank");
	else if (k->has_pending)
		sb_printf(&raw, "Flight Recorder: waiting in %s #%lld (%s)", k->pending.sig.op,
			  (long long)k->pending.seq, fr_state_name(k->pending.state));
	else if (k->nlast)
		sb_printf(&raw, "Flight Recorder: last %s #%lld %s", k->last[k->nlast - 1].sig.op,
			  (long long)k->last[k->nlast - 1].seq, fr_state_name(k->last[k->nlast - 1].state));
	else
		sb_adds(&raw, "Flight Recorder: no entry");
	term_escape(v->t, b, (slice){ raw.p, raw.n });
	sb_free(&raw);
}

void view_last_line(view *v, size_t i, strbuf *b)
{
	rrank *r = &v->rw.r[i];
	if (r->proc < 0) {
		fr_last(v, r, b);
		return;
	}
	if (!r->last_checked)
		settle_last(v, r);
	if (r->last_file < 0 || (size_t)r->last_file >= v->m->nin)
		return;
	if (!view_kept(v, r->last_file)) {
		/* the latest line the model kept a copy of */
		const evref *c[VIEW_COPIES];
		size_t n = view_copies(rows_proc(&v->rw, r), c);
		if (n) {
			record rec;
			slice s = slice_from(c[n - 1]->text);
			record_parse(s, &rec);
			term_escape(v->t, b, rec.body.n ? rec.body : s);
		}
		return;
	}
	lineidx *x = &v->idx[r->last_file];
	if (!r->last_known) {
		if (lineidx_seek(x, r->last_line, &r->last_off) != 0)
			return;
		r->last_known = true;
	}
	strbuf raw = { 0 };
	if (lineidx_read(x, r->last_off, &raw) == 0 && raw.n) {
		/* the message without its prefixes: the same parser as the pipeline */
		record rec;
		record_parse((slice){ raw.p, raw.n }, &rec);
		slice s = rec.body.n ? rec.body : (slice){ raw.p, raw.n };
		term_escape(v->t, b, s);
	}
	sb_free(&raw);
}

void view_drill(view *v, int file, uint64_t line)
{
	if (file < 0 || (size_t)file >= v->m->nin) {
		view_status(v, "no line to open");
		return;
	}
	if (!view_kept(v, file)) {
		const char *why = "this file was rotated or truncated: its earlier lines are gone";
		if (strcmp(v->m->in[file].name, "<stdin>") == 0)
			why = "raw lines of standard input are not kept: the rank's facts and the findings' evidence are shown";
		else if (!v->m->in[file].lines && v->m->fr)
			why = "a Flight Recorder dump has no lines: its entries are in the rank's detail";
		view_status(v, "%s", why);
		return;
	}
	v->raw_file = file;
	v->raw_mark = line;
	v->raw_top = 0; /* centred by the next draw, once the pane's height is known */
	if (v->dmode != DET_RAW)
		v->from = v->focus == PANE_FINDINGS || v->dmode == DET_FINDING ? PANE_FINDINGS : PANE_TIMELINE;
	v->dmode = DET_RAW;
	v->focus = PANE_DETAIL;
}

bool view_kept(const view *v, int file)
{
	return v->idx && file >= 0 && (size_t)file < v->m->nin && lineidx_kept(&v->idx[file]);
}

uint64_t view_lines(const view *v, int file)
{
	if (!view_kept(v, file))
		return 0;
	uint64_t n = v->idx[file].lines;
	return n ? n : v->m->in[file].lines;
}

long view_line_rank(view *v, int file, uint64_t line)
{
	const model *m = v->m;
	strbuf raw = { 0 };
	int pi = -1;
	if (view_kept(v, file) && lineidx_get(&v->idx[file], line, &raw) == 0) {
		record rec;
		record_parse((slice){ raw.p ? raw.p : "", raw.n }, &rec);
		for (size_t i = 0; rec.nccl && i < m->nprocs && pi < 0; i++) {
			const char *h = model_host(m, (int)i);
			if (m->procs[i].pid == rec.pid && h && slice_eq_str(rec.host, h))
				pi = (int)i;
		}
		int lr = rec.ln.rank >= 0 ? rec.ln.rank : -1;
		for (size_t i = 0; pi < 0 && lr >= 0 && i < m->nprocs; i++)
			if (m->procs[i].file == file && model_proc_rank(m, (int)i) == lr)
				pi = (int)i;
	}
	sb_free(&raw);
	long one = -1;
	for (size_t i = 0; i < v->rw.nr; i++) {
		const proc *p = rows_proc(&v->rw, &v->rw.r[i]);
		if (pi >= 0 && v->rw.r[i].proc == pi)
			return (long)i;
		/* a file of one process (one log per rank) */
		if (pi < 0 && (p->file == file || p->last_file == file))
			one = one == -1 ? (long)i : -2;
	}
	return one >= 0 ? one : -1;
}

size_t view_copies(const proc *p, const evref *out[VIEW_COPIES])
{
#define X(name) &p->ev_##name,
	const evref *all[VIEW_COPIES] = { PROC_EVIDENCE(X) };
#undef X
	size_t n = 0;
	for (size_t i = 0; i < VIEW_COPIES; i++) {
		const evref *e = all[i];
		bool dup = false;
		for (size_t k = 0; k < n; k++)
			dup |= out[k]->file == e->file && out[k]->line == e->line;
		if (!e->text || dup)
			continue;
		/* insertion by (file, line): a handful at most */
		size_t k = n++;
		for (; k > 0 && (out[k - 1]->file > e->file || (out[k - 1]->file == e->file && out[k - 1]->line > e->line));
		     k--)
			out[k] = out[k - 1];
		out[k] = e;
	}
	return n;
}

void view_age(const view *v, double t, char *buf, size_t n)
{
	double d = v->m->now - t;
	long s = d > 0 ? (long)d : 0;
	if (s < 60)
		snprintf(buf, n, "%lds", s);
	else if (s < 3600)
		snprintf(buf, n, "%ldm", s / 60);
	else
		snprintf(buf, n, "%ldh", s / 3600);
}
