#include "view.h"

#include <curses.h>
#include <errno.h>
#include <poll.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "../parser/record.h"
#include "keys.h"
#include "panes.h"
#include "timeline.h"

static void findings_layout(view *v)
{
	v->nfvis = 0;
	for (size_t i = 0; i < v->m->fs.n; i++)
		if ((int)v->m->fs.v[i].severity >= v->filter) {
			grow(&v->fvis, &v->fviscap, v->nfvis, sizeof *v->fvis);
			v->fvis[v->nfvis++] = (int)i;
		}
}

void view_init(view *v, const model *m, term *t, lineidx *idx)
{
	*v = (view){ 0 };
	v->m = m;
	v->t = t;
	v->idx = idx;
	v->filter = -1;
	v->raw_file = -1;
	v->data_fd = -1;
	view_refresh(v);
	/* start on the rank that stopped first in the list, else one that never
	 * completed init: the question the viewer answers first */
	for (unsigned want = RF_STOPPED; want; want = want == RF_STOPPED ? RF_NOINIT : 0)
		for (size_t i = 0; i < v->rw.nr; i++)
			if (v->rw.r[i].flags & want) {
				v->tl_cur = rows_reveal(&v->rw, i, v->filter);
				v->center = true;
				return;
			}
}

void view_free(view *v)
{
	rows_free(&v->rw);
	free(v->fvis);
	sb_free(&v->input);
	sb_free(&v->msg);
}

void view_refresh(view *v)
{
	rows_build(&v->rw, v->m);
	rows_layout(&v->rw, v->filter);
	findings_layout(v);
}

const finding *view_finding(const view *v)
{
	if (v->fd_cur < 0 || (size_t)v->fd_cur >= v->nfvis)
		return NULL;
	return &v->m->fs.v[v->fvis[v->fd_cur]];
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
	const proc *p = &v->m->procs[r->proc];
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

void view_last_line(view *v, size_t i, strbuf *b)
{
	rrank *r = &v->rw.r[i];
	if (!r->last_checked)
		settle_last(v, r);
	if (r->last_file < 0 || (size_t)r->last_file >= v->m->nin)
		return;
	if (!view_kept(v, r->last_file)) {
		/* the latest line the model kept a copy of */
		const evref *c[VIEW_COPIES];
		size_t n = view_copies(&v->m->procs[r->proc], c);
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
		view_status(v, strcmp(v->m->in[file].name, "<stdin>") == 0
				       ? "raw lines of standard input are not kept: the rank's facts and the findings' evidence are shown"
				       : "this file was rotated or truncated: its earlier lines are gone");
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
	return v->idx && file >= 0 && (size_t)file < v->m->nin && v->idx[file].path;
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

/* The timeline gets what its rows need up to most of the screen, the
 * findings a quarter at most, the detail pane the rest (half when it has
 * the focus). */
static void layout(view *v)
{
	getmaxyx(stdscr, v->H, v->W);
	int avail = v->H - 3;
	int fd = avail / 4 < 3 ? 3 : avail / 4;
	v->fd_h = (int)v->nfvis + 1 < fd ? (int)v->nfvis + 1 : fd;
	if (v->fd_h < 2)
		v->fd_h = 2;
	int dt_min = v->focus == PANE_DETAIL ? avail / 2 : avail / 4;
	if (dt_min < 3)
		dt_min = 3;
	long want = (long)v->rw.nvis + 1;
	v->tl_h = avail - v->fd_h - dt_min;
	if (want < v->tl_h)
		v->tl_h = (int)want;
	if (v->tl_h < 3)
		v->tl_h = 3;
	v->dt_h = avail - v->fd_h - v->tl_h;
	v->tl_y = 2;
	v->fd_y = v->tl_y + v->tl_h;
	v->dt_y = v->fd_y + v->fd_h;
}

void view_draw(view *v)
{
	layout(v);
	erase();
	if (v->H < 12 || v->W < 40) {
		term_put(v->t, 0, 0, v->W, "terminal too small for ncclog view (40x12 at least); q quits", A_BOLD);
		refresh();
		return;
	}
	if (v->dmode == DET_RAW && v->raw_top == 0) {
		long ctx = (v->dt_h - 1) / 3;
		v->raw_top = v->raw_mark > (uint64_t)ctx ? v->raw_mark - (uint64_t)ctx : 1;
	}
	panes_header(v);
	timeline_draw(v);
	panes_findings(v);
	panes_detail(v);
	panes_status(v);
	if (v->help)
		panes_help(v);
	refresh();
}

int view_run(view *v)
{
	view_draw(v);
	while (!v->quit) {
		if (term_interrupted())
			return 1;
		struct pollfd pf[2] = { { v->t->fd, POLLIN, 0 }, { v->data_fd, POLLIN, 0 } };
		/* a timeout, so that a signal landing just before poll is seen */
		int n = poll(pf, v->data_fd >= 0 ? 2 : 1, v->on_tick ? 100 : 500);
		if (n < 0 && errno != EINTR)
			return -1;
		if (term_interrupted())
			return 1;
		bool dirty = false;
		if (n > 0 && (pf[0].revents & (POLLHUP | POLLERR | POLLNVAL)))
			return -1; /* the terminal went away */
		if (n > 0 && v->data_fd >= 0 && pf[1].revents && v->on_data)
			dirty |= v->on_data(v, v->data_ctx);
		if (v->on_tick)
			dirty |= v->on_tick(v, v->data_ctx);
		int ch;
		while (!v->quit && (ch = getch()) != ERR) {
			keys_handle(v, ch);
			dirty = true;
		}
		if (dirty && !v->quit)
			view_draw(v);
	}
	return 0;
}
