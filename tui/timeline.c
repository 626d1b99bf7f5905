#include "timeline.h"

#include <curses.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "../util/escape.h"

#define NSLOTS 8 /* bootstrap .. running, then error/abort */

typedef struct cols {
	int rank, dev, bar, barw, phase, phasew, last, lastw;
} cols;

/* The rank column is as wide as its widest label: "r1023", "pid2566123". */
static int label_width(const view *v)
{
	int w = 7;
	for (size_t i = 0; i < v->rw.nr; i++) {
		const rrank *r = &v->rw.r[i];
		char buf[32];
		int n = r->rank >= 0 ? snprintf(buf, sizeof buf, "r%d", r->rank)
				     : snprintf(buf, sizeof buf, "pid%ld", rows_proc(&v->rw, r)->pid);
		if (n + 1 > w)
			w = n + 1;
	}
	return w;
}

static cols layout(int W, int labelw)
{
	cols c;
	c.rank = 3;
	c.dev = c.rank + labelw;
	c.bar = c.dev + 5;
	c.barw = W / 5;
	if (c.barw < 16)
		c.barw = 16;
	if (c.barw > 48)
		c.barw = 48;
	c.barw -= c.barw % NSLOTS;
	c.phase = c.bar + c.barw + 1;
	c.phasew = W >= 100 ? 16 : 11;
	c.last = c.phase + c.phasew;
	c.lastw = W - c.last;
	return c;
}

long timeline_page(const view *v)
{
	return v->tl_h > 2 ? v->tl_h - 1 : 1;
}

static const char *short_phase(enum phase p, bool wide)
{
	static const char *const s[] = { "started", "bootstrap", "init-start", "topology", "connect",
					 "connected", "init-done", "running" };
	return wide ? phase_name(p) : s[p];
}

static void axis(view *v, const cols *c)
{
	const term *t = v->t;
	int y = v->tl_y, a = term_attr(t, RL_DIM) | A_BOLD;
	term_blank(y, 0, v->W, A_NORMAL);
	term_put(t, y, c->rank, 6, "rank", a);
	term_put(t, y, c->dev, 4, "gpu", a);
	if (v->rw.timed) {
		char l[32], r[32];
		time_t t0 = (time_t)v->rw.t0;
		struct tm tm;
		gmtime_r(&t0, &tm);
		strftime(l, sizeof l, "%H:%M:%S", &tm);
		long span = (long)(v->rw.t1 - v->rw.t0);
		if (span >= 3600)
			snprintf(r, sizeof r, "+%ldh%02ldm", span / 3600, span / 60 % 60);
		else
			snprintf(r, sizeof r, "+%ldm%02lds", span / 60, span % 60);
		term_put(t, y, c->bar, c->barw, l, a);
		int rl = (int)strlen(r);
		if (c->barw - 2 - rl > (int)strlen(l))
			term_put(t, y, c->bar + c->barw - 2 - rl, rl, r, a);
	} else {
		static const char *const lab[NSLOTS][2] = {
			{ "b", "boot" }, { "i", "init" }, { "t", "topo" }, { "c", "chan" },
			{ "C", "conn" }, { "D", "done" }, { "r", "run" }, { "E", "err" } };
		int cw = c->barw / NSLOTS;
		for (int s = 0; s < NSLOTS; s++)
			term_put(t, y, c->bar + s * cw, cw, lab[s][cw >= 5], a);
	}
	term_put(t, y, c->phase, c->phasew, "phase", a);
	term_put(t, y, c->last, c->lastw, v->live ? " ago last line seen" : "last line seen", a);
}

/* The glyph of the error/abort slot, and its role. */
static enum glyph end_glyph(unsigned f, enum role *r)
{
	*r = RL_ERROR;
	if (f & RF_ERROR)
		return G_ERROR;
	if (f & RF_TIMEOUT)
		return G_TIMEOUT;
	if (f & RF_ABORT)
		return G_ABORT;
	*r = RL_WARNING;
	return (f & RF_WARN) ? G_WARN : G_COUNT;
}

static void cell(const term *t, int y, int x, enum glyph g, int attr)
{
	term_put(t, y, x, 1, g == G_COUNT ? " " : term_glyph(t, g), attr);
}

static int cell_of(const rows *w, double tm, int n)
{
	double f = (tm - w->t0) / (w->t1 - w->t0);
	int c = (int)(f * (n - 1) + 0.5);
	return c < 0 ? 0 : c >= n ? n - 1 : c;
}

