#include "panes.h"

#include <curses.h>
#include <stdio.h>
#include <string.h>

#include "../parser/record.h"

static int focus_attr(const view *v, enum pane p)
{
	return v->focus == p ? term_attr(v->t, RL_TITLE) : (int)(A_BOLD | A_UNDERLINE);
}

static enum role sev_role(enum severity s)
{
	return s == SEV_ERROR ? RL_ERROR : s == SEV_WARNING ? RL_WARNING : RL_INFO;
}

void panes_header(view *v)
{
	const term *t = v->t;
	const model *m = v->m;
	jobinfo j;
	model_jobinfo(m, &j);
	strbuf b = { 0 }, raw = { 0 };
	sb_adds(&raw, v->live ? " ncclog live  " : " ncclog view  ");
	if (j.nranks)
		sb_printf(&raw, "%d/%d ranks", j.ranks_seen, j.nranks);
	else
		sb_printf(&raw, "%zu processes", v->rw.nr);
	sb_printf(&raw, "  %zu host%s", j.hosts.n, j.hosts.n == 1 ? "" : "s");
	if (j.versions.n) {
		sb_adds(&raw, "  NCCL ");
		for (size_t i = 0; i < j.versions.n; i++)
			sb_printf(&raw, "%s%s", i ? "/" : "", intern_str(&m->str, j.versions.v[i]));
	}
	size_t cnt[3] = { 0 };
	for (size_t i = 0; i < m->fs.n; i++)
		cnt[m->fs.v[i].severity]++;
	term_escape(t, &b, (slice){ raw.p, raw.n });
	int a = term_attr(t, RL_TITLE);
	term_blank(0, 0, v->W, a);
	int x = term_put(t, 0, 0, v->W, b.p, a);
	char c[96];
	snprintf(c, sizeof c, "  %zu error%s %zu warning%s %zu info", cnt[SEV_ERROR], cnt[SEV_ERROR] == 1 ? "" : "s",
		 cnt[SEV_WARNING], cnt[SEV_WARNING] == 1 ? "" : "s", cnt[SEV_INFO]);
	x += term_put(t, 0, x, v->W - x, c, a);
	if (v->state) {
		snprintf(c, sizeof c, "  %s", v->state);
		term_put(t, 0, x, v->W - x, c, a | A_BOLD);
	}
	jobinfo_free(&j);
	/* the legend: what the markers mean, readable without colour */
	term_blank(1, 0, v->W, A_NORMAL);
	sb_clear(&b);
	bool wide = v->W >= 110;
	sb_printf(&b, "%s ", wide ? " ! stopped early  ~ no Init COMPLETE " : " !stopped ~no-init ");
	const struct { enum glyph g; const char *w, *n; } leg[] = {
		{ G_WARN, "WARN", "warn" }, { G_ERROR, "error", "error" }, { G_TIMEOUT, "timeout", "timeout" },
		{ G_ABORT, "abort", "abort" }, { G_LAST, "last line", "last" } };
	for (size_t i = 0; i < sizeof leg / sizeof leg[0]; i++)
		sb_printf(&b, "%s%s%s ", wide ? " " : "", term_glyph(t, leg[i].g), wide ? leg[i].w : leg[i].n);
	sb_printf(&b, " axis: %s", v->rw.timed ? "time" : "phases");
	if (v->filter >= 0)
		sb_printf(&b, "  filter: %s+", severity_name((enum severity)v->filter));
	term_put(t, 1, 0, v->W, b.p, term_attr(t, RL_DIM) | A_BOLD);
	sb_free(&b);
	sb_free(&raw);
}

void panes_finding_line(const model *m, const finding *f, strbuf *b)
{
	if (f->procs.n && !f->scoped) {
		model_describe(m, &f->procs, b);
		sb_adds(b, ": ");
	}
	sb_adds(b, f->message ? f->message : f->title);
}

