#include "keys.h"

#include <curses.h>
#include <errno.h>
#include <poll.h>
#include <string.h>

#include "draw.h"
#include "panes.h"
#include "timeline.h"

#define KEY_ESC 27
#define SEARCH_BUDGET (4u << 20) /* bytes a search reads between two looks at the keys */
#define HSCROLL_STEP 8
#define PROMPT_MAX 255

/* The rank row under the cursor, or of the first rank of its group. */
static long cursor_rank(const view *v)
{
	if (v->tl_cur < 0 || (size_t)v->tl_cur >= v->rw.nvis)
		return -1;
	const rrow *r = &v->rw.vis[v->tl_cur];
	return r->group ? (long)v->rw.g[r->idx].first : (long)r->idx;
}

static void goto_rank(view *v, size_t i)
{
	long row = rows_reveal(&v->rw, i, &v->flt);
	if (row >= 0) {
		v->tl_cur = row;
		long page = timeline_page(v);
		v->center = row < v->tl_top || row >= v->tl_top + page;
	}
	if (v->dmode != DET_RAW || v->focus == PANE_TIMELINE)
		v->dmode = DET_RANK;
	v->dt_top = 0;
}

static void select_row(view *v, long row)
{
	long n = (long)v->rw.nvis;
	v->tl_cur = row >= n ? n - 1 : row < 0 ? 0 : row;
	v->dmode = DET_RANK;
	v->dt_top = 0;
}

static void select_finding(view *v, long i)
{
	long n = (long)v->nfvis;
	v->fd_cur = i >= n ? n - 1 : i < 0 ? 0 : i;
	v->dmode = DET_FINDING;
	v->dt_top = 0;
	/* bring the first rank it names into view, without moving the cursor */
	const finding *f = view_finding(v);
	if (!f || !f->procs.n)
		return;
	for (long row = 0; row < (long)v->rw.nvis; row++) {
		const rrow *r = &v->rw.vis[row];
		if (!r->group && intset_has(&f->procs, v->rw.r[r->idx].proc)) {
			long page = timeline_page(v);
			if (row < v->tl_top || row >= v->tl_top + page)
				v->tl_top = row > 1 ? row - 1 : 0;
			return;
		}
	}
}

static void toggle_group(view *v)
{
	if (v->tl_cur < 0 || (size_t)v->tl_cur >= v->rw.nvis)
		return;
	const rrow *r = &v->rw.vis[v->tl_cur];
	size_t gi = r->group ? r->idx : (size_t)v->rw.r[r->idx].group;
	v->rw.g[gi].collapsed = !v->rw.g[gi].collapsed;
	rows_layout(&v->rw, &v->flt);
	for (size_t row = 0; row < v->rw.nvis; row++)
		if (v->rw.vis[row].group && v->rw.vis[row].idx == gi)
			v->tl_cur = (long)row;
}

/* ---- the actions of the key table ---- */

static void act_quit(view *v, int ch)
{
	(void)ch;
	v->quit = true;
}

static void act_help(view *v, int ch)
{
	(void)ch;
	v->help = true;
	v->help_top = 0;
}

static void act_pane(view *v, int ch)
{
	int dir = ch == KEY_BTAB ? -1 : 1;
	v->focus = (enum pane)(((int)v->focus + dir + PANE_COUNT) % PANE_COUNT);
	if (v->focus == PANE_TIMELINE)
		v->dmode = DET_RANK;
	else if (v->focus == PANE_FINDINGS)
		v->dmode = DET_FINDING;
	v->dt_top = 0;
}