static void bar(view *v, const cols *c, int y, const rrank *r, int base)
{
	const term *t = v->t;
	const proc *p = rows_proc(&v->rw, r);
	int done = r->flags & RF_STOPPED ? term_attr(t, RL_ERROR)
		   : r->flags & RF_NOINIT ? term_attr(t, RL_WARNING) : term_attr(t, RL_OK);
	done |= base;
	int todo = term_attr(t, RL_DIM) | base, last = done | A_BOLD;
	if (v->rw.timed) {
		int n = c->barw - 2;
		if (!time_dated(p->last_time)) {
			for (int i = 0; i < n; i++)
				cell(t, y, c->bar + i, G_TODO, todo);
		} else {
			int a = cell_of(&v->rw, p->first_time, n), b = cell_of(&v->rw, p->last_time, n);
			for (int i = 0; i < n; i++)
				cell(t, y, c->bar + i, i < a ? G_COUNT : i < b ? G_DONE : i == b ? G_LAST : G_TODO,
				     i <= b ? (i == b ? last : done) : todo);
			if (p->warned && time_dated(p->warn_time)) {
				int wc = cell_of(&v->rw, p->warn_time, n);
				cell(t, y, c->bar + (wc == b && wc ? wc - 1 : wc), G_WARN, term_attr(t, RL_WARNING) | base);
			}
		}
	} else {
		int cw = c->barw / NSLOTS;
		for (int s = 0; s < NSLOTS - 1; s++) {
			enum phase ph = (enum phase)(s + 1);
			for (int i = 0; i < cw; i++) {
				bool at_last = ph == p->phase && i == cw - 1;
				enum glyph g = ph < p->phase ? G_DONE : ph == p->phase ? (at_last ? G_LAST : G_DONE) : G_TODO;
				if (p->phase == PH_NONE && s == 0 && i == 0)
					g = G_LAST;
				cell(t, y, c->bar + s * cw + i, g, g == G_TODO ? todo : at_last ? last : done);
			}
		}
	}
	enum role er;
	enum glyph eg = end_glyph(r->flags, &er);
	int ex = v->rw.timed ? c->bar + c->barw - 1 : c->bar + (NSLOTS - 1) * (c->barw / NSLOTS) + (c->barw / NSLOTS) / 2;
	if (eg != G_COUNT)
		cell(t, y, ex, eg, term_attr(t, er) | base);
}

static bool hilited(const view *v, const rrank *r)
{
	const finding *f = view_marking(v);
	return f && intset_has(&f->procs, r->proc);
}

static char marker(unsigned flags)
{
	return flags & RF_STOPPED ? '!' : flags & RF_NOINIT ? '~' : ' ';
}

static void rank_row(view *v, const cols *c, int y, size_t i, bool cur)
{
	const term *t = v->t;
	const rrank *r = &v->rw.r[i];
	const proc *p = rows_proc(&v->rw, r);
	int base = cur ? (v->focus == PANE_TIMELINE ? A_REVERSE : A_BOLD) : A_NORMAL;
	bool hl = hilited(v, r);
	term_blank(y, 0, v->W, base);
	if (hl)
		term_put(t, y, 0, 1, "*", term_attr(t, RL_HILITE) | base);
	char mk[2] = { marker(r->flags), 0 };
	term_put(t, y, 1, 1, mk, term_attr(t, r->flags & RF_STOPPED ? RL_STOPPED : RL_WARNING) | base);
	char buf[32];
	if (r->rank >= 0)
		snprintf(buf, sizeof buf, "r%d", r->rank);
	else
		snprintf(buf, sizeof buf, "pid%ld", p->pid);
	term_put(t, y, c->rank, c->dev - c->rank - 1, buf, (hl ? term_attr(t, RL_HILITE) : (int)A_BOLD) | base);
	if (p->dev >= 0) {
		snprintf(buf, sizeof buf, "[%d]", p->dev);
		term_put(t, y, c->dev, 4, buf, base);
	}
	int pa = (r->flags & RF_STOPPED ? term_attr(t, RL_ERROR) : r->flags & RF_NOINIT ? term_attr(t, RL_WARNING) : 0);
	if (r->proc >= 0) {
		bar(v, c, y, r, base);
		term_put(t, y, c->phase, c->phasew - 1, short_phase(p->phase, c->phasew > 12), pa | base);
	} else {
		/* no log of it: where it is comes from its dump alone */
		term_put(t, y, c->phase, c->phasew - 1, "no log", pa | base);
	}
	strbuf b = { 0 };
	if (v->live) {
		/* how long ago it was last heard from */
		char age[16] = "";
		if (p->last_wall > 0)
			view_age(v, p->last_wall, age, sizeof age);
		sb_printf(&b, "%4s ", age);
	}
	if (r->flags & RF_STOPPED)
		sb_adds(&b, r->why == STOP_SILENT ? "silent: " : "stopped: ");
	view_last_line(v, i, &b);
	term_put_from(t, y, c->last, c->lastw, v->hscroll, b.p, (r->flags & RF_STOPPED ? A_BOLD : 0) | base);
	sb_free(&b);
}

