#include "keys.h"

#include <curses.h>
#include <string.h>

#include "panes.h"
#include "timeline.h"

#define KEY_ESC 27
#define RAW_SEARCH_AHEAD 1000000u /* lines a raw search reads forward */
#define RAW_SEARCH_BACK 5000u     /* and backward (each step seeks again) */

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
	long row = rows_reveal(&v->rw, i, v->filter);
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
	rows_layout(&v->rw, v->filter);
	for (size_t row = 0; row < v->rw.nvis; row++)
		if (v->rw.vis[row].group && v->rw.vis[row].idx == gi)
			v->tl_cur = (long)row;
}

static void toggle_all(view *v)
{
	bool any_open = false;
	for (size_t i = 0; i < v->rw.ng; i++)
		any_open |= !v->rw.g[i].collapsed;
	long keep = cursor_rank(v);
	size_t gi = keep >= 0 ? (size_t)v->rw.r[keep].group : 0;
	for (size_t i = 0; i < v->rw.ng; i++)
		v->rw.g[i].collapsed = any_open;
	rows_layout(&v->rw, v->filter);
	v->tl_cur = 0;
	for (size_t row = 0; row < v->rw.nvis; row++)
		if (v->rw.vis[row].group && v->rw.vis[row].idx == gi)
			v->tl_cur = (long)row;
	view_status(v, any_open ? "all host groups folded (c unfolds)" : "all host groups unfolded");
}

static void cycle_filter(view *v)
{
	long keep_rank = view_rank(v);
	int keep_f = v->fd_cur >= 0 && (size_t)v->fd_cur < v->nfvis ? v->fvis[v->fd_cur] : -1;
	v->filter = v->filter < 0 ? SEV_WARNING : v->filter == SEV_WARNING ? SEV_ERROR : -1;
	rows_layout(&v->rw, v->filter);
	v->nfvis = 0;
	for (size_t i = 0; i < v->m->fs.n; i++)
		if ((int)v->m->fs.v[i].severity >= v->filter) {
			grow(&v->fvis, &v->fviscap, v->nfvis, sizeof *v->fvis);
			v->fvis[v->nfvis++] = (int)i;
		}
	v->tl_cur = 0;
	if (keep_rank >= 0)
		for (size_t row = 0; row < v->rw.nvis; row++)
			if (!v->rw.vis[row].group && (long)v->rw.vis[row].idx == keep_rank)
				v->tl_cur = (long)row;
	v->fd_cur = 0;
	for (size_t i = 0; i < v->nfvis; i++)
		if (v->fvis[i] == keep_f)
			v->fd_cur = (long)i;
	view_status(v, "filter: %s", v->filter < 0 ? "all severities" : v->filter == SEV_WARNING ? "warnings and errors"
												       : "errors only");
}

static bool rank_matches(view *v, size_t i, const char *q)
{
	const rrank *r = &v->rw.r[i];
	strbuf b = { 0 };
	const char *host = model_host(v->m, r->proc);
	sb_printf(&b, "r%d rank %d %s %s ", r->rank, r->rank, host ? host : "", phase_name(v->m->procs[r->proc].phase));
	view_last_line(v, i, &b);
	bool hit = strcasestr(b.p, q) != NULL;
	sb_free(&b);
	return hit;
}

static bool finding_matches(const view *v, size_t k, const char *q)
{
	const finding *f = &v->m->fs.v[v->fvis[k]];
	strbuf b = { 0 };
	sb_printf(&b, "%s [%s] ", severity_name(f->severity), f->id);
	panes_finding_line(v->m, f, &b);
	if (f->hint)
		sb_adds(&b, f->hint);
	bool hit = strcasestr(b.p, q) != NULL;
	sb_free(&b);
	return hit;
}

static bool search_raw(view *v, const char *q, int dir)
{
	lineidx *x = &v->idx[v->raw_file];
	uint64_t total = v->m->in[v->raw_file].lines, ln = v->raw_mark;
	unsigned limit = dir > 0 ? RAW_SEARCH_AHEAD : RAW_SEARCH_BACK;
	strbuf b = { 0 };
	bool hit = false;
	for (unsigned k = 0; k < limit; k++) {
		if ((dir > 0 && ln >= total) || (dir < 0 && ln <= 1))
			break;
		ln = dir > 0 ? ln + 1 : ln - 1;
		sb_clear(&b);
		if (lineidx_get(x, ln, &b) != 0)
			break;
		if (b.p && strcasestr(b.p, q)) {
			v->raw_mark = ln;
			v->raw_top = 0;
			hit = true;
			break;
		}
	}
	sb_free(&b);
	return hit;
}