/* Up, down, page, first, last in the focused pane. */
static void act_move(view *v, int ch)
{
	long step;
	switch (ch) {
	case 'j': case KEY_DOWN: step = 1; break;
	case 'k': case KEY_UP: step = -1; break;
	case KEY_NPAGE: case KEY_PPAGE: case ' ': step = 0; break;
	case 'g': case KEY_HOME: step = -(1L << 40); break;
	case 'G': case KEY_END: step = 1L << 40; break;
	default: return;
	}
	bool page_key = ch == KEY_NPAGE || ch == KEY_PPAGE || ch == ' ';
	int sign = ch == KEY_PPAGE ? -1 : 1;
	if (v->focus == PANE_TIMELINE) {
		long page = timeline_page(v);
		if (page_key) {
			step = sign * page;
			v->tl_top += step;
			if (v->tl_top < 0)
				v->tl_top = 0;
		}
		select_row(v, v->tl_cur + step);
	} else if (v->focus == PANE_FINDINGS) {
		long page = v->fd_h > 1 ? v->fd_h - 1 : 1;
		if (page_key)
			step = sign * page;
		select_finding(v, v->fd_cur + step);
	} else if (v->dmode == DET_RAW) {
		long page = v->dt_h > 1 ? v->dt_h - 1 : 1;
		if (page_key)
			step = sign * page;
		uint64_t total = view_lines(v, v->raw_file);
		long long top = (long long)v->raw_top + step;
		if (top > (long long)total - page + 1)
			top = (long long)total - page + 1;
		if (top < 1)
			top = 1;
		v->raw_top = (uint64_t)top;
	} else {
		long page = v->dt_h > 1 ? v->dt_h - 1 : 1;
		if (page_key)
			step = sign * page;
		long n = panes_detail_len(v), top = v->dt_top + step;
		if (top > n - page)
			top = n - page;
		v->dt_top = top < 0 ? 0 : top;
	}
}

static void act_space(view *v, int ch)
{
	if (v->focus == PANE_TIMELINE)
		toggle_group(v);
	else
		act_move(v, ch);
}

static void act_fold_all(view *v, int ch)
{
	(void)ch;
	bool any_open = false;
	for (size_t i = 0; i < v->rw.ng; i++)
		any_open |= !v->rw.g[i].collapsed;
	long keep = cursor_rank(v);
	size_t gi = keep >= 0 ? (size_t)v->rw.r[keep].group : 0;
	for (size_t i = 0; i < v->rw.ng; i++)
		v->rw.g[i].collapsed = any_open;
	rows_layout(&v->rw, &v->flt);
	v->tl_cur = 0;
	for (size_t row = 0; row < v->rw.nvis; row++)
		if (v->rw.vis[row].group && v->rw.vis[row].idx == gi)
			v->tl_cur = (long)row;
	view_status(v, any_open ? "all host groups folded (c unfolds)" : "all host groups unfolded");
}

static void act_open(view *v, int ch)
{
	(void)ch;
	if (v->focus == PANE_FINDINGS || (v->focus == PANE_DETAIL && v->dmode == DET_FINDING)) {
		const finding *f = view_finding(v);
		for (size_t i = 0; f && i < f->nev; i++)
			if (f->ev[i].file >= 0 && f->ev[i].line) {
				view_drill(v, f->ev[i].file, f->ev[i].line);
				return;
			}
		view_status(v, "this finding cites no line of an input");
		return;
	}
	if (v->focus == PANE_DETAIL)
		return;
	if (v->tl_cur >= 0 && (size_t)v->tl_cur < v->rw.nvis && v->rw.vis[v->tl_cur].group) {
		toggle_group(v);
		return;
	}
	long ri = view_rank(v);
	if (ri >= 0)
		view_drill(v, v->rw.r[ri].last_file, v->rw.r[ri].last_line);
}

static void act_back(view *v, int ch)
{
	(void)ch;
	if (v->dmode != DET_RAW)
		return;
	v->focus = v->from;
	v->dmode = v->from == PANE_FINDINGS ? DET_FINDING : DET_RANK;
}

