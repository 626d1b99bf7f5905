#include "draw.h"

#include <curses.h>
#include <string.h>

#include "panes.h"
#include "timeline.h"

int draw_fold(const term *t, const char *s, int cols, int maxl, void (*fn)(void *, int, const char *, size_t),
	      void *ctx)
{
	int n = 0;
	if (cols < 1)
		cols = 1;
	while (s && *s) {
		while (*s == ' ' && n)
			s++; /* a line after the first starts at a word */
		if (!*s)
			break;
		int used;
		size_t k = term_fit(t, s, cols, &used);
		if (!k)
			k = 1; /* a character wider than the line */
		if (s[k]) {
			/* break at the last space that fits, unless the word is longer than a line */
			size_t sp = k;
			while (sp > 0 && s[sp] != ' ')
				sp--;
			if (sp > 0)
				k = sp;
		}
		if (fn && (!maxl || n < maxl))
			fn(ctx, n, s, k);
		n++;
		s += k;
	}
	return n;
}

/* ---- the verdict and the legend on top ---- */

typedef struct linesink {
	view *v;
	int y, attr, maxl;
	int total;
} linesink;

static void put_line(void *ctx, int i, const char *s, size_t k)
{
	linesink *ls = ctx;
	view *v = ls->v;
	char *line = xstrndup(s, k);
	/* a line cut short says so */
	bool cut = i == ls->maxl - 1 && ls->total > ls->maxl;
	int x = i ? 1 : 0; /* a line that goes on starts under the first word */
	term_blank(ls->y + i, 0, v->W, A_NORMAL);
	int w = x + term_put(v->t, ls->y + i, x, v->W - x - (cut ? 2 : 0), line, ls->attr);
	if (cut)
		term_put(v->t, ls->y + i, w < v->W - 2 ? w + 1 : v->W - 2, 1, term_glyph(v->t, G_MORE), ls->attr);
	free(line);
}

static void verdict_text(view *v, strbuf *b)
{
	sb_adds(b, " verdict: ");
	term_escape(v->t, b, (slice){ v->verdict.p ? v->verdict.p : "", v->verdict.n });
}

/* The legend, readable without colour: the letters of the phase axis,
 * then the markers and glyphs; the help screen has all of it. */
static void legend_text(view *v, strbuf *b)
{
	const term *t = v->t;
	bool wide = v->W >= 160;
	if (!v->rw.timed) {
		static const char *const ph[8][2] = {
			{ "b boot", "b bootstrap" },     { "i init", "i init-start" },   { "t topo", "t topology" },
			{ "c chan", "c channel-connect" }, { "C conn", "C connected" }, { "D done", "D init-complete" },
			{ "r run", "r running" },        { "E err", "E error, timeout, abort" } };
		sb_adds(b, " phases:");
		for (int i = 0; i < 8; i++)
			sb_printf(b, " %s%s", ph[i][wide], wide ? " " : "");
		sb_adds(b, "  ");
	}
	sb_adds(b, v->W >= 110 ? " ! stopped early  ~ no Init COMPLETE  " : " !stopped ~no-init ");
	const struct { enum glyph g; const char *w, *n; } leg[] = {
		{ G_WARN, "WARN", "warn" }, { G_ERROR, "error", "error" }, { G_TIMEOUT, "timeout", "timeout" },
		{ G_ABORT, "abort", "abort" }, { G_LAST, "last line", "last" } };
	for (size_t i = 0; i < sizeof leg / sizeof leg[0]; i++)
		sb_printf(b, "%s%s%s ", v->W >= 110 ? " " : "", term_glyph(t, leg[i].g), v->W >= 110 ? leg[i].w : leg[i].n);
	sb_printf(b, " axis: %s", v->rw.timed ? "time" : "phases");
}