static bool search_summary(view *v, const char *q, int dir)
{
	strbuf b = { 0 };
	panes_detail_text(v, &b);
	long n = 0, best = -1;
	for (const char *s = b.p; s && *s; n++) {
		const char *nl = strchr(s, '\n');
		size_t len = nl ? (size_t)(nl - s) : strlen(s);
		char *line = xstrndup(s, len);
		if (strcasestr(line, q) && ((dir > 0 && n > v->dt_top && best < 0) || (dir < 0 && n < v->dt_top)))
			best = n;
		free(line);
		s = nl ? nl + 1 : s + len;
	}
	sb_free(&b);
	if (best >= 0)
		v->dt_top = best;
	return best >= 0;
}

/* Moves to the next (dir 1) or previous (-1) match of q in the focused
 * pane, wrapping around the timeline and the findings. */
static void search(view *v, const char *q, int dir)
{
	if (!q[0]) {
		view_status(v, "no search yet: / then text");
		return;
	}
	bool hit = false;
	if (v->focus == PANE_DETAIL) {
		hit = v->dmode == DET_RAW ? search_raw(v, q, dir) : search_summary(v, q, dir);
	} else if (v->focus == PANE_FINDINGS) {
		long n = (long)v->nfvis;
		for (long k = 1; k <= n && !hit; k++) {
			long i = ((v->fd_cur + dir * k) % n + n) % n;
			if (finding_matches(v, (size_t)i, q)) {
				select_finding(v, i);
				hit = true;
			}
		}
	} else {
		long n = (long)v->rw.nr, cur = cursor_rank(v);
		if (cur >= 0 && v->rw.vis[v->tl_cur].group && dir > 0)
			cur--; /* on a group row: its first rank is next */
		for (long k = 1; k <= n && !hit; k++) {
			long i = ((cur + dir * k) % n + n) % n;
			if (rows_pass(&v->rw, (size_t)i, v->filter) && rank_matches(v, (size_t)i, q)) {
				goto_rank(v, (size_t)i);
				hit = true;
			}
		}
	}
	if (!hit)
		view_status(v, "not found: %s", q);
}

/* e/E, w/W: the next rank or finding of a kind. */
static void jump(view *v, bool errors, int dir)
{
	if (v->focus == PANE_DETAIL && v->dmode == DET_RAW) {
		search(v, errors ? "error" : " WARN ", dir);
		return;
	}
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
		if ((v->rw.r[i].flags & want) && rows_pass(&v->rw, (size_t)i, v->filter)) {
			v->focus = PANE_TIMELINE;
			goto_rank(v, (size_t)i);
			return;
		}
	}
	view_status(v, errors ? "no rank stopped, failed or timed out" : "no rank warned or missed Init COMPLETE");
}

static void prompt_key(view *v, int ch)
{
	if (ch == KEY_ESC) {
		v->prompting = false;
	} else if (ch == '\n' || ch == '\r' || ch == KEY_ENTER) {
		v->prompting = false;
		if (v->input.n) {
			size_t n = v->input.n < sizeof v->query - 1 ? v->input.n : sizeof v->query - 1;
			memcpy(v->query, v->input.p, n);
			v->query[n] = 0;
		}
		search(v, v->query, 1);
	} else if (ch == KEY_BACKSPACE || ch == 127 || ch == 8) {
		if (v->input.n)
			v->input.p[--v->input.n] = 0;
		else
			v->prompting = false;
	} else if (ch >= 0x20 && ch < 0x100 && ch != 0x7f && v->input.n < sizeof v->query - 1) {
		sb_addc(&v->input, (char)ch);
	}
}