static void act_scroll(view *v, int ch)
{
	int page = v->W / 2 > HSCROLL_STEP ? v->W / 2 : HSCROLL_STEP;
	switch (ch) {
	case KEY_LEFT: case 'h': case '<': v->hscroll -= HSCROLL_STEP; break;
	case KEY_RIGHT: case 'l': case '>': v->hscroll += HSCROLL_STEP; break;
	case 'H': v->hscroll -= page; break;
	case 'L': v->hscroll += page; break;
	default: v->hscroll = 0; break;
	}
	if (v->hscroll < 0)
		v->hscroll = 0;
	if (v->hscroll > (int)LINEIDX_MAX_READ)
		v->hscroll = (int)LINEIDX_MAX_READ;
	if (v->hscroll)
		view_status(v, "scrolled %d columns right (0: back to the start)", v->hscroll);
}

static void act_prompt(view *v, int ch)
{
	v->prompt = ch == '/' ? PR_SEARCH : PR_FILTER;
	sb_clear(&v->input);
	if (v->prompt == PR_FILTER)
		filter_describe(&v->flt, &v->input); /* edit what is there */
}

static void act_cycle_severity(view *v, int ch)
{
	(void)ch;
	v->flt.min_sev = v->flt.min_sev < 0 ? SEV_WARNING : v->flt.min_sev == SEV_WARNING ? SEV_ERROR : -1;
	view_apply_filter(v);
	view_status(v, "filter: %s", v->flt.min_sev < 0 ? "all severities"
				     : v->flt.min_sev == SEV_WARNING ? "warnings and errors" : "errors only");
}

/* ---- search over the raw lines ---- */

static void search_from_here(view *v, int dir)
{
	size_t n = v->m->nin;
	int file = 0;
	uint64_t line = 0;
	if (v->dmode == DET_RAW && v->raw_file >= 0) {
		file = v->raw_file;
		line = v->raw_mark;
	} else if (dir < 0 && n) {
		/* backward from the very end */
		file = (int)n - 1;
		line = view_lines(v, file) + 1;
	}
	search_begin(&v->sc, file, line, dir);
	v->scanning = true;
}

static void search_start(view *v, int dir)
{
	v->sc_more = 0;
	if (!v->re) {
		view_status(v, "no search yet: / then a regular expression");
		return;
	}
	bool any = false;
	for (size_t i = 0; i < v->m->nin && !any; i++)
		any = view_kept(v, (int)i) && view_lines(v, (int)i);
	if (!any) {
		view_status(v, "no raw line to search: %s", v->live ? "standard input's lines are not kept"
									  : "the inputs hold no line");
		return;
	}
	search_from_here(v, dir);
}

static void act_next(view *v, int ch)
{
	int dir = ch == 'N' ? -1 : 1;
	/* typed while a scan is under way (keys come in faster than a scan
	 * reads, on a busy machine or a big file): one match further than
	 * the one it finds, not the same scan started again */
	if (v->scanning && v->sc.dir == dir) {
		v->sc_more++;
		return;
	}
	search_start(v, dir);
}

/* A match: its line in the detail pane, the cursor on its rank. */
static void search_hit(view *v, int file, uint64_t line)
{
	bool wrapped = v->sc.wrapped;
	enum pane focus = v->focus;
	long ri = view_line_rank(v, file, line);
	if (ri >= 0 && view_goto_rank(v, (size_t)ri) && focus == PANE_TIMELINE)
		v->dmode = DET_RANK;
	view_drill(v, file, line);
	if (v->dmode == DET_RAW && focus != PANE_DETAIL)
		v->from = focus;
	v->hits_seen++;
	strbuf b = { 0 };
	sb_printf(&b, "/%s: %s:%llu", search_pattern(v->re), v->m->in[file].name, (unsigned long long)line);
	if (ri >= 0 && v->rw.r[ri].rank >= 0) {
		const char *h = model_host(v->m, v->rw.r[ri].proc);
		sb_printf(&b, " (rank %d%s%s)", v->rw.r[ri].rank, h ? " on " : "", h ? h : "");
	}
	if (wrapped)
		sb_adds(&b, v->sc.dir > 0 ? "  [wrapped to the top]" : "  [wrapped to the bottom]");
	view_status(v, "%s", b.p);
	sb_free(&b);
}