void panes_findings(view *v)
{
	const term *t = v->t;
	const model *m = v->m;
	if (v->fd_h <= 0)
		return;
	char title[96];
	snprintf(title, sizeof title, " Findings %zu%s%s ", v->nfvis, v->filter >= 0 ? " of " : "",
		 v->filter >= 0 ? "" : "");
	if (v->filter >= 0)
		snprintf(title, sizeof title, " Findings %zu of %zu (%s+) ", v->nfvis, m->fs.n,
			 severity_name((enum severity)v->filter));
	term_blank(v->fd_y, 0, v->W, A_NORMAL);
	term_put(t, v->fd_y, 0, v->W, title, focus_attr(v, PANE_FINDINGS));
	long page = v->fd_h - 1, n = (long)v->nfvis;
	if (v->fd_cur >= n)
		v->fd_cur = n - 1;
	if (v->fd_cur < 0)
		v->fd_cur = 0;
	if (v->fd_top > v->fd_cur)
		v->fd_top = v->fd_cur;
	if (v->fd_cur >= v->fd_top + page)
		v->fd_top = v->fd_cur - page + 1;
	if (v->fd_top < 0)
		v->fd_top = 0;
	strbuf raw = { 0 }, b = { 0 };
	for (long k = 0; k < page; k++) {
		int y = v->fd_y + 1 + (int)k;
		long i = v->fd_top + k;
		bool cur = i == v->fd_cur;
		int base = cur ? (v->focus == PANE_FINDINGS ? A_REVERSE : A_BOLD) : A_NORMAL;
		term_blank(y, 0, v->W, base);
		if (i >= n) {
			if (n == 0 && k == 0)
				term_put(t, y, 2, v->W - 2, "no finding", A_DIM);
			continue;
		}
		const finding *f = &m->fs.v[v->fvis[i]];
		int x = 1;
		char sev[16];
		snprintf(sev, sizeof sev, "%-7s", severity_name(f->severity));
		x += term_put(t, y, x, 8, sev, term_attr(t, sev_role(f->severity)) | base);
		sb_clear(&raw);
		sb_clear(&b);
		sb_printf(&raw, "[%s] ", f->id);
		panes_finding_line(m, f, &raw);
		term_escape(t, &b, (slice){ raw.p, raw.n });
		term_put(t, y, x, v->W - x, b.p, base);
	}
	sb_free(&raw);
	sb_free(&b);
}

/* Appends raw text of several lines to b, each line escaped on its own. */
static void escape_lines(const term *t, strbuf *b, const strbuf *raw)
{
	const char *s = raw->p, *end = raw->p + raw->n;
	while (s && s < end) {
		const char *nl = memchr(s, '\n', (size_t)(end - s));
		size_t n = nl ? (size_t)(nl - s) : (size_t)(end - s);
		term_escape(t, b, (slice){ s, n });
		if (nl)
			sb_addc(b, '\n');
		s += n + 1;
	}
}

/* "file:line: " then the raw line read back, safe to draw. */
static void raw_line(view *v, int file, uint64_t line, uint64_t off, bool have_off, const char *fallback,
		     strbuf *b)
{
	strbuf raw = { 0 };
	const model *m = v->m;
	if (file >= 0 && (size_t)file < m->nin) {
		sb_printf(&raw, "%s:%llu: ", m->in[file].name, (unsigned long long)line);
		term_escape(v->t, b, (slice){ raw.p, raw.n });
		sb_clear(&raw);
		int rc = have_off ? lineidx_read(&v->idx[file], off, &raw) : lineidx_get(&v->idx[file], line, &raw);
		if (rc != 0 && fallback)
			sb_adds(&raw, fallback);
	} else if (fallback) {
		sb_adds(&raw, fallback);
	}
	term_escape(v->t, b, (slice){ raw.p ? raw.p : "", raw.n });
	sb_addc(b, '\n');
	sb_free(&raw);
}

/* A rank whose input is a pipe: its raw lines are gone, but the model kept
 * copies of its key lines and the findings carry their evidence. */
