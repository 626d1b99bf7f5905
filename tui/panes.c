#include "panes.h"

#include <curses.h>
#include <stdio.h>
#include <string.h>

#include "../model/frmatch.h"
#include "../parser/record.h"
#include "../report/report.h"
#include "draw.h"
#include "keys.h"

/* The ranks that left a Flight Recorder dump. */
static size_t fr_dumps(const model *m)
{
	size_t n = 0;
	for (size_t i = 0; m->fr && i < m->fr->nranks; i++)
		n += m->fr->ranks[i].has_dump;
	return n;
}

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
	size_t fr_only = 0;
	for (size_t i = 0; i < v->rw.nr; i++)
		fr_only += v->rw.r[i].proc < 0;
	if (j.nranks)
		sb_printf(&raw, "%d/%d ranks", j.ranks_seen, j.nranks);
	else if (fr_only && fr_only == v->rw.nr)
		sb_printf(&raw, "%zu rank%s from dumps alone", fr_only, fr_only == 1 ? "" : "s");
	else
		sb_printf(&raw, "%zu process%s", v->rw.nr, v->rw.nr == 1 ? "" : "es");
	sb_printf(&raw, "  %zu host%s", j.hosts.n, j.hosts.n == 1 ? "" : "s");
	if (j.versions.n) {
		sb_adds(&raw, "  NCCL ");
		for (size_t i = 0; i < j.versions.n; i++)
			sb_printf(&raw, "%s%s", i ? "/" : "", intern_str(&m->str, j.versions.v[i]));
	}
	if (m->fr)
		sb_printf(&raw, "  FR dumps %zu", fr_dumps(m));
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
	sb_clear(&raw);
	filter_describe(&v->flt, &raw);
	if (raw.n) {
		sb_clear(&b);
		sb_adds(&b, "  filter: ");
		term_escape(t, &b, (slice){ raw.p, raw.n });
		x += term_put(t, 0, x, v->W - x, b.p, a | A_BOLD);
	}
	if (v->state) {
		snprintf(c, sizeof c, "  %s", v->state);
		term_put(t, 0, x, v->W - x, c, a | A_BOLD);
	}
	jobinfo_free(&j);
	sb_free(&b);
	sb_free(&raw);
}

/* "inferred", "suspected": how a finding is known, when not stated by a line. */
static const char *confidence_word(enum confidence c)
{
	return c == CONF_INFERRED ? "inferred" : c == CONF_SUSPECTED ? "suspected" : "established";
}