/* Scans on for a bounded number of bytes; true when it is done. */
static bool search_continue(view *v)
{
	int file;
	uint64_t line;
	int rc = search_step(v->re, &v->sc, v->idx, v->m->nin, SEARCH_BUDGET, &file, &line);
	if (rc == 0) {
		view_status(v, "searching /%s ... %.0f MiB read (Esc stops)", search_pattern(v->re),
			    (double)v->sc.bytes / 1048576.0);
		return false;
	}
	v->scanning = false;
	if (rc > 0) {
		search_hit(v, file, line);
		if (v->sc_more > 0) { /* n typed again meanwhile: on from this match */
			v->sc_more--;
			search_from_here(v, v->sc.dir);
		}
	} else {
		v->sc_more = 0;
		view_status(v, "not found: %s", search_pattern(v->re));
	}
	return true;
}

/* e/E, w/W: the next rank or finding of a kind. */
static void act_jump(view *v, int ch)
{
	bool errors = ch == 'e' || ch == 'E';
	int dir = ch == 'E' || ch == 'W' ? -1 : 1;
	if (v->focus == PANE_FINDINGS) {
		long n = (long)v->nfvis;
		for (long k = 1; k <= n; k++) {
			long i = ((v->fd_cur + dir * k) % n + n) % n;
			enum severity s = v->m->fs.v[v->fvis[i]].severity;
			if (errors ? s == SEV_ERROR : s == SEV_WARNING) {
				select_finding(v, i);
				return;
			}
		}
		view_status(v, "no %s finding", errors ? "error" : "warning");
		return;
	}
	unsigned want = errors ? RF_ERROR | RF_TIMEOUT | RF_ABORT | RF_STOPPED : RF_WARN | RF_NOINIT;
	long n = (long)v->rw.nr, cur = cursor_rank(v);
	if (cur >= 0 && v->rw.vis[v->tl_cur].group && dir > 0)
		cur--; /* on a group row: its first rank is next */
	for (long k = 1; k <= n; k++) {
		long i = ((cur + dir * k) % n + n) % n;
		if ((v->rw.r[i].flags & want) && rows_pass(&v->rw, (size_t)i, &v->flt)) {
			v->focus = PANE_TIMELINE;
			goto_rank(v, (size_t)i);
			return;
		}
	}
	view_status(v, errors ? "no rank stopped, failed or timed out" : "no rank warned or missed Init COMPLETE");
}

/* ---- the key table ---- */

typedef struct keydef {
	int codes[8];       /* 0 ends the list */
	const char *keys;   /* as the help screen shows them */
	const char *what;
	void (*fn)(view *v, int ch);
	const char *hint;   /* for the status line, NULL: not there */
} keydef;