static void copies_text(view *v, int pi, strbuf *b)
{
	const model *m = v->m;
	const evref *c[VIEW_COPIES];
	size_t n = view_copies(&m->procs[pi], c);
	strbuf raw = { 0 };
	sb_adds(&raw, "raw lines of standard input are not kept; what the model kept of this rank:\n");
	for (size_t i = 0; i < n; i++)
		sb_printf(&raw, "  %s:%llu: %s\n", m->in[c[i]->file].name, (unsigned long long)c[i]->line, c[i]->text);
	for (size_t k = 0; k < m->fs.n; k++) {
		const finding *f = &m->fs.v[k];
		if (!intset_has(&f->procs, pi))
			continue;
		for (size_t i = 0; i < f->nev; i++) {
			bool dup = false;
			for (size_t k2 = 0; k2 < n; k2++)
				dup |= c[k2]->file == f->ev[i].file && c[k2]->line == f->ev[i].line;
			if (f->ev[i].proc != pi || !f->ev[i].text || dup)
				continue;
			sb_printf(&raw, "  [%s] ", f->id);
			if (f->ev[i].file >= 0 && (size_t)f->ev[i].file < m->nin)
				sb_printf(&raw, "%s:%llu: ", m->in[f->ev[i].file].name, (unsigned long long)f->ev[i].line);
			sb_printf(&raw, "%s\n", f->ev[i].text);
		}
	}
	escape_lines(v->t, b, &raw);
	sb_free(&raw);
}

static void rank_text(view *v, strbuf *b)
{
	long ri = view_rank(v);
	if (ri < 0) {
		sb_adds(b, "select a rank in the timeline (j/k), or a host group (Enter collapses it)\n");
		return;
	}
	const model *m = v->m;
	const rrank *r = &v->rw.r[ri];
	const proc *p = &m->procs[r->proc];
	strbuf raw = { 0 };
	if (r->rank >= 0)
		sb_printf(&raw, "rank %d", r->rank);
	if (p->nranks > 0)
		sb_printf(&raw, " of %d", p->nranks);
	const char *host = model_host(m, r->proc);
	sb_printf(&raw, "  host %s  pid %ld", host ? host : "?", p->pid);
	if (p->dev >= 0)
		sb_printf(&raw, "  cuda %d", p->dev);
	if (v->live && p->last_wall > 0) {
		char age[16];
		view_age(v, p->last_wall, age, sizeof age);
		sb_printf(&raw, "  heard %s ago", age);
	}
	sb_printf(&raw, "  phase %s", phase_name(p->phase));
	if (p->version >= 0)
		sb_printf(&raw, "  NCCL %s", intern_str(&m->str, p->version));
	if (p->boot.name >= 0)
		sb_printf(&raw, "  iface %s %s", intern_str(&m->str, p->boot.name), intern_str(&m->str, p->boot.addr));
	if (p->net >= 0)
		sb_printf(&raw, "  net %s", intern_str(&m->str, p->net));
	sb_addc(&raw, '\n');
	sb_adds(&raw, "status:");
	if (r->flags & RF_STOPPED) {
		static const char *const why[] = {
			[STOP_NONE] = "", [STOP_LATE] = "its last line is long before the other ranks' last lines",
			[STOP_PHASE] = "other ranks got to a later phase",
			[STOP_FEWER] = "it logged less of this phase than the other ranks",
			[STOP_NO_REPORT] = "the other ranks' watchdogs reported a timeout, it did not",
			[STOP_FINDING] = "named by a straggler finding",
			[STOP_SILENT] = "named by rank-silent: quiet while the other ranks kept logging" };
		sb_printf(&raw, " STOPPED EARLY (%s);", why[r->why]);
	}
	if (r->flags & RF_NOINIT)
		sb_adds(&raw, " never logged Init COMPLETE;");
	if (r->flags & RF_ERROR)
		sb_adds(&raw, " failed with an error;");
	if (r->flags & RF_TIMEOUT)
		sb_adds(&raw, " timed out;");
	if (r->flags & RF_ABORT)
		sb_adds(&raw, " aborted;");
	if (r->flags & RF_WARN)
		sb_adds(&raw, " logged WARN;");
	if (!(r->flags & (RF_STOPPED | RF_NOINIT | RF_ERROR | RF_TIMEOUT | RF_ABORT | RF_WARN)))
		sb_adds(&raw, " ok;");
	sb_printf(&raw, " %llu lines\n", (unsigned long long)p->nlines);
	size_t nf = 0;
	for (size_t k = 0; k < m->fs.n; k++)
		if (intset_has(&m->fs.v[k].procs, r->proc))
			sb_printf(&raw, "%s%s[%s]", nf++ ? " " : "findings: ", severity_name(m->fs.v[k].severity),
				  m->fs.v[k].id);
	if (nf)
		sb_addc(&raw, '\n');
	escape_lines(v->t, b, &raw);
	if (p->nlines && !view_kept(v, p->last_file)) {
		copies_text(v, r->proc, b);
		sb_free(&raw);
		return;
	}
	unsigned nrec = p->nrecent < PROC_RECENT ? p->nrecent : PROC_RECENT;
	if (p->nlines && (!nrec || p->recent[(p->nrecent - 1) % PROC_RECENT].line != p->last_line)) {
		sb_adds(b, "its last line of any kind:\n  ");
		raw_line(v, p->last_file, p->last_line, 0, false, NULL, b);
	}
	sb_printf(b, "its last %u NCCL lines, newest first (Enter: the file around its last line):\n", nrec);
	for (unsigned k = 1; k <= nrec; k++) {
		const lineref *lr = &p->recent[(p->nrecent - k) % PROC_RECENT];
		sb_adds(b, "  ");
		raw_line(v, lr->file, lr->line, lr->off, true, NULL, b);
	}
	sb_free(&raw);
}