static void enter(view *v)
{
	if (v->focus == PANE_FINDINGS || (v->focus == PANE_DETAIL && v->dmode == DET_FINDING)) {
		const finding *f = view_finding(v);
		for (size_t i = 0; f && i < f->nev; i++)
			if (f->ev[i].file >= 0) {
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

static void back(view *v)
{
	if (v->dmode != DET_RAW)
		return;
	v->focus = v->from;
	v->dmode = v->from == PANE_FINDINGS ? DET_FINDING : DET_RANK;
}

/* Up, down, page, first, last in the focused pane. */
static void move_in_pane(view *v, int ch)
{
	long step;
	switch (ch) {
	case 'j': case KEY_DOWN: step = 1; break;
	case 'k': case KEY_UP: step = -1; break;
	case KEY_NPAGE: case KEY_PPAGE: step = 0; break;
	case 'g': case KEY_HOME: step = -(1L << 40); break;
	case 'G': case KEY_END: step = 1L << 40; break;
	default: return;
	}
	if (v->focus == PANE_TIMELINE) {
		long page = timeline_page(v);
		if (ch == KEY_NPAGE || ch == KEY_PPAGE) {
			step = ch == KEY_NPAGE ? page : -page;
			v->tl_top += step;
			if (v->tl_top < 0)
				v->tl_top = 0;
		}
		select_row(v, v->tl_cur + step);
	} else if (v->focus == PANE_FINDINGS) {
		long page = v->fd_h > 1 ? v->fd_h - 1 : 1;
		if (ch == KEY_NPAGE || ch == KEY_PPAGE)
			step = ch == KEY_NPAGE ? page : -page;
		select_finding(v, v->fd_cur + step);
	} else if (v->dmode == DET_RAW) {
		long page = v->dt_h > 1 ? v->dt_h - 1 : 1;
		if (ch == KEY_NPAGE || ch == KEY_PPAGE)
			step = ch == KEY_NPAGE ? page : -page;
		uint64_t total = v->m->in[v->raw_file].lines;
		long long top = (long long)v->raw_top + step;
		if (top > (long long)total - page + 1)
			top = (long long)total - page + 1;
		if (top < 1)
			top = 1;
		v->raw_top = (uint64_t)top;
	} else {
		long page = v->dt_h > 1 ? v->dt_h - 1 : 1;
		if (ch == KEY_NPAGE || ch == KEY_PPAGE)
			step = ch == KEY_NPAGE ? page : -page;
		long n = panes_detail_len(v), top = v->dt_top + step;
		if (top > n - page)
			top = n - page;
		v->dt_top = top < 0 ? 0 : top;
	}
}

static void next_pane(view *v, int dir)
{
	v->focus = (enum pane)(((int)v->focus + dir + PANE_COUNT) % PANE_COUNT);
	if (v->focus == PANE_TIMELINE)
		v->dmode = DET_RANK;
	else if (v->focus == PANE_FINDINGS)
		v->dmode = DET_FINDING;
	v->dt_top = 0;
}

void keys_handle(view *v, int ch)
{
	if (ch == KEY_RESIZE)
		return; /* the next draw reads the new size */
	if (v->help) {
		v->help = false;
		return;
	}
	if (v->prompting) {
		prompt_key(v, ch);
		return;
	}
	sb_clear(&v->msg);
	switch (ch) {
	case 'q': case 'Q': v->quit = true; break;
	case '?': case KEY_F(1): v->help = true; break;
	case '\t': next_pane(v, 1); break;
	case KEY_BTAB: next_pane(v, -1); break;
	case '/': v->prompting = true; sb_clear(&v->input); break;
	case 'n': search(v, v->query, 1); break;
	case 'N': search(v, v->query, -1); break;
	case 'e': jump(v, true, 1); break;
	case 'E': jump(v, true, -1); break;
	case 'w': jump(v, false, 1); break;
	case 'W': jump(v, false, -1); break;
	case 'f': cycle_filter(v); break;
	case 'c': toggle_all(v); break;
	case ' ':
		if (v->focus == PANE_TIMELINE)
			toggle_group(v);
		else
			move_in_pane(v, KEY_NPAGE);
		break;
	case '\n': case '\r': case KEY_ENTER: case 'l': case KEY_RIGHT: enter(v); break;
	case KEY_ESC: case KEY_BACKSPACE: case 127: case 'h': case KEY_LEFT: back(v); break;
	default: move_in_pane(v, ch); break;
	}
}