static const keydef keytab[] = {
	{ { 'j', 'k', KEY_DOWN, KEY_UP }, "j k  Down Up", "move in the pane", act_move, "j/k move" },
	{ { KEY_NPAGE, KEY_PPAGE }, "PgDn PgUp", "a page down, up", act_move, NULL },
	{ { 'g', 'G', KEY_HOME, KEY_END }, "g G  Home End", "first, last", act_move, NULL },
	{ { '\t', KEY_BTAB }, "Tab  Shift-Tab", "next, previous pane", act_pane, "Tab pane" },
	{ { '\n', '\r', KEY_ENTER }, "Enter", "open: a rank's raw lines, a finding's evidence; fold a host", act_open,
	  "Enter open" },
	{ { KEY_ESC, KEY_BACKSPACE, 127 }, "Esc  Backspace", "back from raw lines", act_back, NULL },
	{ { ' ' }, "space", "fold or unfold a host; a page down in the other panes", act_space, NULL },
	{ { 'c' }, "c", "fold or unfold every host", act_fold_all, NULL },
	{ { '/' }, "/ REGEX", "search every raw line (PCRE2; any case unless a capital)", act_prompt, "/ search" },
	{ { 'n', 'N' }, "n N", "next, previous match: its line, and its rank in the timeline", act_next, "n/N next" },
	{ { KEY_LEFT, KEY_RIGHT, 'h', 'l', '<', '>', 'H', 'L' }, "Left Right  h l", "scroll the text sideways (H L: half a screen)",
	  act_scroll, "Left/Right scroll" },
	{ { '0' }, "0", "scroll back to the first column", act_scroll, NULL },
	{ { 'e', 'E', 'w', 'W' }, "e E  w W", "next, previous rank or finding with an error, a warning", act_jump,
	  "e/w errors/warnings" },
	{ { 'f' }, "f", "severity: all, warning and up, error", act_cycle_severity, "f severity" },
	{ { '\\', '|' }, "\\ WORDS", "filter: hosts (node-b, gpu-0*), ranks (r3-7), severity (error); empty clears",
	  act_prompt, "\\ filter" },
	{ { '?', KEY_F(1) }, "?  F1", "this help", act_help, "? help" },
	{ { 'q', 'Q' }, "q", "quit", act_quit, "q quit" },
};

static const char *const legend[] = {
	"",
	"rank markers (no colour needed)",
	"  !  stopped early: behind the other ranks (the reason is in its detail)",
	"  ~  never logged Init COMPLETE",
	"  *  named by the selected finding",
	"",
	"phase axis, one letter per phase (words at 200 columns)",
	"  b bootstrap   i init-start   t topology   c channel-connect",
	"  C connected   D init-complete   r running   E error, timeout or abort",
	"",
	"glyphs",
	"  %s a phase or span gone through   %s never reached   %s the last line seen",
	"  %s WARN   %s error   %s timeout   %s abort",
	"",
	"findings: severity, [id], confidence when not stated by a line",
	"  inferred: derived across ranks   suspected: a heuristic, not proven",
	"",
	"the screen needs 40x12 at least",
};

void keys_help(const view *v, strbuf *b)
{
	sb_adds(b, "ncclog view: keys\n\n");
	for (size_t i = 0; i < sizeof keytab / sizeof keytab[0]; i++)
		sb_printf(b, "%-16s %s\n", keytab[i].keys, keytab[i].what);
	const term *t = v->t;
	for (size_t i = 0; i < sizeof legend / sizeof legend[0]; i++) {
		if (strstr(legend[i], "never reached"))
			sb_printf(b, legend[i], term_glyph(t, G_DONE), term_glyph(t, G_TODO), term_glyph(t, G_LAST));
		else if (strstr(legend[i], "WARN"))
			sb_printf(b, legend[i], term_glyph(t, G_WARN), term_glyph(t, G_ERROR), term_glyph(t, G_TIMEOUT),
				  term_glyph(t, G_ABORT));
		else
			sb_adds(b, legend[i]);
		sb_addc(b, '\n');
	}
}

void keys_hint(int cols, strbuf *b)
{
	/* the short list first; the long one where it fits */
	static const char *const always[] = { "Tab pane", "Enter open", "/ search", "\\ filter", "? help", "q quit" };
	strbuf full = { 0 };
	for (size_t i = 0; i < sizeof keytab / sizeof keytab[0]; i++)
		if (keytab[i].hint)
			sb_printf(&full, " %s ", keytab[i].hint);
	if ((int)full.n < cols) {
		sb_add(b, full.p, full.n);
	} else {
		for (size_t i = 0; i < sizeof always / sizeof always[0]; i++)
			sb_printf(b, " %s ", always[i]);
	}
	sb_free(&full);
}

/* ---- prompts ---- */