static void finding_text(view *v, strbuf *b)
{
	const finding *f = view_finding(v);
	if (!f) {
		sb_adds(b, "no finding selected\n");
		return;
	}
	const model *m = v->m;
	strbuf raw = { 0 };
	sb_printf(&raw, "%s[%s]: ", severity_name(f->severity), f->id);
	panes_finding_line(m, f, &raw);
	sb_addc(&raw, '\n');
	if (f->hint)
		sb_printf(&raw, "help: %s\n", f->hint);
	if (f->cause >= 0 && (size_t)f->cause < m->fs.n)
		sb_printf(&raw, "note: likely a consequence of %s[%s]\n",
			  severity_name(m->fs.v[f->cause].severity), m->fs.v[f->cause].id);
	if (f->procs.n) {
		sb_adds(&raw, "ranks marked * in the timeline: ");
		model_describe(m, &f->procs, &raw);
		sb_addc(&raw, '\n');
	}
	escape_lines(v->t, b, &raw);
	sb_printf(b, "evidence (Enter: the file around it):\n");
	for (size_t i = 0; i < f->nev; i++) {
		sb_adds(b, "  ");
		raw_line(v, f->ev[i].file, f->ev[i].line, 0, false, f->ev[i].text, b);
	}
	sb_free(&raw);
}

void panes_detail_text(view *v, strbuf *b)
{
	if (v->dmode == DET_FINDING)
		finding_text(v, b);
	else
		rank_text(v, b);
}

/* Splits safe text into lines that fit `cols`, calling fn for each. */
static long wrap(const term *t, const char *s, int cols, void (*fn)(void *, long, const char *, size_t), void *ctx)
{
	long n = 0;
	while (s && *s) {
		const char *nl = strchr(s, '\n');
		size_t len = nl ? (size_t)(nl - s) : strlen(s);
		char *line = xstrndup(s, len);
		const char *p = line;
		/* raw log lines (indented) are cut, so that more of them fit */
		bool cut = len > 2 && line[0] == ' ' && line[1] == ' ';
		do {
			size_t k = term_fit(t, p, cols, NULL);
			if (!k && *p)
				k = 1; /* a character wider than the pane */
			if (fn)
				fn(ctx, n, p, k);
			n++;
			p += cut ? strlen(p) : k;
		} while (*p);
		free(line);
		s = nl ? nl + 1 : s + len;
	}
	return n;
}