void panes_findings(view *v)
{
	const term *t = v->t;
	const model *m = v->m;
	if (v->fd_h <= 0)
		return;
	char title[96];
	snprintf(title, sizeof title, " Findings %zu ", v->nfvis);
	if (v->nfvis != m->fs.n)
		snprintf(title, sizeof title, " Findings %zu of %zu (filtered) ", v->nfvis, m->fs.n);
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
				term_put(t, y, 2, v->W - 2, m->fs.n ? "no finding passes the filter (\\ then Enter clears it)"
								    : "no finding", A_DIM);
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
		if (f->confidence != CONF_ESTABLISHED)
			sb_printf(&raw, "(%s) ", confidence_word(f->confidence));
		report_message(m, f, &raw);
		term_escape(t, &b, (slice){ raw.p, raw.n });
		term_put_from(t, y, x, v->W - x, v->hscroll, b.p, base);
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
		/* line 0: an input without lines (a Flight Recorder dump) */
		if (line)
			sb_printf(&raw, "%s:%llu: ", m->in[file].name, (unsigned long long)line);
		else
			sb_printf(&raw, "%s: ", m->in[file].name);
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

static void fr_entry_text(strbuf *b, const frmatch_report *fr, const frm_entry *e)
{
	const char *pg = e->pg >= 0 && (size_t)e->pg < fr->npgs ? fr->pgs[e->pg].desc : NULL;
	if (!pg || !*pg || strcmp(pg, "undefined") == 0)
		pg = e->pg >= 0 && (size_t)e->pg < fr->npgs ? fr->pgs[e->pg].name : "?";
	sb_printf(b, "%s #%lld %s %s", pg, (long long)(e->is_p2p ? e->p2p_seq : e->seq), e->sig.op,
		  fr_state_name(e->state));
	if (e->sig.in_sizes[0])
		sb_printf(b, " %s", e->sig.in_sizes);
	if (e->sig.in_dtypes[0])
		sb_printf(b, " %s", e->sig.in_dtypes);
	if (e->has_duration)
		sb_printf(b, " %.3g ms", e->duration_ms);
}

/* What the rank's Flight Recorder dump says: where it waits, how it stands
 * in the groups that hang, its last entries and frames. */
static void fr_text(const model *m, const rrank *r, strbuf *b)
{
	const frmatch_report *fr = m->fr;
	if (!fr || r->rank < 0)
		return;
	const frm_rank *k = frm_report_rank(fr, r->rank);
	if (!k || !k->has_dump) {
		sb_printf(b, "Flight Recorder: no dump of rank %d among the dumps given\n", r->rank);
	} else {
		sb_printf(b, "Flight Recorder: %s, %zu entries", k->file ? k->file : "dump", k->nentries);
		if (k->version[0])
			sb_printf(b, ", version %s", k->version);
		sb_addc(b, '\n');
		if (k->has_pending) {
			sb_adds(b, "  waiting in ");
			fr_entry_text(b, fr, &k->pending);
			sb_addc(b, '\n');
		}
		if (k->timed_out) {
			sb_adds(b, "  timed out in ");
			fr_entry_text(b, fr, &k->timeout);
			sb_addc(b, '\n');
		}
	}
	for (size_t gi = 0; gi < fr->npgs; gi++) {
		const frm_pg *g = &fr->pgs[gi];
		const frm_member *mb = g->stuck ? frm_pg_member(g, r->rank) : NULL;
		if (!mb)
			continue;
		const char *name = g->desc && *g->desc && strcmp(g->desc, "undefined") != 0 ? g->desc : g->name;
		sb_printf(b, "  in %s #%lld (%s, the collective that never completed everywhere): %s", name,
			  (long long)g->stuck_seq, g->stuck_sig_known ? g->stuck_sig.op : "?", frm_standing_name(mb->standing));
		if (mb->standing == FRM_MISSING)
			sb_adds(b, ", it never called it: BEHIND");
		if (mb->last_completed >= 0)
			sb_printf(b, "; last completed #%lld of %lld in the group", (long long)mb->last_completed,
				  (long long)g->max_completed);
		sb_addc(b, '\n');
	}
	if (!k || !k->has_dump)
		return;
	if (k->nframes) {
		sb_adds(b, "  last seen at:");
		for (int i = 0; i < k->nframes; i++)
			sb_printf(b, "%s %s:%lld in %s", i ? ";" : "", k->frames[i].file, (long long)k->frames[i].line,
				  k->frames[i].name);
		sb_addc(b, '\n');
	}
	if (k->nlast) {
		sb_printf(b, "  its last %d entries, newest first:\n", k->nlast);
		for (int i = k->nlast - 1; i >= 0; i--) {
			sb_adds(b, "    ");
			fr_entry_text(b, fr, &k->last[i]);
			sb_addc(b, '\n');
		}
	}
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
	const proc *p = rows_proc(&v->rw, r);
	strbuf raw = { 0 };
	if (r->proc < 0) {
		sb_printf(&raw, "rank %d: no log of it was given; what its Flight Recorder dump says:\n", r->rank);
		if (r->flags & RF_STOPPED)
			sb_adds(&raw, "status: STOPPED EARLY (the Flight Recorder dumps show it behind the other ranks)\n");
		fr_text(m, r, &raw);
		escape_lines(v->t, b, &raw);
		sb_free(&raw);
		return;
	}
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
			[STOP_SILENT] = "named by rank-silent: quiet while the other ranks kept logging",
			[STOP_FR] = "the Flight Recorder dumps show it behind the other ranks" };
		if (r->why == STOP_FINDING && r->why_finding >= 0 && (size_t)r->why_finding < m->fs.n)
			sb_printf(&raw, " STOPPED EARLY (named behind the others by %s);", m->fs.v[r->why_finding].id);
		else
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
	fr_text(m, r, &raw);
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
	if (f == &m->fs.v[0] && v->verdict.n) {
		sb_printf(&raw, "verdict: %s\n", v->verdict.p);
		/* "fix: " and the hint, said below */
		if (v->fix.n && !(f->hint && strcmp(v->fix.p + strcspn(v->fix.p, " ") + 1, f->hint) == 0))
			sb_printf(&raw, "%s\n", v->fix.p);
	}
	sb_printf(&raw, "%s[%s]: ", severity_name(f->severity), f->id);
	report_message(m, f, &raw);
	sb_addc(&raw, '\n');
	if (f->hint)
		sb_printf(&raw, "help: %s\n", f->hint);
	sb_printf(&raw, "confidence: %s%s\n", confidence_word(f->confidence),
		  f->confidence == CONF_INFERRED    ? " (derived across ranks, not stated by one line)"
		  : f->confidence == CONF_SUSPECTED ? " (a heuristic's suspicion, not proven)"
						    : " (a line of the logs states it)");
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

typedef struct wrapctx {
	void (*fn)(void *, long, const char *, size_t, bool);
	void *ctx;
	long base;
} wrapctx;

static void wrap_piece(void *ctx, int i, const char *s, size_t k)
{
	wrapctx *w = ctx;
	if (w->fn)
		w->fn(w->ctx, w->base + i, s, k, false);
}

/* Splits safe text into lines that fit `cols`, calling fn for each: raw
 * log lines (indented) are cut, so that more of them fit, and scroll
 * sideways; the rest wraps. */
static long wrap(const term *t, const char *s, int cols, void (*fn)(void *, long, const char *, size_t, bool),
		 void *ctx)
{
	long n = 0;
	while (s && *s) {
		const char *nl = strchr(s, '\n');
		size_t len = nl ? (size_t)(nl - s) : strlen(s);
		char *line = xstrndup(s, len);
		const char *p = line;
		bool cut = len > 2 && line[0] == ' ' && line[1] == ' ';
		if (cut || !*p) {
			if (fn)
				fn(ctx, n, p, strlen(p), cut);
			n++;
		} else {
			wrapctx w = { fn, ctx, n };
			n += draw_fold(t, p, cols, 0, wrap_piece, &w);
		}
		free(line);
		s = nl ? nl + 1 : s + len;
	}
	return n;
}

typedef struct drawctx {
	view *v;
	long top;
} drawctx;

static void draw_wrapped(void *ctx, long n, const char *p, size_t k, bool cut)
{
	drawctx *d = ctx;
	view *v = d->v;
	long row = n - d->top;
	if (row < 0 || row >= v->dt_h - 1)
		return;
	char *s = xstrndup(p, k);
	int attr = v->dmode == DET_FINDING && n == 0 ? A_BOLD : 0;
	int y = v->dt_y + 1 + (int)row;
	if (cut)
		term_put_from(v->t, y, 1, v->W - 1, v->hscroll, s, attr);
	else
		term_put(v->t, y, 1, v->W - 1, s, attr);
	free(s);
}

long panes_detail_len(view *v)
{
	if (v->dmode == DET_RAW)
		return (long)view_lines(v, v->raw_file);
	strbuf b = { 0 };
	panes_detail_text(v, &b);
	long n = wrap(v->t, b.p, v->W - 1, NULL, NULL);
	sb_free(&b);
	return n;
}

static bool evidence_line(const view *v, int file, uint64_t line)
{
	const finding *f = view_finding(v);
	if (!f || v->focus == PANE_TIMELINE || v->from != PANE_FINDINGS)
		return false;
	for (size_t i = 0; i < f->nev; i++)
		if (f->ev[i].file == file && f->ev[i].line == line)
			return true;
	return false;
}

/* Draws a raw line with the matches of the search set off, scrolled
 * sideways by v->hscroll: each part is escaped on its own, so that the
 * offsets of a match are those of the raw bytes. */
static void raw_text(view *v, int y, int x, slice raw, int attr)
{
	const term *t = v->t;
	int cols = v->W - x, skip = v->hscroll;
	strbuf b = { 0 };
	size_t at = 0;
	int hl = term_attr(t, RL_HILITE) | A_REVERSE;
	while (cols > 0 && at <= raw.n) {
		size_t so = raw.n, eo = raw.n;
		bool hit = v->re && search_match(v->re, raw, at, &so, &eo);
		if (hit && eo == so) {
			/* an empty match marks nothing: look on from the next byte */
			if (so >= raw.n)
				hit = false;
			else
				eo = so + 1;
		}
		if (!hit)
			so = eo = raw.n;
		for (int part = 0; part < 2 && cols > 0; part++) {
			slice seg = part == 0 ? (slice){ raw.p + at, so - at } : (slice){ raw.p + so, eo - so };
			if (!seg.n)
				continue;
			sb_clear(&b);
			term_escape(t, &b, seg);
			int w = term_width(t, b.p);
			if (skip >= w) {
				skip -= w;
				continue;
			}
			int used = term_put_from(t, y, x, cols, skip, b.p, part ? hl : attr);
			skip = 0;
			x += used;
			cols -= used;
		}
		if (!hit)
			break;
		at = eo;
	}
	sb_free(&b);
}

static void detail_raw(view *v)
{
	const term *t = v->t;
	lineidx *x = &v->idx[v->raw_file];
	uint64_t total = view_lines(v, v->raw_file);
	strbuf raw = { 0 };
	for (int k = 0; k < v->dt_h - 1; k++) {
		int y = v->dt_y + 1 + k;
		uint64_t ln = v->raw_top + (uint64_t)k;
		term_blank(y, 0, v->W, A_NORMAL);
		if (ln > total)
			continue;
		sb_clear(&raw);
		bool got = lineidx_get(x, ln, &raw) == 0;
		bool mark = ln == v->raw_mark, ev = evidence_line(v, v->raw_file, ln);
		char num[32];
		snprintf(num, sizeof num, "%c%6llu ", mark || ev ? '>' : ' ', (unsigned long long)ln);
		int a = mark || ev ? term_attr(t, RL_HILITE) : 0;
		int used = term_put(t, y, 0, v->W, num, a ? a : term_attr(t, RL_DIM));
		if (!got && x->limit)
			term_put(t, y, used, v->W - used, "(past what the spool kept: analyzed, not shown)", A_DIM);
		else
			raw_text(v, y, used, (slice){ raw.p ? raw.p : "", raw.n }, a);
	}
	sb_free(&raw);
}

void panes_detail(view *v)
{
	if (v->dt_h <= 0)
		return;
	const term *t = v->t;
	strbuf title = { 0 }, b = { 0 };
	if (v->dmode == DET_RAW) {
		sb_printf(&title, " %s  line %llu of %llu", v->m->in[v->raw_file].name, (unsigned long long)v->raw_mark,
			  (unsigned long long)view_lines(v, v->raw_file));
		if (v->hscroll)
			sb_printf(&title, "  from column %d", v->hscroll + 1);
		sb_adds(&title, "  (Esc: back) ");
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
	if (v->prompt != PR_NONE) {
		sb_adds(&b, v->prompt == PR_SEARCH ? "/" : "filter (hosts, r3-7, error): ");
		term_escape(t, &b, (slice){ v->input.p ? v->input.p : "", v->input.n });
		/* the end of what is typed stays in view */
		int w = term_width(t, b.p), skip = w > v->W - 2 ? w - (v->W - 2) : 0;
		int used = term_put_from(t, y, 0, v->W - 1, skip, b.p, A_BOLD);
		term_put(t, y, used, 1, "_", A_BLINK);
	} else if (v->msg.n) {
		term_put(t, y, 0, v->W, v->msg.p, A_BOLD);
	} else {
		keys_hint(v->W, &b);
		term_put(t, y, 0, v->W, b.p, term_attr(t, RL_DIM));
	}
	sb_free(&b);
}

typedef struct helpctx {
	strbuf *lines;
	size_t n, cap;
} helpctx;

static void help_line(void *ctx, int i, const char *s, size_t k)
{
	(void)i;
	helpctx *h = ctx;
	grow(&h->lines, &h->cap, h->n, sizeof *h->lines);
	h->lines[h->n] = (strbuf){ 0 };
	sb_add(&h->lines[h->n++], s, k);
}

/* The keys and the legend, as wide as their longest line allows; text
 * that does not fit wraps, and a help taller than the screen scrolls. */
void panes_help(view *v)
{
	strbuf text = { 0 };
	keys_help(v, &text);
	int w = 0;
	for (const char *s = text.p; s && *s;) {
		const char *nl = strchr(s, '\n');
		char *line = xstrndup(s, nl ? (size_t)(nl - s) : strlen(s));
		int lw = term_width(v->t, line);
		if (lw > w)
			w = lw;
		free(line);
		s = nl ? nl + 1 : s + strlen(s);
	}
	w += 4;
	if (w > v->W)
		w = v->W;
	helpctx h = { 0 };
	for (const char *s = text.p; s && *s;) {
		const char *nl = strchr(s, '\n');
		char *line = xstrndup(s, nl ? (size_t)(nl - s) : strlen(s));
		size_t before = h.n;
		/* what wraps hangs under the text of its line: after the keys,
		 * or after the indentation */
		int hang = (int)strspn(line, " ");
		const char *gap = strstr(line + hang, "  ");
		if (gap && gap - line < 20)
			hang = (int)(gap - line + strspn(gap, " "));
		if (hang > (w - 4) / 2)
			hang = 0;
		size_t first = term_fit(v->t, line, w - 4, NULL);
		if (line[first]) {
			size_t sp = first;
			while (sp > (size_t)hang && line[sp] != ' ')
				sp--;
			if (sp > (size_t)hang)
				first = sp;
		}
		help_line(&h, 0, line, first);
		strbuf pad = { 0 };
		for (int i = 0; i < hang; i++)
			sb_addc(&pad, ' ');
		size_t cont = h.n;
		const char *rest = line + first;
		rest += strspn(rest, " ");
		draw_fold(v->t, rest, w - 4 - hang, 0, help_line, &h);
		for (size_t i = cont; i < h.n; i++) {
			strbuf l = { 0 };
			sb_add(&l, pad.p ? pad.p : "", pad.n);
			sb_add(&l, h.lines[i].p ? h.lines[i].p : "", h.lines[i].n);
			sb_free(&h.lines[i]);
			h.lines[i] = l;
		}
		sb_free(&pad);
		if (h.n == before)
			help_line(&h, 0, "", 0); /* an empty line stays */
		free(line);
		s = nl ? nl + 1 : s + strlen(s);
	}
	int avail = v->H - 2; /* a frame line above and below */
	bool scrolls = (long)h.n > avail;
	if (scrolls)
		avail--; /* the last line says how to scroll */
	long maxtop = (long)h.n - avail;
	if (v->help_top > maxtop)
		v->help_top = maxtop > 0 ? maxtop : 0;
	int hgt = (int)((long)h.n < avail ? (long)h.n : avail) + 2 + (scrolls ? 1 : 0);
	int y0 = (v->H - hgt) / 2, x0 = (v->W - w) / 2;
	for (int k = 0; k < hgt; k++)
		term_blank(y0 + k, x0, w, A_REVERSE);
	for (int k = 0; k < avail && v->help_top + k < (long)h.n; k++) {
		const strbuf *l = &h.lines[v->help_top + k];
		term_put(v->t, y0 + 1 + k, x0 + 2, w - 4, l->p ? l->p : "", A_REVERSE | (v->help_top + k == 0 ? A_BOLD : 0));
	}
	if (scrolls) {
		char more[96];
		snprintf(more, sizeof more, "lines %ld-%ld of %zu: j/k or PgDn/PgUp scroll, any other key closes",
			 v->help_top + 1, v->help_top + avail < (long)h.n ? v->help_top + avail : (long)h.n, h.n);
		term_put(v->t, y0 + hgt - 2, x0 + 2, w - 4, more, A_REVERSE | A_BOLD);
	} else {
		term_put(v->t, y0 + hgt - 1, x0 + 2, w - 4, "any key closes", A_REVERSE);
	}
	for (size_t i = 0; i < h.n; i++)
		sb_free(&h.lines[i]);
	free(h.lines);
	sb_free(&text);
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