static void prompt_done(view *v)
{
	enum prompt p = v->prompt;
	v->prompt = PR_NONE;
	strbuf err = { 0 };
	const char *text = v->input.p ? v->input.p : "";
	if (p == PR_SEARCH) {
		if (!*text) {
			search_start(v, 1); /* "/" then Enter: the last search again */
		} else {
			search *s = search_new(text, &err);
			if (!s) {
				view_status(v, "search: %s", err.p);
			} else {
				search_free(v->re);
				v->re = s;
				v->hits_seen = 0;
				search_start(v, 1);
			}
		}
	} else if (filter_parse(&v->flt, text, &err) != 0) {
		view_status(v, "filter: %s", err.p);
	} else {
		view_apply_filter(v);
		strbuf d = { 0 };
		filter_describe(&v->flt, &d);
		view_status(v, "filter: %s  (%zu of %zu findings; \\ then Enter clears)", d.n ? d.p : "none", v->nfvis,
			    v->m->fs.n);
		sb_free(&d);
	}
	sb_free(&err);
}

static void prompt_key(view *v, int ch)
{
	if (ch == KEY_ESC) {
		v->prompt = PR_NONE;
	} else if (ch == '\n' || ch == '\r' || ch == KEY_ENTER) {
		prompt_done(v);
	} else if (ch == KEY_BACKSPACE || ch == 127 || ch == 8) {
		if (v->input.n)
			v->input.p[--v->input.n] = 0;
		else
			v->prompt = PR_NONE;
	} else if (ch == 21) { /* Ctrl-U */
		sb_clear(&v->input);
	} else if (ch >= 0x20 && ch < 0x100 && ch != 0x7f && v->input.n < PROMPT_MAX) {
		sb_addc(&v->input, (char)ch);
	}
}

static void help_key(view *v, int ch)
{
	switch (ch) {
	case 'j': case KEY_DOWN: v->help_top++; break;
	case 'k': case KEY_UP: v->help_top--; break;
	case KEY_NPAGE: case ' ': v->help_top += v->H / 2; break;
	case KEY_PPAGE: v->help_top -= v->H / 2; break;
	case 'g': case KEY_HOME: v->help_top = 0; break;
	case 'G': case KEY_END: v->help_top = 1L << 30; break; /* the draw clamps it */
	case KEY_RESIZE: break;
	default: v->help = false; break;
	}
	if (v->help_top < 0)
		v->help_top = 0;
}

void keys_handle(view *v, int ch)
{
	if (ch == KEY_RESIZE)
		return; /* the next draw reads the new size */
	if (v->help) {
		help_key(v, ch);
		return;
	}
	if (v->prompt != PR_NONE) {
		prompt_key(v, ch);
		return;
	}
	if (v->scanning && ch == KEY_ESC) {
		v->scanning = false;
		v->sc_more = 0;
		view_status(v, "search stopped");
		return;
	}
	sb_clear(&v->msg);
	for (size_t i = 0; i < sizeof keytab / sizeof keytab[0]; i++)
		for (size_t k = 0; k < sizeof keytab[i].codes / sizeof keytab[i].codes[0] && keytab[i].codes[k]; k++)
			if (keytab[i].codes[k] == ch) {
				keytab[i].fn(v, ch);
				return;
			}
}

int keys_run(view *v)
{
	draw_view(v);
	while (!v->quit) {
		if (term_interrupted())
			return 1;
		struct pollfd pf[2] = { { v->t->fd, POLLIN, 0 }, { v->data_fd, POLLIN, 0 } };
		/* a timeout, so that a signal landing just before poll is seen;
		 * none while a search has more to read */
		int wait = v->scanning ? 0 : v->on_tick ? 100 : 500;
		int n = poll(pf, v->data_fd >= 0 ? 2 : 1, wait);
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
		if (v->scanning && !v->quit) {
			search_continue(v);
			dirty = true;
		}
		if (dirty && !v->quit)
			draw_view(v);
	}
	return 0;
}