typedef struct drawctx {
	view *v;
	long top;
} drawctx;

static void draw_wrapped(void *ctx, long n, const char *p, size_t k)
{
	drawctx *d = ctx;
	view *v = d->v;
	long row = n - d->top;
	if (row < 0 || row >= v->dt_h - 1)
		return;
	char *s = xstrndup(p, k);
	bool head = p[0] != ' ' || n == 0;
	term_put(v->t, v->dt_y + 1 + (int)row, 1, v->W - 1, s, head && v->dmode == DET_FINDING && n == 0 ? A_BOLD : 0);
	free(s);
}

long panes_detail_len(view *v)
{
	if (v->dmode == DET_RAW)
		return v->raw_file >= 0 ? (long)v->m->in[v->raw_file].lines : 0;
	strbuf b = { 0 };
	panes_detail_text(v, &b);
	long n = wrap(v->t, b.p, v->W - 1, NULL, NULL);
	sb_free(&b);
	return n;
}

static bool evidence_line(const view *v, int file, uint64_t line)
{
	const finding *f = view_finding(v);
	if (!f || v->focus == PANE_TIMELINE)
		return false;
	for (size_t i = 0; i < f->nev; i++)
		if (f->ev[i].file == file && f->ev[i].line == line)
			return true;
	return false;
}

static void detail_raw(view *v)
{
	const term *t = v->t;
	lineidx *x = &v->idx[v->raw_file];
	uint64_t total = v->m->in[v->raw_file].lines;
	strbuf raw = { 0 }, b = { 0 };
	for (int k = 0; k < v->dt_h - 1; k++) {
		int y = v->dt_y + 1 + k;
		uint64_t ln = v->raw_top + (uint64_t)k;
		term_blank(y, 0, v->W, A_NORMAL);
		if (ln > total)
			continue;
		sb_clear(&raw);
		sb_clear(&b);
		lineidx_get(x, ln, &raw);
		bool mark = ln == v->raw_mark, ev = evidence_line(v, v->raw_file, ln);
		char num[32];
		snprintf(num, sizeof num, "%c%6llu ", mark || ev ? '>' : ' ', (unsigned long long)ln);
		int a = mark || ev ? term_attr(t, RL_HILITE) : 0;
		int used = term_put(t, y, 0, v->W, num, a ? a : term_attr(t, RL_DIM));
		if (v->query[0] && raw.p && strcasestr(raw.p, v->query))
			a |= A_BOLD;
		term_escape(t, &b, (slice){ raw.p ? raw.p : "", raw.n });
		term_put(t, y, used, v->W - used, b.p, a);
	}
	sb_free(&raw);
	sb_free(&b);
}

void panes_detail(view *v)
{
	if (v->dt_h <= 0)
		return;
	const term *t = v->t;
	strbuf title = { 0 }, b = { 0 };
	if (v->dmode == DET_RAW) {
		sb_printf(&title, " %s  line %llu of %llu  (Esc: back) ", v->m->in[v->raw_file].name,
			  (unsigned long long)v->raw_mark, (unsigned long long)v->m->in[v->raw_file].lines);
	} else {
		sb_adds(&title, v->dmode == DET_FINDING ? " Finding " : " Rank ");
	}
	term_escape(t, &b, (slice){ title.p, title.n });
	term_blank(v->dt_y, 0, v->W, A_NORMAL);
	term_put(t, v->dt_y, 0, v->W, b.p, focus_attr(v, PANE_DETAIL));
	if (v->dmode == DET_RAW) {
		detail_raw(v);
	} else {
		for (int k = 1; k < v->dt_h; k++)
			term_blank(v->dt_y + k, 0, v->W, A_NORMAL);
		sb_clear(&b);
		panes_detail_text(v, &b);
		drawctx d = { v, v->dt_top };
		long n = wrap(t, b.p, v->W - 1, draw_wrapped, &d);
		v->dt_lines = (size_t)n;
	}
	sb_free(&title);
	sb_free(&b);
}