/* Lines of the verdict and the legend at this size. */
static int top_lines(view *v, int *vh, int *lh)
{
	strbuf b = { 0 };
	verdict_text(v, &b);
	int n = draw_fold(v->t, b.p, v->W - 1, 0, NULL, NULL);
	int vmax = v->H >= 30 ? 2 : 1;
	*vh = n < vmax ? n : vmax;
	sb_clear(&b);
	legend_text(v, &b);
	n = draw_fold(v->t, b.p, v->W - 1, 0, NULL, NULL);
	int lmax = v->H >= 16 ? 2 : 1;
	*lh = n < lmax ? n : lmax;
	sb_free(&b);
	return *vh + *lh;
}

static void draw_top(view *v, int vh, int lh)
{
	strbuf b = { 0 };
	verdict_text(v, &b);
	linesink ls = { v, 1, A_BOLD, vh, 0 };
	ls.total = draw_fold(v->t, b.p, v->W - 1, vh, NULL, NULL);
	draw_fold(v->t, b.p, v->W - 1, vh, put_line, &ls);
	sb_clear(&b);
	legend_text(v, &b);
	ls = (linesink){ v, 1 + vh, term_attr(v->t, RL_DIM) | A_BOLD, lh, 0 };
	ls.total = draw_fold(v->t, b.p, v->W - 1, lh, NULL, NULL);
	draw_fold(v->t, b.p, v->W - 1, lh, put_line, &ls);
	sb_free(&b);
}

/* The timeline gets what its rows need up to most of the screen, the
 * findings a quarter at most, the detail pane the rest (half when it has
 * the focus). */
static void layout(view *v, int top)
{
	v->tl_y = top;
	int avail = v->H - top - 1;
	int fd = avail / 4 < 3 ? 3 : avail / 4;
	v->fd_h = (int)v->nfvis + 1 < fd ? (int)v->nfvis + 1 : fd;
	if (v->fd_h < 2)
		v->fd_h = 2;
	int dt_min = v->focus == PANE_DETAIL ? avail / 2 : avail / 4;
	if (dt_min < 2)
		dt_min = 2;
	long want = (long)v->rw.nvis + 1;
	v->tl_h = avail - v->fd_h - dt_min;
	if (want < v->tl_h)
		v->tl_h = (int)want;
	if (v->tl_h < 3)
		v->tl_h = 3;
	v->dt_h = avail - v->fd_h - v->tl_h;
	v->fd_y = v->tl_y + v->tl_h;
	v->dt_y = v->fd_y + v->fd_h;
}

void draw_view(view *v)
{
	getmaxyx(stdscr, v->H, v->W);
	erase();
	if (v->H < VIEW_MIN_ROWS || v->W < VIEW_MIN_COLS) {
		char msg[160];
		snprintf(msg, sizeof msg, "ncclog view needs a terminal of %dx%d at least; this one is %dx%d. q quits",
			 VIEW_MIN_COLS, VIEW_MIN_ROWS, v->W, v->H);
		strbuf b = { 0 };
		sb_adds(&b, msg);
		linesink ls = { v, 0, A_BOLD, v->H, 0 };
		ls.total = draw_fold(v->t, b.p, v->W, v->H, NULL, NULL);
		draw_fold(v->t, b.p, v->W, v->H, put_line, &ls);
		sb_free(&b);
		refresh();
		return;
	}
	int vh, lh;
	int top = 1 + top_lines(v, &vh, &lh);
	v->legend_h = lh;
	layout(v, top);
	if (v->dmode == DET_RAW && v->raw_top == 0) {
		long ctx = (v->dt_h - 1) / 3;
		v->raw_top = v->raw_mark > (uint64_t)ctx ? v->raw_mark - (uint64_t)ctx : 1;
	}
	panes_header(v);
	draw_top(v, vh, lh);
	timeline_draw(v);
	panes_findings(v);
	panes_detail(v);
	panes_status(v);
	if (v->help)
		panes_help(v);
	refresh();
}