static void group_row(view *v, const cols *c, int y, size_t gi, bool cur)
{
	const term *t = v->t;
	const rgroup *g = &v->rw.g[gi];
	int base = cur ? (v->focus == PANE_TIMELINE ? A_REVERSE : A_BOLD) : A_NORMAL;
	term_blank(y, 0, v->W, base);
	char mk[2] = { marker(g->flags), 0 };
	term_put(t, y, 1, 1, mk, term_attr(t, g->flags & RF_STOPPED ? RL_STOPPED : RL_WARNING) | base);
	int x = c->rank - 1;
	x += term_put(t, y, x, 2, term_glyph(t, g->collapsed ? G_CLOSED : G_OPEN), base);
	strbuf b = { 0 };
	const char *host = g->host >= 0 ? intern_str(&v->m->str, g->host)
			   : g->host == ROWS_FR_ONLY ? "(Flight Recorder only)" : "(no host)";
	term_escape(t, &b, slice_from(host));
	x += 1 + term_put(t, y, x + 1, v->W - x - 1, b.p, A_BOLD | base);
	sb_clear(&b);
	intset rk = { 0 };
	for (size_t i = g->first; i < g->first + g->n; i++)
		if (v->rw.r[i].rank >= 0)
			intset_add(&rk, v->rw.r[i].rank);
	sb_adds(&b, "  ");
	if (rk.n) {
		sb_adds(&b, rk.n == 1 ? "rank " : "ranks ");
		ranges_format(&b, rk.v, rk.n);
	}
	sb_printf(&b, " (%zu)  %s", g->n, phase_name(g->minph));
	if (g->maxph != g->minph)
		sb_printf(&b, "..%s", phase_name(g->maxph));
	if (g->nstopped)
		sb_printf(&b, "  %d stopped early", g->nstopped);
	if (g->nnoinit)
		sb_printf(&b, "  %d without Init COMPLETE", g->nnoinit);
	size_t nerr = 0, ntmo = 0, nwarn = 0;
	for (size_t i = g->first; i < g->first + g->n; i++) {
		nerr += (v->rw.r[i].flags & RF_ERROR) != 0;
		ntmo += (v->rw.r[i].flags & RF_TIMEOUT) != 0;
		nwarn += (v->rw.r[i].flags & RF_WARN) != 0;
	}
	if (nerr)
		sb_printf(&b, "  %zu failed", nerr);
	if (ntmo)
		sb_printf(&b, "  %zu timed out", ntmo);
	if (nwarn)
		sb_printf(&b, "  %zu warned", nwarn);
	size_t nhl = 0;
	const finding *f = view_marking(v);
	if (f)
		for (size_t i = g->first; i < g->first + g->n; i++)
			nhl += intset_has(&f->procs, v->rw.r[i].proc);
	if (nhl)
		sb_printf(&b, "  *%zu", nhl);
	term_put(t, y, x, v->W - x, b.p, base);
	intset_free(&rk);
	sb_free(&b);
}

void timeline_draw(view *v)
{
	cols c = layout(v->W, label_width(v));
	axis(v, &c);
	long page = timeline_page(v), n = (long)v->rw.nvis;
	if (v->tl_cur >= n)
		v->tl_cur = n - 1;
	if (v->tl_cur < 0)
		v->tl_cur = 0;
	if (v->center) {
		v->tl_top = v->tl_cur - page / 2;
		v->center = false;
	}
	if (v->tl_top > v->tl_cur)
		v->tl_top = v->tl_cur;
	if (v->tl_cur >= v->tl_top + page)
		v->tl_top = v->tl_cur - page + 1;
	if (v->tl_top > n - page)
		v->tl_top = n - page;
	if (v->tl_top < 0)
		v->tl_top = 0;
	for (long k = 0; k < page; k++) {
		int y = v->tl_y + 1 + (int)k;
		long row = v->tl_top + k;
		if (row >= n) {
			term_blank(y, 0, v->W, A_NORMAL);
			if (n == 0 && k == 0)
				term_put(v->t, y, 2, v->W - 2,
					 v->flt.min_sev >= 0 || filter_scoped(&v->flt) ? "no rank passes the filter (f, or \\ then Enter)"
					 : v->m->fr ? "no rank seen in the logs: the Flight Recorder findings are below"
						    : "no rank seen in these logs", A_DIM);
			continue;
		}
		const rrow *rr = &v->rw.vis[row];
		if (rr->group)
			group_row(v, &c, y, rr->idx, row == v->tl_cur);
		else
			rank_row(v, &c, y, rr->idx, row == v->tl_cur);
	}
	/* a scroll position when not everything fits */
	if (n > page) {
		char pos[64];
		snprintf(pos, sizeof pos, " %ld/%ld ", v->tl_cur + 1, n);
		int l = (int)strlen(pos);
		term_put(v->t, v->tl_y, v->W - l, l, pos, term_attr(v->t, RL_DIM));
	}
}