void panes_status(view *v)
{
	const term *t = v->t;
	int y = v->H - 1;
	term_blank(y, 0, v->W, A_NORMAL);
	strbuf b = { 0 };
	if (v->prompting) {
		sb_addc(&b, '/');
		term_escape(t, &b, (slice){ v->input.p ? v->input.p : "", v->input.n });
		int used = term_put(t, y, 0, v->W - 1, b.p, A_BOLD);
		term_put(t, y, used, 1, "_", A_BLINK);
	} else if (v->msg.n) {
		term_put(t, y, 0, v->W, v->msg.p, A_BOLD);
	} else {
		term_put(t, y, 0, v->W,
			 v->W >= 100 ? " j/k move  Tab pane  Enter open  / search  n/N next  e/w errors/warnings  "
				       "f filter  c collapse  ? help  q quit"
				     : " Tab pane  Enter open  / search  e/w err/warn  f filter  ? help  q quit",
			 term_attr(t, RL_DIM));
	}
	sb_free(&b);
}

void panes_help(view *v)
{
	static const char *const lines[] = {
		"ncclog view: keys",
		"",
		"j k  Down Up     move            g G  Home End   first / last",
		"PgUp PgDn        page            Tab  Shift-Tab  next / previous pane",
		"Enter            timeline: open the rank's raw lines, or fold a host",
		"                 findings: open the evidence in its file",
		"Esc  Backspace   back from raw lines",
		"space            fold or unfold a host group; c: all groups",
		"/ text  n N      search (ranks, hosts, findings, raw lines)",
		"e E  w W         next / previous error, warning",
		"f                filter by severity: all, warning+, error",
		"?                this help          q  quit",
		"",
		"markers: ! stopped early (behind the other ranks)",
		"         ~ never logged Init COMPLETE    * named by the selected finding",
		"",
		"press any key",
	};
	int n = (int)(sizeof lines / sizeof lines[0]), w = 72;
	if (w > v->W - 2)
		w = v->W - 2;
	int h = n + 2 < v->H ? n + 2 : v->H, y0 = (v->H - h) / 2, x0 = (v->W - w) / 2;
	for (int k = 0; k < h; k++)
		term_blank(y0 + k, x0, w, A_REVERSE);
	for (int k = 0; k < n && k + 1 < h - 1; k++)
		term_put(v->t, y0 + 1 + k, x0 + 2, w - 4, lines[k], A_REVERSE | (k == 0 ? A_BOLD : 0));
}

void panes_progress(const term *t, uint64_t done, uint64_t total, const char *name)
{
	int H = LINES, W = COLS;
	erase();
	int w = W - 20 < 60 ? W - 20 : 60;
	if (w < 10)
		w = 10;
	int y = H / 2 - 1, x = (W - w) / 2;
	char msg[128];
	double f = total ? (double)done / (double)total : 0;
	if (f > 1)
		f = 1;
	snprintf(msg, sizeof msg, "reading logs: %3d%%  %.1f of %.1f MiB", (int)(f * 100), (double)done / 1048576.0,
		 (double)total / 1048576.0);
	term_put(t, y - 1, x, w, msg, A_BOLD);
	int full = (int)(f * w);
	for (int i = 0; i < w; i++)
		term_put(t, y, x + i, 1, term_glyph(t, i < full ? G_BAR_FULL : G_BAR_EMPTY), term_attr(t, RL_BAR));
	strbuf b = { 0 };
	term_escape(t, &b, slice_from(name));
	term_put(t, y + 1, x, w, b.p, A_DIM);
	sb_free(&b);
	refresh();
}
